//! The clock and Guidelines III defects of the 2026-12 laws audit
//! (`shared/spec/reviews/laws-audit.md`, sections 1.2, 1.6, 1.7, 1.9, 1.10
//! and its item i08), each replayed through `Game::apply` with the exact
//! rulings, clocks and move counters the Laws require (revision 2 of the
//! rulings, DEC-22 to DEC-25), and the behaviour a game of revision 1 keeps.

mod common;

use arbiter_chess::dead::is_dead_quick;
use arbiter_chess::{Color, GameRecord, Position};
use arbiter_laws::event::{Answer, Event};
use arbiter_laws::game::{Game, QuestionKind};
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause, GameResult, RejectReason, Ruling};
use arbiter_laws::time_control::TimeControl;
use common::*;

/// 40 moves in 90 minutes, then 30 minutes, 30 seconds a move from move 1.
const TWO_PERIODS: &str = "40/5400+30:1800+30";

fn pgn_regs(tc: &str, fen: Option<&str>) -> Regulations {
    let mut r = Regulations::new(TimeControl::from_pgn(tc).unwrap());
    r.mode = Mode::OverTheBoard;
    r.start_fen = fen.map(str::to_owned);
    r
}

/// A line of `plies` legal moves (UCI) from `start` without captures,
/// without a position three times and without an end: the clock tests
/// need long games that nothing but time decides.
fn quiet_line(start: &Position, plies: usize, seed: u64) -> Vec<String> {
    (seed..).find_map(|seed| try_quiet_line(start, plies, seed)).expect("a quiet line")
}

fn try_quiet_line(start: &Position, plies: usize, seed: u64) -> Option<Vec<String>> {
    let mut record = GameRecord::new(*start);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = Vec::new();
    for _ in 0..plies {
        let pos = *record.position();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let m = (0..500).map(|_| moves[rng.below(moves.len())]).find(|&m| {
            let next = pos.after(m);
            let mut again = record.clone();
            again.push_unchecked(m);
            !pos.is_capture(m) && next.has_legal_move() && !is_dead_quick(&next) && again.repetitions() < 2
        })?;
        out.push(pos.uci(m).to_string());
        record.push_unchecked(m);
    }
    Some(out)
}

/// The next quiet move in the game's position.
fn next_quiet(s: &S) -> String {
    quiet_line(s.g.position(), 1, 99)[0].clone()
}

fn counters(s: &S) -> (u32, u32) {
    (s.g.clock().moves_completed(W), s.g.clock().moves_completed(B))
}

fn decisions(rs: &[Ruling]) -> Vec<(RuleId, Decision)> {
    rs.iter().map(|r| (r.rule, r.decision.clone())).collect()
}

fn counter_set(color: Color, moves_completed: u32) -> Decision {
    Decision::MoveCounterSet { color, moves_completed }
}

/// The audit's c05: White's 5th move is made and not pressed, Black
/// replies; later White's 40th move on the board is pressed with 10 s left
/// (5 s used). Returns the game just after that press.
fn forgotten_press_game(r: Regulations) -> S {
    let mut s = S::new(r);
    let line = quiet_line(&Position::startpos(), 79, 5);
    for (k, uci) in line.iter().enumerate() {
        s.wait(SEC);
        let color = s.g.position().turn();
        if k == 78 {
            s.ev(Event::SetClock { color: W, remaining_ms: 10 * SEC });
            s.wait(5 * SEC);
        }
        let made = s.make(color, uci);
        if k == 8 {
            continue; // White's 5th move: the press is forgotten.
        }
        let pressed = s.press(color);
        if s.g.regulations().audited_rulings() {
            match k {
                // Black's press completes his reply but not on the running
                // clock: the clock counts it (DEC-22).
                9 => assert_eq!(decisions(&pressed), [(RuleId::Fide6_2a, counter_set(B, 5))]),
                // White's next move completes his 5th (6.2.1.2).
                10 => assert_eq!(decisions(&made)[0], (RuleId::Fide6_2a, counter_set(W, 5))),
                _ => {}
            }
        }
    }
    s
}

#[test]
fn audit_02_forgotten_press_keeps_second_period() {
    let mut s = forgotten_press_game(pgn_regs(TWO_PERIODS, None));
    assert_eq!(s.g.record().ply_count(), 79, "White has made 40 moves");
    assert_eq!(counters(&s), (40, 39), "the clock counts the moves completed");
    // 10 s - 5 s used + the second period's 30' + the 30" for move 41.
    assert_eq!(s.remaining(W), 5 * SEC + 30 * MIN + 30 * SEC);
    // Black replies at once; White thinks 40 s: no flag, 30' were due.
    s.wait(SEC);
    let reply = next_quiet(&s);
    s.make(B, &reply);
    s.press(B);
    s.wait(40 * SEC);
    s.ev(Event::Tick);
    assert!(!s.g.is_over(), "{:?}", s.g.end());
    assert_eq!(s.remaining(W), 5 * SEC + 30 * MIN + 30 * SEC - 40 * SEC);
}

