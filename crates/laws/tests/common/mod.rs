//! The scenario helper shared by `scenarios_more.rs` and `rules.rs`: a game,
//! the current instant and every ruling so far (a copy of the `S` helper of
//! `scenarios.rs`, with a few more accessors).
#![allow(dead_code)]

use arbiter_chess::{Color, Square};
use arbiter_laws::event::{Event, MoveInput, TouchKind};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Mode, Regulations};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameResult, Rejection, Ruling};
use arbiter_laws::time_control::TimeControl;

pub const W: Color = Color::White;
pub const B: Color = Color::Black;
pub const SEC: i64 = 1_000;
pub const MIN: i64 = 60_000;

/// A scenario: a game, the current instant, and every ruling so far.
pub struct S {
    pub g: Game,
    pub t: i64,
    pub log: Vec<Ruling>,
}

pub fn regs(tc: &str, mode: Mode, fen: Option<&str>) -> Regulations {
    let mut r = Regulations::new(TimeControl::parse_human(tc).unwrap());
    r.mode = mode;
    r.start_fen = fen.map(str::to_owned);
    r
}

pub fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

pub fn mi(uci: &str) -> MoveInput {
    MoveInput::from_uci(uci).unwrap()
}

impl S {
    pub fn new(r: Regulations) -> S {
        let mut s = S { g: Game::new(r).unwrap(), t: 0, log: Vec::new() };
        s.ev(Event::Start);
        s
    }
    /// A game not yet started (arrivals before the start).
    pub fn unstarted(r: Regulations) -> S {
        S { g: Game::new(r).unwrap(), t: 0, log: Vec::new() }
    }
    pub fn otb(tc: &str, fen: Option<&str>) -> S {
        S::new(regs(tc, Mode::OverTheBoard, fen))
    }
    pub fn online(tc: &str, fen: Option<&str>) -> S {
        S::new(regs(tc, Mode::Online, fen))
    }
    /// Moves time forward by `ms`.
    pub fn wait(&mut self, ms: i64) -> &mut S {
        self.t += ms;
        self
    }
    pub fn try_ev(&mut self, e: Event) -> Result<Vec<Ruling>, Rejection> {
        let r = self.g.apply(&e, self.t);
        if let Ok(rs) = &r {
            self.log.extend(rs.iter().cloned());
        }
        r
    }
    pub fn ev(&mut self, e: Event) -> Vec<Ruling> {
        let t = self.t;
        self.try_ev(e.clone()).unwrap_or_else(|r| panic!("{e:?} at {t} rejected: {r}"))
    }
    pub fn rej(&mut self, e: Event) -> Rejection {
        let before = self.g.clone();
        let r = self.try_ev(e.clone()).expect_err(&format!("{e:?} should be rejected"));
        assert_eq!(self.g, before, "a rejected event must change nothing");
        r
    }
    pub fn make(&mut self, color: Color, uci: &str) -> Vec<Ruling> {
        self.ev(Event::MakeMove { color, mv: mi(uci) })
    }
    pub fn press(&mut self, color: Color) -> Vec<Ruling> {
        self.ev(Event::PressClock { color, other_hand: false })
    }
    /// Over the board: make a move in SAN and press the clock.
    pub fn play(&mut self, sans: &str) {
        for san in sans.split_whitespace() {
            if san.ends_with('.') {
                continue;
            }
            let pos = *self.g.position();
            let m = pos.parse_san(san).unwrap_or_else(|e| panic!("{san}: {e}"));
            let color = pos.turn();
            self.make(color, &pos.uci(m).to_string());
            if !self.g.is_over() {
                self.press(color);
            }
        }
    }
    /// Online: submit moves in SAN.
    pub fn submit(&mut self, sans: &str) {
        for san in sans.split_whitespace() {
            let pos = *self.g.position();
            let m = pos.parse_san(san).unwrap_or_else(|e| panic!("{san}: {e}"));
            let color = pos.turn();
            self.ev(Event::SubmitMove { color, mv: mi(&pos.uci(m).to_string()), premove: false, lag_ms: 0 });
        }
    }
    pub fn touch(&mut self, color: Color, square: &str) -> Vec<Ruling> {
        self.ev(Event::Touch { color, square: sq(square), kind: TouchKind::Intent })
    }
    pub fn remaining(&self, color: Color) -> i64 {
        self.g.remaining_ms(color, self.t)
    }
    pub fn result(&self) -> Option<GameResult> {
        self.g.end().map(|e| e.result)
    }
    pub fn rule_of_end(&self) -> RuleId {
        self.g.end().expect("game over").rule
    }
    pub fn allowed(&self) -> Vec<String> {
        let pos = self.g.position();
        let mut v: Vec<String> =
            self.g.obligation().expect("an obligation").allowed.iter().map(|m| pos.san(*m)).collect();
        v.sort();
        v
    }
    pub fn has_rule(&self, rule: RuleId) -> bool {
        self.log.iter().any(|r| r.rule == rule)
    }
}

pub fn obligations(rs: &[Ruling]) -> Vec<Vec<String>> {
    rs.iter()
        .filter_map(|r| match &r.decision {
            Decision::Obligation { allowed, .. } => Some(allowed.clone()),
            _ => None,
        })
        .collect()
}

/// The rule ids of `rs`, in order.
pub fn rules(rs: &[Ruling]) -> Vec<RuleId> {
    rs.iter().map(|r| r.rule).collect()
}

/// The illegal-move rulings of `rs`: (rule, count).
pub fn illegal_moves(rs: &[Ruling]) -> Vec<(RuleId, u32)> {
    rs.iter()
        .filter_map(|r| match &r.decision {
            Decision::IllegalMove { count, .. } => Some((r.rule, *count)),
            _ => None,
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), so failures reproduce:
/// the one generator of these tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    /// `true` `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
