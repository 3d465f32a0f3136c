//! The chess clock (Article 6) as a pure value: integer milliseconds, time
//! injected with every operation.
//!
//! # Model
//!
//! A [`Clock`] holds, for each side, the main time *settled* at the last
//! operation, the number of completed moves and the instant its time ran out
//! (if it did). At most one side's clock runs; the running segment started at
//! a recorded instant, and the time it has consumed is only *settled* (written
//! into the side's remaining time) by an operation: a press, a pause, an
//! adjustment of that side. Readings such as [`Clock::remaining_at`] compute
//! the running side's time without changing anything.
//!
//! Time never goes backwards: every operation and reading takes an instant
//! ([`Timestamp`], milliseconds on the server's monotonic clock) that must be
//! at least the instant of the last operation, otherwise
//! [`ClockError::TimeWentBackwards`] is returned. No operation panics; all
//! arithmetic is checked against [`MAX_TIMESTAMP`] and [`MAX_CLOCK_MS`].
//!
//! # Start (Law 6.5, 6.6, DEC-7)
//!
//! [`Clock::new`] sets each side to the base time of its first period.
//! [`Clock::start`] starts the given side's clock (White's, normally) and
//! credits each side the Fischer increment for its move 1, if its control
//! has one from move 1: a 90'+30" game shows 90:30 for both players at the
//! start (AS-41). The time control module explains the general rule: the
//! increment for move n is credited when move n begins.
//!
//! # A press (Law 6.2.1)
//!
//! [`Clock::press`] completes the running side's move n:
//!
//! 1. the time since the move started is charged (minus any simple delay and
//!    any lag compensation, see below);
//! 2. a Bronstein delay gives back min(delay, main time used on the move);
//! 3. if move n ends a period, the next period's base time is added (AS-40:
//!    0:04 + 0:30 + 30:00 = 30:34);
//! 4. the Fischer increment for move n + 1 is added;
//! 5. the opponent's clock starts.
//!
//! If the side's time ran out before the press, nothing is credited: the
//! time stays at zero and the flag instant is recorded and reported.
//!
//! # Delays (Law 6.3, comm.)
//!
//! * Simple (US) delay: during a move, the main time starts running only after
//!   the delay. The flag falls at `start + delay + main time`.
//! * Bronstein delay: the main time runs from the start of the move; after the
//!   press the time used, up to the delay, is given back. The flag falls at
//!   `start + main time`.
//!
//! Both never leave more main time than at the start of the move, and both
//! charge the same net time for a completed move (AS-42). The delay of a move
//! survives pauses: the part not used before a pause is still available
//! after it.
//!
//! # Pauses (Law 6.11)
//!
//! [`Clock::pause`] settles the running side and stops all time;
//! [`Clock::resume`] restarts the same side's clock. A game end is a pause
//! that is never resumed.
//!
//! # Flag-fall (Law 6.1, 6.8, DEC-5)
//!
//! A side's time has expired at the instant its main time reaches zero,
//! [`Clock::flag_deadline`]: a server can sleep until then and observe the
//! flag (CFG-OBSERVE). [`Clock::flag_fallen_at`] says whether a flag has
//! fallen by a given instant. The clock never goes below zero: when an
//! operation settles more time than is left, the side's time becomes 0 and
//! the exact instant of expiry is recorded ([`Clock::flag`]). A press
//! received at or after the flag instant is late (DEC-5, "a move received
//! after the flag instant loses to the flag"), whatever lag it reports.
//!
//! # Lag compensation (online only, DEC-5)
//!
//! [`ClockConfig::max_lag_compensation_ms`] (default 0, the OTB setting)
//! bounds a per-move compensation: [`Clock::press_with_lag`] subtracts
//! `min(reported lag, maximum, time of the last running segment)` from the
//! time charged for the move. The same maximum applies to both players, the
//! flag instant is never moved, and the amount is reported, so a
//! compensation is always visible in the record.
//!
//! # Arbiter operations
//!
//! * [`Clock::adjust`]: add or subtract time (12.9.2, 12.9.3, 7.5.5, 9.5.3,
//!   III.4, III.5).
//! * [`Clock::set_remaining`]: set a side's time (6.10).
//! * [`Clock::set_moves_completed`]: correct the move counter (6.10.2).
//! * [`Clock::count_unpressed_moves`]: count moves completed without a
//!   press (6.2.1.2), adding the time of any period they ended (DEC-22).
//! * [`Clock::set_control`]: install another time control (6.10.2 wrong
//!   setting; III.4 via [`TimeControl::with_bonus_everywhere`]). The new
//!   control governs from the next press on; the current move keeps its
//!   delay.
//! * [`Clock::retract_last_press`]: the press of an illegal move (7.5, DEC-9)
//!   or of a move that broke Article 4 is taken back: the mover keeps the time
//!   used, loses everything the press credited (increment, Bronstein refund,
//!   period time), the move is no longer counted, the opponent gets back any
//!   time charged since the press, and the mover's clock runs again. Penalty
//!   time for the opponent is a separate [`Clock::adjust`].
//!
//! Giving a flagged side positive time (by adjustment or setting) clears its
//! recorded flag: the arbiter has decided the game goes on.
//!
//! # Time conservation
//!
//! Every operation returns the list of [`ClockChange`]s it made, each with a
//! [`ChangeKind`]. For each side, the time at start plus the sum of all
//! changes equals [`Clock::settled_ms`]; only [`ChangeKind::Elapsed`] and
//! [`ChangeKind::BonusRevoked`] decrease time, and an arbiter
//! [`ChangeKind::Adjustment`] or [`ChangeKind::Set`] may go either way.
//!
//! # Example
//!
//! ```
//! use arbiter_chess::Color::{Black, White};
//! use arbiter_laws::clock::{Clock, ClockConfig, Timestamp};
//! use arbiter_laws::time_control::TimeControl;
//!
//! let control = TimeControl::from_pgn("5400+30").unwrap();
//! let mut clock = Clock::new(control, ClockConfig::default());
//! clock.start(White, Timestamp(0)).unwrap();
//! assert_eq!(clock.remaining_at(White, Timestamp(0)).unwrap(), 5_430_000); // 90:30
//! let press = clock.press(Timestamp(20_000)).unwrap();
//! assert_eq!((press.before_bonus_ms, press.after_ms), (5_410_000, 5_440_000));
//! assert_eq!(clock.flag_deadline(), Some(Timestamp(20_000 + 5_430_000)));
//! // The move turns out to be illegal: keep the 20 s used, drop the 30 s.
//! clock.pause(Timestamp(20_000)).unwrap();
//! clock.retract_last_press(Timestamp(20_000)).unwrap();
//! clock.adjust(Black, 120_000, Timestamp(20_000)).unwrap();
//! assert_eq!(clock.remaining_at(White, Timestamp(20_000)).unwrap(), 5_410_000);
//! assert_eq!(clock.remaining_at(Black, Timestamp(20_000)).unwrap(), 5_550_000);
//! ```

