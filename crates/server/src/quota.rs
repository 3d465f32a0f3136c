//! The limits a caller meets (issue 13, audit finding H2 and "WatchGame is
//! uncapped"): one token must not be able to fill the service's memory or
//! storage, nor crowd out the other callers.
//!
//! - **Creation rate**: a token bucket per service token for `CreateGame`
//!   ([`RateLimiter`]): `burst` creations at once, then `rate` a second.
//! - **Unfinished games**: at most `max_unfinished_games` games created by
//!   one service token may be pending or in progress at a time. The count
//!   is taken by the store inside the transaction that creates the game
//!   (`EventStore::create_game_capped`), so it is exact after a restart and
//!   across replicas, and nothing in memory has to follow games as they
//!   finish.
//! - **Watch streams**: at most `max_watch_streams_per_token` WatchGame
//!   streams per token and `max_watch_streams_per_game` per game, on this
//!   replica ([`WatchLimits`]).
//!
//! Arbiter tokens are exempt from the first two: an arbiter token is the
//! operator's own (it can already end every game), and the operator's
//! tooling (a load test, a migration) must not be throttled by a limit meant
//! for tournament platforms. Watch streams are capped for every token.
//!
//! Over a limit the request is refused with `RESOURCE_EXHAUSTED`, an
//! ErrorInfo reason naming the limit and a `RetryInfo` delay.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::auth::CallerId;
use crate::error::{ApiError, ExhaustedReason};

/// The configurable limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// CreateGame calls a second per service token, sustained.
    pub create_rate_per_s: f64,
    /// CreateGame calls a service token may make at once (the bucket's size).
    pub create_burst: u32,
    /// Games created by one service token that may be pending or in
    /// progress at once.
    pub max_unfinished_games: u64,
    /// WatchGame streams one token may hold open on this replica.
    pub max_watch_streams_per_token: u32,
    /// WatchGame streams one game may have open on this replica.
    pub max_watch_streams_per_game: u32,
}

impl Default for Limits {
    /// Generous for a platform (a round of 2,000 boards is created in about
    /// 20 s; 5,000 games at once in play or waiting), tight enough that one
    /// token cannot fill the memory of a 512 MiB replica (see
    /// `SECURITY.md`).
    fn default() -> Limits {
        Limits {
            create_rate_per_s: 50.0,
            create_burst: 1_000,
            max_unfinished_games: 5_000,
            max_watch_streams_per_token: 1_000,
            max_watch_streams_per_game: 200,
        }
    }
}

/// How long a game may wait to be started before it expires, by default.
pub const DEFAULT_PENDING_GAME_TTL: Duration = Duration::from_secs(24 * 3600);

/// A duration as an operator writes it: a whole number and a unit, `ms`,
/// `s`, `m`, `h` or `d` (`24h`, `90s`, `500ms`).
///
/// # Errors
/// A sentence saying what is wrong.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 =
        number.parse().map_err(|_| format!("{text:?} is not a duration such as 24h, 90s or 500ms"))?;
    let ms_per = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(format!("{text:?}: the unit must be ms, s, m, h or d")),
    };
    let ms = n.checked_mul(ms_per).ok_or_else(|| format!("{text:?} is too long"))?;
    if ms == 0 {
        return Err("the duration must be positive".into());
    }
    Ok(Duration::from_millis(ms))
}

/// The retry delay given with `TOO_MANY_UNFINISHED_GAMES`: a game has to
/// finish (or be ended by an arbiter) first, which takes a while; asking
/// again within seconds only costs both sides.
pub const UNFINISHED_RETRY: Duration = Duration::from_secs(30);

/// The retry delay given with a watch-stream cap: a stream has to close
/// first.
pub const WATCH_RETRY: Duration = Duration::from_secs(5);

/// Buckets kept before full ones are forgotten (a full bucket is the same
/// as no bucket, so forgetting it changes nothing).
const PRUNE_AT: usize = 4_096;

/// One caller's bucket.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A token bucket per caller.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<CallerId, Bucket>>,
}

