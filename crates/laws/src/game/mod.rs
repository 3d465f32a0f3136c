//! The game state machine: `apply(event, at)` returns the rulings the Laws
//! give, or a rejection that changes nothing.
//!
//! # Choices where the Laws leave room (section 18 of the rule catalogue)
//!
//! - DEC-2: adjusting (or touching) by the player who does not have the move
//!   earns a 12.9.1 warning and creates no obligation.
//! - DEC-3: the penalty in blitz is one minute, also under B.2.
//! - DEC-4: "cannot checkmate by any series of legal moves" is decided by the
//!   helpmate analyser of `arbiter_chess::dead`; when it cannot decide, the
//!   default applies (the game is lost, the draw being the exception) and an
//!   arbiter question is opened. The position tested is the one on the board.
//! - DEC-5: the service's clock is authoritative; a move stamped at or after
//!   the flag instant loses to the flag.
//! - DEC-6: a castling move is normally reported whole (with its rook).
//!   `CastlingKingReleased` reports the king released on its castling square
//!   with the rook unmoved: only that castling may complete the move (4.7.2),
//!   and pressing the clock then is a completed illegal move whose
//!   replacement must be that castling.
//! - DEC-7: the first Fischer increment is added at the start.
//! - DEC-9: after a completed illegal move the offender keeps the time used,
//!   loses the increment of that press, and the opponent gets the penalty.
//! - DEC-10: over the board a 9.2/9.3 claim is accepted from the player whose
//!   opponent has made a move, even before the clock was pressed.
//! - DEC-11: pressing a clock that is not running is refused; it is never
//!   counted as an illegal move.
//! - DEC-12: judgement calls (Guidelines III claims and requests, unknown
//!   mating possibilities) open a question with a documented default.
//! - DEC-13: in Chess960 only an explicit castling intent castles.
//! - DEC-14: CN-7 counts an offer that lapsed by a move as declined; claims do
//!   not count.
//! - DEC-16: a reinstated position takes back the history after it.
//! - DEC-17: an offer made before the offerer's own move stays pending until a
//!   9.1.2.1 lapse, with a 12.9.1 warning for the wrong sequence.
//! - DEC-18: a move written with an incorrect claim cannot be changed: a new
//!   claim on that move writing another move is incorrect (penalty again).
//! - DEC-19: an incorrect claim never lifts touch-move; the written move is
//!   forced only where the touched pieces allow it.
//! - DEC-20: a castling made with two hands is replaced by that castling
//!   (king then rook touched, king released on its castling square).
//! - DEC-21: king then a rook without castling right on the king's first
//!   rank is an illegal castling intent (4.4.3).
//! - DEC-22: the clock's move counter follows the moves completed on the
//!   board (a forgotten press answered by the opponent, a reinstated
//!   position, 7.1), from the count the arbiter may set (`SetMoveCounter`,
//!   6.10.2); the time of a period comes with the move that ends it.
//! - DEC-23: a postponed III.5 claim stays the arbiter's to decide, and is
//!   opened again when the claimant's flag falls (III.5.2).
//! - DEC-24: a move answered before its press: an unreplaced pawn is ruled
//!   at once (7.5.2), a two-handed move earns a 12.9.1 warning (4.1).
//! - DEC-25: an increment request (III.4) is granted only once its draw
//!   offer is refused.
//! - These four corrections, and DEC-20, are revision 2 of the rulings
//!   (`Regulations::rulings_revision`): a game keeps the revision it was
//!   created with, so a recorded log always replays to its rulings.
//!
//! - 7.5.4: `UsedTwoHands`, reported after the move is made and before the
//!   press, makes the completion an illegal move (the position before it is
//!   reinstated); with another irregularity in the same move it counts once.
//! - A default (6.7) or a device found before the game is under way (11.3.2)
//!   gives an unplayed forfeit result (+/-, -/+, -/-). A player who moves is
//!   at the board.
//! - Set-up errors (`SetupErrorFound`, found before the game ends; after it
//!   the result stands): a wrong initial position (7.2.1) annuls the game
//!   ([`GameResult::Annulled`]: a new game is played); a wrongly oriented
//!   board (7.2.2) lets it continue; in rapid and blitz under A.5 (B.3) both
//!   are refused once each player has completed ten moves (A.5.1.2). A
//!   misplaced king or rook (`KingMisplaced`, `RookMisplaced`, the rook named
//!   by the square its castling right refers to in the start position) is a
//!   wrong initial position until then (annulled, 7.2.1); after it the game
//!   continues (rule `FIDE-A.5.1`) and castling is banned for the rest of
//!   the game: all castling of that side for a king, castling with that rook
//!   for a rook. A banned castling is an illegal move wherever legality is
//!   decided: made over the board it is ruled as any illegal move (7.5.1;
//!   with `observe = false` it goes on the board and may be claimed),
//!   submitted online it is refused, touch-move never requires it (touching
//!   the king and such a rook is an illegal castling intent, 4.4.3), and
//!   written with a 9.2/9.3 claim it is an illegal intended move. Colours
//!   reversed (7.3, online OCR 15.2) annul the game unless both players have
//!   made ten moves ("made": Black's tenth move on the board is enough); then
//!   it continues and the result stands by the colours played. A wrongly
//!   oriented board cannot occur online.
//! - 12.9.4 and 12.9.5 do not end the game: they are score adjustments
//!   applied to the result it reaches (at once if it is over; a later
//!   corrected result keeps them). Law 10.1 bounds them: a penalised player
//!   scores a loss, the opponent of a 12.9.4 offender a win unless penalised
//!   himself, so a draw becomes 0-½ (12.9.5 on White) or 0-1 (12.9.4 on
//!   White), never 1-½ (see `scoring`). The end keeps the board result in
//!   `GameEnd::board_result`. Unplayed and annulled games take no score
//!   penalty. 12.9.6 still ends the game as a loss.
//! - After a restart of the service, `ServiceResumed` records the outage
//!   (6.11) and changes no clock: the service's timeline skips it.
//!
//! - `observe = false` (CFG-OBSERVE; over the board only, moves entered after
//!   the fact): a completed illegal move (7.5.1, 7.5.2, 7.5.4) is not acted
//!   on by itself. It goes on the board as the pieces were moved (a king left
//!   in check, a pawn left on its last rank: `arbiter_chess` holds such
//!   positions and records the move as irregular) and the opponent may claim
//!   it (`ClaimIllegalMove`) until he makes his next move ("made": the piece
//!   released, before the press); a claim is ruled exactly as an observed
//!   illegal move (reinstatement or, for 7.5.2, the queen; 7.5.5 with A.3),
//!   the claimant keeping the time he used before claiming. Once the
//!   opponent has made his move the illegal move stands (A.5.2) and a claim
//!   is refused as too late. Its later correction by agreement of the
//!   players without the arbiter is not a separate event: the operator can
//!   record the agreed position with `ReinstatePosition`, which gives no
//!   penalty. Not left to a claim, because the board could not hold them or
//!   the service sees them on its own devices: a move of a piece the mover
//!   does not have, onto his own piece, capturing a king or castling through
//!   pieces; pressing without a move (7.5.3); a half-made castling (DEC-6).
//!   These are ruled at once as when observed.
//! - A.5.4 with `observe = false`: the arbiter function looks at the board
//!   when a move that let an illegal move stand is completed (AS-24: the
//!   reply to the unpromoted pawn) and when a claim or the arbiter reinstates
//!   an illegal position; completing an illegal move alone does not make it
//!   look (that is the claim's business). An illegal position (a pawn on its first or last rank,
//!   the king of the player not to move in check, so both kings in check
//!   when the player to move is in check too) still on the board once the
//!   next move is completed draws the game. If that move got the mover out of
//!   check and the other king is still in check, play goes on; the other
//!   player, still in check after completing his next move, has made an
//!   illegal move, ruled at once (rule `FIDE-A.5.4`, then 7.5.5).
//!   Checkmate, stalemate and dead positions end the game only after a legal
//!   move (5.1.1, 5.2.1 and 5.2.2 require a move in accordance with Article
//!   3), so an illegal move that stood never ends it by itself.
//!
//! Limits of the A.5.1.2 castling bans: the record holds the set-up the
//! service was given, not the wrong one, and keeps the banned castling
//! rights in its positions. Repetition (9.2.3) therefore compares positions
//! with those rights as the record holds them: two positions that differ
//! only in a banned right (say one before and one after the banned rook has
//! moved) count as different, although the right could not be used in
//! either. Checkmate and stalemate are also judged on the record's legal
//! moves; in standard chess castling is never a side's only legal move (the
//! king can always step to the square it passes), so a ban cannot change
//! them there.

