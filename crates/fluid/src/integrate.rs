//! ODE integrators: classical fixed-step Runge–Kutta (RK4) and the adaptive embedded
//! Dormand–Prince 5(4) pair (Dormand & Prince 1980; the method of MATLAB's `ode45`).

use crate::error::FluidError;

/// An autonomous ODE `dy/dt = f(y)` on a box: `project` puts a state back inside it (queues
/// within their buffers) after each step.
pub(crate) trait System {
    fn rhs(&mut self, y: &[f64], dy: &mut [f64]);
    fn project(&self, y: &mut [f64]);
}

/// Step counts, for the record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Steps taken.
    pub steps: usize,
    /// Steps rejected by the error control (adaptive integrator only).
    pub rejected: usize,
}

/// Advances `y` by `t_span` in `ceil(t_span/step)` equal RK4 steps.
pub(crate) fn rk4(sys: &mut impl System, y: &mut [f64], t_span: f64, step: f64, stats: &mut Stats) {
    let n = y.len();
    let steps = (t_span / step).ceil().max(1.0) as usize;
    let h = t_span / steps as f64;
    let (mut k1, mut k2, mut k3, mut k4, mut tmp) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for _ in 0..steps {
        sys.rhs(y, &mut k1);
        axpy(&mut tmp, y, 0.5 * h, &k1);
        sys.rhs(&tmp, &mut k2);
        axpy(&mut tmp, y, 0.5 * h, &k2);
        sys.rhs(&tmp, &mut k3);
        axpy(&mut tmp, y, h, &k3);
        sys.rhs(&tmp, &mut k4);
        for i in 0..n {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        sys.project(y);
        stats.steps += 1;
    }
}

fn axpy(out: &mut [f64], y: &[f64], a: f64, x: &[f64]) {
    for i in 0..y.len() {
        out[i] = y[i] + a * x[i];
    }
}

// Dormand–Prince 5(4) tableau (the nodes `c` are not needed: the system is autonomous).
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0],
    [9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0],
    [35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0],
];
/// Fifth-order weights (the last stage's row: first same as last).
const B5: [f64; 7] = [35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0];
/// Fourth-order embedded weights.
const B4: [f64; 7] = [5179.0 / 57600.0, 0.0, 7571.0 / 16695.0, 393.0 / 640.0, -92097.0 / 339200.0, 187.0 / 2100.0, 1.0 / 40.0];

/// The adaptive integrator's state between calls: its tolerances and the step it would take
/// next.
pub(crate) struct DormandPrince {
    pub rtol: f64,
    pub atol: f64,
    pub max_step: f64,
    pub h: f64,
    /// Steps (accepted or rejected) left before giving up.
    pub budget: usize,
}

impl DormandPrince {
    /// Advances `y` by exactly `t_span` (the last step is shortened to land on it), starting
    /// the error control at time `t0` (for messages).
    pub fn advance(&mut self, sys: &mut impl System, y: &mut [f64], t0: f64, t_span: f64, stats: &mut Stats) -> Result<(), FluidError> {
        let n = y.len();
        let mut k = vec![vec![0.0; n]; 7];
        let (mut tmp, mut y5) = (vec![0.0; n], vec![0.0; n]);
        let mut t = 0.0;
        while t < t_span {
            let h = self.h.min(self.max_step).min(t_span - t);
            if h.is_nan() || h <= 1e-14 * t_span.max(1e-9) {
                return Err(FluidError::Integration { time: t0 + t, message: format!("step size underflow (h = {h:e} s)") });
            }
            if self.budget == 0 {
                return Err(FluidError::Integration { time: t0 + t, message: "step budget exhausted".into() });
            }
            self.budget -= 1;
            sys.rhs(y, &mut k[0]);
            for s in 1..7 {
                for i in 0..n {
                    tmp[i] = y[i] + h * (0..s).map(|j| A[s][j] * k[j][i]).sum::<f64>();
                }
                sys.rhs(&tmp, &mut k[s]);
            }
            let mut err = 0.0;
            for i in 0..n {
                y5[i] = y[i] + h * (0..7).map(|j| B5[j] * k[j][i]).sum::<f64>();
                let e = h * (0..7).map(|j| (B5[j] - B4[j]) * k[j][i]).sum::<f64>();
                let scale = self.atol + self.rtol * y[i].abs().max(y5[i].abs());
                err += (e / scale) * (e / scale);
            }
            let err = (err / n.max(1) as f64).sqrt();
            if !err.is_finite() {
                return Err(FluidError::Integration { time: t0 + t, message: "the state became non-finite".into() });
            }
            let factor = if err == 0.0 { 5.0 } else { (0.9 * err.powf(-0.2)).clamp(0.2, 5.0) };
            if err <= 1.0 {
                y.copy_from_slice(&y5);
                sys.project(y);
                t += h;
                stats.steps += 1;
                self.h = h * factor;
            } else {
                stats.rejected += 1;
                self.h = h * factor.min(1.0);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dy/dt = −y` from 1: `y(1) = e^{-1}`.
    struct Decay;
    impl System for Decay {
        fn rhs(&mut self, y: &[f64], dy: &mut [f64]) {
            dy[0] = -y[0];
        }
        fn project(&self, _y: &mut [f64]) {}
    }

    #[test]
    fn both_integrators_solve_exponential_decay() {
        let exact = (-1.0f64).exp();
        let mut y = [1.0];
        let mut stats = Stats::default();
        rk4(&mut Decay, &mut y, 1.0, 0.01, &mut stats);
        assert!((y[0] - exact).abs() < 1e-10, "RK4: {}", y[0]);
        assert_eq!(stats.steps, 100);
        let mut y = [1.0];
        let mut dp = DormandPrince { rtol: 1e-10, atol: 1e-12, max_step: f64::INFINITY, h: 0.1, budget: usize::MAX };
        dp.advance(&mut Decay, &mut y, 0.0, 1.0, &mut stats).unwrap();
        assert!((y[0] - exact).abs() < 1e-9, "Dormand–Prince: {}", y[0]);
    }
}
