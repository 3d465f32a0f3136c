//! Tie-breaks (FIDE C.07) and standings against worked examples:
//!
//! - the FIDE Arbiters' Manual (May 2025), chapter 12, questions 21–23 with
//!   their official answers (pp.291, 296–297), and the Manual's "Tiebreak
//!   Examples for Unplayed Games" printed after C.07 (pp.211–212: GM Laxman's
//!   Buchholz 57 / Cut-1 50 / SB 37.25, and "Example 2 for Buchholz Cut 1",
//!   BH-C1 = 11.5); text read in GitHub `pierrealexandreguillemin-a11y/
//!   pocket_arbiter`, `corpus/processed/raw_intl/FIDE_Arbiters_Manual_2025.json`;
//! - the same examples recomputed under the 1 March 2026 text (16.4.1 and
//!   16.4.2 caps), by hand in the comments;
//! - the Manual's rating examples (ch.12 Q14: +5.40; appendix: +56.4);
//! - a hand-computed 8-player, 4-round Swiss with a forfeit, a half-point
//!   bye, a pairing-allocated bye and a game under one move.

use std::collections::BTreeMap;

use arbiter_chess::Color;
use arbiter_laws::scoring::{FideRatingRules, GradePoints, KFactor, Points, Rating, RatingDelta, Score};
use arbiter_tournament::crosstable::{
    ByeKind, Crosstable, GameOutcome, Participant, PointAdjustment, RoundEntry, RoundNumber, Scoring,
    StartNumber,
};
use arbiter_tournament::standings::{
    GradeConfig, RatingConfig, StandingsConfig, standings, standings_by_round,
};
use arbiter_tournament::tiebreak::{
    Edition, Modifier, TieBreak, TieBreakError, TieBreakSettings, TieBreakTable, UnplayedCategory, Value,
};

fn sn(n: u16) -> StartNumber {
    StartNumber::new(n).unwrap()
}

fn rd(r: u16) -> RoundNumber {
    RoundNumber::new(r).unwrap()
}

/// A value of `halves` half points.
fn h(halves: i64) -> Option<Value> {
    Some(Value::new(halves, 2))
}

/// A value of `quarters` quarter points (Sonneborn-Berger).
fn q(quarters: i64) -> Option<Value> {
    Some(Value::new(quarters, 4))
}

fn int(n: i64) -> Option<Value> {
    Some(Value::integer(n))
}

/// Builds a consistent crosstable round by round. `fill` gives a participant
/// a final score with games against fresh filler participants (numbers from
/// 1000) in the rounds left empty: wins first, then a draw, then losses; what
/// the empty rounds cannot hold goes in as an event-wide adjustment (TRF 299).
struct Event {
    rounds: u16,
    players: BTreeMap<u16, (Option<u16>, Vec<Option<RoundEntry>>)>,
    adjustments: Vec<PointAdjustment>,
    next_filler: u16,
}

impl Event {
    fn new(rounds: u16) -> Event {
        Event { rounds, players: BTreeMap::new(), adjustments: Vec::new(), next_filler: 1000 }
    }

    fn player(&mut self, n: u16, rating: Option<u16>) -> &mut Event {
        self.players.insert(n, (rating, vec![None; usize::from(self.rounds)]));
        self
    }

    fn set(&mut self, round: u16, n: u16, entry: RoundEntry) {
        let rounds = usize::from(self.rounds);
        let slot = &mut self.players.entry(n).or_insert_with(|| (None, vec![None; rounds])).1;
        assert!(slot[usize::from(round) - 1].is_none(), "round {round} of {n} set twice");
        slot[usize::from(round) - 1] = Some(entry);
    }

    fn pair(&mut self, round: u16, white: u16, black: u16, w: GameOutcome, b: GameOutcome) -> &mut Event {
        let e = |opp: u16, color: Color, o: GameOutcome| RoundEntry::Paired {
            opponent: sn(opp),
            color: Some(color),
            outcome: Some(o),
        };
        self.set(round, white, e(black, Color::White, w));
        self.set(round, black, e(white, Color::Black, b));
        self
    }

    fn game(&mut self, round: u16, white: u16, black: u16, white_score: Score) -> &mut Event {
        self.pair(
            round,
            white,
            black,
            GameOutcome::Played(white_score),
            GameOutcome::Played(white_score.complement()),
        )
    }

    fn under_one_move(&mut self, round: u16, white: u16, black: u16, white_score: Score) -> &mut Event {
        self.pair(
            round,
            white,
            black,
            GameOutcome::UnderOneMove(white_score),
            GameOutcome::UnderOneMove(white_score.complement()),
        )
    }

    fn forfeit(&mut self, round: u16, white: u16, black: u16, white_wins: bool) -> &mut Event {
        self.pair(
            round,
            white,
            black,
            GameOutcome::Forfeit { won: white_wins },
            GameOutcome::Forfeit { won: !white_wins },
        )
    }

    fn bye(&mut self, round: u16, n: u16, kind: ByeKind) -> &mut Event {
        self.set(round, n, RoundEntry::Bye(kind));
        self
    }

    fn fill(&mut self, n: u16, target_halves: i32) -> &mut Event {
        let slots = self.players[&n].1.clone();
        let mut rest =
            target_halves - slots.iter().flatten().map(|e| Scoring::FIDE.points(*e).halves()).sum::<i32>();
        for (index, slot) in slots.iter().enumerate() {
            if slot.is_some() {
                continue;
            }
            let score = match rest {
                r if r >= 2 => Score::Win,
                1 => Score::Draw,
                _ => Score::Loss,
            };
            rest -= Scoring::FIDE.score(score).halves();
            let filler = self.next_filler;
            self.next_filler += 1;
            self.game(index as u16 + 1, n, filler, score);
        }
        if rest != 0 {
            self.adjustments.push(PointAdjustment {
                participant: sn(n),
                round: None,
                points: Points::from_halves(rest),
            });
        }
        self
    }

    fn build(&self) -> Crosstable {
        let participants = self
            .players
            .iter()
            .map(|(&n, (rating, slots))| {
                let mut p = Participant::new(sn(n), format!("P{n}"));
                p.rating = rating.map(Rating::new);
                p.rounds = slots.iter().map(|s| s.unwrap_or(RoundEntry::Unpaired)).collect();
                p
            })
            .collect();
        Crosstable::new(participants, self.adjustments.clone()).unwrap()
    }
}

