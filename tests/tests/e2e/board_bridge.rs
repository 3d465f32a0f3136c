//! A game played on a simulated DGT LiveChess board through `arbiter board
//! connect` against the real service (issue 15, "done when"): the hands make
//! placements and press the clock on the simulated board; the bridge sends
//! them on ConnectBoard; the service infers the acts and rules them: moves,
//! touch evidence from a lift (its Article 4 obligation is still to build),
//! an illegal move reinstated with
//! corrections (and LiveChess told the reinstated position with `setup`),
//! (the flag, after which the bridge stops by itself, is still to make work).

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
    let t = create(&server, &mut arbiter, new_game(regulations("5+0", pb::Mode::OverTheBoard), true)).await;
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

    // White lifts the g1 knight and puts it back: touch evidence, which the
    // arbiter in the hall sees through the bridge. Not yet here: the
    // regulation that turns it into the obligation to move the knight
    // (Article 4.3.1) is the laws crate's part of issue 15, still to build;
    // this test is to check the obligation once it is.
    let after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
    hand(&sim, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKB1R", after_e5).await;
    let line = bridge.expect("knight on g1");
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
    // The hand puts the knight back.
    hand(&sim, "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R", after_nf3).await;
    // 2... Nc6, legal.
    hand(
        &sim,
        "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
    )
    .await;
    clock = Clock { black_s: 285.0, run: Some(false), ..clock };
    sim.set_clock(SERIAL, clock);
    let game = wait_game(&mut arbiter, &name, "2... Nc6", |g| g.moves_uci.len() == 4).await;
    assert_eq!(game.moves_uci[3], "b8c6");

    // Not yet here: White's flag falling (the arbiter sets White's clock
    // to one second) does not end the game in this run, so the bridge's
    // stop at the end of the game is not checked either. Issue 15 is open
    // on it; the steps go back in when the flag is ruled.
    drop(bridge);
    server.stop().await;
}
