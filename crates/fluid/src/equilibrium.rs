//! The equilibrium of a network: what [`equilibrium()`] returns, and how uniqueness is checked.

use crate::error::FluidError;
use crate::model::{Damping, Model, Terms, ZERO_SHARE, uneven_share};
use crate::network::Network;
use crate::options::Options;
use crate::solver::{self, Solution};

/// Whether a flow's equilibrium split over its subflows is determined.
#[derive(Clone, Debug, PartialEq)]
pub enum Uniqueness {
    /// Both solves (see [`Options::check_uniqueness`]) found the same rates: what a unique
    /// equilibrium gives, though two solves may also meet at one point of a set (docs/fluid.md,
    /// "The equilibrium": a solver variant made 33 of Balia's 128 flows agree on the k = 8 FatTree).
    Unique,
    /// The two solves found different splits (or totals): the equilibria form a set (COUPLED
    /// on paths of equal loss, seed 001 §3.2) or are several (Balia as written, on identical
    /// paths), so subflow windows are not reported, only the flow's total.
    NotUnique {
        /// Largest difference between the two solutions' subflow rates (or totals), as a
        /// fraction of the flow's total rate.
        spread: f64,
    },
    /// The second solve did not converge (neither Newton's iteration from the uneven split nor
    /// the continuation with the uneven stand-in, see [`crate::equilibrium()`]); the reported
    /// equilibrium is the first solve's.
    Unknown {
        /// Why, with the second solve's error.
        reason: String,
    },
    /// Not checked ([`Options::check_uniqueness`] off).
    Unchecked,
}

/// One subflow at equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct SubflowEquilibrium {
    /// Congestion window, packets; 0 for a path the law abandons (below 1e-8 of the flow's
    /// largest window); `None` when the flow's split is not unique.
    pub window: Option<f64>,
    /// Sending rate `w/τ`, packets per second; `None` when the split is not unique.
    pub rate: Option<f64>,
    /// Loss probability of the path, `1 − Π(1 − p_l)` (or `Σ p_l` in the small-loss model).
    pub path_loss: f64,
    /// RTT, seconds: the propagation RTT plus the queueing delays of the links on the path
    /// (none unless links have [`crate::Link::standing_queue`]).
    pub rtt: f64,
}

/// One flow at equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowEquilibrium {
    /// The flow's name.
    pub name: String,
    /// Total rate over its subflows, packets per second (determined even when the split is not).
    pub total_rate: f64,
    /// Whether the split is determined.
    pub uniqueness: Uniqueness,
    /// Its subflows, in the order given.
    pub subflows: Vec<SubflowEquilibrium>,
}

/// One link at equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkEquilibrium {
    /// The link's name.
    pub name: String,
    /// Loss probability per packet: exogenous and congestion loss combined.
    pub loss: f64,
    /// The congestion part: the price (or curve value); 0 on an uncongested or infinite link.
    pub congestion_loss: f64,
    /// Arrival rate, packets per second.
    pub load: f64,
    /// Queueing delay of its standing queue, seconds (0 without [`crate::Link::standing_queue`]):
    /// the queue in packets is this times the capacity.
    pub queueing_delay: f64,
    /// Load over capacity (0 for an infinite link).
    pub utilization: f64,
}

/// The equilibrium of a network.
#[derive(Clone, Debug, PartialEq)]
pub struct Equilibrium {
    /// Per flow, in the network's order.
    pub flows: Vec<FlowEquilibrium>,
    /// Per link, in the network's order.
    pub links: Vec<LinkEquilibrium>,
    /// Iterations of the first solve.
    pub iterations: usize,
}

impl Equilibrium {
    /// Whether every flow's split was found unique.
    pub fn is_unique(&self) -> bool {
        self.flows.iter().all(|f| f.uniqueness == Uniqueness::Unique)
    }

    /// The flow called `name`.
    pub fn flow(&self, name: &str) -> Option<&FlowEquilibrium> {
        self.flows.iter().find(|f| f.name == name)
    }