fn table(t: &Crosstable, edition: Edition) -> TieBreakTable {
    TieBreakTable::new(t, &Scoring::FIDE, TieBreakSettings::swiss(edition), None).unwrap()
}

fn value(t: &TieBreakTable, tb: TieBreak, n: u16) -> Option<Value> {
    t.value(tb, sn(n)).unwrap()
}

const BH: TieBreak = TieBreak::Buchholz(Modifier::None);
const BH_C1: TieBreak = TieBreak::Buchholz(Modifier::CUT1);
const SB: TieBreak = TieBreak::SonnebornBerger(Modifier::None);
const SB_C1: TieBreak = TieBreak::SonnebornBerger(Modifier::CUT1);

// ---------------------------------------------------------------------------
// Arbiters' Manual, chapter 12, questions 22 and 23
// ---------------------------------------------------------------------------

/// Q22: "A player plays in a swiss system tournament against following
/// opponents and gets 4.5 points. He/She won the 4th round by forfeit. Player
/// D continues the event and played last two rounds." Opponents A 5 (won),
/// B 5 (won), C 6½ (lost), D 3 (forfeit win), E 4½ (won), F 6 (draw).
///
/// The question's scores do not fit a six-round event (C beat the player and
/// can reach at most 6, F drew and can reach at most 5½), so C's and F's
/// extra half point goes in as an adjustment: Buchholz reads final scores,
/// which is what the question gives.
fn q22() -> Crosstable {
    let mut e = Event::new(6);
    e.player(1, None);
    e.game(1, 1, 2, Score::Win) // A
        .game(2, 3, 1, Score::Loss) // B
        .game(3, 1, 4, Score::Loss) // C
        .forfeit(4, 5, 1, false) // D forfeits
        .game(5, 1, 6, Score::Win) // E
        .game(6, 7, 1, Score::Draw); // F
    e.fill(2, 10).fill(3, 10).fill(4, 13).fill(5, 6).fill(6, 9).fill(7, 12);
    e.build()
}

#[test]
fn manual_q22_buchholz_with_forfeit_win() {
    let t = q22();
    let aug = table(&t, Edition::Aug2024);
    assert_eq!(aug.points(sn(1)).unwrap(), Points::from_halves(9));
    // D "continues the event and played last two rounds": the forfeit loss
    // is category 16.2.4 and counts as the loss it was; D's adjusted score is 3.
    assert_eq!(aug.adjusted_score(sn(5)).unwrap(), Points::from_halves(6));
    assert_eq!(aug.unplayed_category(sn(1), rd(4)).unwrap(), Some(UnplayedCategory::ForfeitWin));
    // Official answer: 5 + 5 + 6.5 + 4.5 (dummy opponent) + 4.5 + 6 = 31.5.
    assert_eq!(value(&aug, BH, 1), h(63));
    // 1 March 2026, 16.4.1: the dummy "shall not exceed the scheduled
    // opponent's adjusted score" for a forfeit: min(4.5, 3) = 3, so
    // 5 + 5 + 6.5 + 3 + 4.5 + 6 = 30.
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(value(&mar, BH, 1), h(60));
    let c = mar.contributions(sn(1)).unwrap();
    assert!(c[3].dummy && c[3].opponent == Some(sn(5)) && !c[3].voluntary_unplayed);
    assert_eq!(c[3].opponent_score, Points::from_halves(6));
}

/// Q23: 3.5 points from five rounds: A 1-0, B ½, C 1-0, D -:+ (forfeit loss
/// in round 4; D "continues the event and played last two rounds"), E 1-0.
/// Final scores A 2, B 2, C 1.5, D 4.5, E 2.5.
fn q23() -> Crosstable {
    let mut e = Event::new(5);
    e.player(1, None);
    e.game(1, 1, 2, Score::Win)
        .game(2, 3, 1, Score::Draw)
        .game(3, 1, 4, Score::Win)
        .forfeit(4, 1, 5, false)
        .game(5, 6, 1, Score::Loss);
    e.fill(2, 4).fill(3, 4).fill(4, 3).fill(5, 9).fill(6, 5);
    e.build()
}

#[test]
fn manual_q23_buchholz_cut1_with_forfeit_loss() {
    let t = q23();
    for edition in [Edition::Aug2024, Edition::Mar2026] {
        let tt = table(&t, edition);
        assert_eq!(tt.points(sn(1)).unwrap(), Points::from_halves(7));
        // 2 + 2 + 1.5 + 3.5 (dummy = own score; 2026: min(3.5, D's 4.5)) + 2.5.
        assert_eq!(value(&tt, BH, 1), h(23), "{edition}");
        // Official answer: the VUR's 3.5 is cut before the lowest 1.5:
        // "= 2 + 2 + 1.5 + 2.5 = 8".
        assert_eq!(value(&tt, BH_C1, 1), h(16), "{edition}");
        // Cut-2 then takes the least significant value: 2 + 2 + 2.5 = 6.5.
        assert_eq!(value(&tt, TieBreak::Buchholz(Modifier::CUT2), 1), h(13), "{edition}");
    }
}

// ---------------------------------------------------------------------------
// Arbiters' Manual, "Tiebreak Examples for Unplayed Games" (after C.07)
// ---------------------------------------------------------------------------

/// GM Laxman R.R., ten rounds, "withdrew from the fourth round of the
/// tournament due to illness" (a zero-point bye followed by played rounds,
/// 16.2.3), 7 points. Opponents' final scores and his results, in order:
/// 5 (1), 5 (1), 6½ (0), —, 4½ (1), 6 (½), 5 (1), 6½ (½), 5½ (1), 6 (1).
fn laxman() -> Crosstable {
    let mut e = Event::new(10);
    e.player(1, None);
    let games: [(u16, u16, Score, i32); 9] = [
        (1, 2, Score::Win, 10),
        (2, 3, Score::Win, 10),
        (3, 4, Score::Loss, 13),
        (5, 5, Score::Win, 9),
        (6, 6, Score::Draw, 12),
        (7, 7, Score::Win, 10),
        (8, 8, Score::Draw, 13),
        (9, 9, Score::Win, 11),
        (10, 10, Score::Win, 12),
    ];
    for (round, opp, score, _) in games {
        e.game(round, 1, opp, score);
    }
    e.bye(4, 1, ByeKind::ZeroPoint);
    for (_, opp, _, target) in games {
        e.fill(opp, target);
    }
    e.build()
}

