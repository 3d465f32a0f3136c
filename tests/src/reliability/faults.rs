//! Faults: storage faults through the service. The real `arbiterd` (a
//! child process, as in production) serves online games while its storage
//! fails:
//!
//! - database unreachable: PostgreSQL behind a TCP proxy in this process
//!   that closes every live connection and refuses new ones, then lets them
//!   through again (the shared PostgreSQL server itself is never touched);
//!   in the long form also stalled: connections stay open, no byte moves;
//! - disk full: SQLite on a small tmpfs this scenario mounts and fills.
//!
//! During a fault every request must end within 10 s, never INTERNAL, and a
//! refused write must be UNAVAILABLE with an ErrorInfo of domain
//! `arbiter.chess` and a message a human understands. After the fault the
//! service serves again, every failed request retried with its request id
//! succeeds once (a second retry returns the original answer), and each
//! game's log is 1..n without gaps or duplicates and holds every
//! acknowledged event.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use arbiter_chess::Position;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use sqlx::{Connection, Executor};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{AbortHandle, JoinSet};
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::daemon::Daemon;
use crate::v1 as pb;
use crate::{Client, DOMAIN};

/// No request may take longer than this, fault or not.
const HANG: Duration = Duration::from_secs(10);

/// The service must serve again within this time after a fault clears.
const RECOVERY: Duration = Duration::from_secs(30);

/// The PostgreSQL server the scenario reaches through its proxy.
const PG_ADDR: &str = "127.0.0.1:5432";

/// How many faults of each kind, and how long each lasts.
#[derive(Clone, Debug)]
pub struct Options {
    /// Online games played through every fault.
    pub games: usize,
    /// Faults of each kind, one after the other.
    pub cycles: usize,
    /// How long each fault lasts (at least one round of requests).
    pub fault_seconds: u64,
    /// The seed of the moves played.
    pub seed: u64,
    /// Also stall PostgreSQL (connections open, nothing answers): slow, as
    /// the service's own timeouts decide when a request gives up.
    pub stall: bool,
}

impl Options {
    /// The CI form: one short fault of each kind.
    pub fn short() -> Options {
        Options { games: 4, cycles: 1, fault_seconds: 3, seed: 1, stall: false }
    }

    /// The long form: several longer faults of each kind with more games.
    pub fn long() -> Options {
        Options { games: 8, cycles: 5, fault_seconds: 15, seed: 1, stall: true }
    }
}

/// What one kind of fault did.
#[derive(Clone, Debug, Default)]
pub struct FaultReport {
    pub name: String,
    /// Why it did not run (outside CI only).
    pub skipped: Option<String>,
    /// Requests sent while the fault lasted, and their codes.
    pub requests: u64,
    pub codes: BTreeMap<String, u64>,
    /// From the start of the fault to the first UNAVAILABLE (worst cycle).
    pub first_unavailable: Option<Duration>,
    /// The slowest answer during the fault.
    pub slowest: Duration,
    /// From the end of the fault to the first acknowledged move (worst cycle).
    pub recovery: Option<Duration>,
    /// Requests that failed and were retried with the same request id.
    pub retried: u64,
    /// Acknowledged events missing from the logs (must be 0).
    pub events_lost: u64,
    /// An example of the UNAVAILABLE message.
    pub message: String,
}

/// What the faults scenario saw.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub faults: Vec<FaultReport>,
    pub failures: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Option<Duration>| d.map_or_else(|| "-".to_string(), |d| format!("{} ms", d.as_millis()));
        writeln!(f, "faults:")?;
        for fault in &self.faults {
            if let Some(why) = &fault.skipped {
                writeln!(f, "  {}: skipped ({why})", fault.name)?;
                continue;
            }
            writeln!(
                f,
                "  {}: {} requests during the fault {:?}; first UNAVAILABLE after {}, slowest answer {} ms, \
                 recovered {} after the fault cleared; {} retried by request id; {} events lost",
                fault.name,
                fault.requests,
                fault.codes,
                ms(fault.first_unavailable),
                fault.slowest.as_millis(),
                ms(fault.recovery),
                fault.retried,
                fault.events_lost
            )?;
            writeln!(f, "    message: {}", fault.message)?;
        }
        super::write_verdict(f, &self.failures)
    }
}

