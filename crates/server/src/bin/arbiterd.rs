//! `arbiterd`: the Arbiter service. A thin wrapper around
//! `arbiter_server::run`: configuration, logging, signals, first-start
//! tokens.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use arbiter_server::auth::{Authority, Role};
use arbiter_server::keys::{self, KeyRing};
use arbiter_server::quota::{Limits, parse_duration};
use arbiter_server::store::EventStore;
use arbiter_server::throttle::ThrottlePolicy;
use arbiter_server::{Config, ConnectionLimits, TlsFiles};
use clap::builder::TypedValueParser as _;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

/// mimalloc rather than the system allocator: a request makes many small,
/// short-lived allocations (tonic, prost, the log's JSON), where it is
/// measurably faster, and tables put away or stopped give their memory back
/// to the system instead of leaving it fragmented in the process (glibc kept
/// the peak of a burst of loaded tables resident).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The Arbiter service: chess games under the FIDE Laws of Chess, over gRPC.
///
/// Every flag may come before or after the subcommand
/// (`arbiterd token list --database-url ...`).
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Address to serve gRPC on.
    #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:50051", global = true)]
    listen: SocketAddr,
    /// Database: `sqlite://FILE` (embedded, the default) or `postgres://...`.
    #[arg(long, env = "ARBITER_DATABASE_URL", default_value = "sqlite://arbiter.db", global = true)]
    database_url: String,
    /// Address to serve Prometheus metrics on (`/metrics`, no
    /// authentication: keep it on loopback or a private network); `off` to
    /// disable.
    #[arg(long, env = "ARBITER_METRICS_LISTEN", default_value = "127.0.0.1:9464", global = true)]
    metrics_listen: String,
    /// Address to serve HTTP on: the live PGN feed of events with a
    /// broadcast (`/events/{event}/rounds/{round}/pgn`, public, with the
    /// event's delay applied); `off` to disable.
    #[arg(long, env = "ARBITER_HTTP_LISTEN", default_value = "127.0.0.1:8080", global = true)]
    http_listen: String,
    /// HTTP connections open at once.
    #[arg(long, env = "ARBITER_HTTP_MAX_CONNECTIONS", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize), global = true)]
    http_max_connections: usize,
    /// How often rounds are pushed to their broadcast's push URL (when
    /// they changed), e.g. `10s`.
    #[arg(long, env = "ARBITER_BROADCAST_PUSH_INTERVAL", default_value = "10s", value_parser = parse_duration, global = true)]
    broadcast_push_interval: Duration,
    /// PEM certificate chain: serve TLS (with --tls-key).
    #[arg(long, env = "ARBITER_TLS_CERT", requires = "tls_key", global = true)]
    tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "ARBITER_TLS_KEY", requires = "tls_cert", global = true)]
    tls_key: Option<PathBuf>,
    /// Log format.
    #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty, global = true)]
    log_format: LogFormat,
    /// Export traces over OTLP/gRPC to this collector (e.g.
    /// `http://127.0.0.1:4317`): a span per gRPC request named by its method
    /// (`arbiter.v1.ArbiterService/MakeMove`), a child of the caller's W3C
    /// `traceparent`. Off when not given. The batching follows the standard
    /// `OTEL_BSP_*` variables.
    #[arg(long, env = "ARBITER_OTLP_ENDPOINT", value_name = "URL", global = true)]
    otlp_endpoint: Option<String>,
    /// A token with the arbiter role, kept in memory. Prefer the
    /// environment or --arbiter-token-file: a command-line value shows in
    /// `ps`.
    #[arg(long, env = "ARBITER_ARBITER_TOKEN", hide_env_values = true, global = true)]
    arbiter_token: Option<String>,
    /// A file holding the arbiter-role token (mode 0600).
    #[arg(long, env = "ARBITER_ARBITER_TOKEN_FILE", conflicts_with = "arbiter_token", global = true)]
    arbiter_token_file: Option<PathBuf>,
    /// A token with the service role (see --arbiter-token).
    #[arg(long, env = "ARBITER_SERVICE_TOKEN", hide_env_values = true, global = true)]
    service_token: Option<String>,
    /// A file holding the service-role token (mode 0600).
    #[arg(long, env = "ARBITER_SERVICE_TOKEN_FILE", conflicts_with = "service_token", global = true)]
    service_token_file: Option<PathBuf>,
    /// A token with the viewer role (see --arbiter-token).
    #[arg(long, env = "ARBITER_VIEWER_TOKEN", hide_env_values = true, global = true)]
    viewer_token: Option<String>,
    /// A file holding the viewer-role token (mode 0600).
    #[arg(long, env = "ARBITER_VIEWER_TOKEN_FILE", conflicts_with = "viewer_token", global = true)]
    viewer_token_file: Option<PathBuf>,
    /// Where first-start tokens are written when no token exists yet.
    #[arg(long, env = "ARBITER_TOKEN_FILE", default_value = "arbiterd-tokens.txt", global = true)]
    token_file: PathBuf,
    /// The player-token key file (default: `<database>.keys` beside an
    /// embedded database, created on first start; required with
    /// PostgreSQL, the same file on every replica).
    #[arg(long, env = "ARBITER_PLAYER_TOKEN_KEY_FILE", global = true)]
    player_token_key_file: Option<PathBuf>,
    /// Where the other replicas of a PostgreSQL database reach this one's
    /// gRPC service, to forward the acts on the games it runs
    /// (`http://host:port`, `https://...` with TLS); default: the listening
    /// address, with the host name when listening on every interface.
    #[arg(long, env = "ARBITER_ADVERTISE_URL", global = true)]
    advertise_url: Option<String>,
    /// The CA certificate (PEM) that signs the other replicas' TLS
    /// certificates, for forwarding to them over `https://` (default: the
    /// system's roots).
    #[arg(long, env = "ARBITER_PEER_CA", global = true)]
    peer_ca: Option<PathBuf>,
    /// The name the other replicas' certificates are checked against when
    /// forwarding (default: the host of their advertised URL), for
    /// certificates that name the service rather than each replica.
    #[arg(long, env = "ARBITER_PEER_TLS_NAME", global = true)]
    peer_tls_name: Option<String>,
    /// Failed authentications a client address may make at once before it
    /// is refused for a while; 0 turns throttling off.
    #[arg(long, env = "ARBITER_AUTH_FAILURE_BURST", default_value_t = 100, global = true)]
    auth_failure_burst: u32,
    /// Failed authentications a client address is allowed again per second.
    #[arg(long, env = "ARBITER_AUTH_FAILURES_PER_SECOND", default_value_t = 10.0, global = true)]
    auth_failures_per_second: f64,
    /// Largest request accepted, in bytes.
    #[arg(long, env = "ARBITER_MAX_REQUEST_BYTES", default_value_t = 65536, global = true)]
    max_request_bytes: usize,
    /// CreateGame calls a second per service token, sustained (arbiter
    /// tokens are not limited).
    #[arg(long, env = "ARBITER_CREATE_RATE", default_value_t = Limits::default().create_rate_per_s, global = true)]
    create_rate: f64,
    /// CreateGame calls a service token may make at once, before the rate
    /// applies.
    #[arg(long, env = "ARBITER_CREATE_BURST", default_value_t = Limits::default().create_burst, global = true)]
    create_burst: u32,
    /// Games one service token may have pending or in progress at once.
    #[arg(long, env = "ARBITER_MAX_UNFINISHED_GAMES", default_value_t = Limits::default().max_unfinished_games, global = true)]
    max_unfinished_games: u64,
    /// WatchGame streams one token may hold open (per replica).
    #[arg(
        long,
        env = "ARBITER_MAX_WATCH_STREAMS_PER_TOKEN",
        default_value_t = Limits::default().max_watch_streams_per_token,
        global = true
    )]
    max_watch_streams_per_token: u32,
    /// WatchGame streams one game may have open (per replica).
    #[arg(
        long,
        env = "ARBITER_MAX_WATCH_STREAMS_PER_GAME",
        default_value_t = Limits::default().max_watch_streams_per_game,
        global = true
    )]
    max_watch_streams_per_game: u32,
    /// A game not started this long after its creation expires (status
    /// EXPIRED): `24h`, `90m`, `30s`, `500ms`.
    #[arg(long, env = "ARBITER_PENDING_GAME_TTL", default_value = "24h", value_parser = parse_duration, global = true)]
    pending_game_ttl: std::time::Duration,
    /// gRPC connections open at once; more are closed as soon as accepted
    /// (lowered at start if it does not fit under the open-file limit).
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = ConnectionLimits::GRPC_DEFAULT.max_connections,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize), global = true)]
    max_connections: usize,
    /// Metrics connections open at once.
    #[arg(long, env = "ARBITER_METRICS_MAX_CONNECTIONS",
          default_value_t = ConnectionLimits::METRICS_DEFAULT.max_connections,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize), global = true)]
    metrics_max_connections: usize,
    /// Time a new connection has to finish its TLS handshake and send the
    /// HTTP/2 preface (on the metrics port: its request head), e.g. `10s`,
    /// `500ms`.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = "10s", value_parser = parse_duration, global = true)]
    handshake_timeout: Duration,
    /// An HTTP/2 PING goes to a connection quiet for this long...
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_INTERVAL", default_value = "30s", value_parser = parse_duration, global = true)]
    http2_keepalive_interval: Duration,
    /// ...which is closed if the PING is not answered within this.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_TIMEOUT", default_value = "20s", value_parser = parse_duration, global = true)]
    http2_keepalive_timeout: Duration,
    /// A gRPC connection with no call in flight for this long is closed
    /// (a watch stream is a call until it ends); clients reconnect on their
    /// next call.
    #[arg(long, env = "ARBITER_IDLE_CONNECTION_TIMEOUT", default_value = "5m", value_parser = parse_duration, global = true)]
    idle_connection_timeout: Duration,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the API (the default).
    Serve,
    /// Manage role tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Manage the player-token keys.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
}

