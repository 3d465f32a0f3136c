//! The PGN reader, writer and validator: unit cases for each feature, and
//! the real game collections in `shared/data/pgn/` with their exact totals.

mod common;
use common::Rng;

use std::io::{self, Read};
use std::path::Path;
use std::time::Duration;

use arbiter_chess::pgn::check::{CheckError, GameReport, Summary, validate_games};
use arbiter_chess::pgn::{
    Comment, Game, GameError, GameResult, Limits, PgnError, PgnMove, Reader, Skip, TokenKind, Visitor,
    WriteError, WriteOptions, format_game, format_game_with_comment, read_games, write_game,
};
use arbiter_chess::{Position, SanError};

/// Records every callback as a line of text.
#[derive(Default)]
struct Recorder {
    events: Vec<String>,
    variations: bool,
}

impl Visitor for Recorder {
    type Output = Vec<String>;
    fn begin_game(&mut self) {
        self.events.clear();
    }
    fn tag(&mut self, name: &str, value: &str) {
        self.events.push(format!("tag {name}={value}"));
    }
    fn begin_movetext(&mut self) -> Skip {
        self.events.push("movetext".into());
        Skip(false)
    }
    fn san(&mut self, san: &str) {
        self.events.push(san.into());
    }
    fn nag(&mut self, nag: u8) {
        self.events.push(format!("${nag}"));
    }
    fn comment(&mut self, comment: Comment<'_>) {
        self.events.push(format!("{{{}}}", comment.text()));
    }
    fn begin_variation(&mut self) -> Skip {
        self.events.push("(".into());
        Skip(!self.variations)
    }
    fn end_variation(&mut self) {
        self.events.push(")".into());
    }
    fn outcome(&mut self, result: GameResult) {
        self.events.push(format!("result {result}"));
    }
    fn end_game(&mut self) -> Vec<String> {
        std::mem::take(&mut self.events)
    }
}

fn events(pgn: &[u8], variations: bool) -> Vec<Vec<String>> {
    let mut reader = Reader::new(pgn);
    let mut rec = Recorder { variations, ..Recorder::default() };
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut rec).unwrap() {
        out.push(g);
    }
    out
}

fn games(pgn: &[u8]) -> Vec<Game> {
    read_games(pgn).map(|g| g.unwrap()).collect()
}

fn sans(game: &Game) -> Vec<&str> {
    game.sans().collect()
}

fn check(pgn: &[u8]) -> (Vec<String>, Summary) {
    let mut lines = Vec::new();
    let summary = validate_games(pgn, |r: &GameReport| lines.push(r.to_string())).unwrap();
    (lines, summary)
}

fn first_error(pgn: &[u8]) -> (u32, CheckError) {
    let mut found = None;
    validate_games(pgn, |r: &GameReport| {
        if let (None, Some((ply, e))) = (&found, &r.error) {
            found = Some((*ply, clone_error(e)));
        }
    })
    .unwrap();
    found.expect("expected an error")
}

/// `CheckError` holds a reader error (not `Clone`); rebuild it.
fn clone_error(e: &CheckError) -> CheckError {
    match e {
        CheckError::San(s) => CheckError::San(s.clone()),
        CheckError::BadFen { fen, error } => CheckError::BadFen { fen: fen.clone(), error: error.clone() },
        CheckError::UnsupportedVariant(v) => CheckError::UnsupportedVariant(v.clone()),
        CheckError::Chess960WithoutFen => CheckError::Chess960WithoutFen,
        CheckError::MateResult { winner, result } => {
            CheckError::MateResult { winner: *winner, result: *result }
        }
        CheckError::StalemateResult(r) => CheckError::StalemateResult(*r),
        CheckError::ResultDisagrees { tag, marker } => {
            CheckError::ResultDisagrees { tag: *tag, marker: *marker }
        }
        CheckError::BadResultTag(t) => CheckError::BadResultTag(t.clone()),
        CheckError::Read(r) => panic!("unexpected read error {r}"),
    }
}

const SCHOLAR: &str = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#";
const SCHOLAR_FEN: &str = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4";

// ---------------------------------------------------------------- reader

#[test]
fn byte_order_mark_is_skipped() {
    let pgn = "\u{feff}[Event \"BOM\"]\n\n1. e4 e5 *\n";
    let g = games(pgn.as_bytes());
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].tags, [("Event".to_owned(), "BOM".to_owned())]);
    assert_eq!(sans(&g[0]), ["e4", "e5"]);
    // Also a BOM in front of a second, concatenated file.
    let two = format!("{pgn}{pgn}");
    assert_eq!(games(two.as_bytes()).len(), 2);
}

#[test]
fn crlf_line_ends() {
    let pgn = b"[Event \"E\"]\r\n[White \"W\"]\r\n\r\n1.e4 e5 ; note\r\n2.Nf3 {multi\r\nline} 1-0\r\n\r\n[Event \"F\"]\r\n\r\n*\r\n";
    let g = games(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].tag("Event"), Some("E"));
    assert_eq!(g[0].tag("White"), Some("W"));
    assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3"]);
    assert_eq!(g[0].moves[1].comments, [" note"]);
    assert_eq!(g[0].moves[2].comments, ["multi\r\nline"]);
    assert_eq!(g[0].outcome, Some(GameResult::WhiteWins));
    assert_eq!(g[1].tag("Event"), Some("F"));
    assert!(g[1].moves.is_empty());
}

