//! The gRPC service `arbiter.v1.ArbiterService`.
//!
//! Each method authenticates the caller, checks its role, turns the request
//! into an act (malformed input fails here with INVALID_ARGUMENT), and hands
//! the act to the game's table, which applies the Laws and records the
//! result. Errors become statuses in one place, [`crate::error`].

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_chess::Color;
use arbiter_laws::event::{Event, TouchKind, Withdrawal};
use arbiter_laws::game::Game;
use arbiter_laws::ruling::RejectReason;
use arbiter_proto::v1 as pb;
use arbiter_proto::v1::arbiter_service_server::ArbiterService;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

use crate::api::{self, to_proto, validate};
use crate::auth::{Authority, CallerId, Generations, Principal, Role};
use crate::error::{AbortReason, ApiError, ExhaustedReason};
use crate::event_log::{self, GameSpec, PlayerSpec};
use crate::hall::{Hall, Route};
use crate::quota::Quotas;
use crate::request::{self, Caller, Stamped};
use crate::store::{
    EventPages, EventStore, GameFilter, GameRow, GameStatus, PlayerTokenRevocation, RevokedGenerations,
    StoreError,
};
use crate::table::{self, Act, Acted, TableHandle, wall_ms};
use crate::view::LoggedEvent;

mod events;
pub(crate) mod forward;
mod hall_watch;
mod round_watch;
mod spectators;

/// The service as the gRPC metrics label it (`grpc_service`).
const SERVICE: &str = "arbiter.v1.ArbiterService";

/// A method's name as the proto spells it (`make_move` -> `MakeMove`), the
/// `grpc_method` label go-grpc-prometheus and the OpenTelemetry RPC
/// conventions use; made once per method.
fn proto_method(method: &'static str) -> &'static str {
    static NAMES: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<&'static str, &'static str>>,
    > = std::sync::OnceLock::new();
    let Ok(mut names) = NAMES.get_or_init(Default::default).lock() else { return method };
    names.entry(method).or_insert_with(|| {
        let pascal: String = method
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
            })
            .collect();
        // At most one per method of the service: a bounded, one-time leak.
        Box::leak(pascal.into_boxed_str())
    })
}

/// The `grpc_type` label: how the method streams.
fn rpc_type(method: &str) -> &'static str {
    match method {
        "watch_game" | "watch_games" | "watch_round" | "watch_broadcast" => "server_stream",
        "connect_board" => "bidi_stream",
        _ => "unary",
    }
}

/// Longest accepted request id.
const MAX_REQUEST_ID: usize = 128;

/// The service's shared state.
#[derive(Debug, Clone)]
pub struct Arbiter {
    pub(crate) hall: Arc<Hall>,
    pub(crate) auth: Arc<Authority>,
    pub(crate) heartbeat: Duration,
    pub(crate) shutdown: CancellationToken,
    pub(crate) quotas: Arc<Quotas>,
    /// The e-boards connected to this process (ConnectBoard).
    pub(crate) boards: Arc<crate::board::Boards>,
    /// The rounds published to spectators from this process (WatchBroadcast).
    pub(crate) spectators: Arc<spectators::Spectators>,
    /// The other replicas acts are forwarded to (see [`forward`]).
    pub(crate) peers: Arc<forward::Peers>,
}

type Reply<T> = Result<Response<T>, Status>;

impl Arbiter {
    /// Runs one RPC: measures it and maps its error to a status.
    async fn observe<T>(
        &self,
        method: &'static str,
        work: impl Future<Output = Result<T, ApiError>>,
    ) -> Reply<T> {
        let (name, kind) = (proto_method(method), rpc_type(method));
        metrics::counter!(
            "grpc_server_started_total",
            "grpc_service" => SERVICE, "grpc_method" => name, "grpc_type" => kind
        )
        .increment(1);
        // The request's span, when traces are exported (crate::traces).
        let request_span = tracing::Span::current();
        // Every log line of the call carries the method, and the game and
        // request id once they are known (as JSON fields with
        // `--log-format json`).
        let span = tracing::info_span!(
            "rpc",
            grpc_method = name,
            game = tracing::field::Empty,
            request_id = tracing::field::Empty
        );
        let started = Instant::now();
        let result = tracing::Instrument::instrument(work, span.clone()).await;
        let _in_call = span.enter();
        let code = match &result {
            Ok(_) => "OK",
            Err(e) => code_name(e.code()),
        };
        crate::traces::record_status(
            &request_span,
            result.as_ref().map_or_else(|e| e.code(), |_| tonic::Code::Ok),
        );
        metrics::counter!(
            "grpc_server_handled_total",
            "grpc_service" => SERVICE, "grpc_method" => name, "grpc_type" => kind, "grpc_code" => code
        )
        .increment(1);
        metrics::histogram!(
            "grpc_server_handling_seconds",
            "grpc_service" => SERVICE, "grpc_method" => name, "grpc_type" => kind
        )
        .record(started.elapsed().as_secs_f64());
        match result {
            Ok(v) => Ok(Response::new(v)),
            Err(e) => {
                if matches!(e, ApiError::Internal(_)) {
                    tracing::error!(method, error = %e, "internal error");
                } else {
                    tracing::debug!(method, error = %e, "request refused");
                }
                Err(e.into())
            }
        }
    }

    /// Where an act on game `name` is judged: `None` here (always alone on
    /// an embedded database, and for a request another replica forwarded);
    /// else the address of the replica that runs the game. The caller is
    /// authenticated first (see [`forward`]). A malformed name, or a game
    /// that cannot be loaded, is judged here, which refuses it.
    ///
    /// # Errors
    /// As [`Authority::identify`].
    async fn owner_elsewhere(&self, metadata: &MetadataMap, name: &str) -> Result<Option<String>, ApiError> {
        if !self.hall.store().is_shared() || forward::was_forwarded(metadata) {
            return Ok(None);
        }
        let Ok(id) = game_id(name) else { return Ok(None) };
        self.auth.identify(metadata).await?;
        match self.hall.route(&id).await {
            Ok(Route::Elsewhere { address, .. }) => Ok(Some(address)),
            Ok(Route::Here(_)) | Err(_) => Ok(None),
        }
    }

    /// Sends an act to the replica at `address`, which runs game `name`,
    /// and gives its answer. If that replica does not answer, the database
    /// is asked who runs the game now (taking it over if the owner's lease
    /// ran out) and the caller is told to retry
    /// ([`ApiError::Moved`], UNAVAILABLE with a retry delay).
    async fn forward<Req, Resp, Call, Sent>(
        &self,
        name: &str,
        address: &str,
        metadata: MetadataMap,
        message: Req,
        call: Call,
    ) -> Result<Resp, ApiError>
    where
        Call: FnOnce(
            arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient<tonic::transport::Channel>,
            Request<Req>,
        ) -> Sent,
        Sent: Future<Output = Result<Response<Resp>, Status>>,
    {
        let client = self.peers.client(address)?;
        let replica = self.hall.store().replica_id().unwrap_or_default();
        metrics::counter!("arbiter_acts_forwarded_total").increment(1);
        let sent = call(client, forward::request_for_owner(metadata, message, &replica));
        // An owner that died without closing its connections (its host
        // lost) must not hold the caller: no answer in time counts as none.
        let answer = tokio::time::timeout(forward::ANSWER_TIMEOUT, sent).await.unwrap_or_else(|_| {
            Err(Status::unavailable("the replica running the game did not answer in time"))
        });
        match forward::answer_of(answer) {
            Ok(answer) => answer,
            Err(status) => {
                let id = game_id(name)?;
                tracing::warn!(game = %id, owner = %address, error = %status, "the replica running the game did not answer");
                metrics::counter!("arbiter_forwards_unanswered_total").increment(1);
                self.peers.forget(address);
                if let Ok(table) = self.hall.table(&id).await {
                    let _ = self.hall.reroute(&id, &table).await;
                }
                Err(ApiError::Moved { game: id, owner: None })
            }
        }
    }

