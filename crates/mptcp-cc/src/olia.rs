//! OLIA (seed 002 §4, eqs. 3–6): the Kelly–Voice term plus `α_r/w_r`.

use crate::controller::CoupledController;
use crate::coupled::kelly_voice;
use crate::state::SubflowState;
use crate::sums::reno_increase;

/// `(w_r/τ_r²)/X² + α_r/w_r` per ACK, `w_r/2` per loss.
///
/// `l_r = max(l1_r, l2_r)` (packets acknowledged between the last two losses, and since the
/// last one); M = subflows with the largest window; B = subflows with the largest `l_r/τ_r²`.
/// If `B \ M ≠ ∅`: `α_r = 1/(n·|B\M|)` on `B \ M`, `−1/(n·|M|)` on M, 0 elsewhere; otherwise 0.
/// α is recomputed on every ACK from the current states (as the Linux module does). The
/// module's use of ssthresh for subflows in fast recovery is not modelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Olia;

/// OLIA's `α_r` (seed 002 eq. 6): positive on the best paths that lack the largest window,
/// negative on the largest windows, summing to 0; also the state recorded in the time series.
pub fn olia_alpha(s: &[SubflowState], r: usize) -> f64 {
    let n = s.len() as f64;
    let quality = |k: &SubflowState| if k.measured() { k.inter_loss() as f64 / (k.srtt * k.srtt) } else { 0.0 };
    let max_w = s.iter().map(SubflowState::window).fold(f64::MIN, f64::max);
    let max_q = s.iter().map(quality).fold(f64::MIN, f64::max);
    let in_m = |k: &SubflowState| k.window() == max_w;
    let in_b = |k: &SubflowState| quality(k) == max_q;
    let b_not_m = s.iter().filter(|k| in_b(k) && !in_m(k)).count();
    if b_not_m == 0 {
        return 0.0;
    }
    let m = s.iter().filter(|k| in_m(k)).count();
    if in_b(&s[r]) && !in_m(&s[r]) {
        1.0 / (n * b_not_m as f64)
    } else if in_m(&s[r]) {
        -1.0 / (n * m as f64)
    } else {
        0.0
    }
}

impl CoupledController for Olia {
    fn name(&self) -> &'static str {
        "olia"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        let at_rest = self.increase_at_rest(s, r);
        if s[r].measured() { at_rest + olia_alpha(s, r) / s[r].cwnd } else { at_rest }
    }
    /// The Kelly–Voice term alone: at every non-degenerate fixed point of OLIA's differential
    /// inclusion (seed 002 eqs. 8–9) `ᾱ_r = 0` on every path. Theorem 1 puts the flow's total
    /// at the best path's TCP rate, where the first term of eq. 15 vanishes on each used (best)
    /// path, so `ᾱ_r` must too; an unused path has `x_r = 0` and so `ᾱ_r = 0` as well. And 0 is
    /// in every set of eq. 9 that such a point can reach (a lone best path has the largest
    /// window). The fixed points are therefore those of this term alone.
    fn increase_at_rest(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        kelly_voice(s, r)
    }
    fn internal_state(&self, s: &[SubflowState], r: usize) -> Option<f64> {
        Some(olia_alpha(s, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t_with_b_1_and_m_2() {
        let mut s = t();
        // Subflow 1 is the best (largest l/τ²), subflow 2 has the largest window.
        s[0].acked_since_loss = 100;
        s[1].acked_since_loss = 100;
        assert_eq!((olia_alpha(&s, 0), olia_alpha(&s, 1)), (0.5, -0.5));
        check(Olia.increase(&s, 0), 5.0 / 72.0 + 0.05, "0.119444");
        check(Olia.increase(&s, 1), 1.0 / 720.0 - 0.025, "-0.023611");
    }

    #[test]
    fn at_rest_the_increase_is_the_kelly_voice_term_alone() {
        let mut s = t();
        s[0].acked_since_loss = 100;
        s[1].acked_since_loss = 100;
        check(Olia.increase_at_rest(&s, 0), 5.0 / 72.0, "0.069444");
        check(Olia.increase_at_rest(&s, 1), 1.0 / 720.0, "0.001389");
    }

    #[test]
    fn no_correction_when_the_best_path_has_the_largest_window() {
        let mut s = t();
        s[1].acked_since_loss = 1_000_000; // now subflow 2 is best and largest
        assert_eq!((olia_alpha(&s, 0), olia_alpha(&s, 1)), (0.0, 0.0));
    }
}
