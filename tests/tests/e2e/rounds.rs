//! Events and rounds end to end: a four-round Swiss of eight players
//! created from pairing files (a plain list, a TRF26 file written from the
//! event's own export, lists with byes and a forfeit known in advance),
//! played over the board with an arbiter console, and checked against
//! standings, tie-breaks, CN-16 grade points, the TRF26 export and the round
//! PGN computed by hand below.
//!
//! The tournament (start numbers by rating, 1 = 2400 ... 8 = 1700):
//!
//! | round | boards (White-Black result)                                  | byes      |
//! |-------|--------------------------------------------------------------|-----------|
//! | 1     | 1-5 1-0 (mate), 6-2 0-1 (mate), 3-7 ½ (9.2 claim), 8-4 0-1 (flag) |      |
//! | 2     | 2-1 ½ (agreed), 4-3 1-0 (mate), 7-6 -/+ (forfeit known before) | 5 H, 8 U |
//! | 3     | 1-4 1-0, 3-2 0-1, 6-5 1-0 under one move, 8-7 1-0 (mate)      |           |
//! | 4     | 6-1 0-1, 2-5 1-0, 8-3 ½ (agreed), 4-7 1-0                     |           |
//!
//! Points: 1: 3½, 2: 3½, 3: 1, 4: 3, 5: ½, 6: 2, 7: ½, 8: 2½.

use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use arbiter_tournament::pairing::{Board, RoundPairings};
use arbiter_tournament::{ByeKind, GameOutcome, RoundNumber, StartNumber, trf};
use tonic::Code;

const EVENT: &str = "events/spring-swiss";

fn participants() -> Vec<pb::Participant> {
    let names = [
        "Alpha, Anna",
        "Bravo, Boris",
        "Charlie, Chen",
        "Delta, Dana",
        "Echo, Emil",
        "Foxtrot, Fay",
        "Golf, Gus",
        "Hotel, Hana",
    ];
    let grades = ["200", "150", "120", "100", "100", "100", "100", "100"];
    names
        .iter()
        .enumerate()
        .map(|(i, name)| pb::Participant {
            start_number: i as i32 + 1,
            name: (*name).to_owned(),
            fide_id: format!("{}", 5_000_001 + i),
            rating: 2400 - 100 * i as i32,
            federation: "NOR".into(),
            grade_points: grades[i].into(),
            ..Default::default()
        })
        .collect()
}

fn tie_break(kind: pb::TieBreakKind, cut: i32) -> pb::TieBreak {
    pb::TieBreak { kind: kind as i32, cut, ..Default::default() }
}

async fn create_event(arbiter: &mut Client) -> pb::Event {
    use pb::TieBreakKind as K;
    let event = pb::Event {
        title: "Spring Swiss".into(),
        regulations: Some(regulations("90+30", pb::Mode::OverTheBoard)),
        tie_breaks: vec![
            tie_break(K::Buchholz, 1),
            tie_break(K::Buchholz, 0),
            tie_break(K::SonnebornBerger, 0),
            tie_break(K::Wins, 0),
            tie_break(K::GamesWon, 0),
            tie_break(K::GamesWithBlack, 0),
        ],
        tie_break_edition: pb::TieBreakEdition::August2024 as i32,
        grade_points: true,
        participants: participants(),
        planned_rounds: 4,
        city: "Oslo".into(),
        federation: "NOR".into(),
        start_date: "2026/11/28".into(),
        end_date: "2026/11/29".into(),
        chief_arbiter: "IA Test Arbiter".into(),
        ..Default::default()
    };
    arbiter
        .create_event(pb::CreateEventRequest {
            event_id: "spring-swiss".into(),
            event: Some(event),
            request_id: "create-spring-swiss".into(),
        })
        .await
        .expect("CreateEvent")
        .into_inner()
        .event
        .expect("event")
}

async fn create_round(
    arbiter: &mut Client,
    round: i32,
    pairings: &str,
    format: pb::PairingFormat,
) -> pb::Round {
    let created = arbiter
        .create_round(pb::CreateRoundRequest {
            parent: EVENT.into(),
            round,
            pairings: pairings.into(),
            format: format as i32,
            request_id: format!("round-{round}"),
            start: true,
            broadcast_push_url: String::new(),
        })
        .await
        .unwrap_or_else(|e| panic!("CreateRound {round}: {e:?}"))
        .into_inner();
    let r = created.round.expect("round");
    assert_eq!(r.state, pb::RoundState::Started as i32, "round {round} started at once");
    // Each game has its two player tokens.
    assert_eq!(created.tokens.len(), r.boards.iter().filter(|b| !b.game.is_empty()).count());
    r
}

