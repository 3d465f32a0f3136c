//! A simulated DGT LiveChess for the tests of `arbiter board connect`: a
//! WebSocket server on `127.0.0.1:0` that speaks LiveChess's JSON
//! (field-anchors-2 §1.1): it lists its boards (`eboards`), serves the
//! `eboardevent` feed of a board to subscribers, and records every `setup`.
//!
//! The test plays the hands: [`LiveChess::set_board`] puts a placement on a
//! board (a lift is a placement with the piece gone) and
//! [`LiveChess::set_clock`] sets its clock; each change goes to the
//! subscribers as one feed message, as LiveChess sends them. The current
//! state is sent at once to a new subscriber.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, watch};
use tokio_tungstenite::tungstenite::Message;

/// The starting placement.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// A clock as the feed shows it: seconds left, and whose clock runs
/// (`Some(true)` White's, `Some(false)` Black's, `None` stopped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub white_s: f64,
    pub black_s: f64,
    pub run: Option<bool>,
}

#[derive(Clone, Debug)]
struct Board {
    state: String,
    placement: String,
    clock: Option<Clock>,
}

#[derive(Debug, Default)]
struct State {
    boards: Vec<(String, Board)>,
    /// Every `setup` received: the board's serial number and the FEN.
    setups: Vec<(String, String)>,
    /// Every text message received, in order.
    received: Vec<Value>,
    subscriptions: usize,
}

