//! The closed forms of seed 004, for comparison with the engine and with packet-level runs.

/// Theorem 1: normalized time-average aggregate rate of `n` identical AIMD connections with
/// decrease factor `beta` under any ONE policy, `1 − 1/(1 + n(1+β)/(1−β))`.
pub fn theorem1(n: usize, beta: f64) -> f64 {
    1.0 - 1.0 / (1.0 + n as f64 * (1.0 + beta) / (1.0 - beta))
}

/// Eq. (6): normalized aggregate under ALL (synchronized), `(1+β)/2`, whatever `n`.
pub fn all(beta: f64) -> f64 {
    (1.0 + beta) / 2.0
}

/// §II-B.4: normalized throughput of one MultTCP(n) connection (TCP-like), `1 − 1/(4n)`.
pub fn mult_tcp(n: usize) -> f64 {
    1.0 - 1.0 / (4.0 * n as f64)
}

/// Theorem 2 as printed: `E[x_1²]/c²` for two identical connections with `β = 1/2`, by policy
/// name. The beatdown value printed (1/3) is wrong; see [`theorem2_beatdown_corrected`].
pub fn theorem2_printed(policy: &str) -> Option<f64> {
    match policy {
        "beatdown" => Some(1.0 / 3.0),
        "rate-independent" => Some(5.0 / 24.0),
        "rate-proportional" => Some(679.0 / 3396.0),
        "largest-rate" => Some(4.0 / 21.0),
        _ => None,
    }
}

/// The beatdown second moment for two identical connections with `β = 1/2`, redone.
///
/// The proof (Appendix B, step 1) integrates the tagged connection's rate over each interval
/// between cuts from its rate *before* the cut, `x(n)`, to `x(n+1) = 3x(n)/4`, instead of from
/// the rate after the cut, `x(n)/2`. With that slip the same computation of the mean gives
/// `E[X]/c = 1`, contradicting Theorem 3 (6/7). Integrating from `x(n)/2`: per tagging period of
/// length 2c/η̄ = c/η, the tagged connection contributes
/// `Σ (x(n)³/3)((3/4)³ − (1/2)³)/η = (19/192)·(64/37) = 19/111` (c = η = 1) and the other one,
/// ramping from 0 to c, `1/3`; each role is held half the time, so `E[x_1²]/c² = (19/111 +
/// 37/111)/2 = 28/111 ≈ 0.25225`. The same integration gives the mean: tagged `Σ x(n)²·(1/4)·
/// (1/2 + 3/4)/2 = 5/14`, other `1/2`, total `6/7`, as Theorem 3 requires.
pub fn theorem2_beatdown_corrected() -> f64 {
    28.0 / 111.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_headline_numbers() {
        // §I: three connections give 90 %, six almost 95 %; one gives 3/4.
        assert!((theorem1(1, 0.5) - 0.75).abs() < 1e-12);
        assert!((theorem1(3, 0.5) - 0.9).abs() < 1e-12);
        assert!((theorem1(6, 0.5) - 18.0 / 19.0).abs() < 1e-12);
        // MultTCP is within 2.5 % of N TCPs (§II-B.4).
        for n in 1..50 {
            let ratio = mult_tcp(n) / theorem1(n, 0.5);
            assert!((1.0..1.025).contains(&ratio), "{n}: {ratio}");
        }
        assert_eq!(all(0.5), 0.75);
    }
}
