//! The bridge between a board's protocol and the service: numbers the
//! readings, sends them on a ConnectBoard stream, keeps what the service has
//! not confirmed, opens the stream again when it breaks and resends from
//! `BoardAccepted.last_device_seq`, and turns corrections into LiveChess
//! `setup`s.
//!
//! The service is behind [`Link`] so the bridge can be tested against a
//! fake one; [`arbiter_client::Client`] is the real one.

use std::collections::VecDeque;
use std::future::Future;
use std::time::Duration;

use anyhow::anyhow;
use arbiter_client::{BoardReport, BoardSender, BoardUpdate, BoardUpdates, Client, Error, RetryPolicy, pb};
use tokio::sync::mpsc;

use super::reading::Timed;

/// Readings kept for the service at most (about a day of a busy board):
/// beyond it the oldest not yet sent are dropped, and said so.
pub const MAX_PENDING: usize = 100_000;

/// How the stream is opened again: waits of 250 ms doubling to 5 s, for
/// ever (a board in a hall outlives a restart of the service).
const BACKOFF: RetryPolicy = RetryPolicy {
    attempts: u32::MAX,
    initial_backoff: Duration::from_millis(250),
    max_backoff: Duration::from_secs(5),
};

/// The service, as the bridge uses it.
pub trait Link {
    /// The sending half of an open stream.
    type Sender: ReportSender;
    /// The receiving half of an open stream.
    type Updates: UpdateSource;
    /// Opens a board stream with `hello`.
    fn open(
        &self,
        hello: pb::BoardHello,
    ) -> impl Future<Output = Result<(pb::BoardAccepted, Self::Sender, Self::Updates), Error>>;
    /// The game as it stands (its FEN for `setup`, its status).
    fn game(&self, name: &str) -> impl Future<Output = Result<pb::Game, Error>>;
}

/// Sends reports on an open stream.
pub trait ReportSender {
    fn send(&self, report: BoardReport) -> impl Future<Output = Result<(), Error>>;
}

/// Receives the service's updates on an open stream.
pub trait UpdateSource {
    fn next(&mut self) -> impl Future<Output = Option<Result<BoardUpdate, Error>>>;
}

impl Link for Client {
    type Sender = BoardSender;
    type Updates = BoardUpdates;
    async fn open(
        &self,
        hello: pb::BoardHello,
    ) -> Result<(pb::BoardAccepted, BoardSender, BoardUpdates), Error> {
        Ok(self.connect_board(hello).await?.split())
    }
    async fn game(&self, name: &str) -> Result<pb::Game, Error> {
        self.get_game(name).await
    }
}

impl ReportSender for BoardSender {
    async fn send(&self, report: BoardReport) -> Result<(), Error> {
        BoardSender::send(self, report).await
    }
}

impl UpdateSource for BoardUpdates {
    async fn next(&mut self) -> Option<Result<BoardUpdate, Error>> {
        BoardUpdates::next(self).await
    }
}

/// What the bridge tells the arbiter in the hall.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// The stream is open; `resent` reports went again after the service's
    /// `last_device_seq`.
    Connected { accepted: Box<pb::BoardAccepted>, resent: usize },
    /// The service said this.
    Update(BoardUpdate),
    /// The position pushed to the board's software (LiveChess `setup`).
    Setup(String),
    /// The stream broke or could not be opened; another try follows.
    Reconnecting { attempt: u32, error: String, unconfirmed: usize },
    /// Readings dropped because too many were waiting.
    Dropped(usize),
    /// A note from the board's side (LiveChess connected, lost...).
    Note(String),
}

/// Why the bridge stopped without an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The game is over.
    GameOver,
    /// Ctrl-C (or the caller's shutdown), with this many readings the
    /// service had not confirmed.
    Interrupted { unconfirmed: usize },
}

/// The reports of this run: numbered ones not yet confirmed, and readings
/// not yet numbered.
#[derive(Debug, Default)]
struct Pending {
    /// Sent (or to send again), in order of `device_seq`.
    sent: VecDeque<(u64, Timed)>,
    /// Not numbered yet: numbers are given once the service has said which
    /// of this device's numbers it already has.
    unnumbered: VecDeque<Timed>,
    /// The next number; `None` before the first stream opened.
    next_seq: Option<u64>,
}

impl Pending {
    fn len(&self) -> usize {
        self.sent.len() + self.unnumbered.len()
    }

    /// Keeps `reading`; the oldest unnumbered one goes when too many wait.
    fn push(&mut self, reading: Timed) -> Option<usize> {
        self.unnumbered.push_back(reading);
        (self.len() > MAX_PENDING && self.unnumbered.pop_front().is_some()).then_some(1)
    }

