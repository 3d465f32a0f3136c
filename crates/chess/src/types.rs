//! Small `Copy` value types: colours, roles, pieces, files, ranks, squares,
//! castling sides and moves.

use std::fmt;
use std::str::FromStr;

/// A side in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Index for tables (white 0, black 1).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `true` for white.
    #[inline]
    pub const fn is_white(self) -> bool {
        matches!(self, Color::White)
    }

    /// The FEN letter: `w` or `b`.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank on which this side's pieces start (1 for white, 8 for black).
    #[inline]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }

    /// Picks `white` or `black` depending on the colour.
    #[inline]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }

    /// The lowercase English name, as used in the command-line tools.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a colour name that is neither white nor black.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected a colour (white, black, w or b), got {0:?}")]
pub struct ParseColorError(pub String);

impl FromStr for Color {
    type Err = ParseColorError;
    fn from_str(s: &str) -> Result<Color, ParseColorError> {
        match s.to_ascii_lowercase().as_str() {
            "w" | "white" => Ok(Color::White),
            "b" | "black" => Ok(Color::Black),
            _ => Err(ParseColorError(s.to_owned())),
        }
    }
}

/// A kind of piece, without colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];

    /// The roles a pawn may promote to, strongest first.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// Index for tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lowercase letter (`p`, `n`, `b`, `r`, `q`, `k`).
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// The English name, lowercase (`pawn`, `knight`, ... `king`), as
    /// rulings describe pieces.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }

    /// Parses a lowercase English name (the inverse of [`Role::name`]).
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The uppercase letter used in SAN (`P` for a pawn, although SAN omits it).
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// Parses a letter in either case.
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }

    pub(crate) const fn from_index(i: usize) -> Role {
        // A match, not a table: it compiles to the index itself, without a
        // load and a bounds check (the role lookups of the hot loops).
        match i {
            0 => Role::Pawn,
            1 => Role::Knight,
            2 => Role::Bishop,
            3 => Role::Rook,
            4 => Role::Queen,
            5 => Role::King,
            _ => panic!("no role has this index"),
        }
    }
}

/// A piece: a role of a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    /// The FEN letter: uppercase for white, lowercase for black.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// Parses a FEN letter.
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => {
                Some(Piece { color: if c.is_ascii_uppercase() { Color::White } else { Color::Black }, role })
            }
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A file (column), `a` to `h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    pub const ALL: [File; 8] = [File::A, File::B, File::C, File::D, File::E, File::F, File::G, File::H];

    /// The file with index 0..8.
    #[inline]
    pub const fn new(index: u32) -> File {
        File::ALL[(index & 7) as usize]
    }

    /// The file with index 0..8, or `None`.
    pub const fn try_new(index: u32) -> Option<File> {
        if index < 8 { Some(File::new(index)) } else { None }
    }

    #[inline]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The letter `a` to `h`.
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// Parses `a`-`h` (lowercase only: an uppercase letter is a piece in SAN).
    pub const fn from_char(c: char) -> Option<File> {
        if c >= 'a' && c <= 'h' { Some(File::new(c as u32 - 'a' as u32)) } else { None }
    }

    /// The file mirrored left to right (`a` ↔ `h`).
    #[must_use]
    pub const fn flip(self) -> File {
        File::new(7 - self.index())
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A rank (row), `1` to `8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with index 0..8.
    #[inline]
    pub const fn new(index: u32) -> Rank {
        Rank::ALL[(index & 7) as usize]
    }

    /// The rank with index 0..8, or `None`.
    pub const fn try_new(index: u32) -> Option<Rank> {
        if index < 8 { Some(Rank::new(index)) } else { None }
    }

    #[inline]
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The digit `1` to `8`.
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// Parses `1`-`8`.
    pub const fn from_char(c: char) -> Option<Rank> {
        if c >= '1' && c <= '8' { Some(Rank::new(c as u32 - '1' as u32)) } else { None }
    }

    /// This rank seen from `color`'s side (white sees it unchanged).
    #[inline]
    #[must_use]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::new(7 - self.index()),
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A square of the board, `a1` = 0 to `h8` = 63.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const A1: Square = Square(0);
    pub const B1: Square = Square(1);
    pub const C1: Square = Square(2);
    pub const D1: Square = Square(3);
    pub const E1: Square = Square(4);
    pub const F1: Square = Square(5);
    pub const G1: Square = Square(6);
    pub const H1: Square = Square(7);
    pub const A8: Square = Square(56);
    pub const B8: Square = Square(57);
    pub const C8: Square = Square(58);
    pub const D8: Square = Square(59);
    pub const E8: Square = Square(60);
    pub const F8: Square = Square(61);
    pub const G8: Square = Square(62);
    pub const H8: Square = Square(63);

    /// The square with index 0..64 (`a1` = 0, `b1` = 1, ..., `h8` = 63).
    ///
    /// # Panics
    /// If `index >= 64`.
    #[inline]
    pub const fn new(index: u32) -> Square {
        assert!(index < 64, "square index out of range");
        Square(index as u8)
    }

    /// The square with index 0..64, or `None`.
    pub const fn try_new(index: u32) -> Option<Square> {
        if index < 64 { Some(Square(index as u8)) } else { None }
    }

    /// Index without a range check, for table-driven code that has already
    /// masked the value to six bits.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u32) -> Square {
        Square((index & 63) as u8)
    }

    /// The square at a file and rank.
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square((rank as u8) * 8 + file as u8)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> File {
        File::new(self.0 as u32 & 7)
    }

    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::new(self.0 as u32 >> 3)
    }

    /// The square mirrored top to bottom (`a1` ↔ `a8`).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square offset by `delta` indices, or `None` off the board.
    /// Does not check file wrap-around: use for rank steps only.
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 { Some(Square(i as u8)) } else { None }
    }

    /// `true` for the dark squares (`a1` is dark).
    #[inline]
    pub const fn is_dark(self) -> bool {
        (self.0 as u32 & 7) % 2 == (self.0 as u32 >> 3) % 2
    }

    /// Chebyshev (king-step) distance.
    pub fn distance(self, other: Square) -> u32 {
        let df = self.file().index().abs_diff(other.file().index());
        let dr = self.rank().index().abs_diff(other.rank().index());
        df.max(dr)
    }

    /// Every square, `a1` first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

