//! Bearer tokens and roles.
//!
//! Three kinds of token reach the service, always as
//! `authorization: Bearer <token>` (exactly one such header):
//! - role tokens issued by `arbiterd token issue` (or on first start):
//!   `arb_<id>_<secret>`; the database keeps the id and the SHA-256 of the
//!   secret, never the secret, and marks revoked ones (`arbiterd token
//!   revoke`); a row read is trusted for [`ROLE_TOKEN_CACHE_TTL`];
//! - role tokens given in the configuration (`ARBITER_ARBITER_TOKEN`...),
//!   kept in memory as SHA-256 hashes, refused at start if weak
//!   ([`check_token_strength`]);
//! - per-game player tokens returned by `CreateGame`:
//!   `arbp_<game>_<w|b>[<generation>]_<key id>_<mac>`, where the MAC is an
//!   HMAC-SHA256 of the game, the colour and the generation under the key
//!   named (see [`crate::keys`]; the tokens of releases that kept the key in
//!   the database name none). A game's tokens start at generation 0, which
//!   the token does not spell; `RevokePlayerTokens` moves a colour to the
//!   next generation, and only the current generation's token is accepted.
//!   Tokens need no storage besides the generations of games whose tokens
//!   were revoked, read through a cache trusted for
//!   [`PLAYER_GENERATION_CACHE_TTL`].
//!
//! Every secret comparison is constant-time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arbiter_chess::Color;
use hmac::{KeyInit, Mac};
use rand::Rng;
use sha2::{Digest, Sha256};
use tonic::metadata::MetadataMap;

use crate::error::ApiError;
use crate::keys::{KeyRing, LEGACY_KEY_ID};
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
        /// The generation of the token (0 until the game's tokens for this
        /// colour are revoked).
        generation: u32,
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
            Principal::Player { game: own, color, .. } => {
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
/// token always gets the same name, on every replica, after a restart and
/// after a rotation of the player-token key, and the name never reveals the
/// token.
///
/// - an issued role token: `tok-<id>` (its public id);
/// - a configured role token: `cfg-<role>-<16 hex digits>` (a labelled
///   SHA-256 of the token's hash; configured tokens are refused unless they
///   are long and varied, so the digest cannot be searched back);
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

    fn configured(role: Role, token_hash: &[u8; 32]) -> CallerId {
        let mut labelled = b"arbiter caller id\0".to_vec();
        labelled.extend_from_slice(token_hash);
        CallerId(format!("cfg-{}-{}", role.as_str(), to_hex(&sha256(&labelled)[..8])))
    }

    fn of(principal: &Principal) -> Option<CallerId> {
        match principal {
            Principal::Player { game, color, .. } => {
                let c = if *color == Color::White { 'w' } else { 'b' };
                Some(CallerId(format!("player-{game}-{c}")))
            }
            Principal::Role(_) => None,
        }
    }
}

impl std::fmt::Display for CallerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How long a role token read from the database is trusted before it is
/// read again: a token revoked with `arbiterd token revoke` (by another
/// process, perhaps on another replica) stops working within this time.
pub const ROLE_TOKEN_CACHE_TTL: Duration = Duration::from_secs(5);

/// Most role-token ids remembered (found or not); beyond it the expired
/// ones, then the unknown ones, are forgotten.
const ROLE_TOKEN_CACHE_CAP: usize = 10_000;

/// How long the generation of a game's player tokens is trusted before it
/// is read again: a token revoked on another replica stops working within
/// this time (on the replica that revoked it, at once).
pub const PLAYER_GENERATION_CACHE_TTL: Duration = Duration::from_secs(5);

/// Most games whose token generations are remembered.
const PLAYER_GENERATION_CACHE_CAP: usize = 100_000;

/// The current generations of a game's player tokens, and when read.
#[derive(Clone, Copy, Debug)]
struct CachedGenerations {
    generations: Generations,
    read_at: Instant,
}

/// The current generation of each colour's player token in a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Generations {
    pub white: u32,
    pub black: u32,
}

impl Generations {
    /// The generation of `color`'s token.
    #[must_use]
    pub fn of(self, color: Color) -> u32 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }
}

