//! FIDE tie-breaks (Handbook C.07, "Play-Off and Tie-Break Regulations"),
//! computed exactly on a [`Crosstable`].
//!
//! # Sources read
//!
//! - **Edition of 1 August 2024** ([`Edition::Aug2024`]): the text printed in the
//!   FIDE Arbiters' Manual, May 2025, pp.202–212 ("Tie-Break Regulations
//!   (effective from 1 April 2024) (C07)", whose body says "Approved by FIDE
//!   Council on 29/07/2024, Applied from 1st August, 2024"), read in the text
//!   extraction `corpus/processed/raw_intl/FIDE_Arbiters_Manual_2025.json` of
//!   GitHub `pierrealexandreguillemin-a11y/pocket_arbiter` (commit
//!   `af33864b200868b87ac7620339612ff77b033424`, pages 211–221), together
//!   with the Manual's "Tiebreak Examples for Unplayed Games" (pp.211–212)
//!   and the exam questions 21–23 with their official answers (pp.291, 296–297).
//! - **Edition of 1 March 2026** ([`Edition::Mar2026`]): "07. Play-Off and
//!   Tie-Break Regulations (effective from 1 March 2026)", "Approved by FIDE
//!   Council on 02/02/2026", source named as
//!   `https://handbook.fide.com/chapter/TieBreakRegulations032026`, read in a
//!   verbatim transcription of the Handbook PDF kept in GitHub
//!   `AuroraRyunix/Ainalrami`, `docs/c07-regulation-text.md` (commit
//!   `ea42362664fc09f8ffe577dc207cd898d4b9e836`). Corroborated by FIDE's own
//!   reference implementation, GitHub `OttoMilvang/TieBreakServer` (© FIDE,
//!   MIT): commit `6b766ae` (28 Feb 2026, "Added new rules valid from 1.
//!   March 2026") sets rules version 2 to `"2026-03-01"` with the comment
//!   "Approved by FIDE Council on 02/02/2026", and `tiebreak.py` at `14a34a2`
//!   applies the two new caps of 16.4.1 and 16.4.2 only for that version.
//!   A news page (fideidsorgulama.com, "FIDE Reminds Chess Community of New
//!   Tie-Break and Play-Off Rules Effective March 1, 2026") confirms the date
//!   and the new Standard Points. The FIDE site itself was not reachable.
//!   No code was copied from either repository; the readings below are this
//!   module's.
//!
//! # What changed from 2024 to 2026 (as found in the two texts)
//!
//! - **16.4, the dummy opponent** (the "value of a forfeit's virtual
//!   opponent"). 2024: "any of their unplayed rounds are evaluated as if
//!   there was a game played against a dummy that concluded the tournament
//!   with the same number of points as the participant themself". 2026: "The
//!   dummy's score for the tie-break calculation is the participant's own
//!   score. However, it shall not exceed: 16.4.1 the scheduled opponent's
//!   adjusted score (see Article 16.3), for unplayed rounds of categories
//!   16.2.2 and 16.2.4 (forfeits); 16.4.2 the points awarded for a draw
//!   multiplied by the number of rounds in the tournament, for all other
//!   unplayed rounds (categories 16.2.1, 16.2.3 and 16.2.5)." Consequence: the
//!   Manual's exam answer Q22 (31.5 under 2024) becomes 30 under 2026, because
//!   the forfeiting opponent finished with 3 points.
//! - **New tie-breaks** in Article 5: Standard Points (STD, 7.7), Tournament
//!   Pairing Number (TPN, 7.8) and Rating (RTNG, 10.6); AOB may use "the
//!   Buchholz (or Fore Buchholz)" of the opponents.
//! - **15.2** (pre-determined pairings) adds "except that all forfeits in
//!   ratings-based tie-breaks … and forfeit losses in Type B tie-breaks …
//!   remain unplayed rounds"; 16.2.3 drops "available-to-play" (same
//!   meaning); 16.5 is reworded (same rule); Article 8 adds "These
//!   tie-breaks must not be used in round-robins".
//!
//! # Reading of each rule, and choices where the text is silent
//!
//! - **Rounds.** Everything is computed on the crosstable cut after a round R
//!   ([`TieBreakTable::new`]): "the tournament" is rounds 1..=R, so R is "the
//!   last round" of 16.2.5, "the number of rounds" of 16.4.2 and "the final
//!   round" of Fore Buchholz. Scores are [`Crosstable::points`] after R,
//!   point adjustments (TRF `299`) included.
//! - **Classes of rounds** (15.1, 16.1, 16.2). Played: a finished game over
//!   the board, a game under one move (TRF `W`/`D`/`L`, played though not
//!   rated), or a game not finished yet (it counts as a game against the
//!   scheduled opponent with no points yet). Unplayed: forfeit win (16.2.2),
//!   forfeit loss (16.2.4; both sides of a double forfeit), pairing-allocated
//!   or full-point bye (16.2.1), requested bye = half-point or zero-point bye
//!   (16.1.1). An unpaired round (TRF blank) is a zero-point bye ("any round
//!   after a participant withdraws is a zero-point-bye"). A full-point bye is
//!   *not* a requested bye for C.07 even if requested: 16.1.1 names only
//!   half- and zero-point byes (FIDE's TieBreakServer does the same).
//!   VUR (16.1.2) = requested bye or forfeit loss.
//! - **16.3, adjusted score** ([`TieBreakTable::adjusted_score`]): the score
//!   with every requested bye of category 16.2.5 (followed only by VURs, or
//!   in round R) counted as a draw (`Scoring::draw`) instead of its awarded
//!   points; every other round counts with its awarded points ("the result
//!   corresponding to the awarded number of points" scores those points).
//! - **16.4, the dummy** ([`TieBreakTable::contributions`]): the participant's
//!   own (actual, not adjusted) score; under 2026 capped as quoted above. The
//!   points "scored against" the dummy (for SB) are the points awarded.
//! - **16.5, cuts.** For every cut of the least significant value: the least
//!   significant element is the one with the lowest opponent score (ties:
//!   lowest contribution, 14.1.1 d); the lowest VUR contribution is cut
//!   instead when it is not lower than that element's contribution (for
//!   Buchholz this is always the case, so a VUR is always cut first). Repeated
//!   for Cut-2 / Median-2. Cuts of the most significant value (Median) take
//!   the highest opponent score (ties: highest contribution) with no VUR
//!   rule. A modifier asking for more cuts than there are values leaves 0.
//! - **Pre-determined pairings** ([`PairingSystem::Predetermined`], 15.2):
//!   forfeits count as games against the scheduled opponent for BH, SB, KS
//!   and DE; a round without an opponent contributes nothing; there is no
//!   Article 16 (no adjusted scores, no dummy). Ratings-based and Type B
//!   tie-breaks always treat forfeits as unplayed (their definitions say "over
//!   the board").
//! - **DE (6)**: scores from games among the group; forfeits excluded (6.1.1)
//!   unless [`TieBreakSettings::forfeits_in_direct_encounter`] or pre-determined
//!   pairings; repeated meetings count as their average (6.1.2); all met →
//!   separate standings, re-applied to every smaller tied subgroup (6.2);
//!   Swiss and not all met → rank first a participant whose separate score
//!   with every missing game lost exceeds every rival's with every missing
//!   game won, then the next among the rest, then Article 6 again on the rest
//!   (6.3). The value is the rank inside the group (lower is better).
//! - **WIN (7.1)** counts rounds whose awarded points equal `Scoring::win`
//!   (forfeit wins, pairing-allocated and full-point byes included when they
//!   score a win). **WON/BPG/BWG (7.2–7.4)** count finished games over the
//!   board, games under one move included (they were played). **REP (7.6)**:
//!   rounds minus half-point byes, zero-point byes (unpaired rounds included)
//!   and forfeit losses. **PS (7.5)**: the sum of the scores after each round;
//!   Cut-n drops the first n of them (14.1.1 c); Median is not defined for
//!   PS and is refused. **STD (7.7, 2026 only)**: a game scores 1 / ½ / 0 by
//!   comparing the points of the two sides; an opponent-less round compares
//!   the awarded points with a draw.
//! - **KS (9.2)**: points against opponents whose score is at least 50% of
//!   `Scoring::win` × rounds, moved by the Limit modifier (14.5) in half
//!   points; games only (forfeits only with pre-determined pairings).
//! - **ARO, APRO, APPO (10.1, 10.4, 10.5)**: "rounded to the nearest whole
//!   number (0.5 rounded up)". ARO-Cut-n drops the n lowest ratings. Unrated
//!   participants (10): the tie-break fails with
//!   [`TieBreakError::UnratedParticipants`] unless the event gave a rating for
//!   them ([`TieBreakSettings::unrated_rating`]). A participant with no game
//!   over the board has no value (`None`), which ranks after every value.
//! - **TPR (10.2)**: ARO + dp, the fractional score (1, ½, 0 per game over the
//!   board, whatever the event's scoring) rounded to a hundredth half up and
//!   converted by table 8.1.1 of the Rating Regulations ([`DP_TABLE`]; the
//!   data agree with `fidetables.py` of TieBreakServer). **PTP (10.3)**: the
//!   lowest whole rating whose expected score (table 8.1.2, full scale, no
//!   400 cut) reaches the score; a zero score gives the lowest opponent's
//!   rating − 800.
//! - **AOB (8.2)**: the exact average of the Buchholz of the opponents played
//!   over the board (the text gives no rounding; TieBreakServer rounds to two
//!   decimals, this module keeps the exact fraction).
//! - **GE** ("games elected") is not in either text: REP is its 2024 name.
//!
//! Values are exact ([`Value`], a reduced fraction); SB values are quarters
//! of a point, averages keep their exact denominator.

