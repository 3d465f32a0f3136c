//! FEN (every error), SAN (edge cases of real-world input), UCI and LAN.

use arbiter_chess::fen::{FenError, FenSyntaxError, PositionError};
use arbiter_chess::{CastlingMode, Color, FenOptions, Position, SanError, Square, UciError, zobrist};

fn syntax(fen: &str) -> FenSyntaxError {
    match Position::from_fen(fen) {
        Err(FenError::Syntax(e)) => e,
        other => panic!("{fen}: expected a syntax error, got {other:?}"),
    }
}

fn invalid(fen: &str) -> PositionError {
    match Position::from_fen(fen) {
        Err(FenError::Position(e)) => e,
        other => panic!("{fen}: expected a position error, got {other:?}"),
    }
}

#[test]
fn fen_syntax_errors_are_specific() {
    assert_eq!(syntax(""), FenSyntaxError::Empty);
    assert_eq!(syntax("   "), FenSyntaxError::Empty);
    assert_eq!(syntax("8/8/8/8/8/8/8/8 w"), FenSyntaxError::FieldCount(2));
    assert_eq!(syntax("8/8/8/8/8/8/8/8 w - - 0"), FenSyntaxError::FieldCount(5));
    assert_eq!(syntax("8/8/8/8/8/8/8 w - - 0 1"), FenSyntaxError::RankCount(7));
    assert!(matches!(syntax("9/8/8/8/8/8/8/8 w - - 0 1"), FenSyntaxError::BoardChar('9')));
    assert!(matches!(
        syntax("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenSyntaxError::BoardChar('x')
    ));
    assert_eq!(
        syntax("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenSyntaxError::RankLength { rank: '7', files: 7 }
    );
    assert_eq!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
        FenSyntaxError::Turn("x".into())
    );
    assert!(matches!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1"),
        FenSyntaxError::Castling(_)
    ));
    assert!(matches!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KZ - 0 1"),
        FenSyntaxError::Castling(_)
    ));
    assert_eq!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1"),
        FenSyntaxError::EnPassant("e4".into())
    );
    assert_eq!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1"),
        FenSyntaxError::EnPassant("z9".into())
    );
    assert_eq!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1"),
        FenSyntaxError::HalfmoveClock("-1".into())
    );
    assert_eq!(
        syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x"),
        FenSyntaxError::FullmoveNumber("x".into())
    );
}

#[test]
fn fen_position_errors_are_specific() {
    assert_eq!(invalid("8/8/8/8/8/8/8/8 w - - 0 1"), PositionError::EmptyBoard);
    assert_eq!(invalid("8/8/8/8/8/8/8/4K3 w - - 0 1"), PositionError::MissingKing(Color::Black));
    assert_eq!(invalid("k7/8/8/8/8/8/8/8 w - - 0 1"), PositionError::MissingKing(Color::White));
    assert_eq!(invalid("kk6/8/8/8/8/8/8/4K3 w - - 0 1"), PositionError::TooManyKings(Color::Black));
    assert_eq!(invalid("k7/8/8/8/8/8/8/4K2P w - - 0 1"), PositionError::PawnOnBackRank(Square::H1));
    assert_eq!(invalid("k6P/8/8/8/8/8/8/4K3 w - - 0 1"), PositionError::PawnOnBackRank(Square::H8));
    // White to move, but Black's king is attacked by the rook.
    assert_eq!(invalid("k7/8/8/8/8/8/8/R3K3 w - - 0 1"), PositionError::OppositeCheck(Color::Black));
    // Castling rights without the king or rook in place.
    assert_eq!(
        invalid("r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1"),
        PositionError::InvalidCastlingRight { right: 'K' }
    );
    assert_eq!(
        invalid("r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1"),
        PositionError::InvalidCastlingRight { right: 'K' }
    );
    // En passant square with no pawn that just made a double step.
    assert_eq!(
        invalid("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1"),
        PositionError::InvalidEpSquare("e6".parse().unwrap())
    );
    // Three checkers, two knights, and a checker unrelated to the double push.
    assert!(matches!(invalid("4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1"), PositionError::ImpossibleCheck(_)));
    assert!(matches!(invalid("4k3/8/3NRN2/8/8/8/8/4K3 b - - 0 1"), PositionError::ImpossibleCheck(_)));
    assert!(matches!(invalid("4k3/8/8/8/3p4/8/8/R3K3 w - d6 0 1"), PositionError::InvalidEpSquare(_)));
    assert!(matches!(invalid("7k/8/8/2pP4/8/8/8/K6r w - c6 0 1"), PositionError::ImpossibleCheck(_)));
    // Nine queens and all pawns: more material than promotions can give.
    assert_eq!(
        invalid("QQQQQQQQ/QPPPPPPP/8/8/8/8/pppppppp/k3K3 w - - 0 1"),
        PositionError::TooMuchMaterial(Color::White)
    );
    // Lenient mode accepts what is odd but still playable.
    let lenient = FenOptions::LENIENT;
    assert!(Position::from_fen_with("4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1", lenient).is_ok());
    assert!(Position::from_fen_with("k7/8/8/8/8/8/8/R3K3 w - - 0 1", lenient).is_err());
}

