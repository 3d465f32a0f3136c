//! A board simulator: sensor streams made the way hands make them, from
//! real games, and a driver that feeds them to a [`BoardReader`] and scores
//! what it infers. The accuracy benchmark (`examples/accuracy.rs`) and the
//! tests use it; it is deterministic for a given seed.
//!
//! The noise, each with its own probability per move ([`Noise`]): captures
//! with the captured piece lifted first or second, castling king-first or
//! rook-first (sometimes with a pause longer than the settle time between
//! the halves), sliding pieces seen on two squares with the two field
//! updates in reverse order, a piece knocked and put back, a piece dropped
//! on the wrong square and corrected, a lift and put-back of another piece
//! (a touch), promotions (pawn first, then the new piece; or the new piece
//! directly; on occupancy boards the choice from another input), and missed
//! scans (one field update lost, the next full scan 200–250 ms later).

use arbiter_chess::{Board, Move, MoveKind, Piece, Position, Role, Square};

use crate::observation::{
    DeviceId, DeviceTime, Observation, ObservationKind, Placement, Sensing, SquareState,
};
use crate::reader::{BoardReader, Inference, TouchKind};

/// A small deterministic random number generator (xorshift64*): the
/// simulation must replay exactly from its seed, and needs nothing more.
#[derive(Clone, Copy, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Zero is the one state xorshift never leaves. (Setting the low bit
        // instead made each odd seed replay the even seed before it; even
        // seeds keep the streams they had.)
        match seed ^ 0x9E37_79B9_7F4A_7C15 {
            0 => Rng(1),
            state => Rng(state),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }

    /// A random element.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() { None } else { Some(items[(self.next_u64() % items.len() as u64) as usize]) }
    }
}

/// How often each kind of noise happens (probability per move).
#[derive(Clone, Copy, Debug)]
pub struct Noise {
    /// A lift and put-back of an own piece before the move (a touch).
    pub touch: f64,
    /// A piece knocked over and put back just after the move is placed.
    pub knock: f64,
    /// A quiet move dropped on the wrong square first.
    pub wrong_square: f64,
    /// A sliding piece reported on both squares, updates in reverse order.
    pub slide: f64,
    /// One field update of the move lost, recovered by the next full scan.
    pub missed_scan: f64,
    /// A pause longer than the settle time between the halves of castling.
    pub castling_pause: f64,
}

impl Default for Noise {
    fn default() -> Noise {
        Noise {
            touch: 0.05,
            knock: 0.03,
            wrong_square: 0.03,
            slide: 0.15,
            missed_scan: 0.005,
            castling_pause: 0.1,
        }
    }
}

/// A move as played, with the time its last piece was put down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub mv: Move,
    pub placed_at: DeviceTime,
}

/// A touch made on purpose (a lift and put-back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MadeTouch {
    pub square: Square,
    pub piece: Piece,
    pub at: DeviceTime,
}

/// One game as a sensor stream, with what really happened.
#[derive(Clone, Debug)]
pub struct Script {
    pub start: Position,
    pub observations: Vec<Observation>,
    pub played: Vec<PlayedMove>,
    pub touches: Vec<MadeTouch>,
}

/// A physical event, before it becomes an observation.
#[derive(Clone, Copy, Debug)]
enum Hand {
    Lift(Square),
    Put(Square, Piece),
    Choose(Role),
}

struct Scripter<'a> {
    rng: &'a mut Rng,
    noise: Noise,
    sensing: Sensing,
    settle: u64,
    device: DeviceId,
    board: Board,
    t: u64,
    seq: u64,
    out: Vec<Observation>,
}

