//! The reader: a deterministic state machine from board observations to the
//! acts the Laws judge.
//!
//! Two things are kept apart (OCR 3.2.6 asks the board to show what it
//! believes): the *game position* the reader has inferred, with its history
//! for take-backs, and the *believed placement*, the last placement that
//! rested for the settle time, whatever it was. After an illegal move or an
//! unknown placement they differ, and [`BoardReader::corrections`] says how
//! to put the board right.
//!
//! How a placement is read, in order (the DGT Centaur reader's algorithm and
//! picochess's successor matching, field-anchors-2 §1.2):
//!
//! 1. On every placement, the sensed board is compared with the current
//!    position (nothing happened), each legal successor (a move; computed
//!    once per position), and each earlier position (a take-back). A match
//!    starts the settle time; a lift of the moving side's piece stops it.
//!    Lifts alone never start it: a piece in the hand, a capture half done or
//!    a piece sliding over two squares are waited through. A placement of an
//!    opponent's piece (known by its code, or on occupancy boards by the lift
//!    before it) while a move settles with its squares untouched does not
//!    replace it: the moved piece goes on resting, and the reply is read
//!    once the move is ruled (a settle time longer than a quick reply).
//! 2. When the piece has rested for the settle time ([`BoardReader::tick`],
//!    or the next observation), the match is ruled; a take-back waits twice
//!    the settle time (in a repetition, a piece dropped on a wrong square
//!    with its lift lost can show an earlier position, and the next full
//!    scan puts that right first). A placement that matched
//!    nothing waits twice the settle time (the next full scan of a board
//!    that lost a field update usually puts it right first) and is then
//!    searched deeper: a rook move followed by the king is
//!    revised into castling, several missed moves are caught up (the
//!    shortest sequence of at most [`Settings::catch_up`] plies, only while
//!    the board is in step; two sequences of that length leading to the same
//!    placement are ambiguous and reported as unknown), a single piece of the side to move moved
//!    illegally is reported as an illegal move, and anything else as an
//!    unknown placement, reported once until the board changes.
//! 3. A king moved two squares beside its castling rook and a pawn placed on
//!    the last rank are the first halves of castling and promotion: they are
//!    waited through, not ruled (FIDE 3.8.2, 4.6.3 and 3.7.5.1: those moves
//!    are complete only when the rook or the new piece is placed).
//! 4. A move ruled from a placement a lost field update made wrong is
//!    revised into the move made ([`InferredMove::revises`]) when three
//!    things show it: a piece put down from nowhere (nothing lifted) within
//!    twice the settle time of the ruling while the moved piece still shows,
//!    a full scan showing empty a square the ruled placement had occupied
//!    (the lift that was lost), and the board showing another legal move of
//!    the same piece from the position before (a piece dropped on a square
//!    next to its own on the way, the lift from there lost; a rook put
//!    beside its king first, its lift lost, read with the king's lift as a
//!    king move). A lift of the moved piece that the board did report means
//!    it rested where the move put it (Law 4.7), and nothing is revised.
//!
//! On occupancy boards all captures by one piece leave the same squares
//! occupied: the square placed on decides, and for a full scan that placed
//! nothing itself (the capturing piece's lift was the update lost), every
//! square placed on since the last ruling, so that a knocked piece put back
//! is not read as the capture. Two captures filling them are reported as an
//! unknown placement (never as an illegal move: legal moves explain it).

use arbiter_chess::{Bitboard, Board, Color, Move, MoveKind, Piece, Position, Role, Square};

use crate::corrections::{Correction, corrections};
use crate::observation::{
    DeviceId, DeviceTime, Impossible, Observation, ObservationError, ObservationKind, Placement, Sensing,
    SettingsError, Settle, SquareState,
};

/// The most plies a catch-up searches; the search grows as the branching
/// factor to this power, and more than four missed plies is a desync for the
/// arbiter, not a guess.
pub const MAX_CATCH_UP: u8 = 4;

/// On an occupancy board, the longest a sliding piece is seen on two
/// squares: one scan.
const SLIDE_MS: u64 = 100;

/// At most this many pieces are remembered in the hand (a hostile stream of
/// lifts must not grow memory).
const MAX_HAND: usize = 8;

/// How a board is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    pub settle: Settle,
    pub sensing: Sensing,
    catch_up: u8,
}

impl Settings {
    /// Settings with the default catch-up depth of three plies.
    pub const fn new(settle: Settle, sensing: Sensing) -> Settings {
        Settings { settle, sensing, catch_up: 3 }
    }

    /// The same settings with another catch-up depth.
    ///
    /// # Errors
    /// [`SettingsError::CatchUpDepth`] outside `1..=MAX_CATCH_UP` (1 turns
    /// catch-up off).
    pub const fn with_catch_up(self, depth: u8) -> Result<Settings, SettingsError> {
        if depth == 0 || depth > MAX_CATCH_UP {
            return Err(SettingsError::CatchUpDepth { depth });
        }
        Ok(Settings { catch_up: depth, ..self })
    }

    /// The most plies one placement may account for.
    pub const fn catch_up(&self) -> u8 {
        self.catch_up
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::new(Settle::DEFAULT, Sensing::PieceIds)
    }
}

/// What a lift was evidence of (FIDE Article 4). The reader only reports
/// it; the regulations decide what it means (see the crate documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TouchKind {
    /// The first piece of the side to move lifted in this position (4.3a:
    /// a touched own piece must be moved).
    FirstLift,
    /// A piece lifted and put back on its square (a touch that did not
    /// become a move; j'adoube cannot be sensed, 4.2.1 needs it announced
    /// first).
    LiftAndReplace,
    /// A piece of the side not to move lifted (4.3b: a touched opponent's
    /// piece must be captured; a capture lifts it too).
    OpponentPiece,
}

/// A touch seen by the sensors, with its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TouchEvidence {
    pub square: Square,
    pub piece: Piece,
    pub kind: TouchKind,
    /// When the piece was lifted.
    pub at: DeviceTime,
    /// When it was put back ([`TouchKind::LiftAndReplace`] only).
    pub released_at: Option<DeviceTime>,
    /// The ply of the position the touch happened in.
    pub ply: usize,
}

/// A move the board shows, ruled after its settle time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InferredMove {
    pub mv: Move,
    /// The ply the move starts from (0 for the first move of the game).
    pub ply: usize,
    /// The placement that completed it.
    pub placed_at: DeviceTime,
    /// When it had rested for the settle time: the moment the move counts.
    pub settled_at: DeviceTime,
    /// A move already inferred for this ply that this one replaces: the rook
    /// move of a castling whose king followed late, or a move read from a
    /// placement a lost field update made wrong (see the module
    /// documentation, point 4).
    pub revises: Option<Move>,
    /// One of several moves found at once after missed scans.
    pub caught_up: bool,
}

