//! Differential tests against an independent move generator, cozy-chess.
//!
//! Seeded random games from the standard start and from Chess960 starts are
//! played on both boards side by side; at every ply the legal move sets, the
//! check, checkmate and stalemate status, the placement, side to move and
//! castling rights must agree. A sample of the positions of shakmaty's
//! `random.perft` suite is compared the same way, one ply deep.
//!
//! Moves are compared as UCI strings with castling written king-takes-rook,
//! which is how cozy-chess always writes it.

mod common;
use common::Rng;

use std::collections::BTreeSet;
use std::fs;

use arbiter_chess::{CastlingSide, Color, FenOptions, Move, Position, Strictness};

/// Our move as UCI with castling as king-takes-rook.
fn ours_uci(m: Move) -> String {
    let mut s = format!("{}{}", m.from(), m.to());
    if let Some(role) = m.promotion_role() {
        s.push(role.char());
    }
    s
}

fn our_moves(pos: &Position) -> BTreeSet<String> {
    pos.legal_moves().iter().map(|&m| ours_uci(m)).collect()
}

fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    board.generate_moves(|moves| {
        for m in moves {
            out.insert(m.to_string());
        }
        false
    });
    out
}

/// The placement field of a FEN.
fn placement(fen: &str) -> &str {
    fen.split(' ').next().unwrap_or("")
}

fn cozy_rook_file(board: &cozy_chess::Board, color: Color, side: CastlingSide) -> Option<char> {
    let c = match color {
        Color::White => cozy_chess::Color::White,
        Color::Black => cozy_chess::Color::Black,
    };
    let rights = board.castle_rights(c);
    let file = match side {
        CastlingSide::KingSide => rights.short,
        CastlingSide::QueenSide => rights.long,
    };
    file.map(char::from)
}

/// Everything both libraries can tell about a position, compared; `context`
/// names the game and ply in failure messages.
fn compare(pos: &Position, board: &cozy_chess::Board, context: &str) {
    let fen = pos.fen();
    let ours = our_moves(pos);
    let theirs = cozy_moves(board);
    if ours != theirs {
        let missing: Vec<_> = theirs.difference(&ours).collect();
        let extra: Vec<_> = ours.difference(&theirs).collect();
        panic!("{context}: move sets differ in {fen} (cozy {board}): missing {missing:?}, extra {extra:?}");
    }
    assert_eq!(pos.count_legal_moves(), ours.len() as u64, "{context}: count in {fen}");

    let cozy_in_check = !board.checkers().is_empty();
    assert_eq!(pos.is_check(), cozy_in_check, "{context}: check status in {fen}");
    assert_eq!(pos.checkers().count(), board.checkers().len(), "{context}: checkers in {fen}");
    assert_eq!(pos.is_checkmate(), cozy_in_check && theirs.is_empty(), "{context}: checkmate in {fen}");
    assert_eq!(pos.is_stalemate(), !cozy_in_check && theirs.is_empty(), "{context}: stalemate in {fen}");

    let cozy_fen = board.to_string();
    assert_eq!(placement(&fen), placement(&cozy_fen), "{context}: placement");
    let cozy_turn = match board.side_to_move() {
        cozy_chess::Color::White => Color::White,
        cozy_chess::Color::Black => Color::Black,
    };
    assert_eq!(pos.turn(), cozy_turn, "{context}: side to move in {fen}");
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            assert_eq!(
                pos.castling_rook(color, side).map(|sq| sq.file().char()),
                cozy_rook_file(board, color, side),
                "{context}: {color} castling rights on {side:?} in {fen} (cozy {cozy_fen})"
            );
        }
    }
}

/// cozy-chess reads our FEN output (Shredder-FEN, so that every Chess960
/// right is unambiguous) as the same position, by the FIDE identity.
fn cozy_reads_our_fen(pos: &Position, board: &cozy_chess::Board, context: &str) {
    // cozy-chess keeps the halfmove clock in a u8 capped at 100.
    let shredder = pos.shredder_fen();
    let fields: Vec<&str> = shredder.split(' ').collect();
    let text = format!("{} {} {} {} 0 1", fields[0], fields[1], fields[2], fields[3]);
    let read = cozy_chess::Board::from_fen(&text, true)
        .unwrap_or_else(|e| panic!("{context}: cozy-chess rejects our Shredder-FEN {text}: {e:?}"));
    // Not `Board::same_position`: in cozy-chess 0.3.4 it counts any legal
    // move to the en passant square from a pawn-capture square as en passant,
    // even a bishop's (e.g. Bb5-c6 after ...c7-c5). The move set shows
    // whether en passant is possible.
    let cozy_fen = board.to_string();
    let read_fen = read.to_string();
    assert_eq!(
        read_fen.split(' ').take(3).collect::<Vec<_>>(),
        cozy_fen.split(' ').take(3).collect::<Vec<_>>(),
        "{context}: cozy reads {text} as {read_fen}, but its own board is {cozy_fen}"
    );
    assert_eq!(
        cozy_moves(&read),
        cozy_moves(board),
        "{context}: cozy reads {text} with other moves than {cozy_fen}"
    );
}

