//! The reader against hand-written observation streams: each point of the
//! inference (issue 15, point 1) and each kind of bad input (point 5).

use arbiter_board::{
    BoardReader, Correction, DeviceId, DeviceTime, Impossible, Inference, InferredMove, Observation,
    ObservationError, ObservationKind, Placement, Sensing, Settings, SettingsError, Settle, SquareState,
    TouchKind,
};
use arbiter_chess::{Bitboard, Color, Move, Piece, Position, Role, Square};

const DEV: DeviceId = DeviceId(42);

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn pc(c: char) -> Piece {
    Piece::from_char(c).unwrap()
}

/// Feeds observations with increasing sequence numbers, ticking at each
/// deadline that comes before the next one, as the service would.
struct Feed {
    r: BoardReader,
    seq: u64,
    out: Vec<(DeviceTime, Inference)>,
}

impl Feed {
    fn new(pos: Position, sensing: Sensing) -> Feed {
        Feed {
            r: BoardReader::new(DEV, pos, Settings::new(Settle::DEFAULT, sensing)),
            seq: 0,
            out: Vec::new(),
        }
    }

    fn obs(&mut self, at: u64, kind: ObservationKind) {
        while let Some(d) = self.r.deadline().filter(|d| d.0 <= at) {
            for i in self.r.tick(d) {
                self.out.push((d, i));
            }
        }
        self.seq += 1;
        let o = Observation { device: DEV, device_seq: self.seq, at: DeviceTime(at), kind };
        for i in self.r.observe(&o).unwrap() {
            self.out.push((DeviceTime(at), i));
        }
    }

    fn lift(&mut self, at: u64, s: &str) {
        self.obs(at, ObservationKind::SquareChanged { square: sq(s), now: SquareState::Empty });
    }

    fn put(&mut self, at: u64, s: &str, p: char) {
        self.obs(at, ObservationKind::SquareChanged { square: sq(s), now: SquareState::Piece(pc(p)) });
    }

    fn settle(&mut self) {
        while let Some(d) = self.r.deadline() {
            for i in self.r.tick(d) {
                self.out.push((d, i));
            }
        }
    }

    fn moves(&self) -> Vec<InferredMove> {
        self.out
            .iter()
            .filter_map(|(_, i)| if let Inference::Move(m) = i { Some(*m) } else { None })
            .collect()
    }

    /// The moves on the record in SAN, for readers created at the start.
    fn sans(&self) -> Vec<String> {
        let mut p = Position::startpos();
        self.r
            .moves()
            .iter()
            .map(|m| {
                let s = p.san(*m);
                p = p.after(*m);
                s
            })
            .collect()
    }

    fn touches(&self) -> Vec<(TouchKind, Square, DeviceTime)> {
        self.out
            .iter()
            .filter_map(
                |(_, i)| if let Inference::Touch(t) = i { Some((t.kind, t.square, t.at)) } else { None },
            )
            .collect()
    }
}

fn play(sans: &str) -> Position {
    let mut p = Position::startpos();
    for s in sans.split_whitespace() {
        p = p.after(p.parse_san(s).unwrap());
    }
    p
}

#[test]
fn a_move_counts_only_after_the_piece_rested_for_the_settle_time() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    f.lift(1000, "g1");
    f.put(1500, "f3", 'N');
    assert_eq!(f.r.deadline(), Some(DeviceTime(1800)));
    assert!(f.r.tick(DeviceTime(1799)).is_empty());
    // Lifted again before it rested: no move, and a new placement restarts the wait.
    f.lift(1700, "f3");
    assert_eq!(f.r.deadline(), None);
    f.put(1900, "h3", 'N');
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].placed_at, DeviceTime(1900));
    assert_eq!(m[0].settled_at, DeviceTime(2200));
    assert_eq!(f.sans(), ["Nh3"]);
}

#[test]
fn the_settle_time_is_a_setting_and_bounded() {
    assert_eq!(Settle::from_ms(750).unwrap().ms(), 750);
    assert_eq!(Settle::from_ms(10_001), Err(SettingsError::SettleTooLong { ms: 10_001 }));
    let s = Settings::new(Settle::from_ms(1000).unwrap(), Sensing::PieceIds);
    assert_eq!(s.with_catch_up(0), Err(SettingsError::CatchUpDepth { depth: 0 }));
    assert_eq!(s.with_catch_up(5), Err(SettingsError::CatchUpDepth { depth: 5 }));
    let mut r = BoardReader::new(DEV, Position::startpos(), s);
    let o = |seq, at, kind| Observation { device: DEV, device_seq: seq, at: DeviceTime(at), kind };
    r.observe(&o(1, 0, ObservationKind::SquareChanged { square: sq("e2"), now: SquareState::Empty }))
        .unwrap();
    r.observe(&o(
        2,
        100,
        ObservationKind::SquareChanged { square: sq("e4"), now: SquareState::Piece(pc('P')) },
    ))
    .unwrap();
    assert_eq!(r.deadline(), Some(DeviceTime(1100)));
}

