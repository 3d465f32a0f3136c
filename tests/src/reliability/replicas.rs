//! Replicas: three `arbiterd` on one PostgreSQL schema, one killed with
//! SIGKILL under load.
//!
//! The players are spread over the three; when one dies, the players that
//! were on it send their pending request again (same request id) to the
//! survivors, and the load goes on. At the end no acknowledged event may
//! be lost or recorded twice ([`play::verify`]).
//!
//! Ownership (issue 18, point 3): each game is run by one replica, the one
//! that loaded it first (its creator here); each move goes to the next
//! replica after the previous move's, so most are forwarded to the owner.
//! Before the kill each replica must run about a third of the played
//! games (at least a sixth); after it, the victim's games must all have
//! moved to the survivors within [`Options::move_bound`] (its lease runs
//! out, the survivors look four times a second), split between them.
//!
//! Flags: games created on the replica that will die, with a short time
//! control and nobody moving, run out at staggered instants after the
//! kill. The survivors take them over and arm their timers, so each of
//! these games must get exactly one flag ruling, recorded by a survivor,
//! close to its deadline. Lateness is the flag event's record time minus
//! the deadline (the last reading before it plus the time left on the
//! running clock).

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use sqlx::{Connection, Executor};

use super::play::{self, Endpoints, Load, LoadOptions, quantile, remaining, ts_ms, wall_ms};
use crate::daemon::Daemon;
use crate::{new_game, regulations, v1 as pb};

/// The PostgreSQL server (`ARBITER_TEST_PG_URL` overrides it).
const DEFAULT_PG_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The rule ids of a flag: online (OCR 4.3) and over the board (FIDE 6.9).
const FLAG_RULES: [&str; 2] = ["OCR-4.3", "FIDE-6.9"];

/// How the replicas scenario runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Games played at the same time, spread over the replicas.
    pub games: usize,
    /// Games left to flag, created on the replica that is killed.
    pub flag_games: usize,
    /// Their base times, spread from `flag_min_s` to `flag_max_s` (whole
    /// seconds).
    pub flag_min_s: u32,
    pub flag_max_s: u32,
    /// The kill comes this long after the flag games are created.
    pub kill_after: Duration,
    /// Load after the kill.
    pub after_kill: Duration,
    /// Flags falling more than `settled` after the kill (every survivor
    /// has long loaded the game) must be recorded within `late_bound`.
    pub settled: Duration,
    pub late_bound: Duration,
    /// Any flag after the kill must be recorded within this (a sweep
    /// every 2 s, plus the load of a busy machine).
    pub any_bound: Duration,
    /// The victim's games must all be run by survivors this long after the
    /// kill.
    pub move_bound: Duration,
    pub seed: u64,
}

impl Options {
    /// The CI form: 12 games, 8 flag games, about 15 s.
    pub fn short() -> Options {
        Options {
            games: 12,
            flag_games: 8,
            flag_min_s: 3,
            flag_max_s: 7,
            kill_after: Duration::from_secs(2),
            after_kill: Duration::from_secs(6),
            settled: Duration::from_secs(3),
            late_bound: Duration::from_secs(1),
            any_bound: Duration::from_millis(3000),
            move_bound: Duration::from_secs(2),
            seed: 0x0000_5eed,
        }
    }

    /// The long form: 60 games, 40 flag games, a minute of load after the
    /// kill.
    pub fn long() -> Options {
        Options {
            games: 60,
            flag_games: 40,
            flag_max_s: 40,
            after_kill: Duration::from_secs(60),
            ..Options::short()
        }
    }
}

