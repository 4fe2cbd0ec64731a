//! A link: an output queue served at the link rate, then a constant propagation delay, with
//! its discipline, exogenous loss, up/down state and counters.
//!
//! The link schedules one event per packet, when the packet reaches the far end. Serialization
//! is FIFO at a constant rate, so a packet's departure time is known the moment it is queued
//! (`max(now, previous departure) + size / rate`); departures are applied lazily, in order,
//! whenever the link is next looked at ([`Link::settle`]). The queue length any arrival sees,
//! the time-weighted queue integral and the busy time are exactly those of an event per
//! departure, for one event per packet instead of two (docs/performance.md).
//!
//! A link may serve its buffer round robin among flows instead ([`Link::with_round_robin`]):
//! a packet's departure is then known when its turn comes, so only the packet in service is
//! on the line, and the turns are taken lazily too, at each departure in [`Link::settle`].

use rand::RngExt;

use crate::discipline::{BufferLimit, Discipline, DropReason};
use crate::packet::{PacketArena, PacketFifo, PacketId};
use crate::rng::Stream;
use crate::round_robin::RoundRobin;
use crate::time::Time;
use crate::units::Rate;

/// Per-link counters. Differences of two snapshots give the statistics of an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounters {
    /// Packets that reached the link (including those it dropped).
    pub arrivals: u64,
    /// Packets that finished serialization (they may still be propagating).
    pub departures: u64,
    /// Bytes that finished serialization.
    pub bytes_departed: u64,
    /// Packets refused by the queue discipline (full buffer, RED, random zone).
    pub queue_drops: u64,
    /// Packets lost to the link's exogenous random loss.
    pub random_losses: u64,
    /// Packets dropped because the link was down.
    pub down_drops: u64,
    /// Time spent serializing, the packet in service counted up to the snapshot; busy time
    /// over elapsed time is the utilization.
    pub busy: Time,
    /// Integral of the queue length in packets over time (packet·picoseconds).
    pub queue_packet_ps: u128,
    /// Integral of the queue length in bytes over time (byte·picoseconds).
    pub queue_byte_ps: u128,
    /// Largest queue seen, packets (since the last [`Link::reset_max`]).
    pub max_queue_packets: u32,
    /// Largest queue seen, bytes (since the last [`Link::reset_max`]).
    pub max_queue_bytes: u64,
    /// Packets in the buffer when the counters were taken (the one in service included).
    pub queued_packets: u32,
    /// Since an earlier snapshot ([`LinkCounters::since`]): the packets the link had to carry,
    /// those that arrived plus those already queued then. Every drop is one of them, so
    /// `drops() ≤ offered` whatever the link did meanwhile (a link going down drops its queue).
    pub offered: u64,
}

impl LinkCounters {
    /// The counts accumulated since `earlier` (maxima are taken from `self`).
    pub fn since(&self, earlier: &LinkCounters) -> LinkCounters {
        LinkCounters {
            arrivals: self.arrivals - earlier.arrivals,
            departures: self.departures - earlier.departures,
            bytes_departed: self.bytes_departed - earlier.bytes_departed,
            queue_drops: self.queue_drops - earlier.queue_drops,
            random_losses: self.random_losses - earlier.random_losses,
            down_drops: self.down_drops - earlier.down_drops,
            busy: self.busy - earlier.busy,
            queued_packets: self.queued_packets,
            offered: self.arrivals - earlier.arrivals + earlier.queued_packets as u64,
            queue_packet_ps: self.queue_packet_ps - earlier.queue_packet_ps,
            queue_byte_ps: self.queue_byte_ps - earlier.queue_byte_ps,
            max_queue_packets: self.max_queue_packets,
            max_queue_bytes: self.max_queue_bytes,
        }
    }

    /// All drops, whatever their reason.
    pub fn drops(&self) -> u64 {
        self.queue_drops + self.random_losses + self.down_drops
    }
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Queued; if the link was empty, its exit event is due at this time.
    Queued(Option<Time>),
    /// Refused; the caller frees the packet.
    Dropped(DropReason),
}

