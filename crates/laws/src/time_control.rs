//! The time control of a game (Law 6.3, CFG-TC), fixed when the game is
//! created.
//!
//! # Model
//!
//! A [`TimeControl`] is a list of [`Period`]s per colour. Each period has a
//! number of moves (or "the rest of the game"), a base time added when the
//! period begins, and an optional per-move [`Bonus`]:
//!
//! * [`BonusKind::Increment`]: a Fischer increment, added to the main time.
//! * [`BonusKind::Bronstein`]: after each move the player gets back the time
//!   used on that move, but at most the delay.
//! * [`BonusKind::SimpleDelay`]: the simple (US) delay; the main time only
//!   starts running once the delay has passed.
//!
//! Each bonus applies from a given move number of the player (`from_move`,
//! 1 for "from move 1"), which expresses controls such as Armageddon's
//! "+2 s per move from move 61". White and Black may have different periods
//! (Armageddon: White 5', Black 4'); most controls are symmetric and store a
//! single list.
//!
//! Periods are numbered from 0. Every period except the last needs a move
//! count. If the last period has a move count too, it is repeated for the
//! rest of the game, as the PGN standard (9.6.1) says of the last
//! descriptor: `40/7200` is 40 moves in two hours, again and again.
//!
//! ## When a bonus is credited
//!
//! The Arbiters' Manual says "the first increment is added at the start of
//! the game" (DEC-7: a 90'+30" clock starts at 90:30). We read this as: the
//! increment *for move n* is credited when move n begins, that is at the
//! start of the game for move 1 and when move n − 1 is completed otherwise.
//! The same rule then gives Armageddon's "+2 s from move 61": the first 2 s
//! arrive when move 60 is completed. A delay (either kind) belongs to the move
//! during which it runs, so the delay of move n is governed by the period that
//! contains move n. [`TimeControl::increment_for_move`] and
//! [`TimeControl::delay_for_move`] encode this, and both the clock and the
//! category computation use them.
//!
//! ## Category (CFG-CAT, DEC-1)
//!
//! Appendices A.1 and B.1 define the categories for a single period with
//! T = base + 60 × increment. For multi-period controls the Laws are silent;
//! following DEC-1 we take T = the time available for the first 60 moves:
//! the base time of every period that begins within those 60 moves (a
//! period beginning after move 60 is not reached) plus every increment or
//! delay credited for moves 1 to 60 (a delay counts like an increment).
//! Blitz: T ≤ 10 min; Rapid: 10 min < T < 60 min; Standard: T ≥ 60 min. When
//! the colours differ, the larger T decides (the category is a property of the
//! game, and the regulations may override it anyway).
//!
//! # Text forms
//!
//! Both forms are parsed by small hand-written parsers that report the byte
//! offset of the first problem; [`TimeControl::to_pgn`] and
//! [`TimeControl::to_human`] print a canonical form such that parsing it
//! gives back an equal value.
//!
//! ## PGN `TimeControl` tag (PGN standard 9.6.1, with extensions)
//!
//! ```text
//! tag      = "?" | "-" | "*" seconds | control          ; see TimeControlTag
//! control  = periods [ "|" periods ]                    ; White | Black
//! periods  = period { ":" period }
//! period   = [ moves "/" ] seconds [ bonus ]
//! bonus    = ( "+" | "d" | "b" ) seconds [ "@" move ]
//! seconds  = digits [ "." 1*3digit ]                    ; milliseconds allowed
//! ```
//!
//! `+` is a Fischer increment (standard), `d` a simple delay and `b` a
//! Bronstein delay (extension; the standard has no delay, and `d` follows the
//! proposal in fsmosca/PGN-Standard#13), `@61` makes the bonus apply from
//! move 61 (extension), and `|` separates White's periods from Black's
//! (extension). Unlike the 1994 text we allow a bonus in every period, as in
//! the common `40/5400+30:1800+30`. No whitespace is allowed.
//!
//! | PGN                   | Meaning                                         |
//! |-----------------------|-------------------------------------------------|
//! | `40/5400+30:1800+30`  | 40 moves in 90', then 30' for the rest; +30"    |
//! | `300+2`               | 5' + 2" per move                                |
//! | `5400`                | 90' sudden death                                |
//! | `300d3`               | 5' with a 3" simple delay                       |
//! | `300b3`               | 5' with a 3" Bronstein delay                    |
//! | `300+2@61\|240+2@61`  | Armageddon: W 5', B 4', +2" from move 61        |
//! | `?`, `-`, `*180`      | unknown, none, sandclock of 3' (tag only)       |
//!
//! ## Human form
//!
//! The form people write and FIDE, lichess and chess.com print: the base
//! time in **minutes**, the increment in **seconds**, whatever the numbers.
//! `5+3` and `5|3` are both 5 minutes plus 3 seconds a move, `180+2` is three
//! hours plus 2 seconds. Other units are used only when they are written.
//!
//! ```text
//! text     = periods | "White" [":"] periods ";" "Black" [":"] periods
//! periods  = period { "," period }
//! period   = [ moves "/" ] base [ bonus ]
//! base     = amount [ unit ] { amount unit }    ; bare: minutes; see below
//! bonus    = ( "+" | "|" | "d" | "b" ) amount [ sunit ] [ "@" move ]
//! unit     = "h" | "hr" | "hour" | "hours"
//!          | "m" | "min" | "mins" | "minute" | "minutes" | "'"
//!          | sunit
//! sunit    = "s" | "sec" | "secs" | "second" | "seconds" | "\"" | "''" | "ms"
//! amount   = digits [ "." 1*6digit ]            ; exact in milliseconds
//! ```
//!
//! * `+` and `|` are a Fischer increment, `d` a simple (US) delay, `b` a
//!   Bronstein delay; `@61` makes the bonus apply from move 61.
//! * A bare base is minutes; a bare bonus is seconds. A bonus is written in
//!   seconds or milliseconds only (`+1m` is refused: no control adds minutes
//!   a move, and `5m | 4m` must not be read as a 4-minute increment).
//! * A base may be compound, units going down: `1h30m`, `1h 30m`, `2m30s`.
//!   A bare number after a unit is in the next smaller unit: `1h30` is 1 h
//!   30 min, `2m30` is 2 min 30 s (after seconds a unit must be written).
//! * Units are case-insensitive; spaces are allowed between tokens.
//! * `White …; Black …` gives each colour its own periods (Armageddon:
//!   `White 5+2@61; Black 4+2@61`).
//!
//! Examples: `5+3`, `5|3`, `90+30`, `90s+0`, `1h30+30s`, `90'+30"`,
//! `90 min + 30 sec`, `40/90+30, 30+30`, `40/2h, 20/1h, 15m+30s`,
//! `5 d3`, `5m b3s`, `White 5m+2s@61; Black 4m+2s@61`. The canonical
//! output writes the base in minutes when it is a whole number of minutes
//! (else seconds, else milliseconds) and the bonus in seconds (else
//! milliseconds): `40/90m+30s, 30m+30s`.
//!
//! ## Text that says which form it is ([`TimeControl::parse_text`])
//!
//! Where one text field takes either form (the API's `time_control`, the
//! CLI's `--tc`), the PGN form is accepted only when marked `pgn:`
//! (`pgn:40/5400+30:1800+30`, `pgn:300+3`); anything else is the human form.
//! A digit string is never read in seconds because its numbers are large.
//!
//! ## The exported `TimeControl` tag ([`TimeControl::to_standard_pgn`], DEC-26)
//!
//! The extensions above (`d`, `b`, `@`, `|`, fractions of a second) are not
//! PGN. An exported tag uses the standard's descriptors only (`moves/seconds`,
//! `seconds`, `seconds+increment` with whole seconds, `:` between periods,
//! and `40/5400+30` as everyone writes the FIDE control). What PGN cannot say
//! is left out: a delay (a delay never puts more than the base on the clock,
//! so the base alone is a true bound), an increment that begins after move 1,
//! and fractions of a second (rounded down); when White and Black differ the
//! tag is `?`. [`TimeControl::standard_pgn_is_exact`] says whether anything
//! was left out; the service then adds the exact form in an `ArbiterTimeControl`
//! tag.

