//! The sending side of one subflow as an I/O-free state machine: ACKs and timer expiries go
//! in, and what to do comes out ([`AckOutcome`], [`TimerOutcome`], [`SubflowSender::next_send`]);
//! the connection does the sending. The window law is not here either: the machine asks its
//! [`Window`] for every increase and decrease.
//!
//! Loss recovery, by settings:
//! - without SACK, RFC 5681 and RFC 6582 (NewReno): three duplicate ACKs, partial ACKs,
//!   go-back-N after a timeout; the window inflated per duplicate, or RFC 6937 PRR;
//! - with SACK, RFC 6675 on the [`Scoreboard`] (pipe, IsLost, NextSeg), with PRR or RFC 6675's
//!   own `cwnd = ssthresh`; with RACK (RFC 8985 §6) losses are also marked by time, and with
//!   TLP (RFC 8985 §7) a probe repairs a tail loss before the timeout would.

use std::num::NonZeroU64;

use sim_core::{RouteId, Time};

use crate::config::{FullAck, Growth, PartialAckTimer, Recovery, TcpConfig};
use crate::receiver::Ack;
use crate::rtt::RttEstimator;
use crate::scoreboard::Scoreboard;
use crate::segment_map::SegmentMap;

/// Counters of one subflow's sender; a snapshot at the end of the warm-up is subtracted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderCounters {
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Of `sent`, the segments sent before, whatever the cause (recovery, going back N after
    /// a timeout, a probe resending the last segment).
    pub retransmitted: u64,
    /// Segments acknowledged for the first time, each counted once: the subflow's goodput in
    /// packets.
    pub acked: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Duplicate acknowledgements received (an ACK that moves nothing while data is out).
    pub duplicate_acks: u64,
    /// Retransmission timeouts that fired (each a loss event; probes firing instead are
    /// counted in `probes`).
    pub timeouts: u64,
    /// Tail loss probes sent (RFC 8985 §7; always 0 without `tlp`).
    pub probes: u64,
    /// Integral of cwnd over time, packet·seconds.
    pub cwnd_seconds: f64,
    /// Sum of the smoothed RTT after each RTT sample, seconds.
    pub srtt_sum: f64,
    /// RTT samples taken; `srtt_sum / rtt_samples` is the mean smoothed RTT.
    pub rtt_samples: u64,
    /// Sum over this subflow's loss events of the flow's relative throughput drop: the window
    /// law's decrease over the RTT, divided by the flow's rate Σ cwnd/srtt just before (seed 000
    /// §III-F).
    pub relative_drop_sum: f64,
    /// Loss events counted in `relative_drop_sum` (those with an RTT estimate on every subflow).
    pub relative_drops: u64,
}

impl SenderCounters {
    /// The counts accumulated since `earlier`.
    pub fn since(&self, earlier: &SenderCounters) -> SenderCounters {
        SenderCounters {
            sent: self.sent - earlier.sent,
            retransmitted: self.retransmitted - earlier.retransmitted,
            acked: self.acked - earlier.acked,
            fast_retransmits: self.fast_retransmits - earlier.fast_retransmits,
            duplicate_acks: self.duplicate_acks - earlier.duplicate_acks,
            timeouts: self.timeouts - earlier.timeouts,
            probes: self.probes - earlier.probes,
            cwnd_seconds: self.cwnd_seconds - earlier.cwnd_seconds,
            srtt_sum: self.srtt_sum - earlier.srtt_sum,
            rtt_samples: self.rtt_samples - earlier.rtt_samples,
            relative_drop_sum: self.relative_drop_sum - earlier.relative_drop_sum,
            relative_drops: self.relative_drops - earlier.relative_drops,
        }
    }
}

/// The window law as the sender sees it: one subflow's window, changed only through the law.
pub trait Window {
    /// Congestion window, packets.
    fn cwnd(&self) -> f64;
    /// Slow-start threshold, packets.
    fn ssthresh(&self) -> f64;
    /// Sets the window (recovery's own rules: deflation, PRR, collapse after a timeout).
    fn set_cwnd(&mut self, cwnd: f64);
    /// Growth for `newly` segments acknowledged outside recovery (one per ACK with
    /// `growth = "per-ack"`): slow start or the law's congestion avoidance.
    fn grow(&mut self, newly: u64);
    /// A loss event: the law's decrease sets ssthresh (at least `min_ssthresh`, rounded down
    /// with `whole_ssthresh`). Returns ssthresh, the window less the decrease (neither floored
    /// nor rounded: ns-2's `cwnd_` in recovery) and the flow's relative throughput drop if
    /// every subflow has an RTT estimate.
    fn reduce(&mut self) -> (f64, f64, Option<f64>);
    /// Tells the law whether fast recovery inflates the window now (the sums over subflows
    /// then count ssthresh).
    fn set_inflated(&mut self, on: bool);
    /// A new RTT estimate: smoothed RTT and, if it is one, the new minimum, seconds.
    fn rtt_sampled(&mut self, srtt: f64, new_min: Option<f64>);
    /// The RTT sample `rtt` of an acknowledgement up to `snd_una`, `snd_nxt` the next new
    /// segment, after [`rtt_sampled`](Self::rtt_sampled), for a law that watches slow start:
    /// in slow start, it may end it (CUBIC's HyStart).
    fn slow_start_sample(&mut self, rtt: Time, snd_una: u64, snd_nxt: u64);
    /// `newly` segments were acknowledged, in any phase: the law's per-subflow counts (OLIA's
    /// and RSF's `l1`, `l2`) advance.
    fn acked(&mut self, newly: u64);
}

/// RFC 6937 state of one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PrrState {
    /// Segments delivered to the receiver since recovery began (`prr_delivered`).
    pub delivered: u64,
    /// Segments sent since recovery began, retransmissions included (`prr_out`).
    pub out: u64,
    /// Segments in flight when recovery began (`RecoverFS`).
    pub recover_fs: u64,
    /// Without SACK: segments known to have arrived above `snd_una` (one per duplicate ACK
    /// since it last moved), the receiver's out-of-order holdings.
    pub sacked: u64,
}

/// Where the sender is in its life and in loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The SYN is out, no SYN-ACK yet; nothing else may be sent.
    SynSent,
    /// Established, with no loss being recovered: the window grows by slow start or the law.
    Open,
    /// Fast recovery (after duplicate ACKs, SACK or RACK marked a loss).
    Recovery,
    /// After a retransmission timeout, until everything outstanding then is acknowledged.
    Loss,
}

