//! ConnectBoard: the typed stream of an electronic board (or the bridge next
//! to it) for one game.
//!
//! [`Client::connect_board`] opens the stream with a [`pb::BoardHello`] and
//! waits for the service's [`pb::BoardAccepted`]; then the [`BoardSender`]
//! sends [`BoardReport`]s (observations of the squares, readings of the
//! clock) and [`BoardUpdates`] gives what the service decided, as
//! [`BoardUpdate`]s. A stream is not resumed here: the caller keeps what it
//! sent after [`pb::BoardAccepted::last_device_seq`] and sends it again on a
//! new stream, which the service applies at most once (it numbers nothing
//! itself: `device_seq` is the device's).

use std::time::Duration;

use arbiter_proto::v1 as pb;
use arbiter_proto::v1::connect_board_request::Item as RequestItem;
use arbiter_proto::v1::connect_board_response::Item as ResponseItem;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;

use crate::parse::normalize_game;
use crate::{Client, Error};

/// How many reports may wait in the stream's send queue before
/// [`BoardSender::send`] waits (back-pressure from HTTP/2 flow control).
const QUEUE: usize = 64;

/// One report of a board to the service.
#[derive(Clone, Debug, PartialEq)]
pub enum BoardReport {
    /// An observation of the squares.
    Observation(pb::BoardObservation),
    /// A reading of the board's clock.
    Clock(pb::BoardClockReport),
}

impl BoardReport {
    /// The device's sequence number of the report.
    pub fn device_seq(&self) -> u64 {
        match self {
            BoardReport::Observation(o) => o.device_seq,
            BoardReport::Clock(c) => c.device_seq,
        }
    }

    /// The device's time of the report, in milliseconds.
    pub fn device_time_ms(&self) -> u64 {
        match self {
            BoardReport::Observation(o) => o.device_time_ms,
            BoardReport::Clock(c) => c.device_time_ms,
        }
    }

    fn into_request(self) -> pb::ConnectBoardRequest {
        let item = match self {
            BoardReport::Observation(o) => RequestItem::Observation(o),
            BoardReport::Clock(c) => RequestItem::Clock(c),
        };
        pb::ConnectBoardRequest { item: Some(item) }
    }
}

/// One message of the service on a board stream, after the
/// [`pb::BoardAccepted`] that opened it.
#[derive(Clone, Debug, PartialEq)]
pub enum BoardUpdate {
    /// An act inferred from the board, and what the Laws made of it
    /// (boxed: it carries the event with its rulings).
    Act(Box<pb::BoardAct>),
    /// What the service believes is on the board now (OCR 3.2.6).
    Belief(pb::BoardBelief),
    /// The board does not match the game: what to change, square by square.
    Corrections(pb::BoardCorrections),
    /// The board's clock and the service's disagree beyond the bound.
    ClockDrift(pb::BoardClockDrift),
    /// A report was not applied, and why (the stream stays open).
    Refusal(pb::BoardRefusal),
}

impl BoardUpdate {
    /// The device sequence number the update answers: every kept report up
    /// to it has been applied.
    pub fn device_seq(&self) -> Option<u64> {
        match self {
            BoardUpdate::Act(a) => Some(a.device_seq),
            BoardUpdate::Belief(b) => Some(b.device_seq),
            BoardUpdate::ClockDrift(d) => Some(d.device_seq),
            BoardUpdate::Refusal(r) => Some(r.device_seq),
            BoardUpdate::Corrections(_) => None,
        }
    }
}

/// An open board stream: what the service said on opening it, the sending
/// half and the receiving half ([`BoardStream::split`] to use them from two
/// tasks).
#[derive(Debug)]
pub struct BoardStream {
    accepted: pb::BoardAccepted,
    sender: BoardSender,
    updates: BoardUpdates,
}

impl BoardStream {
    /// The service's answer to the hello: the game as it stands, the last
    /// `device_seq` of this device it kept, the settle time in force.
    pub fn accepted(&self) -> &pb::BoardAccepted {
        &self.accepted
    }

    /// The accepted answer, the sending half and the receiving half.
    pub fn split(self) -> (pb::BoardAccepted, BoardSender, BoardUpdates) {
        (self.accepted, self.sender, self.updates)
    }
}

