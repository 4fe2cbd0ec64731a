//! Semicoupled (seed 000, Peng's form): `1/(τ_r·X)` per ACK.

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::{reno_increase, total_rate};

/// `1/(τ_r · X)` per ACK, `w_r/2` per loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct Semicoupled;

impl CoupledController for Semicoupled {
    fn name(&self) -> &'static str {
        "semicoupled"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        1.0 / (s[r].srtt * total_rate(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        check(Semicoupled.increase(&s, 0), 1.0 / 12.0, "0.083333");
        check(Semicoupled.increase(&s, 1), 1.0 / 120.0, "0.0083333");
    }
}
