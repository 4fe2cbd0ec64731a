//! The event core of equipoise: everything a packet-level simulation needs below the transport.
//!
//! A tour, bottom up:
//!
//! - [`time`] and [`units`]: integer picosecond [`Time`] and bit-per-second [`Rate`], so that
//!   serialization times are exact and runs reproducible.
//! - [`events`]: the [`EventList`], a heap ordered by `(time, sequence)`; same-time events run
//!   in the order they were scheduled.
//! - [`packet`]: the [`PacketArena`] (a `Vec` with a free list, packets named by `u32` ids) and
//!   the intrusive [`PacketFifo`] that queues and pipes are built from.
//! - [`discipline`] and [`link`]: a [`Link`] is an output queue served at the link rate
//!   (drop-tail, RED or a random drop zone, exogenous Bernoulli loss, up/down state) followed
//!   by a propagation delay, with one pending event at most and its [`LinkCounters`];
//!   [`red_ns2`] is RED as ns-2.35 computes it, [`mrg32k3a`] ns-2's random numbers for it.
//!   [`round_robin`] serves a link's buffer among flows in turn instead (htsim's host queue).
//! - [`pipe`]: a constant delay with no queue (uncongested ACK paths), likewise one event.
//! - [`network`]: links and pipes in typed arenas, routes as runs of a hop table, and the
//!   forwarding `match` that moves packets along.
//! - [`rng`]: per-component random streams derived from the run seed and the component's name.
//!
//! This crate does no I/O and never reads a clock: a run is a pure function of its inputs.

pub mod discipline;
pub mod events;
pub mod link;
pub mod mrg32k3a;
pub mod network;
pub mod packet;
pub mod pipe;
pub mod red_ns2;
pub mod rng;
pub mod round_robin;
pub mod threshold;
pub mod time;
pub mod units;

pub use discipline::{BufferLimit, Discipline, DropReason, Red};
pub use events::{Due, EventCode, EventList};
pub use link::{Admission, Link, LinkCounters};
pub use mrg32k3a::Mrg32k3a;
pub use network::{Delivery, Hop, LinkId, NetEvent, Network, PipeId, RouteId, Tapped};
pub use packet::{Packet, PacketArena, PacketFifo, PacketId, PacketKind};
pub use pipe::Pipe;
pub use red_ns2::{Ns2Red, RedUnit};
pub use time::Time;
pub use units::Rate;
