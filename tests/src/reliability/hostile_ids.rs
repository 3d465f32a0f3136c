//! Hostile clients, request ids: several callers reuse each other's request
//! ids at the same time (part of the `hostile` scenario).
//!
//! - **Creations.** Every service token sends `CreateGame` with the same
//!   request ids at once, each with a payload of its own (its own event
//!   label), one of them with `start`. Each must get a game of its own
//!   (never another caller's game or player tokens), a retry must get the
//!   same game and tokens, the same id with another payload must be refused
//!   (`ALREADY_EXISTS`, `REQUEST_ID_REUSED`), and a `start` in one caller's
//!   request must never start another caller's game.
//! - **Acts.** In each of several online games played at once, White and
//!   Black make their moves with the same request ids (`hot-0` for the first
//!   pair of moves, `hot-1` for the next...), and the arbiter adjusts a
//!   clock with the same ids at the same moment: the first adjustment with
//!   an id is recorded, its retry gets the same event, and another
//!   adjustment with the id is refused as a reuse. Every answered act must
//!   be its own caller's event (actor, request id, what it did), every one
//!   must be in the log at its sequence number, a retry of each must get it
//!   again, and the log must hold nothing else.

use std::fmt;
use std::time::Instant;

use tokio::task::JoinSet;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::v1 as pb;
use crate::v1::arbiter_service_client::ArbiterServiceClient;
use crate::{Bearer, Client};

/// The tokens of the callers: at least two service tokens, and an arbiter
/// token (which starts the games and makes its own colliding acts).
#[derive(Clone, Debug)]
pub struct Callers {
    pub services: Vec<String>,
    pub arbiter: String,
}

/// How much of it.
#[derive(Clone, Debug)]
pub struct Options {
    /// Request ids every service token creates a game with.
    pub shared_creation_ids: usize,
    /// Online games whose acts collide.
    pub games: usize,
}

impl Options {
    /// The CI form.
    pub fn short() -> Options {
        Options { shared_creation_ids: 4, games: 4 }
    }

    /// The long form.
    pub fn long() -> Options {
        Options { shared_creation_ids: 64, games: 32 }
    }
}

/// What the scenario saw.
#[derive(Debug, Default)]
pub struct Report {
    pub callers: usize,
    /// Games created (each by its own caller, several per shared id).
    pub games_created: usize,
    /// Creations and acts refused as a reused request id, as they must be.
    pub reuses_refused: usize,
    /// Acts recorded (moves and clock adjustments), all found in the logs.
    pub acts_recorded: usize,
    /// Retries answered with the original answer.
    pub retries_answered: usize,
    pub seconds: f64,
    pub failures: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "request-id reuse: {} callers in {:.1} s", self.callers, self.seconds)?;
        writeln!(
            f,
            "  {} games created on shared ids, {} acts recorded on colliding ids, {} reuses refused, \
             {} retries given their original answer",
            self.games_created, self.acts_recorded, self.reuses_refused, self.retries_answered
        )?;
        super::write_verdict(f, &self.failures)
    }
}

/// The moves each game plays (White first), in UCI.
const LINE: [&str; 8] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5"];

async fn client(url: &str, token: &str) -> Result<Client, String> {
    let channel = Channel::from_shared(url.to_owned())
        .map_err(|e| format!("bad url {url}: {e}"))?
        .connect()
        .await
        .map_err(|e| format!("cannot connect to {url}: {e}"))?;
    Ok(ArbiterServiceClient::with_interceptor(channel, Bearer::new(token)))
}

/// Whether `status` is the refusal of a reused request id.
fn is_reuse(status: &Status) -> bool {
    status.code() == Code::AlreadyExists
        && status.get_details_error_info().is_some_and(|info| info.reason == "REQUEST_ID_REUSED")
}

