//! The feed served for polling, on arbiterd's HTTP address.

use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::connections::{ConnectionLimits, Gate, Port};
use crate::error::ApiError;
use crate::service::Arbiter;

/// How long one connection is served: a relay polling every few seconds
/// keeps its connection that long, then opens another, so a client that
/// keeps one open and idle gives its place back.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);

/// Serves the broadcast feed on `listener` until `stop` is cancelled:
/// `GET /events/{event}/rounds/{round}/pgn` gives the round's PGN as the
/// event's broadcast publishes it (its delay applied), for events with
/// broadcast settings; no authentication (it is what the public sees).
///
/// Connections pass the gate of [`crate::connections`] with `limits`; a
/// client has `limits.handshake_timeout` to send each request head.
pub async fn serve_feed(
    listener: TcpListener,
    arbiter: Arbiter,
    limits: ConnectionLimits,
    stop: CancellationToken,
) {
    let routes = Router::new()
        .route("/events/{event}/rounds/{round}/pgn", get(round_pgn))
        .fallback(not_found)
        .with_state(arbiter);
    let gate = Gate::new(Port::Http, limits);
    loop {
        let (socket, peer, admission) = tokio::select! {
            accepted = gate.accept(&listener) => accepted,
            () = stop.cancelled() => return,
        };
        let service = TowerToHyperService::new(routes.clone());
        let stop = stop.clone();
        tokio::spawn(async move {
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
                tracing::debug!(%peer, error = %e, "feed connection ended");
            }
            drop(admission);
        });
    }
}

/// A round's PGN with the event's delay applied.
async fn round_pgn(State(arbiter): State<Arbiter>, Path((event, round)): Path<(String, String)>) -> Response {
    let Ok(number) = round.parse::<u16>() else {
        return (StatusCode::BAD_REQUEST, format!("`{round}` is not a round number\n")).into_response();
    };
    match arbiter.broadcast_pgn(&event, number).await {
        Ok(pgn) => (
            [
                (header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8"),
                // Every poll must see the feed as it stands.
                (header::CACHE_CONTROL, "no-cache"),
            ],
            pgn,
        )
            .into_response(),
        Err(ApiError::NotFound(what)) => {
            (StatusCode::NOT_FOUND, format!("{what} not found\n")).into_response()
        }
        Err(ApiError::Unavailable(why)) => {
            (StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")).into_response()
        }
        Err(e) => {
            tracing::error!(event = %event, round = number, error = %e, "cannot serve the broadcast feed");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
        }
    }
}

async fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found: the feed serves GET /events/{event}/rounds/{round}/pgn\n")
        .into_response()
}
