//! A scoresheet can say everything: moves written in SAN or long algebraic
//! as the player wrote or played them, legal or not, are read into the
//! movement made and ruled under Articles 4, 7 and 9 (never refused as "not
//! a legal move"); ambiguous text names its candidates; two touches
//! reported as simultaneous count the own piece first (4.3.3).

mod common;

use arbiter_chess::{Color, Position, Role};
use arbiter_laws::event::{ClaimKind, Event, MoveInput};
use arbiter_laws::notation::{MoveTextError, read_move};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, RejectReason, Ruling};
use common::*;

/// Reads `text` for `mover` in the game's position.
fn read(s: &S, mover: Color, text: &str) -> Result<MoveInput, MoveTextError> {
    read_move(text, s.g.position(), mover, false)
}

/// Makes the move written `text` for `color` and returns the rulings.
fn write(s: &mut S, color: Color, text: &str) -> Vec<Ruling> {
    let mv = read(s, color, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    s.ev(Event::MakeMove { color, mv })
}

fn fen(f: &str) -> Position {
    Position::from_fen(f).unwrap()
}

fn input(from: &str, to: &str, promotion: Option<Role>, castle: bool) -> MoveInput {
    MoveInput { from: sq(from), to: sq(to), promotion, castle }
}

fn not_completed(rs: &[Ruling]) -> Option<String> {
    rs.iter().find_map(|r| match &r.decision {
        Decision::IllegalMoveNotCompleted { description, .. } if r.rule == RuleId::Fide7_5_1 => {
            Some(description.clone())
        }
        _ => None,
    })
}

#[test]
fn uci_is_read_as_written_legal_or_not() {
    let pos = Position::startpos();
    assert_eq!(read_move("e2e4", &pos, W, false), Ok(input("e2", "e4", None, false)));
    assert_eq!(read_move("e2e5", &pos, W, false), Ok(input("e2", "e5", None, false)));
    assert_eq!(read_move(" e7e8q ", &pos, W, true), Ok(input("e7", "e8", Some(Role::Queen), true)));
}

#[test]
fn legal_san_is_the_legal_move_even_where_a_pinned_piece_could_reach() {
    // The knight on c3 is pinned by the bishop on b4: `Ne2` is the g1 knight.
    let pos = fen("rnbqk1nr/pppp1ppp/8/4p3/1b2P3/2NP4/PPP2PPP/R1BQKBNR w KQkq - 0 4");
    assert_eq!(read_move("Ne2", &pos, W, false), Ok(input("g1", "e2", None, false)));
    assert_eq!(read_move("Nf3", &pos, W, false), Ok(input("g1", "f3", None, false)));
    assert_eq!(
        read_move("O-O", &fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), W, false),
        Ok(input("e1", "g1", None, true))
    );
}

#[test]
fn an_illegal_knight_move_in_san_is_ruled_under_7_5_1() {
    // Nf6-g6 written in long algebraic.
    let mut s = S::otb("90+30", None);
    s.play("e4 Nf6 d4");
    assert_eq!(read(&s, B, "Nf6-g6"), Ok(input("f6", "g6", None, false)));
    let rs = write(&mut s, B, "Nf6-g6");
    assert_eq!(not_completed(&rs).as_deref(), Some("Nf6-g6"), "{rs:?}");
    let rs = s.press(B);
    assert_eq!(illegal_moves(&rs), vec![(RuleId::Fide7_5_1, 1)], "{rs:?}");
    // `Ng6` alone: no knight moves so, and Black has two: the error names both.
    assert_eq!(
        read(&s, B, "Ng6").unwrap_err().to_string(),
        "Ng6: none of black's knights can move to g6; it could be Nb8-g6 or Nf6-g6: write the origin square"
    );
    // With one knight, `Ng6` is that knight's movement.
    let mut one = S::otb("90+30", Some("4k3/8/5n2/8/8/8/8/4K3 b - - 0 1"));
    assert_eq!(read(&one, B, "Ng6"), Ok(input("f6", "g6", None, false)));
    let rs = write(&mut one, B, "Ng6");
    assert_eq!(not_completed(&rs).as_deref(), Some("Nf6-g6"), "{rs:?}");
}

#[test]
fn a_knight_movement_with_two_candidates_names_both() {
    let pos = fen("4k2N/8/8/8/5N2/8/8/4K3 w - - 0 1");
    let e = read_move("Ng6", &pos, W, false).unwrap_err();
    assert_eq!(
        e,
        MoveTextError::Ambiguous { text: "Ng6".into(), candidates: vec!["Nf4-g6".into(), "Nh8-g6".into()] }
    );
    assert_eq!(e.to_string(), "Ng6 could be Nf4-g6 or Nh8-g6; write the origin square");
    // With the origin, each is read.
    assert_eq!(read_move("Nf4-g6", &pos, W, false), Ok(input("f4", "g6", None, false)));
    assert_eq!(read_move("Nhg6", &pos, W, false), Ok(input("h8", "g6", None, false)));
}

