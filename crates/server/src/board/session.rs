//! One ConnectBoard stream: from its hello to its end.
//!
//! For each report of the board, in order: the sequence number is checked
//! against the last one kept for the device (the same number again is a
//! `DUPLICATE`, an older one `OUT_OF_ORDER`: neither is kept nor applied),
//! the report is kept in `board_observations` **before** anything is
//! answered or applied, and then fed to the reader. A timer runs the
//! reader's settle deadlines, mapping the device's clock to the service's
//! monotonic clock from the arrival of the last observation.
//!
//! Every act the reader infers goes to the game's table like any act, with
//! a request id derived from the device and the instant (device time) the
//! reader ruled it, and the number of the act among those ruled at that
//! instant, in the board caller's scope: the reader rules an act at an
//! instant fixed by the placement that completed it (its settle time
//! after), whether the timer or the next observation found it due, so the
//! same act always gets the same id, and a table that already recorded it
//! answers with the recorded event instead of recording it again. A clock
//! press is numbered by its report.
//!
//! **The game stands over the board.** After every recorded event (the
//! board's own acts, an arbiter's reinstatement, a move entered by another
//! way) the reader follows the game's position; a board that then shows
//! something else is out of sync: it is sent the corrections, square by
//! square, whenever they change, until it shows the game again, and the
//! arbiter sees `in_sync: false` in `Game.board`.
//!
//! **Resume.** A stream (after a reconnect or a restart of the service)
//! starts its reader at the game's position as recorded, and shows it the
//! board as last kept: the device's kept reports are replayed through a
//! reader of their own only to know what the board shows. An act that was
//! kept but never recorded (the service died in between) is the board
//! showing the position after it: it is inferred again, after its settle
//! time, and recorded once; an act already recorded is in the game's
//! position, so nothing is inferred twice.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_board::{
    BoardReader, Correction, DeviceTime, IllegalAttempt, Inference, InferredMove, Observation,
    ObservationKind, Placement, SquareState, TouchEvidence, TouchKind,
};
use arbiter_chess::{Color, FenOptions, MoveKind, Position, Strictness};
use arbiter_laws::event::{Event, SensedTouch};
use arbiter_laws::regulations::ClockAuthority;
use arbiter_proto::v1 as pb;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use super::{Boards, ClockReport, Hello, Incoming, Report, Seen, Sent, placement_text};
use crate::api::{board as wire, to_proto};
use crate::auth::{Principal, Role};
use crate::error::{ApiError, observation_refusal};
use crate::event_log::board::{BOARD_FORMAT, decode_report, encode_report};
use crate::hall::Hall;
use crate::request::{self, Caller, Stamped};
use crate::store::{EventStore, ObservationRow};
use crate::table::{Act, Recorded, TableHandle, wall_ms};
use crate::view::{GameReading, LoggedEvent};

/// How long a stream may take to send its hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// Reports read per storage page when a stream resumes.
const RESUME_PAGE: u32 = 1000;
/// The actor recorded with the acts inferred from a board.
const ACTOR: &str = "board";
/// The request method of the acts a board's stream records (their request
/// scope is the board caller's and this method).
const METHOD: &str = "connect_board";
/// Clock drift tolerated: a DGT clock shows whole seconds, so its reading
/// may be up to a second off the service's without anyone being wrong.
const DRIFT_BOUND_MS: i64 = 1_000;
/// Tolerated on top while the board's clock is stopped: a stopped DGT clock
/// lags about 2 s behind the time it shows.
const STOPPED_LAG_MS: i64 = 2_000;

type Outbound = mpsc::Sender<Result<pb::ConnectBoardResponse, Status>>;

/// What a stream needs of the service.
#[derive(Debug)]
pub struct Context<'a> {
    pub hall: &'a Arc<Hall>,
    pub boards: &'a Arc<Boards>,
    pub shutdown: &'a CancellationToken,
}

