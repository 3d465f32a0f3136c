//! The API layer's conversions, each checked against the text it must give.

use std::collections::HashMap;

use arbiter_chess::{Color, FenOptions, Position, Role};
use arbiter_laws::event::{Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, TouchKind};
use arbiter_laws::regulations::{DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations};
use arbiter_laws::ruling::{Decision, GameEnd, GameResult, Ruling};
use arbiter_laws::scoring::Score;
use arbiter_laws::time_control::{Category, TimeControl};
use arbiter_proto::v1 as pb;

use super::Violation;
use super::describe::{self, format_duration, format_ms, game_result_text};
use super::to_proto::*;
use super::validate::*;
use crate::store::GameStatus;

/// An event's name, summary and facts.
fn event_to_proto_parts(e: &Event) -> (String, String, HashMap<String, String>) {
    let d = describe::event(e);
    (d.name.to_owned(), d.summary, d.facts)
}
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::EndCause;

fn regs(tc: &str) -> pb::Regulations {
    pb::Regulations { time_control: tc.to_owned(), ..Default::default() }
}

fn fields(errors: &[Violation]) -> Vec<&str> {
    errors.iter().map(|v| v.field.as_str()).collect()
}

const MIN: i64 = 60_000;

#[test]
fn time_control_text_is_minutes_and_seconds_whatever_the_numbers() {
    let tc = |t: &str| time_control_from_text("tc", t).unwrap_or_else(|e| panic!("{t}: {e}"));
    // Base and increment as written (`120+0` has an increment of 0).
    let simple = |base, inc| {
        use arbiter_laws::time_control::{Bonus, Period};
        TimeControl::new(vec![Period::rest_of_game(base).with_bonus(Bonus::increment(inc))]).unwrap()
    };
    assert_eq!(tc("90+30"), simple(90 * MIN, 30_000));
    assert_eq!(tc("3+2"), simple(3 * MIN, 2_000));
    // `5|3` is 5+3 for both players (it was White 5', Black 3').
    assert_eq!(tc("5|3"), simple(5 * MIN, 3_000));
    // No unit is guessed from the size of a number (`120+0` was two hours
    // but `180+2` three minutes).
    assert_eq!(tc("120+0"), simple(120 * MIN, 0));
    assert_eq!(tc("180+2"), simple(180 * MIN, 2_000));
    assert_eq!(tc("300+2"), simple(300 * MIN, 2_000));
    // Other units when written.
    assert_eq!(tc("90s+30s"), simple(90_000, 30_000));
    assert_eq!(tc("1h30+30s"), simple(90 * MIN, 30_000));
    // The PGN form when marked.
    assert_eq!(tc("pgn:5400+30"), simple(90 * MIN, 30_000));
    assert_eq!(tc("pgn:180+2"), simple(3 * MIN, 2_000));
    assert_eq!(tc("pgn:40/5400+30:1800+30"), tc("40/90m+30s, 30m+30s"));
    assert_eq!(tc(" 5m d3s "), tc("pgn:300d3"));
    assert_eq!(tc("White 5+2@61; Black 4+2@61"), tc("pgn:300+2@61|240+2@61"));
}

#[test]
fn time_control_errors_show_the_accepted_forms() {
    let e = time_control_from_text("regulations.time_control", "").unwrap_err();
    assert_eq!(e.field, "regulations.time_control");
    assert!(e.description.contains("required"), "{e}");
    for (text, problem) in [
        ("90+x", "expected a number"),
        ("blitz", "expected a number"),
        ("40/5400+30:1800+30", "mark it as such: `pgn:40/5400+30:1800+30`"),
        ("5m | 4m", "counted in seconds"),
        ("1s30", "goes down from hours"),
        ("5; 4", "White 5m+2s@61; Black 4m+2s@61"),
        ("pgn:90m+30s", "unexpected 'm'"),
        ("pgn:?", "not a time control a game can be played with"),
    ] {
        let e = time_control_from_text("regulations.time_control", text).unwrap_err();
        assert!(e.description.starts_with(&format!("`{text}` is not a time control")), "{e}");
        assert!(e.description.contains(problem), "{text}: {e}");
        assert!(e.description.contains("accepted forms: minutes+seconds `5+3` or `5|3`"), "{e}");
        assert!(e.description.contains("`pgn:40/5400+30:1800+30`"), "{e}");
    }
}

#[test]
fn time_control_in_a_response_is_the_pgn_form_and_reads_back_marked() {
    for text in ["90+30", "40/90+30, 30+30", "White 5+2@61; Black 4+2@61", "1+1", "2h", "1+0", "5 b3"] {
        let tc = time_control_from_text("tc", text).unwrap();
        let printed = time_control_to_text(&tc);
        assert_eq!(printed, tc.to_pgn());
        assert_eq!(
            time_control_from_text("tc", &format!("pgn:{printed}")).unwrap(),
            tc,
            "{text} -> {printed}"
        );
    }
    assert_eq!(time_control_to_text(&time_control_from_text("tc", "90+30").unwrap()), "5400+30");
    // `1+0` is no longer shown as `1m+0s`.
    assert_eq!(time_control_to_text(&time_control_from_text("tc", "1+0").unwrap()), "60+0");
}

fn period(moves: u32, base_ms: i64) -> pb::TimeControlPeriod {
    pb::TimeControlPeriod { moves, base_ms, ..Default::default() }
}

fn periods(p: Vec<pb::TimeControlPeriod>) -> pb::TimeControl {
    pb::TimeControl { periods: p, black_periods: vec![] }
}

fn with_form(form: pb::regulations::TimeControlForm) -> pb::Regulations {
    pb::Regulations { time_control_form: Some(form), ..Default::default() }
}

#[test]
fn structured_time_controls() {
    use pb::regulations::TimeControlForm as F;
    let tc = |p: pb::TimeControl| time_control_from_periods("tc", &p).unwrap_or_else(|e| panic!("{e:?}"));
    let text = |t: &str| time_control_from_text("tc", t).unwrap();
    let classical = periods(vec![
        pb::TimeControlPeriod { increment_ms: 30_000, ..period(40, 90 * MIN) },
        pb::TimeControlPeriod { increment_ms: 30_000, ..period(0, 30 * MIN) },
    ]);
    assert_eq!(tc(classical.clone()), text("40/90+30, 30+30"));
    let delay = |kind: pb::DelayKind| {
        periods(vec![pb::TimeControlPeriod {
            delay_ms: 3_000,
            delay_kind: kind as i32,
            ..period(0, 5 * MIN)
        }])
    };
    assert_eq!(tc(delay(pb::DelayKind::Simple)), text("5 d3"));
    assert_eq!(tc(delay(pb::DelayKind::Bronstein)), text("5 b3"));
    let late = |base| pb::TimeControlPeriod { increment_ms: 2_000, bonus_from_move: 61, ..period(0, base) };
    let armageddon = pb::TimeControl { periods: vec![late(5 * MIN)], black_periods: vec![late(4 * MIN)] };
    assert_eq!(tc(armageddon.clone()), text("White 5+2@61; Black 4+2@61"));
    // Through the regulations, in each field of the oneof.
    for (form, expected) in [
        (F::TimeControlPeriods(classical), text("40/90+30, 30+30")),
        (F::TimeControlPeriods(armageddon), text("White 5+2@61; Black 4+2@61")),
        (F::TimeControlHuman("5|3".into()), text("5+3")),
        (F::TimeControlPgn("300+3".into()), text("5+3")),
        (F::TimeControlPgn("pgn:40/5400+30:1800+30".into()), text("40/90+30, 30+30")),
    ] {
        assert_eq!(regulations_from_proto(&with_form(form)).unwrap().time_control, expected);
    }
}

