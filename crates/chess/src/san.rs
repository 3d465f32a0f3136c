//! Standard Algebraic Notation: canonical output and a tolerant reader for
//! the SAN found in real game scores; also long algebraic (LAN) output.

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{CastlingSide, File, Move, MoveKind, Rank, Role, Square};

/// Why a SAN move was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    #[error("{0:?} is not a move in algebraic notation")]
    Syntax(String),
    #[error("{0} is not a legal move in this position")]
    Illegal(String),
    #[error("{san} is ambiguous: it could be {candidates}")]
    Ambiguous { san: String, candidates: String },
    #[error("{0} reaches the last rank but names no promotion piece")]
    MissingPromotion(String),
}

/// A parsed SAN move, not yet matched against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    Normal {
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
    Castle(CastlingSide),
}

impl San {
    /// Parses SAN text tolerantly: castling with `O` or `0`, promotion with or
    /// without `=` (also `(Q)` and `/Q`), `:` for captures, an optional `P`
    /// for pawns, trailing `+`, `#`, `!`, `?` and ` e.p.` are ignored, and
    /// redundant disambiguation is allowed.
    ///
    /// # Errors
    /// [`SanError::Syntax`] if the text is not a SAN move.
    pub fn parse(text: &str) -> Result<San, SanError> {
        let bad = || SanError::Syntax(text.to_owned());
        let mut s = text.trim();
        for suffix in ["e.p.", "ep"] {
            if let Some(rest) = s.strip_suffix(suffix)
                && rest.len() >= 2
            {
                s = rest.trim_end();
            }
        }
        let s = s.trim_end_matches(['+', '#', '!', '?', '‼', '⁇', '⁈', '⁉']);
        if s.is_empty() || !s.is_ascii() {
            return Err(bad());
        }
        match s {
            "O-O" | "0-0" | "o-o" => return Ok(San::Castle(CastlingSide::KingSide)),
            "O-O-O" | "0-0-0" | "o-o-o" => return Ok(San::Castle(CastlingSide::QueenSide)),
            _ => {}
        }
        let mut b = s.as_bytes();
        // Promotion suffix.
        let mut promotion = None;
        if let Some(&last) = b.last() {
            if let Some(role) = Role::from_char(last as char).filter(|_| last.is_ascii_uppercase()) {
                let before = &b[..b.len() - 1];
                let before =
                    before.strip_suffix(b"=").or_else(|| before.strip_suffix(b"/")).unwrap_or(before);
                // Only a promotion if what remains ends in a square.
                if before.len() >= 2 && before[before.len() - 1].is_ascii_digit() {
                    promotion = Some(role);
                    b = before;
                }
            } else if last == b')' && b.len() >= 4 && b[b.len() - 3] == b'(' {
                let c = b[b.len() - 2];
                if c.is_ascii_uppercase() {
                    promotion = Some(Role::from_char(c as char).ok_or_else(bad)?);
                    b = &b[..b.len() - 3];
                }
            }
        }
        if promotion.is_some_and(|r| matches!(r, Role::Pawn | Role::King)) {
            return Err(bad());
        }
        if b.len() < 2 {
            return Err(bad());
        }
        let to = Square::from_coords(
            File::from_char(b[b.len() - 2] as char).ok_or_else(bad)?,
            Rank::from_char(b[b.len() - 1] as char).ok_or_else(bad)?,
        );
        let mut rest = &b[..b.len() - 2];
        let mut capture = false;
        if let Some(r) = rest.strip_suffix(b"x").or_else(|| rest.strip_suffix(b":")) {
            capture = true;
            rest = r;
        } else if let Some(r) = rest.strip_suffix(b"-") {
            rest = r;
        }
        let (role, rest) = match rest.first() {
            Some(&c) if c.is_ascii_uppercase() => (Role::from_char(c as char).ok_or_else(bad)?, &rest[1..]),
            _ => (Role::Pawn, rest),
        };
        let (file, rank) = match rest {
            [] => (None, None),
            [f] if File::from_char(*f as char).is_some() => (File::from_char(*f as char), None),
            [r] if Rank::from_char(*r as char).is_some() => (None, Rank::from_char(*r as char)),
            [f, r] => (
                Some(File::from_char(*f as char).ok_or_else(bad)?),
                Some(Rank::from_char(*r as char).ok_or_else(bad)?),
            ),
            _ => return Err(bad()),
        };
        if promotion.is_some() && role != Role::Pawn {
            return Err(bad());
        }
        Ok(San::Normal { role, file, rank, capture, to, promotion })
    }

