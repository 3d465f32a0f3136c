//! Fuzz: random and malformed requests to every RPC of the real `arbiterd`
//! (a child process, so a panic shows in its log and a crash as a dead
//! process). The methods come from the descriptor sets the service serves
//! (the API, health and both reflection versions), so a new RPC is fuzzed
//! without editing this file. Requests are raw bytes sent with a codec that
//! writes them verbatim: structure-aware messages with hostile values,
//! random bytes, truncated and wrong-typed encodings, wrong wire types,
//! messages beyond the 64 KiB limit, abused metadata, and a few raw HTTP/2
//! abuses. Inputs are generated from `Options::seed` (per worker, per
//! request index), and every finding names the seed, the worker, the index
//! and the input bytes.
//!
//! Checks: no INTERNAL, no UNKNOWN except the transport's own, every error
//! of the API's handlers carries an ErrorInfo of domain `arbiter.chess`
//! (the others are counted as exceptions), no panic in the log, the process
//! alive at the end, a health check every second answered within 1 s, and
//! the real games still readable and consistent at the end.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::{Buf, BufMut, Bytes};
use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use tonic::client::Grpc;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::metadata::{AsciiMetadataValue, BinaryMetadataValue, MetadataMap};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::daemon::Daemon;
use crate::v1 as pb;
use crate::{ARBITER_TOKEN, DOMAIN, SERVICE_TOKEN, VIEWER_TOKEN};

/// How long and how hard to fuzz.
#[derive(Clone, Debug)]
pub struct Options {
    /// Fuzzing time.
    pub seconds: u64,
    /// The seed of every generated input (`ARBITER_FUZZ_SEED` overrides the
    /// time-based default, to replay a run).
    pub seed: u64,
    /// Concurrent request loops.
    pub workers: usize,
    /// Real games created first (half online, half over the board).
    pub games: usize,
}

impl Options {
    /// The CI form: 15 s.
    pub fn short() -> Options {
        Options { seconds: 15, seed: default_seed(), workers: 3, games: 4 }
    }

    /// The long form: ten minutes.
    pub fn long() -> Options {
        Options { seconds: 600, ..Options::short() }
    }
}

fn default_seed() -> u64 {
    std::env::var("ARBITER_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
    })
}

/// What a fuzz run saw.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub seed: u64,
    pub seconds: f64,
    /// Requests sent, per kind of input.
    pub sent: BTreeMap<String, u64>,
    /// Response codes (`OK`, `InvalidArgument`...), all kinds together.
    pub codes: BTreeMap<String, u64>,
    /// Error responses without an ErrorInfo of domain `arbiter.chess`, by
    /// code and method: (count, an example message).
    pub exceptions: BTreeMap<String, (u64, String)>,
    /// Outcomes of the raw HTTP/2 abuses.
    pub h2: BTreeMap<String, u64>,
    pub health_checks: u64,
    pub max_health_latency: Duration,
    pub failures: Vec<String>,
}

impl Report {
    fn total(&self) -> u64 {
        self.sent.values().sum()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total();
        writeln!(
            f,
            "fuzz: seed {} (ARBITER_FUZZ_SEED={}), {total} requests in {:.1} s ({:.0}/s)",
            self.seed,
            self.seed,
            self.seconds,
            total as f64 / self.seconds.max(0.001)
        )?;
        writeln!(f, "  sent per kind: {:?}", self.sent)?;
        writeln!(f, "  codes: {:?}", self.codes)?;
        writeln!(f, "  raw HTTP/2 abuses: {:?}", self.h2)?;
        writeln!(
            f,
            "  health: {} checks, max latency {} ms",
            self.health_checks,
            self.max_health_latency.as_millis()
        )?;
        writeln!(f, "  errors without an {DOMAIN} ErrorInfo (not failures): {}", self.exceptions.len())?;
        for (key, (count, example)) in &self.exceptions {
            writeln!(f, "    {count:>6} x {key}: {example}")?;
        }
        super::write_verdict(f, &self.failures)
    }
}

// ---------------------------------------------------------------------------
// The schema: every method the service serves, and its message types.

/// One RPC.
#[derive(Clone, Debug)]
struct Method {
    /// `/package.Service/Method`.
    path: String,
    /// `Service/Method`, for the report.
    short: String,
    /// The API's own (its errors must carry ErrorInfo).
    api: bool,
    /// `.package.Message`.
    input: String,
}

#[derive(Debug, Default)]
struct Schema {
    messages: HashMap<String, DescriptorProto>,
    methods: Vec<Method>,
}

impl Schema {
    /// The API, health and reflection descriptors, as the server registers
    /// them.
    fn load() -> Schema {
        let mut schema = Schema::default();
        for encoded in [
            arbiter_proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
        ] {
            let set =
                FileDescriptorSet::decode(encoded).expect("a descriptor set compiled into the binaries");
            for file in set.file {
                let package = file.package().to_string();
                for message in &file.message_type {
                    schema.add_message(&format!(".{package}"), message);
                }
                for service in &file.service {
                    let service_name = format!("{package}.{}", service.name());
                    for method in &service.method {
                        schema.methods.push(Method {
                            path: format!("/{service_name}/{}", method.name()),
                            short: format!("{}/{}", service.name(), method.name()),
                            api: service_name == "arbiter.v1.ArbiterService",
                            input: method.input_type().to_string(),
                        });
                    }
                }
            }
        }
        schema
    }