#[test]
fn audit_02_a_press_forgotten_on_the_40th_move_brings_the_period_with_the_next_move() {
    // White's 40th move is the unpressed one: it is completed when he
    // makes his 41st (6.2.1.2), and the 30' come then, before the press.
    let mut s = S::new(pgn_regs(TWO_PERIODS, None));
    let line = quiet_line(&Position::startpos(), 80, 5);
    for uci in &line[..78] {
        s.wait(SEC);
        let color = s.g.position().turn();
        s.make(color, uci);
        s.press(color);
    }
    s.ev(Event::SetClock { color: W, remaining_ms: 10 * SEC });
    s.wait(2 * SEC);
    s.make(W, &line[78]); // not pressed
    s.wait(3 * SEC);
    // Black's 40th move, completed by his press while White's clock runs:
    // his second period is due at once (6.3.1).
    let b = s.remaining(B);
    s.make(B, &line[79]);
    let rs = s.press(B);
    assert_eq!(
        decisions(&rs),
        [
            (RuleId::Fide6_2a, counter_set(B, 40)),
            (
                RuleId::Fide6_2a,
                Decision::ClockAdjusted { color: B, delta_ms: 30 * MIN, remaining_ms: b + 30 * MIN }
            ),
        ]
    );
    s.wait(2 * SEC);
    let next = next_quiet(&s);
    let rs = s.make(W, &next);
    assert_eq!(
        decisions(&rs)[..2],
        [
            (RuleId::Fide6_2a, counter_set(W, 40)),
            (
                RuleId::Fide6_2a,
                Decision::ClockAdjusted {
                    color: W,
                    delta_ms: 30 * MIN,
                    remaining_ms: 10 * SEC - 7 * SEC + 30 * MIN
                }
            ),
        ]
    );
    assert_eq!(counters(&s), (40, 40));
}

#[test]
fn audit_02_a_game_of_the_first_revision_keeps_its_rulings() {
    // Logs recorded before the correction replay to what they were given.
    let mut r = pgn_regs(TWO_PERIODS, None);
    r.rulings_revision = Regulations::FIRST_RULINGS;
    let mut s = forgotten_press_game(r);
    assert_eq!(counters(&s), (39, 38));
    assert_eq!(s.remaining(W), 5 * SEC + 30 * SEC);
    s.wait(SEC);
    let reply = next_quiet(&s);
    s.make(B, &reply);
    s.press(B);
    s.wait(40 * SEC);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
}

#[test]
fn audit_06_reinstatement_sets_move_counter() {
    let mut s = S::new(pgn_regs(TWO_PERIODS, None));
    let line = quiet_line(&Position::startpos(), 80, 3);
    for uci in &line[..78] {
        s.wait(SEC);
        let color = s.g.position().turn();
        s.make(color, uci);
        s.press(color);
    }
    assert_eq!(counters(&s), (39, 39));
    s.wait(SEC);
    // Back to the position before White's 39th move (7.1).
    let rs = s.ev(Event::ReinstatePosition { ply: 76 });
    assert_eq!(
        decisions(&rs[1..]),
        [(RuleId::Fide7_1, counter_set(W, 38)), (RuleId::Fide7_1, counter_set(B, 38))]
    );
    assert_eq!(counters(&s), (38, 38));
    // White's replayed 39th move earns the increment only.
    let before = s.remaining(W);
    s.wait(SEC);
    let rs = s.make(W, &line[76]);
    assert!(!rs.iter().any(|r| matches!(r.decision, Decision::MoveCounterSet { .. })), "{rs:?}");
    s.press(W);
    assert_eq!(s.remaining(W), before - SEC + 30 * SEC);
    s.wait(SEC);
    s.make(B, &line[77]);
    s.press(B);
    // The 30' of the second period come with White's 40th move.
    let before = s.remaining(W);
    s.wait(SEC);
    s.make(W, &line[78]);
    let rs = s.press(W);
    assert!(
        rs.iter().any(|r| matches!(r.decision, Decision::MoveCompleted { color: W, bonus_ms, .. } if bonus_ms == 30 * MIN + 30 * SEC)),
        "{rs:?}"
    );
    assert_eq!(s.remaining(W), before - SEC + 30 * MIN + 30 * SEC);
    assert_eq!(counters(&s), (40, 39));
}

