//! Piece placement: which piece stands on which square.

use std::fmt;

use crate::bitboard::Bitboard;
use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The placement of the pieces, as one bitboard per role and per colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) occupied: Bitboard,
}

impl Board {
    /// The empty board.
    pub const fn empty() -> Board {
        Board { by_role: [Bitboard::EMPTY; 6], by_color: [Bitboard::EMPTY; 2], occupied: Bitboard::EMPTY }
    }

    /// The standard starting placement.
    pub fn standard() -> Board {
        Board::from_back_rank([
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ])
    }

    /// A starting placement with the given white back rank (from the a-file),
    /// mirrored for black, with pawns on their usual ranks.
    pub fn from_back_rank(back: [Role; 8]) -> Board {
        let mut b = Board::empty();
        for (i, role) in back.iter().enumerate() {
            let f = File::new(i as u32);
            b.set(Square::from_coords(f, Rank::First), Piece { color: Color::White, role: *role });
            b.set(Square::from_coords(f, Rank::Eighth), Piece { color: Color::Black, role: *role });
            b.set(Square::from_coords(f, Rank::Second), Piece { color: Color::White, role: Role::Pawn });
            b.set(Square::from_coords(f, Rank::Seventh), Piece { color: Color::Black, role: Role::Pawn });
        }
        b
    }

    /// All occupied squares.
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// The squares of `color`'s pieces.
    #[inline(always)]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    /// The squares of pieces of `role`, both colours.
    #[inline(always)]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize]
    }

    /// The squares of `piece`.
    #[inline(always)]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    #[inline(always)]
    pub fn pawns(&self) -> Bitboard {
        self.by_role(Role::Pawn)
    }
    #[inline(always)]
    pub fn knights(&self) -> Bitboard {
        self.by_role(Role::Knight)
    }
    #[inline(always)]
    pub fn bishops(&self) -> Bitboard {
        self.by_role(Role::Bishop)
    }
    #[inline(always)]
    pub fn rooks(&self) -> Bitboard {
        self.by_role(Role::Rook)
    }
    #[inline(always)]
    pub fn queens(&self) -> Bitboard {
        self.by_role(Role::Queen)
    }
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.by_role(Role::King)
    }

    /// Bishops and queens.
    #[inline(always)]
    pub fn diagonal_sliders(&self) -> Bitboard {
        self.bishops() | self.queens()
    }

    /// Rooks and queens.
    #[inline(always)]
    pub fn straight_sliders(&self) -> Bitboard {
        self.rooks() | self.queens()
    }

    /// The king of `color`, if there is exactly one.
    #[inline]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.kings() & self.by_color(color)).single_square()
    }

    /// The colour of the piece on `sq`.
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied.contains(sq) {
            return None;
        }
        // Branch-free: exactly one bitboard holds the square, and each
        // contributes its index times its bit.
        let i = sq.index();
        let r = &self.by_role;
        let index = ((r[1].0 >> i) & 1)
            | (((r[2].0 >> i) & 1) << 1)
            | (((r[3].0 >> i) & 1) * 3)
            | (((r[4].0 >> i) & 1) << 2)
            | (((r[5].0 >> i) & 1) * 5);
        let index = index as usize;
        Some(Role::from_index(index))
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = self.color_at(sq)?;
        Some(Piece { color, role })
    }

    /// Puts `piece` on an empty square (use [`Board::remove`] first otherwise).
    #[inline(always)]
    pub(crate) fn put_unchecked(&mut self, sq: Square, piece: Piece) {
        let m = Bitboard::from_square(sq);
        self.by_role[piece.role as usize] |= m;
        self.by_color[piece.color as usize] |= m;
        self.occupied |= m;
    }

    /// Takes `piece` off `sq`, which must hold it.
    #[inline(always)]
    pub(crate) fn take_unchecked(&mut self, sq: Square, piece: Piece) {
        let m = Bitboard::from_square(sq);
        self.by_role[piece.role as usize] ^= m;
        self.by_color[piece.color as usize] ^= m;
        self.occupied ^= m;
    }

    /// Places `piece` on `sq`, replacing whatever stood there.
    pub fn set(&mut self, sq: Square, piece: Piece) {
        self.remove(sq);
        self.put_unchecked(sq, piece);
    }

    /// Empties `sq`, returning what stood there.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let p = self.piece_at(sq)?;
        self.take_unchecked(sq, p);
        Some(p)
    }

    /// The pieces and their squares, `a1` first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied.iter().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// Number of pieces of `color` of `role`.
    pub fn count(&self, color: Color, role: Role) -> u32 {
        (self.by_role(role) & self.by_color(color)).count()
    }

    /// The placement field of a FEN.
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(72);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                match self.piece_at(sq) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// A text diagram, rank 8 at the top, with coordinates.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push(char::from(b'1' + rank as u8));
            s.push(' ');
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                s.push(' ');
                s.push(self.piece_at(sq).map_or('.', Piece::char));
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        s
    }
}

impl Default for Board {
    fn default() -> Board {
        Board::standard()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.board_fen())
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagram())
    }
}
