//! What an e-board's sensors report, weighed by the Laws: a sensed touch is
//! evidence for the arbiter unless the regulations bind it (Article 4 over
//! the board, nothing online: OCR 1.3), and a board's clock reading sets the
//! service's clocks only where the regulations make the board's clock
//! authoritative (OCR 2.4).

mod common;

use arbiter_chess::{Piece, Role};
use arbiter_laws::event::{Event, SensedTouch};
use arbiter_laws::regulations::{ClockAuthority, Mode, RegulationsError, SensedTouches};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, RejectReason, Ruling};
use common::*;

fn sensed(square: &str, color: arbiter_chess::Color, role: Role, kind: SensedTouch) -> Event {
    Event::TouchSensed { square: sq(square), piece: Piece { color, role }, sensed: kind }
}

fn bound(tc: &str) -> S {
    let mut r = regs(tc, Mode::OverTheBoard, None);
    r.sensed_touches = SensedTouches::Bind;
    S::new(r)
}

/// The evidence ruling of `rs`: (binding, the moves it would bind to).
fn evidence(rs: &[Ruling]) -> (bool, Vec<String>) {
    let found: Vec<_> = rs
        .iter()
        .filter_map(|r| match &r.decision {
            Decision::TouchSensed { binding, would_allow, .. } => {
                assert_eq!(r.rule, RuleId::Fide4_2b, "{r:?}");
                assert_eq!(r.rule.article().unwrap().to_string(), "Article 4.2.2");
                Some((*binding, would_allow.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "one evidence ruling expected: {rs:?}");
    found.into_iter().next().unwrap()
}

#[test]
fn by_default_a_sensed_touch_is_recorded_for_the_arbiter_and_binds_nothing() {
    let mut s = S::otb("90+30", None);
    let rs = s.ev(sensed("g1", W, Role::Knight, SensedTouch::FirstLift));
    // What the touch would bind White to, for the arbiter to weigh.
    assert_eq!(evidence(&rs), (false, vec!["Nf3".to_string(), "Nh3".to_string()]));
    assert!(obligations(&rs).is_empty(), "{rs:?}");
    assert!(s.g.obligation().is_none(), "evidence binds nothing");
    // White may play any move.
    let rs = s.make(W, "e2e4");
    assert!(rs.iter().any(|r| matches!(r.decision, Decision::MoveMade { .. })), "{rs:?}");
}

#[test]
fn where_the_regulations_bind_sensed_touches_a_first_lift_is_the_article_4_obligation() {
    let mut s = bound("90+30");
    let rs = s.ev(sensed("g1", W, Role::Knight, SensedTouch::FirstLift));
    assert_eq!(evidence(&rs), (true, vec![]));
    assert_eq!(obligations(&rs), vec![vec!["Nf3".to_string(), "Nh3".to_string()]]);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide4_3a), "{rs:?}");
    // Another piece may not be moved: the move is taken back at once.
    let rs = s.make(W, "e2e4");
    assert!(!rs.iter().any(|r| matches!(r.decision, Decision::MoveMade { .. })), "{rs:?}");
    assert_eq!(s.allowed(), ["Nf3", "Nh3"]);
    let rs = s.make(W, "g1f3");
    assert!(
        rs.iter().any(|r| matches!(&r.decision, Decision::MoveMade { san, .. } if san == "Nf3")),
        "{rs:?}"
    );
}

#[test]
fn a_sensed_touch_of_an_opponents_piece_binds_to_capture_it() {
    let mut s = bound("90+30");
    s.play("e4 d5");
    let rs = s.ev(sensed("d5", B, Role::Pawn, SensedTouch::OpponentPiece));
    assert!(evidence(&rs).0, "the touch binds");
    assert_eq!(obligations(&rs), vec![vec!["exd5".to_string()]]);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide4_3b), "{rs:?}");
}

#[test]
fn an_adjustment_announced_first_makes_the_sensed_touch_an_adjustment() {
    let mut s = bound("90+30");
    s.ev(Event::AnnounceAdjust { color: W });
    let rs = s.ev(sensed("b1", W, Role::Knight, SensedTouch::LiftAndReplace));
    assert_eq!(evidence(&rs), (true, vec![]));
    assert!(obligations(&rs).is_empty(), "{rs:?}");
    assert!(s.g.obligation().is_none());
}

#[test]
fn online_a_sensed_touch_is_refused_as_meaning_nothing() {
    let mut s = S::online("5+3", None);
    let r = s.rej(sensed("g1", W, Role::Knight, SensedTouch::FirstLift));
    assert_eq!(r.reason, RejectReason::NotApplicable);
    assert_eq!(r.rule, Some(RuleId::Ocr1_3));
    // And the regulations cannot bind them online.
    let mut regs = regs("5+3", Mode::Hybrid, None);
    regs.sensed_touches = SensedTouches::Bind;
    assert_eq!(regs.validate(), Err(RegulationsError::SensedTouchesOnline));
}

#[test]
fn evidence_of_another_position_is_refused() {
    let mut s = bound("90+30");
    s.play("Nf3");
    // The knight is no longer on g1: the evidence is stale.
    let r = s.rej(sensed("g1", W, Role::Knight, SensedTouch::FirstLift));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Fide4_2b)));
    assert!(r.message.contains("another position"), "{}", r.message);
    assert!(s.g.obligation().is_none());
}

#[test]
fn a_board_clock_reading_sets_the_clocks_only_where_the_board_is_authoritative() {
    let mut s = S::otb("5+0", None);
    s.wait(10 * SEC);
    let r = s.rej(Event::BoardClockReading { white_ms: 280 * SEC, black_ms: 300 * SEC });
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Ocr2_4)));
    assert_eq!(s.remaining(W), 290 * SEC, "the service's clock stands");

    let mut r = regs("5+0", Mode::OverTheBoard, None);
    r.clock_authority = ClockAuthority::Board;
    let mut s = S::new(r);
    s.wait(10 * SEC);
    let rs = s.ev(Event::BoardClockReading { white_ms: 288 * SEC, black_ms: 300 * SEC });
    // Only the side that differs is set, citing OCR 2.4.
    assert_eq!(rs.len(), 1, "{rs:?}");
    assert_eq!(rs[0].rule, RuleId::Ocr2_4);
    assert_eq!(rs[0].rule.article().unwrap().to_string(), "OCR 2.4");
    assert!(matches!(rs[0].decision, Decision::ClockSet { color: W, remaining_ms: 288_000 }), "{rs:?}");
    assert_eq!(s.remaining(W), 288 * SEC);
    s.wait(SEC);
    assert_eq!(s.remaining(W), 287 * SEC, "the clock runs on from the reading");
    let r = s.rej(Event::BoardClockReading { white_ms: -1, black_ms: 300 * SEC });
    assert_eq!(r.reason, RejectReason::InvalidArgument);
}
