//! Complete games to checkmate, online and over the board, and their PGN.

use std::time::Duration;

use arbiter_chess::pgn::{GameResult as PgnResult, read_games};
use arbiter_e2e::{
    TestServer, all_events, create, expect_bad_field, expect_reason, expect_ruling, get_game, make_move,
    new_game, play_online, regulations, v1 as pb,
};
use tonic::Code;

/// Reads the PGN back: the one game in it.
fn parse_pgn(pgn: &str) -> arbiter_chess::pgn::Game {
    let mut games = read_games(pgn.as_bytes());
    let game = games.next().expect("a game").expect("readable PGN");
    assert!(games.next().is_none(), "one game only: {pgn}");
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_game_to_checkmate_with_player_tokens() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    assert_eq!(t.game.status, pb::GameStatus::InProgress as i32);
    assert_eq!(t.game.last_seq, 1, "the start is the first event");
    assert_eq!(t.game.category, pb::Category::Blitz as i32);

    // Scholar's mate: White wins.
    let moves = ["e4", "e7e5", "Bc4", "b8c6", "Qh5", "g8f6", "Qxf7#"];
    let replies = play_online(&mut t, &moves).await;
    for (i, r) in replies.iter().enumerate() {
        let event = r.event.as_ref().unwrap();
        assert_eq!(event.seq, 2 + i as i64, "one event per move, in order");
        assert_eq!(event.act, "SUBMIT_MOVE");
        assert_eq!(event.actor, if i % 2 == 0 { "white" } else { "black" });
        let made = expect_ruling(event, "MOVE_MADE");
        assert_eq!(made.rule_id, "OCR-3.1");
        if i + 1 < moves.len() {
            let completed = expect_ruling(event, "MOVE_COMPLETED");
            assert_eq!(completed.rule_id, "OCR-4.4");
            assert_eq!(completed.facts["bonus_ms"], "2000", "the 2-second increment");
        }
    }
    let game = &t.game;
    assert_eq!(game.status, pb::GameStatus::Finished as i32);
    assert_eq!(game.moves_san, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    assert_eq!(game.moves_uci, ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]);
    let end = game.end.as_ref().unwrap();
    assert_eq!((end.result.as_str(), end.rule_id.as_str()), ("1-0", "FIDE-5.1.1"));
    assert_eq!(game.clocks.as_ref().unwrap().running, pb::Color::Unspecified as i32, "clocks stop");
    let last = replies.last().unwrap().event.as_ref().unwrap();
    let over = expect_ruling(last, "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-5.1.1", "1-0"));

    // The game is over: no more moves.
    let s = expect_reason(
        t.black.make_move(arbiter_e2e::make_move(&t.name, "e8e7")).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert!(s.message().contains("over"), "{s:?}");

    // The audit trail has every event, and ExportPgn writes them.
    let events = all_events(&mut arbiter, &t.name).await;
    assert_eq!(events.len(), 8);
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    let pgn =
        t.white.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    let parsed = parse_pgn(&pgn);
    assert_eq!(parsed.sans().collect::<Vec<_>>(), ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    assert_eq!(parsed.result(), Some(PgnResult::WhiteWins), "{pgn}");
    assert_eq!(parsed.tag("Result"), Some("1-0"));
    assert_eq!(parsed.tag("White"), Some("White, Player"));
    assert_eq!(parsed.tag("Event"), Some("Test Open"));
    assert_eq!(parsed.tag("Termination"), Some("normal"), "{pgn}");
    assert!(parsed.tag("ArbiterTermination").is_some_and(|t| t.contains("FIDE-5.1.1")), "{pgn}");
    // Every completed move has its clock: what the MOVE_COMPLETED ruling said,
    // in whole seconds rounded down (H:MM:SS).
    for (i, event) in events[1..7].iter().enumerate() {
        let left: u64 = expect_ruling(event, "MOVE_COMPLETED").facts["remaining_ms"].parse().unwrap();
        let clk = parsed.moves[i].clock.unwrap_or_else(|| panic!("no [%clk] on move {i}: {pgn}"));
        assert_eq!(clk, Duration::from_secs(left / 1000), "move {i}: {pgn}");
    }
    // The mate completed the last move without a press (6.2.1.1): its clock
    // is White's as the game ended.
    let white_left = game.clocks.as_ref().unwrap().white_remaining_ms;
    let last = parsed.moves[6].clock.unwrap_or_else(|| panic!("no [%clk] on the mate: {pgn}"));
    assert_eq!(last, Duration::from_secs(u64::try_from(white_left).unwrap() / 1000), "{pgn}");
    // The game-ending ruling is a comment.
    assert!(parsed.moves[6].comments.iter().any(|c| c.contains("FIDE-5.1.1")), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_board_game_to_checkmate_make_and_press() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut req = new_game(regulations("90+30", pb::Mode::OverTheBoard), false);
    req.game_id = "otb-mate".into();
    let mut t = create(&server, &mut arbiter, req).await;
    assert_eq!(t.name, "games/otb-mate");
    assert_eq!(t.game.status, pb::GameStatus::Pending as i32);
    assert_eq!(t.game.category, pb::Category::Standard as i32);

    // Nothing can be played before the arbiter starts the game.
    let s = expect_reason(
        t.white.make_move(arbiter_e2e::make_move(&t.name, "f2f3")).await,
        Code::FailedPrecondition,
        "GAME_NOT_STARTED",
    );
    assert_eq!(arbiter_e2e::rule_id(&s).as_deref(), Some("FIDE-6.6"));
    let started = arbiter
        .start_game(pb::StartGameRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let e = started.event.unwrap();
    assert_eq!((e.act.as_str(), e.actor.as_str()), ("START", "arbiter"));
    assert_eq!(expect_ruling(&e, "GAME_STARTED").rule_id, "FIDE-6.6");
    assert_eq!(started.game.unwrap().clocks.unwrap().running, pb::Color::White as i32);

    // Fool's mate, each move made on the board then completed by the press.
    let moves = ["f2f3", "e7e5", "g2g4", "d8h4"];
    for (i, mv) in moves.iter().enumerate() {
        let color = arbiter_e2e::color_of_ply(i);
        let name = t.name.clone();
        let player = t.player(color);
        let made = player.make_move(arbiter_e2e::make_move(&name, mv)).await.unwrap().into_inner();
        let event = made.event.unwrap();
        assert_eq!(event.act, "MAKE_MOVE");
        assert_eq!(expect_ruling(&event, "MOVE_MADE").rule_id, "FIDE-4.7");
        let game = made.game.unwrap();
        if i == 3 {
            // Checkmate completes the move (6.2.1.1): no press.
            assert_eq!(game.status, pb::GameStatus::Finished as i32);
            let over = expect_ruling(&event, "GAME_OVER");
            assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-5.1.1", "0-1"));
            // The mating move counts as completed in the clock reading too.
            let clocks = game.clocks.as_ref().unwrap();
            assert_eq!((clocks.white_moves, clocks.black_moves), (2, 2));
            let s = expect_reason(
                player.press_clock(pb::PressClockRequest { name: name.clone(), ..Default::default() }).await,
                Code::FailedPrecondition,
                "GAME_OVER",
            );
            assert!(!s.message().is_empty());
            break;
        }
        // Made, not completed: the mover's clock still runs.
        assert_eq!(game.clocks.as_ref().unwrap().running, color as i32);
        let pressed = player
            .press_clock(pb::PressClockRequest { name: name.clone(), ..Default::default() })
            .await
            .unwrap()
            .into_inner();
        let event = pressed.event.unwrap();
        assert_eq!(event.act, "PRESS_CLOCK");
        let completed = expect_ruling(&event, "MOVE_COMPLETED");
        assert_eq!(completed.rule_id, "FIDE-6.2a");
        assert_eq!(completed.facts["bonus_ms"], "30000");
        let game = pressed.game.unwrap();
        let other = if color == pb::Color::White { pb::Color::Black } else { pb::Color::White };
        assert_eq!(game.clocks.as_ref().unwrap().running, other as i32, "the press starts the other clock");
        assert_eq!(game.moves_uci.len(), i + 1);
    }
    let game = get_game(&mut arbiter, &t.name).await;
    assert_eq!(game.moves_san, ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(game.end.as_ref().unwrap().result, "0-1");
    assert_eq!(game.clocks.as_ref().unwrap().white_moves, 2);

    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    let parsed = parse_pgn(&pgn);
    assert_eq!(parsed.sans().collect::<Vec<_>>(), ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(parsed.result(), Some(PgnResult::BlackWins));
    assert_eq!(parsed.tag("TimeControl"), Some("5400+30"), "{pgn}");
    // 90 minutes, the first increment given at the start (DEC-7), 30 s per
    // completed move, minus the few milliseconds used.
    // The readings are whole seconds, rounded down.
    for (m, expected) in parsed.moves[..3].iter().zip([5460, 5460, 5490]) {
        let clk = m.clock.unwrap_or_else(|| panic!("no [%clk]: {pgn}"));
        let expected = Duration::from_secs(expected);
        assert!(clk <= expected && clk >= expected - Duration::from_secs(1), "{clk:?}: {pgn}");
        assert_eq!(clk.subsec_nanos(), 0, "{clk:?}: {pgn}");
    }
    assert!(parsed.moves[3].comments.iter().any(|c| c.contains("FIDE-5.1.1")), "{pgn}");
    assert!(pgn.contains("[%clk"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resignation_and_rulings_in_pgn_comments() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    arbiter_e2e::play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5"]).await;
    // A warning from the arbiter is a ruling; it shows in the PGN.
    arbiter
        .issue_penalty(pb::IssuePenaltyRequest {
            name: t.name.clone(),
            color: pb::Color::Black as i32,
            kind: pb::PenaltyKind::Warning as i32,
            ..Default::default()
        })
        .await
        .unwrap();
    let r = t
        .black
        .resign_game(pb::ResignGameRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let over = expect_ruling(r.event.as_ref().unwrap(), "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-5.1.2", "1-0"));
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    let parsed = parse_pgn(&pgn);
    assert_eq!(parsed.result(), Some(PgnResult::WhiteWins));
    let comments = parsed.moves[1].comments.join(" ");
    assert!(comments.contains("FIDE-12.9"), "{pgn}");
    assert!(comments.contains("FIDE-5.1.2"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgn_of_a_game_from_a_set_up_position_with_black_to_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut regs = regulations("90+30", pb::Mode::OverTheBoard);
    // After 1. e4: Black to move.
    regs.start_fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into();
    let t = create(&server, &mut arbiter, new_game(regs, true)).await;
    assert_eq!(t.game.side_to_move, pb::Color::Black as i32);
    assert_eq!(t.game.clocks.as_ref().unwrap().running, pb::Color::Black as i32, "the side to move starts");
    let game = arbiter_e2e::play_otb(&mut arbiter, &t.name, 1, &["c7c5", "g1f3", "d7d6"]).await;
    assert_eq!(game.moves_san, ["c5", "Nf3", "d6"]);
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    assert!(pgn.contains("1... c5"), "{pgn}");
    let parsed = parse_pgn(&pgn);
    assert_eq!(parsed.tag("SetUp"), Some("1"));
    assert_eq!(parsed.tag("FEN"), Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    assert_eq!(parsed.sans().collect::<Vec<_>>(), ["c5", "Nf3", "d6"]);
    assert!(parsed.moves.iter().all(|m| m.clock.is_some()), "{pgn}");
    assert_eq!(parsed.result(), Some(PgnResult::Unknown), "a game in progress: {pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess960_castling_online_and_in_pgn() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut regs = regulations("5+2", pb::Mode::Online);
    regs.chess960 = true;
    // The standard set-up is one of the 960 (518): castling is king takes rook.
    let mut t = create(&server, &mut arbiter, new_game(regs, true)).await;
    let r = play_online(&mut t, &["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "O-O"]).await.remove(6);
    let made = expect_ruling(r.event.as_ref().unwrap(), "MOVE_MADE");
    assert_eq!(made.facts["san"], "O-O");
    assert_eq!(t.game.moves_san.last().unwrap(), "O-O");
    assert_eq!(t.game.moves_uci.last().unwrap(), "e1h1", "king takes rook in Chess960");
    assert!(
        t.game.fen.starts_with("rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b"),
        "{}",
        t.game.fen
    );
    // A king step onto g8 without the castling intent is not castling.
    let s = arbiter_e2e::expect_code(
        t.black.make_move(arbiter_e2e::make_move(&t.name, "e8g8")).await,
        Code::FailedPrecondition,
    );
    assert_eq!(arbiter_e2e::reason(&s), "ILLEGAL_MOVE");
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    let parsed = parse_pgn(&pgn);
    assert_eq!(parsed.tag("Variant"), Some("Chess960"), "{pgn}");
    assert_eq!(parsed.sans().last(), Some("O-O"), "{pgn}");
    server.stop().await;
}

/// GAME_VIEW_BASIC (issue 18, point 1): MakeMove and PressClock answer
/// without the record, which is the one part of the game that grows with
/// every move; the rest of the game is the same as in the full answer. The
/// view is not part of a request's identity: a retry in another view gets
/// the original answer in that view. A view the API does not define is
/// refused before anything is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_basic_answer_leaves_out_the_record() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let basic = pb::GameView::Basic as i32;

    let e4 = pb::MakeMoveRequest {
        name: t.name.clone(),
        r#move: "e4".into(),
        request_id: "view-1".into(),
        view: basic,
        ..Default::default()
    };
    let answer = t.white.make_move(e4.clone()).await.unwrap().into_inner();
    let game = answer.game.unwrap();
    assert!(game.moves_san.is_empty() && game.moves_uci.is_empty(), "{game:?}");
    assert_eq!(answer.outcome, pb::MoveOutcome::Accepted as i32);
    let full = get_game(&mut arbiter, &t.name).await;
    assert_eq!(full.moves_uci, ["e2e4"]);
    assert_eq!(
        (game.fen.as_str(), game.last_seq, game.side_to_move),
        (full.fen.as_str(), 2, full.side_to_move)
    );

    // The retry in the full view: the original event, with the record.
    let retried = t
        .white
        .make_move(pb::MakeMoveRequest { view: pb::GameView::Full as i32, ..e4 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(retried.event.unwrap().seq, 2);
    assert_eq!(retried.game.unwrap().moves_san, ["e4"]);

    // Unspecified is the full game.
    let e5 = t.black.make_move(make_move(&t.name, "e5")).await.unwrap().into_inner();
    assert_eq!(e5.game.unwrap().moves_san, ["e4", "e5"]);

    // A view the API does not define: refused, nothing recorded.
    let refused = t.white.make_move(pb::MakeMoveRequest { view: 7, ..make_move(&t.name, "Nf3") }).await;
    let status = expect_bad_field(refused, "view");
    assert!(status.message().contains("game view"), "{status:?}");
    assert_eq!(get_game(&mut arbiter, &t.name).await.last_seq, 3);
    server.stop().await;
}

/// PressClock over the board takes the view too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_press_answers_in_the_view_asked() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    t.white.make_move(arbiter_e2e::make_move(&t.name, "d4")).await.unwrap();
    let press = |view: pb::GameView| pb::PressClockRequest {
        name: t.name.clone(),
        view: view as i32,
        ..Default::default()
    };
    let pressed = t.white.press_clock(press(pb::GameView::Basic)).await.unwrap().into_inner();
    let game = pressed.game.unwrap();
    assert!(game.moves_uci.is_empty(), "{game:?}");
    assert_eq!(game.side_to_move, pb::Color::Black as i32);
    t.black.make_move(arbiter_e2e::make_move(&t.name, "d5")).await.unwrap();
    let pressed = t.black.press_clock(press(pb::GameView::Full)).await.unwrap().into_inner();
    assert_eq!(pressed.game.unwrap().moves_uci, ["d2d4", "d7d5"]);
    server.stop().await;
}
