//! Every rule id the state machine can emit, produced by at least one test
//! that asserts it appears in a ruling or a rejection. The last test checks
//! that every [`RuleId`] is named in this file, so a new rule id cannot go
//! untested.

mod common;

use arbiter_chess::Role;
use arbiter_laws::event::{
    Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SetupError, TouchKind,
};
use arbiter_laws::regulations::{DrawOfferRestriction, Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameResult};
use common::*;

const CASTLE_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
const STALEMATE_FEN: &str = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 50";
const DEAD_FEN: &str = "8/8/4k3/8/2b3p1/8/8/3BK3 w - - 0 60";
const FIFTY_FEN: &str = "8/8/8/4k3/8/8/4K3/4R3 w - - 99 80";

fn assert_ruling(s: &S, rule: RuleId) {
    assert!(s.has_rule(rule), "no ruling under {rule}: {:?}", rules(&s.log));
}

/// `e` is rejected under `rule`.
fn assert_rejected(s: &mut S, e: Event, rule: RuleId) {
    let r = s.rej(e);
    assert_eq!(r.rule, Some(rule), "{r:?}");
}

fn quickplay() -> S {
    let mut r = regs("90", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    s
}

// ---------- Start, clocks, arbiter ----------

#[test]
fn fide_6_6_start() {
    let mut s = S::unstarted(regs("90+30", Mode::OverTheBoard, None));
    assert_rejected(&mut s, Event::MakeMove { color: W, mv: mi("e2e4") }, RuleId::Fide6_6);
    s.ev(Event::Start);
    assert_ruling(&s, RuleId::Fide6_6);
    assert_rejected(&mut s, Event::Start, RuleId::Fide6_6);
}

#[test]
fn fide_6_rejects_what_the_clock_refuses() {
    let mut s = S::otb("90+30", None);
    assert_rejected(&mut s, Event::AdjustClock { color: W, delta_ms: -(91 * MIN) }, RuleId::Fide6);
}

#[test]
fn fide_6_10_clock_adjusted_and_set() {
    let mut s = S::otb("90+30", None);
    let rs = s.ev(Event::AdjustClock { color: B, delta_ms: MIN });
    assert!(matches!(rs[0].decision, Decision::ClockAdjusted { delta_ms: 60_000, .. }));
    let rs = s.ev(Event::SetClock { color: B, remaining_ms: 10 * MIN });
    assert_eq!(rs[0].rule, RuleId::Fide6_10);
    assert_eq!(s.remaining(B), 10 * MIN);
}

#[test]
fn fide_6_11_pause_and_resume() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::PauseClocks);
    assert_rejected(&mut s, Event::PauseClocks, RuleId::Fide6_11);
    assert_rejected(&mut s, Event::MakeMove { color: W, mv: mi("e2e4") }, RuleId::Fide6_11);
    assert_rejected(&mut s, Event::PressClock { color: W, other_hand: false }, RuleId::Fide6_11);
    s.ev(Event::ResumeClocks);
    assert_rejected(&mut s, Event::ResumeClocks, RuleId::Fide6_11);
    assert_ruling(&s, RuleId::Fide6_11);
}

#[test]
fn fide_6_2a_move_completed_and_6_2c_other_hand() {
    let mut s = S::otb("90+30", None);
    s.make(W, "e2e4");
    let rs = s.press(W);
    assert!(matches!(rs[0].decision, Decision::MoveCompleted { .. }));
    assert_eq!(rs[0].rule, RuleId::Fide6_2a);
    s.make(B, "e7e5");
    s.ev(Event::PressClock { color: B, other_hand: true });
    assert_ruling(&s, RuleId::Fide6_2c);
}

#[test]
fn dec_11_press_of_a_clock_that_is_not_running() {
    let mut s = S::otb("90+30", None);
    s.play("e4");
    assert_rejected(&mut s, Event::PressClock { color: W, other_hand: false }, RuleId::Dec11);
}

#[test]
fn fide_6_7a_default_time() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(MIN);
    let mut s = S::new(r);
    s.ev(Event::PlayerArrived { color: W });
    assert_rejected(&mut s, Event::PlayerArrived { color: W }, RuleId::Fide6_7a);
    s.wait(MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::WhiteWinsByForfeit));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_7a);
}

#[test]
fn fide_6_9_flag() {
    let mut s = S::otb("3+0", None);
    s.wait(3 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_9);
}

