//! Forsyth–Edwards Notation: standard FEN, X-FEN and Shredder-FEN, with a
//! strict validator and an explicit lenient mode.
//!
//! Reading accepts all three castling notations (`KQkq`, X-FEN's inner-rook
//! file letters, Shredder-FEN's `HAha`), and FENs without the two move
//! counters (as in EPD). Writing gives X-FEN by default, which is identical
//! to standard FEN for standard chess, or Shredder-FEN on request. The en
//! passant square is written only when an en passant capture is legal.

use std::fmt;

use crate::attacks::{between, line};
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::position::Position;
use crate::types::{CastlingMode, CastlingSide, Color, File, Piece, Rank, Role, Square};

/// What is wrong with the text of a FEN (before looking at the position).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenSyntaxError {
    #[error("empty FEN")]
    Empty,
    #[error("the board field must have 8 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("rank {rank} of the board field describes {files} files instead of 8")]
    RankLength { rank: char, files: u32 },
    #[error("unexpected character {0:?} in the board field")]
    BoardChar(char),
    #[error("the side to move must be 'w' or 'b', found {0:?}")]
    Turn(String),
    #[error("invalid castling field {0:?} (use '-', KQkq, X-FEN or Shredder-FEN letters)")]
    Castling(String),
    #[error("invalid en passant field {0:?} (use '-' or a square on the third or sixth rank)")]
    EnPassant(String),
    #[error("invalid halfmove clock {0:?} (a number of plies, 0 or more)")]
    HalfmoveClock(String),
    #[error("invalid fullmove number {0:?} (a number, 1 or more)")]
    FullmoveNumber(String),
    #[error("a FEN has 4 or 6 fields; found {0}")]
    FieldCount(usize),
}

/// What makes a well-formed FEN describe an impossible position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("the board is empty")]
    EmptyBoard,
    #[error("{0} has no king")]
    MissingKing(Color),
    #[error("{0} has more than one king")]
    TooManyKings(Color),
    #[error("a pawn stands on the first or last rank ({0})")]
    PawnOnBackRank(Square),
    #[error("the side not to move ({0}) is in check")]
    OppositeCheck(Color),
    #[error("the check on the king cannot have arisen from a legal move ({0})")]
    ImpossibleCheck(&'static str),
    #[error("castling right {right:?} has no matching king and rook")]
    InvalidCastlingRight { right: char },
    #[error("en passant square {0} is impossible here (no pawn just made a double step past it)")]
    InvalidEpSquare(Square),
    #[error("{0} has more material than a game can produce (promotions exceed missing pawns)")]
    TooMuchMaterial(Color),
}

/// Either kind of FEN error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("invalid FEN: {0}")]
    Syntax(#[from] FenSyntaxError),
    #[error("invalid position: {0}")]
    Position(#[from] PositionError),
}

/// How strictly a FEN is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strictness {
    /// Reject every position that cannot arise in a game (the default).
    #[default]
    Strict,
    /// Also accept impossible checks and too much material, as in the
    /// deliberately odd perft positions. Kings, pawns on the back rank,
    /// the side not to move in check, castling rights and the en passant
    /// square are still checked.
    Lenient,
    /// As lenient, and also accept what an illegal move that stood leaves
    /// (FIDE A.5.2, see [`Position::play_irregular`]): pawns on the first or
    /// last rank and the side not to move in check. One king per side,
    /// castling rights and the en passant square are still checked, because
    /// move generation relies on them.
    Irregular,
}

/// Options for reading a FEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FenOptions {
    /// Write castling as Chess960 (king takes rook). Positions whose castling
    /// rights need it switch to Chess960 automatically.
    pub chess960: bool,
    pub strictness: Strictness,
}

impl FenOptions {
    pub const STRICT: FenOptions = FenOptions { chess960: false, strictness: Strictness::Strict };
    pub const LENIENT: FenOptions = FenOptions { chess960: false, strictness: Strictness::Lenient };
    pub const CHESS960: FenOptions = FenOptions { chess960: true, strictness: Strictness::Strict };
}