// ---------------------------------------------------------------------------
// A TCP proxy that can cut the database off.

/// Forwards connections to `upstream` until cut: then every live
/// connection is closed and new ones are closed as soon as accepted, as a
/// database host that went away. Stalled, it keeps every connection open
/// but moves no byte, as a database host that stopped answering.
#[derive(Debug)]
struct Proxy {
    addr: SocketAddr,
    state: Arc<Mutex<(bool, Vec<AbortHandle>)>>,
    stalled: tokio::sync::watch::Sender<bool>,
    accept: AbortHandle,
}

/// Copies `from` to `to`, holding the bytes while the proxy is stalled.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut stalled: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0_u8; 16 * 1024];
    loop {
        if stalled.wait_for(|s| !*s).await.is_err() {
            return;
        }
        let read = tokio::select! {
            read = from.read(&mut buffer) => read,
            // A stall that starts while waiting holds what comes next.
            _ = stalled.wait_for(|s| *s) => continue,
        };
        let n = match read {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if stalled.wait_for(|s| !*s).await.is_err() || to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state: Arc<Mutex<(bool, Vec<AbortHandle>)>> = Arc::default();
        let (stalled, _) = tokio::sync::watch::channel(false);
        let accept = {
            let state = state.clone();
            let stalled = stalled.clone();
            tokio::spawn(async move {
                while let Ok((inbound, _)) = listener.accept().await {
                    // The flag and the list change together, so a connection
                    // is either refused or closed by the next cut.
                    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.0 {
                        drop(inbound);
                        continue;
                    }
                    let mut held = stalled.subscribe();
                    let forward = tokio::spawn(async move {
                        // A stalled host does not answer a new connection either.
                        if held.wait_for(|s| !*s).await.is_err() {
                            return;
                        }
                        let Ok(outbound) = TcpStream::connect(upstream).await else { return };
                        let (in_read, in_write) = inbound.into_split();
                        let (out_read, out_write) = outbound.into_split();
                        tokio::select! {
                            () = pump(in_read, out_write, held.clone()) => {}
                            () = pump(out_read, in_write, held) => {}
                        }
                    });
                    state.1.retain(|h| !h.is_finished());
                    state.1.push(forward.abort_handle());
                }
            })
            .abort_handle()
        };
        Ok(Proxy { addr, state, stalled, accept })
    }

    /// Closes every connection and refuses new ones.
    fn cut(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 = true;
        for connection in state.1.drain(..) {
            connection.abort();
        }
    }

    /// Lets connections through again.
    fn restore(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).0 = false;
    }

    /// Holds (or releases) every byte in both directions.
    fn stall(&self, stalled: bool) {
        self.stalled.send_replace(stalled);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stall(false);
        self.cut();
        self.accept.abort();
    }
}

// ---------------------------------------------------------------------------
// Games played through the faults.

/// An online game, its players, and what the service acknowledged.
#[derive(Debug)]
struct Board {
    name: String,
    white: Client,
    black: Client,
    fen: String,
    /// The moves acknowledged, in order.
    moves: Vec<String>,
    /// The events acknowledged.
    acked: Vec<pb::GameEvent>,
    /// The move being sent (and resent with the same request id) until it
    /// is acknowledged, and whether it failed at least once.
    pending: Option<(pb::MakeMoveRequest, bool)>,
    /// Moves that failed and were then acknowledged: (request, its event).
    retried: Vec<(pb::MakeMoveRequest, pb::GameEvent)>,
    finished: bool,
}

