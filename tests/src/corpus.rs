//! The corpus: one scripted session that calls every RPC of the API on games
//! over the board and online, covering every kind of event and ruling the
//! API can produce (touch-move, illegal moves, claims, offers, flags,
//! penalties, arbiter actions, Chess960, an outage), and a transcript of
//! every answer.
//!
//! Two things are built on it:
//! - the RPC snapshot test (`tests/e2e/snapshots.rs`) plays it on a fresh
//!   server and requires the transcript, with the parts that depend on the
//!   wall clock or on elapsed real time left out ([`normalize`]), to equal
//!   the checked-in one;
//! - the golden logs (`examples/golden.rs`) are the database such a session
//!   leaves behind, recorded once with the release of the day the format was
//!   frozen and replayed by every later build.
//!
//! Answers are written as canonical proto3 JSON (the mapping grpcurl prints),
//! made from the descriptor set with `prost-reflect`, with map keys sorted,
//! so the transcript is stable text that a person can read.

use std::time::Duration;

use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::{Value, json};
use tonic::{Response, Status};
use tonic_types::StatusExt;

use crate::{ARBITER_TOKEN, Client, TestServer, v1 as pb};

/// The answers of a session, in order: `[label, answer]` pairs.
#[derive(Debug, Default)]
pub struct Transcript {
    pub entries: Vec<(String, Value)>,
}

impl Transcript {
    /// The transcript as one JSON document (an array of `{call, answer}`).
    pub fn to_json(&self) -> Value {
        Value::Array(
            self.entries.iter().map(|(call, answer)| json!({ "call": call, "answer": answer })).collect(),
        )
    }

    /// Records an answer (or an error) and returns the message on success.
    pub fn record<T: Message + Default>(
        &mut self,
        label: impl Into<String>,
        message_name: &str,
        result: Result<Response<T>, Status>,
    ) -> Option<T> {
        let label = label.into();
        match result {
            Ok(r) => {
                let m = r.into_inner();
                self.entries.push((label, canonical(&m, message_name)));
                Some(m)
            }
            Err(s) => {
                self.entries.push((label, status_json(&s)));
                None
            }
        }
    }
}

/// A status as JSON: its code, message, ErrorInfo and field violations.
pub fn status_json(s: &Status) -> Value {
    let mut out = json!({ "code": format!("{:?}", s.code()), "message": s.message() });
    if let Some(info) = s.get_details_error_info() {
        let metadata: serde_json::Map<String, Value> =
            info.metadata.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        out["errorInfo"] = json!({ "reason": info.reason, "domain": info.domain, "metadata": metadata });
    }
    if let Some(bad) = s.get_details_bad_request() {
        out["fieldViolations"] = Value::Array(
            bad.field_violations
                .iter()
                .map(|v| json!({ "field": v.field, "description": v.description }))
                .collect(),
        );
    }
    out
}

fn pool() -> &'static DescriptorPool {
    static POOL: std::sync::OnceLock<DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        DescriptorPool::decode(arbiter_proto::FILE_DESCRIPTOR_SET).expect("the API's descriptor set decodes")
    })
}

/// A message of the API as canonical proto3 JSON. `message_name` is the
/// message's name without its package (`GetGameResponse`), so the
/// transcript does not depend on the package name.
pub fn canonical<T: Message>(message: &T, message_name: &str) -> Value {
    let descriptor = pool()
        .all_messages()
        .find(|m| m.name() == message_name && m.package_name().ends_with("v1"))
        .unwrap_or_else(|| panic!("no message {message_name} in the API"));
    let dynamic = DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice()).expect("decodes");
    // Through `Value` the map keys come out sorted.
    serde_json::to_value(&dynamic).expect("serialises")
}

/// The transcript with what depends on the wall clock or on elapsed real
/// time left out: timestamps, running clock readings, used and remaining
/// times (in facts and in summaries), game-time instants, player tokens and
/// the PGN's clock comments. Everything else (acts, decisions, rule ids,
/// facts that are not times, positions, moves, results, errors) stays.
pub fn normalize(value: &Value) -> Value {
    normalize_in(None, value)
}

const TIME_KEYS: &[&str] = &[
    "recordTime",
    "readTime",
    "createTime",
    "updateTime",
    "whiteRemainingMs",
    "blackRemainingMs",
    "gameTimeMs",
    "whiteToken",
    "blackToken",
];

