//! The live PGN feed of a round: polled over HTTP with the event's delay
//! applied, and pushed to a lichess-compatible endpoint (a stand-in relay
//! below that records what it is sent, and refuses the first push).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tonic::Code;

/// A request the stand-in relay received.
#[derive(Debug)]
struct Pushed {
    request_line: String,
    authorization: String,
    content_type: String,
    body: String,
}

/// A lichess-like push endpoint: answers 503 to the first push and
/// `200 {"games":[]}` to the others, and hands every request to the test.
async fn relay() -> (SocketAddr, mpsc::UnboundedReceiver<Pushed>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut answered = 0;
        while let Ok((mut socket, _)) = listener.accept().await {
            let Some(pushed) = read_request(&mut socket).await else { continue };
            let answer = if answered == 0 {
                "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbusy"
            } else {
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 12\r\nconnection: close\r\n\r\n{\"games\":[]}"
            };
            answered += 1;
            let _ = socket.write_all(answer.as_bytes()).await;
            let _ = socket.shutdown().await;
            if tx.send(pushed).is_err() {
                return;
            }
        }
    });
    (addr, rx)
}

async fn read_request(socket: &mut TcpStream) -> Option<Pushed> {
    let mut data = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&chunk[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let header = |name: &str| {
        head.lines()
            .find_map(|l| {
                l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
            })
            .unwrap_or("")
            .to_owned()
    };
    let length: usize = header("content-length").parse().ok()?;
    while data.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&chunk[..n]);
    }
    Some(Pushed {
        request_line: head.lines().next().unwrap_or("").to_owned(),
        authorization: header("authorization"),
        content_type: header("content-type"),
        body: String::from_utf8_lossy(&data[head_end..head_end + length]).into_owned(),
    })
}

/// `GET path` on the feed: the status, the content type and the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
    let mut socket = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let content_type = head.lines().find_map(|l| l.strip_prefix("content-type: ")).unwrap_or("").to_owned();
    (status, content_type, body.to_owned())
}

/// The feed of a round, which must be served.
async fn feed(server: &TestServer, event: &str, round: u16) -> String {
    let (status, content_type, body) =
        get(server.http_addr, &format!("/events/{event}/rounds/{round}/pgn")).await;
    assert_eq!(status, 200, "{event} round {round}: {body}");
    assert_eq!(content_type, "application/x-chess-pgn; charset=utf-8");
    body
}

/// The PGN of board `n` in a round's PGN.
fn board(pgn: &str, n: u32) -> &str {
    let tag = format!("[Board \"{n}\"]");
    let starts: Vec<usize> = pgn.match_indices("[Event ").map(|(i, _)| i).collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &start)| &pgn[start..starts.get(k + 1).copied().unwrap_or(pgn.len())])
        .find(|game| game.contains(&tag))
        .unwrap_or_else(|| panic!("no board {n} in {pgn}"))
}

fn participants() -> Vec<pb::Participant> {
    ["Aa, Ann", "Bb, Ben", "Cc, Cid", "Dd, Dee"]
        .iter()
        .enumerate()
        .map(|(i, name)| pb::Participant {
            start_number: i as i32 + 1,
            name: (*name).to_owned(),
            rating: 2000 - 50 * i as i32,
            ..Default::default()
        })
        .collect()
}

async fn create_event(arbiter: &mut Client, id: &str, broadcast: Option<pb::Broadcast>) -> pb::Event {
    let event = pb::Event {
        title: format!("Feed {id}"),
        regulations: Some(regulations("90+30", pb::Mode::OverTheBoard)),
        participants: participants(),
        broadcast,
        ..Default::default()
    };
    arbiter
        .create_event(pb::CreateEventRequest {
            event_id: id.into(),
            event: Some(event),
            request_id: String::new(),
        })
        .await
        .unwrap_or_else(|e| panic!("create {id}: {e:?}"))
        .into_inner()
        .event
        .unwrap()
}

