//! The end-to-end suite as one test binary, so the server is linked once rather than once per file.

mod api;
mod audit_clock;
mod auth;
mod clocks;
mod draws;
mod games;
mod health;
mod otb;
mod restart;
mod smoke;
mod snapshots;
mod tls;
mod upgrade;
mod watch;
