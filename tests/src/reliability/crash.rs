//! Crash: one `arbiterd` on a SQLite file, killed with SIGKILL at random
//! moments under load and restarted on the same file.
//!
//! While it is down the file must pass `PRAGMA integrity_check`; the
//! players retry their pending request (same request id) against the
//! restarted daemon; at the end no acknowledged event may be lost or
//! recorded twice ([`play::verify`]). The clock rule after a restart is
//! checked on every game whose clock was running at the kill: a
//! `ServiceResumed` event with a FIDE-6.11 ruling is the game's next event
//! (recorded when the restarted daemon loads the game: at once if someone
//! acts on it or reads it, else shortly before its deadline, perhaps after
//! further kills, which it then covers too; loaded after a restart and left
//! alone over the next kill, it gets one for each), its outage covers the time the
//! daemon was not running (downtime is not charged), and the side to move
//! was charged its thinking time up to the last heartbeat (every 250 ms)
//! before the kill, and the time the daemon ran between kills, never more.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant, SystemTime};

use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

use super::play::{self, Endpoints, Load, LoadOptions, Rng, remaining, ts_ms, wall_ms};
use crate::v1 as pb;

/// The heartbeat interval of the daemon (`HEARTBEAT_INTERVAL` in the
/// server): thinking time after the last heartbeat before a crash is given
/// back, so at most this much may go uncharged.
const HEARTBEAT_MS: i64 = 250;

/// Clock readings and wall-clock timestamps are whole milliseconds taken at
/// slightly different instants.
const TOLERANCE_MS: i64 = 30;

/// How the crash scenario runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Games played at the same time.
    pub games: usize,
    /// How many times the daemon is killed.
    pub kills: usize,
    /// Each kill comes a random time in `min_delay..=max_delay` after the
    /// daemon (re)started serving.
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// Load after the last restart, before the players stop.
    pub after: Duration,
    /// Per game, one move per interval; `None`: closed loop.
    pub interval: Option<Duration>,
    /// Games moving only once per `slow_interval`, so that the side to move
    /// has been thinking for a while at a kill: they exercise the clock
    /// rule (closed-loop games have always just moved).
    pub slow_games: usize,
    pub slow_interval: Duration,
    /// A heartbeat may come late on a loaded machine: thinking time up to
    /// `HEARTBEAT_MS + heartbeat_slack` before a kill may go uncharged.
    pub heartbeat_slack: Duration,
    pub seed: u64,
}

impl Options {
    /// The CI form: 40 games, 3 kills (about 10 s).
    pub fn short() -> Options {
        Options {
            games: 40,
            kills: 3,
            min_delay: Duration::from_millis(300),
            max_delay: Duration::from_millis(2500),
            after: Duration::from_secs(1),
            interval: None,
            slow_games: 8,
            slow_interval: Duration::from_millis(1500),
            heartbeat_slack: Duration::from_millis(750),
            seed: 0x00c0_ffee,
        }
    }

    /// The long form: 200 games, 20 kills.
    pub fn long() -> Options {
        Options { games: 200, kills: 20, after: Duration::from_secs(3), ..Options::short() }
    }
}

/// One kill and restart.
#[derive(Clone, Debug)]
pub struct Kill {
    /// Since the scenario started.
    pub at: Duration,
    pub wall: SystemTime,
    /// The integrity check's answer (`ok`).
    pub integrity: String,
    /// When the restart began (after the integrity check).
    pub restart_wall: SystemTime,
    /// From spawning the new daemon to its health check answering SERVING
    /// (its unfinished games loaded).
    pub restart: Duration,
    /// Acknowledged events when it was killed.
    pub acked_before: usize,
}

