//! The API's descriptions of the Laws' values: for each decision of a
//! ruling and each event, its name (`MOVE_COMPLETED`, `GAME_OVER`), a
//! summary sentence for people, the player concerned, and its facts for
//! programs (`color` = `white`, `mv.from` = `e2`, `kind.value` = `60000`).
//!
//! These names and facts are a contract of the API, stated here one variant
//! at a time. The Laws' type, variant and field names are not the API: a
//! rename in `arbiter-laws` must not change what clients read, so nothing
//! here is derived from the Laws' serde form, and every match lists every
//! variant (no `_`), so that a new decision or event is a compile error
//! here until its description is written.
//!
//! The facts keep the shape the API has always had: colours `white` and
//! `black`, numbers in decimal, lists joined with single spaces, booleans
//! `true`/`false`, squares `e4`, pieces `queen`, an absent optional value
//! left out, a nested record under dotted keys (`mv.from`), and a nested
//! choice as its name (`kind` = `DeductTime`, `error` = `KingMisplaced`)
//! with its data under `kind.value` or `error.color`. Those choice names
//! (`DeductTime`, `Threefold`, `WhiteWins`) are spelled as the Laws'
//! variants were when the API took them from the serde form; they are API
//! text now, and do not follow a rename in the Laws.

use std::collections::HashMap;

use arbiter_chess::{Color, Role, Square};
use arbiter_laws::event::{
    Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SensedTouch, SetupError, TouchKind,
    Withdrawal,
};
use arbiter_laws::ruling::{Decision, GameEnd, GameResult};
use arbiter_laws::scoring::{Score, ScoreAdjustment, ScoreAdjustmentKind};

/// What the API says about a decision or an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// UPPER_SNAKE_CASE, e.g. `MOVE_COMPLETED`, `GAME_OVER`.
    pub name: &'static str,
    /// One sentence for people.
    pub summary: String,
    /// The player concerned: for a decision, the player it is about (none
    /// for the game or both players); for an event always `None` (the API's
    /// event has no colour of its own: the player is its `color` fact).
    pub color: Option<Color>,
    /// Every fact, by key.
    pub facts: HashMap<String, String>,
}

