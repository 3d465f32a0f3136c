//! `arbiter`: the operator CLI of the Arbiter service. Thin: it parses the
//! command line, calls `arbiter_client`, and prints. See `arbiter --help`
//! and the crate documentation for the exit codes.

use std::collections::VecDeque;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use arbiter_chess::fen::{FenOptions, Strictness};
use arbiter_chess::pgn::check::validate_games;
use arbiter_chess::{Color, Position};
use arbiter_client::render::{self, BoardStyle};
use arbiter_client::{
    Call, Client, Error, Outcome, Rpc, TlsOptions, WatchItem, WatchOptions, exit, json, parse, pb,
};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use tokio_stream::StreamExt;

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

const MAIN_HELP: &str = "\
Examples:
  export ARBITER_URL=http://127.0.0.1:50051 ARBITER_TOKEN=<arbiter token>
  arbiter game create --white Carlsen --black Caruana --time-control 90+30 --start
  arbiter move abc e4 --color white
  arbiter game show abc
  arbiter game watch abc
  arbiter clock adjust abc --color black --delta 2m
  arbiter pgn check games.pgn
  arbiter --json game list --status in-progress | jq '.games[].name'

Output:
  Human-readable text by default. With --json, one JSON document per command on
  standard output (one object per line for `game watch`): proto field names,
  enum values without their prefix (\"IN_PROGRESS\"), times in RFC 3339.
  Errors go to standard error (a JSON {\"error\": ...} document with --json).

Exit codes:
  0  success (`game watch`: the game is over)
  1  usage error (unknown command or option, a value that does not parse)
  2  invalid argument or not found (INVALID_ARGUMENT, OUT_OF_RANGE, NOT_FOUND,
     a file that cannot be read, a bad FEN)
  3  refused by the Laws of Chess (FAILED_PRECONDITION: touch move, illegal
     move, not your turn, game over...)
  4  authentication (UNAUTHENTICATED, PERMISSION_DENIED)
  5  unavailable or conflict (UNAVAILABLE, server unreachable, ABORTED,
     ALREADY_EXISTS, DEADLINE_EXCEEDED): retrying may help
  6  `pgn check`: at least one game is invalid
  7  anything else (INTERNAL, UNKNOWN)";

/// The operator CLI of the Arbiter service: chess games under the FIDE Laws.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, after_help = MAIN_HELP, propagate_version = true)]
struct Cli {
    /// The server address (`https://` for TLS).
    #[arg(long, env = "ARBITER_URL", default_value = "http://127.0.0.1:50051", global = true)]
    url: String,
    /// The bearer token: a role token (service, arbiter, viewer) or a
    /// player token from `game create`.
    #[arg(long, env = "ARBITER_TOKEN", hide_env_values = true, global = true)]
    token: Option<String>,
    /// PEM file of the CA to trust for `https://` (default: the system's roots).
    #[arg(long, env = "ARBITER_CA", value_name = "FILE", global = true)]
    ca: Option<PathBuf>,
    /// The name to check the server's certificate against.
    #[arg(long, value_name = "NAME", global = true)]
    tls_domain: Option<String>,
    /// Machine output: one JSON document (per line for `game watch`).
    #[arg(long, global = true)]
    json: bool,
    /// Idempotency key of a mutation (default: a fresh UUID); a script that
    /// repeats a command with the same key changes the game at most once.
    #[arg(long, value_name = "ID", global = true)]
    request_id: Option<String>,
    /// Refuse a mutation (exit 5, ABORTED) unless the game's last seq is SEQ.
    #[arg(long, value_name = "SEQ", global = true)]
    expected_seq: Option<i64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check that the service is up and serving (grpc.health.v1); exit 0
    /// when it is, 5 otherwise. No token needed.
    #[command(after_help = "Examples:\n  arbiter health\n  arbiter --url http://10.0.0.5:50051 health")]
    Health,
    /// Games: create, list, show, watch, export, start.
    #[command(subcommand)]
    Game(GameCommand),
    /// Make a move (SAN or UCI). Over the board it is completed by `press`.
    #[command(after_help = "Examples:\n  arbiter move abc e4 --color white\n  arbiter move abc Nf3\n  \
                            arbiter move abc e7e8q --color white\n  arbiter move abc e5 --premove   (online)")]
    Move(MoveArgs),
    /// Report that a player touched a piece (Law 4.2, 4.3).
    #[command(after_help = "Examples:\n  arbiter touch abc g1 --color white\n  \
                            arbiter touch abc e2 --adjust\n  arbiter touch abc d1 --accidental")]
    Touch(TouchArgs),
    /// Report that a player said "I adjust" (Law 4.2.1).
    #[command(after_help = "Example:\n  arbiter adjust abc --color white")]
    Adjust(PlayerArgs),
    /// Press the clock, completing the move (Law 6.2.1).
    #[command(after_help = "Example:\n  arbiter press abc --color white")]
    Press(PressArgs),
    /// Offer a draw (Law 9.1.2).
    #[command(after_help = "Example:\n  arbiter offer-draw abc --color white")]
    OfferDraw(PlayerArgs),
    /// Accept the pending draw offer.
    #[command(after_help = "Example:\n  arbiter accept-draw abc --color black")]
    AcceptDraw(PlayerArgs),
    /// Decline the pending draw offer.
    #[command(after_help = "Example:\n  arbiter decline-draw abc --color black")]
    DeclineDraw(PlayerArgs),
    /// Claim a draw: threefold repetition (9.2) or fifty moves (9.3).
    #[command(after_help = "Examples:\n  arbiter claim abc threefold --color white\n  \
                            arbiter claim abc fifty --intended Kf2 --color black")]
    Claim(ClaimArgs),
    /// Resign the game (Law 5.1.2).
    #[command(after_help = "Example:\n  arbiter resign abc --color black")]
    Resign(PlayerArgs),
    /// Report that the promotion piece touched its square (Law 4.4.4).
    #[command(after_help = "Example:\n  arbiter promote abc queen --color white")]
    Promote(PromoteArgs),
    /// Report that the king was released on its castling square first (Law 4.7.2).
    #[command(after_help = "Example:\n  arbiter release-king abc g1 --color white")]
    ReleaseKing(SquareArgs),
    /// Report that the move just made was made with two hands (Law 7.5.4).
    #[command(after_help = "Example:\n  arbiter two-hands abc --color white")]
    TwoHands(PlayerArgs),
    /// Record that a player arrived at the board (Law 6.7).
    #[command(after_help = "Example:\n  arbiter arrive abc --color black")]
    Arrive(PlayerArgs),
    /// Online: record that a player's connection was lost (OCR 11).
    #[command(after_help = "Example:\n  arbiter disconnect abc --color black")]
    Disconnect(PlayerArgs),
    /// Online: record that the player is back (OCR 11.4.1).
    #[command(after_help = "Example:\n  arbiter reconnect abc --color black")]
    Reconnect(PlayerArgs),
    /// Guidelines III.4: ask for a 5-second increment for both players.
    #[command(after_help = "Example:\n  arbiter increment abc --color white")]
    Increment(PlayerArgs),
    /// Guidelines III.5: claim that the opponent cannot win by normal means.
    #[command(after_help = "Example:\n  arbiter no-winning-attempt abc --color white")]
    NoWinningAttempt(PlayerArgs),
    /// Arbiter: the clocks (pause, resume, adjust, set).
    #[command(subcommand)]
    Clock(ClockCommand),
    /// Arbiter: a penalty of Law 12.9 against a player.
    #[command(after_help = "Examples:\n  arbiter penalty abc --color white warning\n  \
                            arbiter penalty abc --color black add-time --amount 2m\n  \
                            arbiter penalty abc --color white deduct-time --amount 1m\n  \
                            arbiter penalty abc --color black declare-lost")]
    Penalty(PenaltyArgs),
    /// Arbiter: an electronic device was found on a player (Law 11.3.2).
    #[command(after_help = "Example:\n  arbiter device abc --color black")]
    Device(ColorArgs),
    /// Arbiter: reinstate the position before ply N (Law 7.5.1).
    #[command(after_help = "Example:\n  arbiter reinstate abc --ply 14")]
    Reinstate(ReinstateArgs),
    /// Arbiter: declare the result (Law 8.7, 11.7, 11.8).
    #[command(after_help = "Examples:\n  arbiter result abc 1-0\n  arbiter result abc 1/2-1/2\n  \
                            arbiter result abc 0-0")]
    Result(ResultArgs),
    /// Arbiter: answer an open question (see `game show`).
    #[command(after_help = "Examples:\n  arbiter answer abc 1 accept\n  arbiter answer abc 2 default")]
    Answer(AnswerArgs),
    /// Every event and ruling of a game, with times (the audit trail).
    #[command(
        after_help = "Examples:\n  arbiter audit abc\n  arbiter --json audit abc | jq '.events[].rulings[]'"
    )]
    Audit(GameArg),
    /// PGN files, offline: check every move and result.
    #[command(subcommand)]
    Pgn(PgnCommand),
    /// FEN positions, offline: diagram and legal moves.
    #[command(subcommand)]
    Fen(FenCommand),
    /// Print shell completions.
    #[command(after_help = "Examples:\n  arbiter completions bash > /etc/bash_completion.d/arbiter\n  \
                            arbiter completions zsh > \"${fpath[1]}/_arbiter\"\n  \
                            arbiter completions fish > ~/.config/fish/completions/arbiter.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
enum GameCommand {
    /// Create a game; prints its name and both player tokens.
    #[command(
        after_help = "Examples:\n  arbiter game create --white Carlsen --black Caruana --time-control 90+30\n  \
                            arbiter game create --white A --black B --time-control 3+2 --mode online --start\n  \
                            arbiter game create --white A --black B --time-control \"40/90m+30s, 30m+30s\" \\\n      \
                            --event \"Club Open\" --round 3 --id r3-b1\n  \
                            arbiter game create --white A --black B --time-control 15+10 --chess960 \\\n      \
                            --fen \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"\n  \
                            arbiter --json game create --white A --black B --time-control 90+30 | jq -r .white_token"
    )]
    Create(Box<CreateArgs>),
    /// List games, filtered by event, round and status.
    #[command(
        after_help = "Examples:\n  arbiter game list\n  arbiter game list --event \"Club Open\" --round 3\n  \
                            arbiter game list --status in-progress\n  \
                            arbiter game list --page-size 20 --page-token <token>"
    )]
    List(ListArgs),
    /// Show a game: board, whose move, clocks, offer, obligation, questions, rulings.
    #[command(
        after_help = "Examples:\n  arbiter game show abc\n  arbiter game show games/abc --ascii --flip"
    )]
    Show(ShowArgs),
    /// Watch a game live (board, ticking clocks, every ruling) until it is over.
    #[command(after_help = "Examples:\n  arbiter game watch abc\n  arbiter game watch abc --ascii\n  \
                            arbiter --json game watch abc --after-seq 40   (one JSON object per line)\n\n\
                            In a terminal the view is redrawn in place (ANSI sequences; works in tmux);\n\
                            piped, one line per event and ruling is printed. A broken connection is\n\
                            resumed after the last event shown, without gaps or repeats.")]
    Watch(WatchArgs),
    /// Export a game as PGN.
    #[command(after_help = "Example:\n  arbiter game pgn abc > abc.pgn")]
    Pgn(GameArg),
    /// Arbiter: start the game (White's clock starts, Law 6.6).
    #[command(after_help = "Example:\n  arbiter game start abc")]
    Start(GameArg),
}