#[test]
fn tag_escapes_and_odd_headers() {
    let pgn = br#"[Event "A \"quoted\" name \\ with backslash"]
[Site "a]b"] [Round "3"]
[Annotator "no closing quote
[White   "spaced"  ]
[Black Unquoted]

*
"#;
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].tag("Event"), Some(r#"A "quoted" name \ with backslash"#));
    assert_eq!(g[0].tag("Site"), Some("a]b"));
    assert_eq!(g[0].tag("Round"), Some("3"));
    assert_eq!(g[0].tag("Annotator"), Some("no closing quote"));
    assert_eq!(g[0].tag("White"), Some("spaced"));
    assert_eq!(g[0].tag("Black"), Some("Unquoted"));
}

#[test]
fn latin1_tags_are_decoded() {
    let pgn = b"[White \"Nu\xf1ez\"]\n\n1. d4 *\n";
    let g = games(pgn);
    assert_eq!(g[0].tag("White"), Some("Nuñez"));
    let pgn = "[White \"Nuñez\"]\n\n1. d4 *\n";
    assert_eq!(games(pgn.as_bytes())[0].tag("White"), Some("Nuñez"));
}

#[test]
fn comments_of_both_kinds() {
    let pgn = b"[Event \"x\"]\n{game comment} 1. e4 {brace (with) parens; and semicolon} e5 ; rest of line {not a brace\n2. Nf3 {a}{b} *";
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].comments, ["game comment"]);
    assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3"]);
    assert_eq!(g[0].moves[0].comments, ["brace (with) parens; and semicolon"]);
    assert_eq!(g[0].moves[1].comments, [" rest of line {not a brace"]);
    assert_eq!(g[0].moves[2].comments, ["a", "b"]);
    // Comments between games (before a game's first header or token) are
    // not part of any game: a comment after a result makes no extra game.
    let g = games(b"{before} 1. e4 1-0 {after}\n\n[Event \"y\"]\n1. d4 *\n{trailing}\n");
    assert_eq!(g.len(), 2);
    assert!(g[0].comments.is_empty() && g[0].moves[0].comments.is_empty());
    assert_eq!(g[1].tag("Event"), Some("y"));
}

#[test]
fn percent_escape_lines() {
    let pgn =
        b"% a file comment\n[Event \"x\"]\n% escaped line with 1. d4 d5\n\n1. e4\n%2. Nf3 ignored\ne5 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(sans(&g[0]), ["e4", "e5"]);
    // `%` not in the first column is not an escape.
    let (lines, _) = check(b"1. e4 %x *");
    assert_eq!(lines, ["game 1: error at ply 2: \"%x\" is not a move in algebraic notation"]);
}

#[test]
fn nags_and_suffix_annotations() {
    let pgn = b"1. e4!? $14 e5?? 2. Nf3! ! Nc6?! 3. Bb5!! +- a6? $201 $999 *";
    let ev = events(pgn, false);
    assert_eq!(
        ev[0],
        [
            "movetext", "e4", "$5", "$14", "e5", "$4", "Nf3", "$1", "$1", "Nc6", "$6", "Bb5", "$3", "$18",
            "a6", "$2", "$201", "result *"
        ]
    );
    let g = games(pgn);
    assert_eq!(g[0].moves[0].nags, [5, 14]);
    assert_eq!(g[0].moves[5].nags, [2, 201]);
}

#[test]
fn move_number_styles() {
    let pgn = b"1.e4 e5 2. Nf3 2... Nc6 3.Bb5 3...a6 4 Ba4 4. ... Nf6 5.\nO-O 5...\nBe7 6.0-0-0?? *";
    let g = games(pgn);
    assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "0-0-0"]);
    assert_eq!(g[0].moves[10].nags, [4]);
}

#[test]
fn nested_variations_are_parsed_and_skipped() {
    let pgn = b"1. e4 (1. d4 d5 (1... Nf6 2. c4 (2. Nf3)) 2. c4) (1. c4) e5 {after (a paren} (1... c5 {x)y} ; )\n 2. Nf3) 2. Nf3 1-0";
    let g = games(pgn);
    assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3"]);
    assert_eq!(g[0].outcome, Some(GameResult::WhiteWins));
    // A visitor that looks inside sees the structure.
    let ev = events(pgn, true);
    assert_eq!(
        ev[0].join(" "),
        "movetext e4 ( d4 d5 ( Nf6 c4 ( Nf3 ) ) c4 ) ( c4 ) e5 {after (a paren} ( c5 {x)y} { )} Nf3 ) Nf3 result 1-0"
    );
    // A result inside a variation does not end the game; an unclosed
    // variation is closed at the end of the game.
    let ev = events(b"1. e4 (1. d4 1-0) e5 (1... c5", true);
    assert_eq!(ev[0].join(" "), "movetext e4 ( d4 ) e5 ( c5 )");
    // Stray closing parenthesis is ignored.
    let g = games(b"1. e4 ) e5 *");
    assert_eq!(sans(&g[0]), ["e4", "e5"]);
}

#[test]
fn missing_results() {
    // At the end of the input.
    let g = games(b"[Event \"a\"]\n\n1. e4 e5");
    assert_eq!(g.len(), 1);
    assert_eq!(sans(&g[0]), ["e4", "e5"]);
    assert_eq!(g[0].outcome, None);
    // Before the next header.
    let g = games(b"[Event \"a\"]\n\n1. e4 e5\n[Event \"b\"]\n\n1. d4 0-1\n");
    assert_eq!(g.len(), 2);
    assert_eq!(sans(&g[0]), ["e4", "e5"]);
    assert_eq!(g[0].outcome, None);
    assert_eq!(g[1].tag("Event"), Some("b"));
    assert_eq!(sans(&g[1]), ["d4"]);
    assert_eq!(g[1].outcome, Some(GameResult::BlackWins));
    assert_eq!(g[1].result(), Some(GameResult::BlackWins));
}

#[test]
fn results_and_unknown_result() {
    for (token, result) in [
        ("1-0", GameResult::WhiteWins),
        ("0-1", GameResult::BlackWins),
        ("1/2-1/2", GameResult::Draw),
        ("½-½", GameResult::Draw),
        ("*", GameResult::Unknown),
    ] {
        let pgn = format!("1. e4 {token}\n");
        let g = games(pgn.as_bytes());
        assert_eq!(g.len(), 1, "{token}");
        assert_eq!(g[0].outcome, Some(result), "{token}");
    }
    // The Result tag is the fallback.
    let g = games(b"[Result \"1/2-1/2\"]\n\n1. e4\n");
    assert_eq!(g[0].result(), Some(GameResult::Draw));
    // Headerless games one after the other.
    let g = games(b"1. e4 e5 1-0\n1. d4 d5 0-1\n");
    assert_eq!(g.len(), 2);
    assert_eq!(sans(&g[1]), ["d4", "d5"]);
}

