//! The abstract AIMD model of seed 004 §II ("Parallel TCP sockets"), separate from packet-level
//! TCP.
//!
//! N connections share a link of capacity `c`. Between congestion events every rate grows
//! linearly (`dx_i/dt = η_i`); a congestion event happens when the rates add up to `c`, and the
//! loss policy decides who is cut to `β_i·x_i`: under ONE a single connection, chosen
//! rate-proportionally, by largest rate, with fixed probabilities (rate-independent) or by
//! beatdown; under ALL every connection. Between events the system is linear, so the engine
//! jumps from event to event and integrates rates and squared rates exactly ([`run`]).
//!
//! It exists to reproduce the paper's model results (Theorems 1 and 2) and to be the reference
//! its packet-level experiments, the threshold-dropper runs of §V-D, are compared with.
//!
//! - [`model`]: the configuration ([`Model`], [`Connection`], [`Policy`]) and its validation.
//! - [`engine`]: the event loop and its [`Report`].
//! - [`theory`]: the paper's closed forms (Theorem 1, ALL, MultTCP, Theorem 2) for comparison.

pub mod engine;
pub mod model;
pub mod theory;

pub use engine::{ConnectionReport, Report, run};
pub use model::{Connection, Model, ModelError, Policy};
