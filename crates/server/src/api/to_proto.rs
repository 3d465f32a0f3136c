//! Domain values into messages: a game reading, a logged event, a ruling,
//! the regulations.

use arbiter_chess::Color;
use arbiter_laws::article::Rulebook;
use arbiter_laws::event::Event;
use arbiter_laws::regulations::{
    ClockAuthority, DevicePenalty, DrawOfferRestriction, Mode, Regime, Regulations, SensedTouches,
};
use arbiter_laws::rule::RuleId;
use arbiter_laws::ruling::{Decision, GameEnd, Ruling};
use arbiter_laws::time_control::{Category, TimeControl};
use arbiter_proto::v1 as pb;

use super::describe::{self, game_result_text};
use crate::event_log::{Clocks, PlayerSpec};
use crate::store::GameStatus;
use crate::view::{GameReading, LoggedEvent};

/// What became of the move an act made or completed, from its rulings (the
/// mover's rulings only: a move may also let the opponent's illegal move
/// stand, A.5.2). The most serious outcome wins: a completed illegal move,
/// one left to a claim, one not yet completed, an unfinished promotion, a
/// move refused by touch-move, then an accepted move or a queued premove.
/// Unspecified for an act by no player or one that moved nothing.
pub fn move_outcome(event: &Event, rulings: &[Ruling]) -> pb::MoveOutcome {
    use pb::MoveOutcome as O;
    let Some(mover) = event.player() else { return O::Unspecified };
    let making = matches!(event, Event::MakeMove { .. } | Event::SubmitMove { .. });
    let severity = |o: O| match o {
        O::Unspecified => 0,
        O::Accepted | O::PremoveQueued => 1,
        O::RefusedTouchMove => 2,
        O::UnfinishedPromotion => 3,
        O::IllegalNotCompleted => 4,
        O::IllegalNotActedOn => 5,
        O::RuledIllegal => 6,
    };
    let mut outcome = O::Unspecified;
    for r in rulings {
        let o = match &r.decision {
            Decision::IllegalMove { color, .. } if *color == mover => O::RuledIllegal,
            Decision::IllegalMoveNotActedOn { color, .. } if *color == mover => O::IllegalNotActedOn,
            Decision::IllegalMoveNotCompleted { color, .. } if *color == mover => O::IllegalNotCompleted,
            Decision::MoveMade { color, .. } if *color == mover && r.rule == RuleId::Fide7_5_2 => {
                O::UnfinishedPromotion
            }
            Decision::MoveMade { color, .. } | Decision::MoveCompleted { color, .. } if *color == mover => {
                O::Accepted
            }
            Decision::PremoveQueued { color, .. } if *color == mover => O::PremoveQueued,
            // A move that only restated an obligation was taken back.
            Decision::Obligation { color, .. } if *color == mover && making => O::RefusedTouchMove,
            _ => continue,
        };
        if severity(o) > severity(outcome) {
            outcome = o;
        }
    }
    outcome
}

/// The text of a time control in a response: the service's PGN form in
/// seconds ([`TimeControl::to_pgn`]), as every release has written it, so
/// stored games read back unchanged. A request reads `time_control` as the
/// human form; the proto says to send this text back as `pgn:…` or in
/// `time_control_pgn`.
pub fn time_control_to_text(tc: &TimeControl) -> String {
    tc.to_pgn()
}

