//! The feed served for polling (`GET /events/{event}/rounds/{round}/pgn`
//! on the HTTP address, see [`crate::http`]): no authentication, it is what
//! the public sees; events without a broadcast are not served.

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::service::Arbiter;

/// A round's PGN with the event's delay applied.
pub(crate) async fn round_pgn(
    State(arbiter): State<Arbiter>,
    Path((event, round)): Path<(String, String)>,
) -> Response {
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