#[test]
fn an_illegal_movement_with_two_candidates_is_ambiguous() {
    // Neither rook may move to e2 (check from the rook on e8 is ignored in
    // the geometry, but the rooks on a2 and h2 both reach e2): ambiguous.
    let pos = fen("4r1k1/8/8/8/8/8/R6R/4K3 w - - 0 1");
    let e = read_move("Re2", &pos, W, false).unwrap_err();
    assert!(
        matches!(&e, MoveTextError::Ambiguous { candidates, .. } if candidates == &["Ra2-e2", "Rh2-e2"]),
        "{e}"
    );
}

#[test]
fn a_bishop_jumping_over_a_pawn_is_the_bishop_that_could() {
    // 1.d4 d5: Bb5 with the e2 pawn in the way: Bf1-b5, ruled illegal.
    let mut s = S::otb("90+30", None);
    s.play("d4 d5");
    assert_eq!(read(&s, W, "Bb5"), Ok(input("f1", "b5", None, false)));
    let rs = write(&mut s, W, "Bb5+");
    assert_eq!(not_completed(&rs).as_deref(), Some("Bf1-b5"), "{rs:?}");
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), vec![(RuleId::Fide7_5_1, 1)], "{rs:?}");
    // 4.3.1 after reinstatement: the bishop was moved but has no legal
    // move, so any legal move may replace it.
    assert!(s.g.obligation().is_none());
}

#[test]
fn a_king_left_in_check_in_san_is_ruled_illegal() {
    // The knight on c3 is pinned; `Nd5` can only be that knight.
    let mut s = S::otb("90+30", Some("rnbqk1nr/pppp1ppp/8/4p3/1b6/2NP4/PPP1PPPP/R1BQKBNR w KQkq - 1 3"));
    assert_eq!(read(&s, W, "Nd5"), Ok(input("c3", "d5", None, false)));
    write(&mut s, W, "Nd5");
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), vec![(RuleId::Fide7_5_1, 1)], "{rs:?}");
}

#[test]
fn an_illegal_castling_in_san_is_the_king_towards_its_square() {
    // The king moved and came back: no castling right; O-O is an illegal move.
    let mut s = S::otb("90+30", Some("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"));
    s.play("Kf1 Kf8 Ke1 Ke8");
    assert_eq!(read(&s, W, "O-O"), Ok(input("e1", "g1", None, true)));
    assert_eq!(read(&s, W, "0-0-0"), Ok(input("e1", "c1", None, true)));
    let rs = write(&mut s, W, "O-O");
    assert_eq!(not_completed(&rs).as_deref(), Some("Ke1-g1"), "{rs:?}");
    let rs = s.press(W);
    assert_eq!(illegal_moves(&rs), vec![(RuleId::Fide7_5_1, 1)], "{rs:?}");
    // A king off its first rank has no castling movement to read.
    let pos = fen("4k3/8/8/8/8/8/4K3/7R w - - 0 1");
    assert!(matches!(read_move("O-O", &pos, W, false), Err(MoveTextError::NoCastlingMovement { .. })));
}