use arbiter_chess::dead::{self, Mateability};
use arbiter_chess::{
    Bitboard, CastlingMode, Color, FenOptions, GameRecord, Move, Position, Role, Square, Termination,
};

use crate::clock::{Clock, ClockConfig, ClockError, Timestamp};
use crate::event::{Event, MoveInput, PenaltyKind, SetupError};
use crate::regulations::{Regulations, RegulationsError};
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, GameEnd, RejectReason, Rejection, Ruling};
use crate::scoring::{GameResult, PointSystem, Points, ScoreAdjustment, ScoringError};
use crate::touch::Obligation;

mod arbiter;
mod completion;
mod draws;
mod online;
mod otb;
mod presence;
mod quickplay;
mod setup;
mod state;
mod time;
mod touch;

use state::{Claimable, Pending, Stood, TurnState, Watch};
pub use state::{DrawOffer, Question, QuestionKind};

/// One game under the Laws.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Game {
    regs: Regulations,
    record: GameRecord,
    clock: Clock,
    started_at: Option<i64>,
    end: Option<GameEnd>,
    /// Withdrawn before it started: no result, and nothing more applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    withdrawn: Option<crate::event::Withdrawal>,
    last_at: Option<i64>,
    illegal_moves: [u32; 2],
    warnings: [u32; 2],
    moves_made: [u32; 2],
    turn: TurnState,
    pending: Option<Pending>,
    offer: Option<DrawOffer>,
    /// CN-7: this side may not offer until it declines an offer.
    cn_blocked: [bool; 2],
    questions: Vec<Question>,
    next_question: u32,
    premove: Option<(Color, MoveInput)>,
    arrived: [bool; 2],
    disconnected_at: [Option<i64>; 2],
    /// Whether a question keeps the clocks paused (III.5).
    paused_for_question: Option<u32>,
    /// Score penalties (12.9.4, 12.9.5), applied to the result at the end.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    score_adjustments: Vec<ScoreAdjustment>,
    /// `observe = false`: the illegal move the opponent may still claim (A.5.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claimable: Option<Claimable>,
    /// `observe = false`: the last illegal move that stood (A.5.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stood: Option<Stood>,
    /// `observe = false`: an illegal move stood when the move now on the
    /// board was made; the position is looked at once that move is
    /// completed (A.5.4).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    look_at_completion: bool,
    /// `observe = false`: the A.5.4 watch over an illegal position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    watch: Option<Watch>,
    /// A.5.1.2: the misplaced kings and rooks ruled after the ten-move
    /// cut-off (only `KingMisplaced` and `RookMisplaced`); the castling
    /// they concern is illegal for the rest of the game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    castling_bans: Vec<SetupError>,
    /// DEC-22: the arbiter's correction of each side's move counter on the
    /// clock (`SetMoveCounter`): the counter shows the moves the side has
    /// completed on the board plus this.
    #[serde(default, skip_serializing_if = "no_correction")]
    clock_count_correction: [i64; 2],
    /// III.5.2 (DEC-23): claims whose decision the arbiter postponed; each
    /// is decided later by answering its question, and is opened again
    /// when the claimant's flag falls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    postponed: Vec<Question>,
}