use std::fmt;

use arbiter_chess::Color;
use thiserror::Error;

/// The largest base time of one period: 100 hours.
pub const MAX_BASE_MS: i64 = 100 * 3_600_000;
/// The largest increment or delay: 10 minutes per move.
pub const MAX_BONUS_MS: i64 = 600_000;
/// The largest move count of one period.
pub const MAX_PERIOD_MOVES: u32 = 1_000;
/// The largest move number from which a bonus may apply.
pub const MAX_FROM_MOVE: u32 = 10_000;
/// The largest number of periods per colour.
pub const MAX_PERIODS: usize = 16;

const MINUTE_MS: i64 = 60_000;
const SECOND_MS: i64 = 1_000;

/// The kind of per-move bonus of a period.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BonusKind {
    /// Fischer increment: added to the main time with each move.
    Increment,
    /// Bronstein delay: after the move, the time used is given back, up to the
    /// delay.
    Bronstein,
    /// Simple (US) delay: the main time starts running only after the delay.
    SimpleDelay,
}

/// A per-move bonus: an increment or a delay, applying from a move number on.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bonus {
    /// Increment or which kind of delay.
    pub kind: BonusKind,
    /// The amount per move, in milliseconds.
    pub ms: i64,
    /// The first move (numbered from 1 for each player) the bonus applies to.
    pub from_move: u32,
}

impl Bonus {
    /// A Fischer increment from move 1.
    #[must_use]
    pub const fn increment(ms: i64) -> Bonus {
        Bonus { kind: BonusKind::Increment, ms, from_move: 1 }
    }

    /// A Bronstein delay from move 1.
    #[must_use]
    pub const fn bronstein(ms: i64) -> Bonus {
        Bonus { kind: BonusKind::Bronstein, ms, from_move: 1 }
    }

    /// A simple (US) delay from move 1.
    #[must_use]
    pub const fn simple_delay(ms: i64) -> Bonus {
        Bonus { kind: BonusKind::SimpleDelay, ms, from_move: 1 }
    }

    /// The same bonus, applying from move `from_move` on.
    #[must_use]
    pub const fn from_move(self, from_move: u32) -> Bonus {
        Bonus { from_move, ..self }
    }

    /// Whether this is a delay (of either kind) rather than an increment.
    #[must_use]
    pub const fn is_delay(&self) -> bool {
        matches!(self.kind, BonusKind::Bronstein | BonusKind::SimpleDelay)
    }
}

/// One period of a time control.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Period {
    /// Moves to be made in the period; `None` for the rest of the game.
    pub moves: Option<u32>,
    /// Base time added when the period begins, in milliseconds.
    pub base_ms: i64,
    /// Increment or delay of the period, if any.
    pub bonus: Option<Bonus>,
}

impl Period {
    /// A period for the rest of the game ("sudden death").
    #[must_use]
    pub const fn rest_of_game(base_ms: i64) -> Period {
        Period { moves: None, base_ms, bonus: None }
    }

    /// A period of `moves` moves.
    #[must_use]
    pub const fn moves(moves: u32, base_ms: i64) -> Period {
        Period { moves: Some(moves), base_ms, bonus: None }
    }

    /// The same period with a bonus.
    #[must_use]
    pub const fn with_bonus(self, bonus: Bonus) -> Period {
        Period { bonus: Some(bonus), ..self }
    }
}

/// The category of a game (Appendices A.1 and B.1, CFG-CAT).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// T ≤ 10 minutes.
    Blitz,
    /// 10 minutes < T < 60 minutes.
    Rapid,
    /// T ≥ 60 minutes.
    Standard,
}

impl Category {
    /// The category of a game in which `t_ms` milliseconds are available for
    /// the first 60 moves.
    #[must_use]
    pub const fn from_first_60_moves_ms(t_ms: i64) -> Category {
        if t_ms <= 10 * MINUTE_MS {
            Category::Blitz
        } else if t_ms < 60 * MINUTE_MS {
            Category::Rapid
        } else {
            Category::Standard
        }
    }
}

