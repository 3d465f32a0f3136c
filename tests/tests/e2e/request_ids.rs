//! Request ids name one request of one caller and one method (issue 13,
//! findings M1 and M2 of the security audit): another caller reusing an id
//! makes an independent request and never gets the first caller's answer;
//! the same caller reusing it for a different request is refused with
//! ALREADY_EXISTS / REQUEST_ID_REUSED; a retry still gets the original
//! answer. Also the labels that would display spoofed, and the largest page
//! of ListGames.

use arbiter_e2e::reliability::hostile_ids;
use arbiter_e2e::{
    ARBITER_TOKEN, SERVICE_TOKEN, TestServer, all_events, expect_bad_field, expect_code, expect_reason,
    get_game, make_move, new_game, regulations, v1 as pb,
};
use arbiter_server::auth::Role;
use tonic::Code;
use tonic_types::StatusExt;

/// A second service token: another platform's backend.
const OTHER_SERVICE_TOKEN: &str = "test-other-service-token-0123-Rf8Lq";
/// A third one, for the reliability scenario.
const THIRD_SERVICE_TOKEN: &str = "test-third-service-token-0123-Yb2Tc";

async fn server_with_two_services() -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    TestServer::start_with(Some(dir), url, |config| {
        config.tokens.push((Role::Service, OTHER_SERVICE_TOKEN.to_owned()));
        config.tokens.push((Role::Service, THIRD_SERVICE_TOKEN.to_owned()));
    })
    .await
}

fn creation(game_id: &str, time_control: &str, request_id: &str, start: bool) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        game_id: game_id.into(),
        request_id: request_id.into(),
        ..new_game(regulations(time_control, pb::Mode::Online), start)
    }
}

/// M1: a second service token reusing a CreateGame request id gets a game
/// of its own (or the usual ALREADY_EXISTS when it names the same game id),
/// never the first caller's game and player tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_caller_never_gets_the_first_callers_game_or_tokens() {
    let server = server_with_two_services().await;
    let mut s1 = server.client(Some(SERVICE_TOKEN)).await;
    let mut s2 = server.client(Some(OTHER_SERVICE_TOKEN)).await;
    let mut arbiter = server.arbiter().await;

    let first = s1.create_game(creation("rq-a", "5+3", "create-xyz", false)).await.unwrap().into_inner();
    assert_eq!(first.game.as_ref().unwrap().name, "games/rq-a");

    // S2, same id, a different payload (no game id, 1+0): its own game.
    let other = s2.create_game(creation("", "1+0", "create-xyz", false)).await.unwrap().into_inner();
    let other_name = other.game.as_ref().unwrap().name.clone();
    assert_ne!(other_name, "games/rq-a");
    assert_ne!(other.white_token, first.white_token);
    assert_ne!(other.black_token, first.black_token);
    // Its own retry is its own game again.
    let again = s2.create_game(creation("", "1+0", "create-xyz", false)).await.unwrap().into_inner();
    assert_eq!(again.game.unwrap().name, other_name);
    assert_eq!(again.white_token, other.white_token);

    // The arbiter token is another caller too.
    let by_arbiter =
        arbiter.create_game(creation("", "1+0", "create-xyz", false)).await.unwrap().into_inner();
    assert_ne!(by_arbiter.game.unwrap().name, "games/rq-a");
    assert_ne!(by_arbiter.white_token, first.white_token);

    // S2 with the very request S1 sent (same game id): the game exists,
    // which is all it learns; no tokens.
    let status =
        expect_code(s2.create_game(creation("rq-a", "5+3", "create-xyz", false)).await, Code::AlreadyExists);
    assert!(!status.message().contains(&first.white_token), "{status:?}");

    // S1's own retry still gets its game and tokens.
    let retry = s1.create_game(creation("rq-a", "5+3", "create-xyz", false)).await.unwrap().into_inner();
    assert_eq!(retry.game.unwrap().name, "games/rq-a");
    assert_eq!((retry.white_token, retry.black_token), (first.white_token, first.black_token));
    server.stop().await;
}

