//! What the Laws make of an event: rulings (each naming its Article) and
//! rejections (an act the Laws do not allow now; nothing changes).

use arbiter_chess::Color;

pub use crate::rule::RuleId;
pub use crate::scoring::GameResult;

/// How the game ended.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: GameResult,
    /// Why, in words (e.g. "checkmate", "flag fell; opponent cannot checkmate").
    pub reason: String,
    /// The Article the result rests on.
    pub rule: RuleId,
    /// What ended the game, for code that must not read `reason`.
    pub cause: EndCause,
    /// Armageddon: the match result differs from the game result (a draw
    /// counts as a win for Black, ARM-1).
    pub armageddon_winner: Option<Color>,
    /// When score penalties (12.9.4, 12.9.5) were given in a played game:
    /// the result on the board, before them; `result` is then the score
    /// after the penalties (a [`GameResult::Adjusted`] when they changed it).
    /// `None` without score penalties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_result: Option<GameResult>,
}

/// What ended a game: one per way the state machine ends it. The result
/// says who won; the cause says why, also when the result is a draw
/// because the opponent cannot checkmate (a flag, a resignation, a second
/// illegal move) or an annulment.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndCause {
    /// 5.1.1.
    Checkmate,
    /// 5.2.1 (OCR 5.4.2 online).
    Stalemate,
    /// 5.2.2 (OCR 5.4.3 online).
    DeadPosition,
    /// 9.6.1.
    FivefoldRepetition,
    /// 9.6.2.
    SeventyFiveMoves,
    /// 9.2 claimed over the board, OCR 5.4.1 automatic online.
    ThreefoldRepetition,
    /// 9.3 claimed over the board, OCR 5.4.4 automatic online.
    FiftyMoves,
    /// 5.2.3: a draw agreed by both players.
    Agreement,
    /// 5.1.2.
    Resignation,
    /// 6.9 (OCR 4.3 online): a flag fell; a draw when the opponent cannot
    /// checkmate.
    Flag,
    /// 6.7: a player did not arrive within the default time (a forfeit).
    DefaultTime,
    /// OCR 11.4.2: a disconnected player did not come back within the
    /// reconnect window.
    NotReconnected,
    /// 7.5.5: a second completed illegal move.
    IllegalMoves,
    /// A.5.4: an illegal position still on the board once the next move
    /// was completed (`observe = false`): a draw.
    IllegalPosition,
    /// 12.9: the arbiter declared the game lost as a penalty.
    ArbiterPenalty,
    /// 8.7 (OCR 15.3, 15.4 online): a result declared by the arbiter.
    DeclaredByArbiter,
    /// 11.3.2: an electronic device found on a player.
    ElectronicDevice,
    /// 6.9 with DEC-4: answering the question the analyser left open, the
    /// arbiter found that the winner of the previous end cannot checkmate:
    /// a draw.
    NoPossibleCheckmate,
    /// Guidelines III.5: the arbiter accepted that the opponent cannot win
    /// by normal means: a draw.
    NoWinningAttempt,
    /// 7.2.1 (and A.5.1.2 before the ten-move cut-off): a wrong initial
    /// position annuls the game.
    WrongInitialPosition,
    /// 7.3 (OCR 15.2 online): colours reversed before ten moves by both
    /// players annul the game.
    ColoursReversed,
}

