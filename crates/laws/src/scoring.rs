//! Scoring: the points of a finished game (Article 10), the FIDE rating change
//! it causes (FIDE Rating Regulations, Handbook B02), and the optional Chinese
//! grade points (CN-16).
//!
//! Everything here is exact integer arithmetic. Points are counted in
//! half-points, scoring probabilities in hundredths, rating changes in
//! hundredths of a rating point and CN-16 grade points in ten-thousandths, so
//! no result depends on floating-point rounding and every value can be
//! compared for equality in tests and replays.
//!
//! # Article 10: points
//!
//! [`points`] maps a [`GameResult`] to the points of each player under a
//! [`PointSystem`]. Law 10.1 (Laws of Chess applied from 1 January 2023,
//! catalogue rule FIDE-10): unless the regulations of the event say otherwise,
//! a win or a win by forfeit scores 1, a draw ½, a loss or a forfeit 0. The
//! regulations may choose other values (for example 3-1-0 "football" scoring),
//! so the values are a [`PointSystem`] passed in, never constants. Two further
//! sentences of 10.1 are enforced for results set by the arbiter
//! ([`GameResult::Adjusted`], the penalties 12.9.4 and 12.9.5): each player's
//! score must be one normally associated with a game (win, draw or loss value,
//! so ¾–¼ cannot even be expressed), and the total of the game may never exceed
//! the normal maximum (so 1–½ is rejected, ½–0 is allowed).
//!
//! The special results come from the glossary of the FIDE Arbiters' Manual
//! (2025): `+/-` and `-/+` are forfeits, `-/-` is a double forfeit, and all
//! three are unplayed games. `0-0` is Law 11.8: both players are at fault and
//! both lose; that game was played.
//!
//! An annulled game ([`GameResult::Annulled`], Law 7.2.1 wrong set-up and 7.3
//! colours reversed, found early) has no score at all: a new game is played
//! in its place. [`points`] refuses it and [`rated_scores`] does not rate it;
//! its PGN result is `*`.
//!
//! # Score penalties (12.9.4, 12.9.5)
//!
//! The arbiter may raise the opponent's score to the maximum (12.9.4) or
//! reduce the offender's score (12.9.5). Neither ends the game: they are
//! [`ScoreAdjustment`]s applied to the result the game reaches
//! ([`GameResult::with_adjustments`]). The Laws give no amount; the choice
//! here, bounded by Law 10.1 (no total above the normal maximum, only the
//! scores normally associated with a game): a penalised player (either
//! penalty) scores a loss; the opponent of a 12.9.4 offender scores a win,
//! unless he is penalised himself; every other score is the board's. So a
//! draw becomes `0-½` under 12.9.5 on White and `0-1` under 12.9.4 on White
//! (`1-½` would exceed the maximum), and a game where both players are
//! penalised is `0-0`.
//!
//! # Armageddon
//!
//! Armageddon is an event regulation, not a Law (catalogue ARM-1 to ARM-3).
//! Inside the game every Law applies unchanged, so the game result stays what
//! the Laws say (a drawn Armageddon game is recorded as a draw). Only the match
//! result differs: [`GameResult::armageddon_match_result`] turns a draw into a
//! win for Black, and the caller scores that with whatever [`PointSystem`] the
//! regulations give the Armageddon game. An Armageddon game is never rated
//! (ARM-2, from the FIDE Arbiters' Manual of May 2025, p.155; the Rapid and
//! Blitz Rating Regulations 1.2 say the same: games where the players have
//! different playing times are not rated), which [`rated_scores`] enforces.
//!
//! # FIDE rating change
//!
//! ## Sources
//!
//! The text used is the FIDE Rating Regulations "effective from 1 March 2024"
//! (approved by the FIDE Council on 15/12/2023, handbook.fide.com/chapter/B022024)
//! and the FIDE Rapid and Blitz Rating Regulations of the same date
//! (handbook.fide.com/chapter/B02RBRegulations2024). The FIDE site itself was
//! not reachable from here; the text was read in these stored copies:
//!
//! - a verbatim transcription of both handbook chapters made on 2026-10-09 in a
//!   public repository (search-index file id 71469238267, "Verification sweep —
//!   2026-10-09"): tables 8.1.1 and 8.1.2, articles 8.3.1 to 8.3.4, and the
//!   differences of the rapid and blitz chapter;
//! - chatillon-echecs.fr/outils/elo: articles 8.3.1 to 8.3.4 as applied from
//!   1 March 2024, before the October 2025 amendment;
//! - qc.fide.com/2024/03/01/new-rating-regulations-come-into-force/ (1 March
//!   2024): "the limitation of the 400-points rule to once per event has been
//!   abolished";
//! - en.chessbase.com/post/fide-changes-rating-regulations (30 September 2025,
//!   quoting the FIDE press release) and radiomovida.fm (Italian translation of
//!   the new 8.3.1): the 2650 exemption in force from 1 October 2025;
//! - scacchierando.it, "Nuove regole FIDE per i rating Rapid&Blitz": from
//!   1 October 2022 the rapid and blitz K factors follow the standard rules;
//! - `lichess-org/scalachess`, `rating/src/main/scala/Elo.scala`: an
//!   independent copy of table 8.1.2 that agrees with the transcription row
//!   for row.
//!
//! ## What the regulations say, and how it is implemented
//!
//! - **Table 8.1.2** ([`EXPECTED_SCORE_TABLE`], [`expected_score`]) converts a
//!   rating difference D into the scoring probability PD of the higher-rated
//!   player (0–3 → .50, 4–10 → .51, …, 620–735 → .99, more than 735 → 1.00);
//!   the lower-rated player's PD is 1 − PD(higher) in every row. The table has
//!   not changed with the 2024 regulations (it is the same as in the 2014 and
//!   2022 texts). It is kept as data so that a correction is a one-line edit.
//! - **8.3.1, the 400-point rule.** Since 1 March 2024 a difference of more
//!   than 400 points counts as 400, in every game (the old limit of one such
//!   upgrade per tournament was abolished). Since 1 October 2025 the standard
//!   text adds an exception: the cap applies only "for players rated below
//!   2650"; for players rated 2650 and above the actual difference is used.
//!   "Players rated" is read as the player whose change is computed, so one
//!   game can be capped for one side and not for the other. The rapid and
//!   blitz text has no 2650 exception; instead, from 1 December 2024, a game
//!   between players 600 or more points apart is not rated at all if either
//!   player is rated above 2600. These versions are [`FideRatingRules`],
//!   chosen by category and the date of the game with
//!   [`FideRatingRules::in_force_on`].
//! - **8.3.2.** ΔR = score − PD, where the score is 1, 0.5 or 0 whatever the
//!   event's point system; the change for a tournament or period is ΣΔR × K.
//!   [`rating_change`] returns K × ΔR of one game exactly, as a
//!   [`RatingDelta`] in hundredths; deltas add up over a period.
//! - **8.3.3, K** ([`k_factor`], [`KFactor::limited_for_games`]): 40 for a
//!   player new to the list until they have completed events with at least 30
//!   games; 20 while the rating remains under 2400; 10 once a published rating
//!   has reached 2400, for good; 40 for all players until the end of the year
//!   of their 18th birthday while their rating remains under 2300; and if n × K
//!   exceeds 700 for the n games of a rating period, K becomes the largest
//!   whole number with K × n ≤ 700. The rapid and blitz chapter has the same
//!   text: the old "K = 20 for all rapid and blitz players" ended on
//!   1 October 2022.
//! - **8.3.4, rounding**: the rating change for a rating period is rounded to
//!   the nearest whole number, 0.5 away from zero ([`RatingDelta::rounded`]).
//!   Rounding happens once, on the sum, never per game.
//! - **5.1, unplayed games** are not rated, and any game where both players
//!   have made at least one move is rated ([`rated_scores`]).
//!
//! ## Choices where the text is silent
//!
//! - The K rules overlap. [`k_factor`] applies them in this order: a player
//!   whose published rating is or ever was 2400 or more has K = 10 (the text
//!   says this holds "even if the rating drops below 2400"); otherwise a player
//!   with fewer than 30 completed games has 40; otherwise a junior rated under
//!   2300 has 40; otherwise 20. The junior test uses the rating the player has
//!   now ("as long as their rating remains under 2300").
//! - A `0-0` game (11.8) that was played is rated as a loss for both players:
//!   8.3.2 rates each player's own score, and both scored 0.
//! - Differences beyond 735 can only arise for players rated 2650 and above in
//!   standard chess; the table gives them PD = 1.00 (the last row, "> 735").
//!
//! # CN-16 grade points (Chinese seed documents; not FIDE)
//!
//! Not yet an option of a game (CFG-CN, off): the API refuses
//! `cn_grade_scoring` until the tournament results use these functions; the
//! caller decides whether to call [`cn16_transfer`] or
//! [`cn16_grade_changes`]. D is the absolute difference of the two players'
//! current grade points. The amounts, per decision DEC-15 (half-open bands, no
//! rounding, draws zero-sum):
//!
//! | D            | higher wins  | lower wins  | draw (lower gains)  |
//! |--------------|--------------|-------------|---------------------|
//! | [0, 10)      | 10           | 10          | 0                   |
//! | [10, 100)    | 10 − D/12.5  | 10 + D/10   | (10 + D/10)/2       |
//! | [100, 200)   | 2            | D/2         | D/4                 |
//! | [200, ∞)     | 0            | D/2         | D/4                 |
//!
//! The loser (in a draw, the higher-rated player) loses exactly what the
//! other player gains. The seed writes "10 ≤ D ≤ 99" and "D ≥ 100", which leaves
//! no band for 99 < D < 100; grade points become fractional (a draw at D = 50
//! moves 7.5), so D can be 99.5, and the half-open bands of DEC-15 decide it.
//!
//! [`GradePoints`] is a fixed-point decimal with four decimal places. With
//! that scale every amount is exact whenever D has at most two decimal places
//! (all multipliers are 1/2, 1/4, 1/10, 1/20 or 2/25), which covers every
//! integer D and every D reached after one game from whole-point totals. No
//! fixed scale can keep DEC-15's "exact decimal points" for ever: each game
//! can add two decimal places to the totals, so after fifty games an exact
//! total could need a hundred. The choice made here: an amount that needs
//! more than four decimal places is rounded half away from zero to four
//! (四舍五入, the rounding of Chinese scoring tables), once, when it is
//! computed. Every amount that four places can hold stays exact, the
//! transfer stays zero-sum (both players move by the same rounded amount),
//! and replaying the same games always gives the same totals. The rounding
//! is at most half a ten-thousandth of a point per game.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg};