async fn start_round(arbiter: &mut Client, event: &str, pairings: &str, push_url: &str) -> pb::Round {
    arbiter
        .create_round(pb::CreateRoundRequest {
            parent: format!("events/{event}"),
            pairings: pairings.into(),
            start: true,
            broadcast_push_url: push_url.into(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("round of {event}: {e:?}"))
        .into_inner()
        .round
        .unwrap()
}

fn game_of(round: &pb::Round, board: i32) -> String {
    round.boards.iter().find(|b| b.number == board).unwrap().game.clone()
}

/// The next push, within a few seconds.
async fn next_push(pushes: &mut mpsc::UnboundedReceiver<Pushed>, what: &str) -> Pushed {
    tokio::time::timeout(Duration::from_secs(10), pushes.recv())
        .await
        .unwrap_or_else(|_| panic!("no push: {what}"))
        .expect("the relay runs")
}

/// The first push that `wanted` accepts (earlier ones are skipped: a push
/// is made for every change, and several may have been made meanwhile).
async fn push_where(
    pushes: &mut mpsc::UnboundedReceiver<Pushed>,
    what: &str,
    wanted: impl Fn(&Pushed) -> bool,
) -> Pushed {
    loop {
        let p = next_push(pushes, what).await;
        assert_eq!(p.authorization, "Bearer lip_feed-token");
        assert_eq!(p.content_type, "text/plain; charset=utf-8");
        if wanted(&p) {
            return p;
        }
    }
}

/// Polled: an event's round as its broadcast shows it, with no delay and
/// with one (moves and the result appear only once the delay has passed),
/// and what is not broadcast is not served. Pushed: the round goes to the
/// push URL with the bearer token, again after a refused push, again when a
/// move is made and not otherwise; a round's own push URL is used for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_is_broadcast_polled_with_its_delay_and_pushed() {
    const DELAY_S: u64 = 4;
    let (relay_addr, mut pushes) = relay().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let server = TestServer::start_with(Some(dir), url, |config| {
        config.broadcast_push_interval = Duration::from_millis(200);
    })
    .await;
    let mut arbiter = server.arbiter().await;

    // Settings that cannot work are refused, naming the field.
    let bad = |broadcast: pb::Broadcast| pb::CreateEventRequest {
        event_id: "bad".into(),
        event: Some(pb::Event {
            title: "Bad".into(),
            regulations: Some(regulations("90+30", pb::Mode::OverTheBoard)),
            participants: participants(),
            broadcast: Some(broadcast),
            ..Default::default()
        }),
        request_id: String::new(),
    };
    for (broadcast, field) in [
        (
            pb::Broadcast { push_url: "ftp://relay.example/push".into(), ..Default::default() },
            "event.broadcast.push_url",
        ),
        (
            pb::Broadcast { push_url: "https://user:pw@relay.example/push".into(), ..Default::default() },
            "event.broadcast.push_url",
        ),
        (
            pb::Broadcast { push_token: "two words".into(), ..Default::default() },
            "event.broadcast.push_token",
        ),
        (pb::Broadcast { delay_seconds: -1, ..Default::default() }, "event.broadcast.delay_seconds"),
    ] {
        expect_bad_field(arbiter.create_event(bad(broadcast)).await, field);
    }

    let live = create_event(
        &mut arbiter,
        "live",
        Some(pb::Broadcast {
            public_view: false,
            delay_seconds: 0,
            push_url: format!("http://{relay_addr}/api/broadcast/round/{{round}}/push"),
            push_token: "lip_feed-token".into(),
        }),
    )
    .await;
    let shown = live.broadcast.expect("the broadcast settings are shown");
    assert_eq!(shown.push_token, "", "the push token is write-only");
    assert_eq!(shown.push_url, format!("http://{relay_addr}/api/broadcast/round/{{round}}/push"));
    create_event(
        &mut arbiter,
        "delayed",
        Some(pb::Broadcast { public_view: false, delay_seconds: DELAY_S as i32, ..Default::default() }),
    )
    .await;
    let quiet = create_event(&mut arbiter, "quiet", None).await;
    assert_eq!(quiet.broadcast, None, "an event without a broadcast has none");

    // A round's push URL is checked like the event's.
    expect_bad_field(
        arbiter
            .create_round(pb::CreateRoundRequest {
                parent: "events/live".into(),
                pairings: "1 2\n3 4\n".into(),
                broadcast_push_url: "not a url".into(),
                ..Default::default()
            })
            .await,
        "broadcast_push_url",
    );

    let live_1 = start_round(&mut arbiter, "live", "1 2\n3 4\n", "").await;
    // Pushed: the relay refuses the first push; the same round is pushed
    // again at the next turn, with the token, as text.
    let refused = next_push(&mut pushes, "the first push").await;
    let pushed = next_push(&mut pushes, "the push after a refusal").await;
    for p in [&refused, &pushed] {
        assert_eq!(p.request_line, "POST /api/broadcast/round/1/push HTTP/1.1");
        assert_eq!(p.authorization, "Bearer lip_feed-token");
        assert_eq!(p.content_type, "text/plain; charset=utf-8");
    }
    assert_eq!(pushed.body, refused.body, "nothing was played in between");
    assert!(
        pushed.body.contains("[Board \"2\"]") && pushed.body.contains("[White \"Cc, Cid\"]"),
        "{}",
        pushed.body
    );
    // Nothing changed: nothing more is pushed.
    let quiet_for = tokio::time::timeout(Duration::from_secs(1), pushes.recv()).await;
    assert!(quiet_for.is_err(), "an unchanged round is not pushed again: {quiet_for:?}");

    let delayed_1 = start_round(&mut arbiter, "delayed", "1 2\n3 4\n", "").await;
    start_round(&mut arbiter, "quiet", "1 2\n3 4\n", "").await;

    // No delay: the moves at once, with their clocks.
    play_otb(&mut arbiter, &game_of(&live_1, 1), 0, &["e4", "e5"]).await;
    let pgn = feed(&server, "live", 1).await;
    assert!(pgn.contains("[Round \"1\"]") && pgn.contains("[White \"Aa, Ann\"]"), "{pgn}");
    let b1 = board(&pgn, 1);
    assert!(b1.contains("1. e4 {[%clk ") && b1.contains("1... e5 {[%clk "), "{b1}");
    assert!(b1.contains("[Result \"*\"]"), "{b1}");
    assert!(board(&pgn, 2).contains("[Result \"*\"]"));

    // A delay: nothing of what was just played, then all of it.
    let game = game_of(&delayed_1, 1);
    let acted = Instant::now();
    play_otb(&mut arbiter, &game, 0, &["d4", "d5"]).await;
    arbiter
        .resign_game(pb::ResignGameRequest {
            name: game.clone(),
            color: pb::Color::White as i32,
            ..Default::default()
        })
        .await
        .unwrap();
    let resigned = Instant::now();
    let early = feed(&server, "delayed", 1).await;
    assert!(
        acted.elapsed() < Duration::from_secs(DELAY_S),
        "the test was too slow to see the feed before its delay passed"
    );
    let b1 = board(&early, 1);
    assert!(!b1.contains("d4"), "a move made less than the delay ago is not published: {b1}");
    assert!(b1.contains("[Result \"*\"]") && !b1.contains("Termination"), "nor is the result: {b1}");
    tokio::time::sleep_until((resigned + Duration::from_secs(DELAY_S) + Duration::from_millis(500)).into())
        .await;
    let late = feed(&server, "delayed", 1).await;
    let b1 = board(&late, 1);
    assert!(b1.contains("1. d4 {[%clk ") && b1.contains("d5"), "after the delay the moves are out: {b1}");
    assert!(b1.contains("[Result \"0-1\"]") && b1.contains("0-1\n"), "and the result: {b1}");

    // What is not broadcast, or not there, is not served.
    for (path, status) in [
        ("/events/quiet/rounds/1/pgn", 404),
        ("/events/nobody/rounds/1/pgn", 404),
        ("/events/NOT_AN_ID/rounds/1/pgn", 404),
        ("/events/live/rounds/9/pgn", 404),
        ("/events/live/rounds/one/pgn", 400),
        ("/metrics", 404),
    ] {
        let (got, _, body) = get(server.http_addr, path).await;
        assert_eq!(got, status, "{path}: {body}");
    }

    // The moves were pushed as they came: the last push is the feed.
    let now = feed(&server, "live", 1).await;
    push_where(&mut pushes, "the moves", |p| p.body == now).await;
    play_otb(&mut arbiter, &game_of(&live_1, 1), 2, &["Nf3"]).await;
    push_where(&mut pushes, "after a move", |p| board(&p.body, 1).contains("2. Nf3")).await;

    // A round with its own push URL (a lichess round's) is pushed there.
    let own = format!("http://{relay_addr}/api/broadcast/round/AbCd1234/push");
    let live_2 = start_round(&mut arbiter, "live", "3 1\n4 2\n", &own).await;
    assert_eq!(live_2.broadcast_push_url, own);
    let read = arbiter
        .get_round(pb::GetRoundRequest { name: live_2.name.clone() })
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap();
    assert_eq!(read.broadcast_push_url, own);
    let second = push_where(&mut pushes, "round 2", |p| !p.request_line.contains("/round/1/")).await;
    assert_eq!(second.request_line, "POST /api/broadcast/round/AbCd1234/push HTTP/1.1");
    assert!(
        second.body.contains("[Round \"2\"]") && second.body.contains("[White \"Cc, Cid\"]"),
        "{}",
        second.body
    );

    // ExportRoundPgn is never delayed.
    let exported = arbiter
        .export_round_pgn(pb::ExportRoundPgnRequest { name: delayed_1.name.clone() })
        .await
        .unwrap()
        .into_inner()
        .pgn;
    assert!(board(&exported, 1).contains("1. d4"));
}

/// The next published round of a WatchBroadcast stream, heartbeats skipped.
async fn next_published(
    stream: &mut tonic::Streaming<pb::WatchBroadcastResponse>,
    what: &str,
) -> pb::PublishedRound {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(6), stream.message())
            .await
            .unwrap_or_else(|_| panic!("{what}: nothing within 6 s"))
            .unwrap_or_else(|e| panic!("{what}: {e:?}"))
            .unwrap_or_else(|| panic!("{what}: the stream ended"));
        match message.item.expect("an item") {
            pb::watch_broadcast_response::Item::Published(p) => return p,
            pb::watch_broadcast_response::Item::Heartbeat(_) => {}
        }
    }
}

