//! # arbiter-server
