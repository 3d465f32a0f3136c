//! The `arbiter` binary's offline tools (`pgn check`, `fen show`,
//! `completions`), its help and its exit codes, run as a user would.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The project's `shared/` folder with the public data sets:
/// `$ARBITER_SHARED`, else the nearest `shared` folder with a `data/` inside,
/// beside the repository or above it.
fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().skip(1).map(|dir| dir.join("shared")).find(|c| c.join("data").is_dir())
}

/// A PGN collection of `shared/data/pgn/`, or `None` when it is absent: the
/// test says so in one line and skips, except on CI (`CI` set), where a
/// missing data set fails.
fn pgn_file(name: &str) -> Option<PathBuf> {
    let path = shared_dir().map(|dir| dir.join("data/pgn").join(name));
    if let Some(path) = path.filter(|p| p.is_file()) {
        return Some(path);
    }
    let looked = shared_dir().map_or_else(
        || "no shared/data beside the repository or above it, and ARBITER_SHARED unset".to_owned(),
        |dir| format!("not in {}", dir.join("data").display()),
    );
    let why = format!(
        "data set shared/data/pgn/{name} not found ({looked}); set ARBITER_SHARED to the folder that holds data/"
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    // Straight to the process's stderr: libtest captures `eprintln!` of a
    // passing test, and this line must be seen.
    let _ = writeln!(std::io::stderr(), "skipped: {why}");
    None
}

/// Runs `arbiter` with `args`, without the server variables of the caller.
fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .env_remove("ARBITER_URL")
        .env_remove("ARBITER_TOKEN")
        .output()
        .expect("run arbiter")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn pgn_check_accepts_every_shared_file() {
    // (file, games) as counted in shared/data/pgn/README.md.
    let files = [
        ("Alekhine.pgn", 1661),
        ("lichess_db_1000k.pgn", 438),
        ("lichess_db_standard_rated_2013-01_truncated_5000.pgn", 5000),
    ];
    for (name, games) in files {
        let Some(path) = pgn_file(name) else { return };
        let o = arbiter(&["pgn", "check", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}{}", stdout(&o), stderr(&o));
        let text = stdout(&o);
        assert!(text.contains(&format!("games {games},")), "{name}: {text}");
        assert!(text.contains("invalid 0"), "{name}: {text}");
    }
}

#[test]
fn pgn_check_json_totals() {
    let Some(path) = pgn_file("lichess_db_1000k.pgn") else { return };
    let o = arbiter(&["--json", "pgn", "check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(doc["games"], 438);
    assert_eq!(doc["plies"], 28538);
    assert_eq!(doc["invalid"], 0);
    assert_eq!(doc["files"][0]["problems"].as_array().map(Vec::len), Some(0));
}

#[test]
fn pgn_check_rejects_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.pgn");
    let pgn = "\
[Event \"good\"]
[Result \"1-0\"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Event \"illegal move\"]
[Result \"*\"]

1. e4 e5 2. Ke3 *

[Event \"fool's mate\"]
[Result \"0-1\"]

1. f3 e5 2. g4 Qh4# 0-1

[Event \"mate scored for the mated side\"]
[Result \"1-0\"]

1. f3 e5 2. g4 Qh4# 1-0
";
    std::fs::write(&path, pgn).unwrap();
    let o = arbiter(&["pgn", "check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("game 2: error at ply 3"), "{text}");
    assert!(text.contains("game 4: error"), "{text}");
    assert!(!text.contains("game 1:"), "valid games are not listed without --verbose: {text}");
    assert!(text.contains("games 4,"), "{text}");
    assert!(text.contains("invalid 2"), "{text}");

    let o = arbiter(&["--json", "pgn", "check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["invalid"], 2);
    let problems = doc["files"][0]["problems"].as_array().unwrap();
    assert_eq!(problems.iter().map(|p| p["game"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 4]);
    assert_eq!(problems[0]["ply"], 3);

    let o = arbiter(&["pgn", "check", "--verbose", path.to_str().unwrap()]);
    assert!(stdout(&o).contains("game 1: ok"), "{}", stdout(&o));
}

#[test]
fn pgn_check_missing_file_is_exit_2() {
    let o = arbiter(&["pgn", "check", "/nonexistent/file.pgn"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot open"), "{}", stderr(&o));
}

#[test]
fn fen_show_lists_legal_moves() {
    let o = arbiter(&[
        "fen",
        "show",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
        "b",
        "KQkq",
        "-",
        "0",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("8  ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"), "{text}");
    assert!(text.contains("Black to move"), "{text}");
    assert!(text.contains("Legal moves (20):"), "{text}");
    assert!(text.contains(" Nf6 "), "{text}");

    let o = arbiter(&["fen", "show", "--ascii", "8/8/8/8/8/5k2/8/5K1q w - - 0 1"]);
    let text = stdout(&o);
    assert!(text.contains("1  . . . . . K . q"), "{text}");
    assert!(text.contains("White is checkmated"), "{text}");

    let o = arbiter(&["--json", "fen", "show", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let sans: Vec<&str> =
        doc["legalMoves"].as_array().unwrap().iter().map(|m| m["san"].as_str().unwrap()).collect();
    assert!(sans.contains(&"O-O") && sans.contains(&"O-O-O"), "{sans:?}");
    assert_eq!(doc["turn"], "white");
    assert_eq!(doc["checkmate"], false);
}

#[test]
fn fen_show_bad_fen_is_exit_2() {
    let o = arbiter(&["fen", "show", "not-a-fen"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = arbiter(&["--json", "fen", "show", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_str(stderr(&o).trim()).expect("a JSON error");
    assert_eq!(doc["error"]["code"], "INVALID_ARGUMENT");
}

#[test]
fn usage_errors_are_exit_1_and_help_is_0() {
    assert_eq!(arbiter(&[]).status.code(), Some(1));
    assert_eq!(arbiter(&["no-such-command"]).status.code(), Some(1));
    assert_eq!(
        arbiter(&["clock", "adjust", "abc", "--color", "white", "--delta", "soon"]).status.code(),
        Some(1)
    );
    assert_eq!(arbiter(&["result", "abc", "2-0"]).status.code(), Some(1));
    let help = arbiter(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = stdout(&help);
    assert!(text.contains("Exit codes:") && text.contains("3  refused by the Laws"), "{text}");
    for sub in [&["game", "create", "--help"][..], &["move", "--help"], &["clock", "adjust", "--help"]] {
        let o = arbiter(sub);
        assert_eq!(o.status.code(), Some(0));
        assert!(stdout(&o).contains("Example"), "{sub:?}: {}", stdout(&o));
    }
}

#[test]
fn a_time_control_that_could_be_misread_is_a_usage_error() {
    for (tc, problem) in [
        ("40/5400+30:1800+30", "mark it as such: `pgn:40/5400+30:1800+30`"),
        ("5m | 4m", "counted in seconds"),
        ("5; 4", "White 5m+2s@61; Black 4m+2s@61"),
        ("blitz", "expected a number"),
    ] {
        let o = arbiter(&["game", "create", "--white", "A", "--black", "B", "--tc", tc]);
        assert_eq!(o.status.code(), Some(1), "{tc}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(problem), "{tc}: {err}");
        assert!(err.contains("accepted forms: minutes+seconds `5+3` or `5|3`"), "{err}");
    }
    // An accepted form gets as far as the server (here: none listening).
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    for tc in ["5|3", "pgn:300+3", "1h30+30s"] {
        let o = arbiter(&["--url", &url, "game", "create", "--white", "A", "--black", "B", "--tc", tc]);
        assert_eq!(o.status.code(), Some(5), "{tc}: {}", stderr(&o));
    }
}

#[test]
fn unreachable_server_is_exit_5() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let o = arbiter(&["--url", &url, "game", "show", "abc"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot connect"), "{}", stderr(&o));
}

#[test]
fn board_connect_usage_and_an_unreachable_livechess() {
    // One board source, exactly; --serial belongs to LiveChess; a DGT board
    // needs its device id.
    for args in [
        &["board", "connect", "--game", "abc"][..],
        &[
            "board",
            "connect",
            "--game",
            "abc",
            "--livechess",
            "ws://127.0.0.1:1",
            "--dgt-serial",
            "/dev/null",
        ],
        &["board", "connect", "--game", "abc", "--dgt-serial", "/dev/ttyUSB0"],
        &[
            "board",
            "connect",
            "--game",
            "abc",
            "--dgt-serial",
            "/dev/null",
            "--device-id",
            "1",
            "--serial",
            "2",
        ],
        &["board", "connect", "--game", "abc", "--livechess", "ws://127.0.0.1:1", "--settle-ms", "0"],
        &["board", "connect", "--game", "abc", "--livechess", "ws://127.0.0.1:1", "--sensing", "eyes"],
    ] {
        let o = arbiter(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    }
    let help = arbiter(&["board", "connect", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = stdout(&help);
    assert!(text.contains("--livechess") && text.contains("setup") && text.contains("Example"), "{text}");
    // Nothing listens there: exit 5, as for an unreachable service.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = arbiter(&["board", "connect", "--game", "abc", "--livechess", &format!("ws://127.0.0.1:{port}")]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot connect to LiveChess"), "{}", stderr(&o));
    // A port that is not a serial line (stty refuses it): exit 5 too.
    let o = arbiter(&["board", "connect", "--game", "abc", "--dgt-serial", "/dev/null", "--device-id", "1"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("stty could not set /dev/null"), "{}", stderr(&o));
    // Not a LiveChess address: a usage error.
    let o = arbiter(&["board", "connect", "--game", "abc", "--livechess", "http://127.0.0.1:1982"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("ws://host:port"), "{}", stderr(&o));
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let o = arbiter(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let text = stdout(&o);
        assert!(text.contains("arbiter") && text.contains("offer-draw"), "{shell}: {text}");
    }
}
