//! The API as JSON over HTTP/1.1, for browsers (the web console) and for
//! callers without a gRPC library.
//!
//! `POST /api/arbiter.v1.ArbiterService/{Method}` with the request in the
//! canonical proto3 JSON mapping (what grpcurl prints) and the same
//! `Authorization: Bearer ...` header as over gRPC. The call is made to the
//! very service gRPC clients reach, in process (throttling, authentication,
//! roles, request ids, audit trail and all), so the gateway can give no
//! power the token lacks. It is generated from the proto's descriptors:
//! every unary and server-streaming method is there, nothing is written by
//! hand per method.
//!
//! - A unary method answers `200` with the response as JSON.
//! - A server-streaming method (`WatchGame`, `WatchGames`, `WatchRound`,
//!   `WatchBroadcast`) answers `200` with `text/event-stream`: each message
//!   as `data: {json}` and a blank line; an error that ends the stream as `event: error`. (Browsers read
//!   it with `fetch`, which can send the token; `EventSource` cannot.)
//! - An error answers the HTTP status of its gRPC code (`NOT_FOUND` 404,
//!   `PERMISSION_DENIED` 403, `INVALID_ARGUMENT` 400...) with
//!   `{"code": "NOT_FOUND", "message": ..., "details": [...]}`, the details
//!   (`google.rpc.ErrorInfo` with the reason and Article, `BadRequest` with
//!   the fields) in the JSON mapping of `Any`.
//! - Client-streaming methods (`ConnectBoard`) are for gRPC only: `400`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::OnceLock;

use axum::Extension;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MethodDescriptor};
use tokio::sync::mpsc;
use tonic::transport::server::TcpConnectInfo;
use tower::ServiceExt as _;

/// The service behind the gateway: the gRPC API as the gRPC port serves it.
pub(crate) type Api = crate::throttle::Throttled<
    arbiter_proto::v1::arbiter_service_server::ArbiterServiceServer<crate::service::Arbiter>,
>;

/// The service's full name.
const SERVICE: &str = "arbiter.v1.ArbiterService";

/// The largest JSON request read (the gRPC limit applies to the message).
const MAX_JSON: usize = 4 * 1024 * 1024;

/// The descriptors of the API and of the error details.
fn pool() -> Result<&'static DescriptorPool, String> {
    static POOL: OnceLock<Result<DescriptorPool, String>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool =
            DescriptorPool::decode(arbiter_proto::FILE_DESCRIPTOR_SET).map_err(|e| e.to_string())?;
        pool.decode_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET).map_err(|e| e.to_string())?;
        Ok(pool)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `POST /api/{service}/{method}`.
