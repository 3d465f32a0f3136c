//! Durable storage: an append-only event log per game, the games' index and
//! the role tokens.
//!
//! [`EventStore`] is the contract; [`sqlite::SqliteStore`] is the embedded
//! default and [`postgres::PostgresStore`] a second implementation of the
//! same contract for several server replicas sharing one database (one
//! conformance suite runs against both). The server only ever talks to
//! [`Storage`], which dispatches to the backend chosen by the URL.
//!
//! Invariants every backend keeps:
//! - events of a game have sequence numbers 1, 2, 3... without gaps; the
//!   primary key `(game_id, seq)` decides between concurrent writers;
//! - a request id appears at most once per game and request scope (the
//!   caller and the method, [`RequestOrigin::scope`]), and once per scope
//!   among game creations: a retried request finds the original answer;
//! - an append is acknowledged only once it is durably committed;
//! - an append is all or nothing, and a failed append leaves nothing behind;
//! - every committed append is announced to the subscribers (see
//!   [`EventStore::subscribe`]) after its commit, once.

pub mod postgres;
pub mod sqlite;
pub mod tournament;

use std::future::Future;
use std::time::Duration;

use tokio::sync::broadcast;

/// The game id of the notification that means "notifications may have been
/// missed" (see [`EventStore::subscribe`]); it comes with seq 0. Game ids are
/// made by the server and never take this value.
pub const RESYNC: &str = "*";

/// Notifications a subscriber may fall behind by before it starts missing
/// some (it is then told so with [`broadcast::error::RecvError::Lagged`]).
/// At 5,000 appends per second this is three seconds of traffic, so only a
/// subscriber that is stuck, rather than busy, falls that far behind.
pub const SUBSCRIPTION_CAPACITY: usize = 16_384;

/// Where a game stands, as the index keeps it (kept by the appends, so that
/// lists filter on it without reading the log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// Created, not started.
    Pending,
    /// Started and not over.
    InProgress,
    /// Over: the result is known.
    Finished,
    /// Withdrawn before it started by its creator or an arbiter: no result.
    Cancelled,
    /// Withdrawn because nobody started it in time: no result.
    Expired,
}

impl GameStatus {
    /// The text stored in the `status` column.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Pending => "PENDING",
            GameStatus::InProgress => "IN_PROGRESS",
            GameStatus::Finished => "FINISHED",
            GameStatus::Cancelled => "CANCELLED",
            GameStatus::Expired => "EXPIRED",
        }
    }

    /// Pending or in progress: the game may still change. Counted against
    /// its creator's cap on unfinished games.
    #[must_use]
    pub const fn is_open(self) -> bool {
        matches!(self, GameStatus::Pending | GameStatus::InProgress)
    }
}

/// A `status` column holding text no release writes (a corrupt row).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?} in the games index")]
pub struct UnknownStatus(pub String);

impl std::str::FromStr for GameStatus {
    type Err = UnknownStatus;

    fn from_str(text: &str) -> Result<GameStatus, UnknownStatus> {
        [
            GameStatus::Pending,
            GameStatus::InProgress,
            GameStatus::Finished,
            GameStatus::Cancelled,
            GameStatus::Expired,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
        .ok_or_else(|| UnknownStatus(text.to_owned()))
    }
}

/// A game's row in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game id (the `{game}` of `games/{game}`).
    pub id: String,
    /// The request id of the `CreateGame` call that made it, if any.
    pub request_id: Option<String>,
    /// The token that created it (`crate::auth::CallerId`), for the cap on
    /// unfinished games per token; `None` for games created before it was
    /// recorded.
    pub creator: Option<String>,
    pub created_wall_ms: i64,
    /// Tournament labels used by `ListGames` filters.
    pub event_name: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// Everything needed to rebuild the game (regulations, players...), as
    /// JSON written by the server in format `spec_format` (see
    /// `crate::event_log`). Opaque to the store.
    pub spec_json: String,
    /// The format `spec_json` is written in.
    pub spec_format: i64,
    /// Kept by the appends.
    pub status: GameStatus,
    /// The result once finished (`1-0`, `0-1`, `1/2-1/2`, ...).
    pub result: Option<String>,
    /// The sequence number of the last event (0 before any).
    pub last_seq: i64,
    pub updated_wall_ms: i64,
    /// The game as a reader sees it after event `last_seq` (the read model,
    /// see `crate::event_log::GameView`); `None` until a table of this
    /// release has written one.
    pub view: Option<StoredView>,
}

/// A game's read model as the server wrote it: opaque to the store, which
/// keeps it consistent with `last_seq` (written by the same append, or by
/// [`EventStore::put_view`] only while `last_seq` is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredView {
    /// The format `json` is written in (see `crate::event_log`).
    pub format: i64,
    pub json: String,
}

