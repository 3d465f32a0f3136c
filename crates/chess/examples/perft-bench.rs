//! Perft speed of arbiter-chess next to cozy-chess, in one binary.
//!
//! ```text
//! RUSTFLAGS="-C target-cpu=native" cargo run --profile bench -q -p arbiter-chess --example perft-bench -- [--rounds 5]
//! ```
//!
//! Four figures, each with bulk counting at the leaves and with a full
//! make-move at every node: the start position at depth 6 and Kiwipete at
//! depth 5. The contenders are interleaved (every round runs every case once
//! for each library) because run-to-run noise on a shared VM is large; the
//! table shows the median of the rounds in millions of nodes per second and
//! the ratio. Every run asserts the exact node count.

use std::hint::black_box;
use std::time::Instant;

use arbiter_chess::{Position, perft, perft_full};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn cozy_bulk(board: &cozy_chess::Board, depth: u8) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_bulk(&child, depth - 1);
            }
            false
        });
    }
    nodes
}

/// The same driver as `arbiter_chess::perft_full`: every leaf is made, and
/// the last level skips only the call that would return 1.
fn cozy_full(board: &cozy_chess::Board, depth: u8) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            if depth == 1 {
                black_box(&child);
                nodes += 1;
            } else {
                nodes += cozy_full(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

struct Case {
    name: &'static str,
    fen: &'static str,
    depth: u32,
    nodes: u64,
    bulk: bool,
}

fn time(f: impl FnOnce() -> u64, expected: u64) -> f64 {
    let start = Instant::now();
    let n = black_box(f());
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(n, expected, "wrong node count");
    n as f64 / secs / 1e6
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn main() {
    let mut rounds = 5;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.next().and_then(|r| r.parse().ok()).unwrap_or(5),
            other => {
                eprintln!("perft-bench: unknown argument {other:?} (usage: perft-bench [--rounds N])");
                std::process::exit(2);
            }
        }
    }
    let cases = [
        Case { name: "start d6, bulk", fen: START, depth: 6, nodes: 119_060_324, bulk: true },
        Case { name: "start d6, no-bulk", fen: START, depth: 6, nodes: 119_060_324, bulk: false },
        Case { name: "kiwipete d5, bulk", fen: KIWIPETE, depth: 5, nodes: 193_690_690, bulk: true },
        Case { name: "kiwipete d5, no-bulk", fen: KIWIPETE, depth: 5, nodes: 193_690_690, bulk: false },
    ];
    let mut ours = vec![Vec::new(); cases.len()];
    let mut cozy = vec![Vec::new(); cases.len()];
    for round in 0..rounds {
        for (i, c) in cases.iter().enumerate() {
            let pos = Position::from_fen(c.fen).unwrap();
            let board: cozy_chess::Board = c.fen.parse().unwrap();
            let d = c.depth;
            // Alternate which library goes first, so neither always runs on a
            // warmer (or cooler) machine.
            let run_ours = || time(|| if c.bulk { perft(&pos, d) } else { perft_full(&pos, d) }, c.nodes);
            let run_cozy = || {
                time(|| if c.bulk { cozy_bulk(&board, d as u8) } else { cozy_full(&board, d as u8) }, c.nodes)
            };
            if round % 2 == 0 {
                ours[i].push(run_ours());
                cozy[i].push(run_cozy());
            } else {
                cozy[i].push(run_cozy());
                ours[i].push(run_ours());
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    println!("{:<22} {:>14} {:>14} {:>7}", "perft (M nodes/s)", "arbiter-chess", "cozy-chess", "ratio");
    for (i, c) in cases.iter().enumerate() {
        let a = median(&mut ours[i]);
        let b = median(&mut cozy[i]);
        println!("{:<22} {:>14.1} {:>14.1} {:>7.2}", c.name, a, b, a / b);
    }
    println!("medians of {rounds} interleaved rounds");
}
