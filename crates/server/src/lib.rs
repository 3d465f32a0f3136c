//! # arbiter-server
//!
//! The Arbiter gRPC service.

pub mod store;