/// The spectators' stream: each game as it stood the event's delay ago,
/// with a token, or without one once the arbiter makes the broadcast public.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_watch_a_round_behind_its_delay() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let delay = pb::Broadcast { delay_seconds: 2, ..Default::default() };
    create_event(&mut arbiter, "spect", Some(delay.clone())).await;
    let round = start_round(&mut arbiter, "spect", "1 2\n", "").await;
    let game = game_of(&round, 1);
    let watch = || pb::WatchBroadcastRequest { round: round.name.clone() };

    // Not public: a token is needed (a viewer's will do).
    let mut anonymous = server.client(None).await;
    expect_code(anonymous.watch_broadcast(watch()).await, Code::Unauthenticated);
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    let mut stream = viewer.watch_broadcast(watch()).await.unwrap().into_inner();
    let first = next_published(&mut stream, "the opening").await;
    assert_eq!(
        (first.name.as_str(), first.title.as_str(), first.delay_seconds),
        (round.name.as_str(), "Feed spect", 2)
    );
    assert_eq!(first.games.len(), 1);
    assert!(first.games[0].moves_san.is_empty());

    // A move reaches the spectators the delay after it was made, not before.
    let made = Instant::now();
    play_otb(&mut arbiter, &game, 0, &["e4"]).await;
    let published = loop {
        let p = next_published(&mut stream, "the move").await;
        if !p.games[0].moves_san.is_empty() {
            break p;
        }
    };
    let after = made.elapsed();
    assert!(after >= Duration::from_millis(1900), "published {after:?} after the move, before the delay");
    assert!(after < Duration::from_secs(4), "published {after:?} after the move");
    let shown = &published.games[0];
    assert_eq!(shown.moves_san, ["e4"]);
    assert_eq!(shown.fen.split(' ').next(), Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"));
    assert!(shown.obligation.is_none() && shown.draw_offer.is_none() && shown.board.is_none());

    // Made public by the arbiter (a viewer may not): no token needed.
    let public = pb::SetBroadcastRequest {
        event: "events/spect".into(),
        broadcast: Some(pb::Broadcast { public_view: true, ..delay.clone() }),
        request_id: String::new(),
    };
    expect_code(viewer.set_broadcast(public.clone()).await, Code::PermissionDenied);
    let event = arbiter.set_broadcast(public).await.unwrap().into_inner().event.unwrap();
    assert!(event.broadcast.is_some_and(|b| b.public_view && b.delay_seconds == 2));
    let mut open = anonymous.watch_broadcast(watch()).await.unwrap().into_inner();
    assert_eq!(next_published(&mut open, "the public view").await.games[0].moves_san, ["e4"]);
    // A bad token is still refused, public or not.
    let mut forged = server.client(Some("not-a-token-at-all-0123456789")).await;
    expect_code(forged.watch_broadcast(watch()).await, Code::Unauthenticated);

    // Bad settings are refused with their field; no broadcast: no view.
    let bad = pb::SetBroadcastRequest {
        event: "events/spect".into(),
        broadcast: Some(pb::Broadcast { delay_seconds: -5, ..Default::default() }),
        request_id: String::new(),
    };
    expect_bad_field(arbiter.set_broadcast(bad).await, "broadcast.delay_seconds");
    let off =
        pb::SetBroadcastRequest { event: "events/spect".into(), broadcast: None, request_id: String::new() };
    assert!(arbiter.set_broadcast(off).await.unwrap().into_inner().event.unwrap().broadcast.is_none());
    expect_code(viewer.watch_broadcast(watch()).await, Code::NotFound);
    expect_code(
        viewer.watch_broadcast(pb::WatchBroadcastRequest { round: "events/spect".into() }).await,
        Code::InvalidArgument,
    );
}