use arbiter_chess::{Color, Outcome};

/// Everything that can go wrong while scoring or rating a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScoringError {
    /// The values of a point system are not ordered win > loss and
    /// win ≥ draw ≥ loss.
    #[error("invalid point system: need win > loss and win >= draw >= loss (got {win}-{draw}-{loss})")]
    InvalidPointSystem { win: Points, draw: Points, loss: Points },
    /// An adjusted result whose total exceeds the normal maximum of a game
    /// (Law 10.1).
    #[error("a game's total of {white} + {black} exceeds the normal maximum of {maximum} (Law 10.1)")]
    ExceedsGameMaximum { white: Points, black: Points, maximum: Points },
    /// The game does not count for rating.
    #[error("the game is not rated: {0}")]
    NotRated(NotRatedReason),
    /// The date lies before the first version of the regulations modelled here.
    #[error("no FIDE rating regulations are modelled for {0} (the earliest is 2024-03-01)")]
    RegulationsNotModelled(CalendarDate),
    /// A date with a month or day that does not exist.
    #[error("invalid calendar date {year:04}-{month:02}-{day:02}")]
    InvalidDate { year: u16, month: u8, day: u8 },
    /// A K factor outside 1..=40.
    #[error("invalid K factor {0}: FIDE K factors lie between 1 and 40")]
    InvalidKFactor(u8),
    /// A CN-16 point difference below zero.
    #[error("the CN-16 point difference must not be negative (got {0})")]
    NegativeGradeDifference(GradePoints),
    /// The game was annulled (7.2.1, 7.3): it has no score; a new game is
    /// played in its place.
    #[error("the game was annulled: it has no score (a new game is played)")]
    Annulled,
    /// CN-16 arithmetic left the range of the fixed-point type.
    #[error("CN-16 grade points overflowed")]
    GradePointsOverflow,
    /// CN-16 is zero-sum; a result where one side does not lose what the other
    /// gains (for example an adjusted ½–0) has no CN-16 amount.
    #[error("CN-16 needs a win/loss or a draw/draw result, got {white:?}/{black:?}")]
    NotZeroSum { white: Score, black: Score },
}