fn normalize_in(key: Option<&str>, value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let in_facts = matches!(key, Some("facts" | "details"));
            // Dropped rather than blanked: proto3 JSON leaves out a zero, so
            // whether the key is there at all depends on the time too.
            Value::Object(
                map.iter()
                    .filter(|(k, _)| {
                        !(TIME_KEYS.contains(&k.as_str())
                            || (in_facts && (k.ends_with("_ms") || k.ends_with("Ms"))))
                    })
                    .map(|(k, v)| (k.clone(), normalize_in(Some(k), v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| normalize_in(key, v)).collect()),
        // A PGN's line breaks fall where the clock comments' lengths put
        // them, and its date is the day it was played.
        Value::String(s) if key == Some("pgn") => {
            let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
            Value::String(blank_date(&blank_times(&flat)))
        }
        Value::String(s) => Value::String(blank_times(s)),
        other => other.clone(),
    }
}

/// `[Date "2026.12.01"]` with the date left out.
fn blank_date(pgn: &str) -> String {
    match pgn.find("[Date \"") {
        Some(i) => match pgn[i + 7..].find('"') {
            Some(j) => format!("{}<date>{}", &pgn[..i + 7], &pgn[i + 7 + j..]),
            None => pgn.to_string(),
        },
        None => pgn.to_string(),
    }
}

/// The answers with only the instants at which they were read blanked
/// (`readTime`): for reads of stored games, where everything else is fixed.
pub fn blank_read_times(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if k == "readTime" {
                        Value::String("<read time>".into())
                    } else {
                        blank_read_times(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(blank_read_times).collect()),
        other => other.clone(),
    }
}

/// Replaces clock readings and lengths of time in text (`1:29:47`, `0:07.3`,
/// `12.3 s`) and PGN clock comments with `<t>`.
pub fn blank_times(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == ':' || chars[j] == '.') {
                j += 1;
            }
            // Do not swallow a trailing sentence dot.
            while j > i && !chars[j - 1].is_ascii_digit() {
                j -= 1;
            }
            let run: String = chars[i..j].iter().collect();
            let clock = run.contains(':') && run.split(':').skip(1).all(|p| p.len() >= 2);
            let seconds = run.contains('.')
                && !run.contains(':')
                && chars.get(j) == Some(&' ')
                && chars.get(j + 1) == Some(&'s')
                && chars.get(j + 2).is_none_or(|c| !c.is_alphanumeric());
            if clock || seconds {
                out.push_str("<t>");
                i = j;
                continue;
            }
            out.push_str(&run);
            i = j;
            if i == start {
                i += 1;
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

// ---------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------

/// The session's state: the server, its arbiter client and the transcript.
pub struct Session {
    /// The running server (`None` for a reader of someone else's server).
    pub server: Option<TestServer>,
    pub arbiter: Client,
    pub transcript: Transcript,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("entries", &self.transcript.entries.len()).finish()
    }
}

fn name(id: &str) -> String {
    format!("games/{id}")
}

const W: i32 = pb::Color::White as i32;
const B: i32 = pb::Color::Black as i32;

fn color_of(ply: usize) -> i32 {
    if ply.is_multiple_of(2) { W } else { B }
}

fn side(color: i32) -> &'static str {
    if color == W { "white" } else { "black" }
}

fn regs(time_control: &str, mode: pb::Mode) -> pb::Regulations {
    pb::Regulations { time_control: time_control.to_string(), mode: mode as i32, ..Default::default() }
}

fn game(id: &str, regulations: pb::Regulations, start: bool) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        game_id: id.to_string(),
        event: "Golden Open".into(),
        round: "1".into(),
        white: Some(pb::Player {
            name: "Weiss, Anna".into(),
            fide_id: "1000001".into(),
            ..Default::default()
        }),
        black: Some(pb::Player {
            name: "Schwarz, Boris".into(),
            fide_id: "1000002".into(),
            ..Default::default()
        }),
        regulations: Some(regulations),
        start,
        ..Default::default()
    }
}

macro_rules! call {
    ($s:expr, $label:expr, $resp:literal, $method:ident, $req:expr) => {{
        let r = $s.arbiter.$method($req).await;
        $s.transcript.record($label, $resp, r)
    }};
}

/// A report of a corpus board.
#[derive(Debug)]
enum BoardStep {
    /// A piece lifted from the square.
    Lift(&'static str),
    /// A piece (FEN letter) put on the square.
    Place(&'static str, &'static str),
    /// The board's clock: White's and Black's times and whose runs.
    Clock(i64, i64, i32),
}

impl Session {
    /// A session on `server`.
    pub async fn new(server: TestServer) -> Session {
        let arbiter = server.client(Some(ARBITER_TOKEN)).await;
        Session { server: Some(server), arbiter, transcript: Transcript::default() }
    }

    /// A session that only reads from `server` (which it does not own).
    pub async fn new_reader(server: &TestServer) -> Session {
        let arbiter = server.client(Some(ARBITER_TOKEN)).await;
        Session { server: None, arbiter, transcript: Transcript::default() }
    }

    /// Every game in one list.
    pub async fn list_all(&mut self) {
        let req = pb::ListGamesRequest { page_size: 1000, ..Default::default() };
        call!(self, "ListGames all", "ListGamesResponse", list_games, req);
    }

    async fn create(&mut self, request: pb::CreateGameRequest) {
        let label = format!("CreateGame {}", request.game_id);
        call!(self, label, "CreateGameResponse", create_game, request);
    }

    async fn get(&mut self, id: &str) -> Option<pb::Game> {
        call!(
            self,
            format!("GetGame {id}"),
            "GetGameResponse",
            get_game,
            pb::GetGameRequest { name: name(id) }
        )
        .and_then(|r| r.game)
    }