/// A piece of the side to move placed where no legal move takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IllegalAttempt {
    pub from: Square,
    pub to: Square,
    /// The piece moved, when the board identifies it.
    pub piece: Option<Piece>,
    /// The ply of the position it was attempted in.
    pub ply: usize,
    pub placement: Placement,
    pub settled_at: DeviceTime,
}

/// What the reader makes of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inference {
    Move(InferredMove),
    /// The board went back to the position after ply `to_ply`.
    TakeBack {
        to_ply: usize,
        settled_at: DeviceTime,
    },
    Touch(TouchEvidence),
    IllegalMove(IllegalAttempt),
    /// A placement that is no legal successor, earlier position, catch-up
    /// or single illegal move: the board and the game are out of step until
    /// it shows a known placement again.
    Unknown {
        placement: Placement,
        settled_at: DeviceTime,
    },
    /// A pawn rests on the last rank and the new piece is not known yet
    /// (an occupancy board waiting for [`ObservationKind::PromotionChosen`]).
    PromotionPending {
        from: Square,
        to: Square,
        settled_at: DeviceTime,
    },
    /// After an illegal move or an unknown placement, the board shows the
    /// game position again.
    Restored {
        settled_at: DeviceTime,
    },
}

/// A match of the sensed board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Candidate {
    /// The current position.
    Same,
    Move(Move),
    TakeBack(usize),
    /// A promotion whose piece is not known yet.
    Promotion {
        from: Square,
        to: Square,
    },
    /// Castling, replacing the rook move last ruled.
    Revise(Move),
    /// Half a castling, a promotion or an en passant capture: wait.
    Wait,
    /// Nothing cheap: searched when settled.
    Unresolved,
}

#[derive(Clone, Copy, Debug)]
struct Settling {
    candidate: Candidate,
    since: DeviceTime,
    snapshot: Sensed,
    /// The square of the placement that started it.
    placed: Option<Square>,
    /// Stopped by a lift of a piece of the moving side; the same match
    /// again resumes it with its first placement time.
    suspended: bool,
    /// The settle time has passed and a report was made (promotion
    /// pending): do not report again.
    reported: bool,
    /// The opponent's reply, begun while this move was still settling (its
    /// squares untouched): read once this move is ruled.
    then: Option<FollowUp>,
}

/// The latest placement of an opponent's piece while a move settles.
#[derive(Clone, Copy, Debug)]
struct FollowUp {
    at: DeviceTime,
    placed: Option<Square>,
    deciding: Bitboard,
}

/// What the sensors show: piece codes, or occupancy only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sensed {
    /// Piece boards only.
    board: Board,
    occupied: Bitboard,
}

/// A piece put down within twice the settle time of the last ruling (the
/// time an unexplained placement is given for the next full scan to put a
/// lost update right), nothing lifted since, while the board still shows the
/// moved piece where the move put it: a piece came from nowhere, so a lift
/// may have gone unreported while the hand was still at work. If a full
/// scan then shows empty a square the ruled placement had occupied, a lift
/// was lost, and the placement the move was ruled from was not what stood
/// on the board (FIDE OCR 3.2.3 counts a move from a rest of the settle
/// time, which the piece may not have had: a piece dropped on a square next
/// to its own and moved on at once, with the lift from there lost; a rook
/// put beside its king, read with the king's lift as a king move, with the
/// rook's lift lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LostLift {
    /// Where the last move put its piece (a lift reported from there clears
    /// the suspicion: the piece did rest where the move put it).
    left: Square,
    /// A full scan has shown a lift lost.
    confirmed: bool,
}

#[derive(Clone, Copy, Debug)]
struct InHand {
    square: Square,
    piece: Option<Piece>,
    at: DeviceTime,
}

/// Reads one board for one game. See the module documentation.
#[derive(Clone, Debug)]
pub struct BoardReader {
    device: DeviceId,
    settings: Settings,
    /// `history[ply]` is the position before move `ply`; the last one is the
    /// game position.
    history: Vec<Position>,
    moves: Vec<Move>,
    /// The legal successors of the game position and their placements.
    successors: Vec<(Move, Board)>,
    sensed: Sensed,
    believed: Sensed,
    settling: Option<Settling>,
    hand: Vec<InHand>,
    last: Option<(u64, DeviceTime)>,
    finished: bool,
    out_of_sync: bool,
    /// The last placement reported as unknown or illegal.
    reported: Option<Sensed>,
    /// The ply whose first lift was reported.
    first_lift_ply: Option<usize>,
    promotion_choice: Option<Role>,
    /// The square of the last placement action.
    last_placed: Option<Square>,
    /// When the last move was ruled (none after a take-back).
    ruled_at: Option<DeviceTime>,
    /// The squares placed on since the last ruling.
    placed_since_ruling: Bitboard,
    /// The piece of the placement being matched, when known (a piece code,
    /// or on occupancy boards the piece last lifted): a reply by the
    /// opponent does not replace a move still settling.
    placed_piece: Option<Piece>,
    lost_lift: Option<LostLift>,
}

impl BoardReader {
    /// A reader of `device` for a game at `position`, with the board assumed
    /// to show that position until it reports otherwise.
    pub fn new(device: DeviceId, position: Position, settings: Settings) -> BoardReader {
        let sensed = sensed_of(position.board(), settings.sensing);
        let mut r = BoardReader {
            device,
            settings,
            history: vec![position],
            moves: Vec::new(),
            successors: Vec::new(),
            sensed,
            believed: sensed,
            settling: None,
            hand: Vec::new(),
            last: None,
            finished: false,
            out_of_sync: false,
            reported: None,
            first_lift_ply: None,
            promotion_choice: None,
            last_placed: None,
            ruled_at: None,
            placed_since_ruling: Bitboard::EMPTY,
            placed_piece: None,
            lost_lift: None,
        };
        r.compute_successors();
        r
    }

    /// The game position as inferred.
    pub fn position(&self) -> &Position {
        self.history.last().expect("history is never empty")
    }

    /// Plies inferred so far (the index of the next move).
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The moves inferred, from the starting position.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// What the board believes: the last placement that rested for the
    /// settle time (OCR 3.2.6).
    pub fn believed(&self) -> Placement {
        self.placement_of(&self.believed)
    }

    /// What the sensors show right now.
    pub fn sensed(&self) -> Placement {
        self.placement_of(&self.sensed)
    }

    /// `true` while the board shows a placement the game does not explain.
    pub fn is_out_of_sync(&self) -> bool {
        self.out_of_sync
    }

