//! The event's records as the tournament crate's configuration: tie-breaks
//! with their modifiers and edition, the rating and grade-point reports.

use std::collections::BTreeMap;

use arbiter_laws::scoring::{
    CalendarDate, FideRatingRules, GradePoints, KFactor, Points, Rating, RatingCategory,
};
use arbiter_laws::time_control::Category;
use arbiter_tournament::StartNumber;
use arbiter_tournament::standings::{GradeConfig, RatingConfig, StandingsConfig};
use arbiter_tournament::tiebreak::{Edition, Modifier, TieBreak, TieBreakSettings};

use super::record;

/// The tie-break a record names, with its modifiers checked (C.07 14: Cut
/// and Median apply to BH, FB and SB; Cut also to PS and ARO; Limit to KS).
///
/// # Errors
/// Why the modifiers do not fit the tie-break, in words.
pub fn tie_break(t: &record::TieBreak) -> Result<TieBreak, String> {
    use record::TieBreakKind as K;
    let modifier = match (t.cut, t.median) {
        (0, 0) => Modifier::None,
        (n, 0) => Modifier::Cut(n),
        (0, n) => Modifier::Median(n),
        _ => return Err("give either `cut` or `median`, not both".to_owned()),
    };
    let cuttable = matches!(
        t.kind,
        K::Buchholz
            | K::ForeBuchholz
            | K::SonnebornBerger
            | K::ProgressiveScores
            | K::AverageRatingOfOpponents
    );
    if modifier != Modifier::None && !cuttable {
        return Err(format!("{:?} takes no Cut or Median modifier (C.07 14)", t.kind));
    }
    if matches!(modifier, Modifier::Median(_))
        && matches!(t.kind, K::ProgressiveScores | K::AverageRatingOfOpponents)
    {
        return Err(format!("{:?} takes Cut only, not Median (C.07 14)", t.kind));
    }
    if t.koya_limit != 0 && t.kind != K::Koya {
        return Err("only KS takes a limit (C.07 14.5)".to_owned());
    }
    Ok(match t.kind {
        K::DirectEncounter => TieBreak::DirectEncounter,
        K::Wins => TieBreak::Wins,
        K::GamesWon => TieBreak::GamesWon,
        K::GamesWithBlack => TieBreak::GamesWithBlack,
        K::WinsWithBlack => TieBreak::WinsWithBlack,
        K::ProgressiveScores => TieBreak::ProgressiveScores(modifier),
        K::RoundsElectedToPlay => TieBreak::RoundsElectedToPlay,
        K::StandardPoints => TieBreak::StandardPoints,
        K::TournamentPairingNumber => TieBreak::TournamentPairingNumber,
        K::Buchholz => TieBreak::Buchholz(modifier),
        K::AverageOfOpponentsBuchholz => TieBreak::AverageOfOpponentsBuchholz,
        K::ForeBuchholz => TieBreak::ForeBuchholz(modifier),
        K::SonnebornBerger => TieBreak::SonnebornBerger(modifier),
        K::Koya => TieBreak::Koya { limit: Points::from_halves(t.koya_limit) },
        K::AverageRatingOfOpponents => TieBreak::AverageRatingOfOpponents(modifier),
        K::TournamentPerformanceRating => TieBreak::TournamentPerformanceRating,
        K::PerfectTournamentPerformance => TieBreak::PerfectTournamentPerformance,
        K::AveragePerformanceRatingOfOpponents => TieBreak::AveragePerformanceRatingOfOpponents,
        K::AveragePerfectPerformanceOfOpponents => TieBreak::AveragePerfectPerformanceOfOpponents,
        K::Rating => TieBreak::Rating,
    })
}

/// The edition of the records.
#[must_use]
pub const fn edition(e: record::Edition) -> Edition {
    match e {
        record::Edition::August2024 => Edition::Aug2024,
        record::Edition::March2026 => Edition::Mar2026,
    }
}

