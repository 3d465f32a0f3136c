//! Helpmate searches: a narrow, heuristic witness finder, a lean
//! depth-shaped search for the fast path of `can_mate` (`fast_search`), and
//! full-width, budgeted searches that can also prove that no helpmate
//! exists.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::blocked::blocked_cannot_mate;
use super::material::has_insufficient_material;
use crate::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::movegen::{MoveList, MoveSink};
use crate::position::Position;
use crate::types::{Color, Move, Rank, Role, Square};

/// Longest line the full search follows before it calls the branch cut.
const MAX_PLY: usize = 160;

/// Longest line the exhaustive search follows (about 200 bytes a ply);
/// deeper positions are left out, and then "no mate" is not proved.
const EXHAUSTIVE_MAX_LINE: usize = 100_000;

/// Outcome of the full search.
pub(crate) enum Outcome {
    /// A helpmate was found; the line is in [`Searcher::line`].
    Mate,
    /// Every line was followed to its end: no helpmate exists.
    NoMate,
    /// The node budget ran out.
    OutOfBudget,
}

/// The squares and pieces from which the side to move may give check: a
/// cheap filter that lets every checking move through (and a few others).
pub(crate) struct CheckFilter {
    diag: Bitboard,
    straight: Bitboard,
    knight: Bitboard,
    pawn: Bitboard,
    /// Pieces standing alone between a slider and the king (discovered
    /// checks).
    discovered: Bitboard,
    /// Pieces whose moves may check in other ways: the discovering pieces
    /// and pawns about to promote (or able to take en passant). Castling,
    /// the king's only way to give check but by discovery, is told by the
    /// move (not by the piece: every king move was played and tested before,
    /// up to eight a node for nothing).
    special: Bitboard,
}

impl CheckFilter {
    pub(crate) fn new(pos: &Position) -> CheckFilter {
        let us = pos.turn();
        let them = us.other();
        let king = pos.king(them);
        let b = pos.board();
        let occ = b.occupied();
        let discovered = pos.blockers_for(them) & b.by_color(us);
        let mut special = discovered | (b.pawns() & Bitboard::relative_rank(us, Rank::Seventh));
        if pos.pseudo_ep_square().is_some() {
            special |= b.pawns();
        }
        CheckFilter {
            diag: bishop_attacks(king, occ),
            straight: rook_attacks(king, occ),
            knight: knight_attacks(king),
            pawn: pawn_attacks(them, king),
            discovered,
            special,
        }
    }

    /// `true` if a piece of `role` on `to` attacks the king.
    #[inline]
    fn direct(&self, role: Role, to: Square) -> bool {
        match role {
            Role::Pawn => self.pawn.contains(to),
            Role::Knight => self.knight.contains(to),
            Role::Bishop => self.diag.contains(to),
            Role::Rook => self.straight.contains(to),
            Role::Queen => self.diag.contains(to) || self.straight.contains(to),
            Role::King => false,
        }
    }

    /// `false` only if the move (of a piece of `role`) gives no check.
    #[inline]
    pub(crate) fn may_check(&self, m: Move, role: Role) -> bool {
        self.special.contains(m.from()) || m.is_castle() || self.direct(role, m.to())
    }

    /// `true` if the move surely gives no check (a king move that discovers
    /// none, or a plain move of a piece that lands off the king's lines).
    #[inline]
    pub(crate) fn quiet(&self, m: Move, role: Role) -> bool {
        !(self.discovered.contains(m.from())
            || m.is_promotion()
            || m.is_castle()
            || m.is_en_passant()
            || self.direct(role, m.to()))
    }
}

/// A move of `list` (the legal moves of `pos`) that checkmates. Only moves
/// that may give check are played (see [`CheckFilter`]).
pub(crate) fn checkmating_move(pos: &Position, list: &MoveList) -> Option<Move> {
    checkmating_move_with(pos, list, &CheckFilter::new(pos))
}

/// As [`checkmating_move`], with the position's [`CheckFilter`].
fn checkmating_move_with(pos: &Position, list: &[Move], filter: &CheckFilter) -> Option<Move> {
    let b = pos.board();
    let lines = filter.diag | filter.straight | filter.knight | filter.pawn;
    list.iter().copied().find(|&m| {
        if !(lines.contains(m.to()) || filter.special.contains(m.from()) || m.is_castle()) {
            return false;
        }
        let role = b.role_at(m.from()).unwrap_or(Role::King);
        // A piece landing on a line to the king checks for sure.
        filter.may_check(m, role) && mates(pos, m, !m.is_promotion() && filter.direct(role, m.to()))
    })
}

/// `true` if `m`, a legal move of `pos` that may give check (`direct`: it
/// surely does), checkmates.
#[inline(always)]
fn mates(pos: &Position, m: Move, direct: bool) -> bool {
    let next = pos.after(m);
    (direct || next.is_check()) && !king_can_step_out(&next) && !next.has_legal_move()
}

/// The first of `checks` (moves that may give check, each with whether it
/// checks directly, see [`NodeSink`]) that checkmates.
fn checkmating_among(pos: &Position, checks: &[(Move, bool)]) -> Option<Move> {
    checks.iter().find_map(|&(m, direct)| mates(pos, m, direct).then_some(m))
}

/// `true` if the side to move's king has a square to go to that no enemy
/// piece attacks (a quick way to see that a check is not mate).
#[inline]
fn king_can_step_out(pos: &Position) -> bool {
    let us = pos.turn();
    let king = pos.king(us);
    let b = pos.board();
    let occ = b.occupied().without(king);
    (king_attacks(king) - b.by_color(us)).iter().any(|sq| pos.attackers_to(sq, us.other(), occ).is_empty())
}

/// The fast search's moves of a node, ordered as the generator finds them
/// (no move list, no grouping of the list by piece, no lookup of each
/// piece's role: the generator tells the kind of piece), on the winner's
/// turn (`W`) or the loser's: pushes onto `out` what
/// [`Searcher::order_into`] would push for the node's list, in the same
/// order. On the winner's turn that list is not every legal move at a node
/// with one ply of depth left and no progress just made (see
/// `Searcher::fast`): only those that may give check (for its mate-in-one
/// test, see [`CheckFilter`]) and those of cost 0 (its captures, its pawns'
/// moves to its 6th rank or beyond (or lower, see
/// [`Searcher::pawn_progress_rank`]), its king's and knights' moves towards
/// their targets); `dropped` tells whether any other legal move was left
/// out (every `keep` is full otherwise). The winner's moves that may give
/// check also go to `checks`, in the order of the list, each with whether
/// the piece attacks the king from where it lands: the mate-in-one test
/// then plays them without testing every move of the list.
struct NodeSink<'a, 'e, const W: bool> {
    searcher: &'a Searcher,
    env: &'a OrderEnv<'e>,
    out: &'a mut Vec<(i32, Move, bool)>,
    checks: &'a mut Vec<(Move, bool)>,
    /// Some move was cut by depth.
    cut: bool,
    /// Some legal move exists.
    any: bool,
    /// The winner's moves that may give check go to `checks` (otherwise
    /// `special` and `check_squares` are empty).
    record_checks: bool,
    dropped: bool,
    board: &'a crate::board::Board,
    special: Bitboard,
    /// Where the king's moves are kept: towards its target, or captures.
    king_keep: Bitboard,
    /// Where the knights' moves are kept whatever their distance to the
    /// target: checks and captures.
    knight_keep: Bitboard,
    kd_target: &'static [u8; 64],
    queens: Bitboard,
    queen_keep: Bitboard,
    bishop_keep: Bitboard,
    rook_keep: Bitboard,
    /// Where pawn moves are kept: checks, captures, the ranks of progress
    /// (see [`Searcher::pawn_progress_rank`]).
    pawn_keep: Bitboard,
    /// The squares from which a piece checks the loser's king, by role
    /// (`Role as usize`; none for the king).
    check_squares: [Bitboard; 6],
}

impl<'a, 'e, const W: bool> NodeSink<'a, 'e, W> {
    /// A sink that keeps every legal move and records none as a check
    /// (`queens`: the winner's queens, whose lines its moves may open;
    /// none on the loser's turn).
    #[inline(always)]
    fn keeping_all(
        searcher: &'a Searcher,
        env: &'a OrderEnv<'e>,
        out: &'a mut Vec<(i32, Move, bool)>,
        checks: &'a mut Vec<(Move, bool)>,
        board: &'a crate::board::Board,
        queens: Bitboard,
    ) -> Self {
        NodeSink {
            searcher,
            env,
            out,
            checks,
            cut: false,
            any: false,
            record_checks: false,
            dropped: false,
            board,
            special: Bitboard::EMPTY,
            king_keep: Bitboard::FULL,
            knight_keep: Bitboard::FULL,
            kd_target: &KNIGHT_DISTANCE[0],
            queens,
            queen_keep: Bitboard::FULL,
            bishop_keep: Bitboard::FULL,
            rook_keep: Bitboard::FULL,
            pawn_keep: Bitboard::FULL,
            check_squares: [Bitboard::EMPTY; 6],
        }
    }

    /// The moves of a piece of role `R` (as in [`Searcher::order_piece`])
    /// from `from` to `targets`, of which those on `keep` are kept (all of
    /// them if it may discover a check); `checking` are the squares from
    /// which it checks.
    #[inline(always)]
    fn moves<const R: u8>(&mut self, from: Square, targets: Bitboard, keep: Bitboard, checking: Bitboard) {
        self.any |= targets.any();
        if W && self.special.contains(from) {
            // Every move may discover a check.
            for to in targets {
                self.checks.push((Move::normal(from, to), checking.contains(to)));
            }
            self.score::<R>(from, targets);
            return;
        }
        let kept = targets & keep;
        if W {
            self.dropped |= kept != targets;
            for to in targets & checking {
                self.checks.push((Move::normal(from, to), true));
            }
        }
        self.score::<R>(from, kept);
    }

