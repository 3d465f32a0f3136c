//! The connection, the calls and their retries.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::Duration;

use arbiter_proto::v1 as pb;
use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use tonic::Status;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use crate::error::chain;
use crate::parse::{color_to_proto, normalize_game};
use crate::watch::{WatchOptions, WatchStream};
use crate::{Color, Error, Outcome};

/// TLS settings for an `https://` server.
#[derive(Clone, Debug, Default)]
pub struct TlsOptions {
    /// PEM certificate(s) of the CA to trust instead of the system's roots
    /// (or the server's own self-signed certificate).
    pub ca_pem: Option<Vec<u8>>,
    /// The name to check the server's certificate against, when it is not
    /// the host of the URL (`localhost` for a test certificate reached by
    /// address).
    pub domain: Option<String>,
}

/// How calls are resent when the service is unavailable or the transport
/// failed ([`Error::is_transient`]). A mutation is resent with the same
/// `request_id`, so the service applies it at most once (AIP-155).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1: no retry).
    pub attempts: u32,
    /// The wait before the first resend; doubled after each.
    pub initial_backoff: Duration,
    /// The longest wait between two attempts.
    pub max_backoff: Duration,
}

impl RetryPolicy {
    /// No retry: one attempt.
    pub const NONE: RetryPolicy =
        RetryPolicy { attempts: 1, initial_backoff: Duration::ZERO, max_backoff: Duration::ZERO };

    /// The wait before attempt `n + 1` after `n` attempts (`n` ≥ 1): the
    /// initial wait doubled `n - 1` times, capped at the longest, plus a
    /// random part of up to as much again (jitter, by backon), so that the
    /// clients a restart cut off do not all come back at the same instant.
    pub fn backoff(&self, attempts_made: u32) -> Duration {
        use backon::BackoffBuilder as _;
        backon::ExponentialBuilder::default()
            .with_min_delay(self.initial_backoff)
            .with_max_delay(self.max_backoff)
            .with_factor(2.0)
            .with_jitter()
            .without_max_times()
            .build()
            .nth(attempts_made.saturating_sub(1) as usize)
            .unwrap_or(self.max_backoff)
    }
}

impl Default for RetryPolicy {
    /// 4 attempts, waiting about 200 ms, 400 ms, 800 ms between them (each
    /// up to twice that with the jitter).
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 4,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(2),
        }
    }
}

/// Adds `authorization: Bearer <token>` to every request.
#[derive(Clone)]
pub struct Bearer(Option<MetadataValue<Ascii>>);

impl Bearer {
    /// The header for `token` (`None`: no header).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a token that cannot be a header value.
    pub fn new(token: Option<&str>) -> Result<Bearer, Error> {
        match token.map(str::trim).filter(|t| !t.is_empty()) {
            None => Ok(Bearer(None)),
            Some(t) => {
                let mut value: MetadataValue<Ascii> = format!("Bearer {t}")
                    .parse()
                    .map_err(|_| Error::invalid("token", "a token is printable ASCII without spaces"))?;
                value.set_sensitive(true);
                Ok(Bearer(Some(value)))
            }
        }
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Bearer(<token>)" } else { "Bearer(none)" })
    }
}

impl Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        if let Some(v) = &self.0 {
            request.metadata_mut().insert("authorization", v.clone());
        }
        Ok(request)
    }
}

/// The generated client with the bearer token.
pub type Inner = ArbiterServiceClient<InterceptedService<Channel, Bearer>>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A request message of one RPC: how to send it and what its answer gives.
/// Implemented for every request message of the API; [`Client::call`] sends
/// any of them.
pub trait Rpc: Clone + fmt::Debug + Send + Sync + 'static {
    /// The response message.
    type Response: Send + 'static;
    /// What the call gives: the response, or its useful part.
    type Output: Send + 'static;
    /// The RPC's name, `MakeMove`.
    const NAME: &'static str;
    /// Sends the request on `client`.
    fn send(client: Inner, request: tonic::Request<Self>) -> BoxFuture<Result<Self::Response, Status>>;
    /// Takes the useful part of the response.
    fn finish(response: Self::Response) -> Self::Output;
    /// The idempotency key of a mutation; `None` for a read.
    fn request_id_mut(&mut self) -> Option<&mut String> {
        None
    }
    /// The idempotency key of a mutation; `None` for a read.
    fn request_id(&self) -> Option<&str> {
        None
    }
    /// The `expected_seq` of a mutation on a game; `None` when the request
    /// has none.
    fn expected_seq_mut(&mut self) -> Option<&mut Option<i64>> {
        None
    }
}

macro_rules! read_rpc {
    ($req:ident, $resp:ident, $method:ident, $name:literal, $out:ty, |$r:ident| $finish:expr) => {
        impl Rpc for pb::$req {
            type Response = pb::$resp;
            type Output = $out;
            const NAME: &'static str = $name;
            fn send(
                mut client: Inner,
                request: tonic::Request<Self>,
            ) -> BoxFuture<Result<Self::Response, Status>> {
                Box::pin(async move { client.$method(request).await.map(tonic::Response::into_inner) })
            }
            fn finish($r: Self::Response) -> Self::Output {
                $finish
            }
        }
    };
}

