//! Time controls that cannot be misread: the human form always reads a bare
//! base in minutes and a bare bonus in seconds, the PGN form is read only
//! when marked `pgn:`, and the exported `TimeControl` tag is always PGN as
//! the standard (9.6.1) defines it (DEC-26).

use arbiter_chess::Color::{Black, White};
use arbiter_laws::time_control::{
    ACCEPTED_FORMS, Bonus, Period, TimeControl, TimeControlError as E, TimeControlTag,
};

const S: i64 = 1_000;
const M: i64 = 60_000;
const H: i64 = 60 * M;

fn simple(base_ms: i64, increment_ms: i64) -> TimeControl {
    TimeControl::new(vec![Period::rest_of_game(base_ms).with_bonus(Bonus::increment(increment_ms))]).unwrap()
}

fn sudden_death(base_ms: i64) -> TimeControl {
    TimeControl::new(vec![Period::rest_of_game(base_ms)]).unwrap()
}

fn text(t: &str) -> TimeControl {
    TimeControl::parse_text(t).unwrap_or_else(|e| panic!("{t:?}: {e}"))
}

#[test]
fn a_bare_base_is_minutes_and_a_bare_bonus_seconds_whatever_the_numbers() {
    for (t, base, inc) in [
        ("5+3", 5 * M, 3 * S),
        ("5|3", 5 * M, 3 * S),
        ("5 | 3", 5 * M, 3 * S),
        ("10|5", 10 * M, 5 * S),
        ("1+0", M, 0),
        ("3+2", 3 * M, 2 * S),
        ("90+30", 90 * M, 30 * S),
        // Large numbers are still minutes: no guessing of the unit.
        ("120+0", 120 * M, 0),
        ("180+2", 180 * M, 2 * S),
        ("300+3", 300 * M, 3 * S),
    ] {
        assert_eq!(text(t), simple(base, inc), "{t}");
        assert_eq!(TimeControl::parse_human(t).unwrap(), simple(base, inc), "{t}");
    }
    assert_eq!(text("90"), sudden_death(90 * M));
    assert_eq!(text("600"), sudden_death(600 * M));
    // `5|3` is the same control as `5+3` for both colours, never W 5', B 3'.
    let tc = text("5|3");
    assert!(tc.is_symmetric());
    assert_eq!(tc.initial_ms(White), tc.initial_ms(Black));
}