#[derive(Subcommand, Debug)]
enum TokenCommand {
    /// Issue a new role token, store its hash and print it once.
    Issue {
        /// The role.
        #[arg(long, value_enum)]
        role: RoleArg,
        /// A label to recognise it by.
        #[arg(long, default_value = "")]
        label: String,
    },
    /// List the role tokens stored in the database (never their secrets).
    List,
    /// Revoke a stored role token: running servers refuse it within 5 s.
    Revoke {
        /// The token's id (the hex after `arb_`), or the whole token.
        id: String,
    },
}

#[derive(Subcommand, Debug)]
enum KeyCommand {
    /// Create a new key file with one fresh key (refuses an existing file).
    Generate,
    /// Add a fresh key that signs new player tokens from the next start;
    /// older keys still verify the tokens made with them.
    Rotate,
    /// Remove a key: every player token made with it stops working.
    Remove {
        /// The key id.
        id: String,
    },
    /// List the key ids (the last one signs).
    List,
    /// Move the key an earlier release kept in the database into the key
    /// file and delete it from the database.
    Migrate,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RoleArg {
    Service,
    Arbiter,
    Viewer,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Service => Role::Service,
            RoleArg::Arbiter => Role::Arbiter,
            RoleArg::Viewer => Role::Viewer,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum LogFormat {
    Pretty,
    Json,
}

/// Logs go to standard error (standard output carries the addresses and
/// the answers of the subcommands), coloured only on a terminal.
fn init_logging(format: LogFormat, tracer: Option<opentelemetry_sdk::trace::SdkTracer>) {
    use std::io::IsTerminal;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let ansi = std::io::stderr().is_terminal();
    let traces = tracer.map(|t| tracing_opentelemetry::layer().with_tracer(t));
    let registry = tracing_subscriber::registry().with(filter).with(traces);
    let logs = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi);
    match format {
        LogFormat::Pretty => registry.with(logs).init(),
        LogFormat::Json => registry.with(logs.json()).init(),
    }
}

/// `path` from the root, for messages an operator acts on.
fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The database in use as the start-up banner shows it: an SQLite file by
/// its absolute path, a PostgreSQL URL without its password.
fn database_shown(url: &str) -> String {
    if let Some(file) = url.strip_prefix("sqlite://") {
        let (file, options) = file.split_once('?').map_or((file, ""), |(f, o)| (f, o));
        let options = if options.is_empty() { String::new() } else { format!(" ({options})") };
        return format!("SQLite {}{options}", absolute(std::path::Path::new(file)).display());
    }
    match url.split_once("://").and_then(|(scheme, rest)| Some((scheme, rest.split_once('@')?))) {
        Some((scheme, (credentials, host))) => {
            let user = credentials.split(':').next().unwrap_or("");
            let hidden = if credentials.contains(':') { ":***" } else { "" };
            format!("PostgreSQL {scheme}://{user}{hidden}@{host}")
        }
        None => format!("PostgreSQL {url}"),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches)?;
    let args = cli.serve;
    let serving = matches!(cli.command, Some(Command::Serve) | None);
    let export = match (&args.otlp_endpoint, serving) {
        (Some(endpoint), true) => Some(
            arbiter_server::traces::export(endpoint)
                .with_context(|| format!("cannot export traces to {endpoint}"))?,
        ),
        _ => None,
    };
    let provider = export.as_ref().map(|e| e.provider.clone());
    init_logging(args.log_format, export.map(|e| e.tracer));
    let outcome = match cli.command {
        Some(Command::Token { command }) => token_command(&args, command).await,
        Some(Command::Key { command }) => key_command(&args, command).await,
        Some(Command::Serve) | None => serve(args, &matches).await,
    };
    // The spans still in the batch go out before the process ends.
    if let Some(provider) = provider
        && let Err(e) = provider.shutdown()
    {
        tracing::warn!(error = %e, "the last spans could not be exported");
    }
    outcome
}

async fn token_command(args: &ServeArgs, command: TokenCommand) -> anyhow::Result<()> {
    let store = arbiter_server::open_storage(&args.database_url).await?;
    let outcome = async {
        match command {
            TokenCommand::Issue { role, label } => {
                let (token, row) = Authority::issue(role.into(), &label, arbiter_server::table::wall_ms());
                store.insert_token(&row).await?;
                println!("{token}");
            }
            TokenCommand::List => {
                println!("{:<16}  {:<8}  {:<20}  {:<20}  label", "id", "role", "created", "revoked");
                for t in store.tokens().await? {
                    let revoked = t.revoked_wall_ms.map_or_else(|| "-".to_string(), utc);
                    println!(
                        "{:<16}  {:<8}  {:<20}  {:<20}  {}",
                        t.id,
                        t.role,
                        utc(t.created_wall_ms),
                        revoked,
                        t.label
                    );
                }
            }
            TokenCommand::Revoke { id } => {
                // The whole token is accepted too; only its id is used.
                let id = id.strip_prefix("arb_").and_then(|r| r.split('_').next()).unwrap_or(&id).to_string();
                if store.revoke_token(&id, arbiter_server::table::wall_ms()).await? {
                    println!(
                        "revoked {id}: running servers refuse it within {} s",
                        arbiter_server::auth::ROLE_TOKEN_CACHE_TTL.as_secs()
                    );
                } else {
                    anyhow::bail!("no live token {id} (see `arbiterd token list`)");
                }
            }
        }
        anyhow::Ok(())
    }
    .await;
    store.close().await;
    outcome
}

async fn key_command(args: &ServeArgs, command: KeyCommand) -> anyhow::Result<()> {
    let path = match &args.player_token_key_file {
        Some(path) => path.clone(),
        None => keys::default_key_file(&args.database_url)
            .context("give the key file with --player-token-key-file")?,
    };
    match command {
        KeyCommand::Generate => {
            let ring = KeyRing::generate();
            keys::write_new_private(&path, &ring.to_text())?;
            println!("created {} with key {}", path.display(), ring.signing().id);
        }
        KeyCommand::Rotate => {
            let mut ring = KeyRing::load(&path)?;
            let id = ring.rotate();
            ring.save(&path)?;
            println!(
                "key {id} added to {}: it signs new player tokens once the server restarts; older tokens keep \
                 working until their key is removed",
                path.display()
            );
        }
        KeyCommand::Remove { id } => {
            let mut ring = KeyRing::load(&path)?;
            ring.remove(&id)?;
            ring.save(&path)?;
            println!("key {id} removed: its player tokens stop working once the server restarts");
        }
        KeyCommand::List => {
            let ring = KeyRing::load(&path)?;
            let signing = ring.signing().id.clone();
            for id in ring.ids() {
                println!("{id}{}", if id == signing { "  (signs)" } else { "" });
            }
        }
        KeyCommand::Migrate => {
            let store = arbiter_server::open_storage(&args.database_url).await?;
            let moved = arbiter_server::migrate_legacy_key(&store, &args.database_url, &path).await;
            store.close().await;
            match moved? {
                Some(_) => println!(
                    "moved the database's player-token key into {} (key `{}`); give this file to every replica",
                    path.display(),
                    keys::LEGACY_KEY_ID
                ),
                None => println!("the database holds no player-token key: nothing to move"),
            }
        }
    }
    Ok(())
}

/// Unix milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, whole seconds,
/// by prost-types).
fn utc(ms: i64) -> String {
    prost_types::Timestamp { seconds: ms.div_euclid(1000), nanos: 0 }.to_string()
}

/// The role tokens of the configuration, from the environment, a file or
/// (with a warning) the command line; weak ones are refused, naming the
/// flag.
fn configured_tokens(args: &ServeArgs, matches: &clap::ArgMatches) -> anyhow::Result<Vec<(Role, String)>> {
    let mut tokens = Vec::new();
    for (role, value, file, id) in [
        (Role::Arbiter, &args.arbiter_token, &args.arbiter_token_file, "arbiter_token"),
        (Role::Service, &args.service_token, &args.service_token_file, "service_token"),
        (Role::Viewer, &args.viewer_token, &args.viewer_token_file, "viewer_token"),
    ] {
        let flag = format!("--{}", id.replace('_', "-"));
        let env = format!("ARBITER_{}", id.to_ascii_uppercase());
        let (token, source) = match (value, file) {
            (Some(t), _) => {
                if matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
                    tracing::warn!(
                        flag,
                        "a token given on the command line is visible to every local user (ps, /proc); give it \
                         in {env} or with {flag}-file"
                    );
                }
                (t.trim().to_string(), format!("{flag} ({env})"))
            }
            (None, Some(path)) => {
                let text = keys::read_private(path)?;
                (text.trim().to_string(), format!("{flag}-file {}", path.display()))
            }
            (None, None) => continue,
        };
        if let Err(why) = arbiter_server::auth::check_token_strength(&token) {
            anyhow::bail!("the {} token of {source} is refused: {why}", role.as_str());
        }
        tokens.push((role, token));
    }
    Ok(tokens)
}

