//! The limits a token meets (issue 13, audit H2): the creation rate, the cap
//! on unfinished games, CancelGame, the expiry of games never started, and
//! the caps on watch streams. Over a limit: RESOURCE_EXHAUSTED with a reason
//! and a `google.rpc.RetryInfo` delay.

use std::time::{Duration, Instant};

use arbiter_e2e::{
    Client, SERVICE_TOKEN, TestServer, VIEWER_TOKEN, all_events, expect_reason, get_game, new_game,
    regulations, v1 as pb,
};
use arbiter_server::auth::Role;
use arbiter_server::quota::Limits;
use tonic::Code;
use tonic_types::StatusExt;

/// A second service token (another platform).
const OTHER_SERVICE: &str = "test-other-service-token-0123456789";

async fn server_with(limits: Limits, ttl: Option<Duration>) -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    TestServer::start_with(Some(dir), url, move |config| {
        config.tokens.push((Role::Service, OTHER_SERVICE.to_string()));
        config.limits = limits;
        if let Some(ttl) = ttl {
            config.pending_game_ttl = ttl;
        }
    })
    .await
}

fn pending() -> pb::CreateGameRequest {
    new_game(regulations("90+30", pb::Mode::Online), false)
}

/// The RetryInfo delay of a RESOURCE_EXHAUSTED status with `reason`.
#[track_caller]
fn retry_delay<T: std::fmt::Debug>(
    result: Result<tonic::Response<T>, tonic::Status>,
    reason: &str,
) -> Duration {
    let status = expect_reason(result, Code::ResourceExhausted, reason);
    status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .unwrap_or_else(|| panic!("no RetryInfo delay: {status:?}"))
}

