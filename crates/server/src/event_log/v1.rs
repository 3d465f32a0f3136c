//! Format 1 of the stored event log: the JSON the first releases wrote
//! (`event_json`, `rulings_json`), frozen.
//!
//! Every type here is a record of the storage layer, spelled out field by
//! field, and converted to and from the Laws' types by the `From`/`TryFrom`
//! impls at the bottom of this file. Nothing here derives its shape from the
//! Laws crate: renaming a field or a variant there is a compile error in the
//! conversions, never a silent change of what is on disk. The golden logs
//! (`tests/golden`) hold rows written by the release that defined this
//! format; they are replayed on every build.
//!
//! Shape (serde's external tagging, as written since the first release): an
//! enum variant without fields is a string (`"Tick"`), one with fields an
//! object with one key (`{"MakeMove": {"color": "white", ...}}`); colours are
//! `"white"`/`"black"`, squares `"e4"`, pieces `"queen"`, rule ids their text.

use arbiter_chess::{Role as ChessRole, Square as ChessSquare};
use arbiter_laws::event as le;
use arbiter_laws::ruling as lr;
use arbiter_laws::scoring as ls;
use serde::{Deserialize, Serialize};

use super::FormatError;

/// A colour.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    White,
    Black,
}

/// A kind of piece.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

/// A square in algebraic notation (`e4`), checked when converted.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(transparent)]
pub struct Square(pub String);

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TouchKind {
    Intent,
    Adjust,
    Accidental,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct MoveInput {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
    pub castle: bool,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    Threefold,
    FiftyMoves,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PenaltyKind {
    Warning,
    AddTimeToOpponent(i64),
    DeductTime(i64),
    RaiseOpponentScore,
    ReduceScore,
    DeclareLost,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclaredResult {
    WhiteWins,
    BlackWins,
    Draw,
    BothLose,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Default,
    Accept,
    Reject,
    Postpone,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    WrongInitialPosition,
    BoardWronglyOriented,
    ColoursReversed,
    KingMisplaced { color: Color },
    RookMisplaced { square: Square },
}

/// A stored event (`event_json`). `SetMoveCounter` and `InstallTimeControl`
/// (its time control in the PGN form) were added after the first release;
/// rows without them read unchanged.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    AnnounceAdjust {
        color: Color,
    },
    Touch {
        color: Color,
        square: Square,
        kind: TouchKind,
    },
    PromotionPieceTouched {
        color: Color,
        role: Role,
    },
    MakeMove {
        color: Color,
        mv: MoveInput,
    },
    CastlingKingReleased {
        color: Color,
        to: Square,
    },
    UsedTwoHands {
        color: Color,
    },
    PressClock {
        color: Color,
        other_hand: bool,
    },
    SubmitMove {
        color: Color,
        mv: MoveInput,
        premove: bool,
        lag_ms: i64,
    },
    Disconnect {
        color: Color,
    },
    Reconnect {
        color: Color,
    },
    OfferDraw {
        color: Color,
    },
    AcceptDraw {
        color: Color,
    },
    DeclineDraw {
        color: Color,
    },
    ClaimDraw {
        color: Color,
        kind: ClaimKind,
        intended: Option<MoveInput>,
    },
    Resign {
        color: Color,
    },
    ClaimIllegalMove {
        color: Color,
    },
    PlayerArrived {
        color: Color,
    },
    RequestIncrement {
        color: Color,
    },
    ClaimNoWinningAttempt {
        color: Color,
    },
    Tick,
    Start,
    PauseClocks,
    ResumeClocks,
    AdjustClock {
        color: Color,
        delta_ms: i64,
    },
    SetClock {
        color: Color,
        remaining_ms: i64,
    },
    SetMoveCounter {
        color: Color,
        moves_completed: u32,
    },
    InstallTimeControl {
        time_control: String,
    },
    Penalty {
        color: Color,
        kind: PenaltyKind,
    },
    ReinstatePosition {
        ply: usize,
    },
    DeclareResult {
        result: DeclaredResult,
    },
    DeviceFound {
        color: Color,
    },
    AnswerQuestion {
        id: u32,
        answer: Answer,
    },
    SetupErrorFound {
        error: SetupError,
    },
    ServiceResumed {
        outage_ms: i64,
    },
    /// Added after the first release (additive: older rows never hold it).
    SimultaneousTouch {
        color: Color,
        own: Square,
        opponent: Square,
    },
    /// Added after format 2 (additive: older rows never hold it; the lead
    /// bumps `FORMAT` for it): a game withdrawn before it started.
    Withdraw {
        reason: Withdrawal,
    },
    /// Added after format 3 (additive, format 4): a touch an e-board's
    /// sensors saw.
    TouchSensed {
        square: Square,
        piece: Piece,
        sensed: SensedTouch,
    },
    /// Added after format 3 (additive, format 4): an e-board's clock
    /// reading beyond the tolerated drift.
    BoardClockReading {
        white_ms: i64,
        black_ms: i64,
    },
}

/// A piece (added with `TouchSensed`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

/// What a board's sensors saw of a touch (added with `TouchSensed`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensedTouch {
    FirstLift,
    LiftAndReplace,
    OpponentPiece,
}

impl From<le::SensedTouch> for SensedTouch {
    fn from(s: le::SensedTouch) -> SensedTouch {
        match s {
            le::SensedTouch::FirstLift => SensedTouch::FirstLift,
            le::SensedTouch::LiftAndReplace => SensedTouch::LiftAndReplace,
            le::SensedTouch::OpponentPiece => SensedTouch::OpponentPiece,
        }
    }
}

impl From<SensedTouch> for le::SensedTouch {
    fn from(s: SensedTouch) -> le::SensedTouch {
        match s {
            SensedTouch::FirstLift => le::SensedTouch::FirstLift,
            SensedTouch::LiftAndReplace => le::SensedTouch::LiftAndReplace,
            SensedTouch::OpponentPiece => le::SensedTouch::OpponentPiece,
        }
    }
}

/// Why a game was withdrawn before it started (added with `Withdraw`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withdrawal {
    Cancelled,
    Expired,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Win,
    Draw,
    Loss,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    WhiteWinsByForfeit,
    BlackWinsByForfeit,
    DoubleForfeit,
    BothLose,
    Adjusted { white: Score, black: Score },
    Annulled,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreAdjustmentKind {
    RaiseOpponentScore,
    ReduceScore,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreAdjustment {
    pub offender: Color,
    pub kind: ScoreAdjustmentKind,
}

/// How a game ended.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: GameResult,
    pub reason: String,
    pub rule: String,
    pub armageddon_winner: Option<Color>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_result: Option<GameResult>,
}

