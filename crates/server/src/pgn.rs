//! PGN export: the moves on the record with `[%clk]` readings (`H:MM:SS`),
//! and every ruling other than plain move bookkeeping as a comment naming
//! its rule and Article where it happened: after the move on the record at
//! the time, or before the first move. A move refused by touch-move is
//! named in its comment; an illegal move is named by its ruling.

use std::collections::BTreeMap;
use std::time::Duration;

use arbiter_chess::pgn::{GameResult as PgnResult, PgnMove, WriteOptions, format_game_with_comment};
use arbiter_chess::{CastlingMode, Color, FenOptions, Position, Role, UciMove};
use arbiter_laws::article::Citation;
use arbiter_laws::event::Event;
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause, Ruling};
use arbiter_laws::time_control::TimeControl;
use arbiter_proto::v1 as pb;

use crate::api::to_proto::move_outcome;
use crate::error::ApiError;
use crate::store::EventRow;
use crate::view::LoggedEvent;

/// What a game's PGN says beyond the game itself when it belongs to a round
/// of an event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seat {
    /// The event's title (the `Event` tag), overriding the game's label.
    pub event: String,
    /// The `Site` tag (the event's city).
    pub site: String,
    /// The `Round` tag.
    pub round: String,
    /// The `Board` tag.
    pub board: u16,
    /// FIDE ratings (`WhiteElo`, `BlackElo`); 0 if unrated.
    pub white_elo: u16,
    pub black_elo: u16,
}

/// The PGN of `game`, given its whole event log.
///
/// # Errors
/// [`ApiError::Internal`] if the stored game cannot be written (a corrupt
/// log).
pub fn export(game: &pb::Game, events: &[EventRow]) -> Result<String, ApiError> {
    export_seated(game, events, None)
}

