//! The TCP's integration tests, one module per subject, in one binary: one link, and the
//! harness spreads them over every core. `cargo test --release -p tcp --test integration
//! MODULE::` runs one module.

mod behaviour;
mod common;
mod multipath;
mod profiles;
mod recovery;
