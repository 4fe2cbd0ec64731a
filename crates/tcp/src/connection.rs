//! A connection: one or more subflows, their shared window law, the data-level sequence, the
//! packet scheduler and the receivers.
//!
//! Single-path TCP is a connection with one subflow and the `reno` controller, so every window
//! decision goes through the same [`CoupledController`] seam as multipath. Each subflow's
//! sender is the I/O-free machine of [`crate::sender`]; [`crate::sending`] carries out what it
//! asks for.
//!
//! Multipath mechanics:
//! - **Data sequence.** New data is numbered at the connection; each subflow keeps its own
//!   sequence and remembers which data segment each of its segments carries.
//! - **Scheduler.** New data goes to the subflow with the lowest smoothed RTT among those with
//!   window space (a subflow without an RTT sample yet counts as fastest), one segment at a time.
//! - **Receive buffer.** The receiver reassembles the data sequence; the sender never sends a
//!   data segment beyond the last data-level acknowledgement plus the buffer, so with a small
//!   buffer one subflow's losses stall the others (seed 001 §3.3).
//! - **Reinjection.** When a subflow's retransmission timer expires, the data it had
//!   outstanding is queued to be sent again on whichever subflow the scheduler picks; the
//!   subflow itself still recovers its own sequence, as TCP must.

mod sending;

use mptcp_cc::lia::Lia;
use mptcp_cc::{CoupledController, SubflowState};
use rand::RngExt;
use sim_core::rng::Stream;
use sim_core::{EventList, Network, Packet, PacketId, PacketKind, Time};

use crate::config::TcpConfig;
use crate::event::Event;
use crate::receiver::{Ack, AckAction, DelackWake, Receiver, ReceiverConfig};
use crate::sender::{SenderCounters, SubflowSender};
use crate::seqset::{SeqBits, SeqSet};
use crate::simulation::FlowSpec;

/// The parts of the simulation a connection acts on. Owned by the simulation beside its
/// connections (not borrowed anew per event), so handing it over costs one pointer.
pub struct Ctx {
    /// The network packets are sent into.
    pub net: Network,
    /// The event list, for timers.
    pub events: EventList<Event>,
    /// Data packet size, bytes.
    pub mss: u32,
    /// Acknowledgement size, bytes.
    pub ack_size: u32,
    /// The coarse timers' scans to come.
    pub scans: TimerScans,
    /// A packet slot the next transmission may reuse (the ACK being processed), saving a
    /// free and an allocation per packet; the caller frees it if it is still here afterwards.
    pub spare: Option<PacketId>,
}

/// The scans of coarse timers (`timer_granularity`), as htsim's `TcpRtxTimerScanner`: one
/// event per scan instant, which wakes the subflows due then in the order they were added.
/// Their timeouts then happen in that order too, whatever order their timers were armed in;
/// with one event per subflow they would run in arming order.
#[derive(Debug, Default)]
pub struct TimerScans {
    /// Per scan instant, the global indices of the subflows to wake (unsorted, maybe twice).
    due: std::collections::BTreeMap<Time, Vec<u32>>,
}

impl TimerScans {
    /// Wakes subflow `global` at scan instant `at`.
    pub fn add(&mut self, at: Time, global: u32, events: &mut EventList<Event>) {
        let due = self.due.entry(at).or_default();
        if due.is_empty() {
            events.schedule_timer(at, Event::TimerScan);
        }
        due.push(global);
    }

    /// The subflows to wake at scan instant `now`, in the order they were added.
    pub fn take(&mut self, now: Time) -> Vec<u32> {
        let mut due = self.due.remove(&now).unwrap_or_default();
        due.sort_unstable();
        due.dedup();
        due
    }
}

/// The connection-level data sequence, on both sides.
#[derive(Clone, Debug, Default)]
pub struct DataLevel {
    /// Next data segment never sent.
    pub next: u64,
    /// Data segments there are to send (a finite transfer's total; `next` once stopped).
    pub limit: u64,
    /// Highest data-level cumulative acknowledgement the sender has seen.
    pub acked: u64,
    /// Receive buffer, segments beyond `acked` the sender may have outstanding.
    pub buffer: u64,
    /// Receiver: data segments delivered in order (multipath; a single-path connection's
    /// receiver counts them).
    pub delivered: u64,
    /// What only a multipath connection needs, made at its first use (never for single-path
    /// TCP: 64 bytes fewer per flow).
    pub multipath: Option<Box<Reassembly>>,
}

