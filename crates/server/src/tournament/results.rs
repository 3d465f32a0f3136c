//! A board's result with its meaning: how the game's end (or a forfeit
//! known before the round) becomes what TRF26, the Rating Regulations and
//! the Tie-Break Regulations need of it.

use arbiter_laws::ruling::GameEnd;
use arbiter_laws::scoring::Score;
use arbiter_laws::scoring::{GameKind, GameResult, NotRatedReason, ScoringError, rated_scores};
use arbiter_tournament::GameOutcome;

use super::record;

/// How a board's result came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// Over the board, both players made a move.
    Played,
    /// Unplayed: a forfeit (also a double forfeit).
    Forfeit,
    /// Played, but the game lasted less than one move (TRF `W D L`).
    UnderOneMove,
}

/// A finished board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    pub white: GameOutcome,
    pub black: GameOutcome,
    pub kind: ResultKind,
    /// Whether it is rated, and why not.
    pub rated: Result<(), NotRatedReason>,
    pub white_moved: bool,
    pub black_moved: bool,
    /// The result as written (`1-0`, `+/-`, `1/2-0`...).
    pub score: String,
    /// The PGN `Termination` value.
    pub termination: &'static str,
    /// The game's end; `None` for a forfeit known before the round.
    pub end: Option<GameEnd>,
}

/// The result of a board whose game ended with `end`, `white_moves` and
/// `black_moves` moves completed by each side; `None` for an annulled game
/// (a new game replaces it, so the board has no result yet).
#[must_use]
pub fn of_game(end: &GameEnd, white_moves: u32, black_moves: u32, armageddon: bool) -> Option<Finished> {
    let result = end.result;
    if result.is_annulled() {
        return None;
    }
    let (white_moved, black_moved) = (white_moves > 0, black_moves > 0);
    let both = white_moved && black_moved;
    let (white, black, kind) = match result {
        GameResult::WhiteWinsByForfeit => {
            (GameOutcome::Forfeit { won: true }, GameOutcome::Forfeit { won: false }, ResultKind::Forfeit)
        }
        GameResult::BlackWinsByForfeit => {
            (GameOutcome::Forfeit { won: false }, GameOutcome::Forfeit { won: true }, ResultKind::Forfeit)
        }
        GameResult::DoubleForfeit => {
            (GameOutcome::Forfeit { won: false }, GameOutcome::Forfeit { won: false }, ResultKind::Forfeit)
        }
        played => {
            let (w, b) = played.scores();
            if both {
                (GameOutcome::Played(w), GameOutcome::Played(b), ResultKind::Played)
            } else {
                (GameOutcome::UnderOneMove(w), GameOutcome::UnderOneMove(b), ResultKind::UnderOneMove)
            }
        }
    };
    let kind_of_game = if armageddon { GameKind::Armageddon } else { GameKind::Regular };
    let rated = match rated_scores(result, kind_of_game, both) {
        Ok(_) => Ok(()),
        Err(ScoringError::NotRated(reason)) => Err(reason),
        Err(_) => Err(NotRatedReason::Unplayed),
    };
    Some(Finished {
        white,
        black,
        kind,
        rated,
        white_moved,
        black_moved,
        score: crate::api::describe::game_result_text(result),
        termination: crate::pgn::termination(end.cause),
        end: Some(end.clone()),
    })
}

/// The result of a board decided before the round (a forfeit): unplayed,
/// never rated.
#[must_use]
pub fn of_preset(white: record::Outcome, black: record::Outcome) -> Finished {
    let outcome = |o: record::Outcome| GameOutcome::Forfeit { won: o == record::Outcome::ForfeitWin };
    let score = match (white, black) {
        (record::Outcome::ForfeitWin, _) => "+/-",
        (_, record::Outcome::ForfeitWin) => "-/+",
        _ => "-/-",
    };
    Finished {
        white: outcome(white),
        black: outcome(black),
        kind: ResultKind::Forfeit,
        rated: Err(NotRatedReason::Unplayed),
        white_moved: false,
        black_moved: false,
        score: score.to_owned(),
        termination: "abandoned",
        end: None,
    }
}

/// A side's TRF26 result code (`1 = 0 + - W D L`).
#[must_use]
pub fn trf_code(outcome: GameOutcome) -> &'static str {
    match outcome {
        GameOutcome::Played(Score::Win) => "1",
        GameOutcome::Played(Score::Draw) => "=",
        GameOutcome::Played(Score::Loss) => "0",
        GameOutcome::Forfeit { won: true } => "+",
        GameOutcome::Forfeit { won: false } => "-",
        GameOutcome::UnderOneMove(Score::Win) => "W",
        GameOutcome::UnderOneMove(Score::Draw) => "D",
        GameOutcome::UnderOneMove(Score::Loss) => "L",
    }
}

#[cfg(test)]
mod tests {
    use arbiter_laws::rule::RuleId;
    use arbiter_laws::ruling::EndCause;

    use super::*;

    fn end(result: GameResult, cause: EndCause, rule: RuleId) -> GameEnd {
        GameEnd { result, reason: String::new(), rule, cause, armageddon_winner: None, board_result: None }
    }

    #[test]
    fn a_game_where_one_side_never_moved_lasted_under_one_move_and_is_not_rated() {
        let flag = end(GameResult::WhiteWins, EndCause::Flag, RuleId::Fide6_9);
        let f = of_game(&flag, 1, 0, false).unwrap();
        assert_eq!(f.kind, ResultKind::UnderOneMove);
        assert_eq!((trf_code(f.white), trf_code(f.black)), ("W", "L"));
        assert_eq!(f.rated, Err(NotRatedReason::NoMoveByBothPlayers));
        assert_eq!(f.termination, "time forfeit");
        let f = of_game(&flag, 1, 1, false).unwrap();
        assert_eq!((f.kind, trf_code(f.white), f.rated), (ResultKind::Played, "1", Ok(())));
    }

    #[test]
    fn default_time_is_a_forfeit_even_after_a_move() {
        let no_show = end(GameResult::WhiteWinsByForfeit, EndCause::DefaultTime, RuleId::Fide6_7a);
        let f = of_game(&no_show, 1, 0, false).unwrap();
        assert_eq!((f.kind, trf_code(f.white), trf_code(f.black)), (ResultKind::Forfeit, "+", "-"));
        assert_eq!(f.rated, Err(NotRatedReason::Unplayed));
        assert_eq!(f.score, "+/-");
        assert_eq!(f.termination, "abandoned");
    }

    #[test]
    fn armageddon_and_annulled_games() {
        let draw = end(GameResult::Draw, EndCause::Agreement, RuleId::Fide5_2_3);
        assert_eq!(of_game(&draw, 3, 3, true).unwrap().rated, Err(NotRatedReason::Armageddon));
        let annulled = end(GameResult::Annulled, EndCause::ColoursReversed, RuleId::Fide7_3);
        assert_eq!(of_game(&annulled, 3, 3, false), None);
        let preset = of_preset(record::Outcome::ForfeitLoss, record::Outcome::ForfeitLoss);
        assert_eq!((preset.score.as_str(), trf_code(preset.white)), ("-/-", "-"));
    }
}
