//! Hostile clients: one `arbiterd` (the real binary) while clients abuse
//! it, and games played beside them must not notice. Each kind of abuse is
//! a part of its own, run one after the other on the same daemon, each
//! adding its lines to the report:
//!
//! - [`idle_connections`]: a crowd of connections that send nothing, half
//!   an HTTP/2 preface, or a whole handshake and then no call, is held
//!   open while
//!   games are played; as the daemon closes them at its handshake deadline,
//!   the crowd opens new ones, as an attacker would, so the crowd stays at
//!   full size. Two rules: the move latency p99 with the crowd is within
//!   20% of the p99 without it in the same run, judged pair of rounds by
//!   pair of rounds, the majority deciding (see [`LATENCY_RATIO`]), and every idle connection is closed within the
//!   configured timeout (see [`CLOSE_SLACK`]), none before it (a close
//!   before the deadline would be a refusal: the crowd is under the cap).
//! - Request-id reuse across callers ([`super::hostile_ids`]): several
//!   service tokens, the arbiter and the players reuse each other's request
//!   ids, at once; no caller ever gets another's answer (a game, its player
//!   tokens) and every act is recorded.
//! - A creation flood ([`super::hostile_flood`]), on a daemon of its own
//!   (it restarts it and measures its memory): one service token floods
//!   `CreateGame`; the rate limit and the cap on unfinished games hold with a
//!   RetryInfo, memory stays bounded, and another token's games go on.
//!
//! The log must report no panic, and the ledger of every game played must
//! verify ([`play::verify`]).

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::play::{self, Endpoints, Ledger, Load, LoadOptions, quantile};
use crate::daemon::Daemon;
use crate::sockets::{self, Ending, HALF_PREFACE, PREFACE_AND_SETTINGS};

/// The crowd may raise the move latency p99 by this ratio at most...
pub const LATENCY_RATIO: f64 = 1.20;
/// ...plus [`Options::latency_slack`]: p99s of a few milliseconds on
/// loopback move by more than 20% between two rounds of the very same load
/// (a scheduler tick, an fsync of SQLite's commit, another process on a
/// small machine), so a pure ratio would measure the machine's noise, not
/// the crowd's cost.
/// An idle connection is closed within the timeout plus this (the
/// daemon's timers, the client seeing the close, both on a busy machine).
pub const CLOSE_SLACK: Duration = Duration::from_secs(1);
/// A close before this share of the timeout is not the deadline's doing.
const EARLY: f64 = 0.9;
/// The share of the crowd that must be open at every sample.
const HELD: f64 = 0.95;
/// How often the crowd's size is sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// How the hostile scenario runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Games played beside the abuse (one player each).
    pub games: usize,
    /// Each game moves once per interval.
    pub interval: Duration,
    /// Idle connections held open at once.
    pub idle_connections: usize,
    /// The daemon's `--handshake-timeout`.
    pub handshake_timeout: Duration,
    /// Rounds of play without the crowd and with it (the order alternates
    /// from one pair to the next, so a drift of the machine's speed weighs
    /// on both sides alike).
    pub rounds: usize,
    /// How long each round plays; a warm-up round of this length comes
    /// first and is not measured.
    pub round: Duration,
    /// Added to the allowed crowded p99 (see [`LATENCY_RATIO`]).
    pub latency_slack: Duration,
    pub seed: u64,
    /// The request-id part.
    pub ids: super::hostile_ids::Options,
    /// The creation-flood part.
    pub flood: super::hostile_flood::FloodOptions,
}

impl Options {
    /// The CI form: 200 idle connections, a 2 s deadline, 3 pairs of 3 s
    /// rounds (some 30 s). Its p99s rest on ~2,000 moves a side, the 20
    /// slowest: on a shared CI machine one stall of the disk or the
    /// scheduler moves them by several milliseconds, hence a wider slack
    /// (5 ms) than the long form's.
    pub fn short() -> Options {
        Options {
            games: 24,
            interval: Duration::from_millis(100),
            idle_connections: 200,
            handshake_timeout: Duration::from_secs(2),
            rounds: 3,
            round: Duration::from_secs(3),
            latency_slack: Duration::from_millis(5),
            seed: 0x4057_11e0,
            ids: super::hostile_ids::Options::short(),
            flood: super::hostile_flood::FloodOptions::short(),
        }
    }