/// Why a time control was rejected, by a constructor or a parser.
///
/// Positions (`at`) are byte offsets into the parsed text; periods are
/// numbered from 0 within their colour.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TimeControlError {
    /// The text, or the list of periods, is empty.
    #[error("the time control is empty")]
    Empty,
    /// A number was expected.
    #[error("expected a number at byte {at}")]
    ExpectedNumber {
        /// Byte offset.
        at: usize,
    },
    /// A number is too long, too large, has too many decimals, or is not a
    /// whole number of milliseconds (or of moves).
    #[error("bad number at byte {at}: too large, too precise, or not a whole number where one is needed")]
    BadNumber {
        /// Byte offset of the number.
        at: usize,
    },
    /// Text remains where the grammar allows nothing, or nothing of this kind.
    #[error("unexpected {found:?} at byte {at}")]
    TrailingGarbage {
        /// Byte offset.
        at: usize,
        /// The first unexpected character.
        found: char,
    },
    /// A period has no base time and no (positive) increment or delay, so a
    /// player could never make a move in it.
    #[error("period {period} has no time: zero base time and no increment or delay")]
    ZeroLengthPeriod {
        /// Period index.
        period: usize,
    },
    /// A period requires zero moves.
    #[error("period {period} has a move count of zero")]
    ZeroMoves {
        /// Period index.
        period: usize,
    },
    /// A period requires more than [`MAX_PERIOD_MOVES`] moves.
    #[error("period {period} requires {moves} moves; at most {MAX_PERIOD_MOVES} are allowed")]
    TooManyMoves {
        /// Period index.
        period: usize,
        /// The move count given.
        moves: u32,
    },
    /// A base time or bonus is negative.
    #[error("period {period} has a negative time")]
    NegativeTime {
        /// Period index.
        period: usize,
    },
    /// A base time above [`MAX_BASE_MS`].
    #[error("period {period} has a base time of {ms} ms; at most {MAX_BASE_MS} ms are allowed")]
    BaseTooLarge {
        /// Period index.
        period: usize,
        /// The base time given.
        ms: i64,
    },
    /// An increment or delay above [`MAX_BONUS_MS`].
    #[error("period {period} has an increment or delay of {ms} ms; at most {MAX_BONUS_MS} ms are allowed")]
    IncrementTooLarge {
        /// Period index.
        period: usize,
        /// The bonus given.
        ms: i64,
    },
    /// A bonus applies from move 0 or from a move above [`MAX_FROM_MOVE`].
    #[error(
        "period {period}: a bonus cannot apply from move {from_move} (moves are numbered 1 to {MAX_FROM_MOVE})"
    )]
    BadFromMove {
        /// Period index.
        period: usize,
        /// The move number given.
        from_move: u32,
    },
    /// A period other than the last has no move count.
    #[error("period {period} is for the rest of the game but is not the last period")]
    RestOfGameNotLast {
        /// Period index.
        period: usize,
    },
    /// More than [`MAX_PERIODS`] periods.
    #[error("more than {MAX_PERIODS} periods")]
    TooManyPeriods,
    /// More than two colour parts separated by `|`.
    #[error("at most two colour parts (White | Black) are allowed")]
    TooManyColours,
    /// A bonus written in minutes or hours (human form).
    #[error(
        "an increment or delay is counted in seconds (`+30`, `+30s`, `+500ms`), not in minutes or hours (byte {at})"
    )]
    BonusUnit {
        /// Byte offset of the unit.
        at: usize,
    },
    /// The parts of a compound time are not in decreasing units, or a bare
    /// number follows seconds (human form).
    #[error(
        "a compound time goes down from hours to minutes to seconds, e.g. `1h30m` or `2m30s` (byte {at})"
    )]
    UnitOrder {
        /// Byte offset of the offending part.
        at: usize,
    },
    /// Different controls per colour without the `White …; Black …` labels,
    /// or with them misplaced (human form).
    #[error(
        "different controls for White and Black are written `White 5m+2s@61; Black 4m+2s@61` (byte {at})"
    )]
    ColourLabels {
        /// Byte offset of the problem.
        at: usize,
    },
    /// The PGN form given where the human form is read, without the `pgn:`
    /// mark.
    #[error("`{text}` is the PGN form (seconds); mark it as such: `pgn:{text}`")]
    UnmarkedPgn {
        /// The text given.
        text: String,
    },
    /// `?`, `-` or a sandclock where a playable time control is required.
    #[error("{tag:?} is not a time control a game can be played with")]
    NotPlayable {
        /// The tag value.
        tag: String,
    },
}

/// The time control of a game: periods per colour.
///
/// Construct with [`TimeControl::new`], [`TimeControl::per_colour`] or a
/// parser; every constructor validates, so a `TimeControl` is always usable
/// by the clock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct TimeControl {
    white: Vec<Period>,
    /// Black's periods when they differ from White's; `None` when symmetric,
    /// so that equal controls compare equal however they were built.
    black: Option<Vec<Period>>,
}

impl TimeControl {
    /// The same periods for both colours.
    ///
    /// # Errors
    ///
    /// Any [`TimeControlError`] describing an invalid period list (empty, a
    /// rest-of-game period that is not last, zero moves, zero-length period,
    /// negative or too large times, a bad `from_move`, too many periods).
    pub fn new(periods: Vec<Period>) -> Result<TimeControl, TimeControlError> {
        validate(&periods)?;
        Ok(TimeControl { white: periods, black: None })
    }

    /// Different periods for White and Black (e.g. Armageddon).
    ///
    /// # Errors
    ///
    /// As [`TimeControl::new`], for either list.
    pub fn per_colour(white: Vec<Period>, black: Vec<Period>) -> Result<TimeControl, TimeControlError> {
        validate(&white)?;
        validate(&black)?;
        let black = if black == white { None } else { Some(black) };
        Ok(TimeControl { white, black })
    }

    /// Sudden death (`base_ms`) with a Fischer increment of `increment_ms`
    /// from move 1; an increment of 0 means no bonus at all.
    ///
    /// # Errors
    ///
    /// As [`TimeControl::new`].
    pub fn simple(base_ms: i64, increment_ms: i64) -> Result<TimeControl, TimeControlError> {
        let mut period = Period::rest_of_game(base_ms);
        if increment_ms != 0 {
            period = period.with_bonus(Bonus::increment(increment_ms));
        }
        TimeControl::new(vec![period])
    }

    /// The periods of `color`.
    #[must_use]
    pub fn periods(&self, color: Color) -> &[Period] {
        match (color, &self.black) {
            (Color::Black, Some(black)) => black,
            _ => &self.white,
        }
    }

