//! Clock and time-control tests: the acceptance scenarios of the rule
//! catalogue (AS-40 to AS-45, AS-69, AS-72, AS-76, AS-81), the text forms,
//! and a seeded property test for time conservation.

mod common;
use common::Rng;

use arbiter_chess::Color::{self, Black, White};
use arbiter_laws::clock::{
    ChangeKind, Clock, ClockChange, ClockConfig, ClockError, Flag, MAX_TIMESTAMP, Timestamp,
};
use arbiter_laws::time_control::{
    Bonus, BonusKind, Category, Period, TimeControl, TimeControlError, TimeControlTag,
};

const S: i64 = 1_000;
const M: i64 = 60_000;

fn t(ms: i64) -> Timestamp {
    Timestamp(ms)
}

fn pgn(text: &str) -> TimeControl {
    TimeControl::from_pgn(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn clock(text: &str) -> Clock {
    Clock::new(pgn(text), ClockConfig::default())
}

fn ms(c: &Clock, side: Color, at: i64) -> i64 {
    c.remaining_at(side, t(at)).unwrap()
}

// ---------------------------------------------------------------------------
// Acceptance scenarios
// ---------------------------------------------------------------------------

#[test]
fn as_41_first_increment_is_added_at_the_start() {
    let mut c = clock("5400+30");
    assert_eq!(ms(&c, White, 0), 90 * M, "before the start the clock shows the base time");
    let changes = c.start(White, t(1_000)).unwrap();
    assert_eq!(ms(&c, White, 1_000), 90 * M + 30 * S);
    assert_eq!(ms(&c, Black, 1_000), 90 * M + 30 * S);
    assert_eq!(c.running(), Some(White));
    assert_eq!(changes.len(), 2);
    assert!(changes.iter().all(|ch| ch.kind == ChangeKind::Increment && ch.delta_ms == 30 * S));
    // White's clock runs from the announced start, Black's does not.
    assert_eq!(ms(&c, White, 61_000), 89 * M + 30 * S);
    assert_eq!(ms(&c, Black, 61_000), 90 * M + 30 * S);
}

#[test]
fn as_69_white_arrives_after_five_minutes() {
    let mut c = clock("5400+30");
    c.start(White, t(0)).unwrap();
    assert_eq!(ms(&c, White, 5 * M), 85 * M + 30 * S);
    let r = c.press(t(5 * M + 10 * S)).unwrap();
    assert_eq!(r.before_bonus_ms, 85 * M + 20 * S);
    assert_eq!(r.after_ms, 85 * M + 50 * S);
    assert_eq!(c.running(), Some(Black));
}

/// Plays `n` moves for each side, each taking `step` ms, starting with White.
fn play(c: &mut Clock, now: &mut i64, n: u32, step: i64) {
    for _ in 0..n {
        for _ in 0..2 {
            *now += step;
            c.press(t(*now)).unwrap();
        }
    }
}

#[test]
fn as_40_period_bonus_after_move_40() {
    let mut c = clock("40/5400+30:1800+30");
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 39, S);
    assert_eq!(c.moves_completed(White), 39);
    assert_eq!(c.period_index(White), 0);
    // 90:30 + 39 × (30 − 1) s.
    assert_eq!(ms(&c, White, now), 90 * M + 30 * S + 39 * 29 * S);
    // Give White 0:10 and let him complete move 40 with 0:04 on the clock.
    c.set_remaining(White, 10 * S, t(now)).unwrap();
    now += 6 * S;
    let r = c.press(t(now)).unwrap();
    assert_eq!(r.move_number, 40);
    assert_eq!(r.before_bonus_ms, 4 * S);
    assert_eq!(r.period_bonus_ms, 30 * M);
    assert_eq!(r.increment_ms, 30 * S);
    assert_eq!(r.after_ms, 30 * M + 34 * S, "0:04 + 0:30 + 30:00 = 30:34");
    assert_eq!(c.period_index(White), 1);
    // The period is the rest of the game: no further period time.
    now += S;
    c.press(t(now)).unwrap();
    now += S;
    let r = c.press(t(now)).unwrap();
    assert_eq!(r.move_number, 41);
    assert_eq!(r.period_bonus_ms, 0);
}

#[test]
fn as_40b_flag_after_39_moves_is_in_the_first_period() {
    let mut c = clock("40/5400+30:1800+30");
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 39, S);
    let left = ms(&c, White, now);
    let deadline = c.flag_deadline().unwrap();
    assert_eq!(deadline, t(now + left));
    assert_eq!(c.flag_fallen_at(t(deadline.0 - 1)).unwrap(), None);
    assert_eq!(c.flag_fallen_at(deadline).unwrap(), Some(Flag { side: White, at: deadline }));
    // 6.4: the flag fell before the 40 moves of the period were completed.
    assert_eq!(c.moves_completed(White), 39);
    assert_eq!(c.period_index(White), 0);
    // Settling later records the exact instant, and time stays at zero.
    c.pause(t(deadline.0 + 5 * S)).unwrap();
    assert_eq!(c.flag(White), Some(deadline));
    assert_eq!(ms(&c, White, deadline.0 + 5 * S), 0);
}