/// The PGN of `game` as a game of a round (`seat`), or alone.
///
/// # Errors
/// As [`export`].
pub fn export_seated(game: &pb::Game, events: &[EventRow], seat: Option<&Seat>) -> Result<String, ApiError> {
    let regs = game.regulations.clone().unwrap_or_default();
    // A response's `time_control` is the service's PGN form; the tag is
    // standard PGN (DEC-26), with what the standard cannot say (a delay, an
    // increment from a later move, different controls per colour, fractions
    // of a second) in an `ArbiterTimeControl` tag in the service's form.
    let (time_control_tag, exact_time_control) = if regs.time_control.is_empty() {
        ("?".to_owned(), None)
    } else {
        let tc = TimeControl::from_pgn(&regs.time_control).map_err(|e| {
            ApiError::Internal(format!("{}: time control {:?} unreadable: {e}", game.name, regs.time_control))
        })?;
        (tc.to_standard_pgn(), (!tc.standard_pgn_is_exact()).then(|| tc.to_pgn()))
    };
    let start = if regs.start_fen.is_empty() {
        let mut p = Position::startpos();
        if regs.chess960 {
            let _ = p.set_castling_mode(CastlingMode::Chess960);
        }
        p
    } else {
        let options = FenOptions { chess960: regs.chess960, ..FenOptions::STRICT };
        Position::from_fen_with(&regs.start_fen, options).map_err(|e| {
            ApiError::Internal(format!("{}: stored start position unreadable: {e}", game.name))
        })?
    };

    // Walk the log: the clock after each move, and the rulings to show
    // after the move that was on the record when they were given (key 0:
    // before the first move, which PGN writes as a comment before it).
    let timed = !regs.time_control.is_empty();
    let mut clocks: BTreeMap<usize, i64> = BTreeMap::new();
    let mut comments: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    // The record as the log made it (SAN), to name moves taken back.
    let mut record: Vec<String> = Vec::new();
    // The last move made whose completion has not been logged (a move that
    // ends the game is completed without a press, 6.2.1.1; a move answered
    // before the press, DEC-24): its clock is the mover's as the log last
    // read it while that move was the last on the record.
    let mut unclocked: Option<(usize, Color)> = None;
    let mut last_made = 0usize;
    for row in events {
        let logged = LoggedEvent::decode(row)?;
        let refused =
            move_outcome(&logged.event, &logged.aftermath.rulings) == pb::MoveOutcome::RefusedTouchMove;
        for r in &logged.aftermath.rulings {
            match &r.decision {
                Decision::MoveMade { ply: p, color, san, .. } => {
                    // `ply` is the record's ply count once the move is on it
                    // (1 for White's first move: the Laws push the move, then
                    // read `ply_count`), i.e. the 1-based number of the move,
                    // which is the key used below. (Reading it as the count
                    // before the move put every clock and comment one move
                    // late and dropped those of the last move.)
                    last_made = *p;
                    record.truncate(p.saturating_sub(1));
                    record.push(san.clone());
                    unclocked = Some((*p, *color));
                }
                Decision::MoveCompleted { remaining_ms, .. } => {
                    clocks.insert(last_made, *remaining_ms);
                    unclocked = None;
                }
                Decision::PositionReinstated { ply: p, .. } => {
                    // The record keeps its first `p` moves. What was said
                    // after the moves taken back is said here, where the game
                    // goes on, not after the moves that replace them.
                    let taken_back: Vec<String> =
                        (*p..record.len()).map(|i| move_label(&start, i + 1, &record[i])).collect();
                    record.truncate(*p);
                    last_made = *p;
                    clocks.retain(|k, _| k <= p);
                    unclocked = unclocked.filter(|(u, _)| u <= p);
                    let later: Vec<String> = comments.split_off(&(*p + 1)).into_values().flatten().collect();
                    let mut text = match record.last() {
                        Some(san) => {
                            format!("the position after {} is reinstated", move_label(&start, *p, san))
                        }
                        None => "the starting position is reinstated".to_owned(),
                    };
                    if !taken_back.is_empty() {
                        text.push_str(&format!("; taken back: {}", taken_back.join(" ")));
                    }
                    let here = comments.entry(*p).or_default();
                    here.extend(later);
                    here.push(format!("{}: {text}", Citation(r.rule)));
                }
                Decision::IllegalMoveNotActedOn { description, .. } => {
                    // A.5.2: the illegal move stands on the record (no
                    // `MoveMade`), until claimed.
                    record.push(description.clone());
                    last_made = record.len();
                    comments.entry(record.len()).or_default().push(format!(
                        "{}: {}",
                        Citation(r.rule),
                        summary(r)
                    ));
                }
                Decision::GameStarted { .. } | Decision::PremoveQueued { .. } => {}
                Decision::Obligation { color, .. } if refused && Some(*color) == logged.event.player() => {
                    // A move that touch-move forbids: the service took it
                    // back at once, so only the log knows it was tried.
                    let tried = attempted_move(&logged.event, &logged.aftermath.fen, regs.chess960);
                    comments.entry(record.len()).or_default().push(format!(
                        "{} attempted {tried}: refused; {}: {}",
                        side(*color),
                        Citation(r.rule),
                        summary(r)
                    ));
                }
                _ => {
                    comments.entry(record.len()).or_default().push(format!(
                        "{}: {}",
                        Citation(r.rule),
                        summary(r)
                    ));
                }
            }
        }
        if timed && let Some((p, color)) = unclocked {
            let c = &logged.aftermath.clocks;
            clocks.insert(p, if color == Color::White { c.white_ms } else { c.black_ms });
        }
    }

    let mut moves = Vec::with_capacity(game.moves_uci.len());
    let mut pos = start;
    for (i, text) in game.moves_uci.iter().enumerate() {
        let m = pos
            .parse_uci(text)
            .map_err(|e| ApiError::Internal(format!("{}: stored move {text} unreadable: {e}", game.name)))?;
        let mut pm = PgnMove::new(m);
        if let Some(ms) = clocks.get(&(i + 1)) {
            pm = pm.with_clock(clock_reading(*ms));
        }
        if let Some(c) = comments.get(&(i + 1)) {
            pm = pm.with_comment(c.join("; "));
        }
        moves.push(pm);
        pos = pos.after(m);
    }

    let end = game.end.as_ref();
    let result_text = end.map_or("*", |e| e.result.as_str());
    let result = match result_text {
        "1-0" => PgnResult::WhiteWins,
        "0-1" => PgnResult::BlackWins,
        "1/2-1/2" => PgnResult::Draw,
        _ => PgnResult::Unknown,
    };
    let date = game.create_time.as_ref().map_or_else(|| "????.??.??".to_string(), |t| pgn_date(t.seconds));
    let white = game.white.as_ref().map_or("?", |p| p.name.as_str());
    let black = game.black.as_ref().map_or("?", |p| p.name.as_str());
    let or_unknown = |text: &str| if text.is_empty() { "?".to_owned() } else { text.to_owned() };
    let (event, site, round) = match seat {
        Some(s) => (or_unknown(&s.event), or_unknown(&s.site), or_unknown(&s.round)),
        None => (or_unknown(&game.event), "?".to_owned(), or_unknown(&game.round)),
    };
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", event),
        ("Site", site),
        ("Date", date),
        ("Round", round),
        ("White", white.into()),
        ("Black", black.into()),
        ("Result", result.as_str().into()),
    ];
    if let Some(s) = seat {
        tags.push(("Board", s.board.to_string()));
        for (tag, elo) in [("WhiteElo", s.white_elo), ("BlackElo", s.black_elo)] {
            if elo > 0 {
                tags.push((tag, elo.to_string()));
            }
        }
    }
    for (tag, player) in [("WhiteFideId", &game.white), ("BlackFideId", &game.black)] {
        if let Some(p) = player
            && !p.fide_id.is_empty()
        {
            tags.push((tag, p.fide_id.clone()));
        }
    }
    tags.push(("TimeControl", time_control_tag));
    if let Some(exact) = exact_time_control {
        tags.push(("ArbiterTimeControl", exact));
    }
    if !regs.start_fen.is_empty() {
        tags.push(("SetUp", "1".into()));
        tags.push(("FEN", regs.start_fen.clone()));
    }
    if regs.chess960 {
        tags.push(("Variant", "Chess960".into()));
    }
    if let Some(e) = end {
        let cited = match e.rule_id.parse::<RuleId>() {
            Ok(rule) => Citation(rule).to_string(),
            Err(_) => e.rule_id.clone(),
        };
        // The standard value, which other programs read; the reason and
        // the Article in a tag of the service's own.
        if !e.termination.is_empty() {
            tags.push(("Termination", e.termination.clone()));
        }
        tags.push(("ArbiterTermination", format!("{} ({cited})", e.reason).replace('"', "'")));
        if result == PgnResult::Unknown && e.result != "*" {
            // Scores PGN cannot write as a result (forfeits, adjusted
            // scores) are kept in a tag of their own.
            tags.push(("ArbiterResult", e.result.clone()));
        }
    }
    // What happened before the first move (a player's arrival, a touch, an
    // illegal first move, a clock set) is a comment before it, the PGN
    // place for it (not the `Annotator` tag, which names a person).
    let before_first = comments.get(&0).map(|c| c.join("; "));
    format_game_with_comment(&tags, &start, before_first.as_deref(), &moves, result, WriteOptions::default())
        .map_err(|e| ApiError::Internal(format!("{}: cannot write PGN: {e}", game.name)))
}