/// What the database said about a role-token id, and when.
#[derive(Clone, Copy, Debug)]
struct CachedToken {
    /// `None`: no such id (or revoked): refused without asking again.
    found: Option<(Role, [u8; 32])>,
    read_at: Instant,
}

/// Checks tokens and makes player tokens.
#[derive(Debug)]
pub struct Authority {
    keys: KeyRing,
    /// Tokens from the configuration: (role, SHA-256 of the whole token).
    configured: Vec<(Role, [u8; 32])>,
    store: Storage,
    /// Role tokens already read from the database, by id, for
    /// [`ROLE_TOKEN_CACHE_TTL`]; unknown ids too, so a stream of made-up
    /// ids does not cost a database read each.
    cache: Mutex<HashMap<String, CachedToken>>,
    /// Player-token generations already read, by game, for
    /// [`PLAYER_GENERATION_CACHE_TTL`].
    generations: Mutex<HashMap<String, CachedGenerations>>,
}

impl Authority {
    /// `keys` are the player-token keys, `configured` the role tokens from
    /// the configuration.
    pub fn new(keys: KeyRing, configured: &[(Role, String)], store: Storage) -> Authority {
        let configured = configured.iter().map(|(r, t)| (*r, sha256(t.as_bytes()))).collect();
        Authority {
            keys,
            configured,
            store,
            cache: Mutex::new(HashMap::new()),
            generations: Mutex::new(HashMap::new()),
        }
    }

    /// The player token of generation `generation` for `color` in `game`:
    /// `arbp_<game>_<w|b>[<generation>]_<key id>_<mac>` (the generation is
    /// written from 1 on), or without the key id under the key an earlier
    /// release kept in the database (its tokens had none, and stay the same
    /// strings).
    pub fn player_token(&self, game: &str, color: Color, generation: u32) -> String {
        let c = color_letter(color);
        let key = self.keys.signing();
        let mac = to_hex(&player_mac(&key.secret, game, c, generation));
        let c = if generation == 0 { c.to_string() } else { format!("{c}{generation}") };
        if key.id == LEGACY_KEY_ID {
            format!("arbp_{game}_{c}_{mac}")
        } else {
            format!("arbp_{game}_{c}_{}_{mac}", key.id)
        }
    }

    /// The current player token for `color` in `game`.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the generations cannot be read.
    pub async fn current_player_token(&self, game: &str, color: Color) -> Result<String, ApiError> {
        let generation = self.generations(game).await?.of(color);
        Ok(self.player_token(game, color, generation))
    }

    /// Whether a player's token is still the current one of its game (a
    /// role is always current here: its revocation is checked when the
    /// token is read).
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the generations cannot be read.
    pub async fn is_current(&self, principal: &Principal) -> Result<bool, ApiError> {
        match principal {
            Principal::Role(_) => Ok(true),
            Principal::Player { game, color, generation } => {
                Ok(self.generations(game).await?.of(*color) == *generation)
            }
        }
    }

    /// Records that the tokens of `game` are now of `generations` (after a
    /// revocation on this replica), so they apply here at once.
    pub fn remember_generations(&self, game: &str, generations: Generations) {
        if let Ok(mut cache) = self.generations.lock() {
            cache.insert(game.to_owned(), CachedGenerations { generations, read_at: Instant::now() });
        }
    }

