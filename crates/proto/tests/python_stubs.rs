//! The API's Python stubs live beside python-chess. grpcio-tools generates a
//! Python package named after the proto package; under the old name
//! `chess.arbiter.v1` that package was `chess`, which shadowed (or was
//! shadowed by) python-chess, the library almost every Python chess backend
//! imports. This test generates the stubs from `proto/` into a temporary
//! folder and imports them in one Python process together with python-chess.
//!
//! It needs `python3` (or `$ARBITER_PYTHON`) with the PyPI packages
//! `grpcio-tools` and `chess`, which `.ci/run` installs. On CI (`CI` set) a
//! missing interpreter or package is a failure; elsewhere the test says what
//! is missing and skips.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Imports the generated stubs next to python-chess and checks both work:
/// a python-chess board still plays a move, and the stub's service has the
/// full name clients dial.
const CHECK: &str = r#"
import sys
sys.path.insert(0, sys.argv[1])
import chess
import arbiter.v1.game_pb2 as game_pb2
import arbiter.v1.arbiter_service_pb2 as service_pb2
import arbiter.v1.arbiter_service_pb2_grpc as service_grpc
board = chess.Board()
board.push_san("e4")
assert board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", board.fen()
assert getattr(chess, "__file__", None), "chess resolved to a namespace package, not python-chess"
service = service_pb2.DESCRIPTOR.services_by_name["ArbiterService"]
assert service.full_name == "arbiter.v1.ArbiterService", service.full_name
assert game_pb2.DESCRIPTOR.package == "arbiter.v1", game_pb2.DESCRIPTOR.package
assert hasattr(service_grpc, "ArbiterServiceStub")
print(service.full_name)
"#;

fn python() -> PathBuf {
    std::env::var_os("ARBITER_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// Why the test cannot run here, or `None` when Python has both packages.
fn missing(python: &Path) -> Option<String> {
    let probe = Command::new(python).args(["-c", "import grpc_tools.protoc, chess"]).output();
    match probe {
        Err(e) => Some(format!("{} not runnable ({e})", python.display())),
        Ok(out) if !out.status.success() => Some(format!(
            "{} lacks grpcio-tools or chess: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").trim()
        )),
        Ok(_) => None,
    }
}

#[test]
fn python_stubs_import_beside_python_chess() {
    let python = python();
    if let Some(why) = missing(&python) {
        assert!(
            std::env::var_os("CI").is_none(),
            "{why}; CI needs them: .ci/run installs grpcio-tools and chess"
        );
        // Straight to stderr: libtest captures `eprintln!` of a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "python stubs test skipped: {why} (pip install grpcio-tools chess, or set ARBITER_PYTHON)"
        );
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("python-stubs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("create the stub folder");

    let mut protos: Vec<PathBuf> = std::fs::read_dir(root.join("arbiter/v1"))
        .expect("read proto/arbiter/v1")
        .map(|e| e.expect("proto entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    protos.sort();
    assert!(protos.len() >= 2, "{protos:?}");
    let generate = Command::new(&python)
        .args(["-m", "grpc_tools.protoc"])
        .arg(format!("-I{}", root.display()))
        .arg(format!("--python_out={}", out.display()))
        .arg(format!("--grpc_python_out={}", out.display()))
        .args(&protos)
        .output()
        .expect("run grpc_tools.protoc");
    assert!(
        generate.status.success(),
        "grpc_tools.protoc failed:\n{}",
        String::from_utf8_lossy(&generate.stderr)
    );
    assert!(out.join("arbiter/v1/arbiter_service_pb2.py").is_file());

    let check = Command::new(&python).args(["-c", CHECK]).arg(&out).output().expect("run python");
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        check.status.success(),
        "the stubs do not import beside python-chess:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&check.stdout).trim(), "arbiter.v1.ArbiterService");
}