/// The `[%clk]` reading of `remaining_ms`: whole seconds, rounded down as a
/// clock's display shows them (0.9 s left reads 0:00:00), so that every
/// reading has the same form, `H:MM:SS`, as lichess writes it. The exact
/// milliseconds stay in the game's log (the rulings' `remaining_ms`, read
/// with `ListGameEvents` or `arbiter audit`) and in the game's clock
/// reading.
fn clock_reading(remaining_ms: i64) -> Duration {
    Duration::from_secs(u64::try_from(remaining_ms.div_euclid(1000)).unwrap_or(0))
}

/// A ruling's sentence for a comment (without braces, which end one).
fn summary(r: &Ruling) -> String {
    crate::api::to_proto::ruling_to_proto(r).summary.replace(['{', '}'], "")
}

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Move `ply` (1-based from `start`) with its number: `12. Nf3`, `12... Nc6`.
fn move_label(start: &Position, ply: usize, san: &str) -> String {
    let index = ply.saturating_sub(1) + usize::from(start.turn() == Color::Black);
    let number = usize::try_from(start.fullmove_number()).unwrap_or(1) + index / 2;
    if index.is_multiple_of(2) { format!("{number}. {san}") } else { format!("{number}... {san}") }
}

/// The move a player tried with `event` in the position `fen` (the
/// position it left, since a refused move changes nothing): SAN when it is
/// a legal move there, else its squares with the piece (`Ng1-e2`).
fn attempted_move(event: &Event, fen: &str, chess960: bool) -> String {
    let (Event::MakeMove { mv, .. } | Event::SubmitMove { mv, .. }) = event else {
        return "a move".to_owned();
    };
    let options = FenOptions { chess960, ..FenOptions::STRICT };
    let Ok(pos) = Position::from_fen_with(fen, options) else {
        return format!("{}-{}", mv.from, mv.to);
    };
    let uci = UciMove { from: mv.from, to: mv.to, promotion: mv.promotion };
    if let Ok(m) = uci.to_move(&pos) {
        return pos.san(m);
    }
    let piece = pos
        .board()
        .piece_at(mv.from)
        .filter(|p| p.role != Role::Pawn)
        .map(|p| p.role.upper_char().to_string())
        .unwrap_or_default();
    let promotion = mv.promotion.map(|r| format!("={}", r.upper_char())).unwrap_or_default();
    format!("{piece}{}-{}{promotion}", mv.from, mv.to)
}