    fn add_message(&mut self, scope: &str, message: &DescriptorProto) {
        let name = format!("{scope}.{}", message.name());
        for nested in &message.nested_type {
            self.add_message(&name, nested);
        }
        self.messages.insert(name, message.clone());
    }
}

// ---------------------------------------------------------------------------
// Raw bytes over gRPC.

/// Sends the given bytes as the message and returns the answer's bytes.
#[derive(Clone, Copy, Debug, Default)]
struct RawCodec;

#[derive(Debug)]
struct RawEncoder;

#[derive(Debug)]
struct RawDecoder;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl Encoder for RawEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

/// How one request ended.
#[derive(Debug)]
enum Outcome {
    Ok,
    Status(Status),
    /// No answer within the deadline.
    Hang,
}

/// Sends `body` to `method` (every method as a stream of one message, which
/// is the same on the wire for unary ones) and reads at most a few answers:
/// a watch of a live game streams for ever.
async fn call(grpc: &mut Grpc<Channel>, method: &Method, body: Bytes, metadata: MetadataMap) -> Outcome {
    let exchange = async {
        if let Err(e) = grpc.ready().await {
            return Outcome::Status(Status::unavailable(format!("transport error: channel not ready: {e}")));
        }
        let mut request = tonic::Request::new(tokio_stream::iter(vec![body]));
        *request.metadata_mut() = metadata;
        let path =
            http::uri::PathAndQuery::from_str(&method.path).expect("a method path is a valid URI path");
        let mut stream = match grpc.streaming(request, path, RawCodec).await {
            Ok(response) => response.into_inner(),
            Err(status) => return Outcome::Status(status),
        };
        for _ in 0..3 {
            match tokio::time::timeout(Duration::from_secs(1), stream.message()).await {
                Ok(Ok(Some(_))) => {}
                Ok(Ok(None)) | Err(_) => return Outcome::Ok,
                Ok(Err(status)) => return Outcome::Status(status),
            }
        }
        Outcome::Ok
    };
    tokio::time::timeout(Duration::from_secs(10), exchange).await.unwrap_or(Outcome::Hang)
}

// ---------------------------------------------------------------------------
// Inputs.

/// The values the generator draws from, with the real games' names.
#[derive(Debug)]
struct Dictionary {
    names: Vec<String>,
    game_ids: Vec<String>,
    moves: Vec<String>,
    squares: Vec<String>,
    fens: Vec<String>,
    time_controls: Vec<String>,
    hostile: Vec<String>,
    symbols: Vec<String>,
    player_tokens: Vec<String>,
}

