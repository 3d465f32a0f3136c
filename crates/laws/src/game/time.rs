//! What time alone decides: a flag (6.9, OCR 4.3), a default time (6.7),
//! an expired reconnect window (OCR 11.4.2).

use arbiter_chess::Color;

use super::Game;
use super::state::{Question, QuestionKind};
use crate::clock::Timestamp;
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, Ruling};
use crate::scoring::GameResult;

impl Game {
    /// Rulings that time alone produces by `at`: a flag (6.8, 6.9, OCR 4.3),
    /// a default time (6.7), an expired reconnect window (OCR 11.4.2).
    pub(super) fn observe_time(&mut self, at: i64) -> Vec<Ruling> {
        if self.end.is_some() || self.started_at.is_none() {
            return Vec::new();
        }
        // Whichever deadline comes first decides.
        let mut deadlines: Vec<(i64, u8, Color)> = Vec::new();
        if let Some(flag) = self.clock.flag_deadline()
            && let Some(side) = self.clock.running()
        {
            deadlines.push((flag.0, 0, side));
        }
        if let (Some(start), Some(default)) = (self.started_at, self.regs.default_time_ms) {
            for c in Color::ALL {
                if !self.arrived[c.index()] {
                    deadlines.push((start + default, 1, c));
                }
            }
        }
        if let Some(window) = self.regs.reconnect_window_ms {
            for c in Color::ALL {
                if let Some(t) = self.disconnected_at[c.index()] {
                    deadlines.push((t + window, 2, c));
                }
            }
        }
        deadlines.sort();
        let Some(&(when, kind, side)) = deadlines.first() else { return Vec::new() };
        if when > at {
            return Vec::new();
        }
        match kind {
            0 => self.flag_fell(side, when),
            1 => self.default_time_expired(when),
            _ => self.reconnect_window_expired(side, when),
        }
    }

    pub(super) fn flag_fell(&mut self, side: Color, when: i64) -> Vec<Ruling> {
        let _ = self.clock.pause(Timestamp(when));
        let rule = if self.regs.mode.is_online() { RuleId::Ocr4_3 } else { RuleId::Fide6_9 };
        let postponed = std::mem::take(&mut self.postponed);
        let mut out = self.lose_unless_cannot_mate(side, EndCause::Flag, rule, "flag fell");
        // III.5.2 (DEC-23): the arbiter decides a postponed claim of the
        // flagged player "as soon as possible after a flag has fallen"; it
        // is open again, the flag's result standing until he answers.
        let lost = self.end.as_ref().is_some_and(|e| e.result != GameResult::Draw);
        for q in postponed {
            if lost && matches!(q.kind, QuestionKind::NoWinningAttempt { by } if by == side) {
                let opened = Ruling::new(
                    RuleId::FideIII5,
                    Decision::QuestionOpened {
                        id: q.id,
                        question: format!(
                            "{side}'s flag fell: is the draw {side} claimed (postponed, Guidelines III.5.2) \
                             to be declared?"
                        ),
                        default: "the result of the flag stands".into(),
                    },
                );
                if let Decision::QuestionOpened { question, default, .. } = &opened.decision {
                    self.questions.push(Question {
                        id: q.id,
                        kind: q.kind.clone(),
                        text: question.clone(),
                        default: default.clone(),
                    });
                }
                out.push(opened);
            }
        }
        out
    }

    pub(super) fn default_time_expired(&mut self, when: i64) -> Vec<Ruling> {
        let absent: Vec<Color> = Color::ALL.into_iter().filter(|c| !self.arrived[c.index()]).collect();
        let _ = when;
        // The game was not played: a forfeit (+/-, -/+, -/-), not rated.
        let result = match absent.as_slice() {
            [Color::White] => GameResult::BlackWinsByForfeit,
            [Color::Black] => GameResult::WhiteWinsByForfeit,
            _ => GameResult::DoubleForfeit,
        };
        vec![self.finish(
            result,
            EndCause::DefaultTime,
            "a player did not arrive within the default time",
            RuleId::Fide6_7a,
        )]
    }

    pub(super) fn reconnect_window_expired(&mut self, side: Color, when: i64) -> Vec<Ruling> {
        let _ = self.clock.pause(Timestamp(when));
        self.lose_unless_cannot_mate(
            side,
            EndCause::NotReconnected,
            RuleId::Ocr11_4_2,
            "did not reconnect in time",
        )
    }
}
