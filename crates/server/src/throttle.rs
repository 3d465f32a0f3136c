//! Throttling of failed authentications, per peer address.
//!
//! Every peer (an IPv4 address, or the /64 of an IPv6 address, which one
//! host usually owns whole) has a bucket of failures: `burst` to start
//! with, refilled at `per_second`. Each `UNAUTHENTICATED` answer takes one.
//! While the bucket is empty, every request of that peer is refused with
//! `RESOURCE_EXHAUSTED` (reason `AUTHENTICATION_THROTTLED`, with a
//! `RetryInfo`) before its token is looked at: a flood of made-up tokens
//! then costs neither a database read nor a hash. Callers that never fail
//! never notice; one that shares an address with a flooder (a NAT) waits
//! with it.
//!
//! The layer wraps the API service only (health and reflection need no
//! token) and tells failures by the `grpc-status` of the answer, so the
//! handlers need not know about it.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tonic::Status;
use tonic::codegen::http;
use tonic::server::NamedService;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};

use crate::error::ApiError;

/// How many failed authentications a peer may make.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrottlePolicy {
    /// Failures a peer may make at once.
    pub burst: u32,
    /// Failures a peer is allowed again per second.
    pub per_second: f64,
}

impl Default for ThrottlePolicy {
    /// 100 failures, then 10 a second: far above any honest client's
    /// mistakes, far below the thousands a second a flood sends.
    fn default() -> ThrottlePolicy {
        ThrottlePolicy { burst: 100, per_second: 10.0 }
    }
}

/// Most peers tracked at once; beyond it the peers whose bucket is full
/// again are forgotten (they would start full anyway).
const MAX_PEERS: usize = 10_000;

#[derive(Clone, Copy, Debug)]
struct Bucket {
    left: f64,
    at: Instant,
}

/// The failure buckets of every peer.
#[derive(Debug)]
pub struct FailureThrottle {
    /// `None`: throttling is off.
    policy: Option<ThrottlePolicy>,
    peers: Mutex<HashMap<IpAddr, Bucket>>,
}

/// The address a peer is throttled by: IPv4 as is, IPv6 by its /64.
fn peer_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

impl FailureThrottle {
    /// A throttle with `policy` (`None`: off, nothing is ever refused).
    pub fn new(policy: Option<ThrottlePolicy>) -> FailureThrottle {
        FailureThrottle { policy, peers: Mutex::new(HashMap::new()) }
    }

    fn refilled(policy: ThrottlePolicy, bucket: Bucket, now: Instant) -> f64 {
        let burst = f64::from(policy.burst);
        (bucket.left + now.duration_since(bucket.at).as_secs_f64() * policy.per_second).min(burst)
    }

    /// `Some(wait)` if `peer` has spent its failures: how long until it
    /// may try again.
    pub fn refused(&self, peer: IpAddr, now: Instant) -> Option<Duration> {
        let policy = self.policy?;
        let peers = self.peers.lock().ok()?;
        let bucket = *peers.get(&peer_key(peer))?;
        let left = Self::refilled(policy, bucket, now);
        (left < 1.0).then(|| {
            let rate = policy.per_second.max(1e-3);
            Duration::from_secs_f64(((1.0 - left) / rate).min(3600.0)).max(Duration::from_millis(1))
        })
    }

    /// Records a failed authentication by `peer`.
    pub fn failed(&self, peer: IpAddr, now: Instant) {
        let Some(policy) = self.policy else { return };
        let Ok(mut peers) = self.peers.lock() else { return };
        let key = peer_key(peer);
        let burst = f64::from(policy.burst);
        if !peers.contains_key(&key) && peers.len() >= MAX_PEERS {
            peers.retain(|_, b| Self::refilled(policy, *b, now) < burst);
            if peers.len() >= MAX_PEERS {
                // Every tracked peer is failing: forget the oldest half
                // rather than grow without bound.
                let mut ages: Vec<Instant> = peers.values().map(|b| b.at).collect();
                ages.sort_unstable();
                let cut = ages[ages.len() / 2];
                peers.retain(|_, b| b.at > cut);
            }
        }
        let bucket = peers.entry(key).or_insert(Bucket { left: burst, at: now });
        let left = Self::refilled(policy, *bucket, now);
        *bucket = Bucket { left: (left - 1.0).max(0.0), at: now };
    }
}