/// Why a game is not rated.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotRatedReason {
    /// A forfeit or double forfeit: the game was not played (B02 5.1).
    Unplayed,
    /// At least one player made no move (B02 5.1 rates games where both
    /// players have made at least one move).
    NoMoveByBothPlayers,
    /// Armageddon games are never rated (ARM-2; different playing times).
    Armageddon,
    /// Rapid and blitz since 1 December 2024: the players are 600 or more
    /// points apart and one of them is rated above 2600.
    RatingGap { difference: u16 },
    /// The game was annulled (7.2.1, 7.3) and replaced by a new game.
    Annulled,
}

impl fmt::Display for NotRatedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotRatedReason::Unplayed => f.write_str("unplayed game (forfeit)"),
            NotRatedReason::NoMoveByBothPlayers => f.write_str("not both players made a move"),
            NotRatedReason::Armageddon => f.write_str("Armageddon games are not rated"),
            NotRatedReason::Annulled => f.write_str("the game was annulled"),
            NotRatedReason::RatingGap { difference } => write!(
                f,
                "rapid/blitz game with a rating difference of {difference} (600 or more) and a player above 2600"
            ),
        }
    }
}

// ---------------------------------------------------------------------------
// Article 10: results and points
// ---------------------------------------------------------------------------

/// One player's score in a game: what Law 10.1 calls the scores "normally
/// associated with the game", and what 8.3.2 of the Rating Regulations rates
/// as 1, 0.5 or 0.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// 1 under Law 10.1; the win value of the event's point system.
    Win,
    /// ½ under Law 10.1; the draw value of the event's point system.
    Draw,
    /// 0 under Law 10.1; the loss value of the event's point system.
    Loss,
}

impl Score {
    /// The score in hundredths of a point for rating purposes (100, 50, 0).
    #[must_use]
    pub const fn rating_hundredths(self) -> i64 {
        match self {
            Score::Win => 100,
            Score::Draw => 50,
            Score::Loss => 0,
        }
    }

    /// The score of the opponent when the game is zero-sum.
    #[must_use]
    pub const fn complement(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }
}

/// The result of a game as it goes into the tournament record.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `½-½`.
    Draw,
    /// `+/-`: White wins by forfeit; unplayed.
    WhiteWinsByForfeit,
    /// `-/+`: Black wins by forfeit; unplayed.
    BlackWinsByForfeit,
    /// `-/-`: both forfeit; unplayed.
    DoubleForfeit,
    /// `0-0`: Law 11.8, both players lose; the game was played.
    BothLose,
    /// A score set by the arbiter under 12.9.4 (raise the opponent's score to
    /// the maximum) or 12.9.5 (reduce the offender's score), for example ½–0.
    /// The game was played. [`points`] checks it against Law 10.1.
    Adjusted { white: Score, black: Score },
    /// The game was annulled and a new game is to be played in its place
    /// (7.2.1 wrong initial position; 7.3 colours reversed before ten moves
    /// by both players). It has no score: [`points`] refuses it,
    /// [`rated_scores`] does not rate it, and its PGN result is `*`.
    Annulled,
}

/// Which score penalty of Article 12.9.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreAdjustmentKind {
    /// 12.9.4: the opponent's score is raised to the maximum of the game.
    RaiseOpponentScore,
    /// 12.9.5: the offender's score is reduced.
    ReduceScore,
}

/// A score penalty given to `offender` (12.9.4, 12.9.5), applied to the
/// result the game reaches (see the module docs).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScoreAdjustment {
    pub offender: Color,
    pub kind: ScoreAdjustmentKind,
}

impl GameResult {
    /// Each player's score, white first.
    ///
    /// An annulled game has no score; for it this returns `(Loss, Loss)`
    /// only so that the signature stays total: check
    /// [`GameResult::is_annulled`] (or use [`points`], which refuses it).
    #[must_use]
    pub const fn scores(self) -> (Score, Score) {
        match self {
            GameResult::WhiteWins | GameResult::WhiteWinsByForfeit => (Score::Win, Score::Loss),
            GameResult::BlackWins | GameResult::BlackWinsByForfeit => (Score::Loss, Score::Win),
            GameResult::Draw => (Score::Draw, Score::Draw),
            GameResult::DoubleForfeit | GameResult::BothLose | GameResult::Annulled => {
                (Score::Loss, Score::Loss)
            }
            GameResult::Adjusted { white, black } => (white, black),
        }
    }

    /// `false` for the forfeits `+/-`, `-/+` and `-/-`, which are unplayed,
    /// and for an annulled game, which a new game replaces.
    #[must_use]
    pub const fn is_played(self) -> bool {
        !matches!(
            self,
            GameResult::WhiteWinsByForfeit
                | GameResult::BlackWinsByForfeit
                | GameResult::DoubleForfeit
                | GameResult::Annulled
        )
    }

    /// `true` for an annulled game (7.2.1, 7.3), which has no score.
    #[must_use]
    pub const fn is_annulled(self) -> bool {
        matches!(self, GameResult::Annulled)
    }

    /// The result after the score penalties `adjustments` (12.9.4, 12.9.5),
    /// by the rule of the module docs: a penalised player scores a loss; the
    /// opponent of a 12.9.4 offender scores a win unless penalised himself;
    /// other scores stay. Unplayed and annulled results have no score to
    /// adjust and are returned unchanged, and so is a result the penalties
    /// leave as it was; any other change gives [`GameResult::Adjusted`],
    /// which always satisfies Law 10.1 under every valid [`PointSystem`].
    #[must_use]
    pub fn with_adjustments(self, adjustments: &[ScoreAdjustment]) -> GameResult {
        if adjustments.is_empty() || !self.is_played() {
            return self;
        }
        let penalised = |c: Color| adjustments.iter().any(|a| a.offender == c);
        let raised = |c: Color| {
            adjustments
                .iter()
                .any(|a| a.offender == c.other() && a.kind == ScoreAdjustmentKind::RaiseOpponentScore)
        };
        let (white, black) = self.scores();
        let score = |c: Color, board: Score| {
            if penalised(c) {
                Score::Loss
            } else if raised(c) {
                Score::Win
            } else {
                board
            }
        };
        let adjusted = (score(Color::White, white), score(Color::Black, black));
        if adjusted == (white, black) {
            self
        } else {
            GameResult::Adjusted { white: adjusted.0, black: adjusted.1 }
        }
    }

