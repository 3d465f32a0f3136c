//! Conformance suite of the storage contract ([`EventStore`]).
//!
//! Each check is an async function over any store; the `conformance!` macro
//! instantiates them against a fresh temp-file SQLite database (the
//! production configuration), an in-memory one, and a PostgreSQL schema of
//! their own. Tests that depend on one backend (reopening a file, filling a
//! disk, killing PostgreSQL sessions, two stores on one database) are
//! written out below the suite.
//!
//! PostgreSQL is the server at `ARBITER_TEST_PG_URL`, or else at
//! [`DEFAULT_PG_URL`] if one answers there; without one the PostgreSQL
//! tests pass without running, except on CI (`CI` set), where they fail.
//! Each test works in a schema of its own (`t_<uuid>`, dropped at the end),
//! so tests and test binaries running in parallel never see each other's
//! rows (though they do see each other's notifications, which are per
//! database: the checks that count notifications use game ids of their own).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::time::Duration;

use arbiter_server::store::sqlite::SqliteStore;
use arbiter_server::store::*;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, Executor};
use tokio::sync::broadcast;
use tokio::task::JoinSet;

// ---------------------------------------------------------------------------
// Fixtures.

fn game(id: &str) -> GameRow {
    GameRow {
        creator: None,
        id: id.to_owned(),
        request_id: None,
        created_wall_ms: 1_700_000_000_000,
        event_name: "Open".to_owned(),
        round: "1".to_owned(),
        white: "Alice".to_owned(),
        black: "Bob".to_owned(),
        spec_json: format!(r#"{{"game":"{id}"}}"#),
        status: GameStatus::Pending,
        result: None,
        view: None,
        last_seq: 0,
        updated_wall_ms: 1_700_000_000_000,
        // Opaque to the store, like the payload; a value other than the
        // default checks that the column round-trips.
        spec_format: 2,
    }
}

fn event(game_id: &str, seq: i64, request_id: Option<&str>) -> EventRow {
    EventRow {
        game_id: game_id.to_owned(),
        seq,
        request_id: request_id.map(str::to_owned),
        origin: None,
        actor: if seq % 2 == 1 { "white" } else { "black" }.to_owned(),
        at_ms: seq * 1_000,
        wall_ms: 1_700_000_000_000 + seq * 1_000,
        event_json: format!(r#"{{"move":{seq}}}"#),
        rulings_json: "[]".to_owned(),
        // Alternating formats check that the column round-trips in both
        // append paths.
        format: 1 + seq % 2,
    }
}

/// An append of one event carrying `request_id`.
fn one(game_id: &str, expected_last_seq: i64, request_id: Option<&str>) -> Append {
    Append {
        game_id: game_id.to_owned(),
        expected_last_seq,
        events: vec![event(game_id, expected_last_seq + 1, request_id)],
        status: GameStatus::InProgress,
        result: None,
        view: None,
        deadline_wall_ms: Some(7_000 + expected_last_seq),
    }
}

fn token(id: &str) -> TokenRow {
    TokenRow {
        id: id.to_owned(),
        secret_sha256: format!("{:0>64}", id.len()),
        role: "arbiter".to_owned(),
        label: format!("token {id}"),
        created_wall_ms: 1_700_000_000_000,
        revoked_wall_ms: None,
    }
}

async fn all_events<S: EventStore>(store: &S, game_id: &str) -> Vec<EventRow> {
    store.events(game_id, 0, 100_000).await.unwrap()
}

/// Asserts the log of a game is 1..=n without gaps and matches `last_seq`.
async fn assert_gap_free<S: EventStore>(store: &S, game_id: &str, n: i64) {
    let seqs: Vec<i64> = all_events(store, game_id).await.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=n).collect::<Vec<_>>(), "log of {game_id}");
    assert_eq!(store.game(game_id).await.unwrap().unwrap().last_seq, n, "last_seq of {game_id}");
}

// ---------------------------------------------------------------------------
// The suite.

async fn create_and_get<S: EventStore>(store: &S) {
    let mut g = game("g1");
    g.request_id = Some("req-create-1".to_owned());
    store.create_game(&g).await.unwrap();
    assert_eq!(store.game("g1").await.unwrap(), Some(g.clone()));
    assert_eq!(store.game("nope").await.unwrap(), None);
    assert_eq!(store.game_by_request("req-create-1").await.unwrap(), Some(g));
    assert_eq!(store.game_by_request("req-other").await.unwrap(), None);
    // Games without a request id never clash with each other.
    store.create_game(&game("g2")).await.unwrap();
    store.create_game(&game("g3")).await.unwrap();
    assert_eq!(store.game("g3").await.unwrap().unwrap().request_id, None);
}

async fn create_duplicates<S: EventStore>(store: &S) {
    let mut g = game("dup");
    g.request_id = Some("req-a".to_owned());
    store.create_game(&g).await.unwrap();

    // Same id, new request: the id is taken.
    let mut same_id = game("dup");
    same_id.request_id = Some("req-b".to_owned());
    same_id.white = "Mallory".to_owned();
    assert!(matches!(store.create_game(&same_id).await, Err(StoreError::AlreadyExists(id)) if id == "dup"));
    // Same id without a request id.
    assert!(matches!(store.create_game(&game("dup")).await, Err(StoreError::AlreadyExists(_))));
    // New id, used request id.
    let mut same_request = game("other");
    same_request.request_id = Some("req-a".to_owned());
    assert!(matches!(
        store.create_game(&same_request).await,
        Err(StoreError::DuplicateRequest { request_id }) if request_id == "req-a"
    ));
    // A retry (same id, same request id) finds the duplicate request.
    assert!(matches!(store.create_game(&g).await, Err(StoreError::DuplicateRequest { .. })));

    // Nothing of the refused creations was written.
    assert_eq!(store.game("dup").await.unwrap().unwrap().white, "Alice");
    assert_eq!(store.game("other").await.unwrap(), None);
    assert_eq!(store.game_by_request("req-b").await.unwrap(), None);

    // A new game must start at last_seq 0.
    let mut ahead = game("ahead");
    ahead.last_seq = 3;
    assert!(matches!(store.create_game(&ahead).await, Err(StoreError::Invalid(_))));
    assert_eq!(store.game("ahead").await.unwrap(), None);
}

async fn append_happy_path<S: EventStore>(store: &S) {
    store.create_game(&game("a")).await.unwrap();
    store.append(one("a", 0, Some("r1"))).await.unwrap();
    // Several events at once, finishing the game.
    let batch = Append {
        game_id: "a".to_owned(),
        expected_last_seq: 1,
        events: vec![event("a", 2, Some("r2")), event("a", 3, None), event("a", 4, None)],
        status: GameStatus::Finished,
        result: Some("1-0".to_owned()),
        view: None,
        deadline_wall_ms: None,
    };
    store.append(batch.clone()).await.unwrap();

    let events = all_events(store, "a").await;
    assert_eq!(events.len(), 4);
    assert_eq!(events[0], event("a", 1, Some("r1")));
    assert_eq!(&events[1..], &batch.events[..]);

    let row = store.game("a").await.unwrap().unwrap();
    assert_eq!(row.last_seq, 4);
    assert_eq!(row.status, GameStatus::Finished);
    assert_eq!(row.result.as_deref(), Some("1-0"));
    assert_eq!(row.updated_wall_ms, event("a", 4, None).wall_ms);
    // The creation fields are untouched.
    assert_eq!(row.spec_json, game("a").spec_json);
    assert_eq!(row.created_wall_ms, game("a").created_wall_ms);

    assert_eq!(store.event_by_request("a", "r2").await.unwrap(), Some(event("a", 2, Some("r2"))));
    assert_eq!(store.event_by_request("a", "r9").await.unwrap(), None);
    assert_eq!(store.event_by_request("b", "r2").await.unwrap(), None);
}

async fn stale_expected_seq_conflicts<S: EventStore>(store: &S) {
    store.create_game(&game("c")).await.unwrap();
    store.append(one("c", 0, Some("c1"))).await.unwrap();
    store.append(one("c", 1, Some("c2"))).await.unwrap();
    // A writer that still believes the game is at seq 1.
    let stale = one("c", 1, Some("c-stale"));
    assert!(matches!(
        store.append(stale).await,
        Err(StoreError::Conflict { game_id, expected: 1 }) if game_id == "c"
    ));
    // One that believes it is ahead of the log.
    assert!(matches!(store.append(one("c", 5, None)).await, Err(StoreError::Conflict { .. })));
    assert_gap_free(store, "c", 2).await;
    assert_eq!(store.event_by_request("c", "c-stale").await.unwrap(), None);
}

async fn concurrent_same_seq_one_wins<S: EventStore + Clone + 'static>(store: &S) {
    // Repeated so that the racing appends land both in one batch and in
    // consecutive batches.
    for round in 0..20 {
        let id = format!("race{round}");
        store.create_game(&game(&id)).await.unwrap();
        let mut tasks = JoinSet::new();
        for contender in 0..2 {
            let store = store.clone();
            let append = one(&id, 0, Some(&format!("contender{contender}")));
            tasks.spawn(async move { store.append(append).await });
        }
        let results = tasks.join_all().await;
        let wins = results.iter().filter(|r| r.is_ok()).count();
        let conflicts = results.iter().filter(|r| matches!(r, Err(StoreError::Conflict { .. }))).count();
        assert_eq!((wins, conflicts), (1, 1), "round {round}: {results:?}");
        assert_gap_free(store, &id, 1).await;
    }
}

