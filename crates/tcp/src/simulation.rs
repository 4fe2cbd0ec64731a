//! A runnable simulation: links and connections over one network, the event loop, and the
//! records it reports.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::Arc;

use mptcp_cc::Algorithm;
use sim_core::rng::stream;
use sim_core::{BufferLimit, Discipline, Due, EventList, Hop, Link, LinkCounters, LinkId, Network, PacketKind, Pipe, PipeId, Rate, Time};

use crate::config::TcpConfig;
use crate::connection::{Connection, Ctx, TimerScans};
use crate::event::{Event, MAX_INDEX};
use crate::records::{FlowRecord, LinkRecord, RunOutput, RunStats, Sample, SubflowRecord};
use crate::sender::{SenderCounters, SubflowSender};
use crate::seqset::SeqSet;
use crate::tap::{CaptureSink, CaptureSpec};

/// Run-wide settings (the `[sim]` table of a scenario).
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// The time the run ends at, counted from zero (the warm-up is part of it).
    pub duration: Time,
    /// Statistics ignore everything before this.
    pub warmup: Time,
    /// Seed of every random stream.
    pub seed: u64,
    /// Data packet size on the wire, bytes.
    pub mss: u32,
    /// Acknowledgement size on the wire, bytes.
    pub ack_size: u32,
    /// Time-series resolution (`None`: no time series).
    pub sample_interval: Option<Time>,
    /// Links serialize as htsim's `Queue` does, in whole picoseconds per byte (truncated), not
    /// exactly (`sim.serialization = "htsim"`).
    pub htsim_serialization: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            duration: Time::from_secs(10),
            warmup: Time::ZERO,
            seed: 1,
            mss: 1500,
            ack_size: 40,
            sample_interval: None,
            htsim_serialization: false,
        }
    }
}

/// A link as built: a queue and propagation delay, plus an uncongested reverse pipe for ACKs.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Unique name: it labels the link in records and path names, and seeds its random
    /// streams (`link.<name>.loss`, `link.<name>.queue`).
    pub name: String,
    /// The rate the forward queue is served at.
    pub rate: Rate,
    /// One-way propagation delay, given to the ACKs' reverse pipe as well.
    pub delay: Time,
    /// Buffer size, counting the packet in service.
    pub buffer: BufferLimit,
    /// Which arrivals the queue admits (drop-tail, RED, drop zone, threshold-dropper).
    pub discipline: Discipline,
    /// Exogenous Bernoulli loss probability per packet.
    pub loss: f64,
    /// The buffer is served round robin among flows (each subflow's packets, at a link, are
    /// one flow), rather than first come, first served.
    pub round_robin: bool,
    /// Scheduled state changes: at this time, up (`true`) or down.
    pub events: Vec<(Time, bool)>,
}

/// With captures, a run is cut into at least this many slices, after each of which the tapped
/// packets go to the capture sink (slicing changes nothing else).
const CAPTURE_SLICES: u32 = 1000;

/// How far a run is, reported between slices of [`Simulation::run_observed`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Simulated time reached.
    pub simulated: Time,
    /// Simulated time the run goes to.
    pub duration: Time,
    /// Events executed so far.
    pub events: u64,
}

/// A path's name: its links' names joined by `>`.
fn links_joined(links: &[LinkEntry], path: &[LinkIndex]) -> Arc<str> {
    path.iter().map(|l| links[l.0 as usize].name.as_str()).collect::<Vec<_>>().join(">").into()
}

/// Index of a link in a [`Simulation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LinkIndex(pub u32);

