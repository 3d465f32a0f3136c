//! TRF26: FIDE's Tournament Report File, Version 2026 (approved by the FIDE
//! Council on 12 May 2025, applied from 1 September 2025), read into a
//! [`TrfFile`] around a checked [`Crosstable`] and written back.
//!
//! The format is line-based and fixed-column. Every line starts with a
//! three-character record identifier; positions below are the
//! specification's, 1-based and inclusive.
//!
//! ## What is read
//!
//! - `001`, one per participant: start rank (5–8), sex (10), title (11–13),
//!   name (15–47), FIDE rating (49–52), federation (54–56), FIDE id (58–68),
//!   birth date (70–79), points (81–84), rank (86–89), then ten columns per
//!   round from 92 (round *r* from `92 + 10(r-1)`): the opponent's start rank
//!   or `0000` in four columns, the colour (`w`, `b`, `-`) two columns later,
//!   the result two columns after that. Result codes: `1 = 0` (played),
//!   `W D L` (the game lasted less than one move), `+ -` (forfeit), `H F U Z`
//!   (byes), blank (not paired, or paired and not finished). Letter codes
//!   and colours are read case-insensitively.
//! - `012` name, `022` city, `032` federation, `042`/`052` start and end
//!   dates, `092` type, `102` chief arbiter, `122` allotted times and `222`
//!   encoded time control, all kept as text; `062`/`072` numbers of players
//!   and rated players; `XXR` the number of rounds (JaVaFo's and bbpPairings'
//!   record, which both engines need).
//! - `162` scoring system into [`Scoring`]; `240` byes announced in advance
//!   into [`ByeRecord`]s; `299` abnormal point assignments into the
//!   crosstable's [`PointAdjustment`]s.
//! - Every other record (`082`, `112`, `132`, `142`, `152`, `172`–`212`,
//!   `250`, `260`, team records, national rating records, `###` comments,
//!   the engines' `XXC`, `XXA`, `BBW`…, and a `299` with team match points)
//!   is kept verbatim in [`TrfFile::other_records`] and written back as read,
//!   so a read and a write lose nothing this module does not model.
//!
//! Line ends may be LF, CRLF or CR alone (Remark 1 of the specification asks
//! for CR; real files use all three); a byte-order mark is skipped, blank
//! lines are ignored. [`write()`] produces LF line ends.
//!
//! ## Where the specification is silent, and what this module does
//!
//! - **Trailing rounds.** A round field that is entirely blank *after* a
//!   participant's last non-blank one is not a round (JaVaFo writes the
//!   unplayed rounds of the event as blanks; bbpPairings treats them as
//!   trailing space). A blank field *between* rounds is
//!   [`RoundEntry::Unpaired`] (the specification: blank is `0000`, and a
//!   blank result is "equivalent to `Z`"; the crosstable keeps the
//!   difference between a zero-point bye asked for and a round simply not
//!   paired). The writer writes an unpaired round as blanks, never as
//!   `0000 -`: bbpPairings reads `0000 -` with a blank result as an absence
//!   (the specification's "equivalent to `Z`"), so a file written for an
//!   engine must leave the round to be paired blank. The number of rounds of
//!   the crosstable read back is therefore the last round in which anyone was
//!   paired or had a bye.
//! - **A blank result against an opponent** is a pairing without a result
//!   yet: the round just paired, as engines and tournament programs exchange
//!   it (`outcome: None`).
//! - **Legacy bye codes** (JaVaFo's TRF(x), still read by bbpPairings):
//!   `0000 - +` is read as the pairing-allocated bye, `0000 - -` as the
//!   zero-point bye, `0000 - =` as the half-point bye. They are written back
//!   as `U`, `Z`, `H`.
//! - **Inconsistent round fields are errors**, as bbpPairings makes them: a
//!   bye code against an opponent, a game result without an opponent, a
//!   colour without an opponent, a game (played, under one move, or paired
//!   without a result) with an opponent and no colour. A forfeit may have no
//!   colour (`  12 - +`): the crosstable records it with `color: None`.
//! - **Rating and FIDE id `0`** mean none (JaVaFo writes `0` for unrated
//!   players); they are written back as blanks.
//! - **Birth date**: `YYYY/MM/DD` as the specification says, also `YYYY-MM-DD`,
//!   `DD/MM/YYYY`, the year alone (JaVaFo) and `00` for an unknown month or
//!   day (read as the year alone); `0000` or `0000/00/00` is no date. Written
//!   as `YYYY/MM/DD` or `YYYY`.
//! - **Title** is kept as text (`GM`, or JaVaFo's `g`, `m`, `f`); it is written
//!   right-aligned in columns 11–13.
//! - **Points column** (81–84): what the file says is kept in
//!   [`TrfFile::recorded_points`] and compared with
//!   [`TrfFile::point_mismatches`]; the writer always writes the points the
//!   crosstable and the scoring give (adjustments included), never the
//!   recorded ones.
//! - **Rank column** (86–89): kept in [`TrfFile::ranks`] and written back;
//!   this module does not compute standings.
//! - **`162`**: the specification places the codes at positions 6, 15, 24…
//!   with the points in the four columns after each. The reader is lenient
//!   about the spacing (any whitespace between code and value, or none); the
//!   writer uses the exact positions. `W` sets the win, the forfeit win and
//!   the full-point bye; `D` the draw and the half-point bye; `L` the loss;
//!   `A` the zero-point bye and the forfeit loss; `P` the pairing-allocated
//!   bye (default: as `W`); `X` (unknown result) is kept in
//!   [`TrfFile::unknown_result_points`]. The writer writes `162` only when
//!   the scoring differs from the defaults; a [`Scoring`] whose forfeits or
//!   byes differ from what `W`, `D`, `A` give cannot be expressed in TRF26
//!   and is written by its win, draw, loss, zero-point bye and
//!   pairing-allocated bye.
//! - **`299`**: one record may list several participants; each becomes one
//!   [`PointAdjustment`] of the record's points (columns 14–17) in the
//!   record's round (columns 20–22, `000` or blank for the whole event). The
//!   type of assignment (column 5) is kept in [`TrfFile::adjustment_kinds`].
//!   A `299` with match points (columns 8–11) belongs to a team event and is
//!   kept verbatim. The writer writes one record per adjustment.
//! - **Record order** on writing: the header records this module models, in
//!   the specification's order, then `XXR`, then the records kept verbatim in
//!   the order read, then the `001` records by start number, then `240` and
//!   `299`. Trailing spaces are not written.
//! - **Columns** are counted in characters, not bytes, so names in UTF-8
//!   keep the layout.
//! - **Points** are whole or half points (`4.0`, `11.5`, `-1.0`), as
//!   [`Points`] holds them.
//!
//! ## Sources
//!
//! The column layout, record list and result codes follow the
//! specification's transcription in `echecsjs/trf`, `SPEC.md` at commit
//! `202d7f0ba068dbd14edc546a269fb479789b8daa` (from FIDE's
//! `handbook.fide.com/files/handbook/TRF26.pdf`), with its
//! `docs/plans/2026-03-18-trf26-compatibility.md` (the `001` layout is the
//! same in TRF16 and TRF26; `092`/`102`/`112`/`122` mappings). The reading of
//! round fields (trailing blanks, legacy `+`/`-`/`=` byes, the consistency
//! rules) follows bbpPairings' reader, `src/fileformats/trf.cpp` in
//! `BieremaBoyzProgramming/bbpPairings` (commit `1089a68e`), and its README
//! for the `XXR`/`BBx` extensions, which are kept verbatim.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use arbiter_chess::Color;
use arbiter_laws::scoring::{CalendarDate, Points, Rating, Score};