/// A link's forward direction: a buffer served at `rate`, then `delay` of propagation.
pub struct Link {
    rate: Rate,
    delay: Time,
    limit: BufferLimit,
    discipline: Discipline,
    loss_probability: f64,
    loss_rng: Stream,
    queue_rng: Stream,
    up: bool,
    /// Every packet on the link in order: those propagating, then the one in service and those
    /// waiting (from `unserved` on). Each one's `due` is its departure plus the delay. One list
    /// rather than a buffer and a wire, so a departure moves a cursor instead of a packet.
    /// Served round robin, the waiting packets are in `round_robin` instead, each with its
    /// arrival time as its `due` until its turn.
    line: PacketFifo,
    /// The waiting packets of a link served round robin among flows.
    round_robin: Option<Box<RoundRobin>>,
    /// The first packet not yet serialized (the one in service), if any.
    unserved: Option<PacketId>,
    /// Packets in the buffer (waiting or in service) and their bytes.
    queued: (u32, u64),
    /// Departure time of the last packet queued.
    last_departure: Time,
    /// Departure time of the buffer's head (`Time::NEVER` when the buffer is empty).
    next_departure: Time,
    /// Time of the pending exit event (`Time::NEVER` if none).
    next_exit: Time,
    /// The queue integrals here count each admitted packet's whole wait at its arrival (its
    /// departure is known then); readers subtract the part still in the future.
    counters: LinkCounters,
    /// The last size serialized and its time: packets of one size dominate, and the exact
    /// 128-bit division is the costliest step otherwise.
    serialization_cache: (u32, Time),
    /// Serialization times are htsim's, whole picoseconds per byte
    /// ([`Rate::serialization_time_htsim`]), not exact.
    htsim_serialization: bool,
}

impl Link {
    /// A link serving at `rate` with `limit` of buffer (counting the packet in service) and
    /// `delay` of propagation.
    pub fn new(
        rate: Rate,
        delay: Time,
        limit: BufferLimit,
        discipline: Discipline,
        loss_probability: f64,
        loss_rng: Stream,
        queue_rng: Stream,
    ) -> Link {
        Link {
            rate,
            delay,
            limit,
            discipline,
            loss_probability,
            loss_rng,
            queue_rng,
            up: true,
            line: PacketFifo::default(),
            round_robin: None,
            unserved: None,
            queued: (0, 0),
            last_departure: Time::ZERO,
            next_departure: Time::NEVER,
            next_exit: Time::NEVER,
            counters: LinkCounters::default(),
            serialization_cache: (0, rate.serialization_time(0)),
            htsim_serialization: false,
        }
    }

    /// Serializes as htsim's `Queue` does: whole picoseconds per byte, truncated.
    pub fn with_htsim_serialization(mut self) -> Link {
        self.htsim_serialization = true;
        self.serialization_cache = (0, self.rate.serialization_time_htsim(0));
        self
    }

    /// Serves the waiting packets round robin among flows, one packet a turn, as htsim's host
    /// queue serves its subflows, instead of first come, first served.
    pub fn with_round_robin(mut self) -> Link {
        self.round_robin = Some(Box::default());
        self
    }

    /// Time to serialize `size` bytes, uncached.
    pub(crate) fn serialization_time_of(&self, size: u64) -> Time {
        if self.htsim_serialization { self.rate.serialization_time_htsim(size) } else { self.rate.serialization_time(size) }
    }

    /// Time to serialize `size` bytes at this link's rate.
    #[inline]
    fn serialization_time(&mut self, size: u32) -> Time {
        if self.serialization_cache.0 != size {
            self.serialization_cache = (size, self.serialization_time_of(size as u64));
        }
        self.serialization_cache.1
    }

