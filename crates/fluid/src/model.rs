//! The fluid model's right-hand side, shared by the equilibrium solver and the integrators:
//! the network flattened into arrays, path losses, and each subflow's increase and decrease
//! terms evaluated by the flow's own window law.

use mptcp_cc::SubflowState;

use crate::error::FluidError;
use crate::network::Network;
use crate::options::{LossModel, Options};

/// The smallest window the model keeps, packets: coupled laws (COUPLED, OLIA) drive the windows
/// of worse paths towards 0, which would make rates and logarithms degenerate. Results report
/// windows below [`ZERO_SHARE`] of their flow's largest as exactly 0.
pub const WINDOW_FLOOR: f64 = 1e-12;

/// Windows smaller than this fraction of their flow's largest window are reported as 0.
pub const ZERO_SHARE: f64 = 1e-8;

/// The smallest value a loss curve takes (an idle link's `(y/c)^B` is 0), so relative
/// residuals and logarithms stay finite.
pub const LOSS_FLOOR: f64 = 1e-15;

/// The network flattened: subflows numbered globally, flow `f` owning `offsets[f]..offsets[f+1]`.
pub(crate) struct Model<'a> {
    pub net: &'a Network,
    pub opts: Options,
    /// TCP's constant `k`.
    pub k: f64,
    pub offsets: Vec<usize>,
    /// The flow of each global subflow.
    pub flow_of: Vec<usize>,
    /// Propagation RTT of each global subflow, seconds.
    pub prop_rtt: Vec<f64>,
    /// Link indices of each global subflow's path.
    pub paths: Vec<&'a [usize]>,
    /// Which rows of Newton's link system are damped ([`Damping`]).
    pub damping: Damping,
    /// Whether the proxy's subflows are weighted unevenly ([`Terms::Proxy`]).
    pub uneven_proxy: bool,
}

/// Which rows of Newton's link system ([`crate::newton`]) have their diagonal raised so that
/// the link's price moves by about 3 at most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Damping {
    /// Every row whose diagonal is small beside its right-hand side: a price that barely moves
    /// any flow, near 0 in the linear range of the variable. The default.
    SmallDiagonal,
    /// Only rows that are small throughout. A row with a small diagonal can still have large
    /// entries for other links (a price that moves no flow of its own, on a link whose load the
    /// other prices move); raising its diagonal then changes that link's equation, and the step
    /// misses its load (measured in OLIA's solves on seed 002's k = 8 FatTree: rows with
    /// diagonals of 0.01-0.23 and entries of 650-4 400 for other links, whose residuals moved
    /// by 2e-2 per unit step where the linear model said 2.5e-5). The fallback where the
    /// default fails (see [`crate::equilibrium()`]; Balia on that FatTree solves only so): as
    /// the only rule it made LIA and Reno at k = 8 without queues take twice as long and OLIA
    /// with queues fail.
    EmptyRows,
}