    /// The legal move this SAN denotes in `pos`.
    ///
    /// # Errors
    /// [`SanError::Illegal`], [`SanError::Ambiguous`] or
    /// [`SanError::MissingPromotion`].
    pub fn to_move(&self, pos: &Position, text: &str) -> Result<Move, SanError> {
        match *self {
            San::Castle(side) => {
                let king = Bitboard::from_square(pos.king(pos.turn()));
                pos.legal_moves_filtered(king, Bitboard::FULL)
                    .iter()
                    .copied()
                    .find(|m| m.castling_side() == Some(side))
                    .ok_or_else(|| SanError::Illegal(text.to_owned()))
            }
            San::Normal { role, file, rank, capture: _, to, promotion } => {
                if promotion.is_none()
                    && let Some(m) = unique_simple_move(pos, role, file, rank, to)
                {
                    return Ok(m);
                }
                let b = pos.board();
                let mut from_mask = b.by_role(role) & b.by_color(pos.turn());
                if let Some(f) = file {
                    from_mask &= Bitboard::from_file(f);
                }
                if let Some(r) = rank {
                    from_mask &= Bitboard::from_rank(r);
                }
                let candidates = pos.legal_moves_filtered(from_mask, Bitboard::from_square(to));
                let mut found: Option<Move> = None;
                let mut others = Vec::new();
                let mut needs_promotion = false;
                for &m in candidates.iter() {
                    if m.is_castle() {
                        continue;
                    }
                    // A pawn move without a file is a push: "d5" never means a capture.
                    if role == Role::Pawn && file.is_none() && m.from().file() != to.file() {
                        continue;
                    }
                    match (m.promotion_role(), promotion) {
                        (Some(r), Some(p)) if r != p => continue,
                        (Some(_), None) => {
                            needs_promotion = true;
                            continue;
                        }
                        (None, Some(_)) => continue,
                        _ => {}
                    }
                    if found.is_some() {
                        others.push(m);
                    } else {
                        found = Some(m);
                    }
                }
                match found {
                    Some(m) if others.is_empty() => Ok(m),
                    Some(m) => {
                        let mut names: Vec<String> =
                            std::iter::once(m).chain(others).map(|m| pos.san(m)).collect();
                        names.sort();
                        Err(SanError::Ambiguous { san: text.to_owned(), candidates: names.join(" or ") })
                    }
                    None if needs_promotion => Err(SanError::MissingPromotion(text.to_owned())),
                    None => Err(SanError::Illegal(text.to_owned())),
                }
            }
        }
    }
}

/// The fast path of [`San::to_move`] for the common case: a move that is
/// not castling, en passant or a promotion, with exactly one legal
/// candidate. Legality comes from the pin and check rules that the move
/// generator uses; `None` sends every other case (errors, ambiguity, the
/// special moves) to the general path, which gives the same answer for the
/// moves found here.
#[inline]
fn unique_simple_move(
    pos: &Position,
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    to: Square,
) -> Option<Move> {
    let us = pos.turn();
    let them = us.other();
    let b = pos.board();
    let ours = b.by_color(us);
    let occ = b.occupied();
    let to_bb = Bitboard::from_square(to);
    if ours.contains(to) {
        return None;
    }
    let mut mask = ours & b.by_role(role);
    if let Some(f) = file {
        mask &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        mask &= Bitboard::from_rank(r);
    }
    let king = pos.king(us);
    if role == Role::King {
        let ok = mask.contains(king)
            && king_attacks(king).contains(to)
            && pos.attackers_to(to, them, occ - Bitboard::from_square(king)).is_empty();
        return ok.then(|| Move::normal(king, to));
    }
    let mut double = false;
    let candidates = match role {
        Role::Pawn => {
            if to.rank() == Rank::Eighth.relative_to(us) {
                return None; // promotions
            }
            match file {
                // A push (single or double): "d5" never means a capture.
                None => {
                    if occ.contains(to) {
                        return None;
                    }
                    let back: i32 = if us.is_white() { -8 } else { 8 };
                    let one = to.offset(back)?;
                    if mask.contains(one) {
                        Bitboard::from_square(one)
                    } else if !occ.contains(one) && to.rank() == Rank::Fourth.relative_to(us) {
                        let two = one.offset(back)?;
                        if !mask.contains(two) {
                            return None;
                        }
                        double = true;
                        Bitboard::from_square(two)
                    } else {
                        return None;
                    }
                }
                // A capture from another file (en passant goes the general way).
                Some(f) if f != to.file() && b.by_color(them).contains(to) => pawn_attacks(them, to) & mask,
                Some(_) => return None,
            }
        }
        Role::Knight => knight_attacks(to) & mask,
        Role::Bishop => bishop_attacks(to, occ) & mask,
        Role::Rook => rook_attacks(to, occ) & mask,
        Role::Queen => (bishop_attacks(to, occ) | rook_attacks(to, occ)) & mask,
        Role::King => return None,
    };
    let checkers = pos.checkers();
    let target = match checkers.single_square() {
        _ if checkers.is_empty() => Bitboard::FULL,
        Some(checker) => between(king, checker) | Bitboard::from_square(checker),
        None => return None, // double check: only the king moves
    };
    if (target & to_bb).is_empty() {
        return None;
    }
    let pinned = pos.pinned();
    let mut found = None;
    for from in candidates {
        if pinned.contains(from) && (checkers.any() || !line(king, from).contains(to)) {
            continue;
        }
        if found.is_some() {
            return None; // ambiguous: let the general path say so
        }
        found = Some(from);
    }
    found.map(|from| if double { Move::double_push(from, to) } else { Move::normal(from, to) })
}