/// A decision with its facts. `MoveCounterSet` and `TimeControlInstalled`
/// (its time control in the PGN form) were added after the first release;
/// rows without them read unchanged.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    GameStarted {
        white_ms: i64,
        black_ms: i64,
    },
    MoveMade {
        color: Color,
        san: String,
        uci: String,
        ply: usize,
    },
    MoveCompleted {
        color: Color,
        used_ms: i64,
        bonus_ms: i64,
        remaining_ms: i64,
    },
    PremoveQueued {
        color: Color,
        uci: String,
    },
    PremoveDropped {
        color: Color,
        uci: String,
    },
    Obligation {
        color: Color,
        allowed: Vec<String>,
        reason: String,
    },
    IllegalMoveNotCompleted {
        color: Color,
        description: String,
    },
    IllegalMove {
        color: Color,
        count: u32,
        description: String,
    },
    IllegalMoveNotActedOn {
        color: Color,
        description: String,
    },
    IllegalMoveClaimed {
        color: Color,
        description: String,
    },
    IllegalMoveStands {
        color: Color,
        description: String,
    },
    IllegalPositionObserved {
        description: String,
    },
    IllegalPositionCleared {
        in_check: Option<Color>,
    },
    ClockAdjusted {
        color: Color,
        delta_ms: i64,
        remaining_ms: i64,
    },
    ClockSet {
        color: Color,
        remaining_ms: i64,
    },
    MoveCounterSet {
        color: Color,
        moves_completed: u32,
    },
    TimeControlInstalled {
        time_control: String,
    },
    ClocksPaused,
    ClocksResumed,
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
    QuestionOpened {
        id: u32,
        question: String,
        default: String,
    },
    QuestionAnswered {
        id: u32,
        answer: String,
    },
    PositionReinstated {
        ply: usize,
        fen: String,
    },
    IncrementIntroduced {
        increment_ms: i64,
    },
    SetupErrorStands {
        error: SetupError,
        note: String,
    },
    ScorePenalty {
        adjustment: ScoreAdjustment,
    },
    GameOver(GameEnd),
    /// Added after format 3 (additive, format 4).
    TouchSensed {
        color: Color,
        square: Square,
        sensed: SensedTouch,
        binding: bool,
        would_allow: Vec<String>,
    },
}

/// A ruling: the rule id and the decision.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub rule: String,
    pub decision: Decision,
}

/// The clocks after an event.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    pub white_ms: i64,
    pub black_ms: i64,
    pub running: Option<Color>,
    pub paused: bool,
    pub white_moves: u32,
    pub black_moves: u32,
}

/// What an event led to (`rulings_json`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Aftermath {
    pub rulings: Vec<Ruling>,
    pub clocks: Clocks,
    pub fen: String,
}

/// A game's read model (`games.view_json`). Added after the first release
/// with the read model; rows before it have none and get one rebuilt from
/// their log.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub end: Option<GameEnd>,
    pub fen: String,
    pub turn: Color,
    // Shared with the view it is written from (the same JSON as a list).
    pub moves_san: std::sync::Arc<Vec<String>>,
    pub moves_uci: std::sync::Arc<Vec<String>>,
    pub clocks: Clocks,
    pub draw_offer: Option<DrawOffer>,
    pub obligation: Option<Obligation>,
    pub open_questions: Vec<Question>,
    pub white_illegal_moves: u32,
    pub black_illegal_moves: u32,
}

/// A pending draw offer in a [`View`].
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawOffer {
    pub by: Color,
    pub ply: u32,
}

/// A touch-move obligation in a [`View`] (moves in UCI).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Obligation {
    pub color: Color,
    pub allowed: Vec<String>,
    pub rule: String,
    pub reason: String,
}

/// A question for the arbiter in a [`View`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub id: u32,
    pub text: String,
    pub default: String,
}

// ---------------------------------------------------------------------------
// From the Laws' types (writing)
// ---------------------------------------------------------------------------

impl From<arbiter_chess::Color> for Color {
    fn from(c: arbiter_chess::Color) -> Color {
        match c {
            arbiter_chess::Color::White => Color::White,
            arbiter_chess::Color::Black => Color::Black,
        }
    }
}

impl From<ChessRole> for Role {
    fn from(r: ChessRole) -> Role {
        match r {
            ChessRole::Pawn => Role::Pawn,
            ChessRole::Knight => Role::Knight,
            ChessRole::Bishop => Role::Bishop,
            ChessRole::Rook => Role::Rook,
            ChessRole::Queen => Role::Queen,
            ChessRole::King => Role::King,
        }
    }
}

impl From<ChessSquare> for Square {
    fn from(s: ChessSquare) -> Square {
        Square(s.to_string())
    }
}

impl From<le::TouchKind> for TouchKind {
    fn from(k: le::TouchKind) -> TouchKind {
        match k {
            le::TouchKind::Intent => TouchKind::Intent,
            le::TouchKind::Adjust => TouchKind::Adjust,
            le::TouchKind::Accidental => TouchKind::Accidental,
        }
    }
}

impl From<le::MoveInput> for MoveInput {
    fn from(m: le::MoveInput) -> MoveInput {
        MoveInput {
            from: m.from.into(),
            to: m.to.into(),
            promotion: m.promotion.map(Role::from),
            castle: m.castle,
        }
    }
}

impl From<le::ClaimKind> for ClaimKind {
    fn from(k: le::ClaimKind) -> ClaimKind {
        match k {
            le::ClaimKind::Threefold => ClaimKind::Threefold,
            le::ClaimKind::FiftyMoves => ClaimKind::FiftyMoves,
        }
    }
}

impl From<le::PenaltyKind> for PenaltyKind {
    fn from(k: le::PenaltyKind) -> PenaltyKind {
        match k {
            le::PenaltyKind::Warning => PenaltyKind::Warning,
            le::PenaltyKind::AddTimeToOpponent(ms) => PenaltyKind::AddTimeToOpponent(ms),
            le::PenaltyKind::DeductTime(ms) => PenaltyKind::DeductTime(ms),
            le::PenaltyKind::RaiseOpponentScore => PenaltyKind::RaiseOpponentScore,
            le::PenaltyKind::ReduceScore => PenaltyKind::ReduceScore,
            le::PenaltyKind::DeclareLost => PenaltyKind::DeclareLost,
        }
    }
}

impl From<le::DeclaredResult> for DeclaredResult {
    fn from(r: le::DeclaredResult) -> DeclaredResult {
        match r {
            le::DeclaredResult::WhiteWins => DeclaredResult::WhiteWins,
            le::DeclaredResult::BlackWins => DeclaredResult::BlackWins,
            le::DeclaredResult::Draw => DeclaredResult::Draw,
            le::DeclaredResult::BothLose => DeclaredResult::BothLose,
        }
    }
}

impl From<le::Answer> for Answer {
    fn from(a: le::Answer) -> Answer {
        match a {
            le::Answer::Default => Answer::Default,
            le::Answer::Accept => Answer::Accept,
            le::Answer::Reject => Answer::Reject,
            le::Answer::Postpone => Answer::Postpone,
        }
    }
}

