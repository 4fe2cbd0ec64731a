//! A connection: one or more subflows, their shared window law, the data-level sequence, the
//! packet scheduler and the receivers.
//!
//! Single-path TCP is a connection with one subflow and the `reno` controller, so every window
//! decision goes through the same [`CoupledController`] seam as multipath. The NewReno machine
//! that drives each subflow is in [`crate::newreno`].
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

use std::collections::VecDeque;

use mptcp_cc::{CoupledController, SubflowState};
use sim_core::{EventList, Network, Packet, PacketId, PacketKind, Time};

use crate::config::TcpConfig;
use crate::event::Event;
use crate::receiver::{Ack, AckAction, Receiver};
use crate::sender::SubflowSender;
use crate::seqset::SeqSet;

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
    /// A packet slot the next transmission may reuse (the ACK being processed), saving a
    /// free and an allocation per packet; the caller frees it if it is still here afterwards.
    pub spare: Option<PacketId>,
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
    /// Data segments to send again on another subflow.
    pub reinject: VecDeque<u64>,
    /// Receiver: data segments delivered in order.
    pub delivered: u64,
    /// Receiver: data segments held out of order.
    pub out_of_order: SeqSet,
}

impl DataLevel {
    /// The next data segment to put on a subflow, if flow control and the data allow one.
    #[inline]
    fn take(&mut self) -> Option<u64> {
        if !self.reinject.is_empty() {
            while let Some(d) = self.reinject.pop_front() {
                if d >= self.acked {
                    return Some(d);
                }
            }
        }
        (self.next < self.limit && self.next - self.acked < self.buffer).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// The receiver got data segment `d`.
    fn receive(&mut self, d: u64) {
        if d == self.delivered {
            self.delivered = self.out_of_order.advance(d + 1);
        } else if d > self.delivered {
            self.out_of_order.insert(d);
        }
    }
}

/// One transport connection and its subflows.
#[derive(Debug)]
pub struct Connection {
    /// The flow's name.
    pub name: String,
    /// Its window law.
    pub cc: Box<dyn CoupledController>,
    /// Window-law state per subflow.
    pub states: Vec<SubflowState>,
    /// Sender per subflow.
    pub senders: Vec<SubflowSender>,
    /// Receiver per subflow.
    pub receivers: Vec<Receiver>,
    /// The data sequence.
    pub data: DataLevel,
    /// Transport settings.
    pub config: TcpConfig,
    /// Bytes to transfer (`None`: bulk, unlimited).
    pub size: Option<u64>,
    /// Index of this connection's first subflow in the simulation's subflow table.
    pub first_subflow: u32,
    /// When it starts sending.
    pub start: Time,
    /// When it stops offering new data, if ever.
    pub stop: Option<Time>,
    /// Whether it has started.
    pub started: bool,
    /// When the receiver got the last byte of a finite transfer.
    pub completed_at: Option<Time>,
}

impl Connection {
    /// Segments of a finite transfer of `size` bytes (`u64::MAX` for bulk).
    pub fn segments_for(size: Option<u64>, mss: u32) -> u64 {
        size.map_or(u64::MAX, |b| b.div_ceil(mss as u64).max(1))
    }

    /// Bytes carried by the first `segments` data segments.
    pub fn bytes_in(&self, segments: u64, mss: u32) -> u64 {
        let full = segments.saturating_mul(mss as u64);
        self.size.map_or(full, |b| full.min(b))
    }

    fn segment_size(&self, data_seq: u64, mss: u32) -> u32 {
        match self.size {
            Some(b) => (b - data_seq * mss as u64).min(mss as u64).max(1) as u32,
            None => mss,
        }
    }

    fn multipath(&self) -> bool {
        self.senders.len() > 1
    }

    /// Data segments the receiver has delivered in order.
    #[inline]
    pub fn delivered(&self) -> u64 {
        if self.multipath() { self.data.delivered } else { self.receivers[0].delivered() }
    }

