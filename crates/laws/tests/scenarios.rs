//! The acceptance scenarios of section 19 of the rule catalogue
//! (`shared/spec/fide-rules.md`), one test per scenario, named by its AS id.
//! More are in `scenarios_more.rs`; the scenario helper is in `common/`.

mod common;

use arbiter_chess::Role;
use arbiter_laws::event::{Answer, ClaimKind, Event, MoveInput, PenaltyKind, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{DrawOfferRestriction, Mode};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause, GameResult, RejectReason};
use common::*;

// ---------- 19.1 Touch-move ----------

#[test]
fn as_01_adjust_after_announcing() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    s.ev(Event::AnnounceAdjust { color: B });
    s.ev(Event::Touch { color: B, square: sq("b8"), kind: TouchKind::Adjust });
    assert!(s.g.obligation().is_none());
    s.make(B, "d7d6");
    s.press(B);
    assert_eq!(s.g.record().ply_count(), 4);
}

#[test]
fn as_02_adjust_without_announcing_binds() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    let rs = s.ev(Event::Touch { color: B, square: sq("b8"), kind: TouchKind::Adjust });
    assert_eq!(obligations(&rs), [["Na6", "Nc6"]]);
    let rs = s.make(B, "d7d6");
    assert_eq!(obligations(&rs), [["Na6", "Nc6"]], "d6 is refused");
    assert_eq!(s.g.record().ply_count(), 3);
    s.make(B, "b8c6");
    s.press(B);
    assert_eq!(s.g.record().ply_count(), 4);
    assert_eq!(s.g.illegal_move_count(B), 0);
}

#[test]
fn as_03_adjusting_without_the_move_is_a_warning() {
    let mut s = S::otb("90+30", None);
    s.play("e4");
    let w = s.remaining(W);
    let rs = s.ev(Event::AnnounceAdjust { color: W });
    assert!(matches!(rs[0].decision, Decision::Warning { color: W, .. }));
    s.ev(Event::Touch { color: W, square: sq("g1"), kind: TouchKind::Adjust });
    assert!(s.g.obligation().is_none());
    assert_eq!(s.remaining(W), w);
    assert_eq!(s.g.warning_count(W), 2);
}

#[test]
fn as_04_touched_one_piece_moved_another() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::SetClock { color: W, remaining_ms: 89 * MIN + 40 * SEC });
    s.touch(W, "f1");
    s.wait(20 * SEC);
    s.make(W, "g1f3");
    s.press(W);
    // Position restored, increment removed, no illegal move counted.
    assert_eq!(s.g.record().ply_count(), 2);
    assert_eq!(s.remaining(W), 89 * MIN + 20 * SEC);
    assert_eq!(s.g.illegal_move_count(W), 0);
    assert_eq!(s.allowed(), ["Ba6", "Bb5", "Bc4", "Bd3", "Be2"]);
}

#[test]
fn as_05_untouchable_piece_leaves_any_move() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.touch(W, "e5");
    assert!(s.g.obligation().is_none());
    s.play("Nf3");
    assert_eq!(s.g.record().ply_count(), 3);
}

#[test]
fn as_06_touched_capturable_piece_must_be_captured() {
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    s.touch(W, "d5");
    let rs = s.make(W, "b1c3");
    assert_eq!(obligations(&rs), [["exd5"]]);
    s.play("exd5");
    assert_eq!(s.g.record().ply_count(), 3);
}

const CASTLE_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

#[test]
fn as_08_king_and_rook_touched_must_castle() {
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.touch(W, "e1");
    s.touch(W, "h1");
    let rs = s.make(W, "e1f1");
    assert_eq!(obligations(&rs), [["O-O"]]);
    s.make(W, "e1g1");
    s.press(W);
    assert!(s.g.position().fen().starts_with("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b"));
}

#[test]
fn as_09_rook_then_king_no_castling() {
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.touch(W, "h1");
    s.touch(W, "e1");
    s.make(W, "e1g1");
    assert_eq!(s.allowed(), ["Rf1", "Rg1"]);
    assert_eq!(s.g.record().ply_count(), 0);
}