impl From<le::SetupError> for SetupError {
    fn from(e: le::SetupError) -> SetupError {
        match e {
            le::SetupError::WrongInitialPosition => SetupError::WrongInitialPosition,
            le::SetupError::BoardWronglyOriented => SetupError::BoardWronglyOriented,
            le::SetupError::ColoursReversed => SetupError::ColoursReversed,
            le::SetupError::KingMisplaced { color } => SetupError::KingMisplaced { color: color.into() },
            le::SetupError::RookMisplaced { square } => SetupError::RookMisplaced { square: square.into() },
        }
    }
}

impl From<&le::Event> for Event {
    fn from(e: &le::Event) -> Event {
        use le::Event as L;
        match *e {
            L::AnnounceAdjust { color } => Event::AnnounceAdjust { color: color.into() },
            L::Touch { color, square, kind } => {
                Event::Touch { color: color.into(), square: square.into(), kind: kind.into() }
            }
            L::PromotionPieceTouched { color, role } => {
                Event::PromotionPieceTouched { color: color.into(), role: role.into() }
            }
            L::MakeMove { color, mv } => Event::MakeMove { color: color.into(), mv: mv.into() },
            L::CastlingKingReleased { color, to } => {
                Event::CastlingKingReleased { color: color.into(), to: to.into() }
            }
            L::UsedTwoHands { color } => Event::UsedTwoHands { color: color.into() },
            L::PressClock { color, other_hand } => Event::PressClock { color: color.into(), other_hand },
            L::SubmitMove { color, mv, premove, lag_ms } => {
                Event::SubmitMove { color: color.into(), mv: mv.into(), premove, lag_ms }
            }
            L::Disconnect { color } => Event::Disconnect { color: color.into() },
            L::Reconnect { color } => Event::Reconnect { color: color.into() },
            L::OfferDraw { color } => Event::OfferDraw { color: color.into() },
            L::AcceptDraw { color } => Event::AcceptDraw { color: color.into() },
            L::DeclineDraw { color } => Event::DeclineDraw { color: color.into() },
            L::ClaimDraw { color, kind, intended } => Event::ClaimDraw {
                color: color.into(),
                kind: kind.into(),
                intended: intended.map(MoveInput::from),
            },
            L::Resign { color } => Event::Resign { color: color.into() },
            L::ClaimIllegalMove { color } => Event::ClaimIllegalMove { color: color.into() },
            L::PlayerArrived { color } => Event::PlayerArrived { color: color.into() },
            L::RequestIncrement { color } => Event::RequestIncrement { color: color.into() },
            L::ClaimNoWinningAttempt { color } => Event::ClaimNoWinningAttempt { color: color.into() },
            L::Tick => Event::Tick,
            L::Start => Event::Start,
            L::PauseClocks => Event::PauseClocks,
            L::ResumeClocks => Event::ResumeClocks,
            L::AdjustClock { color, delta_ms } => Event::AdjustClock { color: color.into(), delta_ms },
            L::SetClock { color, remaining_ms } => Event::SetClock { color: color.into(), remaining_ms },
            L::SetMoveCounter { color, moves_completed } => {
                Event::SetMoveCounter { color: color.into(), moves_completed }
            }
            L::InstallTimeControl { ref time_control } => {
                Event::InstallTimeControl { time_control: time_control.to_pgn() }
            }
            L::Penalty { color, kind } => Event::Penalty { color: color.into(), kind: kind.into() },
            L::ReinstatePosition { ply } => Event::ReinstatePosition { ply },
            L::DeclareResult { result } => Event::DeclareResult { result: result.into() },
            L::DeviceFound { color } => Event::DeviceFound { color: color.into() },
            L::AnswerQuestion { id, answer } => Event::AnswerQuestion { id, answer: answer.into() },
            L::SetupErrorFound { error } => Event::SetupErrorFound { error: error.into() },
            L::ServiceResumed { outage_ms } => Event::ServiceResumed { outage_ms },
            L::SimultaneousTouch { color, own, opponent } => {
                Event::SimultaneousTouch { color: color.into(), own: own.into(), opponent: opponent.into() }
            }
            L::TouchSensed { square, piece, sensed } => Event::TouchSensed {
                square: square.into(),
                piece: Piece { color: piece.color.into(), role: piece.role.into() },
                sensed: sensed.into(),
            },
            L::BoardClockReading { white_ms, black_ms } => Event::BoardClockReading { white_ms, black_ms },
            L::Withdraw { reason } => Event::Withdraw {
                reason: match reason {
                    le::Withdrawal::Cancelled => Withdrawal::Cancelled,
                    le::Withdrawal::Expired => Withdrawal::Expired,
                },
            },
        }
    }
}

impl From<ls::Score> for Score {
    fn from(s: ls::Score) -> Score {
        match s {
            ls::Score::Win => Score::Win,
            ls::Score::Draw => Score::Draw,
            ls::Score::Loss => Score::Loss,
        }
    }
}

impl From<ls::GameResult> for GameResult {
    fn from(r: ls::GameResult) -> GameResult {
        use ls::GameResult as L;
        match r {
            L::WhiteWins => GameResult::WhiteWins,
            L::BlackWins => GameResult::BlackWins,
            L::Draw => GameResult::Draw,
            L::WhiteWinsByForfeit => GameResult::WhiteWinsByForfeit,
            L::BlackWinsByForfeit => GameResult::BlackWinsByForfeit,
            L::DoubleForfeit => GameResult::DoubleForfeit,
            L::BothLose => GameResult::BothLose,
            L::Adjusted { white, black } => GameResult::Adjusted { white: white.into(), black: black.into() },
            L::Annulled => GameResult::Annulled,
        }
    }
}

impl From<ls::ScoreAdjustment> for ScoreAdjustment {
    fn from(a: ls::ScoreAdjustment) -> ScoreAdjustment {
        ScoreAdjustment {
            offender: a.offender.into(),
            kind: match a.kind {
                ls::ScoreAdjustmentKind::RaiseOpponentScore => ScoreAdjustmentKind::RaiseOpponentScore,
                ls::ScoreAdjustmentKind::ReduceScore => ScoreAdjustmentKind::ReduceScore,
            },
        }
    }
}

impl From<&lr::GameEnd> for GameEnd {
    fn from(e: &lr::GameEnd) -> GameEnd {
        GameEnd {
            result: e.result.into(),
            // Format 1 has no cause field: this one cause is encoded by its
            // frozen reason text (see `end_cause`), whatever words the Laws
            // use for it today.
            reason: if e.cause == lr::EndCause::NoPossibleCheckmate {
                NO_POSSIBLE_CHECKMATE.to_owned()
            } else {
                e.reason.clone()
            },
            rule: e.rule.to_string(),
            armageddon_winner: e.armageddon_winner.map(Color::from),
            board_result: e.board_result.map(GameResult::from),
        }
    }
}

