//! A table of the playing hall: the one serialised owner of a game in
//! memory.
//!
//! Each loaded game has one task (the table) that receives every command for
//! it over a channel, so acts on one game are applied one at a time, in the
//! order they arrive, and no update is ever lost. The table applies an act
//! to the Laws state machine, appends the event and its rulings to the
//! durable log, and answers only after the commit. It also wakes at the
//! game's next deadline (a flag, a default time, a reconnect window) and
//! records the ruling even if no client ever calls again.
//!
//! Time: every game has its own timeline in milliseconds, read from the
//! service's monotonic clock. After a restart the timeline continues from
//! the last recorded instant, so time that passed while the service was
//! down is not charged to the player on move; a `ServiceResumed` event
//! records the outage (FIDE 6.11 spirit).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arbiter_chess::{Color, Square};
use arbiter_laws::event::{ClaimKind, Event};
use arbiter_laws::game::Game;
use arbiter_laws::ruling::{Decision, EndCause, Ruling};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::api;
use crate::error::{AbortReason, ApiError};
use crate::event_log::{self, Aftermath, Clocks, GameSpec, GameView, ObligationView, QuestionView};
use crate::request::Stamped;
use crate::store::{
    Append, EventPages, EventRow, EventStore, GameRow, GameStatus, Owner, Storage, StoreError, StoredView,
};
use crate::timers::Timers;
use crate::view::{GameReading, LoggedEvent};

/// How long a finished game stays loaded without commands. Long enough for
/// the reads that follow a result (the platform fetching the result, the
/// PGN, a watcher catching up); after that a read loads the game again from
/// the log, which costs a replay. Under churn the finished games held are
/// most of the service's memory: at twelve games ending a second, 120 s
/// held some 1,400 of them.
const IDLE_FINISHED: Duration = Duration::from_secs(15);
/// How long a game that was already finished when it was loaded stays
/// loaded without commands. Such a table serves reads (a platform exporting
/// a round's PGNs, an audit); a burst of them must not hold thousands of
/// replayed games for the full [`IDLE_FINISHED`]: reading 22,000 finished
/// games in a minute held some 300 MiB with 15 s.
const IDLE_LOADED_FINISHED: Duration = Duration::from_secs(2);
/// How long a game not yet started stays loaded without commands. It has
/// no timer to run, and loading it again costs a read of its row and of the
/// few events before a start; so a backlog of pending games (a platform
/// creating a round ahead of time, or a flood of creations) holds no
/// memory beyond a few seconds of creations.
const IDLE_PENDING: Duration = Duration::from_secs(5);
/// How long a game in play stays loaded without commands before it is put
/// away (its deadline armed in the hall's [`Timers`] instead), unless its
/// deadline is near (within [`PARK_MARGIN`]). A game being played gets a
/// move every few seconds and stays loaded; a long think, an adjourned or
/// paused game, or a hundred thousand games whose players are elsewhere
/// cost a timer entry each, not a table.
const IDLE_IN_PLAY: Duration = Duration::from_secs(5);
/// The same for a game in play without a move yet (just started, its
/// players not there yet): reloading it costs a log of a few events, and a
/// round of thousands of games started at once then does not hold
/// thousands of tables (and the memory the allocator keeps after them).
const IDLE_UNMOVED: Duration = Duration::from_secs(1);
/// A game whose deadline is closer than this stays loaded: putting it away
/// would only load it again at once ([`crate::timers::LEAD`]).
const PARK_MARGIN: Duration = Duration::from_secs(4);
/// Events a watcher may fall behind its game before it catches up from the
/// log (`RecvError::Lagged`, handled by every watch stream).
const WATCH_BACKLOG: usize = 32;
/// How long to wait before retrying a deadline whose ruling could not be
/// stored.
const STORE_RETRY: Duration = Duration::from_millis(250);
/// Events replayed per storage read when a game is loaded.
const REPLAY_PAGE: u32 = 1000;

/// The process-wide origin of the monotonic clock.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Milliseconds of the monotonic clock since the process-wide origin.
fn mono_ms() -> i64 {
    i64::try_from(epoch().elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// Wall-clock Unix milliseconds.
pub fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// An act to apply, before the table turns it into a Laws event (moves in
/// SAN need the position on the board to be understood).
#[derive(Clone, Debug)]
pub enum Act {
    Event(Event),
    Move {
        color: Color,
        text: String,
        premove: bool,
        castle: bool,
    },
    Claim {
        color: Color,
        kind: ClaimKind,
        intended: Option<String>,
    },
    /// Two pieces touched at once (4.3.3), in either order: the board says
    /// which one is the player's own.
    SimultaneousTouch {
        color: Color,
        squares: [Square; 2],
    },
}

/// The answer to an act: the recorded event and the game after it.
#[derive(Clone, Debug)]
pub struct Acted {
    pub event: LoggedEvent,
    pub game: GameReading,
}

/// A recorded event as watchers receive it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub event: LoggedEvent,
    /// The game is over after this event.
    pub finished: bool,
}

enum Command {
    /// Boxed: a table's channel allocates its slots in blocks of 32
    /// commands, so the largest command sets the size of every table's
    /// queue (most are a read or a notification).
    Act(Box<ActCommand>),
    Read {
        reply: oneshot::Sender<Result<GameReading, ApiError>>,
    },
    /// Another writer appended up to `seq`.
    CatchUp {
        seq: i64,
    },
    /// This replica runs the game from now on (it took the game over):
    /// read what the previous owner recorded, then judge and keep time.
    Own {
        reply: oneshot::Sender<Result<(), ApiError>>,
    },
}

/// An act to judge and record, and where its answer goes.
struct ActCommand {
    act: Act,
    actor: &'static str,
    request: Option<Stamped>,
    expected_seq: Option<i64>,
    reply: oneshot::Sender<Result<Acted, ApiError>>,
}

/// Who runs a table's game, shared by the table and its handles: the
/// table of a game another replica runs only follows its log (for reads
/// and watchers); acts go to the owner.
type Runner = Arc<std::sync::RwLock<Owner>>;

fn runner_of(runner: &Runner) -> Owner {
    runner.read().map_or_else(|e| e.into_inner().clone(), |o| o.clone())
}

fn set_runner(runner: &Runner, owner: Owner) {
    match runner.write() {
        Ok(mut o) => *o = owner,
        Err(e) => *e.into_inner() = owner,
    }
}

/// An outage of the service: nobody served any game from
/// `last_alive_wall_ms` (the last heartbeat of the last replica alive; 0 if
/// none was ever recorded) until `resumed_wall_ms` (the start-up that found
/// no replica alive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub last_alive_wall_ms: i64,
    pub resumed_wall_ms: i64,
}

