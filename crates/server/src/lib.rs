//! # arbiter-server
//!
//! The Arbiter gRPC service: games under the FIDE Laws of Chess, with a
//! durable event log, bearer-token auth, live clocks that rule on flags on
//! their own, health, reflection and Prometheus metrics.
//!
//! The binary `arbiterd` is a thin wrapper around [`run`], which takes a
//! bound listener and a shutdown future, so tests bind `127.0.0.1:0` and
//! stop the server when they are done.

pub mod api;
pub mod auth;
pub mod board;
pub mod broadcast;
pub mod connections;
pub mod error;
pub mod event_log;
mod gateway;
pub mod hall;
mod http;
pub mod keys;
pub mod pgn;
pub mod quota;
pub mod request;
pub mod service;
pub mod store;
pub mod table;
mod telemetry;
pub mod throttle;
pub mod timers;
pub mod tournament;
pub mod traces;
pub mod view;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arbiter_proto::v1::arbiter_service_server::ArbiterServiceServer;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::Server;

use crate::auth::{Authority, Role};
use crate::hall::Hall;
use crate::keys::{KeyError, KeyRing, LEGACY_KEY_ID};
use crate::service::Arbiter;
use crate::store::{EventStore, Storage};

pub use crate::connections::ConnectionLimits;
pub use crate::telemetry::{metrics_text, serve_metrics};

/// How the service runs. [`Config::new`] gives the defaults for a database.
#[derive(Clone, Debug)]
pub struct Config {
    /// `sqlite://path` (created if missing) or `postgres://...`.
    pub database_url: String,
    /// Serve TLS with this PEM certificate chain and key.
    pub tls: Option<TlsFiles>,
    /// Role tokens from the configuration (never stored).
    pub tokens: Vec<(Role, String)>,
    /// WatchGame heartbeat interval.
    pub heartbeat: Duration,
    /// Largest request accepted, in bytes.
    pub max_request_bytes: usize,
    /// Concurrent HTTP/2 streams per connection.
    pub max_streams_per_connection: u32,
    /// The limits per token (creation rate, unfinished games, watch
    /// streams); see [`quota`].
    pub limits: quota::Limits,
    /// A game not started this long after its creation expires (status
    /// EXPIRED, a `WITHDRAW` event in its log).
    pub pending_game_ttl: Duration,
    /// The player-token key file (see [`keys`]). `None`: `<database>.keys`
    /// beside an embedded database, created on first start; a PostgreSQL
    /// database needs one given (the same file on every replica).
    pub player_token_key_file: Option<PathBuf>,
    /// Throttling of failed authentications per peer address; `None`: off.
    pub auth_throttle: Option<throttle::ThrottlePolicy>,
    /// Connections open at once, and the time a new one has to finish its
    /// TLS handshake and send the HTTP/2 preface (see [`connections`]).
    pub connections: ConnectionLimits,
    /// An HTTP/2 PING is sent on a connection quiet for this long...
    pub http2_keepalive_interval: Duration,
    /// ...and the connection is closed if the PING is not answered within
    /// this.
    pub http2_keepalive_timeout: Duration,
    /// A gRPC connection with no call in flight for this long is closed
    /// (see [`connections`]); clients reconnect on their next call.
    pub idle_connection_timeout: Duration,
    /// Connections open at once on the HTTP address (the broadcast feed).
    pub http_max_connections: usize,
    /// How often the rounds of events with a broadcast push URL are pushed
    /// (when their PGN changed).
    pub broadcast_push_interval: Duration,
    /// A span per gRPC request, named by its method and joined to the
    /// caller's W3C trace context ([`traces::request_span`]), for an
    /// OpenTelemetry export (`arbiterd --otlp-endpoint`).
    pub trace_requests: bool,
    /// Where the other replicas of a shared database reach this one's gRPC
    /// service, to forward the acts on the games it runs
    /// (`http://host:port`, `https://...` with TLS). `None`: the listening
    /// address, with the machine's host name when it listens on every
    /// interface.
    pub advertise_url: Option<String>,
    /// How the other replicas' TLS certificates are checked when acts are
    /// forwarded to them over `https://`.
    pub peer_tls: PeerTls,
}

/// How a replica checks the others' certificates when it forwards acts to
/// them (see `service/forward.rs`).
#[derive(Clone, Debug, Default)]
pub struct PeerTls {
    /// The CA certificate (PEM) that signs them; `None`: the system's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// The name they are checked against; `None`: the host of each
    /// replica's advertised URL.
    pub name: Option<String>,
}

