//! `serde` support (feature `serde`): compact, human-readable forms that are
//! validated on the way back in.
//!
//! - [`Color`], [`Role`], [`CastlingMode`]: lowercase names.
//! - [`Square`]: its name (`"e4"`).
//! - [`Piece`]: `{ "color": "white", "role": "knight" }`.
//! - [`Move`]: its 16-bit encoding ([`Move::to_u16`]).
//! - [`Position`]: `{ "fen": ..., "chess960": bool }`; read back with
//!   [`Strictness::Irregular`] (odd but playable positions, and those an
//!   illegal move that stood leaves, are allowed), so every position this
//!   crate can hold round-trips.
//! - [`GameRecord`]: the start position, the moves, and which of them were
//!   illegal moves that stood (`irregular`, left out when empty); read back
//!   by playing every move, so a move that cannot be played is an error,
//!   never a corrupt record.

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::fen::{FenOptions, Strictness};
use crate::game::GameRecord;
use crate::position::Position;
use crate::types::{CastlingMode, Color, Move, Piece, Role, Square};

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Role, D::Error> {
        let s = String::deserialize(d)?;
        Role::from_name(&s).ok_or_else(|| de::Error::custom(format!("unknown piece kind {s:?}")))
    }
}

impl Serialize for Piece {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Piece", 2)?;
        st.serialize_field("color", &self.color)?;
        st.serialize_field("role", &self.role)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Piece {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Piece, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            color: Color,
            role: Role,
        }
        let Fields { color, role } = Fields::deserialize(d)?;
        Ok(Piece { color, role })
    }
}

impl Serialize for CastlingMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            CastlingMode::Standard => "standard",
            CastlingMode::Chess960 => "chess960",
        })
    }
}

impl<'de> Deserialize<'de> for CastlingMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CastlingMode, D::Error> {
        match String::deserialize(d)?.as_str() {
            "standard" => Ok(CastlingMode::Standard),
            "chess960" => Ok(CastlingMode::Chess960),
            other => Err(de::Error::custom(format!("unknown castling mode {other:?}"))),
        }
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        String::deserialize(d)?.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.to_u16())
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        // Legality is checked where a move is played (a game record replays
        // its moves); here only the encoding must be one a move can have.
        let bits = u16::deserialize(d)?;
        Move::from_u16(bits).ok_or_else(|| de::Error::custom(format!("{bits:#06x} encodes no move")))
    }
}

#[derive(Serialize, Deserialize)]
struct PositionRepr {
    fen: String,
    chess960: bool,
}

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Position", 2)?;
        st.serialize_field("fen", &self.fen())?;
        st.serialize_field("chess960", &(self.castling_mode() == CastlingMode::Chess960))?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        let r = PositionRepr::deserialize(d)?;
        position_from(&r.fen, r.chess960).map_err(de::Error::custom)
    }
}

fn position_from(fen: &str, chess960: bool) -> Result<Position, crate::FenError> {
    // The reader picks Chess960 notation whenever the rights need it.
    Position::from_fen_with(fen, FenOptions { chess960, strictness: Strictness::Irregular })
}

#[derive(Serialize, Deserialize)]
struct RecordRepr {
    start: Position,
    moves: Vec<Move>,
    /// Indices into `moves` of the illegal moves that stood, ascending.
    #[serde(default)]
    irregular: Vec<usize>,
}

impl Serialize for GameRecord {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let irregular = self.irregular_moves();
        let mut st = s.serialize_struct("GameRecord", 2 + usize::from(!irregular.is_empty()))?;
        st.serialize_field("start", self.start())?;
        st.serialize_field("moves", self.moves())?;
        // Records of legal moves only keep their old form.
        if !irregular.is_empty() {
            st.serialize_field("irregular", irregular)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for GameRecord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GameRecord, D::Error> {
        let r = RecordRepr::deserialize(d)?;
        if r.start.irregularity().is_some() {
            return Err(de::Error::custom("a game cannot start from an illegal position"));
        }
        if r.irregular.windows(2).any(|w| w[0] >= w[1])
            || r.irregular.last().is_some_and(|&i| i >= r.moves.len())
        {
            return Err(de::Error::custom("irregular move indices must ascend and name moves of the record"));
        }
        let mut record = GameRecord::new(r.start);
        for (i, m) in r.moves.into_iter().enumerate() {
            if r.irregular.binary_search(&i).is_ok() {
                record.push_irregular(m).map_err(|e| de::Error::custom(format!("move {}: {e}", i + 1)))?;
            } else {
                record.push(m).map_err(|e| de::Error::custom(format!("move {}: {e}", i + 1)))?;
            }
        }
        Ok(record)
    }
}
