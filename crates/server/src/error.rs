//! The one place where domain errors become gRPC statuses.
//!
//! Every status carries a `google.rpc.ErrorInfo` (AIP-193) with domain
//! [`DOMAIN`] and an UPPER_SNAKE_CASE reason; malformed input adds a
//! `google.rpc.BadRequest` with one violation per field; an act the Laws
//! forbid adds the rule id to the ErrorInfo metadata. Nothing a client can
//! cause maps to `INTERNAL`.

use std::collections::HashMap;

use arbiter_board::ObservationError;
use arbiter_laws::ruling::{RejectReason, Rejection};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::api::Violation;
use crate::api::to_proto::rulebook_to_proto;
use crate::event_log::FormatError;
use crate::store::StoreError;

/// The ErrorInfo domain of every error this service returns.
pub const DOMAIN: &str = "arbiter.chess";

/// An error of the service, before it becomes a [`Status`].
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Malformed input: one violation per field.
    #[error("invalid request: {}", describe(.0))]
    InvalidArgument(Vec<Violation>),
    /// The Laws do not allow the act now.
    #[error("{0}")]
    Rejected(Rejection),
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0} already exists")]
    AlreadyExists(String),
    /// The caller already used this request id, in this scope, for a
    /// different request (see [`crate::request`]): nothing was done.
    #[error("{0}")]
    RequestIdReused(String),
    #[error("{0}")]
    Unauthenticated(String),
    #[error("{0}")]
    PermissionDenied(String),
    /// The caller's address failed to authenticate too often: refused
    /// before its token is looked at, until `retry_after` has passed.
    #[error("too many failed authentications from this address; retry in {} ms", .retry_after.as_millis())]
    AuthThrottled { retry_after: std::time::Duration },
    /// Optimistic concurrency: the game changed, or another request holds
    /// the request id; nothing was written.
    #[error("{message}")]
    Aborted { reason: AbortReason, message: String },
    /// Storage is down or full; the request changed nothing.
    #[error("{0}")]
    Unavailable(String),
    /// The request is not a well-formed message of its method (it could not
    /// be decoded, or the body ended early): rejected by the transport
    /// before any handler saw it.
    #[error("the request is not a well-formed message: {0}")]
    Malformed(String),
    /// The request is larger than the configured limit.
    #[error("{0}")]
    TooLarge(String),
    /// The caller is over one of its limits (see `crate::quota`): nothing
    /// was done; the same request may succeed after `retry_after`.
    #[error("{message}")]
    ResourceExhausted { reason: ExhaustedReason, message: String, retry_after: std::time::Duration },
    /// A game stored in a format this build does not read: written by a
    /// newer release (after a rollback, or by a newer replica). Nothing is
    /// read from it, so nothing is misread; a release that knows the format
    /// serves it.
    #[error("{0}")]
    NewerStoredFormat(String),
    /// The game is already read from another e-board (one board per game).
    #[error("{0}")]
    BoardConnected(String),
    /// A fault of the service itself (for example a corrupt log). Never
    /// caused by a client's input.
    #[error("{0}")]
    Internal(String),
    /// What was asked cannot be computed from the data as it stands (a
    /// tie-break over unrated participants without a rating for them).
    #[error("{0}")]
    NotComputable(String),
    /// Another replica runs the game (replicas on a shared database): the
    /// service forwards the act to it; a caller sees this only when that
    /// is not possible now (the game is moving between replicas), and
    /// retries.
    #[error("game {game} is run by another replica{}; retry", .owner.as_ref().map(|o| format!(" ({o})")).unwrap_or_default())]
    Moved { game: String, owner: Option<String> },
    /// The answer of the replica that runs the game, passed on as it came.
    #[error("{}", .0.message())]
    Forwarded(Status),
}

/// Why a request was aborted (the ErrorInfo reason of an `ABORTED` status).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AbortReason {
    /// The client's `expected_seq` is not the game's last event.
    StaleSeq,
    /// Another writer appended to the game first.
    ConcurrentUpdate,
    /// Another request with the same request id is being recorded.
    DuplicateRequest,
}

impl AbortReason {
    /// The ErrorInfo reason.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            AbortReason::StaleSeq => "STALE_SEQ",
            AbortReason::ConcurrentUpdate => "CONCURRENT_UPDATE",
            AbortReason::DuplicateRequest => "DUPLICATE_REQUEST",
        }
    }
}

