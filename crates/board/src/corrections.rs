//! What to do on the board to bring it to a position: the guidance a device
//! shows (LEDs, a screen) after an illegal move, a take-back or a
//! reinstatement (OCR 3.2.6: the board must show what it believes).

use arbiter_chess::{Bitboard, Board, Piece, Square};

use crate::observation::Placement;

/// One step of putting the board right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Correction {
    /// Move the piece from one square to another.
    Move { from: Square, to: Square, piece: Piece },
    /// Take the piece off the board (`None`: an occupancy board cannot say
    /// which piece stands there).
    Remove { square: Square, piece: Option<Piece> },
    /// Put this piece on the square.
    Put { square: Square, piece: Piece },
}

/// The steps that turn `board` (what the board shows) into `target` (the
/// position of the game): pieces out of place are paired with the nearest
/// square their kind is missing from, then what is left over is removed or
/// put. Removals come first, so no step puts a piece on an occupied square;
/// no correction means the board is right.
pub fn corrections(board: &Placement, target: &Board) -> Vec<Correction> {
    let mut out = Vec::new();
    match board {
        Placement::Pieces(shown) => {
            let mut moves = Vec::new();
            let mut puts = Vec::new();
            for piece in all_pieces() {
                let have = shown.by_piece(piece);
                let want = target.by_piece(piece);
                let mut surplus: Vec<Square> = (have & !want).into_iter().collect();
                let mut missing: Vec<Square> = (want & !have).into_iter().collect();
                // Greedy nearest pairing: a handful of squares at most, and a
                // near-optimal plan is all a player needs to follow.
                while let (false, false) = (surplus.is_empty(), missing.is_empty()) {
                    let mut best = (u32::MAX, 0, 0);
                    for (i, s) in surplus.iter().enumerate() {
                        for (j, m) in missing.iter().enumerate() {
                            let d = s.distance(*m);
                            if d < best.0 {
                                best = (d, i, j);
                            }
                        }
                    }
                    let from = surplus.swap_remove(best.1);
                    let to = missing.swap_remove(best.2);
                    moves.push(Correction::Move { from, to, piece });
                }
                for square in surplus {
                    out.push(Correction::Remove { square, piece: Some(piece) });
                }
                puts.extend(missing.into_iter().map(|square| Correction::Put { square, piece }));
            }
            // A move onto a square still holding a wrong piece waits for that
            // piece's removal, which comes first in `out`; moves between two
            // wrong squares are ordered so that a vacated square is filled
            // after it is vacated.
            order_moves(&mut moves, shown.occupied());
            out.extend(moves);
            out.extend(puts);
        }
        Placement::Occupancy(occ) => {
            for square in *occ & !target.occupied() {
                out.push(Correction::Remove { square, piece: None });
            }
            for square in target.occupied() & !*occ {
                if let Some(piece) = target.piece_at(square) {
                    out.push(Correction::Put { square, piece });
                }
            }
        }
    }
    out
}

fn all_pieces() -> impl Iterator<Item = Piece> {
    arbiter_chess::Color::ALL
        .into_iter()
        .flat_map(|color| arbiter_chess::Role::ALL.into_iter().map(move |role| Piece { color, role }))
}

/// Orders moves so that each goes to a square already free, where possible
/// (a cycle of swaps cannot be, and is left in the given order).
fn order_moves(moves: &mut Vec<Correction>, occupied: Bitboard) {
    let mut occ = occupied;
    let mut ordered = Vec::with_capacity(moves.len());
    let mut rest = std::mem::take(moves);
    while !rest.is_empty() {
        let pos = rest
            .iter()
            .position(|c| matches!(c, Correction::Move { to, .. } if !occ.contains(*to)))
            .unwrap_or(0);
        let c = rest.remove(pos);
        if let Correction::Move { from, to, .. } = c {
            occ.remove(from);
            occ.add(to);
        }
        ordered.push(c);
    }
    *moves = ordered;
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_chess::{Color, Position, Role};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn a_correct_board_needs_nothing() {
        let pos = Position::startpos();
        assert!(corrections(&Placement::Pieces(*pos.board()), pos.board()).is_empty());
    }

    #[test]
    fn an_illegal_move_is_moved_back_and_the_captured_piece_put_back() {
        let pos = Position::startpos();
        let mut shown = *pos.board();
        // Bf1 jumped to b5 through its own pawn, then took a black pawn on d7.
        let bishop = shown.remove(sq("f1")).unwrap();
        shown.set(sq("d7"), bishop);
        let c = corrections(&Placement::Pieces(shown), pos.board());
        let pawn = Piece { color: Color::Black, role: Role::Pawn };
        assert_eq!(
            c,
            vec![
                Correction::Move { from: sq("d7"), to: sq("f1"), piece: bishop },
                Correction::Put { square: sq("d7"), piece: pawn },
            ]
        );
    }

    #[test]
    fn occupancy_boards_get_squares_to_clear_and_fill() {
        let pos = Position::startpos();
        let mut occ = pos.board().occupied();
        occ.remove(sq("e2"));
        occ.add(sq("e4"));
        let c = corrections(&Placement::Occupancy(occ), pos.board());
        assert_eq!(
            c,
            vec![
                Correction::Remove { square: sq("e4"), piece: None },
                Correction::Put { square: sq("e2"), piece: Piece { color: Color::White, role: Role::Pawn } },
            ]
        );
    }
}
