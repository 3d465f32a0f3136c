//! Arbitrary text as UCI, in a fuzzed FEN or a fixed set of tricky positions,
//! with both castling notations.
//!
//! Reading must never panic; an accepted move must be legal and its UCI
//! text must read back to the same move.

#![no_main]

use arbiter_chess::{CastlingMode, Position, UciMove};
use arbiter_chess_fuzz::position_and_text;
use libfuzzer_sys::fuzz_target;

fn check(pos: &Position, text: &str) {
    let parsed = text.parse::<UciMove>();
    let result = pos.parse_uci(text);
    if parsed.is_err() {
        assert!(result.is_err(), "parse_uci accepted {text:?} that UciMove rejects");
    }
    let Ok(m) = result else { return };
    let fen = pos.fen();
    let parsed = parsed.expect("checked above");
    assert!(pos.is_legal(m), "parse_uci({text:?}) gave illegal {m:?}: {fen}");
    assert_eq!(m.from(), parsed.from, "{text:?}: {fen}");
    assert_eq!(m.promotion_role(), parsed.promotion, "{text:?}: {fen}");
    if !m.is_castle() {
        assert_eq!(m.to(), parsed.to, "{text:?}: {fen}");
    }
    let uci = pos.uci(m);
    assert_eq!(pos.parse_uci(uci.as_str()), Ok(m), "UCI {uci} of {text:?}: {fen}");
    // In Chess960 notation castling is king-takes-rook and the move reads back.
    let mut c960 = *pos;
    let _ = c960.set_castling_mode(CastlingMode::Chess960);
    let uci960 = c960.uci(m);
    assert_eq!(c960.parse_uci(uci960.as_str()), Ok(m), "Chess960 UCI {uci960} of {text:?}: {fen}");
}

fuzz_target!(|data: &[u8]| {
    let Some((pos, text)) = position_and_text(data) else { return };
    check(&pos, &text);
    for word in text.split_ascii_whitespace() {
        check(&pos, word);
    }
});
