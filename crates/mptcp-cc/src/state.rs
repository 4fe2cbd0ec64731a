//! The per-subflow state that window laws read.

/// What a window law may know about one subflow. The transport owns it and keeps it current;
/// controllers read every subflow of a connection and, by convention, write none (the
/// transport applies the increase or decrease they return).
#[derive(Clone, Debug, PartialEq)]
pub struct SubflowState {
    /// Congestion window `w_r`, packets; fractional, since laws grow it by fractions per ACK.
    pub cwnd: f64,
    /// Slow-start threshold, packets; at or above it the subflow is in congestion avoidance,
    /// where the window law applies.
    pub ssthresh: f64,
    /// Smoothed round-trip time, seconds; 0 before the first sample.
    pub srtt: f64,
    /// Smallest round-trip time seen, seconds; 0 before the first sample.
    pub min_rtt: f64,
    /// Whether fast recovery inflates `cwnd` now (a segment per duplicate ACK, as NewReno's and
    /// ns-2's do). The window the subflow returns to is then `ssthresh`, and that is what the
    /// sums over a connection's subflows count ([`SubflowState::window`]), as htsim's
    /// `effective_window` does: an inflated window measures duplicate ACKs, not the path.
    pub inflated: bool,
    /// Packets acknowledged since the subflow started (a running total for observers; no law
    /// reads it).
    pub acked: u64,
    /// Loss events (fast retransmits and timeouts) so far.
    pub loss_events: u64,
    /// Packets acknowledged between the last two loss events (OLIA's `l1`; 0 before the
    /// second loss).
    pub acked_between_losses: u64,
    /// Packets acknowledged since the last loss event (OLIA's `l2`).
    pub acked_since_loss: u64,
}

impl SubflowState {
    /// A subflow at the start of a connection.
    pub fn new(cwnd: f64, ssthresh: f64) -> SubflowState {
        SubflowState {
            cwnd,
            ssthresh,
            srtt: 0.0,
            min_rtt: 0.0,
            inflated: false,
            acked: 0,
            loss_events: 0,
            acked_between_losses: 0,
            acked_since_loss: 0,
        }
    }

    /// A subflow with window `cwnd` and smoothed RTT `srtt` seconds (for tests and fluid models).
    pub fn with_window(cwnd: f64, srtt: f64) -> SubflowState {
        SubflowState { srtt, min_rtt: srtt, ..SubflowState::new(cwnd, f64::INFINITY) }
    }

    /// Whether the subflow has an RTT estimate; subflows without one take no part in the
    /// coupling sums (they are not yet established, as far as a window law can tell).
    pub fn measured(&self) -> bool {
        self.srtt > 0.0
    }

    /// Sending rate `w/τ`, packets per second (0 before the first RTT sample).
    pub fn rate(&self) -> f64 {
        if self.measured() { self.window() / self.srtt } else { 0.0 }
    }

    /// The window the sums over subflows count: `cwnd`, or `ssthresh` while fast recovery
    /// inflates `cwnd`.
    #[inline]
    pub fn window(&self) -> f64 {
        if self.inflated { self.ssthresh } else { self.cwnd }
    }

    /// OLIA's `l_r = max(l1, l2)`, packets.
    pub fn inter_loss(&self) -> u64 {
        self.acked_between_losses.max(self.acked_since_loss)
    }

    /// Records `n` newly acknowledged packets.
    pub fn record_acked(&mut self, n: u64) {
        self.acked += n;
        self.acked_since_loss += n;
    }

    /// Records a loss event: counts it and rolls OLIA's `l2` (acknowledged since the last
    /// loss) into `l1` (between the last two).
    pub fn record_loss(&mut self) {
        self.loss_events += 1;
        self.acked_between_losses = self.acked_since_loss;
        self.acked_since_loss = 0;
    }
}
