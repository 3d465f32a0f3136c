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

use arbiter_laws::ruling::Decision;
use arbiter_proto::v1 as pb;

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
    let mut san: Vec<String> = Vec::new();
    let mut uci: Vec<String> = Vec::new();
    let mut over = false;
    for row in rows.iter() {
        for ruling in LoggedEvent::decode(row)?.aftermath.rulings {
            match ruling.decision {
                // `ply` is the move's 1-based number once on the record.
                Decision::MoveMade { ply, san: s, uci: u, .. } => {
                    let before = ply.saturating_sub(1);
                    san.truncate(before);
                    uci.truncate(before);
                    san.push(s);
                    uci.push(u);
                }
                // The record keeps its first `ply` moves.
                Decision::PositionReinstated { ply, .. } => {
                    san.truncate(ply);
                    uci.truncate(ply);
                }
                Decision::GameOver(_) => over = true,
                _ => {}
            }
        }
    }
    game.moves_san = san;
    game.moves_uci = uci;
    if !over {
        game.end = None;
    }
    Ok(())
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