#[test]
fn audit_06_arbiter_sets_move_counter_and_installs_time_control() {
    // A game resumed from move 31 on a clock wrongly set to 90'+30"
    // without the second period: the arbiter installs the event's control
    // and sets both counters to the 30 moves already played (6.10.2).
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 31";
    let mut s = S::new(pgn_regs("5400+30", Some(fen)));
    s.ev(Event::PauseClocks);
    let rs = s.ev(Event::InstallTimeControl { time_control: TimeControl::from_pgn(TWO_PERIODS).unwrap() });
    assert_eq!(
        decisions(&rs),
        [(RuleId::Fide6_10, Decision::TimeControlInstalled { time_control: TWO_PERIODS.into() })]
    );
    assert_eq!(s.g.clock().control().to_pgn(), TWO_PERIODS);
    for color in [W, B] {
        let rs = s.ev(Event::SetMoveCounter { color, moves_completed: 30 });
        assert_eq!(decisions(&rs), [(RuleId::Fide6_10, counter_set(color, 30))]);
    }
    assert_eq!(counters(&s), (30, 30));
    // A counter out of range is refused and changes nothing.
    let r = s.rej(Event::SetMoveCounter { color: W, moves_completed: 10_001 });
    assert_eq!((r.reason, r.rule), (RejectReason::InvalidArgument, Some(RuleId::Fide6_10)));
    s.ev(Event::ResumeClocks);
    // Ten moves each; White forgets to press his 35th and Black answers:
    // the clock still follows the board from the count the arbiter set.
    let line = quiet_line(s.g.position(), 18, 11);
    for (k, uci) in line.iter().enumerate() {
        s.wait(SEC);
        let color = s.g.position().turn();
        s.make(color, uci);
        if k != 8 {
            s.press(color);
        }
    }
    assert_eq!(counters(&s), (39, 39));
    let before = s.remaining(W);
    s.wait(SEC);
    let next = next_quiet(&s);
    s.make(W, &next);
    s.press(W);
    // Move 40 of the game ends the first period: 30' and the increment.
    assert_eq!(s.remaining(W), before - SEC + 30 * MIN + 30 * SEC);
    assert_eq!(counters(&s), (40, 39));
}

/// Guidelines III in force, 90 minutes without increment, White to move
/// with 1:30 after 1.e4 e5 2.Nf3 Nc6.
fn quickplay() -> S {
    let mut r = pgn_regs("5400", None);
    r.guidelines_iii = true;
    let mut s = S::new(r);
    s.play("e4 e5 Nf3 Nc6");
    s.ev(Event::SetClock { color: W, remaining_ms: 90 * SEC });
    s
}

/// White claims under III.5 and the arbiter postpones; returns its id.
fn postponed_claim(s: &mut S) -> u32 {
    s.ev(Event::ClaimNoWinningAttempt { color: W });
    let id = s.g.open_questions()[0].id;
    s.wait(SEC);
    s.ev(Event::AnswerQuestion { id, answer: Answer::Postpone });
    assert!(s.g.open_questions().is_empty());
    assert_eq!(s.g.postponed_questions().len(), 1);
    assert_eq!(s.g.postponed_questions()[0].id, id);
    assert!(matches!(s.g.postponed_questions()[0].kind, QuestionKind::NoWinningAttempt { by: W }));
    id
}

#[test]
fn audit_07_postponed_claim_stays_open_after_flag() {
    let mut s = quickplay();
    let id = postponed_claim(&mut s);
    let b = s.remaining(B);
    // White's flag falls: the loss stands until the arbiter decides, and
    // the claim is open again (III.5.2).
    s.wait(91 * SEC);
    let rs = s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert_eq!(s.rule_of_end(), RuleId::Fide6_9);
    assert!(
        rs.iter().any(|r| r.rule == RuleId::FideIII5
            && matches!(&r.decision, Decision::QuestionOpened { id: i, default, .. } if *i == id && default == "the result of the flag stands")),
        "{rs:?}"
    );
    assert_eq!(s.g.open_questions().len(), 1);
    assert!(s.g.postponed_questions().is_empty());
    // It can no longer be postponed.
    let r = s.rej(Event::AnswerQuestion { id, answer: Answer::Postpone });
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::FideIII5)));
    // The arbiter finds that Black could not win by normal means: a draw.
    let rs = s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!(rs[0].decision, Decision::QuestionAnswered { id, answer: "Accept".into() });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideIII5);
    assert_eq!(s.g.end().unwrap().cause, EndCause::NoWinningAttempt);
    assert_eq!(s.remaining(B), b, "no time is added after the postponement");
    // The default keeps the flag's result.
    let mut s = quickplay();
    let id = postponed_claim(&mut s);
    s.wait(91 * SEC);
    s.ev(Event::Tick);
    s.ev(Event::AnswerQuestion { id, answer: Answer::Default });
    assert_eq!(s.result(), Some(GameResult::BlackWins));
    assert!(s.g.open_questions().is_empty());
}

