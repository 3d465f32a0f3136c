//! `arbiter board connect`: the bridge between an electronic board and the
//! service. A protocol module reads the board ([`livechess`]: DGT
//! LiveChess's WebSocket API; [`dgt`]: the DGT serial protocol) into
//! [`reading::Reading`]s, and [`bridge`] sends them on a ConnectBoard
//! stream and prints what the service rules.

pub mod bridge;
pub mod dgt;
pub mod livechess;
pub mod reading;

use std::fmt::Write as _;

use anyhow::Context as _;
use arbiter_client::{BoardUpdate, exit, pb};
use serde_json::json;
use tokio::sync::mpsc;

use self::bridge::{Ended, Said};
use self::reading::DeviceClock;
use crate::args::Format;
use crate::args::{BoardConnectArgs, GlobalArgs, SensingArg};
use crate::session::out;
use crate::{output, render};

/// Readings in flight between the protocol and the bridge.
const READINGS: usize = 256;

/// Runs `arbiter board connect`.
///
/// # Errors
/// The board or the service cannot be reached, or the service refuses the
/// board (no such game, wrong token, another board holds the game).
pub async fn connect(global: &GlobalArgs, args: &BoardConnectArgs) -> anyhow::Result<u8> {
    // Lazy: a service down when the bridge starts is waited for like a
    // broken stream, while the board's readings are kept.
    let client = global.client_lazy()?;
    let clock = DeviceClock::start();
    let (readings_tx, readings) = mpsc::channel(READINGS);
    let (setups_tx, setups) = mpsc::channel(8);
    let (notes_tx, notes) = mpsc::channel(32);
    let (device_id, label) = if let Some(url) = &args.livechess {
        let (live, board) = livechess::open(url, args.serial.as_deref()).await?;
        let device_id = args.device_id.unwrap_or_else(|| device_id_of(&board.serialnr));
        let label = format!("LiveChess board {}", board.serialnr);
        tokio::spawn(livechess::run(url.clone(), (live, board), clock, readings_tx, setups, notes_tx));
        (device_id, label)
    } else if let Some(path) = &args.dgt_serial {
        let device_id =
            args.device_id.context("--dgt-serial needs --device-id (the board's serial number)")?;
        let (raw_tx, mut raw) = mpsc::channel(READINGS);
        dgt::serial::start(path, raw_tx).map_err(Unreachable)?;
        // The serial thread gives bare readings; they are timed here, as
        // they arrive (the line adds at most a few milliseconds).
        tokio::spawn(async move {
            while let Some(reading) = raw.recv().await {
                let timed = reading::Timed { reading, device_time_ms: clock.now_ms() };
                if readings_tx.send(timed).await.is_err() {
                    return;
                }
            }
        });
        // The serial protocol has no position to push: setups are dropped.
        drop(setups);
        drop(notes_tx);
        (device_id, format!("DGT board {device_id} on {}", path.display()))
    } else {
        unreachable!("clap requires --livechess or --dgt-serial")
    };
    let hello = pb::BoardHello {
        name: args.game.clone(),
        device_id,
        sensing: match args.sensing {
            SensingArg::PieceIds => pb::BoardSensing::PieceIds,
            SensingArg::Occupancy => pb::BoardSensing::Occupancy,
        } as i32,
        settle_ms: args.settle_ms.unwrap_or(0),
        label: args.label.clone().unwrap_or(label),
    };
    let mut printer = Printer { format: global.format(), in_sync: None };
    let mut failed: Option<anyhow::Error> = None;
    let ended = bridge::run(&client, hello, readings, setups_tx, notes, interrupted(), &mut |said| {
        if failed.is_none()
            && let Err(e) = printer.print(&said)
        {
            failed = Some(e);
        }
    })
    .await?;
    if let Some(e) = failed {
        return Err(e);
    }
    match ended {
        Ended::GameOver => printer
            .line("the game is over; the bridge stops", json!({ "ended": { "reason": "GAME_OVER" } }))?,
        Ended::Interrupted { unconfirmed } => printer.line(
            &format!("stopped; {unconfirmed} reading(s) not confirmed by the service"),
            json!({ "ended": { "reason": "INTERRUPTED", "unconfirmed": unconfirmed } }),
        )?,
    }
    Ok(exit::OK)
}

/// The board (LiveChess, the serial port) cannot be reached: exit 5, as
/// for an unreachable service.
#[derive(Debug)]
pub struct Unreachable(pub anyhow::Error);

/// The board named is not there (no such LiveChess serial number, or none
/// named among several): exit 2.
#[derive(Debug)]
pub struct NoSuchBoard(pub anyhow::Error);

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Unreachable {}

impl std::fmt::Display for NoSuchBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for NoSuchBoard {}

/// Ctrl-C or SIGTERM.
async fn interrupted() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        () = term => {}
        () = ctrl_c => {}
    }
}

