//! The connection gate: every TCP connection to the gRPC port and to the
//! metrics port passes through here before anything else reads from it.
//!
//! Without it, a client that opens connections and sends nothing (no
//! HTTP/2 preface, no TLS ClientHello, no HTTP request line) holds a file
//! descriptor for ever, and enough of them exhaust the process's open-file
//! limit: the accept loop then fails with EMFILE on every wake-up, and
//! legitimate calls time out. The gate therefore
//!
//! - caps the connections open at once per port (a semaphore): one over the
//!   cap is accepted and closed at once, counted in
//!   `arbiter_connections_refused_total{port,reason="over_cap"}` and logged
//!   at `warn` (at most once per [`LOG_EVERY`], with the number left out);
//! - gives each connection a deadline, counted from the accept, for its
//!   handshake: the TLS handshake (done here, not in tonic, so that one
//!   deadline covers it and what follows) and the 24 bytes of the HTTP/2
//!   connection preface. A connection that misses it is closed and counted
//!   in `arbiter_connections_closed_total{port,reason="handshake_timeout"}`.
//!   After the preface, HTTP/2 keepalive pings (configured on the server)
//!   close a peer that stops answering;
//! - closes a gRPC connection on which no call has been in flight for the
//!   idle timeout (a watch stream is in flight until it ends), counted in
//!   `arbiter_connections_closed_total{port="grpc",reason="idle_timeout"}`:
//!   a client that shakes hands and then only answers the PINGs holds no
//!   place under the cap for long. gRPC clients open a new connection on
//!   their next call;
//! - backs off when `accept` itself fails (EMFILE, ENFILE, ENOBUFS) instead
//!   of retrying at once: the failed connection stays in the kernel's
//!   backlog, and retrying in a tight loop only burns the CPU the service
//!   needs to finish the connections it has;
//! - keeps `arbiter_connections_open{port}` up to date.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Sleep;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tonic::codegen::http;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// How many connections may be open at once, and how long a new one has
/// to finish its handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once; more are closed as soon as accepted.
    pub max_connections: usize,
    /// From the accept to the end of the handshake: the TLS handshake and
    /// the HTTP/2 preface on the gRPC port, the request head on the
    /// metrics port.
    pub handshake_timeout: Duration,
}

impl ConnectionLimits {
    /// The gRPC port's defaults: 4096 connections (below the 16384 open
    /// files the systemd unit allows, with room for the database, the
    /// metrics port and the logs), 10 s to shake hands.
    pub const GRPC_DEFAULT: ConnectionLimits =
        ConnectionLimits { max_connections: 4096, handshake_timeout: Duration::from_secs(10) };

    /// The metrics port's defaults: a scraper or two and an operator's
    /// curl need a handful of connections, not thousands.
    pub const METRICS_DEFAULT: ConnectionLimits =
        ConnectionLimits { max_connections: 16, handshake_timeout: Duration::from_secs(10) };
}

/// Which listener a connection came to (the `port` label of the metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Port {
    Grpc,
    Metrics,
    /// The HTTP address (the broadcast feed).
    Http,
}

impl Port {
    fn label(self) -> &'static str {
        match self {
            Port::Grpc => "grpc",
            Port::Metrics => "metrics",
            Port::Http => "http",
        }
    }
}

/// Why a connection was closed by the gate rather than by its peer or
/// the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CloseReason {
    /// The TLS handshake and preface (or the request head) took too long.
    HandshakeTimeout,
    /// The TLS handshake failed (not TLS, an unknown CA on the client...).
    TlsHandshakeFailed,
    /// No call was in flight on the connection for the idle timeout.
    IdleTimeout,
}

impl CloseReason {
    fn label(self) -> &'static str {
        match self {
            CloseReason::HandshakeTimeout => "handshake_timeout",
            CloseReason::TlsHandshakeFailed => "tls_handshake_failed",
            CloseReason::IdleTimeout => "idle_timeout",
        }
    }
}

pub(crate) fn count_closed(port: Port, reason: CloseReason) {
    metrics::counter!("arbiter_connections_closed_total", "port" => port.label(), "reason" => reason.label())
        .increment(1);
}

