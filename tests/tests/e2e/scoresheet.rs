//! A scoresheet can say everything, and the answer says what happened: moves
//! written in SAN or long algebraic, legal or not, ruled by the Laws (7.5)
//! with the outcome in the MakeMove and PressClock responses; an ambiguous
//! one named; the claim of an illegal move in a game entered after the fact
//! (A.5.2); set-up errors (7.2, 7.3, A.5.1.2); two touches at once (4.3.3).

use arbiter_e2e::{
    TestServer, create, expect_bad_field, expect_code, expect_reason, expect_ruling, get_game, make_move,
    new_game, play_otb, regulations, rule_id, v1 as pb,
};
use tonic::Code;
use tonic_types::StatusExt;

fn press(name: &str) -> pb::PressClockRequest {
    pb::PressClockRequest { name: name.to_string(), ..Default::default() }
}

fn otb(fen: Option<&str>) -> pb::CreateGameRequest {
    let mut r = regulations("90+30", pb::Mode::OverTheBoard);
    r.start_fen = fen.unwrap_or_default().to_owned();
    new_game(r, true)
}

fn outcome(o: i32) -> pb::MoveOutcome {
    pb::MoveOutcome::try_from(o).expect("a known outcome")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_in_san_are_ruled_and_the_answer_says_what_happened() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, otb(None)).await;

    // White touches his knight, then plays d4: refused by touch-move, and
    // the answer says so, with the obligation.
    let touch = pb::TouchPieceRequest { name: t.name.clone(), square: "g1".into(), ..Default::default() };
    t.white.touch_piece(touch).await.unwrap();
    let refused = t.white.make_move(make_move(&t.name, "d4")).await.unwrap().into_inner();
    assert_eq!(outcome(refused.outcome), pb::MoveOutcome::RefusedTouchMove);
    let o = refused.obligation.expect("the obligation is in the answer");
    let mut allowed = o.allowed_moves.clone();
    allowed.sort();
    assert_eq!(allowed, ["g1f3", "g1h3"]);
    assert_eq!(o.rule_id, "FIDE-4.3a");

    // The knight in long algebraic: accepted, and the press completes it.
    let made = t.white.make_move(make_move(&t.name, "Ng1-f3")).await.unwrap().into_inner();
    assert_eq!(outcome(made.outcome), pb::MoveOutcome::Accepted);
    assert!(made.obligation.is_none());
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    assert_eq!(outcome(pressed.outcome), pb::MoveOutcome::Accepted);

    // Black writes `Bb4`: the f8 bishop, blocked by the e7 pawn. Not refused
    // as "not a legal move": an illegal move, ruled when completed.
    let made = t.black.make_move(make_move(&t.name, "Bb4")).await.unwrap().into_inner();
    assert_eq!(outcome(made.outcome), pb::MoveOutcome::IllegalNotCompleted);
    let r = expect_ruling(made.event.as_ref().unwrap(), "ILLEGAL_MOVE_NOT_COMPLETED");
    assert_eq!(r.rule_id, "FIDE-7.5.1");
    assert_eq!(r.facts["description"], "Bf8-b4");
    let pressed = t.black.press_clock(press(&t.name)).await.unwrap().into_inner();
    assert_eq!(outcome(pressed.outcome), pb::MoveOutcome::RuledIllegal);
    let e = pressed.event.unwrap();
    assert_eq!(expect_ruling(&e, "ILLEGAL_MOVE").rule_id, "FIDE-7.5.1");
    assert_eq!(pressed.game.unwrap().black_illegal_moves, 1);

    // Out of turn, in SAN as in UCI: the Laws refuse it (FAILED_PRECONDITION).
    let s = expect_reason(
        t.white.make_move(make_move(&t.name, "e4")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-1.3"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ambiguous_move_names_its_candidates() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, otb(Some("4k2N/8/8/8/5N2/8/8/4K3 w - - 0 1"))).await;
    let s = expect_bad_field(t.white.make_move(make_move(&t.name, "Ng6")).await, "move");
    let bad = s.get_details_bad_request().unwrap();
    assert_eq!(bad.field_violations[0].description, "Ng6 could be Nf4-g6 or Nh8-g6; write the origin square");
    // Nothing was recorded; with the origin it is read.
    assert_eq!(get_game(&mut arbiter, &t.name).await.last_seq, t.game.last_seq);
    let made = t.white.make_move(make_move(&t.name, "Nhg6")).await.unwrap().into_inner();
    assert_eq!(outcome(made.outcome), pb::MoveOutcome::Accepted);
    assert_eq!(made.game.unwrap().moves_uci, ["h8g6"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_castling_and_an_unfinished_promotion_from_the_scoresheet() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // No castling right left: O-O is an illegal move, the king towards g1.
    let mut t =
        create(&server, &mut arbiter, otb(Some("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1"))).await;
    let made = t.white.make_move(make_move(&t.name, "O-O")).await.unwrap().into_inner();
    assert_eq!(outcome(made.outcome), pb::MoveOutcome::IllegalNotCompleted);
    let e = made.event.unwrap();
    assert_eq!(e.details["mv.castle"], "true", "{e:#?}");
    assert_eq!(expect_ruling(&e, "ILLEGAL_MOVE_NOT_COMPLETED").facts["description"], "Ke1-g1");
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    assert_eq!(outcome(pressed.outcome), pb::MoveOutcome::RuledIllegal);

    // A pawn taking on b8, no piece put down: an unfinished promotion (7.5.2).
    let mut t = create(&server, &mut arbiter, otb(Some("1n2k3/2P5/8/8/8/8/8/4K3 w - - 0 1"))).await;
    let made = t.white.make_move(make_move(&t.name, "cxb8")).await.unwrap().into_inner();
    assert_eq!(outcome(made.outcome), pb::MoveOutcome::UnfinishedPromotion);
    assert_eq!(expect_ruling(made.event.as_ref().unwrap(), "MOVE_MADE").rule_id, "FIDE-7.5.2");
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    assert_eq!(outcome(pressed.outcome), pb::MoveOutcome::RuledIllegal);
    assert_eq!(pressed.game.unwrap().white_illegal_moves, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_of_an_illegal_move_in_a_game_entered_after_the_fact() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut r = regulations("90+30", pb::Mode::OverTheBoard);
    r.entered_after_the_fact = true;
    let mut t = create(&server, &mut arbiter, new_game(r.clone(), true)).await;
    assert!(t.game.regulations.as_ref().unwrap().entered_after_the_fact);

    // White's pawn three squares forward, entered from the scoresheet: not
    // acted on by itself (A.5.2).
    t.white.make_move(make_move(&t.name, "e2-e5")).await.unwrap();
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    assert_eq!(outcome(pressed.outcome), pb::MoveOutcome::IllegalNotActedOn);
    assert_eq!(
        expect_ruling(pressed.event.as_ref().unwrap(), "ILLEGAL_MOVE_NOT_ACTED_ON").rule_id,
        "FIDE-A.5.2"
    );
    // White cannot claim his own move; Black claims it before his move.
    expect_code(
        t.white
            .claim_illegal_move(pb::ClaimIllegalMoveRequest { name: t.name.clone(), ..Default::default() })
            .await,
        Code::FailedPrecondition,
    );
    let claimed = t
        .black
        .claim_illegal_move(pb::ClaimIllegalMoveRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let e = claimed.event.unwrap();
    assert_eq!((e.act.as_str(), e.actor.as_str()), ("CLAIM_ILLEGAL_MOVE", "black"));
    assert_eq!(expect_ruling(&e, "ILLEGAL_MOVE_CLAIMED").rule_id, "FIDE-A.5.2");
    assert_eq!(expect_ruling(&e, "ILLEGAL_MOVE").color, pb::Color::White as i32);
    let game = claimed.game.unwrap();
    assert_eq!(game.white_illegal_moves, 1);
    assert!(game.moves_uci.is_empty(), "the position before it is reinstated");

    // In a game the service watches, there is nothing to claim.
    let mut watched = create(&server, &mut arbiter, otb(None)).await;
    let s = expect_code(
        watched
            .black
            .claim_illegal_move(pb::ClaimIllegalMoveRequest {
                name: watched.name.clone(),
                ..Default::default()
            })
            .await,
        Code::FailedPrecondition,
    );
    assert_eq!(rule_id(&s).as_deref(), Some("FIDE-A.5.2"));
    // Online the platform sees every move: refused at creation.
    r.mode = pb::Mode::Online as i32;
    expect_bad_field(arbiter.create_game(new_game(r, false)).await, "regulations.entered_after_the_fact");
    server.stop().await;
}

fn setup(name: &str, kind: pb::SetupErrorKind) -> pb::ReportSetupErrorRequest {
    pb::ReportSetupErrorRequest { name: name.to_string(), kind: kind as i32, ..Default::default() }
}

/// Ten pawn moves each, no capture, no position repeated.
const TEN_EACH: [&str; 20] = [
    "a2a3", "a7a6", "b2b3", "b7b6", "c2c3", "c7c6", "d2d3", "d7d6", "e2e3", "e7e6", "f2f3", "f7f6", "g2g3",
    "g7g6", "h2h3", "h7h6", "a3a4", "a6a5", "b3b4", "b6b5",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_up_errors_through_the_api() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;

    // 7.3: colours reversed before ten moves each: the game is annulled.
    let t = create(&server, &mut arbiter, otb(None)).await;
    play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5"]).await;
    let r = arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::ColoursReversed)).await.unwrap();
    let e = r.into_inner().event.unwrap();
    assert_eq!(e.act, "SETUP_ERROR_FOUND");
    let over = expect_ruling(&e, "GAME_OVER");
    assert_eq!(over.rule_id, "FIDE-7.3");

    // 7.2.2: a wrongly oriented board: the game continues.
    let t = create(&server, &mut arbiter, otb(None)).await;
    let r =
        arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::BoardWronglyOriented)).await.unwrap();
    let r = r.into_inner();
    assert_eq!(expect_ruling(r.event.as_ref().unwrap(), "SETUP_ERROR_STANDS").rule_id, "FIDE-7.2b");
    assert_eq!(r.game.unwrap().status, pb::GameStatus::InProgress as i32);
    // 7.2.1: a wrong initial position annuls it.
    let r =
        arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::WrongInitialPosition)).await.unwrap();
    assert_eq!(expect_ruling(r.into_inner().event.as_ref().unwrap(), "GAME_OVER").rule_id, "FIDE-7.2a");

    // A.5.1: in rapid, colours reversed after ten moves each: play goes on;
    // a misplaced rook found then bans castling with it.
    let rapid = new_game(regulations("15+10", pb::Mode::OverTheBoard), true);
    let t = create(&server, &mut arbiter, rapid).await;
    play_otb(&mut arbiter, &t.name, 0, &TEN_EACH).await;
    let r = arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::ColoursReversed)).await.unwrap();
    let r = r.into_inner();
    assert_eq!(expect_ruling(r.event.as_ref().unwrap(), "SETUP_ERROR_STANDS").rule_id, "FIDE-7.3");
    let rook = pb::ReportSetupErrorRequest {
        square: "h1".into(),
        ..setup(&t.name, pb::SetupErrorKind::RookMisplaced)
    };
    let r = arbiter.report_setup_error(rook).await.unwrap().into_inner();
    assert_eq!(expect_ruling(r.event.as_ref().unwrap(), "SETUP_ERROR_STANDS").rule_id, "FIDE-A.5.1");
    // A king misplaced needs its colour; malformed requests name the field.
    expect_bad_field(
        arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::KingMisplaced)).await,
        "color",
    );
    expect_bad_field(
        arbiter.report_setup_error(setup(&t.name, pb::SetupErrorKind::Unspecified)).await,
        "kind",
    );
    // An arbiter's act: a player token may not report it.
    let mut white = server.client(Some(&t.white_token)).await;
    expect_code(
        white.report_setup_error(setup(&t.name, pb::SetupErrorKind::ColoursReversed)).await,
        Code::PermissionDenied,
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_touches_at_once_count_the_own_piece_first() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, otb(None)).await;
    play_otb(&mut arbiter, &t.name, 0, &["e2e4", "d7d5"]).await;
    // The pawn d5 and the knight g1 at once, named in either order: the
    // knight counts first (4.3.3); it cannot take d5, so it must move.
    let both = pb::TouchPieceRequest {
        name: t.name.clone(),
        square: "d5".into(),
        simultaneous_square: "g1".into(),
        ..Default::default()
    };
    let touched = t.white.touch_piece(both.clone()).await.unwrap().into_inner();
    let e = touched.event.unwrap();
    assert_eq!(e.act, "SIMULTANEOUS_TOUCH");
    assert_eq!((e.details["own"].as_str(), e.details["opponent"].as_str()), ("g1", "d5"));
    let mut allowed = touched.game.unwrap().obligation.expect("an obligation").allowed_moves;
    allowed.sort();
    assert_eq!(allowed, ["g1e2", "g1f3", "g1h3"]);
    // Two touches at once are touches with intent, on two squares.
    let adjust = pb::TouchPieceRequest { kind: pb::TouchKind::Adjust as i32, ..both.clone() };
    expect_bad_field(t.white.touch_piece(adjust).await, "kind");
    let same = pb::TouchPieceRequest { simultaneous_square: "d5".into(), ..both };
    expect_bad_field(t.white.touch_piece(same).await, "simultaneous_square");
    server.stop().await;
}