fn parse_board(field: &str) -> Result<Board, FenSyntaxError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenSyntaxError::RankCount(ranks.len()));
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u32;
        let mut file = 0u32;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(FenSyntaxError::BoardChar(c));
                }
                file += d;
            } else if let Some(p) = Piece::from_char(c) {
                if file < 8 {
                    board.put_unchecked(Square::new(rank * 8 + file), p);
                }
                file += 1;
            } else {
                return Err(FenSyntaxError::BoardChar(c));
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(FenSyntaxError::RankLength { rank: Rank::new(rank).char(), files: file });
        }
    }
    Ok(board)
}

/// Resolves the castling field to the set of rook squares with rights.
fn parse_castling(field: &str, board: &Board) -> Result<Bitboard, FenError> {
    let bad = || FenSyntaxError::Castling(field.to_owned());
    let mut rooks = Bitboard::EMPTY;
    if field == "-" {
        return Ok(rooks);
    }
    if field.is_empty() || field.len() > 4 {
        return Err(bad().into());
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = color.back_rank();
        let my_rooks = board.rooks() & board.by_color(color) & Bitboard::from_rank(back);
        let invalid = PositionError::InvalidCastlingRight { right: c };
        let king = board.king_of(color).filter(|k| k.rank() == back).ok_or(invalid.clone())?;
        let rook = match c.to_ascii_lowercase() {
            'k' => my_rooks.iter().filter(|r| r.file() > king.file()).last(),
            'q' => my_rooks.iter().find(|r| r.file() < king.file()),
            'a'..='h' => {
                let f = File::from_char(c.to_ascii_lowercase()).ok_or_else(bad)?;
                Some(Square::from_coords(f, back)).filter(|s| my_rooks.contains(*s))
            }
            _ => return Err(bad().into()),
        };
        let rook = rook.ok_or(invalid.clone())?;
        if rooks.contains(rook) {
            return Err(bad().into());
        }
        rooks.add(rook);
    }
    // At most one right per side per colour.
    for color in Color::ALL {
        let mine = rooks & Bitboard::from_rank(color.back_rank());
        if let Some(king) = board.king_of(color) {
            let (mut k, mut q) = (0, 0);
            for r in mine {
                match CastlingSide::from_files(king.file(), r.file()) {
                    CastlingSide::KingSide => k += 1,
                    CastlingSide::QueenSide => q += 1,
                }
            }
            if k > 1 || q > 1 {
                return Err(bad().into());
            }
        }
    }
    Ok(rooks)
}

fn parse_number(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) { None } else { s.parse().ok() }
}