/// The device id of a LiveChess serial number: the number itself, or for a
/// serial number that is not one, a stable 64-bit hash of its text
/// (FNV-1a), so the same board always gets the same id.
pub fn device_id_of(serial: &str) -> u64 {
    serial.trim().parse().unwrap_or_else(|_| {
        serial
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

/// Prints what the bridge says, as text for the arbiter in the hall or,
/// with `-o json|yaml`, as a stream of documents, each an object with one
/// key saying what it is (`{"act": {...}}`), its messages in the canonical
/// proto3 JSON mapping.
struct Printer {
    format: Format,
    /// Whether the board matched the service's belief, last said.
    in_sync: Option<bool>,
}

impl Printer {
    fn structured(&self) -> bool {
        matches!(self.format, Format::Json | Format::Yaml)
    }

    fn line<T: serde::Serialize>(&self, text: &str, value: T) -> anyhow::Result<()> {
        if self.structured() { output::item(self.format, &value) } else { Ok(out(&format!("{text}\n"))?) }
    }

    fn print(&mut self, said: &Said) -> anyhow::Result<()> {
        match said {
            Said::Connected { accepted, resent } => {
                let game = accepted.game.as_ref().map_or("?", |g| g.name.as_str());
                let mut text = format!(
                    "connected: {game}, settle time {} ms; the service has this board's readings up to #{}",
                    accepted.settle_ms, accepted.last_device_seq
                );
                if *resent > 0 {
                    let _ = write!(text, "; {resent} sent again");
                }
                self.line(
                    &text,
                    json!({ "connected": {
                        "accepted": output::message(&**accepted)?,
                        "resent": resent,
                    } }),
                )
            }
            Said::Update(update) => self.update(update),
            Said::Setup(fen) => {
                self.line(&format!("LiveChess setup: {fen}"), json!({ "setup": { "fen": fen } }))
            }
            Said::Reconnecting { attempt, error, unconfirmed } => self.line(
                &format!(
                    "the connection to the service broke ({error}); trying again (attempt {attempt}, \
                     {unconfirmed} reading(s) kept)"
                ),
                json!({ "reconnecting": { "attempt": attempt, "error": error, "unconfirmed": unconfirmed } }),
            ),
            Said::Dropped(n) => self.line(
                &format!("too many readings waiting for the service: {n} dropped"),
                json!({ "dropped": { "count": n } }),
            ),
            Said::Note(note) => self.line(note, json!({ "note": { "text": note } })),
        }
    }

    fn update(&mut self, update: &BoardUpdate) -> anyhow::Result<()> {
        match update {
            BoardUpdate::Act(act) => {
                let mut text = format!("#{:<5} {}", act.device_seq, act.summary);
                if let Some(e) = &act.event {
                    let _ = write!(text, "\n       event #{} {}", e.seq, e.act);
                    if !e.summary.is_empty() {
                        let _ = write!(text, ": {}", e.summary);
                    }
                    for r in &e.rulings {
                        let _ = write!(text, "\n         {}", render::ruling(r));
                    }
                }
                self.line(&text, output::keyed("act", &**act)?)
            }
            BoardUpdate::Belief(b) => {
                // Said when it changes: the arbiter needs to know the board
                // went out of step, not every placement the service saw.
                if self.in_sync == Some(b.in_sync) && !self.structured() {
                    return Ok(());
                }
                self.in_sync = Some(b.in_sync);
                let text = if b.in_sync {
                    format!("the board matches the game (after #{})", b.device_seq)
                } else {
                    format!(
                        "the board does not match the game (after #{}); the service believes {}",
                        b.device_seq, b.placement
                    )
                };
                self.line(&text, output::keyed("belief", b)?)
            }
            BoardUpdate::Corrections(c) => {
                let mut text = format!("corrections: {}", c.reason);
                for step in &c.corrections {
                    let what =
                        if step.piece.is_empty() { "empty".to_string() } else { piece_name(&step.piece) };
                    let _ = write!(text, "\n  {}: {what}", step.square);
                }
                self.line(&text, output::keyed("corrections", c)?)
            }
            BoardUpdate::ClockDrift(d) => self.line(
                &format!(
                    "clock drift at #{}: White {:+.1} s, Black {:+.1} s; {}",
                    d.device_seq,
                    d.white_drift_ms as f64 / 1000.0,
                    d.black_drift_ms as f64 / 1000.0,
                    d.resolution
                ),
                output::keyed("clockDrift", d)?,
            ),
            BoardUpdate::Refusal(r) => self.line(
                &format!("refused #{} {}: {}", r.device_seq, r.reason, r.message),
                output::keyed("refusal", r)?,
            ),
        }
    }
}

/// `P (white pawn)` for a FEN letter.
fn piece_name(letter: &str) -> String {
    match letter.chars().next().and_then(arbiter_chess::Piece::from_char) {
        Some(p) => format!("{letter} ({} {})", p.color.name(), p.role.name()),
        None => letter.to_owned(),
    }
}

#[cfg(test)]
mod tests;
