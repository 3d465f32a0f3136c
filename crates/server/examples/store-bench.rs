//! Append throughput and latency of a store under many games.
//!
//! ```text
//! cargo run --release --example store-bench -p arbiter-server -- --games 1000 --seconds 5
//! cargo run --release --example store-bench -p arbiter-server -- --games 1000 --rate 5000
//! cargo run --release --example store-bench -p arbiter-server -- --games 1000 --rate 5000 \
//!     --database-url postgres://postgres@127.0.0.1:5432/test
//! ```
//!
//! Without `--database-url` the store is SQLite, in `--db` or a fresh temp
//! file. With a PostgreSQL URL the benchmark works in a schema of its own
//! (`arbiter_bench_<random>`), created first and dropped at the end, so it
//! leaves the database as it found it and can run next to other users.
//!
//! One task per game appends one event at a time, each waiting for the
//! previous acknowledgement (a game's moves are sequential). Without
//! `--rate` every task appends as fast as it is acknowledged (closed loop:
//! the store's saturation throughput; by Little's law the latency is then
//! games / throughput). With `--rate`, the tasks together offer that many
//! appends per second, spread evenly, and the latency is measured from each
//! append's scheduled time, so a store that falls behind shows it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use arbiter_server::store::{Append, EventRow, EventStore, GameRow, GameStatus, Storage, StoredView};
use clap::Parser;
use sqlx::{Connection, Executor};
use tokio::sync::Barrier;
use tokio::time::MissedTickBehavior;

#[derive(Debug, Parser)]
struct Args {
    /// Games, one appending task each.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Measured seconds (after the warm-up).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Seconds of appends before measuring.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Total offered appends per second; 0 appends as fast as acknowledged.
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Bytes of event JSON per append.
    #[arg(long, default_value_t = 200)]
    payload: usize,
    /// SQLite database file (default: a fresh temp file).
    #[arg(long, conflicts_with = "database_url")]
    db: Option<PathBuf>,
    /// A database URL to benchmark instead of SQLite, such as
    /// `postgres://postgres@127.0.0.1:5432/test`.
    #[arg(long)]
    database_url: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // `RUST_LOG=arbiter_server=trace` shows every batch the writer commits.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    ensure!(args.games > 0, "--games must be positive");
    let dir = tempfile::tempdir()?;
    let mut schema = None;
    let url = match &args.database_url {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            let name = format!("arbiter_bench_{}", uuid::Uuid::new_v4().simple());
            let mut admin = sqlx::PgConnection::connect(url).await.context("connecting to PostgreSQL")?;
            admin.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}"))).await?;
            admin.close().await?;
            let separator = if url.contains('?') { '&' } else { '?' };
            schema = Some(name.clone());
            format!("{url}{separator}options=-c%20search_path%3D{name}")
        }
        Some(url) => url.clone(),
        None => {
            let path = args.db.clone().unwrap_or_else(|| dir.path().join("bench.db"));
            format!("sqlite://{}", path.display())
        }
    };
    let outcome = run(&args, Storage::open(&url).await?).await;
    if let (Some(name), Some(url)) = (schema, &args.database_url) {
        let mut admin = sqlx::PgConnection::connect(url).await.context("connecting to PostgreSQL")?;
        admin.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA {name} CASCADE"))).await?;
        admin.close().await?;
    }
    outcome
}

