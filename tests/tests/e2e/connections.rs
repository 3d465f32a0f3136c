//! The connection gate (`arbiter_server::connections`): connections that
//! send nothing are closed at the handshake deadline on the plain-text
//! port, the TLS port and the metrics port; connections over the cap are
//! closed at once and counted; the service answers again once the idle
//! ones are gone; an established connection outlives the deadline.

use std::time::{Duration, Instant};

use arbiter_e2e::sockets::{
    self, Ending, HALF_CLIENT_HELLO, HALF_PREFACE, PREFACE_AND_SETTINGS, local_metric, silent, wait_closed,
};
use arbiter_e2e::{TestServer, new_game, regulations, v1 as pb};
use arbiter_server::{ConnectionLimits, TlsFiles};

/// The handshake deadline the tests configure: short, so they run fast,
/// long enough that a loaded machine still tells it from "at once".
const DEADLINE: Duration = Duration::from_secs(1);
/// How late a close may come after the deadline on a busy test machine.
const SLACK: Duration = Duration::from_secs(3);

/// Asserts that a connection opened at `since` was closed by the server
/// at its handshake deadline: not before most of it had passed (so it was
/// the deadline and not an error), and not much after.
fn assert_closed_at_deadline(what: &str, ending: Ending) {
    match ending {
        Ending::Closed(after) => assert!(
            after >= DEADLINE.mul_f64(0.9) && after <= DEADLINE + SLACK,
            "{what}: closed after {after:?}, the deadline being {DEADLINE:?}"
        ),
        Ending::StillOpen => {
            panic!("{what}: still open {:?} after a deadline of {DEADLINE:?}", DEADLINE + SLACK)
        }
    }
}

