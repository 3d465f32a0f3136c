//! Acts on a game another replica runs go to that replica (issue 18,
//! point 3). On a shared database one replica, the game's owner, judges
//! its acts and keeps its time (see `crate::hall` and
//! migrations/postgres/0014_owners.sql); a replica that receives an act on
//! a game it does not run passes the request on, with the caller's
//! metadata (its token), and passes the owner's answer back as it came.
//!
//! The request is authenticated here first: a failing token is refused
//! where it arrived, so that the owner's failure throttle never counts a
//! replica's address for a client's mistakes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Response, Status};

use crate::PeerTls;
use crate::error::ApiError;

/// The header a replica marks a forwarded request with (its own id). The
/// replica that receives one judges it, or refuses it if the game moved
/// again: a request is forwarded once at most.
pub const FORWARDED_BY: &str = "x-arbiter-forwarded-by";

/// How long forwarding waits for a connection to the owner: a dead owner
/// must not hold the caller long (its games move within 2 s).
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// How long forwarding waits for the owner's answer (its acts answer in
/// milliseconds; a request the owner did record is found again by its
/// request id when the caller retries).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer taken from the owner (as the service's own limit).
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// One client per replica forwarded to, over one HTTP/2 connection each,
/// opened on first use and kept.
#[derive(Debug, Default)]
pub struct Peers {
    tls: PeerTls,
    clients: Mutex<HashMap<String, ArbiterServiceClient<Channel>>>,
}

impl Peers {
    /// Peers whose certificates (over `https://`) are checked as `tls`
    /// says.
    pub fn new(tls: PeerTls) -> Peers {
        Peers { tls, clients: Mutex::default() }
    }

    /// The client of the replica at `address`.
    ///
    /// # Errors
    /// [`ApiError::Internal`] if the address a replica advertised is not a
    /// URL this service can connect to.
    pub fn client(&self, address: &str) -> Result<ArbiterServiceClient<Channel>, ApiError> {
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = clients.get(address) {
            return Ok(client.clone());
        }
        let bad = |e: &dyn std::fmt::Display| ApiError::Internal(format!("replica address {address:?}: {e}"));
        let mut endpoint = Endpoint::from_shared(address.to_owned())
            .map_err(|e| bad(&e))?
            .connect_timeout(CONNECT_TIMEOUT)
            .tcp_nodelay(true);
        if address.starts_with("https:") {
            let mut tls = match &self.tls.ca_pem {
                Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
                None => ClientTlsConfig::new().with_native_roots(),
            };
            if let Some(name) = &self.tls.name {
                tls = tls.domain_name(name.clone());
            }
            endpoint = endpoint.tls_config(tls).map_err(|e| bad(&e))?;
        }
        let client = ArbiterServiceClient::new(endpoint.connect_lazy())
            .max_decoding_message_size(MAX_ANSWER_BYTES)
            .max_encoding_message_size(MAX_ANSWER_BYTES);
        clients.insert(address.to_owned(), client.clone());
        Ok(client)
    }

    /// Forgets the connection to `address` (its replica did not answer).
    pub fn forget(&self, address: &str) {
        self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(address);
    }
}

/// Whether the request was forwarded by another replica.
pub fn was_forwarded(metadata: &MetadataMap) -> bool {
    metadata.contains_key(FORWARDED_BY)
}

/// The request to send to the owner: the caller's metadata and message,
/// marked as forwarded by `replica`.
pub fn request_for_owner<T>(mut metadata: MetadataMap, message: T, replica: &str) -> Request<T> {
    if let Ok(value) = MetadataValue::try_from(replica) {
        metadata.insert(FORWARDED_BY, value);
    }
    Request::from_parts(metadata, tonic::Extensions::default(), message)
}

/// What the owner answered, as this replica answers it: its own status
/// (with its ErrorInfo) as it came; no answer at all (no connection, or the
/// connection lost) as `None`, for the caller to find the owner again.
pub fn answer_of<T>(answer: Result<Response<T>, Status>) -> Result<Result<T, ApiError>, Status> {
    match answer {
        Ok(response) => Ok(Ok(response.into_inner())),
        // Every status the service gives carries an ErrorInfo; one without
        // is the transport's own (the owner unreachable, or gone).
        Err(status) if !status.details().is_empty() => Ok(Err(ApiError::Forwarded(status))),
        Err(status) => Err(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_peer_gets_one_client_per_address_and_bad_addresses_are_refused() {
        let peers = Peers::default();
        let count = |p: &Peers| p.clients.lock().map(|c| c.len()).unwrap_or(0);
        assert!(peers.client("http://127.0.0.1:1").is_ok());
        assert!(peers.client("http://127.0.0.1:1").is_ok());
        assert_eq!(count(&peers), 1);
        peers.forget("http://127.0.0.1:1");
        assert_eq!(count(&peers), 0);
        assert!(matches!(peers.client("not a url"), Err(ApiError::Internal(_))));
        let tls = Peers::new(PeerTls { ca_pem: None, name: Some("arbiterd".into()) });
        assert!(tls.client("https://127.0.0.1:1").is_ok());
    }

    #[test]
    fn a_forwarded_request_is_marked_and_keeps_the_callers_metadata() {
        let mut metadata = MetadataMap::new();
        metadata.insert("authorization", MetadataValue::from_static("Bearer t"));
        assert!(!was_forwarded(&metadata));
        let request = request_for_owner(metadata, (), "r1");
        assert!(was_forwarded(request.metadata()));
        assert_eq!(request.metadata().get("authorization").and_then(|v| v.to_str().ok()), Some("Bearer t"));
        assert_eq!(request.metadata().get(FORWARDED_BY).and_then(|v| v.to_str().ok()), Some("r1"));
    }

    #[test]
    fn the_owners_own_statuses_pass_and_transport_failures_do_not() {
        let owner: Status = ApiError::NotFound("games/x".into()).into();
        match answer_of::<()>(Err(owner)) {
            Ok(Err(ApiError::Forwarded(status))) => assert_eq!(status.code(), tonic::Code::NotFound),
            other => panic!("expected the owner's status, got {other:?}"),
        }
        assert!(answer_of::<()>(Err(Status::unavailable("connection refused"))).is_err());
        assert!(matches!(answer_of(Ok(Response::new(7))), Ok(Ok(7))));
    }
}
