//! SEMICOUPLED(φ) (seed 001 §4) and COUPLED SCALABLE (seed 001 §2).

use crate::controller::CoupledController;
use crate::state::SubflowState;
use crate::sums::{reno_increase, total_rate, total_window};

/// The aggressiveness `a` of SEMICOUPLED(φ): fixed, or adapted for RTT compensation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Aggressiveness {
    /// A constant (the §4 experiments use 1).
    Fixed(f64),
    /// htsim's ε-family adaptation, so that the flow gets what one TCP would on its best path:
    /// `a = W · (max_r w_r^(φ/2)/τ_r)^(1/(1−φ/2)) / X^(1/(1−φ/2))`, for `0 ≤ φ < 2`.
    /// At φ = 1 this is LIA's alpha.
    Adaptive,
}

/// `a^(2−φ) · w_r^(1−φ) / W^(2−φ)` per ACK, `w_r/b` per loss. φ = 0 is seed 001's COUPLED
/// (with `a` squared), φ = 1 its SEMICOUPLED, φ = 2 uncoupled Reno scaled by `a`.
#[derive(Clone, Copy, Debug)]
pub struct SemicoupledPhi {
    /// φ ∈ [0, 2]: how strongly a subflow's increase depends on its own window (`w_r^(1−φ)`)
    /// rather than on the total `W`; low φ pools resources, high φ avoids flappiness.
    pub phi: f64,
    /// The aggressiveness `a`, which scales the increase by `a^(2−φ)`.
    pub a: Aggressiveness,
    /// Decrease divisor (2 mimics TCP).
    pub b: f64,
}

impl SemicoupledPhi {
    /// The value of `a` now.
    pub fn aggressiveness(&self, s: &[SubflowState]) -> f64 {
        match self.a {
            Aggressiveness::Fixed(a) => a,
            Aggressiveness::Adaptive => {
                let e = 1.0 / (1.0 - self.phi / 2.0);
                let peak = s.iter().filter(|k| k.measured()).map(|k| k.window().powf(self.phi / 2.0) / k.srtt).fold(0.0, f64::max);
                let x = total_rate(s);
                if x > 0.0 { total_window(s) * peak.powf(e) / x.powf(e) } else { 1.0 }
            }
        }
    }
}

impl CoupledController for SemicoupledPhi {
    fn name(&self) -> &'static str {
        "semicoupled-phi"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if self.a == Aggressiveness::Adaptive && !s[r].measured() {
            return reno_increase(s, r);
        }
        let a = self.aggressiveness(s);
        a.powf(2.0 - self.phi) * s[r].cwnd.powf(1.0 - self.phi) / total_window(s).powf(2.0 - self.phi)
    }
    fn decrease(&self, s: &[SubflowState], r: usize) -> f64 {
        s[r].cwnd / self.b
    }
    fn internal_state(&self, s: &[SubflowState], _r: usize) -> Option<f64> {
        (self.a == Aggressiveness::Adaptive).then(|| self.aggressiveness(s))
    }
}

/// COUPLED SCALABLE: `+a` per ACK, `W/b` per loss (truncated at the window floor).
#[derive(Clone, Copy, Debug)]
pub struct CoupledScalable {
    /// Increase per ACK, packets.
    pub a: f64,
    /// Decrease divisor of the total window.
    pub b: f64,
}

impl CoupledController for CoupledScalable {
    fn name(&self) -> &'static str {
        "coupled-scalable"
    }
    fn increase(&self, _s: &[SubflowState], _r: usize) -> f64 {
        self.a
    }
    fn decrease(&self, s: &[SubflowState], r: usize) -> f64 {
        (total_window(s) / self.b).min(s[r].cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lia::{Lia, lia_alpha};
    use crate::sums::vectors::{check, t};

    fn law(phi: f64) -> SemicoupledPhi {
        SemicoupledPhi { phi, a: Aggressiveness::Fixed(1.0), b: 2.0 }
    }

    #[test]
    fn vector_t_across_phi() {
        let s = t();
        let w: f64 = 30.0;
        let exact = |phi: f64, wr: f64| wr.powf(1.0 - phi) / w.powf(2.0 - phi);
        let printed = [
            (0.0, "0.011111", "0.022222"),
            (0.5, "0.019245", "0.027217"),
            (1.0, "0.033333", "0.033333"),
            (1.5, "0.057735", "0.040825"),
            (2.0, "0.1", "0.05"),
        ];
        for (phi, p1, p2) in printed {
            check(law(phi).increase(&s, 0), exact(phi, 10.0), p1);
            check(law(phi).increase(&s, 1), exact(phi, 20.0), p2);
        }
        assert_eq!(law(0.5).decrease(&s, 1), 10.0);
    }

    #[test]
    fn adaptive_a_at_phi_one_is_lia() {
        let s = t();
        let adaptive = SemicoupledPhi { phi: 1.0, a: Aggressiveness::Adaptive, b: 2.0 };
        check(adaptive.aggressiveness(&s), lia_alpha(&s), &format!("{:.6}", lia_alpha(&s)));
        // LIA without its per-subflow cap: equal on the first subflow, where the cap is slack.
        check(adaptive.increase(&s, 0), Lia.increase(&s, 0), "0.069444");
    }

    #[test]
    fn coupled_scalable_vector_and_truncation() {
        let s = t();
        let law = CoupledScalable { a: 0.01, b: 2.0 };
        check(law.increase(&s, 0), 0.01, "0.01");
        check(law.increase(&s, 1), 0.01, "0.01");
        assert_eq!(law.decrease(&s, 0), 10.0, "W/b = 15 truncated to w_1 = 10");
        assert_eq!(law.decrease(&s, 1), 15.0);
    }
}