impl RateLimiter {
    /// `burst` calls at once, then `rate_per_s` a second. A rate that is not
    /// a positive number (or a zero burst) refuses every call: the
    /// configuration is checked where it is read.
    #[must_use]
    pub fn new(rate_per_s: f64, burst: u32) -> RateLimiter {
        RateLimiter { rate: rate_per_s, burst: f64::from(burst), buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one call from `caller`'s bucket at `now`; when it is empty,
    /// the time until it holds one again.
    ///
    /// # Errors
    /// The delay after which the call would be allowed.
    pub fn take(&self, caller: &CallerId, now: Instant) -> Result<(), Duration> {
        let Ok(mut buckets) = self.buckets.lock() else { return Ok(()) };
        if buckets.len() >= PRUNE_AT {
            let (rate, burst) = (self.rate, self.burst);
            buckets
                .retain(|_, b| b.tokens + rate * now.saturating_duration_since(b.at).as_secs_f64() < burst);
        }
        let bucket = buckets.entry(caller.clone()).or_insert(Bucket { tokens: self.burst, at: now });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + self.rate * elapsed).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        if self.rate <= 0.0 || !self.rate.is_finite() {
            return Err(Duration::from_secs(60));
        }
        Err(Duration::from_secs_f64(((1.0 - bucket.tokens) / self.rate).min(3_600.0)))
    }

    /// [`RateLimiter::take`] as the API's refusal.
    ///
    /// # Errors
    /// [`ApiError::ResourceExhausted`] with reason `RATE_LIMITED`.
    pub fn check(&self, caller: &CallerId, what: &str) -> Result<(), ApiError> {
        self.take(caller, Instant::now()).map_err(|retry_after| {
            metrics::counter!("arbiter_quota_refusals_total", "reason" => "RATE_LIMITED").increment(1);
            let message = format!(
                "too many {what} calls from this token (at most {} at once, then {} a second); retry in {} ms",
                self.burst,
                self.rate,
                retry_after.as_millis().max(1)
            );
            ApiError::ResourceExhausted { reason: ExhaustedReason::RateLimited, message, retry_after }
        })
    }
}

/// The WatchGame streams open on this replica, per token and per game.
#[derive(Debug)]
pub struct WatchLimits {
    per_token: u32,
    per_game: u32,
    open: Arc<Mutex<OpenStreams>>,
}

#[derive(Debug, Default)]
struct OpenStreams {
    by_token: HashMap<CallerId, u32>,
    by_game: HashMap<String, u32>,
}

/// One open stream, counted until it is dropped.
#[derive(Debug)]
pub struct WatchPermit {
    caller: CallerId,
    /// `None` for a hall stream (WatchGames), counted only for its token.
    game: Option<String>,
    open: Arc<Mutex<OpenStreams>>,
}

impl WatchLimits {
    #[must_use]
    pub fn new(per_token: u32, per_game: u32) -> WatchLimits {
        WatchLimits { per_token, per_game, open: Arc::default() }
    }

    /// Counts a new stream of `caller` on `game`, unless either is at its
    /// cap.
    ///
    /// # Errors
    /// [`ApiError::ResourceExhausted`] with reason `TOO_MANY_WATCH_STREAMS`
    /// or `TOO_MANY_GAME_WATCH_STREAMS`.
    pub fn acquire(&self, caller: &CallerId, game: &str) -> Result<WatchPermit, ApiError> {
        self.admit(caller, Some(game))
    }

    /// Counts a new WatchGames stream of `caller`: one of the token's
    /// streams, on no game in particular.
    ///
    /// # Errors
    /// [`ApiError::ResourceExhausted`] with reason `TOO_MANY_WATCH_STREAMS`.
    pub fn acquire_hall(&self, caller: &CallerId) -> Result<WatchPermit, ApiError> {
        self.admit(caller, None)
    }

    fn admit(&self, caller: &CallerId, game: Option<&str>) -> Result<WatchPermit, ApiError> {
        let mut open = self.open.lock().map_err(|_| ApiError::Internal("watch counts poisoned".into()))?;
        let by_token = open.by_token.get(caller).copied().unwrap_or(0);
        if by_token >= self.per_token {
            return Err(ApiError::ResourceExhausted {
                reason: ExhaustedReason::TooManyWatchStreamsForToken,
                message: format!(
                    "this token already has {by_token} watch streams open (at most {}); close one first",
                    self.per_token
                ),
                retry_after: WATCH_RETRY,
            });
        }
        if let Some(game) = game {
            let by_game = open.by_game.get(game).copied().unwrap_or(0);
            if by_game >= self.per_game {
                return Err(ApiError::ResourceExhausted {
                    reason: ExhaustedReason::TooManyWatchStreamsForGame,
                    message: format!(
                        "games/{game} already has {by_game} WatchGame streams open (at most {}); relay one \
                         stream to many readers instead",
                        self.per_game
                    ),
                    retry_after: WATCH_RETRY,
                });
            }
            *open.by_game.entry(game.to_owned()).or_default() += 1;
        }
        *open.by_token.entry(caller.clone()).or_default() += 1;
        Ok(WatchPermit { caller: caller.clone(), game: game.map(str::to_owned), open: self.open.clone() })
    }

