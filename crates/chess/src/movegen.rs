//! Fully legal move generation.
//!
//! One generator serves two consumers through [`MoveSink`]: a [`MoveList`]
//! that records every move, and a counter that only adds up the sizes of
//! target sets (bulk counting for perft, mobility, "has any legal move").
//! Check evasions and pins are resolved while generating, so no move is ever
//! made and taken back to test legality.

use std::fmt;
use std::mem::MaybeUninit;

use crate::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
    rook_rays,
};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{CastlingSide, Color, File, Move, Rank, Role, Square};

/// Room for the moves of any position this crate accepts, even the lenient
/// ones with too much material: `n` pieces of the side to move have at most
/// `n × (64 − n) ≤ 1024` targets, promotions add at most 3 × 3 × 8 and
/// castling 2 more.
pub const MAX_MOVES: usize = 1104;

/// A list of moves, stored inline (no allocation).
pub struct MoveList {
    len: usize,
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList { len: 0, moves: [const { MaybeUninit::uninit() }; MAX_MOVES] }
    }

    /// Appends a move.
    ///
    /// # Panics
    /// If the list already holds [`MAX_MOVES`] moves (no position has that many).
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = MaybeUninit::new(m);
        self.len += 1;
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`, and
        // `MaybeUninit<Move>` has the layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    /// The moves as a mutable slice (for sorting).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    /// Keeps only the moves for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            // SAFETY: i < len, so the entry was initialised.
            let m = unsafe { self.moves[i].assume_init() };
            if keep(&m) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// Where the generator puts what it finds.
pub(crate) trait MoveSink {
    /// Ordinary moves of a non-pawn piece from `from` to each of `targets`.
    fn piece(&mut self, from: Square, targets: Bitboard);
    /// As [`MoveSink::piece`], for the king's moves (castling aside).
    #[inline(always)]
    fn king(&mut self, from: Square, targets: Bitboard) {
        self.piece(from, targets);
    }
    /// As [`MoveSink::piece`], for a knight's moves.
    #[inline(always)]
    fn knight(&mut self, from: Square, targets: Bitboard) {
        self.piece(from, targets);
    }
    /// As [`MoveSink::piece`], for the diagonal moves of a bishop or a
    /// queen (a queen's other moves come in a call of
    /// [`MoveSink::straight`]).
    #[inline(always)]
    fn diagonal(&mut self, from: Square, targets: Bitboard) {
        self.piece(from, targets);
    }
    /// As [`MoveSink::piece`], for the straight moves of a rook or a queen.
    #[inline(always)]
    fn straight(&mut self, from: Square, targets: Bitboard) {
        self.piece(from, targets);
    }
    /// Non-promoting pawn moves landing on `targets`, each from `to - delta`.
    fn pawns(&mut self, targets: Bitboard, delta: i32);
    /// Double pushes landing on `targets`, each from `to - delta`.
    fn double_pushes(&mut self, targets: Bitboard, delta: i32);
    /// Promotions landing on `targets` (four moves each), from `to - delta`.
    fn promotions(&mut self, targets: Bitboard, delta: i32);
    /// A single special move (en passant, castling).
    fn single(&mut self, m: Move);
    /// Stop early? Lets "has any legal move" quit at the first one.
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

#[inline(always)]
fn from_delta(to: Square, delta: i32) -> Square {
    Square::from_index_unchecked((to.index() as i32 - delta) as u32)
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }
    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            self.push(Move::normal(from_delta(to, delta), to));
        }
    }
    #[inline(always)]
    fn double_pushes(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            self.push(Move::double_push(from_delta(to, delta), to));
        }
    }
    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            let from = from_delta(to, delta);
            for role in Role::PROMOTIONS {
                self.push(Move::promotion(from, to, role));
            }
        }
    }
    #[inline(always)]
    fn single(&mut self, m: Move) {
        self.push(m);
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub u64);

impl MoveSink for Counter {
    #[inline(always)]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.0 += u64::from(targets.count());
    }
    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += u64::from(targets.count());
    }
    #[inline(always)]
    fn double_pushes(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += u64::from(targets.count());
    }
    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += 4 * u64::from(targets.count());
    }
    #[inline(always)]
    fn single(&mut self, _m: Move) {
        self.0 += 1;
    }
}

/// Counts moves up to two (0, 1, or 2 for two or more), and stops at two:
/// all "forced move?" needs, without a population count per piece.
struct UpToTwo(u32);

impl UpToTwo {
    #[inline(always)]
    fn add(&mut self, targets: Bitboard) {
        self.0 += if targets.more_than_one() { 2 } else { u32::from(targets.any()) };
    }
}

impl MoveSink for UpToTwo {
    #[inline(always)]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.add(targets);
    }
    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, _delta: i32) {
        self.add(targets);
    }
    #[inline(always)]
    fn double_pushes(&mut self, targets: Bitboard, _delta: i32) {
        self.add(targets);
    }
    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, _delta: i32) {
        // Four moves a square.
        self.0 += 2 * u32::from(targets.any());
    }
    #[inline(always)]
    fn single(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.0 >= 2
    }
}

/// Stops at the first legal move.
struct AnyMove(bool);

impl MoveSink for AnyMove {
    #[inline(always)]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }
    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, _delta: i32) {
        self.0 |= targets.any();
    }
    #[inline(always)]
    fn double_pushes(&mut self, targets: Bitboard, _delta: i32) {
        self.0 |= targets.any();
    }
    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, _delta: i32) {
        self.0 |= targets.any();
    }
    #[inline(always)]
    fn single(&mut self, _m: Move) {
        self.0 = true;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.0
    }
}

/// Keeps only moves of pieces on `from_mask` landing on `to_mask`.
struct Filtered<'a> {
    list: &'a mut MoveList,
    from_mask: Bitboard,
    to_mask: Bitboard,
}

impl MoveSink for Filtered<'_> {
    fn piece(&mut self, from: Square, targets: Bitboard) {
        if self.from_mask.contains(from) {
            self.list.piece(from, targets & self.to_mask);
        }
    }
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        for to in targets & self.to_mask {
            if self.from_mask.contains(from_delta(to, delta)) {
                self.list.push(Move::normal(from_delta(to, delta), to));
            }
        }
    }
    fn double_pushes(&mut self, targets: Bitboard, delta: i32) {
        for to in targets & self.to_mask {
            if self.from_mask.contains(from_delta(to, delta)) {
                self.list.push(Move::double_push(from_delta(to, delta), to));
            }
        }
    }
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        for to in targets & self.to_mask {
            let from = from_delta(to, delta);
            if self.from_mask.contains(from) {
                for role in Role::PROMOTIONS {
                    self.list.push(Move::promotion(from, to, role));
                }
            }
        }
    }
    fn single(&mut self, m: Move) {
        if self.from_mask.contains(m.from()) && self.to_mask.contains(m.to()) {
            self.list.push(m);
        }
    }
}

/// The squares of `targets` that the sliders `straight` (rooks and queens)
/// and `diag` (bishops and queens) attack through `occ`: the attacks of
/// each slider that could reach one of them at all (a few sliders, where a
/// test of each target would look up two attack sets per square).
#[inline(always)]
fn slider_danger(targets: Bitboard, occ: Bitboard, straight: Bitboard, diag: Bitboard) -> Bitboard {
    let mut danger = Bitboard::EMPTY;
    if targets.is_empty() {
        return danger;
    }
    for s in straight {
        if (rook_rays(s) & targets).any() {
            danger |= rook_attacks(s, occ);
        }
    }
    for s in diag {
        if (bishop_rays(s) & targets).any() {
            danger |= bishop_attacks(s, occ);
        }
    }
    danger & targets
}

/// Attacks of all `pawns` of `color`, set-wise.
#[inline(always)]
pub(crate) fn pawn_attacks_set(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(File::A).0;
    let not_h = !Bitboard::from_file(File::H).0;
    let p = pawns.0;
    match color {
        Color::White => Bitboard(((p & not_a) << 7) | ((p & not_h) << 9)),
        Color::Black => Bitboard(((p & not_a) >> 9) | ((p & not_h) >> 7)),
    }
}

impl Position {
    /// Every legal move.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Appends every legal move to `list`.
    #[inline]
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        self.generate(list);
    }

    /// The number of legal moves, without listing them.
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// The number of legal moves if below two, else 2.
    #[inline]
    pub(crate) fn legal_moves_up_to_two(&self) -> u32 {
        let mut c = UpToTwo(0);
        self.generate(&mut c);
        c.0.min(2)
    }

    /// `true` if the side to move has at least one legal move.
    #[inline]
    pub fn has_legal_move(&self) -> bool {
        let mut a = AnyMove(false);
        self.generate(&mut a);
        a.0
    }

    /// Legal moves of the pieces on `from` squares that land on `to` squares
    /// (for castling, `to` is the rook's square).
    pub fn legal_moves_filtered(&self, from: Bitboard, to: Bitboard) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut Filtered { list: &mut list, from_mask: from, to_mask: to });
        list
    }

    /// `true` if `m` is a legal move here.
    pub fn is_legal(&self, m: Move) -> bool {
        if !self.is_ours(m.from()) {
            return false;
        }
        let from = Bitboard::from_square(m.from());
        let to = Bitboard::from_square(m.to());
        self.legal_moves_filtered(from, to).contains(&m)
    }

    /// `true` if the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    /// `true` if the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// `true` if a legal en passant capture exists.
    pub fn has_legal_en_passant(&self) -> bool {
        let Some(ep) = self.ep_square else { return false };
        let us = self.turn;
        let capturers = pawn_attacks(us.other(), ep) & self.board.pawns() & self.board.by_color(us);
        capturers.iter().any(|from| self.en_passant_is_legal(from, ep))
    }

    /// Full legality test of one en passant capture, by looking at the king
    /// after the capture: the rules of pins do not cover the case where both
    /// pawns leave the king's rank at once.
    #[inline]
    fn en_passant_is_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.turn;
        let them = us.other();
        let b = &self.board;
        let king = self.our_king();
        let victim = Square::from_coords(ep.file(), from.rank());
        let occ = (b.occupied - Bitboard::from_square(from) - Bitboard::from_square(victim))
            | Bitboard::from_square(ep);
        let theirs = b.by_color(them) - Bitboard::from_square(victim);
        ((rook_attacks(king, occ) & b.straight_sliders())
            | (bishop_attacks(king, occ) & b.diagonal_sliders())
            | (knight_attacks(king) & b.knights())
            | (pawn_attacks(us, king) & b.pawns()))
            & theirs
            == Bitboard::EMPTY
    }

    #[inline(always)]
    pub(crate) fn generate<S: MoveSink>(&self, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let b = &self.board;
        let ours = b.by_color(us);
        let theirs = b.by_color(them);
        let occ = b.occupied;
        let king = self.our_king();

        let their_straight = b.straight_sliders() & theirs;
        let their_diag = b.diagonal_sliders() & theirs;
        let checkers = ((rook_attacks(king, occ) & their_straight)
            | (bishop_attacks(king, occ) & their_diag)
            | (knight_attacks(king) & b.knights() & theirs)
            | (pawn_attacks(us, king) & b.pawns() & theirs))
            & theirs;

        // King moves: drop squares guarded by pawns, knights and the king
        // set-wise, then test the sliders with our king taken off the board
        // (so it cannot hide behind itself).
        let mut danger = pawn_attacks_set(them, b.pawns() & theirs);
        for n in b.knights() & theirs {
            danger |= knight_attacks(n);
        }
        danger |= king_attacks(self.king(them));
        // Kings are never captured: taking the king is not a legal move (FIDE
        // 7.5.5 comm.). Only a position left by an illegal move that stood
        // (see `Position::play_irregular`) can have the enemy king en prise,
        // so for every other position this changes nothing.
        let blocked = ours | b.kings();
        let occ_no_king = occ - Bitboard::from_square(king);
        let mut king_targets = king_attacks(king) - blocked - danger;
        king_targets = king_targets - slider_danger(king_targets, occ_no_king, their_straight, their_diag);
        sink.king(king, king_targets);
        if sink.done() {
            return;
        }

        if checkers.more_than_one() {
            return;
        }
        let in_check = checkers.any();
        let target = if in_check {
            let checker = Square::from_index_unchecked(checkers.0.trailing_zeros());
            between(king, checker) | checkers
        } else {
            !blocked
        };

        // Pinned pieces: our single blockers on a line from our king to an
        // enemy slider that sees the king through our pieces only.
        let snipers =
            (rook_attacks(king, theirs) & their_straight) | (bishop_attacks(king, theirs) & their_diag);
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let blockers = between(king, s) & occ;
            if !blockers.more_than_one() {
                pinned |= blockers & ours;
            }
        }

        let movable = ours - pinned;
        for n in b.knights() & movable {
            sink.knight(n, knight_attacks(n) & target);
        }
        for s in b.diagonal_sliders() & movable {
            sink.diagonal(s, bishop_attacks(s, occ) & target);
        }
        for s in b.straight_sliders() & movable {
            sink.straight(s, rook_attacks(s, occ) & target);
        }
        // A pinned piece can never help against a check, so in check only
        // the free pieces move. Otherwise it may slide along its pin line.
        if !in_check && pinned.any() {
            for s in b.diagonal_sliders() & pinned {
                sink.diagonal(s, bishop_attacks(s, occ) & target & line(king, s));
            }
            for s in b.straight_sliders() & pinned {
                sink.straight(s, rook_attacks(s, occ) & target & line(king, s));
            }
        }

        let our_pawns = b.pawns() & ours;
        self.pawn_moves(sink, our_pawns - pinned, target, theirs);
        if !in_check {
            for p in our_pawns & pinned {
                self.pawn_moves(sink, Bitboard::from_square(p), target & line(king, p), theirs);
            }
        }

        if let Some(ep) = self.ep_square {
            // In check, en passant helps only if it captures the checker or
            // blocks; the full test below covers both.
            for from in pawn_attacks(them, ep) & our_pawns {
                if self.en_passant_is_legal(from, ep) {
                    sink.single(Move::en_passant(from, ep));
                }
            }
        }

        if !in_check && (self.castling & ours).any() {
            self.castling_moves(sink, king, occ, danger, their_straight, their_diag);
        }
    }

    /// The legal moves of the king and the knights of the side to move,
    /// given to `sink` (through [`MoveSink::king`], [`MoveSink::knight`] and
    /// [`MoveSink::single`]) in the order [`Position::legal_moves_into`]
    /// lists them (the king's first, then each knight's, castling last):
    /// what the lean helpmate search needs at a node where only those can
    /// make progress, without the sliders and pawns of a full generation.
    #[inline(always)]
    pub(crate) fn king_and_knight_moves<S: MoveSink>(&self, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let b = &self.board;
        let ours = b.by_color(us);
        let theirs = b.by_color(them);
        let occ = b.occupied;
        let king = self.our_king();
        let their_straight = b.straight_sliders() & theirs;
        let their_diag = b.diagonal_sliders() & theirs;
        let checkers = ((rook_attacks(king, occ) & their_straight)
            | (bishop_attacks(king, occ) & their_diag)
            | (knight_attacks(king) & b.knights() & theirs)
            | (pawn_attacks(us, king) & b.pawns() & theirs))
            & theirs;
        // As in `generate`.
        let mut danger = pawn_attacks_set(them, b.pawns() & theirs);
        for n in b.knights() & theirs {
            danger |= knight_attacks(n);
        }
        danger |= king_attacks(self.king(them));
        let blocked = ours | b.kings();
        let occ_no_king = occ - Bitboard::from_square(king);
        let mut king_targets = king_attacks(king) - blocked - danger;
        king_targets = king_targets - slider_danger(king_targets, occ_no_king, their_straight, their_diag);
        sink.king(king, king_targets);
        let knights = b.knights() & ours;
        if checkers.more_than_one() {
            return;
        }
        if knights.any() {
            let target = if checkers.any() {
                let checker = Square::from_index_unchecked(checkers.0.trailing_zeros());
                between(king, checker) | checkers
            } else {
                !blocked
            };
            // A pinned knight never moves.
            let snipers =
                (rook_attacks(king, theirs) & their_straight) | (bishop_attacks(king, theirs) & their_diag);
            let mut pinned = Bitboard::EMPTY;
            for s in snipers {
                let blockers = between(king, s) & occ;
                if !blockers.more_than_one() {
                    pinned |= blockers & ours;
                }
            }
            for n in knights - pinned {
                sink.knight(n, knight_attacks(n) & target);
            }
        }
        if checkers.is_empty() && (self.castling & ours).any() {
            self.castling_moves(sink, king, occ, danger, their_straight, their_diag);
        }
    }

    #[inline(always)]
    fn pawn_moves<S: MoveSink>(&self, sink: &mut S, pawns: Bitboard, target: Bitboard, theirs: Bitboard) {
        if pawns.is_empty() {
            return;
        }
        let us = self.turn;
        let empty = !self.board.occupied;
        let last = Bitboard::relative_rank(us, Rank::Eighth);
        let third = Bitboard::relative_rank(us, Rank::Third);
        let (push, left, right) = match us {
            Color::White => (8, 7, 9),
            Color::Black => (-8, -9, -7),
        };
        let single_all = pawns.forward(us) & empty;
        let double = (single_all & third).forward(us) & empty & target;
        let single = single_all & target;
        sink.pawns(single - last, push);
        sink.promotions(single & last, push);
        sink.double_pushes(double, 2 * push);

        let not_a = pawns - Bitboard::from_file(File::A);
        let not_h = pawns - Bitboard::from_file(File::H);
        let (cap_left, cap_right) = match us {
            Color::White => (Bitboard(not_a.0 << 7), Bitboard(not_h.0 << 9)),
            Color::Black => (Bitboard(not_a.0 >> 9), Bitboard(not_h.0 >> 7)),
        };
        let cap_left = cap_left & theirs & target;
        let cap_right = cap_right & theirs & target;
        sink.pawns(cap_left - last, left);
        sink.promotions(cap_left & last, left);
        sink.pawns(cap_right - last, right);
        sink.promotions(cap_right & last, right);
    }

    /// Castling moves. `danger` holds the squares the opponent's pawns,
    /// knights and king attack; sliders are tested with both castling pieces
    /// lifted, since the rook may be shielding a square along the rank.
    #[inline(always)]
    fn castling_moves<S: MoveSink>(
        &self,
        sink: &mut S,
        king: Square,
        occ: Bitboard,
        danger: Bitboard,
        their_straight: Bitboard,
        their_diag: Bitboard,
    ) {
        let us = self.turn;
        for rook in self.castling & self.board.by_color(us) {
            let side = CastlingSide::from_files(king.file(), rook.file());
            let king_to = side.king_to(us);
            let rook_to = side.rook_to(us);
            let king_path = between(king, king_to) | Bitboard::from_square(king_to);
            let rook_path = between(rook, rook_to) | Bitboard::from_square(rook_to);
            let movers = Bitboard::from_square(king) | Bitboard::from_square(rook);
            if (((king_path | rook_path) - movers) & occ).any() || (king_path & danger).any() {
                continue;
            }
            let occ2 = occ - movers;
            let attacked = king_path.iter().any(|sq| {
                (rook_attacks(sq, occ2) & their_straight).any()
                    || (bishop_attacks(sq, occ2) & their_diag).any()
            });
            if !attacked {
                sink.single(Move::castle(king, rook));
            }
        }
    }
}

/// Perft: the number of leaf nodes of the legal move tree of depth `depth`.
/// Counts the last level in bulk (no make-move at the leaves).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut list = MoveList::new();
            pos.legal_moves_into(&mut list);
            let mut total = 0;
            for &m in list.iter() {
                total += perft(&pos.after(m), depth - 1);
            }
            total
        }
    }
}

/// Perft with a make-move at every node, leaves included.
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves_into(&mut list);
    if depth == 1 {
        // The leaves: every move is still made (and the result kept alive),
        // only the call that would return 1 is saved.
        for &m in list.iter() {
            std::hint::black_box(pos.after(m));
        }
        return list.len() as u64;
    }
    let mut total = 0;
    for &m in list.iter() {
        total += perft_full(&pos.after(m), depth - 1);
    }
    total
}
