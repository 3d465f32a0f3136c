//! CFG-OBSERVE = false: moves entered after the fact (A.5.2, A.5.4). One
//! test per acceptance scenario, named by its AS id (AS-23, AS-24, AS-25 a,
//! b and c, and the claimed branch of AS-23, which is AS-22), then the edge
//! cases: late and wrong claims, castling and en passant after an illegal
//! move stood, mate and stalemate around illegal positions, a flag on an odd
//! board, two hands, moves the board cannot hold, and the state's serde form.

mod common;

use arbiter_chess::{Color, PositionError};
use arbiter_laws::event::{Event, MoveInput};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regime, Regulations, RegulationsError};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameResult, RejectReason, Ruling};
use common::*;

const AS21_FEN: &str = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 50";
const AS24_FEN: &str = "k7/2P5/8/8/8/8/5p2/4R2K b - - 0 45";
/// Black's rook on e7 shields its king from the rook on e1; White's king is
/// on a1. AS-25 is reached from here by two illegal moves nobody claims.
const AS25_FEN: &str = "4k3/4r2p/8/8/8/8/8/K3R3 b - - 0 1";

fn unobserved_regs(tc: &str, fen: Option<&str>) -> Regulations {
    let mut r = regs(tc, Mode::OverTheBoard, fen);
    r.regime = Regime::Reduced;
    r.observe = false;
    r
}

fn unobserved(tc: &str, fen: Option<&str>) -> S {
    S::new(unobserved_regs(tc, fen))
}

fn claim(color: Color) -> Event {
    Event::ClaimIllegalMove { color }
}

fn has(rs: &[Ruling], rule: RuleId, pred: impl Fn(&Decision) -> bool) -> bool {
    rs.iter().any(|r| r.rule == rule && pred(&r.decision))
}

fn not_acted_on(rs: &[Ruling], color: Color) -> bool {
    has(
        rs,
        RuleId::FideA5_2,
        |d| matches!(d, Decision::IllegalMoveNotActedOn { color: c, .. } if *c == color),
    )
}

fn stands(rs: &[Ruling], color: Color) -> bool {
    has(rs, RuleId::FideA5_2, |d| matches!(d, Decision::IllegalMoveStands { color: c, .. } if *c == color))
}

fn fen(s: &S) -> String {
    s.g.position().fen()
}

/// The AS-22 set-up: blitz 3'+2", W 1:05, B 0:58; White plays Kd1 and
/// presses.
fn as_22_kd1_completed() -> S {
    let mut s = unobserved("3+2", Some(AS21_FEN));
    s.ev(Event::SetClock { color: W, remaining_ms: 65 * SEC });
    s.ev(Event::SetClock { color: B, remaining_ms: 58 * SEC });
    s.make(W, "e1d1");
    let rs = s.press(W);
    assert!(not_acted_on(&rs, W), "{rs:?}");
    assert!(illegal_moves(&rs).is_empty(), "the service does not act by itself");
    assert_eq!(fen(&s), "4k3/8/8/8/8/8/3r4/3K4 b - - 1 50", "the king stands on d1, in check");
    assert_eq!(s.remaining(W), 67 * SEC, "a completed move: the increment is credited");
    s
}

#[test]
fn observe_false_is_refused_online_only() {
    let mut r = unobserved_regs("15+10", None);
    assert!(Game::new(r.clone()).is_ok());
    for mode in [Mode::Online, Mode::Hybrid] {
        r.mode = mode;
        let err = Game::new(r.clone()).unwrap_err();
        assert_eq!(err, RegulationsError::NotObserved);
        assert!(err.to_string().contains("over the board only"), "{err}");
    }
}

#[test]
fn as_23_claimed_before_moving_is_ruled_as_as_22() {
    let mut s = as_22_kd1_completed();
    let rs = s.ev(claim(B));
    assert!(has(&rs, RuleId::FideA5_2, |d| matches!(d, Decision::IllegalMoveClaimed { color: B, .. })));
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_5));
    assert_eq!(fen(&s), AS21_FEN, "the position before Kd1 is reinstated");
    assert_eq!(s.remaining(W), 65 * SEC, "the increment of the illegal press is removed");
    assert_eq!(s.remaining(B), 58 * SEC + MIN, "one minute in blitz (A.3)");
    assert_eq!(s.allowed(), ["Kf1", "Kxd2"]);
    // White's clock runs again.
    s.wait(5 * SEC);
    assert_eq!(s.remaining(W), 60 * SEC);
    assert_eq!(s.remaining(B), 118 * SEC);
    // A second illegal move loses, once claimed: Black (K+R) can mate.
    s.make(W, "e1e2");
    let rs = s.press(W);
    assert!(not_acted_on(&rs, W));
    assert!(!s.g.is_over());
    s.ev(claim(B));
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

