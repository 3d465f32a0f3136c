//! Writing games in PGN export format.

use std::io::Write;
use std::time::Duration;

use super::reader::{GameResult, format_clock};
use crate::position::Position;
use crate::types::{CastlingMode, Color, Move};

/// The Seven Tag Roster, in the order the PGN standard requires.
pub const SEVEN_TAG_ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// A move to write, with what goes in the comment after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    pub mv: Move,
    /// Written as `[%clk H:MM:SS]`.
    pub clock: Option<Duration>,
    /// Written as `[%emt H:MM:SS]`.
    pub elapsed: Option<Duration>,
    /// Free text after the commands (a ruling, say). Must not contain `}`.
    pub comment: Option<String>,
    /// Numeric annotation glyphs, written as `$n`.
    pub nags: Vec<u8>,
}

impl PgnMove {
    /// A move without annotations.
    pub fn new(mv: Move) -> PgnMove {
        PgnMove { mv, clock: None, elapsed: None, comment: None, nags: Vec::new() }
    }

    /// The same move with a clock.
    #[must_use]
    pub fn with_clock(mut self, clock: Duration) -> PgnMove {
        self.clock = Some(clock);
        self
    }

    /// The same move with a comment.
    #[must_use]
    pub fn with_comment(mut self, comment: impl Into<String>) -> PgnMove {
        self.comment = Some(comment.into());
        self
    }
}

impl From<Move> for PgnMove {
    fn from(mv: Move) -> PgnMove {
        PgnMove::new(mv)
    }
}

/// Why a game could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("write error: {0}")]
    Io(#[from] std::io::Error),
    #[error("ply {ply}: {detail}")]
    IllegalMove { ply: usize, detail: String },
    #[error(
        "{0:?} is not a valid tag name (letters, digits and _+#=:- only, starting with a letter or digit)"
    )]
    BadTagName(String),
    #[error("the value of tag {0} contains a line break or control character")]
    BadTagValue(String),
    /// A comment with `}`: the ply it follows (0: the comment before the
    /// first move).
    #[error("the comment after ply {0} (0: before the first move) contains a closing brace")]
    BadComment(usize),
}

/// Formatting options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Longest movetext line, in characters (80 in the PGN export format).
    /// A single word longer than this gets a line of its own.
    pub line_width: usize,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions { line_width: 80 }
    }
}

fn valid_tag_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || b"_+#=:-".contains(c))
}

fn push_tag(out: &mut String, name: &str, value: &str) -> Result<(), WriteError> {
    if !valid_tag_name(name) {
        return Err(WriteError::BadTagName(name.to_owned()));
    }
    if value.chars().any(char::is_control) {
        return Err(WriteError::BadTagValue(name.to_owned()));
    }
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("\"]\n");
    Ok(())
}

/// Fills lines up to the width with space-separated words.
struct Lines {
    out: String,
    width: usize,
    col: usize,
}

impl Lines {
    fn word(&mut self, w: &str) {
        let len = w.chars().count();
        if self.col > 0 && self.col + 1 + len > self.width {
            self.out.push('\n');
            self.col = 0;
        }
        if self.col > 0 {
            self.out.push(' ');
            self.col += 1;
        }
        self.out.push_str(w);
        self.col += len;
    }
}

/// Writes `words` as one `{...}` comment (nothing for no words).
fn write_comment(lines: &mut Lines, mut words: Vec<String>) {
    let n = words.len();
    if n == 0 {
        return;
    }
    words[0].insert(0, '{');
    words[n - 1].push('}');
    for w in &words {
        lines.word(w);
    }
}

/// Writes one game with the default [`WriteOptions`]: the Seven Tag Roster
/// first, in order (`?` or `????.??.??` for those not given; `Result` always
/// from `result`), then `Variant`/`SetUp`/`FEN` when `start` is not the
/// standard start position (any such tags given are replaced), then the
/// other tags in the order given. Then the movetext: move numbers, SAN from
/// [`Position::san`], `$n` NAGs, one comment per move holding the clock,
/// elapsed time and remark, the result, lines of at most 80 characters, and
/// a blank line.
///
/// ```
/// use arbiter_chess::Position;
/// use arbiter_chess::pgn::{GameResult, PgnMove, write_game};
///
/// let pos = Position::startpos();
/// let e4 = pos.parse_san("e4").unwrap();
/// let mut out = Vec::new();
/// write_game(&mut out, &[("White", "A")], &pos, &[PgnMove::new(e4)], GameResult::Unknown).unwrap();
/// assert!(String::from_utf8(out).unwrap().ends_with("\n\n1. e4 *\n\n"));
/// ```
///
/// # Errors
/// [`WriteError`]: an illegal move, a tag that cannot be written, a comment
/// with `}`, or an I/O error. Nothing is written unless the whole game is
/// valid.
pub fn write_game<W: Write + ?Sized, N: AsRef<str>, V: AsRef<str>>(
    out: &mut W,
    tags: &[(N, V)],
    start: &Position,
    moves: &[PgnMove],
    result: GameResult,
) -> Result<(), WriteError> {
    write_game_with(out, tags, start, moves, result, WriteOptions::default())
}

