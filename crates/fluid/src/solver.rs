//! The equilibrium's unknowns, residuals and driver.
//!
//! The unknowns are `u_r = ln w_r` for every subflow and, for every congestible link, a price
//! variable `v_l ≥ 0` ([`Prices`]): on a link with a standing queue (price model), `v_l` in
//! `[0, 1]` is the queue's fill (queueing delay `v_l·Q_l/c_l`, no loss) and above 1 the loss
//! ([`PriceScale`] of `v_l − 1`) at a full queue; elsewhere it is the loss alone. The residuals are
//! - `G_r = ln(A_r/B_r)`, `A_r` and `B_r` the increase and decrease terms of the window balance
//!   ([`crate::model::Model::balance`]): 0 on a used path; a subflow at the window floor with
//!   `G_r < 0` is a path the law abandons (complementarity);
//! - `H_l = ln(y_l/c_l)` for the price model: 0 on a priced link (or one with a queue); a link
//!   at price 0 with `H_l < 0` is uncongested (complementary slackness); or
//!   `H_l = v(p(y_l)) − v_l` for a loss curve.
//!
//! [`solve`] runs Newton's method ([`crate::newton`]) and, where it stalls, marches along the
//! dynamics `du/dt = G`, `dv/dt = H` ([`crate::relax`]) before trying again. Directions in which
//! the equilibria form a set (COUPLED's split between paths of equal loss) have no restoring
//! force in either, so the iteration leaves them where the starting point put them: this is
//! what [`crate::Uniqueness`] detects.
//!
//! Subflows of one flow with the same path loss and RTT whose windows agree to 1e-9 are set
//! equal ([`snap_ties`]), so that subflows on identical paths stay tied. It was written for
//! OLIA's α, which switches with the largest window, before the equilibrium balanced OLIA at
//! rest (without α); without it OLIA on seed 002's k = 8 FatTree with standing queues no
//! longer solves (residual 1.3e-4), and Balia's k = 4 first solve takes 233 iterations rather
//! than 435 to another point of its set of equilibria.

use mptcp_cc::SubflowState;

use crate::error::FluidError;
use crate::model::{LOSS_FLOOR, Model, Terms, WINDOW_FLOOR};
use crate::newton;
use crate::options::LossModel;
use crate::relax;

/// Largest magnitude of a residual `G` or `H` (a factor of e⁸ ≈ 3000).
pub(crate) const E_MAX: f64 = 8.0;

/// Residuals within this are about as small as Newton's iteration makes them on large
/// networks (finite-difference Jacobians, sets of equilibria): the steps of a continuation are
/// solved to it ([`solve`]'s `loose`), and a shorter stall window applies within it
/// ([`crate::newton`]). A solve that stalls above it may still be accepted, up to
/// [`crate::Options::acceptable_residual`].
pub(crate) const PRECISION_FLOOR: f64 = 1e-6;
pub(crate) const WINDOW_CEILING: f64 = 1e15;
const TIE: f64 = 1e-9;

/// Congestion losses below this are in the linear range of the price variable (see
/// [`PriceScale`]).
const P0: f64 = 1e-6;

/// The solver's variable for a congestion loss `p`: `v = ln(1 + θ/p₀)` with `θ = p/(1 − p)`
/// the odds (`θ = p`, a price that may exceed 1, in the small-loss model) and `p₀ = 1e-6`.
/// Above `p₀` it is a logarithm, in which Reno's `w² = 2k(1 − p)/p` is linear; below, it is
/// linear in `p`, and `v = 0` is a loss of exactly 0, so complementary slackness is a bound
/// `v ≥ 0` that a Newton step can reach.
pub(crate) struct PriceScale {
    pub small_loss: bool,
    pub max: f64,
}

