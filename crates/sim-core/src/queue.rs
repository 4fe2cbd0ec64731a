//! A link's output queue: a FIFO served at the link rate, its discipline, exogenous loss, and
//! the link's counters.

use rand::RngExt;

use crate::discipline::{BufferLimit, Discipline, DropReason};
use crate::packet::{PacketArena, PacketFifo, PacketId};
use crate::rng::Stream;
use crate::time::Time;
use crate::units::Rate;

/// Per-link counters. Differences of two snapshots give the statistics of an interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounters {
    /// Packets that reached the link (including those it dropped).
    pub arrivals: u64,
    /// Packets that finished serialization.
    pub departures: u64,
    /// Bytes that finished serialization.
    pub bytes_departed: u64,
    /// Packets refused by the queue discipline (full buffer, RED, random zone).
    pub queue_drops: u64,
    /// Packets lost to the link's exogenous random loss.
    pub random_losses: u64,
    /// Packets dropped because the link was down.
    pub down_drops: u64,
    /// Time spent serializing.
    pub busy: Time,
    /// Integral of the queue length in packets over time (packet·picoseconds).
    pub queue_packet_ps: u128,
    /// Integral of the queue length in bytes over time (byte·picoseconds).
    pub queue_byte_ps: u128,
    /// Largest queue seen, packets (since the last [`Queue::reset_max`]).
    pub max_queue_packets: u32,
    /// Largest queue seen, bytes.
    pub max_queue_bytes: u64,
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

/// What happened to a packet offered to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Queued behind others; nothing to schedule.
    Queued,
    /// The queue was idle: the packet is in service and departs at this time.
    Serving(Time),
    /// Refused; the caller frees the packet.
    Dropped(DropReason),
}

/// The output queue of a link: one server at `rate`, a buffer, a discipline, random loss.
pub struct Queue {
    rate: Rate,
    limit: BufferLimit,
    discipline: Discipline,
    loss_probability: f64,
    loss_rng: Stream,
    queue_rng: Stream,
    up: bool,
    fifo: PacketFifo,
    counters: LinkCounters,
    last_change: Time,
    /// The last size serialized and its time: packets of one size dominate, and the exact
    /// 128-bit division is the costliest step of a departure otherwise.
    serialization_cache: (u32, Time),
}

impl Queue {
    /// A queue serving at `rate` with `limit` of buffer (counting the packet in service).
    pub fn new(rate: Rate, limit: BufferLimit, discipline: Discipline, loss_probability: f64, loss_rng: Stream, queue_rng: Stream) -> Queue {
        Queue {
            rate,
            limit,
            discipline,
            loss_probability,
            loss_rng,
            queue_rng,
            up: true,
            fifo: PacketFifo::default(),
            counters: LinkCounters::default(),
            last_change: Time::ZERO,
            serialization_cache: (0, rate.serialization_time(0)),
        }
    }

    /// Time to serialize `size` bytes at this queue's rate.
    #[inline]
    fn serialization_time(&mut self, size: u32) -> Time {
        if self.serialization_cache.0 != size {
            self.serialization_cache = (size, self.rate.serialization_time(size as u64));
        }
        self.serialization_cache.1
    }

    /// The service rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Packets queued, including the one in service.
    pub fn len(&self) -> u32 {
        self.fifo.len()
    }

    /// Whether nothing is queued or in service.
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.up
    }

    #[inline]
    fn account(&mut self, now: Time) {
        let dt = (now - self.last_change).as_ps() as u128;
        self.counters.queue_packet_ps += self.fifo.len() as u128 * dt;
        self.counters.queue_byte_ps += self.fifo.bytes() as u128 * dt;
        self.last_change = now;
    }

    /// Offers packet `id` to the queue at time `now`.
    #[inline]
    pub fn arrive(&mut self, arena: &mut PacketArena, id: PacketId, now: Time) -> Admission {
        self.counters.arrivals += 1;
        if !self.up {
            self.counters.down_drops += 1;
            return Admission::Dropped(DropReason::Down);
        }
        if self.loss_probability > 0.0 && self.loss_rng.random::<f64>() < self.loss_probability {
            self.counters.random_losses += 1;
            return Admission::Dropped(DropReason::Random);
        }
        let size = arena[id].size;
        if !self.discipline.admit(self.limit, self.fifo.len(), self.fifo.bytes(), size, now, &mut self.queue_rng) {
            self.counters.queue_drops += 1;
            return Admission::Dropped(DropReason::Queue);
        }
        self.account(now);
        let was_idle = self.fifo.is_empty();
        self.fifo.push(arena, id);
        self.counters.max_queue_packets = self.counters.max_queue_packets.max(self.fifo.len());
        self.counters.max_queue_bytes = self.counters.max_queue_bytes.max(self.fifo.bytes());
        if was_idle { Admission::Serving(now + self.serialization_time(size)) } else { Admission::Queued }
    }

    /// Ends the service of the head packet at `now`. Returns it, whether it survived (false if
    /// the link went down while it was being sent), and when the next departure is due.
    #[inline]
    pub fn depart(&mut self, arena: &mut PacketArena, now: Time) -> (PacketId, bool, Option<Time>) {
        self.account(now);
        let id = self.fifo.pop(arena).expect("departure from an empty queue");
        let size = arena[id].size;
        let service = self.serialization_time(size);
        self.counters.busy += service;
        let survived = self.up;
        if survived {
            self.counters.departures += 1;
            self.counters.bytes_departed += size as u64;
        } else {
            self.counters.down_drops += 1;
        }
        let next = match self.fifo.head() {
            Some(head) => Some(now + self.serialization_time(arena[head].size)),
            None => {
                self.discipline.on_empty(now);
                None
            }
        };
        (id, survived, next)
    }

    /// Takes the link down or up. Going down drops everything waiting behind the packet in
    /// service (which is dropped when its service ends); the dropped ids are pushed on `dropped`.
    pub fn set_up(&mut self, up: bool, arena: &mut PacketArena, now: Time, dropped: &mut Vec<PacketId>) {
        self.up = up;
        if up || self.fifo.len() <= 1 {
            return;
        }
        self.account(now);
        let in_service = self.fifo.pop(arena).expect("nonempty");
        while let Some(id) = self.fifo.pop(arena) {
            self.counters.down_drops += 1;
            dropped.push(id);
        }
        self.fifo.push(arena, in_service);
    }

    /// The counters brought up to `now`.
    pub fn counters(&mut self, now: Time) -> LinkCounters {
        self.account(now);
        self.counters
    }

    /// Restarts the maxima from the current queue (at the end of the warm-up).
    pub fn reset_max(&mut self) {
        self.counters.max_queue_packets = self.fifo.len();
        self.counters.max_queue_bytes = self.fifo.bytes();
    }
}