impl From<&lr::Decision> for Decision {
    fn from(d: &lr::Decision) -> Decision {
        use lr::Decision as L;
        match d {
            L::GameStarted { white_ms, black_ms } => {
                Decision::GameStarted { white_ms: *white_ms, black_ms: *black_ms }
            }
            L::MoveMade { color, san, uci, ply } => {
                Decision::MoveMade { color: (*color).into(), san: san.clone(), uci: uci.clone(), ply: *ply }
            }
            L::MoveCompleted { color, used_ms, bonus_ms, remaining_ms } => Decision::MoveCompleted {
                color: (*color).into(),
                used_ms: *used_ms,
                bonus_ms: *bonus_ms,
                remaining_ms: *remaining_ms,
            },
            L::PremoveQueued { color, uci } => {
                Decision::PremoveQueued { color: (*color).into(), uci: uci.clone() }
            }
            L::PremoveDropped { color, uci } => {
                Decision::PremoveDropped { color: (*color).into(), uci: uci.clone() }
            }
            L::Obligation { color, allowed, reason } => Decision::Obligation {
                color: (*color).into(),
                allowed: allowed.clone(),
                reason: reason.clone(),
            },
            L::IllegalMoveNotCompleted { color, description } => {
                Decision::IllegalMoveNotCompleted { color: (*color).into(), description: description.clone() }
            }
            L::IllegalMove { color, count, description } => Decision::IllegalMove {
                color: (*color).into(),
                count: *count,
                description: description.clone(),
            },
            L::IllegalMoveNotActedOn { color, description } => {
                Decision::IllegalMoveNotActedOn { color: (*color).into(), description: description.clone() }
            }
            L::IllegalMoveClaimed { color, description } => {
                Decision::IllegalMoveClaimed { color: (*color).into(), description: description.clone() }
            }
            L::IllegalMoveStands { color, description } => {
                Decision::IllegalMoveStands { color: (*color).into(), description: description.clone() }
            }
            L::IllegalPositionObserved { description } => {
                Decision::IllegalPositionObserved { description: description.clone() }
            }
            L::IllegalPositionCleared { in_check } => {
                Decision::IllegalPositionCleared { in_check: in_check.map(Color::from) }
            }
            L::ClockAdjusted { color, delta_ms, remaining_ms } => Decision::ClockAdjusted {
                color: (*color).into(),
                delta_ms: *delta_ms,
                remaining_ms: *remaining_ms,
            },
            L::ClockSet { color, remaining_ms } => {
                Decision::ClockSet { color: (*color).into(), remaining_ms: *remaining_ms }
            }
            L::TouchSensed { color, square, sensed, binding, would_allow } => Decision::TouchSensed {
                color: (*color).into(),
                square: (*square).into(),
                sensed: (*sensed).into(),
                binding: *binding,
                would_allow: would_allow.clone(),
            },
            L::MoveCounterSet { color, moves_completed } => {
                Decision::MoveCounterSet { color: (*color).into(), moves_completed: *moves_completed }
            }
            L::TimeControlInstalled { time_control } => {
                Decision::TimeControlInstalled { time_control: time_control.clone() }
            }
            L::ClocksPaused => Decision::ClocksPaused,
            L::ClocksResumed => Decision::ClocksResumed,
            L::ClockResumedAfterOutage { outage_ms } => {
                Decision::ClockResumedAfterOutage { outage_ms: *outage_ms }
            }
            L::Warning { color, reason } => {
                Decision::Warning { color: (*color).into(), reason: reason.clone() }
            }
            L::DrawOffered { color, ply } => Decision::DrawOffered { color: (*color).into(), ply: *ply },
            L::DrawOfferLapsed { color, reason } => {
                Decision::DrawOfferLapsed { color: (*color).into(), reason: reason.clone() }
            }
            L::DrawOfferDeclined { color } => Decision::DrawOfferDeclined { color: (*color).into() },
            L::ClaimIncorrect { color, reason } => {
                Decision::ClaimIncorrect { color: (*color).into(), reason: reason.clone() }
            }
            L::PlayerArrived { color } => Decision::PlayerArrived { color: (*color).into() },
            L::Disconnected { color } => Decision::Disconnected { color: (*color).into() },
            L::Reconnected { color } => Decision::Reconnected { color: (*color).into() },
            L::QuestionOpened { id, question, default } => {
                Decision::QuestionOpened { id: *id, question: question.clone(), default: default.clone() }
            }
            L::QuestionAnswered { id, answer } => {
                Decision::QuestionAnswered { id: *id, answer: answer.clone() }
            }
            L::PositionReinstated { ply, fen } => {
                Decision::PositionReinstated { ply: *ply, fen: fen.clone() }
            }
            L::IncrementIntroduced { increment_ms } => {
                Decision::IncrementIntroduced { increment_ms: *increment_ms }
            }
            L::SetupErrorStands { error, note } => {
                Decision::SetupErrorStands { error: (*error).into(), note: note.clone() }
            }
            L::ScorePenalty { adjustment } => Decision::ScorePenalty { adjustment: (*adjustment).into() },
            L::GameOver(end) => Decision::GameOver(end.into()),
        }
    }
}

impl From<&lr::Ruling> for Ruling {
    fn from(r: &lr::Ruling) -> Ruling {
        Ruling { rule: r.rule.to_string(), decision: (&r.decision).into() }
    }
}

// ---------------------------------------------------------------------------
// Into the Laws' types (reading)
// ---------------------------------------------------------------------------

impl From<Color> for arbiter_chess::Color {
    fn from(c: Color) -> arbiter_chess::Color {
        match c {
            Color::White => arbiter_chess::Color::White,
            Color::Black => arbiter_chess::Color::Black,
        }
    }
}

impl From<Role> for ChessRole {
    fn from(r: Role) -> ChessRole {
        match r {
            Role::Pawn => ChessRole::Pawn,
            Role::Knight => ChessRole::Knight,
            Role::Bishop => ChessRole::Bishop,
            Role::Rook => ChessRole::Rook,
            Role::Queen => ChessRole::Queen,
            Role::King => ChessRole::King,
        }
    }
}

impl TryFrom<Square> for ChessSquare {
    type Error = FormatError;
    fn try_from(s: Square) -> Result<ChessSquare, FormatError> {
        s.0.parse().map_err(|_| FormatError::Invalid(format!("{:?} is not a square", s.0)))
    }
}

impl From<TouchKind> for le::TouchKind {
    fn from(k: TouchKind) -> le::TouchKind {
        match k {
            TouchKind::Intent => le::TouchKind::Intent,
            TouchKind::Adjust => le::TouchKind::Adjust,
            TouchKind::Accidental => le::TouchKind::Accidental,
        }
    }
}

impl TryFrom<MoveInput> for le::MoveInput {
    type Error = FormatError;
    fn try_from(m: MoveInput) -> Result<le::MoveInput, FormatError> {
        Ok(le::MoveInput {
            from: m.from.try_into()?,
            to: m.to.try_into()?,
            promotion: m.promotion.map(ChessRole::from),
            castle: m.castle,
        })
    }
}

