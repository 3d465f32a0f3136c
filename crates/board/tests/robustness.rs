//! Hostile and random observation streams (issue 15, point 5): the reader
//! never panics, and every move it puts on the record is legal in the
//! position it was inferred from. Deterministic: a fixed seed per stream.

use arbiter_board::simulate::Rng;
use arbiter_board::{
    BoardReader, DeviceId, DeviceTime, Inference, Observation, ObservationKind, Placement, Sensing, Settings,
    SquareState,
};
use arbiter_chess::{Bitboard, Board, Color, Piece, Position, Role, Square};

const DEV: DeviceId = DeviceId(3);

fn random_piece(rng: &mut Rng) -> Piece {
    let color = if rng.chance(0.5) { Color::White } else { Color::Black };
    Piece { color, role: rng.pick(&Role::ALL).unwrap() }
}

fn random_square(rng: &mut Rng) -> Square {
    Square::new(rng.range(0, 63) as u32)
}

/// An observation near what a board could send (lifts of occupied squares,
/// placements of plausible pieces, scans of legal successors two moves on),
/// with a share of plain garbage.
fn random_kind(rng: &mut Rng, r: &BoardReader) -> ObservationKind {
    let sensed = r.sensed();
    let pos = *r.position();
    match rng.range(0, 9) {
        0..=2 => {
            let occ: Vec<Square> = sensed.occupied().into_iter().collect();
            let square = rng.pick(&occ).unwrap_or_else(|| random_square(rng));
            if rng.chance(0.5) {
                ObservationKind::Lifted { square }
            } else {
                ObservationKind::SquareChanged { square, now: SquareState::Empty }
            }
        }
        3..=5 => {
            let moves = pos.legal_moves();
            let square = match rng.pick(moves.as_slice()) {
                Some(m) if rng.chance(0.7) => m.king_or_piece_to(),
                _ => random_square(rng),
            };
            let piece = if rng.chance(0.3) { None } else { Some(random_piece(rng)) };
            if rng.chance(0.5) {
                ObservationKind::Placed { square, piece }
            } else {
                let now = match piece {
                    Some(p) => SquareState::Piece(p),
                    None => SquareState::Occupied,
                };
                ObservationKind::SquareChanged { square, now }
            }
        }
        6 => {
            // A scan of a position one to three legal moves on, or a mangled one.
            let mut p = pos;
            for _ in 0..rng.range(0, 3) {
                let moves = p.legal_moves();
                if let Some(m) = rng.pick(moves.as_slice()) {
                    p = p.after(m);
                }
            }
            let mut b = *p.board();
            if rng.chance(0.3) {
                b.set(random_square(rng), random_piece(rng));
            }
            if rng.chance(0.2) {
                b.remove(random_square(rng));
            }
            match r.settings().sensing {
                Sensing::PieceIds if rng.chance(0.95) => ObservationKind::Placement(Placement::Pieces(b)),
                _ => ObservationKind::Placement(Placement::Occupancy(b.occupied())),
            }
        }
        7 => ObservationKind::PromotionChosen(rng.pick(&Role::ALL).unwrap()),
        _ => {
            let mut b = Board::empty();
            for _ in 0..rng.range(0, 40) {
                b.set(random_square(rng), random_piece(rng));
            }
            if rng.chance(0.5) {
                ObservationKind::Placement(Placement::Pieces(b))
            } else {
                ObservationKind::Placement(Placement::Occupancy(Bitboard(rng.next_u64())))
            }
        }
    }
}

/// Checks inferences against a mirror of the reader's history.
fn check(out: &[Inference], mirror: &mut Vec<Position>) {
    for i in out {
        match *i {
            Inference::Move(m) => {
                if let Some(old) = m.revises {
                    let before = mirror[mirror.len() - 2];
                    assert!(before.is_legal(old));
                    mirror.pop();
                }
                let pos = *mirror.last().unwrap();
                assert_eq!(m.ply, mirror.len() - 1, "{i:?}");
                assert!(pos.is_legal(m.mv), "{:?} is not legal in {}", m.mv, pos.fen());
                mirror.push(pos.after(m.mv));
            }
            Inference::TakeBack { to_ply, .. } => {
                assert!(to_ply + 1 < mirror.len());
                mirror.truncate(to_ply + 1);
            }
            _ => {}
        }
    }
}

#[test]
fn random_streams_never_panic_and_never_put_an_illegal_move_on_the_record() {
    let mut moves = 0;
    for stream in 0..1000u64 {
        let mut rng = Rng::new(stream);
        let sensing = if stream % 2 == 0 { Sensing::PieceIds } else { Sensing::Occupancy };
        let mut r = BoardReader::new(
            DEV,
            Position::startpos(),
            Settings::new(arbiter_board::Settle::DEFAULT, sensing),
        );
        let mut mirror = vec![Position::startpos()];
        let mut seq = 0u64;
        let mut at = 0u64;
        for _ in 0..300 {
            // Mostly in order; sometimes repeated, reordered, from elsewhere,
            // or with the clock going back.
            seq = match rng.range(0, 19) {
                0 => seq,
                1 => seq.saturating_sub(rng.range(1, 5)),
                _ => seq + 1,
            };
            at = match rng.range(0, 29) {
                0 => at.saturating_sub(rng.range(1, 1000)),
                1 => u64::MAX - rng.range(0, 10),
                _ => at.saturating_add(rng.range(0, 700)),
            };
            let device = if rng.chance(0.02) { DeviceId(99) } else { DEV };
            let kind = random_kind(&mut rng, &r);
            if rng.chance(0.3)
                && let Some(d) = r.deadline()
            {
                let out = r.tick(d);
                check(&out, &mut mirror);
            }
            if let Ok(out) = r.observe(&Observation { device, device_seq: seq, at: DeviceTime(at), kind }) {
                check(&out, &mut mirror);
            }
            assert_eq!(mirror.last(), Some(r.position()));
            let _ = r.corrections();
        }
        moves += r.ply();
    }
    // The streams are near enough to real play that moves happen.
    assert!(moves > 100, "{moves}");
}