#[test]
fn audit_07_postponed_claim_decided_later_in_the_game() {
    // Decided while the game goes on: a draw, or no draw without a second
    // award of two minutes (DEC-23).
    let mut s = quickplay();
    let id = postponed_claim(&mut s);
    s.play("Bc4");
    s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideIII5);
    let mut s = quickplay();
    let id = postponed_claim(&mut s);
    let w = s.remaining(W);
    let b = s.remaining(B);
    s.ev(Event::AnswerQuestion { id, answer: Answer::Reject });
    assert!(!s.g.is_over());
    assert!(s.g.postponed_questions().is_empty());
    assert_eq!((s.remaining(W), s.remaining(B)), (w, b));
    // Answered once, it is gone.
    let r = s.rej(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!((r.reason, r.rule), (RejectReason::InvalidArgument, Some(RuleId::Dec12)));
    // Black's flag: the claimant wins, nothing is left to decide.
    let mut s = quickplay();
    postponed_claim(&mut s);
    s.play("Bc4");
    s.ev(Event::SetClock { color: B, remaining_ms: SEC });
    s.wait(SEC);
    s.ev(Event::Tick);
    assert_eq!(s.result(), Some(GameResult::WhiteWins));
    assert!(s.g.open_questions().is_empty() && s.g.postponed_questions().is_empty());
}

const PROMOTION_FEN: &str = "8/4P3/8/8/8/7k/8/K7 w - - 0 60";

#[test]
fn audit_09_unreplaced_pawn_answered_is_an_illegal_move() {
    let mut s = S::otb("90+30", Some(PROMOTION_FEN));
    let rs = s.make(W, "e7e8");
    assert_eq!(rules(&rs), [RuleId::Fide7_5_2]);
    let b = s.remaining(B);
    // Black replies before White presses: White's move is ruled now.
    s.wait(SEC);
    let rs = s.make(B, "h3h4");
    assert_eq!(
        decisions(&rs),
        [
            (
                RuleId::Fide7_5_2,
                Decision::IllegalMove {
                    color: W,
                    count: 1,
                    description:
                        "pawn not replaced on promotion; the opponent answered before the clock was \
                                  pressed"
                            .into()
                }
            ),
            (
                RuleId::Fide7_5_5,
                Decision::ClockAdjusted { color: B, delta_ms: 2 * MIN, remaining_ms: b + 2 * MIN }
            ),
            (RuleId::Fide4_7, Decision::MoveMade { color: B, san: "Kh4".into(), uci: "h3h4".into(), ply: 2 }),
        ]
    );
    assert_eq!(s.g.illegal_move_count(W), 1);
    s.press(B);
    s.make(W, "a1a2");
    s.press(W);
    assert_eq!(s.g.position().fen(), "4Q3/8/8/8/7k/8/K7/8 b - - 2 61", "the queen the arbiter placed");
    assert!(s.g.record().irregular_moves().is_empty());
    assert_eq!(s.remaining(B), b + 2 * MIN);
    // A second illegal move of White's later ends the game (7.5.5): a
    // draw, as Black's lone king cannot checkmate.
    s.play("Kg4");
    s.press(W);
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.g.end().unwrap().cause, EndCause::IllegalMoves);
}

#[test]
fn audit_09_unreplaced_pawn_answered_stands_when_unobserved() {
    // observe = false (A.5.2, AS-24): the opponent's move lets it stand as
    // made: the record holds the pawn on e8, and A.5.4 then draws.
    let mut r = pgn_regs("900+10", Some(PROMOTION_FEN));
    r.observe = false;
    let mut s = S::new(r);
    s.make(W, "e7e8");
    let rs = s.make(B, "h3h4");
    assert!(
        rs.iter().any(|r| r.rule == RuleId::FideA5_2
            && matches!(&r.decision, Decision::IllegalMoveStands { color: W, .. })),
        "{rs:?}"
    );
    assert_eq!(s.g.position().fen(), "4P3/8/8/8/7k/8/8/K7 w - - 1 61");
    let rs = s.press(B);
    assert!(rs.iter().any(|r| matches!(r.decision, Decision::IllegalPositionObserved { .. })), "{rs:?}");
    s.play("Ka2");
    assert_eq!(s.result(), Some(GameResult::Draw));
    assert_eq!(s.rule_of_end(), RuleId::FideA5_4);
    assert_eq!(s.g.illegal_move_count(W), 0);
}

