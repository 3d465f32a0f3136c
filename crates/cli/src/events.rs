//! The commands on events and rounds: `event create|show|list|standings|trf|
//! adjust` and `round create|start|show|pgn`.
//!
//! With `-o json|yaml` these print the API's messages in the canonical
//! proto3 JSON mapping (the one grpcurl prints), so one jq filter serves
//! both ([`output`]).

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;
use arbiter_client::{exit, pb};
use arbiter_tournament::trf;

use crate::args::{
    AdjustArgs, BroadcastArgs, EditionArg, EventCommand, EventCreateArgs, GlobalArgs, PairingFormatArg,
    RoundCommand, RoundCreateArgs, RoundWatchArgs,
};
use crate::output;
use crate::render;
use crate::session::out;

/// An `event` command.
///
/// # Errors
/// The call's, an unreadable file, or a failed write.
pub async fn event(global: &GlobalArgs, command: EventCommand) -> anyhow::Result<u8> {
    let client = global.client().await?;
    match command {
        EventCommand::Create(a) => create(global, &a).await,
        EventCommand::Show(a) => {
            let event = client.get_event(&a.event).await?;
            if global.structured() {
                output::print(global, &event)?;
            } else {
                out(&event_text(&event))?;
            }
            Ok(exit::OK)
        }
        EventCommand::List => {
            let events = client.call(pb::ListEventsRequest::default()).await?;
            if global.structured() {
                output::print(global, &events)?;
            } else {
                let mut text = String::new();
                for e in &events.events {
                    text.push_str(&format!(
                        "{:<28} {:<32} {:>4} players  {} rounds\n",
                        e.name,
                        e.title,
                        e.participants.len(),
                        e.rounds
                    ));
                }
                out(&text)?;
            }
            Ok(exit::OK)
        }
        EventCommand::Standings(a) => {
            let standings = client.get_standings(&a.event, a.round).await?;
            if global.structured() {
                output::print(global, &standings)?;
            } else {
                out(&standings_text(&standings))?;
            }
            Ok(exit::OK)
        }
        EventCommand::Trf(a) => {
            let text = client.export_trf(&a.event, a.round).await?;
            if global.structured() {
                output::print(global, &pb::ExportTrfResponse { trf: text })?;
            } else {
                out(&text)?;
            }
            Ok(exit::OK)
        }
        EventCommand::Adjust(a) => adjust(global, &a).await,
        EventCommand::Broadcast(a) => broadcast(global, &a).await,
    }
}

async fn broadcast(global: &GlobalArgs, a: &BroadcastArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let broadcast = match a.delay {
        Some(delay_seconds) if !a.off => Some(pb::Broadcast {
            delay_seconds,
            push_url: a.push_url.clone().unwrap_or_default(),
            push_token: push_token(a.push_token_file.as_deref())?,
            public_view: a.public,
        }),
        _ => None,
    };
    let request = pb::SetBroadcastRequest {
        event: arbiter_client::parse::event_name(&a.event),
        broadcast,
        request_id: String::new(),
    };
    let event = global.prepare(client.call(request)).await?;
    if global.structured() {
        output::print(global, &event)?;
    } else {
        out(&broadcast_text(&event))?;
    }
    Ok(exit::OK)
}

async fn adjust(global: &GlobalArgs, a: &AdjustArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let request = pb::AdjustPointsRequest {
        event: arbiter_client::parse::event_name(&a.event),
        adjustment: Some(pb::PointAdjustment {
            participant: a.player,
            round: a.round,
            halves: a.points,
            reason: a.reason.clone(),
        }),
        request_id: String::new(),
    };
    let event = global.prepare(client.call(request)).await?;
    if global.structured() {
        output::print(global, &event)?;
    } else {
        out(&format!("{}: {} adjustments\n", event.name, event.adjustments.len()))?;
    }
    Ok(exit::OK)
}