impl Board {
    fn player(&self) -> Client {
        if self.moves.len().is_multiple_of(2) { self.white.clone() } else { self.black.clone() }
    }

    /// The move to send: the pending one, or a new legal move.
    fn request(&mut self, rng: &mut StdRng) -> Option<pb::MakeMoveRequest> {
        if self.finished {
            return None;
        }
        if self.pending.is_none() {
            let position = Position::from_fen(&self.fen).ok()?;
            let legal = position.legal_moves();
            let mv = legal.as_slice().choose(rng).copied()?;
            let request = pb::MakeMoveRequest {
                name: self.name.clone(),
                r#move: position.uci(mv).to_string(),
                request_id: format!(
                    "{}-ply-{}",
                    self.name.trim_start_matches("games/"),
                    self.moves.len() + 1
                ),
                ..Default::default()
            };
            self.pending = Some((request, false));
        }
        self.pending.as_ref().map(|(r, _)| r.clone())
    }

    fn acknowledged(&mut self, response: pb::MakeMoveResponse) {
        let Some((request, failed)) = self.pending.take() else { return };
        let event = response.event.unwrap_or_default();
        if let Some(game) = response.game {
            self.fen = game.fen.clone();
            self.finished = game.status == pb::GameStatus::Finished as i32;
            self.moves = game.moves_uci.clone();
        }
        if failed {
            self.retried.push((request, event.clone()));
        }
        self.acked.push(event);
    }
}

/// One answer: what was asked, how it ended and how long it took.
#[derive(Debug)]
enum Asked {
    Move(usize, Result<Box<pb::MakeMoveResponse>, Status>),
    Create(Result<Box<pb::CreateGameResponse>, Status>),
    Read(&'static str, Result<(), Status>),
}

/// The service under a fault, its games and the tally of the fault.
#[derive(Debug)]
struct Bench {
    daemon: Daemon,
    arbiter: Client,
    boards: Vec<Board>,
    rng: StdRng,
    /// A CreateGame sent until acknowledged: (request, failed once).
    create: Option<(pb::CreateGameRequest, bool)>,
    /// CreateGames that failed and were then acknowledged: (request, name).
    created: Vec<(pb::CreateGameRequest, String)>,
    report: FaultReport,
    failures: Vec<String>,
}

/// A write the client gave up on counts as refused, like UNAVAILABLE: it is
/// retried with its request id.
fn is_unavailable(result: &Result<impl Sized, Status>) -> bool {
    matches!(result, Err(s) if s.code() == Code::Unavailable)
}

/// The message of the status that stands for "no answer within [`HANG`]".
const HUNG: &str = "the test gave up: no answer within 10 s";

fn hung<T>(_: tokio::time::error::Elapsed) -> Result<T, Status> {
    Err(Status::deadline_exceeded(HUNG))
}

fn is_hung(status: &Status) -> bool {
    status.code() == Code::DeadlineExceeded && status.message() == HUNG
}

impl Bench {
    async fn new(daemon: Daemon, games: usize, seed: u64, name: &str) -> Result<Bench, String> {
        let mut arbiter = daemon.arbiter();
        let mut boards = Vec::new();
        for _ in 0..games {
            let created = arbiter
                .create_game(crate::new_game(crate::regulations("90+30", pb::Mode::Online), true))
                .await
                .map_err(|e| format!("CreateGame before the fault: {e:?}"))?
                .into_inner();
            let game = created.game.unwrap_or_default();
            boards.push(Board {
                name: game.name.clone(),
                white: daemon.client(&created.white_token),
                black: daemon.client(&created.black_token),
                fen: game.fen,
                moves: Vec::new(),
                acked: Vec::new(),
                pending: None,
                retried: Vec::new(),
                finished: false,
            });
        }
        Ok(Bench {
            daemon,
            arbiter,
            boards,
            rng: StdRng::seed_from_u64(seed),
            create: None,
            created: Vec::new(),
            report: FaultReport { name: name.to_string(), ..FaultReport::default() },
            failures: Vec::new(),
        })
    }

