//! Upgrades: a database written by an earlier release opens with this build
//! and every game in it reads back exactly as that release read it.
//!
//! `crates/server/tests/golden/release.sqlite` (format 1) and
//! `crates/server/tests/golden-2/release.sqlite` (format 2) were each written
//! by the release named in the `expected.json` beside them (see
//! `examples/golden.rs`), which holds what that release's API answered about
//! every game in it.

use std::path::PathBuf;

use arbiter_e2e::{TestServer, corpus};
use serde_json::Value;

fn golden(corpus: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/server/tests").join(corpus)
}

/// A copy of a corpus's database in a temporary directory.
fn database_of(corpus: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arbiter.db");
    std::fs::copy(golden(corpus).join("release.sqlite"), &db).unwrap();
    let url = format!("sqlite://{}", db.display());
    (dir, url)
}

/// A copy of the first-format database in a temporary directory.
fn first_format_database() -> (tempfile::TempDir, String) {
    database_of("golden")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_first_release_reads_back_identically() {
    reads_back_identically("golden", corpus::GAMES, |v| {
        as_first_release(before_format_4(before_standard_termination(v)))
    })
    .await;
}

/// The release that wrote format 2 gave every field this build gives but
/// the regulations of e-boards (format 4): its answers must come back
/// exactly, with only those taken out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_second_format_reads_back_identically() {
    reads_back_identically("golden-2", corpus::GAMES, |v| before_format_4(before_standard_termination(v)))
        .await;
}

/// Format 3 (a game withdrawn before it started), likewise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_third_format_reads_back_identically() {
    let games: Vec<&str> = corpus::GAMES.iter().chain(&corpus::GAMES_SINCE_FORMAT_3).copied().collect();
    reads_back_identically("golden-3", &games, |v| before_format_4(before_standard_termination(v))).await;
}

/// Format 4 (what e-boards report: sensed touches, board clock readings,
/// and the regulations that weigh them), exactly, with only the standard
/// PGN termination of later releases taken out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_fourth_format_reads_back_identically() {
    reads_back_identically("golden-4", &corpus::all_games(), before_standard_termination).await;
}

/// An answer of this build as the releases before rounds and events gave
/// it: they had no `termination` in a game's end, wrote the reason and the
/// rule in the PGN `Termination` tag (now the standard value, with the
/// reason in `ArbiterTermination`), and wrote no `WhiteFideId` and
/// `BlackFideId` tags. Nor did they write PGN as other programs read it
/// (issue 19, see [`old_pgn_comments`]). Those are put back as they were,
/// and nothing else.
fn before_standard_termination(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k != "termination")
                .map(|(k, v)| (k, before_standard_termination(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(before_standard_termination).collect()),
        Value::String(text) if text.starts_with("[Event ") => {
            Value::String(old_pgn_tags(&old_pgn_comments(&text)))
        }
        other => other,
    }
}

