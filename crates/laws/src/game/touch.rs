//! Touching and adjusting pieces, and the promotion piece (Article 4).

use arbiter_chess::{Color, Role, Square};

use super::state::Pending;
use super::{Game, Outcome, reject};
use crate::event::TouchKind;
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason};

impl Game {
    pub(super) fn announce_adjust(&mut self, color: Color) -> Outcome {
        self.require_over_the_board(RuleId::Ocr1_3, "there is no adjusting online")?;
        if color != self.has_move() {
            // DEC-2: a warning, no obligation.
            return Ok(vec![self.warn(color, "adjusting when not having the move", RuleId::Fide4_2a)]);
        }
        self.turn.adjust_announced = true;
        Ok(Vec::new())
    }

    pub(super) fn touch(&mut self, color: Color, square: Square, kind: TouchKind) -> Outcome {
        self.require_over_the_board(RuleId::Ocr1_3, "there is no touch-move online")?;
        if kind == TouchKind::Accidental {
            return Ok(Vec::new());
        }
        if !self.position().board().occupied().contains(square) {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                format!("there is no piece on {square}"),
            ));
        }
        if color != self.has_move() {
            let what = if kind == TouchKind::Adjust { "adjusting" } else { "touching a piece" };
            return Ok(vec![self.warn(color, format!("{what} when not having the move"), RuleId::Fide4_2a)]);
        }
        if matches!(self.pending, Some(Pending::Illegal { .. }) | Some(Pending::Refused { .. })) {
            // Still bound by the piece already moved; further touches add to the order.
        }
        if kind == TouchKind::Adjust && self.turn.adjust_announced {
            return Ok(Vec::new());
        }
        // 4.2.2: any other contact is a touch with intent.
        let mut out = Vec::new();
        if !self.turn.touched.contains(&square) {
            self.turn.touched.push(square);
        }
        self.turn.claim_right_lost = true;
        out.extend(self.offer_lapses_by_touch(color));
        if let Some(o) = self.obligation() {
            out.push(self.obligation_ruling(color, &o));
        }
        Ok(out)
    }

    /// 4.3.3: an own piece and an opponent's piece touched at once (or in
    /// an order nobody can tell): the own piece counts as touched first.
    pub(super) fn simultaneous_touch(&mut self, color: Color, own: Square, opponent: Square) -> Outcome {
        self.require_over_the_board(RuleId::Ocr1_3, "there is no touch-move online")?;
        let board = self.position().board();
        if board.color_at(own) != Some(color) {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide4_3c),
                format!("{own} holds no piece of {color}'s: name the player's own piece first"),
            ));
        }
        if board.color_at(opponent) != Some(!color) {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide4_3c),
                format!("{opponent} holds no piece of {}'s: name the opponent's piece second", !color),
            ));
        }
        if color != self.has_move() {
            // DEC-2: one warning for the one act, no obligation.
            return self.touch(color, own, TouchKind::Intent);
        }
        let mut out = self.touch(color, own, TouchKind::Intent)?;
        let second = self.touch(color, opponent, TouchKind::Intent)?;
        // One act: only the obligation after both touches is ruled.
        out.retain(|r| !matches!(r.decision, Decision::Obligation { .. }));
        out.extend(second);
        Ok(out)
    }

    pub(super) fn promotion_touched(&mut self, color: Color, role: Role) -> Outcome {
        self.require_over_the_board(RuleId::Ocr1_3, "promotion is chosen with the move online")?;
        if color != self.has_move() {
            return Err(reject(RejectReason::NotYourTurn, None, format!("{color} does not have the move")));
        }
        if matches!(role, Role::Pawn | Role::King) {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide3_7),
                "a pawn promotes to a queen, rook, bishop or knight",
            ));
        }
        if self.turn.promotion.is_none() {
            self.turn.promotion = Some(role);
        }
        Ok(Vec::new())
    }
}