/// `YYYY/MM/DD`, if it is a date: (year, month, day).
fn date(text: &str) -> Option<(u16, u8, u8)> {
    let mut parts = text.split('/');
    let (y, m, d) = (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    CalendarDate::new(y, m, d).ok().map(|_| (y, m, d))
}

/// The day the event's rules are taken from: its start date, or the UTC day
/// of `now_wall_ms` without one.
fn event_day(start_date: &str, now_wall_ms: i64) -> (u16, u8, u8) {
    date(start_date).unwrap_or_else(|| match crate::pgn::utc_date(now_wall_ms.div_euclid(1000)) {
        Some((y, m, d)) => (u16::try_from(y).unwrap_or(u16::MAX), m, d),
        // Not a date prost-types writes: the latest edition's rules.
        None => (u16::MAX, 1, 1),
    })
}

/// The edition of C.07 in force on the event's first day (the 2024 text
/// before 1 March 2026, and for events before 2024 too: older texts are not
/// modelled).
#[must_use]
pub fn edition_in_force(start_date: &str, now_wall_ms: i64) -> record::Edition {
    let (y, m, d) = event_day(start_date, now_wall_ms);
    match Edition::in_force_on(y, m, d) {
        Some(Edition::Mar2026) => record::Edition::March2026,
        _ => record::Edition::August2024,
    }
}

/// Checks the event's tie-break list against its edition.
///
/// # Errors
/// The first tie-break its edition does not define, in words.
pub fn check_list(t: &record::Tournament) -> Result<(), String> {
    let e = edition(t.edition);
    for tb in &t.tie_breaks {
        let tb = tie_break(tb)?;
        if !tb.defined_in(e) {
            return Err(format!("{tb} is not defined in {e}"));
        }
    }
    Ok(())
}

/// K for a participant: the one given, else 8.3.3 for an established adult
/// (10 from 2400, 20 below). Juniors and players new to the list need theirs
/// given (`Participant.k_factor`): the event does not know their history.
fn k_of(p: &record::Participant) -> KFactor {
    match p.k_factor {
        0 if p.rating >= 2400 => KFactor::TEN,
        0 => KFactor::TWENTY,
        k => KFactor::new(k).unwrap_or(KFactor::TWENTY),
    }
}

/// The configuration of the standings of `t`, with the rating rules in force
/// in `category` on the event's first day.
///
/// # Errors
/// A tie-break that no longer reads (never for records this build wrote).
pub fn config(
    t: &record::Tournament,
    category: Category,
    now_wall_ms: i64,
) -> Result<StandingsConfig, String> {
    let tie_breaks = t.tie_breaks.iter().map(tie_break).collect::<Result<Vec<_>, _>>()?;
    let mut settings = if t.round_robin {
        TieBreakSettings::round_robin(edition(t.edition))
    } else {
        TieBreakSettings::swiss(edition(t.edition))
    };
    settings.forfeits_in_direct_encounter = t.forfeits_in_direct_encounter;
    settings.unrated_rating = (t.unrated_rating > 0).then(|| Rating::new(t.unrated_rating));
    let rating_category = match category {
        Category::Standard => RatingCategory::Standard,
        Category::Rapid => RatingCategory::Rapid,
        Category::Blitz => RatingCategory::Blitz,
    };
    // Events before the first modelled regulations (1 March 2024) get no
    // rating report rather than a wrong one.
    let (y, m, d) = event_day(&t.start_date, now_wall_ms);
    let rating = CalendarDate::new(y, m, d)
        .and_then(|day| FideRatingRules::in_force_on(rating_category, day))
        .ok()
        .map(|rules| RatingConfig {
            rules,
            k_factors: t
                .participants
                .iter()
                .filter_map(|p| Some((StartNumber::new(p.number).ok()?, k_of(p))))
                .collect::<BTreeMap<_, _>>(),
            default_k: None,
        });
    let grades = t.grade_points.then(|| GradeConfig {
        starting: t
            .participants
            .iter()
            .filter_map(|p| {
                Some((StartNumber::new(p.number).ok()?, GradePoints::from_ten_thousandths(p.grade_points)))
            })
            .collect(),
    });
    Ok(StandingsConfig { scoring: super::scoring(&t.scoring), tie_breaks, settings, rating, grades })
}