/// The comments of a one-line PGN text (see [`pgn_unwrapped`]) as releases
/// before issue 19 wrote them:
/// - what was ruled before the first move, now a comment before it, was the
///   value of an `Annotator` tag after the others (`Arbiter; before the
///   first move: ...`, with `'` for `"`);
/// - a move refused by touch-move was not named: `White attempted d4:
///   refused; ` before its ruling is taken out;
/// - a reinstated position was `position before ply 3 reinstated`, now
///   `the position after 2. c4 is reinstated; taken back: 2... e6 3. Nc3`
///   (the corpora reinstate positions of games from the standard start only,
///   where move `N.` is ply 2N-1 and `N...` ply 2N).
fn old_pgn_comments(text: &str) -> String {
    let mut out = text.to_owned();
    // The refused moves.
    for side in ["White attempted ", "Black attempted "] {
        while let Some(start) = out.find(side) {
            let end = out[start..].find(": refused; ").expect("a refused move's ruling") + start;
            out.replace_range(start..end + ": refused; ".len(), "");
        }
    }
    // The reinstated positions.
    while let Some(start) =
        out.find("the position after ").or_else(|| out.find("the starting position is reinstated"))
    {
        let ply = match out[start..].strip_prefix("the position after ") {
            Some(label) => {
                let dot = label.find('.').unwrap();
                let number: usize = label[..dot].parse().unwrap();
                if label[dot..].starts_with("...") { 2 * number } else { 2 * number - 1 }
            }
            None => 0,
        };
        let mut end = start + out[start..].find(" is reinstated").unwrap() + " is reinstated".len();
        if let Some(list) = out[end..].strip_prefix("; taken back: ") {
            // The list ends at the next ruling or at the comment's end.
            end += "; taken back: ".len() + list.find([';', '}']).unwrap_or(list.len());
        }
        out.replace_range(start..end, &format!("position before ply {ply} reinstated"));
    }
    // What was ruled before the first move.
    let mut movetext = 0;
    while out[movetext..].starts_with('[') {
        movetext += out[movetext..].find("\"] ").expect("a tag") + "\"] ".len();
    }
    if out[movetext..].starts_with('{') {
        let end = movetext + out[movetext..].find('}').unwrap();
        let comment = out[movetext + 1..end].replace('"', "'");
        let rest = out[end + 1..].trim_start().to_owned();
        out.replace_range(
            movetext..,
            &format!("[Annotator \"Arbiter; before the first move: {comment}\"] {rest}"),
        );
    }
    out
}

/// The tags of a one-line PGN text (see [`pgn_unwrapped`]) as releases
/// before the standard termination wrote them.
fn old_pgn_tags(text: &str) -> String {
    let mut out = text.to_owned();
    for tag in ["[WhiteFideId \"", "[BlackFideId \""] {
        if let Some(start) = out.find(tag)
            && let Some(len) = out[start..].find("\"] ")
        {
            out.replace_range(start..start + len + 3, "");
        }
    }
    if let Some(start) = out.find("[Termination \"")
        && let Some(arbiter) = out[start..].find("[ArbiterTermination \"")
    {
        let arbiter = start + arbiter;
        out.replace_range(start..arbiter + "[ArbiterTermination \"".len(), "[Termination \"");
    }
    out
}

/// An answer of this build as a release before format 4 gave it: those
/// releases had no regulations for e-boards, so the two fields that name
/// them, at their defaults (every game of those releases has them), are
/// taken out, and nothing else.
fn before_format_4(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, v)| {
                    !(k == "sensedTouches" && v == "SENSED_TOUCHES_RECORD"
                        || k == "clockAuthority" && v == "CLOCK_AUTHORITY_SERVICE")
                })
                .map(|(k, v)| (k, before_format_4(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(before_format_4).collect()),
        other => other,
    }
}

/// The servers of these tests never expire a pending game: the corpora are
/// days old, and a game the release left pending must read back pending
/// (expiry itself is tested in `quota.rs`).
fn keep_pending_games(config: &mut arbiter_server::Config) {
    config.pending_game_ttl = std::time::Duration::from_secs(100 * 365 * 86_400);
}

/// Opens a copy of `corpus`'s database and reads every game back as the
/// release that wrote it did, `as_then` turning this build's answer into
/// what that release could have said.
async fn reads_back_identically(corpus: &str, games: &[&str], as_then: fn(Value) -> Value) {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(golden(corpus).join("expected.json")).unwrap())
            .unwrap();
    let (dir, url) = database_of(corpus);
    // First start: the rows have no read models yet (the server rebuilds
    // them in the background), then again once they all have one, so that
    // lists and reads of finished games come from the read models.
    let mut dir = Some(dir);
    for start in ["before the read models", "with the read models"] {
        let server = TestServer::start_with(dir.take(), url.clone(), keep_pending_games).await;
        let actual = corpus::read_everything_of(&server, games).await;
        if start == "before the read models" {
            wait_for_read_models(&url).await;
        }
        dir = server.stop().await.0;
        let (e, a) = (expected["answers"].as_array().unwrap(), actual.as_array().unwrap());
        for (x, y) in e.iter().zip(a) {
            let (x, y) = (&pgn_unwrapped(x.clone()), &as_then(pgn_unwrapped(y.clone())));
            assert_eq!(
                x,
                y,
                "{corpus}: {} reads differently ({start}) from the release that wrote the database:\nexpected {}\n  actual {}",
                x["call"],
                serde_json::to_string_pretty(x).unwrap(),
                serde_json::to_string_pretty(y).unwrap()
            );
        }
        assert_eq!(e.len(), a.len());
    }
}

