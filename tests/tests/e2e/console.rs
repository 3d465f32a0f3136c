//! The web console in a real browser (headless Chromium over WebDriver):
//! sign in with a token, a game created through the API appears, a move
//! made through the API is on its board within 500 ms, the clock of the
//! side to move ticks, and a flag is shown; a round's alert queue calls
//! the arbiter and is acknowledged from the page; the arbiter's actions on
//! one game, confirmed in the page, are in the game's audit trail, and a
//! viewer's token is refused them.
//!
//! `ARBITER_SCREENSHOTS=DIR` writes the round's hall and one game as
//! `DIR/console-round.png.base64` and `DIR/console-game.png.base64`.

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
    eprintln!("console loaded and signed in (WebDriver, end to end): {} ms", started.elapsed().as_millis());
    // The page's own account of its load (Navigation Timing).
    let timing = browser
        .run(
            "const n = performance.getEntriesByType('navigation')[0]; \
             return { dom: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd), \
                      bytes: n.transferSize };",
            json!([]),
        )
        .await;
    eprintln!("page load in the browser: {timing}");
    assert!(timing["load"].as_f64().is_some_and(|ms| ms > 0.0 && ms < 5000.0), "{timing}");

    // A game created through the API appears (it joins the hall's stream).
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
    let answers = play_online(&mut table, &["e4"]).await;
    let recorded = answers[0].event.as_ref().and_then(|e| e.record_time).expect("a record time");
    let recorded_ms = recorded.seconds * 1000 + i64::from(recorded.nanos / 1_000_000);
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
    // Measured in the page: from the service recording the move to the
    // board drawn (one machine, one clock).
    let drawn = browser
        .run(
            "return Number(document.querySelector(`[data-game=\"${arguments[0]}\"] svg.board`).dataset.drawnAt);",
            json!([table.name]),
        )
        .await;
    let in_page = drawn.as_i64().unwrap() - recorded_ms;
    eprintln!("move recorded to board drawn, in the page: {in_page} ms");
    assert!((0..500).contains(&in_page), "drawn {in_page} ms after it was recorded");

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

/// Writes a screenshot when `ARBITER_SCREENSHOTS` names a directory.
async fn screenshot(browser: &Browser, name: &str) {
    if let Some(dir) = std::env::var_os("ARBITER_SCREENSHOTS") {
        let png = browser.screenshot_base64().await;
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png.base64")), png).unwrap();
    }
}