pub(crate) async fn call(
    State(api): State<Api>,
    Extension(crate::http::Peer(peer)): Extension<crate::http::Peer>,
    Path((service, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let pool = match pool() {
        Ok(pool) => pool,
        Err(e) => {
            return failure(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", &format!("descriptors: {e}"));
        }
    };
    let method = pool
        .get_service_by_name(SERVICE)
        .filter(|_| service == SERVICE)
        .and_then(|s| s.methods().find(|m| m.name() == name));
    let Some(method) = method else {
        return failure(StatusCode::NOT_FOUND, "UNIMPLEMENTED", &format!("no method {service}/{name}"));
    };
    if method.is_client_streaming() {
        return failure(
            StatusCode::BAD_REQUEST,
            "UNIMPLEMENTED",
            &format!("{name} streams from the client: call it over gRPC"),
        );
    }
    let json = match http_body_util::Limited::new(body, MAX_JSON).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            return failure(StatusCode::PAYLOAD_TOO_LARGE, "INVALID_ARGUMENT", &format!("the body: {e}"));
        }
    };
    let request = match request_message(&method, &json) {
        Ok(message) => message,
        Err(why) => return failure(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT", &why),
    };
    let grpc = match grpc_request(&method, &headers, peer, request) {
        Ok(request) => request,
        Err(why) => return failure(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT", &why),
    };
    let answer = match api.oneshot(grpc).await {
        Ok(answer) => answer,
        Err(never) => match never {},
    };
    if method.is_server_streaming() { stream(method, answer) } else { unary(&method, answer).await }
}

/// The request message from its JSON (an empty body is the empty message).
fn request_message(method: &MethodDescriptor, json: &[u8]) -> Result<Vec<u8>, String> {
    if json.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let mut reader = serde_json::Deserializer::from_slice(json);
    let message = DynamicMessage::deserialize(method.input(), &mut reader)
        .map_err(|e| format!("the body is not a {} in JSON: {e}", method.input().full_name()))?;
    reader.end().map_err(|e| format!("the body has more than one JSON value: {e}"))?;
    Ok(message.encode_to_vec())
}

/// The gRPC request the gRPC port would have received.
fn grpc_request(
    method: &MethodDescriptor,
    headers: &HeaderMap,
    peer: SocketAddr,
    message: Vec<u8>,
) -> Result<axum::http::Request<Body>, String> {
    let mut framed = Vec::with_capacity(message.len() + 5);
    framed.push(0);
    framed.extend_from_slice(
        &u32::try_from(message.len()).map_err(|_| "the message is too large")?.to_be_bytes(),
    );
    framed.extend_from_slice(&message);
    let mut request = axum::http::Request::post(format!("/{SERVICE}/{}", method.name()))
        .header(header::CONTENT_TYPE, "application/grpc")
        .header(header::TE, "trailers")
        .body(Body::from(framed))
        .map_err(|e| e.to_string())?;
    // The caller's credentials and request metadata, nothing else.
    for name in [header::AUTHORIZATION.as_str(), "x-request-id"] {
        if let Some(value) = headers.get(name) {
            request.headers_mut().insert(axum::http::HeaderName::from_static(name), value.clone());
        }
    }
    // Throttling and the connection's accounting key on the peer, as for a
    // gRPC connection.
    request.extensions_mut().insert(TcpConnectInfo { local_addr: None, remote_addr: Some(peer) });
    Ok(request)
}

/// The status a gRPC answer carries (in its headers for a trailers-only
/// answer, else in its trailers); `None` while it is not known.
fn status_of(map: &HeaderMap) -> Option<tonic::Status> {
    map.contains_key("grpc-status").then(|| tonic::Status::from_header_map(map)).flatten()
}

async fn unary(method: &MethodDescriptor, answer: axum::http::Response<tonic::body::Body>) -> Response {
    if let Some(status) = status_of(answer.headers())
        && status.code() != tonic::Code::Ok
    {
        return error(&status);
    }
    let collected = match answer.into_body().collect().await {
        Ok(collected) => collected,
        Err(status) => return error(&status),
    };
    if let Some(status) = collected.trailers().and_then(status_of)
        && status.code() != tonic::Code::Ok
    {
        return error(&status);
    }
    let mut data = collected.to_bytes();
    match next_message(&mut data) {
        Some(message) => match to_json(method, &message) {
            Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
            Err(why) => failure(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", &why),
        },
        None => failure(StatusCode::BAD_GATEWAY, "INTERNAL", "the service gave no answer"),
    }
}

/// Streams the answers as server-sent events, until the service ends the
/// stream or the client goes away (the gRPC stream is then dropped).
fn stream(method: MethodDescriptor, answer: axum::http::Response<tonic::body::Body>) -> Response {
    if let Some(status) = status_of(answer.headers())
        && status.code() != tonic::Code::Ok
    {
        return error(&status);
    }
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(16);
    tokio::spawn(async move {
        let mut body = answer.into_body();
        let mut buffer = bytes::BytesMut::new();
        loop {
            let event = match body.frame().await {
                None => break,
                Some(Err(status)) => Some(sse_error(&status)),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => {
                        buffer.extend_from_slice(&data);
                        let mut events = String::new();
                        let mut ready = buffer.split().freeze();
                        while let Some(message) = next_message(&mut ready) {
                            match to_json(&method, &message) {
                                Ok(json) => events.push_str(&format!("data: {json}\n\n")),
                                Err(why) => events.push_str(&format!("event: error\ndata: {why:?}\n\n")),
                            }
                        }
                        buffer.extend_from_slice(&ready);
                        (!events.is_empty()).then_some(events)
                    }
                    Err(frame) => frame
                        .into_trailers()
                        .ok()
                        .and_then(|t| status_of(&t))
                        .filter(|s| s.code() != tonic::Code::Ok)
                        .map(|s| sse_error(&s)),
                },
            };
            if let Some(event) = event
                && tx.send(Ok(Bytes::from(event))).await.is_err()
            {
                // The client went away: dropping `body` ends the call.
                return;
            }
        }
    });
    let mut response = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Takes the first whole length-prefixed message off `data`; `None` while
/// it has not all come.
fn next_message(data: &mut Bytes) -> Option<Bytes> {
    if data.len() < 5 {
        return None;
    }
    let length = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
    if data.len() < 5 + length {
        return None;
    }
    let mut message = data.split_to(5 + length);
    Some(message.split_off(5))
}

fn to_json(method: &MethodDescriptor, message: &[u8]) -> Result<String, String> {
    let dynamic = DynamicMessage::decode(method.output(), message).map_err(|e| e.to_string())?;
    serde_json::to_string(&dynamic).map_err(|e| e.to_string())
}

/// A gRPC error as JSON: the code's name, the message, and the details.
fn error_json(status: &tonic::Status) -> String {
    let code = code_name(status.code());
    let details = pool()
        .ok()
        .and_then(|pool| pool.get_message_by_name("google.rpc.Status"))
        .and_then(|d| DynamicMessage::decode(d, status.details()).ok())
        .and_then(|s| serde_json::to_value(&s).ok())
        .and_then(|mut v| v.get_mut("details").map(serde_json::Value::take))
        .unwrap_or_else(|| serde_json::Value::Array(Vec::new()));
    serde_json::json!({ "code": code, "message": status.message(), "details": details }).to_string()
}

fn error(status: &tonic::Status) -> Response {
    (http_status(status.code()), [(header::CONTENT_TYPE, "application/json")], error_json(status))
        .into_response()
}

fn sse_error(status: &tonic::Status) -> String {
    format!("event: error\ndata: {}\n\n", error_json(status))
}

/// An error the gateway itself gives, in the same shape.
fn failure(http: StatusCode, code: &str, message: &str) -> Response {
    let body = serde_json::json!({ "code": code, "message": message, "details": [] }).to_string();
    (http, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The HTTP status of a gRPC code, as google.rpc.Code documents it.
fn http_status(code: tonic::Code) -> StatusCode {
    use tonic::Code as C;
    match code {
        C::Ok => StatusCode::OK,
        C::Cancelled => StatusCode::from_u16(499).unwrap_or(StatusCode::BAD_REQUEST),
        C::InvalidArgument | C::FailedPrecondition | C::OutOfRange => StatusCode::BAD_REQUEST,
        C::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        C::NotFound => StatusCode::NOT_FOUND,
        C::AlreadyExists | C::Aborted => StatusCode::CONFLICT,
        C::PermissionDenied => StatusCode::FORBIDDEN,
        C::Unauthenticated => StatusCode::UNAUTHORIZED,
        C::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        C::Unimplemented => StatusCode::NOT_IMPLEMENTED,
        C::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        C::Unknown | C::Internal | C::DataLoss => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The code's name as google.rpc.Code spells it.
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code as C;
    match code {
        C::Ok => "OK",
        C::Cancelled => "CANCELLED",
        C::Unknown => "UNKNOWN",
        C::InvalidArgument => "INVALID_ARGUMENT",
        C::DeadlineExceeded => "DEADLINE_EXCEEDED",
        C::NotFound => "NOT_FOUND",
        C::AlreadyExists => "ALREADY_EXISTS",
        C::PermissionDenied => "PERMISSION_DENIED",
        C::ResourceExhausted => "RESOURCE_EXHAUSTED",
        C::FailedPrecondition => "FAILED_PRECONDITION",
        C::Aborted => "ABORTED",
        C::OutOfRange => "OUT_OF_RANGE",
        C::Unimplemented => "UNIMPLEMENTED",
        C::Internal => "INTERNAL",
        C::Unavailable => "UNAVAILABLE",
        C::DataLoss => "DATA_LOSS",
        C::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_taken_whole_from_the_stream() {
        let mut data = Bytes::from_static(&[0, 0, 0, 0, 2, 8, 1, 0, 0, 0, 0, 1]);
        assert_eq!(next_message(&mut data).as_deref(), Some(&[8u8, 1][..]));
        assert_eq!(next_message(&mut data), None, "the second message has not all come");
        assert_eq!(data.len(), 5);
    }

    #[test]
    fn every_method_of_the_api_has_its_messages_in_the_pool() {
        let pool = pool().unwrap();
        let service = pool.get_service_by_name(SERVICE).unwrap();
        assert!(service.methods().any(|m| m.name() == "GetGame"));
        assert!(pool.get_message_by_name("google.rpc.ErrorInfo").is_some());
    }

    #[test]
    fn codes_map_to_http_as_google_rpc_documents() {
        assert_eq!(http_status(tonic::Code::PermissionDenied), StatusCode::FORBIDDEN);
        assert_eq!(http_status(tonic::Code::Unauthenticated), StatusCode::UNAUTHORIZED);
        assert_eq!(http_status(tonic::Code::FailedPrecondition), StatusCode::BAD_REQUEST);
        assert_eq!(code_name(tonic::Code::FailedPrecondition), "FAILED_PRECONDITION");
    }
}