    async fn mv(&mut self, id: &str, color: i32, text: &str) {
        let req = pb::MakeMoveRequest { name: name(id), color, r#move: text.into(), ..Default::default() };
        call!(self, format!("MakeMove {id} {} {text}", side(color)), "MakeMoveResponse", make_move, req);
    }

    async fn press(&mut self, id: &str, color: i32) {
        let req = pb::PressClockRequest { name: name(id), color, ..Default::default() };
        call!(self, format!("PressClock {id} {}", side(color)), "PressClockResponse", press_clock, req);
    }

    /// Over the board: each move made and the clock pressed.
    async fn otb(&mut self, id: &str, first_ply: usize, moves: &[&str]) {
        for (i, m) in moves.iter().enumerate() {
            let c = color_of(first_ply + i);
            self.mv(id, c, m).await;
            self.press(id, c).await;
        }
    }

    /// Online: each move submitted (completed at once).
    async fn online(&mut self, id: &str, first_ply: usize, moves: &[&str]) {
        for (i, m) in moves.iter().enumerate() {
            self.mv(id, color_of(first_ply + i), m).await;
        }
    }

    async fn touch(&mut self, id: &str, color: i32, square: &str, kind: pb::TouchKind) {
        let req = pb::TouchPieceRequest {
            name: name(id),
            color,
            square: square.into(),
            kind: kind as i32,
            ..Default::default()
        };
        call!(
            self,
            format!("TouchPiece {id} {} {square}", side(color)),
            "TouchPieceResponse",
            touch_piece,
            req
        );
    }

    /// Two squares touched at once (4.3.3 decides which counts first).
    async fn touch_both(&mut self, id: &str, color: i32, square: &str, simultaneous: &str) {
        let req = pb::TouchPieceRequest {
            name: name(id),
            color,
            square: square.into(),
            simultaneous_square: simultaneous.into(),
            ..Default::default()
        };
        call!(
            self,
            format!("TouchPiece {id} {} {square}+{simultaneous}", side(color)),
            "TouchPieceResponse",
            touch_piece,
            req
        );
    }

    async fn claim(&mut self, id: &str, color: i32, kind: pb::ClaimKind, intended: &str) {
        let req = pb::ClaimDrawRequest {
            name: name(id),
            color,
            kind: kind as i32,
            intended_move: intended.into(),
            ..Default::default()
        };
        call!(
            self,
            format!("ClaimDraw {id} {} {intended}", side(color)),
            "ClaimDrawResponse",
            claim_draw,
            req
        );
    }

    async fn penalty(&mut self, id: &str, color: i32, kind: pb::PenaltyKind, amount_ms: i64) {
        let req = pb::IssuePenaltyRequest {
            name: name(id),
            color,
            kind: kind as i32,
            amount_ms,
            ..Default::default()
        };
        call!(
            self,
            format!("IssuePenalty {id} {} {kind:?}", side(color)),
            "IssuePenaltyResponse",
            issue_penalty,
            req
        );
    }

    async fn set_clock(&mut self, id: &str, color: i32, remaining_ms: i64) {
        let req = pb::SetClockRequest { name: name(id), color, remaining_ms, ..Default::default() };
        call!(
            self,
            format!("SetClock {id} {} {remaining_ms}", side(color)),
            "SetClockResponse",
            set_clock,
            req
        );
    }

    async fn pause(&mut self, id: &str) {
        let req = pb::PauseClocksRequest { name: name(id), ..Default::default() };
        call!(self, format!("PauseClocks {id}"), "PauseClocksResponse", pause_clocks, req);
    }

    async fn answer(&mut self, id: &str, question_id: u32, answer: pb::Answer) {
        let req = pb::AnswerQuestionRequest {
            name: name(id),
            question_id,
            answer: answer as i32,
            ..Default::default()
        };
        call!(
            self,
            format!("AnswerQuestion {id} {question_id} {answer:?}"),
            "AnswerQuestionResponse",
            answer_question,
            req
        );
    }

    /// Waits until the game is finished (a timer ruling), at most `limit`.
    async fn wait_finished(&mut self, id: &str, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let g = self
                .arbiter
                .get_game(pb::GetGameRequest { name: name(id) })
                .await
                .ok()
                .and_then(|r| r.into_inner().game);
            if g.is_some_and(|g| g.status == pb::GameStatus::Finished as i32) {
                return;
            }
            if tokio::time::Instant::now() >= deadline {
                self.transcript
                    .entries
                    .push((format!("wait {id}"), json!(format!("not finished after {limit:?}"))));
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A board on a ConnectBoard stream for the game `id`: each report of
    /// `steps` is sent in turn (numbered, 200 ms of device time apart) and,
    /// where a decision is named, the service's answers are read until an
    /// act ruled so; the act and its decisions go to the transcript. The
    /// stream is closed at the end.
    async fn board(&mut self, id: &str, device_id: u64, steps: &[(BoardStep, Option<&str>)]) {
        use pb::connect_board_request::Item as Out;
        use pb::connect_board_response::Item as In;
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let hello = pb::BoardHello {
            name: name(id),
            device_id,
            settle_ms: 100,
            label: format!("corpus board {device_id}"),
            ..Default::default()
        };
        tx.send(pb::ConnectBoardRequest { item: Some(Out::Hello(hello)) }).await.unwrap();
        let label = format!("ConnectBoard {id}");
        let mut stream =
            match self.arbiter.connect_board(tokio_stream::wrappers::ReceiverStream::new(rx)).await {
                Ok(r) => r.into_inner(),
                Err(status) => {
                    self.transcript.entries.push((label, status_json(&status)));
                    return;
                }
            };
        let (mut seq, mut time_ms) = (0u64, 1_000_000u64);
        for (step, decision) in steps {
            seq += 1;
            time_ms += 200;
            let item = match step {
                BoardStep::Lift(square) => Out::Observation(pb::BoardObservation {
                    device_seq: seq,
                    device_time_ms: time_ms,
                    kind: Some(pb::board_observation::Kind::Lifted((*square).into())),
                }),
                BoardStep::Place(square, piece) => Out::Observation(pb::BoardObservation {
                    device_seq: seq,
                    device_time_ms: time_ms,
                    kind: Some(pb::board_observation::Kind::Placed(pb::BoardSquare {
                        square: (*square).into(),
                        piece: (*piece).into(),
                    })),
                }),
                BoardStep::Clock(white_ms, black_ms, running) => Out::Clock(pb::BoardClockReport {
                    device_seq: seq,
                    device_time_ms: time_ms,
                    white_remaining_ms: *white_ms,
                    black_remaining_ms: *black_ms,
                    running: *running,
                }),
            };
            tx.send(pb::ConnectBoardRequest { item: Some(item) }).await.unwrap();
            let Some(decision) = decision else { continue };
            let step_label = format!("{label} {step:?}");
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                let next = tokio::time::timeout_at(deadline, stream.message()).await;
                match next {
                    Ok(Ok(Some(pb::ConnectBoardResponse { item: Some(In::Act(act)) })))
                        if act
                            .event
                            .as_ref()
                            .is_some_and(|e| e.rulings.iter().any(|r| r.decision == *decision)) =>
                    {
                        let event = act.event.unwrap_or_default();
                        let decisions: Vec<&str> =
                            event.rulings.iter().map(|r| r.decision.as_str()).collect();
                        self.transcript
                            .entries
                            .push((step_label, json!({ "act": event.act, "decisions": decisions })));
                        break;
                    }
                    Ok(Ok(Some(_))) => {}
                    Ok(Ok(None)) => {
                        self.transcript.entries.push((step_label, json!("the stream ended")));
                        return;
                    }
                    Ok(Err(status)) => {
                        self.transcript.entries.push((step_label, status_json(&status)));
                        return;
                    }
                    Err(_) => {
                        self.transcript
                            .entries
                            .push((step_label, json!(format!("no {decision} within 10 s"))));
                        break;
                    }
                }
            }
        }
        // The stream ends once the service has let the board go, so the
        // reads that follow see it disconnected, every time.
        drop(tx);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while let Ok(Ok(Some(_))) = tokio::time::timeout_at(deadline, stream.message()).await {}
    }

    /// The whole read side of a game: the game, every event, the PGN.
    pub async fn read_back(&mut self, id: &str) {
        self.get(id).await;
        let req = pb::ListGameEventsRequest { parent: name(id), page_size: 1000, ..Default::default() };
        call!(self, format!("ListGameEvents {id}"), "ListGameEventsResponse", list_game_events, req);
        let req = pb::ExportPgnRequest { name: name(id) };
        call!(self, format!("ExportPgn {id}"), "ExportPgnResponse", export_pgn, req);
    }
}

/// Every read of every corpus game on `server` (GetGame, ListGameEvents,
/// ExportPgn each, then ListGames), as canonical JSON with read times
/// blanked: what the golden corpus's `expected.json` holds.
pub async fn read_everything(server: &TestServer) -> Value {
    read_everything_of(server, GAMES).await
}

/// [`read_everything`] for the games `games` (a corpus's own list).
pub async fn read_everything_of(server: &TestServer, games: &[&str]) -> Value {
    let mut session = Session::new_reader(server).await;
    for id in games {
        session.read_back(id).await;
    }
    session.list_all().await;
    blank_read_times(&session.transcript.to_json())
}

/// The ids of the corpus's games, in the order they are played.
pub const GAMES: &[&str] = &[
    "otb-touch-move",
    "otb-illegal-moves",
    "otb-castling-promotion",
    "otb-claims",
    "otb-arbiter",
    "otb-score-penalties",
    "otb-default-time",
    "online-offers",
    "online-flag",
    "online-reconnect-window",
    "online-premove-mate",
    "chess960",
    "armageddon",
    "quickplay-iii",
    "outage",
    "dead-position",
    "pending",
    "paused",
];

/// Games the session has played since format 3 (a game withdrawn before it
/// started): their corpora hold them, older corpora do not.
pub const GAMES_SINCE_FORMAT_3: [&str; 1] = ["cancelled"];

/// Games the session has played since format 4 (e-boards: a touch sensed
/// and recorded for the arbiter, a touch sensed and bound, the board's
/// clock authoritative).
pub const GAMES_SINCE_FORMAT_4: [&str; 2] = ["board-evidence", "board-bound"];

/// Every game the session plays today.
pub fn all_games() -> Vec<&'static str> {
    GAMES.iter().chain(&GAMES_SINCE_FORMAT_3).chain(&GAMES_SINCE_FORMAT_4).copied().collect()
}

/// Plays the whole corpus. The server is restarted once (the outage game),
/// so the session owns it; [`Session::server`] is the running one at the end.
///
/// Every game ends finished, paused or not started, so that a server opened
/// later on the same database finds nothing running and adds no events.
pub async fn play(server: TestServer) -> Session {
    let mut s = Session::new(server).await;
    use pb::{ClaimKind as Ck, Mode, PenaltyKind as Pk, TouchKind as Tk};

    // --- Touch-move (Article 4), over the board -------------------------
    let id = "otb-touch-move";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    s.touch(id, W, "e2", Tk::Intent).await; // 4.3.1: must move the pawn
    s.touch(id, B, "g8", Tk::Intent).await; // the opponent's turn: a warning
    s.mv(id, W, "g1f3").await; // another piece: not made
    s.press(id, W).await; // the press takes it back
    s.otb(id, 0, &["e2e4"]).await;
    let req = pb::AnnounceAdjustRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "AnnounceAdjust otb-touch-move black", "AnnounceAdjustResponse", announce_adjust, req);
    s.touch(id, B, "d7", Tk::Adjust).await; // adjusting, announced: no obligation
    s.touch(id, B, "e7", Tk::Accidental).await;
    s.touch(id, B, "b8", Tk::Intent).await; // bound to the knight
    s.otb(id, 1, &["b8c6"]).await;
    // The knight c6 and the bishop f1 at once: the own piece counts first
    // (4.3.3); it cannot take c6, so the bishop must move.
    s.touch_both(id, W, "c6", "f1").await;
    s.touch(id, W, "d4", Tk::Intent).await; // an empty square: refused
    s.touch(id, W, "f1", Tk::Intent).await;
    s.mv(id, W, "f1c4").await;
    s.touch(id, W, "d2", Tk::Intent).await; // after release (4.7)
    s.press(id, W).await;
    let req = pb::ResignGameRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "ResignGame otb-touch-move black", "ResignGameResponse", resign_game, req);
    s.read_back(id).await;