    /// The link called `name`.
    pub fn link(&self, name: &str) -> Option<&LinkEquilibrium> {
        self.links.iter().find(|l| l.name == name)
    }
}

/// The equilibrium of `net`: every window balanced, every congestible link at its price or
/// loss curve.
///
/// Fails with [`FluidError::NoEquilibrium`] when some flow has a path with neither exogenous
/// loss nor a congestible link, and with [`FluidError::NotConverged`] (naming the worst flow or
/// link) when the iteration does not reach the tolerance.
///
/// With standing queues ([`crate::Link::standing_queue`], price model only) a link at capacity
/// holds a queue between empty and full, and loses packets only when it is full; the queueing
/// delay is part of every RTT through it.
///
/// With [`Options::check_uniqueness`], a second solve starts from the first's prices with
/// every flow's window split 1 : 1/2 : 1/3 … over its subflows; where Newton's iteration does
/// not reach the law from there, the continuation does, with a stand-in weighted likewise
/// (EWTCP with `a = 1/(n²·(i + 1))` on subflow `i`). Flows whose rates differ between the
/// two are not unique ([`Uniqueness`]).
pub fn equilibrium(net: &Network, opts: &Options) -> Result<Equilibrium, FluidError> {
    equilibrium_observed(net, opts, &mut |_| {})
}

/// [`equilibrium()`], telling `observe` each [`Stage`] the solve enters: a large network's
/// solve can take seconds, and a caller may show where it is.
pub fn equilibrium_observed(net: &Network, opts: &Options, observe: &mut dyn FnMut(Stage)) -> Result<Equilibrium, FluidError> {
    let mut m = Model::new(net, opts)?;
    net.check_bounded()?;
    let first = first_solve(&mut m, observe)?;
    let second = opts.check_uniqueness.then(|| {
        observe(Stage::Uniqueness);
        second_solve(&mut m, &first, observe)
    });
    Ok(report(&m, &first, second))
}

/// The uniqueness check's second solve is accepted when it stalls within this share of
/// [`Options::uniqueness_tolerance`] (or within [`Options::acceptable_residual`] if that is
/// larger): it is compared, not reported. A residual `r` moves a window by about `r/2` (see
/// [`Options::acceptable_residual`]), so the two solves' errors together stay within a quarter
/// of the spread the check calls not unique. OLIA with standing queues on seed 002's FatTree
/// stalled at 2.4e-5 (`sim.seed=8`, k = 6) and 1.7e-5 (`sim.seed=3`, k = 8) there, which left
/// their uniqueness undecided at 1e-5.
const SECOND_SOLVE_SHARE: f64 = 0.25;

/// Where an equilibrium solve is ([`equilibrium_observed`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage {
    /// The first phase: a stand-in law (EWTCP) finds prices of the right magnitude.
    StandIn,
    /// Newton's method on the law itself.
    Law,
    /// The continuation from the stand-in to the law, the stand-in's weight in the balances
    /// now `weight` (1/4, 1/16, … down to 1e-9).
    Continuation {
        /// The stand-in's weight.
        weight: f64,
    },
    /// Everything again with Newton's second damping rule, the first having failed.
    SecondDamping,
    /// The last fallback: the law's own dynamics from one packet per subflow, to rest.
    Dynamics,
    /// The uniqueness check's second solve (which may go through a continuation of its own).
    Uniqueness,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::StandIn => write!(f, "prices from the stand-in law"),
            Stage::Law => write!(f, "Newton's method on the law"),
            Stage::Continuation { weight } => write!(f, "continuation to the law, stand-in weight {weight:.1e}"),
            Stage::SecondDamping => write!(f, "again with the second damping rule"),
            Stage::Dynamics => write!(f, "the law's own dynamics"),
            Stage::Uniqueness => write!(f, "uniqueness check"),
        }
    }
}