/// One event of a game's log, with the rulings it produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub game_id: String,
    /// 1, 2, 3... per game.
    pub seq: i64,
    pub request_id: Option<String>,
    /// Who sent the request and what it asked (`None` without a request id,
    /// and for rows written before request scopes).
    pub origin: Option<RequestOrigin>,
    /// Who caused it: `white`, `black`, `arbiter`, `service`, `timer`, `server`.
    pub actor: String,
    /// The instant on the game's own timeline (milliseconds), as given to
    /// the Laws state machine.
    pub at_ms: i64,
    /// Wall-clock time when it was recorded (Unix milliseconds).
    pub wall_ms: i64,
    /// The event, as JSON written by the server. Opaque to the store.
    pub event_json: String,
    /// The rulings it produced, as JSON written by the server. Opaque.
    pub rulings_json: String,
    /// The format of `event_json` and `rulings_json` (see
    /// `crate::event_log`); 1 for rows written before formats were numbered.
    pub format: i64,
}

/// Who sent a request and what it asked, stored with what the request
/// caused, so that a retry is told from a different request reusing its id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestOrigin {
    /// The caller and the method (`<caller> <method>`): the scope within
    /// which a request id names one request. Opaque to the store.
    pub scope: String,
    /// Hex SHA-256 of the request without its request id (its fingerprint).
    pub sha256: String,
}

impl RequestOrigin {
    /// Both columns, or neither (older rows have neither).
    pub(crate) fn from_columns(scope: Option<String>, sha256: Option<String>) -> Option<RequestOrigin> {
        Some(RequestOrigin { scope: scope?, sha256: sha256? })
    }
}

/// The game a `CreateGame` request made (see
/// [`EventStore::creation_request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreationRequest {
    pub game_id: String,
    /// Hex SHA-256 of the request without its request id.
    pub sha256: String,
}

/// A revocation of a game's player tokens (see
/// [`EventStore::revoke_player_tokens`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerTokenRevocation {
    pub game_id: String,
    /// White's token is revoked.
    pub white: bool,
    /// Black's token is revoked.
    pub black: bool,
    pub revoked_wall_ms: i64,
    /// The request id and its origin, if the request had one.
    pub request: Option<(String, RequestOrigin)>,
}

/// The generations a revocation gave each colour it revoked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RevokedGenerations {
    pub white: Option<u32>,
    pub black: Option<u32>,
}

/// What a `RevokePlayerTokens` request with a request id did (see
/// [`EventStore::revocation_request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevocationRequest {
    /// Hex SHA-256 of the request without its request id.
    pub sha256: String,
    pub generations: RevokedGenerations,
}

/// The current generations, White's then Black's, from `(colour, highest
/// generation)` rows.
pub(crate) fn generations_from_rows(rows: Vec<(String, i64)>) -> Result<[u32; 2], StoreError> {
    let mut generations = [0u32; 2];
    for (color, generation) in rows {
        let at = match color.as_str() {
            "white" => 0,
            "black" => 1,
            other => {
                return Err(StoreError::Unavailable(format!("unknown colour {other:?} in a revocation")));
            }
        };
        generations[at] = u32::try_from(generation)
            .map_err(|_| StoreError::Unavailable(format!("token generation {generation} out of range")))?;
    }
    Ok(generations)
}

/// What a revocation request gave, from its `(colour, generation, sha256)`
/// rows (none: no such request).
pub(crate) fn revocation_from_rows(
    rows: Vec<(String, i64, String)>,
) -> Result<Option<RevocationRequest>, StoreError> {
    let Some(sha256) = rows.first().map(|r| r.2.clone()) else { return Ok(None) };
    let mut generations = RevokedGenerations::default();
    for (color, generation, _) in rows {
        let generation = u32::try_from(generation)
            .map_err(|_| StoreError::Unavailable(format!("token generation {generation} out of range")))?;
        match color.as_str() {
            "white" => generations.white = Some(generation),
            "black" => generations.black = Some(generation),
            other => {
                return Err(StoreError::Unavailable(format!("unknown colour {other:?} in a revocation")));
            }
        }
    }
    Ok(Some(RevocationRequest { sha256, generations }))
}

/// The generations as the SQLite writer answers them (its answers are text).
pub(crate) fn encode_generations([white, black]: [u32; 2]) -> String {
    format!("{white} {black}")
}

/// The inverse of [`encode_generations`].
pub(crate) fn decode_generations(text: &str) -> Result<[u32; 2], StoreError> {
    let bad = || StoreError::Unavailable(format!("unreadable generations {text:?}"));
    let (white, black) = text.split_once(' ').ok_or_else(bad)?;
    Ok([white.parse().map_err(|_| bad())?, black.parse().map_err(|_| bad())?])
}

/// A view as the two columns hold it: both set, or neither.
pub(crate) fn stored_view(json: Option<String>, format: Option<i64>) -> Option<StoredView> {
    Some(StoredView { json: json?, format: format? })
}

