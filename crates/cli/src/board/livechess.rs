//! DGT LiveChess's local WebSocket API (`ws://127.0.0.1:1982/api/v1.0`),
//! read into [`Reading`]s.
//!
//! LiveChess runs next to the boards and speaks JSON (field-anchors-2 §1.1,
//! as lichess's DGT connector uses it):
//!
//! - `{"id":1,"call":"eboards"}` lists the boards it sees:
//!   `{"response":"call","id":1,"param":[{"serialnr":"24958","state":"ACTIVE"}]}`
//!   (`ACTIVE`, `INACTIVE`, `NOTRESPONDING`, `DELAYED`);
//! - `{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"24958"}}}`
//!   subscribes to one board's events, which then come as
//!   `{"response":"feed","id":1,"param":{"serialnr":…,"board":"<FEN placement>","san":[…],"clock":{…}}}`
//!   whenever the board or its clock changes;
//! - `{"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"<FEN>"}}}`
//!   tells LiveChess the position the game is in. LiveChess does not move
//!   pieces: it follows the game from that position (its own `san` list and
//!   its broadcast), and a board that does not match it gives no moves until
//!   it does. The bridge pushes the game's position when the stream opens and
//!   after the service sends corrections, so LiveChess follows the game the
//!   arbiter rules, not what the board showed.
//!
//! The bridge reads `board` (every placement, lifts included: the service
//! infers the moves and the touches) and `clock`, never LiveChess's own `san`
//! (its move recognition is not the Laws', and it throws the lifts away).
//! The `clock` object is read as `{"white": s, "black": s, "run": r}`:
//! seconds left on each side (DGT clocks show whole seconds), and `run`
//! `true` while White's clock runs, `false` while Black's runs, `null` or
//! absent when the clock is stopped.

use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use arbiter_chess::Color;
use futures_util::{SinkExt as _, StreamExt as _};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::reading::{ClockShown, DeviceClock, Placement, Reading, Timed};
use super::{NoSuchBoard, Unreachable};

/// The id the bridge gives its `eboardevent` subscription (one per
/// connection).
const FEED_ID: u64 = 1;

/// How long LiveChess has to answer a call.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A board as LiveChess lists it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct EBoard {
    /// The board's serial number, as LiveChess writes it.
    #[serde(deserialize_with = "string_or_number")]
    pub serialnr: String,
    /// `ACTIVE`, `INACTIVE`, `NOTRESPONDING` or `DELAYED`.
    #[serde(default)]
    pub state: String,
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!("a serial number, not {other}"))),
    }
}

/// One message from LiveChess.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// The answer to a call (`eboards`, `subscribe`, `call`), by its id.
    Answer { id: u64, param: Value },
    /// A call refused, by its id.
    Refused { id: u64, message: String },
    /// A message of a feed the bridge subscribed to.
    Feed { id: u64, event: BoardEvent },
    /// Anything else (other feeds, newer kinds of messages): ignored.
    Other,
}

/// One `eboardevent`: what the board and its clock show now.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardEvent {
    pub serialnr: Option<String>,
    /// The placement, when the message carries one.
    pub board: Option<Placement>,
    /// The clock, when the message carries one.
    pub clock: Option<ClockShown>,
}