/// A flow as built: its window law, one path per subflow, and its traffic.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// Unique name: it labels the flow in records and seeds its random streams
    /// (`flow.<name>.jitter`, `flow.<name>.ack_latency`).
    pub name: String,
    /// The congestion-avoidance law, one controller coupling all the flow's subflows.
    pub algorithm: Algorithm,
    /// One list of links per subflow.
    pub paths: Vec<Vec<LinkIndex>>,
    /// Links the ACKs of each subflow cross (through their queues); `None`: an uncongested
    /// reverse path with the forward path's propagation delay.
    pub reverse_paths: Option<Vec<Vec<LinkIndex>>>,
    /// When it starts: its first SYN, or its first data without a handshake.
    pub start: Time,
    /// When it stops offering new data.
    pub stop: Option<Time>,
    /// Bytes to transfer (`None`: bulk).
    pub size: Option<u64>,
    /// Receive buffer, data segments (`None`: unlimited).
    pub receive_buffer: Option<u64>,
    /// Transport settings (recovery, SACK, timers, …), per flow so that flows can differ.
    pub tcp: TcpConfig,
}

struct LinkEntry {
    name: String,
    rate: Rate,
    delay: Time,
    id: LinkId,
    reverse: PipeId,
    warm: LinkCounters,
}

/// What the receivers held out of order at the end of the warm-up, or were receiving then: the
/// warm-up's, whenever they are delivered ([`FlowRecord::goodput_bps`]). Only receivers holding
/// some are listed.
#[derive(Default)]
struct HeldAtWarmup {
    /// Per global subflow, ascending: the segments its receiver held.
    subflows: Vec<(u32, SeqSet)>,
    /// Per multipath connection, ascending: the data segments held.
    connections: Vec<(u32, SeqSet)>,
}

impl HeldAtWarmup {
    /// Records segment `seq` as got by receiver `key` of `list` (its entry made from what it
    /// holds, `held`, if missing), unless it had it already: `delivered` in order, or held.
    fn mark(list: &mut Vec<(u32, SeqSet)>, key: u32, held: Option<&SeqSet>, delivered: u64, seq: u64) {
        if seq < delivered || held.is_some_and(|h| h.contains(seq)) {
            return;
        }
        let i = list.binary_search_by_key(&key, |(k, _)| *k).unwrap_or_else(|i| {
            list.insert(i, (key, held.cloned().unwrap_or_default()));
            i
        });
        list[i].1.insert(seq);
    }
}

fn held_by(list: &[(u32, SeqSet)], key: u32) -> Option<&SeqSet> {
    list.binary_search_by_key(&key, |(k, _)| *k).ok().map(|i| &list[i].1)
}

/// Which connection, subflow and side an endpoint number names.
fn endpoint(global_subflow: u32, receiver: bool) -> u32 {
    global_subflow * 2 + receiver as u32
}

/// One run: build it with `add_link` and `add_flow`, then `run` it.
pub struct Simulation {
    config: SimConfig,
    /// The network, the event list and the settings connections act on.
    ctx: Ctx,
    links: Vec<LinkEntry>,
    conns: Vec<Connection>,
    /// Links of every subflow's path, concatenated; `path_ranges[g]` is subflow g's slice.
    path_links: Vec<LinkIndex>,
    path_ranges: Vec<(u32, u32)>,
    owners: Vec<(u32, u32)>,
    /// Per subflow, its sender's counters at the end of the warm-up (empty until then).
    warm_senders: Vec<SenderCounters>,
    /// Per subflow, segments its receiver had delivered in order at the end of the warm-up.
    warm_received: Vec<u64>,
    warm_delivered: Vec<u64>,
    /// What the receivers had got at the end of the warm-up without delivering it in order.
    warm_held: HeldAtWarmup,
    last_sample_acked: Vec<u64>,
    /// The flows' names, one after another; flow `i`'s ends at `name_ends[i]` (one string for
    /// all: a `String` per flow would cost 48 bytes more each).
    names: String,
    name_ends: Vec<u32>,
    samples: Vec<Sample>,
    /// Packet captures and where their segments go (none: nothing tapped).
    captures: Vec<CaptureSpec>,
    capture_sink: Option<Box<dyn CaptureSink>>,
}

