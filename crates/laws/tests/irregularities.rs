//! Set-up errors (Law 7.2, 7.3; A.5.1.2), score penalties (12.9.4, 12.9.5)
//! and service outages. The catalogue has no acceptance scenario for these;
//! the expectations come from the rule records FIDE-7.2a, 7.2b, 7.3,
//! A.5.1, 10, 12.9 and 6.11 of the catalogue.

mod common;

use arbiter_laws::event::{ClaimKind, DeclaredResult, Event, PenaltyKind, SetupError};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regime};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameResult, RejectReason};
use arbiter_laws::scoring::{
    PointSystem, Points, Score, ScoreAdjustment, ScoreAdjustmentKind, ScoringError, points,
};
use common::*;

/// Ten moves by each player that repeat no position five times.
const TEN_EACH: &str = "Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 e3 e6 Qe2 Qe7 Qd1 Qd8 d3 d6 Nf3 Nf6 Ng1 Ng8";
/// The first nine moves of `TEN_EACH` by each player, and White's tenth.
const NINE_AND_A_HALF: &str = "Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 e3 e6 Qe2 Qe7 Qd1 Qd8 d3 d6 Nf3 Nf6 Ng1";

fn setup(error: SetupError) -> Event {
    Event::SetupErrorFound { error }
}

fn penalty(color: arbiter_chess::Color, kind: PenaltyKind) -> Event {
    Event::Penalty { color, kind }
}

fn adjusted(white: Score, black: Score) -> GameResult {
    GameResult::Adjusted { white, black }
}

// ---------------------------------------------------------------------------
// Service outage
// ---------------------------------------------------------------------------

#[test]
fn service_resumed_records_the_outage_and_changes_no_clock() {
    let mut s = S::otb("90+30", None);
    s.play("e4");
    s.wait(7 * SEC);
    let (w, b) = (s.remaining(W), s.remaining(B));
    let rs = s.ev(Event::ServiceResumed { outage_ms: 95_000 });
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0].rule, RuleId::Fide6_11);
    assert_eq!(rs[0].decision, Decision::ClockResumedAfterOutage { outage_ms: 95_000 });
    assert_eq!((s.remaining(W), s.remaining(B)), (w, b));
    // Black's clock still runs: the event paused nothing.
    assert_eq!(s.g.clock().running(), Some(B));
    s.wait(SEC);
    assert_eq!(s.remaining(B), b - SEC);
    s.play("e5");
    // An outage of zero length is a fact too.
    s.ev(Event::ServiceResumed { outage_ms: 0 });
}

#[test]
fn a_game_not_started_can_be_withdrawn_and_then_nothing_applies() {
    use arbiter_laws::event::Withdrawal;
    for reason in [Withdrawal::Cancelled, Withdrawal::Expired] {
        let mut s = S::unstarted(regs("90+30", Mode::Online, None));
        s.ev(Event::PlayerArrived { color: W });
        // No ruling and no result: no game was played.
        assert!(s.ev(Event::Withdraw { reason }).is_empty());
        assert_eq!(s.g.withdrawal(), Some(reason));
        assert!(!s.g.is_over() && !s.g.is_started());
        assert_eq!(s.result(), None);
        for later in
            [Event::Start, Event::Withdraw { reason }, Event::DeclareResult { result: DeclaredResult::Draw }]
        {
            assert_eq!(s.rej(later).reason, RejectReason::GameOver);
        }
        assert_eq!(s.g.withdrawal(), Some(reason));
    }
}

#[test]
fn a_started_or_finished_game_cannot_be_withdrawn() {
    use arbiter_laws::event::Withdrawal;
    let mut s = S::otb("90+30", None);
    let before = s.g.clone();
    let r = s.rej(Event::Withdraw { reason: Withdrawal::Cancelled });
    assert_eq!(r.reason, RejectReason::NotApplicable);
    assert_eq!(s.g, before, "a refusal changes nothing");
    s.ev(Event::Resign { color: W });
    assert_eq!(s.rej(Event::Withdraw { reason: Withdrawal::Expired }).reason, RejectReason::NotApplicable);
    assert_eq!(s.g.withdrawal(), None);
}

