//! `WatchBroadcast`: the spectators' view of a round, with the event's
//! broadcast delay applied by the service (a delay applied in the browser
//! would hand every spectator the live moves).
//!
//! One publisher per round and replica serves every spectator of it: it
//! keeps the round's logs decoded in memory (read once, then followed by
//! the store's notifications), cuts them at `now - delay` whenever an event
//! comes due, and publishes the result on a `watch` channel; each stream
//! sends what is published. It stops when its last spectator leaves.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_proto::v1 as pb;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;
use tonic::metadata::MetadataMap;

use super::Arbiter;
use super::events::round_id;
use crate::api::to_proto;
use crate::error::ApiError;
use crate::store::{EventPages, EventStore, RESYNC};
use crate::view::LoggedEvent;

/// How often a publisher reads the event's settings again (a delay changed,
/// the broadcast withdrawn) and looks whether anyone still watches.
const SETTINGS_EVERY: Duration = Duration::from_secs(5);

/// What a publisher publishes: nothing yet, or the round as shown now.
type Published = Option<Arc<pb::PublishedRound>>;

/// The rounds being published on this replica.
#[derive(Debug, Default)]
pub(crate) struct Spectators {
    rounds: Mutex<HashMap<(String, u16), watch::Receiver<Published>>>,
}

/// One game of a published round, its whole log decoded.
struct Followed {
    id: String,
    game: pb::Game,
    events: Vec<LoggedEvent>,
}

/// The publisher of one round.
struct Publisher {
    arbiter: Arbiter,
    event: String,
    round: u16,
    title: String,
    delay_ms: i64,
    games: Vec<Followed>,
    tx: watch::Sender<Published>,
}

impl Publisher {
    /// Reads the event's settings; `false` when it no longer has a broadcast.
    async fn settings(&mut self) -> Result<bool, ApiError> {
        let (_, t) = self.arbiter.tournament_row(&self.event).await?;
        self.title = t.title.clone();
        self.delay_ms = i64::from(t.broadcast.delay_seconds) * 1000;
        Ok(t.broadcast.published)
    }

    /// Reads every board's game and its whole log.
    async fn load(&mut self) -> Result<(), ApiError> {
        let reading = self.arbiter.round_reading(&self.event, self.round).await?;
        let mut games = Vec::new();
        for (board, game) in reading.round.boards.iter().zip(&reading.games) {
            let (Some(id), Some(g)) = (&board.game, game) else { continue };
            let game = self.arbiter.seated(id, to_proto::game(g)).await?;
            games.push(Followed { id: id.clone(), game, events: Vec::new() });
        }
        self.games = games;
        for i in 0..self.games.len() {
            self.read_tail(i).await?;
        }
        Ok(())
    }

    /// Appends the events of game `i` logged since the last one read.
    async fn read_tail(&mut self, i: usize) -> Result<(), ApiError> {
        let followed = &mut self.games[i];
        let after = followed.events.last().map_or(0, |e| e.seq);
        let mut pages = EventPages::new(self.arbiter.hall.store(), &followed.id, after, 1000);
        let mut grew = false;
        while let Some(page) = pages.next().await? {
            for row in &page {
                followed.events.push(LoggedEvent::decode(row)?);
            }
            grew |= !page.is_empty();
        }
        // The end and the status come from the game itself once it is over.
        if grew {
            let reading = self.arbiter.hall.read(&followed.id).await?;
            followed.game = self.arbiter.seated(&followed.id, to_proto::game(&reading)).await?;
        }
        Ok(())
    }

    /// The round as shown at `now`, and when the next event comes due.
    fn cut(&self, now: i64) -> (pb::PublishedRound, Option<i64>) {
        let cutoff = now - self.delay_ms;
        let games =
            self.games.iter().map(|f| crate::broadcast::published_game(&f.game, &f.events, cutoff)).collect();
        let next = self
            .games
            .iter()
            .filter_map(|f| f.events.iter().find(|e| e.wall_ms > cutoff))
            .map(|e| e.wall_ms + self.delay_ms)
            .min();
        let published = pb::PublishedRound {
            name: format!("events/{}/rounds/{}", self.event, self.round),
            title: self.title.clone(),
            delay_seconds: i32::try_from(self.delay_ms / 1000).unwrap_or(i32::MAX),
            as_of: Some(to_proto::timestamp(cutoff)),
            games,
        };
        (published, next)
    }

    /// Publishes the round as shown now if its games changed; returns when
    /// to look again.
    fn publish(&self) -> Duration {
        let now = crate::table::wall_ms();
        let (published, next) = self.cut(now);
        let changed = self.tx.borrow().as_ref().is_none_or(|old| {
            old.games.len() != published.games.len()
                || old.games.iter().zip(&published.games).any(|(a, b)| {
                    (a.last_seq, a.status, a.end.is_some()) != (b.last_seq, b.status, b.end.is_some())
                })
                || old.delay_seconds != published.delay_seconds
        });
        if changed {
            self.tx.send_replace(Some(Arc::new(published)));
        }
        let wait =
            next.map_or(SETTINGS_EVERY, |at| Duration::from_millis(u64::try_from(at - now).unwrap_or(0)));
        wait.min(SETTINGS_EVERY)
    }

