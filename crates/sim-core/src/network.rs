//! The network: links and pipes in typed arenas, routes as runs of hops, and forwarding.
//!
//! A route is a run of consecutive entries in one hop table, ending in a [`Hop::Deliver`]. A
//! packet carries the index of its current hop, so forwarding is "increment and `match`": no
//! pointers, no dynamic dispatch, no allocation.

use crate::events::{Due, EventCode, EventList};
use crate::link::{Admission, Link};
use crate::packet::{Packet, PacketArena, PacketId, PacketKind};
use crate::pipe::Pipe;
use crate::time::Time;

/// Index of a link in the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// Index of a pipe in the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PipeId(pub u32);

/// Index of the first hop of a route in the network's hop table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouteId(pub u32);

/// One step of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Wait, be serialized and propagate over a link.
    Link(LinkId),
    /// A link or pipe whose arrivals are captured ([`Network::tap`], [`Network::tap_pipe`]):
    /// the index of the original hop in the network's table of taps. One variant for both keeps
    /// the forwarding `match` as short as it was without captures.
    Tapped(u32),
    /// Propagate through a pipe (an uncongested path: no queue, no serialization).
    Pipe(PipeId),
    /// Hand the packet to the transport endpoint with this number.
    Deliver(u32),
}

/// The network's own events; a simulation's event type wraps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// The packet at the head of this link reaches its far end.
    LinkExit(LinkId),
    /// The head of this pipe reaches its far end.
    PipeExit(PipeId),
}

/// Encoded as the id with the top bit telling pipes from queues (used when a simulation's
/// events are only the network's, as in tests and benchmarks).
impl EventCode for NetEvent {
    fn encode(self) -> u32 {
        match self {
            NetEvent::LinkExit(l) => l.0,
            NetEvent::PipeExit(p) => p.0 | 1 << 31,
        }
    }
    fn decode(code: u32) -> Self {
        if code & 1 << 31 == 0 { NetEvent::LinkExit(LinkId(code)) } else { NetEvent::PipeExit(PipeId(code & !(1 << 31))) }
    }
}

/// A packet that reached the end of its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The endpoint named by the route's last hop.
    pub endpoint: u32,
    /// The packet, now owned by the endpoint.
    pub packet: PacketId,
}

/// What a sniffer in front of a tapped link saw: a packet as it arrived there.
#[derive(Clone, Copy, Debug)]
pub struct Tapped {
    /// When it arrived.
    pub time: Time,
    /// Where: the link it arrived at ([`Hop::Link`]) or the pipe it entered ([`Hop::Pipe`]).
    pub at: Hop,
    /// A copy of the packet; its `hop` indexes the link's hop on its route.
    pub packet: Packet,
    /// Whether the link refused it (queue, random loss, or down; never for a pipe).
    pub dropped: bool,
}

/// Every link, pipe, route and live packet of one run.
#[derive(Default)]
pub struct Network {
    /// Every live packet: queued, propagating, or held by an endpoint after delivery.
    /// Transports allocate the packets they send here and free those delivered to them.
    pub packets: PacketArena,
    links: Vec<Link>,
    pipes: Vec<Pipe>,
    hops: Vec<Hop>,
    dropped: [u64; 3],
    scratch: Vec<PacketId>,
    /// The original hops behind [`Hop::Tapped`] indices.
    taps: Vec<Hop>,
    /// Arrivals at tapped links, oldest first, until the caller drains them.
    pub tapped: Vec<Tapped>,
}

impl Network {
    /// A network with nothing in it: add links and pipes, then routes over them, then send.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes ownership of `link` and returns the id that [`Hop::Link`] names it by (ids are
    /// dense, in order of addition).
    pub fn add_link(&mut self, link: Link) -> LinkId {
        self.links.push(link);
        LinkId(self.links.len() as u32 - 1)
    }

    /// Takes ownership of `pipe` and returns the id that [`Hop::Pipe`] names it by (ids are
    /// dense, in order of addition).
    pub fn add_pipe(&mut self, pipe: Pipe) -> PipeId {
        self.pipes.push(pipe);
        PipeId(self.pipes.len() as u32 - 1)
    }

    /// Adds a route through `hops` to endpoint `endpoint`.
    pub fn add_route(&mut self, hops: impl IntoIterator<Item = Hop>, endpoint: u32) -> RouteId {
        let start = self.hops.len() as u32;
        self.hops.extend(hops);
        self.hops.push(Hop::Deliver(endpoint));
        RouteId(start)
    }