#[test]
fn as_23_illegal_move_nobody_acted_on_stands() {
    let mut s = as_22_kd1_completed();
    // Black replies instead of claiming: Kd1 stands.
    let rs = s.make(B, "e8d7");
    assert!(stands(&rs, W), "{rs:?}");
    let rs = s.press(B);
    assert!(
        !rs.iter().any(|r| matches!(r.decision, Decision::IllegalPositionObserved { .. })),
        "White to move in check is a legal position: {rs:?}"
    );
    assert_eq!(fen(&s), "8/3k4/8/8/8/8/3r4/3K4 w - - 2 51");
    assert_eq!(s.g.illegal_move_count(W), 0, "no penalty");
    assert_eq!(s.g.record().irregular_moves(), [0]);
    assert_eq!(s.remaining(W), 67 * SEC, "White keeps the increment");
    // White, in check, must parry it: the legal moves are those out of check.
    let pos = *s.g.position();
    let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| pos.san(*m)).collect();
    legal.sort();
    assert_eq!(legal, ["Kc1", "Ke1", "Kxd2"]);
    // A claim now is too late, and changes nothing.
    let r = s.rej(claim(B));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::FideA5_2)));
    assert!(r.message.contains("too late") && r.message.contains("agreement"), "{}", r.message);
    s.play("Kxd2");
    assert_eq!(fen(&s), "8/3k4/8/8/8/8/3K4/8 b - - 0 51");
    assert_eq!(s.result(), Some(GameResult::Draw), "two kings: a dead position");
}

#[test]
fn as_24_unpromoted_pawn_noticed_too_late() {
    let mut s = unobserved("15+10", Some(AS24_FEN));
    s.make(B, "f2e1");
    let rs = s.press(B);
    assert!(not_acted_on(&rs, B), "{rs:?}");
    assert_eq!(fen(&s), "k7/2P5/8/8/8/8/8/4p2K w - - 0 46", "the pawn stays on e1");
    // White replies c8=Q+: the unfinished promotion can no longer be penalised.
    let rs = s.make(W, "c7c8q");
    assert!(stands(&rs, B));
    let rs = s.press(W);
    // The arbiter function now sees the position: a pawn on its last rank.
    assert!(has(&rs, RuleId::FideA5_4, |d| matches!(d, Decision::IllegalPositionObserved { .. })), "{rs:?}");
    assert!(!s.g.is_over());
    let r = s.rej(claim(W));
    assert!(r.message.contains("too late"), "{}", r.message);
    assert!(s.rej(claim(B)).message.contains("there is no illegal move"));
    // The next move is completed with the pawn still on e1 (it cannot move).
    s.play("Ka7");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideA5_4);
    assert_eq!(s.g.illegal_move_count(B), 0);
}

#[test]
fn as_24_claimed_in_time_gives_the_queen() {
    let mut s = unobserved("15+10", Some(AS24_FEN));
    s.ev(Event::SetClock { color: W, remaining_ms: 5 * MIN });
    s.make(B, "f2e1");
    s.press(B);
    let rs = s.ev(claim(W));
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_2, 1)]);
    assert_eq!(fen(&s), "k7/2P5/8/8/8/8/8/4q2K w - - 0 46", "the move stands with a queen (7.5.2)");
    assert_eq!(s.remaining(W), 6 * MIN, "one minute in rapid (A.3)");
    assert!(s.g.record().irregular_moves().is_empty());
    assert_eq!(s.g.position().turn(), W, "White, in check from the queen, keeps the move");
    s.play("Kh2");
    assert!(!s.g.is_over());
}

/// AS-25's position: Black plays Re7-a7+?? (leaving his king to the rook on
/// e1) and presses; White, in check, plays Re1-e2?? and presses. Both
/// illegal moves are left unclaimed: both kings are in check, Black to move.
fn as_25_both_kings_in_check() -> S {
    let mut s = unobserved("15+10", Some(AS25_FEN));
    s.make(B, "e7a7");
    let rs = s.press(B);
    assert!(not_acted_on(&rs, B));
    let rs = s.make(W, "e1e2");
    assert!(stands(&rs, B), "{rs:?}");
    let rs = s.press(W);
    assert!(not_acted_on(&rs, W));
    assert!(
        has(&rs, RuleId::FideA5_4, |d| matches!(
            d,
            Decision::IllegalPositionObserved { description } if description.contains("both kings are in check")
        )),
        "{rs:?}"
    );
    let pos = *s.g.position();
    assert_eq!(pos.fen(), "4k3/r6p/8/8/8/8/4R3/K7 b - - 2 2");
    assert!(pos.is_check());
    assert_eq!(pos.irregularity(), Some(PositionError::OppositeCheck(W)));
    s
}

