//! Proof that the stated names and facts are what the reflection over the
//! Laws' serde form produced before (the oracle below is that code, kept
//! here unchanged), and that the summaries and colours are those convert.rs gave.

use arbiter_chess::{Color, Piece, Role, Square};
use arbiter_laws::event::{
    Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SensedTouch, SetupError, TouchKind,
    Withdrawal,
};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause, GameEnd, GameResult};
use arbiter_laws::scoring::{Score, ScoreAdjustment, ScoreAdjustmentKind};

use Color::{Black, White};

// ---------------------------------------------------------------------------
// Samples
// ---------------------------------------------------------------------------

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn mv(from: &str, to: &str, promotion: Option<Role>, castle: bool) -> MoveInput {
    MoveInput { from: sq(from), to: sq(to), promotion, castle }
}

const ROLES: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

fn setup_errors() -> Vec<SetupError> {
    vec![
        SetupError::WrongInitialPosition,
        SetupError::BoardWronglyOriented,
        SetupError::ColoursReversed,
        SetupError::KingMisplaced { color: White },
        SetupError::KingMisplaced { color: Black },
        SetupError::RookMisplaced { square: sq("h1") },
        SetupError::RookMisplaced { square: sq("a8") },
    ]
}

fn game_results() -> Vec<GameResult> {
    vec![
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::WhiteWinsByForfeit,
        GameResult::BlackWinsByForfeit,
        GameResult::DoubleForfeit,
        GameResult::BothLose,
        GameResult::Adjusted { white: Score::Draw, black: Score::Loss },
        GameResult::Adjusted { white: Score::Loss, black: Score::Win },
        GameResult::Annulled,
    ]
}

fn game_over(
    result: GameResult,
    armageddon_winner: Option<Color>,
    board_result: Option<GameResult>,
) -> Decision {
    Decision::GameOver(GameEnd {
        result,
        reason: "checkmate".to_owned(),
        rule: RuleId::Fide5_1_1,
        cause: EndCause::Checkmate,
        armageddon_winner,
        board_result,
    })
}

/// At least one sample of every decision, every optional field absent and
/// present, and every value of the enums inside a decision.
fn decisions() -> Vec<Decision> {
    let mut all = vec![
        Decision::GameStarted { white_ms: 5_400_000, black_ms: 5_340_000 },
        Decision::MoveMade { color: White, san: "e4".into(), uci: "e2e4".into(), ply: 1 },
        Decision::MoveMade { color: Black, san: "O-O".into(), uci: "e8g8".into(), ply: 10 },
        Decision::MoveCompleted { color: White, used_ms: 12_345, bonus_ms: 30_000, remaining_ms: 5_387_000 },
        Decision::MoveCompleted { color: Black, used_ms: 0, bonus_ms: 0, remaining_ms: -200 },
        Decision::PremoveQueued { color: Black, uci: "e7e5".into() },
        Decision::PremoveDropped { color: White, uci: "e7e8q".into() },
        Decision::Obligation {
            color: White,
            allowed: vec!["e2e3".into(), "e2e4".into()],
            reason: "the pawn on e2 was touched".into(),
        },
        Decision::Obligation { color: Black, allowed: vec!["g8f6".into()], reason: "knight".into() },
        Decision::Obligation { color: Black, allowed: vec![], reason: "nothing to move".into() },
        Decision::IllegalMoveNotCompleted { color: White, description: "Ke1-e3".into() },
        Decision::IllegalMove { color: Black, count: 1, description: "Ke8-e6".into() },
        Decision::IllegalMove { color: White, count: 2, description: "Nb1-b3".into() },
        Decision::IllegalMoveNotActedOn { color: Black, description: "Qd8xh4".into() },
        Decision::IllegalMoveClaimed { color: White, description: "Qd8xh4".into() },
        Decision::IllegalMoveStands { color: Black, description: "Qd8xh4".into() },
        Decision::IllegalPositionObserved { description: "a pawn on h8".into() },
        Decision::IllegalPositionCleared { in_check: None },
        Decision::IllegalPositionCleared { in_check: Some(Black) },
        Decision::ClockAdjusted { color: White, delta_ms: 120_000, remaining_ms: 300_000 },
        Decision::ClockAdjusted { color: Black, delta_ms: -30_000, remaining_ms: 60_000 },
        Decision::ClockSet { color: White, remaining_ms: 9_999 },
        Decision::MoveCounterSet { color: Black, moves_completed: 40 },
        Decision::TimeControlInstalled { time_control: "40/5400+30:1800+30".into() },
        Decision::ClocksPaused,
        Decision::ClocksResumed,
        Decision::ClockResumedAfterOutage { outage_ms: 4_000 },
        Decision::Warning { color: Black, reason: "distracting the opponent".into() },
        Decision::DrawOffered { color: White, ply: 30 },
        Decision::DrawOfferLapsed { color: Black, reason: "White moved".into() },
        Decision::DrawOfferDeclined { color: White },
        Decision::ClaimIncorrect { color: White, reason: "the position appeared twice".into() },
        Decision::PlayerArrived { color: Black },
        Decision::Disconnected { color: White },
        Decision::Reconnected { color: Black },
        Decision::QuestionOpened { id: 3, question: "Can Black win?".into(), default: "play on".into() },
        Decision::QuestionAnswered { id: 3, answer: "Accept".into() },
        Decision::PositionReinstated {
            ply: 12,
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
        },
        Decision::IncrementIntroduced { increment_ms: 5_000 },
        Decision::ScorePenalty {
            adjustment: ScoreAdjustment { offender: White, kind: ScoreAdjustmentKind::RaiseOpponentScore },
        },
        Decision::ScorePenalty {
            adjustment: ScoreAdjustment { offender: Black, kind: ScoreAdjustmentKind::ReduceScore },
        },
    ];
    for error in setup_errors() {
        all.push(Decision::SetupErrorStands { error, note: "play continues".into() });
    }
    for result in game_results() {
        all.push(game_over(result, None, None));
    }
    for board in game_results() {
        let adjusted = GameResult::Adjusted { white: Score::Draw, black: Score::Loss };
        all.push(game_over(adjusted, Some(Black), Some(board)));
    }
    all.push(game_over(GameResult::BlackWins, Some(White), None));
    all.extend([
        Decision::TouchSensed {
            color: White,
            square: sq("g1"),
            sensed: SensedTouch::FirstLift,
            binding: false,
            would_allow: vec!["Nf3".into(), "Nh3".into()],
        },
        Decision::TouchSensed {
            color: Black,
            square: sq("e4"),
            sensed: SensedTouch::OpponentPiece,
            binding: true,
            would_allow: vec![],
        },
        Decision::TouchSensed {
            color: White,
            square: sq("a1"),
            sensed: SensedTouch::LiftAndReplace,
            binding: false,
            would_allow: vec![],
        },
    ]);
    all
}