#[test]
fn structured_time_control_violations_name_their_field() {
    let inc = |p: pb::TimeControlPeriod, ms| pb::TimeControlPeriod { increment_ms: ms, ..p };
    let cases: Vec<(pb::TimeControl, &str, &str)> = vec![
        (periods(vec![]), "tc.periods", "at least one period"),
        (periods(vec![period(1, MIN); 17]), "tc.periods", "at most 16"),
        (periods(vec![period(0, 0)]), "tc.periods[0].base_ms", "zero base time"),
        (periods(vec![period(40, 90 * MIN), period(20, 0)]), "tc.periods[1].base_ms", "zero base time"),
        (periods(vec![period(0, -1)]), "tc.periods[0].base_ms", "negative"),
        (periods(vec![period(0, 101 * 60 * MIN)]), "tc.periods[0].base_ms", "more than 100 hours"),
        (periods(vec![inc(period(0, MIN), 601_000)]), "tc.periods[0].increment_ms", "more than 10 minutes"),
        (periods(vec![inc(period(0, MIN), -5)]), "tc.periods[0].increment_ms", "negative"),
        (
            periods(vec![pb::TimeControlPeriod {
                delay_ms: 2_000,
                delay_kind: pb::DelayKind::Simple as i32,
                ..inc(period(0, MIN), 2_000)
            }]),
            "tc.periods[0].delay_ms",
            "not both",
        ),
        (
            periods(vec![pb::TimeControlPeriod { delay_ms: 2_000, ..period(0, MIN) }]),
            "tc.periods[0].delay_kind",
            "delay kind",
        ),
        (
            periods(vec![pb::TimeControlPeriod { delay_kind: 7, delay_ms: 1, ..period(0, MIN) }]),
            "tc.periods[0].delay_kind",
            "7 is not a known delay kind",
        ),
        (
            periods(vec![pb::TimeControlPeriod {
                delay_kind: pb::DelayKind::Bronstein as i32,
                ..period(0, MIN)
            }]),
            "tc.periods[0].delay_ms",
            "a delay kind without a delay",
        ),
        (periods(vec![period(0, MIN), period(0, MIN)]), "tc.periods[0].moves", "only for the last period"),
        (periods(vec![period(1001, MIN)]), "tc.periods[0].moves", "at most 1000"),
        (
            periods(vec![pb::TimeControlPeriod { bonus_from_move: 61, ..period(0, MIN) }]),
            "tc.periods[0].bonus_from_move",
            "no increment or delay",
        ),
        (
            periods(vec![pb::TimeControlPeriod { bonus_from_move: 10_001, ..inc(period(0, MIN), 1) }]),
            "tc.periods[0].bonus_from_move",
            "numbered 1 to 10000",
        ),
        (
            pb::TimeControl { periods: vec![period(0, MIN)], black_periods: vec![period(0, -MIN)] },
            "tc.black_periods[0].base_ms",
            "negative",
        ),
    ];
    for (tc, field, problem) in cases {
        let errors = time_control_from_periods("tc", &tc).unwrap_err();
        assert_eq!(fields(&errors), [field], "{tc:?}: {errors:?}");
        assert!(errors[0].description.contains(problem), "{field}: {}", errors[0].description);
    }
    // Several problems at once: each on its own field.
    let tc = periods(vec![period(0, -1), inc(period(1001, MIN), 601_000)]);
    let errors = time_control_from_periods("tc", &tc).unwrap_err();
    assert_eq!(
        fields(&errors),
        ["tc.periods[0].moves", "tc.periods[0].base_ms", "tc.periods[1].moves", "tc.periods[1].increment_ms"]
    );
}

#[test]
fn the_time_control_is_given_once() {
    use pb::regulations::TimeControlForm as F;
    // None at all.
    let errors = regulations_from_proto(&pb::Regulations::default()).unwrap_err();
    assert_eq!(fields(&errors), ["regulations.time_control"]);
    assert!(errors[0].description.contains("time_control_periods"), "{errors:?}");
    // The text and a form that agree (a request built from a response and
    // completed with a form) are accepted; `60+0` and `60` run alike.
    let both =
        pb::Regulations { time_control: "pgn:60+0".into(), ..with_form(F::TimeControlHuman("1".into())) };
    assert_eq!(regulations_from_proto(&both).unwrap().time_control, TimeControl::simple(MIN, 0).unwrap());
    // Two different controls are refused.
    let both = pb::Regulations { time_control: "5+3".into(), ..with_form(F::TimeControlPgn("5+3".into())) };
    let errors = regulations_from_proto(&both).unwrap_err();
    assert_eq!(fields(&errors), ["regulations.time_control"]);
    assert!(errors[0].description.contains("different controls"), "{errors:?}");
    // Each form's own errors, on its own field.
    let errors = regulations_from_proto(&with_form(F::TimeControlHuman("pgn:300+3".into()))).unwrap_err();
    assert_eq!(fields(&errors), ["regulations.time_control_human"]);
    assert!(errors[0].description.contains("time_control_pgn"), "{errors:?}");
    let errors = regulations_from_proto(&with_form(F::TimeControlPgn("5m+3s".into()))).unwrap_err();
    assert_eq!(fields(&errors), ["regulations.time_control_pgn"]);
    assert!(errors[0].description.contains("not a PGN time control (seconds)"), "{errors:?}");
    let errors =
        regulations_from_proto(&with_form(F::TimeControlPeriods(periods(vec![period(0, 0)])))).unwrap_err();
    assert_eq!(fields(&errors), ["regulations.time_control_periods.periods[0].base_ms"]);
}

#[test]
fn regulations_defaults() {
    // Every unspecified field means the default of the Laws.
    let r = regulations_from_proto(&regs("90+30")).unwrap();
    let expected = Regulations::new(TimeControl::simple(90 * 60_000, 30_000).unwrap());
    assert_eq!(r, expected);
    assert!(r.observe);
    let online = pb::Regulations { mode: pb::Mode::Online as i32, ..regs("3+2") };
    let r = regulations_from_proto(&online).unwrap();
    assert_eq!(r, Regulations { mode: Mode::Online, ..Regulations::new(r.time_control.clone()) });
}

#[test]
fn regulations_entered_after_the_fact() {
    // A.5.2: over the board, moves entered after the fact are not observed.
    let p = pb::Regulations { entered_after_the_fact: true, ..regs("15+10") };
    let r = regulations_from_proto(&p).unwrap();
    assert!(!r.observe);
    assert!(regulations_to_proto(&r).entered_after_the_fact);
    // Online the platform sees every move: refused, on the field itself.
    let online = pb::Regulations { mode: pb::Mode::Online as i32, ..p };
    let v = regulations_from_proto(&online).unwrap_err();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].field, "regulations.entered_after_the_fact");
    assert!(v[0].description.contains("A.5.2"), "{}", v[0].description);
}