#[test]
fn fen_reading_variants() {
    // Four fields (EPD-like) default the counters; fullmove 0 reads as 1.
    let p = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap();
    assert_eq!(p, Position::startpos());
    assert_eq!(p.fullmove_number(), 1);
    let p = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0").unwrap();
    assert_eq!(p.fullmove_number(), 1);
    // Halfmove clocks above 100 are kept (the 75-move rule needs 150).
    let p = Position::from_fen("8/8/8/4k3/8/8/4K3/4R3 w - - 149 100").unwrap();
    assert_eq!(p.halfmove_clock(), 149);
    // Shredder-FEN and X-FEN give the same standard position.
    let s = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1").unwrap();
    assert_eq!(s, Position::startpos());
    assert_eq!(s.castling_mode(), CastlingMode::Standard);
    assert_eq!(
        Position::startpos().shredder_fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    );
    // An inner rook needs X-FEN's file letter, and switches to Chess960.
    let x = Position::from_fen("rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11").unwrap();
    assert_eq!(x.castling_mode(), CastlingMode::Chess960);
    assert_eq!(x.fen(), "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11");
    assert_eq!(x.shredder_fen(), "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - 4 11");
}

#[test]
fn en_passant_written_only_when_legal() {
    let p = Position::startpos();
    let p = p.play(p.parse_uci("e2e4").unwrap()).unwrap();
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let p = Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3").unwrap();
    assert_eq!(p.fen(), "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
    assert_eq!(p.san(p.parse_uci("d4e3").unwrap()), "dxe3");
}

#[test]
fn polyglot_test_vectors() {
    // The published PolyGlot key examples.
    let cases = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463b96181691fc9c_u64),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0x823c9b50fd114196),
        ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", 0x0756b94461c50fb0),
        ("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", 0x662fafb965db29d4),
        ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0x22a48b5a8e47ff78),
        ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", 0x652a607ca3f242c1),
        ("rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", 0x00fdd303c946bdd9),
        ("rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", 0x3c8123ea7b067637),
        ("rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", 0x5c3f9b829b279560),
    ];
    for (fen, key) in cases {
        let p = Position::from_fen(fen).unwrap();
        assert_eq!(p.zobrist(), key, "{fen}");
        assert_eq!(zobrist::zobrist_from_scratch(&p), key, "{fen}");
    }
    // The same keys reached incrementally by playing the moves.
    let mut p = Position::startpos();
    for (uci, key) in [
        ("e2e4", 0x823c9b50fd114196_u64),
        ("d7d5", 0x0756b94461c50fb0),
        ("e4e5", 0x662fafb965db29d4),
        ("f7f5", 0x22a48b5a8e47ff78),
        ("e1e2", 0x652a607ca3f242c1),
        ("e8f7", 0x00fdd303c946bdd9),
    ] {
        p = p.play(p.parse_uci(uci).unwrap()).unwrap();
        assert_eq!(p.zobrist(), key, "after {uci}");
    }
    // 1.e4 d5 2.e5: this is 0x662fafb965db29d4 only after 2.e5 from d5; check
    // a different order gives the same key (transposition).
    let mut q = Position::startpos();
    for uci in ["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"] {
        q = q.play(q.parse_uci(uci).unwrap()).unwrap();
    }
    assert_eq!(q.zobrist(), 0x3c8123ea7b067637);
    for uci in ["b4c3", "a1a3"] {
        q = q.play(q.parse_uci(uci).unwrap()).unwrap();
    }
    assert_eq!(q.zobrist(), 0x5c3f9b829b279560);
}

