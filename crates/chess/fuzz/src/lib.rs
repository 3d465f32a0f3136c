//! Invariant checks shared by the fuzz targets of `arbiter-chess`.
//!
//! Every check panics (with the FEN of the position in the message) when an
//! invariant fails, which libFuzzer reports as a crash.

use std::collections::HashSet;

use arbiter_chess::zobrist::zobrist_from_scratch;
use arbiter_chess::{CastlingMode, FenOptions, Move, Position, Strictness};

/// Positions that exercise the corners of the rules: castling in standard
/// chess and Chess960 (rooks beside or behind the king, king on the b- or
/// g-file), en passant (legal, pinned, discovered check along the rank),
/// promotions with and without capture, many queens, checks and mates.
pub const INTERESTING: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
    "r1k2r1q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K2R1Q w KQkq - 0 1",
    "8/8/8/4B2b/6nN/8/5P2/2R1K2k w Q - 0 1",
    "2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1",
    "4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1",
    "4rrk1/pbbp2p1/1ppnp3/3n1pqp/3N1PQP/1PPNP3/PBBP2P1/4RRK1 w Ff - 0 1",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
    "rnbqk1nr/bb3p1p/1q2r3/2pPp3/3P4/7P/1PP1NpPP/R1BQKBNR w KQkq c6 0 1",
    "1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    "8/8/8/8/k2Pp3/8/8/3K4 b - d3 0 1",
    "4k3/8/8/2KPp1r1/8/8/8/8 w - e6 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "nrkrbbqn/pppppppp/8/8/8/8/PPPPPPPP/NRKRBBQN w DBdb - 0 1",
    "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1",
    "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
    "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
];

/// The options that re-read a position's own FEN output.
pub fn reread_options(pos: &Position, strictness: Strictness) -> FenOptions {
    FenOptions { chess960: pos.castling_mode() == CastlingMode::Chess960, strictness }
}

/// FEN, Shredder-FEN and EPD output read back to the same position, the same
/// counters, the same FEN text and the same keys.
///
/// The Polyglot key counts an en passant file whenever a pawn of the side to
/// move attacks the square (pseudo-legal en passant), but FEN output writes
/// the square only when the capture is legal, so [`Position::zobrist`] can
/// only survive the round trip when the two agree; the FIDE repetition key
/// must survive always.
pub fn check_fen_round_trip(pos: &Position, strictness: Strictness) {
    let fen = pos.fen();
    let opts = reread_options(pos, strictness);
    let back = Position::from_fen_with(&fen, opts)
        .unwrap_or_else(|e| panic!("own FEN {fen:?} does not read back ({opts:?}): {e}"));
    assert_eq!(&back, pos, "FEN round trip changed the position: {fen}");
    assert_eq!(back.fen(), fen, "FEN text not stable");
    assert_eq!(back.castling_mode(), pos.castling_mode(), "castling mode lost: {fen}");
    assert_eq!(back.halfmove_clock(), pos.halfmove_clock(), "halfmove clock: {fen}");
    assert_eq!(back.fullmove_number(), pos.fullmove_number(), "fullmove number: {fen}");
    assert_eq!(back.repetition_key(), pos.repetition_key(), "repetition key: {fen}");
    if pos.legal_ep_square() == pos.pseudo_ep_square() {
        assert_eq!(back.zobrist(), pos.zobrist(), "zobrist after FEN round trip: {fen}");
    }
    assert_eq!(back.zobrist(), zobrist_from_scratch(&back), "zobrist of re-read FEN: {fen}");
    assert_eq!(move_set(&back), move_set(pos), "legal moves differ after FEN round trip: {fen}");

    let shredder = pos.shredder_fen();
    let back = Position::from_fen_with(&shredder, opts)
        .unwrap_or_else(|e| panic!("own Shredder-FEN {shredder:?} does not read back: {e}"));
    assert_eq!(&back, pos, "Shredder-FEN round trip: {shredder}");
    assert_eq!(back.fen(), fen, "Shredder-FEN re-read gives another FEN: {shredder}");

    let epd = pos.epd();
    let back = Position::from_fen_with(&epd, opts)
        .unwrap_or_else(|e| panic!("own EPD {epd:?} does not read back: {e}"));
    assert_eq!(&back, pos, "EPD round trip: {epd}");
}

/// The legal moves as a set.
pub fn move_set(pos: &Position) -> HashSet<Move> {
    pos.legal_moves().iter().copied().collect()
}

