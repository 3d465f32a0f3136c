//! Records the golden corpus: plays the corpus session
//! (`arbiter_e2e::corpus`) on a fresh server, then writes, into `--out`
//! (default `crates/server/tests/golden`):
//! - `release.sqlite`: the database exactly as that build wrote it (the
//!   upgrade test opens it with every later build);
//! - `logs/<game>.json`: each game's stored rows (the games row and every
//!   event row, payloads as stored), the golden logs every build replays;
//! - `expected.json`: what the API answers about each game when a server is
//!   opened on that database afterwards (GetGame, ListGameEvents, ExportPgn,
//!   ListGames), read-time stamps blanked.
//!
//! The corpus is recorded ONCE, with the release whose format it freezes
//! (the commit is written into `expected.json`); later builds must replay
//! it identically, for ever. Re-recording it would hide exactly the
//! regressions it exists to catch, so a new format gets a new corpus beside
//! the old one, never a replacement.
//!
//! Usage: `cargo run -p arbiter-e2e --example golden -- [--out DIR] [--commit SHA]`
//! (the corpus of format N lives in `crates/server/tests/golden-N`; the first
//! one, of format 1, in `crates/server/tests/golden`).

use std::path::PathBuf;

use arbiter_e2e::{TestServer, corpus};
use serde_json::{Value, json};
use sqlx::Row;

#[tokio::main]
async fn main() {
    let mut out = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/server/tests/golden"));
    let mut commit = String::from("unknown");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(args.next().expect("--out DIR")),
            "--commit" => commit = args.next().expect("--commit SHA"),
            other => panic!("unknown argument {other:?}; usage: golden [--out DIR] [--commit SHA]"),
        }
    }
    // A corpus is recorded once: never over an existing one.
    assert!(
        !out.join("expected.json").exists(),
        "{} already holds a corpus; a new format gets a new directory (--out crates/server/tests/golden-N)",
        out.display()
    );
    std::fs::create_dir_all(out.join("logs")).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arbiter.db");
    let url = format!("sqlite://{}", db.display());
    let server = TestServer::start_with(None, url.clone(), |_| {}).await;
    let session = corpus::play(server).await;
    session.server.expect("the session's server").stop().await;
    if let Ok(path) = std::env::var("GOLDEN_TRANSCRIPT") {
        std::fs::write(path, serde_json::to_string_pretty(&session.transcript.to_json()).unwrap()).unwrap();
    }

    // The database as written, compacted into one file.
    let target = out.join("release.sqlite");
    let _ = std::fs::remove_file(&target);
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("VACUUM INTO '{}'", target.display())))
        .execute(&pool)
        .await
        .unwrap();

    // The golden logs: every stored row, as stored.
    for id in corpus::all_games() {
        let g = sqlx::query("SELECT * FROM games WHERE id = ?").bind(id).fetch_one(&pool).await.unwrap();
        let game = json!({
            "id": g.get::<String, _>("id"),
            "request_id": g.get::<Option<String>, _>("request_id"),
            "created_wall_ms": g.get::<i64, _>("created_wall_ms"),
            "event_name": g.get::<String, _>("event_name"),
            "round": g.get::<String, _>("round"),
            "white": g.get::<String, _>("white"),
            "black": g.get::<String, _>("black"),
            "spec_json": g.get::<String, _>("spec_json"),
            "status": g.get::<String, _>("status"),
            "result": g.get::<Option<String>, _>("result"),
            "last_seq": g.get::<i64, _>("last_seq"),
            "updated_wall_ms": g.get::<i64, _>("updated_wall_ms"),
            // The formats of the payloads (the columns exist from format 2 on;
            // the first corpus predates them).
            "spec_format": g.try_get::<i64, _>("spec_format").ok(),
        });
        let rows = sqlx::query("SELECT * FROM game_events WHERE game_id = ? ORDER BY seq")
            .bind(id)
            .fetch_all(&pool)
            .await
            .unwrap();
        let events: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "seq": r.get::<i64, _>("seq"),
                    "request_id": r.get::<Option<String>, _>("request_id"),
                    "actor": r.get::<String, _>("actor"),
                    "at_ms": r.get::<i64, _>("at_ms"),
                    "wall_ms": r.get::<i64, _>("wall_ms"),
                    "event_json": r.get::<String, _>("event_json"),
                    "rulings_json": r.get::<String, _>("rulings_json"),
                    "format": r.try_get::<i64, _>("format").ok(),
                })
            })
            .collect();
        let log = json!({ "game": game, "events": events });
        std::fs::write(
            out.join("logs").join(format!("{id}.json")),
            serde_json::to_string_pretty(&log).unwrap() + "\n",
        )
        .unwrap();
    }
    pool.close().await;

    // What a server opened on that database answers.
    let copy = dir.path().join("reopened.db");
    std::fs::copy(&target, &copy).unwrap();
    let server = TestServer::start_with(None, format!("sqlite://{}", copy.display()), |_| {}).await;
    let answers = corpus::read_everything_of(&server, &corpus::all_games()).await;
    server.stop().await;
    let expected = json!({ "recorded_with_commit": commit, "answers": answers });
    std::fs::write(out.join("expected.json"), serde_json::to_string_pretty(&expected).unwrap() + "\n")
        .unwrap();
    println!("golden corpus written to {} ({} games)", out.display(), corpus::all_games().len());
}
