//! Cost of applying events to the game state machine.
//!
//! ```text
//! cargo run --profile bench -q -p arbiter-laws --example event-bench -- [PGN-FILE] [--games N]
//! ```
//!
//! Replays the mainline of real games (default: the lichess sample in
//! `shared/data/pgn/`) as online `SubmitMove` events and as over-the-board
//! `MakeMove` + `PressClock` pairs, timing every `apply` call, and prints the
//! median and tail of each kind. The dead-position test runs on every move
//! as part of the automatic-end checks (`dead::is_dead_quick`); the "dead check" line shows
//! what that part costs on the same positions.

use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

use arbiter_chess::{Color, Position, dead};
use arbiter_laws::event::{Event, MoveInput};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::time_control::TimeControl;

fn percentile(v: &mut [u64], p: f64) -> f64 {
    v.sort_unstable();
    if v.is_empty() {
        return 0.0;
    }
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    v[i] as f64
}

fn report(name: &str, v: &mut [u64]) {
    let n = v.len();
    let median = percentile(v, 0.5);
    let p90 = percentile(v, 0.9);
    let p99 = percentile(v, 0.99);
    println!(
        "{name:<28} n={n:<8} median {:>7.2} us   p90 {:>7.2} us   p99 {:>7.2} us",
        median / 1000.0,
        p90 / 1000.0,
        p99 / 1000.0
    );
}

fn input(pos: &Position, san: &str) -> Option<MoveInput> {
    let m = pos.parse_san(san).ok()?;
    MoveInput::from_uci(&pos.uci(m).to_string()).ok()
}

fn main() {
    let mut path = None;
    let mut max_games = 2_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => max_games = args.next().and_then(|n| n.parse().ok()).unwrap_or(max_games),
            other => path = Some(other.to_owned()),
        }
    }
    let path = path.unwrap_or_else(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn");
        root.join("lichess_db_standard_rated_2013-01_truncated_5000.pgn").to_string_lossy().into_owned()
    });
    let file = File::open(&path).unwrap_or_else(|e| {
        eprintln!("event-bench: cannot open {path}: {e}");
        std::process::exit(2);
    });
    let tc = TimeControl::parse_human("90+30").unwrap();
    let mut online_cost = Vec::new();
    let mut make_cost = Vec::new();
    let mut press_cost = Vec::new();
    let mut dead_cost = Vec::new();
    let mut offer_cost = Vec::new();
    let mut games = 0;
    for game in arbiter_chess::pgn::read_games(BufReader::new(file)) {
        let Ok(game) = game else { continue };
        if games >= max_games {
            break;
        }
        games += 1;
        let sans: Vec<String> = game.sans().map(str::to_owned).collect();

        let mut regs = Regulations::new(tc.clone());
        regs.mode = Mode::Online;
        let mut g = Game::new(regs).unwrap();
        let mut t = 0i64;
        g.apply(&Event::Start, t).unwrap();
        for san in &sans {
            let pos = *g.position();
            let Some(mv) = input(&pos, san) else { break };
            let color = pos.turn();
            t += 1_000;
            let e = Event::SubmitMove { color, mv, premove: false, lag_ms: 0 };
            let start = Instant::now();
            let r = g.apply(&e, t);
            online_cost.push(start.elapsed().as_nanos() as u64);
            if r.is_err() || g.is_over() {
                break;
            }
            let start = Instant::now();
            let d = dead::is_dead_quick(g.position());
            dead_cost.push(start.elapsed().as_nanos() as u64);
            std::hint::black_box(d);
            if g.record().ply_count() == 20 {
                let offer = Event::OfferDraw { color: color.other() };
                let start = Instant::now();
                let _ = g.apply(&offer, t);
                offer_cost.push(start.elapsed().as_nanos() as u64);
            }
        }

        let mut regs = Regulations::new(tc.clone());
        regs.mode = Mode::OverTheBoard;
        let mut g = Game::new(regs).unwrap();
        let mut t = 0i64;
        g.apply(&Event::Start, t).unwrap();
        for san in &sans {
            let pos = *g.position();
            let Some(mv) = input(&pos, san) else { break };
            let color: Color = pos.turn();
            t += 1_000;
            let start = Instant::now();
            let r = g.apply(&Event::MakeMove { color, mv }, t);
            make_cost.push(start.elapsed().as_nanos() as u64);
            if r.is_err() || g.is_over() {
                break;
            }
            t += 100;
            let start = Instant::now();
            let _ = g.apply(&Event::PressClock { color, other_hand: false }, t);
            press_cost.push(start.elapsed().as_nanos() as u64);
        }
    }
    println!("{games} games from {path}");
    report("online SubmitMove", &mut online_cost);
    report("  of which dead check", &mut dead_cost);
    report("otb MakeMove", &mut make_cost);
    report("otb PressClock", &mut press_cost);
    report("OfferDraw", &mut offer_cost);
}