#[test]
fn fide_12_9_penalties() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::Warning });
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::DeductTime(SEC) });
    assert_ruling(&s, RuleId::Fide12_9);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::DeclareLost });
    assert_eq!(s.rule_of_end(), RuleId::Fide12_9);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

#[test]
fn fide_12_9_4_and_12_9_5_score_penalties_apply_to_the_result() {
    use arbiter_laws::scoring::Score;
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    let rs = s.ev(Event::Penalty { color: W, kind: PenaltyKind::ReduceScore });
    assert_eq!(rules(&rs), [RuleId::Fide12_9_5]);
    assert!(!s.g.is_over(), "a score penalty does not end the game");
    s.play("Nf3");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Adjusted { white: Score::Loss, black: Score::Draw }));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_3);
    // Given after the game, 12.9.4 changes the result at once.
    let rs = s.ev(Event::Penalty { color: B, kind: PenaltyKind::RaiseOpponentScore });
    assert_eq!(rules(&rs), [RuleId::Fide12_9_4, RuleId::Fide12_9_4]);
    // Both penalised: both lose.
    assert_eq!(s.result(), Some(GameResult::Adjusted { white: Score::Loss, black: Score::Loss }));
    assert_eq!(s.g.end().unwrap().board_result, Some(GameResult::Draw));
}

// ---------- Article 7.2, 7.3: set-up errors; service outages ----------

#[test]
fn fide_7_2a_wrong_initial_position_annuls() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6");
    s.ev(Event::SetupErrorFound { error: SetupError::WrongInitialPosition });
    assert_eq!(s.rule_of_end(), RuleId::Fide7_2a);
    assert_eq!(s.result(), Some(GameResult::Annulled));
}

#[test]
fn fide_7_2b_board_orientation_and_a_5_1_closed_after_ten_moves() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    let rs = s.ev(Event::SetupErrorFound { error: SetupError::BoardWronglyOriented });
    assert_eq!(rules(&rs), [RuleId::Fide7_2b]);
    assert!(!s.g.is_over());
    let mut s = S::otb("15+10", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 e3 e6 Qe2 Qe7 Qd1 Qd8 d3 d6 Nf3 Nf6 Ng1 Ng8");
    assert_rejected(
        &mut s,
        Event::SetupErrorFound { error: SetupError::BoardWronglyOriented },
        RuleId::FideA5_1,
    );
    assert_rejected(
        &mut s,
        Event::SetupErrorFound { error: SetupError::WrongInitialPosition },
        RuleId::FideA5_1,
    );
}

#[test]
fn fide_7_3_and_ocr_15_2_colours_reversed() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::SetupErrorFound { error: SetupError::ColoursReversed });
    assert_eq!(s.rule_of_end(), RuleId::Fide7_3);
    assert_eq!(s.result(), Some(GameResult::Annulled));
    let mut s = S::online("90+30", None);
    s.submit("e4 e5");
    s.ev(Event::SetupErrorFound { error: SetupError::ColoursReversed });
    assert_eq!(s.rule_of_end(), RuleId::Ocr15_2);
    assert_rejected(&mut s, Event::SetupErrorFound { error: SetupError::ColoursReversed }, RuleId::Ocr15_2);
}

#[test]
fn fide_6_11_service_resumed() {
    let mut s = S::unstarted(regs("90+30", Mode::OverTheBoard, None));
    assert_rejected(&mut s, Event::ServiceResumed { outage_ms: 1_000 }, RuleId::Fide6_11);
    s.ev(Event::Start);
    let rs = s.ev(Event::ServiceResumed { outage_ms: 1_000 });
    assert_eq!(rules(&rs), [RuleId::Fide6_11]);
}

#[test]
fn fide_8_7_result_declared() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::DeclareResult { result: DeclaredResult::BothLose });
    assert_eq!(s.rule_of_end(), RuleId::Fide8_7);
    assert_eq!(s.result(), Some(GameResult::BothLose));
}

#[test]
fn fide_11_3b_device() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::DeviceFound { color: B });
    assert_eq!(s.rule_of_end(), RuleId::Fide11_3b);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
}

// ---------- Article 4 ----------

#[test]
fn fide_4_2a_adjusting_without_the_move() {
    let mut s = S::otb("90+30", None);
    s.play("e4");
    s.ev(Event::Touch { color: W, square: sq("g1"), kind: TouchKind::Adjust });
    assert_ruling(&s, RuleId::Fide4_2a);
}