/// At least one sample of every event, every optional field absent and
/// present, and every value of the enums inside an event.
fn events() -> Vec<Event> {
    let mut all = vec![
        Event::AnnounceAdjust { color: White },
        Event::Touch { color: White, square: sq("e2"), kind: TouchKind::Intent },
        Event::Touch { color: Black, square: sq("g8"), kind: TouchKind::Adjust },
        Event::Touch { color: White, square: sq("a1"), kind: TouchKind::Accidental },
        Event::SimultaneousTouch { color: White, own: sq("g1"), opponent: sq("d5") },
        Event::MakeMove { color: White, mv: mv("e2", "e4", None, false) },
        Event::MakeMove { color: Black, mv: mv("b2", "a1", Some(Role::Knight), false) },
        Event::MakeMove { color: White, mv: mv("e1", "g1", None, true) },
        Event::CastlingKingReleased { color: White, to: sq("g1") },
        Event::UsedTwoHands { color: Black },
        Event::PressClock { color: Black, other_hand: false },
        Event::PressClock { color: White, other_hand: true },
        Event::SubmitMove {
            color: White,
            mv: mv("e7", "e8", Some(Role::Queen), false),
            premove: true,
            lag_ms: 40,
        },
        Event::SubmitMove { color: Black, mv: mv("d7", "d5", None, false), premove: false, lag_ms: 0 },
        Event::SubmitMove { color: Black, mv: mv("e8", "h8", None, true), premove: false, lag_ms: 1_250 },
        Event::Disconnect { color: White },
        Event::Reconnect { color: Black },
        Event::OfferDraw { color: White },
        Event::AcceptDraw { color: Black },
        Event::DeclineDraw { color: White },
        Event::ClaimDraw { color: White, kind: ClaimKind::Threefold, intended: None },
        Event::ClaimDraw {
            color: Black,
            kind: ClaimKind::FiftyMoves,
            intended: Some(mv("a2", "a1", Some(Role::Rook), false)),
        },
        Event::ClaimDraw {
            color: White,
            kind: ClaimKind::Threefold,
            intended: Some(mv("e1", "c1", None, true)),
        },
        Event::Resign { color: Black },
        Event::ClaimIllegalMove { color: White },
        Event::PlayerArrived { color: Black },
        Event::RequestIncrement { color: White },
        Event::ClaimNoWinningAttempt { color: White },
        Event::ClaimNoWinningAttempt { color: Black },
        Event::Tick,
        Event::Start,
        Event::PauseClocks,
        Event::ResumeClocks,
        Event::AdjustClock { color: White, delta_ms: 120_000 },
        Event::AdjustClock { color: Black, delta_ms: -30_000 },
        Event::SetClock { color: Black, remaining_ms: 65_000 },
        Event::SetMoveCounter { color: White, moves_completed: 39 },
        Event::InstallTimeControl {
            time_control: arbiter_laws::time_control::TimeControl::from_pgn("40/5400+30:1800+30").unwrap(),
        },
        Event::Penalty { color: White, kind: PenaltyKind::Warning },
        Event::Penalty { color: Black, kind: PenaltyKind::AddTimeToOpponent(120_000) },
        Event::Penalty { color: White, kind: PenaltyKind::DeductTime(60_000) },
        Event::Penalty { color: Black, kind: PenaltyKind::RaiseOpponentScore },
        Event::Penalty { color: White, kind: PenaltyKind::ReduceScore },
        Event::Penalty { color: Black, kind: PenaltyKind::DeclareLost },
        Event::ReinstatePosition { ply: 0 },
        Event::ReinstatePosition { ply: 7 },
        Event::DeclareResult { result: DeclaredResult::WhiteWins },
        Event::DeclareResult { result: DeclaredResult::BlackWins },
        Event::DeclareResult { result: DeclaredResult::Draw },
        Event::DeclareResult { result: DeclaredResult::BothLose },
        Event::DeviceFound { color: Black },
        Event::AnswerQuestion { id: 1, answer: Answer::Default },
        Event::AnswerQuestion { id: 2, answer: Answer::Accept },
        Event::AnswerQuestion { id: 3, answer: Answer::Reject },
        Event::AnswerQuestion { id: 4, answer: Answer::Postpone },
        Event::ServiceResumed { outage_ms: 93_000 },
        Event::Withdraw { reason: Withdrawal::Cancelled },
        Event::Withdraw { reason: Withdrawal::Expired },
    ];
    for (i, role) in ROLES.into_iter().enumerate() {
        let color = if i % 2 == 0 { White } else { Black };
        all.push(Event::PromotionPieceTouched { color, role });
    }
    for error in setup_errors() {
        all.push(Event::SetupErrorFound { error });
    }
    all.extend([
        Event::TouchSensed {
            square: sq("g1"),
            piece: Piece { color: White, role: Role::Knight },
            sensed: SensedTouch::FirstLift,
        },
        Event::TouchSensed {
            square: sq("d5"),
            piece: Piece { color: Black, role: Role::Pawn },
            sensed: SensedTouch::OpponentPiece,
        },
        Event::TouchSensed {
            square: sq("a1"),
            piece: Piece { color: White, role: Role::Rook },
            sensed: SensedTouch::LiftAndReplace,
        },
        Event::BoardClockReading { white_ms: 61_000, black_ms: 0 },
    ]);
    all
}