impl Dictionary {
    fn new(games: &[RealGame], schema: &Schema) -> Dictionary {
        let mut names = Vec::new();
        let mut game_ids = Vec::new();
        for game in games {
            let id = game.name.trim_start_matches("games/").to_string();
            names.extend([
                game.name.clone(),
                game.name.clone(),
                format!("{}x", game.name),
                format!("games/{}", id.to_uppercase()),
                format!("game/{id}"),
                id.clone(),
                format!("{}/events", game.name),
                format!("games/../{id}"),
                format!("{}\0", game.name),
                format!(" {}", game.name),
            ]);
            game_ids.push(id);
        }
        names.extend(
            ["games/", "games", "games//", "games/nope", "/games/x", "games/a-b-c"].map(String::from),
        );
        game_ids.extend(
            ["fuzz-a", "fuzz-b", "a", "A", "1abc", "-x", "x_y", "é", &"a".repeat(63), &"a".repeat(64)]
                .map(String::from),
        );
        let moves = [
            "e2e4",
            "e7e5",
            "g1f3",
            "b8c6",
            "d2d4",
            "e7e8q",
            "e1g1",
            "e1h1",
            "a7a8n",
            "e2e5",
            "a1a1",
            "z9z9",
            "e2e4e4",
            "Nf3",
            "O-O",
            "O-O-O",
            "0-0",
            "exd6 e.p.",
            "Qxf7#",
            "e4",
            "Ke2",
            "e8=Q",
            "N",
            "--",
            "0000",
            "e2",
            "E2E4",
        ]
        .map(String::from)
        .to_vec();
        let squares = ["e2", "e4", "a1", "h8", "g1", "c1", "i9", "E2", "e", "e22", "a0", "-"]
            .map(String::from)
            .to_vec();
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "k7/8/8/8/8/8/8/K6P w - - 0 1",
            "kP6/8/8/8/8/8/8/K7 w - - 0 1",
            "k7/8/8/8/8/8/8/K6r w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 99999999999",
            "rnbqkbnr/pppppppp/8/8",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
        ]
        .map(String::from)
        .to_vec();
        let time_controls = [
            "90+30",
            "40/5400+30:1800+30",
            "5+3",
            "3+2",
            "0+0",
            "-1+0",
            "1+-1",
            "99999999999999999999+0",
            "9223372036854775807+9223372036854775807",
            "G/90",
            "+",
            "90+",
            "40/",
            "1/1:1/1:1/1:1/1:1/1:1/1:1/1",
        ]
        .map(String::from)
        .to_vec();
        let hostile = [
            String::new(),
            "a".into(),
            "\0".into(),
            "é♞🀄".into(),
            "\u{202e}evil".into(),
            "%s%n%x".into(),
            "' OR 1=1 --".into(),
            "'; DROP TABLE games; --".into(),
            "../../etc/passwd".into(),
            "\u{FFFF}\u{FEFF}".into(),
            "\r\n\t".into(),
            "x".repeat(1_000),
            "y".repeat(20_000),
            "ü".repeat(3_000),
            i64::MAX.to_string(),
            "-1".into(),
            "NaN".into(),
        ]
        .to_vec();
        let mut symbols: Vec<String> = schema
            .methods
            .iter()
            .map(|m| m.path.trim_start_matches('/').replace('/', "."))
            .chain(schema.messages.keys().map(|k| k.trim_start_matches('.').to_string()))
            .collect();
        symbols.extend(
            [
                "arbiter.v1.ArbiterService",
                "grpc.health.v1.Health",
                "arbiter/v1/game.proto",
                "arbiter/v1/arbiter_service.proto",
                "google/protobuf/timestamp.proto",
                "nope.proto",
            ]
            .map(String::from),
        );
        let player_tokens =
            games.iter().flat_map(|g| [g.white_token.clone(), g.black_token.clone()]).collect();
        Dictionary { names, game_ids, moves, squares, fens, time_controls, hostile, symbols, player_tokens }
    }

    /// A string for a field, by its name.
    fn string(&self, rng: &mut StdRng, field: &str) -> Vec<u8> {
        if rng.random_bool(0.03) {
            // Not UTF-8: the decoder must refuse it.
            return vec![0xff, 0xfe, b'g', 0xc3];
        }
        let pool = if rng.random_bool(0.12) {
            &self.hostile
        } else {
            match field {
                "name" | "parent" => &self.names,
                "game_id" => &self.game_ids,
                "move" | "intended_move" => &self.moves,
                "square" => &self.squares,
                "start_fen" | "fen" => &self.fens,
                "time_control" => &self.time_controls,
                "service"
                | "file_by_filename"
                | "file_containing_symbol"
                | "list_services"
                | "containing_type"
                | "symbol"
                | "filename" => &self.symbols,
                "request_id" | "page_token" => return self.token_like(rng),
                _ => &self.hostile,
            }
        };
        let mut value = pool.choose(rng).cloned().unwrap_or_default();
        if rng.random_bool(0.05) {
            value.push_str(self.hostile.choose(rng).map_or("", String::as_str));
        }
        value.into_bytes()
    }

    /// A request id or page token: a small shared pool, so ids collide
    /// across methods and games, or something odd.
    fn token_like(&self, rng: &mut StdRng) -> Vec<u8> {
        match rng.random_range(0..6) {
            0 => Vec::new(),
            1 | 2 => format!("r{}", rng.random_range(0..20)).into_bytes(),
            3 => "MTIz".into(),
            4 => "x".repeat(rng.random_range(100..5_000)).into_bytes(),
            _ => (0..rng.random_range(1..40)).map(|_| rng.random_range(32..127)).collect(),
        }
    }
}

/// The kinds of input.
const KINDS: [(&str, u32); 7] = [
    ("structured", 40),
    ("random-bytes", 8),
    ("truncated", 10),
    ("wrong-typed", 10),
    ("wrong-wire-type", 10),
    ("huge", 2),
    ("metadata", 15),
];

fn pick_kind(rng: &mut StdRng) -> &'static str {
    let total: u32 = KINDS.iter().map(|(_, w)| w).sum();
    let mut roll = rng.random_range(0..total);
    for (kind, weight) in KINDS {
        if roll < weight {
            return kind;
        }
        roll -= weight;
    }
    KINDS[0].0
}

fn put_key(out: &mut Vec<u8>, field: u32, wire: u32) {
    prost::encoding::encode_varint((u64::from(field) << 3) | u64::from(wire), out);
}