#[test]
fn service_resumed_is_a_system_event_not_a_players_act() {
    let e = Event::ServiceResumed { outage_ms: 5 };
    assert_eq!(e.player(), None);
    assert!(e.is_arbiter_action());
    let json = serde_json::to_string(&e).unwrap();
    assert_eq!(json, r#"{"ServiceResumed":{"outage_ms":5}}"#);
    assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
}

#[test]
fn service_resumed_is_refused_before_the_start_after_the_end_and_with_a_negative_outage() {
    let mut s = S::unstarted(regs("90+30", Mode::OverTheBoard, None));
    let r = s.rej(Event::ServiceResumed { outage_ms: 10 });
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Fide6_11)));
    s.ev(Event::Start);
    let r = s.rej(Event::ServiceResumed { outage_ms: -1 });
    assert_eq!((r.reason, r.rule), (RejectReason::InvalidArgument, Some(RuleId::Fide6_11)));
    s.ev(Event::Resign { color: W });
    let r = s.rej(Event::ServiceResumed { outage_ms: 10 });
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Fide6_11)));
}

#[test]
fn service_resumed_applies_like_an_arbiter_action_when_time_ran_out() {
    let mut s = S::otb("3+0", None);
    s.wait(3 * MIN + 5 * SEC);
    let rs = s.ev(Event::ServiceResumed { outage_ms: 60_000 });
    // The flag fell at 3:00, before the event: the game is lost (6.9), and
    // the outage is still recorded.
    assert_eq!(rules(&rs), [RuleId::Fide6_9, RuleId::Fide6_11]);
    assert!(matches!(rs[1].decision, Decision::ClockResumedAfterOutage { outage_ms: 60_000 }));
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

#[test]
fn service_resumed_while_the_clocks_are_paused_keeps_them_paused() {
    let mut s = S::otb("90+30", None);
    s.ev(Event::PauseClocks);
    s.ev(Event::ServiceResumed { outage_ms: 1_000 });
    assert!(s.g.clock().is_paused());
    let w = s.remaining(W);
    s.wait(MIN);
    assert_eq!(s.remaining(W), w);
}

// ---------------------------------------------------------------------------
// 7.2.1: wrong initial position
// ---------------------------------------------------------------------------

#[test]
fn wrong_initial_position_in_standard_annuls_at_any_move() {
    let mut s = S::otb("90+30", None);
    s.play(TEN_EACH);
    s.play("e4 e5 d4");
    let rs = s.ev(setup(SetupError::WrongInitialPosition));
    let end = s.g.end().unwrap();
    assert_eq!(end.result, GameResult::Annulled);
    assert_eq!(end.rule, RuleId::Fide7_2a);
    assert!(end.reason.contains("new game"), "{}", end.reason);
    assert!(matches!(&rs[0].decision, Decision::GameOver(e) if e.result == GameResult::Annulled));
    // The clocks stop with the game.
    let b = s.remaining(B);
    s.wait(MIN);
    assert_eq!(s.remaining(B), b);
    // An annulled game has no score and is not rated.
    assert_eq!(s.g.adjusted_points(&PointSystem::FIDE), Some(Err(ScoringError::Annulled)));
    assert_eq!(GameResult::Annulled.pgn_result(), "*");
}

#[test]
fn a_5_1_2_no_set_up_claim_once_each_player_completed_ten_moves() {
    // Rapid 15'+10" under A.5 (the default regime).
    let mut s = S::otb("15+10", None);
    s.play(NINE_AND_A_HALF);
    // Black makes his tenth move but has not pressed: not completed yet.
    s.make(B, "f6g8");
    assert_eq!(s.g.moves_completed(B), 9);
    let mut early = S { g: s.g.clone(), t: s.t, log: Vec::new() };
    early.ev(setup(SetupError::WrongInitialPosition));
    assert_eq!(early.result(), Some(GameResult::Annulled));
    s.press(B);
    assert_eq!((s.g.moves_completed(W), s.g.moves_completed(B)), (10, 10));
    for error in [SetupError::WrongInitialPosition, SetupError::BoardWronglyOriented] {
        let r = s.rej(setup(error));
        assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::FideA5_1)), "{error:?}");
        assert!(r.message.contains("A.5.1.2"), "{}", r.message);
    }
    // The game goes on.
    s.play("e4");
}

