//! Exact "cannot mate" rules for piece-only material.
//!
//! These rules only ever answer `true` when no checkmate by `side` exists in
//! *any* position with the given material (and, since the loser has no pawns
//! where it matters, no new material can ever appear):
//!
//! * `side` has a bare king: a king never gives check.
//! * `side` has K+N and the opponent has only queens besides the king (no
//!   pawns, minor pieces or rooks): a knight check leaves the mated king's
//!   flight squares to be covered by the mating king or blocked by the loser's
//!   own pieces, and a queen standing next to the king always attacks the
//!   checking knight or the mating king (checked exhaustively for K+N v K+Q;
//!   see the `deadpos` tests).
//! * `side` has only bishops on squares of one colour and there is no pawn,
//!   no knight and no bishop of the other colour anywhere: the mated king
//!   stands on the bishops' colour and its flight squares of the other
//!   colour can only be blocked by rooks or queens, which then attack the
//!   checking diagonal or the mating king (K+B v K+B same colours is the
//!   classic dead position; K+B v K+Q is in the DEF-CANNOT-MATE examples).
//!
//! With pawns on the board any of these may change (promotion to a blocking
//! knight or bishop), so the rules then do not apply.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::Color;

/// `true` if `side` can never deliver checkmate with the material on the
/// board, whatever the placement (see the module docs for the exact rules).
///
/// This is a cheap, purely material test: `false` does not mean a mate
/// exists, only that this test cannot rule it out. It agrees with the
/// classic material tables (lichess, python-chess) on piece-only endings and
/// adds the K+N v K+Q(s) and same-coloured-bishops v heavy pieces cases.
pub fn has_insufficient_material(pos: &Position, side: Color) -> bool {
    let b = pos.board();
    let ours = b.by_color(side);
    let theirs = b.by_color(side.other());
    if ours.exactly_one() {
        return true;
    }
    let minors = b.knights() | b.bishops();
    // K+N against a king with queens only.
    if ours.exactly_two()
        && (ours & b.knights()).any()
        && (theirs & (minors | b.rooks() | b.pawns())).is_empty()
    {
        return true;
    }
    // Same-coloured bishops only, and nothing that could block on the other
    // colour (no knights, no pawns, no bishop of the other colour).
    let our_bishops = ours & b.bishops();
    // (Bishops and the king only.)
    if our_bishops.any() && (ours - our_bishops).exactly_one() {
        let colour = if (our_bishops & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if (b.bishops() - colour).is_empty() && b.knights().is_empty() && b.pawns().is_empty() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::types::{CastlingMode, Piece, Role, Square};

    /// Exhaustively: no placement of White K + `minor` against Black K +
    /// `heavy` has Black checkmated (White to have just moved, so White is
    /// not in check). This backs the material rules for four pieces.
    fn no_mate_exists(minor: Role, heavy: Role) -> bool {
        let piece = |color, role| Piece { color, role };
        for wk in Square::all() {
            for bk in Square::all() {
                if wk.distance(bk) <= 1 {
                    continue;
                }
                for m in Square::all() {
                    if m == wk || m == bk {
                        continue;
                    }
                    for h in Square::all() {
                        if h == wk || h == bk || h == m {
                            continue;
                        }
                        let mut board = Board::empty();
                        board.set(wk, piece(Color::White, Role::King));
                        board.set(m, piece(Color::White, minor));
                        board.set(bk, piece(Color::Black, Role::King));
                        board.set(h, piece(Color::Black, heavy));
                        let pos = Position::from_parts_unchecked(
                            board,
                            Color::Black,
                            Bitboard::EMPTY,
                            None,
                            0,
                            1,
                            CastlingMode::Standard,
                        );
                        if !pos.is_check() || pos.is_attacked(wk, Color::Black) {
                            continue;
                        }
                        if !pos.has_legal_move() {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    #[test]
    fn four_piece_material_rules_are_exact() {
        assert!(no_mate_exists(Role::Knight, Role::Queen));
        assert!(no_mate_exists(Role::Bishop, Role::Queen));
        assert!(no_mate_exists(Role::Bishop, Role::Rook));
        // The counter-examples exist, so the enumeration can find mates.
        assert!(!no_mate_exists(Role::Knight, Role::Rook));
        assert!(!no_mate_exists(Role::Bishop, Role::Knight));
    }
}
