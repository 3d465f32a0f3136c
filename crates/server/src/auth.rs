//! Bearer tokens and roles.
//!
//! Three kinds of token reach the service, always as
//! `authorization: Bearer <token>`:
//! - role tokens issued by `arbiterd token issue` (or on first start):
//!   `arb_<id>_<secret>`; the database keeps the id and the SHA-256 of the
//!   secret, never the secret;
//! - role tokens given in the configuration (`ARBITER_ARBITER_TOKEN`...),
//!   kept in memory as SHA-256 hashes;
//! - per-game player tokens returned by `CreateGame`:
//!   `arbp_<game>_<w|b>_<mac>`, where the MAC is an HMAC-SHA256 of the game
//!   and colour under the service key (stored once in the database, shared by
//!   every replica). They need no storage, and a retried `CreateGame` can
//!   return the same tokens again.
//!
//! Every secret comparison is constant-time.

use std::collections::HashMap;
use std::sync::Mutex;

use arbiter_chess::Color;
use hmac::{KeyInit, Mac};
use rand::Rng;
use sha2::{Digest, Sha256};
use tonic::metadata::MetadataMap;

use crate::error::ApiError;
use crate::store::{EventStore, Storage, TokenRow};

/// A role a token grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A tournament platform's backend: create, list and read games.
    Service,
    /// An arbiter: every act and every arbiter action, in every game.
    Arbiter,
    /// Read only.
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Service => "service",
            Role::Arbiter => "arbiter",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "service" => Some(Role::Service),
            "arbiter" => Some(Role::Arbiter),
            "viewer" => Some(Role::Viewer),
            _ => None,
        }
    }
}

/// Who is calling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    Role(Role),
    /// A player, for one colour in one game.
    Player {
        game: String,
        color: Color,
    },
}

