//! The e-board accuracy benchmark: real games from `shared/data/pgn/*.pgn`
//! turned into hand-like sensor streams (see `arbiter_board::simulate`),
//! read back, and scored.
//!
//! ```text
//! cargo run --release -p arbiter-board --example accuracy -- --games 1000 [--seed N] [--settle MS]
//!     [--noise KIND=P,...] [--show] [--game N]
//! ```
//!
//! `--show` prints, for each game not read exactly, its number, the moves
//! played and, observation by observation, what the board reported and what
//! the reader inferred (the script to turn into a regression test).
//! `--noise missed_scan=0.05,knock=0.1` changes the probabilities of the
//! noises (see `arbiter_board::simulate::Noise`).
//! `--game N` reads game N only (its script is the one the full run makes:
//! the scripts of the games before it are still generated, for the random
//! numbers), and shows it.
//!
//! `ARBITER_SHARED` names the folder holding `data/pgn/`; without it, the
//! nearest `shared/` beside the repository or above it. Without the data,
//! it says so and exits 0.

use std::path::PathBuf;
use std::process::ExitCode;

use arbiter_board::simulate::{Noise, Rng, Script, Tally, run, script_game};
use arbiter_board::{
    BoardReader, DeviceId, Inference, ObservationKind, Placement, Sensing, Settings, Settle, SquareState,
};
use arbiter_chess::pgn::read_games;
use arbiter_chess::{Move, Position};

fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().skip(1).map(|dir| dir.join("shared")).find(|c| c.join("data").is_dir())
}