#[test]
fn regulations_every_field() {
    let p = pb::Regulations {
        mode: pb::Mode::Hybrid as i32,
        time_control: "15+10".to_owned(),
        category: pb::Category::Standard as i32,
        regime: pb::Regime::Full as i32,
        penalty_ms: Some(90_000),
        default_time_ms: Some(0),
        no_draw_offers_before_move: 30,
        draw_offers_need_arbiter: false,
        guidelines_iii: false,
        device_penalty_deduct_ms: 300_000,
        chess960: true,
        start_fen: "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".to_owned(),
        armageddon: true,
        automatic_draws: Some(false),
        cn_draw_alternation: true,
        cn_grade_scoring: false,
        max_lag_compensation_ms: 1_500,
        reconnect_window_ms: Some(60_000),
        entered_after_the_fact: false,
        time_control_form: None,
        sensed_touches: pb::SensedTouches::Record as i32,
        clock_authority: pb::ClockAuthority::Board as i32,
    };
    let r = regulations_from_proto(&p).unwrap();
    assert_eq!(r.mode, Mode::Hybrid);
    assert_eq!(r.clock_authority, arbiter_laws::regulations::ClockAuthority::Board);
    assert_eq!(r.time_control, TimeControl::simple(15 * 60_000, 10_000).unwrap());
    assert_eq!(r.category, Some(Category::Standard));
    assert_eq!(r.regime, Regime::Full);
    assert_eq!(r.penalty_ms, Some(90_000));
    assert_eq!(r.default_time_ms, Some(0));
    assert_eq!(r.draw_offers, DrawOfferRestriction::BeforeMove(30));
    assert_eq!(r.device_penalty, DevicePenalty::DeductTime(300_000));
    assert!(r.chess960 && r.armageddon && r.cn_draw_alternation && r.observe);
    assert_eq!(r.start_fen.as_deref(), Some(p.start_fen.as_str()));
    assert_eq!(r.automatic_draws, Some(false));
    assert_eq!(r.max_lag_compensation_ms, 1_500);
    assert_eq!(r.reconnect_window_ms, Some(60_000));
    // And back: every field survives.
    let mut back = regulations_to_proto(&r);
    assert_eq!(back.time_control, "900+10");
    assert_eq!(
        back.time_control_form,
        Some(pb::regulations::TimeControlForm::TimeControlPgn("900+10".into()))
    );
    back.time_control = p.time_control.clone();
    back.time_control_form = None;
    assert_eq!(back, p);
}

#[test]
fn regulations_round_trip() {
    let samples = [
        regs("90+30"),
        regs("40/90+30, 30+30"),
        pb::Regulations { mode: pb::Mode::Online as i32, max_lag_compensation_ms: 500, ..regs("3+2") },
        pb::Regulations { guidelines_iii: true, draw_offers_need_arbiter: true, ..regs("90") },
        pb::Regulations { armageddon: true, ..regs("White 5+2@61; Black 4+2@61") },
        pb::Regulations { category: pb::Category::Rapid as i32, penalty_ms: Some(60_000), ..regs("60") },
        pb::Regulations { entered_after_the_fact: true, ..regs("15+10") },
        pb::Regulations {
            start_fen: "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".to_owned(),
            automatic_draws: Some(true),
            reconnect_window_ms: Some(120_000),
            ..regs("1+1")
        },
    ];
    for p in samples {
        let r = regulations_from_proto(&p).unwrap_or_else(|e| panic!("{p:?}: {e:?}"));
        let mut back = regulations_to_proto(&r);
        // Sent back unchanged, the regulations read as the same control or
        // are refused (the text read as the human form disagrees with
        // `time_control_pgn`): never as another control.
        if let Ok(again) = regulations_from_proto(&back) {
            assert_eq!(again, r, "{back:?}");
        }
        // The PGN form alone reads back.
        let alone = pb::Regulations { time_control: String::new(), ..back.clone() };
        assert_eq!(regulations_from_proto(&alone).unwrap(), r, "{alone:?}");
        // A response's `time_control` is the PGN form: marked, it reads back.
        back.time_control = format!("pgn:{}", back.time_control);
        assert_eq!(regulations_from_proto(&back).unwrap(), r, "{back:?}");
        // Unspecified mode and regime come back as their explicit defaults.
        assert_ne!(back.mode, pb::Mode::Unspecified as i32);
        assert_ne!(back.regime, pb::Regime::Unspecified as i32);
        assert_eq!(back.sensed_touches, pb::SensedTouches::Record as i32);
        assert_eq!(back.clock_authority, pb::ClockAuthority::Service as i32);
    }
}

#[test]
fn regulations_of_e_boards() {
    use arbiter_laws::regulations::{ClockAuthority, SensedTouches};
    let p = pb::Regulations {
        sensed_touches: pb::SensedTouches::Bind as i32,
        clock_authority: pb::ClockAuthority::Board as i32,
        ..regs("90+30")
    };
    let r = regulations_from_proto(&p).unwrap();
    assert_eq!((r.sensed_touches, r.clock_authority), (SensedTouches::Bind, ClockAuthority::Board));
    // Binding sensed touches online is refused on the field itself.
    let online = pb::Regulations { mode: pb::Mode::Hybrid as i32, ..p.clone() };
    let v = regulations_from_proto(&online).unwrap_err();
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].field, "regulations.sensed_touches");
    assert!(v[0].description.contains("OCR 1.3"), "{}", v[0].description);
    // Unknown values are named.
    let unknown = pb::Regulations { sensed_touches: 7, clock_authority: 9, ..regs("90+30") };
    let v = regulations_from_proto(&unknown).unwrap_err();
    let fields: Vec<&str> = v.iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["regulations.sensed_touches", "regulations.clock_authority"]);
}

#[test]
fn regulations_collects_field_violations() {
    let p = pb::Regulations {
        mode: 9,
        category: 7,
        regime: -1,
        no_draw_offers_before_move: 20,
        draw_offers_need_arbiter: true,
        start_fen: "not a fen".to_owned(),
        ..regs("")
    };
    let errors = regulations_from_proto(&p).unwrap_err();
    assert_eq!(
        fields(&errors),
        [
            "regulations.mode",
            "regulations.time_control",
            "regulations.category",
            "regulations.regime",
            "regulations.draw_offers_need_arbiter",
            "regulations.start_fen",
        ]
    );
    assert_eq!(
        errors[0].description,
        "9 is not a known mode (expected MODE_OVER_THE_BOARD = 1, MODE_ONLINE = 2 or MODE_HYBRID = 3)"
    );
}

#[test]
fn regulations_bad_fen() {
    let p = pb::Regulations { start_fen: "8/8/8/8/8/8/8/8 w - - 0 1".to_owned(), ..regs("90+30") };
    let errors = regulations_from_proto(&p).unwrap_err();
    assert_eq!(errors, [Violation::new("regulations.start_fen", "invalid position: the board is empty")]);
    // A Chess960 castling right is only valid with the flag.
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let p = pb::Regulations { start_fen: fen.to_owned(), chess960: true, ..regs("90+30") };
    assert!(regulations_from_proto(&p).is_ok());
}

