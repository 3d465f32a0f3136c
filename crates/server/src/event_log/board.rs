//! What a row of `board_observations` holds: one report of an e-board (an
//! observation of its squares, a reading of its clock), as a record of this
//! module, written out field by field, never the wire message nor the board
//! crate's types. Numbered on its own ([`BOARD_FORMAT`]), since these rows
//! are not events of the Laws: a new field or kind of report is a new
//! format, and an older build refuses a row of a newer one.

use arbiter_board::{ObservationKind, Placement};
use arbiter_chess::{Color, Piece};
use serde::{Deserialize, Serialize};

use super::FormatError;
use crate::board::{self, ClockReport, Report};

/// The newest format of a board report this build reads, and the one it
/// writes.
pub const BOARD_FORMAT: i64 = 1;

/// Format 1 of a report.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum ReportV1 {
    /// A whole board: the placement field of a FEN, `?` for an occupied
    /// square of an occupancy board.
    Placement {
        board: String,
        occupancy: bool,
    },
    /// One square changed: `` empty, a FEN piece letter, `?` occupied.
    Square {
        square: String,
        now: String,
    },
    Lifted {
        square: String,
    },
    Placed {
        square: String,
        piece: Option<String>,
    },
    /// A FEN letter, lowercase.
    Promotion {
        role: String,
    },
    Clock {
        white_ms: i64,
        black_ms: i64,
        running: Option<String>,
    },
}

/// The stored form of a report.
pub fn encode_report(report: &Report) -> String {
    let record = match *report {
        Report::Squares(kind) => match kind {
            ObservationKind::Placement(p) => ReportV1::Placement {
                board: board::placement_text(&p),
                occupancy: matches!(p, Placement::Occupancy(_)),
            },
            ObservationKind::SquareChanged { square, now } => {
                ReportV1::Square { square: square.to_string(), now: board::square_state_text(now) }
            }
            ObservationKind::Lifted { square } => ReportV1::Lifted { square: square.to_string() },
            ObservationKind::Placed { square, piece } => {
                ReportV1::Placed { square: square.to_string(), piece: piece.map(|p| p.char().to_string()) }
            }
            ObservationKind::PromotionChosen(role) => ReportV1::Promotion { role: role.char().to_string() },
        },
        Report::Clock(c) => ReportV1::Clock {
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running.map(|color| color_text(color).to_owned()),
        },
    };
    serde_json::to_string(&record).expect("a record of plain fields always serialises")
}

/// A stored report.
///
/// # Errors
/// [`FormatError`] for a format this build does not read or a record it
/// cannot.
pub fn decode_report(format: i64, json: &str) -> Result<Report, FormatError> {
    match format {
        1 => {}
        f if f > BOARD_FORMAT => return Err(FormatError::Newer { found: f }),
        f => return Err(FormatError::Nonexistent(f)),
    }
    let invalid = |what: &str, text: &str| FormatError::Invalid(format!("{what} {text:?}"));
    let square = |text: &str| text.parse().map_err(|_| invalid("square", text));
    let record: ReportV1 = serde_json::from_str(json)?;
    Ok(match record {
        ReportV1::Placement { board, occupancy } => Report::Squares(ObservationKind::Placement(
            board::parse_placement(&board, occupancy).map_err(FormatError::Invalid)?,
        )),
        ReportV1::Square { square: s, now } => Report::Squares(ObservationKind::SquareChanged {
            square: square(&s)?,
            now: board::parse_square_state(&now).map_err(FormatError::Invalid)?,
        }),
        ReportV1::Lifted { square: s } => Report::Squares(ObservationKind::Lifted { square: square(&s)? }),
        ReportV1::Placed { square: s, piece } => Report::Squares(ObservationKind::Placed {
            square: square(&s)?,
            piece: match piece {
                None => None,
                Some(text) => Some(piece_of(&text).ok_or_else(|| invalid("piece", &text))?),
            },
        }),
        ReportV1::Promotion { role } => Report::Squares(ObservationKind::PromotionChosen(
            board::parse_promotion(&role).map_err(FormatError::Invalid)?,
        )),
        ReportV1::Clock { white_ms, black_ms, running } => Report::Clock(ClockReport {
            white_ms,
            black_ms,
            running: match running.as_deref() {
                None => None,
                Some("white") => Some(Color::White),
                Some("black") => Some(Color::Black),
                Some(other) => return Err(invalid("colour", other)),
            },
        }),
    })
}

fn color_text(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn piece_of(text: &str) -> Option<Piece> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Piece::from_char(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_board::SquareState;
    use arbiter_chess::{Role, Square};

    #[test]
    fn every_kind_of_report_reads_back() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let knight = Piece { color: Color::White, role: Role::Knight };
        let start = board::parse_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", false).unwrap();
        let occ = board::parse_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", true).unwrap();
        for report in [
            Report::Squares(ObservationKind::Placement(start)),
            Report::Squares(ObservationKind::Placement(occ)),
            Report::Squares(ObservationKind::SquareChanged { square: sq("e4"), now: SquareState::Empty }),
            Report::Squares(ObservationKind::SquareChanged { square: sq("e4"), now: SquareState::Occupied }),
            Report::Squares(ObservationKind::SquareChanged {
                square: sq("f3"),
                now: SquareState::Piece(knight),
            }),
            Report::Squares(ObservationKind::Lifted { square: sq("g1") }),
            Report::Squares(ObservationKind::Placed { square: sq("f3"), piece: Some(knight) }),
            Report::Squares(ObservationKind::Placed { square: sq("f3"), piece: None }),
            Report::Squares(ObservationKind::PromotionChosen(Role::Queen)),
            Report::Clock(ClockReport { white_ms: 1000, black_ms: 2000, running: Some(Color::Black) }),
            Report::Clock(ClockReport { white_ms: 0, black_ms: 0, running: None }),
        ] {
            let json = encode_report(&report);
            assert_eq!(decode_report(BOARD_FORMAT, &json).unwrap(), report, "{json}");
        }
    }

    #[test]
    fn the_stored_bytes_are_pinned() {
        let json = encode_report(&Report::Squares(ObservationKind::Lifted { square: "e2".parse().unwrap() }));
        assert_eq!(json, r#"{"lifted":{"square":"e2"}}"#);
        let json = encode_report(&Report::Clock(ClockReport {
            white_ms: 60_000,
            black_ms: 59_000,
            running: Some(Color::White),
        }));
        assert_eq!(json, r#"{"clock":{"white_ms":60000,"black_ms":59000,"running":"white"}}"#);
    }

    #[test]
    fn newer_and_broken_rows_are_refused() {
        assert!(matches!(decode_report(2, "{}"), Err(FormatError::Newer { found: 2 })));
        assert!(matches!(decode_report(0, "{}"), Err(FormatError::Nonexistent(0))));
        assert!(decode_report(1, r#"{"lifted":{"square":"z9"}}"#).is_err());
        assert!(decode_report(1, r#"{"lifted":{"square":"e2","extra":1}}"#).is_err());
    }
}
