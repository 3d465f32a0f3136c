//! Properties of the state machine over random event sequences: no event
//! panics, a rejected event changes nothing, replaying the accepted events
//! gives the same game, and time is conserved (every change of a clock is
//! explained by elapsed time or by a ruling that names it).

mod common;
use common::Rng;

use arbiter_chess::{Color, Move, Square};
use arbiter_laws::event::{Answer, ClaimKind, Event, MoveInput, PenaltyKind, SetupError, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, Ruling};
use arbiter_laws::time_control::TimeControl;

fn input(m: Move, pos: &arbiter_chess::Position) -> MoveInput {
    MoveInput::from_uci(&pos.uci(m).to_string()).unwrap()
}

fn random_square(rng: &mut Rng) -> Square {
    Square::new(rng.below(64) as u32)
}

fn random_event(rng: &mut Rng, g: &Game) -> Event {
    let pos = *g.position();
    let turn = pos.turn();
    let color = if rng.chance(80) { turn } else { turn.other() };
    let online = g.regulations().mode.is_online();
    let legal = pos.legal_moves();
    let legal_input = (!legal.is_empty()).then(|| input(legal[rng.below(legal.len())], &pos));
    // Half the wild moves start from a piece of the mover, so that illegal
    // moves that can stand on the board (observe = false) are common.
    let own: Vec<Square> = pos.board().by_color(turn).iter().collect();
    let from = if rng.chance(50) { own[rng.below(own.len())] } else { random_square(rng) };
    let wild = MoveInput { from, to: random_square(rng), promotion: None, castle: rng.chance(5) };
    let mv = match legal_input {
        Some(m) if rng.chance(85) => m,
        _ => wild,
    };
    match rng.below(100) {
        0..=44 if online => Event::SubmitMove { color, mv, premove: rng.chance(10), lag_ms: 0 },
        0..=29 => Event::MakeMove { color, mv },
        30..=44 => Event::PressClock { color, other_hand: rng.chance(5) },
        45..=52 => Event::Touch {
            color,
            square: random_square(rng),
            kind: [TouchKind::Intent, TouchKind::Adjust, TouchKind::Accidental][rng.below(3)],
        },
        53..=55 => Event::AnnounceAdjust { color },
        56..=60 => Event::OfferDraw { color },
        61..=62 => Event::AcceptDraw { color },
        63..=65 => Event::DeclineDraw { color },
        66..=70 => Event::ClaimDraw {
            color,
            kind: if rng.chance(50) { ClaimKind::Threefold } else { ClaimKind::FiftyMoves },
            intended: rng.chance(50).then_some(mv),
        },
        71 => Event::Resign { color },
        72..=74 => Event::PauseClocks,
        75..=77 => Event::ResumeClocks,
        78..=79 => Event::AdjustClock { color, delta_ms: rng.below(120_000) as i64 - 60_000 },
        80 => Event::SetClock { color, remaining_ms: rng.below(600_000) as i64 },
        81 => Event::Penalty { color, kind: PenaltyKind::AddTimeToOpponent(30_000) },
        82 => Event::Penalty { color, kind: PenaltyKind::Warning },
        83 => Event::ReinstatePosition { ply: rng.below(g.record().ply_count() + 2) },
        84 => Event::PlayerArrived { color },
        85 => Event::RequestIncrement { color },
        86 => Event::ClaimNoWinningAttempt { color },
        87 => Event::AnswerQuestion {
            id: rng.below(4) as u32,
            answer: [Answer::Default, Answer::Accept, Answer::Reject, Answer::Postpone][rng.below(4)],
        },
        88 if online => Event::Disconnect { color },
        89 if online => Event::Reconnect { color },
        90 if rng.chance(10) => Event::DeviceFound { color },
        91 => Event::UsedTwoHands { color },
        92 => Event::CastlingKingReleased {
            color,
            to: if rng.chance(80) {
                // A castling square of the side.
                let back = if color == Color::White { 0 } else { 56 };
                Square::new(back + [2, 6][rng.below(2)])
            } else {
                random_square(rng)
            },
        },
        93 => Event::ServiceResumed { outage_ms: rng.below(200_000) as i64 - 1_000 },
        94 if rng.chance(10) => Event::SetupErrorFound {
            error: [
                SetupError::WrongInitialPosition,
                SetupError::BoardWronglyOriented,
                SetupError::ColoursReversed,
                SetupError::KingMisplaced { color },
                // Mostly a rook's castling square, sometimes any square
                // (refused as naming no castling rook).
                SetupError::RookMisplaced {
                    square: if rng.chance(80) {
                        Square::new([0, 7, 56, 63][rng.below(4)])
                    } else {
                        random_square(rng)
                    },
                },
            ][rng.below(5)],
        },
        95 if rng.chance(30) => Event::Penalty {
            color,
            kind: if rng.chance(50) { PenaltyKind::RaiseOpponentScore } else { PenaltyKind::ReduceScore },
        },
        // A.5.2: mostly by the player who does not have the move, who is
        // the one entitled to claim.
        96..=97 => Event::ClaimIllegalMove { color: color.other() },
        _ => Event::Tick,
    }
}

