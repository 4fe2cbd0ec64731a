//! The simulator's integration tests, one module per subject, in one binary so that the
//! harness spreads them over every core and the build links one executable, not eight.
//! `cargo test --release -p topologies --test integration MODULE::` runs one module.

mod common;
mod fluid;
mod fuzz;
mod golden;
mod ns2;
mod parallel;
mod profiles;
mod scenarios;
