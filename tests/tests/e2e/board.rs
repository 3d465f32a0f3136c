//! E-boards (ConnectBoard): a game played by a board's observations and
//! clock reports, the refusals, and a board that resumes after a reconnect
//! and after a killed server.

use std::time::Duration;

use arbiter_e2e::{
    Client, SERVICE_TOKEN, TestServer, create, expect_code, expect_reason, get_game, new_game, regulations,
    v1 as pb,
};
use pb::connect_board_response::Item;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
/// A short settle time keeps the tests fast.
const SETTLE_MS: u32 = 100;

/// A board (or its bridge) on a ConnectBoard stream.
struct Board {
    tx: mpsc::Sender<pb::ConnectBoardRequest>,
    rx: tonic::Streaming<pb::ConnectBoardResponse>,
    seq: u64,
    time_ms: u64,
}

fn hello(name: &str, device_id: u64) -> pb::BoardHello {
    pb::BoardHello {
        name: name.to_string(),
        device_id,
        settle_ms: SETTLE_MS,
        label: format!("DGT {device_id}"),
        ..Default::default()
    }
}

/// Opens a stream with `hello` as its first message.
async fn open(
    client: &mut Client,
    hello: pb::BoardHello,
) -> Result<(mpsc::Sender<pb::ConnectBoardRequest>, tonic::Streaming<pb::ConnectBoardResponse>), tonic::Status>
{
    let (tx, rx) = mpsc::channel(16);
    tx.send(pb::ConnectBoardRequest { item: Some(pb::connect_board_request::Item::Hello(hello)) })
        .await
        .unwrap();
    let stream = client.connect_board(ReceiverStream::new(rx)).await?.into_inner();
    Ok((tx, stream))
}

impl Board {
    /// Connects and reads the BoardAccepted.
    async fn connect(client: &mut Client, name: &str, device_id: u64) -> (Board, pb::BoardAccepted) {
        Board::connect_with(client, hello(name, device_id)).await
    }

    async fn connect_with(client: &mut Client, hello: pb::BoardHello) -> (Board, pb::BoardAccepted) {
        let (tx, mut rx) = open(client, hello).await.expect("ConnectBoard");
        let first = rx.message().await.expect("a first answer").expect("the stream is open");
        let Some(Item::Accepted(accepted)) = first.item else { panic!("expected BoardAccepted: {first:?}") };
        let seq = accepted.last_device_seq;
        (Board { tx, rx, seq, time_ms: 1_000_000 + seq * 1000 }, accepted)
    }

    async fn send(&mut self, item: pb::connect_board_request::Item) {
        self.tx.send(pb::ConnectBoardRequest { item: Some(item) }).await.expect("the stream is open");
    }

    /// Sends an observation with the next number, 50 ms of device time on.
    async fn observe(&mut self, kind: pb::board_observation::Kind) -> u64 {
        self.seq += 1;
        self.time_ms += 50;
        let o = pb::BoardObservation { device_seq: self.seq, device_time_ms: self.time_ms, kind: Some(kind) };
        self.send(pb::connect_board_request::Item::Observation(o)).await;
        self.seq
    }

    async fn placement(&mut self, placement: &str) -> u64 {
        self.observe(pb::board_observation::Kind::Placement(placement.to_string())).await
    }

    async fn lift(&mut self, square: &str) -> u64 {
        self.observe(pb::board_observation::Kind::Lifted(square.to_string())).await
    }

    async fn place(&mut self, square: &str, piece: &str) -> u64 {
        let placed = pb::BoardSquare { square: square.to_string(), piece: piece.to_string() };
        self.observe(pb::board_observation::Kind::Placed(placed)).await
    }

    /// A clock report: the remaining times shown and whose clock runs.
    async fn clock(&mut self, white_ms: i64, black_ms: i64, running: pb::Color) -> u64 {
        self.seq += 1;
        self.time_ms += 50;
        let c = pb::BoardClockReport {
            device_seq: self.seq,
            device_time_ms: self.time_ms,
            white_remaining_ms: white_ms,
            black_remaining_ms: black_ms,
            running: running as i32,
        };
        self.send(pb::connect_board_request::Item::Clock(c)).await;
        self.seq
    }

    /// The next answer.
    async fn next(&mut self) -> Item {
        let m = tokio::time::timeout(Duration::from_secs(5), self.rx.message())
            .await
            .expect("an answer within 5 s")
            .expect("the stream is open")
            .expect("the stream goes on");
        m.item.expect("an item")
    }

