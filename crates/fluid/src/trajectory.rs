//! The fluid model in time: windows (and queues) from an initial state, sampled at a fixed
//! interval.
//!
//! State: `ln w_r` for every subflow (so windows stay positive whatever the step) and the queue
//! `q_l` of every congestible link with a buffer. With `τ_r = τ_r⁰ + Σ_{l∈r} q_l/c_l` (propagation
//! plus queueing delay), `x_r = w_r/τ_r` and `y_l = Σ_{r∋l} x_r`:
//! - `d ln w_r/dt = (A_r − B_r)/τ_r`, i.e. `dw_r/dt = x_r·((1 − p_r)·k·increase_r − p_r·decrease_r)`;
//! - `dq_l/dt = y_l − c_l`, held at 0 while the queue is empty and falling, and at the buffer
//!   while it is full and rising;
//! - congestion loss: the loss curve `min(1, (y/c)^B)`, or, for the price model, drop-tail:
//!   `max(0, 1 − c/y)` while the buffer is full (always, on a link without buffer), else 0.
//!   The drop-tail equilibrium has a full queue and `y(1 − p) = c`, so it approaches the price
//!   equilibrium (which has no queueing delay and `y = c`) only to `O(p)` and up to the queueing
//!   delay.

use mptcp_cc::SubflowState;

use crate::error::FluidError;
use crate::integrate::{self, DormandPrince, Stats, System};
use crate::model::{Model, Terms, WINDOW_FLOOR};
use crate::network::Network;
use crate::options::{LossModel, Options};

/// How to integrate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Integrator {
    /// Classical Runge–Kutta with a fixed step, seconds.
    Rk4 {
        /// The step, seconds (shortened to land on each sample time).
        step: f64,
    },
    /// Dormand–Prince 5(4) with error control: a step is accepted when the RMS over the state
    /// of `error/(atol + rtol·|y|)` is at most 1 (the state is `ln w` and queues in packets).
    DormandPrince {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
        /// Largest step, seconds.
        max_step: f64,
    },
}

/// What to integrate and how.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectoryOptions {
    /// Simulated time, seconds.
    pub duration: f64,
    /// Time between output samples, seconds (the first sample is at 0).
    pub sample_interval: f64,
    /// The integrator.
    pub integrator: Integrator,
    /// Initial windows, packets, per flow and subflow; `None`: 1 packet each.
    pub initial_windows: Option<Vec<Vec<f64>>>,
    /// Most steps the adaptive integrator may take over the whole run before it gives up
    /// ([`crate::FluidError::Integration`]); unlimited by default.
    pub step_budget: usize,
}

impl TrajectoryOptions {
    /// `duration` seconds sampled every `sample_interval`, adaptive (rtol 1e-6, atol 1e-9),
    /// from windows of 1 packet.
    pub fn new(duration: f64, sample_interval: f64) -> TrajectoryOptions {
        TrajectoryOptions {
            duration,
            sample_interval,
            integrator: Integrator::DormandPrince { rtol: 1e-6, atol: 1e-9, max_step: f64::INFINITY },
            initial_windows: None,
            step_budget: usize::MAX,
        }
    }
}

/// One sample of one subflow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrajectoryRow {
    /// Time, seconds.
    pub time_s: f64,
    /// Index of the flow in [`Network::flows`].
    pub flow: usize,
    /// Index of the subflow in its flow.
    pub subflow: usize,
    /// Congestion window, packets.
    pub cwnd_pkts: f64,
    /// RTT, seconds: propagation plus queueing delay.
    pub srtt_s: f64,
    /// Sending rate `w/τ`, packets per second.
    pub rate_pps: f64,
}

/// A sampled trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    /// Samples, by time, then flow, then subflow.
    pub rows: Vec<TrajectoryRow>,
    /// Integrator steps taken and rejected.
    pub stats: Stats,
}

impl Trajectory {
    /// The last sample of subflow `subflow` of flow `flow`.
    pub fn last(&self, flow: usize, subflow: usize) -> Option<&TrajectoryRow> {
        self.rows.iter().rev().find(|r| r.flow == flow && r.subflow == subflow)
    }
}

/// The fluid ODE of `net` from its initial windows over `traj.duration` seconds.
pub fn trajectory(net: &Network, opts: &Options, traj: TrajectoryOptions) -> Result<Trajectory, FluidError> {
    let m = Model::new(net, opts)?;
    let invalid = |m: String| Err(FluidError::InvalidNetwork(m));
    if !(traj.duration >= 0.0 && traj.duration.is_finite() && traj.sample_interval > 0.0 && traj.sample_interval.is_finite()) {
        return invalid(format!("duration {} and sample interval {} must be finite, ≥ 0 and > 0", traj.duration, traj.sample_interval));
    }
    let mut y = Vec::with_capacity(m.subflows());
    for (f, flow) in net.flows.iter().enumerate() {
        let given = traj.initial_windows.as_ref().map(|w| w.get(f));
        for r in 0..flow.subflows.len() {
            let w = match given {
                None => 1.0,
                Some(windows) => match windows.and_then(|ws| ws.get(r)) {
                    Some(&w) if w > 0.0 && w.is_finite() => w,
                    other => return invalid(format!("flow \"{}\" subflow {r}: initial window {other:?} must be a number > 0", flow.name)),
                },
            };
            y.push(w.ln());
        }
    }
    let mut sys = Fluid::new(&m);
    y.resize(m.subflows() + sys.queued.len(), 0.0);
    let mut stats = Stats::default();
    let mut rows = Vec::new();
    let mut adaptive = match traj.integrator {
        Integrator::DormandPrince { rtol, atol, max_step } => {
            Some(DormandPrince { rtol, atol, max_step, h: traj.sample_interval.min(max_step) * 1e-3, budget: traj.step_budget })
        }
        Integrator::Rk4 { step } if step > 0.0 && step.is_finite() => None,
        Integrator::Rk4 { step } => return invalid(format!("RK4 step {step} must be finite and > 0")),
    };
    let samples = (traj.duration / traj.sample_interval + 1e-9).floor() as usize;
    for i in 0..=samples {
        let t = i as f64 * traj.sample_interval;
        if i > 0 {
            let span = traj.sample_interval;
            match (&mut adaptive, traj.integrator) {
                (Some(dp), _) => dp.advance(&mut sys, &mut y, t - span, span, &mut stats)?,
                (None, Integrator::Rk4 { step }) => integrate::rk4(&mut sys, &mut y, span, step, &mut stats),
                (None, _) => unreachable!("the adaptive integrator has its state"),
            }
        }
        sys.sample(t, &y, &mut rows);
    }
    Ok(Trajectory { rows, stats })
}

