//! Standings after each round: points, the event's list of tie-breaks
//! ([`crate::tiebreak`]), FIDE rating changes per game and CN-16 grade points
//! accumulated game by game.
//!
//! # Ranking (C.07 4.2)
//!
//! Participants are ordered by points, then "in the order specified by the
//! respective tie-break, starting from the first specified tie-break and
//! moving to the next in the list for each subgroup of participants still
//! tied" (the 2026 wording of 4.2; the 2024 text says the same). Direct
//! Encounter (a Type A tie-break) is evaluated inside each subgroup still
//! tied when it is reached, so it may appear several times in the list.
//! Participants still tied when the list is exhausted share the rank
//! (competition ranking: 1, 1, 3); drawing of lots is left to the caller.
//! Inside a shared rank rows are listed by start number.
//!
//! # FIDE rating change (Rating Regulations B02, via `arbiter_laws::scoring`)
//!
//! For each game rated under 5.1 (a [`GameOutcome::Played`] game: forfeits
//! and games under one move are not rated) between two rated participants,
//! K × ΔR from [`rating_change`] with the participant's K (given per
//! participant in [`RatingConfig`], or its default), the opponent's rating
//! and the rules in force ([`FideRatingRules`]); games that the rapid and
//! blitz gap rule leaves unrated are skipped. The total is the exact sum;
//! 8.3.4 rounds it once ([`RatingReport::rounded`]). K is taken as given: the
//! 700 rule of 8.3.3 applies to a rating period, not an event, and is left
//! to the caller ([`arbiter_laws::scoring::KFactor::limited_for_games`]).
//!
//! # CN-16 grade points (not FIDE; decision DEC-15 in `arbiter_laws`)
//!
//! Grade points move game by game in round order from each participant's
//! starting grade points ([`GradeConfig`]): before each round both players
//! hold the totals reached after the previous round, and
//! [`cn16_grade_changes`] gives the zero-sum transfer. Choice made here (the
//! seed documents are silent): only games played over the board with both
//! players having moved ([`GameOutcome::Played`], the games FIDE rates) move
//! grade points; forfeits, byes, unpaired rounds and games under one move
//! move nothing. A game where one player has no starting grade points moves
//! nothing for either. A played result that is not zero-sum (0-0 under
//! Law 11.8, an adjusted ½-0) has no CN-16 amount and moves nothing.

use std::collections::BTreeMap;

use arbiter_chess::Color;
use arbiter_laws::scoring::{
    FideRatingRules, GradePoints, KFactor, Points, Rating, RatingDelta, Score, ScoringError,
    cn16_grade_changes, rating_change,
};

use crate::crosstable::{Crosstable, GameOutcome, RoundEntry, RoundNumber, Scoring, StartNumber};
use crate::tiebreak::{TieBreak, TieBreakError, TieBreakSettings, TieBreakTable, Value};

/// The K factors and rules for the rating report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingConfig {
    /// The rules of the rating list (400-point rule, gap rule).
    pub rules: FideRatingRules,
    /// K of participants who have their own (from `k_factor` or the list).
    pub k_factors: BTreeMap<StartNumber, KFactor>,
    /// K of every other rated participant; `None`: no report for them.
    pub default_k: Option<KFactor>,
}

impl RatingConfig {
    fn k(&self, n: StartNumber) -> Option<KFactor> {
        self.k_factors.get(&n).copied().or(self.default_k)
    }
}

/// Starting CN-16 grade points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GradeConfig {
    pub starting: BTreeMap<StartNumber, GradePoints>,
}

/// What a standings table is computed with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StandingsConfig {
    pub scoring: Scoring,
    /// The ordered tie-break list (C.07 4.1).
    pub tie_breaks: Vec<TieBreak>,
    pub settings: TieBreakSettings,
    /// FIDE rating changes, if wanted.
    pub rating: Option<RatingConfig>,
    /// CN-16 grade points, if wanted.
    pub grades: Option<GradeConfig>,
}

/// One rated game of a participant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedGame {
    pub round: RoundNumber,
    pub opponent: StartNumber,
    pub opponent_rating: Rating,
    pub score: Score,
    /// K × ΔR of this game, exact.
    pub change: RatingDelta,
}

/// A participant's rating report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingReport {
    pub rating: Rating,
    pub k: KFactor,
    pub games: Vec<RatedGame>,
    /// The exact sum of the games' changes.
    pub total: RatingDelta,
}