    /// A player's act: a player token acts for its colour; an arbiter for
    /// the colour named. `view` is the request's `GameView` (0 for the
    /// requests without one: the full game).
    #[allow(clippy::too_many_arguments)]
    async fn player_act(
        &self,
        metadata: &MetadataMap,
        sent: Sent<'_>,
        name: &str,
        color: i32,
        expected_seq: Option<i64>,
        view: i32,
        make: impl FnOnce(Color) -> Result<Act, ApiError>,
    ) -> Result<Answer, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        let id = game_id(name)?;
        sent.trace(&id);
        let named =
            validate::color_from_proto("color", color).map_err(|v| ApiError::InvalidArgument(vec![v]))?;
        let with_record =
            validate::with_record_from_proto("view", view).map_err(|v| ApiError::InvalidArgument(vec![v]))?;
        let color = principal.act_for(&id, named)?;
        let act = make(color)?;
        let request = sent.stamp(&Caller::of(&principal, &caller))?;
        let acted = self.apply(&principal, &id, act, request, expected_seq).await?;
        Ok(answer(&acted, with_record))
    }

    /// An arbiter action.
    async fn arbiter_act(
        &self,
        metadata: &MetadataMap,
        sent: Sent<'_>,
        name: &str,
        expected_seq: Option<i64>,
        make: impl FnOnce() -> Result<Act, ApiError>,
    ) -> Result<Answer, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        let id = game_id(name)?;
        sent.trace(&id);
        principal.require(&[Role::Arbiter], "this arbiter action")?;
        let act = make()?;
        let request = sent.stamp(&Caller::of(&principal, &caller))?;
        Ok(answer(&self.apply(&principal, &id, act, request, expected_seq).await?, true))
    }

    async fn apply(
        &self,
        principal: &Principal,
        id: &str,
        act: Act,
        request: Option<Stamped>,
        expected_seq: Option<i64>,
    ) -> Result<Acted, ApiError> {
        if let Some(seq) = expected_seq
            && seq < 0
        {
            return Err(ApiError::field("expected_seq", "must not be negative"));
        }
        // An argument the Laws find out of range for this game (an unknown
        // question, a ply beyond the record) is the caller's malformed input:
        // INVALID_ARGUMENT with a field violation, as the API promises (the
        // Laws' other `InvalidArgument` refusals depend on the game's state
        // and stay FAILED_PRECONDITION, see `error.rs`).
        let argument = match &act {
            Act::Event(Event::AnswerQuestion { .. }) => Some("question_id"),
            Act::Event(Event::ReinstatePosition { .. }) => Some("ply"),
            _ => None,
        };
        // Run here: taken over in the rare case another replica runs it (a
        // cancellation sent here, an owner that changed since the request
        // was routed).
        let table = self.hall.seize(id).await?;
        table.act(act, principal.actor(), request, expected_seq).await.map_err(|e| match (e, argument) {
            (ApiError::Rejected(r), Some(field)) if r.reason == RejectReason::InvalidArgument => {
                let rule = r.rule.map(|rule| format!(" ({rule})")).unwrap_or_default();
                ApiError::field(field, format!("{}{rule}", r.message))
            }
            (e, _) => e,
        })
    }

    /// A game the caller may read, as it stands now (see [`Hall::read`]).
    async fn read_game(&self, metadata: &MetadataMap, name: &str) -> Result<(String, pb::Game), ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        let id = game_id(name)?;
        principal.may_read(&id)?;
        let game = to_proto::game(&self.hall.read(&id).await?);
        Ok((id, game))
    }

    async fn create_game_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::CreateGameRequest,
    ) -> Result<pb::CreateGameResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter], "CreateGame")?;
        let fingerprint =
            request::fingerprint(&pb::CreateGameRequest { request_id: String::new(), ..r.clone() });
        let request = Sent { method: "create_game", request_id: &r.request_id, fingerprint }
            .stamp(&Caller::of(&principal, &caller))?;
        // A request id already recorded in the caller's scope: a retry gets
        // the original answer; a different request is refused. Another
        // caller's creation with the same id is never found here, so its
        // game (and its player tokens) stay its own.
        if let Some(stamped) = &request
            && let Some(game_id) = self.created_before(stamped).await?
        {
            // A retry: if the first call died between creating the game and
            // starting it, finish the job, so the answer is the one asked for
            // (by this very caller, in this very request).
            self.start_if_asked(&game_id, r.start, principal.actor()).await?;
            return self.created(&game_id).await;
        }
        // A service token is limited (see `crate::quota`); an arbiter token,
        // the operator's own, is not. A retry of a creation that happened
        // (above) is answered whatever the rate: it creates nothing.
        let limited = principal == Principal::Role(Role::Service);
        if limited {
            self.quotas.creations.check(&caller, "CreateGame")?;
        }
        let mut violations = Vec::new();
        let regulations = match &r.regulations {
            Some(regs) => match validate::regulations_from_proto(regs) {
                Ok(regs) => Some(regs),
                Err(mut v) => {
                    violations.append(&mut v);
                    None
                }
            },
            None => {
                violations.push(api::Violation {
                    field: "regulations".into(),
                    description: "regulations are required (at least a time control)".into(),
                });
                None
            }
        };
        let id = if r.game_id.is_empty() {
            format!("g{}", uuid::Uuid::now_v7().simple())
        } else {
            match check_game_id(&r.game_id) {
                Ok(()) => r.game_id.clone(),
                Err(d) => {
                    violations.push(api::Violation { field: "game_id".into(), description: d });
                    String::new()
                }
            }
        };
        let white = player_of("white", r.white.as_ref(), &mut violations);
        let black = player_of("black", r.black.as_ref(), &mut violations);
        for (field, value) in [("event", &r.event), ("round", &r.round)] {
            if let Err(v) = validate::label(field, value) {
                violations.push(v);
            }
        }
        let Some(regulations) = regulations.filter(|_| violations.is_empty()) else {
            return Err(ApiError::InvalidArgument(violations));
        };
        // Building the game checks what the regulations alone cannot (the
        // start position with the castling mode, for one).
        Game::new(regulations.clone()).map_err(|e| ApiError::field("regulations", e.to_string()))?;
        let spec = GameSpec { event: r.event.clone(), round: r.round.clone(), white, black, regulations };
        let now = wall_ms();
        let row = GameRow {
            id: id.clone(),
            // Only creations before request scopes have one: the request is
            // recorded with its scope instead (`creation_requests`).
            request_id: None,
            creator: Some(caller.to_string()),
            created_wall_ms: now,
            event_name: r.event.clone(),
            round: r.round.clone(),
            white: spec.white.name.clone(),
            black: spec.black.name.clone(),
            spec_format: event_log::FORMAT,
            spec_json: event_log::encode_spec(&spec),
            status: GameStatus::Pending,
            result: None,
            last_seq: 0,
            updated_wall_ms: now,
            // Its table writes the first one when it loads.
            view: None,
        };
        let cap = limited.then_some(self.quotas.limits.max_unfinished_games);
        match self.hall.create(&row, request.as_ref(), cap).await {
            Ok(()) => {}
            Err(ApiError::ResourceExhausted { reason: ExhaustedReason::TooManyUnfinishedGames, .. }) => {
                metrics::counter!("arbiter_quota_refusals_total", "reason" => "TOO_MANY_UNFINISHED_GAMES")
                    .increment(1);
                return Err(self.quotas.too_many_unfinished(cap.unwrap_or_default()));
            }
            Err(ApiError::Aborted { reason: AbortReason::DuplicateRequest, .. }) => {
                // Another call of this caller with the same request id won
                // the race.
                if let Some(stamped) = &request
                    && let Some(game_id) = self.created_before(stamped).await?
                {
                    self.start_if_asked(&game_id, r.start, principal.actor()).await?;
                    return self.created(&game_id).await;
                }
                return Err(ApiError::Unavailable("retry the request".into()));
            }
            Err(e) => return Err(e),
        }
        metrics::counter!("arbiter_games_created_total").increment(1);
        self.start_if_asked(&id, r.start, principal.actor()).await?;
        self.created(&id).await
    }

    /// The game an earlier `CreateGame` of the same scope made with this
    /// request id, if it was the same request.
    ///
    /// # Errors
    /// [`ApiError::RequestIdReused`] if it was a different request.
    async fn created_before(&self, stamped: &Stamped) -> Result<Option<String>, ApiError> {
        let Some(found) = self.hall.store().creation_request(&stamped.origin.scope, &stamped.id).await?
        else {
            return Ok(None);
        };
        if found.sha256 != stamped.origin.sha256 {
            return Err(ApiError::RequestIdReused(format!(
                "request id {} was already used by this caller for a different CreateGame request \
                 (games/{}); a new request needs a new request id",
                crate::error::quote(&stamped.id),
                found.game_id
            )));
        }
        Ok(Some(found.game_id))
    }

    /// Starts a game created with `start` unless its start (or anything
    /// else) is already recorded: the first call, a concurrent retry or the
    /// arbiter got there first.
    async fn start_if_asked(&self, id: &str, start: bool, actor: &'static str) -> Result<(), ApiError> {
        if !start {
            return Ok(());
        }
        let table = self.hall.seize(id).await?;
        match table.act(Act::Event(Event::Start), actor, None, Some(0)).await {
            Ok(_) | Err(ApiError::Aborted { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    async fn created(&self, id: &str) -> Result<pb::CreateGameResponse, ApiError> {
        let game = self.hall.table(id).await?.read().await?;
        Ok(pb::CreateGameResponse {
            game: Some(to_proto::game(&game)),
            white_token: self.auth.current_player_token(id, Color::White).await?,
            black_token: self.auth.current_player_token(id, Color::Black).await?,
        })
    }

    /// Fails unless the caller may manage `id` as its organiser: an arbiter
    /// token, or the service token that created the game.
    ///
    /// # Errors
    /// [`ApiError::PermissionDenied`], [`ApiError::NotFound`].
    async fn require_organiser(
        &self,
        principal: &Principal,
        caller: &CallerId,
        id: &str,
        method: &str,
        what: &str,
    ) -> Result<(), ApiError> {
        principal.require(&[Role::Service, Role::Arbiter], method)?;
        if *principal == Principal::Role(Role::Service) {
            let row =
                self.hall.store().game(id).await?.ok_or_else(|| ApiError::NotFound(format!("games/{id}")))?;
            if row.creator.as_deref() != Some(caller.as_str()) {
                return Err(ApiError::PermissionDenied(format!(
                    "a service token may {what} only the games it created; an arbiter token may {what} any"
                )));
            }
        }
        Ok(())
    }

    /// RevokePlayerTokens: the organiser of a game replaces the player
    /// tokens of one colour or both (a token leaked, a player replaced).
    async fn revoke_player_tokens_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::RevokePlayerTokensRequest,
    ) -> Result<pb::RevokePlayerTokensResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        let id = game_id(&r.name)?;
        let color =
            validate::color_from_proto("color", r.color).map_err(|v| ApiError::InvalidArgument(vec![v]))?;
        self.require_organiser(&principal, &caller, &id, "RevokePlayerTokens", "revoke the tokens of")
            .await?;
        let fingerprint =
            request::fingerprint(&pb::RevokePlayerTokensRequest { request_id: String::new(), ..r.clone() });
        let request = Sent { method: "revoke_player_tokens", request_id: &r.request_id, fingerprint }
            .stamp(&Caller::of(&principal, &caller))?;
        if let Some(stamped) = &request
            && let Some(earlier) = self.revoked_before(&id, stamped).await?
        {
            return Ok(self.new_tokens(&id, earlier));
        }
        let revocation = PlayerTokenRevocation {
            game_id: id.clone(),
            white: color != Some(Color::Black),
            black: color != Some(Color::White),
            revoked_wall_ms: wall_ms(),
            request: request.as_ref().map(|s| (s.id.clone(), s.origin.clone())),
        };
        let [white, black] = match self.hall.store().revoke_player_tokens(&revocation).await {
            Ok(generations) => generations,
            // The same caller's concurrent call with this request id won.
            Err(StoreError::DuplicateRequest { .. }) => {
                if let Some(stamped) = &request
                    && let Some(earlier) = self.revoked_before(&id, stamped).await?
                {
                    return Ok(self.new_tokens(&id, earlier));
                }
                return Err(ApiError::Unavailable("retry the request".into()));
            }
            Err(e) => return Err(e.into()),
        };
        self.auth.remember_generations(&id, Generations { white, black });
        metrics::counter!("arbiter_player_token_revocations_total").increment(1);
        tracing::warn!(game = %id, white = revocation.white, black = revocation.black, by = %caller, "player tokens revoked");
        Ok(self.new_tokens(
            &id,
            RevokedGenerations {
                white: revocation.white.then_some(white),
                black: revocation.black.then_some(black),
            },
        ))
    }

    /// The generations an earlier RevokePlayerTokens of the same scope gave
    /// with this request id, if it was the same request.
    ///
    /// # Errors
    /// [`ApiError::RequestIdReused`] if it was a different request.
    async fn revoked_before(
        &self,
        id: &str,
        stamped: &Stamped,
    ) -> Result<Option<RevokedGenerations>, ApiError> {
        let Some(found) =
            self.hall.store().revocation_request(id, &stamped.origin.scope, &stamped.id).await?
        else {
            return Ok(None);
        };
        if found.sha256 != stamped.origin.sha256 {
            return Err(ApiError::RequestIdReused(format!(
                "request id {} was already used by this caller for a different RevokePlayerTokens request \
                 in games/{id}; a new request needs a new request id",
                crate::error::quote(&stamped.id),
            )));
        }
        Ok(Some(found.generations))
    }

    fn new_tokens(&self, id: &str, generations: RevokedGenerations) -> pb::RevokePlayerTokensResponse {
        let token = |color, generation: Option<u32>| {
            generation.map(|g| self.auth.player_token(id, color, g)).unwrap_or_default()
        };
        pb::RevokePlayerTokensResponse {
            white_token: token(Color::White, generations.white),
            black_token: token(Color::Black, generations.black),
        }
    }

    /// CancelGame: the creator of a game (its service token) or an arbiter
    /// withdraws it before it starts.
    async fn cancel_game_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::CancelGameRequest,
    ) -> Result<pb::CancelGameResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        let id = game_id(&r.name)?;
        self.require_organiser(&principal, &caller, &id, "CancelGame", "cancel").await?;
        // The Laws refuse a game that has started (FAILED_PRECONDITION).
        let act = Act::Event(Event::Withdraw { reason: Withdrawal::Cancelled });
        let fingerprint = request::fingerprint(&pb::CancelGameRequest {
            request_id: String::new(),
            expected_seq: None,
            ..r.clone()
        });
        let request = Sent { method: "cancel_game", request_id: &r.request_id, fingerprint }
            .stamp(&Caller::of(&principal, &caller))?;
        let answer = answer(&self.apply(&principal, &id, act, request, r.expected_seq).await?, true);
        Ok(pb::CancelGameResponse { event: Some(answer.event), game: Some(answer.game) })
    }

    /// The game with the e-board this process reads for it, if any: what
    /// the arbiter sees of the board (in sync or not) in every read of the
    /// game (the state lives in this process, it is not stored).
    fn with_board(&self, id: &str, mut game: pb::Game) -> pb::Game {
        game.board = self.boards.state(id).map(|s| api::board::state_to_proto(&s));
        game
    }

    /// `game` with the e-board read for it and, for a game of a round, its
    /// round, board and the players' start numbers.
    async fn seated(&self, id: &str, game: pb::Game) -> Result<pb::Game, ApiError> {
        use crate::store::tournament::TournamentStore;
        let mut game = self.with_board(id, game);
        if let Some(seat) = self.hall.store().round_of_game(id).await? {
            game.round_name = format!("events/{}/rounds/{}", seat.tournament_id, seat.round);
            game.board_number = i32::try_from(seat.board).unwrap_or(0);
            for (player, number) in [(&mut game.white, seat.white), (&mut game.black, seat.black)] {
                if let Some(p) = player {
                    p.start_number = i32::try_from(number).unwrap_or(0);
                }
            }
        }
        Ok(game)
    }

    async fn list_games_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ListGamesRequest,
    ) -> Result<pb::ListGamesResponse, ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter, Role::Viewer], "ListGames")?;
        let size = page_size(r.page_size, 50)?;
        let after_id = if r.page_token.is_empty() {
            None
        } else {
            check_game_id(&r.page_token).map_err(|_| ApiError::field("page_token", "not a page token"))?;
            Some(r.page_token.clone())
        };
        let status = validate::status_from_proto("status", r.status)
            .map_err(|v| ApiError::InvalidArgument(vec![v]))?;
        let filter = GameFilter {
            event_name: Some(r.event.clone()).filter(|s| !s.is_empty()),
            round: Some(r.round.clone()).filter(|s| !s.is_empty()),
            status,
            after_id,
            limit: size + 1,
        };
        let rows = self.hall.store().list_games(&filter).await?;
        let (rows, next_page_token) = page(rows, size, |r| r.id.clone());
        let mut games = Vec::with_capacity(rows.len());
        for row in &rows {
            games.push(self.seated(&row.id, to_proto::game(&self.hall.list_reading(row).await?)).await?);
        }
        Ok(pb::ListGamesResponse { games, next_page_token })
    }

    async fn list_events_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ListGameEventsRequest,
    ) -> Result<pb::ListGameEventsResponse, ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        let id = game_id_field("parent", &r.parent)?;
        principal.may_read(&id)?;
        let size = page_size(r.page_size, 100)?;
        let after: i64 = if r.page_token.is_empty() {
            0
        } else {
            r.page_token
                .parse()
                .ok()
                .filter(|n: &i64| *n >= 0)
                .ok_or_else(|| ApiError::field("page_token", "not a page token"))?
        };
        if self.hall.store().game(&id).await?.is_none() {
            return Err(ApiError::NotFound(format!("games/{id}")));
        }
        let rows = self.hall.store().events(&id, after, size + 1).await?;
        let (rows, next_page_token) = page(rows, size, |r| r.seq.to_string());
        let mut events = Vec::with_capacity(rows.len());
        for row in &rows {
            events.push(to_proto::event(&LoggedEvent::decode(row)?));
        }
        Ok(pb::ListGameEventsResponse { events, next_page_token })
    }

    async fn export_pgn_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ExportPgnRequest,
    ) -> Result<pb::ExportPgnResponse, ApiError> {
        let (id, game) = self.read_game(metadata, &r.name).await?;
        let mut rows = Vec::new();
        let mut pages = EventPages::new(self.hall.store(), &id, 0, 1000);
        while let Some(page) = pages.next().await? {
            rows.extend(page);
            if pages.last_seq() >= game.last_seq {
                break;
            }
        }
        rows.retain(|r| r.seq <= game.last_seq);
        Ok(pb::ExportPgnResponse { pgn: crate::pgn::export(&game, &rows)? })
    }

    async fn watch_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::WatchGameRequest,
    ) -> Result<ReceiverStream<Result<pb::WatchGameResponse, Status>>, ApiError> {
        // Authenticate first, as every other method does: a caller without
        // a valid token learns nothing about its request, not even that a
        // field is malformed.
        let (principal, caller) = self.auth.identify(metadata).await?;
        if r.after_seq < 0 {
            return Err(ApiError::field("after_seq", "must not be negative"));
        }
        let id = game_id(&r.name)?;
        principal.may_read(&id)?;
        // Counted from here until the stream ends (the permit goes with the
        // watcher's task), so that refused or failed streams count for
        // nothing.
        let permit = self.quotas.watches.acquire(&caller, &id).inspect_err(|e| {
            metrics::counter!("arbiter_quota_refusals_total", "reason" => e.reason()).increment(1);
        })?;
        // A finished game no longer changes: its stored reading and its log
        // are the whole stream. A game in play is watched through its table;
        // subscribe before reading the log, so nothing falls between the two.
        let (table, live, game) = match self.hall.finished_unloaded(&id).await? {
            Some(reading) => (None, None, to_proto::game(&reading)),
            None => {
                let table = self.hall.table(&id).await?;
                let live = table.subscribe();
                let game = to_proto::game(&table.read().await?);
                (Some(table), Some(live), game)
            }
        };
        let game = self.seated(&id, game).await?;
        // A resume point beyond the log is the client's mistake (another
        // game's number, or a log it imagines): say so rather than wait for
        // events that will never come. The table may lag behind a write by
        // another replica, so the log itself has the last word.
        if r.after_seq > game.last_seq && self.hall.store().events(&id, r.after_seq - 1, 1).await?.is_empty()
        {
            return Err(ApiError::field(
                "after_seq",
                format!("is beyond the last event of {} ({})", r.name, game.last_seq),
            ));
        }
        let (tx, rx) = mpsc::channel(64);
        let watcher = Watcher {
            id,
            table,
            store: self.hall.store().clone(),
            tx,
            last: r.after_seq,
            heartbeat: self.heartbeat,
            shutdown: self.shutdown.clone(),
            player: matches!(principal, Principal::Player { .. })
                .then(|| (self.auth.clone(), principal.clone())),
        };
        metrics::gauge!("arbiter_watch_streams").increment(1.0);
        tokio::spawn(async move {
            watcher.run(game, live).await;
            drop(permit);
            metrics::gauge!("arbiter_watch_streams").decrement(1.0);
        });
        Ok(ReceiverStream::new(rx))
    }
}

