//! Importing a round's pairings: the engines' plain list and a TRF26 file
//! with the new round entered.

use std::path::PathBuf;

use arbiter_chess::Color;
use arbiter_laws::scoring::Score;
use arbiter_tournament::pairing::{self, Board, PairingError, RoundPairings};
use arbiter_tournament::trf::{self, TrfError, TrfFile};
use arbiter_tournament::{
    ByeKind, Crosstable, CrosstableError, GameOutcome, Participant, RoundEntry, RoundNumber, StartNumber,
};

fn n(k: u16) -> StartNumber {
    StartNumber::new(k).unwrap()
}

fn r(k: u16) -> RoundNumber {
    RoundNumber::new(k).unwrap()
}

fn board(number: u16, white: u16, black: u16) -> Board {
    Board { number, white: n(white), black: n(black), preset: None }
}

const WIN: GameOutcome = GameOutcome::Forfeit { won: true };
const LOSS: GameOutcome = GameOutcome::Forfeit { won: false };

fn up_to(max: u16) -> impl Fn(StartNumber) -> bool {
    move |s| s.get() <= max
}

fn list_err(text: &str) -> PairingError {
    pairing::read_list(text, r(1), up_to(20)).unwrap_err()
}

#[test]
fn engine_output_is_boards_and_the_allocated_bye() {
    // bbpPairings' expected output for its test dutch_2025_C5.
    let p = pairing::read_list("3\n1 5\n3 2\n6 0\n", r(3), up_to(6)).unwrap();
    assert_eq!(p.round, r(3));
    assert_eq!(p.boards, vec![board(1, 1, 5), board(2, 3, 2)]);
    assert_eq!(p.byes, vec![(n(6), ByeKind::PairingAllocated)]);
}

#[test]
fn list_without_count_with_comments_blank_lines_byes_and_presets() {
    let text = "# round 2\r\n\r\n1 2   # top board\r\n3 4 + -\r\n5 6 -+\r\n7 8 - -\r\n9 H\r\n10 F\r\n11 z\r\n12 U\r\n";
    let p = pairing::read_list(text, r(2), up_to(12)).unwrap();
    assert_eq!(
        p.boards,
        vec![
            board(1, 1, 2),
            Board { number: 2, white: n(3), black: n(4), preset: Some((WIN, LOSS)) },
            Board { number: 3, white: n(5), black: n(6), preset: Some((LOSS, WIN)) },
            Board { number: 4, white: n(7), black: n(8), preset: Some((LOSS, LOSS)) },
        ]
    );
    assert_eq!(
        p.byes,
        vec![
            (n(9), ByeKind::HalfPoint),
            (n(10), ByeKind::FullPoint),
            (n(11), ByeKind::ZeroPoint),
            (n(12), ByeKind::PairingAllocated),
        ]
    );
    // The count covers boards and the allocated bye, not the requested byes.
    let counted = format!("5\n{text}");
    assert_eq!(pairing::read_list(&counted, r(2), up_to(12)).unwrap(), p);
}

#[test]
fn written_list_reads_back() {
    let p = pairing::read_list("1 2 + -\n4 3\n5 H\n6 0\n", r(4), up_to(6)).unwrap();
    let written = p.write_list();
    assert_eq!(written, "3\n1 2 + -\n4 3\n6 0\n5 H\n");
    let again = pairing::read_list(&written, r(4), up_to(6)).unwrap();
    assert_eq!(again.boards, p.boards);
    let mut byes = again.byes.clone();
    byes.sort_by_key(|b| b.0);
    assert_eq!(byes, p.byes);
}

#[test]
fn malformed_lines_name_the_line() {
    assert_eq!(list_err("1 2\n1 2 3 4 5\n"), PairingError::Malformed { line: 2, found: "1 2 3 4 5".into() });
    assert_eq!(list_err("1 2\nboard 3 4"), PairingError::Malformed { line: 2, found: "board 3 4".into() });
    // A single number is only the count, on the first line.
    assert_eq!(list_err("1 2\n3\n"), PairingError::Malformed { line: 2, found: "3".into() });
    assert_eq!(list_err("# c\n\n5 X\n"), PairingError::Malformed { line: 3, found: "5 X".into() });
    assert_eq!(list_err("5 H 6\n"), PairingError::Malformed { line: 1, found: "5 H 6".into() });
    let err = list_err("1 2\n1 2 3 4 5\n");
    assert!(err.to_string().starts_with("line 2: "), "{err}");
}