#[test]
fn blitz_under_b_3_closes_set_up_claims_too_but_not_the_full_regime() {
    let mut s = S::otb("3+2", None);
    s.play(TEN_EACH);
    assert_eq!(s.rej(setup(SetupError::WrongInitialPosition)).rule, Some(RuleId::FideA5_1));
    // A.4 / B.2: the full Competitive Rules, 7.2.1 without a move limit.
    let mut r = regs("3+2", Mode::OverTheBoard, None);
    r.regime = Regime::Full;
    let mut s = S::new(r);
    s.play(TEN_EACH);
    s.ev(setup(SetupError::WrongInitialPosition));
    assert_eq!(s.result(), Some(GameResult::Annulled));
}

// ---------------------------------------------------------------------------
// A.5.1.2: castling bans for a misplaced king or rook
// ---------------------------------------------------------------------------

/// After `TEN_EACH`: both sides develop so that each may castle on either
/// side (six more moves each).
const READY_TO_CASTLE: &str = "Nf3 Nf6 Nc3 Nc6 Bd2 Bd7 Qe2 Qe7 g3 g6 Bg2 Bg7";

fn king_misplaced(color: arbiter_chess::Color) -> Event {
    setup(SetupError::KingMisplaced { color })
}

fn rook_misplaced(square: &str) -> Event {
    setup(SetupError::RookMisplaced { square: sq(square) })
}

#[test]
fn a_5_1_2_misplaced_king_after_ten_moves_bans_that_sides_castling_over_the_board() {
    let mut s = S::otb("15+10", None);
    s.play(TEN_EACH);
    let rs = s.ev(king_misplaced(W));
    assert_eq!(rules(&rs), [RuleId::FideA5_1]);
    assert!(
        matches!(&rs[0].decision, Decision::SetupErrorStands { error: SetupError::KingMisplaced { color: W }, note }
            if note.contains("may not castle")),
        "{:?}",
        rs[0].decision
    );
    assert!(!s.g.is_over());
    assert_eq!(s.g.castling_bans(), [SetupError::KingMisplaced { color: W }]);
    s.play(READY_TO_CASTLE);
    // O-O is now an illegal move: made, it is not completed (7.5.1) ...
    let rs = s.make(W, "e1g1");
    assert_eq!(rules(&rs), [RuleId::Fide7_5_1]);
    assert!(matches!(&rs[0].decision, Decision::IllegalMoveNotCompleted { color: W, .. }));
    // ... and completed by the press, it is penalised like any illegal move.
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(s.g.illegal_move_count(W), 1);
    // The king was touched: it must move, but castling on either side is
    // not among its moves any more.
    let allowed = s.allowed();
    assert!(allowed.contains(&"Kf1".to_string()), "{allowed:?}");
    assert!(!allowed.iter().any(|m| m.starts_with("O-O")), "{allowed:?}");
    let rs = s.make(W, "e1c1");
    assert_eq!(rules(&rs), [RuleId::Fide7_5_1]);
    s.make(W, "e1f1");
    s.press(W);
    // Black is not concerned: he may still castle.
    s.play("O-O");
    assert_eq!(s.g.position().king(B), sq("g8"));
}

#[test]
fn a_5_1_2_misplaced_rook_bans_castling_with_that_rook_only() {
    let mut s = S::otb("3+2", None);
    s.play(TEN_EACH);
    let rs = s.ev(rook_misplaced("h1"));
    assert_eq!(rules(&rs), [RuleId::FideA5_1]);
    s.play(READY_TO_CASTLE);
    // Touching the king and then the h1 rook intends a castling that is now
    // illegal: another king move must be made (4.4.3), O-O-O included.
    let mut touched = S { g: s.g.clone(), t: s.t, log: Vec::new() };
    touched.touch(W, "e1");
    touched.touch(W, "h1");
    let allowed = touched.allowed();
    assert!(allowed.contains(&"O-O-O".to_string()), "{allowed:?}");
    assert!(!allowed.contains(&"O-O".to_string()), "{allowed:?}");
    assert!(allowed.contains(&"Kf1".to_string()), "{allowed:?}");
    // O-O is illegal, O-O-O is not.
    assert_eq!(rules(&s.make(W, "e1g1")), [RuleId::Fide7_5_1]);
    assert_eq!(rules(&s.make(W, "e1c1")), [RuleId::Fide4_7]);
    s.press(W);
    assert_eq!(s.g.position().king(W), sq("c1"));
    assert_eq!(s.g.illegal_move_count(W), 0);
    // Black's rook on h8 is not concerned.
    s.play("O-O");
    assert_eq!(s.g.position().king(B), sq("g8"));
}

