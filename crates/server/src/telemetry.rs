//! Prometheus metrics, served on their own port.
//!
//! The recorder is process-wide (the `metrics` facade has one global
//! recorder), so several servers in one test process share it.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

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

/// Serves `GET /metrics` (Prometheus text format) on `listener` until the
/// process ends. Any other path gets 404.
pub async fn serve_metrics(listener: TcpListener) {
    let Some(handle) = install_recorder() else { return };
    loop {
        let Ok((mut socket, _)) = listener.accept().await else { continue };
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            let n = match socket.read(&mut buf).await {
                Ok(n) => n,
                Err(_) => return,
            };
            let request = String::from_utf8_lossy(&buf[..n]);
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
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.shutdown().await;
        });
    }
}

/// The metrics as Prometheus text (what `/metrics` serves).
pub fn metrics_text() -> Option<String> {
    install_recorder().map(PrometheusHandle::render)
}
