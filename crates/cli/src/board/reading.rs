//! The one observation type every board protocol is read into, and how the
//! bridge numbers and times it for the service.
//!
//! A protocol module (LiveChess, the DGT serial protocol) turns its messages
//! into [`Reading`]s; the bridge stamps each with the next `device_seq` and
//! the bridge's own clock ([`DeviceClock`]) and sends it as a
//! `BoardObservation` or `BoardClockReport`. The protocols know nothing of
//! the service, and the bridge nothing of the protocols.

use std::fmt;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use arbiter_chess::{Color, File, Piece, Rank, Square};
use arbiter_client::{BoardReport, pb};

/// What a board or its clock reported, before the bridge numbers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The whole board (a LiveChess `board`, a DGT board dump).
    Placement(Placement),
    /// One square changed (a DGT field update): the piece now on it, or
    /// `None` when it was emptied (a lift).
    SquareChanged { square: Square, now: Option<Piece> },
    /// What the clock shows.
    Clock(ClockShown),
}

/// What a board's clock shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockShown {
    pub white_ms: i64,
    pub black_ms: i64,
    /// Whose clock runs; `None` when the clock is stopped.
    pub running: Option<Color>,
}

impl fmt::Display for ClockShown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let running = match self.running {
            Some(Color::White) => ", White's running",
            Some(Color::Black) => ", Black's running",
            None => ", stopped",
        };
        write!(f, "White {} Black {}{running}", hms(self.white_ms), hms(self.black_ms))
    }
}

fn hms(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A whole board: the piece on each square (`squares[0]` is a1, as
/// [`Square::index`] counts).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    squares: [Option<Piece>; 64],
}

/// Why a placement text was refused (the CLI is a binary on anyhow: its
/// few error types implement `std::error::Error` by hand).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementError(pub String);

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlacementError {}

impl Placement {
    /// An empty board.
    pub const fn empty() -> Placement {
        Placement { squares: [None; 64] }
    }

    /// The piece on `square`.
    pub fn get(&self, square: Square) -> Option<Piece> {
        self.squares[square.index()]
    }

    /// Puts `piece` on `square` (`None`: empties it).
    pub fn set(&mut self, square: Square, piece: Option<Piece>) {
        self.squares[square.index()] = piece;
    }

    /// Reads the placement field of a FEN (`rnbqkbnr/pppppppp/8/...`); the
    /// rest of a whole FEN after a space is ignored.
    ///
    /// # Errors
    /// [`PlacementError`] saying what is wrong.
    pub fn from_fen(text: &str) -> Result<Placement, PlacementError> {
        let field = text.split_whitespace().next().unwrap_or("");
        let ranks: Vec<&str> = field.split('/').collect();
        if ranks.len() != 8 {
            return Err(PlacementError(format!("{field:?} has {} ranks, not 8", ranks.len())));
        }
        let mut placement = Placement::empty();
        for (row, text) in ranks.iter().enumerate() {
            let rank = Rank::new(7 - row as u32);
            let mut file = 0u32;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d;
                } else if let Some(piece) = Piece::from_char(c) {
                    if file < 8 {
                        placement.set(Square::from_coords(File::new(file), rank), Some(piece));
                    }
                    file += 1;
                } else {
                    return Err(PlacementError(format!("{field:?}: {c:?} is not a piece letter or a count")));
                }
                if file > 8 {
                    break;
                }
            }
            if file != 8 {
                return Err(PlacementError(format!(
                    "{field:?}: rank {} has {file} squares, not 8",
                    rank.char()
                )));
            }
        }
        Ok(placement)
    }

    /// The placement field of a FEN.
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(72);
        for row in 0..8u32 {
            let rank = Rank::new(7 - row);
            let mut empty = 0;
            for file in 0..8u32 {
                match self.get(Square::from_coords(File::new(file), rank)) {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(piece.char());
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if row < 7 {
                out.push('/');
            }
        }
        out
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Placement({})", self.fen())
    }
}

/// The bridge's clock, the `device_time_ms` of everything it sends:
/// milliseconds since the Unix epoch when the bridge started, plus the
/// monotonic time since. It never goes back while the bridge runs (a wall
/// clock step does not move it), and a bridge started again later goes on
/// from a larger value, so the service's "time went back" check holds
/// across restarts of the bridge too.
#[derive(Clone, Copy, Debug)]
pub struct DeviceClock {
    base_ms: u64,
    started: Instant,
}