impl Position {
    /// Reads a move in (tolerant) SAN and checks that it is legal here.
    ///
    /// # Errors
    /// See [`San::parse`] and [`San::to_move`].
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        San::parse(text)?.to_move(self, text)
    }

    /// The canonical SAN of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> String {
        let mut s = self.san_without_suffix(m);
        let after = self.after(m);
        if after.is_check() {
            s.push(if after.has_legal_move() { '+' } else { '#' });
        }
        s
    }

    /// The SAN of a legal move without the check or mate suffix.
    pub fn san_without_suffix(&self, m: Move) -> String {
        let mut s = String::with_capacity(8);
        if let Some(side) = m.castling_side() {
            s.push_str(match side {
                CastlingSide::KingSide => "O-O",
                CastlingSide::QueenSide => "O-O-O",
            });
            return s;
        }
        let from = m.from();
        let to = m.to();
        let role = self.board().role_at(from).unwrap_or(Role::Pawn);
        let capture = self.is_capture(m);
        if role == Role::Pawn {
            if capture {
                s.push(from.file().char());
                s.push('x');
            }
        } else {
            s.push(role.upper_char());
            // Minimal disambiguation: file if it suffices, else rank, else both.
            let others = self.legal_moves_filtered(
                self.board().by_role(role)
                    & self.board().by_color(self.turn())
                    & !Bitboard::from_square(from),
                Bitboard::from_square(to),
            );
            let others: Vec<Square> = others.iter().filter(|o| !o.is_castle()).map(|o| o.from()).collect();
            if !others.is_empty() {
                let same_file = others.iter().any(|o| o.file() == from.file());
                let same_rank = others.iter().any(|o| o.rank() == from.rank());
                if !same_file {
                    s.push(from.file().char());
                } else if !same_rank {
                    s.push(from.rank().char());
                } else {
                    s.push(from.file().char());
                    s.push(from.rank().char());
                }
            }
            if capture {
                s.push('x');
            }
        }
        s.push(to.file().char());
        s.push(to.rank().char());
        if let MoveKind::Promotion(r) = m.kind() {
            s.push('=');
            s.push(r.upper_char());
        }
        s
    }

    /// Long algebraic notation: `Ng1-f3`, `e4xd5`, `e7-e8=Q`, `O-O`, with `+`/`#`.
    pub fn lan(&self, m: Move) -> String {
        let mut s = String::with_capacity(10);
        if let Some(side) = m.castling_side() {
            s.push_str(match side {
                CastlingSide::KingSide => "O-O",
                CastlingSide::QueenSide => "O-O-O",
            });
        } else {
            let role = self.board().role_at(m.from()).unwrap_or(Role::Pawn);
            if role != Role::Pawn {
                s.push(role.upper_char());
            }
            s.push_str(&m.from().to_string());
            s.push(if self.is_capture(m) { 'x' } else { '-' });
            s.push_str(&m.to().to_string());
            if let Some(r) = m.promotion_role() {
                s.push('=');
                s.push(r.upper_char());
            }
        }
        let after = self.after(m);
        if after.is_check() {
            s.push(if after.has_legal_move() { '+' } else { '#' });
        }
        s
    }
}