#[test]
fn clocks_and_elapsed_times() {
    let pgn = b"1. e4 { [%clk 0:03:00] } 1... e5 {[%eval 0.2] [%clk 0:02:59.5]} 2. Nf3 {[%emt 0:00:05] [%clk 1:23:45] good move} *";
    let g = games(pgn);
    let m = &g[0].moves;
    assert_eq!(m[0].clock, Some(Duration::from_secs(180)));
    assert_eq!(m[1].clock, Some(Duration::from_millis(179_500)));
    assert_eq!(m[2].clock, Some(Duration::from_secs(5025)));
    assert_eq!(m[2].elapsed, Some(Duration::from_secs(5)));
    assert_eq!(m[0].elapsed, None);
    let c = Comment::new("[%eval 0.2] [%clk 0:02:59] hello  there [%bad");
    assert_eq!(c.commands().collect::<Vec<_>>(), [("eval", "0.2"), ("clk", "0:02:59")]);
    assert_eq!(c.remark(), "hello there");
    assert_eq!(Comment::new("[%clk nonsense]").clock(), None);
}

#[test]
fn games_without_moves() {
    let pgn = b"[Event \"a\"]\n[Result \"1-0\"]\n\n1-0\n\n[Event \"b\"]\n[Event2 \"c\"]\n[Event \"d\"]\n\n*\n[Event \"e\"]\n";
    let g = games(pgn);
    assert_eq!(g.len(), 3);
    assert!(g.iter().all(|g| g.moves.is_empty()));
    assert_eq!(g[0].outcome, Some(GameResult::WhiteWins));
    assert_eq!(g[1].tags.len(), 3);
    assert_eq!(g[2].tag("Event"), Some("e"));
    assert_eq!(g[2].outcome, None);
    let (lines, summary) = check(pgn);
    let start = Position::startpos().fen();
    assert_eq!(
        lines,
        [format!("game 1: ok {start}"), format!("game 2: ok {start}"), format!("game 3: ok {start}")]
    );
    assert_eq!(summary, Summary { games: 3, plies: 0, errors: 0 });
    assert!(games(b"").is_empty());
    assert!(games(b"\n \r\n\t").is_empty());
}

#[test]
fn skipping_a_movetext_and_whole_games() {
    struct HeadersOnly(usize);
    impl Visitor for HeadersOnly {
        type Output = usize;
        fn begin_movetext(&mut self) -> Skip {
            Skip(true)
        }
        fn san(&mut self, _: &str) {
            self.0 += 1;
        }
        fn end_game(&mut self) -> usize {
            self.0
        }
    }
    let pgn = b"[Event \"a\"]\n1. e4 (1. d4 {)} 1-0) e5 1-0\n[Event \"b\"]\n1. d4 *\n";
    let mut reader = Reader::new(&pgn[..]);
    assert_eq!(reader.read_game(&mut HeadersOnly(0)).unwrap(), Some(0));
    assert_eq!(reader.read_game(&mut HeadersOnly(0)).unwrap(), Some(0));
    assert_eq!(reader.read_game(&mut HeadersOnly(0)).unwrap(), None);
    let mut reader = Reader::new(&pgn[..]);
    assert!(reader.skip_game().unwrap());
    let g = reader.read_game(&mut Recorder::default()).unwrap().unwrap();
    assert_eq!(g, ["tag Event=b", "movetext", "d4", "result *"]);
    assert!(!reader.skip_game().unwrap());
    assert_eq!(reader.offset(), pgn.len() as u64);
}

// ------------------------------------------------------------- robustness

/// Runs every API over the input; they must not panic.
fn exercise(input: &[u8]) {
    let limits = Limits { max_token: 16, max_tag: 64, max_comment: 64 };
    let mut reader = Reader::with_limits(input, limits);
    let mut rec = Recorder { variations: true, ..Recorder::default() };
    let mut n = 0;
    loop {
        match reader.read_game(&mut rec) {
            Ok(Some(_)) | Err(PgnError::TooLong { .. }) => {}
            Ok(None) => break,
            Err(e) => panic!("unexpected error {e}"),
        }
        n += 1;
        assert!(n <= input.len() + 1, "no progress");
    }
    for g in read_games(input).flatten() {
        let _ = g.result();
    }
    let _ = validate_games(input, |r| {
        let _ = r.to_string();
    })
    .unwrap();
}

#[test]
fn malformed_input_gives_errors_not_panics() {
    let base = format!(
        "[Event \"x \\\"y\\\"\"]\n[FEN \"{SCHOLAR_FEN}\"]\n\n{{c}} 1. e4!? $1 (1. d4 {{v}} ; l\n) e5 % 2. Nf3 1-0\n\u{feff}\r\n[%clk 0:00:01] 1/2-1/2 *"
    );
    let base = base.as_bytes();
    // Every prefix.
    for n in 0..=base.len() {
        exercise(&base[..n]);
    }
    // Random mutations of the sample, and random bytes.
    let alphabet = b"[]{}()\";%$!?*.-/ \n\r\\0123456789abcdefghNBRQKOx+#=\xef\xbb\xbf\xff";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let mut v = base.to_vec();
        for _ in 0..1 + rng.below(8) {
            let i = rng.below(v.len());
            match rng.below(3) {
                0 => v[i] = alphabet[rng.below(alphabet.len())],
                1 => v.insert(i, alphabet[rng.below(alphabet.len())]),
                _ => {
                    v.remove(i);
                }
            }
        }
        exercise(&v);
        let random: Vec<u8> = (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect();
        exercise(&random);
    }
}