#[test]
fn fide_4_3a_4_3b_4_3c_touched_pieces() {
    let mut s = S::otb("90+30", None);
    let rs = s.touch(W, "g1");
    assert_eq!(rs[0].rule, RuleId::Fide4_3a);
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    let rs = s.touch(W, "d5");
    assert_eq!(rs[0].rule, RuleId::Fide4_3b);
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    s.touch(W, "e4");
    let rs = s.touch(W, "d5");
    assert_eq!(rs[0].rule, RuleId::Fide4_3c);
    assert_eq!(s.allowed(), ["exd5"]);
}

#[test]
fn fide_4_4a_4_4b_4_4c_castling_touches() {
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.touch(W, "e1");
    let rs = s.touch(W, "h1");
    assert_eq!(rs[0].rule, RuleId::Fide4_4a);
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    s.touch(W, "h1");
    let rs = s.touch(W, "e1");
    assert_eq!(rs[0].rule, RuleId::Fide4_4b);
    let mut s = S::otb("90+30", Some("4k3/8/8/2b5/8/8/8/R3K2R w KQ - 0 1"));
    s.touch(W, "e1");
    let rs = s.touch(W, "h1");
    assert_eq!(rs[0].rule, RuleId::Fide4_4c);
}

#[test]
fn fide_4_7_released_piece() {
    let mut s = S::otb("90+30", None);
    s.make(W, "g1f3");
    assert_rejected(&mut s, Event::MakeMove { color: W, mv: mi("f3g5") }, RuleId::Fide4_7);
    assert_ruling(&s, RuleId::Fide4_7);
}

#[test]
fn fide_3_7_promotion_piece() {
    let mut s = S::otb("90+30", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
    assert_rejected(&mut s, Event::PromotionPieceTouched { color: W, role: Role::King }, RuleId::Fide3_7);
}

#[test]
fn fide_1_3_only_the_player_having_the_move_moves() {
    let mut s = S::otb("90+30", None);
    assert_rejected(&mut s, Event::MakeMove { color: B, mv: mi("e7e5") }, RuleId::Fide1_3);
}

#[test]
fn fide_4_no_submitted_moves_over_the_board() {
    let mut s = S::otb("90+30", None);
    assert_rejected(
        &mut s,
        Event::SubmitMove { color: W, mv: mi("e2e4"), premove: false, lag_ms: 0 },
        RuleId::Fide4,
    );
}

// ---------- Article 5 ----------

#[test]
fn fide_5_1_1_checkmate_and_5_2_1_stalemate() {
    let mut s = S::otb("90+30", Some(STALEMATE_FEN));
    s.make(W, "c1c8");
    assert_eq!(s.rule_of_end(), RuleId::Fide5_1_1);
    let mut s = S::otb("90+30", Some(STALEMATE_FEN));
    s.make(W, "c1c7");
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_1);
}

#[test]
fn fide_5_1_2_resignation_and_5_2_2_dead_position() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::Resign { color: W });
    assert_eq!(s.rule_of_end(), RuleId::Fide5_1_2);
    let mut s = S::otb("90+30", Some(DEAD_FEN));
    s.make(W, "d1g4");
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_2);
}

#[test]
fn fide_5_2_3_agreement() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::OfferDraw { color: W });
    assert_rejected(&mut s, Event::AcceptDraw { color: B }, RuleId::Fide5_2_3);
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_3);
}

// ---------- Article 7 ----------

#[test]
fn fide_7_1_restored_position_sets_the_move_counter() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    let rs = s.ev(Event::ReinstatePosition { ply: 1 });
    assert_eq!(rules(&rs), [RuleId::Fide7_5_1, RuleId::Fide7_1, RuleId::Fide7_1]);
    assert_eq!(s.g.clock().moves_completed(W), 1);
    assert_eq!(s.g.clock().moves_completed(B), 0);
}

#[test]
fn fide_7_5_1_and_7_5_5_illegal_moves() {
    let mut s = S::otb("90+30", None);
    let rs = s.make(W, "e2e5");
    assert!(matches!(rs[0].decision, Decision::IllegalMoveNotCompleted { .. }));
    assert_eq!(rs[0].rule, RuleId::Fide7_5_1);
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert!(rules(&rs).contains(&RuleId::Fide7_5_5));
    let rs = s.ev(Event::ReinstatePosition { ply: 0 });
    assert_eq!(rs[0].rule, RuleId::Fide7_5_1);
    assert_rejected(&mut s, Event::ReinstatePosition { ply: 5 }, RuleId::Fide7_5_1);
}