// ---------------------------------------------------------------------------
// What convert.rs said before the descriptions moved here
// ---------------------------------------------------------------------------

/// The summary and colour of each of [`decisions`], in order, as
/// `convert::ruling_to_proto` gave them before this module existed
/// (recorded from commit 5e1a2b7).
const DECISION_SUMMARIES: &[(&str, Option<Color>)] = &[
    ("The game started: White 1:30:00, Black 1:29:00; White's clock runs", None),
    ("White made the move e4 (e2e4, ply 1)", Some(White)),
    ("Black made the move O-O (e8g8, ply 10)", Some(Black)),
    ("White completed a move: 12.3 s used, 30.0 s added, 1:29:47 left", Some(White)),
    ("Black completed a move: 0.0 s used, 0.0 s added, -0:00.2 left", Some(Black)),
    ("Black's premove e7e5 is queued", Some(Black)),
    ("White's premove e7e8q was not legal when its turn came and is dropped", Some(White)),
    ("Touch-move binds White: the pawn on e2 was touched; allowed: e2e3, e2e4", Some(White)),
    ("Touch-move binds Black: knight; allowed: g8f6", Some(Black)),
    ("Touch-move binds Black: nothing to move; allowed: ", Some(Black)),
    ("Illegal move by White, not completed: Ke1-e3; it may still be corrected", Some(White)),
    ("Illegal move by Black (1st): Ke8-e6; the position before it is reinstated", Some(Black)),
    ("Illegal move by White (2nd): Nb1-b3; the position before it is reinstated", Some(White)),
    ("Illegal move by Black, completed and not acted on: Qd8xh4", Some(Black)),
    ("White claims the illegal move Qd8xh4", Some(White)),
    ("Black's illegal move Qd8xh4 stands", Some(Black)),
    ("Illegal position: a pawn on h8", None),
    ("The position is no longer illegal", None),
    ("The position is no longer illegal; Black must get out of check", Some(Black)),
    ("White's clock: 2:00 added, 5:00 left", Some(White)),
    ("Black's clock: 30.0 s removed, 1:00 left", Some(Black)),
    ("White's clock set to 0:09.9", Some(White)),
    ("Black's move counter on the clock: 40 moves completed", Some(Black)),
    ("The clock is set to the time control 40/5400+30:1800+30", None),
    ("The clocks are paused", None),
    ("The clocks are resumed", None),
    ("The clock resumed after the service was down for 4.0 s; that time is charged to neither player", None),
    ("Black is warned: distracting the opponent", Some(Black)),
    ("White offers a draw (after ply 30)", Some(White)),
    ("Black's draw offer lapsed: White moved", Some(Black)),
    ("White declined the draw offer", Some(White)),
    ("White's claim is incorrect: the position appeared twice", Some(White)),
    ("Black is at the board", Some(Black)),
    ("White is disconnected", Some(White)),
    ("Black is reconnected", Some(Black)),
    ("Question 3 for the arbiter: Can Black win?; until answered: play on", None),
    ("The arbiter answered question 3: accept", None),
    (
        "The position before ply 12 is reinstated (rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1)",
        None,
    ),
    ("An increment of 5.0 s per move now applies to both players", None),
    ("Score penalty against White: the opponent's score is raised to the maximum (12.9.4)", Some(White)),
    ("Score penalty against Black: the offender's score is reduced (12.9.5)", Some(Black)),
    ("Set-up error (wrong initial position (7.2.1)) stands: play continues", None),
    ("Set-up error (board wrongly oriented (7.2.2)) stands: play continues", None),
    ("Set-up error (colours reversed (7.3)) stands: play continues", None),
    (
        "Set-up error (White king misplaced in the initial position (7.2.1, A.5.1.2)) stands: play continues",
        None,
    ),
    (
        "Set-up error (Black king misplaced in the initial position (7.2.1, A.5.1.2)) stands: play continues",
        None,
    ),
    (
        "Set-up error (rook starting on h1 misplaced in the initial position (7.2.1, A.5.1.2)) stands: play continues",
        None,
    ),
    (
        "Set-up error (rook starting on a8 misplaced in the initial position (7.2.1, A.5.1.2)) stands: play continues",
        None,
    ),
    ("Game over: 1-0 (checkmate)", None),
    ("Game over: 0-1 (checkmate)", None),
    ("Game over: 1/2-1/2 (checkmate)", None),
    ("Game over: +/- (checkmate)", None),
    ("Game over: -/+ (checkmate)", None),
    ("Game over: -/- (checkmate)", None),
    ("Game over: 0-0 (checkmate)", None),
    ("Game over: 1/2-0 (checkmate)", None),
    ("Game over: 0-1 (checkmate)", None),
    ("Game over: * (checkmate)", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 1/2-0 (checkmate); Black wins the Armageddon match", None),
    ("Game over: 0-1 (checkmate); White wins the Armageddon match", None),
    (
        "The board sensed a first lift on g1 (White has the move): evidence for the arbiter; ruled a touch it \
         would bind to Nf3, Nh3",
        Some(White),
    ),
    (
        "The board sensed a lift of an opponent's piece on e4 (Black has the move): ruled a touch (the event's \
         regulations bind sensed touches)",
        Some(Black),
    ),
    (
        "The board sensed a lift and put back on a1 (White has the move): evidence for the arbiter; ruled a \
         touch it would bind to no move in particular",
        Some(White),
    ),
];

/// The summary of each of [`events`], in order, as
/// `convert::event_to_proto_parts` gave it before this module existed
/// (recorded from commit 5e1a2b7).
const EVENT_SUMMARIES: &[&str] = &[
    "White says \"I adjust\"",
    "White touches the piece on e2",
    "Black adjusts the piece on g8",
    "White touches the piece on a1 accidentally",
    "White touches the piece on g1 and the opponent's piece on d5 at the same time (4.3.3: the own piece counts as touched first)",
    "White moves e2e4",
    "Black moves b2a1n",
    "White moves e1g1 (castling)",
    "White releases the king on g1 to castle",
    "Black made the move with two hands",
    "Black presses the clock",
    "White presses the clock with the other hand",
    "White premoves e7e8q, lag 40 ms",
    "Black plays d7d5",
    "Black plays e8h8 (castling), lag 1250 ms",
    "White's connection is lost",
    "Black reconnects",
    "White offers a draw",
    "Black accepts the draw offer",
    "White declines the draw offer",
    "White claims a draw by threefold repetition",
    "Black claims a draw by the fifty-move rule, with the intended move a2a1r",
    "White claims a draw by threefold repetition, with the intended move e1c1",
    "Black resigns",
    "White claims an illegal move",
    "Black arrives at the board",
    "White asks for a 5-second increment for both players (Guidelines III.4)",
    "White claims that Black cannot win by normal means (Guidelines III.5)",
    "Black claims that White cannot win by normal means (Guidelines III.5)",
    "Time check",
    "Arbiter starts the game",
    "Arbiter pauses the clocks",
    "Arbiter resumes the clocks",
    "Arbiter adds 2:00 to White's clock",
    "Arbiter removes 30.0 s from Black's clock",
    "Arbiter sets Black's clock to 1:05",
    "Arbiter sets White's move counter to 39 moves completed",
    "Arbiter installs the time control 40/5400+30:1800+30",
    "Arbiter warns White",
    "Arbiter penalises Black: 2:00 added to White's clock",
    "Arbiter penalises White: 1:00 deducted from White's clock",
    "Arbiter penalises Black: White's score raised to the maximum",
    "Arbiter penalises White: White's score reduced",
    "Arbiter declares the game lost by Black",
    "Arbiter reinstates the starting position",
    "Arbiter reinstates the position before ply 7",
    "Arbiter declares the result 1-0",
    "Arbiter declares the result 0-1",
    "Arbiter declares the result 1/2-1/2",
    "Arbiter declares the result 0-0 (both lose)",
    "Arbiter finds an electronic device on Black",
    "Arbiter answers question 1: apply the default",
    "Arbiter answers question 2: accept",
    "Arbiter answers question 3: reject",
    "Arbiter answers question 4: postpone",
    "The service resumed after 1:33 down; that time is not charged",
    "The game is cancelled before it started; it has no result",
    "The game expired: it was not started in time; it has no result",
    "White places a pawn on the promotion square",
    "Black places a knight on the promotion square",
    "White places a bishop on the promotion square",
    "Black places a rook on the promotion square",
    "White places a queen on the promotion square",
    "Black places a king on the promotion square",
    "Arbiter finds a set-up error: wrong initial position (7.2.1)",
    "Arbiter finds a set-up error: board wrongly oriented (7.2.2)",
    "Arbiter finds a set-up error: colours reversed (7.3)",
    "Arbiter finds a set-up error: White king misplaced in the initial position (7.2.1, A.5.1.2)",
    "Arbiter finds a set-up error: Black king misplaced in the initial position (7.2.1, A.5.1.2)",
    "Arbiter finds a set-up error: rook starting on h1 misplaced in the initial position (7.2.1, A.5.1.2)",
    "Arbiter finds a set-up error: rook starting on a8 misplaced in the initial position (7.2.1, A.5.1.2)",
    "The board senses the White knight on g1 lifted, the first piece lifted in this position",
    "The board senses the Black pawn on d5 lifted, a piece of the player not having the move",
    "The board senses the White rook on a1 lifted and put back",
    "The board's clock shows White 1:01, Black 0:00.0",
];

// ---------------------------------------------------------------------------
// The oracle: the reflection convert.rs used before (commit 5e1a2b7),
// unchanged but for its GameOver special case gathered into `old_decision`
// ---------------------------------------------------------------------------

mod oracle {
    use std::collections::HashMap;

    use arbiter_laws::event::Event;
    use arbiter_laws::ruling::Decision;
    use serde_json::Value;

    use super::super::game_result_text;

    /// The name and facts `ruling_to_proto` gave a decision.
    pub(super) fn old_decision(d: &Decision) -> (String, HashMap<String, String>) {
        let (name, mut facts) = variant_parts(to_value(d));
        if let Decision::GameOver(end) = d {
            // The serde form of a result is an enum name; the API speaks the
            // notation of the crosstable.
            facts.retain(|k, _| !k.starts_with("result."));
            // The typed cause is for code; the API states the end by its
            // reason and rule, as before the cause existed.
            facts.remove("cause");
            facts.insert("result".to_owned(), game_result_text(end.result));
        }
        (upper_snake(&name), facts)
    }

    /// The name and details `event_to_proto_parts` gave an event.
    pub(super) fn old_event(e: &Event) -> (String, HashMap<String, String>) {
        let (name, details) = variant_parts(to_value(e));
        (upper_snake(&name), details)
    }

    /// `MoveCompleted` → `MOVE_COMPLETED`. A run of capitals is one word
    /// (`OCRRule` → `OCR_RULE`), and a digit after a letter does not split.
    pub(super) fn upper_snake(name: &str) -> String {
        let chars: Vec<char> = name.chars().collect();
        let mut out = String::with_capacity(name.len() + 4);
        for (i, &c) in chars.iter().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push('_');
                }
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }

    /// The variant name and the flattened fields of an externally tagged enum
    /// value as serde writes it: a unit variant is a string, a struct or newtype
    /// variant an object with one key.
    fn variant_parts(value: Value) -> (String, HashMap<String, String>) {
        let mut facts = HashMap::new();
        match value {
            Value::String(name) => (name, facts),
            Value::Object(map) if map.len() == 1 => {
                let (name, inner) = map.into_iter().next().unwrap_or_default();
                match inner {
                    // A struct variant, or a newtype variant around a struct:
                    // the fields are the facts.
                    Value::Object(fields) => {
                        for (k, v) in fields {
                            flatten_into(&mut facts, k, v);
                        }
                    }
                    other => flatten_into(&mut facts, "value".to_owned(), other),
                }
                (name, facts)
            }
            // Not an enum (cannot happen for the types converted here): keep
            // the whole value rather than lose it.
            other => {
                flatten_into(&mut facts, "value".to_owned(), other);
                ("UNKNOWN".to_owned(), facts)
            }
        }
    }

    /// Adds `value` under `key`: scalars as text, arrays joined with spaces,
    /// objects under dotted keys. A nested enum with data (`{"DeductTime":
    /// 60000}`) gives its variant name under `key` and the data under
    /// `key.value` (or `key.field`). Nulls are left out: an absent optional
    /// fact is simply not listed.
    fn flatten_into(facts: &mut HashMap<String, String>, key: String, value: Value) {
        match value {
            Value::Null => {}
            Value::Bool(b) => {
                facts.insert(key, b.to_string());
            }
            Value::Number(n) => {
                facts.insert(key, n.to_string());
            }
            Value::String(s) => {
                facts.insert(key, s);
            }
            Value::Array(items) => {
                let parts: Vec<String> = items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    })
                    .collect();
                facts.insert(key, parts.join(" "));
            }
            Value::Object(map) => {
                let enum_like =
                    map.len() == 1 && map.keys().all(|k| k.starts_with(|c: char| c.is_ascii_uppercase()));
                if enum_like {
                    let (variant, inner) = map.into_iter().next().unwrap_or_default();
                    match inner {
                        Value::Object(fields) => {
                            for (k, v) in fields {
                                flatten_into(facts, format!("{key}.{k}"), v);
                            }
                        }
                        other => flatten_into(facts, format!("{key}.value"), other),
                    }
                    facts.insert(key, variant);
                } else {
                    for (k, v) in map {
                        flatten_into(facts, format!("{key}.{k}"), v);
                    }
                }
            }
        }
    }

    /// The serde value of a domain value; these types serialise to JSON without
    /// fail (string keys, no custom errors), so a failure becomes `null`.
    fn to_value<T: serde::Serialize>(value: &T) -> Value {
        serde_json::to_value(value).unwrap_or(Value::Null)
    }
}

