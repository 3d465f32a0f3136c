//! Soak: one `arbiterd` on a SQLite file under steady load for a while,
//! with game churn: each game plays up to `max_plies` plies, then the side
//! to move resigns or the arbiter declares a draw (or the rules end it
//! first), and its player creates a new game, so the number of live games
//! stays constant.
//!
//! Memory must stay flat. The daemon's resident memory is sampled every
//! `sample_every`; the first 20% of the run is warm-up. Two rules:
//!
//! - The largest sample of the last quarter of the run must not exceed the
//!   median of the second quarter by more than 20% + 16 MiB (a jump).
//! - In runs of ten minutes or more, the least-squares trend of the samples
//!   after the first quarter, carried over those three quarters, must not
//!   exceed 8 MiB (a creep). A trend is blind to an allocator's saw-tooth
//!   (memory returned to the system in batches), which a maximum is not, and
//!   it catches a slow leak that the first rule lets pass: 1.4 MiB a minute
//!   passed it in a 30-minute run. Short runs are all warm-up, so only the
//!   first rule applies to them.
//!
//! The log must report no panic, and the ledger must verify
//! ([`play::verify`]).

use std::fmt;
use std::time::{Duration, Instant};

use super::play::{self, Endpoints, Load, LoadOptions, quantile};

/// The allowed growth: a ratio of the second quarter's median, plus a
/// fixed allowance (allocator caches, SQLite's page cache filling up).
const GROWTH_RATIO: f64 = 0.20;
const GROWTH_KIB: u64 = 16 * 1024;
/// The trend rule: runs at least this long, growth at most this much over
/// the last three quarters.
const TREND_MIN_SECONDS: u64 = 600;
const TREND_MAX_KIB: f64 = 8.0 * 1024.0;

/// How the soak scenario runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Live games (one player each).
    pub games: usize,
    /// How long the load runs.
    pub seconds: u64,
    /// Each game moves once per interval.
    pub interval: Duration,
    /// Plies before a game is ended and replaced.
    pub max_plies: u32,
    /// How often the resident memory is read.
    pub sample_every: Duration,
    pub seed: u64,
}

impl Options {
    /// The CI form: 16 games moving every 100 ms for 20 s.
    pub fn short() -> Options {
        Options {
            games: 16,
            seconds: 20,
            interval: Duration::from_millis(100),
            max_plies: 40,
            sample_every: Duration::from_secs(1),
            seed: 0x0050_a4ed,
        }
    }

    /// The long form: 100 games moving every 200 ms for 30 minutes.
    pub fn long() -> Options {
        Options {
            games: 100,
            seconds: 1800,
            interval: Duration::from_millis(200),
            sample_every: Duration::from_secs(5),
            ..Options::short()
        }
    }
}

/// What the soak scenario saw.
#[derive(Debug, Default)]
pub struct Report {
    pub seconds: f64,
    pub moves: usize,
    pub acknowledged: usize,
    pub games_finished: u64,
    pub games: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// (seconds since the start, resident KiB).
    pub rss: Vec<(f64, u64)>,
    pub rss_start_kib: u64,
    pub rss_after_warmup_kib: u64,
    pub rss_end_kib: u64,
    pub rss_max_kib: u64,
    /// The median of the second quarter and the largest sample of the
    /// last, which the rule compares.
    pub rss_second_quarter_median_kib: u64,
    pub rss_last_quarter_max_kib: u64,
    pub rss_limit_kib: u64,
    /// The trend of the last three quarters, KiB per minute (long runs).
    pub rss_trend_kib_per_min: Option<f64>,
    pub panics: usize,
    pub failures: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "soak: {:.0} s, {} moves ({:.0}/s), {} games finished and replaced; latency p50 {:.2} ms p99 {:.2} ms max \
             {:.2} ms",
            self.seconds,
            self.moves,
            self.moves as f64 / self.seconds.max(1e-9),
            self.games_finished,
            self.p50_ms,
            self.p99_ms,
            self.max_ms
        )?;
        writeln!(
            f,
            "  events acknowledged {}, lost {}, duplicated {} ({} games verified); panics in the log: {}",
            self.acknowledged, self.lost, self.duplicated, self.games, self.panics
        )?;
        writeln!(
            f,
            "  RSS (MiB): start {:.1}, after warm-up {:.1}, end {:.1}, max {:.1} ({} samples)",
            mib(self.rss_start_kib),
            mib(self.rss_after_warmup_kib),
            mib(self.rss_end_kib),
            mib(self.rss_max_kib),
            self.rss.len()
        )?;
        writeln!(
            f,
            "  memory rule: max of the last quarter {:.1} MiB <= median of the second quarter {:.1} MiB x 1.2 + 16 \
             MiB = {:.1} MiB",
            mib(self.rss_last_quarter_max_kib),
            mib(self.rss_second_quarter_median_kib),
            mib(self.rss_limit_kib)
        )?;
        if let Some(slope) = self.rss_trend_kib_per_min {
            writeln!(
                f,
                "  memory trend after the first quarter: {:+.2} MiB/min, {:+.1} MiB over {:.0} min (at most {:.0} MiB)",
                slope / 1024.0,
                slope * self.seconds * 0.75 / 60.0 / 1024.0,
                self.seconds * 0.75 / 60.0,
                TREND_MAX_KIB / 1024.0
            )?;
        }
        super::write_verdict(f, &self.failures)
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Runs the scenario.
pub async fn run(options: &Options) -> Report {
    let mut report = Report::default();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let daemon = play::spawn_daemon(&url, &dir.path().join("arbiterd.log")).await;
    if let Err(e) = play::wait_serving(&daemon, Duration::from_secs(30)).await {
        report.failures.push(e);
    }
    let endpoints = Endpoints::new(&[daemon.url()]);
    let load_options = LoadOptions {
        games: options.games,
        time_control: "15+10".into(),
        interval: Some(options.interval),
        max_plies: Some(options.max_plies),
        retry_deadline: Duration::from_secs(10),
        seed: options.seed,
        spread: false,
    };
    let started = Instant::now();
    let load = Load::start(&load_options, endpoints).await;
    let total = Duration::from_secs(options.seconds);
    // Sampling on a fixed period is the measurement itself, not a wait.
    let mut ticks = tokio::time::interval(options.sample_every);
    loop {
        ticks.tick().await;
        let at = started.elapsed();
        match daemon.rss_kib() {
            Some(kib) => report.rss.push((at.as_secs_f64(), kib)),
            None => {
                report.failures.push(format!("cannot read the daemon's RSS at {:.1} s", at.as_secs_f64()))
            }
        }
        if at >= total {
            break;
        }
    }
    let outcome = load.stop().await;
    report.seconds = started.elapsed().as_secs_f64();
    report.failures.extend(outcome.failures);
    report.games_finished = outcome.finished;
    report.moves = outcome.ledger.acks.iter().filter(|a| a.mv.is_some()).count();
    let us = |p: f64| f64::from(quantile(&outcome.latencies_us, p)) / 1000.0;
    (report.p50_ms, report.p99_ms, report.max_ms) = (us(0.5), us(0.99), us(1.0));
    if report.games_finished == 0 {
        report.failures.push("no game finished: there was no churn".into());
    }

    check_memory(options, &mut report);

    let mut arbiter = daemon.arbiter();
    let verification = play::verify(&outcome.ledger, &mut arbiter).await;
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
    report
}

