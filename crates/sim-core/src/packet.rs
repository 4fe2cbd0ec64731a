//! Packets, the arena they live in, and intrusive FIFO queues of packet ids.
//!
//! A packet is created once and named by a `u32` [`PacketId`] until it is freed; queues and pipes
//! link packets through the `next` field stored inside each packet, so moving a packet between
//! components never allocates. Freed slots are reused through a free list.

use crate::time::Time;

/// Index of a packet in the [`PacketArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PacketId(u32);

impl PacketId {
    const NIL: u32 = u32::MAX;
}

/// What a packet carries: it tells endpoints how to read `seq`, and indexes the network's
/// per-kind drop counts ([`crate::Network::dropped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A data segment; `seq` is its segment number.
    Data = 0,
    /// A cumulative acknowledgement; `seq` is the next segment the receiver expects.
    Ack = 1,
    /// A SYN or SYN-ACK of a connection's handshake.
    Handshake = 2,
}

/// One packet in flight. Plain data: transports fill the fields they need.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    next: u32,
    /// Index of the hop this packet is at in the network's hop table.
    pub hop: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// What it carries, which decides how `seq`, `retransmitted`, `timestamp` and `sack` are
    /// read.
    pub kind: PacketKind,
    /// Data: this segment is a retransmission. Ack: the segment that triggered it was one.
    pub retransmitted: bool,
    /// Data: segment number within its subflow. Ack: cumulative acknowledgement.
    pub seq: u64,
    /// Data-level sequence number (multipath connections; equals `seq` for single-path TCP).
    pub data_seq: u64,
    /// Data: when it was sent. Ack: the echoed send time of the segment that triggered it.
    pub timestamp: Time,
    /// When the packet leaves the pipe it is in (a sender's send delay: see [`crate::Pipe::enter`]).
    pub due: Time,
    /// Ack: up to three SACK blocks (RFC 2018), most recent first, each `(start, end)` as
    /// offsets above `seq` (segments `seq + start .. seq + end`); `(0, 0)` marks no block.
    pub sack: [(u32, u32); 3],
}

impl Packet {
    /// The packet queued after this one, if any (what [`PacketFifo::after`] answers, read from
    /// a packet at hand).
    #[inline]
    pub(crate) fn next_queued(&self) -> Option<PacketId> {
        (self.next != PacketId::NIL).then_some(PacketId(self.next))
    }

    /// A packet of `size` bytes starting at hop `hop`, with every other field zero.
    pub fn new(kind: PacketKind, size: u32, hop: u32) -> Packet {
        Packet {
            next: PacketId::NIL,
            hop,
            size,
            kind,
            retransmitted: false,
            seq: 0,
            data_seq: 0,
            timestamp: Time::ZERO,
            due: Time::ZERO,
            sack: [(0, 0); 3],
        }
    }
}

/// Storage for every live packet of a run, with a free list of released slots.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
}

impl PacketArena {
    /// An arena with no slots; it grows to the run's peak of live packets, then reuses freed
    /// slots.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `packet` and returns its id, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = packet;
            PacketId(i)
        } else {
            let i = self.slots.len();
            assert!(i < PacketId::NIL as usize, "more than 2^32 - 1 packets alive at once");
            self.slots.push(packet);
            PacketId(i as u32)
        }
    }

    /// Releases `id`; it must not be used again.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id.0);
    }

    /// Packets allocated and not yet freed (after a run: what is still queued, propagating or
    /// held by endpoints; a leak shows up here).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Live packets for which `pred` holds (a scan of the whole arena, for end-of-run checks).
    pub fn count_live(&self, pred: impl Fn(&Packet) -> bool) -> usize {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        self.slots.iter().zip(free).filter(|(p, f)| !f && pred(p)).count()
    }

    /// Slots ever created (the high-water mark of live packets).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

impl std::ops::Index<PacketId> for PacketArena {
    type Output = Packet;
    #[inline]
    fn index(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }
}

impl std::ops::IndexMut<PacketId> for PacketArena {
    #[inline]
    fn index_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
}