    /// The rate the buffer is served at: a packet of `s` bytes takes `8s/rate` to serialize.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The one-way propagation delay each packet adds after its serialization.
    pub fn delay(&self) -> Time {
        self.delay
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// What the queue integrals (packet·ps, byte·ps) lack to be exact at `now`: less the waits
    /// still to come of the packets whose whole wait was counted in advance (on arrival, or
    /// when their turn came), plus the waits so far of those waiting their turn.
    fn queueing_correction(&self, arena: &PacketArena, now: Time) -> (i128, i128) {
        let (mut packet_ps, mut byte_ps) = (0i128, 0i128);
        let mut at = self.unserved;
        while let Some(id) = at {
            let wait = (arena[id].due - self.delay).saturating_sub(now).as_ps() as i128;
            packet_ps -= wait;
            byte_ps -= arena[id].size as i128 * wait;
            at = self.line.after(arena, id);
        }
        for id in self.round_robin.iter().flat_map(|rr| rr.waiting_packets(arena)) {
            let waited = now.saturating_sub(arena[id].due).as_ps() as i128;
            packet_ps += waited;
            byte_ps += arena[id].size as i128 * waited;
        }
        (packet_ps, byte_ps)
    }

    /// Applies every departure due by `now`, in order: the packet leaves the buffer for the
    /// wire, the counters advance to its departure time, and served round robin, the next
    /// flow's packet enters service then.
    #[inline(always)]
    pub fn settle(&mut self, arena: &mut PacketArena, now: Time) {
        while self.next_departure <= now {
            let departure = self.next_departure;
            let id = self.unserved.expect("a departure is due, so a packet is in service");
            let (size, after) = (arena[id].size, arena[id].next_queued());
            let service = self.serialization_time(size);
            self.counters.busy = self.counters.busy.plus(service);
            self.counters.departures += 1;
            self.counters.bytes_departed += size as u64;
            self.queued.0 -= 1;
            self.queued.1 -= size as u64;
            self.unserved = after;
            match self.unserved {
                Some(head) => self.next_departure = arena[head].due - self.delay,
                None => match self.round_robin.as_mut().and_then(|rr| rr.pop(arena)) {
                    Some(next) => self.serve(arena, next, departure),
                    None => {
                        self.next_departure = Time::NEVER;
                        self.discipline.on_empty(departure);
                    }
                },
            }
        }
    }

    /// Packet `id`, queued since its `due`, enters service at `at`, when the link is free
    /// (round robin only): it joins the line with its departure known, and its whole wait is
    /// counted now.
    #[cold]
    fn serve(&mut self, arena: &mut PacketArena, id: PacketId, at: Time) {
        let size = arena[id].size;
        let departure = at + self.serialization_time(size);
        self.last_departure = departure;
        let wait = (departure - arena[id].due).as_ps() as u128;
        self.counters.queue_packet_ps += wait;
        self.counters.queue_byte_ps += size as u128 * wait;
        arena[id].due = departure + self.delay;
        self.unserved = Some(id);
        self.next_departure = departure;
        self.line.push(arena, id);
    }

    /// Offers packet `id`, of `size` bytes (its size, which the caller has at hand), to the
    /// link at time `now`.
    #[inline(always)]
    pub fn arrive(&mut self, arena: &mut PacketArena, id: PacketId, size: u32, now: Time) -> Admission {
        debug_assert_eq!(arena[id].size, size);
        self.counters.arrivals += 1;
        if !self.up {
            self.counters.down_drops += 1;
            return Admission::Dropped(DropReason::Down);
        }
        if self.loss_probability > 0.0 && self.loss_rng.random::<f64>() < self.loss_probability {
            self.counters.random_losses += 1;
            return Admission::Dropped(DropReason::Random);
        }
        self.settle(arena, now);
        let admitted = match &mut self.discipline {
            // The common case, decided here without a call.
            Discipline::DropTail => self.limit.admits(self.queued.0, self.queued.1, size),
            // ns-2's RED averages the packets waiting, not the one in service.
            Discipline::RedNs2(red) => {
                let fits = self.limit.admits(self.queued.0, self.queued.1, size);
                let in_service = self.unserved.map_or(0, |head| arena[head].size);
                let waiting = self.queued.0 - u32::from(self.unserved.is_some());
                red.admit(waiting, self.queued.1 - u64::from(in_service), size, fits, now, &mut self.queue_rng)
            }
            other => other.admit(self.limit, self.queued.0, self.queued.1, size, arena[id].hop, now, &mut self.queue_rng),
        };
        if !admitted {
            self.counters.queue_drops += 1;
            return Admission::Dropped(DropReason::Queue);
        }
        if self.round_robin.is_some() && self.unserved.is_some() {
            return self.wait_turn(arena, id, now);
        }
        let departure = self.last_departure.max(now).plus(self.serialization_time(size));
        self.last_departure = departure;
        // The queue integrals, by Little: this packet adds its whole wait at once.
        let wait = (departure - now).as_ps() as u128;
        self.counters.queue_packet_ps += wait;
        self.counters.queue_byte_ps += size as u128 * wait;
        let due = departure.plus(self.delay);
        if self.unserved.is_none() {
            self.unserved = Some(id);
            self.next_departure = departure;
        }
        self.line.push_due(arena, id, due);
        self.count_queued(size);
        if self.next_exit == Time::NEVER {
            self.next_exit = due;
            Admission::Queued(Some(due))
        } else {
            Admission::Queued(None)
        }
    }

    /// A packet of `size` bytes joins the buffer: its counts and their maxima.
    #[inline(always)]
    fn count_queued(&mut self, size: u32) {
        self.queued.0 += 1;
        self.queued.1 += size as u64;
        self.counters.max_queue_packets = self.counters.max_queue_packets.max(self.queued.0);
        self.counters.max_queue_bytes = self.counters.max_queue_bytes.max(self.queued.1);
    }

    /// Round robin, with a packet in service: packet `id` waits for its flow's turn, its
    /// arrival time kept as its `due`.
    #[cold]
    fn wait_turn(&mut self, arena: &mut PacketArena, id: PacketId, now: Time) -> Admission {
        let (size, flow) = (arena[id].size, arena[id].hop);
        arena[id].due = now;
        self.round_robin.as_mut().expect("served round robin").push(arena, id, flow);
        self.count_queued(size);
        Admission::Queued(None)
    }

    /// The exit event scheduled for `now` fired: returns the packet reaching the far end (or
    /// `None` if the event is stale) and when the next exit is due.
    #[inline]
    pub fn exit(&mut self, arena: &mut PacketArena, now: Time) -> (Option<PacketId>, Option<Time>) {
        if now != self.next_exit {
            return (None, None);
        }
        self.settle(arena, now);
        let id = self.line.pop(arena).expect("the exit event belongs to the wire's head");
        debug_assert_eq!(arena[id].due, now);
        let next = self.line.head().map(|h| arena[h].due);
        self.next_exit = next.unwrap_or(Time::NEVER);
        (Some(id), next)
    }

    /// Takes the link down or up at `now`. Going down drops every packet not yet serialized
    /// (the one in service included); their ids are pushed on `dropped`. Packets already
    /// propagating arrive.
    pub fn set_up(&mut self, up: bool, arena: &mut PacketArena, now: Time, dropped: &mut Vec<PacketId>) {
        self.up = up;
        if up {
            return;
        }
        self.settle(arena, now);
        let (packet_ps, byte_ps) = self.queueing_correction(arena, now);
        self.counters.queue_packet_ps = self.counters.queue_packet_ps.saturating_add_signed(packet_ps);
        self.counters.queue_byte_ps = self.counters.queue_byte_ps.saturating_add_signed(byte_ps);
        if let Some(rr) = &mut self.round_robin {
            let before = dropped.len();
            rr.drain(arena, dropped);
            self.counters.down_drops += (dropped.len() - before) as u64;
        }
        if let Some(first) = self.unserved.take() {
            // The packet in service kept the link busy until now, though it is lost.
            let started = self.next_departure - self.serialization_time(arena[first].size);
            self.counters.busy += now.saturating_sub(started);
            let mut last_sent = None;
            let mut at = self.line.head();
            while let Some(id) = at.filter(|&id| id != first) {
                last_sent = Some(id);
                at = self.line.after(arena, id);
            }
            let mut cut = self.line.truncate_after(arena, last_sent);
            while let Some(id) = cut {
                cut = self.line.after(arena, id);
                self.counters.down_drops += 1;
                dropped.push(id);
            }
        }
        self.queued = (0, 0);
        self.last_departure = now;
        self.next_departure = Time::NEVER;
        self.discipline.on_empty(now);
        if self.line.is_empty() {
            self.next_exit = Time::NEVER;
        }
    }

    /// The counters brought up to `now`.
    pub fn counters(&mut self, arena: &mut PacketArena, now: Time) -> LinkCounters {
        self.settle(arena, now);
        let (packet_ps, byte_ps) = self.queueing_correction(arena, now);
        // The packet in service counts as busy for the part of its service before `now`, so
        // that busy time between two snapshots never exceeds the time between them.
        let in_service = match self.unserved {
            Some(id) => {
                let started = self.next_departure - self.serialization_time(arena[id].size);
                now.saturating_sub(started)
            }
            None => Time::ZERO,
        };
        LinkCounters {
            queue_packet_ps: self.counters.queue_packet_ps.saturating_add_signed(packet_ps),
            queue_byte_ps: self.counters.queue_byte_ps.saturating_add_signed(byte_ps),
            busy: self.counters.busy + in_service,
            queued_packets: self.queued.0,
            offered: self.counters.arrivals,
            ..self.counters
        }
    }

    /// The packet whose bits are reaching the far end at `now`: its first bit arrived before
    /// `now`, its last arrives at or after it (only the wire's head can be one).
    pub fn arriving(&self, arena: &PacketArena, now: Time) -> Option<PacketId> {
        let head = self.line.head()?;
        let p = &arena[head];
        (p.due >= now && p.due.saturating_sub(self.serialization_time_of(p.size as u64)) < now).then_some(head)
    }

    /// Restarts the maxima from the current queue (at the end of the warm-up, after
    /// [`Link::counters`] brought the link up to date).
    pub fn reset_max(&mut self) {
        (self.counters.max_queue_packets, self.counters.max_queue_bytes) = self.queued;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};
    use crate::rng::stream;

    fn link() -> Link {
        // 1 Gb/s: a 1500-byte packet takes 12 us.
        Link::new(Rate::gbps(1), Time::from_us(10), BufferLimit::Packets(10), Discipline::DropTail, 0.0, stream(0, "l"), stream(0, "q"))
    }

    #[test]
    fn queue_integrals_read_mid_queue_and_after_a_failure() {
        let mut arena = PacketArena::new();
        let mut l = link();
        for _ in 0..3 {
            let id = arena.alloc(Packet::new(PacketKind::Data, 1500, 0));
            assert!(matches!(l.arrive(&mut arena, id, 1500, Time::ZERO), Admission::Queued(_)));
        }
        let us = 1_000_000u128; // picoseconds
        let c = l.counters(&mut arena, Time::from_us(6));
        assert_eq!((c.queue_packet_ps, c.queue_byte_ps), (3 * 6 * us, 3 * 1500 * 6 * us), "three packets for 6 us");
        // Departures at 12, 24 and 36 us: 3 x 12 + 2 x 12 + 1 x 6 packet-us by 30 us; busy all
        // 30 us, the third packet's 6 us of service included.
        let c = l.counters(&mut arena, Time::from_us(30));
        assert_eq!((c.queue_packet_ps, c.departures, c.busy), (66 * us, 2, Time::from_us(30)));
        let mut dropped = Vec::new();
        l.set_up(false, &mut arena, Time::from_us(30), &mut dropped);
        assert_eq!(dropped.len(), 1, "the packet in service is lost");
        let c = l.counters(&mut arena, Time::from_us(100));
        assert_eq!((c.queue_packet_ps, c.queue_byte_ps, c.down_drops), (66 * us, 1500 * 66 * us, 1), "no wait after the failure");
        assert_eq!(c.busy, Time::from_us(30), "the lost packet's service counts, and nothing after");
        // The two packets on the wire still arrive, in order, 10 us after leaving.
        assert_eq!(l.exit(&mut arena, Time::from_us(22)).1, Some(Time::from_us(34)));
        assert_eq!(l.exit(&mut arena, Time::from_us(34)).1, None);
    }

    #[test]
    fn round_robin_serves_flows_in_turn_with_exact_queue_integrals() {
        let mut arena = PacketArena::new();
        let mut l = link().with_round_robin();
        let us = 1_000_000u128;
        let offer = |arena: &mut PacketArena, l: &mut Link, flow: u32, at: u64| {
            let id = arena.alloc(Packet::new(PacketKind::Data, 1500, flow));
            (id, l.arrive(arena, id, 1500, Time::from_us(at)))
        };
        // Flow 7 sends three packets at 0, flow 3 one at 1 us: 7, 3, 7, 7, leaving at 12, 24,
        // 36 and 48 us, each reaching the far end 10 us later.
        let (a0, first) = offer(&mut arena, &mut l, 7, 0);
        assert_eq!(first, Admission::Queued(Some(Time::from_us(22))), "an idle link serves at once");
        let (a1, _) = offer(&mut arena, &mut l, 7, 0);
        let (a2, _) = offer(&mut arena, &mut l, 7, 0);
        let (b0, queued) = offer(&mut arena, &mut l, 3, 1);
        assert_eq!(queued, Admission::Queued(None));
        // By 30 us: 3 packets for 1 us, 4 for 11, 3 for 12, 2 for 6.
        let c = l.counters(&mut arena, Time::from_us(30));
        assert_eq!((c.queue_packet_ps, c.departures, c.queued_packets, c.busy), (95 * us, 2, 2, Time::from_us(30)));
        let mut order = Vec::new();
        let mut at = Time::from_us(22);
        loop {
            let (id, next) = l.exit(&mut arena, at);
            order.push((id.expect("a packet reaches the far end"), at));
            let Some(next) = next else { break };
            at = next;
        }
        let expected: Vec<_> = [(a0, 22), (b0, 34), (a1, 46), (a2, 58)].iter().map(|&(id, t)| (id, Time::from_us(t))).collect();
        assert_eq!(order, expected);
        // Whole waits: 12 + 23 + 36 + 48 packet-us (first come, first served: 12 + 47 + 24 +
        // 36, the same sum; the order moves waiting between flows).
        let c = l.counters(&mut arena, Time::from_us(100));
        assert_eq!((c.queue_packet_ps, c.queue_byte_ps, c.busy, c.max_queue_packets), (119 * us, 1500 * 119 * us, Time::from_us(48), 4));
    }

    #[test]
    fn a_round_robin_link_going_down_drops_the_packets_waiting_their_turn() {
        let mut arena = PacketArena::new();
        let mut l = link().with_round_robin();
        let ids: Vec<_> = [(7, 0), (7, 0), (7, 0), (3, 1)]
            .iter()
            .map(|&(flow, at)| {
                let id = arena.alloc(Packet::new(PacketKind::Data, 1500, flow));
                l.arrive(&mut arena, id, 1500, Time::from_us(at));
                id
            })
            .collect();
        let mut dropped = Vec::new();
        l.set_up(false, &mut arena, Time::from_us(30), &mut dropped);
        dropped.sort();
        assert_eq!(dropped, vec![ids[1], ids[2]], "the packet in service and the one waiting");
        let us = 1_000_000u128;
        let c = l.counters(&mut arena, Time::from_us(100));
        assert_eq!((c.queue_packet_ps, c.down_drops, c.queued_packets), (95 * us, 2, 0), "no wait after the failure");
        assert_eq!(l.exit(&mut arena, Time::from_us(22)).0, Some(ids[0]));
        assert_eq!(l.exit(&mut arena, Time::from_us(34)), (Some(ids[3]), None));
    }
}
