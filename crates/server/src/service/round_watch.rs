//! `WatchRound` and `AcknowledgeAlert`: the arbiter's view of a hall.
//!
//! A watch covers one round or every round of an event. It opens with the
//! round as it stands and the queue of open alerts (most urgent first),
//! sends the alerts raised since the client's resume token, then follows
//! the games' logs (the store's notifications, so other replicas' appends
//! too) and, every heartbeat, what only the present shows (e-boards, low
//! time) and the acknowledgements other arbiters made. Every message
//! carries a resume token: the position reached in each game's log.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use arbiter_chess::Color;
use arbiter_proto::v1 as pb;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;
use tonic::metadata::MetadataMap;

use super::Arbiter;
use super::events::{event_id, round_id};
use crate::api::to_proto;
use crate::auth::Role;
use crate::error::{ApiError, quote};
use crate::store::tournament::{AlertAck, TournamentStore};
use crate::store::{EventPages, EventStore, GameStatus, RESYNC};
use crate::tournament::alerts::{self, Alert, Kind, Priority};
use crate::view::LoggedEvent;

/// One game watched: where it sits and how far its log was read.
#[derive(Clone, Debug)]
struct Watched {
    game: String,
    round: u16,
    board: u16,
    last_seq: i64,
}

/// The alerts of a watch, with their state.
#[derive(Debug, Default)]
struct Ledger {
    alerts: BTreeMap<String, Alert>,
    /// Acknowledged alerts: by whom.
    acked: HashMap<String, String>,
    /// Questions answered, per game.
    answered: HashMap<String, BTreeSet<u32>>,
    /// Alerts of the present raised and still holding.
    present: BTreeSet<String>,
}

impl Ledger {
    fn settled(&self, a: &Alert) -> bool {
        self.acked.contains_key(&a.id)
            || a.question.is_some_and(|q| self.answered.get(&a.game).is_some_and(|s| s.contains(&q)))
            || (a.game_seq == 0 && !self.present.contains(&a.id))
    }

    /// The open alerts, most urgent first, then oldest first.
    fn queue(&self) -> Vec<&Alert> {
        let mut open: Vec<&Alert> = self.alerts.values().filter(|a| !self.settled(a)).collect();
        open.sort_by(|a, b| {
            a.priority.cmp(&b.priority).then(a.wall_ms.cmp(&b.wall_ms)).then(a.id.cmp(&b.id))
        });
        open
    }
}

fn kind_to_proto(k: Kind) -> pb::AlertKind {
    match k {
        Kind::Question => pb::AlertKind::Question,
        Kind::FivefoldRepetition => pb::AlertKind::FivefoldRepetition,
        Kind::SeventyFiveMoves => pb::AlertKind::SeventyFiveMoves,
        Kind::DeadPosition => pb::AlertKind::DeadPosition,
        Kind::Flag => pb::AlertKind::Flag,
        Kind::IllegalMove => pb::AlertKind::IllegalMove,
        Kind::SecondIllegalMove => pb::AlertKind::SecondIllegalMove,
        Kind::BoardDesync => pb::AlertKind::BoardDesync,
        Kind::BoardDisconnected => pb::AlertKind::BoardDisconnected,
        Kind::PlayerDisconnected => pb::AlertKind::PlayerDisconnected,
        Kind::Device => pb::AlertKind::Device,
        Kind::LowTime => pb::AlertKind::LowTime,
        Kind::GameEnded => pb::AlertKind::GameEnded,
    }
}

fn priority_to_proto(p: Priority) -> pb::AlertPriority {
    match p {
        Priority::Decision => pb::AlertPriority::Decision,
        Priority::Act => pb::AlertPriority::Act,
        Priority::Look => pb::AlertPriority::Look,
        Priority::Note => pb::AlertPriority::Note,
    }
}