/// Opens a stream: the caller is authenticated, the hello read and checked,
/// the board claimed for the game and its reading rebuilt; the answer
/// starts with `BoardAccepted`.
///
/// # Errors
/// INVALID_ARGUMENT for a missing or malformed hello, PERMISSION_DENIED for
/// a role that may not connect a board or a service token on a game it did
/// not create, NOT_FOUND, FAILED_PRECONDITION (`BOARD_CONNECTED`) while
/// another board reads the game, UNAVAILABLE if storage fails.
pub async fn open(
    cx: Context<'_>,
    principal: Principal,
    caller: &crate::auth::CallerId,
    mut inbound: tonic::Streaming<pb::ConnectBoardRequest>,
) -> Result<ReceiverStream<Result<pb::ConnectBoardResponse, Status>>, ApiError> {
    principal.require(&[Role::Arbiter, Role::Service], "ConnectBoard")?;
    let first = match tokio::time::timeout(HELLO_TIMEOUT, inbound.message()).await {
        Ok(Ok(Some(m))) => m,
        Ok(Ok(None)) | Err(_) => {
            return Err(ApiError::field("hello", "the first message of a stream must be a BoardHello"));
        }
        Ok(Err(status)) => return Err(ApiError::Malformed(status.message().to_owned())),
    };
    let Some(pb::connect_board_request::Item::Hello(h)) = &first.item else {
        return Err(ApiError::field("hello", "the first message of a stream must be a BoardHello"));
    };
    let hello = wire::hello(h).map_err(ApiError::InvalidArgument)?;
    let store = cx.hall.store().clone();
    let row = store
        .game(&hello.game_id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("games/{}", hello.game_id)))?;
    if principal == Principal::Role(Role::Service) && row.creator.as_deref() != Some(caller.as_str()) {
        return Err(ApiError::PermissionDenied(
            "a service token may connect a board only to the games it created; an arbiter token to any"
                .into(),
        ));
    }
    let table = cx.hall.seize(&hello.game_id).await?;
    // Subscribed before the game is read, so no event falls between.
    let live = table.subscribe();
    let reading = table.read().await?;
    let resumed = resume(&store, &hello, &reading).await?;
    let claim = cx.boards.claim(&hello.game_id, hello.device, &hello.label, resumed.last_seq)?;
    let (tx, rx) = mpsc::channel(64);
    let mut session = Session {
        hall: cx.hall.clone(),
        boards: cx.boards.clone(),
        stream: claim.stream,
        superseded: claim.superseded,
        shutdown: cx.shutdown.clone(),
        caller: Caller::of(&principal, caller),
        game_id: hello.game_id.clone(),
        online: reading.spec.regulations.mode.is_online(),
        chess960: reading.spec.regulations.chess960,
        hello,
        table,
        reader: resumed.reader,
        game_position: resumed.game_position,
        previous_position: resumed.game_position,
        last_event_seq: reading.last_seq,
        finished: !reading.status.is_open(),
        last_seq: resumed.last_seq,
        anchor: Some((resumed.last_time, Instant::now())),
        running: resumed.running,
        reason: String::from("the board does not show the game's position"),
        sent_belief: None,
        sent_corrections: (Vec::new(), String::new()),
        out_of_sync_counted: false,
        tx,
    };
    if session.finished {
        session.reader.finish();
    }
    let accepted = pb::BoardAccepted {
        game: Some(to_proto::game(&reading)),
        last_device_seq: session.last_seq,
        settle_ms: u32::try_from(session.hello.settings.settle.ms()).unwrap_or(u32::MAX),
    };
    session.send(pb::connect_board_response::Item::Accepted(accepted)).await;
    metrics::gauge!("arbiter_board_streams").increment(1.0);
    tokio::spawn(async move {
        session.report(session.last_seq).await;
        session.run(inbound, live).await;
        session.boards.release(&session.game_id, session.stream);
        if session.out_of_sync_counted {
            metrics::gauge!("arbiter_boards_out_of_sync").decrement(1.0);
        }
        metrics::gauge!("arbiter_board_streams").decrement(1.0);
    });
    Ok(ReceiverStream::new(rx))
}

/// A reader rebuilt for a stream, and where the device left off.
struct Resumed {
    reader: BoardReader,
    game_position: Position,
    last_seq: u64,
    last_time: DeviceTime,
    running: Option<Color>,
}