#[test]
fn manual_example_laxman_buchholz_cut1_and_sonneborn_berger() {
    let t = laxman();
    let aug = table(&t, Edition::Aug2024);
    assert_eq!(aug.points(sn(1)).unwrap(), Points::whole(7));
    assert_eq!(aug.unplayed_category(sn(1), rd(4)).unwrap(), Some(UnplayedCategory::RequestedByeBeforePlay));
    // "Buchholz 57": 5+5+6.5+7 (dummy)+4.5+6+5+6.5+5.5+6.
    assert_eq!(value(&aug, BH, 1), h(114));
    // "the corresponding cut 1 is 57 – 7 = 50": the VUR is cut, not the 4.5.
    assert_eq!(value(&aug, BH_C1, 1), h(100));
    // "1*5 + 1*5 + 0*6.5 + 0*7 + 1*4.5 + 0.5*6 + 1*5 + 0.5*6.5 + 1*5.5 + 1*6 = 37.25".
    assert_eq!(value(&aug, SB, 1), q(149));

    // 2026, 16.4.2: a bye's dummy may not exceed draw × rounds = 0.5 × 10 = 5,
    // so BH = 57 − 7 + 5 = 55; Cut-1 still cuts the VUR (5 ≥ 4.5): 50;
    // SB unchanged (the bye scored 0).
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(value(&mar, BH, 1), h(110));
    assert_eq!(value(&mar, BH_C1, 1), h(100));
    assert_eq!(value(&mar, SB, 1), q(149));
}

/// "Example 2 for Buchholz Cut 1": #4 David, 3.5 points, +B12 =BYE +W13 =W3
/// =B1. #12 Nick: -W4 +BYE +F14 -- -- (withdrew). #13 Opal 1.5, #3 Charline
/// 3.5, #1 Alyx 3.5.
fn david() -> Crosstable {
    let mut e = Event::new(5);
    e.game(1, 12, 4, Score::Loss)
        .bye(2, 4, ByeKind::HalfPoint)
        .game(3, 4, 13, Score::Win)
        .game(4, 4, 3, Score::Draw)
        .game(5, 1, 4, Score::Draw);
    e.bye(2, 12, ByeKind::PairingAllocated).forfeit(3, 12, 14, true).bye(4, 12, ByeKind::ZeroPoint).bye(
        5,
        12,
        ByeKind::ZeroPoint,
    );
    e.fill(13, 3).fill(3, 7).fill(1, 7);
    e.build()
}

#[test]
fn manual_example_2_buchholz_cut1() {
    let t = david();
    let aug = table(&t, Edition::Aug2024);
    // Nick: "0.0+1.0+1.0+0.5+0.5 = 3.0" — the PAB (16.2.1) and forfeit win
    // (16.2.2) at face value, the two withdrawn rounds (16.2.5) as draws.
    assert_eq!(aug.points(sn(12)).unwrap(), Points::whole(2));
    assert_eq!(aug.adjusted_score(sn(12)).unwrap(), Points::whole(3));
    let cat = |n, r| aug.unplayed_category(sn(n), rd(r)).unwrap();
    assert_eq!(cat(12, 2), Some(UnplayedCategory::PairingAllocatedOrFullPointBye));
    assert_eq!(cat(12, 3), Some(UnplayedCategory::ForfeitWin));
    assert_eq!(cat(12, 4), Some(UnplayedCategory::RequestedByeToTheEnd));
    assert_eq!(cat(12, 5), Some(UnplayedCategory::RequestedByeToTheEnd));
    assert_eq!(cat(4, 2), Some(UnplayedCategory::RequestedByeBeforePlay));
    assert_eq!(cat(4, 1), None);
    // BH = 3.0 + 3.5 (dummy) + 1.5 + 3.5 + 3.5 = 15.
    assert_eq!(value(&aug, BH, 4), h(30));
    // Official: "BH-C1(#4) = 3.5+3.5+3.0+1.5 = 11.5" (the bye is cut first).
    assert_eq!(value(&aug, BH_C1, 4), h(23));
    // 2026: the half-point bye's dummy is capped at 0.5 × 5 rounds = 2.5:
    // BH = 3 + 2.5 + 1.5 + 3.5 + 3.5 = 14; Cut-1 still removes the VUR: 11.5.
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(value(&mar, BH, 4), h(28));
    assert_eq!(value(&mar, BH_C1, 4), h(23));
}

// ---------------------------------------------------------------------------
// Arbiters' Manual, chapter 12, question 21: Sonneborn-Berger in a round-robin
// ---------------------------------------------------------------------------

