//! Over the board: touch-move, completed illegal moves, clock presses.

use arbiter_e2e::{
    TestServer, create, expect_reason, expect_ruling, get_game, make_move, new_game, play_otb, regulations,
    rule_id, ruling, v1 as pb,
};
use tonic::Code;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn touch(name: &str, square: &str) -> pb::TouchPieceRequest {
    pb::TouchPieceRequest { name: name.to_string(), square: square.to_string(), ..Default::default() }
}

fn press(name: &str) -> pb::PressClockRequest {
    pb::PressClockRequest { name: name.to_string(), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn touch_move_binds_the_player() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;

    // White touches the e2 pawn with intent: bound to move it (4.3.1).
    let touched = t.white.touch_piece(touch(&t.name, "e2")).await.unwrap().into_inner();
    let e = touched.event.unwrap();
    assert_eq!((e.act.as_str(), e.actor.as_str()), ("TOUCH", "white"));
    assert_eq!(e.details["square"], "e2");
    let o = expect_ruling(&e, "OBLIGATION");
    assert_eq!((o.rule_id.as_str(), o.color), ("FIDE-4.3a", pb::Color::White as i32));
    let game = get_game(&mut arbiter, &t.name).await;
    let obligation = game.obligation.expect("the obligation is shown");
    assert_eq!(obligation.color, pb::Color::White as i32);
    assert_eq!(obligation.rule_id, "FIDE-4.3a");
    let mut allowed = obligation.allowed_moves.clone();
    allowed.sort();
    assert_eq!(allowed, ["e2e3", "e2e4"]);
    assert!(!obligation.reason.is_empty());

    // Black touching a piece while White has the move: a warning (DEC-2).
    let warned = t.black.touch_piece(touch(&t.name, "g8")).await.unwrap().into_inner();
    assert_eq!(expect_ruling(warned.event.as_ref().unwrap(), "WARNING").rule_id, "FIDE-4.2a");

    // Another piece moved: the service intervenes, the move is not made.
    let refused = t.white.make_move(make_move(&t.name, "g1f3")).await.unwrap().into_inner();
    let e = refused.event.unwrap();
    assert!(ruling(&e, "MOVE_MADE").is_none(), "{e:#?}");
    assert_eq!(expect_ruling(&e, "OBLIGATION").rule_id, "FIDE-4.3a");
    let game = refused.game.unwrap();
    assert!(game.moves_uci.is_empty());
    assert_eq!(game.fen, START_FEN);
    // Pressing now takes the move back; still White's move, no penalty.
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = pressed.event.unwrap();
    assert!(ruling(&e, "ILLEGAL_MOVE").is_none(), "an Article 4 breach is not an illegal move");
    let game = pressed.game.unwrap();
    assert_eq!(game.side_to_move, pb::Color::White as i32);
    assert_eq!(game.clocks.as_ref().unwrap().running, pb::Color::White as i32);
    assert_eq!(game.white_illegal_moves, 0);
    assert_eq!(game.obligation.as_ref().unwrap().rule_id, "FIDE-4.3a");

    // The touched pawn moves: the obligation is met.
    let game = play_otb(&mut arbiter, &t.name, 0, &["e2e4"]).await;
    assert_eq!(game.moves_uci, ["e2e4"]);
    assert!(game.obligation.is_none());

    // Black touches his d7 pawn: one of its two moves must be played.
    t.black.touch_piece(touch(&t.name, "d7")).await.unwrap();
    let game = get_game(&mut arbiter, &t.name).await;
    let allowed = game.obligation.unwrap().allowed_moves;
    assert!(allowed.contains(&"d7d5".to_string()) && allowed.len() == 2, "{allowed:?}");
    // An empty square cannot be touched.
    let s = expect_code_any(t.black.touch_piece(touch(&t.name, "d4")).await);
    assert!(s.message().contains("d4"), "{s:?}");
    server.stop().await;
}

/// An error that is neither INTERNAL nor OK, with the service's ErrorInfo.
#[track_caller]
fn expect_code_any<T: std::fmt::Debug>(r: Result<tonic::Response<T>, tonic::Status>) -> tonic::Status {
    let s = r.expect_err("an error");
    let code = s.code();
    assert!(matches!(code, Code::InvalidArgument | Code::FailedPrecondition), "{s:?}");
    arbiter_e2e::expect_code(Err::<tonic::Response<()>, _>(s), code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completed_illegal_move_is_penalised_and_reinstated() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    let before = get_game(&mut arbiter, &t.name).await;
    let black_before = before.clocks.as_ref().unwrap().black_remaining_ms;

    // A pawn three squares forward: accepted as an act, judged at the press.
    let made = t.white.make_move(make_move(&t.name, "e2e5")).await.unwrap().into_inner();
    let e = made.event.unwrap();
    let r = expect_ruling(&e, "ILLEGAL_MOVE_NOT_COMPLETED");
    assert_eq!(r.rule_id, "FIDE-7.5.1");
    assert!(made.game.unwrap().moves_uci.is_empty());

    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = pressed.event.unwrap();
    let illegal = expect_ruling(&e, "ILLEGAL_MOVE");
    assert_eq!((illegal.rule_id.as_str(), illegal.color), ("FIDE-7.5.1", pb::Color::White as i32));
    assert_eq!(illegal.facts["count"], "1");
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!(bonus.rule_id, "FIDE-7.5.5");
    assert_eq!(bonus.color, pb::Color::Black as i32, "the opponent gets the time");
    assert_eq!(bonus.facts["delta_ms"], "120000", "two minutes in standard play");
    let game = pressed.game.unwrap();
    assert_eq!(game.fen, START_FEN, "the position before the illegal move is reinstated");
    assert!(game.moves_uci.is_empty());
    assert_eq!(game.white_illegal_moves, 1);
    assert_eq!(game.black_illegal_moves, 0);
    let c = game.clocks.as_ref().unwrap();
    assert_eq!(c.black_remaining_ms, black_before + 120_000);
    assert_eq!(c.running, pb::Color::White as i32, "White still has the move");
    // The touched pawn must be moved.
    let o = game.obligation.expect("the moved piece binds");
    assert!(o.allowed_moves.iter().all(|m| m.starts_with("e2")), "{o:?}");

    // The record goes on; a second completed illegal move loses (7.5.5).
    let game = play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5"]).await;
    assert_eq!(game.moves_uci, ["e2e4", "e7e5"]);
    t.white.make_move(make_move(&t.name, "g1g3")).await.unwrap();
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = pressed.event.unwrap();
    assert_eq!(expect_ruling(&e, "ILLEGAL_MOVE").facts["count"], "2");
    let over = expect_ruling(&e, "GAME_OVER");
    assert_eq!((over.rule_id.as_str(), over.facts["result"].as_str()), ("FIDE-7.5.5", "0-1"));
    let game = pressed.game.unwrap();
    assert_eq!(game.status, pb::GameStatus::Finished as i32);
    assert_eq!(game.white_illegal_moves, 2);

    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    assert!(pgn.contains("FIDE-7.5.1"), "{pgn}");
    assert!(pgn.contains("FIDE-7.5.5"), "{pgn}");
    assert!(pgn.trim_end().ends_with("0-1"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_presses_out_of_turn_and_without_a_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;
    // Black's clock is not running: the press is refused (DEC-11).
    let s =
        expect_reason(t.black.press_clock(press(&t.name)).await, Code::FailedPrecondition, "NOT_YOUR_TURN");
    assert_eq!(rule_id(&s).as_deref(), Some("DEC-11"));
    // Black cannot move on White's turn.
    let s = expect_reason(
        t.black.make_move(make_move(&t.name, "e7e5")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-1.3"));
    // A legal move released cannot be changed (4.7).
    t.white.make_move(make_move(&t.name, "e2e4")).await.unwrap();
    let s = expect_reason(
        t.white.make_move(make_move(&t.name, "d2d4")).await,
        Code::FailedPrecondition,
        "PIECE_RELEASED",
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-4.7"));
    t.white.press_clock(press(&t.name)).await.unwrap();
    // Black presses without moving: an illegal move (7.5.3), White gets time.
    let game = get_game(&mut arbiter, &t.name).await;
    let white_before = game.clocks.as_ref().unwrap().white_remaining_ms;
    let pressed = t.black.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = pressed.event.unwrap();
    assert!(expect_ruling(&e, "ILLEGAL_MOVE").summary.contains("without a move"), "{e:#?}");
    let game = pressed.game.unwrap();
    assert_eq!(game.black_illegal_moves, 1);
    assert_eq!(game.clocks.as_ref().unwrap().white_remaining_ms, white_before + 120_000);
    assert_eq!(game.moves_uci, ["e2e4"]);
    server.stop().await;
}