    /// Streams open for `caller` (for tests and metrics).
    #[must_use]
    pub fn open_for(&self, caller: &CallerId) -> u32 {
        self.open.lock().map_or(0, |o| o.by_token.get(caller).copied().unwrap_or(0))
    }
}

impl Drop for WatchPermit {
    fn drop(&mut self) {
        let Ok(mut open) = self.open.lock() else { return };
        // Entries at zero are removed, so the maps hold only open streams.
        if let Some(n) = open.by_token.get_mut(&self.caller) {
            *n -= 1;
            if *n == 0 {
                open.by_token.remove(&self.caller);
            }
        }
        if let Some(game) = &self.game
            && let Some(n) = open.by_game.get_mut(game)
        {
            *n -= 1;
            if *n == 0 {
                open.by_game.remove(game);
            }
        }
    }
}

/// The limits in force: the creation rate limiter, the cap on unfinished
/// games and the watch counts.
#[derive(Debug)]
pub struct Quotas {
    pub limits: Limits,
    pub creations: RateLimiter,
    pub watches: WatchLimits,
}

impl Quotas {
    #[must_use]
    pub fn new(limits: Limits) -> Quotas {
        Quotas {
            limits,
            creations: RateLimiter::new(limits.create_rate_per_s, limits.create_burst),
            watches: WatchLimits::new(limits.max_watch_streams_per_token, limits.max_watch_streams_per_game),
        }
    }

    /// The refusal of a creation over the cap on unfinished games.
    #[must_use]
    pub fn too_many_unfinished(&self, open: u64) -> ApiError {
        ApiError::ResourceExhausted {
            reason: ExhaustedReason::TooManyUnfinishedGames,
            message: format!(
                "this token already has {open} games pending or in progress (at most {}); finish or cancel \
                 some first",
                self.limits.max_unfinished_games
            ),
            retry_after: UNFINISHED_RETRY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(name: &str) -> CallerId {
        CallerId::from_stored(name)
    }

    #[test]
    fn durations_read_as_operators_write_them() {
        assert_eq!(parse_duration("24h"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("15m"), Ok(Duration::from_secs(900)));
        for bad in ["", "h", "10", "10x", "-1h", "0s", "1.5h", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let limiter = RateLimiter::new(10.0, 3);
        let t0 = Instant::now();
        let a = caller("tok-a");
        for _ in 0..3 {
            assert_eq!(limiter.take(&a, t0), Ok(()));
        }
        let wait = limiter.take(&a, t0).unwrap_err();
        assert!(wait > Duration::from_millis(90) && wait <= Duration::from_millis(100), "{wait:?}");
        // Another caller has its own bucket.
        assert_eq!(limiter.take(&caller("tok-b"), t0), Ok(()));
        // After 100 ms, one more call (10 a second).
        let t1 = t0 + Duration::from_millis(100);
        assert_eq!(limiter.take(&a, t1), Ok(()));
        assert!(limiter.take(&a, t1).is_err());
        // A long pause refills to the burst, never beyond.
        let t2 = t1 + Duration::from_secs(60);
        for _ in 0..3 {
            assert_eq!(limiter.take(&a, t2), Ok(()));
        }
        assert!(limiter.take(&a, t2).is_err());
    }

    #[test]
    fn a_refusal_says_rate_limited_with_a_delay() {
        let limiter = RateLimiter::new(1.0, 1);
        let a = caller("tok-a");
        limiter.check(&a, "CreateGame").unwrap();
        let e = limiter.check(&a, "CreateGame").unwrap_err();
        assert_eq!(e.reason(), "RATE_LIMITED");
        assert_eq!(e.code(), tonic::Code::ResourceExhausted);
        let status = tonic::Status::from(e);
        use tonic_types::StatusExt;
        let details = status.get_error_details();
        let delay = details.retry_info().and_then(|r| r.retry_delay).expect("a retry delay");
        assert!(delay > Duration::from_millis(900) && delay <= Duration::from_secs(1), "{delay:?}");
        assert_eq!(details.error_info().unwrap().reason, "RATE_LIMITED");
    }

    #[test]
    fn full_buckets_are_forgotten() {
        let limiter = RateLimiter::new(1_000.0, 2);
        let t0 = Instant::now();
        for i in 0..PRUNE_AT {
            limiter.take(&caller(&format!("tok-{i}")), t0).unwrap();
        }
        // A second later every bucket is full again: the next call prunes.
        limiter.take(&caller("tok-new"), t0 + Duration::from_secs(1)).unwrap();
        assert_eq!(limiter.buckets.lock().unwrap().len(), 1);
    }

    #[test]
    fn watch_streams_are_capped_per_token_and_per_game() {
        let limits = WatchLimits::new(2, 3);
        let (a, b) = (caller("tok-a"), caller("tok-b"));
        let p1 = limits.acquire(&a, "g1").unwrap();
        let _p2 = limits.acquire(&a, "g2").unwrap();
        let e = limits.acquire(&a, "g3").unwrap_err();
        assert_eq!(e.reason(), "TOO_MANY_WATCH_STREAMS");
        let _p3 = limits.acquire(&b, "g1").unwrap();
        let _p4 = limits.acquire(&caller("tok-c"), "g1").unwrap();
        let e = limits.acquire(&caller("tok-d"), "g1").unwrap_err();
        assert_eq!(e.reason(), "TOO_MANY_GAME_WATCH_STREAMS");
        // A closed stream frees both counts.
        drop(p1);
        assert_eq!(limits.open_for(&a), 1);
        limits.acquire(&caller("tok-d"), "g1").unwrap();
        limits.acquire(&a, "g4").unwrap();
    }
}
