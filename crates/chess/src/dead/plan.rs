//! Plans: helpmates built move by move from a mating pattern rather than
//! found by search.
//!
//! The endings where the search's lines grow long (a rook or a queen against
//! a king that must first walk to the edge; pawns that must promote first)
//! have textbook helpmates. A plan plays one of them greedily, one legal move
//! at a time, with a mate-in-one test before every move of the winner:
//!
//! * **Promotion**: without a queen or a rook, the winner's pawn with the
//!   shortest way walks to its last rank and becomes a queen, while the
//!   loser's pieces step off its path and the loser's king walks towards the
//!   mating square of the next phase. A loser's pawn on the path is taken by
//!   the winner's king first (the loser's king keeps away from it).
//! * **Edge mate**: the loser's king walks to an edge square `E`, the
//!   winner's king to the square two steps in front of it, and a queen or
//!   rook checks along the edge (the kings' opposition mate of K+R v K).
//!   Loser's pieces on the way are moved aside, others wait.
//!
//! A plan never proves anything: it returns a line only when the line ends
//! with the loser checkmated, and every move of it is taken from the legal
//! moves of its position, so the line is a witness by construction.

use super::search::{CheckFilter, checkmating_move};
use crate::attacks::{king_attacks, queen_attacks, rook_attacks};
use crate::bitboard::Bitboard;
use crate::movegen::MoveList;
use crate::position::Position;
use crate::types::{Color, File, Move, Rank, Role, Square};

/// The square `df` files and `dr` ranks from `sq`, if on the board.
fn shift(sq: Square, df: i32, dr: i32) -> Option<Square> {
    let f = sq.file().index() as i32 + df;
    let r = sq.rank().index() as i32 + dr;
    ((0..8).contains(&f) && (0..8).contains(&r))
        .then(|| Square::from_coords(File::new(f as u32), Rank::new(r as u32)))
}

/// The edge mate being played: the loser's king on `edge`, the winner's king
/// on `guard`, a check along `line` (the edge's rank or file).
#[derive(Clone, Copy)]
struct EdgeMate {
    edge: Square,
    guard: Square,
    line: Bitboard,
}

/// The edge mate that needs the fewest moves of the two kings.
fn choose_edge_mate(pos: &Position, winner: Color) -> Option<EdgeMate> {
    let lk = pos.king(winner.other());
    let wk = pos.king(winner);
    let b = pos.board();
    let loser_pawns = b.pawns() & b.by_color(winner.other());
    let mut best: Option<(u32, EdgeMate)> = None;
    for edge in Bitboard::EDGES {
        let f = edge.file().index() as i32;
        let r = edge.rank().index() as i32;
        // Inward directions (two for a corner).
        let mut dirs = [(0, 0); 2];
        let mut n = 0;
        if r == 0 || r == 7 {
            dirs[n] = (0, if r == 0 { 1 } else { -1 });
            n += 1;
        }
        if f == 0 || f == 7 {
            dirs[n] = (if f == 0 { 1 } else { -1 }, 0);
            n += 1;
        }
        for &(df, dr) in &dirs[..n] {
            let Some(guard) = shift(edge, 2 * df, 2 * dr) else { continue };
            let line =
                if dr != 0 { Bitboard::from_rank(edge.rank()) } else { Bitboard::from_file(edge.file()) };
            if b.occupied().contains(edge) && edge != lk {
                continue;
            }
            // A loser's pawn can never leave a square of the line behind it.
            let mut cost = 2 * lk.distance(edge).max(wk.distance(guard)) + lk.distance(edge);
            if b.occupied().contains(guard) && guard != wk {
                cost += 2;
            }
            cost += (line & loser_pawns).count();
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, EdgeMate { edge, guard, line }));
            }
        }
    }
    best.map(|(_, m)| m)
}

