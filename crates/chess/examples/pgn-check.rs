//! Replays every mainline move of every game in a PGN file.
//!
//! ```text
//! cargo run --release -q -p arbiter-chess --example pgn-check -- FILE
//! ```
//!
//! Prints one line per game, `game K: ok FEN-OF-FINAL-POSITION` or
//! `game K: error at ply P: REASON`, then
//! `games G, plies P, errors E, seconds S`. What is checked is described in
//! `arbiter_chess::pgn::check`. Exit code 0 when every game is valid, 1 when
//! some game has an error, 2 when the file cannot be read (or on bad usage).

use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use arbiter_chess::pgn::check::validate_games;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            println!("usage: pgn-check FILE");
            return ExitCode::SUCCESS;
        }
        [path] => path,
        _ => {
            eprintln!("usage: pgn-check FILE");
            return ExitCode::from(2);
        }
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("pgn-check: cannot open {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut write_failed = false;
    let started = Instant::now();
    let result = validate_games(file, |report| {
        if !write_failed && writeln!(out, "{report}").is_err() {
            write_failed = true;
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    match result {
        Ok(summary) => {
            let _ = writeln!(
                out,
                "games {}, plies {}, errors {}, seconds {seconds:.6}",
                summary.games, summary.plies, summary.errors
            );
            if out.flush().is_err() || write_failed {
                eprintln!("pgn-check: cannot write the report to standard output");
                return ExitCode::from(2);
            }
            if summary.errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(e) => {
            let _ = out.flush();
            eprintln!("pgn-check: cannot read {path}: {e}");
            ExitCode::from(2)
        }
    }
}
