use arbiter_chess::Color;
use arbiter_laws::event::Event;
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, EndCause, GameEnd, Ruling};
use arbiter_laws::scoring::GameResult;
use arbiter_proto::v1 as pb;

use super::{cut, published_game, push_url};
use crate::event_log::{self, Aftermath, Clocks};
use crate::store::EventRow;
use crate::view::LoggedEvent;

fn row(seq: i64, wall_ms: i64, decisions: Vec<Decision>) -> EventRow {
    let aftermath = Aftermath {
        rulings: decisions.into_iter().map(|d| Ruling::new(RuleId::Fide9_6_1, d)).collect(),
        clocks: Clocks {
            white_ms: 0,
            black_ms: 0,
            running: None,
            paused: false,
            white_moves: 0,
            black_moves: 0,
        },
        fen: String::new(),
    };
    EventRow {
        game_id: "g".into(),
        seq,
        request_id: None,
        origin: None,
        actor: "white".into(),
        at_ms: wall_ms,
        wall_ms,
        event_json: event_log::encode_event(&Event::Start),
        rulings_json: event_log::encode_aftermath(&aftermath),
        format: event_log::FORMAT,
    }
}

fn made(ply: usize, uci: &str) -> Decision {
    let color = if ply % 2 == 1 { Color::White } else { Color::Black };
    Decision::MoveMade { color, san: format!("san-{uci}"), uci: uci.into(), ply }
}

fn over() -> Decision {
    Decision::GameOver(GameEnd {
        result: GameResult::WhiteWins,
        reason: "resigned".into(),
        rule: RuleId::Fide5_1_2,
        cause: EndCause::Resignation,
        armageddon_winner: None,
        board_result: None,
    })
}

/// A game whose log made e4 e5 Nf3, took Nf3 back (a position reinstated),
/// played Nc3 and then ended, one row a second from 1000.
fn game_and_log() -> (pb::Game, Vec<EventRow>) {
    let rows = vec![
        row(1, 1000, vec![]),
        row(2, 2000, vec![made(1, "e2e4")]),
        row(3, 3000, vec![made(2, "e7e5")]),
        row(4, 4000, vec![made(3, "g1f3")]),
        row(5, 5000, vec![Decision::PositionReinstated { ply: 2, fen: String::new() }]),
        row(6, 6000, vec![made(3, "b1c3")]),
        row(7, 7000, vec![over()]),
    ];
    let game = pb::Game {
        moves_uci: vec!["e2e4".into(), "e7e5".into(), "b1c3".into()],
        moves_san: vec!["san-e2e4".into(), "san-e7e5".into(), "san-b1c3".into()],
        end: Some(pb::GameEnd { result: "1-0".into(), ..pb::GameEnd::default() }),
        ..pb::Game::default()
    };
    (game, rows)
}

fn cut_at(cutoff: i64) -> (pb::Game, Vec<EventRow>) {
    let (mut game, mut rows) = game_and_log();
    cut(&mut game, &mut rows, cutoff).unwrap();
    (game, rows)
}

#[test]
fn after_the_last_row_the_game_is_whole() {
    let (whole, _) = game_and_log();
    let (game, rows) = cut_at(7000);
    assert_eq!(game, whole);
    assert_eq!(rows.len(), 7);
}

#[test]
fn before_the_end_the_result_is_not_published() {
    let (game, rows) = cut_at(6999);
    assert_eq!(game.moves_uci, ["e2e4", "e7e5", "b1c3"]);
    assert_eq!(game.end, None);
    assert_eq!(rows.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_move_taken_back_later_is_shown_as_it_stood() {
    let (game, _) = cut_at(4500);
    assert_eq!(game.moves_uci, ["e2e4", "e7e5", "g1f3"], "Nf3 was on the record at the cutoff");
    assert_eq!(game.moves_san, ["san-e2e4", "san-e7e5", "san-g1f3"]);
    let (game, _) = cut_at(5000);
    assert_eq!(game.moves_uci, ["e2e4", "e7e5"], "reinstated: the record keeps two moves");
}

#[test]
fn before_the_first_move_nothing_is_shown() {
    let (game, rows) = cut_at(1500);
    assert!(game.moves_uci.is_empty() && game.moves_san.is_empty());
    assert_eq!(game.end, None);
    assert_eq!(rows.len(), 1);
    let (_, rows) = cut_at(0);
    assert!(rows.is_empty());
}

/// The log of `game_and_log`, decoded, each row with White's clock
/// running and a FEN naming its row.
fn decoded() -> Vec<LoggedEvent> {
    let (_, rows) = game_and_log();
    rows.iter()
        .map(|r| {
            let mut e = LoggedEvent::decode(r).unwrap();
            e.aftermath.fen = format!("fen-{} b - - 0 1", e.seq);
            e.aftermath.clocks.white_ms = 60_000;
            e.aftermath.clocks.black_ms = 50_000;
            e.aftermath.clocks.running = Some(Color::White);
            e
        })
        .collect()
}

#[test]
fn spectators_see_the_position_and_clocks_of_the_cutoff() {
    let (mut whole, _) = game_and_log();
    whole.status = pb::GameStatus::Finished as i32;
    whole.obligation = Some(pb::Obligation::default());
    whole.draw_offer = Some(pb::DrawOffer::default());
    whole.fen = "the present".into();
    let events = decoded();

    // 4.5 s: Nf3 on the record, the position after row 4, White's clock
    // run down by the half second since, nothing of the present.
    let shown = published_game(&whole, &events, 4500);
    assert_eq!(shown.moves_uci, ["e2e4", "e7e5", "g1f3"]);
    assert_eq!((shown.fen.as_str(), shown.last_seq), ("fen-4 b - - 0 1", 4));
    assert_eq!(shown.side_to_move, pb::Color::Black as i32);
    let clocks = shown.clocks.unwrap();
    assert_eq!((clocks.white_remaining_ms, clocks.black_remaining_ms), (59_500, 50_000));
    assert_eq!(shown.status, pb::GameStatus::InProgress as i32);
    assert!(shown.end.is_none() && shown.obligation.is_none() && shown.draw_offer.is_none());

    // After the end: the result, the clocks as they stopped.
    let shown = published_game(&whole, &events, 9000);
    assert_eq!(shown.status, pb::GameStatus::Finished as i32);
    assert_eq!(shown.end.unwrap().result, "1-0");
    assert_eq!(shown.clocks.unwrap().white_remaining_ms, 60_000);

    // Before the first row: the start, pending, the clocks standing.
    let shown = published_game(&whole, &events, 500);
    assert_eq!((shown.status, shown.last_seq), (pb::GameStatus::Pending as i32, 0));
    assert_eq!(shown.fen, "fen-1 b - - 0 1");
    assert_eq!(shown.clocks.unwrap().running, 0);
    assert!(shown.moves_uci.is_empty());
}

#[test]
fn push_urls_come_from_the_round_or_the_event_template() {
    assert_eq!(push_url("", "", 3), None);
    assert_eq!(
        push_url("https://relay.example/r{round}/push", "", 3).as_deref(),
        Some("https://relay.example/r3/push")
    );
    assert_eq!(
        push_url(
            "https://relay.example/r{round}/push",
            "https://lichess.org/api/broadcast/round/AbCd1234/push",
            3
        )
        .as_deref(),
        Some("https://lichess.org/api/broadcast/round/AbCd1234/push")
    );
}