/// The memory rule (see the module documentation).
fn check_memory(options: &Options, report: &mut Report) {
    let total = options.seconds as f64;
    let kib = |from: f64, to: f64| -> Vec<u64> {
        report.rss.iter().filter(|(t, _)| *t >= from * total && *t < to * total).map(|(_, k)| *k).collect()
    };
    report.rss_start_kib = report.rss.first().map_or(0, |s| s.1);
    report.rss_after_warmup_kib = report.rss.iter().find(|(t, _)| *t >= 0.2 * total).map_or(0, |s| s.1);
    report.rss_end_kib = report.rss.last().map_or(0, |s| s.1);
    report.rss_max_kib = report.rss.iter().map(|s| s.1).max().unwrap_or(0);
    let mut second = kib(0.25, 0.5);
    second.sort_unstable();
    // The last sample is taken at the very end: the last quarter includes it.
    let last = kib(0.75, f64::INFINITY);
    if second.is_empty() || last.is_empty() {
        report.failures.push(format!(
            "too few RSS samples for the memory rule ({} in the second quarter, {} in the last)",
            second.len(),
            last.len()
        ));
        return;
    }
    let median = quantile(&second, 0.5);
    let max = last.iter().copied().max().unwrap_or(0);
    let limit = (median as f64 * (1.0 + GROWTH_RATIO)) as u64 + GROWTH_KIB;
    report.rss_second_quarter_median_kib = median;
    report.rss_last_quarter_max_kib = max;
    report.rss_limit_kib = limit;
    if max > limit {
        report.failures.push(format!(
            "memory grew: the last quarter reached {:.1} MiB, more than the second quarter's median {:.1} MiB x 1.2 + \
             16 MiB = {:.1} MiB",
            mib(max),
            mib(median),
            mib(limit)
        ));
    }
    if options.seconds >= TREND_MIN_SECONDS {
        let late: Vec<(f64, f64)> = report
            .rss
            .iter()
            .filter(|(t, _)| *t >= 0.25 * total)
            .map(|&(t, k)| (t / 60.0, k as f64))
            .collect();
        match trend(&late) {
            Some(slope) => {
                report.rss_trend_kib_per_min = Some(slope);
                let growth = slope * 0.75 * total / 60.0;
                if growth > TREND_MAX_KIB {
                    report.failures.push(format!(
                        "memory crept: {:+.2} MiB/min after the first quarter, {:.1} MiB over the last three \
                         quarters (at most {:.0} MiB)",
                        slope / 1024.0,
                        growth / 1024.0,
                        TREND_MAX_KIB / 1024.0
                    ));
                }
            }
            None => report.failures.push("too few RSS samples for the memory trend".into()),
        }
    }
}

/// The least-squares slope of `(x, y)` points, or `None` with fewer than ten
/// points or no spread in x.
fn trend(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 10 {
        return None;
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::trend;

    #[test]
    fn trend_is_the_slope_through_a_saw_tooth() {
        // A saw-tooth of ±10 around a line rising 2 per step.
        let points: Vec<(f64, f64)> = (0..200)
            .map(|i| (f64::from(i), 2.0 * f64::from(i) + if i % 2 == 0 { 10.0 } else { -10.0 }))
            .collect();
        let slope = trend(&points).unwrap();
        assert!((slope - 2.0).abs() < 0.01, "slope {slope}");
        let flat: Vec<(f64, f64)> =
            (0..50).map(|i| (f64::from(i), if i % 5 == 0 { 130.0 } else { 120.0 })).collect();
        assert!(trend(&flat).unwrap().abs() < 0.1);
        assert_eq!(trend(&points[..5]), None);
        assert_eq!(trend(&[(1.0, 1.0); 20]), None);
    }
}
