//! The generalized (β, η, n) family of seed 000 (eq. 12 via eq. 5) and its member Balia
//! (eqs. 1–2).

use crate::controller::CoupledController;
use crate::coupled::kelly_voice;
use crate::state::SubflowState;
use crate::sums::{max_rate, reno_increase};

/// The order of the norm `‖x‖_n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrder {
    /// `(Σ x_k^n)^(1/n)`, n ≥ 1.
    Finite(f64),
    /// `max_k x_k`.
    Infinity,
}

/// `x_r/(τ_r X²) · (1 + β(‖x‖_n/x_r − 1)) · (1 + η(x_max/x_r − 1))` per ACK,
/// `(w_r/2) · (1 + η(x_max/x_r − 1))` per loss.
///
/// With equal RTTs: Coupled at (0, 0), Semicoupled at (1, 0, 1), LIA at (1, 0, ∞).
#[derive(Clone, Copy, Debug)]
pub struct Generalized {
    /// β ≥ 0: weight of the `‖x‖_n/x_r` term; smaller is friendlier to TCP, larger more
    /// responsive (seed 000 Table II).
    pub beta: f64,
    /// η ≥ 0: weight of the `x_max/x_r` term in increase and decrease; larger makes slow paths
    /// more responsive at the cost of window oscillation (seed 000 §IV-B).
    pub eta: f64,
    /// Order of the norm `‖x‖_n` in the β term.
    pub n: NormOrder,
}

fn norm(s: &[SubflowState], n: NormOrder) -> f64 {
    match n {
        NormOrder::Infinity => max_rate(s),
        NormOrder::Finite(n) => s.iter().map(|k| k.rate().powf(n)).sum::<f64>().powf(1.0 / n),
    }
}

impl Generalized {
    fn eta_factor(&self, s: &[SubflowState], r: usize) -> f64 {
        1.0 + self.eta * (max_rate(s) / s[r].rate() - 1.0)
    }
}

impl CoupledController for Generalized {
    fn name(&self) -> &'static str {
        "generalized"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        let beta_factor = 1.0 + self.beta * (norm(s, self.n) / s[r].rate() - 1.0);
        kelly_voice(s, r) * beta_factor * self.eta_factor(s, r)
    }
    fn decrease(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return s[r].cwnd / 2.0;
        }
        s[r].cwnd / 2.0 * self.eta_factor(s, r)
    }
}

/// Balia: the family at (0.2, 0.5, ∞), `x_r/(τ_r X²) · (1+α_r)/2 · (4+α_r)/5` per ACK with
/// `α_r = x_max/x_r`, and `(w_r/2) · min(α_r, 1.5)` per loss ("instead of allowing the window
/// to drop to 1").
#[derive(Clone, Copy, Debug, Default)]
pub struct Balia {
    /// The Linux module's behaviour: α floored to an integer before `min(α, 1.5)`, so the
    /// decrease is `w/2` or `0.75·w`. Off by default (the paper's form).
    pub integer_alpha: bool,
}

fn balia_alpha(s: &[SubflowState], r: usize) -> f64 {
    max_rate(s) / s[r].rate()
}

impl CoupledController for Balia {
    fn name(&self) -> &'static str {
        "balia"
    }
    fn increase(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return reno_increase(s, r);
        }
        let alpha = balia_alpha(s, r);
        kelly_voice(s, r) * (1.0 + alpha) / 2.0 * (4.0 + alpha) / 5.0
    }
    fn decrease(&self, s: &[SubflowState], r: usize) -> f64 {
        if !s[r].measured() {
            return s[r].cwnd / 2.0;
        }
        let alpha = balia_alpha(s, r);
        let alpha = if self.integer_alpha { alpha.floor() } else { alpha };
        s[r].cwnd / 2.0 * alpha.min(1.5)
    }
    fn internal_state(&self, s: &[SubflowState], r: usize) -> Option<f64> {
        s[r].measured().then(|| balia_alpha(s, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::vectors::{check, t};

    #[test]
    fn vector_t() {
        let s = t();
        let balia_point = Generalized { beta: 0.2, eta: 0.5, n: NormOrder::Infinity };
        check(balia_point.increase(&s, 0), 5.0 / 72.0, "0.069444");
        // 1/720 · (1 + 0.2·4) · (1 + 0.5·4) = 5.4/720
        check(balia_point.increase(&s, 1), 5.4 / 720.0, "0.0075");
        let lia_point = Generalized { beta: 1.0, eta: 0.0, n: NormOrder::Infinity };
        check(lia_point.increase(&s, 0), 5.0 / 72.0, "0.069444");
        check(lia_point.increase(&s, 1), 5.0 / 720.0, "0.0069444");
    }

    #[test]
    fn balia_is_the_family_at_its_point_with_a_capped_decrease() {
        let s = t();
        let b = Balia::default();
        check(b.increase(&s, 0), 5.0 / 72.0, "0.069444");
        check(b.increase(&s, 1), 5.4 / 720.0, "0.0075");
        // decrease (5, 15): w = (5, 5)
        assert_eq!((b.decrease(&s, 0), b.decrease(&s, 1)), (5.0, 15.0));
        // the Linux module: α = 5 floors to 5, capped at 1.5; α = 1.9 would floor to 1
        let s2 = [SubflowState::with_window(19.0, 0.010), SubflowState::with_window(10.0, 0.010)];
        assert_eq!(Balia { integer_alpha: true }.decrease(&s2, 1), 5.0);
        check(Balia::default().decrease(&s2, 1), 7.5, "7.5");
    }

    #[test]
    fn finite_norm_order() {
        // n = 1: ‖x‖_1 = X = 1200; β = 1, η = 0 is Semicoupled with equal RTTs.
        let s = [SubflowState::with_window(10.0, 0.010), SubflowState::with_window(20.0, 0.010)];
        let g = Generalized { beta: 1.0, eta: 0.0, n: NormOrder::Finite(1.0) };
        let semi = crate::semicoupled::Semicoupled;
        check(g.increase(&s, 0), semi.increase(&s, 0), "0.033333");
    }
}
