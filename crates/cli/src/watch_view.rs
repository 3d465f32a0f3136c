//! `game watch`: the live view of a game, redrawn in place in a terminal
//! (crossterm's commands), or a line per event when piped.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use arbiter_client::{WatchItem, WatchOptions, exit, pb};
use tokio_stream::StreamExt;

use crate::args::{GlobalArgs, WatchArgs};
use crate::output;
use crate::render::{self, BoardStyle};
use crate::session::out;

/// The live view of `game watch`.
struct View {
    game: Option<pb::Game>,
    /// The last clock reading and when it arrived.
    clocks: Option<(pb::ClockReading, Instant)>,
    log: VecDeque<String>,
    note: Option<String>,
    style: BoardStyle,
    flip: bool,
    drawn: bool,
    /// The terminal's width, in columns: longer lines are cut, so that the
    /// frame keeps its height and redraws in place.
    width: usize,
    last_frame: String,
}

/// The terminal's width in columns (crossterm asks the terminal; no
/// process is spawned), or 100 when it cannot say.
fn terminal_width() -> usize {
    crossterm::terminal::size()
        .map(|(columns, _)| usize::from(columns))
        .ok()
        .filter(|&w| w >= 20)
        .unwrap_or(100)
}

/// `line` cut to `width` terminal columns (a CJK character takes two),
/// with `…` when cut.
fn fit(line: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar as _;
    if unicode_width::UnicodeWidthStr::width(line) <= width {
        return line.to_string();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

impl View {
    const LOG_LINES: usize = 10;

    fn log(&mut self, line: String) {
        self.log.push_back(line);
        while self.log.len() > Self::LOG_LINES {
            self.log.pop_front();
        }
    }

    /// The clocks as they read now: the running side's reading minus the
    /// time since it arrived.
    fn clocks_now(&self) -> Option<pb::ClockReading> {
        let (c, at) = self.clocks.as_ref()?;
        let mut c = *c;
        let finished = self.game.as_ref().is_some_and(|g| g.status == pb::GameStatus::Finished as i32);
        if !c.paused && !finished {
            let elapsed = at.elapsed().as_millis() as i64;
            match pb::Color::try_from(c.running) {
                Ok(pb::Color::White) => c.white_remaining_ms -= elapsed,
                Ok(pb::Color::Black) => c.black_remaining_ms -= elapsed,
                _ => {}
            }
        }
        Some(c)
    }

    fn screen(&self) -> String {
        let mut s = String::new();
        if let Some(g) = &self.game {
            s.push_str(&render::headline(g));
            s.push('\n');
            s.push_str(&render::regulations_line(g));
            s.push('\n');
            s.push_str(&render::state_line(g));
            s.push_str("\n\n");
            s.push_str(&render::board(&g.fen, self.style, self.flip));
            s.push('\n');
        }
        if let Some(c) = self.clocks_now() {
            match &self.game {
                Some(g) => s.push_str(&render::game_clocks_line(g, &c)),
                None => s.push_str(&render::clocks_line(&c)),
            }
            s.push('\n');
        }
        if let Some(g) = &self.game {
            if let Some(o) = &g.draw_offer
                && o.by != 0
            {
                s.push_str(&format!("Draw offer by {}\n", render::color(o.by)));
            }
            if let Some(o) = render::open_obligation(g) {
                let cited = render::citation(&o.rule_id, o.article.as_ref()).unwrap_or_default();
                s.push_str(&format!("Obligation: {} {} ({cited})\n", render::color(o.color), o.reason));
            }
            for q in &g.open_questions {
                s.push_str(&format!("Question #{}: {}\n", q.id, q.text));
            }
            let start = g.regulations.as_ref().map_or("", |r| r.start_fen.as_str());
            if !g.moves_san.is_empty() {
                let moves = render::move_list(start, &g.moves_san);
                // The tail of a long game, on one line.
                let tail: String = if moves.chars().count() > 100 {
                    let skip = moves.chars().count() - 100;
                    format!("…{}", moves.chars().skip(skip).collect::<String>())
                } else {
                    moves
                };
                s.push_str(&format!("Moves: {tail}\n"));
            }
        }
        s.push('\n');
        for line in &self.log {
            s.push_str(line);
            s.push('\n');
        }
        if let Some(note) = &self.note {
            s.push_str(&format!("\n{note}\n"));
        }
        s
    }

    /// Redraws in place: cursor home, each line cleared to its end, the
    /// rest of the screen cleared (one write, so the frame never flickers).
    fn redraw(&mut self) -> std::io::Result<()> {
        use crossterm::terminal::{Clear, ClearType};
        use crossterm::{cursor::MoveTo, queue};
        let screen = self.screen();
        if self.drawn && screen == self.last_frame {
            return Ok(());
        }
        let mut frame: Vec<u8> = Vec::new();
        if !self.drawn {
            queue!(frame, Clear(ClearType::All))?;
            self.drawn = true;
        }
        queue!(frame, MoveTo(0, 0))?;
        for line in screen.lines() {
            frame.extend_from_slice(fit(line, self.width).as_bytes());
            queue!(frame, Clear(ClearType::UntilNewLine))?;
            frame.push(b'\n');
        }
        queue!(frame, Clear(ClearType::FromCursorDown))?;
        self.last_frame = screen;
        out(&String::from_utf8_lossy(&frame))
    }
}

fn event_lines(e: &pb::GameEvent) -> Vec<String> {
    let mut lines = vec![format!(
        "#{:<4} {:<7} {}{}",
        e.seq,
        e.actor,
        e.act,
        if e.summary.is_empty() { String::new() } else { format!(": {}", e.summary) }
    )];
    for r in &e.rulings {
        lines.push(format!("      {}", render::ruling(r)));
    }
    lines
}

/// `game watch`: the live view in a terminal, a line per event and ruling
/// when piped, JSON lines with `--json`; ends when the game is over.
///
/// # Errors
/// The watch's last error, or a failed write.
pub async fn watch(global: &GlobalArgs, a: &WatchArgs) -> anyhow::Result<u8> {
    let client = global.client().await?;
    // A person or a script watching a game waits out an outage of the
    // service: about ten minutes of attempts, 5 s apart at most.
    let mut options = WatchOptions::default();
    options.reconnect.attempts = 130;
    let mut stream = client.watch_with(&a.game, a.after_seq, options);
    if global.structured() {
        while let Some(item) = stream.next().await {
            output::watch_item(global.format(), &item?)?;
        }
        return Ok(exit::OK);
    }
    let tty = std::io::stdout().is_terminal();
    let mut view = View {
        game: None,
        clocks: None,
        log: VecDeque::new(),
        note: None,
        style: if a.ascii { BoardStyle::Ascii } else { BoardStyle::Unicode },
        flip: a.flip,
        drawn: false,
        width: if tty { terminal_width() } else { usize::MAX },
        last_frame: String::new(),
    };
    let mut tick = tokio::time::interval(Duration::from_millis(if tty { 200 } else { 3_600_000 }));
    loop {
        let item = tokio::select! {
            item = stream.next() => item,
            _ = tick.tick() => {
                if tty && view.game.is_some() {
                    view.redraw()?;
                }
                continue;
            }
        };
        let Some(item) = item else { break };
        match item? {
            WatchItem::Game { game, resumed } => {
                view.clocks = game.clocks.map(|c| (c, Instant::now()));
                if !tty {
                    if resumed {
                        out("(resumed)\n")?;
                    } else {
                        out(&format!(
                            "{}\n{}\n{}\n{}",
                            render::headline(&game),
                            render::regulations_line(&game),
                            render::state_line(&game),
                            render::board(&game.fen, view.style, view.flip)
                        ))?;
                    }
                }
                view.game = Some(*game);
                view.note = None;
            }
            WatchItem::Event(event) => {
                if let Some(c) = &event.clocks {
                    view.clocks = Some((*c, Instant::now()));
                }
                if let Some(g) = &mut view.game {
                    if !event.fen.is_empty() {
                        g.fen = event.fen.clone();
                    }
                    g.last_seq = event.seq;
                }
                // The rest of the game (moves, offer, obligation, status)
                // as it stands now.
                if let Ok(g) = client.get_game(&a.game).await {
                    if let Some(c) = &g.clocks {
                        view.clocks = Some((*c, Instant::now()));
                    }
                    view.game = Some(g);
                }
                let lines = event_lines(&event);
                if tty {
                    view.width = terminal_width();
                    for line in lines {
                        view.log(line);
                    }
                } else {
                    out(&format!("{}\n", lines.join("\n")))?;
                }
                view.note = None;
            }
            WatchItem::Heartbeat(c) => {
                view.clocks = Some((c, Instant::now()));
            }
            WatchItem::Reconnecting { after_seq, attempt, error } => {
                let note =
                    format!("connection lost ({error}); resuming after #{after_seq} (attempt {attempt})");
                if !tty {
                    eprintln!("arbiter: {note}");
                }
                view.note = Some(note);
            }
        }
        if tty {
            view.redraw()?;
        }
    }
    if let Some(g) = &view.game {
        let end = format!("Game over: {}\n", render::state_line(g));
        if tty {
            view.note = Some(end.trim_end().to_string());
            view.redraw()?;
        } else {
            out(&end)?;
        }
    }
    Ok(exit::OK)
}
