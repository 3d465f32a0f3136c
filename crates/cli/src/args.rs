//! The command line: global options, the command tree, and the values
//! that map onto the API's enums.

use std::path::PathBuf;

use arbiter_client::{Color, exit, parse as names, pb};
use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::ArgValueCompleter;

use crate::{complete, parse};

/// The examples and the output rules of `arbiter --help`; the exit codes
/// follow, from [`exit::ALL`].
const MAIN_HELP: &str = "\
Examples:
  arbiter config set-context local --url http://127.0.0.1:50051 \\
      --token-file arbiterd-tokens.txt --use
  arbiter game create --white Carlsen --black Caruana --time-control 90+30 --start
  arbiter move abc e4 --color white
  arbiter game show abc
  arbiter game watch abc
  arbiter clock adjust abc --color black --delta 2m
  arbiter pgn check games.pgn
  arbiter -o json game list --status in-progress | jq -r '.games[].name'
  arbiter -o yaml game show abc

Output (-o):
  table (default) is text for people; wide adds columns to lists. json and yaml
  print the API's response message in the canonical proto3 JSON mapping, as
  grpcurl does (\"whiteRemainingMs\": \"5454324\", \"COLOR_WHITE\"), one document
  per command (a line each for streams such as `game watch`; `---` between
  them in YAML). --json is -o json. Errors go to standard error (an
  {\"error\": ...} document with -o json|yaml).

Server and token:
  --url, --token (or --token-file) and --ca, or ARBITER_URL, ARBITER_TOKEN
  and ARBITER_CA; otherwise the current context of the config file
  (~/.config/arbiter/config.yaml, see `arbiter config`).";

/// The width the exit-code table of `arbiter --help` is wrapped to.
const HELP_WIDTH: usize = 79;

/// The text after the options of `arbiter --help`: [`MAIN_HELP`], then the
/// exit codes, each meaning wrapped under its first word.
pub fn main_help() -> String {
    format!("{MAIN_HELP}\n\n{}", exit_code_text("Exit codes"))
}

/// The exit codes, wrapped under their meanings, after `heading`.
fn exit_code_text(heading: &str) -> String {
    let mut text = format!("{heading}:");
    for &(code, meaning) in exit::ALL {
        let mut line = format!("  {code} ");
        for word in meaning.split(' ') {
            if line.len() + 1 + word.len() > HELP_WIDTH {
                text.push('\n');
                text.push_str(&line);
                line = "    ".to_string();
            }
            line.push(' ');
            line.push_str(word);
        }
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// The command line as parsed and as helped: the help of every command
/// that runs (not of a group such as `game`) ends, after its own examples,
/// with the exit codes, unless it already says what its exit codes mean.
pub fn command() -> clap::Command {
    use clap::CommandFactory as _;
    fn leaves(cmd: clap::Command) -> clap::Command {
        let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_owned()).collect();
        if names.is_empty() {
            let after = cmd.get_after_help().map(ToString::to_string).unwrap_or_default();
            if after.contains("Exit code") || after.contains("Exit 3") {
                return cmd;
            }
            let text = if after.is_empty() {
                exit_code_text("Exit codes")
            } else {
                format!("{after}\n\n{}", exit_code_text("Exit codes"))
            };
            return cmd.after_help(text);
        }
        names.into_iter().fold(cmd, |cmd, name| cmd.mut_subcommand(name, leaves))
    }
    let root = Cli::command();
    let names: Vec<String> = root.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    names.into_iter().fold(root, |cmd, name| cmd.mut_subcommand(name, leaves))
}

/// The operator CLI of the Arbiter service: chess games under the FIDE Laws.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, after_help = main_help(), propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The options every command takes: where the server is, who is asking,
/// how to answer, and the two keys of a mutation. They are listed apart
/// ("Global options") in every command's help, after its own.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// The server address (`https://` for TLS) [default: the context's, or
    /// http://127.0.0.1:50051].
    #[arg(long, env = "ARBITER_URL", global = true, help_heading = GLOBAL)]
    pub url: Option<String>,
    /// The bearer token: a role token (service, arbiter, viewer) or a
    /// player token from `game create` [default: the context's token file].
    #[arg(long, env = "ARBITER_TOKEN", hide_env_values = true, global = true, help_heading = GLOBAL)]
    pub token: Option<String>,
    /// A file holding the token (first line), instead of --token.
    #[arg(long, env = "ARBITER_TOKEN_FILE", value_name = "FILE", global = true, help_heading = GLOBAL)]
    pub token_file: Option<PathBuf>,
    /// PEM file of the CA to trust for `https://` (default: the system's roots).
    #[arg(long, env = "ARBITER_CA", value_name = "FILE", global = true, help_heading = GLOBAL)]
    pub ca: Option<PathBuf>,
    /// The name to check the server's certificate against.
    #[arg(long, value_name = "NAME", global = true, help_heading = GLOBAL)]
    pub tls_domain: Option<String>,
    /// The context of the config file to use instead of its current one
    /// (see `arbiter config`).
    #[arg(long, env = "ARBITER_CONTEXT", value_name = "NAME", global = true, help_heading = GLOBAL)]
    pub context: Option<String>,
    /// Output format: `table` (for people), `wide` (tables with more
    /// columns), `json` or `yaml` (the canonical proto3 JSON mapping).
    #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT", default_value_t = Format::Table,
          global = true, help_heading = GLOBAL)]
    pub output: Format,
    /// Same as `-o json`.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// Idempotency key of a mutation (default: a fresh UUID); a script that
    /// repeats a command with the same key changes the game at most once.
    #[arg(long, value_name = "ID", global = true, help_heading = GLOBAL)]
    pub request_id: Option<String>,
    /// Refuse a mutation (exit 5, ABORTED) unless the game's last seq is SEQ.
    #[arg(long, value_name = "SEQ", global = true, help_heading = GLOBAL)]
    pub expected_seq: Option<i64>,
}

/// The heading of the global options in every command's help.
const GLOBAL: &str = "Global options";

/// How a command prints what it got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text and tables for people.
    #[default]
    Table,
    /// As `table`, with more columns in lists.
    Wide,
    /// JSON: the canonical proto3 mapping (one document; one per line for
    /// streams).
    Json,
    /// YAML: the same documents (`---` between the items of a stream).
    Yaml,
}

impl GlobalArgs {
    /// The output format (`--json` is `-o json`).
    pub fn format(&self) -> Format {
        if self.json { Format::Json } else { self.output }
    }

