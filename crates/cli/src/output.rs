//! What the commands print for machines, with `-o json` or `-o yaml`.
//!
//! The API's messages are printed in the canonical proto3 JSON mapping, the
//! one grpcurl and the service's HTTP gateway print: lowerCamelCase field
//! names (`whiteRemainingMs`), enum values by their full proto name
//! (`COLOR_WHITE`, `GAME_STATUS_IN_PROGRESS`), 64-bit integers as strings,
//! times in RFC 3339, and fields at their default value left out. A command
//! that makes one call prints that call's response message, so one jq
//! filter serves `arbiter -o json` and `grpcurl` alike. What is not a
//! message of the API (an error, `pgn check`'s report, a watch that
//! reconnects) is written by the same rules.
//!
//! YAML is the same document, written by serde_yaml_ng.

use std::sync::LazyLock;

use anyhow::Context as _;
use arbiter_client::{Error, WatchItem, code_name, pb};
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::{Value, json};

use crate::args::{Format, GlobalArgs};
use crate::session::out;

/// The API's descriptors, decoded once.
static POOL: LazyLock<Result<DescriptorPool, prost_reflect::DescriptorError>> =
    LazyLock::new(|| DescriptorPool::decode(arbiter_client::FILE_DESCRIPTOR_SET));

/// A message of the API as a dynamic message of its descriptor, which
/// serializes in the canonical proto3 JSON mapping, fields in the proto's
/// order.
///
/// # Errors
/// Only if the built-in descriptors do not describe the message (a build
/// out of step with `proto/`).
fn dynamic<M: prost::Name>(message: &M) -> anyhow::Result<DynamicMessage> {
    let pool = POOL.as_ref().map_err(|e| anyhow::anyhow!("the API's descriptors do not decode: {e}"))?;
    let name = M::full_name();
    let descriptor =
        pool.get_message_by_name(&name).with_context(|| format!("{name} is not in the API's descriptors"))?;
    Ok(DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice())?)
}

/// A message of the API in the canonical proto3 JSON mapping, as a value to
/// put in a larger document (whose keys serde_json sorts; a message printed
/// alone keeps the proto's order: [`print`]).
///
/// # Errors
/// As [`dynamic`].
pub fn message<M: prost::Name>(message: &M) -> anyhow::Result<Value> {
    Ok(serde_json::to_value(dynamic(message)?)?)
}

/// A document as the format asks: JSON pretty-printed, or YAML.
///
/// # Errors
/// A value YAML cannot write (none of ours).
pub fn render<T: serde::Serialize + ?Sized>(format: Format, value: &T) -> anyhow::Result<String> {
    Ok(match format {
        Format::Yaml => serde_yaml_ng::to_string(value)?,
        Format::Json | Format::Table | Format::Wide => format!("{}\n", serde_json::to_string_pretty(value)?),
    })
}

/// One document on standard output, in the format of `-o`.
///
/// # Errors
/// The write's.
pub fn document<T: serde::Serialize + ?Sized>(global: &GlobalArgs, value: &T) -> anyhow::Result<()> {
    out(&render(global.format(), value)?)?;
    Ok(())
}

/// One message of the API as the document of a command, its fields in the
/// proto's order, as grpcurl prints them.
///
/// # Errors
/// As [`dynamic`], or the write's.
pub fn print<M: prost::Name>(global: &GlobalArgs, message: &M) -> anyhow::Result<()> {
    document(global, &dynamic(message)?)
}

/// One item of a stream (`game watch`, `round watch`, `board connect`):
/// a line of JSON, or a YAML document after `---`.
///
/// # Errors
/// The write's.
pub fn item<T: serde::Serialize + ?Sized>(format: Format, value: &T) -> anyhow::Result<()> {
    match format {
        Format::Yaml => out(&format!("---\n{}", serde_yaml_ng::to_string(value)?))?,
        _ => out(&format!("{}\n", serde_json::to_string(value)?))?,
    }
    Ok(())
}

/// `{key: message}`: a message of the API under the name of what it is, its
/// fields in the proto's order (the items of `board connect`).
///
/// # Errors
/// As [`dynamic`].
pub fn keyed<M: prost::Name>(
    key: &'static str,
    message: &M,
) -> anyhow::Result<std::collections::BTreeMap<&'static str, DynamicMessage>> {
    Ok(std::collections::BTreeMap::from([(key, dynamic(message)?)]))
}

/// One message of the API as an item of a stream.
///
/// # Errors
/// As [`dynamic`], or the write's.
pub fn print_item<M: prost::Name>(format: Format, message: &M) -> anyhow::Result<()> {
    item(format, &dynamic(message)?)
}