/// An answer of this build as the first release would have given it: the
/// API has only grown since, by fields the first release did not have
/// (`article`, the Article a rule id rests on; `timeControlPgn`, the
/// time control in the field that names its form) and by citing that Article
/// before the rule id in PGN comments and tags (`Article 7.5.5
/// (FIDE-7.5.5)`, once `FIDE-7.5.5`). Both are taken out again here, and
/// nothing else, so every value the first release gave must still read back
/// exactly.
fn as_first_release(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k != "article" && k != "timeControlPgn")
                .map(|(k, v)| (k, as_first_release(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(as_first_release).collect()),
        Value::String(text) => Value::String(without_articles(&text)),
        other => other,
    }
}

/// `v` with every PGN text (a string that starts with `[Event `) written on
/// one line: a comment that grew by its citations wraps its lines
/// elsewhere, and the line breaks of PGN export text carry no meaning.
/// Its `[%clk]` readings are in whole seconds, rounded down, as this build
/// writes them (releases before issue 19 wrote the milliseconds: rounded
/// down they must be this build's readings), and the last move's reading is
/// left out: those releases gave none to a move that ended the game without
/// a press (a mate, a dead position), which this build gives the clock as
/// the game ended.
fn pgn_unwrapped(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, pgn_unwrapped(v))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(pgn_unwrapped).collect()),
        Value::String(text) if text.starts_with("[Event ") => Value::String(without_last_clock(
            &whole_second_clocks(&text.split_whitespace().collect::<Vec<_>>().join(" ")),
        )),
        other => other,
    }
}

/// `text` with every `[%clk 1:30:59.997]` written `[%clk 1:30:59]`.
fn whole_second_clocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[%clk ") {
        let end = at + rest[at..].find(']').unwrap();
        let reading = &rest[at..end];
        out.push_str(&rest[..at]);
        out.push_str(reading.split('.').next().unwrap());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// One-line PGN `text` without the `[%clk]` of its last move: the comment
/// just before the result, when it starts with one.
fn without_last_clock(text: &str) -> String {
    let Some(open) = text.rfind('{') else { return text.to_owned() };
    let Some(close) = text[open..].find('}').map(|c| open + c) else { return text.to_owned() };
    let after = text[close + 1..].trim();
    let is_result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&after);
    let Some(clock) = text[open + 1..close].strip_prefix("[%clk ") else { return text.to_owned() };
    if !is_result {
        return text.to_owned();
    }
    let remark = clock[clock.find(']').unwrap() + 1..].trim();
    if remark.is_empty() {
        format!("{} {after}", text[..open].trim_end())
    } else {
        format!("{}{{{remark}}} {after}", &text[..open])
    }
}