fn put_len(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_key(out, field, 2);
    prost::encoding::encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// An integer at an extreme or a small one (as the 64 bits of a varint).
fn hostile_int(rng: &mut StdRng, field: &FieldDescriptorProto) -> u64 {
    let small = matches!(field.name(), "page_size" | "ply" | "question_id" | "after_seq" | "expected_seq")
        || field.r#type() == Type::Enum;
    if small && rng.random_bool(0.6) {
        return rng.random_range(0..12);
    }
    let extremes: [i64; 12] = [
        0,
        1,
        -1,
        2,
        99,
        -42,
        i64::from(i32::MAX),
        i64::from(i32::MIN),
        i64::MAX,
        i64::MIN,
        i64::from(u32::MAX),
        1_000_000_000_000,
    ];
    match rng.random_range(0..4) {
        0 => rng.random(),
        _ => extremes.choose(rng).copied().unwrap_or_default().cast_unsigned(),
    }
}

/// A message of type `type_name` with hostile values, encoded field by field.
fn structured(rng: &mut StdRng, schema: &Schema, dict: &Dictionary, type_name: &str, depth: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let Some(message) = schema.messages.get(type_name) else {
        // A type outside the descriptor sets (a well-known type): bytes.
        return (0..rng.random_range(0..16)).map(|_| rng.random()).collect();
    };
    for field in &message.field {
        if !rng.random_bool(0.75) {
            continue;
        }
        let repeats = if field.label() == Label::Repeated { rng.random_range(0..4) } else { 1 };
        // Now and then a singular field twice: the last one wins.
        let repeats = if rng.random_bool(0.03) { repeats + 1 } else { repeats };
        for _ in 0..repeats {
            put_field(&mut out, rng, schema, dict, field, depth);
        }
    }
    out
}

fn put_field(
    out: &mut Vec<u8>,
    rng: &mut StdRng,
    schema: &Schema,
    dict: &Dictionary,
    field: &FieldDescriptorProto,
    depth: u32,
) {
    let number = u32::try_from(field.number()).unwrap_or(1);
    match field.r#type() {
        Type::String => {
            let value = dict.string(rng, field.name());
            put_len(out, number, &value);
        }
        Type::Bytes => {
            let value: Vec<u8> = (0..rng.random_range(0..64)).map(|_| rng.random()).collect();
            put_len(out, number, &value);
        }
        Type::Message | Type::Group => {
            let value = if depth < 3 {
                structured(rng, schema, dict, field.type_name(), depth + 1)
            } else {
                Vec::new()
            };
            put_len(out, number, &value);
        }
        Type::Bool => {
            put_key(out, number, 0);
            prost::encoding::encode_varint(
                if rng.random_bool(0.9) { rng.random_range(0..2) } else { 2 },
                out,
            );
        }
        Type::Sint32 | Type::Sint64 => {
            put_key(out, number, 0);
            let v = hostile_int(rng, field).cast_signed();
            prost::encoding::encode_varint(((v << 1) ^ (v >> 63)).cast_unsigned(), out);
        }
        Type::Double | Type::Fixed64 | Type::Sfixed64 => {
            put_key(out, number, 1);
            let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, f64::MAX, 1.5]
                .choose(rng)
                .copied()
                .unwrap_or_default();
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        Type::Float | Type::Fixed32 | Type::Sfixed32 => {
            put_key(out, number, 5);
            out.extend_from_slice(&rng.random::<u32>().to_le_bytes());
        }
        _ => {
            put_key(out, number, 0);
            let v = hostile_int(rng, field);
            prost::encoding::encode_varint(v, out);
        }
    }
}

/// Known field numbers with the wrong wire types, invalid wire types,
/// field number 0, overlong varints and lengths beyond the end.
fn wrong_wire(rng: &mut StdRng, schema: &Schema, type_name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let numbers: Vec<u32> = schema
        .messages
        .get(type_name)
        .map_or_else(Vec::new, |m| m.field.iter().map(|f| u32::try_from(f.number()).unwrap_or(1)).collect());
    for _ in 0..rng.random_range(1..5) {
        let number = numbers.choose(rng).copied().unwrap_or(1);
        match rng.random_range(0..8) {
            0 => {
                put_key(&mut out, number, 0);
                prost::encoding::encode_varint(rng.random(), &mut out);
            }
            1 => put_len(&mut out, number, &[0xff; 7]),
            2 => {
                put_key(&mut out, number, 1);
                out.extend_from_slice(&rng.random::<u64>().to_le_bytes());
            }
            3 => put_key(&mut out, number, rng.random_range(3..8)),
            4 => {
                // A length far beyond the end.
                put_key(&mut out, number, 2);
                prost::encoding::encode_varint(1 << 40, &mut out);
            }
            5 => {
                // An overlong varint.
                put_key(&mut out, number, 0);
                out.extend_from_slice(&[0xff; 11]);
            }
            6 => put_key(&mut out, 0, 0),
            _ => {
                // The largest field number, unknown to every message.
                put_key(&mut out, (1 << 29) - 1, 2);
                prost::encoding::encode_varint(1, &mut out);
                out.push(b'x');
            }
        }
    }
    out
}

/// A request: its kind, its bytes and its metadata.
struct Input {
    kind: &'static str,
    body: Vec<u8>,
    metadata: MetadataMap,
}

fn ascii(value: &str) -> AsciiMetadataValue {
    AsciiMetadataValue::try_from(value).unwrap_or_else(|_| AsciiMetadataValue::from_static("x"))
}

fn bearer(token: &str) -> AsciiMetadataValue {
    ascii(&format!("Bearer {token}"))
}

/// Mostly real tokens (so the handlers go deep), sometimes none.
fn usual_metadata(rng: &mut StdRng, dict: &Dictionary) -> MetadataMap {
    let mut metadata = MetadataMap::new();
    let token = match rng.random_range(0..20) {
        0..=11 => Some(ARBITER_TOKEN.to_string()),
        12 | 13 => Some(SERVICE_TOKEN.to_string()),
        14 | 15 => Some(VIEWER_TOKEN.to_string()),
        16..=18 => dict.player_tokens.choose(rng).cloned(),
        _ => None,
    };
    if let Some(token) = token {
        metadata.insert("authorization", bearer(&token));
    }
    metadata
}