/// Events to append to one game, all or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Append {
    pub game_id: String,
    /// The game's `last_seq` the writer saw; the events get the next
    /// numbers. If another writer got there first, the append fails with
    /// [`StoreError::Conflict`].
    pub expected_last_seq: i64,
    /// The events, in order; their `seq` fields must be
    /// `expected_last_seq + 1, + 2, ...` (checked).
    pub events: Vec<EventRow>,
    /// The game's status and result after these events.
    pub status: GameStatus,
    pub result: Option<String>,
    /// The game's read model after these events; `None` clears it (a
    /// writer that has none must not leave an older one in place).
    pub view: Option<StoredView>,
    /// The wall-clock instant (ms since the Unix epoch) of the game's next
    /// deadline after these events, `None` if no timer runs (a paused
    /// clock, a game over): what a start-up reads to arm the timers of the
    /// games in play without loading them (see `crate::timers`).
    pub deadline_wall_ms: Option<i64>,
}

/// A game in play as the index has it: enough to arm its timer without
/// loading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InPlay {
    pub id: String,
    /// Its next deadline (wall-clock ms) as of its last event; `None` if no
    /// timer runs; 0 for a row written before deadlines were recorded (due
    /// at once: the game is loaded to learn it).
    pub deadline_wall_ms: Option<i64>,
    /// The wall-clock time of its last event.
    pub updated_wall_ms: i64,
}

impl From<(String, Option<i64>, i64)> for InPlay {
    /// A row `(id, deadline_wall_ms, updated_wall_ms)` of the games index.
    fn from((id, deadline_wall_ms, updated_wall_ms): (String, Option<i64>, i64)) -> InPlay {
        InPlay { id, deadline_wall_ms, updated_wall_ms }
    }
}

/// `ListGames` filters and page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    pub event_name: Option<String>,
    pub round: Option<String>,
    pub status: Option<GameStatus>,
    /// Only games whose id sorts after this one (the page token).
    pub after_id: Option<String>,
    /// At most this many rows (1..=[`MAX_LIST_ROWS`]).
    pub limit: u32,
}

/// The most rows one [`EventStore::list_games`] returns: a page of the
/// largest size `ListGames` allows (1,000) plus the one row that tells
/// whether another page follows.
pub const MAX_LIST_ROWS: u32 = 1001;

/// A game's log read a page at a time, from a point on: the one way every
/// read that walks a log (a replay, a catch-up, a PGN export, a watcher's
/// backfill) pages through it.
#[derive(Debug)]
pub struct EventPages<'a, S> {
    store: &'a S,
    game_id: &'a str,
    after_seq: i64,
    page: u32,
    done: bool,
}

impl<'a, S: EventStore> EventPages<'a, S> {
    /// The events of `game_id` after `after_seq`, `page` at a time.
    pub fn new(store: &'a S, game_id: &'a str, after_seq: i64, page: u32) -> EventPages<'a, S> {
        EventPages { store, game_id, after_seq, page: page.max(1), done: false }
    }

    /// The next page, or `None` after the last event.
    ///
    /// # Errors
    /// As [`EventStore::events`]; the walk can be resumed by calling again.
    pub async fn next(&mut self) -> Result<Option<Vec<EventRow>>, StoreError> {
        if self.done {
            return Ok(None);
        }
        let rows = self.store.events(self.game_id, self.after_seq, self.page).await?;
        // A short page is the last; a full one may be followed by more.
        self.done = rows.len() < self.page as usize;
        match rows.last() {
            Some(last) => {
                self.after_seq = last.seq;
                Ok(Some(rows))
            }
            None => Ok(None),
        }
    }

    /// The sequence number of the last event read (the starting point
    /// before any).
    pub fn last_seq(&self) -> i64 {
        self.after_seq
    }
}

/// A role token (stored hashed; the secret is never stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRow {
    /// Public token id (the part of the token before the secret).
    pub id: String,
    /// Hex SHA-256 of the secret.
    pub secret_sha256: String,
    /// `service`, `arbiter` or `viewer`.
    pub role: String,
    pub label: String,
    pub created_wall_ms: i64,
    /// When it was revoked (Unix ms); a revoked token never authenticates.
    pub revoked_wall_ms: Option<i64>,
}

/// One report of an e-board (an observation of its squares or a reading of
/// its clock), as kept: `report_json` is a record of `event_log::board` in
/// format `format`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservationRow {
    pub game_id: String,
    pub device_id: i64,
    pub device_seq: i64,
    pub device_time_ms: i64,
    pub format: i64,
    pub report_json: String,
    pub received_wall_ms: i64,
}

