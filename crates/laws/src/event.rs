//! What happens at the board and at the arbiter's desk: the input of the
//! state machine. Every event comes with the instant it happened (see
//! [`crate::clock::Timestamp`]); events are facts, rulings are what the Laws make
//! of them.

use arbiter_chess::{Color, Piece, Role, Square};

/// How a piece was touched (Law 4.2).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TouchKind {
    /// With the intention of moving or capturing it (4.2.2: the default for
    /// any contact).
    Intent,
    /// To adjust it, after announcing "I adjust" (4.2.1).
    Adjust,
    /// Clearly accidental (4.2.2); binds nothing.
    Accidental,
}

/// What an e-board's sensors saw of a touch: evidence, which the Laws
/// weigh by the regulations ([`crate::regulations::SensedTouches`]). A
/// sensor cannot tell whose hand it was: the touch is taken as the act of
/// the player having the move.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SensedTouch {
    /// The first piece of the player having the move lifted in the
    /// position.
    FirstLift,
    /// A piece lifted and put back on its square.
    LiftAndReplace,
    /// A piece of the opponent of the player having the move lifted.
    OpponentPiece,
}

impl SensedTouch {
    /// The touch in words.
    pub fn describe(self) -> &'static str {
        match self {
            SensedTouch::FirstLift => "first lift",
            SensedTouch::LiftAndReplace => "lift and put back",
            SensedTouch::OpponentPiece => "lift of an opponent's piece",
        }
    }
}

/// A move as a player or device reports it, not yet judged: squares and an
/// optional promotion piece. `castle` marks an explicit castling intent,
/// which Chess960 requires (DEC-13); in standard chess a king moving two
/// squares, or onto its own rook, is castling anyway.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveInput {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
    pub castle: bool,
}

impl MoveInput {
    /// Parses UCI text (`e2e4`, `e7e8q`); castling as `e1g1` or king takes rook.
    ///
    /// # Errors
    /// [`arbiter_chess::UciError::Syntax`] if the text is not UCI.
    pub fn from_uci(text: &str) -> Result<MoveInput, arbiter_chess::UciError> {
        let u: arbiter_chess::UciMove = text.parse()?;
        Ok(MoveInput { from: u.from, to: u.to, promotion: u.promotion, castle: false })
    }
}

/// Kinds of draw claim (Article 9).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimKind {
    /// 9.2: threefold repetition (has appeared, or will with the intended move).
    Threefold,
    /// 9.3: fifty moves (completed, or will be with the intended move).
    FiftyMoves,
}

/// The penalties of Article 12.9 that affect the game (12.9.7–12.9.9 are
/// event matters, outside a single game).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PenaltyKind {
    /// 12.9.1
    Warning,
    /// 12.9.2: add this many milliseconds to the opponent's time.
    AddTimeToOpponent(i64),
    /// 12.9.3: deduct this many milliseconds from the offender's time.
    DeductTime(i64),
    /// 12.9.4: raise the opponent's score to the game maximum (the offender
    /// then scores a loss: Law 10.1 allows no total above the maximum). The
    /// game goes on; the penalty applies to its result (at once if it is
    /// over), see [`crate::scoring::GameResult::with_adjustments`].
    RaiseOpponentScore,
    /// 12.9.5: reduce the offender's score (the game is scored as lost
    /// for the offender; the opponent's score is kept). The game goes on;
    /// the penalty applies to its result (at once if it is over).
    ReduceScore,
    /// 12.9.6: declare the game lost by the offender (the arbiter decides
    /// the opponent's score: a win here).
    DeclareLost,
}

/// A result the arbiter may declare (8.7, 11.7, 11.8, appeals).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclaredResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// 11.8: both players lose.
    BothLose,
}

/// An arbiter's answer to an open question (DEC-12).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Apply the default the question was opened with.
    Default,
    /// Accept the player's request or claim.
    Accept,
    /// Reject it.
    Reject,
    /// Postpone the decision (Guidelines III.5.2).
    Postpone,
}