#[test]
fn manual_q21_sonneborn_berger_round_robin() {
    // Rows: Vachier-Lagrave, Nepomniachtchi, Caruana, Giri, Wang Hao,
    // Grischuk, Ding Liren, Alekseenko (start numbers 1..8); halves scored by
    // the row player against each column player.
    let m: [[i32; 8]; 8] = [
        [0, 2, 1, 1, 1, 1, 2, 1],
        [0, 0, 1, 2, 2, 1, 2, 1],
        [1, 1, 0, 1, 1, 1, 0, 2],
        [1, 0, 1, 0, 1, 1, 1, 2],
        [1, 0, 1, 1, 0, 1, 2, 1],
        [1, 1, 1, 1, 1, 0, 1, 1],
        [0, 0, 2, 1, 0, 1, 0, 1],
        [1, 1, 0, 0, 1, 1, 1, 0],
    ];
    let mut e = Event::new(7);
    // Circle method: player 8 fixed, players 1..7 rotate.
    for r in 0..7u16 {
        let mut pairs = vec![(8, r + 1)];
        for k in 1..=3u16 {
            pairs.push(((r + k) % 7 + 1, (r + 7 - k) % 7 + 1));
        }
        for (a, b) in pairs {
            let score = match m[usize::from(a) - 1][usize::from(b) - 1] {
                2 => Score::Win,
                1 => Score::Draw,
                _ => Score::Loss,
            };
            e.game(r + 1, a, b, score);
        }
    }
    let t = e.build();
    let tt = TieBreakTable::new(&t, &Scoring::FIDE, TieBreakSettings::round_robin(Edition::Aug2024), None)
        .unwrap();
    // Official answer: 15.25, 14.25, 12.25, 11.25, 11.25, 12.25, 8.25, 9.25.
    let expected = [61, 57, 49, 45, 45, 49, 33, 37];
    for (i, quarters) in expected.iter().enumerate() {
        assert_eq!(value(&tt, SB, i as u16 + 1), q(*quarters), "player {}", i + 1);
    }
    // Koya (50% of 7 = 3.5): opponents 1..6 qualify. Vachier-Lagrave:
    // 1 + ½ + ½ + ½ + ½ = 3; Ding: 0 + 0 + 1 + ½ + 0 + ½ = 2.
    assert_eq!(value(&tt, TieBreak::KOYA, 1), h(6));
    assert_eq!(value(&tt, TieBreak::KOYA, 7), h(4));
    // KS/L+1 (threshold 4): only 1 and 2 qualify; Caruana scored ½ + ½.
    assert_eq!(value(&tt, TieBreak::Koya { limit: Points::HALF }, 3), h(2));
    // The official ranks: 1, 2, 3-4, 3-4, 5-6, 5-6, 7, 8.
    let config = StandingsConfig {
        scoring: Scoring::FIDE,
        tie_breaks: vec![SB],
        settings: TieBreakSettings::round_robin(Edition::Aug2024),
        rating: None,
        grades: None,
    };
    let s = standings(&t, &config, rd(7)).unwrap();
    let ranks: Vec<(u16, u16)> = s.rows.iter().map(|r| (r.number.get(), r.rank)).collect();
    assert_eq!(ranks, vec![(1, 1), (2, 2), (3, 3), (6, 3), (4, 5), (5, 5), (8, 7), (7, 8)]);
}

// ---------------------------------------------------------------------------
// A hand-computed Swiss: 8 players, 4 rounds
// ---------------------------------------------------------------------------

/// Ratings 2200, 2150, …, 1850 for start numbers 1..8.
///
/// | Rd | games (White first)                                         |
/// |----|-------------------------------------------------------------|
/// | 1  | 1-5 1-0, 6-2 0-1, 3-7 ½-½, 8-4 0-1                          |
/// | 2  | 8 half-point bye, 6 pairing-allocated bye, 2-1 ½-½,         |
/// |    | 4-3 forfeit (3 wins), 5-7 0-1                               |
/// | 3  | 1-3 1-0, 7-2 0-1, 4-5 1-0, 6-8 0-1 under one move           |
/// | 4  | 4-1 0-1, 2-3 1-0, 8-7 ½-½, 5-6 1-0                          |
///
/// Final: 1 3½, 2 3½, 3 1½, 4 2, 5 1, 6 1, 7 2, 8 2. No round is of category
/// 16.2.5, so every adjusted score is the score.
fn swiss() -> Crosstable {
    let mut e = Event::new(4);
    for n in 1..=8u16 {
        e.player(n, Some(2250 - 50 * n));
    }
    e.game(1, 1, 5, Score::Win).game(1, 6, 2, Score::Loss).game(1, 3, 7, Score::Draw).game(
        1,
        8,
        4,
        Score::Loss,
    );
    e.bye(2, 8, ByeKind::HalfPoint)
        .bye(2, 6, ByeKind::PairingAllocated)
        .game(2, 2, 1, Score::Draw)
        .forfeit(2, 4, 3, false)
        .game(2, 5, 7, Score::Loss);
    e.game(3, 1, 3, Score::Win).game(3, 7, 2, Score::Loss).game(3, 4, 5, Score::Win).under_one_move(
        3,
        6,
        8,
        Score::Loss,
    );
    e.game(4, 4, 1, Score::Loss).game(4, 2, 3, Score::Win).game(4, 8, 7, Score::Draw).game(
        4,
        5,
        6,
        Score::Win,
    );
    e.build()
}

fn all(t: &TieBreakTable, tb: TieBreak) -> Vec<Option<Value>> {
    t.values(tb).unwrap().into_iter().map(|(_, v)| v).collect()
}

#[test]
fn swiss_buchholz_and_cut1() {
    let t = swiss();
    let aug = table(&t, Edition::Aug2024);
    // BH (2024), opponents' scores or the dummy (own score):
    // 1: 5 1 + 2 3½ + 3 1½ + 4 2                 = 8
    // 2: 6 1 + 1 3½ + 7 2 + 3 1½                 = 8
    // 3: 7 2 + dummy 1½ (forfeit win) + 1 3½ + 2 3½ = 10½
    // 4: 8 2 + dummy 2 (forfeit loss) + 5 1 + 1 3½ = 8½
    // 5: 1 3½ + 7 2 + 4 2 + 6 1                  = 8½
    // 6: 2 3½ + dummy 1 (PAB) + 8 2 + 5 1         = 7½
    // 7: 3 1½ + 5 1 + 2 3½ + 8 2                 = 8
    // 8: 4 2 + dummy 2 (half-point bye) + 6 1 + 7 2 = 7
    assert_eq!(all(&aug, BH), vec![h(16), h(16), h(21), h(17), h(17), h(15), h(16), h(14)]);
    // Cut-1: the lowest, except that a VUR (4's forfeit loss, 8's bye) goes
    // first (16.5): 1: 8−1, 2: 8−1, 3: 10½−1½, 4: 8½−2, 5: 8½−1, 6: 7½−1,
    // 7: 8−1, 8: 7−2.
    assert_eq!(all(&aug, BH_C1), vec![h(14), h(14), h(18), h(13), h(15), h(13), h(14), h(10)]);
    // Cut-2 of 4: VUR 2, then the lowest 1: 2 + 3½. Median-1 of 5: drop 1
    // and 3½: 2 + 2.
    assert_eq!(value(&aug, TieBreak::Buchholz(Modifier::CUT2), 4), h(11));
    assert_eq!(value(&aug, TieBreak::Buchholz(Modifier::MEDIAN1), 5), h(8));

    // 2026: 4's dummy for the forfeit loss is capped by 3's adjusted score:
    // min(2, 1½) = 1½, so BH(4) = 8; Cut-1 still cuts it: 6½. 3's dummy for
    // the forfeit win: min(1½, 4's 2) = 1½ (unchanged). 6's PAB and 8's bye:
    // cap ½ × 4 = 2, not reached. The opponents of 4 see no change.
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(all(&mar, BH), vec![h(16), h(16), h(21), h(16), h(17), h(15), h(16), h(14)]);
    assert_eq!(all(&mar, BH_C1), vec![h(14), h(14), h(18), h(13), h(15), h(13), h(14), h(10)]);
}

