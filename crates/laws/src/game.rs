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
use crate::event::{Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SetupError, TouchKind};
use crate::regulations::{DevicePenalty, DrawOfferRestriction, Regime, Regulations, RegulationsError};
use crate::ruling::{Decision, GameEnd, RejectReason, Rejection, Ruling};
use crate::scoring::{GameResult, PointSystem, Points, ScoreAdjustment, ScoreAdjustmentKind, ScoringError};
use crate::time_control::{Bonus, Category};
use crate::touch::{self, Obligation};

/// A pending draw offer.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct DrawOffer {
    pub by: Color,
    /// Plies played when it was made.
    pub ply: usize,
}

/// What an open question is about.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub enum QuestionKind {
    /// The analyser could not tell whether `side` can still checkmate; the
    /// result `applied` was given by default.
    CannotMateUnknown { side: Color, applied: GameResult },
    /// Guidelines III.4: `by` asks for a 5-second increment for both.
    IncrementRequest { by: Color },
    /// Guidelines III.5: `by` claims the opponent cannot win by normal means.
    NoWinningAttempt { by: Color },
}

/// A question left to the arbiter (DEC-12).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub id: u32,
    pub kind: QuestionKind,
    pub text: String,
    pub default: String,
}

/// A move made on the board and not yet completed (over the board).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
enum Pending {
    /// A legal move, already on the record; `two_hands` once the player
    /// reported it was made with two hands (7.5.4).
    Legal {
        color: Color,
        ply: usize,
        #[serde(default)]
        two_hands: bool,
    },
    /// The king stands on its castling square and the rook has not moved
    /// (4.7.2): only `castle` may complete the move; the record is
    /// unchanged; a press is a completed illegal move (DEC-6).
    HalfCastling { color: Color, castle: Move },
    /// A pawn reached the last rank and was not replaced (7.5.2): the move is
    /// on the record as a queen promotion; completing it is an illegal move.
    UnfinishedPromotion { color: Color, ply: usize },
    /// An illegal move (Article 3); the record is unchanged.
    Illegal { color: Color, mv: MoveInput, description: String, two_hands: bool },
    /// A legal move that breaks touch-move; refused by the service.
    Refused { color: Color },
}

/// `observe = false`: a completed illegal move nobody has acted on, which
/// the opponent may claim until he makes his next move (A.5.2).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
struct Claimable {
    /// The offender.
    color: Color,
    /// The Article the illegal move falls under (7.5.1, 7.5.2 or 7.5.4).
    #[serde(with = "crate::ruling::rule_id")]
    rule: crate::ruling::RuleId,
    description: String,
    /// Plies on the record before the illegal move: a claim takes the
    /// record back there.
    ply_before: usize,
    /// 7.5.2: the move that stands once claimed (the pawn replaced by a
    /// queen); `None`: the position before the move is reinstated.
    replacement: Option<Move>,
    /// The squares the offender touched: after a reinstatement he must move
    /// the piece he moved, or capture the piece he captured (7.5.1, 4.3).
    touched: Vec<Square>,
    /// The increment the press credited, taken back on a claim (DEC-9).
    credited_ms: i64,
    /// The A.5.4 watch as it was before the move was completed, restored
    /// when the move is taken back.
    watch_before: Option<Watch>,
}

/// `observe = false`: an illegal move that stood, kept to explain why a
/// later claim is too late.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
struct Stood {
    color: Color,
    description: String,
}

/// `observe = false`: what the arbiter function waits for after seeing an
/// illegal position (A.5.4).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
enum Watch {
    /// An illegal position is on the board: the next completed move decides.
    /// `in_check`: the player not to move whose king was in check when it
    /// was seen.
    Seen { in_check: Option<Color> },
    /// The mover got out of check, the other king is still in check: if
    /// this player is still in check after completing his next move, he has
    /// made an illegal move (A.5.4 comm.).
    MustParry(Color),
}

/// The per-move state of the player having the move (over the board).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
struct TurnState {
    /// Squares touched with intent, in order.
    touched: Vec<Square>,
    adjust_announced: bool,
    /// 4.4.4: the promotion piece that touched the square.
    promotion: Option<Role>,
    /// 9.4: a piece was touched with intent: no claim on this move.
    claim_right_lost: bool,
    /// A move the player must make (incorrect claim with an intended move).
    forced: Option<Obligation>,
}

/// One game under the Laws.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Game {
    regs: Regulations,
    record: GameRecord,
    clock: Clock,
    started_at: Option<i64>,
    end: Option<GameEnd>,
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
}

type Outcome = Result<Vec<Ruling>, Rejection>;

