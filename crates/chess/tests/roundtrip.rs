//! Property tests of the notation round trips on random reachable positions.
//!
//! Positions come from seeded random playouts (standard start and Chess960
//! starts), so every run checks the same positions. For each position:
//! FEN -> position -> FEN is the identity, Shredder-FEN and EPD read back to
//! the same position, every legal move survives SAN, LAN and UCI (both
//! castling notations), the incremental Zobrist key equals the one computed
//! from scratch, and moves survive their 16-bit packing.

mod common;
use common::Rng;

use std::collections::HashMap;

use arbiter_chess::zobrist::zobrist_from_scratch;
use arbiter_chess::{
    CastlingMode, FenOptions, Move, MoveKind, Position, Role, San, SanError, Square, Strictness,
};

/// Random playouts: every position along `games` random games of at most
/// `max_plies` plies, from the standard start (even games) and random
/// Chess960 starts (odd games).
fn random_positions(seed: u64, games: usize, max_plies: usize) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for game in 0..games {
        let mut pos = if game % 2 == 0 {
            Position::startpos()
        } else {
            Position::chess960(rng.below(960) as u32).unwrap()
        };
        for _ in 0..max_plies {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures and pawn moves now and then so that games
            // reach promotions, en passant and sparse endgames.
            let zeroing: Vec<Move> = moves.iter().copied().filter(|&m| pos.is_zeroing(m)).collect();
            let m = if !zeroing.is_empty() && rng.below(3) == 0 {
                zeroing[rng.below(zeroing.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            pos = pos.play(m).unwrap();
        }
    }
    out
}

fn options(pos: &Position) -> FenOptions {
    FenOptions { chess960: pos.castling_mode() == CastlingMode::Chess960, strictness: Strictness::Strict }
}

fn check_fen(pos: &Position) {
    let fen = pos.fen();
    let back = Position::from_fen_with(&fen, options(pos))
        .unwrap_or_else(|e| panic!("reachable position rejected by the strict reader: {fen}: {e}"));
    assert_eq!(back, *pos, "{fen}");
    assert_eq!(back.fen(), fen, "FEN not stable");
    assert_eq!(back.castling_mode(), pos.castling_mode(), "{fen}");
    assert_eq!(back.halfmove_clock(), pos.halfmove_clock(), "{fen}");
    assert_eq!(back.fullmove_number(), pos.fullmove_number(), "{fen}");
    assert_eq!(back.repetition_key(), pos.repetition_key(), "{fen}");
    // FEN writes the en passant square only when the capture is legal, while
    // the Polyglot key counts it whenever a pawn attacks the square.
    if pos.legal_ep_square() == pos.pseudo_ep_square() {
        assert_eq!(back.zobrist(), pos.zobrist(), "{fen}");
    } else {
        assert_eq!(back.zobrist(), zobrist_from_scratch(&back), "{fen}");
    }
    let mut ours: Vec<u16> = pos.legal_moves().iter().map(|m| m.to_u16()).collect();
    let mut theirs: Vec<u16> = back.legal_moves().iter().map(|m| m.to_u16()).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    assert_eq!(ours, theirs, "legal moves change across the FEN round trip: {fen}");

    let shredder = pos.shredder_fen();
    let back = Position::from_fen_with(&shredder, options(pos)).unwrap_or_else(|e| panic!("{shredder}: {e}"));
    assert_eq!(back, *pos, "{shredder}");
    assert_eq!(back.fen(), fen, "{shredder}");
    assert_eq!(back.shredder_fen(), shredder, "{shredder}");

    let epd = pos.epd();
    assert_eq!(epd.split(' ').count(), 4, "{epd}");
    assert!(fen.starts_with(&epd), "{epd} is not a prefix of {fen}");
    let back = Position::from_fen_with(&epd, options(pos)).unwrap_or_else(|e| panic!("{epd}: {e}"));
    assert_eq!(back, *pos, "{epd}");
}

fn check_moves(pos: &Position) {
    let fen = pos.fen();
    let moves = pos.legal_moves();
    assert_eq!(pos.count_legal_moves(), moves.len() as u64, "{fen}");
    let mut chess960 = *pos;
    chess960.set_castling_mode(CastlingMode::Chess960).unwrap();
    for &m in moves.iter() {
        assert!(pos.is_legal(m), "{m:?} in {fen}");
        assert_eq!(Move::from_u16(m.to_u16()), Some(m));

        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san), Ok(m), "SAN {san} in {fen}");
        let bare = pos.san_without_suffix(m);
        assert!(san.starts_with(&bare), "{san} / {bare}");
        assert_eq!(pos.parse_san(&bare), Ok(m), "SAN {bare} in {fen}");
        check_san_is_minimal(pos, m, &bare);
        assert_eq!(bare.contains('x'), pos.is_capture(m), "capture mark of {bare} in {fen}");
        let next = pos.after(m);
        assert_eq!(san.ends_with('+'), next.is_check() && !next.is_checkmate(), "{san} in {fen}");
        assert_eq!(san.ends_with('#'), next.is_checkmate(), "{san} in {fen}");
        let lan = pos.lan(m);
        assert_eq!(pos.parse_san(&lan), Ok(m), "LAN {lan} in {fen}");

        let uci = pos.uci(m);
        assert_eq!(pos.parse_uci(uci.as_str()), Ok(m), "UCI {uci} in {fen}");
        let uci960 = chess960.uci(m);
        assert_eq!(chess960.parse_uci(uci960.as_str()), Ok(m), "Chess960 UCI {uci960} in {fen}");
        if m.is_castle() {
            assert_eq!(uci960.as_str(), format!("{}{}", m.from(), m.to()), "castling is king-takes-rook");
        } else {
            assert_eq!(uci, uci960);
        }

        assert_eq!(next.zobrist(), zobrist_from_scratch(&next), "zobrist after {san} in {fen}");
        assert_eq!(pos.play(m), Ok(next));
    }
}

