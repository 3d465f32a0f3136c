//! Every authentication and authorisation denial, and that a denied request
//! records nothing.

use arbiter_e2e::{
    Client, SERVICE_TOKEN, TestServer, VIEWER_TOKEN, create, expect_code, expect_reason, get_game, make_move,
    new_game, regulations, v1 as pb,
};
use tonic::Code;

/// Every read and a few acts on `name` with `client`, each expected to fail
/// with `code`.
async fn all_denied(client: &mut Client, name: &str, code: Code) {
    expect_code(client.get_game(pb::GetGameRequest { name: name.into() }).await, code);
    expect_code(
        client
            .list_game_events(pb::ListGameEventsRequest { parent: name.into(), ..Default::default() })
            .await,
        code,
    );
    expect_code(client.export_pgn(pb::ExportPgnRequest { name: name.into() }).await, code);
    expect_code(
        client
            .watch_game(pb::WatchGameRequest { name: name.into(), after_seq: 0 })
            .await
            .map(|_| tonic::Response::new(())),
        code,
    );
    expect_code(client.make_move(make_move(name, "e2e4")).await, code);
    expect_code(
        client.offer_draw(pb::OfferDrawRequest { name: name.into(), ..Default::default() }).await,
        code,
    );
    expect_code(
        client.pause_clocks(pb::PauseClocksRequest { name: name.into(), ..Default::default() }).await,
        code,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthenticated_callers_are_refused() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;

    let mut headerless = server.client(None).await;
    all_denied(&mut headerless, &t.name, Code::Unauthenticated).await;
    let s = expect_reason(
        headerless.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await,
        Code::Unauthenticated,
        "UNAUTHENTICATED",
    );
    assert!(s.message().contains("authorization"), "{s:?}");
    expect_code(headerless.list_games(pb::ListGamesRequest::default()).await, Code::Unauthenticated);
    // Authentication comes before any check of the request.
    expect_code(
        headerless.get_game(pb::GetGameRequest { name: "not a name".into() }).await,
        Code::Unauthenticated,
    );
    expect_code(
        headerless
            .watch_game(pb::WatchGameRequest { name: t.name.clone(), after_seq: -1 })
            .await
            .map(|_| tonic::Response::new(())),
        Code::Unauthenticated,
    );
    expect_code(
        headerless.list_games(pb::ListGamesRequest { page_size: -1, ..Default::default() }).await,
        Code::Unauthenticated,
    );
    expect_code(
        headerless.make_move(pb::MakeMoveRequest { color: 9, ..make_move("games/BAD", "zz") }).await,
        Code::Unauthenticated,
    );
    expect_code(
        headerless.create_game(pb::CreateGameRequest { game_id: "BAD".into(), ..Default::default() }).await,
        Code::Unauthenticated,
    );

    for token in [
        "wrong-token",
        "x",
        "test-arbiter-token-0123456789-Kq7Z",   // one character short
        "test-arbiter-token-0123456789-Kq7Zxx", // one character long
        "arb_0011223344556677_deadbeef",        // an issued-token shape, unknown id
        "arbp_",
        "arbp_nope",
        "arbp_game_x_00",
    ] {
        let mut c = server.client(Some(token)).await;
        expect_code(c.get_game(pb::GetGameRequest { name: t.name.clone() }).await, Code::Unauthenticated);
        expect_code(c.list_games(pb::ListGamesRequest::default()).await, Code::Unauthenticated);
    }
    for header in
        ["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "bearer", "Token test-arbiter-token-0123456789-Kq7Zx"]
    {
        let mut c = server.client_with_header(header).await;
        expect_code(c.get_game(pb::GetGameRequest { name: t.name.clone() }).await, Code::Unauthenticated);
    }

    // A player token with one MAC digit changed, or another colour or game
    // written into it, is not valid.
    let token = t.white_token.clone();
    let (prefix, mac) = token.rsplit_once('_').unwrap();
    let last = mac.chars().last().unwrap();
    let flipped = if last == '0' { '1' } else { '0' };
    let tampered = format!("{prefix}_{}{flipped}", &mac[..mac.len() - 1]);
    assert_ne!(tampered, token);
    let first = if mac.starts_with('f') { 'e' } else { 'f' };
    let tampered_first = format!("{prefix}_{first}{}", &mac[1..]);
    let other_colour = token.replacen("_w_", "_b_", 1);
    let game_id = t.name.trim_start_matches("games/");
    let other_game = token.replacen(game_id, "other-game", 1);
    let truncated = token[..token.len() - 2].to_string();
    for bad in [tampered, tampered_first, other_colour, other_game, truncated] {
        let mut c = server.client(Some(&bad)).await;
        let s = expect_code(c.make_move(make_move(&t.name, "e2e4")).await, Code::Unauthenticated);
        assert!(!s.message().contains(&mac[..8]), "the message does not echo the token");
        expect_code(c.get_game(pb::GetGameRequest { name: t.name.clone() }).await, Code::Unauthenticated);
    }
    // The genuine token works.
    let mut c = server.client(Some(&token)).await;
    c.get_game(pb::GetGameRequest { name: t.name.clone() }).await.unwrap();

    assert_eq!(get_game(&mut arbiter, &t.name).await.last_seq, 1, "nothing recorded");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_and_player_tokens_are_confined() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut a = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let mut b = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let white = pb::Color::White as i32;
    let black = pb::Color::Black as i32;

    // A player acts only for his colour.
    let s = expect_reason(
        a.white.make_move(pb::MakeMoveRequest { color: black, ..make_move(&a.name, "e7e5") }).await,
        Code::PermissionDenied,
        "PERMISSION_DENIED",
    );
    assert!(s.message().contains("White"), "{s:?}");
    expect_code(
        a.black
            .resign_game(pb::ResignGameRequest { name: a.name.clone(), color: white, ..Default::default() })
            .await,
        Code::PermissionDenied,
    );
    // Naming his own colour is fine.
    a.white.make_move(pb::MakeMoveRequest { color: white, ..make_move(&a.name, "e2e4") }).await.unwrap();

    // A player token of game A neither reads nor acts in game B.
    all_denied(&mut a.white, &b.name, Code::PermissionDenied).await;
    all_denied(&mut a.black, &b.name, Code::PermissionDenied).await;
    // Nor lists games, creates them, or takes arbiter actions in its own.
    expect_code(a.white.list_games(pb::ListGamesRequest::default()).await, Code::PermissionDenied);
    expect_code(
        a.white.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await,
        Code::PermissionDenied,
    );
    for c in [&mut a.white, &mut a.black] {
        expect_code(
            c.pause_clocks(pb::PauseClocksRequest { name: a.name.clone(), ..Default::default() }).await,
            Code::PermissionDenied,
        );
        expect_code(
            c.adjust_clock(pb::AdjustClockRequest {
                name: a.name.clone(),
                color: white,
                delta_ms: 60_000,
                ..Default::default()
            })
            .await,
            Code::PermissionDenied,
        );
        expect_code(
            c.declare_result(pb::DeclareResultRequest {
                name: a.name.clone(),
                result: pb::DeclaredResult::WhiteWins as i32,
                ..Default::default()
            })
            .await,
            Code::PermissionDenied,
        );
    }
    // But it reads its own game.
    a.black.get_game(pb::GetGameRequest { name: a.name.clone() }).await.unwrap();
    a.black.export_pgn(pb::ExportPgnRequest { name: a.name.clone() }).await.unwrap();

    // A viewer reads, and nothing else.
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    viewer.get_game(pb::GetGameRequest { name: a.name.clone() }).await.unwrap();
    viewer.list_games(pb::ListGamesRequest::default()).await.unwrap();
    viewer
        .list_game_events(pb::ListGameEventsRequest { parent: a.name.clone(), ..Default::default() })
        .await
        .unwrap();
    expect_code(
        viewer.make_move(pb::MakeMoveRequest { color: black, ..make_move(&a.name, "e7e5") }).await,
        Code::PermissionDenied,
    );
    expect_code(
        viewer.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await,
        Code::PermissionDenied,
    );
    expect_code(
        viewer.pause_clocks(pb::PauseClocksRequest { name: a.name.clone(), ..Default::default() }).await,
        Code::PermissionDenied,
    );

    // A service creates, lists and reads, but neither plays nor arbitrates.
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    let created = service
        .create_game(new_game(regulations("5+2", pb::Mode::Online), false))
        .await
        .unwrap()
        .into_inner();
    let c_name = created.game.unwrap().name;
    service.get_game(pb::GetGameRequest { name: b.name.clone() }).await.unwrap();
    expect_code(
        service.make_move(pb::MakeMoveRequest { color: black, ..make_move(&a.name, "e7e5") }).await,
        Code::PermissionDenied,
    );
    expect_code(
        service.start_game(pb::StartGameRequest { name: c_name.clone(), ..Default::default() }).await,
        Code::PermissionDenied,
    );
    expect_code(
        service
            .set_clock(pb::SetClockRequest {
                name: b.name.clone(),
                color: white,
                remaining_ms: 1,
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
    );
    expect_code(
        service
            .issue_penalty(pb::IssuePenaltyRequest {
                name: b.name.clone(),
                color: white,
                kind: pb::PenaltyKind::DeclareLost as i32,
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
    );

    // None of the denials changed a game.
    assert_eq!(get_game(&mut arbiter, &a.name).await.last_seq, 2);
    assert_eq!(get_game(&mut arbiter, &b.name).await.last_seq, 1);
    assert_eq!(get_game(&mut arbiter, &c_name).await.last_seq, 0);
    // And game B's own players still play it.
    b.white.make_move(make_move(&b.name, "d2d4")).await.unwrap();
    server.stop().await;
}
