//! `arbiter`: the operator CLI of the Arbiter service. Thin: it parses the
//! command line ([`args`]), calls `arbiter_client`, and prints ([`render`]
//! for people, [`output`] with `-o json|yaml`). See `arbiter --help` for the
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
mod complete;
mod config;
mod events;
mod games;
mod offline;
mod output;
mod parse;
mod render;
mod session;
mod table;
mod watch_view;

use std::process::ExitCode;

use arbiter_client::{Error, exit};
use clap::FromArgMatches as _;

use crate::args::{BoardCommand, Cli, Command, FenCommand, Format, PgnCommand};
use crate::session::out;

fn main() -> ExitCode {
    // `COMPLETE=bash arbiter ...`: the shell asks for completions (game and
    // event ids from the server); answered here, and the process exits.
    clap_complete::CompleteEnv::with_factory(args::command).complete();
    let parsed = args::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK });
        }
    };
    let format = cli.global.format();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("arbiter: cannot start the runtime: {e}");
            return ExitCode::from(exit::OTHER);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => ExitCode::from(report(&e, format)),
    }
}

/// Prints an error to standard error; returns the exit code.
fn report(e: &anyhow::Error, format: Format) -> u8 {
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
    if matches!(format, Format::Json | Format::Yaml) {
        let doc = match client_error {
            Some(err) => output::error(err),
            None => serde_json::json!({ "error": { "message": format!("{e:#}"), "exitCode": code } }),
        };
        match output::render(format, &doc) {
            Ok(text) => eprint!("{text}"),
            Err(_) => eprintln!("{doc}"),
        }
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
            if global.structured() {
                // As grpc.health.v1.HealthCheckResponse in the canonical mapping.
                output::document(&global, &serde_json::json!({ "status": status.to_string() }))?;
            } else {
                out(&format!("{status}\n"))?;
            }
            Ok(if status == arbiter_client::Health::Serving { exit::OK } else { exit::UNAVAILABLE })
        }
        Command::Completions { shell } => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut args::command(), "arbiter", &mut buffer);
            out(&String::from_utf8_lossy(&buffer))?;
            Ok(exit::OK)
        }
        Command::Config(command) => config::run(&global, command),
        Command::Game(command) => games::run(&global, command).await,
        Command::Event(command) => events::event(&global, command).await,
        Command::Round(command) => events::round(&global, command).await,
        Command::Audit(args) => games::audit(&global, &args).await,
        Command::Board(BoardCommand::Connect(args)) => board::connect(&global, &args).await,
        Command::Player(act) => acts::player(&global, act).await,
        Command::Arbiter(action) => acts::arbiter(&global, action).await,
    }
}
