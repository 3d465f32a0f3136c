//! Sets of squares as 64-bit masks (bit `i` = square `i`, `a1` = bit 0).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::types::{Color, File, Rank, Square};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);
    pub const DARK_SQUARES: Bitboard = Bitboard(0xaa55_aa55_aa55_aa55);
    pub const LIGHT_SQUARES: Bitboard = Bitboard(!0xaa55_aa55_aa55_aa55);
    pub const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);
    pub const BACKRANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);
    pub const EDGES: Bitboard = Bitboard(0xff81_8181_8181_81ff);

    /// The set holding one square.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Every square of a file.
    #[inline]
    pub const fn from_file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file.index())
    }

    /// Every square of a rank.
    #[inline]
    pub const fn from_rank(rank: Rank) -> Bitboard {
        Bitboard(0xff << (8 * rank.index()))
    }

    /// Every square of the rank `rank` counted from `color`'s side.
    #[inline]
    pub const fn relative_rank(color: Color, rank: Rank) -> Bitboard {
        Bitboard::from_rank(rank.relative_to(color))
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// Exactly one square (as `count() == 1`, without counting: the
    /// crate is built for the baseline x86-64, whose population count is a
    /// dozen instructions).
    #[inline]
    pub const fn exactly_one(self) -> bool {
        self.0 != 0 && !self.more_than_one()
    }

    /// Exactly two squares (as `count() == 2`, without counting).
    #[inline]
    pub const fn exactly_two(self) -> bool {
        Bitboard(self.0 & self.0.wrapping_sub(1)).exactly_one()
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::from_index_unchecked(self.0.trailing_zeros())) }
    }

    /// The highest square, if any.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::from_index_unchecked(63 - self.0.leading_zeros())) }
    }

    /// The only square of a one-square set.
    #[inline]
    pub const fn single_square(self) -> Option<Square> {
        if self.0 != 0 && !self.more_than_one() { self.first() } else { None }
    }

    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1 << sq.index()))
    }

    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    #[inline]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    #[inline]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1 << sq.index();
    }

    /// Every square moved one rank towards `color`'s opponent (north for
    /// white); squares pushed off the board disappear.
    #[inline]
    #[must_use]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// The set mirrored top to bottom.
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }

    /// The squares of the set, lowest first.
    #[inline]
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest first.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::from_index_unchecked(self.0.trailing_zeros());
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline]
    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.add(sq);
        }
        bb
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $op:tt, $tra:ident, $fa:ident) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bitop!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
bitop!(BitOr, bitor, |, BitOrAssign, bitor_assign);
bitop!(BitXor, bitxor, ^, BitXorAssign, bitxor_assign);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                f.write_str(if self.contains(sq) { "1" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
