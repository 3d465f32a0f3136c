//! Player tokens can be revoked (issue 13, point 4): `RevokePlayerTokens`
//! replaces a colour's token (or both); the old one fails with
//! UNAUTHENTICATED from then on, also after a restart, and a watch opened
//! with it ends; the new one and the other colour's keep working. A retry
//! returns the same new tokens; only the game's organiser may revoke.

use std::time::Duration;

use arbiter_e2e::{
    ARBITER_TOKEN, SERVICE_TOKEN, TestServer, VIEWER_TOKEN, expect_code, expect_reason, get_game, make_move,
    new_game, regulations, v1 as pb,
};
use arbiter_server::auth::Role;
use tokio_stream::StreamExt;
use tonic::Code;

const OTHER_SERVICE_TOKEN: &str = "test-other-service-token-0123-Gw4Pz";

fn revoke(name: &str, color: pb::Color, request_id: &str) -> pb::RevokePlayerTokensRequest {
    pb::RevokePlayerTokensRequest { name: name.into(), color: color as i32, request_id: request_id.into() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoked_player_tokens_stop_working_and_new_ones_do() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let server = TestServer::start_with(Some(dir), url, |config| {
        config.tokens.push((Role::Service, OTHER_SERVICE_TOKEN.to_owned()));
    })
    .await;
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    let creation = pb::CreateGameRequest {
        request_id: "create-1".into(),
        ..new_game(regulations("5+2", pb::Mode::Online), true)
    };
    let created = service.create_game(creation.clone()).await.expect("CreateGame").into_inner();
    let name = created.game.expect("game").name;
    let (old_white, black) = (created.white_token, created.black_token);
    let mut white = server.client(Some(&old_white)).await;
    white.make_move(make_move(&name, "e2e4")).await.expect("White's first move");
    let mut watch = white
        .watch_game(pb::WatchGameRequest { name: name.clone(), after_seq: 0 })
        .await
        .expect("watch")
        .into_inner();
    while let Ok(Some(Ok(item))) = tokio::time::timeout(Duration::from_millis(500), watch.next()).await {
        if let Some(pb::watch_game_response::Item::Event(e)) = item.item
            && e.seq == 2
        {
            break;
        }
    }

    // Who may not revoke: another platform's token, a viewer, a player.
    for token in [OTHER_SERVICE_TOKEN, VIEWER_TOKEN, old_white.as_str()] {
        let mut client = server.client(Some(token)).await;
        expect_code(
            client.revoke_player_tokens(revoke(&name, pb::Color::White, "")).await,
            Code::PermissionDenied,
        );
    }
    let mut arbiter = server.client(Some(ARBITER_TOKEN)).await;
    expect_code(
        arbiter.revoke_player_tokens(revoke("games/nope", pb::Color::White, "")).await,
        Code::NotFound,
    );
    expect_code(
        arbiter
            .revoke_player_tokens(pb::RevokePlayerTokensRequest {
                color: 7,
                ..revoke(&name, pb::Color::White, "")
            })
            .await,
        Code::InvalidArgument,
    );
    // Nothing was revoked by those.
    white.get_game(pb::GetGameRequest { name: name.clone() }).await.expect("still valid");

    // The creator revokes White's token.
    let revoked = service
        .revoke_player_tokens(revoke(&name, pb::Color::White, "r-1"))
        .await
        .expect("revoke")
        .into_inner();
    assert!(revoked.black_token.is_empty(), "{revoked:?}");
    let new_white = revoked.white_token;
    assert!(new_white.starts_with(&format!("arbp_{}_w1_", name.trim_start_matches("games/"))), "{new_white}");
    let s =
        expect_code(white.get_game(pb::GetGameRequest { name: name.clone() }).await, Code::Unauthenticated);
    assert!(s.message().contains("revoked"), "{s:?}");
    expect_code(white.make_move(make_move(&name, "d2d4")).await, Code::Unauthenticated);

    // The watch opened with the old token ends at its next message.
    let mut black_client = server.client(Some(&black)).await;
    black_client.make_move(make_move(&name, "e7e5")).await.expect("Black's token still works");
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match watch.next().await {
                Some(Ok(_)) => continue,
                Some(Err(status)) => return Some(status),
                None => return None,
            }
        }
    })
    .await
    .expect("the watch ends");
    let status = ended.expect("with an error");
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");

    // The new token acts for White.
    let mut white = server.client(Some(&new_white)).await;
    white.make_move(make_move(&name, "g1f3")).await.expect("the new token works");

    // A retry gets the same token and revokes nothing more; the id reused
    // for another request is refused.
    let again = service
        .revoke_player_tokens(revoke(&name, pb::Color::White, "r-1"))
        .await
        .expect("retry")
        .into_inner();
    assert_eq!(again.white_token, new_white);
    white.get_game(pb::GetGameRequest { name: name.clone() }).await.expect("still the current token");
    expect_reason(
        service.revoke_player_tokens(revoke(&name, pb::Color::Unspecified, "r-1")).await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    // A retried CreateGame hands out the current tokens, not the revoked one.
    let recreated = service.create_game(creation).await.expect("CreateGame retry").into_inner();
    assert_eq!(recreated.white_token, new_white);
    assert_eq!(recreated.black_token, black);

    // An arbiter revokes both; the revocations survive a restart.
    let both = arbiter.revoke_player_tokens(revoke(&name, pb::Color::Unspecified, "")).await.expect("both");
    let both = both.into_inner();
    assert!(both.white_token.contains("_w2_") && both.black_token.contains("_b1_"), "{both:?}");
    let (dir, url) = server.stop().await;
    let server = TestServer::start_with(dir, url, |_| {}).await;
    for old in [&old_white, &new_white, &black] {
        let mut client = server.client(Some(old)).await;
        expect_code(client.get_game(pb::GetGameRequest { name: name.clone() }).await, Code::Unauthenticated);
    }
    for current in [&both.white_token, &both.black_token] {
        let mut client = server.client(Some(current)).await;
        let game = get_game(&mut client, &name).await;
        assert_eq!(game.moves_uci.len(), 3);
    }
    server.stop().await;
}