/// What fires when the sender's timer expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimerKind {
    Rto,
    Probe,
}

/// What to do with the retransmission timer after an acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerAction {
    /// Leave it as it is.
    Keep,
    /// Restart it from now: new data was acknowledged and some is still outstanding
    /// (RFC 6298 (5.3)).
    Restart,
    /// Stop it: nothing is outstanding.
    Stop,
    /// Leave the deadline, but make sure a wake-up comes in time for RACK's reorder timer.
    Wake,
}

/// What an acknowledgement asks of the connection. (An enum of 16 bytes, returned in two
/// registers: this is on every ACK's path.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// Nothing (an old ACK, or a duplicate with nothing to send); new room at the data level
    /// may still let the connection send.
    Nothing,
    /// Apply the timer action, then send what [`SubflowSender::next_send`] allows.
    Send(TimerAction),
    /// Resend this segment at once whatever the window (fast retransmit, a partial ACK's
    /// hole), apply the timer action, then send what the window allows.
    Retransmit(u64, TimerAction),
    /// The handshake just completed on this subflow: send what the window allows.
    Established,
    /// Fast retransmit with `fast_retransmit_alone`: resend this segment and nothing else.
    RetransmitAlone(u64),
}

/// What a timer wake-up asks of the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOutcome {
    /// Nothing (a stale wake-up, or nothing outstanding).
    Nothing,
    /// Not yet due: wake up again at this time.
    Again(Time),
    /// The retransmission timeout: reinject (multipath) and run the send loop.
    Timeout,
    /// Send a tail loss probe: one new segment if there is data, else resend the last one;
    /// then call [`SubflowSender::probe_sent`].
    Probe,
    /// RACK's reorder timer marked losses: run the send loop.
    Reordered,
    /// The SYN's timer expired before a SYN-ACK came: send the SYN again.
    ResendSyn,
}

/// What the window allows the subflow to send next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Send {
    /// Resend this segment: loss recovery marked it lost, or going back N reached it.
    Retransmit(u64),
    /// A new segment, if the connection has data for it.
    New,
}

/// A segment number that may be absent, in 8 bytes rather than an option's 16 (a sender has
/// two, and a run can have a million senders): stored plus one, so that absent is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeqMark(Option<NonZeroU64>);

impl SeqMark {
    const NONE: SeqMark = SeqMark(None);

    /// Segment `seq` (below `u64::MAX`, as every segment number of a run is).
    fn at(seq: u64) -> SeqMark {
        SeqMark(NonZeroU64::new(seq.wrapping_add(1)))
    }

    fn get(self) -> Option<u64> {
        self.0.map(|n| n.get() - 1)
    }
}

/// Sequence state, loss recovery and timer of one subflow's sender. Segment numbers count
/// packets from 0.
#[derive(Clone, Debug)]
pub struct SubflowSender {
    /// Route of this subflow's data packets.
    route: RouteId,
    /// Route of the acknowledgements back from the receiver.
    ack_route: RouteId,
    /// Oldest unacknowledged segment (RFC 793 `SND.UNA`): everything below it is
    /// cumulatively acknowledged.
    snd_una: u64,
    /// Next segment to send (below `snd_max` only while going back N without SACK).
    snd_nxt: u64,
    /// One past the highest segment ever sent.
    snd_max: u64,
    /// Data sequence number of every segment in `snd_una..snd_max`, oldest first; `None` on
    /// a connection with a single subflow, where the two sequences coincide.
    /// (Boxed: 8 bytes per subflow when absent, not an empty map's 40.)
    data_seqs: Option<Box<SegmentMap>>,
    /// The SACK scoreboard (with `sack`). The SACK half of the machine takes it as an argument,
    /// lent by [`SubflowSender::with_board`], so that no path can need it and find none.
    board: Option<Box<Scoreboard>>,
    /// Where in recovery the sender is.
    phase: Phase,
    /// RFC 6582 `recover`: highest segment sent when the last recovery or timeout began.
    recover: SeqMark,
    /// Duplicate acknowledgements since `snd_una` last moved; the third may start fast
    /// recovery (RFC 5681 §3.2).
    dupacks: u32,
    /// Whether the first partial ACK of this recovery has been seen (it re-arms the timer).
    partial_seen: bool,
    /// RFC 6298's SRTT/RTTVAR estimator: it sets the retransmission timeout, and its samples
    /// feed the window law's `τ_r`.
    rtt: RttEstimator,
    /// When the timer expires (`Time::NEVER` when stopped).
    rto_deadline: Time,
    timer_kind: TimerKind,
    /// RACK's reorder timer (`Time::NEVER` when none).
    reorder_at: Time,
    /// Time of this sender's pending timer event (`Time::NEVER` if none); an event at any
    /// other time is stale.
    rto_event: Time,
    /// Counters since the subflow began; records subtract the end-of-warm-up snapshot.
    counters: SenderCounters,
    /// When cwnd last changed (for its time integral).
    cwnd_since: Time,
    /// RFC 6937 counters of the current recovery episode (kept always, read only with PRR).
    prr: PrrState,
    /// ns-2's `pipe_` in recovery (read only with [`Recovery::Ns2`]); signed, as ns-2's.
    ns2_pipe: i64,
    /// TLP: the probe's episode ends when this is acknowledged (RFC 8985 `TLP.end_seq`).
    probe_end: SeqMark,
    /// TLP: whether the probe resent a segment (its arrival then means a loss was repaired).
    probe_resent: bool,
    /// The SYN was sent more than once (no RTT sample from its SYN-ACK without timestamps).
    syn_resent: bool,
    /// A timeout found by a scan of a coarse timer, carried out at the next wake-up whatever
    /// arrives before it (htsim's `_rtx_timeout_pending`).
    timeout_pending: bool,
    settings: SenderSettings,
}

