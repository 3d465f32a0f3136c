//! The crosstable: who met whom in which round, with which colour, and how
//! each round ended for each participant — exactly the facts a TRF26 `001`
//! record holds, and the facts every standing, tie-break and rating report
//! is computed from.
//!
//! A [`Crosstable`] is built from [`Participant`]s and checked once
//! ([`Crosstable::new`]): every game appears on both sides with opposite
//! colours and matching results, so the computations built on it never meet
//! a half-recorded game.

use std::fmt;

use arbiter_chess::Color;
use arbiter_laws::scoring::{CalendarDate, Points, Rating, Score};

/// A participant's start number: the TRF "starting rank", 1 to 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StartNumber(u16);

impl StartNumber {
    /// The largest start number a TRF record can hold (four digits).
    pub const MAX: u16 = 9999;

    /// Start number `n`.
    ///
    /// # Errors
    ///
    /// [`CrosstableError::StartNumberOutOfRange`] for 0 or more than 9999.
    pub const fn new(n: u16) -> Result<StartNumber, CrosstableError> {
        if n == 0 || n > Self::MAX {
            Err(CrosstableError::StartNumberOutOfRange(n))
        } else {
            Ok(StartNumber(n))
        }
    }

    /// The number.
    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl fmt::Display for StartNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A round of the event, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RoundNumber(u16);

impl RoundNumber {
    /// Round `n`.
    ///
    /// # Errors
    ///
    /// [`CrosstableError::RoundOutOfRange`] for round 0.
    pub const fn new(n: u16) -> Result<RoundNumber, CrosstableError> {
        if n == 0 { Err(CrosstableError::RoundOutOfRange(n)) } else { Ok(RoundNumber(n)) }
    }

    /// The number.
    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }

    /// The index of this round in a participant's rounds (round 1 is 0).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize - 1
    }
}

impl fmt::Display for RoundNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How a paired round ended for one participant: the meaning TRF26, the
/// Rating Regulations (5.1) and the Tie-Break Regulations (C.07) need, not
/// only the score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameOutcome {
    /// Played over the board: TRF `1`, `=`, `0`. Rated when both players made
    /// a move (which is what distinguishes it from [`GameOutcome::UnderOneMove`]).
    Played(Score),
    /// Unplayed, decided by forfeit: TRF `+` (won by forfeit) or `-` (lost by
    /// forfeit). Both players `-` is a double forfeit. Never rated.
    Forfeit { won: bool },
    /// Played, but the game lasted less than one move: TRF `W`, `D`, `L`.
    /// Scored as a game, counted as played for pairings, never rated
    /// (Rating Regulations 5.1: both players must have made a move).
    UnderOneMove(Score),
}

impl GameOutcome {
    /// Whether the game was played over the board (C.07 7.2, 7.3: WON and BPG
    /// count only those). A game under one move was played; a forfeit was not.
    #[must_use]
    pub const fn is_over_the_board(self) -> bool {
        !matches!(self, GameOutcome::Forfeit { .. })
    }

    /// The score this participant was awarded.
    #[must_use]
    pub const fn score(self) -> Score {
        match self {
            GameOutcome::Played(s) | GameOutcome::UnderOneMove(s) => s,
            GameOutcome::Forfeit { won: true } => Score::Win,
            GameOutcome::Forfeit { won: false } => Score::Loss,
        }
    }

    /// Whether the game counts for FIDE rating (Rating Regulations 5.1).
    #[must_use]
    pub const fn is_rated(self) -> bool {
        matches!(self, GameOutcome::Played(_))
    }
}

/// A round without an opponent (TRF26 result codes `H`, `F`, `U`, `Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByeKind {
    /// `H`: a half-point bye the participant requested.
    HalfPoint,
    /// `F`: a full-point bye (requested, where the regulations give one).
    FullPoint,
    /// `U`: the pairing-allocated bye (the odd participant out).
    PairingAllocated,
    /// `Z`: a zero-point bye (requested or announced absence).
    ZeroPoint,
}

