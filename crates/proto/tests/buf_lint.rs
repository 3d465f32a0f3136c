//! `buf lint` (STANDARD rules, `buf.yaml` at the repository root) over
//! `proto/`. The buf binary comes from `$ARBITER_BUF`, `buf` on the PATH or
//! `.ci/tools/node_modules/.bin/buf` (where `.ci/run` installs
//! `@bufbuild/buf`). On CI (`CI` set) a missing buf is a failure; elsewhere
//! the test says it could not run.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn buf() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("ARBITER_BUF").map(PathBuf::from),
        Some(PathBuf::from("buf")),
        Some(root.join(".ci/tools/node_modules/.bin/buf")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

#[test]
fn buf_lint_passes() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(buf) = buf() else {
        assert!(std::env::var_os("CI").is_none(), "buf is required on CI: .ci/run installs it");
        // Straight to stderr: libtest captures `eprintln!` of a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "buf not found: set ARBITER_BUF or run .ci/run to install it; lint skipped"
        );
        return;
    };
    let out = Command::new(&buf).arg("lint").current_dir(&root).output().expect("run buf");
    assert!(
        out.status.success(),
        "buf lint failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