/// Where the service answers.
#[derive(Debug)]
pub struct Listeners {
    /// The gRPC API.
    pub grpc: TcpListener,
    /// HTTP: the broadcast feed (see [`broadcast`]); `None`: not served.
    pub http: Option<TcpListener>,
}

/// How long a gRPC connection may go without a call: long enough that a
/// platform's backend calling every few minutes keeps its connection, short
/// enough that connections opened and left alone free their place.
pub const DEFAULT_IDLE_CONNECTION_TIMEOUT: Duration = Duration::from_secs(300);

/// A certificate chain and its private key, PEM.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl Config {
    pub fn new(database_url: impl Into<String>) -> Config {
        Config {
            database_url: database_url.into(),
            tls: None,
            tokens: Vec::new(),
            heartbeat: Duration::from_secs(5),
            max_request_bytes: 64 * 1024,
            max_streams_per_connection: 1024,
            limits: quota::Limits::default(),
            pending_game_ttl: quota::DEFAULT_PENDING_GAME_TTL,
            player_token_key_file: None,
            auth_throttle: Some(throttle::ThrottlePolicy::default()),
            connections: ConnectionLimits::GRPC_DEFAULT,
            http2_keepalive_interval: Duration::from_secs(30),
            http2_keepalive_timeout: Duration::from_secs(20),
            idle_connection_timeout: DEFAULT_IDLE_CONNECTION_TIMEOUT,
            http_max_connections: 256,
            broadcast_push_interval: Duration::from_secs(10),
            trace_requests: false,
            advertise_url: None,
            peer_tls: PeerTls::default(),
        }
    }
}

/// Why the service could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("storage: {0}")]
    Storage(#[from] store::StoreError),
    #[error("TLS: {0}")]
    Tls(#[from] connections::TlsConfigError),
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("reflection: {0}")]
    Reflection(String),
    #[error("player-token keys: {0}")]
    Keys(#[from] KeyError),
    #[error("{0}")]
    WeakToken(String),
}

/// A replica whose heartbeat is older than this is taken for dead.
const REPLICA_TIMEOUT_MS: i64 = 5_000;

/// How often a replica records that it is alive. After a crash, the thinking
/// time between the last heartbeat and the crash is given back to the player
/// on move (the outage is counted from the last heartbeat), so this bounds
/// that gift; four small writes a second cost nothing next to the moves.
const HEARTBEAT_INTERVAL: Duration = Duration::from_millis(250);

/// How long a replica's heartbeat keeps its lease on the games it runs
/// (issue 18, point 3): five heartbeats. A replica that dies loses its
/// games this long after its last heartbeat at most; the survivors look
/// every [`TAKE_OVER_INTERVAL`], so its games run again within 2 s.
pub const LEASE: Duration = Duration::from_millis(1250);

/// How often a replica on a shared database looks for games whose owner's
/// lease ran out.
const TAKE_OVER_INTERVAL: Duration = Duration::from_millis(250);

/// Where the other replicas reach this one: `configured`, or the listening
/// address (the host name in place of an address that means every
/// interface).
fn advertise_url(configured: Option<&str>, listener: &TcpListener, tls: bool) -> String {
    if let Some(url) = configured {
        return url.trim_end_matches('/').to_owned();
    }
    let scheme = if tls { "https" } else { "http" };
    let Ok(local) = listener.local_addr() else { return format!("{scheme}://localhost") };
    let host = if local.ip().is_unspecified() {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "localhost".to_owned())
    } else {
        match local.ip() {
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            ip @ std::net::IpAddr::V4(_) => ip.to_string(),
        }
    };
    format!("{scheme}://{host}:{}", local.port())
}