impl PriceScale {
    fn new(small_loss: bool) -> PriceScale {
        let mut s = PriceScale { small_loss, max: 0.0 };
        s.max = if small_loss { (1.0 + 1e6 / P0).ln() } else { s.to_var(1.0 - 1e-12) };
        s
    }
    pub fn to_var(&self, p: f64) -> f64 {
        let odds = if self.small_loss { p } else { p / (1.0 - p) };
        (odds / P0).ln_1p()
    }
    pub fn to_loss(&self, v: f64) -> f64 {
        let odds = P0 * v.exp_m1();
        if self.small_loss { odds } else { odds / (1.0 + odds) }
    }
    /// `dp/dv` at loss `p`.
    pub fn slope(&self, p: f64) -> f64 {
        if self.small_loss {
            P0 + p
        } else {
            let odds = p / (1.0 - p);
            (P0 + odds) / ((1.0 + odds) * (1.0 + odds))
        }
    }
}

/// How each link's price variable splits into queueing delay and congestion loss.
///
/// A link with a standing queue `Q_l` (packets; price model only) fills it first: `v` in
/// `[0, 1]` is a queueing delay `v·Q_l/c_l` at no loss, and `v > 1` a full queue with the loss
/// of [`PriceScale`] at `v − 1`. A link at capacity whose flows are held back by losses
/// elsewhere then settles with a partly filled queue, as a drop-tail queue does, where a
/// queue that is either empty or full leaves no consistent state. Other links' `v` is the loss
/// alone.
pub(crate) struct Prices {
    pub scale: PriceScale,
    /// The full standing queue's delay per link, seconds (0: no queue).
    queue: Vec<f64>,
}

impl Prices {
    fn new(m: &Model) -> Prices {
        let queue = m
            .net
            .links
            .iter()
            .map(|l| match (m.opts.loss_model, l.standing_queue) {
                (LossModel::Price, Some(q)) if q > 0.0 && l.congestible() => q / l.capacity,
                _ => 0.0,
            })
            .collect();
        Prices { scale: PriceScale::new(m.opts.small_loss), queue }
    }
    /// Whether link `l` has a standing queue.
    pub fn has_queue(&self, l: usize) -> bool {
        self.queue[l] > 0.0
    }
    /// Where link `l`'s loss part starts: 1 past a queue, 0 without one.
    fn offset(&self, l: usize) -> f64 {
        if self.queue[l] > 0.0 { 1.0 } else { 0.0 }
    }
    /// The variable of a full queue (if any) and congestion loss `p`.
    pub fn var(&self, l: usize, p: f64) -> f64 {
        self.offset(l) + self.scale.to_var(p)
    }
    /// The largest value of link `l`'s variable.
    pub fn max(&self, l: usize) -> f64 {
        self.offset(l) + self.scale.max
    }
    /// Queueing delay at `v`, seconds.
    pub fn delay(&self, l: usize, v: f64) -> f64 {
        self.queue[l] * v.min(1.0)
    }
    /// Congestion loss at `v`.
    pub fn loss(&self, l: usize, v: f64) -> f64 {
        self.scale.to_loss((v - self.offset(l)).max(0.0))
    }
    /// `∂delay/∂v` at `v` (from above at the queue's end, where the loss takes over).
    pub fn delay_slope(&self, l: usize, v: f64) -> f64 {
        if v < 1.0 { self.queue[l] } else { 0.0 }
    }
    /// `∂loss/∂v` at `v`.
    pub fn loss_slope(&self, l: usize, v: f64) -> f64 {
        let offset = self.offset(l);
        if v < offset { 0.0 } else { self.scale.slope(self.loss(l, v)) }
    }
}

/// A converged state.
pub(crate) struct Solution {
    pub windows: Vec<f64>,
    /// Congestion loss per link (0 for uncongestible and uncongested links).
    pub congestion: Vec<f64>,
    /// Queueing delay per link, seconds.
    pub delay: Vec<f64>,
    /// RTT per subflow, seconds: propagation and queueing.
    pub rtt: Vec<f64>,
    pub loads: Vec<f64>,
    /// The price variables, to start another solve from.
    pub prices: Vec<f64>,
    pub iterations: usize,
}

impl Solution {
    pub fn new(e: Eval, s: &State, iterations: usize) -> Solution {
        Solution { windows: e.w, congestion: e.congestion, delay: e.delay, rtt: e.rtt, loads: e.loads, prices: s.v.clone(), iterations }
    }
}