use crate::crosstable::{
    BirthDate, ByeKind, Crosstable, CrosstableError, GameOutcome, Participant, PointAdjustment, RoundEntry,
    RoundNumber, Scoring, Sex, StartNumber,
};

/// A tournament report file: the event's header, its crosstable and the
/// records this module keeps without interpreting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfFile {
    /// `012` tournament name.
    pub name: Option<String>,
    /// `022` city.
    pub city: Option<String>,
    /// `032` federation.
    pub federation: Option<String>,
    /// `042` date of start, as written (the specification: `YYYY/MM/DD`).
    pub start_date: Option<String>,
    /// `052` date of end, as written.
    pub end_date: Option<String>,
    /// `062` number of players.
    pub player_count: Option<u32>,
    /// `072` number of rated players.
    pub rated_player_count: Option<u32>,
    /// `092` type of tournament.
    pub tournament_type: Option<String>,
    /// `102` chief arbiter.
    pub chief_arbiter: Option<String>,
    /// `122` allotted times per moves/game, as written.
    pub allotted_time: Option<String>,
    /// `222` encoded time control (`40/6000+30:900+30`), as written.
    pub time_control: Option<String>,
    /// `162` scoring system ([`Scoring::FIDE`] when absent).
    pub scoring: Scoring,
    /// `162` code `X`: the points for an unknown result (adjourned game).
    pub unknown_result_points: Option<Points>,
    /// `XXR` number of rounds of the event.
    pub rounds: Option<u16>,
    /// The `001` records (and `299` adjustments), checked.
    pub crosstable: Crosstable,
    /// `240` byes announced in advance.
    pub byes: Vec<ByeRecord>,
    /// The `299` type of assignment (column 5) of adjustments that had one;
    /// adjustments not listed are written as a penalty or bonus (blank).
    pub adjustment_kinds: Vec<(PointAdjustment, AssignmentKind)>,
    /// The rank column of the `001` records, where filled.
    pub ranks: BTreeMap<StartNumber, u16>,
    /// The points column of the `001` records as read, where filled.
    pub recorded_points: BTreeMap<StartNumber, Points>,
    /// Records kept verbatim (without line end), in the order read.
    pub other_records: Vec<String>,
}

impl TrfFile {
    /// A file holding `crosstable` and nothing else (default scoring).
    #[must_use]
    pub fn new(crosstable: Crosstable) -> TrfFile {
        TrfFile {
            name: None,
            city: None,
            federation: None,
            start_date: None,
            end_date: None,
            player_count: None,
            rated_player_count: None,
            tournament_type: None,
            chief_arbiter: None,
            allotted_time: None,
            time_control: None,
            scoring: Scoring::FIDE,
            unknown_result_points: None,
            rounds: None,
            crosstable,
            byes: Vec::new(),
            adjustment_kinds: Vec::new(),
            ranks: BTreeMap::new(),
            recorded_points: BTreeMap::new(),
            other_records: Vec::new(),
        }
    }

    /// The participants whose points column disagrees with the points their
    /// rounds and adjustments give under [`TrfFile::scoring`] (participants
    /// with a blank points column are not compared).
    #[must_use]
    pub fn point_mismatches(&self) -> Vec<PointMismatch> {
        self.recorded_points
            .iter()
            .filter_map(|(&participant, &recorded)| {
                let computed = self.crosstable.points(participant, &self.scoring, None);
                (computed != recorded).then_some(PointMismatch { participant, recorded, computed })
            })
            .collect()
    }
}

impl fmt::Display for TrfFile {
    /// The file in TRF26, LF line ends (see [`write()`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write(self))
    }
}

/// A participant whose points column disagrees with the crosstable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointMismatch {
    pub participant: StartNumber,
    /// The points column.
    pub recorded: Points,
    /// The points of the rounds and adjustments.
    pub computed: Points,
}

/// A `240` record: byes given in advance to one or more participants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByeRecord {
    /// `F`, `H` or `Z` (a pairing-allocated bye is never announced).
    pub kind: ByeKind,
    pub round: RoundNumber,
    pub participants: Vec<StartNumber>,
}

/// The type of an abnormal point assignment (`299`, column 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignmentKind {
    /// `W`.
    Win,
    /// `D`.
    Draw,
    /// `L`.
    Loss,
    /// `F`.
    FullPointBye,
    /// `H`.
    HalfPointBye,
    /// `Z`.
    ZeroPointBye,
    /// `+`.
    ForfeitWin,
    /// `-`.
    ForfeitLoss,
}