impl RatingReport {
    /// The total rounded as 8.3.4 says.
    #[must_use]
    pub const fn rounded(&self) -> i64 {
        self.total.rounded()
    }
}

/// One game that moved a participant's grade points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GradeGame {
    pub round: RoundNumber,
    pub opponent: StartNumber,
    /// The participant's grade points before the game.
    pub before: GradePoints,
    pub change: GradePoints,
}

/// A participant's CN-16 grade points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradeReport {
    pub starting: GradePoints,
    pub games: Vec<GradeGame>,
    pub current: GradePoints,
}

/// One row of a standings table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StandingRow {
    /// 1-based; equal for participants tied on points and every tie-break.
    pub rank: u16,
    pub number: StartNumber,
    pub points: Points,
    /// One value per tie-break of the list (DE: the rank inside the group of
    /// participants tied when DE was reached; `None` when not reached or
    /// undefined).
    pub tie_breaks: Vec<Option<Value>>,
    pub rating: Option<RatingReport>,
    pub grades: Option<GradeReport>,
}

/// The standings after a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    pub after_round: RoundNumber,
    pub tie_breaks: Vec<TieBreak>,
    pub rows: Vec<StandingRow>,
}

impl Standings {
    /// The row of a participant.
    #[must_use]
    pub fn row(&self, n: StartNumber) -> Option<&StandingRow> {
        self.rows.iter().find(|r| r.number == n)
    }
}

/// Why standings cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StandingsError {
    #[error(transparent)]
    TieBreak(#[from] TieBreakError),
    #[error(transparent)]
    Scoring(#[from] ScoringError),
}

/// The standings after round `after`.
///
/// # Errors
///
/// [`StandingsError::TieBreak`] when a tie-break cannot be computed (not in
/// the edition, unrated participants, round out of range);
/// [`StandingsError::Scoring`] when grade points overflow.
pub fn standings(
    table: &Crosstable,
    config: &StandingsConfig,
    after: RoundNumber,
) -> Result<Standings, StandingsError> {
    let tt = TieBreakTable::new(table, &config.scoring, config.settings, Some(after))?;
    let numbers = tt.participants().to_vec();
    let count = numbers.len();
    let points: Vec<Points> = numbers.iter().map(|&n| tt.points(n)).collect::<Result<_, _>>()?;
    let mut values: Vec<Vec<Option<Value>>> = vec![vec![None; config.tie_breaks.len()]; count];

    // Groups of indices still tied, in ranking order.
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| points[b].cmp(&points[a]).then(numbers[a].cmp(&numbers[b])));
    let mut groups: Vec<Vec<usize>> =
        order.chunk_by(|&a, &b| points[a] == points[b]).map(<[usize]>::to_vec).collect();

    for (k, &tb) in config.tie_breaks.iter().enumerate() {
        let all = if tb == TieBreak::DirectEncounter { None } else { Some(tt.values(tb)?) };
        let mut next = Vec::new();
        for group in groups {
            if tb == TieBreak::DirectEncounter {
                let members: Vec<StartNumber> = group.iter().map(|&i| numbers[i]).collect();
                let ranks = tt.direct_encounter(&members)?;
                for (n, rank) in ranks {
                    if let Ok(i) = numbers.binary_search(&n) {
                        values[i][k] = Some(Value::integer(i64::from(rank)));
                    }
                }
            } else if let Some(all) = &all {
                for &i in &group {
                    values[i][k] = all[i].1;
                }
            }
            let mut sorted = group.clone();
            let key = |i: usize| values[i][k];
            sorted.sort_by(|&a, &b| {
                compare(key(a), key(b), tb.higher_is_better()).then(numbers[a].cmp(&numbers[b]))
            });
            next.extend(sorted.chunk_by(|&a, &b| key(a) == key(b)).map(<[usize]>::to_vec));
        }
        groups = next;
        // Values of participants alone in their group stay visible: fill the
        // tie-break for everyone (DE only for groups reached).
        if let Some(all) = &all {
            for (i, row) in values.iter_mut().enumerate() {
                row[k] = all[i].1;
            }
        }
    }

    let ratings = match &config.rating {
        Some(rc) => rating_reports(table, rc, after),
        None => BTreeMap::new(),
    };
    let grades = match &config.grades {
        Some(gc) => grade_reports(table, gc, after)?,
        None => BTreeMap::new(),
    };

    let mut rows = Vec::with_capacity(count);
    let mut placed = 0u16;
    for group in groups {
        let rank = placed + 1;
        for &i in &group {
            rows.push(StandingRow {
                rank,
                number: numbers[i],
                points: points[i],
                tie_breaks: values[i].clone(),
                rating: ratings.get(&numbers[i]).cloned(),
                grades: grades.get(&numbers[i]).cloned(),
            });
        }
        placed += group.len() as u16;
    }
    Ok(Standings { after_round: after, tie_breaks: config.tie_breaks.clone(), rows })
}