#[test]
fn captures_in_either_order_of_lifts() {
    let start = play("e4 d5");
    for victim_first in [false, true] {
        let mut f = Feed::new(start, Sensing::PieceIds);
        if victim_first {
            f.lift(1000, "d5");
            f.lift(1400, "e4");
        } else {
            f.lift(1000, "e4");
            f.lift(1400, "d5");
        }
        f.put(1700, "d5", 'P');
        f.settle();
        assert_eq!(f.moves().len(), 1);
        assert_eq!(start.san(f.moves()[0].mv), "exd5");
    }
}

#[test]
fn castling_king_first_rook_first_and_a_rook_move_revised_when_the_king_follows_late() {
    let start = play("e4 e5 Nf3 Nc6 Bc4 Bc5");
    // King first, with a long pause before the rook: the half-castled
    // placement is waited through, never ruled illegal.
    let mut f = Feed::new(start, Sensing::PieceIds);
    f.lift(1000, "e1");
    f.put(1300, "g1", 'K');
    f.lift(2500, "h1");
    f.put(2800, "f1", 'R');
    f.settle();
    assert_eq!(f.moves().len(), 1, "{:?}", f.out);
    assert!(f.moves()[0].mv.is_castle());
    // Rook first, quickly: castling at once.
    let mut f = Feed::new(start, Sensing::PieceIds);
    f.lift(1000, "h1");
    f.put(1300, "f1", 'R');
    f.lift(1450, "e1");
    f.put(1550, "g1", 'K');
    f.settle();
    assert_eq!(f.moves().len(), 1);
    assert!(f.moves()[0].mv.is_castle());
    // Rook first, king after the settle time: Rf1 is ruled, then revised.
    let mut f = Feed::new(start, Sensing::PieceIds);
    f.lift(1000, "h1");
    f.put(1300, "f1", 'R');
    f.settle();
    assert_eq!(start.san(f.moves()[0].mv), "Rf1");
    f.lift(2500, "e1");
    f.put(2800, "g1", 'K');
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 2);
    assert!(m[1].mv.is_castle());
    assert_eq!(m[1].revises, Some(Move::normal(sq("h1"), sq("f1"))));
    assert_eq!(m[1].ply, 0);
    assert_eq!(f.r.ply(), 1);
    assert_eq!(f.r.position(), &play("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O"));
}

#[test]
fn a_sliding_piece_seen_on_two_squares_and_updates_in_reverse_order() {
    let mut f = Feed::new(play("e4 e5"), Sensing::PieceIds);
    // The queen shows on h5 before d1 is reported empty.
    f.put(1000, "h5", 'Q');
    f.lift(1030, "d1");
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 1);
    // The move is complete when the board shows it: when d1 is reported empty.
    assert_eq!(m[0].placed_at, DeviceTime(1030));
    assert_eq!(f.sans().last().unwrap(), "Qh5");
}

#[test]
fn promotion_with_the_piece_placed_or_the_pawn_first_and_on_occupancy_boards_from_another_input() {
    let start = Position::from_fen("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1").unwrap();
    // Pawn on e8 first: waited through; then exchanged for a knight.
    let mut f = Feed::new(start, Sensing::PieceIds);
    f.lift(1000, "e7");
    f.put(1300, "e8", 'P');
    f.lift(2500, "e8");
    f.put(2900, "e8", 'N');
    f.settle();
    assert_eq!(f.moves().len(), 1, "{:?}", f.out);
    assert_eq!(f.moves()[0].mv.promotion_role(), Some(Role::Knight));
    // Occupancy board: the pawn lands, the choice comes late.
    let mut f = Feed::new(start, Sensing::Occupancy);
    f.obs(1000, ObservationKind::Lifted { square: sq("e7") });
    f.obs(1300, ObservationKind::Placed { square: sq("e8"), piece: None });
    f.settle();
    assert!(f.out.iter().any(|(_, i)| matches!(i, Inference::PromotionPending { .. })), "{:?}", f.out);
    assert!(f.moves().is_empty());
    f.obs(2000, ObservationKind::PromotionChosen(Role::Rook));
    let m = f.moves();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mv.promotion_role(), Some(Role::Rook));
    assert_eq!(m[0].settled_at, DeviceTime(1600));
}