use std::cmp::Ordering;
use std::fmt;

use arbiter_chess::Color;
use arbiter_laws::scoring::{Points, Rating, Score, expected_score};

use crate::crosstable::{ByeKind, Crosstable, GameOutcome, RoundEntry, RoundNumber, Scoring, StartNumber};

/// Which text of C.07 applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edition {
    /// Approved by the FIDE Council on 29/07/2024, applied from 1 August 2024.
    Aug2024,
    /// Approved by the FIDE Council on 02/02/2026, applied from 1 March 2026.
    Mar2026,
}

impl Edition {
    /// The first day the edition applies, as (year, month, day).
    #[must_use]
    pub const fn in_force_from(self) -> (u16, u8, u8) {
        match self {
            Edition::Aug2024 => (2024, 8, 1),
            Edition::Mar2026 => (2026, 3, 1),
        }
    }

    /// The edition in force on a date, `None` before 1 August 2024 (older
    /// texts are not modelled).
    #[must_use]
    pub fn in_force_on(year: u16, month: u8, day: u8) -> Option<Edition> {
        let date = (year, month, day);
        if date >= Edition::Mar2026.in_force_from() {
            Some(Edition::Mar2026)
        } else if date >= Edition::Aug2024.in_force_from() {
            Some(Edition::Aug2024)
        } else {
            None
        }
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edition::Aug2024 => "C.07 (1 August 2024)",
            Edition::Mar2026 => "C.07 (1 March 2026)",
        })
    }
}

/// How the event was paired: Swiss (Article 16) or pre-determined pairings
/// such as round-robins (Article 15.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PairingSystem {
    #[default]
    Swiss,
    Predetermined,
}

/// What the event's regulations decide around the tie-breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TieBreakSettings {
    pub edition: Edition,
    pub pairing: PairingSystem,
    /// 6.1.1: the regulations count forfeits in Direct Encounter.
    pub forfeits_in_direct_encounter: bool,
    /// Article 10: the rating given to unrated participants, if the
    /// regulations give one; without it ratings-based tie-breaks fail when a
    /// participant is unrated.
    pub unrated_rating: Option<Rating>,
}

impl TieBreakSettings {
    /// A Swiss event under `edition`, with the defaults of the text.
    #[must_use]
    pub const fn swiss(edition: Edition) -> TieBreakSettings {
        TieBreakSettings {
            edition,
            pairing: PairingSystem::Swiss,
            forfeits_in_direct_encounter: false,
            unrated_rating: None,
        }
    }

    /// A round-robin (pre-determined pairings) under `edition`.
    #[must_use]
    pub const fn round_robin(edition: Edition) -> TieBreakSettings {
        TieBreakSettings { pairing: PairingSystem::Predetermined, ..TieBreakSettings::swiss(edition) }
    }
}

impl Default for TieBreakSettings {
    fn default() -> Self {
        TieBreakSettings::swiss(Edition::Mar2026)
    }
}

/// Article 14 modifiers that cut values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Modifier {
    #[default]
    None,
    /// Cut-n: cut the n least significant values (14.1, 14.2).
    Cut(u8),
    /// Median-n: cut the n least, then the n most significant values (14.3, 14.4).
    Median(u8),
}

impl Modifier {
    pub const CUT1: Modifier = Modifier::Cut(1);
    pub const CUT2: Modifier = Modifier::Cut(2);
    pub const MEDIAN1: Modifier = Modifier::Median(1);
    pub const MEDIAN2: Modifier = Modifier::Median(2);

    const fn low(self) -> usize {
        match self {
            Modifier::None => 0,
            Modifier::Cut(n) | Modifier::Median(n) => n as usize,
        }
    }

    const fn high(self) -> usize {
        match self {
            Modifier::Median(n) => n as usize,
            _ => 0,
        }
    }

    fn suffix(self) -> String {
        match self {
            Modifier::None => String::new(),
            Modifier::Cut(n) => format!("/C{n}"),
            Modifier::Median(n) => format!("/M{n}"),
        }
    }
}

