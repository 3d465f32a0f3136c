//! What needs an arbiter in a round: alerts derived from the games' logs
//! (questions, automatic draws, dead positions, flags, illegal moves, a
//! device, a disconnection, a game's end) and from what the service sees
//! now (an e-board out of step or gone, little time left without
//! increment).
//!
//! Alerts from a log are a function of the log: the same events always give
//! the same alerts with the same ids (`{game}-s{seq}-{n}`, the n-th alert of
//! event `seq`), so a watcher that reconnects, on any replica, finds the
//! alerts it saw under the same names, and an acknowledgement (stored by
//! id) applies to them wherever they are shown. Alerts from the present
//! (`{game}-board`, `{game}-low-white`) are raised while the condition holds.

use arbiter_chess::Color;
use arbiter_laws::event::Event;
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause};

use crate::view::LoggedEvent;

/// What an alert is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Question,
    FivefoldRepetition,
    SeventyFiveMoves,
    DeadPosition,
    Flag,
    IllegalMove,
    SecondIllegalMove,
    BoardDesync,
    BoardDisconnected,
    PlayerDisconnected,
    Device,
    LowTime,
    GameEnded,
}

/// How urgent, most urgent first (the order of the queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// The game waits for a decision.
    Decision,
    /// The arbiter must act or verify now.
    Act,
    /// The arbiter should look.
    Look,
    /// For the record.
    Note,
}

/// One alert of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Unique within the round (see the module docs).
    pub id: String,
    pub game: String,
    pub kind: Kind,
    pub priority: Priority,
    pub text: String,
    /// The rule it rests on, where one does.
    pub rule: Option<RuleId>,
    /// The game's event that raised it (0 for alerts of the present).
    pub game_seq: i64,
    pub wall_ms: i64,
    /// For a question: its id, so that its answer settles the alert.
    pub question: Option<u32>,
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The alerts one logged event of `game` raises, and the questions it
/// answers (their alerts need nobody any more).
#[must_use]
pub fn of_event(game: &str, e: &LoggedEvent) -> (Vec<Alert>, Vec<u32>) {
    let mut alerts = Vec::new();
    let mut answered = Vec::new();
    let mut push = |kind, priority, text: String, rule: Option<RuleId>, question: Option<u32>| {
        let id = format!("{game}-s{}-{}", e.seq, alerts.len());
        alerts.push(Alert {
            id,
            game: game.to_owned(),
            kind,
            priority,
            text,
            rule,
            game_seq: e.seq,
            wall_ms: e.wall_ms,
            question,
        });
    };
    let mut device_ruled = false;
    for r in &e.aftermath.rulings {
        match &r.decision {
            Decision::QuestionOpened { id, question, default } => push(
                Kind::Question,
                Priority::Decision,
                format!("question {id}: {question} (until answered: {default})"),
                Some(r.rule),
                Some(*id),
            ),
            Decision::QuestionAnswered { id, .. } => answered.push(*id),
            // A second one ends the game: the end says so below.
            Decision::IllegalMove { color, count: 1, description } => push(
                Kind::IllegalMove,
                Priority::Look,
                format!("{}'s first illegal move: {description}", side(*color)),
                Some(r.rule),
                None,
            ),
            Decision::Disconnected { color } => push(
                Kind::PlayerDisconnected,
                Priority::Look,
                format!("{} is disconnected", side(*color)),
                Some(r.rule),
                None,
            ),
            Decision::GameOver(end) => {
                let result = crate::api::describe::game_result_text(end.result);
                let (kind, priority) = match end.cause {
                    EndCause::FivefoldRepetition => (Kind::FivefoldRepetition, Priority::Note),
                    EndCause::SeventyFiveMoves => (Kind::SeventyFiveMoves, Priority::Note),
                    EndCause::DeadPosition => (Kind::DeadPosition, Priority::Note),
                    EndCause::Flag | EndCause::NoPossibleCheckmate => (Kind::Flag, Priority::Act),
                    EndCause::IllegalMoves => (Kind::SecondIllegalMove, Priority::Act),
                    EndCause::ElectronicDevice => {
                        device_ruled = true;
                        (Kind::Device, Priority::Act)
                    }
                    _ => (Kind::GameEnded, Priority::Note),
                };
                push(kind, priority, format!("game over: {result} ({})", end.reason), Some(end.rule), None);
            }
            _ => {}
        }
    }
    // A device whose penalty is a time deduction does not end the game.
    if let Event::DeviceFound { color } = &e.event
        && !device_ruled
    {
        push(
            Kind::Device,
            Priority::Act,
            format!("an electronic device was found on {}", side(*color)),
            Some(RuleId::Fide11_3b),
            None,
        );
    }
    (alerts, answered)
}

/// Two minutes: below it, in a game without increment, a player may ask
/// for one (Guidelines III.4) and the arbiter watches the finish.
pub const LOW_TIME_MS: i64 = 120_000;