/// The unknowns.
#[derive(Clone)]
pub(crate) struct State {
    pub u: Vec<f64>,
    pub v: Vec<f64>,
}

impl State {
    /// This state moved by `alpha·(du, dv)`, kept within the floors and ceilings (`v_max` per
    /// link).
    pub fn moved(&self, du: &[f64], dv: &[f64], alpha: f64, u_min: f64, v_max: &[f64]) -> State {
        State {
            u: self.u.iter().zip(du).map(|(u, d)| (u + alpha * d).clamp(u_min, WINDOW_CEILING.ln())).collect(),
            v: self.v.iter().zip(dv).zip(v_max).map(|((v, d), &max)| (v + alpha * d).clamp(0.0, max)).collect(),
        }
    }
}

/// Everything computed from a [`State`].
#[derive(Clone)]
pub(crate) struct Eval {
    pub w: Vec<f64>,
    pub loads: Vec<f64>,
    pub congestion: Vec<f64>,
    /// Queueing delay per link, seconds.
    pub delay: Vec<f64>,
    /// `∂loss/∂v` and `∂delay/∂v` per link.
    pub loss_slope: Vec<f64>,
    pub delay_slope: Vec<f64>,
    /// RTT per subflow, seconds.
    pub rtt: Vec<f64>,
    pub path_loss: Vec<f64>,
    pub g: Vec<f64>,
    pub h: Vec<f64>,
    /// Which subflows and links take part in the step (not pinned at a floor by
    /// complementarity).
    pub active_subflow: Vec<bool>,
    pub active_link: Vec<bool>,
    /// Euclidean norm of the active residuals in relative form (`tanh(G/2) = (A − B)/(A + B)`,
    /// `e^H − 1 = y/c − 1` for prices, `tanh(H/2)` for curves): the line search's measure.
    pub merit: f64,
    /// The largest convergence residual and what it belongs to.
    pub worst: (f64, String),
}

/// `ln(a/b)`, clamped to ±[`E_MAX`] (a non-positive increase counts as the lower clamp).
pub(crate) fn log_ratio(a: f64, b: f64) -> f64 {
    if a <= 0.0 {
        -E_MAX
    } else if b <= 0.0 {
        E_MAX
    } else {
        (a / b).ln().clamp(-E_MAX, E_MAX)
    }
}

/// Evaluates states of one network; holds the law's scratch space.
pub(crate) struct Solver<'m, 'a> {
    pub m: &'m Model<'a>,
    pub prices: Prices,
    /// The largest price variable per link.
    pub v_max: Vec<f64>,
    pub u_min: f64,
    /// Which increase the window balances use.
    pub terms: Terms,
    /// The largest residual Newton's iteration accepts as converged.
    pub tolerance: f64,
    states: Vec<SubflowState>,
    ab: Vec<(f64, f64)>,
}

impl<'m, 'a> Solver<'m, 'a> {
    pub fn new(m: &'m Model<'a>) -> Solver<'m, 'a> {
        let prices = Prices::new(m);
        Solver {
            m,
            v_max: (0..m.net.links.len()).map(|l| prices.max(l)).collect(),
            prices,
            u_min: WINDOW_FLOOR.ln(),
            terms: Terms::AtRest,
            tolerance: m.opts.tolerance,
            states: Vec::new(),
            ab: vec![(0.0, 0.0); m.subflows()],
        }
    }

    /// `G` for the subflows of flow `f` at windows `w`, RTTs `rtt` and path losses `path_loss`,
    /// into `out`.
    pub fn flow_residuals(&mut self, f: usize, w: &[f64], rtt: &[f64], path_loss: &[f64], out: &mut [f64]) {
        let range = self.m.range(f);
        self.m.balance(f, w, rtt, path_loss, self.terms, &mut self.states, &mut self.ab[range.clone()]);
        for (i, r) in range.enumerate() {
            out[i] = log_ratio(self.ab[r].0, self.ab[r].1);
        }
    }