fn alert_to_proto(event: &str, round: u16, board: u16, a: &Alert, acked_by: Option<&str>) -> pb::Alert {
    pb::Alert {
        name: format!("events/{event}/rounds/{round}/alerts/{}", a.id),
        kind: kind_to_proto(a.kind) as i32,
        priority: priority_to_proto(a.priority) as i32,
        game: format!("games/{}", a.game),
        board: i32::from(board),
        text: a.text.clone(),
        rule_id: a.rule.map(|r| r.as_str().to_owned()).unwrap_or_default(),
        article: a.rule.and_then(to_proto::article_to_proto),
        create_time: Some(to_proto::timestamp(a.wall_ms)),
        acknowledged: acked_by.is_some(),
        acknowledged_by: acked_by.unwrap_or_default().to_owned(),
        game_seq: a.game_seq,
    }
}

/// `t12.40.3`: the position in each watched game's log, in watch order.
fn token(sent: &[i64]) -> String {
    let seqs: Vec<String> = sent.iter().map(i64::to_string).collect();
    format!("t{}", seqs.join("."))
}

fn parse_token(text: &str, games: usize) -> Result<Vec<i64>, ApiError> {
    let bad = || {
        ApiError::field(
            "resume_token",
            format!(
                "{} is not a resume token of this watch (pass one this watch sent, or none)",
                quote(text)
            ),
        )
    };
    let body = text.strip_prefix('t').ok_or_else(bad)?;
    let seqs: Vec<i64> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('.')
            .map(|s| s.parse::<i64>().ok().filter(|n| *n >= 0))
            .collect::<Option<_>>()
            .ok_or_else(bad)?
    };
    if seqs.len() != games {
        return Err(bad());
    }
    Ok(seqs)
}

/// What the watch task needs from the service.
struct Watch {
    arbiter: Arbiter,
    event: String,
    rounds: Vec<u16>,
    games: Vec<Watched>,
    /// What the client has received of each game's log: the resume token.
    /// It moves past an event once every alert of it was sent, so a client
    /// that reconnects with the token of any message misses nothing.
    sent: Vec<i64>,
    ledger: Ledger,
    tx: mpsc::Sender<Result<pb::WatchRoundResponse, Status>>,
}

impl Watch {
    fn seat(&self, game: &str) -> (u16, u16) {
        self.games.iter().find(|g| g.game == game).map_or((0, 0), |g| (g.round, g.board))
    }

    fn proto(&self, a: &Alert) -> pb::Alert {
        let (round, board) = self.seat(&a.game);
        alert_to_proto(&self.event, round, board, a, self.ledger.acked.get(&a.id).map(String::as_str))
    }

    async fn send(&self, item: pb::watch_round_response::Item, queue: Vec<pb::Alert>) -> bool {
        let message = pb::WatchRoundResponse { item: Some(item), resume_token: token(&self.sent), queue };
        self.tx.send(Ok(message)).await.is_ok()
    }

    /// The events of watched game `i` after what was read: their alerts are
    /// recorded, and returned for sending.
    async fn read_tail(&mut self, i: usize) -> Result<Vec<Alert>, ApiError> {
        let game = self.games[i].game.clone();
        let mut new = Vec::new();
        let mut pages = EventPages::new(self.arbiter.hall.store(), &game, self.games[i].last_seq, 500);
        while let Some(page) = pages.next().await? {
            for row in &page {
                let logged = LoggedEvent::decode(row)?;
                let (alerts, answered) = alerts::of_event(&game, &logged);
                self.ledger.answered.entry(game.clone()).or_default().extend(answered);
                for a in alerts {
                    self.ledger.alerts.insert(a.id.clone(), a.clone());
                    new.push(a);
                }
            }
        }
        self.games[i].last_seq = pages.last_seq();
        Ok(new)
    }