read_rpc!(GetGameRequest, GetGameResponse, get_game, "GetGame", pb::Game, |r| r.game.unwrap_or_default());
read_rpc!(ListGamesRequest, ListGamesResponse, list_games, "ListGames", pb::ListGamesResponse, |r| r);
read_rpc!(
    ListGameEventsRequest,
    ListGameEventsResponse,
    list_game_events,
    "ListGameEvents",
    pb::ListGameEventsResponse,
    |r| r
);
read_rpc!(ExportPgnRequest, ExportPgnResponse, export_pgn, "ExportPgn", String, |r| r.pgn);

/// A mutation outside a game's log (no `expected_seq`): its request id is
/// its idempotency key.
macro_rules! write_rpc {
    ($req:ident, $resp:ident, $method:ident, $name:literal, $out:ty, |$r:ident| $finish:expr) => {
        impl Rpc for pb::$req {
            type Response = pb::$resp;
            type Output = $out;
            const NAME: &'static str = $name;
            fn send(
                mut client: Inner,
                request: tonic::Request<Self>,
            ) -> BoxFuture<Result<Self::Response, Status>> {
                Box::pin(async move { client.$method(request).await.map(tonic::Response::into_inner) })
            }
            fn finish($r: Self::Response) -> Self::Output {
                $finish
            }
            fn request_id_mut(&mut self) -> Option<&mut String> {
                Some(&mut self.request_id)
            }
            fn request_id(&self) -> Option<&str> {
                Some(&self.request_id)
            }
        }
    };
}

write_rpc!(CreateGameRequest, CreateGameResponse, create_game, "CreateGame", pb::CreateGameResponse, |r| r);
write_rpc!(
    RevokePlayerTokensRequest,
    RevokePlayerTokensResponse,
    revoke_player_tokens,
    "RevokePlayerTokens",
    pb::RevokePlayerTokensResponse,
    |r| r
);
write_rpc!(CreateEventRequest, CreateEventResponse, create_event, "CreateEvent", pb::Event, |r| r
    .event
    .unwrap_or_default());
write_rpc!(
    AddParticipantsRequest,
    AddParticipantsResponse,
    add_participants,
    "AddParticipants",
    pb::Event,
    |r| r.event.unwrap_or_default()
);
write_rpc!(AdjustPointsRequest, AdjustPointsResponse, adjust_points, "AdjustPoints", pb::Event, |r| r
    .event
    .unwrap_or_default());
write_rpc!(SetBroadcastRequest, SetBroadcastResponse, set_broadcast, "SetBroadcast", pb::Event, |r| r
    .event
    .unwrap_or_default());
write_rpc!(
    CreateRoundRequest,
    CreateRoundResponse,
    create_round,
    "CreateRound",
    pb::CreateRoundResponse,
    |r| r
);
write_rpc!(StartRoundRequest, StartRoundResponse, start_round, "StartRound", pb::Round, |r| r
    .round
    .unwrap_or_default());
read_rpc!(GetEventRequest, GetEventResponse, get_event, "GetEvent", pb::Event, |r| r
    .event
    .unwrap_or_default());
read_rpc!(ListEventsRequest, ListEventsResponse, list_events, "ListEvents", pb::ListEventsResponse, |r| r);
read_rpc!(GetRoundRequest, GetRoundResponse, get_round, "GetRound", pb::Round, |r| r
    .round
    .unwrap_or_default());
read_rpc!(ListRoundsRequest, ListRoundsResponse, list_rounds, "ListRounds", Vec<pb::Round>, |r| r.rounds);
read_rpc!(
    GetStandingsRequest,
    GetStandingsResponse,
    get_standings,
    "GetStandings",
    pb::GetStandingsResponse,
    |r| r
);
read_rpc!(ExportTrfRequest, ExportTrfResponse, export_trf, "ExportTrf", String, |r| r.trf);
// Acknowledging is idempotent by itself (the first acknowledgement stands):
// it needs no request id.
read_rpc!(
    AcknowledgeAlertRequest,
    AcknowledgeAlertResponse,
    acknowledge_alert,
    "AcknowledgeAlert",
    pb::Alert,
    |r| r.alert.unwrap_or_default()
);
read_rpc!(ExportRoundPgnRequest, ExportRoundPgnResponse, export_round_pgn, "ExportRoundPgn", String, |r| r
    .pgn);

