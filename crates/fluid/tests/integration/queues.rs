//! Equilibria with standing queues (`Link::standing_queue`): a link at capacity holds a queue
//! between empty and full and loses packets only when it is full. Checked against closed forms
//! and against the ODE's own resting point with a drop-tail buffer of the same size.

use crate::common::{close, flow, law};
use fluid::{Integrator, Link, Network, Options, TrajectoryOptions, equilibrium, trajectory};

/// A lone Reno flow fills the queue and is held by loss there: `x = c`, RTT `τ + Q/c`,
/// `w = c·RTT`, and `w = √(2(1 − p)/p)` gives the loss.
#[test]
fn a_lone_flow_fills_the_queue_and_loses_there() {
    let (c, q, tau) = (1000.0, 50.0, 0.02);
    let mut net = Network::new();
    let l = net.add_link(Link::new("l", c).with_standing_queue(q));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[l]], tau));
    let eq = equilibrium(&net, &Options::default()).unwrap();
    let rtt = tau + q / c;
    let w = c * rtt;
    let s = &eq.flows[0].subflows[0];
    close(s.rtt, rtt, 1e-9, "RTT with the full queue");
    close(s.window.unwrap(), w, 1e-6, "window");
    close(eq.links[0].queueing_delay, q / c, 1e-9, "queueing delay");
    close(eq.links[0].congestion_loss, 2.0 / (w * w + 2.0), 1e-6, "loss from w² = 2(1 − p)/p");
}

/// A Reno flow held by exogenous loss elsewhere keeps a partly filled queue at a link it would
/// otherwise overrun: its window is `√(2(1 − p)/p)` of the exogenous loss, the link runs at
/// capacity with no loss, and the queue is `w − c·τ` packets.
#[test]
fn a_flow_held_by_loss_elsewhere_keeps_a_partial_queue() {
    let (c, q, tau, p) = (1000.0, 50.0, 0.01, 0.01);
    let mut net = Network::new();
    let l = net.add_link(Link::new("l", c).with_standing_queue(q));
    let lossy = net.add_link(Link::lossy("lossy", p));
    net.add_flow(flow("reno", &law("reno", &[]), &[&[l, lossy]], tau));
    let eq = equilibrium(&net, &Options::default()).unwrap();
    let w = (2.0 * (1.0 - p) / p).sqrt();
    assert!(w > c * tau && w < c * tau + q, "the case needs a partial queue");
    close(eq.flows[0].subflows[0].window.unwrap(), w, 1e-6, "window");
    close(eq.links[0].utilization, 1.0, 1e-6, "utilization");
    assert_eq!(eq.links[0].congestion_loss, 0.0);
    close(eq.links[0].queueing_delay * c, w - c * tau, 1e-6, "queue, packets");
}

/// Two Reno flows of different propagation RTTs behind one full queue see the same loss, so
/// the same window, and share the capacity in inverse proportion to their RTTs.
#[test]
fn flows_behind_one_full_queue_share_by_their_rtts() {
    let (c, q) = (2000.0, 100.0);
    let mut net = Network::new();
    let l = net.add_link(Link::new("l", c).with_standing_queue(q));
    net.add_flow(flow("near", &law("reno", &[]), &[&[l]], 0.01));
    net.add_flow(flow("far", &law("reno", &[]), &[&[l]], 0.09));
    let eq = equilibrium(&net, &Options::default()).unwrap();
    let (r1, r2) = (0.01 + q / c, 0.09 + q / c);
    let x1 = c / (1.0 + r1 / r2);
    close(eq.flows[0].total_rate, x1, 1e-6, "near flow's rate");
    close(eq.flows[1].total_rate, c - x1, 1e-6, "far flow's rate");
    close(eq.flows[0].subflows[0].window.unwrap(), eq.flows[1].subflows[0].window.unwrap(), 1e-6, "equal windows");
}

/// The ODE with drop-tail buffers of the standing queues' size comes to rest where the
/// equilibrium solver puts it when no queue is full (no loss at the queues): LIA over two
/// paths, each a queued link and an exogenous loss.
#[test]
fn lia_with_partial_queues_rests_where_the_ode_does() {
    let mut net = Network::new();
    let a = net.add_link(Link::new("a", 500.0).with_buffer(200.0).with_standing_queue(200.0));
    let b = net.add_link(Link::new("b", 300.0).with_buffer(200.0).with_standing_queue(200.0));
    let la = net.add_link(Link::lossy("loss-a", 0.002));
    let lb = net.add_link(Link::lossy("loss-b", 0.004));
    let lia = law("lia", &[]);
    net.add_flow(flow("mp", &lia, &[&[a, la], &[b, lb]], 0.02));
    net.add_flow(flow("tcp", &law("reno", &[]), &[&[b, lb]], 0.05));
    let opts = Options::default();
    let eq = equilibrium(&net, &opts).unwrap();
    for l in &eq.links[..2] {
        close(l.utilization, 1.0, 1e-6, &format!("link {} at capacity", l.name));
        assert_eq!(l.congestion_loss, 0.0, "link {}: no loss", l.name);
        assert!(l.queueing_delay > 0.0 && l.queueing_delay * 500.0 < 200.0, "link {}: a partial queue", l.name);
    }
    let t = trajectory(
        &net,
        &opts,
        TrajectoryOptions {
            integrator: Integrator::DormandPrince { rtol: 1e-9, atol: 1e-12, max_step: 1.0 },
            ..TrajectoryOptions::new(3000.0, 1000.0)
        },
    )
    .unwrap();
    for (f, flow) in eq.flows.iter().enumerate() {
        for (r, s) in flow.subflows.iter().enumerate() {
            let end = t.last(f, r).unwrap();
            close(end.cwnd_pkts, s.window.unwrap(), 1e-4, &format!("{} subflow {r}: window", flow.name));
            close(end.srtt_s, s.rtt, 1e-4, &format!("{} subflow {r}: RTT", flow.name));
        }
    }
}
