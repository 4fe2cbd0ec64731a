//! Builders shared by the paper tests.

#![allow(dead_code)]

use fluid::{Flow, Subflow};
use mptcp_cc::{Algorithm, ParamValue};

/// Packets per second of `mbps` megabits per second in 1500-byte packets.
pub fn mbps(mbps: f64) -> f64 {
    mbps * 1e6 / (1500.0 * 8.0)
}

/// Megabits per second of `pps` packets per second of 1500 bytes.
pub fn to_mbps(pps: f64) -> f64 {
    pps * 1500.0 * 8.0 / 1e6
}

/// The algorithm `name` with numeric parameters.
pub fn law(name: &str, params: &[(&str, f64)]) -> Algorithm {
    let given: Vec<(String, ParamValue)> = params.iter().map(|(k, v)| (k.to_string(), ParamValue::Number(*v))).collect();
    Algorithm::from_params(name, &given).unwrap()
}

/// A flow running `algorithm` over `paths` (link lists), all with RTT `rtt`.
pub fn flow(name: &str, algorithm: &Algorithm, paths: &[&[usize]], rtt: f64) -> Flow {
    paths.iter().fold(Flow::with_algorithm(name, algorithm), |f, p| f.subflow(Subflow::with_rtt(p.to_vec(), rtt)))
}

/// Asserts `got` is within `tol` (relative) of `want`.
#[track_caller]
pub fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol * want.abs(), "{what}: got {got}, want {want} (tolerance {tol})");
}

/// The root of `f` in `[lo, hi]` by bisection (f changes sign there).
pub fn root(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let flo = f(lo);
    assert!(flo * f(hi) <= 0.0, "no sign change in [{lo}, {hi}]");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if (f(mid) > 0.0) == (flo > 0.0) { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}
