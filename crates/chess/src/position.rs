//! A position: placement, side to move, castling rights, en passant square
//! and the move counters, with legal move generation and copy-make.

use std::fmt;

use crate::attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::types::{CastlingMode, CastlingSide, Color, File, Move, MoveKind, Piece, Role, Square};
use crate::zobrist;

/// A legal chess position (standard or Chess960).
///
/// Positions are small (`Copy`) values. Moves are applied by copy-make:
/// [`Position::play`] checks legality, [`Position::play_unchecked`] trusts the
/// caller (use it only with moves from [`Position::legal_moves`]).
///
/// Equality (`==`) is the identity of the FIDE Laws 9.2.3 for repetitions:
/// same placement, same side to move, same castling rights, and the same
/// possibility of capturing en passant (only when such a capture is legal).
/// Move counters do not take part.
#[derive(Clone, Copy)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) turn: Color,
    /// The squares of the rooks that still have castling rights.
    pub(crate) castling: Bitboard,
    /// Set after a double push only when an enemy pawn attacks the square
    /// passed over, so that most positions skip en passant entirely.
    pub(crate) ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// Polyglot key of everything but the en passant file (added on demand).
    pub(crate) hash: u64,
    pub(crate) mode: CastlingMode,
}

/// Standard castling notation was asked for a position whose castling rights
/// need Chess960 notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("these castling rights can only be written in Chess960 notation")]
pub struct NonStandardCastlingError;

/// The move was not legal in the position it was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {uci} in this position")]
pub struct IllegalMoveError {
    /// The move, in UCI notation.
    pub uci: crate::uci::UciText,
}

