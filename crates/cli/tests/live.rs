//! The `arbiter` binary against a real `arbiterd` (`arbiter_server::run`,
//! what the binary runs) on 127.0.0.1 with a temporary SQLite file: every
//! kind of command with its text and JSON, the exit codes of refusals, TLS
//! with `--ca`, and `game watch` in a real terminal (tmux).

use std::process::{Command, Output};
use std::time::Duration;

use arbiter_client::{Client, RetryPolicy, TlsOptions, pb};
use arbiter_e2e::{ARBITER_TOKEN, TestServer, VIEWER_TOKEN};
use arbiter_server::TlsFiles;

/// A fresh SQLite file in `dir`.
fn database(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("arbiter.db").display())
}

/// A server on any port and `database_url` (the shared end-to-end harness).
async fn start(database_url: &str) -> TestServer {
    TestServer::start_with(None, database_url.to_string(), |_| {}).await
}

/// Runs the `arbiter` binary against `url` with `token`.
fn cli(url: &str, token: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .env("ARBITER_URL", url)
        .env("ARBITER_TOKEN", token)
        .output()
        .expect("run arbiter")
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_against_a_live_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    let run = |token: &'static str, args: &'static [&'static str]| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || cli(&url, token, args))
    };

    // Create over the board, started, as JSON.
    let o = run(
        ARBITER_TOKEN,
        &[
            "--json",
            "game",
            "create",
            "--white",
            "Alpha",
            "--black",
            "Beta",
            "--time-control",
            "90+30",
            "--event",
            "CLI Open",
            "--round",
            "2",
            "--id",
            "cli-game",
            "--start",
        ],
    )
    .await
    .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&ok(&o)).expect("one JSON document");
    // CreateGameResponse in the canonical proto3 JSON mapping, as grpcurl
    // prints it.
    assert_eq!(doc["game"]["name"], "games/cli-game");
    assert_eq!(doc["game"]["status"], "GAME_STATUS_IN_PROGRESS");
    assert_eq!(doc["game"]["regulations"]["mode"], "MODE_OVER_THE_BOARD");
    assert!(doc["whiteToken"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(doc["blackToken"].as_str().is_some_and(|t| !t.is_empty()));

    // A move, then the press that completes it.
    let text = ok(&run(ARBITER_TOKEN, &["move", "cli-game", "e4", "--color", "white"]).await.unwrap());
    assert!(text.contains("MAKE_MOVE"), "{text}");
    assert!(text.contains("MOVE_MADE"), "{text}");
    let text = ok(&run(ARBITER_TOKEN, &["press", "games/cli-game", "--color", "white"]).await.unwrap());
    assert!(text.contains("MOVE_COMPLETED"), "{text}");
    assert!(
        text.contains("Article 6.2.1") && text.contains("[FIDE-6.2a]"),
        "the Article, then the rule id: {text}"
    );
    assert!(text.contains("Black to move"), "{text}");

    // Touch move: Black touches the g8 knight and must move it.
    let text = ok(&run(ARBITER_TOKEN, &["touch", "cli-game", "g8", "--color", "black"]).await.unwrap());
    assert!(text.contains("TOUCH") && text.contains("OBLIGATION"), "{text}");
    let text = ok(&run(ARBITER_TOKEN, &["game", "show", "cli-game"]).await.unwrap());
    assert!(text.contains("Obligation: Black (Article 4.3.1, FIDE-4.3a)"), "{text}");
    let text = ok(&run(ARBITER_TOKEN, &["move", "cli-game", "Nf6", "--color", "black"]).await.unwrap());
    assert!(text.contains("MOVE_MADE"), "{text}");
    ok(&run(ARBITER_TOKEN, &["press", "cli-game", "--color", "black"]).await.unwrap());

    // Refused by the Laws: exit 3, the reason on standard error.
    let o = run(ARBITER_TOKEN, &["accept-draw", "cli-game", "--color", "black"]).await.unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("arbiter: FAILED_PRECONDITION NO_DRAW_OFFER"), "{stderr}");
    let o = run(ARBITER_TOKEN, &["--json", "accept-draw", "cli-game", "--color", "black"]).await.unwrap();
    assert_eq!(o.status.code(), Some(3));
    let err: serde_json::Value = serde_json::from_slice(&o.stderr).expect("a JSON error");
    assert_eq!(err["error"]["code"], "FAILED_PRECONDITION");
    assert_eq!(err["error"]["reason"], "NO_DRAW_OFFER");
    assert_eq!(err["error"]["exitCode"], 3);
    // Text that is not a move: INVALID_ARGUMENT, exit 2 (an illegal move is
    // a move: see `scoresheet_moves_and_their_exit_codes`).
    let o = run(ARBITER_TOKEN, &["move", "cli-game", "Qxf9", "--color", "white"]).await.unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));

    // Arbiter: clock adjust with a negative duration.
    let text =
        ok(&run(ARBITER_TOKEN, &["clock", "adjust", "cli-game", "--color", "black", "--delta", "-30s"])
            .await
            .unwrap());
    assert!(text.contains("ADJUST_CLOCK") || text.contains("CLOCK"), "{text}");

    // Show: diagram, whose move, clocks, rulings.
    let text = ok(&run(VIEWER_TOKEN, &["game", "show", "cli-game", "--ascii"]).await.unwrap());
    assert!(text.contains("games/cli-game  CLI Open, round 2: Alpha - Beta"), "{text}");
    assert!(text.contains("4  . . . . P . . ."), "{text}");
    assert!(text.contains("6  . . . . . n . ."), "{text}");
    assert!(text.contains("Clocks:"), "{text}");
    assert!(text.contains("Last rulings:"), "{text}");
    assert!(text.contains("1. e4 Nf6"), "{text}");
    assert!(text.contains("White to move"), "{text}");
    let text = ok(&run(VIEWER_TOKEN, &["game", "show", "cli-game"]).await.unwrap());
    assert!(text.contains("4  · · · · ♙ · · ·"), "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&run(VIEWER_TOKEN, &["--json", "game", "show", "cli-game"]).await.unwrap()))
            .unwrap();
    assert_eq!(doc["game"]["movesSan"], serde_json::json!(["e4", "Nf6"]));
    assert_eq!(doc["game"]["sideToMove"], "COLOR_WHITE");
    assert!(
        doc["game"]["lastSeq"].as_str().is_some_and(|s| s.parse::<i64>().is_ok()),
        "int64 as a string: {doc}"
    );

    // List.
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&run(VIEWER_TOKEN, &["--json", "game", "list", "--event", "CLI Open"])
            .await
            .unwrap()))
        .unwrap();
    assert_eq!(doc["games"][0]["name"], "games/cli-game");
    let text = ok(&run(VIEWER_TOKEN, &["game", "list", "--status", "in-progress"]).await.unwrap());
    assert!(text.contains("games/cli-game") && text.contains("in progress"), "{text}");

    // The arbiter ends the game; the audit trail and the PGN.
    let text = ok(&run(ARBITER_TOKEN, &["result", "cli-game", "1-0"]).await.unwrap());
    assert!(text.contains("finished: 1-0"), "{text}");
    let text = ok(&run(ARBITER_TOKEN, &["audit", "cli-game"]).await.unwrap());
    for act in ["MAKE_MOVE", "PRESS_CLOCK", "ADJUST_CLOCK", "DECLARE_RESULT"] {
        assert!(text.contains(act), "{act}: {text}");
    }
    assert!(text.contains("Z"), "record times: {text}");
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&run(ARBITER_TOKEN, &["--json", "audit", "cli-game"]).await.unwrap()))
            .unwrap();
    let events = doc["events"].as_array().unwrap();
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_str().unwrap().parse().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    let pgn = ok(&run(VIEWER_TOKEN, &["game", "pgn", "cli-game"]).await.unwrap());
    assert!(pgn.contains("[White \"Alpha\"]"), "{pgn}");
    assert!(pgn.contains("1. e4"), "{pgn}");

    // Watch a finished game as JSON lines: every event, then exit 0.
    let text = ok(&run(VIEWER_TOKEN, &["--json", "game", "watch", "cli-game"]).await.unwrap());
    let lines: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    // WatchGameResponse messages: the game first, then the events.
    assert!(lines[0]["game"].is_object(), "{}", lines[0]);
    let watched: Vec<i64> = lines
        .iter()
        .filter_map(|l| l.get("event"))
        .map(|e| e["seq"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(watched, seqs);
    // ... and as text (not a terminal: one line per event and ruling).
    let text = ok(&run(VIEWER_TOKEN, &["game", "watch", "cli-game", "--ascii"]).await.unwrap());
    assert!(text.contains("DECLARE_RESULT") && text.contains("Game over: finished: 1-0"), "{text}");

    // Not found, unauthenticated.
    let o = run(VIEWER_TOKEN, &["game", "show", "nope"]).await.unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = run("wrong-token-0123456789012345", &["game", "show", "cli-game"]).await.unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", String::from_utf8_lossy(&o.stderr));
    server.stop().await;
}

/// The exit code of `o`, with its output when it is not `expected`.
#[track_caller]
fn exits(o: &Output, expected: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(expected),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Moves as a scoresheet writes them, and the exit codes of the documented
/// table for SAN and UCI alike: 0 accepted, 3 refused or ruled illegal by
/// the Laws (touch-move, an illegal move, out of turn), 2 malformed or
/// ambiguous text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scoresheet_moves_and_their_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    let run = |args: &'static [&'static str]| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || cli(&url, ARBITER_TOKEN, args))
    };
    ok(&run(&[
        "game",
        "create",
        "--white",
        "A",
        "--black",
        "B",
        "--time-control",
        "90+30",
        "--id",
        "sheet",
        "--start",
    ])
    .await
    .unwrap());

    // Touch-move: a move of another piece is refused, in SAN and in UCI.
    ok(&run(&["touch", "sheet", "g1", "--color", "white"]).await.unwrap());
    let text = exits(&run(&["move", "sheet", "d4", "--color", "white"]).await.unwrap(), 3);
    assert!(text.contains("Move refused: touch-move"), "{text}");
    assert!(text.contains("OBLIGATION"), "{text}");
    exits(&run(&["move", "sheet", "d2d4", "--color", "white"]).await.unwrap(), 3);
    let doc: serde_json::Value = serde_json::from_str(&exits(
        &run(&["--json", "move", "sheet", "d2-d4", "--color", "white"]).await.unwrap(),
        3,
    ))
    .expect("one JSON document");
    assert_eq!(doc["outcome"], "MOVE_OUTCOME_REFUSED_TOUCH_MOVE");

    // The knight, in long algebraic: accepted.
    let text = ok(&run(&["move", "sheet", "Ng1-f3", "--color", "white"]).await.unwrap());
    assert!(text.contains("Move accepted"), "{text}");
    ok(&run(&["press", "sheet", "--color", "white"]).await.unwrap());

    // An illegal move written in SAN (the f8 bishop through e7): made, then
    // ruled at the press; exit 3 both times.
    let text = exits(&run(&["move", "sheet", "Bb4", "--color", "black"]).await.unwrap(), 3);
    assert!(text.contains("ILLEGAL_MOVE_NOT_COMPLETED") && text.contains("Bf8-b4"), "{text}");
    let text = exits(&run(&["press", "sheet", "--color", "black"]).await.unwrap(), 3);
    assert!(text.contains("ILLEGAL_MOVE") && text.contains("FIDE-7.5.1"), "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&run(&["--json", "move", "sheet", "e5", "--color", "black"])
            .await
            .unwrap()))
        .expect("one JSON document");
    assert_eq!(doc["outcome"], "MOVE_OUTCOME_ACCEPTED");
    ok(&run(&["press", "sheet", "--color", "black"]).await.unwrap());

    // Out of turn: refused by the Laws in SAN as in UCI.
    let text = exits(&run(&["move", "sheet", "d6", "--color", "black"]).await.unwrap(), 3);
    assert!(text.contains("NOT_YOUR_TURN"), "{text}");
    exits(&run(&["move", "sheet", "d7d6", "--color", "black"]).await.unwrap(), 3);

    // Malformed, or several pieces could have made it: exit 2.
    exits(&run(&["move", "sheet", "Qxf9", "--color", "white"]).await.unwrap(), 2);
    let text = exits(&run(&["move", "sheet", "Nd2", "--color", "white"]).await.unwrap(), 2);
    assert!(text.contains("Nd2 could be Nb1-d2 or Nf3-d2; write the origin square"), "{text}");

    // Set-up errors and the A.5.2 claim.
    let text = ok(&run(&["setup-error", "sheet", "board-orientation"]).await.unwrap());
    assert!(text.contains("SETUP_ERROR_STANDS") && text.contains("FIDE-7.2b"), "{text}");
    let text = exits(&run(&["claim-illegal", "sheet", "--color", "black"]).await.unwrap(), 3);
    assert!(text.contains("FIDE-A.5.2"), "{text}");
    exits(&run(&["setup-error", "sheet", "king-misplaced"]).await.unwrap(), 2);
    server.stop().await;
}