/// Runs the scenario against the service at `url`.
pub async fn request_id_reuse(url: &str, callers: &Callers, options: &Options) -> Report {
    let started = Instant::now();
    let mut report = Report { callers: callers.services.len() + 3, ..Report::default() };
    if callers.services.len() < 2 {
        report.failures.push("the scenario needs at least two service tokens".into());
        return report;
    }
    creations(url, callers, options, &mut report).await;
    acts(url, callers, options, &mut report).await;
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// One service token's creation on a shared id: its own label, so an
/// answer can be told apart from another caller's.
fn creation(caller: usize, id: &str, start: bool, time_control: &str) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        request_id: id.to_owned(),
        event: format!("caller {caller}"),
        round: id.to_owned(),
        white: Some(pb::Player {
            name: format!("White of {caller}"),
            fide_id: String::new(),
            ..Default::default()
        }),
        black: Some(pb::Player {
            name: format!("Black of {caller}"),
            fide_id: String::new(),
            ..Default::default()
        }),
        regulations: Some(pb::Regulations {
            time_control: time_control.to_owned(),
            mode: pb::Mode::Online as i32,
            ..Default::default()
        }),
        start,
        ..Default::default()
    }
}

/// What a caller was given for a shared id.
#[derive(Debug)]
struct Created {
    caller: usize,
    id: String,
    name: String,
    tokens: (String, String),
    started: bool,
}

async fn creations(url: &str, callers: &Callers, options: &Options, report: &mut Report) {
    let mut tasks = JoinSet::new();
    for (caller, token) in callers.services.iter().enumerate() {
        let (url, token) = (url.to_owned(), token.clone());
        let ids = options.shared_creation_ids;
        tasks.spawn(async move {
            let mut out = Vec::new();
            let mut failures = Vec::new();
            let mut reuses = 0;
            let mut retries = 0;
            let mut c = match client(&url, &token).await {
                Ok(c) => c,
                Err(e) => return (out, vec![e], 0, 0),
            };
            for n in 0..ids {
                let id = format!("shared-create-{n}");
                // The last caller asks for the start: it must start only
                // its own game.
                let start = caller == 0 && n % 2 == 0;
                let request = creation(caller, &id, start, "5+3");
                match c.create_game(request.clone()).await {
                    Ok(r) => {
                        let r = r.into_inner();
                        let game = r.game.unwrap_or_default();
                        if game.event != format!("caller {caller}") {
                            failures.push(format!(
                                "caller {caller}, id {id}: answered with another caller's game {} (event {:?})",
                                game.name, game.event
                            ));
                        }
                        let created = Created {
                            caller,
                            id: id.clone(),
                            name: game.name.clone(),
                            tokens: (r.white_token, r.black_token),
                            started: game.status != pb::GameStatus::Pending as i32,
                        };
                        // A retry: the same game and tokens.
                        match c.create_game(request).await {
                            Ok(again) => {
                                let again = again.into_inner();
                                let same = again.game.is_some_and(|g| g.name == created.name)
                                    && (again.white_token, again.black_token) == created.tokens;
                                if same {
                                    retries += 1;
                                } else {
                                    failures.push(format!("caller {caller}, id {id}: a retry got another game"));
                                }
                            }
                            Err(s) => failures.push(format!("caller {caller}, id {id}: a retry failed: {s:?}")),
                        }
                        out.push(created);
                    }
                    Err(s) => failures.push(format!("caller {caller}, id {id}: CreateGame failed: {s:?}")),
                }
                // The same id, another request: refused.
                match c.create_game(creation(caller, &id, false, "1+0")).await {
                    Err(s) if is_reuse(&s) => reuses += 1,
                    other => failures.push(format!(
                        "caller {caller}, id {id}: a different request with the id was not refused as a \
                         reuse: {other:?}"
                    )),
                }
            }
            (out, failures, reuses, retries)
        });
    }
    let mut created = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((out, failures, reuses, retries)) => {
                created.extend(out);
                report.failures.extend(failures);
                report.reuses_refused += reuses;
                report.retries_answered += retries;
            }
            Err(e) => report.failures.push(format!("a creation task failed: {e}")),
        }
    }
    report.games_created = created.len();
    // Per shared id: one game per caller, each with tokens of its own, and
    // only the games whose own request asked for it started.
    for n in 0..options.shared_creation_ids {
        let id = format!("shared-create-{n}");
        let of_id: Vec<&Created> = created.iter().filter(|c| c.id == id).collect();
        let mut names: Vec<&str> = of_id.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() != of_id.len() || of_id.len() != callers.services.len() {
            report.failures.push(format!(
                "id {id}: {} callers got {} distinct games (expected {} and {})",
                of_id.len(),
                names.len(),
                callers.services.len(),
                callers.services.len()
            ));
        }
        let mut tokens: Vec<&str> =
            of_id.iter().flat_map(|c| [c.tokens.0.as_str(), c.tokens.1.as_str()]).collect();
        tokens.sort_unstable();
        tokens.dedup();
        if tokens.len() != 2 * of_id.len() {
            report.failures.push(format!("id {id}: two callers were given the same player token"));
        }
        for c in &of_id {
            let asked = c.caller == 0 && n % 2 == 0;
            if c.started != asked {
                report.failures.push(format!(
                    "id {id}: caller {}'s game {} started: {} (its request asked: {asked})",
                    c.caller, c.name, c.started
                ));
            }
        }
    }
}

