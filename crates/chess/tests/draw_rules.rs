//! The draw rules of the Laws that depend on the game's history, and the
//! position identity of Article 9.2.3 (en passant and castling subtleties).

use arbiter_chess::{GameRecord, Outcome, Position, Termination};

fn play(record: &mut GameRecord, sans: &str) {
    for san in sans.split_whitespace() {
        if san.ends_with('.') {
            continue;
        }
        let m = record.position().parse_san(san).unwrap_or_else(|e| panic!("{san}: {e}"));
        record.push(m).unwrap();
    }
}

fn from_start(sans: &str) -> GameRecord {
    let mut g = GameRecord::new(Position::startpos());
    play(&mut g, sans);
    g
}

#[test]
fn as_55_threefold_claim_with_intended_move() {
    let g = from_start("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert!(!g.is_threefold_repetition());
    let intended = g.position().parse_san("Ng8").unwrap();
    assert!(g.is_threefold_repetition_after(intended));
    assert_eq!(g.claimable_with(intended), vec![Termination::ThreefoldRepetition]);
}

#[test]
fn as_56_wrong_intended_move_is_an_incorrect_claim() {
    let g = from_start("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let intended = g.position().parse_san("Nc6").unwrap();
    assert!(!g.is_threefold_repetition_after(intended));
    assert!(g.claimable_with(intended).is_empty());
}

#[test]
fn as_58_third_occurrence_belongs_to_the_player_having_the_move() {
    // After 5.Nf3 the position after 3.Nf3 appears for the third time with
    // Black to move: Black may claim 9.2.2.
    let g = from_start("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3");
    assert_eq!(g.repetitions(), 3);
    assert!(g.is_threefold_repetition());
    assert_eq!(g.claimable_now(), vec![Termination::ThreefoldRepetition]);
}

#[test]
fn as_61_fifty_moves_with_intended_move() {
    let g = GameRecord::new(Position::from_fen("8/8/8/4k3/8/8/4K3/4R3 w - - 99 80").unwrap());
    assert!(!g.is_fifty_moves());
    let ra1 = g.position().parse_san("Ra1").unwrap();
    assert!(g.is_fifty_moves_after(ra1));
    assert_eq!(g.claimable_with(ra1), vec![Termination::FiftyMoves]);
    // A capture or pawn move never completes the fifty moves.
    let g2 = GameRecord::new(Position::from_fen("8/8/8/4k3/8/8/4K1p1/4R3 w - - 99 80").unwrap());
    let kxg2 = g2.position().parse_san("Kf2").unwrap();
    assert!(g2.is_fifty_moves_after(kxg2));
    let mut g3 = GameRecord::new(Position::from_fen("8/8/8/4k3/8/8/4K1p1/4R3 w - - 99 80").unwrap());
    let capture = g3.position().parse_san("Kxf1").err();
    assert!(capture.is_some(), "no piece on f1");
    let rg1 = g3.position().parse_san("Rg1").unwrap();
    g3.push(rg1).unwrap();
    assert!(g3.is_fifty_moves());
}

#[test]
fn as_62_fivefold_is_automatic_and_need_not_be_consecutive() {
    let g = from_start("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetitions(), 5);
    assert!(g.is_fivefold_repetition());
    assert_eq!(g.outcome(), Some(Outcome::Draw { termination: Termination::FivefoldRepetition }));
    assert_eq!(g.outcome().unwrap().rule_id(), "FIDE-9.6.1");
    let four = from_start("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Ng1");
    assert_eq!(four.outcome(), None);
}

#[test]
fn as_63_seventy_five_moves_and_mate_precedence() {
    let mut g = GameRecord::new(Position::from_fen("8/8/8/4k3/8/8/4K3/4R3 w - - 149 100").unwrap());
    play(&mut g, "Ra1");
    assert_eq!(g.outcome(), Some(Outcome::Draw { termination: Termination::SeventyFiveMoves }));
    assert!(g.is_seventy_five_moves());

    let mut g = GameRecord::new(Position::from_fen("k7/8/1K6/8/8/8/8/2Q5 w - - 149 100").unwrap());
    play(&mut g, "Qc8#");
    assert!(!g.is_seventy_five_moves());
    let o = g.outcome().unwrap();
    assert_eq!(
        o,
        Outcome::Decisive { winner: arbiter_chess::Color::White, termination: Termination::Checkmate }
    );
    assert_eq!(o.result(), "1-0");
    assert_eq!(o.rule_id(), "FIDE-5.1.1");
}

#[test]
fn as_26_stalemate() {
    let mut g = GameRecord::new(Position::from_fen("k7/8/1K6/8/8/8/8/2Q5 w - - 0 50").unwrap());
    play(&mut g, "Qc7");
    assert_eq!(g.outcome(), Some(Outcome::Draw { termination: Termination::Stalemate }));
    assert_eq!(g.outcome().unwrap().result(), "1/2-1/2");
}

/// 9.2.3.1: a position in which en passant was possible is not the same as
/// the later ones in which it is not, even with the same placement.
#[test]
fn en_passant_right_makes_a_position_different() {
    // 1.e4 Nf6 2.e5 d5: en passant exd6 is possible now.
    let mut g = from_start("e4 Nf6 e5 d5");
    let with_ep = *g.position();
    assert!(with_ep.legal_ep_square().is_some());
    // Knights dance; the placement returns but en passant is gone.
    play(&mut g, "Nf3 Ng8 Ng1 Nf6");
    assert_eq!(g.position().board(), with_ep.board());
    assert_ne!(*g.position(), with_ep);
    assert_eq!(g.repetitions(), 1);
    play(&mut g, "Nf3 Ng8 Ng1 Nf6");
    assert_eq!(g.repetitions(), 2);
    play(&mut g, "Nf3 Ng8 Ng1 Nf6");
    assert_eq!(g.repetitions(), 3, "third occurrence without en passant; the first one did not count");
}

/// An en passant square that no pawn can legally use does not make a
/// position different (the capture must actually be possible).
#[test]
fn impossible_en_passant_does_not_count() {
    // After 1.e4 no black pawn can take en passant: the position equals the
    // same placement without an en passant square.
    let g = from_start("e4");
    let same = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_eq!(*g.position(), same);
    assert_eq!(g.position().repetition_key(), same.repetition_key());
    // A pinned pawn cannot capture en passant either.
    let pinned = Position::from_fen("8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1").unwrap();
    let plain = Position::from_fen("8/8/8/8/k2Pp2Q/8/8/4K3 b - - 0 1").unwrap();
    assert_eq!(pinned.legal_ep_square(), None);
    assert_eq!(pinned, plain);
    assert_eq!(pinned.fen(), plain.fen());
    // Polyglot still hashes the en passant file when a pawn stands beside it.
    assert_ne!(pinned.zobrist(), plain.zobrist());
}

/// 9.2.3.2: castling rights are lost only when the king or rook moves; a
/// position with the rights differs from the same placement without them.
#[test]
fn castling_rights_make_a_position_different() {
    let mut g = GameRecord::new(Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap());
    let start = *g.position();
    play(&mut g, "Ke2 Ke7 Ke1 Ke8");
    assert_eq!(g.position().board(), start.board());
    assert_ne!(*g.position(), start, "the kings moved: rights are gone");
    // A right that is only temporarily unusable (a knight in between) stays.
    let fen = "rn2k1nr/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1";
    let mut g = GameRecord::new(Position::from_fen(fen).unwrap());
    play(&mut g, "Nc3 Nc6 Nb1 Nb8");
    assert_eq!(*g.position(), *g.start());
    assert_eq!(g.repetitions(), 2);
    let without_rights = Position::from_fen("rn2k1nr/8/8/8/8/8/8/RN2K1NR w - - 0 1").unwrap();
    assert_ne!(*g.position(), without_rights);
    assert_ne!(g.position().repetition_key(), without_rights.repetition_key());
}

#[test]
fn record_push_rejects_illegal_moves_and_pop_undoes() {
    let mut g = GameRecord::new(Position::startpos());
    let e4 = g.position().parse_san("e4").unwrap();
    g.push(e4).unwrap();
    assert!(g.push(e4).is_err(), "e2e4 is not legal for Black");
    assert_eq!(g.ply_count(), 1);
    assert_eq!(g.pop(), Some(e4));
    assert_eq!(*g.position(), Position::startpos());
    assert_eq!(g.pop(), None);
}