/// Invalid, missing and odd authorization and metadata.
fn hostile_metadata(rng: &mut StdRng, dict: &Dictionary) -> MetadataMap {
    let mut metadata = usual_metadata(rng, dict);
    match rng.random_range(0..12) {
        0 => {
            metadata.remove("authorization");
        }
        1 => {
            metadata.insert("authorization", ascii("Bearer"));
        }
        2 => {
            metadata.insert("authorization", ascii(&format!("bearer {ARBITER_TOKEN}")));
        }
        3 => {
            metadata.insert("authorization", ascii("Basic YXJiaXRlcjpzZWNyZXQ="));
        }
        4 => {
            let junk: String =
                (0..rng.random_range(1..300)).map(|_| char::from(rng.random_range(33..127_u8))).collect();
            metadata.insert("authorization", bearer(&junk));
        }
        5 => {
            metadata.insert("authorization", bearer(&"t".repeat(7_000)));
        }
        6 => {
            metadata.insert("authorization", bearer(ARBITER_TOKEN));
            metadata.append("authorization", bearer(VIEWER_TOKEN));
        }
        7 => {
            let timeout =
                ["0n", "1n", "99999999H", "garbage", "-1S", "1u"].choose(rng).copied().unwrap_or("1n");
            metadata.insert("grpc-timeout", ascii(timeout));
        }
        8 => {
            let bytes: Vec<u8> = (0..rng.random_range(0..200)).map(|_| rng.random()).collect();
            metadata.insert_bin("x-fuzz-bin", BinaryMetadataValue::from_bytes(&bytes));
        }
        9 => {
            for i in 0..100 {
                let key = tonic::metadata::AsciiMetadataKey::from_str(&format!("x-fuzz-{i}"))
                    .expect("a valid metadata key");
                metadata.insert(key, ascii("v"));
            }
        }
        10 => {
            metadata.insert("grpc-accept-encoding", ascii("zstd, gzip, nonsense"));
        }
        _ => {
            let token = dict.player_tokens.choose(rng).map_or("x", String::as_str);
            // A player token with a flipped character.
            let mut flipped: Vec<u8> = token.bytes().collect();
            if let Some(last) = flipped.last_mut() {
                *last = if *last == b'A' { b'B' } else { b'A' };
            }
            metadata.insert("authorization", bearer(&String::from_utf8_lossy(&flipped)));
        }
    }
    metadata
}