/// What the replicas scenario saw.
#[derive(Debug, Default)]
pub struct Report {
    pub acknowledged: usize,
    pub acknowledged_after_kill: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub games: usize,
    pub events: usize,
    pub retried: u64,
    /// Flag games, and those with exactly one flag ruling.
    pub flag_games: usize,
    pub flagged_once: usize,
    /// Lateness of every flag after the kill (ms), sorted.
    pub lateness_ms: Vec<i64>,
    /// Lateness of the flags falling more than `settled` after the kill.
    pub settled_lateness_ms: Vec<i64>,
    pub seconds: f64,
    /// Games in play (not the flag games) run by each replica before the
    /// kill.
    pub owned_before: Vec<i64>,
    /// How long after the kill the victim's last game in play moved, and
    /// how many survivors took its games.
    pub moved_after_ms: Option<u128>,
    pub takers: usize,
    pub failures: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "replicas: 3 daemons on one PostgreSQL schema, one killed under load; {:.1} s",
            self.seconds
        )?;
        writeln!(
            f,
            "  events acknowledged {} ({} after the kill), lost {}, duplicated {} ({} games, {} events, {} retries)",
            self.acknowledged,
            self.acknowledged_after_kill,
            self.lost,
            self.duplicated,
            self.games,
            self.events,
            self.retried
        )?;
        writeln!(
            f,
            "  flags: {}/{} games with exactly one flag ruling; lateness after the kill p50 {} ms max {} ms (n = {}); \
             settled p50 {} ms max {} ms (n = {})",
            self.flagged_once,
            self.flag_games,
            quantile(&self.lateness_ms, 0.5),
            quantile(&self.lateness_ms, 1.0),
            self.lateness_ms.len(),
            quantile(&self.settled_lateness_ms, 0.5),
            quantile(&self.settled_lateness_ms, 1.0),
            self.settled_lateness_ms.len()
        )?;
        writeln!(
            f,
            "  ownership: games in play per replica before the kill {:?}; the victim's games moved {} after the \
             kill, to {} survivors",
            self.owned_before,
            self.moved_after_ms.map_or_else(|| "never".to_owned(), |ms| format!("{ms} ms")),
            self.takers
        )?;
        super::write_verdict(f, &self.failures)
    }
}

/// A schema of its own on the PostgreSQL server (`ARBITER_TEST_PG_URL`,
/// by default the local one), dropped at the end.
#[derive(Debug)]
pub struct Schema {
    admin_url: String,
    name: String,
    dropped: bool,
}

impl Schema {
    /// Creates it.
    ///
    /// # Errors
    /// The server's refusal, or no answer in 10 s.
    pub async fn create() -> Result<Schema, String> {
        let admin_url = std::env::var("ARBITER_TEST_PG_URL").unwrap_or_else(|_| DEFAULT_PG_URL.to_string());
        let name = format!(
            "rel_{:x}",
            SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
        );
        let mut conn = tokio::time::timeout(Duration::from_secs(10), sqlx::PgConnection::connect(&admin_url))
            .await
            .map_err(|_| format!("PostgreSQL at {admin_url} did not answer in 10 s"))?
            .map_err(|e| format!("PostgreSQL at {admin_url}: {e}"))?;
        conn.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}")))
            .await
            .map_err(|e| format!("CREATE SCHEMA {name}: {e}"))?;
        let _ = conn.close().await;
        Ok(Schema { admin_url, name, dropped: false })
    }

    /// The URL the daemons use: the schema first on the search path.
    pub fn url(&self) -> String {
        let separator = if self.admin_url.contains('?') { '&' } else { '?' };
        format!("{}{separator}options=-c%20search_path%3D{}", self.admin_url, self.name)
    }

    /// Drops it now (else when dropped, from a thread of its own).
    ///
    /// # Errors
    /// The server's refusal.
    pub async fn drop_now(mut self) -> Result<(), String> {
        self.dropped = true;
        drop_schema(&self.admin_url, &self.name).await
    }
}

async fn drop_schema(admin_url: &str, name: &str) -> Result<(), String> {
    let mut conn = sqlx::PgConnection::connect(admin_url).await.map_err(|e| e.to_string())?;
    // A connection a dead replica left open could hold a lock: give up
    // rather than hang.
    conn.execute("SET lock_timeout = '10s'").await.map_err(|e| e.to_string())?;
    conn.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA {name} CASCADE")))
        .await
        .map_err(|e| e.to_string())?;
    conn.close().await.map_err(|e| e.to_string())
}

