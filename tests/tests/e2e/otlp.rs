//! Trace export over OTLP (`arbiterd --otlp-endpoint`): a stand-in
//! collector receives a span per gRPC request, named and attributed as the
//! OpenTelemetry RPC conventions say, in the trace of the caller's
//! `traceparent`, with the gRPC status of the answer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_e2e::daemon::Daemon;
use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;

/// The collector: keeps every span it is sent, with its resource's
/// service name.
#[derive(Clone, Default)]
struct Collector(Arc<Mutex<Vec<(String, Span)>>>);

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut spans = self.0.lock().unwrap();
        for resource in request.into_inner().resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|a| a.key == "service.name")
                .and_then(|a| a.value.as_ref()?.value.clone())
                .map(|v| match v {
                    Value::StringValue(s) => s,
                    other => format!("{other:?}"),
                })
                .unwrap_or_default();
            for scope in resource.scope_spans {
                spans.extend(scope.spans.into_iter().map(|s| (service.clone(), s)));
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

fn attribute(span: &Span, key: &str) -> Option<Value> {
    span.attributes.iter().find(|a| a.key == key).and_then(|a| a.value.as_ref()?.value.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_spans_reach_an_otlp_collector_in_the_callers_trace() {
    let collector = Collector::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let served = collector.clone();
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(served))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await
    });

    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let log = dir.path().join("arbiterd.log");
    let args = ["--otlp-endpoint".to_owned(), endpoint];
    let daemon = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Batches sent every 100 ms instead of 5 s.
        Daemon::spawn_with_env(&url, &log, &args, &[("OTEL_BSP_SCHEDULE_DELAY", "100")])
    })
    .await
    .unwrap();
    let mut arbiter = daemon.arbiter();
    let game = arbiter
        .create_game(new_game(regulations("5+2", pb::Mode::Online), true))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    // A move sent within the caller's trace, and a refused one.
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let mut request = tonic::Request::new(pb::MakeMoveRequest {
        name: game.name.clone(),
        color: pb::Color::White as i32,
        r#move: "e4".into(),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("traceparent", format!("00-{trace_id}-00f067aa0ba902b7-01").parse().unwrap());
    arbiter.make_move(request).await.unwrap();
    let refused =
        arbiter.get_game(pb::GetGameRequest { name: "games/no-such-game".into() }).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::NotFound);

    let wanted = |spans: &[(String, Span)]| {
        spans.iter().any(|(_, s)| s.name == "arbiter.v1.ArbiterService/MakeMove")
            && spans.iter().any(|(_, s)| s.name == "arbiter.v1.ArbiterService/GetGame")
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !wanted(&collector.0.lock().unwrap()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no RPC spans exported: {:?}",
            collector.0.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(daemon);

    let spans = collector.0.lock().unwrap().clone();
    let (service, moved) =
        spans.iter().find(|(_, s)| s.name == "arbiter.v1.ArbiterService/MakeMove").unwrap();
    assert_eq!(service, "arbiterd");
    assert_eq!(moved.kind, SpanKind::Server as i32);
    assert_eq!(hex(&moved.trace_id), trace_id, "the caller's trace");
    assert_eq!(hex(&moved.parent_span_id), "00f067aa0ba902b7", "the caller's span is the parent");
    assert_eq!(attribute(moved, "rpc.system"), Some(Value::StringValue("grpc".into())));
    assert_eq!(attribute(moved, "rpc.service"), Some(Value::StringValue("arbiter.v1.ArbiterService".into())));
    assert_eq!(attribute(moved, "rpc.method"), Some(Value::StringValue("MakeMove".into())));
    assert_eq!(attribute(moved, "rpc.grpc.status_code"), Some(Value::IntValue(0)));
    // The service's own span of the call nests under the request's, with
    // the game it acted on.
    let inner = spans
        .iter()
        .map(|(_, s)| s)
        .find(|s| s.name == "rpc" && s.parent_span_id == moved.span_id)
        .expect("the rpc span under the request's");
    let id = game.name.strip_prefix("games/").unwrap();
    assert_eq!(attribute(inner, "game"), Some(Value::StringValue(id.into())));

    let (_, got) = spans.iter().find(|(_, s)| s.name == "arbiter.v1.ArbiterService/GetGame").unwrap();
    assert_eq!(attribute(got, "rpc.grpc.status_code"), Some(Value::IntValue(tonic::Code::NotFound as i64)));
    assert_ne!(hex(&got.trace_id), trace_id, "a call without traceparent starts its own trace");
    // NOT_FOUND is an answer, not a failure of the service.
    assert_ne!(got.status.as_ref().map(|s| s.code), Some(2), "{got:?}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
