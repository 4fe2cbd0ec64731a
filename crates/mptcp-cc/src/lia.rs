//! LIA (RFC 6356) = RTT COMPENSATOR (seed 001 §5) = `max` of seed 000.

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::{max_window_over_rtt_squared, reno_increase, total_rate};

/// `min(max_k(w_k/τ_k²) / X², 1/w_r)` per ACK, `w_r/2` per loss.
///
/// The paper form, recomputed on every ACK. RFC 6356 refreshes the `alpha` factor only when a
/// window crosses an MSS boundary or on a loss (htsim's test of that crossing compares a
/// floating-point quotient with an integer one, so it refreshes on nearly every increase);
/// the Linux module counts ACKs in 1/4096 fixed point. Those differences change individual
/// increases by a fraction of a packet and are not modelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lia;

/// LIA's aggressiveness `a = W · max_k(w_k/τ_k²) / X²` (RFC 6356's alpha), the state recorded
/// in the time series.
pub fn lia_alpha(s: &[SubflowState]) -> f64 {
    let x = total_rate(s);
    crate::sums::total_window(s) * max_window_over_rtt_squared(s) / (x * x)
}

impl CoupledController for Lia {
    fn name(&self) -> &'static str {
        "lia"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        let x = total_rate(s);
        (max_window_over_rtt_squared(s) / (x * x)).min(reno_increase(s, r))
    }
    fn internal_state(&self, s: &[SubflowState], _r: usize) -> Option<f64> {
        Some(lia_alpha(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        check(Lia.increase(&s, 0), 5.0 / 72.0, "0.069444");
        check(Lia.increase(&s, 1), 0.05, "0.05");
    }

    #[test]
    fn a_window_inflated_by_fast_recovery_counts_as_its_ssthresh() {
        // Vector T with subflow 1 in NewReno's fast recovery: cwnd 20 + 40 duplicate ACKs.
        let mut s = t();
        s[1].ssthresh = 20.0;
        s[1].cwnd = 60.0;
        s[1].inflated = true;
        check(Lia.increase(&s, 0), 5.0 / 72.0, "0.069444");
        // Counted as it stands, the inflated window would slow subflow 0 down.
        s[1].inflated = false;
        assert!(Lia.increase(&s, 0) < 0.05, "{}", Lia.increase(&s, 0));
    }

    #[test]
    fn three_paths() {
        let s = [SubflowState::with_window(10.0, 0.010), SubflowState::with_window(20.0, 0.100), SubflowState::with_window(30.0, 0.050)];
        // max w/τ² = 100 000, X = 1800
        for r in 0..3 {
            check(Lia.increase(&s, r), 100_000.0 / 1800.0 / 1800.0, "0.030864");
        }
    }
}