/// A multipath connection's reinjection queue and data-level reassembly.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// Data segments to send again on another subflow, lowest first (the data-level hole
    /// first, as Linux's in-tree MPTCP retransmits). A set of bits: a timed-out subflow's
    /// window, which window inflation in fast recovery can take to many thousands of
    /// segments, costs a bit per segment, and queueing it costs its length.
    pub reinject: SeqBits,
    /// Receiver: data segments held out of order.
    pub out_of_order: SeqSet,
}

impl DataLevel {
    /// The next data segment to put on a subflow, if flow control and the data allow one.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<u64> {
        if let Some(m) = &mut self.multipath
            && !m.reinject.is_empty()
        {
            m.reinject.forget_below(self.acked);
            if let Some(d) = m.reinject.pop_first() {
                return Some(d);
            }
        }
        (self.next < self.limit && self.next - self.acked < self.buffer).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// The receiver got data segment `d` (multipath connections only).
    fn receive(&mut self, d: u64) {
        let m = self.multipath.get_or_insert_default();
        if d == self.delivered {
            self.delivered = m.out_of_order.advance(d + 1);
        } else if d > self.delivered {
            m.out_of_order.insert(d);
        }
    }
}

/// What a connection's receivers had got when it stopped offering data.
#[derive(Debug)]
pub struct AtStop {
    /// Data segments delivered in order.
    pub delivered: u64,
    /// Data segments held above them ([`Connection::held`]).
    pub held: Option<SeqSet>,
    /// Per subflow, the segments its receiver had in order, and those it held above them.
    pub subflows: Vec<(u64, SeqSet)>,
}

/// One transport connection and its subflows.
#[derive(Debug)]
pub struct Connection {
    /// The window law: one controller for all subflows, since a coupled law reads them all.
    cc: Box<dyn CoupledController>,
    /// What the law reads about each subflow, indexed like `senders`; the senders keep it
    /// current through [`crate::sender::Window`]. (Boxed slices, not vectors: a connection's
    /// subflows are fixed, and a vector's capacity would cost 8 bytes each.)
    states: Box<[SubflowState]>,
    /// Per subflow, the sending state machine: sequence, loss recovery, timer.
    senders: Box<[SubflowSender]>,
    /// Per subflow, the receiving end: cumulative ACKs, SACK blocks, delayed ACKs.
    receivers: Box<[Receiver]>,
    /// The connection-level data sequence shared by the subflows: what is left to send, the
    /// data ACK, segments to reinject, and the reassembly of a multipath transfer.
    data: DataLevel,
    /// The transport settings the connection itself reads (the senders and receivers copy
    /// theirs); not the whole [`TcpConfig`], which would cost 96 bytes per flow.
    config: ConnectionSettings,
    /// Bytes to transfer (`None`: bulk, unlimited).
    size: Option<u64>,
    /// Index of this connection's first subflow in the simulation's subflow table.
    first_subflow: u32,
    /// When it starts: its first SYN, or its first data without a handshake.
    start: Time,
    /// When it stops offering new data (`Time::NEVER`: it does not; a sentinel rather than an
    /// `Option`, as elsewhere in the hot state, for 8 bytes per flow).
    stop: Time,
    /// Whether [`Connection::start`] has run; until then it sends nothing and is left out of
    /// samples and time integrals.
    started: bool,
    /// When the receiver got the last byte of a finite transfer (`Time::NEVER`: not yet).
    completed_at: Time,
    /// The largest window TCP can have, packets: 2^30 bytes (RFC 7323 §2.3) in segments.
    max_window: u64,
    /// What the receivers had got when the connection stopped offering data (goodput is
    /// measured up to the stop).
    at_stop: Option<Box<AtStop>>,
    /// The send jitter's state (with `jitter` above zero).
    jitter: Option<Box<Jitter>>,
    /// The receivers' ACK latency (with `ack_latency_median` above zero).
    ack_latency: Option<Box<AckLatency>>,
    /// The random stream of LIA's carried byte (`flow.<name>.byte_carry`, with
    /// `lia_byte_carry` and `byte_window` on a LIA connection).
    byte_carry: Option<Box<Stream>>,
}

