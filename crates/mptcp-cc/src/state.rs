//! The per-subflow state that window laws read.

/// What a window law may know about one subflow. The transport owns it and keeps it current;
/// controllers read every subflow of a connection and, by convention, write none (the
/// transport applies the increase or decrease they return).
#[derive(Clone, Debug, PartialEq)]
pub struct SubflowState {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
    /// Smoothed round-trip time, seconds; 0 before the first sample.
    pub srtt: f64,
    /// Smallest round-trip time seen, seconds; 0 before the first sample.
    pub min_rtt: f64,
    /// Whether the subflow is in fast recovery.
    pub in_recovery: bool,
    /// Segments acknowledged so far.
    pub acked: u64,
    /// Loss events (fast retransmits and timeouts) so far.
    pub loss_events: u64,
}

impl SubflowState {
    /// A subflow at the start of a connection.
    pub fn new(cwnd: f64, ssthresh: f64) -> SubflowState {
        SubflowState { cwnd, ssthresh, srtt: 0.0, min_rtt: 0.0, in_recovery: false, acked: 0, loss_events: 0 }
    }

    /// A subflow with window `cwnd` and smoothed RTT `srtt` seconds (for tests and fluid models).
    pub fn with_window(cwnd: f64, srtt: f64) -> SubflowState {
        SubflowState { srtt, min_rtt: srtt, ..SubflowState::new(cwnd, f64::INFINITY) }
    }

    /// Sending rate `w/τ`, packets per second (0 before the first RTT sample).
    pub fn rate(&self) -> f64 {
        if self.srtt > 0.0 { self.cwnd / self.srtt } else { 0.0 }
    }
}