/// What the crash scenario saw.
#[derive(Debug, Default)]
pub struct Report {
    pub kills: Vec<Kill>,
    pub acknowledged: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub games: usize,
    pub events: usize,
    /// Requests sent again after a transport failure.
    pub retried: u64,
    /// Games whose clock ran at a kill (each needs a ServiceResumed).
    pub resumed_checked: usize,
    /// Thinking time before a kill that was not charged (ms): max.
    pub max_uncharged_ms: i64,
    /// Charged beyond the kill instant (ms, should stay <= 0 plus the few
    /// ms between the restart and the ServiceResumed event): max.
    pub max_overcharged_ms: i64,
    /// Outages the ServiceResumed events recorded (ms): min and max.
    pub outage_ms: (i64, i64),
    pub seconds: f64,
    pub failures: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ok = self.kills.iter().filter(|k| k.integrity == "ok").count();
        let max_restart = self.kills.iter().map(|k| k.restart).max().unwrap_or_default();
        writeln!(
            f,
            "crash: {} kills in {:.1} s (SIGKILL under load, SQLite file)",
            self.kills.len(),
            self.seconds
        )?;
        writeln!(
            f,
            "  integrity_check ok: {ok}/{}; max restart (spawn to SERVING): {max_restart:.2?}",
            self.kills.len()
        )?;
        writeln!(
            f,
            "  events acknowledged {}, lost {}, duplicated {} ({} games, {} events in the logs, {} retries)",
            self.acknowledged, self.lost, self.duplicated, self.games, self.events, self.retried
        )?;
        writeln!(
            f,
            "  clocks after restart: {} running games checked; uncharged thinking time max {} ms (rule: <= {} ms \
             heartbeat + slack); beyond the kill max {} ms; recorded outages {}..{} ms",
            self.resumed_checked,
            self.max_uncharged_ms,
            HEARTBEAT_MS,
            self.max_overcharged_ms,
            self.outage_ms.0,
            self.outage_ms.1
        )?;
        super::write_verdict(f, &self.failures)
    }
}

/// `PRAGMA integrity_check` on the database file, joined (`ok` when sound).
async fn integrity(path: &Path) -> String {
    let options = match SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display())) {
        Ok(o) => o,
        Err(e) => return format!("cannot read the URL: {e}"),
    };
    let mut conn = match SqliteConnection::connect_with(&options).await {
        Ok(c) => c,
        Err(e) => return format!("cannot open: {e}"),
    };
    let rows: Result<Vec<String>, _> =
        sqlx::query_scalar("PRAGMA integrity_check").fetch_all(&mut conn).await;
    let _ = conn.close().await;
    match rows {
        Ok(rows) => rows.join("; "),
        Err(e) => format!("integrity_check failed: {e}"),
    }
}