#[test]
fn as_42_simple_delay_and_bronstein() {
    for (kind, text) in [(BonusKind::SimpleDelay, "300d3"), (BonusKind::Bronstein, "300b3")] {
        for (think, expected) in [(2 * S, 10 * S), (5 * S, 8 * S)] {
            let mut c = clock(text);
            c.set_remaining(White, 10 * S, t(0)).unwrap();
            c.start(White, t(0)).unwrap();
            if kind == BonusKind::Bronstein {
                // The main time runs from the start of the move: 0:10 → 0:08.
                assert_eq!(ms(&c, White, 2 * S), 8 * S);
            } else {
                assert_eq!(ms(&c, White, 2 * S), 10 * S);
                assert_eq!(c.delay_left_at(t(2 * S)).unwrap(), S);
            }
            let r = c.press(t(think)).unwrap();
            assert_eq!(r.after_ms, expected, "{text} after {think} ms");
            assert!(r.after_ms <= 10 * S, "never above the start-of-move value");
            match kind {
                BonusKind::Bronstein => assert_eq!(r.delay_refund_ms, think.min(3 * S)),
                _ => assert_eq!(r.delay_absorbed_ms, think.min(3 * S)),
            }
        }
    }
}

#[test]
fn delay_deadlines() {
    let mut simple = clock("300d3");
    simple.set_remaining(White, 10 * S, t(0)).unwrap();
    simple.start(White, t(100)).unwrap();
    assert_eq!(simple.flag_deadline(), Some(t(100 + 13 * S)));
    let mut bronstein = clock("300b3");
    bronstein.set_remaining(White, 10 * S, t(0)).unwrap();
    bronstein.start(White, t(100)).unwrap();
    assert_eq!(bronstein.flag_deadline(), Some(t(100 + 10 * S)));
    let r = bronstein.press(t(100 + 10 * S)).unwrap();
    assert_eq!(r.flag, Some(Flag { side: White, at: t(100 + 10 * S) }));
    assert_eq!(r.delay_refund_ms, 0, "a flagged press earns nothing");
    assert_eq!(r.after_ms, 0);
}

#[test]
fn as_45_forgotten_press_keeps_the_movers_clock_running() {
    let mut c = clock("5400+30");
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 29, S);
    c.set_remaining(White, 5 * M, t(now)).unwrap();
    // White makes 30.Rd1 but does not press: nothing reaches the clock.
    assert_eq!(c.running(), Some(White));
    assert_eq!(ms(&c, White, now + 4 * M), M);
    let deadline = c.flag_deadline().unwrap();
    assert_eq!(deadline, t(now + 5 * M));
    assert_eq!(c.flag_fallen_at(t(now + 5 * M - 1)).unwrap(), None);
    assert_eq!(c.flag_fallen_at(t(now + 5 * M)).unwrap(), Some(Flag { side: White, at: deadline }));
    // A press after the flag earns no increment and reports the flag.
    let r = c.press(t(now + 6 * M)).unwrap();
    assert_eq!(r.flag, Some(Flag { side: White, at: deadline }));
    assert_eq!(r.after_ms, 0);
    assert_eq!(r.increment_ms, 0);
    assert_eq!(c.flag(White), Some(deadline));
}

#[test]
fn as_81_clock_runs_during_a_disconnection() {
    let mut c = clock("180");
    c.set_remaining(White, 2 * M, t(0)).unwrap();
    c.start(White, t(0)).unwrap();
    assert_eq!(ms(&c, White, 90 * S), 30 * S);
    assert_eq!(c.flag_fallen_at(t(2 * M)).unwrap().map(|f| f.side), Some(White));
}

#[test]
fn as_72_increment_request_sets_five_seconds_for_both() {
    let tc = pgn("5400");
    assert!(!tc.has_increment_or_delay());
    assert!(tc.has_quickplay_finish());
    let mut c = Clock::new(tc, ClockConfig::default());
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 30, S);
    now += S;
    c.press(t(now)).unwrap();
    // Black has the move with 1:45.
    c.set_remaining(Black, 105 * S, t(now)).unwrap();
    now += 10 * S;
    c.pause(t(now)).unwrap();
    let new = c.control().with_bonus_everywhere(Bonus::increment(5 * S));
    assert!(new.has_increment_or_delay());
    assert!(!new.has_quickplay_finish());
    c.set_control(new, t(now)).unwrap();
    let w_before = ms(&c, White, now);
    c.adjust(White, 2 * M, t(now)).unwrap();
    assert_eq!(ms(&c, White, now), w_before + 2 * M);
    c.resume(t(now)).unwrap();
    now += 5 * S;
    let r = c.press(t(now)).unwrap();
    assert_eq!(r.side, Black);
    assert_eq!(r.increment_ms, 5 * S);
    assert_eq!(r.after_ms, 105 * S - 15 * S + 5 * S);
    now += 2 * S;
    let r = c.press(t(now)).unwrap();
    assert_eq!(r.side, White);
    assert_eq!(r.increment_ms, 5 * S);
    assert_eq!(r.after_ms, w_before + 2 * M - 2 * S + 5 * S);
}

#[test]
fn as_43_wrong_setting_corrected() {
    let mut c = clock("5400+3");
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 20, S);
    c.pause(t(now)).unwrap();
    let before = [ms(&c, White, now), ms(&c, Black, now)];
    c.set_control(pgn("5400+30"), t(now)).unwrap();
    for side in [White, Black] {
        let changes = c.adjust(side, 20 * 27 * S, t(now)).unwrap();
        assert_eq!(
            changes,
            vec![ClockChange { side, kind: ChangeKind::Adjustment, delta_ms: 540 * S, at: t(now) }]
        );
    }
    assert_eq!(ms(&c, White, now), before[0] + 9 * M);
    c.resume(t(now)).unwrap();
    let r = c.press(t(now + S)).unwrap();
    assert_eq!(r.increment_ms, 30 * S);
}

