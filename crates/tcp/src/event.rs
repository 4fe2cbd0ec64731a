//! The closed set of events a simulation schedules.

use sim_core::{NetEvent, QueueId};

/// Index of a subflow across the whole simulation.
pub type SubflowIndex = u32;

/// Everything that can happen in a run; the event loop is one `match` over this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A queue finished serializing a packet, or a packet left a pipe.
    Net(NetEvent),
    /// A subflow's retransmission-timer wake-up.
    Retransmit(SubflowIndex),
    /// A subflow receiver's delayed-ACK timer, of the given generation.
    DelayedAck(SubflowIndex, u32),
    /// A connection starts sending.
    Start(u32),
    /// A connection stops offering new data.
    Stop(u32),
    /// A link goes down (`false`) or comes back up (`true`).
    LinkState(QueueId, bool),
    /// The warm-up ends: statistics start from here.
    WarmupEnd,
    /// Record one row of the time series per subflow.
    Sample,
}

impl From<NetEvent> for Event {
    #[inline]
    fn from(e: NetEvent) -> Event {
        Event::Net(e)
    }
}
