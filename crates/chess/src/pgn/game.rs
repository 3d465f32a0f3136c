//! The convenient API: whole games with their headers and mainline moves.

use std::io::Read;
use std::time::Duration;

use super::reader::{Comment, GameResult, PgnError, Reader, Skip, Visitor};

/// Most headers one [`Game`] keeps; more is an error ([`GameError`]).
pub const MAX_TAGS: usize = 1024;
/// Most mainline moves one [`Game`] keeps (far above the longest possible
/// game); more is an error.
pub const MAX_PLIES: usize = 20_000;
/// Most comments one [`Game`] keeps.
pub const MAX_COMMENTS: usize = 50_000;
/// Most bytes of text (tags, moves, comments) one [`Game`] keeps.
pub const MAX_GAME_BYTES: usize = 16 * 1024 * 1024;

/// A mainline move as read: SAN text (not yet checked against a position)
/// and what followed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameMove {
    /// The move as written, move number and `!`/`?` removed.
    pub san: String,
    /// NAGs after the move (`!` is 1, `?` is 2, ...).
    pub nags: Vec<u8>,
    /// The clock after the move, from `[%clk ...]`.
    pub clock: Option<Duration>,
    /// The time spent on the move, from `[%emt ...]`.
    pub elapsed: Option<Duration>,
    /// The comments after the move, as written (commands included).
    pub comments: Vec<String>,
}

/// A game as read by [`Games`]: headers, mainline moves, comments.
/// Variations are parsed and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// The headers in file order.
    pub tags: Vec<(String, String)>,
    /// Comments before the first move.
    pub comments: Vec<String>,
    /// The mainline.
    pub moves: Vec<GameMove>,
    /// The termination marker at the end of the movetext, if any.
    pub outcome: Option<GameResult>,
}

impl Game {
    /// The value of the first header with this name (case-sensitive, as in
    /// the PGN standard).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The result: the movetext's termination marker, else the `Result` tag.
    pub fn result(&self) -> Option<GameResult> {
        self.outcome.or_else(|| self.tag("Result").and_then(|r| r.parse().ok()))
    }

    /// The mainline SAN moves.
    pub fn sans(&self) -> impl Iterator<Item = &str> {
        self.moves.iter().map(|m| m.san.as_str())
    }
}

/// Why [`Games`] could not return a game.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Read(#[from] PgnError),
    #[error("game has more than {0} {1}")]
    TooMany(usize, &'static str),
}

/// Collects one [`Game`]; a [`Visitor`] usable on its own.
#[derive(Debug, Default)]
pub struct GameBuilder {
    game: Game,
    overflow: Option<(usize, &'static str)>,
    comments: usize,
    bytes: usize,
}

impl GameBuilder {
    fn overflow(&mut self, limit: usize, what: &'static str) {
        self.overflow.get_or_insert((limit, what));
    }

    /// Counts `n` more bytes of text; `false` (and an error for the game)
    /// past [`MAX_GAME_BYTES`].
    fn room_for(&mut self, n: usize) -> bool {
        self.bytes += n;
        if self.bytes > MAX_GAME_BYTES {
            self.overflow(MAX_GAME_BYTES, "bytes of text");
            return false;
        }
        true
    }
}

impl Visitor for GameBuilder {
    type Output = Result<Game, GameError>;

    fn begin_game(&mut self) {
        self.game = Game::default();
        self.overflow = None;
        self.comments = 0;
        self.bytes = 0;
    }

    fn tag(&mut self, name: &str, value: &str) {
        if self.game.tags.len() >= MAX_TAGS {
            return self.overflow(MAX_TAGS, "headers");
        }
        if !self.room_for(name.len() + value.len()) {
            return;
        }
        self.game.tags.push((name.to_owned(), value.to_owned()));
    }

    fn san(&mut self, san: &str) {
        if self.game.moves.len() >= MAX_PLIES {
            return self.overflow(MAX_PLIES, "moves");
        }
        if !self.room_for(san.len()) {
            return;
        }
        self.game.moves.push(GameMove { san: san.to_owned(), ..GameMove::default() });
    }

    fn nag(&mut self, nag: u8) {
        if let Some(m) = self.game.moves.last_mut()
            && m.nags.len() < 16
        {
            m.nags.push(nag);
        }
    }

    fn comment(&mut self, comment: Comment<'_>) {
        self.comments += 1;
        if self.comments > MAX_COMMENTS {
            return self.overflow(MAX_COMMENTS, "comments");
        }
        if !self.room_for(comment.text().len()) {
            return;
        }
        match self.game.moves.last_mut() {
            Some(m) => {
                if let Some(c) = comment.clock() {
                    m.clock = Some(c);
                }
                if let Some(e) = comment.elapsed() {
                    m.elapsed = Some(e);
                }
                m.comments.push(comment.text().to_owned());
            }
            None => self.game.comments.push(comment.text().to_owned()),
        }
    }

    fn begin_variation(&mut self) -> Skip {
        Skip(true)
    }

    fn outcome(&mut self, result: GameResult) {
        self.game.outcome = Some(result);
    }

    fn end_game(&mut self) -> Result<Game, GameError> {
        let game = std::mem::take(&mut self.game);
        match self.overflow.take() {
            Some((n, what)) => Err(GameError::TooMany(n, what)),
            None => Ok(game),
        }
    }
}

/// Iterator over the games of a PGN stream.
///
/// ```
/// use arbiter_chess::pgn::read_games;
///
/// let pgn = "[White \"A\"]\n[Black \"B\"]\n\n1.e4 {[%clk 0:03:00]} e5 $1 2. Nf3 *\n";
/// let game = read_games(pgn.as_bytes()).next().unwrap().unwrap();
/// assert_eq!(game.tag("White"), Some("A"));
/// assert_eq!(game.sans().collect::<Vec<_>>(), ["e4", "e5", "Nf3"]);
/// assert_eq!(game.moves[0].clock, Some(std::time::Duration::from_secs(180)));
/// assert_eq!(game.moves[1].nags, [1]);
/// ```
#[derive(Debug)]
pub struct Games<R> {
    reader: Reader<R>,
    builder: GameBuilder,
    done: bool,
}

impl<R: Read> Games<R> {
    /// Games from a [`Reader`] (to choose its limits).
    pub fn from_reader(reader: Reader<R>) -> Games<R> {
        Games { reader, builder: GameBuilder::default(), done: false }
    }
}

/// The games of a PGN stream, one at a time.
pub fn read_games<R: Read>(input: R) -> Games<R> {
    Games::from_reader(Reader::new(input))
}

impl<R: Read> Iterator for Games<R> {
    type Item = Result<Game, GameError>;
    fn next(&mut self) -> Option<Result<Game, GameError>> {
        if self.done {
            return None;
        }
        match self.reader.read_game(&mut self.builder) {
            Ok(Some(game)) => Some(game),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // Stop after an I/O error; a limit error affects one game only.
                if matches!(e, PgnError::Io(_)) {
                    self.done = true;
                }
                Some(Err(e.into()))
            }
        }
    }
}