#[derive(Debug, Subcommand)]
enum ClockCommand {
    /// Pause both clocks (Law 6.11).
    #[command(after_help = "Example:\n  arbiter clock pause abc")]
    Pause(GameArg),
    /// Resume the clock that was running.
    #[command(after_help = "Example:\n  arbiter clock resume abc")]
    Resume(GameArg),
    /// Add (or, negative, remove) time on a side's clock (Law 6.10).
    #[command(after_help = "Examples:\n  arbiter clock adjust abc --color black --delta 2m\n  \
                            arbiter clock adjust abc --color white --delta -30s\n\n\
                            Durations: 90s, 2m, -30s, 1h, 1h30m, 1.5s, 5:00, or plain milliseconds.")]
    Adjust(ClockAdjustArgs),
    /// Set a side's remaining time (Law 6.10.2).
    #[command(after_help = "Examples:\n  arbiter clock set abc --color white --remaining 5m\n  \
                            arbiter clock set abc --color black --remaining 1:02:30")]
    Set(ClockSetArgs),
}

#[derive(Debug, Subcommand)]
enum PgnCommand {
    /// Check every move and result of the games of PGN files (`-` for standard input).
    #[command(
        after_help = "Examples:\n  arbiter pgn check games.pgn\n  arbiter pgn check a.pgn b.pgn --verbose\n  \
                            curl -s https://example.org/games.pgn | arbiter pgn check -\n\n\
                            Prints each invalid game (`FILE: game K: error at ply P: REASON`) and the totals.\n\
                            Exit 0 when every game is valid, 6 when some game is not, 2 when a file\n\
                            cannot be read."
    )]
    Check(PgnCheckArgs),
}

#[derive(Debug, Subcommand)]
enum FenCommand {
    /// Show a position: diagram, side to move, check, and the legal moves in SAN.
    #[command(
        after_help = "Examples:\n  arbiter fen show \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"\n  \
                            arbiter fen show 8/8/8/8/8/5k2/8/5K1q w - - 0 1 --ascii"
    )]
    Show(FenShowArgs),
}

