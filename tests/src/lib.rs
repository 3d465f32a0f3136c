//! The harness of the end-to-end tests: a real `arbiterd` (the library's
//! `run`, exactly what the binary calls) on `127.0.0.1:0` with its own
//! SQLite file, and gRPC clients that carry a bearer token.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_proto::v1 as pb;
use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use arbiter_server::auth::Role;
use arbiter_server::{Config, ServerError};
use tokio::sync::oneshot;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

pub use arbiter_proto::v1;

/// The arbiter token every test server accepts.
pub const ARBITER_TOKEN: &str = "test-arbiter-token-0123456789";
/// The service token.
pub const SERVICE_TOKEN: &str = "test-service-token-0123456789";
/// The viewer token.
pub const VIEWER_TOKEN: &str = "test-viewer-token-01234567890";

/// Adds `authorization: Bearer <token>` to every request.
#[derive(Clone, Debug)]
pub struct Bearer(Option<MetadataValue<Ascii>>);

impl Bearer {
    /// A bearer token (panics on a token that is not ASCII: test input).
    pub fn new(token: &str) -> Bearer {
        Bearer(Some(format!("Bearer {token}").parse().expect("ascii token")))
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
    pub database_url: String,
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
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
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
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let served = arbiter_server::run(listener, config, async {
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
        let server =
            TestServer { addr, database_url, dir, stop: Some(stop), kill: Some(kill), thread: Some(thread) };
        server.wait_ready().await;
        server
    }

    async fn wait_ready(&self) {
        for _ in 0..200 {
            if let Ok(channel) = Channel::from_shared(self.url()).expect("url").connect().await {
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

    /// `http://addr`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The directory holding the database.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(tempfile::TempDir::path)
    }

    /// A client carrying `token` (`None`: no authorization header).
    pub async fn client(&self, token: Option<&str>) -> Client {
        let channel = Channel::from_shared(self.url()).expect("url").connect().await.expect("connect");
        let bearer = Bearer(token.map(|t| format!("Bearer {t}").parse().expect("ascii token")));
        ArbiterServiceClient::with_interceptor(channel, bearer)
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

/// Regulations with just a time control and a mode.
pub fn regulations(time_control: &str, mode: pb::Mode) -> pb::Regulations {
    pb::Regulations { time_control: time_control.to_string(), mode: mode as i32, ..Default::default() }
}

/// A CreateGame request.
pub fn new_game(regulations: pb::Regulations, start: bool) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        event: "Test Open".into(),
        round: "1".into(),
        white: Some(pb::Player { name: "White, Player".into(), fide_id: String::new() }),
        black: Some(pb::Player { name: "Black, Player".into(), fide_id: String::new() }),
        regulations: Some(regulations),
        start,
        ..Default::default()
    }
}

/// A path in the shared test data (`../shared` beside the repository, or
/// `$ARBITER_SHARED`).
pub fn shared(path: &str) -> PathBuf {
    let base = std::env::var_os("ARBITER_SHARED")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"), PathBuf::from);
    base.join(path)
}
