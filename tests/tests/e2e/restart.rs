//! A restart in the middle of a game: nothing lost, the outage recorded, and
//! the time the service was down charged to nobody.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arbiter_e2e::{
    TestServer, all_events, clocks, create, expect_ruling, get_game, make_move, new_game, play_online,
    regulations, v1 as pb,
};

/// How long the service stays down.
const DOWNTIME: Duration = Duration::from_millis(1500);

/// The moves of a Ruy Lopez, 20 plies, none repeating a position.
const RUY_LOPEZ: [&str; 20] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5", "a4b3",
    "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7",
];

/// Checks the event a restart records for a running game.
fn check_resumed(event: &pb::GameEvent, downtime: Duration) -> i64 {
    assert_eq!(event.actor, "server", "{event:#?}");
    assert_eq!(event.act, "SERVICE_RESUMED");
    let r = expect_ruling(event, "CLOCK_RESUMED_AFTER_OUTAGE");
    assert_eq!(r.rule_id, "FIDE-6.11");
    let outage: i64 = r.facts["outage_ms"].parse().unwrap();
    assert!(outage >= DOWNTIME.as_millis() as i64 - 100, "outage {outage} ms");
    assert!(
        outage <= downtime.as_millis() as i64 + 300,
        "the recorded outage ({outage} ms) is longer than the service was down ({downtime:?})"
    );
    outage
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_restart_continues_the_game_without_charging_the_outage() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    let first = t
        .white
        .make_move(pb::MakeMoveRequest { request_id: "first-move".into(), ..make_move(&t.name, "e2e4") })
        .await
        .unwrap()
        .into_inner();
    t.game = first.game.unwrap();
    play_online(&mut t, &["e7e5", "g1f3"]).await;
    // Black thinks for a while before the service stops: that time is his.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let before = get_game(&mut arbiter, &t.name).await;
    assert_eq!(clocks(&before).running, pb::Color::Black as i32);
    let events_before = all_events(&mut arbiter, &t.name).await;
    assert_eq!(before.last_seq, 4);

    let stopped_at = Instant::now();
    let (dir, url) = server.stop().await;
    tokio::time::sleep(DOWNTIME).await;
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let downtime = stopped_at.elapsed();

    let mut arbiter = server.arbiter().await;
    let after = get_game(&mut arbiter, &t.name).await;
    assert_eq!(after.status, pb::GameStatus::InProgress as i32);
    assert_eq!(after.moves_uci, before.moves_uci, "every move is kept");
    assert_eq!(after.fen, before.fen);
    assert_eq!(after.last_seq, before.last_seq + 1, "one event more: the outage");
    let events = all_events(&mut arbiter, &t.name).await;
    assert_eq!(&events[..events_before.len()], &events_before[..], "the log is unchanged");
    let resumed = &events[events_before.len()];

    // White's clock stood; Black's ran before the stop and not while down.
    let (b1, b2) = (clocks(&before).black_remaining_ms, clocks(&after).black_remaining_ms);
    assert_eq!(clocks(&after).white_remaining_ms, clocks(&before).white_remaining_ms);
    assert!(b1 - b2 < 500, "Black was charged {} ms of the {downtime:?} the service was down", b1 - b2);
    assert_eq!(resumed.actor, "server");
    assert_eq!(resumed.act, "SERVICE_RESUMED");
    assert_eq!(expect_ruling(resumed, "CLOCK_RESUMED_AFTER_OUTAGE").rule_id, "FIDE-6.11");

    // The tokens still work, a retried request is still recognised, and the
    // game goes on.
    let mut white = server.client(Some(&t.white_token)).await;
    let mut black = server.client(Some(&t.black_token)).await;
    let retry = white
        .make_move(pb::MakeMoveRequest { request_id: "first-move".into(), ..make_move(&t.name, "e2e4") })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(retry.event.unwrap().seq, 2);
    let r = black.make_move(make_move(&t.name, "b8c6")).await.unwrap().into_inner();
    assert_eq!(r.event.unwrap().seq, after.last_seq + 1);
    server.stop().await;

    // The ~800 ms Black thought before the stop stay charged: his clock
    // must not show more after the restart than before the stop.
    assert!(
        b2 <= b1 + 100,
        "Black's clock went back by {} ms: the time he used between the last event and the stop was \
         given back (the table's timeline restarts at the last recorded event, see table.rs `Table::load`)",
        b2 - b1
    );
    check_resumed(resumed, downtime);
}