impl Simulation {
    /// A simulation with no links or flows yet; the end of the warm-up and the first sample
    /// are already scheduled.
    pub fn new(config: SimConfig) -> Simulation {
        let mut events = EventList::new();
        events.schedule_timer(config.warmup, Event::WarmupEnd);
        if let Some(dt) = config.sample_interval {
            events.schedule_timer(dt, Event::Sample);
        }
        Simulation {
            ctx: Ctx { net: Network::new(), events, mss: config.mss, ack_size: config.ack_size, scans: TimerScans::default(), spare: None },
            config,
            links: Vec::new(),
            conns: Vec::new(),
            path_links: Vec::new(),
            path_ranges: Vec::new(),
            owners: Vec::new(),
            warm_senders: Vec::new(),
            warm_received: Vec::new(),
            warm_delivered: Vec::new(),
            warm_held: HeldAtWarmup::default(),
            last_sample_acked: Vec::new(),
            names: String::new(),
            name_ends: Vec::new(),
            captures: Vec::new(),
            capture_sink: None,
            samples: Vec::new(),
        }
    }

    /// Reserves room for `links` more links and `flows` more flows of `subflows_each`
    /// subflows, so that large scenarios do not pay for vector growth.
    pub fn reserve(&mut self, links: usize, flows: usize, subflows_each: usize) {
        self.links.reserve(links);
        self.conns.reserve(flows);
        self.warm_delivered.reserve(flows);
        let subflows = flows * subflows_each;
        self.warm_received.reserve(subflows);
        self.owners.reserve(subflows);
        self.path_ranges.reserve(subflows);
    }

    /// The run settings given to [`Simulation::new`].
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Adds a link with a reverse pipe of the same delay for uncongested ACKs, schedules its
    /// up/down events, and returns the index flows' paths name it by.
    pub fn add_link(&mut self, spec: LinkSpec) -> LinkIndex {
        assert!(self.links.len() < (MAX_INDEX / 2) as usize, "too many links for the event encoding");
        let seed = self.config.seed;
        let mut link = Link::new(
            spec.rate,
            spec.delay,
            spec.buffer,
            spec.discipline,
            spec.loss,
            stream(seed, &format!("link.{}.loss", spec.name)),
            stream(seed, &format!("link.{}.queue", spec.name)),
        );
        if self.config.htsim_serialization {
            link = link.with_htsim_serialization();
        }
        if spec.round_robin {
            link = link.with_round_robin();
        }
        let id = self.ctx.net.add_link(link);
        let reverse = self.ctx.net.add_pipe(Pipe::new(spec.delay));
        for &(at, up) in &spec.events {
            self.ctx.events.schedule_timer(at, Event::LinkState(id, up));
        }
        self.links.push(LinkEntry { name: spec.name, rate: spec.rate, delay: spec.delay, id, reverse, warm: LinkCounters::default() });
        LinkIndex(self.links.len() as u32 - 1)
    }

