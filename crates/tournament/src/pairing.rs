//! A round's pairings, imported from a pairing engine's output: which boards
//! (white, black) and which byes.
//!
//! Two inputs are read:
//!
//! - **A TRF26 file with the new round entered** ([`read_trf`],
//!   [`from_trf`]), as bbpPairings and JaVaFo exchange it with tournament
//!   programs: in the round's field of each `001` record, the opponent and
//!   the colour with a blank result (or a result already known: a forfeit
//!   decided in advance, `+`/`-`), `0000 - U` for the pairing-allocated bye,
//!   `0000 - H`/`F`/`Z` for the byes given in advance. Everything the TRF
//!   reader checks is checked (see [`crate::trf`]): the two sides of each
//!   game must agree, which is where a player paired twice shows up.
//! - **The plain pairing list** ([`read_list`]) the engines write with `-p`:
//!   the number of pairs on the first line, then one `white black` pair of
//!   start numbers per line, `0` as the black player meaning the
//!   pairing-allocated bye. bbpPairings' test `dutch_2025_C5` expects exactly
//!   `3\n1 5\n3 2\n6 0\n` (three pairs, the last the bye); the README of
//!   bbpPairings says its interface follows JaVaFo's Advanced User Manual.
//!
//! ## The plain list, as this module reads it
//!
//! ```text
//! # round 5, from bbpPairings --dutch          <- comments: `#` to the end of the line
//! 4                                            <- optional: the number of pairs
//! 1 5                                          <- board 1: white 1, black 5
//! 3 2
//! 9 12 + -                                     <- a forfeit known in advance: white wins by forfeit
//! 6 0                                          <- the pairing-allocated bye for 6
//! 7 H                                          <- a half-point bye for 7 (also F, Z, U)
//! ```
//!
//! - The count line, when present, is the first line that is not blank or a
//!   comment, and holds a single number. It counts what the engines count:
//!   the boards and the pairing-allocated bye (whether written `6 0` or
//!   `6 U`); the byes `H`, `F`, `Z` are not counted. A mismatch is an error.
//! - **Byes given in advance** are a start number and a TRF26 bye code: `H`
//!   half-point, `F` full-point, `Z` zero-point, `U` pairing-allocated (the
//!   same as `n 0`; at most one per round, as TRF26 says of `U`).
//! - **Results known in advance** follow the pair as TRF26 result codes of
//!   white then black: `+ -` (white wins by forfeit), `- +` (black wins by
//!   forfeit), `- -` (double forfeit). Written together (`+-`, `-+`, `--`,
//!   the notation of TRF26's record `330` for forfeited team matches) they
//!   are read the same. Nothing else can be preset: a game's result is not
//!   known before it is played.
//! - Separators are any whitespace; line ends LF, CRLF or CR.
//! - Boards are numbered from 1 in the order of the list.
//! - Every error names the line (1-based, counting blank and comment lines):
//!   a malformed line, a number that is not a start number, an unknown
//!   preset, a player the caller does not know, a player on two lines
//!   (paired twice, or paired and given a bye), a player paired with
//!   himself, a second pairing-allocated bye, a count that does not match.
//!
//! ## From a TRF file
//!
//! A TRF file carries no board numbers. Boards are numbered in the order of
//! the lower start number of each pair (the order of the `001` records),
//! byes listed by start number. A game entered without colours (a forfeit
//! recorded as `  12 - +`) puts the lower start number on white; with one
//! colour, that side decides. Participants with a blank round (not paired,
//! no bye) are absent from the pairings.
//!
//! [`RoundPairings::enter`] enters the pairings into a crosstable (the round
//! becomes the pairings, results blank unless preset); written as TRF and
//! read back with [`read_trf`], it gives the same boards.

use std::collections::HashMap;
use std::fmt::Write as _;

use arbiter_chess::Color;

use crate::crosstable::{
    ByeKind, Crosstable, CrosstableError, GameOutcome, RoundEntry, RoundNumber, StartNumber,
};
use crate::trf::{self, TrfError, TrfFile};