    /// What to do on the board to show the game position.
    pub fn corrections(&self) -> Vec<Correction> {
        corrections(&self.sensed(), self.position().board())
    }

    /// When [`BoardReader::tick`] should next be called: the end of the
    /// current settle time, if a placement is waiting for it.
    pub fn deadline(&self) -> Option<DeviceTime> {
        match self.settling {
            Some(s) if !s.suspended && !s.reported && s.candidate != Candidate::Wait => {
                Some(s.since.plus(self.wait_ms(s.candidate)))
            }
            _ => None,
        }
    }

    /// How long a match must rest before it is ruled: the settle time; and
    /// twice that for a placement nothing cheap explains (a catch-up, an
    /// illegal move, an unknown placement) and for a take-back, so that the
    /// next full scan of a board that lost a field update can put it right
    /// before an illegal move is reported that no hand made, or moves are
    /// taken back that nobody took back (in a repetition, a piece dropped on
    /// a wrong square with its lift lost can show an earlier position).
    fn wait_ms(&self, candidate: Candidate) -> u64 {
        let settle = self.settings.settle.ms();
        match candidate {
            Candidate::Unresolved | Candidate::TakeBack(_) => settle.saturating_mul(2),
            _ => settle,
        }
    }

    /// The game is over: later observations are refused.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// The Laws decided the position differently from the board (a move
    /// refused, a position set by the arbiter, a move entered elsewhere):
    /// the reader follows, and take-backs reach back to `position` only.
    pub fn set_position(&mut self, position: Position) {
        self.history.clear();
        self.history.push(position);
        self.moves.clear();
        self.settling = None;
        self.reported = None;
        self.first_lift_ply = None;
        self.ruled_at = None;
        self.placed_since_ruling = Bitboard::EMPTY;
        self.lost_lift = None;
        self.compute_successors();
        self.out_of_sync = !self.matches(&self.sensed, position.board());
        if !self.out_of_sync {
            self.believed = self.sensed;
        }
    }

    /// The settle time passes: rules a placement that has rested long
    /// enough at `now` (device time).
    pub fn tick(&mut self, now: DeviceTime) -> Vec<Inference> {
        let mut out = Vec::new();
        self.settle_due(now, &mut out);
        out
    }

    /// Takes one observation; first rules whatever had settled before it.
    ///
    /// # Errors
    /// An [`ObservationError`] for an observation from another device, out
    /// of order, duplicated, for a finished game, or physically impossible;
    /// the reader is then unchanged (except that a refused observation in
    /// order uses up its sequence number).
    pub fn observe(&mut self, obs: &Observation) -> Result<Vec<Inference>, ObservationError> {
        if obs.device != self.device {
            return Err(ObservationError::UnknownDevice { device: obs.device, expected: self.device });
        }
        if self.finished {
            return Err(ObservationError::GameFinished);
        }
        if let Some((seq, at)) = self.last {
            if obs.device_seq == seq {
                return Err(ObservationError::Duplicate { seq });
            }
            if obs.device_seq < seq {
                return Err(ObservationError::OutOfOrder { seq: obs.device_seq, last: seq });
            }
            if obs.at < at {
                return Err(ObservationError::TimeWentBack { at: obs.at.0, last: at.0 });
            }
        }
        self.last = Some((obs.device_seq, obs.at));
        // Refused before anything settles: a refused observation must not
        // swallow the rulings its time would have brought (they come with
        // the next call).
        self.validate(obs.kind)?;
        let mut out = Vec::new();
        self.settle_due(obs.at, &mut out);
        // Validated against the state before the rulings; the one thing a
        // ruling changes that a check reads is the hand (a placement without
        // a code whose lifted piece belonged to the ruled move): such an
        // observation is then dropped, and the rulings still returned.
        let _ = self.apply(obs.at, obs.kind, &mut out);
        // A promotion choice may complete a promotion that had already
        // rested long enough.
        self.settle_due(obs.at, &mut out);
        Ok(out)
    }

    /// Every check [`BoardReader::apply`] makes, without changing anything.
    fn validate(&self, kind: ObservationKind) -> Result<(), ObservationError> {
        let piece_ids = self.settings.sensing == Sensing::PieceIds;
        match kind {
            ObservationKind::Placement(p) => match (p, piece_ids) {
                (Placement::Pieces(b), true) => {
                    check_scan(&Sensed { board: b, occupied: b.occupied() }, true)
                }
                (Placement::Occupancy(o), false) => {
                    check_scan(&Sensed { board: Board::empty(), occupied: o }, false)
                }
                _ => Err(ObservationError::SensingMismatch),
            },
            ObservationKind::SquareChanged { square, now: SquareState::Empty }
            | ObservationKind::Lifted { square } => {
                let mut b = self.sensed.board;
                b.remove(square);
                if piece_ids && self.sensed.occupied.contains(square) && b.kings().is_empty() {
                    return Err(ObservationError::Impossible(Impossible::NoKings));
                }
                Ok(())
            }
            ObservationKind::SquareChanged { now: SquareState::Occupied, .. } if piece_ids => {
                Err(ObservationError::SensingMismatch)
            }
            ObservationKind::SquareChanged { square, now } => {
                let piece = if let SquareState::Piece(p) = now { Some(p) } else { None };
                self.check_place(square, if piece_ids { piece } else { None })
            }
            ObservationKind::Placed { square, piece } => {
                self.check_place(square, if piece_ids { piece } else { None })
            }
            ObservationKind::PromotionChosen(role) => {
                if matches!(role, Role::Pawn | Role::King) {
                    return Err(ObservationError::NotAPromotionPiece { role });
                }
                Ok(())
            }
        }
    }

    fn check_place(&self, square: Square, piece: Option<Piece>) -> Result<(), ObservationError> {
        let piece_ids = self.settings.sensing == Sensing::PieceIds;
        let piece = match piece {
            Some(p) => Some(p),
            None if piece_ids => match self.hand.last() {
                Some(h) if h.piece.is_some() => h.piece,
                _ => return Err(ObservationError::UnknownPiece { square }),
            },
            None => None,
        };
        let mut new = self.sensed;
        new.occupied.add(square);
        if let Some(p) = piece
            && piece_ids
        {
            new.board.set(square, p);
        }
        let count = new.occupied.count();
        // One more than a full set: a piece sliding over two squares shows
        // on both for a scan.
        if count > 33 {
            return Err(ObservationError::Impossible(Impossible::TooManyPieces { count }));
        }
        if piece_ids {
            for color in Color::ALL {
                let n = new.board.by_color(color).count();
                if n > 17 {
                    return Err(ObservationError::Impossible(Impossible::TooManyOfColor { color, count: n }));
                }
            }
        }
        Ok(())
    }

