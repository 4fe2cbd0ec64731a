//! The sending side of one subflow: NewReno loss recovery (RFC 5681, RFC 6582) and the
//! retransmission timer (RFC 6298). The window law is not here: the connection asks its
//! controller for every increase and decrease.

use sim_core::{RouteId, Time};

use crate::rtt::RttEstimator;

/// Counters of one subflow's sender; a snapshot at the end of the warm-up is subtracted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderCounters {
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Data segments sent again.
    pub retransmitted: u64,
    /// Segments newly acknowledged.
    pub acked: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Integral of cwnd over time, packet·seconds.
    pub cwnd_seconds: f64,
    /// Sum of the smoothed RTT after each RTT sample, seconds.
    pub srtt_sum: f64,
    /// Number of RTT samples.
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
            timeouts: self.timeouts - earlier.timeouts,
            cwnd_seconds: self.cwnd_seconds - earlier.cwnd_seconds,
            srtt_sum: self.srtt_sum - earlier.srtt_sum,
            rtt_samples: self.rtt_samples - earlier.rtt_samples,
            relative_drop_sum: self.relative_drop_sum - earlier.relative_drop_sum,
            relative_drops: self.relative_drops - earlier.relative_drops,
        }
    }
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
    /// Segments known to have arrived above `snd_una` (one per duplicate ACK since it last
    /// moved): without SACK, the receiver's out-of-order holdings.
    pub sacked: u64,
}

/// Sequence state, recovery state and timer of one subflow's sender. Segment numbers count
/// packets from 0.
#[derive(Clone, Debug)]
pub struct SubflowSender {
    /// Route of this subflow's data packets.
    pub route: RouteId,
    /// Route of the acknowledgements back from the receiver.
    pub ack_route: RouteId,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send.
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub snd_max: u64,
    /// Data sequence number of every segment in `snd_una..snd_max`, oldest first; `None` on
    /// a connection with a single subflow, where the two sequences coincide.
    pub data_seqs: Option<std::collections::VecDeque<u64>>,
    /// RFC 6582 `recover`: highest segment sent when the last recovery or timeout began.
    pub recover: Option<u64>,
    /// Consecutive duplicate acknowledgements.
    pub dupacks: u32,
    /// Whether the first partial ACK of this recovery has been seen (it re-arms the timer).
    pub partial_seen: bool,
    /// The RFC 6298 estimator.
    pub rtt: RttEstimator,
    /// When the retransmission timer expires (`Time::NEVER` when stopped).
    pub rto_deadline: Time,
    /// Time of this sender's pending timer event (`Time::NEVER` if none); an event at any
    /// other time is stale.
    pub rto_event: Time,
    /// Running counters.
    pub counters: SenderCounters,
    /// When cwnd last changed (for its time integral).
    pub cwnd_since: Time,
    /// Proportional rate reduction's counters (used with `recovery = "prr"`).
    pub prr: PrrState,
}

impl SubflowSender {
    /// A sender with nothing sent, using `route` for data and `ack_route` for ACKs.
    pub fn new(route: RouteId, ack_route: RouteId, multipath: bool, rtt: RttEstimator) -> Self {
        SubflowSender {
            route,
            ack_route,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_seqs: multipath.then(std::collections::VecDeque::new),
            recover: None,
            dupacks: 0,
            partial_seen: false,
            rtt,
            rto_deadline: Time::NEVER,
            rto_event: Time::NEVER,
            counters: SenderCounters::default(),
            cwnd_since: Time::ZERO,
            prr: PrrState::default(),
        }
    }

    /// The data sequence number carried by subflow segment `seq` (sent before).
    #[inline]
    pub fn data_seq(&self, seq: u64) -> u64 {
        match &self.data_seqs {
            None => seq,
            Some(map) => map[(seq - self.snd_una) as usize],
        }
    }

    /// Forgets the mapping of segments now acknowledged (below `snd_una`).
    #[inline]
    pub fn forget_acked(&mut self, newly: u64) {
        if let Some(map) = &mut self.data_seqs {
            map.drain(..newly as usize);
        }
    }

    /// Segments sent and not yet acknowledged.
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una)
    }

    /// Whether any sent data is unacknowledged.
    #[inline]
    pub fn outstanding(&self) -> bool {
        self.snd_una < self.snd_max
    }

    /// RFC 6582 step 2: fast retransmit only if the ACK covers more than `recover` (no
    /// re-entry for duplicate ACKs of data sent before the last recovery or timeout).
    pub fn may_enter_recovery(&self, ack: u64) -> bool {
        self.recover.is_none_or(|r| ack > r)
    }

    /// Arms the retransmission timer to expire `timeout()` after `now`. Returns the time of a
    /// timer event to schedule, if the pending one (if any) would fire too late.
    #[inline]
    pub fn arm_timer(&mut self, now: Time) -> Option<Time> {
        self.rto_deadline = now + self.rtt.timeout();
        if self.rto_event <= self.rto_deadline {
            // An earlier wake-up is pending; it will re-arm for the deadline when it fires.
            return None;
        }
        self.rto_event = self.rto_deadline;
        Some(self.rto_deadline)
    }

    /// Stops the retransmission timer (its pending wake-up becomes a no-op).
    #[inline]
    pub fn stop_timer(&mut self) {
        self.rto_deadline = Time::NEVER;
    }
}
