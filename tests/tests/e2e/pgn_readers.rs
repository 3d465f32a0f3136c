//! The exported PGN as other programs read it (issue 19, point 5): games
//! played against the real server through the Rust client (`arbiter-client`)
//! with clock readings, rulings before the first move, a move refused by
//! touch-move, an illegal move with its time penalty, FIDE ids and several
//! endings (a flag, a resignation, a result declared by the arbiter, a
//! player who never came, a checkmate), exported and read back by three
//! readers, each held to the same expectations:
//!
//! - this project's own reader (`arbiter_chess::pgn`), always;
//! - python-chess (`python3` or `$ARBITER_PYTHON` with the PyPI package
//!   `chess`, 1.11.2 on CI): no parse errors, `node.clock()` on every move,
//!   the comment before the first move as `game.comment`;
//! - pgn-extract (Debian's package `pgn-extract`, found on `PATH`, in
//!   `/usr/games` or at `$ARBITER_PGN_EXTRACT`): it reports no error, keeps
//!   every game, gives the same moves in UCI, and its own export of the
//!   games (comments kept) reads back with the same moves, clocks and
//!   comments.
//!
//! `.ci/run` installs both tools. On CI (`CI` set) a missing tool is a
//! failure; elsewhere the test says what is missing and checks the rest.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter_chess::Position;
use arbiter_chess::pgn::{Comment, read_games};
use arbiter_client::{Client, Color, pb};
use arbiter_e2e::{ARBITER_TOKEN, TestServer};
use serde_json::Value;

/// A game as a reader gave it back.
#[derive(Debug)]
struct ReadGame {
    tags: Vec<(String, String)>,
    /// The comment before the first move ("" for none).
    comment: String,
    moves: Vec<ReadMove>,
}

#[derive(Debug)]
struct ReadMove {
    san: String,
    uci: String,
    /// The reader's own value of the `[%clk]` command.
    clock_ms: Option<u64>,
    /// The text of each `[%clk ...]` command, as written.
    clk_texts: Vec<String>,
    /// The comment without its commands.
    remark: String,
}

