//! E-boards (ConnectBoard, issue 15): a board, or a bridge next to it,
//! streams what its sensors and its clock report; the service keeps each
//! report durably, reads the board with [`arbiter_board::BoardReader`],
//! records the acts it infers in the game like any act, and tells the board
//! what it decided and what it believes is on it (FIDE Online Chess
//! Regulations 3.2.3 and 3.2.6).
//!
//! - this module: what a board reports, as domain values ([`Hello`],
//!   [`Report`]), the placement notation shared by the wire and the stored
//!   records, and [`Boards`], the boards connected to this process (one per
//!   game; the arbiter sees each board's state in `Game.board`);
//! - [`session`]: one stream, from its hello to its end.
//!
//! A board never decides anything the Laws decide: an inferred move is sent
//! to the game's table as the act `MakeMove` records (submitted, online),
//! an illegal placement as the illegal move made, a clock press as
//! `PressClock`, and the rulings are the Laws'. Touch evidence is reported
//! to the board and not recorded (its meaning under the regulations is the
//! laws crate's to decide, and it does not decide it yet).

pub mod session;

use std::collections::HashMap;
use std::sync::Mutex;

use arbiter_board::{DeviceId, DeviceTime, ObservationKind, Placement, Settings, SquareState};
use arbiter_chess::{Bitboard, Board, Color, Piece, Role, Square};
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;

/// The first message of a stream, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub game_id: String,
    pub device: DeviceId,
    pub settings: Settings,
    pub label: String,
}

/// What the board saw, as sent (a set of changes is turned into one whole
/// placement against the board as last seen before it is kept: see
/// [`session`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    Kind(ObservationKind),
    Changes(Vec<(Square, SquareState)>),
}

/// A reading of the board's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockReport {
    pub white_ms: i64,
    pub black_ms: i64,
    /// Whose clock runs (`None`: stopped).
    pub running: Option<Color>,
}

/// One numbered report of a board, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    pub device_seq: u64,
    pub at: DeviceTime,
    pub what: Sent,
}

/// The content of an [`Incoming`] report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    Squares(Seen),
    Clock(ClockReport),
}

/// A report as kept in `board_observations` (the record is
/// `event_log::board`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    Squares(ObservationKind),
    Clock(ClockReport),
}

/// The placement field of a FEN for what a board shows; an occupancy
/// board's occupied squares are `?`.
pub fn placement_text(placement: &Placement) -> String {
    match placement {
        Placement::Pieces(board) => board.board_fen(),
        Placement::Occupancy(occupied) => {
            let mut text = String::new();
            for rank in (0..8u32).rev() {
                let mut empty = 0;
                for file in 0..8u32 {
                    if occupied.contains(Square::new(rank * 8 + file)) {
                        if empty > 0 {
                            text.push(char::from_digit(empty, 10).unwrap_or('8'));
                            empty = 0;
                        }
                        text.push('?');
                    } else {
                        empty += 1;
                    }
                }
                if empty > 0 {
                    text.push(char::from_digit(empty, 10).unwrap_or('8'));
                }
                if rank > 0 {
                    text.push('/');
                }
            }
            text
        }
    }
}

/// Reads the placement field of a FEN (`?` for an occupied square whose
/// piece is unknown). With `occupancy`, any piece letter or `?` means
/// occupied; without it, `?` is refused.
///
/// # Errors
/// A description of what is wrong, for a field violation.
pub fn parse_placement(text: &str, occupancy: bool) -> Result<Placement, String> {
    let ranks: Vec<&str> = text.trim().split('/').collect();
    if ranks.len() != 8 {
        return Err(format!("a placement has 8 ranks separated by `/`, not {}", ranks.len()));
    }
    let mut board = Board::empty();
    let mut occupied = Bitboard::EMPTY;
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u32;
        let mut file = 0u32;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d;
            } else {
                if file >= 8 {
                    return Err(format!("rank {} holds more than 8 squares", rank + 1));
                }
                let square = Square::new(rank * 8 + file);
                match (c, Piece::from_char(c)) {
                    ('?', _) if occupancy => occupied.add(square),
                    ('?', _) => {
                        return Err(
                            "`?` (an occupied square of unknown piece) is for occupancy boards".into()
                        );
                    }
                    (_, Some(piece)) => {
                        occupied.add(square);
                        board.set(square, piece);
                    }
                    (_, None) => return Err(format!("{c:?} is not a FEN piece letter, a digit 1-8 or `?`")),
                }
                file += 1;
            }
            if file > 8 {
                return Err(format!("rank {} holds more than 8 squares", rank + 1));
            }
        }
        if file != 8 {
            return Err(format!("rank {} holds {file} squares, not 8", rank + 1));
        }
    }
    Ok(if occupancy { Placement::Occupancy(occupied) } else { Placement::Pieces(board) })
}