/// M1, the privilege bypass: a CreateGame "replay" with `start=true` from
/// another caller does not start a pending game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_from_another_caller_never_starts_a_pending_game() {
    let server = server_with_two_services().await;
    let mut s1 = server.client(Some(SERVICE_TOKEN)).await;
    let mut s2 = server.client(Some(OTHER_SERVICE_TOKEN)).await;
    let mut arbiter = server.arbiter().await;
    s1.create_game(creation("pend1", "5+3", "create-pend1", false)).await.unwrap();

    // Naming the game: ALREADY_EXISTS, nothing started.
    expect_code(s2.create_game(creation("pend1", "5+3", "create-pend1", true)).await, Code::AlreadyExists);
    // Not naming it: a game of its own, started; pend1 untouched.
    let own = s2.create_game(creation("", "5+3", "create-pend1", true)).await.unwrap().into_inner();
    let own = own.game.unwrap();
    assert_ne!(own.name, "games/pend1");
    assert_eq!(own.status, pb::GameStatus::InProgress as i32);

    let pending = get_game(&mut arbiter, "games/pend1").await;
    assert_eq!(pending.status, pb::GameStatus::Pending as i32);
    assert_eq!(pending.last_seq, 0);
    assert!(all_events(&mut arbiter, "games/pend1").await.is_empty());
    server.stop().await;
}

/// Same caller, same id, different request: ALREADY_EXISTS with reason
/// REQUEST_ID_REUSED, and nothing is created or started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_caller_reusing_an_id_for_another_creation_is_refused() {
    let server = TestServer::start().await;
    let mut s1 = server.client(Some(SERVICE_TOKEN)).await;
    let mut arbiter = server.arbiter().await;
    s1.create_game(creation("rq-a", "5+3", "create-xyz", false)).await.unwrap();

    let mut other = creation("rq-other", "90+30", "create-xyz", true);
    other.white =
        Some(pb::Player { name: "Someone Else".into(), fide_id: String::new(), ..Default::default() });
    let status = expect_reason(s1.create_game(other).await, Code::AlreadyExists, "REQUEST_ID_REUSED");
    assert!(status.message().contains("create-xyz"), "{status:?}");
    expect_code(arbiter.get_game(pb::GetGameRequest { name: "games/rq-other".into() }).await, Code::NotFound);
    // Only `start` differs: refused too, and the game stays pending.
    expect_reason(
        s1.create_game(creation("rq-a", "5+3", "create-xyz", true)).await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    assert_eq!(get_game(&mut arbiter, "games/rq-a").await.status, pb::GameStatus::Pending as i32);
    server.stop().await;
}

/// A CreateGame with `start` whose first call died between creating the
/// game and starting it: the retry (the same request) finishes the job. The
/// lost start is made by hand in the database file: the game of a
/// `start=false` request is recorded as made by the `start=true` request
/// (whose fingerprint another id's creation gives: the id is no part of it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_create_starts_a_game_left_pending() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let first = arbiter.create_game(creation("", "5+2", "create-1", false)).await.unwrap().into_inner();
    let first = first.game.unwrap();
    assert_eq!(first.status, pb::GameStatus::Pending as i32);
    arbiter.create_game(creation("", "5+2", "create-2", true)).await.unwrap();
    let pool = sqlx::SqlitePool::connect(&server.database_url).await.unwrap();
    let changed = sqlx::query(
        "UPDATE creation_requests SET request_sha256 = \
         (SELECT request_sha256 FROM creation_requests WHERE request_id = 'create-2') \
         WHERE request_id = 'create-1'",
    )
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(changed.rows_affected(), 1);
    pool.close().await;

    let retried = arbiter.create_game(creation("", "5+2", "create-1", true)).await.unwrap().into_inner();
    let retried = retried.game.unwrap();
    assert_eq!(retried.name, first.name);
    assert_eq!(retried.status, pb::GameStatus::InProgress as i32);
    let again = arbiter.create_game(creation("", "5+2", "create-1", true)).await.unwrap().into_inner();
    assert_eq!(again.game.unwrap().last_seq, 1);
    let events = all_events(&mut arbiter, &first.name).await;
    assert_eq!(events.iter().map(|e| e.act.as_str()).collect::<Vec<_>>(), ["START"]);
    server.stop().await;
}

