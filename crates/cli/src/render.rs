//! Text for people: board diagrams, clocks, times, games, events and
//! rulings.

use std::fmt::Write as _;

use arbiter_client::{article_text, pb};

/// How a board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BoardStyle {
    /// Chess symbols (`♔♕♖♗♘♙` for White, `♚♛♜♝♞♟` for Black), `·` for an
    /// empty square.
    #[default]
    Unicode,
    /// FEN letters (upper case White), `.` for an empty square.
    Ascii,
}

fn glyph(piece: char, style: BoardStyle) -> char {
    match style {
        BoardStyle::Ascii => piece,
        BoardStyle::Unicode => match piece {
            'K' => '♔',
            'Q' => '♕',
            'R' => '♖',
            'B' => '♗',
            'N' => '♘',
            'P' => '♙',
            'k' => '♚',
            'q' => '♛',
            'r' => '♜',
            'b' => '♝',
            'n' => '♞',
            'p' => '♟',
            other => other,
        },
    }
}

/// The pieces of `fen` as 8 ranks (rank 8 first) of 8 squares (`None`
/// for empty), as FEN letters; `None` if the rules core cannot read the
/// FEN (read leniently: a diagram is drawn for any position it can hold).
pub fn placement(fen: &str) -> Option<[[Option<char>; 8]; 8]> {
    use arbiter_chess::{File, Rank, Square};
    let position = arbiter_chess::Position::from_fen_with(fen, arbiter_chess::FenOptions::LENIENT).ok()?;
    let mut board = [[None; 8]; 8];
    for (r, row) in board.iter_mut().enumerate() {
        for (f, square) in row.iter_mut().enumerate() {
            let at = Square::from_coords(File::new(f as u32), Rank::new(7 - r as u32));
            *square = position.board().piece_at(at).map(|p| p.char());
        }
    }
    Some(board)
}

/// A diagram of the position of `fen`: rank 8 at the top (rank 1 when
/// `flipped`, Black's view), with the coordinates. Each line ends with a
/// newline. A FEN whose placement cannot be read gives a one-line note.
pub fn board(fen: &str, style: BoardStyle, flipped: bool) -> String {
    let Some(squares) = placement(fen) else {
        return format!("(no diagram: cannot read the FEN {fen:?})\n");
    };
    let empty = match style {
        BoardStyle::Unicode => '·',
        BoardStyle::Ascii => '.',
    };
    let mut out = String::new();
    let ranks: Vec<usize> = if flipped { (0..8).rev().collect() } else { (0..8).collect() };
    let files: Vec<usize> = if flipped { (0..8).rev().collect() } else { (0..8).collect() };
    for &r in &ranks {
        let _ = write!(out, "{} ", 8 - r);
        for &f in &files {
            out.push(' ');
            out.push(squares[r][f].map_or(empty, |p| glyph(p, style)));
        }
        out.push('\n');
    }
    out.push_str("  ");
    for &f in &files {
        out.push(' ');
        out.push(char::from(b'a' + f as u8));
    }
    out.push('\n');
    out
}

/// A clock reading: `1:30:00`, `4:59`, and tenths below 20 seconds
/// (`0:09.5`); negative times with a `-`.
pub fn clock(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let total_s = ms / 1000;
    let (h, m, s) = (total_s / 3600, (total_s / 60) % 60, total_s % 60);
    if h > 0 {
        format!("{sign}{h}:{m:02}:{s:02}")
    } else if ms < 20_000 {
        format!("{sign}{m}:{s:02}.{}", (ms % 1000) / 100)
    } else {
        format!("{sign}{m}:{s:02}")
    }
}

/// An instant as RFC 3339 in UTC, to the millisecond (prost-types'
/// format: `2025-05-01T12:34:56.789Z`, no fraction on a whole second).
pub fn timestamp(ts: &prost_types::Timestamp) -> String {
    let mut ts = *ts;
    ts.normalize();
    ts.nanos -= ts.nanos % 1_000_000;
    ts.to_string()
}

/// `White` / `Black` / `-` for a proto colour.
pub fn color(value: i32) -> &'static str {
    match pb::Color::try_from(value) {
        Ok(pb::Color::White) => "White",
        Ok(pb::Color::Black) => "Black",
        _ => "-",
    }
}