#[test]
fn audit_09_two_handed_move_answered_before_the_press_is_a_warning() {
    // i08 (DEC-24): 7.5.4 needs the press; the breach of 4.1 earns a
    // 12.9.1 warning and the move stands.
    let mut s = S::otb("90+30", None);
    s.play("e4 e5");
    s.make(W, "g1f3");
    s.ev(Event::UsedTwoHands { color: W });
    let b = s.remaining(B);
    let rs = s.make(B, "b8c6");
    assert_eq!(
        decisions(&rs)[0],
        (
            RuleId::Fide12_9,
            Decision::Warning {
                color: W,
                reason: "a move made with two hands (4.1), answered before the clock was pressed: not an \
                         illegal move (7.5.4 needs the press)"
                    .into()
            }
        )
    );
    s.press(B);
    s.make(W, "f1c4");
    s.press(W);
    assert_eq!(s.g.illegal_move_count(W), 0);
    assert_eq!(s.g.warning_count(W), 1);
    assert_eq!(s.remaining(B), b);
    assert!(s.g.position().fen().starts_with("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b"));
}

#[test]
fn audit_10_increment_request_waits_for_refused_offer() {
    let mut s = quickplay();
    s.ev(Event::SetClock { color: W, remaining_ms: 100 * SEC });
    let rs = s.ev(Event::RequestIncrement { color: W });
    assert_eq!(rules(&rs), [RuleId::FideIII4, RuleId::FideIII4]);
    let id = s.g.open_questions()[0].id;
    let b = s.remaining(B);
    // The offer is pending: the arbiter cannot grant the increment yet.
    let r = s.rej(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!((r.reason, r.rule), (RejectReason::NotApplicable, Some(RuleId::FideIII4)));
    assert!(r.message.contains("not refused"), "{}", r.message);
    assert_eq!(s.g.open_questions().len(), 1);
    assert_eq!(s.remaining(B), b);
    assert!(s.g.clock().control().to_pgn() == "5400");
    // Black refuses; now the arbiter agrees: +5 s for both, Black +2'.
    s.ev(Event::DeclineDraw { color: B });
    let rs = s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert_eq!(
        decisions(&rs[1..]),
        [
            (RuleId::FideIII4, Decision::IncrementIntroduced { increment_ms: 5 * SEC }),
            (
                RuleId::FideIII4,
                Decision::ClockAdjusted { color: B, delta_ms: 2 * MIN, remaining_ms: b + 2 * MIN }
            ),
        ]
    );
    assert!(s.g.draw_offer().is_none());
    let r = s.rej(Event::AcceptDraw { color: B });
    assert_eq!(r.reason, RejectReason::NoOffer);
    // The offer lapses when Black touches a piece (9.1.2.1): a refusal too.
    let mut s = quickplay();
    s.ev(Event::RequestIncrement { color: W });
    let id = s.g.open_questions()[0].id;
    s.play("d4");
    s.touch(B, "e5");
    assert!(s.g.draw_offer().is_none());
    s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert!(s.log.iter().any(|r| matches!(r.decision, Decision::IncrementIntroduced { .. })));
}

#[test]
fn audit_10_a_game_of_the_first_revision_keeps_its_rulings() {
    let mut s = {
        let mut r = pgn_regs("5400", None);
        r.guidelines_iii = true;
        r.rulings_revision = Regulations::FIRST_RULINGS;
        S::new(r)
    };
    s.play("e4 e5 Nf3 Nc6");
    s.ev(Event::SetClock { color: W, remaining_ms: 100 * SEC });
    s.ev(Event::RequestIncrement { color: W });
    let id = s.g.open_questions()[0].id;
    s.ev(Event::AnswerQuestion { id, answer: Answer::Accept });
    assert!(s.g.draw_offer().is_some(), "revision 1 installed the increment with the offer pending");
}

#[test]
fn an_unknown_revision_of_the_rulings_is_refused() {
    let mut r = pgn_regs("5400+30", None);
    r.rulings_revision = Regulations::CURRENT_RULINGS + 1;
    assert!(Game::new(r).is_err());
}
