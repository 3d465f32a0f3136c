//! Dead positions and "can this side still checkmate?" (FIDE 5.2.2, 6.9):
//! the acceptance scenarios of the spec (AS-26..AS-39), the DEF-CANNOT-MATE
//! examples, and the D3-Chess test vectors.

mod common;

use std::collections::HashSet;

use arbiter_chess::dead::{
    DEFAULT_BUDGET, Mateability, THOROUGH_BUDGET, can_mate, can_mate_with_budget, has_insufficient_material,
    is_dead, is_witness,
};
use arbiter_chess::{Color, FenOptions, Position, Strictness};

fn pos(fen: &str) -> Position {
    Position::from_fen_with(fen, FenOptions { chess960: false, strictness: Strictness::Lenient })
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Asserts that `side` can mate, and that the witness is a real helpmate.
fn assert_can_mate(fen: &str, side: Color) -> Vec<arbiter_chess::Move> {
    let p = pos(fen);
    match can_mate(&p, side) {
        Mateability::CanMate(line) => {
            assert!(is_witness(&p, side, &line), "{fen} ({side}): bad witness {line:?}");
            line
        }
        other => panic!("{fen} ({side}): expected can-mate, got {other:?}"),
    }
}

fn assert_cannot_mate(fen: &str, side: Color) {
    let p = pos(fen);
    let answer = can_mate(&p, side);
    assert_eq!(answer, Mateability::CannotMate, "{fen} ({side})");
}

fn uci_line(fen: &str, line: &[arbiter_chess::Move]) -> String {
    let mut p = pos(fen);
    let mut words = Vec::new();
    for &m in line {
        words.push(p.uci(m).to_string());
        p.play_unchecked(m);
    }
    words.join(" ")
}

// ---- 19.3 End of game -------------------------------------------------------

#[test]
fn as_26_stalemate_position_no_one_can_mate_after_qc7() {
    // After Qc7 Black is stalemated: the game is over, nobody can mate.
    let p = pos("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50");
    let m = p.parse_uci("c1c7").unwrap();
    let after = p.after(m);
    assert!(after.is_stalemate());
    let both = is_dead(&after);
    assert_eq!(both.is_dead(), Some(true));
    // Before Qc7, White can still mate (e.g. Qc8#).
    assert_can_mate("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50", Color::White);
}

#[test]
fn as_27_mate_in_one_is_found_as_the_witness() {
    let line = assert_can_mate("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50", Color::White);
    assert_eq!(line.len(), 1, "a mate in one exists: {line:?}");
}

#[test]
fn as_28_lone_king_cannot_mate_king_and_queen() {
    assert_cannot_mate("4k3/8/8/8/8/8/8/3QK3 w - - 0 40", Color::Black);
    assert_can_mate("4k3/8/8/8/8/8/8/3QK3 w - - 0 40", Color::White);
    assert!(has_insufficient_material(&pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 40"), Color::Black));
}

#[test]
fn as_29_capture_leaves_same_coloured_bishops_dead() {
    let p = pos("8/8/4k3/8/2b3p1/8/8/3BK3 w - - 0 60");
    let after = p.after(p.parse_uci("d1g4").unwrap());
    assert!(after.is_check());
    assert_eq!(is_dead(&after).is_dead(), Some(true));
    // Before the capture the pawn may still promote: not dead.
    assert_ne!(is_dead(&p).is_dead(), Some(true));
}

// ---- 19.4 Flag fall and 6.9 -------------------------------------------------

#[test]
fn as_31_knight_cannot_mate_lone_king() {
    assert_cannot_mate("8/8/8/4k3/8/2n5/8/4K3 w - - 0 60", Color::Black);
}

#[test]
fn as_32_knight_can_mate_rook() {
    let fen = "7K/5k2/8/4n3/8/8/8/R7 w - - 0 60";
    let line = assert_can_mate(fen, Color::Black);
    assert!(!uci_line(fen, &line).is_empty());
}

#[test]
fn as_33_knight_can_never_mate_queen() {
    assert_cannot_mate("7K/5k2/8/4n3/8/8/8/Q7 w - - 0 60", Color::Black);
}

#[test]
fn as_35_two_knights_can_mate_lone_king() {
    assert_can_mate("8/8/8/8/4n2n/8/5k2/7K w - - 0 60", Color::Black);
}

#[test]
fn as_36_opposite_coloured_bishops_can_mate() {
    let fen = "7K/5k2/8/8/8/b7/8/1B6 w - - 0 60";
    let line = assert_can_mate(fen, Color::Black);
    assert!(line.len() <= 4, "expected a short helpmate such as 1.Bh7 Bb2#, got {}", uci_line(fen, &line));
}

#[test]
fn as_37_blocked_pawns_are_dead() {
    let fen = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 60";
    assert_cannot_mate(fen, Color::White);
    assert_cannot_mate(fen, Color::Black);
    assert_eq!(is_dead(&pos(fen)).is_dead(), Some(true));
    // Not a material rule: both sides have pawns.
    assert!(!has_insufficient_material(&pos(fen), Color::White));
}

#[test]
fn as_39a_forced_stalemate_means_queen_cannot_win() {
    assert_cannot_mate("7k/5Q2/6PK/6q1/8/8/8/8 w - - 0 60", Color::Black);
}

#[test]
fn as_39b_forced_mate_means_black_cannot_win() {
    let fen = "1k6/RPp5/Kp6/5q2/8/8/8/8 w - - 0 60";
    assert_cannot_mate(fen, Color::Black);
    let line = assert_can_mate(fen, Color::White);
    assert_eq!(uci_line(fen, &line), "a7a8");
}

// ---- DEF-CANNOT-MATE examples ----------------------------------------------

#[test]
fn def_cannot_mate_examples() {
    // K+N cannot mate a lone K.
    assert_cannot_mate("8/8/3k4/8/8/3N4/8/4K3 w - - 0 1", Color::White);
    // K+N can mate K+R.
    assert_can_mate("8/8/3k4/8/8/3N4/8/r3K3 w - - 0 1", Color::White);
    // K+N and K+B can never mate K+Q.
    assert_cannot_mate("8/8/3k4/8/8/3N4/8/q3K3 w - - 0 1", Color::White);
    assert_cannot_mate("8/8/3k4/8/8/3B4/8/q3K3 w - - 0 1", Color::White);
    // K+N+N can mate a lone K.
    assert_can_mate("8/8/3k4/8/8/3NN3/8/4K3 w - - 0 1", Color::White);
    // K+B v K+B: opposite colours can mate (either side); same colours dead.
    // (d3 is a light square, c5 dark, e4 light.)
    assert_can_mate("8/8/3k4/2b5/8/3B4/8/4K3 w - - 0 1", Color::White);
    assert_can_mate("8/8/3k4/2b5/8/3B4/8/4K3 w - - 0 1", Color::Black);
    let same = pos("8/8/3k4/8/4b3/3B4/8/4K3 w - - 0 1");
    assert_eq!(is_dead(&same).is_dead(), Some(true));
    // A checkmate on the board is its own (empty) witness.
    let mated = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    assert_eq!(can_mate(&mated, Color::White), Mateability::CanMate(Vec::new()));
    assert_eq!(can_mate(&mated, Color::Black), Mateability::CannotMate);
}

#[test]
fn witness_checker_rejects_bad_lines() {
    let p = Position::startpos();
    let line: Vec<_> = ["f2f3", "e7e5", "g2g4", "d8h4"]
        .iter()
        .scan(p, |q, u| {
            let m = q.parse_uci(u).unwrap();
            q.play_unchecked(m);
            Some(m)
        })
        .collect();
    assert!(is_witness(&p, Color::Black, &line));
    assert!(!is_witness(&p, Color::White, &line));
    assert!(!is_witness(&p, Color::Black, &line[..3]));
    // The same moves out of order are illegal.
    let mut swapped = line.clone();
    swapped.swap(0, 1);
    assert!(!is_witness(&p, Color::Black, &swapped));
}

#[test]
fn startpos_fools_mate_is_found_and_white_is_never_denied() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_can_mate(fen, Color::Black);
    // White's shortest helpmate is longer (1.e4 f6 2.d4 g5 3.Qh5#); whatever
    // the search finds within its budget, it must never deny it.
    assert_ne!(can_mate(&pos(fen), Color::White), Mateability::CannotMate);
}

#[test]
fn tiny_budget_never_claims_cannot_mate_wrongly() {
    // With no budget the search may only answer what it proves cheaply.
    let p = pos("8/8/3k4/8/8/3N4/8/r3K3 w - - 0 1");
    let answer = can_mate_with_budget(&p, Color::White, 0);
    assert_ne!(answer, Mateability::CannotMate);
}

// ---- D3-Chess test vectors -------------------------------------------------

/// Budget per query for the test-vector run (a quarter of `THOROUGH_BUDGET`):
/// keeps the run well under a minute in the test profile.
const VECTOR_BUDGET: u64 = 100_000;

/// Test-vector queries that came back unknown at [`VECTOR_BUDGET`] outside
/// D3-Chess's own undetermined list, measured when this test was last
/// tightened (first 32: 24 dead positions not proved, 8 helpmates not found;
/// now 3, all helpmates of Black through a pawn structure); the test fails if
/// that number grows (a regression in the analysis). Each of them must then
/// be decided by [`can_mate`] at its default budget.
const MAX_UNEXPECTED_UNKNOWN: usize = 3;

#[test]
fn d3_chess_test_vectors() {
    let Some(vectors) = common::data_file("deadpos/test-vector.txt") else { return };
    let Some(output) = common::data_file("deadpos/test.output") else { return };
    let text = std::fs::read_to_string(vectors).unwrap();
    let undetermined: HashSet<(String, String)> = std::fs::read_to_string(output)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("undetermined"))
        .filter_map(|l| {
            let inner = &l[l.find('(')? + 1..l.rfind(')')?];
            let words: Vec<&str> = inner.split_whitespace().collect();
            let side = (*words.last()?).to_owned();
            Some((words[1..words.len() - 1].join(" "), side))
        })
        .collect();
    assert_eq!(undetermined.len(), 20);
    let (mut positions, mut definite, mut witnesses) = (0, 0, 0);
    let mut unknown_allowed = 0;
    let mut unknown_other = 0;
    let mut retry = Vec::new();
    let mut wrong = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (label, fen) = line.split_at(2);
        let fen = fen.trim();
        let mut fields: Vec<&str> = fen.split_whitespace().collect();
        while fields.len() < 4 {
            fields.push("-");
        }
        let p = pos(&fields.join(" "));
        positions += 1;
        for (i, side) in Color::ALL.into_iter().enumerate() {
            let expected = label.as_bytes()[i] != b'-';
            match can_mate_with_budget(&p, side, VECTOR_BUDGET) {
                Mateability::CanMate(line) => {
                    assert!(is_witness(&p, side, &line), "{fen} ({side}): bad witness");
                    witnesses += 1;
                    definite += 1;
                    if !expected {
                        wrong.push(format!("{label} {fen} ({side}): can-mate"));
                    }
                }
                Mateability::CannotMate => {
                    definite += 1;
                    if expected {
                        wrong.push(format!("{label} {fen} ({side}): cannot-mate"));
                    }
                }
                Mateability::Unknown => {
                    if undetermined.contains(&(fen.to_owned(), side.name().to_owned())) {
                        unknown_allowed += 1;
                    } else {
                        unknown_other += 1;
                        retry.push((label.to_owned(), fen.to_owned(), p, side, expected));
                    }
                }
            }
        }
    }
    eprintln!(
        "test vectors: {positions} positions, {definite} definite answers ({witnesses} witnesses), \
         unknown {unknown_other} (+{unknown_allowed} on D3's undetermined list)"
    );
    assert_eq!(positions, 1803);
    assert!(wrong.is_empty(), "wrong definite answers:\n{}", wrong.join("\n"));
    assert!(witnesses > 0 && definite > 0);
    assert!(
        unknown_other <= MAX_UNEXPECTED_UNKNOWN,
        "{unknown_other} unknown answers outside D3's undetermined list (ceiling {MAX_UNEXPECTED_UNKNOWN})"
    );
    // The brief allows `unknown` only where D3-Chess itself gives up: what
    // the smaller budget left open, the thorough analysis (the budget an
    // arbiter's review uses, `THOROUGH_BUDGET`) must decide, and decide right.
    for (label, fen, p, side, expected) in retry {
        match can_mate_with_budget(&p, side, THOROUGH_BUDGET) {
            Mateability::CanMate(line) => {
                assert!(expected, "{label} {fen} ({side}): can-mate at the thorough budget");
                assert!(is_witness(&p, side, &line), "{fen} ({side}): bad witness at the thorough budget");
            }
            Mateability::CannotMate => {
                assert!(!expected, "{label} {fen} ({side}): cannot-mate at the thorough budget")
            }
            Mateability::Unknown => {
                panic!("{label} {fen} ({side}): unknown at the thorough budget, which D3-Chess decides")
            }
        }
    }
}

