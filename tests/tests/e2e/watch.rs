//! WatchGame: a snapshot, then every event exactly once in order, resuming
//! after a dropped stream, heartbeats while idle, and the end of the stream
//! with the game.

use std::time::Duration;

use arbiter_e2e::{
    Client, TestServer, VIEWER_TOKEN, create, expect_ruling, new_game, play_online, regulations, v1 as pb,
};
use pb::watch_game_response::Item;
use tonic::Streaming;

/// The next message, within five seconds.
async fn next(stream: &mut Streaming<pb::WatchGameResponse>) -> Option<Item> {
    tokio::time::timeout(Duration::from_secs(5), stream.message())
        .await
        .expect("a message within 5 s")
        .expect("the stream does not fail")
        .map(|m| m.item.expect("an item"))
}

/// The next event, heartbeats skipped; `None` when the stream ends.
async fn next_event(stream: &mut Streaming<pb::WatchGameResponse>) -> Option<pb::GameEvent> {
    loop {
        match next(stream).await? {
            Item::Event(e) => return Some(e),
            Item::Heartbeat(_) => {}
            Item::Game(g) => panic!("a second snapshot: {g:?}"),
        }
    }
}

async fn watch(
    client: &mut Client,
    name: &str,
    after_seq: i64,
) -> (pb::Game, Streaming<pb::WatchGameResponse>) {
    let mut stream = client
        .watch_game(pb::WatchGameRequest { name: name.to_string(), after_seq })
        .await
        .unwrap()
        .into_inner();
    match next(&mut stream).await {
        Some(Item::Game(g)) => (g, stream),
        other => panic!("the first message is the game, not {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_arrive_once_in_order_and_resume_after_a_drop() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;

    let (snapshot, mut stream) = watch(&mut viewer, &t.name, 0).await;
    assert_eq!(snapshot.name, t.name);
    assert_eq!(snapshot.last_seq, 1);
    let start = next_event(&mut stream).await.unwrap();
    assert_eq!((start.seq, start.act.as_str()), (1, "START"));
    // Moves played by other clients arrive live, once each, in order.
    let mut seen = vec![start.seq];
    for mv in ["e2e4", "e7e5"] {
        let played = play_online(&mut t, &[mv]).await.remove(0).event.unwrap();
        let got = next_event(&mut stream).await.unwrap();
        assert_eq!(got, played, "the event as recorded");
        seen.push(got.seq);
    }
    assert_eq!(seen, [1, 2, 3]);
    drop(stream);

    // Missed while away.
    play_online(&mut t, &["f1c4", "b8c6"]).await;
    let (snapshot, mut stream) = watch(&mut viewer, &t.name, 3).await;
    assert_eq!(snapshot.last_seq, 5);
    assert_eq!(snapshot.moves_uci, ["e2e4", "e7e5", "f1c4", "b8c6"]);
    for seq in [4, 5] {
        assert_eq!(next_event(&mut stream).await.unwrap().seq, seq, "the missed events, in order");
    }
    // Then live again, to the end of the game; then the stream ends.
    let mut live = Vec::new();
    let watcher = tokio::spawn(async move {
        while let Some(e) = next_event(&mut stream).await {
            live.push(e);
        }
        live
    });
    play_online(&mut t, &["d1h5", "g8f6", "h5f7"]).await;
    let live = tokio::time::timeout(Duration::from_secs(5), watcher).await.expect("the stream ends").unwrap();
    assert_eq!(live.iter().map(|e| e.seq).collect::<Vec<_>>(), [6, 7, 8], "no gap, no duplicate");
    let over = expect_ruling(live.last().unwrap(), "GAME_OVER");
    assert_eq!(over.facts["result"], "1-0");

    // A watch of a finished game: the snapshot, the whole log, the end.
    let (snapshot, mut stream) = watch(&mut viewer, &t.name, 0).await;
    assert_eq!(snapshot.status, pb::GameStatus::Finished as i32);
    let mut seqs = Vec::new();
    while let Some(e) = next_event(&mut stream).await {
        seqs.push(e.seq);
    }
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>());
    // From the last event: nothing but the end.
    let (_, mut stream) = watch(&mut viewer, &t.name, 8).await;
    assert!(next_event(&mut stream).await.is_none());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_arrive_while_idle() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let mut player = server.client(Some(&t.white_token)).await;
    let (_, mut stream) = watch(&mut player, &t.name, 1).await;
    let mut beats = Vec::new();
    let started = std::time::Instant::now();
    while beats.len() < 3 {
        match next(&mut stream).await.unwrap() {
            Item::Heartbeat(c) => beats.push(c),
            other => panic!("nothing happened, yet {other:?}"),
        }
    }
    // Every 200 ms: three within a second.
    assert!(started.elapsed() < Duration::from_millis(1000), "{:?}", started.elapsed());
    assert!(beats.iter().all(|c| c.running == pb::Color::White as i32));
    assert!(
        beats.windows(2).all(|w| w[1].white_remaining_ms < w[0].white_remaining_ms),
        "White's clock ticks"
    );
    assert!(beats.iter().all(|c| c.black_remaining_ms == 300_000 + 2_000 || c.black_remaining_ms == 300_000));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_reaches_the_watcher_and_ends_the_stream() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    let (_, mut stream) = watch(&mut viewer, &t.name, 1).await;
    arbiter
        .set_clock(pb::SetClockRequest {
            name: t.name.clone(),
            color: pb::Color::White as i32,
            remaining_ms: 250,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(next_event(&mut stream).await.unwrap().act, "SET_CLOCK");
    let flag = next_event(&mut stream).await.unwrap();
    assert_eq!((flag.seq, flag.act.as_str(), flag.actor.as_str()), (3, "TICK", "timer"));
    let over = expect_ruling(&flag, "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("OCR-4.3", "0-1"));
    assert!(next_event(&mut stream).await.is_none(), "the stream ends with the game");
    server.stop().await;
}

/// A resume point beyond the log is refused (it is another game's number,
/// or a log the client imagines) instead of waiting for events that will
/// never come; the last event itself is a valid resume point.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_point_beyond_the_log_is_refused() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    play_online(&mut t, &["e4", "e5"]).await;
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    let (snapshot, _stream) = watch(&mut viewer, &t.name, 3).await;
    assert_eq!(snapshot.last_seq, 3);
    let result = viewer.watch_game(pb::WatchGameRequest { name: t.name.clone(), after_seq: 4 }).await;
    let status = arbiter_e2e::expect_bad_field(result, "after_seq");
    assert!(status.message().contains("beyond the last event"), "{status:?}");
    server.stop().await;
}

/// The next update of a WatchGames stream, heartbeats skipped.
async fn next_update(stream: &mut Streaming<pb::WatchGamesResponse>) -> pb::GameUpdate {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(5), stream.message())
            .await
            .expect("an update within 5 s")
            .expect("the stream does not fail")
            .expect("the stream does not end");
        match message.item.expect("an item") {
            pb::watch_games_response::Item::Update(u) => return u,
            pb::watch_games_response::Item::Heartbeat(_) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_of_games_is_followed_on_one_stream() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut first = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    play_online(&mut first, &["e4"]).await;
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    let mut stream =
        viewer.watch_games(pb::WatchGamesRequest { scope: String::new() }).await.unwrap().into_inner();

    // The opening: the game in play as it stands, with its last event.
    let opening = next_update(&mut stream).await;
    let game = opening.game.expect("the game");
    assert_eq!(
        (game.name.as_str(), game.moves_san.as_slice()),
        (first.name.as_str(), &["e4".to_string()][..])
    );
    let acts: Vec<(i64, &str)> = opening.events.iter().map(|e| (e.seq, e.act.as_str())).collect();
    assert_eq!(acts, [(game.last_seq, "SUBMIT_MOVE")], "the opening carries the last event only");

    // A move: the game again with the event that changed it.
    play_online(&mut first, &["e5"]).await;
    let moved = next_update(&mut stream).await;
    assert_eq!(
        moved.game.as_ref().unwrap().fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(moved.events.len(), 1);
    expect_ruling(&moved.events[0], "MOVE_MADE");

    // A game created later joins the stream with its first event (a
    // pending game's row alone raises no notification): here its start,
    // an arbiter's act.
    let second = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), false)).await;
    arbiter
        .start_game(pb::StartGameRequest { name: second.name.clone(), ..Default::default() })
        .await
        .unwrap();
    let joined = next_update(&mut stream).await;
    let game = joined.game.expect("the game");
    assert_eq!((game.name.as_str(), game.status), (second.name.as_str(), pb::GameStatus::InProgress as i32));
    assert_eq!(
        joined.events.iter().map(|e| (e.act.as_str(), e.actor.as_str())).collect::<Vec<_>>(),
        [("START", "arbiter")]
    );

    // A player token may not watch the hall; a scope must name an event or
    // a round that exists.
    let refused = first.white.watch_games(pb::WatchGamesRequest { scope: String::new() }).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    let bad = viewer.watch_games(pb::WatchGamesRequest { scope: "games/x".into() }).await.unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument, "{bad:?}");
    let missing =
        viewer.watch_games(pb::WatchGamesRequest { scope: "events/none".into() }).await.unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound, "{missing:?}");
}