/// The game on board `board` of `round`.
fn game_of(round: &pb::Round, board: i32) -> String {
    round.boards.iter().find(|b| b.number == board).expect("board").game.clone()
}

async fn act<T>(result: Result<tonic::Response<T>, tonic::Status>, what: &str) -> T {
    result.unwrap_or_else(|e| panic!("{what}: {e:?}")).into_inner()
}

async fn resign(arbiter: &mut Client, game: &str, color: pb::Color) {
    act(
        arbiter
            .resign_game(pb::ResignGameRequest {
                name: game.into(),
                color: color as i32,
                ..Default::default()
            })
            .await,
        "resign",
    )
    .await;
}

async fn agree_draw(arbiter: &mut Client, game: &str) {
    let (w, b) = (pb::Color::White as i32, pb::Color::Black as i32);
    act(
        arbiter.offer_draw(pb::OfferDrawRequest { name: game.into(), color: w, ..Default::default() }).await,
        "offer",
    )
    .await;
    act(
        arbiter
            .accept_draw(pb::AcceptDrawRequest { name: game.into(), color: b, ..Default::default() })
            .await,
        "accept",
    )
    .await;
}

const SCHOLARS_MATE: [&str; 7] = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"];

async fn finished(arbiter: &mut Client, game: &str) -> pb::Game {
    let g = get_game(arbiter, game).await;
    assert_eq!(g.status, pb::GameStatus::Finished as i32, "{game}: {g:?}");
    g
}

async fn play_round_1(arbiter: &mut Client, r: &pb::Round) {
    play_otb(arbiter, &game_of(r, 1), 0, &SCHOLARS_MATE).await;
    play_otb(arbiter, &game_of(r, 2), 0, &["f3", "e5", "g4", "Qh4#"]).await;
    // Board 3: knights out and back; Black writes Ng8 and claims (9.2).
    let b3 = game_of(r, 3);
    play_otb(arbiter, &b3, 0, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]).await;
    act(
        arbiter
            .claim_draw(pb::ClaimDrawRequest {
                name: b3.clone(),
                color: pb::Color::Black as i32,
                kind: pb::ClaimKind::ThreefoldRepetition as i32,
                intended_move: "Ng8".into(),
                ..Default::default()
            })
            .await,
        "claim",
    )
    .await;
    // Board 4: White's flag falls after both have moved (6.9).
    let b4 = game_of(r, 4);
    play_otb(arbiter, &b4, 0, &["e4", "e5"]).await;
    act(
        arbiter
            .set_clock(pb::SetClockRequest {
                name: b4.clone(),
                color: pb::Color::White as i32,
                remaining_ms: 300,
                ..Default::default()
            })
            .await,
        "set clock",
    )
    .await;
    for _ in 0..100 {
        if get_game(arbiter, &b4).await.status == pb::GameStatus::Finished as i32 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let flagged = finished(arbiter, &b4).await;
    assert_eq!(flagged.end.as_ref().unwrap().result, "0-1");
}