#[test]
fn as_15_retracting_an_illegal_press_keeps_the_time_used() {
    let mut c = clock("5400+30");
    let mut now = 0;
    c.start(White, t(now)).unwrap();
    play(&mut c, &mut now, 27, S);
    now += S;
    c.press(t(now)).unwrap();
    // Black to move: W 35:00, B 41:40 at the start of Black's turn.
    c.set_remaining(White, 35 * M, t(now)).unwrap();
    c.set_remaining(Black, 41 * M + 40 * S, t(now)).unwrap();
    let moves_before = c.moves_completed(Black);
    now += 30 * S;
    let r = c.press(t(now)).unwrap();
    assert_eq!(r.before_bonus_ms, 41 * M + 10 * S);
    assert_eq!(r.after_ms, 41 * M + 40 * S);
    // The service pauses at once, reinstates, and penalises.
    c.pause(t(now)).unwrap();
    let rr = c.retract_last_press(t(now)).unwrap();
    assert_eq!(rr.side, Black);
    assert_eq!(rr.revoked_ms, 30 * S);
    assert_eq!(rr.opponent_refund_ms, 0);
    c.adjust(White, 2 * M, t(now)).unwrap();
    assert_eq!(ms(&c, Black, now), 41 * M + 10 * S);
    assert_eq!(ms(&c, White, now), 37 * M);
    assert_eq!(c.moves_completed(Black), moves_before);
    assert_eq!(c.turn(), Black);
    assert!(c.is_paused());
    c.resume(t(now + 20 * S)).unwrap();
    assert_eq!(c.running(), Some(Black));
    assert_eq!(ms(&c, Black, now + 25 * S), 41 * M + 5 * S);
    // Only one retraction per press.
    assert_eq!(c.retract_last_press(t(now + 25 * S)), Err(ClockError::NothingToRetract));
}

#[test]
fn retract_removes_period_time_and_refunds_the_opponent() {
    let mut c = clock("2/600b5:300b5");
    c.start(White, t(0)).unwrap();
    c.press(t(S)).unwrap(); // W1
    c.press(t(2 * S)).unwrap(); // B1
    let r = c.press(t(4 * S)).unwrap(); // W2 ends the period.
    assert_eq!(r.delay_refund_ms, 2 * S);
    assert_eq!(r.period_bonus_ms, 5 * M);
    assert_eq!(r.after_ms, 10 * M + 5 * M);
    // Black's clock ran 3 s (settled by a pause) before the retraction.
    let b_before = ms(&c, Black, 4 * S);
    c.pause(t(7 * S)).unwrap();
    assert_eq!(ms(&c, Black, 7 * S), b_before - 3 * S);
    let rr = c.retract_last_press(t(7 * S)).unwrap();
    assert_eq!(rr.revoked_ms, 5 * M + 2 * S);
    assert_eq!(rr.opponent_refund_ms, 3 * S);
    assert_eq!(ms(&c, Black, 7 * S), b_before);
    assert_eq!(ms(&c, White, 7 * S), 10 * M - 2 * S);
    assert_eq!(c.moves_completed(White), 1);
    assert_eq!(c.period_index(White), 0);
    // The continued move keeps the Bronstein allowance already used: 2 s
    // used before, 1 s now, 3 s back at most.
    c.resume(t(7 * S)).unwrap();
    let r = c.press(t(8 * S)).unwrap();
    assert_eq!(r.move_number, 2);
    assert_eq!(r.used_ms, 3 * S);
    assert_eq!(r.delay_refund_ms, 3 * S);
    assert_eq!(r.period_bonus_ms, 5 * M);
}

#[test]
fn retract_is_refused_without_a_press() {
    let mut c = clock("300+2");
    assert_eq!(c.retract_last_press(t(0)), Err(ClockError::NothingToRetract));
    c.start(White, t(0)).unwrap();
    assert_eq!(c.retract_last_press(t(1)), Err(ClockError::NothingToRetract));
    c.press(t(2)).unwrap();
    c.set_moves_completed(White, 5, t(3)).unwrap();
    assert_eq!(c.retract_last_press(t(4)), Err(ClockError::NothingToRetract));
}

#[test]
fn as_76_armageddon_times_and_increment_from_move_61() {
    let white = vec![Period::rest_of_game(5 * M).with_bonus(Bonus::increment(2 * S).from_move(61))];
    let black = vec![Period::rest_of_game(4 * M).with_bonus(Bonus::increment(2 * S).from_move(61))];
    let tc = TimeControl::per_colour(white, black).unwrap();
    assert!(!tc.is_symmetric());
    assert_eq!(tc.to_pgn(), "300+2@61|240+2@61");
    assert_eq!(tc.to_human(), "White 5m+2s@61; Black 4m+2s@61");
    assert_eq!(TimeControl::from_pgn("300+2@61|240+2@61").unwrap(), tc);
    assert_eq!(TimeControl::parse_human("White 5m+2s@61; Black 4m+2s@61").unwrap(), tc);
    assert_eq!(TimeControl::parse_human("white: 5+2@61 ; black: 4+2@61").unwrap(), tc);
    assert_eq!(tc.category(), Category::Blitz);
    let mut c = Clock::new(tc, ClockConfig::default());
    c.start(White, t(0)).unwrap();
    assert_eq!(ms(&c, White, 0), 5 * M, "no increment at the start");
    assert_eq!(ms(&c, Black, 0), 4 * M);
    let mut now = 0;
    for n in 1..=62u32 {
        for side in [White, Black] {
            now += 100;
            let r = c.press(t(now)).unwrap();
            assert_eq!(r.side, side);
            // The increment for move 61 arrives when move 60 is completed.
            let expected = if n >= 60 { 2 * S } else { 0 };
            assert_eq!(r.increment_ms, expected, "move {n}");
        }
    }
    assert_eq!(ms(&c, White, now), 5 * M - 62 * 100 + 3 * 2 * S);
    assert_eq!(ms(&c, Black, now), 4 * M - 62 * 100 + 3 * 2 * S);
}