impl From<ClaimKind> for le::ClaimKind {
    fn from(k: ClaimKind) -> le::ClaimKind {
        match k {
            ClaimKind::Threefold => le::ClaimKind::Threefold,
            ClaimKind::FiftyMoves => le::ClaimKind::FiftyMoves,
        }
    }
}

impl From<PenaltyKind> for le::PenaltyKind {
    fn from(k: PenaltyKind) -> le::PenaltyKind {
        match k {
            PenaltyKind::Warning => le::PenaltyKind::Warning,
            PenaltyKind::AddTimeToOpponent(ms) => le::PenaltyKind::AddTimeToOpponent(ms),
            PenaltyKind::DeductTime(ms) => le::PenaltyKind::DeductTime(ms),
            PenaltyKind::RaiseOpponentScore => le::PenaltyKind::RaiseOpponentScore,
            PenaltyKind::ReduceScore => le::PenaltyKind::ReduceScore,
            PenaltyKind::DeclareLost => le::PenaltyKind::DeclareLost,
        }
    }
}

impl From<DeclaredResult> for le::DeclaredResult {
    fn from(r: DeclaredResult) -> le::DeclaredResult {
        match r {
            DeclaredResult::WhiteWins => le::DeclaredResult::WhiteWins,
            DeclaredResult::BlackWins => le::DeclaredResult::BlackWins,
            DeclaredResult::Draw => le::DeclaredResult::Draw,
            DeclaredResult::BothLose => le::DeclaredResult::BothLose,
        }
    }
}

impl From<Answer> for le::Answer {
    fn from(a: Answer) -> le::Answer {
        match a {
            Answer::Default => le::Answer::Default,
            Answer::Accept => le::Answer::Accept,
            Answer::Reject => le::Answer::Reject,
            Answer::Postpone => le::Answer::Postpone,
        }
    }
}

impl TryFrom<SetupError> for le::SetupError {
    type Error = FormatError;
    fn try_from(e: SetupError) -> Result<le::SetupError, FormatError> {
        Ok(match e {
            SetupError::WrongInitialPosition => le::SetupError::WrongInitialPosition,
            SetupError::BoardWronglyOriented => le::SetupError::BoardWronglyOriented,
            SetupError::ColoursReversed => le::SetupError::ColoursReversed,
            SetupError::KingMisplaced { color } => le::SetupError::KingMisplaced { color: color.into() },
            SetupError::RookMisplaced { square } => {
                le::SetupError::RookMisplaced { square: square.try_into()? }
            }
        })
    }
}

impl TryFrom<Event> for le::Event {
    type Error = FormatError;
    fn try_from(e: Event) -> Result<le::Event, FormatError> {
        use le::Event as L;
        Ok(match e {
            Event::AnnounceAdjust { color } => L::AnnounceAdjust { color: color.into() },
            Event::Touch { color, square, kind } => {
                L::Touch { color: color.into(), square: square.try_into()?, kind: kind.into() }
            }
            Event::PromotionPieceTouched { color, role } => {
                L::PromotionPieceTouched { color: color.into(), role: role.into() }
            }
            Event::MakeMove { color, mv } => L::MakeMove { color: color.into(), mv: mv.try_into()? },
            Event::CastlingKingReleased { color, to } => {
                L::CastlingKingReleased { color: color.into(), to: to.try_into()? }
            }
            Event::UsedTwoHands { color } => L::UsedTwoHands { color: color.into() },
            Event::PressClock { color, other_hand } => L::PressClock { color: color.into(), other_hand },
            Event::SubmitMove { color, mv, premove, lag_ms } => {
                L::SubmitMove { color: color.into(), mv: mv.try_into()?, premove, lag_ms }
            }
            Event::Disconnect { color } => L::Disconnect { color: color.into() },
            Event::Reconnect { color } => L::Reconnect { color: color.into() },
            Event::OfferDraw { color } => L::OfferDraw { color: color.into() },
            Event::AcceptDraw { color } => L::AcceptDraw { color: color.into() },
            Event::DeclineDraw { color } => L::DeclineDraw { color: color.into() },
            Event::ClaimDraw { color, kind, intended } => L::ClaimDraw {
                color: color.into(),
                kind: kind.into(),
                intended: intended.map(le::MoveInput::try_from).transpose()?,
            },
            Event::Resign { color } => L::Resign { color: color.into() },
            Event::ClaimIllegalMove { color } => L::ClaimIllegalMove { color: color.into() },
            Event::PlayerArrived { color } => L::PlayerArrived { color: color.into() },
            Event::RequestIncrement { color } => L::RequestIncrement { color: color.into() },
            Event::ClaimNoWinningAttempt { color } => L::ClaimNoWinningAttempt { color: color.into() },
            Event::Tick => L::Tick,
            Event::Start => L::Start,
            Event::PauseClocks => L::PauseClocks,
            Event::ResumeClocks => L::ResumeClocks,
            Event::AdjustClock { color, delta_ms } => L::AdjustClock { color: color.into(), delta_ms },
            Event::SetClock { color, remaining_ms } => L::SetClock { color: color.into(), remaining_ms },
            Event::SetMoveCounter { color, moves_completed } => {
                L::SetMoveCounter { color: color.into(), moves_completed }
            }
            Event::InstallTimeControl { time_control } => L::InstallTimeControl {
                time_control: arbiter_laws::time_control::TimeControl::from_pgn(&time_control)
                    .map_err(|e| FormatError::Invalid(format!("time control {time_control:?}: {e}")))?,
            },
            Event::Penalty { color, kind } => L::Penalty { color: color.into(), kind: kind.into() },
            Event::ReinstatePosition { ply } => L::ReinstatePosition { ply },
            Event::DeclareResult { result } => L::DeclareResult { result: result.into() },
            Event::DeviceFound { color } => L::DeviceFound { color: color.into() },
            Event::AnswerQuestion { id, answer } => L::AnswerQuestion { id, answer: answer.into() },
            Event::SetupErrorFound { error } => L::SetupErrorFound { error: error.try_into()? },
            Event::ServiceResumed { outage_ms } => L::ServiceResumed { outage_ms },
            Event::SimultaneousTouch { color, own, opponent } => L::SimultaneousTouch {
                color: color.into(),
                own: own.try_into()?,
                opponent: opponent.try_into()?,
            },
            Event::TouchSensed { square, piece, sensed } => L::TouchSensed {
                square: square.try_into()?,
                piece: arbiter_chess::Piece { color: piece.color.into(), role: piece.role.into() },
                sensed: sensed.into(),
            },
            Event::BoardClockReading { white_ms, black_ms } => L::BoardClockReading { white_ms, black_ms },
            Event::Withdraw { reason } => L::Withdraw {
                reason: match reason {
                    Withdrawal::Cancelled => le::Withdrawal::Cancelled,
                    Withdrawal::Expired => le::Withdrawal::Expired,
                },
            },
        })
    }
}