/// Round 2's pairings entered into the event's own TRF export, as a pairing
/// engine writes them: board order by the lower start number (2-1, 4-3,
/// 7-6), player 7's forfeit known before the round, 5's half-point bye and
/// 8's pairing-allocated bye.
fn round_2_trf(export: &str) -> String {
    let file = trf::read(export).expect("the event's TRF export reads back");
    let n = |k: u16| StartNumber::new(k).unwrap();
    let board = |number, white, black, preset| Board { number, white: n(white), black: n(black), preset };
    let pairings = RoundPairings {
        round: RoundNumber::new(2).unwrap(),
        boards: vec![
            board(1, 2, 1, None),
            board(2, 4, 3, None),
            board(3, 7, 6, Some((GameOutcome::Forfeit { won: false }, GameOutcome::Forfeit { won: true }))),
        ],
        byes: vec![(n(5), ByeKind::HalfPoint), (n(8), ByeKind::PairingAllocated)],
    };
    let entered = pairings.enter(&file.crosstable).expect("round 2 enters the crosstable");
    let mut next = file.clone();
    next.crosstable = entered;
    trf::write(&next)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_round_swiss_from_pairing_files() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let event = create_event(&mut arbiter).await;
    assert_eq!((event.name.as_str(), event.participants.len()), (EVENT, 8));

    // Round 1: a plain list as bbpPairings prints it.
    let r1 = create_round(&mut arbiter, 1, "4\n1 5\n6 2\n3 7\n8 4\n", pb::PairingFormat::Unspecified).await;
    assert_eq!(r1.boards.len(), 4);
    let first = get_game(&mut arbiter, &game_of(&r1, 1)).await;
    assert_eq!((first.round_name.as_str(), first.board_number), ("events/spring-swiss/rounds/1", 1));
    assert_eq!(first.white.as_ref().unwrap().start_number, 1);
    assert_eq!(first.white.as_ref().unwrap().fide_id, "5000001");
    play_round_1(&mut arbiter, &r1).await;
    let r1 = act(arbiter.get_round(pb::GetRoundRequest { name: r1.name.clone() }).await, "GetRound")
        .await
        .round
        .unwrap();
    assert_eq!(r1.state, pb::RoundState::Finished as i32);
    let codes: Vec<(String, String, String)> = r1
        .boards
        .iter()
        .map(|b| {
            let r = b.result.as_ref().unwrap();
            (r.white_code.clone(), r.black_code.clone(), r.termination.clone())
        })
        .collect();
    assert_eq!(
        codes,
        [("1", "0", "normal"), ("0", "1", "normal"), ("=", "=", "normal"), ("0", "1", "time forfeit")]
            .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    );
    assert!(r1.boards.iter().all(|b| b.result.as_ref().unwrap().rated));

    // Round 2 from a TRF26 file: the event's export with round 2 entered.
    let export =
        act(arbiter.export_trf(pb::ExportTrfRequest { event: EVENT.into(), round: 1 }).await, "ExportTrf")
            .await
            .trf;
    let r2 = create_round(&mut arbiter, 2, &round_2_trf(&export), pb::PairingFormat::Trf).await;
    assert_eq!(r2.boards.iter().map(|b| (b.white, b.black)).collect::<Vec<_>>(), [(2, 1), (4, 3), (7, 6)]);
    let forfeit = &r2.boards[2];
    assert!(forfeit.game.is_empty(), "no game is played on a forfeit known before the round");
    let fr = forfeit.result.as_ref().expect("its result is known");
    assert_eq!((fr.score.as_str(), fr.kind, fr.rated), ("-/+", pb::ResultKind::Forfeit as i32, false));
    assert_eq!(
        r2.byes.iter().map(|b| (b.participant, b.kind)).collect::<Vec<_>>(),
        [(5, pb::ByeKind::HalfPoint as i32), (8, pb::ByeKind::PairingAllocated as i32)]
    );
    let b1 = game_of(&r2, 1);
    play_otb(&mut arbiter, &b1, 0, &["d4", "d5"]).await;
    agree_draw(&mut arbiter, &b1).await;
    play_otb(&mut arbiter, &game_of(&r2, 2), 0, &SCHOLARS_MATE).await;

    // Round 3: a list without the count line; board 3 ends before Black moves.
    let r3 = create_round(&mut arbiter, 0, "# round 3\n1 4\n3 2\n6 5\n8 7\n", pb::PairingFormat::List).await;
    assert_eq!(r3.number, 3, "round 0 asks for the next round");
    let g = game_of(&r3, 1);
    play_otb(&mut arbiter, &g, 0, &["e4", "e5"]).await;
    resign(&mut arbiter, &g, pb::Color::Black).await;
    let g = game_of(&r3, 2);
    play_otb(&mut arbiter, &g, 0, &["d4", "d5"]).await;
    resign(&mut arbiter, &g, pb::Color::White).await;
    let g = game_of(&r3, 3);
    play_otb(&mut arbiter, &g, 0, &["e4"]).await;
    resign(&mut arbiter, &g, pb::Color::Black).await;
    play_otb(&mut arbiter, &game_of(&r3, 4), 0, &SCHOLARS_MATE).await;
    let r3 = act(arbiter.get_round(pb::GetRoundRequest { name: r3.name.clone() }).await, "GetRound")
        .await
        .round
        .unwrap();
    let short = r3.boards[2].result.as_ref().unwrap();
    assert_eq!(
        (short.kind, short.white_code.as_str(), short.black_code.as_str(), short.rated),
        (pb::ResultKind::UnderOneMove as i32, "W", "L", false)
    );
    assert_eq!((short.white_moved, short.black_moved), (true, false));

    // Round 4.
    let r4 = create_round(&mut arbiter, 4, "4\n6 1\n2 5\n8 3\n4 7\n", pb::PairingFormat::List).await;
    for (board, loser) in [(1, pb::Color::White), (2, pb::Color::Black), (4, pb::Color::Black)] {
        let g = game_of(&r4, board);
        play_otb(&mut arbiter, &g, 0, &["e4", "e5"]).await;
        resign(&mut arbiter, &g, loser).await;
    }
    let g = game_of(&r4, 3);
    play_otb(&mut arbiter, &g, 0, &["e4", "e5"]).await;
    agree_draw(&mut arbiter, &g).await;

    check_standings(&mut arbiter).await;
    check_trf(&mut arbiter).await;
    check_round_pgn(&mut arbiter).await;
    bad_pairings_create_nothing(&mut arbiter).await;
    server.stop().await;
}