impl ByeKind {
    /// Whether this bye is one C.07 16.1.1 counts as a "voluntary unplayed
    /// round": the half-point and zero-point byes a participant asks for.
    /// A full-point bye (awarded by the regulations) and the
    /// pairing-allocated bye are not.
    #[must_use]
    pub const fn is_voluntary(self) -> bool {
        matches!(self, ByeKind::HalfPoint | ByeKind::ZeroPoint)
    }
}

/// One participant's round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundEntry {
    /// Paired against `opponent`. `color` is `None` only where the pairing
    /// gave no colour (a forfeit recorded without one). `outcome` is `None`
    /// while the game is unfinished.
    Paired { opponent: StartNumber, color: Option<Color>, outcome: Option<GameOutcome> },
    /// No opponent this round.
    Bye(ByeKind),
    /// Not paired and no bye recorded: TRF's blank result (absent,
    /// withdrawn, or not yet paired). Scores nothing.
    Unpaired,
}

impl RoundEntry {
    /// Whether the round was played over the board.
    #[must_use]
    pub const fn is_over_the_board(self) -> bool {
        matches!(self, RoundEntry::Paired { outcome: Some(o), .. } if o.is_over_the_board())
    }
}

/// The points each kind of round gives (TRF26 record `162`; the event's
/// regulations). Forfeits score as a win and a loss unless the regulations
/// say otherwise (Law 10.1); byes follow C.07 and the usual regulations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scoring {
    /// A win over the board (TRF `1`, `W`).
    pub win: Points,
    /// A draw (TRF `=`, `D`).
    pub draw: Points,
    /// A loss (TRF `0`, `L`).
    pub loss: Points,
    /// A win by forfeit (`+`).
    pub forfeit_win: Points,
    /// A loss by forfeit (`-`); some regulations make it less than a loss.
    pub forfeit_loss: Points,
    /// The pairing-allocated bye (`U`).
    pub pairing_allocated_bye: Points,
    /// A full-point bye (`F`).
    pub full_point_bye: Points,
    /// A half-point bye (`H`).
    pub half_point_bye: Points,
    /// A zero-point bye (`Z`) or an unpaired round.
    pub zero_point_bye: Points,
}

impl Scoring {
    /// Law 10.1 and the defaults of TRF26 `162`: 1, ½, 0; forfeits 1 and 0;
    /// the pairing-allocated and full-point byes score a win, the half-point
    /// bye a draw, the zero-point bye nothing.
    pub const FIDE: Scoring = Scoring {
        win: Points::ONE,
        draw: Points::HALF,
        loss: Points::ZERO,
        forfeit_win: Points::ONE,
        forfeit_loss: Points::ZERO,
        pairing_allocated_bye: Points::ONE,
        full_point_bye: Points::ONE,
        half_point_bye: Points::HALF,
        zero_point_bye: Points::ZERO,
    };

    /// The points one round gives (an unfinished game gives none yet).
    #[must_use]
    pub const fn points(&self, entry: RoundEntry) -> Points {
        match entry {
            RoundEntry::Paired { outcome: None, .. } | RoundEntry::Unpaired => Points::ZERO,
            RoundEntry::Paired { outcome: Some(outcome), .. } => match outcome {
                GameOutcome::Played(s) | GameOutcome::UnderOneMove(s) => self.score(s),
                GameOutcome::Forfeit { won: true } => self.forfeit_win,
                GameOutcome::Forfeit { won: false } => self.forfeit_loss,
            },
            RoundEntry::Bye(kind) => match kind {
                ByeKind::HalfPoint => self.half_point_bye,
                ByeKind::FullPoint => self.full_point_bye,
                ByeKind::PairingAllocated => self.pairing_allocated_bye,
                ByeKind::ZeroPoint => self.zero_point_bye,
            },
        }
    }

    /// The points of a score in a game.
    #[must_use]
    pub const fn score(&self, score: Score) -> Points {
        match score {
            Score::Win => self.win,
            Score::Draw => self.draw,
            Score::Loss => self.loss,
        }
    }
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring::FIDE
    }
}

