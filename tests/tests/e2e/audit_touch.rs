//! The claim and touch-move defects of the laws audit
//! (`shared/spec/reviews/laws-audit.md`, points 1, 3, 4, 5, 8 and 11)
//! through gRPC against the real `arbiterd`: the rulings each act gets, the
//! obligation the game shows, the clocks, and the move the audit saw
//! wrongly accepted now refused.

use arbiter_e2e::{
    Table, TestServer, create, expect_ruling, get_game, make_move, new_game, play_otb, regulations, ruling,
    v1 as pb,
};

const SHUFFLE: [&str; 7] = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
const CASTLE_FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

fn claim(name: &str, written: &str) -> pb::ClaimDrawRequest {
    pb::ClaimDrawRequest {
        name: name.to_string(),
        kind: pb::ClaimKind::ThreefoldRepetition as i32,
        intended_move: written.to_string(),
        ..Default::default()
    }
}

fn touch(name: &str, square: &str) -> pb::TouchPieceRequest {
    pb::TouchPieceRequest { name: name.to_string(), square: square.to_string(), ..Default::default() }
}

fn press(name: &str) -> pb::PressClockRequest {
    pb::PressClockRequest { name: name.to_string(), ..Default::default() }
}

/// An over-the-board game at 90+30, from `fen` if given.
async fn otb_game(server: &TestServer, arbiter: &mut arbiter_e2e::Client, fen: Option<&str>) -> Table {
    let mut regs = regulations("90+30", pb::Mode::OverTheBoard);
    if let Some(fen) = fen {
        regs.start_fen = fen.into();
    }
    create(server, arbiter, new_game(regs, true)).await
}

/// The obligation the game shows: its rule and its moves in UCI, sorted.
fn shown_obligation(game: &pb::Game) -> (String, Vec<String>) {
    let o = game.obligation.as_ref().expect("an obligation is shown");
    let mut allowed = o.allowed_moves.clone();
    allowed.sort();
    (o.rule_id.clone(), allowed)
}

/// The OBLIGATION ruling of `e`: its rule and its moves in SAN.
fn obligation_ruling(e: &pb::GameEvent) -> (String, String) {
    let o = expect_ruling(e, "OBLIGATION");
    (o.rule_id.clone(), o.facts["allowed"].clone())
}

/// Makes `uci` with `player`'s token and asserts it was refused by the
/// obligation (no MOVE_MADE, an OBLIGATION ruling under `rule`).
async fn assert_refused(player: &mut arbiter_e2e::Client, name: &str, uci: &str, rule: &str) {
    let r = player.make_move(make_move(name, uci)).await.unwrap().into_inner();
    let e = r.event.unwrap();
    assert!(ruling(&e, "MOVE_MADE").is_none(), "{uci} must be refused: {e:#?}");
    assert_eq!(expect_ruling(&e, "OBLIGATION").rule_id, rule, "{uci}");
}

/// Makes `uci` with `player`'s token and asserts it was made as `san`.
async fn assert_made(player: &mut arbiter_e2e::Client, name: &str, uci: &str, san: &str) -> pb::Game {
    let r = player.make_move(make_move(name, uci)).await.unwrap().into_inner();
    let e = r.event.unwrap();
    assert_eq!(expect_ruling(&e, "MOVE_MADE").facts["san"], san, "{e:#?}");
    r.game.unwrap()
}

fn clocks(game: &pb::Game) -> (i64, i64) {
    let c = game.clocks.as_ref().expect("clocks");
    (c.white_remaining_ms, c.black_remaining_ms)
}

