//! Bytes drive a game of legal moves from the standard start position or a
//! Chess960 start, checking every invariant at every ply.
//!
//! Input layout: byte 0 picks the start (even: standard; odd: Chess960 with
//! the Scharnagl number from bytes 1-2). Then each ply reads one byte that
//! picks a legal move and two bytes that form an arbitrary 16-bit move whose
//! `is_legal` and `play` must agree with the move list.

#![no_main]

use arbiter_chess::{Move, Position, Strictness};
use arbiter_chess_fuzz::{check_fen_round_trip, check_position, check_probe, move_set};
use libfuzzer_sys::fuzz_target;

/// Long enough for games to reach endgames; keeps each input fast.
const MAX_PLIES: usize = 400;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let Some(start) = bytes.next() else { return };
    let mut pos = if start & 1 == 0 {
        Position::startpos()
    } else {
        let n = u16::from_le_bytes([bytes.next().unwrap_or(0), bytes.next().unwrap_or(0)]);
        Position::chess960(u32::from(n) % 960).expect("n < 960")
    };
    for _ in 0..MAX_PLIES {
        check_position(&pos);
        check_fen_round_trip(&pos, Strictness::Strict);
        let moves = move_set(&pos);
        let Some(pick) = bytes.next() else { break };
        let probe = [bytes.next().unwrap_or(0), bytes.next().unwrap_or(0)];
        if let Some(probe) = Move::from_u16(u16::from_le_bytes(probe)) {
            check_probe(&pos, &moves, probe);
        }
        let list = pos.legal_moves();
        if list.is_empty() {
            assert!(pos.is_checkmate() || pos.is_stalemate());
            break;
        }
        let m = list[usize::from(pick) % list.len()];
        pos = pos.play(m).expect("listed move is legal");
    }
});