impl Position {
    /// Reads a FEN strictly (standard chess unless the castling rights need
    /// Chess960).
    ///
    /// # Errors
    /// [`FenError::Syntax`] for malformed text, [`FenError::Position`] for a
    /// position that cannot arise in a game.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, FenOptions::STRICT)
    }

    /// Reads a FEN with the given options.
    ///
    /// # Errors
    /// As [`Position::from_fen`]; [`Strictness::Lenient`] skips some checks.
    pub fn from_fen_with(fen: &str, options: FenOptions) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        match fields.len() {
            0 => return Err(FenSyntaxError::Empty.into()),
            4 | 6 => {}
            n => return Err(FenSyntaxError::FieldCount(n).into()),
        }
        let board = parse_board(fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            t => return Err(FenSyntaxError::Turn(t.to_owned()).into()),
        };
        let ep = match fields[3] {
            "-" => None,
            t => {
                let sq: Square = t.parse().map_err(|_| FenSyntaxError::EnPassant(t.to_owned()))?;
                if sq.rank() != Rank::Sixth.relative_to(turn) {
                    return Err(FenSyntaxError::EnPassant(t.to_owned()).into());
                }
                Some(sq)
            }
        };
        let (halfmoves, fullmoves) = if fields.len() == 6 {
            let h =
                parse_number(fields[4]).ok_or_else(|| FenSyntaxError::HalfmoveClock(fields[4].to_owned()))?;
            let f = parse_number(fields[5])
                .ok_or_else(|| FenSyntaxError::FullmoveNumber(fields[5].to_owned()))?;
            // Many tools write fullmove 0; read it as 1.
            (h, f.max(1))
        } else {
            (0, 1)
        };

        // Kings first: castling rights and checks need them.
        if board.occupied().is_empty() {
            return Err(PositionError::EmptyBoard.into());
        }
        for color in Color::ALL {
            match (board.kings() & board.by_color(color)).count() {
                0 => return Err(PositionError::MissingKing(color).into()),
                1 => {}
                _ => return Err(PositionError::TooManyKings(color).into()),
            }
        }
        let irregular = options.strictness == Strictness::Irregular;
        if let Some(sq) = (board.pawns() & Bitboard::BACKRANKS).first()
            && !irregular
        {
            return Err(PositionError::PawnOnBackRank(sq).into());
        }
        let castling = parse_castling(fields[2], &board)?;
        let mut pos = Position::from_parts_unchecked(
            board,
            turn,
            castling,
            None,
            halfmoves,
            fullmoves,
            CastlingMode::Chess960,
        );
        if !options.chess960 && pos.has_standard_castling_rights() {
            pos.mode = CastlingMode::Standard;
        }
        if !irregular && pos.attackers_to(pos.king(turn.other()), turn, board.occupied()).any() {
            return Err(PositionError::OppositeCheck(turn.other()).into());
        }
        if let Some(ep) = ep {
            validate_ep(&board, turn, ep)?;
            // Keep the square only when a pawn could take (see Position::ep_square).
            if (crate::attacks::pawn_attacks(turn.other(), ep) & board.pawns() & board.by_color(turn)).any() {
                pos.ep_square = Some(ep);
            }
        }
        if options.strictness == Strictness::Strict {
            check_material(&board)?;
            check_checkers(&pos, ep)?;
        }
        Ok(pos)
    }

    /// The FEN of this position (X-FEN castling; standard FEN for standard
    /// chess).
    pub fn fen(&self) -> String {
        Fen::from_position(self).to_string()
    }

    /// The Shredder-FEN of this position (castling rights as rook files).
    pub fn shredder_fen(&self) -> String {
        Fen { shredder: true, ..Fen::from_position(self) }.to_string()
    }

    /// The first four fields of the FEN (EPD without operations).
    pub fn epd(&self) -> String {
        Fen { counters: false, ..Fen::from_position(self) }.to_string()
    }
}

fn validate_ep(board: &Board, turn: Color, ep: Square) -> Result<(), PositionError> {
    let them = turn.other();
    let pushed = ep.offset(if turn == Color::White { -8 } else { 8 });
    let origin = ep.offset(if turn == Color::White { 8 } else { -8 });
    let ok = match (pushed, origin) {
        (Some(pushed), Some(origin)) => {
            board.piece_at(pushed) == Some(Piece { color: them, role: Role::Pawn })
                && !board.occupied().contains(ep)
                && !board.occupied().contains(origin)
        }
        _ => false,
    };
    if ok { Ok(()) } else { Err(PositionError::InvalidEpSquare(ep)) }
}

/// Promoted pieces must not outnumber the missing pawns.
fn check_material(board: &Board) -> Result<(), PositionError> {
    for color in Color::ALL {
        let mine = board.by_color(color);
        if mine.count() > 16 {
            return Err(PositionError::TooMuchMaterial(color));
        }
        let pawns = (board.pawns() & mine).count();
        let n = (board.knights() & mine).count();
        let r = (board.rooks() & mine).count();
        let q = (board.queens() & mine).count();
        let light = (board.bishops() & mine & Bitboard::LIGHT_SQUARES).count();
        let dark = (board.bishops() & mine & Bitboard::DARK_SQUARES).count();
        let promoted = n.saturating_sub(2)
            + r.saturating_sub(2)
            + q.saturating_sub(1)
            + light.saturating_sub(1)
            + dark.saturating_sub(1);
        if pawns > 8 || promoted > 8 - pawns {
            return Err(PositionError::TooMuchMaterial(color));
        }
    }
    Ok(())
}