// ---------------------------------------------------------------------------
// Deadlines, pauses, time order, lag
// ---------------------------------------------------------------------------

#[test]
fn flag_deadline_is_exact_to_the_millisecond() {
    let mut c = clock("180+2");
    c.start(White, t(1_234)).unwrap();
    assert_eq!(c.flag_deadline(), Some(t(1_234 + 182_000)));
    let r = c.press(t(1_234 + 181_999)).unwrap();
    assert_eq!(r.flag, None);
    assert_eq!(r.before_bonus_ms, 1);
    assert_eq!(r.after_ms, 2_001);
    let b_deadline = c.flag_deadline().unwrap();
    assert_eq!(b_deadline, t(1_234 + 181_999 + 182_000));
    c.press(t(b_deadline.0 - 1)).unwrap();
    // White now has 2.001 s: pressing exactly at the deadline is too late.
    let deadline = c.flag_deadline().unwrap();
    assert_eq!(ms(&c, White, deadline.0 - 1), 1);
    assert_eq!(ms(&c, White, deadline.0), 0);
    let r = c.press(deadline).unwrap();
    assert_eq!(r.flag, Some(Flag { side: White, at: deadline }));
    assert_eq!(r.after_ms, 0);
    // A flagged side's clock can run again without further charges or a
    // second deadline.
    c.press(t(deadline.0 + 10)).unwrap();
    assert_eq!(c.running(), Some(White));
    assert_eq!(c.flag_deadline(), None);
    assert_eq!(c.flag_fallen_at(t(deadline.0 + 20)).unwrap(), Some(Flag { side: White, at: deadline }));
}

#[test]
fn pause_and_resume() {
    let mut c = clock("600+5");
    c.start(White, t(0)).unwrap();
    assert_eq!(c.resume(t(0)), Err(ClockError::NotPaused));
    c.pause(t(10 * S)).unwrap();
    assert!(c.is_paused());
    assert_eq!(c.running(), None);
    assert_eq!(c.flag_deadline(), None);
    assert_eq!(c.press(t(11 * S)).unwrap_err(), ClockError::Paused);
    assert_eq!(c.pause(t(11 * S)).unwrap_err(), ClockError::NotRunning);
    // No time runs while paused.
    assert_eq!(ms(&c, White, 10 * M), 10 * M + 5 * S - 10 * S);
    c.resume(t(10 * M)).unwrap();
    assert_eq!(c.flag_deadline(), Some(t(10 * M + 10 * M - 5 * S)));
    let r = c.press(t(10 * M + 2 * S)).unwrap();
    assert_eq!(r.elapsed_ms, 12 * S, "pauses are not part of the move's time");
    assert_eq!(r.used_ms, 12 * S);
    assert_eq!(r.after_ms, 10 * M + 10 * S - 12 * S);
}

#[test]
fn operations_before_the_start() {
    let mut c = clock("600+5");
    assert_eq!(c.press(t(0)).unwrap_err(), ClockError::NotStarted);
    assert_eq!(c.pause(t(0)).unwrap_err(), ClockError::NotRunning);
    assert_eq!(c.resume(t(0)).unwrap_err(), ClockError::NotPaused);
    assert_eq!(c.flag_deadline(), None);
    c.start(White, t(0)).unwrap();
    assert_eq!(c.start(White, t(1)).unwrap_err(), ClockError::AlreadyStarted);
}

#[test]
fn timestamps_going_backwards_are_rejected_without_change() {
    let mut c = clock("300+2");
    c.start(White, t(5_000)).unwrap();
    c.press(t(6_000)).unwrap();
    let snapshot = c.clone();
    let err = ClockError::TimeWentBackwards { last: t(6_000), at: t(5_999) };
    let back = t(5_999);
    assert_eq!(c.press(back).unwrap_err(), err);
    assert_eq!(c.pause(back).unwrap_err(), err);
    assert_eq!(c.adjust(White, 1, back).unwrap_err(), err);
    assert_eq!(c.set_remaining(White, 1, back).unwrap_err(), err);
    assert_eq!(c.set_moves_completed(White, 1, back).unwrap_err(), err);
    assert_eq!(c.set_control(pgn("60"), back).unwrap_err(), err);
    assert_eq!(c.retract_last_press(back).unwrap_err(), err);
    assert_eq!(c.remaining_at(White, back).unwrap_err(), err);
    assert_eq!(c.flag_fallen_at(back).unwrap_err(), err);
    assert_eq!(c.press(t(-1)).unwrap_err(), ClockError::TimestampOutOfRange { at: t(-1) });
    assert_eq!(
        c.press(t(MAX_TIMESTAMP + 1)).unwrap_err(),
        ClockError::TimestampOutOfRange { at: t(MAX_TIMESTAMP + 1) }
    );
    c.pause(t(7_000)).unwrap();
    assert_eq!(
        c.resume(t(6_999)).unwrap_err(),
        ClockError::TimeWentBackwards { last: t(7_000), at: t(6_999) }
    );
    c.resume(t(7_000)).unwrap();
    assert_ne!(c, snapshot);
    // Equal timestamps are fine.
    c.press(t(7_000)).unwrap();
}

