//! Set-up errors: wrong initial position, board orientation, colours
//! reversed (7.2, 7.3, OCR 15.2) and misplaced kings and rooks (A.5.1.2).

use arbiter_chess::Color;

use super::{Game, Outcome, reject};
use crate::event::SetupError;
use crate::regulations::Regime;
use crate::rule::RuleId;
use crate::ruling::{Decision, EndCause, RejectReason, Ruling};
use crate::scoring::GameResult;
use crate::time_control::Category;

impl Game {
    pub(super) fn setup_rule(&self, error: SetupError) -> RuleId {
        match error {
            SetupError::WrongInitialPosition
            | SetupError::KingMisplaced { .. }
            | SetupError::RookMisplaced { .. } => RuleId::Fide7_2a,
            SetupError::BoardWronglyOriented => RuleId::Fide7_2b,
            SetupError::ColoursReversed if self.regs.mode.is_online() => RuleId::Ocr15_2,
            SetupError::ColoursReversed => RuleId::Fide7_3,
        }
    }

    /// A.5.1.2: in rapid and blitz under A.5 (B.3), once each player has
    /// completed ten moves, no claim about the set-up or the orientation of
    /// the board can be made.
    pub(super) fn setup_claims_closed(&self) -> bool {
        self.regs.regime == Regime::Reduced
            && matches!(self.regs.category(), Category::Rapid | Category::Blitz)
            && Color::ALL.iter().all(|c| self.moves_completed(*c) >= 10)
    }

    pub(super) fn setup_error(&mut self, error: SetupError) -> Outcome {
        let rule = self.setup_rule(error);
        let closed = || {
            reject(
                RejectReason::NotApplicable,
                Some(RuleId::FideA5_1),
                "each player has completed ten moves: under A.5 no claim about the set-up or the \
                 orientation of the board can be made any more (A.5.1.2); the game continues. A \
                 misplaced king or rook is reported as KingMisplaced or RookMisplaced: castling with \
                 it is then banned",
            )
        };
        match error {
            SetupError::WrongInitialPosition => {
                if self.setup_claims_closed() {
                    return Err(closed());
                }
                Ok(vec![self.finish(
                    GameResult::Annulled,
                    EndCause::WrongInitialPosition,
                    "wrong initial position: the game is annulled and a new game is to be played",
                    rule,
                )])
            }
            SetupError::KingMisplaced { .. } | SetupError::RookMisplaced { .. } => {
                self.misplaced_king_or_rook(error, rule)
            }
            SetupError::BoardWronglyOriented => {
                if self.regs.mode.is_online() {
                    return Err(reject(
                        RejectReason::NotApplicable,
                        Some(RuleId::Ocr1_3),
                        "the platform draws the board: it cannot be wrongly oriented",
                    ));
                }
                if self.setup_claims_closed() {
                    return Err(closed());
                }
                Ok(vec![Ruling::new(
                    rule,
                    Decision::SetupErrorStands {
                        error,
                        note: "the game continues; the position is transferred to a correctly placed board"
                            .into(),
                    },
                )])
            }
            SetupError::ColoursReversed => {
                if self.moves_made.iter().all(|&m| m >= 10) {
                    Ok(vec![Ruling::new(
                        rule,
                        Decision::SetupErrorStands {
                            error,
                            note: "ten moves have been made by both players: the game continues with the \
                                   colours as played"
                                .into(),
                        },
                    )])
                } else {
                    Ok(vec![self.finish(
                        GameResult::Annulled,
                        EndCause::ColoursReversed,
                        "colours reversed before ten moves by both players: the game is annulled and a new \
                         game is to be played with the correct colours",
                        rule,
                    )])
                }
            }
        }
    }

    /// A.5.1.2: a misplaced king or rook in the initial position. Before the
    /// ten-move cut-off (and outside rapid and blitz under A.5) it is a
    /// wrong initial position (7.2.1: annulled); after it the game continues
    /// and the castling concerned is banned.
    pub(super) fn misplaced_king_or_rook(&mut self, error: SetupError, rule: RuleId) -> Outcome {
        if let SetupError::RookMisplaced { square } = error {
            // The rook is named by the square its castling right refers to
            // in the start position; any other square names no castling.
            let start = &self.record.positions()[0];
            if !start.castling_rooks().contains(square) {
                return Err(reject(
                    RejectReason::InvalidArgument,
                    Some(RuleId::FideA5_1),
                    format!("{square} is not the square of a castling rook in the start position"),
                ));
            }
        }
        if !self.setup_claims_closed() {
            return Ok(vec![self.finish(
                GameResult::Annulled,
                EndCause::WrongInitialPosition,
                "wrong initial position: the game is annulled and a new game is to be played",
                rule,
            )]);
        }
        let note = match error {
            SetupError::KingMisplaced { color } => format!(
                "each player has completed ten moves: the game continues; {color}'s king was misplaced, so \
                 {color} may not castle (A.5.1.2)"
            ),
            SetupError::RookMisplaced { square } => format!(
                "each player has completed ten moves: the game continues; the rook starting on {square} was \
                 misplaced, so castling with it is not allowed (A.5.1.2)"
            ),
            _ => unreachable!("only a misplaced king or rook is ruled here"),
        };
        if !self.castling_bans.contains(&error) {
            self.castling_bans.push(error);
        }
        Ok(vec![Ruling::new(RuleId::FideA5_1, Decision::SetupErrorStands { error, note })])
    }
}