/// A tie-break of C.07 Article 5 with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// DE, Article 6 (Type A).
    DirectEncounter,
    /// WIN, 7.1.
    Wins,
    /// WON, 7.2.
    GamesWon,
    /// BPG, 7.3.
    GamesWithBlack,
    /// BWG, 7.4.
    WinsWithBlack,
    /// PS, 7.5 (Cut-n only).
    ProgressiveScores(Modifier),
    /// REP, 7.6.
    RoundsElectedToPlay,
    /// STD, 7.7 (2026 only).
    StandardPoints,
    /// TPN, 7.8 (2026 only): the start number, ascending.
    TournamentPairingNumber,
    /// BH, 8.1.
    Buchholz(Modifier),
    /// AOB, 8.2.
    AverageOfOpponentsBuchholz,
    /// FB, 8.3.
    ForeBuchholz(Modifier),
    /// SB, 9.1.
    SonnebornBerger(Modifier),
    /// KS, 9.2, with the Limit modifier of 14.5: `limit` moves the 50%
    /// threshold (positive: up), in points.
    Koya { limit: Points },
    /// ARO, 10.1.
    AverageRatingOfOpponents(Modifier),
    /// TPR, 10.2.
    TournamentPerformanceRating,
    /// PTP, 10.3.
    PerfectTournamentPerformance,
    /// APRO, 10.4.
    AveragePerformanceRatingOfOpponents,
    /// APPO, 10.5.
    AveragePerfectPerformanceOfOpponents,
    /// RTNG, 10.6 (2026 only): the participant's rating, highest first.
    Rating,
}

impl TieBreak {
    /// KS with the 50% limit unchanged.
    pub const KOYA: TieBreak = TieBreak::Koya { limit: Points::ZERO };

    /// The acronym of Article 5.
    #[must_use]
    pub const fn acronym(self) -> &'static str {
        match self {
            TieBreak::DirectEncounter => "DE",
            TieBreak::Wins => "WIN",
            TieBreak::GamesWon => "WON",
            TieBreak::GamesWithBlack => "BPG",
            TieBreak::WinsWithBlack => "BWG",
            TieBreak::ProgressiveScores(_) => "PS",
            TieBreak::RoundsElectedToPlay => "REP",
            TieBreak::StandardPoints => "STD",
            TieBreak::TournamentPairingNumber => "TPN",
            TieBreak::Buchholz(_) => "BH",
            TieBreak::AverageOfOpponentsBuchholz => "AOB",
            TieBreak::ForeBuchholz(_) => "FB",
            TieBreak::SonnebornBerger(_) => "SB",
            TieBreak::Koya { .. } => "KS",
            TieBreak::AverageRatingOfOpponents(_) => "ARO",
            TieBreak::TournamentPerformanceRating => "TPR",
            TieBreak::PerfectTournamentPerformance => "PTP",
            TieBreak::AveragePerformanceRatingOfOpponents => "APRO",
            TieBreak::AveragePerfectPerformanceOfOpponents => "APPO",
            TieBreak::Rating => "RTNG",
        }
    }

    /// The type letters of Article 5 (A, B, C, D or combinations).
    #[must_use]
    pub const fn kind(self) -> &'static str {
        match self {
            TieBreak::DirectEncounter => "A",
            TieBreak::Wins
            | TieBreak::GamesWon
            | TieBreak::GamesWithBlack
            | TieBreak::WinsWithBlack
            | TieBreak::ProgressiveScores(_)
            | TieBreak::RoundsElectedToPlay
            | TieBreak::StandardPoints
            | TieBreak::TournamentPairingNumber
            | TieBreak::Rating => "B",
            TieBreak::Buchholz(_) => "C",
            TieBreak::AverageOfOpponentsBuchholz => "CC",
            TieBreak::ForeBuchholz(_) | TieBreak::AverageRatingOfOpponents(_) => "D",
            TieBreak::SonnebornBerger(_) | TieBreak::Koya { .. } => "BC",
            TieBreak::TournamentPerformanceRating | TieBreak::PerfectTournamentPerformance => "DB",
            TieBreak::AveragePerformanceRatingOfOpponents
            | TieBreak::AveragePerfectPerformanceOfOpponents => "DC",
        }
    }

    /// Whether a higher value ranks higher (false for DE, whose value is a
    /// rank, and for TPN).
    #[must_use]
    pub const fn higher_is_better(self) -> bool {
        !matches!(self, TieBreak::DirectEncounter | TieBreak::TournamentPairingNumber)
    }

    /// Whether `edition` defines this tie-break.
    #[must_use]
    pub const fn defined_in(self, edition: Edition) -> bool {
        match self {
            TieBreak::StandardPoints | TieBreak::TournamentPairingNumber | TieBreak::Rating => {
                matches!(edition, Edition::Mar2026)
            }
            _ => true,
        }
    }

    const fn is_rating_based(self) -> bool {
        matches!(
            self,
            TieBreak::AverageRatingOfOpponents(_)
                | TieBreak::TournamentPerformanceRating
                | TieBreak::PerfectTournamentPerformance
                | TieBreak::AveragePerformanceRatingOfOpponents
                | TieBreak::AveragePerfectPerformanceOfOpponents
                | TieBreak::Rating
        )
    }
}

impl fmt::Display for TieBreak {
    /// The code as FIDE's checklist and TieBreakServer write it: `BH/C1`,
    /// `SB/M1`, `KS/L+1` (limit in half points).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match *self {
            TieBreak::ProgressiveScores(m)
            | TieBreak::Buchholz(m)
            | TieBreak::ForeBuchholz(m)
            | TieBreak::SonnebornBerger(m)
            | TieBreak::AverageRatingOfOpponents(m) => m.suffix(),
            TieBreak::Koya { limit } if limit != Points::ZERO => format!("/L{:+}", limit.halves()),
            _ => String::new(),
        };
        write!(f, "{}{suffix}", self.acronym())
    }
}

/// Why a tie-break cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TieBreakError {
    #[error("{tie_break} is not defined in {edition}")]
    NotInEdition { tie_break: TieBreak, edition: Edition },
    #[error("{0} takes no such modifier")]
    InvalidModifier(TieBreak),
    #[error(
        "participant {0} is unrated and the regulations give no rating for unrated participants (C.07 10)"
    )]
    UnratedParticipants(StartNumber),
    #[error("round {0} is beyond the {1} rounds recorded")]
    RoundOutOfRange(RoundNumber, u16),
    #[error("participant {0} is not in the crosstable")]
    UnknownParticipant(StartNumber),
}

/// An exact tie-break value: a reduced fraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    numerator: i64,
    denominator: i64,
}

const fn gcd(mut a: i64, mut b: i64) -> i64 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    if a == 0 { 1 } else { a }
}

impl Value {
    /// `numerator / denominator`, reduced.
    ///
    /// # Panics
    ///
    /// If `denominator` is zero.
    #[must_use]
    pub const fn new(numerator: i64, denominator: i64) -> Value {
        assert!(denominator != 0, "zero denominator");
        let sign = if denominator < 0 { -1 } else { 1 };
        let g = gcd(numerator, denominator);
        Value { numerator: sign * numerator / g, denominator: sign * denominator / g }
    }

