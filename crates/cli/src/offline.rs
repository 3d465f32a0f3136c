//! The tools that need no server: `pgn check` and `fen show`, on the rules
//! core.

use std::io::Read;
use std::time::Instant;

use arbiter_chess::fen::{FenOptions, Strictness};
use arbiter_chess::pgn::check::validate_games;
use arbiter_chess::{Color, Position};
use arbiter_client::{Error, exit};
use serde_json::json;

use crate::args::{FenShowArgs, GlobalArgs, PgnCheckArgs};
use crate::output;
use crate::render::{self, BoardStyle};
use crate::session::out;

/// `pgn check`: every game of every file replayed and its result checked.
///
/// # Errors
/// A failed write (an unreadable file is reported and gives exit 2).
pub fn pgn_check(global: &GlobalArgs, a: &PgnCheckArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let mut files = Vec::new();
    let (mut games, mut plies, mut errors) = (0u64, 0u64, 0u64);
    let mut unreadable = false;
    for path in &a.files {
        let label = path.display().to_string();
        let input: Box<dyn Read> = if label == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            match std::fs::File::open(path) {
                Ok(f) => Box::new(std::io::BufReader::with_capacity(1 << 16, f)),
                Err(e) => {
                    unreadable = true;
                    eprintln!("arbiter: cannot open {label}: {e}");
                    files.push(json!({ "file": label, "error": e.to_string() }));
                    continue;
                }
            }
        };
        let mut problems = Vec::new();
        let mut lines = String::new();
        let summary = validate_games(input, |report| {
            if let Some((ply, error)) = &report.error {
                problems.push(json!({ "game": report.index, "ply": ply, "error": error.to_string() }));
                lines.push_str(&format!("{label}: {report}\n"));
            } else if a.verbose {
                lines.push_str(&format!("{label}: {report}\n"));
            }
            if !global.structured() && lines.len() > 1 << 16 {
                let _ = out(&lines);
                lines.clear();
            }
        });
        if !global.structured() {
            out(&lines)?;
        }
        match summary {
            Ok(s) => {
                games += s.games;
                plies += s.plies;
                errors += s.errors;
                if !global.structured() {
                    out(&format!("{label}: games {}, plies {}, invalid {}\n", s.games, s.plies, s.errors))?;
                }
                files.push(json!({
                    "file": label, "games": s.games, "plies": s.plies, "invalid": s.errors, "problems": problems,
                }));
            }
            Err(e) => {
                unreadable = true;
                eprintln!("arbiter: cannot read {label}: {e}");
                files.push(json!({ "file": label, "error": e.to_string(), "problems": problems }));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if global.structured() {
        output::document(
            global,
            &json!({ "files": files, "games": games, "plies": plies, "invalid": errors, "seconds": seconds }),
        )?;
    } else if a.files.len() > 1 {
        out(&format!("total: games {games}, plies {plies}, invalid {errors} ({seconds:.2}s)\n"))?;
    }
    Ok(if unreadable {
        exit::INVALID
    } else if errors > 0 {
        exit::INVALID_DATA
    } else {
        exit::OK
    })
}

/// `fen show`: a diagram, the side to move and its state, the legal moves.
///
/// # Errors
/// A FEN that does not parse ([`Error::Invalid`], exit 2), or a failed write.
pub fn fen_show(global: &GlobalArgs, a: &FenShowArgs) -> anyhow::Result<u8> {
    let fen = a.fen.join(" ");
    let options = FenOptions {
        chess960: a.chess960,
        strictness: if a.lenient { Strictness::Lenient } else { Strictness::Strict },
    };
    let pos =
        Position::from_fen_with(fen.trim(), options).map_err(|e| Error::invalid("fen", e.to_string()))?;
    let moves: Vec<(String, String)> =
        pos.legal_moves().iter().map(|&m| (pos.san(m), pos.uci(m).as_str().to_string())).collect();
    let (check, mate, stalemate) = (pos.is_check(), pos.is_checkmate(), pos.is_stalemate());
    if global.structured() {
        output::document(
            global,
            &json!({
                "fen": pos.fen(),
                "turn": pos.turn().name(),
                "fullmoveNumber": pos.fullmove_number(),
                "halfmoveClock": pos.halfmove_clock(),
                "check": check,
                "checkmate": mate,
                "stalemate": stalemate,
                "legalMoves": moves.iter().map(|(san, uci)| json!({ "san": san, "uci": uci })).collect::<Vec<_>>(),
            }),
        )?;
        return Ok(exit::OK);
    }
    let style = if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode };
    let mut text = render::board(&pos.fen(), style, a.flip);
    text.push('\n');
    let side = if pos.turn() == Color::White { "White" } else { "Black" };
    let state = if mate {
        format!("{side} is checkmated")
    } else if stalemate {
        format!("{side} is stalemated")
    } else if check {
        format!("{side} to move, in check")
    } else {
        format!("{side} to move")
    };
    text.push_str(&format!(
        "{state} (move {}, halfmove clock {})\n",
        pos.fullmove_number(),
        pos.halfmove_clock()
    ));
    text.push_str(&format!("FEN: {}\n", pos.fen()));
    if !moves.is_empty() {
        let sans: Vec<&str> = moves.iter().map(|(san, _)| san.as_str()).collect();
        text.push_str(&format!("Legal moves ({}): {}\n", moves.len(), sans.join(" ")));
    }
    out(&text)?;
    Ok(exit::OK)
}