/// One WatchGame stream.
struct Watcher {
    id: String,
    /// The table of a game in play (`None` for a finished game, whose stream
    /// ends with its log).
    table: Option<TableHandle>,
    store: crate::store::Storage,
    tx: mpsc::Sender<Result<pb::WatchGameResponse, Status>>,
    /// The last sequence number sent.
    last: i64,
    heartbeat: Duration,
    shutdown: CancellationToken,
    /// A stream opened with a player token ends when the token is revoked.
    player: Option<(Arc<Authority>, Principal)>,
}

enum Flow {
    Continue,
    Stop,
}

impl Watcher {
    async fn send(&self, item: pb::watch_game_response::Item) -> Flow {
        // A storage error here is not the watcher's fault: the stream goes
        // on, and the next message asks again.
        if let Some((auth, principal)) = &self.player
            && let Ok(false) = auth.is_current(principal).await
        {
            let revoked = ApiError::Unauthenticated("this player token was revoked; the watch ends".into());
            let _ = self.tx.send(Err(revoked.into())).await;
            return Flow::Stop;
        }
        match self.tx.send(Ok(pb::WatchGameResponse { item: Some(item) })).await {
            Ok(()) => Flow::Continue,
            Err(_) => Flow::Stop,
        }
    }

    /// Sends every stored event after `last`; `Stop` when the client left or
    /// the game is over and everything was sent.
    async fn backfill(&mut self) -> Flow {
        let store = self.store.clone();
        let id = self.id.clone();
        let mut pages = EventPages::new(&store, &id, self.last, 500);
        loop {
            let page = match pages.next().await {
                Ok(Some(page)) => page,
                Ok(None) => break,
                Err(e) => {
                    let _ = self.tx.send(Err(ApiError::from(e).into())).await;
                    return Flow::Stop;
                }
            };
            for row in page {
                let event = match LoggedEvent::decode(&row) {
                    Ok(e) => to_proto::event(&e),
                    Err(e) => {
                        let _ = self.tx.send(Err(e.into())).await;
                        return Flow::Stop;
                    }
                };
                if let Flow::Stop = self.send(pb::watch_game_response::Item::Event(event)).await {
                    return Flow::Stop;
                }
                self.last = row.seq;
            }
        }
        match self.store.game(&self.id).await {
            Ok(Some(row)) if !row.status.is_open() && self.last >= row.last_seq => Flow::Stop,
            _ => Flow::Continue,
        }
    }