    fn apply(
        &mut self,
        at: DeviceTime,
        kind: ObservationKind,
        out: &mut Vec<Inference>,
    ) -> Result<(), ObservationError> {
        let piece_ids = self.settings.sensing == Sensing::PieceIds;
        match kind {
            ObservationKind::Placement(p) => {
                let new = match (p, piece_ids) {
                    (Placement::Pieces(b), true) => Sensed { board: b, occupied: b.occupied() },
                    (Placement::Occupancy(o), false) => Sensed { board: Board::empty(), occupied: o },
                    _ => return Err(ObservationError::SensingMismatch),
                };
                check_scan(&new, piece_ids)?;
                self.apply_scan(at, new, out);
            }
            ObservationKind::SquareChanged { square, now } => match now {
                SquareState::Empty => self.lift(at, square, out)?,
                SquareState::Occupied if !piece_ids => self.place(at, square, None, out)?,
                SquareState::Piece(p) if piece_ids => self.place(at, square, Some(p), out)?,
                // An occupancy board may still name pieces: take the
                // occupancy and ignore the code.
                SquareState::Piece(_) => self.place(at, square, None, out)?,
                SquareState::Occupied => return Err(ObservationError::SensingMismatch),
            },
            ObservationKind::Lifted { square } => self.lift(at, square, out)?,
            ObservationKind::Placed { square, piece } => {
                let piece = if piece_ids { piece } else { None };
                self.place(at, square, piece, out)?;
            }
            ObservationKind::PromotionChosen(role) => {
                if matches!(role, Role::Pawn | Role::King) {
                    return Err(ObservationError::NotAPromotionPiece { role });
                }
                self.promotion_choice = Some(role);
                if let Some(s) = self.settling
                    && let Candidate::Promotion { .. } = s.candidate
                {
                    let candidate = self.classify(&s.snapshot, squares(s.placed));
                    self.settling = Some(Settling { candidate, reported: false, ..s });
                }
            }
        }
        Ok(())
    }

    /// A square emptied.
    fn lift(
        &mut self,
        at: DeviceTime,
        square: Square,
        out: &mut Vec<Inference>,
    ) -> Result<(), ObservationError> {
        if !self.sensed.occupied.contains(square) {
            // Already empty (a repeated field update): nothing changes.
            return Ok(());
        }
        let mut new = self.sensed;
        new.occupied.remove(square);
        new.board.remove(square);
        if self.settings.sensing == Sensing::PieceIds && new.board.kings().is_empty() {
            return Err(ObservationError::Impossible(Impossible::NoKings));
        }
        let piece = self.piece_lifted(square);
        self.sensed = new;
        if self.lost_lift.is_some_and(|l| l.left == square) {
            // The board reported this lift: it was not lost, and the piece
            // did rest where the move put it.
            self.lost_lift = None;
        }
        self.on_lift(at, square, piece, out, true);
        Ok(())
    }

    /// A square now holds a piece (`None`: unknown, on occupancy boards).
    fn place(
        &mut self,
        at: DeviceTime,
        square: Square,
        piece: Option<Piece>,
        out: &mut Vec<Inference>,
    ) -> Result<(), ObservationError> {
        let piece_ids = self.settings.sensing == Sensing::PieceIds;
        let piece = match piece {
            Some(p) => Some(p),
            None if piece_ids => match self.hand.last() {
                Some(h) if h.piece.is_some() => h.piece,
                _ => return Err(ObservationError::UnknownPiece { square }),
            },
            None => None,
        };
        self.placed_piece = None;
        if piece_ids && self.sensed.board.piece_at(square) == piece {
            return Ok(());
        }
        if !piece_ids && self.sensed.occupied.contains(square) {
            // A piece put down on a square the board thinks occupied: the
            // lift of what stood there was missed (a capture). Still a
            // placement, which starts the settle time.
            self.hand.retain(|h| h.square != square);
            self.last_placed = Some(square);
            self.placed_since_ruling.add(square);
            self.on_change(at, Some(square), Bitboard::from_square(square));
            return Ok(());
        }
        let lost_lift = self.lost_lift_suspected(at, square, piece);
        let mut new = self.sensed;
        new.occupied.add(square);
        if let Some(p) = piece
            && piece_ids
        {
            new.board.set(square, p);
        }
        self.check_place(square, piece)?;
        // A piece displaced by this one (a replacement without a lift) goes
        // through the lift logic first.
        if piece_ids && let Some(old) = self.sensed.board.piece_at(square) {
            let mut lifted = self.sensed;
            lifted.board.remove(square);
            lifted.occupied.remove(square);
            self.sensed = lifted;
            self.on_lift(at, square, Some(old), out, true);
        }
        // On an occupancy board a capture looks like a put-back on the
        // captured piece's square; a piece of the other colour in the hand
        // is the one that captured.
        if !piece_ids
            && let Some(v) = self.hand.iter().rposition(|h| h.square == square)
            && let Some(victim) = self.hand[v].piece
            && let Some(c) = self.hand.iter().rposition(|h| h.piece.is_some_and(|p| p.color != victim.color))
        {
            self.placed_piece = self.hand[c].piece;
            self.hand.remove(v.max(c));
            self.hand.remove(v.min(c));
            self.sensed = new;
            self.last_placed = Some(square);
            self.placed_since_ruling.add(square);
            self.on_change(at, Some(square), Bitboard::from_square(square));
            return Ok(());
        }
        // Put back where it was lifted from: a touch.
        let idx = self.hand.iter().rposition(|h| h.square == square && (!piece_ids || h.piece == piece));
        let idx = idx.or_else(|| self.hand.iter().rposition(|h| !piece_ids || h.piece == piece));
        self.placed_piece = if piece_ids { piece } else { idx.and_then(|i| self.hand[i].piece) };
        if let Some(i) = idx {
            let h = self.hand.remove(i);
            if h.square == square
                && let Some(p) = h.piece
            {
                out.push(Inference::Touch(TouchEvidence {
                    square,
                    piece: p,
                    kind: TouchKind::LiftAndReplace,
                    at: h.at,
                    released_at: Some(at),
                    ply: self.ply(),
                }));
            }
        }
        self.sensed = new;
        self.last_placed = Some(square);
        self.placed_since_ruling.add(square);
        if lost_lift.is_some() {
            self.lost_lift = lost_lift;
        }
        self.on_change(at, Some(square), Bitboard::from_square(square));
        Ok(())
    }

