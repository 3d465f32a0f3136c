//! Shared load for the reliability scenarios, and the ledger of every
//! event the service acknowledged.
//!
//! Each player task drives one online game at a time with random legal
//! moves through the players' own tokens, against whichever daemon the
//! shared [`Endpoints`] list names at that moment, so a scenario can point
//! the players at a restarted daemon or at a surviving replica. Every
//! mutation carries a request id; when the daemon is unreachable the player
//! sends the *same* request again (same request id) until it is answered,
//! so an act the service committed just before it died is answered by the
//! original event, never recorded twice. Every answer is written once to
//! the [`Ledger`], which [`verify`] checks against the durable event log at
//! the end.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arbiter_chess::{Move, Position};
use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use tokio::sync::mpsc;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::{ARBITER_TOKEN, Bearer, Client, new_game, regulations, v1 as pb};

// ---------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------

/// The daemons the players talk to now. A scenario replaces the list when
/// a daemon restarts on a new port or a replica dies.
#[derive(Debug)]
pub struct Endpoints {
    channels: RwLock<Vec<Channel>>,
}

impl Endpoints {
    /// Channels to `urls` (connected lazily, so a dead daemon shows up as
    /// UNAVAILABLE on use rather than as an error here).
    pub fn new(urls: &[String]) -> Arc<Endpoints> {
        let endpoints = Arc::new(Endpoints { channels: RwLock::new(Vec::new()) });
        endpoints.set(urls);
        endpoints
    }

    /// Points every later request at `urls`.
    pub fn set(&self, urls: &[String]) {
        let channels = urls
            .iter()
            .map(|u| Channel::from_shared(u.clone()).expect("daemon url").connect_lazy())
            .collect();
        *self.channels.write().unwrap_or_else(PoisonError::into_inner) = channels;
    }

    /// The channel for player `home`: players are spread over the list.
    pub fn pick(&self, home: usize) -> Option<Channel> {
        let channels = self.channels.read().unwrap_or_else(PoisonError::into_inner);
        if channels.is_empty() { None } else { Some(channels[home % channels.len()].clone()) }
    }
}

fn client(channel: Channel, token: &str) -> Client {
    ArbiterServiceClient::with_interceptor(channel, Bearer::new(token))
}

/// Whether `status` says the request may not have reached a live daemon
/// (the daemon is down, the connection broke), as opposed to an answer of
/// the service: the client's rule ([`arbiter_client::is_transient_status`]:
/// every status the service itself produces carries its ErrorInfo, a
/// transport failure does not), and also a DEADLINE_EXCEEDED without that
/// ErrorInfo. The client does not resend on its own deadline, which would
/// only wait as long again; the scenarios here kill and stall daemons in
/// the middle of calls, so a call that ran out of time may have died with
/// its daemon, and its request id makes the resend safe.
pub fn is_transient(status: &Status) -> bool {
    arbiter_client::is_transient_status(status)
        || (status.code() == Code::DeadlineExceeded && status.get_details_error_info().is_none())
}

// ---------------------------------------------------------------------------
// The ledger
// ---------------------------------------------------------------------------

/// One acknowledged event.
#[derive(Clone, Debug)]
pub struct Ack {
    /// `games/{id}`.
    pub game: String,
    pub seq: i64,
    pub request_id: String,
    /// The event's act (`MAKE_MOVE`, `RESIGN_GAME`, `DECLARE_RESULT`).
    pub act: String,
    /// The move sent, in UCI, for a MakeMove.
    pub mv: Option<String>,
    /// The clocks the answer carried.
    pub clocks: Option<pb::ClockReading>,
    /// When the answer arrived.
    pub at: Instant,
    pub wall: SystemTime,
    /// From the first attempt to the answer, retries included.
    pub latency: Duration,
    /// How many times the request was sent again.
    pub retries: u32,
}

/// Every acknowledged event, and every game the players created.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub acks: Vec<Ack>,
    pub games: Vec<String>,
}

// ---------------------------------------------------------------------------
// The load
// ---------------------------------------------------------------------------

