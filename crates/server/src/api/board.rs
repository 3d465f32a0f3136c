//! ConnectBoard on the wire: the board's messages into domain values
//! (every problem a field violation), and the service's answers into
//! messages.

use arbiter_board::{Correction, DeviceId, DeviceTime, ObservationKind, Sensing, Settings, Settle};
use arbiter_proto::v1 as pb;

use super::{Violation, path, unknown_enum, validate};
use crate::board::{self, BoardState, ClockReport, Hello, Incoming, Seen, Sent};

/// The largest number a device may use for its id, sequence numbers and
/// times: they are kept in signed 64-bit columns.
const MAX_NUMBER: u64 = i64::MAX as u64;

/// Reads the first message of a stream.
///
/// # Errors
/// The violations, with paths under `hello`.
pub fn hello(h: &pb::BoardHello) -> Result<Hello, Vec<Violation>> {
    let mut violations = Vec::new();
    let game_id = match h.name.strip_prefix("games/") {
        Some(id)
            if !id.is_empty()
                && id.len() <= 63
                && id.as_bytes()[0].is_ascii_lowercase()
                && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
        {
            id.to_owned()
        }
        _ => {
            violations.push(Violation::new(
                "hello.name",
                format!("{} is not a game name: expected `games/{{game}}`", crate::error::quote(&h.name)),
            ));
            String::new()
        }
    };
    if h.device_id == 0 || h.device_id > MAX_NUMBER {
        violations.push(Violation::new("hello.device_id", format!("must be between 1 and {MAX_NUMBER}")));
    }
    let sensing = match pb::BoardSensing::try_from(h.sensing) {
        Ok(pb::BoardSensing::Unspecified | pb::BoardSensing::PieceIds) => Sensing::PieceIds,
        Ok(pb::BoardSensing::Occupancy) => Sensing::Occupancy,
        Err(_) => {
            violations.push(unknown_enum(
                "hello.sensing",
                "sensing",
                h.sensing,
                "BOARD_SENSING_PIECE_IDS = 1 or BOARD_SENSING_OCCUPANCY = 2",
            ));
            Sensing::PieceIds
        }
    };
    let settle = if h.settle_ms == 0 {
        Settle::DEFAULT
    } else {
        Settle::from_ms(u64::from(h.settle_ms)).unwrap_or_else(|e| {
            violations.push(Violation::new("hello.settle_ms", e.to_string()));
            Settle::DEFAULT
        })
    };
    if let Err(v) = validate::label("hello.label", &h.label) {
        violations.push(v);
    }
    if violations.is_empty() {
        Ok(Hello {
            game_id,
            device: DeviceId(h.device_id),
            settings: Settings::new(settle, sensing),
            label: h.label.clone(),
        })
    } else {
        Err(violations)
    }
}

/// Reads a message after the hello: an observation or a clock report.
/// `sensing` is the board's, so that a placement reads as it can be meant.
///
/// # Errors
/// The device's sequence number (0 if it could not be read) and the
/// violations.
pub fn incoming(r: &pb::ConnectBoardRequest, sensing: Sensing) -> Result<Incoming, (u64, Vec<Violation>)> {
    let occupancy = sensing == Sensing::Occupancy;
    match &r.item {
        None => Err((0, vec![Violation::new("item", "an observation or a clock report is required")])),
        Some(pb::connect_board_request::Item::Hello(_)) => Err((
            0,
            vec![Violation::new("hello", "the hello is the first message of a stream, and only the first")],
        )),
        Some(pb::connect_board_request::Item::Observation(o)) => {
            let mut violations = numbered("observation", o.device_seq, o.device_time_ms);
            let seen = observation(o, occupancy, &mut violations);
            match seen {
                Some(seen) if violations.is_empty() => Ok(Incoming {
                    device_seq: o.device_seq,
                    at: DeviceTime(o.device_time_ms),
                    what: Sent::Squares(seen),
                }),
                _ => Err((o.device_seq, violations)),
            }
        }
        Some(pb::connect_board_request::Item::Clock(c)) => {
            let mut violations = numbered("clock", c.device_seq, c.device_time_ms);
            for (field, ms) in [
                ("clock.white_remaining_ms", c.white_remaining_ms),
                ("clock.black_remaining_ms", c.black_remaining_ms),
            ] {
                if !(0..=86_400_000).contains(&ms) {
                    violations.push(Violation::new(field, "must be between 0 and 24 hours"));
                }
            }
            let running = validate::color_from_proto("clock.running", c.running).unwrap_or_else(|v| {
                violations.push(v);
                None
            });
            if violations.is_empty() {
                Ok(Incoming {
                    device_seq: c.device_seq,
                    at: DeviceTime(c.device_time_ms),
                    what: Sent::Clock(ClockReport {
                        white_ms: c.white_remaining_ms,
                        black_ms: c.black_remaining_ms,
                        running,
                    }),
                })
            } else {
                Err((c.device_seq, violations))
            }
        }
    }
}