    /// Whether the output is for machines (JSON or YAML).
    pub fn structured(&self) -> bool {
        matches!(self.format(), Format::Json | Format::Yaml)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check that the service is up and serving (grpc.health.v1); exit 0
    /// when it is, 5 otherwise. No token needed.
    #[command(after_help = "Examples:\n  arbiter health\n  arbiter --url http://10.0.0.5:50051 health")]
    Health,
    /// Games: create, list, show, watch, export, start.
    #[command(subcommand)]
    Game(GameCommand),
    /// Events (tournaments): create, show, list, standings, TRF, point adjustments.
    #[command(subcommand)]
    Event(EventCommand),
    /// Rounds of an event: create from a pairing list, start all clocks, show, PGN.
    #[command(subcommand)]
    Round(RoundCommand),
    /// The players' acts (`move`, `touch`, `press`, ...), listed here as
    /// commands of their own.
    #[command(flatten)]
    Player(PlayerAct),
    /// The arbiter's actions (`clock`, `penalty`, `result`, ...).
    #[command(flatten)]
    Arbiter(ArbiterAction),
    /// Every event and ruling of a game, with times (the audit trail).
    #[command(
        after_help = "Examples:\n  arbiter audit abc\n  arbiter --json audit abc | jq '.events[].rulings[]'"
    )]
    Audit(GameArg),
    /// Electronic boards: connect a board to a game (`board connect`).
    #[command(subcommand)]
    Board(BoardCommand),
    /// PGN files, offline: check every move and result.
    #[command(subcommand)]
    Pgn(PgnCommand),
    /// FEN positions, offline: diagram and legal moves.
    #[command(subcommand)]
    Fen(FenCommand),
    /// The config file: contexts (a server, its token file, its CA), as
    /// kubectl's kubeconfig.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print static shell completions (commands and flags). For completion
    /// of game and event names from the server, register
    /// `COMPLETE=<shell> arbiter` instead (see the examples).
    #[command(after_help = "Examples:\n  \
                            source <(COMPLETE=bash arbiter)          (bash: also completes game ids from the server)\n  \
                            COMPLETE=zsh arbiter > \"${fpath[1]}/_arbiter\"\n  \
                            COMPLETE=fish arbiter | source\n  \
                            arbiter completions bash > /etc/bash_completion.d/arbiter   (static)\n\n\
                            Dynamic completion asks the server of the current context (or ARBITER_URL\n\
                            and ARBITER_TOKEN) for the games and events, waiting at most 2 seconds.")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `arbiter config`: the contexts of the config file.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// List the contexts; `*` marks the current one.
    #[command(after_help = "Example:\n  arbiter config get-contexts")]
    GetContexts,
    /// Print the name of the current context.
    #[command(after_help = "Example:\n  arbiter config current-context")]
    CurrentContext,
    /// Make a context the current one: later commands use its server,
    /// token file and CA unless --url or --context says otherwise.
    #[command(after_help = "Example:\n  arbiter config use-context hall")]
    UseContext(ContextName),
    /// Create or change a context from the global options given with it
    /// (--url, --token-file, --ca, --tls-domain); a context keeps the path
    /// of a token file, not the token.
    #[command(after_help = "Examples:\n  \
                            arbiter config set-context hall --url https://arbiter.hall.example:50051 \\\n      \
                            --token-file ~/.config/arbiter/hall.token --ca ~/.config/arbiter/hall-ca.pem\n  \
                            arbiter config set-context local --url http://127.0.0.1:50051 \\\n      \
                            --token-file ~/src/arbiter/arbiterd-tokens.txt --use")]
    SetContext(SetContextArgs),
    /// Remove a context.
    #[command(after_help = "Example:\n  arbiter config delete-context old-hall")]
    DeleteContext(ContextName),
    /// Print the config file and its path.
    #[command(after_help = "Examples:\n  arbiter config view\n  arbiter config view -o json")]
    View,
}

#[derive(Debug, Args)]
pub struct ContextName {
    /// The context's name.
    pub name: String,
}

#[derive(Debug, Args)]
pub struct SetContextArgs {
    /// The context's name.
    pub name: String,
    /// Also make it the current context.
    #[arg(long = "use")]
    pub use_it: bool,
}

/// What a player does at the board or online.
#[derive(Debug, Subcommand)]
pub enum PlayerAct {
    /// Make a move, legal or not, as played or written on the scoresheet (SAN, long
    /// algebraic or UCI). Over the board it is completed by `press`.
    #[command(after_help = "Examples:\n  arbiter move abc e4 --color white\n  arbiter move abc Nf3\n  \
                            arbiter move abc e7e8q --color white\n  arbiter move abc e5 --premove   (online)\n  \
                            arbiter move abc Nf6-g6 --color black   (an illegal move, ruled under Law 7.5)\n  \
                            arbiter move abc cxb8 --color white     (a pawn left unpromoted, Law 7.5.2)\n\n\
                            Notations: SAN (`Nf3`, `O-O`, `exd6 e.p.`, `e8=Q`), long algebraic\n\
                            (`Ng1-f3`, `e7-e8`, `Nf6xg4`) or UCI (`e2e4`, `e7e8q`, `e1g1`). A move that is\n\
                            not legal is read into the movement made (SAN without origin: the player's\n\
                            piece of that kind that can make it) and ruled by the Laws; when several\n\
                            pieces could have made it, the error names them: write the origin square.\n\n\
                            Exit codes: 0 the move was accepted; 3 the Laws refused it or ruled it\n\
                            illegal (touch-move, an illegal move, an unfinished promotion, not your\n\
                            turn); 2 the text is not a move or could be several moves.")]
    Move(MoveArgs),
    /// Report that a player touched a piece (Law 4.2, 4.3).
    #[command(after_help = "Examples:\n  arbiter touch abc g1 --color white\n  \
                            arbiter touch abc e2 --adjust\n  arbiter touch abc d1 --accidental\n  \
                            arbiter touch abc g1 --with d5 --color white   (both at once, Law 4.3.3)")]
    Touch(TouchArgs),
    /// Report that a player said "I adjust" (Law 4.2.1).
    #[command(after_help = "Example:\n  arbiter adjust abc --color white")]
    Adjust(PlayerArgs),
    /// Press the clock, completing the move (Law 6.2.1).
    #[command(after_help = "Example:\n  arbiter press abc --color white\n\n\
                            Exit 3 when the press completed an illegal move (Law 7.5).")]
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
    /// Claim that the opponent's last move was illegal (games entered after the fact, Law A.5.2).
    #[command(after_help = "Example:\n  arbiter claim-illegal abc --color black\n\n\
                            Only in a game created with --entered-after-the-fact, before the claimant\n\
                            makes his next move.")]
    ClaimIllegal(PlayerArgs),
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
}

/// What the arbiter does.
#[derive(Debug, Subcommand)]
pub enum ArbiterAction {
    /// Arbiter: the clocks (pause, resume, adjust, set, set-moves, install).
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
    /// Arbiter: a set-up error found during the game (Law 7.2, 7.3, A.5.1.2).
    #[command(after_help = "Examples:\n  arbiter setup-error abc wrong-position\n  \
                            arbiter setup-error abc board-orientation\n  \
                            arbiter setup-error abc colours-reversed\n  \
                            arbiter setup-error abc king-misplaced --color black\n  \
                            arbiter setup-error abc rook-misplaced --square h1")]
    SetupError(SetupErrorArgs),
    /// Arbiter: answer an open question (see `game show`).
    #[command(after_help = "Examples:\n  arbiter answer abc 1 accept\n  arbiter answer abc 2 default")]
    Answer(AnswerArgs),
}

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Create a game; prints its name and both player tokens.
    #[command(
        after_help = "Examples:\n  arbiter game create --white Carlsen --black Caruana --time-control 90+30\n  \
                            arbiter game create --white A --black B --time-control 3+2 --mode online --start\n  \
                            arbiter game create --white A --black B --tc \"5|3\"   (5 minutes + 3 seconds)\n  \
                            arbiter game create --white A --black B --tc 1h30+30s\n  \
                            arbiter game create --white A --black B --tc pgn:40/5400+30:1800+30\n  \
                            arbiter game create --white A --black B --time-control \"40/90m+30s, 30m+30s\" \\\n      \
                            --event \"Club Open\" --round 3 --id r3-b1\n  \
                            arbiter game create --white A --black B --time-control 15+10 --chess960 \\\n      \
                            --fen \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"\n  \
                            arbiter -o json game create --white A --black B --time-control 90+30 | jq -r .whiteToken"
    )]
    Create(Box<CreateArgs>),
    /// List games, filtered by event, round and status.
    #[command(
        after_help = "Examples:\n  arbiter game list\n  arbiter game list --event \"Club Open\" --round 3\n  \
                            arbiter game list --status in-progress -o wide\n  \
                            arbiter game list --watch\n  \
                            arbiter game list -o yaml\n  \
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
    /// Cancel a game that has not started (a cancelled pairing): it gets
    /// status CANCELLED and no result. Needs the service token that created
    /// it or an arbiter token; a started game is refused (exit 3).
    #[command(after_help = "Example:\n  arbiter game cancel abc")]
    Cancel(GameArg),
    /// Revoke the player tokens of a game (a token leaked, a player
    /// replaced) and print the new ones: the old tokens stop working at
    /// once, and within 5 seconds on every replica. Needs the service token
    /// that created the game or an arbiter token.
    #[command(after_help = "Examples:\n  arbiter game revoke-tokens abc\n  \
                            arbiter game revoke-tokens abc --color black")]
    RevokeTokens(RevokeTokensArgs),
}

