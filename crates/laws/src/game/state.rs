//! The state's parts: draw offers, arbiter questions, the move in
//! progress over the board, and the `observe = false` bookkeeping (A.5.2,
//! A.5.4).

use arbiter_chess::{Color, Move, Role, Square};

use crate::event::MoveInput;
use crate::rule::RuleId;
use crate::scoring::GameResult;
use crate::touch::Obligation;

/// A pending draw offer.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct DrawOffer {
    pub by: Color,
    /// Plies played when it was made.
    pub ply: usize,
}

/// What an open question is about.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum QuestionKind {
    /// The analyser could not tell whether `side` can still checkmate; the
    /// result `applied` was given by default.
    CannotMateUnknown { side: Color, applied: GameResult },
    /// Guidelines III.4: `by` asks for a 5-second increment for both.
    IncrementRequest { by: Color },
    /// Guidelines III.5: `by` claims the opponent cannot win by normal means.
    NoWinningAttempt { by: Color },
}

/// A question left to the arbiter (DEC-12).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub id: u32,
    pub kind: QuestionKind,
    pub text: String,
    pub default: String,
}

/// A move made on the board and not yet completed (over the board).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub(super) enum Pending {
    /// A legal move, already on the record; `two_hands` once the player
    /// reported it was made with two hands (7.5.4).
    Legal {
        color: Color,
        ply: usize,
        #[serde(default)]
        two_hands: bool,
    },
    /// The king stands on its castling square and the rook has not moved
    /// (4.7.2): only `castle` may complete the move; the record is
    /// unchanged; a press is a completed illegal move (DEC-6).
    HalfCastling { color: Color, castle: Move },
    /// A pawn reached the last rank and was not replaced (7.5.2): the move is
    /// on the record as a queen promotion; completing it is an illegal move.
    UnfinishedPromotion { color: Color, ply: usize },
    /// An illegal move (Article 3); the record is unchanged.
    Illegal { color: Color, mv: MoveInput, description: String, two_hands: bool },
    /// A legal move that breaks touch-move; refused by the service.
    Refused { color: Color },
}

/// `observe = false`: a completed illegal move nobody has acted on, which
/// the opponent may claim until he makes his next move (A.5.2).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub(super) struct Claimable {
    /// The offender.
    pub(super) color: Color,
    /// The Article the illegal move falls under (7.5.1, 7.5.2 or 7.5.4).
    pub(super) rule: RuleId,
    pub(super) description: String,
    /// Plies on the record before the illegal move: a claim takes the
    /// record back there.
    pub(super) ply_before: usize,
    /// 7.5.2: the move that stands once claimed (the pawn replaced by a
    /// queen); `None`: the position before the move is reinstated.
    pub(super) replacement: Option<Move>,
    /// The squares the offender touched: after a reinstatement he must move
    /// the piece he moved, or capture the piece he captured (7.5.1, 4.3).
    pub(super) touched: Vec<Square>,
    /// The increment the press credited, taken back on a claim (DEC-9).
    pub(super) credited_ms: i64,
    /// The A.5.4 watch as it was before the move was completed, restored
    /// when the move is taken back.
    pub(super) watch_before: Option<Watch>,
}

/// `observe = false`: an illegal move that stood, kept to explain why a
/// later claim is too late.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub(super) struct Stood {
    pub(super) color: Color,
    pub(super) description: String,
}

/// `observe = false`: what the arbiter function waits for after seeing an
/// illegal position (A.5.4).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Watch {
    /// An illegal position is on the board: the next completed move decides.
    /// `in_check`: the player not to move whose king was in check when it
    /// was seen.
    Seen { in_check: Option<Color> },
    /// The mover got out of check, the other king is still in check: if
    /// this player is still in check after completing his next move, he has
    /// made an illegal move (A.5.4 comm.).
    MustParry(Color),
}

/// The per-move state of the player having the move (over the board).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct TurnState {
    /// Squares touched with intent, in order.
    pub(super) touched: Vec<Square>,
    pub(super) adjust_announced: bool,
    /// 4.4.4: the promotion piece that touched the square.
    pub(super) promotion: Option<Role>,
    /// 9.4: a piece was touched with intent: no claim on this move.
    pub(super) claim_right_lost: bool,
    /// A move the player must make (incorrect claim with an intended move).
    pub(super) forced: Option<Obligation>,
    /// The move written with an incorrect 9.2/9.3 claim on this move: it
    /// cannot be changed (9.2.1.1), so a claim writing another move is
    /// incorrect (DEC-18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) written: Option<MoveInput>,
}
