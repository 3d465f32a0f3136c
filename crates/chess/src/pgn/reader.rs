//! The streaming PGN tokenizer and its [`Visitor`] interface.
//!
//! [`Reader`] pulls bytes from any [`std::io::Read`] (so also any
//! [`std::io::BufRead`]) into one buffer of its own and hands every token of
//! a game to a [`Visitor`] as a borrowed slice. Nothing of a game is kept
//! once its tokens have been handed on: memory stays constant however large
//! the file, and every token kind has a length limit ([`Limits`]) so that a
//! hostile file makes the reader report [`PgnError::TooLong`] instead of
//! growing its buffer without bound.

use std::borrow::Cow;
use std::io::{self, Read};
use std::time::Duration;

/// How a game ended, as written in PGN (the `Result` tag or the movetext's
/// termination marker).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: game in progress, abandoned or result unknown.
    Unknown,
}

impl GameResult {
    /// The PGN token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a result token (also `½-½` for a draw); `None` for anything else.
    pub fn from_token(token: &[u8]) -> Option<GameResult> {
        match token {
            b"1-0" => Some(GameResult::WhiteWins),
            b"0-1" => Some(GameResult::BlackWins),
            b"1/2-1/2" | b"\xC2\xBD-\xC2\xBD" => Some(GameResult::Draw),
            b"*" => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// The winner, if the result is decisive.
    pub const fn winner(self) -> Option<crate::Color> {
        match self {
            GameResult::WhiteWins => Some(crate::Color::White),
            GameResult::BlackWins => Some(crate::Color::Black),
            _ => None,
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GameResult {
    type Err = PgnError;
    fn from_str(s: &str) -> Result<GameResult, PgnError> {
        GameResult::from_token(s.trim().as_bytes()).ok_or_else(|| PgnError::BadResult(s.to_owned()))
    }
}

/// A visitor's answer to "shall I skip this part?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skip(pub bool);

/// A brace (`{...}`) or rest-of-line (`; ...`) comment.
///
/// The text is handed over as written (without the braces or the `;`).
/// Embedded commands such as `[%clk 0:03:00]` and `[%emt 0:00:05]` are
/// parsed on request with [`Comment::clock`], [`Comment::elapsed`] and
/// [`Comment::commands`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comment<'a> {
    text: &'a str,
}

impl<'a> Comment<'a> {
    /// A comment with this text.
    pub const fn new(text: &'a str) -> Comment<'a> {
        Comment { text }
    }

    /// The text between the braces (or after the `;`), as written.
    pub const fn text(&self) -> &'a str {
        self.text
    }

    /// The embedded commands `[%name args]`, in order, as `(name, args)`.
    pub fn commands(&self) -> Commands<'a> {
        Commands { rest: self.text }
    }

    /// The clock of `[%clk H:MM:SS]` (the time left after the move).
    pub fn clock(&self) -> Option<Duration> {
        self.commands().find(|(n, _)| *n == "clk").and_then(|(_, a)| parse_clock(a))
    }

    /// The time spent on the move, from `[%emt H:MM:SS]`.
    pub fn elapsed(&self) -> Option<Duration> {
        self.commands().find(|(n, _)| *n == "emt").and_then(|(_, a)| parse_clock(a))
    }

    /// The text with every `[%...]` command removed and whitespace collapsed
    /// (what a reader of the comment would call its remark).
    pub fn remark(&self) -> String {
        let mut out = String::new();
        let mut rest = self.text;
        loop {
            let (before, after) = match rest.find("[%") {
                Some(i) => (&rest[..i], Some(&rest[i..])),
                None => (rest, None),
            };
            for word in before.split_whitespace() {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
            match after.and_then(|a| a.find(']').map(|j| &a[j + 1..])) {
                Some(next) => rest = next,
                None => break,
            }
        }
        out
    }
}

/// Iterator over the `[%name args]` commands of a comment.
#[derive(Clone, Debug)]
pub struct Commands<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Commands<'a> {
    type Item = (&'a str, &'a str);
    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        loop {
            let start = self.rest.find("[%")?;
            let body = &self.rest[start + 2..];
            let Some(end) = body.find(']') else {
                self.rest = "";
                return None;
            };
            self.rest = &body[end + 1..];
            let body = body[..end].trim();
            let name_len = body.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
            if name_len == 0 {
                continue;
            }
            return Some((&body[..name_len], body[name_len..].trim()));
        }
    }
}

/// Parses a clock value `H:MM:SS`, `MM:SS` or `SS`, each with an optional
/// decimal fraction of the seconds (`0:00:09.8`). `None` if malformed.
pub fn parse_clock(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    let mut secs: u64 = 0;
    let mut parts = 0;
    for part in whole.split(':') {
        parts += 1;
        if parts > 3 || part.is_empty() || part.len() > 12 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: u64 = part.parse().ok()?;
        if parts > 1 && v >= 60 {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(v)?;
    }
    let mut nanos: u32 = 0;
    if let Some(f) = frac {
        if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: u32 = f.parse().ok()?;
        nanos = v * 10u32.pow(9 - f.len() as u32);
    }
    Some(Duration::new(secs, nanos))
}

/// Formats a clock as `H:MM:SS`, with a decimal fraction only when the
/// duration has one (trailing zeros dropped, at most millisecond precision).
pub fn format_clock(d: Duration) -> String {
    let s = d.as_secs();
    let mut out = format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
    let ms = d.subsec_millis();
    if ms > 0 {
        let frac = format!("{ms:03}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out
}

/// Callbacks for the parts of a game, in file order.
///
/// For each game the reader calls [`begin_game`](Visitor::begin_game), then
/// [`tag`](Visitor::tag) for each header, then
/// [`begin_movetext`](Visitor::begin_movetext), then the movetext callbacks,
/// and finally [`end_game`](Visitor::end_game), whose value the reader
/// returns. Inside a variation the same movetext callbacks report the
/// variation's tokens between [`begin_variation`](Visitor::begin_variation)
/// and [`end_variation`](Visitor::end_variation); by default variations are
/// skipped.
///
/// If the reader stops a game with an error, `end_game` is not called for
/// it; `begin_game` comes before the next game as usual.
///
/// What stands between games belongs to none: comments before a game's first
/// header or move (and after its result) are skipped, so that a comment
/// after a result does not make a game of its own. Comments after the
/// headers and before the first move are reported.
pub trait Visitor {
    /// What a game turns into.
    type Output;

    /// A new game starts.
    fn begin_game(&mut self) {}

    /// A header `[Name "value"]`, escapes (`\"`, `\\`) resolved.
    fn tag(&mut self, _name: &str, _value: &str) {}

    /// The headers are over. Return `Skip(true)` to skip the movetext.
    fn begin_movetext(&mut self) -> Skip {
        Skip(false)
    }

    /// A move in SAN as written, move number and `!`/`?` suffixes removed
    /// (the suffixes are reported as [`nag`](Visitor::nag)s), `+`/`#` kept.
    /// The text is not checked: it may be any token the file has in a move's
    /// place.
    fn san(&mut self, _san: &str) {}

    /// A numeric annotation glyph `$n`, or `!`, `?`, `!!`, `??`, `!?`, `?!`
    /// (1 to 6) and a few symbolic assessments (`=` is 10, `+-` is 18, ...).
    fn nag(&mut self, _nag: u8) {}

    /// A comment.
    fn comment(&mut self, _comment: Comment<'_>) {}

    /// A variation `(` opens. Return `Skip(false)` to see its tokens.
    fn begin_variation(&mut self) -> Skip {
        Skip(true)
    }

    /// The variation opened last closes (also at the end of a game for
    /// variations left open).
    fn end_variation(&mut self) {}

    /// The termination marker of the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`).
    fn outcome(&mut self, _result: GameResult) {}

    /// The game is over.
    fn end_game(&mut self) -> Self::Output;
}

/// Length limits that keep a [`Reader`]'s memory bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest movetext token (a move, a move number, a NAG...), in bytes.
    pub max_token: usize,
    /// Longest header line `[Name "value"]`, in bytes.
    pub max_tag: usize,
    /// Longest comment, in bytes.
    pub max_comment: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_token: 255, max_tag: 64 * 1024, max_comment: 1024 * 1024 }
    }
}

/// What kind of token broke a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Token,
    Tag,
    Comment,
}

impl std::fmt::Display for TokenKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenKind::Token => "movetext token",
            TokenKind::Tag => "header line",
            TokenKind::Comment => "comment",
        })
    }
}

