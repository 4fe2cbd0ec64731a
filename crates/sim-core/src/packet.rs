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

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A data segment; `seq` is its segment number.
    Data = 0,
    /// A cumulative acknowledgement; `seq` is the next segment the receiver expects.
    Ack = 1,
}

/// One packet in flight. Plain data: transports fill the fields they need.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    next: u32,
    /// Index of the hop this packet is at in the network's hop table.
    pub hop: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Data or acknowledgement.
    pub kind: PacketKind,
    /// Data: this segment is a retransmission. Ack: the segment that triggered it was one.
    pub retransmitted: bool,
    /// Data: segment number within its subflow. Ack: cumulative acknowledgement.
    pub seq: u64,
    /// Data-level sequence number (multipath connections; equals `seq` for single-path TCP).
    pub data_seq: u64,
    /// Data: when it was sent. Ack: the echoed send time of the segment that triggered it.
    pub timestamp: Time,
    /// When the packet leaves the pipe it is in.
    pub due: Time,
}

impl Packet {
    /// A packet of `size` bytes starting at hop `hop`, with every other field zero.
    pub fn new(kind: PacketKind, size: u32, hop: u32) -> Packet {
        Packet { next: PacketId::NIL, hop, size, kind, retransmitted: false, seq: 0, data_seq: 0, timestamp: Time::ZERO, due: Time::ZERO }
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
    /// An empty arena.
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

    /// Packets currently allocated.
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

/// A FIFO of packets linked through their `next` fields: a head, a tail and counts.
#[derive(Clone, Debug)]
pub struct PacketFifo {
    head: u32,
    tail: u32,
    len: u32,
    bytes: u64,
}

impl Default for PacketFifo {
    fn default() -> Self {
        PacketFifo { head: PacketId::NIL, tail: PacketId::NIL, len: 0, bytes: 0 }
    }
}

impl PacketFifo {
    /// Appends `id` at the tail.
    #[inline]
    pub fn push(&mut self, arena: &mut PacketArena, id: PacketId) {
        let p = &mut arena[id];
        p.next = PacketId::NIL;
        self.bytes += p.size as u64;
        if self.tail == PacketId::NIL {
            self.head = id.0;
        } else {
            arena.slots[self.tail as usize].next = id.0;
        }
        self.tail = id.0;
        self.len += 1;
    }

    /// Removes and returns the head.
    #[inline]
    pub fn pop(&mut self, arena: &mut PacketArena) -> Option<PacketId> {
        if self.head == PacketId::NIL {
            return None;
        }
        let id = PacketId(self.head);
        let p = &arena[id];
        self.head = p.next;
        self.bytes -= p.size as u64;
        if self.head == PacketId::NIL {
            self.tail = PacketId::NIL;
        }
        self.len -= 1;
        Some(id)
    }

    /// The head, without removing it.
    #[inline]
    pub fn head(&self) -> Option<PacketId> {
        (self.head != PacketId::NIL).then_some(PacketId(self.head))
    }

    /// Packets queued.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the FIFO is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
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
        assert_eq!((q.len(), q.bytes()), (4, 406));
        assert_eq!(q.pop(&mut arena), Some(ids[0]));
        arena.free(ids[0]);
        let again = arena.alloc(Packet::new(PacketKind::Ack, 40, 0));
        assert_eq!(again, ids[0], "freed slot is reused");
        q.push(&mut arena, again);
        let order: Vec<_> = std::iter::from_fn(|| q.pop(&mut arena)).collect();
        assert_eq!(order, vec![ids[1], ids[2], ids[3], again]);
        assert!(q.is_empty() && q.bytes() == 0 && q.head().is_none());
        assert_eq!((arena.live(), arena.capacity()), (4, 4));
    }
}
