//! The window-law seam: one object-safe trait, one boxed controller per connection.

use std::fmt::Debug;

use crate::state::SubflowState;

/// A congestion-avoidance window law over the subflows of one connection.
///
/// Loss detection, slow start, fast recovery and timeouts are the transport's; a controller
/// decides only how much a subflow's window grows per acknowledged packet in congestion
/// avoidance and how much it shrinks on a loss event. For the laws of the seeds both are pure
/// functions of the subflow states (so a fluid-model solver can use the same code); the
/// `on_loss` hook lets a stateful algorithm keep estimates between loss events. The transport
/// calls [`grow`](Self::grow), once per acknowledgement (the one virtual call it makes there):
/// by default the increase times the packets acknowledged; CUBIC, whose growth depends on the
/// time since its last loss, overrides it.
pub trait CoupledController: Debug + Send {
    /// The configuration name (`"reno"`, `"lia"`, …).
    fn name(&self) -> &'static str;

    /// Growth of `w_r`, packets, per packet newly acknowledged on subflow `r` in congestion
    /// avoidance.
    fn increase(&self, subflows: &[SubflowState], r: usize) -> f64;

    /// Growth of `w_r`, packets, for `newly` packets acknowledged on subflow `r` in congestion
    /// avoidance at time `now_ps` (picoseconds, the transport's clock, converted only by a law
    /// that reads it): what the transport applies.
    #[inline]
    fn grow(&mut self, subflows: &[SubflowState], r: usize, newly: u64, now_ps: u64) -> f64 {
        let _ = now_ps;
        // (`newly` is far below 2^63: converting through i64 is one instruction.)
        newly as i64 as f64 * self.increase(subflows, r)
    }

    /// [`increase`](Self::increase) as it stands at a fixed point of the law's fluid model,
    /// where that differs: a term that switches with the states (OLIA's α) takes there the
    /// value the fixed points force on it, so an equilibrium solver can balance the law
    /// without the switch. By default the increase itself.
    fn increase_at_rest(&self, subflows: &[SubflowState], r: usize) -> f64 {
        self.increase(subflows, r)
    }

    /// Reduction of `w_r`, packets, on a loss event on subflow `r` (the new slow-start threshold
    /// is `w_r` minus this, floored by the transport). By default TCP's: halve `w_r`, which
    /// most coupled laws keep unchanged.
    fn decrease(&self, subflows: &[SubflowState], r: usize) -> f64 {
        subflows[r].cwnd / 2.0
    }

    /// Called on a loss event on subflow `r`, before the decrease is applied.
    fn on_loss(&mut self, _subflows: &[SubflowState], _r: usize) {}

    /// Whether the law takes part in slow start through
    /// [`slow_start_sample`](Self::slow_start_sample): asked once per connection, so that the
    /// laws that do not cost nothing there.
    fn watches_slow_start(&self) -> bool {
        false
    }

    /// An RTT sample of an acknowledgement while subflow `r` is in slow start (its window below
    /// ssthresh; its minimum RTT already updated): whether to leave slow start now, which the
    /// transport does by setting ssthresh to the window (CUBIC's HyStart).
    fn slow_start_sample(&mut self, _subflows: &[SubflowState], _r: usize, _sample: SlowStartSample) -> bool {
        false
    }

    /// The algorithm's internal state for subflow `r`, if it has one worth recording (OLIA's α,
    /// an adaptive `a`); recorded in the time series.
    fn internal_state(&self, _subflows: &[SubflowState], _r: usize) -> Option<f64> {
        None
    }
}

/// What an acknowledgement in slow start tells a law that watches it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlowStartSample {
    /// The RTT it measured, seconds.
    pub rtt: f64,
    /// When it arrived, picoseconds (the transport's clock).
    pub now_ps: u64,
    /// What it acknowledges: the first sequence number not yet acknowledged, segments.
    pub snd_una: u64,
    /// The next new sequence number the sender will send, segments.
    pub snd_nxt: u64,
}
