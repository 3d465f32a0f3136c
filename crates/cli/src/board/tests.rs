//! The bridge's LiveChess side against the simulated LiveChess of the test
//! harness (`arbiter_e2e::livechess`), with a fake service: what the feed
//! gives is what the service is sent, numbered and resent after a broken
//! stream, and corrections reach LiveChess as `setup`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Mutex;
use std::time::Duration;

use arbiter_client::{BoardReport, BoardUpdate, Code, Error, RpcError, pb};
use arbiter_e2e::livechess::{Clock, LiveChess, START};
use tokio::sync::mpsc;

use super::bridge::{self, Ended, Link, ReportSender, Said, UpdateSource};
use super::livechess;
use super::reading::{ClockShown, DeviceClock, Placement, Reading};

const SERIAL: &str = "24958";
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// e2 lifted.
const LIFTED: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
/// e2-e4 made.
const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
const WAIT: Duration = Duration::from_secs(10);

async fn recv<T>(rx: &mut mpsc::Receiver<T>) -> T {
    tokio::time::timeout(WAIT, rx.recv()).await.expect("in time").expect("open")
}

#[tokio::test]
async fn the_livechess_feed_becomes_readings_and_setups_reach_livechess() {
    let sim = LiveChess::start(&[SERIAL]).await;
    let first = livechess::open(&sim.url(), None).await.unwrap();
    assert_eq!(first.1.serialnr, SERIAL);
    let (readings_tx, mut readings) = mpsc::channel(16);
    let (setups_tx, setups) = mpsc::channel(4);
    let (notes_tx, _notes) = mpsc::channel(16);
    tokio::spawn(livechess::run(sim.url(), first, DeviceClock::start(), readings_tx, setups, notes_tx));

    // The board as it stands comes at once.
    let start = recv(&mut readings).await;
    assert_eq!(start.reading, Reading::Placement(Placement::from_fen(START).unwrap()));
    // A hand lifts the e-pawn, then puts it on e4.
    sim.set_board(SERIAL, LIFTED);
    let lift = recv(&mut readings).await;
    assert_eq!(lift.reading, Reading::Placement(Placement::from_fen(LIFTED).unwrap()));
    assert!(lift.device_time_ms >= start.device_time_ms);
    sim.set_board(SERIAL, E4);
    assert_eq!(recv(&mut readings).await.reading, Reading::Placement(Placement::from_fen(E4).unwrap()));
    // The clock is pressed: only the clock changed.
    sim.set_clock(SERIAL, Clock { white_s: 299.0, black_s: 300.0, run: Some(false) });
    assert_eq!(
        recv(&mut readings).await.reading,
        Reading::Clock(ClockShown {
            white_ms: 299_000,
            black_ms: 300_000,
            running: Some(arbiter_chess::Color::Black)
        })
    );
    // A position pushed by the bridge reaches LiveChess as `setup` for this board.
    setups_tx.send(START_FEN.to_owned()).await.unwrap();
    sim.wait_for("setup", WAIT, |s| !s.setups().is_empty()).await;
    assert_eq!(sim.setups(), vec![(SERIAL.to_owned(), START_FEN.to_owned())]);

    // LiveChess restarts: the bridge subscribes again, pushes the last
    // position again, and the board's state comes again (unchanged: no
    // reading) until it changes.
    sim.cut_connections();
    sim.wait_for("a second subscription", WAIT, |s| s.subscriptions() == 2).await;
    sim.wait_for("the setup again", WAIT, |s| s.setups().len() == 2).await;
    sim.set_board(SERIAL, START);
    assert_eq!(recv(&mut readings).await.reading, Reading::Placement(Placement::from_fen(START).unwrap()));
}