/// The name of an enum value without its type prefix (`IN_PROGRESS`), or
/// `None` for the unspecified value.
pub fn enum_name(full: &str, prefix: &str) -> Option<String> {
    let short = full.strip_prefix(prefix).unwrap_or(full);
    if short == "UNSPECIFIED" { None } else { Some(short.to_string()) }
}

/// `PENDING`, `IN_PROGRESS`, `FINISHED`.
pub fn status(value: i32) -> Option<String> {
    pb::GameStatus::try_from(value).ok().and_then(|s| enum_name(s.as_str_name(), "GAME_STATUS_"))
}

/// `OVER_THE_BOARD`, `ONLINE`, `HYBRID`.
pub fn mode(value: i32) -> Option<String> {
    pb::Mode::try_from(value).ok().and_then(|s| enum_name(s.as_str_name(), "MODE_"))
}

/// `STANDARD`, `RAPID`, `BLITZ`.
pub fn category(value: i32) -> Option<String> {
    pb::Category::try_from(value).ok().and_then(|s| enum_name(s.as_str_name(), "CATEGORY_"))
}

/// What became of a move, in words for the output line after the act;
/// `None` when the act made no move.
pub fn move_outcome(o: pb::MoveOutcome) -> Option<&'static str> {
    use pb::MoveOutcome as O;
    Some(match o {
        O::Unspecified => return None,
        O::Accepted => "Move accepted",
        O::RefusedTouchMove => {
            "Move refused: touch-move binds the player to other moves (Law 4); it is taken back"
        }
        O::IllegalNotCompleted => {
            "Illegal move made, not completed: it may still be corrected before the clock is pressed (Law 7.5.1)"
        }
        O::UnfinishedPromotion => {
            "Pawn left unpromoted on the last rank: pressing the clock makes it an illegal move (Law 7.5.2)"
        }
        O::RuledIllegal => "Illegal move ruled (Law 7.5): the position before it is reinstated",
        O::IllegalNotActedOn => {
            "Illegal move completed: it stands unless the opponent claims it before his next move (Law A.5.2)"
        }
        O::PremoveQueued => "Premove queued",
    })
}

/// A lower-case, spaced form of an UPPER_SNAKE name: `in progress`.
pub fn words(name: &str) -> String {
    name.to_ascii_lowercase().replace('_', " ")
}

/// The moves in SAN, numbered: `1. e4 e5 2. Nf3`, starting from the move
/// number and side of `start_fen` (the standard position when empty).
pub fn move_list(start_fen: &str, sans: &[String]) -> String {
    let mut fields = start_fen.split_whitespace().skip(1);
    let black_first = fields.next() == Some("b");
    let number: u32 = start_fen.split_whitespace().nth(5).and_then(|n| n.parse().ok()).unwrap_or(1).max(1);
    let mut out = String::new();
    let mut n = number;
    for (i, san) in sans.iter().enumerate() {
        let white = (i % 2 == 0) != black_first;
        if white {
            if !out.is_empty() {
                out.push(' ');
            }
            let _ = write!(out, "{n}. {san}");
        } else {
            if i == 0 {
                let _ = write!(out, "{n}... {san}");
            } else {
                let _ = write!(out, " {san}");
            }
            n += 1;
        }
    }
    out
}

/// One ruling on one line: `Article 6.2.1   MOVE_COMPLETED: summary
/// [FIDE-6.2a]`: the Article as printed first (what a reader looks up),
/// the project's rule id last.
pub fn ruling(r: &pb::Ruling) -> String {
    let article = article_text(r.article.as_ref()).unwrap_or_else(|| "-".into());
    let mut line = format!("{article:<16} {}", r.decision);
    if !r.summary.is_empty() {
        let _ = write!(line, ": {}", r.summary);
    }
    if !r.rule_id.is_empty() {
        let _ = write!(line, " [{}]", r.rule_id);
    }
    line
}

