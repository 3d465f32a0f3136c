//! Prometheus metrics, served on their own port.
//!
//! The recorder is process-wide (the `metrics` facade has one global
//! recorder), so several servers in one test process share it.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::connections::{CloseReason, ConnectionLimits, Gate, Port, count_closed};

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// How often recorded histogram samples are folded into their buckets.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// Installs the global recorder once.
pub(crate) fn install_recorder() -> Option<&'static PrometheusHandle> {
    let handle = HANDLE
        .get_or_init(|| {
            let buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];
            let builder = PrometheusBuilder::new().set_buckets(&buckets).ok()?;
            match builder.install_recorder() {
                Ok(handle) => Some(handle),
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed");
                    None
                }
            }
        })
        .as_ref()?;
    start_upkeep(handle);
    Some(handle)
}

/// Starts, once per process, the thread that folds recorded histogram
/// samples into their buckets. The recorder keeps every sample until a
/// scrape or an upkeep drains it, so a service nobody scrapes would grow by
/// some eight bytes per request for ever. A plain thread, not a task: the recorder is process-wide and
/// outlives any one runtime (tests start and stop many).
fn start_upkeep(handle: &'static PrometheusHandle) {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_INTERVAL);
                handle.run_upkeep();
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "metrics upkeep not started; histogram samples wait for scrapes");
        }
    });
}

/// The longest request head read on the metrics port; a longer one is
/// answered from what came (only the request line matters).
const MAX_HEAD: usize = 8 * 1024;

/// Serves `GET /metrics` (Prometheus text format) on `listener` until the
/// process ends. Any other path gets 404. Connections pass the gate of
/// [`crate::connections`] with `limits`: at most `max_connections` at once,
/// and `handshake_timeout` to send the request head (and again to take the
/// answer), so a client that connects and sends nothing holds nothing.
pub async fn serve_metrics(listener: TcpListener, limits: ConnectionLimits) {
    let Some(handle) = install_recorder() else { return };
    let gate = Gate::new(Port::Metrics, limits);
    loop {
        let (socket, peer, admission) = gate.accept(&listener).await;
        tokio::spawn(async move {
            answer(socket, handle, limits.handshake_timeout).await;
            tracing::trace!(%peer, "metrics connection closed");
            drop(admission);
        });
    }
}

async fn answer(mut socket: TcpStream, handle: &PrometheusHandle, timeout: Duration) {
    let head = match tokio::time::timeout(timeout, read_head(&mut socket)).await {
        Ok(Ok(head)) => head,
        Ok(Err(_)) => return,
        Err(_) => {
            count_closed(Port::Metrics, CloseReason::HandshakeTimeout);
            tracing::debug!("no request head on the metrics port in time: connection closed");
            return;
        }
    };
    let request = String::from_utf8_lossy(&head);
    let path = request.split_whitespace().nth(1).unwrap_or("");
    let response = if path == "/metrics" {
        let body = handle.render();
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    } else {
        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
    };
    // A client that does not read its answer must not hold the
    // connection either.
    let _ = tokio::time::timeout(timeout, async {
        socket.write_all(response.as_bytes()).await?;
        socket.shutdown().await
    })
    .await;
}

/// Reads up to the blank line that ends a request head (or the end of the
/// stream, or [`MAX_HEAD`] bytes).
async fn read_head(socket: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let n = socket.read(&mut chunk).await?;
        head.extend_from_slice(&chunk[..n]);
        let ended = head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n");
        if n == 0 || ended || head.len() >= MAX_HEAD {
            return Ok(head);
        }
    }
}

/// The metrics as Prometheus text (what `/metrics` serves).
pub fn metrics_text() -> Option<String> {
    install_recorder().map(PrometheusHandle::render)
}