    /// A whole number.
    #[must_use]
    pub const fn integer(n: i64) -> Value {
        Value { numerator: n, denominator: 1 }
    }

    /// A number of points.
    #[must_use]
    pub const fn points(p: Points) -> Value {
        Value::new(p.halves() as i64, 2)
    }

    #[must_use]
    pub const fn numerator(self) -> i64 {
        self.numerator
    }

    #[must_use]
    pub const fn denominator(self) -> i64 {
        self.denominator
    }

    /// The value as points, when it is a whole number of half points.
    #[must_use]
    pub fn as_points(self) -> Option<Points> {
        let halves = i128::from(self.numerator) * 2;
        let d = i128::from(self.denominator);
        (halves % d == 0).then(|| i32::try_from(halves / d).ok().map(Points::from_halves)).flatten()
    }

    /// An approximation, for display only.
    #[must_use]
    pub fn to_f64(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        (i128::from(self.numerator) * i128::from(other.denominator))
            .cmp(&(i128::from(other.numerator) * i128::from(self.denominator)))
    }
}

impl fmt::Display for Value {
    /// An exact decimal when there is one (`8.875`, `-3`), else `n/d`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = self.denominator;
        let mut places = 0u32;
        let (mut twos, mut fives) = (0u32, 0u32);
        while d % 2 == 0 {
            d /= 2;
            twos += 1;
        }
        while d % 5 == 0 {
            d /= 5;
            fives += 1;
        }
        if d != 1 {
            return write!(f, "{}/{}", self.numerator, self.denominator);
        }
        places += twos.max(fives);
        let scale = 10i128.pow(places);
        let scaled = i128::from(self.numerator) * scale / i128::from(self.denominator);
        let sign = if scaled < 0 { "-" } else { "" };
        let magnitude = scaled.unsigned_abs();
        let unit = scale.unsigned_abs();
        if places == 0 {
            write!(f, "{sign}{magnitude}")
        } else {
            write!(f, "{sign}{}.{:0width$}", magnitude / unit, magnitude % unit, width = places as usize)
        }
    }
}

/// The categories of unplayed rounds of C.07 16.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnplayedCategory {
    /// 16.2.1: pairing-allocated or full-point bye.
    PairingAllocatedOrFullPointBye,
    /// 16.2.2: forfeit win.
    ForfeitWin,
    /// 16.2.3: requested bye followed by at least one round that is not a VUR.
    RequestedByeBeforePlay,
    /// 16.2.4: forfeit loss.
    ForfeitLoss,
    /// 16.2.5: requested bye followed only by VURs, or in the last round.
    RequestedByeToTheEnd,
}

impl UnplayedCategory {
    /// The article number.
    #[must_use]
    pub const fn article(self) -> &'static str {
        match self {
            UnplayedCategory::PairingAllocatedOrFullPointBye => "16.2.1",
            UnplayedCategory::ForfeitWin => "16.2.2",
            UnplayedCategory::RequestedByeBeforePlay => "16.2.3",
            UnplayedCategory::ForfeitLoss => "16.2.4",
            UnplayedCategory::RequestedByeToTheEnd => "16.2.5",
        }
    }

    /// Whether the round is a voluntary unplayed round (16.1.2).
    #[must_use]
    pub const fn is_voluntary(self) -> bool {
        matches!(
            self,
            UnplayedCategory::RequestedByeBeforePlay
                | UnplayedCategory::ForfeitLoss
                | UnplayedCategory::RequestedByeToTheEnd
        )
    }
}

/// How one round counts for C.07.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// A game over the board (finished, under one move, or not finished yet).
    Game,
    ForfeitWin,
    ForfeitLoss,
    /// Pairing-allocated or full-point bye.
    FreeBye,
    /// Half-point or zero-point bye, or an unpaired round.
    RequestedBye,
}

const fn classify(entry: RoundEntry) -> Class {
    match entry {
        RoundEntry::Paired { outcome: Some(GameOutcome::Forfeit { won: true }), .. } => Class::ForfeitWin,
        RoundEntry::Paired { outcome: Some(GameOutcome::Forfeit { won: false }), .. } => Class::ForfeitLoss,
        RoundEntry::Paired { .. } => Class::Game,
        RoundEntry::Bye(ByeKind::PairingAllocated | ByeKind::FullPoint) => Class::FreeBye,
        RoundEntry::Bye(ByeKind::HalfPoint | ByeKind::ZeroPoint) | RoundEntry::Unpaired => {
            Class::RequestedBye
        }
    }
}

const fn is_vur(class: Class) -> bool {
    matches!(class, Class::ForfeitLoss | Class::RequestedBye)
}

/// One round's element in a participant's Buchholz and Sonneborn-Berger
/// (Article 16 applied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contribution {
    pub round: RoundNumber,
    /// The scheduled opponent, if the round had one (a forfeit has one even
    /// though the dummy stands in).
    pub opponent: Option<StartNumber>,
    /// Whether a dummy (16.4) stands in for the opponent.
    pub dummy: bool,
    /// The opponent's adjusted score (16.3), or the dummy's score (16.4).
    pub opponent_score: Points,
    /// The points the participant scored in the round.
    pub scored: Points,
    /// Whether the round is a voluntary unplayed round (16.1.2).
    pub voluntary_unplayed: bool,
}

/// Table 8.1.1 of the FIDE Rating Regulations: the rating difference dp for
/// a fractional score p = 0.50, 0.51, …, 1.00 (index 0 is p = 0.50); for
/// p < 0.50, dp(p) = −dp(1 − p).
pub const DP_TABLE: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158, 166, 175,
    184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366, 383, 401, 422, 444,
    470, 501, 538, 589, 677, 800,
];

/// dp for a fractional score in hundredths (0..=100).
#[must_use]
pub fn rating_difference(p_hundredths: u8) -> i32 {
    let p = usize::from(p_hundredths.min(100));
    if p >= 50 { DP_TABLE[p - 50] } else { -DP_TABLE[50 - p] }
}

/// `sum / n` rounded to the nearest whole number, 0.5 up (C.07 10.1).
fn rounded_average(sum: i64, n: i64) -> i64 {
    (2 * sum + n).div_euclid(2 * n)
}

/// The crosstable cut after a round, ready for tie-breaks.
#[derive(Clone, Debug)]
pub struct TieBreakTable {
    settings: TieBreakSettings,
    scoring: Scoring,
    rounds: u16,
    numbers: Vec<StartNumber>,
    ratings: Vec<Option<Rating>>,
    entries: Vec<Vec<RoundEntry>>,
    /// Points of each round, by participant.
    round_points: Vec<Vec<Points>>,
    /// Adjustments after each round (index r: those of rounds ≤ r+1 and of
    /// the whole event).
    adjustments: Vec<Vec<Points>>,
}

