//! The command line's integration tests, one module per subject, in one binary so that the
//! harness spreads them over every core and the build links one executable, not ten. The
//! testbed's tests are a binary of their own (`--test testbed`): they run in real time and are
//! kept from sharing the cores with others.
//! `cargo test --release -p equipoise --test integration MODULE::` runs one module.

mod capture;
mod cli;
mod common;
mod docs;
mod finite;
mod fluid;
mod grid_counts;
mod ns2;
mod outputs;
mod report;
mod schema;
mod sweep;
