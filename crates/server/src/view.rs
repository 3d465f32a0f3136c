//! What a reader gets of a game: a reading of the game at one instant and
//! the events of its log, as domain values. The table and the store produce
//! them; only the API layer (`crate::api`) turns them into the wire format.

use std::sync::Arc;

use arbiter_laws::event::Event;

use crate::error::ApiError;
use crate::event_log::{self, Aftermath, GameSpec, GameView};
use crate::store::{EventRow, GameRow, GameStatus};

/// A game as a reader sees it: its specification, where it stands and its
/// read model, with the instant its clocks were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReading {
    pub id: String,
    pub spec: Arc<GameSpec>,
    pub status: GameStatus,
    pub view: GameView,
    /// The sequence number of the last event the reading includes.
    pub last_seq: i64,
    pub created_wall_ms: i64,
    /// The wall time of the last event.
    pub updated_wall_ms: i64,
    /// When the clocks of `view` were read (Unix milliseconds).
    pub clocks_read_wall_ms: i64,
}

impl GameReading {
    /// A reading from the games index alone, without the log: `None` when
    /// the row has no read model this build can use (written by a release
    /// before read models, or in a newer format), so that the caller reads
    /// the game from its log instead.
    ///
    /// The clocks are those after the last event. A finished game's clocks
    /// no longer run, so they are read at `now_wall_ms`; a game in play read
    /// this way (one no table of this process serves) gives its clocks as
    /// they stood at its last event, and says so by their read time.
    ///
    /// # Errors
    /// [`ApiError::stored`] for a specification or view that cannot be read.
    pub fn from_row(row: &GameRow, now_wall_ms: i64) -> Result<Option<GameReading>, ApiError> {
        let Some(stored) = &row.view else { return Ok(None) };
        let view = match event_log::decode_view(stored.format, &stored.json) {
            Ok(view) => view,
            // A projection, rebuilt from the log by whoever reads it next.
            Err(event_log::FormatError::Newer { .. }) => return Ok(None),
            Err(e) => return Err(ApiError::stored(format!("games/{}: the read model", row.id), e)),
        };
        let spec = event_log::decode_spec(row.spec_format, &row.spec_json)
            .map_err(|e| ApiError::stored(format!("games/{}: the specification", row.id), e))?;
        let clocks_read_wall_ms = if row.status.is_open() { row.updated_wall_ms } else { now_wall_ms };
        Ok(Some(GameReading {
            id: row.id.clone(),
            spec: Arc::new(spec),
            status: row.status,
            view,
            last_seq: row.last_seq,
            created_wall_ms: row.created_wall_ms,
            updated_wall_ms: row.updated_wall_ms,
            clocks_read_wall_ms,
        }))
    }
}

/// An event of a game's log with what it led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedEvent {
    pub seq: i64,
    pub request_id: Option<String>,
    /// Who caused it: `white`, `black`, `arbiter`, `service`, `timer`,
    /// `server`.
    pub actor: String,
    /// The instant on the game's timeline.
    pub at_ms: i64,
    /// When it was recorded (Unix milliseconds).
    pub wall_ms: i64,
    pub event: Event,
    pub aftermath: Aftermath,
}

impl LoggedEvent {
    /// A stored row's event and aftermath.
    ///
    /// # Errors
    /// [`ApiError::stored`] if the row cannot be read.
    pub fn decode(row: &EventRow) -> Result<LoggedEvent, ApiError> {
        let at = || format!("games/{}: event {}", row.game_id, row.seq);
        let event =
            event_log::decode_event(row.format, &row.event_json).map_err(|e| ApiError::stored(at(), e))?;
        let aftermath = event_log::decode_aftermath(row.format, &row.rulings_json)
            .map_err(|e| ApiError::stored(at(), e))?;
        Ok(LoggedEvent::new(row, event, aftermath))
    }

    /// A row's metadata with its (already known) event and aftermath.
    pub fn new(row: &EventRow, event: Event, aftermath: Aftermath) -> LoggedEvent {
        LoggedEvent {
            seq: row.seq,
            request_id: row.request_id.clone(),
            actor: row.actor.clone(),
            at_ms: row.at_ms,
            wall_ms: row.wall_ms,
            event,
            aftermath,
        }
    }
}