fn no_correction(c: &[i64; 2]) -> bool {
    *c == [0, 0]
}

type Outcome = Result<Vec<Ruling>, Rejection>;

fn reject(reason: RejectReason, rule: Option<RuleId>, message: impl Into<String>) -> Rejection {
    Rejection::new(reason, rule, message)
}
impl Game {
    /// A new game under `regs`, not yet started.
    ///
    /// # Errors
    /// [`RegulationsError`] if the regulations do not fit together.
    pub fn new(regs: Regulations) -> Result<Game, RegulationsError> {
        regs.validate()?;
        let start = match &regs.start_fen {
            Some(fen) => {
                let options = FenOptions { chess960: regs.chess960, ..FenOptions::STRICT };
                Position::from_fen_with(fen, options)
                    .map_err(|e| RegulationsError::StartPosition(e.to_string()))?
            }
            None => {
                let mut p = Position::startpos();
                if regs.chess960 {
                    // Chess960 notation can write any castling rights.
                    let _ = p.set_castling_mode(CastlingMode::Chess960);
                }
                p
            }
        };
        let clock = Clock::new(
            regs.time_control.clone(),
            ClockConfig { max_lag_compensation_ms: regs.max_lag_compensation_ms },
        );
        Ok(Game {
            record: GameRecord::new(start),
            clock,
            regs,
            started_at: None,
            end: None,
            withdrawn: None,
            last_at: None,
            illegal_moves: [0; 2],
            warnings: [0; 2],
            moves_made: [0; 2],
            turn: TurnState::default(),
            pending: None,
            offer: None,
            cn_blocked: [false; 2],
            questions: Vec::new(),
            next_question: 1,
            premove: None,
            arrived: [false; 2],
            disconnected_at: [None; 2],
            paused_for_question: None,
            score_adjustments: Vec::new(),
            claimable: None,
            stood: None,
            look_at_completion: false,
            watch: None,
            castling_bans: Vec::new(),
            clock_count_correction: [0; 2],
            postponed: Vec::new(),
        })
    }

    // ----- Reading the state -----

    pub fn regulations(&self) -> &Regulations {
        &self.regs
    }

