//! The acceptance scenarios of section 19 of the rule catalogue that
//! `scenarios.rs` does not cover, one test per scenario, named by its AS id.
//!
//! AS-23, AS-24 and AS-25 (CFG-OBSERVE = false: an illegal move that stands
//! unless the opponent claims it before his next move, an illegal position
//! on the board) are in `observe.rs`.

mod common;

use arbiter_laws::event::{ClaimKind, DeclaredResult, Event, PenaltyKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regime};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameResult, RejectReason};
use common::*;

const CASTLE_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

// ---------- 19.1 Touch-move ----------

#[test]
fn as_11_king_released_on_its_castling_square() {
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    let rs = s.ev(Event::CastlingKingReleased { color: W, to: sq("g1") });
    assert_eq!(obligations(&rs), [["O-O"]]);
    assert_eq!(rs[0].rule, RuleId::Fide4_7);
    // The king may not go on to f1: only castling may complete the move.
    let r = s.rej(Event::MakeMove { color: W, mv: mi("e1f1") });
    assert_eq!((r.reason, r.rule), (RejectReason::PieceReleased, Some(RuleId::Fide4_7)));
    assert_eq!(s.g.record().ply_count(), 0, "nothing is on the record yet");
    // Moving the rook completes the castling.
    s.make(W, "e1g1");
    s.press(W);
    assert!(s.g.position().fen().starts_with("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b"));
    assert_eq!(s.g.illegal_move_count(W), 0);

    // DEC-6: the clock pressed with the king on g1 and the rook on h1.
    let mut s = S::otb("90+30", Some(CASTLE_FEN));
    let b = s.remaining(B);
    s.wait(10 * SEC);
    s.ev(Event::CastlingKingReleased { color: W, to: sq("g1") });
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(s.g.illegal_move_count(W), 1);
    assert_eq!(s.remaining(B), b + 2 * MIN);
    assert_eq!(s.remaining(W), 90 * MIN + 30 * SEC - 10 * SEC, "time used kept, increment removed");
    assert_eq!(s.g.position().fen(), CASTLE_FEN);
    assert_eq!(s.allowed(), ["O-O"], "the replacement must be castling on that side");
    let rs = s.make(W, "e1f1");
    assert_eq!(obligations(&rs), [["O-O"]], "Kf1 is refused");
    s.make(W, "e1g1");
    s.press(W);
    assert!(s.g.position().fen().starts_with("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b"));
}

#[test]
fn as_11_king_on_a_castling_square_where_castling_is_illegal() {
    // Black's bishop on c5 covers f2 and g1: kingside castling is illegal,
    // so Ke1-g1 is an illegal king move; another king move (queenside
    // castling included) replaces it.
    let fen = "4k3/8/8/2b5/8/8/8/R3K2R w KQ - 0 1";
    let mut s = S::otb("90+30", Some(fen));
    let rs = s.ev(Event::CastlingKingReleased { color: W, to: sq("g1") });
    assert!(rs.iter().any(|r| matches!(r.decision, Decision::IllegalMoveNotCompleted { .. })));
    s.press(W);
    assert_eq!(s.g.illegal_move_count(W), 1);
    assert_eq!(s.allowed(), ["Kd1", "Kd2", "Ke2", "Kf1", "O-O-O"]);
}

// ---------- 19.2 Illegal moves ----------

#[test]
fn as_20_different_illegal_acts_add_up() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    // AS-19: pressing without moving, illegal move #1.
    s.press(B);
    assert_eq!(s.g.illegal_move_count(B), 1);
    // A move with two hands, completed: the second illegal act.
    s.make(B, "b8c6");
    s.ev(Event::UsedTwoHands { color: B });
    let rs = s.press(B);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_4, 2)]);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