/// The standard PGN `Termination` value (PGN standard 9.8.1) of a game's
/// end: `normal` for the ends of Article 5 and 9 over the board, `time
/// forfeit` for a flag (also when it is a draw because the opponent cannot
/// checkmate), `abandoned` for a player who never came or did not come back,
/// `rules infraction` for a loss imposed by the Laws or the arbiter for a
/// breach, `adjudication` for a result the arbiter decided, and
/// `unterminated` for an annulled game, which a new one replaces.
#[must_use]
pub fn termination(cause: EndCause) -> &'static str {
    match cause {
        EndCause::Checkmate
        | EndCause::Stalemate
        | EndCause::DeadPosition
        | EndCause::FivefoldRepetition
        | EndCause::SeventyFiveMoves
        | EndCause::ThreefoldRepetition
        | EndCause::FiftyMoves
        | EndCause::Agreement
        | EndCause::Resignation
        | EndCause::IllegalPosition => "normal",
        EndCause::Flag | EndCause::NoPossibleCheckmate => "time forfeit",
        EndCause::DefaultTime | EndCause::NotReconnected => "abandoned",
        EndCause::IllegalMoves | EndCause::ArbiterPenalty | EndCause::ElectronicDevice => "rules infraction",
        EndCause::DeclaredByArbiter | EndCause::NoWinningAttempt => "adjudication",
        EndCause::WrongInitialPosition | EndCause::ColoursReversed => "unterminated",
    }
}

/// `YYYY.MM.DD` for Unix seconds (UTC).
fn pgn_date(unix_seconds: i64) -> String {
    match utc_date(unix_seconds) {
        Some((y, m, d)) => format!("{y:04}.{m:02}.{d:02}"),
        None => "????.??.??".to_owned(),
    }
}