/// The small budgets (the quick mode, and the budget of the per-move test
/// `is_dead_quick`) over the same vectors: never a wrong answer, every
/// witness checked, and at least as many definite answers as measured when
/// this test was last tightened (budget 0: 151 can-mate, 1,315 cannot-mate;
/// budget 2,000: 1,563 and 1,707).
#[test]
fn d3_chess_test_vectors_small_budgets() {
    let Some(vectors) = common::data_file("deadpos/test-vector.txt") else { return };
    let text = std::fs::read_to_string(vectors).unwrap();
    for (budget, min_can, min_cannot) in [(0, 151, 1_315), (2_000, 1_563, 1_707)] {
        let (mut can, mut cannot) = (0, 0);
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (label, fen) = line.split_at(2);
            let mut fields: Vec<&str> = fen.split_whitespace().collect();
            while fields.len() < 4 {
                fields.push("-");
            }
            let p = pos(&fields.join(" "));
            for (i, side) in Color::ALL.into_iter().enumerate() {
                let expected = label.as_bytes()[i] != b'-';
                match can_mate_with_budget(&p, side, budget) {
                    Mateability::CanMate(line) => {
                        assert!(expected, "{fen} ({side}), budget {budget}: can-mate, labelled {label}");
                        assert!(is_witness(&p, side, &line), "{fen} ({side}): bad witness");
                        can += 1;
                    }
                    Mateability::CannotMate => {
                        assert!(!expected, "{fen} ({side}), budget {budget}: cannot-mate, labelled {label}");
                        cannot += 1;
                    }
                    Mateability::Unknown => {}
                }
            }
        }
        eprintln!("budget {budget}: can-mate {can}, cannot-mate {cannot}");
        assert!(
            can >= min_can && cannot >= min_cannot,
            "budget {budget}: {can} can-mate, {cannot} cannot-mate"
        );
    }
}