/// Why a game could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PgnError {
    #[error("read error: {0}")]
    Io(#[from] io::Error),
    #[error("{kind} longer than {limit} bytes at byte offset {offset}")]
    TooLong { kind: TokenKind, limit: usize, offset: u64 },
    #[error("{0:?} is not a game result (1-0, 0-1, 1/2-1/2 or *)")]
    BadResult(String),
}

const CHUNK: usize = 64 * 1024;

/// Byte classes for the tokenizer.
const WS: u8 = 1;
const DELIM: u8 = 2;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = WS | DELIM;
    t[b'\t' as usize] = WS | DELIM;
    t[b'\n' as usize] = WS | DELIM;
    t[b'\r' as usize] = WS | DELIM;
    t[0x0b] = WS | DELIM;
    t[0x0c] = WS | DELIM;
    t[b'{' as usize] = DELIM;
    t[b'}' as usize] = DELIM;
    t[b'(' as usize] = DELIM;
    t[b')' as usize] = DELIM;
    t[b'[' as usize] = DELIM;
    t[b']' as usize] = DELIM;
    t[b';' as usize] = DELIM;
    t[b'$' as usize] = DELIM;
    t[b'"' as usize] = DELIM;
    t
};

#[inline(always)]
fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}

#[inline(always)]
fn is_delim(b: u8) -> bool {
    CLASS[b as usize] & DELIM != 0
}