async fn duplicate_request_in_game<S: EventStore>(store: &S) {
    store.create_game(&game("d")).await.unwrap();
    store.append(one("d", 0, Some("move-1"))).await.unwrap();
    store.append(one("d", 1, Some("move-2"))).await.unwrap();

    // A retry with the original (stale) expected seq.
    assert!(matches!(
        store.append(one("d", 0, Some("move-1"))).await,
        Err(StoreError::DuplicateRequest { request_id }) if request_id == "move-1"
    ));
    // A reused request id with an up-to-date expected seq.
    assert!(matches!(
        store.append(one("d", 2, Some("move-1"))).await,
        Err(StoreError::DuplicateRequest { request_id }) if request_id == "move-1"
    ));
    // The duplicate is the second event of the append: the first must not
    // stay behind either.
    let mixed = Append {
        game_id: "d".to_owned(),
        expected_last_seq: 2,
        events: vec![event("d", 3, Some("move-3")), event("d", 4, Some("move-2"))],
        status: GameStatus::Finished,
        result: Some("0-1".to_owned()),
        view: None,
        deadline_wall_ms: None,
    };
    assert!(matches!(store.append(mixed).await, Err(StoreError::DuplicateRequest { .. })));
    // Twice the same request id inside one append.
    let twice = Append {
        game_id: "d".to_owned(),
        expected_last_seq: 2,
        events: vec![event("d", 3, Some("move-x")), event("d", 4, Some("move-x"))],
        status: GameStatus::InProgress,
        result: None,
        view: None,
        deadline_wall_ms: None,
    };
    assert!(matches!(store.append(twice).await, Err(StoreError::DuplicateRequest { .. })));

    assert_gap_free(store, "d", 2).await;
    let row = store.game("d").await.unwrap().unwrap();
    assert_eq!((row.status, row.result), (GameStatus::InProgress, None));
    assert_eq!(store.event_by_request("d", "move-3").await.unwrap(), None);
    assert_eq!(store.event_by_request("d", "move-x").await.unwrap(), None);
    // The game goes on normally afterwards.
    store.append(one("d", 2, Some("move-3"))).await.unwrap();
    assert_gap_free(store, "d", 3).await;
}

async fn same_request_in_other_games<S: EventStore>(store: &S) {
    for id in ["x", "y"] {
        let mut g = game(id);
        // Creation request ids are unique among creations only.
        g.request_id = Some(format!("create-{id}"));
        store.create_game(&g).await.unwrap();
        store.append(one(id, 0, Some("shared"))).await.unwrap();
    }
    // A creation request id may also appear as an event's request id.
    store.append(one("x", 1, Some("create-x"))).await.unwrap();
    assert_eq!(store.event_by_request("x", "shared").await.unwrap().unwrap().game_id, "x");
    assert_eq!(store.event_by_request("y", "shared").await.unwrap().unwrap().game_id, "y");
    assert_gap_free(store, "x", 2).await;
}

async fn invalid_appends<S: EventStore>(store: &S) {
    store.create_game(&game("v")).await.unwrap();
    store.append(one("v", 0, None)).await.unwrap();

    let mut no_events = one("v", 1, None);
    no_events.events.clear();
    let mut gap = one("v", 1, None);
    gap.events[0].seq = 3;
    let mut repeat = one("v", 1, None);
    repeat.events.push(event("v", 2, None));
    let mut backwards = one("v", 1, None);
    backwards.events.insert(0, event("v", 3, None));
    let mut foreign = one("v", 1, None);
    foreign.events[0].game_id = "w".to_owned();
    let mut zero = one("v", 0, None);
    zero.expected_last_seq = -1;
    zero.events[0].seq = 0;
    let mut overflow = one("v", 1, None);
    overflow.expected_last_seq = i64::MAX;
    overflow.events[0].seq = i64::MIN;

    for (what, append) in [
        ("no events", no_events),
        ("gap", gap),
        ("repeated seq", repeat),
        ("backwards", backwards),
        ("other game's event", foreign),
        ("seq 0", zero),
        ("overflow", overflow),
    ] {
        let result = store.append(append).await;
        assert!(matches!(result, Err(StoreError::Invalid(_))), "{what}: {result:?}");
    }
    assert_gap_free(store, "v", 1).await;
}

async fn unknown_game<S: EventStore>(store: &S) {
    assert!(matches!(
        store.append(one("ghost", 0, Some("boo"))).await,
        Err(StoreError::NotFound(id)) if id == "ghost"
    ));
    assert!(matches!(store.append(one("ghost", 4, None)).await, Err(StoreError::NotFound(_))));
    assert!(all_events(store, "ghost").await.is_empty());
    assert_eq!(store.game("ghost").await.unwrap(), None);
}

/// What an append's answer should be.
type Expectation = fn(&Result<(), StoreError>) -> bool;

/// Many concurrent appends, a quarter of them bad in various ways, so that
/// batches mix successes and refusals: every refusal is reported to its own
/// caller and leaves nothing, every success is complete.
async fn mixed_batch<S: EventStore + Clone + 'static>(store: &S) {
    const GAMES: usize = 200;
    for i in 0..GAMES {
        store.create_game(&game(&format!("m{i:03}"))).await.unwrap();
        store.append(one(&format!("m{i:03}"), 0, Some("first"))).await.unwrap();
    }
    let mut tasks = JoinSet::new();
    for i in 0..GAMES {
        let id = format!("m{i:03}");
        let (append, expect): (Append, Expectation) = match i % 8 {
            1 => (one(&id, 0, Some("stale")), |r| matches!(r, Err(StoreError::Conflict { .. }))),
            3 => {
                (one(&format!("missing{i}"), 1, Some("lost")), |r| matches!(r, Err(StoreError::NotFound(_))))
            }
            5 => (one(&id, 1, Some("first")), |r| matches!(r, Err(StoreError::DuplicateRequest { .. }))),
            // Two events: the store runs these one statement at a time,
            // between the chunks of one-event appends.
            7 => {
                let mut append = one(&id, 1, Some("second"));
                append.events.push(event(&id, 3, None));
                (append, Result::is_ok)
            }
            _ => (one(&id, 1, Some("second")), Result::is_ok),
        };
        let store = store.clone();
        tasks.spawn(async move { (i, expect(&store.append(append).await)) });
    }
    for (i, as_expected) in tasks.join_all().await {
        assert!(as_expected, "append {i} got an unexpected answer");
    }
    for i in 0..GAMES {
        let id = format!("m{i:03}");
        let good = !matches!(i % 8, 1 | 3 | 5);
        let last_seq = match i % 8 {
            1 | 3 | 5 => 1,
            7 => 3,
            _ => 2,
        };
        assert_gap_free(store, &id, last_seq).await;
        assert_eq!(store.event_by_request(&id, "second").await.unwrap().is_some(), good, "{id}");
        assert_eq!(store.event_by_request(&id, "stale").await.unwrap(), None);
        assert!(all_events(store, &format!("missing{i}")).await.is_empty());
    }
}

async fn events_paging<S: EventStore>(store: &S) {
    store.create_game(&game("p")).await.unwrap();
    for seq in 0..25 {
        store.append(one("p", seq, None)).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = store.events("p", after, 10).await.unwrap();
        assert!(page.len() <= 10);
        let Some(last) = page.last() else { break };
        after = last.seq;
        seen.extend(page.iter().map(|e| e.seq));
    }
    assert_eq!(seen, (1..=25).collect::<Vec<_>>());
    let tail: Vec<i64> = store.events("p", 20, 100).await.unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(tail, vec![21, 22, 23, 24, 25]);
    assert_eq!(store.events("p", 3, 1).await.unwrap(), vec![event("p", 4, None)]);
    assert!(store.events("p", 25, 10).await.unwrap().is_empty());
    assert!(store.events("p", 0, 0).await.unwrap().is_empty());
    assert!(store.events("unknown", 0, 10).await.unwrap().is_empty());
}

fn origin(scope: &str, sha256: &str) -> RequestOrigin {
    RequestOrigin { scope: scope.to_owned(), sha256: sha256.to_owned() }
}

/// An append of one event carrying `request_id` sent in `scope`.
fn scoped(game_id: &str, expected_last_seq: i64, request_id: &str, scope: &str, sha256: &str) -> Append {
    let mut append = one(game_id, expected_last_seq, Some(request_id));
    append.events[0].origin = Some(origin(scope, sha256));
    append
}

/// A request id names one request per scope (caller and method): the same id
/// in two scopes is two requests, in one scope a duplicate whatever the
/// fingerprint; the scope and fingerprint round-trip in both append paths.
async fn request_scopes<S: EventStore + Clone + 'static>(store: &S) {
    store.create_game(&game("s")).await.unwrap();
    store.append(scoped("s", 0, "x", "white make_move", "aa")).await.unwrap();
    // Another caller, another method: independent requests.
    store.append(scoped("s", 1, "x", "black make_move", "bb")).await.unwrap();
    store.append(scoped("s", 2, "x", "white resign_game", "cc")).await.unwrap();
    // A row without a scope (as older rows are) is a scope of its own.
    store.append(one("s", 3, Some("x"))).await.unwrap();
    // The same scope again: a duplicate, with a stale or a current seq, and
    // whatever the fingerprint (telling a retry from a reuse is the
    // server's business; the store keeps the id once per scope).
    for (expected, sha) in [(0, "aa"), (4, "aa"), (4, "zz")] {
        assert!(matches!(
            store.append(scoped("s", expected, "x", "white make_move", sha)).await,
            Err(StoreError::DuplicateRequest { request_id }) if request_id == "x"
        ));
    }
    assert!(matches!(store.append(one("s", 4, Some("x"))).await, Err(StoreError::DuplicateRequest { .. })));
    // In a batch (several appends queued at once) too.
    let mut set = JoinSet::new();
    for (i, scope) in ["arbiter:1 declare_result", "white make_move"].into_iter().enumerate() {
        let store = store.clone();
        set.spawn(async move { (i, store.append(scoped("s", 4, "x", scope, "dd")).await) });
    }
    let mut outcomes = BTreeMap::new();
    while let Some(joined) = set.join_next().await {
        let (i, outcome) = joined.unwrap();
        outcomes.insert(i, outcome);
    }
    assert!(outcomes[&0].is_ok(), "{outcomes:?}");
    assert!(matches!(outcomes[&1], Err(StoreError::DuplicateRequest { .. })), "{outcomes:?}");
    assert_gap_free(store, "s", 5).await;
    let scopes: Vec<Option<RequestOrigin>> =
        all_events(store, "s").await.into_iter().map(|e| e.origin).collect();
    assert_eq!(
        scopes,
        vec![
            Some(origin("white make_move", "aa")),
            Some(origin("black make_move", "bb")),
            Some(origin("white resign_game", "cc")),
            None,
            Some(origin("arbiter:1 declare_result", "dd")),
        ]
    );
}