/// A square's content as written on the wire and in the stored records:
/// `` (empty), a FEN piece letter, or `?` (occupied, piece unknown).
pub fn square_state_text(state: SquareState) -> String {
    match state {
        SquareState::Empty => String::new(),
        SquareState::Occupied => "?".to_owned(),
        SquareState::Piece(p) => p.char().to_string(),
    }
}

/// Reads a square's content (see [`square_state_text`]).
///
/// # Errors
/// A description of what is wrong.
pub fn parse_square_state(text: &str) -> Result<SquareState, String> {
    let mut chars = text.trim().chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(SquareState::Empty),
        (Some('?'), None) => Ok(SquareState::Occupied),
        (Some(c), None) => Piece::from_char(c)
            .map(SquareState::Piece)
            .ok_or_else(|| format!("{c:?} is not a FEN piece letter or `?`")),
        _ => Err(format!("{} is not empty, one FEN piece letter or `?`", crate::error::quote(text))),
    }
}

/// A promotion piece written as a FEN letter of either case.
///
/// # Errors
/// A description of what is wrong.
pub fn parse_promotion(text: &str) -> Result<Role, String> {
    let mut chars = text.trim().chars();
    match (chars.next().map(|c| c.to_ascii_lowercase()), chars.next()) {
        (Some(c @ ('q' | 'r' | 'b' | 'n')), None) => {
            Role::from_char(c).ok_or_else(|| format!("{c:?} is not a piece"))
        }
        _ => Err(format!(
            "{} is not a promotion piece: `q`, `r`, `b` or `n` (either case)",
            crate::error::quote(text)
        )),
    }
}

/// A board's state as the arbiter sees it (`Game.board`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardState {
    pub device: DeviceId,
    pub label: String,
    pub connected: bool,
    pub in_sync: bool,
    pub believed: String,
    pub last_device_seq: u64,
}

/// The e-boards connected to this process, one per game. A game takes one
/// board at a time: another device is refused while the first is
/// connected; the same device connecting again takes over from its old
/// stream (a bridge that lost its connection before the service noticed).
/// A board that left stays listed, not connected, so the arbiter still sees
/// where it stood.
#[derive(Debug, Default)]
pub struct Boards {
    games: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug)]
struct Entry {
    state: BoardState,
    /// The stream reading it now: its number and what ends it.
    stream: Option<(u64, CancellationToken)>,
}

/// A claim on a game's board, held by one stream.
#[derive(Debug)]
pub struct Claim {
    pub stream: u64,
    /// Cancelled when the same device connects again.
    pub superseded: CancellationToken,
}

impl Boards {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // The map holds plain values, each replaced whole: a panic elsewhere
        // cannot leave one half-written.
        self.games.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Claims the board of `game` for `device`.
    ///
    /// # Errors
    /// [`ApiError::BoardConnected`] while another device is connected.
    pub fn claim(
        &self,
        game: &str,
        device: DeviceId,
        label: &str,
        last_device_seq: u64,
    ) -> Result<Claim, ApiError> {
        static STREAMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut games = self.lock();
        if let Some(entry) = games.get(game)
            && let Some((_, token)) = &entry.stream
        {
            if entry.state.device != device {
                return Err(ApiError::BoardConnected(format!(
                    "games/{game} is read from board {} ({}) now; one board per game: disconnect it first",
                    entry.state.device,
                    crate::error::quote(&entry.state.label)
                )));
            }
            token.cancel();
        }
        let stream = STREAMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let superseded = CancellationToken::new();
        let previous = games.remove(game);
        let state = BoardState {
            device,
            label: label.to_owned(),
            connected: true,
            in_sync: previous.as_ref().filter(|e| e.state.device == device).is_none_or(|e| e.state.in_sync),
            believed: previous.map(|e| e.state.believed).unwrap_or_default(),
            last_device_seq,
        };
        games.insert(game.to_owned(), Entry { state, stream: Some((stream, superseded.clone())) });
        Ok(Claim { stream, superseded })
    }