/// The outages of the service a game loaded now may have crossed. A game is
/// loaded when someone acts on it or its deadline nears, perhaps long after
/// a restart, perhaps after several: the time since its last event counts
/// for the player on move except the outages in it, which are recorded
/// when it loads (one `ServiceResumed` with their sum, FIDE 6.11 spirit).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outages(Arc<[Outage]>);

impl Outages {
    /// No outage: the time since a game's last event counts in full.
    pub fn none() -> Outages {
        Outages::default()
    }

    /// The outages as the store lists them, `(last_alive_wall_ms,
    /// resumed_wall_ms)`.
    pub fn new(list: impl IntoIterator<Item = (i64, i64)>) -> Outages {
        Outages(
            list.into_iter()
                .map(|(last_alive_wall_ms, resumed_wall_ms)| Outage { last_alive_wall_ms, resumed_wall_ms })
                .collect(),
        )
    }

    /// The time between `last_event_wall_ms` and `now_wall_ms` the service
    /// was down, in ms: not charged to the player on move.
    pub fn uncharged_ms(&self, last_event_wall_ms: i64, now_wall_ms: i64) -> i64 {
        self.0
            .iter()
            .map(|o| {
                (o.resumed_wall_ms.min(now_wall_ms) - o.last_alive_wall_ms.max(last_event_wall_ms)).max(0)
            })
            .sum()
    }

    /// Whether a game whose last event was at `last_event_wall_ms` crossed
    /// an outage (its table records the resumption when it loads).
    pub fn crossed(&self, last_event_wall_ms: i64) -> bool {
        self.0.iter().any(|o| o.resumed_wall_ms > last_event_wall_ms)
    }
}

/// A handle on a loaded game.
#[derive(Clone, Debug)]
pub struct TableHandle {
    tx: mpsc::Sender<Command>,
    events: broadcast::Sender<Arc<Recorded>>,
    runner: Runner,
}

fn gone() -> ApiError {
    ApiError::Unavailable("the game's table is shutting down; retry".into())
}

impl TableHandle {
    /// Whether the table's task has stopped (a finished game left idle).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Applies an act and records it. An act whose request id its scope
    /// already recorded in this game is answered with the recorded event if
    /// it is the same request (a retry), and refused with
    /// [`ApiError::RequestIdReused`] if it is not.
    ///
    /// # Errors
    /// Whatever the act or the storage gives.
    pub async fn act(
        &self,
        act: Act,
        actor: &'static str,
        request: Option<Stamped>,
        expected_seq: Option<i64>,
    ) -> Result<Acted, ApiError> {
        let (reply, rx) = oneshot::channel();
        let command = Command::Act(Box::new(ActCommand { act, actor, request, expected_seq, reply }));
        self.tx.send(command).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// The game as it stands now.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the game cannot be read consistently.
    pub async fn read(&self) -> Result<GameReading, ApiError> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Command::Read { reply }).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Tells the table another writer appended up to `seq` (it reads the
    /// log if it is behind). Never waits: a full queue means the table is
    /// busy and will read the log anyway when it next writes.
    pub fn notify(&self, seq: i64) {
        let _ = self.tx.try_send(Command::CatchUp { seq });
    }

    /// Live events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Recorded>> {
        self.events.subscribe()
    }

    /// Who runs the game, as this table last learnt.
    pub fn owner(&self) -> Owner {
        runner_of(&self.runner)
    }

    /// Records where the game's owner is now (a follower's knowledge of it
    /// refreshed).
    pub fn follow(&self, replica: String, address: String) {
        set_runner(&self.runner, Owner::Elsewhere { replica, address });
    }

    /// Makes this table the one that runs the game (this replica took it
    /// over): it reads the log first.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the log cannot be read.
    pub async fn own(&self) -> Result<(), ApiError> {
        if matches!(self.owner(), Owner::Here) {
            return Ok(());
        }
        let (reply, rx) = oneshot::channel();
        self.tx.send(Command::Own { reply }).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }
}