#[derive(Debug, Args)]
pub struct RevokeTokensArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// Revoke only this player's token (default: both).
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
}

#[derive(Debug, Subcommand)]
pub enum ClockCommand {
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
    /// Set a side's move counter on the clock (Law 6.10.2, 7.1).
    #[command(after_help = "Example:\n  arbiter clock set-moves abc --color white --moves 39\n\n\
                            The clock then counts the moves the side completes from there (DEC-22).")]
    SetMoves(ClockSetMovesArgs),
    /// Install the correct time control on the clock (Law 6.10.2).
    #[command(after_help = "Example:\n  arbiter clock install abc --pgn 40/5400+30:1800+30\n\n\
                            The PGN form counts seconds. Times and move counters stay as they are.")]
    Install(ClockInstallArgs),
}

#[derive(Debug, Subcommand)]
pub enum BoardCommand {
    /// Bridge an electronic board to a game: read the board (DGT LiveChess,
    /// or a DGT board on a serial port), send every placement and clock
    /// reading to the service, and print each act, ruling and correction.
    #[command(after_help = BOARD_CONNECT_HELP)]
    Connect(BoardConnectArgs),
}

const BOARD_CONNECT_HELP: &str = "\
Examples:
  arbiter board connect --game games/abc --livechess ws://127.0.0.1:1982
  arbiter board connect --game abc --livechess ws://127.0.0.1:1982 --serial 24958 --settle-ms 500
  arbiter board connect --game abc --dgt-serial /dev/ttyUSB0 --device-id 24958
  arbiter --json board connect --game abc --livechess ws://127.0.0.1:1982   (one JSON object per line)

The service infers the moves, touches and illegal moves from the placements
(FIDE OCR 3.2.3: a move counts once the piece has rested the settle time) and
answers with the acts, their rulings and, when the board does not match the
game, the corrections to make square by square; the bridge prints them.

LiveChess (--livechess): the bridge lists the boards LiveChess sees (`eboards`),
subscribes to one board's `eboardevent` feed (--serial, or the only board),
and sends every `board` placement and `clock` reading. When the stream opens
and after corrections it pushes the game's position to LiveChess with `setup`,
so that LiveChess follows the game as ruled.

DGT serial (--dgt-serial): a classic DGT board on a serial, USB or Bluetooth
serial port (9600 baud, set with stty): board dumps, field updates and the
DGT clock's times, with White on the clock's right.

The token (--token or ARBITER_TOKEN) is an arbiter or service token. A lost
connection to the service is opened again, resuming after the last reading the
service kept: readings made meanwhile are kept and sent, none twice. The
bridge stops when the game is over (exit 0) or on Ctrl-C (exit 0).";

/// A LiveChess address: `ws://host:port` (LiveChess serves plain WebSocket
/// on the local machine).
pub fn livechess_arg(text: &str) -> Result<String, String> {
    match text.trim().strip_prefix("ws://") {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(text.trim().to_owned()),
        _ => Err(format!("{text:?}: LiveChess's address is ws://host:port, e.g. ws://127.0.0.1:1982")),
    }
}

/// How a board's squares are sensed.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SensingArg {
    /// Each square reports its piece (DGT, LiveChess, Millennium, Chessnut).
    PieceIds,
    /// Each square reports only whether it is occupied (DGT Centaur, reed boards).
    Occupancy,
}

#[derive(Debug, Args)]
pub struct BoardConnectArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(long, value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// DGT LiveChess's address (`ws://127.0.0.1:1982`; the path `/api/v1.0` is added).
    #[arg(
        long,
        value_name = "URL",
        value_parser = livechess_arg,
        required_unless_present = "dgt_serial",
        conflicts_with = "dgt_serial"
    )]
    pub livechess: Option<String>,
    /// LiveChess: the board's serial number, as LiveChess lists it (default: the only board).
    #[arg(long, value_name = "SERIAL", requires = "livechess", conflicts_with = "dgt_serial")]
    pub serial: Option<String>,
    /// A DGT board on this serial port (`/dev/ttyUSB0`, `/dev/rfcomm0`).
    #[arg(long, value_name = "PORT", requires = "device_id")]
    pub dgt_serial: Option<PathBuf>,
    /// The device id the service knows the board by (default with LiveChess:
    /// its serial number; needed with --dgt-serial).
    #[arg(long, value_name = "ID")]
    pub device_id: Option<u64>,
    /// Settle time in milliseconds: a placement counts as a move once it has
    /// rested this long (OCR 3.2.3; default: the service's, 300).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub settle_ms: Option<u32>,
    /// What the board's sensors tell apart.
    #[arg(long, value_enum, default_value = "piece-ids")]
    pub sensing: SensingArg,
    /// A label for people (default: `LiveChess board 24958`, `DGT board ... on PORT`).
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum PgnCommand {
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
pub enum FenCommand {
    /// Show a position: diagram, side to move, check, and the legal moves in SAN.
    #[command(
        after_help = "Examples:\n  arbiter fen show \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"\n  \
                            arbiter fen show 8/8/8/8/8/5k2/8/5K1q w - - 0 1 --ascii"
    )]
    Show(FenShowArgs),
}

/// A `--time-control` value, already read as the service reads it, and
/// which form it is in (so the request names the form: an older server
/// refuses it rather than misreading it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeControlArg {
    /// The human form: `5+3`, `5|3`, `90s+0`, `1h30+30s`...
    Human(String),
    /// The PGN form, given as `pgn:300+3` (the prefix removed).
    Pgn(String),
}

impl TimeControlArg {
    /// The request field.
    pub fn to_proto(&self) -> pb::regulations::TimeControlForm {
        use pb::regulations::TimeControlForm as Form;
        match self {
            TimeControlArg::Human(t) => Form::TimeControlHuman(t.clone()),
            TimeControlArg::Pgn(t) => Form::TimeControlPgn(t.clone()),
        }
    }
}