    /// The service kept everything up to `seq`.
    fn confirmed(&mut self, seq: u64) {
        while self.sent.front().is_some_and(|(s, _)| *s <= seq) {
            self.sent.pop_front();
        }
    }

    /// A stream opened: the service has this device's reports up to
    /// `kept`; numbering goes on after it.
    fn accepted(&mut self, kept: u64) {
        self.confirmed(kept);
        let after = kept.saturating_add(1);
        self.next_seq = Some(self.next_seq.map_or(after, |n| n.max(after)));
    }

    /// Numbers the next unnumbered reading and keeps it as sent.
    fn number_next(&mut self) -> Option<BoardReport> {
        let seq = self.next_seq?;
        let reading = self.unnumbered.pop_front()?;
        let report = reading.report(seq);
        self.sent.push_back((seq, reading));
        self.next_seq = Some(seq + 1);
        Some(report)
    }
}

/// Runs the bridge until the game is over, `shutdown` completes, or an
/// error the bridge cannot get past (a refusal by the service that trying
/// again will not change: no such game, a wrong token, another board holds
/// the game; or the board's side ended).
///
/// `readings` come from the protocol; FENs for `setup` go to `setups`;
/// `notes` from the protocol's side are passed on to `say`.
///
/// # Errors
/// As above.
pub async fn run<L: Link>(
    link: &L,
    hello: pb::BoardHello,
    mut readings: mpsc::Receiver<Timed>,
    setups: mpsc::Sender<String>,
    mut notes: mpsc::Receiver<String>,
    shutdown: impl Future<Output = ()>,
    say: &mut impl FnMut(Said),
) -> anyhow::Result<Ended> {
    let mut pending = Pending::default();
    let mut failures = 0u32;
    let mut setup = Setup { last: None, tx: setups };
    let mut notes_open = true;
    tokio::pin!(shutdown);
    loop {
        // Open the stream, collecting readings meanwhile.
        let opened = {
            let open = link.open(hello.clone());
            tokio::pin!(open);
            loop {
                tokio::select! {
                    r = &mut open => break r,
                    () = &mut shutdown => return Ok(Ended::Interrupted { unconfirmed: pending.len() }),
                    reading = readings.recv() => match reading {
                        Some(r) => if let Some(n) = pending.push(r) { say(Said::Dropped(n)) },
                        None => return Err(anyhow!("the board's feed ended")),
                    },
                    note = notes.recv(), if notes_open => match note {
                        Some(n) => say(Said::Note(n)),
                        None => notes_open = false,
                    },
                }
            }
        };
        let broke = match opened {
            Ok((accepted, sender, mut updates)) => {
                failures = 0;
                pending.accepted(accepted.last_device_seq);
                let fen = accepted.game.as_ref().map(|g| g.fen.clone()).unwrap_or_default();
                let resent = pending.sent.len();
                say(Said::Connected { accepted: Box::new(accepted), resent });
                setup.push(&fen, say);
                stream(
                    link,
                    &hello.name,
                    &mut pending,
                    &sender,
                    &mut updates,
                    &mut readings,
                    &mut notes,
                    &mut notes_open,
                    &mut shutdown,
                    say,
                    &mut setup,
                )
                .await?
            }
            Err(e) if e.is_transient() => Broke::Error(e),
            Err(e) => return Err(e.into()),
        };
        let error = match broke {
            Broke::Ended(ended) => return Ok(ended),
            Broke::Error(e) => e,
        };
        failures += 1;
        say(Said::Reconnecting { attempt: failures, error: error.to_string(), unconfirmed: pending.len() });
        let wait = tokio::time::sleep(BACKOFF.backoff(failures));
        tokio::pin!(wait);
        loop {
            tokio::select! {
                () = &mut wait => break,
                () = &mut shutdown => return Ok(Ended::Interrupted { unconfirmed: pending.len() }),
                reading = readings.recv() => match reading {
                    Some(r) => if let Some(n) = pending.push(r) { say(Said::Dropped(n)) },
                    None => return Err(anyhow!("the board's feed ended")),
                },
            }
        }
    }
}

/// The positions pushed to the board's software (LiveChess `setup`).
struct Setup {
    /// The last one pushed, while no act has happened since: pushing it
    /// again would change nothing (the service repeats corrections while
    /// the board is out of step).
    last: Option<String>,
    tx: mpsc::Sender<String>,
}

