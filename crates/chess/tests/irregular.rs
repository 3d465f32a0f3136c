//! Positions left by illegal moves that stood (FIDE A.5.2): how they are
//! made (`Position::play_irregular`, `GameRecord::push_irregular`), what is
//! wrong with them (`Position::irregularity`), that move generation never
//! captures a king on them, and that nothing panics on them (the dead-position
//! analysers included).

mod common;
use common::Rng;

use arbiter_chess::dead::{self, Mateability};
use arbiter_chess::{
    Color, FenError, FenOptions, GameRecord, IrregularMoveError, Move, Position, PositionError, Role, Square,
    Strictness,
};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

const IRREGULAR: FenOptions = FenOptions { chess960: false, strictness: Strictness::Irregular };

#[test]
fn a_king_move_into_check_stands_and_the_king_is_never_captured() {
    // AS-23: Kd1?? into the rook's file.
    let p = pos("4k3/8/8/8/8/8/3r4/4K3 w - - 0 50");
    let kd1 = Move::normal(sq("e1"), sq("d1"));
    assert!(p.play(kd1).is_err());
    let q = p.play_irregular(kd1).unwrap();
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/3r4/3K4 b - - 1 50");
    assert_eq!(q.irregularity(), Some(PositionError::OppositeCheck(Color::White)));
    // Black may not take the king: Rxd1 is not among the legal moves.
    assert!(q.legal_moves().iter().all(|m| m.to() != sq("d1")));
    assert!(!q.is_legal(Move::normal(sq("d2"), sq("d1"))));
    assert_eq!(q.legal_moves().len(), 5 + 13);
    // After Black's reply White is simply in check, a regular position.
    let r = q.play(Move::normal(sq("e8"), sq("d7"))).unwrap();
    assert_eq!(r.irregularity(), None);
    assert!(r.is_check());
    let mut replies: Vec<String> = r.legal_moves().iter().map(|m| r.san(*m)).collect();
    replies.sort();
    assert_eq!(replies, ["Kc1", "Ke1", "Kxd2"]);
}

#[test]
fn kings_side_by_side_cannot_take_each_other() {
    let p = pos("8/8/8/3k4/8/3K4/8/8 w - - 0 1");
    let q = p.play_irregular(Move::normal(sq("d3"), sq("d4"))).unwrap();
    assert_eq!(q.irregularity(), Some(PositionError::OppositeCheck(Color::White)));
    assert!(q.legal_moves().iter().all(|m| m.to() != sq("d4")));
    assert!(q.has_legal_move());
}

#[test]
fn an_unpromoted_pawn_stays_on_its_last_rank_and_cannot_move() {
    // AS-24: f2xe1 with the pawn left on e1.
    let p = pos("k7/2P5/8/8/8/8/5p2/4R2K b - - 0 45");
    let q = p.play_irregular(Move::normal(sq("f2"), sq("e1"))).unwrap();
    assert_eq!(q.fen(), "k7/2P5/8/8/8/8/8/4p2K w - - 0 46");
    assert_eq!(q.irregularity(), Some(PositionError::PawnOnBackRank(sq("e1"))));
    let r = q.play(q.parse_san("c8=Q+").unwrap()).unwrap();
    assert!(r.is_check());
    // The pawn on e1 has no move; the king has.
    assert!(r.legal_moves().iter().all(|m| m.from() != sq("e1")));
    assert_eq!(r.legal_moves().len(), 1, "{:?}", r.legal_moves());
    // A promotion written out gives the legal move's position.
    let promoted = p.play_irregular(Move::promotion(sq("f2"), sq("e1"), Role::Queen)).unwrap();
    assert_eq!(promoted, p.play(Move::promotion(sq("f2"), sq("e1"), Role::Queen)).unwrap());
}

