//! The live PGN feed of an event's rounds, for broadcast relays.
//!
//! An event with broadcast settings publishes each round's PGN as it stood
//! `delay` ago (fair play: "games are often delayed by 15 to 30 minutes"),
//! two ways:
//!
//! - **polled**: `GET /events/{event}/rounds/{round}/pgn` on arbiterd's HTTP
//!   address ([`crate::http`]), for a relay that polls a URL (lichess's
//!   "PGN URL" source, chess.com's PGN sources);
//! - **pushed**: `POST` of the same text to a lichess-compatible push
//!   endpoint (`/api/broadcast/round/{id}/push`, a bearer token) whenever it
//!   changes ([`push_rounds`]).
//!
//! The cut is taken from the game's log, not from its present state: the
//! moves on the record at the cutoff (a move taken back later, by a
//! reinstated position, is still shown as it was then), the clocks and
//! rulings logged by then, and the result only if the game had ended by
//! then. Nothing recorded after the cutoff leaks into the feed.

mod feed;
mod push;

pub(crate) use feed::round_pgn;
pub(crate) use push::{Due, PushSettings, push_rounds};

use arbiter_chess::Color;
use arbiter_laws::ruling::Decision;
use arbiter_proto::v1 as pb;

use crate::api::to_proto;
use crate::error::ApiError;
use crate::store::EventRow;
use crate::view::LoggedEvent;

/// Cuts `game` and its log `rows` (in order) back to what was recorded at
/// or before `cutoff_wall_ms` (Unix milliseconds): the rows after it are
/// dropped, the moves are those on the record then, and the end is kept
/// only if the game was over by then.
///
/// Only what the PGN export reads is cut (the moves, the end); the clocks
/// and rulings come from the rows that are kept.
///
/// # Errors
/// [`ApiError`] for a row that cannot be read.
pub(crate) fn cut(
    game: &mut pb::Game,
    rows: &mut Vec<EventRow>,
    cutoff_wall_ms: i64,
) -> Result<(), ApiError> {
    rows.retain(|r| r.wall_ms <= cutoff_wall_ms);
    let events = rows.iter().map(LoggedEvent::decode).collect::<Result<Vec<_>, _>>()?;
    let record = Record::of(&events);
    game.moves_san = record.san;
    game.moves_uci = record.uci;
    if !record.over {
        game.end = None;
    }
    Ok(())
}

/// The moves on a game's record after some of its log, and whether it was
/// over by then.
#[derive(Debug, Default, PartialEq, Eq)]
struct Record {
    san: Vec<String>,
    uci: Vec<String>,
    over: bool,
}

impl Record {
    fn of(events: &[LoggedEvent]) -> Record {
        let mut record = Record::default();
        for ruling in events.iter().flat_map(|e| &e.aftermath.rulings) {
            match &ruling.decision {
                // `ply` is the move's 1-based number once on the record.
                Decision::MoveMade { ply, san, uci, .. } => {
                    let before = ply.saturating_sub(1);
                    record.san.truncate(before);
                    record.uci.truncate(before);
                    record.san.push(san.clone());
                    record.uci.push(uci.clone());
                }
                // The record keeps its first `ply` moves.
                Decision::PositionReinstated { ply, .. } => {
                    record.san.truncate(*ply);
                    record.uci.truncate(*ply);
                }
                Decision::GameOver(_) => record.over = true,
                _ => {}
            }
        }
        record
    }
}

/// `game` as the spectators see it at `cutoff_wall_ms`, from its whole log
/// `events` (decoded, in order): the moves on the record then, the position
/// and clocks after the last event logged by then (the running clock run
/// down to the cutoff), the result only if it was over; nothing of the
/// present (obligation, offer, questions, e-board) and nothing recorded
/// later.
pub(crate) fn published_game(game: &pb::Game, events: &[LoggedEvent], cutoff_wall_ms: i64) -> pb::Game {
    let kept = events.partition_point(|e| e.wall_ms <= cutoff_wall_ms);
    let kept = &events[..kept];
    let record = Record::of(kept);
    let (fen, clocks, status, last_seq) = match kept.last() {
        Some(last) => {
            let mut clocks = last.aftermath.clocks;
            if !record.over && !clocks.paused {
                let ran = (cutoff_wall_ms - last.wall_ms).max(0);
                match clocks.running {
                    Some(Color::White) => clocks.white_ms = (clocks.white_ms - ran).max(0),
                    Some(Color::Black) => clocks.black_ms = (clocks.black_ms - ran).max(0),
                    None => {}
                }
            }
            let status = if record.over { game.status } else { pb::GameStatus::InProgress as i32 };
            (last.aftermath.fen.clone(), Some(to_proto::clocks(clocks, cutoff_wall_ms)), status, last.seq)
        }
        // Not started yet then: the start position, the clocks standing.
        None => {
            let (fen, clocks) = match events.first() {
                Some(first) => {
                    let mut clocks = first.aftermath.clocks;
                    clocks.running = None;
                    (first.aftermath.fen.clone(), Some(to_proto::clocks(clocks, cutoff_wall_ms)))
                }
                None => (game.fen.clone(), game.clocks),
            };
            (fen, clocks, pb::GameStatus::Pending as i32, 0)
        }
    };
    let side_to_move = match fen.split(' ').nth(1) {
        Some("b") => pb::Color::Black,
        _ => pb::Color::White,
    };
    pb::Game {
        name: game.name.clone(),
        event: game.event.clone(),
        round: game.round.clone(),
        white: game.white.clone(),
        black: game.black.clone(),
        regulations: game.regulations.clone(),
        category: game.category,
        round_name: game.round_name.clone(),
        board_number: game.board_number,
        create_time: game.create_time,
        status,
        end: if record.over { game.end.clone() } else { None },
        fen,
        moves_san: record.san,
        moves_uci: record.uci,
        side_to_move: side_to_move as i32,
        clocks,
        last_seq,
        ..pb::Game::default()
    }
}

/// A push URL for round `number`: the round's own, else the event's with
/// `{round}` replaced by the number; `None` when neither is set.
pub(crate) fn push_url(event_url: &str, round_url: &str, number: u16) -> Option<String> {
    if !round_url.is_empty() {
        Some(round_url.to_owned())
    } else if !event_url.is_empty() {
        Some(event_url.replace("{round}", &number.to_string()))
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