/// A `CreateGame` request is recorded in its scope with its fingerprint; the
/// same id in another scope is another creation, in the same scope a
/// duplicate (also when the game id is taken too).
async fn creation_requests<S: EventStore>(store: &S) {
    let a = origin("service:a create_game", "11");
    let b = origin("service:b create_game", "22");
    store.create_requested_game(&game("c1"), "create-1", &a, None).await.unwrap();
    assert_eq!(
        store.creation_request(&a.scope, "create-1").await.unwrap(),
        Some(CreationRequest { game_id: "c1".to_owned(), sha256: "11".to_owned() })
    );
    assert_eq!(store.creation_request(&b.scope, "create-1").await.unwrap(), None);
    // The games index no longer holds the id: it does not say who sent it.
    assert_eq!(store.game("c1").await.unwrap().unwrap().request_id, None);
    assert_eq!(store.game_by_request("create-1").await.unwrap(), None);
    // Another caller, same id: its own game.
    store.create_requested_game(&game("c2"), "create-1", &b, None).await.unwrap();
    assert_eq!(store.creation_request(&b.scope, "create-1").await.unwrap().unwrap().game_id, "c2");
    // Same scope and id: a duplicate, and the refused game is not created.
    assert!(matches!(
        store.create_requested_game(&game("c3"), "create-1", &a, None).await,
        Err(StoreError::DuplicateRequest { request_id }) if request_id == "create-1"
    ));
    assert_eq!(store.game("c3").await.unwrap(), None);
    // Taken game id and taken request id: most likely a retry.
    assert!(matches!(
        store.create_requested_game(&game("c1"), "create-1", &a, None).await,
        Err(StoreError::DuplicateRequest { .. })
    ));
    // Taken game id, new request id: the game exists.
    assert!(matches!(
        store.create_requested_game(&game("c1"), "create-9", &a, None).await,
        Err(StoreError::AlreadyExists(id)) if id == "c1"
    ));
    assert_eq!(store.creation_request(&a.scope, "create-9").await.unwrap(), None);
}

/// A full page of the largest size, plus the row that says another page
/// follows.
async fn list_games_max_page<S: EventStore>(store: &S) {
    for i in 0..=MAX_LIST_ROWS {
        store.create_game(&game(&format!("p{i:04}"))).await.unwrap();
    }
    let filter = GameFilter { limit: MAX_LIST_ROWS, ..GameFilter::default() };
    let rows = store.list_games(&filter).await.unwrap();
    assert_eq!(rows.len(), MAX_LIST_ROWS as usize);
    let rest = GameFilter { after_id: Some(rows[999].id.clone()), ..filter };
    assert_eq!(store.list_games(&rest).await.unwrap().len(), 2);
}

async fn list_games_filters<S: EventStore>(store: &S) {
    // 30 games: events A/B, rounds 1..3, statuses spread by the appends.
    for i in 0..30 {
        let mut g = game(&format!("l{i:02}"));
        g.event_name = if i % 2 == 0 { "A" } else { "B" }.to_owned();
        g.round = (i % 3 + 1).to_string();
        store.create_game(&g).await.unwrap();
        match i % 5 {
            0 => {}
            1 | 2 => store.append(one(&g.id, 0, None)).await.unwrap(),
            _ => {
                let mut done = one(&g.id, 0, None);
                done.status = GameStatus::Finished;
                done.result = Some("1/2-1/2".to_owned());
                store.append(done).await.unwrap();
            }
        }
    }
    let ids = |rows: Vec<GameRow>| rows.into_iter().map(|g| g.id).collect::<Vec<_>>();
    let expected = |keep: &dyn Fn(usize) -> bool| {
        (0..30).filter(|&i| keep(i)).map(|i| format!("l{i:02}")).collect::<Vec<_>>()
    };
    let filter = |event: Option<&str>, round: Option<&str>, status: Option<GameStatus>| GameFilter {
        event_name: event.map(str::to_owned),
        round: round.map(str::to_owned),
        status,
        after_id: None,
        limit: 1000,
    };

    assert_eq!(ids(store.list_games(&filter(None, None, None)).await.unwrap()), expected(&|_| true));
    assert_eq!(
        ids(store.list_games(&filter(Some("A"), None, None)).await.unwrap()),
        expected(&|i| i % 2 == 0)
    );
    assert_eq!(
        ids(store.list_games(&filter(Some("B"), Some("2"), None)).await.unwrap()),
        expected(&|i| i % 2 == 1 && i % 3 == 1)
    );
    assert_eq!(
        ids(store.list_games(&filter(None, Some("3"), None)).await.unwrap()),
        expected(&|i| i % 3 == 2)
    );
    assert_eq!(
        ids(store.list_games(&filter(None, None, Some(GameStatus::Finished))).await.unwrap()),
        expected(&|i| i % 5 >= 3)
    );
    assert_eq!(
        ids(store.list_games(&filter(Some("A"), Some("1"), Some(GameStatus::Pending))).await.unwrap()),
        expected(&|i| i % 2 == 0 && i % 3 == 0 && i % 5 == 0)
    );
    assert!(store.list_games(&filter(Some("C"), None, None)).await.unwrap().is_empty());

    // Pagination with after_id over a filtered list.
    let mut pages = Vec::new();
    let mut page_filter = filter(None, None, Some(GameStatus::InProgress));
    page_filter.limit = 3;
    loop {
        let page = ids(store.list_games(&page_filter).await.unwrap());
        assert!(page.len() <= 3);
        let Some(last) = page.last().cloned() else { break };
        pages.push(page);
        page_filter.after_id = Some(last);
    }
    assert_eq!(pages.concat(), expected(&|i| matches!(i % 5, 1 | 2)));
    assert_eq!(pages.len(), 4, "12 games in pages of 3");

    // after_id is exclusive, and the limit is clamped to 1..=1000.
    let mut after = filter(None, None, None);
    after.after_id = Some("l27".to_owned());
    assert_eq!(ids(store.list_games(&after).await.unwrap()), vec!["l28", "l29"]);
    let mut zero = filter(None, None, None);
    zero.limit = 0;
    assert_eq!(ids(store.list_games(&zero).await.unwrap()), vec!["l00"]);
    let mut huge = filter(None, None, None);
    huge.limit = u32::MAX;
    assert_eq!(store.list_games(&huge).await.unwrap().len(), 30);
}

async fn in_play<S: EventStore>(store: &S) {
    for (id, status) in
        [("u1", None), ("u2", Some(GameStatus::InProgress)), ("u3", Some(GameStatus::Finished)), ("u0", None)]
    {
        store.create_game(&game(id)).await.unwrap();
        if let Some(status) = status {
            let mut append = one(id, 0, None);
            append.status = status;
            store.append(append).await.unwrap();
        }
    }
    // Pending games have no timer to arm: only games in play are listed,
    // with the deadline and the time of their last append.
    let u2 = InPlay {
        id: "u2".to_owned(),
        deadline_wall_ms: Some(7_000),
        updated_wall_ms: event("u2", 1, None).wall_ms,
    };
    assert_eq!(store.games_in_play().await.unwrap(), vec![u2.clone()]);
    // Pending games created before a cutoff are those to expire.
    let created = game("u0").created_wall_ms;
    assert_eq!(store.pending_created_before(created + 1, 10).await.unwrap(), vec!["u0", "u1"]);
    assert_eq!(store.pending_created_before(created + 1, 1).await.unwrap(), vec!["u0"]);
    assert!(store.pending_created_before(created, 10).await.unwrap().is_empty());
    // A game whose clock does not run (paused) has no deadline.
    let mut start = one("u1", 0, None);
    start.status = GameStatus::InProgress;
    start.deadline_wall_ms = None;
    store.append(start).await.unwrap();
    let u1 = InPlay { id: "u1".to_owned(), deadline_wall_ms: None, updated_wall_ms: u2.updated_wall_ms };
    assert_eq!(store.games_in_play().await.unwrap(), vec![u1, u2.clone()]);
    let mut finish = one("u1", 1, None);
    finish.status = GameStatus::Finished;
    finish.result = Some("0-1".to_owned());
    store.append(finish).await.unwrap();
    assert_eq!(store.games_in_play().await.unwrap(), vec![u2]);
    // The outages of the service, oldest first, each recorded once.
    assert!(store.outages().await.unwrap().is_empty());
    store.record_outage(5_000, 9_000).await.unwrap();
    store.record_outage(1_000, 2_000).await.unwrap();
    store.record_outage(5_000, 9_000).await.unwrap();
    assert_eq!(store.outages().await.unwrap(), vec![(1_000, 2_000), (5_000, 9_000)]);
}

/// The cap on a creator's unfinished games: pending and in-progress games
/// count, finished ones and other creators' do not; a refused creation
/// writes nothing.
async fn creation_cap<S: EventStore>(store: &S) {
    let by = |id: &str, creator: &str| GameRow { creator: Some(creator.to_owned()), ..game(id) };
    store.create_game_capped(&by("c1", "tok-a"), 2).await.unwrap();
    store.create_game_capped(&by("c2", "tok-a"), 2).await.unwrap();
    match store.create_game_capped(&by("c3", "tok-a"), 2).await {
        Err(StoreError::TooManyOpen { creator, open }) => assert_eq!((creator.as_str(), open), ("tok-a", 2)),
        other => panic!("expected TooManyOpen, got {other:?}"),
    }
    assert!(store.game("c3").await.unwrap().is_none());
    // Another creator has its own count; an uncapped creation is not counted
    // against anyone's cap but its own creator's.
    store.create_game_capped(&by("d1", "tok-b"), 2).await.unwrap();
    // In progress still counts.
    let mut start = one("c1", 0, None);
    start.status = GameStatus::InProgress;
    store.append(start).await.unwrap();
    assert!(matches!(
        store.create_game_capped(&by("c3", "tok-a"), 2).await,
        Err(StoreError::TooManyOpen { .. })
    ));
    // A finished game frees its place.
    let mut finish = one("c1", 1, None);
    finish.status = GameStatus::Finished;
    finish.result = Some("1-0".to_owned());
    store.append(finish).await.unwrap();
    store.create_game_capped(&by("c3", "tok-a"), 2).await.unwrap();
    assert_eq!(store.game("c3").await.unwrap().unwrap().creator.as_deref(), Some("tok-a"));
}

