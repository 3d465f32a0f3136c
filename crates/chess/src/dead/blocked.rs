//! Semi-static analysis: which squares can each piece ever reach, given the
//! pawns that can never move again?
//!
//! The analysis computes a *self-consistent* set `F` of frozen pawns and,
//! assuming every pawn of `F` stays where it is forever, an over-approximation
//! of the squares every other piece can ever occupy or attack. A pawn stays
//! in `F` only if
//!
//! 1. the square in front of it holds a pawn of `F` (so it can never push),
//! 2. no enemy piece other than the king can ever stand on a square it
//!    attacks (so it can never capture), and
//! 3. no enemy piece can ever attack its own square (so it is never captured;
//!    an enemy king may attack it only where a frozen pawn defends it).
//!
//! Pawns that leave `F` are either *mobile along their file* (the squares in
//! front up to the first frozen pawn or *solid* enemy pawn, never reaching the
//! last rank, and with no enemy piece other than the king, which is never
//! captured, ever able to stand on a square they could capture on) or *wild*:
//! a wild pawn may promote, so it is assumed to reach and attack every square.
//! A mobile pawn is *solid* if no enemy can ever attack a square of its path:
//! it is never captured and never leaves its file, so an enemy pawn on the
//! same file can never get past it. `F` and the solid set only shrink and the
//! wild set only grows, so the iteration ends; at the
//! fixpoint the assumptions justify themselves: by induction on the moves of
//! any continuation, the first move that disturbed a frozen pawn would need a
//! piece outside its computed region, which is impossible.
//!
//! Pieces other than pawns and kings may be frozen too: a piece is frozen if,
//! with every frozen piece as a wall, it has nowhere to go and no enemy can
//! ever attack it (a bishop shut in by its own blocked pawns is a wall).
//!
//! Kings never enter squares permanently attacked by enemy frozen pieces (a
//! frozen pawn's or knight's attacks, a frozen slider's next squares), and
//! never capture a piece such a square protects. Castling and en passant are not modelled: positions with
//! castling rights or an en passant square are left to the search.
//!
//! With the regions, "cannot mate" is proved when
//! * no piece of the winner (other than its king, which never checks) can
//!   ever attack a square the loser's king can ever stand on, or
//! * the only such pieces are bishops of one square colour, and every square
//!   where the king could be checked has a neighbour of the other colour in
//!   the king's region that no loser piece can ever occupy and the winner's
//!   king can never guard: that flight square is always open.

use crate::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, Role, Square};

/// The squares one step forward for `color`.
#[inline]
fn forward(color: Color, sq: Square) -> Option<Square> {
    sq.offset(if color.is_white() { 8 } else { -8 })
}

/// All squares a king step away from any square of `bb`.
#[inline]
fn king_dilate(bb: Bitboard) -> Bitboard {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let b = bb.0;
    let lr = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | lr;
    Bitboard(lr | (row << 8) | (row >> 8))
}

/// The squares a pawn on `from` may stand on while it stays on its file,
/// stopping before any square of `stops`; and whether it reaches the last rank.
fn pawn_path(color: Color, from: Square, stops: Bitboard) -> (Bitboard, bool) {
    let mut path = Bitboard::from_square(from);
    let mut cur = from;
    let mut promotes = false;
    while let Some(n) = forward(color, cur) {
        if stops.contains(n) {
            break;
        }
        path.add(n);
        if n.rank() == color.other().back_rank() {
            promotes = true;
        }
        cur = n;
    }
    (path, promotes)
}

/// Region and attacks of one piece.
#[derive(Clone, Copy)]
struct Reach {
    region: Bitboard,
    attacks: Bitboard,
}

fn flood_knight(from: Square, walls: Bitboard) -> Reach {
    let mut region = Bitboard::from_square(from);
    let mut frontier = region;
    let mut attacks = Bitboard::EMPTY;
    while frontier.any() {
        let mut next = Bitboard::EMPTY;
        for s in frontier {
            next |= knight_attacks(s);
        }
        attacks |= next;
        frontier = next - walls - region;
        region |= frontier;
    }
    Reach { region, attacks }
}