/// Standings after round 4, tie-breaks by C.07 (2024):
///
/// Buchholz: the opponents' scores; an own unplayed round is a dummy with
/// the participant's own score (16.4): 5's H bye (½), 6's forfeit win (2),
/// 7's forfeit loss (½), 8's U bye (2½). No adjusted scores differ (5's H
/// bye is followed by played rounds, 16.3).
/// - 1: 5 ½ + 2 3½ + 4 3 + 6 2 = 9; Cut-1 drops ½: 8½
/// - 2: 6 2 + 1 3½ + 3 1 + 5 ½ = 7; 6½
/// - 3: 7 ½ + 4 3 + 2 3½ + 8 2½ = 9½; 9
/// - 4: 8 2½ + 3 1 + 1 3½ + 7 ½ = 7½; 7
/// - 5: 1 3½ + dummy ½ + 6 2 + 2 3½ = 9½; Cut-1 cuts the VUR (the H bye, ½) first: 9
/// - 6: 2 3½ + dummy 2 + 5 ½ + 1 3½ = 9½; 9
/// - 7: 3 1 + dummy ½ (forfeit loss, a VUR) + 8 2½ + 4 3 = 7; 6½
/// - 8: 4 3 + dummy 2½ + 7 ½ + 3 1 = 7; 6½
///
/// Sonneborn-Berger (points scored × opponent's score; the dummy for byes
/// and forfeits): 1: ½ + 1¾ + 3 + 2 = 7¼; 2: 2 + 1¾ + 1 + ½ = 5¼;
/// 3: ¼ + 0 + 0 + 1¼ = 1½; 4: 2½ + 1 + 0 + ½ = 4; 5: ½ × ½ = ¼;
/// 6: 1 × 2 (forfeit win) + 1 × ½ (under one move) = 2½; 7: ½ × 1 = ½;
/// 8: 1 × 2½ (U bye) + ½ + ½ = 3½.
///
/// WIN (rounds with a win's points): 1: 3, 2: 3, 4: 3, 6: 2 (forfeit, under
/// one move), 8: 2 (U bye, round 3), others 0. WON (over the board, under
/// one move included): 1: 3, 2: 3, 4: 3, 6: 1, 8: 1. BPG (played with
/// Black): 1, 2, 3, 4: 2 each; 5: 3 (under one move included); 6: 0; 7: 3
/// (the forfeit is not played); 8: 0.
///
/// Ranks: 1 and 2 tie on 3½, Cut-1 8½ against 6½; 5 and 7 tie on ½, 9
/// against 6½.
async fn check_standings(arbiter: &mut Client) {
    let s = act(
        arbiter.get_standings(pb::GetStandingsRequest { event: EVENT.into(), round: 0 }).await,
        "standings",
    )
    .await;
    assert_eq!(s.round, 4);
    assert_eq!(s.tie_breaks, ["BH/C1", "BH", "SB", "WIN", "WON", "BPG"]);
    let rows: Vec<(i32, i32, &str, Vec<&str>)> = s
        .standings
        .iter()
        .map(|r| {
            (r.rank, r.participant, r.points.as_str(), r.tie_breaks.iter().map(String::as_str).collect())
        })
        .collect();
    let expected: Vec<(i32, i32, &str, Vec<&str>)> = vec![
        (1, 1, "3½", vec!["8.5", "9", "7.25", "3", "3", "2"]),
        (2, 2, "3½", vec!["6.5", "7", "5.25", "3", "3", "2"]),
        (3, 4, "3", vec!["7", "7.5", "4", "3", "3", "2"]),
        (4, 8, "2½", vec!["6.5", "7", "3.5", "2", "1", "0"]),
        (5, 6, "2", vec!["9", "9.5", "2.5", "2", "1", "0"]),
        (6, 3, "1", vec!["9", "9.5", "1.5", "0", "0", "2"]),
        (7, 5, "½", vec!["9", "9.5", "0.25", "0", "0", "3"]),
        (8, 7, "½", vec!["6.5", "7", "0.5", "0", "0", "3"]),
    ];
    assert_eq!(rows, expected);

    // CN-16 grade points, game by game in round order (only games played
    // with both sides moving move them; the amounts of DEC-15):
    // r1: 1 (200) beats 5 (100), D 100: +2; 2 (150) beats 6 (100), D 50:
    //     10 - 50/12.5 = +6; 3 (120) draws 7 (100), D 20: 7 gains
    //     (10 + 2)/2 = 6; 4 and 8 (100) D 0: +10.
    // r2: 1 (202) draws 2 (156), D 46: 2 gains (10 + 4.6)/2 = 7.3; 4 (110)
    //     beats 3 (114), D 4: +10.
    // r3: 1 (194.7) beats 4 (120), D 74.7: +4.024; 2 (163.3) beats 3 (104),
    //     D 59.3: +5.256; 8 (90) beats 7 (106), D 16: +11.6 (6-5 lasted
    //     under one move: nothing).
    // r4: 1 (198.724) beats 6 (94), D 104.724: +2; 2 (168.556) beats 5
    //     (98), D 70.556: +4.35552, four places: 4.3555; 8 (101.6) draws 3
    //     (98.744), D 2.856: 0; 4 (115.976) beats 7 (94.4), D 21.576:
    //     +8.27392, four places: 8.2739.
    let grade = |n: i32| s.standings.iter().find(|r| r.participant == n).unwrap().grade_points.clone();
    let grades: Vec<String> = (1..=8).map(grade).collect();
    assert_eq!(grades, ["200.724", "172.9115", "98.744", "124.2499", "93.6445", "92", "86.1261", "101.6"]);

    // Rating changes: only the rated games count (not 6's forfeit win or
    // under-one-move win, not 7's forfeit loss): 6 has one rated game out of
    // four, 5 two (its round 3 lasted under one move).
    let rated = |n: i32| s.standings.iter().find(|r| r.participant == n).unwrap().rated_games;
    assert_eq!((1..=8).map(rated).collect::<Vec<_>>(), [4, 4, 4, 4, 2, 2, 3, 3]);
    let one = s.standings.iter().find(|r| r.participant == 1).unwrap();
    assert!(one.rating_change.starts_with('+') || one.rating_change.starts_with('-'), "{one:?}");
}

