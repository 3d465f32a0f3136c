//! Completing a move with the press, illegal moves and their penalties
//! (7.5), and with `observe = false` illegal moves left to a claim (A.5.2)
//! and the watch over an illegal position (A.5.4).

use arbiter_chess::{Color, Move, Square};

use super::state::{Claimable, Pending, TurnState, Watch};
use super::{
    Game, Outcome, captured_by, clock_rejection, describe_move, irregularity_text, physical_move, reject,
    squares_touched_by,
};
use crate::clock::Timestamp;
use crate::event::MoveInput;
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, RejectReason, Rejection, Ruling};
use crate::scoring::GameResult;

impl Game {
    /// Presses the clock and takes the press back at once: the mover keeps
    /// the time used, loses what the press credited, and his clock runs again
    /// (7.5.1 with DEC-9, and Article 4 breaches).
    pub(super) fn press_and_retract(&mut self, at: i64) -> Result<(), Rejection> {
        self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
        self.clock.retract_last_press(Timestamp(at)).map_err(clock_rejection)?;
        Ok(())
    }

    /// Removes `credited` ms that a press gave `color` (7.5.2: the increment
    /// of an illegal press is not kept).
    pub(super) fn revoke_credit(&mut self, credited: i64, color: Color, at: i64) {
        if credited > 0 {
            let _ = self.clock.adjust(color, -credited.min(self.rem(color, at)), Timestamp(at));
        }
    }