/// A time control: the human form, or the PGN form marked `pgn:` (DEC-26).
pub fn time_control_arg(text: &str) -> Result<TimeControlArg, String> {
    use arbiter_laws::time_control::{ACCEPTED_FORMS, TimeControl, strip_pgn_prefix};
    TimeControl::parse_text(text).map_err(|e| format!("{e}; {ACCEPTED_FORMS}"))?;
    let text = text.trim();
    Ok(match strip_pgn_prefix(text) {
        Some(pgn) => TimeControlArg::Pgn(pgn.to_owned()),
        None => TimeControlArg::Human(text.to_owned()),
    })
}

/// A game, `abc` or `games/abc`.
pub fn game_arg(text: &str) -> Result<String, String> {
    names::game_name(text).map_err(|e| e.message())
}

pub fn duration_arg(text: &str) -> Result<i64, String> {
    parse::duration_ms(text).map_err(|e| e.message())
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ColorArg {
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
pub struct GameArg {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
}

#[derive(Debug, Args)]
pub struct PlayerArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The player acting (not needed with a player token).
    #[arg(long, short)]
    pub color: Option<ColorArg>,
}

#[derive(Debug, Args)]
pub struct ColorArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The player concerned.
    #[arg(long, short)]
    pub color: ColorArg,
}

#[derive(Debug, Args)]
pub struct MoveArgs {
    #[command(flatten)]
    pub player: PlayerArgs,
    /// The move as played or written, legal or not: SAN (`e4`, `Nf3`, `O-O`, `exd6 e.p.`),
    /// long algebraic (`Ng1-f3`, `e7-e8`) or UCI (`e2e4`, `e7e8q`).
    #[arg(value_name = "MOVE")]
    pub mv: String,
    /// Online: queue the move as a premove (OCR 3.1.5).
    #[arg(long)]
    pub premove: bool,
    /// Chess960: the move is a castling (implied by `O-O`).
    #[arg(long)]
    pub castle: bool,
}

#[derive(Debug, Args)]
pub struct TouchArgs {
    #[command(flatten)]
    pub player: PlayerArgs,
    /// The square of the touched piece, e.g. `g1`.
    #[arg(value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    pub square: String,
    /// The piece was touched to adjust it, after "I adjust" (Law 4.2.1).
    #[arg(long, conflicts_with = "accidental")]
    pub adjust: bool,
    /// The touch was clearly accidental: it binds nothing.
    #[arg(long)]
    pub accidental: bool,
    /// Another piece touched at the same time, one the player's and one the
    /// opponent's (Law 4.3.3: the player's own piece counts as touched first).
    #[arg(long, value_name = "SQUARE", conflicts_with_all = ["adjust", "accidental"],
          value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    pub with: Option<String>,
}

#[derive(Debug, Args)]
pub struct PressArgs {
    #[command(flatten)]
    pub player: PlayerArgs,
    /// The hand that pressed did not make the move (Law 6.2.3).
    #[arg(long)]
    pub other_hand: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ClaimArg {
    /// Law 9.2: threefold repetition.
    #[value(alias = "repetition")]
    Threefold,
    /// Law 9.3: fifty moves.
    #[value(alias = "50", alias = "fifty-moves")]
    Fifty,
}

impl From<ClaimArg> for pb::ClaimKind {
    fn from(kind: ClaimArg) -> pb::ClaimKind {
        match kind {
            ClaimArg::Threefold => pb::ClaimKind::ThreefoldRepetition,
            ClaimArg::Fifty => pb::ClaimKind::FiftyMoves,
        }
    }
}

#[derive(Debug, Args)]
pub struct ClaimArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The rule the claim rests on.
    pub kind: ClaimArg,
    /// The intended move, written first (9.2.1, 9.3.1), legal or not: SAN, long algebraic or UCI.
    #[arg(long, value_name = "MOVE")]
    pub intended: Option<String>,
    /// The player claiming (not needed with a player token).
    #[arg(long, short)]
    pub color: Option<ColorArg>,
}

#[derive(Debug, Args)]
pub struct PromoteArgs {
    #[command(flatten)]
    pub player: PlayerArgs,
    /// The piece: queen, rook, bishop, knight (or q, r, b, n).
    #[arg(value_parser = |s: &str| parse::piece_role(s).map_err(|e| e.message()))]
    pub piece: pb::PieceRole,
}

#[derive(Debug, Args)]
pub struct SquareArgs {
    #[command(flatten)]
    pub player: PlayerArgs,
    /// The king's castling square, e.g. `g1`.
    #[arg(value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    pub square: String,
}

#[derive(Debug, Args)]
pub struct ClockAdjustArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The clock to change.
    #[arg(long, short)]
    pub color: ColorArg,
    /// The change: 90s, 2m, -30s, 1h, 1m30s, or plain milliseconds.
    #[arg(long, value_parser = duration_arg, allow_hyphen_values = true)]
    pub delta: i64,
}

#[derive(Debug, Args)]
pub struct ClockSetArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The clock to set.
    #[arg(long, short)]
    pub color: ColorArg,
    /// The new remaining time: 5m, 90s, 1:30:00, or plain milliseconds.
    #[arg(long, value_parser = duration_arg)]
    pub remaining: i64,
}

#[derive(Debug, Args)]
pub struct ClockSetMovesArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The clock whose move counter is set.
    #[arg(long, short)]
    pub color: ColorArg,
    /// The moves the clock counts as completed by that side.
    #[arg(long)]
    pub moves: u32,
}

#[derive(Debug, Args)]
pub struct ClockInstallArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The time control in the PGN `TimeControl` form, in seconds
    /// (`40/5400+30:1800+30`, `5400+30`, `300d3`).
    #[arg(long)]
    pub pgn: String,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PenaltyArg {
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

impl From<PenaltyArg> for pb::PenaltyKind {
    fn from(kind: PenaltyArg) -> pb::PenaltyKind {
        match kind {
            PenaltyArg::Warning => pb::PenaltyKind::Warning,
            PenaltyArg::AddTime => pb::PenaltyKind::AddTimeToOpponent,
            PenaltyArg::DeductTime => pb::PenaltyKind::DeductTime,
            PenaltyArg::RaiseScore => pb::PenaltyKind::RaiseOpponentScore,
            PenaltyArg::ReduceScore => pb::PenaltyKind::ReduceScore,
            PenaltyArg::DeclareLost => pb::PenaltyKind::DeclareLost,
        }
    }
}

#[derive(Debug, Args)]
pub struct PenaltyArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The offender.
    #[arg(long, short)]
    pub color: ColorArg,
    /// The penalty.
    pub kind: PenaltyArg,
    /// For the time penalties: how much (2m, 90s, plain milliseconds).
    #[arg(long, value_parser = duration_arg)]
    pub amount: Option<i64>,
}

