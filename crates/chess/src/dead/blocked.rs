//! Semi-static analysis: which squares can each piece ever reach, given the
//! pawns that can never move again?
//!
//! The analysis computes a *self-consistent* set `F` of frozen pawns and,
//! assuming every pawn of `F` stays where it is forever, an over-approximation
//! of the squares every other piece can ever occupy or attack. A pawn stays
//! in `F` only if
//!
//! 1. the square in front of it holds a piece of `F`, or a king that can
//!    never move (its region is its own square), so it can never push,
//! 2. no enemy piece other than the king can ever stand on a square it
//!    attacks (so it can never capture), and
//! 3. no enemy piece can ever attack its own square (so it is never captured;
//!    an enemy king may attack it only where a frozen piece, or its own king
//!    that can never move, defends it).
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
//! never capture a piece such a square protects. A pawn that only the enemy
//! king could ever take stays frozen if that capture always leaves its side
//! stalemated (the "stalemate motif", see `king_capture_stalemates`): the
//! game ends there. Castling and en passant are not modelled: positions with
//! an en passant square are left to the search, and castling rights only
//! count when a frozen piece stands between the king and each such rook.
//!
//! With the regions, "cannot mate" is proved when
//! * no piece of the winner (other than its king, which never checks) can
//!   ever attack a square the loser's king can ever stand on, or
//! * the only such pieces are bishops of one square colour, and every square
//!   where the king could be checked has a neighbour of the other colour in
//!   the king's region that no loser piece can ever occupy and the winner's
//!   king can never guard (that flight square is always open), or has more
//!   such neighbours (its orthogonal neighbours in the region) than there are
//!   loser pieces able to reach them plus one for the winner's king if it can
//!   get next to them: a king that is not next to the mated king guards at
//!   most one of the four orthogonal neighbours, and each blocking piece
//!   fills one square, or
//! * the only such pieces are pawns that never capture nor promote, and the
//!   king can always take a pawn that has just given check (no winner's
//!   piece or king can ever guard a square from which it checks), or
//! * only the loser's king can ever move and every mate would need the
//!   winner's king and a check at once (`tempo_cannot_mate`).

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, Rank, Role, Square};

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
    /// Per colour: attacks of bishops on dark squares, on light squares, of
    /// pawns that can never promote nor capture, and of every other non-king
    /// piece that is not frozen.
    dark_bishops: [Bitboard; 2],
    light_bishops: [Bitboard; 2],
    pawns: [Bitboard; 2],
    others: [Bitboard; 2],
    /// Per colour, the squares each non-king piece may ever stand on (one
    /// entry per piece, frozen pawns included), in `pieces[c][..count[c]]`.
    pieces: [[Bitboard; 16]; 2],
    count: [usize; 2],
}

