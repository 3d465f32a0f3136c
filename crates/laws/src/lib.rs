//! # arbiter-laws
//!
//! The competition rules of the FIDE Laws of Chess (and the Online Chess
//! Regulations) as a pure, deterministic state machine: given the event's
//! regulations and a stream of timestamped events from the board, it decides
//! what an arbiter watching every move would decide, and names the Article
//! it applies. No I/O, no async, no system clock: time comes in with every
//! event, so a game can be replayed bit for bit from its event log.

pub mod article;
pub mod clock;
pub mod event;
pub mod game;
pub mod notation;
pub mod regulations;
pub mod rule;
pub mod ruling;
pub mod scoring;
pub mod time_control;
pub mod touch;
