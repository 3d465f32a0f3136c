//! The API as JSON over HTTP (the gateway the web console uses): the same
//! service as over gRPC, in the canonical proto3 JSON mapping, with the same
//! tokens and roles, errors as HTTP statuses with their details, and the
//! watch streams as server-sent events.

use std::net::SocketAddr;
use std::time::Duration;

use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const API: &str = "/api/arbiter.v1.ArbiterService";

fn request(addr: SocketAddr, method: &str, token: Option<&str>, body: &str) -> String {
    let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
    format!(
        "POST {API}/{method} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{auth}\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A unary call: the HTTP status and the JSON answer.
async fn call(server: &TestServer, method: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let (status, text) = call_raw(server, method, token, &body.to_string()).await;
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method}: not JSON ({e}): {text}"));
    (status, json)
}

async fn call_raw(server: &TestServer, method: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let mut socket = TcpStream::connect(server.http_addr).await.unwrap();
    socket.write_all(request(server.http_addr, method, token, body).as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    (head.split_whitespace().nth(1).unwrap().parse().unwrap(), body.to_owned())
}

/// The reason of the `google.rpc.ErrorInfo` among an error's details.
fn reason(error: &Value) -> &str {
    error["details"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"))
        .and_then(|d| d["reason"].as_str())
        .unwrap_or_else(|| panic!("no ErrorInfo in {error}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_in_json_with_the_same_tokens_and_roles() {
    let server = TestServer::start().await;

    // A game created over the gateway, in the JSON grpcurl writes.
    let (status, created) = call(
        &server,
        "CreateGame",
        Some(SERVICE_TOKEN),
        json!({
            "event": "Gateway Open",
            "white": { "name": "White, W" },
            "black": { "name": "Black, B" },
            "regulations": { "timeControl": "90+30", "mode": "MODE_ONLINE" },
            "start": true
        }),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let name = created["game"]["name"].as_str().expect("the game's name").to_owned();
    assert_eq!(created["game"]["status"], "GAME_STATUS_IN_PROGRESS", "enums by name: {created}");
    let white = created["whiteToken"].as_str().expect("camelCase field names").to_owned();

    // What the gateway did is what gRPC sees.
    let mut arbiter = server.arbiter().await;
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.white.unwrap().name, "White, W");

    // A move with the player's token.
    let (status, moved) =
        call(&server, "MakeMove", Some(&white), json!({ "name": name, "move": "e4" })).await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(moved["game"]["movesSan"], json!(["e4"]));

    // The same roles: a viewer reads and may not act; no token is 401; a
    // player token acts for its own colour only.
    let (status, read) = call(&server, "GetGame", Some(VIEWER_TOKEN), json!({ "name": name })).await;
    assert_eq!((status, read["game"]["name"].as_str()), (200, Some(name.as_str())));
    let (status, refused) =
        call(&server, "ResignGame", Some(VIEWER_TOKEN), json!({ "name": name, "color": "COLOR_BLACK" }))
            .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["code"], "PERMISSION_DENIED");
    let (status, anonymous) = call(&server, "GetGame", None, json!({ "name": name })).await;
    assert_eq!((status, anonymous["code"].as_str()), (401, Some("UNAUTHENTICATED")));
    let (status, not_yours) =
        call(&server, "MakeMove", Some(&white), json!({ "name": name, "move": "e5" })).await;
    assert_eq!(status, 400, "{not_yours}");
    assert_eq!(reason(&not_yours), "NOT_YOUR_TURN", "{not_yours}");

    // Errors with their details: a bad field, an unknown game.
    let (status, bad) = call(
        &server,
        "CreateGame",
        Some(SERVICE_TOKEN),
        json!({ "regulations": { "timeControl": "ninety", "mode": "MODE_ONLINE" } }),
    )
    .await;
    assert_eq!((status, bad["code"].as_str()), (400, Some("INVALID_ARGUMENT")), "{bad}");
    let fields = bad["details"].to_string();
    assert!(fields.contains("regulations.time_control"), "the field is named: {bad}");
    let (status, missing) =
        call(&server, "GetGame", Some(VIEWER_TOKEN), json!({ "name": "games/nothing-here" })).await;
    assert_eq!((status, missing["code"].as_str()), (404, Some("NOT_FOUND")));

    // What the gateway itself refuses.
    let (status, text) = call_raw(&server, "GetGame", Some(VIEWER_TOKEN), "{not json").await;
    assert_eq!(status, 400, "{text}");
    let (status, text) = call_raw(&server, "GetGame", Some(VIEWER_TOKEN), r#"{"nmae": "x"}"#).await;
    assert_eq!(status, 400, "an unknown field: {text}");
    let (status, _) = call(&server, "NoSuchMethod", Some(VIEWER_TOKEN), json!({})).await;
    assert_eq!(status, 404);
    let (status, text) = call_raw(&server, "ConnectBoard", Some(ARBITER_TOKEN), "{}").await;
    assert_eq!(status, 400, "client streams are for gRPC: {text}");
}

/// A watch stream as server-sent events: the game at once, then each event
/// as it is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_streams_as_server_sent_events() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let table = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    let name = table.name.clone();

    let mut socket = TcpStream::connect(server.http_addr).await.unwrap();
    let body = json!({ "name": name }).to_string();
    socket
        .write_all(request(server.http_addr, "WatchGame", Some(VIEWER_TOKEN), &body).as_bytes())
        .await
        .unwrap();
    let mut seen = String::new();
    let mut chunk = [0u8; 8192];
    let mut read_until = async |seen: &mut String, wanted: &str| {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !seen.contains(wanted) {
            let n = tokio::time::timeout_at(deadline, socket.read(&mut chunk))
                .await
                .unwrap_or_else(|_| panic!("no {wanted:?} in the stream: {seen}"))
                .unwrap();
            assert!(n > 0, "the stream ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    };
    read_until(&mut seen, "data: {").await;
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(seen.to_ascii_lowercase().contains("content-type: text/event-stream"), "{seen}");
    let mut white = table;
    play_online(&mut white, &["d4"]).await;
    read_until(&mut seen, "\"MOVE_MADE\"").await;
    assert!(seen.contains("\"d4\""), "{seen}");
}
