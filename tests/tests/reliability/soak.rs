//! The soak scenario in its short (CI) form; see
//! `arbiter_e2e::reliability::soak` for what it does and checks.

use arbiter_e2e::reliability::soak::{Options, run};

#[test]
fn soak_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "soak failed:\n{}", report.failures.join("\n"));
}