/// The equilibrium: phase 1 then phase 2 ([`proxy_start`], [`the_law`]); failing that, both
/// again damping only the rows that are small throughout ([`Damping::EmptyRows`]: Balia on seed
/// 002's k = 8 FatTree solves only so); failing that, the law's own dynamics from one packet
/// per subflow (Newton can stall where they do not: Balia on unequal losses), followed to
/// their resting point and solved from there. Leaves in `m` the damping that solved.
fn first_solve(m: &mut Model, observe: &mut dyn FnMut(Stage)) -> Result<Solution, FluidError> {
    let (windows, prices) = proxy_start(m, observe);
    let error = match the_law(m, &windows, &prices, observe) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    observe(Stage::SecondDamping);
    m.damping = Damping::EmptyRows;
    let (w, v) = proxy_start(m, &mut |_| {});
    if let Ok(s) = the_law(m, &w, &v, observe) {
        return Ok(s);
    }
    observe(Stage::Dynamics);
    m.damping = Damping::SmallDiagonal;
    match settled_windows(m) {
        Some(w) => solver::solve(m, &w, &prices, Terms::AtRest, MARCHES, false).map_err(|_| error),
        None => Err(error),
    }
}

/// The uniqueness check's solve: from `first`'s prices, every flow's total window split
/// 1 : 1/2 : 1/3 … over its subflows, Newton's iteration (with either damping); where that
/// fails (OLIA with standing queues on seed 002's FatTree), the continuation, with a stand-in
/// that weights each flow's subflows likewise ([`Model::uneven_proxy`]): where the equilibria
/// form a set, the two stand-ins' continuations end at different points of it; a unique
/// equilibrium is where both end. Like the stand-in and the damping, the residual at which a
/// stalled solve is accepted is the model's to change here ([`SECOND_SOLVE_SHARE`]).
fn second_solve(m: &mut Model, first: &Solution, observe: &mut dyn FnMut(Stage)) -> Result<Solution, String> {
    m.opts.acceptable_residual = m.opts.acceptable_residual.max(SECOND_SOLVE_SHARE * m.opts.uniqueness_tolerance);
    let mut windows = vec![0.0; m.subflows()];
    for f in 0..m.net.flows.len() {
        let range = m.range(f);
        let total: f64 = first.windows[range.clone()].iter().sum();
        let weights: Vec<f64> = (0..range.len()).map(uneven_share).collect();
        let sum: f64 = weights.iter().sum();
        for (i, r) in range.enumerate() {
            windows[r] = total * weights[i] / sum;
        }
    }
    let newton = |m: &Model| solver::solve(m, &windows, &first.prices, Terms::AtRest, MARCHES, false);
    let first_damping = m.damping;
    let mut second = newton(m);
    if second.is_err() && first_damping == Damping::SmallDiagonal {
        m.damping = Damping::EmptyRows;
        second = newton(m);
    }
    // The continuation with the uneven stand-in, with the default damping and then, where the
    // first solve needed it, the second.
    m.uneven_proxy = true;
    if second.is_err() {
        m.damping = Damping::SmallDiagonal;
        second = towards_the_law(m, &windows, &first.prices, observe);
    }
    if second.is_err() && first_damping == Damping::EmptyRows {
        m.damping = Damping::EmptyRows;
        second = towards_the_law(m, &windows, &first.prices, observe);
    }
    second.map_err(|e| format!("the solve from an uneven split failed: {e}"))
}

/// Phase 1: windows and prices of the right magnitude, from a well-behaved proxy law (see
/// [`Terms::Proxy`]) started with full queues (the longest RTTs) and 1 % congestion loss on every
/// congestible link; the starting point itself if the proxy does not converge.
fn proxy_start(m: &Model, observe: &mut dyn FnMut(Stage)) -> (Vec<f64>, Vec<f64>) {
    observe(Stage::StandIn);
    let net = m.net;
    let solver = solver::Solver::new(m);
    let start_p = 0.01;
    let prices: Vec<f64> =
        (0..net.links.len()).map(|l| if net.links[l].congestible() { solver.prices.var(l, start_p) } else { 0.0 }).collect();
    let congestion: Vec<f64> = net.links.iter().map(|l| if l.congestible() { start_p } else { 0.0 }).collect();
    let windows = initial_windows(m, &congestion);
    match solver::solve(m, &windows, &prices, Terms::Proxy, MARCHES, false) {
        Ok(s) => (s.windows, s.prices),
        Err(_) => (windows, prices),
    }
}