    /// One round: the next (or pending) move of every game, a CreateGame and
    /// three reads, all at once; every answer within [`HANG`].
    async fn round(&mut self, during_fault: bool, started: Instant, cycle: usize) -> Vec<Asked> {
        let mut asked = JoinSet::new();
        for i in 0..self.boards.len() {
            let Some(request) = self.boards[i].request(&mut self.rng) else { continue };
            let mut client = self.boards[i].player();
            asked.spawn(async move {
                let t = Instant::now();
                let r = tokio::time::timeout(HANG, client.make_move(request)).await.unwrap_or_else(hung);
                (t.elapsed(), Asked::Move(i, r.map(|r| Box::new(r.into_inner()))))
            });
        }
        let create = self
            .create
            .get_or_insert_with(|| {
                let mut request = crate::new_game(crate::regulations("5+3", pb::Mode::Online), false);
                // An event of its own, so a duplicate creation would show.
                request.request_id =
                    format!("create-{}-{cycle}-{}", std::process::id(), started.elapsed().as_nanos());
                request.event = format!("Faults {}", request.request_id);
                (request, false)
            })
            .0
            .clone();
        let mut client = self.arbiter.clone();
        asked.spawn(async move {
            let t = Instant::now();
            let r = tokio::time::timeout(HANG, client.create_game(create)).await.unwrap_or_else(hung);
            (t.elapsed(), Asked::Create(r.map(|r| Box::new(r.into_inner()))))
        });
        let name = self.boards.choose(&mut self.rng).map(|b| b.name.clone()).unwrap_or_default();
        for read in ["GetGame", "ListGames", "ListGameEvents"] {
            let (mut client, name) = (self.arbiter.clone(), name.clone());
            asked.spawn(async move {
                let t = Instant::now();
                let call = async {
                    match read {
                        "GetGame" => client.get_game(pb::GetGameRequest { name }).await.map(|_| ()),
                        "ListGames" => client.list_games(pb::ListGamesRequest::default()).await.map(|_| ()),
                        _ => client
                            .list_game_events(pb::ListGameEventsRequest {
                                parent: name,
                                ..Default::default()
                            })
                            .await
                            .map(|_| ()),
                    }
                };
                let r = tokio::time::timeout(HANG, call).await.unwrap_or_else(hung);
                (t.elapsed(), Asked::Read(read, r))
            });
        }
        let mut answers = Vec::new();
        for (latency, answer) in asked.join_all().await {
            if during_fault {
                self.report.requests += 1;
                self.report.slowest = self.report.slowest.max(latency);
            }
            answers.push(answer);
        }
        for answer in &answers {
            let (what, status) = match answer {
                Asked::Move(_, Err(s)) => ("MakeMove", Some(s)),
                Asked::Create(Err(s)) => ("CreateGame", Some(s)),
                Asked::Read(what, Err(s)) => (*what, Some(s)),
                Asked::Move(..) => ("MakeMove", None),
                Asked::Create(_) => ("CreateGame", None),
                Asked::Read(what, _) => (*what, None),
            };
            if during_fault {
                let code = status.map_or_else(
                    || "Ok".to_string(),
                    |s| if is_hung(s) { "no answer in 10 s".to_string() } else { format!("{:?}", s.code()) },
                );
                *self.report.codes.entry(format!("{what} {code}")).or_default() += 1;
            }
            match status {
                Some(status) if is_hung(status) => {
                    self.failures.push(format!("{}: {what} got no answer within {HANG:?}", self.report.name));
                }
                Some(status) => self.check_status(what, status),
                None => {}
            }
        }
        answers
    }