/// Audit 1.1 (d13), DEC-18: 9.2.1.1 and 9.5.3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_01_written_intended_move_cannot_be_changed() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = otb_game(&server, &mut arbiter, None).await;
    let game = play_otb(&mut arbiter, &t.name, 0, &SHUFFLE).await;
    let (white, _) = clocks(&game);

    // Black writes Nc6 (not a repetition) and claims: incorrect.
    let r = t.black.claim_draw(claim(&t.name, "Nc6")).await.unwrap().into_inner();
    let e = r.event.unwrap();
    let wrong = expect_ruling(&e, "CLAIM_INCORRECT");
    assert_eq!((wrong.rule_id.as_str(), wrong.color), ("FIDE-9.5c", pb::Color::Black as i32));
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((bonus.rule_id.as_str(), bonus.color), ("FIDE-9.5c", pb::Color::White as i32));
    assert_eq!(bonus.facts["delta_ms"], "120000");
    assert_eq!(obligation_ruling(&e), ("FIDE-9.5c".into(), "Nc6".into()));
    let game = r.game.unwrap();
    assert_eq!(shown_obligation(&game), ("FIDE-9.5c".into(), vec!["b8c6".into()]));
    assert_eq!(clocks(&game).0, white + 120_000);

    // He writes Ng8, which would repeat, and claims again: no draw.
    let r = t.black.claim_draw(claim(&t.name, "Ng8")).await.unwrap().into_inner();
    let e = r.event.unwrap();
    assert!(ruling(&e, "GAME_OVER").is_none(), "the second claim must not draw: {e:#?}");
    let wrong = expect_ruling(&e, "CLAIM_INCORRECT");
    assert_eq!(wrong.rule_id, "FIDE-9.5c");
    assert!(wrong.facts["reason"].contains("cannot be changed"), "{wrong:?}");
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((bonus.color, bonus.facts["delta_ms"].as_str()), (pb::Color::White as i32, "120000"));
    assert_eq!(obligation_ruling(&e), ("FIDE-9.5c".into(), "Nc6".into()));
    let game = r.game.unwrap();
    assert_eq!(game.status, pb::GameStatus::InProgress as i32);
    assert!(game.end.is_none());
    assert_eq!(shown_obligation(&game), ("FIDE-9.5c".into(), vec!["b8c6".into()]));
    assert_eq!(clocks(&game).0, white + 240_000, "two incorrect claims, two penalties");

    // Ng8 is refused; Nc6 is played and completed.
    assert_refused(&mut t.black, &t.name, "f6g8", "FIDE-9.5c").await;
    assert_made(&mut t.black, &t.name, "b8c6", "Nc6").await;
    let pressed = t.black.press_clock(press(&t.name)).await.unwrap().into_inner();
    expect_ruling(pressed.event.as_ref().unwrap(), "MOVE_COMPLETED");
    let game = pressed.game.unwrap();
    assert_eq!(game.black_illegal_moves, 0);
    assert!(game.obligation.is_none());
    server.stop().await;
}

/// Audit 1.3 (d06), DEC-19: 9.4, 9.5.3 and 4.3.1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_03_incorrect_claim_never_releases_touch_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = otb_game(&server, &mut arbiter, None).await;
    let game = play_otb(&mut arbiter, &t.name, 0, &SHUFFLE[..3]).await;
    let (white, _) = clocks(&game);

    let r = t.black.touch_piece(touch(&t.name, "b8")).await.unwrap().into_inner();
    assert_eq!(obligation_ruling(r.event.as_ref().unwrap()), ("FIDE-4.3a".into(), "Na6 Nc6".into()));

    // 9.4: the right to claim is lost on this move; Ng8 written.
    let r = t.black.claim_draw(claim(&t.name, "Ng8")).await.unwrap().into_inner();
    let e = r.event.unwrap();
    let wrong = expect_ruling(&e, "CLAIM_INCORRECT");
    assert_eq!(wrong.rule_id, "FIDE-9.5c");
    assert!(wrong.facts["reason"].contains("9.4"), "{wrong:?}");
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((bonus.color, bonus.facts["delta_ms"].as_str()), (pb::Color::White as i32, "120000"));
    // The touched knight still binds, not "another move of the piece on f6".
    assert_eq!(obligation_ruling(&e), ("FIDE-4.3a".into(), "Na6 Nc6".into()));
    let game = r.game.unwrap();
    assert_eq!(shown_obligation(&game), ("FIDE-4.3a".into(), vec!["b8a6".into(), "b8c6".into()]));
    assert_eq!(clocks(&game).0, white + 120_000);

    // Nf6-d5, which the audit saw accepted, and the written Ng8 are refused.
    assert_refused(&mut t.black, &t.name, "f6d5", "FIDE-4.3a").await;
    assert_refused(&mut t.black, &t.name, "f6g8", "FIDE-4.3a").await;
    let game = assert_made(&mut t.black, &t.name, "b8c6", "Nc6").await;
    assert_eq!(game.moves_uci.last().map(String::as_str), Some("b8c6"));
    server.stop().await;
}