/// Phase 2, the law, from the proxy's point: Newton; failing that, the continuation from the
/// proxy to the law; failing that, Newton with marches along the dynamics.
fn the_law(m: &Model, windows: &[f64], prices: &[f64], observe: &mut dyn FnMut(Stage)) -> Result<Solution, FluidError> {
    observe(Stage::Law);
    solver::solve(m, windows, prices, Terms::AtRest, 0, false)
        .or_else(|_| towards_the_law(m, windows, prices, observe))
        .or_else(|_| solver::solve(m, windows, prices, Terms::AtRest, MARCHES, false))
}

/// Marches along the dynamics a solve may fall back on ([`solver::solve`]).
const MARCHES: usize = 2;

/// How the proxy's weight `1 − λ` shrinks from one step of the continuation to the next
/// ([`towards_the_law`]); below `TRY_THE_LAW` each step is followed by a try of the law
/// alone, and the continuation gives up below `LAST_WEIGHT`.
const CONTINUATION_FACTOR: f64 = 0.25;
const TRY_THE_LAW: f64 = 1e-4;
const LAST_WEIGHT: f64 = 1e-9;

/// The equilibrium of the law reached from the proxy's (`windows`, `prices`) by continuation:
/// the balances `(1 − λ)·proxy + λ·law` solved for `1 − λ` = 1/4, 1/16, … each from the last,
/// to [`solver::PRECISION_FLOOR`] only (a step on the way, not an answer: solved to the tolerance,
/// OLIA on the k = 8 FatTree with queues stopped at the step 6.1e-5, residual 2.7e-5);
/// from 1e-4 on, Newton with the law alone is tried from each of them.
///
/// A law whose fixed points put traffic on best paths only (OLIA, COUPLED) has, on a network
/// with many paths per flow, a combinatorial choice of which paths those are, and its
/// equilibria form a set; Newton's step from the proxy's point, where every path carries
/// traffic, then moves the other paths' windows by many orders of magnitude at once, and the
/// iteration stalls. The proxy's term keeps every path in use and the equilibrium unique,
/// and lowering its weight lets the worse paths' windows fall gradually. OLIA on seed 002's
/// FatTree fails without it (docs/fluid.md, "How the solver converges").
fn towards_the_law(m: &Model, windows: &[f64], prices: &[f64], observe: &mut dyn FnMut(Stage)) -> Result<Solution, FluidError> {
    let (mut w, mut v) = (windows.to_vec(), prices.to_vec());
    let mut weight = 1.0;
    let mut iterations = 0;
    loop {
        weight *= CONTINUATION_FACTOR;
        observe(Stage::Continuation { weight });
        let mut s = solver::solve(m, &w, &v, Terms::Blend(1.0 - weight), MARCHES, true)?;
        iterations += s.iterations;
        if weight < TRY_THE_LAW {
            let law = solver::solve(m, &s.windows, &s.prices, Terms::AtRest, 0, false);
            if let Ok(mut law) = law {
                law.iterations += iterations;
                return Ok(law);
            }
            if weight < LAST_WEIGHT {
                return law;
            }
        }
        (w, v) = (std::mem::take(&mut s.windows), std::mem::take(&mut s.prices));
    }
}

/// Steps the fallback's trajectory may take ([`settled_windows`]): Balia on two paths needs a
/// few hundred; a large network whose law switches often (OLIA) would take minutes.
const SETTLING_STEPS: usize = 20_000;

/// Subflow-steps the fallback's trajectory may take, which caps its steps on large networks:
/// on seed 002's k = 8 FatTree (1 024 subflows) Balia's 20 000 steps took 7 s and did not come
/// to rest.
const SETTLING_WORK: usize = 2_000_000;

