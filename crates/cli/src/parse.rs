//! What people type on the command line besides names: durations,
//! squares, promotion pieces. (Game names and colours are the client's,
//! [`arbiter_client::parse`].)

use arbiter_client::{Error, pb};

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

/// `1h30m`, `2m 30s`, `1.5s`, `500ms`, `10min`: humantime's units (ms, s,
/// m or min, h, and longer), to the millisecond.
fn with_units_ms(text: &str) -> Option<i64> {
    // humantime reads `M` as months; on a clock it can only mean minutes.
    let text = text.replace('M', "m");
    let d = humantime::parse_duration(&text).ok()?;
    i64::try_from(d.as_millis()).ok()
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
    fn broadcast_delays() {
        assert_eq!(broadcast_delay("15m"), Ok(900));
        assert_eq!(broadcast_delay("0s"), Ok(0));
        assert_eq!(broadcast_delay("24h"), Ok(86_400));
        for bad in ["900", "1.5s", "-1m", "25h", "soon"] {
            assert!(broadcast_delay(bad).is_err(), "{bad}");
        }
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
        assert_eq!(duration_ms("10M").unwrap(), 600_000);
        assert_eq!(duration_ms("1h 2m 3.5s").unwrap(), 3_723_500);
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
    fn squares_and_pieces() {
        assert_eq!(piece_role("Q").unwrap(), pb::PieceRole::Queen);
        assert_eq!(piece_role("knight").unwrap(), pb::PieceRole::Knight);
        assert!(piece_role("x").is_err());
        assert_eq!(square("E4").unwrap().to_string(), "e4");
        assert!(square("i9").is_err());
    }
}

/// Points in half-points: `1`, `-1/2`, `+1.5`, `½`, `-2½`.
///
/// # Errors
/// In words, for clap.
pub fn half_points(text: &str) -> Result<i32, String> {
    let bad = || format!("{text:?} is not a number of points (`1`, `-1/2`, `+1.5`)");
    let t = text.trim();
    let (sign, t) = match t.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let (whole, half) = if let Some(w) = t.strip_suffix("1/2").or_else(|| t.strip_suffix('½')) {
        (w.trim_end(), 1)
    } else if let Some(w) = t.strip_suffix(".5") {
        (w, 1)
    } else {
        (t.strip_suffix(".0").unwrap_or(t), 0)
    };
    let whole: i32 = if whole.is_empty() && half == 1 { 0 } else { whole.parse().map_err(|_| bad())? };
    if !(0..=100).contains(&whole) {
        return Err(bad());
    }
    Ok(sign * (whole * 2 + half))
}

/// The tie-break acronyms of C.07 and their kinds on the wire.
const TIE_BREAKS: [(&str, pb::TieBreakKind); 20] = [
    ("DE", pb::TieBreakKind::DirectEncounter),
    ("WIN", pb::TieBreakKind::Wins),
    ("WON", pb::TieBreakKind::GamesWon),
    ("BPG", pb::TieBreakKind::GamesWithBlack),
    ("BWG", pb::TieBreakKind::WinsWithBlack),
    ("PS", pb::TieBreakKind::ProgressiveScores),
    ("REP", pb::TieBreakKind::RoundsElectedToPlay),
    ("STD", pb::TieBreakKind::StandardPoints),
    ("TPN", pb::TieBreakKind::TournamentPairingNumber),
    ("BH", pb::TieBreakKind::Buchholz),
    ("AOB", pb::TieBreakKind::AverageOfOpponentsBuchholz),
    ("FB", pb::TieBreakKind::ForeBuchholz),
    ("SB", pb::TieBreakKind::SonnebornBerger),
    ("KS", pb::TieBreakKind::Koya),
    ("ARO", pb::TieBreakKind::AverageRatingOfOpponents),
    ("TPR", pb::TieBreakKind::TournamentPerformanceRating),
    ("PTP", pb::TieBreakKind::PerfectTournamentPerformance),
    ("APRO", pb::TieBreakKind::AveragePerformanceRatingOfOpponents),
    ("APPO", pb::TieBreakKind::AveragePerfectPerformanceOfOpponents),
    ("RTNG", pb::TieBreakKind::Rating),
];

/// One tie-break: `BH`, `BH/C1` (Cut-1), `SB/M1` (Median-1), `KS/L+1`
/// (limit in half-points), in any case.
///
/// # Errors
/// In words, for clap.
pub fn tie_break(text: &str) -> Result<pb::TieBreak, String> {
    let upper = text.trim().to_ascii_uppercase();
    let (acronym, modifier) = upper.split_once('/').unwrap_or((upper.as_str(), ""));
    let kind = TIE_BREAKS.iter().find(|(a, _)| *a == acronym).map(|(_, k)| *k).ok_or_else(|| {
        let known: Vec<&str> = TIE_BREAKS.iter().map(|(a, _)| *a).collect();
        format!("{text:?} is not a tie-break of C.07 (one of {})", known.join(", "))
    })?;
    let mut tb = pb::TieBreak { kind: kind as i32, ..pb::TieBreak::default() };
    let number =
        |digits: &str| digits.parse::<i32>().map_err(|_| format!("{text:?}: bad modifier {modifier:?}"));
    if let Some(n) = modifier.strip_prefix('C') {
        tb.cut = number(n)?;
    } else if let Some(n) = modifier.strip_prefix('M') {
        tb.median = number(n)?;
    } else if let Some(n) = modifier.strip_prefix('L') {
        tb.koya_limit_halves = number(n.strip_prefix('+').unwrap_or(n))?;
    } else if !modifier.is_empty() {
        return Err(format!("{text:?}: a modifier is /C<n> (Cut), /M<n> (Median) or /L<n> (KS limit)"));
    }
    Ok(tb)
}

/// A comma-separated list of tie-breaks.
///
/// # Errors
/// The first that is not one.
pub fn tie_breaks(text: &str) -> Result<Vec<pb::TieBreak>, String> {
    text.split(',').filter(|t| !t.trim().is_empty()).map(tie_break).collect()
}

/// A broadcast delay in whole seconds: a duration with a unit (`0s`, `15m`,
/// `1h`), at most a day.
///
/// # Errors
/// In words, for clap: a bare number (seconds or milliseconds?), a fraction
/// of a second, a negative or too long delay.
pub fn broadcast_delay(text: &str) -> Result<i32, String> {
    let t = text.trim();
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{t:?} needs a unit: 0s, 900s, 15m, 30m"));
    }
    let ms = duration_ms(t).map_err(|e| e.message())?;
    if ms % 1000 != 0 || !(0..=86_400_000).contains(&ms) {
        return Err(format!("{t:?}: a delay is whole seconds from 0s to 24h"));
    }
    i32::try_from(ms / 1000).map_err(|e| e.to_string())
}