/// An act a caller was answered for.
#[derive(Debug, Clone)]
struct Answered {
    seq: i64,
    actor: &'static str,
    request_id: String,
    /// The UCI move, or the adjusted colour.
    what: String,
}

async fn acts(url: &str, callers: &Callers, options: &Options, report: &mut Report) {
    let mut tasks = JoinSet::new();
    for g in 0..options.games {
        let url = url.to_owned();
        let (service, arbiter) =
            (callers.services[g % callers.services.len()].clone(), callers.arbiter.clone());
        tasks.spawn(async move { play_colliding(&url, &service, &arbiter, g).await });
    }
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok((recorded, reuses, retries))) => {
                report.acts_recorded += recorded;
                report.reuses_refused += reuses;
                report.retries_answered += retries;
            }
            Ok(Err(failures)) => report.failures.extend(failures),
            Err(e) => report.failures.push(format!("a game task failed: {e}")),
        }
    }
}

fn adjust(name: &str, id: &str, color: pb::Color) -> pb::AdjustClockRequest {
    pb::AdjustClockRequest {
        name: name.to_owned(),
        request_id: id.to_owned(),
        color: color as i32,
        delta_ms: 1_000,
        ..Default::default()
    }
}

fn make_move(name: &str, id: &str, mv: &str) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest {
        name: name.to_owned(),
        request_id: id.to_owned(),
        r#move: mv.to_owned(),
        ..Default::default()
    }
}

