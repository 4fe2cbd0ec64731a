//! A connection: one or more subflows, their shared window law, and their receivers.
//!
//! Single-path TCP is a connection with one subflow and the `reno` controller, so every window
//! decision goes through the same [`CoupledController`] seam as multipath.

use mptcp_cc::{CoupledController, SubflowState};
use sim_core::{EventList, Network, Packet, PacketId, PacketKind, Time};

use crate::config::TcpConfig;
use crate::event::Event;
use crate::receiver::{Ack, AckAction, Receiver};
use crate::sender::SubflowSender;

/// The parts of the simulation a connection acts on.
pub struct Ctx<'a> {
    /// The network packets are sent into.
    pub net: &'a mut Network,
    /// The event list, for timers.
    pub events: &'a mut EventList<Event>,
    /// Data packet size, bytes.
    pub mss: u32,
    /// Acknowledgement size, bytes.
    pub ack_size: u32,
    /// A packet slot the next transmission may reuse (the ACK being processed), saving a
    /// free and an allocation per packet; the caller frees it if it is still here afterwards.
    pub spare: Option<PacketId>,
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
    /// Segments of a finite transfer (`u64::MAX` for bulk).
    pub fn total_segments(&self, mss: u32) -> u64 {
        self.size.map_or(u64::MAX, |b| b.div_ceil(mss as u64).max(1))
    }

    /// Bytes carried by the first `segments` segments.
    pub fn bytes_in(&self, segments: u64, mss: u32) -> u64 {
        let full = segments.saturating_mul(mss as u64);
        self.size.map_or(full, |b| full.min(b))
    }

    fn segment_size(&self, seq: u64, mss: u32) -> u32 {
        match self.size {
            Some(b) => (b - seq * mss as u64).min(mss as u64).max(1) as u32,
            None => mss,
        }
    }

    fn account_cwnd(&mut self, r: usize, now: Time) {
        let s = &mut self.senders[r];
        s.counters.cwnd_seconds += self.states[r].cwnd * (now - s.cwnd_since).as_secs_f64();
        s.cwnd_since = now;
    }

    /// Starts sending on every subflow.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.started = true;
        let now = ctx.events.now();
        for r in 0..self.senders.len() {
            self.senders[r].cwnd_since = now;
            self.send_more(r, ctx);
        }
    }

    /// Stops offering new data; what was sent is still recovered.
    pub fn stop(&mut self) {
        for s in &mut self.senders {
            s.limit = s.limit.min(s.snd_max);
        }
    }

    fn transmit(&mut self, r: usize, seq: u64, ctx: &mut Ctx) {
        let size = self.segment_size(seq, ctx.mss);
        let s = &mut self.senders[r];
        let mut p = Packet::new(PacketKind::Data, size, 0);
        p.seq = seq;
        p.data_seq = seq;
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
        let delivered = ctx.net.send(id, s.route, ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one link");
    }

    fn arm_timer(&mut self, r: usize, ctx: &mut Ctx) {
        if let Some(at) = self.senders[r].arm_timer(ctx.events.now()) {
            ctx.events.schedule_timer(at, Event::Retransmit(self.first_subflow + r as u32));
        }
    }

    /// Sends new (or, after a timeout, resent) segments while the window allows.
    fn send_more(&mut self, r: usize, ctx: &mut Ctx) {
        let window = self.states[r].cwnd.max(1.0) as u64;
        let mut sent_any = false;
        loop {
            let s = &mut self.senders[r];
            if s.snd_nxt >= s.limit || s.in_flight() >= window {
                break;
            }
            let seq = s.snd_nxt;
            self.transmit(r, seq, ctx);
            let s = &mut self.senders[r];
            s.snd_nxt += 1;
            s.snd_max = s.snd_max.max(s.snd_nxt);
            sent_any = true;
        }
        if sent_any && self.senders[r].rto_deadline == Time::NEVER {
            self.arm_timer(r, ctx);
        }
    }

    /// A loss event on subflow `r`: the controller's decrease sets the new ssthresh.
    fn reduce(&mut self, r: usize) -> f64 {
        self.cc.on_loss(&self.states, r);
        let decrease = self.cc.decrease(&self.states, r);
        let st = &mut self.states[r];
        st.ssthresh = (st.cwnd - decrease).max(self.config.min_ssthresh);
        st.loss_events += 1;
        st.ssthresh
    }

    /// Handles acknowledgement `ack` arriving on subflow `r`.
    pub fn on_ack(&mut self, r: usize, ack: Ack, ctx: &mut Ctx) {
        let now = ctx.events.now();
        let s = &mut self.senders[r];
        if ack.next > s.snd_una {
            let newly = ack.next - s.snd_una;
            if !ack.echo_retransmitted {
                s.rtt.sample(now - ack.echo);
                let st = &mut self.states[r];
                st.srtt = s.rtt.srtt().expect("sampled").as_secs_f64();
                st.min_rtt = s.rtt.min_rtt().expect("sampled").as_secs_f64();
                s.counters.srtt_sum += st.srtt;
                s.counters.rtt_samples += 1;
            }
            s.snd_una = ack.next;
            s.snd_nxt = s.snd_nxt.max(s.snd_una);
            s.counters.acked += newly;
            self.states[r].acked += newly;
            self.account_cwnd(r, now);
            let s = &mut self.senders[r];
            if self.states[r].in_recovery {
                if s.recover.is_some_and(|rec| ack.next > rec) {
                    // RFC 6582 step 3, full ACK: deflate to ssthresh and leave recovery.
                    let st = &mut self.states[r];
                    st.in_recovery = false;
                    st.cwnd = st.ssthresh;
                    s.dupacks = 0;
                } else {
                    // Partial ACK: retransmit the next hole, deflate by what was acked, add
                    // back one segment, and re-arm the timer on the first partial ACK only.
                    let st = &mut self.states[r];
                    st.cwnd = (st.cwnd - newly as f64 + 1.0).max(1.0);
                    let first = !s.partial_seen;
                    s.partial_seen = true;
                    let hole = s.snd_una;
                    self.transmit(r, hole, ctx);
                    if first {
                        self.arm_timer(r, ctx);
                    }
                    self.send_more(r, ctx);
                    return;
                }
            } else {
                s.dupacks = 0;
                let st = &self.states[r];
                let growth = if st.cwnd < st.ssthresh {
                    // Slow start with appropriate byte counting, L = 2 (RFC 3465).
                    newly.min(2) as f64
                } else {
                    newly as f64 * self.cc.increase(&self.states, r)
                };
                self.states[r].cwnd += growth;
            }
            self.cc.on_ack(&self.states, r, newly);
            if self.senders[r].outstanding() {
                self.arm_timer(r, ctx);
            } else {
                self.senders[r].stop_timer();
            }
            self.send_more(r, ctx);
        } else if ack.next == s.snd_una && s.outstanding() {
            s.dupacks += 1;
            if self.states[r].in_recovery {
                // RFC 6582 step 4: inflate by one segment per further duplicate.
                self.account_cwnd(r, now);
                self.states[r].cwnd += 1.0;
                self.send_more(r, ctx);
            } else if s.dupacks == 3 && s.may_enter_recovery(ack.next) {
                // RFC 6582 step 2: fast retransmit, then fast recovery.
                s.recover = Some(s.snd_max - 1);
                s.partial_seen = false;
                s.counters.fast_retransmits += 1;
                self.account_cwnd(r, now);
                let ssthresh = self.reduce(r);
                let st = &mut self.states[r];
                st.in_recovery = true;
                st.cwnd = ssthresh + 3.0;
                let hole = self.senders[r].snd_una;
                self.transmit(r, hole, ctx);
                self.send_more(r, ctx);
            }
        }
    }

    /// The retransmission timer of subflow `r` woke up at `now`.
    pub fn on_timer(&mut self, r: usize, ctx: &mut Ctx) {
        let now = ctx.events.now();
        let s = &mut self.senders[r];
        if now != s.rto_event {
            return; // superseded by an earlier re-arm
        }
        s.rto_event = Time::NEVER;
        if s.rto_deadline == Time::NEVER {
            return;
        }
        if s.rto_deadline > now {
            s.rto_event = s.rto_deadline;
            ctx.events.schedule_timer(s.rto_deadline, Event::Retransmit(self.first_subflow + r as u32));
            return;
        }
        if !s.outstanding() {
            s.stop_timer();
            return;
        }
        // RFC 6298 (5.5)-(5.7) and RFC 5681 (4): back off, collapse the window, go back N.
        s.counters.timeouts += 1;
        s.rtt.back_off();
        s.recover = Some(s.snd_max - 1);
        s.dupacks = 0;
        s.snd_nxt = s.snd_una;
        s.stop_timer();
        self.account_cwnd(r, now);
        if self.states[r].in_recovery {
            self.states[r].cwnd = self.states[r].ssthresh;
            self.states[r].in_recovery = false;
        }
        self.reduce(r);
        self.states[r].cwnd = 1.0;
        self.send_more(r, ctx);
    }

    /// Data packet `id` reached subflow `r`'s receiver; turns it into the ACK (or frees it).
    pub fn on_data(&mut self, r: usize, id: PacketId, ctx: &mut Ctx) {
        let p = ctx.net.packets[id];
        let action = self.receivers[r].on_data(p.seq, p.timestamp, p.retransmitted);
        if self.completed_at.is_none() && self.receivers[r].delivered() >= self.total_segments(ctx.mss) {
            self.completed_at = Some(ctx.events.now());
        }
        match action {
            AckAction::Send(ack) => self.send_ack(r, id, ack, ctx),
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
            self.send_ack(r, id, ack, ctx);
        }
    }

    /// Rewrites packet `id` as acknowledgement `ack` and sends it back.
    fn send_ack(&mut self, r: usize, id: PacketId, ack: Ack, ctx: &mut Ctx) {
        let p = &mut ctx.net.packets[id];
        p.kind = PacketKind::Ack;
        p.size = ctx.ack_size;
        p.seq = ack.next;
        p.timestamp = ack.echo;
        p.retransmitted = ack.echo_retransmitted;
        let delivered = ctx.net.send(id, self.senders[r].ack_route, ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one pipe");
    }

    /// Brings time integrals up to `now` (before a snapshot or the final report).
    pub fn account(&mut self, now: Time) {
        for r in 0..self.senders.len() {
            if self.started {
                self.account_cwnd(r, now);
            }
        }
    }
}