#[test]
fn bad_start_numbers_and_presets_name_the_line() {
    assert_eq!(list_err("1 10000\n"), PairingError::BadStartNumber { line: 1, found: "10000".into() });
    assert_eq!(list_err("2 3\n0 5\n"), PairingError::BadStartNumber { line: 2, found: "0".into() });
    assert_eq!(list_err("1 2 + +\n"), PairingError::UnknownPreset { line: 1, found: "+ +".into() });
    assert_eq!(list_err("1 2 1-0\n"), PairingError::UnknownPreset { line: 1, found: "1-0".into() });
}

#[test]
fn unknown_and_doubly_paired_players_name_the_line() {
    assert_eq!(list_err("1 2\n3 21\n"), PairingError::UnknownPlayer { line: 2, number: n(21) });
    assert_eq!(list_err("1 2\n\n2 3\n"), PairingError::PairedTwice { line: 3, first_line: 1, number: n(2) });
    // Paired and given a bye.
    assert_eq!(list_err("1 2\n1 H\n"), PairingError::PairedTwice { line: 2, first_line: 1, number: n(1) });
    assert_eq!(list_err("4 4\n"), PairingError::PairedWithSelf { line: 1, number: n(4) });
    assert_eq!(
        list_err("5 0\n1 2\n6 U\n"),
        PairingError::SecondPairingAllocatedBye { line: 3, first_line: 1 }
    );
    let err = list_err("1 2\n\n2 3\n");
    assert_eq!(err.to_string(), "line 3: player 2 is already paired or given a bye on line 1");
}

#[test]
fn a_count_that_does_not_match_names_the_count_line() {
    let err = list_err("# engine output\n3\n1 2\n3 4\n");
    assert_eq!(err, PairingError::CountMismatch { line: 2, announced: 3, found: 2 });
    assert!(err.to_string().starts_with("line 2: the list announces 3 pairs but gives 2"), "{err}");
}

/// Six players after one round: 1 beat 2, 3 and 4 drew, 5 had the
/// pairing-allocated bye, 6 a half-point bye.
fn after_round_one() -> Crosstable {
    let game = |opponent, color, score| RoundEntry::Paired {
        opponent: n(opponent),
        color: Some(color),
        outcome: Some(GameOutcome::Played(score)),
    };
    let mut players: Vec<Participant> = (1..=6).map(|k| Participant::new(n(k), format!("P{k}"))).collect();
    players[0].rounds = vec![game(2, Color::White, Score::Win)];
    players[1].rounds = vec![game(1, Color::Black, Score::Loss)];
    players[2].rounds = vec![game(4, Color::White, Score::Draw)];
    players[3].rounds = vec![game(3, Color::Black, Score::Draw)];
    players[4].rounds = vec![RoundEntry::Bye(ByeKind::PairingAllocated)];
    players[5].rounds = vec![RoundEntry::Bye(ByeKind::HalfPoint)];
    Crosstable::new(players, vec![]).unwrap()
}

#[test]
fn pairings_entered_written_as_trf_and_read_back_give_the_same_boards() {
    let table = after_round_one();
    // Listed in the order of the lower start number, as a TRF file gives them.
    let list = "3\n3 1\n2 4 - +\n5 0\n6 H\n";
    let pairings = pairing::read_list(list, r(2), |s| table.participant(s).is_some()).unwrap();
    let entered = pairings.enter(&table).unwrap();
    assert_eq!(entered.rounds(), 2);
    assert_eq!(
        entered.participant(n(1)).unwrap().round(r(2)),
        RoundEntry::Paired { opponent: n(3), color: Some(Color::Black), outcome: None }
    );
    let written = trf::write(&TrfFile::new(entered.clone()));
    assert!(
        written.lines().any(|l| l.starts_with("001    1") && l.ends_with("   2 w 1     3 b")),
        "{written}"
    );
    let back = pairing::read_trf(&written, r(2)).unwrap();
    assert_eq!(back.boards, pairings.boards);
    assert_eq!(back.byes, vec![(n(5), ByeKind::PairingAllocated), (n(6), ByeKind::HalfPoint)]);
    // Round 1 read as pairings: its results are the presets.
    let first = pairing::read_trf(&written, r(1)).unwrap();
    assert_eq!(first.boards.len(), 2);
    assert_eq!(
        first.boards[0].preset,
        Some((GameOutcome::Played(Score::Win), GameOutcome::Played(Score::Loss)))
    );
    // The plain list written from the TRF pairings reads back the same.
    let relisted = pairing::read_list(&back.write_list(), r(2), |_| true).unwrap();
    assert_eq!(relisted.boards, pairings.boards);
}

