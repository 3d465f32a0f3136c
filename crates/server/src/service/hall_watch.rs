//! `WatchGames`: many games on one stream, for the web console's hall and
//! hall screens.
//!
//! A browser opens at most six HTTP/1.1 connections to one host, and every
//! `WatchGame` stream holds one: a hall of twenty boards cannot be followed
//! game by game. This stream follows the store's notifications (so other
//! replicas' appends too) and sends a game again, with the events that
//! changed it, whenever its log grows. Nothing is lost to a lagging
//! subscription: after a resync every game is compared with its log.

use std::collections::{HashMap, HashSet};

use arbiter_proto::v1 as pb;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;
use tonic::metadata::MetadataMap;

use super::Arbiter;
use super::events::{event_id, round_id};
use crate::api::to_proto;
use crate::auth::Role;
use crate::error::ApiError;
use crate::quota::WatchPermit;
use crate::store::tournament::TournamentStore;
use crate::store::{EventStore, GameFilter, GameStatus, MAX_LIST_ROWS, RESYNC};
use crate::view::LoggedEvent;

/// The events one update carries at most; the game itself holds the rest.
const EVENTS_PER_UPDATE: u32 = 100;

/// Which games a watch follows.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scope {
    /// One round's boards.
    Round { event: String, round: u16 },
    /// The boards of every round of an event.
    Event { event: String },
    /// Every game pending or in progress, and every game created later.
    InPlay,
}

impl Scope {
    fn parse(text: &str) -> Result<Scope, ApiError> {
        if text.is_empty() {
            Ok(Scope::InPlay)
        } else if text.contains("/rounds/") {
            let (event, round) = round_id("scope", text)?;
            Ok(Scope::Round { event, round })
        } else {
            Ok(Scope::Event { event: event_id("scope", text)? })
        }
    }

    /// Whether a game seated at `round_name` (`events/{e}/rounds/{n}`, or
    /// empty) belongs to the scope.
    fn holds(&self, round_name: &str) -> bool {
        match self {
            Scope::InPlay => true,
            Scope::Event { event } => round_name.starts_with(&format!("events/{event}/rounds/")),
            Scope::Round { event, round } => round_name == format!("events/{event}/rounds/{round}"),
        }
    }
}

/// One WatchGames stream.
struct HallWatch {
    arbiter: Arbiter,
    scope: Scope,
    /// The games followed, with the last event sent of each.
    sent: HashMap<String, i64>,
    /// Games found outside the scope (a game's seat never changes): the
    /// store is not asked again at each of their appends.
    outside: HashSet<String>,
    tx: mpsc::Sender<Result<pb::WatchGamesResponse, Status>>,
    _permit: WatchPermit,
}

impl HallWatch {
    /// The games of the scope as the store lists them now.
    async fn members(&self) -> Result<Vec<String>, ApiError> {
        let store = self.arbiter.hall.store();
        match &self.scope {
            Scope::Round { event, round } => {
                let reading = self.arbiter.round_reading(event, *round).await?;
                Ok(reading.round.boards.iter().filter_map(|b| b.game.clone()).collect())
            }
            Scope::Event { event } => {
                let mut games = Vec::new();
                for row in store.rounds(event).await? {
                    let Ok(number) = u16::try_from(row.number) else { continue };
                    let reading = self.arbiter.round_reading(event, number).await?;
                    games.extend(reading.round.boards.iter().filter_map(|b| b.game.clone()));
                }
                Ok(games)
            }
            Scope::InPlay => {
                let mut games = Vec::new();
                for status in [GameStatus::Pending, GameStatus::InProgress] {
                    let mut after_id = None;
                    loop {
                        let filter = GameFilter {
                            event_name: None,
                            round: None,
                            status: Some(status),
                            after_id: after_id.clone(),
                            limit: MAX_LIST_ROWS,
                        };
                        let rows = store.list_games(&filter).await?;
                        let full = rows.len() == MAX_LIST_ROWS as usize;
                        after_id = rows.last().map(|r| r.id.clone());
                        games.extend(rows.into_iter().map(|r| r.id));
                        if !full {
                            break;
                        }
                    }
                }
                Ok(games)
            }
        }
    }

    /// Sends `id` as it stands with the events after the last one sent
    /// (at the opening, `None`: its last event only). `false` when the
    /// client is gone.
    async fn send_game(&mut self, id: &str, opening: bool) -> Result<bool, ApiError> {
        let reading = match self.arbiter.hall.read(id).await {
            Ok(r) => r,
            // Withdrawn between the notification and the read: nothing to show.
            Err(ApiError::NotFound(_)) => return Ok(true),
            Err(e) => return Err(e),
        };
        let game = self.arbiter.seated(id, to_proto::game(&reading)).await?;
        let last = game.last_seq;
        let sent = self.sent.get(id).copied().unwrap_or(0);
        if !opening && last <= sent {
            return Ok(true);
        }
        let from = if opening { last - 1 } else { sent.max(last - i64::from(EVENTS_PER_UPDATE)) };
        let mut events = Vec::new();
        if last > 0 {
            for row in self.arbiter.hall.store().events(id, from.max(0), EVENTS_PER_UPDATE).await? {
                if row.seq <= last {
                    events.push(to_proto::event(&LoggedEvent::decode(&row)?));
                }
            }
        }
        self.sent.insert(id.to_owned(), last);
        let update = pb::GameUpdate { game: Some(game), events };
        let message = pb::WatchGamesResponse { item: Some(pb::watch_games_response::Item::Update(update)) };
        Ok(self.tx.send(Ok(message)).await.is_ok())
    }

