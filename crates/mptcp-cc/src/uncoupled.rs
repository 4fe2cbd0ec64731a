//! EWTCP / uncoupled (seeds 000, 001): a Reno-like law on each subflow, scaled by `a`.

use crate::controller::CoupledController;
use crate::state::SubflowState;

/// `a/w_r` per ACK, `w_r/2` per loss; `a = 1` is independent Reno per subflow, `a = 1/n²` is
/// fair at a shared bottleneck (seed 001 §2).
#[derive(Clone, Copy, Debug)]
pub struct Uncoupled {
    /// Increase scale `a > 0`: each subflow's window settles at `√a` times a single TCP's.
    pub a: f64,
}

impl CoupledController for Uncoupled {
    fn name(&self) -> &'static str {
        "uncoupled"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        self.a / s[r].cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        check(Uncoupled { a: 1.0 }.increase(&s, 0), 0.1, "0.1");
        check(Uncoupled { a: 1.0 }.increase(&s, 1), 0.05, "0.05");
    }
}