/// A game, `abc` or `games/abc`.
fn game_arg(text: &str) -> Result<String, String> {
    parse::game_name(text).map_err(|e| e.message())
}

fn duration_arg(text: &str) -> Result<i64, String> {
    parse::duration_ms(text).map_err(|e| e.message())
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorArg {
    #[value(alias = "w")]
    White,
    #[value(alias = "b")]
    Black,
}

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Color {
        match c {
            ColorArg::White => Color::White,
            ColorArg::Black => Color::Black,
        }
    }
}

#[derive(Debug, Args)]
struct GameArg {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
}

#[derive(Debug, Args)]
struct PlayerArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The player acting (not needed with a player token).
    #[arg(long, short)]
    color: Option<ColorArg>,
}

#[derive(Debug, Args)]
struct ColorArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The player concerned.
    #[arg(long, short)]
    color: ColorArg,
}

#[derive(Debug, Args)]
struct MoveArgs {
    #[command(flatten)]
    player: PlayerArgs,
    /// The move in SAN (`e4`, `Nf3`, `O-O`, `exd6 e.p.`) or UCI (`e2e4`, `e7e8q`).
    #[arg(value_name = "MOVE")]
    mv: String,
    /// Online: queue the move as a premove (OCR 3.1.5).
    #[arg(long)]
    premove: bool,
    /// Chess960: the move is a castling (implied by `O-O`).
    #[arg(long)]
    castle: bool,
}

#[derive(Debug, Args)]
struct TouchArgs {
    #[command(flatten)]
    player: PlayerArgs,
    /// The square of the touched piece, e.g. `g1`.
    #[arg(value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    square: String,
    /// The piece was touched to adjust it, after "I adjust" (Law 4.2.1).
    #[arg(long, conflicts_with = "accidental")]
    adjust: bool,
    /// The touch was clearly accidental: it binds nothing.
    #[arg(long)]
    accidental: bool,
}

#[derive(Debug, Args)]
struct PressArgs {
    #[command(flatten)]
    player: PlayerArgs,
    /// The hand that pressed did not make the move (Law 6.2.3).
    #[arg(long)]
    other_hand: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ClaimArg {
    /// Law 9.2: threefold repetition.
    #[value(alias = "repetition")]
    Threefold,
    /// Law 9.3: fifty moves.
    #[value(alias = "50", alias = "fifty-moves")]
    Fifty,
}

#[derive(Debug, Args)]
struct ClaimArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The rule the claim rests on.
    kind: ClaimArg,
    /// The intended move, written first (9.2.1, 9.3.1), in SAN or UCI.
    #[arg(long, value_name = "MOVE")]
    intended: Option<String>,
    /// The player claiming (not needed with a player token).
    #[arg(long, short)]
    color: Option<ColorArg>,
}

#[derive(Debug, Args)]
struct PromoteArgs {
    #[command(flatten)]
    player: PlayerArgs,
    /// The piece: queen, rook, bishop, knight (or q, r, b, n).
    #[arg(value_parser = |s: &str| parse::piece_role(s).map_err(|e| e.message()))]
    piece: pb::PieceRole,
}

#[derive(Debug, Args)]
struct SquareArgs {
    #[command(flatten)]
    player: PlayerArgs,
    /// The king's castling square, e.g. `g1`.
    #[arg(value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    square: String,
}

#[derive(Debug, Args)]
struct ClockAdjustArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The clock to change.
    #[arg(long, short)]
    color: ColorArg,
    /// The change: 90s, 2m, -30s, 1h, 1m30s, or plain milliseconds.
    #[arg(long, value_parser = duration_arg, allow_hyphen_values = true)]
    delta: i64,
}

#[derive(Debug, Args)]
struct ClockSetArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The clock to set.
    #[arg(long, short)]
    color: ColorArg,
    /// The new remaining time: 5m, 90s, 1:30:00, or plain milliseconds.
    #[arg(long, value_parser = duration_arg)]
    remaining: i64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PenaltyArg {
    /// 12.9.1: a warning.
    Warning,
    /// 12.9.2: add --amount to the opponent's time.
    AddTime,
    /// 12.9.3: deduct --amount from the offender's time.
    DeductTime,
    /// 12.9.4: raise the opponent's score to the game maximum.
    RaiseScore,
    /// 12.9.5: reduce the offender's score.
    ReduceScore,
    /// 12.9.6: declare the game lost by the offender.
    DeclareLost,
}

#[derive(Debug, Args)]
struct PenaltyArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The offender.
    #[arg(long, short)]
    color: ColorArg,
    /// The penalty.
    kind: PenaltyArg,
    /// For the time penalties: how much (2m, 90s, plain milliseconds).
    #[arg(long, value_parser = duration_arg)]
    amount: Option<i64>,
}

#[derive(Debug, Args)]
struct ReinstateArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The ply before which the position is reinstated (0: the start).
    #[arg(long)]
    ply: u32,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ResultArg {
    /// White wins.
    #[value(name = "1-0")]
    WhiteWins,
    /// Black wins.
    #[value(name = "0-1")]
    BlackWins,
    /// A draw.
    #[value(name = "1/2-1/2", alias = "draw", alias = "½-½")]
    Draw,
    /// Both players lose (Law 11.8).
    #[value(name = "0-0")]
    BothLose,
}

#[derive(Debug, Args)]
struct ResultArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The result.
    result: ResultArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AnswerArg {
    /// Apply the default the question was opened with.
    Default,
    /// Accept the player's request or claim.
    Accept,
    /// Reject it.
    Reject,
    /// Postpone the decision (Guidelines III.5.2).
    Postpone,
}

