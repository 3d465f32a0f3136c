//! `arbiterd`: the Arbiter service. A thin wrapper around
//! `arbiter_server::run`: configuration, logging, signals, first-start
//! tokens.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use arbiter_server::auth::{Authority, Role};
use arbiter_server::store::EventStore;
use arbiter_server::{Config, ConnectionLimits, TlsFiles};
use clap::builder::TypedValueParser as _;
use clap::{Parser, Subcommand, ValueEnum};

/// The Arbiter service: chess games under the FIDE Laws of Chess, over gRPC.
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
    #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Database: `sqlite://FILE` (embedded, the default) or `postgres://...`.
    #[arg(long, env = "ARBITER_DATABASE_URL", default_value = "sqlite://arbiter.db")]
    database_url: String,
    /// Address to serve Prometheus metrics on (`/metrics`); `off` to disable.
    #[arg(long, env = "ARBITER_METRICS_LISTEN", default_value = "127.0.0.1:9464")]
    metrics_listen: String,
    /// PEM certificate chain: serve TLS (with --tls-key).
    #[arg(long, env = "ARBITER_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "ARBITER_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Log format.
    #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty)]
    log_format: LogFormat,
    /// A token with the arbiter role (kept in memory only).
    #[arg(long, env = "ARBITER_ARBITER_TOKEN", hide_env_values = true)]
    arbiter_token: Option<String>,
    /// A token with the service role (kept in memory only).
    #[arg(long, env = "ARBITER_SERVICE_TOKEN", hide_env_values = true)]
    service_token: Option<String>,
    /// A token with the viewer role (kept in memory only).
    #[arg(long, env = "ARBITER_VIEWER_TOKEN", hide_env_values = true)]
    viewer_token: Option<String>,
    /// Where first-start tokens are written when no token exists yet.
    #[arg(long, env = "ARBITER_TOKEN_FILE", default_value = "arbiterd-tokens.txt")]
    token_file: PathBuf,
    /// Largest request accepted, in bytes.
    #[arg(long, env = "ARBITER_MAX_REQUEST_BYTES", default_value_t = 65536)]
    max_request_bytes: usize,
    /// gRPC connections open at once; more are closed as soon as accepted
    /// (lowered at start if it does not fit under the open-file limit).
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = ConnectionLimits::GRPC_DEFAULT.max_connections,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    max_connections: usize,
    /// Metrics connections open at once.
    #[arg(long, env = "ARBITER_METRICS_MAX_CONNECTIONS",
          default_value_t = ConnectionLimits::METRICS_DEFAULT.max_connections,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    metrics_max_connections: usize,
    /// Time a new connection has to finish its TLS handshake and send the
    /// HTTP/2 preface (on the metrics port: its request head), e.g. `10s`,
    /// `500ms`.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    handshake_timeout: Duration,
    /// An HTTP/2 PING goes to a connection quiet for this long...
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_INTERVAL", default_value = "30s", value_parser = parse_duration)]
    http2_keepalive_interval: Duration,
    /// ...which is closed if the PING is not answered within this.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_TIMEOUT", default_value = "20s", value_parser = parse_duration)]
    http2_keepalive_timeout: Duration,
}

/// A duration flag: a number with `ms`, `s` or `m` (a bare number is
/// seconds); more than zero.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit_ms) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (text, 1000.0)
    };
    let value: f64 =
        number.trim().parse().map_err(|_| format!("`{text}` is not a duration such as 10s or 500ms"))?;
    if !value.is_finite() || value <= 0.0 || value * unit_ms > 86_400_000.0 {
        return Err(format!("`{text}`: a duration must be more than 0 and at most a day"));
    }
    Ok(Duration::from_secs_f64(value * unit_ms / 1000.0))
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

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Pretty => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let args = cli.serve;
    init_logging(args.log_format);
    match cli.command {
        Some(Command::Token { command: TokenCommand::Issue { role, label } }) => {
            let (store, _) = arbiter_server::open_storage(&args.database_url).await?;
            let (token, row) = Authority::issue(role.into(), &label, arbiter_server::table::wall_ms());
            store.insert_token(&row).await?;
            store.close().await;
            println!("{token}");
            Ok(())
        }
        Some(Command::Serve) | None => serve(args).await,
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut config = Config::new(args.database_url.clone());
    config.max_request_bytes = args.max_request_bytes;
    config.connections =
        ConnectionLimits { max_connections: args.max_connections, handshake_timeout: args.handshake_timeout };
    config.http2_keepalive_interval = args.http2_keepalive_interval;
    config.http2_keepalive_timeout = args.http2_keepalive_timeout;
    for (role, token) in [
        (Role::Arbiter, &args.arbiter_token),
        (Role::Service, &args.service_token),
        (Role::Viewer, &args.viewer_token),
    ] {
        if let Some(t) = token {
            anyhow::ensure!(t.len() >= 16, "the {} token must have at least 16 characters", role.as_str());
            config.tokens.push((role, t.clone()));
        }
    }
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        config.tls = Some(TlsFiles {
            cert_pem: std::fs::read(cert).with_context(|| format!("reading {}", cert.display()))?,
            key_pem: std::fs::read(key).with_context(|| format!("reading {}", key.display()))?,
        });
    }

    // First start: when no token exists anywhere, issue an arbiter and a
    // service token and write them to a file only the owner can read.
    let (store, _) = arbiter_server::open_storage(&args.database_url).await?;
    let token_help = if config.tokens.is_empty() && store.token_count().await? == 0 {
        let mut text = String::from("# Tokens issued at first start. Keep this file secret.\n");
        for role in [Role::Arbiter, Role::Service] {
            let (token, row) = Authority::issue(role, "first start", arbiter_server::table::wall_ms());
            store.insert_token(&row).await?;
            text.push_str(&format!("{}={token}\n", role.as_str()));
        }
        write_private(&args.token_file, &text)?;
        format!("first-start tokens written to {}", args.token_file.display())
    } else {
        "issue a token with `arbiterd token issue --role arbiter`".to_string()
    };
    store.close().await;

    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    println!("arbiterd listening on {scheme}://{}", listener.local_addr()?);
    println!("data: {}", args.database_url);
    println!("tokens: {token_help}");
    if args.metrics_listen != "off" {
        let metrics = tokio::net::TcpListener::bind(&args.metrics_listen)
            .await
            .with_context(|| format!("cannot listen on {} for metrics", args.metrics_listen))?;
        println!("metrics: http://{}/metrics", metrics.local_addr()?);
        let limits = ConnectionLimits {
            max_connections: args.metrics_max_connections,
            handshake_timeout: args.handshake_timeout,
        };
        tokio::spawn(arbiter_server::serve_metrics(metrics, limits));
    }
    arbiter_server::run(listener, config, shutdown_signal()).await?;
    Ok(())
}

fn write_private(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path).with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
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
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_take_a_unit_or_mean_seconds() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["", "0s", "-1s", "ten", "NaNs", "2d", "1e9s"] {
            assert!(parse_duration(bad).is_err(), "{bad} was accepted");
        }
    }
}