    /// Whether a game the watch does not follow yet belongs to it.
    async fn joins(&mut self, id: &str) -> Result<bool, ApiError> {
        if self.scope == Scope::InPlay {
            return Ok(true);
        }
        if self.outside.contains(id) {
            return Ok(false);
        }
        let round_name = match self.arbiter.hall.store().round_of_game(id).await? {
            Some(seat) => format!("events/{}/rounds/{}", seat.tournament_id, seat.round),
            None => String::new(),
        };
        let holds = self.scope.holds(&round_name);
        if !holds {
            self.outside.insert(id.to_owned());
        }
        Ok(holds)
    }

    /// Compares every game of the scope with what was sent (after lost
    /// notifications).
    async fn resync(&mut self) -> Result<bool, ApiError> {
        let mut ids: Vec<String> = self.sent.keys().cloned().collect();
        for id in self.members().await? {
            if !self.sent.contains_key(&id) {
                ids.push(id);
            }
        }
        for id in ids {
            let opening = !self.sent.contains_key(&id);
            if !self.send_game(&id, opening).await? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    async fn follow(
        &mut self,
        notifications: &mut broadcast::Receiver<(String, i64)>,
    ) -> Result<(), ApiError> {
        for id in self.members().await? {
            if !self.send_game(&id, true).await? {
                return Ok(());
            }
        }
        let mut beat = tokio::time::interval(self.arbiter.heartbeat);
        beat.tick().await;
        let shutdown = self.arbiter.shutdown.clone();
        loop {
            let alive = tokio::select! {
                () = shutdown.cancelled() => {
                    let _ = self.tx.send(Err(Status::unavailable("the service is shutting down; watch again"))).await;
                    return Ok(());
                }
                () = self.tx.closed() => return Ok(()),
                n = notifications.recv() => match n {
                    Ok((game, _)) if game == RESYNC => self.resync().await?,
                    Ok((game, seq)) => match self.sent.get(&game).copied() {
                        Some(sent) if seq <= sent => true,
                        Some(_) => self.send_game(&game, false).await?,
                        None if self.joins(&game).await? => self.send_game(&game, true).await?,
                        None => true,
                    },
                    Err(broadcast::error::RecvError::Lagged(_)) => self.resync().await?,
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
                _ = beat.tick() => {
                    let now = crate::table::wall_ms();
                    let message = pb::WatchGamesResponse {
                        item: Some(pb::watch_games_response::Item::Heartbeat(to_proto::timestamp(now))),
                    };
                    self.tx.send(Ok(message)).await.is_ok()
                }
            };
            if !alive {
                return Ok(());
            }
        }
    }
}

impl Arbiter {
    pub(super) async fn watch_games_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::WatchGamesRequest,
    ) -> Result<ReceiverStream<Result<pb::WatchGamesResponse, Status>>, ApiError> {
        let (principal, caller) = self.auth.identify(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter, Role::Viewer], "WatchGames")?;
        let scope = Scope::parse(&r.scope)?;
        match &scope {
            Scope::Round { event, round } => {
                self.tournament_row(event).await?;
                self.round_reading(event, *round).await?;
            }
            Scope::Event { event } => {
                self.tournament_row(event).await?;
            }
            Scope::InPlay => {}
        }
        // A hall stream counts as one of the token's watch streams.
        let permit = self.quotas.watches.acquire_hall(&caller).inspect_err(|e| {
            metrics::counter!("arbiter_quota_refusals_total", "reason" => e.reason()).increment(1);
        })?;
        // Subscribe before reading: nothing falls between the two.
        let mut notifications = self.hall.store().subscribe();
        let (tx, rx) = mpsc::channel(256);
        let mut watch = HallWatch {
            arbiter: self.clone(),
            scope,
            sent: HashMap::new(),
            outside: HashSet::new(),
            tx,
            _permit: permit,
        };
        metrics::gauge!("arbiter_watch_streams").increment(1.0);
        tokio::spawn(async move {
            if let Err(e) = watch.follow(&mut notifications).await {
                let _ = watch.tx.send(Err(e.into())).await;
            }
            metrics::gauge!("arbiter_watch_streams").decrement(1.0);
        });
        Ok(ReceiverStream::new(rx))
    }
}

#[cfg(test)]
mod tests {
    use super::Scope;

    #[test]
    fn scopes_hold_the_games_seated_in_them() {
        let round = Scope::Round { event: "open".into(), round: 3 };
        assert!(round.holds("events/open/rounds/3"));
        assert!(!round.holds("events/open/rounds/30"));
        assert!(!round.holds(""));
        let event = Scope::Event { event: "open".into() };
        assert!(event.holds("events/open/rounds/30"));
        assert!(!event.holds("events/opening/rounds/1"));
        assert!(Scope::InPlay.holds(""));
    }
}