/// Audit 1.4 (t01, t02): 3.7.3.1, 4.3.2 and 4.3.3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_04_pawn_capturable_en_passant_is_capturable() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let opening = ["e2e4", "a7a6", "e4e5", "d7d5"];

    // t01: the d5 pawn can be taken only en passant: it must be (4.3.2).
    let mut t = otb_game(&server, &mut arbiter, None).await;
    play_otb(&mut arbiter, &t.name, 0, &opening).await;
    let r = t.white.touch_piece(touch(&t.name, "d5")).await.unwrap().into_inner();
    assert_eq!(obligation_ruling(r.event.as_ref().unwrap()), ("FIDE-4.3b".into(), "exd6".into()));
    assert_eq!(shown_obligation(&r.game.unwrap()), ("FIDE-4.3b".into(), vec!["e5d6".into()]));
    // Refused; the knight moved is now touched too, and the pawn touched
    // first must still be taken (4.3.3).
    assert_refused(&mut t.white, &t.name, "g1f3", "FIDE-4.3c").await;
    let game = get_game(&mut arbiter, &t.name).await;
    assert_eq!(shown_obligation(&game), ("FIDE-4.3c".into(), vec!["e5d6".into()]));
    let game = assert_made(&mut t.white, &t.name, "e5d6", "exd6").await;
    assert!(game.fen.starts_with("rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b"), "{}", game.fen);

    // t02: own pawn e5, then the pawn d5: exd6, not e6 (4.3.3).
    let mut t = otb_game(&server, &mut arbiter, None).await;
    play_otb(&mut arbiter, &t.name, 0, &opening).await;
    t.white.touch_piece(touch(&t.name, "e5")).await.unwrap();
    let r = t.white.touch_piece(touch(&t.name, "d5")).await.unwrap().into_inner();
    assert_eq!(obligation_ruling(r.event.as_ref().unwrap()), ("FIDE-4.3c".into(), "exd6".into()));
    assert_eq!(shown_obligation(&r.game.unwrap()), ("FIDE-4.3c".into(), vec!["e5d6".into()]));
    assert_refused(&mut t.white, &t.name, "e5e6", "FIDE-4.3c").await;
    assert_made(&mut t.white, &t.name, "e5d6", "exd6").await;
    server.stop().await;
}

/// Audit 1.5 (i02): 7.5.1 and 4.3.1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_05_illegal_move_keeps_earlier_touch() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = otb_game(&server, &mut arbiter, None).await;
    let game = play_otb(&mut arbiter, &t.name, 0, &["e2e4", "e7e5"]).await;
    let (_, black) = clocks(&game);

    let r = t.white.touch_piece(touch(&t.name, "f1")).await.unwrap().into_inner();
    assert_eq!(expect_ruling(r.event.as_ref().unwrap(), "OBLIGATION").rule_id, "FIDE-4.3a");
    let r = t.white.make_move(make_move(&t.name, "g1g3")).await.unwrap().into_inner();
    assert_eq!(expect_ruling(r.event.as_ref().unwrap(), "ILLEGAL_MOVE_NOT_COMPLETED").rule_id, "FIDE-7.5.1");

    let r = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = r.event.unwrap();
    let illegal = expect_ruling(&e, "ILLEGAL_MOVE");
    assert_eq!((illegal.rule_id.as_str(), illegal.facts["count"].as_str()), ("FIDE-7.5.1", "1"));
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((bonus.rule_id.as_str(), bonus.color), ("FIDE-7.5.5", pb::Color::Black as i32));
    assert_eq!(bonus.facts["delta_ms"], "120000");
    // The bishop touched first binds the replacement, not the knight.
    assert_eq!(obligation_ruling(&e), ("FIDE-4.3a".into(), "Ba6 Bb5 Bc4 Bd3 Be2".into()));
    let game = r.game.unwrap();
    assert_eq!(
        shown_obligation(&game),
        ("FIDE-4.3a".into(), ["f1a6", "f1b5", "f1c4", "f1d3", "f1e2"].map(String::from).to_vec())
    );
    assert_eq!(game.white_illegal_moves, 1);
    assert_eq!(clocks(&game).1, black + 120_000);
    assert_eq!(game.clocks.as_ref().unwrap().running, pb::Color::White as i32);

    assert_refused(&mut t.white, &t.name, "g1f3", "FIDE-4.3a").await;
    assert_made(&mut t.white, &t.name, "f1c4", "Bc4").await;
    server.stop().await;
}

