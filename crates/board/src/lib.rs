//! # arbiter-board
//!
//! Electronic chess boards for the Arbiter service: a pure, deterministic
//! state machine (no I/O, no clock of its own, no async) that turns a stream
//! of board observations into the acts the Laws judge: moves, take-backs,
//! illegal moves, unknown placements and touch evidence.
//!
//! A [`BoardReader`] is created for one board and one game from the starting
//! [`arbiter_chess::Position`] and [`Settings`] (the settle time of FIDE OCR
//! 3.2.3 and whether the board senses piece codes or occupancy only). It
//! takes [`Observation`]s (whole placements, square changes, lift and place
//! actions, a promotion choice), each with the device's sequence number and
//! timestamp, and [`BoardReader::tick`] at [`BoardReader::deadline`]; both
//! return [`Inference`]s. Time is injected: the device's clock orders
//! everything, so a replay of the same observations gives the same
//! inferences.
//!
//! ```
//! use arbiter_board::{BoardReader, DeviceId, DeviceTime, Inference, Observation, ObservationKind, Settings};
//! use arbiter_chess::{Position, Square};
//!
//! let mut reader = BoardReader::new(DeviceId(7), Position::startpos(), Settings::default());
//! let e2: Square = "e2".parse().unwrap();
//! let e4: Square = "e4".parse().unwrap();
//! let obs = |seq, ms, kind| Observation { device: DeviceId(7), device_seq: seq, at: DeviceTime(ms), kind };
//!
//! // The pawn is lifted (evidence of the first touch), then put on e4.
//! let out = reader.observe(&obs(1, 1000, ObservationKind::Lifted { square: e2 })).unwrap();
//! assert!(matches!(out[0], Inference::Touch(_)));
//! reader.observe(&obs(2, 1400, ObservationKind::Placed { square: e4, piece: None })).unwrap();
//!
//! // The move counts once the pawn has rested for the settle time (300 ms).
//! assert_eq!(reader.deadline(), Some(DeviceTime(1700)));
//! assert!(reader.tick(DeviceTime(1699)).is_empty());
//! let out = reader.tick(DeviceTime(1700));
//! let Inference::Move(m) = out[0] else { panic!("a move") };
//! assert_eq!(Position::startpos().san(m.mv), "e4");
//! assert_eq!(m.settled_at, DeviceTime(1700));
//! ```
//!
//! ## Touch evidence and the regulations
//!
//! The reader reports touches ([`TouchEvidence`]: the first lift of a piece
//! of the side to move, a lift and put-back on the same square, a lift of an
//! opponent's piece, each with its time); it never rules on them. What they
//! mean is decided by the laws crate from the event's regulations:
//!
//! - over the board, by default, evidence is recorded for the arbiter, who
//!   rules on a claim (FIDE 4.8: a claim of touch-move is the opponent's to
//!   make, before touching a piece himself);
//! - over the board, when the regulations say so, the first lift of an own
//!   piece becomes the 4.3a obligation to move it, a lifted opponent's piece
//!   the 4.3b obligation to capture it, and a king lifted with a rook the
//!   4.4 castling rules; a lift and put-back is a touch whose obligation
//!   stands. *J'adoube* cannot be sensed, so only an adjustment announced
//!   before (a clock button or the arbiter, 4.2.1) lifts it;
//! - online and hybrid games ignore touch evidence (OCR 1.3 and 3.2.2: the
//!   Laws' Article 4 does not apply online).
//!
//! ## What the reader does not do
//!
//! It judges nothing the Laws judge: a move is a placement that rested,
//! whether it ends the game, is a second illegal move, or breaks a touch
//! obligation is for the laws crate. It depends on `arbiter-chess` only.

mod corrections;
mod observation;
mod reader;
pub mod simulate;

pub use corrections::{Correction, corrections};
pub use observation::{
    DeviceId, DeviceTime, Impossible, Observation, ObservationError, ObservationKind, Placement, Sensing,
    SettingsError, Settle, SquareState,
};
pub use reader::{
    BoardReader, IllegalAttempt, Inference, InferredMove, MAX_CATCH_UP, Settings, TouchEvidence, TouchKind,
};
