//! The creation flood of the hostile scenario in its short (CI) form; see
//! `arbiter_e2e::reliability::hostile_flood` for what it does and checks.

use arbiter_e2e::reliability::hostile_flood::{FloodOptions, creation_flood};

#[test]
fn hostile_creation_flood_short() {
    let report = crate::serially(creation_flood(&FloodOptions::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "creation flood failed:\n{}", report.failures.join("\n"));
}