impl AssignmentKind {
    const fn code(self) -> char {
        match self {
            AssignmentKind::Win => 'W',
            AssignmentKind::Draw => 'D',
            AssignmentKind::Loss => 'L',
            AssignmentKind::FullPointBye => 'F',
            AssignmentKind::HalfPointBye => 'H',
            AssignmentKind::ZeroPointBye => 'Z',
            AssignmentKind::ForfeitWin => '+',
            AssignmentKind::ForfeitLoss => '-',
        }
    }

    fn from_code(c: char) -> Option<AssignmentKind> {
        Some(match c.to_ascii_uppercase() {
            'W' => AssignmentKind::Win,
            'D' => AssignmentKind::Draw,
            'L' => AssignmentKind::Loss,
            'F' => AssignmentKind::FullPointBye,
            'H' => AssignmentKind::HalfPointBye,
            'Z' => AssignmentKind::ZeroPointBye,
            '+' => AssignmentKind::ForfeitWin,
            '-' => AssignmentKind::ForfeitLoss,
            _ => return None,
        })
    }
}

/// Positions on a line, 1-based and inclusive as the specification counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    pub first: usize,
    pub last: usize,
}

impl Columns {
    const fn new(first: usize, last: usize) -> Columns {
        Columns { first, last }
    }

    const fn one(column: usize) -> Columns {
        Columns { first: column, last: column }
    }
}

impl fmt::Display for Columns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "column {}", self.first)
        } else {
            write!(f, "columns {}-{}", self.first, self.last)
        }
    }
}

/// A field of a record, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `001` starting rank.
    StartRank,
    /// `001` sex.
    Sex,
    /// `001` FIDE rating.
    Rating,
    /// `001` FIDE number.
    FideId,
    /// `001` birth date.
    BirthDate,
    /// `001` points.
    Points,
    /// `001` rank.
    Rank,
    /// `001` opponent of a round.
    Opponent(u16),
    /// `062`/`072` a number of players.
    Count,
    /// `XXR` number of rounds.
    Rounds,
    /// `162` result code.
    ScoringCode,
    /// `162` points.
    ScoringPoints,
    /// `240` type of bye.
    ByeType,
    /// `240` or `299` round.
    Round,
    /// `240` or `299` participant.
    Participant,
    /// `299` type of assignment.
    AssignmentType,
    /// `299` points.
    AssignmentPoints,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::StartRank => f.write_str("starting rank"),
            Field::Sex => f.write_str("sex"),
            Field::Rating => f.write_str("FIDE rating"),
            Field::FideId => f.write_str("FIDE number"),
            Field::BirthDate => f.write_str("birth date"),
            Field::Points => f.write_str("points"),
            Field::Rank => f.write_str("rank"),
            Field::Opponent(round) => write!(f, "round {round} opponent"),
            Field::Count => f.write_str("number of players"),
            Field::Rounds => f.write_str("number of rounds"),
            Field::ScoringCode => f.write_str("scoring result code"),
            Field::ScoringPoints => f.write_str("scoring points"),
            Field::ByeType => f.write_str("type of bye"),
            Field::Round => f.write_str("round number"),
            Field::Participant => f.write_str("participant"),
            Field::AssignmentType => f.write_str("type of assignment"),
            Field::AssignmentPoints => f.write_str("assigned points"),
        }
    }
}

/// What is wrong with a round field of a `001` record whose parts are each
/// valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundProblem {
    /// A bye code (`H F U Z`) next to an opponent.
    ByeWithOpponent(char),
    /// A game result (`1 = 0 W D L`) without an opponent.
    ResultWithoutOpponent(char),
    /// A colour without an opponent.
    ColourWithoutOpponent,
    /// A game (played, under one move, or not finished) without a colour.
    MissingColour,
}

impl fmt::Display for RoundProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundProblem::ByeWithOpponent(c) => write!(f, "bye code `{c}` next to an opponent"),
            RoundProblem::ResultWithoutOpponent(c) => write!(f, "game result `{c}` without an opponent"),
            RoundProblem::ColourWithoutOpponent => f.write_str("a colour without an opponent"),
            RoundProblem::MissingColour => f.write_str("a game against an opponent without a colour"),
        }
    }
}

/// Why a text is not a TRF26 file this module can read. Every error names
/// the line (1-based) and, where one field is at fault, its columns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrfError {
    #[error("line {line}, {columns} ({field}): found {found:?}, expected {expected}")]
    BadField { line: usize, columns: Columns, field: Field, found: String, expected: &'static str },
    #[error(
        "line {line}, column {column} (round {round} result): unknown result code {code:?}, expected one of 1 = 0 + - W D L H F U Z or blank"
    )]
    UnknownResultCode { line: usize, column: usize, round: u16, code: char },
    #[error(
        "line {line}, column {column} (round {round} colour): unknown colour {found:?}, expected w, b, - or blank"
    )]
    UnknownColour { line: usize, column: usize, round: u16, found: char },
    #[error("line {line}, column {column}: expected a blank between fields, found {found:?}")]
    NotBlank { line: usize, column: usize, found: char },
    #[error("line {line}, {columns} (round {round}): {problem}")]
    InconsistentRound { line: usize, columns: Columns, round: u16, problem: RoundProblem },
    #[error("line {line}: start number {number} was already given on line {first_line}")]
    DuplicateStartNumber { line: usize, first_line: usize, number: StartNumber },
    #[error("line {line}: record {tag} was already given on line {first_line}")]
    DuplicateRecord { line: usize, first_line: usize, tag: &'static str },
    #[error("line {line}, {columns}: start number {number} has no 001 record")]
    UnknownParticipant { line: usize, columns: Columns, number: StartNumber },
    #[error("line {line}: {source}")]
    Crosstable {
        line: usize,
        #[source]
        source: CrosstableError,
    },
}