/// The standings after every round recorded, round 1 first.
///
/// # Errors
///
/// As [`standings`].
pub fn standings_by_round(
    table: &Crosstable,
    config: &StandingsConfig,
) -> Result<Vec<Standings>, StandingsError> {
    (1..=table.rounds())
        .filter_map(|r| RoundNumber::new(r).ok())
        .map(|r| standings(table, config, r))
        .collect()
}

/// Order of two tie-break values, better first; `None` last.
fn compare(a: Option<Value>, b: Option<Value>, higher_is_better: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Some(x), Some(y)) => {
            if higher_is_better {
                y.cmp(&x)
            } else {
                x.cmp(&y)
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The rated games of each rated participant with a K factor, rounds 1..=after.
fn rating_reports(
    table: &Crosstable,
    config: &RatingConfig,
    after: RoundNumber,
) -> BTreeMap<StartNumber, RatingReport> {
    let mut out = BTreeMap::new();
    for p in table.participants() {
        let (Some(rating), Some(k)) = (p.rating, config.k(p.number)) else { continue };
        let mut games = Vec::new();
        for (index, entry) in p.rounds.iter().enumerate().take(after.index() + 1) {
            let RoundEntry::Paired { opponent, outcome: Some(GameOutcome::Played(score)), .. } = *entry
            else {
                continue;
            };
            let Some(opponent_rating) = table.participant(opponent).and_then(|o| o.rating) else { continue };
            let Ok(change) = rating_change(rating, opponent_rating, score, k, &config.rules) else {
                continue;
            };
            let round = RoundNumber::new(index as u16 + 1).unwrap_or(after);
            games.push(RatedGame { round, opponent, opponent_rating, score, change });
        }
        let total = games.iter().map(|g| g.change).sum();
        out.insert(p.number, RatingReport { rating, k, games, total });
    }
    out
}

/// CN-16 grade points, game by game in round order, rounds 1..=after.
fn grade_reports(
    table: &Crosstable,
    config: &GradeConfig,
    after: RoundNumber,
) -> Result<BTreeMap<StartNumber, GradeReport>, StandingsError> {
    let mut out: BTreeMap<StartNumber, GradeReport> = config
        .starting
        .iter()
        .filter(|(n, _)| table.participant(**n).is_some())
        .map(|(&n, &g)| (n, GradeReport { starting: g, games: Vec::new(), current: g }))
        .collect();
    for r in 1..=after.get() {
        let Ok(round) = RoundNumber::new(r) else { continue };
        let mut moves: Vec<(StartNumber, GradeGame)> = Vec::new();
        for p in table.participants() {
            let RoundEntry::Paired { opponent, color, outcome: Some(GameOutcome::Played(score)) } =
                p.round(round)
            else {
                continue;
            };
            // Each game once: from the side listed as White (or the lower
            // start number when no colour is recorded).
            let is_white = match color {
                Some(c) => c == Color::White,
                None => p.number < opponent,
            };
            if !is_white {
                continue;
            }
            let Some(other) = table.participant(opponent) else { continue };
            let RoundEntry::Paired { outcome: Some(GameOutcome::Played(other_score)), .. } =
                other.round(round)
            else {
                continue;
            };
            let (Some(white), Some(black)) = (out.get(&p.number), out.get(&opponent)) else { continue };
            let (wc, bc) = match cn16_grade_changes(white.current, black.current, (score, other_score)) {
                Ok(changes) => changes,
                Err(ScoringError::NotZeroSum { .. }) => continue,
                Err(e) => return Err(e.into()),
            };
            moves.push((p.number, GradeGame { round, opponent, before: white.current, change: wc }));
            moves
                .push((opponent, GradeGame { round, opponent: p.number, before: black.current, change: bc }));
        }
        for (n, game) in moves {
            if let Some(report) = out.get_mut(&n) {
                report.current =
                    report.current.checked_add(game.change).ok_or(ScoringError::GradePointsOverflow)?;
                report.games.push(game);
            }
        }
    }
    Ok(out)
}