#[derive(Debug, Args)]
pub struct ReinstateArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The ply before which the position is reinstated (0: the start).
    #[arg(long)]
    pub ply: u32,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ResultArg {
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

impl From<ResultArg> for pb::DeclaredResult {
    fn from(result: ResultArg) -> pb::DeclaredResult {
        match result {
            ResultArg::WhiteWins => pb::DeclaredResult::WhiteWins,
            ResultArg::BlackWins => pb::DeclaredResult::BlackWins,
            ResultArg::Draw => pb::DeclaredResult::Draw,
            ResultArg::BothLose => pb::DeclaredResult::BothLose,
        }
    }
}

#[derive(Debug, Args)]
pub struct ResultArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The result.
    pub result: ResultArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AnswerArg {
    /// Apply the default the question was opened with.
    Default,
    /// Accept the player's request or claim.
    Accept,
    /// Reject it.
    Reject,
    /// Postpone the decision (Guidelines III.5.2).
    Postpone,
}

impl From<AnswerArg> for pb::Answer {
    fn from(answer: AnswerArg) -> pb::Answer {
        match answer {
            AnswerArg::Default => pb::Answer::Default,
            AnswerArg::Accept => pb::Answer::Accept,
            AnswerArg::Reject => pb::Answer::Reject,
            AnswerArg::Postpone => pb::Answer::Postpone,
        }
    }
}

#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The question's number (see `game show`).
    pub question_id: u32,
    /// The answer.
    pub answer: AnswerArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// Over the board: physical acts reported, touch-move applies.
    #[value(alias = "over-the-board")]
    Otb,
    /// FIDE Online Chess Regulations.
    Online,
    /// Online rules at a physical venue.
    Hybrid,
}