#[test]
fn as_12_promotion_piece_is_final() {
    let mut s = S::otb("90+30", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
    s.ev(Event::PromotionPieceTouched { color: W, role: Role::Knight });
    s.make(W, "e7e8q");
    assert_eq!(s.g.position().board().piece_at(sq("e8")).unwrap().role, Role::Knight);
}

#[test]
fn as_13_released_piece_is_final() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    let r = s.rej(Event::MakeMove { color: W, mv: mi("f3h4") });
    assert_eq!(r.reason, RejectReason::PieceReleased);
    assert_eq!(r.rule, Some(RuleId::Fide4_7));
    s.press(W);
}

const AS14_FEN: &str = "4k3/3q4/8/8/8/8/8/4RK2 b - - 0 28";

#[test]
fn as_14_illegal_move_corrected_before_pressing() {
    let mut s = S::otb("90+30", Some(AS14_FEN));
    s.make(B, "d7d5");
    assert_eq!(s.g.record().ply_count(), 0);
    s.make(B, "d7e7");
    s.press(B);
    assert_eq!(s.g.illegal_move_count(B), 0);
    // Only queen moves were allowed after the illegal attempt.
    let mut s = S::otb("90+30", Some(AS14_FEN));
    s.make(B, "d7d5");
    let rs = s.make(B, "e8f8");
    assert_eq!(obligations(&rs), [["Qe6", "Qe7"]]);
}

#[test]
fn as_15_first_completed_illegal_move() {
    let mut s = S::otb("90+30", Some(AS14_FEN));
    s.ev(Event::SetClock { color: W, remaining_ms: 35 * MIN });
    s.ev(Event::SetClock { color: B, remaining_ms: 41 * MIN + 40 * SEC });
    s.make(B, "d7d5");
    s.wait(30 * SEC);
    let rs = s.press(B);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_5));
    assert_eq!(s.remaining(B), 41 * MIN + 10 * SEC);
    assert_eq!(s.remaining(W), 37 * MIN);
    assert_eq!(s.g.illegal_move_count(B), 1);
    assert_eq!(s.allowed(), ["Qe6", "Qe7"]);
    assert_eq!(s.g.position().fen(), "4k3/3q4/8/8/8/8/8/4RK2 b - - 0 28");
    // Black's clock runs again.
    s.wait(10 * SEC);
    assert_eq!(s.remaining(B), 41 * MIN);
}

#[test]
fn as_16_second_illegal_move_loses() {
    let mut s = S::otb("90+30", Some(AS14_FEN));
    s.make(B, "d7d5");
    s.press(B);
    s.make(B, "d7e7");
    s.press(B);
    s.play("Kf2");
    // Kd8-d7... the king walks into check: e8 to e7 is occupied; use Kf8? f8 is
    // attacked? The rook is on e1: Kd8 is legal, Ke7 impossible. Play a king
    // move into the rook's file instead: after Qe7 the e-file is blocked, so
    // make an illegal queen move.
    s.make(B, "e7a1");
    s.press(B);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

#[test]
fn as_17_second_illegal_move_but_opponent_cannot_mate() {
    let mut s = S::otb("90+30", Some("4k3/8/8/8/8/8/8/3QK3 w - - 0 40"));
    s.make(W, "e1e5");
    s.press(W);
    assert_eq!(s.g.illegal_move_count(W), 1);
    s.make(W, "e1e3");
    s.press(W);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

#[test]
fn as_19_pressing_without_moving() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    s.ev(Event::SetClock { color: B, remaining_ms: 88 * MIN });
    let w = s.remaining(W);
    s.press(B);
    assert_eq!(s.g.illegal_move_count(B), 1);
    assert_eq!(s.remaining(B), 88 * MIN);
    assert_eq!(s.remaining(W), w + 2 * MIN);
    assert_eq!(s.g.position().turn(), B);
}

#[test]
fn as_21_rapid_penalty_is_one_minute() {
    let mut s = S::otb("15+10", Some("4k3/8/8/8/8/8/3r4/4K3 w - - 0 50"));
    s.ev(Event::SetClock { color: W, remaining_ms: 6 * MIN + 12 * SEC });
    s.ev(Event::SetClock { color: B, remaining_ms: 7 * MIN + 30 * SEC });
    s.make(W, "e1d1");
    s.press(W);
    assert_eq!(s.remaining(W), 6 * MIN + 12 * SEC);
    assert_eq!(s.remaining(B), 8 * MIN + 30 * SEC);
    assert_eq!(s.allowed(), ["Kf1", "Kxd2"]);
}

// ---------- 19.3 End of game ----------

#[test]
fn as_26_stalemate_then_resignation_is_void() {
    let mut s = S::otb("3+0", Some("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50"));
    s.make(W, "c1c7");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_1);
    let r = s.rej(Event::Resign { color: B });
    assert_eq!(r.reason, RejectReason::GameOver);
}