    /// Adds a flow (a connection with one subflow per path). The spec may be lent: a caller
    /// adding many alike flows changes one spec between them.
    pub fn add_flow(&mut self, spec: impl Borrow<FlowSpec>) {
        let spec = spec.borrow();
        assert!(self.owners.len() + spec.paths.len() <= (MAX_INDEX / 2) as usize, "too many subflows for the event encoding");
        let conn_index = self.conns.len() as u32;
        let first_subflow = self.owners.len() as u32;
        let mss = self.config.mss;
        let multipath = spec.paths.len() > 1;
        let cc = spec.algorithm.build();
        let law_watches_slow_start = cc.watches_slow_start();
        let mut senders = Vec::with_capacity(spec.paths.len());
        for (r, path) in spec.paths.iter().enumerate() {
            let global = first_subflow + r as u32;
            // The send jitter: a pipe of its own in front of the path, where each packet waits
            // until the time the sender drew for it (ns-2's `overhead_`).
            let jitter = (spec.tcp.jitter > Time::ZERO).then(|| Hop::Pipe(self.ctx.net.add_pipe(Pipe::new(Time::ZERO))));
            // Hops go straight into the network's table, without a vector per route.
            let links = &self.links;
            let forward = |l: &LinkIndex| Hop::Link(links[l.0 as usize].id);
            let route = self.ctx.net.add_route(jitter.into_iter().chain(path.iter().map(forward)), endpoint(global, true));
            // The ACK latency: likewise a pipe in front of the way back.
            let latency = (spec.tcp.ack_latency_median > Time::ZERO).then(|| Hop::Pipe(self.ctx.net.add_pipe(Pipe::new(Time::ZERO))));
            let ack_route = match &spec.reverse_paths {
                // (Without a latency pipe, the connection takes such ACKs without a route.)
                _ if spec.tcp.instant_acks => self.ctx.net.add_route(latency, endpoint(global, false)),
                Some(rev) => self.ctx.net.add_route(latency.into_iter().chain(rev[r].iter().map(forward)), endpoint(global, false)),
                None => self.ctx.net.add_route(
                    latency.into_iter().chain(path.iter().rev().map(|l| Hop::Pipe(links[l.0 as usize].reverse))),
                    endpoint(global, false),
                ),
            };
            senders.push(SubflowSender::new(route, ack_route, multipath, &spec.tcp).with_law_watching_slow_start(law_watches_slow_start));
            self.owners.push((conn_index, r as u32));
            self.path_ranges.push((self.path_links.len() as u32, path.len() as u32));
            self.path_links.extend_from_slice(path);
        }
        self.ctx.events.schedule_timer(spec.start, Event::Start(conn_index));
        if let Some(stop) = spec.stop {
            self.ctx.events.schedule_timer(stop, Event::Stop(conn_index));
        }
        let seed = self.config.seed;
        self.conns.push(Connection::new(spec, cc, senders, first_subflow, mss, |what| stream(seed, &format!("flow.{}.{what}", spec.name))));
        self.warm_delivered.push(0);
        self.names.push_str(&spec.name);
        self.name_ends.push(self.names.len() as u32);
        self.warm_received.resize(self.owners.len(), 0);
    }

    /// Runs to the configured duration and reports.
    pub fn run(self) -> RunOutput {
        self.run_observed(1, |_| {})
    }

    /// Runs to the configured duration in `slices` equal slices of simulated time, calling
    /// `observe` after each (for a progress display).
    pub fn run_observed(self, slices: u32, mut observe: impl FnMut(&Progress)) -> RunOutput {
        self.run_sliced(slices, |p| {
            observe(p);
            true
        })
        .0
    }

    /// As [`Simulation::run_observed`], but `observe` says after each slice whether to go on:
    /// the output, or none if it stopped the run.
    pub fn run_stoppable(self, slices: u32, observe: impl FnMut(&Progress) -> bool) -> Option<RunOutput> {
        let (output, finished) = self.run_sliced(slices, observe);
        finished.then_some(output)
    }

    /// The run in slices, while `go_on` says so: its output, and whether it reached the end.
    fn run_sliced(mut self, slices: u32, mut go_on: impl FnMut(&Progress) -> bool) -> (RunOutput, bool) {
        let end = self.config.duration;
        let slices = if self.captures.is_empty() { slices.max(1) } else { slices.max(CAPTURE_SLICES) } as u64;
        for k in 1..=slices {
            let until = if k == slices { end } else { Time((end.as_ps() as u128 * k as u128 / slices as u128) as u64) };
            self.advance(until, u64::MAX);
            self.flush_captures();
            if !go_on(&Progress { simulated: until, duration: end, events: self.ctx.events.executed() }) && k < slices {
                return (self.report(), false);
            }
        }
        (self.report(), true)
    }

