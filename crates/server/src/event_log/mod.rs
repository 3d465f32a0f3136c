//! The stored event log's format: what a row of `game_events` (and the
//! specification in `games.spec_json`, and the read model in
//! `games.view_json`) holds, and the one place that turns it into the Laws'
//! types and back.
//!
//! **Storage boundary.** The Laws crate's types are never written to disk
//! as they are. Each stored payload is a record of this module, in a
//! numbered format (the row's `format` column, `spec_format` for a game's
//! specification); [`v1`] is the first. Conversions are written out by hand,
//! so a change in the Laws crate cannot change what is stored, and every
//! row ever written stays readable.
//!
//! The rule for changing the format (see ARCHITECTURE.md):
//! - A format, once released, is never changed. A new field, a new variant
//!   or a new meaning is a new format (`v2.rs`) that this build writes from
//!   then on; the old modules stay and keep reading old rows.
//! - Reading a row of a format newer than [`FORMAT`] fails with
//!   [`FormatError::Newer`]: a game is never misread by a build that does not
//!   know its format (an older replica after a rollback refuses it instead).
//! - The golden logs (`tests/golden`) hold rows of each released format and
//!   are replayed by every build; a new format adds a corpus, never replaces
//!   one.

pub mod board;
pub mod v1;

use arbiter_chess::{Color, Position};
use arbiter_laws::event::Event;
use arbiter_laws::regulations::Regulations;
use arbiter_laws::ruling::{GameEnd, RuleId, Ruling};
use arbiter_laws::touch::Obligation;

/// The newest format this build reads, and the one it writes.
///
/// Format 2 is format 1 with additions only, so its records are format
/// 1's, in [`v1`], and a format-1 row reads as it always did: the events
/// `SetMoveCounter`, `InstallTimeControl` and `SimultaneousTouch`, and the
/// specification's `rulings_revision` (absent for revision 1). A row
/// without any of them is written byte for byte as format 1 wrote it; the
/// number is what tells an older build, which would not know the additions
/// (and could not replay a game of a newer revision of the rulings), to
/// refuse the row with `STORED_FORMAT_NEWER` instead of misreading it.
/// Format 3 adds, the same way, the event `Withdraw` (a game cancelled or
/// expired before it started). Format 4 adds what e-boards report: the
/// events `TouchSensed` and `BoardClockReading`, the decision
/// `TouchSensed`, and the specification's `sensed_touches` and
/// `clock_authority` (absent for their defaults).
pub const FORMAT: i64 = 4;

/// A stored payload that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Written by a newer build, in a format this one does not know.
    #[error(
        "stored in format {found}, newer than this build reads (formats 1 to {FORMAT}); \
         run a release that knows it"
    )]
    Newer { found: i64 },
    /// A format number that no build ever wrote.
    #[error("stored in format {0}, which does not exist")]
    Nonexistent(i64),
    /// Not the JSON of its format.
    #[error("not valid JSON of its format: {0}")]
    Json(#[from] serde_json::Error),
    /// Valid JSON holding a value the Laws do not know (a square, a rule id).
    #[error("{0}")]
    Invalid(String),
}

fn check_format(format: i64) -> Result<(), FormatError> {
    match format {
        1..=FORMAT => Ok(()),
        f if f > FORMAT => Err(FormatError::Newer { found: f }),
        f => Err(FormatError::Nonexistent(f)),
    }
}

/// The clocks after an event, as stored with its rulings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    pub white_ms: i64,
    pub black_ms: i64,
    pub running: Option<Color>,
    pub paused: bool,
    pub white_moves: u32,
    pub black_moves: u32,
}

/// What an event led to, as stored beside it: its rulings, the clocks and
/// the position after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aftermath {
    pub rulings: Vec<Ruling>,
    pub clocks: Clocks,
    pub fen: String,
}

/// A player as the game's specification stores it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerSpec {
    pub name: String,
    pub fide_id: String,
}

/// Everything needed to rebuild a game besides its events (`spec_json`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    pub event: String,
    pub round: String,
    pub white: PlayerSpec,
    pub black: PlayerSpec,
    pub regulations: Regulations,
}

