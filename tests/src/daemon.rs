//! The real `arbiterd` binary as a child process, for the tests that must
//! kill it with SIGKILL, run several replicas side by side or read its
//! memory use: things one process cannot do to itself.
//!
//! The binary is found through `$ARBITERD`, or else beside the running test
//! or example (`target/<profile>/arbiterd`). `cargo test --workspace` builds
//! it; a test of this package alone needs `cargo build -p arbiter-server`
//! first (with `--release` for the release examples).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use tonic::transport::Channel;

use crate::{ARBITER_TOKEN, Bearer, Client, SERVICE_TOKEN, VIEWER_TOKEN};

/// Where the `arbiterd` binary is.
///
/// # Panics
/// When it cannot be found: the message says how to build it.
pub fn arbiterd_path() -> PathBuf {
    if let Some(path) = std::env::var_os("ARBITERD") {
        return PathBuf::from(path);
    }
    // target/<profile>/deps/<test> or target/<profile>/examples/<example>.
    let exe = std::env::current_exe().expect("current exe");
    let candidate = exe.parent().and_then(Path::parent).map(|dir| dir.join("arbiterd"));
    match candidate {
        Some(path) if path.is_file() => path,
        _ => panic!(
            "arbiterd not found beside {}: build it first (`cargo build -p arbiter-server`, with --release for \
             release runs) or set ARBITERD",
            exe.display()
        ),
    }
}

/// Where the operator CLI `arbiter` is: `$ARBITER_CLI`, or else beside the
/// running test (`cargo test --workspace` builds it; a test of this package
/// alone needs `cargo build -p arbiter-cli` first).
///
/// # Panics
/// When it cannot be found: the message says how to build it.
pub fn arbiter_cli_path() -> PathBuf {
    if let Some(path) = std::env::var_os("ARBITER_CLI") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("current exe");
    let candidate = exe.parent().and_then(Path::parent).map(|dir| dir.join("arbiter"));
    match candidate {
        Some(path) if path.is_file() => path,
        _ => panic!(
            "arbiter not found beside {}: build it first (`cargo build -p arbiter-cli`) or set ARBITER_CLI",
            exe.display()
        ),
    }
}

/// A running `arbiterd` child process with the harness's role tokens.
#[derive(Debug)]
pub struct Daemon {
    pub addr: SocketAddr,
    pub metrics_addr: SocketAddr,
    pub database_url: String,
    /// Its standard error (the logs), kept for the panic check.
    pub log_path: PathBuf,
    /// Whether it serves TLS (started with `--tls-cert` and `--tls-key`).
    pub tls: bool,
    child: Child,
}

impl Daemon {
    /// Starts `arbiterd` on `database_url` with logs written to `log_path`
    /// (appended: a restarted daemon adds to the same file), `extra_args`
    /// added to the command line, and waits until it serves.
    ///
    /// # Panics
    /// When the binary cannot start or does not print its address in 30 s.
    pub fn spawn(database_url: &str, log_path: &Path, extra_args: &[&str]) -> Daemon {
        Daemon::spawn_with_env(database_url, log_path, extra_args, &[])
    }

    /// [`Daemon::spawn`] with environment variables set for the child
    /// (`RUST_LOG`, say) over the harness's.
    ///
    /// # Panics
    /// As [`Daemon::spawn`].
    pub fn spawn_with_env(
        database_url: &str,
        log_path: &Path,
        extra_args: &[&str],
        env: &[(&str, &str)],
    ) -> Daemon {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log_path).expect("log file");
        let token_file = log_path.with_extension("tokens");
        let mut command = Command::new(arbiterd_path());
        // Replicas of one PostgreSQL database share one player-token key
        // file, as they must in production: the one in the log's folder.
        if database_url.starts_with("postgres") && !extra_args.contains(&"--player-token-key-file") {
            let keys = log_path.parent().unwrap_or(Path::new(".")).join("player-token.keys");
            if !keys.exists() {
                let status = Command::new(arbiterd_path())
                    .args(["key", "generate", "--player-token-key-file"])
                    .arg(&keys)
                    .stdout(Stdio::null())
                    .status()
                    .expect("arbiterd key generate");
                assert!(status.success() || keys.exists(), "arbiterd key generate failed");
            }
            command.arg("--player-token-key-file").arg(keys);
        }
        let mut child = command
            .args([
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "127.0.0.1:0",
                "--http-listen",
                "127.0.0.1:0",
                "--database-url",
                database_url,
            ])
            .arg("--token-file")
            .arg(&token_file)
            .args(extra_args)
            .env("ARBITER_ARBITER_TOKEN", ARBITER_TOKEN)
            .env("ARBITER_SERVICE_TOKEN", SERVICE_TOKEN)
            .env("ARBITER_VIEWER_TOKEN", VIEWER_TOKEN)
            .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into()))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn arbiterd");
        // The daemon prints its addresses on standard output; a thread reads
        // them and then keeps draining the pipe so it never fills.
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let (mut addr, mut metrics_addr, mut tls) = (None, None, false);
        while addr.is_none() || metrics_addr.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match rx.recv_timeout(left) {
                Ok(line) => line,
                Err(_) => {
                    let _ = child.kill();
                    let log = std::fs::read_to_string(log_path).unwrap_or_default();
                    panic!("arbiterd did not start on {database_url}; its log:\n{log}");
                }
            };
            if let Some(rest) = line.strip_prefix("arbiterd listening on http://") {
                addr = rest.trim().parse().ok();
            } else if let Some(rest) = line.strip_prefix("arbiterd listening on https://") {
                // `--tls-cert`/`--tls-key` given: the same address, over TLS.
                addr = rest.trim().parse().ok();
                tls = true;
            } else if let Some(rest) = line.strip_prefix("metrics: http://") {
                metrics_addr = rest.trim().trim_end_matches("/metrics").parse().ok();
            }
        }
        Daemon {
            addr: addr.expect("address"),
            metrics_addr: metrics_addr.expect("metrics address"),
            database_url: database_url.to_string(),
            log_path: log_path.to_path_buf(),
            tls,
            child,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `http://addr`, or `https://addr` when it serves TLS.
    pub fn url(&self) -> String {
        format!("{}://{}", if self.tls { "https" } else { "http" }, self.addr)
    }

    /// A channel to it (connected lazily, so it survives the daemon's death
    /// and reports UNAVAILABLE instead). Plain text only: a daemon that
    /// serves TLS needs a client with its CA.
    pub fn channel(&self) -> Channel {
        Channel::from_shared(self.url()).expect("url").connect_lazy()
    }

    /// A client carrying `token`.
    pub fn client(&self, token: &str) -> Client {
        ArbiterServiceClient::with_interceptor(self.channel(), Bearer::new(token))
    }

    /// An arbiter client.
    pub fn arbiter(&self) -> Client {
        self.client(ARBITER_TOKEN)
    }

    /// Resident memory in KiB, from `/proc/<pid>/status` (Linux).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL: no shutdown, no flush, exactly a crash.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM and wait (at most 30 s) for the graceful shutdown; returns
    /// whether it exited successfully.
    pub fn terminate(mut self) -> bool {
        // The standard library only sends SIGKILL; kill(1) sends SIGTERM
        // without adding a crate for one system call.
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        false
    }

    /// Lines of its log that report a panic.
    pub fn panics(&self) -> Vec<String> {
        log_panics(&self.log_path)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of a daemon log that report a panic.
pub fn log_panics(log_path: &Path) -> Vec<String> {
    std::fs::read_to_string(log_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("panicked at"))
        .map(str::to_string)
        .collect()
}