    /// Windows, loads, losses, residuals, active sets, merit and worst residual of `s`.
    pub fn evaluate(&mut self, s: &State) -> Eval {
        let m = self.m;
        let links = &m.net.links;
        let n = m.subflows();
        let w: Vec<f64> = s.u.iter().map(|u| u.exp()).collect();
        let p = &self.prices;
        let congestible = |l: usize, value: f64| if links[l].congestible() { value } else { 0.0 };
        let congestion: Vec<f64> = (0..links.len()).map(|l| congestible(l, p.loss(l, s.v[l]))).collect();
        let delay: Vec<f64> = (0..links.len()).map(|l| congestible(l, p.delay(l, s.v[l]))).collect();
        let loss_slope: Vec<f64> = (0..links.len()).map(|l| congestible(l, p.loss_slope(l, s.v[l]))).collect();
        let delay_slope: Vec<f64> = (0..links.len()).map(|l| congestible(l, p.delay_slope(l, s.v[l]))).collect();
        let rtt: Vec<f64> = (0..n).map(|r| m.prop_rtt[r] + m.paths[r].iter().map(|&l| delay[l]).sum::<f64>()).collect();
        let mut loads = vec![0.0; links.len()];
        m.loads(&w, &rtt, &mut loads);
        let link_loss: Vec<f64> = (0..links.len()).map(|l| m.link_loss(l, congestion[l])).collect();
        let mut path_loss = vec![0.0; n];
        m.path_losses(&link_loss, &mut path_loss);
        let mut worst = (0.0, String::new());
        let mut merit = 0.0;
        let mut h = vec![0.0; links.len()];
        let mut active_link = vec![false; links.len()];
        for (l, link) in links.iter().enumerate().filter(|(_, l)| l.congestible()) {
            let at_floor = s.v[l] <= 0.0;
            let res = match m.opts.loss_model {
                LossModel::Price => {
                    h[l] = if loads[l] > 0.0 { (loads[l] / link.capacity).ln().clamp(-E_MAX, E_MAX) } else { -E_MAX };
                    let excess = (loads[l] - link.capacity) / link.capacity;
                    if at_floor { excess.max(0.0) } else { excess.abs() }
                }
                LossModel::Curve { exponent } => {
                    let target = m.curve(l, loads[l], exponent).min(1.0 - 1e-12);
                    h[l] = (p.var(l, target) - s.v[l]).clamp(-E_MAX, E_MAX);
                    (congestion[l] - target).abs() / target.max(LOSS_FLOOR)
                }
            };
            active_link[l] = !(at_floor && h[l] < 0.0);
            if active_link[l] {
                let t = if matches!(m.opts.loss_model, LossModel::Price) { h[l].exp() - 1.0 } else { (0.5 * h[l]).tanh() };
                merit += t * t;
            }
            if res > worst.0 {
                worst = (res, format!("link \"{}\"", link.name));
            }
        }
        let mut g = vec![0.0; n];
        let mut active_subflow = vec![false; n];
        for (f, flow) in m.net.flows.iter().enumerate() {
            let range = m.range(f);
            self.flow_residuals(f, &w, &rtt, &path_loss, &mut g[range.clone()]);
            let w_max = w[range.clone()].iter().fold(0.0, |a: f64, &b| a.max(b));
            for r in range {
                active_subflow[r] = !(s.u[r] <= self.u_min + 1e-9 && g[r] < 0.0);
                if active_subflow[r] {
                    let t = (0.5 * g[r]).tanh();
                    merit += t * t;
                }
                let (a, b) = self.ab[r];
                let denom = a.abs() + b;
                let mut rel = if denom > 0.0 { (a - b) / denom } else { 0.0 };
                if rel < 0.0 {
                    rel *= w[r] / w_max;
                }
                if rel.abs() > worst.0 {
                    worst = (rel.abs(), format!("flow \"{}\"", flow.name));
                }
            }
        }
        // A law that returns no number (NaN) must not pass for balanced: NaN compares false.
        if !merit.is_finite() || w.iter().chain(&loads).chain(&g).any(|x| x.is_nan()) {
            merit = f64::INFINITY;
            worst = (f64::INFINITY, "the state: a window law or load is not a number".to_string());
        }
        Eval {
            w,
            loads,
            congestion,
            delay,
            loss_slope,
            delay_slope,
            rtt,
            path_loss,
            g,
            h,
            active_subflow,
            active_link,
            merit: merit.sqrt(),
            worst,
        }
    }
}

