//! # arbiter-tournament
//!
//! Rounds and events for the Arbiter service, as pure functions over data
//! (no I/O, no clock): the [`crosstable`] of who met whom and how each round
//! ended, with the meaning TRF26, the Rating Regulations and the Tie-Break
//! Regulations need (played over the board, forfeit, under one move, byes).
//!
//! The server keeps events and rounds; this crate turns their games into a
//! crosstable and the crosstable into what others read.

pub mod crosstable;

pub use crosstable::{
    ByeKind, Crosstable, CrosstableError, GameOutcome, Participant, PointAdjustment, RoundEntry, RoundNumber,
    Scoring, StartNumber,
};
pub mod pairing;
pub mod trf;

pub use crosstable::{BirthDate, Sex};
pub use pairing::{Board, PairingError, RoundPairings};
pub use trf::{TrfError, TrfFile};
pub mod standings;
pub mod tiebreak;