    /// A piece (the moved piece, on piece boards) put down on the empty
    /// `square` within twice the settle time of the last ruling, with nothing
    /// lifted since and the moved piece still shown where the move put it:
    /// a lift may have been lost (see [`LostLift`]). A hand moving on after
    /// the move rested would have been seen lifting it.
    fn lost_lift_suspected(&self, at: DeviceTime, square: Square, piece: Option<Piece>) -> Option<LostLift> {
        let last = *self.moves.last()?;
        let ruled = self.ruled_at?;
        let left = last.to();
        if last.is_castle()
            || !self.hand.is_empty()
            || self.settling.is_some()
            || at.since(ruled) > self.settings.settle.ms().saturating_mul(2)
            || square == left
            || self.sensed.occupied.contains(square)
            || !self.sensed.occupied.contains(left)
        {
            return None;
        }
        if self.settings.sensing == Sensing::PieceIds {
            let moved = self.position().board().piece_at(left)?;
            if piece != Some(moved) || self.sensed.board.piece_at(left) != Some(moved) {
                return None;
            }
        }
        Some(LostLift { left, confirmed: false })
    }

    /// A full scan: its lifts go through the lift logic (touch evidence),
    /// then the new placement is matched.
    fn apply_scan(&mut self, at: DeviceTime, new: Sensed, out: &mut Vec<Inference>) {
        self.placed_piece = None;
        let changed = self.sensed != new;
        let gone = self.sensed.occupied & !new.occupied;
        for square in gone {
            let piece = self.piece_lifted(square);
            self.sensed.occupied.remove(square);
            self.sensed.board.remove(square);
            // A square the ruled placement had occupied, emptied without a
            // lift reported while the hand was at work: the lift was lost,
            // and it was the mover's, made before the piece was put down
            // again; it is no touch of now.
            let lost = match &mut self.lost_lift {
                Some(l) if self.believed.occupied.contains(square) => {
                    l.confirmed = true;
                    true
                }
                _ => false,
            };
            self.on_lift(at, square, piece, out, !lost);
        }
        let placed = if self.settings.sensing == Sensing::PieceIds {
            let mut changed = Bitboard::EMPTY;
            for square in new.occupied {
                if new.board.piece_at(square) != self.sensed.board.piece_at(square) {
                    changed.add(square);
                }
            }
            changed
        } else {
            new.occupied & !self.sensed.occupied
        };
        self.sensed = new;
        self.placed_since_ruling |= placed;
        // A scan is the board's own word on every square: it is matched even
        // when it only removed pieces (a missed lift), so on occupancy boards
        // read by scans alone a piece in the hand above a capture cannot be
        // told from the capture (their actions tell them apart).
        if changed || placed.any() {
            self.hand.clear();
            // A scan that placed nothing new (the placing action came before
            // it) is placed, for an illegal move it may show, on the square
            // last placed on. Which capture it shows is read from the squares
            // it placed pieces on; if none (the lift of the capturing piece
            // was the update lost), from every square placed on since the
            // last ruling, not the last one only: that may be a knocked piece
            // put back, which a capture onto its square would look the same as.
            let square = placed.last().or(self.last_placed);
            let deciding = if placed.any() { placed } else { self.placed_since_ruling };
            self.on_change(at, square, deciding);
        }
    }

    /// The piece on a square about to be lifted: read from the board, or on
    /// occupancy boards from the position the board is expected to show.
    fn piece_lifted(&self, square: Square) -> Option<Piece> {
        if self.settings.sensing == Sensing::PieceIds {
            return self.sensed.board.piece_at(square);
        }
        if self.out_of_sync {
            // The board is out of step with the game: which piece stood
            // there is not known, so a lift stops any move waiting to settle
            // (an opponent's lift would not, and a wrong guess of the colour
            // would let a placement the board no longer shows be ruled).
            return None;
        }
        match self.settling {
            Some(Settling { candidate: Candidate::Move(m), suspended: false, .. }) => {
                self.position().after(m).board().piece_at(square)
            }
            _ => self.position().board().piece_at(square),
        }
    }

    fn on_lift(
        &mut self,
        at: DeviceTime,
        square: Square,
        piece: Option<Piece>,
        out: &mut Vec<Inference>,
        evidence: bool,
    ) {
        // Does the lift stop the placement waiting to settle? A lift of the
        // moved piece or of another piece of the moving side (the move goes
        // on) does; a lift by the opponent (who may start thinking with a
        // hand on a piece) does not.
        let was_unresolved = matches!(
            self.settling,
            Some(Settling {
                candidate: Candidate::Unresolved | Candidate::Wait | Candidate::TakeBack(_),
                ..
            })
        );
        let placed_before = self.settling.and_then(|s| s.placed);
        let placed_since = self.settling.map(|s| s.since);
        if let Some(s) = &mut self.settling {
            match s.candidate {
                Candidate::Move(m) => {
                    let mover = self.history.last().expect("history").turn();
                    let moved_square = m.king_or_piece_to() == square || m.to() == square;
                    if moved_square || piece.is_none() {
                        self.settling = None;
                    } else if piece.is_some_and(|p| p.color == mover) {
                        s.suspended = true;
                    }
                }
                Candidate::Revise(m) => {
                    let mover = !self.history.last().expect("history").turn();
                    if m.king_or_piece_to() == square
                        || (m.is_castle() && castling_rook_to(m) == square)
                        || piece.is_none()
                    {
                        self.settling = None;
                    } else if piece.is_some_and(|p| p.color == mover) {
                        s.suspended = true;
                    }
                }
                Candidate::Promotion { to, .. } if to == square => self.settling = None,
                Candidate::Promotion { .. } | Candidate::Same | Candidate::Wait => s.suspended = true,
                Candidate::TakeBack(_) | Candidate::Unresolved => self.settling = None,
            }
        }
        // A lift completes a move in two cases: en passant with the captured
        // pawn taken off last, and a piece slid to its square and seen on
        // both (the update of the square it left comes last). On occupancy
        // boards a slide must be within one scan: a king lifted well after a
        // rook was put down beside it is castling on its way, not a slide.
        if was_unresolved
            && let Candidate::Move(m) = self.classify(&self.sensed, squares(placed_before))
            && (m.is_en_passant()
                || (m.from() == square
                    && (self.settings.sensing == Sensing::PieceIds
                        || placed_since.is_some_and(|t| at.since(t) <= SLIDE_MS))))
        {
            self.settling = Some(Settling {
                candidate: Candidate::Move(m),
                since: at,
                snapshot: self.sensed,
                placed: placed_before,
                suspended: false,
                reported: false,
                then: None,
            });
        }
        if self.hand.len() == MAX_HAND {
            self.hand.remove(0);
        }
        self.hand.push(InHand { square, piece, at });
        let Some(piece) = piece.filter(|_| evidence) else { return };
        // Touch evidence is read in the position the toucher faces: after a
        // move still settling, that is the position after it.
        let (turn, ply) = match self.settling {
            Some(Settling { candidate: Candidate::Move(_), suspended: false, .. }) => {
                (!self.position().turn(), self.ply() + 1)
            }
            _ => (self.position().turn(), self.ply()),
        };
        if piece.color == turn {
            if self.first_lift_ply != Some(ply) {
                self.first_lift_ply = Some(ply);
                out.push(Inference::Touch(TouchEvidence {
                    square,
                    piece,
                    kind: TouchKind::FirstLift,
                    at,
                    released_at: None,
                    ply,
                }));
            }
        } else {
            out.push(Inference::Touch(TouchEvidence {
                square,
                piece,
                kind: TouchKind::OpponentPiece,
                at,
                released_at: None,
                ply,
            }));
        }
    }

