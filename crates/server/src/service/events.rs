//! The RPCs of events and rounds: `events/{event}` and
//! `events/{event}/rounds/{round}`, their standings and exports.
//!
//! An event holds the regulations every game of it is played under, its
//! scoring and tie-breaks, and its participants. A round is created in one
//! transaction from a pairing engine's output (a TRF26 file or a plain
//! list): every game, bye and forfeit known in advance, or nothing. Its
//! games are ordinary games (`games/{event}-r{round}-b{board}`) that point
//! back to it.

use std::collections::BTreeSet;

use arbiter_laws::game::Game;
use arbiter_laws::scoring::{GradePoints, PointSystem, Points};
use arbiter_proto::v1 as pb;
use arbiter_tournament::pairing::{self, RoundPairings};
use arbiter_tournament::{GameOutcome, RoundNumber, StartNumber};
use tonic::metadata::MetadataMap;

use super::{Arbiter, MAX_PAGE, Sent, page, page_size};
use crate::api::{self, to_proto, validate};
use crate::auth::Role;
use crate::error::{ApiError, quote};
use crate::event_log::{GameSpec, PlayerSpec};
use crate::request::{self, Caller, Stamped};
use crate::store::tournament::{RoundGame, RoundRow, TournamentRow, TournamentStore};
use crate::store::{EventPages, EventStore, GameRow, GameStatus};
use crate::tournament::results::{self, Finished};
use crate::tournament::{self, RoundFacts, record};

/// The longest event id: a round's game ids (`{event}-r{round}-b{board}`)
/// must stay game ids (at most 63 characters).
const MAX_EVENT_ID: usize = 40;

/// The most participants an event takes (TRF start numbers have four
/// digits).
const MAX_PARTICIPANTS: usize = 9999;

/// The largest pairing list accepted (bytes): a TRF26 file of a 2,000-player
/// open is about 600 KB.
const MAX_PAIRINGS: usize = 2 * 1024 * 1024;

/// The longest push URL accepted.
const MAX_URL: usize = 2048;

/// A broadcast push URL: `http://` or `https://`, a host, no user info.
fn check_push_url(url: &str) -> Result<(), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        _ => return Err("an http:// or https:// URL".to_owned()),
    }
    match uri.authority() {
        None => Err("a URL with a host".to_owned()),
        Some(a) if a.as_str().contains('@') => {
            Err("no user or password in the URL (the token goes in push_token)".to_owned())
        }
        Some(_) if url.len() > MAX_URL => Err(format!("at most {MAX_URL} bytes")),
        Some(_) => Ok(()),
    }
}

/// An event's broadcast settings from the API (`None`: no broadcast);
/// an empty push token keeps `kept_token`.
fn broadcast_from_proto(
    field: &str,
    broadcast: Option<&pb::Broadcast>,
    kept_token: &str,
) -> Result<record::Broadcast, Vec<api::Violation>> {
    let Some(b) = broadcast else { return Ok(record::Broadcast::default()) };
    let mut violations = Vec::new();
    let delay = u32::try_from(b.delay_seconds).ok().filter(|d| *d <= 86_400);
    if delay.is_none() {
        violations.push(violation(format!("{field}.delay_seconds"), "0 to 86400 seconds"));
    }
    if b.push_url.len() > MAX_URL {
        violations.push(violation(format!("{field}.push_url"), format!("at most {MAX_URL} bytes")));
    } else if !b.push_url.is_empty()
        && let Err(why) = check_push_url(&b.push_url.replace("{round}", "1"))
    {
        violations.push(violation(format!("{field}.push_url"), why));
    }
    if b.push_token.len() > 1024 {
        violations.push(violation(format!("{field}.push_token"), "at most 1024 bytes"));
    } else if !token_ok(&b.push_token) {
        violations
            .push(violation(format!("{field}.push_token"), "a token is printable ASCII without spaces"));
    }
    if !violations.is_empty() {
        return Err(violations);
    }
    Ok(record::Broadcast {
        published: true,
        delay_seconds: delay.unwrap_or(0),
        push_url: b.push_url.clone(),
        push_token: if b.push_token.is_empty() { kept_token.to_owned() } else { b.push_token.clone() },
        public_view: b.public_view,
    })
}

/// A bearer token goes into an HTTP header as it is.
fn token_ok(token: &str) -> bool {
    token.bytes().all(|b| b.is_ascii_graphic())
}

fn check_event_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= MAX_EVENT_ID
        && id.as_bytes()[0].is_ascii_lowercase()
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} is not an event id: 1 to {MAX_EVENT_ID} characters, lowercase letters, digits and '-', \
             starting with a letter",
            quote(id)
        ))
    }
}

/// The `{event}` of `events/{event}`.
pub(super) fn event_id(field: &str, name: &str) -> Result<String, ApiError> {
    let id = name.strip_prefix("events/").ok_or_else(|| {
        ApiError::field(field, format!("{} is not an event name: expected `events/{{event}}`", quote(name)))
    })?;
    check_event_id(id).map_err(|d| ApiError::field(field, d))?;
    Ok(id.to_owned())
}

/// The event and round of `events/{event}/rounds/{round}`.
pub(super) fn round_id(field: &str, name: &str) -> Result<(String, u16), ApiError> {
    let bad = || {
        ApiError::field(
            field,
            format!("{} is not a round name: expected `events/{{event}}/rounds/{{round}}`", quote(name)),
        )
    };
    let rest = name.strip_prefix("events/").ok_or_else(bad)?;
    let (event, number) = rest.split_once("/rounds/").ok_or_else(bad)?;
    check_event_id(event).map_err(|d| ApiError::field(field, d))?;
    let number: u16 = number.parse().ok().filter(|n| (1..=999).contains(n)).ok_or_else(bad)?;
    Ok((event.to_owned(), number))
}

fn event_name(id: &str) -> String {
    format!("events/{id}")
}

fn round_name(id: &str, number: u16) -> String {
    format!("events/{id}/rounds/{number}")
}

/// The game of board `board` of round `round` of event `event`.
fn board_game_id(event: &str, round: u16, board: u16) -> String {
    format!("{event}-r{round}-b{board}")
}

use crate::api::to_proto::timestamp;

/// `120`, `87.5`, `-3.25`: a decimal with at most four places, in
/// ten-thousandths.
fn decimal_ten_thousandths(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || fraction.len() > 4
        || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = whole.parse().ok().filter(|w: &i64| *w <= 1_000_000_000)?;
    let mut fraction = fraction.to_owned();
    while fraction.len() < 4 {
        fraction.push('0');
    }
    let value = whole * 10_000 + fraction.parse::<i64>().ok()?;
    Some(if negative { -value } else { value })
}

fn violation(field: impl Into<String>, description: impl Into<String>) -> api::Violation {
    api::Violation { field: field.into(), description: description.into() }
}

fn date_ok(text: &str) -> bool {
    let parts: Vec<&str> = text.split('/').collect();
    matches!(parts.as_slice(), [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())))
}

