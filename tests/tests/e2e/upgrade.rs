//! Upgrades: a database written by an earlier release opens with this build
//! and every game in it reads back exactly as that release read it.
//!
//! `crates/server/tests/golden/release.sqlite` was written by the release
//! named in `expected.json` (see `examples/golden.rs`); `expected.json` holds
//! what that release's API answered about every game in it.

use std::path::PathBuf;

use arbiter_e2e::{TestServer, corpus};
use serde_json::Value;

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/server/tests/golden")
}

/// A copy of the first-format database in a temporary directory.
fn first_format_database() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arbiter.db");
    std::fs::copy(golden().join("release.sqlite"), &db).unwrap();
    let url = format!("sqlite://{}", db.display());
    (dir, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_first_release_reads_back_identically() {
    let (dir, url) = first_format_database();
    let server = TestServer::start_with(Some(dir), url, |_| {}).await;
    let actual = corpus::read_everything(&server).await;
    server.stop().await;
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(golden().join("expected.json")).unwrap()).unwrap();
    let (e, a) = (expected["answers"].as_array().unwrap(), actual.as_array().unwrap());
    for (x, y) in e.iter().zip(a) {
        assert_eq!(
            x,
            y,
            "{} reads differently from the release that wrote the database:\nexpected {}\n  actual {}",
            x["call"],
            serde_json::to_string_pretty(x).unwrap(),
            serde_json::to_string_pretty(y).unwrap()
        );
    }
    assert_eq!(e.len(), a.len());
}