impl Regions {
    fn add_piece(&mut self, ci: usize, region: Bitboard) {
        // More than 16 non-king pieces cannot happen in a legal game; if it
        // does, the extra ones get the whole board, which only weakens the
        // counting rule below.
        if self.count[ci] < 16 {
            self.pieces[ci][self.count[ci]] = region;
            self.count[ci] += 1;
        } else {
            self.pieces[ci][15] = Bitboard::FULL;
        }
    }
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
        pawns: [Bitboard::EMPTY; 2],
        others: [Bitboard::EMPTY; 2],
        pieces: [[Bitboard::EMPTY; 16]; 2],
        count: [0; 2],
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
        for s in frozen & b.pawns() & mine {
            r.add_piece(ci, Bitboard::from_square(s));
        }
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
            r.add_piece(ci, reach.region);
            r.attacks[ci] |= reach.attacks;
            match role {
                Role::Bishop if s.is_dark() => r.dark_bishops[ci] |= reach.attacks,
                Role::Bishop => r.light_bishops[ci] |= reach.attacks,
                Role::Pawn if !wild.contains(s) => r.pawns[ci] |= reach.attacks,
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
    if pos.pseudo_ep_square().is_some() {
        return false;
    }
    let b = pos.board();
    let pawns = b.pawns();
    // Initial guess: every pawn with a piece right in front of it (a king
    // only stays a wall if it can never move, checked in the fixpoint).
    let walls = b.occupied();
    let mut frozen = (pawns & b.by_color(Color::White) & walls.forward(Color::Black))
        | (pawns & b.by_color(Color::Black) & walls.forward(Color::White));
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
            // The enemy king never takes a piece defended for good: by a
            // frozen piece, or by our king if it can never move.
            let own_king = pos.king(c);
            let stuck_guard = if r.king_region[ci] == Bitboard::from_square(own_king) {
                king_attacks(own_king)
            } else {
                Bitboard::EMPTY
            };
            let king_hits = king_dilate(r.king_region[oi]) - r.frozen_attacks[ci] - stuck_guard;
            let enemy_hits = r.attacks[oi] | king_hits;
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
                    let front_ok = forward(c, s).is_some_and(|n| {
                        frozen.contains(n)
                            || (b.kings().contains(n)
                                && Color::ALL
                                    .into_iter()
                                    .any(|k| r.king_region[k.index()] == Bitboard::from_square(n)))
                    });
                    let hit = r.attacks[oi].contains(s)
                        || (king_hits.contains(s) && !king_capture_stalemates(pos, &r, c, s, frozen, wild));
                    if !front_ok || (pawn_attacks(c, s) & enemy_occ).any() || hit {
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

    // Castling is not modelled: it must be impossible for good, with a
    // frozen piece between the king and each rook that keeps the right.
    for r in pos.castling_rooks() {
        let colour = if r.rank() == Rank::First { Color::White } else { Color::Black };
        if (between(pos.king(colour), r) & frozen).is_empty() {
            return false;
        }
    }

    let wi = winner.index();
    let li = winner.other().index();
    let king_region = regions.king_region[li];
    if (regions.attacks[wi] & king_region).is_empty() {
        return true;
    }
    if tempo_cannot_mate(pos, winner, &regions, frozen) {
        return true;
    }
    if (regions.others[wi] & king_region).any() {
        return false;
    }
    let dark = regions.dark_bishops[wi] & king_region;
    let light = regions.light_bishops[wi] & king_region;
    if (regions.pawns[wi] & king_region).any() {
        return (dark | light).is_empty()
            && pawn_checks_always_answered(pos, winner, &regions, frozen, solid);
    }
    let (checks, other_colour) = match (dark.any(), light.any()) {
        (true, false) => (dark, Bitboard::LIGHT_SQUARES),
        (false, true) => (light, Bitboard::DARK_SQUARES),
        _ => return false,
    };
    let loser_blockers = regions.occupiable[li];
    let winner_king_guard = king_dilate(regions.king_region[wi]);
    let loser_pieces = &regions.pieces[li][..regions.count[li]];
    // Every square where the king could be checked must keep an open
    // flight. Its flights of the other colour (the orthogonal neighbours)
    // can only be taken away by the winner's king, which can guard at most
    // one of them (it is never next to the mated king), or by loser's pieces
    // standing on them, one piece per square.
    checks.iter().all(|s| {
        let flights = king_attacks(s) & king_region & other_colour;
        if (flights - loser_blockers - winner_king_guard).any() {
            return true;
        }
        let blockers = loser_pieces.iter().filter(|r| (**r & flights).any()).count();
        let king = usize::from((winner_king_guard & flights).any());
        flights.count() as usize > blockers + king
    })
}

/// The "stalemate motif": `true` if, whenever the king of `c`'s opponent
/// takes `c`'s pawn on `s`, `c` is left without a legal move and not in
/// check (stalemate ends the game, so the capture changes nothing that
/// follows). It holds when every other piece of `c` is a pawn that can never
/// move (none of them standing right behind `s`), and `c`'s king, on any
/// square of its region not next to `s`, has no square of its region to go
/// to that is not next to `s` either. The capturing king gives no check
/// unless it uncovers a slider's line, so none of its possible starting
/// squares may lie on a line from a square of `c`'s king region (through
/// frozen pieces only) along which one of its sliders could ever check.
fn king_capture_stalemates(
    pos: &Position,
    r: &Regions,
    c: Color,
    s: Square,
    frozen: Bitboard,
    wild: Bitboard,
) -> bool {
    let b = pos.board();
    let (ci, oi) = (c.index(), c.other().index());
    let mine = b.by_color(c);
    let theirs = b.by_color(c.other());
    if (mine - b.pawns() - b.kings()).any()
        || r.pieces[ci][..r.count[ci]].iter().any(|p| p.more_than_one())
        || (b.pawns() & mine).iter().any(|p| forward(c, p) == Some(s))
        || (wild & theirs).any()
    {
        return false;
    }
    let near = king_dilate(Bitboard::from_square(s));
    let region = r.king_region[ci] - near;
    let diagonal = (theirs & (b.bishops() | b.queens())).any();
    let straight = (theirs & (b.rooks() | b.queens())).any();
    let starts = near & r.king_region[oi];
    region.iter().all(|k| {
        let mut lines = Bitboard::EMPTY;
        if diagonal {
            lines |= bishop_attacks(k, frozen);
        }
        if straight {
            lines |= rook_attacks(k, frozen);
        }
        (king_attacks(k) & region).is_empty() && (lines & starts).is_empty()
    })
}

/// The "tempo" rule (two things at once), with only the loser's king ever
/// able to move (every other loser piece's region is its own
/// square). A mate on `s` is then preceded by the loser's king stepping to
/// `s` from a neighbour `t` in its region. If some flight of `s` can only be
/// guarded by the winner's king (no other winner piece can ever attack it,
/// no loser piece can ever stand on it),
/// that king must stand on a square `w` guarding all such flights at the
/// mate. If the mating move is not a king move, `w` was already occupied
/// before the loser's last move, which is impossible when `w` is next to
/// every possible `t` (kings never touch). If it is a king move, it must
/// discover a check by a slider along a line through `s`, which is
/// impossible when no square the king can come from lies on such a line.
/// `true` if every square of the loser king's region that a winner's piece
/// can ever attack is excluded this way (and, with the winner to move, no
/// move of the winner mates at once: no loser's move precedes that one).
fn tempo_cannot_mate(pos: &Position, winner: Color, regions: &Regions, frozen: Bitboard) -> bool {
    let loser = winner.other();
    let (wi, li) = (winner.index(), loser.index());
    let king_region = regions.king_region[li];
    if king_region.count() > 12 || regions.pieces[li][..regions.count[li]].iter().any(|r| r.more_than_one()) {
        return false;
    }
    let b = pos.board();
    let ours = b.by_color(winner);
    let diagonal = (ours & (b.bishops() | b.queens())).any();
    let straight = (ours & (b.rooks() | b.queens())).any();
    let attacked = regions.attacks[wi];
    let winner_king = regions.king_region[wi];
    let proved = (attacked & king_region).iter().all(|s| {
        let flights = king_attacks(s) & king_region;
        // Flights no winner's piece can attack and no loser's piece can fill.
        let needs_king = flights - attacked - regions.occupiable[li];
        if needs_king.is_empty() {
            return false;
        }
        let mut guards = winner_king - king_dilate(Bitboard::from_square(s));
        for f in needs_king {
            guards &= king_attacks(f);
        }
        let mut lines = Bitboard::EMPTY;
        if diagonal {
            lines |= bishop_attacks(s, frozen);
        }
        if straight {
            lines |= rook_attacks(s, frozen);
        }
        guards.iter().all(|w| {
            let from = king_attacks(w) & (winner_king - king_dilate(Bitboard::from_square(s)));
            (flights - king_attacks(w)).is_empty() && (from & lines).is_empty()
        })
    });
    // With the winner to move, its first move is not preceded by a loser's
    // move: that one is checked directly.
    proved && (pos.turn() == loser || !pos.legal_moves().iter().any(|&m| pos.after(m).is_checkmate()))
}

/// The "undefended pawn" rule, when pawns that never promote nor capture are
/// the only pieces of `winner` that can ever attack a square of the loser
/// king's region (frozen pawns never do: the king never steps next to them).
/// Then every check is given by the pawn that has just moved, alone (a pawn
/// never discovers a check, and the other pawns cannot already give one: the
/// loser was not in check on the winner's turn). The checking pawn stands
/// next to the king, so the king takes it unless some winner's piece guards
/// its square. `true` (no mate) if no square of any such pawn's path from
/// which it attacks the king's region can ever be guarded by a winner's
/// piece or king.
fn pawn_checks_always_answered(
    pos: &Position,
    winner: Color,
    regions: &Regions,
    frozen: Bitboard,
    solid: Bitboard,
) -> bool {
    let wi = winner.index();
    let loser = winner.other();
    let king_region = regions.king_region[loser.index()];
    // An illegal start (the loser in check on the winner's turn) could let
    // a second pawn check at once: no proof then.
    if pos.turn() == winner && pos.is_attacked(pos.king(loser), winner) {
        return false;
    }
    let b = pos.board();
    let guarded = regions.attacks[wi] | king_dilate(regions.king_region[wi]);
    let enemy_solid = solid & b.pawns() & b.by_color(loser);
    for s in (b.pawns() & b.by_color(winner)) - frozen {
        let (path, _) = pawn_path(winner, s, frozen | enemy_solid);
        // A pawn that has not moved gives no check: only the squares it
        // moves to count.
        for q in path.without(s) {
            if (pawn_attacks(winner, q) & king_region).any() && guarded.contains(q) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::{FenOptions, Strictness};

    fn pos(fen: &str) -> Position {
        Position::from_fen_with(fen, FenOptions { chess960: false, strictness: Strictness::Lenient }).unwrap()
    }

    // A wall of pawns, White's on light squares and Black's on dark ones,
    // keeps White's king on the first ranks and White's light-squared bishop
    // on Black's side; Black's dark-squared bishops never meet a pawn.

    #[test]
    fn too_few_blockers_for_the_flights_cannot_be_mated_by_one_bishop() {
        // One black piece can block one of the two dark flights of the
        // light corner a8 (every other light square has three): dead.
        let p = pos("5b2/3k3B/8/p1p1p1p1/PpPpPpPp/1P1P1P1P/8/4K3 w - - 0 1");
        assert!(blocked_cannot_mate(&p, Color::White));
        assert!(blocked_cannot_mate(&p, Color::Black));
    }

    #[test]
    fn enough_blockers_for_the_flights_is_not_proved_dead() {
        // With two dark-squared bishops Black can fill b8 and a7 and be mated
        // on a8 by the bishop on the long diagonal.
        let p = pos("5b2/2bk3B/8/p1p1p1p1/PpPpPpPp/1P1P1P1P/8/4K3 w - - 0 1");
        assert!(!blocked_cannot_mate(&p, Color::White));
        // Black's bishops still never reach White's king.
        assert!(blocked_cannot_mate(&p, Color::Black));
        // The mate the rule must leave open, with the same material.
        assert!(pos("kb6/b7/8/p1pBp1p1/PpPpPpPp/1P1P1P1P/8/4K3 b - - 0 1").is_checkmate());
    }

    #[test]
    fn a_king_that_can_never_move_is_a_wall_for_the_pawn_in_front() {
        // Both kings are shut in by pawns (White's on a1 behind a2 and b2,
        // Black's on h8 behind g7 and h7), so a2 and h7 never move either.
        let p = pos("7k/1p4pP/6P1/8/8/1p6/pP4P1/K7 w - - 0 1");
        assert!(blocked_cannot_mate(&p, Color::White));
        assert!(blocked_cannot_mate(&p, Color::Black));
    }

    #[test]
    fn a_king_that_can_step_aside_is_no_wall() {
        // Black's king can leave e8 by d7 or f7, and then e7-e8 promotes.
        let p = pos("4k3/4P3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 60");
        assert!(!blocked_cannot_mate(&p, Color::White));
    }

    #[test]
    fn a_pawn_defended_by_a_king_that_can_never_move_is_never_taken() {
        // White's king on a1 never moves (a2 and b2 stay, b1 is guarded by
        // a2), so Black's king can never take b2, and nothing ever changes
        // the pawns; all bishops are dark-squared but Black's light one.
        let p = pos("k6B/1b4B1/5B2/4B3/3B4/1pB5/pP6/K7 w - - 0 1");
        assert!(blocked_cannot_mate(&p, Color::White));
        assert!(blocked_cannot_mate(&p, Color::Black));
    }

    #[test]
    fn a_pawn_defended_by_a_king_that_can_move_away_is_not_safe() {
        // Without a2 White's king can walk away from b2; then Black's king
        // takes it and b3 promotes (a helpmate exists for both sides).
        let p = pos("k6B/1b4B1/5B2/4B3/3B4/1pB5/1P6/K7 w - - 0 1");
        assert!(!blocked_cannot_mate(&p, Color::Black));
        assert!(!blocked_cannot_mate(&p, Color::White));
    }
    /// Asserts that `side` can mate in `fen` (with a checked witness) and
    /// that the analysis does not claim otherwise.
    fn assert_not_blocked_with_helpmate(fen: &str, side: Color) {
        let p = pos(fen);
        assert!(!blocked_cannot_mate(&p, side), "{fen} ({side})");
        match super::super::can_mate(&p, side) {
            super::super::Mateability::CanMate(line) => {
                assert!(super::super::is_witness(&p, side, &line), "{fen} ({side})")
            }
            other => panic!("{fen} ({side}): {other:?}"),
        }
    }

    #[test]
    fn pawns_that_never_capture_give_checks_the_king_can_always_answer() {
        // Black's a5..g5 pawns can only walk down their files (no piece of
        // White ever stands beside them), so any check they give is by an
        // undefended pawn next to White's king, which takes it.
        let p = pos("1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - -");
        assert!(blocked_cannot_mate(&p, Color::Black));
        assert!(blocked_cannot_mate(&p, Color::White));
    }

    #[test]
    fn pawns_that_can_capture_or_be_defended_are_not_ruled_out() {
        // Black's b5 pawn can take on a4, and the kings can walk up to
        // defend a checking pawn (1...bxa4 or b4+ with the king on c4).
        assert_not_blocked_with_helpmate("8/8/4k3/pp6/P7/K7/PP6/8 b - - 0 1", Color::Black);
        assert_not_blocked_with_helpmate("8/8/4k3/pp6/P7/K7/PP6/8 b - - 0 1", Color::White);
        // The mate the rule must leave open: b4+ defended by the king.
        assert!(pos("8/8/8/p7/Ppk5/K7/PP6/8 w - - 0 1").is_checkmate());
    }

    #[test]
    fn castling_rights_blocked_by_frozen_pieces_are_ignored() {
        // White keeps the right to castle short, but f1 and g1 hold pieces
        // that can never move.
        let p = pos("2k5/8/8/3B4/2Bp1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1");
        assert!(blocked_cannot_mate(&p, Color::White));
        assert!(blocked_cannot_mate(&p, Color::Black));
    }

    #[test]
    fn castling_rights_with_an_open_path_are_not_ignored() {
        // Without those two pieces the bishops get out and both sides mate.
        let fen = "2k5/8/8/3B4/2Bp1p1p/1BpP1P1P/2P1BPBP/3BK2R w K - 0 1";
        assert_not_blocked_with_helpmate(fen, Color::White);
        assert_not_blocked_with_helpmate(fen, Color::Black);
    }

    #[test]
    fn a_king_capture_that_stalemates_and_a_mate_that_needs_two_moves_at_once() {
        // White's king can only shuttle between h3 and h4, and g2 can only
        // be taken by Black's king when White's is on h4, which stalemates
        // White. A mate on h4 needs Black's king on g2 or h2 to guard h3 and
        // a bishop check at once: the king cannot get there first (it would
        // touch White's king on h3), and a king move discovers no check.
        let p = pos("8/8/3b3p/5p1P/3b1p1K/5Pp1/6P1/5kb1 b - -");
        assert!(blocked_cannot_mate(&p, Color::Black));
        assert!(blocked_cannot_mate(&p, Color::White));
        // Black's king shuttles between a5 and a6; White's king taking b7
        // stalemates it, and a bishop mate on a5 needs White's king on a7
        // already, next to a6.
        let p = pos("8/1p2B1B1/1PpB1B2/k1P5/p1P5/P7/5K2/8 w - -");
        assert!(blocked_cannot_mate(&p, Color::White));
        assert!(blocked_cannot_mate(&p, Color::Black));
    }

    #[test]
    fn a_spare_tempo_or_a_free_king_lets_the_mate_through() {
        // With a spare pawn move for White (a2-a3), 1...Kxg2 2.a3 and a
        // bishop check mates on h4.
        let fen = "8/8/3b3p/5p1P/p2b1p1K/5Pp1/P5P1/5kb1 b - -";
        assert_not_blocked_with_helpmate(fen, Color::Black);
        assert_not_blocked_with_helpmate(fen, Color::White);
        // Without a4 Black's king is free and White can mate it.
        let fen = "8/1p2B1B1/1PpB1B2/k1P5/2P5/8/5K2/8 w - -";
        assert_not_blocked_with_helpmate(fen, Color::White);
        assert_not_blocked_with_helpmate(fen, Color::Black);
    }
}
