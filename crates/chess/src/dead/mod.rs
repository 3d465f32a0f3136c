//! Dead positions and "can this side ever checkmate?" (FIDE 5.2.2, 6.9, 7.5.5, 5.1.2).
//!
//! The Laws ask whether a side can checkmate "by any possible series of legal
//! moves": whether a *helpmate* exists, with both sides cooperating. That is
//! not a material count (K+N mates K+R, but never K+Q), so [`can_mate`]
//! answers with a proof either way, or admits it does not know:
//!
//! * [`Mateability::CanMate`] carries a *witness*: legal moves from the given
//!   position ending with the other side checkmated. [`is_witness`] checks one.
//! * [`Mateability::CannotMate`] is only ever returned with a proof, and the
//!   analysis is built so that it is never wrong (soundness first).
//! * [`Mateability::Unknown`] means the node budget ran out first.
//!
//! # Method
//!
//! The approach follows the published "Chess Unwinnability Analyzer" of
//! M. Ambrona (D3-Chess / chasolver); the code here is written from scratch.
//!
//! 1. **Forced moves.** While the side to move has exactly one legal move it
//!    is played; a forced line that repeats a position can never mate, and one
//!    that ends in mate or stalemate decides the question (Laws 6.9 example:
//!    a flagged player's only move stalemates the opponent).
//! 2. **Material** ([`has_insufficient_material`]): exact rules for piece-only
//!    endings (bare king; K+N against queens only; same-coloured bishops with
//!    no pawn, knight or other-coloured bishop on the board).
//! 3. **Narrow witness search.** A few winner moves deep, only the best few
//!    moves by heuristics (the winner's pieces approach the loser's king, the
//!    loser's pieces stay next to their king and avoid captures, the loser's
//!    king walks towards the winner's pieces), with a mate-in-one test at each
//!    winner node. Ordinary middlegame positions get their witness here in a
//!    handful of nodes.
//! 4. **Semi-static analysis** of blocked pawn structures: which pawns can
//!    never move, and which squares every other piece can ever reach; if no
//!    winner piece can ever attack a square the loser's king can reach (or only
//!    same-coloured bishops can, and a flight square of the other colour always
//!    stays open), no mate exists.
//! 5. **Full search** with iterative deepening and a transposition table. The
//!    depth cost of a move depends on heuristics in the style of D3-Chess (a
//!    mating corner is chosen; the winner's captures and advanced pawn moves,
//!    kings and knights closing in on the corner and the loser's pieces
//!    gathering round their king are free; the loser's captures cost more),
//!    which only decide *where* the search looks first. A search that ends without any
//!    branch cut by depth or budget has seen every reachable position, so
//!    "no mate found" is then a proof; inside the search, the material rules
//!    and the semi-static analysis close branches that provably cannot mate.
//!
//! # Unknown answers (DEC-4)
//!
//! The crate only reports. When the budget runs out the answer is
//! [`Mateability::Unknown`]; the caller applies the event's default (the
//! project's decision DEC-4: treat a flag fall as a loss, since the draw is the
//! exception, and flag the game for human review). Callers that need more
//! certainty can retry with a larger budget via [`can_mate_with_budget`].

mod blocked;
mod material;
mod search;

pub use material::has_insufficient_material;

use crate::position::Position;
use crate::types::{Color, Move};
use search::{Outcome, Searcher};

/// The node budget of [`can_mate`]: enough for every labelled test position
/// but the hardest few, at a worst case of some tens of milliseconds.
pub const DEFAULT_BUDGET: u64 = 200_000;

/// Nodes the narrow witness search may spend before the proofs are tried
/// (fewer in the quick mode, where it is the only search).
const QUICK_NODES: u64 = 160;
const QUICK_MODE_NODES: u64 = 24;

/// Whether a side can still checkmate, with the evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mateability {
    /// A helpmate exists: these legal moves, played from the position, end
    /// with the other side checkmated (empty if it already is).
    CanMate(Vec<Move>),
    /// No series of legal moves ends with the other side checkmated.
    CannotMate,
    /// The budget ran out before either answer was proved.
    Unknown,
}

impl Mateability {
    /// `true` for [`Mateability::CanMate`].
    pub fn can_mate(&self) -> bool {
        matches!(self, Mateability::CanMate(_))
    }

    /// `true` for [`Mateability::CannotMate`].
    pub fn cannot_mate(&self) -> bool {
        matches!(self, Mateability::CannotMate)
    }

    /// The word used by the command-line tools: `can-mate`, `cannot-mate` or
    /// `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            Mateability::CanMate(_) => "can-mate",
            Mateability::CannotMate => "cannot-mate",
            Mateability::Unknown => "unknown",
        }
    }
}

/// The answer for both sides (FIDE 5.2.2: dead when neither can mate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BothSides {
    pub white: Mateability,
    pub black: Mateability,
}