/// The winner's pawn to promote: the one with the fewest moves to go (its
/// steps, and the walk of the winner's king to each loser's pawn on its
/// path, which the king takes), preferring paths that no loser's pawn
/// attacks; the loser keeps its pieces off the path.
fn choose_pawn(pos: &Position, winner: Color) -> Option<Square> {
    let b = pos.board();
    let ours = b.pawns() & b.by_color(winner);
    let theirs = b.pawns() & b.by_color(winner.other());
    let mut best: Option<(u32, Square)> = None;
    for p in ours {
        let path = path_ahead(winner, p);
        // Our own pawns never leave the path; the loser's pawns on it can
        // be taken by our king (at the cost of its walk).
        if (path & ours).any() {
            continue;
        }
        let walk = (path & theirs).iter().map(|s| 2 * pos.king(winner).distance(s) + 2).sum::<u32>();
        let mut guarded = Bitboard::EMPTY;
        for s in theirs {
            guarded |= crate::attacks::pawn_attacks(winner.other(), s);
        }
        let steps = path.count();
        let cost = steps + walk + if (path & guarded).any() { 4 } else { 0 };
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, p));
        }
    }
    best.map(|(_, p)| p)
}

/// The squares in front of a pawn on `sq`, up to its last rank.
fn path_ahead(color: Color, sq: Square) -> Bitboard {
    let mut path = Bitboard::EMPTY;
    let mut cur = sq;
    while let Some(n) = shift(cur, 0, if color.is_white() { 1 } else { -1 }) {
        path.add(n);
        cur = n;
    }
    path
}

/// King steps from every square to `target` through `passable` squares
/// (`target` itself always counts as passable); where the king cannot get
/// that way, 8 plus the plain distance.
fn king_distances(target: Square, passable: Bitboard) -> [u8; 64] {
    let mut dist = [0u8; 64];
    for sq in Square::all() {
        dist[sq.index()] = 8 + sq.distance(target) as u8;
    }
    let mut frontier = Bitboard::from_square(target);
    let mut seen = frontier;
    let mut d = 0u8;
    while frontier.any() && d < 8 {
        let mut next = Bitboard::EMPTY;
        for sq in frontier {
            dist[sq.index()] = d;
            next |= king_attacks(sq);
        }
        frontier = next & passable & !seen;
        seen |= frontier;
        d += 1;
    }
    dist
}

/// Plays a plan for `winner` from `pos` for at most `max_plies` plies:
/// the witness line on success (`None` when the plan does not apply, goes
/// round in circles or runs out of plies). `nodes` counts the positions
/// whose moves were generated.
pub(crate) fn plan_witness(
    pos: &Position,
    winner: Color,
    max_plies: usize,
    nodes: &mut u64,
) -> Option<Vec<Move>> {
    let loser = winner.other();
    let mut p = *pos;
    let mut line = Vec::new();
    let mut pawn = None;
    let mut edge: Option<EdgeMate> = None;
    let mut had_heavy = false;
    let mut list = MoveList::new();
    let mut seen: Vec<u64> = Vec::new();
    while line.len() < max_plies {
        list.clear();
        p.legal_moves_into(&mut list);
        *nodes += 1;
        if list.is_empty() {
            return (p.turn() == loser && p.is_check()).then_some(line);
        }
        // A plan going round in circles is lost.
        let key = p.zobrist();
        if seen.iter().filter(|&&k| k == key).count() >= 3 {
            return None;
        }
        seen.push(key);
        let b = p.board();
        let heavy = b.by_color(winner) & (b.queens() | b.rooks());
        if heavy.is_empty() {
            if pawn.is_none_or(|s: Square| !(b.pawns() & b.by_color(winner)).contains(s)) {
                pawn = choose_pawn(&p, winner);
            }
            pawn?;
        } else {
            pawn = None;
        }
        // The edge mate is chosen once, and again when the winner's first
        // queen or rook appears (after a promotion the kings stand
        // elsewhere).
        if edge.is_none() || (heavy.any() && !had_heavy) {
            edge = choose_edge_mate(&p, winner);
        }
        had_heavy = heavy.any();
        let em = edge?;
        let m = if p.turn() == winner {
            if let Some(m) = checkmating_move(&p, &list) {
                line.push(m);
                return Some(line);
            }
            winner_move(&p, &list, pawn, em, heavy)
        } else {
            loser_move(&p, &list, pawn, em)
        }?;
        line.push(m);
        p.play_unchecked(m);
        // Track the pawn as it advances.
        if let Some(s) = pawn
            && m.from() == s
        {
            pawn = if m.is_promotion() { None } else { Some(m.to()) };
        }
    }
    None
}

