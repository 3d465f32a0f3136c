//! Moves as a scoresheet or an operator writes them: UCI (`e2e4`, `e7e8q`),
//! SAN (`Nf3`, `O-O`, `exd6 e.p.`, `e8=Q`) and long algebraic (`Ng1-f3`,
//! `e7-e8`, `Nf6xg4`), read into the piece movement that was made, legal or
//! not, so that the Laws can rule it (Articles 4, 7 and 9).
//!
//! A scoresheet records what a player did, and a player may have made an
//! illegal move, an illegal castling or left a pawn unpromoted on the last
//! rank: such a move must reach the Laws to be ruled (7.5), not be refused
//! as "not a legal move". The text is read by its syntax and resolved
//! against the position, for the player who moved (DEC-27):
//!
//! 1. UCI gives both squares: taken as written (the promotion too).
//! 2. Long algebraic gives the origin: the movement of the piece on it. A
//!    piece letter that does not match the piece there is an error.
//! 3. SAN that names exactly one legal move of the player having the move is
//!    that move (so `Nd2` is the knight that may move there even when the
//!    other knight, pinned, could reach d2 on the board).
//! 4. Otherwise the candidates are the mover's pieces of the kind named (and
//!    on the file or rank named) that can make the movement, in turn by:
//!    the pseudo-legal geometry of the piece (blocked lines, own pieces on
//!    the destination and a pawn's captures respected, check ignored); the
//!    bare geometry of the piece (a line or diagonal jumped over pieces, a
//!    pawn pushed further than allowed, the nearest pawn behind the square
//!    on its file); and finally the only piece of that kind the mover has.
//!    The first of these that finds a candidate decides: one candidate is
//!    the movement; several are ambiguous, and the error names them. A pawn
//!    move written without a capture is a move on its file, with a capture
//!    (`cxb8`) from the file named.
//! 5. Castling (`O-O`, `O-O-O`) that is not legal is the king's movement
//!    towards its castling square with the castling intent (Law 4.4.2,
//!    DEC-13): the Laws rule it an illegal move (7.5.1).
//!
//! A pawn reaching the last rank without a promotion piece is left
//! without one: over the board that is an unfinished promotion (7.5.2).

use arbiter_chess::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use arbiter_chess::{Bitboard, CastlingSide, Color, File, Position, Rank, Role, San, Square};

use crate::event::MoveInput;

/// Why the text of a move could not be read into a movement.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// Nothing was written.
    #[error("a move is required")]
    Empty,
    /// Not a move in any notation the service reads.
    #[error(
        "`{text}` is not a move: expected UCI (`e2e4`, `e7e8q`, `e1g1`), SAN (`Nf3`, `O-O`, `exd6 e.p.`, \
         `e8=Q`) or long algebraic (`Ng1-f3`, `e7-e8`)"
    )]
    Syntax { text: String },
    /// Several pieces could have made the movement.
    #[error("{text} could be {}; write the origin square", or_list(candidates))]
    Ambiguous {
        text: String,
        /// The candidate movements in long algebraic (`Nf4-g6`), sorted.
        candidates: Vec<String>,
    },
    /// The mover has no piece of that kind (on the file or rank named).
    #[error("{text}: {color} has no {} {}", role.name(), where_named(*file, *rank))]
    NoPiece { text: String, color: Color, role: Role, file: Option<File>, rank: Option<Rank> },
    /// The mover has several pieces of that kind and none can make the
    /// movement, even jumping over pieces.
    #[error(
        "{text}: none of {color}'s {}s can move to {to}; it could be {}: write the origin square",
        role.name(), or_list(candidates)
    )]
    NoMovement {
        text: String,
        color: Color,
        role: Role,
        to: Square,
        /// Each piece's movement in long algebraic (`Nb8-g6`), sorted.
        candidates: Vec<String>,
    },
    /// Long algebraic names a piece that is not on the origin square.
    #[error("{text}: the piece on {from} is {}, not {}", article(found), article(&Some(*role)))]
    WrongPiece { text: String, from: Square, role: Role, found: Option<Role> },
    /// Castling written while the king is off its first rank or already on
    /// its castling square: no movement of the king towards it exists.
    #[error(
        "{text}: {color}'s king on {king} cannot move towards a castling square; write the movement made"
    )]
    NoCastlingMovement { text: String, color: Color, king: Square },
}

fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn article(role: &Option<Role>) -> String {
    match role {
        None => "empty".to_owned(),
        Some(r) => format!("a {}", r.name()),
    }
}

fn where_named(file: Option<File>, rank: Option<Rank>) -> String {
    match (file, rank) {
        (Some(f), Some(r)) => format!("on {}{}", f.char(), r.char()),
        (Some(f), None) => format!("on the {}-file", f.char()),
        (None, Some(r)) => format!("on rank {}", r.char()),
        (None, None) => "on the board".to_owned(),
    }
}

/// A movement in long algebraic, as the candidates are named: `Nf4-g6`,
/// `c7-b8` for a pawn.
fn lan(role: Role, from: Square, to: Square) -> String {
    let letter = if role == Role::Pawn { String::new() } else { role.upper_char().to_string() };
    format!("{letter}{from}-{to}")
}

/// Reads the text of a move made by `mover` in `position` (see the module
/// documentation for the notations and how a movement is found).
///
/// `castle` is the caller's explicit castling intent (Chess960, DEC-13); it
/// applies to UCI and long algebraic, while SAN castling sets it by itself.
///
/// # Errors
/// A [`MoveTextError`] for empty text, text in no notation, a piece letter
/// that does not match the origin square, no piece or no movement, or
/// several candidate pieces.
pub fn read_move(
    text: &str,
    position: &Position,
    mover: Color,
    castle: bool,
) -> Result<MoveInput, MoveTextError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(MoveTextError::Empty);
    }
    if let Ok(mv) = MoveInput::from_uci(text) {
        return Ok(MoveInput { castle, ..mv });
    }
    let san = San::parse(text).map_err(|_| MoveTextError::Syntax { text: text.to_owned() })?;
    // 3. SAN naming exactly one legal move of the player having the move.
    if mover == position.turn()
        && let Ok(m) = san.to_move(position, text)
    {
        let uci = position.uci(m);
        if let Ok(mv) = MoveInput::from_uci(uci.as_str()) {
            return Ok(MoveInput { castle: m.is_castle(), ..mv });
        }
    }
    match san {
        San::Castle(side) => castling_movement(text, position, mover, side),
        San::Normal { role, file: Some(file), rank: Some(rank), to, promotion, .. } => {
            let from = Square::from_coords(file, rank);
            if from == to {
                // `e2e2`, `e2-e2`: no movement at all.
                return Err(MoveTextError::Syntax { text: text.to_owned() });
            }
            let found = position.board().role_at(from);
            // Without a letter (`g1-f3`, coordinate notation) the piece on
            // the origin is meant, whatever it is.
            let lettered = role != Role::Pawn || text_names_pawn(text);
            if lettered && found.is_some_and(|r| r != role) {
                return Err(MoveTextError::WrongPiece { text: text.to_owned(), from, role, found });
            }
            Ok(MoveInput { from, to, promotion, castle })
        }
        // A capture sign changes nothing: the squares decide.
        San::Normal { role, file, rank, to, promotion, .. } => {
            let from = origin(text, position, mover, role, (file, rank), to)?;
            Ok(MoveInput { from, to, promotion, castle })
        }
    }
}

/// `true` when long algebraic text names the pawn with `P` (`Pe2-e4`).
fn text_names_pawn(text: &str) -> bool {
    text.starts_with('P')
}

/// Step 5: castling that is not legal, the king towards its castling square.
fn castling_movement(
    text: &str,
    position: &Position,
    mover: Color,
    side: CastlingSide,
) -> Result<MoveInput, MoveTextError> {
    let king = position.king(mover);
    let file = match side {
        CastlingSide::KingSide => File::G,
        CastlingSide::QueenSide => File::C,
    };
    let to = Square::from_coords(file, king.rank());
    if king.rank() != mover.back_rank() || to == king {
        return Err(MoveTextError::NoCastlingMovement { text: text.to_owned(), color: mover, king });
    }
    Ok(MoveInput { from: king, to, promotion: None, castle: true })
}