macro_rules! act_rpcs {
    // What became of the move, for the responses that say it.
    (@outcome $r:ident) => { pb::MoveOutcome::Unspecified };
    (@outcome $r:ident, $field:ident) => { $r.$field() };
    ($(($req:ident, $resp:ident, $method:ident, $name:literal $(, $outcome:ident)?)),* $(,)?) => {$(
        impl Rpc for pb::$req {
            type Response = pb::$resp;
            type Output = Outcome;
            const NAME: &'static str = $name;
            fn send(
                mut client: Inner,
                request: tonic::Request<Self>,
            ) -> BoxFuture<Result<Self::Response, Status>> {
                Box::pin(async move { client.$method(request).await.map(tonic::Response::into_inner) })
            }
            fn finish(r: Self::Response) -> Outcome {
                let move_outcome = act_rpcs!(@outcome r $(, $outcome)?);
                Outcome { event: r.event.unwrap_or_default(), game: r.game.unwrap_or_default(), move_outcome }
            }
            fn request_id_mut(&mut self) -> Option<&mut String> {
                Some(&mut self.request_id)
            }
            fn request_id(&self) -> Option<&str> {
                Some(&self.request_id)
            }
            fn expected_seq_mut(&mut self) -> Option<&mut Option<i64>> {
                Some(&mut self.expected_seq)
            }
        }
    )*};
}

act_rpcs!(
    (MakeMoveRequest, MakeMoveResponse, make_move, "MakeMove", outcome),
    (TouchPieceRequest, TouchPieceResponse, touch_piece, "TouchPiece"),
    (AnnounceAdjustRequest, AnnounceAdjustResponse, announce_adjust, "AnnounceAdjust"),
    (PlacePromotionPieceRequest, PlacePromotionPieceResponse, place_promotion_piece, "PlacePromotionPiece"),
    (ReleaseCastlingKingRequest, ReleaseCastlingKingResponse, release_castling_king, "ReleaseCastlingKing"),
    (ReportTwoHandsRequest, ReportTwoHandsResponse, report_two_hands, "ReportTwoHands"),
    (PressClockRequest, PressClockResponse, press_clock, "PressClock", outcome),
    (OfferDrawRequest, OfferDrawResponse, offer_draw, "OfferDraw"),
    (AcceptDrawRequest, AcceptDrawResponse, accept_draw, "AcceptDraw"),
    (DeclineDrawRequest, DeclineDrawResponse, decline_draw, "DeclineDraw"),
    (ClaimDrawRequest, ClaimDrawResponse, claim_draw, "ClaimDraw"),
    (ClaimIllegalMoveRequest, ClaimIllegalMoveResponse, claim_illegal_move, "ClaimIllegalMove"),
    (ResignGameRequest, ResignGameResponse, resign_game, "ResignGame"),
    (RecordArrivalRequest, RecordArrivalResponse, record_arrival, "RecordArrival"),
    (RecordDisconnectRequest, RecordDisconnectResponse, record_disconnect, "RecordDisconnect"),
    (RecordReconnectRequest, RecordReconnectResponse, record_reconnect, "RecordReconnect"),
    (RequestIncrementRequest, RequestIncrementResponse, request_increment, "RequestIncrement"),
    (
        ClaimNoWinningAttemptRequest,
        ClaimNoWinningAttemptResponse,
        claim_no_winning_attempt,
        "ClaimNoWinningAttempt"
    ),
    (StartGameRequest, StartGameResponse, start_game, "StartGame"),
    (CancelGameRequest, CancelGameResponse, cancel_game, "CancelGame"),
    (PauseClocksRequest, PauseClocksResponse, pause_clocks, "PauseClocks"),
    (ResumeClocksRequest, ResumeClocksResponse, resume_clocks, "ResumeClocks"),
    (AdjustClockRequest, AdjustClockResponse, adjust_clock, "AdjustClock"),
    (SetClockRequest, SetClockResponse, set_clock, "SetClock"),
    (SetMoveCounterRequest, SetMoveCounterResponse, set_move_counter, "SetMoveCounter"),
    (InstallTimeControlRequest, InstallTimeControlResponse, install_time_control, "InstallTimeControl"),
    (IssuePenaltyRequest, IssuePenaltyResponse, issue_penalty, "IssuePenalty"),
    (ReinstatePositionRequest, ReinstatePositionResponse, reinstate_position, "ReinstatePosition"),
    (DeclareResultRequest, DeclareResultResponse, declare_result, "DeclareResult"),
    (RecordDeviceRequest, RecordDeviceResponse, record_device, "RecordDevice"),
    (AnswerQuestionRequest, AnswerQuestionResponse, answer_question, "AnswerQuestion"),
    (ReportSetupErrorRequest, ReportSetupErrorResponse, report_setup_error, "ReportSetupError"),
);

/// A new idempotency key: a random UUID (v4).
pub fn new_request_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// One call, ready to send: the request (with its `request_id` when it is a
/// mutation) and the client. `.await` it, or [`Call::send`] it as often as
/// needed: every send of the same `Call` carries the same `request_id`, so
/// the service applies a mutation at most once and answers every resend
/// with the original answer.
///
/// ```no_run
/// # async fn f(client: arbiter_client::Client) -> Result<(), arbiter_client::Error> {
/// use arbiter_client::Color;
/// let call = client.make_move("abc", Color::White, "e4");
/// let outcome = call.send().await?;
/// let again = call.send().await?; // the same answer; the move is made once
/// assert_eq!(outcome.event.seq, again.event.seq);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
#[must_use = "a call does nothing until it is awaited or sent"]
pub struct Call<R: Rpc> {
    client: Client,
    request: R,
}