#[test]
fn huge_values_give_errors() {
    let mut c = clock("300+2");
    c.start(White, t(0)).unwrap();
    assert!(matches!(c.adjust(White, i64::MAX, t(0)), Err(ClockError::TimeOutOfRange { side: White, .. })));
    assert!(matches!(c.adjust(White, i64::MIN, t(0)), Err(ClockError::TimeOutOfRange { .. })));
    assert!(matches!(c.adjust(Black, -(5 * M + 3 * S), t(0)), Err(ClockError::TimeOutOfRange { .. })));
    assert!(matches!(c.set_remaining(White, -1, t(0)), Err(ClockError::TimeOutOfRange { .. })));
    c.set_remaining(White, arbiter_laws::clock::MAX_CLOCK_MS, t(0)).unwrap();
    assert!(matches!(c.press(t(0)), Err(ClockError::TimeOutOfRange { side: White, .. })));
    // The refused press changed nothing.
    assert_eq!(c.running(), Some(White));
    assert_eq!(c.moves_completed(White), 0);
    // A late press far in the future is just a flag.
    c.set_remaining(White, 1, t(0)).unwrap();
    let r = c.press(t(MAX_TIMESTAMP)).unwrap();
    assert_eq!(r.flag, Some(Flag { side: White, at: t(1) }));
}

#[test]
fn lag_compensation_is_bounded_and_never_moves_the_flag() {
    let mut c = Clock::new(pgn("60"), ClockConfig { max_lag_compensation_ms: 500 });
    c.start(White, t(0)).unwrap();
    let r = c.press_with_lag(t(10 * S), 2_000).unwrap();
    assert_eq!(r.lag_compensated_ms, 500);
    assert_eq!(r.after_ms, 60 * S - 9_500);
    let r = c.press_with_lag(t(10 * S + 300), 2_000).unwrap();
    assert_eq!(r.lag_compensated_ms, 300, "at most the time of the move");
    assert_eq!(r.after_ms, 60 * S);
    let r = c.press_with_lag(t(11 * S), -50).unwrap();
    assert_eq!(r.lag_compensated_ms, 0);
    // White has 49.8 s left (50.5 − 0.7); his deadline does not move with lag.
    c.press(t(12 * S)).unwrap();
    let deadline = c.flag_deadline().unwrap();
    assert_eq!(deadline, t(12 * S + 49_800));
    let r = c.press_with_lag(deadline, 500).unwrap();
    assert_eq!(r.flag, Some(Flag { side: White, at: deadline }));
    assert_eq!(r.lag_compensated_ms, 0);
    // Without a configured maximum nothing is compensated; the maximum is
    // clamped.
    let mut otb = clock("60");
    otb.start(White, t(0)).unwrap();
    assert_eq!(otb.press_with_lag(t(S), 800).unwrap().lag_compensated_ms, 0);
    let c = Clock::new(pgn("60"), ClockConfig { max_lag_compensation_ms: i64::MAX });
    assert_eq!(c.config().max_lag_compensation_ms, arbiter_laws::clock::MAX_LAG_COMPENSATION_MS);
}

#[test]
fn adjusting_a_flagged_side_lets_the_game_go_on() {
    let mut c = clock("10");
    c.start(White, t(0)).unwrap();
    c.pause(t(20 * S)).unwrap();
    assert_eq!(c.flag(White), Some(t(10 * S)));
    // Setting zero keeps the flag; any positive time clears it.
    c.set_remaining(White, 0, t(20 * S)).unwrap();
    assert_eq!(c.flag(White), Some(t(10 * S)));
    c.adjust(White, 1, t(20 * S)).unwrap();
    assert_eq!(c.flag(White), None);
    c.resume(t(20 * S)).unwrap();
    assert_eq!(c.flag_deadline(), Some(t(20 * S + 1)));
}

// ---------------------------------------------------------------------------
// Time controls: category and text forms
// ---------------------------------------------------------------------------

#[test]
fn cfg_cat_examples() {
    for (text, minutes, category) in [
        ("30+30", 60, Category::Standard),
        ("10+5", 15, Category::Rapid),
        ("5+5", 10, Category::Blitz),
        ("6+5", 11, Category::Rapid),
        ("7+3", 10, Category::Blitz),
        ("40+20", 60, Category::Standard),
        ("3+2", 5, Category::Blitz),
        ("15+10", 25, Category::Rapid),
        ("90+30", 120, Category::Standard),
        ("59", 59, Category::Rapid),
        ("60", 60, Category::Standard),
        ("10", 10, Category::Blitz),
        // A delay counts like an increment.
        ("5m d5s", 10, Category::Blitz),
        ("6m b5s", 11, Category::Rapid),
        // DEC-1: 90 + 30 + 60 × 0.5.
        ("40/90m+30s, 30m+30s", 150, Category::Standard),
        // A period that begins after move 60 is not reached.
        ("60/5m, 60m", 5, Category::Blitz),
        ("59/5m, 60m", 65, Category::Standard),
        // A repeated last period: periods begin after moves 20 and 40.
        ("20/3m", 9, Category::Blitz),
        // Armageddon: +2 s from move 61 adds nothing to the first 60 moves.
        ("5m+2s@61", 5, Category::Blitz),
        ("5m+2s@31", 6, Category::Blitz),
    ] {
        let tc = TimeControl::parse_human(text).unwrap();
        assert_eq!(tc.first_60_moves_ms(White), minutes * M, "{text}");
        assert_eq!(tc.category(), category, "{text}");
    }
    // With different times per colour the larger one decides.
    let tc = TimeControl::parse_human("White 11m; Black 9m").unwrap();
    assert_eq!(tc.category(), Category::Rapid);
    assert_eq!(Category::from_first_60_moves_ms(10 * M + 1), Category::Rapid);
    assert_eq!(Category::from_first_60_moves_ms(60 * M - 1), Category::Rapid);
}