/// An event `id` (titled after it, over the board, 90+30) with `names`
/// as participants, and its first round paired by `pairings`, started.
async fn started_round(
    arbiter: &mut Client,
    id: &str,
    names: &[&str],
    pairings: &str,
    broadcast: Option<pb::Broadcast>,
) -> pb::Round {
    let mut title = id.to_owned();
    title[..1].make_ascii_uppercase();
    let participants = names
        .iter()
        .enumerate()
        .map(|(i, name)| pb::Participant {
            start_number: i as i32 + 1,
            name: (*name).to_owned(),
            ..Default::default()
        })
        .collect();
    let event = pb::Event {
        title,
        regulations: Some(regulations("90+30", pb::Mode::OverTheBoard)),
        participants,
        broadcast,
        ..Default::default()
    };
    arbiter
        .create_event(pb::CreateEventRequest {
            event_id: id.into(),
            event: Some(event),
            request_id: String::new(),
        })
        .await
        .unwrap();
    arbiter
        .create_round(pb::CreateRoundRequest {
            parent: format!("events/{id}"),
            pairings: pairings.into(),
            start: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
}

/// On a tablet held upright (820x1180) the page needs no sideways scrolling
/// and its buttons stay large enough to touch; back to 1280x800 after.
async fn fits_a_tablet(browser: &Browser) {
    browser.resize(820, 1180).await;
    let fit = browser
        .wait_for(
            "const d = document.documentElement; \
             const small = [...document.querySelectorAll('button')].filter(b => b.offsetParent && b.getBoundingClientRect().height < 24); \
             return d.scrollWidth <= d.clientWidth && small.length === 0 ? true : null;",
            json!([]),
            Duration::from_secs(2),
        )
        .await;
    let sizes = browser
        .run(
            "const d = document.documentElement; return { scroll: d.scrollWidth, client: d.clientWidth };",
            json!([]),
        )
        .await;
    assert!(fit.is_some(), "the page fits a tablet: {sizes}");
    browser.resize(1280, 800).await;
}

/// Signs in with `token` at `url` and waits for the page to be signed in.
async fn sign_in(browser: &Browser, url: &str, token: &str) {
    browser.goto(url).await;
    browser.type_into("#token", token).await;
    browser.click("#sign-in").await;
    let signed_in = browser
        .wait_for("return document.getElementById('login').hidden", json!([]), Duration::from_secs(5))
        .await;
    assert!(signed_in.is_some(), "signed in at {url}");
}

/// The page's status line once it starts with `prefix`.
async fn status_starting(browser: &Browser, prefix: &str) -> String {
    let text = browser
        .wait_for(
            "const t = document.getElementById('status').textContent; return t.startsWith(arguments[0]) ? t : null;",
            json!([prefix]),
            Duration::from_secs(5),
        )
        .await;
    let now = browser.run("return document.getElementById('status').textContent", json!([])).await;
    text.and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("the status should start with {prefix:?}: {now}"))
}

/// Clicks an action's button, then the dialog's Confirm (or Cancel).
async fn act(browser: &Browser, button: &str, confirm: bool) {
    browser.click(button).await;
    let open = browser
        .wait_for("return document.getElementById('confirm').open", json!([]), Duration::from_secs(2))
        .await;
    assert!(open.is_some(), "{button} asks for confirmation first");
    browser.click(if confirm { "#confirm-yes" } else { "#confirm-no" }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arbiter_acts_on_one_game_from_the_page_and_a_viewer_is_refused() {
    let Some(browser) = Browser::start().await else { return };
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let mut table =
        create(&server, &mut arbiter, new_game(regulations("90+30", pb::Mode::Online), true)).await;
    play_online(&mut table, &["e4", "e5", "Nf3"]).await;
    let url = format!("http://{}/#/{}", server.http_addr, table.name);
    sign_in(&browser, &url, ARBITER_TOKEN).await;

    // The game: its board, its moves, the increments in the ledger.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    let shown = browser
        .wait_for(
            "return document.querySelector('#game svg.board')?.dataset.fen === arguments[0]",
            json!([fen]),
            Duration::from_secs(5),
        )
        .await;
    assert!(shown.is_some(), "the game page shows the position after 2.Nf3");
    let moves = browser
        .run("return [...document.querySelectorAll('#game .move')].map(m => m.textContent)", json!([]))
        .await;
    assert_eq!(moves, json!(["1. e4", "1… e5", "2. Nf3"]));
    let increments = browser
        .run(
            "return document.querySelectorAll('#game .ledger tr[data-decision=\"MOVE_COMPLETED\"]').length",
            json!([]),
        )
        .await;
    assert_eq!(increments, json!(3), "every increment is in the ledger");

    // Set White's clock to 1:00:00, confirmed: recorded as the arbiter's act.
    let before = all_events(&mut arbiter, &table.name).await.len();
    browser.type_into("#set-to", "1:00:00").await;
    act(&browser, "#act-set", true).await;
    let done = status_starting(&browser, "Done:").await;
    assert!(done.contains("Art. "), "the ruling cites its Article: {done}");
    let events = all_events(&mut arbiter, &table.name).await;
    let set = events.last().unwrap();
    assert_eq!((set.act.as_str(), set.actor.as_str()), ("SET_CLOCK", "arbiter"), "{set:?}");
    assert_eq!(events.len(), before + 1);
    assert_eq!(clocks(&get_game(&mut arbiter, &table.name).await).white_remaining_ms, 3_600_000);
    let ledger = browser
        .wait_for(
            "const r = document.querySelector('#game .ledger tr[data-decision=\"CLOCK_SET\"]'); return r ? r.textContent : null;",
            json!([]),
            Duration::from_secs(2),
        )
        .await;
    assert!(ledger.is_some_and(|t| t.as_str().unwrap().contains("1:00:00")), "the ledger shows the new time");

    // A cancelled action does nothing.
    act(&browser, "#act-pause", false).await;
    status_starting(&browser, "Cancelled").await;
    assert_eq!(all_events(&mut arbiter, &table.name).await.len(), before + 1);

    // From the keyboard: Enter on an action opens the confirmation with the
    // focus on Cancel (the safe choice), Escape closes it and nothing is done.
    browser.run("document.getElementById('status').textContent = ''", json!([])).await;
    browser.type_into("#act-resume", "\u{E007}").await;
    let focused = browser
        .wait_for(
            "return document.getElementById('confirm').open ? document.activeElement.id : null",
            json!([]),
            Duration::from_secs(2),
        )
        .await;
    assert_eq!(focused, Some(json!("confirm-no")), "Enter opens the confirmation, focus on Cancel");
    browser.type_into("#confirm-no", "\u{E00C}").await;
    status_starting(&browser, "Cancelled").await;
    assert_eq!(all_events(&mut arbiter, &table.name).await.len(), before + 1);

    // Pause, confirmed: the clocks stand, and the page says so.
    act(&browser, "#act-pause", true).await;
    status_starting(&browser, "Done:").await;
    assert!(clocks(&get_game(&mut arbiter, &table.name).await).paused);
    let paused = browser
        .wait_for(
            "return document.querySelector('#game .clock.paused') !== null",
            json!([]),
            Duration::from_secs(2),
        )
        .await;
    assert!(paused.is_some(), "the page shows the clocks paused");
    let note = browser
        .run(
            "return document.querySelector('#game .note[data-decision=\"CLOCKS_PAUSED\"]')?.textContent",
            json!([]),
        )
        .await;
    assert!(
        note.as_str().is_some_and(|t| t.contains("arbiter")),
        "the pause is noted under the moves: {note}"
    );
    screenshot(&browser, "console-game").await;
    fits_a_tablet(&browser).await;

    // A viewer sees the same page and is refused the action by the service.
    browser.click("#sign-out").await;
    let count = all_events(&mut arbiter, &table.name).await.len();
    sign_in(&browser, &url, VIEWER_TOKEN).await;
    browser
        .wait_for(
            "return document.querySelector('#game svg.board')?.dataset.fen === arguments[0]",
            json!([fen]),
            Duration::from_secs(5),
        )
        .await
        .expect("the viewer sees the game");
    act(&browser, "#act-resume", true).await;
    let refused = status_starting(&browser, "PERMISSION_DENIED").await;
    eprintln!("viewer refused: {refused}");
    assert_eq!(all_events(&mut arbiter, &table.name).await.len(), count, "nothing recorded for the viewer");
    assert!(clocks(&get_game(&mut arbiter, &table.name).await).paused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_shows_its_boards_and_calls_the_arbiter_to_an_alert() {
    let Some(browser) = Browser::start().await else { return };
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let round = started_round(
        &mut arbiter,
        "hall",
        &["Alpha, Anna", "Bravo, Boris", "Charlie, Chen", "Delta, Dana"],
        "1 2\n3 4\n",
        None,
    )
    .await;
    let board = |n: i32| round.boards.iter().find(|b| b.number == n).unwrap().game.clone();
    let (b1, b2) = (board(1), board(2));
    play_otb(&mut arbiter, &b1, 0, &["e4", "e5"]).await;
    play_otb(&mut arbiter, &b2, 0, &["d4"]).await;

    sign_in(&browser, &format!("http://{}/#/{}", server.http_addr, round.name), ARBITER_TOKEN).await;
    let labels = browser
        .wait_for(
            "const l = [...document.querySelectorAll('#hall .game .label')].map(l => l.textContent); \
             return l.length === 2 ? l : null;",
            json!([]),
            Duration::from_secs(5),
        )
        .await;
    assert_eq!(
        labels,
        Some(json!(["hall/rounds/1 · board 1", "hall/rounds/1 · board 2"])),
        "the round's boards, in order"
    );
    let empty = browser
        .wait_for(
            "return document.getElementById('alert-count').textContent === '— none open'",
            json!([]),
            Duration::from_secs(5),
        )
        .await;
    assert!(empty.is_some(), "an empty queue at first");

    // A flag on board 1: the call sounds and is queued with its Article.
    arbiter
        .set_clock(pb::SetClockRequest {
            name: b1.clone(),
            color: pb::Color::White as i32,
            remaining_ms: 200,
            ..Default::default()
        })
        .await
        .unwrap();
    let alert = browser
        .wait_for(
            "const a = document.querySelector('#alert-list .alert.act'); \
             return a ? { name: a.dataset.alert, text: a.textContent, chimes: Number(document.body.dataset.chimes || 0) } : null;",
            json!([]),
            Duration::from_secs(5),
        )
        .await
        .expect("the flag is queued");
    assert!(alert["text"].as_str().unwrap().contains("board 1"), "{alert}");
    assert!(alert["text"].as_str().unwrap().contains("Art. "), "the alert cites its Article: {alert}");
    assert!(alert["chimes"].as_u64().unwrap() >= 1, "a new call sounds: {alert}");
    screenshot(&browser, "console-round").await;
    fits_a_tablet(&browser).await;

    // Acknowledged from the page: recorded as the arbiter's, gone from the queue.
    let name = alert["name"].as_str().unwrap().to_owned();
    browser.click(&format!("#alert-list [data-alert=\"{name}\"] .ack")).await;
    status_starting(&browser, "Acknowledged").await;
    let gone = browser
        .wait_for(
            "return !document.querySelector(`#alert-list [data-alert=\"${arguments[0]}\"]`)",
            json!([name]),
            Duration::from_secs(3),
        )
        .await;
    assert!(gone.is_some(), "the acknowledged alert left the queue");
    let acked = arbiter
        .acknowledge_alert(pb::AcknowledgeAlertRequest { name: name.clone() })
        .await
        .unwrap()
        .into_inner()
        .alert
        .unwrap();
    assert_eq!(acked.acknowledged_by, "arbiter", "the page's acknowledgement is on record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_follow_a_public_round_behind_its_delay_without_a_token() {
    let Some(browser) = Browser::start().await else { return };
    let server = TestServer::start().await;
    let mut arbiter = server.arbiter().await;
    let broadcast = pb::Broadcast { delay_seconds: 2, public_view: true, ..Default::default() };
    let round = started_round(
        &mut arbiter,
        "show",
        &["Kasparov, Garry", "Karpov, Anatoly"],
        "1 2\n",
        Some(broadcast),
    )
    .await;
    let game = round.boards[0].game.clone();

    // The public link, no token: the round's board, read only.
    browser.goto(&format!("http://{}/#/watch/{}", server.http_addr, round.name)).await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let shown = browser.wait_for(BOARD_FEN, json!([game]), Duration::from_secs(5)).await;
    assert_eq!(shown, Some(json!(start)), "the spectators see the board without signing in");
    let page = browser
        .run(
            "return { status: document.getElementById('status').textContent, \
                      login: getComputedStyle(document.getElementById('login')).display, \
                      actions: document.querySelectorAll('#act-pause, .ack').length }",
            json!([]),
        )
        .await;
    assert!(page["status"].as_str().unwrap().contains("delayed 2 s"), "{page}");
    assert_eq!((page["login"].as_str(), page["actions"].as_u64()), (Some("none"), Some(0)), "{page}");

    // A move reaches the page the delay after it was made, not before.
    let made = Instant::now();
    play_otb(&mut arbiter, &game, 0, &["e4"]).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let early = browser.run(BOARD_FEN, json!([game])).await;
    assert_eq!(early, json!(start), "nothing shown before the delay");
    let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let moved = browser
        .wait_for(
            "const card = document.querySelector(`[data-game=\"${arguments[0]}\"]`); \
             return card && card.querySelector('svg.board').dataset.fen === arguments[1];",
            json!([game, after]),
            Duration::from_secs(4),
        )
        .await;
    let latency = made.elapsed();
    assert!(moved.is_some(), "the move reached the spectators");
    eprintln!("move to the spectators' page: {} ms (delay 2000 ms)", latency.as_millis());
    assert!(latency >= Duration::from_millis(1900), "shown {latency:?} after the move");

    // One board, from its card: the moves, still no actions.
    browser.click(&format!("[data-game=\"{game}\"] a.label")).await;
    let moves = browser
        .wait_for(
            "const m = [...document.querySelectorAll('#game .move')].map(m => m.textContent); return m.length ? m : null;",
            json!([]),
            Duration::from_secs(5),
        )
        .await;
    assert_eq!(moves, Some(json!(["1. e4"])));
    assert_eq!(
        browser.run("return document.querySelectorAll('#game button').length", json!([])).await,
        json!(0)
    );
    screenshot(&browser, "console-spectators").await;
}