use arbiter_chess::Color;
use thiserror::Error;

use crate::time_control::{BonusKind, TimeControl};

/// The largest accepted instant (milliseconds); every timestamp must lie in
/// `0..=MAX_TIMESTAMP`, which keeps all sums of instants and durations far
/// from overflowing.
pub const MAX_TIMESTAMP: i64 = 1 << 62;
/// The largest time a side may have: about 31 years.
pub const MAX_CLOCK_MS: i64 = 1_000_000_000_000;
/// The largest per-move lag compensation a configuration may allow.
pub const MAX_LAG_COMPENSATION_MS: i64 = 10_000;

/// An instant on the server's monotonic clock, in milliseconds.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default,
)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The instant in milliseconds.
    #[must_use]
    pub const fn ms(self) -> i64 {
        self.0
    }
}

impl From<i64> for Timestamp {
    fn from(ms: i64) -> Timestamp {
        Timestamp(ms)
    }
}

/// Clock policy settings that are not part of the time control.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ClockConfig {
    /// The largest lag compensation per move, in milliseconds; 0 disables
    /// compensation (OTB). Clamped to `0..=MAX_LAG_COMPENSATION_MS`.
    pub max_lag_compensation_ms: i64,
}

/// Why a clock operation was refused. A refused operation changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ClockError {
    /// The instant is earlier than the last operation's.
    #[error("time went backwards: {at:?} is before the last event at {last:?}")]
    TimeWentBackwards {
        /// The last operation's instant.
        last: Timestamp,
        /// The instant given.
        at: Timestamp,
    },
    /// The instant is negative or above [`MAX_TIMESTAMP`].
    #[error("timestamp {at:?} is out of range")]
    TimestampOutOfRange {
        /// The instant given.
        at: Timestamp,
    },
    /// The clock has not been started.
    #[error("the clock has not been started")]
    NotStarted,
    /// The clock was already started.
    #[error("the clock has already been started")]
    AlreadyStarted,
    /// The operation needs a running clock.
    #[error("the clock is not running")]
    NotRunning,
    /// The operation needs a paused clock.
    #[error("the clock is not paused")]
    NotPaused,
    /// The clock is paused; a press is not possible.
    #[error("the clock is paused")]
    Paused,
    /// There is no press that can be retracted.
    #[error("there is no press to retract")]
    NothingToRetract,
    /// The time of a side would leave `0..=MAX_CLOCK_MS`.
    #[error("{side:?}'s time would be {ms} ms, outside 0..={MAX_CLOCK_MS}")]
    TimeOutOfRange {
        /// The side.
        side: Color,
        /// The time it would have (saturated at the `i64` bounds).
        ms: i64,
    },
    /// The move counter would overflow.
    #[error("the move counter would overflow")]
    MoveCountOverflow,
}