#[test]
fn a_5_1_2_banned_castling_unobserved_stands_unless_claimed() {
    // observe = false: the banned castling goes on the board like any
    // illegal move nobody acted on, and the opponent may claim it (A.5.2).
    let mut r = regs("15+10", Mode::OverTheBoard, None);
    r.observe = false;
    let mut s = S::new(r);
    s.play(TEN_EACH);
    s.ev(king_misplaced(W));
    s.play(READY_TO_CASTLE);
    s.make(W, "e1g1");
    let rs = s.press(W);
    assert!(
        rs.iter().any(|r| matches!(r.decision, Decision::IllegalMoveNotActedOn { color: W, .. })),
        "{rs:?}"
    );
    assert_eq!(s.g.position().king(W), sq("g1"));
    let rs = s.ev(Event::ClaimIllegalMove { color: B });
    assert_eq!(illegal_moves(&rs), [(RuleId::Fide7_5_1, 1)]);
    assert_eq!(s.g.position().king(W), sq("e1"));
}

#[test]
fn a_5_1_2_banned_castling_is_refused_online() {
    let mut s = S::online("3+2", None);
    // Online a repetition draws by itself, so no knight shuffling here.
    s.submit("e3 e6 d3 d6 a3 a6 h3 h6");
    s.submit(READY_TO_CASTLE);
    assert_eq!(rules(&s.ev(king_misplaced(W))), [RuleId::FideA5_1]);
    assert_eq!(rules(&s.ev(rook_misplaced("a8"))), [RuleId::FideA5_1]);
    for uci in ["e1g1", "e1c1", "e1h1"] {
        let r = s.rej(Event::SubmitMove { color: W, mv: mi(uci), premove: false, lag_ms: 0 });
        assert_eq!((r.reason, r.rule), (RejectReason::IllegalMove, Some(RuleId::Ocr3_1_2)), "{uci}");
    }
    s.submit("Kf1");
    // Black may not castle with the a8 rook but may with the h8 rook.
    let r = s.rej(Event::SubmitMove { color: B, mv: mi("e8c8"), premove: false, lag_ms: 0 });
    assert_eq!(r.reason, RejectReason::IllegalMove);
    s.submit("O-O");
    assert_eq!(s.g.position().king(B), sq("g8"));
}

#[test]
fn a_5_1_2_a_banned_castling_written_with_a_claim_is_an_illegal_intended_move() {
    let mut s = S::otb("15+10", None);
    s.play(TEN_EACH);
    s.ev(king_misplaced(W));
    s.play(READY_TO_CASTLE);
    let rs = s.ev(Event::ClaimDraw { color: W, kind: ClaimKind::Threefold, intended: Some(mi("e1g1")) });
    assert!(rules(&rs).contains(&RuleId::Fide9_5c), "{rs:?}");
    // 9.5.3 with an illegal intended move: another move with the king,
    // which may not castle.
    let allowed = s.allowed();
    assert!(allowed.contains(&"Kf1".to_string()), "{allowed:?}");
    assert!(!allowed.iter().any(|m| m.starts_with("O-O")), "{allowed:?}");
}

