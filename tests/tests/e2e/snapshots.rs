//! Every RPC's answer pinned: the corpus session (`arbiter_e2e::corpus`)
//! played on a fresh server must answer exactly as the transcript checked in
//! at `tests/snapshots/rpc-transcript.json`, once the parts that depend on
//! the wall clock or on elapsed real time are left out.
//!
//! The transcript was recorded before the boundary between the Laws and the
//! wire was rewritten (issue 12) and must not change with it. A deliberate
//! change of the API's output is re-recorded with
//! `ARBITER_BLESS=1 cargo test -p arbiter-e2e --test e2e snapshots`, and the
//! diff of the file is then part of the change's review.

use arbiter_e2e::{TestServer, corpus};
use serde_json::Value;

const TRANSCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/rpc-transcript.json");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_as_recorded() {
    let server = TestServer::start().await;
    let session = corpus::play(server).await;
    let actual = corpus::normalize(&session.transcript.to_json());
    session.server.expect("the session's server").stop().await;
    if std::env::var_os("ARBITER_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
        std::fs::write(TRANSCRIPT, text).unwrap();
        return;
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(TRANSCRIPT).unwrap()).unwrap();
    compare(&expected, &actual);
}

/// Compares two transcripts call by call, naming the first call that differs.
#[track_caller]
fn compare(expected: &Value, actual: &Value) {
    let (e, a) = (expected.as_array().unwrap(), actual.as_array().unwrap());
    for (i, (x, y)) in e.iter().zip(a).enumerate() {
        assert_eq!(
            x,
            y,
            "call #{i} ({}) answers differently from the recorded transcript:\nexpected {}\n  actual {}",
            x["call"],
            serde_json::to_string_pretty(x).unwrap(),
            serde_json::to_string_pretty(y).unwrap()
        );
    }
    assert_eq!(e.len(), a.len(), "the transcript has {} calls, the recording {}", a.len(), e.len());
}