#[tokio::test]
async fn a_board_is_chosen_by_its_serial_number() {
    let sim = LiveChess::start(&["1001", "1002"]).await;
    let e = livechess::open(&sim.url(), None).await.unwrap_err().to_string();
    assert!(e.contains("1001 (ACTIVE), 1002 (ACTIVE)"), "{e}");
    let (_, board) = livechess::open(&sim.url(), Some("1002")).await.unwrap();
    assert_eq!(board.serialnr, "1002");
    let subscribe = sim.received().into_iter().find(|m| m["call"] == "subscribe").unwrap();
    assert_eq!(subscribe["param"]["feed"], "eboardevent");
    assert_eq!(subscribe["param"]["param"]["serialnr"], "1002");
    assert!(livechess::open(&sim.url(), Some("9")).await.is_err());
}

/// One stream of the fake service, as the test holds it.
struct FakeStream {
    reports: mpsc::UnboundedReceiver<BoardReport>,
    updates: mpsc::UnboundedSender<Option<Result<BoardUpdate, Error>>>,
}

/// A fake service: each `open` takes the next answer the test queued.
struct FakeLink {
    answers: tokio::sync::Mutex<mpsc::UnboundedReceiver<Result<pb::BoardAccepted, Error>>>,
    streams: mpsc::UnboundedSender<FakeStream>,
    fen: Mutex<String>,
    hellos: Mutex<Vec<pb::BoardHello>>,
}

struct FakeSender(mpsc::UnboundedSender<BoardReport>);
struct FakeUpdates(mpsc::UnboundedReceiver<Option<Result<BoardUpdate, Error>>>);

impl ReportSender for FakeSender {
    async fn send(&self, report: BoardReport) -> Result<(), Error> {
        self.0.send(report).map_err(|_| unavailable("closed"))
    }
}

impl UpdateSource for FakeUpdates {
    async fn next(&mut self) -> Option<Result<BoardUpdate, Error>> {
        match self.0.recv().await {
            Some(item) => item,
            None => std::future::pending().await,
        }
    }
}

impl Link for FakeLink {
    type Sender = FakeSender;
    type Updates = FakeUpdates;
    async fn open(
        &self,
        hello: pb::BoardHello,
    ) -> Result<(pb::BoardAccepted, FakeSender, FakeUpdates), Error> {
        self.hellos.lock().unwrap().push(hello);
        let accepted = self.answers.lock().await.recv().await.expect("an answer queued")?;
        let (reports_tx, reports) = mpsc::unbounded_channel();
        let (updates, updates_rx) = mpsc::unbounded_channel();
        self.streams.send(FakeStream { reports, updates }).unwrap();
        Ok((accepted, FakeSender(reports_tx), FakeUpdates(updates_rx)))
    }
    async fn game(&self, name: &str) -> Result<pb::Game, Error> {
        Ok(pb::Game { name: name.to_owned(), fen: self.fen.lock().unwrap().clone(), ..Default::default() })
    }
}

fn unavailable(message: &str) -> Error {
    Error::Rpc(Box::new(RpcError {
        code: Code::Unavailable,
        message: message.into(),
        reason: None,
        domain: None,
        metadata: Default::default(),
        violations: vec![],
        retry_delay: None,
    }))
}

fn accepted(last_device_seq: u64, fen: &str) -> pb::BoardAccepted {
    pb::BoardAccepted {
        game: Some(pb::Game { name: "games/g1".into(), fen: fen.into(), ..Default::default() }),
        last_device_seq,
        settle_ms: 300,
    }
}

/// The placement and number of a report.
fn placement(r: &BoardReport) -> (u64, String) {
    match r {
        BoardReport::Observation(pb::BoardObservation {
            device_seq,
            kind: Some(pb::board_observation::Kind::Placement(p)),
            ..
        }) => (*device_seq, p.clone()),
        other => panic!("not a placement: {other:?}"),
    }
}

async fn next_report(s: &mut FakeStream) -> BoardReport {
    tokio::time::timeout(WAIT, s.reports.recv()).await.expect("a report in time").expect("open")
}