// ---------------------------------------------------------------------------
// Every variant has a sample
// ---------------------------------------------------------------------------

// Each `*_variant` function numbers the variants of one enum in a match
// without `_`: a new variant does not compile until it has a number. Give
// it the next one, raise the count beside the function, and add samples.

const DECISION_VARIANTS: usize = 36;
fn decision_variant(d: &Decision) -> usize {
    match d {
        Decision::GameStarted { .. } => 0,
        Decision::MoveMade { .. } => 1,
        Decision::MoveCompleted { .. } => 2,
        Decision::PremoveQueued { .. } => 3,
        Decision::PremoveDropped { .. } => 4,
        Decision::Obligation { .. } => 5,
        Decision::IllegalMoveNotCompleted { .. } => 6,
        Decision::IllegalMove { .. } => 7,
        Decision::IllegalMoveNotActedOn { .. } => 8,
        Decision::IllegalMoveClaimed { .. } => 9,
        Decision::IllegalMoveStands { .. } => 10,
        Decision::IllegalPositionObserved { .. } => 11,
        Decision::IllegalPositionCleared { .. } => 12,
        Decision::ClockAdjusted { .. } => 13,
        Decision::ClockSet { .. } => 14,
        Decision::ClocksPaused => 15,
        Decision::ClocksResumed => 16,
        Decision::ClockResumedAfterOutage { .. } => 17,
        Decision::Warning { .. } => 18,
        Decision::DrawOffered { .. } => 19,
        Decision::DrawOfferLapsed { .. } => 20,
        Decision::DrawOfferDeclined { .. } => 21,
        Decision::ClaimIncorrect { .. } => 22,
        Decision::PlayerArrived { .. } => 23,
        Decision::Disconnected { .. } => 24,
        Decision::Reconnected { .. } => 25,
        Decision::QuestionOpened { .. } => 26,
        Decision::QuestionAnswered { .. } => 27,
        Decision::PositionReinstated { .. } => 28,
        Decision::IncrementIntroduced { .. } => 29,
        Decision::SetupErrorStands { .. } => 30,
        Decision::ScorePenalty { .. } => 31,
        Decision::GameOver(_) => 32,
        Decision::MoveCounterSet { .. } => 33,
        Decision::TimeControlInstalled { .. } => 34,
        Decision::TouchSensed { .. } => 35,
    }
}

