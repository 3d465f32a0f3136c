//! The hostile scenario in its short (CI) form; see
//! `arbiter_e2e::reliability::hostile` for what it does and checks.

use arbiter_e2e::reliability::hostile::{Options, run};

#[test]
fn hostile_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "hostile failed:\n{}", report.failures.join("\n"));
}