/// The API form of the regulations: the inverse of
/// [`super::validate::regulations_from_proto`] (the time control as in
/// [`time_control_to_text`]; defaults written as their explicit values, so
/// mode and regime are never `UNSPECIFIED`).
pub fn regulations_to_proto(r: &Regulations) -> pb::Regulations {
    let (no_draw_offers_before_move, draw_offers_need_arbiter) = match r.draw_offers {
        DrawOfferRestriction::None => (0, false),
        DrawOfferRestriction::BeforeMove(n) => (n, false),
        DrawOfferRestriction::WithoutArbiter => (0, true),
    };
    pb::Regulations {
        mode: match r.mode {
            Mode::OverTheBoard => pb::Mode::OverTheBoard,
            Mode::Online => pb::Mode::Online,
            Mode::Hybrid => pb::Mode::Hybrid,
        } as i32,
        time_control: time_control_to_text(&r.time_control),
        category: r.category.map_or(pb::Category::Unspecified as i32, category_to_proto),
        regime: match r.regime {
            Regime::Full => pb::Regime::Full,
            Regime::Reduced => pb::Regime::Reduced,
        } as i32,
        penalty_ms: r.penalty_ms,
        default_time_ms: r.default_time_ms,
        no_draw_offers_before_move,
        draw_offers_need_arbiter,
        guidelines_iii: r.guidelines_iii,
        device_penalty_deduct_ms: match r.device_penalty {
            DevicePenalty::Loss => 0,
            DevicePenalty::DeductTime(ms) => ms,
        },
        chess960: r.chess960,
        start_fen: r.start_fen.clone().unwrap_or_default(),
        armageddon: r.armageddon,
        automatic_draws: r.automatic_draws,
        cn_draw_alternation: r.cn_draw_alternation,
        // Reserved until the tournament results use CN-16 grade points.
        cn_grade_scoring: false,
        max_lag_compensation_ms: r.max_lag_compensation_ms,
        reconnect_window_ms: r.reconnect_window_ms,
        entered_after_the_fact: !r.observe,
        sensed_touches: match r.sensed_touches {
            SensedTouches::Record => pb::SensedTouches::Record,
            SensedTouches::Bind => pb::SensedTouches::Bind,
        } as i32,
        clock_authority: match r.clock_authority {
            ClockAuthority::Service => pb::ClockAuthority::Service,
            ClockAuthority::Board => pb::ClockAuthority::Board,
        } as i32,
        // The PGN form again, in the field that says it is the PGN form: a
        // reader never has to guess, and a client that sends these
        // regulations back unchanged is refused (the human reading of
        // `time_control` and this disagree) rather than misread.
        time_control_form: Some(pb::regulations::TimeControlForm::TimeControlPgn(time_control_to_text(
            &r.time_control,
        ))),
    }
}

/// The API value of a category.
pub fn category_to_proto(c: Category) -> i32 {
    i32::from(match c {
        Category::Standard => pb::Category::Standard,
        Category::Rapid => pb::Category::Rapid,
        Category::Blitz => pb::Category::Blitz,
    })
}

/// The API value of a colour.
pub fn color_to_proto(c: Color) -> i32 {
    i32::from(match c {
        Color::White => pb::Color::White,
        Color::Black => pb::Color::Black,
    })
}

/// The API value of an optional colour (`UNSPECIFIED` for none).
pub fn optional_color_to_proto(c: Option<Color>) -> i32 {
    c.map_or(pb::Color::Unspecified as i32, color_to_proto)
}

/// The API value of a game's status.
pub fn status_to_proto(status: GameStatus) -> i32 {
    i32::from(match status {
        GameStatus::Pending => pb::GameStatus::Pending,
        GameStatus::InProgress => pb::GameStatus::InProgress,
        GameStatus::Finished => pb::GameStatus::Finished,
        GameStatus::Cancelled => pb::GameStatus::Cancelled,
        GameStatus::Expired => pb::GameStatus::Expired,
    })
}

/// A ruling for the API: the rule id, and the decision's name, player,
/// facts and summary as [`describe::decision`] states them.
pub fn ruling_to_proto(r: &Ruling) -> pb::Ruling {
    let described = describe::decision(&r.decision);
    pb::Ruling {
        rule_id: r.rule.as_str().to_owned(),
        decision: described.name.to_owned(),
        summary: described.summary,
        color: optional_color_to_proto(described.color),
        facts: described.facts,
        article: article_to_proto(r.rule),
    }
}

/// The Article a rule id rests on, as printed; `None` where it names none
/// (`ARB`, `DEC-12`).
pub fn article_to_proto(rule: RuleId) -> Option<pb::Article> {
    rule.article().map(|a| pb::Article {
        number: a.number().to_owned(),
        rulebook: rulebook_to_proto(a.rulebook()).into(),
    })
}

/// A rulebook for the API (also the `rulebook` metadata of an ErrorInfo,
/// by the enum value's name).
pub fn rulebook_to_proto(rulebook: Rulebook) -> pb::Rulebook {
    match rulebook {
        Rulebook::LawsOfChess => pb::Rulebook::LawsOfChess,
        Rulebook::OnlineChessRegulations => pb::Rulebook::OnlineChessRegulations,
        Rulebook::ChineseRules => pb::Rulebook::ChineseRules,
    }
}