/// The settings the machine reads on every ACK, copied out of [`TcpConfig`].
#[derive(Clone, Copy, Debug)]
struct SenderSettings {
    /// No probes, no reorder timer: the timer is the RTO alone.
    rto_only: bool,
    recovery: Recovery,
    per_ack: bool,
    full_ack: FullAck,
    partial_ack_timer: PartialAckTimer,
    rtt_every_ack: bool,
    rack: bool,
    tlp: bool,
    timestamps: bool,
    granularity: Time,
    retransmit_restarts_timer: bool,
    lost_syn_resets_window: bool,
    syn_ack_grows: bool,
    fast_retransmit_alone: bool,
    prr_extra_on_progress_only: bool,
    /// The window law takes the RTT samples of slow start (CUBIC's HyStart).
    law_watches_slow_start: bool,
}

impl SubflowSender {
    /// A sender with nothing sent, using `route` for data and `ack_route` for ACKs.
    pub fn new(route: RouteId, ack_route: RouteId, multipath: bool, config: &TcpConfig) -> Self {
        SubflowSender {
            route,
            ack_route,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_seqs: multipath.then(Box::default),
            board: config.sack.then(Box::default),
            phase: if config.handshake { Phase::SynSent } else { Phase::Open },
            recover: SeqMark::NONE,
            dupacks: 0,
            partial_seen: false,
            timeout_pending: false,
            rtt: RttEstimator::new(config.initial_rto, config.min_rto, config.max_rto, config.rto_formula, config.rtt_tick),
            rto_deadline: Time::NEVER,
            timer_kind: TimerKind::Rto,
            reorder_at: Time::NEVER,
            rto_event: Time::NEVER,
            counters: SenderCounters::default(),
            cwnd_since: Time::ZERO,
            prr: PrrState::default(),
            ns2_pipe: 0,
            probe_end: SeqMark::NONE,
            probe_resent: false,
            syn_resent: false,
            settings: SenderSettings {
                rto_only: !config.tlp && !config.rack,
                recovery: config.recovery,
                per_ack: config.growth == Growth::PerAck,
                full_ack: config.full_ack,
                partial_ack_timer: config.partial_ack_timer,
                rtt_every_ack: config.rtt_every_ack,
                rack: config.rack,
                tlp: config.tlp,
                timestamps: config.timestamps,
                granularity: config.timer_granularity,
                retransmit_restarts_timer: config.retransmit_restarts_timer,
                lost_syn_resets_window: config.lost_syn_resets_window,
                syn_ack_grows: config.syn_ack_grows,
                fast_retransmit_alone: config.fast_retransmit_alone,
                prr_extra_on_progress_only: config.prr_extra_on_progress_only,
                law_watches_slow_start: false,
            },
        }
    }

    /// The sender for a law that watches slow start
    /// ([`CoupledController::watches_slow_start`](mptcp_cc::CoupledController::watches_slow_start)):
    /// its RTT samples go to [`Window::slow_start_sample`] too.
    pub fn with_law_watching_slow_start(mut self, watches: bool) -> SubflowSender {
        self.settings.law_watches_slow_start = watches;
        self
    }

    /// Whether resending `seq` restarts the retransmission timer: the oldest unacknowledged
    /// segment, with `retransmit_restarts_timer`.
    #[inline]
    pub fn resend_restarts_timer(&self, seq: u64) -> bool {
        self.settings.retransmit_restarts_timer && seq == self.snd_una
    }

    /// The data sequence number carried by subflow segment `seq` (sent before).
    #[inline]
    pub fn data_seq(&self, seq: u64) -> u64 {
        match &self.data_seqs {
            None => seq,
            Some(map) => map.get((seq - self.snd_una) as usize),
        }
    }

