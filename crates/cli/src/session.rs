//! What every command shares: the connection the global options describe,
//! the two keys of a mutation, and standard output.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use arbiter_client::{Call, Client, Rpc, TlsOptions};

use crate::args::GlobalArgs;
use crate::config::{self, Config};

/// The server the default address names.
pub const DEFAULT_URL: &str = "http://127.0.0.1:50051";

/// Where to connect and as whom, from the options, the environment and the
/// config file's context.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    pub url: String,
    pub token: Option<String>,
    pub ca: Option<PathBuf>,
    pub tls_domain: Option<String>,
}

impl GlobalArgs {
    /// The server and token: each given option (or its environment
    /// variable) wins; the rest comes from the context named by `--context`
    /// or, when neither `--context` nor `--url` is given, from the config
    /// file's current context (a context's token is never sent to a server
    /// named on the command line); the default address last.
    ///
    /// # Errors
    /// An unreadable or invalid config file, an unknown context, an
    /// unreadable token file.
    pub fn target(&self) -> anyhow::Result<Target> {
        let context = match (&self.context, &self.url) {
            (None, Some(_)) => None,
            (named, _) => match config::path() {
                Some(path) => {
                    let config = Config::load(&path)?;
                    match named {
                        Some(name) => Some(config.context(name)?.clone()),
                        None => config.current()?.cloned(),
                    }
                }
                None if named.is_some() => {
                    anyhow::bail!("--context needs a config file: set ARBITER_CONFIG or HOME")
                }
                None => None,
            },
        };
        let context = context.unwrap_or_default();
        let token = match (&self.token, &self.token_file, &context.token_file) {
            (Some(t), _, _) => Some(t.clone()),
            (None, Some(file), _) | (None, None, Some(file)) => Some(config::read_token(file)?),
            (None, None, None) => None,
        };
        Ok(Target {
            url: self.url.clone().unwrap_or_else(|| {
                if context.url.is_empty() { DEFAULT_URL.to_owned() } else { context.url.clone() }
            }),
            token,
            ca: self.ca.clone().or(context.ca),
            tls_domain: self.tls_domain.clone().or(context.tls_domain),
        })
    }

    /// Connects to the [target](GlobalArgs::target), over TLS with its CA
    /// and domain when given.
    ///
    /// # Errors
    /// As [`GlobalArgs::target`], a CA file that cannot be read, or the
    /// client's error.
    pub async fn client(&self) -> anyhow::Result<Client> {
        let target = self.target()?;
        Ok(Client::connect(&target.url, target.token.clone(), tls(&target)?).await?)
    }

    /// As [`GlobalArgs::client`], but connecting on the first call (a
    /// command that waits for the service, such as `board connect`, starts
    /// while it is down).
    ///
    /// # Errors
    /// As [`GlobalArgs::target`], a CA file that cannot be read, or a bad
    /// URL or token.
    pub fn client_lazy(&self) -> anyhow::Result<Client> {
        let target = self.target()?;
        Ok(Client::connect_lazy(&target.url, target.token.clone(), tls(&target)?)?)
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

fn tls(target: &Target) -> anyhow::Result<Option<TlsOptions>> {
    if target.ca.is_none() && target.tls_domain.is_none() {
        return Ok(None);
    }
    let ca_pem = match &target.ca {
        Some(path) => {
            Some(std::fs::read(path).with_context(|| format!("cannot read the CA file {}", path.display()))?)
        }
        None => None,
    };
    Ok(Some(TlsOptions { ca_pem, domain: target.tls_domain.clone() }))
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