#[test]
fn as_27_mate_completes_the_move_and_beats_the_flag() {
    let mut s = S::otb("3+0", Some("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50"));
    s.ev(Event::SetClock { color: W, remaining_ms: 800 });
    s.wait(500);
    s.make(W, "c1c8");
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    // Contrast: the flag is observed before the queen is released.
    let mut s = S::otb("3+0", Some("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50"));
    s.ev(Event::SetClock { color: W, remaining_ms: 800 });
    s.wait(900);
    let rs = s.ev(Event::MakeMove { color: W, mv: mi("c1c8") });
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide6_9));
    assert_eq!(s.result(), Some(GameResult::Draw), "lone king cannot mate");
    // A draw by the flag is still an end by the flag (the server counts flags by it).
    assert_eq!(s.g.end().map(|e| e.cause), Some(EndCause::Flag));
}

#[test]
fn as_28_resignation_when_the_opponent_cannot_mate() {
    let mut s = S::otb("90+30", Some("4k3/8/8/8/8/8/8/3QK3 w - - 0 40"));
    s.ev(Event::Resign { color: W });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_1_2);
    let mut s = S::otb("90+30", Some("4k3/8/8/8/8/8/8/3QK3 w - - 0 40"));
    s.ev(Event::Resign { color: B });
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
}

#[test]
fn as_29_dead_position_by_capture() {
    let mut s = S::otb("3+0", Some("8/8/4k3/8/2b3p1/8/8/3BK3 w - - 0 60"));
    s.make(W, "d1g4");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_2);
}

#[test]
fn as_30_agreement_before_both_have_moved() {
    let mut s = S::otb("90+30", None);
    s.make(W, "e2e4");
    s.ev(Event::OfferDraw { color: W });
    s.press(W);
    let r = s.rej(Event::AcceptDraw { color: B });
    assert_eq!(r.rule, Some(RuleId::Fide5_2_3));
    s.touch(B, "g8");
    assert!(s.g.draw_offer().is_none(), "the offer lapses when Black touches a piece");
}

// ---------- 19.4 Flag-fall ----------

fn flag(fen: &str) -> S {
    let mut s = S::otb("3+0", Some(fen));
    s.ev(Event::SetClock { color: W, remaining_ms: 1_000 });
    s.wait(1_000);
    s.ev(Event::Tick);
    s
}

#[test]
fn as_31_flag_opponent_knight_cannot_mate_lone_king() {
    let s = flag("8/8/8/4k3/8/2n5/8/4K3 w - - 0 60");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_9);
}

#[test]
fn as_32_flag_knight_can_mate_rook() {
    assert_eq!(flag("7K/5k2/8/4n3/8/8/8/R7 w - - 0 60").result(), Some(GameResult::BlackWins));
}

#[test]
fn as_33_flag_knight_cannot_mate_queen() {
    assert_eq!(flag("7K/5k2/8/4n3/8/8/8/Q7 w - - 0 60").result(), Some(GameResult::Draw));
}