const EVENT_VARIANTS: usize = 38;
fn event_variant(e: &Event) -> usize {
    match e {
        Event::AnnounceAdjust { .. } => 0,
        Event::Touch { .. } => 1,
        Event::PromotionPieceTouched { .. } => 2,
        Event::MakeMove { .. } => 3,
        Event::CastlingKingReleased { .. } => 4,
        Event::UsedTwoHands { .. } => 5,
        Event::PressClock { .. } => 6,
        Event::SubmitMove { .. } => 7,
        Event::Disconnect { .. } => 8,
        Event::Reconnect { .. } => 9,
        Event::OfferDraw { .. } => 10,
        Event::AcceptDraw { .. } => 11,
        Event::DeclineDraw { .. } => 12,
        Event::ClaimDraw { .. } => 13,
        Event::Resign { .. } => 14,
        Event::ClaimIllegalMove { .. } => 15,
        Event::PlayerArrived { .. } => 16,
        Event::RequestIncrement { .. } => 17,
        Event::ClaimNoWinningAttempt { .. } => 18,
        Event::Tick => 19,
        Event::Start => 20,
        Event::PauseClocks => 21,
        Event::ResumeClocks => 22,
        Event::AdjustClock { .. } => 23,
        Event::SetClock { .. } => 24,
        Event::Penalty { .. } => 25,
        Event::ReinstatePosition { .. } => 26,
        Event::DeclareResult { .. } => 27,
        Event::DeviceFound { .. } => 28,
        Event::AnswerQuestion { .. } => 29,
        Event::SetupErrorFound { .. } => 30,
        Event::ServiceResumed { .. } => 31,
        Event::SimultaneousTouch { .. } => 32,
        Event::SetMoveCounter { .. } => 33,
        Event::InstallTimeControl { .. } => 34,
        Event::Withdraw { .. } => 35,
        Event::TouchSensed { .. } => 36,
        Event::BoardClockReading { .. } => 37,
    }
}