impl From<Score> for ls::Score {
    fn from(s: Score) -> ls::Score {
        match s {
            Score::Win => ls::Score::Win,
            Score::Draw => ls::Score::Draw,
            Score::Loss => ls::Score::Loss,
        }
    }
}

impl From<GameResult> for ls::GameResult {
    fn from(r: GameResult) -> ls::GameResult {
        use ls::GameResult as L;
        match r {
            GameResult::WhiteWins => L::WhiteWins,
            GameResult::BlackWins => L::BlackWins,
            GameResult::Draw => L::Draw,
            GameResult::WhiteWinsByForfeit => L::WhiteWinsByForfeit,
            GameResult::BlackWinsByForfeit => L::BlackWinsByForfeit,
            GameResult::DoubleForfeit => L::DoubleForfeit,
            GameResult::BothLose => L::BothLose,
            GameResult::Adjusted { white, black } => L::Adjusted { white: white.into(), black: black.into() },
            GameResult::Annulled => L::Annulled,
        }
    }
}

impl From<ScoreAdjustment> for ls::ScoreAdjustment {
    fn from(a: ScoreAdjustment) -> ls::ScoreAdjustment {
        ls::ScoreAdjustment {
            offender: a.offender.into(),
            kind: match a.kind {
                ScoreAdjustmentKind::RaiseOpponentScore => ls::ScoreAdjustmentKind::RaiseOpponentScore,
                ScoreAdjustmentKind::ReduceScore => ls::ScoreAdjustmentKind::ReduceScore,
            },
        }
    }
}

/// A stored rule id as the Laws know it.
fn rule(text: &str) -> Result<lr::RuleId, FormatError> {
    text.parse().map_err(|_| FormatError::Invalid(format!("unknown rule id {text:?}")))
}

/// The reason format 1 wrote, word for word, for the one end whose rule id
/// it shares with another cause: the arbiter's answer that no checkmate is
/// possible (6.9, a draw), beside a flag under 6.9.
pub(super) const NO_POSSIBLE_CHECKMATE: &str = "the arbiter found no possible checkmate";

/// Why a game of format 1 ended. Format 1 stored no cause: each end is
/// told by its rule id, except under 6.9, where the frozen reason text of
/// [`NO_POSSIBLE_CHECKMATE`] is the encoding of that cause.
fn end_cause(rule: lr::RuleId, reason: &str) -> Result<lr::EndCause, FormatError> {
    use lr::EndCause as C;
    use lr::RuleId as R;
    Ok(match rule {
        R::Fide5_1_1 => C::Checkmate,
        R::Fide5_2_1 | R::Ocr5_4_2 => C::Stalemate,
        R::Fide5_2_2 | R::Ocr5_4_3 => C::DeadPosition,
        R::Fide9_6_1 => C::FivefoldRepetition,
        R::Fide9_6_2 => C::SeventyFiveMoves,
        R::Fide9_2 | R::Ocr5_4_1 => C::ThreefoldRepetition,
        R::Fide9_3 | R::Ocr5_4_4 => C::FiftyMoves,
        R::Fide5_2_3 => C::Agreement,
        R::Fide5_1_2 => C::Resignation,
        R::Fide6_9 if reason == NO_POSSIBLE_CHECKMATE => C::NoPossibleCheckmate,
        R::Fide6_9 | R::Ocr4_3 => C::Flag,
        R::Fide6_7a => C::DefaultTime,
        R::Ocr11_4_2 => C::NotReconnected,
        R::Fide7_5_5 => C::IllegalMoves,
        R::FideA5_4 => C::IllegalPosition,
        R::Fide12_9 => C::ArbiterPenalty,
        R::Fide8_7 | R::Ocr15_3 | R::Ocr15_4 => C::DeclaredByArbiter,
        R::Fide11_3b => C::ElectronicDevice,
        R::FideIII5 => C::NoWinningAttempt,
        R::Fide7_2a => C::WrongInitialPosition,
        R::Fide7_3 | R::Ocr15_2 => C::ColoursReversed,
        other => return Err(FormatError::Invalid(format!("no game ends under {other}"))),
    })
}

impl TryFrom<GameEnd> for lr::GameEnd {
    type Error = FormatError;
    fn try_from(e: GameEnd) -> Result<lr::GameEnd, FormatError> {
        let rule = rule(&e.rule)?;
        Ok(lr::GameEnd {
            result: e.result.into(),
            cause: end_cause(rule, &e.reason)?,
            reason: e.reason,
            rule,
            armageddon_winner: e.armageddon_winner.map(arbiter_chess::Color::from),
            board_result: e.board_result.map(ls::GameResult::from),
        })
    }
}

impl TryFrom<Decision> for lr::Decision {
    type Error = FormatError;
    fn try_from(d: Decision) -> Result<lr::Decision, FormatError> {
        use lr::Decision as L;
        Ok(match d {
            Decision::GameStarted { white_ms, black_ms } => L::GameStarted { white_ms, black_ms },
            Decision::MoveMade { color, san, uci, ply } => L::MoveMade { color: color.into(), san, uci, ply },
            Decision::MoveCompleted { color, used_ms, bonus_ms, remaining_ms } => {
                L::MoveCompleted { color: color.into(), used_ms, bonus_ms, remaining_ms }
            }
            Decision::PremoveQueued { color, uci } => L::PremoveQueued { color: color.into(), uci },
            Decision::PremoveDropped { color, uci } => L::PremoveDropped { color: color.into(), uci },
            Decision::Obligation { color, allowed, reason } => {
                L::Obligation { color: color.into(), allowed, reason }
            }
            Decision::IllegalMoveNotCompleted { color, description } => {
                L::IllegalMoveNotCompleted { color: color.into(), description }
            }
            Decision::IllegalMove { color, count, description } => {
                L::IllegalMove { color: color.into(), count, description }
            }
            Decision::IllegalMoveNotActedOn { color, description } => {
                L::IllegalMoveNotActedOn { color: color.into(), description }
            }
            Decision::IllegalMoveClaimed { color, description } => {
                L::IllegalMoveClaimed { color: color.into(), description }
            }
            Decision::IllegalMoveStands { color, description } => {
                L::IllegalMoveStands { color: color.into(), description }
            }
            Decision::IllegalPositionObserved { description } => L::IllegalPositionObserved { description },
            Decision::IllegalPositionCleared { in_check } => {
                L::IllegalPositionCleared { in_check: in_check.map(arbiter_chess::Color::from) }
            }
            Decision::ClockAdjusted { color, delta_ms, remaining_ms } => {
                L::ClockAdjusted { color: color.into(), delta_ms, remaining_ms }
            }
            Decision::ClockSet { color, remaining_ms } => L::ClockSet { color: color.into(), remaining_ms },
            Decision::TouchSensed { color, square, sensed, binding, would_allow } => L::TouchSensed {
                color: color.into(),
                square: square.try_into()?,
                sensed: sensed.into(),
                binding,
                would_allow,
            },
            Decision::MoveCounterSet { color, moves_completed } => {
                L::MoveCounterSet { color: color.into(), moves_completed }
            }
            Decision::TimeControlInstalled { time_control } => L::TimeControlInstalled { time_control },
            Decision::ClocksPaused => L::ClocksPaused,
            Decision::ClocksResumed => L::ClocksResumed,
            Decision::ClockResumedAfterOutage { outage_ms } => L::ClockResumedAfterOutage { outage_ms },
            Decision::Warning { color, reason } => L::Warning { color: color.into(), reason },
            Decision::DrawOffered { color, ply } => L::DrawOffered { color: color.into(), ply },
            Decision::DrawOfferLapsed { color, reason } => L::DrawOfferLapsed { color: color.into(), reason },
            Decision::DrawOfferDeclined { color } => L::DrawOfferDeclined { color: color.into() },
            Decision::ClaimIncorrect { color, reason } => L::ClaimIncorrect { color: color.into(), reason },
            Decision::PlayerArrived { color } => L::PlayerArrived { color: color.into() },
            Decision::Disconnected { color } => L::Disconnected { color: color.into() },
            Decision::Reconnected { color } => L::Reconnected { color: color.into() },
            Decision::QuestionOpened { id, question, default } => L::QuestionOpened { id, question, default },
            Decision::QuestionAnswered { id, answer } => L::QuestionAnswered { id, answer },
            Decision::PositionReinstated { ply, fen } => L::PositionReinstated { ply, fen },
            Decision::IncrementIntroduced { increment_ms } => L::IncrementIntroduced { increment_ms },
            Decision::SetupErrorStands { error, note } => {
                L::SetupErrorStands { error: error.try_into()?, note }
            }
            Decision::ScorePenalty { adjustment } => L::ScorePenalty { adjustment: adjustment.into() },
            Decision::GameOver(end) => L::GameOver(end.try_into()?),
        })
    }
}