/// What the players do.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Games played at the same time (one player task each).
    pub games: usize,
    /// The time control of every game, in the human form whose base unit
    /// is the minute: `15+10` is 15 minutes plus 10 s a move.
    pub time_control: String,
    /// Each game moves once per interval; `None` for a closed loop (the
    /// next move as soon as the last one is answered).
    pub interval: Option<Duration>,
    /// After this many plies a game is ended (a resignation or an
    /// arbiter's declared result, alternately) and a new one created.
    /// Games that end by themselves are always replaced.
    pub max_plies: Option<u32>,
    /// How long one request may be retried before it counts as a failure.
    pub retry_deadline: Duration,
    /// Seed of the move choice.
    pub seed: u64,
    /// Each move goes to the next endpoint after the previous move's
    /// (replicas: most acts then reach a replica that does not run the
    /// game and forwards them); otherwise every request of a game goes to
    /// its player's endpoint.
    pub spread: bool,
}

#[derive(Debug)]
struct Shared {
    endpoints: Arc<Endpoints>,
    stop: AtomicBool,
    ledger: Mutex<Ledger>,
    failures: Mutex<Vec<String>>,
    retried: AtomicU64,
    finished: AtomicU64,
    run: u64,
    retry_deadline_ms: AtomicU64,
}

impl Shared {
    fn fail(&self, message: String) {
        self.failures.lock().unwrap_or_else(PoisonError::into_inner).push(message);
    }

    fn acknowledge(&self, ack: Ack) {
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner).acks.push(ack);
    }

    /// Sends a request built by `send` on the current endpoint of `home`
    /// until an answer comes (the same request each time: the caller builds
    /// it with the same request id). Returns the answer, the number of
    /// retries and when the first attempt started.
    async fn call<T, F, Fut>(&self, home: usize, what: &str, mut send: F) -> Result<(T, u32, Instant), String>
    where
        F: FnMut(Channel) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let first = Instant::now();
        let deadline = first + RETRY_FLOOR.max(self.retry_deadline());
        let mut retries = 0;
        loop {
            let status = match self.endpoints.pick(home) {
                None => Status::unavailable("no endpoint"),
                Some(channel) => match tokio::time::timeout(ATTEMPT_TIMEOUT, send(channel)).await {
                    Ok(Ok(answer)) => return Ok((answer.into_inner(), retries, first)),
                    Ok(Err(status)) => status,
                    Err(_) => Status::deadline_exceeded("no answer within the attempt timeout"),
                },
            };
            if !is_transient(&status) {
                return Err(format!("{what}: {:?}: {}", status.code(), status.message()));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{what}: still unanswered after {:.1} s and {retries} retries: {:?} {}",
                    first.elapsed().as_secs_f64(),
                    status.code(),
                    status.message()
                ));
            }
            retries += 1;
            self.retried.fetch_add(1, Ordering::Relaxed);
            // A short pause between attempts: the daemon is down or coming
            // back, and a tight loop would only burn the CPU it needs.
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }

    fn retry_deadline(&self) -> Duration {
        Duration::from_millis(self.retry_deadline_ms.load(Ordering::Relaxed))
    }
}

/// The least time a request is retried (the options may give more).
const RETRY_FLOOR: Duration = Duration::from_secs(1);
/// How long one attempt may take before it is abandoned and sent again.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause between two attempts.
const RETRY_PAUSE: Duration = Duration::from_millis(40);

/// Running players.
#[derive(Debug)]
pub struct Load {
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<Vec<u32>>>,
}

/// What the players did.
#[derive(Debug, Default)]
pub struct LoadOutcome {
    pub ledger: Ledger,
    /// Failures seen by the players (a request never answered, an error).
    pub failures: Vec<String>,
    /// Latency of every acknowledged request, in microseconds, sorted.
    pub latencies_us: Vec<u32>,
    /// Requests sent again after a transport failure.
    pub retried: u64,
    /// Games that ended (by the rules, a resignation or a declaration).
    pub finished: u64,
}

