//! Coupled (seed 000; Kelly and Voice), in its RTT-aware form.
//!
//! Not to be confused with seed 001's COUPLED (`a·w_r/W²`, which is `semicoupled-phi` at φ = 0)
//! nor with htsim's `FULLY_COUPLED` (`coupled-scalable` after its first change).

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::{reno_increase, total_rate};

/// `(w_r/τ_r²) / X²` per ACK, `w_r/2` per loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct Coupled;

/// The Kelly–Voice term `(w_r/τ_r²)/X²` shared by Coupled, OLIA and the generalized family.
pub fn kelly_voice(s: &[SubflowState], r: usize) -> f64 {
    let x = total_rate(s);
    s[r].cwnd / (s[r].srtt * s[r].srtt) / (x * x)
}

impl CoupledController for Coupled {
    fn name(&self) -> &'static str {
        "coupled"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        kelly_voice(s, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        // X = 1200 pkt/s: 100 000 / 1200², 2000 / 1200²
        check(Coupled.increase(&s, 0), 5.0 / 72.0, "0.069444");
        check(Coupled.increase(&s, 1), 1.0 / 720.0, "0.0013889");
    }
}
