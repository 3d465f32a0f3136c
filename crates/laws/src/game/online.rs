//! Moves online: submissions and premoves (OCR 3, 4).

use arbiter_chess::{Color, Move};

use super::state::TurnState;
use super::{Game, Outcome, reject};
use crate::clock::Timestamp;
use crate::event::MoveInput;
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason, Ruling};

impl Game {
    pub(super) fn submit_move(
        &mut self,
        color: Color,
        mv: &MoveInput,
        premove: bool,
        lag_ms: i64,
        at: i64,
    ) -> Outcome {
        if !self.regs.mode.is_online() {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::Fide4),
                "over the board, moves are made and completed",
            ));
        }
        self.require_running_clocks()?;
        if color != self.position().turn() {
            if premove {
                self.premove = Some((color, *mv));
                let uci = format!("{}{}", mv.from, mv.to);
                return Ok(vec![Ruling::new(RuleId::Ocr3_1_5, Decision::PremoveQueued { color, uci })]);
            }
            return Err(reject(
                RejectReason::NotYourTurn,
                Some(RuleId::Ocr4_4),
                format!("it is not {color}'s move"),
            ));
        }
        let Some(m) = self.resolve(mv) else {
            return Err(reject(
                RejectReason::IllegalMove,
                Some(RuleId::Ocr3_1_2),
                format!("{} is not a legal move", self.describe(mv)),
            ));
        };
        if let Some(o) = &self.turn.forced
            && !o.allows(m)
        {
            return Err(reject(RejectReason::TouchMove, Some(o.rule), o.reason.clone()));
        }
        // A player who moves is connected again.
        self.disconnected_at[color.index()] = None;
        let mut out = self.play_online(color, m, lag_ms, at);
        // The opponent's premove is played at once as the reply, if legal.
        if self.end.is_none()
            && let Some((pc, pmv)) = self.premove.take()
            && pc == color.other()
        {
            match self.resolve(&pmv) {
                // A premove is played at the instant of the reply: no lag.
                Some(pm) => out.extend(self.play_online(pc, pm, 0, at)),
                None => out.push(Ruling::new(
                    RuleId::Ocr3_1_5,
                    Decision::PremoveDropped { color: pc, uci: format!("{}{}", pmv.from, pmv.to) },
                )),
            }
        }
        Ok(out)
    }

    pub(super) fn play_online(&mut self, color: Color, m: Move, lag_ms: i64, at: i64) -> Vec<Ruling> {
        let mut out = Vec::new();
        let pos = *self.position();
        let san = pos.san(m);
        let uci = pos.uci(m).to_string();
        self.record.push_unchecked(m);
        self.moves_made[color.index()] += 1;
        // A player who moves is at the board (6.7).
        self.arrived[color.index()] = true;
        self.turn = TurnState::default();
        let ply = self.record.ply_count();
        out.push(Ruling::new(RuleId::Ocr3_1, Decision::MoveMade { color, san, uci, ply }));
        // OCR 5.3: an offer is rejected by playing a move.
        if let Some(o) = &self.offer
            && o.by != color
        {
            let by = o.by;
            self.offer = None;
            self.cn_declined(by, color);
            out.push(Ruling::new(
                RuleId::Ocr5_3,
                Decision::DrawOfferLapsed { color: by, reason: format!("{color} played a move") },
            ));
        }
        if let Some(end) = self.automatic_end() {
            out.push(end);
            return out;
        }
        // The clock clamps the lag to the regulations' maximum (0 by default).
        let Ok(report) = self.clock.press_with_lag(Timestamp(at), lag_ms) else {
            return out;
        };
        out.push(Ruling::new(
            RuleId::Ocr4_4,
            Decision::MoveCompleted {
                color,
                used_ms: report.used_ms,
                bonus_ms: report.credited_ms(),
                remaining_ms: self.rem(color, at),
            },
        ));
        out
    }
}