/// SAN disambiguates a piece move only as far as needed, preferring the
/// file to the rank (PGN standard 8.2.3.4): every shorter or other
/// disambiguation must be ambiguous.
fn check_san_is_minimal(pos: &Position, m: Move, bare: &str) {
    let Ok(San::Normal { role, file, rank, capture, to, .. }) = San::parse(bare) else { return };
    if role == Role::Pawn {
        return;
    }
    let write = |f: bool, r: bool| {
        let mut s = String::new();
        s.push(role.upper_char());
        if f {
            s.push(m.from().file().char());
        }
        if r {
            s.push(m.from().rank().char());
        }
        if capture {
            s.push('x');
        }
        s.push_str(&to.to_string());
        s
    };
    let must_be_ambiguous = |text: String| {
        assert!(
            matches!(pos.parse_san(&text), Err(SanError::Ambiguous { .. })),
            "{bare} is not minimal: {text} would do in {}",
            pos.fen()
        );
    };
    match (file.is_some(), rank.is_some()) {
        (false, false) => {}
        (true, false) => must_be_ambiguous(write(false, false)),
        (false, true) => {
            must_be_ambiguous(write(false, false));
            must_be_ambiguous(write(true, false));
        }
        (true, true) => {
            must_be_ambiguous(write(true, false));
            must_be_ambiguous(write(false, true));
        }
    }
}

#[test]
fn fen_round_trips_on_random_positions() {
    let positions = random_positions(0xfe11_0001, 300, 160);
    assert!(positions.len() > 20_000, "{}", positions.len());
    for pos in &positions {
        check_fen(pos);
    }
}

#[test]
fn move_notation_round_trips_on_random_positions() {
    let positions = random_positions(0x5a11_0002, 200, 160);
    assert!(positions.len() > 15_000, "{}", positions.len());
    for pos in &positions {
        check_moves(pos);
    }
}