    /// Whether both colours have the same periods.
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        self.black.is_none()
    }

    /// The final period of `color` (the one that lasts for the rest of the
    /// game, or repeats).
    #[must_use]
    pub fn final_period(&self, color: Color) -> &Period {
        // Validation guarantees at least one period.
        let periods = self.periods(color);
        &periods[periods.len() - 1]
    }

    /// Whether any period of either colour has a positive increment or delay.
    /// Guidelines III (CFG-QPF) only apply to games without one.
    #[must_use]
    pub fn has_increment_or_delay(&self) -> bool {
        Color::ALL.iter().flat_map(|&c| self.periods(c)).any(|p| p.bonus.is_some_and(|b| b.ms > 0))
    }

    /// Whether the final period of either colour has no positive increment or
    /// delay, i.e. the game ends with a quickplay finish (Guidelines III.1).
    #[must_use]
    pub fn has_quickplay_finish(&self) -> bool {
        Color::ALL.iter().any(|&c| self.final_period(c).bonus.is_none_or(|b| b.ms <= 0))
    }

    /// The same control with `bonus` in every period of both colours,
    /// replacing any existing bonus. This is what Guidelines III.4 installs
    /// ("a 5-second increment for both players"); the clock applies it from
    /// the next press on.
    ///
    /// The bonus is clamped into the valid range (`0..=MAX_BONUS_MS`, from
    /// move `1..=MAX_FROM_MOVE`), and a period without base time keeps its
    /// old bonus rather than become a zero-length period, so the result is
    /// always a valid control. Use
    /// [`TimeControl::try_with_bonus_everywhere`] to reject such a bonus
    /// instead.
    #[must_use]
    pub fn with_bonus_everywhere(&self, bonus: Bonus) -> TimeControl {
        let bonus = Bonus {
            kind: bonus.kind,
            ms: bonus.ms.clamp(0, MAX_BONUS_MS),
            from_move: bonus.from_move.clamp(1, MAX_FROM_MOVE),
        };
        let set = |periods: &[Period]| {
            periods
                .iter()
                .map(|p| if p.base_ms == 0 && bonus.ms == 0 { *p } else { p.with_bonus(bonus) })
                .collect::<Vec<_>>()
        };
        let white = set(&self.white);
        let black = self.black.as_deref().map(set);
        TimeControl { white, black }
    }

    /// As [`TimeControl::with_bonus_everywhere`], but an invalid bonus is an
    /// error rather than clamped.
    ///
    /// # Errors
    ///
    /// Any validation error of [`TimeControl::new`] for the new periods.
    pub fn try_with_bonus_everywhere(&self, bonus: Bonus) -> Result<TimeControl, TimeControlError> {
        let set = |periods: &[Period]| periods.iter().map(|p| p.with_bonus(bonus)).collect::<Vec<_>>();
        match &self.black {
            None => TimeControl::new(set(&self.white)),
            Some(black) => TimeControl::per_colour(set(&self.white), set(black)),
        }
    }

    /// The index of the period containing move `move_number` of `color`
    /// (moves are numbered from 1). Past the last period with a move count,
    /// the last period repeats, so its index is returned.
    #[must_use]
    pub fn period_index_for_move(&self, color: Color, move_number: u32) -> usize {
        let periods = self.periods(color);
        let mut end: u64 = 0;
        for (i, p) in periods.iter().enumerate() {
            match p.moves {
                Some(m) => {
                    end += u64::from(m);
                    if u64::from(move_number) <= end {
                        return i;
                    }
                }
                None => return i,
            }
        }
        periods.len() - 1
    }

    /// Whether move `move_number` of `color` is the last move of a period, so
    /// that completing it begins a new period (or a repetition of the last).
    #[must_use]
    pub fn is_period_end(&self, color: Color, move_number: u32) -> bool {
        let n = u64::from(move_number);
        let periods = self.periods(color);
        let mut end: u64 = 0;
        for p in periods {
            match p.moves {
                Some(m) => {
                    end += u64::from(m);
                    if n == end {
                        return true;
                    }
                    if n < end {
                        return false;
                    }
                }
                None => return false,
            }
        }
        // Beyond the declared periods the last one (which has a move count,
        // or the loop would have returned) repeats.
        match periods[periods.len() - 1].moves {
            Some(m) if m > 0 => (n - end).is_multiple_of(u64::from(m)),
            _ => false,
        }
    }

    /// The base time added when `color` completes move `move_number`: the
    /// next period's base if the move ends a period, else 0.
    #[must_use]
    pub fn period_bonus_after_move(&self, color: Color, move_number: u32) -> i64 {
        if self.is_period_end(color, move_number) {
            let next = self.period_index_for_move(color, move_number.saturating_add(1));
            self.periods(color)[next].base_ms
        } else {
            0
        }
    }

    /// The bonus in force for move `move_number` of `color`, if any.
    #[must_use]
    pub fn bonus_for_move(&self, color: Color, move_number: u32) -> Option<Bonus> {
        let period = &self.periods(color)[self.period_index_for_move(color, move_number)];
        period.bonus.filter(|b| b.from_move <= move_number)
    }

    /// The Fischer increment credited for move `move_number` (when that move
    /// begins: at the start for move 1, DEC-7), or 0.
    #[must_use]
    pub fn increment_for_move(&self, color: Color, move_number: u32) -> i64 {
        match self.bonus_for_move(color, move_number) {
            Some(b) if b.kind == BonusKind::Increment => b.ms,
            _ => 0,
        }
    }

    /// The delay (its kind and amount) that runs during move `move_number`.
    #[must_use]
    pub fn delay_for_move(&self, color: Color, move_number: u32) -> Option<(BonusKind, i64)> {
        match self.bonus_for_move(color, move_number) {
            Some(b) if b.is_delay() => Some((b.kind, b.ms)),
            _ => None,
        }
    }

    /// The time on `color`'s clock before the start: the first period's base.
    #[must_use]
    pub fn initial_ms(&self, color: Color) -> i64 {
        self.periods(color)[0].base_ms
    }

    /// T of DEC-1 for `color`, in milliseconds: the base time of every period
    /// that begins within the first 60 moves plus every increment or delay
    /// credited for moves 1 to 60.
    #[must_use]
    pub fn first_60_moves_ms(&self, color: Color) -> i64 {
        let mut total = self.initial_ms(color);
        for n in 1..=60u32 {
            if n < 60 {
                total += self.period_bonus_after_move(color, n);
            }
            if let Some(b) = self.bonus_for_move(color, n) {
                total += b.ms;
            }
        }
        total
    }

    /// The category (CFG-CAT, DEC-1): from the larger T of the two colours.
    #[must_use]
    pub fn category(&self) -> Category {
        let t = self.first_60_moves_ms(Color::White).max(self.first_60_moves_ms(Color::Black));
        Category::from_first_60_moves_ms(t)
    }

    /// Parses the PGN `TimeControl` tag form (see the module docs).
    ///
    /// # Errors
    ///
    /// [`TimeControlError::NotPlayable`] for `?`, `-` and sandclocks, and any
    /// syntax or validation error of [`TimeControlTag::parse`].
    pub fn from_pgn(text: &str) -> Result<TimeControl, TimeControlError> {
        match TimeControlTag::parse(text)? {
            TimeControlTag::Control(tc) => Ok(tc),
            _ => Err(TimeControlError::NotPlayable { tag: text.to_owned() }),
        }
    }

    /// The canonical PGN tag form.
    #[must_use]
    pub fn to_pgn(&self) -> String {
        let mut out = String::new();
        write_pgn_periods(&mut out, &self.white);
        if let Some(black) = &self.black {
            out.push('|');
            write_pgn_periods(&mut out, black);
        }
        out
    }

    /// Parses the human form (see the module docs), e.g. `90+30` or
    /// `40/90m+30s, 30m+30s`.
    ///
    /// # Errors
    ///
    /// Syntax errors ([`TimeControlError::Empty`],
    /// [`TimeControlError::ExpectedNumber`], [`TimeControlError::BadNumber`],
    /// [`TimeControlError::TrailingGarbage`],
    /// [`TimeControlError::TooManyColours`]) and any validation error of
    /// [`TimeControl::new`].
    pub fn parse_human(text: &str) -> Result<TimeControl, TimeControlError> {
        parse_control(text, Syntax::Human)
    }

    /// The canonical human form, e.g. `40/90m+30s, 30m+30s`.
    #[must_use]
    pub fn to_human(&self) -> String {
        let mut out = String::new();
        if let Some(black) = &self.black {
            out.push_str("White ");
            write_human_periods(&mut out, &self.white);
            out.push_str("; Black ");
            write_human_periods(&mut out, black);
        } else {
            write_human_periods(&mut out, &self.white);
        }
        out
    }
}

