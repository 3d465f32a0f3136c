//! Arbitrary text as SAN, in a fuzzed FEN or a fixed set of tricky positions.
//!
//! Reading must never panic; an accepted move must be legal, agree with the
//! parsed SAN, and its canonical SAN must read back to the same move.

#![no_main]

use arbiter_chess::{Move, Position, San, SanError};
use arbiter_chess_fuzz::position_and_text;
use libfuzzer_sys::fuzz_target;

/// The legal moves that `san` can denote, found the slow way: filter the
/// full move list by every constraint the SAN states.
fn matching_moves(pos: &Position, san: San) -> Vec<Move> {
    let moves = pos.legal_moves();
    match san {
        San::Castle(side) => moves.iter().copied().filter(|m| m.castling_side() == Some(side)).collect(),
        San::Normal { role, file, rank, capture: _, to, promotion } => moves
            .iter()
            .copied()
            .filter(|m| {
                let from = m.from();
                !m.is_castle()
                    && m.to() == to
                    && pos.board().role_at(from) == Some(role)
                    && file.is_none_or(|f| from.file() == f)
                    && rank.is_none_or(|r| from.rank() == r)
                    // A pawn move without a file is a push: "d5" never captures.
                    && (role != arbiter_chess::Role::Pawn || file.is_some() || from.file() == to.file())
                    && m.promotion_role() == promotion
            })
            .collect(),
    }
}

fn check(pos: &Position, text: &str) {
    let parsed = San::parse(text);
    let result = pos.parse_san(text);
    if parsed.is_err() {
        assert!(result.is_err(), "parse_san accepted {text:?} that San::parse rejects");
    }
    // Differential check of San::to_move (and its fast path) against the
    // slow filter: a move exactly when one legal move matches.
    if let Ok(san) = &parsed {
        let matching = matching_moves(pos, *san);
        let fen = pos.fen();
        match (&result, matching.as_slice()) {
            (Ok(m), [only]) => assert_eq!(m, only, "{text:?} in {fen}"),
            (Err(SanError::Ambiguous { .. }), [_, _, ..]) => {}
            (Err(SanError::Illegal(_) | SanError::MissingPromotion(_)), []) => {}
            (r, ms) => panic!("{text:?} in {fen}: parse_san gives {r:?}, legal matches {ms:?}"),
        }
    }
    let Ok(m) = result else { return };
    let fen = pos.fen();
    assert!(pos.is_legal(m), "parse_san({text:?}) gave illegal {m:?}: {fen}");
    match parsed.expect("checked above") {
        San::Castle(side) => assert_eq!(m.castling_side(), Some(side), "{text:?}: {fen}"),
        San::Normal { role, to, promotion, .. } => {
            assert!(!m.is_castle(), "{text:?} read as castling: {fen}");
            assert_eq!(m.to(), to, "{text:?}: {fen}");
            assert_eq!(m.promotion_role(), promotion, "{text:?}: {fen}");
            assert_eq!(pos.board().role_at(m.from()), Some(role), "{text:?}: {fen}");
        }
    }
    let san = pos.san(m);
    assert_eq!(pos.parse_san(&san), Ok::<Move, _>(m), "canonical {san:?} of {text:?}: {fen}");
    let _ = pos.lan(m);
}

fuzz_target!(|data: &[u8]| {
    let Some((pos, text)) = position_and_text(data) else { return };
    check(&pos, &text);
    for line in text.lines() {
        check(&pos, line);
    }
});
