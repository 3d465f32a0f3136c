//! The web console in a real browser (headless Chromium over WebDriver):
//! sign in with a token, a game created through the API appears, a move
//! made through the API is on its board within 500 ms, the clock of the
//! side to move ticks, and a flag is shown.
//!
//! `ARBITER_SCREENSHOTS=DIR` writes the hall as `DIR/console-hall.png`.

use std::time::{Duration, Instant};

use arbiter_e2e::browser::Browser;
use arbiter_e2e::*;
use arbiter_proto::v1 as pb;
use serde_json::json;

/// The FEN on a game's board in the page, once its card is there.
const BOARD_FEN: &str = "const card = document.querySelector(`[data-game=\"${arguments[0]}\"]`); \
                         return card ? card.querySelector('svg.board').dataset.fen : null;";

/// A clock of a game's card: its milliseconds and its classes.
const CLOCK: &str = "const c = document.querySelector(`[data-game=\"${arguments[0]}\"] .clock[data-color=\"${arguments[1]}\"]`); \
                     return c ? { ms: Number(c.dataset.ms), text: c.textContent, classes: c.className } : null;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_shows_games_moves_clocks_and_flags_live() {
    let Some(browser) = Browser::start().await else { return };
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;

    let started = Instant::now();
    browser.goto(&format!("http://{}/", server.http_addr)).await;
    browser.type_into("#token", VIEWER_TOKEN).await;
    browser.click("#sign-in").await;
    let signed_in = browser
        .wait_for(
            "return document.getElementById('login').hidden && document.getElementById('status').textContent",
            json!([]),
            Duration::from_secs(5),
        )
        .await;
    assert!(signed_in.is_some(), "signed in with a viewer token");
    eprintln!("console loaded and signed in: {} ms", started.elapsed().as_millis());

    // A game created through the API appears (the list is read every 2 s).
    let mut table =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    let shown = browser.wait_for(BOARD_FEN, json!([table.name]), Duration::from_secs(5)).await;
    assert_eq!(
        shown.as_ref().and_then(|v| v.as_str()),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        "the new game's card shows the starting position"
    );

    // A move through the API is on the board within 500 ms.
    let made = Instant::now();
    play_online(&mut table, &["e4"]).await;
    let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let moved = browser
        .wait_for(
            "const card = document.querySelector(`[data-game=\"${arguments[0]}\"]`); \
             return card && card.querySelector('svg.board').dataset.fen === arguments[1];",
            json!([table.name, after]),
            Duration::from_secs(2),
        )
        .await;
    let latency = made.elapsed();
    assert!(moved.is_some(), "the move reached the page");
    eprintln!("move to page: {} ms", latency.as_millis());
    assert!(latency < Duration::from_millis(500), "a move is shown within 500 ms, took {latency:?}");

    // Black's clock runs (and is marked), White's stands.
    let first = browser.run(CLOCK, json!([table.name, "black"])).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let second = browser.run(CLOCK, json!([table.name, "black"])).await;
    let ticked = first["ms"].as_f64().unwrap() - second["ms"].as_f64().unwrap();
    assert!((200.0..2000.0).contains(&ticked), "black's clock ticks: {first} then {second}");
    assert!(second["classes"].as_str().unwrap().contains("running"), "{second}");
    let white = browser.run(CLOCK, json!([table.name, "white"])).await;
    assert!(!white["classes"].as_str().unwrap().contains("running"), "{white}");

    // A flag: a four-second game in which White never moves (long enough
    // for the hall to list it while it runs).
    let flag = create(&server, &mut arbiter, new_game(regulations("4s", pb::Mode::OverTheBoard), true)).await;
    let flagged = browser
        .wait_for(
            "const card = document.querySelector(`[data-game=\"${arguments[0]}\"]`); \
             if (!card) return null; \
             const c = card.querySelector('.clock[data-color=\"white\"]'); \
             const r = card.querySelector('.result').textContent; \
             return c.classList.contains('flagged') && r.includes('time forfeit') ? r : null;",
            json!([flag.name]),
            Duration::from_secs(12),
        )
        .await;
    let card = browser
        .run(
            "const card = document.querySelector(`[data-game=\"${arguments[0]}\"]`); \
             return card ? card.innerText + ' | ' + card.querySelector('.clock[data-color=\"white\"]').className : 'no card';",
            json!([flag.name]),
        )
        .await;
    assert_eq!(
        flagged.as_ref().and_then(|v| v.as_str()),
        Some("0-1 time forfeit"),
        "the flag is shown: {card}"
    );

    if let Some(dir) = std::env::var_os("ARBITER_SCREENSHOTS") {
        let png = browser.screenshot_base64().await;
        std::fs::write(std::path::Path::new(&dir).join("console-hall.png.base64"), png).unwrap();
    }
}