/// The TRF26 export: every participant's `001` record with the rounds as
/// hand-written here (opponent, colour, TRF result code).
async fn check_trf(arbiter: &mut Client) {
    let text =
        act(arbiter.export_trf(pb::ExportTrfRequest { event: EVENT.into(), round: 0 }).await, "ExportTrf")
            .await
            .trf;
    let rounds = |r: &[(u16, char, char)]| -> String {
        r.iter().map(|(opp, colour, code)| format!("  {opp:>4} {colour} {code}")).collect()
    };
    let expected = [
        (1, "3.5", rounds(&[(5, 'w', '1'), (2, 'b', '='), (4, 'w', '1'), (6, 'b', '1')])),
        (2, "3.5", rounds(&[(6, 'b', '1'), (1, 'w', '='), (3, 'b', '1'), (5, 'w', '1')])),
        (3, "1.0", rounds(&[(7, 'w', '='), (4, 'b', '0'), (2, 'w', '0'), (8, 'b', '=')])),
        (4, "3.0", rounds(&[(8, 'b', '1'), (3, 'w', '1'), (1, 'b', '0'), (7, 'w', '1')])),
        (5, "0.5", rounds(&[(1, 'b', '0'), (0, '-', 'H'), (6, 'b', 'L'), (2, 'b', '0')])),
        (6, "2.0", rounds(&[(2, 'w', '0'), (7, 'b', '+'), (5, 'w', 'W'), (1, 'w', '0')])),
        (7, "0.5", rounds(&[(3, 'b', '='), (6, 'w', '-'), (8, 'b', '0'), (4, 'b', '0')])),
        (8, "2.5", rounds(&[(4, 'w', '0'), (0, '-', 'U'), (7, 'w', '1'), (3, 'w', '=')])),
    ];
    for (number, points, games) in expected {
        let games = games.replace("     0 -", "  0000 -");
        let line = text
            .lines()
            .find(|l| l.starts_with("001 ") && l[4..8].trim() == number.to_string())
            .unwrap_or_else(|| panic!("no 001 record of {number} in\n{text}"));
        assert_eq!(line[80..84].trim(), points, "points of {number}: {line}");
        assert_eq!(line[89..].trim_end(), games.trim_end(), "rounds of {number}: {line}");
    }
    assert!(text.lines().any(|l| l == "012 Spring Swiss"), "{text}");
    assert!(text.lines().any(|l| l == "222 5400+30"), "{text}");
    assert!(text.lines().any(|l| l == "XXR 4"), "{text}");
    // It reads back as the same crosstable.
    let read = trf::read(&text).expect("the export reads back");
    assert_eq!(read.point_mismatches(), []);
    assert_eq!(trf::write(&read), text);
}

