//! Article 4, the act of moving: which moves a player is bound to after
//! touching pieces ("touch-move"). Applies over the board only (OCR 1.3
//! supersedes Article 4 online).
//!
//! The obligation is computed from the pieces touched with intent, in the
//! order they were touched, against the position on the board:
//!
//! - 4.3.1: own pieces only: move the first touched piece that can move.
//! - 4.3.2: opponent's pieces only: capture the first touched piece that can
//!   be captured.
//! - 4.3.3: both colours: capture the first touched opponent piece with the
//!   first touched own piece; if that is illegal, move or capture the first
//!   touched piece that can be moved or captured.
//! - 4.4.1: king, then a rook: castle on that side if legal; 4.4.3 if it is
//!   not, another legal king move (castling on the other side included), or
//!   any legal move if the king cannot move. A rook on the king's first
//!   rank without a castling right is such a rook too (DEC-21).
//! - 4.4.2: a rook, then the king: no castling on that side on this move;
//!   4.3.1 governs (the rook if it can move, otherwise the king).
//! - 4.5: if no touched piece can be moved or captured, any legal move.
//!
//! There is no time penalty for a breach as such: the remedy is to enforce
//! the correct move (the caller refuses any other).
//!
//! Castling banned by A.5.1.2 (a misplaced king or rook) is not a legal move
//! here: [`obligation_with_bans`] takes the castling rooks it concerns, so
//! touching the king and such a rook falls under 4.4.3 like any other
//! illegal castling.

use arbiter_chess::{Bitboard, CastlingSide, Move, Position, Square};

use crate::rule::RuleId;

/// The moves a player may make after touching pieces.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Obligation {
    /// The legal moves that satisfy the Laws; never empty.
    pub allowed: Vec<Move>,
    /// The Article that binds the player (e.g. `FIDE-4.3a`).
    pub rule: RuleId,
    /// A sentence for the players, naming the piece or square.
    pub reason: String,
}

impl Obligation {
    /// `true` if `m` satisfies the obligation.
    pub fn allows(&self, m: Move) -> bool {
        self.allowed.contains(&m)
    }
}

/// The position and the castling rooks with which castling is banned
/// (A.5.1.2); a castling move is the king taking its own rook, so it is
/// banned when its destination is one of them.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    pos: &'a Position,
    banned: Bitboard,
}

impl Ctx<'_> {
    fn legal(&self, from: Bitboard, to: Bitboard) -> Vec<Move> {
        self.pos
            .legal_moves_filtered(from, to)
            .iter()
            .copied()
            .filter(|m| !(m.is_castle() && self.banned.contains(m.to())))
            .collect()
    }

    fn moves_from(&self, sq: Square) -> Vec<Move> {
        self.legal(Bitboard::from_square(sq), Bitboard::FULL)
    }

    /// The legal captures of the piece on `sq`, en passant included: an
    /// en passant capture takes the pawn beside the capturing one, not a
    /// piece on its destination (3.7.3.1).
    fn captures_of(&self, sq: Square) -> Vec<Move> {
        let mut to = Bitboard::from_square(sq);
        if let Some(ep) = self.pos.pseudo_ep_square() {
            to.add(ep);
        }
        self.legal(Bitboard::FULL, to)
            .into_iter()
            .filter(|m| !m.is_castle() && captured_square(self.pos, *m) == Some(sq))
            .collect()
    }
}

/// The square of the piece `m` (a legal move of the side to move in `pos`)
/// captures, if it captures one: its destination, or for an en passant
/// capture the square of the pawn taken beside it (3.7.3.1).
pub(crate) fn captured_square(pos: &Position, m: Move) -> Option<Square> {
    if m.is_en_passant() {
        return Some(Square::from_coords(m.to().file(), m.from().rank()));
    }
    let theirs = pos.board().by_color(pos.turn().other());
    (!m.is_castle() && theirs.contains(m.to())).then_some(m.to())
}