#[test]
fn other_units_only_when_written() {
    for (t, base, inc) in [
        ("90s+0", 90 * S, 0),
        ("90s+0s", 90 * S, 0),
        ("1h30+30s", 90 * M, 30 * S),
        ("1h30m+30s", 90 * M, 30 * S),
        ("1h 30m + 30s", 90 * M, 30 * S),
        ("1H30M+30S", 90 * M, 30 * S),
        ("2h", 2 * H, 0),
        ("2m30+1", 150 * S, S),
        ("2m30s+1", 150 * S, S),
        ("1h0m30s+0", H + 30 * S, 0),
        ("90'+30\"", 90 * M, 30 * S),
        ("90'+30''", 90 * M, 30 * S),
        ("90 min + 30 sec", 90 * M, 30 * S),
        ("90 minutes + 30 seconds", 90 * M, 30 * S),
        ("1 hour + 30 secs", H, 30 * S),
        ("2 hours", 2 * H, 0),
        ("15mins+10secs", 15 * M, 10 * S),
        ("0.5+0", 30 * S, 0),
        ("3+500ms", 3 * M, 500),
        ("1500ms+1s", 1500, S),
    ] {
        let tc = TimeControl::parse_human(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        let expected = if t.contains('+') { simple(base, inc) } else { sudden_death(base) };
        assert_eq!(tc, expected, "{t}");
    }
}

#[test]
fn periods_delays_and_colours_in_the_human_form() {
    let classical = text("pgn:40/5400+30:1800+30");
    assert_eq!(text("40/90+30, 30+30"), classical);
    assert_eq!(text("40/90m+30s, 30m+30s"), classical);
    assert_eq!(text("40/1h30+30, 30+30"), classical);
    assert_eq!(text("40/2h, 20/1h, 15m+30s"), text("pgn:40/7200:20/3600:900+30"));
    assert_eq!(text("5 d3"), text("pgn:300d3"));
    assert_eq!(text("5m D3s"), text("pgn:300d3"));
    assert_eq!(text("5 b3"), text("pgn:300b3"));
    let armageddon = text("pgn:300+2@61|240+2@61");
    assert_eq!(text("White 5+2@61; Black 4+2@61"), armageddon);
    assert_eq!(text("white: 5m+2s@61 ; BLACK: 4m+2s@61"), armageddon);
    assert_eq!(armageddon.to_human(), "White 5m+2s@61; Black 4m+2s@61");
    // Every canonical human form reads back as the same control.
    for tc in [classical, armageddon, text("5 d3"), text("1h30+30s"), text("90s+0")] {
        assert_eq!(text(&tc.to_human()), tc, "{}", tc.to_human());
    }
}

#[test]
fn the_pgn_form_is_read_only_when_marked() {
    assert_eq!(text("pgn:300+3"), simple(5 * M, 3 * S));
    assert_eq!(text("PGN: 300+3"), simple(5 * M, 3 * S));
    assert_eq!(text(" pgn:5+3 "), simple(5 * S, 3 * S));
    assert_eq!(text("pgn:5400"), sudden_death(90 * M));
    assert_eq!(text("pgn:300d3"), text("5 d3"));
    // Unmarked PGN that the human form cannot read: refused, with the mark
    // to add.
    for t in ["40/5400+30:1800+30", "300+2@61|240+2@61", "40/5400:1800", "2.5+0.1|60"] {
        let e = TimeControl::parse_text(t).unwrap_err();
        assert_eq!(e, E::UnmarkedPgn { text: t.to_owned() }, "{t}");
        assert!(e.to_string().contains(&format!("pgn:{t}")), "{e}");
    }
    // The marked text follows the PGN grammar: no human units.
    assert!(TimeControl::parse_text("pgn:90m+30s").is_err());
    assert_eq!(TimeControl::parse_text("pgn:?"), Err(E::NotPlayable { tag: "?".into() }));
}

#[test]
fn ambiguous_or_wrong_text_is_refused_with_a_specific_error() {
    for (t, err) in [
        ("", E::Empty),
        ("5+1m", E::BonusUnit { at: 3 }),
        ("5|3m", E::BonusUnit { at: 3 }),
        ("5m | 4m", E::BonusUnit { at: 6 }),
        ("90+1h", E::BonusUnit { at: 4 }),
        ("1s30", E::UnitOrder { at: 2 }),
        ("30m1h", E::UnitOrder { at: 3 }),
        ("1m2m", E::UnitOrder { at: 2 }),
        ("5; 4", E::ColourLabels { at: 0 }),
        ("White 5; 4", E::ColourLabels { at: 9 }),
        ("White 5+2 Black 4+2", E::ColourLabels { at: 0 }),
        ("White 5; Black 4; White 3", E::ColourLabels { at: 16 }),
        ("blitz", E::ExpectedNumber { at: 0 }),
        ("5 + 3 days", E::TrailingGarbage { at: 6, found: 'd' }),
        ("0+0", E::ZeroLengthPeriod { period: 0 }),
        ("101h", E::BaseTooLarge { period: 0, ms: 101 * H }),
    ] {
        assert_eq!(TimeControl::parse_text(t), Err(err.clone()), "{t:?}");
    }
}

#[test]
fn every_example_of_the_accepted_forms_is_accepted() {
    let examples: Vec<&str> = ACCEPTED_FORMS.split('`').skip(1).step_by(2).collect();
    assert!(examples.len() >= 10, "{examples:?}");
    for e in examples {
        assert!(TimeControl::parse_text(e).is_ok(), "{e}: {:?}", TimeControl::parse_text(e));
    }
}

/// The `TimeControl` tag grammar of the PGN standard, 9.6.1: `?`, `-`, or
/// descriptors separated by `:`, each `*seconds`, `moves/seconds`,
/// `seconds` or `seconds+increment` (and `moves/seconds+increment`, which
/// the FIDE control `40/5400+30:1800+30` needs and every reader accepts),
/// all whole numbers.
fn is_standard_pgn_tag(tag: &str) -> bool {
    fn int(s: &str) -> bool {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
    }
    fn descriptor(d: &str) -> bool {
        if let Some(r) = d.strip_prefix('*') {
            return int(r);
        }
        let rest = match d.split_once('/') {
            Some((moves, rest)) if int(moves) => rest,
            Some(_) => return false,
            None => d,
        };
        match rest.split_once('+') {
            Some((base, inc)) => int(base) && int(inc),
            None => int(rest),
        }
    }
    tag == "?" || tag == "-" || tag.split(':').all(descriptor)
}

#[test]
fn the_grammar_check_itself_rejects_the_extensions() {
    for bad in ["1m+0s", "300d3", "300b3", "300+2@61", "300|240", "2.5+0.1", "", "40/", "+3", "40/5400+30:"] {
        assert!(!is_standard_pgn_tag(bad), "{bad}");
    }
    for good in ["?", "-", "40/9000", "300+3", "*180", "4500+60", "40/5400+30:1800+30", "40/7200:3600"] {
        assert!(is_standard_pgn_tag(good), "{good}");
    }
}

#[test]
fn dec_26_every_exported_tag_is_standard_pgn() {
    for (given, tag, exact) in [
        ("1+0", "60+0", true),
        ("5+3", "300+3", true),
        ("90+30", "5400+30", true),
        ("90", "5400", true),
        ("40/90+30, 30+30", "40/5400+30:1800+30", true),
        ("40/2h, 20/1h, 15m+30s", "40/7200:20/3600:900+30", true),
        ("40/2h", "40/7200", true),
        // A delay: the base alone, which the clock never exceeds.
        ("5 d3", "300", false),
        ("5 b3", "300", false),
        ("40/90 d30, 30 b30", "40/5400:1800", false),
        // An increment from a later move is left out.
        ("5+2@61", "300", false),
        // Different controls per colour: unknown.
        ("White 5+2@61; Black 4+2@61", "?", false),
        ("White 5; Black 4", "?", false),
        // Fractions of a second are rounded down.
        ("90.5s+0.5", "90+0", false),
        ("1500ms+1s", "1+1", false),
    ] {
        let tc = text(given);
        assert_eq!(tc.to_standard_pgn(), tag, "{given}");
        assert!(is_standard_pgn_tag(&tc.to_standard_pgn()), "{given}: {}", tc.to_standard_pgn());
        assert_eq!(tc.standard_pgn_is_exact(), exact, "{given}");
        if exact {
            assert_eq!(tc.to_pgn(), tag);
            assert_eq!(TimeControl::from_pgn(tag).unwrap(), tc);
        }
        // What the tag cannot say is in the service's own form, which
        // reads back as the same control.
        assert_eq!(text(&format!("pgn:{}", tc.to_pgn())), tc);
        // The standard tag is itself a tag the PGN reader accepts.
        assert!(TimeControlTag::parse(&tc.to_standard_pgn()).is_ok(), "{given}");
    }
}

#[test]
fn text_that_is_not_ascii_gives_errors_not_panics() {
    for t in ["abcé", "pgné", "é", "5+3é", "pgn:é", "White é; Black 5", "1h30é", "５+３"] {
        assert!(TimeControl::parse_text(t).is_err(), "{t}");
    }
    assert_eq!(arbiter_laws::time_control::strip_pgn_prefix(" PGN: 300+3 "), Some("300+3"));
    assert_eq!(arbiter_laws::time_control::strip_pgn_prefix("abcé"), None);
}

#[test]
fn random_text_never_panics_and_what_is_read_reads_back() {
    const PIECES: &[&str] = &[
        "0", "1", "5", "40", "90", "180", "300", "+", "|", "/", ",", ";", ":", " ", "h", "m", "s", "ms", "'",
        "\"", "d", "b", "@", "61", ".", "5", "pgn:", "White ", "Black ", "min", "sec", "é", "-", "*", "?",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).unwrap()
    };
    for _ in 0..20_000 {
        let len = 1 + next(8);
        let t: String = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
        if let Ok(tc) = TimeControl::parse_text(&t) {
            assert_eq!(TimeControl::parse_text(&tc.to_human()).as_ref(), Ok(&tc), "{t:?}");
            assert_eq!(TimeControl::from_pgn(&tc.to_pgn()).as_ref(), Ok(&tc), "{t:?}");
        }
    }
}