#[test]
fn incremental_zobrist_matches_scratch() {
    for pos in random_positions(0x2b1_0003, 300, 200) {
        assert_eq!(pos.zobrist(), zobrist_from_scratch(&pos), "{}", pos.fen());
    }
}

/// Equal positions (FIDE 9.2.3 identity) have equal repetition keys, and no
/// two different positions among those sampled share a key.
#[test]
fn repetition_key_agrees_with_position_identity() {
    let mut by_key: HashMap<u64, Position> = HashMap::new();
    for pos in random_positions(0x4e9_0004, 300, 160) {
        match by_key.get(&pos.repetition_key()) {
            Some(other) => assert_eq!(*other, pos, "repetition key collision"),
            None => {
                by_key.insert(pos.repetition_key(), pos);
            }
        }
    }
    // Same position by another move order: the same key.
    let a = ["Nf3", "Nf6", "Nc3", "Nc6"];
    let b = ["Nc3", "Nc6", "Nf3", "Nf6"];
    let play = |sans: &[&str]| {
        sans.iter().fold(Position::startpos(), |pos, san| pos.play(pos.parse_san(san).unwrap()).unwrap())
    };
    let (pa, pb) = (play(&a), play(&b));
    assert_eq!(pa, pb);
    assert_eq!(pa.repetition_key(), pb.repetition_key());
    assert_eq!(pa.zobrist(), pb.zobrist());
}

/// Every value below `0x8000` is some move and packs back to itself (the
/// kind has three bits; higher values encode no move); the fields of a move
/// rebuild it through the public constructors.
#[test]
fn move_packing_round_trips() {
    for bits in 0..=u16::MAX {
        let Some(m) = Move::from_u16(bits) else {
            assert!(bits >= 0x8000, "{bits:#06x} must decode");
            continue;
        };
        assert!(bits < 0x8000, "{bits:#06x} must not decode");
        assert_eq!(m.to_u16(), bits);
        let rebuilt = match m.kind() {
            MoveKind::Normal => Move::normal(m.from(), m.to()),
            MoveKind::DoublePush => Move::double_push(m.from(), m.to()),
            MoveKind::EnPassant => Move::en_passant(m.from(), m.to()),
            MoveKind::Castle => Move::castle(m.from(), m.to()),
            MoveKind::Promotion(role) => Move::promotion(m.from(), m.to(), role),
        };
        assert_eq!(rebuilt, m, "{bits:#06x}");
        assert_eq!(m.is_promotion(), m.promotion_role().is_some());
        assert_eq!(m.is_castle(), m.castling_side().is_some());
    }
    for from in Square::all() {
        for to in Square::all() {
            let m = Move::normal(from, to);
            assert_eq!((m.from(), m.to(), m.kind()), (from, to, MoveKind::Normal));
        }
    }
}

/// `is_legal` and `play` agree with the move list on arbitrary 16-bit moves.
#[test]
fn is_legal_agrees_with_the_move_list() {
    let mut rng = Rng(0x1e9_0005);
    for pos in random_positions(0x1e9_0006, 60, 120) {
        let moves = pos.legal_moves();
        for _ in 0..64 {
            let m = Move::from_u16(rng.next_u64() as u16 & 0x7fff).expect("values below 0x8000 decode");
            assert_eq!(pos.is_legal(m), moves.contains(&m), "{m:?} in {}", pos.fen());
            assert_eq!(pos.play(m).is_ok(), moves.contains(&m), "{m:?} in {}", pos.fen());
        }
        // The moves of the list with every other kind, which must all be
        // illegal unless the list has them too.
        for &m in moves.iter() {
            for kind in [
                Move::normal(m.from(), m.to()),
                Move::double_push(m.from(), m.to()),
                Move::en_passant(m.from(), m.to()),
                Move::castle(m.from(), m.to()),
            ] {
                assert_eq!(pos.is_legal(kind), moves.contains(&kind), "{kind:?} in {}", pos.fen());
            }
        }
    }
}