/// A participant of the wire, checked.
fn participant_from_proto(
    field: &str,
    p: &pb::Participant,
    violations: &mut Vec<api::Violation>,
) -> record::Participant {
    let number = u16::try_from(p.start_number).ok().filter(|n| (1..=9999).contains(n));
    if number.is_none() {
        violations.push(violation(format!("{field}.start_number"), "a start number is 1 to 9999"));
    }
    if p.name.trim().is_empty() {
        violations.push(violation(format!("{field}.name"), "the name is required"));
    } else if let Err(v) = validate::label(&format!("{field}.name"), &p.name) {
        violations.push(v);
    }
    if p.fide_id.len() > 12 || !p.fide_id.bytes().all(|b| b.is_ascii_digit()) {
        violations.push(violation(format!("{field}.fide_id"), "a FIDE id is up to 12 digits"));
    }
    let rating = u16::try_from(p.rating).ok().filter(|r| *r <= 3500);
    if rating.is_none() {
        violations.push(violation(format!("{field}.rating"), "a rating is 0 (unrated) to 3500"));
    }
    if p.federation.len() > 3 || !p.federation.bytes().all(|b| b.is_ascii_alphabetic()) {
        violations.push(violation(format!("{field}.federation"), "a federation is up to three letters"));
    }
    if p.title.len() > 3 || !p.title.bytes().all(|b| b.is_ascii_alphabetic()) {
        violations
            .push(violation(format!("{field}.title"), "a title is up to three letters (`GM`, `wg`...)"));
    }
    if !matches!(p.sex.as_str(), "" | "m" | "w") {
        violations.push(violation(format!("{field}.sex"), "`m`, `w` or empty"));
    }
    let birth_ok = p.birth.is_empty()
        || (p.birth.len() == 4 && p.birth.bytes().all(|b| b.is_ascii_digit()))
        || date_ok(&p.birth);
    if !birth_ok {
        violations.push(violation(format!("{field}.birth"), "`YYYY/MM/DD`, `YYYY` or empty"));
    }
    let k_factor = u8::try_from(p.k_factor).ok().filter(|k| matches!(k, 0 | 10 | 20 | 40));
    if k_factor.is_none() {
        violations
            .push(violation(format!("{field}.k_factor"), "a K factor is 10, 20 or 40 (0: by the rules)"));
    }
    let grade_points =
        if p.grade_points.is_empty() { Some(0) } else { decimal_ten_thousandths(&p.grade_points) };
    if grade_points.is_none() {
        violations.push(violation(
            format!("{field}.grade_points"),
            "grade points are a decimal with at most four places (`120`, `87.5`)",
        ));
    }
    record::Participant {
        number: number.unwrap_or(0),
        name: p.name.clone(),
        fide_id: p.fide_id.clone(),
        rating: rating.unwrap_or(0),
        federation: p.federation.to_ascii_uppercase(),
        title: p.title.clone(),
        sex: p.sex.clone(),
        birth: p.birth.clone(),
        k_factor: k_factor.unwrap_or(0),
        grade_points: grade_points.unwrap_or(0),
    }
}

fn participant_to_proto(p: &record::Participant) -> pb::Participant {
    pb::Participant {
        start_number: i32::from(p.number),
        name: p.name.clone(),
        fide_id: p.fide_id.clone(),
        rating: i32::from(p.rating),
        federation: p.federation.clone(),
        title: p.title.clone(),
        sex: p.sex.clone(),
        birth: p.birth.clone(),
        k_factor: i32::from(p.k_factor),
        grade_points: GradePoints::from_ten_thousandths(p.grade_points).to_string(),
    }
}

/// The tie-break kinds of the wire and of the records, side by side.
const TIE_BREAK_KINDS: [(pb::TieBreakKind, record::TieBreakKind); 20] = {
    use pb::TieBreakKind as K;
    use record::TieBreakKind as R;
    [
        (K::DirectEncounter, R::DirectEncounter),
        (K::Wins, R::Wins),
        (K::GamesWon, R::GamesWon),
        (K::GamesWithBlack, R::GamesWithBlack),
        (K::WinsWithBlack, R::WinsWithBlack),
        (K::ProgressiveScores, R::ProgressiveScores),
        (K::RoundsElectedToPlay, R::RoundsElectedToPlay),
        (K::StandardPoints, R::StandardPoints),
        (K::TournamentPairingNumber, R::TournamentPairingNumber),
        (K::Buchholz, R::Buchholz),
        (K::AverageOfOpponentsBuchholz, R::AverageOfOpponentsBuchholz),
        (K::ForeBuchholz, R::ForeBuchholz),
        (K::SonnebornBerger, R::SonnebornBerger),
        (K::Koya, R::Koya),
        (K::AverageRatingOfOpponents, R::AverageRatingOfOpponents),
        (K::TournamentPerformanceRating, R::TournamentPerformanceRating),
        (K::PerfectTournamentPerformance, R::PerfectTournamentPerformance),
        (K::AveragePerformanceRatingOfOpponents, R::AveragePerformanceRatingOfOpponents),
        (K::AveragePerfectPerformanceOfOpponents, R::AveragePerfectPerformanceOfOpponents),
        (K::Rating, R::Rating),
    ]
};

fn tie_break_from_proto(field: &str, t: &pb::TieBreak) -> Result<record::TieBreak, api::Violation> {
    let kind = TIE_BREAK_KINDS
        .iter()
        .find(|(k, _)| *k as i32 == t.kind)
        .map(|(_, r)| *r)
        .ok_or_else(|| violation(format!("{field}.kind"), format!("{} is not a tie-break", t.kind)))?;
    let count = |n: i32, what: &str| {
        u8::try_from(n).ok().filter(|n| *n <= 9).ok_or_else(|| violation(format!("{field}.{what}"), "0 to 9"))
    };
    if t.koya_limit_halves.unsigned_abs() > 200 {
        return Err(violation(format!("{field}.koya_limit_halves"), "at most 100 points either way"));
    }
    let tie_break = record::TieBreak {
        kind,
        cut: count(t.cut, "cut")?,
        median: count(t.median, "median")?,
        koya_limit: t.koya_limit_halves,
    };
    crate::tournament::standings::tie_break(&tie_break).map_err(|d| violation(field, d))?;
    Ok(tie_break)
}

fn tie_break_to_proto(t: &record::TieBreak) -> pb::TieBreak {
    let kind = TIE_BREAK_KINDS.iter().find(|(_, r)| *r == t.kind).map_or(0, |(k, _)| *k as i32);
    pb::TieBreak { kind, cut: i32::from(t.cut), median: i32::from(t.median), koya_limit_halves: t.koya_limit }
}

fn scoring_from_proto(s: Option<&pb::Scoring>) -> Result<record::Scoring, api::Violation> {
    let Some(s) = s.filter(|s| s.custom) else { return Ok(tournament::fide_scoring()) };
    let points = |h: i32| Points::from_halves(h);
    PointSystem::new(points(s.win_halves), points(s.draw_halves), points(s.loss_halves))
        .map_err(|e| violation("event.scoring", e.to_string()))?;
    Ok(record::Scoring {
        win: s.win_halves,
        draw: s.draw_halves,
        loss: s.loss_halves,
        forfeit_win: s.forfeit_win_halves,
        forfeit_loss: s.forfeit_loss_halves,
        pairing_allocated_bye: s.pairing_allocated_bye_halves,
        full_point_bye: s.full_point_bye_halves,
        half_point_bye: s.half_point_bye_halves,
        zero_point_bye: s.zero_point_bye_halves,
    })
}

fn scoring_to_proto(s: &record::Scoring) -> pb::Scoring {
    pb::Scoring {
        win_halves: s.win,
        draw_halves: s.draw,
        loss_halves: s.loss,
        forfeit_win_halves: s.forfeit_win,
        forfeit_loss_halves: s.forfeit_loss,
        pairing_allocated_bye_halves: s.pairing_allocated_bye,
        full_point_bye_halves: s.full_point_bye,
        half_point_bye_halves: s.half_point_bye,
        zero_point_bye_halves: s.zero_point_bye,
        custom: *s != tournament::fide_scoring(),
    }
}

