//! PGN export: the moves on the record with `[%clk]` readings, and every
//! ruling other than plain move bookkeeping as a comment naming its rule.

use std::collections::BTreeMap;
use std::time::Duration;

use arbiter_chess::pgn::{GameResult as PgnResult, PgnMove, WriteOptions, format_game};
use arbiter_chess::{CastlingMode, FenOptions, Position};
use arbiter_laws::article::Citation;
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause};
use arbiter_laws::time_control::TimeControl;
use arbiter_proto::v1 as pb;

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

    // Walk the log: the clock after each completed move, and the rulings to
    // show after the move that was on the record when they were given.
    let mut clocks: BTreeMap<usize, i64> = BTreeMap::new();
    let mut comments: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut ply = 0usize;
    let mut last_made = 0usize;
    for row in events {
        for r in LoggedEvent::decode(row)?.aftermath.rulings {
            match &r.decision {
                Decision::MoveMade { ply: p, .. } => {
                    // `ply` is the record's ply count once the move is on it
                    // (1 for White's first move: the Laws push the move, then
                    // read `ply_count`), i.e. the 1-based number of the move,
                    // which is the key used below. (Reading it as the count
                    // before the move put every clock and comment one move
                    // late and dropped those of the last move.)
                    last_made = *p;
                    ply = last_made;
                }
                Decision::MoveCompleted { remaining_ms, .. } => {
                    clocks.insert(last_made, *remaining_ms);
                }
                Decision::PositionReinstated { ply: p, .. } => {
                    ply = *p;
                    clocks.retain(|k, _| *k <= ply);
                    comments
                        .entry(ply)
                        .or_default()
                        .push(format!("{}: position before ply {p} reinstated", Citation(r.rule)));
                }
                Decision::GameStarted { .. } | Decision::PremoveQueued { .. } => {}
                _ => {
                    let text = crate::api::to_proto::ruling_to_proto(&r).summary.replace(['{', '}'], "");
                    comments.entry(ply).or_default().push(format!("{}: {text}", Citation(r.rule)));
                }
            }
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
            pm = pm.with_clock(Duration::from_millis(u64::try_from(*ms).unwrap_or(0)));
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
    if let Some(c) = comments.get(&0) {
        tags.push((
            "Annotator",
            format!("Arbiter; before the first move: {}", c.join("; ")).replace('"', "'"),
        ));
    }
    format_game(&tags, &start, &moves, result, WriteOptions::default())
        .map_err(|e| ApiError::Internal(format!("{}: cannot write PGN: {e}", game.name)))
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
    let (y, m, d) = civil_date(unix_seconds);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The UTC calendar date (year, month, day) of Unix seconds, by the
/// civil-from-days algorithm (proleptic Gregorian).
#[must_use]
pub fn civil_date(unix_seconds: i64) -> (i64, i64, i64) {
    let days = unix_seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::pgn_date;

    #[test]
    fn dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
        assert_eq!(pgn_date(1_796_083_200), "2026.12.01");
    }
}