#[derive(Debug, Args)]
struct AnswerArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// The question's number (see `game show`).
    question_id: u32,
    /// The answer.
    answer: AnswerArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    /// Over the board: physical acts reported, touch-move applies.
    #[value(alias = "over-the-board")]
    Otb,
    /// FIDE Online Chess Regulations.
    Online,
    /// Online rules at a physical venue.
    Hybrid,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CategoryArg {
    Standard,
    Rapid,
    Blitz,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RegimeArg {
    /// A.4 / B.2: the full Competitive Rules.
    Full,
    /// A.5 / B.3: the reduced rules.
    Reduced,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum StatusArg {
    Pending,
    #[value(alias = "playing", alias = "in_progress")]
    InProgress,
    Finished,
}

#[derive(Debug, Args)]
struct CreateArgs {
    /// White's name, as on the pairing.
    #[arg(long)]
    white: String,
    /// Black's name.
    #[arg(long)]
    black: String,
    /// White's FIDE id.
    #[arg(long, value_name = "ID")]
    white_fide_id: Option<String>,
    /// Black's FIDE id.
    #[arg(long, value_name = "ID")]
    black_fide_id: Option<String>,
    /// The time control: `90+30`, `5400+30`, `40/90m+30s, 30m+30s`, `5400b10`...
    #[arg(long, visible_alias = "tc", value_name = "TC")]
    time_control: String,
    /// How moves reach the service.
    #[arg(long, value_enum, default_value = "otb")]
    mode: ModeArg,
    /// The event (tournament) name.
    #[arg(long)]
    event: Option<String>,
    /// The round, e.g. `3` or `3.1`.
    #[arg(long)]
    round: Option<String>,
    /// The game id (`[a-z0-9-]{1,63}`, starting with a letter); the service picks one otherwise.
    #[arg(long)]
    id: Option<String>,
    /// Start the clocks at once (otherwise `arbiter game start`).
    #[arg(long)]
    start: bool,
    /// Chess960 (Guidelines II); give the position with --fen.
    #[arg(long)]
    chess960: bool,
    /// The starting position as FEN (default: the standard position).
    #[arg(long)]
    fen: Option<String>,
    /// Override the category computed from the time control.
    #[arg(long, value_enum)]
    category: Option<CategoryArg>,
    /// The supervision regime (rapid and blitz).
    #[arg(long, value_enum)]
    regime: Option<RegimeArg>,
    /// Penalty for an illegal move or an incorrect claim (default 2m standard, 1m rapid/blitz).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    penalty: Option<i64>,
    /// Default time after the start (Law 6.7).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    default_time: Option<i64>,
    /// No draw offers before this move number (Law 9.1.1).
    #[arg(long, value_name = "MOVE")]
    no_draw_offers_before: Option<u32>,
    /// Draw offers only with the arbiter's consent (Law 9.1.1).
    #[arg(long)]
    draw_offers_need_arbiter: bool,
    /// Guidelines III apply (only without increment, never in blitz).
    #[arg(long)]
    guidelines_iii: bool,
    /// Deduct this much time instead of loss when a device is found (Law 11.3.2).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    device_penalty: Option<i64>,
    /// Armageddon: a drawn game counts as a win for Black.
    #[arg(long)]
    armageddon: bool,
    /// Automatic draws at threefold repetition and fifty moves (default: on online, off OTB).
    #[arg(long, value_name = "BOOL")]
    automatic_draws: Option<bool>,
    /// CN-7 draw-offer alternation.
    #[arg(long)]
    cn_draw_alternation: bool,
    /// Online: lag compensation per move, at most this much.
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    max_lag: Option<i64>,
    /// Online: a player disconnected this long loses (OCR 11).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    reconnect_window: Option<i64>,
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Only games of this event.
    #[arg(long)]
    event: Option<String>,
    /// Only games of this round.
    #[arg(long)]
    round: Option<String>,
    /// Only games with this status.
    #[arg(long, value_enum)]
    status: Option<StatusArg>,
    /// Fetch one page of this size (prints the next page token); by default every page is fetched.
    #[arg(long, value_name = "N")]
    page_size: Option<i32>,
    /// The next page token of a previous `--page-size` listing.
    #[arg(long, value_name = "TOKEN", requires = "page_size")]
    page_token: Option<String>,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    flip: bool,
}

#[derive(Debug, Args)]
struct WatchArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg)]
    game: String,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    flip: bool,
    /// Start after this event (0: replay every event from the first).
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    after_seq: i64,
}

