//! Compiles `proto/arbiter/v1/*.proto` with protox (pure Rust, no
//! system protoc) and generates the tonic client and server.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let dir = root.join("arbiter/v1");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    files.sort();
    let fds = protox::compile(&files, [&root])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    // `prost::Name` on every message: the CLI prints any of them as
    // canonical proto3 JSON by its full name (`arbiter.v1.Game`), checked
    // by the compiler instead of spelled in strings.
    let mut config = tonic_prost_build::Config::new();
    config.enable_type_names();
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds_with_config(fds, config)?;
    println!("cargo:rerun-if-changed={}", root.display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    Ok(())
}