    #[inline(always)]
    fn score<const R: u8>(&mut self, from: Square, targets: Bitboard) {
        let moves = targets.iter().map(move |to| Move::normal(from, to));
        self.cut |= self.searcher.order_piece::<W, R>(self.env, from, moves, self.out);
    }

    /// A pawn's move `m` (kept if it lands on `pawn_keep`).
    #[inline(always)]
    fn pawn(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        if W {
            let checking = self.check_squares[Role::Pawn as usize];
            if !(self.pawn_keep.contains(to) || self.special.contains(from)) {
                self.dropped = true;
                return;
            }
            if checking.contains(to) || self.special.contains(from) {
                self.checks.push((m, checking.contains(to)));
            }
        }
        self.cut |= self.searcher.order_piece::<W, 0>(self.env, from, std::iter::once(m), self.out);
    }
}

impl<const W: bool> MoveSink for NodeSink<'_, '_, W> {
    /// (Not called by the generator, which tells the kind of piece.)
    fn piece(&mut self, from: Square, targets: Bitboard) {
        match self.board.role_at(from) {
            Some(Role::King) => self.king(from, targets),
            Some(Role::Knight) => self.knight(from, targets),
            Some(Role::Bishop) => self.diagonal(from, targets),
            _ => self.straight(from, targets),
        }
    }
    #[inline(always)]
    fn king(&mut self, from: Square, targets: Bitboard) {
        self.moves::<5>(from, targets, self.king_keep, Bitboard::EMPTY);
    }
    #[inline(always)]
    fn knight(&mut self, from: Square, targets: Bitboard) {
        let mut keep = self.knight_keep;
        if W {
            let kd = self.kd_target;
            for to in targets - keep {
                if kd[to.index()] < kd[from.index()] {
                    keep = keep.with(to);
                }
            }
        }
        self.moves::<1>(from, targets, keep, self.check_squares[Role::Knight as usize]);
    }
    #[inline(always)]
    fn diagonal(&mut self, from: Square, targets: Bitboard) {
        if !W {
            // (The loser's sliders are all scored alike.)
            self.moves::<2>(from, targets, Bitboard::FULL, Bitboard::EMPTY);
        } else if self.queens.contains(from) {
            self.moves::<4>(from, targets, self.queen_keep, self.check_squares[Role::Queen as usize]);
        } else {
            self.moves::<2>(from, targets, self.bishop_keep, self.check_squares[Role::Bishop as usize]);
        }
    }
    #[inline(always)]
    fn straight(&mut self, from: Square, targets: Bitboard) {
        if !W {
            self.moves::<2>(from, targets, Bitboard::FULL, Bitboard::EMPTY);
        } else if self.queens.contains(from) {
            self.moves::<4>(from, targets, self.queen_keep, self.check_squares[Role::Queen as usize]);
        } else {
            self.moves::<3>(from, targets, self.rook_keep, self.check_squares[Role::Rook as usize]);
        }
    }
    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        self.any |= targets.any();
        for to in targets {
            self.pawn(Move::normal(Square::new((to.index() as i32 - delta) as u32), to));
        }
    }
    #[inline(always)]
    fn double_pushes(&mut self, targets: Bitboard, delta: i32) {
        self.any |= targets.any();
        for to in targets {
            self.pawn(Move::double_push(Square::new((to.index() as i32 - delta) as u32), to));
        }
    }
    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        self.any |= targets.any();
        for to in targets {
            let from = Square::new((to.index() as i32 - delta) as u32);
            let moves = Role::PROMOTIONS.map(|role| Move::promotion(from, to, role));
            if W && self.record_checks {
                // (From the 7th rank: every promotion may check.)
                for m in moves {
                    self.checks.push((m, false));
                }
            }
            self.cut |= self.searcher.order_piece::<W, 0>(self.env, from, moves, self.out);
        }
    }
    #[inline(always)]
    fn single(&mut self, m: Move) {
        // Castling or en passant (both may check, an en passant capture
        // directly too).
        self.any = true;
        if m.is_castle() {
            if W && self.record_checks {
                self.checks.push((m, false));
            }
            self.cut |= self.searcher.order_piece::<W, 5>(self.env, m.from(), std::iter::once(m), self.out);
        } else {
            if W && self.record_checks {
                self.checks.push((m, self.check_squares[Role::Pawn as usize].contains(m.to())));
            }
            self.cut |= self.searcher.order_piece::<W, 0>(self.env, m.from(), std::iter::once(m), self.out);
        }
    }
}

/// The transposition table of the fast search: direct-mapped, kept from call
/// to call (one per thread, see `dead::with_fast_table`), so no query
/// allocates or clears one. An entry counts only in the iteration (epoch)
/// that stored it: a position searched in an earlier iteration, or by an
/// earlier query, may have been cut by depth or budget there. It also holds
/// the search's scratch space (the moves that may give check of the node
/// being expanded and the stack of ordered moves), so that a query
/// allocates nothing and the frames of the recursion stay small.
pub(crate) struct FastTable {
    /// Key, epoch and depth together: a probe touches one cache line.
    entries: Box<[FastEntry]>,
    epoch: u32,
    /// The moves of `moves` that may give check, at a node of the winner
    /// (see [`NodeSink`]).
    checks: Vec<(Move, bool)>,
    /// The ordered moves of every node of the current line, one slice each.
    order: Vec<(i32, Move, bool)>,
    /// The exhaustive walk's memory.
    pub(crate) walk: Box<WalkScratch>,
}

#[derive(Clone, Copy, Default)]
struct FastEntry {
    key: u64,
    epoch: u32,
    depth: i32,
}

impl std::fmt::Debug for FastTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastTable").field("epoch", &self.epoch).finish_non_exhaustive()
    }
}

impl FastTable {
    const SIZE: usize = 1 << 14;

    pub(crate) fn new() -> FastTable {
        FastTable {
            entries: vec![FastEntry::default(); Self::SIZE].into_boxed_slice(),
            epoch: 0,
            checks: Vec::with_capacity(256),
            order: Vec::with_capacity(1024),
            walk: Box::default(),
        }
    }

    fn next_epoch(&mut self) {
        if self.epoch == u32::MAX {
            self.entries.fill(FastEntry::default());
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    /// `true` if `key` was expanded in this epoch with at least `depth` to go.
    #[inline]
    fn seen(&self, key: u64, depth: i32) -> bool {
        let e = &self.entries[key as usize & (Self::SIZE - 1)];
        e.key == key && e.epoch == self.epoch && e.depth >= depth
    }

    #[inline]
    fn store(&mut self, key: u64, depth: i32) {
        self.entries[key as usize & (Self::SIZE - 1)] = FastEntry { key, epoch: self.epoch, depth };
    }
}

/// A position on the exhaustive walk's current line and its moves,
/// `moves[next..end]` still to try (`moves[start..next]` tried).
pub(crate) struct WalkFrame {
    pos: Position,
    start: usize,
    next: usize,
    end: usize,
}

/// The exhaustive walk's memory: the set of the positions seen, the stack of
/// the current line and the moves of its nodes, the ordered moves of the
/// node being expanded. Kept by the thread (in its [`FastTable`]) from walk to
/// walk, so that a brief walk allocates nothing.
#[derive(Default)]
pub(crate) struct WalkScratch {
    seen: std::collections::HashSet<u64, BuildHasherDefault<KeyHasher>>,
    stack: Vec<WalkFrame>,
    moves: Vec<(i32, Move)>,
    keyed: Vec<(i32, Move, bool)>,
    order: Vec<(i32, i32, Move)>,
}

impl WalkScratch {
    /// Frees what a long walk left behind (a thorough analysis may have
    /// seen hundreds of thousands of positions), keeping enough for the
    /// brief walks.
    pub(crate) fn trim(&mut self) {
        const KEEP: usize = 1 << 13;
        if self.seen.capacity() > KEEP {
            self.seen = Default::default();
        }
        if self.stack.capacity() > KEEP {
            self.stack = Vec::new();
        }
        if self.moves.capacity() > 32 * KEEP {
            self.moves = Vec::new();
        }
        if self.keyed.capacity() > KEEP {
            self.keyed = Vec::new();
            self.order = Vec::new();
        }
    }
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

/// What [`Searcher::fast_expand`] leaves to do at a node.
enum Expanded {
    /// The node's answer.
    Done(bool),
    /// Its children, by the moves `tt.order[start..]`.
    Children { start: usize, loser_going: Option<Bitboard>, semi: bool },
}

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
    /// The squares the pieces head for (see [`Searcher::target`]).
    targets: [Square; 4],
    /// How many moves of the winner and of the loser the narrow search tries.
    widths: (usize, usize),
    /// The fast search prunes with the semi-static analysis after pawn
    /// moves and captures (as the full search does).
    pub(crate) statics: bool,
    /// How the mating corner is chosen.
    pub(crate) corners: Corners,
    /// The first lean searches of `can_mate`: the winner's pawn moves count
    /// as progress from a lower rank (see [`Searcher::pawn_progress_rank`]).
    pub(crate) first_tries: bool,
}

/// How [`Searcher::choose_corner`] chooses between the two corners of the
/// loser's back rank.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Corners {
    /// The corner of the colour the bishops need (as D3-Chess).
    ByBishops,
    /// With a queen or a rook of the winner, the corner nearest the loser's
    /// king, on any rank (ties go to the loser's back rank); otherwise as
    /// `ByBishops` if the winner has a bishop, else the corner of that rank
    /// nearer the loser's king (the colour only matters for the winner's
    /// bishops: on the lichess sample the lean search then finds its
    /// witness in fewer nodes).
    Nearer,
    /// The next nearest corner with a queen or a rook, otherwise the other
    /// corner of that rank than `Nearer` (a second try).
    Farther,
}

/// Knight distance between two squares (capped at 6).
#[inline(always)]
fn knight_distance(a: Square, b: Square) -> u32 {
    u32::from(KNIGHT_DISTANCE[a.index()][b.index()])
}

/// Knight distances between all squares (6 for 6 or more), computed at
/// compile time: the move orders read it for every move, so it should cost
/// one load, not a lazy initialisation check.
static KNIGHT_DISTANCE: [[u8; 64]; 64] = knight_distance_table();

const fn knight_distance_table() -> [[u8; 64]; 64] {
    const JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)];
    let mut t = [[6u8; 64]; 64];
    let mut from = 0;
    while from < 64 {
        t[from][from] = 0;
        // Relax distance d into d + 1, for d up to 4 (so up to 5 is exact).
        let mut d = 0u8;
        while d < 5 {
            let mut sq = 0;
            while sq < 64 {
                if t[from][sq] == d {
                    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
                    let mut k = 0;
                    while k < 8 {
                        let (nf, nr) = (f + JUMPS[k].0, r + JUMPS[k].1);
                        if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                            let n = (nr * 8 + nf) as usize;
                            if t[from][n] > d + 1 {
                                t[from][n] = d + 1;
                            }
                        }
                        k += 1;
                    }
                }
                sq += 1;
            }
            d += 1;
        }
        from += 1;
    }
    t
}