impl TrfError {
    /// The line (1-based) the error is on.
    #[must_use]
    pub const fn line(&self) -> usize {
        match self {
            TrfError::BadField { line, .. }
            | TrfError::UnknownResultCode { line, .. }
            | TrfError::UnknownColour { line, .. }
            | TrfError::NotBlank { line, .. }
            | TrfError::InconsistentRound { line, .. }
            | TrfError::DuplicateStartNumber { line, .. }
            | TrfError::DuplicateRecord { line, .. }
            | TrfError::UnknownParticipant { line, .. }
            | TrfError::Crosstable { line, .. } => *line,
        }
    }
}

/// The lines of `text`, split at LF, CRLF or CR alone, without their ends.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                i += 1;
                start = i;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                i += if bytes.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// A line as characters, read by the specification's 1-based columns
/// (positions past the end read as blanks).
struct Line {
    chars: Vec<char>,
    number: usize,
}

impl Line {
    fn new(text: &str, number: usize) -> Line {
        Line { chars: text.trim_end().chars().collect(), number }
    }

    fn at(&self, column: usize) -> char {
        self.chars.get(column - 1).copied().unwrap_or(' ')
    }

    fn text(&self, columns: Columns) -> String {
        (columns.first..=columns.last).map(|c| self.at(c)).collect()
    }

    /// The trimmed text after the record identifier.
    fn value(&self) -> String {
        self.chars.iter().skip(4).collect::<String>().trim().to_owned()
    }

    fn len(&self) -> usize {
        self.chars.len()
    }

    fn bad(&self, columns: Columns, field: Field, expected: &'static str) -> TrfError {
        TrfError::BadField {
            line: self.number,
            columns,
            field,
            found: self.text(columns).trim().to_owned(),
            expected,
        }
    }

    /// A number in `columns`, `None` when blank.
    fn number<T: std::str::FromStr>(
        &self,
        columns: Columns,
        field: Field,
        expected: &'static str,
    ) -> Result<Option<T>, TrfError> {
        let text = self.text(columns);
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.bad(columns, field, expected));
        }
        text.parse().map(Some).map_err(|_| self.bad(columns, field, expected))
    }

    fn start_number(&self, columns: Columns, field: Field) -> Result<Option<StartNumber>, TrfError> {
        const EXPECTED: &str = "a start number from 1 to 9999";
        match self.number::<u16>(columns, field, EXPECTED)? {
            None => Ok(None),
            Some(n) => StartNumber::new(n).map(Some).map_err(|_| self.bad(columns, field, EXPECTED)),
        }
    }

    fn points(&self, columns: Columns, field: Field) -> Result<Option<Points>, TrfError> {
        let text = self.text(columns);
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        parse_points(text).map(Some).ok_or_else(|| self.bad(columns, field, "points such as 4.0 or 11.5"))
    }
}

/// `4`, `4.0`, `4.5`, `-1.0`: whole or half points.
fn parse_points(text: &str) -> Option<Points> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i32 = whole.parse().ok()?;
    let half = match fraction {
        "" | "0" | "00" => 0,
        "5" | "50" => 1,
        _ => return None,
    };
    let halves = whole.checked_mul(2)?.checked_add(half)?;
    Some(Points::from_halves(if negative { -halves } else { halves }))
}

/// Points as TRF writes them: `4.0`, `11.5`, `-0.5`.
fn format_points(points: Points) -> String {
    let halves = points.halves();
    let sign = if halves < 0 { "-" } else { "" };
    let abs = halves.unsigned_abs();
    format!("{sign}{}.{}", abs / 2, if abs % 2 == 1 { 5 } else { 0 })
}