// ---- The default budget (the flag ruling's analysis, issue 18) -----------

/// Reads `deadpos/<name>` as (label, position) pairs; `None` when absent.
fn data_positions(name: &str) -> Option<Vec<(String, Position)>> {
    let path = common::data_file(&format!("deadpos/{name}"))?;
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut fields: Vec<&str> = line.split_whitespace().collect();
        let label = if fields[0].len() == 2 && fields[0].chars().all(|c| matches!(c, 'W' | 'B' | '-')) {
            fields.remove(0).to_owned()
        } else {
            String::new()
        };
        let mut fen: Vec<&str> = fields.into_iter().take(4).collect();
        while fen.len() < 4 {
            fen.push("-");
        }
        out.push((label, pos(&fen.join(" "))));
    }
    Some(out)
}

/// `can_mate` (the default budget) over the D3-Chess test vectors: never a
/// wrong answer, every witness checked, and at least as many definite
/// answers as measured when this test was last tightened (3,316 of 3,606;
/// the rest is left to the arbiter, and to `THOROUGH_BUDGET`, see
/// `d3_chess_test_vectors`).
#[test]
fn d3_chess_test_vectors_at_the_default_budget() {
    let Some(vectors) = data_positions("test-vector.txt") else { return };
    let mut definite = 0;
    for (label, p) in &vectors {
        for (i, side) in Color::ALL.into_iter().enumerate() {
            let expected = label.as_bytes()[i] != b'-';
            match can_mate(p, side) {
                Mateability::CanMate(line) => {
                    assert!(expected, "{} ({side}): can-mate, labelled {label}", p.fen());
                    assert!(is_witness(p, side, &line), "{} ({side}): bad witness", p.fen());
                    definite += 1;
                }
                Mateability::CannotMate => {
                    assert!(!expected, "{} ({side}): cannot-mate, labelled {label}", p.fen());
                    definite += 1;
                }
                Mateability::Unknown => {}
            }
        }
    }
    eprintln!("test vectors at the default budget ({DEFAULT_BUDGET}): {definite} definite answers");
    assert!(definite >= 3_250, "{definite} definite answers");
}