/// Points added to or taken from a participant by the arbiter or the
/// regulations outside the result of a game (TRF26 `299`; Law 12.9.5 where
/// it reduces a score after the game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointAdjustment {
    pub participant: StartNumber,
    /// The round it belongs to, or `None` for the event as a whole.
    pub round: Option<RoundNumber>,
    /// Points added (negative: taken away).
    pub points: Points,
}

/// A participant's sex as TRF26 records it (`001` column 10: `m`, `w`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sex {
    /// `m`.
    Male,
    /// `w`.
    Female,
}

/// A birth date as event files give it: often only the year (TRF26 `001`
/// columns 70–79, `YYYY/MM/DD`; many files write `YYYY` alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BirthDate {
    /// Only the year is known.
    Year(u16),
    /// The full date.
    Date(CalendarDate),
}

impl BirthDate {
    /// The year of birth.
    #[must_use]
    pub const fn year(self) -> u16 {
        match self {
            BirthDate::Year(y) => y,
            BirthDate::Date(d) => d.year(),
        }
    }
}

/// A participant's identity and rounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    pub number: StartNumber,
    pub name: String,
    /// The FIDE id, if the participant has one.
    pub fide_id: Option<u64>,
    /// The FIDE rating, if rated.
    pub rating: Option<Rating>,
    /// Three-letter federation, if known.
    pub federation: Option<String>,
    /// Title as TRF writes it (`GM`, `IM`, `WGM`, `g`, `m`...), if any.
    pub title: Option<String>,
    /// Sex, if recorded.
    pub sex: Option<Sex>,
    /// Birth date or year, if recorded.
    pub birth: Option<BirthDate>,
    /// One entry per round, round 1 first.
    pub rounds: Vec<RoundEntry>,
}

impl Participant {
    /// A participant with no rounds yet.
    #[must_use]
    pub fn new(number: StartNumber, name: impl Into<String>) -> Participant {
        Participant {
            number,
            name: name.into(),
            fide_id: None,
            rating: None,
            federation: None,
            title: None,
            sex: None,
            birth: None,
            rounds: Vec::new(),
        }
    }

    /// This participant's round `round`, or [`RoundEntry::Unpaired`] beyond
    /// the rounds recorded.
    #[must_use]
    pub fn round(&self, round: RoundNumber) -> RoundEntry {
        self.rounds.get(round.index()).copied().unwrap_or(RoundEntry::Unpaired)
    }
}

/// Why a set of participants is not a consistent crosstable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CrosstableError {
    #[error("start number {0} is out of range (1 to 9999)")]
    StartNumberOutOfRange(u16),
    #[error("round {0} is out of range (rounds count from 1)")]
    RoundOutOfRange(u16),
    #[error("start number {0} is used twice")]
    DuplicateStartNumber(StartNumber),
    #[error("round {round}: participant {participant} is paired against {opponent}, who is not in the event")]
    UnknownOpponent { round: RoundNumber, participant: StartNumber, opponent: StartNumber },
    #[error("round {round}: participant {participant} is paired against himself")]
    PairedWithSelf { round: RoundNumber, participant: StartNumber },
    #[error(
        "round {round}: {participant} is recorded against {opponent}, but {opponent}'s round says otherwise"
    )]
    OneSidedPairing { round: RoundNumber, participant: StartNumber, opponent: StartNumber },
    #[error("round {round}: {white} and {black} are recorded with colours that do not oppose each other")]
    ColoursDisagree { round: RoundNumber, white: StartNumber, black: StartNumber },
    #[error("round {round}: the results of {first} and {second} do not fit one game")]
    ResultsDisagree { round: RoundNumber, first: StartNumber, second: StartNumber },
    #[error("point adjustment for {0}, who is not in the event")]
    UnknownAdjustedParticipant(StartNumber),
}

/// Participants and their rounds, checked for consistency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crosstable {
    participants: Vec<Participant>,
    adjustments: Vec<PointAdjustment>,
    rounds: u16,
}

