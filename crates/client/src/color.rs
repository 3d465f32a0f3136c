//! The two sides, as the client's calls take them.
//!
//! The client has its own two-valued `Color` rather than the rules core's:
//! a service that only talks to Arbiter should not build the chess engine
//! (its attack tables are generated at compile time) to name a side. The
//! proto's `pb::Color` has a third value, `COLOR_UNSPECIFIED`, which the
//! calls express as `None`.

use std::fmt;
use std::str::FromStr;

use arbiter_proto::v1 as pb;

/// White or Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// The side that moves first.
    White,
    /// The other side.
    Black,
}

impl Color {
    /// The lowercase English name: `white` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The proto enum value.
    pub const fn to_proto(self) -> pb::Color {
        match self {
            Color::White => pb::Color::White,
            Color::Black => pb::Color::Black,
        }
    }

    /// The colour of a proto enum value (`None` for unspecified or an
    /// unknown number).
    pub fn from_proto(value: i32) -> Option<Color> {
        match pb::Color::try_from(value) {
            Ok(pb::Color::White) => Some(Color::White),
            Ok(pb::Color::Black) => Some(Color::Black),
            _ => None,
        }
    }
}

impl From<Color> for pb::Color {
    fn from(color: Color) -> pb::Color {
        color.to_proto()
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

    /// `white`, `black`, `w` or `b`, in any case.
    fn from_str(s: &str) -> Result<Color, ParseColorError> {
        match s.to_ascii_lowercase().as_str() {
            "w" | "white" => Ok(Color::White),
            "b" | "black" => Ok(Color::Black),
            _ => Err(ParseColorError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_proto_values() {
        assert_eq!("White".parse::<Color>(), Ok(Color::White));
        assert_eq!("b".parse::<Color>(), Ok(Color::Black));
        assert_eq!(
            "red".parse::<Color>().unwrap_err().to_string(),
            "expected a colour (white, black, w or b), got \"red\""
        );
        assert_eq!(Color::Black.to_string(), "black");
        assert_eq!(pb::Color::from(Color::White), pb::Color::White);
        for color in [Color::White, Color::Black] {
            assert_eq!(Color::from_proto(color.to_proto() as i32), Some(color));
        }
        assert_eq!(Color::from_proto(pb::Color::Unspecified as i32), None);
        assert_eq!(Color::from_proto(17), None);
    }
}
