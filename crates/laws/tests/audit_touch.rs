//! The claim and touch-move defects of the laws audit
//! (`shared/spec/reviews/laws-audit.md`, points 1, 3, 4, 5, 8 and 11),
//! each replayed through `Game::apply` as the audit reproduced it, with the
//! rulings the Laws require and the wrong ruling of the audit ruled out.

mod common;

use arbiter_laws::event::{ClaimKind, Event};
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, Ruling};
use common::*;

const CASTLE_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

/// The one obligation ruling of `rs`: its rule and the moves it allows.
fn obligation_of(rs: &[Ruling]) -> (RuleId, Vec<String>) {
    let found: Vec<(RuleId, Vec<String>)> = rs
        .iter()
        .filter_map(|r| match &r.decision {
            Decision::Obligation { allowed, .. } => Some((r.rule, allowed.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "exactly one obligation ruling expected: {rs:?}");
    found.into_iter().next().unwrap()
}

/// The SAN of the move `rs` put on the board, if any.
fn made(rs: &[Ruling]) -> Option<String> {
    rs.iter().find_map(|r| match &r.decision {
        Decision::MoveMade { san, .. } => Some(san.clone()),
        _ => None,
    })
}

/// The clock adjustment of `rs`: (rule, colour, delta).
fn adjustment(rs: &[Ruling]) -> (RuleId, arbiter_chess::Color, i64) {
    rs.iter()
        .find_map(|r| match &r.decision {
            Decision::ClockAdjusted { color, delta_ms, .. } => Some((r.rule, *color, *delta_ms)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no clock adjustment in {rs:?}"))
}

fn claim(s: &mut S, color: arbiter_chess::Color, kind: ClaimKind, written: Option<&str>) -> Vec<Ruling> {
    s.ev(Event::ClaimDraw { color, kind, intended: written.map(mi) })
}

/// Audit 1.1 (d13), DEC-18: 9.2.1.1 and 9.5.3.
#[test]
fn audit_01_written_intended_move_cannot_be_changed() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    // ...Ng8 would repeat the position a third time; Black writes Nc6.
    let white = s.remaining(W);
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("b8c6"));
    assert!(matches!(&rs[0].decision, Decision::ClaimIncorrect { color: B, .. }), "{rs:?}");
    assert_eq!(rs[0].rule, RuleId::Fide9_5c);
    assert_eq!(adjustment(&rs), (RuleId::Fide9_5c, W, 2 * MIN));
    assert_eq!(obligation_of(&rs), (RuleId::Fide9_5c, vec!["Nc6".to_string()]));

    // A second claim writing Ng8 is judged incorrect: no draw, the penalty
    // again, and Nc6 still binds.
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("f6g8"));
    assert!(!s.g.is_over(), "the second claim must not draw: {rs:?}");
    match &rs[0].decision {
        Decision::ClaimIncorrect { color: B, reason } => {
            assert!(reason.contains("cannot be changed") && reason.contains("9.2.1.1"), "{reason}")
        }
        other => panic!("expected an incorrect claim, got {other:?}"),
    }
    assert_eq!(rs[0].rule, RuleId::Fide9_5c);
    assert_eq!(adjustment(&rs), (RuleId::Fide9_5c, W, 2 * MIN));
    assert_eq!(s.remaining(W), white + 4 * MIN);
    assert_eq!(obligation_of(&rs), (RuleId::Fide9_5c, vec!["Nc6".to_string()]));
    assert_eq!(s.allowed(), ["Nc6"]);
    // Nor does the fifty-move claim writing Ng8 change it.
    let rs = claim(&mut s, B, ClaimKind::FiftyMoves, Some("f6g8"));
    assert!(
        matches!(&rs[0].decision, Decision::ClaimIncorrect { reason, .. } if reason.contains("cannot be changed"))
    );
    assert_eq!(s.allowed(), ["Nc6"]);

    // Ng8 is refused; Nc6 is played.
    assert_eq!(made(&s.make(B, "f6g8")), None);
    assert_eq!(made(&s.make(B, "b8c6")), Some("Nc6".to_string()));
    s.press(B);
    assert!(!s.g.is_over());
    assert_eq!(s.g.illegal_move_count(B), 0);

    // A claim without a written move that fails, then one writing the
    // repeating move: nothing was written before, so it draws (9.2.1.1).
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let rs = claim(&mut s, B, ClaimKind::Threefold, None);
    assert!(matches!(rs[0].decision, Decision::ClaimIncorrect { .. }));
    claim(&mut s, B, ClaimKind::Threefold, Some("f6g8"));
    assert_eq!(s.rule_of_end(), RuleId::Fide9_2);
}

/// Audit 1.3 (d06), DEC-19: 9.4, 9.5.3 and 4.3.1.
#[test]
fn audit_03_incorrect_claim_never_releases_touch_move() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1");
    let rs = s.touch(B, "b8");
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, vec!["Na6".to_string(), "Nc6".to_string()]));
    let white = s.remaining(W);
    // 9.4: the right to claim is lost on this move; Ng8 written.
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("f6g8"));
    match &rs[0].decision {
        Decision::ClaimIncorrect { color: B, reason } => assert!(reason.contains("9.4"), "{reason}"),
        other => panic!("expected an incorrect claim, got {other:?}"),
    }
    assert_eq!(adjustment(&rs), (RuleId::Fide9_5c, W, 2 * MIN));
    assert_eq!(s.remaining(W), white + 2 * MIN);
    // The touched knight still binds: not "any move of the piece on f6".
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, vec!["Na6".to_string(), "Nc6".to_string()]));
    assert_eq!(s.allowed(), ["Na6", "Nc6"]);
    assert_eq!(s.g.obligation().unwrap().rule, RuleId::Fide4_3a);
    // Nf6-d5 (the audit's accepted move) and the written Ng8 are refused.
    assert_eq!(made(&s.make(B, "f6d5")), None);
    assert_eq!(made(&s.make(B, "f6g8")), None);
    assert_eq!(made(&s.make(B, "b8c6")), Some("Nc6".to_string()));

    // The written move is forced where the touched piece allows it.
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1");
    s.touch(B, "b8");
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("b8c6"));
    assert_eq!(obligation_of(&rs), (RuleId::Fide9_5c, vec!["Nc6".to_string()]));
    assert_eq!(made(&s.make(B, "b8a6")), None);

    // An illegal written move: the touched piece binds, not the piece written.
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1");
    s.touch(B, "b8");
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("f6f4"));
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, vec!["Na6".to_string(), "Nc6".to_string()]));

    // Nothing touched, an illegal written move: another move of that piece.
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1");
    let rs = claim(&mut s, B, ClaimKind::Threefold, Some("f6f4"));
    let (rule, allowed) = obligation_of(&rs);
    assert_eq!(rule, RuleId::Fide9_5c);
    assert_eq!(allowed, ["Nd5", "Ne4", "Ng4", "Ng8", "Nh5"]);
}

