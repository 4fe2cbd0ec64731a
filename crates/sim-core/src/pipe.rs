//! A constant-delay pipe: the propagation part of a link.
//!
//! Every packet spends the same time inside, so the pipe is a FIFO and only its head needs a
//! pending event.

use crate::packet::{PacketArena, PacketFifo, PacketId};
use crate::time::Time;

/// Propagation delay as a FIFO of packets, each leaving `delay` after it entered.
pub struct Pipe {
    delay: Time,
    fifo: PacketFifo,
}

impl Pipe {
    /// A pipe of constant `delay`.
    pub fn new(delay: Time) -> Pipe {
        Pipe { delay, fifo: PacketFifo::default() }
    }

    /// The time every packet spends inside (the one-way delay of the path it models).
    pub fn delay(&self) -> Time {
        self.delay
    }

    /// Whether the pipe is empty.
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Puts `id` in at `now`; returns its exit time if it is the new head (an exit event is due).
    /// A packet whose `due` field is already later than `now + delay` leaves then instead: a
    /// sender's send delay, in a pipe of its own (the sender keeps those times in order; any
    /// other packet's `due` is the time it left its previous hop, not later than `now`).
    #[inline]
    pub fn enter(&mut self, arena: &mut PacketArena, id: PacketId, now: Time) -> Option<Time> {
        let due = now.plus(self.delay).max(arena[id].due);
        let was_empty = self.fifo.is_empty();
        self.fifo.push_due(arena, id, due);
        was_empty.then_some(due)
    }

    /// Takes the head out; returns it and the exit time of the next packet, if any.
    #[inline]
    pub fn exit(&mut self, arena: &mut PacketArena) -> (PacketId, Option<Time>) {
        let id = self.fifo.pop(arena).expect("exit from an empty pipe");
        (id, self.fifo.head().map(|h| arena[h].due))
    }
}