impl TimeControl {
    /// Reads a text that is either the human form or the PGN form marked
    /// with [`PGN_PREFIX`] (`pgn:300+3`); see the module docs. A text that
    /// only the PGN grammar reads but is not marked is refused with
    /// [`TimeControlError::UnmarkedPgn`]; nothing is ever read in seconds
    /// because its numbers are large.
    ///
    /// # Errors
    ///
    /// Any error of [`TimeControl::from_pgn`] (marked text) or
    /// [`TimeControl::parse_human`], or [`TimeControlError::UnmarkedPgn`].
    /// Show [`ACCEPTED_FORMS`] with it.
    pub fn parse_text(text: &str) -> Result<TimeControl, TimeControlError> {
        let text = text.trim();
        if let Some(pgn) = strip_pgn_prefix(text) {
            return TimeControl::from_pgn(pgn);
        }
        TimeControl::parse_human(text).map_err(|human_error| {
            if TimeControlTag::parse(text).is_ok() {
                TimeControlError::UnmarkedPgn { text: text.to_owned() }
            } else {
                human_error
            }
        })
    }

    /// The `TimeControl` tag value as the PGN standard (9.6.1) defines it:
    /// whole seconds, `moves/seconds`, `seconds`, `seconds+increment`, `:`
    /// between periods, or `?` when White and Black have different controls.
    /// What the standard cannot express (delays, an increment from a later
    /// move, fractions of a second) is left out (DEC-26); see
    /// [`TimeControl::standard_pgn_is_exact`].
    #[must_use]
    pub fn to_standard_pgn(&self) -> String {
        use fmt::Write as _;
        if self.black.is_some() {
            return "?".to_owned();
        }
        let mut out = String::new();
        for (i, p) in self.white.iter().enumerate() {
            if i > 0 {
                out.push(':');
            }
            if let Some(m) = p.moves {
                let _ = write!(out, "{m}/");
            }
            let _ = write!(out, "{}", p.base_ms / SECOND_MS);
            if let Some(b) = p.bonus
                && b.kind == BonusKind::Increment
                && b.from_move == 1
            {
                let _ = write!(out, "+{}", b.ms / SECOND_MS);
            }
        }
        out
    }

    /// Whether [`TimeControl::to_standard_pgn`] says all there is to say,
    /// i.e. is the same as the service's own form [`TimeControl::to_pgn`].
    #[must_use]
    pub fn standard_pgn_is_exact(&self) -> bool {
        self.to_standard_pgn() == self.to_pgn()
    }
}

/// The mark of the PGN form in a text that takes either form.
pub const PGN_PREFIX: &str = "pgn:";

/// The text after a leading [`PGN_PREFIX`] (any case, spaces around it
/// ignored), or `None` when `text` does not start with it.
#[must_use]
pub fn strip_pgn_prefix(text: &str) -> Option<&str> {
    let text = text.trim_start();
    let n = PGN_PREFIX.len();
    // Comparing bytes first: when they match, `n` is a character boundary.
    if text.len() >= n && text.as_bytes()[..n].eq_ignore_ascii_case(PGN_PREFIX.as_bytes()) {
        Some(text[n..].trim())
    } else {
        None
    }
}

/// The accepted forms, for error messages.
pub const ACCEPTED_FORMS: &str = "accepted forms: minutes+seconds `5+3` or `5|3`, other units when \
written `90s+0`, `1h30+30s`, `90'+30\"`; periods `40/90+30, 30+30`; a simple or Bronstein delay \
`5 d3`, `5 b3`; per colour `White 5+2@61; Black 4+2@61`; or the PGN form in seconds after the prefix pgn: \
(`pgn:300+3`, `pgn:40/5400+30:1800+30`)";

impl fmt::Display for TimeControl {
    /// The human form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_human())
    }
}

/// The value of a PGN `TimeControl` tag, which may also say that the control
/// is unknown, that there is none, or that a sandclock is used.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimeControlTag {
    /// `?`
    Unknown,
    /// `-`
    Unlimited,
    /// `*180`: a sandclock (hourglass) of the given total time.
    Sandclock {
        /// The sandclock time in milliseconds.
        ms: i64,
    },
    /// A playable time control.
    Control(TimeControl),
}

impl TimeControlTag {
    /// Parses a PGN `TimeControl` tag value (see the module docs).
    ///
    /// # Errors
    ///
    /// [`TimeControlError::Empty`], [`TimeControlError::ExpectedNumber`],
    /// [`TimeControlError::BadNumber`], [`TimeControlError::TrailingGarbage`],
    /// [`TimeControlError::TooManyColours`], a zero or too large sandclock
    /// ([`TimeControlError::ZeroLengthPeriod`],
    /// [`TimeControlError::BaseTooLarge`]), and any validation error of
    /// [`TimeControl::new`].
    pub fn parse(text: &str) -> Result<TimeControlTag, TimeControlError> {
        match text {
            "" => Err(TimeControlError::Empty),
            "?" => Ok(TimeControlTag::Unknown),
            "-" => Ok(TimeControlTag::Unlimited),
            _ if text.starts_with('*') => {
                let mut cur = Cursor::new(text, 0);
                cur.pos = 1;
                let ms = cur.amount(SECOND_MS, 3)?;
                cur.expect_end()?;
                if ms == 0 {
                    return Err(TimeControlError::ZeroLengthPeriod { period: 0 });
                }
                if ms > MAX_BASE_MS {
                    return Err(TimeControlError::BaseTooLarge { period: 0, ms });
                }
                Ok(TimeControlTag::Sandclock { ms })
            }
            _ => parse_control(text, Syntax::Pgn).map(TimeControlTag::Control),
        }
    }
}

