//! The messages of the API as JSON, for `arbiter --json`.
//!
//! Field names are those of the `.proto` files (snake_case); enum values are
//! their proto names without the type prefix (`IN_PROGRESS`, `WHITE`,
//! `OVER_THE_BOARD`), `null` when unspecified; 64-bit integers are numbers;
//! times are RFC 3339 strings in UTC; an absent message is `null`.

use arbiter_client::{Error, WatchItem, code_name, pb};
use serde_json::{Map, Value, json};

use crate::render;

fn opt(s: Option<String>) -> Value {
    s.map_or(Value::Null, Value::String)
}

fn time(t: Option<&prost_types::Timestamp>) -> Value {
    t.map_or(Value::Null, |t| Value::String(render::timestamp(t)))
}

fn map(m: &std::collections::HashMap<String, String>) -> Value {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    Value::Object(keys.into_iter().map(|k| (k.clone(), Value::String(m[k].clone()))).collect::<Map<_, _>>())
}

/// A player.
pub fn player(p: Option<&pb::Player>) -> Value {
    p.map_or(Value::Null, |p| json!({ "name": p.name, "fide_id": p.fide_id }))
}

/// A clock reading.
pub fn clocks(c: Option<&pb::ClockReading>) -> Value {
    let Some(c) = c else { return Value::Null };
    json!({
        "white_remaining_ms": c.white_remaining_ms,
        "black_remaining_ms": c.black_remaining_ms,
        "running": opt(render::color_enum(c.running)),
        "paused": c.paused,
        "white_moves": c.white_moves,
        "black_moves": c.black_moves,
        "read_time": time(c.read_time.as_ref()),
    })
}

/// The regulations.
pub fn regulations(r: Option<&pb::Regulations>) -> Value {
    let Some(r) = r else { return Value::Null };
    json!({
        "mode": opt(render::mode(r.mode)),
        "time_control": r.time_control,
        "time_control_human": arbiter_laws::time_control::TimeControl::from_pgn(&r.time_control)
            .map(|tc| tc.to_human())
            .ok(),
        "category": opt(render::category(r.category)),
        "regime": opt(render::regime(r.regime)),
        "penalty_ms": r.penalty_ms,
        "default_time_ms": r.default_time_ms,
        "no_draw_offers_before_move": r.no_draw_offers_before_move,
        "draw_offers_need_arbiter": r.draw_offers_need_arbiter,
        "guidelines_iii": r.guidelines_iii,
        "device_penalty_deduct_ms": r.device_penalty_deduct_ms,
        "chess960": r.chess960,
        "start_fen": r.start_fen,
        "armageddon": r.armageddon,
        "automatic_draws": r.automatic_draws,
        "cn_draw_alternation": r.cn_draw_alternation,
        "max_lag_compensation_ms": r.max_lag_compensation_ms,
        "reconnect_window_ms": r.reconnect_window_ms,
        "entered_after_the_fact": r.entered_after_the_fact,
        "sensed_touches": opt(render::sensed_touches(r.sensed_touches)),
        "clock_authority": opt(render::clock_authority(r.clock_authority)),
    })
}

/// A game.
pub fn game(g: &pb::Game) -> Value {
    let end = g.end.as_ref().map_or(Value::Null, |e| {
        json!({
            "result": e.result,
            "reason": e.reason,
            "rule_id": e.rule_id,
            "article": article(e.article.as_ref()),
            "armageddon_winner": opt(render::color_enum(e.armageddon_winner)),
        })
    });
    let offer = g
        .draw_offer
        .as_ref()
        .filter(|o| o.by != 0)
        .map_or(Value::Null, |o| json!({ "by": opt(render::color_enum(o.by)), "ply": o.ply }));
    let obligation = g.obligation.as_ref().filter(|o| o.color != 0 || !o.allowed_moves.is_empty()).map_or(
        Value::Null,
        |o| {
            json!({
                "color": opt(render::color_enum(o.color)),
                "allowed_moves": o.allowed_moves,
                "rule_id": o.rule_id,
                "article": article(o.article.as_ref()),
                "reason": o.reason,
            })
        },
    );
    let questions: Vec<Value> = g
        .open_questions
        .iter()
        .map(|q| json!({ "id": q.id, "text": q.text, "default": q.default }))
        .collect();
    json!({
        "name": g.name,
        "event": g.event,
        "round": g.round,
        "white": player(g.white.as_ref()),
        "black": player(g.black.as_ref()),
        "regulations": regulations(g.regulations.as_ref()),
        "status": opt(render::status(g.status)),
        "end": end,
        "fen": g.fen,
        "moves_san": g.moves_san,
        "moves_uci": g.moves_uci,
        "side_to_move": opt(render::color_enum(g.side_to_move)),
        "clocks": clocks(g.clocks.as_ref()),
        "draw_offer": offer,
        "obligation": obligation,
        "open_questions": questions,
        "white_illegal_moves": g.white_illegal_moves,
        "black_illegal_moves": g.black_illegal_moves,
        "last_seq": g.last_seq,
        "create_time": time(g.create_time.as_ref()),
        "update_time": time(g.update_time.as_ref()),
        "category": opt(render::category(g.category)),
    })
}