#[test]
fn cn_grade_scoring_is_refused_until_it_works() {
    let p = pb::Regulations { cn_grade_scoring: true, ..regs("90+30") };
    let errors = regulations_from_proto(&p).unwrap_err();
    assert_eq!(
        errors,
        [Violation::new("regulations.cn_grade_scoring", "CN-16 grade scoring is not supported yet")]
    );
    let p = pb::Regulations { cn_grade_scoring: false, ..regs("90+30") };
    let r = regulations_from_proto(&p).unwrap();
    assert!(!regulations_to_proto(&r).cn_grade_scoring);
}

#[test]
fn regulations_validation_lands_on_the_right_field() {
    let case = |p: pb::Regulations| {
        let errors = regulations_from_proto(&p).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors.into_iter().next().unwrap()
    };
    let v = case(pb::Regulations { guidelines_iii: true, ..regs("90+30") });
    assert_eq!(v.field, "regulations.guidelines_iii");
    assert!(v.description.contains("without increment"), "{v}");
    let v = case(pb::Regulations { guidelines_iii: true, ..regs("5") });
    assert_eq!(v.field, "regulations.guidelines_iii");
    assert!(v.description.contains("blitz"), "{v}");
    let v = case(pb::Regulations { penalty_ms: Some(10), ..regs("90+30") });
    assert_eq!(v.field, "regulations.penalty_ms");
    let v = case(pb::Regulations { default_time_ms: Some(-1), ..regs("90+30") });
    assert_eq!(v.field, "regulations.default_time_ms");
    let v = case(pb::Regulations { device_penalty_deduct_ms: -5, ..regs("90+30") });
    assert_eq!(v.field, "regulations.device_penalty_deduct_ms");
    let v = case(pb::Regulations { max_lag_compensation_ms: 10_000, ..regs("90+30") });
    assert_eq!(v.field, "regulations.max_lag_compensation_ms");
    let v = case(pb::Regulations { reconnect_window_ms: Some(0), ..regs("90+30") });
    assert_eq!(v.field, "regulations.reconnect_window_ms");
}

#[test]
fn colors() {
    assert_eq!(color_from_proto("color", 0), Ok(None));
    assert_eq!(color_from_proto("color", 1), Ok(Some(Color::White)));
    assert_eq!(color_from_proto("color", 2), Ok(Some(Color::Black)));
    let v = color_from_proto("color", 3).unwrap_err();
    assert_eq!(v.field, "color");
    assert!(v.description.starts_with("3 is not a known colour"), "{v}");
    for c in Color::ALL {
        assert_eq!(color_from_proto("c", color_to_proto(c)), Ok(Some(c)));
    }
    assert_eq!(optional_color_to_proto(None), pb::Color::Unspecified as i32);
}

#[test]
fn touch_kinds() {
    assert_eq!(touch_kind_from_proto("kind", 0), Ok(TouchKind::Intent));
    assert_eq!(touch_kind_from_proto("kind", 1), Ok(TouchKind::Intent));
    assert_eq!(touch_kind_from_proto("kind", 2), Ok(TouchKind::Adjust));
    assert_eq!(touch_kind_from_proto("kind", 3), Ok(TouchKind::Accidental));
    assert_eq!(touch_kind_from_proto("kind", 4).unwrap_err().field, "kind");
}

#[test]
fn promotion_roles() {
    assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Queen as i32), Ok(Role::Queen));
    assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Knight as i32), Ok(Role::Knight));
    assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Bishop as i32), Ok(Role::Bishop));
    assert_eq!(promotion_role_from_proto("piece", pb::PieceRole::Rook as i32), Ok(Role::Rook));
    let v = promotion_role_from_proto("piece", pb::PieceRole::King as i32).unwrap_err();
    assert!(v.description.contains("cannot be promoted to a king"), "{v}");
    assert!(promotion_role_from_proto("piece", pb::PieceRole::Pawn as i32).is_err());
    let v = promotion_role_from_proto("piece", 0).unwrap_err();
    assert!(v.description.starts_with("a promotion piece is required"), "{v}");
    assert!(promotion_role_from_proto("piece", 42).unwrap_err().description.starts_with("42 is not"));
}

#[test]
fn claim_kinds_results_answers() {
    assert_eq!(claim_kind_from_proto("kind", 1), Ok(ClaimKind::Threefold));
    assert_eq!(claim_kind_from_proto("kind", 2), Ok(ClaimKind::FiftyMoves));
    assert!(claim_kind_from_proto("kind", 0).unwrap_err().description.contains("required"));
    assert!(claim_kind_from_proto("kind", 3).is_err());

    assert_eq!(declared_result_from_proto("result", 1), Ok(DeclaredResult::WhiteWins));
    assert_eq!(declared_result_from_proto("result", 2), Ok(DeclaredResult::BlackWins));
    assert_eq!(declared_result_from_proto("result", 3), Ok(DeclaredResult::Draw));
    assert_eq!(declared_result_from_proto("result", 4), Ok(DeclaredResult::BothLose));
    assert!(declared_result_from_proto("result", 0).is_err());
    assert!(declared_result_from_proto("result", 5).is_err());

    assert_eq!(answer_from_proto("answer", 1), Ok(Answer::Default));
    assert_eq!(answer_from_proto("answer", 2), Ok(Answer::Accept));
    assert_eq!(answer_from_proto("answer", 3), Ok(Answer::Reject));
    assert_eq!(answer_from_proto("answer", 4), Ok(Answer::Postpone));
    assert_eq!(answer_from_proto("answer", 0).unwrap_err().field, "answer");
    assert!(answer_from_proto("answer", -3).is_err());
}

#[test]
fn penalties() {
    let k = |k: pb::PenaltyKind| k as i32;
    assert_eq!(penalty_from_proto(k(pb::PenaltyKind::Warning), 0), Ok(PenaltyKind::Warning));
    assert_eq!(
        penalty_from_proto(k(pb::PenaltyKind::AddTimeToOpponent), 120_000),
        Ok(PenaltyKind::AddTimeToOpponent(120_000))
    );
    assert_eq!(
        penalty_from_proto(k(pb::PenaltyKind::DeductTime), 3_600_000),
        Ok(PenaltyKind::DeductTime(3_600_000))
    );
    assert_eq!(
        penalty_from_proto(k(pb::PenaltyKind::RaiseOpponentScore), 0),
        Ok(PenaltyKind::RaiseOpponentScore)
    );
    assert_eq!(penalty_from_proto(k(pb::PenaltyKind::ReduceScore), 0), Ok(PenaltyKind::ReduceScore));
    assert_eq!(penalty_from_proto(k(pb::PenaltyKind::DeclareLost), 0), Ok(PenaltyKind::DeclareLost));
    for bad in [0, -1, 3_600_001] {
        let v = penalty_from_proto(k(pb::PenaltyKind::DeductTime), bad).unwrap_err();
        assert_eq!(v.field, "amount_ms", "{bad}");
    }
    let v = penalty_from_proto(k(pb::PenaltyKind::Warning), 5).unwrap_err();
    assert_eq!(v.field, "amount_ms");
    assert!(v.description.starts_with("a warning takes no amount"), "{v}");
    assert_eq!(penalty_from_proto(0, 0).unwrap_err().field, "kind");
    assert_eq!(penalty_from_proto(99, 0).unwrap_err().field, "kind");
}