impl Scripter<'_> {
    fn emit(&mut self, at: u64, kind: ObservationKind) {
        self.seq += 1;
        self.out.push(Observation { device: self.device, device_seq: self.seq, at: DeviceTime(at), kind });
    }

    /// Plays a list of timed hand events: updates the physical board and
    /// emits what the sensors report (maybe losing one update).
    fn perform(&mut self, events: &[(u64, Hand)], lose_one: bool) {
        let lost = if lose_one { Some(self.rng.range(0, events.len() as u64 - 1) as usize) } else { None };
        let mut last = 0;
        for (i, &(at, e)) in events.iter().enumerate() {
            last = at;
            match e {
                Hand::Lift(sq) => {
                    self.board.remove(sq);
                }
                Hand::Put(sq, p) => self.board.set(sq, p),
                Hand::Choose(_) => {}
            }
            if Some(i) == lost && !matches!(e, Hand::Choose(_)) {
                continue;
            }
            let kind = match (e, self.sensing) {
                (Hand::Lift(square), Sensing::PieceIds) => {
                    ObservationKind::SquareChanged { square, now: SquareState::Empty }
                }
                (Hand::Put(square, p), Sensing::PieceIds) => {
                    ObservationKind::SquareChanged { square, now: SquareState::Piece(p) }
                }
                (Hand::Lift(square), Sensing::Occupancy) => ObservationKind::Lifted { square },
                (Hand::Put(square, _), Sensing::Occupancy) => ObservationKind::Placed { square, piece: None },
                (Hand::Choose(role), _) => ObservationKind::PromotionChosen(role),
            };
            self.emit(at, kind);
        }
        if lost.is_some() {
            // The next scan (DGT board dump, Centaur occupancy) brings the
            // truth back.
            let at = last + self.rng.range(200, 250);
            let placement = match self.sensing {
                Sensing::PieceIds => Placement::Pieces(self.board),
                Sensing::Occupancy => Placement::Occupancy(self.board.occupied()),
            };
            self.emit(at, ObservationKind::Placement(placement));
        }
    }

    fn gap(&mut self) -> u64 {
        self.rng.range(100, 250)
    }

    /// The hand events of one move starting at `self.t`; returns them and
    /// the time of the move's last placement.
    fn move_events(&mut self, pos: &Position, m: Move) -> (Vec<(u64, Hand)>, u64) {
        let us = pos.turn();
        let mut ev = Vec::new();
        let mut t = self.t;
        let piece = pos.board().piece_at(m.from()).expect("a piece moves");
        match m.kind() {
            MoveKind::Castle => {
                let king_to = m.king_or_piece_to();
                let side = m.castling_side().expect("castling");
                let rook_to = Square::from_coords(side.rook_to_file(), m.from().rank());
                let rook = pos.board().piece_at(m.to()).expect("the castling rook");
                let pause = self.rng.chance(self.noise.castling_pause);
                let king_first = self.rng.chance(0.6);
                let halves = if king_first {
                    [(m.from(), king_to, piece), (m.to(), rook_to, rook)]
                } else {
                    [(m.to(), rook_to, rook), (m.from(), king_to, piece)]
                };
                for (i, (from, to, p)) in halves.into_iter().enumerate() {
                    ev.push((t, Hand::Lift(from)));
                    t += self.rng.range(250, 700);
                    ev.push((t, Hand::Put(to, p)));
                    t += if i == 0 && pause { self.settle + self.rng.range(100, 400) } else { self.gap() };
                }
                let last = ev.last().expect("events").0;
                (ev, last)
            }
            _ => {
                let to = m.to();
                let victim_sq = if m.is_en_passant() {
                    Some(Square::from_coords(to.file(), m.from().rank()))
                } else if pos.board().occupied().contains(to) {
                    Some(to)
                } else {
                    None
                };
                let landed = match m.promotion_role() {
                    Some(role) => Piece { color: us, role },
                    None => piece,
                };
                let victim_first = victim_sq.is_some() && (victim_sq != Some(to) || self.rng.chance(0.5));
                let victim_first = victim_first && (victim_sq == Some(to) || self.rng.chance(0.5));
                if let Some(role) = m.promotion_role()
                    && self.sensing == Sensing::Occupancy
                    && self.rng.chance(0.5)
                {
                    // Chosen on the clock before the pawn goes down.
                    ev.push((t, Hand::Choose(role)));
                    t += 50;
                }
                if victim_first {
                    ev.push((t, Hand::Lift(victim_sq.expect("a victim"))));
                    t += self.rng.range(200, 500);
                }
                let slide =
                    self.rng.chance(self.noise.slide) && victim_sq.is_none() && m.promotion_role().is_none();
                if !slide {
                    ev.push((t, Hand::Lift(m.from())));
                    t += self.rng.range(250, 800);
                }
                if victim_sq == Some(to) && !victim_first {
                    ev.push((t, Hand::Lift(to)));
                    t += self.rng.range(150, 400);
                }
                // Wrong square first, corrected before the settle time.
                if self.rng.chance(self.noise.wrong_square) && victim_sq.is_none() && !slide {
                    let near: Vec<Square> = Square::all()
                        .filter(|s| {
                            s.distance(to) == 1 && !pos.board().occupied().contains(*s) && *s != m.from()
                        })
                        .collect();
                    if let Some(wrong) = self.rng.pick(&near) {
                        ev.push((t, Hand::Put(wrong, piece)));
                        t += self.rng.range(60, 150);
                        ev.push((t, Hand::Lift(wrong)));
                        t += self.rng.range(100, 300);
                    }
                }
                if m.promotion_role().is_some() && self.sensing == Sensing::PieceIds && self.rng.chance(0.5) {
                    // The pawn on the last rank, then exchanged.
                    ev.push((t, Hand::Put(to, piece)));
                    t += self.rng.range(300, 1200);
                    ev.push((t, Hand::Lift(to)));
                    t += self.rng.range(200, 600);
                }
                let placed = t;
                ev.push((t, Hand::Put(to, landed)));
                if slide {
                    // Seen on both squares: the update of the square left
                    // arrives after the one of the square reached.
                    t += self.rng.range(10, 40);
                    ev.push((t, Hand::Lift(m.from())));
                }
                if let Some(role) = m.promotion_role()
                    && self.sensing == Sensing::Occupancy
                    && !matches!(ev.first(), Some((_, Hand::Choose(_))))
                {
                    t += self.rng.range(20, 150);
                    ev.push((t, Hand::Choose(role)));
                }
                if let Some(v) = victim_sq
                    && v != to
                    && !victim_first
                {
                    t += self.rng.range(200, 500);
                    ev.push((t, Hand::Lift(v)));
                    return (ev, t);
                }
                let last_change = if slide { t } else { placed };
                (ev, last_change)
            }
        }
    }
}

