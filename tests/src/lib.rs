//! The harness of the end-to-end tests: a real `arbiterd` (the library's
//! `run`, exactly what the binary calls) on `127.0.0.1:0` with its own
//! SQLite file, and gRPC clients that carry a bearer token.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use arbiter_proto::v1 as pb;
use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use arbiter_server::auth::Role;
use arbiter_server::{Config, ServerError};
use tokio::sync::oneshot;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig};
use tonic::{Code, Status};
use tonic_types::StatusExt;

pub use arbiter_proto::v1;

pub mod browser;
pub mod corpus;
pub mod daemon;
pub mod livechess;
pub mod reliability;
pub mod sockets;

/// The arbiter token every test server accepts.
pub const ARBITER_TOKEN: &str = "test-arbiter-token-0123456789-Kq7Zx";
/// The service token.
pub const SERVICE_TOKEN: &str = "test-service-token-0123456789-Mv3Wp";
/// The viewer token.
pub const VIEWER_TOKEN: &str = "test-viewer-token-01234567890-Hd5Ny";

/// Adds `authorization: Bearer <token>` to every request.
#[derive(Clone, Debug)]
pub struct Bearer(Option<MetadataValue<Ascii>>);

impl Bearer {
    /// A bearer token (panics on a token that is not ASCII: test input).
    pub fn new(token: &str) -> Bearer {
        Bearer(Some(format!("Bearer {token}").parse().expect("ascii token")))
    }

    /// The whole `authorization` header value as given (`Basic x`, `Bearer`).
    pub fn raw(header: &str) -> Bearer {
        Bearer(Some(header.parse().expect("ascii header")))
    }
}

impl Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            request.metadata_mut().insert("authorization", v.clone());
        }
        Ok(request)
    }
}

/// A client of the API with one token.
pub type Client = ArbiterServiceClient<InterceptedService<Channel, Bearer>>;

/// A running server.
#[derive(Debug)]
pub struct TestServer {
    pub addr: SocketAddr,
    /// The HTTP address (the broadcast feed), on a port of its own.
    pub http_addr: SocketAddr,
    pub database_url: String,
    /// With TLS: the PEM certificate clients trust (the CA of the server's
    /// certificate, or the certificate itself when it is self-signed).
    tls_ca: Option<Vec<u8>>,
    dir: Option<tempfile::TempDir>,
    stop: Option<oneshot::Sender<()>>,
    kill: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), ServerError>>>,
}

