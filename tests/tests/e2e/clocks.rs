//! Clocks: flags ruled by the service's own timer (no client call), and the
//! arbiter's clock actions (pause, resume, adjust, set, penalties, results,
//! questions).

use std::time::{Duration, Instant};

use arbiter_e2e::{
    Client, TestServer, all_events, clocks, create, expect_bad_field, expect_code, expect_reason,
    expect_ruling, get_game, new_game, play_otb, regulations, rule_id, v1 as pb,
};
use tonic::Code;

/// Waits (polling the stored log only, which never acts on the game) until
/// the game has `seq` events, at most `limit`.
async fn wait_for_events(client: &mut Client, name: &str, seq: usize, limit: Duration) -> Vec<pb::GameEvent> {
    let started = Instant::now();
    loop {
        let events = all_events(client, name).await;
        if events.len() >= seq || started.elapsed() > limit {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The game-over ruling of a flag that fell with no client acting.
fn timer_flag(events: &[pb::GameEvent]) -> &pb::Ruling {
    let last = events.last().expect("events");
    assert_eq!(last.actor, "timer", "the service's timer records the flag: {last:#?}");
    assert_eq!(last.act, "TICK");
    assert!(last.request_id.is_empty());
    expect_ruling(last, "GAME_OVER")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flag_with_a_bare_king_opponent_is_a_draw_under_6_9() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // White has a queen, Black a bare king: if White's flag falls, Black
    // cannot checkmate by any series of legal moves.
    let mut regs = regulations("90+30", pb::Mode::OverTheBoard);
    regs.start_fen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1".into();
    let t = create(&server, &mut arbiter, new_game(regs, true)).await;
    assert_eq!(clocks(&t.game).running, pb::Color::White as i32);
    let set = arbiter
        .set_clock(pb::SetClockRequest {
            name: t.name.clone(),
            color: pb::Color::White as i32,
            remaining_ms: 300,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let set_at = Instant::now();
    let e = set.event.unwrap();
    assert_eq!(expect_ruling(&e, "CLOCK_SET").rule_id, "FIDE-6.10");
    assert!(e.clocks.unwrap().white_remaining_ms <= 300);
    // No call touches the game now; only the log is read.
    tokio::time::sleep(Duration::from_millis(450)).await;
    let events = wait_for_events(&mut arbiter, &t.name, 3, Duration::from_secs(3)).await;
    assert_eq!(events.len(), 3, "start, set clock, flag: {events:#?}");
    let over = timer_flag(&events);
    assert_eq!(over.rule_id, "FIDE-6.9");
    assert_eq!(over.facts["result"], "1/2-1/2");
    assert!(over.summary.contains("cannot checkmate"), "{over:?}");
    let flag = events.last().unwrap();
    assert_eq!(flag.clocks.as_ref().unwrap().white_remaining_ms, 0);
    // Ruled on time: the flag instant is 300 ms after the set on the game's
    // timeline, and the ruling was recorded without waiting for a client.
    assert!(flag.game_time_ms - events[1].game_time_ms >= 300);
    assert!(set_at.elapsed() < Duration::from_secs(3));
    let game = get_game(&mut arbiter, &t.name).await;
    assert_eq!(game.status, pb::GameStatus::Finished as i32);
    let end = game.end.unwrap();
    assert_eq!((end.result.as_str(), end.rule_id.as_str()), ("1/2-1/2", "FIDE-6.9"));
    // The PGN: the set-up position, the result, and the rulings given before
    // any move in the annotator's note.
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    assert!(pgn.contains("[FEN \"4k3/8/8/8/8/8/8/3QK3 w - - 0 1\"]"), "{pgn}");
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    assert!(pgn.contains("FIDE-6.9") && pgn.contains("FIDE-6.10"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1/2-1/2"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flag_with_mating_material_loses_under_6_9() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // One second for the whole game, in the human form with units.
    let t = create(&server, &mut arbiter, new_game(regulations("1s", pb::Mode::OverTheBoard), true)).await;
    let left = clocks(&t.game).white_remaining_ms;
    assert!((900..=1000).contains(&left), "{left}");
    assert_eq!(t.game.category, pb::Category::Blitz as i32);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let events = wait_for_events(&mut arbiter, &t.name, 2, Duration::from_secs(3)).await;
    assert_eq!(events.len(), 2, "{events:#?}");
    let over = timer_flag(&events);
    assert_eq!(over.rule_id, "FIDE-6.9");
    assert_eq!(over.facts["result"], "0-1");
    let game = get_game(&mut arbiter, &t.name).await;
    assert_eq!(game.end.unwrap().result, "0-1");
    assert_eq!(game.clocks.unwrap().white_remaining_ms, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_flag_is_ruled_under_ocr_4_3() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    arbiter_e2e::play_online(&mut t, &["e2e4"]).await;
    arbiter
        .set_clock(pb::SetClockRequest {
            name: t.name.clone(),
            color: pb::Color::Black as i32,
            remaining_ms: 200,
            ..Default::default()
        })
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(350)).await;
    let events = wait_for_events(&mut arbiter, &t.name, 4, Duration::from_secs(3)).await;
    let over = timer_flag(&events);
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("OCR-4.3", "1-0"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbiter_pauses_resumes_adjusts_and_sets_clocks() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    play_otb(&mut arbiter, &t.name, 0, &["e2e4"]).await;
    // Black's clock runs.
    let paused = arbiter
        .pause_clocks(pb::PauseClocksRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let e = paused.event.unwrap();
    assert_eq!((e.act.as_str(), e.actor.as_str()), ("PAUSE_CLOCKS", "arbiter"));
    assert_eq!(expect_ruling(&e, "CLOCKS_PAUSED").rule_id, "FIDE-6.11");
    let first = get_game(&mut arbiter, &t.name).await;
    assert!(clocks(&first).paused);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = get_game(&mut arbiter, &t.name).await;
    assert_eq!(clocks(&first).white_remaining_ms, clocks(&second).white_remaining_ms);
    assert_eq!(clocks(&first).black_remaining_ms, clocks(&second).black_remaining_ms, "paused clocks stand");

    // Paused: no move, no second pause.
    let s = expect_reason(
        t.black.make_move(arbiter_e2e::make_move(&t.name, "e7e5")).await,
        Code::FailedPrecondition,
        "CLOCKS_PAUSED",
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-6.11"));
    expect_reason(
        arbiter.pause_clocks(pb::PauseClocksRequest { name: t.name.clone(), ..Default::default() }).await,
        Code::FailedPrecondition,
        "CLOCKS_PAUSED",
    );

    let resumed = arbiter
        .resume_clocks(pb::ResumeClocksRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(expect_ruling(resumed.event.as_ref().unwrap(), "CLOCKS_RESUMED").rule_id, "FIDE-6.11");
    let g = resumed.game.unwrap();
    assert!(!clocks(&g).paused);
    assert_eq!(clocks(&g).running, pb::Color::Black as i32, "the clock that ran runs again");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let running = get_game(&mut arbiter, &t.name).await;
    assert!(
        clocks(&running).black_remaining_ms <= clocks(&second).black_remaining_ms - 150,
        "Black's clock runs after the resume"
    );

    // Adjust White's (stopped) clock: exact.
    let white_before = clocks(&running).white_remaining_ms;
    let adjusted = arbiter
        .adjust_clock(pb::AdjustClockRequest {
            name: t.name.clone(),
            color: pb::Color::White as i32,
            delta_ms: 60_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let r = expect_ruling(adjusted.event.as_ref().unwrap(), "CLOCK_ADJUSTED");
    assert_eq!((r.rule_id.as_str(), r.facts["delta_ms"].as_str()), ("FIDE-6.10", "60000"));
    assert_eq!(r.color, pb::Color::White as i32);
    assert_eq!(clocks(adjusted.game.as_ref().unwrap()).white_remaining_ms, white_before + 60_000);
    let adjusted = arbiter
        .adjust_clock(pb::AdjustClockRequest {
            name: t.name.clone(),
            color: pb::Color::White as i32,
            delta_ms: -90_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(clocks(adjusted.game.as_ref().unwrap()).white_remaining_ms, white_before - 30_000);

    let set = arbiter
        .set_clock(pb::SetClockRequest {
            name: t.name.clone(),
            color: pb::Color::White as i32,
            remaining_ms: 123_456,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(clocks(set.game.as_ref().unwrap()).white_remaining_ms, 123_456);
    assert_eq!(expect_ruling(set.event.as_ref().unwrap(), "CLOCK_SET").facts["remaining_ms"], "123456");

    // The arbiter resumes nothing that is not paused.
    let s = expect_code(
        arbiter.resume_clocks(pb::ResumeClocksRequest { name: t.name.clone(), ..Default::default() }).await,
        Code::FailedPrecondition,
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-6.11"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbiter_penalties_results_and_questions() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    // Started once only.
    let s = expect_code(
        arbiter.start_game(pb::StartGameRequest { name: t.name.clone(), ..Default::default() }).await,
        Code::FailedPrecondition,
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-6.6"));
    play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5", "g1f3"]).await;
    // The arbiter takes back White's last move (7.5.1): the clock follows.
    let reinstated = arbiter
        .reinstate_position(pb::ReinstatePositionRequest {
            name: t.name.clone(),
            ply: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        expect_ruling(reinstated.event.as_ref().unwrap(), "POSITION_REINSTATED").rule_id,
        "FIDE-7.5.1"
    );
    let g = reinstated.game.unwrap();
    assert_eq!(g.moves_uci, ["e2e4", "e7e5"]);
    assert_eq!(g.side_to_move, pb::Color::White as i32);
    assert_eq!(clocks(&g).running, pb::Color::White as i32);
    let penalty = |color: pb::Color, kind: pb::PenaltyKind, amount_ms: i64| pb::IssuePenaltyRequest {
        name: t.name.clone(),
        color: color as i32,
        kind: kind as i32,
        amount_ms,
        ..Default::default()
    };

    let warned = arbiter
        .issue_penalty(penalty(pb::Color::Black, pb::PenaltyKind::Warning, 0))
        .await
        .unwrap()
        .into_inner();
    let e = warned.event.unwrap();
    assert_eq!(e.act, "PENALTY");
    let w = expect_ruling(&e, "WARNING");
    assert_eq!((w.rule_id.as_str(), w.color), ("FIDE-12.9", pb::Color::Black as i32));

    // White's clock runs; Black's stands, so time added to it is exact.
    let before = get_game(&mut arbiter, &t.name).await;
    assert_eq!(clocks(&before).running, pb::Color::White as i32);
    let added = arbiter
        .issue_penalty(penalty(pb::Color::White, pb::PenaltyKind::AddTimeToOpponent, 30_000))
        .await
        .unwrap()
        .into_inner();
    let r = expect_ruling(added.event.as_ref().unwrap(), "CLOCK_ADJUSTED");
    assert_eq!((r.rule_id.as_str(), r.color), ("FIDE-12.9", pb::Color::Black as i32));
    assert_eq!(
        clocks(added.game.as_ref().unwrap()).black_remaining_ms,
        clocks(&before).black_remaining_ms + 30_000
    );
    let deducted = arbiter
        .issue_penalty(penalty(pb::Color::Black, pb::PenaltyKind::DeductTime, 10_000))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        clocks(deducted.game.as_ref().unwrap()).black_remaining_ms,
        clocks(&before).black_remaining_ms + 20_000
    );

    // No question is open: answering one is the caller's mistake.
    let s = expect_bad_field(
        arbiter
            .answer_question(pb::AnswerQuestionRequest {
                name: t.name.clone(),
                question_id: 42,
                answer: pb::Answer::Accept as i32,
                ..Default::default()
            })
            .await,
        "question_id",
    );
    assert!(s.message().contains("42"), "{s:?}");
    // Nor can a position be reinstated before a ply the game never had.
    expect_bad_field(
        arbiter
            .reinstate_position(pb::ReinstatePositionRequest {
                name: t.name.clone(),
                ply: 9,
                ..Default::default()
            })
            .await,
        "ply",
    );
    expect_bad_field(
        arbiter
            .answer_question(pb::AnswerQuestionRequest {
                name: t.name.clone(),
                question_id: 42,
                answer: 0,
                ..Default::default()
            })
            .await,
        "answer",
    );

    let last_seq = get_game(&mut arbiter, &t.name).await.last_seq;
    let declared = arbiter
        .declare_result(pb::DeclareResultRequest {
            name: t.name.clone(),
            result: pb::DeclaredResult::Draw as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let e = declared.event.unwrap();
    assert_eq!(e.seq, last_seq + 1, "the refused answers recorded nothing");
    let over = expect_ruling(&e, "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-8.7", "1/2-1/2"));
    let game = declared.game.unwrap();
    assert_eq!(game.status, pb::GameStatus::Finished as i32);
    // The arbiter may correct a finished game's result.
    let corrected = arbiter
        .declare_result(pb::DeclareResultRequest {
            name: t.name.clone(),
            result: pb::DeclaredResult::WhiteWins as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(corrected.game.unwrap().end.unwrap().result, "1-0");
    server.stop().await;
}
