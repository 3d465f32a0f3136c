//! # arbiter-chess
//!
//! The rules of chess for the Arbiter service: positions and fully legal move
//! generation (standard chess and Chess960), FEN/X-FEN/Shredder-FEN, SAN, LAN
//! and UCI notation, Polyglot Zobrist keys, game records with the draw rules
//! of the FIDE Laws (threefold and fivefold repetition, fifty and
//! seventy-five moves), dead positions and "can this side still checkmate?",
//! and a streaming PGN reader and writer.
//!
//! The crate does no I/O beyond what a caller hands it and is deterministic:
//! the same input always gives the same answer.
//!
//! ```
//! use arbiter_chess::Position;
//!
//! let pos = Position::startpos();
//! let m = pos.parse_san("Nf3").unwrap();
//! let pos = pos.play(m).unwrap();
//! assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
//! assert_eq!(pos.legal_moves().len(), 20);
//! ```

pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod dead;
pub mod fen;
pub mod game;
pub mod movegen;
pub mod pgn;
pub mod position;
pub mod san;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod types;
pub mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use fen::{FenError, FenOptions, FenSyntaxError, PositionError, Strictness};
pub use game::{GameRecord, Outcome, Termination};
pub use movegen::{MoveList, perft, perft_full};
pub use position::{IllegalMoveError, IrregularMoveError, NonStandardCastlingError, Position};
pub use san::{San, SanError};
pub use types::{CastlingMode, CastlingSide, Color, File, Move, MoveKind, Piece, Rank, Role, Square};
pub use uci::{UciError, UciMove, UciText};
