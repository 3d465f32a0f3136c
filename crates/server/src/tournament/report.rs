//! The event as others read it: a TRF26 file (FIDE's Tournament Report
//! File, 2026), for pairing engines between rounds and for the rating
//! report at the end.

use arbiter_tournament::Crosstable;
use arbiter_tournament::trf::{self, TrfFile};

use super::record;
use crate::event_log::GameSpec;

/// The TRF26 file of `t` with `table` (its rounds so far), the event's
/// regulations in `template`.
#[must_use]
pub fn trf(t: &record::Tournament, template: Option<&GameSpec>, table: Crosstable) -> String {
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let players = table.participants().len();
    let rated = table.participants().iter().filter(|p| p.rating.is_some()).count();
    let rounds = if t.planned_rounds > 0 { t.planned_rounds } else { table.rounds() };
    let mut file = TrfFile::new(table);
    file.name = Some(t.title.clone());
    file.city = non_empty(&t.city);
    file.federation = non_empty(&t.federation);
    file.start_date = non_empty(&t.start_date);
    file.end_date = non_empty(&t.end_date);
    file.player_count = u32::try_from(players).ok();
    file.rated_player_count = u32::try_from(rated).ok();
    file.tournament_type =
        Some(if t.round_robin { "Round robin" } else { "Individual: Swiss-System" }.to_owned());
    file.chief_arbiter = non_empty(&t.chief_arbiter);
    if let Some(spec) = template {
        // Record 222 is the time control in the encoding of PGN's
        // `TimeControl` (`5400+30`, `40/6000+30:900+30`); 122 the same in
        // words for people.
        let tc = &spec.regulations.time_control;
        file.time_control = Some(tc.to_standard_pgn());
        file.allotted_time = Some(tc.to_pgn());
    }
    file.scoring = super::scoring(&t.scoring);
    file.rounds = Some(rounds);
    trf::write(&file)
}