    /// The side that won, if exactly one side won.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self.scores() {
            (Score::Win, Score::Loss) => Some(Color::White),
            (Score::Loss, Score::Win) => Some(Color::Black),
            _ => None,
        }
    }

    /// The result that counts for the match when this was an Armageddon game
    /// (ARM-1): a draw of any kind is a win for Black. Every other result,
    /// forfeits included, is unchanged; a double forfeit or a 0-0 still has no
    /// winner, and what the match makes of that is for the regulations.
    #[must_use]
    pub const fn armageddon_match_result(self) -> GameResult {
        match self {
            GameResult::Draw => GameResult::BlackWins,
            GameResult::Adjusted { white: Score::Draw, black: Score::Draw } => GameResult::BlackWins,
            other => other,
        }
    }

    /// The usual notation: `1-0`, `0-1`, `½-½`, `+/-`, `-/+`, `-/-`, `0-0`;
    /// adjusted results are written from their scores, e.g. `½-0`; an
    /// annulled game is `*` (no result).
    #[must_use]
    pub const fn notation(self) -> &'static str {
        match self {
            GameResult::Annulled => "*",
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "½-½",
            GameResult::WhiteWinsByForfeit => "+/-",
            GameResult::BlackWinsByForfeit => "-/+",
            GameResult::DoubleForfeit => "-/-",
            GameResult::BothLose => "0-0",
            GameResult::Adjusted { white, black } => match (white, black) {
                (Score::Win, Score::Win) => "1-1",
                (Score::Win, Score::Draw) => "1-½",
                (Score::Win, Score::Loss) => "1-0",
                (Score::Draw, Score::Win) => "½-1",
                (Score::Draw, Score::Draw) => "½-½",
                (Score::Draw, Score::Loss) => "½-0",
                (Score::Loss, Score::Win) => "0-1",
                (Score::Loss, Score::Draw) => "0-½",
                (Score::Loss, Score::Loss) => "0-0",
            },
        }
    }
}

