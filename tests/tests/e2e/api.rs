//! API mechanics: idempotent retries (AIP-155), optimistic concurrency
//! (AIP-154), malformed input for every kind of field, unknown games, and
//! listing with filters and pages.

use arbiter_e2e::{
    ARBITER_TOKEN, SERVICE_TOKEN, TestServer, VIEWER_TOKEN, all_events, create, expect_bad_field,
    expect_code, expect_reason, get_game, make_move, new_game, play_online, reason, regulations, v1 as pb,
};
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retried_requests_change_nothing() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let request = pb::MakeMoveRequest { request_id: "move-1".into(), ..make_move(&t.name, "e2e4") };
    let first = t.white.make_move(request.clone()).await.unwrap().into_inner();
    let second = t.white.make_move(request.clone()).await.unwrap().into_inner();
    let (e1, e2) = (first.event.unwrap(), second.event.unwrap());
    assert_eq!(e1.seq, 2);
    assert_eq!(e1, e2, "the retry returns the original event");
    assert_eq!(e1.request_id, "move-1");
    assert_eq!(second.game.unwrap().last_seq, 2);
    let events = all_events(&mut arbiter, &t.name).await;
    assert_eq!(events.len(), 2, "one event only");
    assert_eq!(events[1].request_id, "move-1");
    assert_eq!(events[1].seq, e1.seq);

    // Two copies in flight at once: still one event.
    let request = pb::MakeMoveRequest { request_id: "move-2".into(), ..make_move(&t.name, "e7e5") };
    let mut other_black = server.client(Some(&t.black_token)).await;
    let (a, b) = tokio::join!(t.black.make_move(request.clone()), other_black.make_move(request.clone()));
    let (a, b) = (a.unwrap().into_inner().event.unwrap(), b.unwrap().into_inner().event.unwrap());
    assert_eq!(a, b);
    assert_eq!(a.seq, 3);
    assert_eq!(all_events(&mut arbiter, &t.name).await.len(), 3);

    // A late retry of the first move, even with a now stale expected_seq,
    // returns the original answer with the game as it stands.
    let late = t
        .white
        .make_move(pb::MakeMoveRequest { expected_seq: Some(1), ..request_for(&t.name, "move-1", "e2e4") })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(late.event.unwrap().seq, 2);
    assert_eq!(late.game.unwrap().last_seq, 3);

    // CreateGame with a request id: the same game and tokens again.
    let mut req = new_game(regulations("90+30", pb::Mode::OverTheBoard), false);
    req.request_id = "create-1".into();
    let c1 = arbiter.create_game(req.clone()).await.unwrap().into_inner();
    let c2 = arbiter.create_game(req.clone()).await.unwrap().into_inner();
    assert_eq!(c1.game.as_ref().unwrap().name, c2.game.as_ref().unwrap().name);
    assert_eq!(
        (c1.white_token.as_str(), c1.black_token.as_str()),
        (c2.white_token.as_str(), c2.black_token.as_str())
    );
    let listed = arbiter.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert_eq!(listed.games.len(), 2, "the retried create made no second game");
    // The same explicit game id twice without a request id: ALREADY_EXISTS.
    let mut req = new_game(regulations("90+30", pb::Mode::OverTheBoard), false);
    req.game_id = "fixed-id".into();
    arbiter.create_game(req.clone()).await.unwrap();
    expect_code(arbiter.create_game(req).await, Code::AlreadyExists);
    server.stop().await;
}

fn request_for(name: &str, request_id: &str, mv: &str) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest { request_id: request_id.into(), ..make_move(name, mv) }
}

