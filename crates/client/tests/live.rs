//! `arbiter_client` against a real `arbiterd` (`arbiter_server::run`, what
//! the binary runs) on 127.0.0.1 with a temporary SQLite file, on a thread
//! and runtime of its own as it would be in its own process: a game to
//! mate, a watch that survives a killed and a restarted server without gaps
//! or repeats, errors, and TLS. The CLI's live tests are in `crates/cli`.

use std::net::SocketAddr;
use std::time::Duration;

use arbiter_client::{Client, Code, Color, RetryPolicy, TlsOptions, WatchItem, WatchOptions, pb};
use arbiter_e2e::{ARBITER_TOKEN, TestServer, VIEWER_TOKEN};
use arbiter_server::TlsFiles;
use tokio_stream::StreamExt;

/// A fresh SQLite file in `dir`.
fn database(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("arbiter.db").display())
}

/// A server on any port and `database_url` (the shared end-to-end harness).
async fn start(database_url: &str) -> TestServer {
    TestServer::start_with(None, database_url.to_string(), |_| {}).await
}

fn online_game(id: &str) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        game_id: id.to_string(),
        event: "Live Test".into(),
        round: "1".into(),
        white: Some(pb::Player { name: "White, Player".into(), ..Default::default() }),
        black: Some(pb::Player { name: "Black, Player".into(), ..Default::default() }),
        regulations: Some(pb::Regulations {
            time_control: "90+30".into(),
            mode: pb::Mode::Online as i32,
            ..Default::default()
        }),
        start: true,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_to_mate_with_a_watch_across_a_kill_and_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(&dir);
    let server = start(&db).await;
    let addr = server.addr;
    let arbiter = Client::connect(server.url(), Some(ARBITER_TOKEN.into()), None).await.unwrap();

    let created = arbiter.create_game(online_game("live-mate")).await.unwrap();
    let game = created.game.clone().unwrap();
    assert_eq!(game.name, "games/live-mate");
    assert_eq!(game.status, pb::GameStatus::InProgress as i32);
    let white = arbiter.with_token(Some(&created.white_token)).unwrap();
    let black = arbiter.with_token(Some(&created.black_token)).unwrap();

    // The watch, collected on a task of its own until the game is over.
    let options = WatchOptions {
        reconnect: RetryPolicy {
            attempts: 100,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_millis(300),
        },
        idle_timeout: Some(Duration::from_secs(5)),
    };
    let mut watch = arbiter.watch_with("live-mate", 0, options);
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel::<i64>();
    let watcher = tokio::spawn(async move {
        let mut items = Vec::new();
        while let Some(item) = watch.next().await {
            let item = item.expect("watch item");
            if let WatchItem::Event(e) = &item {
                let _ = seen_tx.send(e.seq);
            }
            items.push(item);
        }
        items
    });
    // Waits until the watcher has delivered the event `seq`.
    let mut seen = 0;
    let mut wait_seen = async |seq: i64| {
        while seen < seq {
            seen = tokio::time::timeout(Duration::from_secs(20), seen_rx.recv())
                .await
                .expect("the watch delivers")
                .expect("watching");
        }
    };

    // The same call sent twice is applied once (same request id).
    let call = white.make_move("live-mate", None, "e4");
    let first = call.send().await.unwrap();
    let again = call.send().await.unwrap();
    assert_eq!(first.event.seq, again.event.seq);
    assert_eq!(first.event.request_id, call.id());
    assert_eq!(again.game.moves_san, ["e4"]);
    black.make_move("games/live-mate", None, "e5").await.unwrap();
    wait_seen(first.event.seq + 1).await;

    // Kill the server mid-watch; restart it on the same address and data.
    server.kill().await;
    let server = TestServer::start_at(addr, None, db.clone(), |_| {}).await;
    // The first call after the restart may meet the dead connection: the
    // retry policy resends it.
    let o = white.make_move("live-mate", Color::White, "Bc4").await.unwrap();
    let o2 = black.make_move("live-mate", Color::Black, "Nc6").await.unwrap();
    assert_eq!(o2.event.seq, o.event.seq + 1);
    wait_seen(o2.event.seq).await;

    // Now a graceful stop (watchers are told UNAVAILABLE) and a restart.
    server.stop().await;
    let server = TestServer::start_at(addr, None, db.clone(), |_| {}).await;
    white.make_move("live-mate", None, "Qh5").await.unwrap();
    black.make_move("live-mate", None, "Nf6").await.unwrap();
    let mate = white.make_move("live-mate", None, "Qxf7#").await.unwrap();
    assert!(mate.finished());
    let end = mate.game.end.clone().unwrap();
    assert_eq!(end.result, "1-0");
    assert_eq!(end.rule_id, "FIDE-5.1.1");

    // The watch ends by itself once the game is over.
    let items =
        tokio::time::timeout(Duration::from_secs(30), watcher).await.expect("the watch ended").unwrap();
    let seqs: Vec<i64> = items
        .iter()
        .filter_map(|i| match i {
            WatchItem::Event(e) => Some(e.seq),
            _ => None,
        })
        .collect();
    let last_seq = mate.game.last_seq;
    assert_eq!(seqs, (1..=last_seq).collect::<Vec<_>>(), "no gaps, no duplicates");
    let reconnects = items.iter().filter(|i| matches!(i, WatchItem::Reconnecting { .. })).count();
    assert!(reconnects >= 2, "two breaks, {reconnects} reconnections: {items:#?}");
    let resumed = items.iter().filter(|i| matches!(i, WatchItem::Game { resumed: true, .. })).count();
    assert!(resumed >= 2, "{resumed} resumed snapshots");
    assert!(matches!(items.first(), Some(WatchItem::Game { resumed: false, .. })));

    // The watched events are the recorded ones.
    let events = arbiter.all_events("live-mate").await.unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
    for (watched, recorded) in items
        .iter()
        .filter_map(|i| match i {
            WatchItem::Event(e) => Some(e),
            _ => None,
        })
        .zip(&events)
    {
        assert_eq!(watched.act, recorded.act);
        assert_eq!(watched.fen, recorded.fen);
    }

    // A watch of a finished game replays everything and ends.
    let replay: Vec<_> = arbiter.watch("live-mate", 0).collect().await;
    let replay_seqs: Vec<i64> = replay
        .iter()
        .filter_map(|i| match i {
            Ok(WatchItem::Event(e)) => Some(e.seq),
            _ => None,
        })
        .collect();
    assert_eq!(replay_seqs, seqs);
    // ... and from the last seq, only the snapshot.
    let tail: Vec<_> = arbiter.watch("live-mate", last_seq).collect().await;
    assert_eq!(tail.len(), 1, "{tail:?}");

    let pgn = arbiter.export_pgn("live-mate").await.unwrap();
    assert!(pgn.contains("4. Qxf7#"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_code_reason_rule_and_fields() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let arbiter = Client::connect(server.url(), Some(ARBITER_TOKEN.into()), None).await.unwrap();
    let created = arbiter.create_game(online_game("errs")).await.unwrap();
    let white = arbiter.with_token(Some(&created.white_token)).unwrap();

    // Refused by the Laws: Black acting while White is to move.
    let black = arbiter.with_token(Some(&created.black_token)).unwrap();
    let e = black.make_move("errs", None, "e4").await.unwrap_err();
    assert_eq!((e.code(), e.reason()), (Code::FailedPrecondition, Some("NOT_YOUR_TURN")), "{e}");
    assert_eq!(e.exit_code(), 3);
    let rule = e.rule_id().expect("a rule id").to_string();
    let article = e.article().expect("the Article the refusal rests on");
    assert_eq!(article, "OCR 4.4", "online, the clock switches by itself (OCR 4.4)");
    let text = e.to_string();
    assert!(text.starts_with(&format!("FAILED_PRECONDITION NOT_YOUR_TURN ({rule}, {article}): ")), "{text}");
    assert_eq!(text.matches(&rule).count(), 1, "the rule once: {text}");

    // Over the board: text that is not a move is malformed input (a field
    // violation of `move`); a touch binds, and another move is not made.
    let mut otb = online_game("touchy");
    otb.regulations.as_mut().unwrap().mode = pb::Mode::OverTheBoard as i32;
    arbiter.create_game(otb).await.unwrap();
    let e = arbiter.make_move("touchy", Color::White, "e9").await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.field_violations().iter().any(|v| v.field == "move"), "{e:?}");
    let touched = arbiter.touch_piece("touchy", Color::White, "g1", pb::TouchKind::Intent).await.unwrap();
    assert_eq!(touched.event.act, "TOUCH");
    assert_eq!(touched.ruling("OBLIGATION").map(|r| r.rule_id.as_str()), Some("FIDE-4.3a"));
    let refused = arbiter.make_move("touchy", Color::White, "e4").await.unwrap();
    assert!(refused.ruling("MOVE_MADE").is_none(), "{refused:?}");
    assert!(refused.ruling("OBLIGATION").is_some(), "{refused:?}");

    // Malformed input: a field violation.
    let mut bad = online_game("bad-one");
    bad.regulations.as_mut().unwrap().time_control.clear();
    let e = arbiter.create_game(bad).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.field_violations().iter().any(|v| v.field.contains("time_control")), "{e:?}");

    // Not found, and without a token.
    let e = arbiter.get_game("no-such-game").await.unwrap_err();
    assert_eq!((e.code(), e.reason()), (Code::NotFound, Some("NOT_FOUND")), "{e}");
    assert_eq!(e.exit_code(), 2);
    let anonymous = arbiter.with_token(None).unwrap();
    let e = anonymous.get_game("errs").await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e}");
    assert_eq!(e.exit_code(), 4);

    // A watch of a game that does not exist ends with the error.
    let items: Vec<_> = arbiter.watch("no-such-game", 0).collect().await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap_err().code(), Code::NotFound);

    // expected_seq: a stale version is refused with ABORTED.
    let e = white.make_move("errs", None, "e4").expected_seq(999).await.unwrap_err();
    assert_eq!(e.code(), Code::Aborted, "{e}");
    assert_eq!(e.exit_code(), 5);
    server.stop().await;

    // Nobody listening: a connection error, transient, exit 5.
    let e = Client::connect(format!("http://{}", server_addr_free()), None, None).await.unwrap_err();
    assert_eq!(e.code(), Code::Unavailable, "{e}");
    assert!(e.is_transient());
}