#[test]
fn statuses_and_categories() {
    for s in [
        GameStatus::Pending,
        GameStatus::InProgress,
        GameStatus::Finished,
        GameStatus::Cancelled,
        GameStatus::Expired,
    ] {
        assert_eq!(status_from_proto("status", status_to_proto(s)), Ok(Some(s)));
        assert_eq!(s.as_str().parse::<GameStatus>(), Ok(s));
    }
    assert!("garbage".parse::<GameStatus>().is_err());
    assert_eq!(status_from_proto("status", 0), Ok(None));
    assert_eq!(status_from_proto("status", 6).unwrap_err().field, "status");
    assert_eq!(category_to_proto(Category::Blitz), pb::Category::Blitz as i32);
    assert_eq!(category_to_proto(Category::Rapid), pb::Category::Rapid as i32);
    assert_eq!(category_to_proto(Category::Standard), pb::Category::Standard as i32);
}

#[test]
fn squares() {
    assert_eq!(parse_square("square", "e4"), Ok("e4".parse().unwrap()));
    assert_eq!(parse_square("square", "h8"), Ok("h8".parse().unwrap()));
    let v = parse_square("square", "e9").unwrap_err();
    assert_eq!(v, Violation::new("square", "`e9` is not a square (files a-h, ranks 1-8, e.g. `e4`)"));
    assert!(parse_square("square", "E4").is_err());
    assert!(parse_square("square", "i1").is_err());
    assert_eq!(parse_square("square", "").unwrap_err().description, "a square is required, e.g. `e4`");
}

fn mv(from: &str, to: &str, promotion: Option<Role>, castle: bool) -> MoveInput {
    MoveInput { from: from.parse().unwrap(), to: to.parse().unwrap(), promotion, castle }
}

const W: Color = Color::White;

