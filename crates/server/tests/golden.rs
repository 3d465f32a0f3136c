//! The golden logs replayed: every game of each corpus recorded with an
//! earlier release (`tests/golden/logs/*.json` of format 1,
//! `tests/golden-2/logs/*.json` of format 2, `tests/golden-3` of format 3,
//! `tests/golden-4` of format 4,
//! made by
//! `cargo run -p arbiter-e2e --example golden`) is decoded from its stored
//! rows and replayed through the Laws, on every build, for ever. Each event
//! must give exactly the rulings that release stored for it, leave the
//! position and the clocks it stored, and the game must end as that
//! release's API showed it (`expected.json` beside the logs).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arbiter_chess::Color;
use arbiter_laws::game::Game;
use arbiter_server::event_log::{self, Clocks};
use serde_json::Value;

/// The corpora: the directory and the stored format its rows were written in.
const CORPORA: [(&str, i64); 4] =
    [("tests/golden", 1), ("tests/golden-2", 2), ("tests/golden-3", 3), ("tests/golden-4", 4)];

fn corpus_dir(dir: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir)
}

fn read_json(path: PathBuf) -> Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The GetGame answer the recording release gave for each game.
fn expected_games(golden: &Path) -> HashMap<String, Value> {
    let expected = read_json(golden.join("expected.json"));
    expected["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["call"].as_str().unwrap().starts_with("GetGame "))
        .map(|a| {
            let game = a["answer"]["game"].clone();
            (game["name"].as_str().unwrap().trim_start_matches("games/").to_string(), game)
        })
        .collect()
}

#[test]
fn every_golden_log_of_the_first_format_replays_to_the_identical_game() {
    replay_corpus(CORPORA[0]);
}

#[test]
fn every_golden_log_of_the_second_format_replays_to_the_identical_game() {
    replay_corpus(CORPORA[1]);
}

#[test]
fn every_golden_log_of_the_third_format_replays_to_the_identical_game() {
    replay_corpus(CORPORA[2]);
}

#[test]
fn every_golden_log_of_the_fourth_format_replays_to_the_identical_game() {
    replay_corpus(CORPORA[3]);
}

/// The fourth corpus holds what format 4 added: the events of e-boards, the
/// evidence ruling and the regulations that weigh them.
#[test]
fn the_fourth_corpus_holds_every_addition_of_format_4() {
    let logs = corpus_dir(CORPORA[3].0).join("logs");
    let mut text = String::new();
    for game in ["board-evidence", "board-bound"] {
        text += &std::fs::read_to_string(logs.join(format!("{game}.json"))).unwrap();
    }
    for addition in ["TouchSensed", "BoardClockReading", "sensed_touches", "clock_authority", "would_allow"] {
        assert!(text.contains(addition), "no {addition} in the corpus of format 4");
    }
}

/// The third corpus holds what format 3 added: a game withdrawn before it
/// started.
#[test]
fn the_third_corpus_holds_every_addition_of_format_3() {
    let log = std::fs::read_to_string(corpus_dir(CORPORA[2].0).join("logs/cancelled.json")).unwrap();
    assert!(log.contains("Withdraw"), "no Withdraw in the corpus of format 3");
}

/// The second corpus holds what format 2 added to format 1, so its replay
/// covers them: the three new events and a specification of rulings
/// revision 2.
#[test]
fn the_second_corpus_holds_every_addition_of_format_2() {
    let logs = corpus_dir(CORPORA[1].0).join("logs");
    let mut text = String::new();
    for entry in std::fs::read_dir(logs).unwrap() {
        text += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
    }
    for addition in ["SetMoveCounter", "InstallTimeControl", "SimultaneousTouch", "rulings_revision"] {
        assert!(text.contains(addition), "no {addition} in the corpus of format 2");
    }
}

/// The format a row was written in: the column where the corpus has it,
/// else format 1 (the first corpus predates the columns).
fn row_format(row: &Value, key: &str, written: i64) -> i64 {
    let format = row.get(key).and_then(Value::as_i64).unwrap_or(1);
    assert!(format <= written, "a row of format {format} in the corpus of format {written}");
    format
}

fn replay_corpus((dir, written): (&str, i64)) {
    let golden = corpus_dir(dir);
    let expected = expected_games(&golden);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(golden.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 18, "the corpus has {} logs", logs.len());
    let mut events_replayed = 0;
    for path in &logs {
        let log = read_json(path.clone());
        let id = log["game"]["id"].as_str().unwrap().to_string();
        let spec_format = row_format(&log["game"], "spec_format", written);
        let spec = event_log::decode_spec(spec_format, log["game"]["spec_json"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("{id}: the stored specification: {e}"));
        let mut game = Game::new(spec.regulations.clone()).unwrap();
        for row in log["events"].as_array().unwrap() {
            let seq = row["seq"].as_i64().unwrap();
            let at = row["at_ms"].as_i64().unwrap();
            let format = row_format(row, "format", written);
            let event = event_log::decode_event(format, row["event_json"].as_str().unwrap())
                .unwrap_or_else(|e| panic!("{id} #{seq}: the stored event: {e}"));
            let stored = event_log::decode_aftermath(format, row["rulings_json"].as_str().unwrap())
                .unwrap_or_else(|e| panic!("{id} #{seq}: the stored rulings: {e}"));
            let rulings =
                game.apply(&event, at).unwrap_or_else(|r| panic!("{id} #{seq}: no longer applies: {r}"));
            assert_eq!(rulings, stored.rulings, "{id} #{seq}: the rulings differ from the recorded ones");
            // The position and the clocks stored with the event.
            assert_eq!(game.position().fen(), stored.fen, "{id} #{seq}: position");
            let clock = game.clock();
            let replayed = Clocks {
                white_ms: game.remaining_ms(Color::White, at),
                black_ms: game.remaining_ms(Color::Black, at),
                running: clock.running(),
                paused: clock.is_paused(),
                white_moves: game.moves_completed(Color::White),
                black_moves: game.moves_completed(Color::Black),
            };
            assert_eq!(replayed, stored.clocks, "{id} #{seq}: clocks");
            // Format 2 only adds to format 1: writing a row of either
            // again gives the very bytes it stored.
            {
                assert_eq!(
                    event_log::encode_event(&event),
                    row["event_json"].as_str().unwrap(),
                    "{id} #{seq}"
                );
                assert_eq!(
                    event_log::encode_aftermath(&stored),
                    row["rulings_json"].as_str().unwrap(),
                    "{id} #{seq}"
                );
            }
            // Written again in the current format, the row reads back the same.
            let again = event_log::decode_event(event_log::FORMAT, &event_log::encode_event(&event)).unwrap();
            assert_eq!(again, event, "{id} #{seq}: the event does not survive the current format");
            let again = event_log::decode_aftermath(event_log::FORMAT, &event_log::encode_aftermath(&stored));
            assert_eq!(
                again.unwrap(),
                stored,
                "{id} #{seq}: the aftermath does not survive the current format"
            );
            events_replayed += 1;
        }
        {
            assert_eq!(event_log::encode_spec(&spec), log["game"]["spec_json"].as_str().unwrap(), "{id}");
        }
        let again = event_log::decode_spec(event_log::FORMAT, &event_log::encode_spec(&spec)).unwrap();
        assert_eq!(again, spec, "{id}: the specification does not survive the current format");
        // The game as the recording release's API showed it.
        let shown = expected.get(&id).unwrap_or_else(|| panic!("{id}: no expected game"));
        assert_eq!(game.position().fen(), shown["fen"].as_str().unwrap(), "{id}: final position");
        let record = game.record();
        let uci: Vec<Value> = record
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &m)| Value::String(record.positions()[i].uci(m).to_string()))
            .collect();
        let shown_uci = shown.get("movesUci").cloned().unwrap_or(Value::Array(vec![]));
        assert_eq!(Value::Array(uci), shown_uci, "{id}: the moves");
        let status = if let Some(withdrawal) = game.withdrawal() {
            match withdrawal {
                arbiter_laws::event::Withdrawal::Cancelled => "GAME_STATUS_CANCELLED",
                arbiter_laws::event::Withdrawal::Expired => "GAME_STATUS_EXPIRED",
            }
        } else if game.is_over() {
            "GAME_STATUS_FINISHED"
        } else if game.is_started() {
            "GAME_STATUS_IN_PROGRESS"
        } else {
            "GAME_STATUS_PENDING"
        };
        assert_eq!(status, shown["status"].as_str().unwrap(), "{id}: status");
        match game.end() {
            Some(end) => {
                assert_eq!(
                    end.rule.as_str(),
                    shown["end"]["ruleId"].as_str().unwrap(),
                    "{id}: the rule of the result"
                );
                assert_eq!(end.reason, shown["end"]["reason"].as_str().unwrap(), "{id}: why it ended");
            }
            None => assert!(shown.get("end").is_none(), "{id}: the game should be over"),
        }
        for (c, key) in [(Color::White, "whiteIllegalMoves"), (Color::Black, "blackIllegalMoves")] {
            let shown_count = shown.get(key).and_then(Value::as_u64).unwrap_or(0);
            assert_eq!(u64::from(game.illegal_move_count(c)), shown_count, "{id}: {key}");
        }
    }
    assert!(events_replayed >= 150, "only {events_replayed} events replayed");
}