async fn create_name(client: &mut Client, request: pb::CreateGameRequest) -> String {
    client.create_game(request).await.expect("CreateGame").into_inner().game.expect("game").name
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creation_rate_is_limited_per_service_token_with_a_retry_delay() {
    let limits = Limits { create_rate_per_s: 2.0, create_burst: 3, ..Limits::default() };
    let server = server_with(limits, None).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    for _ in 0..3 {
        create_name(&mut service, pending()).await;
    }
    let delay = retry_delay(service.create_game(pending()).await, "RATE_LIMITED");
    assert!(delay > Duration::ZERO && delay <= Duration::from_millis(500), "{delay:?}");
    // Another token has its own bucket; arbiter tokens are not limited.
    create_name(&mut server.client(Some(OTHER_SERVICE)).await, pending()).await;
    let mut arbiter = server.arbiter().await;
    for _ in 0..10 {
        create_name(&mut arbiter, pending()).await;
    }
    // A retry of a creation that happened is answered whatever the rate.
    let mut asked = pending();
    asked.request_id = "rate-retry".into();
    let mut other = server.client(Some(OTHER_SERVICE)).await;
    let first = create_name(&mut other, asked.clone()).await;
    for _ in 0..3 {
        let _ = other.create_game(pending()).await;
    }
    assert_eq!(create_name(&mut other, asked).await, first);
    // After the delay the bucket holds a call again.
    tokio::time::sleep(delay).await;
    create_name(&mut service, pending()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_games_are_capped_per_service_token() {
    let limits = Limits { max_unfinished_games: 3, ..Limits::default() };
    let server = server_with(limits, None).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    let mut arbiter = server.arbiter().await;
    let a = create_name(&mut service, pending()).await;
    let _b = create_name(&mut service, pending()).await;
    // A game in progress counts as well.
    let created = service
        .create_game(new_game(regulations("90+30", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner();
    let c = created.game.unwrap().name;
    let delay = retry_delay(service.create_game(pending()).await, "TOO_MANY_UNFINISHED_GAMES");
    assert!(delay >= Duration::from_secs(1), "{delay:?}");
    // Other tokens are not affected; arbiters are not capped.
    create_name(&mut server.client(Some(OTHER_SERVICE)).await, pending()).await;
    create_name(&mut arbiter, pending()).await;
    // A cancelled game frees its place...
    service.cancel_game(pb::CancelGameRequest { name: a, ..Default::default() }).await.unwrap();
    let d = create_name(&mut service, pending()).await;
    expect_reason(service.create_game(pending()).await, Code::ResourceExhausted, "TOO_MANY_UNFINISHED_GAMES");
    // ...and so does a finished one.
    let mut white = server.client(Some(&created.white_token)).await;
    white.resign_game(pb::ResignGameRequest { name: c, ..Default::default() }).await.expect("resign");
    create_name(&mut service, pending()).await;
    // The count is the store's: a restarted server keeps it.
    let (dir, url) = server.stop().await;
    let server = TestServer::start_with(dir, url, move |config| config.limits = limits).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    expect_reason(service.create_game(pending()).await, Code::ResourceExhausted, "TOO_MANY_UNFINISHED_GAMES");
    assert_eq!(get_game(&mut service, &d).await.status, pb::GameStatus::Pending as i32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_game_withdraws_a_game_not_started() {
    let server = server_with(Limits::default(), None).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    let created = service.create_game(pending()).await.unwrap().into_inner();
    let name = created.game.unwrap().name;
    let cancel = |name: &str, request_id: &str| pb::CancelGameRequest {
        name: name.to_string(),
        request_id: request_id.to_string(),
        ..Default::default()
    };
    // Only the creator or an arbiter.
    let mut other = server.client(Some(OTHER_SERVICE)).await;
    expect_reason(other.cancel_game(cancel(&name, "")).await, Code::PermissionDenied, "PERMISSION_DENIED");
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    expect_reason(viewer.cancel_game(cancel(&name, "")).await, Code::PermissionDenied, "PERMISSION_DENIED");
    let mut white = server.client(Some(&created.white_token)).await;
    expect_reason(white.cancel_game(cancel(&name, "")).await, Code::PermissionDenied, "PERMISSION_DENIED");
    expect_reason(service.cancel_game(cancel("games/nope", "")).await, Code::NotFound, "NOT_FOUND");

    let answer = service.cancel_game(cancel(&name, "cancel-1")).await.unwrap().into_inner();
    let event = answer.event.unwrap();
    let game = answer.game.unwrap();
    assert_eq!((event.act.as_str(), event.actor.as_str()), ("WITHDRAW", "service"), "{event:#?}");
    assert_eq!(event.details.get("reason").map(String::as_str), Some("Cancelled"));
    assert!(event.rulings.is_empty(), "a cancellation is not a result: {event:#?}");
    assert_eq!(game.status, pb::GameStatus::Cancelled as i32);
    assert!(game.end.is_none(), "{game:#?}");
    // A retry gets the same answer; a new request is refused.
    let again = service.cancel_game(cancel(&name, "cancel-1")).await.unwrap().into_inner();
    assert_eq!(again.event.unwrap().seq, event.seq);
    expect_code_refused(service.cancel_game(cancel(&name, "")).await);
    // Nothing applies to it any more.
    let mut arbiter = server.arbiter().await;
    expect_code_refused(
        arbiter.start_game(pb::StartGameRequest { name: name.clone(), ..Default::default() }).await,
    );
    let events = all_events(&mut arbiter, &name).await;
    assert_eq!(events.last().unwrap().act, "WITHDRAW");
    // Listed under its status.
    let listed = service
        .list_games(pb::ListGamesRequest { status: pb::GameStatus::Cancelled as i32, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.games.iter().map(|g| g.name.clone()).collect::<Vec<_>>(), vec![name.clone()]);

    // An arbiter may cancel any game not started; a started one is refused.
    let by_service = create_name(&mut service, pending()).await;
    arbiter.cancel_game(cancel(&by_service, "")).await.expect("an arbiter cancels");
    let started = service
        .create_game(new_game(regulations("90+30", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
        .name;
    let refused = expect_code_refused(service.cancel_game(cancel(&started, "")).await);
    assert_eq!(arbiter_e2e::reason(&refused), "NOT_APPLICABLE");
    assert_eq!(get_game(&mut arbiter, &started).await.status, pb::GameStatus::InProgress as i32);
}

#[track_caller]
fn expect_code_refused<T: std::fmt::Debug>(
    result: Result<tonic::Response<T>, tonic::Status>,
) -> tonic::Status {
    arbiter_e2e::expect_code(result, Code::FailedPrecondition)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_never_started_expire_after_the_ttl() {
    let server = server_with(Limits::default(), Some(Duration::from_millis(800))).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    let waiting = create_name(&mut service, pending()).await;
    let started = service
        .create_game(new_game(regulations("90+30", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
        .name;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let game = get_game(&mut service, &waiting).await;
        if game.status == pb::GameStatus::Expired as i32 {
            assert!(game.end.is_none(), "{game:#?}");
            break;
        }
        assert!(Instant::now() < deadline, "the pending game did not expire: {game:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let events = all_events(&mut service, &waiting).await;
    let last = events.last().unwrap();
    assert_eq!((last.act.as_str(), last.actor.as_str()), ("WITHDRAW", "server"), "{last:#?}");
    assert_eq!(last.details.get("reason").map(String::as_str), Some("Expired"));
    // A game in play does not expire.
    assert_eq!(get_game(&mut service, &started).await.status, pb::GameStatus::InProgress as i32);
    // Nor does it come back to life after a restart.
    let (dir, url) = server.stop().await;
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    assert_eq!(get_game(&mut service, &waiting).await.status, pb::GameStatus::Expired as i32);
}

async fn watch(
    client: &mut Client,
    name: &str,
) -> Result<tonic::Streaming<pb::WatchGameResponse>, tonic::Status> {
    client
        .watch_game(pb::WatchGameRequest { name: name.to_string(), after_seq: 0 })
        .await
        .map(|r| r.into_inner())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_streams_are_capped_per_token_and_per_game() {
    let limits =
        Limits { max_watch_streams_per_token: 2, max_watch_streams_per_game: 3, ..Limits::default() };
    let server = server_with(limits, None).await;
    let mut arbiter = server.arbiter().await;
    let created = arbiter
        .create_game(new_game(regulations("90+30", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner();
    let name = created.game.unwrap().name;
    let other = create_name(&mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    let mut white = server.client(Some(&created.white_token)).await;
    let first = watch(&mut white, &name).await.expect("first stream");
    let _second = watch(&mut white, &name).await.expect("second stream");
    let status = watch(&mut white, &name).await.expect_err("over the token's cap");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(arbiter_e2e::reason(&status), "TOO_MANY_WATCH_STREAMS");
    assert!(status.get_details_retry_info().and_then(|r| r.retry_delay).is_some(), "{status:?}");
    // The game's cap: a third stream by another token fills it.
    let mut viewer = server.client(Some(VIEWER_TOKEN)).await;
    let _third = watch(&mut viewer, &name).await.expect("third stream");
    let status = watch(&mut arbiter, &name).await.expect_err("over the game's cap");
    assert_eq!(arbiter_e2e::reason(&status), "TOO_MANY_GAME_WATCH_STREAMS");
    // Another game is not affected.
    let _elsewhere = watch(&mut viewer, &other).await.expect("another game");
    // A closed stream frees its place (once the service sees it closed).
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match watch(&mut white, &name).await {
            Ok(_) => break,
            Err(s) if s.code() == Code::ResourceExhausted && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(s) => panic!("the closed stream was not released: {s:?}"),
        }
    }
}
