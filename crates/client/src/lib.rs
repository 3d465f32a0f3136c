//! # arbiter-client
//!
//! A thin typed async client for the Arbiter gRPC API
//! (`arbiter.v1.ArbiterService`), and the operator CLI `arbiter`
//! built on it.
//!
//! ## The library
//!
//! ```no_run
//! use arbiter_chess::Color;
//! use arbiter_client::{Client, WatchItem};
//! use tokio_stream::StreamExt;
//!
//! # async fn demo() -> Result<(), arbiter_client::Error> {
//! let arbiter = Client::connect("http://127.0.0.1:50051", Some("arbiter-token".into()), None).await?;
//! let created = arbiter
//!     .create_game(arbiter_client::pb::CreateGameRequest {
//!         white: Some(arbiter_client::pb::Player { name: "Carlsen".into(), ..Default::default() }),
//!         black: Some(arbiter_client::pb::Player { name: "Caruana".into(), ..Default::default() }),
//!         regulations: Some(arbiter_client::pb::Regulations {
//!             time_control: "90+30".into(),
//!             mode: arbiter_client::pb::Mode::Online as i32,
//!             ..Default::default()
//!         }),
//!         start: true,
//!         ..Default::default()
//!     })
//!     .await?;
//! let game = created.game.unwrap_or_default().name; // "games/..."
//! let outcome = arbiter.make_move(&game, Color::White, "e4").await?;
//! for ruling in &outcome.event.rulings {
//!     println!("{} {}", ruling.rule_id, ruling.decision);
//! }
//! let mut watch = arbiter.watch(&game, 0);
//! while let Some(item) = watch.next().await {
//!     if let WatchItem::Event(event) = item? {
//!         println!("#{} {}", event.seq, event.act);
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! - [`Client::connect`] takes the URL (`https://` uses TLS with the
//!   system's roots or [`TlsOptions::ca_pem`]), an optional bearer token
//!   (`authorization: Bearer <token>`; a role token or a player token from
//!   CreateGame) and optional [`TlsOptions`].
//! - There is one method per RPC. Each returns a [`Call`]: `.await` it, or
//!   [`Call::send`] it as often as needed. A mutation gets a `request_id`
//!   (a random UUID) when it is built, unless the caller sets one with
//!   [`Call::request_id`], so every send of the same call is applied at most
//!   once (AIP-155). On UNAVAILABLE or a transport failure the call is resent
//!   with the same `request_id` following the client's [`RetryPolicy`] (4
//!   attempts by default). [`Client::call`] sends any request message of
//!   the API as it is.
//! - Games are named `abc` or `games/abc`; colours are
//!   [`arbiter_chess::Color`] (`None` with a player token); moves are SAN or
//!   UCI text.
//! - Mutations give an [`Outcome`]: the recorded event with its rulings, and
//!   the game after it.
//! - [`Client::watch`] streams a game's events and resumes after the last
//!   event delivered when the stream breaks: no gaps, no duplicates; it ends
//!   when the game is over (see [`WatchStream`]).
//! - [`Error`] exposes the gRPC code, the ErrorInfo reason, the rule id and
//!   the BadRequest field violations, and reads well:
//!   `FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a): you touched the knight on g1 ...`.
//!
//! ## The CLI
//!
//! `arbiter --help` lists the commands; every command has `--help` with
//! examples. The server address and token come from `--url` / `--token` or
//! `ARBITER_URL` / `ARBITER_TOKEN` (default `http://127.0.0.1:50051`).
//! `--json` prints one JSON document per command on standard output (one
//! object per line for `game watch`), built as described in [`json`];
//! errors go to standard error (as JSON with `--json`). Mutations take the
//! global `--request-id ID` (idempotency key; a fresh UUID otherwise) and
//! `--expected-seq SEQ`.
//!
//! ```text
//! arbiter game create --white W --black B --time-control 90+30 [--mode otb|online|hybrid]
//!                     [--event E --round R] [--id ID] [--start] [--chess960] [--fen FEN] ...
//! arbiter game list [--event E] [--round R] [--status pending|in-progress|finished] [--page-size N]
//! arbiter game show GAME [--ascii] [--flip]
//! arbiter game watch GAME [--ascii] [--flip] [--after-seq N]
//! arbiter game pgn GAME
//! arbiter game start GAME
//! arbiter move GAME MOVE [--color C] [--premove] [--castle]
//! arbiter touch GAME SQUARE [--adjust | --accidental] [--color C]
//! arbiter adjust | press | offer-draw | accept-draw | decline-draw | resign GAME [--color C]
//! arbiter claim GAME threefold|fifty [--intended MOVE] [--color C]
//! arbiter promote GAME PIECE | release-king GAME SQUARE | two-hands | arrive | disconnect
//!         | reconnect | increment | no-winning-attempt GAME [--color C]
//! arbiter clock pause|resume GAME
//! arbiter clock adjust GAME --color C --delta 2m      (90s, 2m, -30s, 1h, 1h30m, 5:00, ms)
//! arbiter clock set GAME --color C --remaining 5m
//! arbiter penalty GAME --color C warning|add-time|deduct-time|raise-score|reduce-score|declare-lost [--amount 2m]
//! arbiter device GAME --color C
//! arbiter reinstate GAME --ply N
//! arbiter result GAME 1-0|0-1|1/2-1/2|0-0
//! arbiter answer GAME QUESTION_ID default|accept|reject|postpone
//! arbiter audit GAME
//! arbiter pgn check FILE... [--verbose]                (offline)
//! arbiter fen show FEN [--chess960] [--ascii]          (offline)
//! arbiter completions bash|zsh|fish
//! ```
//!
//! ### Exit codes
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success (for `game watch`: the game is over) |
//! | 1 | usage error: unknown command or option, a value that does not parse, a missing argument |
//! | 2 | invalid argument or not found: INVALID_ARGUMENT, OUT_OF_RANGE, NOT_FOUND; a file that cannot be read; a bad FEN |
//! | 3 | refused by the Laws of Chess: FAILED_PRECONDITION (touch move, illegal move, not your turn, game over...) |
//! | 4 | authentication or permission: UNAUTHENTICATED, PERMISSION_DENIED |
//! | 5 | unavailable or conflict: UNAVAILABLE (also when the server cannot be reached), ABORTED, ALREADY_EXISTS, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED; retrying may help |
//! | 6 | `arbiter pgn check`: at least one game is invalid |
//! | 7 | anything else: INTERNAL, UNKNOWN, an output error |
//!
//! The constants are in [`exit`].

mod client;
mod error;
pub mod json;
pub mod parse;
pub mod render;
mod watch;

pub use arbiter_chess::Color;
pub use arbiter_proto::v1 as pb;
pub use client::{Bearer, Call, Client, Inner, RetryPolicy, Rpc, TlsOptions, new_request_id};
pub use error::{DOMAIN, Error, FieldViolation, RpcError, code_name, exit, exit_code_of};
pub use tonic::Code;
pub use watch::{WatchItem, WatchOptions, WatchStream};

/// What a mutation gives: the recorded event with its rulings, and the game
/// after it.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The event, with its rulings in order.
    pub event: pb::GameEvent,
    /// The game after the event.
    pub game: pb::Game,
}

impl Outcome {
    /// The first ruling with this decision (`MOVE_COMPLETED`...).
    pub fn ruling(&self, decision: &str) -> Option<&pb::Ruling> {
        self.event.rulings.iter().find(|r| r.decision == decision)
    }

    /// `true` once the game is over.
    pub fn finished(&self) -> bool {
        self.game.status == pb::GameStatus::Finished as i32
    }
}