fn numbered(prefix: &str, seq: u64, time_ms: u64) -> Vec<Violation> {
    let mut violations = Vec::new();
    if seq == 0 || seq > MAX_NUMBER {
        violations
            .push(Violation::new(path(prefix, "device_seq"), format!("must be between 1 and {MAX_NUMBER}")));
    }
    if time_ms > MAX_NUMBER {
        violations
            .push(Violation::new(path(prefix, "device_time_ms"), format!("must be at most {MAX_NUMBER}")));
    }
    violations
}

fn observation(o: &pb::BoardObservation, occupancy: bool, violations: &mut Vec<Violation>) -> Option<Seen> {
    use pb::board_observation::Kind;
    let square = |field: &str, text: &str, violations: &mut Vec<Violation>| {
        validate::parse_square(field, text).map_err(|v| violations.push(v)).ok()
    };
    match &o.kind {
        None => {
            violations.push(Violation::new(
                "observation.kind",
                "what was seen is required: a placement, changes, a lift, a placing or a promotion piece",
            ));
            None
        }
        Some(Kind::Placement(text)) => match board::parse_placement(text, occupancy) {
            Ok(p) => Some(Seen::Kind(ObservationKind::Placement(p))),
            Err(e) => {
                violations.push(Violation::new("observation.placement", e));
                None
            }
        },
        Some(Kind::Changes(changes)) => {
            if changes.squares.is_empty() || changes.squares.len() > 64 {
                violations.push(Violation::new("observation.changes.squares", "between 1 and 64 squares"));
                return None;
            }
            let mut out = Vec::with_capacity(changes.squares.len());
            for (i, s) in changes.squares.iter().enumerate() {
                let at = format!("observation.changes.squares[{i}]");
                let sq = square(&path(&at, "square"), &s.square, violations);
                let state = board::parse_square_state(&s.piece)
                    .map_err(|e| violations.push(Violation::new(path(&at, "piece"), e)))
                    .ok();
                if let (Some(sq), Some(state)) = (sq, state) {
                    if out.iter().any(|(seen, _)| *seen == sq) {
                        violations.push(Violation::new(path(&at, "square"), format!("{sq} is listed twice")));
                    }
                    out.push((sq, state));
                }
            }
            Some(Seen::Changes(out))
        }
        Some(Kind::Lifted(text)) => square("observation.lifted", text, violations)
            .map(|square| Seen::Kind(ObservationKind::Lifted { square })),
        Some(Kind::Placed(p)) => {
            let sq = square("observation.placed.square", &p.square, violations)?;
            let piece = match board::parse_square_state(&p.piece) {
                Ok(arbiter_board::SquareState::Piece(piece)) => Some(piece),
                Ok(_) => None,
                Err(e) => {
                    violations.push(Violation::new("observation.placed.piece", e));
                    return None;
                }
            };
            Some(Seen::Kind(ObservationKind::Placed { square: sq, piece }))
        }
        Some(Kind::Promotion(text)) => match board::parse_promotion(text) {
            Ok(role) => Some(Seen::Kind(ObservationKind::PromotionChosen(role))),
            Err(e) => {
                violations.push(Violation::new("observation.promotion", e));
                None
            }
        },
    }
}