#[test]
fn as_35_flag_two_knights_can_helpmate() {
    assert_eq!(flag("8/8/8/8/4n2n/8/5k2/7K w - - 0 60").result(), Some(GameResult::BlackWins));
}

#[test]
fn as_36_flag_opposite_bishops() {
    assert_eq!(flag("7K/5k2/8/8/8/b7/8/1B6 w - - 0 60").result(), Some(GameResult::BlackWins));
}

#[test]
fn as_39_forced_moves_end_the_game() {
    assert_eq!(flag("7k/5Q2/6PK/6q1/8/8/8/8 w - - 0 60").result(), Some(GameResult::Draw));
    assert_eq!(flag("1k6/RPp5/Kp6/5q2/8/8/8/8 w - - 0 60").result(), Some(GameResult::Draw));
}

// ---------- 19.5 Clocks ----------

#[test]
fn as_41_first_increment_at_the_start() {
    let s = S::otb("90+30", None);
    assert_eq!(s.remaining(W), 90 * MIN + 30 * SEC);
    assert_eq!(s.remaining(B), 90 * MIN + 30 * SEC);
}

#[test]
fn as_45_forgotten_press_keeps_the_clock_running() {
    let mut s = S::otb("90+0", None);
    s.ev(Event::SetClock { color: W, remaining_ms: 5 * MIN });
    s.make(W, "e2e4");
    s.wait(5 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

#[test]
fn as_46_press_with_the_other_hand_is_a_warning() {
    let mut s = S::otb("90+30", None);
    s.make(W, "e2e4");
    let rs = s.ev(Event::PressClock { color: W, other_hand: true });
    assert!(rs.iter().any(|r| matches!(r.decision, Decision::Warning { color: W, .. })));
    assert_eq!(s.g.illegal_move_count(W), 0);
}

// ---------- 19.6 Draw offers ----------

#[test]
fn as_47_correct_offer_accepted() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    s.ev(Event::OfferDraw { color: W });
    s.press(W);
    s.wait(2 * MIN);
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.g.warning_count(W), 0);
}

#[test]
fn as_48_offer_before_moving_is_valid_with_a_warning() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    assert_eq!(s.g.warning_count(W), 1);
    s.play("Nf3");
    assert!(s.g.draw_offer().is_some(), "still pending after White's move");
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

#[test]
fn as_51_an_offer_cannot_be_withdrawn() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    s.ev(Event::OfferDraw { color: W });
    s.press(W);
    // There is no "withdraw" event: White declining his own offer is refused.
    let r = s.rej(Event::DeclineDraw { color: W });
    assert_eq!(r.reason, RejectReason::NoOffer);
    s.wait(MIN);
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

#[test]
fn as_52_offer_lapses_by_touching() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    s.ev(Event::OfferDraw { color: W });
    s.press(W);
    s.touch(B, "g8");
    let r = s.rej(Event::AcceptDraw { color: B });
    assert_eq!(r.reason, RejectReason::NoOffer);
    assert_eq!(s.allowed(), ["Ne7", "Nf6", "Nh6"]);
}

#[test]
fn as_53_cn7_alternation() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.cn_draw_alternation = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::DeclineDraw { color: B });
    s.play("Nf3 Nc6");
    let r = s.rej(Event::OfferDraw { color: W });
    assert_eq!(r.rule, Some(RuleId::Cn7));
    s.play("Bc4");
    s.ev(Event::OfferDraw { color: B });
    s.ev(Event::DeclineDraw { color: W });
    s.play("Bc5");
    s.ev(Event::OfferDraw { color: W });
    // Without the option, repeated offers are delivered.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::DeclineDraw { color: B });
    s.ev(Event::OfferDraw { color: W });
}

#[test]
fn as_54_sofia_restriction_but_claims_are_checked() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.draw_offers = DrawOfferRestriction::BeforeMove(30);
    let mut s = S::new(r);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let r = s.rej(Event::OfferDraw { color: B });
    assert_eq!(r.rule, Some(RuleId::Fide9_1_1));
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("f6g8")) });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

