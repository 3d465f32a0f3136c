//! Portable Game Notation: a streaming reader and a writer.
//!
//! - [`Reader`] is the low-level streaming tokenizer: it reads games from any
//!   [`std::io::Read`] (a file, a [`std::io::BufRead`], a byte slice) in
//!   constant memory and reports each one's tokens to a [`Visitor`]. It
//!   reads real-world PGN: a UTF-8 byte-order mark, CRLF line ends, tag
//!   escapes (`\"`, `\\`), `{...}` and `;` comments, `%` escape lines, NAGs
//!   (`$12`) and suffix annotations (`!?`), move numbers written `1.`,
//!   `1...` or glued to the move (`1.e4`), nested variations, `[%clk]` and
//!   `[%emt]` commands, missing results (a game then ends at the next
//!   header or at the end of the input) and games without moves. Text that is
//!   not UTF-8 is read as ISO 8859-1. It never panics, and [`Limits`] cap
//!   every token, so a hostile input gives a [`PgnError`], not unbounded
//!   memory.
//! - [`read_games`] is the convenient API: an iterator of [`Game`]s with their
//!   headers and mainline SAN moves, clocks and comments.
//! - [`write_game`] writes a game in export format.
//! - [`check::validate_games`] replays the mainline of every game and
//!   reports the final position or the first error.
//!
//! ```
//! use arbiter_chess::pgn::check::validate_games;
//!
//! let pgn = "[Event \"?\"]\n[Result \"1-0\"]\n\n1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 4.Qxf7# 1-0\n";
//! let mut lines = Vec::new();
//! let summary = validate_games(pgn.as_bytes(), |r| lines.push(r.to_string())).unwrap();
//! assert_eq!(lines, ["game 1: ok r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"]);
//! assert_eq!((summary.games, summary.plies, summary.errors), (1, 7, 0));
//! ```

pub mod check;
mod game;
mod reader;
mod writer;

pub use game::{
    Game, GameBuilder, GameError, GameMove, Games, MAX_COMMENTS, MAX_GAME_BYTES, MAX_PLIES, MAX_TAGS,
    read_games,
};
pub use reader::{
    Commands, Comment, GameResult, Limits, PgnError, Reader, Skip, TokenKind, Visitor, format_clock,
    parse_clock,
};
pub use writer::{
    PgnMove, SEVEN_TAG_ROSTER, WriteError, WriteOptions, format_game, format_game_with_comment, write_game,
    write_game_with,
};
