//! Bytes decode into regulations and a sequence of timestamped events; the
//! state machine must never panic, a rejected event must leave the game
//! exactly as it was, and replaying the accepted events must give the live
//! game again.
//!
//! Input layout: the first 8 bytes choose the regulations (time control,
//! mode, start position and the options); then each event reads a time step
//! byte (with up to two more bytes for long steps), a kind byte and the
//! bytes its arguments need. Moves are chosen among the legal moves of the
//! position (one byte) or are arbitrary squares (two bytes).

#![no_main]

use arbiter_chess::{Color, Position, Role, Square};
use arbiter_laws::event::{
    Answer, ClaimKind, DeclaredResult, Event, MoveInput, PenaltyKind, SetupError, TouchKind,
};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations};
use arbiter_laws::ruling::Decision;
use arbiter_laws::time_control::TimeControl;
use libfuzzer_sys::fuzz_target;

/// At most this many events per input, so each run stays fast.
const MAX_EVENTS: usize = 300;

const CONTROLS: [&str; 10] =
    ["3+2", "5+0", "15+10", "90+30", "40/90m+30s, 30m+30s", "5m d3s", "90", "1+0", "25", "3m b2s"];

/// Positions where the rules have something to say: castling, promotion,
/// check, mates and stalemates at hand, counters near fifty and
/// seventy-five moves, material that cannot mate, blocked pawns.
const FENS: [&str; 14] = [
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
    "4k3/3q4/8/8/8/8/8/4RK2 b - - 0 28",
    "k7/8/1K6/8/8/8/8/2Q5 w - - 0 50",
    "8/8/8/4k3/8/8/4K3/4R3 w - - 99 80",
    "k7/8/1K6/8/8/8/8/2Q5 w - - 149 100",
    "8/8/8/4k3/8/2n5/8/4K3 w - - 0 60",
    "7K/5k2/8/4n3/8/8/8/R7 w - - 0 60",
    "8/8/4k3/8/2b3p1/8/8/3BK3 w - - 0 60",
    "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 60",
    "7k/5Q2/6PK/6q1/8/8/8/8 w - - 0 60",
    "4k3/8/8/8/8/8/3r4/4K3 w - - 0 50",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 40",
    "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
];

struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from(self.byte()) << 8 | u16::from(self.byte())
    }
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }
    fn square(&mut self) -> Square {
        Square::new(u32::from(self.byte() & 63))
    }
}

fn regulations(b: &mut Bytes<'_>) -> Option<Regulations> {
    let tc = TimeControl::parse_human(CONTROLS[usize::from(b.byte()) % CONTROLS.len()]).ok()?;
    let mut r = Regulations::new(tc);
    let flags = b.byte();
    r.mode = [Mode::OverTheBoard, Mode::OverTheBoard, Mode::Online, Mode::Hybrid][usize::from(flags & 3)];
    r.regime = if flags & 4 == 0 { Regime::Reduced } else { Regime::Full };
    r.cn_draw_alternation = flags & 8 != 0;
    r.armageddon = flags & 16 != 0;
    r.guidelines_iii = flags & 32 != 0;
    r.automatic_draws = match flags >> 6 {
        0 | 1 => None,
        2 => Some(false),
        _ => Some(true),
    };
    let start = b.byte();
    match start % 20 {
        n @ 0..=13 => r.start_fen = Some(FENS[usize::from(n)].to_owned()),
        14 | 15 => {
            r.chess960 = true;
            let pos = Position::chess960(u32::from(b.u16()) % 960)?;
            r.start_fen = Some(pos.fen());
        }
        16 => r.chess960 = true,
        _ => {}
    }
    let opts = b.byte();
    if opts & 1 != 0 {
        r.default_time_ms = Some(i64::from(b.u16()) * 10);
    }
    if opts & 2 != 0 {
        r.penalty_ms = Some(1_000 + i64::from(b.u16()) * 50);
    }
    r.draw_offers = match (opts >> 2) & 3 {
        0 | 1 => DrawOfferRestriction::None,
        2 => DrawOfferRestriction::BeforeMove(1 + u32::from(b.byte() % 40)),
        _ => DrawOfferRestriction::WithoutArbiter,
    };
    if opts & 16 != 0 {
        r.device_penalty = DevicePenalty::DeductTime(1_000 + i64::from(b.u16()) * 50);
    }
    if opts & 32 != 0 {
        r.max_lag_compensation_ms = i64::from(b.u16()) % 5_001;
    }
    if opts & 64 != 0 {
        r.reconnect_window_ms = Some(1_000 + i64::from(b.u16()) * 10);
    }
    // Moves entered after the fact (A.5.2, A.5.4); refused online, where
    // the fallback below keeps the input.
    r.observe = opts & 128 == 0;
    if r.mode.is_online() {
        r.observe = true;
    }
    // Combinations the Laws forbid are refused by `Game::new`; fall back to
    // the same settings without Guidelines III rather than losing the input.
    if r.validate().is_err() {
        r.guidelines_iii = false;
    }
    r.validate().ok()?;
    Some(r)
}