/// What a connection reads of its [`TcpConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConnectionSettings {
    /// How long a receiver may hold a delayed ACK.
    pub delayed_ack_timeout: Time,
    /// The smallest ssthresh a loss may set, packets.
    pub min_ssthresh: f64,
    /// Whether a loss rounds ssthresh down to whole packets.
    pub whole_ssthresh: bool,
    /// With `byte_window`, the bytes in a packet (the window's steps are whole bytes); zero
    /// without.
    pub bytes_per_packet: f64,
    /// The SYN's size on the wire, bytes (0: the ACK size).
    pub syn_size: u32,
    /// Whether the connection opens with a handshake.
    pub handshake: bool,
    /// Whether every subflow opens at the start (htsim), not after the first (MPTCP).
    pub subflows_at_once: bool,
    /// Whether an ACK reaches its sender as the receiver sends it (`instant_acks` without an
    /// ACK latency): it is taken at once, without a trip through the network.
    pub acks_at_once: bool,
}

impl ConnectionSettings {
    /// The connection's part of `config`, for packets of `mss` bytes.
    pub fn of(config: &TcpConfig, mss: u32) -> ConnectionSettings {
        ConnectionSettings {
            delayed_ack_timeout: config.delayed_ack_timeout,
            min_ssthresh: config.min_ssthresh,
            whole_ssthresh: config.whole_ssthresh,
            bytes_per_packet: if config.byte_window { mss as f64 } else { 0.0 },
            syn_size: config.syn_size,
            handshake: config.handshake,
            subflows_at_once: config.subflows_at_once,
            acks_at_once: config.instant_acks && config.ack_latency_median == Time::ZERO,
        }
    }
}

/// The send jitter of a connection: its random stream, and per subflow the time the last
/// packet was let go (each waits at least until then, so none overtakes another).
#[derive(Debug)]
pub struct Jitter {
    /// The largest delay a packet draws (uniform on `[0, amplitude]`).
    pub amplitude: Time,
    /// Its own random stream (`flow.<name>.jitter`), so jitter draws leave every other
    /// component's numbers unchanged.
    pub rng: Stream,
    /// Per subflow, when its last packet leaves the jitter pipe.
    pub last_due: Vec<Time>,
}

/// The receivers' ACK latency of a connection: each ACK made as data arrives and carrying no
/// SACK block waits a log-normal time (Linux's receiver acknowledges two segments once its
/// reader has taken them), and per subflow no ACK leaves before the one sent before it.
#[derive(Debug)]
pub struct AckLatency {
    /// The logarithm of the median in picoseconds.
    mu: f64,
    /// The log-normal's σ: the 99th percentile is `exp(mu + z99·sigma)`.
    sigma: f64,
    /// No wait exceeds this (the delayed-ACK timer would have sent the ACK).
    cap: Time,
    /// Its own random stream (`flow.<name>.ack_latency`).
    rng: Stream,
    /// Per subflow, when its last ACK leaves the receiver.
    last_due: Vec<Time>,
}

impl AckLatency {
    /// The 99th percentile of the standard normal distribution.
    const Z99: f64 = 2.326_347_874_040_841;

    /// The latency of `config` (whose median is above zero) for `subflows` subflows.
    pub fn new(config: &TcpConfig, rng: Stream, subflows: usize) -> AckLatency {
        let median = config.ack_latency_median.as_ps() as f64;
        AckLatency {
            mu: median.ln(),
            sigma: (config.ack_latency_p99.as_ps() as f64 / median).ln() / Self::Z99,
            cap: config.delayed_ack_timeout,
            rng,
            last_due: vec![Time::ZERO; subflows],
        }
    }

    /// When subflow `r`'s ACK made at `now` leaves: after a draw if it `waits`, at once
    /// otherwise, and not before the one before it.
    #[inline]
    fn due(&mut self, r: usize, now: Time, waits: bool) -> Time {
        let wait = if waits {
            let z: f64 = self.rng.sample(rand_distr::StandardNormal);
            Time(((self.mu + self.sigma * z).exp() as u64).min(self.cap.as_ps()))
        } else {
            Time::ZERO
        };
        let last = &mut self.last_due[r];
        *last = (now + wait).max(*last);
        *last
    }
}