impl TestServer {
    /// A server on a fresh database.
    pub async fn start() -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
        TestServer::start_with(Some(dir), url, |_| {}).await
    }

    /// A server on `database_url`, with `adjust` applied to the default
    /// configuration.
    pub async fn start_with(
        dir: Option<tempfile::TempDir>,
        database_url: String,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        TestServer::start_inner(any_port(), dir, database_url, None, adjust).await
    }

    /// A server on `addr` (a restarted server on the address its clients
    /// know), on `database_url`.
    pub async fn start_at(
        addr: SocketAddr,
        dir: Option<tempfile::TempDir>,
        database_url: String,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        TestServer::start_inner(addr, dir, database_url, None, adjust).await
    }

    /// A server that serves TLS with `tls`; its clients (and the readiness
    /// probe) trust `ca_pem` and expect the name `localhost`.
    pub async fn start_tls(
        dir: Option<tempfile::TempDir>,
        database_url: String,
        tls: arbiter_server::TlsFiles,
        ca_pem: Vec<u8>,
    ) -> TestServer {
        TestServer::start_tls_with(dir, database_url, tls, ca_pem, |_| {}).await
    }

    /// [`TestServer::start_tls`] with `adjust` applied to the configuration.
    pub async fn start_tls_with(
        dir: Option<tempfile::TempDir>,
        database_url: String,
        tls: arbiter_server::TlsFiles,
        ca_pem: Vec<u8>,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        TestServer::start_inner(any_port(), dir, database_url, Some(ca_pem), move |config| {
            config.tls = Some(tls);
            adjust(config);
        })
        .await
    }

    async fn start_inner(
        addr: SocketAddr,
        dir: Option<tempfile::TempDir>,
        database_url: String,
        tls_ca: Option<Vec<u8>>,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        // Rebinding the port of a server just stopped may need a moment.
        let mut bound = tokio::net::TcpListener::bind(addr).await;
        for _ in 0..100 {
            if bound.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            bound = tokio::net::TcpListener::bind(addr).await;
        }
        let listener = bound.unwrap_or_else(|e| panic!("cannot bind {addr}: {e}"));
        let addr = listener.local_addr().expect("addr");
        let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind an HTTP port");
        let http_addr = http.local_addr().expect("HTTP addr");
        let http = http.into_std().expect("std listener");
        let mut config = Config::new(database_url.clone());
        config.tokens = vec![
            (Role::Arbiter, ARBITER_TOKEN.to_string()),
            (Role::Service, SERVICE_TOKEN.to_string()),
            (Role::Viewer, VIEWER_TOKEN.to_string()),
        ];
        config.heartbeat = Duration::from_millis(200);
        adjust(&mut config);
        let (stop, stopped) = oneshot::channel::<()>();
        let (kill, killed) = oneshot::channel::<()>();
        // The server runs on a runtime of its own, on its own threads, as it
        // would in its own process: a kill drops it mid-flight.
        let listener = listener.into_std().expect("std listener");
        let thread = std::thread::spawn(move || -> Result<(), ServerError> {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("server runtime");
            let result = runtime.block_on(async move {
                let listeners = arbiter_server::Listeners {
                    grpc: tokio::net::TcpListener::from_std(listener).expect("listener"),
                    http: Some(tokio::net::TcpListener::from_std(http).expect("HTTP listener")),
                };
                let served = arbiter_server::serve(listeners, config, async {
                    let _ = stopped.await;
                });
                tokio::select! {
                    r = served => r,
                    _ = killed => Ok(()),
                }
            });
            runtime.shutdown_background();
            result
        });
        let server = TestServer {
            addr,
            http_addr,
            database_url,
            tls_ca,
            dir,
            stop: Some(stop),
            kill: Some(kill),
            thread: Some(thread),
        };
        server.wait_ready().await;
        server
    }

    async fn wait_ready(&self) {
        for _ in 0..200 {
            if let Ok(channel) = self.try_channel().await {
                let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
                if let Ok(r) =
                    health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await
                    && r.into_inner().status
                        == tonic_health::pb::health_check_response::ServingStatus::Serving as i32
                {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the server did not become ready");
    }

    /// `http://addr` (`https://addr` with TLS; the certificate is checked
    /// for the name `localhost`).
    pub fn url(&self) -> String {
        match self.tls_ca {
            Some(_) => format!("https://{}", self.addr),
            None => format!("http://{}", self.addr),
        }
    }

    async fn try_channel(&self) -> Result<Channel, tonic::transport::Error> {
        let mut endpoint = Channel::from_shared(self.url()).expect("url");
        if let Some(ca) = &self.tls_ca {
            endpoint = endpoint.tls_config(
                ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)).domain_name("localhost"),
            )?;
        }
        endpoint.connect().await
    }

    /// A connected channel (TLS when the server serves it).
    pub async fn channel(&self) -> Channel {
        self.try_channel().await.expect("connect")
    }

    /// The directory holding the database.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(tempfile::TempDir::path)
    }

    /// A client carrying `token` (`None`: no authorization header).
    pub async fn client(&self, token: Option<&str>) -> Client {
        let bearer = Bearer(token.map(|t| format!("Bearer {t}").parse().expect("ascii token")));
        ArbiterServiceClient::with_interceptor(self.channel().await, bearer)
    }

    /// A client sending `authorization: <header>` exactly as given.
    pub async fn client_with_header(&self, header: &str) -> Client {
        ArbiterServiceClient::with_interceptor(self.channel().await, Bearer::raw(header))
    }

    /// An arbiter client.
    pub async fn arbiter(&self) -> Client {
        self.client(Some(ARBITER_TOKEN)).await
    }

    /// Stops the server gracefully and returns its database directory, so a
    /// test can start another server on the same data.
    pub async fn stop(mut self) -> (Option<tempfile::TempDir>, String) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let result = tokio::task::spawn_blocking(move || thread.join()).await.expect("join");
            result.expect("server thread").expect("server stopped cleanly");
        }
        (self.dir.take(), self.database_url.clone())
    }

    /// Kills the server without a graceful shutdown: its runtime is dropped
    /// mid-flight, as close to `kill -9` as one process allows.
    pub async fn kill(mut self) -> (Option<tempfile::TempDir>, String) {
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        (self.dir.take(), self.database_url.clone())
    }
}