const SETUP_ERROR_VARIANTS: usize = 5;
fn setup_error_variant(e: &SetupError) -> usize {
    match e {
        SetupError::WrongInitialPosition => 0,
        SetupError::BoardWronglyOriented => 1,
        SetupError::ColoursReversed => 2,
        SetupError::KingMisplaced { .. } => 3,
        SetupError::RookMisplaced { .. } => 4,
    }
}

const GAME_RESULT_VARIANTS: usize = 9;
fn game_result_variant(r: &GameResult) -> usize {
    match r {
        GameResult::WhiteWins => 0,
        GameResult::BlackWins => 1,
        GameResult::Draw => 2,
        GameResult::WhiteWinsByForfeit => 3,
        GameResult::BlackWinsByForfeit => 4,
        GameResult::DoubleForfeit => 5,
        GameResult::BothLose => 6,
        GameResult::Adjusted { .. } => 7,
        GameResult::Annulled => 8,
    }
}

const SCORE_VARIANTS: usize = 3;
fn score_variant(s: &Score) -> usize {
    match s {
        Score::Win => 0,
        Score::Draw => 1,
        Score::Loss => 2,
    }
}

const SCORE_ADJUSTMENT_KIND_VARIANTS: usize = 2;
fn score_adjustment_kind_variant(k: &ScoreAdjustmentKind) -> usize {
    match k {
        ScoreAdjustmentKind::RaiseOpponentScore => 0,
        ScoreAdjustmentKind::ReduceScore => 1,
    }
}