fn generate(rng: &mut StdRng, schema: &Schema, dict: &Dictionary, method: &Method) -> Input {
    let kind = pick_kind(rng);
    let body = match kind {
        "structured" | "metadata" => structured(rng, schema, dict, &method.input, 0),
        "random-bytes" => (0..rng.random_range(0..300)).map(|_| rng.random()).collect(),
        "truncated" => {
            let mut body = structured(rng, schema, dict, &method.input, 0);
            if body.len() < 2 {
                body = structured(rng, schema, dict, &method.input, 0);
            }
            body.truncate(rng.random_range(0..body.len().max(1)));
            body
        }
        "wrong-typed" => {
            let other = schema.methods.choose(rng).map_or(method.input.as_str(), |m| m.input.as_str());
            structured(rng, schema, dict, other, 0)
        }
        "wrong-wire-type" => wrong_wire(rng, schema, &method.input),
        _ => {
            // Beyond the 64 KiB limit, or just under it with a giant string.
            let size = [60_000_usize, 100 * 1024, 4 * 1024 * 1024].choose(rng).copied().unwrap_or(100 * 1024);
            let mut body = Vec::with_capacity(size + 16);
            let number = schema
                .messages
                .get(&method.input)
                .and_then(|m| m.field.iter().find(|f| f.r#type() == Type::String))
                .map_or(1, |f| u32::try_from(f.number()).unwrap_or(1));
            put_len(&mut body, number, &vec![b'g'; size]);
            body
        }
    };
    let metadata = if kind == "metadata" { hostile_metadata(rng, dict) } else { usual_metadata(rng, dict) };
    Input { kind, body, metadata }
}

fn hex(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(96).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 96 { format!("{shown}... ({} bytes)", bytes.len()) } else { shown }
}

// ---------------------------------------------------------------------------
// The tally shared by the workers.

#[derive(Debug, Default)]
struct Tally {
    report: Report,
    /// Failures by a key (kind of finding, method, code), with a count and
    /// the first example.
    findings: BTreeMap<String, (u64, String)>,
}

impl Tally {
    fn finding(&mut self, key: String, example: impl FnOnce() -> String) {
        self.findings.entry(key).or_insert_with(|| (0, example())).0 += 1;
    }
}

/// The HTTP/2 reset behind a status the client made up from a RST_STREAM
/// (tonic maps NO_ERROR and PROTOCOL_ERROR resets to INTERNAL): the
/// transport's own, not an answer of the service.
fn h2_reset(status: &Status) -> Option<String> {
    let mut source = std::error::Error::source(status);
    while let Some(error) = source {
        if let Some(h2) = error.downcast_ref::<h2::Error>() {
            let side = if h2.is_remote() { "from the server" } else { "local" };
            return Some(match h2.reason() {
                Some(reason) => format!("{reason:?} {side}"),
                None => format!("{h2} {side}"),
            });
        }
        source = error.source();
    }
    None
}

/// The transport's own errors (connection reset, refused frames): not the
/// service's answers.
fn transport_error(status: &Status) -> bool {
    let message = status.message().to_ascii_lowercase();
    h2_reset(status).is_some()
        || ["transport error", "h2 protocol error", "connection", "broken pipe", "stream no longer needed"]
            .iter()
            .any(|m| message.contains(m))
}

/// A message with its numbers blanked and cut at its first quote (what
/// follows echoes the input), so alike errors count together.
fn shape(message: &str) -> String {
    let (quoted, cut) = message.find(['\'', '"']).map_or((message, ""), |at| (&message[..=at], "…"));
    let shaped: String = quoted.chars().take(80).map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
    shaped + cut
}

fn record(tally: &Mutex<Tally>, method: &Method, input: &Input, outcome: &Outcome, origin: &str) {
    let mut tally = tally.lock().unwrap_or_else(PoisonError::into_inner);
    *tally.report.sent.entry(input.kind.to_string()).or_default() += 1;
    let status = match outcome {
        Outcome::Ok => {
            *tally.report.codes.entry("Ok".into()).or_default() += 1;
            return;
        }
        Outcome::Hang => {
            *tally.report.codes.entry("Hang".into()).or_default() += 1;
            tally.finding(format!("no answer within 10 s from {} ({})", method.short, input.kind), || {
                format!("{origin}, input {}", hex(&input.body))
            });
            return;
        }
        Outcome::Status(status) => status,
    };
    let code = status.code();
    let service = method.short.split('/').next().unwrap_or_default();
    let example = || format!("{origin} [{}], input {}: {}", input.kind, hex(&input.body), status.message());
    if let Some(reset) = h2_reset(status) {
        // Made up by the client from a stream reset: counted apart.
        *tally.report.codes.entry(format!("{code:?} (client, from an h2 reset)")).or_default() += 1;
        if reset.ends_with("local") {
            // The client reset the stream because it could not read the
            // answer: its headers break the client's limits (an error that
            // echoes a large input into grpc-message and the details).
            tally.finding(
                format!("answer from {service} unreadable by a tonic client (h2 {reset}), seen as {code:?}"),
                example,
            );
        } else {
            let key = format!("h2 reset {reset} -> client {code:?} on {service}");
            let first = format!("{}: {}", method.short, status.message());
            tally.report.exceptions.entry(key).or_insert((0, first)).0 += 1;
        }
        return;
    }
    *tally.report.codes.entry(format!("{code:?}")).or_default() += 1;
    match code {
        Code::Internal if status.message().starts_with("failed to decode Protobuf message") => tally.finding(
            format!(
                "INTERNAL for an undecodable request to {service} (tonic-prost maps DecodeError to INTERNAL)"
            ),
            example,
        ),
        Code::Internal => tally.finding(format!("INTERNAL from {} ({})", method.short, input.kind), example),
        Code::Unknown if !transport_error(status) => {
            tally.finding(format!("UNKNOWN from {} ({})", method.short, input.kind), example);
        }
        _ => {
            let info = status.get_details_error_info();
            let described =
                method.api && info.as_ref().is_some_and(|i| i.domain == DOMAIN && !i.reason.is_empty());
            if !described {
                let key = format!("{code:?} {service}: {}", shape(status.message()));
                tally.report.exceptions.entry(key).or_insert((0, method.short.clone())).0 += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Raw HTTP/2 abuses.

/// One abuse of the gRPC framing on a fresh HTTP/2 connection; returns how
/// the server answered (`http <status> grpc-status <code>`).
async fn h2_abuse(addr: SocketAddr, which: usize) -> String {
    let exchange = async move {
        let (path, content_type, encoding, body): (&str, &str, Option<&str>, Vec<u8>) = match which {
            // The length prefix promises more than the body holds.
            0 => ("/arbiter.v1.ArbiterService/GetGame", "application/grpc", None, {
                let mut b = vec![0, 0, 0, 0x03, 0xe8];
                b.extend_from_slice(b"\x0a\x05games");
                b
            }),
            // The compressed flag without a grpc-encoding.
            1 => ("/arbiter.v1.ArbiterService/GetGame", "application/grpc", None, {
                let mut b = vec![1, 0, 0, 0, 8];
                b.extend_from_slice(b"\x0a\x06games/");
                b
            }),
            // Gzip announced, garbage sent.
            2 => (
                "/arbiter.v1.ArbiterService/ListGames",
                "application/grpc",
                Some("gzip"),
                vec![1, 0, 0, 0, 4, 0xde, 0xad, 0xbe, 0xef],
            ),
            // Not gRPC at all.
            3 => ("/arbiter.v1.ArbiterService/ListGames", "application/json", None, b"{}".to_vec()),
            // An unknown method and a nonsense path.
            4 => ("/arbiter.v1.ArbiterService/NoSuchMethod", "application/grpc", None, vec![0, 0, 0, 0, 0]),
            5 => ("/x", "application/grpc", None, vec![0, 0, 0, 0, 0]),
            // Half a frame header.
            6 => ("/arbiter.v1.ArbiterService/GetGame", "application/grpc", None, vec![0, 0, 0]),
            // Two messages to a unary method.
            _ => ("/arbiter.v1.ArbiterService/ListGames", "application/grpc", None, vec![0; 10]),
        };
        let tcp = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        let (client, connection) = h2::client::handshake(tcp).await.map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let mut client = client.ready().await.map_err(|e| format!("ready: {e}"))?;
        let mut request = http::Request::builder()
            .method("POST")
            .uri(format!("http://{addr}{path}"))
            .header("content-type", content_type)
            .header("te", "trailers")
            .header("authorization", format!("Bearer {ARBITER_TOKEN}"));
        if let Some(encoding) = encoding {
            request = request.header("grpc-encoding", encoding);
        }
        let request = request.body(()).map_err(|e| format!("request: {e}"))?;
        let (response, mut send) = client.send_request(request, false).map_err(|e| format!("send: {e}"))?;
        send.send_data(Bytes::from(body), true).map_err(|e| format!("data: {e}"))?;
        let response = response.await.map_err(|e| format!("response: {e}"))?;
        let http_status = response.status().as_u16();
        let mut grpc_status =
            response.headers().get("grpc-status").map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let mut body = response.into_body();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(|e| format!("body: {e}"))?;
            let _ = body.flow_control().release_capacity(chunk.len());
        }
        if let Ok(Some(trailers)) = body.trailers().await
            && let Some(v) = trailers.get("grpc-status")
        {
            grpc_status = Some(String::from_utf8_lossy(v.as_bytes()).into_owned());
        }
        Ok::<String, String>(format!(
            "http {http_status} grpc-status {}",
            grpc_status.unwrap_or_else(|| "-".into())
        ))
    };
    let outcome = match tokio::time::timeout(Duration::from_secs(10), exchange).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => error.split(':').next().unwrap_or_default().to_string() + " error",
        Err(_) => "no answer within 10 s".to_string(),
    };
    format!("abuse {which}: {outcome}")
}

// ---------------------------------------------------------------------------
// The real games.

#[derive(Debug, Clone)]
struct RealGame {
    name: String,
    white_token: String,
    black_token: String,
}

async fn create_games(daemon: &Daemon, count: usize) -> Result<Vec<RealGame>, String> {
    let mut arbiter = daemon.arbiter();
    let mut games = Vec::new();
    for i in 0..count {
        let mode = if i % 2 == 0 { pb::Mode::Online } else { pb::Mode::OverTheBoard };
        let mut request = crate::new_game(crate::regulations("90+30", mode), true);
        request.event = "Fuzz Open".into();
        let created =
            arbiter.create_game(request).await.map_err(|e| format!("CreateGame: {e:?}"))?.into_inner();
        let name = created.game.map(|g| g.name).unwrap_or_default();
        if mode == pb::Mode::Online {
            let mut white = daemon.client(&created.white_token);
            let mut black = daemon.client(&created.black_token);
            for (client, mv) in [(&mut white, "e2e4"), (&mut black, "e7e5")] {
                client
                    .make_move(crate::make_move(&name, mv))
                    .await
                    .map_err(|e| format!("move {mv}: {e:?}"))?;
            }
        } else {
            crate::play_otb(&mut arbiter, &name, 0, &["d2d4", "d7d5"]).await;
        }
        games.push(RealGame { name, white_token: created.white_token, black_token: created.black_token });
    }
    Ok(games)
}

/// The game reads, its log is 1..n without gaps up to its `last_seq`, and
/// it exports.
async fn check_game(daemon: &Daemon, name: &str) -> Result<(), String> {
    let mut arbiter = daemon.arbiter();
    let game = arbiter
        .get_game(pb::GetGameRequest { name: name.to_string() })
        .await
        .map_err(|e| format!("{name}: GetGame: {e:?}"))?
        .into_inner()
        .game
        .ok_or_else(|| format!("{name}: GetGame without a game"))?;
    let seqs: Vec<i64> = crate::try_all_events(&mut arbiter, name)
        .await
        .map_err(|e| format!("{name}: ListGameEvents: {e:?}"))?
        .iter()
        .map(|e| e.seq)
        .collect();
    let expected: Vec<i64> = (1..=game.last_seq).collect();
    if seqs != expected {
        return Err(format!("{name}: event seqs {seqs:?}, expected 1..={}", game.last_seq));
    }
    let pgn = arbiter
        .export_pgn(pb::ExportPgnRequest { name: name.to_string() })
        .await
        .map_err(|e| format!("{name}: ExportPgn: {e:?}"))?
        .into_inner()
        .pgn;
    if !pgn.contains("[Event ") {
        return Err(format!("{name}: ExportPgn without tags: {pgn:.200}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The run.

/// Fuzzes a fresh `arbiterd` for `options.seconds`.
pub async fn run(options: &Options) -> Report {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("fuzz.db").display());
    let log_path = dir.path().join("arbiterd.log");
    let spawned = {
        let (url, log_path) = (url.clone(), log_path.clone());
        // Hostile metadata fails authentication often; throttled, most of
        // the requests after it would be refused before reaching a handler,
        // which is what this run explores. The throttle has tests of its own.
        tokio::task::spawn_blocking(move || Daemon::spawn(&url, &log_path, &["--auth-failure-burst", "0"]))
            .await
    };
    let mut daemon = spawned.expect("arbiterd starts");
    let mut report = Report { seed: options.seed, ..Report::default() };
    eprintln!("fuzz: seed {} (replay with ARBITER_FUZZ_SEED={})", options.seed, options.seed);

    let games = match create_games(&daemon, options.games).await {
        Ok(games) => games,
        Err(e) => {
            report.failures.push(format!("could not create the real games: {e}"));
            return report;
        }
    };
    let schema = Arc::new(Schema::load());
    let dict = Arc::new(Dictionary::new(&games, &schema));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(options.seconds);

    // Responsiveness: a health check every second on a connection of its own.
    let health = {
        let channel = daemon.channel();
        tokio::spawn(async move {
            let mut client = tonic_health::pb::health_client::HealthClient::new(channel);
            let (mut checks, mut max, mut late) = (0_u64, Duration::ZERO, Vec::new());
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            while Instant::now() < deadline {
                tick.tick().await;
                let sent = Instant::now();
                let answer = tokio::time::timeout(
                    Duration::from_secs(5),
                    client.check(tonic_health::pb::HealthCheckRequest { service: String::new() }),
                )
                .await;
                let latency = sent.elapsed();
                checks += 1;
                max = max.max(latency);
                match answer {
                    Ok(Ok(_)) if latency <= Duration::from_secs(1) => {}
                    Ok(Ok(_)) => late.push(format!("health check answered in {} ms", latency.as_millis())),
                    Ok(Err(e)) => late.push(format!("health check failed: {e:?}")),
                    Err(_) => late.push("health check unanswered in 5 s".to_string()),
                }
            }
            (checks, max, late)
        })
    };

    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..options.workers {
        let (schema, dict, tally, daemon_url, addr) =
            (schema.clone(), dict.clone(), tally.clone(), daemon.url(), daemon.addr);
        let seed = options.seed;
        workers.spawn(async move {
            let channel = Channel::from_shared(daemon_url).expect("url").connect_lazy();
            let mut grpc = Grpc::new(channel).max_decoding_message_size(64 * 1024 * 1024);
            let mut rng =
                StdRng::seed_from_u64(seed ^ (worker as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut last_abuse = Instant::now();
            let mut abuse = worker;
            let mut index = 0_u64;
            while Instant::now() < deadline {
                if worker == 0 && last_abuse.elapsed() > Duration::from_millis(1500) {
                    let answer = h2_abuse(addr, abuse % 8).await;
                    abuse += 1;
                    last_abuse = Instant::now();
                    let mut tally = tally.lock().unwrap_or_else(PoisonError::into_inner);
                    *tally.report.h2.entry(answer).or_default() += 1;
                    *tally.report.sent.entry("raw-h2".into()).or_default() += 1;
                    continue;
                }
                // The API most of the time, health and reflection sometimes.
                let api = rng.random_bool(0.88);
                let method = schema.methods.iter().filter(|m| m.api == api).collect::<Vec<_>>();
                let Some(method) = method.choose(&mut rng).copied() else { continue };
                let input = generate(&mut rng, &schema, &dict, method);
                let metadata = input.metadata.clone();
                let outcome = call(&mut grpc, method, Bytes::from(input.body.clone()), metadata).await;
                let origin = format!("seed {seed} worker {worker} request {index} ({})", method.short);
                record(&tally, method, &input, &outcome, &origin);
                index += 1;
            }
        });
    }
    workers.join_all().await;
    let fuzzed = started.elapsed();
    let (checks, max, late) =
        health.await.unwrap_or_else(|_| (0, Duration::ZERO, vec!["health task died".into()]));

    let Tally { report: tallied, findings } =
        std::mem::take(&mut *tally.lock().unwrap_or_else(PoisonError::into_inner));
    report.sent = tallied.sent;
    report.codes = tallied.codes;
    report.exceptions = tallied.exceptions;
    report.h2 = tallied.h2;
    report.health_checks = checks;
    report.max_health_latency = max;
    report.failures.extend(late);
    for (key, (count, example)) in findings {
        report.failures.push(format!("{count} x {key}; first: {example}"));
    }

    // After the storm: alive, no panic, the real games consistent.
    if !daemon.is_running() {
        report.failures.push("arbiterd is no longer running".into());
    } else {
        for game in &games {
            if let Err(e) = check_game(&daemon, &game.name).await {
                report.failures.push(e);
            }
        }
    }
    for line in daemon.panics() {
        report.failures.push(format!("panic in the log: {line}"));
    }
    report.seconds = fuzzed.as_secs_f64();
    let _ = tokio::task::spawn_blocking(move || daemon.terminate()).await;
    report
}