/// A board's state as `Game.board` shows it.
pub fn state_to_proto(s: &BoardState) -> pb::BoardStatus {
    pb::BoardStatus {
        device_id: s.device.0,
        label: s.label.clone(),
        connected: s.connected,
        in_sync: s.in_sync,
        believed_placement: s.believed.clone(),
        last_device_seq: s.last_device_seq,
    }
}

/// The corrections a board is sent, square by square: a move is the
/// square emptied and the square filled.
pub fn corrections_to_proto(corrections: &[Correction]) -> Vec<pb::BoardCorrection> {
    let mut out = Vec::new();
    for c in corrections {
        match *c {
            Correction::Move { from, to, piece } => {
                out.push(pb::BoardCorrection { square: from.to_string(), piece: String::new() });
                out.push(pb::BoardCorrection { square: to.to_string(), piece: piece.char().to_string() });
            }
            Correction::Remove { square, .. } => {
                out.push(pb::BoardCorrection { square: square.to_string(), piece: String::new() });
            }
            Correction::Put { square, piece } => {
                out.push(pb::BoardCorrection { square: square.to_string(), piece: piece.char().to_string() });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(seq: u64, kind: pb::board_observation::Kind) -> pb::ConnectBoardRequest {
        pb::ConnectBoardRequest {
            item: Some(pb::connect_board_request::Item::Observation(pb::BoardObservation {
                device_seq: seq,
                device_time_ms: 10,
                kind: Some(kind),
            })),
        }
    }

    #[test]
    fn a_hello_names_every_bad_field() {
        let bad = pb::BoardHello {
            name: "game/x".into(),
            device_id: 0,
            sensing: 9,
            settle_ms: 60_000,
            label: "a\u{202e}b".into(),
        };
        let fields: Vec<String> = hello(&bad).unwrap_err().into_iter().map(|v| v.field).collect();
        assert_eq!(
            fields,
            ["hello.name", "hello.device_id", "hello.sensing", "hello.settle_ms", "hello.label"]
        );
        let good = pb::BoardHello { name: "games/g1".into(), device_id: 7, ..Default::default() };
        let h = hello(&good).unwrap();
        assert_eq!((h.game_id.as_str(), h.device, h.settings.settle), ("g1", DeviceId(7), Settle::DEFAULT));
    }

    #[test]
    fn observations_are_read_or_refused_by_field() {
        use pb::board_observation::Kind;
        let ok = incoming(&obs(3, Kind::Lifted("e2".into())), Sensing::PieceIds).unwrap();
        assert_eq!(ok.device_seq, 3);
        let (seq, v) = incoming(&obs(4, Kind::Lifted("e9".into())), Sensing::PieceIds).unwrap_err();
        assert_eq!((seq, v[0].field.as_str()), (4, "observation.lifted"));
        let (_, v) = incoming(&obs(0, Kind::Placement("8/8".into())), Sensing::PieceIds).unwrap_err();
        let fields: Vec<&str> = v.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["observation.device_seq", "observation.placement"]);
        let twice = pb::BoardSquareChanges {
            squares: vec![
                pb::BoardSquare { square: "e2".into(), piece: String::new() },
                pb::BoardSquare { square: "e2".into(), piece: "P".into() },
            ],
        };
        let (_, v) = incoming(&obs(5, Kind::Changes(twice)), Sensing::PieceIds).unwrap_err();
        assert_eq!(v[0].field, "observation.changes.squares[1].square");
        let (_, v) = incoming(&obs(6, Kind::Promotion("k".into())), Sensing::PieceIds).unwrap_err();
        assert_eq!(v[0].field, "observation.promotion");
    }

    #[test]
    fn clock_reports_are_bounded() {
        let r = pb::ConnectBoardRequest {
            item: Some(pb::connect_board_request::Item::Clock(pb::BoardClockReport {
                device_seq: 2,
                device_time_ms: 5,
                white_remaining_ms: -1,
                black_remaining_ms: 10,
                running: 7,
            })),
        };
        let (_, v) = incoming(&r, Sensing::PieceIds).unwrap_err();
        let fields: Vec<&str> = v.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["clock.white_remaining_ms", "clock.running"]);
    }
}