/// `--ca`: the CLI trusts the given CA for `https://`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_with_a_given_ca() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert_pem, key_pem) = arbiter_e2e::test_certificates(dir.path());
    let server =
        TestServer::start_tls(None, database(&dir), TlsFiles { cert_pem, key_pem }, ca.clone()).await;
    let url = format!("https://localhost:{}", server.addr.port());
    // The game, created with the library once the server answers over TLS.
    let tls = TlsOptions { ca_pem: Some(ca), domain: None };
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
    client
        .create_game(pb::CreateGameRequest {
            game_id: "tls-game".into(),
            white: Some(pb::Player { name: "White, Player".into(), ..Default::default() }),
            black: Some(pb::Player { name: "Black, Player".into(), ..Default::default() }),
            regulations: Some(pb::Regulations {
                time_control: "90+30".into(),
                mode: pb::Mode::Online as i32,
                ..Default::default()
            }),
            start: true,
            ..Default::default()
        })
        .await
        .unwrap();

    // The CLI with --ca.
    let ca_path = dir.path().join("ca.pem");
    let text = ok(&tokio::task::spawn_blocking(move || {
        cli(&url, VIEWER_TOKEN, &["--ca", ca_path.to_str().unwrap(), "game", "show", "tls-game", "--ascii"])
    })
    .await
    .unwrap());
    assert!(text.contains("games/tls-game"), "{text}");
    server.stop().await;
}