fn san_to_uci(fen: &str, san: &str) -> Result<String, SanError> {
    let p = Position::from_fen(fen).unwrap();
    p.parse_san(san).map(|m| p.uci(m).to_string())
}

#[test]
fn san_tolerant_reading() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(san_to_uci(start, "e4").unwrap(), "e2e4");
    assert_eq!(san_to_uci(start, "e4!?").unwrap(), "e2e4");
    assert_eq!(san_to_uci(start, "Nf3+").unwrap(), "g1f3", "a wrong check sign is ignored");
    assert_eq!(san_to_uci(start, "Ng1f3").unwrap(), "g1f3");
    assert_eq!(san_to_uci(start, "Ng1-f3").unwrap(), "g1f3");
    assert_eq!(san_to_uci(start, "Pe4").unwrap(), "e2e4");
    let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for (san, uci) in [("O-O", "e1g1"), ("0-0", "e1g1"), ("O-O-O", "e1c1"), ("0-0-0+", "e1c1")] {
        assert_eq!(san_to_uci(castle, san).unwrap(), uci, "{san}");
    }
    let promo = "8/4P2k/8/8/8/8/8/K7 w - - 0 1";
    for san in ["e8=Q", "e8Q", "e8(Q)", "e8/Q", "e8=Q+"] {
        assert_eq!(san_to_uci(promo, san).unwrap(), "e7e8q", "{san}");
    }
    assert_eq!(san_to_uci(promo, "e8=N").unwrap(), "e7e8n");
    assert_eq!(san_to_uci(promo, "e8").unwrap_err(), SanError::MissingPromotion("e8".into()));
    let ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    for san in ["exf6", "exf6 e.p.", "exf6e.p.", "exf6 ep", "ef6", "e5xf6", "exf6!"] {
        assert_eq!(san_to_uci(ep, san).unwrap(), "e5f6", "{san}");
    }
    // Redundant disambiguation is accepted; missing disambiguation is not.
    let rooks = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1";
    assert_eq!(san_to_uci(rooks, "Rad1").unwrap(), "a1d1");
    assert_eq!(san_to_uci(rooks, "Ra1d1").unwrap(), "a1d1");
    assert_eq!(
        san_to_uci(rooks, "R1d1").unwrap_err().to_string(),
        "R1d1 is ambiguous: it could be Rad1 or Rhd1"
    );
    assert!(matches!(san_to_uci(rooks, "Rd1").unwrap_err(), SanError::Ambiguous { .. }));
    // Syntax errors and illegal moves are told apart.
    for bad in ["", "Xe4", "e9", "N", "O-O-O-O", "e8=K", "Nf3=Q", "zz"] {
        assert!(matches!(san_to_uci(start, bad), Err(SanError::Syntax(_))), "{bad}");
    }
    assert_eq!(san_to_uci(start, "e5").unwrap_err(), SanError::Illegal("e5".into()));
    assert_eq!(san_to_uci(start, "O-O").unwrap_err(), SanError::Illegal("O-O".into()));
}