impl DeviceClock {
    /// A clock starting now.
    pub fn start() -> DeviceClock {
        let base_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        DeviceClock { base_ms, started: Instant::now() }
    }

    /// The device time now.
    pub fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.base_ms.saturating_add(elapsed)
    }
}

/// A reading with the device time at which the bridge received it; the
/// sequence number comes when it is first sent ([`Timed::report`]), so that
/// numbering starts after what the service already kept of this device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    pub reading: Reading,
    pub device_time_ms: u64,
}

impl Timed {
    /// The report the service is sent for this reading, numbered `seq`.
    pub fn report(&self, seq: u64) -> BoardReport {
        let t = self.device_time_ms;
        match &self.reading {
            Reading::Placement(p) => BoardReport::Observation(pb::BoardObservation {
                device_seq: seq,
                device_time_ms: t,
                kind: Some(pb::board_observation::Kind::Placement(p.fen())),
            }),
            Reading::SquareChanged { square, now } => BoardReport::Observation(pb::BoardObservation {
                device_seq: seq,
                device_time_ms: t,
                kind: Some(pb::board_observation::Kind::Changes(pb::BoardSquareChanges {
                    squares: vec![pb::BoardSquare {
                        square: square.to_string(),
                        piece: now.map(|p| p.char().to_string()).unwrap_or_default(),
                    }],
                })),
            }),
            Reading::Clock(c) => BoardReport::Clock(pb::BoardClockReport {
                device_seq: seq,
                device_time_ms: t,
                white_remaining_ms: c.white_ms,
                black_remaining_ms: c.black_ms,
                running: match c.running {
                    Some(Color::White) => pb::Color::White,
                    Some(Color::Black) => pb::Color::Black,
                    None => pb::Color::Unspecified,
                } as i32,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn a_placement_reads_and_writes_back() {
        let p = Placement::from_fen(START).unwrap();
        assert_eq!(p.fen(), START);
        assert_eq!(p.get("e1".parse().unwrap()), Piece::from_char('K'));
        assert_eq!(p.get("d8".parse().unwrap()), Piece::from_char('q'));
        assert_eq!(p.get("e4".parse().unwrap()), None);
        // A whole FEN: the placement field is taken.
        let after =
            Placement::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR");
    }

    #[test]
    fn malformed_placements_are_refused() {
        for bad in [
            "",
            "8/8/8/8/8/8/8",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN",
            "9/8/8/8/8/8/8/8",
            "rnbqkbnrr/8/8/8/8/8/8/8",
            "xnbqkbnr/8/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/8/8",
        ] {
            assert!(Placement::from_fen(bad).is_err(), "{bad:?} was read");
        }
    }

    #[test]
    fn readings_become_numbered_reports() {
        let lifted = Timed {
            reading: Reading::SquareChanged { square: "e2".parse().unwrap(), now: None },
            device_time_ms: 1_000,
        };
        let BoardReport::Observation(o) = lifted.report(7) else { panic!("an observation") };
        assert_eq!((o.device_seq, o.device_time_ms), (7, 1_000));
        let Some(pb::board_observation::Kind::Changes(c)) = o.kind else { panic!("changes") };
        assert_eq!(c.squares, vec![pb::BoardSquare { square: "e2".into(), piece: String::new() }]);

        let clock = Timed {
            reading: Reading::Clock(ClockShown {
                white_ms: 60_000,
                black_ms: 59_000,
                running: Some(Color::Black),
            }),
            device_time_ms: 2_000,
        };
        let BoardReport::Clock(c) = clock.report(8) else { panic!("a clock report") };
        assert_eq!(c.device_seq, 8);
        assert_eq!(c.running, pb::Color::Black as i32);
        assert_eq!(c.white_remaining_ms, 60_000);
    }

    #[test]
    fn the_device_clock_never_goes_back() {
        let clock = DeviceClock::start();
        let a = clock.now_ms();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = clock.now_ms();
        assert!(b >= a + 5, "{a} then {b}");
        // Milliseconds of the epoch: a later start gives larger values.
        assert!(a > 1_600_000_000_000);
    }
}