    /// Sends alerts of the logs (in game and seq order), moving the token
    /// past each event once its last alert is out, and then to what was
    /// read of `games`. `false` when the client is gone.
    async fn send_news(&mut self, news: &[Alert], games: &[usize]) -> bool {
        for (k, a) in news.iter().enumerate() {
            let i = self.games.iter().position(|g| g.game == a.game).unwrap_or(0);
            if !self.send(pb::watch_round_response::Item::Alert(self.proto(a)), Vec::new()).await {
                return false;
            }
            let more_of_event = news.get(k + 1).is_some_and(|b| b.game == a.game && b.game_seq == a.game_seq);
            self.sent[i] = if more_of_event { a.game_seq - 1 } else { a.game_seq };
        }
        for &i in games {
            self.sent[i] = self.games[i].last_seq;
        }
        true
    }

    async fn read_acks(&mut self) -> Result<Vec<String>, ApiError> {
        let mut fresh = Vec::new();
        for &round in &self.rounds {
            for AlertAck { alert_id, actor, .. } in
                self.arbiter.hall.store().alert_acks(&self.event, i64::from(round)).await?
            {
                if self.ledger.acked.insert(alert_id.clone(), actor).is_none() {
                    fresh.push(alert_id);
                }
            }
        }
        Ok(fresh)
    }

    /// The alerts only the present shows: e-boards and low time. Returns
    /// those newly raised.
    async fn present(&mut self) -> Result<Vec<Alert>, ApiError> {
        let now = crate::table::wall_ms();
        let mut holding = BTreeSet::new();
        let mut raised = Vec::new();
        for g in &self.games {
            let reading = self.arbiter.hall.read(&g.game).await?;
            if reading.status != GameStatus::InProgress {
                continue;
            }
            let mut found = Vec::new();
            if let Some(b) = self.arbiter.boards.state(&g.game)
                && let Some(a) = alerts::board(&g.game, b.connected, b.in_sync, now)
            {
                found.push(a);
            }
            if reading.spec.regulations.time_control.has_quickplay_finish() {
                let game = to_proto::game(&reading);
                let clocks = game.clocks.unwrap_or_default();
                for (color, left) in
                    [(Color::White, clocks.white_remaining_ms), (Color::Black, clocks.black_remaining_ms)]
                {
                    if left < alerts::LOW_TIME_MS {
                        found.push(alerts::low_time(&g.game, color, left, now));
                    }
                }
            }
            for a in found {
                holding.insert(a.id.clone());
                if !self.ledger.present.contains(&a.id) {
                    self.ledger.alerts.entry(a.id.clone()).or_insert_with(|| a.clone());
                    raised.push(a);
                }
            }
        }
        self.ledger.present = holding;
        Ok(raised)
    }

    async fn snapshot(&self) -> Result<bool, ApiError> {
        let queue: Vec<pb::Alert> = self.ledger.queue().into_iter().map(|a| self.proto(a)).collect();
        let (_, t) = self.arbiter.tournament_row(&self.event).await?;
        for (i, &round) in self.rounds.iter().enumerate() {
            let reading = self.arbiter.round_reading(&self.event, round).await?;
            let r = self.arbiter.round_to_proto(&self.event, &t, &reading).await?;
            // The queue goes with the last round of the watch.
            let q = if i + 1 == self.rounds.len() { queue.clone() } else { Vec::new() };
            if !self.send(pb::watch_round_response::Item::Round(r), q).await {
                return Ok(false);
            }
        }
        Ok(true)
    }

    async fn run(mut self, mut notifications: broadcast::Receiver<(String, i64)>, after: Vec<i64>) {
        if let Err(e) = self.follow(&mut notifications, after).await {
            let _ = self.tx.send(Err(e.into())).await;
        }
    }