/// One board of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// The board number, from 1, in the order of the list.
    pub number: u16,
    pub white: StartNumber,
    pub black: StartNumber,
    /// The outcome for white and for black when known before play (a
    /// forfeit decided in advance).
    pub preset: Option<(GameOutcome, GameOutcome)>,
}

/// The pairings of one round: its boards and its byes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundPairings {
    pub round: RoundNumber,
    pub boards: Vec<Board>,
    pub byes: Vec<(StartNumber, ByeKind)>,
}

/// Why a pairing list cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    #[error(
        "line {line}: {found:?} is not a pairing line (expected `white black`, `white black + -`, `player H`, or the number of pairs first)"
    )]
    Malformed { line: usize, found: String },
    #[error("line {line}: {found:?} is not a start number (1 to 9999)")]
    BadStartNumber { line: usize, found: String },
    #[error("line {line}: unknown preset result {found:?} (expected `+ -`, `- +` or `- -`)")]
    UnknownPreset { line: usize, found: String },
    #[error("line {line}: player {number} is not in the event")]
    UnknownPlayer { line: usize, number: StartNumber },
    #[error("line {line}: player {number} is already paired or given a bye on line {first_line}")]
    PairedTwice { line: usize, first_line: usize, number: StartNumber },
    #[error("line {line}: player {number} is paired against himself")]
    PairedWithSelf { line: usize, number: StartNumber },
    #[error("line {line}: a second pairing-allocated bye (the first is on line {first_line})")]
    SecondPairingAllocatedBye { line: usize, first_line: usize },
    #[error("line {line}: the list announces {announced} pairs but gives {found}")]
    CountMismatch { line: usize, announced: u32, found: u32 },
    #[error("round {round} is not in the file, which records {recorded} rounds")]
    RoundNotRecorded { round: RoundNumber, recorded: u16 },
    #[error(transparent)]
    Trf(#[from] TrfError),
    #[error("player {0} is not in the crosstable")]
    NotInCrosstable(StartNumber),
    #[error(transparent)]
    Crosstable(#[from] CrosstableError),
}

impl RoundPairings {
    /// The pairings as a plain list ([`read_list`] reads it back): the
    /// count, the boards with their presets, the pairing-allocated bye as
    /// `n 0`, then the other byes.
    #[must_use]
    pub fn write_list(&self) -> String {
        let allocated: Vec<StartNumber> =
            self.byes.iter().filter(|(_, k)| *k == ByeKind::PairingAllocated).map(|(n, _)| *n).collect();
        let mut out = format!("{}\n", self.boards.len() + allocated.len());
        for b in &self.boards {
            let _ = write!(out, "{} {}", b.white, b.black);
            if let Some((white, black)) = b.preset {
                let _ = write!(out, " {} {}", preset_code(white), preset_code(black));
            }
            out.push('\n');
        }
        for n in allocated {
            let _ = writeln!(out, "{n} 0");
        }
        for (n, kind) in &self.byes {
            let code = match kind {
                ByeKind::PairingAllocated => continue,
                ByeKind::HalfPoint => 'H',
                ByeKind::FullPoint => 'F',
                ByeKind::ZeroPoint => 'Z',
            };
            let _ = writeln!(out, "{n} {code}");
        }
        out
    }

    /// `crosstable` with this round entered: every participant's entry for
    /// [`RoundPairings::round`] becomes the board (colours given, result
    /// blank unless preset), the bye, or [`RoundEntry::Unpaired`]; earlier
    /// rounds are kept.
    ///
    /// # Errors
    ///
    /// [`PairingError::NotInCrosstable`] for a player the crosstable does
    /// not hold; [`PairingError::Crosstable`] if the result is inconsistent.
    pub fn enter(&self, crosstable: &Crosstable) -> Result<Crosstable, PairingError> {
        let mut participants = crosstable.participants().to_vec();
        let index = self.round.index();
        for p in &mut participants {
            if p.rounds.len() <= index {
                p.rounds.resize(index + 1, RoundEntry::Unpaired);
            }
            p.rounds[index] = RoundEntry::Unpaired;
        }
        let mut set = |number: StartNumber, entry: RoundEntry| -> Result<(), PairingError> {
            let p = participants
                .iter_mut()
                .find(|p| p.number == number)
                .ok_or(PairingError::NotInCrosstable(number))?;
            p.rounds[index] = entry;
            Ok(())
        };
        for b in &self.boards {
            set(
                b.white,
                RoundEntry::Paired {
                    opponent: b.black,
                    color: Some(Color::White),
                    outcome: b.preset.map(|p| p.0),
                },
            )?;
            set(
                b.black,
                RoundEntry::Paired {
                    opponent: b.white,
                    color: Some(Color::Black),
                    outcome: b.preset.map(|p| p.1),
                },
            )?;
        }
        for &(n, kind) in &self.byes {
            set(n, RoundEntry::Bye(kind))?;
        }
        Ok(Crosstable::new(participants, crosstable.adjustments().to_vec())?)
    }
}

fn preset_code(outcome: GameOutcome) -> char {
    match outcome {
        GameOutcome::Forfeit { won: true } => '+',
        GameOutcome::Forfeit { won: false } => '-',
        // Only forfeits are read as presets; anything else is written as
        // TRF would write the result.
        GameOutcome::Played(s) | GameOutcome::UnderOneMove(s) => match s {
            arbiter_laws::scoring::Score::Win => '1',
            arbiter_laws::scoring::Score::Draw => '=',
            arbiter_laws::scoring::Score::Loss => '0',
        },
    }
}

/// The pairings of `round` in a TRF26 text with that round entered.
///
/// # Errors
///
/// [`PairingError::Trf`] when the file cannot be read (every such error
/// names its line), [`PairingError::RoundNotRecorded`] when no `001` record
/// reaches `round`.
pub fn read_trf(text: &str, round: RoundNumber) -> Result<RoundPairings, PairingError> {
    from_trf(&trf::read(text)?, round)
}

/// The pairings of `round` in a TRF file read before.
///
/// # Errors
///
/// [`PairingError::RoundNotRecorded`] when the crosstable has fewer rounds.
pub fn from_trf(file: &TrfFile, round: RoundNumber) -> Result<RoundPairings, PairingError> {
    let table = &file.crosstable;
    if round.get() > table.rounds() {
        return Err(PairingError::RoundNotRecorded { round, recorded: table.rounds() });
    }
    let mut boards = Vec::new();
    let mut byes = Vec::new();
    for p in table.participants() {
        match p.round(round) {
            RoundEntry::Paired { opponent, color, outcome } if p.number < opponent => {
                let (other_color, other_outcome) = match table.participant(opponent).map(|o| o.round(round)) {
                    Some(RoundEntry::Paired { color, outcome, .. }) => (color, outcome),
                    _ => (None, None),
                };
                let p_white = match (color, other_color) {
                    (Some(c), _) => c == Color::White,
                    (None, Some(c)) => c == Color::Black,
                    (None, None) => true,
                };
                let preset = outcome.zip(other_outcome);
                let board = if p_white {
                    Board { number: 0, white: p.number, black: opponent, preset }
                } else {
                    Board { number: 0, white: opponent, black: p.number, preset: preset.map(|(a, b)| (b, a)) }
                };
                boards.push(board);
            }
            RoundEntry::Bye(kind) => byes.push((p.number, kind)),
            RoundEntry::Paired { .. } | RoundEntry::Unpaired => {}
        }
    }
    for (i, b) in boards.iter_mut().enumerate() {
        b.number = u16::try_from(i + 1).unwrap_or(u16::MAX);
    }
    Ok(RoundPairings { round, boards, byes })
}

/// A preset result token pair, `+ -`, `- +` or `- -`.
fn preset(tokens: &[&str]) -> Option<(GameOutcome, GameOutcome)> {
    let joined: String = tokens.concat();
    let win = GameOutcome::Forfeit { won: true };
    let loss = GameOutcome::Forfeit { won: false };
    match joined.as_str() {
        "+-" => Some((win, loss)),
        "-+" => Some((loss, win)),
        "--" => Some((loss, loss)),
        _ => None,
    }
}

fn bye_code(token: &str) -> Option<ByeKind> {
    match token {
        "H" | "h" => Some(ByeKind::HalfPoint),
        "F" | "f" => Some(ByeKind::FullPoint),
        "U" | "u" => Some(ByeKind::PairingAllocated),
        "Z" | "z" => Some(ByeKind::ZeroPoint),
        _ => None,
    }
}

/// Reads a plain pairing list (see the module documentation) for `round`;
/// `known` tells whether a start number belongs to the event (pass
/// `|_| true` to accept any).
///
/// # Errors
///
/// A [`PairingError`] naming the line: malformed line, bad start number,
/// unknown preset, unknown player, a player on two lines or paired with
/// himself, a second pairing-allocated bye, a count mismatch.
pub fn read_list(
    text: &str,
    round: RoundNumber,
    known: impl Fn(StartNumber) -> bool,
) -> Result<RoundPairings, PairingError> {
    let mut boards = Vec::new();
    let mut byes = Vec::new();
    let mut count: Option<(usize, u32)> = None;
    let mut first_content = true;
    let mut seen: HashMap<StartNumber, usize> = HashMap::new();
    let mut allocated_line: Option<usize> = None;

    for (index, raw) in trf::split_lines(text).into_iter().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let tokens: Vec<&str> = content.split_whitespace().collect();
        let malformed = || PairingError::Malformed { line, found: content.to_owned() };
        let was_first = std::mem::replace(&mut first_content, false);
        if let [only] = tokens.as_slice() {
            if was_first && only.bytes().all(|b| b.is_ascii_digit()) {
                count = Some((line, only.parse().map_err(|_| malformed())?));
                continue;
            }
            return Err(malformed());
        }
        let number = |token: &str| -> Result<StartNumber, PairingError> {
            let bad = || PairingError::BadStartNumber { line, found: token.to_owned() };
            if !token.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let n: u16 = token.parse().map_err(|_| bad())?;
            StartNumber::new(n).map_err(|_| bad())
        };
        let mut take = |n: StartNumber| -> Result<(), PairingError> {
            if !known(n) {
                return Err(PairingError::UnknownPlayer { line, number: n });
            }
            if let Some(&first_line) = seen.get(&n) {
                return Err(PairingError::PairedTwice { line, first_line, number: n });
            }
            seen.insert(n, line);
            Ok(())
        };
        let first = tokens[0];
        if !first.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        let second = tokens[1];
        let bye = if second == "0" { Some(ByeKind::PairingAllocated) } else { bye_code(second) };
        if let Some(kind) = bye {
            if tokens.len() != 2 {
                return Err(malformed());
            }
            let n = number(first)?;
            if kind == ByeKind::PairingAllocated {
                if let Some(first_line) = allocated_line {
                    return Err(PairingError::SecondPairingAllocatedBye { line, first_line });
                }
                allocated_line = Some(line);
            }
            take(n)?;
            byes.push((n, kind));
            continue;
        }
        if !second.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        let preset = match &tokens[2..] {
            [] => None,
            rest @ ([_] | [_, _]) => Some(
                preset(rest).ok_or_else(|| PairingError::UnknownPreset { line, found: rest.join(" ") })?,
            ),
            _ => return Err(malformed()),
        };
        let (white, black) = (number(first)?, number(second)?);
        if white == black {
            return Err(PairingError::PairedWithSelf { line, number: white });
        }
        take(white)?;
        take(black)?;
        let board_number = u16::try_from(boards.len() + 1).unwrap_or(u16::MAX);
        boards.push(Board { number: board_number, white, black, preset });
    }

    if let Some((line, announced)) = count {
        let found = boards.len() + usize::from(allocated_line.is_some());
        let found = u32::try_from(found).unwrap_or(u32::MAX);
        if found != announced {
            return Err(PairingError::CountMismatch { line, announced, found });
        }
    }
    Ok(RoundPairings { round, boards, byes })
}