fn random_regs(rng: &mut Rng) -> Regulations {
    let tc = ["3+2", "5+0", "15+10", "90+30", "40/90m+30s, 30m+30s", "5m d3s", "90"][rng.below(7)];
    let mut r = Regulations::new(TimeControl::parse_human(tc).unwrap());
    r.mode = [Mode::OverTheBoard, Mode::Online, Mode::Hybrid][rng.below(3)];
    r.cn_draw_alternation = rng.chance(20);
    r.armageddon = rng.chance(10);
    if rng.chance(20) {
        r.default_time_ms = Some(rng.below(600_000) as i64);
    }
    if r.mode.is_online() && rng.chance(30) {
        r.reconnect_window_ms = Some(5_000 + rng.below(60_000) as i64);
    }
    if tc == "90" && r.mode == Mode::OverTheBoard && rng.chance(50) {
        r.guidelines_iii = true;
    }
    // Moves entered after the fact (A.5.2, A.5.4), over the board only.
    if r.mode == Mode::OverTheBoard && rng.chance(40) {
        r.observe = false;
    }
    r
}

/// Clock changes a ruling accounts for, per side.
fn explained(rulings: &[Ruling], color: Color) -> (i64, bool) {
    let mut credit = 0;
    let mut anything_goes = false;
    for r in rulings {
        match &r.decision {
            Decision::MoveCompleted { color: c, bonus_ms, .. } if *c == color => credit += bonus_ms,
            Decision::ClockAdjusted { color: c, delta_ms, .. } if *c == color => credit += delta_ms,
            // A set, a retracted press (illegal move, Article 4) and a new
            // increment restore or replace time wholesale.
            Decision::ClockSet { color: c, .. } if *c == color => anything_goes = true,
            Decision::IllegalMove { .. }
            | Decision::Obligation { .. }
            | Decision::IncrementIntroduced { .. } => anything_goes = true,
            _ => {}
        }
    }
    (credit, anything_goes)
}

#[test]
fn random_event_sequences() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut accepted_total = 0;
    let (mut unobserved_games, mut stood_total, mut seen_total) = (0, 0, 0);
    for game_no in 0..800 {
        let regs = random_regs(&mut rng);
        let mut g = Game::new(regs.clone()).unwrap();
        let mut log: Vec<(Event, i64)> = Vec::new();
        let mut t = 0i64;
        let mut queued: Option<Event> = None;
        g.apply(&Event::Start, t).unwrap();
        log.push((Event::Start, t));
        for _ in 0..200 {
            let step = match rng.below(10) {
                0 => 0,
                1..=6 => rng.below(5_000) as i64,
                7..=8 => rng.below(60_000) as i64,
                _ => rng.below(400_000) as i64,
            };
            let before_t = t;
            t += step;
            let e = queued.take().unwrap_or_else(|| random_event(&mut rng, &g));
            let before = g.clone();
            let remaining_before = Color::ALL.map(|c| before.remaining_ms(c, before_t));
            match g.apply(&e, t) {
                Ok(rulings) => {
                    accepted_total += 1;
                    for r in &rulings {
                        match r.decision {
                            Decision::IllegalMoveStands { .. } => stood_total += 1,
                            Decision::IllegalPositionObserved { .. } => seen_total += 1,
                            _ => {}
                        }
                    }
                    log.push((e.clone(), t));
                    // Moves entered after the fact come made and completed:
                    // most moves are pressed next, so that illegal moves
                    // stand, are claimed, and leave illegal positions.
                    if let Event::MakeMove { color, .. } = e
                        && !regs.observe
                        && rng.chance(70)
                    {
                        queued = Some(Event::PressClock { color, other_hand: false });
                    }
                    for c in Color::ALL {
                        let (credit, anything) = explained(&rulings, c);
                        let after = g.remaining_ms(c, t);
                        if anything {
                            continue;
                        }
                        // Only elapsed time may take time away, at most the
                        // wall time that passed.
                        let delta = after - remaining_before[c.index()] - credit;
                        assert!(
                            delta <= 0 && -delta <= step,
                            "game {game_no}: {c}'s time changed by {delta} ms (credit {credit}) over {step} ms after {e:?}: {rulings:?}"
                        );
                    }
                }
                Err(_) => {
                    assert_eq!(g, before, "game {game_no}: rejected {e:?} changed the game");
                }
            }
            if g.is_over() && rng.chance(30) {
                break;
            }
        }
        assert_replays_and_round_trips(regs.clone(), &log, &g, game_no);
        unobserved_games += usize::from(!regs.observe);
    }
    assert!(accepted_total > 8_000, "the generator must exercise the machine ({accepted_total} accepted)");
    assert!(unobserved_games > 50, "observe = false must be exercised ({unobserved_games} games)");
    let _ = (stood_total, seen_total);
}

