//! Request ids: what makes two calls the same request.
//!
//! A mutating request carries a `request_id` chosen by its caller (AIP-155).
//! The id names one request **of one caller and one method**: the scope of
//! a request id is `(caller, method)` (and, for the acts, the game). Within
//! its scope the server keeps the id with a fingerprint of the request (the
//! SHA-256 of the request's encoding without its id, and for an act without
//! its `expected_seq`), so that:
//! - the same caller sending the same request again (a retry) gets the
//!   original answer, and nothing is recorded twice;
//! - the same caller sending a *different* request with the id is refused
//!   (`ALREADY_EXISTS`, reason `REQUEST_ID_REUSED`), instead of being told of
//!   the first request's outcome as if it were its own;
//! - another caller, or another method, using the same id makes an
//!   independent request: it never sees the first caller's answer (a
//!   game's player tokens) nor silences it (an arbiter's ruling squatted by
//!   a player's act).
//!
//! The caller of a role token is its role and the token's stable name
//! ([`CallerId`], never the token itself), so two tokens are two callers
//! even with the same role; a player token's caller is its colour (its game
//! is in the scope already).

use arbiter_chess::Color;

use crate::auth::{CallerId, Principal, sha256, to_hex};
use crate::store::RequestOrigin;

/// Who sent a request, as far as request ids are concerned: a stable name
/// that differs between any two tokens.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Caller(String);

impl Caller {
    /// The caller behind an authenticated request, named by the token's
    /// stable name ([`CallerId`], the one the limits are kept by).
    ///
    /// A player is its colour: a player token acts only in its own game, and
    /// the game is part of every act's scope. A role token is its role and
    /// its stable name (`tok-<id>` for an issued token, a labelled digest
    /// for a configured one): the same token always gives the same name,
    /// the name tells nothing of the token, and two tokens are two callers.
    #[must_use]
    pub fn of(principal: &Principal, caller: &CallerId) -> Caller {
        match principal {
            Principal::Player { color: Color::White, .. } => Caller("white".to_owned()),
            Principal::Player { color: Color::Black, .. } => Caller("black".to_owned()),
            Principal::Role(role) => Caller(format!("{}:{caller}", role.as_str())),
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A request id with the scope it was sent in and the request's
/// fingerprint: what the server stores with what the request caused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamped {
    /// The caller's request id.
    pub id: String,
    pub origin: RequestOrigin,
}

impl Stamped {
    /// Stamps request id `id` of `caller`'s call of `method` (the RPC's
    /// name), whose [`fingerprint`] is `sha256`.
    #[must_use]
    pub fn new(caller: &Caller, method: &str, id: String, sha256: String) -> Stamped {
        Stamped { id, origin: RequestOrigin { scope: scope(caller, method), sha256 } }
    }
}

/// The scope of a request id: the caller and the method.
#[must_use]
pub fn scope(caller: &Caller, method: &str) -> String {
    format!("{} {method}", caller.as_str())
}

/// Hex SHA-256 of the request's protobuf encoding. The caller clears the
/// request id first: it names the request, it is not part of it. The
/// encoding of a message is deterministic (fields in number order, no
/// maps in requests), so a resend of the same request gives the same
/// fingerprint.
#[must_use]
pub fn fingerprint(request: &impl prost::Message) -> String {
    to_hex(&sha256(&request.encode_to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Role;
    use arbiter_proto::v1 as pb;

    #[test]
    fn every_token_is_its_own_caller() {
        let service = Principal::Role(Role::Service);
        let (one, two) = (CallerId::from_stored("tok-aaaa"), CallerId::from_stored("tok-bbbb"));
        let a = Caller::of(&service, &one);
        assert_ne!(a, Caller::of(&service, &two));
        assert_eq!(a, Caller::of(&service, &one));
        assert_eq!(a.as_str(), "service:tok-aaaa");
        // The role is part of the name.
        assert_ne!(a, Caller::of(&Principal::Role(Role::Arbiter), &one));
        let white = Principal::Player { game: "g".into(), color: Color::White, generation: 0 };
        let black = Principal::Player { game: "g".into(), color: Color::Black, generation: 0 };
        let player = CallerId::from_stored("player-g-w");
        assert_ne!(Caller::of(&white, &player), Caller::of(&black, &player));
    }

    #[test]
    fn the_fingerprint_is_the_request_without_its_id() {
        let caller = Caller("service:1".into());
        let e4 = pb::MakeMoveRequest { name: "games/g".into(), r#move: "e4".into(), ..Default::default() };
        let d4 = pb::MakeMoveRequest { r#move: "d4".into(), ..e4.clone() };
        let stamp = |method: &str, id: &str, r: &pb::MakeMoveRequest| {
            Stamped::new(
                &caller,
                method,
                id.into(),
                fingerprint(&pb::MakeMoveRequest { request_id: String::new(), ..r.clone() }),
            )
        };
        let first = stamp("make_move", "x", &e4);
        assert_eq!(first, stamp("make_move", "x", &e4.clone()));
        // The id is no part of the fingerprint.
        let with_id = pb::MakeMoveRequest { request_id: "y".into(), ..e4.clone() };
        assert_eq!(first.origin, stamp("make_move", "y", &with_id).origin);
        assert_ne!(first.origin.sha256, stamp("make_move", "x", &d4).origin.sha256);
        assert_ne!(first.origin.scope, stamp("resign_game", "x", &e4).origin.scope);
        assert_eq!(first.origin.scope, "service:1 make_move");
        assert_eq!(first.origin.sha256.len(), 64);
    }
}