    async fn follow(
        &mut self,
        notifications: &mut broadcast::Receiver<(String, i64)>,
        after: Vec<i64>,
    ) -> Result<(), ApiError> {
        // The whole history, for the queue; the client gets what is new
        // since its token.
        let mut news = Vec::new();
        for i in 0..self.games.len() {
            news.extend(self.read_tail(i).await?);
        }
        self.read_acks().await?;
        self.present().await?;
        if !self.snapshot().await? {
            return Ok(());
        }
        news.retain(|a| {
            let i = self.games.iter().position(|g| g.game == a.game).unwrap_or(0);
            a.game_seq > after.get(i).copied().unwrap_or(0)
        });
        let all: Vec<usize> = (0..self.games.len()).collect();
        if !self.send_news(&news, &all).await {
            return Ok(());
        }
        let heartbeat = self.arbiter.heartbeat;
        let mut tick = tokio::time::interval(heartbeat);
        tick.tick().await;
        let shutdown = self.arbiter.shutdown.clone();
        loop {
            let mut changed: Vec<usize> = Vec::new();
            tokio::select! {
                () = shutdown.cancelled() => return Ok(()),
                () = self.tx.closed() => return Ok(()),
                n = notifications.recv() => match n {
                    Ok((game, seq)) if game == RESYNC => {
                        let _ = seq;
                        changed.extend(0..self.games.len());
                    }
                    Ok((game, seq)) => {
                        if let Some(i) = self.games.iter().position(|g| g.game == game && seq > g.last_seq) {
                            changed.push(i);
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => changed.extend(0..self.games.len()),
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
                _ = tick.tick() => {
                    let mut sent = false;
                    for id in self.read_acks().await? {
                        if let Some(a) = self.ledger.alerts.get(&id) {
                            sent = true;
                            if !self.send(pb::watch_round_response::Item::Alert(self.proto(a)), Vec::new()).await {
                                return Ok(());
                            }
                        }
                    }
                    let before = self.ledger.present.clone();
                    for a in self.present().await? {
                        sent = true;
                        if !self.send(pb::watch_round_response::Item::Alert(self.proto(&a)), Vec::new()).await {
                            return Ok(());
                        }
                    }
                    if before != self.ledger.present {
                        sent = true;
                    }
                    let item = if sent {
                        if !self.snapshot().await? {
                            return Ok(());
                        }
                        continue;
                    } else {
                        let now = crate::table::wall_ms();
                        pb::watch_round_response::Item::Heartbeat(to_proto::timestamp(now))
                    };
                    if !self.send(item, Vec::new()).await {
                        return Ok(());
                    }
                    continue;
                }
            }
            let mut any = false;
            for i in changed {
                let news = self.read_tail(i).await?;
                if !self.send_news(&news, &[i]).await {
                    return Ok(());
                }
                any = true;
            }
            if any && !self.snapshot().await? {
                return Ok(());
            }
        }
    }
}

impl Arbiter {
    pub(super) async fn watch_round_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::WatchRoundRequest,
    ) -> Result<ReceiverStream<Result<pb::WatchRoundResponse, Status>>, ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        principal.require(&[Role::Service, Role::Arbiter, Role::Viewer], "WatchRound")?;
        let (event, only) = if r.name.contains("/rounds/") {
            let (event, round) = round_id("name", &r.name)?;
            (event, Some(round))
        } else {
            (event_id("name", &r.name)?, None)
        };
        self.tournament_row(&event).await?;
        let rounds: Vec<u16> = match only {
            Some(n) => {
                self.round_reading(&event, n).await?;
                vec![n]
            }
            None => self
                .hall
                .store()
                .rounds(&event)
                .await?
                .into_iter()
                .filter_map(|row| u16::try_from(row.number).ok())
                .collect(),
        };
        let mut games = Vec::new();
        for &round in &rounds {
            let reading = self.round_reading(&event, round).await?;
            for b in &reading.round.boards {
                if let Some(game) = &b.game {
                    games.push(Watched { game: game.clone(), round, board: b.number, last_seq: 0 });
                }
            }
        }
        let after = if r.resume_token.is_empty() {
            vec![0; games.len()]
        } else {
            parse_token(&r.resume_token, games.len())?
        };
        // Subscribe before reading the logs: nothing falls between the two.
        let notifications = self.hall.store().subscribe();
        let (tx, rx) = mpsc::channel(256);
        let watch = Watch {
            arbiter: self.clone(),
            event,
            rounds,
            games,
            sent: after.clone(),
            ledger: Ledger::default(),
            tx,
        };
        tokio::spawn(watch.run(notifications, after));
        Ok(ReceiverStream::new(rx))
    }

    pub(super) async fn acknowledge_alert_impl(
        &self,
        metadata: &MetadataMap,
        r: pb::AcknowledgeAlertRequest,
    ) -> Result<pb::AcknowledgeAlertResponse, ApiError> {
        let principal = self.auth.authenticate(metadata).await?;
        principal.require(&[Role::Arbiter], "AcknowledgeAlert")?;
        let bad = || {
            ApiError::field(
                "name",
                format!(
                    "{} is not an alert name: `events/{{event}}/rounds/{{round}}/alerts/{{alert}}`",
                    quote(&r.name)
                ),
            )
        };
        let (round_name, id) = r.name.split_once("/alerts/").ok_or_else(bad)?;
        let (event, round) = round_id("name", round_name)?;
        if id.is_empty()
            || id.len() > 100
            || !id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(bad());
        }
        let reading = self.round_reading(&event, round).await?;
        // The alert must exist: an alert of a game's log is found again in
        // its event; one of the present by its game and kind.
        let board_of = |game: &str| {
            reading.round.boards.iter().find(|b| b.game.as_deref() == Some(game)).map(|b| b.number)
        };
        let not_found = || ApiError::NotFound(r.name.clone());
        let alert = if let Some((game, rest)) = id.rsplit_once("-s").filter(|(g, _)| board_of(g).is_some()) {
            let (seq, n) = rest.split_once('-').ok_or_else(not_found)?;
            let (seq, n): (i64, usize) =
                (seq.parse().map_err(|_| not_found())?, n.parse().map_err(|_| not_found())?);
            let rows = self.hall.store().events(game, seq - 1, 1).await?;
            let row = rows.first().filter(|row| row.seq == seq).ok_or_else(not_found)?;
            let logged = LoggedEvent::decode(row)?;
            alerts::of_event(game, &logged).0.into_iter().nth(n).ok_or_else(not_found)?
        } else {
            let game = reading
                .round
                .boards
                .iter()
                .filter_map(|b| b.game.as_deref())
                .find(|g| id.strip_prefix(g).is_some_and(|s| s.starts_with('-')))
                .ok_or_else(not_found)?;
            let now = crate::table::wall_ms();
            match &id[game.len()..] {
                "-low-white" => alerts::low_time(game, Color::White, 0, now),
                "-low-black" => alerts::low_time(game, Color::Black, 0, now),
                "-board-desync" => alerts::board(game, true, false, now).ok_or_else(not_found)?,
                "-board-gone" => alerts::board(game, false, true, now).ok_or_else(not_found)?,
                _ => return Err(not_found()),
            }
        };
        let ack = AlertAck {
            alert_id: id.to_owned(),
            actor: principal.actor().to_owned(),
            wall_ms: crate::table::wall_ms(),
        };
        let stands = self.hall.store().acknowledge_alert(&event, i64::from(round), &ack).await?;
        let board = board_of(&alert.game).unwrap_or(0);
        Ok(pb::AcknowledgeAlertResponse {
            alert: Some(alert_to_proto(&event, round, board, &alert, Some(&stands.actor))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_a_position_per_game() {
        assert_eq!(token(&[12, 0, 3]), "t12.0.3");
        assert_eq!(parse_token("t12.0.3", 3).unwrap(), [12, 0, 3]);
        assert!(parse_token("t12.0", 3).is_err());
        assert!(parse_token("12.0.3", 3).is_err());
        assert!(parse_token("t1.-2.3", 3).is_err());
        assert_eq!(parse_token("t", 0).unwrap(), Vec::<i64>::new());
    }
}
