//! Validation of PGN files: replay every mainline move of every game.
//!
//! For each game, [`validate_games`] checks:
//!
//! 1. the start position: the standard one, or the `FEN` tag if there is
//!    one (read strictly; Chess960 castling when the `Variant` tag names
//!    Chess960). A `Variant` other than standard chess, "From Position" or
//!    Chess960 is rejected, and so is a Chess960 game without a `FEN` tag;
//! 2. every mainline move: its SAN must be well-formed, legal and
//!    unambiguous in the position it is played in (tolerant SAN, see
//!    [`crate::San::parse`]); variations are parsed but not replayed;
//! 3. the result against the final position and the movetext:
//!    - if the final position is checkmate, a known result (the `Result`
//!      tag or the termination marker) must be a win for the side that gave
//!      mate; `*` counts as "not known" and is accepted;
//!    - if the final position is stalemate, a known result must be a draw;
//!    - the `Result` tag and the termination marker must agree when both are
//!      present and neither is `*`.
//!
//!    The first two are not checked when a `Termination` tag says the game
//!    was lost on time (`Time forfeit`, `time forfeit`...): the result then
//!    comes from the clock, and the record may hold a last move played after
//!    the flag fell (the lichess 2013 database has a game with a mate on the
//!    board that was scored as a win on time for the mated side).
//!
//! The first problem found ends the check of that game.

use std::io::Read;

use super::reader::{GameResult, PgnError, Reader, Skip, Visitor};
use crate::fen::{FenError, FenOptions};
use crate::position::Position;
use crate::san::{San, SanError};
use crate::types::Color;

/// What is wrong with a game.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{0}")]
    San(#[from] SanError),
    #[error("bad FEN tag {fen:?}: {error}")]
    BadFen { fen: String, error: FenError },
    #[error("unsupported variant {0:?}")]
    UnsupportedVariant(String),
    #[error("Chess960 game without a FEN tag")]
    Chess960WithoutFen,
    #[error("the game ends in checkmate ({winner} wins) but the result is {result}")]
    MateResult { winner: Color, result: GameResult },
    #[error("the game ends in stalemate but the result is {0}")]
    StalemateResult(GameResult),
    #[error("Result tag {tag} disagrees with the result {marker} at the end of the moves")]
    ResultDisagrees { tag: GameResult, marker: GameResult },
    #[error("Result tag {0:?} is not 1-0, 0-1, 1/2-1/2 or *")]
    BadResultTag(String),
    #[error("unreadable game: {0}")]
    Read(PgnError),
}

/// The start position named by a game's `FEN` and `Variant` tags.
///
/// # Errors
/// [`CheckError::BadFen`], [`CheckError::UnsupportedVariant`] or
/// [`CheckError::Chess960WithoutFen`].
pub fn start_position(fen: Option<&str>, variant: Option<&str>) -> Result<Position, CheckError> {
    let chess960 = match variant.map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) => match v.as_str() {
            "" | "standard" | "chess" | "normal" | "from position" | "fromposition" => false,
            "chess960" | "chess 960" | "960" | "fischerandom" | "fischer random" | "fischerrandom"
            | "freestyle" => true,
            _ => return Err(CheckError::UnsupportedVariant(variant.unwrap_or_default().to_owned())),
        },
    };
    match fen {
        None if chess960 => Err(CheckError::Chess960WithoutFen),
        None => Ok(Position::startpos()),
        Some(f) => {
            let options = if chess960 { FenOptions::CHESS960 } else { FenOptions::STRICT };
            Position::from_fen_with(f.trim(), options)
                .map_err(|error| CheckError::BadFen { fen: f.to_owned(), error })
        }
    }
}

/// What [`validate_games`] found in one game.
#[derive(Debug)]
pub struct GameReport {
    /// 1 for the first game of the input.
    pub index: u64,
    /// Mainline plies replayed (before the error, if any).
    pub plies: u32,
    /// The position after the last ply replayed.
    pub position: Position,
    /// The first problem, with the ply it concerns (1 for the first move;
    /// 0 for the start position; the last ply for a result problem).
    pub error: Option<(u32, CheckError)>,
}

impl GameReport {
    /// `true` if the game has no problem.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }
}

impl std::fmt::Display for GameReport {
    /// `game K: ok FEN` or `game K: error at ply P: REASON`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error {
            None => write!(f, "game {}: ok {}", self.index, self.position.fen()),
            Some((ply, e)) => write!(f, "game {}: error at ply {ply}: {e}", self.index),
        }
    }
}