    /// Runs at most `max_events` events: the output if the run ended within them, else how far
    /// it got, and whether simulated time still moved during the second half of them (property
    /// tests bound every case so; a heavy run advances, a run stuck at an instant does not).
    pub fn run_budgeted(mut self, max_events: u64) -> Result<RunOutput, (Progress, bool)> {
        let end = self.config.duration;
        if self.advance(end, max_events / 2) {
            let halfway = self.ctx.events.now();
            if self.advance(end, max_events) {
                let now = self.ctx.events.now();
                let progress = Progress { simulated: now, duration: end, events: self.ctx.events.executed() };
                return Err((progress, now > halfway));
            }
        }
        Ok(self.report())
    }

    /// The event loop, the one place events are dispatched (so that the compiler inlines the
    /// per-packet work into it once): up to time `until`, or until `max_events` events have
    /// run in all; returns whether it stopped for the count.
    #[inline(never)]
    fn advance(&mut self, until: Time, max_events: u64) -> bool {
        while let Some(due) = self.ctx.events.take_until(until) {
            self.dispatch(due);
            if self.ctx.events.executed() >= max_events {
                return true;
            }
        }
        false
    }

    #[inline(always)]
    fn dispatch(&mut self, due: Due<Event>) {
        let event = due.event();
        let Event::Net(e) = event else {
            self.ctx.events.finish(due);
            return self.dispatch_other(event);
        };
        if let Some(d) = self.ctx.net.handle(due, e, &mut self.ctx.events) {
            let (conn, r) = self.owners[(d.endpoint / 2) as usize];
            let (ctx, conns) = (&mut self.ctx, &mut self.conns);
            let c = &mut conns[conn as usize];
            if d.endpoint % 2 == 1 {
                c.on_data(r as usize, d.packet, ctx);
            } else {
                c.on_ack_packet(r as usize, d.packet, ctx);
            }
        }
    }

    /// The events other than the network's, already finished.
    #[inline(always)]
    fn dispatch_other(&mut self, event: Event) {
        match event {
            Event::Net(_) => unreachable!("the network's events are dispatched with their entry"),
            Event::Retransmit(g) => {
                let (conn, r) = self.owners[g as usize];
                let (ctx, conns) = (&mut self.ctx, &mut self.conns);
                conns[conn as usize].on_timer(r as usize, ctx);
            }
            Event::DelayedAck(g) => {
                let (conn, r) = self.owners[g as usize];
                let (ctx, conns) = (&mut self.ctx, &mut self.conns);
                conns[conn as usize].on_delack_timer(r as usize, ctx);
            }
            Event::Start(c) => {
                let (ctx, conns) = (&mut self.ctx, &mut self.conns);
                conns[c as usize].start(ctx);
            }
            Event::Stop(c) => self.conns[c as usize].stop(),
            Event::LinkState(l, up) => {
                let now = self.ctx.events.now();
                self.ctx.net.set_link_up(l, up, now);
            }
            Event::WarmupEnd => self.snapshot(),
            Event::Sample => self.sample(),
            Event::TimerScan => self.scan_timers(),
        }
    }

    /// A scan of coarse timers: the subflows due now, in the order they were added. Out of
    /// line: a scan comes every few milliseconds at most, packets every microsecond.
    #[cold]
    #[inline(never)]
    fn scan_timers(&mut self) {
        for g in self.ctx.scans.take(self.ctx.events.now()) {
            let (conn, r) = self.owners[g as usize];
            self.conns[conn as usize].on_timer(r as usize, &mut self.ctx);
        }
    }

    /// Captures the packets arriving at `spec.links` (from the flows and within the times it
    /// says), for the sink of [`Simulation::set_capture_sink`]; call after adding the links and
    /// flows.
    pub fn add_capture(&mut self, spec: CaptureSpec) {
        for l in &spec.links {
            let link = &self.links[l.0 as usize];
            self.ctx.net.tap(link.id);
            self.ctx.net.tap_pipe(link.reverse);
        }
        self.captures.push(spec);
    }

    /// Where every capture's segments go (without one, captures are taken and discarded).
    pub fn set_capture_sink(&mut self, sink: Box<dyn CaptureSink>) {
        self.capture_sink = Some(sink);
    }