/// Why a move cannot be played even as an illegal move that stands
/// ([`Position::play_irregular`]): the pieces could not be moved that way,
/// or the result would not be a position at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IrregularMoveError {
    #[error("there is no piece of the side to move on {0}")]
    NoPieceToMove(Square),
    #[error("the move leaves the piece on {0}")]
    NullMove(Square),
    #[error("a piece of the side to move already stands on {0}")]
    OwnPieceOnTarget(Square),
    #[error("the move would capture the king on {0}, which never leaves the board")]
    CapturesKing(Square),
    #[error("the move is not a {0} on this board")]
    WrongKind(&'static str),
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        let board = Board::standard();
        let castling = Bitboard(0x8100_0000_0000_0081);
        Position::from_parts_unchecked(board, Color::White, castling, None, 0, 1, CastlingMode::Standard)
    }

    /// The Chess960 starting position with Scharnagl number `n` (0..960;
    /// 518 is the standard position).
    ///
    /// # Errors
    /// `None` if `n >= 960`.
    pub fn chess960(n: u32) -> Option<Position> {
        if n >= 960 {
            return None;
        }
        let mut back: [Option<Role>; 8] = [None; 8];
        let mut n = n;
        let light = n % 4;
        n /= 4;
        back[(2 * light + 1) as usize] = Some(Role::Bishop);
        let dark = n % 4;
        n /= 4;
        back[(2 * dark) as usize] = Some(Role::Bishop);
        let queen = n % 6;
        n /= 6;
        let place_nth_free = |back: &mut [Option<Role>; 8], k: u32, role: Role| {
            let idx = back.iter().enumerate().filter(|(_, r)| r.is_none()).nth(k as usize).unwrap().0;
            back[idx] = Some(role);
        };
        place_nth_free(&mut back, queen, Role::Queen);
        const KN: [(u32, u32); 10] =
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
        let (a, b) = KN[n as usize];
        // Place the second knight first so the first index is not shifted.
        place_nth_free(&mut back, b, Role::Knight);
        place_nth_free(&mut back, a, Role::Knight);
        place_nth_free(&mut back, 0, Role::Rook);
        place_nth_free(&mut back, 0, Role::King);
        place_nth_free(&mut back, 0, Role::Rook);
        let roles = back.map(|r| r.unwrap());
        let board = Board::from_back_rank(roles);
        let rooks = board.rooks() & Bitboard::BACKRANKS;
        Some(Position::from_parts_unchecked(board, Color::White, rooks, None, 0, 1, CastlingMode::Chess960))
    }

    /// Assembles a position from parts without validation; computes the hash.
    pub(crate) fn from_parts_unchecked(
        board: Board,
        turn: Color,
        castling: Bitboard,
        ep_square: Option<Square>,
        halfmoves: u32,
        fullmoves: u32,
        mode: CastlingMode,
    ) -> Position {
        let mut pos = Position { board, turn, castling, ep_square, halfmoves, fullmoves, hash: 0, mode };
        pos.hash = zobrist::hash_without_ep(&pos);
        pos
    }

    /// The placement of the pieces.
    #[inline]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Plies since the last capture or pawn move (FIDE 9.3 counts these).
    #[inline]
    pub const fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    /// The number of the current full move, starting at 1.
    #[inline]
    pub const fn fullmove_number(&self) -> u32 {
        self.fullmoves
    }

    /// How castling is written (standard or Chess960).
    #[inline]
    pub const fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// Switches how castling is written; the rules of play do not change.
    ///
    /// # Errors
    /// [`NonStandardCastlingError`] when asked for standard notation while a
    /// castling right cannot be written in it (a king off the e-file or a
    /// rook off the a- and h-files: `e1c1` would then read back as a king
    /// step); the mode is unchanged.
    pub fn set_castling_mode(&mut self, mode: CastlingMode) -> Result<(), NonStandardCastlingError> {
        if mode == CastlingMode::Standard && !self.has_standard_castling_rights() {
            return Err(NonStandardCastlingError);
        }
        self.mode = mode;
        Ok(())
    }

    /// `true` if every castling right is one of standard chess: king on the
    /// e-file, rook on the a- or h-file of its colour's back rank.
    pub fn has_standard_castling_rights(&self) -> bool {
        self.castling.iter().all(|r| {
            let color = if r.rank() == crate::types::Rank::First { Color::White } else { Color::Black };
            self.board.king_of(color).map(|k| k.file()) == Some(File::E)
                && (r.file() == File::A || r.file() == File::H)
        })
    }

    /// The squares of rooks that still have castling rights.
    #[inline]
    pub const fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The rook that `color` may still castle with on `side`, if any.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let king = self.board.king_of(color)?;
        let rooks = self.castling & Bitboard::from_rank(color.back_rank());
        rooks.iter().find(|r| CastlingSide::from_files(king.file(), r.file()) == side)
    }

    /// The en passant target square, but only when a legal en passant
    /// capture exists (FIDE 9.2.3 identity; also what FEN output shows).
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        if self.has_legal_en_passant() { Some(ep) } else { None }
    }

    /// The en passant square when some pawn of the side to move attacks it,
    /// legal or not (what the Polyglot key uses).
    #[inline]
    pub const fn pseudo_ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The king of the side to move.
    #[inline(always)]
    pub(crate) fn our_king(&self) -> Square {
        // Every Position has exactly one king per side (FEN validation and
        // make-move both keep it so), so the lowest bit is the king.
        Square::from_index_unchecked((self.board.kings() & self.board.by_color(self.turn)).0.trailing_zeros())
    }

    /// The square of `color`'s king.
    pub fn king(&self, color: Color) -> Square {
        Square::from_index_unchecked((self.board.kings() & self.board.by_color(color)).0.trailing_zeros())
    }

    /// Pieces of `attacker` that attack `sq`, with the given occupancy.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let b = &self.board;
        let them = b.by_color(attacker);
        ((rook_attacks(sq, occupied) & b.straight_sliders())
            | (bishop_attacks(sq, occupied) & b.diagonal_sliders())
            | (knight_attacks(sq) & b.knights())
            | (king_attacks(sq) & b.kings())
            | (pawn_attacks(attacker.other(), sq) & b.pawns()))
            & them
    }

    /// `true` if `attacker` attacks `sq` in the current occupancy.
    pub fn is_attacked(&self, sq: Square, attacker: Color) -> bool {
        self.attackers_to(sq, attacker, self.board.occupied).any()
    }

    /// Every square `color` attacks.
    pub fn attacked_squares(&self, color: Color) -> Bitboard {
        let occ = self.board.occupied;
        let mut out = Bitboard::EMPTY;
        for (sq, p) in self.board.pieces() {
            if p.color == color {
                out |= crate::attacks::attacks(p, sq, occ);
            }
        }
        out
    }

    /// The enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.attackers_to(self.our_king(), self.turn.other(), self.board.occupied)
    }

    /// `true` if the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Pieces of either colour that stand alone between `color`'s king and an
    /// enemy slider (pinned or discovered-check candidates).
    pub fn blockers_for(&self, color: Color) -> Bitboard {
        let king = self.king(color);
        let b = &self.board;
        let them = b.by_color(color.other());
        let snipers = ((rook_attacks(king, Bitboard::EMPTY) & b.straight_sliders())
            | (bishop_attacks(king, Bitboard::EMPTY) & b.diagonal_sliders()))
            & them;
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let bb = between(king, s) & b.occupied;
            if bb.any() && !bb.more_than_one() {
                blockers |= bb;
            }
        }
        blockers
    }

    /// Pieces of the side to move that are pinned to their king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.blockers_for(self.turn) & self.board.by_color(self.turn)
    }

    /// The Polyglot-compatible Zobrist key of this position.
    ///
    /// Like PolyGlot, it includes the en passant file whenever a pawn of the
    /// side to move stands beside the pawn that just made a double step, even
    /// if the capture is illegal (a pinned pawn). FEN output writes the en
    /// passant square only when the capture is legal, so a position read back
    /// from its FEN can have a different Polyglot key in that rare case; the
    /// [`Position::repetition_key`] is the same.
    #[inline]
    pub fn zobrist(&self) -> u64 {
        match self.ep_square {
            Some(ep) => self.hash ^ zobrist::ep_key(ep.file()),
            None => self.hash,
        }
    }

    /// A 64-bit key for repetition under FIDE 9.2.3: the en passant file
    /// counts only if an en passant capture is legal.
    #[inline]
    pub fn repetition_key(&self) -> u64 {
        match self.ep_square {
            Some(ep) if self.has_legal_en_passant() => self.hash ^ zobrist::ep_key(ep.file()),
            _ => self.hash,
        }
    }

    /// `true` if the move resets the fifty-move count (a capture or a pawn move).
    pub fn is_zeroing(&self, m: Move) -> bool {
        let from = m.from();
        (self.board.pawns().contains(from))
            || (!m.is_castle() && self.board.by_color(self.turn.other()).contains(m.to()))
    }

    /// `true` if the move is a capture (en passant included).
    pub fn is_capture(&self, m: Move) -> bool {
        m.is_en_passant() || (!m.is_castle() && self.board.by_color(self.turn.other()).contains(m.to()))
    }

    /// `true` if the move can never be undone: captures, pawn moves, castling
    /// and moves that lose castling rights. Positions before such a move can
    /// never repeat after it.
    pub fn is_irreversible(&self, m: Move) -> bool {
        self.is_zeroing(m)
            || m.is_castle()
            || (self.castling.any() && {
                let mine = self.castling & Bitboard::from_rank(self.turn.back_rank());
                (mine.any() && self.our_king() == m.from())
                    || self.castling.contains(m.from())
                    || self.castling.contains(m.to())
            })
    }

    /// Plays a move after checking that it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if the move is not legal here; the position is
    /// unchanged.
    pub fn play(&self, m: Move) -> Result<Position, IllegalMoveError> {
        if self.is_legal(m) {
            let mut next = *self;
            next.play_unchecked(m);
            Ok(next)
        } else {
            Err(IllegalMoveError { uci: crate::uci::UciText::from_move(self, m) })
        }
    }

    /// Plays a move known to be legal (from [`Position::legal_moves`] or
    /// checked with [`Position::is_legal`]). An illegal move leaves the
    /// position in an unspecified (but memory-safe) state.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        *self = self.after(m);
    }

    /// The position after `m`, which must be legal (from
    /// [`Position::legal_moves`] or checked with [`Position::is_legal`]); an
    /// illegal move gives an unspecified (but memory-safe) position.
    ///
    /// The new position is assembled from values computed out of `self`
    /// rather than copied and patched in place: reading back parts of a
    /// freshly copied struct stalls store forwarding, and this is the
    /// hottest function of every search.
    #[must_use]
    #[inline(always)]
    pub fn after(&self, m: Move) -> Position {
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let from_bb = Bitboard::from_square(from).0;
        let to_bb = Bitboard::from_square(to).0;
        let b = &self.board;
        let mut by_role =
            [b.by_role[0].0, b.by_role[1].0, b.by_role[2].0, b.by_role[3].0, b.by_role[4].0, b.by_role[5].0];
        let mut by_color = [b.by_color[0].0, b.by_color[1].0];
        let mut hash = self.hash ^ zobrist::turn_key();
        let mut castling = self.castling;
        let mut halfmoves = self.halfmoves + 1;
        let mut ep_square = None;
        if castling.any() {
            // Rights go when the king moves (castling included) or when a
            // rook leaves or is captured on its square. Rare, so the key is
            // fixed up here while both kings still stand where the rights
            // were granted.
            let mut removed = castling & Bitboard(from_bb | to_bb);
            if b.kings().contains(from) {
                removed |= castling & Bitboard::from_rank(us.back_rank());
            }
            if removed.any() {
                hash ^= zobrist::castling_rights_key(self, removed);
                castling = castling - removed;
            }
        }
        let u = us.index();
        let t = them.index();
        match m.kind() {
            MoveKind::Normal => {
                let role = b.role_at(from).unwrap_or(Role::Pawn);
                if b.occupied.0 & to_bb != 0 {
                    if let Some(victim) = b.role_at(to) {
                        toggle(&mut by_role, victim, to_bb);
                        by_color[t] ^= to_bb;
                        hash ^= zobrist::piece_key(Piece { color: them, role: victim }, to);
                    }
                    halfmoves = 0;
                }
                toggle(&mut by_role, role, from_bb | to_bb);
                by_color[u] ^= from_bb | to_bb;
                let moving = Piece { color: us, role };
                hash ^= zobrist::piece_key(moving, from) ^ zobrist::piece_key(moving, to);
                if role == Role::Pawn {
                    halfmoves = 0;
                }
            }
            MoveKind::DoublePush => {
                let moving = Piece { color: us, role: Role::Pawn };
                by_role[Role::Pawn.index()] ^= from_bb | to_bb;
                by_color[u] ^= from_bb | to_bb;
                hash ^= zobrist::piece_key(moving, from) ^ zobrist::piece_key(moving, to);
                halfmoves = 0;
                let passed = Square::from_index_unchecked((from.index() as u32 + to.index() as u32) / 2);
                if (pawn_attacks(us, passed).0 & b.by_role[Role::Pawn.index()].0 & b.by_color[t].0) != 0 {
                    ep_square = Some(passed);
                }
            }
            MoveKind::EnPassant => {
                let moving = Piece { color: us, role: Role::Pawn };
                let victim_sq = Square::from_coords(to.file(), from.rank());
                let victim_bb = Bitboard::from_square(victim_sq).0;
                by_role[Role::Pawn.index()] ^= from_bb | to_bb | victim_bb;
                by_color[u] ^= from_bb | to_bb;
                by_color[t] ^= victim_bb;
                hash ^= zobrist::piece_key(moving, from)
                    ^ zobrist::piece_key(moving, to)
                    ^ zobrist::piece_key(Piece { color: them, role: Role::Pawn }, victim_sq);
                halfmoves = 0;
            }
            MoveKind::Castle => {
                let side = CastlingSide::from_files(from.file(), to.file());
                let king = Piece { color: us, role: Role::King };
                let rook = Piece { color: us, role: Role::Rook };
                let king_to = side.king_to(us);
                let rook_to = side.rook_to(us);
                let king_to_bb = Bitboard::from_square(king_to).0;
                let rook_to_bb = Bitboard::from_square(rook_to).0;
                // The squares may overlap in Chess960, hence the XORs in order.
                by_role[Role::King.index()] ^= from_bb ^ king_to_bb;
                by_role[Role::Rook.index()] ^= to_bb ^ rook_to_bb;
                by_color[u] ^= from_bb ^ to_bb;
                by_color[u] |= king_to_bb | rook_to_bb;
                hash ^= zobrist::piece_key(king, from)
                    ^ zobrist::piece_key(king, king_to)
                    ^ zobrist::piece_key(rook, to)
                    ^ zobrist::piece_key(rook, rook_to);
            }
            MoveKind::Promotion(role) => {
                if let Some(victim) = b.role_at(to) {
                    toggle(&mut by_role, victim, to_bb);
                    by_color[t] ^= to_bb;
                    hash ^= zobrist::piece_key(Piece { color: them, role: victim }, to);
                }
                by_role[Role::Pawn.index()] ^= from_bb;
                toggle(&mut by_role, role, to_bb);
                by_color[u] ^= from_bb | to_bb;
                hash ^= zobrist::piece_key(Piece { color: us, role: Role::Pawn }, from)
                    ^ zobrist::piece_key(Piece { color: us, role }, to);
                halfmoves = 0;
            }
        }
        Position {
            board: Board {
                by_role: by_role.map(Bitboard),
                by_color: [Bitboard(by_color[0]), Bitboard(by_color[1])],
                occupied: Bitboard(by_color[0] | by_color[1]),
            },
            turn: them,
            castling,
            ep_square,
            halfmoves,
            fullmoves: self.fullmoves + us.index() as u32,
            hash,
            mode: self.mode,
        }
    }

    /// Plays `m` as the pieces were moved on the board, even if the Laws do
    /// not allow it: the move of a competition where an illegal move that
    /// nobody acted on stands (FIDE A.5.2). The result keeps one king per
    /// side but may leave the mover's king in check or a pawn on its first or
    /// last rank (see [`Position::irregularity`]); legal move generation
    /// stays sound on it and never lists a capture of the king.
    ///
    /// The kind of `m` says what was moved: [`MoveKind::Normal`] moves the one
    /// piece on `from` to `to` (a pawn reaching its last rank stays a pawn);
    /// a promotion replaces the pawn; castling moves king and rook; en
    /// passant removes the pawn passed; a double push allows en passant as
    /// after a legal one. A legal move gives the same position as
    /// [`Position::play`].
    ///
    /// # Errors
    /// [`IrregularMoveError`] when the move cannot be made with the pieces on
    /// the board (no piece of the side to move on `from`, one of its own
    /// pieces on `to`, a castling rook without its right or with pieces in
    /// the way...), or when it would capture a king.
    pub fn play_irregular(&self, m: Move) -> Result<Position, IrregularMoveError> {
        let us = self.turn;
        let b = &self.board;
        let from = m.from();
        let to = m.to();
        let piece =
            b.piece_at(from).filter(|p| p.color == us).ok_or(IrregularMoveError::NoPieceToMove(from))?;
        if from == to {
            return Err(IrregularMoveError::NullMove(from));
        }
        let pawn = piece.role == Role::Pawn;
        match m.kind() {
            MoveKind::Normal | MoveKind::Promotion(_) => {
                if b.by_color(us).contains(to) {
                    return Err(IrregularMoveError::OwnPieceOnTarget(to));
                }
                if b.kings().contains(to) {
                    return Err(IrregularMoveError::CapturesKing(to));
                }
                let last = to.rank() == crate::types::Rank::Eighth.relative_to(us);
                if m.is_promotion() && !(pawn && last) {
                    return Err(IrregularMoveError::WrongKind("promotion"));
                }
            }
            MoveKind::DoublePush => {
                let start = from.rank() == crate::types::Rank::Second.relative_to(us);
                let passed = Square::from_index_unchecked((from.index() as u32 + to.index() as u32) / 2);
                let straight = from.file() == to.file() && from.index().abs_diff(to.index()) == 16;
                let forward = (to.index() > from.index()) == (us == Color::White);
                if !(pawn && start && straight && forward)
                    || b.occupied.contains(passed)
                    || b.occupied.contains(to)
                {
                    return Err(IrregularMoveError::WrongKind("double push"));
                }
            }
            MoveKind::EnPassant => {
                let victim = Square::from_coords(to.file(), from.rank());
                let ok = pawn
                    && self.ep_square == Some(to)
                    && pawn_attacks(us, from).contains(to)
                    && b.piece_at(victim) == Some(Piece { color: us.other(), role: Role::Pawn });
                if !ok {
                    return Err(IrregularMoveError::WrongKind("capture en passant"));
                }
            }
            MoveKind::Castle => {
                // King and rook must both stand on their castling squares,
                // with the right, and nothing else in the way: otherwise the
                // two pieces could not have been moved at all.
                let rook_ok = self.castling.contains(to)
                    && b.piece_at(to) == Some(Piece { color: us, role: Role::Rook })
                    && piece.role == Role::King;
                if !rook_ok {
                    return Err(IrregularMoveError::WrongKind("castling"));
                }
                let side = CastlingSide::from_files(from.file(), to.file());
                let (king_to, rook_to) = (side.king_to(us), side.rook_to(us));
                let paths = between(from, king_to)
                    | Bitboard::from_square(king_to)
                    | between(to, rook_to)
                    | Bitboard::from_square(rook_to);
                let movers = Bitboard::from_square(from) | Bitboard::from_square(to);
                if ((paths - movers) & b.occupied).any() {
                    return Err(IrregularMoveError::WrongKind("castling"));
                }
            }
        }
        // Every case above leaves a move `after` can make: one piece of the
        // mover onto a square free of his pieces and of kings, or a special
        // move whose squares were just checked.
        Ok(self.after(m))
    }

    /// Why this position cannot arise from legal moves, as far as play
    /// depends on it: a pawn on the first or last rank
    /// ([`crate::PositionError::PawnOnBackRank`]) or the side not to move in
    /// check ([`crate::PositionError::OppositeCheck`]; with the side to move in
    /// check too, both kings are in check). `None` for every position legal
    /// moves reach. Only [`Position::play_irregular`] and an
    /// [`crate::Strictness::Irregular`] FEN make the others.
    pub fn irregularity(&self) -> Option<crate::PositionError> {
        if let Some(sq) = (self.board.pawns() & Bitboard::BACKRANKS).first() {
            return Some(crate::PositionError::PawnOnBackRank(sq));
        }
        let them = self.turn.other();
        if self.attackers_to(self.king(them), self.turn, self.board.occupied).any() {
            return Some(crate::PositionError::OppositeCheck(them));
        }
        None
    }

    /// Passes the turn without moving (a "null move"). Used by analysis code
    /// only; never legal in a game.
    #[must_use]
    pub fn null_move(&self) -> Position {
        let mut next = *self;
        next.turn = self.turn.other();
        next.ep_square = None;
        next.hash ^= zobrist::turn_key();
        next
    }

    /// Does the piece on `from` belong to the side to move?
    pub fn is_ours(&self, sq: Square) -> bool {
        self.board.by_color(self.turn).contains(sq)
    }

    /// Files of the castling rooks, for FEN output.
    pub(crate) fn castling_rook_files(&self, color: Color) -> impl Iterator<Item = File> + '_ {
        (self.castling & Bitboard::from_rank(color.back_rank())).iter().map(|s| s.file())
    }
}

/// XORs `mask` into the bitboard of `role`, written out so that the six
/// bitboards stay in registers (no run-time array index, no vector code),
/// and without a branch on the role: a jump by role was a mispredicted
/// indirect branch in most first plays of a move (the helpmate searches
/// play each move once).
#[inline(always)]
fn toggle(by_role: &mut [u64; 6], role: Role, mask: u64) {
    let r = role as u64;
    by_role[0] ^= mask & 0u64.wrapping_sub(u64::from(r == 0));
    by_role[1] ^= mask & 0u64.wrapping_sub(u64::from(r == 1));
    by_role[2] ^= mask & 0u64.wrapping_sub(u64::from(r == 2));
    by_role[3] ^= mask & 0u64.wrapping_sub(u64::from(r == 3));
    by_role[4] ^= mask & 0u64.wrapping_sub(u64::from(r == 4));
    by_role[5] ^= mask & 0u64.wrapping_sub(u64::from(r == 5));
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.castling == other.castling
            && self.legal_ep_square() == other.legal_ep_square()
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.repetition_key());
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::fen::Fen::from_position(self))
    }
}
