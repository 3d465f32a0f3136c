//! Time controls that cannot be misread, through gRPC: every form of
//! `CreateGame` (the text of `time_control`, `time_control_human`,
//! `time_control_pgn`, `time_control_periods`) with the clocks it gives, the
//! forms that are refused with the accepted forms, and the PGN tag of every
//! export (DEC-26).

use arbiter_e2e::{Client, TestServer, clocks, expect_bad_field, new_game, regulations, v1 as pb};

use pb::regulations::TimeControlForm as Form;
use tonic_types::StatusExt;

const S: i64 = 1_000;
const M: i64 = 60_000;

/// Creates a game (not started) and reads it back.
async fn create(a: &mut Client, regs: pb::Regulations) -> pb::Game {
    let created = a.create_game(new_game(regs, false)).await.expect("CreateGame").into_inner();
    let name = created.game.expect("game").name;
    a.get_game(pb::GetGameRequest { name }).await.expect("GetGame").into_inner().game.expect("game")
}

fn text(tc: &str) -> pb::Regulations {
    regulations(tc, pb::Mode::OverTheBoard)
}

fn form(form: Form) -> pb::Regulations {
    pb::Regulations { time_control_form: Some(form), ..text("") }
}

fn period(moves: u32, base_ms: i64) -> pb::TimeControlPeriod {
    pb::TimeControlPeriod { moves, base_ms, ..Default::default() }
}

/// The value of a PGN tag.
fn tag(pgn: &str, name: &str) -> Option<String> {
    let start = format!("[{name} \"");
    pgn.lines().find_map(|l| l.strip_prefix(&start)?.strip_suffix("\"]").map(str::to_owned))
}

/// The `TimeControl` tag grammar of the PGN standard (9.6.1): `?`, `-`, or
/// `:`-separated descriptors `*s`, `m/s`, `s`, `s+i` (and `m/s+i`), whole
/// numbers only.
fn is_standard_pgn_tag(tag: &str) -> bool {
    let int = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let descriptor = |d: &str| {
        if let Some(r) = d.strip_prefix('*') {
            return int(r);
        }
        let rest = match d.split_once('/') {
            Some((moves, rest)) if int(moves) => rest,
            Some(_) => return false,
            None => d,
        };
        match rest.split_once('+') {
            Some((base, inc)) => int(base) && int(inc),
            None => int(rest),
        }
    };
    tag == "?" || tag == "-" || tag.split(':').all(descriptor)
}

