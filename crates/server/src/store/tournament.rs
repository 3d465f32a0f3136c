//! Durable storage of events and rounds (the `events/{event}` and
//! `events/{event}/rounds/{round}` resources).
//!
//! On the wire these are "events", the word of the Laws and of TRF; here
//! they are *tournaments*, because an event of this crate is an entry of a
//! game's log. A tournament and each of its rounds are one document each,
//! JSON written by the server (`crate::tournament::record`) and opaque to
//! the store, like a game's spec. The games of a round are ordinary games
//! (`games/{game}`); the round's document names them.
//!
//! Invariants every backend keeps:
//! - a tournament's document changes only by compare-and-set on its
//!   `version` (1 at creation, one more per change), so two arbiters
//!   editing the same event never lose each other's change;
//! - a round and all its games are created in one transaction: the round
//!   exists with every game or not at all, and a round number is created
//!   once;
//! - a round's start is recorded once: the first start stands;
//! - a request id appears at most once per scope among tournament-level
//!   requests, recorded in the same transaction as what the request did.

use std::future::Future;

use super::{GameRow, RequestOrigin, Storage, StoreError, within};

/// A tournament's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    /// The `{event}` of `events/{event}`.
    pub id: String,
    /// The token that created it (`crate::auth::CallerId`).
    pub creator: String,
    pub created_wall_ms: i64,
    pub updated_wall_ms: i64,
    /// 1 at creation, one more per change.
    pub version: i64,
    /// The format `spec_json` is written in.
    pub format: i64,
    /// The tournament (regulations, participants, adjustments...), opaque.
    pub spec_json: String,
}

/// A round's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundRow {
    pub tournament_id: String,
    /// 1, 2, 3...
    pub number: i64,
    pub created_wall_ms: i64,
    /// When its clocks were started (Unix ms), once they were.
    pub started_wall_ms: Option<i64>,
    /// The format `spec_json` is written in.
    pub format: i64,
    /// The boards (game ids, players), byes and forfeits, opaque.
    pub spec_json: String,
}

/// A game of a round, with its board number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundGame {
    pub board: i64,
    /// The start numbers of White and Black.
    pub white: i64,
    pub black: i64,
    pub game: GameRow,
}

/// Where a game sits in a tournament (see
/// [`TournamentStore::round_of_game`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSeat {
    pub tournament_id: String,
    pub round: i64,
    pub board: i64,
    /// The start numbers of White and Black.
    pub white: i64,
    pub black: i64,
}

/// An arbiter's acknowledgement of an alert of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlertAck {
    pub alert_id: String,
    /// Who acknowledged it (`arbiter`).
    pub actor: String,
    pub wall_ms: i64,
}

/// What a tournament-level request with a request id did (see
/// [`TournamentStore::tournament_request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRequest {
    /// Hex SHA-256 of the request without its request id.
    pub sha256: String,
    /// The resource it created or changed (`events/x`, `events/x/rounds/2`).
    pub target: String,
}

/// A request id and who sent what with it, to record with a write.
pub type Requested<'a> = Option<(&'a str, &'a RequestOrigin)>;