/// Text as `&str`: UTF-8 if it is valid UTF-8, otherwise ISO 8859-1 (the
/// PGN standard's own character set), so that any byte sequence decodes.
#[inline]
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is valid UTF-8. (The short tokens of a movetext are
        // nearly always ASCII; this skips the general validation.)
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    decode_slow(bytes)
}

#[cold]
#[inline(never)]
fn decode_slow(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// Work left over from a game stopped by an error: skip the rest of it
/// before reading the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    None,
    /// The rest of an over-long token, then the rest of the game (headers
    /// too if `in_headers`).
    Skip {
        rest: Rest,
        in_headers: bool,
    },
}

/// How to skip the rest of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rest {
    Symbol,
    Line,
    Brace,
}

/// A streaming PGN reader. See the [module documentation](crate::pgn).
///
/// ```
/// use arbiter_chess::pgn::{Reader, Visitor};
///
/// struct CountMoves(usize);
/// impl Visitor for CountMoves {
///     type Output = usize;
///     fn begin_game(&mut self) { self.0 = 0; }
///     fn san(&mut self, _san: &str) { self.0 += 1; }
///     fn end_game(&mut self) -> usize { self.0 }
/// }
///
/// let pgn = b"[Event \"x\"]\n\n1. e4 e5 (1... c5) 2. Nf3 1-0\n";
/// let mut reader = Reader::new(&pgn[..]);
/// assert_eq!(reader.read_game(&mut CountMoves(0)).unwrap(), Some(3));
/// assert_eq!(reader.read_game(&mut CountMoves(0)).unwrap(), None);
/// ```
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Bytes dropped from the front of `buf` so far (for error offsets).
    dropped: u64,
    eof: bool,
    /// The next byte is the first of a line (for `%` escape lines).
    line_start: bool,
    limits: Limits,
    pending: Pending,
}

impl<R> std::fmt::Debug for Reader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("offset", &(self.dropped + self.pos as u64))
            .field("limits", &self.limits)
            .finish()
    }
}

/// What a movetext symbol turned out to be.
enum Symbol {
    Skip,
    Result(GameResult),
    Nag(u8),
    /// SAN at `start..end` of the token, then an optional suffix NAG.
    San(usize, usize, Option<u8>),
}

fn suffix_nag(s: &[u8]) -> Option<u8> {
    Some(match s {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        _ => return None,
    })
}

fn symbolic_nag(s: &[u8]) -> Option<u8> {
    Some(match s {
        b"=" => 10,
        b"=/&" | b"~" => 13,
        b"+=" | b"+/=" => 14,
        b"=+" | b"=/+" => 15,
        b"+/-" | b"\xC2\xB1" => 16,
        b"-/+" | b"\xE2\x88\x93" => 17,
        b"+-" => 18,
        b"-+" => 19,
        b"\xE2\x88\x9E" => 13,
        _ => return None,
    })
}