/// The screen of a tmux pane.
fn capture(session: &str) -> String {
    let out =
        Command::new("tmux").args(["capture-pane", "-p", "-t", session]).output().expect("tmux capture-pane");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until the pane shows every one of `wanted`, or fails with the screen.
async fn wait_for_screen(session: &str, wanted: &[&str]) -> String {
    let mut screen = String::new();
    for _ in 0..100 {
        screen = capture(session);
        if wanted.iter().all(|w| screen.contains(w)) {
            return screen;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the watch screen never showed {wanted:?}:\n{screen}");
}

/// `arbiter game watch` in a real terminal (tmux): moves played from other
/// processes appear on the live screen, and so does the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_watch_in_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI needs tmux for the game watch test");
        eprintln!("tmux not installed: game watch test skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    ok(&cli(
        &url,
        ARBITER_TOKEN,
        &["game", "create", "--id", "tmux", "--white", "Alice", "--black", "Bob", "--time-control", "90+30"],
    ));
    ok(&cli(&url, ARBITER_TOKEN, &["game", "start", "tmux"]));
    let session = format!("arbiter-watch-{}", std::process::id());
    let status = Command::new("tmux")
        .args(["new-session", "-d", "-s", &session, "-x", "100", "-y", "45"])
        .args(["-e", &format!("ARBITER_URL={url}"), "-e", &format!("ARBITER_TOKEN={ARBITER_TOKEN}")])
        // The watch ends with the game; the pane stays open so the final
        // screen can be read.
        .arg(format!("{} game watch tmux; sleep 60", env!("CARGO_BIN_EXE_arbiter")))
        .status()
        .expect("tmux new-session");
    assert!(status.success());
    struct Session(String);
    impl Drop for Session {
        fn drop(&mut self) {
            let _ = Command::new("tmux").args(["kill-session", "-t", &self.0]).status();
        }
    }
    let _session = Session(session.clone());

    wait_for_screen(&session, &["Alice", "Bob"]).await;
    // Over the board: each move is made, then the clock pressed, each by a
    // process of its own.
    for (mv, color) in [("e4", "white"), ("e5", "black"), ("Nf3", "white")] {
        ok(&cli(&url, ARBITER_TOKEN, &["move", "tmux", mv, "--color", color]));
        ok(&cli(&url, ARBITER_TOKEN, &["press", "tmux", "--color", color]));
    }
    let screen = wait_for_screen(&session, &["e4", "e5", "Nf3"]).await;
    assert!(
        screen.contains("FIDE-") && screen.contains("Article 6.2.1"),
        "the rulings, their Articles and rule ids are on the screen:\n{screen}"
    );
    ok(&cli(&url, ARBITER_TOKEN, &["resign", "tmux", "--color", "black"]));
    wait_for_screen(&session, &["1-0"]).await;
    server.stop().await;
}

/// `--time-control` as a user writes it reaches the service with the same
/// meaning: minutes + seconds whatever the numbers, the PGN form only with
/// `pgn:`; the game shows the clocks that says, and `game show` both forms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_controls_are_created_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    for (i, (tc, shown, human, white_ms, black_ms)) in [
        ("5|3", "300+3", "5m+3s", 300_000, 300_000),
        ("180+2", "10800+2", "180m+2s", 10_800_000, 10_800_000),
        ("90s+0", "90+0", "90s+0s", 90_000, 90_000),
        ("1h30+30s", "5400+30", "90m+30s", 5_400_000, 5_400_000),
        ("pgn:40/5400+30:1800+30", "40/5400+30:1800+30", "40/90m+30s, 30m+30s", 5_400_000, 5_400_000),
        (
            "White 5+2@61; Black 4+2@61",
            "300+2@61|240+2@61",
            "White 5m+2s@61; Black 4m+2s@61",
            300_000,
            240_000,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("tc-{i}");
        let args: Vec<String> =
            ["--json", "game", "create", "--white", "A", "--black", "B", "--id", &id, "--tc", tc]
                .map(String::from)
                .to_vec();
        let u = url.clone();
        let o = tokio::task::spawn_blocking(move || {
            cli(&u, ARBITER_TOKEN, &args.iter().map(String::as_str).collect::<Vec<_>>())
        })
        .await
        .unwrap();
        let doc: serde_json::Value = serde_json::from_str(&ok(&o)).expect("one JSON document");
        assert_eq!(doc["game"]["regulations"]["timeControl"], shown, "{tc}");
        assert_eq!(doc["game"]["clocks"]["whiteRemainingMs"], white_ms.to_string(), "{tc}");
        assert_eq!(doc["game"]["clocks"]["blackRemainingMs"], black_ms.to_string(), "{tc}");
        let u = url.clone();
        let o =
            tokio::task::spawn_blocking(move || cli(&u, VIEWER_TOKEN, &["game", "show", &id])).await.unwrap();
        let text = ok(&o);
        assert!(text.contains(&format!("{human} (pgn:{shown})")), "{tc}: {text}");
    }
}