/// What a replica does besides serving: a heartbeat every 250 ms (the last
/// one tells the next start how long the service was down), and on a shared
/// database, passing other replicas' appends on to the loaded tables (so
/// reads and watch streams here see them).
async fn replica_duties(
    store: Storage,
    hall: Arc<Hall>,
    replica: String,
    shared: bool,
    stop: CancellationToken,
) {
    // Alone on an embedded database, nobody else appends: no need to listen.
    let mut appended = store.subscribe();
    let mut listening = shared;
    let mut beat = tokio::time::interval(HEARTBEAT_INTERVAL);
    let mut sweep = tokio::time::interval(TAKE_OVER_INTERVAL);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut sweeping: Option<tokio::task::JoinHandle<()>> = None;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = beat.tick() => {
                if let Err(e) = store.heartbeat(&replica, table::wall_ms()).await {
                    tracing::warn!(error = %e, "heartbeat failed");
                }
            }
            // The games of a replica whose lease ran out (it died, or lost
            // the database) are taken over by the survivors, who arm their
            // timers, so that every flag is still ruled.
            _ = sweep.tick(), if shared => {
                // One look at a time: taking many games over can outlast
                // the interval.
                if sweeping.as_ref().is_none_or(tokio::task::JoinHandle::is_finished) {
                    let hall = hall.clone();
                    sweeping = Some(tokio::spawn(async move {
                        if let Err(e) = hall.take_over_dead().await {
                            tracing::warn!(error = %e, "cannot take over the games of dead replicas");
                        }
                    }));
                }
            }
            received = appended.recv(), if listening => match received {
                Ok((game, _)) if game == crate::store::RESYNC => hall.notify_all().await,
                // A game not loaded here has its deadline armed by the
                // next sweep.
                Ok((game, seq)) => {
                    hall.notify(&game, seq).await;
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => hall.notify_all().await,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => listening = false,
            },
        }
    }
}

/// Games expired per pass of [`expire_pending_games`]; a larger backlog
/// takes the next passes.
const EXPIRE_BATCH: u32 = 200;

/// Expires the pending games older than `ttl`, in passes a quarter of the
/// TTL apart (at least 100 ms, at most a minute), so a game expires at most
/// a quarter of its TTL late. Every replica runs it (see
/// [`Hall::expire_pending`]).
async fn expire_pending_games(hall: Arc<Hall>, ttl: Duration, stop: CancellationToken) {
    let every = (ttl / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
    let mut pass = tokio::time::interval(every);
    pass.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = pass.tick() => match hall.expire_pending(ttl, EXPIRE_BATCH).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(games = n, "pending games expired"),
                Err(e) => tracing::warn!(error = %e, "cannot expire pending games"),
            },
        }
    }
}

/// Opens storage. A new embedded database file is created with mode 0600
/// (its `-wal` and `-shm` follow it), and an existing one is narrowed to
/// 0600: it holds the hashes of the role tokens and every game.
///
/// # Errors
/// [`ServerError::Storage`], or [`ServerError::Keys`] if the database file
/// cannot be made private.
pub async fn open_storage(url: &str) -> Result<Storage, ServerError> {
    if let Some(file) = keys::sqlite_file(url) {
        keys::private_database(&file)?;
    }
    Ok(Storage::open(url).await?)
}

/// The `meta` key under which releases before key files kept the
/// player-token key, in clear.
const LEGACY_META_KEY: &str = "player_token_key";

/// The player-token keys of `store`: read from `key_file` (by default
/// `<database>.keys` beside an embedded database).
///
/// The first start of an embedded database creates the key file (0600,
/// `O_EXCL`). A database of an earlier release keeps its key in the
/// database: that key is moved into the key file (as key
/// [`LEGACY_KEY_ID`], so the tokens already given out keep working) and
/// then deleted from the database, and the log says so. A PostgreSQL
/// database is shared by replicas that must all hold the same keys, so it
/// never gets a key file made up by one of them: it needs one given (see
/// `arbiterd key generate` and `arbiterd key migrate`).
///
/// # Errors
/// [`ServerError::Keys`] for a missing, unreadable or malformed key file;
/// [`ServerError::Storage`].
pub async fn player_token_keys(
    store: &Storage,
    database_url: &str,
    key_file: Option<&Path>,
) -> Result<KeyRing, ServerError> {
    load_keys(store, database_url, key_file, false).await
}

/// `arbiterd key migrate`: moves the key an earlier release kept in the
/// database into `key_file` (created, or added to as key
/// [`LEGACY_KEY_ID`]), then deletes it from the database; also for a
/// PostgreSQL database. Returns the keys, or `None` if the database holds
/// no key.
///
/// # Errors
/// As [`player_token_keys`].
pub async fn migrate_legacy_key(
    store: &Storage,
    database_url: &str,
    key_file: &Path,
) -> Result<Option<KeyRing>, ServerError> {
    if store.meta_get(LEGACY_META_KEY).await?.is_none() {
        return Ok(None);
    }
    load_keys(store, database_url, Some(key_file), true).await.map(Some)
}