fn piece_name(pos: &Position, sq: Square) -> String {
    match pos.board().piece_at(sq) {
        Some(p) => format!("the {} on {sq}", p.role.name()),
        None => format!("the empty square {sq}"),
    }
}

/// The obligation created by touching `touched` (squares touched with
/// intent, in order) in `pos`, for the side to move; `None` if the player may
/// make any legal move (nothing touched, or 4.5).
pub fn obligation(pos: &Position, touched: &[Square]) -> Option<Obligation> {
    obligation_with_bans(pos, touched, Bitboard::EMPTY)
}

/// As [`obligation`], with castling onto the rooks in `banned` (castling
/// rook squares of the side to move) illegal because of A.5.1.2.
pub fn obligation_with_bans(pos: &Position, touched: &[Square], banned: Bitboard) -> Option<Obligation> {
    let cx = Ctx { pos, banned };
    let us = pos.turn();
    let board = pos.board();
    let mut seen = Bitboard::EMPTY;
    let touched: Vec<Square> = touched
        .iter()
        .copied()
        .filter(|s| {
            let new = !seen.contains(*s);
            seen.add(*s);
            new && board.occupied().contains(*s)
        })
        .collect();
    if touched.is_empty() {
        return None;
    }
    let ours = board.by_color(us);
    let own: Vec<Square> = touched.iter().copied().filter(|s| ours.contains(*s)).collect();
    let theirs: Vec<Square> = touched.iter().copied().filter(|s| !ours.contains(*s)).collect();
    let king = pos.king(us);

    // Castling cases (4.4): the king and one of its castling rooks touched,
    // or the king on its first rank and then a rook beside it on that rank
    // that has no castling right (DEC-21: the same castling intent, where
    // castling is illegal, 4.4.3).
    if own.contains(&king) {
        let king_index = touched.iter().position(|s| *s == king).unwrap_or(0);
        for &rook in &own {
            if rook == king {
                continue;
            }
            let rook_index = touched.iter().position(|s| *s == rook).unwrap_or(0);
            if !pos.castling_rooks().contains(rook) {
                let beside = king.rank() == us.back_rank()
                    && rook.rank() == king.rank()
                    && board.rooks().contains(rook);
                if beside && king_index < rook_index {
                    return Some(castling_illegal(cx, king));
                }
                continue;
            }
            let side = CastlingSide::from_files(king.file(), rook.file());
            if king_index < rook_index {
                return Some(castling_first(cx, king, side));
            }
            return rook_first(cx, rook, king, side);
        }
    }

    if theirs.is_empty() {
        return first_movable(cx, &own, RuleId::Fide4_3a);
    }
    if own.is_empty() {
        for &sq in &theirs {
            let caps = cx.captures_of(sq);
            if !caps.is_empty() {
                return Some(Obligation {
                    allowed: caps,
                    rule: RuleId::Fide4_3b,
                    reason: format!("{} was touched and must be captured", piece_name(pos, sq)),
                });
            }
        }
        return None;
    }
    // 4.3.3: both colours touched.
    let (first_own, first_theirs) = (own[0], theirs[0]);
    let capture: Vec<Move> =
        cx.captures_of(first_theirs).into_iter().filter(|m| m.from() == first_own).collect();
    if !capture.is_empty() {
        return Some(Obligation {
            allowed: capture,
            rule: RuleId::Fide4_3c,
            reason: format!("{} must capture {}", piece_name(pos, first_own), piece_name(pos, first_theirs)),
        });
    }
    for &sq in &touched {
        if ours.contains(sq) {
            let moves = cx.moves_from(sq);
            if !moves.is_empty() {
                return Some(Obligation {
                    allowed: moves,
                    rule: RuleId::Fide4_3c,
                    reason: format!("{} was touched first and must be moved", piece_name(pos, sq)),
                });
            }
        } else {
            let caps = cx.captures_of(sq);
            if !caps.is_empty() {
                return Some(Obligation {
                    allowed: caps,
                    rule: RuleId::Fide4_3c,
                    reason: format!("{} was touched first and must be captured", piece_name(pos, sq)),
                });
            }
        }
    }
    None
}