/// The end of a game for the API.
pub fn game_end_to_proto(e: &GameEnd) -> pb::GameEnd {
    pb::GameEnd {
        result: game_result_text(e.result),
        reason: e.reason.clone(),
        rule_id: e.rule.as_str().to_owned(),
        armageddon_winner: optional_color_to_proto(e.armageddon_winner),
        article: article_to_proto(e.rule),
        termination: crate::pgn::termination(e.cause).to_owned(),
    }
}

/// A reading of a game as the API shows it.
pub fn game(g: &GameReading) -> pb::Game {
    game_in_view(g, true)
}

/// A reading of a game as the API shows it, without the record unless
/// `with_record` (`GAME_VIEW_BASIC`): the record is the one part of the
/// game that grows with every move.
pub fn game_in_view(g: &GameReading, with_record: bool) -> pb::Game {
    let spec = &g.spec;
    let regs = &spec.regulations;
    let view = &g.view;
    pb::Game {
        name: format!("games/{}", g.id),
        event: spec.event.clone(),
        round: spec.round.clone(),
        white: Some(player(&spec.white)),
        black: Some(player(&spec.black)),
        regulations: Some(regulations_to_proto(regs)),
        status: status_to_proto(g.status),
        end: view.end.as_ref().map(game_end_to_proto),
        fen: view.fen.clone(),
        moves_san: if with_record { view.moves_san.to_vec() } else { Vec::new() },
        moves_uci: if with_record { view.moves_uci.to_vec() } else { Vec::new() },
        side_to_move: color_to_proto(view.turn),
        clocks: Some(clocks(view.clocks, g.clocks_read_wall_ms)),
        draw_offer: view.draw_offer.map(|(by, ply)| pb::DrawOffer { by: color_to_proto(by), ply }),
        obligation: view.obligation.as_ref().map(|o| pb::Obligation {
            color: color_to_proto(o.color),
            allowed_moves: o.allowed_uci.clone(),
            rule_id: o.rule.as_str().to_owned(),
            reason: o.reason.clone(),
            article: article_to_proto(o.rule),
        }),
        open_questions: view
            .open_questions
            .iter()
            .map(|q| pb::Question { id: q.id, text: q.text.clone(), default: q.default.clone() })
            .collect(),
        white_illegal_moves: view.white_illegal_moves,
        black_illegal_moves: view.black_illegal_moves,
        last_seq: g.last_seq,
        create_time: Some(timestamp(g.created_wall_ms)),
        update_time: Some(timestamp(g.updated_wall_ms)),
        category: category_to_proto(regs.category()),
        // Known to the service, not to a reading (see `crate::board`).
        board: None,
        // Known to the store's round index (see `crate::service::events`).
        round_name: String::new(),
        board_number: 0,
    }
}

/// An event of a game's log as the API shows it.
pub fn event(e: &LoggedEvent) -> pb::GameEvent {
    let described = describe::event(&e.event);
    pb::GameEvent {
        seq: e.seq,
        act: described.name.to_owned(),
        summary: described.summary,
        actor: e.actor.clone(),
        details: described.facts,
        rulings: e.aftermath.rulings.iter().map(ruling_to_proto).collect(),
        record_time: Some(timestamp(e.wall_ms)),
        game_time_ms: e.at_ms,
        clocks: Some(clocks(e.aftermath.clocks, e.wall_ms)),
        request_id: e.request_id.clone().unwrap_or_default(),
        fen: e.aftermath.fen.clone(),
    }
}

fn player(p: &PlayerSpec) -> pb::Player {
    pb::Player { name: p.name.clone(), fide_id: p.fide_id.clone(), ..pb::Player::default() }
}

/// Clocks read at `read_wall_ms`.
pub fn clocks(c: Clocks, read_wall_ms: i64) -> pb::ClockReading {
    pb::ClockReading {
        white_remaining_ms: c.white_ms,
        black_remaining_ms: c.black_ms,
        running: c.running.map_or(0, color_to_proto),
        paused: c.paused,
        white_moves: c.white_moves,
        black_moves: c.black_moves,
        read_time: Some(timestamp(read_wall_ms)),
    }
}

/// A protobuf timestamp from Unix milliseconds.
pub fn timestamp(ms: i64) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) * 1_000_000) as i32 }
}