    /// Segments sent and not yet acknowledged (counting back from `snd_nxt` while going back N).
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una)
    }

    /// Segments the network holds by the sender's reckoning: RFC 6675's pipe with SACK, else
    /// those in flight.
    #[inline]
    pub fn pipe(&self) -> u64 {
        match &self.board {
            Some(_) if self.ns2_recovery() => self.ns2_pipe.max(0) as u64,
            Some(b) => b.pipe(),
            None => self.in_flight(),
        }
    }

    /// Whether ns-2's recovery counts the pipe now.
    #[inline]
    fn ns2_recovery(&self) -> bool {
        self.phase == Phase::Recovery && self.settings.recovery == Recovery::Ns2
    }

    /// Whether any sent data is unacknowledged.
    #[inline]
    pub fn outstanding(&self) -> bool {
        self.snd_una < self.snd_max
    }

    /// Whether the handshake is over.
    #[inline]
    pub fn established(&self) -> bool {
        self.phase != Phase::SynSent
    }

    /// RFC 6582 step 2: fast retransmit only if the ACK covers more than `recover` (no
    /// re-entry for duplicate ACKs of data sent before the last recovery or timeout).
    pub fn may_enter_recovery(&self, ack: u64) -> bool {
        self.recover.get().is_none_or(|r| ack > r)
    }

    #[inline]
    fn account<W: Window>(&mut self, now: Time, w: &W) {
        self.account_cwnd(now, w.cwnd());
    }

    /// Route of this subflow's data packets.
    #[inline]
    pub fn route(&self) -> RouteId {
        self.route
    }

    /// Route of the acknowledgements back from the receiver.
    #[inline]
    pub fn ack_route(&self) -> RouteId {
        self.ack_route
    }

    /// Oldest unacknowledged segment (RFC 793 `SND.UNA`).
    #[inline]
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// One past the highest segment ever sent.
    #[inline]
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// Whether the retransmission timer is running.
    #[inline]
    pub fn timer_armed(&self) -> bool {
        self.rto_deadline != Time::NEVER
    }

    /// Where in recovery the sender is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// RFC 6937 counters of the current recovery episode.
    pub fn prr(&self) -> &PrrState {
        &self.prr
    }

    /// When the retransmission timer expires (`Time::NEVER` when stopped).
    pub fn timer_deadline(&self) -> Time {
        self.rto_deadline
    }

    /// Time of the sender's pending timer event (`Time::NEVER` if none): a coarse timer's
    /// scan may come after the deadline.
    pub fn timer_event(&self) -> Time {
        self.rto_event
    }

    /// Data sequence numbers of the segments in `snd_una..snd_max`, oldest first (`None` on a
    /// single-path connection, whose two sequences coincide).
    pub fn data_seqs(&self) -> Option<&SegmentMap> {
        self.data_seqs.as_deref()
    }

    /// The RTT estimator (its samples, its minimum).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// Counters since the subflow began (since the end of the warm-up once
    /// [`SubflowSender::count_from`] has run).
    #[inline]
    pub fn counters(&self) -> &SenderCounters {
        &self.counters
    }

    /// Makes the counters count from `warm`, their snapshot at the end of the warm-up.
    pub fn count_from(&mut self, warm: &SenderCounters) {
        self.counters = self.counters.since(warm);
    }

    /// Starts the window's time integral at `now`, when the connection starts.
    pub fn start_cwnd_clock(&mut self, now: Time) {
        self.cwnd_since = now;
    }

    /// Brings the time integral of the window, `cwnd` since the last change, up to `now`.
    #[inline]
    pub fn account_cwnd(&mut self, now: Time, cwnd: f64) {
        self.counters.cwnd_seconds += cwnd * (now - self.cwnd_since).as_secs_f64();
        self.cwnd_since = now;
    }

    // ----- sending -------------------------------------------------------------------------

    /// What the window allows next, for a window of `window` packets: the next segment of a
    /// go-back-N or the scoreboard's next lost segment first, then new data.
    #[inline]
    pub fn next_send(&mut self, window: u64) -> Option<Send> {
        let (in_flight, nxt, ns2_pipe) = (self.in_flight(), self.snd_nxt, self.ns2_recovery().then_some(self.ns2_pipe));
        let next = match &mut self.board {
            None if in_flight >= window => return None,
            None if nxt < self.snd_max => return Some(Send::Retransmit(nxt)),
            None => Send::New,
            Some(b) if ns2_pipe.map_or_else(|| b.pipe(), |p| p.max(0) as u64) >= window => return None,
            Some(b) => b.next_to_resend().map_or(Send::New, Send::Retransmit),
        };
        // Before the handshake completes nothing is outstanding: nothing to resend either.
        (self.phase != Phase::SynSent).then_some(next)
    }

    /// Whether the window has room for a new segment and nothing waits to be resent (the
    /// test of the send loop for new data: [`SubflowSender::next_send`] would say `New`).
    #[inline]
    pub fn room_for_new(&self, window: u64) -> bool {
        let room = match &self.board {
            None => self.snd_nxt == self.snd_max && self.in_flight() < window,
            Some(b) => b.to_resend() == 0 && self.pipe() < window,
        };
        room && self.phase != Phase::SynSent
    }

    /// Whether anything waits to be resent (a go-back-N in progress, or segments marked lost):
    /// the cheap test before [`SubflowSender::next_send`] on every ACK.
    #[inline]
    pub fn has_resend(&self) -> bool {
        self.snd_nxt < self.snd_max || self.board.as_ref().is_some_and(|b| b.to_resend() > 0)
    }

    /// Records the transmission of segment `seq` at `now` (new if it is `snd_max`).
    #[inline]
    pub fn on_sent(&mut self, seq: u64, now: Time) {
        let retransmission = seq < self.snd_max;
        self.counters.sent += 1;
        self.counters.retransmitted += retransmission as u64;
        if self.phase == Phase::Recovery {
            self.prr.out += 1;
            self.ns2_pipe += 1;
        }
        if let Some(b) = &mut self.board {
            b.sent(seq, now);
        }
        if !retransmission {
            self.rtt.time_segment(seq, now);
        }
        if seq == self.snd_nxt {
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    /// Records the transmission of a new segment (number `snd_max`) carrying data segment
    /// `data_seq`, at `now`: [`SubflowSender::on_sent`] for the common case.
    #[inline]
    pub fn on_sent_new(&mut self, data_seq: u64, now: Time) {
        debug_assert_eq!(self.snd_nxt, self.snd_max);
        if let Some(map) = &mut self.data_seqs {
            map.push(data_seq);
        }
        self.counters.sent += 1;
        if self.phase == Phase::Recovery {
            self.prr.out += 1;
            self.ns2_pipe += 1;
        }
        if let Some(b) = &mut self.board {
            b.sent(self.snd_max, now);
        }
        self.snd_nxt += 1;
        self.snd_max = self.snd_nxt;
    }

    // ----- the timer -----------------------------------------------------------------------

    /// The time a wake-up for `deadline` is scheduled at: exactly then, or with a coarse
    /// timer the first of its scans (every `granularity`) strictly after it, as htsim's
    /// `rtx_timer_hook` fires only when `now > _RFC2988_RTO_timeout`.
    #[inline]
    fn tick(&self, deadline: Time) -> Time {
        let g = self.settings.granularity.as_ps();
        if g == 0 || deadline == Time::NEVER { deadline } else { Time((deadline.as_ps() / g + 1).saturating_mul(g)) }
    }

    /// Whether a wake-up at `at`, asked for at `now`, is a scan of a coarse timer (a later
    /// instant on its period) rather than a timer of this subflow's own.
    #[inline]
    pub fn is_scan(&self, at: Time, now: Time) -> bool {
        let g = self.settings.granularity.as_ps();
        g > 0 && at > now && at.as_ps().is_multiple_of(g)
    }

    /// A scan of the coarse timer at `now` found `deadline` passed. As htsim's
    /// `rtx_timer_hook`: the timeout is backed off and its next deadline counted from the
    /// scan, and the timeout itself comes `(granularity - lateness) / 200` later (the lateness
    /// halved until it is below the period), spreading the timeouts one scan finds. Returns
    /// the time of that wake-up.
    fn scan_found_late(&mut self, deadline: Time, now: Time) -> Time {
        let g = self.settings.granularity.as_ps();
        let mut late = (now - deadline).as_ps();
        while late > g {
            late >>= 1;
        }
        self.rtt.back_off();
        self.rto_deadline = now + self.rtt.timeout();
        self.timeout_pending = true;
        self.rto_event = now + Time((g - late) / 200);
        self.rto_event
    }

    /// Arms the timer from `now`: a tail loss probe when one may be sent, else the
    /// retransmission timeout (RACK's reorder timer if earlier). Returns the time of a wake-up
    /// to schedule, if the pending one (if any) would come too late. Always inlined: called
    /// after every ACK, and `#[inline]` left it out of line (docs/performance.md).
    #[inline(always)]
    pub fn arm_timer(&mut self, now: Time) -> Option<Time> {
        let rto = now + self.rtt.timeout();
        self.rto_deadline = rto;
        self.timer_kind = TimerKind::Rto;
        if self.settings.rto_only {
            return self.wake_at(self.tick(rto));
        }
        if self.settings.tlp
            && self.phase == Phase::Open
            && self.probe_end.get().is_none()
            && self.board.as_ref().is_some_and(|b| b.sacked() == 0)
            && let Some(srtt) = self.rtt.srtt()
        {
            // Linux's `tcp_schedule_loss_probe` (3.10 to 4.x, the seeds' kernels; RFC 8985
            // §7.2 is close): PTO = 2·SRTT, at least 1.5·SRTT + 200 ms (the worst-case delayed
            // ACK) when one segment is out, at least 10 ms; and at the latest when the RTO
            // would expire (the probe then goes out instead of the timeout).
            let mut pto = srtt + srtt;
            if self.snd_max - self.snd_una <= 1 {
                pto = pto.max(srtt + Time(srtt.as_ps() / 2) + Time::from_ms(200));
            }
            self.rto_deadline = (now + pto.max(Time::from_ms(10))).min(rto);
            self.timer_kind = TimerKind::Probe;
        }
        self.wake_for(self.rto_deadline.min(self.reorder_at).max(now))
    }

    /// Schedules a wake-up for the current deadlines if none is pending early enough.
    pub fn wake(&mut self, now: Time) -> Option<Time> {
        self.wake_for(self.rto_deadline.min(self.reorder_at).max(now))
    }

    /// Makes sure a wake-up comes at `at` (already on the timer's ticks).
    #[inline]
    fn wake_at(&mut self, at: Time) -> Option<Time> {
        if self.rto_event <= at {
            // An earlier wake-up is pending; it will re-arm for the deadline when it fires.
            return None;
        }
        self.rto_event = at;
        Some(at)
    }

    fn wake_for(&mut self, deadline: Time) -> Option<Time> {
        self.wake_at(self.tick(deadline))
    }

    /// Whether this sender's segments carry TCP timestamps (RFC 7323).
    pub fn uses_timestamps(&self) -> bool {
        self.settings.timestamps
    }

    /// Stops the retransmission timer (its pending wake-up becomes a no-op).
    #[inline]
    pub fn stop_timer(&mut self) {
        self.rto_deadline = Time::NEVER;
        self.reorder_at = Time::NEVER;
    }

    /// Arms the SYN's timer: the initial RTO, backed off per retransmission.
    /// Keeps a deadline already set (by the scan of a coarse timer that found the last SYN
    /// lost).
    pub fn arm_syn_timer(&mut self, now: Time) -> Option<Time> {
        if self.rto_deadline == Time::NEVER {
            self.rto_deadline = now + self.rtt.timeout();
        }
        self.timer_kind = TimerKind::Rto;
        self.wake_for(self.rto_deadline)
    }

    /// The timer woke up at `now`.
    pub fn on_timer<W: Window>(&mut self, now: Time, w: &mut W) -> TimerOutcome {
        if now != self.rto_event {
            return TimerOutcome::Nothing; // superseded by an earlier re-arm
        }
        self.rto_event = Time::NEVER;
        let scanned = std::mem::take(&mut self.timeout_pending);
        if self.reorder_at <= now && !scanned {
            // Only RACK, with SACK, arms the reorder timer.
            self.reorder_at = Time::NEVER;
            let reordered = self.with_board(|s, board| {
                s.rack_detect(board, now, true) && {
                    s.enter_recovery_if_lost(board, w, now);
                    true
                }
            });
            if reordered == Some(true) {
                return TimerOutcome::Reordered;
            }
        }
        let deadline = self.rto_deadline.min(self.reorder_at);
        if !scanned {
            if deadline == Time::NEVER {
                return TimerOutcome::Nothing;
            }
            if self.tick(deadline) > now {
                self.rto_event = self.tick(deadline);
                return TimerOutcome::Again(self.rto_event);
            }
            if self.settings.granularity > Time::ZERO && self.timer_kind == TimerKind::Rto {
                return TimerOutcome::Again(self.scan_found_late(deadline, now));
            }
        }
        if self.phase == Phase::SynSent {
            if !scanned {
                self.rtt.back_off();
            }
            self.syn_resent = true;
            if self.settings.lost_syn_resets_window {
                self.account(now, w);
                self.loss_event(w);
                w.set_cwnd(1.0);
            }
            if !scanned {
                self.rto_deadline = Time::NEVER;
            }
            return TimerOutcome::ResendSyn;
        }
        if !self.outstanding() {
            self.stop_timer();
            return TimerOutcome::Nothing;
        }
        if self.timer_kind == TimerKind::Probe {
            self.counters.probes += 1;
            self.rto_deadline = Time::NEVER;
            return TimerOutcome::Probe;
        }
        self.timeout(now, scanned, w);
        TimerOutcome::Timeout
    }

    /// RFC 6298 (5.5)-(5.7) and RFC 5681 (4): back off, collapse the window, and resend from
    /// the oldest unacknowledged segment (go-back-N; with SACK, every segment not SACKed is
    /// marked lost instead).
    /// After a scan (`scanned`), the back-off and the next deadline are the scan's.
    fn timeout<W: Window>(&mut self, now: Time, scanned: bool, w: &mut W) {
        self.counters.timeouts += 1;
        self.rtt.stop_timing();
        self.recover = SeqMark::at(self.snd_max - 1);
        self.dupacks = 0;
        self.probe_end = SeqMark::NONE;
        if !scanned {
            self.rtt.back_off();
            self.stop_timer();
        }
        self.account(now, w);
        if self.phase == Phase::Recovery {
            if self.board.is_none() {
                self.deflate(w);
            } else if self.settings.recovery != Recovery::Ns2 {
                // (ns-2's window in recovery is already the decreased one, unrounded.)
                w.set_cwnd(w.ssthresh());
            }
            w.set_inflated(false);
        }
        self.phase = Phase::Loss;
        self.loss_event(w);
        w.set_cwnd(1.0);
        match &mut self.board {
            None => self.snd_nxt = self.snd_una,
            Some(b) => {
                if self.settings.recovery == Recovery::Ns2 {
                    b.forget_sacks();
                }
                b.mark_all_lost();
            }
        }
    }

    /// The law's decrease for a loss event, with its relative drop recorded.
    fn loss_event<W: Window>(&mut self, w: &mut W) -> f64 {
        self.loss_event_windows(w).0
    }

    /// [`SubflowSender::loss_event`], returning the window less the law's decrease instead
    /// (unfloored, unrounded).
    fn decrease<W: Window>(&mut self, w: &mut W) -> f64 {
        self.loss_event_windows(w).1
    }

    fn loss_event_windows<W: Window>(&mut self, w: &mut W) -> (f64, f64) {
        let (ssthresh, decreased, drop) = w.reduce();
        if let Some(d) = drop {
            self.counters.relative_drop_sum += d;
            self.counters.relative_drops += 1;
        }
        (ssthresh, decreased)
    }

    /// A tail loss probe went out at `now`; `resent` if it resent the last segment.
    pub fn probe_sent(&mut self, resent: bool, now: Time) -> Option<Time> {
        self.probe_end = SeqMark::at(self.snd_max);
        self.probe_resent = resent;
        self.arm_timer(now)
    }

    // ----- acknowledgements ----------------------------------------------------------------

    /// The SYN-ACK arrived: the first RTT sample, and the subflow may send.
    fn on_syn_ack<W: Window>(&mut self, ack: &Ack, now: Time, w: &mut W) -> AckOutcome {
        if self.phase != Phase::SynSent {
            return AckOutcome::Nothing; // a duplicate SYN-ACK
        }
        self.phase = Phase::Open;
        if !self.syn_resent || self.settings.timestamps {
            self.sample_rtt(ack.echo, now, ack.next, w);
        }
        self.stop_timer();
        if self.settings.syn_ack_grows {
            self.account(now, w);
            w.grow(1);
        }
        AckOutcome::Established
    }

    /// The RTT sample of acknowledgement `ack`, if it gives one: the segment it echoes (Karn's
    /// rule unless timestamps), or, timing one segment at a time, the timed one once covered.
    #[inline(always)]
    fn measure<W: Window>(&mut self, ack: &Ack, advanced: bool, now: Time, w: &mut W) {
        if self.rtt.times_one_segment() {
            if let Some(sent) = self.rtt.timed_acknowledged(ack.next) {
                self.sample_rtt(sent, now, ack.next, w);
            }
        } else if (advanced || self.settings.rtt_every_ack) && (!ack.echo_retransmitted || self.settings.timestamps) {
            self.sample_rtt(ack.echo, now, ack.next, w);
        }
    }

    #[inline(always)]
    fn sample_rtt<W: Window>(&mut self, sent: Time, now: Time, acked_to: u64, w: &mut W) {
        let new_min = self.rtt.sample_at(sent, now, self.snd_una, self.snd_max);
        let srtt = self.rtt.srtt().expect("sampled").as_secs_f64();
        w.rtt_sampled(srtt, new_min.then(|| (now - sent).as_secs_f64()));
        if self.settings.law_watches_slow_start {
            w.slow_start_sample(now - sent, acked_to, self.snd_nxt);
        }
        self.counters.srtt_sum += srtt;
        self.counters.rtt_samples += 1;
    }

    /// Acknowledgement `ack` arrived at `now`. The common case, new data acknowledged outside
    /// recovery, is handled here; the rest out of line, which keeps this path short
    /// (docs/performance.md, "Lessons").
    #[inline]
    pub fn on_ack<W: Window>(&mut self, ack: &Ack, now: Time, w: &mut W) -> AckOutcome {
        if ack.next == SYN_SEQ {
            return self.on_syn_ack(ack, now, w);
        }
        if self.board.is_some() {
            return self.on_sack_ack(ack, now, w);
        }
        if ack.next > self.snd_una {
            let newly = ack.next - self.snd_una;
            self.measure(ack, true, now, w);
            self.forget_acked(newly);
            self.snd_una = ack.next;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.counters.acked += newly;
            w.acked(newly);
            self.account(now, w);
            if self.phase == Phase::Recovery {
                if let Some(outcome) = self.on_recovery_ack(ack.next, newly, w) {
                    return outcome;
                }
            } else {
                if self.phase == Phase::Loss && self.recover.get().is_some_and(|r| ack.next > r) {
                    self.phase = Phase::Open;
                }
                self.dupacks = 0;
                w.grow(if self.settings.per_ack { 1 } else { newly });
            }
            let timer = if self.outstanding() { TimerAction::Restart } else { TimerAction::Stop };
            AckOutcome::Send(timer)
        } else if ack.next == self.snd_una && self.outstanding() {
            self.measure(ack, false, now, w);
            self.on_duplicate(ack.next, now, w)
        } else {
            AckOutcome::Nothing
        }
    }

    /// Forgets the mapping of segments now acknowledged (below `snd_una`).
    #[inline]
    fn forget_acked(&mut self, newly: u64) {
        if let Some(map) = &mut self.data_seqs {
            map.forget_oldest(newly as usize);
        }
    }

    /// Without SACK, new data acknowledged during fast recovery. A full ACK ends recovery (the
    /// caller goes on as after any new ACK: `None`); a partial ACK is handled whole here.
    #[inline(never)]
    fn on_recovery_ack<W: Window>(&mut self, ack: u64, newly: u64, w: &mut W) -> Option<AckOutcome> {
        if self.recover.get().is_some_and(|rec| ack > rec) {
            // RFC 6582 step 3, full ACK: deflate and leave recovery.
            self.phase = Phase::Open;
            w.set_inflated(false);
            self.deflate(w);
            self.dupacks = 0;
            return None;
        }
        // Partial ACK: retransmit the next hole and re-arm the timer on the first partial ACK
        // only. NewReno deflates by what was acked and adds back one segment; PRR counts what
        // was delivered (the segments acked minus those duplicates already counted) and sends
        // its share.
        let first = !self.partial_seen;
        self.partial_seen = true;
        let delivered = newly.saturating_sub(self.prr.sacked).max(1);
        self.prr.sacked = 0;
        if self.settings.recovery == Recovery::NewReno {
            w.set_cwnd((w.cwnd() - newly as f64 + 1.0).max(1.0));
        } else {
            // The hole goes out before PRR's share: count it in prr_out first. The partial
            // ACK marks that hole lost, so it is no progress without loss.
            self.prr_window(delivered, 1, false, None, w);
        }
        let restart = first || self.settings.partial_ack_timer == PartialAckTimer::SlowButSteady;
        let timer = if restart { TimerAction::Restart } else { TimerAction::Keep };
        Some(AckOutcome::Retransmit(self.snd_una, timer))
    }

    /// Without SACK, the window on leaving fast recovery by a full ACK or a timeout.
    fn deflate<W: Window>(&self, w: &mut W) {
        let cwnd = match self.settings.full_ack {
            FullAck::Ssthresh => w.ssthresh(),
            FullAck::Flight => w.ssthresh().min((self.in_flight() + 1) as f64),
        };
        w.set_cwnd(cwnd);
    }

    /// RFC 6937 on an ACK in recovery that delivered `delivered` segments, before `pending`
    /// more are sent regardless: the window becomes what is in flight (the pipe) plus what PRR
    /// allows now. `progress`: the ACK advanced the cumulative ACK and marked nothing lost.
    /// `board`: the scoreboard, with SACK.
    fn prr_window<W: Window>(&mut self, delivered: u64, pending: u64, progress: bool, board: Option<&Scoreboard>, w: &mut W) {
        let extra = (progress || !self.settings.prr_extra_on_progress_only) as i64;
        let ssthresh = w.ssthresh();
        let in_flight = self.in_flight();
        let prr = &mut self.prr;
        prr.delivered += delivered;
        let out = prr.out + pending;
        // The pipe PRR compares with ssthresh, and what the window is counted from: without
        // SACK every segment in flight (duplicates' holdings too, and resending a hole does not
        // add to it) less the holdings for the pipe; with SACK a resent segment joins the pipe.
        let (pipe, base) = match board {
            Some(b) => (b.pipe(), b.pipe() + pending),
            None => (in_flight.saturating_sub(prr.sacked), in_flight),
        };
        let allowed = if pipe as f64 > ssthresh {
            // Proportional: sndcnt = ceil(prr_delivered · ssthresh / RecoverFS) − prr_out.
            (prr.delivered as f64 * ssthresh / prr.recover_fs.max(1) as f64).ceil() as i64 - out as i64
        } else {
            // Slow-start reduction bound: back up to ssthresh, at most one more than delivered.
            let bound = (prr.delivered as i64 - out as i64).max(delivered as i64) + extra;
            ((ssthresh - pipe as f64) as i64).min(bound)
        };
        w.set_cwnd((base + allowed.max(0) as u64) as f64);
    }

    /// Without SACK, a duplicate acknowledgement (of segment `ack`, with data outstanding).
    #[inline(never)]
    fn on_duplicate<W: Window>(&mut self, ack: u64, now: Time, w: &mut W) -> AckOutcome {
        self.dupacks += 1;
        self.counters.duplicate_acks += 1;
        let send = AckOutcome::Send(TimerAction::Keep);
        if self.phase == Phase::Recovery {
            self.prr.sacked += 1;
            self.account(now, w);
            if self.settings.recovery.inflates_window() {
                // RFC 6582 step 4: inflate by one segment per further duplicate.
                w.set_cwnd(w.cwnd() + 1.0);
            } else {
                self.prr_window(1, 0, false, None, w);
            }
            send
        } else if self.dupacks == 3 && self.may_enter_recovery(ack) {
            // RFC 6582 step 2: fast retransmit, then fast recovery.
            self.recover = SeqMark::at(self.snd_max - 1);
            self.rtt.stop_timing();
            self.partial_seen = false;
            self.counters.fast_retransmits += 1;
            self.account(now, w);
            let ssthresh = self.loss_event(w);
            self.phase = Phase::Recovery;
            let inflates = self.settings.recovery.inflates_window();
            w.set_inflated(inflates);
            // RFC 6937: RecoverFS is what was in flight; the three duplicates are the
            // receiver's out-of-order holdings.
            self.prr = PrrState { delivered: 0, out: 0, recover_fs: self.in_flight(), sacked: 3 };
            if inflates {
                w.set_cwnd(ssthresh + 3.0);
            } else {
                self.prr_window(1, 1, false, None, w);
            }
            if self.settings.fast_retransmit_alone {
                return AckOutcome::RetransmitAlone(self.snd_una);
            }
            AckOutcome::Retransmit(self.snd_una, TimerAction::Keep)
        } else {
            AckOutcome::Nothing
        }
    }

    // ----- with SACK -----------------------------------------------------------------------

    /// Runs `f` with the scoreboard lent out of the sender, if it has one (the SACK half of
    /// the machine takes it as an argument, so no path needs the board and finds none).
    /// While lent, `self.board` is empty: `f` reads the board it is given, never `self`'s.
    #[inline(always)]
    fn with_board<R>(&mut self, f: impl FnOnce(&mut Self, &mut Scoreboard) -> R) -> Option<R> {
        let mut board = self.board.take()?;
        let result = f(self, &mut board);
        self.board = Some(board);
        Some(result)
    }

    /// An acknowledgement with SACK (out of line, so that the path without it stays short).
    #[inline(never)]
    fn on_sack_ack<W: Window>(&mut self, ack: &Ack, now: Time, w: &mut W) -> AckOutcome {
        self.with_board(|s, board| s.on_ack_to_board(board, ack, now, w)).unwrap_or(AckOutcome::Nothing)
    }

    /// An acknowledgement with SACK: the scoreboard learns what arrived, RFC 6675 (and RACK)
    /// mark what is lost, and recovery begins, continues or ends.
    #[inline(always)]
    fn on_ack_to_board<W: Window>(&mut self, board: &mut Scoreboard, ack: &Ack, now: Time, w: &mut W) -> AckOutcome {
        let advanced = ack.next > self.snd_una;
        if ack.next < self.snd_una || (!advanced && ack.sack[0].1 == 0 && !self.outstanding()) {
            return AckOutcome::Nothing;
        }
        self.measure(ack, advanced, now, w);
        let min_rtt = self.rtt.min_rtt().unwrap_or(Time::ZERO);
        let losses_before = board.losses_marked();
        let mut delivered = board.acked_to(ack.next, now, min_rtt);
        // ns-2 goes back N after a timeout, its SACK information forgotten, and takes no
        // fast retransmit before the ACK passes what was sent then (tcp-sack1.cc).
        let ns2_loss = self.phase == Phase::Loss && self.settings.recovery == Recovery::Ns2;
        if ack.sack[0].1 != 0 && !ns2_loss {
            board.sack(ack.blocks(), now, min_rtt, &mut delivered);
        }
        board.mark_dupthresh_losses();
        let newly = ack.next - self.snd_una;
        if advanced {
            self.forget_acked(newly);
            self.snd_una = ack.next;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.counters.acked += newly;
            w.acked(newly);
            self.dupacks = 0;
        } else {
            self.dupacks += 1;
            self.counters.duplicate_acks += 1;
        }
        self.account(now, w);
        let reorder_before = self.reorder_at;
        if self.settings.rack {
            self.rack_detect(board, now, false);
        }
        let timer = if advanced {
            if self.outstanding() { TimerAction::Restart } else { TimerAction::Stop }
        } else if self.reorder_at < reorder_before {
            TimerAction::Wake
        } else {
            TimerAction::Keep
        };
        if self.probe_end.get().is_some_and(|end| ack.next >= end) {
            // RFC 8985 §7.4: the probe's episode is over. If it resent a segment and the
            // sender never entered recovery, the probe repaired a loss: reduce the window.
            self.probe_end = SeqMark::NONE;
            if self.probe_resent && self.phase == Phase::Open {
                let ssthresh = self.loss_event(w);
                w.set_cwnd(ssthresh);
                return AckOutcome::Send(timer);
            }
        }
        match self.phase {
            Phase::Recovery if self.recover.get().is_some_and(|r| ack.next > r) => {
                self.phase = Phase::Open;
                w.set_inflated(false);
                // ns-2 keeps the window its recovery began with (unrounded; ssthresh may be
                // rounded down).
                if self.settings.recovery != Recovery::Ns2 {
                    w.set_cwnd(w.ssthresh());
                }
            }
            Phase::Recovery => match self.settings.recovery {
                Recovery::Prr => {
                    let lost = board.losses_marked() > losses_before;
                    self.prr_window(delivered.segments, 0, advanced && !lost, Some(board), w)
                }
                Recovery::NewReno => w.set_cwnd(w.ssthresh()),
                Recovery::Ns2 => {
                    // tcp-sack1.cc: one less per ACK, one more for a partial ACK, which also
                    // ends the timer's backoff.
                    self.ns2_pipe -= 1 + advanced as i64;
                    if advanced {
                        self.rtt.end_backoff();
                    }
                    board.mark_holes_below_highest_sacked();
                }
            },
            Phase::Loss | Phase::Open | Phase::SynSent => {
                if self.phase == Phase::Loss && self.recover.get().is_some_and(|r| ack.next > r + ns2_loss as u64) {
                    self.phase = Phase::Open;
                }
                if self.phase == Phase::Open && self.enter_recovery_if_lost(board, w, now) {
                    if let Some(seq) = board.next_to_resend() {
                        return AckOutcome::Retransmit(seq, timer);
                    }
                } else if advanced {
                    w.grow(if self.settings.per_ack { 1 } else { newly });
                }
            }
        }
        AckOutcome::Send(timer)
    }

    /// RACK's loss detection (RFC 8985 §6.2), with the reordering window of Linux's
    /// `tcp_rack_reo_wnd` for a network that never reorders: a quarter of the minimum RTT
    /// until recovery begins or DupThresh segments are SACKed, then zero. Returns whether
    /// segments are waiting to be resent; arms the reorder timer for those not yet due.
    fn rack_detect(&mut self, board: &mut Scoreboard, now: Time, force: bool) -> bool {
        let min_rtt = self.rtt.min_rtt().unwrap_or(Time::ZERO);
        let reo_wnd = if self.phase == Phase::Recovery || board.sacked() >= crate::scoreboard::DUP_THRESH {
            Time::ZERO
        } else {
            Time(min_rtt.as_ps() / 4)
        };
        let next = board.rack_detect(now, reo_wnd, force);
        if next != Time::NEVER || force {
            self.reorder_at = next;
        }
        board.to_resend() > 0
    }

    /// With SACK, in the open state: if segments are marked lost, enter recovery (RFC 6675
    /// §5 step 4, RFC 6937). Returns whether it did.
    /// The test runs on every ACK in the open state and is inlined; entering recovery, rare,
    /// is not.
    #[inline(always)]
    fn enter_recovery_if_lost<W: Window>(&mut self, board: &mut Scoreboard, w: &mut W, now: Time) -> bool {
        if self.phase != Phase::Open || board.to_resend() == 0 || !self.may_enter_recovery(self.snd_una) {
            return false;
        }
        self.enter_sack_recovery(board, w, now);
        true
    }

    /// RFC 6675 §5 step 4: a loss event, then recovery.
    #[inline(never)]
    fn enter_sack_recovery<W: Window>(&mut self, board: &mut Scoreboard, w: &mut W, now: Time) {
        let pipe = board.pipe();
        self.recover = SeqMark::at(self.snd_max - 1);
        self.rtt.stop_timing();
        self.counters.fast_retransmits += 1;
        self.account(now, w);
        let decreased = self.decrease(w);
        self.phase = Phase::Recovery;
        self.prr = PrrState { delivered: 0, out: 0, recover_fs: pipe, sacked: 0 };
        match self.settings.recovery {
            // The first retransmission goes out whatever the window (RFC 6675 step 4.3).
            Recovery::Prr => self.prr_window(0, 1, false, Some(board), w),
            Recovery::NewReno => w.set_cwnd(w.ssthresh()),
            Recovery::Ns2 => {
                // tcp.cc `slowdown`: cwnd_ is the window less the decrease, below
                // min_ssthresh too; ssthresh_, an int of at least 2, is rounded down.
                w.set_cwnd(decreased);
                // tcp-sack1.cc: `pipe_ = maxseq_ - highest_ack_ - 3`, and the first
                // retransmission is not counted in it (the send below adds one).
                self.ns2_pipe = (self.snd_max - self.snd_una) as i64 - 3 - 1;
                board.mark_holes_below_highest_sacked();
            }
        }
    }
}

/// The sequence number a SYN and its SYN-ACK carry (a handshake packet, not a data segment).
pub const SYN_SEQ: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seq_mark_holds_any_segment_or_none_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<SeqMark>(), 8);
        assert_eq!(SeqMark::NONE.get(), None);
        for seq in [0, 1, 41, u64::MAX - 1] {
            assert_eq!(SeqMark::at(seq).get(), Some(seq));
        }
    }
}