/// What the simulation reads of a connection for its samples and records; only the
/// connection's own modules write it.
impl Connection {
    /// The window law.
    pub fn cc(&self) -> &dyn CoupledController {
        &*self.cc
    }

    /// What the law reads about each subflow.
    pub fn states(&self) -> &[SubflowState] {
        &self.states
    }

    /// Per subflow, the sender.
    pub fn senders(&self) -> &[SubflowSender] {
        &self.senders
    }

    /// Per subflow, the receiver.
    pub fn receivers(&self) -> &[Receiver] {
        &self.receivers
    }

    /// Index of the first subflow in the simulation's subflow table.
    pub fn first_subflow(&self) -> u32 {
        self.first_subflow
    }

    /// Bytes to transfer (`None`: bulk).
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// When it starts.
    pub fn starts_at(&self) -> Time {
        self.start
    }

    /// When it stops offering new data (`Time::NEVER`: it does not).
    pub fn stops_at(&self) -> Time {
        self.stop
    }

    /// Whether it has started.
    pub fn started(&self) -> bool {
        self.started
    }

    /// When the receiver got the last byte of a finite transfer (`Time::NEVER`: not yet).
    pub fn completed_at(&self) -> Time {
        self.completed_at
    }

    /// What the receivers had got when it stopped offering data.
    pub fn at_stop(&self) -> Option<&AtStop> {
        self.at_stop.as_deref()
    }

    /// Makes every sender's counters count from its snapshot in `warm` (the simulation's
    /// table of subflows, indexed from [`Connection::first_subflow`]).
    pub fn count_from(&mut self, warm: &[SenderCounters]) {
        let first = self.first_subflow as usize;
        for (s, w) in self.senders.iter_mut().zip(warm.get(first..).unwrap_or_default()) {
            s.count_from(w);
        }
    }
}

impl Connection {
    /// The connection `spec` describes, with its window law `cc` and one sender per path,
    /// its subflows numbered from `first_subflow` in the simulation's table; `stream` gives
    /// the random stream of each of its parts (`jitter`, `ack_latency`).
    pub(crate) fn new(
        spec: &FlowSpec,
        cc: Box<dyn CoupledController>,
        senders: Vec<SubflowSender>,
        first_subflow: u32,
        mss: u32,
        stream: impl Fn(&str) -> Stream,
    ) -> Connection {
        let n = senders.len();
        let tcp = &spec.tcp;
        // htsim draws the carried byte in its LIA (`COUPLED_INC`) only.
        let carries = tcp.byte_window && tcp.lia_byte_carry && cc.name() == Lia.name();
        Connection {
            cc,
            states: vec![SubflowState::new(tcp.initial_cwnd, tcp.initial_ssthresh); n].into_boxed_slice(),
            senders: senders.into_boxed_slice(),
            receivers: vec![
                Receiver::new(ReceiverConfig {
                    delayed_ack: tcp.delayed_ack,
                    quick_acks: tcp.quick_acks,
                    quick_acks_after_out_of_order: tcp.quick_acks_after_out_of_order,
                    sack: tcp.sack
                });
                n
            ]
            .into_boxed_slice(),
            jitter: (tcp.jitter > Time::ZERO)
                .then(|| Box::new(Jitter { amplitude: tcp.jitter, rng: stream("jitter"), last_due: vec![Time::ZERO; n] })),
            ack_latency: (tcp.ack_latency_median > Time::ZERO).then(|| Box::new(AckLatency::new(tcp, stream("ack_latency"), n))),
            byte_carry: carries.then(|| Box::new(stream("byte_carry"))),
            data: DataLevel {
                limit: Connection::segments_for(spec.size, mss),
                buffer: spec.receive_buffer.unwrap_or(u64::MAX),
                ..DataLevel::default()
            },
            config: ConnectionSettings::of(tcp, mss),
            size: spec.size,
            first_subflow,
            start: spec.start,
            stop: spec.stop.unwrap_or(Time::NEVER),
            started: false,
            completed_at: Time::NEVER,
            at_stop: None,
            max_window: ((1u64 << 30) / mss as u64).max(1),
        }
    }