    /// Hands the tapped packets to the capture sink as segments.
    #[inline(never)]
    fn flush_captures(&mut self) {
        let Some(sink) = self.capture_sink.as_mut() else {
            self.ctx.net.tapped.clear();
            return;
        };
        let tapped = std::mem::take(&mut self.ctx.net.tapped);
        for t in &tapped {
            let Some((global, to_receiver)) = crate::tap::destination(self.ctx.net.hops_from(t.packet.hop)) else { continue };
            let (conn, r) = self.owners[global as usize];
            for (i, spec) in self.captures.iter().enumerate() {
                let here =
                    spec.links.iter().map(|l| &self.links[l.0 as usize]).any(|l| t.at == Hop::Link(l.id) || t.at == Hop::Pipe(l.reverse));
                let wanted = here && t.time >= spec.from && t.time < spec.until && spec.flows.as_ref().is_none_or(|f| f.contains(&conn));
                if wanted {
                    let c = &self.conns[conn as usize];
                    let view = crate::tap::FlowView {
                        flow: conn,
                        subflow: r,
                        multipath: c.multipath(),
                        timestamps: c.senders()[r as usize].uses_timestamps(),
                    };
                    sink.write(i, &crate::tap::segment(t, to_receiver, &view, self.config.mss));
                }
            }
        }
        self.ctx.net.tapped = tapped;
        self.ctx.net.tapped.clear();
    }

    fn snapshot(&mut self) {
        let now = self.ctx.events.now();
        for link in &mut self.links {
            link.warm = self.ctx.net.link_counters(link.id, now);
            self.ctx.net.reset_link_max(link.id);
        }
        // The senders' counters are snapshotted here, not kept zeroed from the start: 88 bytes
        // per subflow that flows not yet started need not hold.
        self.warm_senders.clear();
        self.warm_senders.reserve_exact(self.owners.len());
        let held = &mut self.warm_held;
        let above = |h: &SeqSet, delivered: u64| h.members(delivered, u64::MAX).next().is_some();
        for (i, c) in self.conns.iter_mut().enumerate() {
            c.account(now);
            self.warm_delivered[i] = c.delivered();
            if c.multipath()
                && let Some(h) = c.held().filter(|h| above(h, c.delivered()))
            {
                held.connections.push((i as u32, h.clone()));
            }
            for (r, s) in c.senders().iter().enumerate() {
                let g = c.first_subflow() as usize + r;
                self.warm_senders.push(*s.counters());
                let receiver = &c.receivers()[r];
                self.warm_received[g] = receiver.delivered();
                if above(receiver.held(), receiver.delivered()) {
                    held.subflows.push((g as u32, receiver.held().clone()));
                }
            }
        }
        // The segments being received at this instant, one at most per link (the head of its
        // wire, if the link is its route's last): begun in the warm-up, they are its, so that
        // no flow is counted faster than the links into its receiver.
        for link in &self.links {
            let Some(id) = self.ctx.net.arriving(link.id, now) else { continue };
            let p = &self.ctx.net.packets[id];
            if let (PacketKind::Data, [_, Hop::Deliver(e), ..]) = (p.kind, self.ctx.net.hops_from(p.hop))
                && e % 2 == 1
            {
                let (conn, r) = self.owners[(e / 2) as usize];
                let c = &self.conns[conn as usize];
                let receiver = &c.receivers()[r as usize];
                HeldAtWarmup::mark(&mut held.subflows, e / 2, Some(receiver.held()), receiver.delivered(), p.seq);
                if c.multipath() {
                    HeldAtWarmup::mark(&mut held.connections, conn, c.held(), c.delivered(), p.data_seq);
                }
            }
        }
    }