/// What caused a change of a side's time.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// Thinking time charged (negative).
    Elapsed,
    /// A Fischer increment (positive), including the one credited at the start.
    Increment,
    /// A Bronstein delay given back after a move (positive).
    DelayRefund,
    /// The base time of a new period (positive).
    PeriodBonus,
    /// An arbiter's addition or subtraction.
    Adjustment,
    /// An arbiter's setting of the time (the difference to the old value).
    Set,
    /// Credits of a retracted press removed (negative).
    BonusRevoked,
    /// Time charged to the opponent since a retracted press, given back
    /// (positive).
    RetractRefund,
}

/// One change of one side's time.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockChange {
    /// Whose time changed.
    pub side: Color,
    /// Why.
    pub kind: ChangeKind,
    /// By how much, in milliseconds (never 0).
    pub delta_ms: i64,
    /// When.
    pub at: Timestamp,
}

/// A flag-fall: whose time expired, and the exact instant.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flag {
    /// The side whose time expired.
    pub side: Color,
    /// The instant it expired.
    pub at: Timestamp,
}

/// The outcome of [`Clock::press`].
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct PressReport {
    /// The side that completed its move.
    pub side: Color,
    /// The instant of the press.
    pub at: Timestamp,
    /// The number of the move completed (the side's completed-move count now).
    pub move_number: u32,
    /// Wall time the side's clock ran during this move, excluding pauses.
    pub elapsed_ms: i64,
    /// Lag compensation applied to this press.
    pub lag_compensated_ms: i64,
    /// Simple delay consumed during this move (not charged to main time).
    pub delay_absorbed_ms: i64,
    /// Main time charged during this move.
    pub used_ms: i64,
    /// The side's time at the press, before any credit.
    pub before_bonus_ms: i64,
    /// Bronstein delay given back.
    pub delay_refund_ms: i64,
    /// Base time of the period that begins with the next move.
    pub period_bonus_ms: i64,
    /// Fischer increment credited for the next move.
    pub increment_ms: i64,
    /// The side's time after the press.
    pub after_ms: i64,
    /// Set if the side's time had expired before the press; nothing was
    /// credited.
    pub flag: Option<Flag>,
    /// The changes made, in order.
    pub changes: Vec<ClockChange>,
}

impl PressReport {
    /// Everything the press credited: what [`Clock::retract_last_press`]
    /// removes.
    #[must_use]
    pub fn credited_ms(&self) -> i64 {
        self.delay_refund_ms + self.period_bonus_ms + self.increment_ms
    }
}

/// The outcome of [`Clock::retract_last_press`].
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct RetractReport {
    /// The side whose press was retracted; its clock is the current one again.
    pub side: Color,
    /// Credits removed from that side (may be less than the press credited if
    /// its time was reduced meanwhile; it never goes below zero).
    pub revoked_ms: i64,
    /// Time given back to the opponent: what its clock had been charged since
    /// the press.
    pub opponent_refund_ms: i64,
    /// The changes made, in order.
    pub changes: Vec<ClockChange>,
}

/// Running state.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    NotStarted,
    Running { since: Timestamp },
    Paused,
}

/// Bookkeeping of the move in progress (of the side whose turn it is).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
struct MoveState {
    /// Wall time settled so far.
    elapsed_ms: i64,
    /// Main time charged so far.
    used_ms: i64,
    /// Simple delay still available.
    delay_left_ms: i64,
    /// Simple delay consumed so far.
    delay_absorbed_ms: i64,
}

/// What the last press did, kept so it can be retracted exactly.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
struct LastPress {
    side: Color,
    at: Timestamp,
    credited_ms: i64,
    moves_before: u32,
    /// The mover's move state after the press's charge, restored on retract.
    move_state: MoveState,
}

/// Time consumed by the running segment up to an instant.
#[derive(Clone, Copy, Debug)]
struct Segment {
    wall_ms: i64,
    lag_ms: i64,
    absorbed_ms: i64,
    main_ms: i64,
    flag: Option<Timestamp>,
}

/// The chess clock. See the module documentation.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    config: ClockConfig,
    remaining: [i64; 2],
    moves: [u32; 2],
    flags: [Option<Timestamp>; 2],
    turn: Color,
    run: Run,
    current: MoveState,
    last_at: Option<Timestamp>,
    last_press: Option<LastPress>,
}