/// Turns a game into a sensor stream.
pub fn script_game(
    start: Position,
    moves: &[Move],
    sensing: Sensing,
    settle_ms: u64,
    noise: Noise,
    rng: &mut Rng,
) -> Script {
    let mut s = Scripter {
        rng,
        noise,
        sensing,
        settle: settle_ms,
        device: DeviceId(1),
        board: *start.board(),
        t: 1_000,
        seq: 0,
        out: Vec::new(),
    };
    let mut pos = start;
    let mut played = Vec::with_capacity(moves.len());
    let mut touches = Vec::new();
    for &m in moves {
        // Thinking.
        s.t += s.rng.range(800, 6_000);
        if s.rng.chance(s.noise.touch) {
            let own: Vec<Square> = pos.board().by_color(pos.turn()).into_iter().collect();
            if let Some(sq) = s.rng.pick(&own) {
                let piece = pos.board().piece_at(sq).expect("own piece");
                let back = s.t + s.rng.range(150, 700);
                touches.push(MadeTouch { square: sq, piece, at: DeviceTime(s.t) });
                s.perform(&[(s.t, Hand::Lift(sq)), (back, Hand::Put(sq, piece))], false);
                s.t = back + s.rng.range(300, 1_000);
            }
        }
        let (mut events, mut last) = s.move_events(&pos, m);
        if s.rng.chance(s.noise.knock) {
            let after = pos.after(m);
            let spare: Vec<Square> = after
                .board()
                .occupied()
                .into_iter()
                .filter(|sq| {
                    !events.iter().any(|(_, e)| matches!(e, Hand::Lift(x) | Hand::Put(x, _) if x == sq))
                })
                .collect();
            if let Some(sq) = s.rng.pick(&spare) {
                let piece = after.board().piece_at(sq).expect("a piece");
                let at = last + s.rng.range(30, 120);
                let back = at + s.rng.range(40, 120);
                events.push((at, Hand::Lift(sq)));
                events.push((back, Hand::Put(sq, piece)));
            }
        }
        // A knock may fall between the move's own late events (a promotion
        // choice, a captured pawn taken off): the device reports in time order.
        events.sort_by_key(|e| e.0);
        let lose = s.rng.chance(s.noise.missed_scan);
        s.perform(&events, lose);
        if lose {
            last = last.max(events.last().expect("events").0);
        }
        played.push(PlayedMove { mv: m, placed_at: DeviceTime(last) });
        s.t = events.last().expect("events").0;
        pos = pos.after(m);
    }
    Script { start, observations: s.out, played, touches }
}

/// How one script was read.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub games: u64,
    pub games_exact: u64,
    pub moves_played: u64,
    pub moves_correct: u64,
    /// Moves ruled that were not played (a move later revised into the one
    /// played is counted in `revised`, not here).
    pub false_moves: u64,
    /// Moves that replaced one ruled for the same ply: a rook move revised
    /// into castling when the king followed late, a move whose piece's lift
    /// was lost revised into the move made.
    pub revised: u64,
    pub caught_up: u64,
    pub take_backs: u64,
    pub illegal_or_unknown: u64,
    pub touches_made: u64,
    pub touches_found: u64,
    /// Touch evidence beyond the touches made: first lifts, captures'
    /// opponent pieces, knocked pieces.
    pub other_evidence: u64,
    pub errors: u64,
    pub observations: u64,
    /// Placements observed (a piece put down, a full scan) and the wall time
    /// their inference took, ns.
    pub placements: u64,
    pub placement_ns: u64,
    /// Rulings at the settle time ([`BoardReader::tick`]: where catch-up
    /// searches run) and their wall time, ns.
    pub ticks: u64,
    pub tick_ns: u64,
    /// Latency from a move's last placement to its ruling, ms.
    pub latencies: Vec<u64>,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.games_exact += other.games_exact;
        self.moves_played += other.moves_played;
        self.moves_correct += other.moves_correct;
        self.false_moves += other.false_moves;
        self.revised += other.revised;
        self.caught_up += other.caught_up;
        self.take_backs += other.take_backs;
        self.illegal_or_unknown += other.illegal_or_unknown;
        self.touches_made += other.touches_made;
        self.touches_found += other.touches_found;
        self.other_evidence += other.other_evidence;
        self.errors += other.errors;
        self.observations += other.observations;
        self.placements += other.placements;
        self.placement_ns += other.placement_ns;
        self.ticks += other.ticks;
        self.tick_ns += other.tick_ns;
        self.latencies.extend_from_slice(&other.latencies);
    }

    /// The latency at quantile `q` (0..=1), ms.
    pub fn latency_quantile(&mut self, q: f64) -> u64 {
        if self.latencies.is_empty() {
            return 0;
        }
        self.latencies.sort_unstable();
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies[i]
    }
}

