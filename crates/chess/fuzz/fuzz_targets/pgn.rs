//! Arbitrary bytes as a PGN stream: the game reader (default and tiny
//! limits) and the validator must never panic, the validator's summary must
//! match its reports, and every game whose mainline replays must survive
//! writing and reading back with the same moves, result and tags.

#![no_main]

use arbiter_chess::pgn::check::{start_position, validate_games};
use arbiter_chess::pgn::{
    Game, GameResult, Games, Limits, PgnMove, Reader, SEVEN_TAG_ROSTER, WriteOptions, format_game, read_games,
};
use arbiter_chess::zobrist::zobrist_from_scratch;
use libfuzzer_sys::fuzz_target;

/// Tags the writer fills in or derives itself.
fn is_derived(name: &str) -> bool {
    SEVEN_TAG_ROSTER.contains(&name) || matches!(name, "SetUp" | "FEN" | "Variant")
}

fn free_tags(game: &Game) -> Vec<(String, String)> {
    game.tags.iter().filter(|(n, _)| !is_derived(n)).cloned().collect()
}

/// Replays the game and, if every move is legal, writes it and reads it back.
fn write_and_reread(game: &Game, line_width: usize) {
    let Ok(start) = start_position(game.tag("FEN"), game.tag("Variant")) else { return };
    let mut pos = start;
    let mut moves = Vec::with_capacity(game.moves.len());
    for gm in &game.moves {
        let Ok(m) = pos.parse_san(&gm.san) else { return };
        moves.push(PgnMove { nags: gm.nags.clone(), ..PgnMove::new(m) });
        pos = pos.after(m);
    }
    let result = game.result().unwrap_or(GameResult::Unknown);
    let Ok(text) = format_game(&game.tags, &start, &moves, result, WriteOptions { line_width }) else {
        return;
    };
    let mut again = read_games(text.as_bytes());
    let back = match again.next() {
        Some(Ok(back)) => back,
        other => panic!("written game does not read back ({other:?}):\n{text}"),
    };
    assert!(again.next().is_none(), "one game written, more read back:\n{text}");
    assert_eq!(back.moves.len(), moves.len(), "move count:\n{text}");
    let back_start = start_position(back.tag("FEN"), back.tag("Variant"))
        .unwrap_or_else(|e| panic!("written start position unreadable: {e}\n{text}"));
    assert_eq!(back_start, start, "start position:\n{text}");
    assert_eq!(back_start.castling_mode(), start.castling_mode(), "castling mode:\n{text}");
    let mut replay = back_start;
    for (gm, pm) in back.moves.iter().zip(&moves) {
        let m = replay.parse_san(&gm.san).unwrap_or_else(|e| panic!("{}: {e}\n{text}", gm.san));
        assert_eq!(m, pm.mv, "move {}:\n{text}", gm.san);
        assert_eq!(gm.nags, pm.nags, "NAGs of {}:\n{text}", gm.san);
        replay = replay.after(m);
    }
    assert_eq!(back.result(), Some(result), "result:\n{text}");
    for name in SEVEN_TAG_ROSTER.into_iter().filter(|&n| n != "Result") {
        if let Some(v) = game.tag(name) {
            assert_eq!(back.tag(name), Some(v), "tag {name}:\n{text}");
        }
    }
    assert_eq!(free_tags(&back), free_tags(game), "tags:\n{text}");
}

fuzz_target!(|data: &[u8]| {
    // The validator: one report per game, numbered in order, totals that add up.
    let (mut games, mut plies, mut errors) = (0u64, 0u64, 0u64);
    let summary = validate_games(data, |report| {
        games += 1;
        assert_eq!(report.index, games);
        plies += u64::from(report.plies);
        if !report.is_ok() {
            errors += 1;
        }
        let pos = &report.position;
        assert_eq!(pos.zobrist(), zobrist_from_scratch(pos));
        let _ = report.to_string();
    })
    .expect("reading a byte slice cannot fail");
    assert_eq!((summary.games, summary.plies, summary.errors), (games, plies, errors));
    assert!(games <= data.len() as u64 + 1, "{games} games from {} bytes", data.len());

    // The game reader, whose games must survive writing.
    let mut count = 0;
    for game in read_games(data).take(data.len() + 2) {
        count += 1;
        if let Ok(game) = game {
            write_and_reread(&game, 80);
            if count == 1 {
                write_and_reread(&game, 1);
            }
        }
    }
    assert!(count <= data.len() + 1, "{count} games from {} bytes", data.len());

    // Tiny limits: every limit error path, and still no panic.
    let limits = Limits { max_token: 4, max_tag: 24, max_comment: 8 };
    let tiny = Games::from_reader(Reader::with_limits(data, limits));
    for game in tiny.take(data.len() + 2) {
        let _ = game;
    }
});