/// Everything the state machine can be told.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    // --- Board acts (over the board, section 0.4 of the catalogue) ---
    /// A player says "I adjust" (4.2.1), before touching.
    AnnounceAdjust {
        color: Color,
    },
    /// A player touches a piece.
    Touch {
        color: Color,
        square: Square,
        kind: TouchKind,
    },
    /// A player touched one of his own pieces and one of his opponent's at
    /// the same time, or it cannot be determined which first (4.3.3: the
    /// player's own piece is then considered touched first). Both with
    /// intent; `own` holds a piece of `color`, `opponent` one of the
    /// opponent's.
    SimultaneousTouch {
        color: Color,
        own: Square,
        opponent: Square,
    },
    /// An e-board's sensors saw `piece` touched on `square` (evidence: see
    /// [`SensedTouch`]). Evidence of another position than the game's (the
    /// piece is not on that square) is refused.
    TouchSensed {
        square: Square,
        piece: Piece,
        sensed: SensedTouch,
    },
    /// A promotion piece touched the promotion square: the choice is final
    /// (4.4.4).
    PromotionPieceTouched {
        color: Color,
        role: Role,
    },
    /// A move made on the board (the hand quit the piece). It may be
    /// illegal; it is judged when completed.
    MakeMove {
        color: Color,
        mv: MoveInput,
    },
    /// The king was released on its castling square and the rook has not
    /// been moved yet (4.7.2: castling is made when the rook is released).
    /// Only castling on that side may complete the move; pressing the clock
    /// now is a completed illegal move (DEC-6). If castling on that side is
    /// not legal, this is an illegal king move.
    CastlingKingReleased {
        color: Color,
        to: Square,
    },
    /// The move just made was made with two hands (7.5.4); reported before
    /// the clock is pressed, it makes the completion an illegal move.
    UsedTwoHands {
        color: Color,
    },
    /// The clock pressed (completes the move, 6.2.1); `other_hand` when the
    /// hand that pressed did not make the move (6.2.3).
    PressClock {
        color: Color,
        other_hand: bool,
    },

    // --- Online (FIDE Online Chess Regulations) ---
    /// A move submitted online: made and completed at once; only legal moves
    /// are accepted (OCR 3.1.2). A premove is queued while it is not the
    /// player's turn and played, if legal, as the immediate reply (3.1.5).
    SubmitMove {
        color: Color,
        mv: MoveInput,
        premove: bool,
        /// Network lag the server measured for this submission, in
        /// milliseconds; compensated up to the regulations' maximum (DEC-5).
        lag_ms: i64,
    },
    /// The player's connection was lost (OCR 11).
    Disconnect {
        color: Color,
    },
    /// The player is back (OCR 11.4.1).
    Reconnect {
        color: Color,
    },

    // --- Either mode ---
    OfferDraw {
        color: Color,
    },
    AcceptDraw {
        color: Color,
    },
    DeclineDraw {
        color: Color,
    },
    /// A claim under 9.2 or 9.3, with the intended move written first (9.2.1,
    /// 9.3.1) or without (9.2.2, 9.3.2). After an incorrect claim the
    /// written move cannot be changed: a new claim on that move writing
    /// another one is incorrect (DEC-18); touch-move still binds (DEC-19).
    ClaimDraw {
        color: Color,
        kind: ClaimKind,
        intended: Option<MoveInput>,
    },
    Resign {
        color: Color,
    },
    /// A.5.2, only where the service does not act on illegal moves by itself
    /// (`observe = false`): the player claims that his opponent's last move,
    /// completed, was illegal. Allowed until he makes his next move; the
    /// illegal move is then ruled as an observed one (7.5.1 to 7.5.5).
    ClaimIllegalMove {
        color: Color,
    },
    /// The player arrived at the board (default time, 6.7).
    PlayerArrived {
        color: Color,
    },
    /// Guidelines III.4: request a 5-second increment for both players (also
    /// a draw offer).
    RequestIncrement {
        color: Color,
    },
    /// Guidelines III.5: claim that the opponent cannot win by normal means.
    ClaimNoWinningAttempt {
        color: Color,
    },
    /// Time check by a timer with no other input: lets the machine notice a
    /// flag or a default-time deadline at `at`.
    Tick,

    // --- Arbiter actions ---
    /// Start the game: White's clock starts (6.6).
    Start,
    /// Pause both clocks (6.11).
    PauseClocks,
    /// Resume the clock of the side that was running.
    ResumeClocks,
    /// Add (or, negative, remove) time on a side's clock (6.10, 12.9).
    AdjustClock {
        color: Color,
        delta_ms: i64,
    },
    /// Set a side's remaining time (6.10.2).
    SetClock {
        color: Color,
        remaining_ms: i64,
    },
    /// An e-board's clock showed these remaining times, beyond the drift
    /// the service tolerates. Where the regulations make the board's clock
    /// authoritative (OCR 2.4) the service's clocks are set to them;
    /// otherwise the reading is refused and the service's clock stands.
    BoardClockReading {
        white_ms: i64,
        black_ms: i64,
    },
    /// Correct the clock's move counter of `color` (6.10.2, and 7.1 after
    /// a position is restored): the clock now counts `moves_completed`
    /// moves for `color`, and from then on it follows the moves `color`
    /// completes on the board from that count (DEC-22). Periods follow the
    /// new count from the next move on; no time is added or removed.
    SetMoveCounter {
        color: Color,
        moves_completed: u32,
    },
    /// Install the correct time control on the clock (6.10.2: "the
    /// arbiter shall install the correct setting"). The times and the move
    /// counters are unchanged (adjust them with `SetClock`, `AdjustClock`
    /// and `SetMoveCounter`); the new control's increments, delays and
    /// periods apply from the next press on.
    InstallTimeControl {
        time_control: crate::time_control::TimeControl,
    },
    /// A penalty of Article 12.9.
    Penalty {
        color: Color,
        kind: PenaltyKind,
    },
    /// Reinstate the position before ply `ply` (7.5.1, 7.6): moves from that
    /// ply on are taken back.
    ReinstatePosition {
        ply: usize,
    },
    /// Declare the result (8.7, 11.7, 11.8, appeals, OCR 15.3/15.4).
    DeclareResult {
        result: DeclaredResult,
    },
    /// An electronic device found on a player (11.3.2).
    DeviceFound {
        color: Color,
    },
    /// The arbiter answers an open question.
    AnswerQuestion {
        id: u32,
        answer: Answer,
    },
    /// An error in setting up the game found during the game (7.2, 7.3):
    /// a wrong initial position, a wrongly oriented board, or colours
    /// reversed. Depending on the error and the moves played, the game is
    /// annulled (a new game is to be played) or continues.
    SetupErrorFound {
        error: SetupError,
    },

    // --- System ---
    /// The service restarted and reloaded this running game. The service's
    /// timeline skips the outage (it continues from the last instant it
    /// persisted), so no clock changes; the outage is recorded (6.11: the
    /// arbiter decides how play resumes after an interruption). Applies to a
    /// started game that is not over; like an arbiter action, it is recorded
    /// even when time ended the game at the same instant.
    ServiceResumed {
        /// How long the service was down, in milliseconds of wall time.
        outage_ms: i64,
    },
    /// The game is withdrawn before it started: the pairing was cancelled,
    /// or nobody started it in the time the service allows. There is no
    /// result (no game was played); every later event is refused. Applies
    /// only to a game not yet started.
    Withdraw {
        reason: Withdrawal,
    },
}