/// The alert of a player of `game` with `remaining_ms` left and no increment.
#[must_use]
pub fn low_time(game: &str, color: Color, remaining_ms: i64, now_wall_ms: i64) -> Alert {
    Alert {
        id: format!("{game}-low-{}", side(color).to_lowercase()),
        game: game.to_owned(),
        kind: Kind::LowTime,
        priority: Priority::Look,
        text: format!("{} has {} s left and no increment", side(color), remaining_ms / 1000),
        rule: Some(RuleId::FideIII4),
        game_seq: 0,
        wall_ms: now_wall_ms,
        question: None,
    }
}

/// The alert of `game`'s e-board: out of step with the game, or its
/// stream closed.
#[must_use]
pub fn board(game: &str, connected: bool, in_sync: bool, now_wall_ms: i64) -> Option<Alert> {
    let (kind, text) = match (connected, in_sync) {
        (false, _) => (Kind::BoardDisconnected, "the e-board's stream is closed"),
        (true, false) => (Kind::BoardDesync, "the e-board disagrees with the game"),
        (true, true) => return None,
    };
    Some(Alert {
        id: format!("{game}-board-{}", if connected { "desync" } else { "gone" }),
        game: game.to_owned(),
        kind,
        priority: Priority::Look,
        text: text.to_owned(),
        rule: None,
        game_seq: 0,
        wall_ms: now_wall_ms,
        question: None,
    })
}

#[cfg(test)]
mod tests {
    use arbiter_laws::ruling::{GameEnd, Ruling};
    use arbiter_laws::scoring::GameResult;

    use super::*;
    use crate::event_log::{Aftermath, Clocks};

    fn logged(seq: i64, event: Event, rulings: Vec<Ruling>) -> LoggedEvent {
        LoggedEvent {
            seq,
            request_id: None,
            actor: "arbiter".into(),
            at_ms: 0,
            wall_ms: 1000 + seq,
            event,
            aftermath: Aftermath {
                rulings,
                clocks: Clocks {
                    white_ms: 0,
                    black_ms: 0,
                    running: None,
                    paused: false,
                    white_moves: 0,
                    black_moves: 0,
                },
                fen: String::new(),
            },
        }
    }

    fn over(cause: EndCause, result: GameResult, rule: RuleId) -> Ruling {
        Ruling {
            rule,
            decision: Decision::GameOver(GameEnd {
                result,
                reason: "r".into(),
                rule,
                cause,
                armageddon_winner: None,
                board_result: None,
            }),
        }
    }

    #[test]
    fn ends_become_alerts_of_their_kind_with_stable_ids() {
        let e = logged(
            7,
            Event::Start,
            vec![over(EndCause::FivefoldRepetition, GameResult::Draw, RuleId::Fide9_6_1)],
        );
        let (alerts, _) = of_event("g", &e);
        assert_eq!(alerts.len(), 1);
        assert_eq!(
            (alerts[0].id.as_str(), alerts[0].kind, alerts[0].priority),
            ("g-s7-0", Kind::FivefoldRepetition, Priority::Note)
        );
        assert_eq!(of_event("g", &e).0, alerts, "the same event gives the same alerts");
        let flag =
            logged(9, Event::Start, vec![over(EndCause::Flag, GameResult::WhiteWins, RuleId::Fide6_9)]);
        assert_eq!(of_event("g", &flag).0[0].kind, Kind::Flag);
        let second = logged(
            3,
            Event::Start,
            vec![
                Ruling {
                    rule: RuleId::Fide7_5_5,
                    decision: Decision::IllegalMove {
                        color: Color::White,
                        count: 2,
                        description: "x".into(),
                    },
                },
                over(EndCause::IllegalMoves, GameResult::BlackWins, RuleId::Fide7_5_5),
            ],
        );
        let (alerts, _) = of_event("g", &second);
        assert_eq!(alerts.iter().map(|a| a.kind).collect::<Vec<_>>(), [Kind::SecondIllegalMove]);
    }

    #[test]
    fn questions_are_decisions_and_answers_settle_them() {
        let asked = logged(
            4,
            Event::Start,
            vec![Ruling {
                rule: RuleId::FideIII5,
                decision: Decision::QuestionOpened { id: 2, question: "q".into(), default: "d".into() },
            }],
        );
        let (alerts, _) = of_event("g", &asked);
        assert_eq!((alerts[0].priority, alerts[0].question), (Priority::Decision, Some(2)));
        let answered = logged(
            5,
            Event::Start,
            vec![Ruling {
                rule: RuleId::FideIII5,
                decision: Decision::QuestionAnswered { id: 2, answer: "a".into() },
            }],
        );
        assert_eq!(of_event("g", &answered).1, [2]);
        assert!(Priority::Decision < Priority::Act && Priority::Look < Priority::Note);
    }

    #[test]
    fn board_and_low_time() {
        assert_eq!(board("g", true, true, 0), None);
        assert_eq!(board("g", true, false, 0).unwrap().kind, Kind::BoardDesync);
        assert_eq!(board("g", false, true, 0).unwrap().id, "g-board-gone");
        assert_eq!(low_time("g", Color::Black, 90_500, 0).text, "Black has 90 s left and no increment");
    }
}
