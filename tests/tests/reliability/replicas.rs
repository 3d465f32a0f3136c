//! The replicas scenario in its short (CI) form; see
//! `arbiter_e2e::reliability::replicas` for what it does and checks.

use arbiter_e2e::reliability::replicas::{Options, run};

#[test]
fn replicas_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "replicas failed:\n{}", report.failures.join("\n"));
}