/// Rebuilds the reading of a board from the game as recorded and the
/// device's kept reports (see the module documentation).
async fn resume(
    store: &crate::store::Storage,
    hello: &Hello,
    reading: &GameReading,
) -> Result<Resumed, ApiError> {
    let regs = &reading.spec.regulations;
    let options = fen_options(regs.chess960);
    let game_position = Position::from_fen_with(&reading.view.fen, options)
        .map_err(|e| ApiError::Internal(format!("games/{}: position unreadable: {e}", reading.id)))?;
    let start = match &regs.start_fen {
        Some(fen) => Position::from_fen_with(fen, options).map_err(|e| {
            ApiError::Internal(format!("games/{}: start position unreadable: {e}", reading.id))
        })?,
        None => Position::startpos(),
    };
    // What the board shows: its kept reports replayed through a reader of
    // their own from the start (only its sensed placement is used).
    let mut shadow = BoardReader::new(hello.device, start, hello.settings);
    let device = i64::try_from(hello.device.0).unwrap_or(i64::MAX);
    let (mut last_seq, mut last_time, mut running, mut seen) = (0u64, DeviceTime(0), None, false);
    let mut after = 0i64;
    loop {
        let rows = store.observations(&reading.id, device, after, RESUME_PAGE).await?;
        let Some(last) = rows.last() else { break };
        after = last.device_seq;
        for row in &rows {
            let report = decode_report(row.format, &row.report_json).map_err(|e| {
                ApiError::stored(
                    format!("games/{}: board {} report {}", reading.id, hello.device, row.device_seq),
                    e,
                )
            })?;
            let seq = u64::try_from(row.device_seq).unwrap_or(0);
            let at = DeviceTime(u64::try_from(row.device_time_ms).unwrap_or(0));
            last_seq = seq;
            last_time = last_time.max(at);
            match report {
                Report::Squares(kind) => {
                    // Refusals are what they were live: only the placement
                    // the board ends up showing matters here.
                    let _ = shadow.observe(&Observation { device: hello.device, device_seq: seq, at, kind });
                    seen = true;
                }
                Report::Clock(c) => running = c.running,
            }
        }
        if rows.len() < RESUME_PAGE as usize {
            break;
        }
    }
    let mut reader = BoardReader::new(hello.device, game_position, hello.settings);
    if seen {
        // The board as last seen, shown to a reader of the game as recorded.
        let kind = ObservationKind::Placement(shadow.sensed());
        let _ =
            reader.observe(&Observation { device: hello.device, device_seq: last_seq, at: last_time, kind });
    }
    Ok(Resumed { reader, game_position, last_seq, last_time, running })
}

fn fen_options(chess960: bool) -> FenOptions {
    FenOptions { chess960, strictness: Strictness::Lenient }
}

struct Session {
    hall: Arc<Hall>,
    boards: Arc<Boards>,
    stream: u64,
    superseded: CancellationToken,
    shutdown: CancellationToken,
    caller: Caller,
    game_id: String,
    online: bool,
    chess960: bool,
    hello: Hello,
    table: TableHandle,
    reader: BoardReader,
    /// The game's position as last recorded.
    game_position: Position,
    /// The game's position before it last changed (a castling that revises
    /// a rook move was made in it).
    previous_position: Position,
    last_event_seq: i64,
    finished: bool,
    /// The last `device_seq` kept.
    last_seq: u64,
    /// The device time of the last observation and when it arrived.
    anchor: Option<(DeviceTime, Instant)>,
    /// Whose clock the board's last clock report showed running.
    running: Option<Color>,
    /// Why the board is out of sync, for the corrections.
    reason: String,
    sent_belief: Option<(String, bool)>,
    /// The corrections last sent, and why.
    sent_corrections: (Vec<Correction>, String),
    out_of_sync_counted: bool,
    tx: Outbound,
}

enum Flow {
    Continue,
    Stop,
}

impl Session {
    async fn send(&self, item: pb::connect_board_response::Item) -> Flow {
        match self.tx.send(Ok(pb::ConnectBoardResponse { item: Some(item) })).await {
            Ok(()) => Flow::Continue,
            Err(_) => Flow::Stop,
        }
    }

    async fn refuse(&self, device_seq: u64, reason: &str, message: String) {
        metrics::counter!("arbiter_board_refusals_total", "reason" => reason.to_owned()).increment(1);
        let refusal = pb::BoardRefusal { device_seq, reason: reason.to_owned(), message };
        self.send(pb::connect_board_response::Item::Refusal(refusal)).await;
    }

    /// When the reader's next settle deadline falls on the service's clock.
    fn wake_at(&self) -> Option<Instant> {
        let due = self.reader.deadline()?;
        let (device, arrived) = self.anchor?;
        Some(arrived + Duration::from_millis(due.since(device)))
    }

    /// Now on the device's clock, as mapped from the last arrival.
    fn device_now(&self) -> DeviceTime {
        match self.anchor {
            Some((device, arrived)) => {
                device.plus(u64::try_from(arrived.elapsed().as_millis()).unwrap_or(u64::MAX))
            }
            None => DeviceTime(0),
        }
    }