#[inline]
fn classify(t: &[u8]) -> Symbol {
    if matches!(t[0], b'0' | b'1' | b'*' | 0xC2)
        && let Some(r) = GameResult::from_token(t)
    {
        return Symbol::Result(r);
    }
    let mut start = 0;
    if t[0].is_ascii_digit() {
        let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == t.len() {
            return Symbol::Skip; // a move number without its dot
        }
        if t[digits] == b'.' {
            start = digits;
        }
    }
    while start < t.len() && t[start] == b'.' {
        start += 1;
    }
    if start == t.len() {
        return Symbol::Skip; // `12.`, `3...`, `...`
    }
    let body = &t[start..];
    let annot = body.iter().rev().take_while(|&&b| b == b'!' || b == b'?').count();
    let san_len = body.len() - annot;
    let nag = if annot > 0 { suffix_nag(&body[san_len..]) } else { None };
    if san_len == 0 {
        return match nag {
            Some(n) => Symbol::Nag(n),
            None => Symbol::Skip,
        };
    }
    if start == 0
        && annot == 0
        && let Some(n) = symbolic_nag(body)
    {
        return Symbol::Nag(n);
    }
    Symbol::San(start, start + san_len, nag)
}

impl<R: Read> Reader<R> {
    /// A reader with the default [`Limits`].
    pub fn new(inner: R) -> Reader<R> {
        Reader::with_limits(inner, Limits::default())
    }

    /// A reader with the given limits (each at least 16 bytes is enforced).
    pub fn with_limits(inner: R, limits: Limits) -> Reader<R> {
        let limits = Limits {
            max_token: limits.max_token.max(16),
            max_tag: limits.max_tag.max(16),
            max_comment: limits.max_comment.max(16),
        };
        Reader {
            inner,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            dropped: 0,
            eof: false,
            line_start: true,
            limits,
            pending: Pending::None,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Bytes of input consumed so far.
    pub fn offset(&self) -> u64 {
        self.dropped + self.pos as u64
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads more input, keeping `buf[pos..end]`. `false` at end of input.
    fn refill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.dropped += self.pos as u64;
            self.pos = 0;
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            // Only reached while scanning one long token; callers bound its
            // length by the limits, so the buffer stays bounded too.
            self.buf.resize(self.end + CHUNK, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    #[inline]
    fn peek(&mut self) -> io::Result<Option<u8>> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        if self.refill()? { Ok(Some(self.buf[self.pos])) } else { Ok(None) }
    }

    /// Skips whitespace and `%` escape lines.
    fn skip_ws(&mut self) -> io::Result<()> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if b == b'\n' {
                    self.line_start = true;
                } else if is_ws(b) {
                    self.line_start = false;
                } else if b == b'%' && self.line_start {
                    self.skip_line()?;
                    continue;
                } else {
                    return Ok(());
                }
                self.pos += 1;
            }
            if !self.refill()? {
                return Ok(());
            }
        }
    }

    /// Skips up to (not including) the next newline.
    fn skip_line(&mut self) -> io::Result<()> {
        self.line_start = false;
        loop {
            if let Some(i) = self.buf[self.pos..self.end].iter().position(|&b| b == b'\n') {
                self.pos += i;
                return Ok(());
            }
            self.pos = self.end;
            if !self.refill()? {
                return Ok(());
            }
        }
    }

    /// Skips bytes up to and including `stop` (or to the end of input).
    fn skip_past(&mut self, stop: u8) -> io::Result<()> {
        self.line_start = false;
        loop {
            if let Some(i) = self.buf[self.pos..self.end].iter().position(|&b| b == stop) {
                self.pos += i + 1;
                return Ok(());
            }
            self.pos = self.end;
            if !self.refill()? {
                return Ok(());
            }
        }
    }

    /// Skips the rest of a symbol token.
    fn skip_symbol(&mut self) -> io::Result<()> {
        self.line_start = false;
        loop {
            if let Some(i) = self.buf[self.pos..self.end].iter().position(|&b| is_delim(b)) {
                self.pos += i;
                return Ok(());
            }
            self.pos = self.end;
            if !self.refill()? {
                return Ok(());
            }
        }
    }

    /// Makes sure `buf[pos..]` holds the bytes up to the first one for which
    /// `stop` is true, looking at no more than `limit` bytes. Returns the
    /// length before that byte (`Ok(None)` if the limit is hit); at end of
    /// input, the length of what is left.
    #[inline]
    fn scan(&mut self, from: usize, limit: usize, stop: impl Fn(u8) -> bool) -> io::Result<Option<usize>> {
        let mut i = from;
        loop {
            let avail = &self.buf[self.pos + i..self.end];
            if let Some(j) = avail.iter().position(|&b| stop(b)) {
                let len = i + j;
                return Ok(if len > limit { None } else { Some(len) });
            }
            i = self.end - self.pos;
            if i > limit {
                return Ok(None);
            }
            if !self.refill()? {
                return Ok(Some(i));
            }
        }
    }

