//! The reliability scenarios in their short form (the long forms run with
//! `cargo run --release -p arbiter-e2e --example reliability`).

mod crash;
mod faults;
mod fuzz;
mod replicas;
mod soak;