    fn sample(&mut self) {
        let now = self.ctx.events.now();
        let dt = self.config.sample_interval.expect("sampling is on");
        // Sized at the first sample: a run without samples keeps no per-subflow counter.
        self.last_sample_acked.resize(self.owners.len(), 0);
        for (i, c) in self.conns.iter().enumerate() {
            if !c.started() {
                continue;
            }
            for (r, st) in c.states().iter().enumerate() {
                let g = c.first_subflow() as usize + r;
                let acked = c.senders()[r].counters().acked;
                let bits = c.bytes_in(acked, self.config.mss).saturating_sub(c.bytes_in(self.last_sample_acked[g], self.config.mss)) * 8;
                self.last_sample_acked[g] = acked;
                self.samples.push(Sample {
                    time_s: now.as_secs_f64(),
                    flow: i as u32,
                    subflow: r as u32,
                    cwnd_pkts: st.cwnd,
                    srtt_s: st.srtt,
                    rate_bps: bits as f64 / dt.as_secs_f64(),
                    // (None before the state exists: LIA's alpha before an RTT sample is 0/0.)
                    cc_state: c.cc().internal_state(c.states(), r).filter(|x| x.is_finite()),
                });
            }
        }
        self.ctx.events.schedule_timer(self.ctx.events.now() + dt, Event::Sample);
    }

