//! The service's logs as operators expect them: on standard error, without
//! colour when it is not a terminal, and as JSON with the call's method,
//! game and request id as fields (`--log-format json`).

use arbiter_e2e::daemon::Daemon;
use arbiter_e2e::*;
use arbiter_proto::v1 as pb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_name_the_method_the_game_and_the_request() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let log_path = dir.path().join("arbiterd.log");
    let log = log_path.clone();
    // Debug: refusals are logged at that level.
    let daemon = tokio::task::spawn_blocking(move || {
        Daemon::spawn_with_env(&url, &log, &["--log-format", "json"], &[("RUST_LOG", "arbiter_server=debug")])
    })
    .await
    .unwrap();
    let mut arbiter = daemon.arbiter();
    let game = arbiter
        .create_game(new_game(regulations("5+2", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    // An illegal move with a request id: refused, and logged as refused.
    let refused = arbiter
        .make_move(pb::MakeMoveRequest {
            name: game.name.clone(),
            color: pb::Color::White as i32,
            r#move: "e5".into(),
            request_id: "req-log-1".into(),
            ..Default::default()
        })
        .await;
    assert!(refused.is_err());
    drop(daemon);

    let text = std::fs::read_to_string(&log_path).unwrap();
    assert!(!text.contains('\u{1b}'), "no ANSI colour in a log that is not a terminal");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    let id = game.name.strip_prefix("games/").unwrap();
    let refusal = lines
        .iter()
        .find(|l| l["fields"]["message"] == "request refused" && l["span"]["request_id"] == "req-log-1")
        .unwrap_or_else(|| panic!("no refusal with its request id in:\n{text}"));
    assert_eq!(refusal["span"]["grpc_method"], "MakeMove", "{refusal}");
    assert_eq!(refusal["span"]["game"], id, "{refusal}");
}
