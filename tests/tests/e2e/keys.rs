//! Keys and tokens against hostile clients: data files only the owner can
//! read, the player-token key outside the database (moved out of a
//! first-release database, rotated without breaking the tokens given out),
//! revoked role tokens, one spelling per token, one authorization header,
//! throttled failures and weak configured tokens.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_e2e::{
    ARBITER_TOKEN, TestServer, VIEWER_TOKEN, any_port, create, expect_code, expect_reason, new_game,
    regulations, v1 as pb,
};
use arbiter_server::auth::{Authority, Role};
use arbiter_server::keys::{KeyRing, LEGACY_KEY_ID};
use arbiter_server::store::{EventStore, Storage};
use arbiter_server::throttle::ThrottlePolicy;
use arbiter_server::{Config, ServerError};
use tonic::Code;
use tonic_types::StatusExt;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o777
}

fn golden_database() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/server/tests/golden/release.sqlite")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_its_journal_and_the_key_file_are_private() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let dir = server.dir().unwrap().to_path_buf();
    for file in ["arbiter.db", "arbiter.db-wal", "arbiter.db-shm", "arbiter.db.keys"] {
        assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
    }
    // The key is in the key file, not in the database.
    let keys = std::fs::read_to_string(dir.join("arbiter.db.keys")).unwrap();
    let ring = KeyRing::parse(&keys, "keys").unwrap();
    let store = Storage::open(&server.database_url).await.unwrap();
    assert_eq!(store.meta_get("player_token_key").await.unwrap(), None);
    store.close().await;
    let (dir, url) = server.stop().await;

    // A database left readable by an earlier release is narrowed at start.
    let path = dir.as_ref().unwrap().path().join("arbiter.db");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let server = TestServer::start_with(dir, url, |_| {}).await;
    assert_eq!(mode(&path), 0o600);
    // And the same key file is used again.
    let again = std::fs::read_to_string(server.dir().unwrap().join("arbiter.db.keys")).unwrap();
    assert_eq!(KeyRing::parse(&again, "keys").unwrap(), ring);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_release_key_moves_out_of_the_database_and_its_tokens_survive_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arbiter.db");
    std::fs::copy(golden_database(), &db).unwrap();
    let url = format!("sqlite://{}", db.display());

    // The token the first release gave White of a game, made from its key.
    let store = Storage::open(&url).await.unwrap();
    let hex = store.meta_get("player_token_key").await.unwrap().expect("the first release kept its key here");
    let old_key = KeyRing::single(LEGACY_KEY_ID, arbiter_server::auth::from_hex(&hex).unwrap());
    let old_white = Authority::new(old_key.clone(), &[], store.clone()).player_token(
        "online-offers",
        arbiter_chess::Color::White,
        0,
    );
    store.close().await;
    assert!(
        old_white.starts_with("arbp_online-offers_w_") && old_white.split('_').count() == 4,
        "{old_white}"
    );

    let server = TestServer::start_with(Some(dir), url.clone(), |_| {}).await;
    let key_file = server.dir().unwrap().join("arbiter.db.keys");
    assert_eq!(mode(&key_file), 0o600);
    assert_eq!(KeyRing::load(&key_file).unwrap(), old_key, "the key moved out as is");
    let store = Storage::open(&url).await.unwrap();
    assert_eq!(store.meta_get("player_token_key").await.unwrap(), None, "and left the database");
    store.close().await;
    let mut white = server.client(Some(&old_white)).await;
    white.get_game(pb::GetGameRequest { name: "games/online-offers".into() }).await.unwrap();
    let (dir, url) = server.stop().await;

    // Rotation: a new key signs new tokens; the old ones still verify.
    let mut ring = KeyRing::load(&key_file).unwrap();
    let new_id = ring.rotate();
    ring.save(&key_file).unwrap();
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut white = server.client(Some(&old_white)).await;
    white.get_game(pb::GetGameRequest { name: "games/online-offers".into() }).await.unwrap();
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let game = t.name.trim_start_matches("games/");
    assert!(t.white_token.starts_with(&format!("arbp_{game}_w_{new_id}_")), "{}", t.white_token);
    let mut new_white = server.client(Some(&t.white_token)).await;
    new_white.get_game(pb::GetGameRequest { name: t.name.clone() }).await.unwrap();
    let (dir, url) = server.stop().await;

    // Removing the old key revokes every token made with it, and only those.
    let mut ring = KeyRing::load(&key_file).unwrap();
    ring.remove(LEGACY_KEY_ID).unwrap();
    ring.save(&key_file).unwrap();
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut white = server.client(Some(&old_white)).await;
    expect_code(
        white.get_game(pb::GetGameRequest { name: "games/online-offers".into() }).await,
        Code::Unauthenticated,
    );
    let mut new_white = server.client(Some(&t.white_token)).await;
    new_white.get_game(pb::GetGameRequest { name: t.name.clone() }).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_token_has_one_spelling_and_a_request_one_authorization_header() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let get = || pb::GetGameRequest { name: t.name.clone() };

    let (prefix, mac) = t.white_token.rsplit_once('_').unwrap();
    assert_eq!(mac.len(), 64);
    let upper = format!("{prefix}_{}", mac.to_ascii_uppercase());
    assert_ne!(upper, t.white_token, "the MAC has letters to change");
    let mut c = server.client(Some(&upper)).await;
    expect_reason(c.get_game(get()).await, Code::Unauthenticated, "UNAUTHENTICATED");
    // The key id cannot be left out or changed either.
    let parts: Vec<&str> = t.white_token.split('_').collect();
    assert_eq!(parts.len(), 5, "{}", t.white_token);
    for bad in [
        format!("arbp_{}_{}_{}", parts[1], parts[2], parts[4]),
        format!("arbp_{}_{}_kffffffff_{}", parts[1], parts[2], parts[4]),
        format!("arbp_{}_{}_{LEGACY_KEY_ID}_{}", parts[1], parts[2], parts[4]),
        format!("{}0", t.white_token),
    ] {
        let mut c = server.client(Some(&bad)).await;
        expect_code(c.get_game(get()).await, Code::Unauthenticated);
    }
    server.client(Some(&t.white_token)).await.get_game(get()).await.unwrap();

    // Two headers are refused, whichever comes first and even if both are
    // valid: a proxy might read the other one.
    for (first, second) in [
        (ARBITER_TOKEN, "junk"),
        ("junk", ARBITER_TOKEN),
        (VIEWER_TOKEN, ARBITER_TOKEN),
        (ARBITER_TOKEN, ARBITER_TOKEN),
    ] {
        let mut request = tonic::Request::new(get());
        request.metadata_mut().append("authorization", format!("Bearer {first}").parse().unwrap());
        request.metadata_mut().append("authorization", format!("Bearer {second}").parse().unwrap());
        let mut raw =
            arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(server.channel().await);
        let s = expect_reason(raw.get_game(request).await, Code::Unauthenticated, "UNAUTHENTICATED");
        assert!(s.message().contains("more than one authorization header"), "{s:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_role_token_stops_working_within_the_cache_time() {
    let server = TestServer::start().await;
    let store = Storage::open(&server.database_url).await.unwrap();
    let (token, row) = Authority::issue(Role::Viewer, "revoke me", 1);
    store.insert_token(&row).await.unwrap();
    let (other, other_row) = Authority::issue(Role::Viewer, "keep me", 1);
    store.insert_token(&other_row).await.unwrap();
    let mut viewer = server.client(Some(&token)).await;
    viewer.list_games(pb::ListGamesRequest::default()).await.unwrap();

    assert!(store.revoke_token(&row.id, 2).await.unwrap());
    let deadline =
        tokio::time::Instant::now() + arbiter_server::auth::ROLE_TOKEN_CACHE_TTL + Duration::from_secs(2);
    loop {
        match viewer.list_games(pb::ListGamesRequest::default()).await {
            Err(s) if s.code() == Code::Unauthenticated => break,
            Ok(_) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            other => panic!("still served after the cache time: {other:?}"),
        }
    }
    // Another token is untouched; the revoked one stays refused.
    let mut kept = server.client(Some(&other)).await;
    kept.list_games(pb::ListGamesRequest::default()).await.unwrap();
    expect_code(viewer.list_games(pb::ListGamesRequest::default()).await, Code::Unauthenticated);
    store.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_authentications_are_throttled_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let server = TestServer::start_with(Some(dir), url, |config| {
        config.auth_throttle = Some(ThrottlePolicy { burst: 5, per_second: 2.0 });
    })
    .await;
    let get = || pb::ListGamesRequest::default();
    let mut valid = server.arbiter().await;
    let mut bad = server.client(Some("arb_0011223344556677_00")).await;
    for _ in 0..5 {
        expect_code(bad.list_games(get()).await, Code::Unauthenticated);
    }
    // The address has spent its failures: refused before any token check,
    // a valid one included, with the time to wait.
    let s = expect_reason(bad.list_games(get()).await, Code::ResourceExhausted, "AUTHENTICATION_THROTTLED");
    let retry = s.get_details_retry_info().and_then(|r| r.retry_delay).expect("RetryInfo");
    assert!(retry > Duration::ZERO && retry <= Duration::from_millis(500), "{retry:?}");
    expect_reason(valid.list_games(get()).await, Code::ResourceExhausted, "AUTHENTICATION_THROTTLED");
    // Health needs no token and is never throttled.
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap();
    // Half a second later one more attempt is allowed.
    tokio::time::sleep(Duration::from_millis(600)).await;
    valid.list_games(get()).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn honest_callers_are_never_throttled() {
    // The default policy: 300 good calls and a few failures in a row pass.
    let server = TestServer::start().await;
    let mut valid = server.client(Some(VIEWER_TOKEN)).await;
    let mut bad = server.client(Some("wrong")).await;
    for i in 0..300 {
        valid.list_games(pb::ListGamesRequest::default()).await.unwrap();
        if i % 10 == 0 {
            expect_code(bad.list_games(pb::ListGamesRequest::default()).await, Code::Unauthenticated);
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weak_and_placeholder_tokens_are_refused_at_start() {
    for weak in [
        "CHANGE-ME-arbiter-token-at-least-16-chars",
        "aaaaaaaaaaaaaaaa",
        "abababababababababababababababababab",
        "short-but-random-Xy7",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::new(format!("sqlite://{}", dir.path().join("a.db").display()));
        config.tokens = vec![(Role::Service, weak.to_string())];
        let listener = tokio::net::TcpListener::bind(any_port()).await.unwrap();
        let refused = arbiter_server::run(listener, config, std::future::pending()).await;
        match refused {
            Err(ServerError::WeakToken(why)) => {
                assert!(why.contains("service token"), "{why}");
                assert!(!why.contains(weak), "the message does not echo the token: {why}");
            }
            other => panic!("{weak}: {other:?}"),
        }
        // Refused before anything was written.
        assert!(!dir.path().join("a.db").exists(), "{weak}");
    }
}
