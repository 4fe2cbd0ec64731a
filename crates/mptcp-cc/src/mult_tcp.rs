//! MultTCP(N) (seed 004 §II-B.4): one AIMD connection that emulates N TCPs.

use crate::controller::CoupledController;
use crate::state::SubflowState;

/// `+N/w` per ACK, `w·(1 − 1/(2N))` after a loss (a decrease of `w/(2N)`).
#[derive(Clone, Copy, Debug)]
pub struct MultTcp {
    /// The number of TCPs emulated (N ≥ 1).
    pub n: f64,
}

impl CoupledController for MultTcp {
    fn name(&self) -> &'static str {
        "mult-tcp"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        self.n / s[r].cwnd
    }
    fn decrease(&self, s: &[SubflowState], r: usize) -> f64 {
        s[r].cwnd / (2.0 * self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::check;

    #[test]
    fn n_tcps_in_one() {
        let s = [SubflowState::with_window(10.0, 0.010)];
        check(MultTcp { n: 4.0 }.increase(&s, 0), 0.4, "0.4");
        check(MultTcp { n: 4.0 }.decrease(&s, 0), 1.25, "1.25");
    }
}