    /// Copies every packet arriving at link `id` into [`Network::tapped`] (a capture point in
    /// front of its queue: dropped packets are seen too). The routes over it, which must all
    /// have been added, cross it as a [`Hop::Tapped`] from now on, so that untapped links cost
    /// nothing more per packet.
    pub fn tap(&mut self, id: LinkId) {
        self.tap_hop(Hop::Link(id));
    }

    /// Copies every packet entering pipe `id` into [`Network::tapped`] (the reverse direction
    /// of a captured link, where the ACKs travel), as [`Network::tap`] does for a link.
    pub fn tap_pipe(&mut self, id: PipeId) {
        self.tap_hop(Hop::Pipe(id));
    }

    fn tap_hop(&mut self, original: Hop) {
        if self.taps.contains(&original) {
            return;
        }
        let tapped = Hop::Tapped(self.taps.len() as u32);
        self.taps.push(original);
        for hop in &mut self.hops {
            if *hop == original {
                *hop = tapped;
            }
        }
    }

    /// The hop table from `hop` on (a route's remaining hops end at its [`Hop::Deliver`]).
    pub fn hops_from(&self, hop: u32) -> &[Hop] {
        &self.hops[hop as usize..]
    }

    /// Link `id`, read-only: its configuration and up/down state. Its counters need
    /// settling first, so they come from [`Network::link_counters`].
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// A link's counters brought up to `now`.
    pub fn link_counters(&mut self, id: LinkId, now: Time) -> crate::link::LinkCounters {
        self.links[id.0 as usize].counters(&mut self.packets, now)
    }

    /// The packet whose bits are reaching link `id`'s far end at `now` ([`Link::arriving`]).
    pub fn arriving(&self, id: LinkId, now: Time) -> Option<PacketId> {
        self.links[id.0 as usize].arriving(&self.packets, now)
    }

    /// Restarts a link's maxima (at the end of the warm-up).
    pub fn reset_link_max(&mut self, id: LinkId) {
        self.links[id.0 as usize].reset_max();
    }

    /// Pipe `id`, read-only (its delay and whether anything is in it).
    pub fn pipe(&self, id: PipeId) -> &Pipe {
        &self.pipes[id.0 as usize]
    }

    /// Packets of `kind` dropped anywhere in the network so far (and freed).
    pub fn dropped(&self, kind: PacketKind) -> u64 {
        self.dropped[kind as usize]
    }

    /// Sends packet `id` along the route starting at `route`. Returns a delivery if the route
    /// has no queue or pipe.
    #[inline]
    pub fn send<E: From<NetEvent> + EventCode>(&mut self, id: PacketId, route: RouteId, events: &mut EventList<E>) -> Option<Delivery> {
        let p = &mut self.packets[id];
        p.hop = route.0;
        let size = p.size;
        self.forward(id, route.0, size, events)
    }

    /// Stores `packet` in slot `slot` (a packet the caller owns and is done with), or in a new
    /// one, and sends it along the route starting at `route`: [`Network::send`] for a packet
    /// made whole by its sender, which writes it once. Returns a delivery if the route has no
    /// queue or pipe.
    #[inline(always)]
    pub fn send_packet<E: From<NetEvent> + EventCode>(
        &mut self,
        mut packet: Packet,
        slot: Option<PacketId>,
        route: RouteId,
        events: &mut EventList<E>,
    ) -> Option<Delivery> {
        packet.hop = route.0;
        let size = packet.size;
        let id = match slot {
            Some(id) => {
                self.packets[id] = packet;
                id
            }
            None => self.packets.alloc(packet),
        };
        self.forward(id, route.0, size, events)
    }

    /// Moves packet `id`, of `size` bytes, into hop `hop`, its current one.
    #[inline(always)]
    fn forward<E: From<NetEvent> + EventCode>(&mut self, id: PacketId, hop: u32, size: u32, events: &mut EventList<E>) -> Option<Delivery> {
        let now = events.now();
        match self.hops[hop as usize] {
            Hop::Link(l) => {
                match self.links[l.0 as usize].arrive(&mut self.packets, id, size, now) {
                    Admission::Queued(None) => {}
                    Admission::Queued(Some(at)) => events.schedule(at, NetEvent::LinkExit(l).into()),
                    Admission::Dropped(_) => self.drop_packet(id),
                }
                None
            }
            Hop::Tapped(t) => {
                self.forward_tapped(t, id, size, now, events);
                None
            }
            Hop::Pipe(p) => {
                if let Some(at) = self.pipes[p.0 as usize].enter(&mut self.packets, id, now) {
                    events.schedule(at, NetEvent::PipeExit(p).into());
                }
                None
            }
            Hop::Deliver(endpoint) => Some(Delivery { endpoint, packet: id }),
        }
    }

