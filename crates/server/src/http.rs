//! The HTTP address: the web console (its assets are built into the
//! binary: it works at a venue without internet), the broadcast feed
//! ([`crate::broadcast`]) and the API as JSON ([`crate::gateway`]), which
//! the console calls; HTTP/1.1 behind the connection gate.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::connections::{CloseReason, ConnectionLimits, Gate, Port, count_closed};
use crate::gateway::Api;
use crate::service::Arbiter;

/// How long one connection is served: a relay polling every few seconds
/// keeps its connection that long, then opens another, so a client that
/// keeps one open and idle gives its place back. (A stream of the gateway
/// is not cut: the connection closes when it ends.)
const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);

/// The peer of a connection, for the handlers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peer(pub SocketAddr);

/// Every route of the HTTP address.
pub(crate) fn routes(arbiter: Arbiter, api: Api) -> Router {
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", include_str!("../console/index.html"))))
        .route(
            "/console.js",
            get(|| asset("text/javascript; charset=utf-8", include_str!("../console/console.js"))),
        )
        .route(
            "/console.css",
            get(|| asset("text/css; charset=utf-8", include_str!("../console/console.css"))),
        )
        .route("/events/{event}/rounds/{round}/pgn", get(crate::broadcast::round_pgn))
        .with_state(arbiter)
        .merge(Router::new().route("/api/{service}/{method}", post(crate::gateway::call)).with_state(api))
        .fallback(not_found)
}

/// Serves `routes` on `listener` until `stop` is cancelled. Connections
/// pass the gate of [`crate::connections`] for `port` with `limits`; a
/// client has `limits.handshake_timeout` to send each request head (and is
/// counted as closed for it when it does not).
pub(crate) async fn serve_http(
    listener: TcpListener,
    routes: Router,
    port: Port,
    limits: ConnectionLimits,
    stop: CancellationToken,
) {
    let gate = Gate::new(port, limits);
    loop {
        let (socket, peer, admission) = tokio::select! {
            accepted = gate.accept(&listener) => accepted,
            () = stop.cancelled() => return,
        };
        let service = TowerToHyperService::new(routes.clone().layer(axum::Extension(Peer(peer))));
        let stop = stop.clone();
        tokio::spawn(async move {
            // A client that connects and sends nothing holds nothing: the
            // first bytes must come within the handshake timeout (hyper's
            // header timeout then bounds the rest of the head).
            if tokio::time::timeout(limits.handshake_timeout, socket.readable()).await.is_err() {
                count_closed(port, CloseReason::HandshakeTimeout);
                tracing::debug!(%peer, "no request on the connection in time: closed");
                drop(admission);
                return;
            }
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(limits.handshake_timeout);
            let connection = http.serve_connection(TokioIo::new(socket), service);
            tokio::pin!(connection);
            let outcome = tokio::select! {
                served = connection.as_mut() => served,
                () = stop.cancelled() => {
                    // Answer what is in flight, then close.
                    connection.as_mut().graceful_shutdown();
                    connection.as_mut().await
                }
                () = tokio::time::sleep(CONNECTION_LIFETIME) => {
                    connection.as_mut().graceful_shutdown();
                    connection.as_mut().await
                }
            };
            if let Err(e) = outcome {
                if e.is_timeout() {
                    count_closed(port, CloseReason::HandshakeTimeout);
                }
                tracing::debug!(%peer, error = %e, "HTTP connection ended");
            }
            drop(admission);
        });
    }
}

/// A console asset. The page may load nothing from elsewhere (no CDN, no
/// inline script), nor be framed by another site.
async fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        "not found: this address serves the console (/), GET /events/{event}/rounds/{round}/pgn and \
         POST /api/arbiter.v1.ArbiterService/{Method}\n",
    )
        .into_response()
}
