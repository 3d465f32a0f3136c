//! Arbitrary bytes as a FEN, read with every combination of options.
//!
//! Reading must never panic. Whatever is accepted must write a FEN that reads
//! back to the same position, generate its legal moves consistently, and (for
//! strictly valid positions) lead only to strictly valid positions.

#![no_main]

use arbiter_chess::{FenOptions, Position, Strictness};
use arbiter_chess_fuzz::{check_fen_round_trip, check_position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for chess960 in [false, true] {
        let strict = Position::from_fen_with(&text, FenOptions { chess960, strictness: Strictness::Strict });
        let lenient =
            Position::from_fen_with(&text, FenOptions { chess960, strictness: Strictness::Lenient });
        if let Ok(pos) = &strict {
            // Strict acceptance implies lenient acceptance of the same position.
            let lenient = lenient.as_ref().expect("strict FEN rejected by the lenient reader");
            assert_eq!(lenient, pos);
            assert_eq!(lenient.fen(), pos.fen());
        }
        let Ok(pos) = lenient else { continue };
        let strictness = if strict.is_ok() { Strictness::Strict } else { Strictness::Lenient };
        check_fen_round_trip(&pos, strictness);
        check_position(&pos);
        // Every child of an accepted position must be accepted too, with the
        // same strictness: a legal move from a possible position gives a
        // possible position.
        for &m in pos.legal_moves().iter() {
            let child = pos.after(m);
            check_fen_round_trip(&child, strictness);
        }
    }
});