// A CreateGame retried after its first call died between creating and
// starting the game: `request_ids::a_retried_create_starts_a_game_left_pending`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expected_seq_guards_against_stale_writes() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    play_online(&mut t, &["e2e4"]).await;
    assert_eq!(t.game.last_seq, 2);
    let s = expect_reason(
        t.black.make_move(pb::MakeMoveRequest { expected_seq: Some(1), ..make_move(&t.name, "e7e5") }).await,
        Code::Aborted,
        "STALE_SEQ",
    );
    assert!(s.message().contains('2'), "{s:?}");
    let game = get_game(&mut arbiter, &t.name).await;
    assert_eq!(game.last_seq, 2, "nothing recorded");
    assert_eq!(game.moves_uci, ["e2e4"]);
    assert_eq!(all_events(&mut arbiter, &t.name).await.len(), 2);
    // An arbiter action is guarded the same way.
    expect_reason(
        arbiter
            .pause_clocks(pb::PauseClocksRequest {
                name: t.name.clone(),
                expected_seq: Some(3),
                ..Default::default()
            })
            .await,
        Code::Aborted,
        "STALE_SEQ",
    );
    // The current seq works.
    let r = t
        .black
        .make_move(pb::MakeMoveRequest { expected_seq: Some(2), ..make_move(&t.name, "e7e5") })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.event.unwrap().seq, 3);
    assert_eq!(r.game.unwrap().last_seq, 3);
    expect_bad_field(
        t.white.make_move(pb::MakeMoveRequest { expected_seq: Some(-1), ..make_move(&t.name, "g1f3") }).await,
        "expected_seq",
    );
    server.stop().await;
}