/// The number of squares of `set`, all of them `centre` or its neighbours:
/// the 3×3 block is rotated to the board's corner, its three rows packed
/// into nine bits and counted by a table (the crate is built for the
/// baseline x86-64, whose population count is a dozen instructions: the
/// move orders count for every move of the winner).
#[inline(always)]
fn block_count(set: Bitboard, centre: Square) -> i32 {
    // Square `centre + d` (d from -9 to 9) goes to bit `d + 9`.
    let y = set.0.rotate_right((centre.index() as u32).wrapping_sub(9) & 63);
    let nine = (y & 7) | ((y >> 5) & 0o70) | ((y >> 10) & 0o700);
    i32::from(NINE_BIT_COUNTS[nine as usize])
}

/// Population counts of the numbers below 512.
static NINE_BIT_COUNTS: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut i = 0;
    while i < 512 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// The squares nearer `target` than `from` (king steps: `distance`).
#[inline(always)]
fn nearer(target: Square, from: Square) -> Bitboard {
    Bitboard(NEARER[target.index()][from.distance(target) as usize])
}

/// `NEARER[t][d]`: the squares at a king distance below `d` from `t` (the
/// box of side `2d - 1` around it), computed at compile time.
static NEARER: [[u64; 8]; 64] = {
    let mut t = [[0u64; 8]; 64];
    let mut c = 0usize;
    while c < 64 {
        let mut d = 1;
        while d < 8 {
            let mut sq = 0usize;
            while sq < 64 {
                let df = ((sq % 8) as i32 - (c % 8) as i32).abs();
                let dr = ((sq / 8) as i32 - (c / 8) as i32).abs();
                if df < d && dr < d {
                    t[c][d as usize] |= 1 << sq;
                }
                sq += 1;
            }
            d += 1;
        }
        c += 1;
    }
    t
};

/// Facts about a node that the narrow search's move scores depend on.
struct ScoreContext {
    winners_turn: bool,
    /// The loser's king on the winner's turn, the mover's own king otherwise.
    king: Square,
    /// On the winner's turn the loser king's square and neighbours; on the
    /// loser's turn its king's neighbours.
    zone: Bitboard,
    /// The winner's queens and the squares they attack (on its turn).
    queens: Bitboard,
    queen_rays: Bitboard,
}

impl ScoreContext {
    fn new(pos: &Position, winner: Color) -> ScoreContext {
        let b = pos.board();
        if pos.turn() == winner {
            let king = pos.king(winner.other());
            let queens = b.queens() & b.by_color(winner);
            let mut queen_rays = Bitboard::EMPTY;
            for q in queens {
                queen_rays |= queen_attacks(q, b.occupied());
            }
            ScoreContext { winners_turn: true, king, zone: king_attacks(king).with(king), queens, queen_rays }
        } else {
            let king = pos.king(pos.turn());
            ScoreContext {
                winners_turn: false,
                king,
                zone: king_attacks(king),
                queens: Bitboard::EMPTY,
                queen_rays: Bitboard::EMPTY,
            }
        }
    }
}

/// Facts about a node that the move costs depend on.
struct NodeContext {
    need_loser_promotion: bool,
    pawns_and_bishops: bool,
    semi_blocked: Option<Square>,
    was_semi_blocked: bool,
}

/// `true` if some file has pawns of one colour only (pawns on their last
/// two ranks aside), as in D3-Chess: such a pawn may still run.
fn lonely_pawns(white: Bitboard, black: Bitboard) -> bool {
    let files = |bb: Bitboard| bb.iter().fold(0u8, |acc, s| acc | (1 << s.file().index()));
    let w = white & Bitboard(0x00ff_ffff_ffff_ffff);
    let b = black & Bitboard(0xffff_ffff_ffff_ff00);
    files(w - Bitboard(0x00ff_0000_0000_0000)) != files(b - Bitboard(0x0000_0000_0000_ff00))
}

/// What the fast search's move order at a node depends on (see
/// `Searcher::order_into`).
struct OrderEnv<'a> {
    pos: &'a Position,
    ctx: &'a NodeContext,
    occ: Bitboard,
    /// The pieces of the side not to move.
    theirs: Bitboard,
    zone: Bitboard,
    /// As `ScoreContext::king`.
    king: Square,
    /// Where the mover's king heads for.
    t_king: Square,
    /// Knight distances to where the mover's other pieces head for, and to
    /// `king`.
    kd_target: &'a [u8; 64],
    kd_king: &'a [u8; 64],
    /// King distances to `king`.
    d_king: &'a [u8; 64],
    queens: Bitboard,
    queen_rays: Bitboard,
    past_progress: bool,
    depth: i32,
    /// The winner's ranks of pawn progress (see [`Searcher::advanced_ranks`]).
    advanced: Bitboard,
}

/// Distance to the nearest edge (0 on the edge), from a table.
#[inline(always)]
fn edge_distance(s: Square) -> u32 {
    u32::from(EDGE_DISTANCE[s.index()])
}

static EDGE_DISTANCE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut s = 0;
    while s < 64 {
        let (f, r) = (s % 8, s / 8);
        let mut d = f;
        if 7 - f < d {
            d = 7 - f;
        }
        if r < d {
            d = r;
        }
        if 7 - r < d {
            d = 7 - r;
        }
        t[s] = d as u8;
        s += 1;
    }
    t
};