// ---------- 19.7 Claims and automatic draws ----------

#[test]
fn as_55_threefold_claim_with_intended_move() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("f6g8")) });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide9_2);
}

#[test]
fn as_56_wrong_intended_move() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let w = s.remaining(W);
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("b8c6")) });
    assert!(s.g.end().is_none());
    assert_eq!(s.remaining(W), w + 2 * MIN);
    assert_eq!(s.allowed(), ["Nc6"]);
    assert_eq!(s.g.illegal_move_count(B), 0, "an incorrect claim is not an illegal move");

    // DEC-18: a written move, even an illegal one, cannot be changed by
    // claiming again: the second claim is incorrect too, and the piece
    // written first must still move.
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let w = s.remaining(W);
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("f6c6")) });
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("b8c6")) });
    assert!(s.g.end().is_none());
    assert_eq!(s.remaining(W), w + 4 * MIN, "two incorrect claims, two penalties");
    assert_eq!(s.allowed(), ["Nd5", "Ne4", "Ng4", "Ng8", "Nh5"]);
    assert_eq!(s.g.illegal_move_count(B), 0, "an incorrect claim is not an illegal move");
}

#[test]
fn as_58_claim_after_playing_the_repeating_move() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    s.make(W, "g1f3");
    let b = s.remaining(B);
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: None });
    assert!(s.g.end().is_none());
    assert_eq!(s.remaining(B), b + 2 * MIN);
    s.press(W);
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: None });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

#[test]
fn as_61_fifty_move_claim_with_intended_move() {
    let mut s = S::otb("90+30", Some("8/8/8/4k3/8/8/4K3/4R3 w - - 99 80"));
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::FiftyMoves, intended: Some(mi("e1a1")) });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide9_3);
    // Variant: Ra1 played on the board: Black may claim.
    let mut s = S::otb("90+30", Some("8/8/8/4k3/8/8/4K3/4R3 w - - 99 80"));
    s.play("Ra1");
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::FiftyMoves, intended: None });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

#[test]
fn as_62_fivefold_is_automatic() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_1);
}

#[test]
fn as_63_seventy_five_moves_and_mate_precedence() {
    let mut s = S::otb("90+30", Some("8/8/8/4k3/8/8/4K3/4R3 w - - 149 100"));
    s.play("Ra1");
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_2);
    let mut s = S::otb("90+30", Some("k7/8/1K6/8/8/8/8/2Q5 w - - 149 100"));
    s.play("Qc8#");
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_1_1);
}

#[test]
fn as_64_incorrect_claim_in_rapid() {
    let mut s = S::otb("15+10", None);
    s.play("e4 e5");
    let b = s.remaining(B);
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: None });
    assert_eq!(s.remaining(B), b + MIN);
}

// ---------- 19.8 Conduct ----------

#[test]
fn as_66_device_found_opponent_wins_even_without_mate() {
    let mut s = S::otb("90+30", Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 40"));
    s.ev(Event::DeviceFound { color: W });
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide11_3b);
}

#[test]
fn as_69_default_time() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(15 * MIN);
    let mut s = S::new(r);
    s.wait(5 * MIN);
    s.ev(Event::PlayerArrived { color: W });
    assert_eq!(s.remaining(W), 85 * MIN + 30 * SEC);
    s.play("e4");
    s.wait(10 * MIN);
    s.ev(Event::Tick);
    // Black never played: the game is unplayed, a forfeit (+/-).
    assert_eq!(s.result(), Some(GameResult::WhiteWinsByForfeit));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_7a);
}

#[test]
fn penalties_of_12_9() {
    let mut s = S::otb("90+30", None);
    let b = s.remaining(B);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::AddTimeToOpponent(MIN) });
    assert_eq!(s.remaining(B), b + MIN);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::Warning });
    assert_eq!(s.g.warning_count(W), 1);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::DeclareLost });
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