fn moved(name: &str, request_id: &str, mv: &str) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest { request_id: request_id.into(), ..make_move(name, mv) }
}

/// M2: after White's `e4` with id X, White's `d4` with X is refused as a
/// reused id, while Black's `e5`, the arbiter's `DeclareResult` and (in
/// another game) White's resignation with the same X are each recorded;
/// every retry gets its own original answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colliding_acts_of_other_callers_and_methods_are_each_recorded() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        arbiter_e2e::create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true))
            .await;
    let name = t.name.clone();
    let e4 = t.white.make_move(moved(&name, "act-1", "e4")).await.unwrap().into_inner().event.unwrap();
    assert_eq!(e4.seq, 2);

    // White, same method, another move: refused, nothing recorded.
    let status = expect_reason(
        t.white.make_move(moved(&name, "act-1", "d4")).await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    assert!(status.message().contains("act-1"), "{status:?}");
    // Black: another caller.
    let e5 = t.black.make_move(moved(&name, "act-1", "e5")).await.unwrap().into_inner().event.unwrap();
    assert_eq!((e5.seq, e5.actor.as_str(), e5.request_id.as_str()), (3, "black", "act-1"));
    // The arbiter's ruling: recorded, never squatted.
    let ruling = arbiter
        .declare_result(pb::DeclareResultRequest {
            name: name.clone(),
            request_id: "act-1".into(),
            result: pb::DeclaredResult::BlackWins as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ruling.event.unwrap().seq, 4);
    let game = ruling.game.unwrap();
    assert_eq!(game.status, pb::GameStatus::Finished as i32);

    // Each retry gets its own original answer.
    let retry = t.white.make_move(moved(&name, "act-1", "e4")).await.unwrap().into_inner();
    assert_eq!(retry.event.unwrap(), e4);
    let retry = t.black.make_move(moved(&name, "act-1", "e5")).await.unwrap().into_inner();
    assert_eq!(retry.event.unwrap(), e5);
    let events = all_events(&mut arbiter, &name).await;
    assert_eq!(
        events.iter().map(|e| (e.seq, e.actor.as_str(), e.request_id.as_str())).collect::<Vec<_>>(),
        [(1, "arbiter", ""), (2, "white", "act-1"), (3, "black", "act-1"), (4, "arbiter", "act-1")]
    );

    // Another method of the same player: White's resignation after her
    // move with the same id is recorded.
    let mut u =
        arbiter_e2e::create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true))
            .await;
    let other = u.name.clone();
    u.white.make_move(moved(&other, "act-1", "e4")).await.unwrap();
    let resigned = u
        .white
        .resign_game(pb::ResignGameRequest {
            name: other.clone(),
            request_id: "act-1".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resigned.event.unwrap().seq, 3);
    assert_eq!(resigned.game.unwrap().status, pb::GameStatus::Finished as i32);

    // A refused act does not use its id up: after an illegal move with
    // `act-2`, a legal one with `act-2` is recorded.
    let mut v =
        arbiter_e2e::create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true))
            .await;
    let third = v.name.clone();
    expect_code(v.white.make_move(moved(&third, "act-2", "Ke2")).await, Code::FailedPrecondition);
    let d4 = v.white.make_move(moved(&third, "act-2", "d4")).await.unwrap().into_inner();
    assert_eq!(d4.event.unwrap().seq, 2);
    server.stop().await;
}