#[derive(Debug, Args)]
struct PgnCheckArgs {
    /// PGN files (`-` for standard input).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Also print a line for every valid game.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Debug, Args)]
struct FenShowArgs {
    /// The FEN (quoted, or as separate words).
    #[arg(required = true, num_args = 1.., value_name = "FEN")]
    fen: Vec<String>,
    /// Read castling as Chess960 (Shredder-FEN or X-FEN).
    #[arg(long)]
    chess960: bool,
    /// Accept positions that cannot arise in a game (lenient FEN).
    #[arg(long)]
    lenient: bool,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    flip: bool,
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK });
        }
    };
    let json_errors = cli.json;
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
            Some(io) if io.kind() == std::io::ErrorKind::NotFound => exit::INVALID,
            Some(io) if io.kind() == std::io::ErrorKind::PermissionDenied => exit::INVALID,
            _ => exit::OTHER,
        },
    };
    if json_errors {
        let doc = match client_error {
            Some(err) => json::error(err),
            None => {
                json!({ "error": { "code": Value::Null, "message": format!("{e:#}"), "exit_code": code } })
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

/// Writes to standard output and flushes (a closed pipe ends the command
/// quietly).
fn out(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

fn out_json(value: &Value) -> std::io::Result<()> {
    out(&format!("{value:#}\n"))
}

struct Ctx {
    url: String,
    token: Option<String>,
    ca: Option<PathBuf>,
    tls_domain: Option<String>,
    json: bool,
    request_id: Option<String>,
    expected_seq: Option<i64>,
}

impl Ctx {
    async fn client(&self) -> anyhow::Result<Client> {
        let tls = if self.ca.is_some() || self.tls_domain.is_some() {
            let ca_pem = match &self.ca {
                Some(path) => Some(
                    std::fs::read(path)
                        .with_context(|| format!("cannot read the CA file {}", path.display()))?,
                ),
                None => None,
            };
            Some(TlsOptions { ca_pem, domain: self.tls_domain.clone() })
        } else {
            None
        };
        Ok(Client::connect(&self.url, self.token.clone(), tls).await?)
    }

    /// Applies `--request-id` and `--expected-seq` to a call.
    fn prepare<R: Rpc>(&self, mut call: Call<R>) -> Call<R> {
        if let Some(id) = &self.request_id {
            call = call.request_id(id.clone());
        }
        if let Some(seq) = self.expected_seq {
            call = call.expected_seq(seq);
        }
        call
    }

    /// Sends a mutation and prints what it gave.
    async fn act<R: Rpc<Output = Outcome>>(&self, call: Call<R>) -> anyhow::Result<u8> {
        let outcome = self.prepare(call).await?;
        if self.json {
            out_json(&json::outcome(&outcome))?;
        } else {
            out(&outcome_text(&outcome))?;
        }
        Ok(exit::OK)
    }
}

/// A mutation's answer for people: the act, its rulings, then how the game
/// stands.
fn outcome_text(o: &Outcome) -> String {
    let e = &o.event;
    let mut text = format!("{} #{} {}", o.game.name, e.seq, e.act);
    if !e.actor.is_empty() {
        text.push_str(&format!(" by {}", e.actor));
    }
    if !e.summary.is_empty() {
        text.push_str(&format!(": {}", e.summary));
    }
    text.push('\n');
    for r in &e.rulings {
        text.push_str(&format!("  {}\n", render::ruling(r)));
    }
    text.push_str(&format!("  {}\n", render::state_line(&o.game)));
    if let Some(c) = &o.game.clocks {
        text.push_str(&format!("  {}\n", render::clocks_line(c)));
    }
    text
}

async fn run(cli: Cli) -> anyhow::Result<u8> {
    let ctx = Ctx {
        url: cli.url,
        token: cli.token,
        ca: cli.ca,
        tls_domain: cli.tls_domain,
        json: cli.json,
        request_id: cli.request_id,
        expected_seq: cli.expected_seq,
    };
    let color = |c: Option<ColorArg>| c.map(Color::from);
    match cli.command {
        // Offline.
        Command::Pgn(PgnCommand::Check(args)) => pgn_check(&ctx, &args),
        Command::Fen(FenCommand::Show(args)) => fen_show(&ctx, &args),
        Command::Health => {
            let status = ctx.client().await?.health().await?;
            if ctx.json {
                out(&format!("{{\"status\": \"{status}\"}}\n"))?;
            } else {
                out(&format!("{status}\n"))?;
            }
            Ok(if status == "SERVING" { exit::OK } else { exit::UNAVAILABLE })
        }
        Command::Completions { shell } => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "arbiter", &mut buffer);
            out(&String::from_utf8_lossy(&buffer))?;
            Ok(exit::OK)
        }
        // Games.
        Command::Game(GameCommand::Create(args)) => create(&ctx, &args).await,
        Command::Game(GameCommand::List(args)) => list(&ctx, &args).await,
        Command::Game(GameCommand::Show(args)) => show(&ctx, &args).await,
        Command::Game(GameCommand::Watch(args)) => watch(&ctx, &args).await,
        Command::Game(GameCommand::Pgn(args)) => {
            let pgn = ctx.client().await?.export_pgn(&args.game).await?;
            if ctx.json {
                out_json(&json!({ "name": args.game, "pgn": pgn }))?;
            } else {
                out(&pgn)?;
                if !pgn.ends_with('\n') {
                    out("\n")?;
                }
            }
            Ok(exit::OK)
        }
        Command::Game(GameCommand::Start(a)) => ctx.act(ctx.client().await?.start_game(&a.game)).await,
        Command::Audit(args) => audit(&ctx, &args).await,
        // Players' acts.
        Command::Move(a) => {
            let call = ctx.client().await?.make_move(&a.player.game, color(a.player.color), a.mv.clone());
            ctx.act(call.with(|r| {
                r.premove = a.premove;
                r.castle = a.castle;
            }))
            .await
        }
        Command::Touch(a) => {
            let kind = if a.adjust {
                pb::TouchKind::Adjust
            } else if a.accidental {
                pb::TouchKind::Accidental
            } else {
                pb::TouchKind::Intent
            };
            let client = ctx.client().await?;
            ctx.act(client.touch_piece(&a.player.game, color(a.player.color), a.square.clone(), kind)).await
        }
        Command::Adjust(a) => ctx.act(ctx.client().await?.announce_adjust(&a.game, color(a.color))).await,
        Command::Press(a) => {
            let call = ctx.client().await?.press_clock(&a.player.game, color(a.player.color));
            ctx.act(call.with(|r| r.other_hand = a.other_hand)).await
        }
        Command::OfferDraw(a) => ctx.act(ctx.client().await?.offer_draw(&a.game, color(a.color))).await,
        Command::AcceptDraw(a) => ctx.act(ctx.client().await?.accept_draw(&a.game, color(a.color))).await,
        Command::DeclineDraw(a) => ctx.act(ctx.client().await?.decline_draw(&a.game, color(a.color))).await,
        Command::Claim(a) => {
            let kind = match a.kind {
                ClaimArg::Threefold => pb::ClaimKind::ThreefoldRepetition,
                ClaimArg::Fifty => pb::ClaimKind::FiftyMoves,
            };
            let client = ctx.client().await?;
            ctx.act(client.claim_draw(&a.game, color(a.color), kind, a.intended.as_deref())).await
        }
        Command::Resign(a) => ctx.act(ctx.client().await?.resign(&a.game, color(a.color))).await,
        Command::Promote(a) => {
            let client = ctx.client().await?;
            ctx.act(client.place_promotion_piece(&a.player.game, color(a.player.color), a.piece)).await
        }
        Command::ReleaseKing(a) => {
            let client = ctx.client().await?;
            ctx.act(client.release_castling_king(&a.player.game, color(a.player.color), a.square.clone()))
                .await
        }
        Command::TwoHands(a) => ctx.act(ctx.client().await?.report_two_hands(&a.game, color(a.color))).await,
        Command::Arrive(a) => ctx.act(ctx.client().await?.record_arrival(&a.game, color(a.color))).await,
        Command::Disconnect(a) => {
            ctx.act(ctx.client().await?.record_disconnect(&a.game, color(a.color))).await
        }
        Command::Reconnect(a) => ctx.act(ctx.client().await?.record_reconnect(&a.game, color(a.color))).await,
        Command::Increment(a) => {
            ctx.act(ctx.client().await?.request_increment(&a.game, color(a.color))).await
        }
        Command::NoWinningAttempt(a) => {
            ctx.act(ctx.client().await?.claim_no_winning_attempt(&a.game, color(a.color))).await
        }
        // Arbiter's actions.
        Command::Clock(ClockCommand::Pause(a)) => ctx.act(ctx.client().await?.pause_clocks(&a.game)).await,
        Command::Clock(ClockCommand::Resume(a)) => ctx.act(ctx.client().await?.resume_clocks(&a.game)).await,
        Command::Clock(ClockCommand::Adjust(a)) => {
            ctx.act(ctx.client().await?.adjust_clock(&a.game, a.color.into(), a.delta)).await
        }
        Command::Clock(ClockCommand::Set(a)) => {
            ctx.act(ctx.client().await?.set_clock(&a.game, a.color.into(), a.remaining)).await
        }
        Command::Penalty(a) => {
            let kind = match a.kind {
                PenaltyArg::Warning => pb::PenaltyKind::Warning,
                PenaltyArg::AddTime => pb::PenaltyKind::AddTimeToOpponent,
                PenaltyArg::DeductTime => pb::PenaltyKind::DeductTime,
                PenaltyArg::RaiseScore => pb::PenaltyKind::RaiseOpponentScore,
                PenaltyArg::ReduceScore => pb::PenaltyKind::ReduceScore,
                PenaltyArg::DeclareLost => pb::PenaltyKind::DeclareLost,
            };
            let client = ctx.client().await?;
            ctx.act(client.issue_penalty(&a.game, a.color.into(), kind, a.amount.unwrap_or(0))).await
        }
        Command::Device(a) => ctx.act(ctx.client().await?.record_device(&a.game, a.color.into())).await,
        Command::Reinstate(a) => ctx.act(ctx.client().await?.reinstate_position(&a.game, a.ply)).await,
        Command::Result(a) => {
            let result = match a.result {
                ResultArg::WhiteWins => pb::DeclaredResult::WhiteWins,
                ResultArg::BlackWins => pb::DeclaredResult::BlackWins,
                ResultArg::Draw => pb::DeclaredResult::Draw,
                ResultArg::BothLose => pb::DeclaredResult::BothLose,
            };
            ctx.act(ctx.client().await?.declare_result(&a.game, result)).await
        }
        Command::Answer(a) => {
            let answer = match a.answer {
                AnswerArg::Default => pb::Answer::Default,
                AnswerArg::Accept => pb::Answer::Accept,
                AnswerArg::Reject => pb::Answer::Reject,
                AnswerArg::Postpone => pb::Answer::Postpone,
            };
            ctx.act(ctx.client().await?.answer_question(&a.game, a.question_id, answer)).await
        }
    }
}

async fn create(ctx: &Ctx, a: &CreateArgs) -> anyhow::Result<u8> {
    let mode = match a.mode {
        ModeArg::Otb => pb::Mode::OverTheBoard,
        ModeArg::Online => pb::Mode::Online,
        ModeArg::Hybrid => pb::Mode::Hybrid,
    };
    let category = a.category.map_or(pb::Category::Unspecified, |c| match c {
        CategoryArg::Standard => pb::Category::Standard,
        CategoryArg::Rapid => pb::Category::Rapid,
        CategoryArg::Blitz => pb::Category::Blitz,
    });
    let regime = a.regime.map_or(pb::Regime::Unspecified, |r| match r {
        RegimeArg::Full => pb::Regime::Full,
        RegimeArg::Reduced => pb::Regime::Reduced,
    });
    let game_id = match &a.id {
        Some(id) => parse::game_id(id)?,
        None => String::new(),
    };
    let request = pb::CreateGameRequest {
        game_id,
        event: a.event.clone().unwrap_or_default(),
        round: a.round.clone().unwrap_or_default(),
        white: Some(pb::Player {
            name: a.white.clone(),
            fide_id: a.white_fide_id.clone().unwrap_or_default(),
        }),
        black: Some(pb::Player {
            name: a.black.clone(),
            fide_id: a.black_fide_id.clone().unwrap_or_default(),
        }),
        regulations: Some(pb::Regulations {
            mode: mode as i32,
            time_control: a.time_control.clone(),
            category: category as i32,
            regime: regime as i32,
            penalty_ms: a.penalty,
            default_time_ms: a.default_time,
            no_draw_offers_before_move: a.no_draw_offers_before.unwrap_or(0),
            draw_offers_need_arbiter: a.draw_offers_need_arbiter,
            guidelines_iii: a.guidelines_iii,
            device_penalty_deduct_ms: a.device_penalty.unwrap_or(0),
            chess960: a.chess960,
            start_fen: a.fen.clone().unwrap_or_default(),
            armageddon: a.armageddon,
            automatic_draws: a.automatic_draws,
            cn_draw_alternation: a.cn_draw_alternation,
            cn_grade_scoring: false,
            max_lag_compensation_ms: a.max_lag.unwrap_or(0),
            reconnect_window_ms: a.reconnect_window,
        }),
        start: a.start,
        ..Default::default()
    };
    let client = ctx.client().await?;
    let created = ctx.prepare(client.create_game(request)).await?;
    let game = created.game.clone().unwrap_or_default();
    if ctx.json {
        out_json(&json!({
            "name": game.name,
            "white_token": created.white_token,
            "black_token": created.black_token,
            "game": json::game(&game),
        }))?;
    } else {
        out(&format!(
            "game:        {}\nstatus:      {}\nwhite token: {}\nblack token: {}\n",
            game.name,
            render::state_line(&game),
            created.white_token,
            created.black_token
        ))?;
    }
    Ok(exit::OK)
}

async fn list(ctx: &Ctx, a: &ListArgs) -> anyhow::Result<u8> {
    let status = a.status.map_or(pb::GameStatus::Unspecified, |s| match s {
        StatusArg::Pending => pb::GameStatus::Pending,
        StatusArg::InProgress => pb::GameStatus::InProgress,
        StatusArg::Finished => pb::GameStatus::Finished,
    });
    let request = pb::ListGamesRequest {
        page_size: a.page_size.unwrap_or(500),
        page_token: a.page_token.clone().unwrap_or_default(),
        event: a.event.clone().unwrap_or_default(),
        round: a.round.clone().unwrap_or_default(),
        status: status as i32,
    };
    let client = ctx.client().await?;
    let (games, next) = if a.page_size.is_some() {
        let page = client.list_games(request).await?;
        (page.games, page.next_page_token)
    } else {
        (client.list_all_games(request).await?, String::new())
    };
    if ctx.json {
        out_json(&json!({
            "games": games.iter().map(json::game).collect::<Vec<_>>(),
            "next_page_token": next,
        }))?;
        return Ok(exit::OK);
    }
    let mut text = String::new();
    if games.is_empty() {
        text.push_str("no games\n");
    } else {
        let rows: Vec<[String; 7]> = games
            .iter()
            .map(|g| {
                [
                    g.name.clone(),
                    render::words(&render::status(g.status).unwrap_or_default()),
                    g.event.clone(),
                    g.round.clone(),
                    g.white.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
                    g.black.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
                    g.end.as_ref().map(|e| e.result.clone()).unwrap_or_default(),
                ]
            })
            .collect();
        let header = ["GAME", "STATUS", "EVENT", "ROUND", "WHITE", "BLACK", "RESULT"].map(String::from);
        let mut widths = header.clone().map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&header).chain(&rows) {
            let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
            text.push_str(cells.join("  ").trim_end());
            text.push('\n');
        }
    }
    if !next.is_empty() {
        text.push_str(&format!("next page: --page-token {next}\n"));
    }
    out(&text)?;
    Ok(exit::OK)
}

async fn show(ctx: &Ctx, a: &ShowArgs) -> anyhow::Result<u8> {
    let client = ctx.client().await?;
    let game = client.get_game(&a.game).await?;
    let events = client.all_events(&a.game).await?;
    if ctx.json {
        let with_rulings: Vec<&pb::GameEvent> = events.iter().filter(|e| !e.rulings.is_empty()).collect();
        let recent: Vec<Value> =
            with_rulings[with_rulings.len().saturating_sub(10)..].iter().map(|e| json::event(e)).collect();
        out_json(&json!({ "game": json::game(&game), "recent_events": recent }))?;
    } else {
        let style = if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode };
        out(&render::game(&game, &events, style, a.flip))?;
    }
    Ok(exit::OK)
}

