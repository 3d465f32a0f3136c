//! The arbiter's acts: starting, pausing and setting clocks (6.10, 6.11),
//! penalties (12.9), reinstating a position, declaring a result (8.7, OCR
//! 15.3, 15.4), electronic devices (11.3), answers to questions (DEC-12) and
//! service outages.

use arbiter_chess::Color;

use super::state::{QuestionKind, TurnState};
use super::{Game, Outcome, clock_rejection, reject, win_for};
use crate::clock::Timestamp;
use crate::event::{Answer, DeclaredResult, PenaltyKind};
use crate::regulations::{ClockAuthority, DevicePenalty};
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, RejectReason, Rejection, Ruling};
use crate::scoring::{GameResult, ScoreAdjustment, ScoreAdjustmentKind};
use crate::time_control::{Bonus, TimeControl};

/// The largest move count the arbiter may set on a clock.
const MAX_MOVE_COUNT: u32 = 10_000;

impl Game {
    pub(super) fn start(&mut self, at: i64) -> Outcome {
        if self.started_at.is_some() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide6_6),
                "the game has already started",
            ));
        }
        let first = self.position().turn();
        self.clock.start(first, Timestamp(at)).map_err(clock_rejection)?;
        self.started_at = Some(at);
        let mut out = vec![Ruling::new(
            RuleId::Fide6_6,
            Decision::GameStarted {
                white_ms: self.rem(Color::White, at),
                black_ms: self.rem(Color::Black, at),
            },
        )];
        // A deadline already passed (default time 0 with an absent player).
        out.extend(self.observe_time(at));
        Ok(out)
    }

    pub(super) fn pause(&mut self, at: i64) -> Outcome {
        if self.clock.is_paused() {
            return Err(reject(
                RejectReason::ClocksPaused,
                Some(RuleId::Fide6_11),
                "the clocks are already paused",
            ));
        }
        self.clock.pause(Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new(RuleId::Fide6_11, Decision::ClocksPaused)])
    }

    pub(super) fn resume(&mut self, at: i64) -> Outcome {
        if !self.clock.is_paused() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide6_11),
                "the clocks are not paused",
            ));
        }
        self.clock.resume(Timestamp(at)).map_err(clock_rejection)?;
        self.paused_for_question = None;
        Ok(vec![Ruling::new(RuleId::Fide6_11, Decision::ClocksResumed)])
    }

    pub(super) fn adjust_clock(&mut self, color: Color, delta: i64, at: i64) -> Outcome {
        if delta.abs() > 24 * 3_600_000 {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                "a clock adjustment must be within 24 hours",
            ));
        }
        self.clock.adjust(color, delta, Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new(
            RuleId::Fide6_10,
            Decision::ClockAdjusted { color, delta_ms: delta, remaining_ms: self.rem(color, at) },
        )])
    }

    pub(super) fn set_clock(&mut self, color: Color, remaining: i64, at: i64) -> Outcome {
        if !(0..=24 * 3_600_000).contains(&remaining) {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                "a clock must be set between 0 and 24 hours",
            ));
        }
        self.clock.set_remaining(color, remaining, Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new(RuleId::Fide6_10, Decision::ClockSet { color, remaining_ms: remaining })])
    }

    /// OCR 2.4: an e-board's clock showed these times. They set the
    /// service's clocks only where the regulations make the board's clock
    /// authoritative; otherwise the service's clock stands.
    pub(super) fn board_clock_reading(&mut self, white_ms: i64, black_ms: i64, at: i64) -> Outcome {
        if self.regs.clock_authority != ClockAuthority::Board {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::Ocr2_4),
                "the event's regulations make the service's clock authoritative (OCR 2.4): a board's clock \
                 reading does not set it",
            ));
        }
        if ![white_ms, black_ms].iter().all(|ms| (0..=24 * 3_600_000).contains(ms)) {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Ocr2_4),
                "a board's clock reading must be between 0 and 24 hours on each side",
            ));
        }
        let mut out = Vec::new();
        for (color, remaining_ms) in [(Color::White, white_ms), (Color::Black, black_ms)] {
            if self.rem(color, at) != remaining_ms {
                self.clock.set_remaining(color, remaining_ms, Timestamp(at)).map_err(clock_rejection)?;
                out.push(Ruling::new(RuleId::Ocr2_4, Decision::ClockSet { color, remaining_ms }));
            }
        }
        Ok(out)
    }

    /// 6.10.2 (and 7.1): the arbiter corrects `color`'s move counter on the
    /// clock; from then on it follows the moves completed from that count
    /// (DEC-22).
    pub(super) fn set_move_counter(&mut self, color: Color, moves: u32, at: i64) -> Outcome {
        if moves > MAX_MOVE_COUNT {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide6_10),
                format!("a move counter must be between 0 and {MAX_MOVE_COUNT}, got {moves}"),
            ));
        }
        self.clock.set_moves_completed(color, moves, Timestamp(at)).map_err(clock_rejection)?;
        self.clock_count_correction[color.index()] =
            i64::from(moves) - i64::from(self.moves_completed(color));
        Ok(vec![Ruling::new(RuleId::Fide6_10, Decision::MoveCounterSet { color, moves_completed: moves })])
    }

    /// 6.10.2: the arbiter installs the correct time control on the clock;
    /// times and move counters stay as they are.
    pub(super) fn install_time_control(&mut self, control: &TimeControl, at: i64) -> Outcome {
        self.clock.set_control(control.clone(), Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new(
            RuleId::Fide6_10,
            Decision::TimeControlInstalled { time_control: control.to_pgn() },
        )])
    }

    pub(super) fn penalty(&mut self, color: Color, kind: PenaltyKind, at: i64) -> Outcome {
        Ok(match kind {
            PenaltyKind::Warning => vec![self.warn(color, "warning from the arbiter", RuleId::Fide12_9)],
            PenaltyKind::AddTimeToOpponent(ms) => {
                if !(1..=3_600_000).contains(&ms) {
                    return Err(reject(
                        RejectReason::InvalidArgument,
                        None,
                        "time must be between 1 ms and 60 minutes",
                    ));
                }
                vec![self.add_time(color.other(), ms, at, RuleId::Fide12_9)]
            }
            PenaltyKind::DeductTime(ms) => {
                if !(1..=3_600_000).contains(&ms) {
                    return Err(reject(
                        RejectReason::InvalidArgument,
                        None,
                        "time must be between 1 ms and 60 minutes",
                    ));
                }
                vec![self.add_time(color, -ms, at, RuleId::Fide12_9)]
            }
            PenaltyKind::RaiseOpponentScore | PenaltyKind::ReduceScore => {
                return self.score_penalty(color, kind);
            }
            PenaltyKind::DeclareLost => {
                vec![self.finish(
                    win_for(color.other()),
                    EndCause::ArbiterPenalty,
                    "penalty of the arbiter",
                    RuleId::Fide12_9,
                )]
            }
        })
    }

    /// 12.9.4 and 12.9.5: the game goes on; the penalty applies to the
    /// result it reaches, or at once to the result of a game that is over.
    pub(super) fn score_penalty(&mut self, offender: Color, kind: PenaltyKind) -> Outcome {
        let (kind, rule) = match kind {
            PenaltyKind::RaiseOpponentScore => (ScoreAdjustmentKind::RaiseOpponentScore, RuleId::Fide12_9_4),
            _ => (ScoreAdjustmentKind::ReduceScore, RuleId::Fide12_9_5),
        };
        let ended = self.end.clone();
        if let Some(end) = &ended
            && !end.result.is_played()
        {
            return Err(reject(
                RejectReason::NotApplicable,
                Some(rule),
                format!("the game has no score to change ({})", end.result),
            ));
        }
        let adjustment = ScoreAdjustment { offender, kind };
        self.score_adjustments.push(adjustment);
        let mut out = vec![Ruling::new(rule, Decision::ScorePenalty { adjustment })];
        if let Some(end) = ended {
            let board = end.board_result.unwrap_or(end.result);
            let over = self.finish(board, end.cause, &end.reason, end.rule);
            out.push(Ruling::new(rule, over.decision));
        }
        Ok(out)
    }

    /// The service came back after an outage; its timeline skips the outage,
    /// so no clock changes (6.11: the arbiter decides how play resumes).
    pub(super) fn service_resumed(&mut self, outage_ms: i64) -> Outcome {
        if outage_ms < 0 {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide6_11),
                format!("an outage cannot last {outage_ms} ms"),
            ));
        }
        Ok(vec![Ruling::new(RuleId::Fide6_11, Decision::ClockResumedAfterOutage { outage_ms })])
    }

    pub(super) fn reinstate(&mut self, ply: usize, at: i64) -> Outcome {
        if ply > self.record.ply_count() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some(RuleId::Fide7_5_1),
                format!("the game has only {} plies", self.record.ply_count()),
            ));
        }
        while self.record.ply_count() > ply {
            self.record.pop();
            // The side to move now is the one whose move was taken back.
            let mover = self.position().turn();
            self.moves_made[mover.index()] = self.moves_made[mover.index()].saturating_sub(1);
        }
        self.pending = None;
        self.turn = TurnState::default();
        self.premove = None;
        // 7.1: the arbiter adjusts the clock's move counter to the moves
        // completed in the restored position (DEC-22).
        let mut counters = Vec::new();
        if self.regs.audited_rulings() && self.clock.is_started() {
            for color in Color::ALL {
                let due = self.clock_count_due(color);
                if self.clock.moves_completed(color) != due {
                    self.clock.set_moves_completed(color, due, Timestamp(at)).map_err(clock_rejection)?;
                    counters.push(Ruling::new(
                        RuleId::Fide7_1,
                        Decision::MoveCounterSet { color, moves_completed: due },
                    ));
                }
            }
        }
        // The clock follows the board: the player to move in the reinstated
        // position is the one whose clock runs.
        let to_move = self.position().turn();
        if self.clock.is_started() {
            self.clock.hand_over(to_move, Timestamp(at)).map_err(clock_rejection)?;
        }
        let mut out = vec![Ruling::new(
            RuleId::Fide7_5_1,
            Decision::PositionReinstated { ply, fen: self.position().fen() },
        )];
        out.extend(counters);
        // The arbiter (or the players' agreed correction he records) sets
        // the board: what was claimable or watched before is settled, and
        // an illegal position he reinstates is one he has seen (A.5.4).
        self.claimable = None;
        self.stood = None;
        self.look_at_completion = false;
        self.watch = None;
        if !self.regs.observe {
            out.extend(self.see_illegal_position());
        }
        Ok(out)
    }

    pub(super) fn declare_result(&mut self, result: DeclaredResult) -> Outcome {
        let r = match result {
            DeclaredResult::WhiteWins => GameResult::WhiteWins,
            DeclaredResult::BlackWins => GameResult::BlackWins,
            DeclaredResult::Draw => GameResult::Draw,
            DeclaredResult::BothLose => GameResult::BothLose,
        };
        // Online, the arbiter corrects the platform: an automatic draw it
        // missed (OCR 15.3) or a result it should not have given (15.4).
        let rule = match (self.regs.mode.is_online(), self.end.is_some(), r) {
            (true, true, _) => RuleId::Ocr15_4,
            (true, false, GameResult::Draw) => RuleId::Ocr15_3,
            _ => RuleId::Fide8_7,
        };
        Ok(vec![self.finish(r, EndCause::DeclaredByArbiter, "declared by the arbiter", rule)])
    }

    pub(super) fn device_found(&mut self, color: Color, at: i64) -> Outcome {
        match self.regs.device_penalty {
            // The opponent wins even if he could never checkmate (11.3.2.2 comm.).
            DevicePenalty::Loss => {
                // Before the game is under way (not started, or the opponent
                // not yet at the board) the game is unplayed: -/+ or +/-.
                let absent = self.regs.default_time_ms.is_some() && !self.arrived[color.other().index()];
                let (reason, result) = if self.started_at.is_none() || absent {
                    let forfeit = match color {
                        Color::White => GameResult::BlackWinsByForfeit,
                        Color::Black => GameResult::WhiteWinsByForfeit,
                    };
                    ("electronic device found before the game was under way (unplayed)", forfeit)
                } else {
                    ("electronic device found", win_for(color.other()))
                };
                Ok(vec![self.finish(result, EndCause::ElectronicDevice, reason, RuleId::Fide11_3b)])
            }
            DevicePenalty::DeductTime(ms) => Ok(vec![self.add_time(color, -ms, at, RuleId::Fide11_3b)]),
        }
    }

    pub(super) fn answer_question(&mut self, id: u32, answer: Answer, at: i64) -> Outcome {
        let audited = self.regs.audited_rulings();
        let open = self.questions.iter().position(|q| q.id == id);
        // III.5.2 (DEC-23): a postponed claim is still the arbiter's to
        // decide while the game goes on.
        let postponed = match open {
            None if audited && self.end.is_none() => self.postponed.iter().position(|q| q.id == id),
            _ => None,
        };
        let q = match (open, postponed) {
            (Some(index), _) => &self.questions[index],
            (None, Some(index)) => &self.postponed[index],
            (None, None) => {
                let message = if audited && self.end.is_some() {
                    format!("no open question {id}: the game is over")
                } else {
                    format!("no open question {id}")
                };
                return Err(reject(RejectReason::InvalidArgument, Some(RuleId::Dec12), message));
            }
        };
        if audited {
            self.check_answer(&q.kind, answer)?;
        }
        let q = match (open, postponed) {
            (Some(index), _) => self.questions.remove(index),
            (_, Some(index)) => self.postponed.remove(index),
            (None, None) => unreachable!("checked above"),
        };
        let mut out = vec![Ruling::new(
            self.question_rule(&q.kind),
            Decision::QuestionAnswered { id, answer: format!("{answer:?}") },
        )];
        match (&q.kind, answer) {
            (QuestionKind::CannotMateUnknown { .. }, Answer::Accept) => {
                // The arbiter finds that the side cannot checkmate: a draw.
                out.push(self.finish(
                    GameResult::Draw,
                    EndCause::NoPossibleCheckmate,
                    "the arbiter found no possible checkmate",
                    RuleId::Fide6_9,
                ));
            }
            (QuestionKind::CannotMateUnknown { .. }, _) => {}
            (QuestionKind::IncrementRequest { by }, Answer::Accept) => {
                let by = *by;
                if self.end.is_none() {
                    let control = self.clock.control().with_bonus_everywhere(Bonus::increment(5_000));
                    let _ = self.clock.set_control(control, Timestamp(at));
                    out.push(Ruling::new(
                        RuleId::FideIII4,
                        Decision::IncrementIntroduced { increment_ms: 5_000 },
                    ));
                    out.push(self.add_time(by.other(), 2 * 60_000, at, RuleId::FideIII4));
                }
            }
            (QuestionKind::IncrementRequest { .. }, _) => {}
            (QuestionKind::NoWinningAttempt { by }, a) => {
                let by = *by;
                if self.paused_for_question == Some(id) && self.clock.is_paused() {
                    let _ = self.clock.resume(Timestamp(at));
                    self.paused_for_question = None;
                }
                let after_flag = audited && self.end.as_ref().is_some_and(|e| e.cause == EndCause::Flag);
                if self.end.is_none() || after_flag {
                    match a {
                        // III.5.2: a draw also after the flag has fallen.
                        Answer::Accept => out.push(self.finish(
                            GameResult::Draw,
                            EndCause::NoWinningAttempt,
                            "no winning attempt by normal means",
                            RuleId::FideIII5,
                        )),
                        // III.5.3; a postponed claim rejected later costs
                        // no more time (the arbiter may have given the two
                        // minutes when he postponed, III.5.2; DEC-23).
                        Answer::Reject if postponed.is_none() && self.end.is_none() => {
                            out.push(self.add_time(by.other(), 2 * 60_000, at, RuleId::FideIII5))
                        }
                        Answer::Postpone | Answer::Default if audited && self.end.is_none() => {
                            // III.5.2: the decision is still to come.
                            self.postponed.push(q);
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(out)
    }

    /// Refuses an answer the Guidelines do not allow now (revision 2).
    fn check_answer(&self, kind: &QuestionKind, answer: Answer) -> Result<(), Rejection> {
        match (kind, answer) {
            // III.4: "If the offer is refused, and the arbiter agrees to the
            // request": the increment waits for the refusal (DEC-25).
            (QuestionKind::IncrementRequest { by }, Answer::Accept)
                if self.end.is_none() && self.offer.as_ref().is_some_and(|o| o.by == *by) =>
            {
                Err(reject(
                    RejectReason::NotApplicable,
                    Some(RuleId::FideIII4),
                    format!(
                        "the request of {by} is also a draw offer, and {} has not refused it yet: the \
                         increment is set only once the offer is refused (III.4)",
                        by.other()
                    ),
                ))
            }
            // III.5.2: after the flag the arbiter makes his final decision.
            (QuestionKind::NoWinningAttempt { .. }, Answer::Postpone) if self.end.is_some() => Err(reject(
                RejectReason::NotApplicable,
                Some(RuleId::FideIII5),
                "the game is over: the decision on the claim cannot be postponed any more (III.5.2)",
            )),
            _ => Ok(()),
        }
    }
}
