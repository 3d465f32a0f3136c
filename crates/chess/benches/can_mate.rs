//! "Can this side still checkmate?" at the speed of the flag ruling (issue 18,
//! point 4): `dead::can_mate` over the final positions of 30,000 lichess
//! games, both sides of each, and over the D3-Chess test vectors.
//!
//! ```text
//! cargo bench -p arbiter-chess --bench can_mate [-- OPTIONS]
//!
//!   --reference FILE   answers to compare with, one line per position as the
//!                      can-mate example's batch mode prints them
//!                      ("white:ANSWER black:ANSWER"), e.g. recorded from an
//!                      earlier version; without it the reference is computed
//!                      in the same run with the thorough budget
//!                      (`can_mate_with_budget(.., THOROUGH_BUDGET)`, the
//!                      budget `can_mate` had before issue 18)
//!   --no-reference     no reference run (timing only)
//!   --runs N           time every query N times and keep its fastest run as
//!                      well as the first (default 3)
//!   --limit N          only the first N positions
//! ```
//!
//! The data sets are read from `$ARBITER_SHARED/data/deadpos/` (default: the
//! nearest `shared/` folder with a `data/` inside, beside the repository or
//! above it); without them the benchmark prints `skipped: ...` and exits.
//!
//! It prints, per position-side, the average, p50, p99 and maximum time of
//! the first run (what one call costs, scheduler noise included) and of the
//! fastest of `--runs` runs (noise removed, caches warm), the answer counts,
//! and against the reference: the queries that were definite there and are
//! unknown now (`lost`), the reverse (`gained`) and contradictions. On the
//! D3-Chess test vectors (labelled with who can mate) every definite answer
//! must match its label. It exits with 1 on a contradiction, a wrong answer
//! or a witness that does not mate; lost answers are listed, not fatal.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use arbiter_chess::dead::{Mateability, THOROUGH_BUDGET, can_mate, can_mate_with_budget, is_witness};
use arbiter_chess::{Color, FenOptions, Position, Strictness};

/// The folder holding `data/`, as the integration tests find it.
fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().skip(1).map(|dir| dir.join("shared")).find(|c| c.join("data").is_dir())
}

/// A FEN from a data line: an optional two-character D3-Chess label, then
/// the placement, side, castling and en passant fields (`-` when missing).
fn position_of(line: &str) -> Option<(Option<String>, Position)> {
    let mut fields: Vec<&str> = line.split_whitespace().collect();
    let label = fields
        .first()
        .filter(|f| f.len() == 2 && f.chars().all(|c| matches!(c, 'W' | 'B' | '-')))
        .map(|f| (*f).to_owned());
    if label.is_some() {
        fields.remove(0);
    }
    if fields.len() < 2 {
        return None;
    }
    let mut fen: Vec<&str> = fields.iter().take(4).copied().collect();
    while fen.len() < 4 {
        fen.push("-");
    }
    let options = FenOptions { chess960: false, strictness: Strictness::Lenient };
    Position::from_fen_with(&fen.join(" "), options).ok().map(|p| (label, p))
}

fn read_positions(path: &std::path::Path, limit: usize) -> Result<Vec<(Option<String>, Position)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if out.len() == limit {
            break;
        }
        out.push(position_of(line).ok_or_else(|| format!("{}:{}: not a position", path.display(), n + 1))?);
    }
    Ok(out)
}

/// `can-mate`, `cannot-mate` or `unknown`, as the can-mate example writes
/// them.
fn word(m: &Mateability) -> &'static str {
    m.word()
}

struct Timing {
    first: Vec<f64>,
    best: Vec<f64>,
}

fn summary(label: &str, times: &[f64]) -> String {
    let mut t = times.to_vec();
    t.sort_by(f64::total_cmp);
    let pct = |p: f64| t[((t.len() - 1) as f64 * p).round() as usize] * 1e6;
    let avg = t.iter().sum::<f64>() / t.len() as f64 * 1e6;
    format!(
        "{label}: average {avg:.2} us, p50 {:.2} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us",
        pct(0.5),
        pct(0.99),
        pct(0.999),
        pct(1.0)
    )
}

/// Times `can_mate` on every position-side: the answers and the timings.
fn run(positions: &[(Option<String>, Position)], runs: usize) -> (Vec<Mateability>, Timing) {
    let mut answers = Vec::with_capacity(positions.len() * 2);
    let mut timing = Timing { first: Vec::new(), best: Vec::new() };
    for (_, pos) in positions {
        for side in Color::ALL {
            let t = Instant::now();
            let answer = can_mate(pos, side);
            let first = t.elapsed().as_secs_f64();
            let mut best = first;
            for _ in 1..runs {
                let t = Instant::now();
                std::hint::black_box(can_mate(pos, side));
                best = best.min(t.elapsed().as_secs_f64());
            }
            timing.first.push(first);
            timing.best.push(best);
            answers.push(answer);
        }
    }
    (answers, timing)
}