/// `win,draw,loss` in half-points (`2,1,0` is Law 10.1; `6,2,0` is 3-1-0).
///
/// # Errors
/// In words, for clap.
pub fn scoring(text: &str) -> Result<pb::Scoring, String> {
    let values: Vec<i32> = text
        .split(',')
        .map(|v| v.trim().parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{text:?}: give win,draw,loss in half-points, e.g. 6,2,0"))?;
    let [win, draw, loss] = values[..] else {
        return Err(format!("{text:?}: give three values, win,draw,loss"));
    };
    Ok(pb::Scoring {
        win_halves: win,
        draw_halves: draw,
        loss_halves: loss,
        forfeit_win_halves: win,
        forfeit_loss_halves: loss,
        pairing_allocated_bye_halves: win,
        full_point_bye_halves: win,
        half_point_bye_halves: draw,
        zero_point_bye_halves: 0,
        custom: true,
    })
}

#[cfg(test)]
mod event_tests {
    use super::*;

    #[test]
    fn points_and_tie_breaks_read_as_arbiters_write_them() {
        assert_eq!(half_points("-1/2"), Ok(-1));
        assert_eq!(half_points("+1.5"), Ok(3));
        assert_eq!(half_points("2½"), Ok(5));
        assert_eq!(half_points("1"), Ok(2));
        assert!(half_points("x").is_err());
        let tb = tie_breaks("bh/c1, SB/M1,KS/L+1,DE").unwrap();
        assert_eq!(
            tb[0],
            pb::TieBreak { kind: pb::TieBreakKind::Buchholz as i32, cut: 1, ..Default::default() }
        );
        assert_eq!(tb[1].median, 1);
        assert_eq!(tb[2].koya_limit_halves, 1);
        assert_eq!(tb[3].kind, pb::TieBreakKind::DirectEncounter as i32);
        assert!(tie_break("BX").unwrap_err().contains("not a tie-break"));
        assert_eq!(scoring("6,2,0").unwrap().win_halves, 6);
    }
}