    fn report(mut self) -> RunOutput {
        self.flush_captures();
        let end = self.config.duration;
        let warmup = self.config.warmup;
        let mss = self.config.mss;
        let mut out = RunOutput::default();
        for link in &self.links {
            let c = self.ctx.net.link_counters(link.id, end).since(&link.warm);
            out.links.push(LinkRecord::measured(&link.name, link.rate, link.delay, &c, end - warmup));
        }
        // Every sender's counters up to the end, less the warm-up's snapshot, which is then
        // freed before the records are made (the whole-run totals are taken first).
        let (mut data_sent, mut data_delivered) = (0, 0);
        let warm = std::mem::take(&mut self.warm_senders);
        for c in &mut self.conns {
            c.account(end);
            data_delivered += c.receivers().iter().map(|r| r.segments_received).sum::<u64>();
            data_sent += c.senders().iter().map(|s| s.counters().sent).sum::<u64>();
            c.count_from(&warm);
        }
        drop(warm);
        // What only a running simulation needs (routes, pipes, packets, pending events) is freed
        // too, once the run's statistics are taken from it.
        out.stats = RunStats {
            events: self.ctx.events.executed(),
            simulated_s: end.as_secs_f64(),
            data_sent,
            data_delivered,
            data_dropped: self.ctx.net.dropped(PacketKind::Data),
            data_in_flight: self.ctx.net.packets.count_live(|p| p.kind == PacketKind::Data) as u64,
            peak_packets: self.ctx.net.packets.capacity() as u64,
        };
        self.ctx.net = Network::default();
        self.ctx.events = EventList::new();
        // Each subflow's path name, its links' names joined by `>`: one string per distinct
        // path, shared by the records of the subflows taking it (10 000 flows over one path:
        // one string, not 10 000).
        let (path_ranges, path_links, links) = (&self.path_ranges, &self.path_links, &self.links);
        let mut path_names: HashMap<&[LinkIndex], Arc<str>> = HashMap::new();
        let mut path_name = |g: usize| {
            let (start, len) = path_ranges[g];
            let path = &path_links[start as usize..(start + len) as usize];
            let join = |path: &&[LinkIndex]| links_joined(links, path);
            path_names.entry(path).or_insert_with_key(join).clone()
        };
        // Exact capacities: the records are built while the simulation still holds every
        // connection, so growth by doubling would set the run's peak memory (10 000 flows:
        // 1.8 MB of spare capacity).
        out.flows.reserve_exact(self.conns.len());
        out.subflows.reserve_exact(self.owners.len());
        for (i, c) in self.conns.iter_mut().enumerate() {
            let name = &self.names[if i == 0 { 0 } else { self.name_ends[i - 1] as usize }..self.name_ends[i] as usize];
            // One copy of the name for the flow's record and its subflows'.
            let shared_name: Arc<str> = name.into();
            let from = warmup.max(c.starts_at());
            let until = end.min(c.stops_at()).min(c.completed_at());
            let window = until.saturating_sub(from).as_secs_f64();
            let per_second = |bytes: u64| if window > 0.0 { bytes as f64 * 8.0 / window } else { 0.0 };
            // Each data segment counts once, when it is first received whole: what the receiver
            // had got by the end of the warm-up is the warm-up's, in order or not, and what it
            // holds out of order at the end is the interval's.
            let first = c.first_subflow();
            let warm = &self.warm_held;
            let held_at_warmup = if c.multipath() { held_by(&warm.connections, i as u32) } else { held_by(&warm.subflows, first) };
            let at_warmup = c.received_bytes(self.warm_delivered[i], held_at_warmup, mss);
            let bytes = c.received_bytes(c.delivered(), c.held(), mss).saturating_sub(at_warmup);
            // Goodput counts what was received within [from, until]: for a flow that stopped
            // before the end (and before completing), what had arrived by its stop.
            let stopped = c.at_stop().filter(|_| c.stops_at() == until);
            let bytes_by = stopped.map_or(bytes, |s| c.received_bytes(s.delivered, s.held.as_ref(), mss).saturating_sub(at_warmup));
            let mut totals = SenderCounters::default();
            for (r, s) in c.senders().iter().enumerate() {
                let g = c.first_subflow() as usize + r;
                let d = *s.counters();
                totals.sent += d.sent;
                totals.retransmitted += d.retransmitted;
                totals.timeouts += d.timeouts;
                totals.fast_retransmits += d.fast_retransmits;
                totals.relative_drop_sum += d.relative_drop_sum;
                totals.relative_drops += d.relative_drops;
                let active = end.saturating_sub(from).as_secs_f64();
                out.subflows.push(SubflowRecord {
                    flow: shared_name.clone(),
                    subflow: r as u32,
                    path: path_name(g),
                    // What the subflow's receiver got within the window, counted as the flow's.
                    goodput_bps: per_second({
                        let from = c.received_bytes(self.warm_received[g], held_by(&warm.subflows, g as u32), mss);
                        let to = match stopped {
                            Some(s) => c.received_bytes(s.subflows[r].0, Some(&s.subflows[r].1), mss),
                            None => c.received_bytes(c.receivers()[r].delivered(), Some(c.receivers()[r].held()), mss),
                        };
                        to.saturating_sub(from)
                    }),
                    mean_cwnd_pkts: if active > 0.0 { d.cwnd_seconds / active } else { 0.0 },
                    mean_srtt_s: if d.rtt_samples > 0 { d.srtt_sum / d.rtt_samples as f64 } else { 0.0 },
                    min_rtt_s: s.rtt().min_rtt().map_or(0.0, Time::as_secs_f64),
                    packets_sent: d.sent,
                    retransmissions: d.retransmitted,
                    fast_retransmits: d.fast_retransmits,
                    duplicate_acks: d.duplicate_acks,
                    timeouts: d.timeouts,
                });
            }
            out.flows.push(FlowRecord {
                flow: shared_name,
                algorithm: c.cc().name(),
                subflows: c.senders().len() as u32,
                start_s: c.starts_at().as_secs_f64(),
                goodput_bps: per_second(bytes_by),
                bytes_delivered: bytes,
                packets_sent: totals.sent,
                retransmissions: totals.retransmitted,
                timeouts: totals.timeouts,
                loss_events: totals.timeouts + totals.fast_retransmits,
                size_bytes: c.size(),
                completion_time_s: (c.completed_at() != Time::NEVER).then(|| (c.completed_at() - c.starts_at()).as_secs_f64()),
                mean_relative_drop: (totals.relative_drops > 0).then(|| totals.relative_drop_sum / totals.relative_drops as f64),
            });
        }
        out.samples = std::mem::take(&mut self.samples);
        out
    }
}