/// A move that favours captures, pawn moves and promotions half the time, so
/// that games reach en passant, promotions and endgames more often than
/// uniform play does.
fn pick(pos: &Position, rng: &mut Rng) -> Option<Move> {
    let list = pos.legal_moves();
    if list.is_empty() {
        return None;
    }
    if rng.below(2) == 0 {
        let lively: Vec<Move> = list
            .iter()
            .copied()
            .filter(|&m| pos.is_zeroing(m) || m.is_castle() || m.is_en_passant())
            .collect();
        if !lively.is_empty() {
            return Some(lively[rng.below(lively.len())]);
        }
    }
    Some(list[rng.below(list.len())])
}

fn play_game(
    mut pos: Position,
    mut board: cozy_chess::Board,
    rng: &mut Rng,
    max_plies: usize,
    name: &str,
) -> usize {
    for ply in 0..max_plies {
        let context = format!("{name} ply {ply}");
        compare(&pos, &board, &context);
        if ply % 8 == 0 {
            cozy_reads_our_fen(&pos, &board, &context);
        }
        let Some(m) = pick(&pos, rng) else { return ply };
        let uci = ours_uci(m);
        let cm: cozy_chess::Move =
            uci.parse().unwrap_or_else(|e| panic!("{context}: cozy parse {uci}: {e:?}"));
        board.try_play(cm).unwrap_or_else(|e| panic!("{context}: cozy rejects {uci} in {board}: {e:?}"));
        pos = pos.play(m).unwrap();
    }
    max_plies
}

#[test]
fn random_games_from_the_start_position() {
    let mut rng = Rng(0x5eed_0001);
    let mut plies = 0;
    for game in 0..1500 {
        plies += play_game(
            Position::startpos(),
            cozy_chess::Board::startpos(),
            &mut rng,
            200,
            &format!("standard game {game}"),
        );
    }
    assert!(plies > 100_000, "too few plies compared: {plies}");
}

#[test]
fn random_games_from_chess960_starts() {
    let mut rng = Rng(0x5eed_0960);
    let mut plies = 0;
    for game in 0..1500 {
        let n = rng.below(960) as u32;
        let pos = Position::chess960(n).unwrap();
        let board = cozy_chess::Board::chess960_startpos(n);
        assert_eq!(placement(&pos.fen()), placement(&board.to_string()), "Chess960 start {n}");
        plies += play_game(pos, board, &mut rng, 200, &format!("Chess960 game {game} (start {n})"));
    }
    assert!(plies > 100_000, "too few plies compared: {plies}");
}

#[test]
fn every_chess960_start_matches() {
    for n in 0..960 {
        let pos = Position::chess960(n).unwrap();
        let board = cozy_chess::Board::chess960_startpos(n);
        compare(&pos, &board, &format!("Chess960 start {n}"));
        cozy_reads_our_fen(&pos, &board, &format!("Chess960 start {n}"));
    }
}

/// Every 16th position of shakmaty's random perft suite, compared at the
/// root and after each legal move, then along a short random line.
#[test]
fn random_perft_positions() {
    let Some(suite) = common::data_file("perft/shakmaty/random.perft") else { return };
    let text = fs::read_to_string(suite).unwrap();
    let epds: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("epd ")).map(str::trim).collect();
    assert!(epds.len() > 1000, "random.perft has only {} positions", epds.len());
    let mut rng = Rng(0x5eed_9e4f);
    let mut checked = 0;
    for (i, epd) in epds.iter().enumerate().step_by(16) {
        let fen = format!("{epd} 0 1");
        let opts = FenOptions { chess960: false, strictness: Strictness::Lenient };
        let pos = Position::from_fen_with(&fen, opts).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let board: cozy_chess::Board =
            fen.parse().unwrap_or_else(|e| panic!("cozy-chess rejects {fen}: {e:?}"));
        let context = format!("random.perft #{i}");
        compare(&pos, &board, &context);
        for &m in pos.legal_moves().iter() {
            let uci = ours_uci(m);
            let mut child = board.clone();
            child
                .try_play(uci.parse().unwrap())
                .unwrap_or_else(|e| panic!("{context}: cozy rejects {uci}: {e:?}"));
            compare(&pos.after(m), &child, &format!("{context} after {uci}"));
        }
        play_game(pos, board, &mut rng, 30, &context);
        checked += 1;
    }
    assert!(checked >= 400, "only {checked} positions compared");
}
