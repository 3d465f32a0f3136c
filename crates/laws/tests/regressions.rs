//! Regression tests for bugs found by the fuzz target (`fuzz/`) and while
//! writing the scenario tests: each failed before its fix.

mod common;

use arbiter_laws::clock::MAX_TIMESTAMP;
use arbiter_laws::event::Event;
use arbiter_laws::game::Game;
use arbiter_laws::regulations::Mode;
use arbiter_laws::ruling::RejectReason;
use common::*;

/// A rejected event must leave the game exactly as it was: applies `e` at
/// `at` and checks that.
fn rejected_unchanged(g: &mut Game, e: Event, at: i64) -> RejectReason {
    let before = g.clone();
    let r = g.apply(&e, at).expect_err("the event must be rejected");
    assert_eq!(*g, before, "the rejected {e:?} changed the game");
    r.reason
}

#[test]
fn timestamps_out_of_range_are_rejected_without_change() {
    // Bug: `Start` at a negative instant recorded the start, then the clock
    // refused the instant: a rejection that changed the game.
    let r = regs("90+30", Mode::OverTheBoard, None);
    let mut g = Game::new(r.clone()).unwrap();
    assert_eq!(rejected_unchanged(&mut g, Event::Start, -1), RejectReason::InvalidArgument);
    assert_eq!(
        rejected_unchanged(&mut g, Event::PlayerArrived { color: W }, -1),
        RejectReason::InvalidArgument
    );
    assert_eq!(rejected_unchanged(&mut g, Event::Start, MAX_TIMESTAMP + 1), RejectReason::InvalidArgument);
    g.apply(&Event::Start, 0).unwrap();
    assert_eq!(rejected_unchanged(&mut g, Event::Tick, i64::MAX), RejectReason::InvalidArgument);
    assert!(g.is_started());
}

#[test]
fn a_draw_restriction_also_forbids_agreements() {
    // Bug: a Guidelines III.4 request is also a draw offer, and it was
    // created (and could be accepted) although the regulations forbid
    // offers and agreements before move 30 (9.1.1).
    let mut r = regs("90", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    r.draw_offers = arbiter_laws::regulations::DrawOfferRestriction::BeforeMove(30);
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    s.ev(Event::RequestIncrement { color: W });
    assert!(s.g.draw_offer().is_none(), "no offer where offers are not allowed");
    assert_eq!(s.g.open_questions().len(), 1, "the increment request itself stands");
    let r = s.rej(Event::AcceptDraw { color: B });
    assert_eq!(r.reason, RejectReason::NoOffer);
}