/// `event broadcast`: the arbiter turns the spectators' public link on and
/// off and stops the broadcast; `event create --public-view` starts public.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_events_broadcast_is_changed_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    let run = |token: &'static str, args: Vec<&'static str>| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || cli(&url, token, &args))
    };
    let created = run(
        ARBITER_TOKEN,
        vec![
            "event",
            "create",
            "--id",
            "open",
            "--title",
            "Open",
            "--tc",
            "90+30",
            "--broadcast-delay",
            "15m",
            "--public-view",
        ],
    )
    .await
    .unwrap();
    ok(&created);
    let shown = ok(&run(ARBITER_TOKEN, vec!["event", "show", "open"]).await.unwrap());
    assert!(shown.contains("broadcast:   900s delay, spectators' page public"), "{shown}");

    let private =
        ok(&run(ARBITER_TOKEN, vec!["event", "broadcast", "open", "--delay", "30m", "--no-public"])
            .await
            .unwrap());
    assert_eq!(private, "broadcast:   1800s delay, spectators need a token\n");
    let json =
        ok(&run(ARBITER_TOKEN, vec!["--json", "event", "broadcast", "open", "--delay", "0s", "--public"])
            .await
            .unwrap());
    let event: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(event["broadcast"], serde_json::json!({ "publicView": true }), "{json}");

    // A viewer may not; --off stops it; a delay is needed unless --off.
    let refused = run(VIEWER_TOKEN, vec!["event", "broadcast", "open", "--off"]).await.unwrap();
    assert_ne!(refused.status.code(), Some(0));
    let said = String::from_utf8_lossy(&refused.stderr).to_lowercase();
    assert!(said.contains("permission"), "{refused:?}");
    let off = ok(&run(ARBITER_TOKEN, vec!["event", "broadcast", "open", "--off"]).await.unwrap());
    assert_eq!(off, "events/open: no broadcast\n");
    let usage = run(ARBITER_TOKEN, vec!["event", "broadcast", "open"]).await.unwrap();
    assert_ne!(usage.status.code(), Some(0), "{usage:?}");
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--delay <DELAY>"), "{usage:?}");
}