impl Clock {
    /// A clock set for `control`, not started, White to move; each side shows
    /// the base time of its first period.
    #[must_use]
    pub fn new(control: TimeControl, config: ClockConfig) -> Clock {
        let config = ClockConfig {
            max_lag_compensation_ms: config.max_lag_compensation_ms.clamp(0, MAX_LAG_COMPENSATION_MS),
        };
        let remaining = [control.initial_ms(Color::White), control.initial_ms(Color::Black)];
        Clock {
            control,
            config,
            remaining,
            moves: [0, 0],
            flags: [None, None],
            turn: Color::White,
            run: Run::NotStarted,
            current: MoveState::default(),
            last_at: None,
            last_press: None,
        }
    }

    /// The time control in force.
    #[must_use]
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// The clock policy.
    #[must_use]
    pub fn config(&self) -> ClockConfig {
        self.config
    }

    /// The side whose clock runs, or would run after a resume.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The side whose clock is running, if any.
    #[must_use]
    pub fn running(&self) -> Option<Color> {
        match self.run {
            Run::Running { .. } => Some(self.turn),
            _ => None,
        }
    }

    /// The instant the running side's current segment began (its move began
    /// then, or the clock was last resumed or settled), if a clock runs.
    #[must_use]
    pub fn running_since(&self) -> Option<Timestamp> {
        match self.run {
            Run::Running { since } => Some(since),
            _ => None,
        }
    }

    /// Whether [`Clock::start`] has been called.
    #[must_use]
    pub fn is_started(&self) -> bool {
        self.run != Run::NotStarted
    }

