//! Perft on every position of the shared suites (`shared/data/perft/`).
//!
//! The default run caps the node count per check so the suite stays well
//! under a minute. `ARBITER_PERFT_MAX_NODES=0` (no cap) runs every depth:
//!
//! ```text
//! ARBITER_PERFT_MAX_NODES=0 cargo test --release -p arbiter-chess --test perft
//! ```

mod common;

use std::fs;

use arbiter_chess::{FenOptions, Position, Strictness, perft, perft_full};

struct Case {
    name: String,
    fen: String,
    depths: Vec<(u32, u64)>,
}

fn max_nodes(default: u64) -> u64 {
    match std::env::var("ARBITER_PERFT_MAX_NODES") {
        Ok(v) => match v.parse::<u64>() {
            Ok(0) => u64::MAX,
            Ok(n) => n,
            Err(_) => panic!("ARBITER_PERFT_MAX_NODES must be a number, got {v:?}"),
        },
        Err(_) => default,
    }
}

/// Reads the `id` / `epd` / `perft` format of the shakmaty and python-chess
/// suites; `None` when the data set is absent (see [`common::data_file`]).
fn read_perft_file(rel: &str) -> Option<Vec<Case>> {
    let text = fs::read_to_string(common::data_file(rel)?).unwrap();
    let mut cases = Vec::new();
    let mut name = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(id) = line.strip_prefix("id ") {
            name = id.trim().to_owned();
        } else if let Some(epd) = line.strip_prefix("epd ") {
            cases.push(Case { name: name.clone(), fen: epd.trim().to_owned(), depths: Vec::new() });
        } else if let Some(p) = line.strip_prefix("perft ") {
            let mut it = p.split_whitespace();
            let d = it.next().unwrap().parse().unwrap();
            let n = it.next().unwrap().parse().unwrap();
            cases.last_mut().expect("perft line before epd").depths.push((d, n));
        }
    }
    Some(cases)
}

/// Reads Ethereal's `FEN ;D1 20 ;D2 400` format; `None` when the data set
/// is absent.
fn read_epd_file(rel: &str) -> Option<Vec<Case>> {
    let text = fs::read_to_string(common::data_file(rel)?).unwrap();
    let cases = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_owned();
            let depths = parts
                .map(|p| {
                    let p = p.trim().strip_prefix('D').unwrap();
                    let mut it = p.split_whitespace();
                    (it.next().unwrap().parse().unwrap(), it.next().unwrap().parse().unwrap())
                })
                .collect();
            Case { name: format!("line {}", i + 1), fen, depths }
        })
        .collect();
    Some(cases)
}

/// Runs every case up to `cap` expected nodes; returns the number of checks.
fn run(cases: &[Case], options: FenOptions, cap: u64) -> usize {
    let mut checks = 0;
    for case in cases {
        let pos = Position::from_fen_with(&case.fen, options)
            .unwrap_or_else(|e| panic!("{}: {} does not parse: {e}", case.name, case.fen));
        for &(depth, expected) in &case.depths {
            if expected > cap {
                continue;
            }
            assert_eq!(perft(&pos, depth), expected, "{} ({}) depth {depth}", case.name, case.fen);
            checks += 1;
        }
    }
    checks
}

const LENIENT_960: FenOptions = FenOptions { chess960: true, strictness: Strictness::Lenient };

#[test]
fn ethereal_standard_suite() {
    let Some(cases) = read_epd_file("perft/ethereal/standard.epd") else { return };
    assert_eq!(cases.len(), 128);
    let checks = run(&cases, FenOptions::LENIENT, max_nodes(10_000_000));
    assert!(checks >= 400, "only {checks} checks ran");
}

#[test]
fn shakmaty_tricky_suite() {
    let Some(cases) = read_perft_file("perft/shakmaty/tricky.perft") else { return };
    assert!(cases.len() >= 25);
    run(&cases, LENIENT_960, max_nodes(10_000_000));
}

#[test]
fn python_chess_tricky_suite() {
    let Some(cases) = read_perft_file("perft/python-chess/tricky.perft") else { return };
    assert!(cases.len() >= 15);
    run(&cases, LENIENT_960, max_nodes(10_000_000));
}

#[test]
fn chess960_suite() {
    let Some(cases) = read_perft_file("perft/shakmaty/chess960.perft") else { return };
    assert_eq!(cases.len(), 960);
    let checks = run(&cases, LENIENT_960, max_nodes(1_000_000));
    assert!(checks >= 960 * 3, "only {checks} checks ran");
}

#[test]
fn random_suite() {
    let Some(cases) = read_perft_file("perft/shakmaty/random.perft") else { return };
    assert!(cases.len() > 6000);
    run(&cases, LENIENT_960, max_nodes(100_000));
}

/// The strict reader rejects the deliberately impossible suite positions,
/// each for an impossible check or too much material, and nothing else.
#[test]
fn strict_fen_rejects_only_impossible_suite_positions() {
    let mut rejected = Vec::new();
    let Some(tricky) = read_perft_file("perft/shakmaty/tricky.perft") else { return };
    let Some(standard) = read_epd_file("perft/ethereal/standard.epd") else { return };
    let cases = tricky.into_iter().chain(standard);
    for case in cases {
        if let Err(e) = Position::from_fen_with(&case.fen, FenOptions::CHESS960) {
            rejected.push((case.name.clone(), e.to_string()));
        }
    }
    let names: Vec<&str> = rejected.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"line 51"),
        "B6b/8/8/8/2K5/5k2/8/b6B b (double check along one diagonal) is impossible"
    );
    for expected in ["align-ep", "ep-unrelated-check", "two-knight-checkers", "max-legals-too-much-material"]
    {
        assert!(
            names.iter().any(|n| n.starts_with(expected)),
            "{expected} should be rejected; rejected: {rejected:?}"
        );
    }
    for (name, reason) in &rejected {
        assert!(
            reason.contains("check") || reason.contains("material"),
            "{name} rejected for an unexpected reason: {reason}"
        );
    }
}

#[test]
fn full_make_move_perft_agrees_with_bulk() {
    let pos =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(perft_full(&pos, 3), 97862);
    assert_eq!(perft(&pos, 3), 97862);
    assert_eq!(perft_full(&Position::startpos(), 4), 197_281);
}