#[test]
fn moves_in_uci() {
    let pos = Position::startpos();
    assert_eq!(parse_move("move", "e2e4", &pos, W, false), Ok(mv("e2", "e4", None, false)));
    assert_eq!(parse_move("move", " e7e8q ", &pos, W, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
    // Well-formed but illegal: still a move to report to the Laws.
    assert_eq!(parse_move("move", "e2e5", &pos, W, false), Ok(mv("e2", "e5", None, false)));
    assert_eq!(parse_move("move", "e1h1", &pos, W, true), Ok(mv("e1", "h1", None, true)));
}

#[test]
fn moves_in_san() {
    let pos = Position::startpos();
    assert_eq!(parse_move("move", "Nf3", &pos, W, false), Ok(mv("g1", "f3", None, false)));
    assert_eq!(parse_move("move", "e4!?", &pos, W, false), Ok(mv("e2", "e4", None, false)));
    let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(parse_move("move", "O-O", &castle, W, false), Ok(mv("e1", "g1", None, true)));
    assert_eq!(parse_move("move", "0-0-0+", &castle, W, false), Ok(mv("e1", "c1", None, true)));
    let ep = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
    assert_eq!(parse_move("move", "exd6 e.p.", &ep, W, false), Ok(mv("e5", "d6", None, false)));
    let promo = Position::from_fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    assert_eq!(parse_move("move", "e8=Q+", &promo, W, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
    assert_eq!(parse_move("move", "e7e8Q", &promo, W, false), Ok(mv("e7", "e8", Some(Role::Queen), false)));
    // Chess960 castling is written king takes rook, even when the king
    // stays on its square.
    let c960 = Position::from_fen_with("1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", FenOptions::CHESS960).unwrap();
    assert_eq!(parse_move("move", "O-O", &c960, W, false), Ok(mv("g1", "h1", None, true)));
}

#[test]
fn illegal_moves_in_san_and_long_algebraic_are_read_into_the_movement() {
    // What a scoresheet says reaches the Laws, legal or not (Law 7.5).
    let pos = Position::startpos();
    assert_eq!(parse_move("move", "Ke2", &pos, W, false), Ok(mv("e1", "e2", None, false)));
    assert_eq!(parse_move("move", "Qxf7", &pos, W, false), Ok(mv("d1", "f7", None, false)));
    assert_eq!(parse_move("move", "e2-e5", &pos, W, false), Ok(mv("e2", "e5", None, false)));
    assert_eq!(parse_move("move", "Ng1-g3", &pos, W, true), Ok(mv("g1", "g3", None, true)));
    // A Black move while White has the move: read for Black, the Laws say
    // whose turn it is.
    assert_eq!(parse_move("move", "e5", &pos, Color::Black, false), Ok(mv("e7", "e5", None, false)));
    // O-O without the right: the king towards g1, with the castling intent.
    let no_right = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
    assert_eq!(parse_move("move", "O-O", &no_right, W, false), Ok(mv("e1", "g1", None, true)));
    // A pawn on the last rank without a piece: an unfinished promotion.
    let promo = Position::from_fen("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    assert_eq!(parse_move("move", "e8", &promo, W, false), Ok(mv("e7", "e8", None, false)));
    assert_eq!(parse_move("move", "e7-e8", &promo, W, false), Ok(mv("e7", "e8", None, false)));
}

#[test]
fn move_errors() {
    let pos = Position::startpos();
    assert_eq!(parse_move("move", "  ", &pos, W, false), Err(Violation::new("move", "a move is required")));
    let v = parse_move("move", "Nf6", &pos, W, false).unwrap_err();
    assert_eq!(
        v,
        Violation::new(
            "move",
            "Nf6: none of white's knights can move to f6; it could be Nb1-f6 or Ng1-f6: write the origin square"
        )
    );
    let v = parse_move("move", "hello", &pos, W, false).unwrap_err();
    assert!(v.description.starts_with("`hello` is not a move: expected UCI"), "{v}");
    assert!(v.description.contains("long algebraic (`Ng1-f3`, `e7-e8`)"), "{v}");
    let v = parse_move("move", "e2e9", &pos, W, false).unwrap_err();
    assert_eq!(v.description, "`e9` is not a square (files a-h, ranks 1-8) in the UCI move `e2e9`");
    let v = parse_move("move", "e2e2", &pos, W, false).unwrap_err();
    assert!(v.description.contains("the from and to squares are the same"), "{v}");
    let v = parse_move("move", "e7e8k", &pos, W, false).unwrap_err();
    assert!(v.description.ends_with("(lowercase), got `k`"), "{v}");
    let two_knights = Position::from_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1").unwrap();
    let v = parse_move("intended_move", "Nd2", &two_knights, W, false).unwrap_err();
    assert_eq!(v, Violation::new("intended_move", "Nd2 could be Nb1-d2 or Nf1-d2; write the origin square"));
    assert_eq!(parse_move("move", "Nbd2", &two_knights, W, false), Ok(mv("b1", "d2", None, false)));
    let v = parse_move("move", "Bg1-f3", &pos, W, false).unwrap_err();
    assert_eq!(v.description, "Bg1-f3: the piece on g1 is a knight, not a bishop");
}

#[test]
fn setup_errors() {
    use arbiter_laws::event::SetupError;
    let kind = |k: pb::SetupErrorKind| k as i32;
    let white = pb::Color::White as i32;
    assert_eq!(
        setup_error_from_proto(kind(pb::SetupErrorKind::WrongInitialPosition), 0, ""),
        Ok(SetupError::WrongInitialPosition)
    );
    assert_eq!(
        setup_error_from_proto(kind(pb::SetupErrorKind::BoardWronglyOriented), 0, " "),
        Ok(SetupError::BoardWronglyOriented)
    );
    assert_eq!(
        setup_error_from_proto(kind(pb::SetupErrorKind::ColoursReversed), 0, ""),
        Ok(SetupError::ColoursReversed)
    );
    assert_eq!(
        setup_error_from_proto(kind(pb::SetupErrorKind::KingMisplaced), white, ""),
        Ok(SetupError::KingMisplaced { color: Color::White })
    );
    assert_eq!(
        setup_error_from_proto(kind(pb::SetupErrorKind::RookMisplaced), 0, "h8"),
        Ok(SetupError::RookMisplaced { square: "h8".parse().unwrap() })
    );
    let field = |r: Result<SetupError, Violation>| r.unwrap_err().field;
    assert_eq!(field(setup_error_from_proto(0, 0, "")), "kind");
    assert_eq!(field(setup_error_from_proto(99, 0, "")), "kind");
    assert_eq!(field(setup_error_from_proto(kind(pb::SetupErrorKind::KingMisplaced), 0, "")), "color");
    assert_eq!(field(setup_error_from_proto(kind(pb::SetupErrorKind::RookMisplaced), 0, "")), "square");
    assert_eq!(field(setup_error_from_proto(kind(pb::SetupErrorKind::RookMisplaced), 0, "z9")), "square");
    assert_eq!(field(setup_error_from_proto(kind(pb::SetupErrorKind::ColoursReversed), white, "")), "color");
    assert_eq!(
        field(setup_error_from_proto(kind(pb::SetupErrorKind::WrongInitialPosition), 0, "e1")),
        "square"
    );
}

#[test]
fn move_outcomes_from_rulings() {
    use arbiter_laws::rule::RuleId;
    let w = Color::White;
    let make = Event::MakeMove { color: w, mv: mv("e2", "e4", None, false) };
    let press = Event::PressClock { color: w, other_hand: false };
    let made = |rule| {
        Ruling::new(rule, Decision::MoveMade { color: w, san: "e4".into(), uci: "e2e4".into(), ply: 1 })
    };
    let obligation = |color| {
        Ruling::new(
            RuleId::Fide4_3a,
            Decision::Obligation { color, allowed: vec!["Nf3".into()], reason: "r".into() },
        )
    };
    let illegal = |color| {
        Ruling::new(RuleId::Fide7_5_1, Decision::IllegalMove { color, count: 1, description: "d".into() })
    };
    assert_eq!(move_outcome(&make, &[made(RuleId::Fide4_7)]), pb::MoveOutcome::Accepted);
    assert_eq!(move_outcome(&make, &[made(RuleId::Fide7_5_2)]), pb::MoveOutcome::UnfinishedPromotion);
    assert_eq!(move_outcome(&make, &[obligation(w)]), pb::MoveOutcome::RefusedTouchMove);
    let not_completed = Ruling::new(
        RuleId::Fide7_5_1,
        Decision::IllegalMoveNotCompleted { color: w, description: "d".into() },
    );
    assert_eq!(move_outcome(&make, &[not_completed]), pb::MoveOutcome::IllegalNotCompleted);
    // A press: the completed illegal move wins over the obligation it sets.
    assert_eq!(move_outcome(&press, &[illegal(w), obligation(w)]), pb::MoveOutcome::RuledIllegal);
    // The opponent's rulings say nothing of this move.
    assert_eq!(move_outcome(&make, &[illegal(Color::Black)]), pb::MoveOutcome::Unspecified);
    // An obligation after a touch is not a refused move.
    let touch = Event::Touch { color: w, square: "g1".parse().unwrap(), kind: TouchKind::Intent };
    assert_eq!(move_outcome(&touch, &[obligation(w)]), pb::MoveOutcome::Unspecified);
    assert_eq!(move_outcome(&Event::Tick, &[illegal(w)]), pb::MoveOutcome::Unspecified);
}

#[test]
fn clock_formats() {
    assert_eq!(format_ms(5_387_000), "1:29:47");
    assert_eq!(format_ms(3_600_000), "1:00:00");
    assert_eq!(format_ms(245_000), "4:05");
    assert_eq!(format_ms(10_000), "0:10");
    assert_eq!(format_ms(9_999), "0:09.9");
    assert_eq!(format_ms(7_300), "0:07.3");
    assert_eq!(format_ms(90), "0:00.0");
    assert_eq!(format_ms(0), "0:00.0");
    assert_eq!(format_ms(-1_500), "-0:01.5");
    assert_eq!(format_duration(12_345), "12.3 s");
    assert_eq!(format_duration(30_000), "30.0 s");
    assert_eq!(format_duration(120_000), "2:00");
    assert_eq!(format_duration(-500), "-0.5 s");
    assert_eq!(format_duration(i64::MIN).chars().next(), Some('-'));
}

#[test]
fn rulings() {
    let r = ruling_to_proto(&Ruling::new(
        RuleId::Fide6_2a,
        Decision::MoveCompleted {
            color: Color::White,
            used_ms: 12_345,
            bonus_ms: 30_000,
            remaining_ms: 5_387_000,
        },
    ));
    assert_eq!(r.rule_id, "FIDE-6.2a");
    assert_eq!(r.decision, "MOVE_COMPLETED");
    assert_eq!(r.color, pb::Color::White as i32);
    assert_eq!(r.summary, "White completed a move: 12.3 s used, 30.0 s added, 1:29:47 left");
    let facts: HashMap<String, String> =
        [("color", "white"), ("used_ms", "12345"), ("bonus_ms", "30000"), ("remaining_ms", "5387000")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .into();
    assert_eq!(r.facts, facts);

    let r = ruling_to_proto(&Ruling::new(
        RuleId::Fide7_5_5,
        Decision::IllegalMove { color: Color::Black, count: 2, description: "Ke8-e6".to_owned() },
    ));
    assert_eq!(r.decision, "ILLEGAL_MOVE");
    assert_eq!(r.summary, "Illegal move by Black (2nd): Ke8-e6; the position before it is reinstated");
    assert_eq!(r.facts["count"], "2");

    let r = ruling_to_proto(&Ruling::new(
        RuleId::Fide4_3a,
        Decision::Obligation {
            color: Color::White,
            allowed: vec!["e2e3".to_owned(), "e2e4".to_owned()],
            reason: "the pawn on e2 was touched".to_owned(),
        },
    ));
    assert_eq!(r.facts["allowed"], "e2e3 e2e4");

    let r = ruling_to_proto(&Ruling::new(RuleId::Fide6_11, Decision::ClocksPaused));
    assert_eq!((r.decision.as_str(), r.color), ("CLOCKS_PAUSED", pb::Color::Unspecified as i32));
    assert!(r.facts.is_empty());
    assert_eq!(r.summary, "The clocks are paused");
}

#[test]
fn game_over_ruling() {
    let end = GameEnd {
        result: GameResult::WhiteWins,
        reason: "checkmate".to_owned(),
        rule: RuleId::Fide5_1_1,
        cause: EndCause::Checkmate,
        armageddon_winner: None,
        board_result: None,
    };
    let r = ruling_to_proto(&Ruling::new(RuleId::Fide5_1_1, Decision::GameOver(end.clone())));
    assert_eq!(r.decision, "GAME_OVER");
    assert_eq!(r.summary, "Game over: 1-0 (checkmate)");
    let facts: HashMap<String, String> = [("result", "1-0"), ("reason", "checkmate"), ("rule", "FIDE-5.1.1")]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into();
    assert_eq!(r.facts, facts);

    let adjusted = GameEnd {
        result: GameResult::Adjusted { white: Score::Draw, black: Score::Loss },
        armageddon_winner: Some(Color::Black),
        ..end
    };
    let r = ruling_to_proto(&Ruling::new(RuleId::Fide12_9, Decision::GameOver(adjusted.clone())));
    assert_eq!(r.facts["result"], "1/2-0");
    assert_eq!(r.facts["armageddon_winner"], "black");
    assert!(!r.facts.keys().any(|k| k.starts_with("result.")), "{:?}", r.facts);
    assert!(r.summary.ends_with("Black wins the Armageddon match"), "{}", r.summary);

    let p = game_end_to_proto(&adjusted);
    assert_eq!(
        p,
        pb::GameEnd {
            result: "1/2-0".to_owned(),
            reason: "checkmate".to_owned(),
            rule_id: "FIDE-5.1.1".to_owned(),
            armageddon_winner: pb::Color::Black as i32,
            article: Some(pb::Article { number: "5.1.1".into(), rulebook: pb::Rulebook::LawsOfChess as i32 }),
            termination: "normal".to_owned(),
        }
    );
}

#[test]
fn every_ruling_names_its_article_as_printed() {
    let d = Decision::DrawOfferDeclined { color: Color::White };
    for &rule in RuleId::ALL {
        let r = ruling_to_proto(&Ruling::new(rule, d.clone()));
        match rule.article() {
            Some(a) => {
                let got = r.article.unwrap_or_else(|| panic!("{rule}: no article"));
                assert_eq!(got.number, a.number(), "{rule}");
                assert_ne!(got.rulebook, pb::Rulebook::Unspecified as i32, "{rule}");
            }
            None => assert_eq!(r.article, None, "{rule}"),
        }
    }
    let r = ruling_to_proto(&Ruling::new(RuleId::Fide9_5c, d.clone()));
    assert_eq!(
        r.article,
        Some(pb::Article { number: "9.5.3".into(), rulebook: pb::Rulebook::LawsOfChess as i32 })
    );
    let r = ruling_to_proto(&Ruling::new(RuleId::Ocr5_4_1, d));
    assert_eq!(
        r.article,
        Some(pb::Article { number: "5.4.1".into(), rulebook: pb::Rulebook::OnlineChessRegulations as i32 })
    );
}

#[test]
fn every_decision_has_a_name_and_summary() {
    let c = Color::Black;
    let decisions = vec![
        Decision::GameStarted { white_ms: 1, black_ms: 2 },
        Decision::MoveMade { color: c, san: "Nf6".into(), uci: "g8f6".into(), ply: 2 },
        Decision::PremoveQueued { color: c, uci: "e7e5".into() },
        Decision::PremoveDropped { color: c, uci: "e7e5".into() },
        Decision::IllegalMoveNotCompleted { color: c, description: "x".into() },
        Decision::ClockAdjusted { color: c, delta_ms: -30_000, remaining_ms: 60_000 },
        Decision::ClockSet { color: c, remaining_ms: 60_000 },
        Decision::MoveCounterSet { color: c, moves_completed: 40 },
        Decision::TimeControlInstalled { time_control: "40/5400+30:1800+30".into() },
        Decision::ClocksResumed,
        Decision::ClockResumedAfterOutage { outage_ms: 4_000 },
        Decision::Warning { color: c, reason: "r".into() },
        Decision::DrawOffered { color: c, ply: 4 },
        Decision::DrawOfferLapsed { color: c, reason: "r".into() },
        Decision::DrawOfferDeclined { color: c },
        Decision::ClaimIncorrect { color: c, reason: "r".into() },
        Decision::PlayerArrived { color: c },
        Decision::Disconnected { color: c },
        Decision::Reconnected { color: c },
        Decision::QuestionOpened { id: 1, question: "q".into(), default: "d".into() },
        Decision::QuestionAnswered { id: 1, answer: "Accept".into() },
        Decision::PositionReinstated { ply: 3, fen: "f".into() },
        Decision::IncrementIntroduced { increment_ms: 5_000 },
    ];
    for d in decisions {
        let r = ruling_to_proto(&Ruling::new(RuleId::Arb, d.clone()));
        assert!(r.decision.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'), "{d:?}");
        assert!(r.summary.starts_with(|ch: char| ch.is_ascii_uppercase()), "{d:?}: {}", r.summary);
        if r.facts.contains_key("color") {
            assert_eq!(r.color, pb::Color::Black as i32, "{d:?}");
        }
    }
    let r = ruling_to_proto(&Ruling::new(
        RuleId::Fide6_10,
        Decision::ClockAdjusted { color: c, delta_ms: -30_000, remaining_ms: 60_000 },
    ));
    assert_eq!(r.summary, "Black's clock: 30.0 s removed, 1:00 left");
}

#[test]
fn events() {
    let (act, summary, details) =
        event_to_proto_parts(&Event::MakeMove { color: Color::White, mv: mv("e2", "e4", None, false) });
    assert_eq!(act, "MAKE_MOVE");
    assert_eq!(summary, "White moves e2e4");
    let expected: HashMap<String, String> =
        [("color", "white"), ("mv.from", "e2"), ("mv.to", "e4"), ("mv.castle", "false")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .into();
    assert_eq!(details, expected);

    let (act, summary, details) =
        event_to_proto_parts(&Event::PressClock { color: Color::Black, other_hand: false });
    assert_eq!((act.as_str(), summary.as_str()), ("PRESS_CLOCK", "Black presses the clock"));
    assert_eq!(details["other_hand"], "false");

    let (act, summary, details) =
        event_to_proto_parts(&Event::AdjustClock { color: Color::White, delta_ms: 120_000 });
    assert_eq!(act, "ADJUST_CLOCK");
    assert_eq!(summary, "Arbiter adds 2:00 to White's clock");
    assert_eq!(details["delta_ms"], "120000");

    let (act, summary, details) = event_to_proto_parts(&Event::Tick);
    assert_eq!((act.as_str(), summary.as_str()), ("TICK", "Time check"));
    assert!(details.is_empty());

    let (act, summary, details) = event_to_proto_parts(&Event::Penalty {
        color: Color::Black,
        kind: PenaltyKind::AddTimeToOpponent(120_000),
    });
    assert_eq!(act, "PENALTY");
    assert_eq!(summary, "Arbiter penalises Black: 2:00 added to White's clock");
    assert_eq!(details["kind"], "AddTimeToOpponent");
    assert_eq!(details["kind.value"], "120000");

    let (_, _, details) =
        event_to_proto_parts(&Event::Penalty { color: Color::Black, kind: PenaltyKind::Warning });
    assert_eq!(details["kind"], "Warning");

    let (act, summary, details) = event_to_proto_parts(&Event::ClaimDraw {
        color: Color::White,
        kind: ClaimKind::Threefold,
        intended: None,
    });
    assert_eq!(act, "CLAIM_DRAW");
    assert_eq!(summary, "White claims a draw by threefold repetition");
    assert!(!details.contains_key("intended"));

    let (act, summary, _) = event_to_proto_parts(&Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!((act.as_str(), summary.as_str()), ("DECLARE_RESULT", "Arbiter declares the result 1/2-1/2"));
}

#[test]
fn every_event_has_a_name_and_summary() {
    let c = Color::White;
    let m = mv("e7", "e8", Some(Role::Queen), false);
    let events = vec![
        Event::AnnounceAdjust { color: c },
        Event::Touch { color: c, square: "e2".parse().unwrap(), kind: TouchKind::Adjust },
        Event::PromotionPieceTouched { color: c, role: Role::Knight },
        Event::CastlingKingReleased { color: c, to: "g1".parse().unwrap() },
        Event::UsedTwoHands { color: c },
        Event::SubmitMove { color: c, mv: m, premove: true, lag_ms: 40 },
        Event::Disconnect { color: c },
        Event::Reconnect { color: c },
        Event::OfferDraw { color: c },
        Event::AcceptDraw { color: c },
        Event::DeclineDraw { color: c },
        Event::ClaimDraw { color: c, kind: ClaimKind::FiftyMoves, intended: Some(m) },
        Event::Resign { color: c },
        Event::PlayerArrived { color: c },
        Event::RequestIncrement { color: c },
        Event::ClaimNoWinningAttempt { color: c },
        Event::Start,
        Event::PauseClocks,
        Event::ResumeClocks,
        Event::SetClock { color: c, remaining_ms: 1 },
        Event::SetMoveCounter { color: c, moves_completed: 40 },
        Event::InstallTimeControl {
            time_control: arbiter_laws::time_control::TimeControl::from_pgn("40/5400+30:1800+30").unwrap(),
        },
        Event::ReinstatePosition { ply: 0 },
        Event::DeviceFound { color: c },
        Event::AnswerQuestion { id: 2, answer: Answer::Postpone },
    ];
    for e in events {
        let (act, summary, details) = event_to_proto_parts(&e);
        assert!(act.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'), "{e:?}");
        assert!(summary.starts_with(|ch: char| ch.is_ascii_uppercase()), "{e:?}: {summary}");
        if let Some(color) = e.player() {
            assert_eq!(details["color"], color.name(), "{e:?}");
        }
    }
    let (_, summary, details) =
        event_to_proto_parts(&Event::SubmitMove { color: c, mv: m, premove: false, lag_ms: 0 });
    assert_eq!(summary, "White plays e7e8q");
    assert_eq!(details["mv.promotion"], "queen");
}

#[test]
fn results() {
    let cases = [
        (GameResult::WhiteWins, "1-0"),
        (GameResult::BlackWins, "0-1"),
        (GameResult::Draw, "1/2-1/2"),
        (GameResult::WhiteWinsByForfeit, "+/-"),
        (GameResult::BlackWinsByForfeit, "-/+"),
        (GameResult::DoubleForfeit, "-/-"),
        (GameResult::BothLose, "0-0"),
        (GameResult::Adjusted { white: Score::Draw, black: Score::Loss }, "1/2-0"),
        (GameResult::Adjusted { white: Score::Loss, black: Score::Draw }, "0-1/2"),
        (GameResult::Adjusted { white: Score::Win, black: Score::Loss }, "1-0"),
    ];
    for (r, text) in cases {
        assert_eq!(game_result_text(r), text, "{r:?}");
    }
}

#[test]
fn clock_corrections_are_validated() {
    use super::validate::{MAX_MOVE_COUNTER, move_counter, pgn_time_control};
    assert_eq!(move_counter("moves_completed", 0), Ok(0));
    assert_eq!(move_counter("moves_completed", MAX_MOVE_COUNTER), Ok(MAX_MOVE_COUNTER));
    let e = move_counter("moves_completed", MAX_MOVE_COUNTER + 1).unwrap_err();
    assert_eq!(e.field, "moves_completed");
    assert!(e.description.contains("0 to 10000"), "{}", e.description);
    let tc = pgn_time_control("pgn_time_control", " 40/5400+30:1800+30 ").unwrap();
    assert_eq!(tc.to_pgn(), "40/5400+30:1800+30");
    assert_eq!(pgn_time_control("pgn_time_control", "300+2").unwrap().to_pgn(), "300+2");
    for bad in ["", "90m+30s", "40/90m+30s, 30m+30s"] {
        let e = pgn_time_control("pgn_time_control", bad).unwrap_err();
        assert_eq!(e.field, "pgn_time_control", "{bad}");
        assert!(e.description.contains("PGN"), "{bad}: {}", e.description);
    }
}

#[test]
fn labels_refuse_characters_that_display_other_than_they_read() {
    use super::validate::{MAX_LABEL, label};
    // Every bidi control, zero-width and format character the audit named,
    // the separators, controls, and a few further Cf characters.
    for c in [
        '\u{202A}',
        '\u{202B}',
        '\u{202C}',
        '\u{202D}',
        '\u{202E}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200E}',
        '\u{200F}',
        '\u{061C}',
        '\u{200B}',
        '\u{200C}',
        '\u{200D}',
        '\u{2060}',
        '\u{FEFF}',
        '\u{2028}',
        '\u{2029}',
        '\u{0000}',
        '\n',
        '\t',
        '\u{7F}',
        '\u{85}',
        '\u{AD}',
        '\u{180E}',
        '\u{FFF9}',
        '\u{E0001}',
        '\u{E0041}',
        '\u{1D173}',
        '\u{0600}',
    ] {
        let text = format!("Mag{c}nus");
        let e = label("white.name", &text).unwrap_err();
        assert_eq!(e.field, "white.name");
        assert!(e.description.contains(&format!("U+{:04X}", u32::from(c))), "{c:?}: {}", e.description);
    }
    // Letters of every script, marks, symbols and emoji (with a variation
    // selector, a combining mark: category Mn, not Cf) pass.
    for good in
        ["", "Magnus Carlsen", "丁立人", "Ян Непомнящий", "محمد", "Zoë", "e\u{301}", "♔", "🎉", "☺\u{FE0F}"]
    {
        assert_eq!(label("event", good), Ok(()), "{good:?}");
    }
    assert_eq!(label("round", &"é".repeat(MAX_LABEL)), Ok(()));
    let e = label("round", &"é".repeat(MAX_LABEL + 1)).unwrap_err();
    assert!(e.description.contains("200"), "{}", e.description);
}