    /// A refusal during a storage fault: UNAVAILABLE with an ErrorInfo of
    /// the domain and a message that says what is wrong; never INTERNAL.
    fn check_status(&mut self, what: &str, status: &Status) {
        let name = &self.report.name;
        match status.code() {
            Code::Unavailable => {
                let info = status.get_details_error_info();
                let described = info.as_ref().is_some_and(|i| i.domain == DOMAIN && !i.reason.is_empty());
                let message = status.message().to_ascii_lowercase();
                let clear =
                    ["storage", "database", "disk", "unavailable"].iter().any(|w| message.contains(w));
                if !described || !clear {
                    self.failures.push(format!(
                        "{name}: {what} UNAVAILABLE without an {DOMAIN} ErrorInfo or a clear message: {status:?}"
                    ));
                }
                if self.report.message.is_empty() {
                    self.report.message =
                        format!("{} ({})", status.message(), info.map(|i| i.reason).unwrap_or_default());
                }
            }
            // A retried move or creation is judged again, never refused.
            _ => self.failures.push(format!("{name}: {what} answered {:?}: {status:?}", status.code())),
        }
    }

    /// Applies the acknowledged moves and creations of a round; returns
    /// whether a move was acknowledged and whether a write was refused.
    fn apply(&mut self, answers: Vec<Asked>) -> (bool, bool) {
        let (mut moved, mut refused) = (false, false);
        for answer in answers {
            match answer {
                Asked::Move(i, Ok(response)) => {
                    self.boards[i].acknowledged(*response);
                    moved = true;
                }
                Asked::Move(i, result) => {
                    refused |= is_unavailable(&result);
                    if let Some(pending) = &mut self.boards[i].pending {
                        pending.1 = true;
                    }
                }
                Asked::Create(Ok(response)) => {
                    if let Some((request, failed)) = self.create.take()
                        && failed
                    {
                        self.created.push((request, response.game.map(|g| g.name).unwrap_or_default()));
                    }
                }
                Asked::Create(result) => {
                    refused |= is_unavailable(&result);
                    if let Some(pending) = &mut self.create {
                        pending.1 = true;
                    }
                }
                Asked::Read(..) => {}
            }
        }
        (moved, refused)
    }

    /// Plays `rounds` rounds with no fault: every answer must succeed.
    async fn warm_up(&mut self, rounds: usize, cycle: usize) {
        let started = Instant::now();
        for _ in 0..rounds {
            let answers = self.round(false, started, cycle).await;
            self.apply(answers);
        }
    }

