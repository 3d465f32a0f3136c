//! The simulator's hand-like streams read back exactly (issue 15, point 4),
//! on a few games embedded here, and on the shared PGN collections when
//! they are present.

use std::io::Write;
use std::path::PathBuf;

use arbiter_board::simulate::{Noise, Rng, Tally, run, script_game};
use arbiter_board::{BoardReader, DeviceId, Sensing, Settings, Settle};
use arbiter_chess::pgn::read_games;
use arbiter_chess::{Move, Position};

/// Castling both ways, en passant, promotions with and without capture,
/// an underpromotion.
const GAMES: [&str; 3] = [
    "e4 Nf6 e5 d5 exd6 e6 dxc7 Qxc7 Nf3 Be7 Bc4 O-O O-O Nc6 d3 b6 Nc3 Bb7 Be3 Rac8 Qd2 Rfd8 Rad1 Na5",
    "e4 d5 exd5 c6 dxc6 Nf6 cxb7 Nbd7 bxa8=Q e5 Qxa7 Bc5 d4 exd4 Nf3 O-O Be2 Re8 O-O Ne4",
    "d4 e5 dxe5 f6 exf6 Nc6 fxg7 Qe7 gxh8=N d6 Nc3 Bd7 Bf4 O-O-O e3 Qg7 Nf7 Qxf7",
];

fn moves_of(sans: &str) -> Vec<Move> {
    let mut pos = Position::startpos();
    sans.split_whitespace()
        .map(|s| {
            let m = pos.parse_san(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            pos = pos.after(m);
            m
        })
        .collect()
}

fn heavy_noise() -> Noise {
    Noise { touch: 0.3, knock: 0.2, wrong_square: 0.2, slide: 0.3, missed_scan: 0.0, castling_pause: 0.3 }
}

fn read_back(moves: &[Move], sensing: Sensing, noise: Noise, seed: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let script = script_game(Position::startpos(), moves, sensing, 300, noise, &mut rng);
    let mut reader =
        BoardReader::new(DeviceId(1), Position::startpos(), Settings::new(Settle::DEFAULT, sensing));
    let t = run(&mut reader, &script);
    assert_eq!(t.errors, 0, "a simulated stream is valid");
    t
}

#[test]
fn embedded_games_are_read_exactly_under_heavy_noise_on_both_kinds_of_board() {
    for sensing in [Sensing::PieceIds, Sensing::Occupancy] {
        for (g, sans) in GAMES.iter().enumerate() {
            let moves = moves_of(sans);
            for seed in 0..40 {
                let mut t = read_back(&moves, sensing, heavy_noise(), seed);
                let why = format!("{sensing:?} game {g} seed {seed}: {t:?}");
                assert_eq!(t.moves_correct, t.moves_played, "{why}");
                assert_eq!(t.games_exact, 1, "{why}");
                assert_eq!(t.false_moves, 0, "{why}");
                assert_eq!(t.touches_found, t.touches_made, "{why}");
                assert!(t.latency_quantile(1.0) <= 300, "{why}");
            }
        }
    }
}

#[test]
fn missed_scans_are_recovered_from_the_next_full_scan() {
    let noise = Noise { missed_scan: 0.3, ..Noise::default() };
    for sensing in [Sensing::PieceIds, Sensing::Occupancy] {
        let mut recovered = 0;
        for seed in 0..20 {
            let moves = moves_of(GAMES[0]);
            let t = read_back(&moves, sensing, noise, seed);
            assert_eq!(t.false_moves, 0, "{sensing:?} seed {seed}: {t:?}");
            if t.games_exact == 1 {
                recovered += 1;
            }
        }
        // Piece codes always recover; occupancy boards may meet a scan that
        // several captures explain, which is reported, never guessed.
        if sensing == Sensing::PieceIds {
            assert_eq!(recovered, 20);
        } else {
            assert!(recovered >= 15, "{recovered}");
        }
    }
}

fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().skip(1).map(|dir| dir.join("shared")).find(|c| c.join("data").is_dir())
}

#[test]
fn real_games_from_the_shared_collections_are_read_exactly() {
    let Some(path) = shared_dir().map(|d| d.join("data/pgn/Alekhine.pgn")).filter(|p| p.is_file()) else {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: shared/data/pgn/Alekhine.pgn not found; set ARBITER_SHARED to the folder that holds data/"
        );
        return;
    };
    let file = std::fs::File::open(path).unwrap();
    let mut rng = Rng::new(15);
    let mut total = Tally::default();
    for game in read_games(std::io::BufReader::new(file)).take(200) {
        let game = game.unwrap();
        if game.tag("FEN").is_some() {
            continue;
        }
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        for san in game.sans() {
            let Ok(m) = pos.parse_san(san) else { break };
            moves.push(m);
            pos = pos.after(m);
        }
        let script =
            script_game(Position::startpos(), &moves, Sensing::PieceIds, 300, Noise::default(), &mut rng);
        let mut reader = BoardReader::new(DeviceId(1), Position::startpos(), Settings::default());
        total.add(&run(&mut reader, &script));
    }
    assert!(total.games > 100);
    assert_eq!(total.moves_correct, total.moves_played, "{total:?}");
    assert_eq!(total.false_moves, 0);
    assert_eq!(total.touches_found, total.touches_made);
    assert!(total.latency_quantile(0.99) <= 350);
}