async fn tokens<S: EventStore>(store: &S) {
    assert_eq!(store.token_count().await.unwrap(), 0);
    assert_eq!(store.token("t1").await.unwrap(), None);
    store.insert_token(&token("t1")).await.unwrap();
    store.insert_token(&token("t22")).await.unwrap();
    assert_eq!(store.token("t1").await.unwrap(), Some(token("t1")));
    assert_eq!(store.token("t22").await.unwrap(), Some(token("t22")));
    assert_eq!(store.token_count().await.unwrap(), 2);
    // A taken id is refused and the original kept.
    let mut again = token("t1");
    again.role = "service".to_owned();
    assert!(store.insert_token(&again).await.is_err());
    assert_eq!(store.token("t1").await.unwrap(), Some(token("t1")));
    assert_eq!(store.token_count().await.unwrap(), 2);

    // Revocation marks the row; it is listed still, and cannot happen twice.
    assert_eq!(store.tokens().await.unwrap(), vec![token("t1"), token("t22")]);
    assert!(store.revoke_token("t22", 1_700_000_000_500).await.unwrap());
    assert!(!store.revoke_token("t22", 1_700_000_000_900).await.unwrap(), "already revoked");
    assert!(!store.revoke_token("nope", 1_700_000_000_900).await.unwrap(), "no such token");
    let revoked = TokenRow { revoked_wall_ms: Some(1_700_000_000_500), ..token("t22") };
    assert_eq!(store.token("t22").await.unwrap(), Some(revoked.clone()));
    assert_eq!(store.tokens().await.unwrap(), vec![token("t1"), revoked]);
    assert_eq!(store.token("t1").await.unwrap(), Some(token("t1")), "the others are untouched");
}

fn revocation(
    game_id: &str,
    white: bool,
    black: bool,
    request: Option<(&str, &str, &str)>,
) -> PlayerTokenRevocation {
    PlayerTokenRevocation {
        game_id: game_id.to_owned(),
        white,
        black,
        revoked_wall_ms: 1_700_000_000_700,
        request: request.map(|(id, scope, sha)| (id.to_owned(), origin(scope, sha))),
    }
}

async fn player_token_revocations<S: EventStore + Clone + 'static>(store: &S) {
    store.create_game(&game("g1")).await.unwrap();
    store.create_game(&game("g2")).await.unwrap();
    assert_eq!(store.player_token_generations("g1").await.unwrap(), [0, 0]);
    assert_eq!(store.player_token_generations("nope").await.unwrap(), [0, 0]);

    // Each revocation moves the colours it names one generation on.
    assert_eq!(store.revoke_player_tokens(&revocation("g1", true, false, None)).await.unwrap(), [1, 0]);
    assert_eq!(store.revoke_player_tokens(&revocation("g1", true, true, None)).await.unwrap(), [2, 1]);
    assert_eq!(store.player_token_generations("g1").await.unwrap(), [2, 1]);
    assert_eq!(store.player_token_generations("g2").await.unwrap(), [0, 0], "other games untouched");

    // A request id: its generations are remembered, and a second use of it
    // in the same scope and game is a duplicate (nothing is revoked).
    let asked = revocation("g1", false, true, Some(("r1", "arbiter:tok-1 revoke_player_tokens", "aa")));
    assert_eq!(store.revoke_player_tokens(&asked).await.unwrap(), [2, 2]);
    assert!(matches!(
        store.revoke_player_tokens(&asked).await,
        Err(StoreError::DuplicateRequest { request_id }) if request_id == "r1"
    ));
    assert_eq!(store.player_token_generations("g1").await.unwrap(), [2, 2]);
    let found = store.revocation_request("g1", "arbiter:tok-1 revoke_player_tokens", "r1").await.unwrap();
    assert_eq!(
        found,
        Some(RevocationRequest {
            sha256: "aa".to_owned(),
            generations: RevokedGenerations { white: None, black: Some(2) }
        })
    );
    assert_eq!(store.revocation_request("g1", "other scope", "r1").await.unwrap(), None);
    assert_eq!(
        store.revocation_request("g2", "arbiter:tok-1 revoke_player_tokens", "r1").await.unwrap(),
        None
    );
    // The same id in another scope or game is another request.
    let other = revocation("g1", true, true, Some(("r1", "service:tok-2 revoke_player_tokens", "bb")));
    assert_eq!(store.revoke_player_tokens(&other).await.unwrap(), [3, 3]);
    let elsewhere = revocation("g2", true, true, Some(("r1", "arbiter:tok-1 revoke_player_tokens", "aa")));
    assert_eq!(store.revoke_player_tokens(&elsewhere).await.unwrap(), [1, 1]);

    // An unknown game is not found, and nothing is written; no colour is invalid.
    assert!(matches!(
        store.revoke_player_tokens(&revocation("nope", true, true, None)).await,
        Err(StoreError::NotFound(id)) if id == "nope"
    ));
    assert_eq!(store.player_token_generations("nope").await.unwrap(), [0, 0]);

    // Concurrent revocations take turns: every one gets its own generation.
    let mut tasks = JoinSet::new();
    for _ in 0..8 {
        let store = store.clone();
        tasks.spawn(async move { store.revoke_player_tokens(&revocation("g2", false, true, None)).await });
    }
    let mut seen = BTreeSet::new();
    while let Some(done) = tasks.join_next().await {
        seen.insert(done.unwrap().unwrap()[1]);
    }
    assert_eq!(seen, (2..=9).collect::<BTreeSet<u32>>());
    assert_eq!(store.player_token_generations("g2").await.unwrap(), [1, 9]);
}

async fn meta<S: EventStore + Clone + 'static>(store: &S) {
    assert_eq!(store.meta_get("server_key").await.unwrap(), None);
    store.meta_delete("server_key").await.unwrap();
    assert_eq!(store.meta_get_or_insert("server_key", "first").await.unwrap(), "first");
    assert_eq!(store.meta_get_or_insert("server_key", "second").await.unwrap(), "first");
    assert_eq!(store.meta_get_or_insert("other", "x").await.unwrap(), "x");
    // Concurrent callers all get the same value.
    let mut tasks = JoinSet::new();
    for i in 0..20 {
        let store = store.clone();
        tasks.spawn(async move { store.meta_get_or_insert("race", &format!("v{i}")).await.unwrap() });
    }
    let values: BTreeSet<String> = tasks.join_all().await.into_iter().collect();
    assert_eq!(values.len(), 1, "{values:?}");
    // A value read, then deleted (the player-token key of an earlier
    // release, moved out of the database).
    assert_eq!(store.meta_get("server_key").await.unwrap().as_deref(), Some("first"));
    store.meta_delete("server_key").await.unwrap();
    assert_eq!(store.meta_get("server_key").await.unwrap(), None);
    assert_eq!(store.meta_get("other").await.unwrap().as_deref(), Some("x"), "only that key goes");
    store.ping().await.unwrap();
}

/// 2,000 appends from 2,000 tasks on 200 games: ten writers per game race,
/// retrying on conflict, and every append lands exactly once.
async fn many_concurrent_appends<S: EventStore + Clone + 'static>(store: &S) {
    const GAMES: usize = 200;
    const PER_GAME: usize = 10;
    for g in 0..GAMES {
        store.create_game(&game(&format!("n{g:03}"))).await.unwrap();
    }
    let mut tasks = JoinSet::new();
    for g in 0..GAMES {
        for w in 0..PER_GAME {
            let store = store.clone();
            tasks.spawn(async move {
                let id = format!("n{g:03}");
                let request = format!("w{w}");
                let mut conflicts = 0_u32;
                loop {
                    let last = store.game(&id).await.unwrap().unwrap().last_seq;
                    match store.append(one(&id, last, Some(&request))).await {
                        Ok(()) => return conflicts,
                        Err(StoreError::Conflict { .. }) => conflicts += 1,
                        Err(e) => panic!("{id} {request}: {e}"),
                    }
                }
            });
        }
    }
    let conflicts: u32 = tasks.join_all().await.into_iter().sum();
    let mut per_game: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for g in 0..GAMES {
        let id = format!("n{g:03}");
        assert_gap_free(store, &id, PER_GAME as i64).await;
        let requests = per_game.entry(id.clone()).or_default();
        for e in all_events(store, &id).await {
            assert!(requests.insert(e.request_id.unwrap()), "{id}: a request landed twice");
        }
        assert_eq!(requests.len(), PER_GAME);
    }
    // Ten writers racing on each game must have collided at least once.
    assert!(conflicts > 0);
}

/// A subscriber sees every committed append once, after its commit, as
/// `(game, seq of the append's last event)`; refused appends are not
/// announced.
async fn subscribe_sees_appends<S: EventStore + Clone + 'static>(store: &S) {
    // Game ids of their own: PostgreSQL delivers the notifications of every
    // schema of the database (other tests) to every listener.
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let ids: Vec<String> = (0..4).map(|g| format!("sub{g}-{tag}")).collect();
    for id in &ids {
        store.create_game(&game(id)).await.unwrap();
    }
    let mut receiver = store.subscribe();

    let mut tasks = JoinSet::new();
    for id in ids.clone() {
        let store = store.clone();
        tasks.spawn(async move {
            for seq in 0..10 {
                store.append(one(&id, seq, Some(&format!("r{seq}")))).await.unwrap();
            }
            // Refused appends: nothing to announce.
            assert!(matches!(store.append(one(&id, 3, None)).await, Err(StoreError::Conflict { .. })));
            assert!(matches!(
                store.append(one(&id, 10, Some("r1"))).await,
                Err(StoreError::DuplicateRequest { .. })
            ));
            // Several events at once: one notification, for the last one.
            let finish = Append {
                game_id: id.clone(),
                expected_last_seq: 10,
                events: vec![event(&id, 11, None), event(&id, 12, None), event(&id, 13, None)],
                status: GameStatus::Finished,
                result: Some("1-0".to_owned()),
                view: None,
                deadline_wall_ms: None,
            };
            store.append(finish).await.unwrap();
        });
    }
    tasks.join_all().await;
    let expected: BTreeSet<(String, i64)> =
        ids.iter().flat_map(|id| (1..=10).chain([13]).map(|seq| (id.clone(), seq))).collect();

    let mut seen = BTreeSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.len() < expected.len() {
        let item = tokio::time::timeout_at(deadline, receiver.recv())
            .await
            .unwrap_or_else(|_| panic!("missing notifications: {:?}", expected.difference(&seen)))
            .expect("the subscription lagged or closed");
        assert_ne!(item.0, RESYNC, "no notification may be lost here");
        if !item.0.ends_with(&tag) {
            continue;
        }
        // Announced after the commit: readers see the append.
        let row = store.game(&item.0).await.unwrap().unwrap();
        assert!(row.last_seq >= item.1, "{item:?} announced before its commit ({})", row.last_seq);
        assert!(seen.insert(item.clone()), "{item:?} announced twice");
    }
    assert_eq!(seen, expected);
    // Nothing more comes for these games: no repeats, nothing for the
    // refused appends.
    let quiet = tokio::time::Instant::now() + Duration::from_millis(300);
    while let Ok(received) = tokio::time::timeout_at(quiet, receiver.recv()).await {
        let item = received.expect("the subscription lagged or closed");
        assert!(!item.0.ends_with(&tag), "unexpected {item:?}");
    }
}