    /// The sensed board changed by a placement: match it.
    /// `placed`: the square of the placement; `deciding`: the squares whose
    /// filling tells captures apart on occupancy boards (see
    /// [`BoardReader::classify`]).
    fn on_change(&mut self, at: DeviceTime, placed: Option<Square>, deciding: Bitboard) {
        // The board is back to the move already waiting (a knocked piece put
        // back): that move, whatever else the placement could be read as.
        if let Some(s) = &mut self.settling
            && matches!(s.candidate, Candidate::Move(_) | Candidate::Promotion { .. })
            && s.snapshot == self.sensed
            && placed != settling_square(s.candidate)
        {
            s.suspended = false;
            return;
        }
        // The opponent replies before the move has rested for the settle
        // time (a settle time longer than a quick reply): the moved piece
        // still rests where it was put, so the move goes on settling, and
        // the reply is read once it is ruled.
        if let Some(s) = self.settling
            && let Some((m, mover)) = match s.candidate {
                Candidate::Move(m) => Some((m, self.position().turn())),
                Candidate::Revise(m) => Some((m, !self.position().turn())),
                _ => None,
            }
            && !s.suspended
            && self.placed_piece.is_some_and(|p| p.color != mover)
            && self.move_stands(m, &s.snapshot)
        {
            self.settling = Some(Settling { then: Some(FollowUp { at, placed, deciding }), ..s });
            return;
        }
        let candidate = self.classify(&self.sensed, deciding);
        if candidate == Candidate::Same && self.sensed == self.believed && !self.out_of_sync {
            self.settling = None;
            return;
        }
        let concrete = !matches!(candidate, Candidate::Unresolved);
        if let Some(s) = &mut self.settling
            && s.candidate == candidate
            && concrete
        {
            // The same match again (a knocked piece put back, the moving side
            // touching another piece): the moved piece has rested since its
            // own placement.
            s.suspended = false;
            s.snapshot = self.sensed;
            return;
        }
        self.settling = Some(Settling {
            candidate,
            since: at,
            snapshot: self.sensed,
            placed,
            suspended: false,
            reported: false,
            then: None,
        });
    }

    /// Whether the board still shows move `m` as it was placed: the squares
    /// it put pieces on hold what they held in `snapshot` (the squares it
    /// left the reply may move into).
    fn move_stands(&self, m: Move, snapshot: &Sensed) -> bool {
        let mut squares = Bitboard::from_square(m.king_or_piece_to());
        if m.is_castle() {
            squares.add(castling_rook_to(m));
        }
        if (self.sensed.occupied ^ snapshot.occupied) & squares != Bitboard::EMPTY {
            return false;
        }
        self.settings.sensing == Sensing::Occupancy
            || squares.into_iter().all(|sq| self.sensed.board.piece_at(sq) == snapshot.board.piece_at(sq))
    }

    fn matches(&self, sensed: &Sensed, board: &Board) -> bool {
        if sensed.occupied != board.occupied() {
            return false;
        }
        self.settings.sensing == Sensing::Occupancy || sensed.board == *board
    }

    /// The cheap match: the position, its successors, earlier positions.
    ///
    /// On occupancy boards all captures by one piece leave the same squares
    /// occupied: the one that fills a square of `deciding` (the square just
    /// placed on, normally) is the one made.
    fn classify(&self, sensed: &Sensed, deciding: Bitboard) -> Candidate {
        let pos = self.position();
        if self.matches(sensed, pos.board()) {
            return Candidate::Same;
        }
        let occupancy = self.settings.sensing == Sensing::Occupancy;
        let mut found: Option<Move> = None;
        let mut promotion: Option<(Square, Square)> = None;
        let mut ambiguous = false;
        // A match filling a deciding square was found: others cannot be it.
        let mut filled = false;
        let fills = |m: Move| fills_any(m, deciding);
        for (m, b) in &self.successors {
            if !self.matches(sensed, b) {
                continue;
            }
            if let Some(role) = m.promotion_role()
                && occupancy
                && self.promotion_choice != Some(role)
            {
                // A pawn capturing onto the last rank: the square placed on
                // says which piece it took, as for any capture.
                if promotion.is_none() || fills(*m) {
                    promotion = Some((m.from(), m.to()));
                }
                continue;
            }
            if !occupancy {
                found = Some(*m);
                break;
            }
            match found {
                None => {
                    found = Some(*m);
                    filled = fills(*m);
                }
                Some(f) if fills(f) && fills(*m) => ambiguous = true,
                Some(f) if fills(f) => {}
                Some(_) if fills(*m) => {
                    found = Some(*m);
                    ambiguous = false;
                    filled = true;
                }
                Some(_) if !filled => ambiguous = true,
                Some(_) => {}
            }
        }
        if ambiguous {
            return Candidate::Unresolved;
        }
        if let Some(m) = found {
            return Candidate::Move(m);
        }
        if let Some((from, to)) = promotion {
            return Candidate::Promotion { from, to };
        }
        if self.is_half_move(sensed) {
            return Candidate::Wait;
        }
        // Before the earlier positions: in a repetition the move made can
        // show a placement the game had before, and a confirmed lost lift is
        // the stronger evidence.
        if let Some(m) = self.lost_lift_revision(sensed) {
            return Candidate::Revise(m);
        }
        for (k, p) in self.history.iter().enumerate().rev().skip(1) {
            if self.matches(sensed, p.board()) {
                return Candidate::TakeBack(k);
            }
        }
        if let Some(m) = self.castling_revision(sensed) {
            return Candidate::Revise(m);
        }
        Candidate::Unresolved
    }