#[test]
fn san_canonical_writing() {
    // File, rank and full-square disambiguation.
    let p = Position::from_fen("3k4/8/8/8/8/8/4K3/R6R w - - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("a1d1").unwrap()), "Rad1+");
    let p = Position::from_fen("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("a1a3").unwrap()), "R1a3");
    let p = Position::from_fen("4k3/8/8/8/8/Q1Q5/8/Q3K3 w - - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("a3b2").unwrap()), "Qa3b2");
    // A pinned piece does not need to be told apart.
    let p = Position::from_fen("4k3/8/8/8/8/8/4N3/r1N1K3 w - - 0 1").unwrap();
    // The knight on e2 is not pinned; the one on c1 is (rook a1, king e1).
    assert_eq!(p.san(p.parse_uci("e2d4").unwrap()), "Nd4");
    // Mate and check suffixes, promotion, castling.
    let p = Position::from_fen("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("c1c8").unwrap()), "Qc8#");
    let p = Position::from_fen("8/4P2k/8/8/8/8/8/K7 w - - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("e7e8q").unwrap()), "e8=Q");
    assert_eq!(p.lan(p.parse_uci("e7e8r").unwrap()), "e7-e8=R");
    let p = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(p.san(p.parse_uci("e1c1").unwrap()), "O-O-O");
    assert_eq!(p.lan(p.parse_uci("a1a8").unwrap()), "Ra1xa8+");
}

#[test]
fn uci_castling_notations() {
    let p = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let m = p.parse_uci("e1g1").unwrap();
    assert!(m.is_castle());
    assert_eq!(p.parse_uci("e1h1").unwrap(), m, "king-takes-rook is accepted in standard chess too");
    assert_eq!(p.uci(m).to_string(), "e1g1");
    // In Chess960 only king-takes-rook means castling (DEC-13).
    let q = Position::from_fen_with("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", FenOptions::CHESS960).unwrap();
    let m = q.parse_uci("e1h1").unwrap();
    assert_eq!(q.uci(m).to_string(), "e1h1");
    assert!(matches!(q.parse_uci("e1g1"), Err(UciError::Illegal(_))));
    // Chess960: king on f1 with a rook on g1: f1g1 can only be castling.
    // Castling into the rook's file is refused when that file is attacked.
    let attacked = Position::from_fen("4k1r1/8/8/8/8/8/8/1R3KR1 w GB - 0 1").unwrap();
    assert!(attacked.parse_uci("f1g1").is_err());
    let r = Position::from_fen("4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 1").unwrap();
    let castle = r.parse_uci("f1g1").unwrap();
    assert!(castle.is_castle());
    assert_eq!(r.after(castle).fen(), "4k3/8/8/8/8/8/8/1R3RK1 b - - 1 1");
    let long = r.parse_uci("f1b1").unwrap();
    assert_eq!(r.after(long).fen(), "4k3/8/8/8/8/8/8/2KR2R1 b - - 1 1");
    for bad in ["e2e", "e2e4x", "e2e9", "e2e2", "e7e8k", "e7e8Q", "0000"] {
        assert!(matches!(Position::startpos().parse_uci(bad), Err(UciError::Syntax(_))), "{bad}");
    }
    assert!(matches!(Position::startpos().parse_uci("e2e5"), Err(UciError::Illegal(_))));
}

#[test]
fn castling_notation_needs_standard_rights() {
    // King on b1 with rooks on a1 and h1: O-O-O would be written b1c1 in
    // standard notation, which reads back as a king step.
    let mut p = Position::from_fen("1k6/8/8/8/8/8/8/RK5R w HA - 0 1").unwrap();
    assert_eq!(p.castling_mode(), CastlingMode::Chess960);
    assert!(p.set_castling_mode(CastlingMode::Standard).is_err());
    assert_eq!(p.castling_mode(), CastlingMode::Chess960);
    let mut q = Position::startpos();
    q.set_castling_mode(CastlingMode::Chess960).unwrap();
    assert_eq!(q.uci(q.parse_uci("e2e4").unwrap()).to_string(), "e2e4");
    q.set_castling_mode(CastlingMode::Standard).unwrap();
}

#[test]
fn chess960_start_positions() {
    assert_eq!(Position::chess960(518).unwrap().board(), Position::startpos().board());
    assert_eq!(
        Position::chess960(0).unwrap().fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
    );
    assert!(Position::chess960(960).is_none());
    let mut seen = std::collections::HashSet::new();
    for n in 0..960 {
        let p = Position::chess960(n).unwrap();
        assert!((18..=21).contains(&p.legal_moves().len()), "{n}");
        assert!(seen.insert(p.board().board_fen()), "{n} repeats an earlier position");
    }
}