/// Round 1 as PGN: every game with its tags, clocks and rulings.
async fn check_round_pgn(arbiter: &mut Client) {
    let pgn = act(
        arbiter.export_round_pgn(pb::ExportRoundPgnRequest { name: format!("{EVENT}/rounds/1") }).await,
        "ExportRoundPgn",
    )
    .await
    .pgn;
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 4, "{pgn}");
    for (i, game) in games.iter().enumerate() {
        assert!(game.contains("[Round \"1\"]") && game.contains(&format!("[Board \"{}\"]", i + 1)), "{game}");
        assert!(game.starts_with("\"Spring Swiss\"]") && game.contains("[Site \"Oslo\"]"), "{game}");
        assert!(game.contains("[%clk "), "{game}");
    }
    assert!(games[0].contains("[WhiteElo \"2400\"]") && games[0].contains("[BlackElo \"2000\"]"));
    assert!(games[0].contains("[WhiteFideId \"5000001\"]") && games[0].contains("[BlackFideId \"5000005\"]"));
    assert!(games[0].contains("[Result \"1-0\"]") && games[0].contains("[Termination \"normal\"]"));
    assert!(games[2].contains("[Result \"1/2-1/2\"]") && games[2].contains("FIDE-9.2"), "{}", games[2]);
    assert!(games[3].contains("[Result \"0-1\"]") && games[3].contains("[Termination \"time forfeit\"]"));
}

