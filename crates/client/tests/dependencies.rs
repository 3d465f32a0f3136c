//! `arbiter-client` stays a library a service can take without the CLI's
//! baggage: its normal (not dev, not build) dependencies are the generated
//! API, tonic, tokio, thiserror, uuid and backon (the retry waits), and nothing it pulls in, however
//! deep, is the command-line parser, `anyhow`, JSON, or the rules core
//! (whose attack tables are generated at compile time).

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

/// What the client may depend on directly.
const ALLOWED: &[&str] = &[
    "arbiter-proto",
    "backon",
    "prost",
    "prost-types",
    "thiserror",
    "tokio",
    "tokio-stream",
    "tonic",
    "tonic-health",
    "tonic-types",
    "uuid",
];

/// What must not be anywhere below it.
const FORBIDDEN: &[&str] = &[
    "anyhow",
    "arbiter-chess",
    "arbiter-cli",
    "arbiter-laws",
    "arbiter-server",
    "clap",
    "clap_complete",
    "serde_json",
];

/// The machine's target triple (`rustc -vV`).
fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output = Command::new(rustc).arg("-vV").output().expect("run rustc -vV");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc -vV names the host").to_owned()
}

/// The workspace's resolved graph for this machine, from `cargo metadata`
/// (offline: the lock file has every version; filtered to the host, so
/// packages of other platforms need not be on disk).
fn metadata() -> Value {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
            &host(),
            "--manifest-path",
        ])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// The package name of a package id.
fn names(metadata: &Value) -> HashMap<&str, &str> {
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("id"), p["name"].as_str().expect("name")))
        .collect()
}

/// The normal dependencies of a node of the resolved graph (a dependency
/// of several kinds counts when one of them is normal, `kind: null`).
fn normal_deps(node: &Value) -> impl Iterator<Item = &str> {
    node["deps"].as_array().expect("deps").iter().filter_map(|dep| {
        let normal = dep["dep_kinds"].as_array().expect("dep_kinds").iter().any(|k| k["kind"].is_null());
        normal.then(|| dep["pkg"].as_str().expect("pkg"))
    })
}

#[test]
fn the_client_depends_on_the_api_and_tonic_and_little_else() {
    let metadata = metadata();
    let names = names(&metadata);
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes")
        .iter()
        .map(|n| (n["id"].as_str().expect("id"), n))
        .collect();
    let client =
        nodes.keys().copied().find(|id| names[id] == "arbiter-client").expect("arbiter-client in the graph");

    let direct: BTreeSet<&str> = normal_deps(nodes[client]).map(|id| names[id]).collect();
    let unexpected: Vec<&&str> = direct.iter().filter(|name| !ALLOWED.contains(name)).collect();
    assert!(unexpected.is_empty(), "arbiter-client depends on {unexpected:?} (all: {direct:?})");
    assert!(direct.contains("arbiter-proto") && direct.contains("tonic"), "{direct:?}");

    // Everything linked below it: normal dependencies only, and not the
    // dependencies of procedural macros, which run in the compiler and are
    // never part of a service's binary (prost's derive uses anyhow).
    let proc_macros: BTreeSet<&str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| {
            p["targets"].as_array().is_some_and(|ts| {
                ts.iter().any(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "proc-macro")))
            })
        })
        .map(|p| p["id"].as_str().expect("id"))
        .collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![client];
    while let Some(id) = stack.pop() {
        for dep in normal_deps(nodes[id]) {
            if seen.insert(dep) && !proc_macros.contains(dep) {
                stack.push(dep);
            }
        }
    }
    let below: BTreeSet<&str> = seen.iter().map(|id| names[id]).collect();
    let pulled: Vec<&&str> = FORBIDDEN.iter().filter(|name| below.contains(*name)).collect();
    assert!(pulled.is_empty(), "arbiter-client pulls in {pulled:?}");
}
