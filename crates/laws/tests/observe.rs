//! CFG-OBSERVE = false (A.5.2, A.5.4; AS-23, AS-24, AS-25) is refused by the
//! regulations. These tests pin down why: the positions those scenarios play
//! on cannot be held by `arbiter_chess::Position`, and a game record holds
//! legal moves only. If the chess crate learns to hold them, these tests fail
//! and the mode can be built.

use arbiter_chess::{Color, FenError, FenOptions, GameRecord, Move, Position, PositionError, Square};
use arbiter_laws::game::Game;
use arbiter_laws::regulations::{Regulations, RegulationsError};
use arbiter_laws::time_control::TimeControl;

fn lenient(fen: &str) -> Result<Position, FenError> {
    Position::from_fen_with(fen, FenOptions::LENIENT)
}

#[test]
fn observe_false_is_refused_with_the_reason() {
    let mut r = Regulations::new(TimeControl::parse_human("15+10").unwrap());
    r.observe = false;
    let err = Game::new(r).unwrap_err();
    assert_eq!(err, RegulationsError::NotObserved);
    let text = err.to_string();
    for needle in ["A.5.2", "A.5.4", "both kings in check", "last rank", "legal moves only"] {
        assert!(text.contains(needle), "{needle:?} missing from {text:?}");
    }
}

#[test]
fn as_23_the_position_after_the_unclaimed_illegal_king_move_cannot_be_held() {
    // 4k3/8/8/8/8/8/3r4/4K3 w: White plays Kd1?? into the rook's file and
    // presses; Black to move while White's king is in check.
    assert_eq!(
        lenient("4k3/8/8/8/8/8/3r4/3K4 b - - 1 50").unwrap_err(),
        FenError::Position(PositionError::OppositeCheck(Color::White))
    );
}

#[test]
fn as_24_a_pawn_left_on_its_last_rank_cannot_be_held() {
    // k7/2P5/8/8/8/8/5p2/4R2K b: Black plays f2xe1 leaving the pawn, then
    // White c8=Q+.
    for fen in ["k7/2P5/8/8/8/8/8/4p2K w - - 0 46", "k1Q5/8/8/8/8/8/8/4p2K b - - 0 46"] {
        assert_eq!(
            lenient(fen).unwrap_err(),
            FenError::Position(PositionError::PawnOnBackRank("e1".parse().unwrap())),
            "{fen}"
        );
    }
}

#[test]
fn as_25_both_kings_in_check_cannot_be_held() {
    assert_eq!(
        lenient("R3k3/8/8/8/8/8/8/4K2r b - - 0 1").unwrap_err(),
        FenError::Position(PositionError::OppositeCheck(Color::White))
    );
}

#[test]
fn a_game_record_holds_legal_moves_only() {
    // Even an illegal move whose result is a sound position (a knight moved
    // like a rook) cannot be stored: a record is read back by replaying it.
    let mut record = GameRecord::new(Position::startpos());
    let b1: Square = "b1".parse().unwrap();
    let b3: Square = "b3".parse().unwrap();
    assert!(record.push(Move::normal(b1, b3)).is_err());
    let mut json: serde_json::Value = serde_json::to_value(&record).unwrap();
    json["moves"] = serde_json::json!([Move::normal(b1, b3).to_u16()]);
    assert!(serde_json::from_value::<GameRecord>(json.clone()).is_err());
    // The same record with a legal move reads back.
    let nc3 = Position::startpos().parse_san("Nc3").unwrap();
    json["moves"] = serde_json::json!([nc3.to_u16()]);
    assert_eq!(serde_json::from_value::<GameRecord>(json).unwrap().moves(), [nc3]);
}