/// 4.3.1: the first touched own piece that has a legal move.
fn first_movable(cx: Ctx<'_>, own: &[Square], rule: RuleId) -> Option<Obligation> {
    for &sq in own {
        let moves = cx.moves_from(sq);
        if !moves.is_empty() {
            return Some(Obligation {
                allowed: moves,
                rule,
                reason: format!("{} was touched and must be moved", piece_name(cx.pos, sq)),
            });
        }
    }
    None
}

/// 4.4.1 and 4.4.3: king touched first, then a castling rook.
fn castling_first(cx: Ctx<'_>, king: Square, side: CastlingSide) -> Obligation {
    let king_moves = cx.moves_from(king);
    let castle: Vec<Move> = king_moves.iter().copied().filter(|m| m.castling_side() == Some(side)).collect();
    if !castle.is_empty() {
        let name = if side == CastlingSide::KingSide { "O-O" } else { "O-O-O" };
        return Obligation {
            allowed: castle,
            rule: RuleId::Fide4_4a,
            reason: format!("king and rook were touched: {name} must be played"),
        };
    }
    castling_illegal(cx, king)
}

/// 4.4.3: king touched first, then a rook, and castling with that rook is
/// illegal: another king move, which may be castling with the other rook;
/// if the king cannot move, any legal move.
fn castling_illegal(cx: Ctx<'_>, king: Square) -> Obligation {
    let king_moves = cx.moves_from(king);
    if !king_moves.is_empty() {
        return Obligation {
            allowed: king_moves,
            rule: RuleId::Fide4_4c,
            reason: "castling was intended but is illegal: another king move must be played".into(),
        };
    }
    Obligation {
        allowed: cx.legal(Bitboard::FULL, Bitboard::FULL),
        rule: RuleId::Fide4_4c,
        reason: "the king cannot move: any legal move".into(),
    }
}