// ---------- 19.9 Guidelines III ----------

fn quickplay() -> S {
    let mut r = regs("90", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    s
}

#[test]
fn as_71_quickplay_claim_goes_to_the_arbiter() {
    let mut s = quickplay();
    s.ev(Event::ClaimNoWinningAttempt { color: W });
    let id = s.g.open_questions()[0].id;
    let b = s.remaining(B);
    s.ev(Event::AnswerQuestion { id, answer: Answer::Reject });
    assert_eq!(s.remaining(B), b + 2 * MIN);
    assert!(s.g.open_questions().is_empty());
    let mut s = quickplay();
    s.ev(Event::ClaimNoWinningAttempt { color: W });
    let id = s.g.open_questions()[0].id;
    s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideIII5);
}

#[test]
fn as_72_increment_request() {
    let mut s = quickplay();
    s.ev(Event::RequestIncrement { color: W });
    assert!(s.g.draw_offer().is_some(), "the request is also a draw offer");
    s.ev(Event::DeclineDraw { color: B });
    let id = s.g.open_questions()[0].id;
    let b = s.remaining(B);
    s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!(s.remaining(B), b + 2 * MIN);
    let w = s.remaining(W);
    s.wait(3 * SEC);
    s.make(W, "g1f3");
    s.press(W);
    assert_eq!(s.remaining(W), w - 3 * SEC + 5 * SEC);
}

#[test]
fn as_73_guidelines_iii_not_in_force() {
    let mut s = S::otb("5+0", None);
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    let r = s.rej(Event::ClaimNoWinningAttempt { color: W });
    assert_eq!(r.reason, RejectReason::NotApplicable);
    let mut r = regs("3+0", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    assert!(Game::new(r).is_err(), "never in blitz");
    let mut r = regs("15+10", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    assert!(Game::new(r).is_err(), "never with an increment");
}

// ---------- 19.10 Chess960 and Armageddon ----------

#[test]
fn as_74_chess960_king_move_is_never_guessed_as_castling() {
    let fen = "1k2r3/8/8/8/8/8/8/RK2R3 w AEe - 0 12";
    let mut r = regs("90+30", Mode::OverTheBoard, Some(fen));
    r.chess960 = true;
    let mut s = S::new(r.clone());
    s.make(W, "b1c1");
    assert!(s.g.position().fen().starts_with("1k2r3/8/8/8/8/8/8/R1K1R3 b"));
    let mut s = S::new(r.clone());
    s.ev(Event::MakeMove { color: W, mv: MoveInput { castle: true, ..mi("b1c1") } });
    assert!(s.g.position().fen().starts_with("1k2r3/8/8/8/8/8/8/2KRR3 b"));
    let mut s = S::new(r);
    s.make(W, "b1a1");
    assert!(s.g.position().fen().starts_with("1k2r3/8/8/8/8/8/8/2KRR3 b"));
}

#[test]
fn as_76_armageddon_draw_is_a_win_for_black() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.armageddon = true;
    let mut s = S::new(r);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(mi("f6g8")) });
    let end = s.g.end().unwrap();
    assert_eq!(end.result, GameResult::Draw);
    assert_eq!(end.armageddon_winner, Some(B));
}

// ---------- 19.11 Online ----------

#[test]
fn as_77_online_flag_against_lone_king() {
    let mut s = S::online("3+0", Some("8/8/8/4k3/8/2n5/8/4K3 w - - 0 60"));
    s.wait(3 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Ocr4_3);
}

#[test]
fn as_78_online_automatic_threefold_and_fifty() {
    let mut s = S::online("90+30", None);
    s.submit("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_1);
    let mut s = S::online("90+30", Some("8/8/8/4k3/8/8/4K3/4R3 w - - 99 80"));
    s.submit("Ra1");
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_4);
}

