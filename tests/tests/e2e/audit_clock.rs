//! The clock and Guidelines III defects of the 2026-12 laws audit through
//! gRPC (the cases of `crates/laws/tests/audit_clock.rs`): the clock's move
//! counter after a forgotten press and after a reinstated position
//! (DEC-22), the arbiter's `SetMoveCounter` and `InstallTimeControl`
//! (6.10.2), a postponed III.5 claim after a flag (DEC-23), an unreplaced
//! pawn or a two-handed move answered before the press (DEC-24), and an
//! increment request granted only once its draw offer is refused (DEC-25).

use std::time::{Duration, Instant};

use arbiter_chess::dead::is_dead_quick;
use arbiter_chess::{GameRecord, Position};
use arbiter_e2e::{
    Client, Table, TestServer, all_events, clocks, create, expect_bad_field, expect_code, expect_reason,
    expect_ruling, get_game, new_game, play_otb, regulations, rule_id, ruling, v1 as pb,
};
use tonic::Code;

const W: pb::Color = pb::Color::White;
const B: pb::Color = pb::Color::Black;

/// 40 moves in 90 minutes, then 30 minutes, 30 seconds a move from move 1.
const TWO_PERIODS: &str = "pgn:40/5400+30:1800+30";
/// The same control as the PGN-only field of InstallTimeControl takes it.
const TWO_PERIODS_PGN: &str = "40/5400+30:1800+30";

/// A line of `plies` legal moves (UCI) from `start`: no capture, no
/// position three times, no end, so that nothing but time decides.
fn quiet_line(start: &Position, plies: usize) -> Vec<String> {
    (1u64..).find_map(|seed| try_quiet_line(start, plies, seed)).expect("a quiet line")
}

fn try_quiet_line(start: &Position, plies: usize, seed: u64) -> Option<Vec<String>> {
    let mut record = GameRecord::new(*start);
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::new();
    for _ in 0..plies {
        let pos = *record.position();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let m = (0..500)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                moves[(x % moves.len() as u64) as usize]
            })
            .find(|&m| {
                let next = pos.after(m);
                let mut again = record.clone();
                again.push_unchecked(m);
                !pos.is_capture(m)
                    && next.has_legal_move()
                    && !is_dead_quick(&next)
                    && again.repetitions() < 2
            })?;
        out.push(pos.uci(m).to_string());
        record.push_unchecked(m);
    }
    Some(out)
}

fn color_of(mover: pb::Color) -> i32 {
    mover as i32
}