/// Picks the best-scored move of `scored` (best first) whose result is not
/// a stalemate, for the side to move of `pos`.
fn pick(pos: &Position, scored: &mut [(i32, Move)]) -> Option<Move> {
    scored.sort_unstable_by_key(|&(s, _)| -s);
    scored.iter().take(4).map(|&(_, m)| m).find(|&m| pos.after(m).has_legal_move())
}

/// The winner's move of the plan: the promotion pawn's step, else its king
/// towards the guard square, else the heavy piece onto a square from which it
/// reaches the line, else a quiet move.
fn winner_move(
    pos: &Position,
    list: &MoveList,
    pawn: Option<Square>,
    em: EdgeMate,
    heavy: Bitboard,
) -> Option<Move> {
    let b = pos.board();
    let winner = pos.turn();
    let lk = pos.king(winner.other());
    let occ = b.occupied();
    let filter = CheckFilter::new(pos);
    let path = pawn.map_or(Bitboard::EMPTY, |s| path_ahead(winner, s));
    let loser_pawns = b.pawns() & b.by_color(winner.other());
    // The loser's pawn on the path nearest to our pawn, for our king to take.
    let blocker = pawn.and_then(|p| (path & loser_pawns).iter().min_by_key(|s| s.distance(p)));
    // Our king's walk (around the squares the loser attacks) to the pawn it
    // takes, or to the guard square.
    let passable = !(pos.attacked_squares(winner.other()) | b.by_color(winner));
    let walk = king_distances(blocker.unwrap_or(em.guard), passable);
    let mut scored: Vec<(i32, Move)> = Vec::with_capacity(list.len());
    for &m in list.iter() {
        let from = m.from();
        let to = m.to();
        let role = b.role_at(from).unwrap_or(Role::Pawn);
        let mut s: i32 = 0;
        if Some(to) == blocker && role == Role::King {
            s += 30;
        }
        if Some(from) == pawn {
            s += 100;
            match m.promotion_role() {
                Some(Role::Queen) => s += 50,
                Some(_) => s -= 200,
                None => {}
            }
        }
        match role {
            Role::King if pawn.is_some() && (blocker.is_some() || path.contains(from)) => {
                if blocker.is_some() {
                    s += 10 * (i32::from(walk[from.index()]) - i32::from(walk[to.index()]));
                } else if !path.contains(to) {
                    s += 20;
                }
            }
            Role::King => {
                s += 10 * (i32::from(walk[from.index()]) - i32::from(walk[to.index()]));
                // Do not stand on the loser's way to the edge.
                if to.distance(em.edge) < lk.distance(em.edge) && to.distance(em.edge) <= 1 {
                    s -= 15;
                }
            }
            Role::Queen | Role::Rook if heavy.contains(from) => {
                let reach = |sq: Square, o: Bitboard| {
                    if role == Role::Queen { queen_attacks(sq, o) } else { rook_attacks(sq, o) }
                };
                // The squares of the line from which a check cannot be
                // answered by taking the checker with the king.
                let far = em.line - king_attacks(em.edge).with(em.edge);
                let occ_after = occ.without(from).with(to);
                let before = (reach(from, occ) & far).any();
                let after = (reach(to, occ_after) & far).any();
                if after && !before {
                    s += 3;
                } else if before && !after {
                    s -= 3;
                }
                // Keep off the edge line and the loser's king's surroundings
                // until the mate, and leave the edge square free for the king.
                if em.line.contains(to) || king_attacks(lk).contains(to) || to.distance(em.edge) <= 1 {
                    s -= 8;
                }
                if lk != em.edge && reach(to, occ_after).contains(em.edge) {
                    s -= 10;
                } else if lk != em.edge && reach(from, occ).contains(em.edge) {
                    s += 15;
                }
                if em.line.contains(from) {
                    s += 4;
                }
            }
            Role::Pawn if Some(from) != pawn => s += 1,
            _ => {}
        }
        if b.by_color(winner.other()).contains(to) {
            s -= 4;
        }
        if !filter.quiet(m, role) {
            s -= 12;
        }
        scored.push((s, m));
    }
    pick(pos, &mut scored)
}