    /// Updates the state of the board `stream` reads (nothing if another
    /// stream took over).
    pub fn update(&self, game: &str, stream: u64, change: impl FnOnce(&mut BoardState)) {
        if let Some(entry) = self.lock().get_mut(game)
            && entry.stream.as_ref().is_some_and(|(s, _)| *s == stream)
        {
            change(&mut entry.state);
        }
    }

    /// The stream ended: the board is listed as not connected.
    pub fn release(&self, game: &str, stream: u64) {
        if let Some(entry) = self.lock().get_mut(game)
            && entry.stream.as_ref().is_some_and(|(s, _)| *s == stream)
        {
            entry.stream = None;
            entry.state.connected = false;
        }
    }

    /// The board of `game`, if one connected since the service started.
    pub fn state(&self, game: &str) -> Option<BoardState> {
        self.lock().get(game).map(|e| e.state.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_read_and_write_back() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let p = parse_placement(start, false).unwrap();
        assert_eq!(placement_text(&p), start);
        let occ = parse_placement(start, true).unwrap();
        assert_eq!(placement_text(&occ), "????????/????????/8/8/8/8/????????/????????");
        assert_eq!(parse_placement("????????/????????/8/8/8/8/????????/????????", true).unwrap(), occ);
    }

    #[test]
    fn malformed_placements_are_refused_with_a_reason() {
        for (text, words) in [
            ("8/8/8/8/8/8/8", "8 ranks"),
            ("9/8/8/8/8/8/8/8", "not a FEN piece letter"),
            ("ppppppppp/8/8/8/8/8/8/8", "more than 8"),
            ("7/8/8/8/8/8/8/8", "7 squares"),
            ("?7/8/8/8/8/8/8/8", "occupancy boards"),
            ("x7/8/8/8/8/8/8/8", "not a FEN piece letter"),
        ] {
            let e = parse_placement(text, false).unwrap_err();
            assert!(e.contains(words), "{text}: {e}");
        }
    }

    #[test]
    fn square_states_and_promotions() {
        assert_eq!(parse_square_state("").unwrap(), SquareState::Empty);
        assert_eq!(parse_square_state("?").unwrap(), SquareState::Occupied);
        assert_eq!(
            parse_square_state("n").unwrap(),
            SquareState::Piece(Piece { color: Color::Black, role: Role::Knight })
        );
        assert!(parse_square_state("nn").is_err());
        assert!(parse_square_state("x").is_err());
        assert_eq!(parse_promotion("Q").unwrap(), Role::Queen);
        assert_eq!(parse_promotion("n").unwrap(), Role::Knight);
        assert!(parse_promotion("k").is_err());
        assert!(parse_promotion("").is_err());
    }

    #[test]
    fn one_board_per_game_and_the_same_device_takes_over() {
        let boards = Boards::default();
        let first = boards.claim("g", DeviceId(1), "one", 0).unwrap();
        let e = boards.claim("g", DeviceId(2), "two", 0).unwrap_err();
        assert!(matches!(e, ApiError::BoardConnected(ref m) if m.contains("board 1")), "{e}");
        let again = boards.claim("g", DeviceId(1), "one", 5).unwrap();
        assert!(first.superseded.is_cancelled(), "the old stream of the same device is ended");
        // The old stream's end does not release the new one's claim.
        boards.release("g", first.stream);
        assert!(boards.state("g").unwrap().connected);
        boards.release("g", again.stream);
        let state = boards.state("g").unwrap();
        assert!(!state.connected);
        assert_eq!(state.last_device_seq, 5);
        // Once it left, another board may read the game.
        boards.claim("g", DeviceId(2), "two", 0).unwrap();
    }
}