/// Runs `arbiter` with only the environment given (no ARBITER_URL or
/// ARBITER_TOKEN: the config file's context decides).
fn cli_env(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command.args(args);
    for var in
        ["ARBITER_URL", "ARBITER_TOKEN", "ARBITER_TOKEN_FILE", "ARBITER_CA", "ARBITER_CONTEXT", "COMPLETE"]
    {
        command.env_remove(var);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("run arbiter")
}

/// What users of kubectl, grpcurl and gh expect (issue 19): contexts in a
/// config file, `-o json|yaml|wide`, tables that align CJK names, a
/// finished game without an open obligation or paused clocks, allowed moves
/// in SAN, `game list --watch`, completion of game ids from the server, and
/// help with the command's own options first and its exit codes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conventions_users_already_know() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    let config = dir.path().join("conf/config.yaml");
    let token_file = dir.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{ARBITER_TOKEN}\n")).unwrap();
    let config_s = config.to_str().unwrap().to_owned();
    let env = move || vec![("ARBITER_CONFIG".to_owned(), config_s.clone())];
    let run = move |args: Vec<String>| {
        let env = env();
        tokio::task::spawn_blocking(move || {
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            cli_env(&env, &args.iter().map(String::as_str).collect::<Vec<_>>())
        })
    };
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    // Contexts: with none, the default address (nothing listens there in
    // this test's sense: we only check the context is asked for by name).
    let o = run(args(&["--context", "hall", "game", "list"])).await.unwrap();
    let stderr = exits(&o, 2);
    assert!(stderr.contains("no context \"hall\""), "{stderr}");
    let text = ok(&run(args(&[
        "config",
        "set-context",
        "hall",
        "--url",
        &url,
        "--token-file",
        token_file.to_str().unwrap(),
    ]))
    .await
    .unwrap());
    assert!(text.contains("context hall created"), "{text}");
    // A context keeps the token file's path, never the token.
    let o = run(args(&["config", "set-context", "leak", "--token", ARBITER_TOKEN])).await.unwrap();
    exits(&o, 2);
    ok(&run(args(&["config", "set-context", "other", "--url", "http://127.0.0.1:9"])).await.unwrap());
    let text = ok(&run(args(&["config", "get-contexts"])).await.unwrap());
    let hall = text.lines().find(|l| l.contains("hall")).unwrap();
    assert!(hall.starts_with('*'), "the first context made is current: {text}");
    assert!(!std::fs::read_to_string(&config).unwrap().contains(ARBITER_TOKEN));
    ok(&run(args(&["config", "use-context", "other"])).await.unwrap());
    assert_eq!(ok(&run(args(&["config", "current-context"])).await.unwrap()), "other\n");
    // The current context is `other`, where nothing listens: exit 5.
    exits(&run(args(&["game", "list"])).await.unwrap(), 5);
    // --context names another; use-context makes it current.
    ok(&run(args(&["--context", "hall", "game", "list"])).await.unwrap());
    exits(&run(args(&["config", "use-context", "nope"])).await.unwrap(), 2);
    ok(&run(args(&["config", "use-context", "hall"])).await.unwrap());

    // Games with CJK names, created through the context.
    for (id, white, black) in [("cjk-1", "王皓", "Ding Liren"), ("cjk-2", "Carlsen", "丁立人")] {
        ok(&run(args(&[
            "game", "create", "--id", id, "--white", white, "--black", black, "--tc", "90+30", "--event",
            "CJK",
        ]))
        .await
        .unwrap());
    }
    let text = ok(&run(args(&["game", "list", "--event", "CJK"])).await.unwrap());
    assert!(text.contains("王皓     Ding Liren"), "王皓 is 4 columns wide, padded to 7 like Carlsen: {text}");
    assert!(text.contains("Carlsen  丁立人"), "{text}");
    let text = ok(&run(args(&["game", "list", "--event", "CJK", "-o", "wide"])).await.unwrap());
    let header = text.lines().next().unwrap();
    assert!(header.contains("TIME CONTROL") && header.contains("WHITE CLOCK"), "{text}");
    assert!(text.contains("90m+30s"), "{text}");

    // -o json and -o yaml: the same document (a pending game: its clocks
    // do not run between the two reads), the one grpcurl prints.
    let json: serde_json::Value =
        serde_json::from_str(&ok(&run(args(&["-o", "json", "game", "show", "cjk-1"])).await.unwrap()))
            .unwrap();
    let yaml = ok(&run(args(&["-o", "yaml", "game", "show", "cjk-1"])).await.unwrap());
    assert!(yaml.starts_with("game:\n  name: games/cjk-1\n"), "{yaml}");
    let mut from_yaml: serde_json::Value = serde_yaml_ng::from_str(&yaml).unwrap();
    let mut json = json;
    // The clocks are read at each call.
    for doc in [&mut from_yaml, &mut json] {
        doc["game"]["clocks"].as_object_mut().unwrap().remove("readTime");
    }
    assert_eq!(from_yaml, json);
    assert_eq!(json["game"]["status"], "GAME_STATUS_PENDING");
    assert_eq!(json["game"]["white"]["name"], "王皓");
    let listed: serde_json::Value =
        serde_json::from_str(&ok(&run(args(&["--json", "game", "list", "--event", "CJK"])).await.unwrap()))
            .unwrap();
    assert_eq!(listed["games"].as_array().map(Vec::len), Some(2), "--json is -o json: {listed}");

    // `game list --watch -o json`: the list, then each change as a
    // GameUpdate line.
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["game", "list", "--event", "CJK", "--watch", "-o", "json"])
        .env_remove("ARBITER_URL")
        .env_remove("ARBITER_TOKEN")
        .env("ARBITER_CONFIG", &config)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = watcher.stdout.take().unwrap();
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = tokio::time::timeout(Duration::from_secs(20), lines_rx.recv()).await.unwrap().unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["games"].as_array().map(Vec::len), Some(2), "{first}");
    // Give the stream a moment to open, then start a game and move.
    tokio::time::sleep(Duration::from_millis(500)).await;
    ok(&run(args(&["game", "start", "cjk-1"])).await.unwrap());
    ok(&run(args(&["move", "cjk-1", "e4", "--color", "white"])).await.unwrap());
    let mut seen = Vec::new();
    let moved = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let line = lines_rx.recv().await.expect("the watch goes on");
            let doc: serde_json::Value = serde_json::from_str(&line).unwrap();
            if doc["update"]["game"]["movesSan"] == serde_json::json!(["e4"]) {
                return doc;
            }
            seen.push(line);
        }
    })
    .await;
    let moved = moved.unwrap_or_else(|_| panic!("the move is not seen by `game list --watch`: {seen:?}"));
    assert_eq!(moved["update"]["game"]["name"], "games/cjk-1");
    watcher.kill().unwrap();
    let _ = watcher.wait();

    // Allowed moves in SAN; a finished game shows no obligation and no
    // paused clocks.
    ok(&run(args(&["press", "cjk-1", "--color", "white"])).await.unwrap());
    ok(&run(args(&["touch", "cjk-1", "b8", "--color", "black"])).await.unwrap());
    let text = ok(&run(args(&["game", "show", "cjk-1"])).await.unwrap());
    assert!(text.contains("[allowed: Na6, Nc6]"), "SAN, as `touch` prints them: {text}");
    ok(&run(args(&["clock", "pause", "cjk-1"])).await.unwrap());
    assert!(ok(&run(args(&["game", "show", "cjk-1"])).await.unwrap()).contains("(paused)"));
    ok(&run(args(&["result", "cjk-1", "1-0"])).await.unwrap());
    let text = ok(&run(args(&["game", "show", "cjk-1"])).await.unwrap());
    assert!(text.contains("finished: 1-0"), "{text}");
    assert!(!text.contains("Obligation") && !text.contains("(paused)") && !text.contains('◀'), "{text}");

    // Completion of game ids from the server (bash's protocol of
    // clap_complete's dynamic completion).
    let completion = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["--", "arbiter", "game", "show", "cjk"])
        .env_remove("ARBITER_URL")
        .env_remove("ARBITER_TOKEN")
        .env("ARBITER_CONFIG", &config)
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "3")
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .env("_CLAP_IFS", "\n")
        .output()
        .unwrap();
    let offered = ok(&completion);
    let mut ids: Vec<&str> = offered.lines().collect();
    ids.sort_unstable();
    assert_eq!(ids, ["cjk-1", "cjk-2"], "{offered}");
    let registration = ok(&cli_env(&[("COMPLETE", "bash")], &[]));
    assert!(registration.contains("_CLAP_COMPLETE_INDEX"), "{registration}");

    // Help: the command's own options, then the global ones; examples;
    // exit codes.
    let help = ok(&cli_env(&[], &["game", "create", "--help"]));
    let own = help.find("--white").unwrap();
    let global = help.find("Global options:").expect("a section of its own");
    assert!(own < global && global < help.find("--url").unwrap(), "{help}");
    assert!(help.contains("Examples:") && help.contains("Exit codes:"), "{help}");
    let help = ok(&cli_env(&[], &["clock", "pause", "--help"]));
    assert!(help.contains("Exit codes:") && help.contains("  4 "), "{help}");
    server.stop().await;
}