#[test]
fn swiss_sonneborn_berger_and_cut1() {
    let t = swiss();
    for edition in [Edition::Aug2024, Edition::Mar2026] {
        let tt = table(&t, edition);
        // SB: opponent's score × points scored (dummy rounds: dummy × points):
        // 1: 1×1 + 3½×½ + 1½×1 + 2×1 = 6¼        2: 1×1 + 3½×½ + 2×1 + 1½×1 = 6¼
        // 3: 2×½ + 1½×1 + 0 + 0 = 2½               4: 2×1 + dummy×0 + 1×1 + 0 = 3
        // 5: 0 + 0 + 0 + 1×1 = 1                   6: 0 + 1×1 (PAB) + 0 + 0 = 1
        // 7: 1½×½ + 1×1 + 0 + 2×½ = 2¾             8: 0 + 2×½ (bye) + 1×1 + 2×½ = 3
        assert_eq!(all(&tt, SB), vec![q(25), q(25), q(10), q(12), q(4), q(4), q(11), q(12)], "{edition}");
        // Cut-1 (14.1.1 d, 16.5): the contribution of the lowest-scoring
        // opponent, or the lowest VUR contribution if that is not lower.
        // 1: −1 (5); 2: −1 (6); 3: −1½ (dummy 1½ is the lowest score);
        // 4: VUR gives 0 < 1 (5's contribution), so 5's 1 is cut: 2;
        // 5: −1 (6); 6: dummy and 5 both score 1, the lower contribution (0,
        // against 5) is cut: 1; 7: −1 (5); 8: VUR 1 ≥ 1 (6's), cut: 2.
        assert_eq!(all(&tt, SB_C1), vec![q(21), q(21), q(4), q(8), q(0), q(4), q(7), q(8)], "{edition}");
    }
}

#[test]
fn swiss_own_record_tie_breaks() {
    let t = swiss();
    let tt = table(&t, Edition::Mar2026);
    // WIN (with or without playing): 3's forfeit win and 6's PAB count.
    assert_eq!(all(&tt, TieBreak::Wins), [3, 3, 1, 2, 1, 1, 1, 1].map(int).to_vec());
    // WON (over the board): not 3's forfeit; 8's win under one move was played.
    assert_eq!(all(&tt, TieBreak::GamesWon), [3, 3, 0, 2, 1, 0, 1, 1].map(int).to_vec());
    // BPG: 1 rd 2, 4; 2 rd 1, 3; 3 rd 3, 4; 4 rd 1 (rd 2 forfeited); 5 rd 1, 3;
    // 6 rd 4; 7 rd 1, 2, 4; 8 rd 3.
    assert_eq!(all(&tt, TieBreak::GamesWithBlack), [2, 2, 2, 1, 2, 1, 3, 1].map(int).to_vec());
    // BWG: 1 rd 4; 2 rd 1, 3; 4 rd 1; 7 rd 2; 8 rd 3 (under one move).
    assert_eq!(all(&tt, TieBreak::WinsWithBlack), [1, 2, 0, 1, 0, 0, 1, 1].map(int).to_vec());
    // REP: 4 lost rd 2 by forfeit, 8 took a half-point bye.
    assert_eq!(all(&tt, TieBreak::RoundsElectedToPlay), [4, 4, 4, 3, 4, 4, 4, 3].map(int).to_vec());
    // PS: 1: 1 + 1½ + 2½ + 3½ = 8½; 3: ½ + 1½ + 1½ + 1½ = 5; 8: 0 + ½ + 1½ + 2 = 4.
    assert_eq!(value(&tt, TieBreak::ProgressiveScores(Modifier::None), 1), h(17));
    assert_eq!(value(&tt, TieBreak::ProgressiveScores(Modifier::None), 3), h(10));
    assert_eq!(value(&tt, TieBreak::ProgressiveScores(Modifier::CUT1), 1), h(15));
    assert_eq!(value(&tt, TieBreak::ProgressiveScores(Modifier::None), 8), h(8));
    // STD (2026 only): 3: ½ + 1 (forfeit win beats the opponent's 0) = 1½;
    // 6: 1 (PAB above a draw); 8: ½ (half-point bye = draw) + 1 + ½ = 2.
    assert_eq!(value(&tt, TieBreak::StandardPoints, 3), h(3));
    assert_eq!(value(&tt, TieBreak::StandardPoints, 6), h(2));
    assert_eq!(value(&tt, TieBreak::StandardPoints, 8), h(4));
    let aug = table(&t, Edition::Aug2024);
    assert_eq!(
        aug.values(TieBreak::StandardPoints),
        Err(TieBreakError::NotInEdition { tie_break: TieBreak::StandardPoints, edition: Edition::Aug2024 })
    );
    assert_eq!(
        aug.values(TieBreak::ProgressiveScores(Modifier::MEDIAN1)),
        Err(TieBreakError::InvalidModifier(TieBreak::ProgressiveScores(Modifier::MEDIAN1)))
    );
}

