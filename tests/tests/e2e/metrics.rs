//! The metrics port as dashboards expect it: a real HTTP server (query
//! strings and keep-alive requests answered), `# HELP` and `# TYPE` for
//! every metric, the gRPC server metrics named and labelled as
//! go-grpc-prometheus does, `arbiter_build_info` and the process metrics.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use arbiter_server::ConnectionLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` on `addr`: the status and the body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String, String) {
    let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\naccept: text/plain\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(5), socket.read_to_string(&mut answer))
        .await
        .expect("the answer ends (the connection closes after it)")
        .unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// The labels of one sample line, `name{a="x",b="y"} 1`.
fn labels(line: &str) -> BTreeMap<String, String> {
    let Some((_, rest)) = line.split_once('{') else { return BTreeMap::new() };
    let inside = &rest[..rest.rfind('}').unwrap()];
    inside
        .split("\",")
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once("=\"").unwrap();
            (k.to_owned(), v.trim_end_matches('"').to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrape_follows_the_prometheus_and_grpc_conventions() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    create(&server, &mut arbiter, new_game(regulations("5+2", pb::Mode::Online), true)).await;
    let refused = server
        .client(Some(VIEWER_TOKEN))
        .await
        .create_game(new_game(regulations("5+2", pb::Mode::Online), true))
        .await;
    assert!(refused.is_err());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = ConnectionLimits { max_connections: 4, handshake_timeout: Duration::from_secs(5) };
    let serving = tokio::spawn(arbiter_server::serve_metrics(listener, limits));

    let (status, head, text) = get(addr, "/metrics?x=1").await;
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: text/plain; version=0.0.4"), "{head}");
    assert_eq!(get(addr, "/metrics").await.0, 200);
    assert_eq!(get(addr, "/other").await.0, 404);

    // Every metric has its HELP and its TYPE.
    let named = |prefix: &str| -> BTreeSet<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|rest| rest.split_whitespace().next().unwrap().to_owned())
            .collect()
    };
    let (helped, typed) = (named("# HELP "), named("# TYPE "));
    let missing: Vec<_> = typed.difference(&helped).collect();
    assert!(missing.is_empty(), "metrics without # HELP: {missing:?}");
    assert!(typed.len() > 10, "{typed:?}");

    // The gRPC server metrics, as go-grpc-prometheus labels them.
    let series = |name: &str| -> Vec<BTreeMap<String, String>> {
        text.lines().filter(|l| l.starts_with(&format!("{name}{{"))).map(labels).collect()
    };
    let want = |method: &str, code: &str| {
        BTreeMap::from([
            ("grpc_service".to_owned(), "arbiter.v1.ArbiterService".to_owned()),
            ("grpc_method".to_owned(), method.to_owned()),
            ("grpc_type".to_owned(), "unary".to_owned()),
            ("grpc_code".to_owned(), code.to_owned()),
        ])
    };
    let handled = series("grpc_server_handled_total");
    assert!(handled.contains(&want("CreateGame", "OK")), "{handled:?}");
    assert!(handled.contains(&want("CreateGame", "PERMISSION_DENIED")), "{handled:?}");
    let started = series("grpc_server_started_total");
    assert!(started.iter().any(|l| l.get("grpc_method").is_some_and(|m| m == "CreateGame")), "{started:?}");
    let buckets = series("grpc_server_handling_seconds_bucket");
    assert!(
        buckets
            .iter()
            .any(|l| l.get("grpc_method").is_some_and(|m| m == "CreateGame") && l.contains_key("le")),
        "the handling time is a histogram with buckets"
    );
    assert!(typed.contains("grpc_server_handling_seconds"));

    // What is running, and the process.
    let build = series("arbiter_build_info");
    assert_eq!(build.len(), 1, "{build:?}");
    assert_eq!(build[0].get("version").map(String::as_str), Some(env!("CARGO_PKG_VERSION")));
    for process in
        ["process_resident_memory_bytes", "process_cpu_seconds_total", "process_start_time_seconds"]
    {
        assert!(text.lines().any(|l| l.starts_with(process)), "{process} is scraped");
    }
    serving.abort();
}