async fn run(args: &Args, store: Storage) -> anyhow::Result<()> {
    let mut setup = tokio::task::JoinSet::new();
    for g in 0..args.games {
        let store = store.clone();
        setup.spawn(async move { store.create_game(&game(g)).await });
    }
    for created in setup.join_all().await {
        created?;
    }

    let warmup = Duration::from_secs_f64(args.warmup);
    let measured = Duration::from_secs_f64(args.seconds);
    let period = (args.rate > 0.0).then(|| Duration::from_secs_f64(args.games as f64 / args.rate));
    let games = args.games;
    let payload = Arc::new(format!(r#"{{"uci":"e2e4","pad":"{}"}}"#, "x".repeat(args.payload)));
    let barrier = Arc::new(Barrier::new(args.games + 1));

    let mut tasks = tokio::task::JoinSet::new();
    for g in 0..args.games {
        let (store, payload, barrier) = (store.clone(), payload.clone(), barrier.clone());
        tasks.spawn(async move {
            barrier.wait().await;
            let start = Instant::now();
            let (measure_from, end) = (start + warmup, start + warmup + measured);
            // Games start at staggered offsets so that the offered load is
            // even rather than a thousand appends on every period boundary.
            let mut ticks = period.map(|period| {
                let offset = period.mul_f64(g as f64 / games as f64);
                let mut ticks = tokio::time::interval_at((start + offset).into(), period);
                ticks.set_missed_tick_behavior(MissedTickBehavior::Burst);
                ticks
            });
            let mut latencies_us = Vec::new();
            let mut last_seq = 0;
            loop {
                let scheduled = match &mut ticks {
                    Some(ticks) => ticks.tick().await.into_std(),
                    None => Instant::now(),
                };
                if scheduled >= end {
                    break;
                }
                let append = append(g, last_seq, &payload);
                store.append(append).await.with_context(|| format!("game {g} seq {}", last_seq + 1))?;
                last_seq += 1;
                let done = Instant::now();
                if scheduled >= measure_from {
                    latencies_us.push(done.duration_since(scheduled).as_micros() as u64);
                }
            }
            anyhow::Ok((g, last_seq, latencies_us))
        });
    }
    barrier.wait().await;
    let started = Instant::now();
    let mut latencies = Vec::new();
    let mut expected_seqs = Vec::new();
    // `join_all` yields in completion order, hence the game index in each
    // task's answer.
    for outcome in tasks.join_all().await {
        let (g, last_seq, mut task_latencies) = outcome?;
        latencies.append(&mut task_latencies);
        expected_seqs.push((g, last_seq));
    }
    let elapsed = started.elapsed();

    // Every acknowledged append must be there.
    for (g, last_seq) in expected_seqs {
        let row = store.game(&game_id(g)).await?.context("game vanished")?;
        ensure!(row.last_seq == last_seq, "game {g}: last_seq {} instead of {last_seq}", row.last_seq);
    }
    store.close().await;

    latencies.sort_unstable();
    let pct = |p: f64| {
        let index = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len().max(1)) - 1;
        latencies.get(index).map_or(0.0, |&us| us as f64 / 1000.0)
    };
    let mode = if args.rate > 0.0 { format!("offered {:.0}/s", args.rate) } else { "closed loop".to_owned() };
    println!(
        "{} games, {mode}, {:.1}s measured ({:.1}s total): {} appends measured, {:.0} appends/s",
        args.games,
        measured.as_secs_f64(),
        elapsed.as_secs_f64(),
        latencies.len(),
        latencies.len() as f64 / measured.as_secs_f64(),
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  p99.9 {:.2}  max {:.2}",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999),
        pct(1.0)
    );
    Ok(())
}

fn game_id(g: usize) -> String {
    format!("bench-{g:05}")
}

fn game(g: usize) -> GameRow {
    GameRow {
        creator: None,
        id: game_id(g),
        request_id: Some(format!("create-{g}")),
        created_wall_ms: 0,
        event_name: "Bench Open".to_owned(),
        round: (g % 9 + 1).to_string(),
        white: format!("white-{g}"),
        black: format!("black-{g}"),
        spec_json: r#"{"regulations":"fide-2023","time_control":"90+30"}"#.to_owned(),
        status: GameStatus::Pending,
        result: None,
        view: None,
        last_seq: 0,
        updated_wall_ms: 0,
        spec_format: 1,
    }
}

fn append(g: usize, last_seq: i64, payload: &str) -> Append {
    let seq = last_seq + 1;
    Append {
        game_id: game_id(g),
        expected_last_seq: last_seq,
        events: vec![EventRow {
            game_id: game_id(g),
            seq,
            request_id: Some(format!("move-{seq}")),
            origin: None,
            actor: if seq % 2 == 1 { "white" } else { "black" }.to_owned(),
            at_ms: seq * 1_000,
            wall_ms: seq * 1_000,
            event_json: payload.to_owned(),
            rulings_json: r#"[{"kind":"clock","white_ms":5400000,"black_ms":5400000}]"#.to_owned(),
            format: 1,
        }],
        status: GameStatus::InProgress,
        result: None,
        // Every append of the server rewrites the game's read model.
        view: Some(StoredView { format: 1, json: payload.to_owned() }),
        deadline_wall_ms: Some(seq * 1_000 + 60_000),
    }
}
