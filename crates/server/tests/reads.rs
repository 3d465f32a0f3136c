//! Reads that read: the games index's read model answers lists and reads
//! of finished games without loading a table or replaying a log, and says
//! exactly what the log says.

use std::path::PathBuf;
use std::time::Duration;

use arbiter_server::event_log::{self, GameSpec, PlayerSpec};
use arbiter_server::hall::Hall;
use arbiter_server::store::{EventStore, GameFilter, GameRow, GameStatus, Storage};
use arbiter_server::table::{Act, Outages};
use arbiter_server::view::GameReading;

use arbiter_chess::Color;
use arbiter_laws::event::Event;
use arbiter_laws::regulations::Regulations;
use arbiter_laws::time_control::TimeControl;

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Every game listed, as one page.
async fn rows(store: &Storage) -> Vec<GameRow> {
    store.list_games(&GameFilter { limit: 1000, ..GameFilter::default() }).await.unwrap()
}

/// `reading` with its clock read time set aside: two readings of a game
/// made at different moments differ only there.
fn timeless(mut reading: GameReading) -> GameReading {
    reading.clocks_read_wall_ms = 0;
    reading
}

/// The golden corpus (18 games written by the first release, before read
/// models): once their read models are rebuilt from the logs, every game
/// reads from its index row exactly as from its replayed log, and neither
/// a list nor a read of a finished game loads a table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_models_of_the_golden_corpus_match_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arbiter.db");
    std::fs::copy(golden().join("release.sqlite"), &db).unwrap();
    let store = Storage::open(&format!("sqlite://{}", db.display())).await.unwrap();
    let before = rows(&store).await;
    assert!(before.len() >= 18, "{} games", before.len());
    assert!(before.iter().all(|r| r.view.is_none()), "the first release wrote no read models");

    let hall = Hall::new(store.clone(), Outages::none());
    // The rebuild loads the games not in play; a game in play gets its
    // model from its table, when that loads (here, just below) or stops.
    let in_play = before.iter().filter(|r| r.status == GameStatus::InProgress).count();
    assert!(in_play >= 1, "a game in play in the corpus");
    assert_eq!(hall.rebuild_views().await.unwrap(), before.len() - in_play);
    assert!(store.games_without_view("", 1000).await.unwrap().is_empty());
    let unviewed = rows(&store).await.into_iter().filter(|r| r.view.is_none()).count();
    assert_eq!(unviewed, in_play);
    // The tables loaded for the rebuild, read from their logs.
    let mut from_logs = Vec::new();
    for row in &before {
        from_logs.push(timeless(hall.table(&row.id).await.unwrap().read().await.unwrap()));
    }

    // A hall that has loaded nothing, as after a restart.
    let fresh = Hall::new(store.clone(), Outages::none());
    let after = rows(&store).await;
    for (row, from_log) in after.iter().zip(&from_logs) {
        let listed = timeless(fresh.list_reading(row).await.unwrap());
        assert_eq!(&listed, from_log, "{}: the read model differs from the log", row.id);
        if row.status == GameStatus::Finished {
            let read = timeless(fresh.read(&row.id).await.unwrap());
            assert_eq!(&read, from_log, "{}", row.id);
        }
    }
    assert_eq!(fresh.loaded().await, 0, "a list or a read of a finished game loaded a table");
    let finished = after.iter().filter(|r| r.status == GameStatus::Finished).count();
    assert!(finished >= 10, "{finished} finished games in the corpus");

    // A game in play not loaded here is loaded by a read, for its clocks
    // and deadlines, but not by a list.
    let in_play = after.iter().find(|r| r.status == GameStatus::InProgress).expect("a game in play");
    fresh.read(&in_play.id).await.unwrap();
    assert_eq!(fresh.loaded().await, 1);
    store.close().await;
}

