//! `arbiter`: the operator CLI of the Arbiter service. Thin: it parses the
//! command line ([`args`]), calls `arbiter_client`, and prints ([`render`]
//! for people, [`json`] with `--json`). See `arbiter --help` for the
//! commands and the exit codes ([`arbiter_client::exit`]).
//!
//! The modules follow the command tree: [`games`] (create, list, show,
//! export, start, audit), [`acts`] (the players' acts and the arbiter's
//! actions), [`watch_view`] (`game watch`), [`offline`] (`pgn check`,
//! `fen show`, on the rules core), [`board`] (`board connect`, the bridge to
//! electronic boards); [`session`] holds what they share.

mod acts;
mod args;
mod board;
mod events;
mod games;
mod json;
mod offline;
mod parse;
mod render;
mod session;
mod watch_view;

use std::process::ExitCode;

use arbiter_client::{Error, exit};
use clap::{CommandFactory, Parser};
use serde_json::Value;

use crate::args::{BoardCommand, Cli, Command, FenCommand, PgnCommand};
use crate::session::out;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK });
        }
    };
    let json_errors = cli.global.json;
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("arbiter: cannot start the runtime: {e}");
            return ExitCode::from(exit::OTHER);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => ExitCode::from(report(&e, json_errors)),
    }
}

/// Prints an error to standard error; returns the exit code.
fn report(e: &anyhow::Error, json_errors: bool) -> u8 {
    if let Some(io) = e.downcast_ref::<std::io::Error>()
        && io.kind() == std::io::ErrorKind::BrokenPipe
    {
        return exit::OK;
    }
    let client_error = e.downcast_ref::<Error>();
    let code = match client_error {
        Some(err) => err.exit_code(),
        None => match e.downcast_ref::<std::io::Error>() {
            _ if e.downcast_ref::<board::Unreachable>().is_some() => exit::UNAVAILABLE,
            _ if e.downcast_ref::<board::NoSuchBoard>().is_some() => exit::INVALID,
            Some(io) if io.kind() == std::io::ErrorKind::NotFound => exit::INVALID,
            Some(io) if io.kind() == std::io::ErrorKind::PermissionDenied => exit::INVALID,
            _ => exit::OTHER,
        },
    };
    if json_errors {
        let doc = match client_error {
            Some(err) => json::error(err),
            None => {
                serde_json::json!({ "error": { "code": Value::Null, "message": format!("{e:#}"), "exit_code": code } })
            }
        };
        eprintln!("{doc}");
        return code;
    }
    eprintln!("arbiter: {e:#}");
    if let Some(err) = client_error {
        match err.code() {
            arbiter_client::Code::Unauthenticated => {
                eprintln!("hint: give a token with --token or ARBITER_TOKEN");
            }
            arbiter_client::Code::Unavailable if matches!(err, Error::Connect { .. }) => {
                eprintln!("hint: is arbiterd running there? Set the address with --url or ARBITER_URL");
            }
            _ => {}
        }
    }
    code
}

/// Runs the command; the exit code when it ran to its end.
async fn run(cli: Cli) -> anyhow::Result<u8> {
    let Cli { global, command } = cli;
    match command {
        // Offline.
        Command::Pgn(PgnCommand::Check(args)) => offline::pgn_check(&global, &args),
        Command::Fen(FenCommand::Show(args)) => offline::fen_show(&global, &args),
        Command::Health => {
            let status = global.client().await?.health().await?;
            if global.json {
                out(&format!("{{\"status\": \"{status}\"}}\n"))?;
            } else {
                out(&format!("{status}\n"))?;
            }
            Ok(if status == arbiter_client::Health::Serving { exit::OK } else { exit::UNAVAILABLE })
        }
        Command::Completions { shell } => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "arbiter", &mut buffer);
            out(&String::from_utf8_lossy(&buffer))?;
            Ok(exit::OK)
        }
        Command::Game(command) => games::run(&global, command).await,
        Command::Event(command) => events::event(&global, command).await,
        Command::Round(command) => events::round(&global, command).await,
        Command::Audit(args) => games::audit(&global, &args).await,
        Command::Board(BoardCommand::Connect(args)) => board::connect(&global, &args).await,
        Command::Player(act) => acts::player(&global, act).await,
        Command::Arbiter(action) => acts::arbiter(&global, action).await,
    }
}