#[test]
fn occupancy_boards_tell_captures_apart_by_the_square_placed_on() {
    // The queen on e2 can take d2, e4 or h5: the same squares stay occupied.
    let start = Position::from_fen("r4k1r/1bq1b3/p4pp1/3p3p/3Pp3/1B4N1/PPPnQPPP/R3R1K1 w - - 0 22").unwrap();
    let mut f = Feed::new(start, Sensing::Occupancy);
    f.obs(1000, ObservationKind::Lifted { square: sq("e2") });
    f.obs(1400, ObservationKind::Lifted { square: sq("d2") });
    f.obs(1700, ObservationKind::Placed { square: sq("d2"), piece: None });
    f.settle();
    assert_eq!(start.san(f.moves()[0].mv), "Qxd2");
    // The capture is no touch-and-put-back of the knight.
    assert!(!f.touches().iter().any(|t| t.0 == TouchKind::LiftAndReplace));
}

#[test]
fn a_take_back_to_an_earlier_position() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    f.lift(1000, "e2");
    f.put(1300, "e4", 'P');
    f.lift(3000, "e7");
    f.put(3300, "e5", 'p');
    f.settle();
    assert_eq!(f.r.ply(), 2);
    f.lift(5000, "e5");
    f.put(5300, "e7", 'p');
    f.settle();
    assert!(f.out.iter().any(|(_, i)| matches!(i, Inference::TakeBack { to_ply: 1, .. })));
    assert_eq!(f.r.ply(), 1);
    assert_eq!(f.r.position(), &play("e4"));
}

#[test]
fn several_missed_moves_are_caught_up_from_a_full_scan() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    let target = play("e4 e5 Qh5");
    f.obs(5000, ObservationKind::Placement(Placement::Pieces(*target.board())));
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 3, "{:?}", f.out);
    assert!(m.iter().all(|m| m.caught_up));
    assert_eq!(f.r.position(), &target);
    // Beyond the catch-up depth: an unknown placement, not a guess.
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    let far = play("e4 e5 Nf3 Nc6 Bb5");
    f.obs(5000, ObservationKind::Placement(Placement::Pieces(*far.board())));
    f.settle();
    assert!(f.moves().is_empty());
    assert!(matches!(f.out.last(), Some((_, Inference::Unknown { .. }))));
}

#[test]
fn two_missed_moves_of_one_side_that_transpose_are_not_guessed() {
    // 1.e4 e5 2.Nf3 and 1.Nf3 e5 2.e4 reach the same placement: the order
    // cannot be known, so nothing goes on the record.
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    let target = play("e4 e5 Nf3");
    f.obs(5000, ObservationKind::Placement(Placement::Pieces(*target.board())));
    f.settle();
    assert!(f.moves().is_empty());
    assert!(matches!(f.out.last(), Some((_, Inference::Unknown { .. }))));
    assert!(f.r.is_out_of_sync());
}

#[test]
fn an_illegal_move_is_reported_with_what_to_correct_and_the_board_restored() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    f.lift(1000, "f1");
    f.put(1300, "c4", 'B');
    f.settle();
    let illegal = f
        .out
        .iter()
        .find_map(|(_, i)| if let Inference::IllegalMove(a) = i { Some(*a) } else { None })
        .expect("an illegal move");
    assert_eq!(
        (illegal.from, illegal.to, illegal.piece, illegal.ply),
        (sq("f1"), sq("c4"), Some(pc('B')), 0)
    );
    assert!(f.r.is_out_of_sync());
    assert_eq!(f.r.corrections(), [Correction::Move { from: sq("c4"), to: sq("f1"), piece: pc('B') }]);
    assert_eq!(f.r.believed(), f.r.sensed());
    assert_eq!(f.r.position(), &Position::startpos());
    f.lift(2000, "c4");
    f.put(2300, "f1", 'B');
    f.settle();
    assert!(matches!(f.out.last(), Some((_, Inference::Restored { .. }))));
    assert!(!f.r.is_out_of_sync());
    assert!(f.r.corrections().is_empty());
}