impl fmt::Display for TimeControlTag {
    /// The canonical PGN tag value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControlTag::Unknown => f.write_str("?"),
            TimeControlTag::Unlimited => f.write_str("-"),
            TimeControlTag::Sandclock { ms } => {
                let mut s = String::from("*");
                write_seconds(&mut s, *ms);
                f.write_str(&s)
            }
            TimeControlTag::Control(tc) => f.write_str(&tc.to_pgn()),
        }
    }
}

fn validate(periods: &[Period]) -> Result<(), TimeControlError> {
    if periods.is_empty() {
        return Err(TimeControlError::Empty);
    }
    if periods.len() > MAX_PERIODS {
        return Err(TimeControlError::TooManyPeriods);
    }
    let last = periods.len() - 1;
    for (i, p) in periods.iter().enumerate() {
        match p.moves {
            Some(0) => return Err(TimeControlError::ZeroMoves { period: i }),
            Some(m) if m > MAX_PERIOD_MOVES => {
                return Err(TimeControlError::TooManyMoves { period: i, moves: m });
            }
            None if i != last => return Err(TimeControlError::RestOfGameNotLast { period: i }),
            _ => {}
        }
        if p.base_ms < 0 {
            return Err(TimeControlError::NegativeTime { period: i });
        }
        if p.base_ms > MAX_BASE_MS {
            return Err(TimeControlError::BaseTooLarge { period: i, ms: p.base_ms });
        }
        if let Some(b) = p.bonus {
            if b.ms < 0 {
                return Err(TimeControlError::NegativeTime { period: i });
            }
            if b.ms > MAX_BONUS_MS {
                return Err(TimeControlError::IncrementTooLarge { period: i, ms: b.ms });
            }
            if b.from_move == 0 || b.from_move > MAX_FROM_MOVE {
                return Err(TimeControlError::BadFromMove { period: i, from_move: b.from_move });
            }
        }
        if p.base_ms == 0 && p.bonus.is_none_or(|b| b.ms <= 0) {
            return Err(TimeControlError::ZeroLengthPeriod { period: i });
        }
    }
    Ok(())
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Pgn,
    Human,
}

/// A byte cursor over the text being parsed. `offset` is added to every
/// reported position, so a colour part reports positions in the whole text.
struct Cursor<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    offset: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, offset: usize) -> Cursor<'a> {
        Cursor { bytes: text.as_bytes(), text, pos: 0, offset }
    }

    fn at(&self) -> usize {
        self.offset + self.pos
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn garbage(&self) -> TimeControlError {
        let found = self.text[self.pos..].chars().next().unwrap_or(' ');
        TimeControlError::TrailingGarbage { at: self.at(), found }
    }

    fn expect_end(&self) -> Result<(), TimeControlError> {
        if self.pos < self.bytes.len() { Err(self.garbage()) } else { Ok(()) }
    }

    /// Reads `digits [ "." digits ]`, returning the integer part, the
    /// fraction digits as an integer, and the number of fraction digits.
    fn decimal(&mut self, max_fraction: u32) -> Result<(u64, u64, u32, usize), TimeControlError> {
        let start = self.at();
        let int_begin = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == int_begin {
            return Err(TimeControlError::ExpectedNumber { at: start });
        }
        // Eighteen digits always fit in a u64; anything longer is too large
        // for any time we accept.
        let int_text = &self.text[int_begin..self.pos];
        if int_text.len() > 18 {
            return Err(TimeControlError::BadNumber { at: start });
        }
        let int: u64 = int_text.parse().map_err(|_| TimeControlError::BadNumber { at: start })?;
        let (mut frac, mut digits) = (0u64, 0u32);
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let frac_begin = self.pos;
            while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
            let frac_text = &self.text[frac_begin..self.pos];
            if frac_text.is_empty() || frac_text.len() > max_fraction as usize {
                return Err(TimeControlError::BadNumber { at: start });
            }
            digits = frac_text.len() as u32;
            frac = frac_text.parse().map_err(|_| TimeControlError::BadNumber { at: start })?;
        }
        Ok((int, frac, digits, start))
    }

    /// Reads a decimal amount of `unit_ms` and converts it to exact
    /// milliseconds.
    fn amount(&mut self, unit_ms: i64, max_fraction: u32) -> Result<i64, TimeControlError> {
        let (int, frac, digits, start) = self.decimal(max_fraction)?;
        to_ms(int, frac, digits, unit_ms).ok_or(TimeControlError::BadNumber { at: start })
    }

    /// Reads a whole number (a move count or move number).
    fn count(&mut self) -> Result<u32, TimeControlError> {
        let (int, _, digits, start) = self.decimal(0)?;
        if digits != 0 {
            return Err(TimeControlError::BadNumber { at: start });
        }
        u32::try_from(int).map_err(|_| TimeControlError::BadNumber { at: start })
    }

    /// Reads an optional human unit (ASCII case-insensitive).
    fn unit(&mut self) -> Option<Unit> {
        let rest = &self.bytes[self.pos..];
        for &(name, unit) in HUMAN_UNITS {
            if rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name.as_bytes()) {
                self.pos += name.len();
                return Some(unit);
            }
        }
        None
    }
}

/// A unit of the human form, from the smallest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Millisecond,
    Second,
    Minute,
    Hour,
}

impl Unit {
    const fn ms(self) -> i64 {
        match self {
            Unit::Millisecond => 1,
            Unit::Second => SECOND_MS,
            Unit::Minute => MINUTE_MS,
            Unit::Hour => 60 * MINUTE_MS,
        }
    }

    /// The unit of a bare number written after this one (`1h30`, `2m30`).
    const fn next_smaller(self) -> Option<Unit> {
        match self {
            Unit::Hour => Some(Unit::Minute),
            Unit::Minute => Some(Unit::Second),
            Unit::Second | Unit::Millisecond => None,
        }
    }
}

