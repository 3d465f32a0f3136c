//! Prometheus metrics, served on their own port: every metric with its
//! `# HELP`, the gRPC server metrics as go-grpc-prometheus names them,
//! `arbiter_build_info` and the process metrics.
//!
//! The recorder is process-wide (the `metrics` facade has one global
//! recorder), so several servers in one test process share it.

use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::connections::{ConnectionLimits, Port};

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
                Ok(handle) => {
                    describe();
                    Some(handle)
                }
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

/// Serves `GET /metrics` (Prometheus text format, any query string) on
/// `listener` until the process ends; any other path gets 404. The HTTP
/// server is the one of the HTTP address ([`crate::http::serve_http`]):
/// connections pass the gate of [`crate::connections`] with `limits`, at
/// most `max_connections` at once, and a client has `handshake_timeout` to
/// send its request head, so one that connects and sends nothing holds
/// nothing.
pub async fn serve_metrics(listener: TcpListener, limits: ConnectionLimits) {
    let Some(handle) = install_recorder() else { return };
    let routes = Router::new().route("/metrics", get(move || scrape(handle))).fallback(|| async {
        (
            StatusCode::NOT_FOUND,
            [(header::CONNECTION, "close")],
            "not found: this address serves GET /metrics\n",
        )
    });
    crate::http::serve_http(listener, routes, Port::Metrics, limits, CancellationToken::new()).await;
}

/// One scrape: the process's figures read now, then everything rendered.
async fn scrape(handle: &'static PrometheusHandle) -> Response {
    process_metrics().collect();
    let mut response = handle.render().into_response();
    let headers = response.headers_mut();
    headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    // A scraper connects again every interval; nothing to keep open.
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The process metrics (`process_cpu_seconds_total`,
/// `process_resident_memory_bytes`, `process_open_fds`,
/// `process_start_time_seconds`...), described once.
fn process_metrics() -> &'static metrics_process::Collector {
    static COLLECTOR: OnceLock<metrics_process::Collector> = OnceLock::new();
    COLLECTOR.get_or_init(|| {
        let collector = metrics_process::Collector::default();
        collector.describe();
        collector
    })
}

/// The metrics as Prometheus text (what `/metrics` serves).
pub fn metrics_text() -> Option<String> {
    let handle = install_recorder()?;
    process_metrics().collect();
    Some(handle.render())
}

/// The `# HELP` of every metric the service records (a metric without one
/// would be scraped untyped-looking and undocumented), and the build info.
fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!("grpc_server_started_total", "RPCs started on the server.");
    describe_counter!(
        "grpc_server_handled_total",
        "RPCs completed on the server, by code (a stream: when it was opened or refused)."
    );
    describe_histogram!(
        "grpc_server_handling_seconds",
        Unit::Seconds,
        "Time to answer an RPC (a stream: to open it), in seconds."
    );
    describe_gauge!(
        "arbiter_build_info",
        "The running build: always 1, with its version and target as labels."
    );
    describe_counter!("arbiter_games_created_total", "Games created.");
    describe_counter!(
        "arbiter_games_expired_total",
        "Pending games withdrawn because nobody started them in time."
    );
    describe_counter!("arbiter_rulings_total", "Rulings made, by rule id.");
    describe_counter!("arbiter_flags_total", "Flags fallen (Article 6.9).");
    describe_counter!(
        "arbiter_idempotent_replays_total",
        "Requests answered again from their request id (AIP-155)."
    );
    describe_counter!("arbiter_append_failures_total", "Events the store failed to append.");
    describe_counter!("arbiter_append_conflicts_total", "Appends lost to another writer of the same game.");
    describe_counter!("arbiter_reads_from_log_total", "Games read from their log rather than from memory.");
    describe_counter!("arbiter_player_token_revocations_total", "Player tokens revoked.");
    describe_counter!("arbiter_quota_refusals_total", "Requests refused by a quota, by reason.");
    describe_gauge!("arbiter_watch_streams", "Watch streams open (WatchGame, WatchGames, WatchBroadcast).");
    describe_gauge!("arbiter_tables_in_memory", "Games loaded in memory on this replica.");
    describe_gauge!(
        "arbiter_timers_armed",
        "Games in play not loaded on this replica whose next deadline is armed."
    );
    describe_counter!(
        "arbiter_tables_parked_total",
        "Tables of games in play put away after a while without commands, their deadlines armed."
    );
    describe_histogram!(
        "arbiter_deadline_lateness_seconds",
        Unit::Seconds,
        "How late a clock deadline (a flag) was ruled on, in seconds."
    );
    describe_gauge!("arbiter_connections_open", "Connections open, by port.");
    describe_counter!(
        "arbiter_connections_closed_total",
        "Connections closed by the service, by port and reason."
    );
    describe_counter!(
        "arbiter_connections_refused_total",
        "Connections refused over a port's cap, by port and reason."
    );
    describe_counter!("arbiter_accept_errors_total", "Errors accepting connections, by port.");
    describe_gauge!("arbiter_board_streams", "E-board streams connected.");
    describe_gauge!("arbiter_boards_out_of_sync", "E-boards whose position disagrees with their game.");
    describe_counter!("arbiter_board_acts_total", "E-board acts, by outcome.");
    describe_counter!("arbiter_board_reports_total", "E-board reports received.");
    describe_counter!("arbiter_board_refusals_total", "E-board reports refused, by reason.");
    describe_counter!("arbiter_board_desyncs_total", "Times an e-board fell out of step with its game.");
    describe_counter!("arbiter_board_clock_drifts_total", "E-board clock readings beyond the drift bound.");
    describe_counter!("arbiter_broadcast_pushes_total", "Broadcast pushes of a round's PGN, by outcome.");
    metrics::gauge!(
        "arbiter_build_info",
        "version" => env!("CARGO_PKG_VERSION"),
        "target" => std::env::consts::ARCH,
        "os" => std::env::consts::OS
    )
    .set(1.0);
}