/// Labels with characters that display other than they read are refused
/// with a field violation; ordinary names in any script (and emoji) pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_would_display_spoofed_are_refused() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    for bad in [
        "Carlsen\u{202E}nesur", // right-to-left override
        "Ding\u{2066}Liren",    // left-to-right isolate
        "Nepo\u{200B}mniachtchi",
        "Ali\u{200D}ce",
        "Bob\u{2028}Smith",
        "Eve\u{2029}",
        "\u{FEFF}Mallory",
        "Trudy\u{061C}",
        "Tab\there",
        "Esc\u{1b}[31m",
    ] {
        let mut request = new_game(regulations("5+3", pb::Mode::Online), false);
        request.white = Some(pb::Player { name: bad.into(), fide_id: String::new(), ..Default::default() });
        let status = expect_bad_field(arbiter.create_game(request).await, "white.name");
        let violation = &status.get_details_bad_request().unwrap().field_violations[0];
        assert!(violation.description.contains("U+"), "{bad:?}: {violation:?}");
        let mut request = new_game(regulations("5+3", pb::Mode::Online), false);
        request.event = format!("Open {bad}");
        expect_bad_field(arbiter.create_game(request).await, "event");
    }
    for good in ["Magnus Carlsen", "丁立人", "Ян Непомнящий", "محمد", "Zoë O'Brien-Łukasz", "♔ 🎉"]
    {
        let mut request = new_game(regulations("5+3", pb::Mode::Online), false);
        request.black = Some(pb::Player { name: good.into(), fide_id: String::new(), ..Default::default() });
        let created = arbiter.create_game(request).await.unwrap_or_else(|e| panic!("{good:?}: {e:?}"));
        assert_eq!(created.into_inner().game.unwrap().black.unwrap().name, good);
    }
    server.stop().await;
}

/// `page_size=1000` pages on over more than 1,000 games (the stores once
/// clamped the extra row the service asks for, ending the list after its
/// first page).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_page_size_paginates() {
    let server = TestServer::start().await;
    let mut creations = tokio::task::JoinSet::new();
    for worker in 0..8 {
        let mut client = server.arbiter().await;
        creations.spawn(async move {
            for i in (worker..1_005).step_by(8) {
                let request = pb::CreateGameRequest {
                    game_id: format!("p{i:04}"),
                    ..new_game(regulations("5+3", pb::Mode::Online), false)
                };
                client.create_game(request).await.unwrap();
            }
        });
    }
    while let Some(done) = creations.join_next().await {
        done.unwrap();
    }
    let mut viewer = server.client(Some(arbiter_e2e::VIEWER_TOKEN)).await;
    let list = |page_token: String, status: pb::GameStatus| pb::ListGamesRequest {
        page_size: 1000,
        page_token,
        status: status as i32,
        ..Default::default()
    };
    for status in [pb::GameStatus::Unspecified, pb::GameStatus::Pending] {
        let first = viewer.list_games(list(String::new(), status)).await.unwrap().into_inner();
        assert_eq!(first.games.len(), 1000);
        assert_eq!(first.next_page_token, "p0999");
        let second = viewer.list_games(list(first.next_page_token, status)).await.unwrap().into_inner();
        assert_eq!(
            second.games.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
            ["games/p1000", "games/p1001", "games/p1002", "games/p1003", "games/p1004"]
        );
        assert!(second.next_page_token.is_empty());
    }
    server.stop().await;
}

/// The request-id part of the `hostile` reliability scenario, short form:
/// several callers reusing each other's ids concurrently.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_reusing_each_others_ids_concurrently() {
    let server = server_with_two_services().await;
    let callers = hostile_ids::Callers {
        services: vec![SERVICE_TOKEN.into(), OTHER_SERVICE_TOKEN.into(), THIRD_SERVICE_TOKEN.into()],
        arbiter: ARBITER_TOKEN.into(),
    };
    let report = hostile_ids::request_id_reuse(&server.url(), &callers, &hostile_ids::Options::short()).await;
    assert!(report.failures.is_empty(), "{report}");
    assert!(report.acts_recorded > 0 && report.games_created > 0, "{report}");
    server.stop().await;
}
