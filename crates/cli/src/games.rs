//! The commands on games as a whole: create, list, show, export, start,
//! and the audit trail.

use arbiter_client::{Color, exit, parse as names, pb};

use crate::acts;
use crate::args::{
    CreateArgs, Format, GameArg, GameCommand, GlobalArgs, ListArgs, RevokeTokensArgs, ShowArgs,
};
use crate::output;
use crate::render::{self, BoardStyle};
use crate::session::out;
use crate::table::{self, Table};
use crate::watch_view;

/// A `game` command.
///
/// # Errors
/// The call's, or a failed write.
pub async fn run(global: &GlobalArgs, command: GameCommand) -> anyhow::Result<u8> {
    match command {
        GameCommand::Create(args) => create(global, &args).await,
        GameCommand::List(args) => list(global, &args).await,
        GameCommand::Show(args) => show(global, &args).await,
        GameCommand::Watch(args) => watch_view::watch(global, &args).await,
        GameCommand::Pgn(args) => export_pgn(global, &args).await,
        GameCommand::Start(a) => acts::send(global, global.client().await?.start_game(&a.game)).await,
        GameCommand::Cancel(a) => acts::send(global, global.client().await?.cancel_game(&a.game)).await,
        GameCommand::RevokeTokens(a) => revoke_tokens(global, &a).await,
    }
}

/// `game revoke-tokens`: prints the new tokens.
async fn revoke_tokens(global: &GlobalArgs, a: &RevokeTokensArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let color = a.color.map(Color::from);
    let revoked = global.prepare(client.revoke_player_tokens(&a.game, color)).await?;
    let name = names::game_name(&a.game)?;
    if global.structured() {
        output::print(global, &revoked)?;
    } else {
        let mut text = format!("game:        {name}\n");
        for (label, token) in [("white token", &revoked.white_token), ("black token", &revoked.black_token)] {
            if !token.is_empty() {
                text.push_str(&format!("{label}: {token}\n"));
            }
        }
        out(&text)?;
    }
    Ok(exit::OK)
}

/// `game pgn`: the game as PGN.
async fn export_pgn(global: &GlobalArgs, args: &GameArg) -> anyhow::Result<u8> {
    let pgn = global.client().await?.export_pgn(&args.game).await?;
    if global.structured() {
        output::print(global, &pb::ExportPgnResponse { pgn })?;
    } else {
        out(&pgn)?;
        if !pgn.ends_with('\n') {
            out("\n")?;
        }
    }
    Ok(exit::OK)
}

/// `game create`: prints the game and both player tokens.
async fn create(global: &GlobalArgs, a: &CreateArgs) -> anyhow::Result<u8> {
    let game_id = match &a.id {
        Some(id) => names::game_id(id)?,
        None => String::new(),
    };
    let request = pb::CreateGameRequest {
        game_id,
        event: a.event.clone().unwrap_or_default(),
        round: a.round.clone().unwrap_or_default(),
        white: Some(pb::Player {
            name: a.white.clone(),
            fide_id: a.white_fide_id.clone().unwrap_or_default(),
            ..Default::default()
        }),
        black: Some(pb::Player {
            name: a.black.clone(),
            fide_id: a.black_fide_id.clone().unwrap_or_default(),
            ..Default::default()
        }),
        regulations: Some(a.regulations.to_proto()),
        start: a.start,
        ..Default::default()
    };
    let client = global.client().await?;
    let created = global.prepare(client.create_game(request)).await?;
    let game = created.game.clone().unwrap_or_default();
    if global.structured() {
        output::print(global, &created)?;
    } else {
        out(&format!(
            "game:        {}\nstatus:      {}\nwhite token: {}\nblack token: {}\n",
            game.name,
            render::state_line(&game),
            created.white_token,
            created.black_token
        ))?;
    }
    Ok(exit::OK)
}

/// `game list`: every page, or the one page `--page-size` asks for; with
/// `--watch`, then each game again as it changes.
async fn list(global: &GlobalArgs, a: &ListArgs) -> anyhow::Result<u8> {
    let status = a.status.map_or(pb::GameStatus::Unspecified, pb::GameStatus::from);
    let request = pb::ListGamesRequest {
        page_size: a.page_size.unwrap_or(500),
        page_token: a.page_token.clone().unwrap_or_default(),
        event: a.event.clone().unwrap_or_default(),
        round: a.round.clone().unwrap_or_default(),
        status: status as i32,
    };
    let client = global.client().await?;
    let (games, next) = if a.page_size.is_some() {
        let page = client.list_games(request).await?;
        (page.games, page.next_page_token)
    } else {
        (client.list_all_games(request).await?, String::new())
    };
    let wide = global.format() == Format::Wide;
    let mut widths = Vec::new();
    if global.structured() {
        let listed = pb::ListGamesResponse { games, next_page_token: next };
        if a.watch {
            output::print_item(global.format(), &listed)?;
        } else {
            output::print(global, &listed)?;
        }
    } else {
        let mut text = String::new();
        if games.is_empty() && !a.watch {
            text.push_str("no games\n");
        } else {
            let mut t = Table::new(list_header(wide));
            for g in &games {
                t.row(list_row(g, wide));
            }
            widths = t.widths();
            text.push_str(&t.render());
        }
        if !next.is_empty() {
            text.push_str(&format!("next page: --page-token {next}\n"));
        }
        out(&text)?;
    }
    if !a.watch {
        return Ok(exit::OK);
    }
    let shown = |g: &pb::Game| {
        a.event.as_ref().is_none_or(|e| &g.event == e)
            && a.round.as_ref().is_none_or(|r| &g.round == r)
            && (status == pb::GameStatus::Unspecified || g.status == status as i32)
    };
    watch_list(global, &client, &mut widths, wide, &shown).await
}

