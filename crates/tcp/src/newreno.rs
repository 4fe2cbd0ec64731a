//! The NewReno machine of each subflow (RFC 5681, RFC 6582, RFC 6298): acknowledgements,
//! duplicate acknowledgements, fast recovery, and the retransmission timeout. Every window
//! change comes from the connection's window law.

use sim_core::Time;

use crate::config::Recovery;
use crate::connection::{Connection, Ctx};
use crate::event::Event;
use crate::receiver::Ack;
use crate::sender::PrrState;

impl Connection {
    /// A loss event on subflow `r`: the window law's decrease sets the new ssthresh.
    fn reduce(&mut self, r: usize) -> f64 {
        self.cc.on_loss(&self.states, r);
        let decrease = self.cc.decrease(&self.states, r);
        // Seed 000 §III-F: the throughput drop this loss costs the flow, relative to its rate.
        let rate: f64 = self.states.iter().map(|s| if s.srtt > 0.0 { s.cwnd / s.srtt } else { f64::NAN }).sum();
        if rate > 0.0 {
            let counters = &mut self.senders[r].counters;
            counters.relative_drop_sum += decrease / self.states[r].srtt / rate;
            counters.relative_drops += 1;
        }
        let st = &mut self.states[r];
        st.ssthresh = (st.cwnd - decrease).max(self.config.min_ssthresh);
        st.record_loss();
        st.ssthresh
    }

    /// RFC 6937 on an ACK in recovery that delivered `delivered` segments: the window becomes
    /// what is in flight plus the segments PRR allows now, and those are sent.
    fn prr_send(&mut self, r: usize, delivered: u64, now: Time, ctx: &mut Ctx) {
        let ssthresh = self.states[r].ssthresh;
        let s = &mut self.senders[r];
        let in_flight = s.in_flight();
        let prr = &mut s.prr;
        prr.delivered += delivered;
        let pipe = in_flight.saturating_sub(prr.sacked);
        let allowed = if pipe as f64 > ssthresh {
            // Proportional: sndcnt = ceil(prr_delivered · ssthresh / RecoverFS) − prr_out.
            (prr.delivered as f64 * ssthresh / prr.recover_fs.max(1) as f64).ceil() as i64 - prr.out as i64
        } else {
            // Slow-start reduction bound: back up to ssthresh, at most one more than delivered.
            let bound = (prr.delivered as i64 - prr.out as i64).max(delivered as i64) + 1;
            ((ssthresh - pipe as f64) as i64).min(bound)
        };
        let before = s.snd_nxt;
        self.account_cwnd(r, now);
        self.states[r].cwnd = (in_flight + allowed.max(0) as u64) as f64;
        self.schedule(ctx);
        let s = &mut self.senders[r];
        s.prr.out += s.snd_nxt - before;
    }

    /// Acknowledgement `ack` arrived on subflow `r`, carrying the data-level acknowledgement
    /// `data_ack`. The common case, new data acknowledged outside recovery, is handled here;
    /// recovery and duplicates out of line, which keeps this path short (README, "Speed").
    pub fn on_ack(&mut self, r: usize, ack: Ack, data_ack: u64, ctx: &mut Ctx) {
        let window_opened = data_ack > self.data.acked;
        self.data.acked = self.data.acked.max(data_ack);
        let now = ctx.events.now();
        let s = &mut self.senders[r];
        if ack.next > s.snd_una {
            let newly = ack.next - s.snd_una;
            if !ack.echo_retransmitted {
                let rtt = now - ack.echo;
                let new_min = s.rtt.sample(rtt);
                let st = &mut self.states[r];
                st.srtt = s.rtt.srtt().expect("sampled").as_secs_f64();
                if new_min {
                    st.min_rtt = rtt.as_secs_f64();
                }
                s.counters.srtt_sum += st.srtt;
                s.counters.rtt_samples += 1;
            }
            s.forget_acked(newly);
            s.snd_una = ack.next;
            s.snd_nxt = s.snd_nxt.max(s.snd_una);
            s.counters.acked += newly;
            self.states[r].record_acked(newly);
            self.account_cwnd(r, now);
            if self.states[r].in_recovery {
                if self.on_recovery_ack(r, ack.next, newly, now, ctx) {
                    return;
                }
            } else {
                self.senders[r].dupacks = 0;
                let st = &self.states[r];
                // (`newly` is far below 2^63: converting through i64 is one instruction.)
                let growth = if st.cwnd < st.ssthresh {
                    // Slow start with appropriate byte counting, L = 2 (RFC 3465).
                    newly.min(2) as i64 as f64
                } else {
                    newly as i64 as f64 * self.cc.increase(&self.states, r)
                };
                // Some laws (OLIA, RSF) may shrink the window; it never goes below one packet.
                let st = &mut self.states[r];
                st.cwnd = (st.cwnd + growth).max(1.0);
            }
            if self.senders[r].outstanding() {
                self.arm_timer(r, ctx);
            } else {
                self.senders[r].stop_timer();
            }
            self.resend(r, ctx);
            self.schedule(ctx);
        } else if ack.next == s.snd_una && s.outstanding() {
            self.on_duplicate(r, ack.next, window_opened, now, ctx);
        } else if window_opened {
            self.schedule(ctx);
        }
    }