    /// Reads answers until one satisfies `wanted`; returns it and the ones
    /// before it.
    async fn until(&mut self, what: &str, wanted: impl Fn(&Item) -> bool) -> (Item, Vec<Item>) {
        let mut before = Vec::new();
        loop {
            let item = tokio::time::timeout(Duration::from_secs(5), self.next())
                .await
                .unwrap_or_else(|_| panic!("no {what} within 5 s; got {before:#?}"));
            if wanted(&item) {
                return (item, before);
            }
            before.push(item);
        }
    }

    /// Reads answers until an act whose event carries the ruling
    /// `decision`; returns the event.
    async fn act_ruled(&mut self, decision: &str) -> pb::GameEvent {
        let (item, _) = self
            .until(decision, |i| {
                matches!(i, Item::Act(a) if a.event.as_ref().is_some_and(|e| e.rulings.iter().any(|r| r.decision == decision)))
            })
            .await;
        let Item::Act(act) = item else { unreachable!() };
        act.event.unwrap()
    }

    /// Reads answers until the refusal of report `seq`.
    async fn refusal(&mut self, seq: u64) -> pb::BoardRefusal {
        let (item, _) =
            self.until("a refusal", |i| matches!(i, Item::Refusal(r) if r.device_seq == seq)).await;
        let Item::Refusal(r) = item else { unreachable!() };
        r
    }
}