/// The sending half of a board stream. Dropping it (and its clones) ends
/// the board's side of the stream.
#[derive(Clone, Debug)]
pub struct BoardSender {
    tx: mpsc::Sender<pb::ConnectBoardRequest>,
}

impl BoardSender {
    /// Sends a report.
    ///
    /// # Errors
    /// UNAVAILABLE when the stream is closed (the call ended: its error, if
    /// any, comes from [`BoardUpdates::next`]). The report may or may not
    /// have reached the service: send it again on a new stream if it is
    /// after the new stream's `last_device_seq`.
    pub async fn send(&self, report: BoardReport) -> Result<(), Error> {
        self.tx
            .send(report.into_request())
            .await
            .map_err(|_| Error::from(Status::unavailable("the board stream is closed")))
    }
}

/// The receiving half of a board stream.
#[derive(Debug)]
pub struct BoardUpdates {
    inbound: tonic::Streaming<pb::ConnectBoardResponse>,
}

impl BoardUpdates {
    /// The next update; `None` when the service ended the stream.
    ///
    /// # Errors
    /// The status the stream ended with (UNAVAILABLE and transport errors
    /// are [`Error::is_transient`]: open a new stream). A second
    /// `accepted` on the same stream is a protocol error (INTERNAL).
    pub async fn next(&mut self) -> Option<Result<BoardUpdate, Error>> {
        loop {
            let message = match self.inbound.message().await {
                Ok(Some(message)) => message,
                Ok(None) => return None,
                Err(status) => return Some(Err(status.into())),
            };
            let update = match message.item {
                // An empty message says nothing: a newer service's item this
                // client does not know.
                None => continue,
                Some(ResponseItem::Accepted(_)) => {
                    return Some(Err(Status::internal(
                        "the service accepted the board stream a second time",
                    )
                    .into()));
                }
                Some(ResponseItem::Act(a)) => BoardUpdate::Act(Box::new(a)),
                Some(ResponseItem::Belief(b)) => BoardUpdate::Belief(b),
                Some(ResponseItem::Corrections(c)) => BoardUpdate::Corrections(c),
                Some(ResponseItem::ClockDrift(d)) => BoardUpdate::ClockDrift(d),
                Some(ResponseItem::Refusal(r)) => BoardUpdate::Refusal(r),
            };
            return Some(Ok(update));
        }
    }
}

impl Client {
    /// ConnectBoard: opens the stream of a board for the game named in
    /// `hello` (`abc` or `games/abc`) and waits for the service to accept
    /// it (role `arbiter` or `service`).
    ///
    /// # Errors
    /// The service's refusal (NOT_FOUND, FAILED_PRECONDITION when another
    /// device holds the game, PERMISSION_DENIED...), UNAVAILABLE when it
    /// cannot be reached or ends the stream without accepting it, and
    /// DEADLINE_EXCEEDED when no answer came within the client's timeout.
    pub async fn connect_board(&self, mut hello: pb::BoardHello) -> Result<BoardStream, Error> {
        hello.name = normalize_game(&hello.name);
        let (tx, rx) = mpsc::channel(QUEUE);
        let first = pb::ConnectBoardRequest { item: Some(RequestItem::Hello(hello)) };
        tx.send(first).await.map_err(|_| Error::from(Status::internal("the send queue closed at once")))?;
        let open = async {
            let mut inbound = self.raw().connect_board(ReceiverStream::new(rx)).await?.into_inner();
            match inbound.message().await? {
                Some(pb::ConnectBoardResponse { item: Some(ResponseItem::Accepted(accepted)) }) => {
                    Ok((accepted, inbound))
                }
                Some(other) => Err(Status::internal(format!(
                    "the service answered the board's hello with {:?} instead of accepting it",
                    other.item
                ))),
                None => Err(Status::unavailable("the service ended the board stream without accepting it")),
            }
        };
        let (accepted, inbound) = match self.timeout() {
            Some(limit) => tokio::time::timeout(limit, open).await.unwrap_or_else(|_| {
                Err(Status::deadline_exceeded(format!(
                    "the service did not accept the board stream within {}",
                    seconds(limit)
                )))
            }),
            None => open.await,
        }?;
        Ok(BoardStream { accepted, sender: BoardSender { tx }, updates: BoardUpdates { inbound } })
    }
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
