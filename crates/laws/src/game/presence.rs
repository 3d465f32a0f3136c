//! Players at the board and online connections (6.7, OCR 11).

use arbiter_chess::Color;

use super::{Game, Outcome, reject};
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason, Ruling};

impl Game {
    pub(super) fn player_arrived(&mut self, color: Color, _at: i64) -> Outcome {
        if self.arrived[color.index()] {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide6_7a),
                format!("{color} has already arrived"),
            ));
        }
        self.arrived[color.index()] = true;
        Ok(vec![Ruling::new(RuleId::Fide6_7a, Decision::PlayerArrived { color })])
    }

    pub(super) fn disconnect(&mut self, color: Color, at: i64) -> Outcome {
        if !self.regs.mode.is_online() {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::Ocr11),
                "disconnections apply to online games",
            ));
        }
        if self.disconnected_at[color.index()].is_some() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Ocr11),
                format!("{color} is already disconnected"),
            ));
        }
        self.disconnected_at[color.index()] = Some(at);
        Ok(vec![Ruling::new(RuleId::Ocr11_4, Decision::Disconnected { color })])
    }

    pub(super) fn reconnect(&mut self, color: Color) -> Outcome {
        if self.disconnected_at[color.index()].take().is_none() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Ocr11),
                format!("{color} is not disconnected"),
            ));
        }
        Ok(vec![Ruling::new(RuleId::Ocr11_4_1, Decision::Reconnected { color })])
    }
}