/// The error for text that is not a square name such as `e4`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected a square such as e4, got {0:?}")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() == 2
            && let (Some(f), Some(r)) = (File::from_char(b[0] as char), Rank::from_char(b[1] as char))
        {
            return Ok(Square::from_coords(f, r));
        }
        Err(ParseSquareError(s.to_owned()))
    }
}

/// Which way a king castles: towards the h-file (`O-O`) or the a-file (`O-O-O`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file: the king ends on g1/g8, the rook on f1/f8.
    KingSide = 0,
    /// Towards the a-file: the king ends on c1/c8, the rook on d1/d8.
    QueenSide = 1,
}

impl CastlingSide {
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The king's destination file (FIDE Guidelines II.3.2.6: as in standard chess).
    #[inline]
    pub const fn king_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::G,
            CastlingSide::QueenSide => File::C,
        }
    }

    /// The rook's destination file.
    #[inline]
    pub const fn rook_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::F,
            CastlingSide::QueenSide => File::D,
        }
    }

    /// The king's destination square for `color`.
    #[inline]
    pub const fn king_to(self, color: Color) -> Square {
        Square::from_coords(self.king_to_file(), color.back_rank())
    }

    /// The rook's destination square for `color`.
    #[inline]
    pub const fn rook_to(self, color: Color) -> Square {
        Square::from_coords(self.rook_to_file(), color.back_rank())
    }

    /// The side a rook on `rook_file` castles on, seen from a king on `king_file`.
    #[inline]
    pub const fn from_files(king_file: File, rook_file: File) -> CastlingSide {
        if (rook_file as u8) > (king_file as u8) { CastlingSide::KingSide } else { CastlingSide::QueenSide }
    }
}

/// How castling is written in UCI and FEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CastlingMode {
    /// Standard chess: castling as `e1g1`, FEN rights as `KQkq`.
    #[default]
    Standard,
    /// Chess960: castling as king-takes-rook (`e1h1`), FEN rights as X-FEN.
    Chess960,
}

/// What kind of move a [`Move`] is; kept in its low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move that is not one of the others (captures included).
    Normal,
    /// A pawn's two-square advance from its starting rank.
    DoublePush,
    /// A pawn capturing en passant.
    EnPassant,
    /// Castling, encoded as the king moving onto its own rook's square.
    Castle,
    /// A pawn reaching the last rank and becoming the given role.
    Promotion(Role),
}

/// A legal-or-not move: from, to and kind, packed in 16 bits.
///
/// Castling is stored as the king moving onto its own rook (the Chess960
/// convention), which is unambiguous in every variant; [`crate::uci`] turns it
/// into `e1g1` for standard chess.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