/// Audit 1.4 (t01, t02): 3.7.3.1, 4.3.2 and 4.3.3.
#[test]
fn audit_04_pawn_capturable_en_passant_is_capturable() {
    // t01: the d5 pawn can be taken only en passant: it must be.
    let mut s = S::otb("90+30", None);
    s.play("e4 a6 e5 d5");
    let rs = s.touch(W, "d5");
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3b, vec!["exd6".to_string()]));
    assert_eq!(made(&s.make(W, "g1f3")), None, "Nf3 breaks 4.3.2");
    let rs = s.make(W, "e5d6");
    assert_eq!(made(&rs), Some("exd6".to_string()));
    s.press(W);
    assert!(s.g.position().board().piece_at(sq("d5")).is_none(), "the d5 pawn was taken");

    // t02: own pawn e5, then the pawn d5: exd6 only, not e6.
    let mut s = S::otb("90+30", None);
    s.play("e4 a6 e5 d5");
    s.touch(W, "e5");
    let rs = s.touch(W, "d5");
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3c, vec!["exd6".to_string()]));
    assert_eq!(s.allowed(), ["exd6"]);
    assert_eq!(made(&s.make(W, "e5e6")), None, "e6 does not capture the touched pawn");

    // Another piece touched first that cannot take the pawn: 4.3.3's
    // fall-back still sees the en passant capture of the touched pawn.
    let mut s = S::otb("90+30", None);
    s.play("e4 a6 e5 d5");
    s.touch(W, "a1");
    let rs = s.touch(W, "d5");
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3c, vec!["exd6".to_string()]));

    // Once the en passant right is gone the pawn cannot be taken: any move.
    let mut s = S::otb("90+30", None);
    s.play("e4 a6 e5 d5 Nf3 h6");
    let rs = s.touch(W, "d5");
    assert!(rs.iter().all(|r| !matches!(r.decision, Decision::Obligation { .. })), "{rs:?}");
    assert!(s.g.obligation().is_none());
}