    async fn run(mut self, game: pb::Game, live: Option<broadcast::Receiver<Arc<table::Recorded>>>) {
        if let Flow::Stop = self.send(pb::watch_game_response::Item::Game(game)).await {
            return;
        }
        if let Flow::Stop = self.backfill().await {
            return;
        }
        let (Some(table), Some(mut live)) = (self.table.clone(), live) else { return };
        let mut beat = tokio::time::interval(self.heartbeat);
        beat.tick().await;
        loop {
            tokio::select! {
                received = live.recv() => {
                    let flow = match received {
                        Ok(rec) if rec.event.seq <= self.last => Flow::Continue,
                        Ok(rec) if rec.event.seq == self.last + 1 => {
                            self.last = rec.event.seq;
                            let event = to_proto::event(&rec.event);
                            match self.send(pb::watch_game_response::Item::Event(event)).await {
                                Flow::Stop => Flow::Stop,
                                Flow::Continue if rec.finished => Flow::Stop,
                                Flow::Continue => Flow::Continue,
                            }
                        }
                        // A gap (the stream lagged): the log has everything.
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.backfill().await,
                        Err(broadcast::error::RecvError::Closed) => {
                            let _ = self.backfill().await;
                            Flow::Stop
                        }
                    };
                    if let Flow::Stop = flow {
                        return;
                    }
                }
                _ = beat.tick() => {
                    let clocks = match table.read().await {
                        Ok(g) => to_proto::clocks(g.view.clocks, g.clocks_read_wall_ms),
                        Err(_) => continue,
                    };
                    if let Flow::Stop = self.send(pb::watch_game_response::Item::Heartbeat(clocks)).await {
                        return;
                    }
                }
                () = self.tx.closed() => return,
                () = self.shutdown.cancelled() => {
                    let _ = self.tx.send(Err(Status::unavailable("the service is shutting down; resume the watch"))).await;
                    return;
                }
            }
        }
    }
}

fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "CANCELLED",
        Unknown => "UNKNOWN",
        InvalidArgument => "INVALID_ARGUMENT",
        DeadlineExceeded => "DEADLINE_EXCEEDED",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        PermissionDenied => "PERMISSION_DENIED",
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        FailedPrecondition => "FAILED_PRECONDITION",
        Aborted => "ABORTED",
        OutOfRange => "OUT_OF_RANGE",
        Unimplemented => "UNIMPLEMENTED",
        Internal => "INTERNAL",
        Unavailable => "UNAVAILABLE",
        DataLoss => "DATA_LOSS",
        Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Checks a game id: `[a-z][a-z0-9-]{0,62}`.
fn check_game_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 63
        && id.as_bytes()[0].is_ascii_lowercase()
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} is not a game id: 1 to 63 characters, lowercase letters, digits and '-', starting with a letter",
            crate::error::quote(id)
        ))
    }
}

fn game_id_field(field: &str, name: &str) -> Result<String, ApiError> {
    let id = name.strip_prefix("games/").ok_or_else(|| {
        ApiError::field(
            field,
            format!("{} is not a game name: expected `games/{{game}}`", crate::error::quote(name)),
        )
    })?;
    check_game_id(id).map_err(|d| ApiError::field(field, d))?;
    Ok(id.to_string())
}

fn game_id(name: &str) -> Result<String, ApiError> {
    game_id_field("name", name)
}

/// A mutating request as sent: its method, its request id (unchecked) and
/// its fingerprint (see [`crate::request`]). An act's fingerprint leaves out
/// `expected_seq` as well as the id: it is a condition on the game, not part
/// of what the act asks, and a client may refresh it when it sends the act
/// again; the act already recorded is the answer either way.
struct Sent<'a> {
    method: &'static str,
    request_id: &'a str,
    fingerprint: String,
}

impl Sent<'_> {
    /// Names the game and the request id on the call's log lines.
    fn trace(&self, game: &str) {
        let span = tracing::Span::current();
        span.record("game", game);
        // Only a well-formed id: nothing a client sends may forge a line.
        if let Ok(Some(id)) = request_id_of(self.request_id) {
            span.record("request_id", id.as_str());
        }
    }

    /// The request id in `caller`'s scope, if the request has one.
    fn stamp(self, caller: &Caller) -> Result<Option<Stamped>, ApiError> {
        Ok(request_id_of(self.request_id)?.map(|id| Stamped::new(caller, self.method, id, self.fingerprint)))
    }
}

fn request_id_of(text: &str) -> Result<Option<String>, ApiError> {
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() > MAX_REQUEST_ID || !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::field(
            "request_id",
            format!("at most {MAX_REQUEST_ID} printable ASCII characters (a UUID is best)"),
        ));
    }
    Ok(Some(text.to_string()))
}

/// One page of a paged read: `rows` were read with a limit of `size + 1`,
/// so that a row beyond the page says there is a next one; its token is
/// `token_of` the page's last row (empty on the last page).
fn page<T>(mut rows: Vec<T>, size: u32, token_of: impl Fn(&T) -> String) -> (Vec<T>, String) {
    let more = rows.len() > size as usize;
    rows.truncate(size as usize);
    let token = if more { rows.last().map(&token_of).unwrap_or_default() } else { String::new() };
    (rows, token)
}

/// The largest page a paged read returns.
const MAX_PAGE: u32 = 1000;
// A page is read with one row more than its size, to tell whether another
// follows: a store that returned fewer would end every full-size list after
// its first page (as both did once, at 1,000 rows).
const _: () = assert!(MAX_PAGE < crate::store::MAX_LIST_ROWS);

fn page_size(size: i32, default: u32) -> Result<u32, ApiError> {
    match size {
        0 => Ok(default),
        1.. if size as u32 <= MAX_PAGE => Ok(size as u32),
        _ => Err(ApiError::field("page_size", "must be between 1 and 1000 (0 for the default)")),
    }
}

