//! Optional trace export over OTLP (`arbiterd --otlp-endpoint`): a span per
//! gRPC request, as the OpenTelemetry RPC conventions name it (the span
//! `arbiter.v1.ArbiterService/MakeMove`, kind server, with `rpc.system`,
//! `rpc.service`, `rpc.method` and `rpc.grpc.status_code`), a child of the
//! caller's span when the request carries a W3C `traceparent`. The spans of
//! the service's own work (`rpc{grpc_method, game, request_id}` and what it
//! logs) nest under it.
//!
//! Off by default: without an endpoint no request span is made and nothing
//! of OpenTelemetry runs.

use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// The service's name in the exported resource.
pub const SERVICE_NAME: &str = "arbiterd";

/// The span of one gRPC request (tonic's `trace_fn`): named by the full
/// method from the request's path, joined to the caller's trace context.
pub fn request_span(request: &axum::http::Request<()>) -> tracing::Span {
    let path = request.uri().path().trim_start_matches('/');
    let (service, method) = path.split_once('/').unwrap_or((path, ""));
    let span = tracing::info_span!(
        "grpc.request",
        otel.name = %path,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        rpc.system = "grpc",
        rpc.service = %service,
        rpc.method = %method,
        rpc.grpc.status_code = tracing::field::Empty,
    );
    let parent = TraceContextPropagator::new().extract(&Headers(request.headers()));
    // A request without a trace context starts a trace of its own.
    let _ = span.set_parent(parent);
    span
}

/// Records the gRPC status of the request on its span, `request` (a field
/// the span does not have, when no request span was made, is ignored). As
/// the RPC conventions say for a server, only the codes that mean the
/// service failed make the span an error: a refusal of the Laws is an
/// answer.
pub fn record_status(span: &tracing::Span, code: tonic::Code) {
    span.record("rpc.grpc.status_code", code as i32);
    if matches!(
        code,
        tonic::Code::Unknown
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Unimplemented
            | tonic::Code::Internal
            | tonic::Code::Unavailable
            | tonic::Code::DataLoss
    ) {
        span.record("otel.status_code", "ERROR");
    }
}

/// The headers of a request as OpenTelemetry's propagators read them.
struct Headers<'a>(&'a axum::http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(axum::http::HeaderName::as_str).collect()
    }
}

/// The exporter of a running service: its tracer, for the tracing layer,
/// and the provider, to flush the last spans at shutdown.
#[derive(Debug)]
pub struct Export {
    pub tracer: SdkTracer,
    pub provider: SdkTracerProvider,
}

/// Spans exported over OTLP/gRPC to `endpoint` (a collector such as
/// `http://127.0.0.1:4317`) in batches, as `arbiterd` of this version.
///
/// # Errors
/// An endpoint the exporter cannot use.
pub fn export(endpoint: &str) -> Result<Export, opentelemetry_otlp::ExporterBuildError> {
    let exporter =
        opentelemetry_otlp::SpanExporter::builder().with_tonic().with_endpoint(endpoint).build()?;
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(SERVICE_NAME)
        .with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    let tracer = provider.tracer(SERVICE_NAME);
    Ok(Export { tracer, provider })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_spans_are_named_by_the_method() {
        let request = axum::http::Request::builder()
            .uri("http://h/arbiter.v1.ArbiterService/MakeMove")
            .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .body(())
            .unwrap();
        // Without a subscriber the span is disabled; the path is still read
        // without a panic, and a request without a path gives a span too.
        let _ = request_span(&request);
        let bare = axum::http::Request::builder().uri("http://h/").body(()).unwrap();
        let _ = request_span(&bare);
        let headers = request.headers();
        let context = TraceContextPropagator::new().extract(&Headers(headers));
        use opentelemetry::trace::TraceContextExt as _;
        assert_eq!(
            context.span().span_context().trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "the caller's trace is read from `traceparent`"
        );
    }
}