#[test]
fn a_5_1_2_misplaced_king_or_rook_before_the_cut_off_or_outside_a_5_annuls() {
    // Rapid under A.5, before each player has completed ten moves: 7.2.1.
    for error in [SetupError::KingMisplaced { color: B }, SetupError::RookMisplaced { square: sq("a1") }] {
        let mut s = S::otb("15+10", None);
        s.play(NINE_AND_A_HALF);
        s.ev(setup(error));
        assert_eq!(s.result(), Some(GameResult::Annulled), "{error:?}");
        assert_eq!(s.rule_of_end(), RuleId::Fide7_2a);
        assert!(s.g.castling_bans().is_empty());
    }
    // Standard play: 7.2.1 at any move.
    let mut s = S::otb("90+30", None);
    s.play(TEN_EACH);
    s.ev(king_misplaced(W));
    assert_eq!((s.result(), s.rule_of_end()), (Some(GameResult::Annulled), RuleId::Fide7_2a));
    // Rapid under A.4 (the full Competitive Rules): 7.2.1 at any move.
    let mut r = regs("15+10", Mode::OverTheBoard, None);
    r.regime = Regime::Full;
    let mut s = S::new(r);
    s.play(TEN_EACH);
    s.ev(rook_misplaced("h8"));
    assert_eq!((s.result(), s.rule_of_end()), (Some(GameResult::Annulled), RuleId::Fide7_2a));
}

#[test]
fn a_5_1_2_a_misplaced_rook_is_named_by_a_castling_rook_square() {
    let mut s = S::otb("15+10", None);
    s.play(TEN_EACH);
    let r = s.rej(rook_misplaced("e1"));
    assert_eq!((r.reason, r.rule), (RejectReason::InvalidArgument, Some(RuleId::FideA5_1)));
    // Refused whatever the stage of the game, before the annulment too.
    let mut s = S::otb("15+10", None);
    s.play("e4");
    assert_eq!(s.rej(rook_misplaced("b8")).reason, RejectReason::InvalidArgument);
}

#[test]
fn a_5_1_2_wrong_initial_position_after_the_cut_off_points_to_the_castling_bans() {
    let mut s = S::otb("15+10", None);
    s.play(TEN_EACH);
    let r = s.rej(setup(SetupError::WrongInitialPosition));
    assert!(r.message.contains("KingMisplaced") && r.message.contains("RookMisplaced"), "{}", r.message);
    assert!(!r.message.contains("not modelled"), "{}", r.message);
}

#[test]
fn a_5_1_2_castling_bans_survive_serde_and_replay() {
    let regs = regs("15+10", Mode::OverTheBoard, None);
    let mut g = Game::new(regs.clone()).unwrap();
    let mut log: Vec<(Event, i64)> = Vec::new();
    let mut t = 0;
    let mut apply = |g: &mut Game, e: Event, log: &mut Vec<(Event, i64)>| {
        t += 1_000;
        g.apply(&e, t).unwrap_or_else(|r| panic!("{e:?}: {r}"));
        log.push((e, t));
    };
    apply(&mut g, Event::Start, &mut log);
    for san in format!("{TEN_EACH} {READY_TO_CASTLE}").split_whitespace() {
        let pos = *g.position();
        let m = pos.parse_san(san).unwrap();
        let color = pos.turn();
        apply(&mut g, Event::MakeMove { color, mv: mi(&pos.uci(m).to_string()) }, &mut log);
        apply(&mut g, Event::PressClock { color, other_hand: false }, &mut log);
        if log.len() == 41 {
            // Each player has completed ten moves: rule the bans.
            apply(&mut g, king_misplaced(B), &mut log);
            apply(&mut g, rook_misplaced("h1"), &mut log);
        }
    }
    assert_eq!(g.castling_bans().len(), 2);
    apply(&mut g, Event::MakeMove { color: W, mv: mi("e1g1") }, &mut log);
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.contains("castling_bans"), "{json}");
    let back: Game = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g);
    let replayed = Game::replay(regs.clone(), log.iter()).unwrap_or_else(|(i, r)| panic!("{i}: {r}"));
    assert_eq!(replayed, g);
    // A game without bans writes no field, so states written before the
    // bans existed read back unchanged.
    let plain = Game::new(regs).unwrap();
    assert!(!serde_json::to_string(&plain).unwrap().contains("castling_bans"));
    // The existing set-up errors keep their JSON form.
    assert_eq!(serde_json::to_string(&SetupError::WrongInitialPosition).unwrap(), "\"WrongInitialPosition\"");
    let e = SetupError::RookMisplaced { square: sq("h1") };
    assert_eq!(serde_json::from_str::<SetupError>(&serde_json::to_string(&e).unwrap()).unwrap(), e);
}