impl BothSides {
    /// The answer for `side`.
    pub fn side(&self, side: Color) -> &Mateability {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// `Some(true)` if the position is dead, `Some(false)` if some side can
    /// still mate, `None` if that is not known.
    pub fn is_dead(&self) -> Option<bool> {
        if self.white.can_mate() || self.black.can_mate() {
            Some(false)
        } else if self.white.cannot_mate() && self.black.cannot_mate() {
            Some(true)
        } else {
            None
        }
    }
}

/// Can `side` ever checkmate its opponent, with both sides cooperating?
/// Uses [`DEFAULT_BUDGET`]; see the module docs for the method.
///
/// Never returns [`Mateability::CannotMate`] when a helpmate exists.
pub fn can_mate(pos: &Position, side: Color) -> Mateability {
    can_mate_with_budget(pos, side, DEFAULT_BUDGET)
}

/// As [`can_mate`] with an explicit budget of full-search nodes (positions
/// whose moves are all searched). A larger budget turns more
/// [`Mateability::Unknown`] answers into definite ones; a definite answer is
/// right whatever the budget.
///
/// A budget of `0` is the *quick mode*: forced moves, the material rules, the
/// narrow witness search (a fixed 24 nodes) and the semi-static
/// analysis only; everything else is [`Mateability::Unknown`].
pub fn can_mate_with_budget(pos: &Position, side: Color, budget: u64) -> Mateability {
    let mut pos = *pos;
    let mut prefix = Vec::new();
    let mut seen: Vec<u64> = Vec::new();
    // 1. Forced moves.
    loop {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() && pos.turn() != side {
                Mateability::CanMate(prefix)
            } else {
                Mateability::CannotMate
            };
        }
        if moves.len() != 1 || prefix.len() >= 64 {
            break;
        }
        let key = pos.zobrist();
        if seen.contains(&key) {
            // The game can only go round this cycle of forced moves.
            return Mateability::CannotMate;
        }
        seen.push(key);
        prefix.push(moves[0]);
        pos.play_unchecked(moves[0]);
    }
    // 2. Material.
    if has_insufficient_material(&pos, side) {
        return Mateability::CannotMate;
    }
    let mut searcher = Searcher::new(side, budget);
    searcher.line = prefix;
    // 3. A quick witness.
    if searcher.quick_witness(&pos, 3, if budget == 0 { QUICK_MODE_NODES } else { QUICK_NODES }) {
        return Mateability::CanMate(searcher.line);
    }
    // 4. Blocked structures.
    if blocked::blocked_cannot_mate(&pos, side) {
        return Mateability::CannotMate;
    }
    // 5. The full search.
    match searcher.full_search(&pos, 1) {
        Outcome::Mate => Mateability::CanMate(searcher.line),
        Outcome::NoMate => Mateability::CannotMate,
        Outcome::OutOfBudget => Mateability::Unknown,
    }
}

/// Both sides' answers with [`DEFAULT_BUDGET`] each (FIDE 5.2.2 dead position:
/// see [`BothSides::is_dead`]).
pub fn is_dead(pos: &Position) -> BothSides {
    BothSides { white: can_mate(pos, Color::White), black: can_mate(pos, Color::Black) }
}

/// Budget of the per-move test [`is_dead_quick`] once the pawns are locked.
const QUICK_DEAD_BUDGET: u64 = 2_000;

/// A cheap test for the dead positions that arise in play, meant to run after
/// every move (5.2.2 ends the game at once): `true` only with a proof that
/// neither side can checkmate; `false` means "not shown dead".
///
/// It proves the piece-only endings by the material rules, and runs the
/// analysis (with a small budget) only when no pawn of either side can move
/// or capture, which is when blocked structures arise. Other dead positions
/// (rare in play) are left to [`is_dead`], for example when a flag falls.
pub fn is_dead_quick(pos: &Position) -> bool {
    if Color::ALL.into_iter().all(|c| has_insufficient_material(pos, c)) {
        return true;
    }
    if pawns_can_move(pos) {
        return false;
    }
    Color::ALL.into_iter().all(|c| can_mate_with_budget(pos, c, QUICK_DEAD_BUDGET).cannot_mate())
}

/// `true` if some pawn has a push or a capture available (pins ignored).
fn pawns_can_move(pos: &Position) -> bool {
    let b = pos.board();
    let empty = !b.occupied();
    Color::ALL.into_iter().any(|c| {
        let pawns = b.pawns() & b.by_color(c);
        let enemies = b.by_color(c.other());
        let ep = pos.pseudo_ep_square().map_or(crate::Bitboard::EMPTY, crate::Bitboard::from_square);
        (pawns.forward(c) & empty).any()
            || (crate::movegen::pawn_attacks_set(c, pawns) & (enemies | ep)).any()
    })
}

/// `true` if `line` is a helpmate witness for `side` from `pos`: every move is
/// legal in turn and the final position has `side`'s opponent checkmated.
pub fn is_witness(pos: &Position, side: Color, line: &[Move]) -> bool {
    let mut p = *pos;
    for &m in line {
        if !p.is_legal(m) {
            return false;
        }
        p.play_unchecked(m);
    }
    p.turn() != side && p.is_checkmate()
}