/// The description of a ruling's decision.
pub fn decision(d: &Decision) -> Description {
    let facts = Facts::default();
    let (name, facts) = match d {
        Decision::GameStarted { white_ms, black_ms } => {
            ("GAME_STARTED", facts.number("white_ms", white_ms).number("black_ms", black_ms))
        }
        Decision::MoveMade { color, san, uci, ply } => {
            ("MOVE_MADE", facts.color("color", *color).text("san", san).text("uci", uci).number("ply", ply))
        }
        Decision::MoveCompleted { color, used_ms, bonus_ms, remaining_ms } => (
            "MOVE_COMPLETED",
            facts
                .color("color", *color)
                .number("used_ms", used_ms)
                .number("bonus_ms", bonus_ms)
                .number("remaining_ms", remaining_ms),
        ),
        Decision::PremoveQueued { color, uci } => {
            ("PREMOVE_QUEUED", facts.color("color", *color).text("uci", uci))
        }
        Decision::PremoveDropped { color, uci } => {
            ("PREMOVE_DROPPED", facts.color("color", *color).text("uci", uci))
        }
        Decision::Obligation { color, allowed, reason } => (
            "OBLIGATION",
            facts.color("color", *color).text("allowed", &allowed.join(" ")).text("reason", reason),
        ),
        Decision::TouchSensed { color, square, sensed, binding, would_allow } => (
            "TOUCH_SENSED",
            facts
                .color("color", *color)
                .square("square", *square)
                .text("sensed", sensed_touch_name(*sensed))
                .boolean("binding", *binding)
                .text("would_allow", &would_allow.join(" ")),
        ),
        Decision::IllegalMoveNotCompleted { color, description } => {
            ("ILLEGAL_MOVE_NOT_COMPLETED", facts.color("color", *color).text("description", description))
        }
        Decision::IllegalMove { color, count, description } => (
            "ILLEGAL_MOVE",
            facts.color("color", *color).number("count", count).text("description", description),
        ),
        Decision::IllegalMoveNotActedOn { color, description } => {
            ("ILLEGAL_MOVE_NOT_ACTED_ON", facts.color("color", *color).text("description", description))
        }
        Decision::IllegalMoveClaimed { color, description } => {
            ("ILLEGAL_MOVE_CLAIMED", facts.color("color", *color).text("description", description))
        }
        Decision::IllegalMoveStands { color, description } => {
            ("ILLEGAL_MOVE_STANDS", facts.color("color", *color).text("description", description))
        }
        Decision::IllegalPositionObserved { description } => {
            ("ILLEGAL_POSITION_OBSERVED", facts.text("description", description))
        }
        Decision::IllegalPositionCleared { in_check } => {
            ("ILLEGAL_POSITION_CLEARED", facts.optional_color("in_check", *in_check))
        }
        Decision::ClockAdjusted { color, delta_ms, remaining_ms } => (
            "CLOCK_ADJUSTED",
            facts.color("color", *color).number("delta_ms", delta_ms).number("remaining_ms", remaining_ms),
        ),
        Decision::ClockSet { color, remaining_ms } => {
            ("CLOCK_SET", facts.color("color", *color).number("remaining_ms", remaining_ms))
        }
        Decision::MoveCounterSet { color, moves_completed } => {
            ("MOVE_COUNTER_SET", facts.color("color", *color).number("moves_completed", moves_completed))
        }
        Decision::TimeControlInstalled { time_control } => {
            ("TIME_CONTROL_INSTALLED", facts.text("time_control", time_control))
        }
        Decision::ClocksPaused => ("CLOCKS_PAUSED", facts),
        Decision::ClocksResumed => ("CLOCKS_RESUMED", facts),
        Decision::ClockResumedAfterOutage { outage_ms } => {
            ("CLOCK_RESUMED_AFTER_OUTAGE", facts.number("outage_ms", outage_ms))
        }
        Decision::Warning { color, reason } => {
            ("WARNING", facts.color("color", *color).text("reason", reason))
        }
        Decision::DrawOffered { color, ply } => {
            ("DRAW_OFFERED", facts.color("color", *color).number("ply", ply))
        }
        Decision::DrawOfferLapsed { color, reason } => {
            ("DRAW_OFFER_LAPSED", facts.color("color", *color).text("reason", reason))
        }
        Decision::DrawOfferDeclined { color } => ("DRAW_OFFER_DECLINED", facts.color("color", *color)),
        Decision::ClaimIncorrect { color, reason } => {
            ("CLAIM_INCORRECT", facts.color("color", *color).text("reason", reason))
        }
        Decision::PlayerArrived { color } => ("PLAYER_ARRIVED", facts.color("color", *color)),
        Decision::Disconnected { color } => ("DISCONNECTED", facts.color("color", *color)),
        Decision::Reconnected { color } => ("RECONNECTED", facts.color("color", *color)),
        Decision::QuestionOpened { id, question, default } => {
            ("QUESTION_OPENED", facts.number("id", id).text("question", question).text("default", default))
        }
        Decision::QuestionAnswered { id, answer } => {
            ("QUESTION_ANSWERED", facts.number("id", id).text("answer", answer))
        }
        Decision::PositionReinstated { ply, fen } => {
            ("POSITION_REINSTATED", facts.number("ply", ply).text("fen", fen))
        }
        Decision::IncrementIntroduced { increment_ms } => {
            ("INCREMENT_INTRODUCED", facts.number("increment_ms", increment_ms))
        }
        Decision::SetupErrorStands { error, note } => {
            ("SETUP_ERROR_STANDS", facts.setup_error("error", *error).text("note", note))
        }
        Decision::ScorePenalty { adjustment } => {
            ("SCORE_PENALTY", facts.adjustment("adjustment", *adjustment))
        }
        Decision::GameOver(end) => ("GAME_OVER", facts.game_end(end)),
    };
    let (summary, color) = decision_summary(d);
    Description { name, summary, color, facts: facts.0 }
}