/// Runs the scenario.
pub async fn run(options: &Options) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("arbiter.db");
    let url = format!("sqlite://{}", db.display());
    let log = dir.path().join("arbiterd.log");
    let mut daemon = play::spawn_daemon(&url, &log).await;
    let endpoints = Endpoints::new(&[daemon.url()]);
    let load_options = LoadOptions {
        games: options.games,
        time_control: "15+10".into(),
        interval: options.interval,
        max_plies: None,
        // A request waits through the restart (the integrity check, the
        // spawn, the games' reload): generous, reported if exceeded.
        retry_deadline: Duration::from_secs(60),
        seed: options.seed,
        spread: false,
    };
    let load = Load::start(&load_options, endpoints.clone()).await;
    let slow_options = LoadOptions {
        games: options.slow_games,
        interval: Some(options.slow_interval),
        seed: options.seed ^ 0x5105,
        ..load_options.clone()
    };
    let slow = Load::start(&slow_options, endpoints.clone()).await;
    let mut rng = Rng::new(options.seed);
    for _ in 0..options.kills {
        // The kill comes at a random moment: the random delay is the point.
        tokio::time::sleep(rng.between(options.min_delay, options.max_delay)).await;
        let acked_before = load.acknowledged();
        let wall = SystemTime::now();
        let at = started.elapsed();
        daemon.kill();
        let integrity = integrity(&db).await;
        if integrity != "ok" {
            report
                .failures
                .push(format!("integrity_check after kill {} said: {integrity}", report.kills.len() + 1));
        }
        let restart_wall = SystemTime::now();
        let spawning = Instant::now();
        daemon = play::spawn_daemon(&url, &log).await;
        if let Err(e) = play::wait_serving(&daemon, Duration::from_secs(30)).await {
            report.failures.push(format!("restart {}: {e}", report.kills.len() + 1));
        }
        let restart = spawning.elapsed();
        endpoints.set(&[daemon.url()]);
        report.kills.push(Kill { at, wall, integrity, restart_wall, restart, acked_before });
    }
    tokio::time::sleep(options.after).await;
    let mut outcome = load.stop().await;
    let slow_outcome = slow.stop().await;
    outcome.ledger.acks.extend(slow_outcome.ledger.acks);
    outcome.ledger.games.extend(slow_outcome.ledger.games);
    report.failures.extend(outcome.failures);
    report.failures.extend(slow_outcome.failures);
    report.retried = outcome.retried + slow_outcome.retried;
    if report.kills.iter().zip(report.kills.iter().skip(1)).any(|(a, b)| a.acked_before >= b.acked_before) {
        report
            .failures
            .push("no event was acknowledged between two kills: the players did not resume".into());
    }
    let mut arbiter = daemon.arbiter();
    let verification = play::verify(&outcome.ledger, &mut arbiter).await;
    report.acknowledged = verification.acknowledged;
    report.lost = verification.lost;
    report.duplicated = verification.duplicated;
    report.games = verification.games;
    report.events = verification.events;
    report.failures.extend(verification.failures);
    check_clocks(&verification.logs, options, &mut report);
    let panics = daemon.panics();
    if !panics.is_empty() {
        report.failures.push(format!("the daemon log reports {} panics, first: {}", panics.len(), panics[0]));
    }
    if !daemon.terminate() {
        report.failures.push("the last daemon did not shut down cleanly on SIGTERM".into());
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// Whether an event ends the game.
fn ends(event: &pb::GameEvent) -> bool {
    event.rulings.iter().any(|r| r.decision == "GAME_OVER")
}

/// The clock rule after each restart, on every game whose clock ran at the
/// kill (see the module documentation).
fn check_clocks(
    logs: &std::collections::HashMap<String, Vec<pb::GameEvent>>,
    options: &Options,
    report: &mut Report,
) {
    let slack = i64::try_from(options.heartbeat_slack.as_millis()).unwrap_or(i64::MAX);
    let mut failures = Vec::new();
    report.max_uncharged_ms = i64::MIN;
    report.max_overcharged_ms = i64::MIN;
    report.outage_ms = (i64::MAX, i64::MIN);
    let mut names: Vec<&String> = logs.keys().collect();
    names.sort();
    for name in names {
        let events = &logs[name];
        let mut covered_before: Option<usize> = None;
        for (k, kill) in report.kills.iter().enumerate() {
            let kill_ms = wall_ms(kill.wall);
            // The game as the killed daemon left it: its last event recorded
            // before the kill.
            let Some(before) =
                events.iter().rposition(|e| ts_ms(e.record_time.as_ref()).is_some_and(|t| t <= kill_ms))
            else {
                continue;
            };
            // A game is loaded again when someone acts on it, reads it or
            // its deadline nears, perhaps only after later kills: its one
            // resumption then covers every outage since this event, checked
            // once, at the first of those kills.
            if covered_before == Some(before) {
                continue;
            }
            covered_before = Some(before);
            let last = &events[before];
            let over = events[..=before].iter().any(ends);
            let Some(clocks) = last.clocks.as_ref() else { continue };
            let running = !over && !clocks.paused && clocks.running != pb::Color::Unspecified as i32;
            let next = events.get(before + 1);
            let resumed = next.filter(|e| e.act == "SERVICE_RESUMED");
            if !running {
                if resumed.is_some() {
                    failures.push(format!(
                        "{name}: a ServiceResumed after kill {} though its clock was stopped",
                        k + 1
                    ));
                }
                continue;
            }
            let Some(next) = next else {
                // Never loaded again (the final read loads every game, so
                // only a game the verification did not read).
                continue;
            };
            report.resumed_checked += 1;
            let Some(sr) = resumed else {
                failures.push(format!(
                    "{name}: seq {} ({}) was recorded after kill {} without a ServiceResumed before it (clock \
                     running: exactly one expected)",
                    next.seq,
                    next.act,
                    k + 1
                ));
                continue;
            };
            let sr_ms = ts_ms(sr.record_time.as_ref()).unwrap_or(0);
            // Two in a row are right when a kill came between them (the game
            // was loaded after each restart and nobody acted on it between):
            // each covers its own outages. With no kill between, one daemon
            // recorded the same outages twice.
            if let Some(again) = events.get(before + 2).filter(|e| e.act == "SERVICE_RESUMED") {
                let again_ms = ts_ms(again.record_time.as_ref()).unwrap_or(0);
                if !report.kills.iter().any(|later| (sr_ms..again_ms).contains(&wall_ms(later.wall))) {
                    failures.push(format!(
                        "{name}: two ServiceResumed events after kill {} with no kill between them",
                        k + 1
                    ));
                }
            }
            // The kills it covers: this one and every later one before it.
            let covered: Vec<&Kill> =
                report.kills[k..].iter().take_while(|later| wall_ms(later.wall) < sr_ms).collect();
            let Some(last_kill) = covered.last() else { continue };
            let Some(ruling) = sr.rulings.iter().find(|r| r.rule_id == "FIDE-6.11") else {
                failures
                    .push(format!("{name}: the ServiceResumed after kill {} has no FIDE-6.11 ruling", k + 1));
                continue;
            };
            let outage: i64 = ruling.facts.get("outage_ms").and_then(|o| o.parse().ok()).unwrap_or(-1);
            let previous_ms = ts_ms(last.record_time.as_ref()).unwrap_or(0);
            let (Some(a), Some(b)) = (last.clocks.as_ref(), sr.clocks.as_ref()) else { continue };
            let side = a.running;
            let loss = remaining(a, side) - remaining(b, side);
            let thinking = kill_ms - previous_ms;
            // Between two covered outages the service ran: that time counts.
            let between: i64 =
                covered.windows(2).map(|pair| wall_ms(pair[1].wall) - wall_ms(pair[0].restart_wall)).sum();
            let down: i64 = covered.iter().map(|c| wall_ms(c.restart_wall) - wall_ms(c.wall)).sum();
            // The last daemon's timeline runs from its start until the event
            // is recorded; that bit is rightly charged.
            let after_restart = (sr_ms - wall_ms(last_kill.restart_wall)).max(0);
            let charged = thinking + between;
            report.max_uncharged_ms = report.max_uncharged_ms.max(charged - loss);
            report.max_overcharged_ms = report.max_overcharged_ms.max(loss - charged - after_restart);
            report.outage_ms = (report.outage_ms.0.min(outage), report.outage_ms.1.max(outage));
            if outage < down - TOLERANCE_MS {
                failures.push(format!(
                    "{name}: kill {} ({} outages covered): the recorded outage {outage} ms is shorter than the {down} \
                     ms the daemon was not running",
                    k + 1,
                    covered.len()
                ));
            }
            if loss < -TOLERANCE_MS {
                failures.push(format!(
                    "{name}: kill {}: the side to move gained {} ms over the restart",
                    k + 1,
                    -loss
                ));
            }
            if loss > charged + after_restart + TOLERANCE_MS {
                failures.push(format!(
                    "{name}: kill {}: the side to move lost {loss} ms but thought only {thinking} ms before the kill \
                     (+{between} ms between outages, +{after_restart} ms after the last restart): downtime was charged",
                    k + 1
                ));
            }
            let slack_all = (HEARTBEAT_MS + slack) * i64::try_from(covered.len()).unwrap_or(1);
            if charged - loss > slack_all {
                failures.push(format!(
                    "{name}: kill {}: {} ms of thinking went uncharged over {} outages (heartbeat every \
                     {HEARTBEAT_MS} ms, slack {slack} ms each)",
                    k + 1,
                    charged - loss,
                    covered.len()
                ));
            }
        }
    }
    if report.resumed_checked == 0 && !report.kills.is_empty() {
        failures.push("no game had a running clock at any kill: the clock rule was not exercised".into());
    }
    if report.max_uncharged_ms == i64::MIN {
        report.max_uncharged_ms = 0;
        report.max_overcharged_ms = 0;
        report.outage_ms = (0, 0);
    }
    let total = failures.len();
    report.failures.extend(failures.into_iter().take(20));
    if total > 20 {
        report.failures.push(format!("... and {} more clock failures", total - 20));
    }
}