fn parse_birth(line: &Line) -> Result<Option<BirthDate>, TrfError> {
    const COLUMNS: Columns = Columns::new(70, 79);
    const EXPECTED: &str = "a date YYYY/MM/DD or a year YYYY";
    let text = line.text(COLUMNS);
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || line.bad(COLUMNS, Field::BirthDate, EXPECTED);
    let number = |s: &str, len: usize| -> Result<u16, TrfError> {
        if s.len() == len && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let parts: Vec<&str> = text.split(['/', '-', '.']).collect();
    let (year, month, day) = match parts.as_slice() {
        [y] => (number(y, 4)?, 0, 0),
        [y, m, d] if y.len() == 4 => (number(y, 4)?, number(m, 2)?, number(d, 2)?),
        [d, m, y] if y.len() == 4 => (number(y, 4)?, number(m, 2)?, number(d, 2)?),
        _ => return Err(bad()),
    };
    if year == 0 {
        return Ok(None);
    }
    if month == 0 || day == 0 {
        return Ok(Some(BirthDate::Year(year)));
    }
    let month = u8::try_from(month).map_err(|_| bad())?;
    let day = u8::try_from(day).map_err(|_| bad())?;
    CalendarDate::new(year, month, day).map(|d| Some(BirthDate::Date(d))).map_err(|_| bad())
}

fn format_birth(birth: BirthDate) -> String {
    match birth {
        BirthDate::Year(y) => format!("{y:04}"),
        BirthDate::Date(d) => d.to_string().replace('-', "/"),
    }
}

/// One `001` record as read: the participant and the columns the
/// crosstable does not hold.
struct PlayerRecord {
    participant: Participant,
    points: Option<Points>,
    rank: Option<u16>,
}

/// The first column of round `index`'s field (0-based index).
const fn round_column(index: usize) -> usize {
    92 + 10 * index
}

fn read_player(line: &Line) -> Result<PlayerRecord, TrfError> {
    let number_columns = Columns::new(5, 8);
    let number = line
        .start_number(number_columns, Field::StartRank)?
        .ok_or_else(|| line.bad(number_columns, Field::StartRank, "a start number from 1 to 9999"))?;
    let mut p = Participant::new(number, line.text(Columns::new(15, 47)).trim());
    p.sex = match line.at(10).to_ascii_lowercase() {
        ' ' => None,
        'm' => Some(Sex::Male),
        'w' | 'f' => Some(Sex::Female),
        _ => return Err(line.bad(Columns::one(10), Field::Sex, "m, w or blank")),
    };
    let title = line.text(Columns::new(11, 13));
    p.title = Some(title.trim().to_owned()).filter(|t| !t.is_empty());
    p.rating = line
        .number::<u16>(Columns::new(49, 52), Field::Rating, "a rating or blank")?
        .filter(|&r| r != 0)
        .map(Rating::new);
    let federation = line.text(Columns::new(54, 56));
    p.federation = Some(federation.trim().to_owned()).filter(|f| !f.is_empty());
    p.fide_id = line
        .number::<u64>(Columns::new(58, 68), Field::FideId, "a FIDE number or blank")?
        .filter(|&id| id != 0);
    p.birth = parse_birth(line)?;
    let points = line.points(Columns::new(81, 84), Field::Points)?;
    let rank = line.number::<u16>(Columns::new(86, 89), Field::Rank, "a rank or blank")?;

    if line.len() >= round_column(0) {
        let fields = (line.len() - round_column(0)) / 10 + 1;
        for index in 0..fields {
            p.rounds.push(read_round(line, index)?);
        }
    }
    Ok(PlayerRecord { participant: p, points, rank })
}

fn read_round(line: &Line, index: usize) -> Result<RoundEntry, TrfError> {
    let first = round_column(index);
    let round = u16::try_from(index + 1).unwrap_or(u16::MAX);
    for column in [first + 4, first + 6, first + 8, first + 9] {
        if line.at(column) != ' ' {
            return Err(TrfError::NotBlank { line: line.number, column, found: line.at(column) });
        }
    }
    let opponent_columns = Columns::new(first, first + 3);
    let opponent_text = line.text(opponent_columns);
    let colour = line.at(first + 5);
    let code = line.at(first + 7);
    if opponent_text.trim().is_empty() && colour == ' ' && code == ' ' {
        return Ok(RoundEntry::Unpaired);
    }
    let opponent = if opponent_text.trim().bytes().all(|b| b == b'0') {
        None
    } else {
        line.start_number(opponent_columns, Field::Opponent(round))?
    };
    let color = match colour {
        'w' | 'W' => Some(Color::White),
        'b' | 'B' => Some(Color::Black),
        '-' | ' ' => None,
        found => return Err(TrfError::UnknownColour { line: line.number, column: first + 5, round, found }),
    };
    let inconsistent = |problem| TrfError::InconsistentRound {
        line: line.number,
        columns: Columns::new(first, first + 7),
        round,
        problem,
    };
    let upper = code.to_ascii_uppercase();
    let outcome = match upper {
        '1' => Some(GameOutcome::Played(Score::Win)),
        '=' => Some(GameOutcome::Played(Score::Draw)),
        '0' => Some(GameOutcome::Played(Score::Loss)),
        'W' => Some(GameOutcome::UnderOneMove(Score::Win)),
        'D' => Some(GameOutcome::UnderOneMove(Score::Draw)),
        'L' => Some(GameOutcome::UnderOneMove(Score::Loss)),
        '+' => Some(GameOutcome::Forfeit { won: true }),
        '-' => Some(GameOutcome::Forfeit { won: false }),
        'H' | 'F' | 'U' | 'Z' | ' ' => None,
        _ => return Err(TrfError::UnknownResultCode { line: line.number, column: first + 7, round, code }),
    };
    let bye = match upper {
        'H' => Some(ByeKind::HalfPoint),
        'F' => Some(ByeKind::FullPoint),
        'U' => Some(ByeKind::PairingAllocated),
        'Z' => Some(ByeKind::ZeroPoint),
        _ => None,
    };
    match opponent {
        Some(opponent) => {
            if bye.is_some() {
                return Err(inconsistent(RoundProblem::ByeWithOpponent(code)));
            }
            if color.is_none() && !matches!(outcome, Some(GameOutcome::Forfeit { .. })) {
                return Err(inconsistent(RoundProblem::MissingColour));
            }
            Ok(RoundEntry::Paired { opponent, color, outcome })
        }
        None => {
            if color.is_some() {
                return Err(inconsistent(RoundProblem::ColourWithoutOpponent));
            }
            Ok(match (bye, upper) {
                (Some(kind), _) => RoundEntry::Bye(kind),
                (None, ' ') => RoundEntry::Unpaired,
                // JaVaFo's TRF(x) byes, as bbpPairings still reads them.
                (None, '+') => RoundEntry::Bye(ByeKind::PairingAllocated),
                (None, '-') => RoundEntry::Bye(ByeKind::ZeroPoint),
                (None, '=') => RoundEntry::Bye(ByeKind::HalfPoint),
                (None, _) => return Err(inconsistent(RoundProblem::ResultWithoutOpponent(code))),
            })
        }
    }
}

/// The `162` codes and points, in the order given.
fn read_scoring(line: &Line) -> Result<Vec<(char, Points)>, TrfError> {
    let mut out = Vec::new();
    let mut column = 5;
    let next_token = |from: usize| -> Option<(usize, usize)> {
        let start = (from..=line.len()).find(|&c| line.at(c) != ' ')?;
        let end = (start..=line.len()).take_while(|&c| line.at(c) != ' ').last().unwrap_or(start);
        Some((start, end))
    };
    while let Some((start, end)) = next_token(column) {
        let code = line.at(start).to_ascii_uppercase();
        if !matches!(code, 'W' | 'D' | 'L' | 'A' | 'P' | 'X') {
            return Err(line.bad(Columns::one(start), Field::ScoringCode, "one of W D L A P X"));
        }
        let value = if end > start {
            Columns::new(start + 1, end)
        } else {
            let Some((s, e)) = next_token(end + 1) else {
                return Err(line.bad(
                    Columns::new(start + 1, start + 4),
                    Field::ScoringPoints,
                    "points such as 1.0",
                ));
            };
            Columns::new(s, e)
        };
        let points = line
            .points(value, Field::ScoringPoints)?
            .ok_or_else(|| line.bad(value, Field::ScoringPoints, "points such as 1.0"))?;
        out.push((code, points));
        column = value.last + 1;
    }
    Ok(out)
}

fn apply_scoring(codes: &[(char, Points)]) -> (Scoring, Option<Points>) {
    let mut s = Scoring::FIDE;
    let value = |code: char| codes.iter().rev().find(|(c, _)| *c == code).map(|(_, p)| *p);
    if let Some(w) = value('W') {
        s.win = w;
        s.forfeit_win = w;
        s.full_point_bye = w;
        s.pairing_allocated_bye = w;
    }
    if let Some(d) = value('D') {
        s.draw = d;
        s.half_point_bye = d;
    }
    if let Some(l) = value('L') {
        s.loss = l;
    }
    if let Some(a) = value('A') {
        s.zero_point_bye = a;
        s.forfeit_loss = a;
    }
    if let Some(p) = value('P') {
        s.pairing_allocated_bye = p;
    }
    (s, value('X'))
}

fn read_bye(line: &Line) -> Result<(ByeRecord, Vec<(StartNumber, Columns)>), TrfError> {
    let kind = match line.at(5).to_ascii_uppercase() {
        'F' => ByeKind::FullPoint,
        'H' => ByeKind::HalfPoint,
        'Z' => ByeKind::ZeroPoint,
        _ => return Err(line.bad(Columns::one(5), Field::ByeType, "F, H or Z")),
    };
    let round = read_round_number(line, Columns::new(7, 9))?
        .ok_or_else(|| line.bad(Columns::new(7, 9), Field::Round, "a round number"))?;
    let participants = read_participant_list(line, 11)?;
    if participants.is_empty() {
        return Err(line.bad(Columns::new(11, 14), Field::Participant, "at least one start number"));
    }
    let record = ByeRecord { kind, round, participants: participants.iter().map(|(n, _)| *n).collect() };
    Ok((record, participants))
}

fn read_round_number(line: &Line, columns: Columns) -> Result<Option<RoundNumber>, TrfError> {
    match line.number::<u16>(columns, Field::Round, "a round number")? {
        None | Some(0) => Ok(None),
        Some(n) => {
            RoundNumber::new(n).map(Some).map_err(|_| line.bad(columns, Field::Round, "a round number"))
        }
    }
}

/// Start numbers in four columns every five, from `first`.
fn read_participant_list(line: &Line, first: usize) -> Result<Vec<(StartNumber, Columns)>, TrfError> {
    let mut out = Vec::new();
    let mut column = first;
    while column <= line.len() {
        let columns = Columns::new(column, column + 3);
        if line.at(column - 1) != ' ' {
            return Err(TrfError::NotBlank {
                line: line.number,
                column: column - 1,
                found: line.at(column - 1),
            });
        }
        match line.start_number(columns, Field::Participant)? {
            Some(n) => out.push((n, columns)),
            None => return Err(line.bad(columns, Field::Participant, "a start number from 1 to 9999")),
        }
        column += 5;
    }
    Ok(out)
}

/// A `299` record read: its adjustments, their kind, and where each
/// participant was named. `None` for a team record (match points given).
type Assignment = (Vec<PointAdjustment>, Option<AssignmentKind>, Vec<(StartNumber, Columns)>);

fn read_assignment(line: &Line) -> Result<Option<Assignment>, TrfError> {
    if !line.text(Columns::new(8, 11)).trim().is_empty() {
        return Ok(None);
    }
    let kind = match line.at(5) {
        ' ' => None,
        c => Some(AssignmentKind::from_code(c).ok_or_else(|| {
            line.bad(Columns::one(5), Field::AssignmentType, "one of W D L F H Z + - or blank")
        })?),
    };
    let points_columns = Columns::new(14, 17);
    let points = line
        .points(points_columns, Field::AssignmentPoints)?
        .ok_or_else(|| line.bad(points_columns, Field::AssignmentPoints, "points such as -1.0"))?;
    let round = read_round_number(line, Columns::new(20, 22))?;
    let participants = read_participant_list(line, 24)?;
    if participants.is_empty() {
        return Err(line.bad(Columns::new(24, 27), Field::Participant, "at least one start number"));
    }
    let adjustments =
        participants.iter().map(|&(participant, _)| PointAdjustment { participant, round, points }).collect();
    Ok(Some((adjustments, kind, participants)))
}

/// The participant a crosstable error is about (whose `001` line to name).
const fn subject(error: &CrosstableError) -> Option<StartNumber> {
    match *error {
        CrosstableError::UnknownOpponent { participant, .. }
        | CrosstableError::PairedWithSelf { participant, .. }
        | CrosstableError::OneSidedPairing { participant, .. } => Some(participant),
        CrosstableError::ColoursDisagree { white, .. } => Some(white),
        CrosstableError::ResultsDisagree { first, .. } => Some(first),
        CrosstableError::DuplicateStartNumber(n) | CrosstableError::UnknownAdjustedParticipant(n) => Some(n),
        CrosstableError::StartNumberOutOfRange(_) | CrosstableError::RoundOutOfRange(_) => None,
    }
}

/// Reads a TRF26 file.
///
/// # Errors
///
/// A [`TrfError`] naming the line (and the columns, where one field is at
/// fault): a malformed field, an unknown result code or colour, a round field
/// whose parts do not fit together, a start number given twice, a modelled
/// header record given twice, a `240`/`299` naming no participant of the
/// event, or two `001` records that disagree about a game (the crosstable's
/// check, on the line of the first participant it names).
pub fn read(text: &str) -> Result<TrfFile, TrfError> {
    let mut file = TrfFile::new(
        Crosstable::new(Vec::new(), Vec::new()).map_err(|source| TrfError::Crosstable { line: 0, source })?,
    );
    let mut seen: HashMap<&'static str, usize> = HashMap::new();
    let mut players: Vec<Participant> = Vec::new();
    let mut player_lines: BTreeMap<StartNumber, usize> = BTreeMap::new();
    let mut adjustments: Vec<PointAdjustment> = Vec::new();
    let mut named: Vec<(usize, StartNumber, Columns)> = Vec::new();
    let mut scoring_codes: Vec<(char, Points)> = Vec::new();
    let mut last_line = 0;

    for (index, text) in split_lines(text).into_iter().enumerate() {
        let number = index + 1;
        last_line = number;
        if text.trim().is_empty() {
            continue;
        }
        let line = Line::new(text, number);
        let tag: String = line.chars.iter().take(3).collect();
        let mut once = |tag: &'static str| match seen.insert(tag, number) {
            Some(first_line) => Err(TrfError::DuplicateRecord { line: number, first_line, tag }),
            None => Ok(()),
        };
        let text_value = |line: &Line| Some(line.value());
        match tag.as_str() {
            "001" => {
                let record = read_player(&line)?;
                let n = record.participant.number;
                if let Some(&first_line) = player_lines.get(&n) {
                    return Err(TrfError::DuplicateStartNumber { line: number, first_line, number: n });
                }
                player_lines.insert(n, number);
                if let Some(points) = record.points {
                    file.recorded_points.insert(n, points);
                }
                if let Some(rank) = record.rank {
                    file.ranks.insert(n, rank);
                }
                players.push(record.participant);
            }
            "012" => {
                once("012")?;
                file.name = text_value(&line);
            }
            "022" => {
                once("022")?;
                file.city = text_value(&line);
            }
            "032" => {
                once("032")?;
                file.federation = text_value(&line);
            }
            "042" => {
                once("042")?;
                file.start_date = text_value(&line);
            }
            "052" => {
                once("052")?;
                file.end_date = text_value(&line);
            }
            "062" => {
                once("062")?;
                file.player_count =
                    line.number(Columns::new(5, line.len().max(5)), Field::Count, "a number")?;
            }
            "072" => {
                once("072")?;
                file.rated_player_count =
                    line.number(Columns::new(5, line.len().max(5)), Field::Count, "a number")?;
            }
            "092" => {
                once("092")?;
                file.tournament_type = text_value(&line);
            }
            "102" => {
                once("102")?;
                file.chief_arbiter = text_value(&line);
            }
            "122" => {
                once("122")?;
                file.allotted_time = text_value(&line);
            }
            "222" => {
                once("222")?;
                file.time_control = text_value(&line);
            }
            "XXR" => {
                once("XXR")?;
                file.rounds =
                    line.number(Columns::new(5, line.len().max(5)), Field::Rounds, "a number of rounds")?;
            }
            "162" => scoring_codes.extend(read_scoring(&line)?),
            "240" => {
                let (record, participants) = read_bye(&line)?;
                named.extend(participants.into_iter().map(|(n, c)| (number, n, c)));
                file.byes.push(record);
            }
            "299" => match read_assignment(&line)? {
                Some((adjusted, kind, participants)) => {
                    if let Some(kind) = kind {
                        file.adjustment_kinds.extend(adjusted.iter().map(|a| (*a, kind)));
                    }
                    named.extend(participants.into_iter().map(|(n, c)| (number, n, c)));
                    adjustments.extend(adjusted);
                }
                None => file.other_records.push(text.to_owned()),
            },
            _ => file.other_records.push(text.to_owned()),
        }
    }

    for &(line, number, columns) in &named {
        if !player_lines.contains_key(&number) {
            return Err(TrfError::UnknownParticipant { line, columns, number });
        }
    }
    (file.scoring, file.unknown_result_points) = apply_scoring(&scoring_codes);
    file.crosstable = Crosstable::new(players, adjustments).map_err(|source| {
        let line = subject(&source).and_then(|n| player_lines.get(&n).copied()).unwrap_or(last_line);
        TrfError::Crosstable { line, source }
    })?;
    Ok(file)
}