#[test]
fn set_up_errors_found_after_the_game_leave_the_result_standing() {
    for (error, rule) in [
        (SetupError::WrongInitialPosition, RuleId::Fide7_2a),
        (SetupError::BoardWronglyOriented, RuleId::Fide7_2b),
        (SetupError::ColoursReversed, RuleId::Fide7_3),
    ] {
        let mut s = S::otb("90+30", None);
        s.play("f3 e5 g4 Qh4#");
        assert_eq!(s.result(), Some(GameResult::BlackWins));
        let r = s.rej(setup(error));
        assert_eq!((r.reason, r.rule), (RejectReason::GameOver, Some(rule)));
        assert!(r.message.contains("result"), "{}", r.message);
    }
}

#[test]
fn set_up_errors_need_a_started_game() {
    let mut s = S::unstarted(regs("90+30", Mode::OverTheBoard, None));
    assert_eq!(s.rej(setup(SetupError::ColoursReversed)).reason, RejectReason::NotStarted);
}

// ---------------------------------------------------------------------------
// 7.2.2: board wrongly oriented
// ---------------------------------------------------------------------------

#[test]
fn wrong_orientation_is_corrected_and_the_game_continues() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5 Nf3");
    let fen = s.g.position().fen();
    let rs = s.ev(setup(SetupError::BoardWronglyOriented));
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0].rule, RuleId::Fide7_2b);
    assert!(matches!(
        &rs[0].decision,
        Decision::SetupErrorStands { error: SetupError::BoardWronglyOriented, .. }
    ));
    assert_eq!(s.g.position().fen(), fen, "the position is transferred unchanged");
    s.play("Nc6");
    assert!(!s.g.is_over());
}

#[test]
fn an_online_board_cannot_be_wrongly_oriented() {
    let mut s = S::online("3+2", None);
    let r = s.rej(setup(SetupError::BoardWronglyOriented));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Ocr1_3)));
}

// ---------------------------------------------------------------------------
// 7.3: colours reversed
// ---------------------------------------------------------------------------

#[test]
fn colours_reversed_before_ten_moves_by_both_annuls() {
    let mut s = S::otb("90+30", None);
    s.play(NINE_AND_A_HALF);
    // White has made ten moves, Black nine: still fewer than ten by both.
    s.ev(setup(SetupError::ColoursReversed));
    assert_eq!(s.result(), Some(GameResult::Annulled));
    assert_eq!(s.rule_of_end(), RuleId::Fide7_3);
    assert!(s.g.end().unwrap().reason.contains("correct colours"));
}

#[test]
fn colours_reversed_after_blacks_tenth_move_continues() {
    let mut s = S::otb("90+30", None);
    s.play(NINE_AND_A_HALF);
    // "Made" is enough for 7.3: Black's tenth move on the board, not pressed.
    s.make(B, "f6g8");
    let rs = s.ev(setup(SetupError::ColoursReversed));
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0].rule, RuleId::Fide7_3);
    assert!(matches!(&rs[0].decision, Decision::SetupErrorStands { error: SetupError::ColoursReversed, .. }));
    assert!(!s.g.is_over());
    s.press(B);
    s.play("e4 e5");
}

#[test]
fn colours_reversed_applies_in_rapid_after_ten_moves_as_well() {
    // A.5.1.2 closes set-up claims, but 7.3 has its own limit.
    let mut s = S::otb("15+10", None);
    s.play(TEN_EACH);
    let rs = s.ev(setup(SetupError::ColoursReversed));
    assert_eq!(rs[0].rule, RuleId::Fide7_3);
    assert!(!s.g.is_over());
}

#[test]
fn colours_reversed_online_follows_ocr_15_2() {
    let mut s = S::online("3+2", None);
    s.submit("e4 e5");
    s.ev(setup(SetupError::ColoursReversed));
    assert_eq!((s.result(), s.rule_of_end()), (Some(GameResult::Annulled), RuleId::Ocr15_2));
}