impl Drop for Schema {
    fn drop(&mut self) {
        if self.dropped {
            return;
        }
        // A scenario that panicked still drops its schema, from a thread
        // with a runtime of its own (`drop` cannot await).
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(drop_schema(&url, &name)).ok()
        })
        .join();
    }
}

/// Runs the scenario.
pub async fn run(options: &Options) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    let schema = match Schema::create().await {
        Ok(s) => s,
        Err(e) => {
            report.failures.push(e);
            return report;
        }
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let url = schema.url();
    let mut daemons = Vec::new();
    for i in 0..3 {
        let daemon = play::spawn_daemon(&url, &dir.path().join(format!("replica-{i}.log"))).await;
        if let Err(e) = play::wait_serving(&daemon, Duration::from_secs(30)).await {
            report.failures.push(format!("replica {i}: {e}"));
        }
        daemons.push(daemon);
    }
    let endpoints = Endpoints::new(&daemons.iter().map(Daemon::url).collect::<Vec<_>>());
    let load_options = LoadOptions {
        games: options.games,
        time_control: "15+10".into(),
        interval: None,
        max_plies: None,
        retry_deadline: Duration::from_secs(30),
        seed: options.seed,
        spread: true,
    };
    let load = Load::start(&load_options, endpoints.clone()).await;

    // The flag games, on the replica that will die; nobody moves in them.
    let victim = daemons.pop().expect("three replicas");
    let mut on_victim = victim.arbiter();
    let mut flag_names = Vec::new();
    let span = options.flag_max_s.saturating_sub(options.flag_min_s);
    for i in 0..options.flag_games {
        let base = options.flag_min_s + (i as u32 * (span + 1)) / options.flag_games.max(1) as u32;
        let request = new_game(regulations(&format!("{base}s"), pb::Mode::Online), true);
        match on_victim.create_game(request).await {
            Ok(created) => match created.into_inner().game {
                Some(game) => flag_names.push(game.name),
                None => report.failures.push("CreateGame (flag game) answered without a game".into()),
            },
            Err(e) => report.failures.push(format!("CreateGame (flag game) on the victim: {e}")),
        }
    }
    report.flag_games = flag_names.len();
    tokio::time::sleep(options.kill_after).await;

    // Who runs what, read from the database.
    let mut db = match sqlx::PgConnection::connect(&url).await {
        Ok(c) => Some(c),
        Err(e) => {
            report.failures.push(format!("reading the owners: {e}"));
            None
        }
    };
    let flag_ids: Vec<String> =
        flag_names.iter().map(|n| n.trim_start_matches("games/").to_owned()).collect();
    let mut victim_id = None;
    if let Some(db) = db.as_mut() {
        let owned: Result<Vec<(String, i64)>, _> = sqlx::query_as(
            "SELECT owner, count(*) FROM games WHERE status = 'IN_PROGRESS' AND owner IS NOT NULL \
             AND NOT (id = ANY($1)) GROUP BY owner ORDER BY owner",
        )
        .bind(&flag_ids)
        .fetch_all(&mut *db)
        .await;
        match owned {
            Ok(rows) => report.owned_before = rows.iter().map(|(_, n)| *n).collect(),
            Err(e) => report.failures.push(format!("reading the owners: {e}")),
        }
        let total: i64 = report.owned_before.iter().sum();
        if report.owned_before.len() != 3 || report.owned_before.iter().any(|&n| n * 6 < total) {
            report.failures.push(format!(
                "the games in play are not partitioned over the three replicas: {:?} games each",
                report.owned_before
            ));
        }
        victim_id = sqlx::query_scalar::<_, Option<String>>("SELECT owner FROM games WHERE id = $1")
            .bind(flag_ids.first().cloned().unwrap_or_default())
            .fetch_optional(&mut *db)
            .await
            .ok()
            .flatten()
            .flatten();
        if victim_id.is_none() {
            report.failures.push("the flag games created on the victim have no owner".into());
        }
    }

    // The players on the dead replica see their requests fail and send
    // them again, with the same request id, to the survivors.
    let acked_at_kill = load.acknowledged();
    let kill_wall = SystemTime::now();
    let victim_log = victim.log_path.clone();
    victim.kill();
    endpoints.set(&daemons.iter().map(Daemon::url).collect::<Vec<_>>());
    let killed = Instant::now();
    if let (Some(db), Some(victim_id)) = (db.as_mut(), victim_id.as_deref()) {
        // Watch the victim's games in play move.
        let give_up = options.move_bound * 3;
        while killed.elapsed() < give_up {
            let left: Result<i64, _> =
                sqlx::query_scalar("SELECT count(*) FROM games WHERE status = 'IN_PROGRESS' AND owner = $1")
                    .bind(victim_id)
                    .fetch_one(&mut *db)
                    .await;
            match left {
                Ok(0) => {
                    report.moved_after_ms = Some(killed.elapsed().as_millis());
                    break;
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                Err(e) => {
                    report.failures.push(format!("reading the victim's games: {e}"));
                    break;
                }
            }
        }
        match report.moved_after_ms {
            Some(ms) if ms > options.move_bound.as_millis() => report.failures.push(format!(
                "the victim's games moved {ms} ms after the kill (bound {} ms)",
                options.move_bound.as_millis()
            )),
            Some(_) => {}
            None => report
                .failures
                .push(format!("the victim still runs games {} s after the kill", give_up.as_secs())),
        }
        let takers: Result<Vec<String>, _> =
            sqlx::query_scalar("SELECT DISTINCT owner FROM games WHERE id = ANY($1) AND owner IS NOT NULL")
                .bind(&flag_ids)
                .fetch_all(&mut *db)
                .await;
        report.takers = takers.map_or(0, |t| t.iter().filter(|o| o.as_str() != victim_id).count());
        if flag_ids.len() >= 8 && report.takers < 2 {
            report.failures.push(format!(
                "the victim's games went to {} survivor(s), not split between the two",
                report.takers
            ));
        }
    }
    if let Some(db) = db {
        let _ = db.close().await;
    }
    tokio::time::sleep(options.after_kill.saturating_sub(killed.elapsed())).await;

    // Every flag game must be over; wait for the last deadlines.
    let mut survivor = daemons[0].arbiter();
    let wait_until = Instant::now() + Duration::from_secs(u64::from(options.flag_max_s) + 10);
    let mut open: Vec<String> = flag_names.clone();
    while !open.is_empty() && Instant::now() < wait_until {
        let mut still = Vec::new();
        for name in open {
            match survivor.get_game(pb::GetGameRequest { name: name.clone() }).await {
                Ok(r)
                    if r.get_ref()
                        .game
                        .as_ref()
                        .is_some_and(|g| g.status == pb::GameStatus::Finished as i32) => {}
                _ => still.push(name),
            }
        }
        open = still;
        if !open.is_empty() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for name in &open {
        report.failures.push(format!("{name}: no flag ruling {} s after its deadline", 10));
    }

    let mut outcome = load.stop().await;
    report.failures.extend(outcome.failures);
    report.retried = outcome.retried;
    report.acknowledged_after_kill = outcome.ledger.acks.len().saturating_sub(acked_at_kill);
    if report.acknowledged_after_kill == 0 {
        report.failures.push("no event was acknowledged after the kill".into());
    }
    outcome.ledger.games.extend(flag_names.iter().cloned());
    let verification = play::verify(&outcome.ledger, &mut survivor).await;
    report.acknowledged = verification.acknowledged;
    report.lost = verification.lost;
    report.duplicated = verification.duplicated;
    report.games = verification.games;
    report.events = verification.events;
    report.failures.extend(verification.failures);

    let kill_ms = wall_ms(kill_wall);
    let settled_ms = kill_ms + i64::try_from(options.settled.as_millis()).unwrap_or(i64::MAX);
    for name in &flag_names {
        let Some(events) = verification.logs.get(name) else { continue };
        check_flag(name, events, kill_ms, settled_ms, options, &mut report);
    }
    report.lateness_ms.sort_unstable();
    report.settled_lateness_ms.sort_unstable();

    for (i, daemon) in daemons.iter().enumerate() {
        let panics = daemon.panics();
        if !panics.is_empty() {
            report.failures.push(format!("replica {i} logged {} panics, first: {}", panics.len(), panics[0]));
        }
    }
    let panics = crate::daemon::log_panics(&victim_log);
    if !panics.is_empty() {
        report.failures.push(format!(
            "the killed replica logged {} panics, first: {}",
            panics.len(),
            panics[0]
        ));
    }
    for daemon in daemons {
        if !daemon.terminate() {
            report.failures.push("a surviving replica did not shut down cleanly on SIGTERM".into());
        }
    }
    if let Err(e) = schema.drop_now().await {
        report.failures.push(format!("dropping the schema: {e}"));
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// One flag game: exactly one flag ruling, recorded after the kill by a
/// survivor, and how late.
fn check_flag(
    name: &str,
    events: &[pb::GameEvent],
    kill_ms: i64,
    settled_ms: i64,
    options: &Options,
    report: &mut Report,
) {
    let flags: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.rulings.iter().any(|r| r.decision == "GAME_OVER" && FLAG_RULES.contains(&r.rule_id.as_str()))
        })
        .map(|(i, _)| i)
        .collect();
    let [i] = flags.as_slice() else {
        let acts: Vec<String> = events
            .iter()
            .map(|e| {
                let rulings: Vec<String> =
                    e.rulings.iter().map(|r| format!("{}/{}", r.rule_id, r.decision)).collect();
                format!("{} {} {} [{}]", e.seq, e.act, e.actor, rulings.join(" "))
            })
            .collect();
        report.failures.push(format!(
            "{name}: {} flag rulings (exactly one expected); its log: {}",
            flags.len(),
            acts.join("; ")
        ));
        return;
    };
    report.flagged_once += 1;
    let Some(before) = i.checked_sub(1).map(|j| &events[j]) else { return };
    let Some(clocks) = before.clocks.as_ref() else {
        report.failures.push(format!("{name}: the event before the flag has no clock reading"));
        return;
    };
    let Some(read_ms) = ts_ms(clocks.read_time.as_ref()).or_else(|| ts_ms(before.record_time.as_ref()))
    else {
        return;
    };
    let deadline = read_ms + remaining(clocks, clocks.running);
    let flag = &events[*i];
    let recorded = ts_ms(flag.record_time.as_ref()).unwrap_or(0);
    let late = recorded - deadline;
    if deadline <= kill_ms {
        // The victim was still alive: whoever recorded it, it is not what
        // this scenario measures.
        return;
    }
    report.lateness_ms.push(late);
    if recorded <= kill_ms {
        report.failures.push(format!("{name}: the flag was recorded before the kill although due after it"));
    }
    let any_bound = i64::try_from(options.any_bound.as_millis()).unwrap_or(i64::MAX);
    if late > any_bound || late < -50 {
        report.failures.push(format!(
            "{name}: flag recorded {late} ms after its deadline (due {} ms after the kill; bound {any_bound} ms)",
            deadline - kill_ms
        ));
    }
    if deadline > settled_ms {
        report.settled_lateness_ms.push(late);
        let bound = i64::try_from(options.late_bound.as_millis()).unwrap_or(i64::MAX);
        if late > bound {
            report.failures.push(format!(
                "{name}: flag recorded {late} ms late although due {} ms after the kill (bound {bound} ms)",
                deadline - kill_ms
            ));
        }
    }
}