/// A line being written, in the specification's 1-based columns.
struct LineBuf(Vec<char>);

impl LineBuf {
    fn new(tag: &str) -> LineBuf {
        LineBuf(tag.chars().collect())
    }

    fn put(&mut self, column: usize, text: &str) {
        let chars: Vec<char> = text.chars().collect();
        let end = column - 1 + chars.len();
        if self.0.len() < end {
            self.0.resize(end, ' ');
        }
        self.0[column - 1..end].copy_from_slice(&chars);
    }

    /// `text` right-aligned in `width` columns from `column` (longer text
    /// runs to the left, into the separator before the field).
    fn right(&mut self, column: usize, width: usize, text: &str) {
        let len = text.chars().count();
        if len >= width {
            self.put((column + width).saturating_sub(len).max(1), text);
        } else {
            self.put(column + width - len, text);
        }
    }

    /// `text` left-aligned, cut to `width` columns.
    fn left(&mut self, column: usize, width: usize, text: &str) {
        let cut: String = text.chars().take(width).collect();
        self.put(column, &cut);
    }

    fn finish(self) -> String {
        let s: String = self.0.into_iter().collect();
        s.trim_end().to_owned()
    }
}

fn result_code(entry: RoundEntry) -> (Option<StartNumber>, char, char) {
    match entry {
        RoundEntry::Paired { opponent, color, outcome } => {
            let colour = match color {
                Some(Color::White) => 'w',
                Some(Color::Black) => 'b',
                None => '-',
            };
            let code = match outcome {
                None => ' ',
                Some(GameOutcome::Played(Score::Win)) => '1',
                Some(GameOutcome::Played(Score::Draw)) => '=',
                Some(GameOutcome::Played(Score::Loss)) => '0',
                Some(GameOutcome::UnderOneMove(Score::Win)) => 'W',
                Some(GameOutcome::UnderOneMove(Score::Draw)) => 'D',
                Some(GameOutcome::UnderOneMove(Score::Loss)) => 'L',
                Some(GameOutcome::Forfeit { won: true }) => '+',
                Some(GameOutcome::Forfeit { won: false }) => '-',
            };
            (Some(opponent), colour, code)
        }
        RoundEntry::Bye(kind) => {
            let code = match kind {
                ByeKind::HalfPoint => 'H',
                ByeKind::FullPoint => 'F',
                ByeKind::PairingAllocated => 'U',
                ByeKind::ZeroPoint => 'Z',
            };
            (None, '-', code)
        }
        RoundEntry::Unpaired => (None, '-', ' '),
    }
}