    /// The game record (positions and moves on the board).
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// The position on the board.
    pub fn position(&self) -> &Position {
        self.record.position()
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Remaining time of `color` at instant `at`.
    pub fn remaining_ms(&self, color: Color, at: i64) -> i64 {
        self.rem(color, at)
    }

    pub fn is_started(&self) -> bool {
        self.started_at.is_some()
    }

    /// The end of the game, once over.
    pub fn end(&self) -> Option<&GameEnd> {
        self.end.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Why the game was withdrawn before it started, if it was
    /// ([`Event::Withdraw`]). A withdrawn game has no result and is not
    /// over: it never began.
    pub fn withdrawal(&self) -> Option<crate::event::Withdrawal> {
        self.withdrawn
    }

    pub fn draw_offer(&self) -> Option<&DrawOffer> {
        self.offer.as_ref()
    }

    pub fn illegal_move_count(&self, color: Color) -> u32 {
        self.illegal_moves[color.index()]
    }

    pub fn warning_count(&self, color: Color) -> u32 {
        self.warnings[color.index()]
    }

    pub fn open_questions(&self) -> &[Question] {
        &self.questions
    }

    /// III.5 claims whose decision the arbiter postponed (III.5.2, DEC-23):
    /// still to be decided by answering their question; opened again when
    /// the claimant's flag falls.
    pub fn postponed_questions(&self) -> &[Question] {
        &self.postponed
    }

    /// The score penalties given so far (12.9.4, 12.9.5), in order.
    pub fn score_adjustments(&self) -> &[ScoreAdjustment] {
        &self.score_adjustments
    }

    /// The points of White and Black under `system` once the game is over,
    /// score penalties included (the end's result already carries them, see
    /// [`GameResult::with_adjustments`]); `None` while the game goes on.
    ///
    /// # Errors
    /// Those of [`crate::scoring::points`]: an annulled game has no score.
    pub fn adjusted_points(&self, system: &PointSystem) -> Option<Result<(Points, Points), ScoringError>> {
        self.end.as_ref().map(|e| crate::scoring::points(e.result, system))
    }

    /// Moves `color` has completed (a move made and not yet completed does
    /// not count).
    pub fn moves_completed(&self, color: Color) -> u32 {
        let pending = matches!(
            &self.pending,
            Some(Pending::Legal { color: c, .. } | Pending::UnfinishedPromotion { color: c, .. }) if *c == color
        );
        self.moves_made[color.index()].saturating_sub(u32::from(pending))
    }

    /// The moves the player having the move is bound to, if any.
    pub fn obligation(&self) -> Option<Obligation> {
        if let Some(f) = &self.turn.forced {
            return Some(f.clone());
        }
        self.touch_obligation()
    }

    /// The obligation the pieces touched on this move create (Article 4,
    /// over the board only), leaving aside a move the player must make for
    /// another reason.
    fn touch_obligation(&self) -> Option<Obligation> {
        self.touch_obligation_of(&self.turn.touched)
    }

    /// The obligation touching `touched` (in order) on this move creates.
    fn touch_obligation_of(&self, touched: &[Square]) -> Option<Obligation> {
        if self.regs.mode.is_online() {
            return None;
        }
        crate::touch::obligation_with_bans(self.position(), touched, self.banned_castling_rooks())
    }

    /// The A.5.1.2 castling bans in force: the misplaced kings and rooks
    /// ruled after the ten-move cut-off.
    pub fn castling_bans(&self) -> &[SetupError] {
        &self.castling_bans
    }

    /// The castling rooks of the side to move with which castling is banned
    /// (A.5.1.2): all of them when its king was misplaced, otherwise those
    /// named by a misplaced rook. A castling move is encoded as the king
    /// taking its own rook, so a move is banned exactly when it is castling
    /// onto one of these squares.
    fn banned_castling_rooks(&self) -> Bitboard {
        let pos = self.position();
        let us = pos.turn();
        let mut banned = Bitboard::EMPTY;
        for side in arbiter_chess::CastlingSide::ALL {
            let Some(rook) = pos.castling_rook(us, side) else {
                continue;
            };
            let is_banned = self.castling_bans.iter().any(|ban| match ban {
                SetupError::KingMisplaced { color } => *color == us,
                SetupError::RookMisplaced { square } => *square == rook,
                _ => false,
            });
            if is_banned {
                banned.add(rook);
            }
        }
        banned
    }

    /// `true` if `m`, a legal move of the side to move, is castling that
    /// A.5.1.2 bans. Such a move is treated as illegal everywhere the
    /// service decides legality (moves made or submitted, touch-move
    /// obligations, moves intended with a claim).
    fn is_banned(&self, m: Move) -> bool {
        m.is_castle() && self.banned_castling_rooks().contains(m.to())
    }

    /// The next instant at which time alone changes the game (a flag, a
    /// default time, a reconnect window), so a server can wake exactly then.
    pub fn next_deadline(&self) -> Option<i64> {
        if self.end.is_some() {
            return None;
        }
        let mut best: Option<i64> = self.clock.flag_deadline().map(|t| t.0);
        let mut consider = |t: i64| best = Some(best.map_or(t, |b| b.min(t)));
        if let (Some(start), Some(default)) = (self.started_at, self.regs.default_time_ms)
            && (!self.arrived[0] || !self.arrived[1])
        {
            consider(start + default);
        }
        if let Some(window) = self.regs.reconnect_window_ms {
            for t in self.disconnected_at.iter().flatten() {
                consider(t + window);
            }
        }
        best
    }

    // ----- Applying events -----

    /// Applies `event` at instant `at` (milliseconds of the service's
    /// monotonic clock). Returns the rulings, or a rejection that leaves the
    /// game exactly as it was.
    ///
    /// # Errors
    /// A [`Rejection`] naming the rule that forbids the act, where one does.
    pub fn apply(&mut self, event: &Event, at: i64) -> Outcome {
        if !(0..=crate::clock::MAX_TIMESTAMP).contains(&at) {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                format!("event at {at} ms: instants run from 0 to {} ms", crate::clock::MAX_TIMESTAMP),
            ));
        }
        if let Some(last) = self.last_at
            && at < last
        {
            return Err(reject(
                RejectReason::TimeWentBackwards,
                None,
                format!("event at {at} ms is earlier than the last event at {last} ms"),
            ));
        }
        // Every handler checks before it changes anything, so a rejection
        // leaves the game as it was (the tests assert it). Time alone only
        // ever ends the game, and then the event is not refused. `last_at` is
        // the instant of the event being applied while it is applied.
        let previous = self.last_at.replace(at);
        let mut rulings = self.observe_time(at);
        if self.end.is_some() && !rulings.is_empty() {
            // Time decided the game before this event could act (P2: a flag
            // observed before a mating move). Arbiter actions still apply;
            // a service outage is recorded although the game is now over.
            if event.is_arbiter_action() {
                let more = match event {
                    Event::ServiceResumed { outage_ms } => self.service_resumed(*outage_ms),
                    _ => self.dispatch(event, at),
                };
                if let Ok(mut more) = more {
                    rulings.append(&mut more);
                }
            }
            return Ok(rulings);
        }
        match self.dispatch(event, at) {
            Ok(mut more) => {
                rulings.append(&mut more);
                Ok(rulings)
            }
            Err(e) => {
                self.last_at = previous;
                Err(e)
            }
        }
    }