#[test]
fn an_annulled_armageddon_game_has_no_match_winner() {
    let mut r = regs("5+0", Mode::OverTheBoard, None);
    r.armageddon = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    s.ev(setup(SetupError::ColoursReversed));
    let end = s.g.end().unwrap();
    assert_eq!((end.result, end.armageddon_winner), (GameResult::Annulled, None));
}

#[test]
fn no_score_penalty_on_an_annulled_game() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(setup(SetupError::WrongInitialPosition));
    let r = s.rej(penalty(W, PenaltyKind::ReduceScore));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Fide12_9_5)));
}

// ---------------------------------------------------------------------------
// 12.9.4, 12.9.5: score penalties
// ---------------------------------------------------------------------------

#[test]
fn reduce_score_during_the_game_applies_to_the_draw() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    let rs = s.ev(penalty(W, PenaltyKind::ReduceScore));
    assert_eq!(
        rs[0].decision,
        Decision::ScorePenalty {
            adjustment: ScoreAdjustment { offender: W, kind: ScoreAdjustmentKind::ReduceScore }
        }
    );
    assert!(!s.g.is_over());
    assert_eq!(s.g.adjusted_points(&PointSystem::FIDE), None);
    assert_eq!(
        s.g.score_adjustments(),
        [ScoreAdjustment { offender: W, kind: ScoreAdjustmentKind::ReduceScore }]
    );
    s.play("Nf3 Nc6");
    s.ev(Event::OfferDraw { color: B });
    s.ev(Event::AcceptDraw { color: W });
    let end = s.g.end().unwrap();
    assert_eq!(end.result, adjusted(Score::Loss, Score::Draw));
    assert_eq!(end.board_result, Some(GameResult::Draw));
    assert_eq!(end.rule, RuleId::Fide5_2_3);
    assert_eq!(end.result.notation(), "0-½");
    assert_eq!(end.result.pgn_result(), "*");
    assert_eq!(s.g.adjusted_points(&PointSystem::FIDE), Some(Ok((Points::ZERO, Points::HALF))));
}

#[test]
fn raise_opponent_score_turns_a_draw_into_a_win_for_the_opponent() {
    // 1-½ would exceed the game's maximum (Law 10.1): the offender scores 0.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(penalty(W, PenaltyKind::RaiseOpponentScore));
    s.play("Nf3 Nc6");
    s.ev(Event::OfferDraw { color: B });
    s.ev(Event::AcceptDraw { color: W });
    assert_eq!(s.result(), Some(adjusted(Score::Loss, Score::Win)));
    assert_eq!(s.g.adjusted_points(&PointSystem::FIDE), Some(Ok((Points::ZERO, Points::ONE))));
    assert_eq!(s.g.adjusted_points(&PointSystem::THREE_ONE_ZERO), Some(Ok((Points::ZERO, Points::whole(3)))));
    assert_eq!(s.result().unwrap().pgn_result(), "0-1");
    assert_eq!(s.result().unwrap().winner(), Some(B));
}

#[test]
fn score_penalties_do_not_touch_a_result_they_cannot_change() {
    // Black is penalised and loses anyway: the score stays 1-0.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(penalty(B, PenaltyKind::ReduceScore));
    s.ev(Event::Resign { color: B });
    let end = s.g.end().unwrap();
    assert_eq!(end.result, GameResult::WhiteWins);
    assert_eq!(end.board_result, Some(GameResult::WhiteWins));
    assert_eq!(end.rule, RuleId::Fide5_1_2);
}