/// Why a game was withdrawn before it started ([`Event::Withdraw`]).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Withdrawal {
    /// The organiser (the platform that created it, or an arbiter)
    /// cancelled it.
    Cancelled,
    /// It was not started within the time the service keeps games waiting.
    Expired,
}

/// An error in setting up the game (Law 7.2, 7.3).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetupError {
    /// 7.2.1: the initial position of the pieces was wrong. The game is
    /// annulled and a new game played; in rapid and blitz under A.5 no claim
    /// is possible once each player has completed ten moves (A.5.1.2).
    WrongInitialPosition,
    /// 7.2.2: the chessboard was placed contrary to 2.1. The game continues
    /// (the position is transferred to a correctly placed board); under A.5
    /// no claim once each player has completed ten moves (A.5.1.2).
    BoardWronglyOriented,
    /// 7.3 (OCR 15.2 online): the game started with colours reversed. Before
    /// ten moves have been made by both players the game is annulled and a
    /// new game played with the correct colours; after that it continues.
    ColoursReversed,
    /// A.5.1.2 (a special case of 7.2.1): `color`'s king was wrongly placed
    /// in the initial position. It is ruled as a wrong initial position
    /// (the game is annulled) unless the game is rapid or blitz under A.5
    /// and each player has completed ten moves; then the game continues and
    /// `color` may not castle for the rest of the game.
    KingMisplaced { color: Color },
    /// A.5.1.2 (a special case of 7.2.1): a rook was wrongly placed in the
    /// initial position. `square` is the square the castling right of that
    /// rook refers to in the start position the service was given (the
    /// rook's start square, e.g. h1 for White's O-O in standard chess), not
    /// the square where the rook wrongly stood on the physical board. Ruled
    /// as a wrong initial position unless the game is rapid or blitz under
    /// A.5 and each player has completed ten moves; then the game continues
    /// and castling with that rook is not allowed for the rest of the game.
    RookMisplaced { square: Square },
}

impl Event {
    /// The player the event comes from, if it is a player's act.
    pub fn player(&self) -> Option<Color> {
        use Event::*;
        match self {
            AnnounceAdjust { color }
            | Touch { color, .. }
            | SimultaneousTouch { color, .. }
            | PromotionPieceTouched { color, .. }
            | MakeMove { color, .. }
            | CastlingKingReleased { color, .. }
            | UsedTwoHands { color }
            | PressClock { color, .. }
            | SubmitMove { color, .. }
            | Disconnect { color }
            | Reconnect { color }
            | OfferDraw { color }
            | AcceptDraw { color }
            | DeclineDraw { color }
            | ClaimDraw { color, .. }
            | Resign { color }
            | ClaimIllegalMove { color }
            | PlayerArrived { color }
            | RequestIncrement { color }
            | ClaimNoWinningAttempt { color } => Some(*color),
            _ => None,
        }
    }

    /// `true` for arbiter actions and system events (the timer tick, a
    /// service restart): everything that is not a player's act. These still
    /// apply when time ends the game at the same instant.
    pub fn is_arbiter_action(&self) -> bool {
        self.player().is_none()
    }
}
