//! The commands on games as a whole: create, list, show, export, start,
//! and the audit trail.

use arbiter_client::{Color, exit, parse as names, pb};
use serde_json::{Value, json};

use crate::acts;
use crate::args::{CreateArgs, GameArg, GameCommand, GlobalArgs, ListArgs, RevokeTokensArgs, ShowArgs};
use crate::json;
use crate::render::{self, BoardStyle};
use crate::session::{out, out_json};
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
    if global.json {
        out_json(&json!({
            "name": name,
            "white_token": Some(&revoked.white_token).filter(|t| !t.is_empty()),
            "black_token": Some(&revoked.black_token).filter(|t| !t.is_empty()),
        }))?;
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
    if global.json {
        out_json(&json!({ "name": args.game, "pgn": pgn }))?;
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
    if global.json {
        out_json(&json!({
            "name": game.name,
            "white_token": created.white_token,
            "black_token": created.black_token,
            "game": json::game(&game),
        }))?;
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

/// `game list`: every page, or the one page `--page-size` asks for.
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
    if global.json {
        out_json(&json!({
            "games": games.iter().map(json::game).collect::<Vec<_>>(),
            "next_page_token": next,
        }))?;
        return Ok(exit::OK);
    }
    let mut text = String::new();
    if games.is_empty() {
        text.push_str("no games\n");
    } else {
        let rows: Vec<[String; 7]> = games
            .iter()
            .map(|g| {
                [
                    g.name.clone(),
                    render::words(&render::status(g.status).unwrap_or_default()),
                    g.event.clone(),
                    g.round.clone(),
                    g.white.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
                    g.black.as_ref().map(|p| p.name.clone()).unwrap_or_default(),
                    g.end.as_ref().map(|e| e.result.clone()).unwrap_or_default(),
                ]
            })
            .collect();
        let header = ["GAME", "STATUS", "EVENT", "ROUND", "WHITE", "BLACK", "RESULT"].map(String::from);
        let mut widths = header.clone().map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&header).chain(&rows) {
            let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
            text.push_str(cells.join("  ").trim_end());
            text.push('\n');
        }
    }
    if !next.is_empty() {
        text.push_str(&format!("next page: --page-token {next}\n"));
    }
    out(&text)?;
    Ok(exit::OK)
}

/// `game show`: the game and its last rulings.
async fn show(global: &GlobalArgs, a: &ShowArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    let game = client.get_game(&a.game).await?;
    let events = client.all_events(&a.game).await?;
    if global.json {
        let with_rulings: Vec<&pb::GameEvent> = events.iter().filter(|e| !e.rulings.is_empty()).collect();
        let recent: Vec<Value> =
            with_rulings[with_rulings.len().saturating_sub(10)..].iter().map(|e| json::event(e)).collect();
        out_json(&json!({ "game": json::game(&game), "recent_events": recent }))?;
    } else {
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
    if global.json {
        out_json(&json!({ "name": a.game, "events": events.iter().map(json::event).collect::<Vec<_>>() }))?;
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