#[test]
fn a_score_penalty_after_the_game_changes_its_result_at_once() {
    let mut s = S::otb("90+30", None);
    s.play("f3 e5 g4 Qh4#");
    let rs = s.ev(penalty(B, PenaltyKind::ReduceScore));
    assert_eq!(rules(&rs), [RuleId::Fide12_9_5, RuleId::Fide12_9_5]);
    let Decision::GameOver(end) = &rs[1].decision else { panic!("{rs:?}") };
    assert_eq!(end.result, adjusted(Score::Loss, Score::Loss));
    assert_eq!(end.board_result, Some(GameResult::BlackWins));
    // The end keeps the Article it rests on and its reason.
    assert_eq!((end.rule, end.reason.as_str()), (RuleId::Fide5_1_1, "checkmate"));
    assert_eq!(s.g.end(), Some(end));
    assert_eq!(s.g.adjusted_points(&PointSystem::FIDE), Some(Ok((Points::ZERO, Points::ZERO))));
    // A later correction of the board result keeps the penalty.
    s.ev(Event::DeclareResult { result: DeclaredResult::Draw });
    assert_eq!(s.result(), Some(adjusted(Score::Draw, Score::Loss)));
    assert_eq!(s.g.end().unwrap().board_result, Some(GameResult::Draw));
}

#[test]
fn other_penalties_are_still_refused_after_the_game() {
    let mut s = S::otb("90+30", None);
    s.play("f3 e5 g4 Qh4#");
    for kind in [PenaltyKind::Warning, PenaltyKind::AddTimeToOpponent(MIN), PenaltyKind::DeclareLost] {
        assert_eq!(s.rej(penalty(W, kind)).reason, RejectReason::GameOver);
    }
}

#[test]
fn no_score_penalty_on_an_unplayed_forfeit() {
    let mut r = regs("90+30", Mode::OverTheBoard, None);
    r.default_time_ms = Some(0);
    let mut s = S::unstarted(r);
    s.ev(Event::PlayerArrived { color: W });
    s.ev(Event::Start);
    assert_eq!(s.result(), Some(GameResult::WhiteWinsByForfeit));
    let r = s.rej(penalty(W, PenaltyKind::RaiseOpponentScore));
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::Fide12_9_4)));
}

#[test]
fn armageddon_winner_follows_the_adjusted_result() {
    let mut r = regs("5+0", Mode::OverTheBoard, None);
    r.armageddon = true;
    let mut s = S::new(r);
    s.play("e4 e5");
    // Black penalised under 12.9.4: White scores the maximum, Black 0; the
    // draw that follows no longer counts as Black's win.
    s.ev(penalty(B, PenaltyKind::RaiseOpponentScore));
    s.play("Nf3 Nc6");
    s.ev(Event::OfferDraw { color: W });
    s.ev(Event::AcceptDraw { color: B });
    let end = s.g.end().unwrap();
    assert_eq!(end.result, adjusted(Score::Win, Score::Loss));
    assert_eq!(end.armageddon_winner, Some(W));
}

#[test]
fn score_penalties_survive_serialisation_and_old_states_still_load() {
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.ev(penalty(W, PenaltyKind::ReduceScore));
    let json = serde_json::to_string(&s.g).unwrap();
    let back: Game = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s.g);
    // A state written before score penalties existed has no such field.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value.as_object_mut().unwrap().remove("score_adjustments").unwrap();
    let old: Game = serde_json::from_value(value).unwrap();
    assert!(old.score_adjustments().is_empty());
    // Nor had a game's end a board result.
    s.ev(Event::Resign { color: B });
    let mut end = serde_json::to_value(s.g.end().unwrap()).unwrap();
    end.as_object_mut().unwrap().remove("board_result").unwrap();
    let end: arbiter_laws::ruling::GameEnd = serde_json::from_value(end).unwrap();
    assert_eq!(end.board_result, None);
    // White won on the board; his 12.9.5 penalty leaves both with nothing.
    assert_eq!(end.result, adjusted(Score::Loss, Score::Loss));
    // Without score penalties the state and the end are written as before.
    let mut plain = S::otb("90+30", None);
    plain.play("e4 e5");
    plain.ev(Event::Resign { color: W });
    let json = serde_json::to_string(&plain.g).unwrap();
    assert!(!json.contains("score_adjustments") && !json.contains("board_result"), "{json}");
    assert_eq!(serde_json::from_str::<Game>(&json).unwrap(), plain.g);
}

#[test]
fn points_of_an_annulled_result_are_refused() {
    assert_eq!(points(GameResult::Annulled, &PointSystem::FIDE), Err(ScoringError::Annulled));
}