    /// Replays events from the start: the same events give the same game.
    ///
    /// # Errors
    /// The first rejection, with its index.
    pub fn replay<'a>(
        regs: Regulations,
        events: impl IntoIterator<Item = &'a (Event, i64)>,
    ) -> Result<Game, (usize, Rejection)> {
        let mut g =
            Game::new(regs).map_err(|e| (0, reject(RejectReason::InvalidArgument, None, e.to_string())))?;
        for (i, (e, at)) in events.into_iter().enumerate() {
            g.apply(e, *at).map_err(|r| (i, r))?;
        }
        Ok(g)
    }

    fn dispatch(&mut self, event: &Event, at: i64) -> Outcome {
        use Event::*;
        if let Some(withdrawal) = self.withdrawn {
            let message = match withdrawal {
                crate::event::Withdrawal::Cancelled => "the game was cancelled before it started",
                crate::event::Withdrawal::Expired => "the game expired before it started",
            };
            return Err(reject(RejectReason::GameOver, None, message));
        }
        if let Withdraw { reason } = event {
            // Only a game that has not begun can be withdrawn: once started,
            // it ends under the Laws (a result, an arbiter's decision).
            if self.started_at.is_some() || self.end.is_some() {
                return Err(reject(
                    RejectReason::NotApplicable,
                    None,
                    "the game has started: it can no longer be withdrawn (it ends with a result)",
                ));
            }
            self.withdrawn = Some(*reason);
            return Ok(Vec::new());
        }
        if let ServiceResumed { .. } = event
            && (self.started_at.is_none() || self.end.is_some())
        {
            let message = if self.end.is_some() {
                "the game is over: there is no play to resume"
            } else {
                "the game has not started: there is no play to resume"
            };
            return Err(reject(RejectReason::NotApplicable, Some(RuleId::Fide6_11), message));
        }
        if let SetupErrorFound { error } = event
            && self.end.is_some()
        {
            // Found only after the game: the result stands (7.2 comm., 7.3).
            return Err(reject(
                RejectReason::GameOver,
                Some(self.setup_rule(*error)),
                "the game is over: a set-up error found after the game leaves the result standing",
            ));
        }
        // Score penalties may also be given once the game is over: they
        // change its score.
        let score_penalty =
            matches!(event, Penalty { kind: PenaltyKind::RaiseOpponentScore | PenaltyKind::ReduceScore, .. });
        let over_ok = score_penalty || matches!(event, DeclareResult { .. } | AnswerQuestion { .. } | Tick);
        if self.end.is_some() && !over_ok {
            return Err(reject(RejectReason::GameOver, None, "the game is over"));
        }
        let needs_start = !matches!(
            event,
            Start
                | PlayerArrived { .. }
                | DeviceFound { .. }
                | DeclareResult { .. }
                | Tick
                | AnswerQuestion { .. }
        );
        if needs_start && self.started_at.is_none() {
            return Err(reject(RejectReason::NotStarted, Some(RuleId::Fide6_6), "the game has not started"));
        }
        match event {
            Start => self.start(at),
            Tick => Ok(Vec::new()),
            AnnounceAdjust { color } => self.announce_adjust(*color),
            Touch { color, square, kind } => self.touch(*color, *square, *kind),
            SimultaneousTouch { color, own, opponent } => self.simultaneous_touch(*color, *own, *opponent),
            TouchSensed { square, piece, sensed } => self.touch_sensed(*square, *piece, *sensed),
            PromotionPieceTouched { color, role } => self.promotion_touched(*color, *role),
            MakeMove { color, mv } => self.make_move(*color, mv, at),
            CastlingKingReleased { color, to } => self.castling_king_released(*color, *to, at),
            UsedTwoHands { color } => self.used_two_hands(*color),
            PressClock { color, other_hand } => self.press_clock(*color, *other_hand, at),
            SubmitMove { color, mv, premove, lag_ms } => self.submit_move(*color, mv, *premove, *lag_ms, at),
            Disconnect { color } => self.disconnect(*color, at),
            Reconnect { color } => self.reconnect(*color),
            OfferDraw { color } => self.offer_draw(*color),
            AcceptDraw { color } => self.accept_draw(*color),
            DeclineDraw { color } => self.decline_draw(*color),
            ClaimDraw { color, kind, intended } => self.claim_draw(*color, *kind, intended.as_ref(), at),
            Resign { color } => self.resign(*color),
            ClaimIllegalMove { color } => self.claim_illegal_move(*color, at),
            PlayerArrived { color } => self.player_arrived(*color, at),
            RequestIncrement { color } => self.request_increment(*color, at),
            ClaimNoWinningAttempt { color } => self.claim_no_winning_attempt(*color, at),
            PauseClocks => self.pause(at),
            ResumeClocks => self.resume(at),
            AdjustClock { color, delta_ms } => self.adjust_clock(*color, *delta_ms, at),
            SetClock { color, remaining_ms } => self.set_clock(*color, *remaining_ms, at),
            BoardClockReading { white_ms, black_ms } => self.board_clock_reading(*white_ms, *black_ms, at),
            SetMoveCounter { color, moves_completed } => self.set_move_counter(*color, *moves_completed, at),
            InstallTimeControl { time_control } => self.install_time_control(time_control, at),
            Penalty { color, kind } => self.penalty(*color, *kind, at),
            ReinstatePosition { ply } => self.reinstate(*ply, at),
            DeclareResult { result } => self.declare_result(*result),
            DeviceFound { color } => self.device_found(*color, at),
            AnswerQuestion { id, answer } => self.answer_question(*id, *answer, at),
            SetupErrorFound { error } => self.setup_error(*error),
            ServiceResumed { outage_ms } => self.service_resumed(*outage_ms),
            // Handled above, before anything else.
            Withdraw { .. } => Ok(Vec::new()),
        }
    }

    // ----- Shared primitives (the Article families call these) -----

    /// Ends the game with `result` on the board; score penalties (12.9.4,
    /// 12.9.5) given so far apply to it.
    fn finish(&mut self, result: GameResult, cause: EndCause, reason: &str, rule: RuleId) -> Ruling {
        let (result, board_result) = if !self.score_adjustments.is_empty() && result.is_played() {
            (result.with_adjustments(&self.score_adjustments), Some(result))
        } else {
            (result, None)
        };
        // ARM-1: a draw counts as a win for Black.
        let armageddon_winner =
            if self.regs.armageddon { result.armageddon_match_result().winner() } else { None };
        let end = GameEnd { result, reason: reason.to_owned(), rule, cause, armageddon_winner, board_result };
        self.end = Some(end.clone());
        self.offer = None;
        self.premove = None;
        // A postponed III.5 claim is moot once the game ends (a flag opens
        // it again, see `flag_fell`).
        self.postponed.clear();
        // The clocks stop with the game; a clock already paused stays so.
        if self.clock.running().is_some() {
            let at = self.last_at.unwrap_or(0).max(self.clock.last_event_at().map_or(0, |t| t.0));
            let _ = self.clock.pause(Timestamp(at));
        }
        Ruling::new(rule, Decision::GameOver(end))
    }

    /// `loser` loses, unless the opponent cannot checkmate by any series of
    /// legal moves (5.1.2, 6.9, 7.5.5, OCR 4.3, 11.4.2): then a draw.
    fn lose_unless_cannot_mate(
        &mut self,
        loser: Color,
        cause: EndCause,
        rule: RuleId,
        why: &str,
    ) -> Vec<Ruling> {
        let winner = loser.other();
        let pos = *self.position();
        match dead::can_mate(&pos, winner) {
            Mateability::CannotMate => {
                vec![self.finish(GameResult::Draw, cause, &format!("{why}; {winner} cannot checkmate"), rule)]
            }
            Mateability::CanMate(_) => vec![self.finish(win_for(winner), cause, why, rule)],
            Mateability::Unknown => {
                let applied = win_for(winner);
                let mut out = vec![self.finish(applied, cause, why, rule)];
                out.push(self.open_question(
                    QuestionKind::CannotMateUnknown { side: winner, applied },
                    format!("Can {winner} still checkmate in this position? The analyser could not decide."),
                    format!("{applied} stands (the draw is the exception, DEC-4)"),
                ));
                out
            }
        }
    }

    fn open_question(&mut self, kind: QuestionKind, text: String, default: String) -> Ruling {
        let id = self.next_question;
        self.next_question += 1;
        let rule = self.question_rule(&kind);
        self.questions.push(Question { id, kind, text: text.clone(), default: default.clone() });
        Ruling::new(rule, Decision::QuestionOpened { id, question: text, default })
    }

    /// The rule the rulings of a question cite. Leaving a judgement to the
    /// arbiter is DEC-12, which rests on several Articles and so names
    /// none; from the second revision of the rulings a question cites the
    /// Article it asks about, so that every ruling names one: the end whose
    /// exception it decides (6.9, 7.5.5, ... "cannot checkmate by any
    /// possible series of legal moves"), III.4 or III.5.
    pub(super) fn question_rule(&self, kind: &QuestionKind) -> RuleId {
        if !self.regs.audited_rulings() {
            return RuleId::Dec12;
        }
        match kind {
            QuestionKind::CannotMateUnknown { .. } => self.end.as_ref().map_or(RuleId::Fide6_9, |e| e.rule),
            QuestionKind::IncrementRequest { .. } => RuleId::FideIII4,
            QuestionKind::NoWinningAttempt { .. } => RuleId::FideIII5,
        }
    }

    /// The automatic ends after a move: checkmate, stalemate, dead position,
    /// fivefold, seventy-five moves, and online threefold and fifty moves.
    fn automatic_end(&mut self) -> Option<Ruling> {
        let online = self.regs.mode.is_online();
        let autodraw = self.regs.automatic_draws();
        let outcome = self.record.outcome_with_dead_position(dead::is_dead_quick);
        if let Some(o) = outcome {
            let (cause, rule) = termination_end(o.termination(), online);
            let result = match o.winner() {
                Some(w) => win_for(w),
                None => GameResult::Draw,
            };
            return Some(self.finish(result, cause, o.termination().description(), rule));
        }
        if autodraw {
            if self.record.is_threefold_repetition() {
                return Some(self.finish(
                    GameResult::Draw,
                    EndCause::ThreefoldRepetition,
                    "threefold repetition",
                    RuleId::Ocr5_4_1,
                ));
            }
            if self.record.is_fifty_moves() {
                return Some(self.finish(
                    GameResult::Draw,
                    EndCause::FiftyMoves,
                    "fifty-move rule",
                    RuleId::Ocr5_4_4,
                ));
            }
        }
        None
    }

    /// Adds `ms` to `color`'s clock (a subtraction takes at most what is left).
    fn add_time(&mut self, color: Color, ms: i64, at: i64, rule: RuleId) -> Ruling {
        let ms = ms.max(-self.rem(color, at));
        let _ = self.clock.adjust(color, ms, Timestamp(at));
        Ruling::new(rule, Decision::ClockAdjusted { color, delta_ms: ms, remaining_ms: self.rem(color, at) })
    }

    /// Remaining time of `color` at `at` (settled time if `at` is not usable).
    fn rem(&self, color: Color, at: i64) -> i64 {
        self.clock.remaining_at(color, Timestamp(at)).unwrap_or_else(|_| self.clock.settled_ms(color))
    }

    fn warn(&mut self, color: Color, reason: impl Into<String>, rule: RuleId) -> Ruling {
        self.warnings[color.index()] += 1;
        Ruling::new(rule, Decision::Warning { color, reason: reason.into() })
    }

    /// Refuses a board act of over-the-board play in an online game.
    fn require_over_the_board(&self, rule: RuleId, message: &str) -> Result<(), Rejection> {
        if self.regs.mode.is_online() {
            return Err(reject(RejectReason::NotApplicable, Some(rule), message));
        }
        Ok(())
    }

    /// Refuses a move or a press while the arbiter has paused the clocks.
    fn require_running_clocks(&self) -> Result<(), Rejection> {
        if self.clock.is_paused() {
            return Err(reject(RejectReason::ClocksPaused, Some(RuleId::Fide6_11), "the clocks are paused"));
        }
        Ok(())
    }

    /// The player who has the move (DEF-HAS-MOVE): the side to move on the
    /// board; a made, uncompleted legal move already passed it.
    fn has_move(&self) -> Color {
        self.position().turn()
    }

    fn obligation_ruling(&self, color: Color, o: &Obligation) -> Ruling {
        let allowed = self.allowed_san(o);
        Ruling::new(o.rule, Decision::Obligation { color, allowed, reason: o.reason.clone() })
    }

    /// The moves `o` allows, in SAN, sorted.
    fn allowed_san(&self, o: &Obligation) -> Vec<String> {
        let pos = self.position();
        let mut allowed: Vec<String> = o.allowed.iter().map(|m| pos.san(*m)).collect();
        allowed.sort();
        allowed
    }

    /// DEC-22: what the clock's move counter of `color` should show: the
    /// moves `color` has completed on the board, plus the arbiter's
    /// correction.
    fn clock_count_due(&self, color: Color) -> u32 {
        let due = i64::from(self.moves_completed(color)) + self.clock_count_correction[color.index()];
        u32::try_from(due.max(0)).unwrap_or(u32::MAX)
    }

    /// DEC-22 (6.2.1.2, 6.3.1): the clock counts the moves `color` has
    /// completed without a press (a forgotten press answered by the
    /// opponent), so the time of a period comes with the move that ends
    /// it, as when the arbiter corrects the clock's move counter.
    fn count_completed_moves(&mut self, color: Color, at: i64) -> Vec<Ruling> {
        if !self.regs.audited_rulings() || !self.clock.is_started() {
            return Vec::new();
        }
        let due = self.clock_count_due(color);
        if self.clock.moves_completed(color) >= due {
            return Vec::new();
        }
        let before = self.rem(color, at);
        if self.clock.count_unpressed_moves(color, due, Timestamp(at)).is_err() {
            return Vec::new();
        }
        let mut out =
            vec![Ruling::new(RuleId::Fide6_2a, Decision::MoveCounterSet { color, moves_completed: due })];
        let added = self.rem(color, at) - before;
        if added > 0 {
            out.push(Ruling::new(
                RuleId::Fide6_2a,
                Decision::ClockAdjusted { color, delta_ms: added, remaining_ms: self.rem(color, at) },
            ));
        }
        out
    }

    /// 9.1.2.1: the receiver of an offer rejects it by touching a piece with
    /// intent (over the board) or by playing a move (online).
    fn offer_lapses_by_touch(&mut self, color: Color) -> Vec<Ruling> {
        match &self.offer {
            Some(o) if o.by != color => {
                let by = o.by;
                self.offer = None;
                self.cn_declined(by, color);
                vec![Ruling::new(
                    RuleId::Fide9_1_2b,
                    Decision::DrawOfferLapsed {
                        color: by,
                        reason: format!("{color} touched a piece with the intention of moving it"),
                    },
                )]
            }
            _ => Vec::new(),
        }
    }

    /// Resolves a reported move to a legal move of the side to move, or
    /// `None` if it is not legal (Article 3). In Chess960 a king move is
    /// castling only with an explicit intent or king-takes-rook (DEC-13).
    fn resolve(&self, mv: &MoveInput) -> Option<Move> {
        let pos = self.position();
        let candidates = pos.legal_moves_filtered(Bitboard::from_square(mv.from), Bitboard::FULL);
        let chess960 = pos.castling_mode() == CastlingMode::Chess960;
        candidates.iter().copied().find(|m| {
            if m.promotion_role() != mv.promotion || self.is_banned(*m) {
                return false;
            }
            if m.is_castle() {
                if m.to() == mv.to {
                    // King onto its own rook: castling in every variant.
                    return true;
                }
                m.king_or_piece_to() == mv.to && (mv.castle || !chess960)
            } else {
                // An explicit castling intent never matches an ordinary move.
                m.to() == mv.to && !mv.castle
            }
        })
    }

    fn describe(&self, mv: &MoveInput) -> String {
        let promo = mv.promotion.map(|r| format!("={}", r.upper_char())).unwrap_or_default();
        let piece = self
            .position()
            .board()
            .piece_at(mv.from)
            .map(|p| p.role.upper_char().to_string())
            .unwrap_or_default();
        format!("{piece}{}-{}{promo}", mv.from, mv.to)
    }

    /// A.5.2: `color` makes a move while his opponent's illegal move is
    /// still claimable: it stands. The position is looked at once this move
    /// is completed (A.5.4).
    fn illegal_move_stands_by(&mut self, color: Color) -> Vec<Ruling> {
        // Only the offender's opponent lets it stand, by making a move.
        let Some(c) = self.claimable.take_if(|c| c.color != color) else { return Vec::new() };
        self.look_at_completion = true;
        self.stood = Some(Stood { color: c.color, description: c.description.clone() });
        vec![Ruling::new(
            RuleId::FideA5_2,
            Decision::IllegalMoveStands { color: c.color, description: c.description },
        )]
    }

    /// A.5.4: the arbiter function sees the board; an illegal position on
    /// it starts the watch (unless one already runs).
    fn see_illegal_position(&mut self) -> Vec<Ruling> {
        if self.watch.is_some() {
            return Vec::new();
        }
        let pos = *self.position();
        let Some(why) = pos.irregularity() else { return Vec::new() };
        let not_to_move = pos.turn().other();
        let in_check = pos
            .attackers_to(pos.king(not_to_move), pos.turn(), pos.board().occupied())
            .any()
            .then_some(not_to_move);
        self.watch = Some(Watch::Seen { in_check });
        let mut description = irregularity_text(&why);
        if pos.is_check() && in_check.is_some() {
            description = "both kings are in check".into();
        }
        vec![Ruling::new(
            RuleId::FideA5_4,
            Decision::IllegalPositionObserved {
                description: format!("{description}: play goes on until the next move is completed"),
            },
        )]
    }

    fn cn_declined(&mut self, offerer: Color, decliner: Color) {
        if self.regs.cn_draw_alternation {
            self.cn_blocked[offerer.index()] = true;
            self.cn_blocked[decliner.index()] = false;
        }
    }
}