/// Solves from `windows` (per global subflow) and price variables `prices` (per link, see
/// [`Prices`]) to the tolerance, with the window balances of `terms` ([`Terms::AtRest`],
/// [`Terms::Proxy`] or a blend): Newton ([`newton::run`]); each time that stalls, up to
/// `marches` times, a march along the model's own dynamics ([`relax::march`]) to near the
/// stable equilibrium, and Newton again from there. `loose` solves to [`PRECISION_FLOOR`]
/// rather than to the tolerance (a step of a continuation, not an answer). A solve that stalls
/// within `acceptable_residual` is accepted.
pub(crate) fn solve(m: &Model, windows: &[f64], prices: &[f64], terms: Terms, marches: usize, loose: bool) -> Result<Solution, FluidError> {
    let mut solver = Solver::new(m);
    solver.terms = terms;
    if loose {
        solver.tolerance = PRECISION_FLOOR;
    }
    let mut state = State {
        u: windows.iter().map(|w| w.max(WINDOW_FLOOR).ln()).collect(),
        v: prices.iter().zip(&solver.v_max).map(|(&v, &max)| v.clamp(0.0, max)).collect(),
    };
    let mut spent = 0;
    for attempt in 0..=marches {
        match newton::run(&mut solver, state, m.opts.max_iterations - spent) {
            Ok(mut solution) => {
                solution.iterations += spent;
                return Ok(solution);
            }
            Err((last, error, iterations)) => {
                spent += iterations;
                // Finite-difference Jacobians bound Newton's precision: a state it cannot improve
                // further is accepted when it is within `acceptable_residual`.
                if let FluidError::NotConverged { residual, .. } = &error
                    && *residual <= m.opts.acceptable_residual
                {
                    let e = solver.evaluate(&last);
                    return Ok(Solution::new(e, &last, spent));
                }
                if attempt == marches || spent >= m.opts.max_iterations {
                    return Err(match error {
                        FluidError::NotConverged { worst, residual, .. } => FluidError::NotConverged { worst, residual, iterations: spent },
                        e => e,
                    });
                }
                state = match relax::march(&mut solver, last, 200.0) {
                    Ok(state) => state,
                    Err(_) => return Err(error),
                };
            }
        }
    }
    unreachable!("the last attempt returns")
}

/// Sets equal the log-windows of tied subflows (same path loss and RTT) that agree to [`TIE`].
pub(crate) fn snap_ties(m: &Model, u: &mut [f64], rtt: &[f64], path_loss: &[f64]) {
    for f in 0..m.net.flows.len() {
        let range = m.range(f);
        for i in range.clone() {
            for j in i + 1..range.end {
                if path_loss[i] == path_loss[j] && rtt[i] == rtt[j] && u[i] != u[j] && (u[i] - u[j]).abs() < TIE {
                    let mean = 0.5 * (u[i] + u[j]);
                    u[i] = mean;
                    u[j] = mean;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PriceScale;

    #[test]
    fn the_price_variable_round_trips_and_starts_at_zero_loss() {
        for small_loss in [false, true] {
            let s = PriceScale::new(small_loss);
            assert_eq!(s.to_var(0.0), 0.0);
            assert_eq!(s.to_loss(0.0), 0.0);
            for p in [1e-9, 1e-6, 1e-3, 0.1, 0.5, 0.9] {
                let v = s.to_var(p);
                assert!((s.to_loss(v) - p).abs() <= 1e-12 * p, "{p}");
                let h = 1e-6;
                let numeric = (s.to_loss(v + h) - s.to_loss(v - h)) / (2.0 * h);
                assert!((numeric - s.slope(p)).abs() <= 1e-6 * s.slope(p), "dp/dv at {p}: {numeric} vs {}", s.slope(p));
            }
        }
    }
}