/// The state a table owns.
struct Table {
    store: Storage,
    row: GameRow,
    spec: Arc<GameSpec>,
    game: Game,
    last_seq: i64,
    /// Timeline offset: the game instant is `offset + mono_ms()`.
    offset: i64,
    /// Request ids already recorded, with their sequence numbers and the
    /// fingerprints of their requests.
    requests: HashMap<RequestKey, Recalled>,
    events: broadcast::Sender<Arc<Recorded>>,
    /// An append failed after the event was applied in memory: the state
    /// must be rebuilt from the log before anything else happens.
    dirty: bool,
    retry_deadline_at: Option<Instant>,
    notation: Notation,
    /// The game was over when the table was loaded: it only serves reads.
    loaded_finished: bool,
    /// When a client last acted on the game through this table (`None`:
    /// never, as for a game loaded for its deadline).
    last_act: Option<Instant>,
    /// The games index holds a read model of the game's last event (a row
    /// of a release before read models has none; the appends of a game in
    /// play leave it out, see [`Table::stores_view`]).
    view_stored: bool,
    /// The instant of the last event of the log, on the game's timeline:
    /// the clocks of the read model stored at a stop are read then.
    last_event_at: i64,
    /// Where the game's deadline goes when the table is put away (`None`:
    /// a game in play is never put away).
    timers: Option<Arc<Timers>>,
    /// Who runs the game: this table, or another replica's (then this one
    /// only follows the log).
    runner: Runner,
}

/// A request id as the log records it (see [`crate::request`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum RequestKey {
    /// Recorded with its scope (the caller and the method).
    Scoped { scope: String, id: String },
    /// Recorded before request scopes: all the row says of its sender is
    /// the actor. Such a row is matched by a request of the same actor
    /// with the same id, whatever its method and payload (as the release
    /// that wrote it matched it), so a retry that straddles the upgrade
    /// still gets its answer; only a game in play at the upgrade has any.
    Legacy { actor: String, id: String },
}

/// What the log holds for a request id.
#[derive(Clone, Debug)]
struct Recalled {
    seq: i64,
    /// The request's fingerprint (`None` for a legacy row).
    sha256: Option<String>,
}

impl RequestKey {
    /// The key and fingerprint an event row records, if it has a request id.
    fn of(row: &EventRow) -> Option<(RequestKey, Recalled)> {
        let id = row.request_id.clone()?;
        Some(match &row.origin {
            Some(origin) => (
                RequestKey::Scoped { scope: origin.scope.clone(), id },
                Recalled { seq: row.seq, sha256: Some(origin.sha256.clone()) },
            ),
            None => {
                (RequestKey::Legacy { actor: row.actor.clone(), id }, Recalled { seq: row.seq, sha256: None })
            }
        })
    }
}

/// The moves on the record in SAN and UCI, kept up to date incrementally:
/// writing a whole game's notation for every answer would cost time
/// proportional to its length on every move.
///
/// The lists are shared (`Arc`) with the views handed out: the views of
/// one position (the stored read model, the answer) cost no copy of the
/// notation, and a move appends in place once they are gone (a view still
/// held, by a slow watcher say, costs one copy).
#[derive(Default)]
struct Notation {
    moves: Vec<arbiter_chess::Move>,
    san: Arc<Vec<String>>,
    uci: Arc<Vec<String>>,
}

impl Notation {
    fn read(&mut self, record: &arbiter_chess::GameRecord) -> (Arc<Vec<String>>, Arc<Vec<String>>) {
        let moves = record.moves();
        // Keep the common prefix (a reinstated position or a retracted
        // illegal move shortens the record), then write the rest.
        let common = self.moves.iter().zip(moves).take_while(|(a, b)| a == b).count();
        if common < self.moves.len() || common < moves.len() {
            let (san, uci) = (Arc::make_mut(&mut self.san), Arc::make_mut(&mut self.uci));
            self.moves.truncate(common);
            san.truncate(common);
            uci.truncate(common);
            for (i, &m) in moves.iter().enumerate().skip(common) {
                let position = &record.positions()[i];
                san.push(position.san(m));
                uci.push(position.uci(m).to_string());
                self.moves.push(m);
            }
        }
        (Arc::clone(&self.san), Arc::clone(&self.uci))
    }
}

/// Loads a game from storage and starts its table.
///
/// # Errors
/// [`ApiError::NotFound`], [`ApiError::Unavailable`], or
/// [`ApiError::Internal`] if the log no longer replays.
///
/// With `timers`, the game is taken out of them (its table runs its timer
/// from now on) and, in play but left alone, is put back in them when its
/// table stops (see [`IDLE_IN_PLAY`]); without, a game in play stays
/// loaded.
pub async fn open(
    store: Storage,
    id: &str,
    outages: Outages,
    timers: Option<Arc<Timers>>,
    owner: Owner,
) -> Result<TableHandle, ApiError> {
    // Slots are allocated with the channel, for every loaded table; a
    // watcher that falls further behind reads the rest from the log.
    let (events, _) = broadcast::channel(WATCH_BACKLOG);
    let mut table = Table::load(store, id, events.clone()).await?;
    let owned = owner == Owner::Here;
    if owned && let Some(timers) = &timers {
        timers.disarm(id);
    }
    table.timers = timers;
    let runner: Runner = Arc::new(std::sync::RwLock::new(owner));
    table.runner = Arc::clone(&runner);
    let now = wall_ms();
    let last_event = table.row.updated_wall_ms;
    let outage_ms = outages.uncharged_ms(last_event, now);
    table.offset += (now - last_event - outage_ms).max(0);
    let (tx, rx) = mpsc::channel(64);
    // The owner records the resumption.
    let running = owned
        && outages.crossed(last_event)
        && table.game.is_started()
        && !table.game.is_over()
        && !table.game.clock().is_paused();
    tokio::spawn(async move {
        if running && let Err(e) = table.record_system(Event::ServiceResumed { outage_ms }, "server").await {
            tracing::warn!(game = %table.row.id, error = %e, "could not record the service outage");
        }
        if !table.view_stored {
            table.put_view().await;
        }
        table.run(rx).await;
    });
    Ok(TableHandle { tx, events, runner })
}