impl Crosstable {
    /// A crosstable of `participants` (any order; kept sorted by start
    /// number) and the arbiter's point adjustments. Every participant is
    /// given the same number of rounds (missing ones are
    /// [`RoundEntry::Unpaired`]).
    ///
    /// # Errors
    ///
    /// A [`CrosstableError`] naming the round and the participants when a
    /// start number is used twice, a pairing names an unknown participant or
    /// the participant himself, the two sides of a game disagree about the
    /// pairing, the colours or the result, or an adjustment names an unknown
    /// participant.
    pub fn new(
        mut participants: Vec<Participant>,
        adjustments: Vec<PointAdjustment>,
    ) -> Result<Crosstable, CrosstableError> {
        participants.sort_by_key(|p| p.number);
        for pair in participants.windows(2) {
            if pair[0].number == pair[1].number {
                return Err(CrosstableError::DuplicateStartNumber(pair[0].number));
            }
        }
        let rounds = participants.iter().map(|p| p.rounds.len()).max().unwrap_or(0);
        let rounds = u16::try_from(rounds).map_err(|_| CrosstableError::RoundOutOfRange(u16::MAX))?;
        for p in &mut participants {
            p.rounds.resize(usize::from(rounds), RoundEntry::Unpaired);
        }
        let table = Crosstable { participants, adjustments, rounds };
        table.check()?;
        Ok(table)
    }

    fn check(&self) -> Result<(), CrosstableError> {
        for a in &self.adjustments {
            if self.participant(a.participant).is_none() {
                return Err(CrosstableError::UnknownAdjustedParticipant(a.participant));
            }
        }
        for p in &self.participants {
            for (index, entry) in p.rounds.iter().enumerate() {
                let RoundEntry::Paired { opponent, color, outcome } = *entry else { continue };
                let round = RoundNumber(index as u16 + 1);
                if opponent == p.number {
                    return Err(CrosstableError::PairedWithSelf { round, participant: p.number });
                }
                let Some(other) = self.participant(opponent) else {
                    return Err(CrosstableError::UnknownOpponent { round, participant: p.number, opponent });
                };
                let RoundEntry::Paired { opponent: back, color: other_color, outcome: other_outcome } =
                    other.round(round)
                else {
                    return Err(CrosstableError::OneSidedPairing { round, participant: p.number, opponent });
                };
                if back != p.number {
                    return Err(CrosstableError::OneSidedPairing { round, participant: p.number, opponent });
                }
                match (color, other_color) {
                    (Some(a), Some(b)) if a == b => {
                        let (white, black) = (p.number.min(opponent), p.number.max(opponent));
                        return Err(CrosstableError::ColoursDisagree { round, white, black });
                    }
                    _ => {}
                }
                if !outcomes_fit(outcome, other_outcome) {
                    return Err(CrosstableError::ResultsDisagree {
                        round,
                        first: p.number,
                        second: opponent,
                    });
                }
            }
        }
        Ok(())
    }

    /// The participants, by start number.
    #[must_use]
    pub fn participants(&self) -> &[Participant] {
        &self.participants
    }

    /// The participant with start number `number`.
    #[must_use]
    pub fn participant(&self, number: StartNumber) -> Option<&Participant> {
        self.participants.binary_search_by_key(&number, |p| p.number).ok().map(|i| &self.participants[i])
    }

    /// The arbiter's point adjustments.
    #[must_use]
    pub fn adjustments(&self) -> &[PointAdjustment] {
        &self.adjustments
    }

    /// The number of rounds recorded.
    #[must_use]
    pub const fn rounds(&self) -> u16 {
        self.rounds
    }

    /// A participant's points after `through` rounds (all rounds with
    /// `None`), adjustments of those rounds and of the whole event included.
    #[must_use]
    pub fn points(&self, number: StartNumber, scoring: &Scoring, through: Option<RoundNumber>) -> Points {
        let Some(p) = self.participant(number) else { return Points::ZERO };
        let last = through.map_or(usize::from(self.rounds), |r| r.index() + 1);
        let games: Points = p.rounds.iter().take(last).map(|e| scoring.points(*e)).sum();
        let adjusted: Points = self
            .adjustments
            .iter()
            .filter(|a| a.participant == number)
            .filter(|a| a.round.is_none_or(|r| r.index() < last))
            .map(|a| a.points)
            .sum();
        games + adjusted
    }
}