/// A FIFO of packets linked through their `next` fields: just a head and a tail, so pushing
/// and popping touch two words and the packets themselves. Components that need counts keep
/// their own (a link counts only what waits, not what propagates).
#[derive(Clone, Debug)]
pub struct PacketFifo {
    head: u32,
    tail: u32,
}

impl Default for PacketFifo {
    fn default() -> Self {
        PacketFifo { head: PacketId::NIL, tail: PacketId::NIL }
    }
}

impl PacketFifo {
    /// Appends `id` at the tail.
    #[inline]
    pub fn push(&mut self, arena: &mut PacketArena, id: PacketId) {
        arena[id].next = PacketId::NIL;
        self.link_tail(arena, id);
    }

    /// Appends `id` at the tail, due to leave at `due` (its `due` field set in the same access
    /// to the packet: the hot path of links and pipes).
    #[inline]
    pub fn push_due(&mut self, arena: &mut PacketArena, id: PacketId, due: Time) {
        let p = &mut arena[id];
        p.next = PacketId::NIL;
        p.due = due;
        self.link_tail(arena, id);
    }

    /// Links `id`, whose `next` is already nil, after the tail.
    #[inline]
    fn link_tail(&mut self, arena: &mut PacketArena, id: PacketId) {
        if self.tail == PacketId::NIL {
            self.head = id.0;
        } else {
            arena.slots[self.tail as usize].next = id.0;
        }
        self.tail = id.0;
    }

    /// Removes and returns the head.
    #[inline]
    pub fn pop(&mut self, arena: &PacketArena) -> Option<PacketId> {
        if self.head == PacketId::NIL {
            return None;
        }
        let id = PacketId(self.head);
        self.head = arena[id].next;
        if self.head == PacketId::NIL {
            self.tail = PacketId::NIL;
        }
        Some(id)
    }

    /// The head, without removing it.
    #[inline]
    pub fn head(&self) -> Option<PacketId> {
        (self.head != PacketId::NIL).then_some(PacketId(self.head))
    }

    /// Whether the FIFO is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == PacketId::NIL
    }

    /// The packet queued after `id`, if any.
    #[inline]
    pub fn after(&self, arena: &PacketArena, id: PacketId) -> Option<PacketId> {
        arena[id].next_queued()
    }

    /// Cuts the FIFO after `last` (or empties it if `last` is `None`) and returns the first
    /// packet cut off; the cut packets stay linked to each other, ending at the old tail.
    pub fn truncate_after(&mut self, arena: &mut PacketArena, last: Option<PacketId>) -> Option<PacketId> {
        let cut = match last {
            None => std::mem::replace(&mut self.head, PacketId::NIL),
            Some(l) => std::mem::replace(&mut arena[l].next, PacketId::NIL),
        };
        self.tail = last.map_or(PacketId::NIL, |l| l.0);
        (cut != PacketId::NIL).then_some(PacketId(cut))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_order_and_slot_reuse() {
        let mut arena = PacketArena::new();
        let mut q = PacketFifo::default();
        let ids: Vec<_> = (0..4).map(|i| arena.alloc(Packet::new(PacketKind::Data, 100 + i, 0))).collect();
        for &id in &ids {
            q.push(&mut arena, id);
        }
        assert_eq!(q.after(&arena, ids[1]), Some(ids[2]));
        assert_eq!(q.pop(&arena), Some(ids[0]));
        arena.free(ids[0]);
        let again = arena.alloc(Packet::new(PacketKind::Ack, 40, 0));
        assert_eq!(again, ids[0], "freed slot is reused");
        q.push(&mut arena, again);
        assert_eq!(q.truncate_after(&mut arena, Some(ids[2])), Some(ids[3]), "cut after the second");
        assert_eq!(arena[ids[3]].next, again.0, "the cut packets stay linked");
        q.push(&mut arena, again);
        let order: Vec<_> = std::iter::from_fn(|| q.pop(&arena)).collect();
        assert_eq!(order, vec![ids[1], ids[2], again]);
        assert!(q.is_empty() && q.head().is_none());
        assert_eq!(q.truncate_after(&mut arena, None), None);
        assert_eq!((arena.live(), arena.capacity()), (4, 4));
    }
}