    /// New data acknowledged during fast recovery. A full ACK ends recovery (the caller goes on
    /// as after any new ACK: returns false); a partial ACK is handled whole here (returns true).
    #[inline(never)]
    fn on_recovery_ack(&mut self, r: usize, ack: u64, newly: u64, now: Time, ctx: &mut Ctx) -> bool {
        let s = &mut self.senders[r];
        if s.recover.is_some_and(|rec| ack > rec) {
            // RFC 6582 step 3, full ACK: deflate to ssthresh and leave recovery.
            let st = &mut self.states[r];
            st.in_recovery = false;
            st.cwnd = st.ssthresh;
            s.dupacks = 0;
            return false;
        }
        // Partial ACK: retransmit the next hole and re-arm the timer on the first partial ACK
        // only. NewReno deflates by what was acked and adds back one segment; PRR counts what
        // was delivered (the segments acked minus those duplicates already counted) and sends
        // its share.
        let first = !s.partial_seen;
        s.partial_seen = true;
        let delivered = newly.saturating_sub(s.prr.sacked).max(1);
        s.prr.sacked = 0;
        let (hole, data_seq) = (s.snd_una, s.data_seq(s.snd_una));
        if self.config.recovery == Recovery::NewReno {
            let st = &mut self.states[r];
            st.cwnd = (st.cwnd - newly as f64 + 1.0).max(1.0);
        }
        self.transmit(r, hole, data_seq, ctx);
        self.senders[r].prr.out += 1;
        if first {
            self.arm_timer(r, ctx);
        }
        self.resend(r, ctx);
        match self.config.recovery {
            Recovery::NewReno => self.schedule(ctx),
            Recovery::Prr => self.prr_send(r, delivered, now, ctx),
        }
        true
    }

    /// A duplicate acknowledgement on subflow `r` (of segment `ack`, with data outstanding).
    #[inline(never)]
    fn on_duplicate(&mut self, r: usize, ack: u64, window_opened: bool, now: Time, ctx: &mut Ctx) {
        let s = &mut self.senders[r];
        s.dupacks += 1;
        if self.states[r].in_recovery {
            s.prr.sacked += 1;
            match self.config.recovery {
                Recovery::NewReno => {
                    // RFC 6582 step 4: inflate by one segment per further duplicate.
                    self.account_cwnd(r, now);
                    self.states[r].cwnd += 1.0;
                    self.schedule(ctx);
                }
                Recovery::Prr => self.prr_send(r, 1, now, ctx),
            }
        } else if s.dupacks == 3 && s.may_enter_recovery(ack) {
            // RFC 6582 step 2: fast retransmit, then fast recovery.
            s.recover = Some(s.snd_max - 1);
            s.partial_seen = false;
            s.counters.fast_retransmits += 1;
            self.account_cwnd(r, now);
            let ssthresh = self.reduce(r);
            self.states[r].in_recovery = true;
            let s = &mut self.senders[r];
            let (hole, data_seq) = (s.snd_una, s.data_seq(s.snd_una));
            // RFC 6937: RecoverFS is what was in flight; the three duplicates are the
            // receiver's out-of-order holdings; the fast retransmit is the first sent.
            s.prr = PrrState { delivered: 0, out: 1, recover_fs: s.in_flight(), sacked: 3 };
            if self.config.recovery == Recovery::NewReno {
                self.states[r].cwnd = ssthresh + 3.0;
            }
            self.transmit(r, hole, data_seq, ctx);
            match self.config.recovery {
                Recovery::NewReno => self.schedule(ctx),
                Recovery::Prr => self.prr_send(r, 1, now, ctx),
            }
        } else if window_opened {
            self.schedule(ctx);
        }
    }

    /// The retransmission timer of subflow `r` woke up.
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
        self.reinject_outstanding(r);
        self.resend(r, ctx);
        self.schedule(ctx);
    }
}