#[test]
fn pgn_canonical_strings_round_trip() {
    for text in [
        "40/5400+30:1800+30",
        "300+2",
        "5400",
        "40/9000:3600+30",
        "40/7200",
        "40/7200:20/3600:1800+30",
        "300d3",
        "300b3",
        "300+2@61|240+2@61",
        "180+0",
        "0+1",
        "2.5+0.1",
        "60|30",
        "40/5400d30@2:1800b5",
    ] {
        let tc = TimeControl::from_pgn(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tc.to_pgn(), text);
        assert_eq!(TimeControl::parse_human(&tc.to_human()).unwrap(), tc, "{text}");
        assert_eq!(TimeControlTag::parse(text).unwrap(), TimeControlTag::Control(tc.clone()));
        assert_eq!(TimeControlTag::Control(tc).to_string(), text);
    }
    for (text, tag) in [
        ("?", TimeControlTag::Unknown),
        ("-", TimeControlTag::Unlimited),
        ("*180", TimeControlTag::Sandclock { ms: 180 * S }),
        ("*0.5", TimeControlTag::Sandclock { ms: 500 }),
    ] {
        assert_eq!(TimeControlTag::parse(text).unwrap(), tag);
        assert_eq!(tag.to_string(), text);
    }
    let tc = TimeControl::from_pgn("40/5400+30:1800+30").unwrap();
    let p = tc.periods(White);
    assert_eq!(p[0], Period::moves(40, 90 * M).with_bonus(Bonus::increment(30 * S)));
    assert_eq!(p[1], Period::rest_of_game(30 * M).with_bonus(Bonus::increment(30 * S)));
    assert_eq!(tc.final_period(Black), &p[1]);
    // Non-canonical spellings parse to the canonical value.
    assert_eq!(TimeControl::from_pgn("300+2@1").unwrap().to_pgn(), "300+2");
    assert_eq!(TimeControl::from_pgn("60.000|60").unwrap().to_pgn(), "60");
}

#[test]
fn human_forms() {
    for (text, canonical, pgn_form) in [
        ("90+30", "90m+30s", "5400+30"),
        ("3+2", "3m+2s", "180+2"),
        ("40/90m+30s, 30m+30s", "40/90m+30s, 30m+30s", "40/5400+30:1800+30"),
        ("90m+30s", "90m+30s", "5400+30"),
        ("5m d3s", "5m d3s", "300d3"),
        ("5m b3s", "5m b3s", "300b3"),
        ("90'+30\"", "90m+30s", "5400+30"),
        ("1h + 30s", "60m+30s", "3600+30"),
        ("2min", "2m", "120"),
        ("0.5+0", "30s+0s", "30+0"),
        ("0.25m+500ms", "15s+500ms", "15+0.5"),
        ("1500ms+1s", "1500ms+1s", "1.5+1"),
        ("  40 / 90 , 30 + 30 ", "40/90m, 30m+30s", "40/5400:1800+30"),
        ("White 5m+2s @ 61; Black 4m+2s@61", "White 5m+2s@61; Black 4m+2s@61", "300+2@61|240+2@61"),
        ("5 d3", "5m d3s", "300d3"),
    ] {
        let tc = TimeControl::parse_human(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tc.to_human(), canonical, "{text}");
        assert_eq!(tc.to_string(), canonical);
        assert_eq!(tc.to_pgn(), pgn_form, "{text}");
        assert_eq!(TimeControl::parse_human(canonical).unwrap(), tc, "{canonical}");
    }
}

#[test]
fn every_parse_error() {
    use TimeControlError as E;
    let pgn_cases: Vec<(&str, E)> = vec![
        ("", E::Empty),
        ("/300", E::ExpectedNumber { at: 0 }),
        ("300+", E::ExpectedNumber { at: 4 }),
        ("40/", E::ExpectedNumber { at: 3 }),
        ("300:", E::ExpectedNumber { at: 4 }),
        ("300.1234", E::BadNumber { at: 0 }),
        ("300.", E::BadNumber { at: 0 }),
        ("1234567890123456789", E::BadNumber { at: 0 }),
        ("40.5/300", E::BadNumber { at: 0 }),
        ("4294967296/300", E::BadNumber { at: 0 }),
        ("300+2@99999999999", E::BadNumber { at: 6 }),
        ("300x", E::TrailingGarbage { at: 3, found: 'x' }),
        ("300+2 ", E::TrailingGarbage { at: 5, found: ' ' }),
        (" 300", E::ExpectedNumber { at: 0 }),
        ("300|240x", E::TrailingGarbage { at: 7, found: 'x' }),
        ("0", E::ZeroLengthPeriod { period: 0 }),
        ("0+0", E::ZeroLengthPeriod { period: 0 }),
        ("*0", E::ZeroLengthPeriod { period: 0 }),
        ("0/300", E::ZeroMoves { period: 0 }),
        ("1001/300", E::TooManyMoves { period: 0, moves: 1001 }),
        ("360001", E::BaseTooLarge { period: 0, ms: 360_001_000 }),
        ("*360001", E::BaseTooLarge { period: 0, ms: 360_001_000 }),
        ("300+601", E::IncrementTooLarge { period: 0, ms: 601_000 }),
        ("40/300:300d700", E::IncrementTooLarge { period: 1, ms: 700_000 }),
        ("300+2@0", E::BadFromMove { period: 0, from_move: 0 }),
        ("300+2@10001", E::BadFromMove { period: 0, from_move: 10_001 }),
        ("300:40/300", E::RestOfGameNotLast { period: 0 }),
        ("300|300|300", E::TooManyColours),
        ("300|", E::Empty),
    ];
    for (text, err) in pgn_cases {
        assert_eq!(TimeControlTag::parse(text), Err(err.clone()), "{text:?}");
    }
    let many = vec!["1/60"; 17].join(":");
    assert_eq!(TimeControl::from_pgn(&many), Err(E::TooManyPeriods));
    for tag in ["?", "-", "*180"] {
        assert_eq!(TimeControl::from_pgn(tag), Err(E::NotPlayable { tag: tag.to_owned() }));
    }
    let human_cases: Vec<(&str, E)> = vec![
        ("", E::Empty),
        ("   ", E::Empty),
        ("90+", E::ExpectedNumber { at: 3 }),
        ("90m+30s, ", E::ExpectedNumber { at: 9 }),
        ("90+30 zz", E::TrailingGarbage { at: 6, found: 'z' }),
        ("90 minuts", E::TrailingGarbage { at: 6, found: 'u' }),
        ("0.1234567m", E::BadNumber { at: 0 }),
        ("0.0001s", E::BadNumber { at: 0 }),
        ("0m", E::ZeroLengthPeriod { period: 0 }),
        ("0/90", E::ZeroMoves { period: 0 }),
        ("90+601s", E::IncrementTooLarge { period: 0, ms: 601 * S }),
        ("101h", E::BaseTooLarge { period: 0, ms: 101 * 60 * M }),
        ("90, 40/30", E::RestOfGameNotLast { period: 0 }),
        ("5m | 4m | 3m", E::BonusUnit { at: 6 }),
        ("5m+2s@0", E::BadFromMove { period: 0, from_move: 0 }),
    ];
    for (text, err) in human_cases {
        assert_eq!(TimeControl::parse_human(text), Err(err.clone()), "{text:?}");
    }
    // Programmatic construction is validated the same way.
    assert_eq!(TimeControl::new(vec![]), Err(E::Empty));
    assert_eq!(TimeControl::new(vec![Period::rest_of_game(-1)]), Err(E::NegativeTime { period: 0 }));
    assert_eq!(
        TimeControl::new(vec![Period::rest_of_game(60 * S).with_bonus(Bonus::bronstein(-1))]),
        Err(E::NegativeTime { period: 0 })
    );
    assert_eq!(TimeControl::simple(0, 0), Err(E::ZeroLengthPeriod { period: 0 }));
    // Every error has a message.
    assert!(!E::TooManyPeriods.to_string().is_empty());
}