#[test]
fn entering_pairings_for_an_unknown_player_fails() {
    let p = RoundPairings { round: r(2), boards: vec![board(1, 1, 9)], byes: vec![] };
    assert_eq!(p.enter(&after_round_one()).unwrap_err(), PairingError::NotInCrosstable(n(9)));
}

#[test]
fn trf_pairings_that_disagree_name_the_record() {
    let table = after_round_one();
    let p = pairing::read_list("1 3\n2 4\n", r(2), |_| true).unwrap();
    let mut text = trf::write(&TrfFile::new(p.enter(&table).unwrap()));
    // 4 now says it plays 1 in round 2, who plays 3.
    text = text.replace("   3 b =     2 b", "   3 b =     1 b");
    let err = pairing::read_trf(&text, r(2)).unwrap_err();
    assert_eq!(
        err,
        PairingError::Trf(TrfError::Crosstable {
            line: 2,
            source: CrosstableError::OneSidedPairing { round: r(2), participant: n(2), opponent: n(4) }
        })
    );
    assert!(err.to_string().starts_with("line 2: round 2:"), "{err}");
    assert_eq!(
        pairing::read_trf(&trf::write(&TrfFile::new(table)), r(3)).unwrap_err(),
        PairingError::RoundNotRecorded { round: r(3), recorded: 1 }
    );
}

fn shared(file: &str) -> Option<String> {
    let base = std::env::var_os("ARBITER_SHARED").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("..").join("shared")
    });
    let path = base.join("data").join("trf").join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            eprintln!("skipped: {} is not there (set ARBITER_SHARED to the shared data)", path.display());
            None
        }
    }
}

#[test]
fn dutch_c5_engine_output_entered_and_read_back_from_trf() {
    let Some(text) = shared("bbp_dutch_2025_C5.trf") else { return };
    let file = trf::read(&text).unwrap();
    // Before pairing, round 3 holds only the zero-point bye entered for 4.
    let before = pairing::from_trf(&file, r(3)).unwrap();
    assert_eq!(before.boards, vec![]);
    assert_eq!(before.byes, vec![(n(4), ByeKind::ZeroPoint)]);

    // bbpPairings' expected output for this file (test/tests/dutch_2025_C5.output.expected).
    let known = |s: StartNumber| file.crosstable.participant(s).is_some();
    let mut pairings = pairing::read_list("3\n1 5\n3 2\n6 0\n", r(3), known).unwrap();
    pairings.byes.push((n(4), ByeKind::ZeroPoint));
    let mut next = file.clone();
    next.crosstable = pairings.enter(&file.crosstable).unwrap();
    let back = pairing::read_trf(&trf::write(&next), r(3)).unwrap();
    assert_eq!(back.boards, pairings.boards);
    assert_eq!(back.byes, vec![(n(4), ByeKind::ZeroPoint), (n(6), ByeKind::PairingAllocated)]);
}

#[test]
fn javafo_sample_round_5_holds_the_byes_given_in_advance() {
    let Some(text) = shared("javafo_TRFXSample2.trf") else { return };
    let p = pairing::read_trf(&text, r(5)).unwrap();
    assert_eq!(p.boards, vec![]);
    assert_eq!(p.byes.len(), 3);
    assert!(p.byes.contains(&(n(28), ByeKind::ZeroPoint)));
    // Round 4 as pairings: 52 players, 3 byes/absences: boards of two.
    let round4 = pairing::read_trf(&text, r(4)).unwrap();
    let byes = round4.byes.len();
    assert_eq!(round4.boards.len() * 2 + byes, 52);
    assert_eq!(
        round4.boards.iter().map(|b| b.number).collect::<Vec<_>>(),
        (1..=round4.boards.len() as u16).collect::<Vec<_>>()
    );
}