async fn make(arbiter: &mut Client, name: &str, color: pb::Color, mv: &str) -> pb::MakeMoveResponse {
    arbiter
        .make_move(pb::MakeMoveRequest {
            name: name.to_string(),
            color: color_of(color),
            r#move: mv.to_string(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("move {mv}: {e:?}"))
        .into_inner()
}

async fn press(arbiter: &mut Client, name: &str, color: pb::Color) -> pb::PressClockResponse {
    arbiter
        .press_clock(pb::PressClockRequest {
            name: name.to_string(),
            color: color_of(color),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("press: {e:?}"))
        .into_inner()
}

async fn set_clock(arbiter: &mut Client, name: &str, color: pb::Color, remaining_ms: i64) {
    arbiter
        .set_clock(pb::SetClockRequest {
            name: name.to_string(),
            color: color_of(color),
            remaining_ms,
            ..Default::default()
        })
        .await
        .unwrap();
}

async fn answer(
    arbiter: &mut Client,
    name: &str,
    id: u32,
    answer: pb::Answer,
) -> Result<pb::AnswerQuestionResponse, tonic::Status> {
    arbiter
        .answer_question(pb::AnswerQuestionRequest {
            name: name.to_string(),
            question_id: id,
            answer: answer as i32,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The `MOVE_COUNTER_SET` facts of an event: (colour, moves).
fn counters_set(event: &pb::GameEvent) -> Vec<(String, String, String)> {
    event
        .rulings
        .iter()
        .filter(|r| r.decision == "MOVE_COUNTER_SET")
        .map(|r| (r.rule_id.clone(), r.facts["color"].clone(), r.facts["moves_completed"].clone()))
        .collect()
}

fn counter(rule: &str, color: &str, moves: u32) -> (String, String, String) {
    (rule.to_string(), color.to_string(), moves.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_02_forgotten_press_keeps_second_period() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t =
        create(&server, &mut arbiter, new_game(regulations(TWO_PERIODS, pb::Mode::OverTheBoard), true)).await;
    let line = quiet_line(&Position::startpos(), 80);
    for (k, mv) in line[..79].iter().enumerate() {
        let color = if k % 2 == 0 { W } else { B };
        if k == 78 {
            // White's 40th move on the board, with 10 s left.
            set_clock(&mut arbiter, &t.name, W, 10_000).await;
        }
        let made = make(&mut arbiter, &t.name, color, mv).await;
        if k == 10 {
            // White's next move completes his unpressed 5th (6.2.1.2).
            assert_eq!(counters_set(made.event.as_ref().unwrap()), [counter("FIDE-6.2a", "white", 5)]);
        }
        if k == 8 {
            continue; // White forgets to press.
        }
        let pressed = press(&mut arbiter, &t.name, color).await;
        let e = pressed.event.unwrap();
        match k {
            // Black's press completes his reply on White's running clock.
            9 => {
                assert_eq!(counters_set(&e), [counter("FIDE-6.2a", "black", 5)]);
                assert!(ruling(&e, "MOVE_COMPLETED").is_none(), "{e:#?}");
            }
            // White's 40th move completed: the second period's 30' and the
            // increment (the old counter was one move behind).
            78 => {
                let done = expect_ruling(&e, "MOVE_COMPLETED");
                assert_eq!(
                    (done.rule_id.as_str(), done.facts["bonus_ms"].as_str()),
                    ("FIDE-6.2a", "1830000")
                );
                let left = clocks(pressed.game.as_ref().unwrap()).white_remaining_ms;
                assert!((1_830_000..=1_840_000).contains(&left), "{left}");
            }
            _ => {}
        }
    }
    // Black answers; 2 s later White is still on the clock, far from a flag.
    make(&mut arbiter, &t.name, B, &line[79]).await;
    press(&mut arbiter, &t.name, B).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let g = get_game(&mut arbiter, &t.name).await;
    assert_eq!(g.status, pb::GameStatus::InProgress as i32);
    assert!(clocks(&g).white_remaining_ms > 1_800_000);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_06_reinstatement_sets_move_counter() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t =
        create(&server, &mut arbiter, new_game(regulations(TWO_PERIODS, pb::Mode::OverTheBoard), true)).await;
    let line = quiet_line(&Position::startpos(), 80);
    let moves: Vec<&str> = line.iter().map(String::as_str).collect();
    play_otb(&mut arbiter, &t.name, 0, &moves[..78]).await;
    // Back to the position before White's 39th move (7.1).
    let reinstated = arbiter
        .reinstate_position(pb::ReinstatePositionRequest {
            name: t.name.clone(),
            ply: 76,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let e = reinstated.event.unwrap();
    assert_eq!(expect_ruling(&e, "POSITION_REINSTATED").rule_id, "FIDE-7.5.1");
    assert_eq!(counters_set(&e), [counter("FIDE-7.1", "white", 38), counter("FIDE-7.1", "black", 38)]);
    // White's replayed 39th move earns the increment only; his 40th the
    // 30' of the second period as well.
    let mut bonuses = Vec::new();
    for (i, mv) in moves[76..79].iter().enumerate() {
        let color = if i % 2 == 0 { W } else { B };
        make(&mut arbiter, &t.name, color, mv).await;
        let pressed = press(&mut arbiter, &t.name, color).await;
        bonuses
            .push(expect_ruling(pressed.event.as_ref().unwrap(), "MOVE_COMPLETED").facts["bonus_ms"].clone());
    }
    assert_eq!(bonuses, ["30000", "30000", "1830000"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_06_arbiter_sets_move_counter_and_installs_time_control() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // A game resumed at move 31 on a clock set to 90'+30" without the
    // second period.
    let mut regs = regulations("pgn:5400+30", pb::Mode::OverTheBoard);
    regs.start_fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 31".into();
    let t = create(&server, &mut arbiter, new_game(regs, true)).await;
    let installed = arbiter
        .install_time_control(pb::InstallTimeControlRequest {
            name: t.name.clone(),
            pgn_time_control: TWO_PERIODS_PGN.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let e = installed.event.unwrap();
    assert_eq!(e.act, "INSTALL_TIME_CONTROL");
    assert_eq!(e.details["time_control"], TWO_PERIODS_PGN);
    let r = expect_ruling(&e, "TIME_CONTROL_INSTALLED");
    assert_eq!((r.rule_id.as_str(), r.facts["time_control"].as_str()), ("FIDE-6.10", TWO_PERIODS_PGN));
    for color in [W, B] {
        let set = arbiter
            .set_move_counter(pb::SetMoveCounterRequest {
                name: t.name.clone(),
                color: color as i32,
                moves_completed: 30,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let e = set.event.unwrap();
        assert_eq!(e.act, "SET_MOVE_COUNTER");
        let side = if color == W { "white" } else { "black" };
        assert_eq!(counters_set(&e), [counter("FIDE-6.10", side, 30)]);
    }
    // Bad requests are named by their field.
    expect_bad_field(
        arbiter
            .set_move_counter(pb::SetMoveCounterRequest {
                name: t.name.clone(),
                color: W as i32,
                moves_completed: 10_001,
                ..Default::default()
            })
            .await,
        "moves_completed",
    );
    expect_bad_field(
        arbiter
            .set_move_counter(pb::SetMoveCounterRequest {
                name: t.name.clone(),
                moves_completed: 3,
                ..Default::default()
            })
            .await,
        "color",
    );
    for bad in ["", "90m+30s", "40/90m+30s, 30m+30s"] {
        expect_bad_field(
            arbiter
                .install_time_control(pb::InstallTimeControlRequest {
                    name: t.name.clone(),
                    pgn_time_control: bad.into(),
                    ..Default::default()
                })
                .await,
            "pgn_time_control",
        );
    }
    // They are the arbiter's: a player's token is refused.
    let mut white = server.client(Some(&t.white_token)).await;
    expect_code(
        white
            .set_move_counter(pb::SetMoveCounterRequest {
                name: t.name.clone(),
                color: W as i32,
                moves_completed: 31,
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
    );
    // Ten moves each: the 40th of the game brings the 30'.
    let line = quiet_line(&Position::from_fen(&get_game(&mut arbiter, &t.name).await.fen).unwrap(), 19);
    let moves: Vec<&str> = line.iter().map(String::as_str).collect();
    play_otb(&mut arbiter, &t.name, 0, &moves[..18]).await;
    make(&mut arbiter, &t.name, W, moves[18]).await;
    let pressed = press(&mut arbiter, &t.name, W).await;
    assert_eq!(expect_ruling(pressed.event.as_ref().unwrap(), "MOVE_COMPLETED").facts["bonus_ms"], "1830000");
    // The log reads the new events back.
    let events = all_events(&mut arbiter, &t.name).await;
    assert!(events.iter().any(|e| e.act == "INSTALL_TIME_CONTROL"));
    assert_eq!(events.iter().filter(|e| e.act == "SET_MOVE_COUNTER").count(), 2);
    server.stop().await;
}

/// A quickplay-finish game (90 minutes, Guidelines III), 1.e4 e5 2.Nf3
/// Nc6 played, White to move.
async fn quickplay(server: &TestServer, arbiter: &mut Client) -> Table {
    let mut regs = regulations("pgn:5400", pb::Mode::OverTheBoard);
    regs.guidelines_iii = true;
    let t = create(server, arbiter, new_game(regs, true)).await;
    play_otb(arbiter, &t.name, 0, &["e2e4", "e7e5", "g1f3", "b8c6"]).await;
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_07_postponed_claim_stays_open_after_flag() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = quickplay(&server, &mut arbiter).await;
    set_clock(&mut arbiter, &t.name, W, 90_000).await;
    let claimed = arbiter
        .claim_no_winning_attempt(pb::ClaimNoWinningAttemptRequest {
            name: t.name.clone(),
            color: W as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id: u32 =
        expect_ruling(claimed.event.as_ref().unwrap(), "QUESTION_OPENED").facts["id"].parse().unwrap();
    let postponed = answer(&mut arbiter, &t.name, id, pb::Answer::Postpone).await.unwrap();
    assert!(postponed.game.unwrap().open_questions.is_empty());
    // White's flag falls by the service's own timer.
    set_clock(&mut arbiter, &t.name, W, 300).await;
    let started = Instant::now();
    let flag = loop {
        let events = all_events(&mut arbiter, &t.name).await;
        let last = events.last().unwrap().clone();
        if last.act == "TICK" || started.elapsed() > Duration::from_secs(5) {
            break last;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(flag.actor, "timer");
    let over = expect_ruling(&flag, "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-6.9", "0-1"));
    let reopened = expect_ruling(&flag, "QUESTION_OPENED");
    assert_eq!(reopened.rule_id, "FIDE-III.5");
    assert_eq!(reopened.facts["id"], id.to_string());
    let g = get_game(&mut arbiter, &t.name).await;
    assert_eq!(g.open_questions.len(), 1);
    assert_eq!(g.open_questions[0].id, id);
    // No more postponing; the arbiter declares the draw (III.5.2).
    let s = expect_code(
        answer(&mut arbiter, &t.name, id, pb::Answer::Postpone).await.map(tonic::Response::new),
        Code::FailedPrecondition,
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-III.5"));
    let decided = answer(&mut arbiter, &t.name, id, pb::Answer::Accept).await.unwrap();
    let end = decided.game.unwrap().end.unwrap();
    assert_eq!((end.result.as_str(), end.rule_id.as_str()), ("1/2-1/2", "FIDE-III.5"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_09_unreplaced_pawn_answered_is_an_illegal_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut regs = regulations("90+30", pb::Mode::OverTheBoard);
    regs.start_fen = "8/4P3/8/8/8/7k/8/K7 w - - 0 60".into();
    let t = create(&server, &mut arbiter, new_game(regs, true)).await;
    make(&mut arbiter, &t.name, W, "e7e8").await;
    let black_before = clocks(&get_game(&mut arbiter, &t.name).await).black_remaining_ms;
    // Black answers before White presses: White's move is ruled now.
    let answered = make(&mut arbiter, &t.name, B, "h3h4").await;
    let e = answered.event.unwrap();
    let illegal = expect_ruling(&e, "ILLEGAL_MOVE");
    assert_eq!((illegal.rule_id.as_str(), illegal.facts["count"].as_str()), ("FIDE-7.5.2", "1"));
    let penalty = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((penalty.rule_id.as_str(), penalty.facts["delta_ms"].as_str()), ("FIDE-7.5.5", "120000"));
    assert!(ruling(&e, "MOVE_MADE").is_some());
    let g = answered.game.unwrap();
    assert_eq!(g.white_illegal_moves, 1);
    assert_eq!(clocks(&g).black_remaining_ms, black_before + 120_000);
    assert_eq!(g.fen, "4Q3/8/8/8/7k/8/8/K7 w - - 1 61", "the queen the arbiter placed");
    press(&mut arbiter, &t.name, B).await;
    let g = play_otb(&mut arbiter, &t.name, 0, &["a1a2"]).await;
    assert_eq!(g.fen, "4Q3/8/8/8/7k/8/K7/8 b - - 2 61", "the record holds the queen the arbiter placed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_09_two_handed_move_answered_before_the_press_is_a_warning() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5"]).await;
    make(&mut arbiter, &t.name, W, "g1f3").await;
    arbiter
        .report_two_hands(pb::ReportTwoHandsRequest {
            name: t.name.clone(),
            color: W as i32,
            ..Default::default()
        })
        .await
        .unwrap();
    let answered = make(&mut arbiter, &t.name, B, "b8c6").await;
    let e = answered.event.unwrap();
    let warning = expect_ruling(&e, "WARNING");
    assert_eq!((warning.rule_id.as_str(), warning.color), ("FIDE-12.9", W as i32));
    assert!(warning.facts["reason"].contains("7.5.4 needs the press"), "{warning:?}");
    assert!(ruling(&e, "ILLEGAL_MOVE").is_none());
    let g = answered.game.unwrap();
    assert_eq!(g.white_illegal_moves, 0);
    assert_eq!(g.moves_uci, ["e2e4", "e7e5", "g1f3", "b8c6"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_10_increment_request_waits_for_refused_offer() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let t = quickplay(&server, &mut arbiter).await;
    set_clock(&mut arbiter, &t.name, W, 100_000).await;
    let requested = arbiter
        .request_increment(pb::RequestIncrementRequest {
            name: t.name.clone(),
            color: W as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let e = requested.event.unwrap();
    assert_eq!(expect_ruling(&e, "DRAW_OFFERED").rule_id, "FIDE-III.4");
    let id: u32 = expect_ruling(&e, "QUESTION_OPENED").facts["id"].parse().unwrap();
    // The draw offer is still open: the arbiter cannot grant it yet.
    let s = expect_reason(
        answer(&mut arbiter, &t.name, id, pb::Answer::Accept).await.map(tonic::Response::new),
        Code::FailedPrecondition,
        "NOT_APPLICABLE",
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-III.4"));
    let g = get_game(&mut arbiter, &t.name).await;
    assert_eq!(g.open_questions.len(), 1);
    // Black declines; now the increment and Black's two minutes.
    arbiter
        .decline_draw(pb::DeclineDrawRequest { name: t.name.clone(), color: B as i32, ..Default::default() })
        .await
        .unwrap();
    let black_before = clocks(&get_game(&mut arbiter, &t.name).await).black_remaining_ms;
    let granted = answer(&mut arbiter, &t.name, id, pb::Answer::Accept).await.unwrap();
    let e = granted.event.unwrap();
    assert_eq!(expect_ruling(&e, "INCREMENT_INTRODUCED").facts["increment_ms"], "5000");
    let added = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((added.rule_id.as_str(), added.facts["delta_ms"].as_str()), ("FIDE-III.4", "120000"));
    assert_eq!(clocks(granted.game.as_ref().unwrap()).black_remaining_ms, black_before + 120_000);
    server.stop().await;
}