#[test]
fn installing_a_bonus_everywhere() {
    let tc = pgn("40/5400:1800|40/4800:1800");
    let five = tc.with_bonus_everywhere(Bonus::increment(5 * S));
    assert_eq!(five.to_pgn(), "40/5400+5:1800+5|40/4800+5:1800+5");
    assert_eq!(tc.try_with_bonus_everywhere(Bonus::increment(5 * S)), Ok(five));
    // Out-of-range bonuses are clamped, or refused by the checked variant.
    assert_eq!(tc.with_bonus_everywhere(Bonus::increment(-3)).to_pgn(), "40/5400+0:1800+0|40/4800+0:1800+0");
    assert_eq!(
        tc.with_bonus_everywhere(Bonus::simple_delay(i64::MAX).from_move(0)).to_pgn(),
        "40/5400d600:1800d600|40/4800d600:1800d600"
    );
    assert_eq!(
        tc.try_with_bonus_everywhere(Bonus::increment(-3)),
        Err(TimeControlError::NegativeTime { period: 0 })
    );
    // A period without base time keeps the bonus that gives it its time.
    let bullet = pgn("0+1");
    assert_eq!(bullet.with_bonus_everywhere(Bonus::increment(0)), bullet);
    assert_eq!(
        bullet.try_with_bonus_everywhere(Bonus::increment(0)),
        Err(TimeControlError::ZeroLengthPeriod { period: 0 })
    );
}

#[test]
fn symmetric_controls_compare_equal_however_built() {
    let p = vec![Period::rest_of_game(5 * M).with_bonus(Bonus::simple_delay(2 * S))];
    let a = TimeControl::new(p.clone()).unwrap();
    let b = TimeControl::per_colour(p.clone(), p).unwrap();
    assert_eq!(a, b);
    assert!(b.is_symmetric());
    assert_eq!(b.to_pgn(), "300d2");
}

// ---------------------------------------------------------------------------
// Property test: time conservation
// ---------------------------------------------------------------------------

const CONTROLS: [&str; 8] = [
    "180+2",
    "40/5400+30:1800+30",
    "2/5:3+1",
    "60d3",
    "2/30b5:20b2",
    "300+2@61|240+2@61",
    "10",
    "3/20+1:7/10d1:15b2",
];

fn may_increase(kind: ChangeKind) -> bool {
    !matches!(kind, ChangeKind::Elapsed | ChangeKind::BonusRevoked)
}

fn may_decrease(kind: ChangeKind) -> bool {
    matches!(kind, ChangeKind::Elapsed | ChangeKind::BonusRevoked | ChangeKind::Adjustment | ChangeKind::Set)
}

