//! # arbiter-proto
//!
//! The Arbiter gRPC API, package `arbiter.v1`, generated at build time
//! from the `.proto` files in the repository's `proto/` directory with
//! protox, so no system `protoc` is needed. The `.proto` files are the
//! documentation of every RPC and message.

#![allow(missing_docs, clippy::all)]

/// `arbiter.v1`: messages, the `ArbiterService` client and server.
pub mod v1 {
    tonic::include_proto!("arbiter.v1");
}

/// The encoded file descriptor set of the API, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("arbiter_descriptor");