    // --- Completed illegal moves (7.5) ---------------------------------
    let id = "otb-illegal-moves";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    s.otb(id, 0, &["e2e4", "e7e5"]).await;
    s.mv(id, W, "e4e6").await; // not a legal move: not completed yet
    s.press(id, W).await; // completed: the first illegal move, 2 min to Black
    s.otb(id, 2, &["g1f3"]).await;
    s.mv(id, B, "e8e6").await;
    s.press(id, B).await; // Black's first; the touched king must move (4.3.1)
    s.mv(id, B, "b8c6").await; // not the king: not made
    s.otb(id, 3, &["e8e7"]).await;
    s.mv(id, W, "f3f6").await;
    s.press(id, W).await; // White's second: lost, Black can mate
    s.mv(id, B, "d7d6").await; // the game is over
    s.read_back(id).await;

    // --- Castling and promotion acts (4.4, 4.7, 7.5.4) ------------------
    let id = "otb-castling-promotion";
    let mut r = regs("90+30", Mode::OverTheBoard);
    r.start_fen = "r3k2r/1P3p2/8/8/8/8/2p5/R3K2R w KQkq - 0 1".into();
    s.create(game(id, r, true)).await;
    // The king first, released on g1, then the rook (4.4.2): castling.
    let req = pb::ReleaseCastlingKingRequest {
        name: name(id),
        color: W,
        square: "g1".into(),
        ..Default::default()
    };
    call!(
        s,
        "ReleaseCastlingKing otb-castling-promotion white g1",
        "ReleaseCastlingKingResponse",
        release_castling_king,
        req
    );
    s.mv(id, W, "e1g1").await;
    s.press(id, W).await;
    s.mv(id, B, "e8g8").await;
    let req = pb::ReportTwoHandsRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "ReportTwoHands otb-castling-promotion black", "ReportTwoHandsResponse", report_two_hands, req);
    s.press(id, B).await; // 7.5.4: an illegal move; the replacement is O-O (DEC-20)
    let allowed = s.get(id).await.and_then(|g| g.obligation).map(|o| o.allowed_moves).unwrap_or_default();
    let mut allowed = allowed;
    allowed.sort();
    if let Some(m) = allowed.first() {
        let m = m.clone();
        s.otb(id, 1, &[m.as_str()]).await;
    }
    let req = pb::PlacePromotionPieceRequest {
        name: name(id),
        color: W,
        piece: pb::PieceRole::Queen as i32,
        ..Default::default()
    };
    call!(
        s,
        "PlacePromotionPiece otb-castling-promotion white queen",
        "PlacePromotionPieceResponse",
        place_promotion_piece,
        req
    );
    s.mv(id, W, "b7b8q").await;
    s.press(id, W).await;
    s.otb(id, 3, &["c2c1n"]).await;
    let req = pb::DeclareResultRequest {
        name: name(id),
        result: pb::DeclaredResult::Draw as i32,
        ..Default::default()
    };
    call!(s, "DeclareResult otb-castling-promotion draw", "DeclareResultResponse", declare_result, req);
    s.read_back(id).await;

    // --- Draw claims (9.2, 9.3, 9.5) ------------------------------------
    let id = "otb-claims";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    s.otb(id, 0, &["g1f3", "g8f6"]).await;
    s.claim(id, W, Ck::FiftyMoves, "").await; // incorrect: time to the opponent
    s.claim(id, W, Ck::ThreefoldRepetition, "f3g1").await; // incorrect; bound to play it
    s.mv(id, W, "b1c3").await; // not the written move
    s.otb(id, 2, &["f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]).await;
    s.claim(id, B, Ck::ThreefoldRepetition, "f6g8").await; // correct
    s.read_back(id).await;

    // --- Arbiter actions (6.10, 6.11, 7.1, 12.9, 11.3) ------------------
    let id = "otb-arbiter";
    s.create(game(id, regs("40/90+30, 30+30", Mode::OverTheBoard), true)).await;
    s.otb(id, 0, &["d2d4", "d7d5"]).await;
    s.pause(id).await;
    s.mv(id, W, "c2c4").await; // paused
    let req = pb::ResumeClocksRequest { name: name(id), ..Default::default() };
    call!(s, "ResumeClocks otb-arbiter", "ResumeClocksResponse", resume_clocks, req);
    let req = pb::AdjustClockRequest { name: name(id), color: B, delta_ms: 60_000, ..Default::default() };
    call!(s, "AdjustClock otb-arbiter black +60000", "AdjustClockResponse", adjust_clock, req);
    s.pause(id).await;
    s.set_clock(id, W, 3_000_000).await;
    s.set_clock(id, B, 2_950_000).await;
    let req = pb::ResumeClocksRequest { name: name(id), ..Default::default() };
    call!(s, "ResumeClocks otb-arbiter", "ResumeClocksResponse", resume_clocks, req);
    s.penalty(id, W, Pk::Warning, 0).await;
    s.penalty(id, W, Pk::AddTimeToOpponent, 120_000).await;
    s.penalty(id, B, Pk::DeductTime, 30_000).await;
    // 6.10.2: the correct time control installed, a move counter set.
    let req = pb::InstallTimeControlRequest {
        name: name(id),
        pgn_time_control: "40/5400+30:1800+30".into(),
        ..Default::default()
    };
    call!(s, "InstallTimeControl otb-arbiter", "InstallTimeControlResponse", install_time_control, req);
    let req =
        pb::SetMoveCounterRequest { name: name(id), color: W, moves_completed: 1, ..Default::default() };
    call!(s, "SetMoveCounter otb-arbiter white 1", "SetMoveCounterResponse", set_move_counter, req);
    let req =
        pb::SetMoveCounterRequest { name: name(id), color: B, moves_completed: 10_001, ..Default::default() };
    call!(s, "SetMoveCounter otb-arbiter black 10001", "SetMoveCounterResponse", set_move_counter, req);
    s.otb(id, 2, &["c2c4", "e7e6", "b1c3"]).await;
    let req = pb::ReinstatePositionRequest { name: name(id), ply: 3, ..Default::default() };
    call!(s, "ReinstatePosition otb-arbiter 3", "ReinstatePositionResponse", reinstate_position, req);
    let req = pb::ReinstatePositionRequest { name: name(id), ply: 99, ..Default::default() };
    call!(s, "ReinstatePosition otb-arbiter 99", "ReinstatePositionResponse", reinstate_position, req);
    s.otb(id, 3, &["e7e6"]).await;
    let req = pb::RecordDeviceRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "RecordDevice otb-arbiter black", "RecordDeviceResponse", record_device, req);
    s.read_back(id).await;

    // --- Score penalties (12.9.4, 12.9.5) and a declared loss -----------
    let id = "otb-score-penalties";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    s.otb(id, 0, &["e2e4", "c7c5"]).await;
    s.penalty(id, W, Pk::ReduceScore, 0).await;
    s.penalty(id, B, Pk::RaiseOpponentScore, 0).await;
    s.penalty(id, B, Pk::DeclareLost, 0).await;
    s.read_back(id).await;

    // --- Default time (6.7) and arrival ---------------------------------
    let id = "otb-default-time";
    let mut r = regs("90+30", Mode::OverTheBoard);
    r.default_time_ms = Some(2_000);
    s.create(game(id, r, true)).await;
    let req = pb::RecordArrivalRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "RecordArrival otb-default-time white", "RecordArrivalResponse", record_arrival, req);
    s.otb(id, 0, &["e2e4"]).await;
    s.wait_finished(id, Duration::from_secs(10)).await; // Black never came
    s.read_back(id).await;

    // --- Online: offers, decline, accept (9.1), disconnection -----------
    let id = "online-offers";
    let mut r = regs("3+2", Mode::Online);
    r.reconnect_window_ms = Some(600_000);
    s.create(game(id, r, true)).await;
    s.online(id, 0, &["e2e4", "e7e5"]).await;
    let req = pb::OfferDrawRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "OfferDraw online-offers white", "OfferDrawResponse", offer_draw, req);
    let req = pb::DeclineDrawRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "DeclineDraw online-offers black", "DeclineDrawResponse", decline_draw, req);
    let req = pb::AcceptDrawRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "AcceptDraw online-offers black", "AcceptDrawResponse", accept_draw, req); // no offer
    let req = pb::RecordDisconnectRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "RecordDisconnect online-offers black", "RecordDisconnectResponse", record_disconnect, req);
    let req = pb::RecordReconnectRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "RecordReconnect online-offers black", "RecordReconnectResponse", record_reconnect, req);
    s.online(id, 2, &["g1f3"]).await;
    s.mv(id, W, "d2d4").await; // not White's turn
    s.mv(id, B, "e5e4").await; // illegal online: refused
    let req = pb::MakeMoveRequest {
        name: name(id),
        color: W,
        r#move: "e4d5".into(),
        premove: true,
        ..Default::default()
    };
    call!(s, "MakeMove online-offers white e4d5 premove", "MakeMoveResponse", make_move, req);
    s.online(id, 3, &["b8c6"]).await; // the premove is not legal now: dropped
    let req = pb::OfferDrawRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "OfferDraw online-offers black", "OfferDrawResponse", offer_draw, req);
    let req = pb::AcceptDrawRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "AcceptDraw online-offers white", "AcceptDrawResponse", accept_draw, req);
    s.read_back(id).await;

    // --- Online flag (6.9) ----------------------------------------------
    let id = "online-flag";
    s.create(game(id, regs("3+2", Mode::Online), true)).await;
    s.online(id, 0, &["e2e4", "e7e5", "d1h5"]).await;
    s.set_clock(id, B, 300).await;
    s.wait_finished(id, Duration::from_secs(10)).await;
    s.read_back(id).await;

    // --- Online reconnect window (OCR 11) -------------------------------
    let id = "online-reconnect-window";
    let mut r = regs("3+2", Mode::Online);
    r.reconnect_window_ms = Some(1_000);
    s.create(game(id, r, true)).await;
    s.online(id, 0, &["d2d4"]).await;
    let req = pb::RecordDisconnectRequest { name: name(id), color: B, ..Default::default() };
    call!(
        s,
        "RecordDisconnect online-reconnect-window black",
        "RecordDisconnectResponse",
        record_disconnect,
        req
    );
    s.wait_finished(id, Duration::from_secs(10)).await;
    s.read_back(id).await;

    // --- Online premove and checkmate (OCR 3.1.5, 5.1.1) ----------------
    let id = "online-premove-mate";
    s.create(game(id, regs("3+2", Mode::Online), true)).await;
    s.online(id, 0, &["f2f3"]).await;
    let req = pb::MakeMoveRequest {
        name: name(id),
        color: W,
        r#move: "g2g4".into(),
        premove: true,
        ..Default::default()
    };
    call!(s, "MakeMove online-premove-mate white g2g4 premove", "MakeMoveResponse", make_move, req);
    s.online(id, 1, &["e7e5"]).await;
    let req = pb::MakeMoveRequest {
        name: name(id),
        color: B,
        r#move: "d8h4".into(),
        premove: true,
        ..Default::default()
    };
    call!(s, "MakeMove online-premove-mate black d8h4 premove", "MakeMoveResponse", make_move, req);
    s.read_back(id).await;

    // --- Chess960 (castling by the king onto the rook) ------------------
    let id = "chess960";
    let mut r = regs("15+10", Mode::OverTheBoard);
    r.chess960 = true;
    r.start_fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GB - 0 1".into();
    s.create(game(id, r, true)).await;
    let req = pb::MakeMoveRequest { name: name(id), color: W, r#move: "O-O".into(), ..Default::default() };
    call!(s, "MakeMove chess960 white O-O", "MakeMoveResponse", make_move, req);
    s.press(id, W).await;
    s.otb(id, 1, &["e7e5"]).await;
    let req = pb::ResignGameRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "ResignGame chess960 white", "ResignGameResponse", resign_game, req);
    s.read_back(id).await;

    // --- Armageddon: a draw is a win for Black --------------------------
    let id = "armageddon";
    let mut r = regs("5+0", Mode::OverTheBoard);
    r.armageddon = true;
    s.create(game(id, r, true)).await;
    s.otb(id, 0, &["e2e4", "e7e5"]).await;
    let req = pb::OfferDrawRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "OfferDraw armageddon white", "OfferDrawResponse", offer_draw, req);
    let req = pb::AcceptDrawRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "AcceptDraw armageddon black", "AcceptDrawResponse", accept_draw, req);
    s.read_back(id).await;

    // --- Guidelines III: increment request, no winning attempts ---------
    let id = "quickplay-iii";
    let mut r = regs("15", Mode::OverTheBoard);
    r.guidelines_iii = true;
    r.start_fen = "4k3/3p4/8/8/8/8/8/4K3 w - - 0 1".into();
    s.create(game(id, r, true)).await;
    s.set_clock(id, W, 90_000).await;
    // White, whose clock runs, asks for increment (III.4) and claims that
    // Black is making no effort to win by normal means (III.5).
    let req = pb::RequestIncrementRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "RequestIncrement quickplay-iii white", "RequestIncrementResponse", request_increment, req);
    let req = pb::ClaimNoWinningAttemptRequest { name: name(id), color: W, ..Default::default() };
    call!(
        s,
        "ClaimNoWinningAttempt quickplay-iii white",
        "ClaimNoWinningAttemptResponse",
        claim_no_winning_attempt,
        req
    );
    let req = pb::RequestIncrementRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "RequestIncrement quickplay-iii black", "RequestIncrementResponse", request_increment, req);
    if let Some(g) = s.get(id).await {
        let ids: Vec<u32> = g.open_questions.iter().map(|q| q.id).collect();
        for (i, q) in ids.into_iter().enumerate() {
            let answer = if i == 0 { pb::Answer::Accept } else { pb::Answer::Postpone };
            s.answer(id, q, answer).await;
        }
        if let Some(g) = s.get(id).await {
            for q in g.open_questions.iter().map(|q| q.id).collect::<Vec<_>>() {
                s.answer(id, q, pb::Answer::Reject).await;
            }
        }
    }
    s.answer(id, 999, pb::Answer::Accept).await; // no such question
    s.otb(id, 0, &["e1e2", "e8e7"]).await;
    s.pause(id).await;
    s.read_back(id).await;

    // --- An outage: the service stops with a running game (6.11) --------
    let id = "outage";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    s.otb(id, 0, &["c2c4", "c7c5"]).await;
    let (dir, url) = s.server.take().expect("the session's server").stop().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let server = TestServer::start_with(dir, url, |_| {}).await;
    s.arbiter = server.client(Some(ARBITER_TOKEN)).await;
    s.server = Some(server);
    s.otb(id, 2, &["b1c3"]).await;
    s.penalty(id, B, Pk::DeclareLost, 0).await;
    s.read_back(id).await;

    // --- A dead position after a capture (5.2.2) ------------------------
    let id = "dead-position";
    let mut r = regs("90+30", Mode::OverTheBoard);
    r.start_fen = "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1".into();
    s.create(game(id, r, true)).await;
    s.otb(id, 0, &["e1e2"]).await;
    s.read_back(id).await;

    // --- Not started, and paused ----------------------------------------
    let id = "pending";
    s.create(game(id, regs("90+30", Mode::Hybrid), false)).await;
    s.mv(id, W, "e2e4").await; // not started
    let req = pb::RecordArrivalRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "RecordArrival pending black", "RecordArrivalResponse", record_arrival, req);
    s.read_back(id).await;

    // A pairing withdrawn before the round: cancelled, no result (format 3).
    let id = "cancelled";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), false)).await;
    let req = pb::CancelGameRequest { name: name(id), ..Default::default() };
    call!(s, "CancelGame cancelled", "CancelGameResponse", cancel_game, req);
    s.mv(id, W, "e2e4").await; // withdrawn: refused
    s.read_back(id).await;

    // --- E-boards: what the sensors saw, weighed by the regulations -------
    // (format 4). By default a touch the board senses is evidence for the
    // arbiter, with the moves it would bind to (4.2.2), and binds nothing.
    let id = "board-evidence";
    s.create(game(id, regs("90+30", Mode::OverTheBoard), true)).await;
    let steps = [
        (BoardStep::Clock(5_400_000, 5_400_000, W), None),
        (BoardStep::Lift("e2"), Some("TOUCH_SENSED")),
        (BoardStep::Place("e4", "P"), Some("MOVE_MADE")),
        (BoardStep::Clock(5_400_000, 5_400_000, B), Some("MOVE_COMPLETED")),
        (BoardStep::Lift("g8"), Some("TOUCH_SENSED")),
        (BoardStep::Place("g8", "n"), Some("TOUCH_SENSED")),
    ];
    s.board(id, 11, &steps).await;
    let req = pb::ResignGameRequest { name: name(id), color: B, ..Default::default() };
    call!(s, "ResignGame board-evidence black", "ResignGameResponse", resign_game, req);
    s.read_back(id).await;

    // Where the regulations bind sensed touches, the lift is the Article 4
    // obligation; where the board's clock is authoritative (OCR 2.4), its
    // reading sets the service's clock.
    let id = "board-bound";
    let mut r = regs("5+0", Mode::OverTheBoard);
    r.sensed_touches = pb::SensedTouches::Bind as i32;
    r.clock_authority = pb::ClockAuthority::Board as i32;
    s.create(game(id, r, true)).await;
    let steps = [
        (BoardStep::Clock(300_000, 300_000, W), None),
        (BoardStep::Lift("g1"), Some("OBLIGATION")),
        (BoardStep::Place("f3", "N"), Some("MOVE_MADE")),
        // Both sides off the service's by far, so both are set whatever
        // the milliseconds between the press and the reading.
        (BoardStep::Clock(250_000, 290_000, B), Some("CLOCK_SET")),
    ];
    s.board(id, 12, &steps).await;
    let req = pb::ResignGameRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "ResignGame board-bound white", "ResignGameResponse", resign_game, req);
    s.read_back(id).await;

    let id = "paused";
    s.create(game(id, regs("25+10", Mode::OverTheBoard), false)).await;
    let req = pb::StartGameRequest { name: name(id), ..Default::default() };
    call!(s, "StartGame paused", "StartGameResponse", start_game, req);
    s.otb(id, 0, &["e2e4", "e7e6"]).await;
    let req = pb::OfferDrawRequest { name: name(id), color: W, ..Default::default() };
    call!(s, "OfferDraw paused white", "OfferDrawResponse", offer_draw, req);
    s.touch(id, W, "d2", Tk::Intent).await;
    s.pause(id).await;
    s.read_back(id).await;

    // --- The list and the watch stream ----------------------------------
    let req = pb::ListGamesRequest { page_size: 5, ..Default::default() };
    let first = call!(s, "ListGames page 1", "ListGamesResponse", list_games, req);
    if let Some(first) = first {
        let req =
            pb::ListGamesRequest { page_size: 100, page_token: first.next_page_token, ..Default::default() };
        call!(s, "ListGames page 2", "ListGamesResponse", list_games, req);
    }
    let req = pb::ListGamesRequest {
        page_size: 100,
        status: pb::GameStatus::Finished as i32,
        ..Default::default()
    };
    call!(s, "ListGames finished", "ListGamesResponse", list_games, req);
    let req = pb::ListGamesRequest { page_size: 0, page_token: "garbage".into(), ..Default::default() };
    call!(s, "ListGames bad token", "ListGamesResponse", list_games, req);
    // A watch of a finished game replays its log and ends.
    match s.arbiter.watch_game(pb::WatchGameRequest { name: name("otb-claims"), after_seq: 2 }).await {
        Ok(stream) => {
            let mut stream = stream.into_inner();
            let mut n = 0;
            loop {
                match tokio::time::timeout(Duration::from_secs(5), stream.message()).await {
                    Ok(Ok(Some(m))) => {
                        n += 1;
                        s.transcript
                            .entries
                            .push((format!("WatchGame otb-claims #{n}"), canonical(&m, "WatchGameResponse")));
                    }
                    Ok(Ok(None)) => break,
                    Ok(Err(e)) => {
                        s.transcript.entries.push(("WatchGame otb-claims error".into(), status_json(&e)));
                        break;
                    }
                    Err(_) => {
                        s.transcript
                            .entries
                            .push(("WatchGame otb-claims".into(), json!("still open after 5 s")));
                        break;
                    }
                }
            }
        }
        Err(e) => s.transcript.entries.push(("WatchGame otb-claims".into(), status_json(&e))),
    }
    // Errors of the read side.
    s.get("no-such-game").await;
    let req = pb::GetGameRequest { name: "games/".into() };
    call!(s, "GetGame empty id", "GetGameResponse", get_game, req);
    let req = pb::MakeMoveRequest {
        name: name("paused"),
        color: W,
        r#move: "d2d4".into(),
        expected_seq: Some(1),
        ..Default::default()
    };
    call!(s, "MakeMove paused stale expected_seq", "MakeMoveResponse", make_move, req);
    s
}
