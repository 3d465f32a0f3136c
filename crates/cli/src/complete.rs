//! Completion of names from the server: game ids and event ids, for the
//! shells registered with `COMPLETE=<shell> arbiter` (clap_complete's
//! dynamic completion). The server is the one the environment and the
//! config file's current context name, as for any command; a server that
//! does not answer within two seconds completes nothing.

use std::ffi::OsStr;
use std::time::Duration;

use clap::Parser as _;
use clap_complete::CompletionCandidate;

use crate::args::Cli;

/// How long a completion waits for the server.
const PATIENCE: Duration = Duration::from_secs(2);

/// The game ids starting with what was typed (with or without `games/`),
/// each with its players and status as help.
pub fn games(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let prefix = typed.strip_prefix("games/").unwrap_or(&typed).to_owned();
    let keep_prefix = typed.starts_with("games/");
    ask(async move |client: arbiter_client::Client| {
        let games = client.list_all_games(arbiter_client::pb::ListGamesRequest::default()).await.ok()?;
        Some(
            games
                .into_iter()
                .filter_map(|g| {
                    let id = g.name.strip_prefix("games/")?.to_owned();
                    if !id.starts_with(&prefix) {
                        return None;
                    }
                    let white = g.white.as_ref().map_or("?", |p| p.name.as_str());
                    let black = g.black.as_ref().map_or("?", |p| p.name.as_str());
                    let status = crate::render::words(&crate::render::status(g.status).unwrap_or_default());
                    let value = if keep_prefix { g.name.clone() } else { id };
                    Some(
                        CompletionCandidate::new(value)
                            .help(Some(format!("{white} - {black}, {status}").into())),
                    )
                })
                .collect(),
        )
    })
}

/// The event ids starting with what was typed, with their titles as help.
pub fn events(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let prefix = typed.strip_prefix("events/").unwrap_or(&typed).to_owned();
    ask(async move |client: arbiter_client::Client| {
        let listed = client.call(arbiter_client::pb::ListEventsRequest::default()).await.ok()?;
        Some(
            listed
                .events
                .into_iter()
                .filter_map(|e| {
                    let id = e.name.strip_prefix("events/")?.to_owned();
                    id.starts_with(&prefix).then(|| CompletionCandidate::new(id).help(Some(e.title.into())))
                })
                .collect(),
        )
    })
}

/// Connects as a command would and runs `query`; nothing on any failure
/// (a completion must not print errors into the command line).
fn ask<F>(query: impl FnOnce(arbiter_client::Client) -> F) -> Vec<CompletionCandidate>
where
    F: Future<Output = Option<Vec<CompletionCandidate>>>,
{
    // The global options come from the environment (and the config file):
    // the command line being completed is not parsed yet.
    let Ok(cli) = Cli::try_parse_from(["arbiter", "health"]) else { return Vec::new() };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return Vec::new();
    };
    runtime
        .block_on(async {
            let client = cli.global.client().await.ok()?;
            tokio::time::timeout(PATIENCE, query(client)).await.ok()?
        })
        .unwrap_or_default()
}