fn adjustment_from_proto(
    field: &str,
    a: &pb::PointAdjustment,
    participants: &[record::Participant],
) -> Result<record::Adjustment, api::Violation> {
    let participant = u16::try_from(a.participant)
        .ok()
        .filter(|n| participants.iter().any(|p| p.number == *n))
        .ok_or_else(|| {
            violation(
                format!("{field}.participant"),
                format!("{} is not a participant of the event", a.participant),
            )
        })?;
    let round = u16::try_from(a.round)
        .ok()
        .filter(|r| *r <= 999)
        .ok_or_else(|| violation(format!("{field}.round"), "a round is 1 to 999 (0: the whole event)"))?;
    if a.halves == 0 || a.halves.unsigned_abs() > 200 {
        return Err(violation(
            format!("{field}.halves"),
            "an adjustment is a non-zero number of half-points (at most 100 points)",
        ));
    }
    if a.reason.trim().is_empty() {
        return Err(violation(
            format!("{field}.reason"),
            "give the reason (the Article or regulation and the facts)",
        ));
    }
    validate::label(&format!("{field}.reason"), &a.reason)?;
    Ok(record::Adjustment { participant, round, halves: a.halves, reason: a.reason.clone() })
}

/// The event of the wire as a record (for a creation).
fn tournament_from_proto(e: &pb::Event) -> Result<record::Tournament, ApiError> {
    let mut violations = Vec::new();
    if e.title.trim().is_empty() {
        violations.push(violation("event.title", "the title is required"));
    } else if let Err(v) = validate::label("event.title", &e.title) {
        violations.push(v);
    }
    let regulations = match &e.regulations {
        Some(regs) => match validate::regulations_from_proto(regs) {
            Ok(regs) => Some(regs),
            Err(v) => {
                violations
                    .extend(v.into_iter().map(|v| violation(format!("event.{}", v.field), v.description)));
                None
            }
        },
        None => {
            violations
                .push(violation("event.regulations", "regulations are required (at least a time control)"));
            None
        }
    };
    let scoring = scoring_from_proto(e.scoring.as_ref()).unwrap_or_else(|v| {
        violations.push(v);
        tournament::fide_scoring()
    });
    let mut tie_breaks = Vec::new();
    for (i, t) in e.tie_breaks.iter().enumerate() {
        match tie_break_from_proto(&format!("event.tie_breaks[{i}]"), t) {
            Ok(t) => tie_breaks.push(t),
            Err(v) => violations.push(v),
        }
    }
    let edition = match pb::TieBreakEdition::try_from(e.tie_break_edition) {
        Ok(pb::TieBreakEdition::August2024) => record::Edition::August2024,
        Ok(pb::TieBreakEdition::March2026) => record::Edition::March2026,
        // The edition in force on the first day of the event (today when
        // no date is given).
        Ok(pb::TieBreakEdition::Unspecified) => {
            crate::tournament::standings::edition_in_force(&e.start_date, crate::table::wall_ms())
        }
        Err(_) => {
            violations.push(violation(
                "event.tie_break_edition",
                format!("{} is not an edition", e.tie_break_edition),
            ));
            record::Edition::August2024
        }
    };
    if e.participants.len() > MAX_PARTICIPANTS {
        violations.push(violation("event.participants", format!("at most {MAX_PARTICIPANTS} participants")));
    }
    let mut participants = Vec::with_capacity(e.participants.len());
    let mut seen = BTreeSet::new();
    for (i, p) in e.participants.iter().enumerate() {
        let p = participant_from_proto(&format!("event.participants[{i}]"), p, &mut violations);
        if p.number != 0 && !seen.insert(p.number) {
            violations.push(violation(
                format!("event.participants[{i}].start_number"),
                format!("start number {} is used twice", p.number),
            ));
        }
        participants.push(p);
    }
    participants.sort_by_key(|p| p.number);
    let mut adjustments = Vec::new();
    for (i, a) in e.adjustments.iter().enumerate() {
        match adjustment_from_proto(&format!("event.adjustments[{i}]"), a, &participants) {
            Ok(a) => adjustments.push(a),
            Err(v) => violations.push(v),
        }
    }
    let planned_rounds = u16::try_from(e.planned_rounds).ok().filter(|n| *n <= 999);
    if planned_rounds.is_none() {
        violations.push(violation("event.planned_rounds", "0 (open) to 999"));
    }
    for (field, text) in [("event.city", &e.city), ("event.chief_arbiter", &e.chief_arbiter)] {
        if let Err(v) = validate::label(field, text) {
            violations.push(v);
        }
    }
    if e.federation.len() > 3 || !e.federation.bytes().all(|b| b.is_ascii_alphabetic()) {
        violations.push(violation("event.federation", "a federation is up to three letters"));
    }
    for (field, text) in [("event.start_date", &e.start_date), ("event.end_date", &e.end_date)] {
        if !text.is_empty() && !date_ok(text) {
            violations.push(violation(field, "a date is `YYYY/MM/DD`"));
        }
    }
    let unrated_rating = u16::try_from(e.unrated_rating).ok().filter(|r| *r <= 3500);
    if unrated_rating.is_none() {
        violations.push(violation("event.unrated_rating", "0 (none) to 3500"));
    }
    let broadcast = broadcast_from_proto("event.broadcast", e.broadcast.as_ref(), "").unwrap_or_else(|v| {
        violations.extend(v);
        record::Broadcast::default()
    });
    let Some(regulations) = regulations.filter(|_| violations.is_empty()) else {
        return Err(ApiError::InvalidArgument(violations));
    };
    // Building a game checks what the regulations alone cannot.
    Game::new(regulations.clone()).map_err(|e| ApiError::field("event.regulations", e.to_string()))?;
    let mut t = record::Tournament {
        title: e.title.clone(),
        template_format: 0,
        template: String::new(),
        scoring,
        tie_breaks,
        edition,
        grade_points: e.grade_points,
        participants,
        planned_rounds: planned_rounds.unwrap_or(0),
        city: e.city.clone(),
        federation: e.federation.to_ascii_uppercase(),
        start_date: e.start_date.clone(),
        end_date: e.end_date.clone(),
        chief_arbiter: e.chief_arbiter.clone(),
        broadcast,
        adjustments,
        unrated_rating: unrated_rating.unwrap_or(0),
        round_robin: e.round_robin,
        forfeits_in_direct_encounter: e.forfeits_in_direct_encounter,
    };
    crate::tournament::standings::check_list(&t).map_err(|e| ApiError::field("event.tie_breaks", e))?;
    t.set_template(&GameSpec {
        event: e.title.clone(),
        round: String::new(),
        white: PlayerSpec::default(),
        black: PlayerSpec::default(),
        regulations,
    });
    Ok(t)
}

/// A stored tournament as the wire shows it (the push token never).
fn tournament_to_proto(
    row: &TournamentRow,
    t: &record::Tournament,
    rounds: usize,
) -> Result<pb::Event, ApiError> {
    let template = t.template().map_err(|e| ApiError::stored(format!("events/{}", row.id), e))?;
    Ok(pb::Event {
        name: event_name(&row.id),
        title: t.title.clone(),
        regulations: Some(to_proto::regulations_to_proto(&template.regulations)),
        scoring: Some(scoring_to_proto(&t.scoring)),
        tie_breaks: t.tie_breaks.iter().map(tie_break_to_proto).collect(),
        tie_break_edition: match t.edition {
            record::Edition::August2024 => pb::TieBreakEdition::August2024,
            record::Edition::March2026 => pb::TieBreakEdition::March2026,
        } as i32,
        grade_points: t.grade_points,
        participants: t.participants.iter().map(participant_to_proto).collect(),
        planned_rounds: i32::from(t.planned_rounds),
        city: t.city.clone(),
        federation: t.federation.clone(),
        start_date: t.start_date.clone(),
        end_date: t.end_date.clone(),
        chief_arbiter: t.chief_arbiter.clone(),
        broadcast: t.broadcast.published.then(|| pb::Broadcast {
            delay_seconds: i32::try_from(t.broadcast.delay_seconds).unwrap_or(i32::MAX),
            push_url: t.broadcast.push_url.clone(),
            push_token: String::new(),
            public_view: t.broadcast.public_view,
        }),
        rounds: i32::try_from(rounds).unwrap_or(i32::MAX),
        adjustments: t
            .adjustments
            .iter()
            .map(|a| pb::PointAdjustment {
                participant: i32::from(a.participant),
                round: i32::from(a.round),
                halves: a.halves,
                reason: a.reason.clone(),
            })
            .collect(),
        create_time: Some(timestamp(row.created_wall_ms)),
        unrated_rating: i32::from(t.unrated_rating),
        round_robin: t.round_robin,
        forfeits_in_direct_encounter: t.forfeits_in_direct_encounter,
    })
}

