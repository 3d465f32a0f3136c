//! Draw offers, agreements and claims (9.1 to 9.5, 5.2.3, CN-7) and
//! resignation (5.1.2).

use arbiter_chess::{Bitboard, Color, Move};

use super::state::{DrawOffer, Pending};
use super::{Game, Outcome, reject};
use crate::event::{ClaimKind, MoveInput};
use crate::regulations::DrawOfferRestriction;
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, RejectReason, Rejection, Ruling};
use crate::scoring::GameResult;
use crate::touch::Obligation;

impl Game {
    /// 9.1.1: the regulations' restriction on offers and agreements.
    pub(super) fn draw_restriction(&self) -> Result<(), Rejection> {
        match self.regs.draw_offers {
            DrawOfferRestriction::None => Ok(()),
            DrawOfferRestriction::BeforeMove(n) => {
                if self.moves_made.iter().any(|&m| m < n) {
                    return Err(reject(
                        RejectReason::OfferNotAllowed,
                        Some(RuleId::Fide9_1_1),
                        format!("draw offers and agreements are not allowed before move {n} by each player"),
                    ));
                }
                Ok(())
            }
            DrawOfferRestriction::WithoutArbiter => Err(reject(
                RejectReason::OfferNotAllowed,
                Some(RuleId::Fide9_1_1),
                "draw offers and agreements need the arbiter's consent in this event",
            )),
        }
    }