#[test]
fn time_is_conserved_under_random_operations() {
    for seed in 1..=200u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let control = pgn(CONTROLS[rng.below(CONTROLS.len())]);
        let lag_max = [0, 0, 300][rng.below(3)];
        let mut c = Clock::new(control, ClockConfig { max_lag_compensation_ms: lag_max });
        let initial = [c.settled_ms(White), c.settled_ms(Black)];
        let mut ledger = [0i64; 2];
        let mut charged = [0i64; 2];
        let mut wall = [0i64; 2];
        let mut now: i64 = rng.range(0, 10_000);
        for ch in c.start(White, t(now)).unwrap() {
            assert_eq!(ch.kind, ChangeKind::Increment);
            ledger[ch.side.index()] += ch.delta_ms;
        }
        assert_eq!(c.clone().start(White, t(now)), Err(ClockError::AlreadyStarted));
        for step in 0..300 {
            let before = c.clone();
            let dt = match rng.below(10) {
                0 => 0,
                1..=6 => rng.range(1, 3_000),
                7 | 8 => rng.range(1, 40_000),
                _ => rng.range(-5, 5),
            };
            let at = t(now + dt);
            let running = c.running();
            let op = rng.below(100);
            let result: Result<Vec<ClockChange>, ClockError> = match op {
                0..=54 => c.press_with_lag(at, rng.range(-100, 1_000)).map(|r| {
                    assert_eq!(r.after_ms, r.before_bonus_ms + r.credited_ms());
                    assert!(r.used_ms >= 0 && r.delay_absorbed_ms >= 0 && r.lag_compensated_ms <= lag_max);
                    if r.flag.is_some() {
                        assert_eq!(r.credited_ms(), 0);
                    }
                    r.changes
                }),
                55..=64 => c.pause(at),
                65..=74 => c.resume(at).map(|()| Vec::new()),
                75..=82 => {
                    let side = if rng.below(2) == 0 { White } else { Black };
                    c.adjust(side, rng.range(-60_000, 60_000), at)
                }
                83..=86 => {
                    let side = if rng.below(2) == 0 { White } else { Black };
                    c.set_remaining(side, rng.range(0, 120_000), at)
                }
                87..=94 => c.retract_last_press(at).map(|r| {
                    assert!(r.revoked_ms >= 0 && r.opponent_refund_ms >= 0);
                    r.changes
                }),
                95..=97 => {
                    let n = rng.below(80) as u32;
                    c.set_moves_completed(White, n, at).map(|()| Vec::new())
                }
                _ => {
                    let tc = pgn(CONTROLS[rng.below(CONTROLS.len())]);
                    c.set_control(tc, at).map(|()| Vec::new())
                }
            };
            let context = format!("seed {seed} step {step} op {op} at {at:?}");
            match result {
                Err(e) => {
                    assert_eq!(c, before, "a refused operation changed the clock ({context}): {e}");
                    if dt < 0 {
                        assert!(matches!(e, ClockError::TimeWentBackwards { .. }), "{context}");
                    }
                }
                Ok(changes) => {
                    assert!(dt >= 0, "time went backwards but was accepted ({context})");
                    if let Some(side) = running {
                        wall[side.index()] += dt;
                    }
                    now = at.0;
                    let mut per_side = [0i64; 2];
                    for ch in &changes {
                        assert_ne!(ch.delta_ms, 0, "{context}");
                        assert_eq!(ch.at, at, "{context}");
                        if ch.delta_ms > 0 {
                            assert!(may_increase(ch.kind), "{ch:?} increased time ({context})");
                        } else {
                            assert!(may_decrease(ch.kind), "{ch:?} decreased time ({context})");
                        }
                        per_side[ch.side.index()] += ch.delta_ms;
                        match ch.kind {
                            ChangeKind::Elapsed => charged[ch.side.index()] -= ch.delta_ms,
                            ChangeKind::RetractRefund => charged[ch.side.index()] -= ch.delta_ms,
                            _ => {}
                        }
                    }
                    for side in [White, Black] {
                        let i = side.index();
                        // Every change of settled time is explained by a change.
                        assert_eq!(
                            c.settled_ms(side) - before.settled_ms(side),
                            per_side[i],
                            "unexplained change for {side:?} ({context})"
                        );
                        ledger[i] += per_side[i];
                        assert_eq!(c.settled_ms(side), initial[i] + ledger[i], "{context}");
                        // Time charged never exceeds the time the clock ran.
                        assert!(
                            charged[i] <= wall[i],
                            "{side:?} charged {} > ran {} ({context})",
                            charged[i],
                            wall[i]
                        );
                        let shown = c.remaining_at(side, at).unwrap();
                        assert!(shown >= 0 && shown <= c.settled_ms(side), "{context}");
                    }
                }
            }
            // Readings agree with the deadline.
            if let Some(deadline) = c.flag_deadline() {
                let side = c.running().unwrap();
                assert_eq!(c.flag(side), None, "{context}");
                if deadline.0 > now {
                    let just_before = t(deadline.0 - 1);
                    assert!(
                        c.remaining_at(side, just_before).unwrap() > 0
                            || c.delay_left_at(just_before).unwrap() > 0,
                        "{context}"
                    );
                    assert!(
                        c.flag_fallen_at(just_before).unwrap().is_none_or(|f| f.side != side),
                        "{context}"
                    );
                }
                let probe = t(deadline.0.max(now));
                assert_eq!(c.remaining_at(side, probe).unwrap(), 0, "{context}");
                assert!(c.flag_fallen_at(probe).unwrap().is_some(), "{context}");
            }
        }
    }
}

/// With a Fischer control, no lag and no arbiter intervention, the time
/// charged equals the time the clock ran, exactly, until a flag falls.
#[test]
fn fischer_charges_exactly_the_running_time() {
    for seed in 1..=50u64 {
        let mut rng = Rng(seed | 1);
        let mut c = clock("40/5400+30:1800+30");
        let mut now = 0;
        c.start(White, t(0)).unwrap();
        let mut ran = [0i64; 2];
        let mut credited = [30 * S, 30 * S];
        for _ in 0..200 {
            let dt = rng.range(0, 200_000);
            let side = c.running().unwrap();
            ran[side.index()] += dt;
            now += dt;
            let r = c.press(t(now)).unwrap();
            if r.flag.is_some() {
                break;
            }
            credited[side.index()] += r.credited_ms();
            for s in [White, Black] {
                assert_eq!(c.settled_ms(s), 90 * M + credited[s.index()] - ran[s.index()]);
            }
        }
    }
}