async fn heartbeats<S: EventStore>(store: &S) {
    assert!(store.live_replicas(10_000, 5_000).await.unwrap().is_empty());
    store.heartbeat("replica-b", 1_000).await.unwrap();
    store.heartbeat("replica-a", 4_000).await.unwrap();
    assert_eq!(store.live_replicas(6_000, 2_000).await.unwrap(), vec!["replica-a"]);
    // A heartbeat exactly max_age old is still live; the list is sorted.
    assert_eq!(store.live_replicas(6_000, 5_000).await.unwrap(), vec!["replica-a", "replica-b"]);
    // A new heartbeat replaces the previous one.
    store.heartbeat("replica-b", 5_500).await.unwrap();
    assert_eq!(store.live_replicas(6_000, 2_000).await.unwrap(), vec!["replica-a", "replica-b"]);
    store.heartbeat("replica-a", 100).await.unwrap();
    assert_eq!(store.live_replicas(6_000, 2_000).await.unwrap(), vec!["replica-b"]);
    assert!(store.live_replicas(9_000, 2_000).await.unwrap().is_empty());
    // Extreme arguments do not overflow.
    assert_eq!(store.live_replicas(i64::MIN, i64::MAX).await.unwrap().len(), 2);
    assert!(store.live_replicas(i64::MAX, 0).await.unwrap().is_empty());
}

fn view(text: &str) -> StoredView {
    StoredView { format: 1, json: format!(r#"{{"view":"{text}"}}"#) }
}

async fn views<S: EventStore + Clone + 'static>(store: &S) {
    // A game is created without a read model, or with one.
    store.create_game(&game("v1")).await.unwrap();
    let mut with_view = game("v2");
    with_view.view = Some(view("created"));
    store.create_game(&with_view).await.unwrap();
    store.create_game(&game("v3")).await.unwrap();
    assert_eq!(store.game("v1").await.unwrap().unwrap().view, None);
    assert_eq!(store.game("v2").await.unwrap().unwrap().view, Some(view("created")));
    assert_eq!(store.games_without_view("", 10).await.unwrap(), vec!["v1", "v3"]);
    assert_eq!(store.games_without_view("v1", 10).await.unwrap(), vec!["v3"]);
    assert_eq!(store.games_without_view("", 1).await.unwrap(), vec!["v1"]);

    // An append writes its view with the event, one-event appends (which
    // the backends batch) and several-event appends alike.
    let mut append = one("v1", 0, Some("a"));
    append.view = Some(view("after 1"));
    store.append(append).await.unwrap();
    let row = store.game("v1").await.unwrap().unwrap();
    assert_eq!((row.last_seq, row.view), (1, Some(view("after 1"))));
    let mut batch = one("v1", 1, None);
    batch.events.push(event("v1", 3, None));
    batch.view = Some(view("after 3"));
    store.append(batch).await.unwrap();
    assert_eq!(store.game("v1").await.unwrap().unwrap().view, Some(view("after 3")));
    // Lists carry the views.
    let listed = store.list_games(&GameFilter { limit: 10, ..GameFilter::default() }).await.unwrap();
    let views: Vec<_> = listed.iter().map(|g| (g.id.as_str(), g.view.clone())).collect();
    assert_eq!(views, [("v1", Some(view("after 3"))), ("v2", Some(view("created"))), ("v3", None)]);

    // A refused append leaves the view as it was.
    let mut stale = one("v1", 1, None);
    stale.view = Some(view("stale"));
    assert!(matches!(store.append(stale).await, Err(StoreError::Conflict { .. })));
    assert_eq!(store.game("v1").await.unwrap().unwrap().view, Some(view("after 3")));

    // An append without a view clears the old one rather than leave it
    // describing an earlier event.
    store.append(one("v2", 0, None)).await.unwrap();
    assert_eq!(store.game("v2").await.unwrap().unwrap().view, None);
    // A game in play without one is left to its table (it stores the view
    // when it stops): only the others are listed for a rebuild.
    assert_eq!(store.games_without_view("", 10).await.unwrap(), vec!["v3"]);

    // `put_view` writes only while the game's last event is the one the
    // view was made after.
    store.put_view("v3", 0, &view("rebuilt")).await.unwrap();
    assert_eq!(store.game("v3").await.unwrap().unwrap().view, Some(view("rebuilt")));
    store.put_view("v2", 0, &view("too old")).await.unwrap();
    assert_eq!(store.game("v2").await.unwrap().unwrap().view, None);
    store.put_view("v2", 1, &view("rebuilt")).await.unwrap();
    assert_eq!(store.game("v2").await.unwrap().unwrap().view, Some(view("rebuilt")));
    // An unknown game: nothing to write, and no error.
    store.put_view("nope", 0, &view("x")).await.unwrap();
    assert!(store.games_without_view("", 10).await.unwrap().is_empty());
}

fn tournament(id: &str, version: i64, spec: &str) -> tournament::TournamentRow {
    tournament::TournamentRow {
        id: id.to_owned(),
        creator: "arbiter:a1".to_owned(),
        created_wall_ms: 1_700_000_000_000,
        updated_wall_ms: 1_700_000_000_000 + version,
        version,
        format: 1,
        spec_json: spec.to_owned(),
    }
}

fn round_row(tournament_id: &str, number: i64) -> tournament::RoundRow {
    tournament::RoundRow {
        tournament_id: tournament_id.to_owned(),
        number,
        created_wall_ms: 1_700_000_000_000,
        started_wall_ms: None,
        format: 1,
        spec_json: format!(r#"{{"round":{number}}}"#),
    }
}

fn round_game(id: &str, board: i64) -> tournament::RoundGame {
    tournament::RoundGame { board, white: 2 * board - 1, black: 2 * board, game: game(id) }
}

/// Tournaments: created once (by id and by request id), changed only by
/// compare-and-set on their version.
async fn tournaments<S: tournament::TournamentStore>(store: &S) {
    let asked = origin("arbiter:a1 create_event", "sha-1");
    store.create_tournament(&tournament("open", 1, "v1"), Some(("r1", &asked))).await.unwrap();
    assert_eq!(store.tournament("open").await.unwrap(), Some(tournament("open", 1, "v1")));
    // The id is taken; the request id is taken in its scope (a retry).
    assert!(matches!(
        store.create_tournament(&tournament("open", 1, "v1"), None).await,
        Err(StoreError::ResourceExists(name)) if name == "events/open"
    ));
    assert!(matches!(
        store.create_tournament(&tournament("other", 1, "x"), Some(("r1", &asked))).await,
        Err(StoreError::DuplicateRequest { .. })
    ));
    assert_eq!(store.tournament("other").await.unwrap(), None, "a refused creation leaves nothing");
    let found = store.tournament_request("arbiter:a1 create_event", "r1").await.unwrap().unwrap();
    assert_eq!((found.sha256.as_str(), found.target.as_str()), ("sha-1", "events/open"));
    assert!(store.tournament_request("service:s1 create_event", "r1").await.unwrap().is_none());
    assert!(matches!(
        store.create_tournament(&tournament("v2", 2, "x"), None).await,
        Err(StoreError::Invalid(_))
    ));

    // Compare-and-set: version 2 once; a second writer of version 2 loses.
    store.update_tournament(&tournament("open", 2, "v2"), None).await.unwrap();
    assert!(matches!(
        store.update_tournament(&tournament("open", 2, "other v2"), None).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(store.tournament("open").await.unwrap().unwrap().spec_json, "v2");
    assert!(matches!(
        store.update_tournament(&tournament("nope", 2, "x"), None).await,
        Err(StoreError::ResourceNotFound(name)) if name == "events/nope"
    ));

    store.create_tournament(&tournament("blitz", 1, "b"), None).await.unwrap();
    let ids = |rows: Vec<tournament::TournamentRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.list_tournaments(None, 10).await.unwrap()), ["blitz", "open"]);
    assert_eq!(ids(store.list_tournaments(Some("blitz"), 10).await.unwrap()), ["open"]);
    assert_eq!(ids(store.list_tournaments(None, 1).await.unwrap()), ["blitz"]);
}

/// A round and its games are created together or not at all; its start is
/// recorded once.
async fn rounds<S: tournament::TournamentStore + EventStore>(store: &S) {
    store.create_tournament(&tournament("swiss", 1, "s"), None).await.unwrap();
    let games = [round_game("swiss-r1-b1", 1), round_game("swiss-r1-b2", 2)];
    let asked = origin("arbiter:a1 create_round", "sha-r1");
    store.create_round(&round_row("swiss", 1), &games, Some(("q1", &asked))).await.unwrap();
    assert_eq!(store.round("swiss", 1).await.unwrap(), Some(round_row("swiss", 1)));
    assert_eq!(store.game("swiss-r1-b2").await.unwrap().unwrap().status, GameStatus::Pending);
    let seat = store.round_of_game("swiss-r1-b2").await.unwrap().unwrap();
    assert_eq!(
        (seat.tournament_id.as_str(), seat.round, seat.board, seat.white, seat.black),
        ("swiss", 1, 2, 3, 4)
    );
    assert!(store.round_of_game("nope").await.unwrap().is_none());
    let found = store.tournament_request("arbiter:a1 create_round", "q1").await.unwrap().unwrap();
    assert_eq!(found.target, "events/swiss/rounds/1");

    // Round 1 again: refused, nothing written (its games are not created
    // twice, the new game of the refused round does not exist).
    let again = [round_game("swiss-r1-b3", 3)];
    assert!(matches!(
        store.create_round(&round_row("swiss", 1), &again, None).await,
        Err(StoreError::ResourceExists(name)) if name == "events/swiss/rounds/1"
    ));
    assert!(store.game("swiss-r1-b3").await.unwrap().is_none());
    // A retry of the first creation is told it is a duplicate.
    assert!(matches!(
        store.create_round(&round_row("swiss", 1), &games, Some(("q1", &asked))).await,
        Err(StoreError::DuplicateRequest { .. })
    ));
    // Round 2 whose second game's id is taken: the round and its first game
    // are rolled back with it.
    let clash = [round_game("swiss-r2-b1", 1), round_game("swiss-r1-b1", 2)];
    assert!(matches!(
        store.create_round(&round_row("swiss", 2), &clash, None).await,
        Err(StoreError::AlreadyExists(id)) if id == "swiss-r1-b1"
    ));
    assert_eq!(store.round("swiss", 2).await.unwrap(), None);
    assert!(store.game("swiss-r2-b1").await.unwrap().is_none());
    // A round of an unknown tournament.
    assert!(matches!(
        store.create_round(&round_row("nope", 1), &[], None).await,
        Err(StoreError::ResourceNotFound(name)) if name == "events/nope"
    ));

    store.create_round(&round_row("swiss", 2), &[round_game("swiss-r2-b1", 1)], None).await.unwrap();
    let numbers: Vec<i64> = store.rounds("swiss").await.unwrap().into_iter().map(|r| r.number).collect();
    assert_eq!(numbers, [1, 2]);
    // The first start stands.
    assert_eq!(store.start_round("swiss", 1, 5_000).await.unwrap(), 5_000);
    assert_eq!(store.start_round("swiss", 1, 9_000).await.unwrap(), 5_000);
    assert_eq!(store.round("swiss", 1).await.unwrap().unwrap().started_wall_ms, Some(5_000));
    assert!(matches!(store.start_round("swiss", 9, 1).await, Err(StoreError::ResourceNotFound(_))));

    // An alert's first acknowledgement stands.
    let ack = |actor: &str, wall_ms| tournament::AlertAck {
        alert_id: "swiss-r1-b1-s3-0".into(),
        actor: actor.into(),
        wall_ms,
    };
    assert_eq!(store.acknowledge_alert("swiss", 1, &ack("arbiter", 10)).await.unwrap(), ack("arbiter", 10));
    assert_eq!(store.acknowledge_alert("swiss", 1, &ack("other", 20)).await.unwrap(), ack("arbiter", 10));
    assert_eq!(store.alert_acks("swiss", 1).await.unwrap(), [ack("arbiter", 10)]);
    assert!(store.alert_acks("swiss", 2).await.unwrap().is_empty());
    assert!(matches!(
        store.acknowledge_alert("swiss", 9, &ack("arbiter", 10)).await,
        Err(StoreError::ResourceNotFound(name)) if name == "events/swiss/rounds/9"
    ));
}

macro_rules! conformance {
    ($backend:ident, $open:expr) => {
        mod $backend {
            use super::*;

            conformance!(@tests $open;
                create_and_get, create_duplicates, append_happy_path, stale_expected_seq_conflicts,
                concurrent_same_seq_one_wins, duplicate_request_in_game, same_request_in_other_games,
                invalid_appends, unknown_game, mixed_batch, events_paging, list_games_filters, in_play, creation_cap,
                tokens, meta, many_concurrent_appends, subscribe_sees_appends, heartbeats, views,
                request_scopes, creation_requests, list_games_max_page, player_token_revocations, tournaments,
                rounds);
        }
    };
    (@tests $open:expr; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                // `None`: the backend is not available here (and may be
                // skipped).
                let Some((store, _scratch)) = $open.await else { return };
                super::$check(&store).await;
                store.close().await;
                // The store goes before its database (`_scratch`, dropped at
                // the end of the scope) does.
                drop(store);
            }
        )*
    };
}