#[test]
fn limits_bound_memory_and_reading_resumes() {
    let next = b"\n[Event \"next\"]\n\n1. d4 *\n";
    // An endless comment, an endless token, an endless header: each stops
    // at its limit with an error, and the following game is read normally.
    for (prefix, kind, suffix) in [
        (&b"[Event \"a\"]\n\n1. e4 {"[..], TokenKind::Comment, &b"} e5 1-0\n"[..]),
        (&b"[Event \"a\"]\n\n1. e4 ;"[..], TokenKind::Comment, &b"\n e5 1-0\n"[..]),
        (&b"[Event \"a\"]\n\n1. e4 "[..], TokenKind::Token, &b" e5 (1... d5) 1-0\n"[..]),
        (&b"[Event \"a"[..], TokenKind::Tag, &b"\"]\n[Site \"s\"]\n\n1. e4 e5 1-0\n"[..]),
    ] {
        let mut pgn = prefix.to_vec();
        pgn.extend(std::iter::repeat_n(b'a', 3 << 20));
        pgn.extend_from_slice(suffix);
        pgn.extend_from_slice(next);
        let mut reader = Reader::new(&pgn[..]);
        let mut rec = Recorder::default();
        match reader.read_game(&mut rec) {
            Err(PgnError::TooLong { kind: k, .. }) => assert_eq!(k, kind),
            other => panic!("expected TooLong, got {other:?}"),
        }
        let g = reader.read_game(&mut rec).unwrap().unwrap();
        assert_eq!(g, ["tag Event=next", "movetext", "d4", "result *"], "{kind:?}");
        assert_eq!(reader.read_game(&mut rec).unwrap(), None);
    }
    // The validator reports such a game as an error and goes on.
    let mut pgn = b"1. e4 {".to_vec();
    pgn.extend(std::iter::repeat_n(b'x', 2 << 20));
    pgn.extend_from_slice(b"} *\n[Event \"b\"]\n1. e4 *");
    let (lines, summary) = check(&pgn);
    assert!(
        lines[0].starts_with("game 1: error at ply 2: unreadable game: comment longer than"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("game 2: ok "));
    assert_eq!(summary, Summary { games: 2, plies: 2, errors: 1 });
    // A long line is fine when each tag on it closes within the limit.
    let mut one_line = b"[Event \"a\"] [Site \"b\"] 1. e4 e5".to_vec();
    for _ in 0..20_000 {
        one_line.extend_from_slice(b" {comment}");
    }
    one_line.extend_from_slice(b" 2. Nf3 1-0 [Event \"c\"] 1. d4 *");
    let g = games(&one_line);
    assert_eq!(g.len(), 2);
    assert_eq!(sans(&g[0]), ["e4", "e5", "Nf3"]);
    assert_eq!(g[0].tag("Site"), Some("b"));
    assert_eq!(sans(&g[1]), ["d4"]);
    // Small custom limits.
    let limits = Limits { max_token: 16, max_tag: 16, max_comment: 16 };
    let mut reader = Reader::with_limits(&b"[Event \"a very long event name\"]\n1. e4 *"[..], limits);
    assert!(matches!(reader.read_game(&mut Recorder::default()), Err(PgnError::TooLong { .. })));
}

#[test]
fn endless_input_streams_in_constant_memory() {
    // A reader over 200,000 generated games (≈ 30 MB) is never given more
    // than one game's worth of memory: here we check that it reads them all
    // from a generator that never holds the whole text.
    struct Generator {
        game: Vec<u8>,
        left: usize,
        at: usize,
    }
    impl Read for Generator {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let mut n = 0;
            while n < buf.len() && self.left > 0 {
                let k = (self.game.len() - self.at).min(buf.len() - n);
                buf[n..n + k].copy_from_slice(&self.game[self.at..self.at + k]);
                n += k;
                self.at += k;
                if self.at == self.game.len() {
                    self.at = 0;
                    self.left -= 1;
                }
            }
            Ok(n)
        }
    }
    let game = format!("[Event \"g\"]\n[Result \"1-0\"]\n\n{SCHOLAR} 1-0\n\n").into_bytes();
    let count = 20_000;
    let summary = validate_games(Generator { game, left: count, at: 0 }, |r| assert!(r.is_ok())).unwrap();
    assert_eq!(summary, Summary { games: count as u64, plies: 7 * count as u64, errors: 0 });
}

#[test]
fn read_errors_are_reported() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("disk on fire"));
            }
            self.0 -= 1;
            let text = b"1. e4 e5 *\n";
            buf[..text.len()].copy_from_slice(text);
            Ok(text.len())
        }
    }
    let mut n = 0;
    let err = validate_games(Failing(3), |_| n += 1).unwrap_err();
    assert_eq!(err.to_string(), "disk on fire");
    assert!(n >= 2);
    let results: Vec<_> = read_games(Failing(1)).collect();
    assert!(matches!(results.last(), Some(Err(GameError::Read(PgnError::Io(_))))));
}

// -------------------------------------------------------------- validator

#[test]
fn validation_replays_and_reports_final_positions() {
    let pgn =
        format!("[Event \"a\"]\n[Result \"1-0\"]\n\n{SCHOLAR} 1-0\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke2 *\n");
    let (lines, summary) = check(pgn.as_bytes());
    assert_eq!(
        lines,
        [
            format!("game 1: ok {SCHOLAR_FEN}"),
            "game 2: ok rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 1 2".to_owned()
        ]
    );
    assert_eq!(summary, Summary { games: 2, plies: 10, errors: 0 });
}