#[test]
fn an_unfinished_promotion_in_san_and_long_algebraic_is_ruled_under_7_5_2() {
    for text in ["cxb8", "c7-b8", "cxb8+"] {
        let mut s = S::otb("90+30", Some("1n2k3/2P5/8/8/8/8/8/4K3 w - - 0 1"));
        assert_eq!(read(&s, W, text), Ok(input("c7", "b8", None, false)), "{text}");
        let rs = write(&mut s, W, text);
        assert!(rs.iter().any(|r| r.rule == RuleId::Fide7_5_2), "{text}: {rs:?}");
        let rs = s.press(W);
        assert_eq!(illegal_moves(&rs).iter().map(|m| m.1).collect::<Vec<_>>(), vec![1], "{text}: {rs:?}");
    }
    let mut s = S::otb("90+30", Some("4k3/8/P7/8/8/8/4p3/K7 b - - 0 1"));
    for text in ["e1", "e2-e1"] {
        assert_eq!(read(&s, B, text), Ok(input("e2", "e1", None, false)), "{text}");
    }
    write(&mut s, B, "e2-e1");
    let rs = s.press(B);
    assert_eq!(illegal_moves(&rs).iter().map(|m| m.1).collect::<Vec<_>>(), vec![1], "{rs:?}");
    // With the piece written, the promotion is legal.
    let s = S::otb("90+30", Some("1n2k3/2P5/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(read(&s, W, "cxb8=N"), Ok(input("c7", "b8", Some(Role::Knight), false)));
    assert_eq!(read(&s, W, "c7-c8Q"), Ok(input("c7", "c8", Some(Role::Queen), false)));
}

#[test]
fn pawn_moves_are_read_on_their_file_legal_or_not() {
    let mut s = S::otb("90+30", None);
    // e2-e5: three squares at once, the nearest pawn behind e5.
    assert_eq!(read(&s, W, "e5"), Ok(input("e2", "e5", None, false)));
    // A capture onto an empty square: the pawn of the file named.
    assert_eq!(read(&s, W, "dxe3"), Ok(input("d2", "e3", None, false)));
    let rs = write(&mut s, W, "e5");
    assert_eq!(not_completed(&rs).as_deref(), Some("Pe2-e5"), "{rs:?}");
    // No pawn on the file: a clear error, not a guess.
    let pos = fen("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1");
    assert_eq!(
        read_move("e4", &pos, W, false).unwrap_err().to_string(),
        "e4: white has no pawn on the e-file"
    );
}

#[test]
fn the_mover_not_having_the_move_is_read_for_him_and_refused_by_the_laws() {
    let mut s = S::otb("90+30", None);
    // Black writes e5 while White has the move: e7-e5, and 1.3 refuses it.
    let mv = read(&s, B, "e5").unwrap();
    assert_eq!(mv, input("e7", "e5", None, false));
    let r = s.rej(Event::MakeMove { color: B, mv });
    assert_eq!(r.reason, RejectReason::NotYourTurn);
}

#[test]
fn long_algebraic_checks_the_piece_letter() {
    let pos = Position::startpos();
    assert_eq!(read_move("Ng1-f3", &pos, W, false), Ok(input("g1", "f3", None, false)));
    // Coordinate notation without a letter: the piece on the origin.
    assert_eq!(read_move("g1-f3", &pos, W, false), Ok(input("g1", "f3", None, false)));
    assert_eq!(
        read_move("Bg1-f3", &pos, W, false).unwrap_err().to_string(),
        "Bg1-f3: the piece on g1 is a knight, not a bishop"
    );
    assert!(matches!(read_move("Qz9", &pos, W, false), Err(MoveTextError::Syntax { .. })));
    assert!(matches!(read_move("e2-e2", &pos, W, false), Err(MoveTextError::Syntax { .. })));
    assert_eq!(read_move("  ", &pos, W, false), Err(MoveTextError::Empty));
}

#[test]
fn no_knight_able_to_move_there_is_an_error_naming_the_knights() {
    let e = read_move("Nf6", &Position::startpos(), W, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Nf6: none of white's knights can move to f6; it could be Nb1-f6 or Ng1-f6: write the origin square"
    );
}

#[test]
fn an_illegal_intended_move_in_san_is_ruled_under_9_5_3() {
    // Black writes the intended move `Ke7`, illegal (his e7 pawn is there),
    // where ...Ng8 would repeat the position a third time: the claim is
    // incorrect (9.5.3), not refused as unreadable.
    let mut s = S::otb("90+30", None);
    s.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    let intended = read(&s, B, "Ke7").unwrap();
    assert_eq!(intended, input("e8", "e7", None, false));
    let rs = s.ev(Event::ClaimDraw { color: B, kind: ClaimKind::Threefold, intended: Some(intended) });
    assert!(
        rs.iter()
            .any(|r| matches!(r.decision, Decision::ClaimIncorrect { .. }) && r.rule == RuleId::Fide9_5c),
        "{rs:?}"
    );
    assert!(s.g.end().is_none());
}

#[test]
fn simultaneous_touches_count_the_own_piece_first() {
    // 1.e4 d5: White touches his knight g1 and the pawn d5 at once. 4.3.3:
    // the knight counts as touched first; it cannot capture d5, so the
    // first piece touched that can be moved moves: the knight.
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    let rs = s.ev(Event::SimultaneousTouch { color: W, own: sq("g1"), opponent: sq("d5") });
    assert_eq!(obligations(&rs).len(), 1, "one act, one obligation: {rs:?}");
    assert_eq!(s.allowed(), vec!["Ne2", "Nf3", "Nh3"]);
    // Touched one after the other, opponent's pawn first, the pawn is the
    // first piece: it must be captured.
    let mut t = S::otb("90+30", None);
    t.play("e4 d5");
    t.touch(W, "d5");
    t.touch(W, "g1");
    assert_eq!(t.allowed(), vec!["exd5"]);
    // The squares must be named own piece first, then the opponent's.
    let r = s.rej(Event::SimultaneousTouch { color: W, own: sq("d5"), opponent: sq("g1") });
    assert_eq!(r.reason, RejectReason::InvalidArgument);
    assert_eq!(r.rule, Some(RuleId::Fide4_3c));
}

#[test]
fn simultaneous_touches_by_the_player_not_having_the_move_warn_once() {
    let mut s = S::otb("90+30", None);
    s.play("e4 d5");
    let rs = s.ev(Event::SimultaneousTouch { color: B, own: sq("d5"), opponent: sq("e4") });
    assert_eq!(rs.len(), 1, "{rs:?}");
    assert!(s.g.obligation().is_none());
}

#[test]
fn simultaneous_touches_are_over_the_board_only() {
    let mut s = S::online("5+3", None);
    let r = s.rej(Event::SimultaneousTouch { color: W, own: sq("g1"), opponent: sq("d7") });
    assert_eq!(r.rule, Some(RuleId::Ocr1_3));
}