impl TieBreakTable {
    /// The crosstable cut after round `through` (all rounds with `None`).
    ///
    /// # Errors
    ///
    /// [`TieBreakError::RoundOutOfRange`] beyond the rounds recorded.
    pub fn new(
        table: &Crosstable,
        scoring: &Scoring,
        settings: TieBreakSettings,
        through: Option<RoundNumber>,
    ) -> Result<TieBreakTable, TieBreakError> {
        let rounds = match through {
            Some(r) if r.get() > table.rounds() => {
                return Err(TieBreakError::RoundOutOfRange(r, table.rounds()));
            }
            Some(r) => r.get(),
            None => table.rounds(),
        };
        let participants = table.participants();
        let numbers: Vec<StartNumber> = participants.iter().map(|p| p.number).collect();
        let entries: Vec<Vec<RoundEntry>> = participants
            .iter()
            .map(|p| p.rounds.iter().take(usize::from(rounds)).copied().collect())
            .collect();
        let round_points =
            entries.iter().map(|rs| rs.iter().map(|e| scoring.points(*e)).collect::<Vec<_>>()).collect();
        let adjustments = numbers
            .iter()
            .map(|&n| {
                (1..=rounds)
                    .map(|r| {
                        table
                            .adjustments()
                            .iter()
                            .filter(|a| a.participant == n && a.round.is_none_or(|ar| ar.get() <= r))
                            .map(|a| a.points)
                            .sum()
                    })
                    .collect()
            })
            .collect();
        Ok(TieBreakTable {
            settings,
            scoring: *scoring,
            rounds,
            numbers,
            ratings: participants.iter().map(|p| p.rating).collect(),
            entries,
            round_points,
            adjustments,
        })
    }

    /// The same table with every paired game of the last round counted as a
    /// draw (Fore Buchholz, 8.3).
    fn fore(&self) -> TieBreakTable {
        let mut fore = self.clone();
        if self.rounds == 0 {
            return fore;
        }
        let last = usize::from(self.rounds) - 1;
        for (entries, points) in fore.entries.iter_mut().zip(fore.round_points.iter_mut()) {
            if let RoundEntry::Paired { opponent, color, .. } = entries[last] {
                entries[last] =
                    RoundEntry::Paired { opponent, color, outcome: Some(GameOutcome::Played(Score::Draw)) };
                points[last] = self.scoring.draw;
            }
        }
        fore
    }

    /// The rounds counted (1..=this).
    #[must_use]
    pub const fn rounds(&self) -> u16 {
        self.rounds
    }

    /// The settings.
    #[must_use]
    pub const fn settings(&self) -> TieBreakSettings {
        self.settings
    }

    /// The participants' start numbers, ascending.
    #[must_use]
    pub fn participants(&self) -> &[StartNumber] {
        &self.numbers
    }

    fn index(&self, n: StartNumber) -> Option<usize> {
        self.numbers.binary_search(&n).ok()
    }

    fn index_of(&self, n: StartNumber) -> Result<usize, TieBreakError> {
        self.index(n).ok_or(TieBreakError::UnknownParticipant(n))
    }

    fn score_at(&self, i: usize, rounds: usize) -> Points {
        let games: Points = self.round_points[i].iter().take(rounds).copied().sum();
        let adjusted = if rounds == 0 { Points::ZERO } else { self.adjustments[i][rounds - 1] };
        games + adjusted
    }

    fn score_of(&self, i: usize) -> Points {
        self.score_at(i, usize::from(self.rounds))
    }

    /// A participant's score after the last round counted.
    ///
    /// # Errors
    ///
    /// [`TieBreakError::UnknownParticipant`].
    pub fn points(&self, n: StartNumber) -> Result<Points, TieBreakError> {
        Ok(self.score_of(self.index_of(n)?))
    }

    fn category_at(&self, i: usize, r: usize) -> Option<UnplayedCategory> {
        Some(match classify(self.entries[i][r]) {
            Class::Game => return None,
            Class::FreeBye => UnplayedCategory::PairingAllocatedOrFullPointBye,
            Class::ForfeitWin => UnplayedCategory::ForfeitWin,
            Class::ForfeitLoss => UnplayedCategory::ForfeitLoss,
            Class::RequestedBye => {
                if self.entries[i][r + 1..].iter().all(|e| is_vur(classify(*e))) {
                    UnplayedCategory::RequestedByeToTheEnd
                } else {
                    UnplayedCategory::RequestedByeBeforePlay
                }
            }
        })
    }

    /// The 16.2 category of a participant's round, `None` for a game.
    ///
    /// # Errors
    ///
    /// [`TieBreakError::UnknownParticipant`], [`TieBreakError::RoundOutOfRange`].
    pub fn unplayed_category(
        &self,
        n: StartNumber,
        round: RoundNumber,
    ) -> Result<Option<UnplayedCategory>, TieBreakError> {
        let i = self.index_of(n)?;
        if round.get() > self.rounds {
            return Err(TieBreakError::RoundOutOfRange(round, self.rounds));
        }
        Ok(self.category_at(i, round.index()))
    }

    fn adjusted_of(&self, i: usize) -> Points {
        if self.settings.pairing == PairingSystem::Predetermined {
            return self.score_of(i);
        }
        let rounds = usize::from(self.rounds);
        let mut total = self.score_at(i, rounds);
        for r in 0..rounds {
            if self.category_at(i, r) == Some(UnplayedCategory::RequestedByeToTheEnd) {
                total += Points::from_halves(self.scoring.draw.halves() - self.round_points[i][r].halves());
            }
        }
        total
    }

    /// The score used when the participant is somebody's opponent (16.3).
    ///
    /// # Errors
    ///
    /// [`TieBreakError::UnknownParticipant`].
    pub fn adjusted_score(&self, n: StartNumber) -> Result<Points, TieBreakError> {
        Ok(self.adjusted_of(self.index_of(n)?))
    }

    fn opponent_index(&self, entry: RoundEntry) -> Option<usize> {
        match entry {
            RoundEntry::Paired { opponent, .. } => self.index(opponent),
            _ => None,
        }
    }

    fn contributions_of(&self, i: usize) -> Vec<Contribution> {
        let own = self.score_of(i);
        let predetermined = self.settings.pairing == PairingSystem::Predetermined;
        let mut out = Vec::new();
        for r in 0..usize::from(self.rounds) {
            let entry = self.entries[i][r];
            let class = classify(entry);
            let opponent = self.opponent_index(entry);
            let round = RoundNumber::new(r as u16 + 1).unwrap_or_else(|_| unreachable!());
            let scored = self.round_points[i][r];
            let game = class == Class::Game
                || (predetermined && matches!(class, Class::ForfeitWin | Class::ForfeitLoss));
            if let (true, Some(o)) = (game, opponent) {
                out.push(Contribution {
                    round,
                    opponent: Some(self.numbers[o]),
                    dummy: false,
                    opponent_score: self.adjusted_of(o),
                    scored,
                    voluntary_unplayed: false,
                });
                continue;
            }
            if predetermined {
                continue;
            }
            let dummy = match self.settings.edition {
                Edition::Aug2024 => own,
                Edition::Mar2026 => {
                    let cap = match (class, opponent) {
                        (Class::ForfeitWin | Class::ForfeitLoss, Some(o)) => self.adjusted_of(o),
                        _ => Points::from_halves(self.scoring.draw.halves() * i32::from(self.rounds)),
                    };
                    if own.halves() > cap.halves() { cap } else { own }
                }
            };
            out.push(Contribution {
                round,
                opponent: opponent.map(|o| self.numbers[o]),
                dummy: true,
                opponent_score: dummy,
                scored,
                voluntary_unplayed: is_vur(class),
            });
        }
        out
    }