/// What can go wrong in storage.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended first (the `(game, seq)` key decided).
    #[error("game {game_id} changed concurrently: expected last event {expected}")]
    Conflict { game_id: String, expected: i64 },
    /// The request id was already used in its scope, for this game (or for
    /// a creation).
    #[error("request id {request_id:?} was already used")]
    DuplicateRequest { request_id: String },
    /// A game with this id already exists.
    #[error("game {0} already exists")]
    AlreadyExists(String),
    /// No such game.
    #[error("game {0} not found")]
    NotFound(String),
    /// A tournament or round with this resource name already exists.
    #[error("{0} already exists")]
    ResourceExists(String),
    /// No tournament or round with this resource name.
    #[error("{0} not found")]
    ResourceNotFound(String),
    /// The game's creator already has `open` games pending or in progress,
    /// the most [`EventStore::create_game_capped`] allows: nothing was
    /// written.
    #[error("{creator} already has {open} unfinished games")]
    TooManyOpen { creator: String, open: u64 },
    /// The caller broke the contract (sequence numbers not consecutive...).
    #[error("invalid append: {0}")]
    Invalid(String),
    /// The database is unreachable, full or failing: try again later.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Another replica owns the game now (it took the game over when this
    /// replica's lease ran out): nothing was written.
    #[error("game {game_id} is run by replica {}", .owner.as_deref().unwrap_or("(none)"))]
    Moved { game_id: String, owner: Option<String> },
}

/// A replica of the service on a shared database (issue 18, point 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replica {
    /// Its id, new at every start.
    pub id: String,
    /// Where the other replicas reach its gRPC service
    /// (`http://host:port`), to forward the acts on its games.
    pub address: String,
    /// How long a heartbeat keeps its lease on its games.
    pub lease: Duration,
}

/// Who runs a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// This replica (always, alone on an embedded database).
    Here,
    /// Another replica, alive, reached at `address`.
    Elsewhere { replica: String, address: String },
}

