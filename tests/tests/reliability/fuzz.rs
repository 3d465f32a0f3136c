//! The fuzz scenario in its CI form: 15 s of random and malformed requests
//! to every RPC of a real `arbiterd`.

use arbiter_e2e::reliability::fuzz::{Options, run};

#[test]
fn fuzz_every_rpc_short() {
    let report = crate::serially(run(&Options::short()));
    println!("{report}");
    assert!(report.failures.is_empty(), "fuzz failures:\n{}", report.failures.join("\n"));
}
