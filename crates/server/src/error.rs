//! The one place where domain errors become gRPC statuses.
//!
//! Every status carries a `google.rpc.ErrorInfo` (AIP-193) with domain
//! [`DOMAIN`] and an UPPER_SNAKE_CASE reason; malformed input adds a
//! `google.rpc.BadRequest` with one violation per field; an act the Laws
//! forbid adds the rule id to the ErrorInfo metadata. Nothing a client can
//! cause maps to `INTERNAL`.

use std::collections::HashMap;

use arbiter_laws::ruling::{RejectReason, Rejection};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::convert::Violation;
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
    #[error("{0}")]
    Unauthenticated(String),
    #[error("{0}")]
    PermissionDenied(String),
    /// Optimistic concurrency: the game changed (reason `STALE_SEQ` or
    /// `CONCURRENT_UPDATE`).
    #[error("{message}")]
    Aborted { reason: &'static str, message: String },
    /// Storage is down or full; the request changed nothing.
    #[error("{0}")]
    Unavailable(String),
    /// A fault of the service itself (for example a corrupt log). Never
    /// caused by a client's input.
    #[error("{0}")]
    Internal(String),
}

fn describe(violations: &[Violation]) -> String {
    violations.iter().map(|v| format!("{}: {}", v.field, v.description)).collect::<Vec<_>>().join("; ")
}

impl ApiError {
    /// A single field violation.
    pub fn field(field: impl Into<String>, description: impl Into<String>) -> ApiError {
        ApiError::InvalidArgument(vec![Violation { field: field.into(), description: description.into() }])
    }

    /// The ErrorInfo reason.
    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::InvalidArgument(_) => "INVALID_ARGUMENT",
            ApiError::Rejected(r) => reject_reason(r.reason),
            ApiError::NotFound(_) => "NOT_FOUND",
            ApiError::AlreadyExists(_) => "ALREADY_EXISTS",
            ApiError::Unauthenticated(_) => "UNAUTHENTICATED",
            ApiError::PermissionDenied(_) => "PERMISSION_DENIED",
            ApiError::Aborted { reason, .. } => reason,
            ApiError::Unavailable(_) => "STORAGE_UNAVAILABLE",
            ApiError::Internal(_) => "INTERNAL",
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
            ApiError::AlreadyExists(_) => Code::AlreadyExists,
            ApiError::Unauthenticated(_) => Code::Unauthenticated,
            ApiError::PermissionDenied(_) => Code::PermissionDenied,
            ApiError::Aborted { .. } => Code::Aborted,
            ApiError::Unavailable(_) => Code::Unavailable,
            ApiError::Internal(_) => Code::Internal,
        }
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
        let mut metadata = HashMap::new();
        if let ApiError::Rejected(r) = &e
            && let Some(rule) = r.rule
        {
            metadata.insert("rule_id".to_string(), rule.to_string());
        }
        let mut details = ErrorDetails::with_error_info(e.reason(), DOMAIN, metadata);
        if let ApiError::InvalidArgument(violations) = &e {
            for v in violations {
                details.add_bad_request_violation(v.field.clone(), v.description.clone());
            }
        }
        let message = match &e {
            ApiError::Rejected(r) => match r.rule {
                Some(rule) => format!("{} ({rule})", r.message),
                None => r.message.clone(),
            },
            other => other.to_string(),
        };
        Status::with_error_details(e.code(), message, details)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Conflict { .. } => ApiError::Aborted {
                reason: "CONCURRENT_UPDATE",
                message: format!("{e}; read the game again and retry"),
            },
            StoreError::DuplicateRequest { request_id } => ApiError::Aborted {
                reason: "DUPLICATE_REQUEST",
                message: format!("request id {request_id:?} is being used by another request"),
            },
            StoreError::AlreadyExists(id) => ApiError::AlreadyExists(format!("games/{id}")),
            StoreError::NotFound(id) => ApiError::NotFound(format!("games/{id}")),
            StoreError::Invalid(m) => ApiError::Internal(format!("storage contract broken: {m}")),
            StoreError::Unavailable(m) => ApiError::Unavailable(format!("storage is unavailable: {m}")),
        }
    }
}
