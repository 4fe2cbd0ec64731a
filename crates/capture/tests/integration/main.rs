//! The capture writer's integration tests, one module per subject, in one binary: one link, and the
//! harness spreads them over every core. `cargo test --release -p capture --test integration
//! MODULE::` runs one module.

mod common;
mod file;
mod mptcp;
mod tcp;