async fn load_keys(
    store: &Storage,
    database_url: &str,
    key_file: Option<&Path>,
    may_create_shared: bool,
) -> Result<KeyRing, ServerError> {
    let legacy = store.meta_get(LEGACY_META_KEY).await?;
    let legacy_ring = |hex: &str| {
        crate::auth::from_hex(hex)
            .map(|secret| KeyRing::single(LEGACY_KEY_ID, secret))
            .ok_or_else(|| KeyError::Refused(format!("meta.{LEGACY_META_KEY} is not hex")))
    };
    let shared = matches!(store, Storage::Postgres(_));
    let default = keys::default_key_file(database_url);
    let Some(path) = key_file.or(default.as_deref()) else {
        if shared {
            return Err(KeyError::Refused(missing_key_file_help(legacy.is_some())).into());
        }
        // An in-memory database lives as long as the process; so does its key.
        return Ok(match legacy {
            Some(hex) => legacy_ring(&hex)?,
            None => KeyRing::generate(),
        });
    };
    let exists = std::fs::symlink_metadata(path).is_ok();
    if !exists && shared && !may_create_shared {
        return Err(KeyError::Refused(format!(
            "{} does not exist. {}",
            path.display(),
            missing_key_file_help(legacy.is_some())
        ))
        .into());
    }
    let mut ring;
    if exists {
        ring = KeyRing::load(path)?;
        if let Some(hex) = &legacy {
            let old = legacy_ring(hex)?;
            match ring.get(LEGACY_KEY_ID) {
                Some(k) if k.secret == old.signing().secret => {}
                Some(_) => {
                    return Err(KeyError::Refused(format!(
                        "{} has a key `{LEGACY_KEY_ID}` that differs from the key in the database \
                         (meta.{LEGACY_META_KEY}); keep the right one",
                        path.display()
                    ))
                    .into());
                }
                None => {
                    // Put it first: it verifies the tokens already given out,
                    // and the key that signs stays the last one.
                    let mut merged = old;
                    for id in ring.ids() {
                        if let Some(k) = ring.get(id) {
                            merged.push(k.clone())?;
                        }
                    }
                    merged.save(path)?;
                    ring = merged;
                }
            }
        }
    } else {
        ring = match &legacy {
            Some(hex) => legacy_ring(hex)?,
            None => KeyRing::generate(),
        };
        keys::write_new_private(path, &ring.to_text())?;
        if legacy.is_none() {
            tracing::info!(file = %path.display(), key = ring.signing().id, "created the player-token key file");
        }
    }
    if legacy.is_some() {
        // Only once the key file is durably written: a crash before this
        // line leaves the key in both places, and the next start ends here.
        store.meta_delete(LEGACY_META_KEY).await?;
        tracing::warn!(
            file = %path.display(),
            "moved the player-token key out of the database (meta.{LEGACY_META_KEY}) into the key file, as key \
             `{LEGACY_KEY_ID}`; tokens given out before keep working. Back the key file up apart from the database"
        );
    }
    Ok(ring)
}

fn missing_key_file_help(legacy: bool) -> String {
    if legacy {
        format!(
            "A PostgreSQL database needs --player-token-key-file (the same file on every replica). This database \
             holds the key of an earlier release (meta.{LEGACY_META_KEY}): move it into a key file with \
             `arbiterd key migrate --database-url ... --player-token-key-file FILE`, then give FILE to every replica"
        )
    } else {
        "A PostgreSQL database needs --player-token-key-file (the same file on every replica): create one with \
         `arbiterd key generate --player-token-key-file FILE`"
            .to_string()
    }
}

/// Fails, before any connection, if `database_url` names a shared
/// (PostgreSQL) database and no key file is given.
///
/// # Errors
/// [`ServerError::Keys`].
pub fn check_key_file_given(database_url: &str, key_file: Option<&Path>) -> Result<(), ServerError> {
    let shared = database_url.starts_with("postgres:") || database_url.starts_with("postgresql:");
    if shared && key_file.is_none() {
        return Err(KeyError::Refused(
            "a PostgreSQL database needs --player-token-key-file, the same file on every replica: create one with \
             `arbiterd key generate --player-token-key-file FILE`, or, for a database of an earlier release, move \
             its key out with `arbiterd key migrate --database-url ... --player-token-key-file FILE`"
                .to_string(),
        )
        .into());
    }
    Ok(())
}