/// The description of an event.
pub fn event(e: &Event) -> Description {
    let facts = Facts::default();
    let (name, facts) = match e {
        Event::AnnounceAdjust { color } => ("ANNOUNCE_ADJUST", facts.color("color", *color)),
        Event::Touch { color, square, kind } => (
            "TOUCH",
            facts.color("color", *color).square("square", *square).text("kind", touch_kind_name(*kind)),
        ),
        Event::SimultaneousTouch { color, own, opponent } => (
            "SIMULTANEOUS_TOUCH",
            facts.color("color", *color).square("own", *own).square("opponent", *opponent),
        ),
        Event::TouchSensed { square, piece, sensed } => (
            "TOUCH_SENSED",
            facts
                .square("square", *square)
                .color("piece.color", piece.color)
                .text("piece.role", role_name(piece.role))
                .text("sensed", sensed_touch_name(*sensed)),
        ),
        Event::BoardClockReading { white_ms, black_ms } => {
            ("BOARD_CLOCK_READING", facts.number("white_ms", white_ms).number("black_ms", black_ms))
        }
        Event::PromotionPieceTouched { color, role } => {
            ("PROMOTION_PIECE_TOUCHED", facts.color("color", *color).text("role", role_name(*role)))
        }
        Event::MakeMove { color, mv } => ("MAKE_MOVE", facts.color("color", *color).mv("mv", mv)),
        Event::CastlingKingReleased { color, to } => {
            ("CASTLING_KING_RELEASED", facts.color("color", *color).square("to", *to))
        }
        Event::UsedTwoHands { color } => ("USED_TWO_HANDS", facts.color("color", *color)),
        Event::PressClock { color, other_hand } => {
            ("PRESS_CLOCK", facts.color("color", *color).boolean("other_hand", *other_hand))
        }
        Event::SubmitMove { color, mv, premove, lag_ms } => (
            "SUBMIT_MOVE",
            facts.color("color", *color).mv("mv", mv).boolean("premove", *premove).number("lag_ms", lag_ms),
        ),
        Event::Disconnect { color } => ("DISCONNECT", facts.color("color", *color)),
        Event::Reconnect { color } => ("RECONNECT", facts.color("color", *color)),
        Event::OfferDraw { color } => ("OFFER_DRAW", facts.color("color", *color)),
        Event::AcceptDraw { color } => ("ACCEPT_DRAW", facts.color("color", *color)),
        Event::DeclineDraw { color } => ("DECLINE_DRAW", facts.color("color", *color)),
        Event::ClaimDraw { color, kind, intended } => {
            let facts = facts.color("color", *color).text("kind", claim_kind_name(*kind));
            (
                "CLAIM_DRAW",
                match intended {
                    Some(mv) => facts.mv("intended", mv),
                    None => facts,
                },
            )
        }
        Event::Resign { color } => ("RESIGN", facts.color("color", *color)),
        Event::ClaimIllegalMove { color } => ("CLAIM_ILLEGAL_MOVE", facts.color("color", *color)),
        Event::PlayerArrived { color } => ("PLAYER_ARRIVED", facts.color("color", *color)),
        Event::RequestIncrement { color } => ("REQUEST_INCREMENT", facts.color("color", *color)),
        Event::ClaimNoWinningAttempt { color } => ("CLAIM_NO_WINNING_ATTEMPT", facts.color("color", *color)),
        Event::Tick => ("TICK", facts),
        Event::Start => ("START", facts),
        Event::PauseClocks => ("PAUSE_CLOCKS", facts),
        Event::ResumeClocks => ("RESUME_CLOCKS", facts),
        Event::AdjustClock { color, delta_ms } => {
            ("ADJUST_CLOCK", facts.color("color", *color).number("delta_ms", delta_ms))
        }
        Event::SetClock { color, remaining_ms } => {
            ("SET_CLOCK", facts.color("color", *color).number("remaining_ms", remaining_ms))
        }
        Event::SetMoveCounter { color, moves_completed } => {
            ("SET_MOVE_COUNTER", facts.color("color", *color).number("moves_completed", moves_completed))
        }
        Event::InstallTimeControl { time_control } => {
            ("INSTALL_TIME_CONTROL", facts.text("time_control", &time_control.to_pgn()))
        }
        Event::Penalty { color, kind } => ("PENALTY", facts.color("color", *color).penalty("kind", *kind)),
        Event::ReinstatePosition { ply } => ("REINSTATE_POSITION", facts.number("ply", ply)),
        Event::DeclareResult { result } => {
            ("DECLARE_RESULT", facts.text("result", declared_result_name(*result)))
        }
        Event::DeviceFound { color } => ("DEVICE_FOUND", facts.color("color", *color)),
        Event::AnswerQuestion { id, answer } => {
            ("ANSWER_QUESTION", facts.number("id", id).text("answer", answer_name(*answer)))
        }
        Event::SetupErrorFound { error } => ("SETUP_ERROR_FOUND", facts.setup_error("error", *error)),
        Event::ServiceResumed { outage_ms } => ("SERVICE_RESUMED", facts.number("outage_ms", outage_ms)),
        Event::Withdraw { reason } => ("WITHDRAW", facts.text("reason", withdrawal_name(*reason))),
    };
    Description { name, summary: event_summary(e), color: None, facts: facts.0 }
}

// ---------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------

/// The facts of one description, built key by key.
#[derive(Default)]
struct Facts(HashMap<String, String>);

impl Facts {
    fn text(mut self, key: &str, value: &str) -> Facts {
        self.0.insert(key.to_owned(), value.to_owned());
        self
    }

    /// A number in decimal.
    fn number(self, key: &str, value: impl ToString) -> Facts {
        let text = value.to_string();
        self.text(key, &text)
    }

    /// `true` or `false`.
    fn boolean(self, key: &str, value: bool) -> Facts {
        self.text(key, if value { "true" } else { "false" })
    }

    /// `white` or `black`.
    fn color(self, key: &str, c: Color) -> Facts {
        self.text(key, c.name())
    }

    /// A colour, or nothing when there is none.
    fn optional_color(self, key: &str, c: Option<Color>) -> Facts {
        match c {
            Some(c) => self.color(key, c),
            None => self,
        }
    }

    /// A square's name, e.g. `e4`.
    fn square(self, key: &str, s: Square) -> Facts {
        self.text(key, &s.to_string())
    }