impl<'a> Model<'a> {
    /// Validates `net` and flattens it.
    pub fn new(net: &'a Network, opts: &Options) -> Result<Model<'a>, FluidError> {
        net.validate()?;
        match opts.loss_model {
            LossModel::Curve { exponent } if !(exponent > 0.0 && exponent.is_finite()) => {
                return Err(FluidError::InvalidNetwork(format!("loss curve exponent {exponent} must be finite and > 0")));
            }
            _ => {}
        }
        let mut m = Model {
            net,
            opts: *opts,
            k: opts.constant.factor(),
            offsets: vec![0],
            flow_of: vec![],
            prop_rtt: vec![],
            paths: vec![],
            damping: Damping::SmallDiagonal,
            uneven_proxy: false,
        };
        for (f, flow) in net.flows.iter().enumerate() {
            for (r, s) in flow.subflows.iter().enumerate() {
                m.flow_of.push(f);
                m.prop_rtt.push(net.propagation_rtt(f, r));
                m.paths.push(&s.links);
            }
            m.offsets.push(m.flow_of.len());
        }
        Ok(m)
    }

    /// Number of subflows over all flows.
    pub fn subflows(&self) -> usize {
        self.flow_of.len()
    }

    /// Global index range of flow `f`'s subflows.
    pub fn range(&self, f: usize) -> std::ops::Range<usize> {
        self.offsets[f]..self.offsets[f + 1]
    }

    /// Combines independent losses: `1 − Π(1 − p)`, or `Σ p` in the small-loss model.
    pub fn combine(&self, losses: impl Iterator<Item = f64>) -> f64 {
        if self.opts.small_loss { losses.sum() } else { 1.0 - losses.map(|p| 1.0 - p).product::<f64>() }
    }

    /// Loss of link `l` when its congestion loss is `congestion`: exogenous and congestion
    /// losses are independent.
    pub fn link_loss(&self, l: usize, congestion: f64) -> f64 {
        self.combine([self.net.links[l].loss, congestion].into_iter())
    }

    /// The loss curve `min(1, (y/c)^B)` of a congestible link (never below [`LOSS_FLOOR`]).
    pub fn curve(&self, l: usize, load: f64, exponent: f64) -> f64 {
        (load / self.net.links[l].capacity).powf(exponent).clamp(LOSS_FLOOR, 1.0)
    }

    /// Arrival rate at every link, packets per second, from windows and current RTTs.
    pub fn loads(&self, windows: &[f64], rtts: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for (r, path) in self.paths.iter().enumerate() {
            for &l in path.iter() {
                out[l] += windows[r] / rtts[r];
            }
        }
    }

    /// Loss probability of every subflow's path, given every link's loss.
    pub fn path_losses(&self, link_loss: &[f64], out: &mut [f64]) {
        for (r, path) in self.paths.iter().enumerate() {
            out[r] = self.combine(path.iter().map(|&l| link_loss[l]));
        }
    }

    /// The two terms of flow `f`'s window balance per RTT: `A_r = (1 − p_r)·k·increase_r`
    /// (no `1 − p_r` in the small-loss model) and `B_r = p_r·decrease_r`, so that
    /// `dw_r/dt = (w_r/τ_r)(A_r − B_r)`, with the increase that `terms` says. `states` is
    /// scratch space for the law.
    #[allow(clippy::too_many_arguments)]
    pub fn balance(
        &self,
        f: usize,
        windows: &[f64],
        rtts: &[f64],
        path_loss: &[f64],
        terms: Terms,
        states: &mut Vec<SubflowState>,
        out: &mut [(f64, f64)],
    ) {
        let range = self.range(f);
        let n = range.len() as f64;
        states.clear();
        for r in range.clone() {
            states.push(law_state(windows[r].max(WINDOW_FLOOR), rtts[r], self.prop_rtt[r], path_loss[r]));
        }
        let law = &self.net.flows[f].law;
        for (i, r) in range.enumerate() {
            let p = path_loss[r];
            let success = if self.opts.small_loss { 1.0 } else { 1.0 - p };
            let a = if self.uneven_proxy { uneven_share(i) } else { 1.0 };
            let proxy = || (a / (n * n * states[i].cwnd), states[i].cwnd / 2.0);
            let at_rest = || (law.increase_at_rest(states, i), law.decrease(states, i));
            let (inc, dec) = match terms {
                Terms::Proxy => proxy(),
                Terms::AtRest => at_rest(),
                Terms::Dynamics => (law.increase(states, i), law.decrease(states, i)),
                Terms::Blend(lambda) => {
                    let ((pi, pd), (li, ld)) = (proxy(), at_rest());
                    ((1.0 - lambda) * pi + lambda * li, (1.0 - lambda) * pd + lambda * ld)
                }
            };
            out[i] = (success * self.k * inc, p * dec);
        }
    }
}

/// The weight of a flow's subflow `i` in the uniqueness check's uneven splits (1 : 1/2 : 1/3 …):
/// of the second solve's starting windows and of its stand-in's increases.
pub(crate) fn uneven_share(i: usize) -> f64 {
    1.0 / (1.0 + i as f64)
}

/// Which increase a window balance uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Terms {
    /// EWTCP with `a = 1/n²` in place of the law (independent, TCP-friendly subflows): the
    /// equilibrium solver's first phase, which finds prices of the right magnitude. With
    /// [`Model::uneven_proxy`], `a = 1/(n²·(i + 1))` for the flow's subflow `i`: a second
    /// stand-in, whose continuation ends at another point of a set of equilibria (see
    /// [`crate::equilibrium()`]).
    Proxy,
    /// The law's increase at its fixed points ([`mptcp_cc::CoupledController::increase_at_rest`]):
    /// what the equilibrium balances (OLIA without its switching α).
    AtRest,
    /// The law's own increase: what a trajectory follows.
    Dynamics,
    /// `(1 − λ)·Proxy + λ·AtRest`, increases and decreases alike: the steps of the
    /// equilibrium's continuation from the proxy to the law (see [`crate::equilibrium()`]).
    Blend(f64),
}

/// What a window law sees of a subflow in the fluid model: window `w`, smoothed RTT `rtt`,
/// minimum RTT the propagation RTT, and loss counters at their means.
///
/// OLIA's inter-loss counts `l1`, `l2` (and RSF-LB's loss estimate `1/max(l1, l2)`) are set to
/// the expected number of packets between losses, `1/p` rounded; OLIA's best-path set B
/// (largest `l/τ²`) is then the set of paths with the lowest `p·τ²`, as in seed 002 §5.1
/// ("we approximate `l_r` by its average: `l_r = 1/p_r`").
pub(crate) fn law_state(w: f64, rtt: f64, prop_rtt: f64, p: f64) -> SubflowState {
    let between = if p > 0.0 { (1.0 / p).round() as u64 } else { u64::MAX };
    SubflowState {
        ssthresh: 0.0,
        min_rtt: prop_rtt,
        loss_events: u64::from(p > 0.0),
        acked: between,
        acked_between_losses: between,
        acked_since_loss: between,
        ..SubflowState::with_window(w, rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Flow, Link, Subflow};
    use mptcp_cc::Algorithm;

    #[test]
    fn losses_combine_exactly_or_to_first_order() {
        let mut net = Network::new();
        let a = net.add_link(Link::lossy("a", 0.1));
        let b = net.add_link(Link::lossy("b", 0.2));
        net.add_flow(Flow::with_algorithm("f", &Algorithm::Reno).subflow(Subflow::with_rtt(vec![a, b], 0.1)));
        let exact = Model::new(&net, &Options::default()).unwrap();
        assert!((exact.combine([0.1, 0.2].into_iter()) - 0.28).abs() < 1e-15);
        let first = Model::new(&net, &Options { small_loss: true, ..Options::default() }).unwrap();
        assert!((first.combine([0.1, 0.2].into_iter()) - 0.3).abs() < 1e-15);
        // OLIA's counters: the mean number of packets between losses.
        let s = law_state(10.0, 0.2, 0.1, 0.004);
        assert_eq!((s.acked_between_losses, s.acked_since_loss, s.loss_events), (250, 250, 1));
        assert_eq!((s.cwnd, s.srtt, s.min_rtt), (10.0, 0.2, 0.1));
    }
}
