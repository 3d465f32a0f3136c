//! # arbiter-client