fn move_input(b: &mut Bytes<'_>, pos: &Position) -> MoveInput {
    let pick = b.byte();
    let legal = pos.legal_moves();
    if pick < 200 && !legal.is_empty() {
        let m = legal[usize::from(pick) % legal.len()];
        let uci = pos.uci(m).to_string();
        let mut mv = MoveInput::from_uci(&uci).expect("the library's UCI reads back");
        // Sometimes drop the promotion piece or add a castling intent.
        mv.castle = pick % 23 == 0 || (m.is_castle() && pick % 2 == 0);
        if pick % 17 == 0 {
            mv.promotion = None;
        }
        return mv;
    }
    let from = b.square();
    let to = b.square();
    let promotion = match pick % 8 {
        0 => Some(Role::Queen),
        1 => Some(Role::Knight),
        2 => Some(Role::King),
        3 => Some(Role::Pawn),
        _ => None,
    };
    MoveInput { from, to, promotion, castle: pick % 5 == 0 }
}

fn role(x: u8) -> Role {
    [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King][usize::from(x % 6)]
}

fn event(b: &mut Bytes<'_>, g: &Game) -> Event {
    let pos = *g.position();
    let kind = b.byte();
    let c = b.byte();
    // Mostly the side to move acts.
    let color = if c % 5 == 4 { pos.turn().other() } else { pos.turn() };
    match kind % 44 {
        0..=7 => Event::MakeMove { color, mv: move_input(b, &pos) },
        8..=12 => Event::PressClock { color, other_hand: c % 13 == 0 },
        13..=15 => Event::SubmitMove { color, mv: move_input(b, &pos), premove: c % 3 == 0, lag_ms: 0 },
        16 | 17 => Event::Touch {
            color,
            square: b.square(),
            kind: [TouchKind::Intent, TouchKind::Adjust, TouchKind::Accidental][usize::from(c % 3)],
        },
        18 => Event::AnnounceAdjust { color },
        19 => Event::PromotionPieceTouched { color, role: role(c) },
        20 => Event::OfferDraw { color },
        21 => Event::AcceptDraw { color },
        22 => Event::DeclineDraw { color },
        23 => Event::ClaimDraw {
            color,
            kind: if c & 2 == 0 { ClaimKind::Threefold } else { ClaimKind::FiftyMoves },
            intended: (c & 8 != 0).then(|| move_input(b, &pos)),
        },
        24 => Event::Resign { color },
        25 => Event::PlayerArrived { color },
        26 => Event::RequestIncrement { color },
        27 => Event::ClaimNoWinningAttempt { color },
        28 => Event::Disconnect { color },
        29 => Event::Reconnect { color },
        30 => {
            if c & 1 == 0 {
                Event::PauseClocks
            } else {
                Event::ResumeClocks
            }
        }
        31 => Event::AdjustClock { color, delta_ms: i64::from(b.u16() as i16) * 100 },
        32 => Event::SetClock { color, remaining_ms: i64::from(b.u16()) * 100 },
        33 => Event::Penalty {
            color,
            kind: match c % 6 {
                0 => PenaltyKind::Warning,
                1 => PenaltyKind::AddTimeToOpponent(i64::from(b.u16()) * 10),
                2 => PenaltyKind::DeductTime(i64::from(b.u16()) * 10),
                3 => PenaltyKind::RaiseOpponentScore,
                4 => PenaltyKind::ReduceScore,
                _ => PenaltyKind::DeclareLost,
            },
        },
        34 => Event::ReinstatePosition { ply: usize::from(b.byte()) % (g.record().ply_count() + 2) },
        35 if c % 8 == 0 => Event::DeclareResult {
            result: [
                DeclaredResult::WhiteWins,
                DeclaredResult::BlackWins,
                DeclaredResult::Draw,
                DeclaredResult::BothLose,
            ][usize::from(b.byte() % 4)],
        },
        36 if c % 8 == 0 => Event::DeviceFound { color },
        37 => Event::AnswerQuestion {
            id: u32::from(b.byte() % 5),
            answer: [Answer::Default, Answer::Accept, Answer::Reject, Answer::Postpone][usize::from(c % 4)],
        },
        38 => Event::Start,
        39 => Event::UsedTwoHands { color },
        40 => Event::CastlingKingReleased {
            color,
            to: if c & 8 == 0 {
                // The castling squares of both sides, usually.
                let back = if color == Color::White { 0 } else { 56 };
                Square::new(back + [2u32, 6, 1, 5][usize::from(c >> 4) % 4])
            } else {
                b.square()
            },
        },
        41 => Event::ServiceResumed { outage_ms: i64::from(b.u16() as i16) * 10 },
        42 if c % 4 == 0 => Event::SetupErrorFound {
            error: match b.byte() % 5 {
                0 => SetupError::WrongInitialPosition,
                1 => SetupError::BoardWronglyOriented,
                2 => SetupError::ColoursReversed,
                3 => SetupError::KingMisplaced { color },
                _ => SetupError::RookMisplaced { square: b.square() },
            },
        },
        43 => Event::ClaimIllegalMove { color },
        _ => Event::Tick,
    }
}

