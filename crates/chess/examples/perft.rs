//! Counts the leaves of the legal move tree (perft).
//!
//! ```text
//! cargo run --release -q -p arbiter-chess --example perft -- --depth 5 [--fen "FEN"] [--chess960] [--bulk] [--divide]
//! ```
//!
//! Prints `nodes N` on its last line. Without `--bulk` every node, leaves
//! included, is reached by a full make-move; with `--bulk` the last level is
//! counted from the move generator without making the moves.

use std::process::ExitCode;
use std::time::Instant;

use arbiter_chess::{FenOptions, Position, Strictness, perft, perft_full};

fn main() -> ExitCode {
    let mut depth = None;
    let mut fen = None;
    let mut chess960 = false;
    let mut bulk = false;
    let mut divide = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--depth" => depth = args.next().and_then(|d| d.parse::<u32>().ok()),
            "--fen" => fen = args.next(),
            "--chess960" => chess960 = true,
            "--bulk" => bulk = true,
            "--divide" => divide = true,
            "-h" | "--help" => {
                println!("usage: perft --depth D [--fen FEN] [--chess960] [--bulk] [--divide]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("perft: unknown argument {other:?} (try --help)");
                return ExitCode::from(2);
            }
        }
    }
    let Some(depth) = depth else {
        eprintln!("perft: --depth D is required (a whole number)");
        return ExitCode::from(2);
    };
    let options = FenOptions { chess960, strictness: Strictness::Lenient };
    let pos = match fen {
        Some(f) => match Position::from_fen_with(&f, options) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("perft: {e}");
                return ExitCode::from(2);
            }
        },
        None => Position::startpos(),
    };
    let count = |p: &Position, d: u32| if bulk { perft(p, d) } else { perft_full(p, d) };
    let start = Instant::now();
    let nodes = if divide && depth > 0 {
        let mut total = 0;
        for &m in pos.legal_moves().iter() {
            let n = count(&pos.after(m), depth - 1);
            println!("{} {n}", pos.uci(m));
            total += n;
        }
        total
    } else {
        count(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("time {:.3} s, {:.1} M nodes/s", secs, nodes as f64 / secs.max(1e-9) / 1e6);
    println!("nodes {nodes}");
    ExitCode::SUCCESS
}