/// `127.0.0.1:0`: any free port.
pub fn any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// A test CA and a certificate it signed for `localhost` and `127.0.0.1`,
/// made in `dir` with the `openssl` CLI. Returns (CA certificate, server
/// certificate, server key), PEM; `dir` keeps `ca.pem` for a CLI to read.
pub fn test_certificates(dir: &Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the openssl CLI runs");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend(["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Arbiter Test CA"]);
    ca.extend(["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"]);
    openssl(&ca);
    let mut csr = vec!["req"];
    csr.extend(ec);
    csr.extend(["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
    openssl(&csr);
    std::fs::write(
        dir.join("server.ext"),
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n\
         extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .expect("write server.ext");
    let sign = "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2";
    let mut args: Vec<&str> = sign.split(' ').collect();
    args.extend(["-extfile", "server.ext"]);
    openssl(&args);
    let read = |f: &str| std::fs::read(dir.join(f)).expect("read a generated PEM file");
    (read("ca.pem"), read("server.pem"), read("server.key"))
}

/// Regulations with just a time control and a mode.
pub fn regulations(time_control: &str, mode: pb::Mode) -> pb::Regulations {
    pb::Regulations { time_control: time_control.to_string(), mode: mode as i32, ..Default::default() }
}

/// A CreateGame request.
pub fn new_game(regulations: pb::Regulations, start: bool) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        event: "Test Open".into(),
        round: "1".into(),
        white: Some(pb::Player {
            name: "White, Player".into(),
            fide_id: String::new(),
            ..Default::default()
        }),
        black: Some(pb::Player {
            name: "Black, Player".into(),
            fide_id: String::new(),
            ..Default::default()
        }),
        regulations: Some(regulations),
        start,
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// The ErrorInfo domain every error of the service carries.
pub const DOMAIN: &str = "arbiter.chess";

/// Asserts that `result` failed with `code`, that the status carries an
/// ErrorInfo of domain [`DOMAIN`], and that it is never INTERNAL; returns the
/// status.
#[track_caller]
pub fn expect_code<T: std::fmt::Debug>(result: Result<tonic::Response<T>, Status>, code: Code) -> Status {
    let status = match result {
        Ok(r) => panic!("expected {code:?}, got a success: {:?}", r.into_inner()),
        Err(s) => s,
    };
    assert_ne!(status.code(), Code::Internal, "INTERNAL: {status:?}");
    assert_eq!(status.code(), code, "{status:?}");
    let info = status.get_details_error_info().unwrap_or_else(|| panic!("no ErrorInfo: {status:?}"));
    assert_eq!(info.domain, DOMAIN, "{status:?}");
    assert!(!info.reason.is_empty(), "{status:?}");
    status
}

/// The ErrorInfo reason of a status.
#[track_caller]
pub fn reason(status: &Status) -> String {
    status.get_details_error_info().map(|i| i.reason).unwrap_or_default()
}

/// The `rule_id` metadata of a status's ErrorInfo.
#[track_caller]
pub fn rule_id(status: &Status) -> Option<String> {
    status.get_details_error_info().and_then(|i| i.metadata.get("rule_id").cloned())
}

/// Asserts that `result` failed with `code` and ErrorInfo `reason`.
#[track_caller]
pub fn expect_reason<T: std::fmt::Debug>(
    result: Result<tonic::Response<T>, Status>,
    code: Code,
    expected: &str,
) -> Status {
    let status = expect_code(result, code);
    assert_eq!(reason(&status), expected, "{status:?}");
    status
}

/// Asserts that `result` failed with INVALID_ARGUMENT and a
/// `google.rpc.BadRequest` field violation of `field`.
#[track_caller]
pub fn expect_bad_field<T: std::fmt::Debug>(
    result: Result<tonic::Response<T>, Status>,
    field: &str,
) -> Status {
    let status = expect_code(result, Code::InvalidArgument);
    let bad = status.get_details_bad_request().unwrap_or_else(|| panic!("no BadRequest: {status:?}"));
    assert!(
        bad.field_violations.iter().any(|v| v.field == field && !v.description.is_empty()),
        "no violation of `{field}` in {:?}",
        bad.field_violations
    );
    status
}

// ---------------------------------------------------------------------------
// Games
// ---------------------------------------------------------------------------

/// A created game and its players' clients.
#[derive(Debug)]
pub struct Table {
    pub name: String,
    pub game: pb::Game,
    pub white: Client,
    pub black: Client,
    pub white_token: String,
    pub black_token: String,
}

impl Table {
    /// The client of `color`.
    pub fn player(&mut self, color: pb::Color) -> &mut Client {
        match color {
            pb::Color::Black => &mut self.black,
            _ => &mut self.white,
        }
    }
}

/// Creates a game with `client` (arbiter or service) and connects its players.
pub async fn create(server: &TestServer, client: &mut Client, request: pb::CreateGameRequest) -> Table {
    let created = client.create_game(request).await.expect("CreateGame").into_inner();
    let game = created.game.expect("game");
    Table {
        name: game.name.clone(),
        white: server.client(Some(&created.white_token)).await,
        black: server.client(Some(&created.black_token)).await,
        white_token: created.white_token,
        black_token: created.black_token,
        game,
    }
}

/// The colour to move after `ply` plies from a position with White to move.
pub fn color_of_ply(ply: usize) -> pb::Color {
    if ply.is_multiple_of(2) { pb::Color::White } else { pb::Color::Black }
}

/// A MakeMove request (colour unspecified: a player token supplies it).
pub fn make_move(name: &str, mv: &str) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest { name: name.to_string(), r#move: mv.to_string(), ..Default::default() }
}

/// Plays `moves` online with the players' tokens, White first; returns the
/// responses.
pub async fn play_online(table: &mut Table, moves: &[&str]) -> Vec<pb::MakeMoveResponse> {
    let mut out = Vec::new();
    let first = table.game.moves_uci.len();
    for (i, mv) in moves.iter().enumerate() {
        let name = table.name.clone();
        let player = table.player(color_of_ply(first + i));
        let r = player
            .make_move(make_move(&name, mv))
            .await
            .unwrap_or_else(|e| panic!("move {mv}: {e:?}"))
            .into_inner();
        table.game = r.game.clone().expect("game");
        out.push(r);
    }
    out
}

/// Plays `moves` over the board with the client `by` (an arbiter console
/// naming the colour): MakeMove then PressClock for each, except a move that
/// ends the game (it is completed at once, Law 6.2.1.1). Returns the game.
pub async fn play_otb(by: &mut Client, name: &str, first_ply: usize, moves: &[&str]) -> pb::Game {
    let mut game = None;
    for (i, mv) in moves.iter().enumerate() {
        let color = color_of_ply(first_ply + i) as i32;
        let made = by
            .make_move(pb::MakeMoveRequest { color, ..make_move(name, mv) })
            .await
            .unwrap_or_else(|e| panic!("move {mv}: {e:?}"))
            .into_inner();
        let g = made.game.expect("game");
        assert!(
            made.event.as_ref().unwrap().rulings.iter().any(|r| r.decision == "MOVE_MADE"),
            "move {mv} was not made: {:?}",
            made.event
        );
        if g.status == pb::GameStatus::Finished as i32 {
            game = Some(g);
            break;
        }
        let pressed = by
            .press_clock(pb::PressClockRequest { name: name.to_string(), color, ..Default::default() })
            .await
            .unwrap_or_else(|e| panic!("press after {mv}: {e:?}"))
            .into_inner();
        assert!(
            pressed.event.as_ref().unwrap().rulings.iter().any(|r| r.decision == "MOVE_COMPLETED"),
            "move {mv} was not completed: {:?}",
            pressed.event
        );
        game = pressed.game;
    }
    game.expect("at least one move")
}

/// The game as it stands.
pub async fn get_game(client: &mut Client, name: &str) -> pb::Game {
    client
        .get_game(pb::GetGameRequest { name: name.to_string() })
        .await
        .expect("GetGame")
        .into_inner()
        .game
        .expect("game")
}

/// Every recorded event of a game, read page by page.
pub async fn all_events(client: &mut Client, name: &str) -> Vec<pb::GameEvent> {
    try_all_events(client, name).await.expect("ListGameEvents")
}

/// Every recorded event of a game, read page by page, or the first error.
///
/// # Errors
/// The status of a failed page.
pub async fn try_all_events(client: &mut Client, name: &str) -> Result<Vec<pb::GameEvent>, Status> {
    let mut events = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = client
            .list_game_events(pb::ListGameEventsRequest {
                parent: name.to_string(),
                page_size: 1000,
                page_token: page_token.clone(),
            })
            .await?
            .into_inner();
        events.extend(page.events);
        if page.next_page_token.is_empty() {
            return Ok(events);
        }
        page_token = page.next_page_token;
    }
}

/// The first ruling of `event` with `decision`.
pub fn ruling<'a>(event: &'a pb::GameEvent, decision: &str) -> Option<&'a pb::Ruling> {
    event.rulings.iter().find(|r| r.decision == decision)
}

/// The ruling of `event` with `decision`, or a panic that shows the event.
#[track_caller]
pub fn expect_ruling<'a>(event: &'a pb::GameEvent, decision: &str) -> &'a pb::Ruling {
    ruling(event, decision).unwrap_or_else(|| panic!("no {decision} ruling in {event:#?}"))
}

/// The clocks of a game (panics without).
pub fn clocks(game: &pb::Game) -> &pb::ClockReading {
    game.clocks.as_ref().expect("clocks")
}