/// `Article 5.1.1, FIDE-5.1.1`: the Article and the rule id, either alone
/// when the other is missing; `None` when both are.
pub fn citation(rule_id: &str, article: Option<&pb::Article>) -> Option<String> {
    match (article_text(article), rule_id.is_empty()) {
        (Some(a), false) => Some(format!("{a}, {rule_id}")),
        (Some(a), true) => Some(a),
        (None, false) => Some(rule_id.to_owned()),
        (None, true) => None,
    }
}

/// The clocks on one line: `White 1:29:58 ◀  Black 1:30:00`, with
/// `(paused)` when an arbiter paused them (see [`final_clocks_line`] for a
/// game that is over).
pub fn clocks_line(c: &pb::ClockReading) -> String {
    let running = pb::Color::try_from(c.running).unwrap_or(pb::Color::Unspecified);
    let mark = |side: pb::Color| if running == side && !c.paused { " ◀" } else { "" };
    let mut line = format!(
        "White {}{}   Black {}{}",
        clock(c.white_remaining_ms),
        mark(pb::Color::White),
        clock(c.black_remaining_ms),
        mark(pb::Color::Black)
    );
    if c.paused {
        line.push_str("   (paused)");
    }
    line
}

/// The clocks of a game: as [`clocks_line`] while it is played; once it
/// is over, the time each side had left, with no running mark and no
/// pause (nothing runs any more).
pub fn game_clocks_line(g: &pb::Game, c: &pb::ClockReading) -> String {
    if g.status == pb::GameStatus::Finished as i32 || g.status == pb::GameStatus::Cancelled as i32 {
        return format!("White {}   Black {}", clock(c.white_remaining_ms), clock(c.black_remaining_ms));
    }
    clocks_line(c)
}

/// The moves a touch-move obligation allows, in SAN, from the UCI of the
/// service's `allowed_moves` in the position `fen` (the UCI itself for a
/// move the rules core cannot read there).
pub fn allowed_san(fen: &str, allowed_uci: &[String]) -> Vec<String> {
    let position = arbiter_chess::Position::from_fen_with(fen, arbiter_chess::FenOptions::LENIENT).ok();
    allowed_uci
        .iter()
        .map(|uci| {
            position
                .as_ref()
                .and_then(|p| p.parse_uci(uci).ok().map(|m| p.san(m)))
                .unwrap_or_else(|| uci.clone())
        })
        .collect()
}

/// The game's obligation, if it is one still to meet: none once the game
/// is over.
pub fn open_obligation(g: &pb::Game) -> Option<&pb::Obligation> {
    let over = g.status == pb::GameStatus::Finished as i32 || g.status == pb::GameStatus::Cancelled as i32;
    g.obligation.as_ref().filter(|o| !over && (o.color != 0 || !o.allowed_moves.is_empty()))
}

/// The game's headline: `games/abc  Test Open, round 1: Carlsen - Caruana`.
pub fn headline(g: &pb::Game) -> String {
    let white = g.white.as_ref().map_or("?", |p| p.name.as_str());
    let black = g.black.as_ref().map_or("?", |p| p.name.as_str());
    let mut line = g.name.clone();
    if !g.event.is_empty() || !g.round.is_empty() {
        line.push_str("  ");
        line.push_str(if g.event.is_empty() { "?" } else { &g.event });
        if !g.round.is_empty() {
            let _ = write!(line, ", round {}", g.round);
        }
    }
    let _ = write!(line, ": {white} - {black}");
    line
}

/// How the game stands, on one line: `in progress, Black to move (move 3)`
/// or `finished: 1-0, checkmate (FIDE-5.1.1)`.
pub fn state_line(g: &pb::Game) -> String {
    let status = status(g.status).unwrap_or_else(|| "UNKNOWN".into());
    if g.status == pb::GameStatus::Finished as i32 {
        let mut line = "finished".to_string();
        if let Some(end) = &g.end {
            let _ = write!(line, ": {}", end.result);
            if !end.reason.is_empty() {
                let _ = write!(line, ", {}", end.reason);
            }
            if let Some(cited) = citation(&end.rule_id, end.article.as_ref()) {
                let _ = write!(line, " ({cited})");
            }
            if end.armageddon_winner != 0 {
                let _ = write!(line, "; match won by {}", color(end.armageddon_winner));
            }
        }
        return line;
    }
    let number = g.fen.split_whitespace().nth(5).unwrap_or("1");
    format!("{}, {} to move (move {number})", words(&status), color(g.side_to_move))
}

