//! Reliability scenarios: the service under crashes, replica loss, storage
//! faults, malformed input, hostile clients and long load. Each scenario takes its options
//! (a short form for CI, a long form for the named long-running command,
//! `cargo run --release -p arbiter-e2e --example reliability`) and returns
//! a report whose failures list must be empty.

pub mod crash;
pub mod faults;
pub mod fuzz;
pub mod hostile;
pub mod hostile_flood;
pub mod hostile_ids;
pub mod play;
pub mod replicas;
pub mod soak;

/// The end of every report: `PASS`, or each failure on a line of its own.
///
/// # Errors
/// As the formatter's.
pub fn write_verdict(f: &mut std::fmt::Formatter<'_>, failures: &[String]) -> std::fmt::Result {
    if failures.is_empty() {
        return write!(f, "  PASS");
    }
    write!(f, "  FAIL: {} failures:", failures.len())?;
    for failure in failures {
        write!(f, "\n    - {failure}")?;
    }
    Ok(())
}