/// A move by `color` for games entered after the fact: legal, or a piece of
/// his moved anywhere (often an illegal move that can stand on the board).
fn scorer_move(rng: &mut Rng, g: &Game) -> MoveInput {
    let pos = *g.position();
    let legal = pos.legal_moves();
    if !legal.is_empty() && rng.chance(65) {
        return input(legal[rng.below(legal.len())], &pos);
    }
    let own: Vec<Square> = pos.board().by_color(pos.turn()).iter().collect();
    let from = own[rng.below(own.len())];
    let to = random_square(rng);
    let pawn_to_last = pos.board().pawns().contains(from)
        && matches!(to.rank(), arbiter_chess::Rank::First | arbiter_chess::Rank::Eighth);
    let promotion = (pawn_to_last && rng.chance(50)).then_some(arbiter_chess::Role::Queen);
    MoveInput { from, to, promotion, castle: false }
}

#[test]
fn unobserved_event_sequences() {
    // observe = false with moves mostly made and completed at once, some of
    // them illegal, claims now and then, and any other event: no panic, a
    // rejected event changes nothing, the replay and the serde form give
    // the same game, and the claim machinery and A.5.4 are exercised.
    let mut rng = Rng(0x0b5e_77e0_fa15_e002);
    let (mut stood, mut claimed, mut seen, mut drawn) = (0, 0, 0, 0);
    for game_no in 0..300 {
        let mut regs =
            Regulations::new(TimeControl::parse_human(["15+10", "3+2", "90+30"][rng.below(3)]).unwrap());
        regs.observe = false;
        let mut g = Game::new(regs.clone()).unwrap();
        let mut log: Vec<(Event, i64)> = vec![(Event::Start, 0)];
        g.apply(&Event::Start, 0).unwrap();
        let mut t = 0i64;
        let mut queued: Option<Event> = None;
        for _ in 0..150 {
            t += rng.below(3_000) as i64;
            let turn = g.position().turn();
            let e = match queued.take() {
                Some(e) => e,
                None => match rng.below(100) {
                    0..=59 => Event::MakeMove { color: turn, mv: scorer_move(&mut rng, &g) },
                    60..=69 => Event::ClaimIllegalMove { color: turn },
                    70..=71 => Event::ClaimIllegalMove { color: turn.other() },
                    _ => random_event(&mut rng, &g),
                },
            };
            let before = g.clone();
            match g.apply(&e, t) {
                Ok(rulings) => {
                    log.push((e.clone(), t));
                    for r in &rulings {
                        match &r.decision {
                            Decision::IllegalMoveStands { .. } => stood += 1,
                            Decision::IllegalMoveClaimed { .. } => claimed += 1,
                            Decision::IllegalPositionObserved { .. } => seen += 1,
                            Decision::GameOver(end) if end.rule == RuleId::FideA5_4 => drawn += 1,
                            _ => {}
                        }
                    }
                    if let Event::MakeMove { color, .. } = e
                        && rng.chance(90)
                    {
                        queued = Some(Event::PressClock { color, other_hand: false });
                    }
                }
                Err(_) => assert_eq!(g, before, "game {game_no}: rejected {e:?} changed the game"),
            }
            if g.is_over() {
                break;
            }
        }
        assert_replays_and_round_trips(regs, &log, &g, game_no);
    }
    assert!(
        stood > 100 && claimed > 50 && seen > 10 && drawn > 2,
        "observe = false must be exercised: {stood} illegal moves stood, {claimed} claimed, {seen} illegal \
         positions seen, {drawn} A.5.4 draws"
    );
}

/// Replaying `log` gives the live game `g`, and `g`'s stored state (irregular
/// boards included) reads back unchanged.
fn assert_replays_and_round_trips(regs: Regulations, log: &[(Event, i64)], g: &Game, game_no: usize) {
    let replayed = Game::replay(regs, log.iter())
        .unwrap_or_else(|(i, r)| panic!("game {game_no}: replay rejected event {i} {:?}: {r}", log[i].0));
    assert_eq!(&replayed, g, "game {game_no}: replay differs from the live game");
    let json = serde_json::to_string(g).unwrap();
    let back: Game = serde_json::from_str(&json).unwrap_or_else(|e| panic!("game {game_no}: {e}: {json}"));
    assert_eq!(&back, g, "game {game_no}: the state does not round-trip");
}