const KIND_NORMAL: u16 = 0;
const KIND_DOUBLE: u16 = 1;
const KIND_EP: u16 = 2;
const KIND_CASTLE: u16 = 3;
const KIND_PROMO_N: u16 = 4; // 4..=7: knight, bishop, rook, queen

impl Move {
    #[inline]
    const fn pack(from: Square, to: Square, kind: u16) -> Move {
        Move((from.0 as u16) | ((to.0 as u16) << 6) | (kind << 12))
    }

    /// An ordinary move (or capture) of a piece.
    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_NORMAL)
    }

    /// A pawn's double push.
    #[inline]
    pub const fn double_push(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_DOUBLE)
    }

    /// An en passant capture: `to` is the square the capturing pawn lands on.
    #[inline]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_EP)
    }

    /// Castling, as the king moving onto its rook's square.
    #[inline]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, KIND_CASTLE)
    }

    /// A promotion to `role` (knight, bishop, rook or queen).
    #[inline]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        let k = match role {
            Role::Knight => 0,
            Role::Bishop => 1,
            Role::Rook => 2,
            _ => 3,
        };
        Move::pack(from, to, KIND_PROMO_N + k)
    }

    /// The square the moving piece leaves (the king's square when castling).
    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    /// The destination square as stored: for castling, the rook's square.
    #[inline]
    pub const fn to(self) -> Square {
        Square(((self.0 >> 6) & 63) as u8)
    }

    #[inline]
    const fn kind_bits(self) -> u16 {
        self.0 >> 12
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.kind_bits() {
            KIND_NORMAL => MoveKind::Normal,
            KIND_DOUBLE => MoveKind::DoublePush,
            KIND_EP => MoveKind::EnPassant,
            KIND_CASTLE => MoveKind::Castle,
            4 => MoveKind::Promotion(Role::Knight),
            5 => MoveKind::Promotion(Role::Bishop),
            6 => MoveKind::Promotion(Role::Rook),
            _ => MoveKind::Promotion(Role::Queen),
        }
    }

    /// The promotion role, if this is a promotion.
    #[inline]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(r) => Some(r),
            _ => None,
        }
    }

    #[inline]
    pub const fn is_castle(self) -> bool {
        self.kind_bits() == KIND_CASTLE
    }

    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.kind_bits() == KIND_EP
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.kind_bits() >= KIND_PROMO_N
    }

    /// For castling, the side; `None` otherwise.
    pub const fn castling_side(self) -> Option<CastlingSide> {
        if self.is_castle() {
            Some(CastlingSide::from_files(self.from().file(), self.to().file()))
        } else {
            None
        }
    }

    /// The square where the king ends up (castling) or the piece lands (others).
    pub const fn king_or_piece_to(self) -> Square {
        match self.castling_side() {
            Some(side) => Square::from_coords(side.king_to_file(), self.from().rank()),
            None => self.to(),
        }
    }

    /// The raw 16-bit encoding (stable: from | to << 6 | kind << 12, with
    /// a 3-bit kind; bit 15 is always clear).
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::to_u16`]: `None` for the values no move
    /// encodes (the kind uses three bits, so bit 15 is never set).
    pub const fn from_u16(bits: u16) -> Option<Move> {
        if bits & 0x8000 == 0 { Some(Move(bits)) } else { None }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => Ok(()),
            MoveKind::DoublePush => f.write_str("(double)"),
            MoveKind::EnPassant => f.write_str("(ep)"),
            MoveKind::Castle => f.write_str("(castle)"),
            MoveKind::Promotion(r) => write!(f, "{}", r.char()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("e".parse::<Square>().is_err());
        assert!("E4".parse::<Square>().is_err());
        assert!(Square::A1.is_dark());
        assert!(!Square::H1.is_dark());
        assert!(Square::H8.is_dark());
    }

    #[test]
    fn move_packing_round_trips() {
        let m = Move::promotion(Square::new(52), Square::new(61), Role::Rook);
        assert_eq!(m.from(), Square::new(52));
        assert_eq!(m.to(), Square::new(61));
        assert_eq!(m.promotion_role(), Some(Role::Rook));
        let c = Move::castle(Square::E1, Square::H1);
        assert_eq!(c.castling_side(), Some(CastlingSide::KingSide));
        assert_eq!(c.king_or_piece_to(), Square::G1);
        let c = Move::castle(Square::new(1), Square::A1);
        assert_eq!(c.castling_side(), Some(CastlingSide::QueenSide));
        assert_eq!(Move::from_u16(c.to_u16()), Some(c));
        assert_eq!(Move::from_u16(0x8000 | c.to_u16()), None);
    }
}
