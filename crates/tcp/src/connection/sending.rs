//! What a connection does for its senders: it feeds each subflow's machine
//! ([`crate::sender`]) the ACKs and timer wake-ups, and carries out what the machine asks for
//! (handshake packets, retransmissions, the send loop, the timer), picking the subflow for new
//! data on a multipath connection.

use mptcp_cc::{CoupledController, SlowStartSample, SubflowState};
use rand::RngExt;
use sim_core::rng::Stream;
use sim_core::{Packet, PacketId, PacketKind, Time};

use crate::connection::{AtStop, Connection, Ctx};
use crate::event::Event;
use crate::receiver::Ack;
use crate::sender::{AckOutcome, SYN_SEQ, Send, TimerAction, TimerOutcome, Window};

/// One subflow's window as its sender sees it: the connection's law over all its subflows.
struct Law<'a> {
    cc: &'a mut dyn CoupledController,
    states: &'a mut [SubflowState],
    r: usize,
    /// The connection's settings (min_ssthresh, whole_ssthresh), by reference: a loss is
    /// rare, the window built on every ACK.
    settings: &'a crate::connection::ConnectionSettings,
    /// The time of the ACK or timer being handled (CUBIC's growth depends on it).
    now: Time,
    /// The stream that draws LIA's carried byte (htsim's), if the connection has one.
    carry: Option<&'a mut Stream>,
}

impl Window for Law<'_> {
    #[inline]
    fn cwnd(&self) -> f64 {
        self.states[self.r].cwnd
    }

    #[inline]
    fn ssthresh(&self) -> f64 {
        self.states[self.r].ssthresh
    }

    #[inline]
    fn set_cwnd(&mut self, cwnd: f64) {
        self.states[self.r].cwnd = cwnd;
    }

    #[inline]
    fn grow(&mut self, newly: u64) {
        let (cwnd, ssthresh) = (self.states[self.r].cwnd, self.states[self.r].ssthresh);
        // (`newly` is far below 2^63: converting through i64 is one instruction.)
        let growth = if cwnd < ssthresh {
            // Slow start with appropriate byte counting, L = 2 (RFC 3465).
            newly.min(2) as i64 as f64
        } else {
            self.cc.grow(self.states, self.r, newly, self.now.as_ps())
        };
        // Some laws (OLIA, RSF) may shrink the window; it never goes below one packet. A law
        // that answers NaN (parameters at the edge of their range) leaves it as it was.
        if self.settings.bytes_per_packet > 0.0 {
            let mss = self.settings.bytes_per_packet;
            self.states[self.r].cwnd = match self.carry.as_deref_mut() {
                None => whole_bytes_grown(cwnd, ssthresh, growth, mss),
                Some(rng) => whole_bytes_carried(cwnd, ssthresh, growth, mss, rng),
            };
        } else if !growth.is_nan() {
            self.states[self.r].cwnd = (cwnd + growth).max(1.0);
        }
    }

    fn reduce(&mut self) -> (f64, f64, Option<f64>) {
        let r = self.r;
        self.cc.on_loss(self.states, r);
        let decrease = self.cc.decrease(self.states, r);
        // Seed 000 §III-F: the throughput drop this loss costs the flow, relative to its rate.
        let rate: f64 = self.states.iter().map(|s| if s.srtt > 0.0 { s.cwnd / s.srtt } else { f64::NAN }).sum();
        let drop = (rate > 0.0).then(|| decrease / self.states[r].srtt / rate);
        let st = &mut self.states[r];
        let decreased = st.cwnd - decrease;
        let min = self.settings.min_ssthresh;
        let rounded = if self.settings.whole_ssthresh {
            decreased.floor()
        } else if self.settings.bytes_per_packet > 0.0 {
            whole_bytes_below(decreased, self.settings.bytes_per_packet)
        } else {
            decreased
        };
        st.ssthresh = rounded.max(min);
        st.record_loss();
        (st.ssthresh, decreased, drop)
    }

    fn set_inflated(&mut self, on: bool) {
        self.states[self.r].inflated = on;
    }

    #[inline]
    fn rtt_sampled(&mut self, srtt: f64, new_min: Option<f64>) {
        let st = &mut self.states[self.r];
        st.srtt = srtt;
        if let Some(m) = new_min {
            st.min_rtt = m;
        }
    }

    #[inline]
    fn slow_start_sample(&mut self, rtt: Time, snd_una: u64, snd_nxt: u64) {
        let st = &self.states[self.r];
        if st.cwnd < st.ssthresh {
            let sample = SlowStartSample { rtt: rtt.as_secs_f64(), now_ps: self.now.as_ps(), snd_una, snd_nxt };
            if self.cc.slow_start_sample(self.states, self.r, sample) {
                let st = &mut self.states[self.r];
                st.ssthresh = st.cwnd;
            }
        }
    }

    #[inline]
    fn acked(&mut self, newly: u64) {
        self.states[self.r].record_acked(newly);
    }
}

