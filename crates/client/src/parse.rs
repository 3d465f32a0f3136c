//! The names the calls take: games (`abc` or `games/abc`) and colours.

use arbiter_proto::v1 as pb;

use crate::{Color, Error};

/// The resource name of a game: `abc` and `games/abc` both give
/// `games/abc`. Surrounding white space is ignored.
///
/// # Errors
/// [`Error::Invalid`] for an empty id, or one with `/` or white space in it.
pub fn game_name(text: &str) -> Result<String, Error> {
    let id = game_id(text)?;
    Ok(format!("games/{id}"))
}

/// The id of a game: `abc` for `abc` or `games/abc`.
///
/// # Errors
/// As [`game_name`].
pub fn game_id(text: &str) -> Result<String, Error> {
    let text = text.trim();
    let id = text.strip_prefix("games/").unwrap_or(text);
    if id.is_empty() {
        return Err(Error::invalid("game", "the game id is empty"));
    }
    if id.contains('/') || id.chars().any(char::is_whitespace) {
        return Err(Error::invalid(
            "game",
            format!("{text:?} is not a game id (`abc`) or name (`games/abc`)"),
        ));
    }
    Ok(id.to_string())
}

/// [`game_name`] without validation, for names handed straight to the
/// service (which validates them): `abc` becomes `games/abc`.
pub fn normalize_game(text: &str) -> String {
    let text = text.trim();
    if text.starts_with("games/") { text.to_string() } else { format!("games/{text}") }
}

/// `events/x` for `x` or `events/x` (the server checks the id).
#[must_use]
pub fn event_name(text: &str) -> String {
    let text = text.trim();
    if text.starts_with("events/") { text.to_string() } else { format!("events/{text}") }
}

/// `events/x/rounds/3` for event `x` (or `events/x`) and round 3.
#[must_use]
pub fn round_name(event: &str, round: i32) -> String {
    format!("{}/rounds/{round}", event_name(event))
}

/// A colour: `white`, `black`, `w` or `b`, in any case.
///
/// # Errors
/// [`Error::Invalid`].
pub fn color(text: &str) -> Result<Color, Error> {
    text.trim().parse::<Color>().map_err(|e| Error::invalid("color", e.to_string()))
}

/// The proto enum value of a colour (`None` is unspecified).
pub fn color_to_proto(color: Option<Color>) -> pb::Color {
    color.map_or(pb::Color::Unspecified, Color::to_proto)
}

/// The colour of a proto enum value (`None` for unspecified or unknown).
pub fn color_from_proto(value: i32) -> Option<Color> {
    Color::from_proto(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names() {
        assert_eq!(game_name("abc").unwrap(), "games/abc");
        assert_eq!(game_name("games/abc").unwrap(), "games/abc");
        assert_eq!(game_name("  r3-b12 ").unwrap(), "games/r3-b12");
        assert_eq!(game_id("games/abc").unwrap(), "abc");
        assert!(game_name("").is_err());
        assert!(game_name("games/").is_err());
        assert!(game_name("games/a/b").is_err());
        assert!(game_name("a b").is_err());
        assert_eq!(normalize_game("x"), "games/x");
        assert_eq!(normalize_game("games/x"), "games/x");
    }

    #[test]
    fn colours() {
        assert_eq!(color("white").unwrap(), Color::White);
        assert_eq!(color("B").unwrap(), Color::Black);
        assert_eq!(color(" Black ").unwrap(), Color::Black);
        assert!(color("red").is_err());
        assert_eq!(color_to_proto(Some(Color::Black)), pb::Color::Black);
        assert_eq!(color_to_proto(None), pb::Color::Unspecified);
        assert_eq!(color_from_proto(pb::Color::White as i32), Some(Color::White));
        assert_eq!(color_from_proto(0), None);
        assert_eq!(color_from_proto(17), None);
    }
}