    /// Segments of a finite transfer of `size` bytes (`u64::MAX` for bulk).
    pub fn segments_for(size: Option<u64>, mss: u32) -> u64 {
        size.map_or(u64::MAX, |b| b.div_ceil(mss as u64).max(1))
    }

    /// Bytes carried by the first `segments` data segments.
    pub fn bytes_in(&self, segments: u64, mss: u32) -> u64 {
        let full = segments.saturating_mul(mss as u64);
        self.size.map_or(full, |b| full.min(b))
    }

    pub(crate) fn segment_size(&self, data_seq: u64, mss: u32) -> u32 {
        match self.size {
            Some(b) => (b - data_seq * mss as u64).min(mss as u64).max(1) as u32,
            None => mss,
        }
    }

    pub(crate) fn multipath(&self) -> bool {
        self.senders.len() > 1
    }

    /// Data segments the receiver has delivered in order.
    #[inline]
    pub fn delivered(&self) -> u64 {
        if self.multipath() { self.data.delivered } else { self.receivers[0].delivered() }
    }

    /// Data segments the receiver holds out of order above [`Connection::delivered`] (`None`:
    /// a multipath connection that has received nothing yet).
    pub fn held(&self) -> Option<&SeqSet> {
        if self.multipath() { self.data.multipath.as_deref().map(|m| &m.out_of_order) } else { Some(self.receivers[0].held()) }
    }

    /// Bytes of the distinct data segments received whole, in order or not, when `delivered`
    /// were delivered in order and `held` held above them: each segment once, however many
    /// copies arrived. (Also for a subflow's own segment numbers, sized as data segments.)
    pub fn received_bytes(&self, delivered: u64, held: Option<&SeqSet>, mss: u32) -> u64 {
        let size = |s: u64| self.bytes_in(s + 1, mss) - self.bytes_in(s, mss);
        self.bytes_in(delivered, mss) + held.map_or(0, |h| h.members(delivered, u64::MAX).map(size).sum::<u64>())
    }

    /// Data packet `id` (or a SYN) reached subflow `r`'s receiver; turns it into the ACK (or
    /// frees it).
    #[inline(always)]
    pub fn on_data(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        let p = &ctx.net.packets[id];
        if p.kind == PacketKind::Handshake {
            return self.on_syn(r, id, ctx);
        }
        let action = self.receivers[r].on_data(p.seq, p.timestamp, p.retransmitted);
        if self.multipath() {
            self.data.receive(p.data_seq);
        }
        let delivered = self.delivered();
        if self.completed_at == Time::NEVER && self.size.is_some() && delivered >= Self::segments_for(self.size, ctx.mss) {
            self.completed_at = ctx.events.now();
        }
        match action {
            AckAction::Send(ack) => self.send_ack(r, id, ack, delivered, true, ctx),
            AckAction::Delay => {
                ctx.net.packets.free(id);
                let at = ctx.events.now() + self.config.delayed_ack_timeout;
                if self.receivers[r].hold_until(at) {
                    ctx.events.schedule_timer(at, Event::DelayedAck(self.first_subflow + r as u32));
                }
            }
        }
    }

