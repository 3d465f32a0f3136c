//! The players' acts and the arbiter's actions: one mutation each, answered
//! with the recorded event, its rulings, and how the game stands.

use arbiter_client::{Call, Color, Outcome, Rpc, exit, pb};

use crate::args::{ArbiterAction, ClockCommand, ColorArg, GlobalArgs, PlayerAct};
use crate::output;
use crate::render;
use crate::session::out;

/// Sends a mutation (with `--request-id` and `--expected-seq`) and prints
/// what it gave.
///
/// # Errors
/// The call's, or a failed write.
pub async fn send<R: Rpc<Output = Outcome>>(global: &GlobalArgs, call: Call<R>) -> anyhow::Result<u8> {
    let outcome = global.prepare(call).await?;
    if global.structured() {
        output::print(global, &output::outcome(&outcome))?;
    } else {
        out(&outcome_text(&outcome))?;
    }
    // The act was recorded, but the Laws refused the move or ruled it
    // illegal: exit 3, as for any other refusal of the Laws.
    Ok(if outcome.move_refused() { exit::REFUSED } else { exit::OK })
}

/// A mutation's answer for people: the act, its rulings, then how the game
/// stands.
fn outcome_text(o: &Outcome) -> String {
    let e = &o.event;
    let mut text = format!("{} #{} {}", o.game.name, e.seq, e.act);
    if !e.actor.is_empty() {
        text.push_str(&format!(" by {}", e.actor));
    }
    if !e.summary.is_empty() {
        text.push_str(&format!(": {}", e.summary));
    }
    text.push('\n');
    if let Some(verdict) = render::move_outcome(o.move_outcome) {
        text.push_str(&format!("  {verdict}\n"));
    }
    for r in &e.rulings {
        text.push_str(&format!("  {}\n", render::ruling(r)));
    }
    text.push_str(&format!("  {}\n", render::state_line(&o.game)));
    if let Some(c) = &o.game.clocks {
        text.push_str(&format!("  {}\n", render::clocks_line(c)));
    }
    text
}

/// The acting side, when the command line names one (a player token names
/// it otherwise).
fn color(c: Option<ColorArg>) -> Option<Color> {
    c.map(Color::from)
}

/// A player's act.
///
/// # Errors
/// As [`send`].
pub async fn player(global: &GlobalArgs, act: PlayerAct) -> anyhow::Result<u8> {
    let client = global.client().await?;
    match act {
        PlayerAct::Move(a) => {
            let call = client.make_move(&a.player.game, color(a.player.color), a.mv.clone());
            send(
                global,
                call.with(|r| {
                    r.premove = a.premove;
                    r.castle = a.castle;
                }),
            )
            .await
        }
        PlayerAct::Touch(a) => {
            let kind = if a.adjust {
                pb::TouchKind::Adjust
            } else if a.accidental {
                pb::TouchKind::Accidental
            } else {
                pb::TouchKind::Intent
            };
            let call = client.touch_piece(&a.player.game, color(a.player.color), a.square.clone(), kind);
            send(global, call.with(|r| r.simultaneous_square = a.with.clone().unwrap_or_default())).await
        }
        PlayerAct::Adjust(a) => send(global, client.announce_adjust(&a.game, color(a.color))).await,
        PlayerAct::Press(a) => {
            let call = client.press_clock(&a.player.game, color(a.player.color));
            send(global, call.with(|r| r.other_hand = a.other_hand)).await
        }
        PlayerAct::OfferDraw(a) => send(global, client.offer_draw(&a.game, color(a.color))).await,
        PlayerAct::AcceptDraw(a) => send(global, client.accept_draw(&a.game, color(a.color))).await,
        PlayerAct::DeclineDraw(a) => send(global, client.decline_draw(&a.game, color(a.color))).await,
        PlayerAct::Claim(a) => {
            let call = client.claim_draw(&a.game, color(a.color), a.kind.into(), a.intended.as_deref());
            send(global, call).await
        }
        PlayerAct::ClaimIllegal(a) => send(global, client.claim_illegal_move(&a.game, color(a.color))).await,
        PlayerAct::Resign(a) => send(global, client.resign(&a.game, color(a.color))).await,
        PlayerAct::Promote(a) => {
            send(global, client.place_promotion_piece(&a.player.game, color(a.player.color), a.piece)).await
        }
        PlayerAct::ReleaseKing(a) => {
            let call = client.release_castling_king(&a.player.game, color(a.player.color), a.square.clone());
            send(global, call).await
        }
        PlayerAct::TwoHands(a) => send(global, client.report_two_hands(&a.game, color(a.color))).await,
        PlayerAct::Arrive(a) => send(global, client.record_arrival(&a.game, color(a.color))).await,
        PlayerAct::Disconnect(a) => send(global, client.record_disconnect(&a.game, color(a.color))).await,
        PlayerAct::Reconnect(a) => send(global, client.record_reconnect(&a.game, color(a.color))).await,
        PlayerAct::Increment(a) => send(global, client.request_increment(&a.game, color(a.color))).await,
        PlayerAct::NoWinningAttempt(a) => {
            send(global, client.claim_no_winning_attempt(&a.game, color(a.color))).await
        }
    }
}

/// An arbiter's action.
///
/// # Errors
/// As [`send`].
pub async fn arbiter(global: &GlobalArgs, action: ArbiterAction) -> anyhow::Result<u8> {
    let client = global.client().await?;
    match action {
        ArbiterAction::Clock(ClockCommand::Pause(a)) => send(global, client.pause_clocks(&a.game)).await,
        ArbiterAction::Clock(ClockCommand::Resume(a)) => send(global, client.resume_clocks(&a.game)).await,
        ArbiterAction::Clock(ClockCommand::Adjust(a)) => {
            send(global, client.adjust_clock(&a.game, a.color.into(), a.delta)).await
        }
        ArbiterAction::Clock(ClockCommand::Set(a)) => {
            send(global, client.set_clock(&a.game, a.color.into(), a.remaining)).await
        }
        ArbiterAction::Clock(ClockCommand::SetMoves(a)) => {
            send(global, client.set_move_counter(&a.game, a.color.into(), a.moves)).await
        }
        ArbiterAction::Clock(ClockCommand::Install(a)) => {
            send(global, client.install_time_control(&a.game, a.pgn.clone())).await
        }
        ArbiterAction::Penalty(a) => {
            let call = client.issue_penalty(&a.game, a.color.into(), a.kind.into(), a.amount.unwrap_or(0));
            send(global, call).await
        }
        ArbiterAction::Device(a) => send(global, client.record_device(&a.game, a.color.into())).await,
        ArbiterAction::Reinstate(a) => send(global, client.reinstate_position(&a.game, a.ply)).await,
        ArbiterAction::Result(a) => send(global, client.declare_result(&a.game, a.result.into())).await,
        ArbiterAction::SetupError(a) => {
            let call = client.report_setup_error(&a.game, a.kind.into(), color(a.color), a.square.as_deref());
            send(global, call).await
        }
        ArbiterAction::Answer(a) => {
            send(global, client.answer_question(&a.game, a.question_id, a.answer.into())).await
        }
    }
}