impl Load {
    /// Starts `options.games` players against `endpoints` and returns once
    /// each has created and started its first game.
    pub async fn start(options: &LoadOptions, endpoints: Arc<Endpoints>) -> Load {
        let run =
            SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64) ^ options.seed;
        let shared = Arc::new(Shared {
            endpoints,
            stop: AtomicBool::new(false),
            ledger: Mutex::new(Ledger::default()),
            failures: Mutex::new(Vec::new()),
            retried: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            run,
            retry_deadline_ms: AtomicU64::new(options.retry_deadline.as_millis() as u64),
        });
        let (ready_tx, mut ready_rx) = mpsc::channel::<()>(options.games.max(1));
        let phase = tokio::time::Instant::now() + Duration::from_millis(100);
        let mut tasks = Vec::with_capacity(options.games);
        for home in 0..options.games {
            let player = Player {
                home,
                shared: shared.clone(),
                options: options.clone(),
                rng: Rng::new(options.seed ^ (home as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                counter: 0,
            };
            // Paced players are spread evenly over the interval.
            let first_due = options.interval.map(|iv| phase + iv.mul_f64(home as f64 / options.games as f64));
            let ready = ready_tx.clone();
            tasks.push(tokio::spawn(player.play(first_due, ready)));
        }
        drop(ready_tx);
        let mut ready = 0;
        while ready < options.games && ready_rx.recv().await.is_some() {
            ready += 1;
        }
        Load { shared, tasks }
    }

    /// Acknowledged events so far.
    pub fn acknowledged(&self) -> usize {
        self.shared.ledger.lock().unwrap_or_else(PoisonError::into_inner).acks.len()
    }

    /// Changes how long a request is retried from now on (a scenario that
    /// knows the service is down for long raises it).
    pub fn set_retry_deadline(&self, deadline: Duration) {
        self.shared.retry_deadline_ms.store(deadline.as_millis() as u64, Ordering::Relaxed);
    }

    /// Stops the players after their current request is answered, and
    /// returns what they did.
    pub async fn stop(self) -> LoadOutcome {
        self.shared.stop.store(true, Ordering::Relaxed);
        let mut latencies_us = Vec::new();
        let mut failures = Vec::new();
        for task in self.tasks {
            match task.await {
                Ok(l) => latencies_us.extend(l),
                Err(e) => failures.push(format!("a player task failed: {e}")),
            }
        }
        latencies_us.sort_unstable();
        failures.extend(std::mem::take(
            &mut *self.shared.failures.lock().unwrap_or_else(PoisonError::into_inner),
        ));
        LoadOutcome {
            ledger: std::mem::take(&mut *self.shared.ledger.lock().unwrap_or_else(PoisonError::into_inner)),
            failures,
            latencies_us,
            retried: self.shared.retried.load(Ordering::Relaxed),
            finished: self.shared.finished.load(Ordering::Relaxed),
        }
    }
}

/// A small deterministic generator (xorshift64*), enough to pick moves.
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; zero is replaced).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x2545_f491_4f6c_dd1d } else { seed })
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A duration between `low` and `high`.
    pub fn between(&mut self, low: Duration, high: Duration) -> Duration {
        let span = high.saturating_sub(low).as_millis() as u64;
        low + Duration::from_millis(self.below(span + 1))
    }
}

/// A game being played: its name and its players' tokens.
struct Seat {
    name: String,
    tokens: [String; 2],
    fen: String,
    plies: u32,
}

struct Player {
    home: usize,
    shared: Arc<Shared>,
    options: LoadOptions,
    rng: Rng,
    counter: u64,
}

impl Player {
    fn request_id(&mut self) -> String {
        self.counter += 1;
        format!("{:x}-p{}-{}", self.shared.run, self.home, self.counter)
    }

