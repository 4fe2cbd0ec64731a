//! The testbed's links: sim-core's own network (queues, disciplines, random loss, delay lines,
//! up/down events) run on the wall clock. The router namespace sends every packet between the
//! hosts into a TUN device; the emulator reads it, offers it to the first link of its subflow's
//! path at the instant it was read, and writes it back into the TUN device when it leaves the
//! last hop, whence the kernel forwards it to its host. One model, two clocks: a link here
//! drops, delays and serializes exactly as it does in a simulation.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use sim_core::rng::stream;
use sim_core::{
    Due, EventCode, EventList, Hop, Link, LinkCounters, LinkId, NetEvent, Network, Packet, PacketKind, Pipe, PipeId, RouteId, Time,
};
use tcp::{LinkRecord, LinkSpec};

use super::addresses;

/// A `[[capture]]` as the emulator makes it: what a sniffer in front of a link would record,
/// both ways, of the subflows whose whole path the link is (their packets enter the link the
/// instant the emulator reads them, and leave it when they are written back).
pub struct Tap {
    /// Per global subflow, whether it is captured.
    pub subflows: Vec<bool>,
    /// Arrivals from this time on, and before `until`.
    pub from: Time,
    pub until: Time,
    pub file: capture::IpCapture<Vec<u8>>,
}

/// The emulator's events: the network's, a packet read from the TUN device, a link going down
/// or up, the end of the warm-up.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Net(NetEvent),
    Arrival,
    LinkState(LinkId, bool),
    Warmup,
}

impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Ev {
        Ev::Net(e)
    }
}

impl EventCode for Ev {
    /// Two bits of kind above a 30-bit index.
    fn encode(self) -> u32 {
        let (kind, index) = match self {
            Ev::Net(NetEvent::LinkExit(l)) => (0, l.0),
            Ev::Net(NetEvent::PipeExit(p)) => (1, p.0),
            Ev::LinkState(l, up) => (2, l.0 * 2 + up as u32),
            Ev::Arrival => (3, 0),
            Ev::Warmup => (3, 1),
        };
        kind << 30 | index
    }

    fn decode(code: u32) -> Ev {
        let index = code & ((1 << 30) - 1);
        match code >> 30 {
            0 => Ev::Net(NetEvent::LinkExit(LinkId(index))),
            1 => Ev::Net(NetEvent::PipeExit(PipeId(index))),
            2 => Ev::LinkState(LinkId(index / 2), index % 2 == 1),
            _ if index == 0 => Ev::Arrival,
            _ => Ev::Warmup,
        }
    }
}

/// What the links did over the measured interval, as a simulation reports it.
pub struct LinkReport {
    /// One record per link, in the scenario's order.
    pub links: Vec<LinkRecord>,
    /// Packets the emulator forwarded that belong to no flow (written straight back).
    pub strays: u64,
    /// How late the emulator ran its events behind the wall clock, seconds: the median, the
    /// 99th percentile and the largest (how far its timing could be off).
    pub lag_s: [f64; 3],
    /// Data packets delivered to receivers and dropped, over the whole run.
    pub data_delivered: u64,
    /// Data packets the links dropped.
    pub data_dropped: u64,
    /// The captures, in the scenario's order.
    pub taps: Vec<Tap>,
}

/// The links of a scenario, emulated.
pub struct Emulator {
    net: Network,
    events: EventList<Ev>,
    links: Vec<(LinkSpec, LinkId, PipeId)>,
    /// Per global subflow, the route of its data and of its ACKs.
    routes: Vec<(RouteId, RouteId)>,
    /// Packet bytes, by the slot a packet's `seq` names.
    slots: Vec<Vec<u8>>,
    free_slots: Vec<usize>,
    warm: Vec<LinkCounters>,
    warm_at: Time,
    strays: u64,
    /// How late each event ran, by powers of two of nanoseconds (bucket k: below 2^k ns).
    lags: [u64; 40],
    max_lag: Duration,
    data_delivered: u64,
    taps: Vec<Tap>,
    /// The first error writing a capture (reported after the run, which it does not stop).
    tap_error: Option<String>,
}