impl Setup {
    fn push(&mut self, fen: &str, say: &mut impl FnMut(Said)) {
        if fen.is_empty() || self.last.as_deref() == Some(fen) {
            return;
        }
        self.last = Some(fen.to_owned());
        // A protocol without positions to push (the DGT serial protocol)
        // has closed its end: nothing to do.
        if self.tx.try_send(fen.to_owned()).is_ok() {
            say(Said::Setup(fen.to_owned()));
        }
    }

    /// An act happened: the board's software followed it, so the same
    /// position may need pushing again.
    fn moved(&mut self) {
        self.last = None;
    }
}

/// How one open stream ended.
enum Broke {
    Ended(Ended),
    /// A transient error: open the stream again.
    Error(Error),
}

impl From<Error> for Broke {
    fn from(e: Error) -> Broke {
        Broke::Error(e)
    }
}

/// Forwards readings and updates on one open stream until it breaks.
#[allow(clippy::too_many_arguments)]
async fn stream<L: Link>(
    link: &L,
    game: &str,
    pending: &mut Pending,
    sender: &L::Sender,
    updates: &mut L::Updates,
    readings: &mut mpsc::Receiver<Timed>,
    notes: &mut mpsc::Receiver<String>,
    notes_open: &mut bool,
    shutdown: &mut std::pin::Pin<&mut impl Future<Output = ()>>,
    say: &mut impl FnMut(Said),
    setup: &mut Setup,
) -> anyhow::Result<Broke> {
    // What the service has not confirmed goes again, in order, with the
    // same numbers: it applies none twice.
    for (seq, reading) in &pending.sent {
        if let Err(e) = sender.send(reading.report(*seq)).await {
            return transient(e);
        }
    }
    loop {
        // Readings waiting (kept while the stream was down) go first.
        while let Some(report) = pending.number_next() {
            if let Err(e) = sender.send(report).await {
                return transient(e);
            }
        }
        tokio::select! {
            () = shutdown.as_mut() => return Ok(Broke::Ended(Ended::Interrupted { unconfirmed: pending.len() })),
            reading = readings.recv() => match reading {
                Some(r) => if let Some(n) = pending.push(r) { say(Said::Dropped(n)) },
                None => return Err(anyhow!("the board's feed ended")),
            },
            note = notes.recv(), if *notes_open => match note {
                Some(n) => say(Said::Note(n)),
                None => *notes_open = false,
            },
            update = updates.next() => match update {
                Some(Ok(update)) => {
                    if let Some(seq) = update.device_seq() {
                        pending.confirmed(seq);
                    }
                    let over = game_over(&update);
                    let corrections = matches!(update, BoardUpdate::Corrections(_));
                    if matches!(update, BoardUpdate::Act(_)) {
                        setup.moved();
                    }
                    say(Said::Update(update));
                    if over {
                        return Ok(Broke::Ended(Ended::GameOver));
                    }
                    if corrections {
                        // The board must go back to the game's position:
                        // LiveChess is told that position, so it follows
                        // the game as ruled, not the board as it stood.
                        match link.game(game).await {
                            Ok(g) => setup.push(&g.fen, say),
                            Err(e) => say(Said::Note(format!("cannot read the game's position for setup: {e}"))),
                        }
                    }
                }
                Some(Err(e)) => return transient(e),
                None => {
                    // The service ended the stream: over if the game is.
                    return match link.game(game).await {
                        Ok(g) if g.status == pb::GameStatus::Finished as i32 => Ok(Broke::Ended(Ended::GameOver)),
                        Ok(_) => Ok(Broke::Error(unavailable("the service ended the board stream while the game goes on"))),
                        Err(e) => transient(e),
                    };
                }
            },
        }
    }
}

/// A transient error of this side.
fn unavailable(message: &str) -> Error {
    Error::Rpc(Box::new(arbiter_client::RpcError {
        code: arbiter_client::Code::Unavailable,
        message: message.to_owned(),
        reason: None,
        domain: None,
        metadata: std::collections::HashMap::new(),
        violations: Vec::new(),
        retry_delay: None,
    }))
}

/// A transient error breaks the stream (it is opened again); any other
/// ends the bridge.
fn transient(e: Error) -> anyhow::Result<Broke> {
    if e.is_transient() { Ok(Broke::Error(e)) } else { Err(e.into()) }
}

/// Whether the update says the game is over: an act ruled `GAME_OVER`, or a
/// report refused because the game is finished.
fn game_over(update: &BoardUpdate) -> bool {
    match update {
        BoardUpdate::Act(a) => {
            a.event.as_ref().is_some_and(|e| e.rulings.iter().any(|r| r.decision == "GAME_OVER"))
        }
        BoardUpdate::Refusal(r) => r.reason == "GAME_FINISHED",
        _ => false,
    }
}