/// Reads one text message of LiveChess.
///
/// # Errors
/// Text that is not JSON, or a feed message whose `board` is not a placement.
pub fn parse(text: &str) -> anyhow::Result<Incoming> {
    let v: Value = serde_json::from_str(text)
        .with_context(|| format!("LiveChess sent something not JSON: {text:.200}"))?;
    let id = v.get("id").and_then(id_of);
    let kind = v.get("response").and_then(Value::as_str).unwrap_or_default();
    let param = v.get("param").cloned().unwrap_or(Value::Null);
    Ok(match (kind, id) {
        ("call", Some(id)) => Incoming::Answer { id, param },
        ("error", Some(id)) => Incoming::Refused {
            id,
            message: match &param {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        },
        ("feed", Some(id)) => Incoming::Feed { id, event: board_event(&param)? },
        _ => Incoming::Other,
    })
}

/// LiveChess writes ids as numbers; accept their text too.
fn id_of(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

fn board_event(param: &Value) -> anyhow::Result<BoardEvent> {
    let serialnr = param.get("serialnr").and_then(|s| match s {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let board = match param.get("board").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => Some(
            Placement::from_fen(text)
                .map_err(|e| anyhow!("LiveChess sent a board that is not a placement: {e}"))?,
        ),
        _ => None,
    };
    let clock = param.get("clock").and_then(clock_of);
    Ok(BoardEvent { serialnr, board, clock })
}

fn clock_of(c: &Value) -> Option<ClockShown> {
    let seconds = |side: &str| c.get(side).and_then(Value::as_f64).filter(|s| s.is_finite() && *s >= 0.0);
    let (white, black) = (seconds("white")?, seconds("black")?);
    let running = match c.get("run") {
        Some(Value::Bool(true)) => Some(Color::White),
        Some(Value::Bool(false)) => Some(Color::Black),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("white") => Some(Color::White),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("black") => Some(Color::Black),
        _ => None,
    };
    #[allow(clippy::cast_possible_truncation)]
    let ms = |s: f64| (s * 1000.0).round().min(i64::MAX as f64) as i64;
    Some(ClockShown { white_ms: ms(white), black_ms: ms(black), running })
}

/// The readings of a feed message not already given: the board when it
/// changed, the clock when it changed.
#[derive(Debug, Default)]
pub struct FeedReader {
    board: Option<Placement>,
    clock: Option<ClockShown>,
}

impl FeedReader {
    /// The new readings of `event`.
    pub fn read(&mut self, event: &BoardEvent) -> Vec<Reading> {
        let mut out = Vec::new();
        if let Some(board) = event.board
            && self.board != Some(board)
        {
            self.board = Some(board);
            out.push(Reading::Placement(board));
        }
        if let Some(clock) = event.clock
            && self.clock != Some(clock)
        {
            self.clock = Some(clock);
            out.push(Reading::Clock(clock));
        }
        out
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A connection to LiveChess.
#[derive(Debug)]
pub struct LiveChess {
    socket: Socket,
    next_id: u64,
    /// Feed messages that arrived while waiting for an answer.
    early: Vec<BoardEvent>,
}

impl LiveChess {
    /// Connects to LiveChess at `url` (`ws://127.0.0.1:1982`; the path
    /// `/api/v1.0` is added when the URL has none).
    ///
    /// # Errors
    /// A URL that is not `ws://`, or LiveChess cannot be reached.
    pub async fn connect(url: &str) -> anyhow::Result<LiveChess> {
        let url = api_url(url)?;
        let (socket, _) = tokio::time::timeout(CALL_TIMEOUT, tokio_tungstenite::connect_async(url.as_str()))
            .await
            .map_err(|_| anyhow!("LiveChess at {url} did not answer within {} s", CALL_TIMEOUT.as_secs()))?
            .with_context(|| format!("cannot connect to LiveChess at {url}"))?;
        Ok(LiveChess { socket, next_id: 1, early: Vec::new() })
    }

    async fn send(&mut self, message: Value) -> anyhow::Result<()> {
        self.socket.send(Message::text(message.to_string())).await.context("cannot write to LiveChess")
    }

    /// The next message of LiveChess (`None`: the connection closed).
    async fn receive(&mut self) -> anyhow::Result<Option<Incoming>> {
        while let Some(message) = self.socket.next().await {
            match message.context("the connection to LiveChess failed")? {
                Message::Text(text) => return parse(text.as_str()).map(Some),
                Message::Close(_) => return Ok(None),
                // Pings are answered by tungstenite; nothing else is JSON.
                _ => {}
            }
        }
        Ok(None)
    }

    /// Makes a call and waits for its answer; feed messages meanwhile are
    /// kept for [`LiveChess::next_event`].
    async fn call(&mut self, message: impl FnOnce(u64) -> Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(message(id)).await?;
        let wait = async {
            loop {
                match self.receive().await? {
                    None => bail!("LiveChess closed the connection"),
                    Some(Incoming::Answer { id: got, param }) if got == id => return Ok(param),
                    Some(Incoming::Refused { id: got, message }) if got == id => {
                        bail!("LiveChess refused the call: {message}")
                    }
                    Some(Incoming::Feed { id: FEED_ID, event }) => self.early.push(event),
                    Some(_) => {}
                }
            }
        };
        tokio::time::timeout(CALL_TIMEOUT, wait)
            .await
            .map_err(|_| anyhow!("LiveChess did not answer within {} s", CALL_TIMEOUT.as_secs()))?
    }

    /// The boards LiveChess sees.
    ///
    /// # Errors
    /// The call failed, or its answer is not a list of boards.
    pub async fn eboards(&mut self) -> anyhow::Result<Vec<EBoard>> {
        let param = self.call(|id| json!({ "id": id, "call": "eboards" })).await?;
        serde_json::from_value(param).context("LiveChess's list of boards is not a list of boards")
    }

    /// Subscribes to the `eboardevent` feed of the board `serialnr`.
    ///
    /// # Errors
    /// The call failed.
    pub async fn subscribe(&mut self, serialnr: &str) -> anyhow::Result<()> {
        self.call(|id| {
            json!({
                "id": id,
                "call": "subscribe",
                "param": { "feed": "eboardevent", "id": FEED_ID, "param": { "serialnr": serialnr } },
            })
        })
        .await
        .map(drop)
    }

    /// Sends `setup`: the game is in the position `fen` (a whole FEN). The
    /// answer is not waited for (feed messages keep coming meanwhile); a
    /// refusal arrives as [`Incoming::Refused`] and is reported then.
    ///
    /// # Errors
    /// The connection failed.
    pub async fn setup(&mut self, fen: &str) -> anyhow::Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({
            "id": id,
            "call": "call",
            "param": { "id": FEED_ID, "method": "setup", "param": { "fen": fen } },
        }))
        .await
    }

    /// The next event of the subscribed board (`None`: the connection
    /// closed).
    ///
    /// # Errors
    /// The connection failed or LiveChess sent something unreadable.
    pub async fn next_event(&mut self) -> anyhow::Result<Option<BoardEvent>> {
        if !self.early.is_empty() {
            return Ok(Some(self.early.remove(0)));
        }
        loop {
            match self.receive().await? {
                None => return Ok(None),
                Some(Incoming::Feed { id: FEED_ID, event }) => return Ok(Some(event)),
                Some(Incoming::Refused { message, .. }) => {
                    eprintln!("arbiter: LiveChess refused a setup: {message}")
                }
                Some(_) => {}
            }
        }
    }
}

/// `ws://host:port` with the API's path when none is given.
fn api_url(url: &str) -> anyhow::Result<String> {
    let url = url.trim();
    let Some(rest) = url.strip_prefix("ws://") else {
        bail!(
            "{url:?}: LiveChess's address is ws://host:port (it serves plain WebSocket on the local machine)"
        );
    };
    if rest.is_empty() || rest.starts_with('/') {
        bail!("{url:?}: no host");
    }
    Ok(if rest.contains('/') { url.to_string() } else { format!("{url}/api/v1.0") })
}

/// Chooses the board: the one named, or the only one there is.
///
/// # Errors
/// The named board is not listed, or none is named and LiveChess sees
/// none or several.
pub fn choose(boards: &[EBoard], serial: Option<&str>) -> anyhow::Result<EBoard> {
    let listed = || {
        if boards.is_empty() {
            "LiveChess sees no board".to_string()
        } else {
            let names: Vec<String> = boards.iter().map(|b| format!("{} ({})", b.serialnr, b.state)).collect();
            format!("LiveChess sees {}", names.join(", "))
        }
    };
    match serial {
        Some(s) => boards
            .iter()
            .find(|b| b.serialnr == s)
            .cloned()
            .ok_or_else(|| anyhow!("no board with serial number {s}: {}", listed())),
        None => match boards {
            [one] => Ok(one.clone()),
            _ => bail!("{}: name one with --serial", listed()),
        },
    }
}

/// Connects to LiveChess at `url`, chooses the board (`serial`, or the only
/// one) and subscribes to its events.
///
/// # Errors
/// LiveChess cannot be reached, or the board cannot be chosen.
pub async fn open(url: &str, serial: Option<&str>) -> anyhow::Result<(LiveChess, EBoard)> {
    let mut live = LiveChess::connect(url).await.map_err(Unreachable)?;
    let boards = live.eboards().await.map_err(Unreachable)?;
    let board = choose(&boards, serial).map_err(NoSuchBoard)?;
    live.subscribe(&board.serialnr).await.map_err(Unreachable)?;
    Ok((live, board))
}

/// Runs the LiveChess side of the bridge on the connection `first` (from
/// [`open`]): sends the board's readings, stamped by `clock`, to `readings`,
/// and pushes each FEN received on `setups` with `setup`. A lost connection
/// is made again to the same board (its state comes again on subscribing);
/// it returns when `readings` or `setups` closes.
pub async fn run(
    url: String,
    first: (LiveChess, EBoard),
    clock: DeviceClock,
    readings: mpsc::Sender<Timed>,
    mut setups: mpsc::Receiver<String>,
    announce: mpsc::Sender<String>,
) {
    let (mut live, board) = first;
    let serial = board.serialnr.clone();
    let mut failures = 0u32;
    // The last position pushed, pushed again on a new connection (a
    // LiveChess restarted forgets it).
    let mut pushed: Option<String> = None;
    let say = |text: String| {
        let announce = announce.clone();
        async move {
            let _ = announce.send(text).await;
        }
    };
    let state = |b: &EBoard| match b.state.as_str() {
        "" => String::new(),
        s @ ("NOTRESPONDING" | "DELAYED") => format!(" ({s}: check its cable or Bluetooth link)"),
        s => format!(" ({s})"),
    };
    say(format!("LiveChess: reading board {}{}", board.serialnr, state(&board))).await;
    // Kept across connections: the state a new subscription sends again is
    // not a new reading unless it changed meanwhile.
    let mut feed = FeedReader::default();
    loop {
        loop {
            tokio::select! {
                event = live.next_event() => match event {
                    Ok(Some(event)) => {
                        if event.serialnr.as_deref().is_some_and(|s| s != serial) {
                            continue;
                        }
                        for reading in feed.read(&event) {
                            let timed = Timed { reading, device_time_ms: clock.now_ms() };
                            if readings.send(timed).await.is_err() {
                                return;
                            }
                        }
                    }
                    Ok(None) => {
                        say("LiveChess closed the connection; connecting again".into()).await;
                        break;
                    }
                    Err(e) => {
                        say(format!("LiveChess: {e:#}; connecting again")).await;
                        break;
                    }
                },
                fen = setups.recv() => match fen {
                    Some(fen) => {
                        let sent = live.setup(&fen).await;
                        pushed = Some(fen);
                        if let Err(e) = sent {
                            say(format!("LiveChess: {e:#}; connecting again")).await;
                            break;
                        }
                    }
                    None => return,
                },
                () = readings.closed() => return,
            }
        }
        // Connect again, to the same board, until it works or the bridge
        // stops.
        loop {
            failures += 1;
            tokio::select! {
                () = tokio::time::sleep(backoff(failures)) => {}
                () = readings.closed() => return,
            }
            match open(&url, Some(&serial)).await {
                Ok((again, b)) => {
                    live = again;
                    failures = 0;
                    say(format!("LiveChess: reading board {}{} again", b.serialnr, state(&b))).await;
                    if let Some(fen) = &pushed
                        && let Err(e) = live.setup(fen).await
                    {
                        say(format!("LiveChess: {e:#}")).await;
                    }
                    break;
                }
                Err(e) => say(format!("LiveChess: {e:#}; trying again")).await,
            }
        }
    }
}

/// The wait after `failures` failed attempts to reach LiveChess: 250 ms
/// doubling to 5 s, with jitter (the client's retry policy).
fn backoff(failures: u32) -> Duration {
    arbiter_client::RetryPolicy {
        attempts: u32::MAX,
        initial_backoff: Duration::from_millis(250),
        max_backoff: Duration::from_secs(5),
    }
    .backoff(failures.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn the_board_list_is_read() {
        let m = parse(
            r#"{"response":"call","id":1,"param":[{"serialnr":"24958","source":"COM3","state":"ACTIVE"},
               {"serialnr":31001,"state":"NOTRESPONDING"}],"time":1600000000000}"#,
        )
        .unwrap();
        let Incoming::Answer { id: 1, param } = m else { panic!("{m:?}") };
        let boards: Vec<EBoard> = serde_json::from_value(param).unwrap();
        assert_eq!(
            boards,
            vec![
                EBoard { serialnr: "24958".into(), state: "ACTIVE".into() },
                EBoard { serialnr: "31001".into(), state: "NOTRESPONDING".into() },
            ]
        );
    }

    #[test]
    fn a_feed_message_gives_the_board_and_the_clock() {
        let m = parse(&format!(
            r#"{{"response":"feed","id":1,"param":{{"serialnr":"24958","flipped":false,"board":"{START}",
                "clock":{{"white":5400,"black":5398.5,"run":false}},"san":["e4","e5"]}}}}"#
        ))
        .unwrap();
        let Incoming::Feed { id: 1, event } = m else { panic!("{m:?}") };
        assert_eq!(event.serialnr.as_deref(), Some("24958"));
        assert_eq!(event.board.unwrap().fen(), START);
        assert_eq!(
            event.clock,
            Some(ClockShown { white_ms: 5_400_000, black_ms: 5_398_500, running: Some(Color::Black) })
        );
        // A stopped clock; no board in the message.
        let m = parse(r#"{"response":"feed","id":1,"param":{"clock":{"white":60,"black":61,"run":null}}}"#)
            .unwrap();
        let Incoming::Feed { event, .. } = m else { panic!("{m:?}") };
        assert_eq!(event.board, None);
        assert_eq!(event.clock, Some(ClockShown { white_ms: 60_000, black_ms: 61_000, running: None }));
    }

    #[test]
    fn bad_messages_are_errors_or_ignored() {
        assert!(parse("not json").is_err());
        assert!(parse(r#"{"response":"feed","id":1,"param":{"board":"rnbqkbnr/8"}}"#).is_err());
        assert_eq!(parse(r#"{"response":"feed","param":{}}"#).unwrap(), Incoming::Other);
        assert_eq!(parse(r#"{"hello":"world"}"#).unwrap(), Incoming::Other);
        let refused = parse(r#"{"response":"error","id":"3","param":"no such feed"}"#).unwrap();
        assert_eq!(refused, Incoming::Refused { id: 3, message: "no such feed".into() });
        // A clock without both sides is no reading.
        let m = parse(r#"{"response":"feed","id":1,"param":{"clock":{"white":60}}}"#).unwrap();
        let Incoming::Feed { event, .. } = m else { panic!("{m:?}") };
        assert_eq!(event.clock, None);
    }

    #[test]
    fn the_feed_reader_gives_only_what_changed() {
        let start = Placement::from_fen(START).unwrap();
        let clock = ClockShown { white_ms: 60_000, black_ms: 60_000, running: Some(Color::White) };
        let mut reader = FeedReader::default();
        let event = BoardEvent { serialnr: None, board: Some(start), clock: Some(clock) };
        assert_eq!(reader.read(&event), vec![Reading::Placement(start), Reading::Clock(clock)]);
        assert_eq!(reader.read(&event), vec![]);
        let later = ClockShown { white_ms: 59_000, ..clock };
        assert_eq!(
            reader.read(&BoardEvent { clock: Some(later), ..event.clone() }),
            vec![Reading::Clock(later)]
        );
    }

    #[test]
    fn boards_are_chosen_by_serial_or_when_alone() {
        let a = EBoard { serialnr: "1".into(), state: "ACTIVE".into() };
        let b = EBoard { serialnr: "2".into(), state: "INACTIVE".into() };
        assert_eq!(choose(std::slice::from_ref(&a), None).unwrap(), a);
        assert_eq!(choose(&[a.clone(), b.clone()], Some("2")).unwrap(), b);
        let e = choose(&[a.clone(), b], None).unwrap_err().to_string();
        assert!(e.contains("1 (ACTIVE), 2 (INACTIVE)") && e.contains("--serial"), "{e}");
        let e = choose(&[a], Some("9")).unwrap_err().to_string();
        assert!(e.contains("no board with serial number 9"), "{e}");
        assert!(choose(&[], None).unwrap_err().to_string().contains("no board"));
    }

    #[test]
    fn livechess_addresses() {
        assert_eq!(api_url("ws://127.0.0.1:1982").unwrap(), "ws://127.0.0.1:1982/api/v1.0");
        assert_eq!(api_url("ws://host:1/x").unwrap(), "ws://host:1/x");
        assert!(api_url("http://127.0.0.1:1982").is_err());
        assert!(api_url("ws://").is_err());
    }
}
