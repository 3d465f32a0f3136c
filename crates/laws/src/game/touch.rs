//! Touching and adjusting pieces, and the promotion piece (Article 4).

use arbiter_chess::{Color, Piece, Role, Square};

use super::state::Pending;
use super::{Game, Outcome, reject};
use crate::event::{SensedTouch, TouchKind};
use crate::regulations::SensedTouches;
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason, Ruling};

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

    /// A touch an e-board's sensors saw: evidence, weighed by the
    /// regulations ([`SensedTouches`]). Sensors cannot tell whose hand it
    /// was, so it is taken as the act of the player having the move; they
    /// cannot see an adjustment either, so only one announced first
    /// (4.2.1) makes it one.
    pub(super) fn touch_sensed(&mut self, square: Square, piece: Piece, sensed: SensedTouch) -> Outcome {
        self.require_over_the_board(
            RuleId::Ocr1_3,
            "a touch sensed online means nothing: Article 4 does not apply online (OCR 1.3)",
        )?;
        let on_board = self.position().board().piece_at(square);
        if on_board != Some(piece) {
            let there = on_board.map_or_else(
                || "nothing".to_owned(),
                |p| format!("the {} {}", p.color.name(), p.role.name()),
            );
            return Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::Fide4_2b),
                format!(
                    "the board saw the {} {} touched on {square}, where the game has {there}: evidence of \
                     another position",
                    piece.color.name(),
                    piece.role.name()
                ),
            ));
        }
        let color = self.has_move();
        if self.regs.sensed_touches == SensedTouches::Bind {
            let evidence =
                Decision::TouchSensed { color, square, sensed, binding: true, would_allow: Vec::new() };
            let kind = if self.turn.adjust_announced { TouchKind::Adjust } else { TouchKind::Intent };
            let mut out = vec![Ruling::new(RuleId::Fide4_2b, evidence)];
            out.extend(self.touch(color, square, kind)?);
            return Ok(out);
        }
        // Recorded for the arbiter: what the touch would bind the player
        // to, were it ruled one (nothing changes in the game).
        let would = if let Some(forced) = &self.turn.forced {
            Some(forced.clone())
        } else if self.turn.adjust_announced {
            None
        } else {
            let mut touched = self.turn.touched.clone();
            if !touched.contains(&square) {
                touched.push(square);
            }
            self.touch_obligation_of(&touched)
        };
        let would_allow = would.map(|o| self.allowed_san(&o)).unwrap_or_default();
        let evidence = Decision::TouchSensed { color, square, sensed, binding: false, would_allow };
        Ok(vec![Ruling::new(RuleId::Fide4_2b, evidence)])
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
