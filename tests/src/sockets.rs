//! Raw sockets for the tests of the connection gate: connections that
//! send nothing (or half a handshake), and what the server's metrics say
//! about them.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// How a connection the client keeps silent came to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The server closed it (EOF or a reset) this long after `since`.
    Closed(Duration),
    /// Still open when the client stopped waiting.
    StillOpen,
}

/// Reads (and drops whatever the server sends, such as its HTTP/2
/// SETTINGS) until the server closes `stream` or `limit` has passed since
/// `since`.
pub async fn wait_closed(stream: &mut TcpStream, since: Instant, limit: Duration) -> Ending {
    let mut sink = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(since.elapsed());
        match tokio::time::timeout(left, stream.read(&mut sink)).await {
            Err(_) => return Ending::StillOpen,
            Ok(Ok(0) | Err(_)) => return Ending::Closed(since.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

/// Opens a TCP connection to `addr` and sends `first` (possibly nothing),
/// then nothing more.
///
/// # Panics
/// When the connection cannot be made.
pub async fn silent(addr: SocketAddr, first: &[u8]) -> TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    if !first.is_empty() {
        stream.write_all(first).await.expect("write the first bytes");
    }
    stream
}

/// The first 16 of the 24 bytes of the HTTP/2 client preface.
pub const HALF_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

/// The whole HTTP/2 client preface and an empty SETTINGS frame: a client
/// that has shaken hands and then makes no call.
pub const PREFACE_AND_SETTINGS: &[u8] =
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

/// The start of a TLS ClientHello record (handshake, TLS 1.0 record
/// version, 200 bytes announced) with only 4 of its bytes.
pub const HALF_CLIENT_HELLO: &[u8] = &[0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00, 0xc4];

/// The sum of the samples of `name` whose labels include all of `labels`
/// (`key="value"` each) in Prometheus text `text`.
pub fn metric(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|want| rest.contains(want)))
                .then(|| value.parse::<f64>().ok())?
        })
        // From +0: the sum of no samples is 0, not -0.
        .fold(0.0, |sum, v| sum + v)
}

/// [`metric`] from this process's recorder (tests run the server in
/// process; every server of the process adds to the same counters).
pub fn local_metric(name: &str, labels: &[&str]) -> f64 {
    arbiter_server::metrics_text().map_or(0.0, |t| metric(&t, name, labels))
}

#[cfg(test)]
mod tests {
    use super::metric;

    #[test]
    fn metric_sums_the_matching_series() {
        let text = "# TYPE c counter\nc{port=\"grpc\",reason=\"over_cap\"} 3\nc{port=\"metrics\",reason=\"over_cap\"} 2\n\
                    cc{port=\"grpc\"} 7\ng 1.5\n";
        assert_eq!(metric(text, "c", &["port=\"grpc\""]), 3.0);
        assert_eq!(metric(text, "c", &["reason=\"over_cap\""]), 5.0);
        assert_eq!(metric(text, "g", &[]), 1.5);
        assert_eq!(metric(text, "missing", &[]), 0.0);
    }
}
