//! Helpmate searches: a narrow, heuristic witness finder and a full-width,
//! budgeted search that can also prove that no helpmate exists.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::blocked::blocked_cannot_mate;
use super::material::has_insufficient_material;
use crate::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::movegen::MoveList;
use crate::position::Position;
use crate::types::{Color, Move, Rank, Role, Square};

/// Longest line the full search follows before it calls the branch cut.
const MAX_PLY: usize = 160;

/// Outcome of the full search.
pub(crate) enum Outcome {
    /// A helpmate was found; the line is in [`Searcher::line`].
    Mate,
    /// Every line was followed to its end: no helpmate exists.
    NoMate,
    /// The node budget ran out.
    OutOfBudget,
}

/// Hashes Zobrist keys by taking them as they are (they are random already).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Table = HashMap<u64, i32, BuildHasherDefault<KeyHasher>>;

/// Search state shared by both searches.
pub(crate) struct Searcher {
    winner: Color,
    /// Moves from the search root to the current node (the witness on success).
    pub(crate) line: Vec<Move>,
    pub(crate) nodes: u64,
    budget: u64,
    interrupted: bool,
    tt: Table,
    /// The corner the full search steers the loser's king to.
    corner: Square,
}

/// Knight distance between two squares (capped at 6), from a table built once.
fn knight_distance(a: Square, b: Square) -> u32 {
    static TABLE: std::sync::OnceLock<Box<[[u8; 64]; 64]>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = Box::new([[6u8; 64]; 64]);
        for from in Square::all() {
            let mut seen = Bitboard::from_square(from);
            let mut frontier = seen;
            t[from.index()][from.index()] = 0;
            for d in 1..6u8 {
                let mut next = Bitboard::EMPTY;
                for s in frontier {
                    next |= knight_attacks(s);
                }
                frontier = next - seen;
                seen |= next;
                for s in frontier {
                    t[from.index()][s.index()] = d;
                }
            }
        }
        t
    });
    u32::from(t[a.index()][b.index()])
}

/// Distance to the nearest edge (0 on the edge).
fn edge_distance(s: Square) -> u32 {
    let f = s.file().index();
    let r = s.rank().index();
    f.min(7 - f).min(r).min(7 - r)
}

impl Searcher {
    pub(crate) fn new(winner: Color, budget: u64) -> Searcher {
        Searcher {
            winner,
            line: Vec::new(),
            nodes: 0,
            budget,
            interrupted: false,
            tt: Table::default(),
            corner: Square::H8,
        }
    }

    /// Plays a winner's move that checkmates at once, if there is one.
    fn mate_in_one(&mut self, pos: &Position) -> bool {
        let lk = pos.king(self.winner.other());
        let b = pos.board();
        let occ = b.occupied();
        let lines = queen_attacks(lk, Bitboard::EMPTY);
        let diag = bishop_attacks(lk, occ);
        let straight = rook_attacks(lk, occ);
        let mut list = MoveList::new();
        pos.legal_moves_into(&mut list);
        for &m in list.iter() {
            let from = m.from();
            let to = m.to();
            let role = m.promotion_role().or_else(|| b.role_at(from)).unwrap_or(Role::Pawn);
            let direct = match role {
                Role::Pawn => pawn_attacks(self.winner.other(), lk).contains(to),
                Role::Knight => knight_attacks(lk).contains(to),
                Role::Bishop => diag.contains(to) || m.is_promotion(),
                Role::Rook => straight.contains(to) || m.is_promotion(),
                Role::Queen => diag.contains(to) || straight.contains(to) || m.is_promotion(),
                Role::King => false,
            };
            if !direct && !lines.contains(from) && !m.is_castle() && !m.is_en_passant() {
                continue;
            }
            let next = pos.after(m);
            if next.is_check() && !next.has_legal_move() {
                self.line.push(m);
                return true;
            }
        }
        false
    }