fn step(b: &mut Bytes<'_>) -> i64 {
    let s = b.byte();
    match s >> 6 {
        0 => 0,
        1 => i64::from(s & 63) * 100,
        2 => i64::from(b.u16()),
        // Now and then a jump towards (and past) the largest instant the
        // clock accepts, 2^62 ms.
        _ if s == 255 => i64::from(b.u16()) << 47,
        _ => i64::from(b.u16()) * 100,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes { data, at: 0 };
    let Some(regs) = regulations(&mut b) else { return };
    let Ok(mut g) = Game::new(regs.clone()) else { return };
    let mut log: Vec<(Event, i64)> = Vec::new();
    // Instants may start below zero: they must be refused, not obeyed.
    let mut t: i64 = if b.byte() == 255 { -i64::from(b.byte()) } else { 0 };
    let mut n = 0;
    while !b.done() && n < MAX_EVENTS {
        n += 1;
        t = t.saturating_add(step(&mut b));
        let e = if n == 1 && b.byte() % 4 != 0 { Event::Start } else { event(&mut b, &g) };
        let before = g.clone();
        match g.apply(&e, t) {
            Ok(rulings) => {
                log.push((e.clone(), t));
                let ended = rulings.iter().any(|r| matches!(r.decision, Decision::GameOver(_)));
                assert!(
                    !ended || g.is_over(),
                    "a GameOver ruling leaves the game running: {e:?} {rulings:?}"
                );
                if let Some(o) = g.obligation() {
                    assert!(!o.allowed.is_empty(), "an obligation with no move: {o:?}");
                }
                if g.is_over() {
                    assert_eq!(g.next_deadline(), None);
                }
            }
            Err(r) => {
                assert_eq!(g, before, "the rejected event {e:?} ({r}) changed the game");
            }
        }
    }
    let replayed = Game::replay(regs, log.iter())
        .unwrap_or_else(|(i, r)| panic!("replay rejected event {i} {:?}: {r}", log[i].0));
    assert_eq!(replayed, g, "the replay differs from the live game");
    // A stored game reads back as the same game.
    let json = serde_json::to_string(&g).expect("a game serialises");
    let back: Game = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(back, g, "the game read back differs");
});
