//! The crash scenario in its short (CI) form; see
//! `arbiter_e2e::reliability::crash` for what it does and checks.

use arbiter_e2e::reliability::crash::{Options, run};

#[test]
fn crash_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "crash failed:\n{}", report.failures.join("\n"));
}
