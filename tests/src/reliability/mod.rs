//! Reliability scenarios: the service under crashes, replica loss, storage
//! faults, malformed input and long load. Each scenario takes its options
//! (a short form for CI, a long form for the named long-running command,
//! `cargo run --release -p arbiter-e2e --example reliability`) and returns
//! a report whose failures list must be empty.

pub mod crash;
pub mod faults;
pub mod fuzz;
pub mod play;
pub mod replicas;
pub mod soak;