    async fn run(
        &mut self,
        mut inbound: tonic::Streaming<pb::ConnectBoardRequest>,
        mut live: broadcast::Receiver<Arc<Recorded>>,
    ) {
        loop {
            let wake = self.wake_at();
            let flow = tokio::select! {
                biased;
                () = self.superseded.cancelled() => {
                    let _ = self.tx.send(Err(ApiError::BoardConnected(format!(
                        "board {} connected to games/{} again on another stream, which reads it from now on",
                        self.hello.device, self.game_id
                    )).into())).await;
                    Flow::Stop
                }
                () = self.shutdown.cancelled() => {
                    let _ = self.tx.send(Err(Status::unavailable(
                        "the service is shutting down; reconnect and resend after BoardAccepted.last_device_seq",
                    ))).await;
                    Flow::Stop
                }
                received = live.recv() => match received {
                    Ok(recorded) => {
                        self.absorb(&recorded.event, recorded.finished);
                        self.follow_game();
                        self.report(self.last_seq).await;
                        Flow::Continue
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => self.reread().await,
                    Err(broadcast::error::RecvError::Closed) => match self.hall.seize(&self.game_id).await {
                        // The table was unloaded (a finished game left idle):
                        // listen to the one that serves the game now.
                        Ok(table) => {
                            live = table.subscribe();
                            self.table = table;
                            self.reread().await
                        }
                        Err(e) => self.fail(e).await,
                    },
                },
                message = inbound.message() => match message {
                    Ok(Some(m)) => match self.on_message(m).await {
                        Ok(()) => Flow::Continue,
                        Err(e) => self.fail(e).await,
                    },
                    Ok(None) | Err(_) => Flow::Stop,
                },
                () = sleep_until_opt(wake) => {
                    let inferred = self.reader.tick(self.device_now());
                    match self.infer(self.last_seq, inferred).await {
                        Ok(()) => {
                            self.report(self.last_seq).await;
                            Flow::Continue
                        }
                        Err(e) => self.fail(e).await,
                    }
                }
            };
            if matches!(flow, Flow::Stop) || self.tx.is_closed() {
                return;
            }
        }
    }

    /// Ends the stream with an error (storage down: the board reconnects
    /// and resends after the last number kept).
    async fn fail(&self, e: ApiError) -> Flow {
        if matches!(e, ApiError::Internal(_)) {
            tracing::error!(game = %self.game_id, device = %self.hello.device, error = %e, "board stream failed");
        }
        let _ = self.tx.send(Err(e.into())).await;
        Flow::Stop
    }

    /// Reads the game again (after a lag or a new table).
    async fn reread(&mut self) -> Flow {
        match self.table.read().await {
            Ok(reading) => {
                if let Ok(p) = Position::from_fen_with(&reading.view.fen, fen_options(self.chess960)) {
                    self.game_position = p;
                }
                self.last_event_seq = self.last_event_seq.max(reading.last_seq);
                self.finished = !reading.status.is_open();
                self.follow_game();
                self.report(self.last_seq).await;
                Flow::Continue
            }
            Err(e) => self.fail(e).await,
        }
    }

    async fn on_message(&mut self, m: pb::ConnectBoardRequest) -> Result<(), ApiError> {
        let incoming = match wire::incoming(&m, self.hello.settings.sensing) {
            Ok(incoming) => incoming,
            Err((seq, violations)) => {
                let message = ApiError::InvalidArgument(violations).to_string();
                self.refuse(seq, "INVALID_OBSERVATION", message).await;
                return Ok(());
            }
        };
        let Incoming { device_seq: seq, at, what } = incoming;
        if seq == self.last_seq {
            self.refuse(seq, "DUPLICATE", format!("report {seq} was already kept and applied")).await;
            return Ok(());
        }
        if seq < self.last_seq {
            let message =
                format!("report {seq} comes after report {} (numbers only increase)", self.last_seq);
            self.refuse(seq, "OUT_OF_ORDER", message).await;
            return Ok(());
        }
        if self.finished {
            self.refuse(
                seq,
                "GAME_FINISHED",
                format!("games/{} is finished; the board is no longer read", self.game_id),
            )
            .await;
            return Ok(());
        }
        let report = match what {
            Sent::Clock(c) => Report::Clock(c),
            Sent::Squares(Seen::Kind(kind)) => Report::Squares(kind),
            Sent::Squares(Seen::Changes(changes)) => Report::Squares(self.changed(&changes)),
        };
        let row = ObservationRow {
            game_id: self.game_id.clone(),
            device_id: i64::try_from(self.hello.device.0).unwrap_or(i64::MAX),
            device_seq: i64::try_from(seq).unwrap_or(i64::MAX),
            device_time_ms: i64::try_from(at.0).unwrap_or(i64::MAX),
            format: BOARD_FORMAT,
            report_json: encode_report(&report),
            received_wall_ms: wall_ms(),
        };
        if !self.hall.store().keep_observation(&row).await? {
            // Kept by another stream of the same device in the meantime.
            self.last_seq = self.last_seq.max(seq);
            self.refuse(seq, "DUPLICATE", format!("report {seq} was already kept and applied")).await;
            return Ok(());
        }
        metrics::counter!("arbiter_board_reports_total").increment(1);
        self.last_seq = seq;
        if self.anchor.is_none_or(|(t, _)| at >= t) {
            self.anchor = Some((at, Instant::now()));
        }
        match report {
            Report::Squares(kind) => {
                let observation = Observation { device: self.hello.device, device_seq: seq, at, kind };
                match self.reader.observe(&observation) {
                    Ok(inferred) => self.infer(seq, inferred).await?,
                    Err(e) => {
                        if matches!(e, arbiter_board::ObservationError::Impossible(_)) {
                            self.reason = format!("the board reported an impossible placement: {e}");
                        }
                        self.refuse(seq, observation_refusal(&e), e.to_string()).await;
                    }
                }
            }
            Report::Clock(c) => self.on_clock(seq, c).await?,
        }
        self.report(seq).await;
        Ok(())
    }

    /// A set of changed squares as one whole placement: the board as last
    /// seen with the changes made. A single change stays a change (a DGT
    /// field update: a piece lifted is evidence of a touch).
    fn changed(&self, changes: &[(arbiter_chess::Square, SquareState)]) -> ObservationKind {
        if let [(square, now)] = changes {
            return ObservationKind::SquareChanged { square: *square, now: *now };
        }
        match self.reader.sensed() {
            Placement::Pieces(mut board) => {
                for &(square, now) in changes {
                    board.remove(square);
                    if let SquareState::Piece(p) = now {
                        board.set(square, p);
                    }
                }
                ObservationKind::Placement(Placement::Pieces(board))
            }
            Placement::Occupancy(mut occupied) => {
                for &(square, now) in changes {
                    if now == SquareState::Empty {
                        occupied.remove(square);
                    } else {
                        occupied.add(square);
                    }
                }
                ObservationKind::Placement(Placement::Occupancy(occupied))
            }
        }
    }

    /// Records what the reader inferred, in order; a refusal of the Laws
    /// ends the batch (moves caught up after a refused one rest on it).
    async fn infer(&mut self, seq: u64, inferred: Vec<Inference>) -> Result<(), ApiError> {
        let mut at_instant: Option<(DeviceTime, usize)> = None;
        let mut number = |t: DeviceTime| match &mut at_instant {
            Some((last, n)) if *last == t => {
                *n += 1;
                *n
            }
            _ => {
                at_instant = Some((t, 0));
                0
            }
        };
        // The position each inferred move was made in: the reader's moves
        // since it last followed the game.
        let mut position = self.game_position;
        // Touches are numbered by the report that showed them.
        let mut touches = 0usize;
        for inference in inferred {
            match inference {
                Inference::Move(m) => {
                    let id =
                        format!("board-{}-t{}-{}", self.hello.device, m.settled_at.0, number(m.settled_at));
                    let made_in = if m.revises.is_some() { self.previous_position } else { position };
                    let recorded = self.record_move(seq, id, &made_in, &m).await?;
                    if !recorded {
                        if m.revises.is_some() {
                            // The rook was moved first: the Laws keep the
                            // rook move (4.4.2 makes it one, 4.7 keeps it
                            // made), and the king goes back.
                            self.reason =
                                "castling begun with the rook is a rook move (Article 4.4.2), made once \
                                           the rook was released (Article 4.7): it stands; put the king back"
                                    .into();
                        }
                        break;
                    }
                    position = made_in.after(m.mv);
                }
                Inference::IllegalMove(a) => {
                    let id =
                        format!("board-{}-t{}-{}", self.hello.device, a.settled_at.0, number(a.settled_at));
                    self.record_illegal(seq, id, &a).await?;
                    break;
                }
                Inference::Touch(t) => {
                    let id = format!("board-{}-e{seq}-{}", self.hello.device, touches);
                    touches += 1;
                    self.touched(seq, id, &t).await?;
                }
                Inference::TakeBack { to_ply, .. } => {
                    self.reason = format!(
                        "the board went back to an earlier position (ply {to_ply}); the game stands: put the \
                         board back to the game's position"
                    );
                    self.tell(seq, "the board shows an earlier position: the game stands".into(), None).await;
                }
                Inference::Unknown { .. } => {
                    self.reason = "the board shows a placement no legal play explains".into();
                }
                Inference::PromotionPending { to, .. } => {
                    let summary = format!("the pawn on {to} waits for its promotion piece");
                    self.tell(seq, summary, None).await;
                }
                Inference::Restored { .. } => {}
            }
        }
        self.follow_game();
        Ok(())
    }

    async fn tell(&self, seq: u64, summary: String, event: Option<pb::GameEvent>) {
        let act = pb::BoardAct { device_seq: seq, summary, event };
        self.send(pb::connect_board_response::Item::Act(act)).await;
    }

    /// A move inferred: made over the board, submitted online. `true` if
    /// the Laws recorded it.
    async fn record_move(
        &mut self,
        seq: u64,
        id: String,
        made_in: &Position,
        m: &InferredMove,
    ) -> Result<bool, ApiError> {
        let color = made_in.turn();
        let text = made_in.uci(m.mv).to_string();
        let castle = matches!(m.mv.kind(), MoveKind::Castle);
        let san = made_in.san(m.mv);
        let summary = match m.revises {
            Some(_) => format!("move {san} ({text}), the rook move before it revised into castling"),
            None if m.caught_up => format!("move {san} ({text}), caught up after missed scans"),
            None => format!("move {san} ({text})"),
        };
        let fingerprint = request::fingerprint(&pb::MakeMoveRequest {
            name: format!("games/{}", self.game_id),
            color: to_proto::color_to_proto(color),
            r#move: text.clone(),
            castle,
            ..Default::default()
        });
        let act = Act::Move { color, text, premove: false, castle };
        self.act(seq, id, fingerprint, act, summary).await
    }

    /// A piece of the side to move placed where no legal move takes it: the
    /// illegal move made (the Laws rule on it when it is completed).
    async fn record_illegal(&mut self, seq: u64, id: String, a: &IllegalAttempt) -> Result<bool, ApiError> {
        let color = a.piece.map_or(self.game_position.turn(), |p| p.color);
        let text = format!("{}{}", a.from, a.to);
        self.reason = format!("the illegal move {text} is on the board");
        let fingerprint = request::fingerprint(&pb::MakeMoveRequest {
            name: format!("games/{}", self.game_id),
            color: to_proto::color_to_proto(color),
            r#move: text.clone(),
            ..Default::default()
        });
        let summary = format!("illegal move {text}");
        let act = Act::Move { color, text, premove: false, castle: false };
        self.act(seq, id, fingerprint, act, summary).await
    }

    /// Touch evidence goes to the Laws, which weigh it by the event's
    /// regulations: recorded for the arbiter (the default), ruled a touch
    /// over the board where sensed touches bind, refused online (OCR 1.3).
    /// A refusal is said to the board and changes nothing else.
    async fn touched(&mut self, seq: u64, id: String, t: &TouchEvidence) -> Result<(), ApiError> {
        let sensed = match t.kind {
            TouchKind::FirstLift => SensedTouch::FirstLift,
            TouchKind::LiftAndReplace => SensedTouch::LiftAndReplace,
            TouchKind::OpponentPiece => SensedTouch::OpponentPiece,
        };
        let piece = format!("{} {}", t.piece.color.name(), t.piece.role.name());
        let summary = format!("touch evidence: {} of the {piece} on {}", sensed.describe(), t.square);
        let fingerprint = request::fingerprint(&format!(
            "games/{} touch-sensed {} {piece} {sensed:?}",
            self.game_id, t.square
        ));
        let event = Event::TouchSensed { square: t.square, piece: t.piece, sensed };
        self.weigh(seq, id, fingerprint, event, summary).await?;
        Ok(())
    }

    /// Sends evidence of the board (a sensed touch, a clock reading) to
    /// the game's table. `true` if recorded; a refusal of the Laws is said
    /// to the board, and leaves what the board is told to correct as it was.
    ///
    /// # Errors
    /// What the table gives that is not a refusal (storage down...).
    async fn weigh(
        &mut self,
        seq: u64,
        id: String,
        fingerprint: String,
        event: Event,
        summary: String,
    ) -> Result<bool, ApiError> {
        let reason = self.reason.clone();
        let recorded = self.act(seq, id, fingerprint, Act::Event(event), summary).await?;
        self.reason = reason;
        Ok(recorded)
    }

    /// A clock report: a press (over the board) and the drift from the
    /// service's clock.
    async fn on_clock(&mut self, seq: u64, c: ClockReport) -> Result<(), ApiError> {
        let reading = self.table.read().await?;
        let before = std::mem::replace(&mut self.running, c.running);
        if let Some(color) = press_of(before, c.running, reading.view.clocks.running)
            && !self.online
        {
            let id = format!("board-{}-c{seq}", self.hello.device);
            let fingerprint = request::fingerprint(&pb::PressClockRequest {
                name: format!("games/{}", self.game_id),
                color: to_proto::color_to_proto(color),
                ..Default::default()
            });
            let act = Act::Event(Event::PressClock { color, other_hand: false });
            let summary = format!("clock pressed by {}", color.name());
            self.act(seq, id, fingerprint, act, summary).await?;
            self.follow_game();
        }
        let reading = self.table.read().await?;
        if reading.status != crate::store::GameStatus::InProgress {
            return Ok(());
        }
        let service = reading.view.clocks;
        if let Some(drift) = drift_of(&c, &service) {
            // Where the regulations make the board's clock authoritative
            // (OCR 2.4), the Laws set the service's clocks to it.
            let id = format!("board-{}-k{seq}", self.hello.device);
            let fingerprint = request::fingerprint(&format!(
                "games/{} board-clock {} {}",
                self.game_id, c.white_ms, c.black_ms
            ));
            let event = Event::BoardClockReading { white_ms: c.white_ms, black_ms: c.black_ms };
            let summary =
                format!("board clock reading (off by {} ms, {} ms)", drift.white_ms, drift.black_ms);
            if reading.spec.regulations.clock_authority == ClockAuthority::Board
                && self.weigh(seq, id, fingerprint, event, summary).await?
            {
                return Ok(());
            }
            metrics::counter!("arbiter_board_clock_drifts_total").increment(1);
            let drift = pb::BoardClockDrift {
                device_seq: seq,
                white_drift_ms: drift.white_ms,
                black_drift_ms: drift.black_ms,
                service: Some(to_proto::clocks(service, reading.clocks_read_wall_ms)),
                resolution: format!(
                    "the board's clock is off by more than {} ms; the service's clock stands (the \
                     event's regulations do not make the board's clock authoritative, OCR 2.4): set the \
                     board's clock, or the arbiter sets the service's (SetClock)",
                    drift.bound_ms
                ),
            };
            self.send(pb::connect_board_response::Item::ClockDrift(drift)).await;
        }
        Ok(())
    }

    /// Sends an act to the game's table. `true` if it was recorded (or had
    /// been: a retry); `false` if the Laws refused it (said to the board).
    ///
    /// # Errors
    /// What the table gives that is not a refusal (storage down...).
    async fn act(
        &mut self,
        seq: u64,
        id: String,
        fingerprint: String,
        act: Act,
        summary: String,
    ) -> Result<bool, ApiError> {
        let stamped = Stamped::new(&self.caller, METHOD, id, fingerprint);
        match self.table.act(act, ACTOR, Some(stamped), None).await {
            Ok(acted) => {
                metrics::counter!("arbiter_board_acts_total", "outcome" => "recorded").increment(1);
                self.absorb(&acted.event, !acted.game.status.is_open());
                let event = to_proto::event(&acted.event);
                if let Some(r) = event.rulings.iter().find(|r| r.decision == "ILLEGAL_MOVE") {
                    let ruled = acted.event.aftermath.rulings.iter().find(|x| x.rule.as_str() == r.rule_id);
                    let article = ruled.and_then(|x| x.rule.article());
                    let article = article.map(|a| format!(", Article {}", a.number())).unwrap_or_default();
                    self.reason = format!(
                        "the illegal move was ruled ({}{article}): the position before it stands; put the \
                         board back",
                        r.rule_id
                    );
                }
                self.tell(seq, summary, Some(event)).await;
                Ok(true)
            }
            Err(
                e @ (ApiError::Rejected(_) | ApiError::InvalidArgument(_) | ApiError::RequestIdReused(_)),
            ) => {
                metrics::counter!("arbiter_board_acts_total", "outcome" => "refused").increment(1);
                let status: Status = e.into();
                self.reason = format!("{summary} was refused: {}", status.message());
                self.tell(seq, format!("{summary}: refused, {}", status.message()), None).await;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Takes in a recorded event of the game (the stream's own or anyone's).
    fn absorb(&mut self, event: &LoggedEvent, finished: bool) {
        if event.seq <= self.last_event_seq {
            return;
        }
        self.last_event_seq = event.seq;
        match Position::from_fen_with(&event.aftermath.fen, fen_options(self.chess960)) {
            Ok(p) => {
                if p != self.game_position {
                    self.previous_position = self.game_position;
                }
                self.game_position = p;
            }
            Err(e) => tracing::warn!(game = %self.game_id, error = %e, "a recorded position does not read"),
        }
        if finished {
            self.finished = true;
        }
    }

    /// The reader follows the game: the Laws decide the position, whatever
    /// the board shows.
    fn follow_game(&mut self) {
        let reader = self.reader.position();
        if reader.board() != self.game_position.board() || reader.turn() != self.game_position.turn() {
            self.reader.set_position(self.game_position);
        }
        if self.finished {
            self.reader.finish();
        }
    }

    /// Tells the board what the service believes, and how to put it right
    /// while it is out of sync; keeps the arbiter's view of the board.
    async fn report(&mut self, seq: u64) {
        let believed = placement_text(&self.reader.believed());
        let in_sync = !self.reader.is_out_of_sync();
        if self.sent_belief.as_ref() != Some(&(believed.clone(), in_sync)) {
            self.sent_belief = Some((believed.clone(), in_sync));
            let belief = pb::BoardBelief { placement: believed.clone(), in_sync, device_seq: seq };
            self.send(pb::connect_board_response::Item::Belief(belief)).await;
        }
        if in_sync == self.out_of_sync_counted {
            // Counted while out of sync, so the gauge shows the desyncs now.
            self.out_of_sync_counted = !in_sync;
            if in_sync {
                metrics::gauge!("arbiter_boards_out_of_sync").decrement(1.0);
            } else {
                metrics::gauge!("arbiter_boards_out_of_sync").increment(1.0);
                metrics::counter!("arbiter_board_desyncs_total").increment(1);
            }
        }
        // Sent again whenever they change, or why they are needed does (a
        // ruling on the illegal move the board still shows).
        let corrections = if in_sync { Vec::new() } else { self.reader.corrections() };
        let reason = if corrections.is_empty() { String::new() } else { self.reason.clone() };
        if (&corrections, &reason) != (&self.sent_corrections.0, &self.sent_corrections.1) {
            if !corrections.is_empty() {
                let sent = pb::BoardCorrections {
                    corrections: wire::corrections_to_proto(&corrections),
                    reason: reason.clone(),
                };
                self.send(pb::connect_board_response::Item::Corrections(sent)).await;
            }
            self.sent_corrections = (corrections, reason);
        }
        let last_seq = self.last_seq;
        self.boards.update(&self.game_id, self.stream, |state| {
            state.in_sync = in_sync;
            state.believed = believed;
            state.last_device_seq = last_seq;
        });
    }
}

/// The press a clock report shows, if any: the board's clock passed from
/// `before` to the opponent while the service's clock ran for `before` too
/// (a board clock put right after a ruling, or started, is no press).
fn press_of(before: Option<Color>, now: Option<Color>, service: Option<Color>) -> Option<Color> {
    match (before, now) {
        (Some(before), Some(now)) if now == before.other() && service == Some(before) => Some(before),
        _ => None,
    }
}

/// How far a board's clock is off the service's, beyond the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Drift {
    white_ms: i64,
    black_ms: i64,
    bound_ms: i64,
}

/// The drift of a board's clock report from the service's clocks, if
/// either side is off by more than the bound: a second for the whole
/// seconds a DGT clock shows, two more while the board's clock is stopped.
fn drift_of(c: &ClockReport, service: &crate::event_log::Clocks) -> Option<Drift> {
    let (white_ms, black_ms) = (c.white_ms - service.white_ms, c.black_ms - service.black_ms);
    let bound_ms = DRIFT_BOUND_MS + if c.running.is_none() { STOPPED_LAG_MS } else { 0 };
    (white_ms.abs() > bound_ms || black_ms.abs() > bound_ms).then_some(Drift { white_ms, black_ms, bound_ms })
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_log::Clocks;

    #[test]
    fn a_press_is_the_running_side_passing_to_the_opponent() {
        use Color::{Black, White};
        assert_eq!(press_of(Some(White), Some(Black), Some(White)), Some(White));
        assert_eq!(press_of(Some(Black), Some(White), Some(Black)), Some(Black));
        // The clock started, stopped, or unchanged: no press.
        assert_eq!(press_of(None, Some(White), Some(White)), None);
        assert_eq!(press_of(Some(White), None, Some(White)), None);
        assert_eq!(press_of(Some(White), Some(White), Some(White)), None);
        // The board's clock put right while the service's runs for the
        // other side (after a ruling): no press.
        assert_eq!(press_of(Some(Black), Some(White), Some(White)), None);
    }

    #[test]
    fn drift_beyond_the_bound_is_reported() {
        let service = Clocks {
            white_ms: 60_000,
            black_ms: 60_000,
            running: Some(Color::White),
            paused: false,
            white_moves: 0,
            black_moves: 0,
        };
        let report = |white_ms, black_ms, running| ClockReport { white_ms, black_ms, running };
        // Whole seconds shown: within a second is no drift.
        assert_eq!(drift_of(&report(59_001, 60_999, Some(Color::White)), &service), None);
        let d = drift_of(&report(58_000, 60_000, Some(Color::White)), &service).unwrap();
        assert_eq!((d.white_ms, d.black_ms, d.bound_ms), (-2_000, 0, 1_000));
        // A stopped clock lags about 2 s more.
        assert_eq!(drift_of(&report(58_000, 60_000, None), &service), None);
        let d = drift_of(&report(60_000, 63_500, None), &service).unwrap();
        assert_eq!((d.black_ms, d.bound_ms), (3_500, 3_000));
    }
}