#[test]
fn as_20_two_hands_alone_is_one_illegal_move() {
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    let b = s.remaining(B);
    // A capture made with two hands: reinstated, penalised, and the pieces
    // touched (the pawn on e4 and the one on d5) bind White (4.3.3).
    s.make(W, "e4d5");
    s.ev(Event::UsedTwoHands { color: W });
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_4, 1)]);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_5));
    assert_eq!(s.remaining(B), b + 2 * MIN);
    assert_eq!(s.g.record().ply_count(), 2);
    assert_eq!(s.g.position().turn(), W);
    assert_eq!(s.allowed(), ["exd5"]);
    // Two hands for an illegal move: still one illegal move (7.5.5 comm.).
    let mut s = S::otb("90+30", Some("4k3/3q4/8/8/8/8/8/4RK2 b - - 0 28"));
    s.make(B, "d7d5");
    s.ev(Event::UsedTwoHands { color: B });
    s.press(B);
    assert_eq!(s.g.illegal_move_count(B), 1);
    // Nothing to report once the move is completed.
    let mut s = S::otb("90+30", None);
    s.play("e4");
    let r = s.rej(Event::UsedTwoHands { color: W });
    assert_eq!(r.rule, Some(RuleId::Fide7_5_4));
}

#[test]
fn as_22_blitz_illegal_move_observed_by_the_service() {
    let mut r = regs("3+2", Mode::OverTheBoard, Some("4k3/8/8/8/8/8/3r4/4K3 w - - 0 50"));
    r.regime = Regime::Reduced;
    let mut s = S::new(r);
    s.ev(Event::SetClock { color: W, remaining_ms: 65 * SEC });
    s.ev(Event::SetClock { color: B, remaining_ms: 58 * SEC });
    s.make(W, "e1d1");
    let rs = s.press(W);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_5));
    assert_eq!(s.remaining(W), 65 * SEC, "the increment of the illegal press is removed");
    assert_eq!(s.remaining(B), 58 * SEC + MIN, "one minute in blitz (A.3)");
    assert_eq!(s.allowed(), ["Kf1", "Kxd2"]);
    // A second illegal move loses: Black (K+R) can mate.
    s.make(W, "e1e2");
    s.press(W);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

// ---------- 19.4 Flag-fall ----------

#[test]
fn as_37_blocked_pawns_are_a_dead_position() {
    // The a-pawn's advance completes the blockade: no pawn can move or
    // capture and the kings can never reach an enemy pawn.
    let mut s = S::otb("3+0", Some("4k3/8/8/1p1p1p1p/pPpPpPpP/2P1P1P1/P7/4K3 w - - 0 59"));
    s.make(W, "a2a3");
    assert_eq!(s.g.position().fen(), "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 59");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_2);
    // A flag afterwards changes nothing.
    s.wait(10 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_2);
}

// ---------- 19.5 Clocks ----------

#[test]
fn as_44_pausing_the_clock() {
    // (a), (b): valid pauses cost nothing.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    let (w, b) = (s.remaining(W), s.remaining(B));
    let rs = s.ev(Event::PauseClocks);
    assert_eq!(rs[0].rule, RuleId::Fide6_11);
    s.wait(3 * MIN);
    s.ev(Event::ResumeClocks);
    assert_eq!((s.remaining(W), s.remaining(B)), (w, b));
    assert_eq!(s.g.warning_count(B), 0);
    // While paused nobody moves.
    s.ev(Event::PauseClocks);
    let r = s.rej(Event::MakeMove { color: B, mv: mi("b8c6") });
    assert_eq!(r.reason, RejectReason::ClocksPaused);
    s.ev(Event::ResumeClocks);
    // (c) no valid reason: a 12.9 penalty, e.g. time deducted.
    s.ev(Event::PauseClocks);
    s.wait(5 * MIN);
    s.ev(Event::ResumeClocks);
    let rs = s.ev(Event::Penalty { color: B, kind: PenaltyKind::DeductTime(MIN) });
    assert_eq!(rs[0].rule, RuleId::Fide12_9);
    assert_eq!(s.remaining(B), b - MIN);
}

// ---------- 19.6 Draw offers ----------

#[test]
fn as_49_offer_during_the_opponents_thinking_time() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    // Black's clock runs; White offers: valid, and no wrong-sequence warning.
    s.ev(Event::OfferDraw { color: W });
    assert!(s.g.draw_offer().is_some());
    assert_eq!(s.g.warning_count(W), 0);
    // Black complains of disturbance: 11.5 through 12.9 (extra time for Black).
    let b = s.remaining(B);
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::AddTimeToOpponent(MIN) });
    assert_eq!(s.remaining(B), b + MIN);
    // Black may still accept.
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Draw));
}