/// At most one `warn` line per this interval for each kind of trouble: a
/// flood of refused connections must not become a flood of log lines.
pub(crate) const LOG_EVERY: Duration = Duration::from_secs(10);

/// Lets a log line through at most once per [`LOG_EVERY`], and counts the
/// ones held back so the next line can say how many there were.
#[derive(Debug, Default)]
struct Throttle {
    last: Mutex<Option<Instant>>,
    held_back: AtomicU64,
}

impl Throttle {
    /// `Some(lines held back since the last one)` when a line may be
    /// written now.
    fn admit(&self) -> Option<u64> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if last.is_some_and(|at| now.duration_since(at) < LOG_EVERY) {
            self.held_back.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(now);
        Some(self.held_back.swap(0, Ordering::Relaxed))
    }
}

/// The shortest and the longest pause after a failed `accept`.
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// A connection counted against its port's cap; dropping it frees the
/// place and lowers the gauge.
#[derive(Debug)]
pub(crate) struct Admission {
    port: Port,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Admission {
    fn drop(&mut self) {
        metrics::gauge!("arbiter_connections_open", "port" => self.port.label()).decrement(1.0);
    }
}

/// One listener's cap and its log throttles.
#[derive(Debug)]
pub(crate) struct Gate {
    port: Port,
    limits: ConnectionLimits,
    places: Arc<Semaphore>,
    refusals: Throttle,
    accept_errors: Throttle,
}

impl Gate {
    pub(crate) fn new(port: Port, limits: ConnectionLimits) -> Gate {
        // A cap of 0 would refuse everyone: a configuration mistake, read as 1.
        let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
        // Listed from the start (several servers in one test process share
        // the recorder, so no `set`).
        metrics::gauge!("arbiter_connections_open", "port" => port.label()).increment(0.0);
        Gate {
            port,
            limits: ConnectionLimits { max_connections: max, ..limits },
            places: Arc::new(Semaphore::new(max)),
            refusals: Throttle::default(),
            accept_errors: Throttle::default(),
        }
    }

    pub(crate) fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// The next connection under the cap. Connections over it are closed
    /// here; failures of `accept` itself pause the loop (see the module
    /// documentation).
    pub(crate) async fn accept(&self, listener: &TcpListener) -> (TcpStream, SocketAddr, Admission) {
        let mut backoff = ACCEPT_BACKOFF_MIN;
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                // The peer gave up between its SYN and our accept: nothing
                // is wrong here.
                Err(e) if peer_went_away(&e) => continue,
                Err(e) => {
                    metrics::counter!("arbiter_accept_errors_total", "port" => self.port.label())
                        .increment(1);
                    if let Some(held_back) = self.accept_errors.admit() {
                        tracing::warn!(
                            port = self.port.label(),
                            error = %e,
                            pause_ms = backoff.as_millis() as u64,
                            held_back,
                            "cannot accept connections (out of file descriptors?); pausing the accept loop"
                        );
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                    continue;
                }
            };
            backoff = ACCEPT_BACKOFF_MIN;
            match self.places.clone().try_acquire_owned() {
                Ok(permit) => {
                    metrics::gauge!("arbiter_connections_open", "port" => self.port.label()).increment(1.0);
                    return (stream, peer, Admission { port: self.port, _permit: permit });
                }
                Err(_) => {
                    metrics::counter!(
                        "arbiter_connections_refused_total",
                        "port" => self.port.label(),
                        "reason" => "over_cap"
                    )
                    .increment(1);
                    if let Some(held_back) = self.refusals.admit() {
                        tracing::warn!(
                            port = self.port.label(),
                            %peer,
                            max_connections = self.limits.max_connections,
                            held_back,
                            "connection refused: too many connections open"
                        );
                    }
                    drop(stream);
                }
            }
        }
    }
}