impl<R: Rpc> Call<R> {
    fn new(client: &Client, mut request: R) -> Call<R> {
        if let Some(id) = request.request_id_mut()
            && id.is_empty()
        {
            *id = new_request_id();
        }
        Call { client: client.clone(), request }
    }

    /// The request as it will be sent.
    pub fn request(&self) -> &R {
        &self.request
    }

    /// Changes the request (any field the helper did not set).
    pub fn with(mut self, change: impl FnOnce(&mut R)) -> Call<R> {
        change(&mut self.request);
        self
    }

    /// Uses this idempotency key instead of the generated one (no effect on
    /// a read).
    pub fn request_id(mut self, id: impl Into<String>) -> Call<R> {
        if let Some(slot) = self.request.request_id_mut() {
            *slot = id.into();
        }
        self
    }

    /// Sends `expected_seq` (AIP-154): the call fails with ABORTED unless the
    /// game's `last_seq` is `seq` (no effect on a request without it).
    pub fn expected_seq(mut self, seq: i64) -> Call<R> {
        if let Some(slot) = self.request.expected_seq_mut() {
            *slot = Some(seq);
        }
        self
    }

    /// Uses this retry policy for this call.
    pub fn retry(mut self, policy: RetryPolicy) -> Call<R> {
        self.client.retry = policy;
        self
    }

    /// The idempotency key this call carries (empty for a read).
    pub fn id(&self) -> &str {
        self.request.request_id().unwrap_or_default()
    }

    /// Sends the request, resending it (same request, same `request_id`)
    /// while the error is transient and the retry policy allows.
    ///
    /// # Errors
    /// The last error.
    pub async fn send(&self) -> Result<R::Output, Error> {
        let policy = self.client.retry;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let mut request = tonic::Request::new(self.request.clone());
            if let Some(timeout) = self.client.timeout {
                request.set_timeout(timeout);
            }
            match R::send(self.client.inner.clone(), request).await {
                Ok(response) => return Ok(R::finish(response)),
                Err(status) => {
                    let error = Error::from(status);
                    if attempts >= policy.attempts.max(1) || !error.is_transient() {
                        return Err(error);
                    }
                    tokio::time::sleep(policy.backoff(attempts)).await;
                }
            }
        }
    }
}

impl<R: Rpc> IntoFuture for Call<R> {
    type Output = Result<R::Output, Error>;
    type IntoFuture = BoxFuture<Result<R::Output, Error>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { self.send().await })
    }
}

/// A connection to the Arbiter service with one token. Cheap to clone:
/// clones share the connection.
#[derive(Clone, Debug)]
pub struct Client {
    inner: Inner,
    channel: Channel,
    url: String,
    retry: RetryPolicy,
    timeout: Option<Duration>,
}

/// `http://` added to an address without a scheme.
fn with_scheme(url: &str) -> String {
    let url = url.trim();
    if url.contains("://") { url.to_string() } else { format!("http://{url}") }
}

fn endpoint(url: &str, tls: Option<TlsOptions>) -> Result<Endpoint, Error> {
    let mut endpoint = Channel::from_shared(url.to_string())
        .map_err(|e| Error::invalid("url", format!("{url:?} is not a server address: {e}")))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true);
    let https = url.starts_with("https://");
    if !https && !url.starts_with("http://") {
        return Err(Error::invalid("url", format!("{url:?}: the scheme is http:// or https://")));
    }
    match (https, tls) {
        (true, tls) => {
            let tls = tls.unwrap_or_default();
            let mut config = ClientTlsConfig::new();
            config = match tls.ca_pem {
                Some(pem) => config.ca_certificate(Certificate::from_pem(pem)),
                None => config.with_native_roots(),
            };
            if let Some(domain) = tls.domain {
                config = config.domain_name(domain);
            }
            endpoint = endpoint.tls_config(config).map_err(|e| Error::invalid("tls", chain(&e)))?;
        }
        (false, Some(_)) => {
            return Err(Error::invalid("url", format!("{url:?}: TLS options need an https:// address")));
        }
        (false, None) => {}
    }
    Ok(endpoint)
}

impl Client {
    /// Connects to `url` (`http://host:port`, `https://host:port`; a bare
    /// `host:port` is taken as `http://`). `https://` uses TLS (rustls):
    /// the system's root certificates unless `tls` gives a CA.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a bad URL, token or TLS setting;
    /// [`Error::Connect`] when the server cannot be reached.
    pub async fn connect(
        url: impl AsRef<str>,
        token: Option<String>,
        tls: Option<TlsOptions>,
    ) -> Result<Client, Error> {
        let url = with_scheme(url.as_ref());
        let endpoint = endpoint(&url, tls)?;
        let bearer = Bearer::new(token.as_deref())?;
        let channel =
            endpoint.connect().await.map_err(|e| Error::Connect { url: url.clone(), message: chain(&e) })?;
        Ok(Client::with_channel(channel, bearer, url))
    }