impl Emulator {
    /// The links of `links` (seeded from `seed` as a simulation seeds them) and a route per
    /// subflow: `paths[g]` forward, `reverse[g]` for its ACKs (`None`: the forward path's
    /// reverse pipes, uncongested, with each link's delay).
    pub fn new(
        links: &[LinkSpec],
        paths: &[Vec<usize>],
        reverse: &[Option<Vec<usize>>],
        seed: u64,
        warmup: Time,
        taps: Vec<Tap>,
    ) -> Emulator {
        let mut net = Network::new();
        let mut events = EventList::new();
        let mut built = Vec::with_capacity(links.len());
        for spec in links {
            let link = Link::new(
                spec.rate,
                spec.delay,
                spec.buffer,
                spec.discipline.clone(),
                spec.loss,
                stream(seed, &format!("link.{}.loss", spec.name)),
                stream(seed, &format!("link.{}.queue", spec.name)),
            );
            let id = net.add_link(link);
            let back = net.add_pipe(Pipe::new(spec.delay));
            for &(at, up) in &spec.events {
                events.schedule(at, Ev::LinkState(id, up));
            }
            built.push((spec.clone(), id, back));
        }
        let routes = paths
            .iter()
            .zip(reverse)
            .enumerate()
            .map(|(g, (path, rev))| {
                let forward = net.add_route(path.iter().map(|&l| Hop::Link(built[l].1)), 2 * g as u32);
                let back = match rev {
                    Some(rev) => net.add_route(rev.iter().map(|&l| Hop::Link(built[l].1)), 2 * g as u32 + 1),
                    None => net.add_route(path.iter().rev().map(|&l| Hop::Pipe(built[l].2)), 2 * g as u32 + 1),
                };
                (forward, back)
            })
            .collect();
        events.schedule(warmup, Ev::Warmup);
        Emulator {
            net,
            events,
            links: built,
            routes,
            slots: Vec::new(),
            free_slots: Vec::new(),
            warm: vec![LinkCounters::default(); links.len()],
            warm_at: Time::ZERO,
            strays: 0,
            lags: [0; 40],
            max_lag: Duration::ZERO,
            data_delivered: 0,
            taps,
            tap_error: None,
        }
    }

    /// Runs until `end` (from `t0`) or until `stop` is set: packets come from `from_tun` with the
    /// instant they were read, and leave through `tun`.
    pub fn run(
        mut self,
        t0: Instant,
        end: Time,
        from_tun: &Receiver<(Instant, Vec<u8>)>,
        tun: &mut impl Write,
        stop: &AtomicBool,
    ) -> Result<LinkReport, String> {
        let at = |i: Instant| Time(i.saturating_duration_since(t0).as_nanos() as u64 * 1000);
        let mut pending = std::collections::VecDeque::new();
        let mut buffered: Option<(Instant, Vec<u8>)> = None;
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let now = at(Instant::now());
            if now >= end {
                break;
            }
            // Events due by now, in order, with packets read by now put in their place.
            let next = self.events.peek_time().unwrap_or(Time::NEVER).min(end);
            if next <= now {
                let due = self.events.take_until(now).expect("an event is due");
                let t = self.events.now();
                let lag = Duration::from_nanos((now - t).as_ps() / 1000);
                self.max_lag = self.max_lag.max(lag);
                self.lags[(64 - (lag.as_nanos() as u64).leading_zeros() as usize).min(39)] += 1;
                self.handle(due, &mut pending, tun)?;
                continue;
            }
            // Wait for a packet until the next event (a real-time thread has no timer slack, so
            // the wait ends on time; spinning instead would let the kernel's throttling of
            // real-time threads stop it for tens of milliseconds a second).
            let wait = Duration::from_nanos((next - now).as_ps() / 1000);
            let got = match buffered.take() {
                Some(p) => Some(p),
                None => match from_tun.recv_timeout(wait.min(Duration::from_millis(20))) {
                    Ok(p) => Some(p),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Err("the TUN device's reader stopped".into()),
                },
            };
            if let Some((read_at, bytes)) = got {
                let t = at(read_at).max(self.events.now());
                if t > next {
                    // An event comes first: keep the packet for after it.
                    buffered = Some((read_at, bytes));
                    continue;
                }
                pending.push_back(bytes);
                self.events.schedule(t, Ev::Arrival);
            }
        }
        if let Some(e) = self.tap_error.take() {
            return Err(e);
        }
        Ok(self.report(end.min(at(Instant::now()))))
    }

    fn handle(&mut self, due: Due<Ev>, pending: &mut std::collections::VecDeque<Vec<u8>>, tun: &mut impl Write) -> Result<(), String> {
        let ev = due.event();
        if let Ev::Net(e) = ev {
            if let Some(d) = self.net.handle(due, e, &mut self.events) {
                let slot = self.net.packets[d.packet].seq as usize;
                if self.net.packets[d.packet].kind == PacketKind::Data {
                    self.data_delivered += 1;
                }
                self.net.packets.free(d.packet);
                write_packet(tun, &self.release(slot))?;
            }
            return Ok(());
        }
        self.events.finish(due);
        match ev {
            Ev::Net(_) => unreachable!("the network's events are handled with their entry"),
            Ev::Arrival => {
                let bytes = pending.pop_front().expect("an arrival has its packet");
                self.arrive(bytes, tun)?;
            }
            Ev::LinkState(l, up) => {
                self.net.set_link_up(l, up, self.events.now());
                self.reclaim_all();
            }
            Ev::Warmup => {
                let now = self.events.now();
                self.warm_at = now;
                for (i, (_, id, _)) in self.links.iter().enumerate() {
                    self.warm[i] = self.net.link_counters(*id, now);
                }
            }
        }
        Ok(())
    }

    /// A packet read from the TUN device enters its subflow's route; one of no subflow goes
    /// straight back.
    fn arrive(&mut self, bytes: Vec<u8>, tun: &mut impl Write) -> Result<(), String> {
        let Some((g, forward)) = addresses::subflow_of(&bytes) else {
            self.strays += 1;
            return write_packet(tun, &bytes);
        };
        let Some(&(data, acks)) = self.routes.get(g) else {
            self.strays += 1;
            return write_packet(tun, &bytes);
        };
        let kind = if forward { PacketKind::Data } else { PacketKind::Ack };
        let slot = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Vec::new());
                self.slots.len() - 1
            }
        };
        let mut p = Packet::new(kind, bytes.len() as u32, 0);
        p.seq = slot as u64;
        p.timestamp = self.events.now();
        self.slots[slot] = bytes;
        let id = self.net.packets.alloc(p);
        let route = if forward { data } else { acks };
        let dropped = self.net.dropped(kind);
        let delivered = self.net.send(id, route, &mut self.events);
        if let Some(d) = delivered {
            // A route without links (an empty reverse path) delivers at once.
            self.net.packets.free(d.packet);
        }
        let was_dropped = self.net.dropped(kind) > dropped;
        self.tap(g, slot, was_dropped);
        if delivered.is_some() || was_dropped {
            // Delivered at once, or dropped on arrival (the network freed the packet).
            let bytes = self.release(slot);
            if delivered.is_some() {
                write_packet(tun, &bytes)?;
            }
        }
        Ok(())
    }

    /// Records the packet of subflow `g` in `slot`, just offered to its link, in every capture
    /// of that subflow whose window holds the instant.
    fn tap(&mut self, g: usize, slot: usize, dropped: bool) {
        let now = self.events.now();
        for tap in &mut self.taps {
            if self.tap_error.is_none() && tap.subflows.get(g) == Some(&true) && tap.from <= now && now < tap.until {
                let time = Duration::from_nanos(now.as_ps() / 1000);
                if let Err(e) = tap.file.write(time, &self.slots[slot], dropped) {
                    self.tap_error = Some(format!("writing a capture: {e}"));
                }
            }
        }
    }

    /// The bytes of the packet in `slot`, whose slot is free again.
    fn release(&mut self, slot: usize) -> Vec<u8> {
        self.free_slots.push(slot);
        std::mem::take(&mut self.slots[slot])
    }

    /// Frees the byte slots of packets the network dropped on its own (a link going down
    /// drops what waits in it): rare, so a scan of the packets alive.
    fn reclaim_all(&mut self) {
        let alive = std::cell::RefCell::new(vec![false; self.slots.len()]);
        self.net.packets.count_live(|p| {
            alive.borrow_mut()[p.seq as usize] = true;
            false
        });
        let alive = alive.into_inner();
        for (slot, bytes) in self.slots.iter_mut().enumerate() {
            if !alive[slot] && !bytes.is_empty() {
                bytes.clear();
                self.free_slots.push(slot);
            }
        }
    }

    fn report(mut self, end: Time) -> LinkReport {
        let mut links = Vec::with_capacity(self.links.len());
        for (i, (spec, id, _)) in self.links.iter().enumerate() {
            let c = self.net.link_counters(*id, end).since(&self.warm[i]);
            links.push(LinkRecord::measured(&spec.name, spec.rate, spec.delay, &c, end.saturating_sub(self.warm_at)));
        }
        // Percentiles from the histogram: the upper edge of the bucket that reaches them.
        let total: u64 = self.lags.iter().sum();
        let percentile = |q: f64| {
            let mut seen = 0;
            for (k, &n) in self.lags.iter().enumerate() {
                seen += n;
                if seen as f64 >= q * total as f64 {
                    return (1u64 << k) as f64 * 1e-9;
                }
            }
            0.0
        };
        LinkReport {
            links,
            strays: self.strays,
            lag_s: [percentile(0.5), percentile(0.99), self.max_lag.as_secs_f64()],
            data_delivered: self.data_delivered,
            data_dropped: self.net.dropped(PacketKind::Data),
            taps: self.taps,
        }
    }
}