/// The move the pieces made for the reported `mv`, legal or not: castling
/// when the king goes to its castling square (or onto its rook) with a
/// castling right on that side (in Chess960 only with the intent, DEC-13),
/// en passant, a double push or a promotion when the pawn moved so, and
/// otherwise one piece from `from` to `to`.
fn physical_move(pos: &Position, mv: &MoveInput) -> Move {
    let us = pos.turn();
    let b = pos.board();
    let (from, to) = (mv.from, mv.to);
    match b.piece_at(from) {
        Some(p) if p.color == us && p.role == Role::King && from.rank() == to.rank() => {
            let side = arbiter_chess::CastlingSide::from_files(from.file(), to.file());
            if let Some(rook) = pos.castling_rook(us, side) {
                let chess960 = pos.castling_mode() == CastlingMode::Chess960;
                let onto_rook = rook == to;
                let two_squares = side.king_to(us) == to && (mv.castle || !chess960) && from != to;
                if onto_rook || two_squares {
                    return Move::castle(from, rook);
                }
            }
        }
        Some(p) if p.color == us && p.role == Role::Pawn => {
            if let Some(role) = mv.promotion {
                return Move::promotion(from, to, role);
            }
            if pos.pseudo_ep_square() == Some(to) && from.file() != to.file() {
                return Move::en_passant(from, to);
            }
            if from.file() == to.file() && from.index().abs_diff(to.index()) == 16 {
                return Move::double_push(from, to);
            }
        }
        _ => {}
    }
    Move::normal(from, to)
}

