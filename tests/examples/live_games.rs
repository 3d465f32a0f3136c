//! Many live games on one node (issue 18, point 2): N started games with
//! running clocks on the embedded default (SQLite, synchronous=FULL), in a
//! real `arbiterd` process; then its resident memory per live game, a crash
//! (SIGKILL) and the time the restart takes to serve again with all of
//! them, and every flag: each game is left to run out of time and must be
//! ruled, on time.
//!
//! ```sh
//! cargo build --release -p arbiter-server --bin arbiterd
//! cargo run --release -p arbiter-e2e --example live_games -- --games 100000
//! ```
//!
//! Options: `--games N` (100,000), `--base-seconds S` (the time control's
//! base, 150), `--spread-seconds S` (bases go from S below the base up to
//! it, so that the flags do not all fall in one second; 60), `--concurrency
//! C` (CreateGame calls in flight, 64). The `arbiterd` it runs is the one
//! `ARBITERD` names, else the one built beside it (the same profile).
//!
//! It prints the resident memory before any game, with every game started
//! and left alone (tables put away, deadlines armed; this process also
//! keeps what its allocator kept of the peak of tables loaded while the
//! games were created) and after the restart (every game live, nothing
//! else), the bytes per live game, the time from the restart to `SERVING`,
//! and the lateness of
//! the flag rulings from the service's own histogram
//! (`arbiter_deadline_lateness_seconds`); it exits with 1 if a game is
//! still in play after its flag could have fallen, or the daemon panicked.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arbiter_e2e::daemon::Daemon;
use arbiter_e2e::{new_game, regulations, v1 as pb};

struct Args {
    games: usize,
    base_seconds: u64,
    spread_seconds: u64,
    concurrency: usize,
}