/// A request, the PGN form the game shows, White's and Black's clocks, the
/// exported `TimeControl` tag and its `ArbiterTimeControl` tag.
type Case = (pb::Regulations, &'static str, i64, i64, &'static str, Option<&'static str>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_form_creates_the_clocks_it_says_and_exports_standard_pgn() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let classical = pb::TimeControl {
        periods: vec![
            pb::TimeControlPeriod { increment_ms: 30 * S, ..period(40, 90 * M) },
            pb::TimeControlPeriod { increment_ms: 30 * S, ..period(0, 30 * M) },
        ],
        black_periods: vec![],
    };
    let bronstein = pb::TimeControl {
        periods: vec![pb::TimeControlPeriod {
            delay_ms: 2 * S,
            delay_kind: pb::DelayKind::Bronstein as i32,
            ..period(0, 5 * M)
        }],
        black_periods: vec![],
    };
    let armageddon = {
        let late =
            |base| pb::TimeControlPeriod { increment_ms: 2 * S, bonus_from_move: 61, ..period(0, base) };
        pb::TimeControl { periods: vec![late(5 * M)], black_periods: vec![late(4 * M)] }
    };
    // (request, the PGN form the game shows, White's and Black's clocks,
    // the exported TimeControl tag, its ArbiterTimeControl tag)
    let cases: Vec<Case> = vec![
        (text("5+3"), "300+3", 5 * M, 5 * M, "300+3", None),
        // `5|3` is 5+3 for both players (it was White 5', Black 3').
        (text("5|3"), "300+3", 5 * M, 5 * M, "300+3", None),
        // No unit guessed from the size of a number.
        (text("120+0"), "7200+0", 120 * M, 120 * M, "7200+0", None),
        (text("180+2"), "10800+2", 180 * M, 180 * M, "10800+2", None),
        // `1+0` is exported as `60+0`, not `1m+0s`.
        (text("1+0"), "60+0", M, M, "60+0", None),
        (text("90s+0"), "90+0", 90 * S, 90 * S, "90+0", None),
        (text("1h30+30s"), "5400+30", 90 * M, 90 * M, "5400+30", None),
        (text("40/90+30, 30+30"), "40/5400+30:1800+30", 90 * M, 90 * M, "40/5400+30:1800+30", None),
        (text("pgn:180+2"), "180+2", 3 * M, 3 * M, "180+2", None),
        (text("pgn:40/5400+30:1800+30"), "40/5400+30:1800+30", 90 * M, 90 * M, "40/5400+30:1800+30", None),
        (form(Form::TimeControlHuman("10|5".into())), "600+5", 10 * M, 10 * M, "600+5", None),
        (form(Form::TimeControlPgn("300+3".into())), "300+3", 5 * M, 5 * M, "300+3", None),
        (form(Form::TimeControlPgn("300d3".into())), "300d3", 5 * M, 5 * M, "300", Some("300d3")),
        (
            form(Form::TimeControlPeriods(classical)),
            "40/5400+30:1800+30",
            90 * M,
            90 * M,
            "40/5400+30:1800+30",
            None,
        ),
        (form(Form::TimeControlPeriods(bronstein)), "300b2", 5 * M, 5 * M, "300", Some("300b2")),
        (
            form(Form::TimeControlPeriods(armageddon)),
            "300+2@61|240+2@61",
            5 * M,
            4 * M,
            "?",
            Some("300+2@61|240+2@61"),
        ),
        (
            form(Form::TimeControlHuman("White 5+2@61; Black 4+2@61".into())),
            "300+2@61|240+2@61",
            5 * M,
            4 * M,
            "?",
            Some("300+2@61|240+2@61"),
        ),
        (text("90.5s+0.5"), "90.5+0.5", 90_500, 90_500, "90+0", Some("90.5+0.5")),
    ];
    for (regs, shown, white_ms, black_ms, pgn_tag, exact) in cases {
        let label = format!("{regs:?}");
        let game = create(&mut a, regs).await;
        let shown_regs = game.regulations.clone().unwrap();
        assert_eq!(shown_regs.time_control, shown, "{label}");
        // Responses say which form the text is in: the PGN form, in its own
        // field.
        assert_eq!(
            shown_regs.time_control_form,
            Some(pb::regulations::TimeControlForm::TimeControlPgn(shown_regs.time_control.clone())),
            "{label}"
        );
        let c = clocks(&game);
        assert_eq!((c.white_remaining_ms, c.black_remaining_ms), (white_ms, black_ms), "{label}");
        let pgn =
            a.export_pgn(pb::ExportPgnRequest { name: game.name.clone() }).await.unwrap().into_inner().pgn;
        let exported = tag(&pgn, "TimeControl").expect("a TimeControl tag");
        assert!(is_standard_pgn_tag(&exported), "{label}: {exported}");
        assert_eq!(exported, pgn_tag, "{label}");
        assert_eq!(tag(&pgn, "ArbiterTimeControl").as_deref(), exact, "{label}");
        // The shown text, sent back marked `pgn:`, is the same control.
        let again = create(&mut a, text(&format!("pgn:{shown}"))).await;
        assert_eq!(again.regulations.as_ref().unwrap().time_control, shown, "{label}");
        let c = clocks(&again);
        assert_eq!((c.white_remaining_ms, c.black_remaining_ms), (white_ms, black_ms), "{label}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_that_could_be_misread_are_refused_with_the_accepted_forms() {
    let server = TestServer::start().await;
    let mut a = server.arbiter().await;
    let accepted = "accepted forms: minutes+seconds `5+3` or `5|3`";
    for (tc, problem) in [
        ("40/5400+30:1800+30", "mark it as such: `pgn:40/5400+30:1800+30`"),
        ("300+2@61|240+2@61", "mark it as such"),
        ("5m | 4m", "counted in seconds"),
        ("1s30", "goes down from hours"),
        ("5; 4", "White 5m+2s@61; Black 4m+2s@61"),
        ("blitz", "expected a number"),
        ("pgn:90m+30s", "unexpected 'm'"),
        ("", "required"),
    ] {
        let s = expect_bad_field(a.create_game(new_game(text(tc), false)).await, "regulations.time_control");
        let v = s.get_details_bad_request().unwrap().field_violations;
        let d = &v.iter().find(|v| v.field == "regulations.time_control").unwrap().description;
        assert!(d.contains(problem), "{tc}: {d}");
        assert!(d.contains(accepted), "{tc}: {d}");
    }
    let inc_and_delay = pb::TimeControlPeriod {
        increment_ms: 2 * S,
        delay_ms: 2 * S,
        delay_kind: pb::DelayKind::Simple as i32,
        ..period(0, 5 * M)
    };
    let periods = |p: Vec<pb::TimeControlPeriod>| {
        Form::TimeControlPeriods(pb::TimeControl { periods: p, black_periods: vec![] })
    };
    for (f, field, problem) in [
        (Form::TimeControlHuman("pgn:300+3".into()), "regulations.time_control_human", "time_control_pgn"),
        (Form::TimeControlPgn("5m+3s".into()), "regulations.time_control_pgn", "not a PGN time control"),
        (periods(vec![inc_and_delay]), "regulations.time_control_periods.periods[0].delay_ms", "not both"),
        (
            periods(vec![period(0, 0)]),
            "regulations.time_control_periods.periods[0].base_ms",
            "zero base time",
        ),
        (periods(vec![period(1, M); 17]), "regulations.time_control_periods.periods", "at most 16"),
        (periods(vec![]), "regulations.time_control_periods.periods", "at least one period"),
        (
            periods(vec![period(0, 200 * 60 * M)]),
            "regulations.time_control_periods.periods[0].base_ms",
            "more than 100 hours",
        ),
        (
            periods(vec![pb::TimeControlPeriod { delay_ms: S, ..period(0, M) }]),
            "regulations.time_control_periods.periods[0].delay_kind",
            "delay kind",
        ),
    ] {
        let s = expect_bad_field(a.create_game(new_game(form(f), false)).await, field);
        let v = s.get_details_bad_request().unwrap().field_violations;
        let d = &v.iter().find(|v| v.field == field).unwrap().description;
        assert!(d.contains(problem), "{field}: {d}");
    }
    // Two different controls in one request.
    let both = pb::Regulations { time_control: "5+3".into(), ..form(Form::TimeControlPgn("5+3".into())) };
    let s = expect_bad_field(a.create_game(new_game(both, false)).await, "regulations.time_control");
    assert!(s.message().contains("different controls"), "{s:?}");
    server.stop().await;
}