    /// The rounds of a participant's Buchholz and Sonneborn-Berger, with the
    /// opponent's adjusted score or the dummy's score (Article 16).
    ///
    /// # Errors
    ///
    /// [`TieBreakError::UnknownParticipant`].
    pub fn contributions(&self, n: StartNumber) -> Result<Vec<Contribution>, TieBreakError> {
        Ok(self.contributions_of(self.index_of(n)?))
    }

    fn check(&self, tb: TieBreak) -> Result<(), TieBreakError> {
        let edition = self.settings.edition;
        if !tb.defined_in(edition) {
            return Err(TieBreakError::NotInEdition { tie_break: tb, edition });
        }
        if let TieBreak::ProgressiveScores(Modifier::Median(_)) = tb {
            return Err(TieBreakError::InvalidModifier(tb));
        }
        if tb.is_rating_based()
            && self.settings.unrated_rating.is_none()
            && let Some(i) = self.ratings.iter().position(Option::is_none)
        {
            return Err(TieBreakError::UnratedParticipants(self.numbers[i]));
        }
        Ok(())
    }

    /// The value of `tb` for every participant, by start number. DE is
    /// evaluated inside each group of participants with equal points (its
    /// value is the rank inside the group); [`TieBreakTable::direct_encounter`]
    /// takes any group. `None`: no value (for example ARO without a game
    /// over the board), ranked after every value.
    ///
    /// # Errors
    ///
    /// [`TieBreakError::NotInEdition`], [`TieBreakError::InvalidModifier`],
    /// [`TieBreakError::UnratedParticipants`].
    pub fn values(&self, tb: TieBreak) -> Result<Vec<(StartNumber, Option<Value>)>, TieBreakError> {
        self.check(tb)?;
        if tb == TieBreak::DirectEncounter {
            let mut out: Vec<(StartNumber, Option<Value>)> =
                self.numbers.iter().map(|&n| (n, None)).collect();
            let mut by_points: Vec<(Points, StartNumber)> =
                (0..self.numbers.len()).map(|i| (self.score_of(i), self.numbers[i])).collect();
            by_points.sort();
            for group in by_points.chunk_by(|a, b| a.0 == b.0) {
                let members: Vec<StartNumber> = group.iter().map(|g| g.1).collect();
                for (n, rank) in self.direct_encounter(&members)? {
                    if let Some(i) = self.index(n) {
                        out[i].1 = Some(Value::integer(i64::from(rank)));
                    }
                }
            }
            return Ok(out);
        }
        let ctx = Context::new(self, tb);
        Ok((0..self.numbers.len()).map(|i| (self.numbers[i], ctx.value(self, tb, i))).collect())
    }

    /// The value of `tb` for one participant (DE: see [`TieBreakTable::values`]).
    ///
    /// # Errors
    ///
    /// As [`TieBreakTable::values`], and [`TieBreakError::UnknownParticipant`].
    pub fn value(&self, tb: TieBreak, n: StartNumber) -> Result<Option<Value>, TieBreakError> {
        let i = self.index_of(n)?;
        if tb == TieBreak::DirectEncounter {
            return Ok(self.values(tb)?[i].1);
        }
        self.check(tb)?;
        Ok(Context::new(self, tb).value(self, tb, i))
    }

    /// Article 6 on `group`: each member with their rank inside the group
    /// (1 = first; equal ranks stay tied), in ranking order.
    ///
    /// # Errors
    ///
    /// [`TieBreakError::UnknownParticipant`].
    pub fn direct_encounter(&self, group: &[StartNumber]) -> Result<Vec<(StartNumber, u16)>, TieBreakError> {
        let members = group.iter().map(|&n| self.index_of(n)).collect::<Result<Vec<_>, _>>()?;
        let classes = self.de_classes(members);
        let mut out = Vec::new();
        let mut placed = 0u16;
        for class in classes {
            let rank = placed + 1;
            for &i in &class {
                out.push((self.numbers[i], rank));
            }
            placed += class.len() as u16;
        }
        Ok(out)
    }

    /// The average points of `a` against `b` (6.1.2) in the games that count
    /// for DE, as (numerator in half points, number of games).
    fn encounter(&self, a: usize, b: usize) -> Option<(i64, i64)> {
        let forfeits = self.settings.forfeits_in_direct_encounter
            || self.settings.pairing == PairingSystem::Predetermined;
        let mut halves = 0i64;
        let mut games = 0i64;
        for (r, entry) in self.entries[a].iter().enumerate() {
            let RoundEntry::Paired { opponent, outcome: Some(outcome), .. } = *entry else { continue };
            if self.index(opponent) != Some(b) {
                continue;
            }
            if matches!(outcome, GameOutcome::Forfeit { .. }) && !forfeits {
                continue;
            }
            halves += i64::from(self.round_points[a][r].halves());
            games += 1;
        }
        (games > 0).then_some((halves, games))
    }

    fn de_classes(&self, mut group: Vec<usize>) -> Vec<Vec<usize>> {
        group.sort_unstable();
        if group.len() <= 1 {
            return vec![group];
        }
        let n = group.len();
        // Separate standings as exact fractions (in half points).
        let mut score = vec![Value::integer(0); n];
        let mut missing = vec![0i64; n];
        for (x, &a) in group.iter().enumerate() {
            let mut total = Value::integer(0);
            for &b in &group {
                if a == b {
                    continue;
                }
                match self.encounter(a, b) {
                    Some((halves, games)) => {
                        total = Value::new(
                            total.numerator * games + halves * total.denominator,
                            total.denominator * games,
                        );
                    }
                    None => missing[x] += 1,
                }
            }
            score[x] = total;
        }
        if missing.iter().all(|&m| m == 0) {
            // 6.2: order by the separate standings, then 6 again on ties.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&x, &y| score[y].cmp(&score[x]).then(group[x].cmp(&group[y])));
            let mut classes = Vec::new();
            for tied in order.chunk_by(|&x, &y| score[x] == score[y]) {
                let members: Vec<usize> = tied.iter().map(|&x| group[x]).collect();
                if members.len() < n {
                    classes.extend(self.de_classes(members));
                } else {
                    classes.push(members);
                }
            }
            return classes;
        }
        if self.settings.pairing != PairingSystem::Swiss {
            return vec![group];
        }
        // 6.3: alone at the top whatever the outcome of the missing games.
        let win = i64::from(self.scoring.win.halves());
        let mut remaining: Vec<usize> = (0..n).collect();
        let mut classes = Vec::new();
        loop {
            let top = remaining.iter().copied().find(|&x| {
                remaining.iter().all(|&y| {
                    y == x
                        || score[x]
                            > Value::new(
                                score[y].numerator + missing[y] * win * score[y].denominator,
                                score[y].denominator,
                            )
                })
            });
            match top {
                Some(x) if remaining.len() > 1 => {
                    classes.push(vec![group[x]]);
                    remaining.retain(|&y| y != x);
                }
                _ => break,
            }
        }
        let rest: Vec<usize> = remaining.iter().map(|&x| group[x]).collect();
        if rest.len() < n {
            classes.extend(self.de_classes(rest));
        } else {
            classes.push(rest);
        }
        classes
    }
}