/// The UTC calendar date (year, month, day) of Unix seconds: the date of
/// prost-types' RFC 3339 form of the instant (`2026-12-01T00:00:00Z`; a
/// year before 0 is written `-0001`, one after 9999 `+10000`). `None` only
/// if that text were not a date, which prost-types does not write.
#[must_use]
pub fn utc_date(unix_seconds: i64) -> Option<(i64, u8, u8)> {
    let text = prost_types::Timestamp { seconds: unix_seconds, nanos: 0 }.to_string();
    let (date, _time) = text.split_once('T')?;
    // From the right: the year may carry a sign.
    let mut parts = date.rsplitn(3, '-');
    let day = parts.next()?.parse().ok()?;
    let month = parts.next()?.parse().ok()?;
    let year = parts.next()?.parse().ok()?;
    Some((year, month, day))
}

#[cfg(test)]
mod tests {
    use super::{clock_reading, move_label, pgn_date, utc_date};
    use arbiter_chess::Position;
    use std::time::Duration;

    #[test]
    fn dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(-1), "1969.12.31");
        assert_eq!(pgn_date(86_399), "1970.01.01");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
        assert_eq!(pgn_date(1_796_083_200), "2026.12.01");
        // 2100 is not a leap year: 28 February is followed by 1 March.
        assert_eq!(pgn_date(4_107_456_000), "2100.02.28");
        assert_eq!(pgn_date(4_107_542_400), "2100.03.01");
        assert_eq!(utc_date(-62_135_596_800), Some((1, 1, 1)));
        assert_eq!(utc_date(-62_135_596_801), Some((0, 12, 31)));
        assert_eq!(utc_date(-62_167_219_201), Some((-1, 12, 31)));
        assert_eq!(utc_date(253_402_300_800), Some((10_000, 1, 1)));
    }

    /// Day after day over four centuries (a whole Gregorian cycle and its
    /// neighbours), each date follows the one before it by the calendar's
    /// rules.
    #[test]
    fn consecutive_days_follow_the_calendar() {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let length = |y: i64, m: u8| match m {
            2 if leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        // From 1 January 1900 to 1 January 2300.
        let (first, last) = (-2_208_988_800_i64, 10_413_792_000_i64);
        let mut previous = utc_date(first).unwrap();
        assert_eq!(previous, (1900, 1, 1));
        let mut day = first + 86_400;
        while day <= last {
            let (y, m, d) = utc_date(day).unwrap();
            let (py, pm, pd) = previous;
            let expected = if pd < length(py, pm) {
                (py, pm, pd + 1)
            } else if pm < 12 {
                (py, pm + 1, 1)
            } else {
                (py + 1, 1, 1)
            };
            assert_eq!((y, m, d), expected, "day {day}");
            // Noon of the same day is the same date.
            assert_eq!(utc_date(day + 43_200), Some(expected));
            previous = (y, m, d);
            day += 86_400;
        }
        assert_eq!(previous, (2300, 1, 1));
    }

    #[test]
    fn clock_readings_are_whole_seconds_rounded_down() {
        assert_eq!(clock_reading(299_759), Duration::from_secs(299));
        assert_eq!(clock_reading(281_640), Duration::from_secs(281));
        assert_eq!(clock_reading(5_460_000), Duration::from_secs(5_460));
        assert_eq!(clock_reading(999), Duration::ZERO);
        assert_eq!(clock_reading(-5), Duration::ZERO);
        assert_eq!(arbiter_chess::pgn::format_clock(clock_reading(299_759)), "0:04:59");
    }

    #[test]
    fn move_labels() {
        let start = Position::startpos();
        assert_eq!(move_label(&start, 1, "e4"), "1. e4");
        assert_eq!(move_label(&start, 2, "e5"), "1... e5");
        assert_eq!(move_label(&start, 3, "Nf3"), "2. Nf3");
        let black_first = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 40").unwrap();
        assert_eq!(move_label(&black_first, 1, "Kd7"), "40... Kd7");
        assert_eq!(move_label(&black_first, 2, "e4"), "41. e4");
    }
}