/// 4.4.2: a rook touched before the king: no castling on that side this
/// move; the rook must move if it can, otherwise the king.
fn rook_first(cx: Ctx<'_>, rook: Square, king: Square, side: CastlingSide) -> Option<Obligation> {
    let rook_moves = cx.moves_from(rook);
    if !rook_moves.is_empty() {
        return Some(Obligation {
            allowed: rook_moves,
            rule: RuleId::Fide4_4b,
            reason: format!(
                "{} was touched before the king: it must be moved, not castled",
                piece_name(cx.pos, rook)
            ),
        });
    }
    let king_moves: Vec<Move> =
        cx.moves_from(king).into_iter().filter(|m| m.castling_side() != Some(side)).collect();
    if !king_moves.is_empty() {
        return Some(Obligation {
            allowed: king_moves,
            rule: RuleId::Fide4_4b,
            reason: "the rook cannot move: the king must be moved (no castling on that side)".into(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos_after(sans: &str) -> Position {
        let mut p = Position::startpos();
        for s in sans.split_whitespace() {
            p = p.after(p.parse_san(s).unwrap());
        }
        p
    }

    fn sans(pos: &Position, o: &Option<Obligation>) -> Vec<String> {
        let mut v: Vec<String> = o.as_ref().unwrap().allowed.iter().map(|m| pos.san(*m)).collect();
        v.sort();
        v
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn as_02_touched_knight_must_move() {
        let p = pos_after("e4 e5 Nf3");
        let o = obligation(&p, &[sq("b8")]);
        assert_eq!(sans(&p, &o), ["Na6", "Nc6"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_3a);
    }

    #[test]
    fn as_04_touched_bishop_must_move() {
        let p = pos_after("e4 e5");
        let o = obligation(&p, &[sq("f1")]);
        assert_eq!(sans(&p, &o), ["Ba6", "Bb5", "Bc4", "Bd3", "Be2"]);
    }

    #[test]
    fn as_05_untouchable_capture_leaves_any_move() {
        let p = pos_after("e4 e5");
        assert_eq!(obligation(&p, &[sq("e5")]), None);
    }

    #[test]
    fn as_06_touched_pawn_must_be_captured() {
        let p = pos_after("e4 d5");
        let o = obligation(&p, &[sq("d5")]);
        assert_eq!(sans(&p, &o), ["exd5"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_3b);
    }

    #[test]
    fn banned_castling_is_an_illegal_castling_intent() {
        // A.5.1.2: castling with the h1 rook is banned, so touching the king
        // and that rook requires another king move (4.4.3), O-O-O included.
        let p = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1").unwrap();
        let o = obligation_with_bans(&p, &[sq("e1"), sq("h1")], Bitboard::from_square(sq("h1")));
        assert_eq!(sans(&p, &o), ["Kd1", "Kf1", "O-O-O"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_4c);
        // The king alone touched: its moves without the banned castling.
        let o = obligation_with_bans(&p, &[sq("e1")], Bitboard::from_square(sq("h1")));
        assert_eq!(sans(&p, &o), ["Kd1", "Kf1", "O-O-O"]);
    }

    #[test]
    fn as_08_king_then_rook_must_castle() {
        let p = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1").unwrap();
        let o = obligation(&p, &[sq("e1"), sq("h1")]);
        assert_eq!(sans(&p, &o), ["O-O"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_4a);
    }

    #[test]
    fn as_09_rook_then_king_forbids_castling() {
        let p = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1").unwrap();
        let o = obligation(&p, &[sq("h1"), sq("e1")]);
        assert_eq!(sans(&p, &o), ["Rf1", "Rg1"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_4b);
    }

    #[test]
    fn illegal_castling_intent_requires_another_king_move() {
        // The knight on g1 blocks O-O: another king move (O-O-O included)
        // must be played.
        let blocked = Position::from_fen("4k3/8/8/8/8/8/8/R3K1NR w KQ - 0 1").unwrap();
        let o = obligation(&blocked, &[sq("e1"), sq("h1")]);
        let mut got = sans(&blocked, &o);
        got.sort();
        assert_eq!(got, ["Kd1", "Kd2", "Ke2", "Kf1", "Kf2", "O-O-O"]);
        assert_eq!(o.unwrap().rule, RuleId::Fide4_4c);
    }

    #[test]
    fn both_colours_touched() {
        // 4.3.3: own knight then the pawn it can take.
        let p = pos_after("e4 d5 Nc3");
        let p = p.after(p.parse_san("Nf6").unwrap());
        let o = obligation(&p, &[sq("c3"), sq("d5")]);
        assert_eq!(sans(&p, &o), ["Nxd5"]);
        // The own piece cannot take the touched pawn: first touched piece
        // that can move (the knight on g1).
        let o = obligation(&p, &[sq("g1"), sq("d5")]);
        assert_eq!(sans(&p, &o), ["Nf3", "Nge2", "Nh3"]);
    }

    #[test]
    fn as_14_touched_piece_in_check_must_block_or_capture() {
        let p = Position::from_fen("4k3/3q4/8/8/8/8/8/4RK2 b - - 0 28").unwrap();
        let o = obligation(&p, &[sq("d7")]);
        assert_eq!(sans(&p, &o), ["Qe6", "Qe7"]);
    }

    #[test]
    fn nothing_movable_means_any_move() {
        let p = Position::startpos();
        assert_eq!(obligation(&p, &[sq("a1")]), None);
        assert_eq!(obligation(&p, &[]), None);
        assert_eq!(obligation(&p, &[sq("e4")]), None, "an empty square binds nothing");
    }
}