/// The event's broadcast in one line.
fn broadcast_text(e: &pb::Event) -> String {
    let Some(b) = &e.broadcast else { return format!("{}: no broadcast\n", e.name) };
    let mut line = format!("broadcast:   {}s delay", b.delay_seconds);
    if !b.push_url.is_empty() {
        line.push_str(&format!(", pushed to {}", b.push_url));
    }
    line.push_str(if b.public_view {
        ", spectators' page public (/#/watch/...)"
    } else {
        ", spectators need a token"
    });
    line.push('\n');
    line
}

/// The push token in `path`, if one is given (empty: none, or the one the
/// event has).
fn push_token(path: Option<&Path>) -> anyhow::Result<String> {
    Ok(match path {
        Some(path) => read_text(path)?.trim().to_owned(),
        None => String::new(),
    })
}

/// Reads a file, or standard input for `-`.
fn read_text(path: &Path) -> anyhow::Result<String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The participants of a TRF file (its `001` records) or of CSV lines
/// `start number,name,rating,FIDE id,federation,title,sex,birth,K,grade points`.
fn participants(text: &str) -> anyhow::Result<Vec<pb::Participant>> {
    if text.lines().any(|l| l.starts_with("001 ")) || text.contains("\r001 ") {
        let file = trf::read(text).context("the players file is not a valid TRF file")?;
        return Ok(file
            .crosstable
            .participants()
            .iter()
            .map(|p| pb::Participant {
                start_number: i32::from(p.number.get()),
                name: p.name.clone(),
                fide_id: p.fide_id.map(|id| id.to_string()).unwrap_or_default(),
                rating: p.rating.map_or(0, |r| i32::from(r.get())),
                federation: p.federation.clone().unwrap_or_default(),
                title: p.title.clone().unwrap_or_default(),
                sex: match p.sex {
                    Some(arbiter_tournament::Sex::Male) => "m".into(),
                    Some(arbiter_tournament::Sex::Female) => "w".into(),
                    None => String::new(),
                },
                birth: p.birth.map(|b| b.year().to_string()).unwrap_or_default(),
                ..pb::Participant::default()
            })
            .collect());
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if i == 0 && line.starts_with(|c: char| c.is_alphabetic()) {
            continue; // a header
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let cell = |k: usize| cells.get(k).copied().unwrap_or("");
        let number = |k: usize, what: &str| -> anyhow::Result<i32> {
            let c = cell(k);
            if c.is_empty() {
                return Ok(0);
            }
            c.parse().with_context(|| format!("line {}: {what} {c:?} is not a number", i + 1))
        };
        let start_number = number(0, "the start number")?;
        if start_number == 0 || cell(1).is_empty() {
            anyhow::bail!("line {}: give at least `start number,name`", i + 1);
        }
        out.push(pb::Participant {
            start_number,
            name: cell(1).to_owned(),
            rating: number(2, "the rating")?,
            fide_id: cell(3).to_owned(),
            federation: cell(4).to_owned(),
            title: cell(5).to_owned(),
            sex: cell(6).to_owned(),
            birth: cell(7).to_owned(),
            k_factor: number(8, "K")?,
            grade_points: cell(9).to_owned(),
        });
    }
    Ok(out)
}

async fn create(global: &GlobalArgs, a: &EventCreateArgs) -> anyhow::Result<u8> {
    let participants = match &a.players {
        Some(path) => participants(&read_text(path)?)?,
        None => Vec::new(),
    };
    let event = pb::Event {
        title: a.title.clone(),
        regulations: Some(a.regulations.to_proto()),
        scoring: a.scoring,
        tie_breaks: a.tie_breaks.clone().unwrap_or_default(),
        tie_break_edition: match a.edition {
            None => pb::TieBreakEdition::Unspecified,
            Some(EditionArg::August2024) => pb::TieBreakEdition::August2024,
            Some(EditionArg::March2026) => pb::TieBreakEdition::March2026,
        } as i32,
        grade_points: a.grade_points,
        participants,
        planned_rounds: a.rounds,
        city: a.city.clone(),
        federation: a.federation.clone(),
        start_date: a.start_date.clone(),
        end_date: a.end_date.clone(),
        chief_arbiter: a.chief_arbiter.clone(),
        unrated_rating: a.unrated_rating,
        round_robin: a.round_robin,
        forfeits_in_direct_encounter: a.forfeits_in_direct_encounter,
        broadcast: match a.broadcast_delay {
            Some(delay_seconds) => Some(pb::Broadcast {
                delay_seconds,
                push_url: a.push_url.clone().unwrap_or_default(),
                push_token: push_token(a.push_token_file.as_deref())?,
                public_view: a.public_view,
            }),
            None => None,
        },
        ..pb::Event::default()
    };
    let request = pb::CreateEventRequest {
        event_id: a.id.clone().unwrap_or_default(),
        event: Some(event),
        request_id: String::new(),
    };
    let client = global.client().await?;
    let event = global.prepare(client.create_event(request)).await?;
    if global.structured() {
        output::print(global, &event)?;
    } else {
        out(&event_text(&event))?;
    }
    Ok(exit::OK)
}

/// An event for people: its settings, then one line per participant.
fn event_text(e: &pb::Event) -> String {
    let tie_breaks: Vec<String> = e.tie_breaks.iter().map(tie_break_code).collect();
    let edition = render::enum_name(
        pb::TieBreakEdition::try_from(e.tie_break_edition).map_or("", |v| v.as_str_name()),
        "TIE_BREAK_EDITION_",
    )
    .unwrap_or_default();
    let mut text = format!(
        "event:       {}\ntitle:       {}\nrounds:      {} created{}\ntie-breaks:  {} ({})\n",
        e.name,
        e.title,
        e.rounds,
        if e.planned_rounds > 0 { format!(" of {}", e.planned_rounds) } else { String::new() },
        if tie_breaks.is_empty() { "none".to_owned() } else { tie_breaks.join(", ") },
        edition,
    );
    if let Some(r) = &e.regulations {
        text.push_str(&format!("time:        {}\n", r.time_control));
    }
    if e.broadcast.is_some() {
        text.push_str(&broadcast_text(e));
    }
    text.push_str(&format!("players:     {}\n", e.participants.len()));
    for p in &e.participants {
        let rating = if p.rating > 0 { p.rating.to_string() } else { "-".to_owned() };
        text.push_str(&format!(
            "  {:>4}  {:<3} {:<32} {:>4}  {}\n",
            p.start_number, p.title, p.name, rating, p.federation
        ));
    }
    for a in &e.adjustments {
        text.push_str(&format!(
            "adjustment:  player {} {:+}½-points{}: {}\n",
            a.participant,
            a.halves,
            if a.round > 0 { format!(" (round {})", a.round) } else { String::new() },
            a.reason
        ));
    }
    text
}

/// `BH/C1` for a tie-break of the wire.
fn tie_break_code(t: &pb::TieBreak) -> String {
    let name = pb::TieBreakKind::try_from(t.kind).map_or("?", |k| k.as_str_name());
    let mut code = render::enum_name(name, "TIE_BREAK_KIND_").unwrap_or_default();
    if t.cut > 0 {
        code.push_str(&format!("/C{}", t.cut));
    }
    if t.median > 0 {
        code.push_str(&format!("/M{}", t.median));
    }
    if t.koya_limit_halves != 0 {
        code.push_str(&format!("/L{:+}", t.koya_limit_halves));
    }
    code
}

/// The standings as a table.
fn standings_text(s: &pb::GetStandingsResponse) -> String {
    let mut text = format!("after round {}\n", s.round);
    let mut head = format!("{:>4}  {:>4}  {:<28} {:>5}", "rank", "no", "name", "pts");
    for tb in &s.tie_breaks {
        head.push_str(&format!(" {tb:>8}"));
    }
    let grades = s.standings.iter().any(|r| !r.grade_points.is_empty());
    if grades {
        head.push_str(&format!(" {:>10}", "grade"));
    }
    head.push_str(&format!(" {:>8}", "rating"));
    text.push_str(&head);
    text.push('\n');
    for r in &s.standings {
        let mut line = format!("{:>4}  {:>4}  {:<28} {:>5}", r.rank, r.participant, r.name, r.points);
        for v in &r.tie_breaks {
            line.push_str(&format!(" {v:>8}"));
        }
        if grades {
            line.push_str(&format!(" {:>10}", r.grade_points));
        }
        line.push_str(&format!(" {:>8}", r.rating_change));
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// A `round` command.
///
/// # Errors
/// The call's, an unreadable file, or a failed write.
pub async fn round(global: &GlobalArgs, command: RoundCommand) -> anyhow::Result<u8> {
    let client = global.client().await?;
    match command {
        RoundCommand::Create(a) => create_round(global, &a).await,
        RoundCommand::Start(a) => {
            let round = global.prepare(client.start_round(&a.event, a.round)).await?;
            print_round(global, &round)
        }
        RoundCommand::Show(a) => {
            let round = client.get_round(&a.event, a.round).await?;
            print_round(global, &round)
        }
        RoundCommand::Watch(a) => watch(global, &a).await,
        RoundCommand::Ack(a) => {
            let acked = client.call(pb::AcknowledgeAlertRequest { name: a.alert.clone() }).await?;
            if global.structured() {
                output::print(global, &acked)?;
            } else {
                out(&format!("{}  acknowledged by {}\n", acked.name, acked.acknowledged_by))?;
            }
            Ok(exit::OK)
        }
        RoundCommand::Pgn(a) => {
            let pgn = client.export_round_pgn(&a.event, a.round).await?;
            if global.structured() {
                output::print(global, &pb::ExportRoundPgnResponse { pgn })?;
            } else {
                out(&pgn)?;
            }
            Ok(exit::OK)
        }
    }
}

async fn create_round(global: &GlobalArgs, a: &RoundCreateArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let text = read_text(&a.pairings)?;
    let call = client.create_round(&a.event, a.round, text, a.start).with(|r| {
        r.format = match a.format {
            None => pb::PairingFormat::Unspecified,
            Some(PairingFormatArg::Trf) => pb::PairingFormat::Trf,
            Some(PairingFormatArg::List) => pb::PairingFormat::List,
        } as i32;
        r.broadcast_push_url = a.push_url.clone().unwrap_or_default();
    });
    let created = global.prepare(call).await?;
    if global.structured() {
        output::print(global, &created)?;
        return Ok(exit::OK);
    }
    let round = created.round.unwrap_or_default();
    let mut text = round_text(&round);
    text.push_str("player tokens:\n");
    for t in &created.tokens {
        text.push_str(&format!(
            "  board {:>3}  white {}\n             black {}\n",
            t.board, t.white_token, t.black_token
        ));
    }
    out(&text)?;
    Ok(exit::OK)
}

fn print_round(global: &GlobalArgs, round: &pb::Round) -> anyhow::Result<u8> {
    if global.structured() {
        output::print(global, round)?;
    } else {
        out(&round_text(round))?;
    }
    Ok(exit::OK)
}

/// A round as the arbiter's hall view: one line per board.
pub fn round_text(r: &pb::Round) -> String {
    let state =
        render::enum_name(pb::RoundState::try_from(r.state).map_or("", |s| s.as_str_name()), "ROUND_STATE_")
            .unwrap_or_default();
    let mut text = format!("{}  {}\n", r.name, state);
    for b in &r.boards {
        let clocks = match &b.clocks {
            Some(c) if b.status == pb::GameStatus::InProgress as i32 => {
                format!("{} {}", render::clock(c.white_remaining_ms), render::clock(c.black_remaining_ms))
            }
            _ => "–.–".to_owned(),
        };
        let result = b.result.as_ref().map_or(String::new(), |res| {
            let kind = render::enum_name(
                pb::ResultKind::try_from(res.kind).map_or("", |k| k.as_str_name()),
                "RESULT_KIND_",
            )
            .unwrap_or_default();
            format!("{} {}", res.score, kind.to_lowercase().replace('_', " "))
        });
        let board = if b.game.is_empty() {
            "no game".to_owned()
        } else if b.board_connected {
            "e-board".to_owned()
        } else {
            String::new()
        };
        text.push_str(&format!(
            "{:>3}  {:>4} {:<22} - {:>4} {:<22} {:>17} {:>4}  {:<18} {:<8} {}\n",
            b.number,
            b.white,
            b.white_name,
            b.black,
            b.black_name,
            clocks,
            b.plies,
            result,
            board,
            b.last_ruling
        ));
    }
    for bye in &r.byes {
        let kind =
            render::enum_name(pb::ByeKind::try_from(bye.kind).map_or("", |k| k.as_str_name()), "BYE_KIND_")
                .unwrap_or_default();
        text.push_str(&format!("bye  {:>4} {}\n", bye.participant, kind.to_lowercase().replace('_', " ")));
    }
    text
}

/// One alert on one line: priority, board, kind, text, rule, name.
fn alert_line(a: &pb::Alert) -> String {
    let priority = render::enum_name(
        pb::AlertPriority::try_from(a.priority).map_or("", |p| p.as_str_name()),
        "ALERT_PRIORITY_",
    )
    .unwrap_or_default();
    let kind =
        render::enum_name(pb::AlertKind::try_from(a.kind).map_or("", |k| k.as_str_name()), "ALERT_KIND_")
            .unwrap_or_default();
    let ack =
        if a.acknowledged { format!("  (acknowledged by {})", a.acknowledged_by) } else { String::new() };
    format!(
        "{:<8} board {:>3}  {:<20} {} [{}]  {}{ack}\n",
        priority.to_lowercase(),
        a.board,
        kind.to_lowercase().replace('_', " "),
        a.text,
        a.rule_id,
        a.name
    )
}

/// `round watch`: the hall, redrawn on a terminal (the queue on top); one
/// line per alert and per round otherwise. A broken stream is reopened
/// after the last message received.
async fn watch(global: &GlobalArgs, a: &RoundWatchArgs) -> anyhow::Result<u8> {
    use std::io::IsTerminal as _;
    use tokio_stream::StreamExt as _;
    let client = global.client().await?;
    let event = arbiter_client::parse::event_name(&a.event);
    let name = match a.round {
        Some(r) => format!("{event}/rounds/{r}"),
        None => event,
    };
    let tty = std::io::stdout().is_terminal() && !global.structured();
    let mut resume_token = String::new();
    let mut failures = 0u32;
    loop {
        let opened = client
            .raw()
            .watch_round(pb::WatchRoundRequest { name: name.clone(), resume_token: resume_token.clone() })
            .await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            Err(status) if arbiter_client::is_transient_status(&status) && failures < 10 => {
                failures += 1;
                tokio::time::sleep(std::time::Duration::from_millis(250 * u64::from(failures))).await;
                continue;
            }
            Err(status) => return Err(arbiter_client::Error::from(status).into()),
        };
        failures = 0;
        let mut rounds: Vec<pb::Round> = Vec::new();
        while let Some(message) = stream.next().await {
            let message = match message {
                Ok(m) => m,
                Err(status) if arbiter_client::is_transient_status(&status) => break,
                Err(status) => return Err(arbiter_client::Error::from(status).into()),
            };
            resume_token.clone_from(&message.resume_token);
            if global.structured() {
                output::print_item(global.format(), &message)?;
                continue;
            }
            match &message.item {
                Some(pb::watch_round_response::Item::Round(r)) => {
                    rounds.retain(|x| x.name != r.name);
                    rounds.push(r.clone());
                    rounds.sort_by_key(|x| x.number);
                    if tty {
                        let mut screen = Vec::new();
                        crossterm::queue!(
                            screen,
                            crossterm::cursor::MoveTo(0, 0),
                            crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
                        )?;
                        let mut text = String::from_utf8_lossy(&screen).into_owned();
                        text.push_str(&format!("calls: {}\n", message.queue.len()));
                        for alert in &message.queue {
                            text.push_str(&alert_line(alert));
                        }
                        text.push('\n');
                        for r in &rounds {
                            text.push_str(&round_text(r));
                        }
                        out(&text)?;
                    } else {
                        out(&round_text(r))?;
                    }
                }
                Some(pb::watch_round_response::Item::Alert(alert)) => out(&alert_line(alert))?,
                Some(pb::watch_round_response::Item::Heartbeat(_)) | None => {}
            }
        }
        // The stream ended: the service stops, or the connection broke.
        failures += 1;
        if failures > 10 {
            return Ok(exit::UNAVAILABLE);
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}
