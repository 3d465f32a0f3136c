//! Reads that read: the games index's read model answers lists and reads
//! of finished games without loading a table or replaying a log, and says
//! exactly what the log says.

use std::path::PathBuf;

use arbiter_server::event_log::{self, GameSpec, PlayerSpec};
use arbiter_server::hall::Hall;
use arbiter_server::store::{EventStore, GameFilter, GameRow, GameStatus, Storage};
use arbiter_server::table::{Act, Continuity};
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

    let hall = Hall::new(store.clone(), Continuity::Continuous);
    assert_eq!(hall.rebuild_views().await.unwrap(), before.len());
    assert!(store.games_without_view("", 1000).await.unwrap().is_empty());
    // The tables loaded for the rebuild, read from their logs.
    let mut from_logs = Vec::new();
    for row in &before {
        from_logs.push(timeless(hall.table(&row.id).await.unwrap().read().await.unwrap()));
    }

    // A hall that has loaded nothing, as after a restart.
    let fresh = Hall::new(store.clone(), Continuity::Continuous);
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

/// Games played by this release carry their read model from the first
/// event on: every append rewrites it, and a hall that never loaded the
/// game lists it as its table shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_append_keeps_the_read_model() {
    let store = Storage::open("sqlite::memory:").await.unwrap();
    let hall = Hall::new(store.clone(), Continuity::Continuous);
    let spec = GameSpec {
        event: "Reads".to_owned(),
        round: "1".to_owned(),
        white: PlayerSpec { name: "W".to_owned(), fide_id: String::new() },
        black: PlayerSpec { name: "B".to_owned(), fide_id: String::new() },
        regulations: Regulations::new(TimeControl::parse_human("90+30").unwrap()),
    };
    let row = GameRow {
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
    hall.create(&row, None).await.unwrap();
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
    let fresh = Hall::new(store.clone(), Continuity::Continuous);
    for (act, actor) in acts {
        let acted = table.act(act, actor, None, None).await.unwrap();
        let row = store.game("r1").await.unwrap().unwrap();
        let stored = GameReading::from_row(&row, 0).unwrap().expect("a read model");
        // The stored model is the game after the event, clocks as they
        // stood then.
        assert_eq!(stored.last_seq, acted.event.seq);
        assert_eq!(stored.view.clocks, acted.event.aftermath.clocks);
        assert_eq!(stored.view.fen, acted.game.view.fen);
        assert_eq!(stored.view.moves_san, acted.game.view.moves_san);
        assert_eq!(stored.view.obligation, acted.game.view.obligation);
        assert_eq!(fresh.list_reading(&row).await.unwrap().view.fen, acted.game.view.fen);
    }
    assert!(store.game("r1").await.unwrap().unwrap().view.unwrap().json.contains("g8f6"));

    table.act(Act::Event(Event::Resign { color: Color::Black }), "black", None, None).await.unwrap();
    let finished = timeless(fresh.read("r1").await.unwrap());
    assert_eq!(finished.status, GameStatus::Finished);
    assert_eq!(finished, timeless(table.read().await.unwrap()));
    assert_eq!(fresh.loaded().await, 0);
    store.close().await;
}