/// Games played by this release carry their read model wherever a reader
/// of the index needs it. A game not in play has it from its first event
/// on. The appends of a game in play leave it out (they would rewrite the
/// whole record at every move, issue 18): meanwhile a hall that has not
/// loaded the game reads it from its log, exactly as its table shows it,
/// and the table stores the model when it stops, so that a hall that never
/// loaded the game lists it from its row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_read_model_is_stored_for_the_readers_of_the_index() {
    let store = Storage::open("sqlite::memory:").await.unwrap();
    let hall = Hall::new(store.clone(), Outages::none());
    let spec = GameSpec {
        event: "Reads".to_owned(),
        round: "1".to_owned(),
        white: PlayerSpec { name: "W".to_owned(), fide_id: String::new() },
        black: PlayerSpec { name: "B".to_owned(), fide_id: String::new() },
        regulations: Regulations::new(TimeControl::parse_human("90+30").unwrap()),
    };
    let row = GameRow {
        creator: None,
        id: "r1".to_owned(),
        request_id: None,
        created_wall_ms: 1,
        event_name: spec.event.clone(),
        round: spec.round.clone(),
        white: "W".to_owned(),
        black: "B".to_owned(),
        spec_json: event_log::encode_spec(&spec),
        spec_format: event_log::FORMAT,
        status: GameStatus::Pending,
        result: None,
        last_seq: 0,
        updated_wall_ms: 1,
        view: None,
    };
    hall.create(&row, None, None).await.unwrap();
    let table = hall.table("r1").await.unwrap();
    // Loading wrote the model of the game not yet started.
    let _ = table.read().await.unwrap();
    assert!(store.game("r1").await.unwrap().unwrap().view.is_some());

    let acts = [
        (Act::Event(Event::Start), "arbiter"),
        (Act::Move { color: Color::White, text: "e4".to_owned(), premove: false, castle: false }, "white"),
        (Act::Event(Event::PressClock { color: Color::White, other_hand: false }), "white"),
        (
            Act::Event(Event::Touch {
                color: Color::Black,
                square: "g8".parse().unwrap(),
                kind: arbiter_laws::event::TouchKind::Intent,
            }),
            "black",
        ),
    ];
    let count = acts.len();
    let mut last = None;
    for (i, (act, actor)) in acts.into_iter().enumerate() {
        let acted = table.act(act, actor, None, None).await.unwrap();
        let row = store.game("r1").await.unwrap().unwrap();
        assert_eq!(row.view, None, "an append of a game in play leaves the read model out");
        // A hall that has not loaded the game reads its log. (Not after
        // the last act: its table, when it stops, would store the model
        // this test expects of `table`.)
        if i + 1 < count {
            let other = Hall::new(store.clone(), Outages::none());
            let listed = other.list_reading(&row).await.unwrap();
            assert_eq!((listed.last_seq, &listed.view.fen), (acted.event.seq, &acted.game.view.fen));
            assert_eq!(listed.view.moves_san, acted.game.view.moves_san);
        }
        last = Some(acted);
    }
    let last = last.unwrap();

    // Left alone, the table is put away, and stores the model of the game
    // after its last event, clocks as they stood then.
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(table.is_closed(), "an idle game in play with a distant deadline must be put away");
    let row = store.game("r1").await.unwrap().unwrap();
    let stored = GameReading::from_row(&row, 0).unwrap().expect("a read model stored at the stop");
    assert_eq!(stored.last_seq, last.event.seq);
    assert_eq!(stored.view.clocks, last.event.aftermath.clocks);
    assert_eq!(stored.view.fen, last.game.view.fen);
    assert_eq!(stored.view.moves_san, last.game.view.moves_san);
    assert_eq!(stored.view.obligation, last.game.view.obligation);
    assert!(row.view.unwrap().json.contains("g8f6"));
    // A hall that never loaded the game lists it from its row.
    let fresh = Hall::new(store.clone(), Outages::none());
    let row = store.game("r1").await.unwrap().unwrap();
    assert_eq!(fresh.list_reading(&row).await.unwrap().view.fen, last.game.view.fen);
    assert_eq!(fresh.loaded().await, 0);

    // The game's last append (it is over) stores the model with it.
    let table = hall.table("r1").await.unwrap();
    table.act(Act::Event(Event::Resign { color: Color::Black }), "black", None, None).await.unwrap();
    let finished = timeless(fresh.read("r1").await.unwrap());
    assert_eq!(finished.status, GameStatus::Finished);
    assert_eq!(finished, timeless(table.read().await.unwrap()));
    assert_eq!(fresh.loaded().await, 0);
    store.close().await;
}