    /// The long form: 2,000 idle connections and the default 10 s
    /// deadline, 4 pairs of 30 s rounds (some 6 minutes; ~38,000 moves a
    /// side), 2 ms of slack.
    pub fn long() -> Options {
        Options {
            games: 32,
            idle_connections: 2000,
            handshake_timeout: Duration::from_secs(10),
            rounds: 4,
            round: Duration::from_secs(30),
            latency_slack: Duration::from_millis(2),
            ids: super::hostile_ids::Options::long(),
            flood: super::hostile_flood::FloodOptions::long(),
            ..Options::short()
        }
    }
}

/// What the idle-connections part saw.
#[derive(Debug, Default)]
pub struct IdleReport {
    pub connections: usize,
    pub timeout: Duration,
    pub latency_slack: Duration,
    /// Move latencies (µs, sorted) without and with the crowd.
    pub quiet_us: Vec<u32>,
    pub crowded_us: Vec<u32>,
    /// Each pair of rounds: the p99 without the crowd and with it (µs).
    pub pairs: Vec<(u32, u32)>,
    /// How long each idle connection lived before the daemon closed it.
    pub lifetimes: Vec<Duration>,
    /// Idle connections still open at the timeout plus the slack.
    pub overdue: usize,
    /// The fewest idle connections open at one sample (every 50 ms) of the
    /// crowded rounds.
    pub fewest_open: usize,
    /// From the daemon's metrics at the end.
    pub closed_by_deadline: f64,
    pub refused: f64,
}

/// What the hostile scenario saw.
#[derive(Debug, Default)]
pub struct Report {
    pub seconds: f64,
    pub idle: IdleReport,
    pub acknowledged: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub games: usize,
    pub panics: usize,
    pub ids: Option<super::hostile_ids::Report>,
    pub flood: Option<super::hostile_flood::FloodReport>,
    pub failures: Vec<String>,
}

fn ms(us: u32) -> f64 {
    f64::from(us) / 1000.0
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let idle = &self.idle;
        let q = |v: &[u32], p: f64| ms(quantile(v, p));
        writeln!(f, "hostile: {:.0} s", self.seconds)?;
        writeln!(
            f,
            "  idle connections: {} held open (at least {} at every sample of the crowded rounds), handshake timeout \
             {:.1} s",
            idle.connections,
            idle.fewest_open,
            idle.timeout.as_secs_f64()
        )?;
        writeln!(
            f,
            "    move latency without them: {} moves, p50 {:.2} ms p99 {:.2} ms max {:.2} ms",
            idle.quiet_us.len(),
            q(&idle.quiet_us, 0.5),
            q(&idle.quiet_us, 0.99),
            q(&idle.quiet_us, 1.0)
        )?;
        writeln!(
            f,
            "    move latency with them:    {} moves, p50 {:.2} ms p99 {:.2} ms max {:.2} ms (limit p99 x {LATENCY_RATIO} \
             + {} ms = {:.2} ms)",
            idle.crowded_us.len(),
            q(&idle.crowded_us, 0.5),
            q(&idle.crowded_us, 0.99),
            q(&idle.crowded_us, 1.0),
            idle.latency_slack.as_millis(),
            latency_limit_us(idle, quantile(&idle.quiet_us, 0.99)) / 1000.0
        )?;
        let pairs: Vec<String> =
            idle.pairs.iter().map(|(q, c)| format!("{:.2}/{:.2}", ms(*q), ms(*c))).collect();
        writeln!(
            f,
            "    p99 without/with them by pair of rounds (ms): {}; {} of {} pairs over the limit",
            pairs.join(", "),
            pairs_over(idle),
            idle.pairs.len()
        )?;
        let mut lifetimes = idle.lifetimes.clone();
        lifetimes.sort_unstable();
        let life = |p: f64| quantile(&lifetimes, p).as_secs_f64();
        writeln!(
            f,
            "    closed by the daemon: {} (min {:.2} s, p50 {:.2} s, max {:.2} s; {} overdue); its metrics: {} closed \
             at the handshake deadline, {} refused over the cap",
            lifetimes.len(),
            life(0.0),
            life(0.5),
            life(1.0),
            idle.overdue,
            idle.closed_by_deadline,
            idle.refused
        )?;
        writeln!(
            f,
            "  events acknowledged {}, lost {}, duplicated {} ({} games verified); panics in the log: {}",
            self.acknowledged, self.lost, self.duplicated, self.games, self.panics
        )?;
        // Each part ends with its verdict, without a line break.
        if let Some(ids) = &self.ids {
            writeln!(f, "{ids}")?;
        }
        if let Some(flood) = &self.flood {
            writeln!(f, "{flood}")?;
        }
        super::write_verdict(f, &self.failures)
    }
}

