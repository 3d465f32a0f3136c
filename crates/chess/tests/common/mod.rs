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
