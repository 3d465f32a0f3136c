//! WatchGame, resumed across broken connections.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use arbiter_proto::v1 as pb;
use arbiter_proto::v1::watch_game_response::Item;
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;

use crate::{Client, Error, RetryPolicy};

/// One item of a [`WatchStream`].
#[derive(Clone, Debug)]
pub enum WatchItem {
    /// The game as it stood when the stream opened (`resumed: false`, the
    /// first item) or reopened after a reconnection (`resumed: true`). On a
    /// reopen the game may already show events that follow as
    /// [`WatchItem::Event`]s.
    Game {
        /// The game.
        game: Box<pb::Game>,
        /// `true` after a reconnection.
        resumed: bool,
    },
    /// A recorded event with its rulings. Events come in order of `seq`,
    /// each exactly once, without gaps, across reconnections.
    Event(Box<pb::GameEvent>),
    /// The clocks, sent by the service while nothing happens.
    Heartbeat(pb::ClockReading),
    /// The stream broke; it is being reopened after the last event
    /// delivered. For display only: nothing is lost.
    Reconnecting {
        /// The `seq` of the last event delivered (the stream resumes after
        /// it).
        after_seq: i64,
        /// Failed attempts in a row so far (1 for the first).
        attempt: u32,
        /// Why the stream broke.
        error: String,
    },
}

/// How a watch reconnects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchOptions {
    /// Failed attempts in a row (broken stream, failed reopen) before the
    /// stream gives up with the last error. `backoff` gives the waits.
    pub reconnect: RetryPolicy,
    /// With no message for this long (the service sends heartbeats every few
    /// seconds) the connection is taken as dead and the stream reopened;
    /// `None`: wait for ever.
    pub idle_timeout: Option<Duration>,
}

impl Default for WatchOptions {
    /// 10 attempts in a row, waiting 250 ms doubling to 5 s between them (about
    /// half a minute in all); 30 s without a message is a dead connection.
    fn default() -> WatchOptions {
        WatchOptions {
            reconnect: RetryPolicy {
                attempts: 10,
                initial_backoff: Duration::from_millis(250),
                max_backoff: Duration::from_secs(5),
            },
            idle_timeout: Some(Duration::from_secs(30)),
        }
    }
}

/// The stream of [`Client::watch`]: `Result<WatchItem, Error>` items.
///
/// When the stream breaks (UNAVAILABLE, a transport error, no message for
/// [`WatchOptions::idle_timeout`], or an end while the game is not over) it
/// is reopened after the last event delivered, so events arrive in order,
/// each exactly once. It ends after the last event of a finished game. An
/// error that is not transient (NOT_FOUND, PERMISSION_DENIED...), or too
/// many failures in a row, is delivered as the last item.
///
/// The stream runs in a task of the current Tokio runtime; dropping it
/// stops the task and closes the call.
#[derive(Debug)]
pub struct WatchStream {
    inner: ReceiverStream<Result<WatchItem, Error>>,
}

impl WatchStream {
    pub(crate) fn start(client: Client, name: String, after_seq: i64, options: WatchOptions) -> WatchStream {
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(run(client, name, after_seq, options, tx));
        WatchStream { inner: ReceiverStream::new(rx) }
    }
}

impl Stream for WatchStream {
    type Item = Result<WatchItem, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

type Tx = mpsc::Sender<Result<WatchItem, Error>>;

/// What ended one opened stream.
enum Broke {
    /// The receiver is gone, or the game is over and everything was sent.
    Done,
    /// The stream broke with this error.
    Error(Error),
}

async fn run(client: Client, name: String, after_seq: i64, options: WatchOptions, tx: Tx) {
    let mut last = after_seq;
    let mut failures = 0u32;
    let mut opened = false;
    loop {
        let broke = tokio::select! {
            b = watch_once(&client, &name, &mut last, &mut opened, &mut failures, options, &tx) => b,
            () = tx.closed() => return,
        };
        let error = match broke {
            Broke::Done => return,
            Broke::Error(e) => e,
        };
        failures += 1;
        if !error.is_transient() || failures >= options.reconnect.attempts.max(1) {
            let _ = tx.send(Err(error)).await;
            return;
        }
        let notice = WatchItem::Reconnecting { after_seq: last, attempt: failures, error: error.to_string() };
        if tx.send(Ok(notice)).await.is_err() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(options.reconnect.backoff(failures)) => {}
            () = tx.closed() => return,
        }
    }
}

/// Opens the stream after `last` and forwards it until it ends or breaks.
async fn watch_once(
    client: &Client,
    name: &str,
    last: &mut i64,
    opened: &mut bool,
    failures: &mut u32,
    options: WatchOptions,
    tx: &Tx,
) -> Broke {
    let request = pb::WatchGameRequest { name: name.to_string(), after_seq: *last };
    let mut stream = match client.raw().watch_game(request).await {
        Ok(response) => response.into_inner(),
        Err(status) => return Broke::Error(status.into()),
    };
    // The last game snapshot said the game is over at this seq.
    let mut finished_at: Option<i64> = None;
    loop {
        let next = match options.idle_timeout {
            Some(idle) => match tokio::time::timeout(idle, stream.message()).await {
                Ok(next) => next,
                Err(_) => {
                    return Broke::Error(
                        Status::unavailable(format!("no message from the service for {}s", idle.as_secs()))
                            .into(),
                    );
                }
            },
            None => stream.message().await,
        };
        let message = match next {
            Ok(Some(message)) => message,
            Ok(None) => {
                return if over(client, name, *last, finished_at).await {
                    Broke::Done
                } else {
                    Broke::Error(Status::unavailable("the stream ended before the game was over").into())
                };
            }
            Err(status) => return Broke::Error(status.into()),
        };
        let item = match message.item {
            None => continue,
            Some(Item::Game(game)) => {
                finished_at = (game.status == pb::GameStatus::Finished as i32).then_some(game.last_seq);
                let resumed = *opened;
                *opened = true;
                WatchItem::Game { game: Box::new(game), resumed }
            }
            Some(Item::Event(event)) => {
                if event.seq <= *last {
                    continue;
                }
                if event.seq != *last + 1 {
                    return Broke::Error(
                        Status::unavailable(format!(
                            "the stream skipped from seq {} to {}; resuming",
                            *last, event.seq
                        ))
                        .into(),
                    );
                }
                *last = event.seq;
                *failures = 0;
                WatchItem::Event(Box::new(event))
            }
            Some(Item::Heartbeat(clocks)) => {
                *failures = 0;
                WatchItem::Heartbeat(clocks)
            }
        };
        if tx.send(Ok(item)).await.is_err() {
            return Broke::Done;
        }
    }
}

/// Whether the game is over and every event up to `last` was delivered.
async fn over(client: &Client, name: &str, last: i64, finished_at: Option<i64>) -> bool {
    if let Some(seq) = finished_at
        && last >= seq
    {
        return true;
    }
    match client.get_game(name).retry(RetryPolicy::NONE).await {
        Ok(game) => game.status == pb::GameStatus::Finished as i32 && last >= game.last_seq,
        Err(_) => false,
    }
}
