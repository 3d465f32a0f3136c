//! The stored format of tournaments and rounds (`tournaments.spec_json`,
//! `rounds.spec_json`), format 1.
//!
//! The same rule as the game log's (`crate::event_log`): these records are
//! written by hand for storage, never the wire's or another crate's types;
//! a released format is never changed (a new field is a new format), and a
//! row of a newer format is refused, never misread. The event's regulations
//! are kept as a game specification of the game log's format (the template
//! every game of the event is created from), so they are stored, upgraded
//! and read exactly as a game's are.

use serde::{Deserialize, Serialize};

use crate::event_log::{self, FormatError, GameSpec};

/// The newest format of tournament and round records this build reads,
/// and the one it writes.
pub const FORMAT: i64 = 1;

fn check_format(format: i64) -> Result<(), FormatError> {
    match format {
        1..=FORMAT => Ok(()),
        f if f > FORMAT => Err(FormatError::Newer { found: f }),
        f => Err(FormatError::Nonexistent(f)),
    }
}

/// A tournament (an event on the wire).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    pub title: String,
    /// The regulations as a game specification (`event_log` format
    /// `template_format`); its players are empty.
    pub template_format: i64,
    pub template: String,
    pub scoring: Scoring,
    pub tie_breaks: Vec<TieBreak>,
    pub edition: Edition,
    pub grade_points: bool,
    pub participants: Vec<Participant>,
    pub planned_rounds: u16,
    pub city: String,
    pub federation: String,
    pub start_date: String,
    pub end_date: String,
    pub chief_arbiter: String,
    pub broadcast: Broadcast,
    pub adjustments: Vec<Adjustment>,
    /// The rating of unrated participants for tie-breaks; 0: none.
    pub unrated_rating: u16,
    pub round_robin: bool,
    pub forfeits_in_direct_encounter: bool,
}

impl Tournament {
    /// The regulations' template.
    ///
    /// # Errors
    /// As `event_log::decode_spec`.
    pub fn template(&self) -> Result<GameSpec, FormatError> {
        event_log::decode_spec(self.template_format, &self.template)
    }

    /// Sets the template, in the game log's current format.
    pub fn set_template(&mut self, spec: &GameSpec) {
        self.template_format = event_log::FORMAT;
        self.template = event_log::encode_spec(spec);
    }

    /// The participant with this start number.
    #[must_use]
    pub fn participant(&self, number: u16) -> Option<&Participant> {
        self.participants.iter().find(|p| p.number == number)
    }
}

/// Points per kind of round, in half-points.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scoring {
    pub win: i32,
    pub draw: i32,
    pub loss: i32,
    pub forfeit_win: i32,
    pub forfeit_loss: i32,
    pub pairing_allocated_bye: i32,
    pub full_point_bye: i32,
    pub half_point_bye: i32,
    pub zero_point_bye: i32,
}

/// A tie-break of C.07 Article 5.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreakKind {
    DirectEncounter,
    Wins,
    GamesWon,
    GamesWithBlack,
    WinsWithBlack,
    ProgressiveScores,
    RoundsElectedToPlay,
    StandardPoints,
    TournamentPairingNumber,
    Buchholz,
    AverageOfOpponentsBuchholz,
    ForeBuchholz,
    SonnebornBerger,
    Koya,
    AverageRatingOfOpponents,
    TournamentPerformanceRating,
    PerfectTournamentPerformance,
    AveragePerformanceRatingOfOpponents,
    AveragePerfectPerformanceOfOpponents,
    Rating,
}

/// A tie-break with its modifiers (C.07 Article 14).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TieBreak {
    pub kind: TieBreakKind,
    /// Cut-n.
    pub cut: u8,
    /// Median-n.
    pub median: u8,
    /// KS's Limit, in half-points.
    pub koya_limit: i32,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edition {
    August2024,
    March2026,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    pub number: u16,
    pub name: String,
    pub fide_id: String,
    /// 0 if unrated.
    pub rating: u16,
    pub federation: String,
    pub title: String,
    pub sex: String,
    pub birth: String,
    /// 0: by the rules of B02 8.3.3 from what is known.
    pub k_factor: u8,
    /// CN-16 grade points before the event, in ten-thousandths.
    pub grade_points: i64,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Broadcast {
    /// The event has a feed (records written before the feed have none).
    #[serde(default)]
    pub published: bool,
    pub delay_seconds: u32,
    pub push_url: String,
    pub push_token: String,
    /// Spectators may watch without a token (records written before the
    /// spectators' view have it off).
    #[serde(default)]
    pub public_view: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Adjustment {
    pub participant: u16,
    /// 0 for the event as a whole.
    pub round: u16,
    pub halves: i32,
    pub reason: String,
}

/// A round: its boards and byes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub boards: Vec<Board>,
    pub byes: Vec<Bye>,
    /// Where the event's broadcast pushes this round; empty: the event's
    /// push URL, if any.
    #[serde(default)]
    pub push_url: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub number: u16,
    pub white: u16,
    pub black: u16,
    /// The game played on it; `None` for a forfeit known before the round.
    pub game: Option<String>,
    /// The result known before the round (forfeits), White's then Black's.
    pub preset: Option<(Outcome, Outcome)>,
}

/// One side's result of a board decided before it was played.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    ForfeitWin,
    ForfeitLoss,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByeKind {
    HalfPoint,
    FullPoint,
    PairingAllocated,
    ZeroPoint,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bye {
    pub participant: u16,
    pub kind: ByeKind,
}

/// A stored tournament.
///
/// # Errors
/// [`FormatError`] for a format this build does not read or a payload not
/// of its format.
pub fn decode_tournament(format: i64, json: &str) -> Result<Tournament, FormatError> {
    check_format(format)?;
    Ok(serde_json::from_str(json)?)
}

/// A tournament as stored, in [`FORMAT`].
#[must_use]
pub fn encode_tournament(t: &Tournament) -> String {
    serde_json::to_string(t).unwrap_or_default()
}

/// A stored round.
///
/// # Errors
/// As [`decode_tournament`].
pub fn decode_round(format: i64, json: &str) -> Result<Round, FormatError> {
    check_format(format)?;
    Ok(serde_json::from_str(json)?)
}

/// A round as stored, in [`FORMAT`].
#[must_use]
pub fn encode_round(r: &Round) -> String {
    serde_json::to_string(r).unwrap_or_default()
}