/// Totals of a [`validate_games`] run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    /// Mainline plies replayed, over all games.
    pub plies: u64,
    /// Games with a problem.
    pub errors: u64,
}

/// The validating visitor: replays the mainline as the tokens arrive.
#[derive(Debug)]
struct Checker {
    pos: Position,
    plies: u32,
    error: Option<(u32, CheckError)>,
    fen: Option<String>,
    variant: Option<String>,
    result_tag: Option<String>,
    marker: Option<GameResult>,
    time_forfeit: bool,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            pos: Position::startpos(),
            plies: 0,
            error: None,
            fen: None,
            variant: None,
            result_tag: None,
            marker: None,
            time_forfeit: false,
        }
    }

    fn check_result(&self) -> Result<(), CheckError> {
        let tag = match self.result_tag.as_deref() {
            None => None,
            Some(t) => Some(t.parse::<GameResult>().map_err(|_| CheckError::BadResultTag(t.to_owned()))?),
        };
        if let (Some(tag), Some(marker)) = (tag, self.marker)
            && tag != marker
            && tag != GameResult::Unknown
            && marker != GameResult::Unknown
        {
            return Err(CheckError::ResultDisagrees { tag, marker });
        }
        let known = [self.marker, tag].into_iter().flatten().find(|r| *r != GameResult::Unknown);
        let Some(result) = known else { return Ok(()) };
        if self.time_forfeit {
            return Ok(());
        }
        if self.pos.is_check() {
            if self.pos.is_checkmate() {
                let winner = self.pos.turn().other();
                if result.winner() != Some(winner) {
                    return Err(CheckError::MateResult { winner, result });
                }
            }
        } else if result != GameResult::Draw && self.pos.is_stalemate() {
            return Err(CheckError::StalemateResult(result));
        }
        Ok(())
    }
}

impl Visitor for Checker {
    type Output = ();

    fn begin_game(&mut self) {
        *self = Checker::new();
    }

    fn tag(&mut self, name: &str, value: &str) {
        match name {
            "FEN" => self.fen = Some(value.to_owned()),
            "Variant" => self.variant = Some(value.to_owned()),
            "Result" => self.result_tag = Some(value.to_owned()),
            "Termination" => self.time_forfeit = value.to_ascii_lowercase().contains("time forfeit"),
            _ => {}
        }
    }

    fn begin_movetext(&mut self) -> Skip {
        match start_position(self.fen.as_deref(), self.variant.as_deref()) {
            Ok(p) => self.pos = p,
            Err(e) => self.error = Some((0, e)),
        }
        Skip(false)
    }

    #[inline]
    fn san(&mut self, san: &str) {
        if self.error.is_some() {
            return;
        }
        match San::parse(san).and_then(|s| s.to_move(&self.pos, san)) {
            Ok(m) => {
                self.pos.play_unchecked(m);
                self.plies += 1;
            }
            Err(e) => self.error = Some((self.plies + 1, e.into())),
        }
    }

    fn begin_variation(&mut self) -> Skip {
        Skip(true)
    }

    fn outcome(&mut self, result: GameResult) {
        self.marker = Some(result);
    }

    fn end_game(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.check_result()
        {
            self.error = Some((self.plies, e));
        }
    }
}

/// Validates every game of a PGN stream (see the [module documentation](self)
/// for what is checked), calling `on_game` with each game's report, in order.
///
/// A game that breaks the reader's limits is reported as an error and the
/// reading goes on with the next game.
///
/// # Errors
/// An I/O error from `input` (the games before it have been reported).
pub fn validate_games<R: Read>(input: R, mut on_game: impl FnMut(&GameReport)) -> std::io::Result<Summary> {
    let mut reader = Reader::new(input);
    let mut checker = Checker::new();
    let mut summary = Summary::default();
    loop {
        let read = reader.read_game(&mut checker);
        let error = match read {
            Ok(None) => return Ok(summary),
            Ok(Some(())) => checker.error.take(),
            Err(PgnError::Io(e)) => return Err(e),
            Err(e) => checker.error.take().or(Some((checker.plies + 1, CheckError::Read(e)))),
        };
        summary.games += 1;
        summary.plies += u64::from(checker.plies);
        if error.is_some() {
            summary.errors += 1;
        }
        let report = GameReport { index: summary.games, plies: checker.plies, position: checker.pos, error };
        on_game(&report);
    }
}
