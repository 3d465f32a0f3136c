//! Events and rounds as the server keeps them: the stored records
//! ([`record`]), the results of boards with their meaning ([`results`]),
//! and the crosstable that standings, tie-breaks and TRF26 are computed
//! from (built here from the records and the games' ends).
//!
//! The wire calls a tournament an *event* (`events/{event}`); here it is a
//! tournament, because an event is an entry of a game's log.

pub mod alerts;
pub mod record;
pub mod report;
pub mod results;
pub mod standings;

use arbiter_laws::scoring::{CalendarDate, Points, Rating};
use arbiter_tournament::crosstable::{BirthDate, Sex};
use arbiter_tournament::{
    ByeKind, Crosstable, CrosstableError, Participant, PointAdjustment, RoundEntry, RoundNumber, Scoring,
    StartNumber,
};

use self::results::Finished;

/// What a round holds for the crosstable: its record and, per board in
/// order, the board's result once finished.
#[derive(Clone, Debug)]
pub struct RoundFacts {
    pub number: u16,
    pub round: record::Round,
    pub finished: Vec<Option<Finished>>,
}

/// The event's scoring for the crosstable.
#[must_use]
pub fn scoring(s: &record::Scoring) -> Scoring {
    let p = Points::from_halves;
    Scoring {
        win: p(s.win),
        draw: p(s.draw),
        loss: p(s.loss),
        forfeit_win: p(s.forfeit_win),
        forfeit_loss: p(s.forfeit_loss),
        pairing_allocated_bye: p(s.pairing_allocated_bye),
        full_point_bye: p(s.full_point_bye),
        half_point_bye: p(s.half_point_bye),
        zero_point_bye: p(s.zero_point_bye),
    }
}

/// Law 10.1's scoring as a record.
#[must_use]
pub fn fide_scoring() -> record::Scoring {
    let s = Scoring::FIDE;
    record::Scoring {
        win: s.win.halves(),
        draw: s.draw.halves(),
        loss: s.loss.halves(),
        forfeit_win: s.forfeit_win.halves(),
        forfeit_loss: s.forfeit_loss.halves(),
        pairing_allocated_bye: s.pairing_allocated_bye.halves(),
        full_point_bye: s.full_point_bye.halves(),
        half_point_bye: s.half_point_bye.halves(),
        zero_point_bye: s.zero_point_bye.halves(),
    }
}

/// A bye of the records as the crosstable has it.
#[must_use]
pub const fn bye_kind(kind: record::ByeKind) -> ByeKind {
    match kind {
        record::ByeKind::HalfPoint => ByeKind::HalfPoint,
        record::ByeKind::FullPoint => ByeKind::FullPoint,
        record::ByeKind::PairingAllocated => ByeKind::PairingAllocated,
        record::ByeKind::ZeroPoint => ByeKind::ZeroPoint,
    }
}

/// A crosstable bye as recorded.
#[must_use]
pub const fn bye_record(kind: ByeKind) -> record::ByeKind {
    match kind {
        ByeKind::HalfPoint => record::ByeKind::HalfPoint,
        ByeKind::FullPoint => record::ByeKind::FullPoint,
        ByeKind::PairingAllocated => record::ByeKind::PairingAllocated,
        ByeKind::ZeroPoint => record::ByeKind::ZeroPoint,
    }
}

/// `YYYY` or `YYYY/MM/DD` (also with `-` or `.`), if it reads as one.
fn birth(text: &str) -> Option<BirthDate> {
    let parts: Vec<&str> = text.split(['/', '-', '.']).collect();
    match parts.as_slice() {
        [y] => y.parse().ok().map(BirthDate::Year),
        [y, m, d] => {
            let date = CalendarDate::new(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?).ok()?;
            Some(BirthDate::Date(date))
        }
        _ => None,
    }
}

/// A participant of the records, with no rounds yet.
///
/// # Errors
/// [`CrosstableError::StartNumberOutOfRange`] for a start number the
/// records should never hold.
pub fn participant(p: &record::Participant) -> Result<Participant, CrosstableError> {
    let mut out = Participant::new(StartNumber::new(p.number)?, p.name.clone());
    out.fide_id = p.fide_id.parse().ok();
    out.rating = (p.rating > 0).then(|| Rating::new(p.rating));
    out.federation = (!p.federation.is_empty()).then(|| p.federation.clone());
    out.title = (!p.title.is_empty()).then(|| p.title.clone());
    out.sex = match p.sex.as_str() {
        "m" | "M" => Some(Sex::Male),
        "w" | "W" | "f" | "F" => Some(Sex::Female),
        _ => None,
    };
    out.birth = birth(&p.birth);
    Ok(out)
}

/// The crosstable of a tournament after `rounds` (any order; a round not
/// given is a round nobody played).
///
/// # Errors
/// A [`CrosstableError`] if the records contradict each other (a player
/// paired twice in a round cannot be recorded: the round's creation
/// refused it).
pub fn crosstable(t: &record::Tournament, rounds: &[RoundFacts]) -> Result<Crosstable, CrosstableError> {
    let last = rounds.iter().map(|r| r.number).max().unwrap_or(0);
    let mut participants = t.participants.iter().map(participant).collect::<Result<Vec<_>, _>>()?;
    let index: std::collections::HashMap<u16, usize> =
        t.participants.iter().enumerate().map(|(i, p)| (p.number, i)).collect();
    for p in &mut participants {
        p.rounds = vec![RoundEntry::Unpaired; usize::from(last)];
    }
    for facts in rounds {
        let at = usize::from(facts.number) - 1;
        for (board, finished) in facts.round.boards.iter().zip(&facts.finished) {
            let (white, black) = (StartNumber::new(board.white)?, StartNumber::new(board.black)?);
            let (w, b) = match finished {
                Some(f) => (Some(f.white), Some(f.black)),
                None => (None, None),
            };
            for (me, opponent, color, outcome) in [
                (board.white, black, arbiter_chess::Color::White, w),
                (board.black, white, arbiter_chess::Color::Black, b),
            ] {
                if let Some(&i) = index.get(&me) {
                    participants[i].rounds[at] = RoundEntry::Paired { opponent, color: Some(color), outcome };
                }
            }
        }
        for bye in &facts.round.byes {
            if let Some(&i) = index.get(&bye.participant) {
                participants[i].rounds[at] = RoundEntry::Bye(bye_kind(bye.kind));
            }
        }
    }
    let adjustments = t
        .adjustments
        .iter()
        .map(|a| {
            Ok(PointAdjustment {
                participant: StartNumber::new(a.participant)?,
                round: if a.round == 0 { None } else { Some(RoundNumber::new(a.round)?) },
                points: Points::from_halves(a.halves),
            })
        })
        .collect::<Result<Vec<_>, CrosstableError>>()?;
    Crosstable::new(participants, adjustments)
}