/// `packets` of `mss` bytes, in whole bytes rounded toward zero. The margin (far below one
/// byte in any window TCP can have) keeps a value that is a whole number of bytes, but carries
/// the rounding error of a division, from falling a byte short. (A conversion to an integer
/// truncates in one instruction; `f64::floor` is a call into libm without SSE4.1.)
#[inline]
fn whole_bytes(packets: f64, mss: f64) -> i64 {
    (packets * mss * (1.0 + 1e-12)) as i64
}

/// `packets` rounded down to a whole number of bytes, in packets.
fn whole_bytes_below(packets: f64, mss: f64) -> f64 {
    whole_bytes(packets, mss) as f64 / mss
}

/// A window of whole bytes after `growth` packets of it, as htsim grows `uint32_t _cwnd`:
/// slow start stops at ssthresh exactly, congestion avoidance adds the growth rounded down to
/// a byte (`⌊mss·newly/cwnd⌋` for Reno; a NaN adds nothing), and the window is snapped back to
/// whole bytes so rounding errors do not accumulate over millions of ACKs. Never below one
/// packet. Out of line: only the `htsim` profile has a byte window.
#[inline(never)]
fn whole_bytes_grown(cwnd: f64, ssthresh: f64, growth: f64, mss: f64) -> f64 {
    let growth = if cwnd < ssthresh { growth.min(ssthresh - cwnd) } else { growth };
    let window = (cwnd * mss + 0.5) as i64;
    ((window + whole_bytes(growth, mss)) as f64 / mss).max(1.0)
}

/// [`whole_bytes_grown`] as htsim's LIA grows its window (`MultipathTcpSrc::inflate_window`,
/// `COUPLED_INC`): a congestion-avoidance step gains one more byte with the probability of the
/// fraction it drops, drawn from `rng`, and is at most Reno's `⌊mss²/cwnd⌋` bytes (none when
/// that is zero). A function of its own, so that the byte windows without a carry pay nothing.
#[inline(never)]
fn whole_bytes_carried(cwnd: f64, ssthresh: f64, growth: f64, mss: f64, rng: &mut Stream) -> f64 {
    if cwnd < ssthresh {
        return whole_bytes_grown(cwnd, ssthresh, growth, mss);
    }
    let window = (cwnd * mss + 0.5) as i64;
    let mut step = whole_bytes(growth, mss);
    if rng.random::<f64>() < growth * mss - step as f64 {
        step += 1;
    }
    let mss_bytes = mss as i64;
    step = step.min(mss_bytes * mss_bytes / window.max(1));
    ((window + step) as f64 / mss).max(1.0)
}