/// A fresh database file in a temp directory (kept alive with the store).
async fn file_store() -> Option<(Storage, tempfile::TempDir)> {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    Some((Storage::open(&url).await.unwrap(), dir))
}

async fn memory_store() -> Option<(Storage, ())> {
    Some((Storage::open("sqlite::memory:").await.unwrap(), ()))
}

/// A store in a fresh PostgreSQL schema (dropped with the [`PgSchema`]).
async fn pg_store() -> Option<(Storage, PgSchema)> {
    let schema = PgSchema::create().await?;
    Some((Storage::open(&schema.url()).await.unwrap(), schema))
}

conformance!(sqlite_file, file_store());
conformance!(sqlite_memory, memory_store());
conformance!(postgres, pg_store());

// ---------------------------------------------------------------------------
// File-specific tests.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());

    let store = Storage::open(&url).await.unwrap();
    let mut g = game("keep");
    g.request_id = Some("create-keep".to_owned());
    store.create_game(&g).await.unwrap();
    for seq in 0..5 {
        store.append(one("keep", seq, Some(&format!("r{seq}")))).await.unwrap();
    }
    store.insert_token(&token("tok")).await.unwrap();
    assert_eq!(store.meta_get_or_insert("key", "v1").await.unwrap(), "v1");
    store.close().await;
    // A closed store refuses work instead of losing it.
    assert!(matches!(store.append(one("keep", 5, None)).await, Err(StoreError::Unavailable(_))));
    drop(store);

    let store = Storage::open(&url).await.unwrap();
    assert_eq!(store.game_by_request("create-keep").await.unwrap().unwrap().last_seq, 5);
    assert_gap_free(&store, "keep", 5).await;
    assert_eq!(store.event_by_request("keep", "r3").await.unwrap().unwrap().seq, 4);
    assert_eq!(store.token("tok").await.unwrap(), Some(token("tok")));
    assert_eq!(store.meta_get_or_insert("key", "v2").await.unwrap(), "v1");
    // Appends acknowledged right before the store is dropped (not closed) are
    // on disk too.
    store.append(one("keep", 5, Some("r5"))).await.unwrap();
    drop(store);

    let store = Storage::open(&url).await.unwrap();
    assert_gap_free(&store, "keep", 6).await;
    // Reopening does not re-run the migrations or lose the unique indexes.
    assert!(matches!(store.create_game(&g).await, Err(StoreError::DuplicateRequest { .. })));
    store.close().await;
}

/// Closing while appends are queued: every acknowledged append is on disk,
/// every other one was refused as `Unavailable`, none is lost in between.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_flushes_the_queue() {
    const GAMES: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    let store = Storage::open(&url).await.unwrap();
    for g in 0..GAMES {
        store.create_game(&game(&format!("q{g:03}"))).await.unwrap();
    }
    let mut tasks = JoinSet::new();
    for g in 0..GAMES {
        let store = store.clone();
        tasks.spawn(async move { (g, store.append(one(&format!("q{g:03}"), 0, Some("only"))).await) });
    }
    // Close once the appends are flowing (one is answered, others queued).
    let first = tasks.join_next().await.unwrap().unwrap();
    store.close().await;
    assert!(store.ping().await.is_err(), "a closed store is not ready");
    let mut results = tasks.join_all().await;
    results.push(first);
    drop(store);

    let store = Storage::open(&url).await.unwrap();
    let mut acknowledged = 0;
    for (g, result) in results {
        let id = format!("q{g:03}");
        match result {
            Ok(()) => {
                acknowledged += 1;
                assert_gap_free(&store, &id, 1).await;
            }
            Err(StoreError::Unavailable(_)) => assert_gap_free(&store, &id, 0).await,
            Err(e) => panic!("{id}: {e}"),
        }
    }
    assert!(acknowledged > 0);
    store.close().await;
}

#[tokio::test]
async fn unsupported_url_scheme() {
    let err = Storage::open("mysql://user:secret@host/db").await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, StoreError::Invalid(_)));
    assert!(message.contains("mysql"), "{message}");
    assert!(!message.contains("secret"), "the URL's password leaked: {message}");
    assert!(matches!(Storage::open("arbiter.db").await, Err(StoreError::Invalid(_))));
}

/// A database that cannot grow (`max_page_count`, the same `SQLITE_FULL` as a
/// full disk): the failing appends report `Unavailable`, leave nothing
/// behind, and the writer keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_database_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let options =
        SqliteConnectOptions::from_str(&format!("sqlite://{}", dir.path().join("full.db").display()))
            .unwrap()
            .create_if_missing(true)
            .pragma("max_page_count", "60");
    let store = SqliteStore::open_with(options).await.unwrap();
    store.create_game(&game("f")).await.unwrap();

    let mut acknowledged = 0;
    let error = loop {
        let mut append = one("f", acknowledged, None);
        append.events[0].event_json = "x".repeat(2_000);
        match store.append(append).await {
            Ok(()) => acknowledged += 1,
            Err(e) => break e,
        }
        assert!(acknowledged < 1_000, "the page limit was never reached");
    };
    assert!(matches!(&error, StoreError::Unavailable(reason) if reason.contains("full")), "{error:?}");
    assert!(acknowledged > 0);

    // Everything acknowledged is there, the failed append is not.
    assert_gap_free(&store, "f", acknowledged).await;
    // The writer is still alive and answering.
    assert!(matches!(store.append(one("f", 0, None)).await, Err(StoreError::Conflict { .. })));
    assert!(matches!(store.append(one("nope", 0, None)).await, Err(StoreError::NotFound(_))));
    store.ping().await.unwrap();
    store.close().await;
}

