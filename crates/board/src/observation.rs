//! What a board reports: observations, with the device's sequence number and
//! clock, and the errors that refuse one.

use arbiter_chess::{Bitboard, Board, Color, Piece, Role, Square};

/// A board's identity (its serial number, as the service maps it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId(pub u64);

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An instant on the device's clock, in milliseconds. Only differences
/// matter; the service never mixes it with its own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DeviceTime(pub u64);

impl DeviceTime {
    /// This instant plus `ms` milliseconds (saturating: a hostile clock value
    /// near `u64::MAX` must not overflow).
    #[must_use]
    pub const fn plus(self, ms: u64) -> DeviceTime {
        DeviceTime(self.0.saturating_add(ms))
    }

    /// Milliseconds from `earlier` to `self`, 0 if `earlier` is later.
    pub const fn since(self, earlier: DeviceTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// How long a piece must rest on its square before the move counts
/// (FIDE Online Chess Regulations 3.2.3: "a move is considered completed after
/// a specific time has passed since a piece has been collocated onto a
/// square"; the time is programmable, so it is a setting of the event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settle {
    ms: u64,
}

impl Settle {
    /// The longest settle time accepted: beyond it a move would wait longer
    /// than any increment makes sense of.
    pub const MAX_MS: u64 = 10_000;
    /// The default: the 300 ms OPENCHESSBOARD waits for a slid piece to rest.
    pub const DEFAULT: Settle = Settle { ms: 300 };

    /// A settle time of `ms` milliseconds.
    ///
    /// # Errors
    /// [`SettingsError::SettleTooLong`] above [`Settle::MAX_MS`].
    pub const fn from_ms(ms: u64) -> Result<Settle, SettingsError> {
        if ms > Self::MAX_MS { Err(SettingsError::SettleTooLong { ms }) } else { Ok(Settle { ms }) }
    }

    /// The settle time in milliseconds.
    pub const fn ms(self) -> u64 {
        self.ms
    }
}

impl Default for Settle {
    fn default() -> Settle {
        Settle::DEFAULT
    }
}

/// What the board's sensors can tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Sensing {
    /// Each square reports which piece stands on it (DGT, Millennium,
    /// Chessnut, Tornelo FEN feeds, LiveChess `board`).
    #[default]
    PieceIds,
    /// Each square reports only whether it is occupied (DGT Centaur): the
    /// promotion piece must come from another input
    /// ([`ObservationKind::PromotionChosen`]), and captures are told from a
    /// piece in the hand by the lift and place actions.
    Occupancy,
}

/// A setting refused when a reader is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("settle time {ms} ms is longer than {} ms", Settle::MAX_MS)]
    SettleTooLong { ms: u64 },
    #[error("catch-up depth {depth} is outside 1..={}", crate::MAX_CATCH_UP)]
    CatchUpDepth { depth: u8 },
}

/// A whole board as scanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Piece codes on every square.
    Pieces(Board),
    /// Occupied squares only.
    Occupancy(Bitboard),
}

impl Placement {
    /// The occupied squares.
    pub fn occupied(&self) -> Bitboard {
        match self {
            Placement::Pieces(b) => b.occupied(),
            Placement::Occupancy(o) => *o,
        }
    }
}

/// What one square now holds, as a change reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SquareState {
    Empty,
    /// Occupied by a piece the board cannot identify (occupancy boards).
    Occupied,
    Piece(Piece),
}

/// One report from a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    pub device: DeviceId,
    /// The device's sequence number: strictly increasing per device.
    pub device_seq: u64,
    /// When the device saw it, on the device's clock.
    pub at: DeviceTime,
    pub kind: ObservationKind,
}

/// The content of an [`Observation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObservationKind {
    /// A full scan (DGT board dump, Millennium `s`, Chessnut FEN
    /// notification, Tornelo/LiveChess FEN).
    Placement(Placement),
    /// One square changed (DGT field update).
    SquareChanged { square: Square, now: SquareState },
    /// A piece was lifted (Centaur action history; a DGT field update to
    /// empty means the same).
    Lifted { square: Square },
    /// A piece was put down; `piece` when the board knows it. On a board with
    /// piece ids and no code given, the piece is the one last lifted.
    Placed { square: Square, piece: Option<Piece> },
    /// The promotion piece chosen on another input (a clock button, the
    /// arbiter), for boards that cannot see it.
    PromotionChosen(Role),
}

/// Why a placement cannot be what stands on a real board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Impossible {
    #[error("{count} pieces on the board (at most 32, one more while a piece slides)")]
    TooManyPieces { count: u32 },
    #[error("{count} {} pieces on the board (at most 16)", color.name())]
    TooManyOfColor { color: Color, count: u32 },
    #[error("both kings are off the board")]
    NoKings,
}

/// An observation refused: the reader's state is unchanged (except that the
/// sequence number of a refused but well-ordered observation is used up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObservationError {
    #[error("observation from device {device}, but this game is read from device {expected}")]
    UnknownDevice { device: DeviceId, expected: DeviceId },
    #[error("observation {seq} repeats the last one")]
    Duplicate { seq: u64 },
    #[error("observation {seq} comes after observation {last}")]
    OutOfOrder { seq: u64, last: u64 },
    #[error("observation at device time {at} ms is earlier than the last one at {last} ms")]
    TimeWentBack { at: u64, last: u64 },
    #[error("the game is finished; the board is no longer read")]
    GameFinished,
    #[error("impossible placement: {0}")]
    Impossible(Impossible),
    #[error(
        "a piece code was sent to a reader of an occupancy board, or occupancy to a reader of piece codes"
    )]
    SensingMismatch,
    #[error("a piece was placed on {square} without a code, and no piece is in the hand")]
    UnknownPiece { square: Square },
    #[error("a promotion piece must be a knight, bishop, rook or queen, not a {}", role.name())]
    NotAPromotionPiece { role: Role },
}