    /// The last move was ruled from a placement a lost lift made wrong
    /// ([`LostLift`], confirmed by a full scan), and the board shows another
    /// move of the same piece instead: that is the move made (the square
    /// ruled first was only where the hand dropped the piece on the way, or
    /// the king's square beside a rook whose lift was lost).
    fn lost_lift_revision(&self, sensed: &Sensed) -> Option<Move> {
        self.lost_lift.filter(|l| l.confirmed)?;
        let last = *self.moves.last()?;
        let before = *self.history.iter().rev().nth(1)?;
        before.legal_moves().iter().copied().find(|m| {
            *m != last
                && m.from() == last.from()
                && m.promotion_role() == last.promotion_role()
                && self.matches(sensed, before.after(*m).board())
        })
    }

    /// The last move ruled was a rook move and the board now shows castling
    /// with that rook instead: the king followed after the settle time.
    fn castling_revision(&self, sensed: &Sensed) -> Option<Move> {
        let last = *self.moves.last()?;
        let before = *self.history.iter().rev().nth(1)?;
        if before.board().piece_at(last.from())?.role != Role::Rook
            || !before.castling_rooks().contains(last.from())
        {
            return None;
        }
        before.legal_moves().iter().copied().find(|m| {
            m.is_castle() && m.to() == last.from() && self.matches(sensed, before.after(*m).board())
        })
    }