fn args() -> Args {
    let mut a = Args { games: 100_000, base_seconds: 150, spread_seconds: 60, concurrency: 64 };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let value = argv.get(i + 1).and_then(|v| v.parse::<u64>().ok());
        match (argv[i].as_str(), value) {
            ("--games", Some(v)) => a.games = v as usize,
            ("--base-seconds", Some(v)) => a.base_seconds = v.max(30),
            ("--spread-seconds", Some(v)) => a.spread_seconds = v,
            ("--concurrency", Some(v)) => a.concurrency = v.max(1) as usize,
            (other, _) => {
                eprintln!("unknown or incomplete argument {other}");
                eprintln!(
                    "usage: live_games [--games N] [--base-seconds S] [--spread-seconds S] [--concurrency C]"
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    a.spread_seconds = a.spread_seconds.min(a.base_seconds - 20);
    a
}

/// The service's metrics page.
fn metrics(addr: SocketAddr) -> String {
    let Ok(mut stream) = TcpStream::connect(addr) else { return String::new() };
    let _ = stream.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n");
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

/// The value of an unlabelled metric (0 if absent).
fn metric(page: &str, name: &str) -> f64 {
    page.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// The cumulative buckets of a histogram: (upper bound, count).
fn buckets(page: &str, name: &str) -> Vec<(f64, f64)> {
    let prefix = format!("{name}_bucket{{le=\"");
    page.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(&prefix)?;
            let (le, count) = rest.split_once("\"}")?;
            let le = if le == "+Inf" { f64::INFINITY } else { le.parse().ok()? };
            Some((le, count.trim().parse().ok()?))
        })
        .collect()
}

/// The smallest bucket bound under which `q` of the observations fall.
fn quantile_bound(buckets: &[(f64, f64)], q: f64) -> f64 {
    let total = buckets.last().map_or(0.0, |b| b.1);
    buckets.iter().find(|(_, count)| *count >= total * q).map_or(f64::NAN, |b| b.0)
}

async fn wait_serving(addr: SocketAddr, timeout: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if let Ok(channel) =
            tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await
        {
            let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
            if let Ok(answer) =
                health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await
                && answer.into_inner().status
                    == tonic_health::pb::health_check_response::ServingStatus::Serving as i32
            {
                return Some(started.elapsed());
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    None
}

#[tokio::main]
async fn main() {
    let args = args();
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let log = dir.path().join("arbiterd.log");
    let limits =
        ["--create-rate", "1000000", "--create-burst", "1000000", "--max-unfinished-games", "10000000"];
    let daemon = Daemon::spawn(&url, &log, &limits);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let baseline_kib = daemon.rss_kib().unwrap_or(0);
    println!("arbiterd {} on {url}", arbiter_e2e::daemon::arbiterd_path().display());
    println!("resident memory before any game: {:.1} MiB", baseline_kib as f64 / 1024.0);

    // Create and start the games, `concurrency` calls in flight.
    let created = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.concurrency {
        let mut client = daemon.arbiter();
        let created = Arc::clone(&created);
        let (games, base, spread) = (args.games, args.base_seconds, args.spread_seconds);
        tasks.push(tokio::spawn(async move {
            loop {
                let i = created.fetch_add(1, Ordering::Relaxed);
                if i >= games {
                    return;
                }
                // Bases spread over `spread` seconds: the flags too.
                let seconds = base - spread + (i as u64 * 7919) % (spread + 1);
                let tc = format!("pgn:{seconds}+0");
                let request = new_game(regulations(&tc, pb::Mode::Online), true);
                let mut attempt = 0;
                while let Err(status) = client.create_game(request.clone()).await {
                    attempt += 1;
                    assert!(attempt < 20, "CreateGame failed: {status:?}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("creator");
    }
    let create_s = started.elapsed().as_secs_f64();
    println!(
        "{} games created and started in {create_s:.1} s ({:.0}/s)",
        args.games,
        args.games as f64 / create_s
    );
    // Left alone, the tables are put away (5 s without commands) and only
    // the deadlines stay armed.
    let settle = Instant::now();
    let mut page = metrics(daemon.metrics_addr);
    while settle.elapsed() < Duration::from_secs(30)
        && (settle.elapsed() < Duration::from_secs(8) || metric(&page, "arbiter_tables_in_memory") > 100.0)
    {
        tokio::time::sleep(Duration::from_millis(500)).await;
        page = metrics(daemon.metrics_addr);
    }
    let live_kib = daemon.rss_kib().unwrap_or(0);
    let per_game = (live_kib.saturating_sub(baseline_kib) * 1024) as f64 / args.games as f64;
    println!(
        "resident memory with {} live games: {:.1} MiB, {per_game:.0} bytes per live game beyond the baseline \
         (tables loaded {}, deadlines armed {})",
        args.games,
        live_kib as f64 / 1024.0,
        metric(&page, "arbiter_tables_in_memory"),
        metric(&page, "arbiter_timers_armed"),
    );

    // A crash, and the restart with every game in play.
    daemon.kill();
    let restarted = Instant::now();
    let daemon = Daemon::spawn(&url, &log, &limits);
    let serving = wait_serving(daemon.addr, Duration::from_secs(120)).await;
    let restart_s = restarted.elapsed().as_secs_f64();
    match serving {
        Some(_) => println!("restart to SERVING with {} games in play: {restart_s:.2} s", args.games),
        None => println!("restart: not SERVING after {restart_s:.0} s"),
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let restarted_kib = daemon.rss_kib().unwrap_or(0);
    // The same games, live, in a process that did not go through the burst
    // of creations (whose peak of loaded tables the allocator may keep).
    println!(
        "resident memory after the restart: {:.1} MiB, {:.0} bytes per live game beyond the first baseline",
        restarted_kib as f64 / 1024.0,
        (restarted_kib.saturating_sub(baseline_kib) * 1024) as f64 / args.games as f64
    );

    // Every flag falls within `base_seconds` (plus the outage, which is not
    // charged) of its game's start: the last game created, last.
    let wait_until = started
        + Duration::from_secs_f64(create_s)
        + Duration::from_secs(args.base_seconds)
        + restarted.elapsed()
        + Duration::from_secs(30);
    let mut page;
    loop {
        page = metrics(daemon.metrics_addr);
        let flags = metric(&page, "arbiter_flags_total");
        if flags as usize >= args.games || Instant::now() > wait_until {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let flags = metric(&page, "arbiter_flags_total") as usize;
    let lateness = buckets(&page, "arbiter_deadline_lateness_seconds");
    let peak_kib = std::fs::read_to_string(format!("/proc/{}/status", daemon.pid()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0);
    println!(
        "flags ruled after the restart: {flags} of {}; lateness p50 <= {} s, p99 <= {} s, max <= {} s; \
         peak resident memory {:.1} MiB",
        args.games,
        quantile_bound(&lateness, 0.50),
        quantile_bound(&lateness, 0.99),
        quantile_bound(&lateness, 1.0),
        peak_kib as f64 / 1024.0,
    );
    let panics = daemon.panics();
    let ok = flags >= args.games && panics.is_empty() && serving.is_some();
    if !panics.is_empty() {
        eprintln!("arbiterd panicked: {panics:?}");
    }
    if !ok {
        std::process::exit(1);
    }
}