/// Which limit a caller is over (the ErrorInfo reason of a
/// `RESOURCE_EXHAUSTED` status the service gives; see `crate::quota`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExhaustedReason {
    /// Too many requests of this kind from this token in a short time.
    RateLimited,
    /// The token's games that are pending or in progress are at its cap.
    TooManyUnfinishedGames,
    /// The token already holds as many WatchGame streams as it may.
    TooManyWatchStreamsForToken,
    /// The game already has as many WatchGame streams as it may.
    TooManyWatchStreamsForGame,
}

impl ExhaustedReason {
    /// The ErrorInfo reason.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ExhaustedReason::RateLimited => "RATE_LIMITED",
            ExhaustedReason::TooManyUnfinishedGames => "TOO_MANY_UNFINISHED_GAMES",
            ExhaustedReason::TooManyWatchStreamsForToken => "TOO_MANY_WATCH_STREAMS",
            ExhaustedReason::TooManyWatchStreamsForGame => "TOO_MANY_GAME_WATCH_STREAMS",
        }
    }
}

fn describe(violations: &[Violation]) -> String {
    violations.iter().map(|v| format!("{}: {}", v.field, v.description)).collect::<Vec<_>>().join("; ")
}

impl ApiError {
    /// A single field violation.
    pub fn field(field: impl Into<String>, description: impl Into<String>) -> ApiError {
        ApiError::InvalidArgument(vec![Violation { field: field.into(), description: description.into() }])
    }

    /// A stored payload (`what`: "games/x: event 3") that could not be read.
    pub fn stored(what: String, e: FormatError) -> ApiError {
        match e {
            FormatError::Newer { .. } => ApiError::NewerStoredFormat(format!("{what}: {e}")),
            other => ApiError::Internal(format!("{what} is unreadable: {other}")),
        }
    }

    /// The ErrorInfo reason.
    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::InvalidArgument(_) => "INVALID_ARGUMENT",
            ApiError::Rejected(r) => reject_reason(r.reason),
            ApiError::NotFound(_) => "NOT_FOUND",
            ApiError::AlreadyExists(_) => "ALREADY_EXISTS",
            ApiError::RequestIdReused(_) => "REQUEST_ID_REUSED",
            ApiError::Unauthenticated(_) => "UNAUTHENTICATED",
            ApiError::PermissionDenied(_) => "PERMISSION_DENIED",
            ApiError::AuthThrottled { .. } => "AUTHENTICATION_THROTTLED",
            ApiError::Aborted { reason, .. } => reason.as_str(),
            ApiError::Unavailable(_) => "STORAGE_UNAVAILABLE",
            ApiError::Malformed(_) => "MALFORMED_REQUEST",
            ApiError::TooLarge(_) => "REQUEST_TOO_LARGE",
            ApiError::ResourceExhausted { reason, .. } => reason.as_str(),
            ApiError::NewerStoredFormat(_) => "STORED_FORMAT_NEWER",
            ApiError::BoardConnected(_) => "BOARD_CONNECTED",
            ApiError::Internal(_) => "INTERNAL",
            ApiError::NotComputable(_) => "NOT_COMPUTABLE",
            ApiError::Moved { .. } => "GAME_MOVING",
            ApiError::Forwarded(_) => "FORWARDED",
        }
    }

    /// The gRPC code.
    pub fn code(&self) -> Code {
        match self {
            ApiError::InvalidArgument(_) => Code::InvalidArgument,
            // Every refusal of the Laws is FAILED_PRECONDITION. The Laws also
            // use `RejectReason::InvalidArgument` for refusals that depend on
            // the game's state (StartGame twice, ResumeClocks when not paused,
            // an arrival already recorded...), which are not malformed input;
            // mapping them to INVALID_ARGUMENT broke the API contract
            // (INVALID_ARGUMENT always carries a BadRequest field violation).
            // The two arguments the Laws find out of range for the game (an
            // unknown question id, a ply beyond the record) become field
            // violations in `service.rs` (`Arbiter::apply`).
            ApiError::Rejected(_) => Code::FailedPrecondition,
            ApiError::NotFound(_) => Code::NotFound,
            // AIP-155: a request id reused for a different request is an
            // id that already exists, not a malformed request.
            ApiError::AlreadyExists(_) | ApiError::RequestIdReused(_) => Code::AlreadyExists,
            ApiError::Unauthenticated(_) => Code::Unauthenticated,
            ApiError::PermissionDenied(_) => Code::PermissionDenied,
            ApiError::AuthThrottled { .. } => Code::ResourceExhausted,
            ApiError::Aborted { .. } => Code::Aborted,
            ApiError::Unavailable(_) => Code::Unavailable,
            ApiError::Malformed(_) => Code::InvalidArgument,
            ApiError::TooLarge(_) | ApiError::ResourceExhausted { .. } => Code::ResourceExhausted,
            ApiError::NewerStoredFormat(_) | ApiError::BoardConnected(_) => Code::FailedPrecondition,
            ApiError::Internal(_) => Code::Internal,
            ApiError::NotComputable(_) => Code::FailedPrecondition,
            ApiError::Moved { .. } => Code::Unavailable,
            ApiError::Forwarded(status) => status.code(),
        }
    }
}

