//! Transport mechanics of equipoise: TCP over the `sim-core` network.
//!
//! A tour:
//!
//! - [`config`]: [`TcpConfig`], the transport settings (minimum RTO, initial window, …).
//! - [`rtt`]: the RFC 6298 estimator behind the retransmission timer.
//! - [`sender`]: one subflow's sequence, recovery and timer state (RFC 5681, RFC 6582).
//! - [`receiver`] and [`seqset`]: cumulative ACKs over out-of-order buffering, optional
//!   delayed ACKs.
//! - [`connection`]: a connection's subflows, the data-level sequence, the multipath
//!   scheduler, reinjection and the receive buffer; [`newreno`]: the NewReno machine of each
//!   subflow, asking the connection's `mptcp_cc` controller for every window change.
//! - [`simulation`]: links and flows over one network, the event loop (a `match` over the
//!   closed [`Event`] enum), and the [`records`] a run reports.

pub mod config;
pub mod connection;
pub mod event;
pub mod newreno;
pub mod receiver;
pub mod records;
pub mod rtt;
pub mod sender;
pub mod seqset;
pub mod simulation;

pub use config::{Recovery, TcpConfig};
pub use event::Event;
pub use records::{FlowRecord, LinkRecord, RunOutput, RunStats, Sample, SubflowRecord};
pub use simulation::{FlowSpec, LinkIndex, LinkSpec, SimConfig, Simulation};