fn peer_went_away(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

// ---------------------------------------------------------------------------
// TLS
// ---------------------------------------------------------------------------

/// Why the TLS configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsConfigError {
    #[error("no certificate in the PEM certificate chain")]
    NoCertificate,
    #[error("cannot read the PEM certificate chain: {0}")]
    Certificate(String),
    #[error("cannot read the PEM private key: {0}")]
    PrivateKey(String),
    #[error("{0}")]
    Rustls(#[from] rustls::Error),
}

/// A TLS acceptor for a PEM certificate chain and key, offering HTTP/2
/// by ALPN (gRPC clients ask for it).
///
/// # Errors
/// [`TlsConfigError`] when the PEM files do not hold a usable chain and key.
pub fn tls_acceptor(cert_pem: &[u8], key_pem: &[u8]) -> Result<TlsAcceptor, TlsConfigError> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsConfigError::Certificate(e.to_string()))?;
    if chain.is_empty() {
        return Err(TlsConfigError::NoCertificate);
    }
    let key =
        PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsConfigError::PrivateKey(e.to_string()))?;
    // The provider named here rather than the process default: no
    // process-wide state to install, and no panic if another crate's
    // features ever enable a second provider.
    let mut config =
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

// ---------------------------------------------------------------------------
// The gRPC port
// ---------------------------------------------------------------------------

/// The bytes every HTTP/2 client sends first (RFC 9113, 3.4).
const PREFACE_LEN: usize = 24;

/// The connections to the gRPC port that passed the gate, TLS already
/// accepted, for tonic's `serve_with_incoming`. When tonic drops the stream
/// (at shutdown), the accept loop ends and closes the listener; once
/// `stopping` is cancelled, connections still in their handshake are closed
/// at once (hyper would otherwise wait for their preface to shut them down,
/// holding up the shutdown until their deadline).
pub(crate) fn grpc_incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
    idle: Idleness,
    tls: Option<TlsAcceptor>,
    stopping: CancellationToken,
) -> ReceiverStream<io::Result<Connection>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let gate = Gate::new(Port::Grpc, limits);
        loop {
            let (stream, peer, admission) = tokio::select! {
                () = tx.closed() => return,
                accepted = gate.accept(&listener) => accepted,
            };
            let deadline = tokio::time::Instant::now() + gate.limits().handshake_timeout;
            // An answer is one small write, and holding it back until the
            // client's delayed ACK arrives adds 40 ms to a call on a quiet
            // connection.
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(error = %e, "cannot set TCP_NODELAY");
            }
            let local = stream.local_addr().ok();
            let stopping = stopping.clone();
            let Some(acceptor) = tls.clone() else {
                let connection = Connection::new(
                    Transport::Plain(stream),
                    admission,
                    deadline,
                    &stopping,
                    &idle,
                    local,
                    peer,
                );
                if tx.send(Ok(connection)).await.is_err() {
                    return;
                }
                continue;
            };
            // Handshakes run beside the accept loop: a slow one must not
            // hold up the others.
            let tx = tx.clone();
            let idle = idle.clone();
            tokio::spawn(async move {
                let handshake = tokio::select! {
                    () = stopping.cancelled() => return,
                    handshake = tokio::time::timeout_at(deadline, acceptor.accept(stream)) => handshake,
                };
                match handshake {
                    Ok(Ok(tls)) => {
                        let transport = Transport::Tls(Box::new(tls));
                        let connection =
                            Connection::new(transport, admission, deadline, &stopping, &idle, local, peer);
                        let _ = tx.send(Ok(connection)).await;
                    }
                    Ok(Err(e)) => {
                        count_closed(Port::Grpc, CloseReason::TlsHandshakeFailed);
                        tracing::debug!(%peer, error = %e, "TLS handshake failed");
                    }
                    Err(_) => {
                        count_closed(Port::Grpc, CloseReason::HandshakeTimeout);
                        tracing::debug!(%peer, "TLS handshake not finished in time: connection closed");
                    }
                }
            });
        }
    });
    ReceiverStream::new(rx)
}