    /// A reported move: `key.from`, `key.to`, `key.promotion` (a piece,
    /// left out without one) and `key.castle`.
    fn mv(self, key: &str, mv: &MoveInput) -> Facts {
        let facts = self.square(&format!("{key}.from"), mv.from).square(&format!("{key}.to"), mv.to);
        let facts = match mv.promotion {
            Some(role) => facts.text(&format!("{key}.promotion"), role_name(role)),
            None => facts,
        };
        facts.boolean(&format!("{key}.castle"), mv.castle)
    }

    /// A set-up error: its name under `key`, and the colour or square it
    /// names under `key.color` or `key.square`.
    fn setup_error(self, key: &str, e: SetupError) -> Facts {
        match e {
            SetupError::WrongInitialPosition => self.text(key, "WrongInitialPosition"),
            SetupError::BoardWronglyOriented => self.text(key, "BoardWronglyOriented"),
            SetupError::ColoursReversed => self.text(key, "ColoursReversed"),
            SetupError::KingMisplaced { color } => {
                self.text(key, "KingMisplaced").color(&format!("{key}.color"), color)
            }
            SetupError::RookMisplaced { square } => {
                self.text(key, "RookMisplaced").square(&format!("{key}.square"), square)
            }
        }
    }

    /// A penalty of 12.9: its name under `key`, and a time under
    /// `key.value` (milliseconds).
    fn penalty(self, key: &str, kind: PenaltyKind) -> Facts {
        let value = format!("{key}.value");
        match kind {
            PenaltyKind::Warning => self.text(key, "Warning"),
            PenaltyKind::AddTimeToOpponent(ms) => self.text(key, "AddTimeToOpponent").number(&value, ms),
            PenaltyKind::DeductTime(ms) => self.text(key, "DeductTime").number(&value, ms),
            PenaltyKind::RaiseOpponentScore => self.text(key, "RaiseOpponentScore"),
            PenaltyKind::ReduceScore => self.text(key, "ReduceScore"),
            PenaltyKind::DeclareLost => self.text(key, "DeclareLost"),
        }
    }

    /// A score penalty: `key.offender` and `key.kind`.
    fn adjustment(self, key: &str, a: ScoreAdjustment) -> Facts {
        let kind = match a.kind {
            ScoreAdjustmentKind::RaiseOpponentScore => "RaiseOpponentScore",
            ScoreAdjustmentKind::ReduceScore => "ReduceScore",
        };
        self.color(&format!("{key}.offender"), a.offender).text(&format!("{key}.kind"), kind)
    }

    /// A result by its name under `key` (`WhiteWins`, `Adjusted`), an
    /// adjusted one with each player's score under `key.white` and
    /// `key.black` (`Win`, `Draw`, `Loss`).
    fn result_by_name(self, key: &str, r: GameResult) -> Facts {
        match r {
            GameResult::WhiteWins => self.text(key, "WhiteWins"),
            GameResult::BlackWins => self.text(key, "BlackWins"),
            GameResult::Draw => self.text(key, "Draw"),
            GameResult::WhiteWinsByForfeit => self.text(key, "WhiteWinsByForfeit"),
            GameResult::BlackWinsByForfeit => self.text(key, "BlackWinsByForfeit"),
            GameResult::DoubleForfeit => self.text(key, "DoubleForfeit"),
            GameResult::BothLose => self.text(key, "BothLose"),
            GameResult::Adjusted { white, black } => self
                .text(key, "Adjusted")
                .text(&format!("{key}.white"), score_name(white))
                .text(&format!("{key}.black"), score_name(black)),
            GameResult::Annulled => self.text(key, "Annulled"),
        }
    }

    /// The end of a game: `result` in crosstable notation (`1/2-0`),
    /// `reason`, `rule` (its id), `armageddon_winner` and `board_result`
    /// (by name) when there is one. The typed cause is for code, not a
    /// fact: the API states the end by its reason and rule.
    fn game_end(self, end: &GameEnd) -> Facts {
        let GameEnd { result, reason, rule, cause: _, armageddon_winner, board_result } = end;
        let facts = self
            .text("result", &game_result_text(*result))
            .text("reason", reason)
            .text("rule", rule.as_str())
            .optional_color("armageddon_winner", *armageddon_winner);
        match board_result {
            Some(board) => facts.result_by_name("board_result", *board),
            None => facts,
        }
    }
}

/// How a piece was touched, as the API names it (`Intent`).
/// What a board sensed, as the API names it.
fn sensed_touch_name(s: SensedTouch) -> &'static str {
    match s {
        SensedTouch::FirstLift => "FirstLift",
        SensedTouch::LiftAndReplace => "LiftAndReplace",
        SensedTouch::OpponentPiece => "OpponentPiece",
    }
}

fn touch_kind_name(k: TouchKind) -> &'static str {
    match k {
        TouchKind::Intent => "Intent",
        TouchKind::Adjust => "Adjust",
        TouchKind::Accidental => "Accidental",
    }
}