/// Audit 1.5 (i02): 7.5.1 and 4.3.1.
#[test]
fn audit_05_illegal_move_keeps_earlier_touch() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.touch(W, "f1");
    let rs = s.make(W, "g1g3");
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_1
        && matches!(r.decision, Decision::IllegalMoveNotCompleted { color: W, .. })));
    let (white, black) = (s.remaining(W), s.remaining(B));
    s.wait(3 * SEC);
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(adjustment(&rs), (RuleId::Fide7_5_5, B, 2 * MIN));
    assert_eq!(s.remaining(B), black + 2 * MIN);
    assert_eq!(s.remaining(W), white - 3 * SEC, "DEC-9: time used kept, no increment");
    // The bishop touched first binds the replacement, not the knight.
    let bishop: Vec<String> = ["Ba6", "Bb5", "Bc4", "Bd3", "Be2"].map(String::from).to_vec();
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, bishop.clone()));
    assert_eq!(s.allowed(), bishop);
    assert_eq!(made(&s.make(W, "g1f3")), None, "the knight move is refused");
    assert_eq!(made(&s.make(W, "f1c4")), Some("Bc4".to_string()));
    s.press(W);
    assert_eq!(s.g.illegal_move_count(W), 1);

    // A piece touched first that cannot move: the illegally moved piece
    // is the first touched piece that can (4.3.1).
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.touch(W, "a1");
    s.make(W, "g1g3");
    let rs = s.press(W);
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, ["Ne2", "Nf3", "Nh3"].map(String::from).to_vec()));

    // observe = false: the illegal move stands until Black claims it
    // (A.5.2); the claim reinstates the position and the bishop binds.
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.observe = false;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.touch(W, "f1");
    s.make(W, "g1g3");
    s.press(W);
    let rs = s.ev(Event::ClaimIllegalMove { color: B });
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_3a, bishop));
}