/// The storage contract. Every method is a single atomic operation.
pub trait EventStore: Send + Sync {
    /// Creates a game (status `PENDING`, `last_seq` 0).
    ///
    /// # Errors
    /// [`StoreError::AlreadyExists`] for a taken id,
    /// [`StoreError::DuplicateRequest`] for a used request id,
    /// [`StoreError::Unavailable`].
    fn create_game(&self, game: &GameRow) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Creates a game as [`EventStore::create_game`] does, unless its
    /// creator already has `max_open` games or more that are pending or in
    /// progress. The count and the insert are one atomic step (also between
    /// replicas), so the cap is never exceeded.
    ///
    /// # Errors
    /// [`StoreError::TooManyOpen`], and as [`EventStore::create_game`].
    fn create_game_capped(
        &self,
        game: &GameRow,
        max_open: u64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The game with this id.
    fn game(&self, id: &str) -> impl Future<Output = Result<Option<GameRow>, StoreError>> + Send;
    /// Creates a game (as [`EventStore::create_game`]) for a `CreateGame`
    /// request, and records the request under its scope, atomically; with
    /// a cap, as [`EventStore::create_game_capped`].
    ///
    /// # Errors
    /// [`StoreError::DuplicateRequest`] if the scope already holds this
    /// request id (also when the game id is taken too: most likely a
    /// retry), [`StoreError::AlreadyExists`] for a taken game id,
    /// [`StoreError::TooManyOpen`] over the cap, [`StoreError::Unavailable`].
    fn create_requested_game(
        &self,
        game: &GameRow,
        request_id: &str,
        origin: &RequestOrigin,
        cap: Option<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The game a `CreateGame` request with this id made in this scope.
    fn creation_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> impl Future<Output = Result<Option<CreationRequest>, StoreError>> + Send;
    /// The game whose `games.request_id` is this id: creations recorded
    /// before request scopes, which say nothing of who made them. The
    /// server no longer matches requests against them.
    fn game_by_request(
        &self,
        request_id: &str,
    ) -> impl Future<Output = Result<Option<GameRow>, StoreError>> + Send;
    /// Games matching the filter, ordered by id.
    fn list_games(
        &self,
        filter: &GameFilter,
    ) -> impl Future<Output = Result<Vec<GameRow>, StoreError>> + Send;
    /// Ids of games not in play without a read model (written by a release
    /// before it), after `after_id`, ordered by id, at most `limit`. (A game
    /// in play may lack one: its table stores it when it stops.)
    fn games_without_view(
        &self,
        after_id: &str,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;
    /// Stores the read model of a game whose last event is `last_seq`. If
    /// the game has moved on (or does not exist), nothing is written: the
    /// append that moved it on carried a newer view.
    fn put_view(
        &self,
        game_id: &str,
        last_seq: i64,
        view: &StoredView,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The games whose status is `IN_PROGRESS`, with their next deadlines
    /// (to arm their timers after a restart), in id order. Pending games
    /// have no timer: they are loaded when used.
    fn games_in_play(&self) -> impl Future<Output = Result<Vec<InPlay>, StoreError>> + Send;
    /// Ids of `PENDING` games created before `cutoff_wall_ms` (those to
    /// expire), oldest first, at most `limit`.
    fn pending_created_before(
        &self,
        cutoff_wall_ms: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;
    /// Events of a game with `seq > after_seq`, in order, at most `limit`.
    fn events(
        &self,
        game_id: &str,
        after_seq: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<EventRow>, StoreError>> + Send;
    /// The first event recorded for this request id in this game, in any
    /// scope.
    fn event_by_request(
        &self,
        game_id: &str,
        request_id: &str,
    ) -> impl Future<Output = Result<Option<EventRow>, StoreError>> + Send;
    /// Appends events to a game and updates its status, durably, all or
    /// nothing.
    ///
    /// # Errors
    /// [`StoreError::Conflict`], [`StoreError::DuplicateRequest`],
    /// [`StoreError::NotFound`], [`StoreError::Invalid`],
    /// [`StoreError::Unavailable`].
    fn append(&self, append: Append) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Stores a role token.
    fn insert_token(&self, token: &TokenRow) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Keeps an e-board's report, durably: `true` if it was new, `false`
    /// if the game already holds this device's `device_seq` (nothing is
    /// written; the first one stands).
    fn keep_observation(&self, row: &ObservationRow)
    -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// A device's reports for a game with `device_seq` above `after_seq`,
    /// in order, at most `limit`.
    fn observations(
        &self,
        game_id: &str,
        device_id: i64,
        after_seq: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<ObservationRow>, StoreError>> + Send;
    /// The role token with this id.
    fn token(&self, id: &str) -> impl Future<Output = Result<Option<TokenRow>, StoreError>> + Send;
    /// Number of role tokens stored (revoked ones too).
    fn token_count(&self) -> impl Future<Output = Result<u64, StoreError>> + Send;
    /// Every role token (revoked ones too), oldest first.
    fn tokens(&self) -> impl Future<Output = Result<Vec<TokenRow>, StoreError>> + Send;
    /// The current generation of the player tokens of a game, White's then
    /// Black's: 0 until revoked, then one more per revocation.
    fn player_token_generations(
        &self,
        game_id: &str,
    ) -> impl Future<Output = Result<[u32; 2], StoreError>> + Send;
    /// Revokes the player tokens of the colours named: each goes to its
    /// next generation, in one atomic step (also between replicas). Returns
    /// the generations after it, White's then Black's.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown game,
    /// [`StoreError::DuplicateRequest`] if the request's scope already used
    /// its id in this game, [`StoreError::Invalid`] if no colour is named,
    /// [`StoreError::Unavailable`].
    fn revoke_player_tokens(
        &self,
        revocation: &PlayerTokenRevocation,
    ) -> impl Future<Output = Result<[u32; 2], StoreError>> + Send;
    /// What the revocation that `scope` made in `game_id` with this request
    /// id gave.
    fn revocation_request(
        &self,
        game_id: &str,
        scope: &str,
        request_id: &str,
    ) -> impl Future<Output = Result<Option<RevocationRequest>, StoreError>> + Send;
    /// Revokes role token `id` at `now_wall_ms`; `false` if there is no
    /// such token or it was already revoked (then nothing changes).
    fn revoke_token(
        &self,
        id: &str,
        now_wall_ms: i64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// A value of the `meta` table, if set.
    fn meta_get(&self, key: &str) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;
    /// Deletes a value of the `meta` table (nothing if absent).
    fn meta_delete(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// A value of the `meta` table (server key...), inserting `default` if
    /// absent, atomically (every replica gets the same value).
    fn meta_get_or_insert(
        &self,
        key: &str,
        default: &str,
    ) -> impl Future<Output = Result<String, StoreError>> + Send;
    /// Whether the database answers (readiness).
    fn ping(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Flushes and closes (graceful shutdown).
    fn close(&self) -> impl Future<Output = ()> + Send;
    /// A stream of `(game_id, last_seq)`, one item per committed append,
    /// sent after its commit: `last_seq` is the seq of the append's last
    /// event. It covers the appends of every process using the database
    /// where the backend can tell (PostgreSQL), those of this store
    /// otherwise (SQLite). Only appends committed after the call are seen.
    ///
    /// Notifications can be lost (a connection to the database dropped, a
    /// receiver that fell [`SUBSCRIPTION_CAPACITY`] behind); the receiver is
    /// then told so, by the item `(RESYNC, 0)` or by
    /// [`broadcast::error::RecvError::Lagged`], and should re-read whatever
    /// it keeps up to date. An item may thus be followed by older state than
    /// the store has: consumers compare `last_seq` with what they hold.
    fn subscribe(&self) -> broadcast::Receiver<(String, i64)>;
    /// Records that the replica `replica_id` is alive at `now_wall_ms` (Unix
    /// milliseconds), replacing its previous heartbeat.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    fn heartbeat(
        &self,
        replica_id: &str,
        now_wall_ms: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Records an outage of the service: nobody served from
    /// `last_alive_wall_ms` until `resumed_wall_ms`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    fn record_outage(
        &self,
        last_alive_wall_ms: i64,
        resumed_wall_ms: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The outages recorded, as `(last_alive_wall_ms, resumed_wall_ms)`,
    /// oldest first.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    fn outages(&self) -> impl Future<Output = Result<Vec<(i64, i64)>, StoreError>> + Send;
    /// Ids of the replicas whose last heartbeat is at most `max_age_ms` old
    /// at `now_wall_ms` (heartbeat `>= now_wall_ms - max_age_ms`), sorted.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    fn live_replicas(
        &self,
        now_wall_ms: i64,
        max_age_ms: i64,
    ) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;
    /// The latest heartbeat of any replica (Unix milliseconds): the last
    /// moment the service is known to have been alive.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    fn last_heartbeat(&self) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;
}

/// Checks what can be checked without the database: at least one event, all
/// of this game, numbered `expected_last_seq + 1, + 2, ...`. Every backend
/// runs it before touching the database, so contract violations never reach
/// (nor occupy) a write batch.
fn validate_append(append: &Append) -> Result<(), StoreError> {
    if append.events.is_empty() {
        return Err(StoreError::Invalid(format!("append to game {} has no events", append.game_id)));
    }
    if append.expected_last_seq < 0 {
        return Err(StoreError::Invalid(format!(
            "expected_last_seq {} is negative",
            append.expected_last_seq
        )));
    }
    let mut next = append.expected_last_seq;
    for event in &append.events {
        if event.game_id != append.game_id {
            return Err(StoreError::Invalid(format!(
                "event of game {} in an append to game {}",
                event.game_id, append.game_id
            )));
        }
        next =
            next.checked_add(1).ok_or_else(|| StoreError::Invalid("sequence number overflow".to_owned()))?;
        if event.seq != next {
            return Err(StoreError::Invalid(format!(
                "event seq {} where {next} was expected (expected_last_seq {})",
                event.seq, append.expected_last_seq
            )));
        }
    }
    Ok(())
}

/// The store the server uses: one of the backends, chosen by the database
/// URL. Cloning is cheap (each backend shares its connections behind an
/// `Arc`), so every task can hold its own handle.
#[derive(Clone, Debug)]
pub enum Storage {
    /// The embedded default (`sqlite://path` or `sqlite::memory:`).
    Sqlite(sqlite::SqliteStore),
    /// A PostgreSQL server (`postgres://...` or `postgresql://...`), which
    /// several replicas can share.
    Postgres(postgres::PostgresStore),
}

impl Storage {
    /// Opens the backend named by the URL's scheme.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for an unsupported scheme or a malformed URL,
    /// [`StoreError::Unavailable`] if the database cannot be opened.
    pub async fn open(url: &str) -> Result<Storage, StoreError> {
        // Only the scheme is echoed back: the rest of a database URL may hold
        // a password.
        let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
        match scheme {
            "sqlite" => Ok(Storage::Sqlite(sqlite::SqliteStore::open(url).await?)),
            "postgres" | "postgresql" => Ok(Storage::Postgres(postgres::PostgresStore::open(url).await?)),
            _ => Err(StoreError::Invalid(format!(
                "unsupported database URL scheme {scheme:?}: expected sqlite://PATH, sqlite::memory: \
                 or postgres://USER@HOST/DATABASE"
            ))),
        }
    }
}

/// Game ownership among replicas (issue 18, point 3): on PostgreSQL, see
/// [`postgres::PostgresStore::claim`] and its neighbours; an embedded
/// database has one replica, which owns every game.
impl Storage {
    /// Names the replica this store writes for (see
    /// [`postgres::PostgresStore::set_replica`]).
    pub fn set_replica(&self, replica: Replica) {
        if let Storage::Postgres(store) = self {
            store.set_replica(replica);
        }
    }

    /// The id of the replica this store writes for, once named.
    pub fn replica_id(&self) -> Option<String> {
        match self {
            Storage::Sqlite(_) => None,
            Storage::Postgres(store) => store.replica_id(),
        }
    }

    /// Whether several replicas may share the database.
    pub fn is_shared(&self) -> bool {
        matches!(self, Storage::Postgres(_))
    }

    /// Who runs game `id`, taking it if nobody alive does.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Unavailable`].
    pub async fn claim(&self, id: &str) -> Result<Owner, StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(Owner::Here),
            Storage::Postgres(store) => within(store.claim(id)).await,
        }
    }

    /// Takes game `id` over whoever runs it (see
    /// [`postgres::PostgresStore::seize`]).
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Unavailable`].
    pub async fn seize(&self, id: &str) -> Result<(), StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(()),
            Storage::Postgres(store) => within(store.seize(id)).await,
        }
    }

    /// The owners whose lease ran out and who still own games in play.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn dead_owners(&self) -> Result<Vec<Option<String>>, StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(Vec::new()),
            Storage::Postgres(store) => within(store.dead_owners()).await,
        }
    }

    /// Takes over games in play of a dead owner (see
    /// [`postgres::PostgresStore::take_over`]).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn take_over(
        &self,
        dead: Option<&str>,
        share: Option<(i64, i64)>,
    ) -> Result<Vec<InPlay>, StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(Vec::new()),
            Storage::Postgres(store) => within(store.take_over(dead, share)).await,
        }
    }

    /// The replicas whose lease holds now, sorted.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn leaseholders(&self) -> Result<Vec<String>, StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(Vec::new()),
            Storage::Postgres(store) => within(store.leaseholders()).await,
        }
    }

    /// The games in play this replica runs: all of them on an embedded
    /// database.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn owned_in_play(&self) -> Result<Vec<InPlay>, StoreError> {
        match self {
            Storage::Sqlite(_) => self.games_in_play().await,
            Storage::Postgres(store) => within(store.owned_in_play()).await,
        }
    }

    /// Ends this replica's lease now (a clean shutdown).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn end_lease(&self) -> Result<(), StoreError> {
        match self {
            Storage::Sqlite(_) => Ok(()),
            Storage::Postgres(store) => within(store.end_lease()).await,
        }
    }
}

/// How long any storage operation may take before the caller is told the
/// storage is unavailable. A database that stalls (connections open, no
/// byte moving) must not hold requests forever: the client gets UNAVAILABLE
/// and retries with the same request id, which finds out whether a write
/// it was not told about landed.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

async fn within<T>(operation: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    tokio::time::timeout(ANSWER_TIMEOUT, operation).await.unwrap_or_else(|_| {
        Err(StoreError::Unavailable(format!(
            "the database did not answer within {} s",
            ANSWER_TIMEOUT.as_secs()
        )))
    })
}

impl EventStore for Storage {
    async fn create_game(&self, game: &GameRow) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.create_game(game).await,
                Storage::Postgres(store) => store.create_game(game).await,
            }
        })
        .await
    }

    async fn create_game_capped(&self, game: &GameRow, max_open: u64) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.create_game_capped(game, max_open).await,
                Storage::Postgres(store) => store.create_game_capped(game, max_open).await,
            }
        })
        .await
    }

    async fn game(&self, id: &str) -> Result<Option<GameRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.game(id).await,
                Storage::Postgres(store) => store.game(id).await,
            }
        })
        .await
    }

    async fn create_requested_game(
        &self,
        game: &GameRow,
        request_id: &str,
        origin: &RequestOrigin,
        cap: Option<u64>,
    ) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.create_requested_game(game, request_id, origin, cap).await,
                Storage::Postgres(store) => store.create_requested_game(game, request_id, origin, cap).await,
            }
        })
        .await
    }

    async fn creation_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<CreationRequest>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.creation_request(scope, request_id).await,
                Storage::Postgres(store) => store.creation_request(scope, request_id).await,
            }
        })
        .await
    }

    async fn game_by_request(&self, request_id: &str) -> Result<Option<GameRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.game_by_request(request_id).await,
                Storage::Postgres(store) => store.game_by_request(request_id).await,
            }
        })
        .await
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.list_games(filter).await,
                Storage::Postgres(store) => store.list_games(filter).await,
            }
        })
        .await
    }

    async fn games_without_view(&self, after_id: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.games_without_view(after_id, limit).await,
                Storage::Postgres(store) => store.games_without_view(after_id, limit).await,
            }
        })
        .await
    }

    async fn put_view(&self, game_id: &str, last_seq: i64, view: &StoredView) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.put_view(game_id, last_seq, view).await,
                Storage::Postgres(store) => store.put_view(game_id, last_seq, view).await,
            }
        })
        .await
    }

    async fn games_in_play(&self) -> Result<Vec<InPlay>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.games_in_play().await,
                Storage::Postgres(store) => store.games_in_play().await,
            }
        })
        .await
    }

    async fn pending_created_before(
        &self,
        cutoff_wall_ms: i64,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.pending_created_before(cutoff_wall_ms, limit).await,
                Storage::Postgres(store) => store.pending_created_before(cutoff_wall_ms, limit).await,
            }
        })
        .await
    }

    async fn events(&self, game_id: &str, after_seq: i64, limit: u32) -> Result<Vec<EventRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.events(game_id, after_seq, limit).await,
                Storage::Postgres(store) => store.events(game_id, after_seq, limit).await,
            }
        })
        .await
    }

    async fn event_by_request(
        &self,
        game_id: &str,
        request_id: &str,
    ) -> Result<Option<EventRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.event_by_request(game_id, request_id).await,
                Storage::Postgres(store) => store.event_by_request(game_id, request_id).await,
            }
        })
        .await
    }

    async fn append(&self, append: Append) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.append(append).await,
                Storage::Postgres(store) => store.append(append).await,
            }
        })
        .await
    }

    async fn insert_token(&self, token: &TokenRow) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.insert_token(token).await,
                Storage::Postgres(store) => store.insert_token(token).await,
            }
        })
        .await
    }

    async fn keep_observation(&self, row: &ObservationRow) -> Result<bool, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.keep_observation(row).await,
                Storage::Postgres(store) => store.keep_observation(row).await,
            }
        })
        .await
    }

    async fn observations(
        &self,
        game_id: &str,
        device_id: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<ObservationRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.observations(game_id, device_id, after_seq, limit).await,
                Storage::Postgres(store) => store.observations(game_id, device_id, after_seq, limit).await,
            }
        })
        .await
    }

    async fn token(&self, id: &str) -> Result<Option<TokenRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.token(id).await,
                Storage::Postgres(store) => store.token(id).await,
            }
        })
        .await
    }

    async fn token_count(&self) -> Result<u64, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.token_count().await,
                Storage::Postgres(store) => store.token_count().await,
            }
        })
        .await
    }

    async fn tokens(&self) -> Result<Vec<TokenRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.tokens().await,
                Storage::Postgres(store) => store.tokens().await,
            }
        })
        .await
    }

    async fn player_token_generations(&self, game_id: &str) -> Result<[u32; 2], StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.player_token_generations(game_id).await,
                Storage::Postgres(store) => store.player_token_generations(game_id).await,
            }
        })
        .await
    }

    async fn revoke_player_tokens(&self, revocation: &PlayerTokenRevocation) -> Result<[u32; 2], StoreError> {
        if !revocation.white && !revocation.black {
            return Err(StoreError::Invalid("a revocation names at least one colour".into()));
        }
        within(async {
            match self {
                Storage::Sqlite(store) => store.revoke_player_tokens(revocation).await,
                Storage::Postgres(store) => store.revoke_player_tokens(revocation).await,
            }
        })
        .await
    }

    async fn revocation_request(
        &self,
        game_id: &str,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<RevocationRequest>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.revocation_request(game_id, scope, request_id).await,
                Storage::Postgres(store) => store.revocation_request(game_id, scope, request_id).await,
            }
        })
        .await
    }

    async fn revoke_token(&self, id: &str, now_wall_ms: i64) -> Result<bool, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.revoke_token(id, now_wall_ms).await,
                Storage::Postgres(store) => store.revoke_token(id, now_wall_ms).await,
            }
        })
        .await
    }

    async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.meta_get(key).await,
                Storage::Postgres(store) => store.meta_get(key).await,
            }
        })
        .await
    }

    async fn meta_delete(&self, key: &str) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.meta_delete(key).await,
                Storage::Postgres(store) => store.meta_delete(key).await,
            }
        })
        .await
    }

    async fn meta_get_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.meta_get_or_insert(key, default).await,
                Storage::Postgres(store) => store.meta_get_or_insert(key, default).await,
            }
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.ping().await,
                Storage::Postgres(store) => store.ping().await,
            }
        })
        .await
    }

    async fn close(&self) {
        match self {
            Storage::Sqlite(store) => store.close().await,
            Storage::Postgres(store) => store.close().await,
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<(String, i64)> {
        match self {
            Storage::Sqlite(store) => store.subscribe(),
            Storage::Postgres(store) => store.subscribe(),
        }
    }

    async fn heartbeat(&self, replica_id: &str, now_wall_ms: i64) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.heartbeat(replica_id, now_wall_ms).await,
                Storage::Postgres(store) => store.heartbeat(replica_id, now_wall_ms).await,
            }
        })
        .await
    }

    async fn live_replicas(&self, now_wall_ms: i64, max_age_ms: i64) -> Result<Vec<String>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.live_replicas(now_wall_ms, max_age_ms).await,
                Storage::Postgres(store) => store.live_replicas(now_wall_ms, max_age_ms).await,
            }
        })
        .await
    }

    async fn record_outage(&self, last_alive_wall_ms: i64, resumed_wall_ms: i64) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.record_outage(last_alive_wall_ms, resumed_wall_ms).await,
                Storage::Postgres(store) => store.record_outage(last_alive_wall_ms, resumed_wall_ms).await,
            }
        })
        .await
    }

    async fn outages(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.outages().await,
                Storage::Postgres(store) => store.outages().await,
            }
        })
        .await
    }

    async fn last_heartbeat(&self) -> Result<Option<i64>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.last_heartbeat().await,
                Storage::Postgres(store) => store.last_heartbeat().await,
            }
        })
        .await
    }
}