/// Values shared by all participants for one tie-break (opponents' Buchholz,
/// performances).
struct Context {
    /// BH of everyone (for AOB), or the Fore table (for FB).
    buchholz: Vec<Value>,
    fore: Option<TieBreakTable>,
    performance: Vec<Option<i64>>,
}

impl Context {
    fn new(t: &TieBreakTable, tb: TieBreak) -> Context {
        let mut ctx = Context { buchholz: Vec::new(), fore: None, performance: Vec::new() };
        match tb {
            TieBreak::AverageOfOpponentsBuchholz => {
                ctx.buchholz = (0..t.numbers.len())
                    .map(|i| cut_sum(t, &t.contributions_of(i), false, Modifier::None))
                    .collect();
            }
            TieBreak::ForeBuchholz(_) => ctx.fore = Some(t.fore()),
            TieBreak::AveragePerformanceRatingOfOpponents => {
                ctx.performance = (0..t.numbers.len()).map(|i| tpr(t, i)).collect();
            }
            TieBreak::AveragePerfectPerformanceOfOpponents => {
                ctx.performance = (0..t.numbers.len()).map(|i| ptp(t, i)).collect();
            }
            _ => {}
        }
        ctx
    }

    fn value(&self, t: &TieBreakTable, tb: TieBreak, i: usize) -> Option<Value> {
        let count = |f: &dyn Fn(RoundEntry, Points) -> bool| {
            let n = t.entries[i].iter().zip(&t.round_points[i]).filter(|(e, p)| f(**e, **p)).count();
            Some(Value::integer(n as i64))
        };
        let win = t.scoring.win;
        match tb {
            TieBreak::DirectEncounter => None,
            TieBreak::Wins => count(&|_, p| p == win),
            TieBreak::GamesWon => count(&|e, _| over_the_board(e).is_some_and(|(_, s)| s == Score::Win)),
            TieBreak::GamesWithBlack => {
                count(&|e, _| over_the_board(e).is_some_and(|(c, _)| c == Some(Color::Black)))
            }
            TieBreak::WinsWithBlack => count(&|e, _| {
                over_the_board(e).is_some_and(|(c, s)| c == Some(Color::Black) && s == Score::Win)
            }),
            TieBreak::RoundsElectedToPlay => {
                let lost = t.entries[i]
                    .iter()
                    .filter(|e| matches!(classify(**e), Class::ForfeitLoss | Class::RequestedBye))
                    .count();
                Some(Value::integer(i64::from(t.rounds) - lost as i64))
            }
            TieBreak::ProgressiveScores(m) => {
                let total: i64 = (1..=usize::from(t.rounds))
                    .skip(m.low())
                    .map(|r| i64::from(t.score_at(i, r).halves()))
                    .sum();
                Some(Value::new(total, 2))
            }
            TieBreak::StandardPoints => {
                let draw = t.scoring.draw;
                let mut halves = 0i64;
                for (r, entry) in t.entries[i].iter().enumerate() {
                    let own = t.round_points[i][r];
                    let other = match *entry {
                        RoundEntry::Paired { outcome: None, .. } => continue,
                        RoundEntry::Paired { opponent, .. } => match t.index(opponent) {
                            Some(o) => t.round_points[o][r],
                            None => continue,
                        },
                        _ => draw,
                    };
                    halves += match own.cmp(&other) {
                        Ordering::Greater => 2,
                        Ordering::Equal => 1,
                        Ordering::Less => 0,
                    };
                }
                Some(Value::new(halves, 2))
            }
            TieBreak::TournamentPairingNumber => Some(Value::integer(i64::from(t.numbers[i].get()))),
            TieBreak::Rating => rating_of(t, i).map(|r| Value::integer(i64::from(r.get()))),
            TieBreak::Buchholz(m) => Some(cut_sum(t, &t.contributions_of(i), false, m)),
            TieBreak::SonnebornBerger(m) => Some(cut_sum(t, &t.contributions_of(i), true, m)),
            TieBreak::ForeBuchholz(m) => {
                let fore = self.fore.as_ref()?;
                Some(cut_sum(fore, &fore.contributions_of(i), false, m))
            }
            TieBreak::AverageOfOpponentsBuchholz => {
                let opponents = otb_opponents(t, i);
                if opponents.is_empty() {
                    return None;
                }
                let mut total = Value::integer(0);
                for &o in &opponents {
                    let b = self.buchholz[o];
                    total = Value::new(
                        total.numerator * b.denominator + b.numerator * total.denominator,
                        total.denominator * b.denominator,
                    );
                }
                Some(Value::new(total.numerator, total.denominator * opponents.len() as i64))
            }
            TieBreak::Koya { limit } => {
                let predetermined = t.settings.pairing == PairingSystem::Predetermined;
                // Opponent score ≥ (win × rounds) / 2 + limit, in half points × 2.
                let threshold = i64::from(win.halves()) * i64::from(t.rounds) + 2 * i64::from(limit.halves());
                let mut halves = 0i64;
                for (r, entry) in t.entries[i].iter().enumerate() {
                    let class = classify(*entry);
                    let counts = class == Class::Game
                        || (predetermined && matches!(class, Class::ForfeitWin | Class::ForfeitLoss));
                    let Some(o) = t.opponent_index(*entry) else { continue };
                    if counts && 2 * i64::from(t.score_of(o).halves()) >= threshold {
                        halves += i64::from(t.round_points[i][r].halves());
                    }
                }
                Some(Value::new(halves, 2))
            }
            TieBreak::AverageRatingOfOpponents(m) => {
                let mut ratings: Vec<i64> = otb_opponents(t, i)
                    .iter()
                    .filter_map(|&o| rating_of(t, o))
                    .map(|r| i64::from(r.get()))
                    .collect();
                ratings.sort_unstable();
                let keep = ratings.len().saturating_sub(m.low() + m.high());
                let kept: Vec<i64> = ratings.into_iter().skip(m.low()).take(keep).collect();
                if kept.is_empty() {
                    return None;
                }
                Some(Value::integer(rounded_average(kept.iter().sum(), kept.len() as i64)))
            }
            TieBreak::TournamentPerformanceRating => tpr(t, i).map(Value::integer),
            TieBreak::PerfectTournamentPerformance => ptp(t, i).map(Value::integer),
            TieBreak::AveragePerformanceRatingOfOpponents
            | TieBreak::AveragePerfectPerformanceOfOpponents => {
                let values: Vec<i64> =
                    otb_opponents(t, i).iter().filter_map(|&o| self.performance[o]).collect();
                if values.is_empty() {
                    return None;
                }
                Some(Value::integer(rounded_average(values.iter().sum(), values.len() as i64)))
            }
        }
    }
}

