//! The client's error: a gRPC status with its `google.rpc` details decoded,
//! or a failure on this side (connection, TLS, input).

use std::collections::HashMap;
use std::fmt;

use tonic::Code;
use tonic_types::StatusExt;

/// The ErrorInfo domain of the errors the service returns.
pub const DOMAIN: &str = "arbiter.chess";

/// One `google.rpc.BadRequest` field violation: which field of the request
/// was wrong, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldViolation {
    /// The field, as named in the request message (`regulations.time_control`).
    pub field: String,
    /// What is wrong with it.
    pub description: String,
}

/// An error status of the service, with its details decoded.
#[derive(Debug)]
pub struct RpcError {
    /// The gRPC code.
    pub code: Code,
    /// The status message (for a refusal of the Laws, the sentence for the
    /// players; the service appends the rule id in parentheses, which
    /// [`RpcError::message`] leaves out).
    pub message: String,
    /// The `google.rpc.ErrorInfo` reason (`TOUCH_MOVE`, `NOT_FOUND`...).
    pub reason: Option<String>,
    /// The ErrorInfo domain (`arbiter.chess` for the service's own errors;
    /// absent for transport failures).
    pub domain: Option<String>,
    /// The ErrorInfo metadata (`rule_id`...).
    pub metadata: HashMap<String, String>,
    /// The `google.rpc.BadRequest` field violations.
    pub violations: Vec<FieldViolation>,
    /// The `google.rpc.RetryInfo` delay: how long to wait before sending the
    /// same request again (given with `RESOURCE_EXHAUSTED`: `RATE_LIMITED`,
    /// `TOO_MANY_UNFINISHED_GAMES`, the watch-stream caps).
    pub retry_delay: Option<std::time::Duration>,
}

impl RpcError {
    /// Decodes a status.
    pub fn from_status(status: &tonic::Status) -> RpcError {
        let info = status.get_details_error_info();
        let retry_delay = status.get_details_retry_info().and_then(|r| r.retry_delay);
        let violations = status
            .get_details_bad_request()
            .map(|b| {
                b.field_violations
                    .into_iter()
                    .map(|v| FieldViolation { field: v.field, description: v.description })
                    .collect()
            })
            .unwrap_or_default();
        let mut message = status.message().to_string();
        if message.is_empty()
            && let Some(source) = std::error::Error::source(status)
        {
            message = source.to_string();
        }
        RpcError {
            code: status.code(),
            message,
            reason: info.as_ref().map(|i| i.reason.clone()).filter(|r| !r.is_empty()),
            domain: info.as_ref().map(|i| i.domain.clone()).filter(|d| !d.is_empty()),
            metadata: info.map(|i| i.metadata).unwrap_or_default(),
            violations,
            retry_delay,
        }
    }

    /// The `rule_id` metadata: the rule id a refusal rests on.
    pub fn rule_id(&self) -> Option<&str> {
        self.metadata.get("rule_id").map(String::as_str).filter(|r| !r.is_empty())
    }

    /// The Article a refusal rests on, as a reader looks it up (`Article
    /// 4.3.1`, `OCR 5.3`), from the `article` and `rulebook` metadata.
    pub fn article(&self) -> Option<String> {
        let number = self.metadata.get("article")?;
        let rulebook = self.metadata.get("rulebook").map_or("", String::as_str);
        crate::article::article_text_from_metadata(number, rulebook)
    }

    /// The message without the ` (RULE)` or ` (RULE, ARTICLE)` suffix the
    /// service appends when the rule id is known.
    pub fn message(&self) -> &str {
        if let Some(rule) = self.rule_id() {
            if let Some(stripped) = self.message.strip_suffix(&format!(" ({rule})")) {
                return stripped;
            }
            if let Some(article) = self.article()
                && let Some(stripped) = self.message.strip_suffix(&format!(" ({rule}, {article})"))
            {
                return stripped;
            }
        }
        &self.message
    }