impl From<ModeArg> for pb::Mode {
    fn from(mode: ModeArg) -> pb::Mode {
        match mode {
            ModeArg::Otb => pb::Mode::OverTheBoard,
            ModeArg::Online => pb::Mode::Online,
            ModeArg::Hybrid => pb::Mode::Hybrid,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CategoryArg {
    Standard,
    Rapid,
    Blitz,
}

impl From<CategoryArg> for pb::Category {
    fn from(category: CategoryArg) -> pb::Category {
        match category {
            CategoryArg::Standard => pb::Category::Standard,
            CategoryArg::Rapid => pb::Category::Rapid,
            CategoryArg::Blitz => pb::Category::Blitz,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RegimeArg {
    /// A.4 / B.2: the full Competitive Rules.
    Full,
    /// A.5 / B.3: the reduced rules.
    Reduced,
}

impl From<RegimeArg> for pb::Regime {
    fn from(regime: RegimeArg) -> pb::Regime {
        match regime {
            RegimeArg::Full => pb::Regime::Full,
            RegimeArg::Reduced => pb::Regime::Reduced,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StatusArg {
    Pending,
    #[value(alias = "playing", alias = "in_progress")]
    InProgress,
    Finished,
    /// Withdrawn before it started (`arbiter game cancel`).
    Cancelled,
    /// Not started in time (`arbiterd --pending-game-ttl`).
    Expired,
}

impl From<StatusArg> for pb::GameStatus {
    fn from(status: StatusArg) -> pb::GameStatus {
        match status {
            StatusArg::Pending => pb::GameStatus::Pending,
            StatusArg::InProgress => pb::GameStatus::InProgress,
            StatusArg::Finished => pb::GameStatus::Finished,
            StatusArg::Cancelled => pb::GameStatus::Cancelled,
            StatusArg::Expired => pb::GameStatus::Expired,
        }
    }
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// White's name, as on the pairing.
    #[arg(long)]
    pub white: String,
    /// Black's name.
    #[arg(long)]
    pub black: String,
    /// White's FIDE id.
    #[arg(long, value_name = "ID")]
    pub white_fide_id: Option<String>,
    /// Black's FIDE id.
    #[arg(long, value_name = "ID")]
    pub black_fide_id: Option<String>,
    /// The event (tournament) name.
    #[arg(long)]
    pub event: Option<String>,
    /// The round, e.g. `3` or `3.1`.
    #[arg(long)]
    pub round: Option<String>,
    /// The game id (`[a-z0-9-]{1,63}`, starting with a letter); the service picks one otherwise.
    #[arg(long)]
    pub id: Option<String>,
    /// Start the clocks at once (otherwise `arbiter game start`).
    #[arg(long)]
    pub start: bool,
    /// The regulations.
    #[command(flatten)]
    pub regulations: RegulationArgs,
}

/// The regulations of a game, or of every game of an event.
#[derive(Debug, Args)]
pub struct RegulationArgs {
    /// The time control, base in minutes and increment in seconds whatever the numbers: `5+3` or
    /// `5|3`, `90+30`; other units when written: `90s+0`, `1h30+30s`; periods `40/90+30, 30+30`;
    /// delays `5 d3` (simple), `5 b3` (Bronstein); `White 5+2@61; Black 4+2@61`; the PGN form in
    /// seconds only with `pgn:` (`pgn:40/5400+30:1800+30`).
    #[arg(long, visible_alias = "tc", value_name = "TC", value_parser = time_control_arg)]
    pub time_control: TimeControlArg,
    /// How moves reach the service.
    #[arg(long, value_enum, default_value = "otb")]
    pub mode: ModeArg,
    /// Chess960 (Guidelines II); give the position with --fen.
    #[arg(long)]
    pub chess960: bool,
    /// The starting position as FEN (default: the standard position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Override the category computed from the time control.
    #[arg(long, value_enum)]
    pub category: Option<CategoryArg>,
    /// The supervision regime (rapid and blitz).
    #[arg(long, value_enum)]
    pub regime: Option<RegimeArg>,
    /// Penalty for an illegal move or an incorrect claim (default 2m standard, 1m rapid/blitz).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    pub penalty: Option<i64>,
    /// Default time after the start (Law 6.7).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    pub default_time: Option<i64>,
    /// No draw offers before this move number (Law 9.1.1).
    #[arg(long, value_name = "MOVE")]
    pub no_draw_offers_before: Option<u32>,
    /// Draw offers only with the arbiter's consent (Law 9.1.1).
    #[arg(long)]
    pub draw_offers_need_arbiter: bool,
    /// Guidelines III apply (only without increment, never in blitz).
    #[arg(long)]
    pub guidelines_iii: bool,
    /// Deduct this much time instead of loss when a device is found (Law 11.3.2).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    pub device_penalty: Option<i64>,
    /// Armageddon: a drawn game counts as a win for Black.
    #[arg(long)]
    pub armageddon: bool,
    /// Automatic draws at threefold repetition and fifty moves (default: on online, off OTB).
    #[arg(long, value_name = "BOOL")]
    pub automatic_draws: Option<bool>,
    /// CN-7 draw-offer alternation.
    #[arg(long)]
    pub cn_draw_alternation: bool,
    /// Online: lag compensation per move, at most this much.
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    pub max_lag: Option<i64>,
    /// Online: a player disconnected this long loses (OCR 11).
    #[arg(long, value_parser = duration_arg, value_name = "DURATION")]
    pub reconnect_window: Option<i64>,
    /// Over the board: the moves are entered after the fact (from scoresheets); an
    /// illegal move stands unless the opponent claims it (`claim-illegal`, Law A.5.2).
    #[arg(long)]
    pub entered_after_the_fact: bool,
    /// What a touch sensed by an e-board means (default: recorded for the arbiter).
    #[arg(long, value_enum, value_name = "MEANING")]
    pub sensed_touches: Option<SensedTouchesArg>,
    /// Whose clock counts when an e-board reports its clock (OCR 2.4; default: the service's).
    #[arg(long, value_enum, value_name = "CLOCK")]
    pub clock_authority: Option<ClockAuthorityArg>,
}

impl RegulationArgs {
    /// The regulations as the API takes them.
    #[must_use]
    pub fn to_proto(&self) -> pb::Regulations {
        let a = self;
        pb::Regulations {
            mode: pb::Mode::from(a.mode) as i32,
            time_control: String::new(),
            category: a.category.map_or(pb::Category::Unspecified, pb::Category::from) as i32,
            regime: a.regime.map_or(pb::Regime::Unspecified, pb::Regime::from) as i32,
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
            entered_after_the_fact: a.entered_after_the_fact,
            time_control_form: Some(a.time_control.to_proto()),
            sensed_touches: a.sensed_touches.map_or(pb::SensedTouches::Unspecified, pb::SensedTouches::from)
                as i32,
            clock_authority: a
                .clock_authority
                .map_or(pb::ClockAuthority::Unspecified, pb::ClockAuthority::from)
                as i32,
        }
    }
}

/// What a touch sensed by an e-board means.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SensedTouchesArg {
    /// Recorded for the arbiter with the moves it would bind to.
    Record,
    /// Over the board: ruled as a touch at once (Article 4 obligation).
    Bind,
}

impl From<SensedTouchesArg> for pb::SensedTouches {
    fn from(a: SensedTouchesArg) -> pb::SensedTouches {
        match a {
            SensedTouchesArg::Record => pb::SensedTouches::Record,
            SensedTouchesArg::Bind => pb::SensedTouches::Bind,
        }
    }
}

/// Whose clock counts (OCR 2.4).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ClockAuthorityArg {
    /// The service's clocks; a board clock that drifts is reported.
    Service,
    /// The board's clock sets the service's when it drifts.
    Board,
}

impl From<ClockAuthorityArg> for pb::ClockAuthority {
    fn from(a: ClockAuthorityArg) -> pb::ClockAuthority {
        match a {
            ClockAuthorityArg::Service => pb::ClockAuthority::Service,
            ClockAuthorityArg::Board => pb::ClockAuthority::Board,
        }
    }
}

/// A set-up error (Law 7.2, 7.3, A.5.1.2).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SetupErrorArg {
    /// Law 7.2.1: the initial position was wrong.
    WrongPosition,
    /// Law 7.2.2: the board was wrongly oriented.
    BoardOrientation,
    /// Law 7.3 (and A.5.1 in rapid and blitz): colours reversed.
    #[value(alias = "colors-reversed")]
    ColoursReversed,
    /// Law A.5.1.2: a king misplaced in the initial position (with --color).
    KingMisplaced,
    /// Law A.5.1.2: a rook misplaced (with --square, its start square).
    RookMisplaced,
}

impl From<SetupErrorArg> for pb::SetupErrorKind {
    fn from(kind: SetupErrorArg) -> pb::SetupErrorKind {
        match kind {
            SetupErrorArg::WrongPosition => pb::SetupErrorKind::WrongInitialPosition,
            SetupErrorArg::BoardOrientation => pb::SetupErrorKind::BoardWronglyOriented,
            SetupErrorArg::ColoursReversed => pb::SetupErrorKind::ColoursReversed,
            SetupErrorArg::KingMisplaced => pb::SetupErrorKind::KingMisplaced,
            SetupErrorArg::RookMisplaced => pb::SetupErrorKind::RookMisplaced,
        }
    }
}

#[derive(Debug, Args)]
pub struct SetupErrorArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// The error found.
    pub kind: SetupErrorArg,
    /// king-misplaced: whose king.
    #[arg(long, short)]
    pub color: Option<ColorArg>,
    /// rook-misplaced: the rook's start square (e.g. `h1`).
    #[arg(long, value_parser = |s: &str| parse::square(s).map(|q| q.to_string()).map_err(|e| e.message()))]
    pub square: Option<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only games of this event.
    #[arg(long)]
    pub event: Option<String>,
    /// Only games of this round.
    #[arg(long)]
    pub round: Option<String>,
    /// Only games with this status.
    #[arg(long, value_enum)]
    pub status: Option<StatusArg>,
    /// Fetch one page of this size (prints the next page token); by default every page is fetched.
    #[arg(long, value_name = "N")]
    pub page_size: Option<i32>,
    /// The next page token of a previous `--page-size` listing.
    #[arg(long, value_name = "TOKEN", requires = "page_size")]
    pub page_token: Option<String>,
    /// After the list, print each game again as it changes (a move, a
    /// result, a game started), until interrupted, as `kubectl get -w`
    /// does: a row per change, or the stream's `WatchGamesResponse` per
    /// change with `-o json|yaml`.
    #[arg(short = 'w', long, conflicts_with = "page_size")]
    pub watch: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    pub ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    pub flip: bool,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The game: `abc` or `games/abc`.
    #[arg(value_parser = game_arg, add = ArgValueCompleter::new(complete::games))]
    pub game: String,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    pub ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    pub flip: bool,
    /// Start after this event (0: replay every event from the first).
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    pub after_seq: i64,
}

#[derive(Debug, Args)]
pub struct PgnCheckArgs {
    /// PGN files (`-` for standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also print a line for every valid game.
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct FenShowArgs {
    /// The FEN (quoted, or as separate words).
    #[arg(required = true, num_args = 1.., value_name = "FEN")]
    pub fen: Vec<String>,
    /// Read castling as Chess960 (Shredder-FEN or X-FEN).
    #[arg(long)]
    pub chess960: bool,
    /// Accept positions that cannot arise in a game (lenient FEN).
    #[arg(long)]
    pub lenient: bool,
    /// Draw the board with letters instead of chess symbols.
    #[arg(long)]
    pub ascii: bool,
    /// Draw the board from Black's side.
    #[arg(long)]
    pub flip: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_exit_codes_in_the_help_are_the_table() {
        let help = main_help();
        let table = &help[help.find("Exit codes:\n").expect("the exit codes")..];
        for line in table.lines().skip(1) {
            assert!(line.len() <= HELP_WIDTH, "{line:?}");
        }
        // Every word of every meaning is there, in order.
        let words: Vec<&str> = table.split_whitespace().skip(2).collect();
        let expected: Vec<String> = exit::ALL
            .iter()
            .flat_map(|&(code, meaning)| {
                std::iter::once(code.to_string()).chain(meaning.split(' ').map(String::from))
            })
            .collect();
        assert_eq!(words, expected);
        assert!(table.contains("\n  2  invalid argument or not found (INVALID_ARGUMENT,"), "{table}");
        assert!(table.contains("\n     a file that cannot be read, a bad FEN)\n"), "{table}");
    }

    #[test]
    fn every_command_has_examples_and_exit_codes() {
        fn leaves(cmd: &clap::Command, path: String, out: &mut Vec<(String, String)>) {
            let subs: Vec<&clap::Command> = cmd.get_subcommands().collect();
            if subs.is_empty() {
                out.push((path.clone(), cmd.get_after_help().map(ToString::to_string).unwrap_or_default()));
            }
            for sub in subs {
                leaves(sub, format!("{path} {}", sub.get_name()), out);
            }
        }
        let mut all = Vec::new();
        leaves(&command(), "arbiter".into(), &mut all);
        assert!(all.len() > 40, "{}", all.len());
        for (path, after) in &all {
            assert!(after.contains("Example"), "`{path} --help` has no example");
            assert!(
                after.contains("Exit code") || after.contains("Exit 3"),
                "`{path} --help` has no exit codes"
            );
        }
    }

    fn create_tc(tc: &str) -> Result<TimeControlArg, clap::Error> {
        let cli =
            Cli::try_parse_from(["arbiter", "game", "create", "--white", "A", "--black", "B", "--tc", tc])?;
        match cli.command {
            Command::Game(GameCommand::Create(a)) => Ok(a.regulations.time_control),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn time_controls_are_read_as_the_service_reads_them() {
        use pb::regulations::TimeControlForm as Form;
        for text in [
            "5+3",
            "5|3",
            "180+2",
            "90s+0",
            "1h30+30s",
            "40/90+30, 30+30",
            "5 d3",
            "White 5+2@61; Black 4+2@61",
        ] {
            let arg = create_tc(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(arg, TimeControlArg::Human(text.to_owned()));
            assert_eq!(arg.to_proto(), Form::TimeControlHuman(text.to_owned()));
        }
        for (text, pgn) in [("pgn:300+3", "300+3"), ("PGN: 40/5400+30:1800+30", "40/5400+30:1800+30")] {
            let arg = create_tc(text).unwrap();
            assert_eq!(arg, TimeControlArg::Pgn(pgn.to_owned()));
            assert_eq!(arg.to_proto(), Form::TimeControlPgn(pgn.to_owned()));
        }
        // Refused before any request, with the accepted forms.
        for (text, problem) in [
            ("40/5400+30:1800+30", "pgn:40/5400+30:1800+30"),
            ("5m | 4m", "counted in seconds"),
            ("blitz", "expected a number"),
            ("pgn:5m", "unexpected 'm'"),
        ] {
            let e = create_tc(text).unwrap_err().to_string();
            assert!(e.contains(problem), "{text}: {e}");
            assert!(e.contains("accepted forms"), "{e}");
        }
    }

    #[test]
    fn negative_durations_parse() {
        let cli =
            Cli::try_parse_from(["arbiter", "clock", "adjust", "abc", "--color", "white", "--delta", "-30s"])
                .unwrap();
        match cli.command {
            Command::Arbiter(ArbiterAction::Clock(ClockCommand::Adjust(a))) => {
                assert_eq!(a.delta, -30_000);
                assert_eq!(a.game, "games/abc");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clock_corrections_parse() {
        let cli = Cli::try_parse_from([
            "arbiter",
            "clock",
            "set-moves",
            "abc",
            "--color",
            "black",
            "--moves",
            "39",
        ])
        .unwrap();
        match cli.command {
            Command::Arbiter(ArbiterAction::Clock(ClockCommand::SetMoves(a))) => {
                assert_eq!((a.game.as_str(), a.moves), ("games/abc", 39));
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(["arbiter", "clock", "install", "abc", "--pgn", "40/5400+30:1800+30"])
            .unwrap();
        match cli.command {
            Command::Arbiter(ArbiterAction::Clock(ClockCommand::Install(a))) => {
                assert_eq!(a.pgn, "40/5400+30:1800+30");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            Cli::try_parse_from([
                "arbiter",
                "clock",
                "set-moves",
                "abc",
                "--color",
                "white",
                "--moves",
                "-1"
            ])
            .is_err()
        );
    }

    #[test]
    fn results_parse() {
        for (text, expected) in [("1-0", "WhiteWins"), ("1/2-1/2", "Draw"), ("0-0", "BothLose")] {
            let cli = Cli::try_parse_from(["arbiter", "result", "games/x", text]).unwrap();
            match cli.command {
                Command::Arbiter(ArbiterAction::Result(a)) => assert_eq!(format!("{:?}", a.result), expected),
                other => panic!("{other:?}"),
            }
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum EventCommand {
    /// Create an event: its regulations (the flags of `game create`), scoring, tie-breaks and
    /// participants, once for all its games.
    #[command(after_help = "Examples:\n  \
        arbiter event create --id club-open --title \"Club Open 2026\" --tc 90+30 \\\n      \
        --players players.trf --rounds 5 --tie-breaks BH/C1,BH,SB,DE,WIN\n  \
        arbiter event create --id blitz --title \"Friday Blitz\" --tc 3+2 --players players.csv \\\n      \
        --tie-breaks \"DE,BH/M1\" --edition 2024 --grade-points\n\n\
        Players: a TRF file (its 001 records), or CSV lines\n\
        `start number,name,rating,FIDE id,federation,title,sex,birth,K,grade points`\n\
        (only the first two are required; a first line starting with a letter is a header).\n\
        Tie-breaks: FIDE acronyms of C.07 with modifiers: BH/C1 (Cut-1), SB/M1 (Median-1),\n\
        ARO/C1, PS/C1, KS/L+1 (limit in half-points), DE, WIN, WON, BPG, BWG, REP, AOB, FB,\n\
        TPR, PTP, APRO, APPO, and from 2026 STD, TPN, RTNG.")]
    Create(Box<EventCreateArgs>),
    /// Show an event: its settings and participants.
    #[command(after_help = "Example:\n  arbiter event show club-open")]
    Show(EventArg),
    /// List events.
    #[command(after_help = "Example:\n  arbiter event list")]
    List,
    /// The standings after a round: points, tie-breaks, rating changes, CN-16 grade points.
    #[command(
        after_help = "Examples:\n  arbiter event standings club-open\n  arbiter event standings club-open --round 3"
    )]
    Standings(EventRoundArg),
    /// The event as a TRF26 file (for the pairing engine or the rating report).
    #[command(after_help = "Examples:\n  arbiter event trf club-open > club-open.trf\n  \
        bbpPairings.exe --dutch club-open.trf -p round4.txt")]
    Trf(EventRoundArg),
    /// Arbiter: give or take points outside a game's result (Law 12.9.5 after the game; TRF 299).
    #[command(
        after_help = "Example:\n  arbiter event adjust club-open --player 7 --points -1/2 --round 3 --reason \"12.9.5: ...\""
    )]
    Adjust(AdjustArgs),
    /// Arbiter: change the event's broadcast: its delay, its push endpoint, and the public link
    /// of the spectators' page (`/#/watch/events/ID/rounds/N` on arbiterd's HTTP address).
    #[command(after_help = "Examples:\n  \
        arbiter event broadcast club-open --delay 15m --public\n  \
        arbiter event broadcast club-open --delay 15m --no-public\n  \
        arbiter event broadcast club-open --off\n\n\
        Without --public, spectators need a token (a viewer's is enough). A push token already\n\
        set is kept unless --push-token-file gives a new one.")]
    Broadcast(BroadcastArgs),
}

#[derive(Debug, Args)]
pub struct BroadcastArgs {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// Each move is published this long after it was made: `0s`, `15m`, `30m`.
    #[arg(long, value_name = "DELAY", value_parser = parse::broadcast_delay, required_unless_present = "off")]
    pub delay: Option<i32>,
    /// Anyone with the link may watch the spectators' page, without a token.
    #[arg(long, conflicts_with = "no_public")]
    pub public: bool,
    /// Spectators need a token (the default).
    #[arg(long)]
    pub no_public: bool,
    /// Push every round to a lichess-compatible endpoint (`{round}`: the round number).
    #[arg(long, value_name = "URL")]
    pub push_url: Option<String>,
    /// The file holding the push endpoint's bearer token.
    #[arg(long, value_name = "FILE")]
    pub push_token_file: Option<PathBuf>,
    /// Stop broadcasting the event (no feed, no spectators' page).
    #[arg(long, conflicts_with_all = ["delay", "public", "push_url", "push_token_file"])]
    pub off: bool,
}

#[derive(Debug, Args)]
pub struct EventArg {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
}

#[derive(Debug, Args)]
pub struct EventRoundArg {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// After this round (default: the last).
    #[arg(long, default_value_t = 0)]
    pub round: i32,
}

#[derive(Debug, Args)]
pub struct AdjustArgs {
    /// The event id.
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// The participant's start number.
    #[arg(long)]
    pub player: i32,
    /// Points added, negative to take away: `1`, `-1/2`, `+1.5`.
    #[arg(long, allow_hyphen_values = true, value_parser = parse::half_points)]
    pub points: i32,
    /// The round it belongs to (default: the event as a whole).
    #[arg(long, default_value_t = 0)]
    pub round: i32,
    /// Why: the Article or regulation and the facts.
    #[arg(long)]
    pub reason: String,
}

#[derive(Debug, Args)]
pub struct EventCreateArgs {
    /// The event id (`[a-z0-9-]`, at most 40, starting with a letter); the service picks one otherwise.
    #[arg(long)]
    pub id: Option<String>,
    /// The title (TRF 012, PGN `Event`).
    #[arg(long)]
    pub title: String,
    /// The participants: a TRF file or CSV (see below).
    #[arg(long, value_name = "FILE")]
    pub players: Option<PathBuf>,
    /// The number of rounds planned.
    #[arg(long, default_value_t = 0)]
    pub rounds: i32,
    /// The tie-breaks in order, comma-separated FIDE acronyms (see below).
    #[arg(long, value_name = "LIST", value_parser = parse::tie_breaks)]
    pub tie_breaks: Option<Vec<pb::TieBreak>>,
    /// The edition of the Tie-Break Regulations (default: in force on the start date).
    #[arg(long, value_enum)]
    pub edition: Option<EditionArg>,
    /// Points per result in half-points, `win,draw,loss` (default Law 10.1: 2,1,0).
    #[arg(long, value_name = "W,D,L", value_parser = parse::scoring)]
    pub scoring: Option<pb::Scoring>,
    /// Compute the CN-16 grade points of the Chinese rules in the standings.
    #[arg(long)]
    pub grade_points: bool,
    /// The rating given to unrated participants for rating-based tie-breaks.
    #[arg(long, default_value_t = 0)]
    pub unrated_rating: i32,
    /// Pre-determined pairings (round robin): C.07 15.2 for unplayed games.
    #[arg(long)]
    pub round_robin: bool,
    /// Count forfeits in Direct Encounter (C.07 6.1.1).
    #[arg(long)]
    pub forfeits_in_direct_encounter: bool,
    /// The city (TRF 022, PGN `Site`).
    #[arg(long, default_value = "")]
    pub city: String,
    /// The host federation (TRF 032).
    #[arg(long, default_value = "")]
    pub federation: String,
    /// The first day, `YYYY/MM/DD`.
    #[arg(long, default_value = "")]
    pub start_date: String,
    /// The last day, `YYYY/MM/DD`.
    #[arg(long, default_value = "")]
    pub end_date: String,
    /// The chief arbiter (TRF 102).
    #[arg(long, default_value = "")]
    pub chief_arbiter: String,
    /// Broadcast the rounds live (a PGN feed on arbiterd's HTTP address), each move this
    /// long after it was made: `0s`, `15m`, `30m` (fair play).
    #[arg(long, value_name = "DELAY", value_parser = parse::broadcast_delay)]
    pub broadcast_delay: Option<i32>,
    /// Also push every round to a lichess-compatible broadcast endpoint; `{round}` is
    /// replaced by the round number (a round's own `--push-url` takes its place).
    #[arg(long, value_name = "URL", requires = "broadcast_delay")]
    pub push_url: Option<String>,
    /// The file holding the push endpoint's bearer token (a lichess token with `study:write`).
    #[arg(long, value_name = "FILE", requires = "broadcast_delay")]
    pub push_token_file: Option<PathBuf>,
    /// Anyone with the link may watch the rounds on the spectators' page, without a token.
    #[arg(long, requires = "broadcast_delay")]
    pub public_view: bool,
    /// The regulations of every game of the event.
    #[command(flatten)]
    pub regulations: RegulationArgs,
}

/// The edition of the FIDE Tie-Break Regulations (C.07).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EditionArg {
    /// Applied from 1 August 2024.
    #[value(name = "2024")]
    August2024,
    /// Applied from 1 March 2026.
    #[value(name = "2026")]
    March2026,
}

#[derive(Debug, Subcommand)]
pub enum RoundCommand {
    /// Create a round from a pairing list, as one transaction: every game, bye and forfeit, or nothing.
    #[command(after_help = "Examples:\n  arbiter round create club-open --pairings round1.txt --start\n  \
        arbiter round create club-open --pairings club-open-r4.trf --round 4\n\n\
        Pairing lists: a TRF26 file with the round entered (bbpPairings, JaVaFo), or a plain list\n\
        as the engines print it: the number of pairs, then `white black` per line (`n 0`: the\n\
        pairing-allocated bye), `n H|F|Z|U` for byes, `white black + -` for a forfeit known\n\
        before the round. An error names the line.")]
    Create(RoundCreateArgs),
    /// Start every clock of a round at once (default time counts from now, Law 6.7).
    #[command(after_help = "Example:\n  arbiter round start club-open 1")]
    Start(RoundArg),
    /// Show a round: one line per board (players, clocks, moves, e-board, the last ruling).
    #[command(after_help = "Example:\n  arbiter round show club-open 1")]
    Show(RoundArg),
    /// Every game of a round as PGN.
    #[command(after_help = "Example:\n  arbiter round pgn club-open 1 > round1.pgn")]
    Pgn(RoundArg),
    /// Watch a round (or every round of the event) like an arbiter's lobby: the call queue
    /// on top, one line per board; resumes after a broken connection.
    #[command(
        after_help = "Examples:\n  arbiter round watch club-open 3\n  arbiter round watch club-open\n  \
        arbiter --json round watch club-open 3 | jq -c 'select(.alert) | .alert'\n  \
        arbiter round ack events/club-open/rounds/3/alerts/club-open-r3-b2-s41-0"
    )]
    Watch(RoundWatchArgs),
    /// Arbiter: acknowledge an alert (it leaves every watcher's queue).
    #[command(
        after_help = "Example:\n  arbiter round ack events/club-open/rounds/3/alerts/club-open-r3-b2-s41-0"
    )]
    Ack(AlertArg),
}

#[derive(Debug, Args)]
pub struct RoundWatchArgs {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// The round (default: every round of the event).
    pub round: Option<i32>,
}

#[derive(Debug, Args)]
pub struct AlertArg {
    /// The alert's name, as the watch shows it.
    pub alert: String,
}

#[derive(Debug, Args)]
pub struct RoundArg {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// The round number.
    pub round: i32,
}

#[derive(Debug, Args)]
pub struct RoundCreateArgs {
    /// The event id (or `events/ID`).
    #[arg(add = ArgValueCompleter::new(complete::events))]
    pub event: String,
    /// The pairing list file (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub pairings: PathBuf,
    /// The round number (default: the next).
    #[arg(long, default_value_t = 0)]
    pub round: i32,
    /// The format (default: recognised from the text).
    #[arg(long, value_enum)]
    pub format: Option<PairingFormatArg>,
    /// Start all clocks at once.
    #[arg(long)]
    pub start: bool,
    /// Push this round's live PGN here (a lichess round's push URL) when the event is broadcast.
    #[arg(long, value_name = "URL")]
    pub push_url: Option<String>,
}

/// The format of a pairing list.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PairingFormatArg {
    /// A TRF26 file with the round entered.
    Trf,
    /// A plain list of pairs.
    List,
}
