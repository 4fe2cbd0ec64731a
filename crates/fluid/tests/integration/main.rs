//! The fluid model's integration tests, one module per subject, in one binary: one link, and the
//! harness spreads them over every core. `cargo test --release -p fluid --test integration
//! MODULE::` runs one module.

mod common;
mod fattree;
mod queues;
mod reno;
mod seed000;
mod seed001;
mod seed002;
mod trajectory;
