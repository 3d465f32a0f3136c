//! Bytes decode into reader settings and a stream of observations and
//! ticks; the reader must never panic, a refused observation must leave the
//! game position as it was, and every move it rules must be legal in the
//! position it was ruled from.
//!
//! Input layout: byte 0 chooses the sensing, the settle time and the start
//! position; then each step reads a control byte (sequence and time jumps,
//! device, tick) and a kind byte with the bytes its arguments need. Squares
//! are mostly taken among the legal moves' squares, so streams reach deep
//! into games.

#![no_main]

use arbiter_board::{
    BoardReader, DeviceId, DeviceTime, Inference, Observation, ObservationKind, Placement, Sensing, Settings,
    Settle, SquareState,
};
use arbiter_chess::{Bitboard, Color, Piece, Position, Role, Square};
use libfuzzer_sys::fuzz_target;

const FENS: [&str; 4] = [
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "8/4P1k1/8/8/8/8/1p4K1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
];

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let (b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*b)
    }
}

fn piece(b: u8) -> Piece {
    let color = if b & 8 == 0 { Color::White } else { Color::Black };
    Piece { color, role: Role::ALL[(b & 7) as usize % 6] }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let Some(head) = bytes.next() else { return };
    let sensing = if head & 1 == 0 { Sensing::PieceIds } else { Sensing::Occupancy };
    let settle = Settle::from_ms(u64::from(head >> 1 & 7) * 100).unwrap();
    let start = match head >> 4 {
        n @ 0..=3 => Position::from_fen(FENS[n as usize]).unwrap(),
        _ => Position::startpos(),
    };
    let dev = DeviceId(1);
    let mut r = BoardReader::new(dev, start, Settings::new(settle, sensing));
    let mut mirror = vec![start];
    let (mut seq, mut at) = (0u64, 0u64);
    let check = |out: Vec<Inference>, mirror: &mut Vec<Position>| {
        for i in out {
            match i {
                Inference::Move(m) => {
                    if m.revises.is_some() {
                        mirror.pop();
                    }
                    let pos = *mirror.last().unwrap();
                    assert!(pos.is_legal(m.mv), "{:?} in {}", m.mv, pos.fen());
                    mirror.push(pos.after(m.mv));
                }
                Inference::TakeBack { to_ply, .. } => mirror.truncate(to_ply + 1),
                _ => {}
            }
        }
    };
    for _ in 0..400 {
        let (Some(ctl), Some(k)) = (bytes.next(), bytes.next()) else { break };
        seq = match ctl & 3 {
            0 => seq,
            1 => seq.wrapping_sub(1),
            _ => seq.wrapping_add(1),
        };
        at = match ctl >> 2 & 3 {
            0 => at.saturating_sub(50),
            1 => u64::MAX,
            _ => at.saturating_add(u64::from(ctl >> 4) * 60),
        };
        let device = if ctl == 0xff { DeviceId(2) } else { dev };
        let moves = r.position().legal_moves();
        let arg = bytes.next().unwrap_or(0);
        let square = match moves.get(arg as usize % moves.len().max(1)) {
            Some(m) if arg & 0x80 == 0 => if k & 1 == 0 { m.from() } else { m.king_or_piece_to() },
            _ => Square::new(u32::from(arg) & 63),
        };
        let kind = match k >> 1 & 7 {
            0 => ObservationKind::Lifted { square },
            1 => ObservationKind::Placed { square, piece: (k & 0x10 != 0).then(|| piece(k >> 4)) },
            2 => ObservationKind::SquareChanged { square, now: SquareState::Empty },
            3 => ObservationKind::SquareChanged { square, now: SquareState::Piece(piece(k >> 4)) },
            4 => ObservationKind::SquareChanged { square, now: SquareState::Occupied },
            5 => ObservationKind::PromotionChosen(Role::ALL[(k >> 4) as usize % 6]),
            6 => {
                let mut p = *r.position();
                if let Some(m) = moves.get(arg as usize % moves.len().max(1)) {
                    p = p.after(*m);
                }
                if sensing == Sensing::PieceIds {
                    ObservationKind::Placement(Placement::Pieces(*p.board()))
                } else {
                    ObservationKind::Placement(Placement::Occupancy(p.board().occupied()))
                }
            }
            _ => {
                let mut x = 0u64;
                for _ in 0..8 {
                    x = x << 8 | u64::from(bytes.next().unwrap_or(0));
                }
                ObservationKind::Placement(Placement::Occupancy(Bitboard(x)))
            }
        };
        if ctl & 0x40 != 0
            && let Some(d) = r.deadline()
        {
            check(r.tick(d), &mut mirror);
        }
        let before = *r.position();
        match r.observe(&Observation { device, device_seq: seq, at: DeviceTime(at), kind }) {
            Ok(out) => check(out, &mut mirror),
            Err(_) => assert_eq!(r.position(), &before),
        }
        assert_eq!(mirror.last(), Some(r.position()));
        let _ = r.corrections();
    }
});