/// `text` with every `Article 7.5.5 (FIDE-7.5.5)`, `Guidelines III.4
/// (FIDE-III.4)`, `OCR 5.3 (OCR-5.3)` or `Chinese rules, ... (CN-7)` cut
/// back to the rule id alone.
fn without_articles(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for prefix in ["Article ", "Guidelines ", "OCR ", "Chinese rules, "] {
            if let Some(after) = rest.strip_prefix(prefix)
                && let Some(open) = after.find(" (")
                && !after[..open].contains(' ')
                && let Some(close) = after[open + 2..].find(')')
            {
                let id = &after[open + 2..open + 2 + close];
                if ["FIDE-", "OCR-", "CN-", "DEC-"].iter().any(|p| id.starts_with(p)) && !id.contains(' ') {
                    out.push_str(id);
                    rest = &after[open + 2 + close + 1..];
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[test]
fn citations_are_cut_back_to_the_rule_id() {
    assert_eq!(without_articles("x {Article 7.5.5 (FIDE-7.5.5): y}"), "x {FIDE-7.5.5: y}");
    assert_eq!(without_articles("resignation (Article 5.1.2 (FIDE-5.1.2))"), "resignation (FIDE-5.1.2)");
    assert_eq!(without_articles("Guidelines III.4 (FIDE-III.4); OCR 5.3 (OCR-5.3)"), "FIDE-III.4; OCR-5.3");
    assert_eq!(without_articles("Article 9 (of the rules)"), "Article 9 (of the rules)");
}

#[test]
fn pgn_of_this_build_is_put_back_as_earlier_releases_wrote_it() {
    let tags = "[Event \"x\"] [Result \"1-0\"] [Termination \"normal\"] [ArbiterTermination \"resignation\"]";
    let now = format!(
        "{tags} {{Article 6.7.1 (FIDE-6.7a): Black is at the board}} 1. e4 {{[%clk 1:30:59] Article 4.3.1 \
         (FIDE-4.3a): Touch-move binds White: the knight on g1 was touched; White attempted d4: refused; \
         Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the knight on g1 was touched}} 1... e5 {{[%clk \
         1:30:59] Article 7.5.1 (FIDE-7.5.1): the position after 1. e4 is reinstated; taken back: 1... d5 2. \
         Nf3; Article 6.10 (FIDE-6.10): Black's clock set to 1:00}} 2. d4 {{[%clk 1:31:29] Article 7.5.1 \
         (FIDE-7.5.1): the starting position is reinstated}} 1-0"
    );
    let then = format!(
        "{tags} [Annotator \"Arbiter; before the first move: Article 6.7.1 (FIDE-6.7a): Black is at the \
         board\"] 1. e4 {{[%clk 1:30:59] Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the knight on g1 \
         was touched; Article 4.3.1 (FIDE-4.3a): Touch-move binds White: the knight on g1 was touched}} 1... \
         e5 {{[%clk 1:30:59] Article 7.5.1 (FIDE-7.5.1): position before ply 1 reinstated; Article 6.10 \
         (FIDE-6.10): Black's clock set to 1:00}} 2. d4 {{[%clk 1:31:29] Article 7.5.1 (FIDE-7.5.1): position \
         before ply 0 reinstated}} 1-0"
    );
    assert_eq!(old_pgn_comments(&now), then);
    // Without a comment before the first move, no Annotator.
    let plain = "[Event \"x\"] [Result \"*\"] 1. e4 {[%clk 0:04:59]} *";
    assert_eq!(old_pgn_comments(plain), plain);

    // Clocks: whole seconds on both sides, the last move's left out.
    let old =
        "[Event \"x\"] 1. e4 {[%clk 1:30:59.997]} 1... e5 {[%clk 0:03:03.85] a} 2. Qh5 {[%clk 0:00:09]} 1-0";
    let pgn = |text: &str| pgn_unwrapped(Value::String(text.to_owned())).as_str().unwrap().to_owned();
    assert_eq!(pgn(old), "[Event \"x\"] 1. e4 {[%clk 1:30:59]} 1... e5 {[%clk 0:03:03] a} 2. Qh5 1-0");
    let mate = "[Event \"x\"] 1. f3 {[%clk 0:03:03.9]} 1... e5 2. g4 {[%clk 0:03:05]} 2... Qh4# {[%clk 0:03:03] m} 0-1";
    assert_eq!(
        pgn(mate),
        "[Event \"x\"] 1. f3 {[%clk 0:03:03]} 1... e5 2. g4 {[%clk 0:03:05]} 2... Qh4# {m} 0-1"
    );
    // A last move without a clock keeps the one before it.
    let unclocked = "[Event \"x\"] 1. f3 {[%clk 0:03:03]} 1... e5 0-1";
    assert_eq!(pgn(unclocked), unclocked);
}

/// Waits until every game of the database at `url` has a read model.
async fn wait_for_read_models(url: &str) {
    let pool = sqlx::SqlitePool::connect(url).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let missing: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE view_json IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
        if missing == 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{missing} games still have no read model");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    pool.close().await;
}

/// A row written by a newer release (a format this build does not know) is
/// refused with a clear error, the rest of the database is served, and the
/// row is left exactly as it was: nothing is misread, nothing overwritten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_of_a_newer_format_are_refused_and_left_alone() {
    use arbiter_e2e::{expect_reason, v1 as pb};
    use sqlx::Row;
    use tonic::Code;

    let (dir, url) = first_format_database();
    // A first start migrates the database (the format columns appear).
    let server = TestServer::start_with(Some(dir), url.clone(), keep_pending_games).await;
    let (dir, url) = server.stop().await;
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query("UPDATE game_events SET format = 99 WHERE game_id = 'otb-claims' AND seq = 5")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE games SET spec_format = 42 WHERE id = 'paused'").execute(&pool).await.unwrap();
    // A newer release writes the game's read model in its format too.
    sqlx::query("UPDATE games SET view_format = 99 WHERE id = 'otb-claims'").execute(&pool).await.unwrap();
    let before = stored_rows(&pool, "otb-claims").await;
    pool.close().await;

    let server = TestServer::start_with(dir, url.clone(), keep_pending_games).await;
    let mut arbiter = server.arbiter().await;
    let name = |id: &str| format!("games/{id}");
    for id in ["otb-claims", "paused"] {
        let s = expect_reason(
            arbiter.get_game(pb::GetGameRequest { name: name(id) }).await,
            Code::FailedPrecondition,
            "STORED_FORMAT_NEWER",
        );
        assert!(s.message().contains("newer than this build reads"), "{s:?}");
        assert!(s.message().contains(&format!("games/{id}")), "{s:?}");
    }
    let s = expect_reason(
        arbiter
            .list_game_events(pb::ListGameEventsRequest { parent: name("otb-claims"), ..Default::default() })
            .await,
        Code::FailedPrecondition,
        "STORED_FORMAT_NEWER",
    );
    assert!(s.message().contains("format 99"), "{s:?}");
    // An act on the game is refused too: nothing is judged on a misread log.
    expect_reason(
        arbiter.resume_clocks(pb::ResumeClocksRequest { name: name("paused"), ..Default::default() }).await,
        Code::FailedPrecondition,
        "STORED_FORMAT_NEWER",
    );
    // Every other game still reads.
    let g = arbiter.get_game(pb::GetGameRequest { name: name("otb-touch-move") }).await.unwrap().into_inner();
    assert_eq!(g.game.unwrap().status, pb::GameStatus::Finished as i32);
    let (_dir, url) = server.stop().await;

    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let after = stored_rows(&pool, "otb-claims").await;
    assert_eq!(before, after, "the rows of the newer format were changed");
    let spec_format: i64 = sqlx::query("SELECT spec_format FROM games WHERE id = 'paused'")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(spec_format, 42);
}

/// The format and payloads of every stored event of a game, in order.
async fn stored_rows(pool: &sqlx::SqlitePool, game: &str) -> Vec<(i64, String, String)> {
    use sqlx::Row;
    sqlx::query("SELECT format, event_json, rulings_json FROM game_events WHERE game_id = ?1 ORDER BY seq")
        .bind(game)
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}
