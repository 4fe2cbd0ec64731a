//! A link's waiting packets served round robin among flows, one packet per turn, as csg-htsim's
//! host queue (`FairPriorityQueue` over a `FairPullQueue`) serves the subflows of its host.
//!
//! A flow is named by the hop its packets are at ([`Packet::hop`](crate::Packet)): every route
//! is a run of hops of its own, so the packets of one subflow (its handshake included) share
//! that index at a given link, and no other packet has it.

use crate::packet::{PacketArena, PacketFifo, PacketId};

/// The waiting packets of every flow that has used the link, and whose turn is next.
#[derive(Debug, Default)]
pub struct RoundRobin {
    /// Each flow seen, by ascending key, with its waiting packets. A flow stays when its queue
    /// empties, as htsim's map keeps it, so the turns keep their order.
    flows: Vec<(u32, PacketFifo)>,
    /// The flow whose turn comes first when the link next looks for a packet (htsim's
    /// `_current_queue`); `flows.len()` wraps to the first.
    cursor: usize,
    /// Packets waiting, over all flows.
    waiting: u32,
}

impl RoundRobin {
    /// Packets waiting, over all flows.
    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// Queues `id` behind the earlier packets of its flow, `key`.
    pub fn push(&mut self, arena: &mut PacketArena, id: PacketId, key: u32) {
        let at = match self.flows.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(at) => at,
            Err(at) => {
                self.flows.insert(at, (key, PacketFifo::default()));
                // The cursor keeps naming the same flow; a new flow before it waits for the
                // next round, as a new entry of htsim's map before its iterator does.
                if at < self.cursor {
                    self.cursor += 1;
                }
                at
            }
        };
        self.flows[at].1.push(arena, id);
        self.waiting += 1;
    }

    /// The next flow's head in turn, if any packet waits.
    pub fn pop(&mut self, arena: &PacketArena) -> Option<PacketId> {
        if self.waiting == 0 {
            return None;
        }
        loop {
            if self.cursor >= self.flows.len() {
                self.cursor = 0;
            }
            let flow = self.cursor;
            self.cursor += 1;
            if let Some(id) = self.flows[flow].1.pop(arena) {
                self.waiting -= 1;
                return Some(id);
            }
        }
    }

    /// Every waiting packet, flow by flow (the order of the turns is not kept).
    pub fn waiting_packets<'a>(&'a self, arena: &'a PacketArena) -> impl Iterator<Item = PacketId> + 'a {
        self.flows.iter().flat_map(move |(_, fifo)| std::iter::successors(fifo.head(), move |&id| fifo.after(arena, id)))
    }

    /// Removes every waiting packet, pushing its id on `out`.
    pub fn drain(&mut self, arena: &PacketArena, out: &mut Vec<PacketId>) {
        for (_, fifo) in &mut self.flows {
            while let Some(id) = fifo.pop(arena) {
                out.push(id);
            }
        }
        self.waiting = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};

    /// A packet of flow `key`, queued.
    fn sent(arena: &mut PacketArena, rr: &mut RoundRobin, key: u32) -> PacketId {
        let id = arena.alloc(Packet::new(PacketKind::Data, 1500, key));
        rr.push(arena, id, key);
        id
    }

    #[test]
    fn flows_take_turns_in_key_order_and_a_new_flow_waits_for_its_round() {
        let mut arena = PacketArena::new();
        let mut rr = RoundRobin::default();
        let a: Vec<_> = (0..3).map(|_| sent(&mut arena, &mut rr, 20)).collect();
        let b: Vec<_> = (0..2).map(|_| sent(&mut arena, &mut rr, 10)).collect();
        assert_eq!(rr.waiting(), 5);
        assert_eq!(rr.pop(&arena), Some(b[0]), "the lowest key first");
        assert_eq!(rr.pop(&arena), Some(a[0]), "then the next flow");
        // A flow below the cursor joins: its turn comes after the flows still due this round.
        let c = sent(&mut arena, &mut rr, 5);
        assert_eq!(rr.pop(&arena), Some(c), "the round wrapped: key 5 is first");
        assert_eq!(rr.pop(&arena), Some(b[1]));
        assert_eq!(rr.pop(&arena), Some(a[1]));
        assert_eq!(rr.pop(&arena), Some(a[2]), "empty flows are skipped");
        assert_eq!((rr.pop(&arena), rr.waiting()), (None, 0));
    }

    #[test]
    fn a_flow_joining_after_the_cursor_is_served_this_round() {
        let mut arena = PacketArena::new();
        let mut rr = RoundRobin::default();
        let a = [sent(&mut arena, &mut rr, 1), sent(&mut arena, &mut rr, 1)];
        assert_eq!(rr.pop(&arena), Some(a[0]));
        let late = sent(&mut arena, &mut rr, 9);
        assert_eq!(rr.pop(&arena), Some(late), "key 9 comes after key 1 in this round");
        assert_eq!(rr.pop(&arena), Some(a[1]));
        let mut out = Vec::new();
        let d = sent(&mut arena, &mut rr, 3);
        assert_eq!(rr.waiting_packets(&arena).collect::<Vec<_>>(), vec![d]);
        rr.drain(&arena, &mut out);
        assert_eq!((out, rr.waiting()), (vec![d], 0));
    }
}
