//! The fluid ODE in time: RK4 and Dormand–Prince agree with each other and settle at the
//! equilibrium the solver finds (Reno; LIA on two links, at exogenous loss and behind
//! congestible links with a loss curve), and a drop-tail buffer settles where its approximation
//! says.

use crate::common;

use crate::common::{close, flow, law};
use fluid::{Integrator, Link, LossModel, Network, Options, Trajectory, TrajectoryOptions, equilibrium, trajectory};

fn both(net: &Network, opts: &Options, duration: f64) -> (Trajectory, Trajectory) {
    let rk4 = TrajectoryOptions { integrator: Integrator::Rk4 { step: 1e-3 }, ..TrajectoryOptions::new(duration, 1.0) };
    let dp = TrajectoryOptions {
        integrator: Integrator::DormandPrince { rtol: 1e-9, atol: 1e-12, max_step: 1.0 },
        ..TrajectoryOptions::new(duration, 1.0)
    };
    let (a, b) = (trajectory(net, opts, rk4).unwrap(), trajectory(net, opts, dp).unwrap());
    assert_eq!(a.rows.len(), b.rows.len());
    for (x, y) in a.rows.iter().zip(&b.rows) {
        assert_eq!((x.time_s, x.flow, x.subflow), (y.time_s, y.flow, y.subflow));
        close(x.cwnd_pkts, y.cwnd_pkts, 1e-6, &format!("RK4 and Dormand–Prince at t = {}", x.time_s));
        close(x.srtt_s, y.srtt_s, 1e-9, "RTT");
    }
    println!("RK4: {:?}; Dormand–Prince: {:?}", a.stats, b.stats);
    (a, b)
}

/// Converges from 1 packet to seed 001's `√(2(1 − p)/p)` (§3.1, line 138).
#[test]
fn reno_from_one_packet_to_the_square_root_law() {
    let mut net = Network::new();
    let l = net.add_link(Link::lossy("lossy", 0.01));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[l]], 0.1));
    let (rk4, dp) = both(&net, &Options::default(), 60.0);
    assert_eq!(rk4.rows[0].cwnd_pkts, 1.0);
    let want = (2.0 * 0.99 / 0.01f64).sqrt();
    for t in [&rk4, &dp] {
        close(t.last(0, 0).unwrap().cwnd_pkts, want, 1e-6, "settled");
        close(t.last(0, 0).unwrap().rate_pps, want / 0.1, 1e-6, "rate = w/τ");
    }
    // No slow start in the fluid model: the window first grows by about one packet per RTT.
    assert!(rk4.rows[1].cwnd_pkts > 5.0 && rk4.rows[1].cwnd_pkts < 11.0, "{}", rk4.rows[1].cwnd_pkts);
}

/// LIA on two paths of different loss and RTT, with a Reno flow on the first: the trajectory's
/// end is the equilibrium.
#[test]
fn lia_on_two_lossy_links_settles_at_the_equilibrium() {
    let mut net = Network::new();
    let a = net.add_link(Link::lossy("a", 0.01));
    let b = net.add_link(Link::lossy("b", 0.02));
    net.add_flow(flow("lia", &law("lia", &[]), &[&[a], &[b]], 0.05).subflow(fluid::Subflow::with_rtt(vec![b], 0.1)));
    let opts = Options::default();
    let eq = equilibrium(&net, &opts).unwrap();
    let (rk4, _) = both(&net, &opts, 200.0);
    for r in 0..3 {
        close(rk4.last(0, r).unwrap().cwnd_pkts, eq.flows[0].subflows[r].window.unwrap(), 1e-6, &format!("subflow {r}"));
    }
}

/// LIA and Reno sharing two congestible links whose loss follows `(y/c)^8` (no buffers):
/// the loads, losses and windows settle at the solver's equilibrium.
#[test]
fn lia_behind_loss_curves_settles_at_the_equilibrium() {
    let mut net = Network::new();
    let a = net.add_link(Link::new("a", 800.0));
    let b = net.add_link(Link::new("b", 500.0));
    net.add_flow(flow("lia", &law("lia", &[]), &[&[a], &[b]], 0.1));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[b]], 0.08));
    let opts = Options { loss_model: LossModel::Curve { exponent: 8.0 }, ..Options::default() };
    let eq = equilibrium(&net, &opts).unwrap();
    let (_, dp) = both(&net, &opts, 300.0);
    for (f, r) in [(0, 0), (0, 1), (1, 0)] {
        close(dp.last(f, r).unwrap().cwnd_pkts, eq.flows[f].subflows[r].window.unwrap(), 1e-6, &format!("flow {f} subflow {r}"));
    }
}

/// A drop-tail link (price model, buffer B) settles with a full queue, RTT `τ + B/c`, drop rate
/// `p = 1 − c/y` and Reno's balance `w² = 2(1 − p)/p`: with `w = yτ'` and `y = c/(1 − p)`,
/// `(cτ')²·p = 2(1 − p)³`.
#[test]
fn drop_tail_buffer_settles_full_with_the_queueing_delay() {
    let (c, tau, buffer) = (100.0, 0.1, 20.0);
    let mut net = Network::new();
    let l = net.add_link(Link::new("bottleneck", c).with_buffer(buffer));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[l]], tau));
    let (_, dp) = both(&net, &Options::default(), 300.0);
    let rtt = tau + buffer / c;
    let p = common::root(|p| (c * rtt).powi(2) * p - 2.0 * (1.0 - p).powi(3), 1e-9, 0.5);
    let last = dp.last(0, 0).unwrap();
    close(last.srtt_s, rtt, 1e-9, "a full queue adds B/c");
    close(last.cwnd_pkts, c * rtt / (1.0 - p), 1e-6, "window");
    close(last.rate_pps * (1.0 - p), c, 1e-6, "the link delivers c");
}