#[test]
fn as_25a_black_gets_out_of_check_play_continues() {
    let mut s = as_25_both_kings_in_check();
    let rs = s.make(B, "e8d8");
    assert!(stands(&rs, W));
    let rs = s.press(B);
    assert!(
        has(&rs, RuleId::FideA5_4, |d| matches!(d, Decision::IllegalPositionCleared { in_check: Some(W) })),
        "{rs:?}"
    );
    assert!(!s.g.is_over());
    assert!(s.g.position().is_check(), "White is to move, in check");
    assert_eq!(s.g.position().irregularity(), None);
    // White parries: play goes on normally.
    s.play("Ra2");
    assert!(!s.g.is_over());
    assert_eq!(s.g.illegal_move_count(W), 0);
}

#[test]
fn as_25b_both_kings_still_in_check_is_a_draw() {
    let mut s = as_25_both_kings_in_check();
    s.make(B, "h7h6");
    s.press(B);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideA5_4);
}

#[test]
fn as_25c_white_still_in_check_after_his_next_move_is_an_illegal_move() {
    let mut s = as_25_both_kings_in_check();
    s.play("Kd8");
    let b = s.remaining(B);
    s.wait(3 * SEC);
    s.make(W, "e2e3");
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::FideA5_4, 1)], "{rs:?}");
    assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_5));
    assert_eq!(s.remaining(B), b + MIN);
    assert_eq!(fen(&s), "3k4/r6p/8/8/8/8/4R3/K7 w - - 3 3", "the position before Re3 is reinstated");
    // The rook was touched: it must parry the check.
    assert_eq!(s.allowed(), ["Ra2"]);
    // Still bound to get out of check: staying in check again loses.
    s.make(W, "e2e4");
    s.press(W);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_5_5);
}

#[test]
fn claims_that_are_refused() {
    // Nothing to claim at the start, and never under observe = true.
    let mut s = unobserved("15+10", None);
    let r = s.rej(claim(W));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::FideA5_2)));
    let mut observed = S::otb("15+10", None);
    let r = observed.rej(claim(B));
    assert!(r.message.contains("observe = true"), "{}", r.message);
    // A player cannot claim his own illegal move.
    let mut s = as_22_kd1_completed();
    let r = s.rej(claim(W));
    assert_eq!(r.reason, RejectReason::InvalidArgument);
    // Once the opponent has made his move (even before pressing) it is too late.
    s.make(B, "e8e7");
    let r = s.rej(claim(B));
    assert!(r.message.contains("too late"), "{}", r.message);
    // After the game, nothing.
    let mut s = as_22_kd1_completed();
    s.ev(Event::Resign { color: B });
    assert_eq!(s.rej(claim(B)).reason, RejectReason::GameOver);
}

#[test]
fn a_claim_may_come_after_thinking_and_while_the_clocks_are_paused() {
    let mut s = as_22_kd1_completed();
    s.wait(4 * SEC);
    s.ev(Event::PauseClocks);
    s.wait(30 * SEC);
    s.ev(claim(B));
    assert_eq!(s.remaining(B), 54 * SEC + MIN, "Black keeps the time he used before claiming");
    assert_eq!(s.remaining(W), 65 * SEC);
    s.ev(Event::ResumeClocks);
    s.wait(SEC);
    assert_eq!(s.remaining(W), 64 * SEC, "White's clock runs");
}

#[test]
fn castling_and_en_passant_after_an_illegal_move_stood() {
    let mut s = unobserved("90+30", Some("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"));
    // a2-a5?? (three squares) is left unclaimed.
    s.make(W, "a2a5");
    assert!(not_acted_on(&s.press(W), W));
    s.play("O-O O-O-O b5 axb6");
    assert_eq!(fen(&s), "r4rk1/p1pppppp/1P6/8/8/8/1PPPPPPP/2KR3R b - - 0 3");
    assert_eq!(s.g.record().irregular_moves(), [0]);
    // Castling through an attacked square stands too when unclaimed.
    let mut s = unobserved("90+30", Some("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"));
    s.make(W, "e1g1");
    assert!(not_acted_on(&s.press(W), W));
    assert_eq!(fen(&s), "r3k2r/8/8/8/8/8/5r2/R4RK1 b kq - 1 1");
    s.play("O-O-O");
    assert_eq!(fen(&s), "2kr3r/8/8/8/8/8/5r2/R4RK1 w - - 2 2");
    assert_eq!(s.g.record().irregular_moves(), [0]);
}