/// Audit 1.8 (t06), DEC-20: 7.5.4, 7.5.1, 4.4.1 and 4.7.2.
#[test]
fn audit_08_two_handed_castling_is_replaced_by_castling() {
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.make(W, "e1g1");
    s.ev(Event::UsedTwoHands { color: W });
    let (white, black) = (s.remaining(W), s.remaining(B));
    s.wait(4 * SEC);
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_4, 1)]);
    assert_eq!(adjustment(&rs), (RuleId::Fide7_5_5, B, 2 * MIN));
    assert_eq!(s.remaining(B), black + 2 * MIN);
    assert_eq!(s.remaining(W), white - 4 * SEC, "DEC-9: time used kept, no increment");
    assert_eq!(s.g.position().king(W), sq("e1"), "the position before the castling is reinstated");
    // Only O-O, not Kd1, Kf1 or O-O-O.
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_4a, vec!["O-O".to_string()]));
    assert_eq!(s.allowed(), ["O-O"]);
    assert_eq!(made(&s.make(W, "e1f1")), None);
    assert_eq!(made(&s.make(W, "e1c1")), None);
    assert_eq!(made(&s.make(W, "e1g1")), Some("O-O".to_string()));
    s.press(W);
    assert_eq!(s.g.position().king(W), sq("g1"));
    assert_eq!(s.g.illegal_move_count(W), 1);

    // observe = false: the two-handed castling stands until Black claims
    // it; the claim reinstates the position and O-O is the replacement.
    let mut r = regs("90+30", Mode::OverTheBoard, Some(CASTLE_FEN));
    r.observe = false;
    let mut s = S::new(r);
    s.make(W, "e1g1");
    s.ev(Event::UsedTwoHands { color: W });
    s.press(W);
    let rs = s.ev(Event::ClaimIllegalMove { color: B });
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_4, 1)]);
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_4a, vec!["O-O".to_string()]));

    // A game stored under rulings revision 1 (before DEC-20) replays with
    // the ruling it was played under: any king move.
    let mut r = regs("90+30", Mode::OverTheBoard, Some(CASTLE_FEN));
    r.rulings_revision = Regulations::FIRST_RULINGS;
    let mut s = S::new(r);
    s.make(W, "e1g1");
    s.ev(Event::UsedTwoHands { color: W });
    let rs = s.press(W);
    assert_eq!(
        obligation_of(&rs),
        (RuleId::Fide4_3a, ["Kd1", "Kf1", "O-O", "O-O-O"].map(String::from).to_vec())
    );

    // The same with queenside castling.
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.make(W, "e1c1");
    s.ev(Event::UsedTwoHands { color: W });
    let rs = s.press(W);
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_4a, vec!["O-O-O".to_string()]));
}

/// Audit 1.11 (t04), DEC-21: 4.4.1 and 4.4.3.
#[test]
fn audit_11_king_then_rook_without_castling_right_immobile_king_any_move() {
    // The king on e1 cannot move; the a1 rook has no castling right.
    let fen = "4k3/8/8/8/8/8/3PPP2/R2QKB1R w K - 0 1";
    let every_move: Vec<String> = {
        let pos = arbiter_chess::Position::from_fen(fen).unwrap();
        let mut v: Vec<String> = pos.legal_moves().iter().map(|m| pos.san(*m)).collect();
        v.sort();
        v
    };
    let mut s = S::otb("90+30", Some(fen));
    s.touch(W, "e1");
    let rs = s.touch(W, "a1");
    // 4.4.3: any legal move, not the rook moves of 4.3.1 (Ra2 ... Rc1).
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_4c, every_move.clone()));
    assert!(s.allowed().len() > 9 && s.allowed().contains(&"d4".to_string()));
    assert_eq!(made(&s.make(W, "d2d4")), Some("d4".to_string()));

    // The same ruling as with the castling rook h1 (castling blocked by f1).
    let mut s = S::otb("90+30", Some(fen));
    s.touch(W, "e1");
    let rs = s.touch(W, "h1");
    assert_eq!(obligation_of(&rs), (RuleId::Fide4_4c, every_move));

    // A king that can move: another king move (4.4.3), as for h1.
    let fen = "4k3/8/8/8/8/8/8/R3K2R w K - 0 1";
    let mut s = S::otb("90+30", Some(fen));
    s.touch(W, "e1");
    let rs = s.touch(W, "a1");
    let (rule, allowed) = obligation_of(&rs);
    assert_eq!(rule, RuleId::Fide4_4c);
    assert_eq!(allowed, ["Kd1", "Kd2", "Ke2", "Kf1", "Kf2", "O-O"]);

    // The rook touched first: it must move (4.3.1), unchanged.
    let mut s = S::otb("90+30", Some(fen));
    s.touch(W, "a1");
    s.touch(W, "e1");
    assert_eq!(s.g.obligation().unwrap().rule, RuleId::Fide4_3a);
    assert!(s.allowed().iter().all(|m| m.starts_with('R')), "{:?}", s.allowed());
}