/// An over-the-board game, started.
async fn otb_game(server: &TestServer, arbiter: &mut Client) -> String {
    create(server, arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await.name
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_and_ruled_from_the_board() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let name = otb_game(&server, &mut arbiter).await;
    let (mut board, accepted) = Board::connect(&mut arbiter, &name, 7).await;
    assert_eq!(accepted.last_device_seq, 0);
    assert_eq!(accepted.settle_ms, SETTLE_MS);
    assert_eq!(accepted.game.unwrap().name, name);
    let (w, b) = (5_400_000, 5_400_000);
    board.clock(w, b, pb::Color::White).await;

    // White lifts the e2 pawn (touch evidence) and puts it on e4: the move
    // is made once the pawn has rested, and completed by the clock.
    let lifted = board.lift("e2").await;
    let (touch, _) =
        board.until("touch evidence", |i| matches!(i, Item::Act(a) if a.summary.contains("touch"))).await;
    let Item::Act(touch) = touch else { unreachable!() };
    assert_eq!(touch.device_seq, lifted);
    assert!(touch.summary.contains("first lift") && touch.summary.contains("e2"), "{touch:?}");
    // By default the Laws record it for the arbiter, with the moves it
    // would bind White to, and bind nothing (Article 4.2.2).
    let event = touch.event.expect("touch evidence is recorded");
    assert_eq!(event.act, "TOUCH_SENSED");
    let ruling = event.rulings.iter().find(|r| r.decision == "TOUCH_SENSED").expect("the evidence ruling");
    assert_eq!(ruling.rule_id, "FIDE-4.2b");
    assert_eq!(ruling.article.as_ref().map(|a| a.number.as_str()), Some("4.2.2"));
    assert_eq!(ruling.facts["binding"], "false");
    assert_eq!(ruling.facts["would_allow"], "e3 e4");
    assert!(event.rulings.iter().all(|r| r.decision != "OBLIGATION"), "{event:?}");
    board.place("e4", "P").await;
    let made = board.act_ruled("MOVE_MADE").await;
    assert_eq!((made.act.as_str(), made.actor.as_str()), ("MAKE_MOVE", "board"));
    assert!(made.request_id.starts_with("board-7-"), "{made:?}");
    board.clock(w, b, pb::Color::Black).await;
    let pressed = board.act_ruled("MOVE_COMPLETED").await;
    assert_eq!(pressed.act, "PRESS_CLOCK");

    // Black answers with a whole scan of the board.
    board.placement("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR").await;
    board.act_ruled("MOVE_MADE").await;
    board.clock(w, b, pb::Color::White).await;
    board.act_ruled("MOVE_COMPLETED").await;
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["e2e4", "e7e5"]);
    let status = game.board.expect("the arbiter sees the board");
    assert!(status.connected && status.in_sync, "{status:?}");
    assert_eq!(status.device_id, 7);
    assert_eq!(status.believed_placement, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR");

    // An illegal move: the king jumps to e3. It is made, then completed by
    // the press and ruled (7.5): the position before it stands, and the
    // board is told how to put it back, square by square.
    board.lift("e1").await;
    board.place("e3", "K").await;
    let (item, _) = board
        .until(
            "the illegal move made",
            |i| matches!(i, Item::Act(a) if a.summary.contains("illegal move e1e3")),
        )
        .await;
    let Item::Act(illegal) = item else { unreachable!() };
    assert!(illegal.event.is_some(), "the illegal move is recorded as made: {illegal:?}");
    board.clock(w, b, pb::Color::Black).await;
    let ruled = board.act_ruled("ILLEGAL_MOVE").await;
    let r = ruled.rulings.iter().find(|r| r.decision == "ILLEGAL_MOVE").unwrap();
    assert!(r.rule_id.starts_with("FIDE-7.5"), "{r:?}");
    let (item, _) = board.until("corrections", |i| matches!(i, Item::Corrections(_))).await;
    let Item::Corrections(c) = item else { unreachable!() };
    let mut squares: Vec<(String, String)> =
        c.corrections.iter().map(|c| (c.square.clone(), c.piece.clone())).collect();
    squares.sort();
    assert_eq!(squares, [("e1".to_string(), "K".to_string()), ("e3".to_string(), String::new())], "{c:?}");
    assert!(!c.reason.is_empty());
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["e2e4", "e7e5"], "the illegal move is not on the record");
    assert!(!game.board.unwrap().in_sync, "the desync shows to the arbiter");

    // The player puts the king back: the board is in sync again.
    board.lift("e3").await;
    board.place("e1", "K").await;
    board.until("the board back in sync", |i| matches!(i, Item::Belief(b) if b.in_sync)).await;
    assert!(get_game(&mut arbiter, &name).await.board.unwrap().in_sync);

    // The board's clock shows neither the increments (30 s a completed
    // move) nor the time Black got for White's illegal move (7.5.5): the
    // drift is reported; the service's clock stands.
    let stopped = board.clock(w, b, pb::Color::Unspecified).await;
    let (item, _) = board.until("the clock drift", |i| matches!(i, Item::ClockDrift(_))).await;
    let Item::ClockDrift(drift) = item else { unreachable!() };
    assert_eq!(drift.device_seq, stopped);
    assert!(drift.white_drift_ms <= -25_000, "{drift:?}");
    assert!(drift.white_drift_ms - drift.black_drift_ms >= 60_000, "the penalty: {drift:?}");
    assert!(drift.resolution.contains("OCR 2.4"), "{drift:?}");
    assert!(drift.service.unwrap().black_remaining_ms > b);

    // A flag: the running clock is set to almost nothing; the service
    // rules on its own, and the board's later observations are refused.
    let running = get_game(&mut arbiter, &name).await.clocks.unwrap().running;
    arbiter
        .set_clock(pb::SetClockRequest {
            name: name.clone(),
            color: running,
            remaining_ms: 200,
            ..Default::default()
        })
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let game = get_game(&mut arbiter, &name).await;
        if game.status == pb::GameStatus::Finished as i32 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no flag ruling: {game:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let late = board.lift("g1").await;
    let refusal = board.refusal(late).await;
    assert_eq!(refusal.reason, "GAME_FINISHED");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_regulations_decide_what_sensed_touches_and_board_clocks_mean() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;

    // Over the board, touches bound and the board's clock authoritative.
    let regs = pb::Regulations {
        sensed_touches: pb::SensedTouches::Bind as i32,
        clock_authority: pb::ClockAuthority::Board as i32,
        ..regulations("5+0", pb::Mode::OverTheBoard)
    };
    let name = create(&server, &mut arbiter, new_game(regs, true)).await.name;
    let (mut board, _) = Board::connect(&mut arbiter, &name, 4).await;
    board.clock(300_000, 300_000, pb::Color::White).await;
    // The lift of the g1 knight binds White to move it (4.3.1).
    board.lift("g1").await;
    let touched = board.act_ruled("OBLIGATION").await;
    assert_eq!(touched.act, "TOUCH_SENSED");
    let evidence = touched.rulings.iter().find(|r| r.decision == "TOUCH_SENSED").unwrap();
    assert_eq!(evidence.facts["binding"], "true");
    let obligation = get_game(&mut arbiter, &name).await.obligation.expect("the obligation");
    assert_eq!(obligation.rule_id, "FIDE-4.3a");
    assert!(obligation.allowed_moves.iter().all(|m| m.starts_with("g1")), "{obligation:?}");
    board.place("f3", "N").await;
    board.act_ruled("MOVE_MADE").await;
    // The board's clock says White has 250 s left, far from the service's
    // (about 300 s): the board's clock counts (OCR 2.4).
    board.clock(250_000, 300_000, pb::Color::White).await;
    let reading = board.act_ruled("CLOCK_SET").await;
    assert_eq!(reading.act, "BOARD_CLOCK_READING");
    let set = reading.rulings.iter().find(|r| r.decision == "CLOCK_SET").unwrap();
    assert_eq!((set.rule_id.as_str(), set.facts["remaining_ms"].as_str()), ("OCR-2.4", "250000"));
    let clocks = get_game(&mut arbiter, &name).await.clocks.unwrap();
    assert!((249_000..=250_000).contains(&clocks.white_remaining_ms), "{clocks:?}");
    drop(board);

    // Online the lift means nothing (OCR 1.3): the board is told, nothing
    // is recorded.
    let name = create(&server, &mut arbiter, new_game(regulations("5+3", pb::Mode::Online), true)).await.name;
    let (mut board, _) = Board::connect(&mut arbiter, &name, 5).await;
    let lifted = board.lift("g1").await;
    let (item, _) =
        board.until("the evidence refused", |i| matches!(i, Item::Act(a) if a.device_seq == lifted)).await;
    let Item::Act(act) = item else { unreachable!() };
    assert!(act.event.is_none() && act.summary.contains("OCR 1.3"), "{act:?}");
    board.place("f3", "N").await;
    board.act_ruled("MOVE_COMPLETED").await;
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["g1f3"]);
    assert!(game.obligation.is_none());
    server.stop().await;
}