/// The spellings of the human units, longest first so that `ms` is not read
/// as `m` and `minutes` not as `min`.
const HUMAN_UNITS: &[(&str, Unit)] = &[
    ("minutes", Unit::Minute),
    ("seconds", Unit::Second),
    ("minute", Unit::Minute),
    ("second", Unit::Second),
    ("hours", Unit::Hour),
    ("hour", Unit::Hour),
    ("mins", Unit::Minute),
    ("secs", Unit::Second),
    ("min", Unit::Minute),
    ("sec", Unit::Second),
    ("hr", Unit::Hour),
    ("ms", Unit::Millisecond),
    ("''", Unit::Second),
    ("h", Unit::Hour),
    ("m", Unit::Minute),
    ("'", Unit::Minute),
    ("s", Unit::Second),
    ("\"", Unit::Second),
];

/// Exact conversion of `int.frac` (with `digits` fraction digits) units of
/// `unit_ms` to milliseconds, or `None` if it overflows, exceeds every limit
/// we accept, or is not a whole number of milliseconds.
fn to_ms(int: u64, frac: u64, digits: u32, unit_ms: i64) -> Option<i64> {
    let unit = u64::try_from(unit_ms).ok()?;
    let whole = int.checked_mul(unit)?;
    let scale = 10u64.checked_pow(digits)?;
    let frac_units = frac.checked_mul(unit)?;
    if frac_units % scale != 0 {
        return None;
    }
    let total = whole.checked_add(frac_units / scale)?;
    i64::try_from(total).ok()
}

/// Reads a time: in PGN always seconds with at most 3 decimals; in the
/// human form a base (bare: minutes, compound allowed) or a bonus (bare:
/// seconds, only seconds or milliseconds).
fn read_time(cur: &mut Cursor<'_>, syntax: Syntax, bonus: bool) -> Result<i64, TimeControlError> {
    if syntax == Syntax::Pgn {
        return cur.amount(SECOND_MS, 3);
    }
    let (int, frac, digits, start) = cur.decimal(6)?;
    cur.skip_spaces();
    let unit_at = cur.at();
    let default_unit = if bonus { Unit::Second } else { Unit::Minute };
    let Some(first_unit) = cur.unit() else {
        return to_ms(int, frac, digits, default_unit.ms()).ok_or(TimeControlError::BadNumber { at: start });
    };
    if bonus && first_unit > Unit::Second {
        return Err(TimeControlError::BonusUnit { at: unit_at });
    }
    let mut total =
        to_ms(int, frac, digits, first_unit.ms()).ok_or(TimeControlError::BadNumber { at: start })?;
    if bonus {
        return Ok(total);
    }
    // Further parts of a compound base: `1h30m`, `1h 30`, `2m30s`.
    let mut previous = first_unit;
    loop {
        let save = cur.pos;
        cur.skip_spaces();
        if !cur.peek().is_some_and(|b| b.is_ascii_digit()) {
            cur.pos = save;
            return Ok(total);
        }
        let part_at = cur.at();
        let amount = cur.count()?;
        cur.skip_spaces();
        let unit = match cur.unit().or(previous.next_smaller()) {
            Some(u) if u < previous => u,
            _ => return Err(TimeControlError::UnitOrder { at: part_at }),
        };
        let part =
            i64::from(amount).checked_mul(unit.ms()).ok_or(TimeControlError::BadNumber { at: part_at })?;
        total = total.checked_add(part).ok_or(TimeControlError::BadNumber { at: part_at })?;
        previous = unit;
    }
}

fn parse_period(cur: &mut Cursor<'_>, syntax: Syntax) -> Result<Period, TimeControlError> {
    let human = syntax == Syntax::Human;
    if human {
        cur.skip_spaces();
    }
    // A move count and a base time both start with a number; look ahead for
    // the "/" that marks a move count.
    let save = cur.pos;
    let mut moves = None;
    if cur.peek().is_some_and(|b| b.is_ascii_digit()) {
        cur.decimal(6)?;
        if human {
            cur.skip_spaces();
        }
        let is_count = cur.peek() == Some(b'/');
        cur.pos = save;
        if is_count {
            moves = Some(cur.count()?);
            if human {
                cur.skip_spaces();
            }
            cur.eat(b'/');
            if human {
                cur.skip_spaces();
            }
        }
    }
    let base_ms = read_time(cur, syntax, false)?;
    if human {
        cur.skip_spaces();
    }
    let kind = match cur.peek() {
        Some(b'+') => Some(BonusKind::Increment),
        // lichess and chess.com write `5|3` for 5 minutes + 3 seconds.
        Some(b'|') if human => Some(BonusKind::Increment),
        Some(b'd' | b'D') if human => Some(BonusKind::SimpleDelay),
        Some(b'b' | b'B') if human => Some(BonusKind::Bronstein),
        Some(b'd') => Some(BonusKind::SimpleDelay),
        Some(b'b') => Some(BonusKind::Bronstein),
        _ => None,
    };
    let mut bonus = None;
    if let Some(kind) = kind {
        cur.pos += 1;
        if human {
            cur.skip_spaces();
        }
        let ms = read_time(cur, syntax, true)?;
        if human {
            cur.skip_spaces();
        }
        let mut from_move = 1;
        if cur.eat(b'@') {
            if human {
                cur.skip_spaces();
            }
            from_move = cur.count()?;
            if human {
                cur.skip_spaces();
            }
        }
        bonus = Some(Bonus { kind, ms, from_move });
    }
    Ok(Period { moves, base_ms, bonus })
}

fn parse_periods(text: &str, offset: usize, syntax: Syntax) -> Result<Vec<Period>, TimeControlError> {
    let mut cur = Cursor::new(text, offset);
    if text.trim().is_empty() {
        return Err(TimeControlError::Empty);
    }
    let separator = if syntax == Syntax::Pgn { b':' } else { b',' };
    let mut periods = Vec::new();
    loop {
        periods.push(parse_period(&mut cur, syntax)?);
        if periods.len() > MAX_PERIODS {
            return Err(TimeControlError::TooManyPeriods);
        }
        if !cur.eat(separator) {
            break;
        }
    }
    cur.expect_end()?;
    validate(&periods)?;
    Ok(periods)
}

fn parse_control(text: &str, syntax: Syntax) -> Result<TimeControl, TimeControlError> {
    if text.trim().is_empty() {
        return Err(TimeControlError::Empty);
    }
    if syntax == Syntax::Human {
        return parse_human_control(text);
    }
    let mut parts = text.splitn(3, '|');
    let white_text = parts.next().unwrap_or("");
    let black_text = parts.next();
    if parts.next().is_some() {
        return Err(TimeControlError::TooManyColours);
    }
    let white = parse_periods(white_text, 0, syntax)?;
    match black_text {
        None => Ok(TimeControl { white, black: None }),
        Some(b) => {
            let black = parse_periods(b, white_text.len() + 1, syntax)?;
            TimeControl::per_colour(white, black)
        }
    }
}