/// A kind of draw claim, as the API names it (`Threefold`).
fn claim_kind_name(k: ClaimKind) -> &'static str {
    match k {
        ClaimKind::Threefold => "Threefold",
        ClaimKind::FiftyMoves => "FiftyMoves",
    }
}

/// A declared result, as the API names it (`WhiteWins`).
fn declared_result_name(r: DeclaredResult) -> &'static str {
    match r {
        DeclaredResult::WhiteWins => "WhiteWins",
        DeclaredResult::BlackWins => "BlackWins",
        DeclaredResult::Draw => "Draw",
        DeclaredResult::BothLose => "BothLose",
    }
}

/// An arbiter's answer, as the API names it (`Postpone`).
fn answer_name(a: Answer) -> &'static str {
    match a {
        Answer::Default => "Default",
        Answer::Accept => "Accept",
        Answer::Reject => "Reject",
        Answer::Postpone => "Postpone",
    }
}

/// One player's score, as the API names it (`Win`).
fn score_name(s: Score) -> &'static str {
    match s {
        Score::Win => "Win",
        Score::Draw => "Draw",
        Score::Loss => "Loss",
    }
}

// ---------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `12th`, `13th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `White` or `Black`, to start a sentence or name a side.
fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The English name of a piece kind.
fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// The UCI text of a reported move (`e2e4`, `e7e8q`), as the player gave it.
fn move_input_text(mv: &MoveInput) -> String {
    match mv.promotion {
        Some(r) => format!("{}{}{}", mv.from, mv.to, r.char()),
        None => format!("{}{}", mv.from, mv.to),
    }
}

// ---------------------------------------------------------------------------
// Summaries
// ---------------------------------------------------------------------------