    /// The current generations of `game`'s player tokens, from the cache
    /// while it is fresh, else from the database.
    async fn generations(&self, game: &str) -> Result<Generations, ApiError> {
        let now = Instant::now();
        if let Ok(cache) = self.generations.lock()
            && let Some(entry) = cache.get(game)
            && now.duration_since(entry.read_at) < PLAYER_GENERATION_CACHE_TTL
        {
            return Ok(entry.generations);
        }
        let [white, black] = self.store.player_token_generations(game).await.map_err(ApiError::from)?;
        let generations = Generations { white, black };
        if let Ok(mut cache) = self.generations.lock() {
            if cache.len() >= PLAYER_GENERATION_CACHE_CAP {
                cache.retain(|_, e| now.duration_since(e.read_at) < PLAYER_GENERATION_CACHE_TTL);
            }
            if cache.len() < PLAYER_GENERATION_CACHE_CAP {
                cache.insert(game.to_owned(), CachedGenerations { generations, read_at: now });
            }
        }
        Ok(generations)
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
            revoked_wall_ms: None,
        };
        (format!("arb_{id}_{secret}"), row)
    }

    /// Who sent the request.
    ///
    /// # Errors
    /// [`ApiError::Unauthenticated`] without a valid token, or with two
    /// `authorization` headers; [`ApiError::Unavailable`] if the token
    /// store cannot be read.
    pub async fn authenticate(&self, metadata: &MetadataMap) -> Result<Principal, ApiError> {
        Ok(self.identify(metadata).await?.0)
    }

    /// Who sent the request, and the stable name of its token.
    ///
    /// # Errors
    /// As [`Authority::authenticate`].
    pub async fn identify(&self, metadata: &MetadataMap) -> Result<(Principal, CallerId), ApiError> {
        let mut headers = metadata.get_all("authorization").iter();
        let header = headers.next().ok_or_else(|| {
            ApiError::Unauthenticated("missing `authorization: Bearer <token>` header".into())
        })?;
        // Proxies and libraries disagree on which of two headers counts;
        // refusing both leaves nothing to disagree on.
        if headers.next().is_some() {
            return Err(ApiError::Unauthenticated(
                "more than one authorization header: send exactly one `authorization: Bearer <token>`".into(),
            ));
        }
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
        self.check_caller(token).await
    }

    /// Who `token` stands for.
    ///
    /// # Errors
    /// As [`Authority::authenticate`].
    pub async fn check(&self, token: &str) -> Result<Principal, ApiError> {
        Ok(self.check_caller(token).await?.0)
    }

    /// What a token is worth, and the stable name of the token.
    ///
    /// # Errors
    /// As [`Authority::check`].
    pub async fn check_caller(&self, token: &str) -> Result<(Principal, CallerId), ApiError> {
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
            return Ok((Principal::Role(role), CallerId::configured(role, &hash)));
        }
        if let Some(rest) = token.strip_prefix("arbp_") {
            let principal = self.check_player(rest).ok_or_else(invalid)?;
            // Only a token with a valid MAC costs a look-up: made-up game
            // names never reach the database.
            if !self.is_current(&principal).await? {
                return Err(ApiError::Unauthenticated(
                    "this player token was revoked; ask the organiser for the new one".into(),
                ));
            }
            let caller = CallerId::of(&principal).ok_or_else(invalid)?;
            return Ok((principal, caller));
        }
        if let Some(rest) = token.strip_prefix("arb_") {
            let (id, secret) = rest.split_once('_').ok_or_else(invalid)?;
            // Issued ids are 16 hex digits: anything else is not looked up.
            if id.len() != 16 || !is_lower_hex(id) {
                return Err(invalid());
            }
            let (role, stored) = self.role_token(id).await?.ok_or_else(invalid)?;
            return if ct_eq(&stored, &sha256(secret.as_bytes())) {
                Ok((Principal::Role(role), CallerId(format!("tok-{id}"))))
            } else {
                Err(invalid())
            };
        }
        Err(invalid())
    }

    /// A player token after its `arbp_` prefix, in its one canonical
    /// spelling: `<game>_<w|b>[<generation>][_<key id>]_<64 lower-case hex
    /// digits>`, the generation in decimal from 1 on, without leading zeros.
    fn check_player(&self, rest: &str) -> Option<Principal> {
        let parts: Vec<&str> = rest.split('_').collect();
        let (game, c, key_id, mac) = match parts.as_slice() {
            [game, c, mac] => (*game, *c, LEGACY_KEY_ID, *mac),
            [game, c, key_id, mac] if *key_id != LEGACY_KEY_ID => (*game, *c, *key_id, *mac),
            _ => return None,
        };
        let (color, generation) = match c.split_at_checked(1)? {
            ("w", g) => (Color::White, g),
            ("b", g) => (Color::Black, g),
            _ => return None,
        };
        // One spelling per generation: `w01` or `w0` would be another string
        // for the same token.
        let generation = match generation {
            "" => 0,
            g if g.starts_with('0') || !g.bytes().all(|b| b.is_ascii_digit()) => return None,
            g => g.parse::<u32>().ok().filter(|g| *g > 0)?,
        };
        // One token, one spelling: upper-case hex would give every token
        // 2^64 spellings, which defeats anyone who denylists a token.
        if game.is_empty() || mac.len() != 64 || !is_lower_hex(mac) {
            return None;
        }
        let key = self.keys.get(key_id)?;
        let expected = player_mac(&key.secret, game, color_letter(color), generation);
        ct_eq(&expected, &from_hex(mac)?).then(|| Principal::Player {
            game: game.to_string(),
            color,
            generation,
        })
    }

    /// The role and secret hash of role token `id`, from the cache while it
    /// is fresh, else from the database; `None` for an unknown or revoked id.
    async fn role_token(&self, id: &str) -> Result<Option<(Role, [u8; 32])>, ApiError> {
        let now = Instant::now();
        if let Ok(cache) = self.cache.lock()
            && let Some(entry) = cache.get(id)
            && now.duration_since(entry.read_at) < ROLE_TOKEN_CACHE_TTL
        {
            return Ok(entry.found);
        }
        let row = self.store.token(id).await.map_err(ApiError::from)?;
        let found = row.filter(|r| r.revoked_wall_ms.is_none()).and_then(|row| {
            let role = Role::parse(&row.role)?;
            let stored: [u8; 32] = from_hex(&row.secret_sha256)?.try_into().ok()?;
            Some((role, stored))
        });
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= ROLE_TOKEN_CACHE_CAP {
                cache.retain(|_, e| now.duration_since(e.read_at) < ROLE_TOKEN_CACHE_TTL);
            }
            if cache.len() >= ROLE_TOKEN_CACHE_CAP {
                cache.retain(|_, e| e.found.is_some());
            }
            if cache.len() < ROLE_TOKEN_CACHE_CAP {
                cache.insert(id.to_string(), CachedToken { found, read_at: now });
            }
        }
        Ok(found)
    }
}