#[test]
fn validation_errors() {
    // Illegal move at ply 3.
    let (ply, e) = first_error(b"1. e4 e5 2. Ke3 Nc6 *");
    assert_eq!(ply, 3);
    assert!(matches!(e, CheckError::San(SanError::Illegal(ref s)) if s == "Ke3"), "{e}");
    // Not SAN.
    let (ply, e) = first_error(b"1. e4 e5 2. Nf3 xyz *");
    assert_eq!(ply, 4);
    assert!(matches!(e, CheckError::San(SanError::Syntax(_))), "{e}");
    // Ambiguous.
    let (ply, e) = first_error(b"1. Nf3 d5 2. Nc3 e5 3. Nd4 Nf6 4. Nb5 *");
    assert_eq!(ply, 7);
    assert!(matches!(e, CheckError::San(SanError::Ambiguous { .. })), "{e}");
    // Bad FEN tag.
    let (ply, e) = first_error(b"[SetUp \"1\"]\n[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *");
    assert_eq!(ply, 0);
    assert!(matches!(e, CheckError::BadFen { .. }), "{e}");
    // Checkmate, but the result says otherwise.
    let (ply, e) = first_error(format!("[Result \"0-1\"]\n\n{SCHOLAR} 0-1").as_bytes());
    assert_eq!(ply, 7);
    assert!(matches!(e, CheckError::MateResult { result: GameResult::BlackWins, .. }), "{e}");
    let (_, e) = first_error(format!("{SCHOLAR} 1/2-1/2").as_bytes());
    assert!(matches!(e, CheckError::MateResult { .. }), "{e}");
    // Stalemate with a decisive result.
    let stalemate = b"[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Qf7 1-0";
    let (ply, e) = first_error(stalemate);
    assert_eq!(ply, 1);
    assert!(matches!(e, CheckError::StalemateResult(GameResult::WhiteWins)), "{e}");
    // Result tag and marker disagree.
    let (_, e) = first_error(b"[Result \"1-0\"]\n\n1. e4 0-1");
    assert!(matches!(e, CheckError::ResultDisagrees { .. }), "{e}");
    let (_, e) = first_error(b"[Result \"white won\"]\n\n1. e4");
    assert!(matches!(e, CheckError::BadResultTag(_)), "{e}");
    // Variants.
    let (_, e) = first_error(b"[Variant \"Crazyhouse\"]\n\n1. e4 *");
    assert!(matches!(e, CheckError::UnsupportedVariant(_)), "{e}");
    let (_, e) = first_error(b"[Variant \"Chess960\"]\n\n1. e4 *");
    assert!(matches!(e, CheckError::Chess960WithoutFen), "{e}");
    // Still fine: mate with `*`, mate with a win on time recorded for the
    // mated side, no result at all, and moves after an error are ignored.
    let (lines, summary) = check(
        format!(
            "{SCHOLAR} *\n[Result \"0-1\"]\n[Termination \"Time forfeit\"]\n\n{SCHOLAR} 0-1\n\n[Event \"x\"]\n{SCHOLAR}\n"
        )
        .as_bytes(),
    );
    assert_eq!(summary.errors, 0, "{lines:?}");
    let (lines, summary) = check(b"1. e4 e5 2. Qxf7 Nc6 3. Nf3 *");
    assert_eq!(lines, ["game 1: error at ply 3: Qxf7 is not a legal move in this position"]);
    assert_eq!(summary, Summary { games: 1, plies: 2, errors: 1 });
}

#[test]
fn fen_start_positions() {
    // Black to move from a FEN, with move numbers to match.
    let pgn = b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n\n40... Kd7 41. e4 Ke6 *";
    let (lines, _) = check(pgn);
    assert_eq!(lines, ["game 1: ok 8/8/4k3/8/4P3/8/8/4K3 w - - 1 42"]);
    // Chess960 (rooks on b and h): castling written O-O and O-O-O.
    let pgn = b"[Variant \"Chess960\"]\n[FEN \"1r2k2r/8/8/8/8/8/8/1R2K2R w HBhb - 0 1\"]\n\n1. O-O O-O-O *";
    let (lines, summary) = check(pgn);
    assert_eq!(summary.errors, 0, "{lines:?}");
    assert_eq!(lines, ["game 1: ok 2kr3r/8/8/8/8/8/8/1R3RK1 w - - 2 2"]);
    // The same FEN without the variant tag still reads (Shredder/X-FEN
    // castling switches to Chess960 when needed).
    let pgn = b"[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. g3 Nc8e7 *";
    assert_eq!(check(pgn).1.errors, 0);
    // "From Position" is lichess's name for a standard game from a FEN.
    let pgn = b"[Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 *";
    assert_eq!(check(pgn).1.errors, 0);
}

// ----------------------------------------------------------------- writer