impl Table {
    async fn load(
        store: Storage,
        id: &str,
        events: broadcast::Sender<Arc<Recorded>>,
    ) -> Result<Table, ApiError> {
        let row = store.game(id).await?.ok_or_else(|| ApiError::NotFound(format!("games/{id}")))?;
        let spec = event_log::decode_spec(row.spec_format, &row.spec_json)
            .map_err(|e| ApiError::stored(format!("games/{id}: the specification"), e))?;
        let mut table = Table {
            store,
            game: Game::new(spec.regulations.clone()).map_err(|e| {
                ApiError::Internal(format!("games/{id}: stored regulations no longer valid: {e}"))
            })?,
            row,
            spec: Arc::new(spec),
            last_seq: 0,
            offset: 0,
            requests: HashMap::new(),
            events,
            dirty: false,
            retry_deadline_at: None,
            notation: Notation::default(),
            loaded_finished: false,
            last_act: None,
            view_stored: false,
            last_event_at: 0,
            timers: None,
            runner: Arc::new(std::sync::RwLock::new(Owner::Here)),
        };
        table.replay().await?;
        table.loaded_finished = table.closed();
        // The timeline continues from the last recorded instant.
        let last_at = table.last_at();
        table.offset = last_at - mono_ms();
        Ok(table)
    }

    /// Rebuilds the game from its log.
    async fn replay(&mut self) -> Result<(), ApiError> {
        self.replay_through(i64::MAX).await
    }