/// Runs `$body` with `$s` the sender of subflow `$r` and `$w` its window, at time `$now`.
macro_rules! with_sender {
    ($conn:expr, $r:expr, $now:expr, |$s:ident, $w:ident| $body:expr) => {{
        let c = &mut *$conn;
        let $s = &mut c.senders[$r];
        let carry = c.byte_carry.as_deref_mut();
        let mut law = Law { cc: c.cc.as_mut(), states: &mut c.states, r: $r, settings: &c.config, now: $now, carry };
        let $w = &mut law;
        $body
    }};
}

impl Connection {
    /// Starts the connection: its first subflow's SYN (every subflow's with
    /// `subflows_at_once`), or (without a handshake) data on every subflow.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.started = true;
        let now = ctx.events.now();
        for s in &mut self.senders {
            s.start_cwnd_clock(now);
        }
        if self.config.handshake {
            let opening = if self.config.subflows_at_once { self.senders.len() } else { 1 };
            for r in 0..opening {
                self.send_syn(r, ctx);
            }
        } else {
            self.schedule(ctx);
        }
    }

    /// Stops offering new data; what was sent is still recovered.
    pub fn stop(&mut self) {
        self.at_stop = Some(Box::new(AtStop {
            delivered: self.delivered(),
            held: self.held().cloned(),
            subflows: self.receivers.iter().map(|r| (r.delivered(), r.held().clone())).collect(),
        }));
        self.data.limit = self.data.limit.min(self.data.next);
        if let Some(m) = &mut self.data.multipath {
            m.reinject.clear();
        }
    }

    fn send_syn(&mut self, r: usize, ctx: &mut Ctx) {
        let size = if self.config.syn_size > 0 { self.config.syn_size } else { ctx.ack_size };
        let mut p = Packet::new(PacketKind::Handshake, size, 0);
        p.seq = SYN_SEQ;
        p.timestamp = ctx.events.now();
        self.send_on(r, p, None, ctx);
        let wake = self.senders[r].arm_syn_timer(ctx.events.now());
        self.wake_at(r, wake, ctx);
    }

    /// Sends `packet` on subflow `r`'s route, after the send jitter if there is one, in slot
    /// `slot` if given (a packet of this connection's it is done with) or a new one.
    #[inline(always)]
    fn send_on(&mut self, r: usize, mut packet: Packet, slot: Option<PacketId>, ctx: &mut Ctx) {
        if let Some(jitter) = &mut self.jitter {
            // In order: never before the packet sent before it on this subflow.
            let due = ctx.events.now() + Time(jitter.rng.random_range(0..=jitter.amplitude.as_ps()));
            let last = &mut jitter.last_due[r];
            *last = due.max(*last);
            packet.due = *last;
        }
        let delivered = ctx.net.send_packet(packet, slot, self.senders[r].route(), &mut ctx.events);
        debug_assert!(delivered.is_none(), "every route crosses at least one link");
    }

    /// Sends subflow `r`'s segment `seq`, carrying data segment `data_seq` (already recorded
    /// by the sender).
    #[inline(always)]
    fn transmit(&mut self, r: usize, seq: u64, data_seq: u64, retransmitted: bool, ctx: &mut Ctx) {
        let size = self.segment_size(data_seq, ctx.mss);
        let mut p = Packet::new(PacketKind::Data, size, 0);
        p.seq = seq;
        p.data_seq = data_seq;
        p.timestamp = ctx.events.now();
        p.retransmitted = retransmitted;
        self.send_on(r, p, ctx.spare.take(), ctx);
        if !self.senders[r].timer_armed() {
            self.arm_timer(r, ctx);
        }
    }

    /// Resends subflow `r`'s segment `seq`.
    #[inline]
    fn retransmit(&mut self, r: usize, seq: u64, ctx: &mut Ctx) {
        let s = &mut self.senders[r];
        let data_seq = s.data_seq(seq);
        let restart = s.resend_restarts_timer(seq);
        s.on_sent(seq, ctx.events.now());
        self.transmit(r, seq, data_seq, true, ctx);
        if restart {
            self.arm_timer(r, ctx);
        }
    }

    #[inline(always)]
    fn arm_timer(&mut self, r: usize, ctx: &mut Ctx) {
        let wake = self.senders[r].arm_timer(ctx.events.now());
        self.wake_at(r, wake, ctx);
    }

    /// Schedules the wake-up of subflow `r`'s timer its sender asked for, if any.
    #[inline(always)]
    fn wake_at(&self, r: usize, at: Option<Time>, ctx: &mut Ctx) {
        if let Some(at) = at {
            let global = self.first_subflow + r as u32;
            if self.senders[r].is_scan(at, ctx.events.now()) {
                ctx.scans.add(at, global, &mut ctx.events);
            } else {
                ctx.events.schedule_timer(at, Event::Retransmit(global));
            }
        }
    }

    /// Packets subflow `r` may have in flight: its window, and never less than one (a
    /// threshold below one packet, possible through the library API, must not stall it).
    #[inline]
    fn window(&self, r: usize) -> u64 {
        // Through i64, one instruction cheaper than a saturating conversion to u64. At most
        // TCP's largest window (RFC 7323: 2^30 bytes): a law gone to infinity must not send
        // without end in one event.
        (self.states[r].cwnd as i64).clamp(1, self.max_window as i64) as u64
    }

    /// Subflow `r` sends the next new segment, if there is data for it.
    #[inline(always)]
    fn send_new(&mut self, r: usize, ctx: &mut Ctx) -> bool {
        let Some(data_seq) = self.data.take() else { return false };
        let s = &mut self.senders[r];
        let seq = s.snd_max();
        s.on_sent_new(data_seq, ctx.events.now());
        self.transmit(r, seq, data_seq, false, ctx);
        true
    }

    /// Resends, within its window, what subflow `r` has to resend (a go-back-N, or lost
    /// segments on its scoreboard).
    #[inline(always)]
    fn resend(&mut self, r: usize, ctx: &mut Ctx) {
        if !self.senders[r].has_resend() {
            return;
        }
        loop {
            let window = self.window(r);
            let Some(Send::Retransmit(seq)) = self.senders[r].next_send(window) else { break };
            self.retransmit(r, seq, ctx);
        }
    }

    /// Fills window space with new data: subflow `r` alone on a single-path connection; on a
    /// multipath one, always the subflow with the lowest smoothed RTT among those with space.
    #[inline(always)]
    fn schedule(&mut self, ctx: &mut Ctx) {
        if !self.started {
            return;
        }
        if !self.multipath() {
            let window = self.window(0);
            while self.senders[0].room_for_new(window) {
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
            let mut best: Option<usize> = None;
            for r in 0..self.senders.len() {
                let window = self.window(r);
                if self.senders[r].room_for_new(window) && best.is_none_or(|b| self.states[r].srtt.total_cmp(&self.states[b].srtt).is_lt())
                {
                    best = Some(r);
                }
            }
            match best {
                Some(r) if self.send_new(r, ctx) => {}
                _ => break,
            }
        }
    }

    /// On a multipath connection, queues subflow `r`'s outstanding data to be sent again on
    /// the others (its path may be down).
    fn reinject_outstanding(&mut self, r: usize) {
        let Some(map) = self.senders[r].data_seqs() else { return };
        let acked = self.data.acked;
        let m = self.data.multipath.get_or_insert_default();
        m.reinject.forget_below(acked);
        for d in map.iter().filter(|&d| d >= acked) {
            m.reinject.insert(d);
        }
    }

    /// Acknowledgement `ack` arrived on subflow `r`, carrying the data-level acknowledgement
    /// `data_ack`.
    #[inline(always)]
    pub fn on_ack(&mut self, r: usize, ack: Ack, data_ack: u64, ctx: &mut Ctx) {
        let window_opened = data_ack > self.data.acked;
        self.data.acked = self.data.acked.max(data_ack);
        let now = ctx.events.now();
        let timer = match with_sender!(self, r, now, |s, w| s.on_ack(&ack, now, w)) {
            AckOutcome::Send(timer) => timer,
            AckOutcome::Retransmit(seq, timer) => {
                self.retransmit(r, seq, ctx);
                timer
            }
            AckOutcome::RetransmitAlone(seq) => {
                self.retransmit(r, seq, ctx);
                return;
            }
            AckOutcome::Established => {
                if r == 0 && !self.config.subflows_at_once {
                    // MPTCP: the other subflows join once the first is established.
                    for other in 1..self.senders.len() {
                        self.send_syn(other, ctx);
                    }
                }
                TimerAction::Keep
            }
            AckOutcome::Nothing => {
                if window_opened {
                    self.schedule(ctx);
                }
                return;
            }
        };
        match timer {
            TimerAction::Keep => {}
            TimerAction::Restart => self.arm_timer(r, ctx),
            TimerAction::Stop => self.senders[r].stop_timer(),
            TimerAction::Wake => {
                let wake = self.senders[r].wake(now);
                self.wake_at(r, wake, ctx);
            }
        }
        self.resend(r, ctx);
        self.schedule(ctx);
    }

    /// The timer of subflow `r` woke up.
    pub fn on_timer(&mut self, r: usize, ctx: &mut Ctx) {
        let now = ctx.events.now();
        match with_sender!(self, r, now, |s, w| s.on_timer(now, w)) {
            TimerOutcome::Nothing => {}
            TimerOutcome::Again(at) => self.wake_at(r, Some(at), ctx),
            TimerOutcome::ResendSyn => self.send_syn(r, ctx),
            TimerOutcome::Timeout => {
                self.reinject_outstanding(r);
                self.resend(r, ctx);
                self.schedule(ctx);
                // A coarse timer's scan already set the next deadline: wake for it.
                let wake = self.senders[r].wake(now);
                self.wake_at(r, wake, ctx);
            }
            TimerOutcome::Reordered => {
                self.resend(r, ctx);
                self.schedule(ctx);
                self.arm_timer(r, ctx);
            }
            TimerOutcome::Probe => {
                // RFC 8985 §7.3: new data if the window allows, else the last segment again.
                let s = &self.senders[r];
                let new_allowed = s.pipe() < self.window(r) || s.snd_max() == s.snd_una();
                let resent = !(new_allowed && self.send_new(r, ctx));
                if resent {
                    let last = self.senders[r].snd_max() - 1;
                    self.retransmit(r, last, ctx);
                }
                let wake = self.senders[r].probe_sent(resent, now);
                self.wake_at(r, wake, ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{whole_bytes_below, whole_bytes_carried, whole_bytes_grown};

    /// htsim's `TcpSrc` in its own integers (`uint32_t _cwnd`, `_ssthresh`): slow start adds
    /// `min(ssthresh - cwnd, mss)`, congestion avoidance `mss * mss / cwnd`, a loss sets
    /// `ssthresh = max(cwnd / 2, 2 mss)`, a timeout `cwnd = mss`. The byte window, in packets of
    /// `f64`, must give the very same bytes after every step, for hundreds of thousands of steps.
    #[test]
    fn a_byte_window_follows_htsims_integer_arithmetic_step_for_step() {
        for mss in [1500u64, 1000, 9000, 536] {
            let m = mss as f64;
            let (mut cwnd, mut ssthresh) = (10 * mss, 100 * mss);
            let (mut w, mut t) = (10.0, 100.0);
            for step in 0..300_000u64 {
                if step % 7919 == 7918 {
                    // A loss, then the window at ssthresh (fast recovery's exit).
                    ssthresh = (cwnd / 2).max(2 * mss);
                    cwnd = ssthresh;
                    t = whole_bytes_below(w - w / 2.0, m).max(2.0);
                    w = t;
                } else if step % 50_021 == 50_020 {
                    // A timeout: one packet, ssthresh from the window.
                    ssthresh = (cwnd / 2).max(2 * mss);
                    cwnd = mss;
                    t = whole_bytes_below(w - w / 2.0, m).max(2.0);
                    w = 1.0;
                } else if cwnd < ssthresh {
                    cwnd += (ssthresh - cwnd).min(mss);
                    w = whole_bytes_grown(w, t, 1.0, m);
                } else {
                    cwnd += mss * mss / cwnd;
                    w = whole_bytes_grown(w, t, 1.0 / w, m);
                }
                assert_eq!((w * m).round() as u64, cwnd, "mss {mss}, step {step}: window");
                assert!((w * m - cwnd as f64).abs() < 1e-6, "mss {mss}, step {step}: {w} packets is not whole bytes");
                assert_eq!((t * m).round() as u64, ssthresh, "mss {mss}, step {step}: ssthresh");
            }
        }
    }

    #[test]
    fn whole_bytes_keep_exact_values_and_round_the_rest_down() {
        assert_eq!(whole_bytes_below(0.1 * 3.0, 1500.0) * 1500.0, 450.0);
        assert_eq!(whole_bytes_below(10.0 / 3.0, 1500.0) * 1500.0, 5000.0);
        assert_eq!((whole_bytes_below(1.0 / 1501.0, 1500.0) * 1500.0).round(), 0.0);
        assert_eq!((whole_bytes_below(15_001.0 / 1500.0 / 2.0, 1500.0) * 1500.0).round(), 7500.0);
        // A law that shrinks the window loses whole bytes, rounded toward zero.
        assert_eq!((whole_bytes_grown(10.0, 5.0, -0.0015, 1500.0) * 1500.0).round(), 14_998.0);
    }

    /// Bytes a window of `bytes` gains over `acks` congestion-avoidance steps of `step` bytes
    /// each (a fixed step, as a law with a large total window gives), carried at random or not.
    fn gained(bytes: f64, step: f64, acks: u32, carry: bool) -> f64 {
        let mss = 1500.0;
        let mut rng = sim_core::rng::stream(3, "carry");
        let mut w = bytes / mss;
        for _ in 0..acks {
            w = if carry { whole_bytes_carried(w, 2.0, step / mss, mss, &mut rng) } else { whole_bytes_grown(w, 2.0, step / mss, mss) };
        }
        (w * mss).round() - bytes
    }

    #[test]
    fn a_step_below_a_byte_grows_the_window_only_when_carried() {
        // 0.3 bytes per ACK: htsim's LIA carries a byte 30 % of the time.
        let carried = gained(90_000.0, 0.3, 10_000, true);
        // Binomial(10 000, 0.3): mean 3 000, standard deviation 46.
        assert!((carried - 3000.0).abs() < 250.0, "{carried}");
        assert_eq!(gained(90_000.0, 0.3, 10_000, false), 0.0);
        // 2.75 bytes a step: 2 each, and a third 75 % of the time.
        let carried = gained(90_000.0, 2.75, 1000, true);
        assert!((carried - 2750.0).abs() < 60.0, "{carried}");
        assert_eq!(gained(90_000.0, 2.75, 1000, false), 2000.0);
    }

    #[test]
    fn a_carried_step_is_at_most_renos_whole_bytes() {
        // Reno's step at 1 500 000 bytes is ⌊1500²/1 500 000⌋ = 1 byte, at 3 000 000 none:
        // a carried step stops there however large the law's own.
        assert_eq!(gained(1_500_000.0, 1.9, 100, true), 100.0);
        assert_eq!(gained(3_000_000.0, 0.9, 100, true), 0.0);
        // Slow start is not carried: it stops at ssthresh exactly.
        let mut rng = sim_core::rng::stream(3, "carry");
        assert_eq!(whole_bytes_carried(1.5, 2.0, 1.0, 1500.0, &mut rng), 2.0);
    }
}