#[test]
fn mate_by_an_illegal_move_does_not_end_the_game_but_a_legal_mate_after_one_does() {
    // Rb1-b8 mates, but the rook is pinned to White's king: no end (5.1.1
    // needs a move in accordance with Article 3); Black can only claim.
    let mut s = unobserved("15+10", Some("6k1/5ppp/8/8/8/8/8/KR5r w - - 0 1"));
    s.make(W, "b1b8");
    let rs = s.press(W);
    assert!(not_acted_on(&rs, W));
    assert!(!s.g.is_over());
    assert!(s.g.position().is_checkmate());
    s.ev(claim(B));
    assert_eq!(s.allowed(), ["Rc1", "Rd1", "Re1", "Rf1", "Rg1", "Rxh1"]);
    // A knight moved like a rook stands; Black then mates legally.
    let mut s = unobserved("15+10", Some("1r4k1/8/8/8/8/8/6PP/N6K w - - 0 1"));
    s.make(W, "a1a5");
    s.press(W);
    let rs = s.make(B, "b8b1");
    assert!(stands(&rs, W));
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide5_1_1);
    // A queen moved like a knight stalemates: no end either.
    let mut s = unobserved("15+10", Some("k7/8/8/8/8/8/8/K1Q5 w - - 0 1"));
    s.make(W, "c1b6");
    s.press(W);
    assert!(s.g.position().is_stalemate());
    assert!(!s.g.is_over());
}

#[test]
fn a_flag_falls_on_an_odd_board() {
    // White's flag with a Black pawn stuck on e1: the can-mate test runs on
    // the odd board and decides without panicking.
    let mut s = unobserved("15+10", Some(AS24_FEN));
    s.make(B, "f2e1");
    s.press(B);
    s.wait(16 * MIN);
    s.ev(Event::Tick);
    assert!(s.g.is_over());
    assert_eq!(s.rule_of_end(), RuleId::Fide6_9);
    // Black's flag after c8=Q+: White (queen) can mate.
    let mut s = unobserved("15+10", Some(AS24_FEN));
    s.make(B, "f2e1");
    s.press(B);
    s.play("c8=Q+");
    s.wait(16 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    // Both kings in check and a flag.
    let mut s = as_25_both_kings_in_check();
    s.wait(16 * MIN);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::WhiteWins), "White (rook) can mate");
}

#[test]
fn two_hands_unclaimed_stand_and_claimed_are_taken_back() {
    let mut s = unobserved("90+30", None);
    s.play("e4 d5");
    s.make(W, "e4d5");
    s.ev(Event::UsedTwoHands { color: W });
    let rs = s.press(W);
    assert!(not_acted_on(&rs, W));
    assert!(s.g.record().irregular_moves().is_empty(), "the move itself is legal");
    let rs = s.ev(claim(B));
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_4, 1)]);
    assert_eq!(s.g.record().ply_count(), 2);
    assert_eq!(s.allowed(), ["exd5"]);
    // Unclaimed, it stands.
    let mut s = unobserved("90+30", None);
    s.play("e4 d5");
    s.make(W, "e4d5");
    s.ev(Event::UsedTwoHands { color: W });
    s.press(W);
    assert!(stands(&s.make(B, "d8d5"), W));
    assert_eq!(s.g.illegal_move_count(W), 0);
}

#[test]
fn what_the_board_cannot_hold_is_ruled_at_once() {
    // White moves Black's pawn; pressing without a move; a half-made castling.
    let mut s = unobserved("90+30", None);
    s.make(W, "e7e5");
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(s.g.position().fen(), arbiter_chess::Position::startpos().fen());
    let mut s = unobserved("90+30", None);
    s.play("e4");
    let rs = s.press(B);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_3, 1)], "pressing without a move is 7.5.3");
    // An illegal move that cannot stand closes no claim window either way.
    assert!(s.rej(claim(W)).message.contains("there is no illegal move"));
}

#[test]
fn the_state_round_trips_and_replays() {
    let mut s = as_25_both_kings_in_check();
    s.play("Kd8");
    let json = serde_json::to_string(&s.g).unwrap();
    assert!(json.contains("\"irregular\""), "{json}");
    let back: Game = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s.g);
    // Mid-claim-window state, too.
    let s = as_22_kd1_completed();
    let back: Game = serde_json::from_str(&serde_json::to_string(&s.g).unwrap()).unwrap();
    assert_eq!(back, s.g);
}

#[test]
fn moves_reported_for_a_piece_released_on_its_square_are_not_moves() {
    // A "move" to the square it came from is no move: the press is 7.5.3.
    let mut s = unobserved("90+30", None);
    s.ev(Event::MakeMove {
        color: W,
        mv: MoveInput { from: sq("e2"), to: sq("e2"), promotion: None, castle: false },
    });
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(s.g.position().turn(), W);
}