fn write_player(file: &TrfFile, p: &Participant) -> String {
    let mut l = LineBuf::new("001");
    l.right(5, 4, &p.number.to_string());
    match p.sex {
        Some(Sex::Male) => l.put(10, "m"),
        Some(Sex::Female) => l.put(10, "w"),
        None => {}
    }
    if let Some(title) = &p.title {
        let title: String = title.chars().take(3).collect();
        l.right(11, 3, &title);
    }
    l.left(15, 33, &p.name);
    if let Some(rating) = p.rating {
        l.right(49, 4, &rating.get().to_string());
    }
    if let Some(federation) = &p.federation {
        l.left(54, 3, federation);
    }
    if let Some(id) = p.fide_id {
        l.right(58, 11, &id.to_string());
    }
    if let Some(birth) = p.birth {
        l.left(70, 10, &format_birth(birth));
    }
    let points = file.crosstable.points(p.number, &file.scoring, None);
    l.right(81, 4, &format_points(points));
    if let Some(rank) = file.ranks.get(&p.number) {
        l.right(86, 4, &rank.to_string());
    }
    for (index, entry) in p.rounds.iter().enumerate() {
        if *entry == RoundEntry::Unpaired {
            continue;
        }
        let first = round_column(index);
        let (opponent, colour, code) = result_code(*entry);
        l.right(first, 4, &opponent.map_or_else(|| "0000".to_owned(), |n| n.to_string()));
        l.put(first + 5, &colour.to_string());
        l.put(first + 7, &code.to_string());
    }
    l.finish()
}