#[test]
fn as_79_illegal_premove_is_dropped() {
    let mut s = S::online("90+30", None);
    s.submit("e4 d5");
    // White premoves exd5 while it is... White's turn: instead queue a premove for
    // Black that becomes illegal.
    s.ev(Event::SubmitMove { color: B, mv: mi("d5e4"), premove: true, lag_ms: 0 });
    let rs = s.ev(Event::SubmitMove { color: W, mv: mi("e4e5"), premove: false, lag_ms: 0 });
    assert!(rs.iter().any(|r| matches!(r.decision, Decision::PremoveDropped { .. })));
    assert_eq!(s.g.position().turn(), B);
    // A legal premove is played at once.
    s.ev(Event::SubmitMove { color: W, mv: mi("d2d4"), premove: true, lag_ms: 0 });
    s.submit("c5");
    assert_eq!(s.g.position().turn(), B);
    assert_eq!(s.g.record().ply_count(), 5);
}

#[test]
fn as_80_online_illegal_move_rejected_no_touch_move() {
    let mut s = S::online("90+30", None);
    let r = s.rej(Event::SubmitMove { color: W, mv: mi("e2e5"), premove: false, lag_ms: 0 });
    assert_eq!(r.rule, Some(RuleId::Ocr3_1_2));
    let r = s.rej(Event::Touch { color: W, square: sq("e2"), kind: TouchKind::Intent });
    assert_eq!(r.reason, RejectReason::NotApplicable);
}

#[test]
fn as_81_disconnection() {
    let mut s = S::online("3+0", None);
    s.ev(Event::SetClock { color: W, remaining_ms: 2 * MIN });
    s.ev(Event::Disconnect { color: W });
    s.wait(90 * SEC);
    s.ev(Event::Reconnect { color: W });
    assert_eq!(s.remaining(W), 30 * SEC);
    s.ev(Event::Disconnect { color: W });
    s.wait(30 * SEC);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    // With a reconnect window the window decides.
    let mut r = regs("3+0", Mode::Online, None);
    r.reconnect_window_ms = Some(20 * SEC);
    let mut s = S::new(r);
    s.ev(Event::Disconnect { color: W });
    s.wait(20 * SEC);
    s.ev(Event::Tick);
    assert_eq!(s.rule_of_end(), RuleId::Ocr11_4_2);
}

#[test]
fn as_83_online_offer_lapses_by_a_move() {
    let mut s = S::online("90+30", None);
    s.submit("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.submit("Nf3");
    s.submit("Nc6");
    let r = s.rej(Event::AcceptDraw { color: B });
    assert_eq!(r.reason, RejectReason::NoOffer);
}

#[test]
fn as_86_third_illegal_move_rule_not_applied() {
    // The second completed illegal king move loses (FIDE 7.5.5), not the
    // third (the CN-1 three-strike rule is never used).
    let mut s = S::otb("90+30", Some("4k3/8/8/8/8/8/r7/4K3 w - - 0 40"));
    s.make(W, "e1e3");
    s.press(W);
    assert!(s.g.end().is_none());
    s.make(W, "e1d2");
    s.press(W);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

// ---------- Machine properties ----------

#[test]
fn timestamps_must_not_go_backwards() {
    let mut s = S::otb("90+30", None);
    s.wait(10);
    s.play("e4");
    s.t -= 5;
    let r = s.rej(Event::Tick);
    assert_eq!(r.reason, RejectReason::TimeWentBackwards);
}

#[test]
fn replay_gives_the_same_game() {
    let r = regs("3+2", Mode::OverTheBoard, None);
    let mut s = S::new(r.clone());
    let mut events = vec![(Event::Start, 0)];
    for (uci, color) in [("e2e4", W), ("e7e5", B), ("g1f3", W)] {
        s.wait(1_234);
        let e = Event::MakeMove { color, mv: mi(uci) };
        s.ev(e.clone());
        events.push((e, s.t));
        s.wait(100);
        let p = Event::PressClock { color, other_hand: false };
        s.ev(p.clone());
        events.push((p, s.t));
    }
    let replayed = Game::replay(r, events.iter()).unwrap();
    assert_eq!(replayed, s.g);
}