fn bye_to_proto(kind: record::ByeKind) -> i32 {
    (match kind {
        record::ByeKind::HalfPoint => pb::ByeKind::HalfPoint,
        record::ByeKind::FullPoint => pb::ByeKind::FullPoint,
        record::ByeKind::PairingAllocated => pb::ByeKind::PairingAllocated,
        record::ByeKind::ZeroPoint => pb::ByeKind::ZeroPoint,
    }) as i32
}

fn board_result_to_proto(f: &Finished) -> pb::BoardResult {
    pb::BoardResult {
        score: f.score.clone(),
        kind: (match f.kind {
            results::ResultKind::Played => pb::ResultKind::Played,
            results::ResultKind::Forfeit => pb::ResultKind::Forfeit,
            results::ResultKind::UnderOneMove => pb::ResultKind::UnderOneMove,
        }) as i32,
        white_code: results::trf_code(f.white).to_owned(),
        black_code: results::trf_code(f.black).to_owned(),
        rated: f.rated.is_ok(),
        not_rated_reason: f.rated.err().map(|r| r.to_string()).unwrap_or_default(),
        white_moved: f.white_moved,
        black_moved: f.black_moved,
        termination: f.termination.to_owned(),
        end: f.end.as_ref().map(to_proto::game_end_to_proto),
    }
}

/// What a round's reading gathers: the round's rows and, per board, the
/// game as read now.
pub(super) struct RoundReading {
    pub(super) row: RoundRow,
    pub(super) round: record::Round,
    pub(super) games: Vec<Option<crate::view::GameReading>>,
}

impl RoundReading {
    /// The boards' results (a board without a game has its preset one).
    fn finished(&self, armageddon: bool) -> Vec<Option<Finished>> {
        self.round
            .boards
            .iter()
            .zip(&self.games)
            .map(|(board, game)| match (board.preset, game) {
                (Some((w, b)), _) => Some(results::of_preset(w, b)),
                (None, Some(g)) => g.view.end.as_ref().and_then(|end| {
                    results::of_game(end, g.view.clocks.white_moves, g.view.clocks.black_moves, armageddon)
                }),
                (None, None) => None,
            })
            .collect()
    }
}

impl Arbiter {
    pub(super) async fn tournament_row(
        &self,
        id: &str,
    ) -> Result<(TournamentRow, record::Tournament), ApiError> {
        let row =
            self.hall.store().tournament(id).await?.ok_or_else(|| ApiError::NotFound(event_name(id)))?;
        let t = record::decode_tournament(row.format, &row.spec_json)
            .map_err(|e| ApiError::stored(event_name(id), e))?;
        Ok((row, t))
    }

    pub(super) async fn round_reading(&self, event: &str, number: u16) -> Result<RoundReading, ApiError> {
        let row = self
            .hall
            .store()
            .round(event, i64::from(number))
            .await?
            .ok_or_else(|| ApiError::NotFound(round_name(event, number)))?;
        let round = record::decode_round(row.format, &row.spec_json)
            .map_err(|e| ApiError::stored(round_name(event, number), e))?;
        let mut games = Vec::with_capacity(round.boards.len());
        for board in &round.boards {
            games.push(match &board.game {
                Some(id) => Some(self.hall.read(id).await?),
                None => None,
            });
        }
        Ok(RoundReading { row, round, games })
    }

    /// Every round of an event up to `through` (all with `None`), read.
    async fn round_facts(
        &self,
        event: &str,
        t: &record::Tournament,
        through: Option<u16>,
    ) -> Result<Vec<(RoundReading, RoundFacts)>, ApiError> {
        let armageddon = t.template().map(|s| s.regulations.armageddon).unwrap_or(false);
        let mut out = Vec::new();
        for row in self.hall.store().rounds(event).await? {
            let number = u16::try_from(row.number).unwrap_or(u16::MAX);
            if through.is_some_and(|last| number > last) {
                continue;
            }
            let reading = self.round_reading(event, number).await?;
            let facts =
                RoundFacts { number, round: reading.round.clone(), finished: reading.finished(armageddon) };
            out.push((reading, facts));
        }
        Ok(out)
    }

    /// The round as the wire shows it.
    pub(super) async fn round_to_proto(
        &self,
        event: &str,
        t: &record::Tournament,
        reading: &RoundReading,
    ) -> Result<pb::Round, ApiError> {
        let armageddon = t.template().map(|s| s.regulations.armageddon).unwrap_or(false);
        let finished = reading.finished(armageddon);
        let name_of = |n: u16| t.participant(n).map(|p| p.name.clone()).unwrap_or_default();
        let mut boards = Vec::with_capacity(reading.round.boards.len());
        for ((board, game), result) in reading.round.boards.iter().zip(&reading.games).zip(&finished) {
            let mut out = pb::Board {
                number: i32::from(board.number),
                white: i32::from(board.white),
                black: i32::from(board.black),
                game: board.game.as_ref().map(|g| format!("games/{g}")).unwrap_or_default(),
                result: result.as_ref().map(board_result_to_proto),
                white_name: name_of(board.white),
                black_name: name_of(board.black),
                ..pb::Board::default()
            };
            if let (Some(id), Some(g)) = (&board.game, game) {
                let game = self.with_board(id, to_proto::game(g));
                out.status = game.status;
                out.clocks = game.clocks;
                out.plies = i32::try_from(game.moves_uci.len()).unwrap_or(i32::MAX);
                out.board_connected = game.board.as_ref().is_some_and(|b| b.connected);
                out.last_ruling = self.last_ruling(id, g.last_seq).await?;
            }
            boards.push(out);
        }
        let every_result = finished.iter().all(Option::is_some);
        let state = if every_result && !finished.is_empty() {
            pb::RoundState::Finished
        } else if reading.row.started_wall_ms.is_some() {
            pb::RoundState::Started
        } else {
            pb::RoundState::Paired
        };
        Ok(pb::Round {
            name: round_name(event, u16::try_from(reading.row.number).unwrap_or(0)),
            number: i32::try_from(reading.row.number).unwrap_or(0),
            state: state as i32,
            boards,
            byes: reading
                .round
                .byes
                .iter()
                .map(|b| pb::Bye { participant: i32::from(b.participant), kind: bye_to_proto(b.kind) })
                .collect(),
            create_time: Some(timestamp(reading.row.created_wall_ms)),
            start_time: reading.row.started_wall_ms.map(timestamp),
            broadcast_push_url: reading.round.push_url.clone(),
        })
    }