fn write_scoring(file: &TrfFile) -> Option<String> {
    if file.scoring == Scoring::FIDE && file.unknown_result_points.is_none() {
        return None;
    }
    let s = &file.scoring;
    let mut codes = vec![
        ('W', s.win),
        ('D', s.draw),
        ('L', s.loss),
        ('A', s.zero_point_bye),
        ('P', s.pairing_allocated_bye),
    ];
    codes.extend(file.unknown_result_points.map(|x| ('X', x)));
    let mut l = LineBuf::new("162");
    for (i, (code, points)) in codes.into_iter().enumerate() {
        let column = 6 + 9 * i;
        l.put(column, &code.to_string());
        l.right(column + 1, 4, &format_points(points));
    }
    Some(l.finish())
}

/// The file in TRF26, LF line ends, fixed columns as the specification
/// lays them out (see the module documentation for the record order and
/// the choices made).
#[must_use]
pub fn write(file: &TrfFile) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut text = |tag: &str, value: &Option<String>| {
        if let Some(v) = value {
            lines.push(format!("{tag} {v}").trim_end().to_owned());
        }
    };
    text("012", &file.name);
    text("022", &file.city);
    text("032", &file.federation);
    text("042", &file.start_date);
    text("052", &file.end_date);
    text("062", &file.player_count.map(|n| n.to_string()));
    text("072", &file.rated_player_count.map(|n| n.to_string()));
    text("092", &file.tournament_type);
    text("102", &file.chief_arbiter);
    text("122", &file.allotted_time);
    lines.extend(write_scoring(file));
    let mut text = |tag: &str, value: &Option<String>| {
        if let Some(v) = value {
            lines.push(format!("{tag} {v}").trim_end().to_owned());
        }
    };
    text("222", &file.time_control);
    text("XXR", &file.rounds.map(|n| n.to_string()));
    lines.extend(file.other_records.iter().cloned());
    lines.extend(file.crosstable.participants().iter().map(|p| write_player(file, p)));
    for bye in &file.byes {
        let mut l = LineBuf::new("240");
        let code = match bye.kind {
            ByeKind::FullPoint => "F",
            ByeKind::HalfPoint => "H",
            ByeKind::ZeroPoint => "Z",
            // Not a 240 bye; written as the specification's nearest, never read back as such.
            ByeKind::PairingAllocated => "U",
        };
        l.put(5, code);
        l.put(7, &format!("{:03}", bye.round.get()));
        for (i, n) in bye.participants.iter().enumerate() {
            l.right(11 + 5 * i, 4, &n.to_string());
        }
        lines.push(l.finish());
    }
    for a in file.crosstable.adjustments() {
        let mut l = LineBuf::new("299");
        if let Some((_, kind)) = file.adjustment_kinds.iter().find(|(adj, _)| adj == a) {
            l.put(5, &kind.code().to_string());
        }
        l.right(14, 4, &format_points(a.points));
        l.put(20, &format!("{:03}", a.round.map_or(0, RoundNumber::get)));
        l.right(24, 4, &a.participant.to_string());
        lines.push(l.finish());
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse_and_format() {
        assert_eq!(parse_points("4.0"), Some(Points::whole(4)));
        assert_eq!(parse_points("11.5"), Some(Points::from_halves(23)));
        assert_eq!(parse_points("-0.5"), Some(Points::from_halves(-1)));
        assert_eq!(parse_points("3"), Some(Points::whole(3)));
        assert_eq!(parse_points("1.25"), None);
        assert_eq!(parse_points("x"), None);
        assert_eq!(format_points(Points::from_halves(23)), "11.5");
        assert_eq!(format_points(Points::from_halves(-1)), "-0.5");
        assert_eq!(format_points(Points::ZERO), "0.0");
    }

    #[test]
    fn lines_split_at_every_line_end() {
        assert_eq!(split_lines("a\r\nb\rc\nd"), vec!["a", "b", "c", "d"]);
        assert_eq!(split_lines("a\n\nb\n"), vec!["a", "", "b"]);
    }

    #[test]
    fn scoring_record_sets_the_codes() {
        let line = Line::new("162  W 3.0    D 1.0    L 0.0    A 0.0    P 3.0", 1);
        let codes = read_scoring(&line).unwrap();
        let (s, x) = apply_scoring(&codes);
        assert_eq!(s.win, Points::whole(3));
        assert_eq!(s.full_point_bye, Points::whole(3));
        assert_eq!(s.draw, Points::whole(1));
        assert_eq!(s.half_point_bye, Points::whole(1));
        assert_eq!(x, None);
        let loose = Line::new("162 W3.0 D 1.0", 1);
        assert_eq!(apply_scoring(&read_scoring(&loose).unwrap()).0, s);
    }
}
