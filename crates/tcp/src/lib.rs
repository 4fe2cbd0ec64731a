//! Transport mechanics of equipoise: TCP over the `sim-core` network.
//!
//! A crate of its own because the seeds' results depend on the TCP beneath a window law as
//! much as on the law: loss recovery, timers and ACK policy differ between the Linux, htsim
//! and ns-2 stacks the papers used, so they are modelled in detail here, apart from the laws
//! (`mptcp-cc`) and the network (`sim-core`).
//!
//! A tour:
//!
//! - [`config`]: [`TcpConfig`], the transport settings, and the [`Profile`]s (`linux`,
//!   `htsim`, `ns2-sack`, `newreno`) that are sets of their defaults.
//! - [`rtt`]: the RFC 6298 or Linux estimator behind the retransmission timer.
//! - [`sender`]: one subflow's sender as an I/O-free state machine: sequence, loss recovery
//!   (NewReno, or SACK with RFC 6675, PRR and RACK-TLP on the [`scoreboard`]), timer and
//!   handshake; it asks its [`sender::Window`] (the connection's `mptcp_cc` law) for every
//!   window change.
//! - [`receiver`] and [`seqset`]: cumulative ACKs over out-of-order buffering, SACK blocks,
//!   delayed ACKs with quick-ACKs.
//! - [`connection`]: a connection's subflows, the data-level sequence, the receive buffer and
//!   the receiving side, and (its own module, with the connection's private state) what the
//!   senders ask for carried out, the multipath scheduler and reinjection.
//! - [`simulation`]: links and flows over one network, the event loop (a `match` over the
//!   closed [`Event`] enum), and the [`records`] a run reports.

pub mod config;
pub mod connection;
pub mod event;
pub mod receiver;
pub mod records;
pub mod rtt;
pub mod scoreboard;
pub mod segment_map;
pub mod sender;
pub mod seqset;
pub mod simulation;
pub mod tap;

pub use config::{
    FullAck, Growth, PartialAckTimer, Profile, Recovery, RtoFormula, SETTINGS, SettingKind, SettingValue, TcpConfig, TcpOverrides,
};
pub use event::Event;
pub use records::{FlowRecord, LinkRecord, RunOutput, RunStats, Sample, SubflowRecord};
pub use simulation::{FlowSpec, LinkIndex, LinkSpec, Progress, SimConfig, Simulation};
pub use tap::{CaptureSink, CaptureSpec};