/// Checks can only arise from a legal last move: at most two checkers, never
/// two pieces that a single move cannot unmask together, and after a double
/// push only the pushed pawn or a piece it uncovered.
fn check_checkers(pos: &Position, ep: Option<Square>) -> Result<(), PositionError> {
    let checkers = pos.checkers();
    if checkers.is_empty() {
        return Ok(());
    }
    let b = pos.board();
    let king = pos.king(pos.turn());
    if checkers.count() > 2 {
        return Err(PositionError::ImpossibleCheck("more than two checkers"));
    }
    if let Some(ep) = ep {
        // The last move was a double push from `origin` to `pushed`: each
        // checker is that pawn or a line piece the pawn uncovered. (Both at
        // once is impossible: no line through the origin square reaches a
        // square the pushed pawn attacks.)
        let (back, fwd) = if pos.turn() == Color::White { (-8, 8) } else { (8, -8) };
        let (Some(pushed), Some(origin)) = (ep.offset(back), ep.offset(fwd)) else {
            return Err(PositionError::InvalidEpSquare(ep));
        };
        if checkers.count() == 2 {
            return Err(PositionError::ImpossibleCheck("double check after a double push"));
        }
        for c in checkers {
            if c != pushed && !between(king, c).contains(origin) {
                return Err(PositionError::ImpossibleCheck("checker unrelated to the double push"));
            }
        }
        return Ok(());
    }
    if checkers.count() == 2 {
        let a = checkers.first().unwrap_or(king);
        let c = checkers.last().unwrap_or(king);
        let sliders = b.straight_sliders() | b.diagonal_sliders();
        if !sliders.contains(a) && !sliders.contains(c) {
            return Err(PositionError::ImpossibleCheck("two checkers and neither is a line piece"));
        }
        // Two pawns, or two knights, can never both give check.
        for role in [Role::Pawn, Role::Knight] {
            if (b.by_role(role) & checkers).count() == 2 {
                return Err(PositionError::ImpossibleCheck("two checkers of a kind that cannot both check"));
            }
        }
        // Two line pieces on one line through the king cannot both check.
        if line(king, a).contains(c) {
            return Err(PositionError::ImpossibleCheck("two checkers on one line"));
        }
    }
    Ok(())
}

/// A FEN writer with options: `Fen::from_position(&pos).to_string()`.
#[derive(Clone, Copy, Debug)]
pub struct Fen<'a> {
    pos: &'a Position,
    /// Castling rights as Shredder-FEN rook files instead of X-FEN.
    pub shredder: bool,
    /// Include the halfmove clock and fullmove number.
    pub counters: bool,
}

impl<'a> Fen<'a> {
    pub fn from_position(pos: &'a Position) -> Fen<'a> {
        Fen { pos, shredder: false, counters: true }
    }
}

impl fmt::Display for Fen<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.pos;
        let b = pos.board();
        write!(f, "{} {} ", b.board_fen(), pos.turn().char())?;
        let mut any = false;
        for color in Color::ALL {
            let king = match b.king_of(color) {
                Some(k) => k,
                None => continue,
            };
            let my_rooks = b.rooks() & b.by_color(color) & Bitboard::from_rank(color.back_rank());
            let mut files: Vec<File> = pos.castling_rook_files(color).collect();
            // King side first, as in KQkq.
            files.sort_by(|a, b| b.cmp(a));
            for file in files {
                let side = CastlingSide::from_files(king.file(), file);
                let c = if self.shredder {
                    file.char()
                } else {
                    let outermost = match side {
                        CastlingSide::KingSide => my_rooks.iter().filter(|r| r.file() > king.file()).last(),
                        CastlingSide::QueenSide => my_rooks.iter().find(|r| r.file() < king.file()),
                    };
                    if outermost.map(|s| s.file()) == Some(file) {
                        match side {
                            CastlingSide::KingSide => 'k',
                            CastlingSide::QueenSide => 'q',
                        }
                    } else {
                        file.char()
                    }
                };
                let c = if color == Color::White { c.to_ascii_uppercase() } else { c };
                write!(f, "{c}")?;
                any = true;
            }
        }
        if !any {
            f.write_str("-")?;
        }
        match pos.legal_ep_square() {
            Some(ep) => write!(f, " {ep}")?,
            None => f.write_str(" -")?,
        }
        if self.counters {
            write!(f, " {} {}", pos.halfmove_clock(), pos.fullmove_number())?;
        }
        Ok(())
    }
}

impl fmt::Display for Position {
    /// Writes the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Fen::from_position(self).fmt(f)
    }
}

impl std::str::FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}