/// `can_mate` over the final positions of 30,000 lichess games, both sides:
/// every witness mates, every "cannot mate" is confirmed by the thorough
/// analysis (which must not find a mate), and at most a few queries stay
/// unknown (measured when this test was last tightened: 12 of 60,000; the
/// budget of 400,000 nodes that `can_mate` had before issue 18 left 8, and
/// the benchmark `cargo bench -p arbiter-chess --bench can_mate` compares
/// query by query).
#[test]
fn lichess_final_positions_at_the_default_budget() {
    let Some(positions) = data_positions("lichess-30K-games.txt") else { return };
    assert_eq!(positions.len(), 30_000);
    let (mut can, mut cannot, mut unknown) = (0, 0, 0);
    for (_, p) in &positions {
        for side in Color::ALL {
            match can_mate(p, side) {
                Mateability::CanMate(line) => {
                    assert!(is_witness(p, side, &line), "{} ({side}): bad witness", p.fen());
                    can += 1;
                }
                Mateability::CannotMate => {
                    assert!(
                        !can_mate_with_budget(p, side, THOROUGH_BUDGET).can_mate(),
                        "{} ({side}): cannot-mate, but the thorough analysis mates",
                        p.fen()
                    );
                    cannot += 1;
                }
                Mateability::Unknown => unknown += 1,
            }
        }
    }
    eprintln!("lichess final positions: can-mate {can}, cannot-mate {cannot}, unknown {unknown}");
    assert!(cannot >= 864, "{cannot} cannot-mate answers");
    assert!(unknown <= 16, "{unknown} unknown answers");
}