async fn server_with(limits: ConnectionLimits) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    TestServer::start_with(Some(dir), url, move |c| c.connections = limits).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_half_preface_connections_are_closed_at_the_deadline() {
    let server =
        server_with(ConnectionLimits { handshake_timeout: DEADLINE, ..ConnectionLimits::GRPC_DEFAULT }).await;
    let before =
        local_metric("arbiter_connections_closed_total", &["port=\"grpc\"", "reason=\"handshake_timeout\""]);
    let opened = Instant::now();
    let mut quiet = silent(server.addr, b"").await;
    let mut half = silent(server.addr, HALF_PREFACE).await;
    let (quiet, half) = tokio::join!(
        wait_closed(&mut quiet, opened, DEADLINE + SLACK),
        wait_closed(&mut half, opened, DEADLINE + SLACK)
    );
    assert_closed_at_deadline("a connection that sends nothing", quiet);
    assert_closed_at_deadline("a connection that sends half the HTTP/2 preface", half);
    let after =
        local_metric("arbiter_connections_closed_total", &["port=\"grpc\"", "reason=\"handshake_timeout\""]);
    assert!(after >= before + 2.0, "handshake timeouts counted {before} -> {after}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_established_connection_outlives_the_handshake_deadline() {
    let server =
        server_with(ConnectionLimits { handshake_timeout: DEADLINE, ..ConnectionLimits::GRPC_DEFAULT }).await;
    let mut arbiter = server.arbiter().await;
    let created = arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap();
    let name = created.into_inner().game.unwrap().name;
    // Quiet for twice the deadline, then a call on the same connection: the
    // deadline is for the handshake only (keepalive PINGs watch the rest).
    tokio::time::sleep(DEADLINE * 2).await;
    let game = arbiter.get_game(pb::GetGameRequest { name }).await;
    assert!(game.is_ok(), "a call on an established connection failed: {game:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_without_calls_are_closed_at_the_idle_timeout_and_calls_keep_theirs() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let server = TestServer::start_with(Some(dir), url, |c| c.idle_connection_timeout = DEADLINE).await;
    let idle = ["port=\"grpc\"", "reason=\"idle_timeout\""];
    let before = local_metric("arbiter_connections_closed_total", &idle);

    // A watch stream is a call in flight for as long as it is open.
    let mut arbiter = server.arbiter().await;
    let created = arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap();
    let created = created.into_inner();
    let name = created.game.unwrap().name;
    let mut watcher = server.arbiter().await;
    let mut watch = watcher
        .watch_game(pb::WatchGameRequest { name: name.clone(), after_seq: 0 })
        .await
        .expect("watch")
        .into_inner();

    // A client that shakes hands and then calls nothing is closed at the
    // idle timeout (the handshake deadline is 10 s: it is not that).
    let opened = Instant::now();
    let mut shook = silent(server.addr, PREFACE_AND_SETTINGS).await;
    assert_closed_at_deadline(
        "a connection without calls",
        wait_closed(&mut shook, opened, DEADLINE + SLACK).await,
    );

    // The watch outlived the idle timeout on its connection: a move made
    // after three timeouts reaches it.
    tokio::time::sleep(DEADLINE * 3).await;
    let mut white = server.client(Some(&created.white_token)).await;
    white.make_move(arbiter_e2e::make_move(&name, "e2e4")).await.expect("e4");
    let seen = tokio::time::timeout(DEADLINE + SLACK, async {
        while let Some(item) = tokio_stream::StreamExt::next(&mut watch).await {
            if let Ok(pb::WatchGameResponse { item: Some(pb::watch_game_response::Item::Event(e)) }) = item
                && e.seq == 2
            {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(seen, Ok(true), "the watch stream was cut");

    // The arbiter's connection, left without calls, was closed; its next
    // call opens a new one, unseen by the caller.
    let game = arbiter.get_game(pb::GetGameRequest { name }).await;
    assert!(game.is_ok(), "a call after the idle timeout failed: {game:?}");
    assert!(
        local_metric("arbiter_connections_closed_total", &idle) >= before + 2.0,
        "the silent connection and the arbiter's idle one are counted"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_connections_without_a_finished_handshake_are_closed_at_the_deadline() {
    let certs = tempfile::tempdir().unwrap();
    let (ca, cert_pem, key_pem) = arbiter_e2e::test_certificates(certs.path());
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let server = TestServer::start_tls_with(Some(dir), url, TlsFiles { cert_pem, key_pem }, ca, |c| {
        c.connections.handshake_timeout = DEADLINE;
    })
    .await;
    let opened = Instant::now();
    let mut quiet = silent(server.addr, b"").await;
    let mut half = silent(server.addr, HALF_CLIENT_HELLO).await;
    let (quiet, half) = tokio::join!(
        wait_closed(&mut quiet, opened, DEADLINE + SLACK),
        wait_closed(&mut half, opened, DEADLINE + SLACK)
    );
    assert_closed_at_deadline("a TLS connection that never sends its ClientHello", quiet);
    assert_closed_at_deadline("a TLS connection that sends half a ClientHello", half);
    // A real TLS client still gets in, and its connection outlives the
    // deadline.
    let mut arbiter = server.arbiter().await;
    let created = arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap();
    let name = created.into_inner().game.unwrap().name;
    tokio::time::sleep(DEADLINE * 2).await;
    assert!(arbiter.get_game(pb::GetGameRequest { name }).await.is_ok());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_port_closes_silent_connections_and_caps_them() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = ConnectionLimits { max_connections: 3, handshake_timeout: DEADLINE };
    let serving = tokio::spawn(arbiter_server::serve_metrics(listener, limits));
    let refused = ["port=\"metrics\"", "reason=\"over_cap\""];
    let timed_out = ["port=\"metrics\"", "reason=\"handshake_timeout\""];
    let (refused_before, timed_out_before) = (
        local_metric("arbiter_connections_refused_total", &refused),
        local_metric("arbiter_connections_closed_total", &timed_out),
    );

    let opened = Instant::now();
    let mut quiet = Vec::new();
    for first in [&b""[..], b"GET /metr", b"GET /metrics HTTP/1.1\r\n"] {
        quiet.push(silent(addr, first).await);
    }
    // The cap is full: one more is closed at once, long before the deadline.
    let over = Instant::now();
    let mut fourth = silent(addr, b"GET /metrics HTTP/1.1\r\n\r\n").await;
    match wait_closed(&mut fourth, over, DEADLINE + SLACK).await {
        Ending::Closed(after) => {
            assert!(after < DEADLINE / 2, "the connection over the cap lasted {after:?}")
        }
        Ending::StillOpen => panic!("the connection over the cap was kept"),
    }
    for (i, stream) in quiet.iter_mut().enumerate() {
        assert_closed_at_deadline(
            &format!("metrics connection {i}"),
            wait_closed(stream, opened, DEADLINE + SLACK).await,
        );
    }
    assert!(local_metric("arbiter_connections_refused_total", &refused) >= refused_before + 1.0);
    assert!(local_metric("arbiter_connections_closed_total", &timed_out) >= timed_out_before + 3.0);

    // The places are free again: a scrape is answered.
    let mut scrape = silent(addr, b"GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n").await;
    let mut answer = String::new();
    let read =
        tokio::time::timeout(SLACK, tokio::io::AsyncReadExt::read_to_string(&mut scrape, &mut answer)).await;
    assert!(matches!(read, Ok(Ok(_))), "the scrape was not answered: {read:?}");
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer:.200}");
    assert!(
        sockets::metric(&answer, "arbiter_connections_refused_total", &refused) >= 1.0,
        "the refusal is not in the scrape"
    );
    serving.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_cap_are_refused_and_the_service_recovers() {
    const CAP: usize = 6;
    let server = server_with(ConnectionLimits { max_connections: CAP, handshake_timeout: DEADLINE }).await;
    let mut arbiter = server.arbiter().await;
    let created = arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap();
    let name = created.into_inner().game.unwrap().name;
    let refused = ["port=\"grpc\"", "reason=\"over_cap\""];
    let before = local_metric("arbiter_connections_refused_total", &refused);

    // More silent connections than places, opened in a burst: the ones
    // admitted stay quiet until the deadline, the ones over the cap are
    // closed at once. The arbiter's connection holds a place (the
    // harness's readiness probe may still hold another).
    let mut opened = Vec::new();
    for _ in 0..CAP + 2 {
        opened.push((Instant::now(), silent(server.addr, b"").await));
    }
    let mut idle = Vec::new();
    let mut refusals = 0;
    for (at, mut stream) in opened {
        match wait_closed(&mut stream, at, DEADLINE / 2).await {
            Ending::StillOpen => idle.push((at, stream)),
            Ending::Closed(_) => refusals += 1,
        }
    }
    assert!(
        !idle.is_empty() && idle.len() < CAP,
        "{} silent connections admitted under a cap of {CAP}",
        idle.len()
    );
    assert!(refusals >= 3, "{refusals} connections refused over the cap");
    assert!(local_metric("arbiter_connections_refused_total", &refused) >= before + f64::from(refusals));
    // The established connection keeps working while the cap is full.
    assert!(arbiter.get_game(pb::GetGameRequest { name: name.clone() }).await.is_ok());

    // The idle ones are reaped at their deadline; then a new client gets in.
    for (opened, stream) in &mut idle {
        assert_closed_at_deadline(
            "an idle connection holding a place",
            wait_closed(stream, *opened, DEADLINE + SLACK).await,
        );
    }
    let mut newcomer = server.arbiter().await;
    let game = newcomer.get_game(pb::GetGameRequest { name }).await;
    assert!(game.is_ok(), "GetGame after the idle connections were reaped: {game:?}");
    server.stop().await;
}
