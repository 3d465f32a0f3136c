//! Pushing rounds to lichess-compatible broadcast endpoints.
//!
//! lichess's `POST /api/broadcast/round/{id}/push` takes the whole round as
//! text/plain PGN with a bearer token and replaces what it had, so a push
//! is idempotent: each replica may push, and a push that fails is simply
//! made again at the next turn.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::Request;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, USER_AGENT};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;
use tokio_util::sync::CancellationToken;

use crate::service::Arbiter;

/// How the pushes run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PushSettings {
    /// How often the rounds are looked at (and pushed if changed).
    pub every: Duration,
    /// How long one push may take.
    pub timeout: Duration,
}

/// A round started longer ago than this is no longer pushed: an event's
/// round is over within a day; a restart does not push a season's rounds
/// again.
const PUSHED_FOR_MS: i64 = 48 * 3600 * 1000;

/// The largest answer read from an endpoint (only its status matters; the
/// text is logged when the push fails).
const MAX_ANSWER: usize = 64 * 1024;

/// Pushes, every `settings.every` until `stop` is cancelled, the PGN of each
/// started round of every event with a broadcast push URL, when it differs
/// from what was last pushed.
pub(crate) async fn push_rounds(arbiter: Arbiter, settings: PushSettings, stop: CancellationToken) {
    // What was last pushed where: a round is pushed again only when its
    // (delayed) PGN changed, or when the last push failed.
    let mut pushed: HashMap<String, Bytes> = HashMap::new();
    let tls = match tls_connector() {
        Ok(tls) => Some(tls),
        Err(e) => {
            tracing::warn!(error = %e, "no TLS root certificates: broadcast pushes to https:// URLs will fail");
            None
        }
    };
    loop {
        tokio::select! {
            () = tokio::time::sleep(settings.every) => {}
            () = stop.cancelled() => return,
        }
        let due = match arbiter.broadcast_pushes(crate::table::wall_ms() - PUSHED_FOR_MS).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the rounds to push to broadcasts");
                continue;
            }
        };
        for push in due {
            let body = Bytes::from(push.pgn);
            if pushed.get(&push.url) == Some(&body) {
                continue;
            }
            let sent = tokio::time::timeout(
                settings.timeout,
                post(&push.url, &push.token, body.clone(), tls.as_ref()),
            )
            .await
            .unwrap_or_else(|_| Err(PushError::Timeout));
            match sent {
                Ok(()) => {
                    metrics::counter!("arbiter_broadcast_pushes_total", "outcome" => "ok").increment(1);
                    tracing::debug!(event = %push.event, round = push.round, "round pushed to its broadcast");
                    pushed.insert(push.url, body);
                }
                Err(e) => {
                    metrics::counter!("arbiter_broadcast_pushes_total", "outcome" => "failed").increment(1);
                    tracing::warn!(
                        event = %push.event,
                        round = push.round,
                        error = %e,
                        "cannot push the round to its broadcast; trying again at the next turn"
                    );
                    pushed.remove(&push.url);
                }
            }
        }
    }
}

/// One round to push.
#[derive(Debug)]
pub(crate) struct Due {
    pub event: String,
    pub round: u16,
    pub url: String,
    pub token: String,
    pub pgn: String,
}

#[derive(Debug, thiserror::Error)]
enum PushError {
    #[error("the push URL is not usable: {0}")]
    Url(String),
    #[error("cannot connect: {0}")]
    Connect(#[from] std::io::Error),
    #[error("HTTP: {0}")]
    Http(#[from] hyper::Error),
    #[error("the endpoint answered {status}: {text}")]
    Refused { status: u16, text: String },
    #[error("no TLS root certificates for an https:// URL")]
    NoTls,
    #[error("no answer in time")]
    Timeout,
}

fn tls_connector() -> Result<TlsConnector, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(format!("none found ({} errors)", found.errors.len()));
    }
    let config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// POSTs `pgn` to `url` (HTTP/1.1, one connection per push).
async fn post(url: &str, token: &str, pgn: Bytes, tls: Option<&TlsConnector>) -> Result<(), PushError> {
    let uri: hyper::Uri = url.parse().map_err(|e| PushError::Url(format!("{e}")))?;
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err(PushError::Url("not http:// or https://".into())),
    };
    let host = uri.host().ok_or_else(|| PushError::Url("no host".into()))?.to_owned();
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let authority = uri.authority().map_or(host.clone(), ToString::to_string);
    let mut request = Request::post(uri.path_and_query().map_or("/", |p| p.as_str()))
        .header(HOST, authority)
        .header(CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(USER_AGENT, concat!("arbiterd/", env!("CARGO_PKG_VERSION")));
    if !token.is_empty() {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request.body(Full::new(pgn)).map_err(|e| PushError::Url(e.to_string()))?;
    // Brackets of an IPv6 literal are not part of the address.
    let socket = TcpStream::connect((host.trim_start_matches('[').trim_end_matches(']'), port)).await?;
    if https {
        let tls = tls.ok_or(PushError::NoTls)?;
        let name = rustls::pki_types::ServerName::try_from(host.clone())
            .map_err(|_| PushError::Url(format!("`{host}` is not a server name")))?;
        let stream = tls.connect(name, socket).await?;
        send(stream, request).await
    } else {
        send(socket, request).await
    }
}

async fn send<S>(stream: S, request: Request<Full<Bytes>>) -> Result<(), PushError>
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    let driving = tokio::spawn(connection);
    let answer = sender.send_request(request).await?;
    let status = answer.status();
    let text = match Limited::new(answer.into_body(), MAX_ANSWER).collect().await {
        Ok(body) => String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        Err(_) => String::new(),
    };
    driving.abort();
    if status.is_success() {
        // lichess answers 200 with a per-game list, some of which may be
        // errors ("Invalid move"): log them, the push itself went through.
        if text.contains("\"error\"") {
            tracing::warn!(answer = %text.chars().take(500).collect::<String>(), "the broadcast refused some games");
        }
        Ok(())
    } else {
        Err(PushError::Refused { status: status.as_u16(), text: text.chars().take(500).collect() })
    }
}