/// The summary sentence of a decision and the player it concerns.
fn decision_summary(d: &Decision) -> (String, Option<Color>) {
    match d {
        Decision::SetupErrorStands { error, note } => {
            (format!("Set-up error ({}) stands: {note}", setup_error_text(*error)), None)
        }
        Decision::ScorePenalty { adjustment } => (
            format!(
                "Score penalty against {}: {}",
                side(adjustment.offender),
                match adjustment.kind {
                    arbiter_laws::scoring::ScoreAdjustmentKind::RaiseOpponentScore =>
                        "the opponent's score is raised to the maximum (12.9.4)",
                    arbiter_laws::scoring::ScoreAdjustmentKind::ReduceScore =>
                        "the offender's score is reduced (12.9.5)",
                }
            ),
            Some(adjustment.offender),
        ),
        Decision::GameStarted { white_ms, black_ms } => (
            format!(
                "The game started: White {}, Black {}; White's clock runs",
                format_ms(*white_ms),
                format_ms(*black_ms)
            ),
            None,
        ),
        Decision::MoveMade { color, san, uci, ply } => {
            (format!("{} made the move {san} ({uci}, ply {ply})", side(*color)), Some(*color))
        }
        Decision::MoveCompleted { color, used_ms, bonus_ms, remaining_ms } => (
            format!(
                "{} completed a move: {} used, {} added, {} left",
                side(*color),
                format_duration(*used_ms),
                format_duration(*bonus_ms),
                format_ms(*remaining_ms)
            ),
            Some(*color),
        ),
        Decision::PremoveQueued { color, uci } => {
            (format!("{}'s premove {uci} is queued", side(*color)), Some(*color))
        }
        Decision::PremoveDropped { color, uci } => (
            format!("{}'s premove {uci} was not legal when its turn came and is dropped", side(*color)),
            Some(*color),
        ),
        Decision::Obligation { color, allowed, reason } => (
            format!("Touch-move binds {}: {reason}; allowed: {}", side(*color), allowed.join(", ")),
            Some(*color),
        ),
        Decision::TouchSensed { color, square, sensed, binding, would_allow } => {
            let seen = format!(
                "The board sensed a {} on {square} ({} has the move)",
                sensed.describe(),
                side(*color)
            );
            let meaning = if *binding {
                "ruled a touch (the event's regulations bind sensed touches)".to_owned()
            } else if would_allow.is_empty() {
                "evidence for the arbiter; ruled a touch it would bind to no move in particular".to_owned()
            } else {
                format!("evidence for the arbiter; ruled a touch it would bind to {}", would_allow.join(", "))
            };
            (format!("{seen}: {meaning}"), Some(*color))
        }
        Decision::IllegalMoveNotCompleted { color, description } => (
            format!(
                "Illegal move by {}, not completed: {description}; it may still be corrected",
                side(*color)
            ),
            Some(*color),
        ),
        Decision::IllegalMove { color, count, description } => (
            format!(
                "Illegal move by {} ({}): {description}; the position before it is reinstated",
                side(*color),
                ordinal(*count)
            ),
            Some(*color),
        ),
        Decision::IllegalMoveNotActedOn { color, description } => (
            format!("Illegal move by {}, completed and not acted on: {description}", side(*color)),
            Some(*color),
        ),
        Decision::IllegalMoveClaimed { color, description } => {
            (format!("{} claims the illegal move {description}", side(*color)), Some(*color))
        }
        Decision::IllegalMoveStands { color, description } => {
            (format!("{}'s illegal move {description} stands", side(*color)), Some(*color))
        }
        Decision::IllegalPositionObserved { description } => {
            (format!("Illegal position: {description}"), None)
        }
        Decision::IllegalPositionCleared { in_check } => (
            match in_check {
                Some(c) => format!("The position is no longer illegal; {} must get out of check", side(*c)),
                None => "The position is no longer illegal".to_owned(),
            },
            *in_check,
        ),
        Decision::ClockAdjusted { color, delta_ms, remaining_ms } => {
            let change = if *delta_ms >= 0 {
                format!("{} added", format_duration(*delta_ms))
            } else {
                format!("{} removed", format_duration(delta_ms.saturating_neg()))
            };
            (format!("{}'s clock: {change}, {} left", side(*color), format_ms(*remaining_ms)), Some(*color))
        }
        Decision::ClockSet { color, remaining_ms } => {
            (format!("{}'s clock set to {}", side(*color), format_ms(*remaining_ms)), Some(*color))
        }
        Decision::MoveCounterSet { color, moves_completed } => (
            format!("{}'s move counter on the clock: {moves_completed} moves completed", side(*color)),
            Some(*color),
        ),
        Decision::TimeControlInstalled { time_control } => {
            (format!("The clock is set to the time control {time_control}"), None)
        }
        Decision::ClocksPaused => ("The clocks are paused".to_owned(), None),
        Decision::ClocksResumed => ("The clocks are resumed".to_owned(), None),
        Decision::ClockResumedAfterOutage { outage_ms } => (
            format!(
                "The clock resumed after the service was down for {}; that time is charged to neither player",
                format_duration(*outage_ms)
            ),
            None,
        ),
        Decision::Warning { color, reason } => {
            (format!("{} is warned: {reason}", side(*color)), Some(*color))
        }
        Decision::DrawOffered { color, ply } => {
            (format!("{} offers a draw (after ply {ply})", side(*color)), Some(*color))
        }
        Decision::DrawOfferLapsed { color, reason } => {
            (format!("{}'s draw offer lapsed: {reason}", side(*color)), Some(*color))
        }
        Decision::DrawOfferDeclined { color } => {
            (format!("{} declined the draw offer", side(*color)), Some(*color))
        }
        Decision::ClaimIncorrect { color, reason } => {
            (format!("{}'s claim is incorrect: {reason}", side(*color)), Some(*color))
        }
        Decision::PlayerArrived { color } => (format!("{} is at the board", side(*color)), Some(*color)),
        Decision::Disconnected { color } => (format!("{} is disconnected", side(*color)), Some(*color)),
        Decision::Reconnected { color } => (format!("{} is reconnected", side(*color)), Some(*color)),
        Decision::QuestionOpened { id, question, default } => {
            (format!("Question {id} for the arbiter: {question}; until answered: {default}"), None)
        }
        Decision::QuestionAnswered { id, answer } => {
            (format!("The arbiter answered question {id}: {}", answer.to_lowercase()), None)
        }
        Decision::PositionReinstated { ply, fen } => {
            (format!("The position before ply {ply} is reinstated ({fen})"), None)
        }
        Decision::IncrementIntroduced { increment_ms } => (
            format!(
                "An increment of {} per move now applies to both players",
                format_duration(*increment_ms)
            ),
            None,
        ),
        Decision::GameOver(end) => {
            let mut s = format!("Game over: {} ({})", game_result_text(end.result), end.reason);
            if let Some(winner) = end.armageddon_winner {
                s.push_str(&format!("; {} wins the Armageddon match", side(winner)));
            }
            (s, None)
        }
    }
}

/// A set-up error in words.
fn setup_error_text(e: arbiter_laws::event::SetupError) -> String {
    match e {
        arbiter_laws::event::SetupError::WrongInitialPosition => "wrong initial position (7.2.1)".into(),
        arbiter_laws::event::SetupError::BoardWronglyOriented => "board wrongly oriented (7.2.2)".into(),
        arbiter_laws::event::SetupError::ColoursReversed => "colours reversed (7.3)".into(),
        arbiter_laws::event::SetupError::KingMisplaced { color } => {
            format!("{} king misplaced in the initial position (7.2.1, A.5.1.2)", side(color))
        }
        arbiter_laws::event::SetupError::RookMisplaced { square } => {
            format!("rook starting on {square} misplaced in the initial position (7.2.1, A.5.1.2)")
        }
    }
}

/// The API's name of a withdrawal's reason (the `reason` detail of a
/// `WITHDRAW` event).
fn withdrawal_name(reason: Withdrawal) -> &'static str {
    match reason {
        Withdrawal::Cancelled => "Cancelled",
        Withdrawal::Expired => "Expired",
    }
}

