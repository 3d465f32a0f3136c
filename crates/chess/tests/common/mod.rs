//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

/// The project's `shared/` folder with the test data: `$ARBITER_SHARED` if
/// set, else the `shared` folder beside the repository (as laid out for
/// developers and CI).
pub fn shared_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("ARBITER_SHARED") {
        return PathBuf::from(dir);
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut dir = manifest.as_path();
    while let Some(parent) = dir.parent() {
        let candidate = parent.join("shared");
        if candidate.join("data").is_dir() {
            return candidate;
        }
        dir = parent;
    }
    panic!("cannot find the shared/ data folder beside the repository; set ARBITER_SHARED")
}

/// A file under `shared/data/`.
pub fn data_file(rel: &str) -> PathBuf {
    shared_dir().join("data").join(rel)
}