#[test]
fn fide_7_5_2_unfinished_promotion() {
    let mut s = S::otb("90+30", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
    let rs = s.ev(Event::MakeMove { color: W, mv: MoveInput { promotion: None, ..mi("e7e8") } });
    assert_eq!(rs[0].rule, RuleId::Fide7_5_2);
    let rs = s.press(W);
    assert_eq!(rs[0].rule, RuleId::Fide7_5_2);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_2, 1)], "the penalty names 7.5.2, not 7.5.1");
    assert_eq!(s.g.illegal_move_count(W), 1);
    assert_eq!(s.g.position().board().piece_at(sq("e8")).unwrap().role, Role::Queen);
}

#[test]
fn fide_7_5_3_clock_pressed_without_a_move() {
    let mut s = S::otb("90+30", None);
    s.play("e4");
    let rs = s.press(B);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_3, 1)]);
    assert!(rules(&rs).contains(&RuleId::Fide7_5_5));
    assert_eq!(s.g.illegal_move_count(B), 1);
}

#[test]
fn fide_7_5_4_two_hands() {
    let mut s = S::otb("90+30", None);
    s.make(W, "e2e4");
    s.ev(Event::UsedTwoHands { color: W });
    s.press(W);
    assert_ruling(&s, RuleId::Fide7_5_4);
    assert_eq!(s.g.record().ply_count(), 0);
}

// ---------- Article 9 ----------

#[test]
fn fide_9_1_1_restrictions() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.draw_offers = DrawOfferRestriction::WithoutArbiter;
    let mut s = S::new(r);
    assert_rejected(&mut s, Event::OfferDraw { color: W }, RuleId::Fide9_1_1);
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.draw_offers = DrawOfferRestriction::BeforeMove(2);
    let mut s = S::new(r);
    s.play("e4 e5");
    assert_rejected(&mut s, Event::OfferDraw { color: W }, RuleId::Fide9_1_1);
}

#[test]
fn fide_9_1_2a_and_9_1_2b_offers() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    assert_rejected(&mut s, Event::AcceptDraw { color: B }, RuleId::Fide9_1_2b);
    s.make(W, "g1f3");
    let rs = s.ev(Event::OfferDraw { color: W });
    assert_eq!(rs[0].rule, RuleId::Fide9_1_2a);
    assert_rejected(&mut s, Event::OfferDraw { color: W }, RuleId::Fide9_1_2b);
    s.press(W);
    let rs = s.ev(Event::DeclineDraw { color: B });
    assert_eq!(rs[0].rule, RuleId::Fide9_1_2b);
}

#[test]
fn fide_9_2_9_3_claims_and_9_5c_incorrect_claims() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: None });
    assert_eq!(s.rule_of_end(), RuleId::Fide9_2);
    let mut s = S::otb("90+30", Some(FIFTY_FEN));
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::FiftyMoves, intended: Some(mi("e1a1")) });
    assert_eq!(s.rule_of_end(), RuleId::Fide9_3);
    let mut s = S::otb("90+30", None);
    let rs = s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::FiftyMoves, intended: Some(mi("e2e4")) });
    assert!(matches!(rs[0].decision, Decision::ClaimIncorrect { .. }));
    assert_eq!(rs[0].rule, RuleId::Fide9_5c);
    assert_eq!(s.allowed(), ["e4"]);
}

#[test]
fn fide_9_6_1_fivefold_and_9_6_2_seventy_five_moves() {
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_1);
    let mut s = S::otb("90+30", Some("8/8/8/4k3/8/8/4K3/4R3 w - - 149 100"));
    s.play("Ra1");
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_2);
}

// ---------- Guidelines III and questions ----------