    /// As [`Client::connect`], but connects on the first call.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a bad URL, token or TLS setting.
    pub fn connect_lazy(
        url: impl AsRef<str>,
        token: Option<String>,
        tls: Option<TlsOptions>,
    ) -> Result<Client, Error> {
        let url = with_scheme(url.as_ref());
        let endpoint = endpoint(&url, tls)?;
        let bearer = Bearer::new(token.as_deref())?;
        Ok(Client::with_channel(endpoint.connect_lazy(), bearer, url))
    }

    /// A client on a channel set up by the caller.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a token that cannot be a header value.
    pub fn from_channel(channel: Channel, token: Option<&str>) -> Result<Client, Error> {
        Ok(Client::with_channel(channel, Bearer::new(token)?, String::new()))
    }

    fn with_channel(channel: Channel, bearer: Bearer, url: String) -> Client {
        Client {
            inner: ArbiterServiceClient::with_interceptor(channel.clone(), bearer),
            channel,
            url,
            retry: RetryPolicy::default(),
            timeout: Some(Duration::from_secs(30)),
        }
    }

    /// The gRPC health of the service (`grpc.health.v1`).
    ///
    /// # Errors
    /// [`Error`] if the server cannot be reached.
    pub async fn health(&self) -> Result<Health, Error> {
        use tonic_health::pb::health_check_response::ServingStatus;
        let mut health = tonic_health::pb::health_client::HealthClient::new(self.channel.clone());
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest { service: String::new() })
            .await
            .map_err(Error::from)?
            .into_inner();
        Ok(match ServingStatus::try_from(reply.status) {
            Ok(ServingStatus::Serving) => Health::Serving,
            Ok(ServingStatus::NotServing) => Health::NotServing,
            Ok(ServingStatus::ServiceUnknown | ServingStatus::Unknown) | Err(_) => Health::Unknown,
        })
    }

    /// The same connection with another token (a player's, from
    /// CreateGame).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a token that cannot be a header value.
    pub fn with_token(&self, token: Option<&str>) -> Result<Client, Error> {
        let mut client = self.clone();
        client.inner = ArbiterServiceClient::with_interceptor(self.channel.clone(), Bearer::new(token)?);
        Ok(client)
    }

    /// The same client with another retry policy.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Client {
        self.retry = policy;
        self
    }

    /// The same client with a deadline for each unary call (`None`: no
    /// deadline; the default is 30 seconds).
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Client {
        self.timeout = timeout;
        self
    }

    /// The deadline of each unary call (`None`: none).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The retry policy.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// The server address (empty for [`Client::from_channel`]).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The generated client, for what this one does not cover.
    pub fn raw(&self) -> Inner {
        self.inner.clone()
    }

    /// Any request of the API, as a [`Call`] (a mutation gets a fresh
    /// `request_id` when it has none).
    pub fn call<R: Rpc>(&self, request: R) -> Call<R> {
        Call::new(self, request)
    }

    // -- Reads ------------------------------------------------------------

    /// GetGame: the game with its clocks read now.
    pub fn get_game(&self, game: impl AsRef<str>) -> Call<pb::GetGameRequest> {
        self.call(pb::GetGameRequest { name: normalize_game(game.as_ref()) })
    }

    /// ListGames: one page.
    pub fn list_games(&self, request: pb::ListGamesRequest) -> Call<pb::ListGamesRequest> {
        self.call(request)
    }

    /// Every game that matches the filters of `request`, page after page.
    ///
    /// # Errors
    /// The first error.
    pub async fn list_all_games(&self, mut request: pb::ListGamesRequest) -> Result<Vec<pb::Game>, Error> {
        let mut games = Vec::new();
        loop {
            let page = self.list_games(request.clone()).await?;
            games.extend(page.games);
            if page.next_page_token.is_empty() {
                return Ok(games);
            }
            request.page_token = page.next_page_token;
        }
    }

    /// ListGameEvents: one page of the audit trail (`page_size` 0: the
    /// service's default).
    pub fn list_game_events(
        &self,
        game: impl AsRef<str>,
        page_size: i32,
        page_token: impl Into<String>,
    ) -> Call<pb::ListGameEventsRequest> {
        self.call(pb::ListGameEventsRequest {
            parent: normalize_game(game.as_ref()),
            page_size,
            page_token: page_token.into(),
        })
    }

    /// Every recorded event of a game, in order, page after page.
    ///
    /// # Errors
    /// The first error.
    pub async fn all_events(&self, game: impl AsRef<str>) -> Result<Vec<pb::GameEvent>, Error> {
        let mut events = Vec::new();
        let mut token = String::new();
        loop {
            let page = self.list_game_events(game.as_ref(), 1000, token).await?;
            events.extend(page.events);
            if page.next_page_token.is_empty() {
                return Ok(events);
            }
            token = page.next_page_token;
        }
    }

    /// ExportPgn: the game as PGN.
    /// `GetEvent`: an event by id or name (`events/x`).
    pub fn get_event(&self, event: impl AsRef<str>) -> Call<pb::GetEventRequest> {
        self.call(pb::GetEventRequest { name: crate::parse::event_name(event.as_ref()) })
    }

    /// `CreateEvent`.
    pub fn create_event(&self, request: pb::CreateEventRequest) -> Call<pb::CreateEventRequest> {
        self.call(request)
    }

    /// `CreateRound`: a round of `event` from a pairing list (round 0: the next).
    pub fn create_round(
        &self,
        event: impl AsRef<str>,
        round: i32,
        pairings: impl Into<String>,
        start: bool,
    ) -> Call<pb::CreateRoundRequest> {
        self.call(pb::CreateRoundRequest {
            parent: crate::parse::event_name(event.as_ref()),
            round,
            pairings: pairings.into(),
            start,
            ..pb::CreateRoundRequest::default()
        })
    }

    /// `GetRound`: a round of an event.
    pub fn get_round(&self, event: impl AsRef<str>, round: i32) -> Call<pb::GetRoundRequest> {
        self.call(pb::GetRoundRequest { name: crate::parse::round_name(event.as_ref(), round) })
    }

    /// `StartRound`: every clock of a round at once.
    pub fn start_round(&self, event: impl AsRef<str>, round: i32) -> Call<pb::StartRoundRequest> {
        self.call(pb::StartRoundRequest {
            name: crate::parse::round_name(event.as_ref(), round),
            request_id: String::new(),
        })
    }

    /// `GetStandings` after `round` (0: the last).
    pub fn get_standings(&self, event: impl AsRef<str>, round: i32) -> Call<pb::GetStandingsRequest> {
        self.call(pb::GetStandingsRequest { event: crate::parse::event_name(event.as_ref()), round })
    }

    /// `ExportTrf` after `round` (0: every round so far).
    pub fn export_trf(&self, event: impl AsRef<str>, round: i32) -> Call<pb::ExportTrfRequest> {
        self.call(pb::ExportTrfRequest { event: crate::parse::event_name(event.as_ref()), round })
    }

    /// `ExportRoundPgn`.
    pub fn export_round_pgn(&self, event: impl AsRef<str>, round: i32) -> Call<pb::ExportRoundPgnRequest> {
        self.call(pb::ExportRoundPgnRequest { name: crate::parse::round_name(event.as_ref(), round) })
    }

    pub fn export_pgn(&self, game: impl AsRef<str>) -> Call<pb::ExportPgnRequest> {
        self.call(pb::ExportPgnRequest { name: normalize_game(game.as_ref()) })
    }

    /// WatchGame, resumed across broken connections: every event after
    /// `after_seq` exactly once, in order, then live, until the game is
    /// over. See [`WatchStream`].
    pub fn watch(&self, game: impl AsRef<str>, after_seq: i64) -> WatchStream {
        self.watch_with(game, after_seq, WatchOptions::default())
    }

    /// [`Client::watch`] with explicit reconnection settings.
    pub fn watch_with(&self, game: impl AsRef<str>, after_seq: i64, options: WatchOptions) -> WatchStream {
        WatchStream::start(self.clone(), normalize_game(game.as_ref()), after_seq, options)
    }

    // -- Creating and starting -------------------------------------------

    /// CreateGame (role `service` or `arbiter`).
    pub fn create_game(&self, request: pb::CreateGameRequest) -> Call<pb::CreateGameRequest> {
        self.call(request)
    }

    /// StartGame: White's clock starts.
    pub fn start_game(&self, game: impl AsRef<str>) -> Call<pb::StartGameRequest> {
        self.call(pb::StartGameRequest { name: normalize_game(game.as_ref()), ..Default::default() })
    }

    /// CancelGame: withdraws a game that has not started (status
    /// CANCELLED, no result). Allowed to the service token that created it
    /// and to arbiters; a started game is refused (FAILED_PRECONDITION).
    pub fn cancel_game(&self, game: impl AsRef<str>) -> Call<pb::CancelGameRequest> {
        self.call(pb::CancelGameRequest { name: normalize_game(game.as_ref()), ..Default::default() })
    }

    /// RevokePlayerTokens: the tokens of `color` (both colours for `None`)
    /// stop working and new ones are returned (the other colour's field is
    /// empty). Allowed to the service token that created the game and to
    /// arbiters; a resend of the same call returns the same new tokens.
    pub fn revoke_player_tokens(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::RevokePlayerTokensRequest> {
        self.call(pb::RevokePlayerTokensRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    // -- Players' acts ---------------------------------------------------

    /// MakeMove: `mv` as made or written, legal or not: SAN (`e4`, `Nf3`,
    /// `O-O`), long algebraic (`Ng1-f3`, `e7-e8`) or UCI (`e2e4`).
    /// `color` may be `None` with a player token.
    pub fn make_move(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
        mv: impl Into<String>,
    ) -> Call<pb::MakeMoveRequest> {
        self.call(pb::MakeMoveRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            r#move: mv.into(),
            ..Default::default()
        })
    }

    /// TouchPiece: the piece on `square` was touched, in the manner `kind`.
    pub fn touch_piece(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
        square: impl Into<String>,
        kind: pb::TouchKind,
    ) -> Call<pb::TouchPieceRequest> {
        self.call(pb::TouchPieceRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            square: square.into(),
            kind: kind as i32,
            ..Default::default()
        })
    }

    /// ClaimIllegalMove (games entered after the fact, Law A.5.2): the
    /// opponent's last completed move was illegal.
    pub fn claim_illegal_move(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::ClaimIllegalMoveRequest> {
        self.call(pb::ClaimIllegalMoveRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// ReportSetupError (arbiter, Law 7.2, 7.3, A.5.1.2): `color` for a
    /// misplaced king, `square` (the rook's start square) for a misplaced
    /// rook.
    pub fn report_setup_error(
        &self,
        game: impl AsRef<str>,
        kind: pb::SetupErrorKind,
        color: Option<Color>,
        square: Option<&str>,
    ) -> Call<pb::ReportSetupErrorRequest> {
        self.call(pb::ReportSetupErrorRequest {
            name: normalize_game(game.as_ref()),
            kind: kind as i32,
            color: color_to_proto(color) as i32,
            square: square.unwrap_or_default().to_owned(),
            ..Default::default()
        })
    }

    /// AnnounceAdjust: "I adjust" (Law 4.2.1).
    pub fn announce_adjust(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::AnnounceAdjustRequest> {
        self.call(pb::AnnounceAdjustRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// PlacePromotionPiece: the promotion piece touched its square.
    pub fn place_promotion_piece(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
        piece: pb::PieceRole,
    ) -> Call<pb::PlacePromotionPieceRequest> {
        self.call(pb::PlacePromotionPieceRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            piece: piece as i32,
            ..Default::default()
        })
    }

    /// ReleaseCastlingKing: the king was released on `square` before the rook
    /// moved.
    pub fn release_castling_king(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
        square: impl Into<String>,
    ) -> Call<pb::ReleaseCastlingKingRequest> {
        self.call(pb::ReleaseCastlingKingRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            square: square.into(),
            ..Default::default()
        })
    }

    /// ReportTwoHands: the move just made was made with two hands.
    pub fn report_two_hands(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::ReportTwoHandsRequest> {
        self.call(pb::ReportTwoHandsRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// PressClock: completes the move.
    pub fn press_clock(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::PressClockRequest> {
        self.call(pb::PressClockRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// OfferDraw.
    pub fn offer_draw(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::OfferDrawRequest> {
        self.call(pb::OfferDrawRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// AcceptDraw.
    pub fn accept_draw(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::AcceptDrawRequest> {
        self.call(pb::AcceptDrawRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// DeclineDraw.
    pub fn decline_draw(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::DeclineDrawRequest> {
        self.call(pb::DeclineDrawRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// ClaimDraw under 9.2 or 9.3, with the intended move written first or
    /// without.
    pub fn claim_draw(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
        kind: pb::ClaimKind,
        intended_move: Option<&str>,
    ) -> Call<pb::ClaimDrawRequest> {
        self.call(pb::ClaimDrawRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            kind: kind as i32,
            intended_move: intended_move.unwrap_or_default().to_string(),
            ..Default::default()
        })
    }

    /// ResignGame.
    pub fn resign(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::ResignGameRequest> {
        self.call(pb::ResignGameRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// RecordArrival (Law 6.7).
    pub fn record_arrival(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::RecordArrivalRequest> {
        self.call(pb::RecordArrivalRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// RecordDisconnect (online, OCR 11).
    pub fn record_disconnect(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::RecordDisconnectRequest> {
        self.call(pb::RecordDisconnectRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// RecordReconnect (online, OCR 11.4.1).
    pub fn record_reconnect(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::RecordReconnectRequest> {
        self.call(pb::RecordReconnectRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// RequestIncrement (Guidelines III.4).
    pub fn request_increment(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::RequestIncrementRequest> {
        self.call(pb::RequestIncrementRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    /// ClaimNoWinningAttempt (Guidelines III.5).
    pub fn claim_no_winning_attempt(
        &self,
        game: impl AsRef<str>,
        color: impl Into<Option<Color>>,
    ) -> Call<pb::ClaimNoWinningAttemptRequest> {
        self.call(pb::ClaimNoWinningAttemptRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(color.into()) as i32,
            ..Default::default()
        })
    }

    // -- Arbiter's actions -----------------------------------------------

    /// PauseClocks (Law 6.11).
    pub fn pause_clocks(&self, game: impl AsRef<str>) -> Call<pb::PauseClocksRequest> {
        self.call(pb::PauseClocksRequest { name: normalize_game(game.as_ref()), ..Default::default() })
    }

    /// ResumeClocks.
    pub fn resume_clocks(&self, game: impl AsRef<str>) -> Call<pb::ResumeClocksRequest> {
        self.call(pb::ResumeClocksRequest { name: normalize_game(game.as_ref()), ..Default::default() })
    }

    /// AdjustClock: adds `delta_ms` (negative: removes) to `color`'s clock.
    pub fn adjust_clock(
        &self,
        game: impl AsRef<str>,
        color: Color,
        delta_ms: i64,
    ) -> Call<pb::AdjustClockRequest> {
        self.call(pb::AdjustClockRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(Some(color)) as i32,
            delta_ms,
            ..Default::default()
        })
    }

    /// SetClock: `color`'s remaining time becomes `remaining_ms`.
    pub fn set_clock(
        &self,
        game: impl AsRef<str>,
        color: Color,
        remaining_ms: i64,
    ) -> Call<pb::SetClockRequest> {
        self.call(pb::SetClockRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(Some(color)) as i32,
            remaining_ms,
            ..Default::default()
        })
    }

    /// SetMoveCounter (Law 6.10.2): the clock counts `moves_completed`
    /// completed moves for `color`.
    pub fn set_move_counter(
        &self,
        game: impl AsRef<str>,
        color: Color,
        moves_completed: u32,
    ) -> Call<pb::SetMoveCounterRequest> {
        self.call(pb::SetMoveCounterRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(Some(color)) as i32,
            moves_completed,
            ..Default::default()
        })
    }

    /// InstallTimeControl (Law 6.10.2): the clock gets the time control
    /// written in the PGN form (`40/5400+30:1800+30`).
    pub fn install_time_control(
        &self,
        game: impl AsRef<str>,
        pgn_time_control: impl Into<String>,
    ) -> Call<pb::InstallTimeControlRequest> {
        self.call(pb::InstallTimeControlRequest {
            name: normalize_game(game.as_ref()),
            pgn_time_control: pgn_time_control.into(),
            ..Default::default()
        })
    }

    /// IssuePenalty (Law 12.9) against `color`; `amount_ms` for the time
    /// penalties.
    pub fn issue_penalty(
        &self,
        game: impl AsRef<str>,
        color: Color,
        kind: pb::PenaltyKind,
        amount_ms: i64,
    ) -> Call<pb::IssuePenaltyRequest> {
        self.call(pb::IssuePenaltyRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(Some(color)) as i32,
            kind: kind as i32,
            amount_ms,
            ..Default::default()
        })
    }

    /// ReinstatePosition: the position before `ply` (0: the start).
    pub fn reinstate_position(&self, game: impl AsRef<str>, ply: u32) -> Call<pb::ReinstatePositionRequest> {
        self.call(pb::ReinstatePositionRequest {
            name: normalize_game(game.as_ref()),
            ply,
            ..Default::default()
        })
    }

    /// DeclareResult.
    pub fn declare_result(
        &self,
        game: impl AsRef<str>,
        result: pb::DeclaredResult,
    ) -> Call<pb::DeclareResultRequest> {
        self.call(pb::DeclareResultRequest {
            name: normalize_game(game.as_ref()),
            result: result as i32,
            ..Default::default()
        })
    }

    /// RecordDevice (Law 11.3.2) against `color`.
    pub fn record_device(&self, game: impl AsRef<str>, color: Color) -> Call<pb::RecordDeviceRequest> {
        self.call(pb::RecordDeviceRequest {
            name: normalize_game(game.as_ref()),
            color: color_to_proto(Some(color)) as i32,
            ..Default::default()
        })
    }

    /// AnswerQuestion (DEC-12).
    pub fn answer_question(
        &self,
        game: impl AsRef<str>,
        question_id: u32,
        answer: pb::Answer,
    ) -> Call<pb::AnswerQuestionRequest> {
        self.call(pb::AnswerQuestionRequest {
            name: normalize_game(game.as_ref()),
            question_id,
            answer: answer as i32,
            ..Default::default()
        })
    }
}

/// What the service's health check says (`grpc.health.v1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Health {
    /// Ready to serve.
    Serving,
    /// Up, but not ready (storage unreachable, shutting down).
    NotServing,
    /// Any other answer.
    Unknown,
}

impl Health {
    /// The status as the health protocol names it (`SERVING`...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Health::Serving => "SERVING",
            Health::NotServing => "NOT_SERVING",
            Health::Unknown => "UNKNOWN",
        }
    }
}

impl std::fmt::Display for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter() {
        let policy = RetryPolicy {
            attempts: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
        };
        for n in 1..10u32 {
            let base = (Duration::from_millis(100) * 2u32.pow(n - 1)).min(Duration::from_secs(1));
            let wait = policy.backoff(n);
            assert!(wait >= base && wait <= base * 2, "attempt {n}: {wait:?} outside {base:?}..2×");
        }
        // Jitter: twenty clients do not all wait the same.
        let waits: std::collections::HashSet<Duration> = (0..20).map(|_| policy.backoff(3)).collect();
        assert!(waits.len() > 1, "{waits:?}");
        assert_eq!(RetryPolicy::NONE.backoff(1), Duration::ZERO);
    }
}