async fn serve(args: ServeArgs, matches: &clap::ArgMatches) -> anyhow::Result<()> {
    arbiter_server::check_key_file_given(&args.database_url, args.player_token_key_file.as_deref())?;
    let mut config = Config::new(args.database_url.clone());
    config.idle_connection_timeout = args.idle_connection_timeout;
    config.max_request_bytes = args.max_request_bytes;
    config.connections =
        ConnectionLimits { max_connections: args.max_connections, handshake_timeout: args.handshake_timeout };
    config.http2_keepalive_interval = args.http2_keepalive_interval;
    config.http2_keepalive_timeout = args.http2_keepalive_timeout;
    config.http_max_connections = args.http_max_connections;
    anyhow::ensure!(
        !args.broadcast_push_interval.is_zero(),
        "--broadcast-push-interval must be longer than 0"
    );
    config.broadcast_push_interval = args.broadcast_push_interval;
    config.trace_requests = args.otlp_endpoint.is_some();
    anyhow::ensure!(
        args.create_rate.is_finite() && args.create_rate > 0.0,
        "--create-rate must be a positive number of calls a second"
    );
    for (flag, value) in [
        ("--create-burst", u64::from(args.create_burst)),
        ("--max-unfinished-games", args.max_unfinished_games),
        ("--max-watch-streams-per-token", u64::from(args.max_watch_streams_per_token)),
        ("--max-watch-streams-per-game", u64::from(args.max_watch_streams_per_game)),
    ] {
        anyhow::ensure!(value >= 1, "{flag} must be at least 1");
    }
    config.limits = Limits {
        create_rate_per_s: args.create_rate,
        create_burst: args.create_burst,
        max_unfinished_games: args.max_unfinished_games,
        max_watch_streams_per_token: args.max_watch_streams_per_token,
        max_watch_streams_per_game: args.max_watch_streams_per_game,
    };
    config.pending_game_ttl = args.pending_game_ttl;
    config.tokens = configured_tokens(&args, matches)?;
    config.player_token_key_file = args.player_token_key_file.clone();
    config.advertise_url = args.advertise_url.clone();
    config.peer_tls = arbiter_server::PeerTls {
        ca_pem: match &args.peer_ca {
            Some(path) => Some(std::fs::read(path).with_context(|| format!("reading {}", path.display()))?),
            None => None,
        },
        name: args.peer_tls_name.clone(),
    };
    config.auth_throttle = (args.auth_failure_burst > 0).then_some(ThrottlePolicy {
        burst: args.auth_failure_burst,
        per_second: args.auth_failures_per_second.max(0.0),
    });
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        config.tls = Some(TlsFiles {
            cert_pem: std::fs::read(cert).with_context(|| format!("reading {}", cert.display()))?,
            key_pem: std::fs::read(key).with_context(|| format!("reading {}", key.display()))?,
        });
    }

    // First start: when no token exists anywhere, issue an arbiter and a
    // service token and write them to a file only the owner can read.
    let store = arbiter_server::open_storage(&args.database_url).await?;
    let first = async {
        if !config.tokens.is_empty() || store.token_count().await? != 0 {
            return anyhow::Ok("issue a token with `arbiterd token issue --role arbiter`".to_string());
        }
        let mut text = String::from("# Tokens issued at first start. Keep this file secret.\n");
        let mut rows = Vec::new();
        for role in [Role::Arbiter, Role::Service] {
            let (token, row) = Authority::issue(role, "first start", arbiter_server::table::wall_ms());
            rows.push(row);
            text.push_str(&format!("{}={token}\n", role.as_str()));
        }
        // The file first: tokens stored but written nowhere would be lost.
        write_token_file(&args.token_file, &text)?;
        for row in &rows {
            store.insert_token(row).await?;
        }
        Ok(format!("first-start tokens written to {}", absolute(&args.token_file).display()))
    }
    .await;
    store.close().await;
    let token_help = first?;

    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    println!("arbiterd listening on {scheme}://{}", listener.local_addr()?);
    println!("data: {}", database_shown(&args.database_url));
    if let Some(endpoint) = &args.otlp_endpoint {
        println!("traces: OTLP to {endpoint}");
    }
    println!("tokens: {token_help}");
    if args.metrics_listen != "off" {
        let metrics = tokio::net::TcpListener::bind(&args.metrics_listen)
            .await
            .with_context(|| format!("cannot listen on {} for metrics", args.metrics_listen))?;
        let addr = metrics.local_addr()?;
        if !addr.ip().is_loopback() {
            tracing::warn!(%addr, "metrics are served without authentication on a non-loopback address");
        }
        println!("metrics: http://{addr}/metrics");
        let limits = ConnectionLimits {
            max_connections: args.metrics_max_connections,
            handshake_timeout: args.handshake_timeout,
        };
        tokio::spawn(arbiter_server::serve_metrics(metrics, limits));
    }
    let http = if args.http_listen == "off" {
        None
    } else {
        let http = tokio::net::TcpListener::bind(&args.http_listen)
            .await
            .with_context(|| format!("cannot listen on {} for HTTP", args.http_listen))?;
        let addr = http.local_addr()?;
        println!("console: http://{addr}/");
        println!("broadcast feed: http://{addr}/events/{{event}}/rounds/{{round}}/pgn");
        Some(http)
    };
    arbiter_server::serve(arbiter_server::Listeners { grpc: listener, http }, config, shutdown_signal())
        .await?;
    Ok(())
}

/// Writes the first-start token file: a new file (`O_EXCL`, mode 0600)
/// renamed into place, so an existing file, whatever its mode, is replaced
/// by a private one, and a symbolic link is refused, never written through.
fn write_token_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    keys::replace_private(path, text).with_context(|| format!("cannot write {}", path.display()))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::database_shown;

    #[test]
    fn the_banner_shows_the_database_without_secrets() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            database_shown("sqlite://arbiter.db"),
            format!("SQLite {}", here.join("arbiter.db").display())
        );
        assert_eq!(database_shown("sqlite:///var/lib/a.db?mode=rwc"), "SQLite /var/lib/a.db (mode=rwc)");
        assert_eq!(
            database_shown("postgres://arbiter:s3cret@db.example:5432/arbiter"),
            "PostgreSQL postgres://arbiter:***@db.example:5432/arbiter"
        );
        assert_eq!(
            database_shown("postgres://postgres@127.0.0.1/a"),
            "PostgreSQL postgres://postgres@127.0.0.1/a"
        );
        assert!(!database_shown("postgresql://u:p@h/d").contains(":p@"));
    }
}