    /// A [`Hop::Tapped`]: the original hop's work, and the arrival copied into
    /// [`Network::tapped`] with its fate.
    #[cold]
    #[inline(never)]
    fn forward_tapped<E: From<NetEvent> + EventCode>(&mut self, t: u32, id: PacketId, size: u32, now: Time, events: &mut EventList<E>) {
        let at = self.taps[t as usize];
        match at {
            Hop::Link(l) => {
                let admission = self.links[l.0 as usize].arrive(&mut self.packets, id, size, now);
                let dropped = matches!(admission, Admission::Dropped(_));
                self.tapped.push(Tapped { time: now, at, packet: self.packets[id], dropped });
                match admission {
                    Admission::Queued(None) => {}
                    Admission::Queued(Some(at)) => events.schedule(at, NetEvent::LinkExit(l).into()),
                    Admission::Dropped(_) => self.drop_packet(id),
                }
            }
            Hop::Pipe(p) => {
                self.tapped.push(Tapped { time: now, at, packet: self.packets[id], dropped: false });
                if let Some(at) = self.pipes[p.0 as usize].enter(&mut self.packets, id, now) {
                    events.schedule(at, NetEvent::PipeExit(p).into());
                }
            }
            Hop::Deliver(_) | Hop::Tapped(_) => unreachable!("only links and pipes are tapped"),
        }
    }

    #[inline]
    fn drop_packet(&mut self, id: PacketId) {
        self.dropped[self.packets[id].kind as usize] += 1;
        self.packets.free(id);
    }

    /// Handles `event`, one of the network's, taken from `events` as `due`; returns the packet
    /// it delivers, if any.
    #[inline]
    pub fn handle<E: From<NetEvent> + EventCode>(&mut self, due: Due<E>, event: NetEvent, events: &mut EventList<E>) -> Option<Delivery> {
        let now = events.now();
        let (id, next) = match event {
            NetEvent::LinkExit(l) => self.links[l.0 as usize].exit(&mut self.packets, now),
            NetEvent::PipeExit(p) => {
                let (id, next) = self.pipes[p.0 as usize].exit(&mut self.packets);
                (Some(id), next)
            }
        };
        match next {
            Some(at) => events.reschedule(due, at),
            None => events.finish(due),
        }
        let id = id?;
        let p = &mut self.packets[id];
        p.hop += 1;
        let (hop, size) = (p.hop, p.size);
        self.forward(id, hop, size, events)
    }

    /// Takes link `l` down or up at `now`, dropping what waits in a link going down.
    pub fn set_link_up(&mut self, l: LinkId, up: bool, now: Time) {
        let mut dropped = std::mem::take(&mut self.scratch);
        self.links[l.0 as usize].set_up(up, &mut self.packets, now, &mut dropped);
        for id in dropped.drain(..) {
            self.drop_packet(id);
        }
        self.scratch = dropped;
    }

    /// How many links were added; their ids are `0..link_count()`.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::{BufferLimit, Discipline};
    use crate::packet::Packet;
    use crate::rng::stream;
    use crate::units::Rate;

    #[test]
    fn a_packet_crosses_a_link_and_a_pipe_in_serialization_plus_delays() {
        let mut net = Network::new();
        let l = net.add_link(Link::new(
            Rate::gbps(10),
            Time::from_us(50),
            BufferLimit::Packets(2),
            Discipline::DropTail,
            0.0,
            stream(0, "a"),
            stream(0, "b"),
        ));
        let p = net.add_pipe(Pipe::new(Time::from_us(10)));
        let route = net.add_route([Hop::Link(l), Hop::Pipe(p)], 7);
        let mut events: EventList<NetEvent> = EventList::new();
        let mut delivered = Vec::new();
        for _ in 0..3 {
            let id = net.packets.alloc(Packet::new(PacketKind::Data, 1500, 0));
            assert_eq!(net.send(id, route, &mut events), None);
        }
        assert_eq!(net.dropped(PacketKind::Data), 1, "a buffer of two packets holds two");
        while let Some(due) = events.take_until(Time::NEVER) {
            let (t, event) = (events.now(), due.event());
            if let Some(d) = net.handle(due, event, &mut events) {
                delivered.push((t, d.endpoint));
            }
        }
        assert_eq!(delivered, vec![(Time::from_ns(61_200), 7), (Time::from_ns(62_400), 7)]);
        let c = net.link_counters(l, Time::from_ns(62_400));
        assert_eq!((c.arrivals, c.departures, c.queue_drops, c.busy), (3, 2, 1, Time::from_ns(2_400)));
        // one packet waited 1.2 us behind the other: 2 packets for 1.2 us + 1 for 1.2 us
        assert_eq!(c.queue_packet_ps, 3 * 1_200_000);
    }
}
