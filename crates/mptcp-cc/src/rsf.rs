//! Rent-seeking multipath (seed 003): delay-balanced RSF-DB (eq. 1) and loss-balanced RSF-LB
//! (eq. 2).
//!
//! The paper leaves its estimators open; the choices here:
//! - `q_r`, the queueing plus service delay of path r: smoothed RTT minus minimum RTT (zero on
//!   an idle path, so the law reduces to Reno without queueing);
//! - `λ_r = w_r/τ_r`, packets per second;
//! - `l_r`, the path's loss probability: `1/l_r` with OLIA's `l_r = max(l1, l2)` in packets
//!   (no loss yet and nothing acknowledged: no loss, so Reno's increase).
//!
//! The "increase" is negative when the target is exceeded; the transport keeps `w_r ≥ 1`.

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::reno_increase;

/// `(1/w_r) · min(1, ratio)`, with a ratio of +∞ when its denominator is 0.
fn rent_seeking(s: &[SubflowState], r: usize, target: f64, observed: f64) -> f64 {
    let ratio = if observed > 0.0 { (target - observed) / observed } else { f64::INFINITY };
    reno_increase(s, r) * ratio.min(1.0)
}

/// RSF-DB: `(1/w_r) · min(1, (d − q_r)/q_r)` per ACK, `w_r/2` per loss.
#[derive(Clone, Copy, Debug)]
pub struct RsfDb {
    /// Target delay `d`, seconds, compared with `q_r`: below it the subflow grows as Reno,
    /// above it the increase turns negative.
    pub d: f64,
}

impl RsfDb {
    fn queueing(s: &SubflowState) -> f64 {
        if s.measured() { (s.srtt - s.min_rtt).max(0.0) } else { 0.0 }
    }
}

impl CoupledController for RsfDb {
    fn name(&self) -> &'static str {
        "rsf-db"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        rent_seeking(s, r, self.d, Self::queueing(&s[r]))
    }
    fn internal_state(&self, s: &[SubflowState], r: usize) -> Option<f64> {
        Some(Self::queueing(&s[r]))
    }
}

/// RSF-LB: `(1/w_r) · min(1, (μ − λ_r l_r)/(λ_r l_r))` per ACK, `w_r/2` per loss.
#[derive(Clone, Copy, Debug)]
pub struct RsfLb {
    /// Target loss rate `μ`, packets per second.
    pub mu: f64,
}

impl RsfLb {
    /// `λ_r l_r`, the path's estimated loss rate, packets per second.
    fn loss_rate(s: &SubflowState) -> f64 {
        let l = s.inter_loss();
        if s.loss_events == 0 || l == 0 { 0.0 } else { s.rate() / l as f64 }
    }
}

impl CoupledController for RsfLb {
    fn name(&self) -> &'static str {
        "rsf-lb"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        rent_seeking(s, r, self.mu, Self::loss_rate(&s[r]))
    }
    fn internal_state(&self, s: &[SubflowState], r: usize) -> Option<f64> {
        Some(Self::loss_rate(&s[r]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::check;

    fn path(w: f64, srtt: f64, min_rtt: f64) -> SubflowState {
        SubflowState { min_rtt, ..SubflowState::with_window(w, srtt) }
    }

    #[test]
    fn delay_balanced_vector() {
        let law = RsfDb { d: 0.100 };
        check(law.increase(&[path(10.0, 0.150, 0.100)], 0), 0.1, "0.1"); // q = 50 ms
        check(law.increase(&[path(10.0, 0.250, 0.100)], 0), -1.0 / 30.0, "-0.0333"); // q = 150 ms
        check(law.increase(&[path(10.0, 0.100, 0.100)], 0), 0.1, "0.1"); // no queueing: Reno
    }

    #[test]
    fn loss_balanced() {
        let law = RsfLb { mu: 4.0 };
        let mut s = path(10.0, 0.100, 0.100); // λ = 100 pkt/s
        check(law.increase(&[s.clone()], 0), 0.1, "0.1"); // no loss yet: Reno
        s.loss_events = 1;
        s.acked_since_loss = 50; // l = 1/50: λl = 2 pkt/s, ratio 1
        check(law.increase(&[s.clone()], 0), 0.1, "0.1");
        s.acked_since_loss = 10; // λl = 10 pkt/s: ratio −0.6
        check(law.increase(&[s], 0), -0.06, "-0.06");
    }
}