fn flood_slider(role: Role, from: Square, walls: Bitboard) -> Reach {
    let mut region = Bitboard::from_square(from);
    let mut frontier = region;
    let mut attacks = Bitboard::EMPTY;
    while frontier.any() {
        let mut next = Bitboard::EMPTY;
        for s in frontier {
            next |= match role {
                Role::Bishop => bishop_attacks(s, walls),
                Role::Rook => rook_attacks(s, walls),
                _ => queen_attacks(s, walls),
            };
        }
        attacks |= next;
        frontier = next - walls - region;
        region |= frontier;
    }
    Reach { region, attacks }
}

fn flood_king(from: Square, forbidden: Bitboard) -> Bitboard {
    let mut region = Bitboard::from_square(from);
    loop {
        let next = region | (king_dilate(region) - forbidden);
        if next == region {
            return region;
        }
        region = next;
    }
}

/// Everything the analysis found, for one state of the fixpoint.
struct Regions {
    /// Squares some non-king piece of each colour may ever stand on (frozen
    /// pawns included).
    occupiable: [Bitboard; 2],
    /// Squares some non-king piece of each colour may ever attack (frozen
    /// pawns included).
    attacks: [Bitboard; 2],
    /// Squares each king may ever stand on.
    king_region: [Bitboard; 2],
    /// Permanent attacks of frozen pieces, by colour.
    frozen_attacks: [Bitboard; 2],
    /// Per colour: attacks of bishops on dark squares, on light squares, and
    /// of every other non-king piece that is not frozen.
    dark_bishops: [Bitboard; 2],
    light_bishops: [Bitboard; 2],
    others: [Bitboard; 2],
}

fn compute(pos: &Position, frozen: Bitboard, wild: Bitboard, solid: Bitboard) -> Regions {
    let b = pos.board();
    let mut r = Regions {
        occupiable: [Bitboard::EMPTY; 2],
        attacks: [Bitboard::EMPTY; 2],
        king_region: [Bitboard::EMPTY; 2],
        frozen_attacks: [Bitboard::EMPTY; 2],
        dark_bishops: [Bitboard::EMPTY; 2],
        light_bishops: [Bitboard::EMPTY; 2],
        others: [Bitboard::EMPTY; 2],
    };
    for c in Color::ALL {
        for s in frozen & b.by_color(c) {
            // Permanent attacks: a frozen piece always attacks the squares next
            // to it on its lines (nothing can ever stand in between).
            r.frozen_attacks[c.index()] |= match b.role_at(s) {
                Some(Role::Pawn) => pawn_attacks(c, s),
                Some(Role::Knight) => knight_attacks(s),
                Some(Role::Bishop) => bishop_attacks(s, Bitboard::FULL),
                Some(Role::Rook) => rook_attacks(s, Bitboard::FULL),
                Some(Role::Queen) => queen_attacks(s, Bitboard::FULL),
                _ => Bitboard::EMPTY,
            };
        }
    }
    for c in Color::ALL {
        let ci = c.index();
        let mine = b.by_color(c);
        r.occupiable[ci] |= frozen & b.pawns() & mine;
        r.attacks[ci] |= r.frozen_attacks[ci];
        for s in mine - (frozen & b.pawns()) - b.kings() {
            let Some(role) = b.role_at(s) else { continue };
            let reach = match role {
                Role::Pawn if wild.contains(s) => Reach { region: Bitboard::FULL, attacks: Bitboard::FULL },
                Role::Pawn => {
                    let (path, _) = pawn_path(c, s, frozen | (solid & b.pawns() & b.by_color(c.other())));
                    let mut attacks = Bitboard::EMPTY;
                    for q in path {
                        attacks |= pawn_attacks(c, q);
                    }
                    Reach { region: path, attacks }
                }
                Role::Knight => flood_knight(s, frozen),
                Role::King => continue,
                slider => flood_slider(slider, s, frozen),
            };
            r.occupiable[ci] |= reach.region;
            r.attacks[ci] |= reach.attacks;
            match role {
                Role::Bishop if s.is_dark() => r.dark_bishops[ci] |= reach.attacks,
                Role::Bishop => r.light_bishops[ci] |= reach.attacks,
                _ => r.others[ci] |= reach.attacks,
            }
        }
    }
    for c in Color::ALL {
        let forbidden = frozen | r.frozen_attacks[c.other().index()];
        r.king_region[c.index()] = flood_king(pos.king(c), forbidden);
    }
    r
}