/// A game of this file's kind, pending, created at `created_wall_ms`.
fn pending_row(id: &str, created_wall_ms: i64) -> GameRow {
    let spec = GameSpec {
        event: "Quota".to_owned(),
        round: "1".to_owned(),
        white: PlayerSpec { name: "W".to_owned(), fide_id: String::new() },
        black: PlayerSpec { name: "B".to_owned(), fide_id: String::new() },
        regulations: Regulations::new(TimeControl::parse_human("90+30").unwrap()),
    };
    GameRow {
        creator: Some("tok-test".to_owned()),
        id: id.to_owned(),
        request_id: None,
        created_wall_ms,
        event_name: spec.event.clone(),
        round: spec.round.clone(),
        white: "W".to_owned(),
        black: "B".to_owned(),
        spec_json: event_log::encode_spec(&spec),
        spec_format: event_log::FORMAT,
        status: GameStatus::Pending,
        result: None,
        last_seq: 0,
        updated_wall_ms: created_wall_ms,
        view: None,
    }
}

/// Audit H2 and issue 18: neither pending games nor games in play are
/// loaded at start: a start-up arms the deadline of each game in play from
/// the index; a pending game's table unloads when idle (a backlog of pending
/// games holds no memory), and so does a game in play left alone, its
/// deadline armed again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_are_not_loaded_at_start_and_unload_when_idle() {
    let store = Storage::open("sqlite::memory:").await.unwrap();
    let hall = Hall::new(store.clone(), Outages::none());
    let now = arbiter_server::table::wall_ms();
    for i in 0..20 {
        hall.create(&pending_row(&format!("p{i}"), now), None, None).await.unwrap();
    }
    hall.create(&pending_row("live", now), None, None).await.unwrap();
    let started = arbiter_server::table::wall_ms();
    hall.table("live").await.unwrap().act(Act::Event(Event::Start), "arbiter", None, None).await.unwrap();
    // 90 minutes and the first move's 30 s on White's clock from the start.
    let flag_at = started + 90 * 60_000 + 30_000;
    let near = |deadline: Option<i64>| deadline.is_some_and(|d| (d - flag_at).abs() < 2_000);
    // A "restart": a fresh hall on the same store.
    let fresh = Hall::new(store.clone(), Outages::none());
    assert_eq!(fresh.arm_in_play().await.unwrap(), 1);
    assert_eq!(fresh.loaded().await, 0);
    assert!(near(fresh.timers().deadline("live")), "{:?} vs {flag_at}", fresh.timers().deadline("live"));
    // Loaded, its table runs its timer.
    let live = fresh.table("live").await.unwrap();
    assert_eq!(fresh.timers().deadline("live"), None);
    // A pending game is loaded when used, and unloaded once idle.
    let table = fresh.table("p3").await.unwrap();
    assert_eq!(table.read().await.unwrap().status, GameStatus::Pending);
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(table.is_closed(), "an idle pending game's table must stop");
    // The hall loads it again on the next use.
    let again = fresh.read("p3").await.unwrap();
    assert_eq!(again.status, GameStatus::Pending);
    // The game in play left alone is put away, its deadline armed again.
    assert!(live.is_closed(), "an idle game in play with a distant deadline must be put away");
    assert!(near(fresh.timers().deadline("live")), "{:?} vs {flag_at}", fresh.timers().deadline("live"));
    let reading = fresh.read("live").await.unwrap();
    assert_eq!(reading.status, GameStatus::InProgress);
    assert_eq!(fresh.timers().deadline("live"), None);
    store.close().await;
}