const TOUCH_KIND_VARIANTS: usize = 3;
fn touch_kind_variant(k: &TouchKind) -> usize {
    match k {
        TouchKind::Intent => 0,
        TouchKind::Adjust => 1,
        TouchKind::Accidental => 2,
    }
}

const ROLE_VARIANTS: usize = 6;
fn role_variant(r: &Role) -> usize {
    match r {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

const CLAIM_KIND_VARIANTS: usize = 2;
fn claim_kind_variant(k: &ClaimKind) -> usize {
    match k {
        ClaimKind::Threefold => 0,
        ClaimKind::FiftyMoves => 1,
    }
}

const PENALTY_KIND_VARIANTS: usize = 6;
fn penalty_kind_variant(k: &PenaltyKind) -> usize {
    match k {
        PenaltyKind::Warning => 0,
        PenaltyKind::AddTimeToOpponent(_) => 1,
        PenaltyKind::DeductTime(_) => 2,
        PenaltyKind::RaiseOpponentScore => 3,
        PenaltyKind::ReduceScore => 4,
        PenaltyKind::DeclareLost => 5,
    }
}

const DECLARED_RESULT_VARIANTS: usize = 4;
fn declared_result_variant(r: &DeclaredResult) -> usize {
    match r {
        DeclaredResult::WhiteWins => 0,
        DeclaredResult::BlackWins => 1,
        DeclaredResult::Draw => 2,
        DeclaredResult::BothLose => 3,
    }
}

const ANSWER_VARIANTS: usize = 4;
fn answer_variant(a: &Answer) -> usize {
    match a {
        Answer::Default => 0,
        Answer::Accept => 1,
        Answer::Reject => 2,
        Answer::Postpone => 3,
    }
}

/// Asserts that the samples `values` of one enum, numbered by `variant`,
/// include every one of its `count` variants.
fn assert_covers<T>(what: &str, count: usize, values: &[T], variant: fn(&T) -> usize) {
    let mut seen = vec![false; count];
    for v in values {
        let i = variant(v);
        assert!(i < count, "{what}: variant number {i}, but the count is {count}: raise it");
        seen[i] = true;
    }
    let missing: Vec<usize> = (0..count).filter(|&i| !seen[i]).collect();
    assert!(missing.is_empty(), "{what}: no sample of the variants numbered {missing:?}");
}

/// Asserts that the samples hold `what` both absent and present.
fn assert_both<T>(what: &str, values: &[Option<T>]) {
    assert!(values.iter().any(Option::is_none), "{what}: no sample without it");
    assert!(values.iter().any(Option::is_some), "{what}: no sample with it");
}

#[test]
fn the_samples_cover_every_variant_and_option() {
    let decisions = decisions();
    assert_covers("Decision", DECISION_VARIANTS, &decisions, decision_variant);
    let setup_errors: Vec<SetupError> = decisions
        .iter()
        .filter_map(|d| match d {
            Decision::SetupErrorStands { error, .. } => Some(*error),
            _ => None,
        })
        .collect();
    assert_covers("SetupErrorStands.error", SETUP_ERROR_VARIANTS, &setup_errors, setup_error_variant);
    let adjustments: Vec<ScoreAdjustmentKind> = decisions
        .iter()
        .filter_map(|d| match d {
            Decision::ScorePenalty { adjustment } => Some(adjustment.kind),
            _ => None,
        })
        .collect();
    let (kinds, variant) = (SCORE_ADJUSTMENT_KIND_VARIANTS, score_adjustment_kind_variant);
    assert_covers("ScorePenalty.adjustment.kind", kinds, &adjustments, variant);
    let in_check: Vec<Option<Color>> = decisions
        .iter()
        .filter_map(|d| match d {
            Decision::IllegalPositionCleared { in_check } => Some(*in_check),
            _ => None,
        })
        .collect();
    assert_both("IllegalPositionCleared.in_check", &in_check);
    let ends: Vec<&GameEnd> = decisions
        .iter()
        .filter_map(|d| match d {
            Decision::GameOver(end) => Some(end),
            _ => None,
        })
        .collect();
    let results: Vec<GameResult> = ends.iter().map(|end| end.result).collect();
    assert_covers("GameEnd.result", GAME_RESULT_VARIANTS, &results, game_result_variant);
    let board_results: Vec<Option<GameResult>> = ends.iter().map(|end| end.board_result).collect();
    assert_both("GameEnd.board_result", &board_results);
    let board_results: Vec<GameResult> = board_results.into_iter().flatten().collect();
    assert_covers("GameEnd.board_result", GAME_RESULT_VARIANTS, &board_results, game_result_variant);
    for (what, results) in [("GameEnd.result", &results), ("GameEnd.board_result", &board_results)] {
        let scores: Vec<Score> = results
            .iter()
            .flat_map(|r| match r {
                GameResult::Adjusted { white, black } => vec![*white, *black],
                _ => vec![],
            })
            .collect();
        assert_covers(&format!("{what} Adjusted scores"), SCORE_VARIANTS, &scores, score_variant);
    }
    let winners: Vec<Option<Color>> = ends.iter().map(|end| end.armageddon_winner).collect();
    assert_both("GameEnd.armageddon_winner", &winners);

    let events = events();
    assert_covers("Event", EVENT_VARIANTS, &events, event_variant);
    let mut touches = Vec::new();
    let mut roles = Vec::new();
    let mut promotions = Vec::new();
    let mut claims = Vec::new();
    let mut intended = Vec::new();
    let mut penalties = Vec::new();
    let mut declared = Vec::new();
    let mut answers = Vec::new();
    let mut setup_errors = Vec::new();
    for e in &events {
        match e {
            Event::Touch { kind, .. } => touches.push(*kind),
            Event::PromotionPieceTouched { role, .. } => roles.push(*role),
            Event::MakeMove { mv, .. } | Event::SubmitMove { mv, .. } => promotions.push(mv.promotion),
            Event::ClaimDraw { kind, intended: i, .. } => {
                claims.push(*kind);
                intended.push(*i);
                promotions.extend(i.map(|mv| mv.promotion));
            }
            Event::Penalty { kind, .. } => penalties.push(*kind),
            Event::DeclareResult { result } => declared.push(*result),
            Event::AnswerQuestion { answer, .. } => answers.push(*answer),
            Event::SetupErrorFound { error } => setup_errors.push(*error),
            _ => {}
        }
    }
    assert_covers("Touch.kind", TOUCH_KIND_VARIANTS, &touches, touch_kind_variant);
    assert_covers("PromotionPieceTouched.role", ROLE_VARIANTS, &roles, role_variant);
    assert_both("MoveInput.promotion", &promotions);
    assert_covers("ClaimDraw.kind", CLAIM_KIND_VARIANTS, &claims, claim_kind_variant);
    assert_both("ClaimDraw.intended", &intended);
    assert_covers("Penalty.kind", PENALTY_KIND_VARIANTS, &penalties, penalty_kind_variant);
    assert_covers("DeclareResult.result", DECLARED_RESULT_VARIANTS, &declared, declared_result_variant);
    assert_covers("AnswerQuestion.answer", ANSWER_VARIANTS, &answers, answer_variant);
    assert_covers("SetupErrorFound.error", SETUP_ERROR_VARIANTS, &setup_errors, setup_error_variant);
}

// ---------------------------------------------------------------------------
// No change
// ---------------------------------------------------------------------------

#[test]
fn decision_names_and_facts_are_those_of_the_reflection() {
    for d in decisions() {
        let new = super::decision(&d);
        let (name, facts) = oracle::old_decision(&d);
        assert_eq!(new.name, name, "{d:?}");
        assert_eq!(new.facts, facts, "{d:?}");
    }
}

#[test]
fn event_names_and_facts_are_those_of_the_reflection() {
    for e in events() {
        let new = super::event(&e);
        let (name, facts) = oracle::old_event(&e);
        assert_eq!(new.name, name, "{e:?}");
        assert_eq!(new.facts, facts, "{e:?}");
    }
}

#[test]
fn decision_summaries_and_colors_are_unchanged() {
    let decisions = decisions();
    assert_eq!(decisions.len(), DECISION_SUMMARIES.len(), "one recorded summary per sample");
    for (d, &(summary, color)) in decisions.iter().zip(DECISION_SUMMARIES) {
        let new = super::decision(d);
        assert_eq!((new.summary.as_str(), new.color), (summary, color), "{d:?}");
    }
}

#[test]
fn event_summaries_are_unchanged() {
    let events = events();
    assert_eq!(events.len(), EVENT_SUMMARIES.len(), "one recorded summary per sample");
    for (e, &summary) in events.iter().zip(EVENT_SUMMARIES) {
        let new = super::event(e);
        assert_eq!((new.summary.as_str(), new.color), (summary, None), "{e:?}");
    }
}

#[test]
fn names_are_upper_snake_case() {
    let names = decisions()
        .iter()
        .map(|d| super::decision(d).name)
        .chain(events().iter().map(|e| super::event(e).name))
        .collect::<Vec<_>>();
    for name in names {
        assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{name}");
    }
}

#[test]
fn helpers() {
    assert_eq!(oracle::upper_snake("MoveCompleted"), "MOVE_COMPLETED");
    assert_eq!(oracle::upper_snake("GameOver"), "GAME_OVER");
    assert_eq!(oracle::upper_snake("Tick"), "TICK");
    assert_eq!(oracle::upper_snake("ClockResumedAfterOutage"), "CLOCK_RESUMED_AFTER_OUTAGE");
    assert_eq!(oracle::upper_snake("OCRRule"), "OCR_RULE");
    let ords: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(super::ordinal).to_vec();
    assert_eq!(ords, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
}