    fn too_long(&mut self, kind: TokenKind, rest: Rest, in_headers: bool) -> PgnError {
        self.pending = Pending::Skip { rest, in_headers };
        let limit = match kind {
            TokenKind::Token => self.limits.max_token,
            TokenKind::Tag => self.limits.max_tag,
            TokenKind::Comment => self.limits.max_comment,
        };
        PgnError::TooLong { kind, limit, offset: self.offset() }
    }

    /// Finishes skipping a game stopped by an error.
    fn resync(&mut self) -> io::Result<()> {
        let Pending::Skip { rest, in_headers } = self.pending else { return Ok(()) };
        self.pending = Pending::None;
        match rest {
            Rest::Symbol => self.skip_symbol()?,
            Rest::Line => self.skip_line()?,
            Rest::Brace => self.skip_past(b'}')?,
        }
        if in_headers {
            self.skip_tags()?;
        }
        self.skip_movetext()
    }

    /// Reads the next game into `visitor`. `Ok(None)` at the end of input.
    ///
    /// # Errors
    /// [`PgnError::Io`] if reading fails, [`PgnError::TooLong`] if a token
    /// breaks the [`Limits`]. After `TooLong` the rest of that game is
    /// skipped and the next call reads the following game.
    pub fn read_game<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> Result<Option<V::Output>, PgnError> {
        self.resync()?;
        if !self.skip_prelude()? {
            return Ok(None);
        }
        visitor.begin_game();
        self.read_tags(visitor)?;
        if visitor.begin_movetext().0 {
            self.skip_movetext()?;
        } else {
            self.read_movetext(visitor)?;
        }
        Ok(Some(visitor.end_game()))
    }

    /// Skips the next game. `Ok(false)` at the end of input.
    ///
    /// # Errors
    /// [`PgnError::Io`] if reading fails.
    pub fn skip_game(&mut self) -> Result<bool, PgnError> {
        self.resync()?;
        if !self.skip_prelude()? {
            return Ok(false);
        }
        self.skip_tags()?;
        self.skip_movetext()?;
        Ok(true)
    }

    /// Skips what may stand between games (whitespace, byte-order marks,
    /// comments after a result, stray closing brackets). `false` at the end.
    fn skip_prelude(&mut self) -> io::Result<bool> {
        loop {
            self.skip_ws()?;
            let Some(b) = self.peek()? else { return Ok(false) };
            match b {
                0xEF => {
                    // A UTF-8 byte-order mark (at the start of the file, or
                    // of a file concatenated to it).
                    while self.end - self.pos < 3 && self.refill()? {}
                    if self.buf[self.pos..self.end].starts_with(b"\xEF\xBB\xBF") {
                        self.pos += 3;
                        self.line_start = true;
                    } else {
                        return Ok(true);
                    }
                }
                b'{' => self.skip_past(b'}')?,
                b';' => self.skip_line()?,
                b')' | b'}' | b']' => {
                    self.pos += 1;
                    self.line_start = false;
                }
                _ => return Ok(true),
            }
        }
    }

    fn skip_tags(&mut self) -> io::Result<()> {
        loop {
            self.skip_ws()?;
            if self.peek()? != Some(b'[') {
                return Ok(());
            }
            self.skip_line()?;
        }
    }

    fn read_tags<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> Result<(), PgnError> {
        loop {
            self.skip_ws()?;
            if self.peek()? != Some(b'[') {
                return Ok(());
            }
            self.read_tag(visitor)?;
        }
    }