#[test]
fn an_unknown_placement_is_reported_once_until_the_board_changes() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    // Two pawns of both sides gone at once, as a scan shows it.
    let mut b = *Position::startpos().board();
    b.remove(sq("a2"));
    b.remove(sq("h7"));
    f.obs(1000, ObservationKind::Placement(Placement::Pieces(b)));
    f.settle();
    f.obs(2000, ObservationKind::Placement(Placement::Pieces(b)));
    f.settle();
    let unknown = f.out.iter().filter(|(_, i)| matches!(i, Inference::Unknown { .. })).count();
    assert_eq!(unknown, 1, "{:?}", f.out);
    assert!(f.moves().is_empty());
    assert_eq!(f.r.believed(), Placement::Pieces(b));
    assert_eq!(f.r.corrections().len(), 2);
}

#[test]
fn touch_evidence_first_lift_lift_and_put_back_and_the_opponents_piece() {
    let mut f = Feed::new(play("e4 d5"), Sensing::PieceIds);
    // White lifts the knight and puts it back, then takes on d5.
    f.lift(1000, "g1");
    f.put(1400, "g1", 'N');
    f.lift(2000, "d5");
    f.lift(2300, "e4");
    f.put(2600, "d5", 'P');
    f.settle();
    assert_eq!(
        f.touches(),
        [
            (TouchKind::FirstLift, sq("g1"), DeviceTime(1000)),
            (TouchKind::LiftAndReplace, sq("g1"), DeviceTime(1000)),
            (TouchKind::OpponentPiece, sq("d5"), DeviceTime(2000)),
        ]
    );
    let replaced = f
        .out
        .iter()
        .find_map(|(_, i)| match i {
            Inference::Touch(t) if t.kind == TouchKind::LiftAndReplace => Some(*t),
            _ => None,
        })
        .unwrap();
    assert_eq!(replaced.released_at, Some(DeviceTime(1400)));
    assert_eq!(replaced.piece, pc('N'));
    // Plies count from the position the reader was created with.
    assert_eq!(replaced.ply, 0);
    assert_eq!(f.moves().len(), 1);
}

#[test]
fn a_knocked_piece_put_back_does_not_delay_or_change_the_move() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    f.lift(1000, "g1");
    f.put(1300, "f3", 'N');
    f.lift(1400, "a2");
    f.put(1450, "a2", 'P');
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].settled_at, DeviceTime(1600));
}

fn o(seq: u64, at: u64, kind: ObservationKind) -> Observation {
    Observation { device: DEV, device_seq: seq, at: DeviceTime(at), kind }
}

#[test]
fn bad_input_gets_a_specific_error_and_changes_nothing() {
    let mut r = BoardReader::new(DEV, Position::startpos(), Settings::default());
    let lift = ObservationKind::SquareChanged { square: sq("e2"), now: SquareState::Empty };
    r.observe(&o(5, 100, lift)).unwrap();
    assert_eq!(r.observe(&o(5, 100, lift)), Err(ObservationError::Duplicate { seq: 5 }));
    assert_eq!(r.observe(&o(4, 100, lift)), Err(ObservationError::OutOfOrder { seq: 4, last: 5 }));
    assert_eq!(r.observe(&o(6, 99, lift)), Err(ObservationError::TimeWentBack { at: 99, last: 100 }));
    let stranger = Observation { device: DeviceId(9), ..o(7, 200, lift) };
    assert_eq!(
        r.observe(&stranger),
        Err(ObservationError::UnknownDevice { device: DeviceId(9), expected: DEV })
    );
    // 33 pieces in a scan.
    let mut b = *Position::startpos().board();
    b.set(sq("e4"), pc('N'));
    let over = Placement::Pieces(b);
    assert_eq!(
        r.observe(&o(7, 200, ObservationKind::Placement(over))),
        Err(ObservationError::Impossible(Impossible::TooManyPieces { count: 33 }))
    );
    // Both kings gone.
    let mut b = *Position::startpos().board();
    b.remove(sq("e1"));
    b.remove(sq("e8"));
    assert_eq!(
        r.observe(&o(8, 200, ObservationKind::Placement(Placement::Pieces(b)))),
        Err(ObservationError::Impossible(Impossible::NoKings))
    );
    // Seventeen white pieces.
    let mut b = *Position::startpos().board();
    b.remove(sq("e7"));
    b.set(sq("e4"), pc('Q'));
    assert_eq!(
        r.observe(&o(9, 200, ObservationKind::Placement(Placement::Pieces(b)))),
        Err(ObservationError::Impossible(Impossible::TooManyOfColor { color: Color::White, count: 17 }))
    );
    assert_eq!(
        r.observe(&o(10, 200, ObservationKind::Placement(Placement::Occupancy(Bitboard::EMPTY)))),
        Err(ObservationError::SensingMismatch)
    );
    assert_eq!(
        r.observe(&o(11, 200, ObservationKind::PromotionChosen(Role::King))),
        Err(ObservationError::NotAPromotionPiece { role: Role::King })
    );
    // Nothing of that reached the board's state: the pawn is still in the hand.
    let mut expected = *Position::startpos().board();
    expected.remove(sq("e2"));
    assert_eq!(r.sensed(), Placement::Pieces(expected));
    r.observe(&o(12, 300, ObservationKind::Placed { square: sq("e4"), piece: None })).unwrap();
    assert_eq!(r.tick(DeviceTime(600)).len(), 1);
    r.finish();
    assert_eq!(r.observe(&o(13, 700, lift)), Err(ObservationError::GameFinished));
}