    /// `true` when the status came from the service itself (it carries an
    /// ErrorInfo of domain [`DOMAIN`]), not from the transport.
    pub fn from_service(&self) -> bool {
        self.domain.as_deref() == Some(DOMAIN)
    }
}

impl fmt::Display for RpcError {
    /// `FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a): you touched ...`, with
    /// the field violations after the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(code_name(self.code))?;
        if let Some(reason) = &self.reason
            && reason != code_name(self.code)
        {
            write!(f, " {reason}")?;
        }
        match (self.rule_id(), self.article()) {
            (Some(rule), Some(article)) => write!(f, " ({rule}, {article})")?,
            (Some(rule), None) => write!(f, " ({rule})")?,
            _ => {}
        }
        let message = self.message();
        if !message.is_empty() {
            write!(f, ": {message}")?;
        }
        if !self.violations.is_empty() {
            let fields: Vec<String> =
                self.violations.iter().map(|v| format!("{}: {}", v.field, v.description)).collect();
            // The service's own message for INVALID_ARGUMENT already lists
            // the violations; do not say it twice.
            let listed = fields.iter().all(|f| message.contains(f.as_str()));
            if !listed {
                write!(f, " [{}]", fields.join("; "))?;
            }
        }
        Ok(())
    }
}

/// What went wrong with a call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The service (or the transport below it) answered with an error
    /// status.
    #[error("{0}")]
    Rpc(Box<RpcError>),
    /// The connection could not be set up.
    #[error("cannot connect to {url}: {message}")]
    Connect {
        /// The server address.
        url: String,
        /// Why, with the causes.
        message: String,
    },
    /// An argument was rejected on this side, before anything was sent.
    #[error("invalid {field}: {description}")]
    Invalid {
        /// Which argument.
        field: String,
        /// Why.
        description: String,
    },
}

impl From<tonic::Status> for Error {
    fn from(status: tonic::Status) -> Error {
        Error::Rpc(Box::new(RpcError::from_status(&status)))
    }
}

impl Error {
    /// A local validation error.
    pub fn invalid(field: impl Into<String>, description: impl Into<String>) -> Error {
        Error::Invalid { field: field.into(), description: description.into() }
    }

    /// The gRPC code: the status's, `UNAVAILABLE` for a connection that could
    /// not be set up, `INVALID_ARGUMENT` for a local validation error.
    pub fn code(&self) -> Code {
        match self {
            Error::Rpc(e) => e.code,
            Error::Connect { .. } => Code::Unavailable,
            Error::Invalid { .. } => Code::InvalidArgument,
        }
    }

    /// The ErrorInfo reason, if the service gave one.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Error::Rpc(e) => e.reason.as_deref(),
            _ => None,
        }
    }

    /// The rule id (`FIDE-4.3a`) of a refusal by the Laws.
    pub fn rule_id(&self) -> Option<&str> {
        match self {
            Error::Rpc(e) => e.rule_id(),
            _ => None,
        }
    }

    /// The Article (`Article 4.3.1`) of a refusal by the Laws.
    pub fn article(&self) -> Option<String> {
        match self {
            Error::Rpc(e) => e.article(),
            _ => None,
        }
    }

    /// The `google.rpc.BadRequest` field violations (for a local validation
    /// error, the one argument rejected).
    pub fn field_violations(&self) -> Vec<FieldViolation> {
        match self {
            Error::Rpc(e) => e.violations.clone(),
            Error::Invalid { field, description } => {
                vec![FieldViolation { field: field.clone(), description: description.clone() }]
            }
            Error::Connect { .. } => Vec::new(),
        }
    }

    /// The message alone, without code, reason or rule.
    pub fn message(&self) -> String {
        match self {
            Error::Rpc(e) => e.message().to_string(),
            Error::Connect { message, .. } => message.clone(),
            Error::Invalid { description, .. } => description.clone(),
        }
    }

    /// How long the service asks the caller to wait before sending the same
    /// request again (its `google.rpc.RetryInfo`), if it said.
    pub fn retry_delay(&self) -> Option<std::time::Duration> {
        match self {
            Error::Rpc(e) => e.retry_delay,
            _ => None,
        }
    }

    /// The decoded status, if the error is one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            Error::Rpc(e) => Some(e),
            _ => None,
        }
    }

    /// `true` when sending the same request again may succeed: the service
    /// is unavailable, or the transport failed (a status without the
    /// service's ErrorInfo: connection reset, refused, protocol error).
    /// Mutations carry a request id, so resending one is safe.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Connect { .. } => true,
            Error::Invalid { .. } => false,
            Error::Rpc(e) => transient(e.code, e.from_service()),
        }
    }

    /// The exit code the `arbiter` CLI uses for this error (see the crate
    /// documentation).
    pub fn exit_code(&self) -> u8 {
        exit_code_of(self.code())
    }
}

