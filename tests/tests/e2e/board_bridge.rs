//! A game played on a simulated DGT LiveChess board through `arbiter board
//! connect` against the real service (issue 15, "done when"): the hands make
//! placements and press the clock on the simulated board; the bridge sends
//! them on ConnectBoard; the service infers the acts and rules them: moves, a
//! touch-move obligation from a lift (the event binds sensed touches), an
//! illegal move reinstated with corrections (and LiveChess told the
//! reinstated position with `setup`), and a flag, after which the bridge
//! stops by itself.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_e2e::daemon::arbiter_cli_path;
use arbiter_e2e::livechess::{Clock, LiveChess, START};
use arbiter_e2e::{ARBITER_TOKEN, Client, TestServer, create, get_game, new_game, regulations, v1 as pb};

const SERIAL: &str = "24958";
const WAIT: Duration = Duration::from_secs(20);

/// The bridge as a child process, its standard output read line by line.
struct Bridge {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Bridge {
    fn start(url: &str, game: &str, livechess: &str) -> Bridge {
        let mut child = Command::new(arbiter_cli_path())
            .args(["board", "connect", "--game", game, "--livechess", livechess, "--serial", SERIAL])
            .args(["--settle-ms", "100"])
            .env("ARBITER_URL", url)
            .env("ARBITER_TOKEN", ARBITER_TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start arbiter board connect");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                eprintln!("bridge| {line}");
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Bridge { child, lines, seen: Vec::new() }
    }

    /// Waits for a line containing `text` (lines already seen count).
    fn expect(&mut self, text: &str) -> String {
        if let Some(line) = self.seen.iter().find(|l| l.contains(text)) {
            return line.clone();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!("the bridge did not print {text:?}; it printed:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// Waits for the bridge to exit; its exit code.
    fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the bridge did not stop; it printed:\n{}", self.seen.join("\n"));
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Only the bridge this test started, by its own handle.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Polls the game until `done` holds of it.
async fn wait_game(
    client: &mut Client,
    name: &str,
    what: &str,
    done: impl Fn(&pb::Game) -> bool,
) -> pb::Game {
    let deadline = Instant::now() + WAIT;
    loop {
        let game = get_game(client, name).await;
        if done(&game) {
            return game;
        }
        assert!(Instant::now() < deadline, "{what} did not happen; the game: {game:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A hand moves: the piece is lifted (the board shows it gone), then put
/// down on its square, and rests there.
async fn hand(sim: &LiveChess, lifted: &str, placed: &str) {
    sim.set_board(SERIAL, lifted);
    tokio::time::sleep(Duration::from_millis(150)).await;
    sim.set_board(SERIAL, placed);
    // Longer than the settle time of 100 ms.
    tokio::time::sleep(Duration::from_millis(250)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_on_a_livechess_board_is_ruled_end_to_end() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // Over the board, and the event's regulations bind sensed touches.
    let regs = pb::Regulations {
        sensed_touches: pb::SensedTouches::Bind as i32,
        ..regulations("5+0", pb::Mode::OverTheBoard)
    };
    let t = create(&server, &mut arbiter, new_game(regs, true)).await;
    let name = t.name.clone();
    let sim = LiveChess::start(&[SERIAL]).await;
    let url = server.url();
    let sim_url = sim.url();
    let game_arg = name.clone();
    let mut bridge =
        tokio::task::spawn_blocking(move || Bridge::start(&url, &game_arg, &sim_url)).await.unwrap();
    let (b, connected) = tokio::task::spawn_blocking(move || {
        let line = bridge.expect("connected");
        (bridge, line)
    })
    .await
    .unwrap();
    bridge = b;
    assert!(connected.contains(&name), "{connected}");
    // The game's position went to LiveChess when the stream opened.
    sim.wait_for("the opening setup", WAIT, |s| !s.setups().is_empty()).await;
    assert!(sim.setups()[0].1.starts_with(START), "{:?}", sim.setups());

    // 1. e4: the pawn lifted and put on e4; White presses the clock.
    let mut clock = Clock { white_s: 300.0, black_s: 300.0, run: Some(true) };
    sim.set_clock(SERIAL, clock);
    hand(
        &sim,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
    )
    .await;
    clock = Clock { white_s: 298.0, run: Some(false), ..clock };
    sim.set_clock(SERIAL, clock);
    wait_game(&mut arbiter, &name, "1. e4", |g| g.moves_uci == ["e2e4"]).await;

    // 1... e5.
    hand(
        &sim,
        "rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
    )
    .await;
    clock = Clock { black_s: 297.0, run: Some(true), ..clock };
    sim.set_clock(SERIAL, clock);
    wait_game(&mut arbiter, &name, "1... e5", |g| g.moves_uci == ["e2e4", "e7e5"]).await;

    // White lifts the g1 knight and puts it back: a touch, and with it the
    // obligation to move the knight (Article 4.3.1).
    let after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
    hand(&sim, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKB1R", after_e5).await;
    let game = wait_game(&mut arbiter, &name, "the touch-move obligation", |g| g.obligation.is_some()).await;
    let obligation = game.obligation.unwrap();
    assert_eq!(obligation.color, pb::Color::White as i32);
    assert_eq!(obligation.rule_id, "FIDE-4.3a", "{obligation:?}");
    let mut allowed = obligation.allowed_moves.clone();
    allowed.sort();
    assert_eq!(allowed, ["g1e2", "g1f3", "g1h3"], "{obligation:?}");
    let (b, line) = tokio::task::spawn_blocking(move || {
        let line = bridge.expect("knight on g1");
        (bridge, line)
    })
    .await
    .unwrap();
    bridge = b;
    assert!(line.contains("touch evidence"), "{line}");
    // The knight moves, as it must: 2. Nf3.
    let after_nf3 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";
    hand(&sim, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKB1R", after_nf3).await;
    clock = Clock { white_s: 295.0, run: Some(false), ..clock };
    sim.set_clock(SERIAL, clock);
    wait_game(&mut arbiter, &name, "2. Nf3", |g| g.moves_uci.len() == 3).await;

    // Black's knight jumps b8-b6, which a knight cannot, and Black presses
    // the clock: a completed illegal move (Article 7.5.1). The position
    // before it is reinstated, and the board is told how to get back.
    hand(
        &sim,
        "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
        "r1bqkbnr/pppp1ppp/1n6/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
    )
    .await;
    clock = Clock { black_s: 290.0, run: Some(true), ..clock };
    sim.set_clock(SERIAL, clock);
    let game = wait_game(&mut arbiter, &name, "the illegal move ruled", |g| g.black_illegal_moves == 1).await;
    assert_eq!(game.moves_uci.len(), 3, "the illegal move is not on the record");
    let bridge_after = tokio::task::spawn_blocking(move || {
        let line = bridge.expect("corrections");
        (bridge, line)
    })
    .await
    .unwrap();
    bridge = bridge_after.0;
    // LiveChess is told the reinstated position: Black to move, knight on b8.
    sim.wait_for("the correcting setup", WAIT, |s| {
        s.setups().iter().any(|(_, f)| f.starts_with(after_nf3) && f.contains(" b "))
    })
    .await;
    // The hand puts the knight back, and the arbiter puts the board's clock
    // right: Black's runs again (no press: the service's clock runs for
    // Black already).
    hand(&sim, "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R", after_nf3).await;
    clock = Clock { run: Some(false), ..clock };
    sim.set_clock(SERIAL, clock);
    // 2... Nc6, legal.
    hand(
        &sim,
        "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
    )
    .await;
    clock = Clock { black_s: 285.0, run: Some(true), ..clock };
    sim.set_clock(SERIAL, clock);
    let game = wait_game(&mut arbiter, &name, "2... Nc6 completed", |g| {
        g.moves_uci.len() == 4 && g.clocks.as_ref().is_some_and(|c| c.running == pb::Color::White as i32)
    })
    .await;
    assert_eq!(game.moves_uci[3], "b8c6");

    // White's flag falls: the arbiter sets White's clock to one second, it
    // runs out, and the bridge, told the game is over, stops by itself.
    arbiter
        .set_clock(pb::SetClockRequest {
            name: name.clone(),
            color: pb::Color::White as i32,
            remaining_ms: 1_000,
            ..Default::default()
        })
        .await
        .expect("SetClock");
    let game =
        wait_game(&mut arbiter, &name, "the flag", |g| g.status == pb::GameStatus::Finished as i32).await;
    let end = game.end.as_ref().expect("the end of the game");
    assert_eq!(end.result, "0-1", "{game:#?}");
    assert!(end.rule_id.starts_with("FIDE-6.9"), "{end:?}");
    sim.set_board(SERIAL, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R");
    let code = tokio::task::spawn_blocking(move || {
        bridge.expect("the game is over");
        bridge.exit_code()
    })
    .await
    .unwrap();
    assert_eq!(code, Some(0));
    server.stop().await;
}