/// The loser's move of the plan: a piece off the promotion path, else its
/// king towards the edge square, else a quiet move that changes nothing.
fn loser_move(pos: &Position, list: &MoveList, pawn: Option<Square>, em: EdgeMate) -> Option<Move> {
    let b = pos.board();
    let loser = pos.turn();
    let winner = loser.other();
    let lk = pos.king(loser);
    let path = pawn.map_or(Bitboard::EMPTY, |s| path_ahead(winner, s));
    let filter = CheckFilter::new(pos);
    // Our pawns on the promotion path, which the winner's king comes to take:
    // keep the king from guarding them.
    let guarded_by_king = king_attacks(lk);
    let walk = king_distances(em.edge, !(pos.attacked_squares(winner) | b.by_color(loser)));
    let on_path = path & b.pawns() & b.by_color(loser);
    let mut scored: Vec<(i32, Move)> = Vec::with_capacity(list.len());
    for &m in list.iter() {
        let from = m.from();
        let to = m.to();
        let role = b.role_at(from).unwrap_or(Role::Pawn);
        let mut s: i32 = 0;
        if role == Role::King && (king_attacks(to) & on_path).any() {
            s -= 25;
        } else if role == Role::King && (guarded_by_king & on_path).any() {
            s += 25;
        }
        if path.contains(from) && !path.contains(to) {
            s += 40;
        }
        if path.contains(to) {
            s -= 40;
        }
        if role == Role::King {
            s += 10 * (i32::from(walk[from.index()]) - i32::from(walk[to.index()]));
            if to == em.edge {
                s += 5;
            }
        } else {
            // Quiet waiting moves: away from the edge line and the guard.
            if em.line.contains(to) || to == em.guard || king_attacks(em.edge).contains(to) {
                s -= 6;
            }
            if lk == em.edge {
                s += 2;
            }
        }
        if b.by_color(winner).contains(to) {
            s -= 30;
        }
        if m.is_promotion() {
            s -= 20;
        }
        if !filter.quiet(m, role) {
            s -= 20;
        }
        scored.push((s, m));
    }
    pick(pos, &mut scored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dead::is_witness;
    use crate::fen::{FenOptions, Strictness};

    fn pos(fen: &str) -> Position {
        Position::from_fen_with(fen, FenOptions { chess960: false, strictness: Strictness::Lenient }).unwrap()
    }

    fn witness(fen: &str, side: Color) -> Option<Vec<Move>> {
        let p = pos(fen);
        let mut nodes = 0;
        let line = plan_witness(&p, side, 60, &mut nodes)?;
        assert!(is_witness(&p, side, &line), "{fen} ({side}): {line:?}");
        assert!(nodes as usize >= line.len());
        Some(line)
    }

    #[test]
    fn a_rook_mates_the_king_on_the_edge() {
        let line = witness("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", Color::White);
        assert!(line.is_some_and(|l| l.len() <= 15));
    }

    #[test]
    fn a_blocked_pawn_promotes_after_its_king_takes_the_blocker() {
        // g6 can only run once White's king has taken g7 (and the other way
        // round for Black), then the new queen mates.
        for side in Color::ALL {
            assert!(witness("8/6p1/3k2P1/8/8/2K5/8/8 w - - 0 1", side).is_some(), "{side}");
        }
        assert!(witness("1k6/8/8/8/8/8/5PPP/6K1 w - - 0 1", Color::White).is_some());
    }

    #[test]
    fn no_plan_without_a_pawn_or_a_heavy_piece() {
        assert_eq!(witness("8/8/3k4/8/8/3N4/8/4K3 w - - 0 1", Color::White), None);
        assert_eq!(witness("8/8/3k4/8/8/8/8/4K3 w - - 0 1", Color::Black), None);
    }
}