/// The game as a reader sees it after its last event: the read model kept
/// in the games index beside the status (`view_json`), so that lists and
/// reads of finished games answer from one row, without replaying the log.
/// It is a projection of the log, rewritten by every append and rebuilt
/// from the log when missing (rows of releases before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameView {
    pub end: Option<GameEnd>,
    pub fen: String,
    /// The side to move in `fen`.
    pub turn: Color,
    /// The moves in SAN and UCI, shared: a game's table hands the same
    /// lists to every view until a move changes them, instead of copying a
    /// whole game's notation for each answer.
    pub moves_san: std::sync::Arc<Vec<String>>,
    pub moves_uci: std::sync::Arc<Vec<String>>,
    /// The clocks at the last event (the game's last instant).
    pub clocks: Clocks,
    /// The pending draw offer: who made it and after how many plies.
    pub draw_offer: Option<(Color, u32)>,
    pub obligation: Option<ObligationView>,
    pub open_questions: Vec<QuestionView>,
    pub white_illegal_moves: u32,
    pub black_illegal_moves: u32,
}

/// A touch-move obligation in a [`GameView`], its moves in UCI as the API
/// writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObligationView {
    pub color: Color,
    pub allowed_uci: Vec<String>,
    pub rule: RuleId,
    pub reason: String,
}

impl ObligationView {
    /// The obligation of the player to move in `position` (the position it
    /// was computed in), its moves in UCI as played there: castling is
    /// `e1g1` in standard chess and king takes rook in Chess960.
    pub fn new(o: &Obligation, position: &Position) -> ObligationView {
        ObligationView {
            color: position.turn(),
            allowed_uci: o.allowed.iter().map(|&m| position.uci(m).to_string()).collect(),
            rule: o.rule,
            reason: o.reason.clone(),
        }
    }
}

/// A question waiting for the arbiter, in a [`GameView`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionView {
    pub id: u32,
    pub text: String,
    pub default: String,
}

/// A game's read model in the current format.
pub fn encode_view(view: &GameView) -> String {
    serde_json::to_string(&v1::View::from(view)).unwrap_or_default()
}

/// A stored read model.
///
/// # Errors
/// As [`decode_event`].
pub fn decode_view(format: i64, json: &str) -> Result<GameView, FormatError> {
    check_format(format)?;
    serde_json::from_str::<v1::View>(json)?.try_into()
}

/// An event in the current format.
pub fn encode_event(event: &Event) -> String {
    // The records hold strings, numbers and enums only: they always encode.
    serde_json::to_string(&v1::Event::from(event)).unwrap_or_default()
}

/// An event's aftermath in the current format.
pub fn encode_aftermath(aftermath: &Aftermath) -> String {
    serde_json::to_string(&v1::Aftermath::from(aftermath)).unwrap_or_default()
}

/// A game's specification in the current format.
pub fn encode_spec(spec: &GameSpec) -> String {
    serde_json::to_string(&v1::Spec::from(spec)).unwrap_or_default()
}

/// A stored event.
///
/// # Errors
/// [`FormatError`] for a format this build does not read, or a payload that
/// is not one of its format.
pub fn decode_event(format: i64, json: &str) -> Result<Event, FormatError> {
    check_format(format)?;
    serde_json::from_str::<v1::Event>(json)?.try_into()
}

/// A stored aftermath.
///
/// # Errors
/// As [`decode_event`].
pub fn decode_aftermath(format: i64, json: &str) -> Result<Aftermath, FormatError> {
    check_format(format)?;
    serde_json::from_str::<v1::Aftermath>(json)?.try_into()
}

/// A stored specification.
///
/// # Errors
/// As [`decode_event`], and [`FormatError::Invalid`] for regulations the Laws
/// no longer accept.
pub fn decode_spec(format: i64, json: &str) -> Result<GameSpec, FormatError> {
    check_format(format)?;
    serde_json::from_str::<v1::Spec>(json)?.try_into()
}