fn reject(reason: RejectReason, rule: Option<&'static str>, message: impl Into<String>) -> Rejection {
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
        if self.regs.mode.is_online() {
            return None;
        }
        touch::obligation_with_bans(self.position(), &self.turn.touched, self.banned_castling_rooks())
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
        if let ServiceResumed { .. } = event
            && (self.started_at.is_none() || self.end.is_some())
        {
            let message = if self.end.is_some() {
                "the game is over: there is no play to resume"
            } else {
                "the game has not started: there is no play to resume"
            };
            return Err(reject(RejectReason::NotApplicable, Some("FIDE-6.11"), message));
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
            return Err(reject(RejectReason::NotStarted, Some("FIDE-6.6"), "the game has not started"));
        }
        match event {
            Start => self.start(at),
            Tick => Ok(Vec::new()),
            AnnounceAdjust { color } => self.announce_adjust(*color),
            Touch { color, square, kind } => self.touch(*color, *square, *kind),
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
            Penalty { color, kind } => self.penalty(*color, *kind, at),
            ReinstatePosition { ply } => self.reinstate(*ply, at),
            DeclareResult { result } => self.declare_result(*result),
            DeviceFound { color } => self.device_found(*color, at),
            AnswerQuestion { id, answer } => self.answer_question(*id, *answer, at),
            SetupErrorFound { error } => self.setup_error(*error),
            ServiceResumed { outage_ms } => self.service_resumed(*outage_ms),
        }
    }

    // ----- Time -----

    /// Rulings that time alone produces by `at`: a flag (6.8, 6.9, OCR 4.3),
    /// a default time (6.7), an expired reconnect window (OCR 11.4.2).
    fn observe_time(&mut self, at: i64) -> Vec<Ruling> {
        if self.end.is_some() || self.started_at.is_none() {
            return Vec::new();
        }
        // Whichever deadline comes first decides.
        let mut deadlines: Vec<(i64, u8, Color)> = Vec::new();
        if let Some(flag) = self.clock.flag_deadline()
            && let Some(side) = self.clock.running()
        {
            deadlines.push((flag.0, 0, side));
        }
        if let (Some(start), Some(default)) = (self.started_at, self.regs.default_time_ms) {
            for c in Color::ALL {
                if !self.arrived[c.index()] {
                    deadlines.push((start + default, 1, c));
                }
            }
        }
        if let Some(window) = self.regs.reconnect_window_ms {
            for c in Color::ALL {
                if let Some(t) = self.disconnected_at[c.index()] {
                    deadlines.push((t + window, 2, c));
                }
            }
        }
        deadlines.sort();
        let Some(&(when, kind, side)) = deadlines.first() else { return Vec::new() };
        if when > at {
            return Vec::new();
        }
        match kind {
            0 => self.flag_fell(side, when),
            1 => self.default_time_expired(when),
            _ => self.reconnect_window_expired(side, when),
        }
    }

    fn flag_fell(&mut self, side: Color, when: i64) -> Vec<Ruling> {
        let _ = self.clock.pause(Timestamp(when));
        let rule = if self.regs.mode.is_online() { "OCR-4.3" } else { "FIDE-6.9" };
        self.lose_unless_cannot_mate(side, rule, "flag fell")
    }

    fn default_time_expired(&mut self, when: i64) -> Vec<Ruling> {
        let absent: Vec<Color> = Color::ALL.into_iter().filter(|c| !self.arrived[c.index()]).collect();
        let _ = when;
        // The game was not played: a forfeit (+/-, -/+, -/-), not rated.
        let result = match absent.as_slice() {
            [Color::White] => GameResult::BlackWinsByForfeit,
            [Color::Black] => GameResult::WhiteWinsByForfeit,
            _ => GameResult::DoubleForfeit,
        };
        vec![self.finish(result, "a player did not arrive within the default time", "FIDE-6.7a")]
    }

    fn reconnect_window_expired(&mut self, side: Color, when: i64) -> Vec<Ruling> {
        let _ = self.clock.pause(Timestamp(when));
        self.lose_unless_cannot_mate(side, "OCR-11.4.2", "did not reconnect in time")
    }

    // ----- Results -----

    /// Ends the game with `result` on the board; score penalties (12.9.4,
    /// 12.9.5) given so far apply to it.
    fn finish(&mut self, result: GameResult, reason: &str, rule: &'static str) -> Ruling {
        let (result, board_result) = if !self.score_adjustments.is_empty() && result.is_played() {
            (result.with_adjustments(&self.score_adjustments), Some(result))
        } else {
            (result, None)
        };
        // ARM-1: a draw counts as a win for Black.
        let armageddon_winner =
            if self.regs.armageddon { result.armageddon_match_result().winner() } else { None };
        let end = GameEnd { result, reason: reason.to_owned(), rule, armageddon_winner, board_result };
        self.end = Some(end.clone());
        self.offer = None;
        self.premove = None;
        // The clocks stop with the game; a clock already paused stays so.
        if self.clock.running().is_some() {
            let at = self.last_at.unwrap_or(0).max(self.clock.last_event_at().map_or(0, |t| t.0));
            let _ = self.clock.pause(Timestamp(at));
        }
        Ruling::new(rule, Decision::GameOver(end))
    }

    /// `loser` loses, unless the opponent cannot checkmate by any series of
    /// legal moves (5.1.2, 6.9, 7.5.5, OCR 4.3, 11.4.2): then a draw.
    fn lose_unless_cannot_mate(&mut self, loser: Color, rule: &'static str, why: &str) -> Vec<Ruling> {
        let winner = loser.other();
        let pos = *self.position();
        match dead::can_mate(&pos, winner) {
            Mateability::CannotMate => {
                vec![self.finish(GameResult::Draw, &format!("{why}; {winner} cannot checkmate"), rule)]
            }
            Mateability::CanMate(_) => vec![self.finish(win_for(winner), why, rule)],
            Mateability::Unknown => {
                let applied = win_for(winner);
                let mut out = vec![self.finish(applied, why, rule)];
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
        self.questions.push(Question { id, kind, text: text.clone(), default: default.clone() });
        Ruling::new("DEC-12", Decision::QuestionOpened { id, question: text, default })
    }

    /// The automatic ends after a move: checkmate, stalemate, dead position,
    /// fivefold, seventy-five moves, and online threefold and fifty moves.
    fn automatic_end(&mut self) -> Option<Ruling> {
        let online = self.regs.mode.is_online();
        let autodraw = self.regs.automatic_draws();
        let outcome = self.record.outcome_with_dead_position(dead::is_dead_quick);
        if let Some(o) = outcome {
            let rule = match (o.termination(), online) {
                (Termination::Stalemate, true) => "OCR-5.4.2",
                (Termination::DeadPosition, true) => "OCR-5.4.3",
                (t, _) => t.rule_id(),
            };
            let result = match o.winner() {
                Some(w) => win_for(w),
                None => GameResult::Draw,
            };
            return Some(self.finish(result, o.termination().description(), rule));
        }
        if autodraw {
            if self.record.is_threefold_repetition() {
                return Some(self.finish(GameResult::Draw, "threefold repetition", "OCR-5.4.1"));
            }
            if self.record.is_fifty_moves() {
                return Some(self.finish(GameResult::Draw, "fifty-move rule", "OCR-5.4.4"));
            }
        }
        None
    }

    // ----- Arbiter: start, pause, clocks -----

    fn start(&mut self, at: i64) -> Outcome {
        if self.started_at.is_some() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-6.6"),
                "the game has already started",
            ));
        }
        let first = self.position().turn();
        self.clock.start(first, Timestamp(at)).map_err(clock_rejection)?;
        self.started_at = Some(at);
        let mut out = vec![Ruling::new(
            "FIDE-6.6",
            Decision::GameStarted {
                white_ms: self.rem(Color::White, at),
                black_ms: self.rem(Color::Black, at),
            },
        )];
        // A deadline already passed (default time 0 with an absent player).
        out.extend(self.observe_time(at));
        Ok(out)
    }

    fn pause(&mut self, at: i64) -> Outcome {
        if self.clock.is_paused() {
            return Err(reject(
                RejectReason::ClocksPaused,
                Some("FIDE-6.11"),
                "the clocks are already paused",
            ));
        }
        self.clock.pause(Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new("FIDE-6.11", Decision::ClocksPaused)])
    }

    fn resume(&mut self, at: i64) -> Outcome {
        if !self.clock.is_paused() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-6.11"),
                "the clocks are not paused",
            ));
        }
        self.clock.resume(Timestamp(at)).map_err(clock_rejection)?;
        self.paused_for_question = None;
        Ok(vec![Ruling::new("FIDE-6.11", Decision::ClocksResumed)])
    }

    fn adjust_clock(&mut self, color: Color, delta: i64, at: i64) -> Outcome {
        if delta.abs() > 24 * 3_600_000 {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                "a clock adjustment must be within 24 hours",
            ));
        }
        self.clock.adjust(color, delta, Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new(
            "FIDE-6.10",
            Decision::ClockAdjusted { color, delta_ms: delta, remaining_ms: self.rem(color, at) },
        )])
    }

    fn set_clock(&mut self, color: Color, remaining: i64, at: i64) -> Outcome {
        if !(0..=24 * 3_600_000).contains(&remaining) {
            return Err(reject(
                RejectReason::InvalidArgument,
                None,
                "a clock must be set between 0 and 24 hours",
            ));
        }
        self.clock.set_remaining(color, remaining, Timestamp(at)).map_err(clock_rejection)?;
        Ok(vec![Ruling::new("FIDE-6.10", Decision::ClockSet { color, remaining_ms: remaining })])
    }

    /// Adds `ms` to `color`'s clock (a subtraction takes at most what is left).
    fn add_time(&mut self, color: Color, ms: i64, at: i64, rule: &'static str) -> Ruling {
        let ms = ms.max(-self.rem(color, at));
        let _ = self.clock.adjust(color, ms, Timestamp(at));
        Ruling::new(rule, Decision::ClockAdjusted { color, delta_ms: ms, remaining_ms: self.rem(color, at) })
    }

    /// Remaining time of `color` at `at` (settled time if `at` is not usable).
    fn rem(&self, color: Color, at: i64) -> i64 {
        self.clock.remaining_at(color, Timestamp(at)).unwrap_or_else(|_| self.clock.settled_ms(color))
    }

    /// Presses the clock and takes the press back at once: the mover keeps
    /// the time used, loses what the press credited, and his clock runs again
    /// (7.5.1 with DEC-9, and Article 4 breaches).
    fn press_and_retract(&mut self, at: i64) -> Result<(), Rejection> {
        self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
        self.clock.retract_last_press(Timestamp(at)).map_err(clock_rejection)?;
        Ok(())
    }

    /// Removes `credited` ms that a press gave `color` (7.5.2: the increment
    /// of an illegal press is not kept).
    fn revoke_credit(&mut self, credited: i64, color: Color, at: i64) {
        if credited > 0 {
            let _ = self.clock.adjust(color, -credited.min(self.rem(color, at)), Timestamp(at));
        }
    }

    fn warn(&mut self, color: Color, reason: impl Into<String>, rule: &'static str) -> Ruling {
        self.warnings[color.index()] += 1;
        Ruling::new(rule, Decision::Warning { color, reason: reason.into() })
    }

    fn penalty(&mut self, color: Color, kind: PenaltyKind, at: i64) -> Outcome {
        Ok(match kind {
            PenaltyKind::Warning => vec![self.warn(color, "warning from the arbiter", "FIDE-12.9")],
            PenaltyKind::AddTimeToOpponent(ms) => {
                if !(1..=3_600_000).contains(&ms) {
                    return Err(reject(
                        RejectReason::InvalidArgument,
                        None,
                        "time must be between 1 ms and 60 minutes",
                    ));
                }
                vec![self.add_time(color.other(), ms, at, "FIDE-12.9")]
            }
            PenaltyKind::DeductTime(ms) => {
                if !(1..=3_600_000).contains(&ms) {
                    return Err(reject(
                        RejectReason::InvalidArgument,
                        None,
                        "time must be between 1 ms and 60 minutes",
                    ));
                }
                vec![self.add_time(color, -ms, at, "FIDE-12.9")]
            }
            PenaltyKind::RaiseOpponentScore | PenaltyKind::ReduceScore => {
                return self.score_penalty(color, kind);
            }
            PenaltyKind::DeclareLost => {
                vec![self.finish(win_for(color.other()), "penalty of the arbiter", "FIDE-12.9")]
            }
        })
    }

    /// 12.9.4 and 12.9.5: the game goes on; the penalty applies to the
    /// result it reaches, or at once to the result of a game that is over.
    fn score_penalty(&mut self, offender: Color, kind: PenaltyKind) -> Outcome {
        let (kind, rule) = match kind {
            PenaltyKind::RaiseOpponentScore => (ScoreAdjustmentKind::RaiseOpponentScore, "FIDE-12.9.4"),
            _ => (ScoreAdjustmentKind::ReduceScore, "FIDE-12.9.5"),
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
            let over = self.finish(board, &end.reason, end.rule);
            out.push(Ruling::new(rule, over.decision));
        }
        Ok(out)
    }

    // ----- Set-up errors (7.2, 7.3) and service outages -----

    fn setup_rule(&self, error: SetupError) -> &'static str {
        match error {
            SetupError::WrongInitialPosition
            | SetupError::KingMisplaced { .. }
            | SetupError::RookMisplaced { .. } => "FIDE-7.2a",
            SetupError::BoardWronglyOriented => "FIDE-7.2b",
            SetupError::ColoursReversed if self.regs.mode.is_online() => "OCR-15.2",
            SetupError::ColoursReversed => "FIDE-7.3",
        }
    }

    /// A.5.1.2: in rapid and blitz under A.5 (B.3), once each player has
    /// completed ten moves, no claim about the set-up or the orientation of
    /// the board can be made.
    fn setup_claims_closed(&self) -> bool {
        self.regs.regime == Regime::Reduced
            && matches!(self.regs.category(), Category::Rapid | Category::Blitz)
            && Color::ALL.iter().all(|c| self.moves_completed(*c) >= 10)
    }

    fn setup_error(&mut self, error: SetupError) -> Outcome {
        let rule = self.setup_rule(error);
        let closed = || {
            reject(
                RejectReason::NotApplicable,
                Some("FIDE-A.5.1"),
                "each player has completed ten moves: under A.5 no claim about the set-up or the \
                 orientation of the board can be made any more (A.5.1.2); the game continues. A \
                 misplaced king or rook is reported as KingMisplaced or RookMisplaced: castling with \
                 it is then banned",
            )
        };
        match error {
            SetupError::WrongInitialPosition => {
                if self.setup_claims_closed() {
                    return Err(closed());
                }
                Ok(vec![self.finish(
                    GameResult::Annulled,
                    "wrong initial position: the game is annulled and a new game is to be played",
                    rule,
                )])
            }
            SetupError::KingMisplaced { .. } | SetupError::RookMisplaced { .. } => {
                self.misplaced_king_or_rook(error, rule)
            }
            SetupError::BoardWronglyOriented => {
                if self.regs.mode.is_online() {
                    return Err(reject(
                        RejectReason::NotApplicable,
                        Some("OCR-1.3"),
                        "the platform draws the board: it cannot be wrongly oriented",
                    ));
                }
                if self.setup_claims_closed() {
                    return Err(closed());
                }
                Ok(vec![Ruling::new(
                    rule,
                    Decision::SetupErrorStands {
                        error,
                        note: "the game continues; the position is transferred to a correctly placed board"
                            .into(),
                    },
                )])
            }
            SetupError::ColoursReversed => {
                if self.moves_made.iter().all(|&m| m >= 10) {
                    Ok(vec![Ruling::new(
                        rule,
                        Decision::SetupErrorStands {
                            error,
                            note: "ten moves have been made by both players: the game continues with the \
                                   colours as played"
                                .into(),
                        },
                    )])
                } else {
                    Ok(vec![self.finish(
                        GameResult::Annulled,
                        "colours reversed before ten moves by both players: the game is annulled and a new \
                         game is to be played with the correct colours",
                        rule,
                    )])
                }
            }
        }
    }

    /// A.5.1.2: a misplaced king or rook in the initial position. Before the
    /// ten-move cut-off (and outside rapid and blitz under A.5) it is a
    /// wrong initial position (7.2.1: annulled); after it the game continues
    /// and the castling concerned is banned.
    fn misplaced_king_or_rook(&mut self, error: SetupError, rule: &'static str) -> Outcome {
        if let SetupError::RookMisplaced { square } = error {
            // The rook is named by the square its castling right refers to
            // in the start position; any other square names no castling.
            let start = &self.record.positions()[0];
            if !start.castling_rooks().contains(square) {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some("FIDE-A.5.1"),
                    format!("{square} is not the square of a castling rook in the start position"),
                ));
            }
        }
        if !self.setup_claims_closed() {
            return Ok(vec![self.finish(
                GameResult::Annulled,
                "wrong initial position: the game is annulled and a new game is to be played",
                rule,
            )]);
        }
        let note = match error {
            SetupError::KingMisplaced { color } => format!(
                "each player has completed ten moves: the game continues; {color}'s king was misplaced, so \
                 {color} may not castle (A.5.1.2)"
            ),
            SetupError::RookMisplaced { square } => format!(
                "each player has completed ten moves: the game continues; the rook starting on {square} was \
                 misplaced, so castling with it is not allowed (A.5.1.2)"
            ),
            _ => unreachable!("only a misplaced king or rook is ruled here"),
        };
        if !self.castling_bans.contains(&error) {
            self.castling_bans.push(error);
        }
        Ok(vec![Ruling::new("FIDE-A.5.1", Decision::SetupErrorStands { error, note })])
    }

    /// The service came back after an outage; its timeline skips the outage,
    /// so no clock changes (6.11: the arbiter decides how play resumes).
    fn service_resumed(&mut self, outage_ms: i64) -> Outcome {
        if outage_ms < 0 {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-6.11"),
                format!("an outage cannot last {outage_ms} ms"),
            ));
        }
        Ok(vec![Ruling::new("FIDE-6.11", Decision::ClockResumedAfterOutage { outage_ms })])
    }

    fn reinstate(&mut self, ply: usize, at: i64) -> Outcome {
        if ply > self.record.ply_count() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-7.5.1"),
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
        // The clock follows the board: the player to move in the reinstated
        // position is the one whose clock runs.
        let to_move = self.position().turn();
        if self.clock.is_started() {
            self.clock.hand_over(to_move, Timestamp(at)).map_err(clock_rejection)?;
        }
        let mut out =
            vec![Ruling::new("FIDE-7.5.1", Decision::PositionReinstated { ply, fen: self.position().fen() })];
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

    fn declare_result(&mut self, result: DeclaredResult) -> Outcome {
        let r = match result {
            DeclaredResult::WhiteWins => GameResult::WhiteWins,
            DeclaredResult::BlackWins => GameResult::BlackWins,
            DeclaredResult::Draw => GameResult::Draw,
            DeclaredResult::BothLose => GameResult::BothLose,
        };
        // Online, the arbiter corrects the platform: an automatic draw it
        // missed (OCR 15.3) or a result it should not have given (15.4).
        let rule = match (self.regs.mode.is_online(), self.end.is_some(), r) {
            (true, true, _) => "OCR-15.4",
            (true, false, GameResult::Draw) => "OCR-15.3",
            _ => "FIDE-8.7",
        };
        Ok(vec![self.finish(r, "declared by the arbiter", rule)])
    }

    fn device_found(&mut self, color: Color, at: i64) -> Outcome {
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
                Ok(vec![self.finish(result, reason, "FIDE-11.3b")])
            }
            DevicePenalty::DeductTime(ms) => Ok(vec![self.add_time(color, -ms, at, "FIDE-11.3b")]),
        }
    }

    fn answer_question(&mut self, id: u32, answer: Answer, at: i64) -> Outcome {
        let Some(index) = self.questions.iter().position(|q| q.id == id) else {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("DEC-12"),
                format!("no open question {id}"),
            ));
        };
        let q = self.questions.remove(index);
        let mut out =
            vec![Ruling::new("DEC-12", Decision::QuestionAnswered { id, answer: format!("{answer:?}") })];
        match (&q.kind, answer) {
            (QuestionKind::CannotMateUnknown { .. }, Answer::Accept) => {
                // The arbiter finds that the side cannot checkmate: a draw.
                out.push(self.finish(
                    GameResult::Draw,
                    "the arbiter found no possible checkmate",
                    "FIDE-6.9",
                ));
            }
            (QuestionKind::CannotMateUnknown { .. }, _) => {}
            (QuestionKind::IncrementRequest { by }, Answer::Accept) => {
                let by = *by;
                if self.end.is_none() {
                    let control = self.clock.control().with_bonus_everywhere(Bonus::increment(5_000));
                    let _ = self.clock.set_control(control, Timestamp(at));
                    out.push(Ruling::new(
                        "FIDE-III.4",
                        Decision::IncrementIntroduced { increment_ms: 5_000 },
                    ));
                    out.push(self.add_time(by.other(), 2 * 60_000, at, "FIDE-III.4"));
                }
            }
            (QuestionKind::IncrementRequest { .. }, _) => {}
            (QuestionKind::NoWinningAttempt { by }, a) => {
                let by = *by;
                if self.paused_for_question == Some(id) && self.clock.is_paused() {
                    let _ = self.clock.resume(Timestamp(at));
                    self.paused_for_question = None;
                }
                if self.end.is_none() {
                    match a {
                        Answer::Accept => out.push(self.finish(
                            GameResult::Draw,
                            "no winning attempt by normal means",
                            "FIDE-III.5",
                        )),
                        Answer::Reject => out.push(self.add_time(by.other(), 2 * 60_000, at, "FIDE-III.5")),
                        Answer::Postpone | Answer::Default => {}
                    }
                }
            }
        }
        Ok(out)
    }

    // ----- Players: arrival, connection -----

    fn player_arrived(&mut self, color: Color, _at: i64) -> Outcome {
        if self.arrived[color.index()] {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-6.7a"),
                format!("{color} has already arrived"),
            ));
        }
        self.arrived[color.index()] = true;
        Ok(vec![Ruling::new("FIDE-6.7a", Decision::PlayerArrived { color })])
    }

    fn disconnect(&mut self, color: Color, at: i64) -> Outcome {
        if !self.regs.mode.is_online() {
            return Err(reject(
                RejectReason::NotApplicable,
                Some("OCR-11"),
                "disconnections apply to online games",
            ));
        }
        if self.disconnected_at[color.index()].is_some() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("OCR-11"),
                format!("{color} is already disconnected"),
            ));
        }
        self.disconnected_at[color.index()] = Some(at);
        Ok(vec![Ruling::new("OCR-11.4", Decision::Disconnected { color })])
    }

    fn reconnect(&mut self, color: Color) -> Outcome {
        if self.disconnected_at[color.index()].take().is_none() {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("OCR-11"),
                format!("{color} is not disconnected"),
            ));
        }
        Ok(vec![Ruling::new("OCR-11.4.1", Decision::Reconnected { color })])
    }

    // ----- Moves over the board -----

    /// Refuses a board act of over-the-board play in an online game.
    fn require_over_the_board(&self, rule: &'static str, message: &str) -> Result<(), Rejection> {
        if self.regs.mode.is_online() {
            return Err(reject(RejectReason::NotApplicable, Some(rule), message));
        }
        Ok(())
    }

    /// Refuses a move or a press while the arbiter has paused the clocks.
    fn require_running_clocks(&self) -> Result<(), Rejection> {
        if self.clock.is_paused() {
            return Err(reject(RejectReason::ClocksPaused, Some("FIDE-6.11"), "the clocks are paused"));
        }
        Ok(())
    }

    /// The player who has the move (DEF-HAS-MOVE): the side to move on the
    /// board; a made, uncompleted legal move already passed it.
    fn has_move(&self) -> Color {
        self.position().turn()
    }

    fn announce_adjust(&mut self, color: Color) -> Outcome {
        self.require_over_the_board("OCR-1.3", "there is no adjusting online")?;
        if color != self.has_move() {
            // DEC-2: a warning, no obligation.
            return Ok(vec![self.warn(color, "adjusting when not having the move", "FIDE-4.2a")]);
        }
        self.turn.adjust_announced = true;
        Ok(Vec::new())
    }

    fn touch(&mut self, color: Color, square: Square, kind: TouchKind) -> Outcome {
        self.require_over_the_board("OCR-1.3", "there is no touch-move online")?;
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
            return Ok(vec![self.warn(color, format!("{what} when not having the move"), "FIDE-4.2a")]);
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

    fn obligation_ruling(&self, color: Color, o: &Obligation) -> Ruling {
        let pos = self.position();
        let mut allowed: Vec<String> = o.allowed.iter().map(|m| pos.san(*m)).collect();
        allowed.sort();
        Ruling::new(o.rule, Decision::Obligation { color, allowed, reason: o.reason.clone() })
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
                    "FIDE-9.1.2b",
                    Decision::DrawOfferLapsed {
                        color: by,
                        reason: format!("{color} touched a piece with the intention of moving it"),
                    },
                )]
            }
            _ => Vec::new(),
        }
    }

    fn promotion_touched(&mut self, color: Color, role: Role) -> Outcome {
        self.require_over_the_board("OCR-1.3", "promotion is chosen with the move online")?;
        if color != self.has_move() {
            return Err(reject(RejectReason::NotYourTurn, None, format!("{color} does not have the move")));
        }
        if matches!(role, Role::Pawn | Role::King) {
            return Err(reject(
                RejectReason::InvalidArgument,
                Some("FIDE-3.7"),
                "a pawn promotes to a queen, rook, bishop or knight",
            ));
        }
        if self.turn.promotion.is_none() {
            self.turn.promotion = Some(role);
        }
        Ok(Vec::new())
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

    fn make_move(&mut self, color: Color, mv: &MoveInput, _at: i64) -> Outcome {
        self.require_over_the_board("OCR-3.1", "online moves are submitted, not made")?;
        self.require_running_clocks()?;
        let mut out = Vec::new();
        let correcting = match &self.pending {
            Some(Pending::Legal { color: c, .. } | Pending::UnfinishedPromotion { color: c, .. })
                if *c == color =>
            {
                return Err(reject(
                    RejectReason::PieceReleased,
                    Some("FIDE-4.7"),
                    "a piece released on a square as a legal move cannot be moved to another square",
                ));
            }
            Some(Pending::HalfCastling { color: c, castle }) if *c == color => {
                // 4.7.2: only castling on that side may complete the move.
                if self.resolve(mv) != Some(*castle) {
                    return Err(reject(
                        RejectReason::PieceReleased,
                        Some("FIDE-4.7"),
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
                Some("FIDE-1.3"),
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
        if correcting {
            // Correcting an illegal or refused move before pressing: allowed,
            // still bound by Article 4.
            self.pending = None;
        }
        // Moving a piece is touching it (and a piece it captures).
        for sq in [mv.from, mv.to] {
            if self.position().board().occupied().contains(sq)
                && !self.turn.touched.contains(&sq)
                && (sq == mv.from || self.position().board().color_at(sq) != Some(color))
            {
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
                    if unfinished_promotion { "FIDE-7.5.2" } else { "FIDE-4.7" },
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
                out.push(Ruling::new("FIDE-7.5.1", Decision::IllegalMoveNotCompleted { color, description }));
            }
        }
        Ok(out)
    }

    /// 4.7.2 and DEC-6: the king released on its castling square, the rook
    /// not yet moved.
    fn castling_king_released(&mut self, color: Color, to: Square, at: i64) -> Outcome {
        self.require_over_the_board("OCR-3.1", "online moves are submitted whole")?;
        self.require_running_clocks()?;
        if color != self.has_move() {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some("FIDE-1.3"),
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
                    Some("FIDE-4.7"),
                    "a piece released on a square as a legal move cannot be moved to another square",
                ));
            }
            _ => {}
        }
        let stands = self.illegal_move_stands_by(color);
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
            rule: "FIDE-4.7",
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

    /// 7.5.4: the move made and not yet completed was made with two hands.
    fn used_two_hands(&mut self, color: Color) -> Outcome {
        self.require_over_the_board("OCR-1.3", "there are no hands online")?;
        if self.clock.running() != Some(color) {
            return Err(reject(
                RejectReason::NotYourTurn,
                Some("FIDE-7.5.4"),
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
                Some("FIDE-7.5.4"),
                format!("{color} has no move awaiting completion"),
            )),
        }
    }

    fn press_clock(&mut self, color: Color, other_hand: bool, at: i64) -> Outcome {
        self.require_over_the_board("OCR-4.4", "the online clock switches by itself")?;
        self.require_running_clocks()?;
        let mut out = Vec::new();
        if self.clock.running() != Some(color) {
            // A move made while the opponent's clock still ran: the press
            // completes it without changing the clock (6.2.1.2).
            let completes = matches!(&self.pending, Some(Pending::Legal { color: c, .. }) if *c == color);
            if !completes {
                return Err(reject(
                    RejectReason::NotYourTurn,
                    Some("DEC-11"),
                    format!("{color}'s clock is not running; the press is ignored"),
                ));
            }
            self.pending = None;
            if !self.regs.observe {
                self.after_completion(color, &mut out);
            }
        }
        if other_hand {
            // 6.2.3: not an illegal move; 12.9 (default warning, AS-46).
            out.push(self.warn(color, "pressed the clock with the other hand", "FIDE-6.2c"));
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

    /// `observe = false`: completes what `pending` holds with a press by
    /// `color`. An illegal move (7.5.1, 7.5.2, 7.5.4) is not acted on: it
    /// goes on the board as made and the opponent may claim it before his
    /// next move (A.5.2). What the board cannot hold as a move (a piece of
    /// the opponent moved, a king captured, castling through pieces), a
    /// press without a move (7.5.3) and a half-made castling (DEC-6) are
    /// ruled at once, as an observing arbiter would. Returns `true` when a
    /// move now stands completed on the board.
    fn complete_unobserved(
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
                out.push(self.move_completed(color, &report, at, "FIDE-6.2a"));
                let mut touched = vec![m.from()];
                if !m.is_castle() && before.board().color_at(m.to()) == Some(color.other()) {
                    touched.push(m.to());
                }
                let description = format!("{} made with two hands", before.san(m));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: "FIDE-7.5.4",
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
                out.push(self.move_completed(color, &report, at, "FIDE-7.5.2"));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: "FIDE-7.5.2",
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
                    self.turn_after_illegal(color, &mv);
                    out.extend(self.illegal_move_penalty_under(color, "FIDE-A.5.4", description, at));
                    if self.end.is_none()
                        && let Some(o) = self.obligation()
                    {
                        out.push(self.obligation_ruling(color, &o));
                    }
                    return Ok(false);
                }
                let report = self.clock.press(Timestamp(at)).map_err(clock_rejection)?;
                let mut touched = vec![mv.from];
                if pos.board().color_at(mv.to) == Some(color.other()) {
                    touched.push(mv.to);
                }
                let ply_before = self.record.ply_count();
                let _ = self.record.push_irregular(m);
                self.moves_made[color.index()] += 1;
                self.arrived[color.index()] = true;
                self.turn = TurnState::default();
                out.push(self.move_completed(color, &report, at, "FIDE-6.2a"));
                self.not_acted_on(
                    Claimable {
                        color,
                        rule: "FIDE-7.5.1",
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
    fn move_completed(
        &self,
        color: Color,
        report: &crate::clock::PressReport,
        at: i64,
        rule: &'static str,
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
    fn not_acted_on(&mut self, claimable: Claimable, out: &mut Vec<Ruling>) {
        out.push(Ruling::new(
            "FIDE-A.5.2",
            Decision::IllegalMoveNotActedOn {
                color: claimable.color,
                description: claimable.description.clone(),
            },
        ));
        self.claimable = Some(claimable);
    }

    /// The touched squares after an illegal move `mv` by `color` is taken
    /// back: he must move the piece he moved or take the piece he would
    /// have captured (7.5.1, 4.3).
    fn turn_after_illegal(&mut self, color: Color, mv: &MoveInput) {
        self.turn.touched.clear();
        self.turn.touched.push(mv.from);
        if self.position().board().color_at(mv.to) == Some(color.other()) {
            self.turn.touched.push(mv.to);
        }
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
            "FIDE-A.5.2",
            Decision::IllegalMoveStands { color: c.color, description: c.description },
        )]
    }

    /// `observe = false`, after `color` completed a move: the A.5.4 watch
    /// decides, and a position left by an illegal move that stood is looked
    /// at.
    fn after_completion(&mut self, color: Color, out: &mut Vec<Ruling>) {
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
                    out.push(self.finish(GameResult::Draw, &reason, "FIDE-A.5.4"));
                    return;
                }
                let to_move = self.position().turn();
                let still = (in_check == Some(to_move) && self.position().is_check()).then_some(to_move);
                if let Some(c) = still {
                    self.watch = Some(Watch::MustParry(c));
                }
                out.push(Ruling::new("FIDE-A.5.4", Decision::IllegalPositionCleared { in_check: still }));
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
            "FIDE-A.5.4",
            Decision::IllegalPositionObserved {
                description: format!("{description}: play goes on until the next move is completed"),
            },
        )]
    }

    /// A.5.2: `color` claims his opponent's illegal move before making his
    /// next move; it is ruled as an observed one (7.5.1 to 7.5.5).
    fn claim_illegal_move(&mut self, color: Color, at: i64) -> Outcome {
        if self.regs.observe {
            return Err(reject(
                RejectReason::NotApplicable,
                Some("FIDE-A.5.2"),
                "the service acts on every completed illegal move itself (observe = true): there is nothing \
                 to claim",
            ));
        }
        let claim = match &self.claimable {
            Some(c) if c.color != color => c.clone(),
            Some(_) => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some("FIDE-A.5.2"),
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
                return Err(reject(RejectReason::NotApplicable, Some("FIDE-A.5.2"), message));
            }
        };
        let offender = claim.color;
        let mut out = vec![Ruling::new(
            "FIDE-A.5.2",
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
                "FIDE-7.5.1",
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
    fn complete(
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
                self.turn = TurnState { claim_right_lost: true, ..TurnState::default() };
                self.turn.touched.push(m.from());
                if !m.is_castle() && self.position().board().color_at(m.to()) == Some(color.other()) {
                    self.turn.touched.push(m.to());
                }
                out.extend(self.illegal_move_penalty_under(color, "FIDE-7.5.4", description, at));
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
                    "FIDE-6.2a",
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
                    "FIDE-7.5.2",
                    Decision::MoveCompleted {
                        color,
                        used_ms: report.used_ms,
                        bonus_ms: 0,
                        remaining_ms: self.rem(color, at),
                    },
                ));
                out.extend(self.illegal_move_penalty(color, "pawn not replaced on promotion".into(), at));
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
                self.turn_after_illegal(color, &mv);
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
                out.extend(self.illegal_move_penalty(color, "clock pressed without a move".into(), at));
            }
        }
        Ok(())
    }

    /// 7.5.5: first completed illegal move: the opponent gets the penalty;
    /// second: the game is lost, unless the opponent cannot checkmate.
    fn illegal_move_penalty(&mut self, color: Color, description: String, at: i64) -> Vec<Ruling> {
        self.illegal_move_penalty_under(color, "FIDE-7.5.1", description, at)
    }

    /// As [`Game::illegal_move_penalty`], the illegal move ruling naming
    /// `rule` (7.5.1 to 7.5.4).
    fn illegal_move_penalty_under(
        &mut self,
        color: Color,
        rule: &'static str,
        description: String,
        at: i64,
    ) -> Vec<Ruling> {
        self.illegal_moves[color.index()] += 1;
        let count = self.illegal_moves[color.index()];
        let mut out = vec![Ruling::new(rule, Decision::IllegalMove { color, count, description })];
        if count >= 2 {
            out.extend(self.lose_unless_cannot_mate(color, "FIDE-7.5.5", "second completed illegal move"));
        } else {
            let penalty = self.regs.penalty();
            out.push(self.add_time(color.other(), penalty, at, "FIDE-7.5.5"));
        }
        out
    }

    // ----- Moves online -----

    fn submit_move(&mut self, color: Color, mv: &MoveInput, premove: bool, lag_ms: i64, at: i64) -> Outcome {
        if !self.regs.mode.is_online() {
            return Err(reject(
                RejectReason::NotApplicable,
                Some("FIDE-4"),
                "over the board, moves are made and completed",
            ));
        }
        self.require_running_clocks()?;
        if color != self.position().turn() {
            if premove {
                self.premove = Some((color, *mv));
                let uci = format!("{}{}", mv.from, mv.to);
                return Ok(vec![Ruling::new("OCR-3.1.5", Decision::PremoveQueued { color, uci })]);
            }
            return Err(reject(
                RejectReason::NotYourTurn,
                Some("OCR-4.4"),
                format!("it is not {color}'s move"),
            ));
        }
        let Some(m) = self.resolve(mv) else {
            return Err(reject(
                RejectReason::IllegalMove,
                Some("OCR-3.1.2"),
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
                    "OCR-3.1.5",
                    Decision::PremoveDropped { color: pc, uci: format!("{}{}", pmv.from, pmv.to) },
                )),
            }
        }
        Ok(out)
    }

    fn play_online(&mut self, color: Color, m: Move, lag_ms: i64, at: i64) -> Vec<Ruling> {
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
        out.push(Ruling::new("OCR-3.1", Decision::MoveMade { color, san, uci, ply }));
        // OCR 5.3: an offer is rejected by playing a move.
        if let Some(o) = &self.offer
            && o.by != color
        {
            let by = o.by;
            self.offer = None;
            self.cn_declined(by, color);
            out.push(Ruling::new(
                "OCR-5.3",
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
            "OCR-4.4",
            Decision::MoveCompleted {
                color,
                used_ms: report.used_ms,
                bonus_ms: report.credited_ms(),
                remaining_ms: self.rem(color, at),
            },
        ));
        out
    }

    // ----- Draws -----

    fn cn_declined(&mut self, offerer: Color, decliner: Color) {
        if self.regs.cn_draw_alternation {
            self.cn_blocked[offerer.index()] = true;
            self.cn_blocked[decliner.index()] = false;
        }
    }

    /// 9.1.1: the regulations' restriction on offers and agreements.
    fn draw_restriction(&self) -> Result<(), Rejection> {
        match self.regs.draw_offers {
            DrawOfferRestriction::None => Ok(()),
            DrawOfferRestriction::BeforeMove(n) => {
                if self.moves_made.iter().any(|&m| m < n) {
                    return Err(reject(
                        RejectReason::OfferNotAllowed,
                        Some("FIDE-9.1.1"),
                        format!("draw offers and agreements are not allowed before move {n} by each player"),
                    ));
                }
                Ok(())
            }
            DrawOfferRestriction::WithoutArbiter => Err(reject(
                RejectReason::OfferNotAllowed,
                Some("FIDE-9.1.1"),
                "draw offers and agreements need the arbiter's consent in this event",
            )),
        }
    }

    fn offer_draw(&mut self, color: Color) -> Outcome {
        self.draw_restriction()?;
        if self.regs.cn_draw_alternation && self.cn_blocked[color.index()] {
            return Err(reject(
                RejectReason::OfferNotAllowed,
                Some("CN-7"),
                "your last offer was declined: you may offer again after declining an offer of your opponent",
            ));
        }
        match &self.offer {
            Some(o) if o.by == color => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some("FIDE-9.1.2b"),
                    "your offer is still pending",
                ));
            }
            Some(_) => {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some("FIDE-9.1.2b"),
                    "your opponent's offer is pending: accept or decline it",
                ));
            }
            None => {}
        }
        let ply = self.record.ply_count();
        self.offer = Some(DrawOffer { by: color, ply });
        let mut out = vec![Ruling::new("FIDE-9.1.2a", Decision::DrawOffered { color, ply })];
        if !self.regs.mode.is_online() {
            // 9.1.2.1: the offer belongs after one's own move, before the
            // press. On one's own time before moving it is valid but earns a
            // 12.9.1 warning (DEC-17).
            let just_moved = matches!(&self.pending, Some(Pending::Legal { color: c, .. }) if *c == color);
            if !just_moved && self.clock.running() == Some(color) {
                out.push(self.warn(color, "draw offered before making a move", "FIDE-9.1.2a"));
            }
        }
        Ok(out)
    }

    fn accept_draw(&mut self, color: Color) -> Outcome {
        let Some(o) = &self.offer else {
            return Err(reject(
                RejectReason::NoOffer,
                Some("FIDE-9.1.2b"),
                "there is no draw offer to accept",
            ));
        };
        if o.by == color {
            return Err(reject(
                RejectReason::NoOffer,
                Some("FIDE-9.1.2b"),
                "a player cannot accept his own offer",
            ));
        }
        if self.moves_made.contains(&0) {
            return Err(reject(
                RejectReason::OfferNotAllowed,
                Some("FIDE-5.2.3"),
                "a draw by agreement needs at least one move by each player",
            ));
        }
        // The restriction covers agreements too: an offer can exist despite
        // it (a Guidelines III.4 request made before move n).
        self.draw_restriction()?;
        Ok(vec![self.finish(GameResult::Draw, "agreement", "FIDE-5.2.3")])
    }

    fn decline_draw(&mut self, color: Color) -> Outcome {
        match &self.offer {
            Some(o) if o.by != color => {
                let by = o.by;
                self.offer = None;
                self.cn_declined(by, color);
                Ok(vec![Ruling::new("FIDE-9.1.2b", Decision::DrawOfferDeclined { color })])
            }
            _ => Err(reject(RejectReason::NoOffer, Some("FIDE-9.1.2b"), "there is no draw offer to decline")),
        }
    }

    fn claim_draw(
        &mut self,
        color: Color,
        kind: ClaimKind,
        intended: Option<&MoveInput>,
        at: i64,
    ) -> Outcome {
        let rule = match kind {
            ClaimKind::Threefold => "FIDE-9.2",
            ClaimKind::FiftyMoves => "FIDE-9.3",
        };
        let has_move = color == self.has_move()
            && self
                .pending
                .as_ref()
                .is_none_or(|p| !matches!(p, Pending::Illegal { .. } | Pending::HalfCastling { .. }));
        let mut correct = false;
        let mut reason = String::new();
        let mut intended_move = None;
        if !has_move {
            reason = format!("{color} does not have the move");
        } else if self.turn.claim_right_lost && !self.regs.mode.is_online() {
            reason = "a piece was touched: the right to claim on this move is lost (9.4)".into();
        } else {
            if let Some(i) = intended {
                intended_move = self.resolve(i);
            }
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
            if !correct {
                reason = match kind {
                    ClaimKind::Threefold => "the position has not appeared three times".into(),
                    ClaimKind::FiftyMoves => {
                        "fifty moves have not been played without a capture or pawn move".into()
                    }
                };
            }
        }
        if correct {
            let what = match kind {
                ClaimKind::Threefold => "threefold repetition (claimed)",
                ClaimKind::FiftyMoves => "fifty-move rule (claimed)",
            };
            return Ok(vec![self.finish(GameResult::Draw, what, rule)]);
        }
        // 9.5.3: the opponent gets the penalty; the game continues; an
        // intended move must be played (if illegal, a move with that piece).
        let mut out = vec![Ruling::new("FIDE-9.5c", Decision::ClaimIncorrect { color, reason })];
        let penalty = self.regs.penalty();
        out.push(self.add_time(color.other(), penalty, at, "FIDE-9.5c"));
        if has_move && let Some(i) = intended {
            let forced = match intended_move {
                Some(m) => Some(Obligation {
                    allowed: vec![m],
                    rule: "FIDE-9.5c",
                    reason: "the move written with an incorrect claim must be played".into(),
                }),
                None => {
                    let moves: Vec<Move> = self
                        .position()
                        .legal_moves_filtered(Bitboard::from_square(i.from), Bitboard::FULL)
                        .iter()
                        .copied()
                        .filter(|m| !self.is_banned(*m))
                        .collect();
                    (!moves.is_empty()).then(|| Obligation {
                        allowed: moves,
                        rule: "FIDE-9.5c",
                        reason: format!(
                            "the intended move is illegal: another move with the piece on {}",
                            i.from
                        ),
                    })
                }
            };
            if let Some(f) = forced {
                out.push(self.obligation_ruling(color, &f));
                self.turn.forced = Some(f);
            }
        }
        Ok(out)
    }

    fn resign(&mut self, color: Color) -> Outcome {
        Ok(self.lose_unless_cannot_mate(color, "FIDE-5.1.2", "resignation"))
    }

    // ----- Guidelines III -----

    fn quickplay_check(&self, color: Color, at: i64, rule: &'static str) -> Result<(), Rejection> {
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

    fn request_increment(&mut self, color: Color, at: i64) -> Outcome {
        self.quickplay_check(color, at, "FIDE-III.4")?;
        let mut out = Vec::new();
        // The request is also a draw offer, where offers are allowed (9.1.1).
        if self.offer.is_none() && self.draw_restriction().is_ok() {
            let ply = self.record.ply_count();
            self.offer = Some(DrawOffer { by: color, ply });
            out.push(Ruling::new("FIDE-III.4", Decision::DrawOffered { color, ply }));
        }
        out.push(self.open_question(
            QuestionKind::IncrementRequest { by: color },
            format!("{color} asks for a 5-second increment for both players (Guidelines III.4)"),
            "no change to the clocks".into(),
        ));
        Ok(out)
    }

    fn claim_no_winning_attempt(&mut self, color: Color, at: i64) -> Outcome {
        self.quickplay_check(color, at, "FIDE-III.5")?;
        self.clock.pause(Timestamp(at)).map_err(clock_rejection)?;
        let q = self.open_question(
            QuestionKind::NoWinningAttempt { by: color },
            format!("{color} claims the opponent cannot win by normal means (Guidelines III.5)"),
            "decision postponed; play continues".into(),
        );
        if let Decision::QuestionOpened { id, .. } = &q.decision {
            self.paused_for_question = Some(*id);
        }
        Ok(vec![Ruling::new("FIDE-III.5", Decision::ClocksPaused), q])
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
    Rejection::new(reason, Some("FIDE-6"), e.to_string())
}