/// `true` if the pawn structure and piece regions prove that `winner` can
/// never checkmate, whatever both sides play. Never `true` when a helpmate
/// exists; `false` means "not proved".
pub(crate) fn blocked_cannot_mate(pos: &Position, winner: Color) -> bool {
    if pos.castling_rooks().any() || pos.pseudo_ep_square().is_some() {
        return false;
    }
    let b = pos.board();
    let pawns = b.pawns();
    // Initial guess: every pawn with a piece (not a king) right in front of it.
    let mut frozen = Bitboard::EMPTY;
    for c in Color::ALL {
        for s in pawns & b.by_color(c) {
            if forward(c, s).is_some_and(|n| (b.occupied() - b.kings()).contains(n)) {
                frozen.add(s);
            }
        }
    }
    // A proof needs nearly every pawn locked: skip the analysis otherwise
    // (this only saves time; it never changes a proof into a wrong answer).
    if frozen.count() < 2 || (pawns - frozen).count() > 8 {
        return false;
    }
    // Other pieces start frozen too (the fixpoint frees every piece that can
    // move or be captured); kings never are.
    frozen |= b.occupied() - b.pawns() - b.kings();
    let mut wild = Bitboard::EMPTY;
    // Pawns off the frozen set that never leave their file and are never
    // captured: a pawn of the other colour on the same file cannot pass them.
    let mut solid = pawns;
    let regions = loop {
        let r = compute(pos, frozen, wild, solid);
        let mut new_frozen = frozen;
        let mut new_wild = wild;
        let mut new_solid = solid;
        for c in Color::ALL {
            let ci = c.index();
            let oi = c.other().index();
            // Kings are never captured, so only the other pieces count here.
            let enemy_occ = r.occupiable[oi];
            let enemy_hits = r.attacks[oi] | (king_dilate(r.king_region[oi]) - r.frozen_attacks[ci]);
            let enemy_solid = solid & pawns & b.by_color(c.other());
            for s in frozen & b.by_color(c) & !pawns {
                let Some(role) = b.role_at(s) else { continue };
                let region = match role {
                    Role::Knight => flood_knight(s, frozen).region,
                    _ => flood_slider(role, s, frozen).region,
                };
                if region != Bitboard::from_square(s) || enemy_hits.contains(s) {
                    new_frozen.remove(s);
                }
            }
            for s in pawns & b.by_color(c) {
                if frozen.contains(s) {
                    let front_ok = forward(c, s).is_some_and(|n| frozen.contains(n));
                    if !front_ok || (pawn_attacks(c, s) & enemy_occ).any() || enemy_hits.contains(s) {
                        new_frozen.remove(s);
                    }
                } else if !wild.contains(s) {
                    // Mobile along its file: wild if it could promote or capture.
                    let (path, promotes) = pawn_path(c, s, frozen | enemy_solid);
                    let mut diag = Bitboard::EMPTY;
                    for q in path {
                        diag |= pawn_attacks(c, q);
                    }
                    if promotes || (diag & enemy_occ).any() {
                        new_wild.add(s);
                        new_solid.remove(s);
                    } else if (path & enemy_hits).any() {
                        new_solid.remove(s);
                    }
                }
            }
        }
        if new_frozen == frozen && new_wild == wild && new_solid == solid {
            break r;
        }
        frozen = new_frozen;
        wild = new_wild;
        solid = new_solid;
        if (frozen & pawns).is_empty() {
            return false;
        }
    };

    let wi = winner.index();
    let li = winner.other().index();
    let king_region = regions.king_region[li];
    if (regions.attacks[wi] & king_region).is_empty() {
        return true;
    }
    if (regions.others[wi] & king_region).any() {
        return false;
    }
    let dark = regions.dark_bishops[wi] & king_region;
    let light = regions.light_bishops[wi] & king_region;
    let (checks, other_colour) = match (dark.any(), light.any()) {
        (true, false) => (dark, Bitboard::LIGHT_SQUARES),
        (false, true) => (light, Bitboard::DARK_SQUARES),
        _ => return false,
    };
    let loser_blockers = regions.occupiable[li];
    let winner_king_guard = king_dilate(regions.king_region[wi]);
    // Every square where the king could be checked must keep an open flight.
    checks.iter().all(|s| {
        let flights = king_attacks(s) & king_region & other_colour;
        (flights - loser_blockers - winner_king_guard).any()
    })
}