#[test]
fn swiss_rating_based_tie_breaks() {
    let t = swiss();
    let tt = table(&t, Edition::Aug2024);
    // ARO, opponents played over the board (forfeits excluded, the game under
    // one move included), rounded half up:
    // 1: (2000+2150+2100+2050)/4 = 2075     2: (1950+2200+1900+2100)/4 = 2037.5 → 2038
    // 3: (1900+2200+2150)/3 = 2083.3 → 2083  4: (1850+2000+2200)/3 = 2016.7 → 2017
    // 5: (2200+1900+2050+1950)/4 = 2025     6: (2150+1850+2000)/3 = 2000
    // 7: (2100+2000+2150+1850)/4 = 2025     8: (2050+1950+1900)/3 = 1966.7 → 1967
    assert_eq!(
        all(&tt, TieBreak::AverageRatingOfOpponents(Modifier::None)),
        [2075, 2038, 2083, 2017, 2025, 2000, 2025, 1967].map(int).to_vec()
    );
    // ARO-C1: 2 loses 1900: 6250/3 → 2083; 1 loses 2000: 6300/3 = 2100.
    assert_eq!(value(&tt, TieBreak::AverageRatingOfOpponents(Modifier::CUT1), 2), int(2083));
    assert_eq!(value(&tt, TieBreak::AverageRatingOfOpponents(Modifier::CUT1), 1), int(2100));
    // TPR 1: 3½/4 = .875 → .88 → dp 336: 2075 + 336 = 2411. TPR 8: 1½/3 → 0.
    assert_eq!(value(&tt, TieBreak::TournamentPerformanceRating, 1), int(2411));
    assert_eq!(value(&tt, TieBreak::TournamentPerformanceRating, 8), int(1967));
    // PTP 7 (2 from 4 vs 2100, 2000, 2150, 1850): at 2026 the table gives
    // .40 + .54 + .33 + .73 = 2.00; at 2025 .40 + .53 + .33 + .73 = 1.99.
    assert_eq!(value(&tt, TieBreak::PerfectTournamentPerformance, 7), int(2026));
    // APRO 1: the opponents' TPRs, each ARO + dp of the rounded percentage:
    // 5: 2025 + dp(.25) −193 = 1832; 2: 2038 + dp(.88) 336 = 2374;
    // 3: 2083 + dp(.17) −273 = 1810 (½ from 3); 4: 2017 + dp(.67) 125 = 2142
    // (2 from 3). (1832 + 2374 + 1810 + 2142) / 4 = 2039.5 → 2040.
    assert_eq!(value(&tt, TieBreak::TournamentPerformanceRating, 3), int(1810));
    assert_eq!(value(&tt, TieBreak::AveragePerformanceRatingOfOpponents, 1), int(2040));
    // RTNG and TPN (2026 only): the rating; the start number, lowest first.
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(value(&mar, TieBreak::Rating, 3), int(2100));
    assert_eq!(value(&mar, TieBreak::TournamentPairingNumber, 3), int(3));
    assert!(!TieBreak::TournamentPairingNumber.higher_is_better());
    // PTP 6 (zero score): lowest opponent 1850 − 800.
    assert_eq!(value(&tt, TieBreak::PerfectTournamentPerformance, 6), int(1050));
    // Unrated participants: the tie-break must be dropped unless the
    // regulations give them a rating (Article 10).
    let mut e = Event::new(1);
    e.player(1, Some(2000)).player(2, None).game(1, 1, 2, Score::Win);
    let unrated = e.build();
    let u = table(&unrated, Edition::Aug2024);
    assert_eq!(
        u.values(TieBreak::AverageRatingOfOpponents(Modifier::None)),
        Err(TieBreakError::UnratedParticipants(sn(2)))
    );
    let mut settings = TieBreakSettings::swiss(Edition::Aug2024);
    settings.unrated_rating = Some(Rating::new(1400));
    let u = TieBreakTable::new(&unrated, &Scoring::FIDE, settings, None).unwrap();
    assert_eq!(value(&u, TieBreak::AverageRatingOfOpponents(Modifier::None), 1), int(1400));
}

#[test]
fn swiss_fore_buchholz_and_average_of_opponents_buchholz() {
    let t = swiss();
    // FB: round 4 counted as draws: scores 1 3, 2 3, 3 2, 4 2½, 5 ½, 6 1½,
    // 7 2, 8 2. FB(1) = 5 ½ + 2 3 + 3 2 + 4 2½ = 8.
    // FB(4) 2024 = 8 2 + dummy 2½ + 5 ½ + 1 3 = 8; 2026: the dummy is capped
    // by 3's (fore) adjusted score 2: 7½.
    let fb = TieBreak::ForeBuchholz(Modifier::None);
    let aug = table(&t, Edition::Aug2024);
    let mar = table(&t, Edition::Mar2026);
    assert_eq!(value(&aug, fb, 1), h(16));
    assert_eq!(value(&aug, fb, 4), h(16));
    assert_eq!(value(&mar, fb, 4), h(15));
    // AOB(1) = (BH 5 8½ + BH 2 8 + BH 3 10½ + BH 4 8½) / 4 = 8.875 (2024);
    // 2026: BH 4 is 8, so 35/4 = 8.75.
    assert_eq!(value(&aug, TieBreak::AverageOfOpponentsBuchholz, 1), Some(Value::new(71, 8)));
    assert_eq!(value(&mar, TieBreak::AverageOfOpponentsBuchholz, 1), Some(Value::new(35, 4)));
}

#[test]
fn article_16_after_an_earlier_round() {
    // After round 2, 8's half-point bye is in the last round counted (16.2.5)
    // and counts as a draw for 8's opponents (it scored ½ anyway); 4's
    // forfeit loss is its own category.
    let t = swiss();
    let tt = TieBreakTable::new(&t, &Scoring::FIDE, TieBreakSettings::swiss(Edition::Aug2024), Some(rd(2)))
        .unwrap();
    assert_eq!(tt.unplayed_category(sn(8), rd(2)).unwrap(), Some(UnplayedCategory::RequestedByeToTheEnd));
    assert_eq!(tt.unplayed_category(sn(4), rd(2)).unwrap(), Some(UnplayedCategory::ForfeitLoss));
    assert_eq!(tt.adjusted_score(sn(8)).unwrap(), Points::HALF);
    // BH(4) after round 2: 8 ½ + dummy 1 (own score after round 2) = 1½.
    assert_eq!(value(&tt, BH, 4), h(3));
    // A zero-point bye in the last round counts as a draw for the opponents:
    // 1 won, then took a zero-point bye.
    let mut e = Event::new(2);
    e.game(1, 1, 2, Score::Win).bye(2, 1, ByeKind::ZeroPoint).bye(2, 2, ByeKind::PairingAllocated);
    let z = table(&e.build(), Edition::Aug2024);
    assert_eq!(z.points(sn(1)).unwrap(), Points::ONE);
    assert_eq!(z.adjusted_score(sn(1)).unwrap(), Points::from_halves(3));
    // 2's BH: 1 counts 1½; 2's own PAB round: dummy = own score 1.
    assert_eq!(value(&z, BH, 2), h(5));
}

// ---------------------------------------------------------------------------
// Direct encounter (Article 6)
// ---------------------------------------------------------------------------

