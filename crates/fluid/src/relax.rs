//! The solver's fallback: march along the model's own dynamics in pseudo-time,
//! `du/dt = G`, `dv/dt = H` (projected onto the floors), with the adaptive integrator. This is
//! seed 000's primal–dual model (eqs. 3–4) in log coordinates, which converges to a stable
//! equilibrium (Theorem 3.3) where Newton's linearization misleads: far from the solution, or
//! across the kinks of laws with `min`, `max` or integer parts.

use crate::error::FluidError;
use crate::integrate::{DormandPrince, Stats, System};
use crate::solver::{Solver, State, WINDOW_CEILING};

struct Dynamics<'s, 'm, 'a> {
    solver: &'s mut Solver<'m, 'a>,
    n: usize,
}

impl Dynamics<'_, '_, '_> {
    fn state(&self, y: &[f64]) -> State {
        State { u: y[..self.n].to_vec(), v: y[self.n..].to_vec() }
    }
}

impl System for Dynamics<'_, '_, '_> {
    fn rhs(&mut self, y: &[f64], dy: &mut [f64]) {
        let s = self.state(y);
        let e = self.solver.evaluate(&s);
        for (r, d) in dy[..self.n].iter_mut().enumerate() {
            *d = if e.active_subflow[r] { e.g[r] } else { 0.0 };
        }
        for l in 0..e.h.len() {
            dy[self.n + l] = if e.active_link[l] && self.solver.m.net.links[l].congestible() { e.h[l] } else { 0.0 };
        }
    }

    fn project(&self, y: &mut [f64]) {
        for u in &mut y[..self.n] {
            *u = u.clamp(self.solver.u_min, WINDOW_CEILING.ln());
        }
        for (v, &max) in y[self.n..].iter_mut().zip(&self.solver.v_max) {
            *v = v.clamp(0.0, max);
        }
    }
}

/// `state` advanced by `duration` units of pseudo-time, in at most 5000 steps (a law whose
/// right-hand side switches, like OLIA's, can make them tiny).
pub(crate) fn march(solver: &mut Solver, state: State, duration: f64) -> Result<State, FluidError> {
    let n = state.u.len();
    let mut y: Vec<f64> = state.u.into_iter().chain(state.v).collect();
    let mut dynamics = Dynamics { solver, n };
    let mut dp = DormandPrince { rtol: 1e-4, atol: 1e-6, max_step: duration, h: 0.01, budget: 5000 };
    dp.advance(&mut dynamics, &mut y, 0.0, duration, &mut Stats::default())?;
    Ok(dynamics.state(&y))
}