#[test]
fn moves_that_cannot_be_made_are_refused() {
    let p = Position::startpos();
    let cases = [
        (Move::normal(sq("e7"), sq("e5")), IrregularMoveError::NoPieceToMove(sq("e7"))),
        (Move::normal(sq("e4"), sq("e5")), IrregularMoveError::NoPieceToMove(sq("e4"))),
        (Move::normal(sq("e2"), sq("e2")), IrregularMoveError::NullMove(sq("e2"))),
        (Move::normal(sq("a1"), sq("b1")), IrregularMoveError::OwnPieceOnTarget(sq("b1"))),
        (Move::normal(sq("d1"), sq("e8")), IrregularMoveError::CapturesKing(sq("e8"))),
        (Move::castle(sq("e1"), sq("h1")), IrregularMoveError::WrongKind("castling")),
        (Move::double_push(sq("g1"), sq("g3")), IrregularMoveError::WrongKind("double push")),
        (Move::en_passant(sq("e2"), sq("d3")), IrregularMoveError::WrongKind("capture en passant")),
        (Move::promotion(sq("e2"), sq("e4"), Role::Queen), IrregularMoveError::WrongKind("promotion")),
    ];
    for (m, err) in cases {
        assert_eq!(p.play_irregular(m), Err(err), "{m:?}");
    }
    let mut record = GameRecord::new(p);
    assert!(record.push_irregular(Move::normal(sq("d1"), sq("e8"))).is_err());
    assert_eq!(record.ply_count(), 0, "a refused move leaves the record unchanged");
}

#[test]
fn legal_moves_give_the_same_position_either_way() {
    // Every legal move of a few busy positions, special moves included.
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2P5/8/8/8/8/2k5/K7 w - - 0 1",
    ] {
        let p = pos(fen);
        for m in p.legal_moves().iter() {
            assert_eq!(p.play_irregular(*m).unwrap(), p.play(*m).unwrap(), "{fen} {m:?}");
        }
    }
}

#[test]
fn castling_and_en_passant_out_of_turn_with_the_rules() {
    // Castling out of check is illegal, but king and rook can be moved so.
    let p = pos("r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1");
    let q = p.play_irregular(Move::castle(sq("e1"), sq("h1"))).unwrap();
    assert_eq!(q.fen(), "r3k2r/8/8/8/4r3/8/8/R4RK1 b kq - 1 1");
    assert_eq!(q.irregularity(), None, "the castled king is out of the rook's file");
    // Black may still castle after White's illegal castling stood.
    let r = q.play(q.parse_san("O-O-O").unwrap()).unwrap();
    assert_eq!(r.fen(), "2kr3r/8/8/8/4r3/8/8/R4RK1 w - - 2 2");
    // A pinned pawn's double push stood: en passant is possible after it,
    // as after any double push.
    let p = pos("4k3/8/8/8/5p2/8/4P3/4K2r w - - 0 1");
    let m = Move::double_push(sq("e2"), sq("e4"));
    assert!(!p.is_legal(m));
    // After an illegal king move (two squares) stood, a double push still
    // allows en passant.
    let mut record = GameRecord::new(pos("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1"));
    record.push(Move::normal(sq("e1"), sq("d1"))).unwrap();
    record.push(Move::normal(sq("e8"), sq("e7"))).unwrap();
    assert!(record.push(Move::normal(sq("d1"), sq("d3"))).is_err());
    record.push_irregular(Move::normal(sq("d1"), sq("d3"))).unwrap();
    assert_eq!(record.irregular_moves(), [2]);
    assert!(record.is_irregular(2) && !record.is_irregular(1));
    record.push(Move::normal(sq("e7"), sq("e8"))).unwrap();
    record.push(Move::double_push(sq("e2"), sq("e4"))).unwrap();
    assert_eq!(record.position().legal_ep_square(), Some(sq("e3")));
    record.push(Move::en_passant(sq("f4"), sq("e3"))).unwrap();
    assert_eq!(record.position().fen(), "4k3/8/8/8/8/3Kp3/8/8 w - - 0 4");
    // Taking moves back forgets that they were irregular.
    while record.ply_count() > 2 {
        record.pop();
    }
    assert!(record.irregular_moves().is_empty());
    // The irregular double push gives en passant too.
    let q = p.play_irregular(m).unwrap();
    assert_eq!(q.irregularity(), Some(PositionError::OppositeCheck(Color::White)));
    assert!(q.legal_moves().contains(&Move::en_passant(sq("f4"), sq("e3"))));
}