#[test]
fn a_placement_without_a_code_and_nothing_in_the_hand_is_refused() {
    let mut r = BoardReader::new(DEV, Position::startpos(), Settings::default());
    assert_eq!(
        r.observe(&o(1, 0, ObservationKind::Placed { square: sq("e4"), piece: None })),
        Err(ObservationError::UnknownPiece { square: sq("e4") })
    );
}

#[test]
fn set_position_follows_the_laws_and_reads_on_from_there() {
    let mut f = Feed::new(Position::startpos(), Sensing::PieceIds);
    let after = play("e4");
    f.r.set_position(after);
    // The board still shows the start: out of step until the pawn is moved.
    assert!(f.r.is_out_of_sync());
    f.lift(1000, "e2");
    f.put(1300, "e4", 'P');
    f.settle();
    assert!(matches!(f.out.last(), Some((_, Inference::Restored { .. }))), "{:?}", f.out);
    f.lift(2000, "e7");
    f.put(2300, "e5", 'p');
    f.settle();
    assert_eq!(f.r.ply(), 1);
    assert_eq!(f.r.position(), &play("e4 e5"));
}

#[test]
fn en_passant_with_the_captured_pawn_taken_off_last_is_waited_through() {
    let start = play("e4 a6 e5 d5");
    let mut f = Feed::new(start, Sensing::PieceIds);
    f.lift(1000, "e5");
    f.put(1300, "d6", 'P');
    // The capturing pawn rests longer than the settle time before the
    // captured one goes: no illegal move is ruled meanwhile.
    f.lift(2500, "d5");
    f.settle();
    assert_eq!(
        f.out.iter().filter(|(_, i)| matches!(i, Inference::IllegalMove(_))).count(),
        0,
        "{:?}",
        f.out
    );
    let m = f.moves();
    assert_eq!(m.len(), 1);
    assert!(m[0].mv.is_en_passant());
    assert_eq!(m[0].placed_at, DeviceTime(2500));
}

#[test]
fn an_occupancy_board_whose_lift_was_missed_still_reads_the_capture() {
    let start = play("e4 d5");
    let mut f = Feed::new(start, Sensing::Occupancy);
    f.obs(1000, ObservationKind::Lifted { square: sq("e4") });
    // The lift of the pawn on d5 never arrived; the capturer is put there.
    f.obs(1500, ObservationKind::Placed { square: sq("d5"), piece: None });
    f.settle();
    assert_eq!(f.moves().len(), 1);
    assert_eq!(start.san(f.moves()[0].mv), "exd5");
}

#[test]
fn a_rook_put_beside_the_king_on_an_occupancy_board_is_not_read_as_a_king_move() {
    // Castling rook first, the rook's lift lost: when the king is lifted, the
    // board looks like Kf1 played by sliding; it is not, it is castling.
    let start = play("e4 e5 Nf3 Nc6 Bc4 Bc5");
    let mut f = Feed::new(start, Sensing::Occupancy);
    f.obs(1000, ObservationKind::Placed { square: sq("f1"), piece: None });
    f.obs(1250, ObservationKind::Lifted { square: sq("e1") });
    f.obs(1600, ObservationKind::Placed { square: sq("g1"), piece: None });
    f.obs(
        1800,
        ObservationKind::Placement(Placement::Occupancy(
            play("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O").board().occupied(),
        )),
    );
    f.settle();
    let m = f.moves();
    assert_eq!(m.len(), 1, "{:?}", f.out);
    assert!(m[0].mv.is_castle());
}