/// A real full disk: the batches that hit it are refused as `Unavailable`
/// and leave nothing behind, everything acknowledged stays, and the store
/// serves again once space is freed, without being reopened. It fills the
/// filesystem it runs on, hence a scratch one of its own:
///
/// ```text
/// mkdir -p /tmp/arbiter-full && mount -t tmpfs -o size=8m tmpfs /tmp/arbiter-full
/// ARBITER_FULL_DIR=/tmp/arbiter-full cargo test -p arbiter-server --test store disk_full
/// ```
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disk_full_then_recovers() {
    use std::io::Write;

    const GAMES: usize = 8;
    // A filesystem of its own to fill: ARBITER_FULL_DIR if given, else an
    // 8 MB tmpfs this test mounts (root only; CI runs as root).
    let scratch = tempfile::tempdir().unwrap();
    let (dir, mounted) = match std::env::var("ARBITER_FULL_DIR") {
        Ok(d) => (std::path::PathBuf::from(d), false),
        Err(_) => {
            let ok = std::process::Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
                .arg(scratch.path())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                assert!(std::env::var_os("CI").is_none(), "CI must be able to mount a tmpfs (run as root)");
                eprintln!("cannot mount a tmpfs here (not root?): disk-full test skipped");
                return;
            }
            (scratch.path().to_path_buf(), true)
        }
    };
    struct Unmount(Option<std::path::PathBuf>);
    impl Drop for Unmount {
        fn drop(&mut self) {
            if let Some(d) = &self.0 {
                let _ = std::process::Command::new("umount").arg(d).status();
            }
        }
    }
    let _unmount = Unmount(mounted.then(|| dir.clone()));
    for leftover in ["arbiter.db", "arbiter.db-wal", "arbiter.db-shm", "filler"] {
        let _ = std::fs::remove_file(dir.join(leftover));
    }
    let url = format!("sqlite://{}", dir.join("arbiter.db").display());
    let store = Storage::open(&url).await.unwrap();
    for g in 0..GAMES {
        store.create_game(&game(&format!("full{g}"))).await.unwrap();
    }

    // Fill the filesystem, then free 1 MB for the database to grow into.
    let filler = dir.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let mut written = 0_u64;
    while file.write_all(&[0; 65_536]).is_ok() {
        written += 65_536;
    }
    file.set_len(written.saturating_sub(1 << 20)).unwrap();
    file.sync_all().unwrap();

    // Concurrent appenders until each of them is refused.
    let appenders = |store: Storage| {
        let mut tasks = JoinSet::new();
        for g in 0..GAMES {
            let store = store.clone();
            tasks.spawn(async move {
                let id = format!("full{g}");
                let mut last_seq = store.game(&id).await.unwrap().unwrap().last_seq;
                for _ in 0..1_000 {
                    let mut append = one(&id, last_seq, Some(&format!("r{}", last_seq + 1)));
                    append.events[0].event_json = "x".repeat(16_384);
                    match store.append(append).await {
                        Ok(()) => last_seq += 1,
                        Err(e) => return (id, last_seq, Some(e)),
                    }
                }
                (id, last_seq, None)
            });
        }
        tasks.join_all()
    };
    for (id, acknowledged, error) in appenders(store.clone()).await {
        let error = error.expect("the disk never filled up");
        assert!(matches!(error, StoreError::Unavailable(_)), "{id}: {error:?}");
        assert_gap_free(&store, &id, acknowledged).await;
    }
    store.ping().await.unwrap();

    // The fault clears: the same store serves again.
    drop(file);
    std::fs::remove_file(&filler).unwrap();
    let mut expected = BTreeMap::new();
    for (id, last_seq, _) in appenders(store.clone()).await {
        assert!(last_seq > 0);
        expected.insert(id, last_seq);
    }
    store.close().await;

    let store = Storage::open(&url).await.unwrap();
    for (id, last_seq) in expected {
        assert_gap_free(&store, &id, last_seq).await;
    }
    store.close().await;
}

// ---------------------------------------------------------------------------
// PostgreSQL.

/// Where the PostgreSQL tests look for a server when `ARBITER_TEST_PG_URL`
/// is not set.
const DEFAULT_PG_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The PostgreSQL server to test against: `ARBITER_TEST_PG_URL` (which must
/// answer), else [`DEFAULT_PG_URL`] if it answers. `None` skips the test,
/// which only happens outside CI.
async fn pg_url() -> Option<String> {
    if let Ok(url) = std::env::var("ARBITER_TEST_PG_URL") {
        return Some(url);
    }
    let connected =
        tokio::time::timeout(Duration::from_secs(5), sqlx::PgConnection::connect(DEFAULT_PG_URL)).await;
    match connected {
        Ok(Ok(conn)) => {
            let _ = conn.close().await;
            Some(DEFAULT_PG_URL.to_owned())
        }
        Ok(Err(e)) => no_pg(&e.to_string()),
        Err(_) => no_pg("no answer within 5 s"),
    }
}

fn no_pg(reason: &str) -> Option<String> {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run the PostgreSQL tests, but {DEFAULT_PG_URL} is unreachable ({reason}): \
         start PostgreSQL or set ARBITER_TEST_PG_URL"
    );
    eprintln!("no PostgreSQL at {DEFAULT_PG_URL} ({reason}): PostgreSQL test skipped");
    None
}

/// A schema of its own in the test database, dropped with everything in it
/// when this is dropped, also when the test fails.
struct PgSchema {
    admin_url: String,
    name: String,
}

impl PgSchema {
    async fn create() -> Option<PgSchema> {
        let admin_url = pg_url().await?;
        let name = format!("t_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(&admin_url).await.unwrap();
        conn.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}"))).await.unwrap();
        conn.close().await.unwrap();
        Some(PgSchema { admin_url, name })
    }

    /// A URL whose sessions work in this schema. They also carry its name as
    /// their application name, which is how [`PgSchema::terminate`] finds
    /// them.
    fn url(&self) -> String {
        url_with_schema(&self.admin_url, &self.name)
    }

    async fn admin(&self) -> sqlx::PgConnection {
        sqlx::PgConnection::connect(&self.admin_url).await.unwrap()
    }

    /// Kills the store sessions of this schema whose last statement matches
    /// `query_like` (a LIKE pattern), as a server restart or a network cut
    /// would; returns how many.
    async fn terminate(&self, query_like: &str) -> i64 {
        let mut admin = self.admin().await;
        let killed = sqlx::query_scalar(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE application_name = $1 AND query LIKE $2 AND pid <> pg_backend_pid()",
        )
        .bind(&self.name)
        .bind(query_like)
        .fetch_one(&mut admin)
        .await
        .unwrap();
        admin.close().await.unwrap();
        killed
    }
}

fn url_with_schema(base: &str, schema: &str) -> String {
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}options=-c%20search_path%3D{schema}&application_name={schema}")
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        // `drop` cannot await and may run on the test's runtime, so the schema
        // is dropped from a thread with a runtime of its own. The lock timeout
        // keeps a store left open by a failed test from hanging it.
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                let mut conn = sqlx::PgConnection::connect(&url).await.ok()?;
                conn.execute("SET lock_timeout = '10s'").await.ok()?;
                conn.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA {name} CASCADE"))).await.ok()?;
                conn.close().await.ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("could not drop the test schema {}", self.name);
        }
    }
}

/// The next notification about `game_id` (others' are skipped), within 10 s.
async fn next_about(receiver: &mut broadcast::Receiver<(String, i64)>, game_id: &str) -> (String, i64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let item = tokio::time::timeout_at(deadline, receiver.recv())
            .await
            .unwrap_or_else(|_| panic!("no notification about {game_id}"))
            .expect("the subscription lagged or closed");
        if item.0 == game_id || item.0 == RESYNC {
            return item;
        }
    }
}

/// Two stores on one schema, as two replicas would be: appends racing on the
/// same game through both are decided by the database (exactly one wins
/// each seq), many writers spread over both lose nothing, and each store's
/// subscribers see the appends made through the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_instances() {
    let Some(schema) = PgSchema::create().await else { return };
    let a = Storage::open(&schema.url()).await.unwrap();
    // The other spelling of the scheme; the migrations are already applied.
    let b = Storage::open(&schema.url().replacen("postgres://", "postgresql://", 1)).await.unwrap();
    let mut seen_by_a = a.subscribe();
    let mut seen_by_b = b.subscribe();

    let id = format!("shared-{}", schema.name);
    a.create_game(&game(&id)).await.unwrap();
    assert!(matches!(b.create_game(&game(&id)).await, Err(StoreError::AlreadyExists(_))));

    // Both append the same seq at the same time, 40 times over.
    let mut winners = Vec::new();
    for seq in 0..40 {
        let (from_a, from_b) = tokio::join!(
            a.append(one(&id, seq, Some(&format!("a{}", seq + 1)))),
            b.append(one(&id, seq, Some(&format!("b{}", seq + 1))))
        );
        match (&from_a, &from_b) {
            (Ok(()), Err(StoreError::Conflict { .. })) => winners.push(format!("a{}", seq + 1)),
            (Err(StoreError::Conflict { .. }), Ok(())) => winners.push(format!("b{}", seq + 1)),
            _ => panic!("seq {}: {from_a:?} / {from_b:?}", seq + 1),
        }
    }
    assert_gap_free(&a, &id, 40).await;
    assert_gap_free(&b, &id, 40).await;
    let logged: Vec<String> = all_events(&b, &id).await.into_iter().map(|e| e.request_id.unwrap()).collect();
    assert_eq!(logged, winners);

    // Each store's subscribers saw every append, whichever store made it.
    for receiver in [&mut seen_by_a, &mut seen_by_b] {
        for seq in 1..=40 {
            assert_eq!(next_about(receiver, &id).await, (id.clone(), seq));
        }
    }
    // An append made through A only, seen through B.
    a.append(one(&id, 40, Some("only-a"))).await.unwrap();
    assert_eq!(next_about(&mut seen_by_b, &id).await, (id.clone(), 41));

    // 60 games, 6 writers each, alternating between the stores and retrying
    // on conflict: every append lands exactly once, and batches of the two
    // stores that lock the same games never deadlock.
    const GAMES: usize = 60;
    const PER_GAME: usize = 6;
    for g in 0..GAMES {
        b.create_game(&game(&format!("m{g:02}"))).await.unwrap();
    }
    let mut tasks = JoinSet::new();
    for g in 0..GAMES {
        for w in 0..PER_GAME {
            let store = if w % 2 == 0 { a.clone() } else { b.clone() };
            tasks.spawn(async move {
                let id = format!("m{g:02}");
                let request = format!("w{w}");
                loop {
                    let last = store.game(&id).await.unwrap().unwrap().last_seq;
                    match store.append(one(&id, last, Some(&request))).await {
                        Ok(()) => return,
                        Err(StoreError::Conflict { .. }) => {}
                        Err(e) => panic!("{id} {request}: {e}"),
                    }
                }
            });
        }
    }
    tasks.join_all().await;
    for g in 0..GAMES {
        let id = format!("m{g:02}");
        assert_gap_free(&a, &id, PER_GAME as i64).await;
        let requests: BTreeSet<String> =
            all_events(&a, &id).await.into_iter().map(|e| e.request_id.unwrap()).collect();
        assert_eq!(requests.len(), PER_GAME, "{id}: a request landed twice");
    }

    // Heartbeats and meta are shared too.
    a.heartbeat("replica-a", 10_000).await.unwrap();
    b.heartbeat("replica-b", 10_000).await.unwrap();
    assert_eq!(b.live_replicas(10_000, 1_000).await.unwrap(), vec!["replica-a", "replica-b"]);
    assert_eq!(a.meta_get_or_insert("server_key", "from-a").await.unwrap(), "from-a");
    assert_eq!(b.meta_get_or_insert("server_key", "from-b").await.unwrap(), "from-a");

    a.close().await;
    b.close().await;
    // Everything acknowledged is there for a store opened afterwards.
    let c = Storage::open(&schema.url()).await.unwrap();
    assert_gap_free(&c, &id, 41).await;
    assert_eq!(c.event_by_request(&id, "only-a").await.unwrap().unwrap().seq, 41);
    c.close().await;
}