    /// Reads `[Name "value"]` (tolerantly: a value without quotes runs to
    /// `]`, a value without its closing quote to the end of the line).
    fn read_tag<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> Result<(), PgnError> {
        self.line_start = false;
        let limit = self.limits.max_tag;
        // The whole line is needed at most; find its end first. A line longer
        // than the limit is still fine if the tag closes within the limit
        // (several tags, or tags and moves, on one line).
        let (line_len, truncated) = match self.scan(0, limit, |b| b == b'\n')? {
            Some(n) => (n, false),
            // `scan` has made more than `limit` bytes available.
            None => (limit, true),
        };
        let line = &self.buf[self.pos..self.pos + line_len];
        let mut i = 1;
        while i < line.len() && is_ws(line[i]) {
            i += 1;
        }
        let name_start = i;
        while i < line.len() && !is_ws(line[i]) && line[i] != b'"' && line[i] != b']' {
            i += 1;
        }
        let name_end = i;
        while i < line.len() && is_ws(line[i]) {
            i += 1;
        }
        let value: Cow<'_, [u8]>;
        let consumed;
        let closed;
        if i < line.len() && line[i] == b'"' {
            i += 1;
            let start = i;
            let mut owned: Option<Vec<u8>> = None;
            loop {
                if i >= line.len() {
                    break;
                }
                match line[i] {
                    b'"' => break,
                    b'\\' if i + 1 < line.len() && matches!(line[i + 1], b'"' | b'\\') => {
                        let o = owned.get_or_insert_with(|| line[start..i].to_vec());
                        o.push(line[i + 1]);
                        i += 2;
                        continue;
                    }
                    b => {
                        if let Some(o) = owned.as_mut() {
                            o.push(b);
                        }
                    }
                }
                i += 1;
            }
            let raw_end = i;
            value = match owned {
                Some(o) => Cow::Owned(o),
                None => Cow::Borrowed(&line[start..raw_end]),
            };
            if i < line.len() {
                i += 1; // closing quote
            }
            while i < line.len() && line[i] != b']' {
                i += 1;
            }
            consumed = (i + 1).min(line.len());
            closed = i < line.len();
        } else {
            // No quotes: the value runs to `]`.
            let start = i;
            while i < line.len() && line[i] != b']' {
                i += 1;
            }
            value = Cow::Borrowed(&line[start..i]);
            consumed = (i + 1).min(line.len());
            closed = i < line.len();
        }
        if truncated && !closed {
            return Err(self.too_long(TokenKind::Tag, Rest::Line, true));
        }
        let value: &[u8] = match &value {
            Cow::Borrowed(v) => v,
            Cow::Owned(v) => v,
        };
        // A value read to the end of the line loses its trailing CR.
        let value = value.strip_suffix(b"\r").unwrap_or(value);
        if name_end > name_start {
            let name = decode(&line[name_start..name_end]);
            let value = decode(value);
            visitor.tag(&name, &value);
        }
        self.pos += consumed;
        Ok(())
    }

