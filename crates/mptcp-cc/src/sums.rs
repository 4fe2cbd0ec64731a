//! Sums over a connection's subflows that most coupled laws share.

use crate::state::SubflowState;

/// `X = Σ w_k/τ_k` over measured subflows, packets per second.
pub fn total_rate(subflows: &[SubflowState]) -> f64 {
    subflows.iter().map(SubflowState::rate).sum()
}

/// `W = Σ w_k` over every subflow, packets.
pub fn total_window(subflows: &[SubflowState]) -> f64 {
    subflows.iter().map(SubflowState::window).sum()
}

/// `max_k w_k/τ_k²` over measured subflows.
pub fn max_window_over_rtt_squared(subflows: &[SubflowState]) -> f64 {
    subflows.iter().filter(|s| s.measured()).map(|s| s.window() / (s.srtt * s.srtt)).fold(0.0, f64::max)
}

/// `x_max = max_k w_k/τ_k`.
pub fn max_rate(subflows: &[SubflowState]) -> f64 {
    subflows.iter().map(SubflowState::rate).fold(0.0, f64::max)
}

/// Reno's increase `1/w_r`: what every coupled law falls back to for a subflow without an
/// RTT estimate, and the per-subflow cap some of them apply.
pub fn reno_increase(subflows: &[SubflowState], r: usize) -> f64 {
    1.0 / subflows[r].cwnd
}

#[cfg(test)]
pub(crate) mod vectors {
    use crate::state::SubflowState;

    /// docs/spec/ALGORITHMS.md's test vector T: `w = (10, 20)`, `τ = (10 ms, 100 ms)`.
    pub fn t() -> Vec<SubflowState> {
        vec![SubflowState::with_window(10.0, 0.010), SubflowState::with_window(20.0, 0.100)]
    }

    /// Asserts `got` equals the exact value `want` to 1e-9 relative, and that it rounds to
    /// `printed`, the value as docs/spec/ALGORITHMS.md prints it.
    pub fn check(got: f64, want: f64, printed: &str) {
        assert!((got - want).abs() <= 1e-9 * want.abs(), "got {got}, exact value {want}");
        let digits = printed.split('.').nth(1).map_or(0, str::len) as i32;
        let p: f64 = printed.parse().expect("a number");
        assert!((got - p).abs() <= 0.5 * 10f64.powi(-digits) + 1e-15, "got {got}, printed {printed}");
    }
}