/// Bad pairing lists get an error naming the line, and create nothing.
async fn bad_pairings_create_nothing(arbiter: &mut Client) {
    let create = |pairings: &str, round: i32| pb::CreateRoundRequest {
        parent: EVENT.into(),
        round,
        pairings: pairings.into(),
        ..Default::default()
    };
    let games_before = arbiter
        .list_games(pb::ListGamesRequest { page_size: 1000, ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .games
        .len();
    for (pairings, line, what) in [
        ("1 2\n3 9\n", "line 2", "not in the event"),
        ("1 2\n3 4\n2 5\n", "line 3", "already paired"),
        ("1 2\n3 x\n", "line 2", "not a pairing line"),
        ("1 2\n3 4 5\n", "line 2", "unknown preset result"),
        ("1 2\n10000 3\n", "line 2", "not a start number"),
    ] {
        let s = expect_bad_field(arbiter.create_round(create(pairings, 5)).await, "pairings");
        assert!(s.message().contains(line) && s.message().contains(what), "{pairings:?}: {s:?}");
    }
    // A round created twice.
    let s = expect_code(arbiter.create_round(create("1 2\n", 4)).await, Code::AlreadyExists);
    assert!(s.message().contains("events/spring-swiss/rounds/4"), "{s:?}");
    // Nothing was created: no round 5, no new game.
    expect_code(
        arbiter.get_round(pb::GetRoundRequest { name: format!("{EVENT}/rounds/5") }).await,
        Code::NotFound,
    );
    let games_after = arbiter
        .list_games(pb::ListGamesRequest { page_size: 1000, ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .games
        .len();
    assert_eq!(games_before, games_after);
}

/// The next message of a round watch that matches, within five seconds.
async fn next_matching(
    stream: &mut tonic::Streaming<pb::WatchRoundResponse>,
    what: &str,
    mut wanted: impl FnMut(&pb::WatchRoundResponse) -> bool,
) -> pb::WatchRoundResponse {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let message = tokio::time::timeout_at(deadline, stream.message())
            .await
            .unwrap_or_else(|_| panic!("no {what} within 5 s"))
            .expect("the stream stays open")
            .expect("a message");
        assert!(!message.resume_token.is_empty(), "every message carries a resume token");
        if wanted(&message) {
            return message;
        }
    }
}

fn alert_of(m: &pb::WatchRoundResponse) -> Option<&pb::Alert> {
    match &m.item {
        Some(pb::watch_round_response::Item::Alert(a)) => Some(a),
        _ => None,
    }
}

/// The arbiter's alert stream over a round: a flag and a game's end arrive
/// as alerts with their boards and Articles, low time without increment is
/// raised from the clocks, the queue is in priority order, an
/// acknowledgement reaches the watchers, and a watch resumed from a token
/// gets only what came after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_watch_streams_alerts_and_acknowledgements() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let event = pb::Event {
        title: "Hall".into(),
        // No increment: low time is worth an alert (Guidelines III.4).
        regulations: Some(regulations("15", pb::Mode::OverTheBoard)),
        participants: participants()[..4].to_vec(),
        ..Default::default()
    };
    arbiter
        .create_event(pb::CreateEventRequest {
            event_id: "hall".into(),
            event: Some(event),
            request_id: String::new(),
        })
        .await
        .unwrap();
    let created = arbiter
        .create_round(pb::CreateRoundRequest {
            parent: "events/hall".into(),
            pairings: "1 2\n3 4\n".into(),
            start: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let round = created.round.unwrap();
    let (b1, b2) = (game_of(&round, 1), game_of(&round, 2));
    let mut stream = arbiter
        .watch_round(pb::WatchRoundRequest { name: round.name.clone(), resume_token: String::new() })
        .await
        .unwrap()
        .into_inner();
    let first = next_matching(&mut stream, "the round", |m| {
        matches!(m.item, Some(pb::watch_round_response::Item::Round(_)))
    })
    .await;
    assert!(first.queue.is_empty());
    let opening_token = first.resume_token.clone();

    // Board 2: Black resigns after a move each (a game's end, a note).
    play_otb(&mut arbiter, &b2, 0, &["d4", "d5"]).await;
    resign(&mut arbiter, &b2, pb::Color::Black).await;
    let ended = next_matching(&mut stream, "the end of board 2", |m| alert_of(m).is_some()).await;
    let ended = alert_of(&ended).unwrap().clone();
    assert_eq!(
        (ended.kind, ended.board, ended.rule_id.as_str()),
        (pb::AlertKind::GameEnded as i32, 2, "FIDE-5.1.2")
    );

    // Board 1: White at 60 s (low time, no increment), then the flag.
    play_otb(&mut arbiter, &b1, 0, &["e4", "e5"]).await;
    let set = |ms| pb::SetClockRequest {
        name: b1.clone(),
        color: pb::Color::White as i32,
        remaining_ms: ms,
        ..Default::default()
    };
    arbiter.set_clock(set(60_000)).await.unwrap();
    let low = next_matching(&mut stream, "low time", |m| {
        alert_of(m).is_some_and(|a| a.kind == pb::AlertKind::LowTime as i32)
    })
    .await;
    let low = alert_of(&low).unwrap().clone();
    assert_eq!((low.board, low.rule_id.as_str()), (1, "FIDE-III.4"));
    arbiter.set_clock(set(200)).await.unwrap();
    let flag = next_matching(&mut stream, "the flag", |m| {
        alert_of(m).is_some_and(|a| a.kind == pb::AlertKind::Flag as i32)
    })
    .await;
    let flag = alert_of(&flag).unwrap().clone();
    assert_eq!((flag.board, flag.priority), (1, pb::AlertPriority::Act as i32));
    assert!(flag.rule_id.starts_with("FIDE-") && flag.article.is_some(), "{flag:?}");
    assert!(flag.name.starts_with("events/hall/rounds/1/alerts/"), "{}", flag.name);

    // The queue: the flag (act) before the game's end (note).
    let snapshot = next_matching(&mut stream, "a round with the flag queued", |m| {
        matches!(m.item, Some(pb::watch_round_response::Item::Round(_)))
            && m.queue.iter().any(|a| a.name == flag.name)
    })
    .await;
    let kinds: Vec<i32> = snapshot.queue.iter().map(|a| a.kind).collect();
    let flag_at = kinds.iter().position(|k| *k == pb::AlertKind::Flag as i32).unwrap();
    let end_at = kinds.iter().position(|k| *k == pb::AlertKind::GameEnded as i32).unwrap();
    assert!(flag_at < end_at, "{kinds:?}");

    // Acknowledged: the watch sees it, and it leaves the queue.
    let acked = arbiter
        .acknowledge_alert(pb::AcknowledgeAlertRequest { name: flag.name.clone() })
        .await
        .unwrap()
        .into_inner()
        .alert
        .unwrap();
    assert!(acked.acknowledged && acked.acknowledged_by == "arbiter", "{acked:?}");
    next_matching(&mut stream, "the acknowledgement", |m| {
        alert_of(m).is_some_and(|a| a.name == flag.name && a.acknowledged)
    })
    .await;
    next_matching(&mut stream, "a round without the flag queued", |m| {
        matches!(m.item, Some(pb::watch_round_response::Item::Round(_)))
            && !m.queue.iter().any(|a| a.name == flag.name)
    })
    .await;
    expect_code(
        arbiter
            .acknowledge_alert(pb::AcknowledgeAlertRequest {
                name: "events/hall/rounds/1/alerts/nope-s1-0".into(),
            })
            .await,
        Code::NotFound,
    );
    let viewer = server.client(Some(VIEWER_TOKEN)).await;
    let mut viewer = viewer;
    expect_code(
        viewer.acknowledge_alert(pb::AcknowledgeAlertRequest { name: flag.name.clone() }).await,
        Code::PermissionDenied,
    );

    // Resumed from the opening token: the alerts since then come again.
    let mut resumed = arbiter
        .watch_round(pb::WatchRoundRequest { name: round.name.clone(), resume_token: opening_token })
        .await
        .unwrap()
        .into_inner();
    let again =
        next_matching(&mut resumed, "the flag again", |m| alert_of(m).is_some_and(|a| a.name == flag.name))
            .await;
    assert!(alert_of(&again).unwrap().acknowledged, "with its acknowledgement");
    // From the token of a later message (once the backlog is out): nothing
    // from the logs comes again.
    let settled = next_matching(&mut resumed, "a heartbeat", |m| {
        matches!(m.item, Some(pb::watch_round_response::Item::Heartbeat(_)))
    })
    .await;
    let latest = settled.resume_token.clone();
    let mut later = arbiter
        .watch_round(pb::WatchRoundRequest { name: round.name.clone(), resume_token: latest })
        .await
        .unwrap()
        .into_inner();
    next_matching(&mut later, "the round", |m| {
        matches!(m.item, Some(pb::watch_round_response::Item::Round(_)))
    })
    .await;
    let quiet = next_matching(&mut later, "a heartbeat", |m| {
        assert!(alert_of(m).is_none_or(|a| a.game_seq == 0), "nothing of the logs again: {m:?}");
        matches!(m.item, Some(pb::watch_round_response::Item::Heartbeat(_)))
    })
    .await;
    assert!(!quiet.resume_token.is_empty());
    expect_bad_field(
        arbiter
            .watch_round(pb::WatchRoundRequest { name: round.name.clone(), resume_token: "t1".into() })
            .await,
        "resume_token",
    );
    late_entries_and_point_adjustments(&server, &mut arbiter).await;
    server.stop().await;
}

/// After round 1 of `events/hall` (2 beat 1 on time, 3 beat 4): a late
/// entry joins, a taken start number is refused, and an arbiter's point
/// adjustment (12.9.5 after the game; TRF 299) moves the standings; a
/// service token may not adjust points.
async fn late_entries_and_point_adjustments(server: &TestServer, arbiter: &mut Client) {
    let late = pb::Participant { start_number: 5, name: "Late, Lena".into(), ..Default::default() };
    let add = |participants: Vec<pb::Participant>, request_id: &str| pb::AddParticipantsRequest {
        event: "events/hall".into(),
        participants,
        request_id: request_id.into(),
    };
    let event = arbiter
        .add_participants(add(vec![late.clone()], "late-5"))
        .await
        .unwrap()
        .into_inner()
        .event
        .unwrap();
    assert_eq!(event.participants.iter().map(|p| p.start_number).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    // The same request again is a retry: nothing is added twice.
    let again =
        arbiter.add_participants(add(vec![late], "late-5")).await.unwrap().into_inner().event.unwrap();
    assert_eq!(again.participants.len(), 5);
    let taken = pb::Participant { start_number: 1, name: "Twin, Tom".into(), ..Default::default() };
    expect_bad_field(arbiter.add_participants(add(vec![taken], "")).await, "participants[0].start_number");
    let adjust = pb::AdjustPointsRequest {
        event: "events/hall".into(),
        adjustment: Some(pb::PointAdjustment {
            participant: 3,
            round: 1,
            halves: -1,
            reason: "12.9.5: phone rang after the game".into(),
        }),
        request_id: String::new(),
    };
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    expect_code(service.adjust_points(adjust.clone()).await, Code::PermissionDenied);
    arbiter.adjust_points(adjust).await.unwrap();
    let s = arbiter
        .get_standings(pb::GetStandingsRequest { event: "events/hall".into(), round: 0 })
        .await
        .unwrap()
        .into_inner();
    let points: Vec<(i32, &str)> = s.standings.iter().map(|r| (r.participant, r.points.as_str())).collect();
    assert_eq!(points, [(2, "1"), (3, "½"), (1, "0"), (4, "0"), (5, "0")]);
    let trf = arbiter
        .export_trf(pb::ExportTrfRequest { event: "events/hall".into(), round: 0 })
        .await
        .unwrap()
        .into_inner()
        .trf;
    assert!(trf.lines().any(|l| l.starts_with("299")), "the adjustment is in the TRF: {trf}");
}