/// Two restarts with no act between them: after the first, the game's last
/// event is the outage's record, which does not touch the clocks. The second
/// must go on from that event's instant, not from the clocks' last reading
/// (which refused every act as earlier than the record, and gave the player
/// on move the time between the two), and charge neither outage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_restart_before_any_act_goes_on_from_the_outage_record() {
    const THINKING: Duration = Duration::from_millis(800);
    const DOWN: Duration = Duration::from_millis(1000);
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    play_online(&mut t, &["e2e4", "e7e5", "g1f3"]).await;
    // Black thinks before the first stop: that time is his.
    tokio::time::sleep(THINKING).await;
    let before = get_game(&mut arbiter, &t.name).await;
    let (dir, url) = server.stop().await;
    tokio::time::sleep(DOWN).await;

    // The first restart: reading the game loads it and records the outage;
    // then the service stops again before anyone acts.
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut arbiter = server.arbiter().await;
    let first = get_game(&mut arbiter, &t.name).await;
    assert_eq!(first.last_seq, before.last_seq + 1, "the first outage recorded");
    let (dir, url) = server.stop().await;
    tokio::time::sleep(DOWN).await;

    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut black = server.client(Some(&t.black_token)).await;
    black.make_move(make_move(&t.name, "b8c6")).await.expect("Black's move after the second restart");
    let mut arbiter = server.arbiter().await;
    let events = all_events(&mut arbiter, &t.name).await;
    server.stop().await;

    let acts: Vec<&str> = events.iter().map(|e| e.act.as_str()).collect();
    let n = acts.len();
    assert_eq!(acts[n - 3..], ["SERVICE_RESUMED", "SERVICE_RESUMED", "SUBMIT_MOVE"], "{acts:?}");
    assert!(
        events.windows(2).all(|w| w[0].game_time_ms <= w[1].game_time_ms),
        "the game's timeline went back: {:?}",
        events.iter().map(|e| (e.seq, &e.act, e.game_time_ms)).collect::<Vec<_>>()
    );
    for resumed in &events[n - 3..n - 1] {
        let outage: i64 =
            expect_ruling(resumed, "CLOCK_RESUMED_AFTER_OUTAGE").facts["outage_ms"].parse().unwrap();
        assert!(outage >= DOWN.as_millis() as i64 - 100, "outage {outage} ms");
    }
    // Black's thinking before the first stop is charged, the outages are not.
    let thought = events[n - 1].game_time_ms - events[n - 4].game_time_ms;
    assert!(thought >= THINKING.as_millis() as i64 - 10, "Black was charged only {thought} ms");
    assert!(
        thought < (THINKING + DOWN).as_millis() as i64,
        "Black was charged {thought} ms: an outage of {DOWN:?} was charged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_server_keeps_every_acknowledged_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    let acked = Arc::new(AtomicUsize::new(0));
    // The players move as fast as they can; the server is killed while a
    // move may be in flight.
    let player = {
        let (mut white, mut black, name, acked) = (t.white, t.black, t.name.clone(), acked.clone());
        tokio::spawn(async move {
            for (i, mv) in RUY_LOPEZ.iter().enumerate() {
                let client = if i % 2 == 0 { &mut white } else { &mut black };
                match client.make_move(make_move(&name, mv)).await {
                    Ok(_) => acked.store(i + 1, Ordering::SeqCst),
                    Err(_) => return,
                }
            }
        })
    };
    let started = Instant::now();
    while acked.load(Ordering::SeqCst) < 8 {
        assert!(started.elapsed() < Duration::from_secs(10), "the players are stuck");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let killed_at = Instant::now();
    let (dir, url) = server.kill().await;
    let _ = player.await;
    let acked = acked.load(Ordering::SeqCst);
    assert!(acked >= 8);
    tokio::time::sleep(DOWNTIME).await;
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let downtime = killed_at.elapsed();

    let mut arbiter = server.arbiter().await;
    let game = get_game(&mut arbiter, &t.name).await;
    let kept = game.moves_uci.len();
    assert!(kept >= acked, "{acked} moves were acknowledged, {kept} kept");
    assert!(kept <= acked + 1, "at most the move in flight was added");
    assert_eq!(game.moves_uci, RUY_LOPEZ[..kept]);
    let events = all_events(&mut arbiter, &t.name).await;
    assert_eq!(events.len(), kept + 2, "start, the moves, the outage");
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=kept as i64 + 2).collect::<Vec<_>>());
    check_resumed(events.last().unwrap(), downtime);
    // Play goes on from where it stopped.
    let mut arbiter2 = server.arbiter().await;
    let color = arbiter_e2e::color_of_ply(kept) as i32;
    arbiter2.make_move(pb::MakeMoveRequest { color, ..make_move(&t.name, RUY_LOPEZ[kept]) }).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_are_told_to_resume_and_can() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    play_online(&mut t, &["e2e4"]).await;
    let mut viewer = server.client(Some(arbiter_e2e::VIEWER_TOKEN)).await;
    let mut stream = viewer
        .watch_game(pb::WatchGameRequest { name: t.name.clone(), after_seq: 2 })
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert!(matches!(first.item, Some(pb::watch_game_response::Item::Game(_))));
    let (dir, url) = server.stop().await;
    // The stream ends with UNAVAILABLE (or closes): the watcher resumes.
    loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.message()).await.expect("the stream ends") {
            Ok(Some(m)) => {
                assert!(matches!(m.item, Some(pb::watch_game_response::Item::Heartbeat(_))), "{m:?}")
            }
            Ok(None) => break,
            Err(s) => {
                assert_eq!(s.code(), tonic::Code::Unavailable, "{s:?}");
                break;
            }
        }
    }
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut viewer = server.client(Some(arbiter_e2e::VIEWER_TOKEN)).await;
    let mut stream = viewer
        .watch_game(pb::WatchGameRequest { name: t.name.clone(), after_seq: 2 })
        .await
        .unwrap()
        .into_inner();
    let mut seqs = Vec::new();
    while seqs.is_empty() {
        let m =
            tokio::time::timeout(Duration::from_secs(5), stream.message()).await.unwrap().unwrap().unwrap();
        if let Some(pb::watch_game_response::Item::Event(e)) = m.item {
            assert_eq!(e.act, "SERVICE_RESUMED");
            seqs.push(e.seq);
        }
    }
    assert_eq!(seqs, [3]);
    server.stop().await;
}