fn player_of(field: &str, p: Option<&pb::Player>, violations: &mut Vec<api::Violation>) -> PlayerSpec {
    let p = p.cloned().unwrap_or_default();
    if let Err(v) = validate::label(&format!("{field}.name"), &p.name) {
        violations.push(v);
    }
    if p.fide_id.len() > 12 || !p.fide_id.bytes().all(|b| b.is_ascii_digit()) {
        violations.push(api::Violation {
            field: format!("{field}.fide_id"),
            description: "a FIDE id is up to 12 digits".into(),
        });
    }
    PlayerSpec { name: p.name, fide_id: p.fide_id }
}

fn required_color(field: &str, value: i32) -> Result<Color, ApiError> {
    validate::color_from_proto(field, value)
        .map_err(|v| ApiError::InvalidArgument(vec![v]))?
        .ok_or_else(|| ApiError::field(field, "the colour is required"))
}

fn bad(v: api::Violation) -> ApiError {
    ApiError::InvalidArgument(vec![v])
}

/// An act's answer before it becomes its RPC's response.
struct Answer {
    event: pb::GameEvent,
    game: pb::Game,
    /// What became of a move the act made or completed.
    outcome: pb::MoveOutcome,
}

/// The answer to an act, with the game's record or without
/// (`GAME_VIEW_BASIC`).
fn answer(acted: &Acted, with_record: bool) -> Answer {
    Answer {
        event: to_proto::event(&acted.event),
        game: to_proto::game_in_view(&acted.game, with_record),
        outcome: to_proto::move_outcome(&acted.event.event, &acted.event.aftermath.rulings),
    }
}

/// A response message of an act, built from its answer.
trait Respond {
    fn respond(answer: Answer) -> Self;
}

/// The responses that carry only the event and the game.
macro_rules! plain_responses {
    ($($resp:ident),* $(,)?) => {$(
        impl Respond for pb::$resp {
            fn respond(a: Answer) -> Self {
                pb::$resp { event: Some(a.event), game: Some(a.game) }
            }
        }
    )*};
}

plain_responses!(
    TouchPieceResponse,
    AnnounceAdjustResponse,
    PlacePromotionPieceResponse,
    ReleaseCastlingKingResponse,
    ReportTwoHandsResponse,
    OfferDrawResponse,
    AcceptDrawResponse,
    DeclineDrawResponse,
    ClaimDrawResponse,
    ClaimIllegalMoveResponse,
    ResignGameResponse,
    RecordArrivalResponse,
    RecordDisconnectResponse,
    RecordReconnectResponse,
    RequestIncrementResponse,
    ClaimNoWinningAttemptResponse,
    StartGameResponse,
    PauseClocksResponse,
    ResumeClocksResponse,
    AdjustClockResponse,
    SetClockResponse,
    SetMoveCounterResponse,
    InstallTimeControlResponse,
    IssuePenaltyResponse,
    ReinstatePositionResponse,
    DeclareResultResponse,
    RecordDeviceResponse,
    ReportSetupErrorResponse,
    AnswerQuestionResponse,
);

impl Respond for pb::MakeMoveResponse {
    fn respond(a: Answer) -> Self {
        let obligation = a.game.obligation.clone();
        pb::MakeMoveResponse {
            event: Some(a.event),
            game: Some(a.game),
            outcome: a.outcome as i32,
            obligation,
        }
    }
}

impl Respond for pb::PressClockResponse {
    fn respond(a: Answer) -> Self {
        pb::PressClockResponse { event: Some(a.event), game: Some(a.game), outcome: a.outcome as i32 }
    }
}

/// A `TouchPiece` request: one touch, or two at once (4.3.3), which must be
/// touches with intent.
fn touch_act(r: &pb::TouchPieceRequest, color: Color) -> Result<Act, ApiError> {
    let square = validate::parse_square("square", &r.square).map_err(bad)?;
    let kind = validate::touch_kind_from_proto("kind", r.kind).map_err(bad)?;
    if r.simultaneous_square.trim().is_empty() {
        return ev(Event::Touch { color, square, kind });
    }
    let other = validate::parse_square("simultaneous_square", &r.simultaneous_square).map_err(bad)?;
    if kind != TouchKind::Intent {
        return Err(ApiError::field(
            "kind",
            "two pieces touched at once (Law 4.3.3) are touched with intent: leave `kind` unspecified or \
             TOUCH_KIND_INTENT",
        ));
    }
    if other == square {
        return Err(ApiError::field(
            "simultaneous_square",
            "the two pieces touched must be on different squares",
        ));
    }
    Ok(Act::SimultaneousTouch { color, squares: [square, other] })
}

/// The service implementation: one method per act, generated by a macro so
/// that every act goes through the same authentication, validation and
/// recording path. (The trait is an `async_trait`, so the macro emits the
/// whole impl block.)
macro_rules! arbiter_service {
    (
        players { $( $pm:ident($preq:ident) -> $presp:ident |$pr:ident, $pc:ident| $pact:expr; )* }
        arbiter { $( $am:ident($areq:ident) -> $aresp:ident |$ar:ident| $aact:expr; )* }
        $($rest:tt)*
    ) => {
        #[tonic::async_trait]
        impl ArbiterService for Arbiter {
            $(
                async fn $pm(&self, request: Request<pb::$preq>) -> Reply<pb::$presp> {
                    self.observe(stringify!($pm), async {
                        let (metadata, _, $pr) = request.into_parts();
                        if let Some(owner) = self.owner_elsewhere(&metadata, &$pr.name).await? {
                            let name = $pr.name.clone();
                            return self
                                .forward(&name, &owner, metadata, $pr, |mut c, r| async move { c.$pm(r).await })
                                .await;
                        }
                        // The view is how to answer, not what was asked:
                        // it is left out of the request's identity.
                        let mut identity = pb::$preq { request_id: String::new(), expected_seq: None, ..$pr.clone() };
                        let view = requested_view!($pm, identity);
                        let sent = Sent {
                            method: stringify!($pm),
                            request_id: &$pr.request_id,
                            fingerprint: request::fingerprint(&identity),
                        };
                        let answer = self
                            .player_act(&metadata, sent, &$pr.name, $pr.color, $pr.expected_seq, view, |$pc| $pact)
                            .await?;
                        Ok(<pb::$presp as Respond>::respond(answer))
                    })
                    .await
                }
            )*
            $(
                async fn $am(&self, request: Request<pb::$areq>) -> Reply<pb::$aresp> {
                    self.observe(stringify!($am), async {
                        let (metadata, _, $ar) = request.into_parts();
                        if let Some(owner) = self.owner_elsewhere(&metadata, &$ar.name).await? {
                            let name = $ar.name.clone();
                            return self
                                .forward(&name, &owner, metadata, $ar, |mut c, r| async move { c.$am(r).await })
                                .await;
                        }
                        let sent = Sent {
                            method: stringify!($am),
                            request_id: &$ar.request_id,
                            fingerprint: request::fingerprint(
                                &pb::$areq { request_id: String::new(), expected_seq: None, ..$ar.clone() }),
                        };
                        let answer = self
                            .arbiter_act(&metadata, sent, &$ar.name, $ar.expected_seq, || $aact)
                            .await?;
                        Ok(<pb::$aresp as Respond>::respond(answer))
                    })
                    .await
                }
            )*
            $($rest)*
        }
    };
}

