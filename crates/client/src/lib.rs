//! # arbiter-client
//!
//! A thin typed async client for the Arbiter gRPC API
//! (`arbiter.v1.ArbiterService`).
//!
//! ```no_run
//! use arbiter_client::{Client, Color, WatchItem};
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
//! - Games are named `abc` or `games/abc` ([`parse::game_name`]); colours
//!   are [`Color`] (`None` with a player token); moves are SAN or UCI text.
//! - Mutations give an [`Outcome`]: the recorded event with its rulings, and
//!   the game after it.
//! - [`Client::watch`] streams a game's events and resumes after the last
//!   event delivered when the stream breaks: no gaps, no duplicates; it ends
//!   when the game is over (see [`WatchStream`]).
//! - [`Client::connect_board`] opens an electronic board's stream for one
//!   game (ConnectBoard): a [`BoardSender`] for its observations and clock
//!   readings ([`BoardReport`]), and [`BoardUpdates`] for what the service
//!   decided ([`BoardUpdate`]: acts with their rulings, the believed
//!   placement, corrections, clock drift, refusals).
//! - [`Error`] exposes the gRPC code, the ErrorInfo reason, the rule id and
//!   the BadRequest field violations, and reads well:
//!   `FAILED_PRECONDITION TOUCH_MOVE (FIDE-4.3a): you touched the knight on g1 ...`.
//!   [`Error::is_transient`] says whether resending may help;
//!   [`is_transient_status`] applies the same rule to a `tonic::Status`.
//!
//! ## What this crate depends on
//!
//! The generated API (`arbiter-proto`), tonic, tokio, thiserror and uuid, and
//! nothing else: no command-line parsing, no terminal output, no JSON, and
//! not the rules core (`arbiter-chess`). A test (`tests/dependencies.rs`)
//! keeps it so. The operator CLI `arbiter`, built on this crate, is the
//! crate `arbiter-cli`.
//!
//! ## Exit codes
//!
//! [`Error::exit_code`] gives the exit code the `arbiter` CLI uses for an
//! error; the codes and their meanings are in [`exit`].

mod article;
mod board;
mod client;
mod color;
mod error;
pub mod parse;
mod watch;

/// The API's encoded file descriptor set (for the canonical JSON mapping).
pub use arbiter_proto::FILE_DESCRIPTOR_SET;
pub use arbiter_proto::v1 as pb;
pub use article::article_text;
pub use board::{BoardReport, BoardSender, BoardStream, BoardUpdate, BoardUpdates};
pub use client::{Bearer, Call, Client, Health, Inner, RetryPolicy, Rpc, TlsOptions, new_request_id};
pub use color::{Color, ParseColorError};
pub use error::{
    DOMAIN, Error, FieldViolation, RpcError, code_name, exit, exit_code_of, is_transient_status,
};
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
    /// MakeMove and PressClock: what became of the move (accepted, refused
    /// by touch-move, illegal...); unspecified for the other acts.
    pub move_outcome: pb::MoveOutcome,
}

impl Outcome {
    /// The first ruling with this decision (`MOVE_COMPLETED`...).
    pub fn ruling(&self, decision: &str) -> Option<&pb::Ruling> {
        self.event.rulings.iter().find(|r| r.decision == decision)
    }

    /// `true` when the Laws refused or ruled against the move the act made
    /// or completed: a move refused by touch-move, an illegal move (made,
    /// completed, or a pawn left unpromoted). The CLI exits 3 for these.
    pub fn move_refused(&self) -> bool {
        matches!(
            self.move_outcome,
            pb::MoveOutcome::RefusedTouchMove
                | pb::MoveOutcome::IllegalNotCompleted
                | pb::MoveOutcome::UnfinishedPromotion
                | pb::MoveOutcome::RuledIllegal
        )
    }

    /// `true` once the game is over.
    pub fn finished(&self) -> bool {
        self.game.status == pb::GameStatus::Finished as i32
    }
}