fn color_letter(color: Color) -> char {
    if color == Color::White { 'w' } else { 'b' }
}

fn player_mac(key: &[u8], game: &str, c: char, generation: u32) -> Vec<u8> {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(b"arbiter player token\0");
    mac.update(game.as_bytes());
    mac.update(&[0, c as u8]);
    // Generation 0 signs what every release before revocation signed, so
    // the tokens of games already created stay valid.
    if generation > 0 {
        mac.update(&[0]);
        mac.update(&generation.to_be_bytes());
    }
    mac.finalize().into_bytes().to_vec()
}

fn is_lower_hex(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Fewest characters of a role token given in the configuration.
pub const MIN_CONFIGURED_TOKEN_LEN: usize = 32;

/// Fewest distinct characters of a configured role token.
const MIN_DISTINCT_CHARS: usize = 12;

/// Fails with the reason if `token` is too weak to be a role token given in
/// the configuration: shorter than [`MIN_CONFIGURED_TOKEN_LEN`], made of
/// few distinct characters (`aaaa...`, `abababab...`), or a placeholder of
/// the shipped examples (`CHANGE-ME`...). `openssl rand -hex 32` passes.
///
/// # Errors
/// A sentence saying what is wrong (never the token).
pub fn check_token_strength(token: &str) -> Result<(), String> {
    let lower = token.to_ascii_lowercase();
    for placeholder in
        ["change-me", "changeme", "change_me", "replace-me", "placeholder", "example", "secret"]
    {
        if lower.contains(placeholder) {
            return Err(format!(
                "it contains the placeholder `{placeholder}`; use e.g. `openssl rand -hex 32`"
            ));
        }
    }
    if token.chars().count() < MIN_CONFIGURED_TOKEN_LEN {
        return Err(format!(
            "it has fewer than {MIN_CONFIGURED_TOKEN_LEN} characters; use e.g. `openssl rand -hex 32`"
        ));
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it contains spaces or control characters".into());
    }
    let distinct: std::collections::HashSet<char> = token.chars().collect();
    if distinct.len() < MIN_DISTINCT_CHARS {
        return Err(format!(
            "it uses only {} distinct characters (at least {MIN_DISTINCT_CHARS}): it looks made up, not random",
            distinct.len()
        ));
    }
    Ok(())
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Constant-time equality (subtle): the time depends on the lengths only.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq as _;
    a.ct_eq(b).into()
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// The bytes of hex text (either case); `None` if it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    hex::decode(text).ok()
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

    async fn authority(keys: KeyRing) -> Authority {
        let store = Storage::open("sqlite::memory:").await.unwrap();
        Authority::new(keys, &[(Role::Viewer, "v".repeat(40))], store)
    }

    fn headers(values: &[&str]) -> MetadataMap {
        let mut m = MetadataMap::new();
        for v in values {
            m.append("authorization", v.parse().unwrap());
        }
        m
    }

    #[tokio::test]
    async fn player_tokens_name_their_key_and_have_one_spelling() {
        let mut ring = KeyRing::generate();
        let old = ring.signing().id.clone();
        let auth_old = authority(ring.clone()).await;
        let token = auth_old.player_token("g1", Color::White, 0);
        assert!(token.starts_with(&format!("arbp_g1_w_{old}_")), "{token}");
        let me = Principal::Player { game: "g1".into(), color: Color::White, generation: 0 };
        assert_eq!(auth_old.check(&token).await.unwrap(), me);

        // After a rotation the old token still verifies; new ones name the new key.
        let new = ring.rotate();
        let auth = authority(ring).await;
        assert_eq!(auth.check(&token).await.unwrap(), me);
        let fresh = auth.player_token("g1", Color::White, 0);
        assert!(fresh.contains(&format!("_{new}_")), "{fresh}");

        // One spelling: upper-case hex, another key id, none, extra parts.
        let (head, mac) = token.rsplit_once('_').unwrap();
        for bad in [
            format!("{head}_{}", mac.to_ascii_uppercase()),
            format!("arbp_g1_w_{mac}"),
            format!("arbp_g1_w_{new}_{mac}"),
            format!("arbp_g1_w_x_{old}_{mac}"),
            format!("arbp__w_{old}_{mac}"),
            format!("{token}0"),
            token.replace("_w_", "_b_"),
        ] {
            assert!(auth.check(&bad).await.is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn tokens_of_the_key_kept_in_the_database_keep_their_form() {
        let key = vec![7u8; 32];
        let auth = authority(KeyRing::single(LEGACY_KEY_ID, key.clone())).await;
        let token = auth.player_token("g1", Color::Black, 0);
        // The form the first release gave: no key id.
        assert_eq!(token, format!("arbp_g1_b_{}", to_hex(&player_mac(&key, "g1", 'b', 0))));
        assert!(auth.check(&token).await.is_ok());
        // `legacy` is never written as a key id.
        let (_, mac) = token.rsplit_once('_').unwrap();
        assert!(auth.check(&format!("arbp_g1_b_{LEGACY_KEY_ID}_{mac}")).await.is_err());
    }

    #[tokio::test]
    async fn a_generation_has_one_token_and_only_the_current_one_is_accepted() {
        let auth = authority(KeyRing::generate()).await;
        let first = auth.player_token("g1", Color::White, 0);
        let second = auth.player_token("g1", Color::White, 2);
        assert!(second.starts_with("arbp_g1_w2_"), "{second}");
        assert_ne!(first.rsplit_once('_').unwrap().1, second.rsplit_once('_').unwrap().1);
        // Until a revocation, generation 0 is current (and 2 is not).
        assert!(auth.check(&first).await.is_ok());
        assert!(auth.check(&second).await.is_err());
        auth.remember_generations("g1", Generations { white: 2, black: 0 });
        let e = auth.check(&first).await.unwrap_err();
        assert!(e.to_string().contains("revoked"), "{e}");
        assert_eq!(
            auth.check(&second).await.unwrap(),
            Principal::Player { game: "g1".into(), color: Color::White, generation: 2 }
        );
        // Black's token is untouched.
        assert!(auth.check(&auth.player_token("g1", Color::Black, 0)).await.is_ok());
        // One spelling per generation; the MAC binds the generation.
        let (_, mac) = second.rsplit_once('_').unwrap();
        let key = second.split('_').nth(3).unwrap();
        for bad in [
            format!("arbp_g1_w02_{key}_{mac}"),
            format!("arbp_g1_w+2_{key}_{mac}"),
            format!("arbp_g1_w0_{key}_{mac}"),
            format!("arbp_g1_w3_{key}_{mac}"),
            format!("arbp_g1_w_{key}_{mac}"),
            format!("arbp_g1_w2x_{key}_{mac}"),
            format!("arbp_g1_w99999999999_{key}_{mac}"),
        ] {
            assert!(auth.check(&bad).await.is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn exactly_one_authorization_header() {
        let auth = authority(KeyRing::generate()).await;
        let good = format!("Bearer {}", "v".repeat(40));
        assert_eq!(auth.authenticate(&headers(&[&good])).await.unwrap(), Principal::Role(Role::Viewer));
        for twice in
            [[good.as_str(), "Bearer junk"], ["Bearer junk", good.as_str()], [good.as_str(), good.as_str()]]
        {
            let e = auth.authenticate(&headers(&twice)).await.unwrap_err();
            assert!(e.to_string().contains("more than one authorization header"), "{e}");
        }
        assert!(auth.authenticate(&headers(&[])).await.unwrap_err().to_string().contains("missing"));
    }

    #[tokio::test]
    async fn malformed_role_token_ids_never_reach_the_database() {
        let auth = authority(KeyRing::generate()).await;
        // Close the store: a lookup would now fail with UNAVAILABLE, so an
        // UNAUTHENTICATED answer shows none was made.
        auth.store.close().await;
        for token in ["arb_XYZ_secret", "arb_00112233445566778_s", "arb_0011223344556677"] {
            assert!(matches!(auth.check(token).await, Err(ApiError::Unauthenticated(_))), "{token}");
        }
    }

    #[tokio::test]
    async fn unknown_and_known_role_token_ids_are_cached() {
        let auth = authority(KeyRing::generate()).await;
        let (token, row) = Authority::issue(Role::Arbiter, "t", 1);
        auth.store.insert_token(&row).await.unwrap();
        assert_eq!(auth.check(&token).await.unwrap(), Principal::Role(Role::Arbiter));
        assert!(auth.check("arb_0011223344556677_x").await.is_err());
        // Both answers now come from the cache: the store is gone.
        auth.store.close().await;
        assert_eq!(auth.check(&token).await.unwrap(), Principal::Role(Role::Arbiter));
        assert!(matches!(auth.check("arb_0011223344556677_x").await, Err(ApiError::Unauthenticated(_))));
        // A wrong secret for a known id is refused from the cache too.
        let (id_part, _) = token.rsplit_once('_').unwrap();
        assert!(matches!(auth.check(&format!("{id_part}_wrong")).await, Err(ApiError::Unauthenticated(_))));
    }

    #[test]
    fn weak_configured_tokens_are_refused() {
        for weak in [
            "CHANGE-ME-arbiter-token-at-least-16-chars",
            "please-changeme-0123456789abcdefghij",
            "aaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "abcabcabcabcabcabcabcabcabcabcabcabc",
            "0123456789abcdef0123456",
            "with a space 0123456789abcdefghijklmnop",
        ] {
            assert!(check_token_strength(weak).is_err(), "{weak}");
        }
        let e = check_token_strength("aaaaaaaaaaaaaaaa").unwrap_err();
        assert!(!e.contains("aaaa"), "the reason never quotes the token: {e}");
        for strong in [
            "3f9c2a7b1e8d4c6f0a5b9e2d7c1f4a8b3e6d9c2f5a8b1e4d7c0f3a6b9e2d5c8f",
            "Yq8-Lm3_Vz7Tp2Kw9Rx4Nb6Hc1Jd5Gf0S",
        ] {
            assert!(check_token_strength(strong).is_ok(), "{strong}");
        }
    }

    #[test]
    fn constant_time_equality() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
    }
}