/// The answer of an act: the event, the game after it and, for a move or a
/// press, what became of the move. The fields every act's response message
/// has (`MakeMoveResponse`, `PressClockResponse`, `ResignGameResponse`...),
/// by the same names.
///
pub fn outcome(o: &arbiter_client::Outcome) -> pb::MakeMoveResponse {
    pb::MakeMoveResponse {
        event: Some(o.event.clone()),
        game: Some(o.game.clone()),
        outcome: o.move_outcome as i32,
        obligation: None,
    }
}

/// Prints an item of `game watch`: the stream's own message
/// (`{"game": ...}`, `{"event": ...}`, `{"heartbeat": ...}`, as
/// `WatchGameResponse`), or, while the stream is reopened,
/// `{"reconnecting": {"afterSeq", "attempt", "error"}}`.
///
/// # Errors
/// As [`dynamic`], or the write's.
pub fn watch_item(format: Format, watched: &WatchItem) -> anyhow::Result<()> {
    use pb::watch_game_response::Item;
    let response = |item| print_item(format, &pb::WatchGameResponse { item: Some(item) });
    match watched {
        WatchItem::Game { game, .. } => response(Item::Game((**game).clone())),
        WatchItem::Event(e) => response(Item::Event((**e).clone())),
        WatchItem::Heartbeat(c) => response(Item::Heartbeat(*c)),
        WatchItem::Reconnecting { after_seq, attempt, error } => item(
            format,
            &json!({ "reconnecting": { "afterSeq": after_seq.to_string(), "attempt": attempt, "error": error } }),
        ),
    }
}

/// An error: `{"error": {"code", "reason", "ruleId", "article", "message",
/// "fieldViolations", "exitCode"}}`, absent fields left out.
pub fn error(e: &Error) -> Value {
    let mut doc = serde_json::Map::new();
    doc.insert("code".into(), json!(code_name(e.code())));
    if let Some(reason) = e.reason() {
        doc.insert("reason".into(), json!(reason));
    }
    if let Some(rule) = e.rule_id() {
        doc.insert("ruleId".into(), json!(rule));
    }
    if let Some(article) = e.article() {
        doc.insert("article".into(), json!(article));
    }
    doc.insert("message".into(), json!(e.message()));
    let violations: Vec<Value> = e
        .field_violations()
        .iter()
        .map(|v| json!({ "field": v.field, "description": v.description }))
        .collect();
    if !violations.is_empty() {
        doc.insert("fieldViolations".into(), Value::Array(violations));
    }
    doc.insert("exitCode".into(), json!(e.exit_code()));
    json!({ "error": doc })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_in_the_canonical_mapping() {
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
        let v = message(&g).unwrap();
        assert_eq!(v["name"], "games/abc");
        assert_eq!(v["status"], "GAME_STATUS_IN_PROGRESS");
        assert_eq!(v["sideToMove"], "COLOR_BLACK");
        assert_eq!(v["movesSan"][0], "e4");
        // 64-bit integers are strings; fields at their default are left out.
        assert_eq!(v["lastSeq"], "3");
        assert_eq!(v["clocks"]["running"], "COLOR_BLACK");
        assert_eq!(v["clocks"]["whiteRemainingMs"], "100");
        assert!(v["clocks"].get("blackRemainingMs").is_none());
        assert!(v.get("end").is_none());
        assert!(v.get("white").is_none());
    }

    #[test]
    fn yaml_is_the_same_document() {
        let response = pb::GetGameResponse {
            game: Some(pb::Game { name: "games/abc".into(), last_seq: 7, ..Default::default() }),
        };
        // Fields in the proto's order (`name` is field 1), as grpcurl prints.
        let yaml = render(Format::Yaml, &dynamic(&response).unwrap()).unwrap();
        assert_eq!(yaml, "game:\n  name: games/abc\n  lastSeq: '7'\n");
        let json = render(Format::Json, &dynamic(&response).unwrap()).unwrap();
        assert_eq!(json, "{\n  \"game\": {\n    \"name\": \"games/abc\",\n    \"lastSeq\": \"7\"\n  }\n}\n");
        let back: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(back, message(&response).unwrap());
    }

    #[test]
    fn watch_heartbeats_are_the_stream_messages() {
        let beat = pb::WatchGameResponse {
            item: Some(pb::watch_game_response::Item::Heartbeat(pb::ClockReading {
                black_remaining_ms: 5,
                ..Default::default()
            })),
        };
        assert_eq!(message(&beat).unwrap(), json!({ "heartbeat": { "blackRemainingMs": "5" } }));
    }

    #[test]
    fn errors_in_the_same_style() {
        let e = Error::invalid("duration", "bad");
        let v = error(&e);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(v["error"]["fieldViolations"][0]["field"], "duration");
        assert_eq!(v["error"]["exitCode"], 2);
        assert!(v["error"].get("ruleId").is_none());
    }
}