/// An Article: `{"number": "9.5.3", "rulebook": "LAWS_OF_CHESS", "text":
/// "Article 9.5.3"}`, or null.
fn article(a: Option<&pb::Article>) -> Value {
    match (a, arbiter_client::article_text(a)) {
        (Some(a), Some(text)) => json!({
            "number": a.number,
            "rulebook": pb::Rulebook::try_from(a.rulebook)
                .unwrap_or(pb::Rulebook::Unspecified)
                .as_str_name()
                .trim_start_matches("RULEBOOK_"),
            "text": text,
        }),
        _ => Value::Null,
    }
}

/// A ruling.
pub fn ruling(r: &pb::Ruling) -> Value {
    json!({
        "rule_id": r.rule_id,
        "article": article(r.article.as_ref()),
        "decision": r.decision,
        "summary": r.summary,
        "color": opt(render::color_enum(r.color)),
        "facts": map(&r.facts),
    })
}

/// An event with its rulings.
pub fn event(e: &pb::GameEvent) -> Value {
    json!({
        "seq": e.seq,
        "act": e.act,
        "summary": e.summary,
        "actor": e.actor,
        "details": map(&e.details),
        "rulings": e.rulings.iter().map(ruling).collect::<Vec<_>>(),
        "record_time": time(e.record_time.as_ref()),
        "game_time_ms": e.game_time_ms,
        "clocks": clocks(e.clocks.as_ref()),
        "request_id": e.request_id,
        "fen": e.fen,
    })
}

/// The answer of a mutation: `{"event": ..., "game": ...}`.
pub fn outcome(o: &arbiter_client::Outcome) -> Value {
    let mut v = json!({ "event": event(&o.event), "game": game(&o.game) });
    if o.move_outcome != pb::MoveOutcome::Unspecified {
        v["move_outcome"] = json!(render::move_outcome_name(o.move_outcome));
    }
    v
}

/// A watch item: `{"type": "game"|"event"|"heartbeat"|"reconnecting", ...}`.
pub fn watch_item(item: &WatchItem) -> Value {
    match item {
        WatchItem::Game { game: g, resumed } => {
            json!({ "type": "game", "resumed": resumed, "game": game(g) })
        }
        WatchItem::Event(e) => json!({ "type": "event", "event": event(e) }),
        WatchItem::Heartbeat(c) => json!({ "type": "heartbeat", "clocks": clocks(Some(c)) }),
        WatchItem::Reconnecting { after_seq, attempt, error } => {
            json!({ "type": "reconnecting", "after_seq": after_seq, "attempt": attempt, "error": error })
        }
    }
}

/// An error: `{"error": {"code", "reason", "rule_id", "message", "field_violations"}}`.
pub fn error(e: &Error) -> Value {
    let violations: Vec<Value> = e
        .field_violations()
        .iter()
        .map(|v| json!({ "field": v.field, "description": v.description }))
        .collect();
    json!({
        "error": {
            "code": code_name(e.code()),
            "reason": e.reason(),
            "rule_id": e.rule_id(),
            "article": e.article(),
            "message": e.message(),
            "field_violations": violations,
            "exit_code": e.exit_code(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_json_shape() {
        let g = pb::Game {
            name: "games/abc".into(),
            status: pb::GameStatus::InProgress as i32,
            side_to_move: pb::Color::Black as i32,
            moves_san: vec!["e4".into()],
            last_seq: 3,
            clocks: Some(pb::ClockReading {
                white_remaining_ms: 100,
                running: pb::Color::Black as i32,
                ..Default::default()
            }),
            ..Default::default()
        };
        let v = game(&g);
        assert_eq!(v["name"], "games/abc");
        assert_eq!(v["status"], "IN_PROGRESS");
        assert_eq!(v["side_to_move"], "BLACK");
        assert_eq!(v["moves_san"][0], "e4");
        assert_eq!(v["last_seq"], 3);
        assert_eq!(v["clocks"]["running"], "BLACK");
        assert_eq!(v["clocks"]["white_remaining_ms"], 100);
        assert!(v["end"].is_null());
        assert!(v["draw_offer"].is_null());
        assert!(v["white"].is_null());
    }

    #[test]
    fn error_json_shape() {
        let e = Error::invalid("duration", "bad");
        let v = error(&e);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(v["error"]["field_violations"][0]["field"], "duration");
        assert_eq!(v["error"]["exit_code"], 2);
    }
}
