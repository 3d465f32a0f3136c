//! What every command shares: the connection the global options describe,
//! the two keys of a mutation, and standard output.

use std::io::Write as _;

use anyhow::Context as _;
use arbiter_client::{Call, Client, Rpc, TlsOptions};
use serde_json::Value;

use crate::args::GlobalArgs;

impl GlobalArgs {
    /// Connects to `--url` with `--token`, over TLS with `--ca` and
    /// `--tls-domain` when given.
    ///
    /// # Errors
    /// A CA file that cannot be read, or the client's error.
    pub async fn client(&self) -> anyhow::Result<Client> {
        Ok(Client::connect(&self.url, self.token.clone(), self.tls()?).await?)
    }

    /// As [`GlobalArgs::client`], but connecting on the first call (a
    /// command that waits for the service, such as `board connect`, starts
    /// while it is down).
    ///
    /// # Errors
    /// A CA file that cannot be read, or a bad URL or token.
    pub fn client_lazy(&self) -> anyhow::Result<Client> {
        Ok(Client::connect_lazy(&self.url, self.token.clone(), self.tls()?)?)
    }

    fn tls(&self) -> anyhow::Result<Option<TlsOptions>> {
        if self.ca.is_none() && self.tls_domain.is_none() {
            return Ok(None);
        }
        let ca_pem = match &self.ca {
            Some(path) => Some(
                std::fs::read(path).with_context(|| format!("cannot read the CA file {}", path.display()))?,
            ),
            None => None,
        };
        Ok(Some(TlsOptions { ca_pem, domain: self.tls_domain.clone() }))
    }

    /// Applies `--request-id` and `--expected-seq` to a call.
    pub fn prepare<R: Rpc>(&self, mut call: Call<R>) -> Call<R> {
        if let Some(id) = &self.request_id {
            call = call.request_id(id.clone());
        }
        if let Some(seq) = self.expected_seq {
            call = call.expected_seq(seq);
        }
        call
    }
}

/// Writes to standard output and flushes (a closed pipe ends the command
/// quietly).
///
/// # Errors
/// The write's.
pub fn out(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// One JSON document, pretty-printed, on standard output.
///
/// # Errors
/// The write's.
pub fn out_json(value: &Value) -> std::io::Result<()> {
    out(&format!("{value:#}\n"))
}
