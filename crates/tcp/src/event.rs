//! The closed set of events a simulation schedules, and their 32-bit encoding.

use sim_core::{EventCode, LinkId, NetEvent, PipeId};

/// Index of a subflow across the whole simulation.
pub type SubflowIndex = u32;

/// Everything that can happen in a run; the event loop is one `match` over this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A packet reached the far end of a link or of a pipe.
    Net(NetEvent),
    /// A subflow's sender timer: RTO, tail loss probe or RACK's reorder timer (stale if the
    /// sender re-armed it since).
    Retransmit(SubflowIndex),
    /// A subflow receiver's delayed-ACK timer.
    DelayedAck(SubflowIndex),
    /// The connection with this index starts: its first SYN, or data without a handshake.
    Start(u32),
    /// A connection stops offering new data.
    Stop(u32),
    /// A link goes down (`false`) or comes back up (`true`).
    LinkState(LinkId, bool),
    /// The warm-up ends: statistics start from here.
    WarmupEnd,
    /// Record one row of the time series per subflow.
    Sample,
    /// A scan of the coarse timers due now ([`crate::connection::TimerScans`]).
    TimerScan,
}

impl From<NetEvent> for Event {
    #[inline]
    fn from(e: NetEvent) -> Event {
        Event::Net(e)
    }
}

/// Bits for the index of the queue, pipe, subflow or connection an event concerns.
const INDEX_BITS: u32 = 29;
/// The largest index an event can carry.
pub const MAX_INDEX: u32 = (1 << INDEX_BITS) - 1;

impl EventCode for Event {
    /// Three bits of kind above a 29-bit index.
    #[inline]
    fn encode(self) -> u32 {
        let (kind, index) = match self {
            Event::Net(NetEvent::LinkExit(l)) => (0, l.0),
            Event::Net(NetEvent::PipeExit(p)) => (1, p.0),
            Event::Retransmit(s) => (2, s),
            // No subflow has the largest index (the simulation keeps them below half of it).
            Event::TimerScan => (2, MAX_INDEX),
            Event::DelayedAck(s) => (3, s),
            Event::Start(c) => (4, c),
            Event::Stop(c) => (5, c),
            Event::LinkState(l, up) => (6, l.0 * 2 + up as u32),
            Event::WarmupEnd => (7, 0),
            Event::Sample => (7, 1),
        };
        debug_assert!(index <= MAX_INDEX);
        kind << INDEX_BITS | index
    }

    #[inline]
    fn decode(code: u32) -> Event {
        let index = code & MAX_INDEX;
        match code >> INDEX_BITS {
            0 => Event::Net(NetEvent::LinkExit(LinkId(index))),
            1 => Event::Net(NetEvent::PipeExit(PipeId(index))),
            2 if index == MAX_INDEX => Event::TimerScan,
            2 => Event::Retransmit(index),
            3 => Event::DelayedAck(index),
            4 => Event::Start(index),
            5 => Event::Stop(index),
            6 => Event::LinkState(LinkId(index / 2), index % 2 == 1),
            _ if index == 0 => Event::WarmupEnd,
            _ => Event::Sample,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_its_encoding() {
        let events = [
            Event::Net(NetEvent::LinkExit(LinkId(7))),
            Event::Net(NetEvent::PipeExit(PipeId(MAX_INDEX))),
            Event::Retransmit(3),
            Event::DelayedAck(0),
            Event::Start(12),
            Event::Stop(13),
            Event::LinkState(LinkId(5), true),
            Event::LinkState(LinkId(5), false),
            Event::WarmupEnd,
            Event::Sample,
            Event::TimerScan,
        ];
        for e in events {
            assert_eq!(Event::decode(e.encode()), e);
        }
    }
}