/// The square of the opponent's piece that `mv`, reported for the side to
/// move in `pos`, captures as the pieces moved (legal or not): the piece on
/// its destination, or for an en passant capture the pawn beside it
/// (3.7.3.1). Capturing is touching (4.3.2).
fn captured_by(pos: &Position, mv: &MoveInput) -> Option<Square> {
    let theirs = pos.board().by_color(pos.turn().other());
    crate::touch::captured_square(pos, physical_move(pos, mv)).filter(|sq| theirs.contains(*sq))
}

/// The squares a legal move `m` of the side to move in `pos` touches, in
/// order: the piece moved, for castling then its rook (the king first,
/// 4.4.1; from rulings revision 2, DEC-20), and the piece it captures (en
/// passant included).
fn squares_touched_by(pos: &Position, m: Move, revision: u32) -> Vec<Square> {
    let mut touched = vec![m.from()];
    if m.is_castle() && revision >= 2 {
        touched.push(m.to());
    }
    touched.extend(crate::touch::captured_square(pos, m));
    touched
}

/// A short description of a move on `pos`, legal or not (`Pe2-e4`).
fn describe_move(pos: &Position, m: Move) -> String {
    let piece = pos.board().piece_at(m.from()).map(|p| p.role.upper_char().to_string()).unwrap_or_default();
    format!("{piece}{}-{}", m.from(), m.to())
}