/// Checks everything about one position and its legal moves: counting,
/// mate and stalemate, `is_legal`, SAN/UCI/packing round trips, `play` versus
/// `after`, the incremental Zobrist key of each child, and that no move leaves
/// the mover's king attacked.
pub fn check_position(pos: &Position) {
    let fen = pos.fen();
    assert_eq!(pos.zobrist(), zobrist_from_scratch(pos), "incremental zobrist: {fen}");
    let moves = pos.legal_moves();
    assert_eq!(pos.count_legal_moves(), moves.len() as u64, "count_legal_moves: {fen}");
    assert_eq!(pos.has_legal_move(), !moves.is_empty(), "has_legal_move: {fen}");
    assert_eq!(pos.is_checkmate(), pos.is_check() && moves.is_empty(), "is_checkmate: {fen}");
    assert_eq!(pos.is_stalemate(), !pos.is_check() && moves.is_empty(), "is_stalemate: {fen}");
    assert!(!(pos.is_checkmate() && pos.is_stalemate()));

    let mut seen = HashSet::new();
    for &m in moves.iter() {
        assert!(seen.insert(m), "duplicate move {m:?}: {fen}");
        assert!(pos.is_legal(m), "listed move {m:?} is not is_legal: {fen}");
        assert_eq!(Move::from_u16(m.to_u16()), Some(m));

        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san), Ok(m), "SAN {san:?} does not read back: {fen}");
        let _ = pos.lan(m);
        let uci = pos.uci(m);
        assert_eq!(pos.parse_uci(uci.as_str()), Ok(m), "UCI {uci} does not read back: {fen}");

        let next = pos.play(m).unwrap_or_else(|e| panic!("play({m:?}) failed: {e}: {fen}"));
        let after = pos.after(m);
        assert_eq!(next, after);
        assert_eq!(next.zobrist(), after.zobrist());
        assert_eq!(next.zobrist(), zobrist_from_scratch(&next), "incremental zobrist after {san}: {fen}");
        assert_eq!(next.turn(), !pos.turn());
        assert!(
            !next.is_attacked(next.king(pos.turn()), next.turn()),
            "{san} leaves the king attacked: {fen}"
        );
        if pos.is_zeroing(m) {
            assert_eq!(next.halfmove_clock(), 0);
        } else {
            assert_eq!(next.halfmove_clock(), pos.halfmove_clock() + 1);
        }
        let suffix_mate = san.ends_with('#');
        let suffix_check = san.ends_with('+') || suffix_mate;
        assert_eq!(suffix_check, next.is_check(), "check suffix of {san}: {fen}");
        assert_eq!(suffix_mate, next.is_checkmate(), "mate suffix of {san}: {fen}");
    }
}

/// `is_legal` and `play` of an arbitrary 16-bit move agree with the list.
pub fn check_probe(pos: &Position, moves: &HashSet<Move>, probe: Move) {
    let listed = moves.contains(&probe);
    assert_eq!(pos.is_legal(probe), listed, "is_legal({probe:?}): {}", pos.fen());
    assert_eq!(pos.play(probe).is_ok(), listed, "play({probe:?}): {}", pos.fen());
    // Must not panic on any move, legal or not.
    let _ = pos.is_capture(probe);
    let _ = pos.is_zeroing(probe);
    let _ = pos.is_irreversible(probe);
    let _ = pos.uci(probe);
}

/// Splits fuzz input at the first newline: (before, after), both as text.
pub fn split_text(data: &[u8]) -> (String, String) {
    match data.iter().position(|&b| b == b'\n') {
        Some(i) => (
            String::from_utf8_lossy(&data[..i]).into_owned(),
            String::from_utf8_lossy(&data[i + 1..]).into_owned(),
        ),
        None => (String::new(), String::from_utf8_lossy(data).into_owned()),
    }
}

/// Picks the position for the notation targets from the first two bytes:
/// either one of [`INTERESTING`] (possibly switched to Chess960 notation), or
/// the FEN before the first newline, read with options from the first byte.
/// Returns the position and the rest of the input.
pub fn position_and_text(data: &[u8]) -> Option<(Position, String)> {
    let (&mode, rest) = data.split_first()?;
    if mode & 1 == 0 {
        let (&which, text) = rest.split_first()?;
        let fen = INTERESTING[usize::from(which) % INTERESTING.len()];
        let mut pos = Position::from_fen_with(fen, FenOptions::LENIENT).expect("interesting FEN");
        if mode & 2 != 0 {
            let _ = pos.set_castling_mode(CastlingMode::Chess960);
        }
        Some((pos, String::from_utf8_lossy(text).into_owned()))
    } else {
        let (fen, text) = split_text(rest);
        let strictness = if mode & 2 != 0 { Strictness::Lenient } else { Strictness::Strict };
        let opts = FenOptions { chess960: mode & 4 != 0, strictness };
        let pos = Position::from_fen_with(&fen, opts).ok()?;
        Some((pos, text))
    }
}
