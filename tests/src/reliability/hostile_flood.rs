//! Hostile clients, the creation flood (audit H2): one service token sends
//! CreateGame from many tasks at once, as fast as the service answers, while
//! another service token plays games at a human pace.
//!
//! Checks:
//! - the flood gets no more games than the token's bucket allows (`burst`
//!   plus `rate` a second, with a small allowance for timing) and never
//!   more than its cap on unfinished games; every refusal is
//!   RESOURCE_EXHAUSTED with reason `RATE_LIMITED` or
//!   `TOO_MANY_UNFINISHED_GAMES` and a `RetryInfo` delay, and nothing else
//!   fails;
//! - the other token's traffic all succeeds, and stays fast;
//! - memory stays bounded: the daemon's resident memory (from `/proc`)
//!   grows by at most `max_rss_growth_kib` over its warmed-up level;
//! - after a restart on the same database, only the games in play are
//!   loaded (the pending backlog is not), and memory is back near the
//!   start;
//! - the log reports no panic.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::Code;
use tonic_types::StatusExt;

use crate::daemon::{Daemon, arbiterd_path};
use crate::{SERVICE_TOKEN, new_game, regulations, v1 as pb};

/// How the creation flood runs.
#[derive(Clone, Debug)]
pub struct FloodOptions {
    /// Concurrent flooding tasks (one service token).
    pub tasks: usize,
    /// How long the flood lasts.
    pub seconds: u64,
    /// Limits given to the daemon (`None`: its defaults), as
    /// (create rate a second, burst, cap on unfinished games).
    pub limits: Option<(f64, u32, u64)>,
    /// The most the resident memory may grow over its warmed-up level.
    pub max_rss_growth_kib: u64,
}

impl FloodOptions {
    /// The CI form: 32 tasks for 8 s against small limits (rate 50/s,
    /// burst 100, cap 300), so both limits are reached quickly.
    pub fn short() -> FloodOptions {
        FloodOptions { tasks: 32, seconds: 8, limits: Some((50.0, 100, 300)), max_rss_growth_kib: 48 * 1024 }
    }

    /// The long form: 64 tasks (the audit's) for 150 s against the
    /// defaults (rate 50/s, burst 1,000, cap 5,000), so the cap is reached.
    pub fn long() -> FloodOptions {
        FloodOptions { tasks: 64, seconds: 150, limits: None, max_rss_growth_kib: 96 * 1024 }
    }
}

/// What the creation flood saw.
#[derive(Debug, Default)]
pub struct FloodReport {
    pub seconds: f64,
    pub created: usize,
    pub rate_limited: usize,
    pub capped: usize,
    pub other_errors: usize,
    pub refusals_without_retry_info: usize,
    pub allowed_at_most: usize,
    pub legit_ok: usize,
    pub legit_failed: usize,
    pub legit_max_ms: f64,
    pub rss_start_kib: u64,
    pub rss_max_kib: u64,
    pub rss_after_idle_kib: u64,
    pub tables_after_idle: Option<f64>,
    pub legit_in_play: usize,
    pub restart_tables: Option<f64>,
    pub rss_after_restart_kib: u64,
    pub panics: usize,
    pub failures: Vec<String>,
}

impl fmt::Display for FloodReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "hostile creation flood: {:.1} s; {} created (at most {} allowed), {} RATE_LIMITED, {} \
             TOO_MANY_UNFINISHED_GAMES, {} other errors, {} refusals without RetryInfo",
            self.seconds,
            self.created,
            self.allowed_at_most,
            self.rate_limited,
            self.capped,
            self.other_errors,
            self.refusals_without_retry_info
        )?;
        writeln!(
            f,
            "  other token: {} calls OK, {} failed, slowest {:.1} ms; {} games in play",
            self.legit_ok, self.legit_failed, self.legit_max_ms, self.legit_in_play
        )?;
        writeln!(
            f,
            "  RSS {} KiB at start, max {} KiB, {} KiB once idle ({:?} tables); after a restart {:?} tables, {} KiB",
            self.rss_start_kib,
            self.rss_max_kib,
            self.rss_after_idle_kib,
            self.tables_after_idle,
            self.restart_tables,
            self.rss_after_restart_kib
        )?;
        super::write_verdict(f, &self.failures)
    }
}

/// Issues a service token in the database (before the daemon opens it).
fn issue_service_token(database_url: &str) -> String {
    let out = std::process::Command::new(arbiterd_path())
        .args(["--database-url", database_url, "token", "issue", "--role", "service", "--label", "legit"])
        .output()
        .expect("run arbiterd token issue");
    assert!(out.status.success(), "token issue failed: {}", String::from_utf8_lossy(&out.stderr));
    // The log goes to standard output too: the token is the line that is one.
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().rev().find(|l| l.starts_with("arb_")).expect("a token in the output").trim().to_string()
}