    /// Heuristic order for the narrow search (higher first), without playing
    /// the move: the winner's pieces should attack more of the loser king's
    /// neighbourhood, the loser's pieces should fill it and never capture.
    fn score(&self, pos: &Position, m: Move) -> i32 {
        let b = pos.board();
        let from = m.from();
        let to = m.to();
        let role = b.role_at(from).unwrap_or(Role::Pawn);
        let capture = pos.is_capture(m);
        if pos.turn() == self.winner {
            let lk = pos.king(self.winner.other());
            let zone = king_attacks(lk).with(lk);
            let occ_after = b.occupied().without(from).with(to);
            let hits = |sq: Square, occ: Bitboard| -> i32 {
                let a = match role {
                    Role::Pawn => pawn_attacks(self.winner, sq),
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, occ),
                    Role::Rook => rook_attacks(sq, occ),
                    Role::Queen => queen_attacks(sq, occ),
                    Role::King => king_attacks(sq),
                };
                (a & zone).count() as i32
            };
            let mut gain = hits(to, occ_after) - hits(from, b.occupied());
            // Lines opened for the other sliders (a pawn freeing the queen).
            let sliders = (b.queens() | b.bishops() | b.rooks()) & b.by_color(self.winner);
            for q in sliders.without(from) {
                let before = queen_attacks(q, b.occupied()).count() as i32;
                let after = queen_attacks(q, occ_after).count() as i32;
                if b.queens().contains(q) {
                    gain += (after - before).max(0);
                }
            }
            let closer = from.distance(lk) as i32 - to.distance(lk) as i32;
            let mut s = match m.promotion_role() {
                Some(Role::Queen) => 50,
                Some(_) => -50,
                None => 0,
            };
            if capture && zone.contains(to) {
                s -= 3;
            }
            s += match role {
                Role::King => closer - 2,
                Role::Knight => {
                    4 * gain + 2 * (knight_distance(from, lk) as i32 - knight_distance(to, lk) as i32)
                }
                Role::Queen => 2 + 4 * gain + closer,
                _ => 4 * gain + closer,
            };
            s
        } else {
            let zone = king_attacks(pos.king(pos.turn()));
            let mut s = if capture { -20 } else { 0 };
            let own_king = pos.king(pos.turn());
            if role == Role::King {
                s += 2 * (edge_distance(from) as i32 - edge_distance(to) as i32) - 1;
            } else if role == Role::Pawn {
                // Pawns near the king open lines to it (f3 and g4 in the
                // fool's mate); the double step gets out of the way for good.
                if from.distance(own_king) <= 2 {
                    s += 5 + i32::from(from.distance(to) == 2);
                }
            } else if zone.contains(to) && !zone.contains(from) {
                s += 6;
            } else if zone.contains(from) && !zone.contains(to) {
                s -= 4;
            }
            s
        }
    }

    /// Narrow depth-first search: only the best few moves by heuristics.
    /// Finds witnesses quickly in ordinary positions; proves nothing.
    fn narrow(&mut self, pos: &Position, plies: u32, limit: u64) -> bool {
        if self.nodes >= limit {
            return false;
        }
        self.nodes += 1;
        if pos.turn() == self.winner {
            if self.mate_in_one(pos) {
                return true;
            }
            if plies <= 1 {
                return false;
            }
        } else if plies == 0 {
            return false;
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return false;
        }
        let width = if pos.turn() == self.winner { 4 } else { 3 };
        // Keep the best `width` moves by score, best first (insertion into a
        // tiny array: no allocation, no full sort).
        let mut best: [(i32, Move); 4] = [(i32::MIN, moves[0]); 4];
        for &m in moves.iter() {
            let sc = self.score(pos, m);
            let mut i = width;
            while i > 0 && best[i - 1].0 < sc {
                if i < width {
                    best[i] = best[i - 1];
                }
                i -= 1;
            }
            if i < width {
                best[i] = (sc, m);
            }
        }
        for &(sc, m) in best.iter().take(width) {
            if sc == i32::MIN {
                break;
            }
            self.line.push(m);
            if self.narrow(&pos.after(m), plies - 1, limit) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Runs the narrow search up to `max_moves` winner moves deep within
    /// `limit` nodes; on success the witness is in `self.line`.
    pub(crate) fn quick_witness(&mut self, pos: &Position, max_moves: u32, limit: u64) -> bool {
        let base = self.line.len();
        let winner_to_move = pos.turn() == self.winner;
        let stop = self.nodes + limit;
        for n in 1..=max_moves {
            let plies = if winner_to_move { 2 * n - 1 } else { 2 * n };
            if self.narrow(pos, plies, stop) {
                return true;
            }
            self.line.truncate(base);
        }
        false
    }

    /// Picks the mating corner: the one nearest the loser's king, of the
    /// colour of the winner's bishops when all of them share one colour.
    fn choose_corner(&mut self, pos: &Position) {
        let b = pos.board();
        let lk = pos.king(self.winner.other());
        let bishops = b.bishops() & b.by_color(self.winner);
        let dark_only = bishops.any() && (bishops & Bitboard::LIGHT_SQUARES).is_empty();
        let light_only = bishops.any() && (bishops & Bitboard::DARK_SQUARES).is_empty();
        let corners: &[Square] = if dark_only {
            &[Square::A1, Square::H8]
        } else if light_only {
            &[Square::H1, Square::A8]
        } else {
            &[Square::A1, Square::H1, Square::A8, Square::H8]
        };
        self.corner = corners.iter().copied().min_by_key(|c| c.distance(lk)).unwrap_or(Square::H8);
    }

    /// Depth cost of a move in the full search: 0 for progress (the winner's
    /// captures and pawn moves to its 6th rank or beyond, kings and knights
    /// closing in on the mating corner, the loser's pieces gathering round
    /// their king), 3 for the loser's captures, 1 otherwise. Only the shape
    /// of the search depends on it, never the soundness of its answers.
    fn cost(&self, pos: &Position, m: Move) -> i32 {
        let b = pos.board();
        let from = m.from();
        let to = m.to();
        let role = b.role_at(from).unwrap_or(Role::Pawn);
        let normal = 1;
        let corner = self.corner;
        if pos.turn() == self.winner {
            let advanced = role == Role::Pawn && to.rank().relative_to(self.winner) >= Rank::Sixth;
            if advanced || pos.is_capture(m) {
                return 0;
            }
            let closer = match role {
                Role::King => to.distance(corner) < from.distance(corner) && to.distance(corner) >= 2,
                Role::Knight => knight_distance(to, corner) < knight_distance(from, corner),
                _ => false,
            };
            if closer { 0 } else { normal }
        } else {
            if pos.is_capture(m) {
                return 3;
            }
            if role == Role::King {
                return if to.distance(corner) < from.distance(corner) { 0 } else { normal };
            }
            // A loser's piece moving next to its own king may block a flight.
            let own_king = pos.king(pos.turn());
            if to.distance(own_king) == 1 && from.distance(own_king) > 1 {
                return 0;
            }
            normal
        }
    }

    fn full(&mut self, pos: &Position, depth: i32, check_static: bool) -> bool {
        let key = pos.zobrist();
        if self.tt.get(&key).is_some_and(|&d| d >= depth) {
            return false;
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return pos.turn() != self.winner && pos.is_check();
        }
        if has_insufficient_material(pos, self.winner) {
            return false;
        }
        if check_static && blocked_cannot_mate(pos, self.winner) {
            return false;
        }
        if depth <= 0 || self.line.len() >= MAX_PLY || self.nodes >= self.budget {
            self.interrupted = true;
            return false;
        }
        self.tt.insert(key, depth);
        self.nodes += 1;
        if pos.turn() == self.winner && self.mate_in_one(pos) {
            return true;
        }
        // Cheapest moves first, then by the narrow search's preference.
        let mut order: Vec<(i32, i32, Move)> =
            moves.iter().map(|&m| (self.cost(pos, m), -self.score(pos, m), m)).collect();
        order.sort_unstable_by_key(|&(c, s, _)| (c, s));
        for &(cost, _, m) in &order {
            let zeroing = pos.is_zeroing(m) || m.is_promotion();
            self.line.push(m);
            if self.full(&pos.after(m), depth - cost, zeroing) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Iterative deepening of the full search within the node budget.
    pub(crate) fn full_search(&mut self, pos: &Position, first_depth: i32) -> Outcome {
        let base = self.line.len();
        self.choose_corner(pos);
        let mut depth = first_depth;
        loop {
            self.interrupted = false;
            self.tt.clear();
            if self.full(pos, depth, false) {
                return Outcome::Mate;
            }
            self.line.truncate(base);
            if !self.interrupted {
                return Outcome::NoMate;
            }
            if self.nodes >= self.budget || depth >= MAX_PLY as i32 {
                return Outcome::OutOfBudget;
            }
            depth += 1;
        }
    }
}