/// Fails if a configured role token is weak (see
/// [`auth::check_token_strength`]).
///
/// # Errors
/// [`ServerError::WeakToken`], naming the role (never the token).
pub fn check_configured_tokens(tokens: &[(Role, String)]) -> Result<(), ServerError> {
    for (role, token) in tokens {
        auth::check_token_strength(token).map_err(|why| {
            ServerError::WeakToken(format!("the configured {} token is refused: {why}", role.as_str()))
        })?;
    }
    Ok(())
}

/// Serves the API on `listener` until `shutdown` completes, then finishes
/// in-flight requests, ends watch streams and flushes storage. No HTTP
/// feed: see [`serve`].
///
/// # Errors
/// [`ServerError`] if storage cannot be opened, TLS is misconfigured, or
/// the transport fails.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServerError> {
    serve(Listeners { grpc: listener, http: None }, config, shutdown).await
}

/// [`run`] on every listener of `listeners`: the gRPC API, and the HTTP
/// broadcast feed when there is an HTTP listener.
///
/// # Errors
/// As [`run`].
pub async fn serve(
    listeners: Listeners,
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServerError> {
    let Listeners { grpc: listener, http } = listeners;
    telemetry::install_recorder();
    check_configured_tokens(&config.tokens)?;
    check_key_file_given(&config.database_url, config.player_token_key_file.as_deref())?;
    // Checked before anything else: a bad certificate is a configuration
    // error to report at once, not after loading every game.
    let tls = match &config.tls {
        Some(files) => Some(connections::tls_acceptor(&files.cert_pem, &files.key_pem)?),
        None => None,
    };
    let mut limits = config.connections;
    let file_limit = connections::open_file_limit();
    if let Some(fitted) = connections::fit_under(
        file_limit,
        limits.max_connections,
        ConnectionLimits::METRICS_DEFAULT.max_connections
            + if http.is_some() { config.http_max_connections } else { 0 },
    ) {
        tracing::warn!(
            configured = limits.max_connections,
            applied = fitted,
            open_file_limit = file_limit,
            "the connection cap does not fit under the open-file limit (ulimit -n, LimitNOFILE): lowered"
        );
        limits.max_connections = fitted;
    }
    let store = open_storage(&config.database_url).await?;
    let keys =
        player_token_keys(&store, &config.database_url, config.player_token_key_file.as_deref()).await?;
    let auth = Arc::new(Authority::new(keys, &config.tokens, store.clone()));
    let replica = format!("r{}", uuid::Uuid::new_v4().simple());
    let shared = matches!(store, Storage::Postgres(_));
    let advertised = advertise_url(config.advertise_url.as_deref(), &listener, config.tls.is_some());
    if shared {
        tracing::info!(replica = %replica, address = %advertised, "replica of a shared database");
    }
    store.set_replica(store::Replica { id: replica.clone(), address: advertised, lease: LEASE });
    // Unless another replica is alive (only possible on a shared database),
    // nobody served any game since the last heartbeat: an outage, recorded
    // so that every game that crossed it, loaded now or much later, is not
    // charged for it.
    let others_alive = shared
        && !store.live_replicas(table::wall_ms(), REPLICA_TIMEOUT_MS).await.unwrap_or_default().is_empty();
    let mut outages = store.outages().await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "cannot read the recorded outages");
        Vec::new()
    });
    if !others_alive {
        // No heartbeat at all (a database of a release before them): the
        // time since each game's last event is the outage.
        let last_alive = store.last_heartbeat().await.ok().flatten().unwrap_or(0);
        let resumed = table::wall_ms();
        if let Err(e) = store.record_outage(last_alive, resumed).await {
            tracing::warn!(error = %e, "cannot record the outage");
        }
        outages.push((last_alive, resumed));
    }
    if let Err(e) = store.heartbeat(&replica, table::wall_ms()).await {
        tracing::warn!(error = %e, "cannot record this replica's heartbeat");
    }
    let hall = Arc::new(Hall::new(store.clone(), table::Outages::new(outages)));
    // Run in a task of its own: the future borrows the hall, and a
    // spawned task keeps `run`'s future `Send` for every lifetime.
    let loading = {
        let hall = hall.clone();
        tokio::spawn(async move { hall.arm_in_play().await })
    };
    match loading.await {
        Ok(Ok(n)) => tracing::info!(games = n, "timers of the games in play armed"),
        Ok(Err(e)) => tracing::error!(error = %e, "cannot list the games in play"),
        Err(e) => tracing::error!(error = %e, "arming the games in play failed"),
    }
    let background = CancellationToken::new();
    tokio::spawn(hall.clone().run_timers(background.clone()));
    tokio::spawn(replica_duties(store.clone(), hall.clone(), replica.clone(), shared, background.clone()));
    tokio::spawn(expire_pending_games(hall.clone(), config.pending_game_ttl, background.clone()));
    {
        // Games stored by a release before read models get theirs, once;
        // until then their reads replay the log, as they always did.
        let hall = hall.clone();
        tokio::spawn(async move {
            match hall.rebuild_views().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(games = n, "read models rebuilt from the log"),
                Err(e) => tracing::warn!(error = %e, "cannot rebuild read models"),
            }
        });
    }
    let stop = CancellationToken::new();
    let arbiter = Arbiter {
        hall: hall.clone(),
        auth,
        heartbeat: config.heartbeat,
        shutdown: stop.clone(),
        quotas: Arc::new(quota::Quotas::new(config.limits)),
        boards: Arc::new(board::Boards::default()),
        spectators: Arc::default(),
        peers: Arc::new(service::forward::Peers::new(config.peer_tls.clone())),
    };
    // One service for the gRPC port and the JSON gateway: the same
    // authentication, roles, throttle and limits.
    let api = throttle::throttled(
        ArbiterServiceServer::new(arbiter.clone())
            .max_decoding_message_size(config.max_request_bytes)
            .max_encoding_message_size(16 * 1024 * 1024),
        Arc::new(throttle::FailureThrottle::new(config.auth_throttle)),
    );
    if let Some(listener) = http {
        let limits = ConnectionLimits {
            max_connections: config.http_max_connections,
            handshake_timeout: config.connections.handshake_timeout,
        };
        let routes = http::routes(arbiter.clone(), api.clone());
        tokio::spawn(http::serve_http(listener, routes, connections::Port::Http, limits, stop.clone()));
    }
    tokio::spawn(broadcast::push_rounds(
        arbiter.clone(),
        broadcast::PushSettings { every: config.broadcast_push_interval, timeout: Duration::from_secs(30) },
        background.clone(),
    ));

    let (health, health_service) = tonic_health::server::health_reporter();
    {
        let health = health.clone();
        let _ =
            tokio::spawn(async move { health.set_serving::<ArbiterServiceServer<Arbiter>>().await }).await;
    }
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(arbiter_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| ServerError::Reflection(e.to_string()))?;
    // grpcurl releases before 1.9 speak only v1alpha.
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(arbiter_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .map_err(|e| ServerError::Reflection(e.to_string()))?;

    let idle =
        connections::Idleness { timeout: config.idle_connection_timeout, calls: connections::Calls::new() };
    let mut builder = Server::builder()
        .layer(connections::CountCallsLayer::new(idle.calls.clone()))
        .layer(tower::util::MapResponseLayer::new(error::explain_transport_response))
        .max_concurrent_streams(config.max_streams_per_connection)
        // After the preface, a peer that stops answering PINGs is dropped.
        .http2_keepalive_interval(Some(config.http2_keepalive_interval))
        .http2_keepalive_timeout(Some(config.http2_keepalive_timeout));
    if config.trace_requests {
        builder = builder.trace_fn(traces::request_span);
    }
    let signal = {
        let health = health.clone();
        let stop = stop.clone();
        async move {
            shutdown.await;
            tracing::info!("shutting down: finishing in-flight requests");
            let _ =
                tokio::spawn(async move { health.set_not_serving::<ArbiterServiceServer<Arbiter>>().await })
                    .await;
            stop.cancel();
        }
    };
    let served = builder
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(api)
        .serve_with_incoming_shutdown(
            connections::grpc_incoming(listener, limits, idle, tls, stop.clone()),
            signal,
        )
        .await;
    background.cancel();
    // The last moment this replica was alive, for the next start; then its
    // games go to the other replicas at their next look.
    let _ = store.heartbeat(&replica, table::wall_ms()).await;
    if let Err(e) = store.end_lease().await {
        tracing::warn!(error = %e, "cannot end this replica's lease: its games move when it runs out");
    }
    store.close().await;
    tracing::info!("storage flushed and closed");
    served.map_err(ServerError::from)
}