fn main() -> ExitCode {
    let mut reference_file = None;
    let mut reference = true;
    let mut runs = 3usize;
    let mut limit = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reference" => reference_file = args.next(),
            "--no-reference" => reference = false,
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(3).max(1),
            "--limit" => limit = args.next().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX),
            // `cargo bench` passes `--bench`; other harness flags are ignored.
            _ => {}
        }
    }
    let Some(dir) = shared_dir().map(|d| d.join("data").join("deadpos")) else {
        println!("skipped: no shared/data beside the repository or above it, and ARBITER_SHARED unset");
        return ExitCode::SUCCESS;
    };
    let games = dir.join("lichess-30K-games.txt");
    if !games.is_file() {
        println!(
            "skipped: data set {} not found; set ARBITER_SHARED to the folder that holds data/",
            games.display()
        );
        return ExitCode::SUCCESS;
    }
    let positions = match read_positions(&games, limit) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("can_mate bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;

    // 1. The 30,000 real positions.
    let start = Instant::now();
    let (answers, timing) = run(&positions, runs);
    let wall = start.elapsed().as_secs_f64();
    let queries = answers.len();
    let count = |w: &str| answers.iter().filter(|a| word(a) == w).count();
    println!(
        "lichess-30K-games: {} positions, {queries} position-sides, {runs} runs each, {wall:.1} s",
        positions.len()
    );
    println!("  {}", summary("first run", &timing.first));
    println!("  {}", summary("fastest of the runs", &timing.best));
    println!(
        "  answers: can-mate {}, cannot-mate {}, unknown {}",
        count("can-mate"),
        count("cannot-mate"),
        count("unknown")
    );
    for (i, a) in answers.iter().enumerate() {
        let (pos, side) = (&positions[i / 2].1, Color::ALL[i % 2]);
        if let Mateability::CanMate(line) = a
            && !is_witness(pos, side, line)
        {
            println!("  BAD WITNESS: {} ({side})", pos.fen());
            failed = true;
        }
    }

    // 2. The reference answers.
    let reference_words: Option<(String, Vec<String>)> = if let Some(path) = reference_file {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let words: Vec<String> = text
                    .lines()
                    .filter(|l| l.starts_with("white:"))
                    .flat_map(|l| l.split_whitespace().map(|w| w.split(':').nth(1).unwrap_or("").to_owned()))
                    .collect();
                Some((path, words))
            }
            Err(e) => {
                eprintln!("can_mate bench: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else if reference {
        let t = Instant::now();
        let words = positions
            .iter()
            .flat_map(|(_, p)| {
                Color::ALL.map(|side| word(&can_mate_with_budget(p, side, THOROUGH_BUDGET)).to_owned())
            })
            .collect();
        let label =
            format!("thorough budget {THOROUGH_BUDGET}, computed in {:.1} s", t.elapsed().as_secs_f64());
        Some((label, words))
    } else {
        None
    };
    if let Some((source, words)) = reference_words {
        if words.len() < queries {
            eprintln!("can_mate bench: the reference has {} answers for {queries} queries", words.len());
            return ExitCode::FAILURE;
        }
        let (mut lost, mut gained, mut contradictions, mut definite) = (Vec::new(), 0, 0, 0);
        for (i, a) in answers.iter().enumerate() {
            let (now, then) = (word(a), words[i].as_str());
            let (pos, side) = (&positions[i / 2].1, Color::ALL[i % 2]);
            definite += usize::from(then != "unknown");
            match (then, now) {
                (t, "unknown") if t != "unknown" => lost.push(format!("{} ({side}): {t}", pos.fen())),
                ("unknown", n) if n != "unknown" => gained += 1,
                (t, n) if t != n => {
                    println!("  CONTRADICTION: {} ({side}): now {n}, reference {t}", pos.fen());
                    contradictions += 1;
                }
                _ => {}
            }
        }
        println!(
            "  reference ({source}): {definite} definite; definite there and unknown now: {}, \
             unknown there and definite now: {gained}, contradictions: {contradictions}",
            lost.len()
        );
        for l in &lost {
            println!("    lost: {l}");
        }
        failed |= contradictions > 0;
    }

    // 3. The D3-Chess test vectors: every definite answer must match.
    let vectors = dir.join("test-vector.txt");
    match read_positions(&vectors, usize::MAX) {
        Ok(vectors) => {
            let (answers, timing) = run(&vectors, 1);
            let undetermined: HashSet<String> = std::fs::read_to_string(dir.join("test.output"))
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("undetermined"))
                .map(str::to_owned)
                .collect();
            let (mut wrong, mut unknown) = (0, 0);
            for (i, a) in answers.iter().enumerate() {
                let (label, pos) = &vectors[i / 2];
                let side = Color::ALL[i % 2];
                let expected = label.as_deref().is_some_and(|l| l.as_bytes()[i % 2] != b'-');
                let ok = match a {
                    Mateability::CanMate(line) => expected && is_witness(pos, side, line),
                    Mateability::CannotMate => !expected,
                    Mateability::Unknown => {
                        unknown += 1;
                        true
                    }
                };
                if !ok {
                    println!("  WRONG: {} ({side}): {}", pos.fen(), word(a));
                    wrong += 1;
                }
            }
            println!(
                "test-vector: {} positions, {} position-sides (D3-Chess leaves {} undetermined): \
                 wrong {wrong}, unknown {unknown}",
                vectors.len(),
                answers.len(),
                undetermined.len()
            );
            println!("  {}", summary("time", &timing.first));
            failed |= wrong > 0;
        }
        Err(e) => println!("skipped: {e}"),
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
