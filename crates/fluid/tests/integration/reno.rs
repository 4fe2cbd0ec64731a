//! TCP's square-root law at exogenous loss, the three constants, and the errors.

use crate::common::{close, flow, law};
use fluid::{FluidError, Link, Network, Options, TcpConstant, equilibrium};

/// One Reno flow through one link that never congests and drops with probability `p`.
fn reno_at(p: f64) -> Network {
    let mut net = Network::new();
    let l = net.add_link(Link::lossy("lossy", p));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[l]], 0.1));
    net
}

/// Seed 000 §II-B (line 97: NewReno's `φ_r = 2/(τ_r² x_r²)`, so `w = √(2/p)` to first order) and
/// seed 001 §3.1 (line 138: the balance `(1 − p)·a/w² = p/b` keeps the factor `1 − p`):
/// `w = √(2k(1 − p)/p)` with `k` = 1, 3/4, 3/8.
#[test]
fn reno_follows_the_square_root_law_with_each_constant() {
    for p in [1e-4, 1e-3, 0.01, 0.05, 0.2] {
        for (constant, k) in [(TcpConstant::Papers, 1.0), (TcpConstant::Packet, 0.75), (TcpConstant::PacketDelayedAck, 0.375)] {
            let eq = equilibrium(&reno_at(p), &Options { constant, ..Options::default() }).unwrap();
            let w = eq.flows[0].subflows[0].window.unwrap();
            close(w, (2.0 * k * (1.0 - p) / p).sqrt(), 1e-8, &format!("{constant:?} at p = {p}"));
            close(eq.flows[0].total_rate, w / 0.1, 1e-12, "rate = w/τ");
            close(eq.flows[0].subflows[0].path_loss, p, 1e-12, "path loss");
        }
        // The papers' first-order model drops the 1 − p: w = √(2/p) exactly.
        let eq = equilibrium(&reno_at(p), &Options { small_loss: true, ..Options::default() }).unwrap();
        close(eq.flows[0].subflows[0].window.unwrap(), (2.0 / p).sqrt(), 1e-8, &format!("small-loss model at p = {p}"));
    }
}

/// A congested link: N Reno flows share capacity c at loss p with `N·w/τ = c` and
/// `w = √(2(1 − p)/p)`, i.e. `p = 2/(w² + 2)` with `w = cτ/N`.
#[test]
fn reno_flows_share_a_congested_link_at_the_price_that_fills_it() {
    let (c, tau, n) = (1000.0, 0.1, 4);
    let mut net = Network::new();
    let l = net.add_link(Link::new("bottleneck", c));
    for i in 0..n {
        net.add_flow(flow(&format!("tcp{i}"), &law("reno", &[]), &[&[l]], tau));
    }
    let eq = equilibrium(&net, &Options::default()).unwrap();
    let w = c * tau / n as f64;
    close(eq.links[0].loss, 2.0 / (w * w + 2.0), 1e-8, "p");
    close(eq.links[0].utilization, 1.0, 1e-8, "utilization");
    for f in &eq.flows {
        close(f.total_rate, c / n as f64, 1e-8, "fair share");
    }
}

/// An uncongested finite link gets no price (complementary slackness), and a loss curve
/// `p = (y/c)^B` is met exactly.
#[test]
fn complementary_slackness_and_the_loss_curve() {
    let mut net = Network::new();
    let lossy = net.add_link(Link::lossy("lossy", 0.01));
    let wide = net.add_link(Link::new("wide", 1e6));
    net.add_flow(flow("tcp", &law("reno", &[]), &[&[lossy, wide]], 0.1));
    let eq = equilibrium(&net, &Options::default()).unwrap();
    assert_eq!(eq.links[1].congestion_loss, 0.0);
    assert!(eq.links[1].utilization < 1e-3);
    close(eq.flows[0].subflows[0].window.unwrap(), (2.0 * 0.99 / 0.01f64).sqrt(), 1e-8, "window set by the lossy link alone");

    let mut net = Network::new();
    let l = net.add_link(Link::new("red", 500.0));
    net.add_flow(flow("tcp", &law("reno", &[]), &[&[l]], 0.1));
    let opts = Options { loss_model: fluid::LossModel::Curve { exponent: 4.0 }, ..Options::default() };
    let eq = equilibrium(&net, &opts).unwrap();
    let (y, p) = (eq.links[0].load, eq.links[0].loss);
    close(p, (y / 500.0f64).powi(4), 1e-8, "p = (y/c)^4");
    let w = y * 0.1;
    close(w, (2.0 * (1.0 - p) / p).sqrt(), 1e-8, "window balanced at that loss");
}

#[test]
fn a_path_without_loss_has_no_equilibrium_and_the_error_names_the_flow() {
    let mut net = Network::new();
    let free = net.add_link(Link::new("free", f64::INFINITY));
    let lossy = net.add_link(Link::lossy("lossy", 0.01));
    net.add_flow(flow("fine", &law("reno", &[]), &[&[lossy]], 0.1));
    net.add_flow(flow("greedy", &law("lia", &[]), &[&[lossy], &[free]], 0.1));
    match equilibrium(&net, &Options::default()) {
        Err(FluidError::NoEquilibrium { flow, reason }) => {
            assert_eq!(flow, "greedy");
            assert!(reason.contains("subflow 1") && reason.contains("without bound"), "{reason}");
        }
        other => panic!("expected NoEquilibrium, got {other:?}"),
    }
}

#[test]
fn invalid_networks_and_exhausted_iterations_are_errors_naming_the_culprit() {
    let mut net = Network::new();
    net.add_link(Link::new("l", 100.0));
    net.add_flow(flow("lost", &law("reno", &[]), &[&[3]], 0.1));
    let err = equilibrium(&net, &Options::default()).unwrap_err();
    assert!(matches!(&err, FluidError::InvalidNetwork(m) if m.contains("\"lost\"") && m.contains("link index 3")), "{err}");

    let mut net = Network::new();
    net.add_link(Link::new("l", 100.0).with_loss(1.5));
    assert!(matches!(equilibrium(&net, &Options::default()), Err(FluidError::InvalidNetwork(m)) if m.contains("loss 1.5")));

    let mut net = Network::new();
    let l = net.add_link(Link::new("bottleneck", 1000.0));
    net.add_flow(flow("tcp", &law("reno", &[]), &[&[l]], 0.1));
    let opts = Options { max_iterations: 0, ..Options::default() };
    match equilibrium(&net, &opts) {
        Err(e @ FluidError::NotConverged { .. }) => assert!(e.to_string().contains("has residual"), "{e}"),
        other => panic!("expected NotConverged, got {other:?}"),
    }
}