/// Whether two sides' outcomes describe one game: both unfinished, or both
/// finished in the same way with scores that fit together (a double forfeit is
/// both sides losing by forfeit; a played game is zero-sum, except 0-0 under
/// Law 11.8 and the arbiter's adjusted results, which a crosstable records as
/// each side's own score).
fn outcomes_fit(a: Option<GameOutcome>, b: Option<GameOutcome>) -> bool {
    matches!(
        (a, b),
        (None, None)
            | (Some(GameOutcome::Forfeit { .. }), Some(GameOutcome::Forfeit { .. }))
            | (Some(GameOutcome::Played(_)), Some(GameOutcome::Played(_)))
            | (Some(GameOutcome::UnderOneMove(_)), Some(GameOutcome::UnderOneMove(_)))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(k: u16) -> StartNumber {
        StartNumber::new(k).unwrap()
    }

    fn game(opponent: u16, color: Color, outcome: GameOutcome) -> RoundEntry {
        RoundEntry::Paired { opponent: n(opponent), color: Some(color), outcome: Some(outcome) }
    }

    #[test]
    fn a_game_must_appear_on_both_sides() {
        let mut a = Participant::new(n(1), "A");
        a.rounds.push(game(2, Color::White, GameOutcome::Played(Score::Win)));
        let b = Participant::new(n(2), "B");
        let err = Crosstable::new(vec![a, b], vec![]).unwrap_err();
        assert_eq!(
            err,
            CrosstableError::OneSidedPairing { round: RoundNumber(1), participant: n(1), opponent: n(2) }
        );
    }

    #[test]
    fn colours_must_oppose_and_results_fit() {
        let mut a = Participant::new(n(1), "A");
        let mut b = Participant::new(n(2), "B");
        a.rounds.push(game(2, Color::White, GameOutcome::Played(Score::Win)));
        b.rounds.push(game(1, Color::White, GameOutcome::Played(Score::Loss)));
        assert!(matches!(
            Crosstable::new(vec![a.clone(), b.clone()], vec![]),
            Err(CrosstableError::ColoursDisagree { .. })
        ));
        b.rounds[0] = game(1, Color::Black, GameOutcome::Forfeit { won: false });
        assert!(matches!(Crosstable::new(vec![a, b], vec![]), Err(CrosstableError::ResultsDisagree { .. })));
    }

    #[test]
    fn points_count_games_byes_and_adjustments() {
        let mut a = Participant::new(n(1), "A");
        let mut b = Participant::new(n(2), "B");
        let mut c = Participant::new(n(3), "C");
        a.rounds = vec![
            game(2, Color::White, GameOutcome::Played(Score::Draw)),
            RoundEntry::Bye(ByeKind::PairingAllocated),
        ];
        b.rounds = vec![
            game(1, Color::Black, GameOutcome::Played(Score::Draw)),
            game(3, Color::White, GameOutcome::Forfeit { won: true }),
        ];
        c.rounds = vec![
            RoundEntry::Bye(ByeKind::HalfPoint),
            game(2, Color::Black, GameOutcome::Forfeit { won: false }),
        ];
        let adjust = PointAdjustment {
            participant: n(3),
            round: Some(RoundNumber(2)),
            points: Points::from_halves(-1),
        };
        let table = Crosstable::new(vec![c, b, a], vec![adjust]).unwrap();
        let s = Scoring::FIDE;
        assert_eq!(table.points(n(1), &s, None), Points::from_halves(3));
        assert_eq!(table.points(n(2), &s, None), Points::from_halves(3));
        assert_eq!(table.points(n(3), &s, None), Points::ZERO);
        assert_eq!(table.points(n(3), &s, Some(RoundNumber(1))), Points::HALF);
        assert_eq!(table.participants()[0].number, n(1));
    }
}