    /// The last ruling of a game, `FIDE-x: summary`, or empty.
    async fn last_ruling(&self, id: &str, last_seq: i64) -> Result<String, ApiError> {
        if last_seq < 1 {
            return Ok(String::new());
        }
        let rows = self.hall.store().events(id, last_seq - 1, 1).await?;
        let Some(row) = rows.first() else { return Ok(String::new()) };
        let logged = crate::view::LoggedEvent::decode(row)?;
        Ok(logged
            .aftermath
            .rulings
            .last()
            .map(|r| {
                let r = to_proto::ruling_to_proto(r);
                format!("{}: {}", r.rule_id, r.summary)
            })
            .unwrap_or_default())
    }

    /// Checks a request id against what the caller did with it before: the
    /// target if it was this very request.
    async fn tournament_request_before(
        &self,
        stamped: &Stamped,
        method: &str,
    ) -> Result<Option<String>, ApiError> {
        let Some(found) = self.hall.store().tournament_request(&stamped.origin.scope, &stamped.id).await?
        else {
            return Ok(None);
        };
        if found.sha256 != stamped.origin.sha256 {
            return Err(ApiError::RequestIdReused(format!(
                "request id {} was already used by this caller for a different {method} request ({}); \
                 a new request needs a new request id",
                quote(&stamped.id),
                found.target
            )));
        }
        Ok(Some(found.target))
    }