/// Castling begun with the rook: the reader sees the rook move, then the
/// king follow, and revises its reading into castling; the Laws keep the
/// rook move (4.4.2, 4.7), and the board is told to put the king back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn castling_begun_with_the_rook_is_the_rook_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut regs = regulations("90+30", pb::Mode::OverTheBoard);
    regs.start_fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1".into();
    let name = create(&server, &mut arbiter, new_game(regs, true)).await.name;
    let (mut board, _) = Board::connect(&mut arbiter, &name, 9).await;
    board.lift("h1").await;
    board.place("f1", "R").await;
    let made = board.act_ruled("MOVE_MADE").await;
    assert_eq!(made.details["mv.from"], "h1", "{made:?}");
    board.lift("e1").await;
    board.place("g1", "K").await;
    let (item, _) = board
        .until("the castling refused", |i| matches!(i, Item::Act(a) if a.summary.contains("castling")))
        .await;
    let Item::Act(act) = item else { unreachable!() };
    assert!(act.event.is_none() && act.summary.contains("refused"), "{act:?}");
    let (item, _) = board.until("corrections", |i| matches!(i, Item::Corrections(_))).await;
    let Item::Corrections(c) = item else { unreachable!() };
    let mut squares: Vec<(String, String)> =
        c.corrections.iter().map(|c| (c.square.clone(), c.piece.clone())).collect();
    squares.sort();
    assert_eq!(squares, [("e1".to_string(), "K".to_string()), ("g1".to_string(), String::new())], "{c:?}");
    assert!(c.reason.contains("4.4.2"), "{c:?}");
    assert_eq!(get_game(&mut arbiter, &name).await.moves_uci, ["h1f1"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_reports_are_refused_and_the_stream_goes_on() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let name = otb_game(&server, &mut arbiter).await;

    // Bad hellos, roles and games.
    let bad = pb::BoardHello { device_id: 0, ..hello(&name, 1) };
    expect_code(open(&mut arbiter, bad).await.map(tonic::Response::new), Code::InvalidArgument);
    let mut viewer = server.client(Some(arbiter_e2e::VIEWER_TOKEN)).await;
    expect_code(open(&mut viewer, hello(&name, 1)).await.map(tonic::Response::new), Code::PermissionDenied);
    let mut service = server.client(Some(SERVICE_TOKEN)).await;
    expect_code(open(&mut service, hello(&name, 1)).await.map(tonic::Response::new), Code::PermissionDenied);
    expect_code(open(&mut arbiter, hello("games/nope", 1)).await.map(tonic::Response::new), Code::NotFound);
    // A game the service token created takes its board.
    let own =
        create(&server, &mut service, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    let (_own_board, _) = Board::connect(&mut service, &own.name, 3).await;

    let (mut board, _) = Board::connect(&mut arbiter, &name, 7).await;
    // One board per game.
    let other = expect_reason(
        open(&mut arbiter, hello(&name, 8)).await.map(tonic::Response::new),
        Code::FailedPrecondition,
        "BOARD_CONNECTED",
    );
    assert!(other.message().contains("board 7"), "{other:?}");

    let first = board.placement(START).await;
    // The same number again: a duplicate, answered as such.
    board.seq = first - 1;
    let again = board.placement(START).await;
    assert_eq!(board.refusal(again).await.reason, "DUPLICATE");
    // An older number.
    board.seq = 5;
    let ahead = board.placement(START).await;
    board.seq = 2;
    let older = board.placement(START).await;
    assert_eq!(board.refusal(older).await.reason, "OUT_OF_ORDER");
    board.seq = ahead;
    // Impossible placements: no kings, 33 pieces.
    let empty = board.placement("8/8/8/8/8/8/8/8").await;
    assert_eq!(board.refusal(empty).await.reason, "IMPOSSIBLE_PLACEMENT");
    let crowded = board.placement("rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR").await;
    assert_eq!(board.refusal(crowded).await.reason, "IMPOSSIBLE_PLACEMENT");
    // Malformed: refused, not kept, and the stream goes on.
    let malformed = board.placement("rnbqkbnr/8").await;
    let r = board.refusal(malformed).await;
    assert_eq!(r.reason, "INVALID_OBSERVATION");
    assert!(r.message.contains("observation.placement"), "{r:?}");
    board.seq -= 1;
    board.lift("e2").await;
    board.place("e4", "P").await;
    board.act_ruled("MOVE_MADE").await;
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["e2e4"], "nothing refused reached the record");
    assert_eq!(game.board.unwrap().last_device_seq, board.seq);
    server.stop().await;
}

/// Waits until the service has kept report `seq` of the game's board.
async fn kept(arbiter: &mut Client, name: &str, seq: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let game = get_game(arbiter, name).await;
        if game.board.is_some_and(|b| b.last_device_seq >= seq) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "report {seq} was not kept");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_resumes_after_a_reconnect_and_a_killed_server() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let name = otb_game(&server, &mut arbiter).await;
    let (w, b) = (5_400_000, 5_400_000);
    let (mut board, _) = Board::connect(&mut arbiter, &name, 11).await;
    board.clock(w, b, pb::Color::White).await;
    board.lift("e2").await;
    board.place("e4", "P").await;
    board.act_ruled("MOVE_MADE").await;
    board.clock(w, b, pb::Color::Black).await;
    board.act_ruled("MOVE_COMPLETED").await;
    let sent = board.seq;
    drop(board);

    // Reconnect (with a settle time long enough to kill the server while a
    // move rests, below): the service kept everything, and says so; a
    // resent report is a duplicate; nothing is applied twice.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let slow = pb::BoardHello { settle_ms: 1500, ..hello(&name, 11) };
    let (mut board, accepted) = Board::connect_with(&mut arbiter, slow).await;
    assert_eq!(accepted.last_device_seq, sent);
    assert_eq!(accepted.game.unwrap().moves_uci, ["e2e4"]);
    board.seq -= 1;
    let resent = board.clock(w, b, pb::Color::Black).await;
    assert_eq!(board.refusal(resent).await.reason, "DUPLICATE");
    board.lift("e7").await;
    board.place("e5", "p").await;
    board.act_ruled("MOVE_MADE").await;
    board.clock(w, b, pb::Color::White).await;
    board.act_ruled("MOVE_COMPLETED").await;

    // White's knight lands on f3 and the server dies before it has rested:
    // the observation was kept, the move not yet recorded.
    board.lift("g1").await;
    let landed = board.place("f3", "N").await;
    kept(&mut arbiter, &name, landed).await;
    let (dir, url) = server.kill().await;
    drop(board);
    let server = TestServer::start_with(dir, url, |_| {}).await;
    let mut arbiter = server.arbiter().await;
    assert_eq!(get_game(&mut arbiter, &name).await.moves_uci, ["e2e4", "e7e5"]);

    // The board resumes: the service read it back as it was and rules the
    // knight move once it has rested; nothing is lost or doubled.
    let (mut board, accepted) = Board::connect(&mut arbiter, &name, 11).await;
    assert_eq!(accepted.last_device_seq, landed);
    let made = board.act_ruled("MOVE_MADE").await;
    assert!(made.rulings.iter().any(|r| r.facts.get("uci").is_some_and(|u| u == "g1f3")), "{made:?}");
    board.clock(w, b, pb::Color::Black).await;
    board.act_ruled("MOVE_COMPLETED").await;
    drop(board);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Once more: a reconnect with nothing new infers nothing.
    let (mut board, _) = Board::connect(&mut arbiter, &name, 11).await;
    let game = get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["e2e4", "e7e5", "g1f3"]);
    let events = arbiter_e2e::all_events(&mut arbiter, &name).await;
    let moves = events.iter().filter(|e| e.act == "MAKE_MOVE").count();
    assert_eq!(moves, 3, "each move recorded once");
    board.lift("b8").await;
    board.place("c6", "n").await;
    board.act_ruled("MOVE_MADE").await;
    assert_eq!(get_game(&mut arbiter, &name).await.moves_uci, ["e2e4", "e7e5", "g1f3", "b8c6"]);
    server.stop().await;
}
