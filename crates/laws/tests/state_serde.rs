//! The whole game state is serialisable: a game written out and read back is
//! the same game, and goes on the same way.

use arbiter_chess::Color;
use arbiter_laws::event::{ClaimKind, Event, MoveInput, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::EndCause;
use arbiter_laws::time_control::TimeControl;

fn mi(uci: &str) -> MoveInput {
    MoveInput::from_uci(uci).unwrap()
}

fn round_trip(g: &Game) -> Game {
    let json = serde_json::to_string(g).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

#[test]
fn a_game_in_progress_round_trips() {
    let mut r = Regulations::new(TimeControl::parse_human("40/90m+30s, 30m+30s").unwrap());
    r.cn_draw_alternation = true;
    r.default_time_ms = Some(600_000);
    let mut g = Game::new(r).unwrap();
    let events = [
        (Event::Start, 0),
        (Event::PlayerArrived { color: Color::White }, 10),
        (Event::MakeMove { color: Color::White, mv: mi("e2e4") }, 2_000),
        (Event::OfferDraw { color: Color::White }, 2_100),
        (Event::PressClock { color: Color::White, other_hand: false }, 2_200),
        (Event::DeclineDraw { color: Color::Black }, 5_000),
        (Event::Touch { color: Color::Black, square: "g8".parse().unwrap(), kind: TouchKind::Intent }, 6_000),
        // An illegal knight move, made but not completed.
        (Event::MakeMove { color: Color::Black, mv: mi("g8g6") }, 7_000),
    ];
    for (e, at) in &events {
        g.apply(e, *at).unwrap();
        let back = round_trip(&g);
        assert_eq!(back, g, "after {e:?}");
    }
    // The copy goes on exactly like the original.
    let mut copy = round_trip(&g);
    let more = [
        (Event::PressClock { color: Color::Black, other_hand: false }, 9_000),
        (Event::ClaimDraw { color: Color::Black, kind: ClaimKind::Threefold, intended: None }, 9_500),
        (Event::Tick, 700_000),
    ];
    for (e, at) in &more {
        let a = g.apply(e, *at);
        let b = copy.apply(e, *at);
        assert_eq!(a, b, "{e:?}");
        assert_eq!(copy, g);
    }
    assert!(g.is_over(), "Black never arrived within the default time");
}

#[test]
fn online_game_round_trips() {
    let mut r = Regulations::new(TimeControl::parse_human("3+2").unwrap());
    r.mode = Mode::Online;
    let mut g = Game::new(r).unwrap();
    g.apply(&Event::Start, 0).unwrap();
    g.apply(&Event::SubmitMove { color: Color::White, mv: mi("d2d4"), premove: false, lag_ms: 0 }, 1_000)
        .unwrap();
    g.apply(&Event::SubmitMove { color: Color::White, mv: mi("c2c4"), premove: true, lag_ms: 0 }, 1_500)
        .unwrap();
    assert_eq!(round_trip(&g), g);
}

#[test]
fn corrupt_state_is_an_error_not_a_panic() {
    let mut r = Regulations::new(TimeControl::parse_human("3+2").unwrap());
    r.mode = Mode::Online;
    let mut g = Game::new(r).unwrap();
    g.apply(&Event::Start, 0).unwrap();
    g.apply(&Event::SubmitMove { color: Color::White, mv: mi("d2d4"), premove: false, lag_ms: 0 }, 1_000)
        .unwrap();
    let json = serde_json::to_string(&g).unwrap();
    // An illegal move in the record, an unknown rule id, a bad time control.
    let d2d4 = arbiter_chess::Position::startpos().parse_uci("d2d4").unwrap().to_u16();
    let e2e5 = arbiter_chess::Move::normal("e2".parse().unwrap(), "e5".parse().unwrap()).to_u16();
    for bad in [
        json.replace(&format!("[{d2d4}]"), &format!("[{e2e5}]")),
        json.replace("\"180+2\"", "\"180+\""),
        "{}".to_owned(),
        json[..json.len() / 2].to_owned(),
    ] {
        assert_ne!(bad, json, "the corruption must change the text");
        assert!(serde_json::from_str::<Game>(&bad).is_err(), "{bad}");
    }

    // A finished game: its end names a rule id, read back only if known.
    g.apply(&Event::Resign { color: Color::Black }, 2_000).unwrap();
    let end = g.end().expect("resigned");
    assert_eq!((end.rule, end.cause), (RuleId::Fide5_1_2, EndCause::Resignation));
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.contains("\"rule\":\"FIDE-5.1.2\""), "{json}");
    assert_eq!(round_trip(&g), g);
    let bad = json.replace("\"FIDE-5.1.2\"", "\"FIDE-99.9\"");
    assert_ne!(bad, json);
    let err = serde_json::from_str::<Game>(&bad).unwrap_err();
    assert!(err.to_string().contains("unknown rule id \"FIDE-99.9\""), "{err}");
}

/// Games stored before `cn_grade_scoring` left the regulations keep it in
/// their stored JSON; they still load, and the field is ignored.
#[test]
fn regulations_stored_with_cn_grade_scoring_still_load() {
    let r = Regulations::new(TimeControl::parse_human("90m+30s").unwrap());
    let mut json: serde_json::Value = serde_json::to_value(&r).unwrap();
    assert!(json.get("cn_grade_scoring").is_none(), "{json}");
    for old in [false, true] {
        json["cn_grade_scoring"] = serde_json::Value::Bool(old);
        let back: Regulations =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(back, r);
    }
}

/// The move written with an incorrect claim (DEC-18) is part of the state:
/// it round-trips, and a state stored before it existed (no `written` key)
/// still loads; a state without one keeps the old shape.
#[test]
fn the_move_written_with_an_incorrect_claim_round_trips_and_old_states_load() {
    let mut g = Game::new(Regulations::new(TimeControl::parse_human("90+30").unwrap())).unwrap();
    g.apply(&Event::Start, 0).unwrap();
    for (i, (color, uci)) in
        [(Color::White, "g1f3"), (Color::Black, "g8f6"), (Color::White, "f3g1")].iter().enumerate()
    {
        let at = 1_000 * (i as i64 + 1);
        g.apply(&Event::MakeMove { color: *color, mv: mi(uci) }, at).unwrap();
        g.apply(&Event::PressClock { color: *color, other_hand: false }, at + 100).unwrap();
    }
    let before = serde_json::to_value(&g).unwrap();
    assert!(!before.to_string().contains("\"written\""), "{before}");
    g.apply(
        &Event::ClaimDraw { color: Color::Black, kind: ClaimKind::Threefold, intended: Some(mi("b8c6")) },
        5_000,
    )
    .unwrap();
    let mut json = serde_json::to_value(&g).unwrap();
    assert!(json["turn"].get("written").is_some(), "{json}");
    assert_eq!(round_trip(&g), g);
    // The same state as an older build wrote it: read back without the
    // written move, everything else equal.
    json["turn"].as_object_mut().unwrap().remove("written");
    let old: Game = serde_json::from_value(json).unwrap();
    assert_eq!(old.obligation(), g.obligation());
    assert_ne!(old, g);
}

/// A state written before the rulings revision, the clock count
/// corrections and postponed claims existed reads as a game of revision 1,
/// and a state with them round-trips.
#[test]
fn states_before_the_rulings_revision_read_as_revision_one() {
    let mut r = Regulations::new(TimeControl::from_pgn("5400").unwrap());
    r.guidelines_iii = true;
    let mut g = Game::new(r).unwrap();
    for (e, at) in [
        (Event::Start, 0),
        (Event::SetMoveCounter { color: Color::White, moves_completed: 30 }, 1),
        (Event::SetClock { color: Color::White, remaining_ms: 90_000 }, 2),
        (Event::ClaimNoWinningAttempt { color: Color::White }, 3),
        (Event::AnswerQuestion { id: 1, answer: arbiter_laws::event::Answer::Postpone }, 4),
    ] {
        g.apply(&e, at).unwrap();
    }
    assert_eq!(g.postponed_questions().len(), 1);
    let json = serde_json::to_value(&g).unwrap();
    assert_eq!(json["regs"]["rulings_revision"], 2, "{json}");
    assert!(json.get("clock_count_correction").is_some() && json.get("postponed").is_some(), "{json}");
    assert_eq!(round_trip(&g), g);
    let mut old = json;
    for (parent, key) in
        [(None, "clock_count_correction"), (None, "postponed"), (Some("regs"), "rulings_revision")]
    {
        let object = match parent {
            Some(p) => old[p].as_object_mut().unwrap(),
            None => old.as_object_mut().unwrap(),
        };
        assert!(object.remove(key).is_some(), "{key}");
    }
    let back: Game = serde_json::from_value(old).unwrap();
    assert_eq!(back.regulations().rulings_revision, Regulations::FIRST_RULINGS);
    assert!(back.postponed_questions().is_empty());
}
