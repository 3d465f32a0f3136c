//! A game record and the draw rules of the FIDE Laws that depend on history:
//! threefold and fivefold repetition (9.2, 9.6.1), fifty and seventy-five
//! moves (9.3, 9.6.2), with checkmate and stalemate (5.1.1, 5.2.1).
//!
//! Positions are "the same" in the sense of Article 9.2.3: same player to
//! move, same pieces on the same squares, same castling rights (a right is
//! lost only when the king or rook has moved, not while castling is merely
//! impossible), and en passant counts only when the capture is actually
//! legal. [`Position`]'s equality and [`Position::repetition_key`] implement
//! exactly that identity.

use std::fmt;

use crate::position::Position;
use crate::types::{Color, Move};

/// Why a game ended, or why a draw may be claimed, with the Article it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// 5.1.1: the side to move is checkmated.
    Checkmate,
    /// 5.2.1: the side to move has no legal move and is not in check.
    Stalemate,
    /// 5.2.2: neither side can checkmate by any series of legal moves.
    DeadPosition,
    /// 9.6.1: the same position has appeared at least five times.
    FivefoldRepetition,
    /// 9.6.2: 75 moves by each player without a pawn move or capture.
    SeventyFiveMoves,
    /// 9.2: the same position has appeared (or is about to appear) at least
    /// three times; a draw only when claimed.
    ThreefoldRepetition,
    /// 9.3: 50 moves by each player without a pawn move or capture (or about
    /// to be); a draw only when claimed.
    FiftyMoves,
}