fn de(t: &Crosstable, settings: TieBreakSettings, group: &[u16]) -> Vec<(u16, u16)> {
    let tt = TieBreakTable::new(t, &Scoring::FIDE, settings, None).unwrap();
    let group: Vec<StartNumber> = group.iter().map(|&n| sn(n)).collect();
    tt.direct_encounter(&group).unwrap().into_iter().map(|(n, r)| (n.get(), r)).collect()
}

#[test]
fn direct_encounter_all_met_and_missing_games() {
    let swiss = TieBreakSettings::swiss(Edition::Aug2024);
    // 6.2: 1 beat 2, 2 beat 3, 3 drew 1: separate standings 1½, 1, ½.
    let mut e = Event::new(3);
    e.game(1, 1, 2, Score::Win).game(2, 2, 3, Score::Win).game(3, 3, 1, Score::Draw);
    e.bye(1, 3, ByeKind::PairingAllocated).bye(2, 1, ByeKind::PairingAllocated).bye(
        3,
        2,
        ByeKind::PairingAllocated,
    );
    assert_eq!(de(&e.build(), swiss, &[3, 2, 1]), vec![(1, 1), (2, 2), (3, 3)]);

    // 6.3: 1 beat 2 and 3; 2 and 3 never met. 1 (2 points) is above either
    // rival even if they won the missing game (1 point): first. 2 and 3 stay
    // tied (0 each, one missing game between them).
    let mut e = Event::new(2);
    e.game(1, 1, 2, Score::Win).game(2, 3, 1, Score::Loss);
    assert_eq!(de(&e.build(), swiss, &[1, 2, 3]), vec![(1, 1), (2, 2), (3, 2)]);

    // 6.1.2: met twice, 1-0 and ½-½: the averages ¾ and ¼ decide.
    let mut e = Event::new(2);
    e.game(1, 1, 2, Score::Win).game(2, 2, 1, Score::Draw);
    assert_eq!(de(&e.build(), swiss, &[2, 1]), vec![(1, 1), (2, 2)]);

    // 6.1.1: a forfeit is excluded unless the regulations include it.
    let mut e = Event::new(1);
    e.forfeit(1, 1, 2, true);
    let t = e.build();
    assert_eq!(de(&t, swiss, &[1, 2]), vec![(1, 1), (2, 1)]);
    let mut with_forfeits = swiss;
    with_forfeits.forfeits_in_direct_encounter = true;
    assert_eq!(de(&t, with_forfeits, &[1, 2]), vec![(1, 1), (2, 2)]);
}

// ---------------------------------------------------------------------------
// Standings
// ---------------------------------------------------------------------------

fn config(edition: Edition, tie_breaks: Vec<TieBreak>) -> StandingsConfig {
    StandingsConfig {
        scoring: Scoring::FIDE,
        tie_breaks,
        settings: TieBreakSettings::swiss(edition),
        rating: None,
        grades: None,
    }
}

fn ranks(s: &arbiter_tournament::standings::Standings) -> Vec<(u16, u16)> {
    s.rows.iter().map(|r| (r.number.get(), r.rank)).collect()
}

#[test]
fn swiss_standings_share_ranks_and_follow_the_edition() {
    let t = swiss();
    // 2024, BH then SB then WIN: 1 and 2 tie on everything (3½, 8, 6¼, 3).
    // 2-pointers by BH: 4 8½, 7 8, 8 7; 1-pointers: 5 8½, 6 7½.
    let s = standings(&t, &config(Edition::Aug2024, vec![BH, SB, TieBreak::Wins]), rd(4)).unwrap();
    assert_eq!(ranks(&s), vec![(1, 1), (2, 1), (4, 3), (7, 4), (8, 5), (3, 6), (5, 7), (6, 8)]);
    assert_eq!(s.row(sn(4)).unwrap().tie_breaks, vec![h(17), q(12), int(2)]);
    // 2026: 4 and 7 tie on BH 8; SB 3 against 2¾ keeps 4 ahead.
    let s = standings(&t, &config(Edition::Mar2026, vec![BH, SB]), rd(4)).unwrap();
    assert_eq!(ranks(&s), vec![(1, 1), (2, 1), (4, 3), (7, 4), (8, 5), (3, 6), (5, 7), (6, 8)]);
    assert_eq!(s.row(sn(7)).unwrap().tie_breaks, vec![h(16), q(11)]);
    // DE cannot split 1 and 2 (they drew); BWG can (2 against 1).
    let s = standings(
        &t,
        &config(Edition::Aug2024, vec![TieBreak::DirectEncounter, TieBreak::WinsWithBlack]),
        rd(4),
    )
    .unwrap();
    assert_eq!(&ranks(&s)[..2], &[(2, 1), (1, 2)]);
    assert_eq!(s.row(sn(1)).unwrap().tie_breaks[0], int(1));
    // After round 1: 1, 2, 4 on 1 point; 3 and 7 on ½; the rest on 0.
    let s = standings(&t, &config(Edition::Aug2024, vec![]), rd(1)).unwrap();
    assert_eq!(ranks(&s), vec![(1, 1), (2, 1), (4, 1), (3, 4), (7, 4), (5, 6), (6, 6), (8, 6)]);
    let all = standings_by_round(&t, &config(Edition::Aug2024, vec![BH])).unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[3], standings(&t, &config(Edition::Aug2024, vec![BH]), rd(4)).unwrap());
}