#[cfg(test)]
mod tests {
    use arbiter_chess::{Color, Role, Square};
    use arbiter_laws::event::{
        Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SetupError, TouchKind,
    };
    use arbiter_laws::ruling::{Decision, GameEnd, Ruling};
    use arbiter_laws::scoring::{GameResult, Score, ScoreAdjustment, ScoreAdjustmentKind};

    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn mv() -> MoveInput {
        MoveInput { from: sq("e7"), to: sq("e8"), promotion: Some(Role::Queen), castle: false }
    }

    /// One event of every kind, with every field set.
    fn every_event() -> Vec<Event> {
        use Color::{Black as B, White as W};
        vec![
            Event::AnnounceAdjust { color: W },
            Event::Touch { color: B, square: sq("g8"), kind: TouchKind::Intent },
            Event::Touch { color: B, square: sq("a1"), kind: TouchKind::Adjust },
            Event::Touch { color: W, square: sq("h8"), kind: TouchKind::Accidental },
            Event::PromotionPieceTouched { color: W, role: Role::Knight },
            Event::MakeMove { color: W, mv: mv() },
            Event::CastlingKingReleased { color: B, to: sq("c8") },
            Event::UsedTwoHands { color: B },
            Event::PressClock { color: W, other_hand: true },
            Event::SubmitMove {
                color: B,
                mv: MoveInput { castle: true, promotion: None, ..mv() },
                premove: true,
                lag_ms: 35,
            },
            Event::Disconnect { color: W },
            Event::Reconnect { color: W },
            Event::OfferDraw { color: B },
            Event::AcceptDraw { color: W },
            Event::DeclineDraw { color: W },
            Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: Some(mv()) },
            Event::ClaimDraw { color: B, kind: ClaimKind::FiftyMoves, intended: None },
            Event::Resign { color: B },
            Event::ClaimIllegalMove { color: W },
            Event::PlayerArrived { color: B },
            Event::RequestIncrement { color: W },
            Event::ClaimNoWinningAttempt { color: B },
            Event::Tick,
            Event::Start,
            Event::PauseClocks,
            Event::ResumeClocks,
            Event::AdjustClock { color: W, delta_ms: -60_000 },
            Event::SetClock { color: B, remaining_ms: 3_000 },
            Event::SetMoveCounter { color: W, moves_completed: 39 },
            Event::InstallTimeControl {
                time_control: arbiter_laws::time_control::TimeControl::from_pgn("40/5400+30:1800+30")
                    .unwrap(),
            },
            Event::Penalty { color: W, kind: PenaltyKind::Warning },
            Event::Penalty { color: W, kind: PenaltyKind::AddTimeToOpponent(120_000) },
            Event::Penalty { color: B, kind: PenaltyKind::DeductTime(30_000) },
            Event::Penalty { color: B, kind: PenaltyKind::RaiseOpponentScore },
            Event::Penalty { color: B, kind: PenaltyKind::ReduceScore },
            Event::Penalty { color: W, kind: PenaltyKind::DeclareLost },
            Event::ReinstatePosition { ply: 17 },
            Event::DeclareResult { result: DeclaredResult::WhiteWins },
            Event::DeclareResult { result: DeclaredResult::BlackWins },
            Event::DeclareResult { result: DeclaredResult::Draw },
            Event::DeclareResult { result: DeclaredResult::BothLose },
            Event::DeviceFound { color: B },
            Event::AnswerQuestion { id: 3, answer: Answer::Default },
            Event::AnswerQuestion { id: 4, answer: Answer::Accept },
            Event::AnswerQuestion { id: 5, answer: Answer::Reject },
            Event::AnswerQuestion { id: 6, answer: Answer::Postpone },
            Event::SetupErrorFound { error: SetupError::WrongInitialPosition },
            Event::SetupErrorFound { error: SetupError::BoardWronglyOriented },
            Event::SetupErrorFound { error: SetupError::ColoursReversed },
            Event::SetupErrorFound { error: SetupError::KingMisplaced { color: B } },
            Event::SetupErrorFound { error: SetupError::RookMisplaced { square: sq("h1") } },
            Event::ServiceResumed { outage_ms: 4_321 },
            Event::SimultaneousTouch { color: W, own: sq("g1"), opponent: sq("d5") },
            Event::Withdraw { reason: arbiter_laws::event::Withdrawal::Cancelled },
            Event::Withdraw { reason: arbiter_laws::event::Withdrawal::Expired },
            Event::TouchSensed {
                square: sq("g1"),
                piece: arbiter_chess::Piece { color: W, role: arbiter_chess::Role::Knight },
                sensed: arbiter_laws::event::SensedTouch::FirstLift,
            },
            Event::TouchSensed {
                square: sq("d5"),
                piece: arbiter_chess::Piece { color: B, role: arbiter_chess::Role::Pawn },
                sensed: arbiter_laws::event::SensedTouch::OpponentPiece,
            },
            Event::TouchSensed {
                square: sq("a1"),
                piece: arbiter_chess::Piece { color: W, role: arbiter_chess::Role::Rook },
                sensed: arbiter_laws::event::SensedTouch::LiftAndReplace,
            },
            Event::BoardClockReading { white_ms: 61_000, black_ms: 0 },
        ]
    }

    /// One decision of every kind.
    fn every_decision() -> Vec<Decision> {
        use Color::{Black as B, White as W};
        let end = |result, board_result| GameEnd {
            result,
            reason: "flag fell".into(),
            rule: arbiter_laws::ruling::RuleId::Fide6_9,
            cause: arbiter_laws::ruling::EndCause::Flag,
            armageddon_winner: Some(B),
            board_result,
        };
        vec![
            Decision::GameStarted { white_ms: 1, black_ms: 2 },
            Decision::MoveMade { color: W, san: "e4".into(), uci: "e2e4".into(), ply: 1 },
            Decision::MoveCompleted { color: B, used_ms: 3, bonus_ms: 4, remaining_ms: 5 },
            Decision::PremoveQueued { color: W, uci: "g2g4".into() },
            Decision::PremoveDropped { color: W, uci: "e4d5".into() },
            Decision::Obligation {
                color: B,
                allowed: vec!["Nc6".into(), "Na6".into()],
                reason: "touched".into(),
            },
            Decision::IllegalMoveNotCompleted { color: W, description: "d".into() },
            Decision::IllegalMove { color: W, count: 2, description: "d".into() },
            Decision::IllegalMoveNotActedOn { color: B, description: "d".into() },
            Decision::IllegalMoveClaimed { color: W, description: "d".into() },
            Decision::IllegalMoveStands { color: B, description: "d".into() },
            Decision::IllegalPositionObserved { description: "pawn on h8".into() },
            Decision::IllegalPositionCleared { in_check: Some(W) },
            Decision::IllegalPositionCleared { in_check: None },
            Decision::ClockAdjusted { color: W, delta_ms: -6, remaining_ms: 7 },
            Decision::ClockSet { color: B, remaining_ms: 8 },
            Decision::MoveCounterSet { color: W, moves_completed: 40 },
            Decision::TimeControlInstalled { time_control: "40/5400+30:1800+30".into() },
            Decision::ClocksPaused,
            Decision::ClocksResumed,
            Decision::ClockResumedAfterOutage { outage_ms: 9 },
            Decision::Warning { color: B, reason: "r".into() },
            Decision::DrawOffered { color: W, ply: 10 },
            Decision::DrawOfferLapsed { color: W, reason: "r".into() },
            Decision::DrawOfferDeclined { color: B },
            Decision::ClaimIncorrect { color: B, reason: "r".into() },
            Decision::PlayerArrived { color: W },
            Decision::Disconnected { color: B },
            Decision::Reconnected { color: B },
            Decision::QuestionOpened { id: 1, question: "q".into(), default: "d".into() },
            Decision::QuestionAnswered { id: 1, answer: "a".into() },
            Decision::PositionReinstated { ply: 3, fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into() },
            Decision::IncrementIntroduced { increment_ms: 5_000 },
            Decision::SetupErrorStands {
                error: SetupError::RookMisplaced { square: sq("a8") },
                note: "n".into(),
            },
            Decision::ScorePenalty {
                adjustment: ScoreAdjustment { offender: W, kind: ScoreAdjustmentKind::ReduceScore },
            },
            Decision::ScorePenalty {
                adjustment: ScoreAdjustment { offender: B, kind: ScoreAdjustmentKind::RaiseOpponentScore },
            },
            Decision::TouchSensed {
                color: W,
                square: sq("g1"),
                sensed: arbiter_laws::event::SensedTouch::FirstLift,
                binding: false,
                would_allow: vec!["Nf3".into(), "Nh3".into()],
            },
            Decision::TouchSensed {
                color: B,
                square: sq("e4"),
                sensed: arbiter_laws::event::SensedTouch::OpponentPiece,
                binding: true,
                would_allow: vec![],
            },
            Decision::GameOver(end(GameResult::WhiteWins, None)),
            Decision::GameOver(end(GameResult::BlackWins, None)),
            Decision::GameOver(end(GameResult::Draw, None)),
            Decision::GameOver(end(GameResult::WhiteWinsByForfeit, None)),
            Decision::GameOver(end(GameResult::BlackWinsByForfeit, None)),
            Decision::GameOver(end(GameResult::DoubleForfeit, None)),
            Decision::GameOver(end(GameResult::BothLose, None)),
            Decision::GameOver(end(GameResult::Annulled, None)),
            Decision::GameOver(end(
                GameResult::Adjusted { white: Score::Draw, black: Score::Loss },
                Some(GameResult::Draw),
            )),
        ]
    }

    #[test]
    fn every_event_and_decision_round_trips_through_format_1() {
        for event in every_event() {
            let json = encode_event(&event);
            assert_eq!(decode_event(1, &json).unwrap(), event, "{json}");
        }
        let rulings: Vec<Ruling> = every_decision()
            .into_iter()
            .map(|decision| Ruling { rule: arbiter_laws::ruling::RuleId::Fide4_3a, decision })
            .collect();
        let aftermath = Aftermath {
            rulings,
            clocks: Clocks {
                white_ms: 1,
                black_ms: -2,
                running: Some(Color::Black),
                paused: true,
                white_moves: 3,
                black_moves: 4,
            },
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
        };
        let json = encode_aftermath(&aftermath);
        assert_eq!(decode_aftermath(1, &json).unwrap(), aftermath);
    }

    /// Format 1 is what the first releases wrote: the serde form the Laws'
    /// types had then. While those types still derive serde, the two must
    /// agree byte for byte; the golden logs hold the format for ever after.
    #[test]
    fn format_1_is_the_json_the_first_releases_wrote() {
        for event in every_event() {
            assert_eq!(encode_event(&event), serde_json::to_string(&event).unwrap());
        }
        for decision in every_decision() {
            let ruling = Ruling { rule: arbiter_laws::ruling::RuleId::Fide9_2, decision };
            // The Laws' types have since gained the end's cause, which
            // format 1 tells by the rule id instead of storing it.
            let mut laws = serde_json::to_value(&ruling).unwrap();
            if let Some(end) = laws["decision"].get_mut("GameOver").and_then(|e| e.as_object_mut()) {
                end.remove("cause");
            }
            assert_eq!(serde_json::to_value(v1::Ruling::from(&ruling)).unwrap(), laws);
        }
    }

    /// Every way a game ends survives format 1, which stores no cause.
    #[test]
    fn every_end_reads_back_with_its_cause() {
        use arbiter_laws::ruling::{EndCause as C, RuleId as R};
        let ends = [
            (R::Fide5_1_1, C::Checkmate, "checkmate"),
            (R::Fide5_2_1, C::Stalemate, "stalemate"),
            (R::Ocr5_4_2, C::Stalemate, "stalemate"),
            (R::Fide5_2_2, C::DeadPosition, "dead position"),
            (R::Ocr5_4_3, C::DeadPosition, "dead position"),
            (R::Fide9_6_1, C::FivefoldRepetition, "fivefold repetition"),
            (R::Fide9_6_2, C::SeventyFiveMoves, "75 moves"),
            (R::Fide9_2, C::ThreefoldRepetition, "threefold repetition"),
            (R::Ocr5_4_1, C::ThreefoldRepetition, "threefold repetition"),
            (R::Fide9_3, C::FiftyMoves, "fifty-move rule"),
            (R::Ocr5_4_4, C::FiftyMoves, "fifty-move rule"),
            (R::Fide5_2_3, C::Agreement, "agreement"),
            (R::Fide5_1_2, C::Resignation, "resignation"),
            (R::Fide6_9, C::Flag, "flag fell"),
            (R::Fide6_9, C::Flag, "flag fell; Black cannot checkmate"),
            (R::Fide6_9, C::NoPossibleCheckmate, v1::NO_POSSIBLE_CHECKMATE),
            (R::Ocr4_3, C::Flag, "flag fell"),
            (R::Fide6_7a, C::DefaultTime, "default time"),
            (R::Ocr11_4_2, C::NotReconnected, "not reconnected"),
            (R::Fide7_5_5, C::IllegalMoves, "second illegal move"),
            (R::FideA5_4, C::IllegalPosition, "illegal position"),
            (R::Fide12_9, C::ArbiterPenalty, "penalty of the arbiter"),
            (R::Fide8_7, C::DeclaredByArbiter, "declared by the arbiter"),
            (R::Ocr15_3, C::DeclaredByArbiter, "declared by the arbiter"),
            (R::Ocr15_4, C::DeclaredByArbiter, "declared by the arbiter"),
            (R::Fide11_3b, C::ElectronicDevice, "electronic device"),
            (R::FideIII5, C::NoWinningAttempt, "no winning attempt"),
            (R::Fide7_2a, C::WrongInitialPosition, "wrong initial position"),
            (R::Fide7_3, C::ColoursReversed, "colours reversed"),
            (R::Ocr15_2, C::ColoursReversed, "colours reversed"),
        ];
        // A draw under `rule`, said in `reason`, ended by `cause`.
        let ended = |rule: R, cause: C, reason: &str| Aftermath {
            rulings: vec![Ruling {
                rule,
                decision: Decision::GameOver(GameEnd {
                    result: GameResult::Draw,
                    reason: reason.into(),
                    rule,
                    cause,
                    armageddon_winner: None,
                    board_result: None,
                }),
            }],
            clocks: Clocks {
                white_ms: 0,
                black_ms: 0,
                running: None,
                paused: true,
                white_moves: 0,
                black_moves: 0,
            },
            fen: String::new(),
        };
        for (rule, cause, reason) in ends {
            let aftermath = ended(rule, cause, reason);
            assert_eq!(
                decode_aftermath(1, &encode_aftermath(&aftermath)).unwrap(),
                aftermath,
                "{rule} {cause:?}"
            );
        }
        // The cause format 1 encodes by its reason survives new wording in
        // the Laws: the record holds the frozen text, the cause reads back.
        let json =
            encode_aftermath(&ended(R::Fide6_9, C::NoPossibleCheckmate, "reworded by a later Laws crate"));
        let read = decode_aftermath(1, &json).unwrap();
        let Decision::GameOver(end) = &read.rulings[0].decision else { panic!("{read:?}") };
        assert_eq!((end.cause, end.reason.as_str()), (C::NoPossibleCheckmate, v1::NO_POSSIBLE_CHECKMATE));
    }

    #[test]
    fn the_e_board_regulations_are_stored_only_when_they_are_not_the_default() {
        use arbiter_laws::regulations::{ClockAuthority, Regulations, SensedTouches};
        use arbiter_laws::time_control::TimeControl;
        let player = |name: &str| PlayerSpec { name: name.into(), fide_id: String::new() };
        let mut spec = GameSpec {
            event: "Open".into(),
            round: "1".into(),
            white: player("W"),
            black: player("B"),
            regulations: Regulations::new(TimeControl::parse_human("90+30").unwrap()),
        };
        // The defaults write nothing: a specification of format 3 reads
        // and re-encodes as it was.
        let json = encode_spec(&spec);
        assert!(!json.contains("sensed_touches") && !json.contains("clock_authority"), "{json}");
        spec.regulations.sensed_touches = SensedTouches::Bind;
        spec.regulations.clock_authority = ClockAuthority::Board;
        let json = encode_spec(&spec);
        assert!(
            json.contains("\"sensed_touches\":\"Bind\"") && json.contains("\"clock_authority\":\"Board\"")
        );
        assert_eq!(decode_spec(FORMAT, &json).unwrap(), spec);
    }

    #[test]
    fn the_rulings_revision_is_stored_only_when_it_is_not_the_first() {
        use arbiter_laws::regulations::Regulations;
        const CURRENT: u32 = Regulations::CURRENT_RULINGS;
        use arbiter_laws::time_control::TimeControl;
        let player = |name: &str| PlayerSpec { name: name.into(), fide_id: String::new() };
        let spec = GameSpec {
            event: "Open".into(),
            round: "1".into(),
            white: player("W"),
            black: player("B"),
            regulations: Regulations::new(TimeControl::parse_human("90+30").unwrap()),
        };
        // A new game is judged by the current revision, stored with it.
        assert_eq!(spec.regulations.rulings_revision, CURRENT);
        let json = encode_spec(&spec);
        assert!(json.contains(&format!("\"rulings_revision\":{CURRENT}")), "{json}");
        assert_eq!(decode_spec(1, &json).unwrap(), spec);
        // A row written before revisions existed has none: revision 1, and it
        // re-encodes to the same bytes.
        let old = json.replace(&format!(",\"rulings_revision\":{CURRENT}"), "");
        assert_ne!(old, json);
        let read = decode_spec(1, &old).unwrap();
        assert_eq!(read.regulations.rulings_revision, 1);
        assert_eq!(encode_spec(&read), old);
    }

    #[test]
    fn a_newer_or_nonexistent_format_is_refused_not_misread() {
        let json = encode_event(&Event::Tick);
        let newer = decode_event(FORMAT + 1, &json).unwrap_err();
        assert!(matches!(newer, FormatError::Newer { found } if found == FORMAT + 1), "{newer}");
        assert!(newer.to_string().contains("newer than this build reads"), "{newer}");
        assert!(matches!(decode_event(0, &json), Err(FormatError::Nonexistent(0))));
        assert!(matches!(decode_aftermath(FORMAT + 1, "{}"), Err(FormatError::Newer { .. })));
        assert!(matches!(decode_spec(FORMAT + 7, "{}"), Err(FormatError::Newer { .. })));
    }

    #[test]
    fn unreadable_payloads_say_what_is_wrong() {
        assert!(matches!(decode_event(1, "{\"Tock\":null}"), Err(FormatError::Json(_))));
        let bad_square = r#"{"Touch":{"color":"white","square":"z9","kind":"Intent"}}"#;
        let e = decode_event(1, bad_square).unwrap_err();
        assert!(e.to_string().contains("z9"), "{e}");
        let bad_rule = r#"{"rulings":[{"rule":"FIDE-99","decision":"ClocksPaused"}],"clocks":{"white_ms":0,"black_ms":0,"running":null,"paused":true,"white_moves":0,"black_moves":0},"fen":"x"}"#;
        let e = decode_aftermath(1, bad_rule).unwrap_err();
        assert!(e.to_string().contains("FIDE-99"), "{e}");
    }

    #[test]
    fn obligations_are_written_as_played() {
        let pos = arbiter_chess::Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let e1: Square = "e1".parse().unwrap();
        let h1: Square = "h1".parse().unwrap();
        // 4.4.1: king then rook binds the player to castle on that side.
        let o = arbiter_laws::touch::obligation(&pos, &[e1, h1]).unwrap();
        let view = super::ObligationView::new(&o, &pos);
        assert_eq!(view.color, Color::White);
        assert_eq!(view.allowed_uci, ["e1g1"]);
        assert_eq!((view.rule, view.reason.as_str()), (o.rule, o.reason.as_str()));
    }
}