#[test]
fn fide_iii_4_and_iii_5_and_dec_12() {
    let mut s = quickplay();
    let rs = s.ev(Event::RequestIncrement { color: W });
    // The offer and the question left to the arbiter (DEC-12) both cite
    // III.4, the Article the question is about.
    assert!(matches!(rs[1].decision, Decision::QuestionOpened { .. }), "{rs:?}");
    assert_eq!(rules(&rs), [RuleId::FideIII4, RuleId::FideIII4]);
    let id = s.g.open_questions()[0].id;
    s.ev(Event::AnswerQuestion { id, answer: Answer::Reject });
    assert_rejected(&mut s, Event::AnswerQuestion { id, answer: Answer::Accept }, RuleId::Dec12);
    let mut s = quickplay();
    let rs = s.ev(Event::ClaimNoWinningAttempt { color: W });
    assert_eq!(rs[0].rule, RuleId::FideIII5);
    assert_eq!(rs[1].rule, RuleId::FideIII5, "the question cites III.5");
    let mut s = S::otb("90+30", None);
    assert_rejected(&mut s, Event::ClaimNoWinningAttempt { color: W }, RuleId::FideIII5);
    // A game of the first revision of the rulings keeps citing DEC-12.
    let mut r = regs("90", Mode::OverTheBoard, None);
    r.guidelines_iii = true;
    r.rulings_revision = Regulations::FIRST_RULINGS;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    let rs = s.ev(Event::RequestIncrement { color: W });
    assert_eq!(rules(&rs), [RuleId::FideIII4, RuleId::Dec12]);
}

// ---------- CN options ----------

#[test]
fn cn_7_alternation() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.cn_draw_alternation = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::DeclineDraw { color: B });
    assert_rejected(&mut s, Event::OfferDraw { color: W }, RuleId::Cn7);
}

// ---------- Online ----------

#[test]
fn ocr_1_3_and_ocr_3_1_no_board_acts_online() {
    let mut s = S::online("90+30", None);
    assert_rejected(
        &mut s,
        Event::Touch { color: W, square: sq("e2"), kind: TouchKind::Intent },
        RuleId::Ocr1_3,
    );
    assert_rejected(&mut s, Event::AnnounceAdjust { color: W }, RuleId::Ocr1_3);
    assert_rejected(&mut s, Event::MakeMove { color: W, mv: mi("e2e4") }, RuleId::Ocr3_1);
    let rs = s.ev(Event::SubmitMove { color: W, mv: mi("e2e4"), premove: false, lag_ms: 0 });
    assert_eq!(rs[0].rule, RuleId::Ocr3_1);
    assert_eq!(rs[1].rule, RuleId::Ocr4_4);
    assert!(matches!(rs[1].decision, Decision::MoveCompleted { .. }));
}

#[test]
fn ocr_3_1_2_illegal_and_ocr_4_4_not_your_turn() {
    let mut s = S::online("90+30", None);
    assert_rejected(
        &mut s,
        Event::SubmitMove { color: W, mv: mi("e2e5"), premove: false, lag_ms: 0 },
        RuleId::Ocr3_1_2,
    );
    assert_rejected(
        &mut s,
        Event::SubmitMove { color: B, mv: mi("e7e5"), premove: false, lag_ms: 0 },
        RuleId::Ocr4_4,
    );
    assert_rejected(&mut s, Event::PressClock { color: W, other_hand: false }, RuleId::Ocr4_4);
}

#[test]
fn ocr_3_1_5_premoves() {
    let mut s = S::online("90+30", None);
    let rs = s.ev(Event::SubmitMove { color: B, mv: mi("e7e5"), premove: true, lag_ms: 0 });
    assert!(matches!(rs[0].decision, Decision::PremoveQueued { .. }));
    assert_eq!(rs[0].rule, RuleId::Ocr3_1_5);
    s.submit("e4");
    assert_eq!(s.g.record().ply_count(), 2, "the premove was played at once");
    // Black premoves exd4, but White does not put a piece on d4.
    s.ev(Event::SubmitMove { color: B, mv: mi("e5d4"), premove: true, lag_ms: 0 });
    let rs = s.ev(Event::SubmitMove { color: W, mv: mi("g1f3"), premove: false, lag_ms: 0 });
    assert!(
        rs.iter()
            .any(|r| r.rule == RuleId::Ocr3_1_5 && matches!(r.decision, Decision::PremoveDropped { .. }))
    );
}

#[test]
fn ocr_4_3_online_flag() {
    let mut s = S::online("3+0", None);
    s.wait(3 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.rule_of_end(), RuleId::Ocr4_3);
}

#[test]
fn ocr_5_3_offer_rejected_by_a_move() {
    let mut s = S::online("90+30", None);
    s.submit("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.submit("Nf3");
    let rs = s.ev(Event::SubmitMove { color: B, mv: mi("b8c6"), premove: false, lag_ms: 0 });
    assert!(rs.iter().any(|r| r.rule == RuleId::Ocr5_3));
}

#[test]
fn ocr_5_4_automatic_draws() {
    let mut s = S::online("90+30", None);
    s.submit("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_1);
    let mut s = S::online("90+30", Some(STALEMATE_FEN));
    s.submit("Qc7");
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_2);
    let mut s = S::online("90+30", Some(DEAD_FEN));
    s.submit("Bxg4+");
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_3);
    let mut s = S::online("90+30", Some(FIFTY_FEN));
    s.submit("Ra1");
    assert_eq!(s.rule_of_end(), RuleId::Ocr5_4_4);
}