/// The `GameView` an act's request asks for, taken out of it (so that it
/// stays out of the request's fingerprint): only the acts of every move,
/// MakeMove and PressClock, have one; 0 (the full game) for the others.
macro_rules! requested_view {
    (make_move, $r:ident) => {
        std::mem::take(&mut $r.view)
    };
    (press_clock, $r:ident) => {
        std::mem::take(&mut $r.view)
    };
    ($other:ident, $r:ident) => {{
        let _ = &mut $r;
        0
    }};
}

fn ev(event: Event) -> Result<Act, ApiError> {
    Ok(Act::Event(event))
}

arbiter_service! {
    players {
        make_move(MakeMoveRequest) -> MakeMoveResponse |r, color| Ok(Act::Move {
            color, text: r.r#move.clone(), premove: r.premove, castle: r.castle,
        });
        touch_piece(TouchPieceRequest) -> TouchPieceResponse |r, color| touch_act(&r, color);
        announce_adjust(AnnounceAdjustRequest) -> AnnounceAdjustResponse |r, color|
            ev(Event::AnnounceAdjust { color });
        place_promotion_piece(PlacePromotionPieceRequest) -> PlacePromotionPieceResponse |r, color|
            ev(Event::PromotionPieceTouched {
                color, role: validate::promotion_role_from_proto("piece", r.piece).map_err(bad)?,
            });
        release_castling_king(ReleaseCastlingKingRequest) -> ReleaseCastlingKingResponse |r, color|
            ev(Event::CastlingKingReleased {
                color, to: validate::parse_square("square", &r.square).map_err(bad)?,
            });
        report_two_hands(ReportTwoHandsRequest) -> ReportTwoHandsResponse |r, color|
            ev(Event::UsedTwoHands { color });
        press_clock(PressClockRequest) -> PressClockResponse |r, color|
            ev(Event::PressClock { color, other_hand: r.other_hand });
        offer_draw(OfferDrawRequest) -> OfferDrawResponse |r, color| ev(Event::OfferDraw { color });
        accept_draw(AcceptDrawRequest) -> AcceptDrawResponse |r, color| ev(Event::AcceptDraw { color });
        decline_draw(DeclineDrawRequest) -> DeclineDrawResponse |r, color| ev(Event::DeclineDraw { color });
        claim_draw(ClaimDrawRequest) -> ClaimDrawResponse |r, color| Ok(Act::Claim {
            color,
            kind: validate::claim_kind_from_proto("kind", r.kind).map_err(bad)?,
            intended: Some(r.intended_move.clone()).filter(|m| !m.trim().is_empty()),
        });
        claim_illegal_move(ClaimIllegalMoveRequest) -> ClaimIllegalMoveResponse |r, color|
            ev(Event::ClaimIllegalMove { color });
        resign_game(ResignGameRequest) -> ResignGameResponse |r, color| ev(Event::Resign { color });
        record_arrival(RecordArrivalRequest) -> RecordArrivalResponse |r, color|
            ev(Event::PlayerArrived { color });
        record_disconnect(RecordDisconnectRequest) -> RecordDisconnectResponse |r, color|
            ev(Event::Disconnect { color });
        record_reconnect(RecordReconnectRequest) -> RecordReconnectResponse |r, color|
            ev(Event::Reconnect { color });
        request_increment(RequestIncrementRequest) -> RequestIncrementResponse |r, color|
            ev(Event::RequestIncrement { color });
        claim_no_winning_attempt(ClaimNoWinningAttemptRequest) -> ClaimNoWinningAttemptResponse |r, color|
            ev(Event::ClaimNoWinningAttempt { color });
    }
    arbiter {
        start_game(StartGameRequest) -> StartGameResponse |r| ev(Event::Start);
        pause_clocks(PauseClocksRequest) -> PauseClocksResponse |r| ev(Event::PauseClocks);
        resume_clocks(ResumeClocksRequest) -> ResumeClocksResponse |r| ev(Event::ResumeClocks);
        adjust_clock(AdjustClockRequest) -> AdjustClockResponse |r| {
            // `unsigned_abs`: `i64::MIN.abs()` overflows (a panic in the
            // handler with debug assertions, and a wrapped negative value that
            // passed this check without them).
            if r.delta_ms == 0 || r.delta_ms.unsigned_abs() > 86_400_000 {
                return Err(ApiError::field("delta_ms", "must be non-zero and at most 24 hours either way"));
            }
            ev(Event::AdjustClock { color: required_color("color", r.color)?, delta_ms: r.delta_ms })
        };
        set_clock(SetClockRequest) -> SetClockResponse |r| {
            if !(0..=86_400_000).contains(&r.remaining_ms) {
                return Err(ApiError::field("remaining_ms", "must be between 0 and 24 hours"));
            }
            ev(Event::SetClock { color: required_color("color", r.color)?, remaining_ms: r.remaining_ms })
        };
        set_move_counter(SetMoveCounterRequest) -> SetMoveCounterResponse |r| ev(Event::SetMoveCounter {
            color: required_color("color", r.color)?,
            moves_completed: validate::move_counter("moves_completed", r.moves_completed).map_err(bad)?,
        });
        install_time_control(InstallTimeControlRequest) -> InstallTimeControlResponse |r|
            ev(Event::InstallTimeControl {
                time_control: validate::pgn_time_control("pgn_time_control", &r.pgn_time_control)
                    .map_err(bad)?,
            });
        issue_penalty(IssuePenaltyRequest) -> IssuePenaltyResponse |r| ev(Event::Penalty {
            color: required_color("color", r.color)?,
            kind: validate::penalty_from_proto(r.kind, r.amount_ms).map_err(bad)?,
        });
        reinstate_position(ReinstatePositionRequest) -> ReinstatePositionResponse |r|
            ev(Event::ReinstatePosition { ply: r.ply as usize });
        declare_result(DeclareResultRequest) -> DeclareResultResponse |r| ev(Event::DeclareResult {
            result: validate::declared_result_from_proto("result", r.result).map_err(bad)?,
        });
        record_device(RecordDeviceRequest) -> RecordDeviceResponse |r|
            ev(Event::DeviceFound { color: required_color("color", r.color)? });
        report_setup_error(ReportSetupErrorRequest) -> ReportSetupErrorResponse |r| ev(Event::SetupErrorFound {
            error: validate::setup_error_from_proto(r.kind, r.color, &r.square).map_err(bad)?,
        });
        answer_question(AnswerQuestionRequest) -> AnswerQuestionResponse |r| ev(Event::AnswerQuestion {
            id: r.question_id,
            answer: validate::answer_from_proto("answer", r.answer).map_err(bad)?,
        });
    }

    async fn create_game(&self, request: Request<pb::CreateGameRequest>) -> Reply<pb::CreateGameResponse> {
        self.observe("create_game", async {
            let (metadata, _, r) = request.into_parts();
            self.create_game_impl(&metadata, r).await
        })
        .await
    }

    async fn cancel_game(&self, request: Request<pb::CancelGameRequest>) -> Reply<pb::CancelGameResponse> {
        self.observe("cancel_game", async {
            let (metadata, _, r) = request.into_parts();
            self.cancel_game_impl(&metadata, r).await
        })
        .await
    }

    async fn revoke_player_tokens(
        &self,
        request: Request<pb::RevokePlayerTokensRequest>,
    ) -> Reply<pb::RevokePlayerTokensResponse> {
        self.observe("revoke_player_tokens", async {
            let (metadata, _, r) = request.into_parts();
            self.revoke_player_tokens_impl(&metadata, r).await
        })
        .await
    }

    async fn create_event(&self, request: Request<pb::CreateEventRequest>) -> Reply<pb::CreateEventResponse> {
        self.observe("create_event", async {
            let (metadata, _, r) = request.into_parts();
            self.create_event_impl(&metadata, r).await
        })
        .await
    }

    async fn get_event(&self, request: Request<pb::GetEventRequest>) -> Reply<pb::GetEventResponse> {
        self.observe("get_event", async {
            let (metadata, _, r) = request.into_parts();
            self.get_event_impl(&metadata, r).await
        })
        .await
    }

    async fn list_events(&self, request: Request<pb::ListEventsRequest>) -> Reply<pb::ListEventsResponse> {
        self.observe("list_events", async {
            let (metadata, _, r) = request.into_parts();
            self.list_tournaments_impl(&metadata, r).await
        })
        .await
    }

    async fn add_participants(&self, request: Request<pb::AddParticipantsRequest>) -> Reply<pb::AddParticipantsResponse> {
        self.observe("add_participants", async {
            let (metadata, _, r) = request.into_parts();
            self.add_participants_impl(&metadata, r).await
        })
        .await
    }

    async fn adjust_points(&self, request: Request<pb::AdjustPointsRequest>) -> Reply<pb::AdjustPointsResponse> {
        self.observe("adjust_points", async {
            let (metadata, _, r) = request.into_parts();
            self.adjust_points_impl(&metadata, r).await
        })
        .await
    }

    async fn create_round(&self, request: Request<pb::CreateRoundRequest>) -> Reply<pb::CreateRoundResponse> {
        self.observe("create_round", async {
            let (metadata, _, r) = request.into_parts();
            self.create_round_impl(&metadata, r).await
        })
        .await
    }

    async fn get_round(&self, request: Request<pb::GetRoundRequest>) -> Reply<pb::GetRoundResponse> {
        self.observe("get_round", async {
            let (metadata, _, r) = request.into_parts();
            self.get_round_impl(&metadata, r).await
        })
        .await
    }

    async fn list_rounds(&self, request: Request<pb::ListRoundsRequest>) -> Reply<pb::ListRoundsResponse> {
        self.observe("list_rounds", async {
            let (metadata, _, r) = request.into_parts();
            self.list_rounds_impl(&metadata, r).await
        })
        .await
    }

    async fn start_round(&self, request: Request<pb::StartRoundRequest>) -> Reply<pb::StartRoundResponse> {
        self.observe("start_round", async {
            let (metadata, _, r) = request.into_parts();
            self.start_round_impl(&metadata, r).await
        })
        .await
    }

    async fn get_standings(&self, request: Request<pb::GetStandingsRequest>) -> Reply<pb::GetStandingsResponse> {
        self.observe("get_standings", async {
            let (metadata, _, r) = request.into_parts();
            self.get_standings_impl(&metadata, r).await
        })
        .await
    }

    async fn export_trf(&self, request: Request<pb::ExportTrfRequest>) -> Reply<pb::ExportTrfResponse> {
        self.observe("export_trf", async {
            let (metadata, _, r) = request.into_parts();
            self.export_trf_impl(&metadata, r).await
        })
        .await
    }

    async fn export_round_pgn(&self, request: Request<pb::ExportRoundPgnRequest>) -> Reply<pb::ExportRoundPgnResponse> {
        self.observe("export_round_pgn", async {
            let (metadata, _, r) = request.into_parts();
            self.export_round_pgn_impl(&metadata, r).await
        })
        .await
    }

    type WatchRoundStream = ReceiverStream<Result<pb::WatchRoundResponse, Status>>;

    async fn watch_round(&self, request: Request<pb::WatchRoundRequest>) -> Reply<Self::WatchRoundStream> {
        self.observe("watch_round", async {
            let (metadata, _, r) = request.into_parts();
            self.watch_round_impl(&metadata, r).await
        })
        .await
    }

    async fn acknowledge_alert(
        &self,
        request: Request<pb::AcknowledgeAlertRequest>,
    ) -> Reply<pb::AcknowledgeAlertResponse> {
        self.observe("acknowledge_alert", async {
            let (metadata, _, r) = request.into_parts();
            self.acknowledge_alert_impl(&metadata, r).await
        })
        .await
    }

    async fn set_broadcast(&self, request: Request<pb::SetBroadcastRequest>) -> Reply<pb::SetBroadcastResponse> {
        self.observe("set_broadcast", async {
            let (metadata, _, r) = request.into_parts();
            self.set_broadcast_impl(&metadata, r).await
        })
        .await
    }

    type WatchBroadcastStream = ReceiverStream<Result<pb::WatchBroadcastResponse, Status>>;

    async fn watch_broadcast(
        &self,
        request: Request<pb::WatchBroadcastRequest>,
    ) -> Reply<Self::WatchBroadcastStream> {
        self.observe("watch_broadcast", async {
            let (metadata, _, r) = request.into_parts();
            self.watch_broadcast_impl(&metadata, r).await
        })
        .await
    }

    type ConnectBoardStream = ReceiverStream<Result<pb::ConnectBoardResponse, Status>>;

    async fn connect_board(
        &self,
        request: Request<tonic::Streaming<pb::ConnectBoardRequest>>,
    ) -> Reply<Self::ConnectBoardStream> {
        self.observe("connect_board", async {
            let (metadata, _, inbound) = request.into_parts();
            let (principal, caller) = self.auth.identify(&metadata).await?;
            let cx = crate::board::session::Context {
                hall: &self.hall,
                boards: &self.boards,
                shutdown: &self.shutdown,
            };
            crate::board::session::open(cx, principal, &caller, inbound).await
        })
        .await
    }

    async fn get_game(&self, request: Request<pb::GetGameRequest>) -> Reply<pb::GetGameResponse> {
        self.observe("get_game", async {
            let (metadata, _, r) = request.into_parts();
            let (id, game) = self.read_game(&metadata, &r.name).await?;
            Ok(pb::GetGameResponse { game: Some(self.seated(&id, game).await?) })
        })
        .await
    }

    async fn list_games(&self, request: Request<pb::ListGamesRequest>) -> Reply<pb::ListGamesResponse> {
        self.observe("list_games", async {
            let (metadata, _, r) = request.into_parts();
            self.list_games_impl(&metadata, r).await
        })
        .await
    }

    async fn list_game_events(
        &self,
        request: Request<pb::ListGameEventsRequest>,
    ) -> Reply<pb::ListGameEventsResponse> {
        self.observe("list_game_events", async {
            let (metadata, _, r) = request.into_parts();
            self.list_events_impl(&metadata, r).await
        })
        .await
    }

    type WatchGameStream = ReceiverStream<Result<pb::WatchGameResponse, Status>>;

    async fn watch_game(&self, request: Request<pb::WatchGameRequest>) -> Reply<Self::WatchGameStream> {
        self.observe("watch_game", async {
            let (metadata, _, r) = request.into_parts();
            self.watch_impl(&metadata, r).await
        })
        .await
    }

    type WatchGamesStream = ReceiverStream<Result<pb::WatchGamesResponse, Status>>;

    async fn watch_games(&self, request: Request<pb::WatchGamesRequest>) -> Reply<Self::WatchGamesStream> {
        self.observe("watch_games", async {
            let (metadata, _, r) = request.into_parts();
            self.watch_games_impl(&metadata, r).await
        })
        .await
    }

    async fn export_pgn(&self, request: Request<pb::ExportPgnRequest>) -> Reply<pb::ExportPgnResponse> {
        self.observe("export_pgn", async {
            let (metadata, _, r) = request.into_parts();
            self.export_pgn_impl(&metadata, r).await
        })
        .await
    }
}