    pub(super) fn offer_draw(&mut self, color: Color) -> Outcome {
        self.draw_restriction()?;
        if self.regs.cn_draw_alternation && self.cn_blocked[color.index()] {
            return Err(reject(
                RejectReason::OfferNotAllowed,
                Some(RuleId::Cn7),
                "your last offer was declined: you may offer again after declining an offer of your opponent",
            ));
        }
        match &self.offer {
            Some(o) if o.by == color => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some(RuleId::Fide9_1_2b),
                    "your offer is still pending",
                ));
            }
            Some(_) => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some(RuleId::Fide9_1_2b),
                    "your opponent's offer is pending: accept or decline it",
                ));
            }
            None => {}
        }
        let ply = self.record.ply_count();
        self.offer = Some(DrawOffer { by: color, ply });
        let mut out = vec![Ruling::new(RuleId::Fide9_1_2a, Decision::DrawOffered { color, ply })];
        if !self.regs.mode.is_online() {
            // 9.1.2.1: the offer belongs after one's own move, before the
            // press. On one's own time before moving it is valid but earns a
            // 12.9.1 warning (DEC-17).
            let just_moved = matches!(&self.pending, Some(Pending::Legal { color: c, .. }) if *c == color);
            if !just_moved && self.clock.running() == Some(color) {
                out.push(self.warn(color, "draw offered before making a move", RuleId::Fide9_1_2a));
            }
        }
        Ok(out)
    }

    pub(super) fn accept_draw(&mut self, color: Color) -> Outcome {
        let Some(o) = &self.offer else {
            return Err(reject(
                RejectReason::NoOffer,
                Some(RuleId::Fide9_1_2b),
                "there is no draw offer to accept",
            ));
        };
        if o.by == color {
            return Err(reject(
                RejectReason::NoOffer,
                Some(RuleId::Fide9_1_2b),
                "a player cannot accept his own offer",
            ));
        }
        if self.moves_made.contains(&0) {
            return Err(reject(
                RejectReason::OfferNotAllowed,
                Some(RuleId::Fide5_2_3),
                "a draw by agreement needs at least one move by each player",
            ));
        }
        // The restriction covers agreements too: an offer can exist despite
        // it (a Guidelines III.4 request made before move n).
        self.draw_restriction()?;
        Ok(vec![self.finish(GameResult::Draw, EndCause::Agreement, "agreement", RuleId::Fide5_2_3)])
    }

    pub(super) fn decline_draw(&mut self, color: Color) -> Outcome {
        match &self.offer {
            Some(o) if o.by != color => {
                let by = o.by;
                self.offer = None;
                self.cn_declined(by, color);
                Ok(vec![Ruling::new(RuleId::Fide9_1_2b, Decision::DrawOfferDeclined { color })])
            }
            _ => Err(reject(
                RejectReason::NoOffer,
                Some(RuleId::Fide9_1_2b),
                "there is no draw offer to decline",
            )),
        }
    }

    pub(super) fn claim_draw(
        &mut self,
        color: Color,
        kind: ClaimKind,
        intended: Option<&MoveInput>,
        at: i64,
    ) -> Outcome {
        let (cause, rule) = match kind {
            ClaimKind::Threefold => (EndCause::ThreefoldRepetition, RuleId::Fide9_2),
            ClaimKind::FiftyMoves => (EndCause::FiftyMoves, RuleId::Fide9_3),
        };
        let has_move = color == self.has_move()
            && self
                .pending
                .as_ref()
                .is_none_or(|p| !matches!(p, Pending::Illegal { .. } | Pending::HalfCastling { .. }));
        // The move written with the claim, if it is legal (Article 3).
        let intended_move = if has_move { intended.and_then(|i| self.resolve(i)) } else { None };
        // 9.2.1.1: a move written with an earlier incorrect claim on this
        // move cannot be changed; claiming with another one is incorrect
        // (DEC-18).
        let changed = match (has_move, intended, &self.turn.written) {
            (true, Some(i), Some(w)) => !self.same_written(i, w),
            _ => false,
        };
        let mut correct = false;
        let reason = if !has_move {
            format!("{color} does not have the move")
        } else if changed {
            let w = self.turn.written.map(|w| self.describe(&w)).unwrap_or_default();
            format!(
                "the move written with the earlier claim ({w}) cannot be changed (9.2.1.1) and must be made (9.5.3)"
            )
        } else if self.turn.claim_right_lost && !self.regs.mode.is_online() {
            "a piece was touched: the right to claim on this move is lost (9.4)".into()
        } else {
            correct = match (kind, intended_move) {
                (ClaimKind::Threefold, Some(m)) => {
                    self.record.is_threefold_repetition() || self.record.is_threefold_repetition_after(m)
                }
                (ClaimKind::Threefold, None) => self.record.is_threefold_repetition(),
                (ClaimKind::FiftyMoves, Some(m)) => {
                    self.record.is_fifty_moves() || self.record.is_fifty_moves_after(m)
                }
                (ClaimKind::FiftyMoves, None) => self.record.is_fifty_moves(),
            };
            match kind {
                ClaimKind::Threefold => "the position has not appeared three times".into(),
                ClaimKind::FiftyMoves => {
                    "fifty moves have not been played without a capture or pawn move".into()
                }
            }
        };
        if correct {
            let what = match kind {
                ClaimKind::Threefold => "threefold repetition (claimed)",
                ClaimKind::FiftyMoves => "fifty-move rule (claimed)",
            };
            return Ok(vec![self.finish(GameResult::Draw, cause, what, rule)]);
        }
        // 9.5.3: the opponent gets the penalty; the game continues; an
        // intended move must be made in accordance with Articles 3 and 4.
        let mut out = vec![Ruling::new(RuleId::Fide9_5c, Decision::ClaimIncorrect { color, reason })];
        let penalty = self.regs.penalty();
        out.push(self.add_time(color.other(), penalty, at, RuleId::Fide9_5c));
        if has_move && let Some(i) = intended {
            if !changed {
                self.turn.written = Some(*i);
                if let Some(f) = self.written_move_obligation(i, intended_move) {
                    self.turn.forced = Some(f);
                }
            }
            // The move the player is now bound to: the written one, or the
            // touched piece that still binds him (DEC-19).
            if let Some(o) = self.obligation() {
                out.push(self.obligation_ruling(color, &o));
            }
        }
        Ok(out)
    }

    /// 9.5.3: the move `written` with an incorrect claim (`legal` if it is
    /// one) must be made in accordance with Articles 3 and 4. A touched
    /// piece keeps binding the player (4.3, 4.4): the written move is
    /// forced only if touch-move allows it, and otherwise nothing is added
    /// to the touch-move obligation (DEC-19). An illegal written move
    /// binds to another move of the piece written, unless a touched piece
    /// already binds.
    fn written_move_obligation(&self, written: &MoveInput, legal: Option<Move>) -> Option<Obligation> {
        let touch = self.touch_obligation();
        match legal {
            Some(m) if touch.as_ref().is_none_or(|o| o.allows(m)) => Some(Obligation {
                allowed: vec![m],
                rule: RuleId::Fide9_5c,
                reason: "the move written with an incorrect claim must be played".into(),
            }),
            Some(_) => None,
            None if touch.is_some() => None,
            None => {
                let moves: Vec<Move> = self
                    .position()
                    .legal_moves_filtered(Bitboard::from_square(written.from), Bitboard::FULL)
                    .iter()
                    .copied()
                    .filter(|m| !self.is_banned(*m))
                    .collect();
                (!moves.is_empty()).then(|| Obligation {
                    allowed: moves,
                    rule: RuleId::Fide9_5c,
                    reason: format!(
                        "the intended move is illegal: another move with the piece on {}",
                        written.from
                    ),
                })
            }
        }
    }

    /// `true` if `a` and `b` write the same move: the same legal move, or
    /// the same squares and promotion piece.
    fn same_written(&self, a: &MoveInput, b: &MoveInput) -> bool {
        match (self.resolve(a), self.resolve(b)) {
            (Some(x), Some(y)) => x == y,
            _ => (a.from, a.to, a.promotion) == (b.from, b.to, b.promotion),
        }
    }

    pub(super) fn resign(&mut self, color: Color) -> Outcome {
        Ok(self.lose_unless_cannot_mate(color, EndCause::Resignation, RuleId::Fide5_1_2, "resignation"))
    }
}