/// The reason a `BoardRefusal` gives for an observation the board reader
/// refused (the stream stays open; see `crate::board`).
pub fn observation_refusal(e: &ObservationError) -> &'static str {
    match e {
        ObservationError::UnknownDevice { .. } => "UNKNOWN_DEVICE",
        ObservationError::Duplicate { .. } => "DUPLICATE",
        ObservationError::OutOfOrder { .. } => "OUT_OF_ORDER",
        ObservationError::TimeWentBack { .. } => "TIME_WENT_BACK",
        ObservationError::GameFinished => "GAME_FINISHED",
        ObservationError::Impossible(_) => "IMPOSSIBLE_PLACEMENT",
        ObservationError::SensingMismatch => "SENSING_MISMATCH",
        ObservationError::UnknownPiece { .. } => "UNKNOWN_PIECE",
        ObservationError::NotAPromotionPiece { .. } => "NOT_A_PROMOTION_PIECE",
    }
}

/// The ErrorInfo reason of a rejection by the Laws.
fn reject_reason(reason: RejectReason) -> &'static str {
    match reason {
        RejectReason::NotStarted => "GAME_NOT_STARTED",
        RejectReason::GameOver => "GAME_OVER",
        RejectReason::NotYourTurn => "NOT_YOUR_TURN",
        RejectReason::IllegalMove => "ILLEGAL_MOVE",
        RejectReason::TouchMove => "TOUCH_MOVE",
        RejectReason::PieceReleased => "PIECE_RELEASED",
        RejectReason::NoOffer => "NO_DRAW_OFFER",
        RejectReason::OfferNotAllowed => "DRAW_OFFER_NOT_ALLOWED",
        RejectReason::NotApplicable => "NOT_APPLICABLE",
        RejectReason::TimeWentBackwards => "TIME_WENT_BACKWARDS",
        RejectReason::InvalidArgument => "ARGUMENT_OUT_OF_RANGE",
        RejectReason::ClocksPaused => "CLOCKS_PAUSED",
    }
}

impl From<ApiError> for Status {
    fn from(e: ApiError) -> Status {
        if let ApiError::Forwarded(status) = e {
            return status;
        }
        let mut metadata = HashMap::new();
        if let ApiError::Rejected(r) = &e
            && let Some(rule) = r.rule
        {
            metadata.insert("rule_id".to_string(), rule.to_string());
            if let Some(article) = rule.article() {
                metadata.insert("article".to_string(), article.number().to_string());
                metadata.insert(
                    "rulebook".to_string(),
                    rulebook_to_proto(article.rulebook()).as_str_name().to_string(),
                );
            }
        }
        let mut details = ErrorDetails::with_error_info(e.reason(), DOMAIN, metadata);
        let retry_after = match &e {
            ApiError::ResourceExhausted { retry_after, .. } | ApiError::AuthThrottled { retry_after } => {
                Some(*retry_after)
            }
            // A game moves between replicas within a lease (about a
            // second): try again shortly.
            ApiError::Moved { .. } => Some(std::time::Duration::from_millis(250)),
            _ => None,
        };
        if let Some(retry_after) = retry_after {
            // AIP-194: the client waits at least this long before the same
            // request; a zero delay would invite a hot retry loop.
            details.set_retry_info(Some(retry_after.max(std::time::Duration::from_millis(1))));
        }
        if let ApiError::InvalidArgument(violations) = &e {
            for v in violations.iter().take(MAX_VIOLATIONS) {
                details.add_bad_request_violation(bounded(&v.field, 128), bounded(&v.description, 512));
            }
        }
        let message = match &e {
            ApiError::Rejected(r) => match r.rule {
                Some(rule) => match rule.article() {
                    Some(article) => format!("{} ({rule}, {article})", r.message),
                    None => format!("{} ({rule})", r.message),
                },
                None => r.message.clone(),
            },
            other => other.to_string(),
        };
        Status::with_error_details(e.code(), bounded(&message, 1024), details)
    }
}