/// A plain or TLS stream.
#[derive(Debug)]
pub(crate) enum Transport {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

/// An admitted connection to the gRPC port: it fails its reads once the
/// handshake deadline passes before the HTTP/2 preface is in, which makes
/// hyper drop it (and with it the socket and the place under the cap).
#[derive(Debug)]
pub(crate) struct Connection {
    transport: Transport,
    /// Until the preface is in: the bytes of it still to come.
    handshake: Option<Handshake>,
    local: Option<SocketAddr>,
    peer: SocketAddr,
    /// Watches for the idle timeout once the handshake is over.
    idle: Option<IdleWatch>,
    _admission: Admission,
}

/// When to close connections without calls, and the calls of each.
#[derive(Clone, Debug)]
pub(crate) struct Idleness {
    pub(crate) timeout: Duration,
    pub(crate) calls: Arc<Calls>,
}

/// One connection's idle timer.
#[derive(Debug)]
struct IdleWatch {
    idleness: Idleness,
    activity: Arc<Activity>,
    local: Option<SocketAddr>,
    peer: SocketAddr,
    timer: Pin<Box<Sleep>>,
}

impl Drop for IdleWatch {
    fn drop(&mut self) {
        self.idleness.calls.forget(self.local, self.peer, &self.activity);
    }
}

/// A connection's handshake in progress.
#[derive(Debug)]
struct Handshake {
    missing: usize,
    deadline: Pin<Box<Sleep>>,
    stopping: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl Connection {
    fn new(
        transport: Transport,
        admission: Admission,
        deadline: tokio::time::Instant,
        stopping: &CancellationToken,
        idleness: &Idleness,
        local: Option<SocketAddr>,
        peer: SocketAddr,
    ) -> Connection {
        let handshake = Handshake {
            missing: PREFACE_LEN,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            stopping: Box::pin(stopping.clone().cancelled_owned()),
        };
        let idle = IdleWatch {
            idleness: idleness.clone(),
            activity: idleness.calls.register(local, peer),
            local,
            peer,
            timer: Box::pin(tokio::time::sleep(idleness.timeout)),
        };
        Connection {
            transport,
            handshake: Some(handshake),
            local,
            peer,
            idle: Some(idle),
            _admission: admission,
        }
    }
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        TcpConnectInfo { local_addr: self.local, remote_addr: Some(self.peer) }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(handshake) = &mut this.handshake {
            if handshake.deadline.as_mut().poll(cx).is_ready() {
                count_closed(Port::Grpc, CloseReason::HandshakeTimeout);
                tracing::debug!(peer = %this.peer, "no HTTP/2 preface in time: connection closed");
                // Once: hyper drops the connection on this error.
                this.handshake = None;
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the HTTP/2 preface did not arrive within the handshake timeout",
                )));
            }
            if handshake.stopping.as_mut().poll(cx).is_ready() {
                this.handshake = None;
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "the server is shutting down",
                )));
            }
        }
        // Hyper reads all the time a connection is open, so this timer is
        // polled (and its waker registered) whenever the connection waits.
        if this.handshake.is_none()
            && let Some(idle) = &mut this.idle
        {
            while idle.timer.as_mut().poll(cx).is_ready() {
                match idle.idleness.calls.idle_deadline(&idle.activity, idle.idleness.timeout) {
                    Some(next) => idle.timer.as_mut().reset(next),
                    None => {
                        count_closed(Port::Grpc, CloseReason::IdleTimeout);
                        tracing::debug!(peer = %this.peer, "no call for the idle timeout: connection closed");
                        this.idle = None;
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "no call on this connection within the idle timeout",
                        )));
                    }
                }
            }
        }
        let before = buf.filled().len();
        let read = match &mut this.transport {
            Transport::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        };
        ready!(read)?;
        if let Some(handshake) = &mut this.handshake {
            let got = buf.filled().len() - before;
            if got >= handshake.missing {
                this.handshake = None;
            } else {
                handshake.missing -= got;
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Connection {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.transport {
            Transport::Plain(s) => Pin::new(s).poll_write(cx, data),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, data),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.transport {
            Transport::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.transport {
            Transport::Plain(s) => s.is_write_vectored(),
            Transport::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.transport {
            Transport::Plain(s) => Pin::new(s).poll_flush(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.transport {
            Transport::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

// ---------------------------------------------------------------------------
// Connections with nothing to do
// ---------------------------------------------------------------------------

/// What one connection to the gRPC port is doing: the calls in flight on
/// it (a watch stream is in flight until it ends), and when the last one
/// ended. A connection with no call in flight for the idle timeout is
/// closed: otherwise a client that finishes its handshake and then only
/// answers the keepalive PINGs would hold its place under the cap for ever.
#[derive(Debug)]
pub(crate) struct Activity {
    in_flight: AtomicU64,
    /// Milliseconds since [`Calls::epoch`] at which the last call ended (or
    /// the connection was admitted).
    last_ms: AtomicU64,
}

/// The two ends of a TCP connection (the local one as tonic saw it, if it
/// did, and the peer): they name the connection while it is open.
type Ends = (Option<SocketAddr>, SocketAddr);

/// The activity of every connection open on one gRPC listener, found by
/// its addresses (the two ends name a TCP connection while it is open).
#[derive(Debug)]
pub(crate) struct Calls {
    epoch: Instant,
    open: Mutex<HashMap<Ends, Arc<Activity>>>,
}

impl Calls {
    pub(crate) fn new() -> Arc<Calls> {
        Arc::new(Calls { epoch: Instant::now(), open: Mutex::new(HashMap::new()) })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A new connection's activity, until [`Calls::forget`].
    fn register(&self, local: Option<SocketAddr>, peer: SocketAddr) -> Arc<Activity> {
        let activity =
            Arc::new(Activity { in_flight: AtomicU64::new(0), last_ms: AtomicU64::new(self.now_ms()) });
        self.open.lock().unwrap_or_else(PoisonError::into_inner).insert((local, peer), activity.clone());
        activity
    }

    fn forget(&self, local: Option<SocketAddr>, peer: SocketAddr, activity: &Arc<Activity>) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        // The same two addresses may already name a newer connection.
        if open.get(&(local, peer)).is_some_and(|a| Arc::ptr_eq(a, activity)) {
            open.remove(&(local, peer));
        }
    }

    /// Counts a call on the connection it came on, until the guard is
    /// dropped (when its answer, a stream's included, is finished).
    pub(crate) fn begin(self: &Arc<Calls>, info: Option<&TcpConnectInfo>) -> Option<CallGuard> {
        let info = info?;
        let peer = info.remote_addr?;
        let activity =
            self.open.lock().unwrap_or_else(PoisonError::into_inner).get(&(info.local_addr, peer))?.clone();
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        Some(CallGuard { calls: self.clone(), activity })
    }

    /// When `activity`'s connection becomes idle for `timeout`: `None` if
    /// it is already (close it), else the instant to look again.
    fn idle_deadline(&self, activity: &Activity, timeout: Duration) -> Option<tokio::time::Instant> {
        let now = tokio::time::Instant::now();
        if activity.in_flight.load(Ordering::Acquire) > 0 {
            return Some(now + timeout);
        }
        let idle_for =
            Duration::from_millis(self.now_ms().saturating_sub(activity.last_ms.load(Ordering::Acquire)));
        timeout.checked_sub(idle_for).filter(|left| !left.is_zero()).map(|left| now + left)
    }
}

/// One call in flight (see [`Calls::begin`]).
#[derive(Debug)]
pub(crate) struct CallGuard {
    calls: Arc<Calls>,
    activity: Arc<Activity>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.activity.last_ms.store(self.calls.now_ms(), Ordering::Release);
        self.activity.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts each call on the connection it came on (see [`Calls`]), until
/// its answer is finished: the answer's body carries the guard.
#[derive(Clone, Debug)]
pub(crate) struct CountCallsLayer {
    calls: Arc<Calls>,
}

impl CountCallsLayer {
    pub(crate) fn new(calls: Arc<Calls>) -> CountCallsLayer {
        CountCallsLayer { calls }
    }
}

impl<S> tower::Layer<S> for CountCallsLayer {
    type Service = CountCalls<S>;

    fn layer(&self, inner: S) -> CountCalls<S> {
        CountCalls { inner, calls: self.calls.clone() }
    }
}

/// The service of [`CountCallsLayer`].
#[derive(Clone, Debug)]
pub(crate) struct CountCalls<S> {
    inner: S,
    calls: Arc<Calls>,
}

impl<S, Req, ResBody> tower::Service<http::Request<Req>> for CountCalls<S>
where
    S: tower::Service<http::Request<Req>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Counted<ResBody>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Req>) -> Self::Future {
        let guard = self.calls.begin(request.extensions().get::<TcpConnectInfo>());
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| Counted { body, _guard: guard }))
        })
    }
}

/// An answer's body and the guard that counts its call as in flight.
#[derive(Debug)]
pub(crate) struct Counted<B> {
    body: B,
    _guard: Option<CallGuard>,
}

impl<B: http_body::Body + Unpin> http_body::Body for Counted<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

// ---------------------------------------------------------------------------
// The open-file limit
// ---------------------------------------------------------------------------

/// File descriptors the process needs besides client connections: the
/// database (SQLite's file, journal and WAL, or a PostgreSQL pool), the
/// listeners, the logs, the runtime's own.
pub(crate) const RESERVED_FILES: usize = 64;

/// The soft open-file limit (`ulimit -n`, systemd's `LimitNOFILE`), where
/// the system tells it (`/proc/self/limits` on Linux).
pub(crate) fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_open_file_limit(&limits)
}

fn parse_open_file_limit(limits: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.trim_start_matches("Max open files").split_whitespace().next()?;
    if soft == "unlimited" { Some(usize::MAX) } else { soft.parse().ok() }
}

/// The caps actually applied: `configured` (both ports together) must fit
/// under the open-file limit with [`RESERVED_FILES`] to spare, or the
/// process would run out of descriptors before the cap refuses anyone, and
/// then fail everything that opens a file (the database among them). The
/// gRPC cap gives way; `None` when nothing needs to change.
pub(crate) fn fit_under(limit: Option<usize>, grpc: usize, metrics: usize) -> Option<usize> {
    let limit = limit?;
    let room = limit.saturating_sub(RESERVED_FILES + metrics);
    (grpc > room).then_some(room.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_open_file_limit_is_read_from_proc_limits() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max cpu time              unlimited            unlimited            seconds   \n\
                    Max open files            1024                 524288               files     \n";
        assert_eq!(parse_open_file_limit(text), Some(1024));
        let unlimited = "Max open files            unlimited            unlimited            files\n";
        assert_eq!(parse_open_file_limit(unlimited), Some(usize::MAX));
        assert_eq!(parse_open_file_limit("Max processes 10 10 processes\n"), None);
        #[cfg(target_os = "linux")]
        assert!(open_file_limit().is_some_and(|n| n > 0));
    }

    #[test]
    fn the_cap_gives_way_to_the_open_file_limit() {
        assert_eq!(fit_under(Some(1024), 4096, 16), Some(1024 - 64 - 16));
        assert_eq!(fit_under(Some(16384), 4096, 16), None);
        assert_eq!(fit_under(None, 4096, 16), None);
        assert_eq!(fit_under(Some(usize::MAX), 4096, 16), None);
        assert_eq!(fit_under(Some(50), 4096, 16), Some(1));
    }

    #[test]
    fn the_throttle_lets_one_line_through_and_counts_the_rest() {
        let throttle = Throttle::default();
        assert_eq!(throttle.admit(), Some(0));
        assert_eq!(throttle.admit(), None);
        assert_eq!(throttle.admit(), None);
        *throttle.last.lock().unwrap() = Some(Instant::now() - LOG_EVERY);
        assert_eq!(throttle.admit(), Some(2));
        assert_eq!(throttle.admit(), None);
    }

    #[tokio::test]
    async fn the_gate_refuses_over_the_cap_and_frees_places() {
        use tokio::io::AsyncReadExt as _;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let gate = Gate::new(
            Port::Metrics,
            ConnectionLimits { max_connections: 2, ..ConnectionLimits::METRICS_DEFAULT },
        );
        let mut clients = Vec::new();
        for _ in 0..3 {
            clients.push(TcpStream::connect(addr).await.unwrap());
        }
        let (_a, _, first) = gate.accept(&listener).await;
        let (_b, _, _second) = gate.accept(&listener).await;
        // The third is over the cap: closed at once (the client reads EOF),
        // and the gate waits for the next one.
        let mut waiting = Box::pin(gate.accept(&listener));
        tokio::select! {
            _ = &mut waiting => panic!("a third connection was admitted under a cap of 2"),
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(2), clients[2].read(&mut byte)).await;
        assert!(matches!(read, Ok(Ok(0) | Err(_))), "the refused connection was not closed: {read:?}");
        // A freed place admits the next connection.
        drop(first);
        let _d = TcpStream::connect(addr).await.unwrap();
        let admitted = tokio::time::timeout(Duration::from_secs(2), waiting).await;
        assert!(admitted.is_ok(), "a freed place did not admit the next connection");
    }
}