#[test]
fn swiss_rating_changes_and_grade_points() {
    let t = swiss();
    let mut c = config(Edition::Aug2024, vec![]);
    c.rating = Some(RatingConfig {
        rules: FideRatingRules::STANDARD_2024_03,
        k_factors: BTreeMap::from([(sn(3), KFactor::TEN)]),
        default_k: Some(KFactor::TWENTY),
    });
    c.grades = Some(GradeConfig {
        starting: (1..=8u16).map(|n| (sn(n), GradePoints::whole(160 - 10 * i64::from(n)).unwrap())).collect(),
    });
    let s = standings(&t, &c, rd(4)).unwrap();
    // 8 (1850, K 20): rd 1 lost to 4 (2050): D −200 → PD .24, −.24 × 20 = −4.80;
    // rd 3 under one move: not rated; rd 4 drew 7 (1900): D −50 → .43,
    // +.07 × 20 = +1.40. Total −3.40 → −3.
    let r8 = s.row(sn(8)).unwrap().rating.clone().unwrap();
    assert_eq!(r8.games.len(), 2);
    assert_eq!(r8.games[0].change, RatingDelta::from_hundredths(-480));
    assert_eq!(r8.games[1].change, RatingDelta::from_hundredths(140));
    assert_eq!(r8.total, RatingDelta::from_hundredths(-340));
    assert_eq!(r8.rounded(), -3);
    // 3 (2100, K 10 given for him): rd 1 drew 7 (1900): .76 → −.26; rd 2
    // forfeit: not rated; rd 3 lost to 1 (2200): .36 → −.36; rd 4 lost to 2
    // (2150): .43 → −.43. Σ −1.05 × 10 = −10.50 → −11 (0.5 away from zero).
    let r3 = s.row(sn(3)).unwrap().rating.clone().unwrap();
    assert_eq!(r3.games.iter().map(|g| g.round.get()).collect::<Vec<_>>(), vec![1, 3, 4]);
    assert_eq!(r3.total, RatingDelta::from_hundredths(-1050));
    assert_eq!(r3.rounded(), -11);

    // CN-16 from 150, 140, …, 80. Round 1: 1 beat 5 (higher wins, D 40:
    // 10 − 40/12.5 = 6.8): 156.8 / 103.2; 2 beat 6 likewise: 146.8 / 93.2;
    // 3 drew 7 (D 40, lower gains (10 + 4)/2 = 7): 123 / 97; 4 beat 8:
    // 126.8 / 73.2. Round 2: 2-1 drawn (D 10, lower 2 gains 5.5): 152.3 /
    // 151.3; 5 lost to 7 (D 6.2 < 10: 10): 93.2 / 107; the forfeit, the PAB
    // and the bye move nothing.
    let s2 = standings(&t, &c, rd(2)).unwrap();
    let g =
        |s: &arbiter_tournament::standings::Standings, n: u16| s.row(sn(n)).unwrap().grades.clone().unwrap();
    let tenths = |x: i64| GradePoints::from_tenths(x).unwrap();
    assert_eq!(g(&s2, 1).current, tenths(1513));
    assert_eq!(g(&s2, 2).current, tenths(1523));
    assert_eq!(g(&s2, 3).current, tenths(1230));
    assert_eq!(g(&s2, 4).current, tenths(1268));
    assert_eq!(g(&s2, 5).current, tenths(932));
    assert_eq!(g(&s2, 7).current, tenths(1070));
    assert_eq!(g(&s2, 8).games.len(), 1);
    // Round 3's game under one move (6-8) moves nothing.
    let s3 = standings(&t, &c, rd(3)).unwrap();
    assert_eq!(g(&s3, 6).current, tenths(932));
    assert_eq!(g(&s3, 8).current, tenths(732));
    // Zero-sum over the whole event.
    let s4 = standings(&t, &c, rd(4)).unwrap();
    let total: i64 = (1..=8).map(|n| g(&s4, n).current.ten_thousandths()).sum();
    assert_eq!(total, 8 * 1_150_000);
}

/// Arbiters' Manual ch.12 Q14: 2460, K 10; 1-0 vs 2095, 1-0 vs 2254, ½ vs
/// 2415, 0-1 vs 2488, 1-0 vs 2310, ½ vs 2570, ½ vs 2673. Official answer:
/// ΣΔR = +0.54, "10 X 0.54 = +5.40 points".
#[test]
fn manual_q14_rating_change() {
    let mut e = Event::new(7);
    e.player(1, Some(2460));
    let games = [
        (2095, Score::Win),
        (2254, Score::Win),
        (2415, Score::Draw),
        (2488, Score::Loss),
        (2310, Score::Win),
        (2570, Score::Draw),
        (2673, Score::Draw),
    ];
    for (i, (rating, score)) in games.iter().enumerate() {
        let n = i as u16 + 2;
        e.player(n, Some(*rating));
        e.game(i as u16 + 1, 1, n, *score);
    }
    let mut c = config(Edition::Aug2024, vec![]);
    c.rating = Some(RatingConfig {
        rules: FideRatingRules::STANDARD_2025_10,
        k_factors: BTreeMap::from([(sn(1), KFactor::TEN)]),
        default_k: None,
    });
    let s = standings(&e.build(), &c, rd(7)).unwrap();
    let r = s.row(sn(1)).unwrap().rating.clone().unwrap();
    // [+0.10, +0.24, −0.06, −0.46, +0.30, +0.15, +0.27] × 10.
    let per_game: Vec<i64> = r.games.iter().map(|g| g.change.hundredths()).collect();
    assert_eq!(per_game, vec![100, 240, -60, -460, 300, 150, 270]);
    assert_eq!(r.total, RatingDelta::from_hundredths(540));
    assert_eq!(r.rounded(), 5);
    // Opponents without a K get no report.
    assert!(s.row(sn(2)).unwrap().rating.is_none());
}

/// Arbiters' Manual appendix, "Example of a rating calculation": 2212, K 40,
/// nine games; ΣΔR = +1.41, 40 × 1.41 = +56.4 → 2268.
#[test]
fn manual_appendix_rating_change() {
    let games = [
        (1926, Score::Win),
        (2011, Score::Win),
        (2318, Score::Loss),
        (2067, Score::Draw),
        (2219, Score::Draw),
        (2585, Score::Loss),
        (2659, Score::Win),
        (2464, Score::Draw),
        (2652, Score::Draw),
    ];
    let mut e = Event::new(9);
    e.player(1, Some(2212));
    for (i, (rating, score)) in games.iter().enumerate() {
        let n = i as u16 + 2;
        e.player(n, Some(*rating));
        e.game(i as u16 + 1, n, 1, score.complement());
    }
    let mut c = config(Edition::Aug2024, vec![]);
    c.rating = Some(RatingConfig {
        rules: FideRatingRules::STANDARD_2024_03,
        k_factors: BTreeMap::from([(sn(1), KFactor::FORTY)]),
        default_k: None,
    });
    let s = standings(&e.build(), &c, rd(9)).unwrap();
    let r = s.row(sn(1)).unwrap().rating.clone().unwrap();
    // Round 7: 447 counts as 400, p(L) = .08, +.92 × 40.
    assert_eq!(r.games[6].change, RatingDelta::from_hundredths(3680));
    assert_eq!(r.total, RatingDelta::from_hundredths(5640));
    assert_eq!(i64::from(r.rating.get()) + r.rounded(), 2268);
}