/// A response's time control (the PGN form, in seconds) as people read it,
/// with the PGN form to give it again: `90m+30s (pgn:5400+30)`.
pub fn time_control_text(pgn: &str) -> String {
    use arbiter_laws::time_control::TimeControl;
    match TimeControl::from_pgn(pgn) {
        _ if pgn.is_empty() => "-".to_owned(),
        Ok(tc) => format!("{tc} (pgn:{pgn})"),
        Err(_) => pgn.to_owned(),
    }
}

/// The regulations on one line: `Over the board · 90m+30s (pgn:5400+30) (Standard)`.
pub fn regulations_line(g: &pb::Game) -> String {
    let Some(r) = &g.regulations else { return String::new() };
    let mut line = format!(
        "{} · {}",
        words(&mode(r.mode).unwrap_or_else(|| "OVER_THE_BOARD".into())),
        time_control_text(&r.time_control)
    );
    if let Some(c) = category(g.category) {
        let _ = write!(line, " ({})", words(&c));
    }
    if r.chess960 {
        line.push_str(" · Chess960");
    }
    if r.armageddon {
        line.push_str(" · Armageddon");
    }
    line
}

/// The full description of a game for `arbiter game show`: headline,
/// state, diagram, moves, clocks, pending offer, obligation, questions and
/// the last rulings (from `events`, the last `last_rulings` events that
/// have rulings).
pub fn game(g: &pb::Game, events: &[pb::GameEvent], style: BoardStyle, flipped: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", headline(g));
    let _ = writeln!(out, "{}", regulations_line(g));
    let _ = writeln!(out, "{}", state_line(g));
    out.push('\n');
    out.push_str(&board(&g.fen, style, flipped));
    out.push('\n');
    if let Some(c) = &g.clocks {
        let _ = writeln!(out, "Clocks:     {}", game_clocks_line(g, c));
    }
    let start = g.regulations.as_ref().map_or("", |r| r.start_fen.as_str());
    if !g.moves_san.is_empty() {
        let _ = writeln!(out, "Moves:      {}", move_list(start, &g.moves_san));
    }
    if let Some(offer) = &g.draw_offer
        && offer.by != 0
    {
        let _ = writeln!(out, "Draw offer: by {} at ply {}", color(offer.by), offer.ply);
    }
    if let Some(o) = open_obligation(g) {
        let _ = write!(out, "Obligation: {}", color(o.color));
        if let Some(cited) = citation(&o.rule_id, o.article.as_ref()) {
            let _ = write!(out, " ({cited})");
        }
        if !o.reason.is_empty() {
            let _ = write!(out, ": {}", o.reason);
        }
        if !o.allowed_moves.is_empty() {
            let _ = write!(out, " [allowed: {}]", allowed_san(&g.fen, &o.allowed_moves).join(", "));
        }
        out.push('\n');
    }
    if g.white_illegal_moves > 0 || g.black_illegal_moves > 0 {
        let _ = writeln!(out, "Illegal:    White {}, Black {}", g.white_illegal_moves, g.black_illegal_moves);
    }
    if !g.open_questions.is_empty() {
        let _ = writeln!(out, "Open questions:");
        for q in &g.open_questions {
            let _ = write!(out, "  #{} {}", q.id, q.text);
            if !q.default.is_empty() {
                let _ = write!(out, " (default: {})", q.default);
            }
            out.push('\n');
        }
    }
    let with_rulings: Vec<&pb::GameEvent> = events.iter().filter(|e| !e.rulings.is_empty()).collect();
    if !with_rulings.is_empty() {
        let _ = writeln!(out, "Last rulings:");
        for e in with_rulings.iter().skip(with_rulings.len().saturating_sub(6)) {
            for r in &e.rulings {
                let _ = writeln!(out, "  #{:<4} {}", e.seq, ruling(r));
            }
        }
    }
    let _ = writeln!(out, "FEN:        {}", g.fen);
    out
}