    async fn play(mut self, mut due: Option<tokio::time::Instant>, ready: mpsc::Sender<()>) -> Vec<u32> {
        let mut latencies = Vec::new();
        let seat = self.create().await;
        let _ = ready.send(()).await;
        drop(ready);
        let Some(mut seat) = seat else { return latencies };
        while !self.shared.stop.load(Ordering::Relaxed) {
            if let (Some(d), Some(iv)) = (due, self.options.interval) {
                tokio::time::sleep_until(d).await;
                due = Some(d + iv);
                if self.shared.stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            let position = match Position::from_fen(&seat.fen) {
                Ok(p) => p,
                Err(e) => {
                    self.shared
                        .fail(format!("{}: the service's FEN {:?} does not read: {e}", seat.name, seat.fen));
                    return latencies;
                }
            };
            let moves = position.legal_moves();
            let over_by_plies = self.options.max_plies.is_some_and(|max| seat.plies >= max);
            let outcome = if moves.is_empty() {
                // The service should have ended the game; it said it did not.
                self.shared
                    .fail(format!("{}: no legal move in {} but the game is not over", seat.name, seat.fen));
                return latencies;
            } else if over_by_plies {
                self.end(&seat, position.turn()).await
            } else {
                let m = moves[self.rng.below(moves.len() as u64) as usize];
                self.make_move(&seat, &position, m).await
            };
            match outcome {
                Ok((ack, game)) => {
                    latencies.push(u32::try_from(ack.latency.as_micros()).unwrap_or(u32::MAX));
                    self.shared.acknowledge(ack);
                    seat.plies += 1;
                    seat.fen = game.fen.clone();
                    if game.status == pb::GameStatus::Finished as i32 {
                        self.shared.finished.fetch_add(1, Ordering::Relaxed);
                        if self.shared.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        match self.create().await {
                            Some(next) => seat = next,
                            None => return latencies,
                        }
                    }
                }
                Err(e) => {
                    self.shared.fail(e);
                    return latencies;
                }
            }
        }
        latencies
    }

    /// Creates and starts a game (retried with the same request id).
    async fn create(&mut self) -> Option<Seat> {
        let request_id = self.request_id();
        let mut request = new_game(regulations(&self.options.time_control, pb::Mode::Online), true);
        request.request_id = request_id.clone();
        let answer = self
            .shared
            .call(self.home, "CreateGame", |channel| {
                let request = request.clone();
                async move { client(channel, ARBITER_TOKEN).create_game(request).await }
            })
            .await;
        let (created, retries, _) = match answer {
            Ok(a) => a,
            Err(e) => {
                self.shared.fail(e);
                return None;
            }
        };
        let Some(mut game) = created.game else {
            self.shared.fail(format!("CreateGame {request_id}: an answer without a game"));
            return None;
        };
        self.shared.ledger.lock().unwrap_or_else(PoisonError::into_inner).games.push(game.name.clone());
        if game.status == pb::GameStatus::Pending as i32 {
            // The original request both created and started the game; its
            // retry must answer the same, not a game left unstarted.
            self.shared.fail(format!(
                "CreateGame {request_id} (start=true) answered {} still PENDING after {retries} retries: the \
                 retry returned the created game without the start the original request asked for",
                game.name
            ));
            let start_id = self.request_id();
            let name = game.name.clone();
            let started = self
                .shared
                .call(self.home, "StartGame", |channel| {
                    let request = pb::StartGameRequest {
                        name: name.clone(),
                        request_id: start_id.clone(),
                        ..Default::default()
                    };
                    async move { client(channel, ARBITER_TOKEN).start_game(request).await }
                })
                .await;
            match started {
                Ok((s, _, _)) => game = s.game.unwrap_or(game),
                Err(e) => {
                    self.shared.fail(e);
                    return None;
                }
            }
        }
        Some(Seat {
            name: game.name,
            tokens: [created.white_token, created.black_token],
            fen: game.fen,
            plies: 0,
        })
    }

    async fn make_move(
        &mut self,
        seat: &Seat,
        position: &Position,
        m: Move,
    ) -> Result<(Ack, pb::Game), String> {
        let request_id = self.request_id();
        let uci = position.uci(m).to_string();
        let token = &seat.tokens[usize::from(position.turn() == arbiter_chess::Color::Black)];
        let request = pb::MakeMoveRequest {
            name: seat.name.clone(),
            r#move: uci.clone(),
            request_id: request_id.clone(),
            ..Default::default()
        };
        let what = format!("{} MakeMove {uci} ({request_id})", seat.name);
        let (answer, retries, first) = self
            .shared
            .call(
                if self.options.spread { self.home + seat.plies as usize } else { self.home },
                &what,
                |channel| {
                    let request = request.clone();
                    let token = token.clone();
                    async move { client(channel, &token).make_move(request).await }
                },
            )
            .await?;
        acknowledged(seat, &request_id, Some(uci), answer.event, answer.game, retries, first)
    }

    /// Ends the game: the side to move resigns, or the arbiter declares a
    /// draw, alternately.
    async fn end(&mut self, seat: &Seat, turn: arbiter_chess::Color) -> Result<(Ack, pb::Game), String> {
        let request_id = self.request_id();
        let name = seat.name.clone();
        if self.rng.below(2) == 0 {
            let token = seat.tokens[usize::from(turn == arbiter_chess::Color::Black)].clone();
            let what = format!("{name} ResignGame ({request_id})");
            let (answer, retries, first) = self
                .shared
                .call(self.home, &what, |channel| {
                    let request = pb::ResignGameRequest {
                        name: name.clone(),
                        request_id: request_id.clone(),
                        ..Default::default()
                    };
                    let token = token.clone();
                    async move { client(channel, &token).resign_game(request).await }
                })
                .await?;
            acknowledged(seat, &request_id, None, answer.event, answer.game, retries, first)
        } else {
            let what = format!("{name} DeclareResult ({request_id})");
            let (answer, retries, first) = self
                .shared
                .call(self.home, &what, |channel| {
                    let request = pb::DeclareResultRequest {
                        name: name.clone(),
                        result: pb::DeclaredResult::Draw as i32,
                        request_id: request_id.clone(),
                        ..Default::default()
                    };
                    async move { client(channel, ARBITER_TOKEN).declare_result(request).await }
                })
                .await?;
            acknowledged(seat, &request_id, None, answer.event, answer.game, retries, first)
        }
    }
}

/// The ledger entry of an answer, after checking that it is the answer to
/// this request.
fn acknowledged(
    seat: &Seat,
    request_id: &str,
    mv: Option<String>,
    event: Option<pb::GameEvent>,
    game: Option<pb::Game>,
    retries: u32,
    first: Instant,
) -> Result<(Ack, pb::Game), String> {
    let (Some(event), Some(game)) = (event, game) else {
        return Err(format!("{} {request_id}: an answer without its event or game", seat.name));
    };
    if event.request_id != request_id {
        return Err(format!(
            "{} {request_id}: answered with the event of another request ({:?}, seq {})",
            seat.name, event.request_id, event.seq
        ));
    }
    let ack = Ack {
        game: seat.name.clone(),
        seq: event.seq,
        request_id: request_id.to_string(),
        act: event.act,
        mv,
        clocks: event.clocks,
        at: Instant::now(),
        wall: SystemTime::now(),
        latency: first.elapsed(),
        retries,
    };
    Ok((ack, game))
}

// ---------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------

/// The ledger against the durable log.
#[derive(Debug, Default)]
pub struct Verification {
    pub failures: Vec<String>,
    pub games: usize,
    pub events: usize,
    pub acknowledged: usize,
    /// Acknowledged events missing from the log (must be 0).
    pub lost: usize,
    /// Request ids recorded more than once (must be 0).
    pub duplicated: usize,
    /// Every game's log, for the scenarios' own checks.
    pub logs: HashMap<String, Vec<pb::GameEvent>>,
}

/// At most this many failures are listed per kind, the rest are counted.
const MAX_LISTED: usize = 20;

/// Games checked at the same time: each check is a few sequential calls,
/// and an idle connection answers some of them only after ~40 ms (see the
/// report), so checking them one by one would take long.
const VERIFY_CONCURRENCY: usize = 16;

/// Checks the ledger against the service: for every game, the log has seqs
/// 1..n without gaps; every acknowledged (seq, request id) is there exactly
/// once with the same act and move; no request id appears twice; the moves
/// of the log replay legally to each event's FEN and to GetGame's; GetGame
/// and ExportPgn answer.
pub async fn verify(ledger: &Ledger, client: &mut Client) -> Verification {
    let mut v = Verification { acknowledged: ledger.acks.len(), ..Verification::default() };
    let mut by_game: HashMap<String, Vec<Ack>> = HashMap::new();
    for ack in &ledger.acks {
        by_game.entry(ack.game.clone()).or_default().push(ack.clone());
    }
    let mut names: Vec<String> = ledger.games.clone();
    names.extend(by_game.keys().cloned());
    names.sort_unstable();
    names.dedup();
    let mut failures = Vec::new();
    let mut checks = tokio::task::JoinSet::new();
    let mut pending = names.into_iter();
    loop {
        while checks.len() < VERIFY_CONCURRENCY
            && let Some(name) = pending.next()
        {
            let acks = by_game.remove(&name).unwrap_or_default();
            let client = client.clone();
            checks.spawn(async move { check_game(name, acks, client).await });
        }
        let Some(done) = checks.join_next().await else { break };
        match done {
            Ok(check) => {
                failures.extend(check.failures);
                v.lost += check.lost;
                v.duplicated += check.duplicated;
                if let Some(events) = check.events {
                    v.games += 1;
                    v.events += events.len();
                    v.logs.insert(check.name, events);
                }
            }
            Err(e) => failures.push(format!("a verification task failed: {e}")),
        }
    }
    let total = failures.len();
    v.failures = failures.into_iter().take(MAX_LISTED).collect();
    if total > MAX_LISTED {
        v.failures.push(format!("... and {} more verification failures", total - MAX_LISTED));
    }
    v
}

/// What [`check_game`] found.
struct GameCheck {
    name: String,
    events: Option<Vec<pb::GameEvent>>,
    lost: usize,
    duplicated: usize,
    failures: Vec<String>,
}

/// One game of [`verify`].
async fn check_game(name: String, acks: Vec<Ack>, mut client: Client) -> GameCheck {
    let mut check =
        GameCheck { name: name.clone(), events: None, lost: 0, duplicated: 0, failures: Vec::new() };
    let failures = &mut check.failures;
    // A read loads the game, which records its resumption if it crossed a
    // restart and was not loaded since (a game is loaded when used or when
    // its deadline nears): the log read next then holds it.
    let _ = client.get_game(pb::GetGameRequest { name: name.clone() }).await;
    let events = match crate::try_all_events(&mut client, &name).await {
        Ok(e) => e,
        Err(e) => {
            failures.push(format!("{name}: ListGameEvents: {e}"));
            return check;
        }
    };
    for (i, e) in events.iter().enumerate() {
        if e.seq != i as i64 + 1 {
            failures.push(format!("{name}: event #{} has seq {} (gap or disorder)", i + 1, e.seq));
            break;
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for e in events.iter().filter(|e| !e.request_id.is_empty()) {
        *seen.entry(e.request_id.as_str()).or_default() += 1;
    }
    for (rid, n) in &seen {
        if *n > 1 {
            check.duplicated += n - 1;
            failures.push(format!("{name}: request id {rid} recorded {n} times"));
        }
    }
    for ack in &acks {
        let event = usize::try_from(ack.seq - 1).ok().and_then(|i| events.get(i));
        match event {
            Some(e) if e.request_id == ack.request_id => {
                if e.act != ack.act {
                    failures.push(format!(
                        "{name} seq {}: act {} but {} was acknowledged",
                        ack.seq, e.act, ack.act
                    ));
                }
            }
            _ => {
                check.lost += 1;
                let elsewhere: Vec<i64> =
                    events.iter().filter(|e| e.request_id == ack.request_id).map(|e| e.seq).collect();
                failures.push(format!(
                    "{name}: acknowledged seq {} ({} {}, request {}) is not in the log (request found at seqs \
                     {elsewhere:?}; the log has {} events)",
                    ack.seq,
                    ack.act,
                    ack.mv.as_deref().unwrap_or(""),
                    ack.request_id,
                    events.len()
                ));
            }
        }
    }
    let ack_refs: Vec<&Ack> = acks.iter().collect();
    let replayed = replay(&name, &events, &ack_refs, failures);
    match client.get_game(pb::GetGameRequest { name: name.clone() }).await {
        Ok(r) => match r.into_inner().game {
            Some(game) => {
                if let Some(fen) = replayed
                    && game.fen != fen
                {
                    failures.push(format!("{name}: GetGame's FEN {} is not the replay's {fen}", game.fen));
                }
                if game.last_seq != events.len() as i64 {
                    failures.push(format!(
                        "{name}: GetGame's last_seq {} but the log has {} events",
                        game.last_seq,
                        events.len()
                    ));
                }
            }
            None => failures.push(format!("{name}: GetGame without a game")),
        },
        Err(e) => failures.push(format!("{name}: GetGame: {e}")),
    }
    match client.export_pgn(pb::ExportPgnRequest { name: name.clone() }).await {
        Ok(r) if !r.get_ref().pgn.is_empty() => {}
        Ok(_) => failures.push(format!("{name}: ExportPgn returned nothing")),
        Err(e) => failures.push(format!("{name}: ExportPgn: {e}")),
    }
    check.events = Some(events);
    check
}

/// Replays the moves of a log from the standard start; checks each against
/// the event's FEN and the acknowledged move at its seq. Returns the final
/// FEN, or `None` when the replay broke.
fn replay(name: &str, events: &[pb::GameEvent], acks: &[&Ack], failures: &mut Vec<String>) -> Option<String> {
    let sent: HashMap<i64, &str> = acks.iter().filter_map(|a| a.mv.as_deref().map(|m| (a.seq, m))).collect();
    let mut position = Position::startpos();
    for e in events {
        // Online, a move is submitted (it may also be queued as a premove,
        // which leaves the board as it was); over the board it is made.
        let moved = matches!(e.act.as_str(), "MAKE_MOVE" | "SUBMIT_MOVE") && e.fen != position.fen();
        if moved {
            let Some(m) = logged_move(&position, e) else {
                failures.push(format!(
                    "{name} seq {}: the logged move {:?} is not legal in {}",
                    e.seq,
                    e.details,
                    position.fen()
                ));
                return None;
            };
            if let Some(uci) = sent.get(&e.seq)
                && position.uci(m).to_string() != *uci
            {
                failures.push(format!(
                    "{name} seq {}: the log has {} but {uci} was acknowledged",
                    e.seq,
                    position.uci(m)
                ));
            }
            position = position.after(m);
        }
        if !e.fen.is_empty() && e.fen != position.fen() {
            failures.push(format!(
                "{name} seq {} ({} {:?}): event FEN {} but the replay gives {}",
                e.seq,
                e.act,
                e.details,
                e.fen,
                position.fen()
            ));
            return None;
        }
    }
    Some(position.fen())
}

/// The legal move a MAKE_MOVE event records (`mv.from`, `mv.to` and
/// `mv.promotion` in its details; a castling may name the rook's square
/// or the king's destination).
fn logged_move(position: &Position, event: &pb::GameEvent) -> Option<Move> {
    let from = event.details.get("mv.from")?;
    let to = event.details.get("mv.to")?;
    let promotion =
        event.details.get("mv.promotion").and_then(|p| p.chars().next()).map(|c| c.to_ascii_lowercase());
    // A knight is `n` in UCI, but its name starts with a `k`.
    let promotion = promotion.map(|c| if c == 'k' { 'n' } else { c });
    position.legal_moves().iter().copied().find(|&m| {
        let uci = position.uci(m).to_string();
        m.from().to_string() == *from
            && (m.to().to_string() == *to || uci.get(2..4) == Some(to.as_str()))
            && m.promotion_role().map(|r| r.char()) == promotion
    })
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

/// Starts `arbiterd` on `database_url` off the async threads (the start
/// blocks until the daemon prints its address).
pub async fn spawn_daemon(database_url: &str, log_path: &std::path::Path) -> crate::daemon::Daemon {
    let (url, log) = (database_url.to_string(), log_path.to_path_buf());
    tokio::task::spawn_blocking(move || crate::daemon::Daemon::spawn(&url, &log, &[]))
        .await
        .expect("arbiterd starts (its log is in the panic message)")
}

/// Polls the daemon's health check until it reports SERVING (it does once
/// its unfinished games are loaded); returns how long that took, or an
/// error after `limit`.
pub async fn wait_serving(daemon: &crate::daemon::Daemon, limit: Duration) -> Result<Duration, String> {
    let started = Instant::now();
    let mut health = tonic_health::pb::health_client::HealthClient::new(daemon.channel());
    loop {
        let answer = health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await;
        let last = match answer {
            Ok(r)
                if r.get_ref().status
                    == tonic_health::pb::health_check_response::ServingStatus::Serving as i32 =>
            {
                return Ok(started.elapsed());
            }
            Ok(r) => format!("status {}", r.get_ref().status),
            Err(e) => format!("{:?} {}", e.code(), e.message()),
        };
        if started.elapsed() > limit {
            return Err(format!("{} not serving after {limit:?}: {last}", daemon.url()));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Unix milliseconds of a protobuf timestamp.
pub fn ts_ms(t: Option<&prost_types::Timestamp>) -> Option<i64> {
    t.map(|t| t.seconds * 1000 + i64::from(t.nanos) / 1_000_000)
}

/// Unix milliseconds of a system time.
pub fn wall_ms(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The remaining time of `color` in a reading.
pub fn remaining(clocks: &pb::ClockReading, color: i32) -> i64 {
    if color == pb::Color::Black as i32 { clocks.black_remaining_ms } else { clocks.white_remaining_ms }
}

/// The `p` quantile (0..=1) of sorted values.
pub fn quantile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