/// The summary sentence of an event.
fn event_summary(e: &Event) -> String {
    match e {
        Event::Withdraw { reason: Withdrawal::Cancelled } => {
            "The game is cancelled before it started; it has no result".to_string()
        }
        Event::Withdraw { reason: Withdrawal::Expired } => {
            "The game expired: it was not started in time; it has no result".to_string()
        }
        Event::ServiceResumed { outage_ms } => {
            format!("The service resumed after {} down; that time is not charged", format_ms(*outage_ms))
        }
        Event::SetupErrorFound { error } => {
            format!("Arbiter finds a set-up error: {}", setup_error_text(*error))
        }
        Event::AnnounceAdjust { color } => format!("{} says \"I adjust\"", side(*color)),
        Event::Touch { color, square, kind } => match kind {
            TouchKind::Intent => format!("{} touches the piece on {square}", side(*color)),
            TouchKind::Adjust => format!("{} adjusts the piece on {square}", side(*color)),
            TouchKind::Accidental => format!("{} touches the piece on {square} accidentally", side(*color)),
        },
        Event::SimultaneousTouch { color, own, opponent } => format!(
            "{} touches the piece on {own} and the opponent's piece on {opponent} at the same time \
             (4.3.3: the own piece counts as touched first)",
            side(*color)
        ),
        Event::TouchSensed { square, piece, sensed } => {
            let piece = format!("{} {} on {square}", side(piece.color), role_name(piece.role));
            match sensed {
                SensedTouch::FirstLift => {
                    format!("The board senses the {piece} lifted, the first piece lifted in this position")
                }
                SensedTouch::LiftAndReplace => format!("The board senses the {piece} lifted and put back"),
                SensedTouch::OpponentPiece => {
                    format!("The board senses the {piece} lifted, a piece of the player not having the move")
                }
            }
        }
        Event::BoardClockReading { white_ms, black_ms } => {
            format!("The board's clock shows White {}, Black {}", format_ms(*white_ms), format_ms(*black_ms))
        }
        Event::PromotionPieceTouched { color, role } => {
            format!("{} places a {} on the promotion square", side(*color), role_name(*role))
        }
        Event::MakeMove { color, mv } => {
            let castling = if mv.castle { " (castling)" } else { "" };
            format!("{} moves {}{castling}", side(*color), move_input_text(mv))
        }
        Event::CastlingKingReleased { color, to } => {
            format!("{} releases the king on {to} to castle", side(*color))
        }
        Event::UsedTwoHands { color } => format!("{} made the move with two hands", side(*color)),
        Event::PressClock { color, other_hand } => {
            let hand = if *other_hand { " with the other hand" } else { "" };
            format!("{} presses the clock{hand}", side(*color))
        }
        Event::SubmitMove { color, mv, premove, lag_ms } => {
            let castling = if mv.castle { " (castling)" } else { "" };
            let what = if *premove { "premoves" } else { "plays" };
            let lag = if *lag_ms > 0 { format!(", lag {lag_ms} ms") } else { String::new() };
            format!("{} {what} {}{castling}{lag}", side(*color), move_input_text(mv))
        }
        Event::Disconnect { color } => format!("{}'s connection is lost", side(*color)),
        Event::Reconnect { color } => format!("{} reconnects", side(*color)),
        Event::OfferDraw { color } => format!("{} offers a draw", side(*color)),
        Event::AcceptDraw { color } => format!("{} accepts the draw offer", side(*color)),
        Event::DeclineDraw { color } => format!("{} declines the draw offer", side(*color)),
        Event::ClaimDraw { color, kind, intended } => {
            let rule = match kind {
                ClaimKind::Threefold => "threefold repetition",
                ClaimKind::FiftyMoves => "the fifty-move rule",
            };
            match intended {
                Some(mv) => format!(
                    "{} claims a draw by {rule}, with the intended move {}",
                    side(*color),
                    move_input_text(mv)
                ),
                None => format!("{} claims a draw by {rule}", side(*color)),
            }
        }
        Event::Resign { color } => format!("{} resigns", side(*color)),
        Event::ClaimIllegalMove { color } => format!("{} claims an illegal move", side(*color)),
        Event::PlayerArrived { color } => format!("{} arrives at the board", side(*color)),
        Event::RequestIncrement { color } => {
            format!("{} asks for a 5-second increment for both players (Guidelines III.4)", side(*color))
        }
        Event::ClaimNoWinningAttempt { color } => format!(
            "{} claims that {} cannot win by normal means (Guidelines III.5)",
            side(*color),
            side(color.other())
        ),
        Event::Tick => "Time check".to_owned(),
        Event::Start => "Arbiter starts the game".to_owned(),
        Event::PauseClocks => "Arbiter pauses the clocks".to_owned(),
        Event::ResumeClocks => "Arbiter resumes the clocks".to_owned(),
        Event::AdjustClock { color, delta_ms } => {
            if *delta_ms >= 0 {
                format!("Arbiter adds {} to {}'s clock", format_duration(*delta_ms), side(*color))
            } else {
                format!(
                    "Arbiter removes {} from {}'s clock",
                    format_duration(delta_ms.saturating_neg()),
                    side(*color)
                )
            }
        }
        Event::SetClock { color, remaining_ms } => {
            format!("Arbiter sets {}'s clock to {}", side(*color), format_ms(*remaining_ms))
        }
        Event::SetMoveCounter { color, moves_completed } => {
            format!("Arbiter sets {}'s move counter to {moves_completed} moves completed", side(*color))
        }
        Event::InstallTimeControl { time_control } => {
            format!("Arbiter installs the time control {}", time_control.to_pgn())
        }
        Event::Penalty { color, kind } => {
            let (who, other) = (side(*color), side(color.other()));
            match kind {
                PenaltyKind::Warning => format!("Arbiter warns {who}"),
                PenaltyKind::AddTimeToOpponent(ms) => {
                    format!("Arbiter penalises {who}: {} added to {other}'s clock", format_duration(*ms))
                }
                PenaltyKind::DeductTime(ms) => {
                    format!("Arbiter penalises {who}: {} deducted from {who}'s clock", format_duration(*ms))
                }
                PenaltyKind::RaiseOpponentScore => {
                    format!("Arbiter penalises {who}: {other}'s score raised to the maximum")
                }
                PenaltyKind::ReduceScore => format!("Arbiter penalises {who}: {who}'s score reduced"),
                PenaltyKind::DeclareLost => format!("Arbiter declares the game lost by {who}"),
            }
        }
        Event::ReinstatePosition { ply } => {
            if *ply == 0 {
                "Arbiter reinstates the starting position".to_owned()
            } else {
                format!("Arbiter reinstates the position before ply {ply}")
            }
        }
        Event::DeclareResult { result } => {
            let text = match result {
                DeclaredResult::WhiteWins => "1-0",
                DeclaredResult::BlackWins => "0-1",
                DeclaredResult::Draw => "1/2-1/2",
                DeclaredResult::BothLose => "0-0 (both lose)",
            };
            format!("Arbiter declares the result {text}")
        }
        Event::DeviceFound { color } => format!("Arbiter finds an electronic device on {}", side(*color)),
        Event::AnswerQuestion { id, answer } => {
            let answer = match answer {
                Answer::Default => "apply the default",
                Answer::Accept => "accept",
                Answer::Reject => "reject",
                Answer::Postpone => "postpone",
            };
            format!("Arbiter answers question {id}: {answer}")
        }
    }
}

