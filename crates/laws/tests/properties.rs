//! Properties of the state machine over random event sequences: no event
//! panics, a rejected event changes nothing, replaying the accepted events
//! gives the same game, and time is conserved (every change of a clock is
//! explained by elapsed time or by a ruling that names it).

use arbiter_chess::{Color, Move, Square};
use arbiter_laws::event::{Answer, ClaimKind, Event, MoveInput, PenaltyKind, SetupError, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::ruling::{Decision, Ruling};
use arbiter_laws::time_control::TimeControl;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

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
    let legal_input = (!legal.is_empty()).then(|| input(legal[rng.below(legal.len() as u64) as usize], &pos));
    let wild = MoveInput {
        from: random_square(rng),
        to: random_square(rng),
        promotion: None,
        castle: rng.chance(5),
    };
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
            kind: [TouchKind::Intent, TouchKind::Adjust, TouchKind::Accidental][rng.below(3) as usize],
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
        83 => Event::ReinstatePosition { ply: rng.below(g.record().ply_count() as u64 + 2) as usize },
        84 => Event::PlayerArrived { color },
        85 => Event::RequestIncrement { color },
        86 => Event::ClaimNoWinningAttempt { color },
        87 => Event::AnswerQuestion {
            id: rng.below(4) as u32,
            answer: [Answer::Default, Answer::Accept, Answer::Reject, Answer::Postpone]
                [rng.below(4) as usize],
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
                Square::new(back + [2, 6][rng.below(2) as usize])
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
            ][rng.below(3) as usize],
        },
        95 if rng.chance(30) => Event::Penalty {
            color,
            kind: if rng.chance(50) { PenaltyKind::RaiseOpponentScore } else { PenaltyKind::ReduceScore },
        },
        _ => Event::Tick,
    }
}

fn random_regs(rng: &mut Rng) -> Regulations {
    let tc = ["3+2", "5+0", "15+10", "90+30", "40/90m+30s, 30m+30s", "5m d3s", "90"][rng.below(7) as usize];
    let mut r = Regulations::new(TimeControl::parse_human(tc).unwrap());
    r.mode = [Mode::OverTheBoard, Mode::Online, Mode::Hybrid][rng.below(3) as usize];
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
    for game_no in 0..800 {
        let regs = random_regs(&mut rng);
        let mut g = Game::new(regs.clone()).unwrap();
        let mut log: Vec<(Event, i64)> = Vec::new();
        let mut t = 0i64;
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
            let e = random_event(&mut rng, &g);
            let before = g.clone();
            let remaining_before = Color::ALL.map(|c| before.remaining_ms(c, before_t));
            match g.apply(&e, t) {
                Ok(rulings) => {
                    accepted_total += 1;
                    log.push((e.clone(), t));
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
        let replayed = Game::replay(regs, log.iter())
            .unwrap_or_else(|(i, r)| panic!("game {game_no}: replay rejected event {i} {:?}: {r}", log[i].0));
        assert_eq!(replayed, g, "game {game_no}: replay differs from the live game");
    }
    assert!(accepted_total > 8_000, "the generator must exercise the machine ({accepted_total} accepted)");
}
