//! The whole game state is serialisable: a game written out and read back is
//! the same game, and goes on the same way.

use arbiter_chess::Color;
use arbiter_laws::event::{ClaimKind, Event, MoveInput, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::ruling::{RULE_IDS, known_rule};
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
    assert!(known_rule("FIDE-99.9").is_none());
}

/// Every rule id literal in the sources is known to the deserialiser.
#[test]
fn every_rule_id_in_the_sources_is_known() {
    let sources = [
        include_str!("../src/game/mod.rs"),
        include_str!("../src/game/state.rs"),
        include_str!("../src/game/time.rs"),
        include_str!("../src/game/arbiter.rs"),
        include_str!("../src/game/setup.rs"),
        include_str!("../src/game/presence.rs"),
        include_str!("../src/game/touch.rs"),
        include_str!("../src/game/otb.rs"),
        include_str!("../src/game/completion.rs"),
        include_str!("../src/game/online.rs"),
        include_str!("../src/game/draws.rs"),
        include_str!("../src/game/quickplay.rs"),
        include_str!("../src/touch.rs"),
        include_str!("../src/ruling.rs"),
        include_str!("../src/regulations.rs"),
        include_str!("../src/event.rs"),
        include_str!("../../chess/src/game.rs"),
    ];
    let mut found = 0;
    for src in sources {
        for literal in src.split('"').skip(1).step_by(2) {
            let is_id = ["FIDE-", "OCR-", "CN-", "DEC-"].iter().any(|p| literal.starts_with(p))
                && literal.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            if is_id {
                found += 1;
                assert!(RULE_IDS.contains(&literal), "rule id {literal} is missing from RULE_IDS");
            }
        }
    }
    assert!(found > 50, "only {found} rule ids found in the sources");
}