/// Plays one game with colliding request ids; returns (acts recorded,
/// reuses refused, retries answered) or the failures.
async fn play_colliding(
    url: &str,
    service: &str,
    arbiter_token: &str,
    g: usize,
) -> Result<(usize, usize, usize), Vec<String>> {
    let mut failures = Vec::new();
    let mut service = client(url, service).await.map_err(|e| vec![e])?;
    let mut arbiter = client(url, arbiter_token).await.map_err(|e| vec![e])?;
    let created = service
        .create_game(pb::CreateGameRequest {
            request_id: format!("hot-game-{g}"),
            ..creation(g, "hot-game", false, "15+10")
        })
        .await
        .map_err(|s| vec![format!("game {g}: CreateGame failed: {s:?}")])?
        .into_inner();
    let name = created.game.map(|g| g.name).unwrap_or_default();
    arbiter
        .start_game(pb::StartGameRequest {
            name: name.clone(),
            request_id: "hot-0".into(),
            ..Default::default()
        })
        .await
        .map_err(|s| vec![format!("{name}: StartGame failed: {s:?}")])?;
    let mut white = client(url, &created.white_token).await.map_err(|e| vec![e])?;
    let mut black = client(url, &created.black_token).await.map_err(|e| vec![e])?;
    let mut answered: Vec<Answered> = Vec::new();
    let (mut reuses, mut retries) = (0, 0);

    for (ply, mv) in LINE.iter().enumerate() {
        // White and Black share the ids pair by pair; the arbiter uses the
        // same ids at the same moment.
        let id = format!("hot-{}", ply / 2);
        let actor = if ply % 2 == 0 { "white" } else { "black" };
        let player = if ply % 2 == 0 { &mut white } else { &mut black };
        let mut player_copy = player.clone();
        let mut arbiter_copy = arbiter.clone();
        let moved = player_copy.make_move(make_move(&name, &id, mv));
        let first_pair_ply = ply % 2 == 0;
        let ruled = async {
            // Its first adjustment with the id is new (White's clock); on
            // the second ply of the pair, the same request is a retry and
            // Black's clock with the id a reuse.
            let same = arbiter_copy.adjust_clock(adjust(&name, &id, pb::Color::White)).await;
            let other = if first_pair_ply {
                None
            } else {
                Some(arbiter_copy.adjust_clock(adjust(&name, &id, pb::Color::Black)).await)
            };
            (same, other)
        };
        let (moved, (same, other)) = tokio::join!(moved, ruled);
        match moved {
            Ok(r) => {
                let event = r.into_inner().event.unwrap_or_default();
                if event.actor != actor || event.request_id != id || uci_move(&event) != *mv {
                    failures.push(format!(
                        "{name}: {actor}'s {mv} ({id}) was answered with event {} by {} ({}, {:?})",
                        event.seq, event.actor, event.request_id, event.act
                    ));
                }
                answered.push(Answered {
                    seq: event.seq,
                    actor,
                    request_id: id.clone(),
                    what: (*mv).to_owned(),
                });
            }
            Err(s) => failures.push(format!("{name}: {actor}'s {mv} ({id}) failed: {s:?}")),
        }
        match same {
            Ok(r) => {
                let event = r.into_inner().event.unwrap_or_default();
                if event.actor != "arbiter" || event.request_id != id {
                    failures.push(format!(
                        "{name}: the arbiter's adjustment ({id}) was answered with event {} by {}",
                        event.seq, event.actor
                    ));
                }
                if first_pair_ply {
                    answered.push(Answered {
                        seq: event.seq,
                        actor: "arbiter",
                        request_id: id.clone(),
                        what: "white".into(),
                    });
                } else if answered
                    .iter()
                    .any(|a| a.actor == "arbiter" && a.request_id == id && a.seq == event.seq)
                {
                    retries += 1;
                } else {
                    failures
                        .push(format!("{name}: the arbiter's retry ({id}) got a new event {}", event.seq));
                }
            }
            Err(s) => failures.push(format!("{name}: the arbiter's adjustment ({id}) failed: {s:?}")),
        }
        match other {
            None => {}
            Some(Err(s)) if is_reuse(&s) => reuses += 1,
            Some(other) => failures.push(format!(
                "{name}: the arbiter's other adjustment with {id} was not refused as a reuse: {other:?}"
            )),
        }
    }

    // Every answered act again: the same event.
    for a in &answered {
        let again = match a.actor {
            "arbiter" => arbiter
                .adjust_clock(adjust(&name, &a.request_id, pb::Color::White))
                .await
                .map(|r| r.into_inner().event),
            "white" => {
                white.make_move(make_move(&name, &a.request_id, &a.what)).await.map(|r| r.into_inner().event)
            }
            _ => {
                black.make_move(make_move(&name, &a.request_id, &a.what)).await.map(|r| r.into_inner().event)
            }
        };
        match again {
            Ok(Some(event)) if event.seq == a.seq && event.actor == a.actor => retries += 1,
            other => failures.push(format!("{name}: the retry of {a:?} got {other:?}")),
        }
    }

    // The log: the start, then exactly the answered acts.
    let mut log = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = arbiter
            .list_game_events(pb::ListGameEventsRequest {
                parent: name.clone(),
                page_size: 1000,
                page_token: page_token.clone(),
            })
            .await
            .map_err(|s| vec![format!("{name}: ListGameEvents failed: {s:?}")])?
            .into_inner();
        log.extend(page.events);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    let mut expected: Vec<(i64, &str, &str)> =
        answered.iter().map(|a| (a.seq, a.actor, a.request_id.as_str())).collect();
    expected.push((1, "arbiter", "hot-0"));
    expected.sort_unstable();
    let logged: Vec<(i64, &str, &str)> =
        log.iter().map(|e| (e.seq, e.actor.as_str(), e.request_id.as_str())).collect();
    if logged != expected {
        failures.push(format!("{name}: the log {logged:?} is not the answered acts {expected:?}"));
    }
    if failures.is_empty() { Ok((answered.len(), reuses, retries)) } else { Err(failures) }
}

/// The move an event made (`e2e4`; empty for an event without one).
fn uci_move(event: &pb::GameEvent) -> String {
    let square = |key: &str| event.details.get(key).cloned().unwrap_or_default();
    format!("{}{}", square("mv.from"), square("mv.to"))
}