/// Mainline games from the standard starting position, as moves.
fn load_games(limit: usize) -> Result<Vec<Vec<Move>>, String> {
    let dir = shared_dir().map(|d| d.join("data/pgn")).filter(|d| d.is_dir()).ok_or("no shared/data/pgn")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let mut games = Vec::new();
    'files: for file in files {
        let f = std::fs::File::open(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for game in read_games(std::io::BufReader::new(f)) {
            let Ok(game) = game else { continue };
            if game.tag("FEN").is_some() || game.moves.is_empty() {
                continue;
            }
            let mut pos = Position::startpos();
            let mut moves = Vec::with_capacity(game.moves.len());
            let mut ok = true;
            for san in game.sans() {
                match pos.parse_san(san) {
                    Ok(m) => {
                        moves.push(m);
                        pos = pos.after(m);
                    }
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                games.push(moves);
                if games.len() == limit {
                    break 'files;
                }
            }
        }
    }
    Ok(games)
}

/// `--noise missed_scan=0.05,knock=0.1`: probabilities per move replacing
/// those of `base`.
fn parse_noise(list: &str, base: Noise) -> Result<Noise, String> {
    let mut noise = base;
    for item in list.split(',') {
        let (kind, p) = item.split_once('=').ok_or(item)?;
        let p: f64 = p.parse().map_err(|_| item)?;
        if !(0.0..=1.0).contains(&p) {
            return Err(item.to_owned());
        }
        let field = match kind {
            "touch" => &mut noise.touch,
            "knock" => &mut noise.knock,
            "wrong_square" => &mut noise.wrong_square,
            "slide" => &mut noise.slide,
            "missed_scan" => &mut noise.missed_scan,
            "castling_pause" => &mut noise.castling_pause,
            _ => return Err(item.to_owned()),
        };
        *field = p;
    }
    Ok(noise)
}

/// One game's script and what a fresh reader infers from it, observation
/// by observation, for a human to read.
fn print_game(n: usize, script: &Script, tally: &Tally, settings: Settings) {
    println!("\n== game {n} ({:?}): {tally:?}", settings.sensing);
    let mut pos = script.start;
    let mut line = Vec::new();
    for (ply, p) in script.played.iter().enumerate() {
        line.push(format!("{ply}:{}@{}", pos.san(p.mv), p.placed_at.0));
        pos = pos.after(p.mv);
    }
    println!("played: {}", line.join(" "));
    let mut reader = BoardReader::new(DeviceId(1), script.start, settings);
    let show = |reader: &BoardReader, at: u64, out: Vec<Inference>| {
        for inf in out {
            let what = match inf {
                Inference::Move(m) => {
                    let mut p = Position::startpos();
                    for mv in &reader.moves()[..m.ply] {
                        p = p.after(*mv);
                    }
                    format!("MOVE ply {} {} (placed {}) {:?}", m.ply, p.san(m.mv), m.placed_at.0, m)
                }
                other => format!("{other:?}"),
            };
            println!("    {at:>8} => {what}");
        }
    };
    for obs in &script.observations {
        while let Some(d) = reader.deadline().filter(|d| *d <= obs.at) {
            let out = reader.tick(d);
            show(&reader, d.0, out);
        }
        let kind = match obs.kind {
            ObservationKind::SquareChanged { square, now: SquareState::Empty } => format!("{square} empty"),
            ObservationKind::SquareChanged { square, now: SquareState::Piece(p) } => {
                format!("{square} {}", p.char())
            }
            ObservationKind::Placement(Placement::Pieces(b)) => format!("scan {}", b.board_fen()),
            ObservationKind::Placement(Placement::Occupancy(o)) => {
                let squares: Vec<String> = o.into_iter().map(|s| s.to_string()).collect();
                format!("scan {}", squares.join(" "))
            }
            other => format!("{other:?}"),
        };
        println!("{:>4} {:>8} {kind}", obs.device_seq, obs.at.0);
        match reader.observe(obs) {
            Ok(out) => show(&reader, obs.at.0, out),
            Err(e) => println!("    refused: {e}"),
        }
    }
    // As `run` does: a few ticks at most after the last observation.
    for _ in 0..16 {
        let Some(d) = reader.deadline() else { break };
        let out = reader.tick(d);
        show(&reader, d.0, out);
    }
}

fn main() -> ExitCode {
    let mut games = 1000usize;
    let mut seed = 2026u64;
    let mut settle = 300u64;
    let mut show = false;
    let mut only: Option<usize> = None;
    let mut noise = Noise::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--show" {
            show = true;
            continue;
        }
        if a == "--noise" {
            let Some(Ok(n)) = args.next().map(|list| parse_noise(&list, noise)) else {
                eprintln!(
                    "--noise takes KIND=P,... with KIND one of touch, knock, wrong_square, slide, missed_scan, castling_pause and P a probability"
                );
                return ExitCode::from(2);
            };
            noise = n;
            continue;
        }
        let value = args.next().and_then(|v| v.parse::<u64>().ok());
        match (a.as_str(), value) {
            ("--games", Some(v)) => games = v as usize,
            ("--seed", Some(v)) => seed = v,
            ("--settle", Some(v)) => settle = v,
            ("--game", Some(v)) => only = Some(v as usize),
            _ => {
                eprintln!(
                    "usage: accuracy [--games N] [--seed N] [--settle MS] [--noise KIND=P,...] [--show] [--game N]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if let Some(n) = only {
        games = games.max(n + 1);
        show = true;
    }
    let Ok(settle_time) = Settle::from_ms(settle) else {
        eprintln!("settle time {settle} ms is longer than {} ms", Settle::MAX_MS);
        return ExitCode::from(2);
    };
    let list = match load_games(games) {
        Ok(list) => list,
        Err(why) => {
            println!("skipped: {why}; set ARBITER_SHARED to the folder that holds data/pgn");
            return ExitCode::SUCCESS;
        }
    };
    if let Some(n) = only.filter(|n| *n >= list.len()) {
        eprintln!("no game {n}: the collection has {} games (numbered from 0)", list.len());
        return ExitCode::from(2);
    }
    println!("{} games, settle {settle} ms, seed {seed}, noise {noise:?}", list.len());
    for sensing in [Sensing::PieceIds, Sensing::Occupancy] {
        let mut rng = Rng::new(seed);
        let mut total = Tally::default();
        for (n, moves) in list.iter().enumerate() {
            let script = script_game(Position::startpos(), moves, sensing, settle, noise, &mut rng);
            if only.is_some_and(|g| g != n) {
                continue;
            }
            let settings = Settings::new(settle_time, sensing);
            let mut reader = BoardReader::new(DeviceId(1), Position::startpos(), settings);
            let tally = run(&mut reader, &script);
            if show && (tally.games_exact == 0 || tally.false_moves > 0 || only.is_some()) {
                print_game(n, &script, &tally, settings);
            }
            total.add(&tally);
        }
        let p50 = total.latency_quantile(0.5);
        let p99 = total.latency_quantile(0.99);
        let max = total.latency_quantile(1.0);
        println!("\n{sensing:?} board:");
        println!("  games read exactly      {} / {}", total.games_exact, total.games);
        println!("  moves inferred          {} / {} played", total.moves_correct, total.moves_played);
        println!("  false moves             {}", total.false_moves);
        println!(
            "  moves revised           {} (rook moves into castling, king followed late; moves whose lift was lost)",
            total.revised
        );
        println!("  moves caught up         {} (after missed scans)", total.caught_up);
        println!("  take-backs, illegal/unknown reports  {}, {}", total.take_backs, total.illegal_or_unknown);
        println!(
            "  touches recorded        {} / {} made ({} other evidence)",
            total.touches_found, total.touches_made, total.other_evidence
        );
        println!("  observations refused    {} of {}", total.errors, total.observations);
        println!(
            "  latency (last placement to ruling)  p50 {p50} ms, p99 {p99} ms, max {max} ms (settle {settle} ms)"
        );
        println!(
            "  inference per placement {:.2} us average over {} placements",
            total.placement_ns as f64 / 1000.0 / total.placements.max(1) as f64,
            total.placements
        );
        println!(
            "  ruling at settle time    {:.2} us average over {} ticks (catch-up searches included)",
            total.tick_ns as f64 / 1000.0 / total.ticks.max(1) as f64,
            total.ticks
        );
    }
    ExitCode::SUCCESS
}