/// Exit codes of the `arbiter` CLI, which scripts can rely on.
///
/// Each code is written once, here, with its meaning: the constants, their
/// documentation and [`exit::ALL`] (from which the CLI prints the table in
/// `arbiter --help`) all come from the one list below. Which gRPC code gives
/// which exit code is [`exit_code_of`].
pub mod exit {
    macro_rules! exit_codes {
        ($($name:ident = $code:literal: $meaning:literal;)*) => {
            $(
                #[doc = concat!("`", $code, "`: ", $meaning, ".")]
                pub const $name: u8 = $code;
            )*
            /// Every exit code with its meaning, in increasing order.
            pub const ALL: &[(u8, &str)] = &[$(($code, $meaning)),*];
        };
    }

    exit_codes! {
        OK = 0: "success (`game watch`: the game is over)";
        USAGE = 1: "usage error (unknown command or option, a value that does not parse)";
        INVALID = 2: "invalid argument or not found (INVALID_ARGUMENT, OUT_OF_RANGE, NOT_FOUND, \
                      a file that cannot be read, a bad FEN)";
        REFUSED = 3: "refused by the Laws of Chess (FAILED_PRECONDITION: not your turn, game over...; \
                      a move refused by touch move or ruled illegal, written in SAN, long algebraic \
                      or UCI)";
        AUTH = 4: "authentication (UNAUTHENTICATED, PERMISSION_DENIED)";
        UNAVAILABLE = 5: "unavailable or conflict (UNAVAILABLE, server unreachable, ABORTED, \
                          ALREADY_EXISTS, DEADLINE_EXCEEDED): retrying may help";
        INVALID_DATA = 6: "`pgn check`: at least one game is invalid";
        OTHER = 7: "anything else (INTERNAL, UNKNOWN)";
        INTERRUPTED = 130: "interrupted by Ctrl-C (SIGINT; the shell's 128 + 2): how `game watch` and \
                            `game list --watch` are ended before the game is";
    }
}

/// `true` when sending the same request again may succeed, for a status
/// as tonic gives it: the rule of [`Error::is_transient`], for callers that
/// hold a `tonic::Status` rather than an [`Error`] (a test harness on the
/// generated client, a service with its own retry loop).
pub fn is_transient_status(status: &tonic::Status) -> bool {
    let from_service = status.get_details_error_info().is_some_and(|info| info.domain == DOMAIN);
    transient(status.code(), from_service)
}

/// The one retry rule: UNAVAILABLE always; UNKNOWN, INTERNAL and CANCELLED
/// only when the service did not say so itself (a status without its
/// ErrorInfo comes from the transport: a reset, a refused connection, a
/// protocol error). DEADLINE_EXCEEDED is not transient: the deadline is
/// the caller's, and resending would only wait as long again.
fn transient(code: Code, from_service: bool) -> bool {
    match code {
        Code::Unavailable => true,
        Code::Unknown | Code::Internal | Code::Cancelled => !from_service,
        _ => false,
    }
}