impl Termination {
    /// The rule id of the Article, as recorded in every ruling (e.g. `FIDE-9.6.1`).
    pub const fn rule_id(self) -> &'static str {
        match self {
            Termination::Checkmate => "FIDE-5.1.1",
            Termination::Stalemate => "FIDE-5.2.1",
            Termination::DeadPosition => "FIDE-5.2.2",
            Termination::FivefoldRepetition => "FIDE-9.6.1",
            Termination::SeventyFiveMoves => "FIDE-9.6.2",
            Termination::ThreefoldRepetition => "FIDE-9.2",
            Termination::FiftyMoves => "FIDE-9.3",
        }
    }

    /// A short English description, as in a PGN `Termination` comment.
    pub const fn description(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::DeadPosition => "dead position",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::SeventyFiveMoves => "seventy-five-move rule",
            Termination::ThreefoldRepetition => "threefold repetition",
            Termination::FiftyMoves => "fifty-move rule",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.rule_id())
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` won.
    Decisive { winner: Color, termination: Termination },
    /// The game is drawn.
    Draw { termination: Termination },
}

impl Outcome {
    pub const fn termination(self) -> Termination {
        match self {
            Outcome::Decisive { termination, .. } | Outcome::Draw { termination } => termination,
        }
    }

    /// The winner, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Decisive { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result(self) -> &'static str {
        match self {
            Outcome::Decisive { winner: Color::White, .. } => "1-0",
            Outcome::Decisive { winner: Color::Black, .. } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }

    /// The rule id the result rests on.
    pub const fn rule_id(self) -> &'static str {
        self.termination().rule_id()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} by {}", self.result(), self.termination())
    }
}

/// A game: the start position, the moves played, and every position since.
///
/// Moves are checked for legality when pushed, except those pushed with
/// [`GameRecord::push_irregular`]: illegal moves that stood because nobody
/// acted on them (FIDE A.5.2), which the record marks as such. The record
/// answers the history-dependent questions of the Laws; it does not decide
/// who may claim or when (that is the competition rules' job in
/// `arbiter-laws`).
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// `positions[i]` is the position before move `i`; the last entry is the
    /// current position. Never empty.
    positions: Vec<Position>,
    /// `keys[i]` is `positions[i].repetition_key()`, kept to compare quickly.
    keys: Vec<u64>,
    moves: Vec<Move>,
    /// Indices into `moves` of the moves pushed with
    /// [`GameRecord::push_irregular`], ascending (empty in almost every game).
    irregular: Vec<usize>,
}

/// Two records are equal when they start from the same position (move
/// counters included) and have the same moves, played the same way.
impl PartialEq for GameRecord {
    fn eq(&self, other: &GameRecord) -> bool {
        self.moves == other.moves
            && self.irregular == other.irregular
            && self.start() == other.start()
            && self.start().halfmove_clock() == other.start().halfmove_clock()
            && self.start().fullmove_number() == other.start().fullmove_number()
            && self.start().castling_mode() == other.start().castling_mode()
    }
}

impl Eq for GameRecord {}

impl GameRecord {
    /// A game starting from `start`.
    pub fn new(start: Position) -> GameRecord {
        GameRecord {
            keys: vec![start.repetition_key()],
            positions: vec![start],
            moves: Vec::new(),
            irregular: Vec::new(),
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().unwrap_or(&self.positions[0])
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Positions from the start to now (one more than the moves).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Number of plies played.
    pub fn ply_count(&self) -> usize {
        self.moves.len()
    }

    /// Plays a move.
    ///
    /// # Errors
    /// [`crate::IllegalMoveError`] if the move is not legal in the current
    /// position; the record is unchanged.
    pub fn push(&mut self, m: Move) -> Result<(), crate::IllegalMoveError> {
        let next = self.position().play(m)?;
        self.push_position(m, next);
        Ok(())
    }

    /// Plays a move known to be legal (from the current position's
    /// `legal_moves`).
    pub fn push_unchecked(&mut self, m: Move) {
        let next = self.position().after(m);
        self.push_position(m, next);
    }

    /// Plays a move as the pieces were moved, legal or not: an illegal move
    /// that stands (FIDE A.5.2). See [`Position::play_irregular`] for what
    /// the move does to the board; the record marks it
    /// ([`GameRecord::irregular_moves`]) so that it is read back the same way.
    ///
    /// # Errors
    /// [`crate::IrregularMoveError`] if the pieces cannot be moved that way;
    /// the record is unchanged.
    pub fn push_irregular(&mut self, m: Move) -> Result<(), crate::IrregularMoveError> {
        let next = self.position().play_irregular(m)?;
        self.irregular.push(self.moves.len());
        self.push_position(m, next);
        Ok(())
    }

    /// Indices into [`GameRecord::moves`] of the moves pushed with
    /// [`GameRecord::push_irregular`], ascending.
    pub fn irregular_moves(&self) -> &[usize] {
        &self.irregular
    }

    /// `true` if move `index` (0-based) was pushed as an illegal move that
    /// stood.
    pub fn is_irregular(&self, index: usize) -> bool {
        self.irregular.binary_search(&index).is_ok()
    }

    fn push_position(&mut self, m: Move, next: Position) {
        self.keys.push(next.repetition_key());
        self.positions.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move, returning it.
    pub fn pop(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        if self.irregular.last() == Some(&self.moves.len()) {
            self.irregular.pop();
        }
        Some(m)
    }

    /// How many times `pos` has appeared in the game, counting the current
    /// position if it is the same. Only positions since the last capture or
    /// pawn move can be the same, so the scan stops there.
    pub fn occurrences(&self, pos: &Position) -> usize {
        let key = pos.repetition_key();
        let window = (pos.halfmove_clock() as usize).min(self.positions.len() - 1);
        let first = self.positions.len() - 1 - window;
        (first..self.positions.len()).filter(|&i| self.keys[i] == key && self.positions[i] == *pos).count()
    }

    /// How many times the current position has appeared (at least 1).
    pub fn repetitions(&self) -> usize {
        self.occurrences(self.position())
    }

    /// 9.2.2: the current position has appeared at least three times.
    pub fn is_threefold_repetition(&self) -> bool {
        self.repetitions() >= 3
    }

    /// 9.2.1: playing `intended` would make its position appear for at
    /// least the third time. `intended` must be legal.
    pub fn is_threefold_repetition_after(&self, intended: Move) -> bool {
        let next = self.position().after(intended);
        // The new position is not yet in the record: count it once more.
        self.occurrences_excluding_current(&next) + 1 >= 3
    }

    fn occurrences_excluding_current(&self, pos: &Position) -> usize {
        let key = pos.repetition_key();
        let n = self.positions.len();
        let window = (pos.halfmove_clock() as usize).min(n);
        (n - window..n).filter(|&i| self.keys[i] == key && self.positions[i] == *pos).count()
    }

    /// 9.6.1: the current position has appeared at least five times (not
    /// necessarily by consecutive repetition).
    pub fn is_fivefold_repetition(&self) -> bool {
        self.repetitions() >= 5
    }

    /// 9.3.2: the last 50 moves by each player were made without a pawn move
    /// or capture.
    pub fn is_fifty_moves(&self) -> bool {
        self.position().halfmove_clock() >= 100
    }

    /// 9.3.1: playing `intended` would complete 50 moves by each player
    /// without a pawn move or capture. `intended` must be legal.
    ///
    /// The claim is judged on the count alone, even when the intended move
    /// would itself checkmate or stalemate (9.3 has no such exception).
    pub fn is_fifty_moves_after(&self, intended: Move) -> bool {
        !self.position().is_zeroing(intended) && self.position().halfmove_clock() + 1 >= 100
    }

    /// 9.6.2: 75 moves by each player without a pawn move or capture, unless
    /// the last move gave checkmate (which takes precedence).
    pub fn is_seventy_five_moves(&self) -> bool {
        self.position().halfmove_clock() >= 150 && !self.position().is_checkmate()
    }

    /// The outcome the Laws impose without any claim, or `None` if the game
    /// goes on: checkmate (5.1.1), stalemate (5.2.1), fivefold repetition
    /// (9.6.1), seventy-five moves (9.6.2), in that order of precedence.
    ///
    /// Dead positions (5.2.2) need the analyser of [`crate::dead`]; callers
    /// that must detect them use [`GameRecord::outcome_with_dead_position`].
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                Outcome::Decisive { winner: pos.turn().other(), termination: Termination::Checkmate }
            } else {
                Outcome::Draw { termination: Termination::Stalemate }
            });
        }
        if self.is_fivefold_repetition() {
            return Some(Outcome::Draw { termination: Termination::FivefoldRepetition });
        }
        if pos.halfmove_clock() >= 150 {
            return Some(Outcome::Draw { termination: Termination::SeventyFiveMoves });
        }
        None
    }

    /// As [`GameRecord::outcome`], and also a dead position (5.2.2), decided
    /// by `is_dead` (which must answer `true` only when neither side can
    /// checkmate by any series of legal moves). A dead position ranks after
    /// checkmate and stalemate and before the 9.6 draws, since it ends the
    /// game at once.
    pub fn outcome_with_dead_position(&self, is_dead: impl FnOnce(&Position) -> bool) -> Option<Outcome> {
        match self.outcome() {
            Some(o @ Outcome::Decisive { .. }) => Some(o),
            Some(o @ Outcome::Draw { termination: Termination::Stalemate }) => Some(o),
            other => {
                if is_dead(self.position()) {
                    Some(Outcome::Draw { termination: Termination::DeadPosition })
                } else {
                    other
                }
            }
        }
    }

    /// The draws the player having the move could claim now, without an
    /// intended move (9.2.2, 9.3.2).
    pub fn claimable_now(&self) -> Vec<Termination> {
        let mut out = Vec::new();
        if self.is_threefold_repetition() {
            out.push(Termination::ThreefoldRepetition);
        }
        if self.is_fifty_moves() {
            out.push(Termination::FiftyMoves);
        }
        out
    }

    /// The draws that could be claimed by announcing `intended` (9.2.1,
    /// 9.3.1), plus those claimable now.
    pub fn claimable_with(&self, intended: Move) -> Vec<Termination> {
        let mut out = self.claimable_now();
        if !out.contains(&Termination::ThreefoldRepetition) && self.is_threefold_repetition_after(intended) {
            out.push(Termination::ThreefoldRepetition);
        }
        if !out.contains(&Termination::FiftyMoves) && self.is_fifty_moves_after(intended) {
            out.push(Termination::FiftyMoves);
        }
        out
    }
}