/// A game put away is loaded again before its deadline and its flag is
/// ruled on time (issue 18: the deadlines of the games not loaded live in
/// the hall's timers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_put_away_is_flagged_on_time() {
    let store = Storage::open("sqlite::memory:").await.unwrap();
    let hall = std::sync::Arc::new(Hall::new(store.clone(), Outages::none()));
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(hall.clone().run_timers(stop.clone()));
    let mut row = pending_row("blitz", arbiter_server::table::wall_ms());
    let mut spec = event_log::decode_spec(row.spec_format, &row.spec_json).unwrap();
    spec.regulations = Regulations::new(TimeControl::parse_human("12s+0s").unwrap());
    spec.regulations.mode = arbiter_laws::regulations::Mode::Online;
    row.spec_json = event_log::encode_spec(&spec);
    hall.create(&row, None, None).await.unwrap();
    let table = hall.table("blitz").await.unwrap();
    let start = std::time::Instant::now();
    table.act(Act::Event(Event::Start), "arbiter", None, None).await.unwrap();
    // Left alone for 5 s with 7 s to go: put away.
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(table.is_closed());
    assert!(hall.timers().deadline("blitz").is_some());
    // Loaded again two seconds ahead, flagged at 12 s.
    while store.game("blitz").await.unwrap().unwrap().status == GameStatus::InProgress {
        assert!(start.elapsed() < Duration::from_secs(14), "the flag did not fall");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_secs(12), "flagged early: {elapsed:?}");
    let row = store.game("blitz").await.unwrap().unwrap();
    assert_eq!((row.status, row.result.as_deref()), (GameStatus::Finished, Some("0-1")));
    stop.cancel();
    store.close().await;
}

/// Pending games older than the TTL expire: a `Withdraw { Expired }` event
/// by the server, status EXPIRED, no result; younger ones and games in play
/// are left alone, and a second pass (another replica) changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_pending_games_expire() {
    let store = Storage::open("sqlite::memory:").await.unwrap();
    let hall = Hall::new(store.clone(), Outages::none());
    let now = arbiter_server::table::wall_ms();
    hall.create(&pending_row("old", now - 120_000), None, None).await.unwrap();
    hall.create(&pending_row("old-started", now - 120_000), None, None).await.unwrap();
    hall.table("old-started")
        .await
        .unwrap()
        .act(Act::Event(Event::Start), "arbiter", None, None)
        .await
        .unwrap();
    hall.create(&pending_row("young", now), None, None).await.unwrap();
    let other_replica = Hall::new(store.clone(), Outages::none());
    assert_eq!(hall.expire_pending(Duration::from_secs(60), 100).await.unwrap(), 1);
    assert_eq!(other_replica.expire_pending(Duration::from_secs(60), 100).await.unwrap(), 0);
    let old = store.game("old").await.unwrap().unwrap();
    assert_eq!((old.status, old.result.as_deref(), old.last_seq), (GameStatus::Expired, None, 1));
    let events = store.events("old", 0, 10).await.unwrap();
    assert_eq!(events[0].actor, "server");
    assert_eq!(
        arbiter_server::view::LoggedEvent::decode(&events[0]).unwrap().event,
        Event::Withdraw { reason: arbiter_laws::event::Withdrawal::Expired }
    );
    assert_eq!(store.game("old-started").await.unwrap().unwrap().status, GameStatus::InProgress);
    assert_eq!(store.game("young").await.unwrap().unwrap().status, GameStatus::Pending);
    // Nothing more applies to an expired game, and a read answers from its row.
    let refused = hall.table("old").await.unwrap().act(Act::Event(Event::Start), "arbiter", None, None).await;
    assert!(matches!(refused, Err(arbiter_server::error::ApiError::Rejected(_))), "{refused:?}");
    assert_eq!(other_replica.read("old").await.unwrap().status, GameStatus::Expired);
    store.close().await;
}