    /// Whether the clock is paused.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.run == Run::Paused
    }

    /// The number of moves `side` has completed (by a press).
    #[must_use]
    pub fn moves_completed(&self, side: Color) -> u32 {
        self.moves[side.index()]
    }

    /// The index of the period `side` is playing in: the one containing its
    /// next move.
    #[must_use]
    pub fn period_index(&self, side: Color) -> usize {
        self.control.period_index_for_move(side, self.moves[side.index()].saturating_add(1))
    }

    /// The instant `side`'s time expired, as recorded by a settling
    /// operation, if it has.
    #[must_use]
    pub fn flag(&self, side: Color) -> Option<Timestamp> {
        self.flags[side.index()]
    }

    /// `side`'s time as settled by the last operation, excluding the running
    /// segment. The initial time plus every reported change equals this.
    #[must_use]
    pub fn settled_ms(&self, side: Color) -> i64 {
        self.remaining[side.index()]
    }

    /// The instant of the last operation.
    #[must_use]
    pub fn last_event_at(&self) -> Option<Timestamp> {
        self.last_at
    }

    /// `side`'s main time at `at`, without changing the clock; never
    /// negative.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`] or [`ClockError::TimeWentBackwards`].
    pub fn remaining_at(&self, side: Color, at: Timestamp) -> Result<i64, ClockError> {
        self.check_time(at)?;
        let settled = self.remaining[side.index()];
        match self.run {
            Run::Running { since } if side == self.turn => Ok(settled - self.segment(since, at, 0).main_ms),
            _ => Ok(settled),
        }
    }

    /// The simple delay still available to the side to move at `at` (0 when
    /// there is none), for display.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`] or [`ClockError::TimeWentBackwards`].
    pub fn delay_left_at(&self, at: Timestamp) -> Result<i64, ClockError> {
        self.check_time(at)?;
        match self.run {
            Run::Running { since } => Ok(self.current.delay_left_ms - self.segment(since, at, 0).absorbed_ms),
            _ => Ok(self.current.delay_left_ms),
        }
    }

    /// The instant the running side's flag falls if nothing happens before;
    /// `None` when no clock runs or the running side's flag already fell.
    #[must_use]
    pub fn flag_deadline(&self) -> Option<Timestamp> {
        match self.run {
            Run::Running { since } if self.flags[self.turn.index()].is_none() => {
                Some(Timestamp(since.0 + self.current.delay_left_ms + self.remaining[self.turn.index()]))
            }
            _ => None,
        }
    }

    /// The earliest flag that has fallen by `at`: a recorded one, or the
    /// running side's if its deadline is at or before `at`.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`] or [`ClockError::TimeWentBackwards`].
    pub fn flag_fallen_at(&self, at: Timestamp) -> Result<Option<Flag>, ClockError> {
        self.check_time(at)?;
        let mut earliest: Option<Flag> = None;
        let mut consider = |flag: Flag| {
            if earliest.is_none_or(|e| flag.at < e.at) {
                earliest = Some(flag);
            }
        };
        for side in Color::ALL {
            if let Some(t) = self.flags[side.index()] {
                consider(Flag { side, at: t });
            }
        }
        if let Some(deadline) = self.flag_deadline()
            && deadline <= at
        {
            consider(Flag { side: self.turn, at: deadline });
        }
        Ok(earliest)
    }

    /// Starts `first`'s clock at `at` (White's in a normal game, Law 6.5) and
    /// credits each side the increment for its move 1 (DEC-7).
    ///
    /// # Errors
    ///
    /// [`ClockError::AlreadyStarted`], [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`], [`ClockError::TimeOutOfRange`].
    pub fn start(&mut self, first: Color, at: Timestamp) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        if self.run != Run::NotStarted {
            return Err(ClockError::AlreadyStarted);
        }
        let mut new_remaining = self.remaining;
        let mut changes = Vec::new();
        for side in Color::ALL {
            let inc = self.control.increment_for_move(side, self.moves[side.index()].saturating_add(1));
            new_remaining[side.index()] = add_time(side, new_remaining[side.index()], inc)?;
            push(&mut changes, side, ChangeKind::Increment, inc, at);
        }
        self.remaining = new_remaining;
        self.turn = first;
        self.current = self.new_move(first);
        self.run = Run::Running { since: at };
        self.last_at = Some(at);
        self.last_press = None;
        Ok(changes)
    }

    /// Completes the running side's move at `at`. See the module docs.
    ///
    /// # Errors
    ///
    /// [`ClockError::NotStarted`], [`ClockError::Paused`],
    /// [`ClockError::TimestampOutOfRange`], [`ClockError::TimeWentBackwards`],
    /// [`ClockError::TimeOutOfRange`], [`ClockError::MoveCountOverflow`].
    pub fn press(&mut self, at: Timestamp) -> Result<PressReport, ClockError> {
        self.press_with_lag(at, 0)
    }

    /// [`Clock::press`] with a reported network lag, compensated up to the
    /// configured maximum (see the module docs). Negative lag counts as 0.
    ///
    /// # Errors
    ///
    /// As [`Clock::press`].
    pub fn press_with_lag(&mut self, at: Timestamp, lag_ms: i64) -> Result<PressReport, ClockError> {
        self.check_time(at)?;
        let since = match self.run {
            Run::NotStarted => return Err(ClockError::NotStarted),
            Run::Paused => return Err(ClockError::Paused),
            Run::Running { since } => since,
        };
        let side = self.turn;
        let i = side.index();
        let lag = lag_ms.clamp(0, self.config.max_lag_compensation_ms);
        let seg = self.segment(since, at, lag);
        let move_number = self.moves[i].checked_add(1).ok_or(ClockError::MoveCountOverflow)?;
        let before_bonus = self.remaining[i] - seg.main_ms;
        let used = self.current.used_ms + seg.main_ms;
        let flag = seg.flag.or(self.flags[i]);

        let (refund, period_bonus, increment) = if flag.is_some() {
            (0, 0, 0)
        } else {
            let refund = match self.control.delay_for_move(side, move_number) {
                Some((BonusKind::Bronstein, delay)) => delay.min(used),
                _ => 0,
            };
            let period_bonus = self.control.period_bonus_after_move(side, move_number);
            let increment = self.control.increment_for_move(side, move_number.saturating_add(1));
            (refund, period_bonus, increment)
        };
        let after = add_time(side, before_bonus, refund)
            .and_then(|t| add_time(side, t, period_bonus))
            .and_then(|t| add_time(side, t, increment))?;

        let mut changes = Vec::new();
        push(&mut changes, side, ChangeKind::Elapsed, -seg.main_ms, at);
        push(&mut changes, side, ChangeKind::DelayRefund, refund, at);
        push(&mut changes, side, ChangeKind::PeriodBonus, period_bonus, at);
        push(&mut changes, side, ChangeKind::Increment, increment, at);

        let move_state = MoveState {
            elapsed_ms: self.current.elapsed_ms + seg.wall_ms,
            used_ms: used,
            delay_left_ms: self.current.delay_left_ms - seg.absorbed_ms,
            delay_absorbed_ms: self.current.delay_absorbed_ms + seg.absorbed_ms,
        };
        let report = PressReport {
            side,
            at,
            move_number,
            elapsed_ms: move_state.elapsed_ms,
            lag_compensated_ms: seg.lag_ms,
            delay_absorbed_ms: move_state.delay_absorbed_ms,
            used_ms: used,
            before_bonus_ms: before_bonus,
            delay_refund_ms: refund,
            period_bonus_ms: period_bonus,
            increment_ms: increment,
            after_ms: after,
            flag: flag.map(|t| Flag { side, at: t }),
            changes,
        };

        self.remaining[i] = after;
        self.flags[i] = flag;
        self.moves[i] = move_number;
        self.last_press = Some(LastPress {
            side,
            at,
            credited_ms: report.credited_ms(),
            moves_before: move_number - 1,
            move_state,
        });
        self.turn = side.other();
        self.current = self.new_move(self.turn);
        self.run = Run::Running { since: at };
        self.last_at = Some(at);
        Ok(report)
    }

    /// Makes `side` the side to move at `at` without a press: the running
    /// side's time is settled, nothing is credited and no move is counted,
    /// and `side` starts a fresh move (with its delay). Used when the arbiter
    /// reinstates a position in which the other player is to move (7.5.1,
    /// 7.6, DEC-16); a paused clock stays paused. Nothing happens if `side`
    /// already has the turn. A press can no longer be retracted afterwards.
    ///
    /// # Errors
    ///
    /// [`ClockError::NotStarted`], [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`].
    pub fn hand_over(&mut self, side: Color, at: Timestamp) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        if self.run == Run::NotStarted {
            return Err(ClockError::NotStarted);
        }
        if self.turn == side {
            return Ok(Vec::new());
        }
        let changes = self.settle(at);
        self.turn = side;
        self.current = self.new_move(side);
        if let Run::Running { .. } = self.run {
            self.run = Run::Running { since: at };
        }
        self.last_press = None;
        self.last_at = Some(at);
        Ok(changes)
    }

    /// Pauses the clock at `at` (Law 6.11), settling the running side.
    ///
    /// # Errors
    ///
    /// [`ClockError::NotRunning`], [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`].
    pub fn pause(&mut self, at: Timestamp) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        if !matches!(self.run, Run::Running { .. }) {
            return Err(ClockError::NotRunning);
        }
        let changes = self.settle(at);
        self.run = Run::Paused;
        self.last_at = Some(at);
        Ok(changes)
    }

    /// Restarts the paused side's clock at `at`.
    ///
    /// # Errors
    ///
    /// [`ClockError::NotPaused`], [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`].
    pub fn resume(&mut self, at: Timestamp) -> Result<(), ClockError> {
        self.check_time(at)?;
        if self.run != Run::Paused {
            return Err(ClockError::NotPaused);
        }
        self.run = Run::Running { since: at };
        self.last_at = Some(at);
        Ok(())
    }

    /// Adds `delta_ms` (negative: subtracts) to `side`'s time at `at`. If
    /// `side`'s clock is running, its time is settled first.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimeOutOfRange`] if the result would be negative or above
    /// [`MAX_CLOCK_MS`] (subtract at most what is left, or use
    /// [`Clock::set_remaining`]); [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`].
    pub fn adjust(
        &mut self,
        side: Color,
        delta_ms: i64,
        at: Timestamp,
    ) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        let settled = self.settled_value(side, at);
        let new = add_time(side, settled, delta_ms)?;
        self.apply_arbiter(side, new, ChangeKind::Adjustment, at)
    }

    /// Sets `side`'s time to `ms` at `at` (Law 6.10, best judgement).
    ///
    /// # Errors
    ///
    /// [`ClockError::TimeOutOfRange`] if `ms` is negative or above
    /// [`MAX_CLOCK_MS`]; [`ClockError::TimestampOutOfRange`],
    /// [`ClockError::TimeWentBackwards`].
    pub fn set_remaining(
        &mut self,
        side: Color,
        ms: i64,
        at: Timestamp,
    ) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        if !(0..=MAX_CLOCK_MS).contains(&ms) {
            return Err(ClockError::TimeOutOfRange { side, ms });
        }
        self.apply_arbiter(side, ms, ChangeKind::Set, at)
    }

    /// Sets `side`'s completed-move counter (Law 6.10.2). Periods and bonuses
    /// follow the new count from the next press on. A press can no longer be
    /// retracted afterwards.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`], [`ClockError::TimeWentBackwards`].
    pub fn set_moves_completed(&mut self, side: Color, moves: u32, at: Timestamp) -> Result<(), ClockError> {
        self.check_time(at)?;
        self.moves[side.index()] = moves;
        self.last_press = None;
        self.last_at = Some(at);
        Ok(())
    }

    /// Counts moves `side` completed without a press (Law 6.2.1.2: a move
    /// is also completed when the player makes his next move, or when his
    /// opponent's press completes nothing on a running clock): the counter
    /// becomes `moves` and the base time of every period those moves ended
    /// is added (6.3.1), as an arbiter correcting the clock would; no
    /// increment or delay is credited, since no press was made (DEC-22).
    /// Nothing happens if the counter already shows `moves` or more. A
    /// press can no longer be retracted afterwards.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`], [`ClockError::TimeWentBackwards`],
    /// [`ClockError::TimeOutOfRange`].
    pub fn count_unpressed_moves(
        &mut self,
        side: Color,
        moves: u32,
        at: Timestamp,
    ) -> Result<Vec<ClockChange>, ClockError> {
        self.check_time(at)?;
        let counted = self.moves[side.index()];
        if counted >= moves {
            return Ok(Vec::new());
        }
        let settled = self.settled_value(side, at);
        // A side whose time has run out is credited nothing (as a press).
        let bonus: i64 = if self.flags[side.index()].is_some() || settled == 0 {
            0
        } else {
            (counted.saturating_add(1)..=moves).map(|n| self.control.period_bonus_after_move(side, n)).sum()
        };
        let new = add_time(side, settled, bonus)?;
        let mut changes = if side == self.turn { self.settle(at) } else { Vec::new() };
        push(&mut changes, side, ChangeKind::PeriodBonus, bonus, at);
        self.remaining[side.index()] = new;
        self.moves[side.index()] = moves;
        self.last_press = None;
        self.last_at = Some(at);
        Ok(changes)
    }

    /// Installs another time control at `at` (Law 6.10.2, Guidelines III.4).
    /// Times and move counters are unchanged (adjust them separately); the
    /// new control's bonuses and periods apply from the next press on, and
    /// the move in progress keeps the delay it started with.
    ///
    /// # Errors
    ///
    /// [`ClockError::TimestampOutOfRange`], [`ClockError::TimeWentBackwards`].
    pub fn set_control(&mut self, control: TimeControl, at: Timestamp) -> Result<(), ClockError> {
        self.check_time(at)?;
        self.control = control;
        self.last_at = Some(at);
        Ok(())
    }

    /// Takes back the last press (Law 7.5, DEC-9; also an Article 4 breach
    /// found after the press): see the module docs. The retracted side's
    /// clock runs from `at` if the clock is running, and stays paused
    /// otherwise.
    ///
    /// # Errors
    ///
    /// [`ClockError::NothingToRetract`] if there was no press since the start,
    /// the last retraction or [`Clock::set_moves_completed`];
    /// [`ClockError::TimestampOutOfRange`], [`ClockError::TimeWentBackwards`],
    /// [`ClockError::TimeOutOfRange`].
    pub fn retract_last_press(&mut self, at: Timestamp) -> Result<RetractReport, ClockError> {
        self.check_time(at)?;
        let lp = self.last_press.ok_or(ClockError::NothingToRetract)?;
        let side = lp.side;
        let opponent = side.other();
        if self.turn != opponent {
            return Err(ClockError::NothingToRetract);
        }
        // The opponent's move began at the press, so everything charged to it
        // since is exactly its current move's settled use; the unsettled part
        // of a running segment is simply never charged.
        let refund = self.current.used_ms;
        let opp_new = add_time(opponent, self.remaining[opponent.index()], refund)?;
        let revoked = lp.credited_ms.min(self.remaining[side.index()]);

        let mut changes = Vec::new();
        push(&mut changes, side, ChangeKind::BonusRevoked, -revoked, at);
        push(&mut changes, opponent, ChangeKind::RetractRefund, refund, at);

        self.remaining[side.index()] -= revoked;
        self.remaining[opponent.index()] = opp_new;
        if self.flags[opponent.index()].is_some_and(|t| t >= lp.at) && opp_new > 0 {
            self.flags[opponent.index()] = None;
        }
        self.moves[side.index()] = lp.moves_before;
        self.turn = side;
        self.current = lp.move_state;
        if let Run::Running { .. } = self.run {
            self.run = Run::Running { since: at };
        }
        self.last_press = None;
        self.last_at = Some(at);
        Ok(RetractReport { side, revoked_ms: revoked, opponent_refund_ms: refund, changes })
    }

    fn check_time(&self, at: Timestamp) -> Result<(), ClockError> {
        if !(0..=MAX_TIMESTAMP).contains(&at.0) {
            return Err(ClockError::TimestampOutOfRange { at });
        }
        match self.last_at {
            Some(last) if at < last => Err(ClockError::TimeWentBackwards { last, at }),
            _ => Ok(()),
        }
    }

    /// The move state at the start of `side`'s next move.
    fn new_move(&self, side: Color) -> MoveState {
        let n = self.moves[side.index()].saturating_add(1);
        let delay = match self.control.delay_for_move(side, n) {
            Some((BonusKind::SimpleDelay, ms)) => ms,
            _ => 0,
        };
        MoveState { delay_left_ms: delay, ..MoveState::default() }
    }

    /// The time the running segment (from `since`) has consumed by `at`,
    /// with `lag_ms` of compensation. Callers guarantee `since <= at`.
    fn segment(&self, since: Timestamp, at: Timestamp, lag_ms: i64) -> Segment {
        let i = self.turn.index();
        let wall = at.0 - since.0;
        let remaining = self.remaining[i];
        let delay_left = self.current.delay_left_ms;
        if self.flags[i].is_some() {
            // A side whose flag has fallen has no time left to charge.
            return Segment { wall_ms: wall, lag_ms: 0, absorbed_ms: 0, main_ms: 0, flag: None };
        }
        // The flag instant is fixed by server time; lag never moves it.
        if wall >= delay_left + remaining {
            return Segment {
                wall_ms: wall,
                lag_ms: 0,
                absorbed_ms: delay_left,
                main_ms: remaining,
                flag: Some(Timestamp(since.0 + delay_left + remaining)),
            };
        }
        let lag = lag_ms.min(wall);
        let charged = wall - lag;
        let absorbed = charged.min(delay_left);
        Segment { wall_ms: wall, lag_ms: lag, absorbed_ms: absorbed, main_ms: charged - absorbed, flag: None }
    }

    /// `side`'s time at `at` after settling (without changing anything).
    fn settled_value(&self, side: Color, at: Timestamp) -> i64 {
        match self.run {
            Run::Running { since } if side == self.turn => {
                self.remaining[side.index()] - self.segment(since, at, 0).main_ms
            }
            _ => self.remaining[side.index()],
        }
    }

    /// Settles the running segment at `at`; the segment restarts at `at`.
    fn settle(&mut self, at: Timestamp) -> Vec<ClockChange> {
        let mut changes = Vec::new();
        if let Run::Running { since } = self.run {
            let seg = self.segment(since, at, 0);
            let i = self.turn.index();
            self.remaining[i] -= seg.main_ms;
            if seg.flag.is_some() {
                self.flags[i] = seg.flag;
            }
            self.current.elapsed_ms += seg.wall_ms;
            self.current.used_ms += seg.main_ms;
            self.current.delay_left_ms -= seg.absorbed_ms;
            self.current.delay_absorbed_ms += seg.absorbed_ms;
            self.run = Run::Running { since: at };
            push(&mut changes, self.turn, ChangeKind::Elapsed, -seg.main_ms, at);
        }
        changes
    }

    fn apply_arbiter(
        &mut self,
        side: Color,
        new: i64,
        kind: ChangeKind,
        at: Timestamp,
    ) -> Result<Vec<ClockChange>, ClockError> {
        let mut changes = if side == self.turn { self.settle(at) } else { Vec::new() };
        let i = side.index();
        push(&mut changes, side, kind, new - self.remaining[i], at);
        self.remaining[i] = new;
        if new > 0 {
            self.flags[i] = None;
        }
        self.last_at = Some(at);
        Ok(changes)
    }
}