/// A running simulated LiveChess. Dropping it stops the server and closes
/// its connections.
#[derive(Debug)]
pub struct LiveChess {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    /// A board changed: its serial number.
    changes: broadcast::Sender<String>,
    /// Counts up when the test cuts every connection.
    cut: watch::Sender<u64>,
    /// Counts up on every subscription and setup (for waiting on them).
    activity: watch::Sender<u64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for LiveChess {
    fn drop(&mut self) {
        self.task.abort();
        self.cut.send_modify(|c| *c += 1);
    }
}

impl LiveChess {
    /// Starts a LiveChess that sees the boards `serials`, each `ACTIVE`, in
    /// the starting position, with no clock.
    pub async fn start(serials: &[&str]) -> LiveChess {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind LiveChess");
        let addr = listener.local_addr().expect("address");
        let state = Arc::new(Mutex::new(State {
            boards: serials
                .iter()
                .map(|s| {
                    ((*s).to_owned(), Board { state: "ACTIVE".into(), placement: START.into(), clock: None })
                })
                .collect(),
            ..State::default()
        }));
        let (changes, _) = broadcast::channel(1024);
        let (cut, _) = watch::channel(0);
        let (activity, _) = watch::channel(0);
        let server = Server {
            state: state.clone(),
            changes: changes.clone(),
            cut: cut.subscribe(),
            activity: activity.clone(),
        };
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(server.clone().serve(stream));
            }
        });
        LiveChess { addr, state, changes, cut, activity, task }
    }

    /// `ws://127.0.0.1:<port>`, as given to `--livechess`.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// A hand changed the board `serial`: it now shows `placement`.
    pub fn set_board(&self, serial: &str, placement: &str) {
        self.change(serial, |b| b.placement = placement.to_owned());
    }

    /// The clock of board `serial` now shows this.
    pub fn set_clock(&self, serial: &str, clock: Clock) {
        self.change(serial, |b| b.clock = Some(clock));
    }

    /// The state LiveChess gives the board (`NOTRESPONDING`...).
    pub fn set_state(&self, serial: &str, state: &str) {
        let mut s = self.state.lock().expect("state");
        if let Some((_, b)) = s.boards.iter_mut().find(|(n, _)| n == serial) {
            b.state = state.to_owned();
        }
    }

    fn change(&self, serial: &str, f: impl FnOnce(&mut Board)) {
        {
            let mut s = self.state.lock().expect("state");
            let (_, board) =
                s.boards.iter_mut().find(|(n, _)| n == serial).expect("a board of this LiveChess");
            f(board);
        }
        let _ = self.changes.send(serial.to_owned());
    }

    /// Every `setup` received so far: the board's serial number and the FEN.
    pub fn setups(&self) -> Vec<(String, String)> {
        self.state.lock().expect("state").setups.clone()
    }

    /// Every message received so far, as JSON.
    pub fn received(&self) -> Vec<Value> {
        self.state.lock().expect("state").received.clone()
    }

    /// How many `eboardevent` subscriptions were made so far.
    pub fn subscriptions(&self) -> usize {
        self.state.lock().expect("state").subscriptions
    }

    /// Closes every open connection (LiveChess restarted); new ones are
    /// accepted.
    pub fn cut_connections(&self) {
        self.cut.send_modify(|c| *c += 1);
    }

    /// Waits until `ready` holds of this LiveChess, checked after every
    /// subscription and setup.
    ///
    /// # Panics
    /// After `timeout`, with `what` in the message.
    pub async fn wait_for(&self, what: &str, timeout: Duration, ready: impl Fn(&LiveChess) -> bool) {
        let mut activity = self.activity.subscribe();
        let wait = async {
            while !ready(self) {
                if activity.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        if tokio::time::timeout(timeout, wait).await.is_err() {
            panic!("LiveChess: {what} did not happen within {timeout:?}; received {:#?}", self.received());
        }
    }
}

#[derive(Clone)]
struct Server {
    state: Arc<Mutex<State>>,
    changes: broadcast::Sender<String>,
    cut: watch::Receiver<u64>,
    activity: watch::Sender<u64>,
}

impl Server {
    fn feed_message(&self, feed_id: &Value, serial: &str) -> Option<Message> {
        let s = self.state.lock().expect("state");
        let (_, board) = s.boards.iter().find(|(n, _)| n == serial)?;
        let mut param = json!({ "serialnr": serial, "flipped": false, "board": board.placement, "san": [] });
        if let Some(c) = board.clock {
            param["clock"] = json!({ "white": c.white_s, "black": c.black_s, "run": c.run });
        }
        Some(Message::text(json!({ "response": "feed", "id": feed_id, "param": param }).to_string()))
    }

    async fn serve(self, stream: TcpStream) {
        let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else { return };
        let mut changes = self.changes.subscribe();
        let mut cut = self.cut.clone();
        cut.mark_unchanged();
        // The subscriptions of this connection: feed id → serial number.
        let mut feeds: HashMap<String, (Value, String)> = HashMap::new();
        loop {
            tokio::select! {
                _ = cut.changed() => {
                    let _ = ws.close(None).await;
                    return;
                }
                changed = changes.recv() => {
                    let Ok(serial) = changed else { continue };
                    for (id, s) in feeds.values() {
                        if *s == serial
                            && let Some(m) = self.feed_message(id, s)
                            && ws.send(m).await.is_err()
                        {
                            return;
                        }
                    }
                }
                message = ws.next() => {
                    let text = match message {
                        Some(Ok(Message::Text(t))) => t.to_string(),
                        Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                        Some(Ok(_)) => continue,
                    };
                    for answer in self.answer(&text, &mut feeds) {
                        if ws.send(answer).await.is_err() {
                            return;
                        }
                    }
                    self.activity.send_modify(|a| *a += 1);
                }
            }
        }
    }

    fn answer(&self, text: &str, feeds: &mut HashMap<String, (Value, String)>) -> Vec<Message> {
        let reply = |v: Value| Message::text(v.to_string());
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return vec![reply(json!({ "response": "error", "id": null, "param": "not JSON" }))];
        };
        self.state.lock().expect("state").received.push(v.clone());
        let id = v.get("id").cloned().unwrap_or(Value::Null);
        let error = |message: &str| vec![reply(json!({ "response": "error", "id": id, "param": message }))];
        match v.get("call").and_then(Value::as_str) {
            Some("eboards") => {
                let s = self.state.lock().expect("state");
                let list: Vec<Value> = s
                    .boards
                    .iter()
                    .map(|(n, b)| json!({ "serialnr": n, "source": "COM3", "state": b.state, "battery": null }))
                    .collect();
                vec![reply(json!({ "response": "call", "id": id, "param": list }))]
            }
            Some("subscribe") => {
                let param = v.get("param").cloned().unwrap_or(Value::Null);
                let feed = param.get("feed").and_then(Value::as_str);
                let feed_id = param.get("id").cloned().unwrap_or(Value::Null);
                let serial =
                    param.pointer("/param/serialnr").and_then(Value::as_str).unwrap_or_default().to_owned();
                if feed != Some("eboardevent") {
                    return error("unknown feed");
                }
                if !self.state.lock().expect("state").boards.iter().any(|(n, _)| *n == serial) {
                    return error("unknown board");
                }
                self.state.lock().expect("state").subscriptions += 1;
                feeds.insert(feed_id.to_string(), (feed_id.clone(), serial.clone()));
                let mut out = vec![reply(json!({ "response": "call", "id": id, "param": null }))];
                out.extend(self.feed_message(&feed_id, &serial));
                out
            }
            Some("call") => {
                let param = v.get("param").cloned().unwrap_or(Value::Null);
                let feed_id = param.get("id").cloned().unwrap_or(Value::Null).to_string();
                let Some((_, serial)) = feeds.get(&feed_id) else { return error("no such feed") };
                match (
                    param.get("method").and_then(Value::as_str),
                    param.pointer("/param/fen").and_then(Value::as_str),
                ) {
                    (Some("setup"), Some(fen)) => {
                        self.state.lock().expect("state").setups.push((serial.clone(), fen.to_owned()));
                        vec![reply(json!({ "response": "call", "id": id, "param": true }))]
                    }
                    _ => error("unknown method"),
                }
            }
            _ => error("unknown call"),
        }
    }
}