/// [`write_game`] with options.
///
/// # Errors
/// As [`write_game`].
pub fn write_game_with<W: Write + ?Sized, N: AsRef<str>, V: AsRef<str>>(
    out: &mut W,
    tags: &[(N, V)],
    start: &Position,
    moves: &[PgnMove],
    result: GameResult,
    options: WriteOptions,
) -> Result<(), WriteError> {
    let text = format_game(tags, start, moves, result, options)?;
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// The PGN text of one game, as [`write_game_with`] writes it.
///
/// # Errors
/// As [`write_game`], I/O aside.
pub fn format_game<N: AsRef<str>, V: AsRef<str>>(
    tags: &[(N, V)],
    start: &Position,
    moves: &[PgnMove],
    result: GameResult,
    options: WriteOptions,
) -> Result<String, WriteError> {
    format_game_with_comment(tags, start, None, moves, result, options)
}

/// [`format_game`] with `comment`, when given, written before the first
/// move: the PGN place for a remark on the game as a whole or on what
/// happened before its first move. Readers give it as the game's comment
/// (python-chess's `Game.comment`, this crate's
/// [`Game::comments`](super::Game::comments)). A game without moves has it
/// before its result.
///
/// ```
/// use arbiter_chess::Position;
/// use arbiter_chess::pgn::{GameResult, PgnMove, WriteOptions, format_game_with_comment};
///
/// let pos = Position::startpos();
/// let e4 = PgnMove::new(pos.parse_san("e4").unwrap());
/// let remark = Some("Black is at the board");
/// let options = WriteOptions::default();
/// let text =
///     format_game_with_comment(&[("Event", "x")], &pos, remark, &[e4], GameResult::Unknown, options).unwrap();
/// assert!(text.ends_with("\n\n{Black is at the board} 1. e4 *\n\n"), "{text}");
/// ```
///
/// # Errors
/// As [`format_game`]; [`WriteError::BadComment`] with ply 0 for a
/// `comment` that holds `}`.
pub fn format_game_with_comment<N: AsRef<str>, V: AsRef<str>>(
    tags: &[(N, V)],
    start: &Position,
    comment: Option<&str>,
    moves: &[PgnMove],
    result: GameResult,
    options: WriteOptions,
) -> Result<String, WriteError> {
    let mut s = String::with_capacity(512 + moves.len() * 12);
    let given = |name: &str| tags.iter().find(|(n, _)| n.as_ref() == name).map(|(_, v)| v.as_ref());
    for name in SEVEN_TAG_ROSTER {
        let value = match name {
            "Result" => result.as_str(),
            "Date" => given(name).unwrap_or("????.??.??"),
            _ => given(name).unwrap_or("?"),
        };
        push_tag(&mut s, name, value)?;
    }
    let standard_start = start.fen() == Position::startpos().fen();
    let chess960 = start.castling_mode() == CastlingMode::Chess960;
    if chess960 {
        push_tag(&mut s, "Variant", given("Variant").unwrap_or("Chess960"))?;
    }
    if !standard_start || chess960 {
        push_tag(&mut s, "SetUp", "1")?;
        push_tag(&mut s, "FEN", &start.fen())?;
    }
    for (name, value) in tags {
        let name = name.as_ref();
        if SEVEN_TAG_ROSTER.contains(&name) || matches!(name, "SetUp" | "FEN") {
            continue;
        }
        if name == "Variant" && chess960 {
            continue;
        }
        push_tag(&mut s, name, value.as_ref())?;
    }
    s.push('\n');

    let mut lines = Lines { out: s, width: options.line_width.max(1), col: 0 };
    if let Some(c) = comment {
        if c.contains('}') {
            return Err(WriteError::BadComment(0));
        }
        write_comment(&mut lines, c.split_whitespace().map(str::to_owned).collect());
    }
    let mut pos = *start;
    let mut need_number = true;
    for (i, pm) in moves.iter().enumerate() {
        let ply = i + 1;
        let m = pm.mv;
        if !pos.is_legal(m) {
            return Err(WriteError::IllegalMove {
                ply,
                detail: format!("{} is not legal in {}", pos.uci(m).as_str(), pos.fen()),
            });
        }
        let san = pos.san(m);
        match pos.turn() {
            Color::White => lines.word(&format!("{}. {san}", pos.fullmove_number())),
            Color::Black if need_number => lines.word(&format!("{}... {san}", pos.fullmove_number())),
            Color::Black => lines.word(&san),
        }
        // (The number and its move form one word: they stay on one line.)
        pos.play_unchecked(m);
        need_number = false;
        for nag in &pm.nags {
            lines.word(&format!("${nag}"));
        }
        let mut words: Vec<String> = Vec::new();
        if let Some(c) = pm.clock {
            // One word, so that a command never breaks across lines.
            words.push(format!("[%clk {}]", format_clock(c)));
        }
        if let Some(e) = pm.elapsed {
            words.push(format!("[%emt {}]", format_clock(e)));
        }
        if let Some(c) = &pm.comment {
            if c.contains('}') {
                return Err(WriteError::BadComment(ply));
            }
            words.extend(c.split_whitespace().map(str::to_owned));
        }
        if !words.is_empty() {
            write_comment(&mut lines, words);
            need_number = true;
        }
    }
    lines.word(result.as_str());
    let mut s = lines.out;
    s.push_str("\n\n");
    Ok(s)
}