/// `time + delta`, which must stay within `0..=MAX_CLOCK_MS`.
fn add_time(side: Color, time: i64, delta: i64) -> Result<i64, ClockError> {
    let sum = time.saturating_add(delta);
    if (0..=MAX_CLOCK_MS).contains(&sum) {
        Ok(sum)
    } else {
        Err(ClockError::TimeOutOfRange { side, ms: sum })
    }
}

fn push(changes: &mut Vec<ClockChange>, side: Color, kind: ChangeKind, delta_ms: i64, at: Timestamp) {
    if delta_ms != 0 {
        changes.push(ClockChange { side, kind, delta_ms, at });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time_control::{Bonus, Period};

    fn t(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    #[test]
    fn simple_delay_survives_a_pause() {
        let tc = TimeControl::new(vec![Period::rest_of_game(10_000).with_bonus(Bonus::simple_delay(3_000))])
            .unwrap();
        let mut c = Clock::new(tc, ClockConfig::default());
        c.start(Color::White, t(0)).unwrap();
        c.pause(t(2_000)).unwrap();
        assert_eq!(c.delay_left_at(t(2_000)).unwrap(), 1_000);
        c.resume(t(50_000)).unwrap();
        assert_eq!(c.flag_deadline(), Some(t(61_000)));
        let r = c.press(t(52_000)).unwrap();
        assert_eq!(r.delay_absorbed_ms, 3_000);
        assert_eq!(r.used_ms, 1_000);
        assert_eq!(r.after_ms, 9_000);
        assert_eq!(r.elapsed_ms, 4_000);
    }

    #[test]
    fn settling_an_expired_clock_records_the_exact_instant() {
        let mut c = Clock::new(TimeControl::simple(5_000, 0).unwrap(), ClockConfig::default());
        c.start(Color::White, t(100)).unwrap();
        let changes = c.pause(t(9_999)).unwrap();
        assert_eq!(
            changes,
            vec![ClockChange {
                side: Color::White,
                kind: ChangeKind::Elapsed,
                delta_ms: -5_000,
                at: t(9_999)
            }]
        );
        assert_eq!(c.flag(Color::White), Some(t(5_100)));
        assert_eq!(c.remaining_at(Color::White, t(9_999)).unwrap(), 0);
    }
}