/// The colour and score of a finished game over the board.
fn over_the_board(entry: RoundEntry) -> Option<(Option<Color>, Score)> {
    match entry {
        RoundEntry::Paired {
            color,
            outcome: Some(o @ (GameOutcome::Played(_) | GameOutcome::UnderOneMove(_))),
            ..
        } => Some((color, o.score())),
        _ => None,
    }
}

fn rating_of(t: &TieBreakTable, i: usize) -> Option<Rating> {
    t.ratings[i].or(t.settings.unrated_rating)
}

/// The opponents of finished games over the board, once per game (4.4).
fn otb_opponents(t: &TieBreakTable, i: usize) -> Vec<usize> {
    t.entries[i]
        .iter()
        .filter(|e| over_the_board(**e).is_some())
        .filter_map(|e| t.opponent_index(*e))
        .collect()
}

/// The games over the board: (opponent's rating, score in hundredths).
fn rated_results(t: &TieBreakTable, i: usize) -> Vec<(i64, i64)> {
    t.entries[i]
        .iter()
        .filter_map(|e| {
            let (_, score) = over_the_board(*e)?;
            let o = t.opponent_index(*e)?;
            Some((i64::from(rating_of(t, o)?.get()), score.rating_hundredths()))
        })
        .collect()
}

fn tpr(t: &TieBreakTable, i: usize) -> Option<i64> {
    let games = rated_results(t, i);
    if games.is_empty() {
        return None;
    }
    let n = games.len() as i64;
    let aro = rounded_average(games.iter().map(|g| g.0).sum(), n);
    let p = rounded_average(games.iter().map(|g| g.1).sum(), n);
    Some(aro + i64::from(rating_difference(u8::try_from(p.clamp(0, 100)).unwrap_or(100))))
}

fn ptp(t: &TieBreakTable, i: usize) -> Option<i64> {
    let games = rated_results(t, i);
    let lowest = games.iter().map(|g| g.0).min()?;
    let highest = games.iter().map(|g| g.0).max()?;
    let score: i64 = games.iter().map(|g| g.1).sum();
    if score == 0 {
        return Some(lowest - 800);
    }
    let expected = |r: i64| -> i64 {
        games
            .iter()
            .map(|g| i64::from(expected_score(i32::try_from(r - g.0).unwrap_or(i32::MAX)).hundredths()))
            .sum()
    };
    // Expected scores grow with the rating; at highest + 736 every game is 1.00.
    let (mut low, mut high) = (lowest - 801, highest + 736);
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if expected(mid) >= score { high = mid } else { low = mid }
    }
    Some(high)
}

/// The sum of the contributions (opponent scores for BH, products for SB)
/// after the cuts of `m` with the rule of 16.5, as a [`Value`].
fn cut_sum(t: &TieBreakTable, contributions: &[Contribution], sonneborn: bool, m: Modifier) -> Value {
    // (opponent score in half points, contribution in quarter points, VUR)
    let mut items: Vec<(i64, i64, bool)> = contributions
        .iter()
        .map(|c| {
            let score = i64::from(c.opponent_score.halves());
            let value = if sonneborn { score * i64::from(c.scored.halves()) } else { 2 * score };
            (score, value, c.voluntary_unplayed)
        })
        .collect();
    let vur_rule = t.settings.pairing == PairingSystem::Swiss;
    for _ in 0..m.low() {
        let Some(least) = (0..items.len()).min_by_key(|&k| (items[k].0, items[k].1)) else { break };
        let vur = (0..items.len()).filter(|&k| items[k].2).min_by_key(|&k| items[k].1);
        let cut = match vur {
            Some(v) if vur_rule && items[v].1 >= items[least].1 => v,
            _ => least,
        };
        items.remove(cut);
    }
    for _ in 0..m.high() {
        let Some(most) = (0..items.len()).max_by_key(|&k| (items[k].0, items[k].1)) else { break };
        items.remove(most);
    }
    Value::new(items.iter().map(|x| x.1).sum(), 4)
}

/// `tb` for every participant of `table` after round `through` (all rounds
/// with `None`).
///
/// # Errors
///
/// As [`TieBreakTable::new`] and [`TieBreakTable::values`].
pub fn compute(
    table: &Crosstable,
    scoring: &Scoring,
    settings: TieBreakSettings,
    tb: TieBreak,
    through: Option<RoundNumber>,
) -> Result<Vec<(StartNumber, Option<Value>)>, TieBreakError> {
    TieBreakTable::new(table, scoring, settings, through)?.values(tb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_exact_and_ordered() {
        assert_eq!(Value::new(6, 4), Value::new(3, 2));
        assert_eq!(Value::new(71, 8).to_string(), "8.875");
        assert_eq!(Value::new(-7, 1).to_string(), "-7");
        assert_eq!(Value::new(1, 3).to_string(), "1/3");
        assert!(Value::new(1, 3) < Value::new(34, 100));
        assert_eq!(Value::new(5, 2).as_points(), Some(Points::from_halves(5)));
        assert_eq!(Value::new(5, 4).as_points(), None);
    }

    #[test]
    fn rounding_and_dp_table() {
        assert_eq!(rounded_average(8150, 4), 2038);
        assert_eq!(rounded_average(6050, 3), 2017);
        assert_eq!(rounded_average(-3, 2), -1);
        assert_eq!(rating_difference(100), 800);
        assert_eq!(rating_difference(44), -43);
        assert_eq!(rating_difference(50), 0);
        assert_eq!(rating_difference(0), -800);
    }

    #[test]
    fn codes() {
        assert_eq!(TieBreak::Buchholz(Modifier::CUT1).to_string(), "BH/C1");
        assert_eq!(TieBreak::SonnebornBerger(Modifier::MEDIAN1).to_string(), "SB/M1");
        assert_eq!(TieBreak::Koya { limit: Points::HALF }.to_string(), "KS/L+1");
        assert_eq!(Edition::in_force_on(2026, 2, 28), Some(Edition::Aug2024));
        assert_eq!(Edition::in_force_on(2026, 3, 1), Some(Edition::Mar2026));
        assert_eq!(Edition::in_force_on(2024, 7, 31), None);
    }
}