/// The columns of `game list` (`-o wide`: with the time control, the move,
/// the clocks and the last change).
fn list_header(wide: bool) -> Vec<&'static str> {
    let mut header = vec!["GAME", "STATUS", "EVENT", "ROUND", "WHITE", "BLACK", "RESULT"];
    if wide {
        header.extend(["TIME CONTROL", "MOVE", "TO MOVE", "WHITE CLOCK", "BLACK CLOCK", "UPDATED"]);
    }
    header
}

/// A game's row in `game list`.
fn list_row(g: &pb::Game, wide: bool) -> Vec<String> {
    let finished = g.status == pb::GameStatus::Finished as i32;
    let mut row = vec![
        g.name.clone(),
        render::words(&render::status(g.status).unwrap_or_default()),
        g.event.clone(),
        g.round.clone(),
        g.white.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
        g.black.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
        g.end.as_ref().map(|e| e.result.clone()).unwrap_or_default(),
    ];
    if wide {
        let tc = g.regulations.as_ref().map(|r| r.time_control.as_str()).unwrap_or_default();
        let clocks = g.clocks.unwrap_or_default();
        row.extend([
            arbiter_laws::time_control::TimeControl::from_pgn(tc)
                .map_or_else(|_| tc.to_owned(), |t| t.to_string()),
            g.fen.split_whitespace().nth(5).unwrap_or("1").to_owned(),
            if finished { String::new() } else { render::color(g.side_to_move).to_owned() },
            render::clock(clocks.white_remaining_ms),
            render::clock(clocks.black_remaining_ms),
            g.update_time.as_ref().map(render::timestamp).unwrap_or_default(),
        ]);
    }
    row
}

/// `game list --watch`: each change of a game on the WatchGames stream
/// (every game pending or in progress, and those started later), reopened
/// when it breaks, until interrupted.
async fn watch_list(
    global: &GlobalArgs,
    client: &arbiter_client::Client,
    widths: &mut Vec<usize>,
    wide: bool,
    shown: &dyn Fn(&pb::Game) -> bool,
) -> anyhow::Result<u8> {
    use tokio_stream::StreamExt as _;
    let mut failures = 0u32;
    loop {
        let opened = client.raw().watch_games(pb::WatchGamesRequest { scope: String::new() }).await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            Err(status) if arbiter_client::is_transient_status(&status) && failures < 10 => {
                failures += 1;
                tokio::time::sleep(arbiter_client::RetryPolicy::default().backoff(failures)).await;
                continue;
            }
            Err(status) => return Err(arbiter_client::Error::from(status).into()),
        };
        failures = 0;
        while let Some(message) = stream.next().await {
            let message = match message {
                Ok(m) => m,
                Err(status) if arbiter_client::is_transient_status(&status) => break,
                Err(status) => return Err(arbiter_client::Error::from(status).into()),
            };
            let Some(pb::watch_games_response::Item::Update(update)) = &message.item else { continue };
            let Some(game) = &update.game else { continue };
            if !shown(game) {
                continue;
            }
            if global.structured() {
                // The stream's message, as grpcurl prints it: `{"update": ...}`.
                output::print_item(global.format(), &message)?;
            } else {
                let row = list_row(game, wide);
                if widths.is_empty() {
                    let t = Table::new(list_header(wide));
                    *widths = t.widths();
                    out(&t.render())?;
                }
                out(&table::line(&row, widths))?;
            }
        }
        failures += 1;
        if failures > 10 {
            return Ok(exit::UNAVAILABLE);
        }
        tokio::time::sleep(arbiter_client::RetryPolicy::default().backoff(failures)).await;
    }
}

/// `game show`: the game and its last rulings.
async fn show(global: &GlobalArgs, a: &ShowArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let game = client.get_game(&a.game).await?;
    if global.structured() {
        // GetGame's answer, as grpcurl prints it (the events: `audit`).
        output::print(global, &pb::GetGameResponse { game: Some(game) })?;
    } else {
        let events = client.all_events(&a.game).await?;
        let style = if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode };
        out(&render::game(&game, &events, style, a.flip))?;
    }
    Ok(exit::OK)
}

/// `audit`: every recorded event with its rulings.
pub async fn audit(global: &GlobalArgs, a: &GameArg) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let mut events = Vec::new();
    let mut token = String::new();
    loop {
        let page = client.list_game_events(&a.game, 1000, token).await?;
        events.extend(page.events);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    if global.structured() {
        let all = pb::ListGameEventsResponse { events, next_page_token: String::new() };
        output::print(global, &all)?;
    } else {
        let mut text = String::new();
        if events.is_empty() {
            text.push_str("no events\n");
        }
        for e in &events {
            text.push_str(&render::event(e));
        }
        out(&text)?;
    }
    Ok(exit::OK)
}