/// The storage contract for tournaments and rounds. Every method is a single
/// atomic operation.
pub trait TournamentStore: Send + Sync {
    /// Creates a tournament (its `version` must be 1) and records the
    /// request.
    ///
    /// # Errors
    /// [`StoreError::ResourceExists`] for a taken id,
    /// [`StoreError::DuplicateRequest`] for a request id used in its scope,
    /// [`StoreError::Invalid`], [`StoreError::Unavailable`].
    fn create_tournament(
        &self,
        row: &TournamentRow,
        request: Requested<'_>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The tournament with this id.
    fn tournament(&self, id: &str) -> impl Future<Output = Result<Option<TournamentRow>, StoreError>> + Send;
    /// Tournaments with ids after `after_id`, by id, at most `limit`.
    fn list_tournaments(
        &self,
        after_id: Option<&str>,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<TournamentRow>, StoreError>> + Send;
    /// Replaces a tournament's document if its version is still
    /// `row.version - 1`, and records the request.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] if another change came first,
    /// [`StoreError::ResourceNotFound`], [`StoreError::DuplicateRequest`],
    /// [`StoreError::Unavailable`].
    fn update_tournament(
        &self,
        row: &TournamentRow,
        request: Requested<'_>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Creates a round and its games (each as a new `PENDING` game), all or
    /// nothing, and records the request.
    ///
    /// # Errors
    /// [`StoreError::ResourceNotFound`] for an unknown tournament,
    /// [`StoreError::ResourceExists`] for a round number already created,
    /// [`StoreError::AlreadyExists`] for a game id already taken,
    /// [`StoreError::DuplicateRequest`], [`StoreError::Unavailable`].
    fn create_round(
        &self,
        round: &RoundRow,
        games: &[RoundGame],
        request: Requested<'_>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// A round.
    fn round(
        &self,
        tournament_id: &str,
        number: i64,
    ) -> impl Future<Output = Result<Option<RoundRow>, StoreError>> + Send;
    /// A tournament's rounds, by number.
    fn rounds(&self, tournament_id: &str) -> impl Future<Output = Result<Vec<RoundRow>, StoreError>> + Send;
    /// Records a round's start at `wall_ms` unless one is recorded, and
    /// returns the start that stands.
    ///
    /// # Errors
    /// [`StoreError::ResourceNotFound`], [`StoreError::Unavailable`].
    fn start_round(
        &self,
        tournament_id: &str,
        number: i64,
        wall_ms: i64,
    ) -> impl Future<Output = Result<i64, StoreError>> + Send;
    /// The round and board of a game created by [`TournamentStore::create_round`].
    fn round_of_game(
        &self,
        game_id: &str,
    ) -> impl Future<Output = Result<Option<GameSeat>, StoreError>> + Send;
    /// Records that `ack.actor` acknowledged an alert of a round, unless it
    /// was acknowledged before, and returns the acknowledgement that stands.
    ///
    /// # Errors
    /// [`StoreError::ResourceNotFound`] for an unknown round,
    /// [`StoreError::Unavailable`].
    fn acknowledge_alert(
        &self,
        tournament_id: &str,
        round: i64,
        ack: &AlertAck,
    ) -> impl Future<Output = Result<AlertAck, StoreError>> + Send;
    /// The acknowledgements of a round's alerts, in no particular order.
    fn alert_acks(
        &self,
        tournament_id: &str,
        round: i64,
    ) -> impl Future<Output = Result<Vec<AlertAck>, StoreError>> + Send;
    /// What the tournament-level request with this id did in this scope.
    fn tournament_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> impl Future<Output = Result<Option<TournamentRequest>, StoreError>> + Send;
}

/// The resource name of a round, for errors.
pub(crate) fn round_name(tournament_id: &str, number: i64) -> String {
    format!("events/{tournament_id}/rounds/{number}")
}

impl TournamentStore for Storage {
    async fn create_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.create_tournament(row, request).await,
                Storage::Postgres(store) => store.create_tournament(row, request).await,
            }
        })
        .await
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.tournament(id).await,
                Storage::Postgres(store) => store.tournament(id).await,
            }
        })
        .await
    }

    async fn list_tournaments(
        &self,
        after_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.list_tournaments(after_id, limit).await,
                Storage::Postgres(store) => store.list_tournaments(after_id, limit).await,
            }
        })
        .await
    }

    async fn update_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.update_tournament(row, request).await,
                Storage::Postgres(store) => store.update_tournament(row, request).await,
            }
        })
        .await
    }

    async fn create_round(
        &self,
        round: &RoundRow,
        games: &[RoundGame],
        request: Requested<'_>,
    ) -> Result<(), StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.create_round(round, games, request).await,
                Storage::Postgres(store) => store.create_round(round, games, request).await,
            }
        })
        .await
    }

    async fn round(&self, tournament_id: &str, number: i64) -> Result<Option<RoundRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.round(tournament_id, number).await,
                Storage::Postgres(store) => store.round(tournament_id, number).await,
            }
        })
        .await
    }

    async fn rounds(&self, tournament_id: &str) -> Result<Vec<RoundRow>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.rounds(tournament_id).await,
                Storage::Postgres(store) => store.rounds(tournament_id).await,
            }
        })
        .await
    }

    async fn start_round(&self, tournament_id: &str, number: i64, wall_ms: i64) -> Result<i64, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.start_round(tournament_id, number, wall_ms).await,
                Storage::Postgres(store) => store.start_round(tournament_id, number, wall_ms).await,
            }
        })
        .await
    }

    async fn acknowledge_alert(
        &self,
        tournament_id: &str,
        round: i64,
        ack: &AlertAck,
    ) -> Result<AlertAck, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.acknowledge_alert(tournament_id, round, ack).await,
                Storage::Postgres(store) => store.acknowledge_alert(tournament_id, round, ack).await,
            }
        })
        .await
    }

    async fn alert_acks(&self, tournament_id: &str, round: i64) -> Result<Vec<AlertAck>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.alert_acks(tournament_id, round).await,
                Storage::Postgres(store) => store.alert_acks(tournament_id, round).await,
            }
        })
        .await
    }

    async fn round_of_game(&self, game_id: &str) -> Result<Option<GameSeat>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.round_of_game(game_id).await,
                Storage::Postgres(store) => store.round_of_game(game_id).await,
            }
        })
        .await
    }

    async fn tournament_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<TournamentRequest>, StoreError> {
        within(async {
            match self {
                Storage::Sqlite(store) => store.tournament_request(scope, request_id).await,
                Storage::Postgres(store) => store.tournament_request(scope, request_id).await,
            }
        })
        .await
    }
}