/// One event of the audit trail: `#12  2025-...Z  +1:02.5  white  MAKE_MOVE  summary`,
/// then its rulings indented.
pub fn event(e: &pb::GameEvent) -> String {
    let mut out = format!("#{:<4}", e.seq);
    if let Some(t) = &e.record_time {
        let _ = write!(out, " {}", timestamp(t));
    }
    let _ = write!(out, " {:>9}", format!("+{}", clock(e.game_time_ms)));
    let _ = write!(out, " {:<7} {}", if e.actor.is_empty() { "-" } else { &e.actor }, e.act);
    if !e.summary.is_empty() {
        let _ = write!(out, ": {}", e.summary);
    }
    out.push('\n');
    for r in &e.rulings {
        let _ = writeln!(out, "        {}", ruling(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn ascii_diagram() {
        let d = board(START, BoardStyle::Ascii, false);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8  r n b q k b n r");
        assert_eq!(lines[1], "7  p p p p p p p p");
        assert_eq!(lines[2], "6  . . . . . . . .");
        assert_eq!(lines[7], "1  R N B Q K B N R");
        assert_eq!(lines[8], "   a b c d e f g h");
        assert_eq!(lines.len(), 9);
    }

    #[test]
    fn unicode_and_flipped_diagram() {
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
        let d = board(fen, BoardStyle::Unicode, false);
        assert!(d.starts_with("8  ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜\n"), "{d}");
        assert!(d.contains("5  · · · · ♟ · · ·\n"), "{d}");
        assert!(d.contains("4  · · · · ♙ · · ·\n"), "{d}");
        let f = board(fen, BoardStyle::Ascii, true);
        let lines: Vec<&str> = f.lines().collect();
        assert_eq!(lines[0], "1  R N B K Q B N R");
        assert_eq!(lines[4], "5  . . . p . . . .");
        assert_eq!(lines[8], "   h g f e d c b a");
    }

    #[test]
    fn bad_fen_diagram() {
        assert!(
            board("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w", BoardStyle::Ascii, false)
                .starts_with("(no diagram")
        );
        assert!(placement("8/8/8").is_none());
        assert!(placement("ppppppppp/8/8/8/8/8/8/8").is_none());
        assert!(placement("8/8/8/8/8/8/8/7x").is_none());
    }

    #[test]
    fn clocks() {
        assert_eq!(clock(5_400_000), "1:30:00");
        assert_eq!(clock(299_000), "4:59");
        assert_eq!(clock(60_000), "1:00");
        assert_eq!(clock(9_500), "0:09.5");
        assert_eq!(clock(0), "0:00.0");
        assert_eq!(clock(-1_000), "-0:01.0");
    }

    #[test]
    fn timestamps() {
        let t = prost_types::Timestamp { seconds: 0, nanos: 0 };
        assert_eq!(timestamp(&t), "1970-01-01T00:00:00Z");
        let t = prost_types::Timestamp { seconds: 1_746_102_896, nanos: 789_000_000 };
        assert_eq!(timestamp(&t), "2025-05-01T12:34:56.789Z");
        let t = prost_types::Timestamp { seconds: 951_782_400, nanos: 0 };
        assert_eq!(timestamp(&t), "2000-02-29T00:00:00Z");
        // Below the millisecond is dropped.
        let t = prost_types::Timestamp { seconds: 0, nanos: 1_999_999 };
        assert_eq!(timestamp(&t), "1970-01-01T00:00:00.001Z");
    }

    #[test]
    fn moves() {
        let sans: Vec<String> = ["e4", "e5", "Nf3"].iter().map(|s| s.to_string()).collect();
        assert_eq!(move_list("", &sans), "1. e4 e5 2. Nf3");
        let black = "8/8/8/8/8/8/8/k6K b - - 0 40";
        assert_eq!(move_list(black, &sans), "40... e4 41. e5 Nf3");
    }

    #[test]
    fn names() {
        assert_eq!(status(pb::GameStatus::InProgress as i32).as_deref(), Some("IN_PROGRESS"));
        assert_eq!(status(0), None);
        assert_eq!(mode(pb::Mode::OverTheBoard as i32).as_deref(), Some("OVER_THE_BOARD"));
        assert_eq!(words("IN_PROGRESS"), "in progress");
    }
}
