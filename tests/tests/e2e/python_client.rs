//! The Python client package (`clients/python`, issue 19 point 6) against
//! the real `arbiterd`: the package is built as pip builds it (its gRPC
//! stubs generated from `proto/` by grpcio-tools at build time) into a
//! temporary folder, and its pytest suite (`clients/python/tests`) runs
//! against two daemons, one in plain text and one serving TLS.
//!
//! It needs `python3` (or `$ARBITER_PYTHON`) with grpcio-tools, grpcio,
//! grpcio-status, pytest, setuptools 77 or newer and python-chess, which
//! `.ci/run` installs; the build is offline (`--no-build-isolation
//! --no-deps`). On CI (`CI` set) a missing interpreter or package is a
//! failure; elsewhere the test says what is missing and skips.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_e2e::daemon::Daemon;
use arbiter_e2e::{ARBITER_TOKEN, VIEWER_TOKEN, test_certificates};

/// What building the package and running its suite import.
const PROBE: &str = r#"
import grpc, grpc_status, grpc_tools.protoc, pytest, chess, setuptools
major = int(setuptools.__version__.split(".")[0])
assert major >= 77, "setuptools " + setuptools.__version__ + " is older than 77"
"#;

/// The longest the suite may take before it is stopped.
const SUITE_TIMEOUT: Duration = Duration::from_secs(300);

fn python() -> PathBuf {
    std::env::var_os("ARBITER_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// Why the test cannot run here, or `None` when Python has everything.
fn missing(python: &Path) -> Option<String> {
    match Command::new(python).args(["-c", PROBE]).output() {
        Err(e) => Some(format!("{} not runnable ({e})", python.display())),
        Ok(out) if !out.status.success() => Some(format!(
            "{} lacks what the Python client needs: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").trim()
        )),
        Ok(_) => None,
    }
}

/// Copies the package's sources, leaving out what a build or a test run
/// left there (and the stubs an editable install generates in `src/`), so
/// the build here writes nothing into the repository.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the source copy");
    for entry in std::fs::read_dir(from).expect("read clients/python") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let generated = ["build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"]
            .contains(&name.as_ref())
            || name.ends_with(".egg-info")
            || (name == "arbiter" && from.ends_with("src"));
        if generated {
            continue;
        }
        let path = entry.path();
        if entry.file_type().expect("file type").is_dir() {
            copy_sources(&path, &to.join(&*name));
        } else {
            std::fs::copy(&path, to.join(&*name)).expect("copy a source file");
        }
    }
}

fn output_text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn python_client_suite_passes_against_arbiterd() {
    let python = python();
    if let Some(why) = missing(&python) {
        assert!(
            std::env::var_os("CI").is_none(),
            "{why}; CI needs them: .ci/run installs grpcio-tools, grpcio-status, pytest, setuptools and chess"
        );
        // Straight to stderr: libtest captures `eprintln!` of a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "python client test skipped: {why} (pip install grpcio-tools==1.76.0 grpcio-status==1.76.0 \
             pytest setuptools chess, or set ARBITER_PYTHON)"
        );
        return;
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = tempfile::tempdir().expect("temp dir");

    // Build and install the package as pip does, offline.
    let source = work.path().join("arbiter-client");
    copy_sources(&repo.join("clients/python"), &source);
    let site = work.path().join("site");
    let install = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-build-isolation"])
        .args(["--no-deps", "--no-index", "--target"])
        .arg(&site)
        .arg(&source)
        .env("ARBITER_PROTO_DIR", repo.join("proto"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run pip");
    assert!(install.status.success(), "pip could not build the Python client:\n{}", output_text(&install));
    for generated in ["arbiter_service_pb2.py", "arbiter_service_pb2.pyi", "arbiter_service_pb2_grpc.py"] {
        assert!(site.join("arbiter/v1").join(generated).is_file(), "the build did not generate {generated}");
    }
    assert!(site.join("arbiter_client/py.typed").is_file(), "the wrapper is typed (PEP 561)");

    // The servers: plain text, and TLS with a certificate of a test CA.
    let data = tempfile::tempdir().expect("temp dir");
    let sqlite = |name: &str| format!("sqlite://{}", data.path().join(name).display());
    let plain = Daemon::spawn(&sqlite("plain.db"), &data.path().join("plain.log"), &[]);
    let (ca, cert, key) = test_certificates(data.path());
    let (ca_path, cert_path, key_path) =
        (data.path().join("ca.pem"), data.path().join("server.pem"), data.path().join("server.key"));
    for (path, pem) in [(&ca_path, &ca), (&cert_path, &cert), (&key_path, &key)] {
        std::fs::write(path, pem).expect("write a PEM file");
    }
    let tls_args =
        ["--tls-cert", cert_path.to_str().expect("utf-8"), "--tls-key", key_path.to_str().expect("utf-8")];
    let tls = Daemon::spawn(&sqlite("tls.db"), &data.path().join("tls.log"), &tls_args);
    assert!(tls.tls && !plain.tls, "one daemon serves TLS, the other plain text");

    // The suite, with the servers in its environment.
    let log_path = work.path().join("pytest.log");
    let log = std::fs::File::create(&log_path).expect("pytest log");
    let mut pytest = Command::new(&python)
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-rs", "-v", "tests"])
        .current_dir(&source)
        .env("PYTHONPATH", &site)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("ARBITER_TEST_URL", plain.url())
        .env("ARBITER_TEST_TOKEN", ARBITER_TOKEN)
        .env("ARBITER_TEST_VIEWER_TOKEN", VIEWER_TOKEN)
        .env("ARBITER_TEST_TLS_URL", tls.url())
        .env("ARBITER_TEST_CA", &ca_path)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log.try_clone().expect("log")))
        .stderr(Stdio::from(log))
        .spawn()
        .expect("run pytest");
    let deadline = Instant::now() + SUITE_TIMEOUT;
    let status = loop {
        if let Some(status) = pytest.try_wait().expect("wait for pytest") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = pytest.kill();
            let _ = pytest.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let report = std::fs::read_to_string(&log_path).unwrap_or_default();
    let logs = || {
        let read = |name: &str| std::fs::read_to_string(data.path().join(name)).unwrap_or_default();
        format!(
            "--- arbiterd (plain) ---\n{}\n--- arbiterd (TLS) ---\n{}",
            read("plain.log"),
            read("tls.log")
        )
    };
    match status {
        None => panic!("the Python suite took more than {SUITE_TIMEOUT:?}:\n{report}\n{}", logs()),
        Some(status) if !status.success() => {
            panic!("the Python client's suite failed ({status}):\n{report}\n{}", logs())
        }
        Some(_) => {}
    }
    // Every test ran: the daemons were there, so nothing may skip.
    assert!(!report.contains("SKIPPED") && !report.contains(" skipped"), "tests were skipped:\n{report}");
    assert!(report.contains(" passed"), "{report}");
    assert!(plain.panics().is_empty() && tls.panics().is_empty(), "{}", logs());
}