/// King distances between all squares, computed at compile time (the move
/// orders read the distance to a king for every move).
static KING_DISTANCE: [[u8; 64]; 64] = {
    let mut t = [[0u8; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let df = ((a % 8) as i32 - (b % 8) as i32).abs();
            let dr = ((a / 8) as i32 - (b / 8) as i32).abs();
            t[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    t
};

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
            targets: Searcher::targets_of(Square::H8),
            widths: (4, 3),
            statics: false,
            corners: Corners::ByBishops,
            first_tries: false,
        }
    }

    /// Plays a winner's move that checkmates at once, if there is one.
    fn mate_in_one(&mut self, pos: &Position) -> bool {
        let mut list = MoveList::new();
        pos.legal_moves_into(&mut list);
        self.mate_in_one_among(pos, &list)
    }

    /// As [`Searcher::mate_in_one`], among the legal moves `list` of `pos`.
    /// Only moves that can give check are played: direct checks, moves of a
    /// piece that stands alone between the loser's king and a winner's slider
    /// (discovered checks), promotions, castling and en passant.
    fn mate_in_one_among(&mut self, pos: &Position, list: &MoveList) -> bool {
        match checkmating_move(pos, list) {
            Some(m) => {
                self.line.push(m);
                true
            }
            None => false,
        }
    }

    /// How many squares of `zone` (the loser's king on `centre` and its
    /// neighbours) a winner's `role` on `sq` attacks.
    #[inline]
    fn zone_hits(&self, role: Role, sq: Square, occ: Bitboard, zone: Bitboard, centre: Square) -> i32 {
        let a = match role {
            Role::Pawn => pawn_attacks(self.winner, sq),
            Role::Knight => knight_attacks(sq),
            Role::Bishop => bishop_attacks(sq, occ),
            Role::Rook => rook_attacks(sq, occ),
            Role::Queen => queen_attacks(sq, occ),
            Role::King => king_attacks(sq),
        };
        block_count(a & zone, centre)
    }

    /// Heuristic order of a move for the narrow search (higher first),
    /// without playing it: the winner's pieces should attack more of the
    /// loser king's neighbourhood, the loser's pieces should fill it and
    /// never capture. `role` is the moving piece's, `from_hits` (on the
    /// winner's turn) how many squares of the zone it attacks from `from`.
    #[inline]
    fn score_piece(&self, pos: &Position, cx: &ScoreContext, m: Move, role: Role, from_hits: i32) -> i32 {
        let b = pos.board();
        let from = m.from();
        let to = m.to();
        let capture = b.occupied().contains(to) && !m.is_castle();
        if cx.winners_turn {
            let lk = cx.king;
            let zone = cx.zone;
            let occ_after = b.occupied().without(from).with(to);
            let mut gain = self.zone_hits(role, to, occ_after, zone, lk) - from_hits;
            // Lines opened for the queens (a pawn freeing the queen).
            if cx.queen_rays.contains(from) {
                for q in cx.queens.without(from) {
                    let before = queen_attacks(q, b.occupied()).count() as i32;
                    let after = queen_attacks(q, occ_after).count() as i32;
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
            let zone = cx.zone;
            let own_king = cx.king;
            let mut s = if capture { -20 } else { 0 };
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
    /// `checked`: the mate-in-one test of this node was done already.
    fn narrow(&mut self, pos: &Position, plies: u32, limit: u64, checked: bool) -> bool {
        if self.nodes >= limit {
            return false;
        }
        self.nodes += 1;
        let winners_turn = pos.turn() == self.winner;
        if (winners_turn && plies <= 1) || plies == 0 {
            // Only the mate-in-one test is left to do here.
            return winners_turn && !checked && self.mate_in_one(pos);
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return false;
        }
        if winners_turn && !checked && self.mate_in_one_among(pos, &moves) {
            return true;
        }
        let width = if winners_turn { self.widths.0 } else { self.widths.1 };
        let cx = ScoreContext::new(pos, self.winner);
        // Keep the best `width` moves by score, best first (insertion into a
        // tiny array: no allocation, no full sort).
        let mut best: [(i32, Move); 4] = [(i32::MIN, moves[0]); 4];
        // Moves come grouped by piece: the piece's role and its hits from
        // its square are worked out once per piece.
        let b = pos.board();
        let mut last_from = None;
        let mut role = Role::Pawn;
        let mut from_hits = 0;
        for &m in moves.iter() {
            if last_from != Some(m.from()) {
                last_from = Some(m.from());
                role = b.role_at(m.from()).unwrap_or(Role::Pawn);
                if winners_turn {
                    from_hits = self.zone_hits(role, m.from(), b.occupied(), cx.zone, cx.king);
                }
            }
            let sc = self.score_piece(pos, &cx, m, role, from_hits);
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
            if self.narrow(&pos.after(m), plies - 1, limit, false) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Runs the narrow search up to `max_moves` winner moves deep within
    /// `limit` nodes, trying the best `widths` moves of the winner and the
    /// loser at each node; with `deepening`, one winner move deep first,
    /// then two, and so on. On success the witness is in `self.line`.
    pub(crate) fn quick_witness(
        &mut self,
        pos: &Position,
        max_moves: u32,
        limit: u64,
        widths: (usize, usize),
        deepening: bool,
    ) -> bool {
        self.widths = (widths.0.clamp(1, 4), widths.1.clamp(1, 4));
        let base = self.line.len();
        let winner_to_move = pos.turn() == self.winner;
        let stop = self.nodes + limit;
        // With the winner to move, the root's mate-in-one test is done once,
        // and the one-move pass is nothing more than that test.
        if winner_to_move && self.mate_in_one(pos) {
            return true;
        }
        self.nodes += u64::from(winner_to_move);
        let first = if deepening { 1 + u32::from(winner_to_move) } else { max_moves };
        for n in first..=max_moves {
            let plies = if winner_to_move { 2 * n - 1 } else { 2 * n };
            if self.narrow(pos, plies, stop, winner_to_move) {
                return true;
            }
            self.line.truncate(base);
        }
        false
    }

    /// Picks the mating corner, on the loser's back rank: a dark one if the
    /// winner has a dark-squared bishop, or has no bishop while the loser has
    /// a light-squared one; a light one otherwise. With
    /// [`Searcher::corners`] the choice may go to the other corner of that
    /// rank, or to a corner of any rank (see [`Corners`]).
    pub(crate) fn choose_corner(&mut self, pos: &Position) {
        let b = pos.board();
        let wb = b.bishops() & b.by_color(self.winner);
        let lb = b.bishops() & b.by_color(self.winner.other());
        let dark =
            (wb & Bitboard::DARK_SQUARES).any() || (wb.is_empty() && (lb & Bitboard::LIGHT_SQUARES).any());
        // Seen from White as the winner: h8 is dark, a8 light.
        let corner = if dark { Square::H8 } else { Square::A8 };
        self.corner = if self.winner.is_white() { corner } else { Square::new(corner.index() as u32 ^ 63) };
        let other = Square::new(self.corner.index() as u32 ^ 7);
        let lk = pos.king(self.winner.other());
        // With a queen or a rook the colour of the corner hardly matters:
        // the corner nearest the loser's king, on any rank.
        let heavy = (b.by_color(self.winner) & (b.queens() | b.rooks())).any();
        if heavy && self.corners != Corners::ByBishops {
            let back = self.winner.other().back_rank();
            let mut corners = [Square::A1, Square::H1, Square::A8, Square::H8];
            corners.sort_by_key(|c| (c.distance(lk), c.rank() != back, c.index()));
            self.corner = if self.corners == Corners::Nearer { corners[0] } else { corners[1] };
        } else {
            let nearer = wb.is_empty() && other.distance(lk) < self.corner.distance(lk);
            let flip = match self.corners {
                Corners::ByBishops => false,
                Corners::Nearer => nearer,
                Corners::Farther => !nearer,
            };
            if flip {
                self.corner = other;
            }
        }
        // When only a promotion of the loser can give a lone knight a mate,
        // the mate happens where the promoted piece can block: in a corner of
        // the loser's promotion rank, on the side of its most advanced pawn.
        // (Bishops keep the corner of their colour.)
        let loser = self.winner.other();
        let pawns = b.pawns() & b.by_color(loser);
        if wb.is_empty() && pawns.any() && self.need_loser_promotion(pos) {
            let lead = pawns.iter().max_by_key(|p| p.rank().relative_to(loser)).unwrap_or(Square::A1);
            let file = if lead.file().index() < 4 { crate::types::File::A } else { crate::types::File::H };
            self.corner = Square::from_coords(file, loser.other().back_rank());
        }
        self.targets = Searcher::targets_of(self.corner);
    }

    /// The square a piece of `role` heads for: for the winner, its king two
    /// squares in front of the corner and its other pieces the corner; for
    /// the loser, its king the corner and its other pieces the square next to
    /// it on the back rank (to block the king's flight).
    /// The corner chosen last (see [`Searcher::choose_corner`]).
    pub(crate) fn corner(&self) -> Square {
        self.corner
    }

    #[inline]
    fn target(&self, winners_turn: bool, role: Role) -> Square {
        self.targets[usize::from(winners_turn) * 2 + usize::from(role == Role::King)]
    }

    /// The targets of [`Searcher::target`] for the mating corner `c`, by
    /// `[winner's turn][king]` (worked out when the corner is chosen, not at
    /// every node).
    fn targets_of(c: Square) -> [Square; 4] {
        let toward_centre_file = if c.file().index() == 0 { 1 } else { -1 };
        let toward_centre_rank = if c.rank().index() == 0 { 8 } else { -8 };
        [c.offset(toward_centre_file).unwrap_or(c), c, c, c.offset(2 * toward_centre_rank).unwrap_or(c)]
    }

    /// Depth cost of a move in the full search, in the style of D3-Chess:
    /// `(cost, progress)`. Progress moves (the winner's captures, pawn moves
    /// to its 6th rank or beyond, and kings and knights closing in on their
    /// targets; the loser's kings and knights doing the same, and its pawn
    /// moves when only a promotion of the loser can give the winner a mate)
    /// cost 0, and so does any move answering one; the loser's captures cost
    /// 3; everything else 1. Only the shape of the search depends on it,
    /// never the soundness of its answers.
    /// (`role`: the moving piece's.)
    #[inline]
    fn cost_with(&self, pos: &Position, m: Move, role: Role, ctx: &NodeContext) -> (i32, bool) {
        const REWARD: (i32, bool) = (0, true);
        const PUNISH: (i32, bool) = (3, false);
        let b = pos.board();
        let from = m.from();
        let to = m.to();
        let winners_turn = pos.turn() == self.winner;
        let target = self.target(winners_turn, role);
        let going = |bishops: bool| match role {
            Role::King => to.distance(target) < from.distance(target),
            Role::Bishop if bishops => to.distance(target) < from.distance(target),
            Role::Knight => knight_distance(to, target) < knight_distance(from, target),
            _ => false,
        };
        let capture = pos.is_capture(m);
        let mut v = (1, false);
        if winners_turn {
            let advanced = role == Role::Pawn && to.rank().relative_to(self.winner) >= Rank::Sixth;
            if advanced || capture || going(false) {
                v = REWARD;
            }
        } else {
            if ctx.need_loser_promotion {
                let heavy = m.promotion_role() == Some(Role::Queen);
                v = if role == Role::Pawn && !heavy { REWARD } else { PUNISH };
            }
            if going(false) {
                v = REWARD;
            } else if capture {
                v = PUNISH;
            }
        }
        if ctx.pawns_and_bishops {
            if ctx.semi_blocked.is_some() || ctx.was_semi_blocked {
                if capture && winners_turn {
                    v = REWARD;
                } else if role == Role::King {
                    v = (1, false);
                    if ctx.semi_blocked.is_some_and(|t| to.distance(t) < from.distance(t)) {
                        v = REWARD;
                    }
                } else {
                    v = PUNISH;
                }
            } else if going(true) && (b.bishops() & b.by_color(self.winner.other())).more_than_one() {
                v = REWARD;
            }
        }
        v
    }

    /// The rank from which a move of the winner's pawn (to that rank or
    /// beyond) makes progress: its 6th, as in D3-Chess; in the first lean
    /// searches (see [`Searcher::first_tries`]) its 4th when the winner has
    /// a rook but no queen, and every rank when it has neither (then its
    /// mate mostly needs a promoted pawn, which otherwise walks up at a ply
    /// of depth a step: on the lichess sample this made the average query
    /// some 15% cheaper).
    pub(crate) fn pawn_progress_rank(&self, pos: &Position) -> Rank {
        if !self.first_tries {
            return Rank::Sixth;
        }
        let b = pos.board();
        let ours = b.by_color(self.winner);
        if (ours & b.queens()).any() {
            Rank::Sixth
        } else if (ours & b.rooks()).any() {
            Rank::Fourth
        } else {
            Rank::First
        }
    }

    /// The winner's ranks from [`Searcher::pawn_progress_rank`] on: its pawn
    /// moves to them make progress.
    #[inline]
    fn advanced_ranks(&self, pos: &Position) -> Bitboard {
        let from_rank = 8 * self.pawn_progress_rank(pos).index();
        Bitboard(if self.winner.is_white() { u64::MAX << from_rank } else { u64::MAX >> from_rank })
    }

    /// Whether only a promotion of the loser can give the winner a mate
    /// (the winner has K+N against no minor piece or rook, or same-coloured
    /// bishops only with no other-coloured bishop and no loser knight).
    pub(crate) fn need_loser_promotion(&self, pos: &Position) -> bool {
        let b = pos.board();
        let ours = b.by_color(self.winner);
        let theirs = b.by_color(self.winner.other());
        // (Every condition evaluated, without short cuts: it is asked at
        // every node, and a first search of a position mispredicts such
        // branches.)
        let knight = ours.exactly_two()
            & (ours & b.knights()).any()
            & (theirs & (b.knights() | b.bishops() | b.rooks())).is_empty();
        let wb = ours & b.bishops();
        let colour = if (wb & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        // (Bishops and the king only.)
        let bishops =
            (ours - wb).exactly_one() & (b.bishops() - colour).is_empty() & (theirs & b.knights()).is_empty();
        knight | bishops
    }

    /// The facts of a node that the move costs depend on
    /// (`was_semi_blocked`: the parent was in a semi-blocked structure).
    fn node_context(&self, pos: &Position, was_semi_blocked: bool) -> NodeContext {
        let b = pos.board();
        let pawns_and_bishops = (b.knights() | b.rooks() | b.queens()).is_empty() && {
            let wp = b.pawns() & b.by_color(Color::White);
            let bp = b.pawns() & b.by_color(Color::Black);
            (wp.forward(Color::White) & bp).count() >= 4 && !lonely_pawns(wp, bp)
        };
        let semi_blocked = if pawns_and_bishops {
            let wp = b.pawns() & b.by_color(Color::White);
            let bp = b.pawns() & b.by_color(Color::Black);
            (wp.forward(Color::White) & bp.forward(Color::Black)).first()
        } else {
            None
        };
        NodeContext {
            need_loser_promotion: pos.turn() != self.winner && self.need_loser_promotion(pos),
            pawns_and_bishops,
            semi_blocked,
            was_semi_blocked: pawns_and_bishops && was_semi_blocked,
        }
    }

    /// What the fast search's move order at a node depends on (see
    /// [`Searcher::order_into`]).
    fn order_env<'e>(
        &self,
        pos: &'e Position,
        ctx: &'e NodeContext,
        cx: &ScoreContext,
        past_progress: bool,
        depth: i32,
    ) -> OrderEnv<'e> {
        let b = pos.board();
        let winners_turn = cx.winners_turn;
        let t_other = self.target(winners_turn, Role::Knight);
        OrderEnv {
            pos,
            ctx,
            occ: b.occupied(),
            theirs: b.by_color(pos.turn().other()),
            zone: cx.zone,
            king: cx.king,
            t_king: self.target(winners_turn, Role::King),
            kd_target: &KNIGHT_DISTANCE[t_other.index()],
            kd_king: &KNIGHT_DISTANCE[cx.king.index()],
            d_king: &KING_DISTANCE[cx.king.index()],
            queens: cx.queens,
            queen_rays: cx.queen_rays,
            past_progress,
            depth,
            advanced: self.advanced_ranks(pos),
        }
    }

    /// The fast search's move order at a node: pushes `(key, move,
    /// progress)` onto `out` for every move of `moves` (the legal moves of
    /// `pos`, grouped by piece as the generator lists them) that `depth`
    /// does not cut, the key ordering the cheapest first, then the best
    /// scored, with the cost in its low two bits. The same order as
    /// [`Searcher::cost_with`] and [`Searcher::score_piece`] give move by
    /// move (but for the ranks of [`Searcher::pawn_progress_rank`]), with
    /// what depends only on the node or the moving piece worked
    /// out once, and one loop per side and kind of piece (see
    /// [`Searcher::order_piece`]): this is most of the work of a node (some
    /// twenty moves each). Returns `true` if a move was cut by depth.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn order_into(
        &self,
        pos: &Position,
        moves: &[Move],
        ctx: &NodeContext,
        cx: &ScoreContext,
        past_progress: bool,
        depth: i32,
        out: &mut Vec<(i32, Move, bool)>,
    ) -> bool {
        let b = pos.board();
        let winners_turn = cx.winners_turn;
        let env = self.order_env(pos, ctx, cx, past_progress, depth);
        let mut cut = false;
        let mut i = 0;
        while i < moves.len() {
            let from = moves[i].from();
            let mut j = i + 1;
            while j < moves.len() && moves[j].from() == from {
                j += 1;
            }
            let group = &moves[i..j];
            i = j;
            let role = b.role_at(from).unwrap_or(Role::Pawn);
            let group = group.iter().copied();
            cut |= match (winners_turn, role) {
                (true, Role::Pawn) => self.order_piece::<true, 0>(&env, from, group, out),
                (true, Role::Knight) => self.order_piece::<true, 1>(&env, from, group, out),
                (true, Role::Bishop) => self.order_piece::<true, 2>(&env, from, group, out),
                (true, Role::Rook) => self.order_piece::<true, 3>(&env, from, group, out),
                (true, Role::Queen) => self.order_piece::<true, 4>(&env, from, group, out),
                (true, Role::King) => self.order_piece::<true, 5>(&env, from, group, out),
                (false, Role::Pawn) => self.order_piece::<false, 0>(&env, from, group, out),
                (false, Role::Knight) => self.order_piece::<false, 1>(&env, from, group, out),
                (false, Role::Bishop | Role::Rook | Role::Queen) => {
                    self.order_piece::<false, 2>(&env, from, group, out)
                }
                (false, Role::King) => self.order_piece::<false, 5>(&env, from, group, out),
            };
        }
        cut
    }

    /// [`Searcher::order_into`] for the moves of one piece, on the winner's
    /// turn (`W`) or the loser's, for a piece of role `R` (`Role as u8`; on
    /// the loser's turn 2 stands for any slider, whose moves it scores
    /// alike). With the side and the role constant, the loop has no branch
    /// on them (a mispredicted branch per move was a good part of its cost).
    #[inline(always)]
    fn order_piece<const W: bool, const R: u8>(
        &self,
        e: &OrderEnv<'_>,
        from: Square,
        moves: impl IntoIterator<Item = Move>,
        out: &mut Vec<(i32, Move, bool)>,
    ) -> bool {
        let role = Role::ALL[R as usize];
        let from_hits = if W { self.zone_hits(role, from, e.occ, e.zone, e.king) } else { 0 };
        let king_nearer = if R == 5 { nearer(e.t_king, from) } else { Bitboard::EMPTY };
        let kd_from = e.kd_target[from.index()];
        let from_king = i32::from(e.d_king[from.index()]);
        let kd_from_king = i32::from(e.kd_king[from.index()]);
        let on_queen_ray = W && e.queen_rays.contains(from);
        let zone_from = e.zone.contains(from);
        let edge_from = edge_distance(from) as i32;
        let mut cut = false;
        for m in moves {
            let to = m.to();
            // A castling move lands on its own rook: never a capture.
            let capture = e.theirs.contains(to);
            let (mut cost, progress) = if e.ctx.pawns_and_bishops {
                self.cost_with(e.pos, m, role, e.ctx)
            } else {
                let going = match role {
                    Role::King => king_nearer.contains(to),
                    Role::Knight => e.kd_target[to.index()] < kd_from,
                    _ => false,
                };
                // (Worked out with arithmetic rather than branches: these
                // conditions change from move to move, and a first search of
                // a position mispredicts such branches.)
                let takes = capture | (role == Role::Pawn && m.is_en_passant());
                if W {
                    let free = (role == Role::Pawn && e.advanced.contains(to)) | takes | going;
                    (i32::from(!free), free)
                } else if e.ctx.need_loser_promotion && !going && !takes {
                    let heavy = role == Role::Pawn && m.promotion_role() == Some(Role::Queen);
                    if role == Role::Pawn && !heavy { (0, true) } else { (3, false) }
                } else {
                    // Going: 0; a capture: 3; otherwise 1.
                    (i32::from(!going) * (1 + 2 * i32::from(takes)), going)
                }
            };
            // After progress, a move of cost 1 is free.
            cost *= i32::from(!(e.past_progress & (cost == 1)));
            if e.depth - cost <= 0 {
                // Cut by depth (a winner's mate here was found by the node's
                // mate-in-one test).
                cut = true;
                continue;
            }
            let score = if W {
                let occ_after = e.occ.without(from).with(to);
                let mut gain = self.zone_hits(role, to, occ_after, e.zone, e.king) - from_hits;
                // Lines opened for the queens (a pawn freeing the queen).
                if on_queen_ray {
                    for q in e.queens.without(from) {
                        let before = queen_attacks(q, e.occ).count() as i32;
                        let after = queen_attacks(q, occ_after).count() as i32;
                        gain += (after - before).max(0);
                    }
                }
                let closer = from_king - i32::from(e.d_king[to.index()]);
                let mut s = if role == Role::Pawn {
                    match m.promotion_role() {
                        Some(Role::Queen) => 50,
                        Some(_) => -50,
                        None => 0,
                    }
                } else {
                    0
                };
                s -= 3 * i32::from(capture & e.zone.contains(to));
                s + match role {
                    Role::King => closer - 2,
                    Role::Knight => 4 * gain + 2 * (kd_from_king - i32::from(e.kd_king[to.index()])),
                    Role::Queen => 2 + 4 * gain + closer,
                    _ => 4 * gain + closer,
                }
            } else {
                let mut s = -20 * i32::from(capture);
                if role == Role::King {
                    s += 2 * (edge_from - edge_distance(to) as i32) - 1;
                } else if role == Role::Pawn {
                    if from_king <= 2 {
                        s += 5 + i32::from(from.distance(to) == 2);
                    }
                } else {
                    let zone_to = e.zone.contains(to);
                    s += 6 * i32::from(zone_to & !zone_from) - 4 * i32::from(zone_from & !zone_to);
                }
                s
            };
            let score = score.clamp(-999, 999);
            out.push(((cost * 2048 - score) * 4 + cost, m, progress));
        }
        cut
    }

    /// The legal moves of `pos`, ordered onto `out` as the generator finds
    /// them (see [`NodeSink`]), `env` being the node's
    /// ([`Searcher::order_env`]). On the winner's turn with `filter` (its
    /// [`CheckFilter`]; every move and no check without), unless `all`, only those a node one ply above the
    /// depth limit with no progress just made needs, in the ordinary case
    /// (no blocked pawns and bishops): those its mate-in-one test and its
    /// moves of cost 0 need; its moves that may give check also go to
    /// `checks`. On the loser's turn, with `king_and_knights`, only its
    /// king's and knights' moves. Returns whether a legal move exists,
    /// whether one was left out (then some move is cut by depth), and
    /// whether one was cut by depth.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn node_moves(
        &self,
        pos: &Position,
        env: &OrderEnv<'_>,
        filter: Option<&CheckFilter>,
        all: bool,
        king_and_knights: bool,
        out: &mut Vec<(i32, Move, bool)>,
        checks: &mut Vec<(Move, bool)>,
    ) -> (bool, bool, bool) {
        let b = pos.board();
        if pos.turn() != self.winner {
            let mut sink = NodeSink::<false>::keeping_all(self, env, out, checks, b, Bitboard::EMPTY);
            if king_and_knights {
                pos.king_and_knight_moves(&mut sink);
            } else {
                pos.generate(&mut sink);
            }
            return (sink.any, false, sink.cut);
        }
        let us = self.winner;
        let theirs = b.by_color(us.other());
        let ours = b.by_color(us);
        let Some(filter) = filter else {
            // Every legal move, none recorded as a check.
            let mut sink = NodeSink::<true>::keeping_all(self, env, out, checks, b, b.queens() & ours);
            pos.generate(&mut sink);
            return (sink.any, false, sink.cut);
        };
        let king = pos.king(us);
        let t_king = self.target(true, Role::King);
        let king_keep = theirs | (king_attacks(king) & nearer(t_king, king));
        let advanced = self.advanced_ranks(pos);
        let lines = filter.diag | filter.straight;
        let or_all = |bb: Bitboard| if all { Bitboard::FULL } else { bb };
        let mut sink = NodeSink::<true> {
            record_checks: true,
            special: filter.special,
            king_keep: or_all(king_keep),
            knight_keep: or_all(filter.knight | theirs),
            kd_target: &KNIGHT_DISTANCE[self.target(true, Role::Knight).index()],
            queen_keep: or_all(lines | theirs),
            bishop_keep: or_all(filter.diag | theirs),
            rook_keep: or_all(filter.straight | theirs),
            pawn_keep: or_all(filter.pawn | theirs | advanced),
            check_squares: [filter.pawn, filter.knight, filter.diag, filter.straight, lines, Bitboard::EMPTY],
            ..NodeSink::keeping_all(self, env, out, checks, b, b.queens() & ours)
        };
        pos.generate(&mut sink);
        (sink.any, sink.dropped, sink.cut)
    }

    /// At a node of the winner (`ctx` its context), in the ordinary case
    /// (pieces other than pawns and bishops on the board, no promotion of the
    /// loser needed, no castling right of the loser, no knight of the loser
    /// with a square nearer its target that its own pieces leave free): the
    /// squares next to the loser's king nearer its target that its own
    /// pieces leave free. A move of the winner that captures nothing changes
    /// none of this, so after it the loser, one ply above the depth limit
    /// with no progress just made, is cut by depth at once (its only moves
    /// of cost 0 are its king's and knights' towards their targets) unless
    /// its king can go to one of these squares: if none is left, or the
    /// winner attacks them all after its move, that node of the loser need
    /// not be searched (it could only matter by being checkmated, which the
    /// winner's mate-in-one test has looked at already). `None` otherwise.
    fn loser_going_squares(&self, pos: &Position, ctx: &NodeContext) -> Option<Bitboard> {
        let b = pos.board();
        let loser = self.winner.other();
        let theirs = b.by_color(loser);
        if ctx.pawns_and_bishops
            || (b.knights() | b.rooks() | b.queens()).is_empty()
            || (pos.castling & theirs).any()
            || self.need_loser_promotion(pos)
        {
            return None;
        }
        let kd = &KNIGHT_DISTANCE[self.target(false, Role::Knight).index()];
        if (b.knights() & theirs)
            .iter()
            .any(|n| (knight_attacks(n) - theirs).iter().any(|to| kd[to.index()] < kd[n.index()]))
        {
            return None;
        }
        let king = pos.king(loser);
        let t_king = self.target(false, Role::King);
        Some((king_attacks(king) - theirs) & nearer(t_king, king))
    }

    /// After a move of the winner that makes no progress from a node where
    /// [`Searcher::loser_going_squares`] gave `going`: `true` if the winner
    /// attacks all of those squares in `child` (then the loser's king cannot
    /// go towards its target, nor can its knights).
    #[inline]
    fn loser_cut(&self, child: &Position, going: Bitboard) -> bool {
        let occ = child.board().occupied().without(child.king(child.turn()));
        going.iter().all(|sq| child.attackers_to(sq, self.winner, occ).any())
    }

    /// One node of the fast search: the depth-shaped search of
    /// [`Searcher::full`] (same costs, same order, but for
    /// [`Searcher::first_tries`]), made lean for the fast
    /// path. The semi-static analysis is left out; no position at the depth
    /// limit is expanded (a winner's move into one could only matter by
    /// mating, and the node's mate-in-one test has looked at those already);
    /// the ordered moves live on one stack shared by all nodes; the
    /// transposition table is `tt`. A search that ends without any branch cut
    /// has still seen every line, so "no mate" is then a proof.
    #[allow(clippy::too_many_arguments)]
    fn fast(
        &mut self,
        pos: &Position,
        depth: i32,
        past_progress: bool,
        was_semi_blocked: bool,
        check_static: bool,
        tt: &mut FastTable,
    ) -> bool {
        if self.line.len() >= MAX_PLY {
            self.interrupted = true;
            return false;
        }
        let key = pos.zobrist();
        if tt.seen(key, depth) || has_insufficient_material(pos, self.winner) {
            return false;
        }
        if self.nodes >= self.budget {
            self.interrupted = true;
            return false;
        }
        let (start, loser_going, semi) =
            match self.fast_expand(pos, key, depth, past_progress, was_semi_blocked, check_static, tt) {
                Expanded::Done(found) => return found,
                Expanded::Children { start, loser_going, semi } => (start, loser_going, semi),
            };
        let end = tt.order.len();
        if self.fast_children(pos, start, end, depth, loser_going, semi, tt) {
            tt.order.truncate(start);
            return true;
        }
        tt.order.truncate(start);
        false
    }

    /// The expansion of a node of [`Searcher::fast`] (`key` its key): its
    /// moves ordered onto `tt.order`, its mate-in-one test. Kept out of
    /// `fast` so that what it needs only there (the move order's context,
    /// the move generator's and the test's) does not stay on the stack
    /// while the children are searched: each ply of a line would hold it,
    /// and a line of some twenty plies took more stack than the first-level
    /// data cache held beside the rest.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fast_expand(
        &mut self,
        pos: &Position,
        key: u64,
        depth: i32,
        past_progress: bool,
        was_semi_blocked: bool,
        check_static: bool,
        tt: &mut FastTable,
    ) -> Expanded {
        let winners_turn = pos.turn() == self.winner;
        let ctx = self.node_context(pos, was_semi_blocked);
        // At the depth limit's nodes (nearly all of them) only some moves
        // are needed; a move left out is a move cut by depth.
        // At a winner's node one or two plies above the depth limit, the
        // squares the loser's king could go to after a move of the winner
        // that makes no progress (see `Searcher::loser_going_squares`): if
        // there are none, only the moves the node would need one ply above
        // the depth limit with no progress just made are generated.
        // (One ply above it with no progress just made, every move searched
        // makes progress.)
        let loser_going = if winners_turn && (depth == 2 || (depth == 1 && past_progress)) {
            self.loser_going_squares(pos, &ctx)
        } else {
            None
        };
        let stuck = loser_going == Some(Bitboard::EMPTY);
        let shallow = depth == 1 && (!past_progress || stuck) && !ctx.pawns_and_bishops;
        let filter = winners_turn.then(|| CheckFilter::new(pos));
        let cx = ScoreContext::new(pos, self.winner);
        let start = tt.order.len();
        // At a node of the loser: whether a move goes towards its target.
        let mut going = true;
        tt.checks.clear();
        let env = self.order_env(pos, &ctx, &cx, past_progress, depth);
        // At such a node of the loser, in the ordinary case (no blocked
        // pawns and bishops, no promotion needed), only the moves of cost 0
        // are searched: its king's and knights' moves towards their
        // targets. Their king's and knights' moves are ordered first (those
        // kept, of cost 0, going towards the target); if one of them does
        // not go towards its target, some move is cut by depth whatever the
        // other pieces can do, and the moves kept are all the node needs, in
        // the order of the full list (so the search and its answers are the
        // same). Otherwise every legal move is generated.
        let listed = !winners_turn && shallow && !ctx.need_loser_promotion && {
            let (_, _, other) = self.node_moves(pos, &env, None, true, true, &mut tt.order, &mut tt.checks);
            going = tt.order.len() > start;
            if !other {
                tt.order.truncate(start);
            }
            other
        };
        let (any, left_out, cut) = if listed {
            (true, true, true)
        } else {
            self.node_moves(pos, &env, filter.as_ref(), !shallow, false, &mut tt.order, &mut tt.checks)
        };
        if !any {
            return Expanded::Done(pos.turn() != self.winner && pos.is_check());
        }
        if check_static && self.statics && blocked_cannot_mate(pos, self.winner) {
            tt.order.truncate(start);
            return Expanded::Done(false);
        }
        tt.store(key, depth);
        self.nodes += 1;
        if winners_turn && let Some(m) = checkmating_among(pos, &tt.checks) {
            tt.order.truncate(start);
            self.line.push(m);
            return Expanded::Done(true);
        }
        if !going {
            // Every move is cut by depth (most such nodes of the loser).
            self.interrupted = true;
            return Expanded::Done(false);
        }
        if cut || left_out {
            self.interrupted = true;
        }
        let semi = ctx.semi_blocked.is_some() || ctx.was_semi_blocked;
        Expanded::Children { start, loser_going, semi }
    }

    /// Searches the children of `pos` by the moves `tt.order[start..end]`
    /// (see [`Searcher::fast`]), the best first.
    #[allow(clippy::too_many_arguments)]
    fn fast_children(
        &mut self,
        pos: &Position,
        start: usize,
        end: usize,
        depth: i32,
        loser_going: Option<Bitboard>,
        semi: bool,
        tt: &mut FastTable,
    ) -> bool {
        // The best move first, by a scan: along a line that mates, most
        // nodes never need a second move, and then sorting the rest is
        // wasted (a tenth of a microsecond a node).
        // (Without a branch on the keys, which a first search of a position
        // mispredicts; the first of equal keys, as `min_by_key`.)
        if start < end {
            let (mut best, mut best_key) = (start, tt.order[start].0);
            for (i, &(k, _, _)) in tt.order[start..end].iter().enumerate() {
                let better = k < best_key;
                best_key = if better { k } else { best_key };
                best = if better { start + i } else { best };
            }
            tt.order.swap(start, best);
        }
        for i in start..end {
            if i == start + 1 {
                tt.order[i..end].sort_unstable_by_key(|&(k, _, _)| k);
            }
            let (k, m, progress) = tt.order[i];
            let child_depth = depth - k.rem_euclid(4);
            let child = pos.after(m);
            if let Some(going) = loser_going
                && child_depth == 1
                && !progress
                && self.loser_cut(&child, going)
            {
                // The loser's node would be cut by depth at once.
                self.interrupted = true;
                continue;
            }
            let zeroing = self.statics && (pos.is_zeroing(m) || m.is_promotion());
            self.line.push(m);
            if self.fast(&child, child_depth, progress, semi, zeroing, tt) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Iterative deepening of the fast search from depth 1, for at most
    /// `limit` more nodes (see [`Searcher::fast`]).
    pub(crate) fn fast_search(&mut self, pos: &Position, limit: u64, tt: &mut FastTable) -> Outcome {
        let base = self.line.len();
        self.choose_corner(pos);
        self.budget = self.nodes.saturating_add(limit);
        tt.order.clear();
        for depth in 1..=MAX_PLY as i32 {
            self.interrupted = false;
            tt.next_epoch();
            if self.fast(pos, depth, false, false, false, tt) {
                return Outcome::Mate;
            }
            self.line.truncate(base);
            if !self.interrupted {
                return Outcome::NoMate;
            }
            if self.nodes >= self.budget {
                break;
            }
        }
        Outcome::OutOfBudget
    }

    fn full(
        &mut self,
        pos: &Position,
        depth: i32,
        check_static: bool,
        past_progress: bool,
        was_semi_blocked: bool,
    ) -> bool {
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
        let ctx = self.node_context(pos, was_semi_blocked);
        let semi_blocked = ctx.semi_blocked;
        // Cheapest moves first, then by the narrow search's preference: the
        // fast search's keys (with no depth to cut by), sorted as (cost,
        // -score) pairs, the order they had when computed move by move
        // (ties included).
        let cx = ScoreContext::new(pos, self.winner);
        let mut keyed = Vec::with_capacity(moves.len());
        self.order_into(pos, &moves, &ctx, &cx, past_progress, i32::MAX, &mut keyed);
        let mut order: Vec<(i32, i32, Move, bool)> = keyed
            .iter()
            .map(|&(k, m, progress)| {
                let cost = k.rem_euclid(4);
                (cost, (k - cost) / 4 - cost * 2048, m, progress)
            })
            .collect();
        order.sort_unstable_by_key(|&(c, s, _, _)| (c, s));
        let semi = semi_blocked.is_some() || ctx.was_semi_blocked;
        for &(cost, _, m, progress) in &order {
            let zeroing = pos.is_zeroing(m) || m.is_promotion();
            self.line.push(m);
            if self.full(&pos.after(m), depth - cost, zeroing, progress, semi) {
                return true;
            }
            self.line.pop();
        }
        false
    }

    /// Exhaustive search of every position reachable from `pos` (each one
    /// expanded once, no depth limit), for at most `limit` expanded nodes,
    /// with scratch space of its own (see [`Searcher::exhaustive_with`]).
    #[cfg(test)]
    pub(crate) fn exhaustive(&mut self, pos: &Position, limit: u64) -> Outcome {
        self.exhaustive_with(pos, limit, &mut WalkScratch::default(), false)
    }

    /// Exhaustive search of every position reachable from `pos` (each one
    /// expanded once, no depth limit), for at most `limit` expanded nodes.
    /// It finds a mate if one exists and the reachable set fits the budget,
    /// so "no mate" is then a proof; the material rules and the semi-static
    /// analysis prune the positions they prove dead. Depth-first, with an
    /// explicit stack (lines can be long) whose move lists share one buffer,
    /// cheapest moves first. `scratch` (the set of positions seen, the stack
    /// and the move buffers) is cleared, not freed, so a thread's walks reuse
    /// its memory. With `lazy` a node's moves are not sorted when it is
    /// expanded: its best move is found by a scan, and the others are sorted
    /// only when a second one is needed (along a line that mates, most nodes
    /// never need it), which makes a brief walk some 15% cheaper; ties may
    /// then come in another order, so the walk may take another line.
    pub(crate) fn exhaustive_with(
        &mut self,
        pos: &Position,
        limit: u64,
        scratch: &mut WalkScratch,
        lazy: bool,
    ) -> Outcome {
        let base = self.line.len();
        self.choose_corner(pos);
        let WalkScratch { seen, stack, moves, keyed, order } = scratch;
        seen.clear();
        stack.clear();
        moves.clear();
        let stop = self.nodes.saturating_add(limit);
        let mut cut = false;
        // Expands `p` (already marked as seen), appending its moves (with
        // their order keys if lazy) to `moves`: `Ok(false)` if it is a
        // leaf, `Err(())` if the loser is checkmated.
        let expand = |this: &mut Searcher,
                      p: &Position,
                      zeroing: bool,
                      moves: &mut Vec<(i32, Move)>,
                      keyed: &mut Vec<(i32, Move, bool)>,
                      order: &mut Vec<(i32, i32, Move)>| {
            let ctx = NodeContext {
                need_loser_promotion: p.turn() != this.winner && this.need_loser_promotion(p),
                pawns_and_bishops: false,
                semi_blocked: None,
                was_semi_blocked: false,
            };
            let cx = ScoreContext::new(p, this.winner);
            // The fast search's keys (with no depth to cut by), as the
            // generator finds the moves: cheapest first, then the best
            // scored. Unless lazy, sorted as (cost, -score) pairs: the same
            // order, ties included, as when they were computed move by move
            // (the walk is sensitive to the order of ties: one D3-Chess
            // vector took 50% more nodes with another; and that order
            // depends on the type sorted).
            keyed.clear();
            let env = this.order_env(p, &ctx, &cx, false, i32::MAX);
            let (any, _, _) = this.node_moves(p, &env, None, true, false, keyed, &mut Vec::new());
            if !any {
                return if p.turn() != this.winner && p.is_check() { Err(()) } else { Ok(false) };
            }
            if has_insufficient_material(p, this.winner) || (zeroing && blocked_cannot_mate(p, this.winner)) {
                return Ok(false);
            }
            this.nodes += 1;
            if lazy {
                moves.extend(keyed.iter().map(|&(k, m, _)| (k, m)));
                return Ok(true);
            }
            order.clear();
            order.extend(keyed.iter().map(|&(k, m, _)| {
                let cost = k.rem_euclid(4);
                (cost, (k - cost) / 4 - cost * 2048, m)
            }));
            order.sort_unstable_by_key(|&(c, s, _)| (c, s));
            moves.extend(order.iter().map(|&(_, _, m)| (0, m)));
            Ok(true)
        };
        seen.insert(pos.zobrist());
        match expand(self, pos, false, moves, keyed, order) {
            Err(()) => return Outcome::Mate,
            Ok(false) => return Outcome::NoMate,
            Ok(true) => stack.push(WalkFrame { pos: *pos, start: 0, next: 0, end: moves.len() }),
        }
        while let Some(top) = stack.last_mut() {
            if top.next == top.end {
                stack.pop();
                if let Some(parent) = stack.last() {
                    moves.truncate(parent.end);
                    self.line.pop();
                }
                continue;
            }
            if lazy {
                // The best of the rest: a scan for the first, a sort of the
                // others when the second is needed (along a line that mates,
                // most nodes never need it).
                if top.next == top.start {
                    let (start, end) = (top.start, top.end);
                    if let Some(best) = (start..end).min_by_key(|&i| moves[i].0) {
                        moves.swap(start, best);
                    }
                } else if top.next == top.start + 1 {
                    moves[top.next..top.end].sort_unstable_by_key(|&(k, _)| k);
                }
            }
            let m = moves[top.next].1;
            top.next += 1;
            let parent = top.pos;
            let child = parent.after(m);
            if !seen.insert(child.zobrist()) {
                continue;
            }
            if self.nodes >= stop {
                self.line.truncate(base);
                return Outcome::OutOfBudget;
            }
            let zeroing = parent.is_zeroing(m) || m.is_promotion();
            self.line.push(m);
            let start = moves.len();
            match expand(self, &child, zeroing, moves, keyed, order) {
                Err(()) => return Outcome::Mate,
                Ok(false) => {
                    self.line.pop();
                }
                Ok(true) if stack.len() >= EXHAUSTIVE_MAX_LINE => {
                    // Too deep: leave this position for a shorter way in, and
                    // give up the proof (bounding the memory of the stack).
                    moves.truncate(start);
                    self.line.pop();
                    seen.remove(&child.zobrist());
                    cut = true;
                }
                Ok(true) => stack.push(WalkFrame { pos: child, start, next: start, end: moves.len() }),
            }
        }
        self.line.truncate(base);
        if cut { Outcome::OutOfBudget } else { Outcome::NoMate }
    }

    /// Iterative deepening of the full search within the node budget.
    pub(crate) fn full_search(&mut self, pos: &Position, first_depth: i32) -> Outcome {
        let base = self.line.len();
        self.choose_corner(pos);
        let mut depth = first_depth;
        loop {
            self.interrupted = false;
            self.tt.clear();
            if self.full(pos, depth, false, false, false) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::{FenOptions, Strictness};

    /// Positions along pseudo-random games from a few starting points
    /// (checks, pins, promotions, en passant and castling included, Chess960
    /// castling too).
    fn positions() -> Vec<Position> {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "4k3/1P6/8/3N4/8/8/6p1/4K2R b K - 0 1",
        ];
        let options = FenOptions { chess960: false, strictness: Strictness::Lenient };
        let starts = fens
            .iter()
            .map(|fen| Position::from_fen_with(fen, options).unwrap())
            .chain([0, 518, 959].map(|n| Position::chess960(n).unwrap()));
        let mut out = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for start in starts {
            for _ in 0..20 {
                let mut p = start;
                for _ in 0..40 {
                    out.push(p);
                    let list = p.legal_moves();
                    if list.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    p.play_unchecked(list[(seed % list.len() as u64) as usize]);
                }
            }
        }
        out
    }

    #[test]
    fn counting_up_to_two_moves() {
        for p in positions() {
            assert_eq!(u64::from(p.legal_moves_up_to_two()), p.count_legal_moves().min(2), "{}", p.fen());
        }
    }

    #[test]
    fn distance_tables() {
        for a in Square::all() {
            let (f, r) = (a.file().index(), a.rank().index());
            assert_eq!(edge_distance(a), f.min(7 - f).min(r).min(7 - r));
            for b in Square::all() {
                assert_eq!(u32::from(KING_DISTANCE[a.index()][b.index()]), a.distance(b));
            }
        }
    }

    #[test]
    fn nearer_squares() {
        for t in Square::all() {
            for from in Square::all() {
                for sq in Square::all() {
                    assert_eq!(nearer(t, from).contains(sq), sq.distance(t) < from.distance(t));
                }
            }
        }
    }

    #[test]
    fn block_count_counts_the_squares_around_a_centre() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for centre in Square::all() {
            let block = king_attacks(centre).with(centre);
            for _ in 0..64 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let set = Bitboard(seed) & block;
                assert_eq!(block_count(set, centre), set.count() as i32, "{centre:?} {set:?}");
            }
            assert_eq!(block_count(block, centre), block.count() as i32);
        }
    }

    #[test]
    fn partial_generation_keeps_the_full_lists_order() {
        let mut castles = 0;
        for p in positions() {
            let full = p.legal_moves();
            let b = p.board();
            let king = p.king(p.turn());
            // The king's and knights' moves.
            let mut list = MoveList::new();
            p.king_and_knight_moves(&mut list);
            let expected: Vec<Move> =
                full.iter().copied().filter(|m| m.from() == king || b.knights().contains(m.from())).collect();
            // (Castling is a king's move.)
            assert_eq!(list.as_slice(), expected.as_slice(), "{}", p.fen());
            castles += expected.iter().filter(|m| m.is_castle()).count();
            // The winner's candidates, for each choice of corner, with and
            // without the progress ranks of the first lean searches.
            for (corners, first_tries) in [
                (Corners::Nearer, false),
                (Corners::Farther, false),
                (Corners::Nearer, true),
                (Corners::Farther, true),
            ] {
                let mut s = Searcher::new(p.turn(), 0);
                s.corners = corners;
                s.first_tries = first_tries;
                s.choose_corner(&p);
                let pawn_rank = s.pawn_progress_rank(&p);
                let filter = CheckFilter::new(&p);
                let expected_checks: Vec<(Move, bool)> = full
                    .iter()
                    .copied()
                    .filter(|&m| filter.may_check(m, b.role_at(m.from()).unwrap()))
                    .map(|m| (m, !m.is_promotion() && filter.direct(b.role_at(m.from()).unwrap(), m.to())))
                    .collect();
                let t_king = s.target(true, Role::King);
                let t_knight = s.target(true, Role::Knight);
                let expected: Vec<Move> = full
                    .iter()
                    .copied()
                    .filter(|&m| {
                        let role = b.role_at(m.from()).unwrap();
                        let (from, to) = (m.from(), m.to());
                        let cost_0 = b.by_color(p.turn().other()).contains(to)
                            || m.is_en_passant()
                            || (role == Role::Pawn && to.rank().relative_to(p.turn()) >= pawn_rank)
                            || (role == Role::King && to.distance(t_king) < from.distance(t_king))
                            || (role == Role::Knight
                                && knight_distance(to, t_knight) < knight_distance(from, t_knight));
                        cost_0 || filter.may_check(m, role)
                    })
                    .collect();
                let mut loser = Searcher::new(p.turn().other(), 0);
                loser.corners = corners;
                loser.first_tries = first_tries;
                loser.choose_corner(&p);
                // The moves ordered as they are generated, against the
                // order of the lists, at nodes of every kind.
                for (depth, past_progress) in [(1, false), (1, true), (2, false), (3, true)] {
                    for (searcher, filter, all, list) in [
                        (&s, Some(&filter), false, expected.as_slice()),
                        (&s, Some(&filter), true, full.as_slice()),
                        (&s, None, true, full.as_slice()),
                        (&loser, None, true, full.as_slice()),
                    ] {
                        let ctx = searcher.node_context(&p, false);
                        let cx = ScoreContext::new(&p, searcher.winner);
                        let env = searcher.order_env(&p, &ctx, &cx, past_progress, depth);
                        let (mut order, mut checks) = (Vec::new(), Vec::new());
                        let (any, dropped, cut) =
                            searcher.node_moves(&p, &env, filter, all, false, &mut order, &mut checks);
                        let mut expected_order = Vec::new();
                        let expected_cut = searcher.order_into(
                            &p,
                            list,
                            &ctx,
                            &cx,
                            past_progress,
                            depth,
                            &mut expected_order,
                        );
                        assert_eq!(order, expected_order, "{} {depth} {past_progress} {all}", p.fen());
                        assert_eq!(cut, expected_cut, "{}", p.fen());
                        assert_eq!(any, !full.is_empty(), "{}", p.fen());
                        assert_eq!(dropped, list.len() < full.len(), "{}", p.fen());
                        if filter.is_some() {
                            assert_eq!(checks, expected_checks, "{}", p.fen());
                        } else {
                            assert!(checks.is_empty());
                        }
                    }
                    // The loser's king's and knights' moves alone.
                    let ctx = loser.node_context(&p, false);
                    let cx = ScoreContext::new(&p, loser.winner);
                    let env = loser.order_env(&p, &ctx, &cx, past_progress, depth);
                    let (mut order, mut checks) = (Vec::new(), Vec::new());
                    let (any, _, cut) = loser.node_moves(&p, &env, None, true, true, &mut order, &mut checks);
                    let mut expected_order = Vec::new();
                    let expected_cut =
                        loser.order_into(&p, &list, &ctx, &cx, past_progress, depth, &mut expected_order);
                    assert_eq!(order, expected_order, "{}", p.fen());
                    assert_eq!((any, cut), (!list.is_empty(), expected_cut), "{}", p.fen());
                }
            }
        }
        assert!(castles > 0, "no castling seen");
    }

    /// The fast search leaves out a child of a winner's node when
    /// `loser_going_squares` and the winner's attacks after the move say that
    /// the loser's king cannot go towards its target there: that must be
    /// exactly when none of the loser's legal moves (its king's and
    /// knights') goes towards its target.
    #[test]
    fn left_out_loser_nodes_have_no_move_towards_the_target() {
        let (mut left_out, mut kept) = (0, 0);
        for p in positions() {
            for corners in [Corners::Nearer, Corners::Farther] {
                let mut s = Searcher::new(p.turn(), 0);
                s.corners = corners;
                s.choose_corner(&p);
                let ctx = s.node_context(&p, false);
                let Some(going) = s.loser_going_squares(&p, &ctx) else { continue };
                let b = p.board();
                let loser_king = p.king(p.turn().other());
                let t_king = s.target(true, Role::King);
                let t_knight = s.target(true, Role::Knight);
                let t_loser_king = s.target(false, Role::King);
                let t_loser_knight = s.target(false, Role::Knight);
                for &m in p.legal_moves().iter() {
                    let role = b.role_at(m.from()).unwrap();
                    let (from, to) = (m.from(), m.to());
                    let progress = b.by_color(p.turn().other()).contains(to)
                        || m.is_en_passant()
                        || (role == Role::Pawn && to.rank().relative_to(p.turn()) >= Rank::Sixth)
                        || (role == Role::King && to.distance(t_king) < from.distance(t_king))
                        || (role == Role::Knight
                            && knight_distance(to, t_knight) < knight_distance(from, t_knight));
                    if progress {
                        continue;
                    }
                    let child = p.after(m);
                    let skip = s.loser_cut(&child, going);
                    let cb = child.board();
                    let goes = child.legal_moves().iter().any(|m| {
                        let (from, to) = (m.from(), m.to());
                        if from == loser_king {
                            to.distance(t_loser_king) < from.distance(t_loser_king)
                        } else {
                            cb.knights().contains(from)
                                && knight_distance(to, t_loser_knight) < knight_distance(from, t_loser_knight)
                        }
                    });
                    assert_eq!(skip, !goes, "{} {}", p.fen(), crate::uci::UciText::from_move(&p, m));
                    if skip {
                        left_out += 1;
                    } else {
                        kept += 1;
                    }
                }
            }
        }
        assert!(left_out > 1_000 && kept > 1_000, "left out {left_out}, kept {kept}");
    }
}