/// A clock reading: `1:29:47` from one hour, `4:05` from ten seconds, and
/// `0:07.3` (tenths) below ten seconds, where every tenth counts. Parts of a
/// second are cut, not rounded, as a digital clock shows them: a player with
/// 0.09 s left sees `0:00.0`. Negative values get a leading `-`.
pub fn format_ms(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", format_ms(ms.saturating_neg()));
    }
    let total_s = ms / 1000;
    let (h, m, s) = (total_s / 3600, total_s / 60 % 60, total_s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else if total_s >= 10 {
        format!("{m}:{s:02}")
    } else {
        format!("0:{s:02}.{}", ms % 1000 / 100)
    }
}

/// A length of time: `12.3 s` under a minute (tenths cut), otherwise as
/// [`format_ms`] (`2:00`, `1:30:00`). Negative values get a leading `-`.
pub fn format_duration(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", format_duration(ms.saturating_neg()));
    }
    if ms < 60_000 { format!("{}.{} s", ms / 1000, ms % 1000 / 100) } else { format_ms(ms) }
}

/// A result in ASCII crosstable notation: `1-0`, `0-1`, `1/2-1/2`, `+/-`,
/// `-/+`, `-/-`, `0-0`, and adjusted scores from their parts (`1/2-0`).
pub fn game_result_text(r: GameResult) -> String {
    let score = |s: Score| match s {
        Score::Win => "1",
        Score::Draw => "1/2",
        Score::Loss => "0",
    };
    match r {
        GameResult::WhiteWins => "1-0".to_owned(),
        GameResult::BlackWins => "0-1".to_owned(),
        GameResult::Draw => "1/2-1/2".to_owned(),
        GameResult::WhiteWinsByForfeit => "+/-".to_owned(),
        GameResult::BlackWinsByForfeit => "-/+".to_owned(),
        GameResult::DoubleForfeit => "-/-".to_owned(),
        GameResult::BothLose => "0-0".to_owned(),
        GameResult::Annulled => "*".to_owned(),
        GameResult::Adjusted { white, black } => format!("{}-{}", score(white), score(black)),
    }
}

#[cfg(test)]
mod tests;
