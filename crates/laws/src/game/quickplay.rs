//! Guidelines III: the increment request (III.4) and the claim that the
//! opponent cannot win by normal means (III.5).

use arbiter_chess::Color;

use super::state::{DrawOffer, QuestionKind};
use super::{Game, Outcome, clock_rejection, reject};
use crate::clock::Timestamp;
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason, Rejection, Ruling};

impl Game {
    pub(super) fn quickplay_check(&self, color: Color, at: i64, rule: RuleId) -> Result<(), Rejection> {
        if !self.regs.guidelines_iii {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(rule),
                "Guidelines III are not in force in this event",
            ));
        }
        if self.clock.running() != Some(color) {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some(rule),
                "only the player whose clock is running may ask",
            ));
        }
        if self.rem(color, at) >= 120_000 {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(rule),
                "only with less than two minutes left",
            ));
        }
        Ok(())
    }

    pub(super) fn request_increment(&mut self, color: Color, at: i64) -> Outcome {
        self.quickplay_check(color, at, RuleId::FideIII4)?;
        let mut out = Vec::new();
        // The request is also a draw offer, where offers are allowed (9.1.1).
        if self.offer.is_none() && self.draw_restriction().is_ok() {
            let ply = self.record.ply_count();
            self.offer = Some(DrawOffer { by: color, ply });
            out.push(Ruling::new(RuleId::FideIII4, Decision::DrawOffered { color, ply }));
        }
        out.push(self.open_question(
            QuestionKind::IncrementRequest { by: color },
            format!("{color} asks for a 5-second increment for both players (Guidelines III.4)"),
            "no change to the clocks".into(),
        ));
        Ok(out)
    }

    pub(super) fn claim_no_winning_attempt(&mut self, color: Color, at: i64) -> Outcome {
        self.quickplay_check(color, at, RuleId::FideIII5)?;
        self.clock.pause(Timestamp(at)).map_err(clock_rejection)?;
        let q = self.open_question(
            QuestionKind::NoWinningAttempt { by: color },
            format!("{color} claims the opponent cannot win by normal means (Guidelines III.5)"),
            "decision postponed; play continues".into(),
        );
        if let Decision::QuestionOpened { id, .. } = &q.decision {
            self.paused_for_question = Some(*id);
        }
        Ok(vec![Ruling::new(RuleId::FideIII5, Decision::ClocksPaused), q])
    }
}
