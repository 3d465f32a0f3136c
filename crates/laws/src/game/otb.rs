//! Moves over the board: making a move (4.7), a half-made castling
//! (DEC-6), two hands (7.5.4) and pressing the clock (6.2).

use arbiter_chess::{Bitboard, Color, Move, Role, Square};

use super::state::{Pending, Stood, TurnState};
use super::{Game, Outcome, captured_by, describe_move, reject};
use crate::event::MoveInput;
use crate::rule::RuleId;
use crate::ruling::{Decision, RejectReason, Ruling};
use crate::touch::Obligation;

impl Game {
    pub(super) fn make_move(&mut self, color: Color, mv: &MoveInput, at: i64) -> Outcome {
        self.require_over_the_board(RuleId::Ocr3_1, "online moves are submitted, not made")?;
        self.require_running_clocks()?;
        let mut out = Vec::new();
        let correcting = match &self.pending {
            Some(Pending::Legal { color: c, .. } | Pending::UnfinishedPromotion { color: c, .. })
                if *c == color =>
            {
                return Err(reject(
                    RejectReason::PieceReleased,
                    Some(RuleId::Fide4_7),
                    "a piece released on a square as a legal move cannot be moved to another square",
                ));
            }
            Some(Pending::HalfCastling { color: c, castle }) if *c == color => {
                // 4.7.2: only castling on that side may complete the move.
                if self.resolve(mv) != Some(*castle) {
                    return Err(reject(
                        RejectReason::PieceReleased,
                        Some(RuleId::Fide4_7),
                        "the king was released on its castling square: only castling on that side may \
                         complete the move",
                    ));
                }
                true
            }
            Some(Pending::Illegal { color: c, .. }) | Some(Pending::Refused { color: c }) => *c == color,
            _ => false,
        };
        if color != self.has_move() {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some(RuleId::Fide1_3),
                format!("{color} does not have the move"),
            ));
        }
        if !self.position().board().occupied().contains(mv.from) {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                format!("there is no piece on {}", mv.from),
            ));
        }
        // A.5.2: the opponent of an illegal move nobody acted on makes his
        // next move instead of claiming: the illegal move stands.
        out.extend(self.illegal_move_stands_by(color));
        // DEC-24: the opponent's move that still awaited its press is
        // answered; DEC-22: the clock counts the moves completed.
        out.extend(self.settle_unpressed_move(color.other(), at));
        if self.end.is_some() {
            return Ok(out);
        }
        out.extend(self.count_completed_moves(color, at));
        if correcting {
            // Correcting an illegal or refused move before pressing: allowed,
            // still bound by Article 4.
            self.pending = None;
        }
        // Moving a piece is touching it (and a piece it captures, en
        // passant included).
        let captured = captured_by(self.position(), mv);
        for sq in std::iter::once(mv.from).chain(captured) {
            if !self.turn.touched.contains(&sq) {
                self.turn.touched.push(sq);
            }
        }
        self.turn.claim_right_lost = true;
        out.extend(self.offer_lapses_by_touch(color));
        // 4.4.4: the promotion piece that touched the square is final.
        let mut input = *mv;
        if let (Some(chosen), Some(_)) = (self.turn.promotion, input.promotion) {
            input.promotion = Some(chosen);
        }
        let pawn_to_last = self.position().board().pawns().contains(mv.from)
            && (mv.to.rank() == arbiter_chess::Rank::First || mv.to.rank() == arbiter_chess::Rank::Eighth);
        let unfinished_promotion = pawn_to_last && input.promotion.is_none();
        if unfinished_promotion {
            input.promotion = Some(self.turn.promotion.unwrap_or(Role::Queen));
        }
        match self.resolve(&input) {
            Some(m) => {
                if let Some(o) = self.obligation()
                    && !o.allows(m)
                {
                    // The service intervenes at once: the move is taken back.
                    self.pending = Some(Pending::Refused { color });
                    out.push(self.obligation_ruling(color, &o));
                    return Ok(out);
                }
                let pos = *self.position();
                let san = pos.san(m);
                let uci = pos.uci(m).to_string();
                self.record.push_unchecked(m);
                self.moves_made[color.index()] += 1;
                // A player who moves is at the board (6.7).
                self.arrived[color.index()] = true;
                let ply = self.record.ply_count();
                self.turn = TurnState::default();
                self.pending = Some(if unfinished_promotion {
                    Pending::UnfinishedPromotion { color, ply }
                } else {
                    Pending::Legal { color, ply, two_hands: false }
                });
                out.push(Ruling::new(
                    if unfinished_promotion { RuleId::Fide7_5_2 } else { RuleId::Fide4_7 },
                    Decision::MoveMade { color, san, uci, ply },
                ));
                if !unfinished_promotion && let Some(end) = self.automatic_end() {
                    // 6.2.1.1: a move that ends the game is completed.
                    self.pending = None;
                    out.push(end);
                }
            }
            None => {
                let description = self.describe(mv);
                self.pending = Some(Pending::Illegal {
                    color,
                    mv: *mv,
                    description: description.clone(),
                    two_hands: false,
                });
                out.push(Ruling::new(
                    RuleId::Fide7_5_1,
                    Decision::IllegalMoveNotCompleted { color, description },
                ));
            }
        }
        Ok(out)
    }

    /// 4.7.2 and DEC-6: the king released on its castling square, the rook
    /// not yet moved.
    pub(super) fn castling_king_released(&mut self, color: Color, to: Square, at: i64) -> Outcome {
        self.require_over_the_board(RuleId::Ocr3_1, "online moves are submitted whole")?;
        self.require_running_clocks()?;
        if color != self.has_move() {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some(RuleId::Fide1_3),
                format!("{color} does not have the move"),
            ));
        }
        let king = self.position().king(color);
        let castle = self
            .position()
            .legal_moves_filtered(Bitboard::from_square(king), Bitboard::FULL)
            .iter()
            .copied()
            .find(|m| m.is_castle() && m.king_or_piece_to() == to && !self.is_banned(*m));
        let Some(castle) = castle else {
            // Castling that way is not legal: the king move is an ordinary
            // (illegal) king move, judged as any move.
            return self.make_move(color, &MoveInput { from: king, to, promotion: None, castle: true }, at);
        };
        match &self.pending {
            Some(Pending::Illegal { color: c, .. } | Pending::Refused { color: c }) if *c == color => {}
            Some(Pending::HalfCastling { color: c, castle: m }) if *c == color && *m == castle => {
                return Ok(Vec::new());
            }
            Some(
                Pending::Legal { color: c, .. }
                | Pending::UnfinishedPromotion { color: c, .. }
                | Pending::HalfCastling { color: c, .. },
            ) if *c == color => {
                return Err(reject(
                    RejectReason::PieceReleased,
                    Some(RuleId::Fide4_7),
                    "a piece released on a square as a legal move cannot be moved to another square",
                ));
            }
            _ => {}
        }
        let mut stands = self.illegal_move_stands_by(color);
        stands.extend(self.settle_unpressed_move(color.other(), at));
        if self.end.is_some() {
            return Ok(stands);
        }
        stands.extend(self.count_completed_moves(color, at));
        if let Some(o) = self.obligation()
            && !o.allows(castle)
        {
            // Touch-move binds the player to other moves: as for any
            // move that breaks Article 4, the service intervenes.
            let mut out = stands;
            out.extend(self.offer_lapses_by_touch(color));
            self.pending = Some(Pending::Refused { color });
            self.turn.claim_right_lost = true;
            out.push(self.obligation_ruling(color, &o));
            return Ok(out);
        }
        let mut out = stands;
        out.extend(self.offer_lapses_by_touch(color));
        if !self.turn.touched.contains(&king) {
            self.turn.touched.push(king);
        }
        self.turn.claim_right_lost = true;
        let forced = Obligation {
            allowed: vec![castle],
            rule: RuleId::Fide4_7,
            reason: format!(
                "the king was released on {to}: only {} may complete the move",
                self.position().san(castle)
            ),
        };
        out.push(self.obligation_ruling(color, &forced));
        self.turn.forced = Some(forced);
        self.pending = Some(Pending::HalfCastling { color, castle });
        Ok(out)
    }

    /// DEC-24: `offender`'s move, made and not yet completed by a press,
    /// is answered by the opponent's move. An unreplaced pawn on the last
    /// rank is ruled at once as when the clock is pressed (7.5.2: the
    /// queen, 7.5.5), so the record never holds a queen the board lacks;
    /// with `observe = false` the pawn stands (A.5.2: the opponent made his
    /// move without claiming) and A.5.4 looks at the position. A move made
    /// with two hands stays on the board: without a press 7.5.4 does not
    /// apply, the breach of 4.1 earns a 12.9.1 warning (`observe = false`:
    /// nothing, as for an illegal move that stood). Only revision 2.
    fn settle_unpressed_move(&mut self, offender: Color, at: i64) -> Vec<Ruling> {
        if !self.regs.audited_rulings() {
            return Vec::new();
        }
        match self.pending.clone() {
            Some(Pending::UnfinishedPromotion { color, ply }) if color == offender => {
                self.pending = None;
                if self.regs.observe {
                    let mut out = self.illegal_move_penalty_under(
                        offender,
                        RuleId::Fide7_5_2,
                        "pawn not replaced on promotion; the opponent answered before the clock was pressed"
                            .into(),
                        at,
                    );
                    if self.end.is_none()
                        && let Some(end) = self.automatic_end()
                    {
                        out.push(end);
                    }
                    return out;
                }
                let Some(&queen) = self.record.moves().get(ply.wrapping_sub(1)) else { return Vec::new() };
                let pawn_move = Move::normal(queen.from(), queen.to());
                let before = self.record.positions()[ply - 1];
                if before.play_irregular(pawn_move).is_err() {
                    return Vec::new();
                }
                self.record.pop();
                let _ = self.record.push_irregular(pawn_move);
                let description =
                    format!("{}: pawn not replaced on promotion", describe_move(&before, pawn_move));
                self.stood = Some(Stood { color: offender, description: description.clone() });
                self.look_at_completion = true;
                vec![Ruling::new(
                    RuleId::FideA5_2,
                    Decision::IllegalMoveStands { color: offender, description },
                )]
            }
            Some(Pending::Legal { color, two_hands: true, .. }) if color == offender => {
                self.pending = None;
                if !self.regs.observe {
                    return Vec::new();
                }
                vec![self.warn(
                    offender,
                    "a move made with two hands (4.1), answered before the clock was pressed: not an illegal \
                     move (7.5.4 needs the press)",
                    RuleId::Fide12_9,
                )]
            }
            _ => Vec::new(),
        }
    }

    /// 7.5.4: the move made and not yet completed was made with two hands.
    pub(super) fn used_two_hands(&mut self, color: Color) -> Outcome {
        self.require_over_the_board(RuleId::Ocr1_3, "there are no hands online")?;
        if self.clock.running() != Some(color) {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some(RuleId::Fide7_5_4),
                format!("{color}'s clock is not running: no move of {color} awaits completion"),
            ));
        }
        match &mut self.pending {
            Some(
                Pending::Legal { color: c, two_hands, .. } | Pending::Illegal { color: c, two_hands, .. },
            ) if *c == color => {
                // Two irregularities in one move count as one (7.5.5 comm.).
                *two_hands = true;
                Ok(Vec::new())
            }
            // 7.5.2 already makes the completion an illegal move; two hands
            // add no second one.
            Some(Pending::UnfinishedPromotion { color: c, .. }) if *c == color => Ok(Vec::new()),
            _ => Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide7_5_4),
                format!("{color} has no move awaiting completion"),
            )),
        }
    }

    pub(super) fn press_clock(&mut self, color: Color, other_hand: bool, at: i64) -> Outcome {
        self.require_over_the_board(RuleId::Ocr4_4, "the online clock switches by itself")?;
        self.require_running_clocks()?;
        let mut out = Vec::new();
        if self.clock.running() != Some(color) {
            // A move made while the opponent's clock still ran: the press
            // completes it without changing the clock (6.2.1.2).
            let completes = matches!(&self.pending, Some(Pending::Legal { color: c, .. }) if *c == color);
            if !completes {
                return Err(reject(
                    RejectReason::NotYourTurn,
                    Some(RuleId::Dec11),
                    format!("{color}'s clock is not running; the press is ignored"),
                ));
            }
            self.pending = None;
            // DEC-22: the clock counts the move this press completed.
            out.extend(self.count_completed_moves(color, at));
            if !self.regs.observe {
                self.after_completion(color, &mut out);
            }
        }
        if other_hand {
            // 6.2.3: not an illegal move; 12.9 (default warning, AS-46).
            out.push(self.warn(color, "pressed the clock with the other hand", RuleId::Fide6_2c));
        }
        if self.clock.running() != Some(color) {
            return Ok(out);
        }
        let pending = self.pending.take();
        let before = pending.clone();
        let result = if self.regs.observe {
            self.complete(color, pending, at, &mut out).map(|()| false)
        } else {
            self.complete_unobserved(color, pending, at, &mut out)
        };
        match result {
            Err(e) => {
                self.pending = before;
                return Err(e);
            }
            Ok(true) if self.end.is_none() => self.after_completion(color, &mut out),
            Ok(_) => {}
        }
        Ok(out)
    }
}