    /// Skips a movetext (up to the result at depth 0, the next `[` or EOF).
    fn skip_movetext(&mut self) -> io::Result<()> {
        let mut depth = 0u32;
        loop {
            self.skip_ws()?;
            let Some(b) = self.peek()? else { return Ok(()) };
            self.line_start = false;
            match b {
                b'[' => return Ok(()),
                b'{' => self.skip_past(b'}')?,
                b';' => self.skip_line()?,
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' => {
                    depth = depth.saturating_sub(1);
                    self.pos += 1;
                }
                b'}' | b']' | b'"' | b'$' => self.pos += 1,
                _ => {
                    let Some(len) = self.scan(0, 16, is_delim)? else {
                        self.skip_symbol()?;
                        continue;
                    };
                    let token = &self.buf[self.pos..self.pos + len];
                    let result = depth == 0 && GameResult::from_token(token).is_some();
                    self.pos += len;
                    if result {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Skips the rest of a variation whose `(` has been consumed. `false` if
    /// a `[` (the next game) interrupts it.
    fn skip_variation(&mut self) -> io::Result<bool> {
        let mut depth = 1u32;
        loop {
            self.skip_ws()?;
            let Some(b) = self.peek()? else { return Ok(true) };
            self.line_start = false;
            match b {
                b'[' => return Ok(false),
                b'{' => self.skip_past(b'}')?,
                b';' => self.skip_line()?,
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(true);
                    }
                }
                _ if is_delim(b) => self.pos += 1,
                _ => self.skip_symbol()?,
            }
        }
    }

    fn read_movetext<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> Result<(), PgnError> {
        let mut depth = 0u32;
        let result = self.movetext_loop(visitor, &mut depth);
        if result.is_ok() {
            for _ in 0..depth {
                visitor.end_variation();
            }
        }
        result
    }

    fn movetext_loop<V: Visitor + ?Sized>(
        &mut self,
        visitor: &mut V,
        depth: &mut u32,
    ) -> Result<(), PgnError> {
        loop {
            self.skip_ws()?;
            let Some(b) = self.peek()? else { return Ok(()) };
            self.line_start = false;
            match b {
                b'[' => return Ok(()),
                b'{' => {
                    let limit = self.limits.max_comment;
                    let Some(len) = self.scan(1, limit + 1, |b| b == b'}')? else {
                        return Err(self.too_long(TokenKind::Comment, Rest::Brace, false));
                    };
                    let text = decode(&self.buf[self.pos + 1..self.pos + len]);
                    visitor.comment(Comment::new(&text));
                    self.pos = (self.pos + len + 1).min(self.end);
                }
                b';' => {
                    let limit = self.limits.max_comment;
                    let Some(len) = self.scan(1, limit + 1, |b| b == b'\n')? else {
                        return Err(self.too_long(TokenKind::Comment, Rest::Line, false));
                    };
                    let raw = &self.buf[self.pos + 1..self.pos + len];
                    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                    let text = decode(raw);
                    visitor.comment(Comment::new(&text));
                    self.pos += len;
                }
                b'(' => {
                    self.pos += 1;
                    if visitor.begin_variation().0 {
                        if !self.skip_variation()? {
                            return Ok(());
                        }
                    } else {
                        *depth += 1;
                    }
                }
                b')' => {
                    self.pos += 1;
                    if *depth > 0 {
                        *depth -= 1;
                        visitor.end_variation();
                    }
                }
                b'$' => {
                    let Some(len) = self.scan(1, self.limits.max_token, |b| !b.is_ascii_digit())? else {
                        return Err(self.too_long(TokenKind::Token, Rest::Symbol, false));
                    };
                    let digits = &self.buf[self.pos + 1..self.pos + len];
                    if let Some(n) = std::str::from_utf8(digits).ok().and_then(|d| d.parse::<u8>().ok()) {
                        visitor.nag(n);
                    }
                    self.pos += len;
                }
                _ if is_delim(b) => self.pos += 1, // stray `}`, `]` or `"`
                _ => {
                    let Some(len) = self.scan(0, self.limits.max_token, is_delim)? else {
                        return Err(self.too_long(TokenKind::Token, Rest::Symbol, false));
                    };
                    let token = &self.buf[self.pos..self.pos + len];
                    self.pos += len;
                    match classify(token) {
                        Symbol::Skip => {}
                        Symbol::Result(r) => {
                            if *depth == 0 {
                                visitor.outcome(r);
                                return Ok(());
                            }
                        }
                        Symbol::Nag(n) => visitor.nag(n),
                        Symbol::San(s, e, nag) => {
                            let text = decode(&token[s..e]);
                            visitor.san(&text);
                            if let Some(n) = nag {
                                visitor.nag(n);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse_and_format() {
        assert_eq!(parse_clock("0:03:00"), Some(Duration::from_secs(180)));
        assert_eq!(parse_clock("1:23:45"), Some(Duration::from_secs(5025)));
        assert_eq!(parse_clock("0:00:09.8"), Some(Duration::from_millis(9800)));
        assert_eq!(parse_clock("0:61:00"), None);
        assert_eq!(parse_clock("x"), None);
        assert_eq!(parse_clock("99999999999999999999:00:00"), None);
        assert_eq!(format_clock(Duration::from_secs(5025)), "1:23:45");
        assert_eq!(format_clock(Duration::from_millis(9800)), "0:00:09.8");
    }

    #[test]
    fn symbols_classify() {
        assert!(matches!(classify(b"1."), Symbol::Skip));
        assert!(matches!(classify(b"12..."), Symbol::Skip));
        assert!(matches!(classify(b"1.e4"), Symbol::San(2, 4, None)));
        assert!(matches!(classify(b"1...e5!?"), Symbol::San(4, 6, Some(5))));
        assert!(matches!(classify(b"0-0"), Symbol::San(0, 3, None)));
        assert!(matches!(classify(b"10.0-0"), Symbol::San(3, 6, None)));
        assert!(matches!(classify(b"1-0"), Symbol::Result(GameResult::WhiteWins)));
        assert!(matches!(classify(b"??"), Symbol::Nag(4)));
        assert!(matches!(classify(b"+-"), Symbol::Nag(18)));
    }
}