#[test]
fn ocr_11_disconnections() {
    let mut s = S::otb("90+30", None);
    assert_rejected(&mut s, Event::Disconnect { color: W }, RuleId::Ocr11);
    let mut r = regs("3+0", Mode::Online, None);
    r.reconnect_window_ms = Some(30 * SEC);
    let mut s = S::new(r);
    assert_rejected(&mut s, Event::Reconnect { color: W }, RuleId::Ocr11);
    let rs = s.ev(Event::Disconnect { color: W });
    assert_eq!(rs[0].rule, RuleId::Ocr11_4);
    let rs = s.ev(Event::Reconnect { color: W });
    assert_eq!(rs[0].rule, RuleId::Ocr11_4_1);
    s.ev(Event::Disconnect { color: B });
    s.wait(30 * SEC);
    s.ev(Event::Tick);
    assert_eq!(s.rule_of_end(), RuleId::Ocr11_4_2);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
}

#[test]
fn ocr_15_3_and_15_4_arbiter_corrections() {
    let mut s = S::online("90+30", None);
    s.submit("e4 e5");
    s.ev(Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!(s.rule_of_end(), RuleId::Ocr15_3);
    s.ev(Event::DeclareResult { result: DeclaredResult::WhiteWins });
    assert_eq!(s.rule_of_end(), RuleId::Ocr15_4);
}

#[test]
fn fide_4_2b_a_sensed_touch_is_evidence_of_a_touch() {
    use arbiter_chess::{Piece, Role};
    use arbiter_laws::event::SensedTouch;
    let mut s = S::otb("90+30", None);
    let piece = Piece { color: W, role: Role::Knight };
    let rs = s.ev(Event::TouchSensed { square: sq("b1"), piece, sensed: SensedTouch::FirstLift });
    assert_eq!(rs[0].rule, RuleId::Fide4_2b);
    assert!(
        matches!(&rs[0].decision, Decision::TouchSensed { binding: false, would_allow, .. } if would_allow.len() == 2)
    );
}

#[test]
fn ocr_2_4_the_boards_clock_where_the_regulations_say_so() {
    let mut r = regs("5+0", Mode::OverTheBoard, None);
    r.clock_authority = arbiter_laws::regulations::ClockAuthority::Board;
    let mut s = S::new(r);
    let rs = s.ev(Event::BoardClockReading { white_ms: 4 * MIN, black_ms: 5 * MIN });
    assert_eq!(rs[0].rule, RuleId::Ocr2_4);
    assert_eq!(s.remaining(W), 4 * MIN);
    let mut s = S::otb("5+0", None);
    assert_rejected(
        &mut s,
        Event::BoardClockReading { white_ms: 4 * MIN, black_ms: 5 * MIN },
        RuleId::Ocr2_4,
    );
}

// ---------- Completeness ----------

/// Rule ids no test of this file produces: A.5.2 and A.5.4 belong to
/// `observe = false` (see `observe.rs`), and `ARB`, the server's plain
/// arbiter action, is never recorded by the state machine.
const NOT_EMITTED: &[RuleId] = &[RuleId::FideA5_2, RuleId::FideA5_4, RuleId::Arb];

/// `true` if `text` names `id` as `RuleId::Variant` (whole name: `Fide4` is
/// not named by `Fide4_3a`).
fn names(text: &str, id: RuleId) -> bool {
    let name = format!("RuleId::{id:?}");
    text.match_indices(&name).any(|(at, _)| {
        text[at + name.len()..].chars().next().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    })
}

#[test]
fn every_rule_id_is_tested_here() {
    let this = include_str!("rules.rs");
    let tested = this.split("// ---------- Completeness").next().unwrap();
    assert!(names("RuleId::Fide4)", RuleId::Fide4) && !names("RuleId::Fide4_3a", RuleId::Fide4));
    let missing: Vec<RuleId> =
        RuleId::ALL.iter().copied().filter(|&id| !NOT_EMITTED.contains(&id) && !names(tested, id)).collect();
    assert!(missing.is_empty(), "rule ids without a test in rules.rs: {missing:?}");
}