/// What a ruling decided, with its facts.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The game started; White's clock runs.
    GameStarted {
        white_ms: i64,
        black_ms: i64,
    },
    /// A move was made on the board (over the board: not yet completed).
    MoveMade {
        color: Color,
        san: String,
        uci: String,
        ply: usize,
    },
    /// A move was completed (clock pressed, or online submission).
    MoveCompleted {
        color: Color,
        used_ms: i64,
        bonus_ms: i64,
        remaining_ms: i64,
    },
    /// A premove was queued (online).
    PremoveQueued {
        color: Color,
        uci: String,
    },
    /// A queued premove was not legal when its turn came; dropped, no penalty (OCR 3.1.5).
    PremoveDropped {
        color: Color,
        uci: String,
    },
    /// Touch-move binds the player to these moves.
    Obligation {
        color: Color,
        allowed: Vec<String>,
        reason: String,
    },
    /// An e-board's sensors saw `color` (the player having the move) touch
    /// the piece on `square` (4.2.2: any contact is a touch with intent,
    /// unless announced as an adjustment). `binding`: the regulations bind
    /// sensed touches, so the touch was ruled as made (an `Obligation`
    /// follows if it binds to particular moves). Otherwise it is evidence
    /// for the arbiter, and `would_allow` holds the moves (SAN) the touch
    /// would bind the player to if the arbiter rules it a touch (empty if
    /// it would bind to none in particular, 4.5).
    TouchSensed {
        color: Color,
        square: arbiter_chess::Square,
        sensed: crate::event::SensedTouch,
        binding: bool,
        would_allow: Vec<String>,
    },
    /// An illegal move was made but not completed; it may still be corrected
    /// (bound by Article 4).
    IllegalMoveNotCompleted {
        color: Color,
        description: String,
    },
    /// A completed illegal move: the position before it is reinstated.
    IllegalMove {
        color: Color,
        count: u32,
        description: String,
    },
    /// `observe = false` (A.5.2): `color` completed an illegal move and the
    /// service does not act on it by itself; it stands on the board unless
    /// the opponent claims it before making his next move.
    IllegalMoveNotActedOn {
        color: Color,
        description: String,
    },
    /// `observe = false` (A.5.2): `color` claimed his opponent's illegal
    /// move in time; the rulings that follow are those of an observed one.
    IllegalMoveClaimed {
        color: Color,
        description: String,
    },
    /// `observe = false` (A.5.2): the opponent made his next move without
    /// claiming, so `color`'s illegal move stands; only the players, by
    /// agreement and without the arbiter, can still correct it.
    IllegalMoveStands {
        color: Color,
        description: String,
    },
    /// A.5.4: an illegal position is on the board (a pawn on its first or
    /// last rank, the king of the player who moved in check); if it is still
    /// illegal once the next move is completed, the game is drawn.
    IllegalPositionObserved {
        description: String,
    },
    /// A.5.4: the next move was completed and the position is no longer
    /// illegal; play goes on. `in_check`: the player to move, still in
    /// check, who must get out of it with his next move or have made an
    /// illegal move (A.5.4 comm.).
    IllegalPositionCleared {
        in_check: Option<Color>,
    },
    /// Time added to or removed from a clock.
    ClockAdjusted {
        color: Color,
        delta_ms: i64,
        remaining_ms: i64,
    },
    /// A clock set to a value.
    ClockSet {
        color: Color,
        remaining_ms: i64,
    },
    /// The clock's move counter of `color` now counts `moves_completed`
    /// moves (6.10.2; 7.1 after a restored position; 6.2.1.2 when moves
    /// completed without a press are counted, DEC-22).
    MoveCounterSet {
        color: Color,
        moves_completed: u32,
    },
    /// The arbiter installed this time control on the clock (6.10.2), in
    /// the PGN `TimeControl` form (`40/5400+30:1800+30`).
    TimeControlInstalled {
        time_control: String,
    },
    ClocksPaused,
    ClocksResumed,
    /// After a restart of the service: time while it was down is not charged.
    ClockResumedAfterOutage {
        outage_ms: i64,
    },
    Warning {
        color: Color,
        reason: String,
    },
    DrawOffered {
        color: Color,
        ply: usize,
    },
    DrawOfferLapsed {
        color: Color,
        reason: String,
    },
    DrawOfferDeclined {
        color: Color,
    },
    ClaimIncorrect {
        color: Color,
        reason: String,
    },
    PlayerArrived {
        color: Color,
    },
    Disconnected {
        color: Color,
    },
    Reconnected {
        color: Color,
    },
    /// A question left to the arbiter's judgement (DEC-12), with the default
    /// that applies until answered.
    QuestionOpened {
        id: u32,
        question: String,
        default: String,
    },
    QuestionAnswered {
        id: u32,
        answer: String,
    },
    /// The position before ply `ply` was reinstated.
    PositionReinstated {
        ply: usize,
        fen: String,
    },
    /// Increment changed for both players (Guidelines III.4).
    IncrementIntroduced {
        increment_ms: i64,
    },
    /// A set-up error (7.2.2; 7.3 after ten moves by both players) that does
    /// not annul the game: play continues from the position reached. For
    /// colours reversed, each player keeps the colour he played, and the
    /// result is recorded by those colours. (An error that annuls the game
    /// ends it with [`GameResult::Annulled`].)
    SetupErrorStands {
        error: crate::event::SetupError,
        note: String,
    },
    /// A score penalty of 12.9.4 (raise the opponent's score to the maximum)
    /// or 12.9.5 (reduce the offender's score): it applies to the result of
    /// the game, when the game ends (at once if it is over). See
    /// [`crate::scoring::GameResult::with_adjustments`].
    ScorePenalty {
        adjustment: crate::scoring::ScoreAdjustment,
    },
    /// The game is over.
    GameOver(GameEnd),
}

/// A ruling: a decision and the Article it rests on.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The rule id, e.g. `FIDE-7.5.5`, `OCR-5.4`, `ARB` for a plain arbiter
    /// action with no Article.
    pub rule: RuleId,
    pub decision: Decision,
}

impl Ruling {
    pub fn new(rule: RuleId, decision: Decision) -> Ruling {
        Ruling { rule, decision }
    }
}

/// Why an event was not accepted.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RejectReason {
    /// The game has not started yet.
    NotStarted,
    /// The game is over.
    GameOver,
    /// The act belongs to the other player now.
    NotYourTurn,
    /// The move is illegal (online, or an unparsable move).
    IllegalMove,
    /// Touch-move binds the player to other moves.
    TouchMove,
    /// A released piece cannot be moved to another square (4.7).
    PieceReleased,
    /// No draw offer to accept or decline.
    NoOffer,
    /// Draw offers or agreements are restricted (9.1.1, CN-7, 5.2.3).
    OfferNotAllowed,
    /// The request does not apply under these regulations.
    NotApplicable,
    /// The timestamp is earlier than the last event's.
    TimeWentBackwards,
    /// An argument is out of range (unknown question, ply beyond the game...).
    InvalidArgument,
    /// The clocks are paused.
    ClocksPaused,
}

/// An event the Laws do not allow now; the state is unchanged.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub reason: RejectReason,
    /// The Article that forbids it, where one applies.
    pub rule: Option<RuleId>,
    pub message: String,
}

impl Rejection {
    pub fn new(reason: RejectReason, rule: Option<RuleId>, message: impl Into<String>) -> Rejection {
        Rejection { reason, rule, message: message.into() }
    }
}
