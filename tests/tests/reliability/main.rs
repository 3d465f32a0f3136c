//! The reliability scenarios in their short form (the long forms run with
//! `cargo run --release -p arbiter-e2e --example reliability`).

mod crash;
mod faults;
mod fuzz;
mod hostile;
mod replicas;
mod soak;

use std::future::Future;
use std::sync::{Mutex, PoisonError};

/// The scenarios measure time (flag lateness, health-check latency) and
/// load the machine: they run one after the other, never side by side.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs one scenario on a runtime of its own, after the others finished.
pub(crate) fn serially<F: Future>(scenario: F) -> F::Output {
    let _turn = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(scenario)
}