    pub(crate) fn account_cwnd(&mut self, r: usize, now: Time) {
        let s = &mut self.senders[r];
        s.counters.cwnd_seconds += self.states[r].cwnd * (now - s.cwnd_since).as_secs_f64();
        s.cwnd_since = now;
    }

    /// Starts sending on every subflow.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.started = true;
        let now = ctx.events.now();
        for s in &mut self.senders {
            s.cwnd_since = now;
        }
        self.schedule(ctx);
    }

    /// Stops offering new data; what was sent is still recovered.
    pub fn stop(&mut self) {
        self.data.limit = self.data.limit.min(self.data.next);
        self.data.reinject.clear();
    }

    /// Sends subflow `r`'s segment `seq`, carrying data segment `data_seq`.
    #[inline(always)]
    pub(crate) fn transmit(&mut self, r: usize, seq: u64, data_seq: u64, ctx: &mut Ctx) {
        let size = self.segment_size(data_seq, ctx.mss);
        let s = &mut self.senders[r];
        let mut p = Packet::new(PacketKind::Data, size, 0);
        p.seq = seq;
        p.data_seq = data_seq;
        p.timestamp = ctx.events.now();
        p.retransmitted = seq < s.snd_max;
        s.counters.sent += 1;
        s.counters.retransmitted += p.retransmitted as u64;
        let id = match ctx.spare.take() {
            Some(id) => {
                ctx.net.packets[id] = p;
                id
            }
            None => ctx.net.packets.alloc(p),
        };
        let delivered = ctx.net.send(id, s.route, &mut ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one link");
    }

    #[inline(always)]
    pub(crate) fn arm_timer(&mut self, r: usize, ctx: &mut Ctx) {
        if let Some(at) = self.senders[r].arm_timer(ctx.events.now()) {
            ctx.events.schedule_timer(at, Event::Retransmit(self.first_subflow + r as u32));
        }
    }

    /// Packets subflow `r` may have in flight: its window, and never less than one (a
    /// threshold below one packet, possible through the library API, must not stall it).
    #[inline]
    fn window(&self, r: usize) -> u64 {
        // Through i64, one instruction cheaper than a saturating conversion to u64.
        (self.states[r].cwnd as i64).max(1) as u64
    }

    /// Whether subflow `r` may send a new segment now.
    #[inline]
    fn has_space(&self, r: usize) -> bool {
        let s = &self.senders[r];
        s.snd_nxt == s.snd_max && s.in_flight() < self.window(r)
    }

    /// Subflow `r` sends the next new segment, if there is data for it.
    #[inline(always)]
    fn send_new(&mut self, r: usize, ctx: &mut Ctx) -> bool {
        let Some(data_seq) = self.data.take() else { return false };
        let s = &mut self.senders[r];
        let seq = s.snd_nxt;
        if let Some(map) = &mut s.data_seqs {
            map.push_back(data_seq);
        }
        self.transmit(r, seq, data_seq, ctx);
        let s = &mut self.senders[r];
        s.snd_nxt += 1;
        s.snd_max = s.snd_nxt;
        if s.rto_deadline == Time::NEVER {
            self.arm_timer(r, ctx);
        }
        true
    }

    /// Resends, within its window, what subflow `r` had sent beyond `snd_nxt` before a timeout
    /// took it back (go-back-N), if anything.
    #[inline(always)]
    pub(crate) fn resend(&mut self, r: usize, ctx: &mut Ctx) {
        if self.senders[r].snd_nxt < self.senders[r].snd_max {
            self.go_back_n(r, ctx);
        }
    }

    #[cold]
    fn go_back_n(&mut self, r: usize, ctx: &mut Ctx) {
        let window = self.window(r);
        while self.senders[r].snd_nxt < self.senders[r].snd_max && self.senders[r].in_flight() < window {
            let s = &self.senders[r];
            let (seq, data_seq) = (s.snd_nxt, s.data_seq(s.snd_nxt));
            self.transmit(r, seq, data_seq, ctx);
            self.senders[r].snd_nxt += 1;
        }
        if self.senders[r].rto_deadline == Time::NEVER && self.senders[r].outstanding() {
            self.arm_timer(r, ctx);
        }
    }

    /// Fills window space with new data: subflow `r` alone on a single-path connection; on a
    /// multipath one, always the subflow with the lowest smoothed RTT among those with space.
    #[inline]
    pub(crate) fn schedule(&mut self, ctx: &mut Ctx) {
        if !self.started {
            return;
        }
        if !self.multipath() {
            let window = self.window(0);
            while self.senders[0].snd_nxt == self.senders[0].snd_max && self.senders[0].in_flight() < window {
                if !self.send_new(0, ctx) {
                    break;
                }
            }
            return;
        }
        self.schedule_multipath(ctx);
    }

    fn schedule_multipath(&mut self, ctx: &mut Ctx) {
        loop {
            let best =
                (0..self.senders.len()).filter(|&r| self.has_space(r)).min_by(|&a, &b| self.states[a].srtt.total_cmp(&self.states[b].srtt));
            match best {
                Some(r) if self.send_new(r, ctx) => {}
                _ => break,
            }
        }
    }

    /// On a multipath connection, queues subflow `r`'s outstanding data to be sent again on
    /// the others (its path may be down).
    pub(crate) fn reinject_outstanding(&mut self, r: usize) {
        let Some(map) = &self.senders[r].data_seqs else { return };
        let acked = self.data.acked;
        let fresh: Vec<u64> = map.iter().copied().filter(|&d| d >= acked && !self.data.reinject.contains(&d)).collect();
        self.data.reinject.extend(fresh);
    }

    /// Data packet `id` reached subflow `r`'s receiver; turns it into the ACK (or frees it).
    pub fn on_data(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        let p = &ctx.net.packets[id];
        let action = self.receivers[r].on_data(p.seq, p.timestamp, p.retransmitted);
        if self.multipath() {
            self.data.receive(p.data_seq);
        }
        let delivered = self.delivered();
        if self.completed_at.is_none() && self.size.is_some() && delivered >= Self::segments_for(self.size, ctx.mss) {
            self.completed_at = Some(ctx.events.now());
        }
        match action {
            AckAction::Send(ack) => self.send_ack(r, id, ack, delivered, ctx),
            AckAction::Delay { arm } => {
                ctx.net.packets.free(id);
                if arm {
                    let at = ctx.events.now() + self.config.delayed_ack_timeout;
                    self.receivers[r].delack_at = at;
                    ctx.events.schedule_timer(at, Event::DelayedAck(self.first_subflow + r as u32));
                }
            }
        }
    }

    /// The delayed-ACK timer of subflow `r`'s receiver fired.
    pub fn on_delack_timer(&mut self, r: usize, ctx: &mut Ctx) {
        if let Some(ack) = self.receivers[r].on_delack_timer(ctx.events.now()) {
            let id = ctx.net.packets.alloc(Packet::new(PacketKind::Ack, ctx.ack_size, 0));
            self.send_ack(r, id, ack, self.delivered(), ctx);
        }
    }

    /// Rewrites packet `id` as acknowledgement `ack` with the data-level acknowledgement
    /// `data_ack`, and sends it back.
    #[inline(always)]
    fn send_ack(&mut self, r: usize, id: PacketId, ack: Ack, data_ack: u64, ctx: &mut Ctx) {
        let p = &mut ctx.net.packets[id];
        p.kind = PacketKind::Ack;
        p.size = ctx.ack_size;
        p.seq = ack.next;
        p.data_seq = data_ack;
        p.timestamp = ack.echo;
        p.retransmitted = ack.echo_retransmitted;
        let delivered = ctx.net.send(id, self.senders[r].ack_route, &mut ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one pipe");
    }

    /// Brings time integrals up to `now` (before a snapshot or the final report).
    pub fn account(&mut self, now: Time) {
        if self.started {
            for r in 0..self.senders.len() {
                self.account_cwnd(r, now);
            }
        }
    }
}