/// Feeds a script to `reader` as a service would: observations in order,
/// and a tick at each [`BoardReader::deadline`] that comes before the next
/// observation. Scores what it infers against what was played.
pub fn run(reader: &mut BoardReader, script: &Script) -> Tally {
    let mut t = Tally { games: 1, moves_played: script.played.len() as u64, ..Tally::default() };
    t.touches_made = script.touches.len() as u64;
    let mut record: Vec<Move> = Vec::new();
    let mut touches_found = vec![false; script.touches.len()];
    let mut handle = |out: Vec<Inference>, now: DeviceTime, t: &mut Tally, record: &mut Vec<Move>| {
        for inf in out {
            match inf {
                Inference::Move(m) => {
                    if let Some(old) = m.revises
                        && record.last() == Some(&old)
                        && record.len() > m.ply
                    {
                        record.pop();
                        // The move revised was counted false when it was
                        // ruled only if it was not the move played: a
                        // revision of the right move into a wrong one must
                        // still count as a false move.
                        if script.played.get(m.ply).is_none_or(|p| p.mv != old) {
                            t.false_moves = t.false_moves.saturating_sub(1);
                        }
                        t.revised += 1;
                    }
                    record.truncate(m.ply);
                    record.push(m.mv);
                    if m.caught_up {
                        t.caught_up += 1;
                    }
                    match script.played.get(m.ply) {
                        Some(p) if p.mv == m.mv => t.latencies.push(now.since(p.placed_at)),
                        _ => t.false_moves += 1,
                    }
                }
                Inference::TakeBack { to_ply, .. } => {
                    record.truncate(to_ply);
                    t.take_backs += 1;
                }
                Inference::IllegalMove(_) | Inference::Unknown { .. } => t.illegal_or_unknown += 1,
                Inference::Touch(e) => {
                    let hit = script.touches.iter().position(|m| {
                        e.kind == TouchKind::LiftAndReplace
                            && m.square == e.square
                            && m.at == e.at
                            && m.piece == e.piece
                    });
                    match hit {
                        Some(i) => touches_found[i] = true,
                        None => t.other_evidence += 1,
                    }
                }
                Inference::PromotionPending { .. } | Inference::Restored { .. } => {}
            }
        }
    };
    for obs in &script.observations {
        while let Some(d) = reader.deadline().filter(|d| *d <= obs.at) {
            let started = std::time::Instant::now();
            let out = reader.tick(d);
            t.ticks += 1;
            t.tick_ns += started.elapsed().as_nanos() as u64;
            handle(out, d, &mut t, &mut record);
        }
        t.observations += 1;
        let placement = matches!(
            obs.kind,
            ObservationKind::Placement(_)
                | ObservationKind::Placed { .. }
                | ObservationKind::SquareChanged { now: SquareState::Piece(_) | SquareState::Occupied, .. }
        );
        let started = std::time::Instant::now();
        let result = reader.observe(obs);
        if placement {
            t.placements += 1;
            t.placement_ns += started.elapsed().as_nanos() as u64;
        }
        match result {
            Ok(out) => handle(out, obs.at, &mut t, &mut record),
            Err(_) => t.errors += 1,
        }
    }
    let mut guard = 0;
    while let Some(d) = reader.deadline() {
        let out = reader.tick(d);
        handle(out, d, &mut t, &mut record);
        guard += 1;
        if guard > 16 {
            break;
        }
    }
    t.moves_correct = record.iter().zip(&script.played).take_while(|(a, b)| **a == b.mv).count() as u64;
    t.touches_found = touches_found.iter().filter(|f| **f).count() as u64;
    if t.moves_correct == t.moves_played && record.len() == script.played.len() {
        t.games_exact = 1;
    }
    t
}