fn replay(sans: &[&str]) -> (Position, Vec<arbiter_chess::Move>) {
    let start = Position::startpos();
    let mut pos = start;
    let mut moves = Vec::new();
    for s in sans {
        let m = pos.parse_san(s).unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    (start, moves)
}

#[test]
fn writer_tag_order_escapes_and_movetext() {
    let (start, moves) = replay(&["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    let pm: Vec<PgnMove> = moves
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let p = PgnMove::new(m).with_clock(Duration::from_secs(180 - i as u64));
            if i == 2 { p.with_comment("Arbiter: clock \"reset\"") } else { p }
        })
        .collect();
    let tags = [
        ("TimeControl", "180+0"),
        ("White", "Doe, \"JD\" \\ Jr"),
        ("Result", "0-1"), // replaced by the result given
        ("Event", "Club"),
        ("Termination", "normal"),
    ];
    let text = format_game(&tags, &start, &pm, GameResult::WhiteWins, WriteOptions::default()).unwrap();
    let expected = r#"[Event "Club"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Doe, \"JD\" \\ Jr"]
[Black "?"]
[Result "1-0"]
[TimeControl "180+0"]
[Termination "normal"]

1. e4 {[%clk 0:03:00]} 1... e5 {[%clk 0:02:59]} 2. Bc4 {[%clk 0:02:58] Arbiter:
clock "reset"} 2... Nc6 {[%clk 0:02:57]} 3. Qh5 {[%clk 0:02:56]} 3... Nf6
{[%clk 0:02:55]} 4. Qxf7# {[%clk 0:02:54]} 1-0

"#;
    assert_eq!(text, expected);
    assert!(text.lines().all(|l| l.chars().count() <= 80));
    let back = games(text.as_bytes());
    assert_eq!(back[0].tag("White"), Some("Doe, \"JD\" \\ Jr"));
    assert_eq!(Comment::new(&back[0].moves[2].comments[0]).remark(), "Arbiter: clock \"reset\"");
    // Without annotations.
    let plain: Vec<PgnMove> = moves.iter().map(|&m| m.into()).collect();
    let text = format_game(&[("Event", "x")], &start, &plain, GameResult::WhiteWins, WriteOptions::default())
        .unwrap();
    assert!(text.ends_with("\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n"), "{text}");
}

#[test]
fn writer_rejects_bad_input() {
    let (start, moves) = replay(&["e4", "e5"]);
    let mut pm: Vec<PgnMove> = moves.iter().map(|&m| m.into()).collect();
    let mut out = Vec::new();
    // An illegal move (the first move again).
    pm.push(pm[0].clone());
    assert!(matches!(
        write_game(&mut out, &[("Event", "x")], &start, &pm, GameResult::Unknown),
        Err(WriteError::IllegalMove { ply: 3, .. })
    ));
    pm.pop();
    assert!(matches!(
        write_game(&mut out, &[("Bad Name", "x")], &start, &pm, GameResult::Unknown),
        Err(WriteError::BadTagName(_))
    ));
    assert!(matches!(
        write_game(&mut out, &[("Event", "two\nlines")], &start, &pm, GameResult::Unknown),
        Err(WriteError::BadTagValue(_))
    ));
    pm[1].comment = Some("a } b".into());
    assert!(matches!(
        write_game(&mut out, &[("Event", "x")], &start, &pm, GameResult::Unknown),
        Err(WriteError::BadComment(2))
    ));
    assert!(out.is_empty(), "nothing is written for an invalid game");
}

#[test]
fn writer_comment_before_the_first_move() {
    let (start, moves) = replay(&["e4", "e5"]);
    let pm: Vec<PgnMove> =
        moves.iter().map(|&m| PgnMove::new(m).with_clock(Duration::from_secs(299))).collect();
    let remark = "Article 6.7.1 (FIDE-6.7a): Black is at the board; Article 4.3.1 (FIDE-4.3a): \
                  Touch-move binds White: the knight on g1 was touched and must be moved";
    let options = WriteOptions::default();
    let text =
        format_game_with_comment(&[("Event", "x")], &start, Some(remark), &pm, GameResult::Unknown, options)
            .unwrap();
    let movetext = text.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert!(movetext.starts_with("{Article 6.7.1 (FIDE-6.7a): Black is at the board;"), "{text}");
    assert!(movetext.contains("moved} 1. e4 {[%clk 0:04:59]}"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    // Read back: the game's comment, not the first move's.
    let back = games(text.as_bytes());
    assert_eq!(back[0].comments.len(), 1, "{text}");
    assert_eq!(back[0].comments[0].split_whitespace().collect::<Vec<_>>().join(" "), remark);
    assert!(back[0].moves[0].comments.iter().all(|c| !c.contains("FIDE")), "{text}");
    assert_eq!(back[0].moves[0].clock, Some(Duration::from_secs(299)));
    assert_eq!(sans(&back[0]), ["e4", "e5"]);
    let (lines, summary) = check(text.as_bytes());
    assert_eq!(summary.errors, 0, "{lines:?}");
    // Black to move first: the comment, then the number with dots.
    let start = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 40").unwrap();
    let kd7 = start.parse_san("Kd7").unwrap();
    let text = format_game_with_comment(
        &[("Event", "x")],
        &start,
        Some("clock set"),
        &[PgnMove::new(kd7)],
        GameResult::Draw,
        options,
    )
    .unwrap();
    assert!(text.ends_with("\n\n{clock set} 40... Kd7 1/2-1/2\n\n"), "{text}");
    // No moves: the comment before the result; none: as `format_game`.
    let text =
        format_game_with_comment(&[("Event", "x")], &start, Some("a b"), &[], GameResult::Unknown, options)
            .unwrap();
    assert!(text.ends_with("\n\n{a b} *\n\n"), "{text}");
    assert_eq!(games(text.as_bytes())[0].comments.len(), 1);
    let none = format_game_with_comment(&[("Event", "x")], &start, None, &[], GameResult::Unknown, options);
    assert_eq!(
        none.unwrap(),
        format_game(&[("Event", "x")], &start, &[], GameResult::Unknown, options).unwrap()
    );
    // A closing brace cannot be written inside a comment.
    assert!(matches!(
        format_game_with_comment(&[("Event", "x")], &start, Some("a } b"), &[], GameResult::Unknown, options),
        Err(WriteError::BadComment(0))
    ));
}

#[test]
fn writer_fen_start_and_wrapping() {
    let start = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 40").unwrap();
    let mut pos = start;
    let mut pm = Vec::new();
    for s in ["Kd7", "e4", "Ke6", "Kf2"] {
        let m = pos.parse_san(s).unwrap();
        pos.play_unchecked(m);
        pm.push(PgnMove::new(m).with_comment("a long remark that needs wrapping because it is long"));
    }
    let text = format_game(
        &[("FEN", "ignored"), ("SetUp", "0")],
        &start,
        &pm,
        GameResult::Draw,
        WriteOptions::default(),
    )
    .unwrap();
    assert!(text.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n"), "{text}");
    assert!(!text.contains("ignored"));
    assert!(text.contains("\n\n40... Kd7 {a long"), "{text}");
    assert!(text.contains("41. e4 {"), "{text}");
    assert!(text.contains("41... Ke6 {"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let narrow =
        format_game(&[("Event", "x")], &start, &pm, GameResult::Draw, WriteOptions { line_width: 30 })
            .unwrap();
    let movetext = narrow.split("\n\n").nth(1).unwrap();
    assert!(movetext.lines().all(|l| l.chars().count() <= 30), "{narrow}");
    let (lines, summary) = check(text.as_bytes());
    assert_eq!(summary.errors, 0, "{lines:?}");
    // Chess960: the variant is named, castling written O-O.
    let start = Position::chess960(518).unwrap();
    let mut pos = start;
    let mut pm = Vec::new();
    for s in ["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "O-O", "O-O"] {
        let m = pos.parse_san(s).unwrap();
        pos.play_unchecked(m);
        pm.push(PgnMove::new(m));
    }
    let text =
        format_game(&[("Event", "960")], &start, &pm, GameResult::Unknown, WriteOptions::default()).unwrap();
    assert!(text.contains("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n"), "{text}");
    assert!(text.contains("4. O-O O-O *"), "{text}");
    let (lines, summary) = check(text.as_bytes());
    assert_eq!(summary.errors, 0, "{lines:?}");
    assert_eq!(lines[0], format!("game 1: ok {}", pos.fen()));
}

#[test]
fn round_trip_write_then_read() {
    // Real games (with clocks and comments) through the writer and back.
    let Some(path) = common::data_file("pgn/lichess_db_1000k.pgn") else { return };
    let file = std::fs::File::open(path).unwrap();
    let mut out = Vec::new();
    let mut originals = Vec::new();
    for game in read_games(file).take(60) {
        let game = game.unwrap();
        let mut pos = Position::startpos();
        let mut pm = Vec::new();
        for (i, gm) in game.moves.iter().enumerate() {
            let m = pos.parse_san(&gm.san).unwrap();
            let mut p = PgnMove::new(m);
            p.clock = gm.clock;
            if i % 7 == 3 {
                p.comment = Some(format!("ruling {i}: \"noted\""));
                p.nags = vec![1, 146];
            }
            pos.play_unchecked(m);
            pm.push(p);
        }
        let result = game.result().unwrap_or(GameResult::Unknown);
        write_game(&mut out, &game.tags, &Position::startpos(), &pm, result).unwrap();
        originals.push((game, pm));
    }
    let text = String::from_utf8(out).unwrap();
    assert!(text.lines().all(|l| l.starts_with('[') || l.chars().count() <= 80));
    let back: Vec<Game> = games(text.as_bytes());
    assert_eq!(back.len(), originals.len());
    for ((orig, pm), read) in originals.iter().zip(&back) {
        // The same tags: the roster first, then the others in order.
        let mut expected: Vec<(String, String)> = Vec::new();
        for name in arbiter_chess::pgn::SEVEN_TAG_ROSTER {
            let v = orig.tag(name).unwrap_or(if name == "Date" { "????.??.??" } else { "?" });
            expected.push((name.to_owned(), v.to_owned()));
        }
        expected.extend(
            orig.tags
                .iter()
                .filter(|(n, _)| !arbiter_chess::pgn::SEVEN_TAG_ROSTER.contains(&n.as_str()))
                .cloned(),
        );
        assert_eq!(read.tags, expected);
        // The same moves (lichess SAN is canonical), clocks, comments, NAGs.
        assert_eq!(sans(read), sans(orig));
        assert_eq!(read.outcome, orig.result());
        for (i, (r, p)) in read.moves.iter().zip(pm).enumerate() {
            assert_eq!(r.clock, p.clock, "ply {}", i + 1);
            assert_eq!(r.nags, p.nags);
            let remark = r.comments.first().map(|c| Comment::new(c).remark()).filter(|s| !s.is_empty());
            assert_eq!(remark, p.comment);
        }
    }
    // And a writer → reader → writer cycle is a fixed point.
    let again: Vec<u8> = {
        let mut out = Vec::new();
        for g in &back {
            let mut pos = Position::startpos();
            let pm: Vec<PgnMove> = g
                .moves
                .iter()
                .map(|gm| {
                    let m = pos.parse_san(&gm.san).unwrap();
                    pos.play_unchecked(m);
                    let mut p = PgnMove::new(m);
                    p.clock = gm.clock;
                    p.nags = gm.nags.clone();
                    p.comment =
                        gm.comments.first().map(|c| Comment::new(c).remark()).filter(|s| !s.is_empty());
                    p
                })
                .collect();
            write_game(&mut out, &g.tags, &Position::startpos(), &pm, g.result().unwrap()).unwrap();
        }
        out
    };
    assert_eq!(String::from_utf8(again).unwrap(), text);
}

// ------------------------------------------------------ real collections

fn validate_file(path: &Path) -> Summary {
    let name = path.display();
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut bad = Vec::new();
    let summary = validate_games(file, |r| {
        if !r.is_ok() && bad.len() < 5 {
            bad.push(r.to_string());
        }
    })
    .unwrap();
    assert!(bad.is_empty(), "{name}: {bad:?}");
    summary
}

/// Games, mainline plies, games with a clock, clock comments (via the
/// convenient API).
fn count_file(path: &Path) -> (usize, usize, usize, usize) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let (mut games, mut plies, mut with_clock, mut clocks) = (0, 0, 0, 0);
    for g in read_games(file) {
        let g = g.unwrap();
        games += 1;
        plies += g.moves.len();
        let c = g.moves.iter().filter(|m| m.clock.is_some()).count();
        clocks += c;
        with_clock += usize::from(c > 0);
        // One `[%clk]` per comment at most.
        assert!(g.moves.iter().all(|m| m.comments.iter().filter(|c| c.contains("[%clk")).count() <= 1));
    }
    (games, plies, with_clock, clocks)
}

#[test]
fn lichess_2013_collection() {
    let Some(name) = common::data_file("pgn/lichess_db_standard_rated_2013-01_truncated_5000.pgn") else {
        return;
    };
    assert_eq!(validate_file(&name), Summary { games: 5000, plies: 329_327, errors: 0 });
    assert_eq!(count_file(&name), (5000, 329_327, 0, 0));
}

#[test]
fn lichess_2025_collection_with_clocks() {
    let Some(name) = common::data_file("pgn/lichess_db_1000k.pgn") else { return };
    assert_eq!(validate_file(&name), Summary { games: 438, plies: 28_538, errors: 0 });
    assert_eq!(count_file(&name), (438, 28_538, 433, 28_538));
}

#[test]
fn alekhine_collection_crlf() {
    let Some(name) = common::data_file("pgn/Alekhine.pgn") else { return };
    assert_eq!(validate_file(&name), Summary { games: 1661, plies: 132_637, errors: 0 });
    assert_eq!(count_file(&name), (1661, 132_637, 0, 0));
}

#[test]
fn twic_collection() {
    let Some(name) = common::data_file("pgn/twic0920.pgn") else { return };
    assert_eq!(validate_file(&name), Summary { games: 2245, plies: 182_591, errors: 0 });
    assert_eq!(count_file(&name), (2245, 182_591, 0, 0));
}

#[test]
fn final_positions_of_real_games() {
    // Spot checks of final positions (the same as python-chess gives).
    for (name, index, fen) in [
        ("Alekhine.pgn", 1, "7k/p7/1bP5/4P1p1/5nqp/6P1/7P/2RQ3K b - - 1 45"),
        ("Alekhine.pgn", 1661, "r3r1k1/ppp2ppp/2n5/3R1b2/2P5/P3p3/6PP/Bq1BQ1KR w - - 10 23"),
        ("lichess_db_1000k.pgn", 100, "r6k/p4q1p/1p2p1rQ/2p1Pp1R/5P2/8/P1P3PP/1R5K w - - 6 26"),
        ("twic0920.pgn", 2000, "8/6p1/2k5/7p/1KP2r1P/8/8/7R w - - 7 50"),
    ] {
        let Some(path) = common::data_file(&format!("pgn/{name}")) else { continue };
        let file = std::fs::File::open(path).unwrap();
        let mut found = None;
        validate_games(file, |r| {
            if r.index == index {
                found = Some(r.to_string());
            }
        })
        .unwrap();
        assert_eq!(found.unwrap(), format!("game {index}: ok {fen}"));
    }
}

// ------------------------------------------- SAN reading on the fast path

/// What `parse_san` must answer for a SAN without promotion piece: the
/// unique legal move that fits, else the kind of error.
fn expected_san(
    pos: &Position,
    legal: &[arbiter_chess::Move],
    role: arbiter_chess::Role,
    file: Option<arbiter_chess::File>,
    rank: Option<arbiter_chess::Rank>,
    to: arbiter_chess::Square,
) -> Result<arbiter_chess::Move, &'static str> {
    let mut found = Vec::new();
    let mut promotion = false;
    for &m in legal {
        let from = m.from();
        if m.is_castle()
            || m.to() != to
            || pos.board().role_at(from) != Some(role)
            || file.is_some_and(|f| f != from.file())
            || rank.is_some_and(|r| r != from.rank())
            || (role == arbiter_chess::Role::Pawn && file.is_none() && from.file() != to.file())
        {
            continue;
        }
        if m.is_promotion() {
            promotion = true;
        } else {
            found.push(m);
        }
    }
    match found.as_slice() {
        [m] => Ok(*m),
        [] if promotion => Err("promotion"),
        [] => Err("illegal"),
        _ => Err("ambiguous"),
    }
}

fn san_kind(r: &Result<arbiter_chess::Move, SanError>) -> Result<arbiter_chess::Move, &'static str> {
    match r {
        Ok(m) => Ok(*m),
        Err(SanError::MissingPromotion(_)) => Err("promotion"),
        Err(SanError::Illegal(_)) => Err("illegal"),
        Err(SanError::Ambiguous { .. }) => Err("ambiguous"),
        Err(SanError::Syntax(s)) => panic!("syntax error for {s}"),
    }
}

fn check_san_position(pos: &Position) {
    use arbiter_chess::{Role, Square};
    let legal = pos.legal_moves();
    for role in Role::ALL {
        let letter = if role == Role::Pawn { String::new() } else { role.upper_char().to_string() };
        let ours = pos.board().by_role(role) & pos.board().by_color(pos.turn());
        for to in Square::all() {
            let text = format!("{letter}{to}");
            let got = san_kind(&pos.parse_san(&text));
            assert_eq!(got, expected_san(pos, &legal, role, None, None, to), "{text} in {}", pos.fen());
            // Disambiguated forms, where some move of this role lands on `to`.
            if !legal.iter().any(|m| m.to() == to && pos.board().role_at(m.from()) == Some(role)) {
                continue;
            }
            for from in ours {
                for (file, rank) in [
                    (Some(from.file()), None),
                    (None, Some(from.rank())),
                    (Some(from.file()), Some(from.rank())),
                ] {
                    let text = format!(
                        "{letter}{}{}{to}",
                        file.map(|f| f.char().to_string()).unwrap_or_default(),
                        rank.map(|r| r.char().to_string()).unwrap_or_default()
                    );
                    let got = san_kind(&pos.parse_san(&text));
                    assert_eq!(
                        got,
                        expected_san(pos, &legal, role, file, rank, to),
                        "{text} in {}",
                        pos.fen()
                    );
                }
            }
        }
    }
}

#[test]
fn san_reading_agrees_with_the_legal_move_list() {
    let mut count = 0;
    // Tricky positions (pins, checks, en passant, promotions) and their
    // successors two plies deep.
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
        "3k4/8/8/8/3q4/8/3R4/3K4 w - - 0 1",
        "4k3/8/8/8/1b6/8/3N4/4K2R w K - 0 1",
        "N3k2N/8/8/8/8/8/8/N3K2N w - - 0 1",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        check_san_position(&pos);
        count += 1;
        for &m in pos.legal_moves().iter() {
            let p1 = pos.after(m);
            check_san_position(&p1);
            count += 1;
            for &m2 in p1.legal_moves().iter().step_by(3) {
                check_san_position(&p1.after(m2));
                count += 1;
            }
        }
    }
    // Positions of real games (the checks above have run when they are absent).
    let Some(path) = common::data_file("pgn/Alekhine.pgn") else { return };
    let file = std::fs::File::open(path).unwrap();
    for game in read_games(std::io::BufReader::new(file)).step_by(11).take(60) {
        let mut pos = Position::startpos();
        for san in game.unwrap().sans() {
            check_san_position(&pos);
            count += 1;
            let m = pos.parse_san(san).unwrap();
            pos.play_unchecked(m);
        }
    }
    assert!(count > 5000, "{count}");
}