#[test]
fn mate_and_stalemate_are_read_from_an_irregular_position() {
    // White, in check from the rook, ignores it and gives check.
    let p = pos("7k/5Q2/8/8/8/8/8/K6r w - - 0 1");
    let q = p.play_irregular(Move::normal(sq("f7"), sq("f8"))).unwrap();
    // Qf8+ with White's king still on the rook's rank: both kings in check.
    assert_eq!(q.irregularity(), Some(PositionError::OppositeCheck(Color::White)));
    assert!(q.is_check());
    // Black may not take White's king (Rxa1 is no move): only Kh7 is left.
    let mut moves: Vec<String> = q.legal_moves().iter().map(|m| q.san(*m)).collect();
    moves.sort();
    // The suffix tells that White, to move after it, is still in check.
    assert_eq!(moves, ["Kh7+"]);
    // A pinned rook gives a back-rank mate: Black cannot escape and may not
    // take the king the rook uncovered.
    let p = pos("6k1/5ppp/8/8/8/8/8/KR5r w - - 0 1");
    let q = p.play_irregular(Move::normal(sq("b1"), sq("b8"))).unwrap();
    assert_eq!(q.irregularity(), Some(PositionError::OppositeCheck(Color::White)));
    assert!(q.is_checkmate());
    // A queen moved like a knight stalemates the lone king.
    let p = pos("k7/8/8/8/8/8/8/K1Q5 w - - 0 1");
    let q = p.play_irregular(Move::normal(sq("c1"), sq("b6"))).unwrap();
    assert_eq!(q.irregularity(), None);
    assert!(q.is_stalemate(), "{:?}", q.legal_moves());
}

#[test]
fn irregular_fens_read_back_only_when_asked() {
    for (fen, err) in [
        ("4k3/8/8/8/8/8/3r4/3K4 b - - 1 50", PositionError::OppositeCheck(Color::White)),
        ("k7/2P5/8/8/8/8/8/4p2K w - - 0 46", PositionError::PawnOnBackRank(sq("e1"))),
        ("R3k3/8/8/8/8/8/8/4K2r b - - 0 1", PositionError::OppositeCheck(Color::White)),
    ] {
        assert_eq!(Position::from_fen_with(fen, FenOptions::LENIENT), Err(FenError::Position(err.clone())));
        let p = Position::from_fen_with(fen, IRREGULAR).unwrap();
        assert_eq!(p.fen(), fen);
        assert_eq!(p.irregularity(), Some(err));
    }
    // Kings are still required.
    assert!(Position::from_fen_with("8/8/8/8/8/8/8/4K3 w - - 0 1", IRREGULAR).is_err());
}

#[test]
fn random_games_with_illegal_moves_stay_sound() {
    // Games mixing legal moves with random displacements: every position
    // keeps one king per side, never offers a king capture, reads back from
    // its FEN, and survives the analysers. (The laws crate's tests read the
    // records back from their serde form.)
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for game in 0..60 {
        let mut record = GameRecord::new(Position::startpos());
        for _ in 0..80 {
            let p = *record.position();
            let legal = p.legal_moves();
            for m in legal.iter() {
                assert!(!p.board().kings().contains(m.to()) || m.is_castle(), "{p:?} {m:?}");
                let next = p.after(*m);
                assert_eq!(next.board().kings().count(), 2, "{p:?} {m:?}");
            }
            assert_eq!(p.count_legal_moves(), legal.len() as u64);
            assert_eq!(Position::from_fen_with(&p.fen(), IRREGULAR).unwrap(), p);
            let _ = dead::is_dead_quick(&p);
            for side in Color::ALL {
                let _ = dead::can_mate_with_budget(&p, side, 2_000);
                let _ = dead::has_insufficient_material(&p, side);
            }
            let _ = record.outcome();
            if !legal.is_empty() && rng.below(100) < 70 {
                record.push(legal[rng.below(legal.len())]).unwrap();
                continue;
            }
            let from = Square::new(rng.below(64) as u32);
            let to = Square::new(rng.below(64) as u32);
            let m = match rng.below(4) {
                0 => Move::promotion(from, to, Role::Queen),
                _ => Move::normal(from, to),
            };
            let _ = record.push_irregular(m);
        }
        assert!(record.irregular_moves().windows(2).all(|w| w[0] < w[1]), "game {game}");
    }
    // The analysers answer on odd boards too (a pawn on its last rank that
    // can never move, kings in check out of turn).
    for fen in [
        "k7/2P5/8/8/8/8/8/4p2K w - - 0 46",
        "R3k3/8/8/8/8/8/8/4K2r b - - 0 1",
        "4k3/8/8/8/8/8/3r4/3K4 b - - 1 50",
    ] {
        let p = Position::from_fen_with(fen, IRREGULAR).unwrap();
        for side in Color::ALL {
            let _ = dead::can_mate(&p, side);
        }
        let _ = dead::is_dead(&p);
    }
    let lone = Position::from_fen_with("k7/8/8/8/8/8/8/4p2K w - - 0 46", IRREGULAR).unwrap();
    assert_eq!(dead::can_mate(&lone, Color::White), Mateability::CannotMate);
}