    async fn run(
        mut self,
        spectators: Arc<Spectators>,
        mut notifications: broadcast::Receiver<(String, i64)>,
    ) -> Result<(), ApiError> {
        if !self.settings().await? {
            return Ok(());
        }
        self.load().await?;
        let shutdown = self.arbiter.shutdown.clone();
        let mut settings = tokio::time::interval(SETTINGS_EVERY);
        settings.tick().await;
        // The store tells of every append in the service: only the round's
        // own, a due event or the settings make the round be cut again, and
        // the next due event keeps its instant whatever else arrives.
        let mut due = tokio::time::Instant::now() + self.publish();
        loop {
            let changed = tokio::select! {
                () = shutdown.cancelled() => return Ok(()),
                () = tokio::time::sleep_until(due) => true,
                n = notifications.recv() => match n {
                    Ok((game, _)) if game == RESYNC => {
                        self.load().await?;
                        true
                    }
                    Ok((game, seq)) => match self.games.iter().position(|f| f.id == game) {
                        Some(i) if seq > self.games[i].events.last().map_or(0, |e| e.seq) => {
                            self.read_tail(i).await?;
                            true
                        }
                        _ => false,
                    },
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.load().await?;
                        true
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
                _ = settings.tick() => {
                    // Nobody watches any more (the map holds one receiver
                    // itself): stop, under the lock a new spectator takes.
                    {
                        let mut rounds = spectators.rounds.lock().map_err(|_| ApiError::Internal("spectators poisoned".into()))?;
                        if self.tx.receiver_count() <= 1 {
                            rounds.remove(&(self.event.clone(), self.round));
                            return Ok(());
                        }
                    }
                    if !self.settings().await? {
                        return Ok(());
                    }
                    true
                }
            };
            if changed {
                due = tokio::time::Instant::now() + self.publish();
            }
        }
    }
}

impl Spectators {
    /// The publication of a round, starting its publisher if none runs.
    fn subscribe(
        self: &Arc<Self>,
        arbiter: &Arbiter,
        event: &str,
        round: u16,
    ) -> Result<watch::Receiver<Published>, ApiError> {
        let mut rounds = self.rounds.lock().map_err(|_| ApiError::Internal("spectators poisoned".into()))?;
        let key = (event.to_owned(), round);
        if let Some(rx) = rounds.get(&key)
            && rx.has_changed().is_ok()
        {
            return Ok(rx.clone());
        }
        let (tx, rx) = watch::channel(None);
        rounds.insert(key.clone(), rx.clone());
        // Subscribe before reading the logs: nothing falls between the two.
        let notifications = arbiter.hall.store().subscribe();
        let publisher = Publisher {
            arbiter: arbiter.clone(),
            event: key.0.clone(),
            round,
            title: String::new(),
            delay_ms: 0,
            games: Vec::new(),
            tx,
        };
        let spectators = self.clone();
        tokio::spawn(async move {
            if let Err(e) = publisher.run(spectators.clone(), notifications).await {
                tracing::warn!(event = %key.0, round, error = %e, "the spectators' view of a round stopped");
            }
            // Whatever ended it, a new spectator starts a new publisher.
            if let Ok(mut rounds) = spectators.rounds.lock()
                && rounds.get(&key).is_some_and(|rx| rx.has_changed().is_err())
            {
                rounds.remove(&key);
            }
        });
        Ok(rx)
    }
}

impl Arbiter {
    pub(super) async fn watch_broadcast_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::WatchBroadcastRequest,
    ) -> Result<ReceiverStream<Result<pb::WatchBroadcastResponse, Status>>, ApiError> {
        // A token, when one is given, must be good; none at all is enough
        // only for a broadcast the arbiter made public.
        let anonymous = metadata.get("authorization").is_none();
        if !anonymous {
            self.auth.authenticate(metadata).await?;
        }
        let (event, round) = round_id("round", &r.round)?;
        let unknown = || ApiError::NotFound(format!("the broadcast of events/{event}"));
        let (_, t) = match self.tournament_row(&event).await {
            Ok(found) => found,
            Err(ApiError::NotFound(_)) => return Err(unknown()),
            Err(e) => return Err(e),
        };
        if !t.broadcast.published {
            return Err(unknown());
        }
        if anonymous && !t.broadcast.public_view {
            return Err(ApiError::Unauthenticated(format!(
                "the broadcast of events/{event} is not public: give a token (a viewer's is enough)"
            )));
        }
        self.round_reading(&event, round).await?;
        let mut published = self.spectators.subscribe(self, &event, round)?;
        let (tx, rx) = mpsc::channel(16);
        let heartbeat = self.heartbeat;
        let shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            let mut beat = tokio::time::interval(heartbeat);
            beat.tick().await;
            // The first publication may already be there.
            published.mark_changed();
            loop {
                let message = tokio::select! {
                    () = shutdown.cancelled() => {
                        let _ = tx.send(Err(Status::unavailable("the service is shutting down; watch again"))).await;
                        return;
                    }
                    () = tx.closed() => return,
                    changed = published.changed() => match changed {
                        Ok(()) => match published.borrow_and_update().clone() {
                            Some(round) => pb::watch_broadcast_response::Item::Published((*round).clone()),
                            None => continue,
                        },
                        Err(_) => {
                            let _ = tx.send(Err(Status::unavailable("the broadcast stopped; watch again"))).await;
                            return;
                        }
                    },
                    _ = beat.tick() => {
                        let now = crate::table::wall_ms();
                        pb::watch_broadcast_response::Item::Heartbeat(to_proto::timestamp(now))
                    }
                };
                if tx.send(Ok(pb::WatchBroadcastResponse { item: Some(message) })).await.is_err() {
                    return;
                }
            }
        });
        Ok(ReceiverStream::new(rx))
    }
}