impl GameResult {
    /// The PGN `Result` tag and game termination marker (PGN standard 8.2.6):
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` for everything PGN cannot write (an
    /// annulled game, a double forfeit, `0-0`, and adjusted scores that are
    /// not a win/loss or a draw). A forfeit is written as the win it scores.
    #[must_use]
    pub const fn pgn_result(self) -> &'static str {
        match self {
            GameResult::Annulled | GameResult::DoubleForfeit | GameResult::BothLose => "*",
            _ => match self.scores() {
                (Score::Win, Score::Loss) => "1-0",
                (Score::Loss, Score::Win) => "0-1",
                (Score::Draw, Score::Draw) => "1/2-1/2",
                _ => "*",
            },
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.notation())
    }
}

impl From<Outcome> for GameResult {
    /// A game finished on the board: a decisive outcome or a draw.
    fn from(outcome: Outcome) -> Self {
        match outcome.winner() {
            Some(Color::White) => GameResult::WhiteWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }
}

/// A number of tournament points, counted exactly in half-points.
///
/// Half-points suffice for every point system in use (1-½-0, 3-1-0, 2-1-0,
/// and Armageddon values such as 1½ for a win); negative values are allowed
/// because some regulations penalise a forfeit below zero.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub struct Points(i32);

impl Points {
    /// Zero points.
    pub const ZERO: Points = Points(0);
    /// Half a point.
    pub const HALF: Points = Points(1);
    /// One point.
    pub const ONE: Points = Points(2);

    /// `halves` half-points.
    #[must_use]
    pub const fn from_halves(halves: i32) -> Points {
        Points(halves)
    }

    /// `whole` whole points.
    #[must_use]
    pub const fn whole(whole: i32) -> Points {
        Points(whole * 2)
    }

    /// The value in half-points.
    #[must_use]
    pub const fn halves(self) -> i32 {
        self.0
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, rhs: Points) -> Points {
        Points(self.0 + rhs.0)
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, rhs: Points) {
        self.0 += rhs.0;
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, Add::add)
    }
}

impl fmt::Display for Points {
    /// Written as chess scores are: `1`, `½`, `2½`, `-½`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let whole = self.0.unsigned_abs() / 2;
        let half = self.0.unsigned_abs() % 2 == 1;
        match (whole, half) {
            (0, true) => write!(f, "{sign}½"),
            (w, true) => write!(f, "{sign}{w}½"),
            (w, false) => write!(f, "{sign}{w}"),
        }
    }
}

/// The points a regulation gives for a win, a draw and a loss. A forfeit win
/// scores as a win and a forfeit as a loss (Law 10.1).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointSystem {
    win: Points,
    draw: Points,
    loss: Points,
}

impl PointSystem {
    /// Law 10.1: 1 – ½ – 0.
    pub const FIDE: PointSystem = PointSystem { win: Points::ONE, draw: Points::HALF, loss: Points::ZERO };

    /// "Football" scoring: 3 – 1 – 0.
    pub const THREE_ONE_ZERO: PointSystem =
        PointSystem { win: Points::whole(3), draw: Points::whole(1), loss: Points::ZERO };

    /// A point system from the event regulations.
    ///
    /// # Errors
    ///
    /// [`ScoringError::InvalidPointSystem`] unless win > loss and
    /// win ≥ draw ≥ loss: otherwise "win", "draw" and "loss" would not rank
    /// the results the way every tie-break and every Article assumes.
    pub const fn new(win: Points, draw: Points, loss: Points) -> Result<PointSystem, ScoringError> {
        if win.0 > loss.0 && win.0 >= draw.0 && draw.0 >= loss.0 {
            Ok(PointSystem { win, draw, loss })
        } else {
            Err(ScoringError::InvalidPointSystem { win, draw, loss })
        }
    }

    /// Points for a win.
    #[must_use]
    pub const fn win(&self) -> Points {
        self.win
    }

    /// Points for a draw.
    #[must_use]
    pub const fn draw(&self) -> Points {
        self.draw
    }

    /// Points for a loss.
    #[must_use]
    pub const fn loss(&self) -> Points {
        self.loss
    }

    /// The points for one player's score.
    #[must_use]
    pub const fn value(&self, score: Score) -> Points {
        match score {
            Score::Win => self.win,
            Score::Draw => self.draw,
            Score::Loss => self.loss,
        }
    }

    /// The normal maximum total of a game: the larger of a decisive game's
    /// total and a drawn game's total (1 under 1-½-0, 3 under 3-1-0).
    #[must_use]
    pub const fn game_maximum(&self) -> Points {
        let decisive = self.win.0 + self.loss.0;
        let drawn = self.draw.0 * 2;
        Points(if decisive > drawn { decisive } else { drawn })
    }
}

impl Default for PointSystem {
    fn default() -> Self {
        PointSystem::FIDE
    }
}

/// The points of White and Black for `result` under `system` (Law 10.1).
///
/// # Errors
///
/// [`ScoringError::ExceedsGameMaximum`] for an [`GameResult::Adjusted`] score
/// whose total exceeds [`PointSystem::game_maximum`] (for example 1–½): Law
/// 10.1 says the total of a game can never exceed the normal maximum;
/// [`ScoringError::Annulled`] for an annulled game, which has no score. The
/// other named results cannot fail.
pub fn points(result: GameResult, system: &PointSystem) -> Result<(Points, Points), ScoringError> {
    if result.is_annulled() {
        return Err(ScoringError::Annulled);
    }
    let (white, black) = result.scores();
    let (white, black) = (system.value(white), system.value(black));
    let maximum = system.game_maximum();
    if white + black > maximum {
        return Err(ScoringError::ExceedsGameMaximum { white, black, maximum });
    }
    Ok((white, black))
}

/// Whether a game is a normal game or an Armageddon game.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GameKind {
    #[default]
    Regular,
    /// Unequal times, draw counts as a win for Black (ARM-1); never rated.
    Armageddon,
}

/// The scores that go into the rating calculation, white first, if the game
/// is rated at all.
///
/// `both_players_moved` is whether each player made at least one move; the
/// game state machine knows it, and B02 5.1 rates a game only then.
///
/// # Errors
///
/// [`ScoringError::NotRated`] with [`NotRatedReason::Unplayed`] for a
/// forfeit, [`NotRatedReason::Annulled`] for an annulled game,
/// [`NotRatedReason::Armageddon`] for an Armageddon game and
/// [`NotRatedReason::NoMoveByBothPlayers`] when a player never moved. The
/// rapid and blitz rating-gap rule depends on the ratings and is checked by
/// [`rating_change`].
pub fn rated_scores(
    result: GameResult,
    kind: GameKind,
    both_players_moved: bool,
) -> Result<(Score, Score), ScoringError> {
    if result.is_annulled() {
        return Err(ScoringError::NotRated(NotRatedReason::Annulled));
    }
    if !result.is_played() {
        return Err(ScoringError::NotRated(NotRatedReason::Unplayed));
    }
    if kind == GameKind::Armageddon {
        return Err(ScoringError::NotRated(NotRatedReason::Armageddon));
    }
    if !both_players_moved {
        return Err(ScoringError::NotRated(NotRatedReason::NoMoveByBothPlayers));
    }
    Ok(result.scores())
}

// ---------------------------------------------------------------------------
// FIDE rating
// ---------------------------------------------------------------------------

/// A FIDE rating (a whole number on the published list).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rating(u16);

impl Rating {
    /// A rating of `points`.
    #[must_use]
    pub const fn new(points: u16) -> Rating {
        Rating(points)
    }

    /// The rating as a number.
    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which FIDE rating list a game belongs to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RatingCategory {
    /// The standard list (Rating Regulations B02).
    Standard,
    /// The rapid list (Rapid and Blitz Rating Regulations).
    Rapid,
    /// The blitz list (Rapid and Blitz Rating Regulations).
    Blitz,
}

/// A scoring probability PD from table 8.1.2, in hundredths (0..=100).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScoreProbability(u8);

impl ScoreProbability {
    /// The probability in hundredths: 64 means .64.
    #[must_use]
    pub const fn hundredths(self) -> u8 {
        self.0
    }
}

impl fmt::Display for ScoreProbability {
    /// Written as the table writes it: `.64`, `1.0` for certainty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 100 { f.write_str("1.0") } else { write!(f, ".{:02}", self.0) }
    }
}

/// One row of table 8.1.2: differences up to and including `max_difference`
/// (and above the previous row's) give the higher-rated player `higher`
/// hundredths and the lower-rated player 100 − `higher`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedScoreRow {
    pub max_difference: u16,
    pub higher: u8,
}

const fn row(max_difference: u16, higher: u8) -> ExpectedScoreRow {
    ExpectedScoreRow { max_difference, higher }
}

/// Table 8.1.2 of the FIDE Rating Regulations (1 March 2024), one row per
/// band, in increasing order. A difference above the last row (735) gives
/// 1.00 to the higher-rated player.
pub const EXPECTED_SCORE_TABLE: [ExpectedScoreRow; 50] = [
    row(3, 50),
    row(10, 51),
    row(17, 52),
    row(25, 53),
    row(32, 54),
    row(39, 55),
    row(46, 56),
    row(53, 57),
    row(61, 58),
    row(68, 59),
    row(76, 60),
    row(83, 61),
    row(91, 62),
    row(98, 63),
    row(106, 64),
    row(113, 65),
    row(121, 66),
    row(129, 67),
    row(137, 68),
    row(145, 69),
    row(153, 70),
    row(162, 71),
    row(170, 72),
    row(179, 73),
    row(188, 74),
    row(197, 75),
    row(206, 76),
    row(215, 77),
    row(225, 78),
    row(235, 79),
    row(245, 80),
    row(256, 81),
    row(267, 82),
    row(278, 83),
    row(290, 84),
    row(302, 85),
    row(315, 86),
    row(328, 87),
    row(344, 88),
    row(357, 89),
    row(374, 90),
    row(391, 91),
    row(411, 92),
    row(432, 93),
    row(456, 94),
    row(484, 95),
    row(517, 96),
    row(559, 97),
    row(619, 98),
    row(735, 99),
];

/// The scoring probability PD of a player `rating_diff` points above their
/// opponent (negative: below), straight from table 8.1.2 with no cap; apply
/// the 400-point rule first with [`FideRatingRules::effective_difference`].
#[must_use]
pub fn expected_score(rating_diff: i32) -> ScoreProbability {
    let distance = rating_diff.unsigned_abs();
    let higher = EXPECTED_SCORE_TABLE
        .iter()
        .find(|row| distance <= u32::from(row.max_difference))
        .map_or(100, |row| row.higher);
    ScoreProbability(if rating_diff >= 0 { higher } else { 100 - higher })
}

/// A date on the Gregorian calendar, used to pick the regulations in force.
/// Fields compare in year, month, day order.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CalendarDate {
    year: u16,
    month: u8,
    day: u8,
}

impl CalendarDate {
    /// The date `year`-`month`-`day`.
    ///
    /// # Errors
    ///
    /// [`ScoringError::InvalidDate`] if the month is not 1..=12 or the day
    /// does not exist in that month (leap years included).
    pub const fn new(year: u16, month: u8, day: u8) -> Result<CalendarDate, ScoringError> {
        let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => 0,
        };
        if day == 0 || day > days {
            return Err(ScoringError::InvalidDate { year, month, day });
        }
        Ok(CalendarDate { year, month, day })
    }

    /// The year.
    #[must_use]
    pub const fn year(self) -> u16 {
        self.year
    }
}

impl fmt::Display for CalendarDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// The rapid and blitz rule of 1 December 2024: a game between players at
/// least `min_difference` apart is not rated if one of them is rated above
/// `above`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RatingGapRule {
    pub min_difference: u16,
    pub above: u16,
}

/// The rating-difference rules of one version of the regulations (8.3.1 and
/// its rapid and blitz counterpart 7.3.1).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FideRatingRules {
    /// A difference above this counts as this (400).
    pub cap: u16,
    /// Players rated at least this use the actual difference (standard from
    /// 1 October 2025: 2650).
    pub uncapped_from: Option<u16>,
    /// Games excluded from rating by the gap rule (rapid and blitz from
    /// 1 December 2024).
    pub unrated_gap: Option<RatingGapRule>,
}

impl FideRatingRules {
    /// Standard, 1 March 2024 to 30 September 2025: every difference above
    /// 400 counts as 400.
    pub const STANDARD_2024_03: FideRatingRules =
        FideRatingRules { cap: 400, uncapped_from: None, unrated_gap: None };
    /// Standard from 1 October 2025: capped at 400 for players rated below
    /// 2650; players rated 2650 and above use the actual difference.
    pub const STANDARD_2025_10: FideRatingRules =
        FideRatingRules { cap: 400, uncapped_from: Some(2650), unrated_gap: None };
    /// Rapid and blitz, 1 March 2024 to 30 November 2024.
    pub const RAPID_BLITZ_2024_03: FideRatingRules =
        FideRatingRules { cap: 400, uncapped_from: None, unrated_gap: None };
    /// Rapid and blitz from 1 December 2024: capped at 400, and games 600 or
    /// more points apart are not rated if a player is rated above 2600.
    pub const RAPID_BLITZ_2024_12: FideRatingRules = FideRatingRules {
        cap: 400,
        uncapped_from: None,
        unrated_gap: Some(RatingGapRule { min_difference: 600, above: 2600 }),
    };

    /// The rules in force for `category` on `date` (the date the game was
    /// played, which decides the version for a replay as well).
    ///
    /// # Errors
    ///
    /// [`ScoringError::RegulationsNotModelled`] before 1 March 2024: the older
    /// texts (with the once-per-event limit of the 400-point rule) are not
    /// implemented.
    pub fn in_force_on(
        category: RatingCategory,
        date: CalendarDate,
    ) -> Result<FideRatingRules, ScoringError> {
        let ymd = |y, m, d| CalendarDate { year: y, month: m, day: d };
        if date < ymd(2024, 3, 1) {
            return Err(ScoringError::RegulationsNotModelled(date));
        }
        Ok(match category {
            RatingCategory::Standard if date >= ymd(2025, 10, 1) => FideRatingRules::STANDARD_2025_10,
            RatingCategory::Standard => FideRatingRules::STANDARD_2024_03,
            RatingCategory::Rapid | RatingCategory::Blitz if date >= ymd(2024, 12, 1) => {
                FideRatingRules::RAPID_BLITZ_2024_12
            }
            RatingCategory::Rapid | RatingCategory::Blitz => FideRatingRules::RAPID_BLITZ_2024_03,
        })
    }

    /// The difference D used for `own`'s rating change against `opponent`:
    /// own minus opponent, capped at ±[`cap`](Self::cap) unless `own` is rated
    /// at least [`uncapped_from`](Self::uncapped_from).
    #[must_use]
    pub fn effective_difference(&self, own: Rating, opponent: Rating) -> i32 {
        let actual = i32::from(own.0) - i32::from(opponent.0);
        let exempt = self.uncapped_from.is_some_and(|from| own.0 >= from);
        if exempt {
            actual
        } else {
            let cap = i32::from(self.cap);
            actual.clamp(-cap, cap)
        }
    }

    /// Whether a game between these ratings is rated at all.
    ///
    /// # Errors
    ///
    /// [`ScoringError::NotRated`] with [`NotRatedReason::RatingGap`] when the
    /// gap rule applies.
    pub fn check_rated(&self, own: Rating, opponent: Rating) -> Result<(), ScoringError> {
        if let Some(gap) = self.unrated_gap {
            let difference = own.0.abs_diff(opponent.0);
            if difference >= gap.min_difference && (own.0 > gap.above || opponent.0 > gap.above) {
                return Err(ScoringError::NotRated(NotRatedReason::RatingGap { difference }));
            }
        }
        Ok(())
    }
}

/// The development coefficient K (8.3.3).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KFactor(u8);

impl KFactor {
    /// New players and juniors under 2300.
    pub const FORTY: KFactor = KFactor(40);
    /// Players under 2400.
    pub const TWENTY: KFactor = KFactor(20);
    /// Players whose published rating has reached 2400.
    pub const TEN: KFactor = KFactor(10);

    /// A K factor of `k`, for values reduced by the 700 rule or taken from
    /// the published list.
    ///
    /// # Errors
    ///
    /// [`ScoringError::InvalidKFactor`] outside 1..=40, the only values the
    /// regulations can produce.
    pub const fn new(k: u8) -> Result<KFactor, ScoringError> {
        if k >= 1 && k <= 40 { Ok(KFactor(k)) } else { Err(ScoringError::InvalidKFactor(k)) }
    }

    /// The value of K.
    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The last sentence of 8.3.3: if `games` × K exceeds 700 for the games
    /// of a rating period, K is the largest whole number with K × `games` ≤
    /// 700. That number is at least 1 for up to 700 games; beyond that K
    /// stays 1 because the regulations never give a zero K.
    #[must_use]
    pub fn limited_for_games(self, games: u32) -> KFactor {
        if games.saturating_mul(u32::from(self.0)) <= 700 {
            return self;
        }
        // The quotient is below K here (games × K > 700), so it fits in u8.
        let limited = (700 / games).max(1);
        KFactor(u8::try_from(limited).unwrap_or(self.0))
    }
}

/// What 8.3.3 needs to know about a player, on the list of the game's
/// category (standard, rapid or blitz each have their own rating and games).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayerRatingProfile {
    /// The rating used for the rating period (the published list rating).
    pub rating: Rating,
    /// Rated games in events the player has completed before this period;
    /// K = 40 applies until this reaches 30.
    pub completed_games: u32,
    /// Whether a published rating of the player has ever been 2400 or more.
    pub ever_published_2400: bool,
    /// Year of birth as FIDE lists it, if known.
    pub birth_year: Option<u16>,
}

/// K for a player in a rating period of year `period_year` (8.3.3), before
/// the 700 rule ([`KFactor::limited_for_games`]). The order of the tests is
/// explained in the module docs.
#[must_use]
pub fn k_factor(profile: &PlayerRatingProfile, period_year: u16) -> KFactor {
    // A published rating of 2400 or more fixes K at 10 for good; the current
    // list rating counts as published.
    if profile.ever_published_2400 || profile.rating.0 >= 2400 {
        return KFactor::TEN;
    }
    if profile.completed_games < 30 {
        return KFactor::FORTY;
    }
    // "Until the end of the year of their 18th birthday": the whole calendar
    // year in which the player turns 18 still counts.
    let junior = profile.birth_year.is_some_and(|born| u32::from(period_year) <= u32::from(born) + 18);
    if junior && profile.rating.0 < 2300 {
        return KFactor::FORTY;
    }
    KFactor::TWENTY
}

/// An exact rating change in hundredths of a rating point: K × ΔR of one
/// game, or the sum over a tournament or rating period before rounding.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub struct RatingDelta(i64);

impl RatingDelta {
    /// No change.
    pub const ZERO: RatingDelta = RatingDelta(0);

    /// A change of `hundredths` hundredths of a point.
    #[must_use]
    pub const fn from_hundredths(hundredths: i64) -> RatingDelta {
        RatingDelta(hundredths)
    }

    /// The exact change in hundredths.
    #[must_use]
    pub const fn hundredths(self) -> i64 {
        self.0
    }

    /// The change rounded to a whole number as 8.3.4 says: to the nearest
    /// whole number, 0.5 away from zero (+3.5 → +4, −2.5 → −3).
    #[must_use]
    pub const fn rounded(self) -> i64 {
        let magnitude = (self.0.unsigned_abs() + 50) / 100;
        // The magnitude is at most |i64::MIN| / 100 + 1, far inside i64.
        let magnitude = magnitude as i64;
        if self.0 < 0 { -magnitude } else { magnitude }
    }
}

impl Add for RatingDelta {
    type Output = RatingDelta;
    fn add(self, rhs: RatingDelta) -> RatingDelta {
        RatingDelta(self.0 + rhs.0)
    }
}

impl AddAssign for RatingDelta {
    fn add_assign(&mut self, rhs: RatingDelta) {
        self.0 += rhs.0;
    }
}

impl Neg for RatingDelta {
    type Output = RatingDelta;
    fn neg(self) -> RatingDelta {
        RatingDelta(-self.0)
    }
}

impl Sum for RatingDelta {
    fn sum<I: Iterator<Item = RatingDelta>>(iter: I) -> RatingDelta {
        iter.fold(RatingDelta::ZERO, Add::add)
    }
}

impl fmt::Display for RatingDelta {
    /// Two decimals with a sign, as FIDE's calculator shows them: `+3.60`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { '-' } else { '+' };
        let magnitude = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", magnitude / 100, magnitude % 100)
    }
}

/// K × ΔR for one game of a player rated `own` against `opponent` with
/// `score`: ΔR = score − PD (8.3.2), PD from table 8.1.2 after the 400-point
/// rule of `rules`. Add the deltas of a period and round once with
/// [`RatingDelta::rounded`].
///
/// # Errors
///
/// [`ScoringError::NotRated`] when `rules` exclude the game by the rapid and
/// blitz rating-gap rule.
pub fn rating_change(
    own: Rating,
    opponent: Rating,
    score: Score,
    k: KFactor,
    rules: &FideRatingRules,
) -> Result<RatingDelta, ScoringError> {
    rules.check_rated(own, opponent)?;
    let probability = expected_score(rules.effective_difference(own, opponent));
    let delta_r = score.rating_hundredths() - i64::from(probability.0);
    Ok(RatingDelta(delta_r * i64::from(k.0)))
}

// ---------------------------------------------------------------------------
// CN-16 grade points
// ---------------------------------------------------------------------------

/// Ten-thousandths per grade point.
const GRADE_SCALE: i64 = 10_000;

/// CN-16 grade points: a decimal with four decimal places.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub struct GradePoints(i64);

impl GradePoints {
    /// Zero.
    pub const ZERO: GradePoints = GradePoints(0);

    /// `whole` grade points.
    ///
    /// # Errors
    ///
    /// [`ScoringError::GradePointsOverflow`] if the value does not fit.
    pub const fn whole(whole: i64) -> Result<GradePoints, ScoringError> {
        match whole.checked_mul(GRADE_SCALE) {
            Some(v) => Ok(GradePoints(v)),
            None => Err(ScoringError::GradePointsOverflow),
        }
    }

    /// `tenths` tenths of a grade point (7.5 is 75).
    ///
    /// # Errors
    ///
    /// [`ScoringError::GradePointsOverflow`] if the value does not fit.
    pub const fn from_tenths(tenths: i64) -> Result<GradePoints, ScoringError> {
        match tenths.checked_mul(GRADE_SCALE / 10) {
            Some(v) => Ok(GradePoints(v)),
            None => Err(ScoringError::GradePointsOverflow),
        }
    }

    /// `hundredths` hundredths of a grade point (9.95 is 995).
    ///
    /// # Errors
    ///
    /// [`ScoringError::GradePointsOverflow`] if the value does not fit.
    pub const fn from_hundredths(hundredths: i64) -> Result<GradePoints, ScoringError> {
        match hundredths.checked_mul(GRADE_SCALE / 100) {
            Some(v) => Ok(GradePoints(v)),
            None => Err(ScoringError::GradePointsOverflow),
        }
    }

    /// `units` ten-thousandths of a grade point, the exact internal value.
    #[must_use]
    pub const fn from_ten_thousandths(units: i64) -> GradePoints {
        GradePoints(units)
    }

    /// The exact value in ten-thousandths.
    #[must_use]
    pub const fn ten_thousandths(self) -> i64 {
        self.0
    }

    /// `self + rhs`, or `None` on overflow.
    #[must_use]
    pub const fn checked_add(self, rhs: GradePoints) -> Option<GradePoints> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(GradePoints(v)),
            None => None,
        }
    }

    /// `self - rhs`, or `None` on overflow.
    #[must_use]
    pub const fn checked_sub(self, rhs: GradePoints) -> Option<GradePoints> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(GradePoints(v)),
            None => None,
        }
    }

    /// `-self`, or `None` on overflow.
    #[must_use]
    pub const fn checked_neg(self) -> Option<GradePoints> {
        match self.0.checked_neg() {
            Some(v) => Some(GradePoints(v)),
            None => None,
        }
    }
}

impl fmt::Display for GradePoints {
    /// The shortest exact decimal: `7.5`, `-6`, `9.2`, `0.9872`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let magnitude = self.0.unsigned_abs();
        let scale = GRADE_SCALE.unsigned_abs();
        let (whole, mut fraction) = (magnitude / scale, magnitude % scale);
        if fraction == 0 {
            return write!(f, "{sign}{whole}");
        }
        let mut digits = 4;
        while fraction % 10 == 0 {
            fraction /= 10;
            digits -= 1;
        }
        write!(f, "{sign}{whole}.{fraction:0digits$}")
    }
}

/// The outcome of a game as CN-16 sees it.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GradeOutcome {
    /// The player with more grade points won.
    HigherWins,
    /// The player with fewer grade points won.
    LowerWins,
    /// A draw.
    Draw,
}

/// `numerator / denominator` in ten-thousandths, rounded half away from zero
/// (DEC-15 as chosen in the module docs). Both are non-negative here: `d` is
/// checked first and the denominators are constants.
fn rounded_quotient(numerator: i64, denominator: i64) -> Result<i64, ScoringError> {
    debug_assert!(numerator >= 0 && denominator > 0);
    let twice = numerator.checked_mul(2).and_then(|n| n.checked_add(denominator));
    Ok(twice.ok_or(ScoringError::GradePointsOverflow)? / (2 * denominator))
}

/// The CN-16 amount for a point difference `d` (≥ 0): what the winner gains
/// and the loser loses, or in a draw what the lower-rated player gains and the
/// higher-rated player loses. Bands follow DEC-15; an amount that needs more
/// than four decimal places is rounded half away from zero (see the module
/// docs).
///
/// # Errors
///
/// [`ScoringError::NegativeGradeDifference`] if `d` < 0;
/// [`ScoringError::GradePointsOverflow`] if the amount does not fit.
pub fn cn16_transfer(d: GradePoints, outcome: GradeOutcome) -> Result<GradePoints, ScoringError> {
    if d.0 < 0 {
        return Err(ScoringError::NegativeGradeDifference(d));
    }
    let overflow = ScoringError::GradePointsOverflow;
    let ten = 10 * GRADE_SCALE;
    let hundred = 100 * GRADE_SCALE;
    let units = match outcome {
        // D < 10 → 10; 10 ≤ D < 100 → 10 − D/12.5 = 10 − 2D/25;
        // 100 ≤ D < 200 → 2; D ≥ 200 → 0.
        GradeOutcome::HigherWins => {
            if d.0 < ten {
                ten
            } else if d.0 < hundred {
                ten - rounded_quotient(d.0.checked_mul(2).ok_or(overflow)?, 25)?
            } else if d.0 < 200 * GRADE_SCALE {
                2 * GRADE_SCALE
            } else {
                0
            }
        }
        // D < 10 → 10; 10 ≤ D < 100 → 10 + D/10; D ≥ 100 → D/2.
        GradeOutcome::LowerWins => {
            if d.0 < ten {
                ten
            } else if d.0 < hundred {
                ten + rounded_quotient(d.0, 10)?
            } else {
                rounded_quotient(d.0, 2)?
            }
        }
        // D < 10 → 0; 10 ≤ D < 100 → (10 + D/10)/2 = 5 + D/20; D ≥ 100 → D/4.
        GradeOutcome::Draw => {
            if d.0 < ten {
                0
            } else if d.0 < hundred {
                5 * GRADE_SCALE + rounded_quotient(d.0, 20)?
            } else {
                rounded_quotient(d.0, 4)?
            }
        }
    };
    Ok(GradePoints(units))
}

/// The CN-16 changes of White and Black, who have `white` and `black` grade
/// points before the game and the scores `scores` (white first, as
/// [`rated_scores`] returns them).
///
/// # Errors
///
/// [`ScoringError::NotZeroSum`] unless the scores are win/loss or draw/draw;
/// otherwise the errors of [`cn16_transfer`].
pub fn cn16_grade_changes(
    white: GradePoints,
    black: GradePoints,
    scores: (Score, Score),
) -> Result<(GradePoints, GradePoints), ScoringError> {
    let (white_score, black_score) = scores;
    if black_score != white_score.complement() {
        return Err(ScoringError::NotZeroSum { white: white_score, black: black_score });
    }
    let overflow = ScoringError::GradePointsOverflow;
    let difference = white.checked_sub(black).ok_or(overflow)?;
    let d = if difference.0 < 0 { difference.checked_neg().ok_or(overflow)? } else { difference };
    // With equal points there is no higher player; every band at D < 10 gives
    // both sides the same amount, so White is taken as the higher one.
    let white_is_higher = difference.0 >= 0;
    let (outcome, white_gains) = match white_score {
        Score::Draw => (GradeOutcome::Draw, !white_is_higher),
        Score::Win => {
            (if white_is_higher { GradeOutcome::HigherWins } else { GradeOutcome::LowerWins }, true)
        }
        Score::Loss => {
            (if white_is_higher { GradeOutcome::LowerWins } else { GradeOutcome::HigherWins }, false)
        }
    };
    let amount = cn16_transfer(d, outcome)?;
    let loss = amount.checked_neg().ok_or(overflow)?;
    Ok(if white_gains { (amount, loss) } else { (loss, amount) })
}