/// `text` with what changes from run to run replaced: RFC 3339 times by
/// `<time>`, the player tokens of `game create` by `<token>`, and `url`
/// by `<url>`.
fn normalized(text: &str, url: &str) -> String {
    let text = text.replace(url, "<url>");
    let mut out = String::new();
    let mut rest = text.as_str();
    // A time: `2026-12-05T01:51:01.140Z` or without the fraction.
    let is_time = |s: &str| {
        let b = s.as_bytes();
        b.len() >= 20
            && b[..4].iter().all(u8::is_ascii_digit)
            && b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b'T'
            && b[13] == b':'
            && b[16] == b':'
    };
    while let Some(c) = rest.chars().next() {
        if is_time(rest) {
            let end = rest.find('Z').map_or(rest.len(), |z| z + 1);
            out.push_str("<time>");
            rest = &rest[end..];
        } else if rest.starts_with("arbp_") {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            out.push_str("<token>");
            rest = &rest[end..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The CLI's output, whole, for the formats users script against and read:
/// compared with `crates/cli/tests/snapshots/*.txt` (times, tokens and the
/// address replaced). `ARBITER_BLESS=1 cargo test -p arbiter-cli --test
/// live snapshots` writes them again after a deliberate change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&database(&dir)).await;
    let url = server.url();
    let run = |token: &'static str, args: Vec<&'static str>| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || cli(&url, token, &args))
    };
    // Pending games: nothing in them changes between two runs but times.
    for args in [
        vec![
            "game",
            "create",
            "--id",
            "snap-1",
            "--white",
            "王皓",
            "--black",
            "Ding Liren",
            "--tc",
            "90+30",
            "--event",
            "Snap",
            "--round",
            "1",
        ],
        vec![
            "game",
            "create",
            "--id",
            "snap-2",
            "--white",
            "Carlsen, M.",
            "--black",
            "丁立人",
            "--tc",
            "5+3",
            "--event",
            "Snap",
            "--round",
            "1",
            "--mode",
            "online",
        ],
    ] {
        ok(&run(ARBITER_TOKEN, args).await.unwrap());
    }
    let mut cases: Vec<(&str, String)> = Vec::new();
    for (name, args) in [
        ("game-list.txt", vec!["game", "list", "--event", "Snap"]),
        ("game-list-wide.txt", vec!["game", "list", "--event", "Snap", "-o", "wide"]),
        ("game-list.json", vec!["game", "list", "--event", "Snap", "-o", "json"]),
        ("game-show.yaml", vec!["game", "show", "snap-2", "-o", "yaml"]),
        ("game-show.txt", vec!["game", "show", "snap-1", "--ascii"]),
    ] {
        cases.push((name, normalized(&ok(&run(VIEWER_TOKEN, args).await.unwrap()), &url)));
    }
    let created = ok(&run(
        ARBITER_TOKEN,
        vec!["game", "create", "--id", "snap-3", "--white", "A", "--black", "B", "--tc", "3+2", "-o", "yaml"],
    )
    .await
    .unwrap());
    cases.push(("game-create.yaml", normalized(&created, &url)));
    let refused =
        run(ARBITER_TOKEN, vec!["-o", "json", "accept-draw", "snap-3", "--color", "black"]).await.unwrap();
    cases.push((
        "error.json",
        format!("exit {}\n{}", refused.status.code().unwrap_or(-1), String::from_utf8_lossy(&refused.stderr)),
    ));
    let help = cli(&url, ARBITER_TOKEN, &["clock", "pause", "--help"]);
    cases.push(("help-clock-pause.txt", normalized(&ok(&help), &url)));
    server.stop().await;

    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let bless = std::env::var_os("ARBITER_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, text) in &cases {
        let path = folder.join(name);
        if bless {
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (ARBITER_BLESS=1 writes it)", path.display()));
        if &expected != text {
            differ.push(format!("--- {name} expected\n{expected}\n--- {name} got\n{text}"));
        }
    }
    assert!(
        differ.is_empty(),
        "CLI output changed (ARBITER_BLESS=1 after a deliberate change):\n{}",
        differ.join("\n")
    );
}