/// The windows the model's dynamics reach from one packet each after ten thousand of its longest
/// round trips, if they are at rest there.
fn settled_windows(m: &Model) -> Option<Vec<f64>> {
    let longest = m.prop_rtt.iter().fold(0.0f64, |a, &b| a.max(b));
    let duration = 1e4 * longest.max(1e-3);
    let budget = SETTLING_STEPS.min(SETTLING_WORK / m.subflows().max(1));
    let steps = crate::TrajectoryOptions { step_budget: budget, ..crate::TrajectoryOptions::new(duration, duration / 2.0) };
    let t = crate::trajectory(m.net, &m.opts, steps).ok()?;
    let n = m.subflows();
    let (before, end) = t.rows.split_at(t.rows.len() - n);
    let before = &before[before.len() - n..];
    let at_rest = before.iter().zip(end).all(|(a, b)| (a.cwnd_pkts - b.cwnd_pkts).abs() <= 1e-6 * b.cwnd_pkts.max(1e-9));
    at_rest.then(|| end.iter().map(|r| r.cwnd_pkts).collect())
}

/// Windows at which each subflow alone would balance Reno's law at the starting losses, divided
/// among the flow's subflows.
fn initial_windows(m: &Model, congestion: &[f64]) -> Vec<f64> {
    let link_loss: Vec<f64> = (0..m.net.links.len()).map(|l| m.link_loss(l, congestion[l])).collect();
    let mut path_loss = vec![0.0; m.subflows()];
    m.path_losses(&link_loss, &mut path_loss);
    let mut windows = vec![0.0; m.subflows()];
    for f in 0..m.net.flows.len() {
        let range = m.range(f);
        let n = range.len() as f64;
        for r in range {
            let q = path_loss[r].clamp(1e-6, 0.5);
            windows[r] = (2.0 * m.k * (1.0 - q) / q).sqrt() / n;
        }
    }
    windows
}

fn report(m: &Model, first: &Solution, second: Option<Result<Solution, String>>) -> Equilibrium {
    let net = m.net;
    let link_loss: Vec<f64> = (0..net.links.len()).map(|l| m.link_loss(l, first.congestion[l])).collect();
    let mut path_loss = vec![0.0; m.subflows()];
    m.path_losses(&link_loss, &mut path_loss);
    let rate = |s: &Solution, r: usize| s.windows[r] / s.rtt[r];
    let flows = net
        .flows
        .iter()
        .enumerate()
        .map(|(f, flow)| {
            let range = m.range(f);
            let total: f64 = range.clone().map(|r| rate(first, r)).sum();
            let uniqueness = match &second {
                None => Uniqueness::Unchecked,
                Some(Err(reason)) => Uniqueness::Unknown { reason: reason.clone() },
                Some(Ok(s)) => {
                    let other: f64 = range.clone().map(|r| rate(s, r)).sum();
                    let spread = range.clone().map(|r| (rate(first, r) - rate(s, r)).abs()).fold((total - other).abs(), f64::max) / total;
                    if spread > m.opts.uniqueness_tolerance { Uniqueness::NotUnique { spread } } else { Uniqueness::Unique }
                }
            };
            let determined = !matches!(uniqueness, Uniqueness::NotUnique { .. });
            let w_max = first.windows[range.clone()].iter().fold(0.0, |a: f64, &b| a.max(b));
            let subflows = range
                .map(|r| {
                    let w = if first.windows[r] < ZERO_SHARE * w_max { 0.0 } else { first.windows[r] };
                    SubflowEquilibrium {
                        window: determined.then_some(w),
                        rate: determined.then_some(w / first.rtt[r]),
                        path_loss: path_loss[r],
                        rtt: first.rtt[r],
                    }
                })
                .collect();
            FlowEquilibrium { name: flow.name.clone(), total_rate: total, uniqueness, subflows }
        })
        .collect();
    let links = net
        .links
        .iter()
        .enumerate()
        .map(|(l, link)| LinkEquilibrium {
            name: link.name.clone(),
            loss: link_loss[l],
            congestion_loss: first.congestion[l],
            load: first.loads[l],
            queueing_delay: first.delay[l],
            utilization: if link.congestible() { first.loads[l] / link.capacity } else { 0.0 },
        })
        .collect();
    Equilibrium { flows, links, iterations: first.iterations }
}