/// An illegal position in words.
fn irregularity_text(why: &arbiter_chess::PositionError) -> String {
    match why {
        arbiter_chess::PositionError::PawnOnBackRank(sq) => {
            format!("a pawn stands on {sq}, its first or last rank")
        }
        arbiter_chess::PositionError::OppositeCheck(c) => {
            format!("{c}'s king is in check and {c} is not to move")
        }
        other => other.to_string(),
    }
}

/// The cause and the rule of an automatic end the record found. Online,
/// stalemate and dead positions rest on OCR 5.4.2 and 5.4.3.
fn termination_end(t: Termination, online: bool) -> (EndCause, RuleId) {
    match t {
        Termination::Checkmate => (EndCause::Checkmate, RuleId::Fide5_1_1),
        Termination::Stalemate if online => (EndCause::Stalemate, RuleId::Ocr5_4_2),
        Termination::Stalemate => (EndCause::Stalemate, RuleId::Fide5_2_1),
        Termination::DeadPosition if online => (EndCause::DeadPosition, RuleId::Ocr5_4_3),
        Termination::DeadPosition => (EndCause::DeadPosition, RuleId::Fide5_2_2),
        Termination::FivefoldRepetition => (EndCause::FivefoldRepetition, RuleId::Fide9_6_1),
        Termination::SeventyFiveMoves => (EndCause::SeventyFiveMoves, RuleId::Fide9_6_2),
        Termination::ThreefoldRepetition => (EndCause::ThreefoldRepetition, RuleId::Fide9_2),
        Termination::FiftyMoves => (EndCause::FiftyMoves, RuleId::Fide9_3),
    }
}

fn win_for(color: Color) -> GameResult {
    match color {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    }
}

fn clock_rejection(e: ClockError) -> Rejection {
    let reason = match e {
        ClockError::TimeWentBackwards { .. } => RejectReason::TimeWentBackwards,
        ClockError::Paused => RejectReason::ClocksPaused,
        ClockError::NotStarted => RejectReason::NotStarted,
        _ => RejectReason::InvalidArgument,
    };
    Rejection::new(reason, Some(RuleId::Fide6), e.to_string())
}