    /// The first half of a castling (king moved, rook not yet) or of a
    /// promotion (pawn on the last rank, not yet exchanged).
    fn is_half_move(&self, sensed: &Sensed) -> bool {
        for (m, b) in &self.successors {
            match m.kind() {
                MoveKind::Castle => {
                    let king_to = m.king_or_piece_to();
                    let rook_to = castling_rook_to(*m);
                    if m.to() == king_to {
                        continue;
                    }
                    let mut half = *b;
                    if let Some(rook) = half.remove(rook_to) {
                        half.set(m.to(), rook);
                        if self.matches(sensed, &half) {
                            return true;
                        }
                    }
                }
                MoveKind::Promotion(Role::Queen) => {
                    let mut half = *b;
                    let color = self.position().turn();
                    half.set(m.to(), Piece { color, role: Role::Pawn });
                    if self.matches(sensed, &half) {
                        return true;
                    }
                }
                MoveKind::EnPassant => {
                    // The captured pawn not yet taken off.
                    let mut half = *b;
                    let victim = Square::from_coords(m.to().file(), m.from().rank());
                    half.set(victim, Piece { color: !self.position().turn(), role: Role::Pawn });
                    if self.matches(sensed, &half) {
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    fn compute_successors(&mut self) {
        let pos = *self.position();
        self.successors.clear();
        for m in pos.legal_moves().iter() {
            self.successors.push((*m, *pos.after(*m).board()));
        }
    }

    fn placement_of(&self, s: &Sensed) -> Placement {
        match self.settings.sensing {
            Sensing::PieceIds => Placement::Pieces(s.board),
            Sensing::Occupancy => Placement::Occupancy(s.occupied),
        }
    }

    /// Rules the settling placement if its time has come by `now`.
    fn settle_due(&mut self, now: DeviceTime, out: &mut Vec<Inference>) {
        // A move ruled may bring the reply read after it (`Settling::then`),
        // itself due by now: at most one reply waits per move.
        for _ in 0..2 {
            if !self.settle_once(now, out) {
                return;
            }
        }
    }

    /// Rules the settling placement if due; whether a follow-up reply was
    /// taken up that may be due too.
    fn settle_once(&mut self, now: DeviceTime, out: &mut Vec<Inference>) -> bool {
        let Some(s) = self.settling else { return false };
        if s.suspended || s.reported || s.candidate == Candidate::Wait {
            return false;
        }
        let due = s.since.plus(self.wait_ms(s.candidate));
        if now < due {
            return false;
        }
        self.settling = None;
        match s.candidate {
            Candidate::Same => {
                self.believed = s.snapshot;
                self.reported = None;
                if self.out_of_sync {
                    self.out_of_sync = false;
                    out.push(Inference::Restored { settled_at: due });
                }
            }
            Candidate::Move(m) => {
                self.commit(m, s, due, None, false, out);
                if let Some(reply) = s.then {
                    self.placed_since_ruling |= reply.deciding;
                    self.on_change(reply.at, reply.placed, reply.deciding);
                    return true;
                }
            }
            Candidate::TakeBack(k) => {
                self.history.truncate(k + 1);
                self.moves.truncate(k);
                self.compute_successors();
                self.believed = s.snapshot;
                self.out_of_sync = false;
                self.reported = None;
                self.first_lift_ply = None;
                self.ruled_at = None;
                self.placed_since_ruling = Bitboard::EMPTY;
                self.lost_lift = None;
                out.push(Inference::TakeBack { to_ply: k, settled_at: due });
            }
            Candidate::Promotion { from, to } => {
                out.push(Inference::PromotionPending { from, to, settled_at: due });
                self.settling = Some(Settling { reported: true, ..s });
            }
            Candidate::Revise(m) => {
                let last = self.moves.pop().expect("a move to revise");
                self.history.pop();
                self.commit(m, s, due, Some(last), false, out);
                if let Some(reply) = s.then {
                    self.placed_since_ruling |= reply.deciding;
                    self.on_change(reply.at, reply.placed, reply.deciding);
                    return true;
                }
            }
            Candidate::Wait => {}
            Candidate::Unresolved => self.resolve(s, due, out),
        }
        false
    }

    fn commit(
        &mut self,
        m: Move,
        s: Settling,
        due: DeviceTime,
        revises: Option<Move>,
        caught_up: bool,
        out: &mut Vec<Inference>,
    ) {
        let pos = self.position().after(m);
        let ply = self.ply();
        self.history.push(pos);
        self.moves.push(m);
        self.compute_successors();
        self.believed = s.snapshot;
        self.out_of_sync = false;
        self.reported = None;
        self.ruled_at = Some(due);
        self.placed_since_ruling = Bitboard::EMPTY;
        self.lost_lift = None;
        // Pieces lifted before the move was placed were part of it (or a
        // capture's victim); lifts since belong to the next move.
        self.hand.retain(|h| h.at > s.since);
        if m.is_promotion() {
            self.promotion_choice = None;
        }
        out.push(Inference::Move(InferredMove {
            mv: m,
            ply,
            placed_at: s.since,
            settled_at: due,
            revises,
            caught_up,
        }));
    }

    /// The deep search for a settled placement nothing cheap explained.
    fn resolve(&mut self, s: Settling, due: DeviceTime, out: &mut Vec<Inference>) {
        let target = s.snapshot;
        // Missed scans: the shortest run of legal moves that explains it.
        // A placement that several single moves explain (captures seen on
        // an occupancy board without the placing action) is ambiguous: a
        // longer run would be a guess.
        let start = *self.position();
        let single = self.successors.iter().any(|(_, b)| self.matches(&target, b));
        // Out of step already (an unknown placement stands), a run of moves
        // that happens to explain the board would be a guess too: only a
        // known placement puts the board back in step.
        let deepest = if single || self.out_of_sync { 1 } else { self.settings.catch_up };
        for depth in 2..=deepest {
            let mut found: Vec<Vec<Move>> = Vec::new();
            let mut line = Vec::with_capacity(depth as usize);
            self.search(&start, &target, depth, &mut line, &mut found);
            match found.len() {
                0 => continue,
                1 => {
                    for m in found.pop().expect("one line") {
                        self.commit(m, s, due, None, true, out);
                    }
                    return;
                }
                // Transposed moves (two missed moves of one side) cannot be
                // ordered from the placement alone.
                _ => break,
            }
        }
        if self.reported == Some(target) {
            self.out_of_sync = true;
            return;
        }
        self.reported = Some(target);
        self.out_of_sync = true;
        self.believed = target;
        let placement = self.placement_of(&target);
        // A placement legal moves explain (captures an occupancy board cannot
        // tell apart) is no illegal move, whichever square was placed on
        // last: the Laws would penalise a move nobody made (7.5).
        if !single && let Some((from, to, piece)) = self.single_piece_moved(&target, s.placed) {
            out.push(Inference::IllegalMove(IllegalAttempt {
                from,
                to,
                piece,
                ply: self.ply(),
                placement,
                settled_at: due,
            }));
        } else {
            out.push(Inference::Unknown { placement, settled_at: due });
        }
    }

    /// Depth-first search for move sequences of exactly `depth` plies from
    /// `pos` to `target`; stops at two (enough to call it ambiguous).
    fn search(
        &self,
        pos: &Position,
        target: &Sensed,
        depth: u8,
        line: &mut Vec<Move>,
        found: &mut Vec<Vec<Move>>,
    ) {
        if found.len() >= 2 {
            return;
        }
        if depth == 0 {
            if self.matches(target, pos.board()) {
                found.push(line.clone());
            }
            return;
        }
        // A move changes at most four squares (castling): prune positions
        // too far from the target to reach it in the plies left.
        if self.distance(pos.board(), target) > 4 * u32::from(depth) {
            return;
        }
        if pos.board().occupied().count() < target.occupied.count() {
            return;
        }
        for m in pos.legal_moves().iter() {
            if self.settings.sensing == Sensing::Occupancy
                && m.promotion_role().is_some_and(|r| Some(r) != self.promotion_choice.or(Some(Role::Queen)))
            {
                continue;
            }
            line.push(*m);
            self.search(&pos.after(*m), target, depth - 1, line, found);
            line.pop();
        }
    }

    /// Squares on which `board` and `target` differ.
    fn distance(&self, board: &Board, target: &Sensed) -> u32 {
        if self.settings.sensing == Sensing::Occupancy {
            return (board.occupied() ^ target.occupied).count();
        }
        let mut diff = board.occupied() ^ target.occupied;
        for role in Role::ALL {
            diff |= board.by_role(role) ^ target.board.by_role(role);
        }
        for color in Color::ALL {
            diff |= board.by_color(color) ^ target.board.by_color(color);
        }
        diff.count()
    }

    /// A single piece of the side to move taken from one square to another
    /// (capturing or not), the rest unchanged: an illegal move.
    fn single_piece_moved(
        &self,
        target: &Sensed,
        placed: Option<Square>,
    ) -> Option<(Square, Square, Option<Piece>)> {
        let pos = self.position();
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        let emptied = board.occupied() & !target.occupied;
        let filled = target.occupied & !board.occupied();
        match self.settings.sensing {
            Sensing::PieceIds => {
                let mut changed = board.occupied() | target.occupied;
                changed = changed
                    .into_iter()
                    .filter(|sq| board.piece_at(*sq) != target.board.piece_at(*sq))
                    .collect::<Bitboard>();
                let from = emptied.single_square()?;
                let to = (changed & !emptied).single_square()?;
                let piece = board.piece_at(from)?;
                if !ours.contains(from) || ours.contains(to) {
                    return None;
                }
                let landed = target.board.piece_at(to)?;
                if landed != piece && !(piece.role == Role::Pawn && landed.color == piece.color) {
                    return None;
                }
                Some((from, to, Some(piece)))
            }
            Sensing::Occupancy => {
                let from = emptied.single_square()?;
                if !ours.contains(from) {
                    return None;
                }
                let to = match filled.count() {
                    1 => filled.single_square()?,
                    0 => placed.filter(|sq| board.by_color(!pos.turn()).contains(*sq))?,
                    _ => return None,
                };
                Some((from, to, board.piece_at(from)))
            }
        }
    }
}

/// The square of a placement as a set.
fn squares(placed: Option<Square>) -> Bitboard {
    placed.map_or(Bitboard::EMPTY, Bitboard::from_square)
}

/// Whether `m` puts a piece on one of `squares` (castling: the king or the
/// rook).
fn fills_any(m: Move, squares: Bitboard) -> bool {
    squares.contains(m.king_or_piece_to()) || (m.is_castle() && squares.contains(castling_rook_to(m)))
}

/// The square a move or a promotion waiting to settle filled last (a lift
/// and put-back there restarts its settle time).
fn settling_square(candidate: Candidate) -> Option<Square> {
    match candidate {
        Candidate::Move(m) => Some(m.king_or_piece_to()),
        Candidate::Promotion { to, .. } => Some(to),
        _ => None,
    }
}

/// Where the rook of a castling move ends up.
fn castling_rook_to(m: Move) -> Square {
    let side = m.castling_side().expect("a castling move");
    Square::from_coords(side.rook_to_file(), m.from().rank())
}

fn sensed_of(board: &Board, sensing: Sensing) -> Sensed {
    match sensing {
        Sensing::PieceIds => Sensed { board: *board, occupied: board.occupied() },
        Sensing::Occupancy => Sensed { board: Board::empty(), occupied: board.occupied() },
    }
}

/// A full scan that cannot be a real board.
fn check_scan(s: &Sensed, piece_ids: bool) -> Result<(), ObservationError> {
    let count = s.occupied.count();
    if count > 32 {
        return Err(ObservationError::Impossible(Impossible::TooManyPieces { count }));
    }
    if piece_ids {
        for color in Color::ALL {
            let n = s.board.by_color(color).count();
            if n > 16 {
                return Err(ObservationError::Impossible(Impossible::TooManyOfColor { color, count: n }));
            }
        }
        if s.board.kings().is_empty() {
            return Err(ObservationError::Impossible(Impossible::NoKings));
        }
    }
    Ok(())
}
