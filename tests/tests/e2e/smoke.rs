//! A first end-to-end game: create, play to checkmate, export.

use arbiter_e2e::{TestServer, new_game, regulations, v1 as pb};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_game_to_checkmate() {
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let created =
        arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap().into_inner();
    let game = created.game.unwrap();
    assert_eq!(game.status, pb::GameStatus::InProgress as i32);
    let mut white = server.client(Some(&created.white_token)).await;
    let mut black = server.client(Some(&created.black_token)).await;
    let mut last = None;
    for (i, mv) in ["f2f3", "e7e5", "g2g4", "Qh4#"].iter().enumerate() {
        let player = if i % 2 == 0 { &mut white } else { &mut black };
        let r = player
            .make_move(pb::MakeMoveRequest {
                name: game.name.clone(),
                r#move: (*mv).into(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("move {mv}: {e:?}"))
            .into_inner();
        last = r.game;
    }
    let last = last.unwrap();
    assert_eq!(last.status, pb::GameStatus::Finished as i32);
    let end = last.end.unwrap();
    assert_eq!(end.result, "0-1");
    assert_eq!(end.rule_id, "FIDE-5.1.1");
    let pgn =
        arbiter.export_pgn(pb::ExportPgnRequest { name: game.name.clone() }).await.unwrap().into_inner().pgn;
    assert!(pgn.contains("1. f3"), "{pgn}");
    assert!(pgn.contains("Qh4#"), "{pgn}");
    assert!(pgn.contains("[%clk"), "{pgn}");
    assert!(pgn.trim_end().ends_with("0-1"), "{pgn}");
    server.stop().await;
}