/// Audit 1.8 (t06), DEC-20: 7.5.4, 7.5.1, 4.4.1 and 4.7.2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_08_two_handed_castling_is_replaced_by_castling() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = otb_game(&server, &mut arbiter, Some(CASTLE_FEN)).await;
    let (_, black) = clocks(&t.game);

    assert_made(&mut t.white, &t.name, "e1g1", "O-O").await;
    t.white
        .report_two_hands(pb::ReportTwoHandsRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap();
    let r = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = r.event.unwrap();
    let illegal = expect_ruling(&e, "ILLEGAL_MOVE");
    assert_eq!((illegal.rule_id.as_str(), illegal.facts["count"].as_str()), ("FIDE-7.5.4", "1"));
    let bonus = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!((bonus.rule_id.as_str(), bonus.color), ("FIDE-7.5.5", pb::Color::Black as i32));
    assert_eq!(bonus.facts["delta_ms"], "120000");
    // Only O-O, not Kd1, Kf1 or O-O-O.
    assert_eq!(obligation_ruling(&e), ("FIDE-4.4a".into(), "O-O".into()));
    let game = r.game.unwrap();
    assert_eq!(game.fen, CASTLE_FEN, "the position before the castling is reinstated");
    assert_eq!(shown_obligation(&game), ("FIDE-4.4a".into(), vec!["e1g1".into()]));
    assert_eq!(clocks(&game).1, black + 120_000);

    assert_refused(&mut t.white, &t.name, "e1f1", "FIDE-4.4a").await;
    assert_refused(&mut t.white, &t.name, "e1c1", "FIDE-4.4a").await;
    assert_made(&mut t.white, &t.name, "e1g1", "O-O").await;
    let pressed = t.white.press_clock(press(&t.name)).await.unwrap().into_inner();
    expect_ruling(pressed.event.as_ref().unwrap(), "MOVE_COMPLETED");
    let game = pressed.game.unwrap();
    assert!(game.fen.starts_with("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b"), "{}", game.fen);
    assert_eq!(game.white_illegal_moves, 1);
    server.stop().await;
}

/// Audit 1.11 (t04), DEC-21: 4.4.1 and 4.4.3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_11_king_then_rook_without_castling_right_immobile_king_any_move() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    // The king on e1 cannot move; the a1 rook has no castling right.
    let fen = "4k3/8/8/8/8/8/3PPP2/R2QKB1R w K - 0 1";
    let every_move = |game: &pb::Game| {
        let (rule, allowed) = shown_obligation(game);
        assert_eq!(rule, "FIDE-4.4c");
        allowed
    };

    let mut t = otb_game(&server, &mut arbiter, Some(fen)).await;
    t.white.touch_piece(touch(&t.name, "e1")).await.unwrap();
    let r = t.white.touch_piece(touch(&t.name, "a1")).await.unwrap().into_inner();
    let o = expect_ruling(r.event.as_ref().unwrap(), "OBLIGATION");
    assert_eq!(o.rule_id, "FIDE-4.4c");
    assert!(o.facts["reason"].contains("any legal move"), "{o:?}");
    let with_a1 = every_move(&r.game.unwrap());
    // Any legal move: 30 of them, pawn, queen and bishop moves included,
    // not only the rook moves of 4.3.1.
    assert_eq!(with_a1.len(), 30, "{with_a1:?}");
    assert!(["d2d4", "d1c2", "f1g2", "a1a2", "h1g1"].iter().all(|m| with_a1.contains(&m.to_string())));

    // The same ruling as with the castling rook h1 (castling blocked by f1).
    let mut u = otb_game(&server, &mut arbiter, Some(fen)).await;
    u.white.touch_piece(touch(&u.name, "e1")).await.unwrap();
    u.white.touch_piece(touch(&u.name, "h1")).await.unwrap();
    assert_eq!(every_move(&get_game(&mut arbiter, &u.name).await), with_a1);

    let game = assert_made(&mut t.white, &t.name, "d2d4", "d4").await;
    assert_eq!(game.moves_uci, ["d2d4"]);
    server.stop().await;
}