/// The notification connection killed from outside: the store listens again
/// by itself, says that notifications may have been missed, and carries on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_listener_reconnects() {
    let Some(schema) = PgSchema::create().await else { return };
    let store = Storage::open(&schema.url()).await.unwrap();
    let mut receiver = store.subscribe();
    let id = format!("relisten-{}", schema.name);
    store.create_game(&game(&id)).await.unwrap();
    store.append(one(&id, 0, None)).await.unwrap();
    assert_eq!(next_about(&mut receiver, &id).await, (id.clone(), 1));

    assert_eq!(schema.terminate("LISTEN%").await, 1);
    assert_eq!(next_about(&mut receiver, &id).await, (RESYNC.to_owned(), 0));
    store.append(one(&id, 1, None)).await.unwrap();
    assert_eq!(next_about(&mut receiver, &id).await, (id.clone(), 2));
    store.close().await;
}

/// Every session of the store killed, as a server restart would: calls fail
/// with `Unavailable` and nothing else, and the same store serves again
/// without being reopened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_sessions_lost_then_recovers() {
    let Some(schema) = PgSchema::create().await else { return };
    let store = Storage::open(&schema.url()).await.unwrap();
    let mut receiver = store.subscribe();
    let id = format!("lost-{}", schema.name);
    store.create_game(&game(&id)).await.unwrap();
    for seq in 0..3 {
        store.append(one(&id, seq, Some(&format!("r{}", seq + 1)))).await.unwrap();
    }
    // Reads and writes both, so that the pool holds connections to kill.
    store.game(&id).await.unwrap();

    let killed = schema.terminate("%").await;
    assert!(killed >= 3, "killed {killed} sessions");

    let mut last_seq = 3;
    let mut failures = 0;
    while last_seq < 8 {
        let request = format!("r{}", last_seq + 1);
        match store.append(one(&id, last_seq, Some(&request))).await {
            Ok(()) => last_seq += 1,
            // The failed attempt may have committed after all (its answer was
            // lost with the connection): the retry finds its request id.
            Err(StoreError::DuplicateRequest { request_id }) if request_id == request => last_seq += 1,
            Err(StoreError::Unavailable(_)) => {
                failures += 1;
                assert!(failures < 50, "the store does not recover");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("seq {}: {e:?}", last_seq + 1),
        }
    }
    store.ping().await.unwrap();
    assert_gap_free(&store, &id, 8).await;
    // The listener came back too, and said so.
    let mut resynced = false;
    loop {
        let item = next_about(&mut receiver, &id).await;
        resynced |= item.0 == RESYNC;
        if item == (id.clone(), 8) {
            break;
        }
    }
    assert!(resynced, "no resync marker after the listener's session was killed");
    store.close().await;
}

/// A database that refuses writes (a standby after a failover): appends are
/// `Unavailable`, reads still work, and writes resume once it accepts them
/// again. The store runs as a role of its own, which is made read-only and
/// whose sessions are then killed so that the store reconnects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_read_only_is_unavailable() {
    let Some(schema) = PgSchema::create().await else { return };
    let role = format!("r_{}", &schema.name[2..]);
    let mut admin = schema.admin().await;
    let created = admin
        .execute(sqlx::AssertSqlSafe(format!(
            "CREATE ROLE {role} LOGIN; GRANT ALL ON SCHEMA {0} TO {role}",
            schema.name
        )))
        .await;
    if let Err(e) = created {
        assert!(std::env::var_os("CI").is_none(), "cannot create a role: {e}");
        eprintln!("cannot create a role ({e}): read-only test skipped");
        return;
    }
    struct DropRole(String, String);
    impl Drop for DropRole {
        fn drop(&mut self) {
            let (url, role) = (self.0.clone(), self.1.clone());
            let _ = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
                runtime.block_on(async {
                    let mut conn = sqlx::PgConnection::connect(&url).await.ok()?;
                    conn.execute(sqlx::AssertSqlSafe(format!("DROP OWNED BY {role}; DROP ROLE {role}")))
                        .await
                        .ok()?;
                    conn.close().await.ok()
                })
            })
            .join();
        }
    }
    let _drop_role = DropRole(schema.admin_url.clone(), role.clone());

    // The admin URL with the role as its user (and no password: the test
    // server trusts local connections).
    let Some((scheme, rest)) = schema.admin_url.split_once("://") else { panic!("odd URL") };
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let store =
        match Storage::open(&url_with_schema(&format!("{scheme}://{role}@{host}"), &schema.name)).await {
            Ok(store) => store,
            Err(e) => {
                assert!(std::env::var_os("CI").is_none(), "cannot connect as {role}: {e}");
                eprintln!("cannot connect as {role} ({e}): read-only test skipped");
                return;
            }
        };
    let id = format!("ro-{}", schema.name);
    store.create_game(&game(&id)).await.unwrap();
    store.append(one(&id, 0, Some("r1"))).await.unwrap();

    let set = |read_only: bool| {
        let value = if read_only {
            "SET default_transaction_read_only = on"
        } else {
            "RESET default_transaction_read_only"
        };
        sqlx::AssertSqlSafe(format!("ALTER ROLE {role} {value}"))
    };
    admin.execute(set(true)).await.unwrap();
    schema.terminate("%").await;
    let mut refused = None;
    for _ in 0..50 {
        match store.append(one(&id, 1, Some("r2"))).await {
            Err(StoreError::Unavailable(reason)) if reason.contains("25006") => {
                refused = Some(reason);
                break;
            }
            // A first attempt may meet the killed connection.
            Err(StoreError::Unavailable(_)) => tokio::time::sleep(Duration::from_millis(100)).await,
            other => panic!("append to a read-only database: {other:?}"),
        }
    }
    let reason = refused.expect("appends never met the read-only database");
    assert!(reason.contains("read-only"), "{reason}");
    let mut creation = game(&format!("{id}-2"));
    creation.request_id = Some("create-2".to_owned());
    assert!(matches!(store.create_game(&creation).await, Err(StoreError::Unavailable(_))));
    assert!(matches!(store.heartbeat("replica", 1).await, Err(StoreError::Unavailable(_))));
    // Reads still work, and nothing of the refused writes is there.
    assert_gap_free(&store, &id, 1).await;

    admin.execute(set(false)).await.unwrap();
    schema.terminate("%").await;
    let mut failures = 0;
    loop {
        match store.append(one(&id, 1, Some("r2"))).await {
            Ok(()) => break,
            Err(StoreError::Unavailable(_)) => {
                failures += 1;
                assert!(failures < 50, "the store does not recover");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e:?}"),
        }
    }
    store.create_game(&creation).await.unwrap();
    assert_gap_free(&store, &id, 2).await;
    store.close().await;
    admin.close().await.unwrap();
}

/// No server behind the URL: `Unavailable`, and the password stays out of
/// the message. Needs no PostgreSQL.
#[tokio::test]
async fn postgres_unreachable_is_unavailable() {
    // Nothing listens on port 1: the connection is refused at once.
    let err = Storage::open("postgres://arbiter:secret@127.0.0.1:1/arbiter").await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(!message.contains("secret"), "the URL's password leaked: {message}");

    let err = Storage::open("postgresql://arbiter:secret@127.0.0.1:notaport/arbiter").await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert!(!message.contains("secret"), "the URL's password leaked: {message}");
}

/// Two replicas on one database (issue 18, point 3): a game goes to the
/// first that claims it; the other's appends are fenced (`Moved`); a seizure
/// moves it and fences the first; a replica whose lease runs out has its
/// games in play taken over, and its appends fenced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_owners_leases_and_the_fence() {
    let Some(schema) = PgSchema::create().await else { return };
    let a = Storage::open(&schema.url()).await.unwrap();
    let b = Storage::open(&schema.url()).await.unwrap();
    a.set_replica(Replica { id: "ra".into(), address: "http://a:1".into(), lease: Duration::from_secs(60) });
    b.set_replica(Replica {
        id: "rb".into(),
        address: "http://b:1".into(),
        lease: Duration::from_millis(300),
    });
    a.heartbeat("ra", 1).await.unwrap();
    b.heartbeat("rb", 1).await.unwrap();
    assert_eq!(a.leaseholders().await.unwrap(), ["ra", "rb"]);

    let g = format!("own-{}", schema.name);
    a.create_game(&game(&g)).await.unwrap();
    assert_eq!(a.claim(&g).await.unwrap(), Owner::Here);
    assert_eq!(
        b.claim(&g).await.unwrap(),
        Owner::Elsewhere { replica: "ra".into(), address: "http://a:1".into() }
    );
    a.append(one(&g, 0, None)).await.unwrap();
    match b.append(one(&g, 1, None)).await {
        Err(StoreError::Moved { owner, .. }) => assert_eq!(owner.as_deref(), Some("ra")),
        other => panic!("a follower's append must be fenced, got {other:?}"),
    }
    // Seized: the first owner is fenced in turn, at the very next seq.
    b.seize(&g).await.unwrap();
    assert!(matches!(a.append(one(&g, 1, None)).await, Err(StoreError::Moved { .. })));
    b.append(one(&g, 1, None)).await.unwrap();
    assert_gap_free(&a, &g, 2).await;

    // B stops renewing: once its lease runs out, A takes its games in play.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(a.leaseholders().await.unwrap(), ["ra"]);
    assert_eq!(a.dead_owners().await.unwrap(), [Some("rb".to_owned())]);
    let taken = a.take_over(Some("rb"), None).await.unwrap();
    assert_eq!(taken.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [g.as_str()]);
    assert_eq!(taken[0].deadline_wall_ms, Some(7_001));
    assert!(a.dead_owners().await.unwrap().is_empty());
    assert!(matches!(b.append(one(&g, 2, None)).await, Err(StoreError::Moved { .. })));
    a.append(one(&g, 2, None)).await.unwrap();
    assert_eq!(a.owned_in_play().await.unwrap().len(), 1);
    assert!(b.owned_in_play().await.unwrap().is_empty());

    // A clean stop ends the lease at once.
    a.end_lease().await.unwrap();
    assert!(b.leaseholders().await.unwrap().is_empty());
    a.close().await;
    b.close().await;
}