#[tokio::test]
async fn the_bridge_numbers_resends_after_a_break_and_turns_corrections_into_setup() {
    let sim = LiveChess::start(&[SERIAL]).await;
    let clock = DeviceClock::start();
    let (readings_tx, readings) = mpsc::channel(64);
    let (setups_tx, setups) = mpsc::channel(4);
    let (notes_tx, notes) = mpsc::channel(16);
    let first = livechess::open(&sim.url(), Some(SERIAL)).await.unwrap();
    tokio::spawn(livechess::run(sim.url(), first, clock, readings_tx, setups, notes_tx));

    let (answers_tx, answers) = mpsc::unbounded_channel();
    let (streams_tx, mut streams) = mpsc::unbounded_channel();
    let link = FakeLink {
        answers: tokio::sync::Mutex::new(answers),
        streams: streams_tx,
        fen: Mutex::new(START_FEN.into()),
        hellos: Mutex::new(vec![]),
    };
    let hello = pb::BoardHello { name: "games/g1".into(), device_id: 24958, ..Default::default() };
    let said = Rc::new(RefCell::new(Vec::<Said>::new()));
    let log = said.clone();
    let mut say = move |s: Said| log.borrow_mut().push(s);
    let bridge = bridge::run(&link, hello, readings, setups_tx, notes, std::future::pending(), &mut say);

    let script = async {
        // The service already has readings 1..=6 of this board (an earlier
        // run of the bridge): numbering goes on at 7.
        answers_tx.send(Ok(accepted(6, START_FEN))).unwrap();
        let mut s = tokio::time::timeout(WAIT, streams.recv()).await.unwrap().unwrap();
        assert_eq!(placement(&next_report(&mut s).await), (7, START.into()));
        // The game's position went to LiveChess when the stream opened.
        sim.wait_for("the opening setup", WAIT, |l| l.setups().len() == 1).await;
        assert_eq!(sim.setups()[0].1, START_FEN);

        sim.set_board(SERIAL, LIFTED);
        assert_eq!(placement(&next_report(&mut s).await), (8, LIFTED.into()));
        sim.set_board(SERIAL, E4);
        assert_eq!(placement(&next_report(&mut s).await), (9, E4.into()));

        // An illegal move was ruled and the position reinstated: the service
        // sends corrections, and the bridge tells LiveChess the game's
        // position (read from the service).
        let reinstated = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        *link.fen.lock().unwrap() = reinstated.to_owned();
        s.updates
            .send(Some(Ok(BoardUpdate::Corrections(pb::BoardCorrections {
                corrections: vec![pb::BoardCorrection { square: "e4".into(), piece: String::new() }],
                reason: "illegal move reinstated".into(),
            }))))
            .unwrap();
        sim.wait_for("the correcting setup", WAIT, |l| l.setups().len() == 2).await;
        assert_eq!(sim.setups()[1].1, reinstated);

        // The service confirms up to 8, then the stream breaks. A reading
        // made while it is down is kept.
        s.updates
            .send(Some(Ok(BoardUpdate::Belief(pb::BoardBelief {
                placement: START.into(),
                in_sync: false,
                device_seq: 8,
            }))))
            .unwrap();
        s.updates.send(Some(Err(unavailable("connection reset")))).unwrap();
        sim.set_board(SERIAL, START);
        // The new stream: the service kept up to 8 (9 was lost on the way).
        answers_tx.send(Ok(accepted(8, reinstated))).unwrap();
        let mut s = tokio::time::timeout(WAIT, streams.recv()).await.unwrap().unwrap();
        assert_eq!(placement(&next_report(&mut s).await), (9, E4.into()), "9 is sent again, same number");
        assert_eq!(
            placement(&next_report(&mut s).await),
            (10, START.into()),
            "then the reading kept meanwhile"
        );

        // The flag falls: the game is over and the bridge stops.
        let flag = pb::BoardAct {
            device_seq: 10,
            summary: "clock reading: White's flag fell".into(),
            event: Some(pb::GameEvent {
                seq: 12,
                act: "TICK".into(),
                rulings: vec![pb::Ruling {
                    rule_id: "FIDE-6.9".into(),
                    decision: "GAME_OVER".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }),
        };
        s.updates.send(Some(Ok(BoardUpdate::Act(Box::new(flag))))).unwrap();
        s
    };
    let (ended, _stream) = tokio::join!(bridge, script);
    assert_eq!(ended.unwrap(), Ended::GameOver);
    let said = said.borrow();
    assert!(
        said.iter().any(|s| matches!(s, Said::Reconnecting { attempt: 1, .. })),
        "the break was said: {said:#?}"
    );
    assert!(said.iter().any(|s| matches!(s, Said::Connected { resent: 1, .. })), "{said:#?}");
    assert!(said.iter().any(|s| matches!(s, Said::Update(BoardUpdate::Corrections(_)))));
    let hellos = link.hellos.lock().unwrap();
    assert_eq!(hellos.len(), 2);
    assert!(hellos.iter().all(|h| h.device_id == 24958 && h.name == "games/g1"));
}

#[tokio::test]
async fn a_refusal_that_trying_again_cannot_change_ends_the_bridge() {
    let (readings_tx, readings) = mpsc::channel(4);
    let (setups_tx, _setups) = mpsc::channel(4);
    let (_notes_tx, notes) = mpsc::channel(4);
    let (answers_tx, answers) = mpsc::unbounded_channel();
    let (streams_tx, _streams) = mpsc::unbounded_channel();
    let link = FakeLink {
        answers: tokio::sync::Mutex::new(answers),
        streams: streams_tx,
        fen: Mutex::new(String::new()),
        hellos: Mutex::new(vec![]),
    };
    let refusal = Error::Rpc(Box::new(RpcError {
        code: Code::FailedPrecondition,
        message: "another board holds this game".into(),
        reason: Some("BOARD_IN_USE".into()),
        domain: Some(arbiter_client::DOMAIN.into()),
        metadata: Default::default(),
        violations: vec![],
        retry_delay: None,
    }));
    answers_tx.send(Err(refusal)).unwrap();
    let mut say = |_: Said| {};
    let e = bridge::run(
        &link,
        pb::BoardHello::default(),
        readings,
        setups_tx,
        notes,
        std::future::pending(),
        &mut say,
    )
    .await
    .unwrap_err();
    assert!(e.to_string().contains("another board holds this game"), "{e}");
    drop(readings_tx);
}

#[tokio::test]
async fn ctrl_c_stops_the_bridge_and_says_what_was_not_confirmed() {
    let (readings_tx, readings) = mpsc::channel(4);
    let (setups_tx, _setups) = mpsc::channel(4);
    let (_notes_tx, notes) = mpsc::channel(4);
    let (answers_tx, answers) = mpsc::unbounded_channel();
    let (streams_tx, mut streams) = mpsc::unbounded_channel();
    let link = FakeLink {
        answers: tokio::sync::Mutex::new(answers),
        streams: streams_tx,
        fen: Mutex::new(String::new()),
        hellos: Mutex::new(vec![]),
    };
    answers_tx.send(Ok(accepted(0, ""))).unwrap();
    let (stop_tx, stop) = tokio::sync::oneshot::channel::<()>();
    let mut say = |_: Said| {};
    let shutdown = async {
        let _ = stop.await;
    };
    let bridge =
        bridge::run(&link, pb::BoardHello::default(), readings, setups_tx, notes, shutdown, &mut say);
    let script = async {
        let mut s = streams.recv().await.unwrap();
        let start = Placement::from_fen(START).unwrap();
        readings_tx
            .send(super::reading::Timed { reading: Reading::Placement(start), device_time_ms: 5 })
            .await
            .unwrap();
        assert_eq!(placement(&next_report(&mut s).await), (1, START.into()));
        stop_tx.send(()).unwrap();
        s
    };
    let (ended, _s) = tokio::join!(bridge, script);
    assert_eq!(ended.unwrap(), Ended::Interrupted { unconfirmed: 1 });
}

#[test]
fn device_ids_of_serial_numbers() {
    assert_eq!(super::device_id_of("24958"), 24958);
    let a = super::device_id_of("DGT-A1");
    assert_eq!(a, super::device_id_of("DGT-A1"));
    assert_ne!(a, super::device_id_of("DGT-A2"));
}