    /// A SYN (packet `id`) reached subflow `r`'s receiver: it becomes the SYN-ACK, echoing the
    /// SYN's send time. Out of line: one per connection.
    #[cold]
    #[inline(never)]
    fn on_syn(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        let p = &mut ctx.net.packets[id];
        p.retransmitted = false;
        if self.config.acks_at_once {
            return self.ack_at_once(r, id, ctx);
        }
        let delivered = ctx.net.send(id, self.senders[r].ack_route(), &mut ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one pipe");
    }

    /// The delayed-ACK timer of subflow `r`'s receiver fired.
    pub fn on_delack_timer(&mut self, r: usize, ctx: &mut Ctx) {
        match self.receivers[r].on_delack_timer(ctx.events.now()) {
            DelackWake::Send(ack) => {
                let id = ctx.net.packets.alloc(Packet::new(PacketKind::Ack, ctx.ack_size, 0));
                self.send_ack(r, id, ack, self.delivered(), false, ctx);
            }
            DelackWake::Later(at) => ctx.events.schedule_timer(at, Event::DelayedAck(self.first_subflow + r as u32)),
            DelackWake::Nothing => {}
        }
    }

    /// Rewrites packet `id` as acknowledgement `ack` with the data-level acknowledgement
    /// `data_ack`, and sends it back; after the ACK latency if there is one and the ACK was
    /// made as data arrived (`reader`), not by the delayed-ACK timer.
    #[inline(always)]
    fn send_ack(&mut self, r: usize, id: PacketId, ack: Ack, data_ack: u64, reader: bool, ctx: &mut Ctx) {
        let p = &mut ctx.net.packets[id];
        p.kind = PacketKind::Ack;
        p.size = ctx.ack_size;
        p.seq = ack.next;
        p.data_seq = data_ack;
        p.timestamp = ack.echo;
        p.retransmitted = ack.echo_retransmitted;
        if ack.sack[0].1 != 0 {
            // (A packet turned into an ACK carries no blocks before: data packets have none.)
            p.sack = ack.sack;
        }
        if let Some(latency) = &mut self.ack_latency {
            p.due = latency.due(r, ctx.events.now(), reader && ack.sack[0].1 == 0);
        }
        if self.config.acks_at_once {
            return self.ack_at_once(r, id, ctx);
        }
        let delivered = ctx.net.send(id, self.senders[r].ack_route(), &mut ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one pipe");
    }

    /// ACK packet `id` of subflow `r` reached the sender as the receiver sent it. Out of line:
    /// the event loop's copy of the ACK's path stays the one for ACKs that cross the network.
    #[inline(never)]
    fn ack_at_once(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        self.on_ack_packet(r, id, ctx);
    }

    /// ACK packet `id` of subflow `r` reached the sender: its acknowledgement is taken, and
    /// the packet is sent again as data or freed.
    #[inline(always)]
    pub fn on_ack_packet(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        let p = &ctx.net.packets[id];
        let mut ack = Ack::cumulative(p.seq, p.timestamp, p.retransmitted);
        if p.sack[0].1 != 0 {
            ack.sack = p.sack;
        }
        let data_ack = p.data_seq;
        ctx.spare = Some(id);
        self.on_ack(r, ack, data_ack, ctx);
        if let Some(unused) = ctx.spare.take() {
            ctx.net.packets.free(unused);
        }
    }

    /// Brings time integrals up to `now` (before a snapshot or the final report).
    pub fn account(&mut self, now: Time) {
        if self.started {
            for (s, st) in self.senders.iter_mut().zip(&self.states) {
                s.account_cwnd(now, st.cwnd);
            }
        }
    }
}

#[cfg(test)]
mod ack_latency_tests {
    use super::*;

    #[test]
    fn draws_have_the_median_and_99th_percentile_asked_for_and_keep_order() {
        let config = TcpConfig { ack_latency_median: Time::from_us(50), ack_latency_p99: Time::from_us(1200), ..TcpConfig::default() };
        let mut latency = AckLatency::new(&config, sim_core::rng::stream(7, "test"), 2);
        // Each draw from its own subflow-free instant: one second apart, so none waits for
        // the one before.
        let mut waits: Vec<u64> = (0..100_000u64)
            .map(|i| {
                let now = Time::from_secs(i);
                (latency.due(0, now, true) - now).as_ps()
            })
            .collect();
        waits.sort_unstable();
        let quantile = |q: f64| Time(waits[(q * waits.len() as f64) as usize]).as_secs_f64() * 1e6;
        assert!((quantile(0.5) / 50.0 - 1.0).abs() < 0.03, "median {} µs", quantile(0.5));
        assert!((quantile(0.99) / 1200.0 - 1.0).abs() < 0.08, "99th percentile {} µs", quantile(0.99));
        assert!(*waits.last().unwrap() <= config.delayed_ack_timeout.as_ps(), "never past the delayed-ACK timer");

        // An ACK that does not wait still leaves after the one before it, on its subflow only.
        let now = Time::from_secs(200_000);
        let first = latency.due(1, now, true);
        assert!(first > now);
        assert_eq!(latency.due(1, now, false), first, "no overtaking");
        assert_eq!(latency.due(0, now, false), now, "another subflow's ACK leaves at once");
    }
}