/// A gauge or counter of the daemon's `/metrics`.
async fn metric(daemon: &Daemon, name: &str) -> Option<f64> {
    let mut stream = tokio::net::TcpStream::connect(daemon.metrics_addr).await.ok()?;
    stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).await.ok()?;
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

fn spawn(url: &str, log: &std::path::Path, args: &[String]) -> Daemon {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Daemon::spawn(url, log, &args)
}

/// Runs the creation flood.
pub async fn creation_flood(options: &FloodOptions) -> FloodReport {
    let mut report = FloodReport::default();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let log = dir.path().join("arbiterd.log");
    let legit_token = {
        let url = url.clone();
        tokio::task::spawn_blocking(move || issue_service_token(&url)).await.expect("token")
    };
    let mut args = Vec::new();
    if let Some((rate, burst, cap)) = options.limits {
        args.extend([
            "--create-rate".to_string(),
            rate.to_string(),
            "--create-burst".into(),
            burst.to_string(),
            "--max-unfinished-games".into(),
            cap.to_string(),
        ]);
    }
    let (rate, burst, cap) = options.limits.unwrap_or((50.0, 1_000, 5_000));
    let daemon = {
        let (url, log, args) = (url.clone(), log.clone(), args.clone());
        tokio::task::spawn_blocking(move || spawn(&url, &log, &args)).await.expect("arbiterd starts")
    };
    if let Err(e) = super::play::wait_serving(&daemon, Duration::from_secs(30)).await {
        report.failures.push(e);
    }

    // The other platform: a game every 200 ms, started, a move, a read.
    let stop = Arc::new(AtomicBool::new(false));
    let legit_task = {
        let stop = stop.clone();
        let mut client = daemon.client(&legit_token);
        let channel = daemon.channel();
        tokio::spawn(async move {
            let (mut ok, mut failed, mut max_ms, mut in_play) = (0usize, 0usize, 0f64, 0usize);
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let created =
                    client.create_game(new_game(regulations("15+10", pb::Mode::Online), true)).await;
                let outcome = match created {
                    Ok(r) => {
                        let r = r.into_inner();
                        let name = r.game.map(|g| g.name).unwrap_or_default();
                        let mut white = pb::arbiter_service_client::ArbiterServiceClient::with_interceptor(
                            channel.clone(),
                            crate::Bearer::new(&r.white_token),
                        );
                        let moved = white
                            .make_move(pb::MakeMoveRequest {
                                name: name.clone(),
                                r#move: "e4".into(),
                                ..Default::default()
                            })
                            .await;
                        let read = client.get_game(pb::GetGameRequest { name }).await;
                        moved.is_ok() && read.is_ok()
                    }
                    Err(_) => false,
                };
                max_ms = f64::max(max_ms, started.elapsed().as_secs_f64() * 1e3);
                if outcome {
                    ok += 1;
                    in_play += 1;
                } else {
                    failed += 1;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            (ok, failed, max_ms, in_play)
        })
    };
    // Warm-up: the service's steady memory before the flood.
    tokio::time::sleep(Duration::from_secs(2)).await;
    report.rss_start_kib = daemon.rss_kib().unwrap_or(0);
    report.rss_max_kib = report.rss_start_kib;

    let created = Arc::new(AtomicUsize::new(0));
    let rate_limited = Arc::new(AtomicUsize::new(0));
    let capped = Arc::new(AtomicUsize::new(0));
    let other = Arc::new(AtomicUsize::new(0));
    let no_retry = Arc::new(AtomicUsize::new(0));
    let first_error: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let started = Instant::now();
    let until = started + Duration::from_secs(options.seconds);
    let mut tasks = Vec::new();
    for _ in 0..options.tasks {
        let mut client = daemon.client(SERVICE_TOKEN);
        let (created, rate_limited, capped, other, no_retry, first_error) = (
            created.clone(),
            rate_limited.clone(),
            capped.clone(),
            other.clone(),
            no_retry.clone(),
            first_error.clone(),
        );
        tasks.push(tokio::spawn(async move {
            while Instant::now() < until {
                match client.create_game(new_game(regulations("90+30", pb::Mode::Online), false)).await {
                    Ok(_) => {
                        created.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(s) if s.code() == Code::ResourceExhausted => {
                        let reason = s.get_details_error_info().map(|i| i.reason).unwrap_or_default();
                        match reason.as_str() {
                            "RATE_LIMITED" => rate_limited.fetch_add(1, Ordering::Relaxed),
                            "TOO_MANY_UNFINISHED_GAMES" => capped.fetch_add(1, Ordering::Relaxed),
                            _ => other.fetch_add(1, Ordering::Relaxed),
                        };
                        if s.get_details_retry_info().and_then(|r| r.retry_delay).is_none() {
                            no_retry.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Err(s) => {
                        other.fetch_add(1, Ordering::Relaxed);
                        first_error.lock().unwrap().get_or_insert_with(|| format!("{s:?}"));
                    }
                }
            }
        }));
    }
    // Sampling on a fixed period is the measurement itself, not a wait.
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    while Instant::now() < until {
        ticks.tick().await;
        report.rss_max_kib = report.rss_max_kib.max(daemon.rss_kib().unwrap_or(0));
    }
    for t in tasks {
        let _ = t.await;
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.created = created.load(Ordering::Relaxed);
    report.rate_limited = rate_limited.load(Ordering::Relaxed);
    report.capped = capped.load(Ordering::Relaxed);
    report.other_errors = other.load(Ordering::Relaxed);
    report.refusals_without_retry_info = no_retry.load(Ordering::Relaxed);
    // The bucket's bound, with 5% and 5 calls of slack for timing.
    let by_rate = f64::from(burst) + rate * report.seconds;
    report.allowed_at_most = ((by_rate * 1.05) as usize + 5).min(usize::try_from(cap).unwrap_or(usize::MAX));
    if report.created > report.allowed_at_most {
        report.failures.push(format!(
            "the flood created {} games; its limits allow at most {}",
            report.created, report.allowed_at_most
        ));
    }
    if report.rate_limited == 0 {
        report.failures.push("the flood was never rate limited".into());
    }
    if by_rate > cap as f64 * 1.1 && report.capped == 0 {
        report.failures.push("the flood passed its cap on unfinished games without being refused".into());
    }
    if report.other_errors > 0 {
        report.failures.push(format!(
            "{} flood calls failed otherwise than RESOURCE_EXHAUSTED (first: {:?})",
            report.other_errors,
            first_error.lock().unwrap().clone()
        ));
    }
    if report.refusals_without_retry_info > 0 {
        report
            .failures
            .push(format!("{} refusals had no RetryInfo delay", report.refusals_without_retry_info));
    }

    // Idle: pending tables unload after 5 s without commands.
    tokio::time::sleep(Duration::from_secs(7)).await;
    stop.store(true, Ordering::Relaxed);
    let (ok, failed, max_ms, in_play) = legit_task.await.unwrap_or_default();
    (report.legit_ok, report.legit_failed, report.legit_max_ms, report.legit_in_play) =
        (ok, failed, max_ms, in_play);
    if failed > 0 || ok == 0 {
        report.failures.push(format!("the other token's traffic failed: {ok} OK, {failed} failed"));
    }
    if max_ms > 1_000.0 {
        report.failures.push(format!("the other token waited {max_ms:.0} ms for a call during the flood"));
    }
    report.rss_after_idle_kib = daemon.rss_kib().unwrap_or(0);
    report.tables_after_idle = metric(&daemon, "arbiter_tables_in_memory").await;
    // Reported only: the gauge counts the hall's map, which forgets stopped
    // tables in amortised prunes, so it lags behind the tables running; the
    // memory they hold is what the RSS bound checks.
    let growth = report.rss_max_kib.saturating_sub(report.rss_start_kib);
    if growth > options.max_rss_growth_kib {
        report.failures.push(format!(
            "resident memory grew by {growth} KiB during the flood (at most {} allowed)",
            options.max_rss_growth_kib
        ));
    }

    // A restart loads the games in play only.
    let terminated = tokio::task::spawn_blocking(move || daemon.terminate()).await.unwrap_or(false);
    if !terminated {
        report.failures.push("the daemon did not stop gracefully".into());
    }
    let daemon = {
        let (url, log, args) = (url.clone(), log.clone(), args.clone());
        tokio::task::spawn_blocking(move || spawn(&url, &log, &args)).await.expect("arbiterd restarts")
    };
    if let Err(e) = super::play::wait_serving(&daemon, Duration::from_secs(30)).await {
        report.failures.push(format!("after the restart: {e}"));
    }
    report.restart_tables = metric(&daemon, "arbiter_tables_in_memory").await;
    report.rss_after_restart_kib = daemon.rss_kib().unwrap_or(0);
    if report.restart_tables.is_none_or(|n| n > in_play as f64) {
        report.failures.push(format!(
            "after the restart {:?} tables were loaded; {in_play} games are in play",
            report.restart_tables
        ));
    }
    if report.rss_after_restart_kib > report.rss_start_kib + options.max_rss_growth_kib {
        report.failures.push(format!(
            "after the restart the daemon holds {} KiB (it started with {} KiB)",
            report.rss_after_restart_kib, report.rss_start_kib
        ));
    }
    // The flood's token is still capped after the restart.
    if by_rate > cap as f64 * 1.1 {
        let mut client = daemon.client(SERVICE_TOKEN);
        match client.create_game(new_game(regulations("90+30", pb::Mode::Online), false)).await {
            Err(s) if s.get_details_error_info().is_some_and(|i| i.reason == "TOO_MANY_UNFINISHED_GAMES") => {
            }
            other => report.failures.push(format!("after the restart the capped token got {other:?}")),
        }
    }
    report.panics = daemon.panics().len();
    if report.panics > 0 {
        report.failures.push(format!("{} panics in the log", report.panics));
    }
    drop(daemon);
    report
}
