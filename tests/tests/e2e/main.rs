//! The end-to-end suite as one test binary, so the server is linked once rather than once per file.

mod api;
mod articles;
mod audit_clock;
mod audit_touch;
mod auth;
mod board;
mod board_bridge;
mod clocks;
mod connections;
mod draws;
mod exam;
mod games;
mod health;
mod keys;
mod otb;
mod quota;
mod request_ids;
mod restart;
mod revocation;
mod scoresheet;
mod smoke;
mod snapshots;
mod time_controls;
mod tls;
mod upgrade;
mod watch;