    /// Keeps playing while the fault lasts (at least `fault` and one round);
    /// then `clear` ends it and the rounds go on until every pending request
    /// is acknowledged (at most [`RECOVERY`]).
    async fn through_fault(&mut self, fault: Duration, cycle: usize, clear: impl FnOnce()) {
        let started = Instant::now();
        let mut first_unavailable = None;
        loop {
            let answers = self.round(true, started, cycle).await;
            let (_, refused) = self.apply(answers);
            if refused && first_unavailable.is_none() {
                first_unavailable = Some(started.elapsed());
            }
            if started.elapsed() >= fault && first_unavailable.is_some() {
                break;
            }
            if started.elapsed() >= fault + HANG {
                self.failures.push(format!(
                    "{}: cycle {cycle}: no write was refused in {:?} of the fault",
                    self.report.name,
                    started.elapsed()
                ));
                break;
            }
            // Pacing between rounds, as clients would.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.report.first_unavailable = self.report.first_unavailable.max(first_unavailable);
        clear();
        let cleared = Instant::now();
        let mut recovered = None;
        while cleared.elapsed() < RECOVERY {
            let answers = self.round(false, started, cycle).await;
            let (moved, _) = self.apply(answers);
            if moved && recovered.is_none() {
                recovered = Some(cleared.elapsed());
            }
            if recovered.is_some() && self.create.is_none() && self.boards.iter().all(|b| b.pending.is_none())
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        match recovered {
            Some(r) => self.report.recovery = self.report.recovery.max(Some(r)),
            None => self.failures.push(format!(
                "{}: cycle {cycle}: no move acknowledged within {RECOVERY:?} after the fault cleared",
                self.report.name
            )),
        }
        if self.create.is_some() || self.boards.iter().any(|b| b.pending.is_some()) {
            self.failures.push(format!(
                "{}: cycle {cycle}: requests still refused {RECOVERY:?} after the fault cleared",
                self.report.name
            ));
        }
    }

    /// Every request that failed and then succeeded, sent once more with
    /// its request id: the original answer, nothing new recorded.
    async fn retry_again(&mut self) {
        let name = self.report.name.clone();
        for board in &mut self.boards {
            for (request, event) in board.retried.drain(..) {
                self.report.retried += 1;
                // The request id names the ply: White plays the odd ones.
                let ply: usize =
                    request.request_id.rsplit('-').next().and_then(|p| p.parse().ok()).unwrap_or(1);
                let mut player = if ply % 2 == 1 { board.white.clone() } else { board.black.clone() };
                match tokio::time::timeout(HANG, player.make_move(request.clone())).await {
                    Ok(Ok(again)) => {
                        let again = again.into_inner().event.unwrap_or_default();
                        if again.seq != event.seq || again.fen != event.fen {
                            self.failures.push(format!(
                                "{name}: retry of {} gave seq {} ({}), the original answer was seq {} ({})",
                                request.request_id, again.seq, again.fen, event.seq, event.fen
                            ));
                        }
                    }
                    other => {
                        self.failures.push(format!("{name}: retry of {}: {other:?}", request.request_id))
                    }
                }
            }
        }
        for (request, created) in std::mem::take(&mut self.created) {
            self.report.retried += 1;
            let again = tokio::time::timeout(HANG, self.arbiter.create_game(request.clone())).await;
            let again = match again {
                Ok(Ok(r)) => r.into_inner().game.map(|g| g.name).unwrap_or_default(),
                other => {
                    self.failures.push(format!("{name}: retry of {}: {other:?}", request.request_id));
                    continue;
                }
            };
            if again != created {
                self.failures.push(format!(
                    "{name}: retry of {} created {again}, the original answer was {created}",
                    request.request_id
                ));
            }
            // Exactly one game of that creation.
            let listed = self
                .arbiter
                .list_games(pb::ListGamesRequest { event: request.event.clone(), ..Default::default() })
                .await
                .map(|r| r.into_inner().games.len());
            if !matches!(listed, Ok(1)) {
                self.failures.push(format!("{name}: games of the event {:?}: {listed:?}", request.event));
            }
        }
    }

    /// Each game's log is 1..n without gaps, holds every acknowledged event
    /// as acknowledged, and its moves are exactly the acknowledged ones.
    async fn check_logs(&mut self) {
        let name = self.report.name.clone();
        for board in &self.boards {
            let mut events = Vec::new();
            let mut page_token = String::new();
            loop {
                let page = self
                    .arbiter
                    .list_game_events(pb::ListGameEventsRequest {
                        parent: board.name.clone(),
                        page_size: 1000,
                        page_token: page_token.clone(),
                    })
                    .await;
                match page {
                    Ok(page) => {
                        let page = page.into_inner();
                        events.extend(page.events);
                        if page.next_page_token.is_empty() {
                            break;
                        }
                        page_token = page.next_page_token;
                    }
                    Err(e) => {
                        self.failures.push(format!("{name}: {}: ListGameEvents: {e:?}", board.name));
                        break;
                    }
                }
            }
            let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
            let expected: Vec<i64> = (1..=i64::try_from(events.len()).unwrap_or(0)).collect();
            if seqs != expected {
                self.failures.push(format!("{name}: {}: event seqs {seqs:?} are not 1..n", board.name));
            }
            for acked in &board.acked {
                let logged = events.iter().find(|e| e.seq == acked.seq);
                if !logged.is_some_and(|e| e.act == acked.act && e.fen == acked.fen) {
                    self.report.events_lost += 1;
                    self.failures.push(format!(
                        "{name}: {}: acknowledged event {} ({}) is not in the log as acknowledged",
                        board.name, acked.seq, acked.act
                    ));
                }
            }
            match self.arbiter.get_game(pb::GetGameRequest { name: board.name.clone() }).await {
                Ok(game) => {
                    let game = game.into_inner().game.unwrap_or_default();
                    if game.moves_uci != board.moves
                        || game.last_seq != i64::try_from(events.len()).unwrap_or(0)
                    {
                        self.failures.push(format!(
                            "{name}: {}: moves {:?} (last_seq {}), acknowledged {:?} ({} events logged)",
                            board.name,
                            game.moves_uci,
                            game.last_seq,
                            board.moves,
                            events.len()
                        ));
                    }
                }
                Err(e) => self.failures.push(format!("{name}: {}: GetGame: {e:?}", board.name)),
            }
        }
    }

    /// The daemon's panics, and the report.
    fn finish(self, report: &mut Report) -> Daemon {
        // The same failure in many rounds is listed once, with its count.
        let mut counted: Vec<(String, u64)> = Vec::new();
        for failure in self.failures {
            match counted.iter_mut().find(|(f, _)| *f == failure) {
                Some((_, n)) => *n += 1,
                None => counted.push((failure, 1)),
            }
        }
        let mut failures: Vec<String> =
            counted.into_iter().map(|(f, n)| if n > 1 { format!("{f} ({n} times)") } else { f }).collect();
        for line in self.daemon.panics() {
            failures.push(format!("{}: panic in the log: {line}", self.report.name));
        }
        report.failures.extend(failures);
        report.faults.push(self.report);
        self.daemon
    }
}

async fn spawn_daemon(url: String, log: PathBuf) -> Daemon {
    tokio::task::spawn_blocking(move || Daemon::spawn(&url, &log, &[])).await.expect("arbiterd starts")
}

fn skipped(name: &str, why: String, report: &mut Report) {
    assert!(std::env::var_os("CI").is_none(), "CI must run the {name} fault, but: {why}");
    eprintln!("faults: {name} skipped: {why}");
    report.faults.push(FaultReport { name: name.to_string(), skipped: Some(why), ..FaultReport::default() });
}

// ---------------------------------------------------------------------------
// Database unreachable.

/// PostgreSQL cut off (every connection closed, new ones refused) or, with
/// `stall`, unresponsive (connections open, no byte moves).
async fn database_unreachable(options: &Options, report: &mut Report, stall: bool) {
    let name = if stall {
        "database stalled (PostgreSQL unresponsive)"
    } else {
        "database unreachable (PostgreSQL cut off)"
    };
    let admin_url = format!("postgres://postgres@{PG_ADDR}/test");
    let connected =
        tokio::time::timeout(Duration::from_secs(5), sqlx::PgConnection::connect(&admin_url)).await;
    let mut admin = match connected {
        Ok(Ok(admin)) => admin,
        Ok(Err(e)) => return skipped(name, format!("no PostgreSQL at {PG_ADDR}: {e}"), report),
        Err(_) => return skipped(name, format!("no answer from PostgreSQL at {PG_ADDR} in 5 s"), report),
    };
    let schema = format!(
        "faults_{}_{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros())
    );
    if let Err(e) = admin.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).await {
        report.failures.push(format!("{name}: CREATE SCHEMA: {e}"));
        return;
    }
    let upstream: SocketAddr = PG_ADDR.parse().expect("a socket address");
    match Proxy::start(upstream).await {
        Ok(proxy) => {
            let url = format!(
                "postgres://postgres@{}/test?options=-c%20search_path%3D{schema}&application_name={schema}",
                proxy.addr
            );
            let dir = tempfile::tempdir().expect("temp dir");
            let daemon = spawn_daemon(url, dir.path().join("arbiterd.log")).await;
            match Bench::new(daemon, options.games, options.seed, name).await {
                Ok(mut bench) => {
                    for cycle in 0..options.cycles {
                        bench.warm_up(3, cycle).await;
                        if stall {
                            proxy.stall(true);
                        } else {
                            proxy.cut();
                        }
                        bench
                            .through_fault(Duration::from_secs(options.fault_seconds), cycle, || {
                                proxy.restore();
                                proxy.stall(false);
                            })
                            .await;
                        bench.retry_again().await;
                        bench.check_logs().await;
                    }
                    let daemon = bench.finish(report);
                    let _ = tokio::task::spawn_blocking(move || daemon.terminate()).await;
                }
                Err(e) => report.failures.push(format!("{name}: {e}")),
            }
        }
        Err(e) => report.failures.push(format!("{name}: proxy: {e}")),
    }
    // The daemon is gone: nothing holds a lock on the schema any more.
    if let Err(e) = admin.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE"))).await {
        eprintln!("faults: could not drop the schema {schema}: {e}");
    }
    let _ = admin.close().await;
}

// ---------------------------------------------------------------------------
// Disk full.

/// Unmounts the scratch tmpfs when dropped.
#[derive(Debug)]
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// Fills the filesystem of `dir` with a filler file; returns its path.
fn fill(dir: &Path) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let filler = dir.join("filler");
    let mut file = std::fs::File::create(&filler)?;
    let block = vec![0_u8; 65_536];
    while file.write_all(&block).is_ok() {}
    // What is left is smaller than a block: fill that too.
    while file.write_all(&block[..512]).is_ok() {}
    let _ = file.sync_all();
    Ok(filler)
}