/// Every kind of malformed field gives INVALID_ARGUMENT with a field
/// violation naming it, and an ErrorInfo of the service's domain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_names_the_field() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let t = create(&server, &mut a, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    let name = t.name.clone();
    let w = pb::Color::White as i32;

    // Resource names.
    for bad in ["game/x", "games/UPPER", "games/", "", "games/a/b", "games/-x", "games/x y"] {
        expect_bad_field(a.get_game(pb::GetGameRequest { name: bad.into() }).await, "name");
    }
    expect_bad_field(a.export_pgn(pb::ExportPgnRequest { name: "x".into() }).await, "name");
    expect_bad_field(
        a.list_game_events(pb::ListGameEventsRequest { parent: "games/Nope".into(), ..Default::default() })
            .await,
        "parent",
    );
    expect_bad_field(
        a.make_move(pb::MakeMoveRequest { color: w, ..make_move("games/UPPER", "e2e4") }).await,
        "name",
    );
    expect_bad_field(
        a.pause_clocks(pb::PauseClocksRequest { name: "g".into(), ..Default::default() }).await,
        "name",
    );

    // CreateGame.
    let create = |edit: &dyn Fn(&mut pb::CreateGameRequest)| {
        let mut r = new_game(regulations("90+30", pb::Mode::OverTheBoard), false);
        edit(&mut r);
        r
    };
    let cases: Vec<(&str, pb::CreateGameRequest)> = vec![
        ("game_id", create(&|r| r.game_id = "Bad_Id".into())),
        ("game_id", create(&|r| r.game_id = "1abc".into())),
        ("game_id", create(&|r| r.game_id = "a".repeat(64))),
        ("regulations", create(&|r| r.regulations = None)),
        (
            "regulations.time_control",
            create(&|r| r.regulations.as_mut().unwrap().time_control = String::new()),
        ),
        (
            "regulations.time_control",
            create(&|r| r.regulations.as_mut().unwrap().time_control = "abc".into()),
        ),
        (
            "regulations.time_control",
            create(&|r| r.regulations.as_mut().unwrap().time_control = "90+".into()),
        ),
        ("regulations.time_control", create(&|r| r.regulations.as_mut().unwrap().time_control = "0".into())),
        (
            "regulations.start_fen",
            create(&|r| r.regulations.as_mut().unwrap().start_fen = "not a fen".into()),
        ),
        (
            "regulations.start_fen",
            create(&|r| r.regulations.as_mut().unwrap().start_fen = "8/8/8/8/8/8/8/8 w - - 0 1".into()),
        ),
        ("regulations.guidelines_iii", create(&|r| r.regulations.as_mut().unwrap().guidelines_iii = true)),
        ("regulations.mode", create(&|r| r.regulations.as_mut().unwrap().mode = 9)),
        ("regulations.category", create(&|r| r.regulations.as_mut().unwrap().category = 9)),
        ("regulations.regime", create(&|r| r.regulations.as_mut().unwrap().regime = -1)),
        ("regulations.penalty_ms", create(&|r| r.regulations.as_mut().unwrap().penalty_ms = Some(0))),
        ("regulations.penalty_ms", create(&|r| r.regulations.as_mut().unwrap().penalty_ms = Some(i64::MIN))),
        (
            "regulations.default_time_ms",
            create(&|r| r.regulations.as_mut().unwrap().default_time_ms = Some(i64::MAX)),
        ),
        (
            "regulations.device_penalty_deduct_ms",
            create(&|r| r.regulations.as_mut().unwrap().device_penalty_deduct_ms = i64::MIN),
        ),
        (
            "regulations.max_lag_compensation_ms",
            create(&|r| r.regulations.as_mut().unwrap().max_lag_compensation_ms = -1),
        ),
        (
            "regulations.time_control",
            create(&|r| r.regulations.as_mut().unwrap().time_control = "99999999999999999999+1".into()),
        ),
        (
            "regulations.guidelines_iii",
            create(&|r| {
                let regs = r.regulations.as_mut().unwrap();
                regs.time_control = "90".into();
                regs.mode = pb::Mode::Online as i32;
                regs.guidelines_iii = true;
            }),
        ),
        (
            "regulations.reconnect_window_ms",
            create(&|r| r.regulations.as_mut().unwrap().reconnect_window_ms = Some(-5)),
        ),
        (
            "regulations.draw_offers_need_arbiter",
            create(&|r| {
                let regs = r.regulations.as_mut().unwrap();
                regs.draw_offers_need_arbiter = true;
                regs.no_draw_offers_before_move = 20;
            }),
        ),
        ("white.fide_id", create(&|r| r.white.as_mut().unwrap().fide_id = "12ab".into())),
        ("black.name", create(&|r| r.black.as_mut().unwrap().name = "a\u{7}b".into())),
        ("event", create(&|r| r.event = "x".repeat(201))),
        ("round", create(&|r| r.round = "1\n2".into())),
        ("request_id", create(&|r| r.request_id = "r".repeat(129))),
        ("request_id", create(&|r| r.request_id = "has space".into())),
    ];
    for (field, request) in cases {
        expect_bad_field(a.create_game(request).await, field);
    }
    // Several problems at once: every field is named.
    let s = expect_bad_field(
        a.create_game(create(&|r| {
            r.game_id = "BAD".into();
            r.regulations.as_mut().unwrap().time_control = "zz".into();
        }))
        .await,
        "game_id",
    );
    expect_bad_field(Err::<tonic::Response<()>, _>(s), "regulations.time_control");

    // Moves, squares, enums.
    // (An illegal move such as `Ke2` is a move the Laws rule: see
    // `scoresheet.rs`; `Nf6` is no movement of either White knight.)
    for bad in ["", "xyz", "e2e9", "e2e2", "e7e8k", "Nf6", "Kz2", "Bg1-f3"] {
        expect_bad_field(
            a.make_move(pb::MakeMoveRequest { color: w, ..make_move(&name, bad) }).await,
            "move",
        );
    }
    for color in [7, -1, 3] {
        expect_bad_field(
            a.make_move(pb::MakeMoveRequest { color, ..make_move(&name, "e2e4") }).await,
            "color",
        );
    }
    // An arbiter acting for a player names the colour.
    expect_bad_field(a.make_move(make_move(&name, "e2e4")).await, "color");
    expect_bad_field(
        a.make_move(pb::MakeMoveRequest { color: w, premove: true, ..make_move(&name, "e2e4") }).await,
        "premove",
    );
    let touch = |square: &str, kind: i32| pb::TouchPieceRequest {
        name: name.clone(),
        color: w,
        square: square.into(),
        kind,
        ..Default::default()
    };
    for bad in ["z9", "", "e", "e22", "E2"] {
        expect_bad_field(a.touch_piece(touch(bad, 0)).await, "square");
    }
    expect_bad_field(a.touch_piece(touch("e2", 99)).await, "kind");
    expect_bad_field(a.touch_piece(touch("e2", -3)).await, "kind");
    expect_bad_field(
        a.release_castling_king(pb::ReleaseCastlingKingRequest {
            name: name.clone(),
            color: w,
            square: "k1".into(),
            ..Default::default()
        })
        .await,
        "square",
    );
    for piece in
        [pb::PieceRole::Unspecified as i32, pb::PieceRole::Pawn as i32, pb::PieceRole::King as i32, 99]
    {
        expect_bad_field(
            a.place_promotion_piece(pb::PlacePromotionPieceRequest {
                name: name.clone(),
                color: w,
                piece,
                ..Default::default()
            })
            .await,
            "piece",
        );
    }
    expect_bad_field(
        a.claim_draw(pb::ClaimDrawRequest { name: name.clone(), color: w, kind: 99, ..Default::default() })
            .await,
        "kind",
    );
    expect_bad_field(
        a.offer_draw(pb::OfferDrawRequest {
            name: name.clone(),
            color: w,
            expected_seq: Some(-2),
            ..Default::default()
        })
        .await,
        "expected_seq",
    );
    expect_bad_field(
        a.resign_game(pb::ResignGameRequest {
            name: name.clone(),
            color: w,
            request_id: "x".repeat(129),
            ..Default::default()
        })
        .await,
        "request_id",
    );
    expect_bad_field(
        a.press_clock(pb::PressClockRequest {
            name: name.clone(),
            color: w,
            request_id: "tab\tid".into(),
            ..Default::default()
        })
        .await,
        "request_id",
    );

    // Arbiter actions.
    let penalty = |color: i32, kind: i32, amount_ms: i64| pb::IssuePenaltyRequest {
        name: name.clone(),
        color,
        kind,
        amount_ms,
        ..Default::default()
    };
    use pb::PenaltyKind as K;
    let cases = [
        ("kind", penalty(w, K::Unspecified as i32, 0)),
        ("kind", penalty(w, 42, 0)),
        ("amount_ms", penalty(w, K::AddTimeToOpponent as i32, 0)),
        ("amount_ms", penalty(w, K::AddTimeToOpponent as i32, 3_600_001)),
        ("amount_ms", penalty(w, K::DeductTime as i32, -1)),
        ("amount_ms", penalty(w, K::Warning as i32, 1000)),
        ("amount_ms", penalty(w, K::DeclareLost as i32, 1)),
        ("color", penalty(0, K::Warning as i32, 0)),
        ("color", penalty(8, K::Warning as i32, 0)),
    ];
    for (field, request) in cases {
        expect_bad_field(a.issue_penalty(request).await, field);
    }
    let adjust = |color: i32, delta_ms: i64| pb::AdjustClockRequest {
        name: name.clone(),
        color,
        delta_ms,
        ..Default::default()
    };
    expect_bad_field(a.adjust_clock(adjust(w, 0)).await, "delta_ms");
    expect_bad_field(a.adjust_clock(adjust(w, 86_400_001)).await, "delta_ms");
    expect_bad_field(a.adjust_clock(adjust(w, i64::MIN)).await, "delta_ms");
    expect_bad_field(a.adjust_clock(adjust(0, 1000)).await, "color");
    let set = |color: i32, remaining_ms: i64| pb::SetClockRequest {
        name: name.clone(),
        color,
        remaining_ms,
        ..Default::default()
    };
    expect_bad_field(a.set_clock(set(w, -1)).await, "remaining_ms");
    expect_bad_field(a.set_clock(set(w, 86_400_001)).await, "remaining_ms");
    expect_bad_field(a.set_clock(set(5, 1000)).await, "color");
    for result in [0, 99] {
        expect_bad_field(
            a.declare_result(pb::DeclareResultRequest { name: name.clone(), result, ..Default::default() })
                .await,
            "result",
        );
    }
    expect_bad_field(
        a.answer_question(pb::AnswerQuestionRequest { name: name.clone(), answer: 77, ..Default::default() })
            .await,
        "answer",
    );
    expect_bad_field(
        a.record_device(pb::RecordDeviceRequest { name: name.clone(), ..Default::default() }).await,
        "color",
    );

    // Listing.
    for page_size in [-1, 1001, i32::MIN] {
        expect_bad_field(
            a.list_games(pb::ListGamesRequest { page_size, ..Default::default() }).await,
            "page_size",
        );
        expect_bad_field(
            a.list_game_events(pb::ListGameEventsRequest {
                parent: name.clone(),
                page_size,
                ..Default::default()
            })
            .await,
            "page_size",
        );
    }
    for page_token in ["Not A Token", "!!", "9zz"] {
        expect_bad_field(
            a.list_games(pb::ListGamesRequest { page_token: page_token.into(), ..Default::default() }).await,
            "page_token",
        );
    }
    for page_token in ["abc", "-5", "1.5"] {
        expect_bad_field(
            a.list_game_events(pb::ListGameEventsRequest {
                parent: name.clone(),
                page_token: page_token.into(),
                ..Default::default()
            })
            .await,
            "page_token",
        );
    }
    expect_bad_field(a.list_games(pb::ListGamesRequest { status: 7, ..Default::default() }).await, "status");
    expect_bad_field(
        a.watch_game(pb::WatchGameRequest { name: name.clone(), after_seq: -1 })
            .await
            .map(|_| ())
            .map(tonic::Response::new),
        "after_seq",
    );

    // Nothing of this was recorded.
    assert_eq!(get_game(&mut a, &name).await.last_seq, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_games_are_not_found() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let name = "games/nope".to_string();
    expect_reason(a.get_game(pb::GetGameRequest { name: name.clone() }).await, Code::NotFound, "NOT_FOUND");
    expect_code(
        a.make_move(pb::MakeMoveRequest { color: pb::Color::White as i32, ..make_move(&name, "e2e4") }).await,
        Code::NotFound,
    );
    expect_code(
        a.list_game_events(pb::ListGameEventsRequest { parent: name.clone(), ..Default::default() }).await,
        Code::NotFound,
    );
    expect_code(a.export_pgn(pb::ExportPgnRequest { name: name.clone() }).await, Code::NotFound);
    expect_code(
        a.watch_game(pb::WatchGameRequest { name: name.clone(), after_seq: 0 })
            .await
            .map(|_| tonic::Response::new(())),
        Code::NotFound,
    );
    expect_code(
        a.start_game(pb::StartGameRequest { name: name.clone(), ..Default::default() }).await,
        Code::NotFound,
    );
    // Still not found after the failed loads (nothing cached).
    expect_code(a.get_game(pb::GetGameRequest { name }).await, Code::NotFound);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_games_filters_and_pages() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let specs = [
        ("a-1", "Open A", "1", false),
        ("a-2", "Open A", "1", true),
        ("a-3", "Open A", "2", true),
        ("a-4", "Open A", "2", false),
        ("a-5", "Open A", "3", true),
        ("b-1", "Open B", "1", true),
    ];
    for (id, event, round, start) in specs {
        let mut r = new_game(regulations("90+30", pb::Mode::OverTheBoard), start);
        r.game_id = id.into();
        r.event = event.into();
        r.round = round.into();
        a.create_game(r).await.unwrap();
    }
    a.resign_game(pb::ResignGameRequest {
        name: "games/a-3".into(),
        color: pb::Color::White as i32,
        ..Default::default()
    })
    .await
    .unwrap();

    let ids = |r: &pb::ListGamesResponse| r.games.iter().map(|g| g.name.clone()).collect::<Vec<_>>();
    let list = |event: &str, round: &str, status: pb::GameStatus| pb::ListGamesRequest {
        event: event.into(),
        round: round.into(),
        status: status as i32,
        ..Default::default()
    };
    use pb::GameStatus as S;
    let all = a.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert_eq!(ids(&all), ["games/a-1", "games/a-2", "games/a-3", "games/a-4", "games/a-5", "games/b-1"]);
    assert!(all.next_page_token.is_empty());
    let r = a.list_games(list("Open A", "", S::Unspecified)).await.unwrap().into_inner();
    assert_eq!(ids(&r).len(), 5);
    let r = a.list_games(list("Open A", "2", S::Unspecified)).await.unwrap().into_inner();
    assert_eq!(ids(&r), ["games/a-3", "games/a-4"]);
    let r = a.list_games(list("", "1", S::Unspecified)).await.unwrap().into_inner();
    assert_eq!(ids(&r), ["games/a-1", "games/a-2", "games/b-1"]);
    let r = a.list_games(list("", "", S::Pending)).await.unwrap().into_inner();
    assert_eq!(ids(&r), ["games/a-1", "games/a-4"]);
    assert!(r.games.iter().all(|g| g.status == S::Pending as i32));
    let r = a.list_games(list("Open A", "", S::InProgress)).await.unwrap().into_inner();
    assert_eq!(ids(&r), ["games/a-2", "games/a-5"]);
    let r = a.list_games(list("", "", S::Finished)).await.unwrap().into_inner();
    assert_eq!(ids(&r), ["games/a-3"]);
    assert_eq!(r.games[0].end.as_ref().unwrap().result, "0-1");
    let r = a.list_games(list("Open C", "", S::Unspecified)).await.unwrap().into_inner();
    assert!(r.games.is_empty() && r.next_page_token.is_empty());

    // Pages of two over the five games of Open A: every game once, in order.
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let r = a
            .list_games(pb::ListGamesRequest {
                page_size: 2,
                page_token: token.clone(),
                ..list("Open A", "", S::Unspecified)
            })
            .await
            .unwrap()
            .into_inner();
        pages += 1;
        assert!(r.games.len() <= 2);
        seen.extend(ids(&r));
        if r.next_page_token.is_empty() {
            break;
        }
        token = r.next_page_token;
        assert!(pages < 10);
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ["games/a-1", "games/a-2", "games/a-3", "games/a-4", "games/a-5"]);
    // An exact last page has no next token... or an empty page after it.
    let r = a
        .list_games(pb::ListGamesRequest { page_size: 5, ..list("Open A", "", S::Unspecified) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.games.len(), 5);
    assert!(r.next_page_token.is_empty(), "no page after the last: {:?}", r.next_page_token);

    // Viewers and services list too.
    for token in [VIEWER_TOKEN, SERVICE_TOKEN, ARBITER_TOKEN] {
        let mut c = server.client(Some(token)).await;
        assert_eq!(c.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games.len(), 6);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_game_events_pages() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let mut t = create(&server, &mut a, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    play_online(&mut t, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]).await;
    let mut seqs = Vec::new();
    let mut token = String::new();
    let mut sizes = Vec::new();
    loop {
        let r = t
            .white
            .list_game_events(pb::ListGameEventsRequest {
                parent: t.name.clone(),
                page_size: 3,
                page_token: token,
            })
            .await
            .unwrap()
            .into_inner();
        sizes.push(r.events.len());
        seqs.extend(r.events.iter().map(|e| e.seq));
        if r.next_page_token.is_empty() {
            break;
        }
        token = r.next_page_token;
    }
    assert_eq!(sizes, [3, 3, 1]);
    assert_eq!(seqs, (1..=7).collect::<Vec<_>>());
    let events = all_events(&mut a, &t.name).await;
    assert_eq!(events.len(), 7);
    assert_eq!(events[0].act, "START");
    assert!(events.windows(2).all(|w| w[0].game_time_ms <= w[1].game_time_ms));
    assert_eq!(events[6].fen, t.game.fen);
    server.stop().await;
}

/// A request larger than the server accepts (64 KiB by default) is refused
/// with RESOURCE_EXHAUSTED and an ErrorInfo, and the connection keeps
/// serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_requests_are_refused_with_error_info() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let mut request = new_game(regulations("90+30", pb::Mode::OverTheBoard), true);
    request.event = "x".repeat(70_000);
    let status = expect_code(a.create_game(request).await, Code::ResourceExhausted);
    assert_eq!(reason(&status), "REQUEST_TOO_LARGE");
    assert!(status.message().contains("65536"), "{status:?}");
    // The service still answers on the same connection.
    a.list_games(pb::ListGamesRequest::default()).await.unwrap();
    server.stop().await;
}