/// The length of a leading colour label (`White`, `white:`, with the spaces
/// after it) of `text`, if it starts with `label`.
fn colour_label(text: &str, label: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.len() < label.len() || !bytes[..label.len()].eq_ignore_ascii_case(label.as_bytes()) {
        return None;
    }
    let mut n = label.len();
    while matches!(bytes.get(n), Some(b' ' | b'\t')) {
        n += 1;
    }
    if bytes.get(n) == Some(&b':') {
        n += 1;
    }
    Some(n)
}

/// The human form: one list of periods, or `White …; Black …`.
fn parse_human_control(text: &str) -> Result<TimeControl, TimeControlError> {
    let lead = text.len() - text.trim_start().len();
    let Some(semicolon) = text.find(';') else {
        if let Some(at) = ["white", "black"].iter().find_map(|l| text.to_ascii_lowercase().find(l)) {
            return Err(TimeControlError::ColourLabels { at });
        }
        return Ok(TimeControl { white: parse_periods(text, 0, Syntax::Human)?, black: None });
    };
    let (white_part, black_part) = (&text[..semicolon], &text[semicolon + 1..]);
    let Some(w) = colour_label(&text[lead..], "white") else {
        return Err(TimeControlError::ColourLabels { at: lead });
    };
    let black_lead = black_part.len() - black_part.trim_start().len();
    let black_at = semicolon + 1 + black_lead;
    let Some(b) = colour_label(&text[black_at..], "black") else {
        return Err(TimeControlError::ColourLabels { at: black_at });
    };
    if let Some(extra) = black_part.find(';') {
        return Err(TimeControlError::ColourLabels { at: semicolon + 1 + extra });
    }
    let white = parse_periods(&white_part[lead + w..], lead + w, Syntax::Human)?;
    let black = parse_periods(&text[black_at + b..], black_at + b, Syntax::Human)?;
    TimeControl::per_colour(white, black)
}

/// Writes milliseconds as seconds, with up to three decimals when needed.
fn write_seconds(out: &mut String, ms: i64) {
    use fmt::Write as _;
    let (s, frac) = (ms / SECOND_MS, ms % SECOND_MS);
    let _ = write!(out, "{s}");
    if frac != 0 {
        let digits = format!("{frac:03}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
}

fn bonus_letter(kind: BonusKind) -> char {
    match kind {
        BonusKind::Increment => '+',
        BonusKind::SimpleDelay => 'd',
        BonusKind::Bronstein => 'b',
    }
}

fn write_pgn_periods(out: &mut String, periods: &[Period]) {
    use fmt::Write as _;
    for (i, p) in periods.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        if let Some(m) = p.moves {
            let _ = write!(out, "{m}/");
        }
        write_seconds(out, p.base_ms);
        if let Some(b) = p.bonus {
            out.push(bonus_letter(b.kind));
            write_seconds(out, b.ms);
            if b.from_move != 1 {
                let _ = write!(out, "@{}", b.from_move);
            }
        }
    }
}

fn write_human_periods(out: &mut String, periods: &[Period]) {
    use fmt::Write as _;
    for (i, p) in periods.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if let Some(m) = p.moves {
            let _ = write!(out, "{m}/");
        }
        let base = p.base_ms;
        if base % MINUTE_MS == 0 {
            let _ = write!(out, "{}m", base / MINUTE_MS);
        } else if base % SECOND_MS == 0 {
            let _ = write!(out, "{}s", base / SECOND_MS);
        } else {
            let _ = write!(out, "{base}ms");
        }
        if let Some(b) = p.bonus {
            match b.kind {
                BonusKind::Increment => out.push('+'),
                BonusKind::SimpleDelay => out.push_str(" d"),
                BonusKind::Bronstein => out.push_str(" b"),
            }
            if b.ms % SECOND_MS == 0 {
                let _ = write!(out, "{}s", b.ms / SECOND_MS);
            } else {
                let _ = write!(out, "{}ms", b.ms);
            }
            if b.from_move != 1 {
                let _ = write!(out, "@{}", b.from_move);
            }
        }
    }
}

/// Stored as its PGN form, and validated when read back.
impl From<TimeControl> for String {
    fn from(tc: TimeControl) -> String {
        tc.to_pgn()
    }
}

impl TryFrom<String> for TimeControl {
    type Error = TimeControlError;
    fn try_from(text: String) -> Result<TimeControl, TimeControlError> {
        TimeControl::from_pgn(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fide_classical_parses_and_prints() {
        let tc = TimeControl::from_pgn("40/5400+30:1800+30").unwrap();
        let p = tc.periods(Color::White);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], Period::moves(40, 5_400_000).with_bonus(Bonus::increment(30_000)));
        assert_eq!(p[1], Period::rest_of_game(1_800_000).with_bonus(Bonus::increment(30_000)));
        assert_eq!(tc.to_pgn(), "40/5400+30:1800+30");
        assert_eq!(tc.to_human(), "40/90m+30s, 30m+30s");
        assert_eq!(TimeControl::parse_human("40/90m+30s, 30m+30s").unwrap(), tc);
    }

    #[test]
    fn period_lookup_repeats_the_last_counted_period() {
        let tc = TimeControl::from_pgn("40/7200:20/3600").unwrap();
        assert_eq!(tc.period_index_for_move(Color::White, 40), 0);
        assert_eq!(tc.period_index_for_move(Color::White, 41), 1);
        assert_eq!(tc.period_index_for_move(Color::White, 1000), 1);
        assert!(tc.is_period_end(Color::White, 40));
        assert!(tc.is_period_end(Color::White, 60));
        assert!(tc.is_period_end(Color::White, 80));
        assert!(!tc.is_period_end(Color::White, 70));
        assert_eq!(tc.period_bonus_after_move(Color::White, 80), 3_600_000);
        assert_eq!(tc.period_bonus_after_move(Color::White, 79), 0);
    }

    #[test]
    fn decimal_conversion_is_exact() {
        assert_eq!(to_ms(0, 25, 2, MINUTE_MS), Some(15_000));
        assert_eq!(to_ms(2, 5, 1, SECOND_MS), Some(2_500));
        assert_eq!(to_ms(0, 1, 4, SECOND_MS), None);
        assert_eq!(to_ms(u64::MAX, 0, 0, 2), None);
    }
}