impl TryFrom<Ruling> for lr::Ruling {
    type Error = FormatError;
    fn try_from(r: Ruling) -> Result<lr::Ruling, FormatError> {
        Ok(lr::Ruling { rule: rule(&r.rule)?, decision: r.decision.try_into()? })
    }
}

// ---------------------------------------------------------------------------
// Aftermath and specification
// ---------------------------------------------------------------------------

impl From<&super::Aftermath> for Aftermath {
    fn from(a: &super::Aftermath) -> Aftermath {
        Aftermath {
            rulings: a.rulings.iter().map(Ruling::from).collect(),
            clocks: a.clocks.into(),
            fen: a.fen.clone(),
        }
    }
}

impl TryFrom<Aftermath> for super::Aftermath {
    type Error = FormatError;
    fn try_from(a: Aftermath) -> Result<super::Aftermath, FormatError> {
        Ok(super::Aftermath {
            rulings: a.rulings.into_iter().map(lr::Ruling::try_from).collect::<Result<_, _>>()?,
            clocks: a.clocks.into(),
            fen: a.fen,
        })
    }
}

impl From<super::Clocks> for Clocks {
    fn from(c: super::Clocks) -> Clocks {
        Clocks {
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running.map(Color::from),
            paused: c.paused,
            white_moves: c.white_moves,
            black_moves: c.black_moves,
        }
    }
}

impl From<Clocks> for super::Clocks {
    fn from(c: Clocks) -> super::Clocks {
        super::Clocks {
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running.map(arbiter_chess::Color::from),
            paused: c.paused,
            white_moves: c.white_moves,
            black_moves: c.black_moves,
        }
    }
}

impl From<&super::GameView> for View {
    fn from(v: &super::GameView) -> View {
        View {
            end: v.end.as_ref().map(GameEnd::from),
            fen: v.fen.clone(),
            turn: v.turn.into(),
            moves_san: std::sync::Arc::clone(&v.moves_san),
            moves_uci: std::sync::Arc::clone(&v.moves_uci),
            clocks: v.clocks.into(),
            draw_offer: v.draw_offer.map(|(by, ply)| DrawOffer { by: by.into(), ply }),
            obligation: v.obligation.as_ref().map(|o| Obligation {
                color: o.color.into(),
                allowed: o.allowed_uci.clone(),
                rule: o.rule.to_string(),
                reason: o.reason.clone(),
            }),
            open_questions: v
                .open_questions
                .iter()
                .map(|q| Question { id: q.id, text: q.text.clone(), default: q.default.clone() })
                .collect(),
            white_illegal_moves: v.white_illegal_moves,
            black_illegal_moves: v.black_illegal_moves,
        }
    }
}

impl TryFrom<View> for super::GameView {
    type Error = FormatError;
    fn try_from(v: View) -> Result<super::GameView, FormatError> {
        Ok(super::GameView {
            end: v.end.map(lr::GameEnd::try_from).transpose()?,
            fen: v.fen,
            turn: v.turn.into(),
            moves_san: v.moves_san,
            moves_uci: v.moves_uci,
            clocks: v.clocks.into(),
            draw_offer: v.draw_offer.map(|o| (o.by.into(), o.ply)),
            obligation: v
                .obligation
                .map(|o| {
                    Ok::<_, FormatError>(super::ObligationView {
                        color: o.color.into(),
                        allowed_uci: o.allowed,
                        rule: rule(&o.rule)?,
                        reason: o.reason,
                    })
                })
                .transpose()?,
            open_questions: v
                .open_questions
                .into_iter()
                .map(|q| super::QuestionView { id: q.id, text: q.text, default: q.default })
                .collect(),
            white_illegal_moves: v.white_illegal_moves,
            black_illegal_moves: v.black_illegal_moves,
        })
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    OverTheBoard,
    Online,
    Hybrid,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Blitz,
    Rapid,
    Standard,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    Full,
    Reduced,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawOfferRestriction {
    None,
    BeforeMove(u32),
    WithoutArbiter,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevicePenalty {
    Loss,
    DeductTime(i64),
}

/// A game's regulations. `time_control` is the PGN form (`40/5400+30:1800+30`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Regulations {
    pub mode: Mode,
    pub time_control: String,
    pub category: Option<Category>,
    pub regime: Regime,
    pub penalty_ms: Option<i64>,
    pub default_time_ms: Option<i64>,
    pub draw_offers: DrawOfferRestriction,
    pub guidelines_iii: bool,
    pub device_penalty: DevicePenalty,
    pub chess960: bool,
    pub start_fen: Option<String>,
    pub armageddon: bool,
    pub observe: bool,
    pub automatic_draws: Option<bool>,
    pub cn_draw_alternation: bool,
    /// Written `false` by every release (the option never had an effect and
    /// is no longer accepted); read and ignored.
    #[serde(default)]
    pub cn_grade_scoring: bool,
    pub max_lag_compensation_ms: i64,
    pub reconnect_window_ms: Option<i64>,
    /// Added after the first release: the revision of the rulings the game
    /// is judged by, written only when it is not the first (so rows of the
    /// first release, which have none, read as revision 1 and re-encode to
    /// the same bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rulings_revision: Option<u32>,
    /// Added after format 3 (format 4), written only when not the default
    /// (`Record`), so older specifications re-encode to the same bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensed_touches: Option<SensedTouches>,
    /// Added after format 3 (format 4), written only when not the default
    /// (`Service`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_authority: Option<ClockAuthority>,
}

/// What a sensed touch means (added in format 4).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensedTouches {
    Record,
    Bind,
}

/// Whose clock counts (added in format 4).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockAuthority {
    Service,
    Board,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub name: String,
    pub fide_id: String,
}

