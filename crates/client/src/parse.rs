//! Parsing of what people type: game names, colours, durations, results.

use arbiter_chess::Color;
use arbiter_proto::v1 as pb;

use crate::Error;

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

/// A colour: `white`, `black`, `w` or `b`, in any case.
///
/// # Errors
/// [`Error::Invalid`].
pub fn color(text: &str) -> Result<Color, Error> {
    text.trim().parse::<Color>().map_err(|e| Error::invalid("color", e.to_string()))
}

/// The proto enum value of a colour (`None` is unspecified).
pub fn color_to_proto(color: Option<Color>) -> pb::Color {
    match color {
        None => pb::Color::Unspecified,
        Some(Color::White) => pb::Color::White,
        Some(Color::Black) => pb::Color::Black,
    }
}

/// The colour of a proto enum value (`None` for unspecified or unknown).
pub fn color_from_proto(value: i32) -> Option<Color> {
    match pb::Color::try_from(value) {
        Ok(pb::Color::White) => Some(Color::White),
        Ok(pb::Color::Black) => Some(Color::Black),
        _ => None,
    }
}

/// A duration in milliseconds, signed.
///
/// Accepted: plain milliseconds (`1500`, `-250`); a number with a unit,
/// `ms`, `s`, `m` (or `min`), `h`, possibly several (`1h30m`, `2m30s`) and
/// with decimals (`1.5s`, `0.5m`); or a clock reading `M:SS` or `H:MM:SS`
/// (`5:00`, `1:30:00`), with optional tenths (`0:09.5`). A leading `+` or
/// `-` applies to the whole.
///
/// # Errors
/// [`Error::Invalid`] with what was expected.
pub fn duration_ms(text: &str) -> Result<i64, Error> {
    let bad = || {
        Error::invalid(
            "duration",
            format!("{text:?} is not a duration (examples: 90s, 2m, -30s, 1h30m, 5:00, 1500 for ms)"),
        )
    };
    let t = text.trim();
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let body = body.trim();
    if body.is_empty() {
        return Err(bad());
    }
    let ms = if body.contains(':') {
        clock_reading_ms(body).ok_or_else(bad)?
    } else if body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse::<i64>().map_err(|_| bad())?
    } else {
        with_units_ms(body).ok_or_else(bad)?
    };
    Ok(if negative { -ms } else { ms })
}

/// `M:SS`, `H:MM:SS`, with optional decimals on the seconds.
fn clock_reading_ms(text: &str) -> Option<i64> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let (last, rest) = parts.split_last()?;
    let seconds = decimal_ms(last, 1000)?;
    if !rest.is_empty() && seconds >= 60_000 {
        return None;
    }
    let mut total = seconds;
    let mut unit = 60_000i64;
    for (i, p) in rest.iter().rev().enumerate() {
        if !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i64 = p.parse().ok()?;
        // Minutes are below 60 only when hours are given.
        if i == 0 && rest.len() == 2 && v >= 60 {
            return None;
        }
        total = total.checked_add(v.checked_mul(unit)?)?;
        unit *= 60;
    }
    Some(total)
}

/// `1h30m`, `2m30s`, `1.5s`, `500ms`.
fn with_units_ms(text: &str) -> Option<i64> {
    let mut total = 0i64;
    let mut rest = text;
    while !rest.is_empty() {
        let number_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if number_len == 0 {
            return None;
        }
        let (number, after) = rest.split_at(number_len);
        let unit_len = after.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let scale = match unit.to_ascii_lowercase().as_str() {
            "ms" => 1,
            "s" | "sec" | "secs" => 1000,
            "m" | "min" | "mins" => 60_000,
            "h" | "hr" | "hrs" => 3_600_000,
            _ => return None,
        };
        total = total.checked_add(decimal_ms(number, scale)?)?;
        rest = after.trim_start();
    }
    Some(total)
}

/// `number × scale`, with up to three decimals, rounded to the millisecond.
fn decimal_ms(number: &str, scale: i64) -> Option<i64> {
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let mut value = whole.checked_mul(scale)?;
    // The fraction, exactly: digits / 10^len × scale, rounded.
    let frac = &frac[..frac.len().min(9)];
    if !frac.is_empty() {
        let digits: i64 = frac.parse().ok()?;
        let denominator = 10i64.pow(frac.len() as u32);
        value = value.checked_add((digits * scale + denominator / 2) / denominator)?;
    }
    Some(value)
}