/// The remote address of a request, as the transport recorded it.
fn peer_of<B>(request: &http::Request<B>) -> Option<IpAddr> {
    let ext = request.extensions();
    ext.get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| ext.get::<TlsConnectInfo<TcpConnectInfo>>().and_then(|i| i.get_ref().remote_addr()))
        .map(|a| a.ip())
}

/// `service` with failed authentications throttled by `throttle`.
pub fn throttled<S>(service: S, throttle: Arc<FailureThrottle>) -> Throttled<S> {
    Throttled { inner: service, throttle }
}

/// A gRPC service whose callers are throttled after failed
/// authentications (see the module documentation).
#[derive(Clone, Debug)]
pub struct Throttled<S> {
    inner: S,
    throttle: Arc<FailureThrottle>,
}

impl<S: NamedService> NamedService for Throttled<S> {
    const NAME: &'static str = S::NAME;
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for Throttled<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let peer = peer_of(&request);
        if let Some(ip) = peer
            && let Some(retry_after) = self.throttle.refused(ip, Instant::now())
        {
            let status = Status::from(ApiError::AuthThrottled { retry_after });
            return Box::pin(async move { Ok(status.into_http()) });
        }
        let answer = self.inner.call(request);
        let throttle = self.throttle.clone();
        Box::pin(async move {
            let response = answer.await?;
            // A failed authentication is answered at once, so its status
            // is in the headers (a trailers-only answer).
            let unauthenticated = response.headers().get("grpc-status").is_some_and(|code| {
                code.as_bytes() == (tonic::Code::Unauthenticated as i32).to_string().as_bytes()
            });
            if unauthenticated && let Some(ip) = peer {
                throttle.failed(ip, Instant::now());
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_refused_after_its_burst_then_allowed_again() {
        let throttle = FailureThrottle::new(Some(ThrottlePolicy { burst: 3, per_second: 2.0 }));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(throttle.refused(a, t0), None);
            throttle.failed(a, t0);
        }
        let wait = throttle.refused(a, t0).expect("refused after 3 failures");
        assert!(wait <= Duration::from_millis(500) && wait > Duration::ZERO, "{wait:?}");
        assert_eq!(throttle.refused(b, t0), None, "other peers are not affected");
        // Half a second refills one failure at 2 a second.
        assert_eq!(throttle.refused(a, t0 + Duration::from_millis(500)), None);
        throttle.failed(a, t0 + Duration::from_millis(500));
        assert!(throttle.refused(a, t0 + Duration::from_millis(500)).is_some());
    }

    #[test]
    fn an_ipv6_host_is_throttled_by_its_prefix() {
        let throttle = FailureThrottle::new(Some(ThrottlePolicy { burst: 1, per_second: 1.0 }));
        let t0 = Instant::now();
        throttle.failed("2001:db8:1:2::1".parse().unwrap(), t0);
        assert!(throttle.refused("2001:db8:1:2::ffff".parse().unwrap(), t0).is_some());
        assert!(throttle.refused("2001:db8:1:3::1".parse().unwrap(), t0).is_none());
    }

    #[test]
    fn the_table_of_peers_stays_bounded() {
        let throttle = FailureThrottle::new(Some(ThrottlePolicy { burst: 1, per_second: 0.001 }));
        let t0 = Instant::now();
        for i in 0..(MAX_PEERS as u32 + 10) {
            throttle.failed(IpAddr::V4(i.into()), t0 + Duration::from_micros(u64::from(i)));
        }
        assert!(throttle.peers.lock().unwrap().len() <= MAX_PEERS);
    }

    #[test]
    fn an_absent_policy_never_refuses() {
        let throttle = FailureThrottle::new(None);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..1000 {
            throttle.failed(ip, Instant::now());
        }
        assert_eq!(throttle.refused(ip, Instant::now()), None);
    }
}