/// The ODE of a network.
struct Fluid<'m, 'a> {
    m: &'m Model<'a>,
    /// Links with a queue (congestible, with a buffer), in state order after the windows.
    queued: Vec<usize>,
    /// Position of each link's queue in the state, if it has one.
    queue_of: Vec<Option<usize>>,
    w: Vec<f64>,
    rtt: Vec<f64>,
    loads: Vec<f64>,
    link_loss: Vec<f64>,
    path_loss: Vec<f64>,
    ab: Vec<(f64, f64)>,
    states: Vec<SubflowState>,
}

impl<'m, 'a> Fluid<'m, 'a> {
    fn new(m: &'m Model<'a>) -> Fluid<'m, 'a> {
        let links = &m.net.links;
        let queued: Vec<usize> = (0..links.len()).filter(|&l| links[l].congestible() && links[l].buffer.is_some()).collect();
        let mut queue_of = vec![None; links.len()];
        for (i, &l) in queued.iter().enumerate() {
            queue_of[l] = Some(m.subflows() + i);
        }
        let n = m.subflows();
        Fluid {
            m,
            queued,
            queue_of,
            w: vec![0.0; n],
            rtt: vec![0.0; n],
            loads: vec![0.0; links.len()],
            link_loss: vec![0.0; links.len()],
            path_loss: vec![0.0; n],
            ab: vec![(0.0, 0.0); n],
            states: Vec::new(),
        }
    }

    /// Windows, RTTs and loads of state `y`.
    fn observe(&mut self, y: &[f64]) {
        let m = self.m;
        for r in 0..m.subflows() {
            self.w[r] = y[r].exp().max(WINDOW_FLOOR);
            let queueing: f64 = m.paths[r].iter().filter_map(|&l| self.queue_of[l].map(|i| y[i].max(0.0) / m.net.links[l].capacity)).sum();
            self.rtt[r] = m.prop_rtt[r] + queueing;
        }
        m.loads(&self.w, &self.rtt, &mut self.loads);
    }

    fn sample(&mut self, t: f64, y: &[f64], rows: &mut Vec<TrajectoryRow>) {
        self.observe(y);
        for f in 0..self.m.net.flows.len() {
            for (i, r) in self.m.range(f).enumerate() {
                let (w, rtt) = (self.w[r], self.rtt[r]);
                rows.push(TrajectoryRow { time_s: t, flow: f, subflow: i, cwnd_pkts: w, srtt_s: rtt, rate_pps: w / rtt });
            }
        }
    }
}

impl System for Fluid<'_, '_> {
    fn rhs(&mut self, y: &[f64], dy: &mut [f64]) {
        self.observe(y);
        let m = self.m;
        for (l, link) in m.net.links.iter().enumerate() {
            let (load, c) = (self.loads[l], link.capacity);
            let congestion = match m.opts.loss_model {
                _ if !link.congestible() => 0.0,
                LossModel::Curve { exponent } => m.curve(l, load, exponent),
                LossModel::Price => {
                    let full = match (self.queue_of[l], link.buffer) {
                        (Some(i), Some(b)) => y[i] >= b * (1.0 - 1e-9),
                        _ => true,
                    };
                    if full && load > c { 1.0 - c / load } else { 0.0 }
                }
            };
            self.link_loss[l] = m.link_loss(l, congestion);
        }
        m.path_losses(&self.link_loss, &mut self.path_loss);
        for f in 0..m.net.flows.len() {
            let range = m.range(f);
            m.balance(f, &self.w, &self.rtt, &self.path_loss, Terms::Dynamics, &mut self.states, &mut self.ab[range.clone()]);
            for r in range {
                dy[r] = (self.ab[r].0 - self.ab[r].1) / self.rtt[r];
            }
        }
        for &l in &self.queued {
            let i = self.queue_of[l].expect("a queued link has a queue");
            let (link, q) = (&m.net.links[l], y[i]);
            let d = self.loads[l] - link.capacity;
            let b = link.buffer.unwrap_or(0.0);
            dy[i] = if (q <= 0.0 && d < 0.0) || (q >= b && d > 0.0) { 0.0 } else { d };
        }
    }

    fn project(&self, y: &mut [f64]) {
        for &l in &self.queued {
            let i = self.queue_of[l].expect("a queued link has a queue");
            y[i] = y[i].clamp(0.0, self.m.net.links[l].buffer.unwrap_or(0.0));
        }
        for u in y.iter_mut().take(self.m.subflows()) {
            *u = u.max(WINDOW_FLOOR.ln());
        }
    }
}