/// The exit code of a gRPC code (see [`exit`]).
pub fn exit_code_of(code: Code) -> u8 {
    match code {
        Code::Ok => exit::OK,
        Code::InvalidArgument | Code::OutOfRange | Code::NotFound => exit::INVALID,
        Code::FailedPrecondition => exit::REFUSED,
        Code::Unauthenticated | Code::PermissionDenied => exit::AUTH,
        Code::Unavailable
        | Code::Aborted
        | Code::AlreadyExists
        | Code::DeadlineExceeded
        | Code::ResourceExhausted => exit::UNAVAILABLE,
        _ => exit::OTHER,
    }
}

/// The canonical UPPER_SNAKE_CASE name of a gRPC code.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// A transport error with its chain of causes, on one line.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        source = cause.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::{ErrorDetails, StatusExt};

    #[test]
    fn a_quota_refusal_gives_its_retry_delay() {
        let mut details = ErrorDetails::with_error_info("RATE_LIMITED", DOMAIN, HashMap::new());
        details.set_retry_info(Some(std::time::Duration::from_millis(1500)));
        let status = tonic::Status::with_error_details(Code::ResourceExhausted, "slow down", details);
        let e = Error::from(status);
        assert_eq!(e.reason(), Some("RATE_LIMITED"));
        assert_eq!(e.retry_delay(), Some(std::time::Duration::from_millis(1500)));
        // Not resent by the client's own retry loop: the caller decides.
        assert!(!e.is_transient());
        assert_eq!(Error::from(refusal()).retry_delay(), None);
    }

    fn refusal() -> tonic::Status {
        let mut metadata = HashMap::new();
        metadata.insert("rule_id".to_string(), "FIDE-4.3a".to_string());
        let details = ErrorDetails::with_error_info("TOUCH_MOVE", DOMAIN, metadata);
        tonic::Status::with_error_details(
            Code::FailedPrecondition,
            "you touched the knight on g1: move it (FIDE-4.3a)",
            details,
        )
    }

    #[test]
    fn display_reads_well() {
        let e = Error::from(refusal());
        assert_eq!(
            e.to_string(),
            "FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a): you touched the knight on g1: move it"
        );
        assert_eq!(e.code(), Code::FailedPrecondition);
        assert_eq!(e.reason(), Some("TOUCH_MOVE"));
        assert_eq!(e.rule_id(), Some("FIDE-4.3a"));
        assert_eq!(e.exit_code(), exit::REFUSED);
        assert!(!e.is_transient());
        assert_eq!(e.article(), None, "an older service sends no article");
    }

    #[test]
    fn a_refusal_names_its_article() {
        let mut metadata = HashMap::new();
        metadata.insert("rule_id".to_string(), "FIDE-4.3a".to_string());
        metadata.insert("article".to_string(), "4.3.1".to_string());
        metadata.insert("rulebook".to_string(), "RULEBOOK_LAWS_OF_CHESS".to_string());
        let details = ErrorDetails::with_error_info("TOUCH_MOVE", DOMAIN, metadata);
        let status = tonic::Status::with_error_details(
            Code::FailedPrecondition,
            "you touched the knight on g1: move it (FIDE-4.3a, Article 4.3.1)",
            details,
        );
        let e = Error::from(status);
        assert_eq!(e.article().as_deref(), Some("Article 4.3.1"));
        assert_eq!(
            e.to_string(),
            "FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a, Article 4.3.1): you touched the knight on g1: move it"
        );
    }

    #[test]
    fn bad_request_fields() {
        let mut details = ErrorDetails::with_error_info("INVALID_ARGUMENT", DOMAIN, HashMap::new());
        details.add_bad_request_violation("regulations.time_control", "is required");
        let status = tonic::Status::with_error_details(Code::InvalidArgument, "invalid request", details);
        let e = Error::from(status);
        assert_eq!(
            e.field_violations(),
            vec![FieldViolation {
                field: "regulations.time_control".into(),
                description: "is required".into()
            }]
        );
        assert_eq!(
            e.to_string(),
            "INVALID_ARGUMENT: invalid request [regulations.time_control: is required]"
        );
        assert_eq!(e.exit_code(), exit::INVALID);
    }

    #[test]
    fn transport_failures_are_transient() {
        assert!(Error::from(tonic::Status::unavailable("down")).is_transient());
        assert!(Error::from(tonic::Status::unknown("transport error")).is_transient());
        assert!(Error::from(tonic::Status::internal("h2 protocol error")).is_transient());
        let details = ErrorDetails::with_error_info("INTERNAL", DOMAIN, HashMap::new());
        let own = tonic::Status::with_error_details(Code::Internal, "corrupt log", details);
        assert!(!Error::from(own).is_transient());
        assert!(!Error::from(tonic::Status::not_found("games/x")).is_transient());
    }

    #[test]
    fn statuses_follow_the_same_rule_as_errors() {
        let own = |code| {
            let details = ErrorDetails::with_error_info(code_name(code), DOMAIN, HashMap::new());
            tonic::Status::with_error_details(code, "from the service", details)
        };
        let codes = [
            Code::Ok,
            Code::Cancelled,
            Code::Unknown,
            Code::InvalidArgument,
            Code::DeadlineExceeded,
            Code::NotFound,
            Code::AlreadyExists,
            Code::PermissionDenied,
            Code::ResourceExhausted,
            Code::FailedPrecondition,
            Code::Aborted,
            Code::OutOfRange,
            Code::Unimplemented,
            Code::Internal,
            Code::Unavailable,
            Code::DataLoss,
            Code::Unauthenticated,
        ];
        for code in codes {
            for status in [tonic::Status::new(code, "bare"), own(code)] {
                assert_eq!(
                    is_transient_status(&status),
                    Error::from(status.clone()).is_transient(),
                    "{status:?}"
                );
            }
        }
        assert!(is_transient_status(&tonic::Status::unavailable("down")));
        assert!(is_transient_status(&tonic::Status::unknown("transport error")));
        assert!(!is_transient_status(&own(Code::Internal)));
        assert!(!is_transient_status(&tonic::Status::deadline_exceeded("slow")));
    }

    #[test]
    fn the_exit_code_table_agrees_with_the_mapping() {
        let numbers: Vec<u8> = exit::ALL.iter().map(|&(n, _)| n).collect();
        assert_eq!(numbers, (0..=7).chain([130]).collect::<Vec<u8>>());
        assert_eq!([exit::OK, exit::USAGE, exit::INVALID, exit::REFUSED, exit::AUTH], [0, 1, 2, 3, 4]);
        assert_eq!([exit::UNAVAILABLE, exit::INVALID_DATA, exit::OTHER, exit::INTERRUPTED], [5, 6, 7, 130]);
        // A gRPC code a meaning names gives that exit code.
        for code in (0..=16).map(Code::from_i32) {
            let name = code_name(code);
            for &(number, meaning) in exit::ALL {
                let named =
                    meaning.split(|c: char| !(c.is_ascii_uppercase() || c == '_')).any(|word| word == name);
                if named {
                    assert_eq!(exit_code_of(code), number, "{name} is listed under {number}");
                }
            }
        }
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code_of(Code::NotFound), 2);
        assert_eq!(exit_code_of(Code::Unauthenticated), 4);
        assert_eq!(exit_code_of(Code::PermissionDenied), 4);
        assert_eq!(exit_code_of(Code::Aborted), 5);
        assert_eq!(exit_code_of(Code::Internal), 7);
        assert_eq!(Error::invalid("game", "empty").exit_code(), 2);
    }
}