/// Step 4: the origin of a SAN movement given without both coordinates of
/// its origin (the file and rank the text gives, if any).
fn origin(
    text: &str,
    position: &Position,
    mover: Color,
    role: Role,
    (file, rank): (Option<File>, Option<Rank>),
    to: Square,
) -> Result<Square, MoveTextError> {
    let board = position.board();
    // A pawn moves on its file unless it captures from the file named.
    let file = if role == Role::Pawn { Some(file.unwrap_or(to.file())) } else { file };
    let mut pieces = board.by_role(role) & board.by_color(mover);
    if let Some(f) = file {
        pieces &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        pieces &= Bitboard::from_rank(r);
    }
    if pieces.is_empty() {
        return Err(MoveTextError::NoPiece { text: text.to_owned(), color: mover, role, file, rank });
    }
    let occupied = board.occupied();
    let own = board.by_color(mover);
    let pawn_capture = role == Role::Pawn && file != Some(to.file());
    let reach_pseudo = |from: Square| -> bool {
        if own.contains(to) {
            return false;
        }
        match role {
            Role::Knight => knight_attacks(from).contains(to),
            Role::Bishop => bishop_attacks(from, occupied).contains(to),
            Role::Rook => rook_attacks(from, occupied).contains(to),
            Role::Queen => (bishop_attacks(from, occupied) | rook_attacks(from, occupied)).contains(to),
            Role::King => king_attacks(from).contains(to),
            Role::Pawn if pawn_capture => {
                pawn_attacks(mover, from).contains(to)
                    && (occupied.contains(to) || position.pseudo_ep_square() == Some(to))
            }
            Role::Pawn => {
                let ahead = |s: Square, n: u32| step(s, mover, n);
                let start = from.rank() == Rank::Second.relative_to(mover);
                (ahead(from, 1) == Some(to) && !occupied.contains(to))
                    || (start
                        && ahead(from, 2) == Some(to)
                        && ahead(from, 1).is_some_and(|s| !occupied.contains(s))
                        && !occupied.contains(to))
            }
        }
    };
    let reach_bare = |from: Square| -> bool {
        match role {
            Role::Knight => knight_attacks(from).contains(to),
            Role::Bishop => bishop_attacks(from, Bitboard::EMPTY).contains(to),
            Role::Rook => rook_attacks(from, Bitboard::EMPTY).contains(to),
            Role::Queen => {
                (bishop_attacks(from, Bitboard::EMPTY) | rook_attacks(from, Bitboard::EMPTY)).contains(to)
            }
            Role::King => true,
            Role::Pawn if pawn_capture => pawn_attacks(mover, from).contains(to),
            // The nearest pawn behind the square on its file.
            Role::Pawn => nearest_behind(pieces, to, mover) == Some(from),
        }
    };
    for reach in [&reach_pseudo as &dyn Fn(Square) -> bool, &reach_bare] {
        let found: Vec<Square> = pieces.iter().filter(|&s| reach(s)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(*one),
            many => {
                return Err(MoveTextError::Ambiguous {
                    text: text.to_owned(),
                    candidates: named(many.iter().copied(), role, to),
                });
            }
        }
    }
    if let Some(only) = pieces.single_square() {
        return Ok(only);
    }
    Err(MoveTextError::NoMovement {
        text: text.to_owned(),
        color: mover,
        role,
        to,
        candidates: named(pieces.iter(), role, to),
    })
}

/// The movements from `origins` to `to`, in long algebraic, sorted as a
/// reader looks for them (by file, then rank).
fn named(origins: impl Iterator<Item = Square>, role: Role, to: Square) -> Vec<String> {
    let mut names: Vec<String> = origins.map(|from| lan(role, from, to)).collect();
    names.sort();
    names
}

/// The square `n` ranks ahead of `from` for `color`, if on the board.
fn step(from: Square, color: Color, n: u32) -> Option<Square> {
    let rank = from.rank().index();
    let target = match color {
        Color::White => rank.checked_add(n).filter(|&r| r < 8),
        Color::Black => rank.checked_sub(n),
    }?;
    Some(Square::from_coords(from.file(), Rank::new(target)))
}

/// Of `pawns`, the one nearest behind `to` on its file (for `color`).
fn nearest_behind(pawns: Bitboard, to: Square, color: Color) -> Option<Square> {
    (1..8).filter_map(|n| step(to, !color, n)).find(|s| pawns.contains(*s))
}