/// A body that is not a message of the method (here a `ClockReading`,
/// whose field 1 is an integer where `MakeMoveRequest` has a string) is the
/// client's error: INVALID_ARGUMENT with an ErrorInfo, never INTERNAL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undecodable_requests_are_invalid_argument() {
    let server = TestServer::start().await;
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let mut request = tonic::Request::new(pb::ClockReading { white_remaining_ms: 5, ..Default::default() });
    request.metadata_mut().insert("authorization", format!("Bearer {ARBITER_TOKEN}").parse().unwrap());
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/arbiter.v1.ArbiterService/MakeMove");
    let result: Result<tonic::Response<pb::MakeMoveResponse>, _> =
        grpc.unary(request, path, tonic_prost::ProstCodec::default()).await;
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "MALFORMED_REQUEST");
    // An unknown method keeps its code and gains an ErrorInfo too.
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/arbiter.v1.ArbiterService/Castle");
    let result: Result<tonic::Response<pb::MakeMoveResponse>, _> = grpc
        .unary(tonic::Request::new(pb::MakeMoveRequest::default()), path, tonic_prost::ProstCodec::default())
        .await;
    let status = expect_code(result, Code::Unimplemented);
    assert_eq!(reason(&status), "UNIMPLEMENTED");
    server.stop().await;
}