/// A game's specification (`spec_json`). `version` is always 1: it predates
/// the `spec_format` column and is kept as written.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub version: u32,
    pub event: String,
    pub round: String,
    pub white: Player,
    pub black: Player,
    pub regulations: Regulations,
}

impl From<&super::GameSpec> for Spec {
    fn from(s: &super::GameSpec) -> Spec {
        use arbiter_laws::regulations as lg;
        use arbiter_laws::time_control as lt;
        let r = &s.regulations;
        Spec {
            version: 1,
            event: s.event.clone(),
            round: s.round.clone(),
            white: Player { name: s.white.name.clone(), fide_id: s.white.fide_id.clone() },
            black: Player { name: s.black.name.clone(), fide_id: s.black.fide_id.clone() },
            regulations: Regulations {
                mode: match r.mode {
                    lg::Mode::OverTheBoard => Mode::OverTheBoard,
                    lg::Mode::Online => Mode::Online,
                    lg::Mode::Hybrid => Mode::Hybrid,
                },
                time_control: r.time_control.to_pgn(),
                category: r.category.map(|c| match c {
                    lt::Category::Blitz => Category::Blitz,
                    lt::Category::Rapid => Category::Rapid,
                    lt::Category::Standard => Category::Standard,
                }),
                regime: match r.regime {
                    lg::Regime::Full => Regime::Full,
                    lg::Regime::Reduced => Regime::Reduced,
                },
                penalty_ms: r.penalty_ms,
                default_time_ms: r.default_time_ms,
                draw_offers: match r.draw_offers {
                    lg::DrawOfferRestriction::None => DrawOfferRestriction::None,
                    lg::DrawOfferRestriction::BeforeMove(n) => DrawOfferRestriction::BeforeMove(n),
                    lg::DrawOfferRestriction::WithoutArbiter => DrawOfferRestriction::WithoutArbiter,
                },
                guidelines_iii: r.guidelines_iii,
                device_penalty: match r.device_penalty {
                    lg::DevicePenalty::Loss => DevicePenalty::Loss,
                    lg::DevicePenalty::DeductTime(ms) => DevicePenalty::DeductTime(ms),
                },
                chess960: r.chess960,
                start_fen: r.start_fen.clone(),
                armageddon: r.armageddon,
                observe: r.observe,
                automatic_draws: r.automatic_draws,
                cn_draw_alternation: r.cn_draw_alternation,
                cn_grade_scoring: false,
                max_lag_compensation_ms: r.max_lag_compensation_ms,
                reconnect_window_ms: r.reconnect_window_ms,
                rulings_revision: (r.rulings_revision != lg::Regulations::FIRST_RULINGS)
                    .then_some(r.rulings_revision),
                sensed_touches: match r.sensed_touches {
                    lg::SensedTouches::Record => None,
                    lg::SensedTouches::Bind => Some(SensedTouches::Bind),
                },
                clock_authority: match r.clock_authority {
                    lg::ClockAuthority::Service => None,
                    lg::ClockAuthority::Board => Some(ClockAuthority::Board),
                },
            },
        }
    }
}

impl TryFrom<Spec> for super::GameSpec {
    type Error = FormatError;
    fn try_from(s: Spec) -> Result<super::GameSpec, FormatError> {
        use arbiter_laws::regulations as lg;
        use arbiter_laws::time_control as lt;
        let r = s.regulations;
        let time_control = lt::TimeControl::from_pgn(&r.time_control)
            .map_err(|e| FormatError::Invalid(format!("time control {:?}: {e}", r.time_control)))?;
        let mut regulations = lg::Regulations::new(time_control);
        regulations.mode = match r.mode {
            Mode::OverTheBoard => lg::Mode::OverTheBoard,
            Mode::Online => lg::Mode::Online,
            Mode::Hybrid => lg::Mode::Hybrid,
        };
        regulations.category = r.category.map(|c| match c {
            Category::Blitz => lt::Category::Blitz,
            Category::Rapid => lt::Category::Rapid,
            Category::Standard => lt::Category::Standard,
        });
        regulations.regime = match r.regime {
            Regime::Full => lg::Regime::Full,
            Regime::Reduced => lg::Regime::Reduced,
        };
        regulations.penalty_ms = r.penalty_ms;
        regulations.default_time_ms = r.default_time_ms;
        regulations.draw_offers = match r.draw_offers {
            DrawOfferRestriction::None => lg::DrawOfferRestriction::None,
            DrawOfferRestriction::BeforeMove(n) => lg::DrawOfferRestriction::BeforeMove(n),
            DrawOfferRestriction::WithoutArbiter => lg::DrawOfferRestriction::WithoutArbiter,
        };
        regulations.guidelines_iii = r.guidelines_iii;
        regulations.device_penalty = match r.device_penalty {
            DevicePenalty::Loss => lg::DevicePenalty::Loss,
            DevicePenalty::DeductTime(ms) => lg::DevicePenalty::DeductTime(ms),
        };
        regulations.chess960 = r.chess960;
        regulations.start_fen = r.start_fen;
        regulations.armageddon = r.armageddon;
        regulations.observe = r.observe;
        regulations.automatic_draws = r.automatic_draws;
        regulations.cn_draw_alternation = r.cn_draw_alternation;
        regulations.max_lag_compensation_ms = r.max_lag_compensation_ms;
        regulations.reconnect_window_ms = r.reconnect_window_ms;
        regulations.rulings_revision = r.rulings_revision.unwrap_or(lg::Regulations::FIRST_RULINGS);
        regulations.sensed_touches = match r.sensed_touches {
            None | Some(SensedTouches::Record) => lg::SensedTouches::Record,
            Some(SensedTouches::Bind) => lg::SensedTouches::Bind,
        };
        regulations.clock_authority = match r.clock_authority {
            None | Some(ClockAuthority::Service) => lg::ClockAuthority::Service,
            Some(ClockAuthority::Board) => lg::ClockAuthority::Board,
        };
        Ok(super::GameSpec {
            event: s.event,
            round: s.round,
            white: super::PlayerSpec { name: s.white.name, fide_id: s.white.fide_id },
            black: super::PlayerSpec { name: s.black.name, fide_id: s.black.fide_id },
            regulations,
        })
    }
}