async fn audit(ctx: &Ctx, a: &GameArg) -> anyhow::Result<u8> {
    let client = ctx.client().await?;
    let mut events = Vec::new();
    let mut token = String::new();
    loop {
        let page = client.list_game_events(&a.game, 1000, token).await?;
        events.extend(page.events);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    if ctx.json {
        out_json(&json!({ "name": a.game, "events": events.iter().map(json::event).collect::<Vec<_>>() }))?;
    } else {
        let mut text = String::new();
        if events.is_empty() {
            text.push_str("no events\n");
        }
        for e in &events {
            text.push_str(&render::event(e));
        }
        out(&text)?;
    }
    Ok(exit::OK)
}

/// The live view of `game watch`.
struct View {
    game: Option<pb::Game>,
    /// The last clock reading and when it arrived.
    clocks: Option<(pb::ClockReading, Instant)>,
    log: VecDeque<String>,
    note: Option<String>,
    style: BoardStyle,
    flip: bool,
    drawn: bool,
    /// The terminal's width, in columns: longer lines are cut, so that the
    /// frame keeps its height and redraws in place.
    width: usize,
    last_frame: String,
}

/// The terminal's width (`stty size` on the controlling terminal), or 100.
fn terminal_width() -> usize {
    let tty = std::fs::File::open("/dev/tty");
    let size =
        tty.ok().and_then(|tty| std::process::Command::new("stty").arg("size").stdin(tty).output().ok());
    size.and_then(|o| {
        String::from_utf8_lossy(&o.stdout).split_whitespace().nth(1).and_then(|c| c.parse().ok())
    })
    .filter(|&w: &usize| w >= 20)
    .unwrap_or(100)
}

/// `line` cut to `width` characters, with `…` when cut.
fn fit(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

impl View {
    const LOG_LINES: usize = 10;

    fn log(&mut self, line: String) {
        self.log.push_back(line);
        while self.log.len() > Self::LOG_LINES {
            self.log.pop_front();
        }
    }

    /// The clocks as they read now: the running side's reading minus the
    /// time since it arrived.
    fn clocks_now(&self) -> Option<pb::ClockReading> {
        let (c, at) = self.clocks.as_ref()?;
        let mut c = *c;
        let finished = self.game.as_ref().is_some_and(|g| g.status == pb::GameStatus::Finished as i32);
        if !c.paused && !finished {
            let elapsed = at.elapsed().as_millis() as i64;
            match pb::Color::try_from(c.running) {
                Ok(pb::Color::White) => c.white_remaining_ms -= elapsed,
                Ok(pb::Color::Black) => c.black_remaining_ms -= elapsed,
                _ => {}
            }
        }
        Some(c)
    }

    fn screen(&self) -> String {
        let mut s = String::new();
        if let Some(g) = &self.game {
            s.push_str(&render::headline(g));
            s.push('\n');
            s.push_str(&render::regulations_line(g));
            s.push('\n');
            s.push_str(&render::state_line(g));
            s.push_str("\n\n");
            s.push_str(&render::board(&g.fen, self.style, self.flip));
            s.push('\n');
        }
        if let Some(c) = self.clocks_now() {
            s.push_str(&render::clocks_line(&c));
            s.push('\n');
        }
        if let Some(g) = &self.game {
            if let Some(o) = &g.draw_offer
                && o.by != 0
            {
                s.push_str(&format!("Draw offer by {}\n", render::color(o.by)));
            }
            if let Some(o) = &g.obligation
                && (o.color != 0 || !o.allowed_moves.is_empty())
            {
                s.push_str(&format!("Obligation: {} {} ({})\n", render::color(o.color), o.reason, o.rule_id));
            }
            for q in &g.open_questions {
                s.push_str(&format!("Question #{}: {}\n", q.id, q.text));
            }
            let start = g.regulations.as_ref().map_or("", |r| r.start_fen.as_str());
            if !g.moves_san.is_empty() {
                let moves = render::move_list(start, &g.moves_san);
                // The tail of a long game, on one line.
                let tail: String = if moves.chars().count() > 100 {
                    let skip = moves.chars().count() - 100;
                    format!("…{}", moves.chars().skip(skip).collect::<String>())
                } else {
                    moves
                };
                s.push_str(&format!("Moves: {tail}\n"));
            }
        }
        s.push('\n');
        for line in &self.log {
            s.push_str(line);
            s.push('\n');
        }
        if let Some(note) = &self.note {
            s.push_str(&format!("\n{note}\n"));
        }
        s
    }

    /// Redraws in place: cursor home, each line cleared to its end, the
    /// rest of the screen cleared.
    fn redraw(&mut self) -> std::io::Result<()> {
        let screen = self.screen();
        if self.drawn && screen == self.last_frame {
            return Ok(());
        }
        let mut frame = String::new();
        if !self.drawn {
            frame.push_str("\x1b[2J");
            self.drawn = true;
        }
        frame.push_str("\x1b[H");
        for line in screen.lines() {
            frame.push_str(&fit(line, self.width));
            frame.push_str("\x1b[K\n");
        }
        frame.push_str("\x1b[J");
        self.last_frame = screen;
        out(&frame)
    }
}

fn event_lines(e: &pb::GameEvent) -> Vec<String> {
    let mut lines = vec![format!(
        "#{:<4} {:<7} {}{}",
        e.seq,
        e.actor,
        e.act,
        if e.summary.is_empty() { String::new() } else { format!(": {}", e.summary) }
    )];
    for r in &e.rulings {
        lines.push(format!("      {}", render::ruling(r)));
    }
    lines
}

async fn watch(ctx: &Ctx, a: &WatchArgs) -> anyhow::Result<u8> {
    let client = ctx.client().await?;
    // A person or a script watching a game waits out an outage of the
    // service: about ten minutes of attempts, 5 s apart at most.
    let mut options = WatchOptions::default();
    options.reconnect.attempts = 130;
    let mut stream = client.watch_with(&a.game, a.after_seq, options);
    if ctx.json {
        while let Some(item) = stream.next().await {
            let item = item?;
            out(&format!("{}\n", json::watch_item(&item)))?;
        }
        return Ok(exit::OK);
    }
    let tty = std::io::stdout().is_terminal();
    let mut view = View {
        game: None,
        clocks: None,
        log: VecDeque::new(),
        note: None,
        style: if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode },
        flip: a.flip,
        drawn: false,
        width: if tty { terminal_width() } else { usize::MAX },
        last_frame: String::new(),
    };
    let mut tick = tokio::time::interval(Duration::from_millis(if tty { 200 } else { 3_600_000 }));
    loop {
        let item = tokio::select! {
            item = stream.next() => item,
            _ = tick.tick() => {
                if tty && view.game.is_some() {
                    view.redraw()?;
                }
                continue;
            }
        };
        let Some(item) = item else { break };
        match item? {
            WatchItem::Game { game, resumed } => {
                view.clocks = game.clocks.map(|c| (c, Instant::now()));
                if !tty {
                    if resumed {
                        out("(resumed)\n")?;
                    } else {
                        out(&format!(
                            "{}\n{}\n{}\n{}",
                            render::headline(&game),
                            render::regulations_line(&game),
                            render::state_line(&game),
                            render::board(&game.fen, view.style, view.flip)
                        ))?;
                    }
                }
                view.game = Some(*game);
                view.note = None;
            }
            WatchItem::Event(event) => {
                if let Some(c) = &event.clocks {
                    view.clocks = Some((*c, Instant::now()));
                }
                if let Some(g) = &mut view.game {
                    if !event.fen.is_empty() {
                        g.fen = event.fen.clone();
                    }
                    g.last_seq = event.seq;
                }
                // The rest of the game (moves, offer, obligation, status)
                // as it stands now.
                if let Ok(g) = client.get_game(&a.game).await {
                    if let Some(c) = &g.clocks {
                        view.clocks = Some((*c, Instant::now()));
                    }
                    view.game = Some(g);
                }
                let lines = event_lines(&event);
                if tty {
                    view.width = terminal_width();
                    for line in lines {
                        view.log(line);
                    }
                } else {
                    out(&format!("{}\n", lines.join("\n")))?;
                }
                view.note = None;
            }
            WatchItem::Heartbeat(c) => {
                view.clocks = Some((c, Instant::now()));
            }
            WatchItem::Reconnecting { after_seq, attempt, error } => {
                let note =
                    format!("connection lost ({error}); resuming after #{after_seq} (attempt {attempt})");
                if !tty {
                    eprintln!("arbiter: {note}");
                }
                view.note = Some(note);
            }
        }
        if tty {
            view.redraw()?;
        }
    }
    if let Some(g) = &view.game {
        let end = format!("Game over: {}\n", render::state_line(g));
        if tty {
            view.note = Some(end.trim_end().to_string());
            view.redraw()?;
        } else {
            out(&end)?;
        }
    }
    Ok(exit::OK)
}

// ---------------------------------------------------------------------------
// Offline tools
// ---------------------------------------------------------------------------

fn pgn_check(ctx: &Ctx, a: &PgnCheckArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let mut files = Vec::new();
    let (mut games, mut plies, mut errors) = (0u64, 0u64, 0u64);
    let mut unreadable = false;
    for path in &a.files {
        let label = path.display().to_string();
        let input: Box<dyn Read> = if label == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            match std::fs::File::open(path) {
                Ok(f) => Box::new(std::io::BufReader::with_capacity(1 << 16, f)),
                Err(e) => {
                    unreadable = true;
                    eprintln!("arbiter: cannot open {label}: {e}");
                    files.push(json!({ "file": label, "error": e.to_string() }));
                    continue;
                }
            }
        };
        let mut problems = Vec::new();
        let mut lines = String::new();
        let summary = validate_games(input, |report| {
            if let Some((ply, error)) = &report.error {
                problems.push(json!({ "game": report.index, "ply": ply, "error": error.to_string() }));
                lines.push_str(&format!("{label}: {report}\n"));
            } else if a.verbose {
                lines.push_str(&format!("{label}: {report}\n"));
            }
            if !ctx.json && lines.len() > 1 << 16 {
                let _ = out(&lines);
                lines.clear();
            }
        });
        if !ctx.json {
            out(&lines)?;
        }
        match summary {
            Ok(s) => {
                games += s.games;
                plies += s.plies;
                errors += s.errors;
                if !ctx.json {
                    out(&format!("{label}: games {}, plies {}, invalid {}\n", s.games, s.plies, s.errors))?;
                }
                files.push(json!({
                    "file": label, "games": s.games, "plies": s.plies, "invalid": s.errors, "problems": problems,
                }));
            }
            Err(e) => {
                unreadable = true;
                eprintln!("arbiter: cannot read {label}: {e}");
                files.push(json!({ "file": label, "error": e.to_string(), "problems": problems }));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if ctx.json {
        out_json(&json!({
            "files": files, "games": games, "plies": plies, "invalid": errors, "seconds": seconds,
        }))?;
    } else if a.files.len() > 1 {
        out(&format!("total: games {games}, plies {plies}, invalid {errors} ({seconds:.2}s)\n"))?;
    }
    Ok(if unreadable {
        exit::INVALID
    } else if errors > 0 {
        exit::INVALID_DATA
    } else {
        exit::OK
    })
}

fn fen_show(ctx: &Ctx, a: &FenShowArgs) -> anyhow::Result<u8> {
    let fen = a.fen.join(" ");
    let options = FenOptions {
        chess960: a.chess960,
        strictness: if a.lenient { Strictness::Lenient } else { Strictness::Strict },
    };
    let pos =
        Position::from_fen_with(fen.trim(), options).map_err(|e| Error::invalid("fen", e.to_string()))?;
    let moves: Vec<(String, String)> =
        pos.legal_moves().iter().map(|&m| (pos.san(m), pos.uci(m).as_str().to_string())).collect();
    let (check, mate, stalemate) = (pos.is_check(), pos.is_checkmate(), pos.is_stalemate());
    if ctx.json {
        out_json(&json!({
            "fen": pos.fen(),
            "turn": pos.turn().name(),
            "fullmove_number": pos.fullmove_number(),
            "halfmove_clock": pos.halfmove_clock(),
            "check": check,
            "checkmate": mate,
            "stalemate": stalemate,
            "legal_moves": moves.iter().map(|(san, uci)| json!({ "san": san, "uci": uci })).collect::<Vec<_>>(),
        }))?;
        return Ok(exit::OK);
    }
    let style = if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode };
    let mut text = render::board(&pos.fen(), style, a.flip);
    text.push('\n');
    let side = if pos.turn() == Color::White { "White" } else { "Black" };
    let state = if mate {
        format!("{side} is checkmated")
    } else if stalemate {
        format!("{side} is stalemated")
    } else if check {
        format!("{side} to move, in check")
    } else {
        format!("{side} to move")
    };
    text.push_str(&format!(
        "{state} (move {}, halfmove clock {})\n",
        pos.fullmove_number(),
        pos.halfmove_clock()
    ));
    text.push_str(&format!("FEN: {}\n", pos.fen()));
    if !moves.is_empty() {
        let sans: Vec<&str> = moves.iter().map(|(san, _)| san.as_str()).collect();
        text.push_str(&format!("Legal moves ({}): {}\n", moves.len(), sans.join(" ")));
    }
    out(&text)?;
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn negative_durations_parse() {
        let cli =
            Cli::try_parse_from(["arbiter", "clock", "adjust", "abc", "--color", "white", "--delta", "-30s"])
                .unwrap();
        match cli.command {
            Command::Clock(ClockCommand::Adjust(a)) => {
                assert_eq!(a.delta, -30_000);
                assert_eq!(a.game, "games/abc");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn results_parse() {
        for (text, expected) in [("1-0", "WhiteWins"), ("1/2-1/2", "Draw"), ("0-0", "BothLose")] {
            let cli = Cli::try_parse_from(["arbiter", "result", "games/x", text]).unwrap();
            match cli.command {
                Command::Result(a) => assert_eq!(format!("{:?}", a.result), expected),
                other => panic!("{other:?}"),
            }
        }
    }
}
