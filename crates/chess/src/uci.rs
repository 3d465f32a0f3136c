//! UCI move notation (`e2e4`, `e7e8q`), with castling as `e1g1` in standard
//! chess and king-takes-rook (`e1h1`) in Chess960.

use std::fmt;

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{CastlingMode, Move, Role, Square};

/// A move written in UCI notation, stored inline (at most 5 characters).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UciText {
    bytes: [u8; 5],
    len: u8,
}

impl UciText {
    /// The UCI text of `m` as played in `pos` (castling depends on the mode).
    pub fn from_move(pos: &Position, m: Move) -> UciText {
        let to = match (m.castling_side(), pos.castling_mode()) {
            (Some(_), CastlingMode::Standard) => m.king_or_piece_to(),
            _ => m.to(),
        };
        let from = m.from();
        let mut bytes = [
            from.file().char() as u8,
            from.rank().char() as u8,
            to.file().char() as u8,
            to.rank().char() as u8,
            0,
        ];
        let mut len = 4;
        if let Some(role) = m.promotion_role() {
            bytes[4] = role.char() as u8;
            len = 5;
        }
        UciText { bytes, len }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // The bytes are ASCII letters and digits by construction.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("????")
    }
}

impl fmt::Display for UciText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for UciText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// Why a UCI move was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    #[error("{0:?} is not a UCI move (expected from and to squares, e.g. e2e4 or e7e8q)")]
    Syntax(String),
    #[error("{0} is not a legal move in this position")]
    Illegal(String),
}

/// A syntactically valid UCI move, not yet checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UciMove {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl std::str::FromStr for UciMove {
    type Err = UciError;
    fn from_str(s: &str) -> Result<UciMove, UciError> {
        let bad = || UciError::Syntax(s.to_owned());
        if !(s.len() == 4 || s.len() == 5) || !s.is_ascii() {
            return Err(bad());
        }
        let from: Square = s[0..2].parse().map_err(|_| bad())?;
        let to: Square = s[2..4].parse().map_err(|_| bad())?;
        let promotion = match s.as_bytes().get(4) {
            None => None,
            Some(&c) => match Role::from_char(c as char) {
                Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen))
                    if (c as char).is_ascii_lowercase() =>
                {
                    Some(r)
                }
                _ => return Err(bad()),
            },
        };
        if from == to {
            return Err(bad());
        }
        Ok(UciMove { from, to, promotion })
    }
}

impl UciMove {
    /// The legal move this denotes in `pos`.
    ///
    /// In standard chess castling may be written `e1g1` or `e1h1`; in Chess960
    /// only as king-takes-rook, so that a king step is never mistaken for
    /// castling (FIDE Guidelines II, DEC-13).
    ///
    /// # Errors
    /// [`UciError::Illegal`] if no legal move matches.
    pub fn to_move(&self, pos: &Position) -> Result<Move, UciError> {
        let candidates = pos.legal_moves_filtered(Bitboard::from_square(self.from), Bitboard::FULL);
        let found = candidates.iter().copied().find(|m| {
            if m.promotion_role() != self.promotion {
                return false;
            }
            if m.is_castle() {
                m.to() == self.to
                    || (pos.castling_mode() == CastlingMode::Standard && m.king_or_piece_to() == self.to)
            } else {
                m.to() == self.to
            }
        });
        found.ok_or_else(|| {
            let text = match self.promotion {
                Some(r) => format!("{}{}{}", self.from, self.to, r.char()),
                None => format!("{}{}", self.from, self.to),
            };
            UciError::Illegal(text)
        })
    }
}

impl Position {
    /// Reads a move in UCI notation and checks that it is legal here.
    ///
    /// # Errors
    /// [`UciError::Syntax`] for malformed text, [`UciError::Illegal`] for a
    /// move that is not legal in this position.
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciError> {
        text.parse::<UciMove>()?.to_move(self)
    }

    /// The UCI text of a move in this position.
    pub fn uci(&self, m: Move) -> UciText {
        UciText::from_move(self, m)
    }
}