fn write_packet(tun: &mut impl Write, bytes: &[u8]) -> Result<(), String> {
    tun.write(bytes).map(|_| ()).map_err(|e| format!("writing to the TUN device: {e}"))
}

/// Puts the calling thread at a real-time priority (first in, first out), above the hosts'
/// threads and the kernel's softirq threads, so that the links' timing does not wait for them.
pub fn real_time() -> Result<(), String> {
    use thread_priority::{RealtimeThreadSchedulePolicy, ThreadPriority, ThreadPriorityValue, ThreadSchedulePolicy};
    let priority = ThreadPriorityValue::try_from(50u8).map_err(|e| format!("{e:?}"))?;
    thread_priority::set_thread_priority_and_policy(
        thread_priority::thread_native_id(),
        ThreadPriority::Crossplatform(priority),
        ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo),
    )
    .map_err(|e| format!("cannot give the emulator a real-time priority: {e:?}"))
}

/// Reads packets from the TUN device into `to` with the instant each was read, until `stop`.
pub fn read_tun(mut tun: impl Read, to: SyncSender<(Instant, Vec<u8>)>, stop: Arc<AtomicBool>) {
    let _ = real_time();
    let mut buf = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        match tun.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let read_at = Instant::now();
                if to.send((read_at, buf[..n].to_vec())).is_err() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}