    /// `observe = false`: completes what `pending` holds with a press by
    /// `color`. An illegal move (7.5.1, 7.5.2, 7.5.4) is not acted on: it
    /// goes on the board as made and the opponent may claim it before his
    /// next move (A.5.2). What the board cannot hold as a move (a piece of
    /// the opponent moved, a king captured, castling through pieces), a
    /// press without a move (7.5.3) and a half-made castling (DEC-6) are
    /// ruled at once, as an observing arbiter would. Returns `true` when a
    /// move now stands completed on the board.
    pub(super) fn complete_unobserved(
        &mut self,
        color: Color,
        pending: Option<Pending>,
        at: i64,
        out: &mut Vec<Ruling>,
    ) -> Result<bool, Rejection> {
        let watch_before = self.watch;
        match pending {
            Some(Pending::Legal { color: c, ply, two_hands: true }) if c == color => {
                // 7.5.4: the move made with two hands is legal; it stays on
                // the board and only a claim takes it back.
                let Some(&m) = self.record.moves().get(ply.wrapping_sub(1)) else {
                    return Err(reject(RejectReason::InvalidArgument, None, "no move to complete"));
                };
                let before = self.record.positions()[ply - 1];
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                out.push(self.move_completed(color, &report, at, RuleId::Fide6_2a));
                // The king and then the rook of a castling (4.4.1).
                let touched = squares_touched_by(&before, m, self.regs.rulings_revision);
                let description = format!("{} made with two hands", before.san(m));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: RuleId::Fide7_5_4,
                        description,
                        ply_before: ply - 1,
                        replacement: None,
                        touched,
                        credited_ms: report.credited_ms(),
                        watch_before,
                    },
                    out,
                );
                Ok(true)
            }
            Some(Pending::UnfinishedPromotion { color: c, ply }) if c == color => {
                // 7.5.2: the pawn stays on its last rank, an illegal
                // position; a claim makes it a queen, as observed.
                let Some(&queen) = self.record.moves().get(ply.wrapping_sub(1)) else {
                    return Err(reject(RejectReason::InvalidArgument, None, "no move to complete"));
                };
                let pawn_move = Move::normal(queen.from(), queen.to());
                let before = self.record.positions()[ply - 1];
                if before.play_irregular(pawn_move).is_err() {
                    return self
                        .complete(color, Some(Pending::UnfinishedPromotion { color, ply }), at, out)
                        .map(|()| true);
                }
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                self.record.pop();
                let _ = self.record.push_irregular(pawn_move);
                out.push(self.move_completed(color, &report, at, RuleId::Fide7_5_2));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: RuleId::Fide7_5_2,
                        description: format!(
                            "{}: pawn not replaced on promotion",
                            describe_move(&before, pawn_move)
                        ),
                        ply_before: ply - 1,
                        replacement: Some(queen),
                        touched: Vec::new(),
                        credited_ms: report.credited_ms(),
                        watch_before,
                    },
                    out,
                );
                Ok(true)
            }
            Some(Pending::Illegal { color: c, mv, description, two_hands }) if c == color => {
                let pos = *self.position();
                let m = physical_move(&pos, &mv);
                let Ok(next) = pos.play_irregular(m) else {
                    // The pieces cannot stand so: the service rules at once.
                    let pending = Pending::Illegal { color, mv, description, two_hands };
                    return self.complete(color, Some(pending), at, out).map(|()| false);
                };
                if watch_before == Some(Watch::MustParry(color))
                    && next.attackers_to(next.king(color), color.other(), next.board().occupied()).any()
                {
                    // A.5.4 comm.: still in check after his next move, the
                    // player has made an illegal move; the arbiter who has
                    // been watching the position acts.
                    self.press_and_retract(at)?;
                    self.turn_after_illegal(&mv);
                    out.extend(self.illegal_move_penalty_under(color, RuleId::FideA5_4, description, at));
                    if self.end.is_none()
                        && let Some(o) = self.obligation()
                    {
                        out.push(self.obligation_ruling(color, &o));
                    }
                    return Ok(false);
                }
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                let touched = self.touched_with(&mv);
                let ply_before = self.record.ply_count();
                let _ = self.record.push_irregular(m);
                self.moves_made[color.index()] += 1;
                self.arrived[color.index()] = true;
                self.turn = TurnState::default();
                out.push(self.move_completed(color, &report, at, RuleId::Fide6_2a));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: RuleId::Fide7_5_1,
                        description,
                        ply_before,
                        replacement: None,
                        touched,
                        credited_ms: report.credited_ms(),
                        watch_before,
                    },
                    out,
                );
                Ok(true)
            }
            Some(p @ Pending::Legal { color: c, .. }) if c == color => {
                self.complete(color, Some(p), at, out)?;
                Ok(true)
            }
            other => {
                self.complete(color, other, at, out)?;
                Ok(false)
            }
        }
    }

    /// The ruling for a completed move, from the press report.
    pub(super) fn move_completed(
        &self,
        color: Color,
        report: &crate::clock::PressReport,
        at: i64,
        rule: RuleId,
    ) -> Ruling {
        Ruling::new(
            rule,
            Decision::MoveCompleted {
                color,
                used_ms: report.used_ms,
                bonus_ms: report.credited_ms(),
                remaining_ms: self.rem(color, at),
            },
        )
    }

    /// A.5.2: records an illegal move nobody acted on.
    pub(super) fn not_acted_on(&mut self, claimable: Claimable, out: &mut Vec<Ruling>) {
        out.push(Ruling::new(
            RuleId::FideA5_2,
            Decision::IllegalMoveNotActedOn {
                color: claimable.color,
                description: claimable.description.clone(),
            },
        ));
        self.claimable = Some(claimable);
    }

    /// The touched squares after an illegal move `mv` is taken back: 4.3
    /// and 4.7 apply to the move replacing it (7.5.1), so every piece
    /// touched before it still counts, in order, then the piece moved and
    /// the piece it would have captured (en passant included).
    pub(super) fn turn_after_illegal(&mut self, mv: &MoveInput) {
        self.turn.touched = self.touched_with(mv);
    }

    /// The squares touched on this move, then those `mv` touched (the
    /// piece moved and the one it captures), each once.
    fn touched_with(&self, mv: &MoveInput) -> Vec<Square> {
        let mut touched = self.turn.touched.clone();
        for sq in std::iter::once(mv.from).chain(captured_by(self.position(), mv)) {
            if !touched.contains(&sq) {
                touched.push(sq);
            }
        }
        touched
    }

    /// `observe = false`, after `color` completed a move: the A.5.4 watch
    /// decides, and a position left by an illegal move that stood is looked
    /// at.
    pub(super) fn after_completion(&mut self, color: Color, out: &mut Vec<Ruling>) {
        match self.watch.take() {
            Some(Watch::Seen { in_check }) => {
                if let Some(why) = self.position().irregularity() {
                    // Still illegal once the next move is completed: a draw.
                    self.claimable = None;
                    self.look_at_completion = false;
                    let reason = format!(
                        "an illegal position is still on the board after the next move ({})",
                        irregularity_text(&why)
                    );
                    out.push(self.finish(
                        GameResult::Draw,
                        EndCause::IllegalPosition,
                        &reason,
                        RuleId::FideA5_4,
                    ));
                    return;
                }
                let to_move = self.position().turn();
                let still = (in_check == Some(to_move) && self.position().is_check()).then_some(to_move);
                if let Some(c) = still {
                    self.watch = Some(Watch::MustParry(c));
                }
                out.push(Ruling::new(RuleId::FideA5_4, Decision::IllegalPositionCleared { in_check: still }));
            }
            // He completed a move that got him out of check (one that did
            // not was ruled an illegal move when completed).
            Some(Watch::MustParry(c)) if c == color => {}
            other => self.watch = other,
        }
        if std::mem::take(&mut self.look_at_completion) {
            out.extend(self.see_illegal_position());
        }
    }

    /// A.5.2: `color` claims his opponent's illegal move before making his
    /// next move; it is ruled as an observed one (7.5.1 to 7.5.5).
    pub(super) fn claim_illegal_move(&mut self, color: Color, at: i64) -> Outcome {
        if self.regs.observe {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::FideA5_2),
                "the service acts on every completed illegal move itself (observe = true): there is nothing \
                 to claim",
            ));
        }
        let claim = match &self.claimable {
            Some(c) if c.color != color => c.clone(),
            Some(_) => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some(RuleId::FideA5_2),
                    "a player cannot claim his own illegal move",
                ));
            }
            None => {
                let message = match &self.stood {
                    Some(s) if s.color != color => format!(
                        "too late: {color} made his next move after {}'s illegal move {}, which therefore \
                         stands (A.5.2); only the players, by agreement and without the arbiter, can still \
                         correct it",
                        s.color, s.description
                    ),
                    _ => format!("there is no illegal move of {}'s to claim", color.other()),
                };
                return Err(reject(RejectReason::NotApplicable, Some(RuleId::FideA5_2), message));
            }
        };
        let offender = claim.color;
        let mut out = vec![Ruling::new(
            RuleId::FideA5_2,
            Decision::IllegalMoveClaimed { color, description: claim.description.clone() },
        )];
        // The clock first, so that a refusal leaves everything as it was.
        if claim.replacement.is_none() {
            let moves = self.clock.moves_completed(offender).saturating_sub(1);
            self.clock.set_moves_completed(offender, moves, Timestamp(at)).map_err(clock_rejection)?;
            self.clock.hand_over(offender, Timestamp(at)).map_err(clock_rejection)?;
        }
        self.claimable = None;
        self.revoke_credit(claim.credited_ms, offender, at);
        while self.record.ply_count() > claim.ply_before {
            self.record.pop();
            let mover = self.position().turn();
            self.moves_made[mover.index()] = self.moves_made[mover.index()].saturating_sub(1);
        }
        self.pending = None;
        self.premove = None;
        self.watch = claim.watch_before;
        if let Some(m) = claim.replacement {
            // 7.5.2: the move stands with a queen; the claimant keeps the move.
            if self.record.push(m).is_ok() {
                self.moves_made[offender.index()] += 1;
            }
        } else {
            out.push(Ruling::new(
                RuleId::Fide7_5_1,
                Decision::PositionReinstated { ply: claim.ply_before, fen: self.position().fen() },
            ));
            self.turn =
                TurnState { touched: claim.touched.clone(), claim_right_lost: true, ..TurnState::default() };
        }
        out.extend(self.illegal_move_penalty_under(offender, claim.rule, claim.description, at));
        if self.end.is_none() {
            if claim.replacement.is_some() {
                out.extend(self.automatic_end());
            } else if let Some(o) = self.obligation() {
                out.push(self.obligation_ruling(offender, &o));
            }
        }
        if self.end.is_none() {
            out.extend(self.see_illegal_position());
        }
        Ok(out)
    }

    /// Completes whatever `pending` holds with a press by `color` (whose
    /// clock runs).
    pub(super) fn complete(
        &mut self,
        color: Color,
        pending: Option<Pending>,
        at: i64,
        out: &mut Vec<Ruling>,
    ) -> Result<(), Rejection> {
        match pending {
            Some(Pending::Legal { color: c, two_hands: true, .. }) if c == color => {
                // 7.5.4: a move made with two hands and completed is an
                // illegal move: reinstate the position before it (DEC-9 for
                // the clocks); the piece moved (and the one captured) were
                // touched.
                self.press_and_retract(at)?;
                let Some(m) = self.record.pop() else {
                    return Err(reject(RejectReason::InvalidArgument, None, "no move to take back"));
                };
                self.moves_made[color.index()] = self.moves_made[color.index()].saturating_sub(1);
                let description = format!("{} made with two hands", self.position().san(m));
                // The piece moved and the one captured were touched; for a
                // castling the king and then the rook, and the king was
                // released on its castling square: the replacement must be
                // that castling (4.4.1, 4.7.2).
                self.turn = TurnState {
                    claim_right_lost: true,
                    touched: squares_touched_by(self.position(), m, self.regs.rulings_revision),
                    ..TurnState::default()
                };
                out.extend(self.illegal_move_penalty_under(color, RuleId::Fide7_5_4, description, at));
                if self.end.is_none()
                    && let Some(o) = self.obligation()
                {
                    out.push(self.obligation_ruling(color, &o));
                }
            }
            Some(Pending::HalfCastling { color: c, castle }) if c == color => {
                // DEC-6: the king on its castling square, the rook unmoved,
                // the clock pressed: a completed illegal move; the
                // replacement must be castling on that side (4.7.2).
                self.press_and_retract(at)?;
                let description =
                    format!("{} not completed: the rook was not moved", self.position().san(castle));
                out.extend(self.illegal_move_penalty(color, description, at));
                if self.end.is_none()
                    && let Some(o) = self.obligation()
                {
                    out.push(self.obligation_ruling(color, &o));
                }
            }
            Some(Pending::Legal { color: c, .. }) if c == color => {
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                out.push(Ruling::new(
                    RuleId::Fide6_2a,
                    Decision::MoveCompleted {
                        color,
                        used_ms: report.used_ms,
                        bonus_ms: report.credited_ms(),
                        remaining_ms: self.rem(color, at),
                    },
                ));
            }
            Some(Pending::UnfinishedPromotion { color: c, .. }) if c == color => {
                // 7.5.2: the move stands with a queen; penalised as illegal.
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                self.revoke_credit(report.credited_ms(), color, at);
                out.push(Ruling::new(
                    RuleId::Fide7_5_2,
                    Decision::MoveCompleted {
                        color,
                        used_ms: report.used_ms,
                        bonus_ms: 0,
                        remaining_ms: self.rem(color, at),
                    },
                ));
                out.extend(self.illegal_move_penalty_under(
                    color,
                    RuleId::Fide7_5_2,
                    "pawn not replaced on promotion".into(),
                    at,
                ));
                if self.end.is_none()
                    && let Some(end) = self.automatic_end()
                {
                    out.push(end);
                }
            }
            Some(Pending::Illegal { color: c, mv, description, .. }) if c == color => {
                // 7.5.1: reinstate the position before the illegal move; the
                // offender keeps the time used, loses the increment (DEC-9)
                // and must move the piece he touched.
                self.press_and_retract(at)?;
                self.turn_after_illegal(&mv);
                out.extend(self.illegal_move_penalty(color, description, at));
                if self.end.is_none()
                    && let Some(o) = self.obligation()
                {
                    out.push(self.obligation_ruling(color, &o));
                }
            }
            Some(Pending::Refused { color: c }) if c == color => {
                // An Article 4 breach is not an illegal move: take the move
                // back, remove the increment, no penalty (AS-04).
                self.press_and_retract(at)?;
                if let Some(o) = self.obligation() {
                    out.push(self.obligation_ruling(color, &o));
                }
            }
            other => {
                // 7.5.3: pressing without moving counts as an illegal move.
                self.pending = other;
                self.press_and_retract(at)?;
                out.extend(self.illegal_move_penalty_under(
                    color,
                    RuleId::Fide7_5_3,
                    "clock pressed without a move".into(),
                    at,
                ));
            }
        }
        Ok(())
    }

    /// 7.5.5: first completed illegal move: the opponent gets the penalty;
    /// second: the game is lost, unless the opponent cannot checkmate.
    pub(super) fn illegal_move_penalty(&mut self, color: Color, description: String, at: i64) -> Vec<Ruling> {
        self.illegal_move_penalty_under(color, RuleId::Fide7_5_1, description, at)
    }

    /// As [`Game::illegal_move_penalty`], the illegal move ruling naming
    /// `rule` (7.5.1 to 7.5.4).
    pub(super) fn illegal_move_penalty_under(
        &mut self,
        color: Color,
        rule: RuleId,
        description: String,
        at: i64,
    ) -> Vec<Ruling> {
        self.illegal_moves[color.index()] += 1;
        let count = self.illegal_moves[color.index()];
        let mut out = vec![Ruling::new(rule, Decision::IllegalMove { color, count, description })];
        if count >= 2 {
            out.extend(self.lose_unless_cannot_mate(
                color,
                EndCause::IllegalMoves,
                RuleId::Fide7_5_5,
                "second completed illegal move",
            ));
        } else {
            let penalty = self.regs.penalty();
            out.push(self.add_time(color.other(), penalty, at, RuleId::Fide7_5_5));
        }
        out
    }
}