/// At most this many field violations are listed in one answer.
const MAX_VIOLATIONS: usize = 32;

/// `text` cut to at most `max` bytes (at a character boundary), saying how
/// long it was. Messages quote the client's input; a status travels in
/// HTTP/2 headers, which a client refuses beyond a few KiB, so an answer
/// must never grow with the request.
pub fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}

/// Client input quoted in an error message: `"..."`, cut after 40
/// characters.
pub fn quote(input: &str) -> String {
    match input.char_indices().nth(40) {
        None => format!("{input:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &input[..cut], input.len()),
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Conflict { .. } => ApiError::Aborted {
                reason: AbortReason::ConcurrentUpdate,
                message: format!("{e}; read the game again and retry"),
            },
            StoreError::DuplicateRequest { request_id } => ApiError::Aborted {
                reason: AbortReason::DuplicateRequest,
                message: format!("request id {request_id:?} is being used by another request"),
            },
            StoreError::AlreadyExists(id) => ApiError::AlreadyExists(format!("games/{id}")),
            StoreError::NotFound(id) => ApiError::NotFound(format!("games/{id}")),
            StoreError::ResourceExists(name) => ApiError::AlreadyExists(name),
            StoreError::ResourceNotFound(name) => ApiError::NotFound(name),
            // The service turns this into its own refusal (with the limit);
            // reaching here means a caller forgot to.
            StoreError::TooManyOpen { .. } => ApiError::ResourceExhausted {
                reason: ExhaustedReason::TooManyUnfinishedGames,
                message: e.to_string(),
                retry_after: crate::quota::UNFINISHED_RETRY,
            },
            StoreError::Invalid(m) => ApiError::Internal(format!("storage contract broken: {m}")),
            StoreError::Unavailable(m) => ApiError::Unavailable(format!("storage is unavailable: {m}")),
            StoreError::Moved { game_id, owner } => ApiError::Moved { game: game_id, owner },
        }
    }
}

/// Gives the statuses the gRPC transport produces by itself (before any
/// handler runs) the same shape as the service's own: a request that does
/// not decode is the client's error, so INVALID_ARGUMENT rather than the
/// INTERNAL the codec reports; a request over the size limit is
/// RESOURCE_EXHAUSTED (as other gRPC implementations answer); and every
/// status gets an ErrorInfo. Returns `None` for a status that already has
/// details (the service's own) or needs no change.
#[must_use]
pub fn explain_transport_status(status: &Status) -> Option<Status> {
    if !status.details().is_empty() || status.code() == Code::Ok {
        return None;
    }
    let message = status.message();
    let client_caused_decode = [
        "failed to decode Protobuf message",
        "Missing request message",
        "Unexpected EOF decoding stream",
        "protocol error",
        "Error decompressing",
    ]
    .iter()
    .any(|prefix| message.starts_with(prefix));
    let explained = match status.code() {
        Code::Internal if client_caused_decode => ApiError::Malformed(message.to_string()).into(),
        Code::OutOfRange if message.contains("message length too large") => {
            ApiError::TooLarge(format!("the request is too large: {message}")).into()
        }
        code => {
            let reason = match code {
                Code::Unimplemented => "UNIMPLEMENTED",
                Code::Cancelled => "CANCELLED",
                Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
                Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
                Code::InvalidArgument => "INVALID_ARGUMENT",
                Code::Unavailable => "UNAVAILABLE",
                _ => "TRANSPORT",
            };
            let details = ErrorDetails::with_error_info(reason, DOMAIN, HashMap::new());
            Status::with_error_details(code, message, details)
        }
    };
    Some(explained)
}

/// Applies [`explain_transport_status`] to a trailers-only response (an
/// error answered before any message was sent).
pub fn explain_transport_response<B>(
    mut response: tonic::codegen::http::Response<B>,
) -> tonic::codegen::http::Response<B> {
    if let Some(status) = Status::from_header_map(response.headers())
        && let Some(explained) = explain_transport_status(&status)
    {
        // The status is the whole answer: replace it, message and details.
        response.headers_mut().remove("grpc-message");
        if explained.add_header(response.headers_mut()).is_err() {
            tracing::warn!(code = ?status.code(), "cannot rewrite a transport status");
        }
    }
    response
}