async fn disk_full(options: &Options, report: &mut Report) {
    const NAME: &str = "disk full (SQLite on a full tmpfs)";
    let scratch = tempfile::tempdir().expect("temp dir");
    let mount = scratch.path().join("db");
    let logs = scratch.path().join("logs");
    std::fs::create_dir_all(&mount).expect("mount point");
    std::fs::create_dir_all(&logs).expect("log dir");
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        return skipped(NAME, "cannot mount a tmpfs here (not root?)".into(), report);
    }
    let _unmount = Mounted(mount.clone());
    let db = mount.join("arbiter.db");
    let daemon = spawn_daemon(format!("sqlite://{}", db.display()), logs.join("arbiterd.log")).await;
    let mut bench = match Bench::new(daemon, options.games, options.seed, NAME).await {
        Ok(bench) => bench,
        Err(e) => return report.failures.push(format!("{NAME}: {e}")),
    };
    for cycle in 0..options.cycles {
        bench.warm_up(3, cycle).await;
        let filler = match fill(&mount) {
            Ok(filler) => filler,
            Err(e) => return report.failures.push(format!("{NAME}: filler: {e}")),
        };
        bench
            .through_fault(Duration::from_secs(options.fault_seconds), cycle, || {
                let _ = std::fs::remove_file(&filler);
            })
            .await;
        bench.retry_again().await;
        bench.check_logs().await;
    }
    let daemon = bench.finish(report);
    let _ = tokio::task::spawn_blocking(move || daemon.terminate()).await;
    // Nothing half-written: the database file is sound.
    let checked = async {
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await?;
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check").fetch_all(&mut conn).await?;
        conn.close().await?;
        Ok::<_, sqlx::Error>(rows)
    };
    match checked.await {
        Ok(rows) if rows == ["ok"] => {}
        other => report.failures.push(format!("{NAME}: PRAGMA integrity_check: {other:?}")),
    }
}

/// Runs each fault in turn.
pub async fn run(options: &Options) -> Report {
    let mut report = Report::default();
    database_unreachable(options, &mut report, false).await;
    if options.stall {
        database_unreachable(options, &mut report, true).await;
    }
    disk_full(options, &mut report).await;
    report
}