/// The highest crowded p99 the rule accepts beside a quiet p99, in µs.
fn latency_limit_us(idle: &IdleReport, quiet_p99_us: u32) -> f64 {
    f64::from(quiet_p99_us) * LATENCY_RATIO + idle.latency_slack.as_micros() as f64
}

/// The pairs of rounds whose crowded p99 is over the limit.
fn pairs_over(idle: &IdleReport) -> usize {
    idle.pairs.iter().filter(|(quiet, crowded)| f64::from(*crowded) > latency_limit_us(idle, *quiet)).count()
}

/// Runs the scenario: one daemon, then each part in turn.
pub async fn run(options: &Options) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    // The crowd's sockets live in this process, the daemon's ends in the
    // daemon (which inherits the limit); the players need a few more.
    if let Err(e) = ensure_open_files(options.idle_connections + 512) {
        report.failures.push(e);
        return report;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let log = dir.path().join("arbiterd.log");
    let timeout = format!("{}ms", options.handshake_timeout.as_millis());
    let daemon = tokio::task::spawn_blocking(move || {
        Daemon::spawn(
            &url,
            &log,
            &["--handshake-timeout", timeout.as_str(), "--idle-connection-timeout", timeout.as_str()],
        )
    })
    .await
    .expect("arbiterd starts (its log is in the panic message)");
    if let Err(e) = play::wait_serving(&daemon, Duration::from_secs(30)).await {
        report.failures.push(e);
    }
    let mut ledger = Ledger::default();

    idle_connections(options, &daemon, &mut ledger, &mut report).await;
    request_ids(options, &daemon, dir.path(), &mut report).await;

    let mut arbiter = daemon.arbiter();
    let verification = play::verify(&ledger, &mut arbiter).await;
    report.acknowledged = verification.acknowledged;
    report.lost = verification.lost;
    report.duplicated = verification.duplicated;
    report.games = verification.games;
    report.failures.extend(verification.failures);
    let panics = daemon.panics();
    report.panics = panics.len();
    if let Some(first) = panics.first() {
        report.failures.push(format!("the daemon log reports {} panics, first: {first}", panics.len()));
    }
    if !daemon.terminate() {
        report.failures.push("the daemon did not shut down cleanly on SIGTERM".into());
    }
    // The flood last, on a daemon of its own: it fills a database and
    // restarts its daemon to see what a restart loads.
    let flood = super::hostile_flood::creation_flood(&options.flood).await;
    report.failures.extend(flood.failures.iter().map(|f| format!("creation flood: {f}")));
    report.flood = Some(flood);
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// The request-id part: a second service token is issued (as an operator
/// would, `arbiterd token issue`) beside the harness's, then the callers
/// reuse each other's ids.
async fn request_ids(options: &Options, daemon: &Daemon, dir: &std::path::Path, report: &mut Report) {
    let database = format!("sqlite://{}", dir.join("arbiter.db").display());
    let issued = tokio::task::spawn_blocking(move || {
        std::process::Command::new(crate::daemon::arbiterd_path())
            .args(["token", "issue", "--role", "service", "--label", "hostile", "--database-url", &database])
            .output()
    })
    .await
    .expect("token issue runs");
    let second = match issued {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => {
            report.failures.push(format!(
                "arbiterd token issue failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            return;
        }
        Err(e) => {
            report.failures.push(format!("arbiterd token issue: {e}"));
            return;
        }
    };
    let callers = super::hostile_ids::Callers {
        services: vec![crate::SERVICE_TOKEN.to_string(), second],
        arbiter: crate::ARBITER_TOKEN.to_string(),
    };
    let ids = super::hostile_ids::request_id_reuse(&daemon.url(), &callers, &options.ids).await;
    report.failures.extend(ids.failures.iter().map(|f| format!("request ids: {f}")));
    report.ids = Some(ids);
}

// ---------------------------------------------------------------------------
// Idle connections
// ---------------------------------------------------------------------------

/// The idle-connections part (see the module documentation).
pub async fn idle_connections(options: &Options, daemon: &Daemon, ledger: &mut Ledger, report: &mut Report) {
    let idle = &mut report.idle;
    idle.connections = options.idle_connections;
    idle.timeout = options.handshake_timeout;
    idle.latency_slack = options.latency_slack;
    let load_options = LoadOptions {
        games: options.games,
        time_control: "15+10".into(),
        interval: Some(options.interval),
        max_plies: Some(40),
        retry_deadline: Duration::from_secs(10),
        seed: options.seed,
        spread: false,
    };
    let endpoints = Endpoints::new(&[daemon.url()]);
    let mut failures = Vec::new();
    let mut play_round = async |crowd: Option<&Crowd>, into: Option<&mut Vec<u32>>| {
        let load = Load::start(&load_options, endpoints.clone()).await;
        // The crowd's size is sampled all through the round: it must stay
        // full (its members are replaced the moment the daemon closes them).
        let end = tokio::time::Instant::now() + options.round;
        let mut fewest = usize::MAX;
        while tokio::time::Instant::now() < end {
            if let Some(crowd) = crowd {
                fewest = fewest.min(crowd.open_now());
            }
            tokio::time::sleep_until(end.min(tokio::time::Instant::now() + SAMPLE_EVERY)).await;
        }
        let outcome = load.stop().await;
        failures.extend(outcome.failures);
        if let Some(into) = into {
            into.extend(
                outcome.ledger.acks.iter().filter(|a| a.mv.is_some()).map(|a| a.latency.as_micros() as u32),
            );
        }
        ledger.acks.extend(outcome.ledger.acks);
        ledger.games.extend(outcome.ledger.games);
        fewest
    };

    // Warm-up: the daemon's caches, SQLite's pages, the players' channels.
    play_round(None, None).await;
    let mut fewest_open = usize::MAX;
    let mut lifetimes = Vec::new();
    let mut overdue = 0;
    let mut crowd_failures = Vec::new();
    for pair in 0..options.rounds {
        let (mut quiet_p99, mut crowded_p99) = (0, 0);
        for crowded in if pair % 2 == 0 { [false, true] } else { [true, false] } {
            let mut round = Vec::new();
            if !crowded {
                play_round(None, Some(&mut round)).await;
                round.sort_unstable();
                quiet_p99 = quantile(&round, 0.99);
                idle.quiet_us.extend(round);
                continue;
            }
            let crowd = Crowd::start(daemon.addr, options.idle_connections, options.handshake_timeout);
            if let Err(e) = crowd.wait_full(options.handshake_timeout * 3).await {
                crowd_failures.push(e);
            }
            fewest_open = fewest_open.min(play_round(Some(&crowd), Some(&mut round)).await);
            round.sort_unstable();
            crowded_p99 = quantile(&round, 0.99);
            idle.crowded_us.extend(round);
            let seen = crowd.stop().await;
            lifetimes.extend(seen.lifetimes);
            overdue += seen.overdue;
        }
        idle.pairs.push((quiet_p99, crowded_p99));
    }
    failures.extend(crowd_failures);
    idle.quiet_us.sort_unstable();
    idle.crowded_us.sort_unstable();
    idle.lifetimes = lifetimes;
    idle.overdue = overdue;
    idle.fewest_open = if fewest_open == usize::MAX { 0 } else { fewest_open };
    match scrape(daemon.metrics_addr).await {
        Ok(text) => {
            let closed = ["port=\"grpc\"", "reason=\"handshake_timeout\""];
            let idle_closed = ["port=\"grpc\"", "reason=\"idle_timeout\""];
            idle.closed_by_deadline = sockets::metric(&text, "arbiter_connections_closed_total", &closed)
                + sockets::metric(&text, "arbiter_connections_closed_total", &idle_closed);
            idle.refused = sockets::metric(&text, "arbiter_connections_refused_total", &["port=\"grpc\""]);
        }
        Err(e) => failures.push(format!("cannot read the daemon's metrics: {e}")),
    }
    check_idle(idle, &mut failures);
    report.failures.extend(failures);
}

/// The rules of the idle-connections part.
fn check_idle(idle: &IdleReport, failures: &mut Vec<String>) {
    if idle.quiet_us.len() < 200 || idle.crowded_us.len() < 200 {
        failures.push(format!(
            "too few moves to compare p99s: {} without the crowd, {} with it",
            idle.quiet_us.len(),
            idle.crowded_us.len()
        ));
    }
    // Each pair of rounds is judged on its own and the majority decides: a
    // stall of the machine (a slow fsync, another process) lands in one
    // round and, with a few thousand moves a side, can set that round's
    // p99 on its own; a cost of the crowd is in every crowded round.
    let over = pairs_over(idle);
    if over * 2 > idle.pairs.len() {
        let (quiet, crowded) = (quantile(&idle.quiet_us, 0.99), quantile(&idle.crowded_us, 0.99));
        failures.push(format!(
            "the idle connections slowed the games: in {over} of {} pairs of rounds the move p99 with them exceeded \
             the p99 without x {LATENCY_RATIO} + {} ms (over all rounds: {:.2} ms with, {:.2} ms without)",
            idle.pairs.len(),
            idle.latency_slack.as_millis(),
            ms(crowded),
            ms(quiet)
        ));
    }
    // A member the daemon just closed is open again a moment later; at
    // most a few are between the two at any time.
    if (idle.fewest_open as f64) < idle.connections as f64 * HELD {
        failures.push(format!(
            "the crowd was not held at full size: {} of {} open at one point of a crowded round",
            idle.fewest_open, idle.connections
        ));
    }
    if idle.lifetimes.len() < idle.connections {
        failures.push(format!(
            "only {} idle connections were closed by the daemon, fewer than the {} held",
            idle.lifetimes.len(),
            idle.connections
        ));
    }
    let early = idle.lifetimes.iter().filter(|l| **l < idle.timeout.mul_f64(EARLY)).count();
    if early > 0 {
        failures.push(format!(
            "{early} idle connections were closed before the handshake timeout of {:.1} s (refused?)",
            idle.timeout.as_secs_f64()
        ));
    }
    if let Some(late) = idle.lifetimes.iter().max().filter(|l| **l > idle.timeout + CLOSE_SLACK) {
        failures.push(format!(
            "an idle connection lived {:.2} s, beyond the handshake timeout of {:.1} s + {:.1} s",
            late.as_secs_f64(),
            idle.timeout.as_secs_f64(),
            CLOSE_SLACK.as_secs_f64()
        ));
    }
    if idle.overdue > 0 {
        failures.push(format!("{} idle connections were still open long after the deadline", idle.overdue));
    }
    if idle.closed_by_deadline < idle.lifetimes.len() as f64 {
        failures.push(format!(
            "the daemon counted {} connections closed at the handshake deadline, the crowd saw {}",
            idle.closed_by_deadline,
            idle.lifetimes.len()
        ));
    }
    if idle.refused > 0.0 {
        failures
            .push(format!("{} connections were refused although the crowd is under the cap", idle.refused));
    }
}

/// Connections that say nothing, each replaced by a new one as soon as the
/// daemon closes it. Half send nothing at all, half send half the HTTP/2
/// preface. (Bytes that are not a preface, such as a ClientHello to this
/// plain-text port, are refused at once by the HTTP/2 layer: that is a
/// connection flood, not an idle crowd.)
struct Crowd {
    open: Arc<AtomicUsize>,
    stop: watch::Sender<bool>,
    members: Vec<tokio::task::JoinHandle<Seen>>,
}

/// What one member of the crowd saw.
#[derive(Default)]
struct Seen {
    lifetimes: Vec<Duration>,
    overdue: usize,
}

impl Crowd {
    /// Opens `size` connections to `addr`, spread over the first
    /// `timeout`, so that their replacements come at a steady pace rather
    /// than all at once every `timeout`.
    fn start(addr: SocketAddr, size: usize, timeout: Duration) -> Crowd {
        let open = Arc::new(AtomicUsize::new(0));
        let (stop, stopped) = watch::channel(false);
        let members = (0..size)
            .map(|i| {
                let (open, mut stopped) = (open.clone(), stopped.clone());
                // Silent, half a preface, or a whole handshake and no call
                // (closed by the idle timeout, set to the same).
                let first: &'static [u8] = match i % 3 {
                    0 => b"",
                    1 => HALF_PREFACE,
                    _ => PREFACE_AND_SETTINGS,
                };
                let stagger = timeout.mul_f64(i as f64 / size as f64);
                tokio::spawn(async move {
                    let mut seen = Seen::default();
                    tokio::select! {
                        () = until_stopped(&mut stopped) => return seen,
                        () = tokio::time::sleep(stagger) => {}
                    }
                    loop {
                        let opened = Instant::now();
                        let mut stream = tokio::select! {
                            () = until_stopped(&mut stopped) => return seen,
                            s = tokio::net::TcpStream::connect(addr) => match s {
                                Ok(s) => s,
                                Err(_) => {
                                    tokio::time::sleep(Duration::from_millis(50)).await;
                                    continue;
                                }
                            },
                        };
                        if !first.is_empty() {
                            let _ = tokio::io::AsyncWriteExt::write_all(&mut stream, first).await;
                        }
                        open.fetch_add(1, Ordering::Relaxed);
                        // Long enough to tell "closed late" from "never".
                        let wait = sockets::wait_closed(&mut stream, opened, timeout * 3 + CLOSE_SLACK);
                        let ending = tokio::select! {
                            () = until_stopped(&mut stopped) => None,
                            ending = wait => Some(ending),
                        };
                        open.fetch_sub(1, Ordering::Relaxed);
                        match ending {
                            None => return seen,
                            Some(Ending::Closed(after)) => seen.lifetimes.push(after),
                            Some(Ending::StillOpen) => seen.overdue += 1,
                        }
                    }
                })
            })
            .collect();
        Crowd { open, stop, members }
    }

    fn open_now(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Waits until every member is open.
    async fn wait_full(&self, limit: Duration) -> Result<(), String> {
        let started = Instant::now();
        while self.open_now() < self.members.len() {
            if started.elapsed() > limit {
                return Err(format!(
                    "the crowd of idle connections did not fill up: {} of {} open after {limit:?}",
                    self.open_now(),
                    self.members.len()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }

    /// Closes every member; returns what they saw.
    async fn stop(self) -> Seen {
        let _ = self.stop.send(true);
        let mut all = Seen::default();
        for member in self.members {
            if let Ok(seen) = member.await {
                all.lifetimes.extend(seen.lifetimes);
                all.overdue += seen.overdue;
            }
        }
        all
    }
}

/// Returns once `stopped` says so (or its sender is gone).
async fn until_stopped(stopped: &mut watch::Receiver<bool>) {
    loop {
        if *stopped.borrow_and_update() {
            return;
        }
        if stopped.changed().await.is_err() {
            return;
        }
    }
}

/// `GET /metrics` from the daemon.
async fn scrape(addr: SocketAddr) -> Result<String, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream.write_all(b"GET /metrics HTTP/1.1\r\nhost: arbiterd\r\n\r\n").await?;
        let mut text = String::new();
        stream.read_to_string(&mut text).await?;
        Ok::<_, std::io::Error>(text)
    };
    match tokio::time::timeout(Duration::from_secs(10), exchange).await {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("no answer in 10 s".into()),
    }
}

/// Makes sure this process (and the daemon it starts, which inherits the
/// limit) may open `need` files: raises the soft limit up to the hard one
/// with prlimit(1) (util-linux) if it is lower, as `ulimit -n` would.
fn ensure_open_files(need: usize) -> Result<(), String> {
    let read = || -> Option<(usize, usize)> {
        let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
        let mut fields = line.trim_start_matches("Max open files").split_whitespace();
        let parse =
            |f: Option<&str>| f.map(|v| if v == "unlimited" { usize::MAX } else { v.parse().unwrap_or(0) });
        Some((parse(fields.next())?, parse(fields.next())?))
    };
    let Some((soft, hard)) = read() else { return Ok(()) };
    if soft >= need {
        return Ok(());
    }
    if hard < need {
        return Err(format!(
            "the open-file limit is {soft} (hard {hard}); the scenario needs {need}: raise it"
        ));
    }
    let target =
        format!("--nofile={need}:{}", if hard == usize::MAX { "unlimited".into() } else { hard.to_string() });
    let pid = std::process::id().to_string();
    let status = std::process::Command::new("prlimit").args(["--pid", &pid, &target]).status();
    match (status, read()) {
        (Ok(s), Some((now, _))) if s.success() && now >= need => Ok(()),
        (status, _) => Err(format!(
            "the open-file limit is {soft}; the scenario needs {need} and prlimit could not raise it ({status:?}): run \
             `ulimit -n {need}` first"
        )),
    }
}