/// A result the arbiter may declare: `1-0`, `0-1`, `1/2-1/2` (also `½-½`,
/// `draw`), `0-0`.
///
/// # Errors
/// [`Error::Invalid`].
pub fn declared_result(text: &str) -> Result<pb::DeclaredResult, Error> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1-0" | "white" => Ok(pb::DeclaredResult::WhiteWins),
        "0-1" | "black" => Ok(pb::DeclaredResult::BlackWins),
        "1/2-1/2" | "½-½" | "1/2" | "draw" | "=" => Ok(pb::DeclaredResult::Draw),
        "0-0" => Ok(pb::DeclaredResult::BothLose),
        _ => Err(Error::invalid("result", format!("{text:?} is not 1-0, 0-1, 1/2-1/2 or 0-0"))),
    }
}

/// A square name such as `e4`.
///
/// # Errors
/// [`Error::Invalid`].
pub fn square(text: &str) -> Result<arbiter_chess::Square, Error> {
    text.trim()
        .to_ascii_lowercase()
        .parse()
        .map_err(|e: arbiter_chess::types::ParseSquareError| Error::invalid("square", e.to_string()))
}

/// A piece for promotion: `q`, `queen`, `N`, `knight`...
///
/// # Errors
/// [`Error::Invalid`].
pub fn piece_role(text: &str) -> Result<pb::PieceRole, Error> {
    let t = text.trim().to_ascii_lowercase();
    let role = match t.as_str() {
        "q" | "queen" => pb::PieceRole::Queen,
        "r" | "rook" => pb::PieceRole::Rook,
        "b" | "bishop" => pb::PieceRole::Bishop,
        "n" | "knight" => pb::PieceRole::Knight,
        "k" | "king" => pb::PieceRole::King,
        "p" | "pawn" => pb::PieceRole::Pawn,
        _ => return Err(Error::invalid("piece", format!("{text:?} is not a piece (q, r, b, n)"))),
    };
    Ok(role)
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

    #[test]
    fn durations() {
        assert_eq!(duration_ms("90s").unwrap(), 90_000);
        assert_eq!(duration_ms("2m").unwrap(), 120_000);
        assert_eq!(duration_ms("-30s").unwrap(), -30_000);
        assert_eq!(duration_ms("+30s").unwrap(), 30_000);
        assert_eq!(duration_ms("1h").unwrap(), 3_600_000);
        assert_eq!(duration_ms("1500").unwrap(), 1500);
        assert_eq!(duration_ms("-250").unwrap(), -250);
        assert_eq!(duration_ms("1h30m").unwrap(), 5_400_000);
        assert_eq!(duration_ms("2m30s").unwrap(), 150_000);
        assert_eq!(duration_ms("2m 30s").unwrap(), 150_000);
        assert_eq!(duration_ms("1.5s").unwrap(), 1500);
        assert_eq!(duration_ms("0.5m").unwrap(), 30_000);
        assert_eq!(duration_ms("500ms").unwrap(), 500);
        assert_eq!(duration_ms("10min").unwrap(), 600_000);
        assert_eq!(duration_ms("5:00").unwrap(), 300_000);
        assert_eq!(duration_ms("1:30:00").unwrap(), 5_400_000);
        assert_eq!(duration_ms("0:09.5").unwrap(), 9_500);
        assert_eq!(duration_ms("-0:30").unwrap(), -30_000);
        for bad in ["", "-", "s", "2x", "1:", "1:60", "1:60:00", "m2", "1..5s", "1:2:3:4", "abc"] {
            assert!(duration_ms(bad).is_err(), "{bad:?} parsed");
        }
        let e = duration_ms("2x").unwrap_err();
        assert!(e.to_string().contains("90s"), "{e}");
    }

    #[test]
    fn results_and_pieces() {
        assert_eq!(declared_result("1-0").unwrap(), pb::DeclaredResult::WhiteWins);
        assert_eq!(declared_result("0-1").unwrap(), pb::DeclaredResult::BlackWins);
        assert_eq!(declared_result("1/2-1/2").unwrap(), pb::DeclaredResult::Draw);
        assert_eq!(declared_result("½-½").unwrap(), pb::DeclaredResult::Draw);
        assert_eq!(declared_result("0-0").unwrap(), pb::DeclaredResult::BothLose);
        assert!(declared_result("2-0").is_err());
        assert_eq!(piece_role("Q").unwrap(), pb::PieceRole::Queen);
        assert_eq!(piece_role("knight").unwrap(), pb::PieceRole::Knight);
        assert!(piece_role("x").is_err());
        assert_eq!(square("E4").unwrap().to_string(), "e4");
        assert!(square("i9").is_err());
    }
}
