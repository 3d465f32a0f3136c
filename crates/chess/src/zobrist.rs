//! Polyglot-compatible Zobrist keys.
//!
//! The keys are the published PolyGlot `Random64` table
//! (`data/polyglot-random64.txt`), so [`Position::zobrist`] agrees with every
//! Polyglot opening book: the start position is `0x463b96181691fc9c`.

use crate::attacks::POLYGLOT_RANDOM64;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{CastlingSide, Color, File, Piece, Square};

const CASTLE_OFFSET: usize = 768;
const EP_OFFSET: usize = 772;
const TURN_OFFSET: usize = 780;

/// The key of `piece` on `sq`.
#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    // Polyglot orders kinds as black pawn, white pawn, black knight, ...
    let kind = 2 * piece.role.index() + usize::from(piece.color == Color::White);
    POLYGLOT_RANDOM64[64 * kind + sq.index()]
}

/// The key XORed in when white is to move.
#[inline(always)]
pub fn turn_key() -> u64 {
    POLYGLOT_RANDOM64[TURN_OFFSET]
}

/// The key of an en passant file.
#[inline(always)]
pub fn ep_key(file: File) -> u64 {
    POLYGLOT_RANDOM64[EP_OFFSET + file.index() as usize]
}

/// The key of one castling right (white king side = 0, white queen side = 1,
/// black king side = 2, black queen side = 3).
#[inline]
pub fn castling_right_key(color: Color, side: CastlingSide) -> u64 {
    POLYGLOT_RANDOM64[CASTLE_OFFSET + 2 * color.index() + side.index()]
}

/// The combined key of the castling rights of a position.
pub(crate) fn castling_key(pos: &Position) -> u64 {
    castling_rights_key(pos, pos.castling)
}

/// The combined key of the castling rights held by the rooks on `rights`,
/// judged against the kings of `pos` (at most one right per side and colour).
pub(crate) fn castling_rights_key(pos: &Position, rights: Bitboard) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        let rooks = rights & Bitboard::from_rank(color.back_rank());
        if rooks.is_empty() {
            continue;
        }
        let king = pos.king(color);
        let mut sides = [false; 2];
        for r in rooks {
            sides[CastlingSide::from_files(king.file(), r.file()).index()] = true;
        }
        for side in CastlingSide::ALL {
            if sides[side.index()] {
                key ^= castling_right_key(color, side);
            }
        }
    }
    key
}

/// The full key without the en passant file, computed from scratch.
pub(crate) fn hash_without_ep(pos: &Position) -> u64 {
    let mut key = 0;
    for (sq, piece) in pos.board.pieces() {
        key ^= piece_key(piece, sq);
    }
    key ^= castling_key(pos);
    if pos.turn == Color::White {
        key ^= turn_key();
    }
    key
}

/// The Polyglot key of a position computed from scratch (for tests of the
/// incremental update).
pub fn zobrist_from_scratch(pos: &Position) -> u64 {
    let mut key = hash_without_ep(pos);
    if let Some(ep) = pos.pseudo_ep_square() {
        key ^= ep_key(ep.file());
    }
    key
}