    /// Rebuilds the game from its log up to event `last` included.
    async fn replay_through(&mut self, last: i64) -> Result<(), ApiError> {
        let id = self.row.id.clone();
        if let Some(row) = self.store.game(&id).await? {
            // The stored read model is not kept: the table makes its own.
            self.view_stored = row.view.is_some();
            self.row = GameRow { view: None, ..row };
        }
        let mut game = Game::new(self.spec.regulations.clone()).map_err(|e| {
            ApiError::Internal(format!("games/{id}: stored regulations no longer valid: {e}"))
        })?;
        let mut requests = HashMap::new();
        let mut last_seq = 0;
        let mut last_event_at = 0;
        let mut pages = EventPages::new(&self.store, &id, 0, REPLAY_PAGE);
        'pages: while let Some(page) = pages.next().await? {
            for ev in page {
                if ev.seq > last {
                    break 'pages;
                }
                let event = event_log::decode_event(ev.format, &ev.event_json)
                    .map_err(|e| ApiError::stored(format!("games/{id}: event {}", ev.seq), e))?;
                game.apply(&event, ev.at_ms).map_err(|r| {
                    ApiError::Internal(format!("games/{id}: event {} no longer applies: {r}", ev.seq))
                })?;
                if let Some((key, recalled)) = RequestKey::of(&ev) {
                    requests.insert(key, recalled);
                }
                last_seq = ev.seq;
                last_event_at = ev.at_ms;
            }
        }
        self.game = game;
        self.last_event_at = last_event_at;
        self.requests = requests;
        self.last_seq = last_seq;
        self.dirty = false;
        Ok(())
    }

    /// The instant of the last event of the log (0 before any). Not the
    /// clocks' last reading: an event that does not touch the clocks (a
    /// `ServiceResumed`, an offer) comes later on the timeline, and a table
    /// loaded after it that went back to the clocks' instant would refuse
    /// every act as earlier than that event, and give the player on move
    /// the time between the two.
    fn last_at(&self) -> i64 {
        self.game.clock().last_event_at().map_or(0, |t| t.0).max(self.last_event_at).max(0)
    }

    /// Now, on the game's timeline (never before the last event).
    fn now_at(&self) -> i64 {
        (self.offset + mono_ms()).max(self.last_at())
    }

    /// Whether this table runs the game (else another replica's does).
    fn owned(&self) -> bool {
        matches!(runner_of(&self.runner), Owner::Here)
    }

    /// The refusal of an act on a game another replica runs.
    fn moved(&self) -> ApiError {
        let owner = match runner_of(&self.runner) {
            Owner::Elsewhere { replica, .. } => Some(replica),
            Owner::Here => None,
        };
        ApiError::Moved { game: self.row.id.clone(), owner }
    }

    /// When the table must wake next (never for a game another replica
    /// runs: its owner keeps the time).
    fn wake_at(&self) -> Option<Instant> {
        if !self.owned() {
            return None;
        }
        let deadline = self.game.next_deadline()?;
        let due = epoch() + Duration::from_millis(u64::try_from(deadline - self.offset).unwrap_or(0));
        Some(match self.retry_deadline_at {
            Some(retry) => due.max(retry),
            None => due,
        })
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        loop {
            let wake = self.wake_at();
            let finished = self.closed();
            let pending = !self.game.is_started() && !finished;
            let (idle, may_stop) = if pending {
                (IDLE_PENDING, true)
            } else if self.loaded_finished
                || (finished && self.last_act.is_none_or(|at| at.elapsed() > IDLE_FINISHED))
            {
                // Nobody acted on it lately (a game put away and flagged by
                // its timer, say): its reads come from the index.
                (IDLE_LOADED_FINISHED, true)
            } else if finished {
                (IDLE_FINISHED, true)
            } else {
                let unmoved = self.game.moves_completed(Color::White) == 0
                    && self.game.moves_completed(Color::Black) == 0;
                (if unmoved { IDLE_UNMOVED } else { IDLE_IN_PLAY }, self.may_park(wake))
            };
            tokio::select! {
                biased;
                command = rx.recv() => match command {
                    Some(command) => self.handle(command).await,
                    None => break,
                },
                () = sleep_until_opt(wake) => self.on_deadline().await,
                () = tokio::time::sleep(idle), if may_stop => {
                    // A watcher (of a game in play, or waiting for a pending
                    // game to start) keeps its table (a new one subscribes
                    // before its first read, which wakes this loop).
                    if self.events.receiver_count() > 0 {
                        continue;
                    }
                    // Commands sent before the close are still served; later
                    // senders see the table closed and the hall loads the
                    // game again.
                    rx.close();
                    while let Some(command) = rx.recv().await {
                        self.handle(command).await;
                    }
                    self.park();
                    break;
                }
            }
        }
        // Readers of a game whose table stopped read its row.
        if !self.view_stored && self.owned() {
            self.put_view().await;
        }
    }

    /// Whether the table of a game in play may be put away: with somewhere
    /// to arm its deadline, nothing to rebuild, and no deadline near.
    fn may_park(&self, wake: Option<Instant>) -> bool {
        (self.timers.is_some() || !self.owned())
            && !self.dirty
            && self.retry_deadline_at.is_none()
            && wake.is_none_or(|at| at > Instant::now() + PARK_MARGIN)
    }

    /// Arms the game's next deadline in the hall's timers as the table
    /// stops (after its channel closed: a timer that fired now would find
    /// the table closed and load the game again, never a table about to
    /// stop).
    fn park(&self) {
        let Some(timers) = &self.timers else { return };
        if self.closed() || !self.owned() {
            return;
        }
        if let Some(deadline_wall_ms) = self.deadline_wall_ms(self.now_at(), wall_ms()) {
            timers.arm(&self.row.id, deadline_wall_ms);
        }
        metrics::counter!("arbiter_tables_parked_total").increment(1);
    }

    /// The game's next deadline as a wall-clock instant, given that the
    /// game's instant `at` is the wall-clock instant `at_wall_ms`.
    fn deadline_wall_ms(&self, at: i64, at_wall_ms: i64) -> Option<i64> {
        let deadline = self.game.next_deadline()?;
        Some(at_wall_ms + (deadline - at).max(0))
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Act(command) => {
                let ActCommand { act, actor, request, expected_seq, reply } = *command;
                self.last_act = Some(Instant::now());
                let result = self.act(act, actor, request, expected_seq).await;
                let _ = reply.send(result);
            }
            Command::Read { reply } => {
                let result = match self.ensure_consistent().await {
                    Ok(()) => Ok(self.snapshot()),
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Command::Own { reply } => {
                let result = self.take_over().await;
                let _ = reply.send(result);
            }
            Command::CatchUp { seq } => {
                if seq > self.last_seq
                    && !self.dirty
                    && let Err(e) = self.catch_up().await
                {
                    tracing::warn!(game = %self.row.id, error = %e, "cannot catch up with the log");
                }
            }
        }
    }

    /// This replica runs the game from now on: the log as the previous
    /// owner left it, then the timers here.
    async fn take_over(&mut self) -> Result<(), ApiError> {
        if self.dirty {
            self.replay().await?;
        } else {
            self.catch_up().await?;
        }
        if let Some(timers) = &self.timers {
            timers.disarm(&self.row.id);
        }
        set_runner(&self.runner, Owner::Here);
        Ok(())
    }

    async fn ensure_consistent(&mut self) -> Result<(), ApiError> {
        if self.dirty {
            self.replay().await?;
        }
        Ok(())
    }

    async fn on_deadline(&mut self) {
        let Some(deadline) = self.game.next_deadline() else { return };
        if let Err(e) = self.ensure_consistent().await {
            tracing::warn!(game = %self.row.id, error = %e, "cannot rebuild the game for its deadline");
            self.retry_deadline_at = Some(Instant::now() + STORE_RETRY);
            return;
        }
        let at = self.now_at();
        if at < deadline {
            return;
        }
        match self.record_system(Event::Tick, "timer").await {
            Ok(Some(_)) => {
                self.retry_deadline_at = None;
                // Measured once the ruling is durably recorded.
                let late_ms = self.offset + mono_ms() - deadline;
                metrics::histogram!("arbiter_deadline_lateness_seconds").record(late_ms as f64 / 1000.0);
            }
            Ok(None) => self.retry_deadline_at = None,
            Err(e) => {
                tracing::warn!(game = %self.row.id, error = %e, "could not record a ruling at the deadline");
                self.retry_deadline_at = Some(Instant::now() + STORE_RETRY);
            }
        }
    }

    /// Applies an event of the service itself (a deadline, an outage);
    /// nothing is recorded when it produces no ruling.
    async fn record_system(
        &mut self,
        event: Event,
        actor: &'static str,
    ) -> Result<Option<LoggedEvent>, ApiError> {
        let at = self.now_at();
        let rulings = match self.game.apply(&event, at) {
            Ok(r) if r.is_empty() => return Ok(None),
            Ok(r) => r,
            Err(rejection) => return Err(ApiError::Rejected(rejection)),
        };
        self.record(&event, rulings, at, actor, None).await.map(Some)
    }

    async fn act(
        &mut self,
        act: Act,
        actor: &'static str,
        request: Option<Stamped>,
        expected_seq: Option<i64>,
    ) -> Result<Acted, ApiError> {
        if !self.owned() {
            return Err(self.moved());
        }
        self.ensure_consistent().await?;
        // A second attempt happens only when another writer (another replica)
        // appended to this game since this table last read it: the table
        // catches up from the log and judges the act again on the game as it
        // now stands.
        let mut attempts = 0;
        loop {
            attempts += 1;
            if let Some(stamped) = &request
                && let Some(seq) = self.recorded(stamped, actor)?
            {
                // A retry: the original answer, nothing changes.
                metrics::counter!("arbiter_idempotent_replays_total").increment(1);
                let row = self.store.events(&self.row.id, seq - 1, 1).await?.into_iter().next().ok_or_else(
                    || {
                        ApiError::Internal(format!(
                            "games/{}: event {seq} is missing from the log",
                            self.row.id
                        ))
                    },
                )?;
                return Ok(Acted { event: LoggedEvent::decode(&row)?, game: self.snapshot() });
            }
            if let Some(expected) = expected_seq
                && expected != self.last_seq
            {
                return Err(ApiError::Aborted {
                    reason: AbortReason::StaleSeq,
                    message: format!(
                        "expected_seq {expected} is stale: the game's last event is {}; read the game again",
                        self.last_seq
                    ),
                });
            }
            let judged = match self.event_for(act.clone()) {
                Ok(event) => {
                    let at = self.now_at();
                    self.game
                        .apply(&event, at)
                        .map(|rulings| (event, at, rulings))
                        .map_err(ApiError::Rejected)
                }
                Err(e) => Err(e),
            };
            let (event, at, rulings) = match judged {
                Ok(judged) => judged,
                Err(refusal @ (ApiError::Rejected(_) | ApiError::InvalidArgument(_))) => {
                    // A refusal is final only on the game as the log has
                    // it: on a shared database this table may not have
                    // heard of another replica's append yet (the player's
                    // previous move, say). Read the log; if it moved on,
                    // judge again. (A refused event leaves the game as it
                    // was: `Game::apply` promises it.)
                    let seen = self.last_seq;
                    if attempts < 3 {
                        self.catch_up().await?;
                    }
                    if self.last_seq != seen {
                        continue;
                    }
                    return Err(refusal);
                }
                Err(e) => return Err(e),
            };
            match self.record(&event, rulings, at, actor, request.clone()).await {
                Ok(event) => return Ok(Acted { event, game: self.snapshot() }),
                Err(ApiError::Aborted {
                    reason: AbortReason::ConcurrentUpdate | AbortReason::DuplicateRequest,
                    ..
                }) if attempts < 3 => {
                    // Nothing was written: put the game back as it was
                    // (from the log, rather than from a copy of the whole
                    // game taken before every act for this rare case), then
                    // read what the other writer recorded.
                    metrics::counter!("arbiter_append_conflicts_total").increment(1);
                    self.replay_through(self.last_seq).await?;
                    self.catch_up().await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Applies the events other writers appended since this table last read
    /// the log, and passes them on to watchers.
    async fn catch_up(&mut self) -> Result<(), ApiError> {
        let id = self.row.id.clone();
        let store = self.store.clone();
        let mut pages = EventPages::new(&store, &id, self.last_seq, REPLAY_PAGE);
        while let Some(page) = pages.next().await? {
            for row in page {
                let logged = LoggedEvent::decode(&row).inspect_err(|_| self.dirty = true)?;
                if let Err(r) = self.game.apply(&logged.event, row.at_ms) {
                    self.dirty = true;
                    return Err(ApiError::Internal(format!(
                        "games/{id}: event {} no longer applies: {r}",
                        row.seq
                    )));
                }
                self.last_seq = row.seq;
                self.last_event_at = row.at_ms;
                self.row.last_seq = row.seq;
                self.row.updated_wall_ms = row.wall_ms;
                if let Some((key, recalled)) = RequestKey::of(&row) {
                    self.requests.insert(key, recalled);
                }
                let _ = self.events.send(Arc::new(Recorded { event: logged, finished: self.closed() }));
            }
        }
        self.row.status = self.status();
        self.row.result = self.game.end().map(|end| api::game_result_text(end.result));
        Ok(())
    }

    /// The event the log recorded for this request, if it is a retry;
    /// `None` if the request id is new in its scope.
    ///
    /// # Errors
    /// [`ApiError::RequestIdReused`] if the scope recorded the id for a
    /// different request.
    fn recorded(&self, stamped: &Stamped, actor: &str) -> Result<Option<i64>, ApiError> {
        let scoped = RequestKey::Scoped { scope: stamped.origin.scope.clone(), id: stamped.id.clone() };
        let legacy = RequestKey::Legacy { actor: actor.to_owned(), id: stamped.id.clone() };
        let Some(recalled) = self.requests.get(&scoped).or_else(|| self.requests.get(&legacy)) else {
            return Ok(None);
        };
        match &recalled.sha256 {
            Some(sha256) if *sha256 != stamped.origin.sha256 => Err(ApiError::RequestIdReused(format!(
                "request id {} was already used by this caller in games/{} for a different request \
                 (event {}); a new request needs a new request id",
                crate::error::quote(&stamped.id),
                self.row.id,
                recalled.seq
            ))),
            _ => Ok(Some(recalled.seq)),
        }
    }

    /// Turns an act into a Laws event, reading moves against the board.
    fn event_for(&self, act: Act) -> Result<Event, ApiError> {
        let position = self.game.position();
        let online = self.spec.regulations.mode.is_online();
        match act {
            Act::Event(e) => Ok(e),
            Act::Move { color, text, premove, castle } => {
                // A premove is read against the position after the opponent's
                // move, which is not known yet: only UCI is accepted for it.
                let mv = if premove {
                    let mut mv = arbiter_laws::event::MoveInput::from_uci(text.trim()).map_err(|e| {
                        ApiError::field("move", format!("a premove must be written in UCI: {e}"))
                    })?;
                    mv.castle = castle;
                    mv
                } else {
                    api::parse_move("move", &text, position, color, castle)
                        .map_err(|v| ApiError::InvalidArgument(vec![v]))?
                };
                if online {
                    Ok(Event::SubmitMove { color, mv, premove, lag_ms: 0 })
                } else if premove {
                    Err(ApiError::field("premove", "premoves exist only in online and hybrid games"))
                } else {
                    Ok(Event::MakeMove { color, mv })
                }
            }
            Act::Claim { color, kind, intended } => {
                let intended = match intended {
                    Some(text) => Some(
                        api::parse_move("intended_move", &text, position, color, false)
                            .map_err(|v| ApiError::InvalidArgument(vec![v]))?,
                    ),
                    None => None,
                };
                Ok(Event::ClaimDraw { color, kind, intended })
            }
            Act::SimultaneousTouch { color, squares: [a, b] } => {
                let board = position.board();
                let (own, opponent) = if board.color_at(b) == Some(color) && board.color_at(a) != Some(color)
                {
                    (b, a)
                } else {
                    (a, b)
                };
                Ok(Event::SimultaneousTouch { color, own, opponent })
            }
        }
    }

    fn clock_snap(&self, at: i64) -> Clocks {
        let clock = self.game.clock();
        Clocks {
            white_ms: self.game.remaining_ms(Color::White, at),
            black_ms: self.game.remaining_ms(Color::Black, at),
            running: clock.running(),
            paused: clock.is_paused(),
            // The game's count, not the clock's: a game-ending move (mate,
            // stalemate) is completed without a press.
            white_moves: self.game.moves_completed(Color::White),
            black_moves: self.game.moves_completed(Color::Black),
        }
    }

    /// Nothing more will happen: the game is over, or was withdrawn before
    /// it started.
    fn closed(&self) -> bool {
        self.game.is_over() || self.game.withdrawal().is_some()
    }

    fn status(&self) -> GameStatus {
        if let Some(withdrawal) = self.game.withdrawal() {
            match withdrawal {
                arbiter_laws::event::Withdrawal::Cancelled => GameStatus::Cancelled,
                arbiter_laws::event::Withdrawal::Expired => GameStatus::Expired,
            }
        } else if self.game.is_over() {
            GameStatus::Finished
        } else if self.game.is_started() {
            GameStatus::InProgress
        } else {
            GameStatus::Pending
        }
    }

    /// Appends an applied event to the log, with the game's read model
    /// after it; on failure the in-memory state is marked for a rebuild from
    /// the log.
    async fn record(
        &mut self,
        event: &Event,
        rulings: Vec<Ruling>,
        at: i64,
        actor: &'static str,
        request: Option<Stamped>,
    ) -> Result<LoggedEvent, ApiError> {
        let aftermath = Aftermath { clocks: self.clock_snap(at), fen: self.game.position().fen(), rulings };
        let row = EventRow {
            game_id: self.row.id.clone(),
            seq: self.last_seq + 1,
            request_id: request.as_ref().map(|r| r.id.clone()),
            origin: request.as_ref().map(|r| r.origin.clone()),
            actor: actor.to_string(),
            at_ms: at,
            wall_ms: wall_ms(),
            format: event_log::FORMAT,
            event_json: event_log::encode_event(event),
            rulings_json: event_log::encode_aftermath(&aftermath),
        };
        let result = self.game.end().map(|end| api::game_result_text(end.result));
        let view = self.stores_view().then(|| {
            let view = self.view(at);
            StoredView { format: event_log::FORMAT, json: event_log::encode_view(&view) }
        });
        let deadline_wall_ms = self.deadline_wall_ms(at, row.wall_ms);
        let append = Append {
            game_id: self.row.id.clone(),
            expected_last_seq: self.last_seq,
            events: vec![row.clone()],
            status: self.status(),
            result: result.clone(),
            view,
            deadline_wall_ms,
        };
        let append_view_stored = append.view.is_some();
        if let Err(e) = self.store.append(append).await {
            self.dirty = true;
            if let StoreError::Moved { owner, .. } = &e {
                // Fenced: another replica took the game over (this
                // replica's lease ran out). This table follows from now on.
                set_runner(
                    &self.runner,
                    Owner::Elsewhere { replica: owner.clone().unwrap_or_default(), address: String::new() },
                );
                metrics::counter!("arbiter_appends_fenced_total").increment(1);
            } else {
                metrics::counter!("arbiter_append_failures_total").increment(1);
            }
            return Err(e.into());
        }
        self.last_seq = row.seq;
        self.last_event_at = at;
        self.view_stored = append_view_stored;
        self.row.last_seq = row.seq;
        self.row.status = self.status();
        self.row.result = result;
        self.row.updated_wall_ms = row.wall_ms;
        if let Some((key, recalled)) = RequestKey::of(&row) {
            self.requests.insert(key, recalled);
        }
        for r in &aftermath.rulings {
            metrics::counter!("arbiter_rulings_total", "rule" => r.rule.as_str()).increment(1);
            if let Decision::GameOver(end) = &r.decision
                && matches!(event, Event::Tick)
                && end.cause == EndCause::Flag
            {
                metrics::counter!("arbiter_flags_total").increment(1);
            }
        }
        let logged = LoggedEvent::new(&row, event.clone(), aftermath);
        let _ = self.events.send(Arc::new(Recorded { event: logged.clone(), finished: self.closed() }));
        Ok(logged)
    }

    /// Whether an append stores the game's read model in the games index.
    ///
    /// The read model holds the whole record, so writing it costs time and
    /// disk in proportion to the game's length, on every act. A game in
    /// play on an embedded database is only ever read through its table
    /// while it is loaded (no other process reads that index), so its
    /// appends leave the read model out (clearing the stale one) and the
    /// table stores it once, when it stops ([`Table::put_view`]); a row
    /// left without one by a crash is read from its log, and given one by
    /// the start-up's [`crate::hall::Hall::rebuild_views`]. Every other
    /// append stores it: a game not in play is read from its row once its
    /// table stops, and on a shared database the other replicas list the
    /// games in play from their rows.
    fn stores_view(&self) -> bool {
        self.store.is_shared() || self.status() != GameStatus::InProgress
    }

    /// Stores the read model of the game as the log has it, for a game
    /// whose row has none: one of a release before read models, or one in
    /// play whose appends left it out (see [`Table::stores_view`]). A
    /// failure only means the next load tries again.
    async fn put_view(&mut self) {
        if self.dirty {
            return;
        }
        let view = self.view(self.last_event_at);
        let stored = StoredView { format: event_log::FORMAT, json: event_log::encode_view(&view) };
        match self.store.put_view(&self.row.id, self.last_seq, &stored).await {
            Ok(()) => self.view_stored = true,
            Err(e) => {
                tracing::warn!(game = %self.row.id, error = %e, "could not store the game's read model")
            }
        }
    }

    /// The read model of the game as it stands, clocks read at `at`.
    fn view(&mut self, at: i64) -> GameView {
        let clocks = self.clock_snap(at);
        let game = &self.game;
        let position = game.position();
        let (moves_san, moves_uci) = self.notation.read(game.record());
        GameView {
            end: game.end().cloned(),
            fen: position.fen(),
            turn: position.turn(),
            moves_san,
            moves_uci,
            clocks,
            draw_offer: game.draw_offer().map(|o| (o.by, u32::try_from(o.ply).unwrap_or(u32::MAX))),
            obligation: game.obligation().map(|o| ObligationView::new(&o, position)),
            open_questions: game
                .open_questions()
                .iter()
                .map(|q| QuestionView { id: q.id, text: q.text.clone(), default: q.default.clone() })
                .collect(),
            white_illegal_moves: game.illegal_move_count(Color::White),
            black_illegal_moves: game.illegal_move_count(Color::Black),
        }
    }

    /// The game as it stands now, clocks read now.
    fn snapshot(&mut self) -> GameReading {
        let at = self.now_at();
        GameReading {
            id: self.row.id.clone(),
            spec: Arc::clone(&self.spec),
            status: self.status(),
            view: self.view(at),
            last_seq: self.last_seq,
            created_wall_ms: self.row.created_wall_ms,
            updated_wall_ms: self.row.updated_wall_ms,
            clocks_read_wall_ms: wall_ms(),
        }
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use arbiter_chess::{GameRecord, Position};

    use super::*;

    fn play(record: &mut GameRecord, uci: &str) {
        let m = record.position().parse_uci(uci).unwrap();
        record.push(m).unwrap();
    }

    #[test]
    fn outages_are_not_charged_however_many_a_game_crossed() {
        // Down from 1,000 to 1,500 and from 3,000 to 3,200.
        let outages = Outages::new([(1_000, 1_500), (3_000, 3_200)]);
        // A game whose last event was at 500, loaded at 4,000: both.
        assert_eq!(outages.uncharged_ms(500, 4_000), 700);
        assert!(outages.crossed(500));
        // Loaded at 3,100, during the second (the time up to now only).
        assert_eq!(outages.uncharged_ms(500, 3_100), 600);
        // Its last event after the first: the second only.
        assert_eq!(outages.uncharged_ms(2_000, 4_000), 200);
        // After both: served continuously.
        assert_eq!(outages.uncharged_ms(3_200, 4_000), 0);
        assert!(!outages.crossed(3_200));
        // No heartbeat ever recorded (0): the time since the last event.
        let unknown = Outages::new([(0, 2_000)]);
        assert_eq!(unknown.uncharged_ms(1_200, 2_500), 800);
        assert_eq!(Outages::none().uncharged_ms(0, 9_000), 0);
        assert!(!Outages::none().crossed(0));
    }

    #[test]
    fn notation_is_shared_appended_and_cut_back() {
        let mut record = GameRecord::new(Position::startpos());
        let mut notation = Notation::default();
        play(&mut record, "e2e4");
        play(&mut record, "e7e5");
        let (san, uci) = notation.read(&record);
        assert_eq!(*san, ["e4", "e5"]);
        assert_eq!(*uci, ["e2e4", "e7e5"]);
        // The same position again: the very same lists, no copy.
        let (again, _) = notation.read(&record);
        assert!(Arc::ptr_eq(&san, &again));
        drop(again);
        // A move while a view still holds the lists: the view keeps what it
        // showed, the new read has the move.
        play(&mut record, "g1f3");
        let (after, _) = notation.read(&record);
        assert_eq!(*san, ["e4", "e5"]);
        assert_eq!(*after, ["e4", "e5", "Nf3"]);
        // Views gone: the next move appends in place.
        drop((san, uci, after));
        play(&mut record, "b8c6");
        let before = Arc::as_ptr(&notation.san);
        let (san, _) = notation.read(&record);
        assert_eq!(Arc::as_ptr(&san), before, "appended in place");
        assert_eq!(*san, ["e4", "e5", "Nf3", "Nc6"]);
        drop(san);
        // A reinstated position cuts the record back and replays from there.
        record.pop();
        record.pop();
        play(&mut record, "b1c3");
        let (san, uci) = notation.read(&record);
        assert_eq!(*san, ["e4", "e5", "Nc3"]);
        assert_eq!(*uci, ["e2e4", "e7e5", "b1c3"]);
    }
}