#[test]
fn as_50_a_condition_on_an_offer_is_void() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    s.ev(Event::OfferDraw { color: W });
    s.press(W);
    // "Within two minutes": the condition is void; five minutes later the
    // offer still stands.
    s.wait(5 * MIN);
    s.ev(Event::Tick);
    assert!(s.g.draw_offer().is_some());
    s.ev(Event::AcceptDraw { color: B });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_2_3);
}

// ---------- 19.7 Claims and automatic draws ----------

#[test]
fn as_65_automatic_draw_before_a_flag() {
    // The service cannot miss a fivefold repetition: the game ends at once
    // and a later flag changes nothing.
    let mut s = S::otb("5+0", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_1);
    s.wait(10 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::Fide9_6_1);
    // Discovered only after the game (here: the game ended on the flag):
    // the result is corrected through the arbiter.
    let mut s = S::otb("5+0", None);
    s.play("e4");
    s.wait(5 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    let rs = s.ev(Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!(rs[0].rule, RuleId::Fide8_7);
    assert_eq!(s.result(), Some(GameResult::Draw));
}

// ---------- 19.8 Conduct, default time ----------

#[test]
fn as_67_device_before_the_game_is_under_way() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(30 * MIN);
    let mut s = S::unstarted(r.clone());
    s.ev(Event::PlayerArrived { color: W });
    s.ev(Event::Start);
    s.play("e4");
    s.ev(Event::DeviceFound { color: W });
    assert_eq!(s.result(), Some(GameResult::BlackWinsByForfeit), "-/+: unplayed");
    assert_eq!(s.rule_of_end(), RuleId::Fide11_3b);
    // Both at the board: the game is under way, an ordinary loss.
    let mut s = S::unstarted(r);
    s.ev(Event::PlayerArrived { color: W });
    s.ev(Event::PlayerArrived { color: B });
    s.ev(Event::Start);
    s.play("e4");
    s.ev(Event::DeviceFound { color: W });
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

#[test]
fn as_68_default_time_from_the_actual_start() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(30 * MIN);
    let mut s = S::unstarted(r);
    // Scheduled at 0, actually started 10 minutes later.
    s.wait(10 * MIN);
    s.ev(Event::PlayerArrived { color: W });
    s.ev(Event::Start);
    s.play("e4");
    s.wait(25 * MIN);
    s.ev(Event::PlayerArrived { color: B });
    s.wait(10 * MIN);
    s.ev(Event::Tick);
    assert!(s.g.end().is_none(), "Black arrived before the deadline, 30 minutes after the actual start");
    // Default time 0: arriving five seconds after the start loses.
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(0);
    let mut s = S::unstarted(r);
    s.ev(Event::PlayerArrived { color: W });
    s.ev(Event::Start);
    s.wait(5 * SEC);
    let r = s.rej(Event::PlayerArrived { color: B });
    assert_eq!(r.reason, RejectReason::GameOver);
    assert_eq!(s.result(), Some(GameResult::WhiteWinsByForfeit));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_7a);
}

#[test]
fn as_68_a_player_who_moves_is_present() {
    // Arrivals are not always reported: a player who moves is at the board
    // and cannot lose by default.
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(15 * MIN);
    let mut s = S::new(r);
    s.play("e4 e5 Nf3 Nc6");
    s.wait(20 * MIN);
    s.ev(Event::Tick);
    assert!(s.g.end().is_none());
    // Both absent: a double forfeit, not a played 0-0.
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(15 * MIN);
    let mut s = S::new(r);
    s.wait(15 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::DoubleForfeit));
}

#[test]
fn as_70_persistent_refusal_to_comply() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    for _ in 0..3 {
        s.ev(Event::Penalty { color: W, kind: PenaltyKind::Warning });
    }
    assert_eq!(s.g.warning_count(W), 3);
    assert!(s.g.end().is_none(), "warnings alone do not end the game");
    // The next infringement: 11.7, the game is declared lost (12.9.6).
    s.ev(Event::Penalty { color: W, kind: PenaltyKind::DeclareLost });
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide12_9);
}

// ---------- 19.11 Online ----------

