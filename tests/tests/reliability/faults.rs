//! The faults scenario in its CI form: PostgreSQL cut off behind a proxy,
//! then SQLite on a full tmpfs, while online games go on.

use arbiter_e2e::reliability::faults::{Options, run};

#[test]
fn storage_faults_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "faults failures:\n{}", report.failures.join("\n"));
}