    pub(super) async fn create_event_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::CreateEventRequest,
    ) -> Result<pb::CreateEventResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter], "CreateEvent")?;
        let fingerprint =
            request::fingerprint(&pb::CreateEventRequest { request_id: String::new(), ..r.clone() });
        let stamped = Sent { method: "create_event", request_id: &r.request_id, fingerprint }
            .stamp(&Caller::of(&principal, &caller))?;
        if let Some(s) = &stamped
            && let Some(target) = self.tournament_request_before(s, "CreateEvent").await?
        {
            return self.event_answer(target.trim_start_matches("events/")).await;
        }
        let id = if r.event_id.is_empty() {
            format!("e{}", &uuid::Uuid::now_v7().simple().to_string()[..20])
        } else {
            check_event_id(&r.event_id).map_err(|d| ApiError::field("event_id", d))?;
            r.event_id.clone()
        };
        let event = r.event.as_ref().ok_or_else(|| ApiError::field("event", "the event is required"))?;
        let t = tournament_from_proto(event)?;
        let now = crate::table::wall_ms();
        let row = TournamentRow {
            id: id.clone(),
            creator: caller.to_string(),
            created_wall_ms: now,
            updated_wall_ms: now,
            version: 1,
            format: record::FORMAT,
            spec_json: record::encode_tournament(&t),
        };
        let requested = stamped.as_ref().map(|s| (s.id.as_str(), &s.origin));
        match self.hall.store().create_tournament(&row, requested).await {
            Ok(()) => {}
            Err(crate::store::StoreError::DuplicateRequest { .. }) if stamped.is_some() => {
                // The same request won a race, or was retried after its
                // answer was lost: answer as it would have.
                let s = stamped.as_ref().unwrap_or_else(|| unreachable!());
                if let Some(target) = self.tournament_request_before(s, "CreateEvent").await? {
                    return self.event_answer(target.trim_start_matches("events/")).await;
                }
                return Err(ApiError::Unavailable("retry the request".into()));
            }
            Err(e) => return Err(e.into()),
        }
        tracing::info!(event = %id, participants = t.participants.len(), "event created");
        self.event_answer(&id).await
    }

    async fn event_answer(&self, id: &str) -> Result<pb::CreateEventResponse, ApiError> {
        Ok(pb::CreateEventResponse { event: Some(self.event_proto(id).await?) })
    }

    async fn event_proto(&self, id: &str) -> Result<pb::Event, ApiError> {
        let (row, t) = self.tournament_row(id).await?;
        let rounds = self.hall.store().rounds(id).await?.len();
        tournament_to_proto(&row, &t, rounds)
    }

    /// Fails unless the caller may read events (any role; not a player).
    async fn require_reader(&self, metadata: &MetadataMap, what: &str) -> Result<(), ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter, Role::Viewer], what)
    }

    pub(super) async fn get_event_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::GetEventRequest,
    ) -> Result<pb::GetEventResponse, ApiError> {
        self.require_reader(metadata, "GetEvent").await?;
        let id = event_id("name", &r.name)?;
        Ok(pb::GetEventResponse { event: Some(self.event_proto(&id).await?) })
    }

    pub(super) async fn list_tournaments_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ListEventsRequest,
    ) -> Result<pb::ListEventsResponse, ApiError> {
        self.require_reader(metadata, "ListEvents").await?;
        let size = page_size(r.page_size, 50)?;
        let after = if r.page_token.is_empty() {
            None
        } else {
            check_event_id(&r.page_token).map_err(|_| ApiError::field("page_token", "not a page token"))?;
            Some(r.page_token.as_str())
        };
        let rows = self.hall.store().list_tournaments(after, size.min(MAX_PAGE) + 1).await?;
        let (rows, next_page_token) = page(rows, size, |r| r.id.clone());
        let mut events = Vec::with_capacity(rows.len());
        for row in &rows {
            let t = record::decode_tournament(row.format, &row.spec_json)
                .map_err(|e| ApiError::stored(event_name(&row.id), e))?;
            let rounds = self.hall.store().rounds(&row.id).await?.len();
            events.push(tournament_to_proto(row, &t, rounds)?);
        }
        Ok(pb::ListEventsResponse { events, next_page_token })
    }

    /// Changes a tournament's record by `change`, by compare-and-set, once
    /// per request id.
    async fn change_tournament(
        &self,
        metadata: &MetadataMap,
        (roles, rpc): (&[Role], &'static str),
        sent: Sent<'_>,
        id: &str,
        change: impl Fn(&mut record::Tournament) -> Result<(), ApiError>,
    ) -> Result<pb::Event, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(roles, rpc)?;
        let stamped = sent.stamp(&Caller::of(&principal, &caller))?;
        if let Some(s) = &stamped
            && self.tournament_request_before(s, rpc).await?.is_some()
        {
            return self.event_proto(id).await;
        }
        // Another writer may come first: read again and redo the change.
        for _ in 0..8 {
            let (row, mut t) = self.tournament_row(id).await?;
            change(&mut t)?;
            let next = TournamentRow {
                version: row.version + 1,
                updated_wall_ms: crate::table::wall_ms(),
                format: record::FORMAT,
                spec_json: record::encode_tournament(&t),
                ..row
            };
            let requested = stamped.as_ref().map(|s| (s.id.as_str(), &s.origin));
            match self.hall.store().update_tournament(&next, requested).await {
                Ok(()) => return self.event_proto(id).await,
                Err(crate::store::StoreError::Conflict { .. }) => continue,
                Err(crate::store::StoreError::DuplicateRequest { .. }) => return self.event_proto(id).await,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ApiError::Aborted {
            reason: crate::error::AbortReason::ConcurrentUpdate,
            message: format!("events/{id} is being changed by others; retry"),
        })
    }

    pub(super) async fn add_participants_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::AddParticipantsRequest,
    ) -> Result<pb::AddParticipantsResponse, ApiError> {
        let id = event_id("event", &r.event)?;
        let mut violations = Vec::new();
        let new: Vec<record::Participant> = r
            .participants
            .iter()
            .enumerate()
            .map(|(i, p)| participant_from_proto(&format!("participants[{i}]"), p, &mut violations))
            .collect();
        if new.is_empty() {
            violations.push(violation("participants", "give at least one participant"));
        }
        if !violations.is_empty() {
            return Err(ApiError::InvalidArgument(violations));
        }
        let fingerprint =
            request::fingerprint(&pb::AddParticipantsRequest { request_id: String::new(), ..r.clone() });
        let event = self
            .change_tournament(
                metadata,
                (&[Role::Service, Role::Arbiter], "AddParticipants"),
                Sent { method: "add_participants", request_id: &r.request_id, fingerprint },
                &id,
                |t| {
                    let mut violations = Vec::new();
                    for (i, p) in new.iter().enumerate() {
                        if t.participant(p.number).is_some() || new[..i].iter().any(|q| q.number == p.number)
                        {
                            violations.push(violation(
                                format!("participants[{i}].start_number"),
                                format!("start number {} is already taken", p.number),
                            ));
                        }
                    }
                    if t.participants.len() + new.len() > MAX_PARTICIPANTS {
                        violations.push(violation(
                            "participants",
                            format!("at most {MAX_PARTICIPANTS} participants"),
                        ));
                    }
                    if !violations.is_empty() {
                        return Err(ApiError::InvalidArgument(violations));
                    }
                    t.participants.extend(new.iter().cloned());
                    t.participants.sort_by_key(|p| p.number);
                    Ok(())
                },
            )
            .await?;
        Ok(pb::AddParticipantsResponse { event: Some(event) })
    }

    pub(super) async fn set_broadcast_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::SetBroadcastRequest,
    ) -> Result<pb::SetBroadcastResponse, ApiError> {
        let id = event_id("event", &r.event)?;
        let fingerprint =
            request::fingerprint(&pb::SetBroadcastRequest { request_id: String::new(), ..r.clone() });
        let event = self
            .change_tournament(
                metadata,
                (&[Role::Arbiter], "SetBroadcast"),
                Sent { method: "set_broadcast", request_id: &r.request_id, fingerprint },
                &id,
                |t| {
                    t.broadcast =
                        broadcast_from_proto("broadcast", r.broadcast.as_ref(), &t.broadcast.push_token)
                            .map_err(ApiError::InvalidArgument)?;
                    Ok(())
                },
            )
            .await?;
        Ok(pb::SetBroadcastResponse { event: Some(event) })
    }

    pub(super) async fn adjust_points_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::AdjustPointsRequest,
    ) -> Result<pb::AdjustPointsResponse, ApiError> {
        let id = event_id("event", &r.event)?;
        let adjustment = r
            .adjustment
            .clone()
            .ok_or_else(|| ApiError::field("adjustment", "the adjustment is required"))?;
        let fingerprint =
            request::fingerprint(&pb::AdjustPointsRequest { request_id: String::new(), ..r.clone() });
        let event = self
            .change_tournament(
                metadata,
                (&[Role::Arbiter], "AdjustPoints"),
                Sent { method: "adjust_points", request_id: &r.request_id, fingerprint },
                &id,
                |t| {
                    let a = adjustment_from_proto("adjustment", &adjustment, &t.participants)
                        .map_err(|v| ApiError::InvalidArgument(vec![v]))?;
                    t.adjustments.push(a);
                    Ok(())
                },
            )
            .await?;
        Ok(pb::AdjustPointsResponse { event: Some(event) })
    }

    /// The pairings of `round` from the text of a pairing list, checked
    /// against the participants.
    fn read_pairings(
        t: &record::Tournament,
        round: RoundNumber,
        text: &str,
        format: i32,
    ) -> Result<RoundPairings, ApiError> {
        if text.len() > MAX_PAIRINGS {
            return Err(ApiError::field("pairings", format!("at most {MAX_PAIRINGS} bytes")));
        }
        let known = |n: StartNumber| t.participant(n.get()).is_some();
        let is_trf = match pb::PairingFormat::try_from(format) {
            Ok(pb::PairingFormat::Trf) => true,
            Ok(pb::PairingFormat::List) => false,
            Ok(pb::PairingFormat::Unspecified) => {
                text.lines().any(|l| l.starts_with("001 ")) || text.contains("\r001 ")
            }
            Err(_) => return Err(ApiError::field("format", format!("{format} is not a pairing format"))),
        };
        let pairings = if is_trf {
            let pairings =
                pairing::read_trf(text, round).map_err(|e| ApiError::field("pairings", e.to_string()))?;
            let unknown = pairings
                .boards
                .iter()
                .flat_map(|b| [b.white, b.black])
                .chain(pairings.byes.iter().map(|(n, _)| *n))
                .find(|n| !known(*n));
            if let Some(n) = unknown {
                return Err(ApiError::field(
                    "pairings",
                    format!("player {n} of the TRF file is not a participant of the event"),
                ));
            }
            pairings
        } else {
            pairing::read_list(text, round, known).map_err(|e| ApiError::field("pairings", e.to_string()))?
        };
        if pairings.boards.is_empty() && pairings.byes.is_empty() {
            return Err(ApiError::field(
                "pairings",
                format!("the pairing list holds no board of round {round}"),
            ));
        }
        Ok(pairings)
    }

    pub(super) async fn create_round_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::CreateRoundRequest,
    ) -> Result<pb::CreateRoundResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter], "CreateRound")?;
        let id = event_id("parent", &r.parent)?;
        let fingerprint =
            request::fingerprint(&pb::CreateRoundRequest { request_id: String::new(), ..r.clone() });
        let stamped = Sent { method: "create_round", request_id: &r.request_id, fingerprint }
            .stamp(&Caller::of(&principal, &caller))?;
        if let Some(s) = &stamped
            && let Some(target) = self.tournament_request_before(s, "CreateRound").await?
        {
            let (_, number) = round_id("parent", &target)?;
            if r.start {
                self.start_round_games(&id, number, principal.actor()).await?;
            }
            return self.round_created(&id, number).await;
        }
        let (_, t) = self.tournament_row(&id).await?;
        let existing = self.hall.store().rounds(&id).await?;
        let last = existing.iter().map(|r| r.number).max().unwrap_or(0);
        let number = match r.round {
            0 => last + 1,
            n if !(0..=999).contains(&n) => {
                return Err(ApiError::field("round", "a round is 1 to 999 (0: the next)"));
            }
            n => i64::from(n),
        };
        if number <= last && existing.iter().any(|r| r.number == number) {
            return Err(ApiError::AlreadyExists(round_name(&id, u16::try_from(number).unwrap_or(0))));
        }
        if number > last + 1 {
            return Err(ApiError::field(
                "round",
                format!(
                    "round {number} cannot be created before round {} (rounds are created in order)",
                    last + 1
                ),
            ));
        }
        if number > 999 {
            return Err(ApiError::field("round", "an event has at most 999 rounds"));
        }
        let number = u16::try_from(number).unwrap_or(u16::MAX);
        let round = RoundNumber::new(number).map_err(|e| ApiError::field("round", e.to_string()))?;
        if !r.broadcast_push_url.is_empty() {
            check_push_url(&r.broadcast_push_url)
                .map_err(|why| ApiError::field("broadcast_push_url", why))?;
        }
        let pairings = Self::read_pairings(&t, round, &r.pairings, r.format)?;
        let template = t.template().map_err(|e| ApiError::stored(event_name(&id), e))?;
        let now = crate::table::wall_ms();
        let mut boards = Vec::with_capacity(pairings.boards.len());
        let mut games = Vec::new();
        for b in &pairings.boards {
            let preset = b.preset.map(|(w, bl)| {
                let side = |o: GameOutcome| match o {
                    GameOutcome::Forfeit { won: true } => record::Outcome::ForfeitWin,
                    _ => record::Outcome::ForfeitLoss,
                };
                (side(w), side(bl))
            });
            let game = preset.is_none().then(|| board_game_id(&id, number, b.number));
            if let Some(game_id) = &game {
                let player = |n: StartNumber| {
                    let p = t.participant(n.get());
                    PlayerSpec {
                        name: p.map(|p| p.name.clone()).unwrap_or_default(),
                        fide_id: p.map(|p| p.fide_id.clone()).unwrap_or_default(),
                    }
                };
                let spec = GameSpec {
                    event: t.title.clone(),
                    round: number.to_string(),
                    white: player(b.white),
                    black: player(b.black),
                    regulations: template.regulations.clone(),
                };
                games.push(RoundGame {
                    board: i64::from(b.number),
                    white: i64::from(b.white.get()),
                    black: i64::from(b.black.get()),
                    game: GameRow {
                        id: game_id.clone(),
                        request_id: None,
                        creator: Some(caller.to_string()),
                        created_wall_ms: now,
                        event_name: t.title.clone(),
                        round: number.to_string(),
                        white: spec.white.name.clone(),
                        black: spec.black.name.clone(),
                        spec_format: crate::event_log::FORMAT,
                        spec_json: crate::event_log::encode_spec(&spec),
                        status: GameStatus::Pending,
                        result: None,
                        last_seq: 0,
                        updated_wall_ms: now,
                        view: None,
                    },
                });
            }
            boards.push(record::Board {
                number: b.number,
                white: b.white.get(),
                black: b.black.get(),
                game,
                preset,
            });
        }
        let byes = pairings
            .byes
            .iter()
            .map(|(n, kind)| record::Bye { participant: n.get(), kind: tournament::bye_record(*kind) })
            .collect();
        let round_record = record::Round { boards, byes, push_url: r.broadcast_push_url.clone() };
        let row = RoundRow {
            tournament_id: id.clone(),
            number: i64::from(number),
            created_wall_ms: now,
            started_wall_ms: None,
            format: record::FORMAT,
            spec_json: record::encode_round(&round_record),
        };
        let requested = stamped.as_ref().map(|s| (s.id.as_str(), &s.origin));
        match self.hall.store().create_round(&row, &games, requested).await {
            Ok(()) => {}
            Err(crate::store::StoreError::DuplicateRequest { .. }) if stamped.is_some() => {
                let s = stamped.as_ref().unwrap_or_else(|| unreachable!());
                if let Some(target) = self.tournament_request_before(s, "CreateRound").await? {
                    let (_, number) = round_id("parent", &target)?;
                    return self.round_created(&id, number).await;
                }
                return Err(ApiError::Unavailable("retry the request".into()));
            }
            Err(crate::store::StoreError::AlreadyExists(game)) => {
                return Err(ApiError::AlreadyExists(format!(
                    "games/{game} (a game of this round would take its id; it was created outside the round)"
                )));
            }
            Err(e) => return Err(e.into()),
        }
        metrics::counter!("arbiter_games_created_total").increment(games.len() as u64);
        tracing::info!(event = %id, round = number, boards = games.len(), "round created");
        if r.start {
            self.start_round_games(&id, number, principal.actor()).await?;
        }
        self.round_created(&id, number).await
    }

    async fn round_created(&self, id: &str, number: u16) -> Result<pb::CreateRoundResponse, ApiError> {
        let (_, t) = self.tournament_row(id).await?;
        let reading = self.round_reading(id, number).await?;
        let mut tokens = Vec::new();
        for board in &reading.round.boards {
            if let Some(game) = &board.game {
                tokens.push(pb::BoardTokens {
                    board: i32::from(board.number),
                    game: format!("games/{game}"),
                    white_token: self.auth.current_player_token(game, arbiter_chess::Color::White).await?,
                    black_token: self.auth.current_player_token(game, arbiter_chess::Color::Black).await?,
                });
            }
        }
        Ok(pb::CreateRoundResponse { round: Some(self.round_to_proto(id, &t, &reading).await?), tokens })
    }

    /// Records the round's start (the first one stands) and starts every
    /// game of it not started yet, all at once.
    async fn start_round_games(&self, id: &str, number: u16, actor: &'static str) -> Result<(), ApiError> {
        self.hall.store().start_round(id, i64::from(number), crate::table::wall_ms()).await?;
        let reading = self.round_reading(id, number).await?;
        let mut starts = tokio::task::JoinSet::new();
        for (board, game) in reading.round.boards.iter().zip(&reading.games) {
            let (Some(game_id), Some(game)) = (&board.game, game) else { continue };
            if game.status != GameStatus::Pending {
                continue;
            }
            let hall = self.hall.clone();
            let game_id = game_id.clone();
            starts.spawn(async move {
                let table = hall.seize(&game_id).await?;
                match table
                    .act(crate::table::Act::Event(arbiter_laws::event::Event::Start), actor, None, None)
                    .await
                {
                    Ok(_) => Ok(()),
                    // Started meanwhile (by an arbiter, or a retry of this
                    // very request): it runs, which is what was asked.
                    Err(e @ ApiError::Rejected(_)) => match hall.read(&game_id).await {
                        Ok(g) if g.status != GameStatus::Pending => Ok(()),
                        _ => Err(e),
                    },
                    Err(ApiError::Aborted { .. }) => Ok(()),
                    Err(e) => Err(e),
                }
            });
        }
        let mut first_error = None;
        while let Some(done) = starts.join_next().await {
            match done {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(e) => {
                    first_error.get_or_insert(ApiError::Internal(format!("starting a game failed: {e}")));
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    pub(super) async fn start_round_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::StartRoundRequest,
    ) -> Result<pb::StartRoundResponse, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter], "StartRound")?;
        let (id, number) = round_id("name", &r.name)?;
        // Starting is idempotent by itself (a started game stays started),
        // so a request id only has to be well formed.
        Sent { method: "start_round", request_id: &r.request_id, fingerprint: String::new() }
            .stamp(&Caller::of(&principal, &caller))?;
        self.start_round_games(&id, number, principal.actor()).await?;
        let (_, t) = self.tournament_row(&id).await?;
        let reading = self.round_reading(&id, number).await?;
        Ok(pb::StartRoundResponse { round: Some(self.round_to_proto(&id, &t, &reading).await?) })
    }

    pub(super) async fn get_round_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::GetRoundRequest,
    ) -> Result<pb::GetRoundResponse, ApiError> {
        self.require_reader(metadata, "GetRound").await?;
        let (id, number) = round_id("name", &r.name)?;
        let (_, t) = self.tournament_row(&id).await?;
        let reading = self.round_reading(&id, number).await?;
        Ok(pb::GetRoundResponse { round: Some(self.round_to_proto(&id, &t, &reading).await?) })
    }

    pub(super) async fn list_rounds_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ListRoundsRequest,
    ) -> Result<pb::ListRoundsResponse, ApiError> {
        self.require_reader(metadata, "ListRounds").await?;
        let id = event_id("parent", &r.parent)?;
        let (_, t) = self.tournament_row(&id).await?;
        let mut rounds = Vec::new();
        for (reading, _) in self.round_facts(&id, &t, None).await? {
            rounds.push(self.round_to_proto(&id, &t, &reading).await?);
        }
        Ok(pb::ListRoundsResponse { rounds })
    }

    /// The crosstable after `round` (0: every round), with the event.
    async fn crosstable_of(
        &self,
        id: &str,
        round: i32,
    ) -> Result<(record::Tournament, arbiter_tournament::Crosstable, u16), ApiError> {
        let (_, t) = self.tournament_row(id).await?;
        let through = match round {
            0 => None,
            n => Some(
                u16::try_from(n)
                    .ok()
                    .filter(|n| (1..=999).contains(n))
                    .ok_or_else(|| ApiError::field("round", "a round is 1 to 999 (0: the last)"))?,
            ),
        };
        let facts: Vec<RoundFacts> =
            self.round_facts(id, &t, through).await?.into_iter().map(|(_, f)| f).collect();
        if let Some(n) = through
            && !facts.iter().any(|f| f.number == n)
        {
            return Err(ApiError::NotFound(round_name(id, n)));
        }
        let last = facts.iter().map(|f| f.number).max().unwrap_or(0);
        let table = tournament::crosstable(&t, &facts).map_err(|e| {
            ApiError::Internal(format!("events/{id}: the rounds do not make a crosstable: {e}"))
        })?;
        Ok((t, table, last))
    }

    pub(super) async fn get_standings_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::GetStandingsRequest,
    ) -> Result<pb::GetStandingsResponse, ApiError> {
        self.require_reader(metadata, "GetStandings").await?;
        let id = event_id("event", &r.event)?;
        let (t, table, last) = self.crosstable_of(&id, r.round).await?;
        let Ok(after) = RoundNumber::new(last) else {
            return Ok(pb::GetStandingsResponse::default());
        };
        let template = t.template().map_err(|e| ApiError::stored(event_name(&id), e))?;
        let config = crate::tournament::standings::config(
            &t,
            template.regulations.category(),
            crate::table::wall_ms(),
        )
        .map_err(|e| ApiError::Internal(format!("events/{id}: {e}")))?;
        let standings = arbiter_tournament::standings::standings(&table, &config, after).map_err(|e| {
            ApiError::NotComputable(format!("the standings of events/{id} cannot be computed: {e}"))
        })?;
        let name_of = |n: StartNumber| t.participant(n.get()).map(|p| p.name.clone()).unwrap_or_default();
        Ok(pb::GetStandingsResponse {
            round: i32::from(last),
            tie_breaks: standings.tie_breaks.iter().map(ToString::to_string).collect(),
            standings: standings
                .rows
                .iter()
                .map(|row| pb::Standing {
                    rank: i32::from(row.rank),
                    participant: i32::from(row.number.get()),
                    name: name_of(row.number),
                    points_halves: row.points.halves(),
                    points: row.points.to_string(),
                    tie_breaks: row
                        .tie_breaks
                        .iter()
                        .map(|v| v.map(|v| v.to_string()).unwrap_or_default())
                        .collect(),
                    grade_points: row.grades.as_ref().map(|g| g.current.to_string()).unwrap_or_default(),
                    rating_change: row.rating.as_ref().map(|r| r.total.to_string()).unwrap_or_default(),
                    rated_games: row
                        .rating
                        .as_ref()
                        .map_or(0, |r| i32::try_from(r.games.len()).unwrap_or(i32::MAX)),
                })
                .collect(),
        })
    }

    pub(super) async fn export_trf_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ExportTrfRequest,
    ) -> Result<pb::ExportTrfResponse, ApiError> {
        self.require_reader(metadata, "ExportTrf").await?;
        let id = event_id("event", &r.event)?;
        let (t, table, _) = self.crosstable_of(&id, r.round).await?;
        let template = t.template().map_err(|e| ApiError::stored(event_name(&id), e))?;
        Ok(pb::ExportTrfResponse { trf: crate::tournament::report::trf(&t, Some(&template), table) })
    }

    pub(super) async fn export_round_pgn_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::ExportRoundPgnRequest,
    ) -> Result<pb::ExportRoundPgnResponse, ApiError> {
        self.require_reader(metadata, "ExportRoundPgn").await?;
        let (id, number) = round_id("name", &r.name)?;
        let (_, t) = self.tournament_row(&id).await?;
        Ok(pb::ExportRoundPgnResponse { pgn: self.round_pgn(&id, &t, number, None).await? })
    }

    /// A round's PGN as the event's broadcast publishes it (its delay
    /// applied): for the HTTP feed.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] for an event without a broadcast (or with no
    /// such id) or a round it does not have.
    pub(crate) async fn broadcast_pgn(&self, id: &str, number: u16) -> Result<String, ApiError> {
        let unknown = || ApiError::NotFound(format!("the broadcast of {}", event_name(id)));
        if check_event_id(id).is_err() {
            return Err(unknown());
        }
        let (_, t) = match self.tournament_row(id).await {
            Ok(found) => found,
            Err(ApiError::NotFound(_)) => return Err(unknown()),
            Err(e) => return Err(e),
        };
        if !t.broadcast.published {
            return Err(unknown());
        }
        let cutoff = crate::table::wall_ms() - i64::from(t.broadcast.delay_seconds) * 1000;
        self.round_pgn(id, &t, number, Some(cutoff)).await
    }

    /// The started rounds (since `since_wall_ms`) of every event whose
    /// broadcast pushes them, with their PGN as published now.
    ///
    /// # Errors
    /// [`ApiError`] if storage fails; an event or round that cannot be read
    /// is logged and left out.
    pub(crate) async fn broadcast_pushes(
        &self,
        since_wall_ms: i64,
    ) -> Result<Vec<crate::broadcast::Due>, ApiError> {
        let mut due = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let rows = self.hall.store().list_tournaments(after.as_deref(), 100).await?;
            let Some(last) = rows.last() else { break };
            after = Some(last.id.clone());
            for row in rows {
                let Ok(t) = record::decode_tournament(row.format, &row.spec_json) else { continue };
                if !t.broadcast.published {
                    continue;
                }
                let cutoff = crate::table::wall_ms() - i64::from(t.broadcast.delay_seconds) * 1000;
                for round in self.hall.store().rounds(&row.id).await? {
                    if round.started_wall_ms.is_none_or(|at| at < since_wall_ms) {
                        continue;
                    }
                    let number = u16::try_from(round.number).unwrap_or(u16::MAX);
                    let Ok(spec) = record::decode_round(round.format, &round.spec_json) else { continue };
                    let Some(url) = crate::broadcast::push_url(&t.broadcast.push_url, &spec.push_url, number)
                    else {
                        continue;
                    };
                    match self.round_pgn(&row.id, &t, number, Some(cutoff)).await {
                        Ok(pgn) => due.push(crate::broadcast::Due {
                            event: row.id.clone(),
                            round: number,
                            url,
                            token: t.broadcast.push_token.clone(),
                            pgn,
                        }),
                        Err(e) => {
                            tracing::warn!(event = %row.id, round = number, error = %e, "cannot read a round to push")
                        }
                    }
                }
            }
        }
        Ok(due)
    }

    /// Every game of a round as PGN, by board; with a cutoff (Unix
    /// milliseconds), as it stood then (see [`crate::broadcast::cut`]).
    pub(crate) async fn round_pgn(
        &self,
        id: &str,
        t: &record::Tournament,
        number: u16,
        cutoff_wall_ms: Option<i64>,
    ) -> Result<String, ApiError> {
        let reading = self.round_reading(id, number).await?;
        let mut out = String::new();
        for (board, game) in reading.round.boards.iter().zip(&reading.games) {
            let (Some(game_id), Some(g)) = (&board.game, game) else { continue };
            let mut rows = Vec::new();
            let mut pages = EventPages::new(self.hall.store(), game_id, 0, 1000);
            while let Some(page) = pages.next().await? {
                rows.extend(page);
                if pages.last_seq() >= g.last_seq {
                    break;
                }
            }
            rows.retain(|r| r.seq <= g.last_seq);
            let mut game = to_proto::game(g);
            if let Some(cutoff) = cutoff_wall_ms {
                crate::broadcast::cut(&mut game, &mut rows, cutoff)?;
            }
            let rating = |n: u16| t.participant(n).map_or(0, |p| p.rating);
            let seat = crate::pgn::Seat {
                event: t.title.clone(),
                site: t.city.clone(),
                round: number.to_string(),
                board: board.number,
                white_elo: rating(board.white),
                black_elo: rating(board.black),
            };
            out.push_str(&crate::pgn::export_seated(&game, &rows, Some(&seat))?);
        }
        Ok(out)
    }
}