impl ReadGame {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What a game's PGN must say.
#[derive(Debug)]
struct Expected {
    game: pb::Game,
    result: &'static str,
    termination: &'static str,
    fide_ids: Option<(&'static str, &'static str)>,
    /// Texts of the comment before the first move, in order (none: no such
    /// comment).
    before_first: Vec<&'static str>,
    /// Texts of the comment after move `ply` (1-based), in order, each said
    /// nowhere else in the game.
    notes: Vec<(usize, Vec<&'static str>)>,
    /// The clock after each move in whole seconds, as the log has it.
    clocks_s: Vec<u64>,
}

/// The `[%clk ...]` commands of a comment and the comment without them.
fn split_clocks(text: &str) -> (Vec<String>, String) {
    let mut clocks = Vec::new();
    let mut rest = String::new();
    let mut s = text;
    while let Some(at) = s.find("[%clk") {
        rest.push_str(&s[..at]);
        let end = s[at..].find(']').map_or(s.len(), |e| at + e + 1);
        clocks.push(s[at + "[%clk".len()..end.saturating_sub(1)].trim().to_owned());
        s = &s[end..];
    }
    rest.push_str(s);
    (clocks, rest.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `H:MM:SS`, nothing more (no fraction of a second).
fn is_h_mm_ss(text: &str) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    parts.len() == 3
        && !parts[0].is_empty()
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        && parts[1].len() == 2
        && parts[2].len() == 2
}

/// The games of `pgn` as this project's reader gives them.
fn read_with_arbiter_chess(pgn: &str) -> Vec<ReadGame> {
    read_games(pgn.as_bytes())
        .map(|g| {
            let g = g.unwrap_or_else(|e| panic!("arbiter-chess cannot read the PGN ({e}):\n{pgn}"));
            let mut pos = match g.tag("FEN") {
                Some(fen) => Position::from_fen(fen).unwrap(),
                None => Position::startpos(),
            };
            let moves = g
                .moves
                .iter()
                .map(|m| {
                    let mv = pos.parse_san(&m.san).unwrap_or_else(|e| panic!("{}: {e}\n{pgn}", m.san));
                    let uci = pos.uci(mv).to_string();
                    pos = pos.after(mv);
                    let text = m.comments.join(" ");
                    let (clk_texts, remark) = split_clocks(&text);
                    ReadMove {
                        san: m.san.clone(),
                        uci,
                        clock_ms: m.clock.map(|c| u64::try_from(c.as_millis()).unwrap()),
                        clk_texts,
                        remark,
                    }
                })
                .collect();
            let comment = g.comments.iter().map(|c| Comment::new(c).remark().to_owned()).collect::<Vec<_>>();
            let comment = comment.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
            ReadGame { tags: g.tags.clone(), comment, moves }
        })
        .collect()
}

/// The check every reader's games must pass.
#[track_caller]
fn check(reader: &str, read: &[ReadGame], expected: &[Expected], pgn: &str) {
    assert_eq!(read.len(), expected.len(), "{reader}: the number of games:\n{pgn}");
    for (g, e) in read.iter().zip(expected) {
        let name = &e.game.name;
        let at = |what: &str| format!("{reader}, {name}: {what}:\n{pgn}");
        assert_eq!(g.tag("Result"), Some(e.result), "{}", at("Result"));
        assert_eq!(g.tag("Termination"), Some(e.termination), "{}", at("Termination"));
        assert_eq!(g.tag("Annotator"), None, "{}", at("no Annotator"));
        match e.fide_ids {
            Some((white, black)) => {
                assert_eq!(
                    (g.tag("WhiteFideId"), g.tag("BlackFideId")),
                    (Some(white), Some(black)),
                    "{}",
                    at("ids")
                );
            }
            None => {
                assert!(g.tag("WhiteFideId").is_none() && g.tag("BlackFideId").is_none(), "{}", at("ids"))
            }
        }
        // The moves.
        let uci: Vec<&str> = g.moves.iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(uci, e.game.moves_uci, "{}", at("moves (UCI)"));
        let san: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(san, e.game.moves_san, "{}", at("moves (SAN)"));
        // One `[%clk]` per move, always H:MM:SS, the log's reading rounded
        // down to the second.
        assert_eq!(e.clocks_s.len(), g.moves.len(), "{}", at("clocks expected"));
        for (i, (m, secs)) in g.moves.iter().zip(&e.clocks_s).enumerate() {
            assert_eq!(m.clk_texts.len(), 1, "{}", at(&format!("one [%clk] on move {}", i + 1)));
            assert!(
                is_h_mm_ss(&m.clk_texts[0]),
                "{}",
                at(&format!("[%clk {}] is not H:MM:SS", m.clk_texts[0]))
            );
            assert_eq!(m.clock_ms, Some(secs * 1000), "{}", at(&format!("the clock of move {}", i + 1)));
        }
        // The comments where things happened.
        let in_order = |text: &str, parts: &[&str], what: &str| {
            let mut from = 0;
            for part in parts {
                let found = text[from..].find(part).unwrap_or_else(|| {
                    panic!("{}", at(&format!("{what}: no {part:?} (in order) in {text:?}")))
                });
                from += found + part.len();
            }
        };
        if e.before_first.is_empty() {
            assert_eq!(g.comment.trim(), "", "{}", at("no comment before the first move"));
        } else {
            in_order(&g.comment, &e.before_first, "the comment before the first move");
        }
        for (ply, parts) in &e.notes {
            in_order(&g.moves[ply - 1].remark, parts, &format!("the comment after move {ply}"));
            for part in parts {
                let elsewhere = g
                    .moves
                    .iter()
                    .enumerate()
                    .filter(|(i, m)| i + 1 != *ply && m.remark.contains(part))
                    .map(|(i, _)| i + 1)
                    .collect::<Vec<_>>();
                assert!(elsewhere.is_empty(), "{}", at(&format!("{part:?} also after moves {elsewhere:?}")));
                assert!(!g.comment.contains(part), "{}", at(&format!("{part:?} before the first move")));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The games
// ---------------------------------------------------------------------------

fn request(
    id: &str,
    time_control: &str,
    mode: pb::Mode,
    fide_ids: Option<(&str, &str)>,
) -> pb::CreateGameRequest {
    let (white_id, black_id) = fide_ids.unwrap_or_default();
    pb::CreateGameRequest {
        game_id: id.into(),
        event: "Readers Open".into(),
        round: "1".into(),
        white: Some(pb::Player {
            name: "Weiss, Anna".into(),
            fide_id: white_id.into(),
            ..Default::default()
        }),
        black: Some(pb::Player {
            name: "Schwarz, Boris".into(),
            fide_id: black_id.into(),
            ..Default::default()
        }),
        regulations: Some(pb::Regulations {
            time_control: time_control.into(),
            mode: mode as i32,
            ..Default::default()
        }),
        start: true,
        ..Default::default()
    }
}

/// Makes `moves` over the board from `first_ply`, each completed by a press
/// unless it ends the game.
async fn otb(arbiter: &Client, game: &str, first_ply: usize, moves: &[&str]) {
    for (i, mv) in moves.iter().enumerate() {
        let color = if (first_ply + i).is_multiple_of(2) { Color::White } else { Color::Black };
        let made = arbiter.make_move(game, color, *mv).await.unwrap_or_else(|e| panic!("{mv}: {e}"));
        assert_eq!(made.move_outcome, pb::MoveOutcome::Accepted, "{mv}: {:?}", made.event);
        if !made.finished() {
            let pressed =
                arbiter.press_clock(game, color).await.unwrap_or_else(|e| panic!("press after {mv}: {e}"));
            assert!(pressed.ruling("MOVE_COMPLETED").is_some(), "{mv}: {:?}", pressed.event);
        }
    }
}

/// Waits until the service itself ends `game` (a flag, a default time).
async fn finished(arbiter: &Client, game: &str) -> pb::Game {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let g = arbiter.get_game(game).await.unwrap();
        if g.status == pb::GameStatus::Finished as i32 {
            return g;
        }
        assert!(Instant::now() < deadline, "{game} did not end: {g:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The clock after each move on the record, in whole seconds: the
/// `remaining_ms` of the ruling that completed it; a move that ended the game
/// without a press (6.2.1.1) shows the mover's clock as the game ended.
async fn clocks_s(arbiter: &Client, game: &pb::Game) -> Vec<u64> {
    let mut by_ply: BTreeMap<usize, i64> = BTreeMap::new();
    let mut ply = 0usize;
    for event in arbiter.all_events(&game.name).await.unwrap() {
        for r in &event.rulings {
            match r.decision.as_str() {
                "MOVE_MADE" => ply = r.facts["ply"].parse().unwrap(),
                "MOVE_COMPLETED" => {
                    by_ply.insert(ply, r.facts["remaining_ms"].parse().unwrap());
                }
                "POSITION_REINSTATED" => {
                    ply = r.facts["ply"].parse().unwrap();
                    by_ply.retain(|p, _| *p <= ply);
                }
                _ => {}
            }
        }
    }
    let plies = game.moves_uci.len();
    let finished = game.status == pb::GameStatus::Finished as i32;
    let clocks = game.clocks.as_ref().unwrap();
    (1..=plies)
        .map(|p| {
            let ms = by_ply.get(&p).copied().unwrap_or_else(|| {
                assert!(p == plies && finished, "{}: move {p} was never completed", game.name);
                // The mover of the last move: White for odd plies from the
                // standard start.
                if p % 2 == 1 { clocks.white_remaining_ms } else { clocks.black_remaining_ms }
            });
            u64::try_from(ms.div_euclid(1000)).unwrap()
        })
        .collect()
}

/// Plays the games; returns their PGN, one after the other, and what each
/// must say.
async fn play(arbiter: &Client) -> (String, Vec<Expected>) {
    use pb::MoveOutcome as O;
    let mut expected = Vec::new();

    // A flag (time forfeit), FIDE ids, a ruling before the first move, and
    // a move refused by touch-move.
    let ids = ("1000001", "1000002");
    let game =
        arbiter.create_game(request("readers-flag", "5+3", pb::Mode::OverTheBoard, Some(ids))).await.unwrap();
    let name = game.game.unwrap().name;
    let arrived = arbiter.record_arrival(&name, Color::Black).await.unwrap();
    assert_eq!(
        arrived.ruling("PLAYER_ARRIVED").map(|r| r.rule_id.as_str()),
        Some("FIDE-6.7a"),
        "{arrived:?}"
    );
    otb(arbiter, &name, 0, &["e2e4", "e7e5"]).await;
    let touched = arbiter.touch_piece(&name, Color::White, "g1", pb::TouchKind::Intent).await.unwrap();
    assert!(touched.ruling("OBLIGATION").is_some(), "{:?}", touched.event);
    let refused = arbiter.make_move(&name, Color::White, "d4").await.unwrap();
    assert_eq!(refused.move_outcome, O::RefusedTouchMove, "{:?}", refused.event);
    assert!(refused.game.moves_uci.len() == 2, "the refused move is not on the record");
    otb(arbiter, &name, 2, &["g1f3"]).await;
    arbiter.set_clock(&name, Color::Black, 1_500).await.unwrap();
    let game = finished(arbiter, &name).await;
    let end = game.end.as_ref().unwrap();
    assert_eq!((end.result.as_str(), end.rule_id.as_str()), ("1-0", "FIDE-6.9"), "{end:?}");
    expected.push(Expected {
        clocks_s: clocks_s(arbiter, &game).await,
        game,
        result: "1-0",
        termination: "time forfeit",
        fide_ids: Some(ids),
        before_first: vec!["Article 6.7.1 (FIDE-6.7a): Black is at the board"],
        notes: vec![
            (
                2,
                vec![
                    "Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the knight on g1 was touched",
                    "White attempted d4: refused; Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the knight on g1",
                    "allowed: Ne2, Nf3, Nh3",
                ],
            ),
            (3, vec!["Black's clock set to", "Article 6.9 (FIDE-6.9): Game over: 1-0"]),
        ],
    });

    // An illegal move, completed: ruled under 7.5.1, the position
    // reinstated, two minutes to the opponent (7.5.5); then a resignation.
    let game =
        arbiter.create_game(request("readers-illegal", "90+30", pb::Mode::OverTheBoard, None)).await.unwrap();
    let name = game.game.unwrap().name;
    otb(arbiter, &name, 0, &["e2e4", "e7e5"]).await;
    let made = arbiter.make_move(&name, Color::White, "e4e6").await.unwrap();
    assert_eq!(made.move_outcome, O::IllegalNotCompleted, "{:?}", made.event);
    let ruled = arbiter.press_clock(&name, Color::White).await.unwrap();
    assert_eq!(ruled.move_outcome, O::RuledIllegal, "{:?}", ruled.event);
    otb(arbiter, &name, 2, &["g1f3", "b8c6"]).await;
    let resigned = arbiter.resign(&name, Color::Black).await.unwrap();
    assert!(resigned.finished());
    let game = resigned.game;
    expected.push(Expected {
        clocks_s: clocks_s(arbiter, &game).await,
        game,
        result: "1-0",
        termination: "normal",
        fide_ids: None,
        before_first: vec![],
        notes: vec![
            (
                2,
                vec![
                    "Article 7.5.1 (FIDE-7.5.1): Illegal move by White, not completed: Pe4-e6",
                    "Article 7.5.1 (FIDE-7.5.1): Illegal move by White (1st): Pe4-e6; the position before it is reinstated",
                    "Article 7.5.5 (FIDE-7.5.5): Black's clock: 2:00 added",
                ],
            ),
            (4, vec!["Article 5.1.2 (FIDE-5.1.2): Game over: 1-0"]),
        ],
    });
    // The penalty is in Black's clock: 90 minutes, 30 s at the start and
    // after each of two moves, and two minutes (less the little time used;
    // without the penalty it would be under 5490 s).
    let black = expected[1].clocks_s[3];
    assert!(
        (5400 + 90 + 120 - 30..=5400 + 90 + 120).contains(&black),
        "Black's clock after 2... Nc6: {black}"
    );

    // An illegal first move (before the first move on the record: one
    // minute to the opponent in rapid, A.4.2), a move the arbiter takes back
    // after a warning, then a result the arbiter declares (adjudication).
    let game = arbiter
        .create_game(request("readers-declared", "15+10", pb::Mode::OverTheBoard, None))
        .await
        .unwrap();
    let name = game.game.unwrap().name;
    let made = arbiter.make_move(&name, Color::White, "e2e5").await.unwrap();
    assert_eq!(made.move_outcome, O::IllegalNotCompleted);
    assert_eq!(arbiter.press_clock(&name, Color::White).await.unwrap().move_outcome, O::RuledIllegal);
    otb(arbiter, &name, 0, &["e2e4", "d7d5"]).await;
    arbiter.issue_penalty(&name, Color::Black, pb::PenaltyKind::Warning, 0).await.unwrap();
    let reinstated = arbiter.reinstate_position(&name, 1).await.unwrap();
    assert_eq!(reinstated.game.moves_uci, ["e2e4"], "{:?}", reinstated.event);
    otb(arbiter, &name, 1, &["e7e5"]).await;
    let declared = arbiter.declare_result(&name, pb::DeclaredResult::Draw).await.unwrap();
    assert!(declared.finished());
    let game = declared.game;
    expected.push(Expected {
        clocks_s: clocks_s(arbiter, &game).await,
        game,
        result: "1/2-1/2",
        termination: "adjudication",
        fide_ids: None,
        before_first: vec![
            "Article 7.5.1 (FIDE-7.5.1): Illegal move by White, not completed: Pe2-e5",
            "Article 7.5.1 (FIDE-7.5.1): Illegal move by White (1st): Pe2-e5",
            "Article 7.5.5 (FIDE-7.5.5): Black's clock: 1:00 added",
            "Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the pawn on e2",
        ],
        notes: vec![
            // Said after 1... d5, which was taken back: now where the game
            // went on, before the ruling that took it back.
            (
                1,
                vec![
                    "Black is warned",
                    "Article 7.5.1 (FIDE-7.5.1): the position after 1. e4 is reinstated; taken back: 1... d5",
                ],
            ),
            (2, vec!["Article 8.7 (FIDE-8.7): Game over: 1/2-1/2"]),
        ],
    });

    // A player who never came (6.7: default time): a forfeit, which PGN
    // cannot write as a result.
    let mut req = request("readers-default-time", "90+30", pb::Mode::OverTheBoard, None);
    req.regulations.as_mut().unwrap().default_time_ms = Some(1_500);
    let game = arbiter.create_game(req).await.unwrap();
    let name = game.game.unwrap().name;
    arbiter.record_arrival(&name, Color::White).await.unwrap();
    otb(arbiter, &name, 0, &["e2e4"]).await;
    let game = finished(arbiter, &name).await;
    assert_eq!(game.end.as_ref().map(|e| e.result.as_str()), Some("+/-"), "{game:?}");
    expected.push(Expected {
        clocks_s: clocks_s(arbiter, &game).await,
        game,
        result: "*",
        termination: "abandoned",
        fide_ids: None,
        before_first: vec!["Article 6.7.1 (FIDE-6.7a): White is at the board"],
        notes: vec![(1, vec!["(FIDE-6.7a): Game over: +/-"])],
    });

    // Checkmate online, with the players' own tokens: the mating move is
    // completed without a press and still has its clock.
    let created = arbiter.create_game(request("readers-mate", "3+2", pb::Mode::Online, None)).await.unwrap();
    let name = created.game.unwrap().name;
    let white = arbiter.with_token(Some(&created.white_token)).unwrap();
    let black = arbiter.with_token(Some(&created.black_token)).unwrap();
    for (i, mv) in ["f3", "e5", "g4", "Qh4#"].iter().enumerate() {
        let player = if i % 2 == 0 { &white } else { &black };
        let done = player.make_move(&name, None, *mv).await.unwrap();
        assert_eq!(done.move_outcome, O::Accepted, "{mv}");
    }
    let game = arbiter.get_game(&name).await.unwrap();
    expected.push(Expected {
        clocks_s: clocks_s(arbiter, &game).await,
        game,
        result: "0-1",
        termination: "normal",
        fide_ids: None,
        before_first: vec![],
        notes: vec![(4, vec!["Article 5.1.1 (FIDE-5.1.1): Game over: 0-1"])],
    });

    let mut pgn = String::new();
    for e in &expected {
        pgn += &arbiter.export_pgn(&e.game.name).await.unwrap();
    }
    (pgn, expected)
}

// ---------------------------------------------------------------------------
// The other readers
// ---------------------------------------------------------------------------

/// Says that a reader is missing: a failure on CI, a note elsewhere.
fn missing(what: &str, install: &str) {
    assert!(std::env::var_os("CI").is_none(), "{what}; CI needs it: .ci/run installs it ({install})");
    // Straight to stderr: libtest captures `eprintln!` of a passing test.
    let _ = writeln!(std::io::stderr(), "PGN reader check skipped: {what} ({install})");
}

/// Reads the file with python-chess; prints every game as JSON.
const PYTHON_CHESS: &str = r#"
import json, sys
import chess, chess.pgn
games = []
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        moves = []
        for node in game.mainline():
            moves.append({"san": node.san(), "uci": node.move.uci(), "clock": node.clock(), "comment": node.comment})
        games.append({
            "errors": [repr(e) for e in game.errors],
            "headers": list(game.headers.items()),
            "comment": game.comment,
            "moves": moves,
        })
print(json.dumps({"version": chess.__version__, "games": games}))
"#;

fn python() -> PathBuf {
    std::env::var_os("ARBITER_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// The games as python-chess reads them, or `None` without python-chess.
fn read_with_python_chess(file: &Path) -> Option<Vec<ReadGame>> {
    let python = python();
    let probe = Command::new(&python).args(["-c", "import chess.pgn"]).output();
    match probe {
        Err(e) => {
            missing(&format!("{} not runnable ({e})", python.display()), "pip install chess==1.11.2");
            return None;
        }
        Ok(out) if !out.status.success() => {
            missing(&format!("{} lacks python-chess", python.display()), "pip install chess==1.11.2");
            return None;
        }
        Ok(_) => {}
    }
    let out = Command::new(&python).args(["-c", PYTHON_CHESS]).arg(file).output().expect("run python-chess");
    assert!(out.status.success(), "python-chess failed: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.trim().is_empty(), "python-chess complained: {stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("python-chess's JSON");
    let _ = writeln!(std::io::stderr(), "python-chess {}", json["version"]);
    let games = json["games"].as_array().unwrap();
    Some(
        games
            .iter()
            .map(|g| {
                assert_eq!(
                    g["errors"].as_array().unwrap().len(),
                    0,
                    "python-chess: parse errors {}",
                    g["errors"]
                );
                let tags = g["headers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|kv| (kv[0].as_str().unwrap().to_owned(), kv[1].as_str().unwrap().to_owned()))
                    .collect();
                let moves = g["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        let (clk_texts, remark) = split_clocks(m["comment"].as_str().unwrap());
                        ReadMove {
                            san: m["san"].as_str().unwrap().to_owned(),
                            uci: m["uci"].as_str().unwrap().to_owned(),
                            // Seconds as a float: exact for whole seconds.
                            clock_ms: m["clock"].as_f64().map(|s| (s * 1000.0).round() as u64),
                            clk_texts,
                            remark,
                        }
                    })
                    .collect();
                // A comment's line breaks are the writer's: words matter.
                let comment = g["comment"].as_str().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
                ReadGame { tags, comment, moves }
            })
            .collect(),
    )
}

/// pgn-extract, if installed.
fn pgn_extract() -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("ARBITER_PGN_EXTRACT") {
        Some(path) => vec![PathBuf::from(path)],
        // Debian installs it in /usr/games, often not on PATH.
        None => vec![PathBuf::from("pgn-extract"), PathBuf::from("/usr/games/pgn-extract")],
    };
    let found = candidates
        .into_iter()
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()));
    if found.is_none() {
        missing("pgn-extract not found", "apt-get install pgn-extract, or set ARBITER_PGN_EXTRACT");
    }
    found
}

/// Runs pgn-extract on `file` with `args`, writing its games to `out`;
/// asserts that it logged nothing (`-s`: no progress lines, so anything in
/// the log is an error or a warning) and returns the games it wrote.
fn run_pgn_extract(tool: &Path, dir: &Path, file: &Path, args: &[&str], out: &str) -> String {
    let log = dir.join(format!("{out}.log"));
    let output = dir.join(out);
    let run = Command::new(tool)
        .arg("-s")
        .arg("-l")
        .arg(&log)
        .arg("-o")
        .arg(&output)
        .args(args)
        .arg(file)
        .output()
        .expect("run pgn-extract");
    assert!(run.status.success(), "pgn-extract failed: {}", String::from_utf8_lossy(&run.stderr));
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(logged.trim().is_empty(), "pgn-extract {args:?} reported:\n{logged}");
    std::fs::read_to_string(&output).expect("pgn-extract's output")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exported_pgn_reads_the_same_in_python_chess_and_pgn_extract() {
    let server = TestServer::start().await;
    let arbiter = Client::connect(server.url(), Some(ARBITER_TOKEN.into()), None).await.unwrap();
    let (pgn, expected) = play(&arbiter).await;
    server.stop().await;

    assert!(!pgn.contains("Annotator"), "{pgn}");
    check("arbiter-chess", &read_with_arbiter_chess(&pgn), &expected, &pgn);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("games.pgn");
    std::fs::write(&file, &pgn).unwrap();

    if let Some(read) = read_with_python_chess(&file) {
        check("python-chess", &read, &expected, &pgn);
    }

    if let Some(tool) = pgn_extract() {
        // Its own export, comments kept: the same games, read back.
        let again = run_pgn_extract(&tool, dir.path(), &file, &[], "extracted.pgn");
        check("pgn-extract", &read_with_arbiter_chess(&again), &expected, &again);
        // Its moves in UCI, without comments: those the server recorded.
        let uci = run_pgn_extract(&tool, dir.path(), &file, &["-Wuci", "--nocomments"], "uci.pgn");
        let lines: Vec<Vec<&str>> = uci
            .split("\n\n")
            .filter(|block| !block.trim().is_empty() && !block.trim_start().starts_with('['))
            .map(|block| {
                let mut words: Vec<&str> = block.split_whitespace().collect();
                words.pop(); // the result
                words
            })
            .collect();
        let recorded: Vec<Vec<&str>> =
            expected.iter().map(|e| e.game.moves_uci.iter().map(String::as_str).collect()).collect();
        assert_eq!(lines, recorded, "pgn-extract -Wuci:\n{uci}");
    }
}
