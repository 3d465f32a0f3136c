//! The API layer: the one place that knows the wire format
//! (`arbiter_proto::v1`) on the way in and on the way out. Everything behind
//! it (the tables, the store, the Laws) speaks domain types.
//!
//! - [`validate`]: requests into domain values. It checks everything a
//!   request can get wrong and reports it as [`Violation`]s (a field path
//!   and a sentence), which the service turns into `google.rpc.BadRequest`
//!   field violations. It never judges an act under the Laws: an illegal
//!   move that is well formed is passed on, because over the board an
//!   illegal move is an event the Laws penalise, not a malformed request.
//! - [`to_proto`]: domain values (a game reading, a logged event, a ruling)
//!   into messages.
//! - [`describe`]: the API's names, facts and sentences for the Laws'
//!   decisions and events: a contract stated here, not derived from the
//!   Laws' field names.

pub mod board;
pub mod describe;
pub mod to_proto;
pub mod validate;

use std::fmt;

pub use describe::game_result_text;
pub use validate::parse_move;

/// One thing wrong with a request: the path of the field (e.g.
/// `regulations.time_control`, `move`) and what is wrong with it, as a
/// lowercase sentence fragment for the client's developer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The field path, dotted for nested messages.
    pub field: String,
    /// What is wrong, specific enough to fix the request.
    pub description: String,
}

impl Violation {
    /// A violation of `field`.
    pub fn new(field: impl Into<String>, description: impl Into<String>) -> Violation {
        Violation { field: field.into(), description: description.into() }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.description)
    }
}

/// The violation for an enum number the API does not define (a client built
/// against a newer API, or a bug); `expected` lists the valid values.
pub(crate) fn unknown_enum(field: &str, what: &str, value: i32, expected: &str) -> Violation {
    Violation::new(field, format!("{value} is not a known {what} (expected {expected})"))
}

/// The violation for a required enum left at its `UNSPECIFIED` value.
pub(crate) fn missing_enum(field: &str, what: &str, expected: &str) -> Violation {
    Violation::new(field, format!("a {what} is required ({expected})"))
}

/// Joins a field path: `prefix.name`, or `name` alone at the top.
pub(crate) fn path(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
}

#[cfg(test)]
mod tests;
