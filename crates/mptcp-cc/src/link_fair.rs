//! LINK-FAIR (seed 001 appendix A): LIA's rule applied to every subset of paths.

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::reno_increase;

/// `min over subsets S ∋ r of max_{s∈S}(w_s/τ_s²) / (Σ_{s∈S} w_s/τ_s)²` per ACK, `w_r/2` per
/// loss. The subsets containing `r` are enumerated (2^(n−1) of them; n is small in practice,
/// and connections are limited to 16 subflows for this law).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkFair;

/// Most subflows `link-fair` accepts (its cost is exponential in the number of subflows).
pub const MAX_SUBFLOWS: usize = 16;

impl CoupledController for LinkFair {
    fn name(&self) -> &'static str {
        "link-fair"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        let others: Vec<usize> = (0..s.len()).filter(|&k| k != r && s[k].measured()).collect();
        let mut best = f64::INFINITY;
        for mask in 0u32..(1 << others.len()) {
            let (mut peak, mut sum) = (s[r].window() / (s[r].srtt * s[r].srtt), s[r].rate());
            for (bit, &k) in others.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    peak = peak.max(s[k].window() / (s[k].srtt * s[k].srtt));
                    sum += s[k].rate();
                }
            }
            best = best.min(peak / (sum * sum));
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        check(LinkFair.increase(&s, 0), 5.0 / 72.0, "0.069444");
        check(LinkFair.increase(&s, 1), 0.05, "0.05");
    }

    #[test]
    fn three_paths_differ_from_lia() {
        let s = [SubflowState::with_window(10.0, 0.010), SubflowState::with_window(20.0, 0.100), SubflowState::with_window(30.0, 0.050)];
        check(LinkFair.increase(&s, 0), 100_000.0 / 1800.0 / 1800.0, "0.030864");
        // {2, 3}: max(2000, 12 000) / (200 + 600)²
        check(LinkFair.increase(&s, 1), 12_000.0 / 800.0 / 800.0, "0.018750");
        check(LinkFair.increase(&s, 2), 12_000.0 / 800.0 / 800.0, "0.018750");
    }
}
