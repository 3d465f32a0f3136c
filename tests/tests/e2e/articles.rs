//! Every ruling names its Article as printed in the Laws (issue: "Laws to
//! the letter", point 2): in the ruling, the obligation, the end, a
//! refusal's ErrorInfo, and the PGN, the most specific Article winning.

use arbiter_e2e::{
    TestServer, create, expect_ruling, get_game, make_move, new_game, play_otb, regulations, rule_id,
    v1 as pb,
};
use tonic_types::StatusExt;

fn press(name: &str) -> pb::PressClockRequest {
    pb::PressClockRequest { name: name.to_string(), ..Default::default() }
}

fn laws(number: &str) -> Option<pb::Article> {
    Some(pb::Article { number: number.into(), rulebook: pb::Rulebook::LawsOfChess as i32 })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rulings_obligations_ends_and_refusals_name_their_articles() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::OverTheBoard), true)).await;

    // A completed move: 6.2.1 (rule id FIDE-6.2a).
    play_otb(&mut arbiter, &t.name, 0, &["e2e4"]).await;
    // Black presses his clock without a move: 7.5.3, not 7.5.1; the
    // penalty 7.5.5.
    let pressed = t.black.press_clock(press(&t.name)).await.unwrap().into_inner();
    let e = pressed.event.unwrap();
    let illegal = expect_ruling(&e, "ILLEGAL_MOVE");
    assert_eq!((illegal.rule_id.as_str(), illegal.article.clone()), ("FIDE-7.5.3", laws("7.5.3")));
    let penalty = expect_ruling(&e, "CLOCK_ADJUSTED");
    assert_eq!(penalty.article, laws("7.5.5"));

    // A touch: the obligation names 4.3.1 (rule id FIDE-4.3a).
    t.black
        .touch_piece(pb::TouchPieceRequest {
            name: t.name.clone(),
            square: "g8".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let game = get_game(&mut arbiter, &t.name).await;
    let obligation = game.obligation.unwrap();
    assert_eq!((obligation.rule_id.as_str(), obligation.article), ("FIDE-4.3a", laws("4.3.1")));

    // Another piece: refused, and the refusal's ErrorInfo names the Article.
    let refused = t.black.make_move(make_move(&t.name, "b8c6")).await.unwrap().into_inner();
    let obligation = expect_ruling(refused.event.as_ref().unwrap(), "OBLIGATION");
    assert_eq!(obligation.article, laws("4.3.1"));
    t.black.press_clock(press(&t.name)).await.unwrap();
    let status = t
        .black
        .accept_draw(pb::AcceptDrawRequest { name: t.name.clone(), ..Default::default() })
        .await
        .expect_err("there is no offer to accept");
    let info = status.get_details_error_info().expect("ErrorInfo");
    let rule = rule_id(&status).expect("rule_id");
    let article = info.metadata.get("article").cloned().unwrap_or_default();
    assert!(!article.is_empty(), "{status:?}");
    assert_eq!(
        info.metadata.get("rulebook").map(String::as_str),
        Some("RULEBOOK_LAWS_OF_CHESS"),
        "{status:?}"
    );
    assert!(status.message().ends_with(&format!("({rule}, Article {article})")), "{}", status.message());

    // The end: resignation, 5.1.2; the PGN cites the Articles.
    let resigned = t
        .black
        .resign_game(pb::ResignGameRequest { name: t.name.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let end = resigned.game.unwrap().end.unwrap();
    assert_eq!((end.rule_id.as_str(), end.article), ("FIDE-5.1.2", laws("5.1.2")));
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: t.name.clone() }).await.unwrap().into_inner().pgn;
    // (A citation may break across the movetext's lines.)
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("Article 7.5.3 (FIDE-7.5.3)"), "{pgn}");
    assert!(flat.contains("Article 7.5.5 (FIDE-7.5.5)"), "{pgn}");
    // The standard value for other programs; the reason and its Article
    // in the service's own tag.
    assert!(pgn.contains("[Termination \"normal\"]"), "{pgn}");
    assert!(pgn.contains("[ArbiterTermination \"resignation (Article 5.1.2 (FIDE-5.1.2))\"]"), "{pgn}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_rulings_cite_the_online_chess_regulations() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut t = create(&server, &mut arbiter, new_game(regulations("15+10", pb::Mode::Online), true)).await;
    let made = t.white.make_move(make_move(&t.name, "e2e4")).await.unwrap().into_inner();
    let moved = expect_ruling(made.event.as_ref().unwrap(), "MOVE_MADE");
    assert_eq!(
        moved.article,
        Some(pb::Article { number: "3.1".into(), rulebook: pb::Rulebook::OnlineChessRegulations as i32 }),
        "{moved:?}"
    );
    server.stop().await;
}
