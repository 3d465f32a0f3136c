//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// The project's `shared/` folder with the public test data sets:
/// `$ARBITER_SHARED` if set, else the nearest `shared` folder with a
/// `data/` inside, beside the repository or above it (as laid out for
/// developers and CI). `None` when there is none.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().skip(1).map(|dir| dir.join("shared")).find(|c| c.join("data").is_dir())
}

/// A file of a data set under `shared/data/`, or `None` when it is absent.
/// The data sets stay outside the repository, so a clone with nothing beside
/// it says in one line which one is missing and the test skips; on CI (`CI`
/// set) a missing data set is a failure.
pub fn data_file(rel: &str) -> Option<PathBuf> {
    let path = shared_dir().map(|dir| dir.join("data").join(rel));
    if let Some(path) = path.filter(|p| p.is_file()) {
        return Some(path);
    }
    let looked = shared_dir().map_or_else(
        || "no shared/data beside the repository or above it, and ARBITER_SHARED unset".to_owned(),
        |dir| format!("not in {}", dir.join("data").display()),
    );
    let why = format!(
        "data set shared/data/{rel} not found ({looked}); set ARBITER_SHARED to the folder that holds data/"
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    // Straight to the process's stderr: libtest captures `eprintln!` of a
    // passing test, and this line must be seen.
    let _ = writeln!(std::io::stderr(), "skipped: {why}");
    None
}

/// A small deterministic generator (xorshift64*), so failures reproduce:
/// the one generator of these tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    /// `true` `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