#[test]
fn as_82_arbiter_corrects_the_platform() {
    // K+N v K+N: mate is still possible, so a flag loses (a platform that
    // auto-draws here is wrong).
    let mut s = S::online("3+0", Some("7k/8/8/3n4/8/8/1N6/K7 w - - 0 60"));
    s.wait(3 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Ocr4_3);
    // The arbiter may still change a result given (OCR 15.4), logged.
    let rs = s.ev(Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!(rs[0].rule, RuleId::Ocr15_4);
    assert_eq!(s.result(), Some(GameResult::Draw));
    // An automatic draw the platform missed is declared by the arbiter (15.3).
    let mut s = S::online("90+30", None);
    s.submit("e4 e5");
    let rs = s.ev(Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!(rs[0].rule, RuleId::Ocr15_3);
    assert_eq!(s.result(), Some(GameResult::Draw));
}

// ---------- 19.12 Chinese-seed options ----------

#[test]
fn as_85_cn7_draw_offer_alternation() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.cn_draw_alternation = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::DeclineDraw { color: B });
    s.play("Nf3");
    let r = s.rej(Event::OfferDraw { color: W });
    assert_eq!((r.reason, r.rule), (RejectReason::OfferNotAllowed, Some(RuleId::Cn7)));
    s.ev(Event::OfferDraw { color: B });
    s.ev(Event::DeclineDraw { color: W });
    s.play("Nc6");
    s.ev(Event::OfferDraw { color: W });
    assert!(s.g.draw_offer().is_some());
    // An offer that lapses by a move counts as declined (DEC-14); a claim
    // does not count.
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.cn_draw_alternation = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.play("Nf3");
    s.touch(B, "b8");
    s.play("Nc6");
    let r = s.rej(Event::OfferDraw { color: W });
    assert_eq!(r.rule, Some(RuleId::Cn7));
    s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: None });
    let r = s.rej(Event::OfferDraw { color: W });
    assert_eq!(r.rule, Some(RuleId::Cn7));
    // Option off: both offers are delivered.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::DeclineDraw { color: B });
    s.play("Nf3");
    s.ev(Event::OfferDraw { color: W });
    assert!(s.g.draw_offer().is_some());
}

#[test]
fn replay_of_the_new_events() {
    let r = regs("90+30", Mode::OverTheBoard, Some(CASTLE_FEN));
    let mut s = S::new(r.clone());
    s.ev(Event::CastlingKingReleased { color: W, to: sq("g1") });
    s.press(W);
    s.make(W, "e1g1");
    s.ev(Event::UsedTwoHands { color: W });
    s.press(W);
    let events = [
        (Event::Start, 0),
        (Event::CastlingKingReleased { color: W, to: sq("g1") }, 0),
        (Event::PressClock { color: W, other_hand: false }, 0),
        (Event::MakeMove { color: W, mv: mi("e1g1") }, 0),
        (Event::UsedTwoHands { color: W }, 0),
        (Event::PressClock { color: W, other_hand: false }, 0),
    ];
    assert_eq!(Game::replay(r, events.iter()).unwrap(), s.g);
    assert_eq!(s.result(), Some(GameResult::BlackWins), "two illegal moves");
}

/// DEC-5: online lag compensation is bounded by the regulations and equal
/// for both players; without a maximum there is none.
#[test]
fn lag_compensation_is_bounded() {
    use arbiter_laws::event::MoveInput;
    let mut r = regs("3+0", Mode::Online, None);
    r.max_lag_compensation_ms = 500;
    let mut s = S::new(r);
    s.wait(10 * SEC);
    s.ev(Event::SubmitMove {
        color: W,
        mv: MoveInput::from_uci("e2e4").unwrap(),
        premove: false,
        lag_ms: 2_000,
    });
    assert_eq!(s.remaining(W), 3 * MIN - 10 * SEC + 500);
    let mut s = S::online("3+0", None);
    s.wait(10 * SEC);
    s.ev(Event::SubmitMove {
        color: W,
        mv: MoveInput::from_uci("e2e4").unwrap(),
        premove: false,
        lag_ms: 2_000,
    });
    assert_eq!(s.remaining(W), 3 * MIN - 10 * SEC);
}