impl Principal {
    /// The actor recorded with the events this caller causes.
    pub fn actor(&self) -> &'static str {
        match self {
            Principal::Role(Role::Service) => "service",
            Principal::Role(Role::Arbiter) => "arbiter",
            Principal::Role(Role::Viewer) => "viewer",
            Principal::Player { color: Color::White, .. } => "white",
            Principal::Player { color: Color::Black, .. } => "black",
        }
    }

    /// Fails unless the caller may read `game`.
    ///
    /// # Errors
    /// [`ApiError::PermissionDenied`] for another game's player token.
    pub fn may_read(&self, game: &str) -> Result<(), ApiError> {
        match self {
            Principal::Role(_) => Ok(()),
            Principal::Player { game: own, .. } if own == game => Ok(()),
            Principal::Player { .. } => {
                Err(ApiError::PermissionDenied("a player token may only read its own game".into()))
            }
        }
    }

    /// Fails unless the caller has one of `roles` (player tokens never do).
    ///
    /// # Errors
    /// [`ApiError::PermissionDenied`].
    pub fn require(&self, roles: &[Role], what: &str) -> Result<(), ApiError> {
        match self {
            Principal::Role(r) if roles.contains(r) => Ok(()),
            _ => Err(ApiError::PermissionDenied(format!(
                "{what} needs a token with role {}",
                roles.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(" or ")
            ))),
        }
    }

    /// The colour a player act is made for: a player token acts only for
    /// its colour in its game; an arbiter token for the colour named.
    ///
    /// # Errors
    /// [`ApiError::PermissionDenied`] or, for an arbiter who names no
    /// colour, [`ApiError::InvalidArgument`].
    pub fn act_for(&self, game: &str, named: Option<Color>) -> Result<Color, ApiError> {
        match self {
            Principal::Player { game: own, color } => {
                if own != game {
                    return Err(ApiError::PermissionDenied(
                        "a player token may only act in its own game".into(),
                    ));
                }
                match named {
                    Some(c) if c != *color => Err(ApiError::PermissionDenied(format!(
                        "this token may only act for {}",
                        color_name(*color)
                    ))),
                    _ => Ok(*color),
                }
            }
            Principal::Role(Role::Arbiter) => named.ok_or_else(|| {
                ApiError::field("color", "an arbiter acting for a player must name the colour")
            }),
            Principal::Role(role) => Err(ApiError::PermissionDenied(format!(
                "a {} token may not act for a player; use the player's token or an arbiter token",
                role.as_str()
            ))),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

type HmacSha256 = hmac::Hmac<Sha256>;

/// A stable name of the token a request came with, for the limits kept per
/// token (`crate::quota`) and the creator recorded with a game: the same
/// token always gets the same name, on every replica and after a restart,
/// and the name never reveals the token.
///
/// - an issued role token: `tok-<id>` (its public id);
/// - a configured role token: `cfg-<role>-<16 hex digits>` (an HMAC of the
///   token's hash under the service key);
/// - a player token: `player-<game>-<w|b>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallerId(String);

impl CallerId {
    /// The name (stored in `games.creator`).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A name as stored.
    #[must_use]
    pub fn from_stored(text: &str) -> CallerId {
        CallerId(text.to_owned())
    }
}

impl std::fmt::Display for CallerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Checks tokens and makes player tokens.
#[derive(Debug)]
pub struct Authority {
    key: Vec<u8>,
    /// Tokens from the configuration: (role, SHA-256 of the whole token).
    configured: Vec<(Role, [u8; 32])>,
    store: Storage,
    /// Role tokens already checked against the database, by id. Tokens are
    /// never revoked while the service runs, so a cache entry stays valid.
    cache: Mutex<HashMap<String, (Role, [u8; 32])>>,
}

impl Authority {
    /// `key_hex` is the service key (hex), `configured` the role tokens
    /// from the configuration.
    pub fn new(key_hex: &str, configured: &[(Role, String)], store: Storage) -> Authority {
        let key = from_hex(key_hex).unwrap_or_else(|| key_hex.as_bytes().to_vec());
        let configured = configured.iter().map(|(r, t)| (*r, sha256(t.as_bytes()))).collect();
        Authority { key, configured, store, cache: Mutex::new(HashMap::new()) }
    }

    /// A fresh random service key, hex.
    pub fn new_key() -> String {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        to_hex(&bytes)
    }

    /// The player token for `color` in `game`.
    pub fn player_token(&self, game: &str, color: Color) -> String {
        let c = if color == Color::White { 'w' } else { 'b' };
        format!("arbp_{game}_{c}_{}", to_hex(&self.player_mac(game, c)))
    }

    fn player_mac(&self, game: &str, c: char) -> Vec<u8> {
        // The key is never empty (a new key has 32 bytes), and HMAC takes
        // keys of any length, so this cannot fail.
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(b"arbiter player token\0");
        mac.update(game.as_bytes());
        mac.update(&[0, c as u8]);
        mac.finalize().into_bytes().to_vec()
    }

    /// A new role token and the row that stores it.
    pub fn issue(role: Role, label: &str, now_ms: i64) -> (String, TokenRow) {
        let mut id = [0u8; 8];
        let mut secret = [0u8; 32];
        rand::rng().fill_bytes(&mut id);
        rand::rng().fill_bytes(&mut secret);
        let (id, secret) = (to_hex(&id), to_hex(&secret));
        let row = TokenRow {
            id: id.clone(),
            secret_sha256: to_hex(&sha256(secret.as_bytes())),
            role: role.as_str().to_string(),
            label: label.to_string(),
            created_wall_ms: now_ms,
        };
        (format!("arb_{id}_{secret}"), row)
    }

    /// Who sent the request.
    ///
    /// # Errors
    /// [`ApiError::Unauthenticated`] without a valid token;
    /// [`ApiError::Unavailable`] if the token store cannot be read.
    pub async fn authenticate(&self, metadata: &MetadataMap) -> Result<Principal, ApiError> {
        Ok(self.identify(metadata).await?.0)
    }

    /// Who sent the request, and the stable name of its token.
    ///
    /// # Errors
    /// As [`Authority::authenticate`].
    pub async fn identify(&self, metadata: &MetadataMap) -> Result<(Principal, CallerId), ApiError> {
        let header = metadata.get("authorization").ok_or_else(|| {
            ApiError::Unauthenticated("missing `authorization: Bearer <token>` header".into())
        })?;
        let header = header
            .to_str()
            .map_err(|_| ApiError::Unauthenticated("the authorization header is not text".into()))?;
        let token = header
            .strip_prefix("Bearer ")
            .or_else(|| header.strip_prefix("bearer "))
            .ok_or_else(|| {
                ApiError::Unauthenticated("the authorization header must be `Bearer <token>`".into())
            })?
            .trim();
        self.check(token).await
    }

    /// Who `token` stands for.
    ///
    /// # Errors
    /// As [`Authority::authenticate`].
    pub async fn check(&self, token: &str) -> Result<(Principal, CallerId), ApiError> {
        let invalid = || ApiError::Unauthenticated("the token is not valid".into());
        let hash = sha256(token.as_bytes());
        // Every configured token is compared, so the time taken does not
        // tell which one (or whether one) matched.
        let mut found = None;
        for (role, h) in &self.configured {
            if ct_eq(h, &hash) {
                found = Some(*role);
            }
        }
        if let Some(role) = found {
            return Ok((Principal::Role(role), self.configured_caller(role, &hash)));
        }
        if let Some(rest) = token.strip_prefix("arbp_") {
            let mut parts = rest.rsplitn(3, '_');
            let (Some(mac), Some(c), Some(game)) = (parts.next(), parts.next(), parts.next()) else {
                return Err(invalid());
            };
            let color = match c {
                "w" => Color::White,
                "b" => Color::Black,
                _ => return Err(invalid()),
            };
            let mac = from_hex(mac).ok_or_else(invalid)?;
            let expected = self.player_mac(game, if color == Color::White { 'w' } else { 'b' });
            return if ct_eq(&expected, &mac) {
                Ok((
                    Principal::Player { game: game.to_string(), color },
                    CallerId(format!("player-{game}-{c}")),
                ))
            } else {
                Err(invalid())
            };
        }
        if let Some(rest) = token.strip_prefix("arb_") {
            let (id, secret) = rest.split_once('_').ok_or_else(invalid)?;
            let secret_hash = sha256(secret.as_bytes());
            let cached = self.cache.lock().map_err(|_| invalid())?.get(id).copied();
            let (role, stored) = match cached {
                Some(entry) => entry,
                None => {
                    let row = self.store.token(id).await.map_err(ApiError::from)?.ok_or_else(invalid)?;
                    let role = Role::parse(&row.role).ok_or_else(invalid)?;
                    let stored: [u8; 32] =
                        from_hex(&row.secret_sha256).and_then(|v| v.try_into().ok()).ok_or_else(invalid)?;
                    if let Ok(mut cache) = self.cache.lock() {
                        cache.insert(id.to_string(), (role, stored));
                    }
                    (role, stored)
                }
            };
            return if ct_eq(&stored, &secret_hash) {
                Ok((Principal::Role(role), CallerId(format!("tok-{id}"))))
            } else {
                Err(invalid())
            };
        }
        Err(invalid())
    }
}

impl Authority {
    /// The name of a configured token: keyed, so that a stored name tells
    /// nothing about the token even to someone who can guess candidates.
    fn configured_caller(&self, role: Role, token_hash: &[u8; 32]) -> CallerId {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(b"arbiter caller id\0");
        mac.update(token_hash);
        let digest = mac.finalize().into_bytes();
        CallerId(format!("cfg-{}-{}", role.as_str(), to_hex(&digest[..8])))
    }
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Constant-time equality: the time depends on the lengths only.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    text.as_bytes().chunks(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let bytes = [0u8, 1, 0xab, 0xff];
        assert_eq!(to_hex(&bytes), "0001abff");
        assert_eq!(from_hex("0001abff").unwrap(), bytes);
        assert_eq!(from_hex("0g"), None);
        assert_eq!(from_hex("abc"), None);
    }

    #[test]
    fn constant_time_equality() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
    }
}