fn server_addr_free() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_with_a_given_ca() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert_pem, key_pem) = arbiter_e2e::test_certificates(dir.path());
    let server =
        TestServer::start_tls(None, database(&dir), TlsFiles { cert_pem, key_pem }, ca.clone()).await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = TlsOptions { ca_pem: Some(ca.clone()), domain: None };
    let mut client = None;
    for _ in 0..200 {
        match Client::connect(&url, Some(ARBITER_TOKEN.into()), Some(tls.clone())).await {
            Ok(c) if c.list_games(Default::default()).retry(RetryPolicy::NONE).await.is_ok() => {
                client = Some(c);
                break;
            }
            _ => tokio::time::sleep(Duration::from_millis(25)).await,
        }
    }
    let client = client.expect("a TLS client that trusts the CA");
    client.create_game(online_game("tls-game")).await.unwrap();

    // By address, with the name to check given.
    let by_ip = format!("https://127.0.0.1:{}", server.addr.port());
    let tls_named = TlsOptions { ca_pem: Some(ca), domain: Some("localhost".into()) };
    let c = Client::connect(&by_ip, Some(VIEWER_TOKEN.into()), Some(tls_named)).await.unwrap();
    assert_eq!(c.get_game("tls-game").await.unwrap().name, "games/tls-game");

    // Without the CA (system roots only) the certificate is not trusted.
    let untrusted = Client::connect_lazy(&url, Some(VIEWER_TOKEN.into()), None).unwrap();
    let e = untrusted.get_game("tls-game").retry(RetryPolicy::NONE).await.unwrap_err();
    assert_ne!(e.code(), Code::Ok);
    // Plain text against TLS fails too.
    let plain =
        Client::connect_lazy(format!("http://{}", server.addr), Some(VIEWER_TOKEN.into()), None).unwrap();
    assert!(plain.get_game("tls-game").retry(RetryPolicy::NONE).await.is_err());

    server.stop().await;
}
