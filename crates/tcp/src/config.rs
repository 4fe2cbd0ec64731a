//! Transport settings shared by every flow unless a flow overrides them.

use sim_core::Time;

/// How a sender sends during fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 6582: window inflation by one per duplicate ACK. After a loss the sender is silent
    /// for half a window of duplicates, then sends one segment per duplicate, so its next
    /// windows travel as a clump.
    NewReno,
    /// RFC 6937 Proportional Rate Reduction (Linux's default): during recovery about
    /// `ssthresh/RecoverFS` segments per segment delivered, spread over the round trip, then
    /// slow-start reduction bound (PRR-SSRB) once the pipe is below ssthresh. Holes are
    /// retransmitted as in NewReno (partial ACKs).
    Prr,
}

impl Recovery {
    /// Every mode with its configuration name.
    pub const NAMES: [(&'static str, Recovery); 2] = [("newreno", Recovery::NewReno), ("prr", Recovery::Prr)];
}

/// TCP settings (the `[tcp]` table of a scenario).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Floor of the retransmission timeout (RFC 6298 (2.4) says 1 s; Linux 200 ms; htsim 250 ms).
    pub min_rto: Time,
    /// Ceiling of the retransmission timeout after backoff (RFC 6298 (2.5) allows ≥ 60 s).
    pub max_rto: Time,
    /// Timeout before the first RTT sample (RFC 6298 (2.1): 1 s).
    pub initial_rto: Time,
    /// Initial congestion window, packets.
    pub initial_cwnd: f64,
    /// Initial slow-start threshold, packets (`f64::INFINITY` for "inf").
    pub initial_ssthresh: f64,
    /// Smallest slow-start threshold after a loss, packets (RFC 5681: 2).
    pub min_ssthresh: f64,
    /// Acknowledge every second full segment instead of every segment (RFC 1122 §4.2.3.2).
    pub delayed_ack: bool,
    /// Longest a delayed acknowledgement waits.
    pub delayed_ack_timeout: Time,
    /// Sending during fast recovery.
    pub recovery: Recovery,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            min_rto: Time::from_ms(200),
            max_rto: Time::from_secs(60),
            initial_rto: Time::from_secs(1),
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            min_ssthresh: 2.0,
            delayed_ack: false,
            delayed_ack_timeout: Time::from_ms(40),
            recovery: Recovery::NewReno,
        }
    }
}
