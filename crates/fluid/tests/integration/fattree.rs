//! A FatTree-sized network (seed 002 §6.2, Fig. 13: 128 hosts, 8 subflows each) and smaller
//! random networks for every law the solver supports. How fast they solve is measured by the
//! criterion benchmark `benches/fluid.rs` (docs/performance.md), not here: a timed test fails on a
//! loaded machine and passes a regression on a fast one.

use crate::common::law;
use fluid::{Flow, Link, Network, Options, Subflow, equilibrium};
use std::time::Instant;

/// A 64-bit linear congruential generator (Knuth's MMIX constants): routes and RTTs from a
/// fixed seed, without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `hosts` hosts, each with an access link, and as many fabric links; host i sends to host
/// `(37i + 11) mod hosts` (a permutation without fixed points for 128 hosts) over `subflows`
/// paths, each crossing the two access links and 2 or 4 distinct random fabric links (intra-
/// or inter-pod), with an RTT of 10–20 ms. All links carry 10 000 packets/s.
fn random_fabric(hosts: usize, subflows: usize, algorithm: &mptcp_cc::Algorithm, seed: u64) -> Network {
    let mut rng = Lcg(seed);
    let mut net = Network::new();
    for i in 0..hosts {
        net.add_link(Link::new(format!("host{i}"), 10_000.0));
    }
    for i in 0..hosts {
        net.add_link(Link::new(format!("fabric{i}"), 10_000.0));
    }
    for i in 0..hosts {
        let dst = (37 * i + 11) % hosts;
        let mut flow = Flow::with_algorithm(format!("host{i}→host{dst}"), algorithm);
        for _ in 0..subflows {
            let hops = 2 + 2 * rng.below(2);
            let mut path = vec![i];
            while path.len() < 1 + hops {
                let l = hosts + rng.below(hosts);
                if !path.contains(&l) {
                    path.push(l);
                }
            }
            path.push(dst);
            flow = flow.subflow(Subflow::with_rtt(path, 0.010 + 1e-4 * rng.below(100) as f64));
        }
        net.add_flow(flow);
    }
    net
}

/// 128 LIA flows × 8 subflows over 256 links, both solves of the uniqueness check included:
/// LIA's equilibrium is unique (seed 002 §4), so both solves must agree on every flow's split.
#[test]
fn fattree_sized_lia_network_solves_to_a_unique_equilibrium() {
    let net = random_fabric(128, 8, &law("lia", &[]), 42);
    let start = Instant::now();
    let eq = equilibrium(&net, &Options::default()).unwrap();
    println!("FatTree-sized LIA equilibrium (128 × 8 subflows, 256 links): {:?}, {} iterations", start.elapsed(), eq.iterations);
    assert!(eq.is_unique());
    let saturated = eq.links.iter().filter(|l| l.utilization > 1.0 - 1e-6).count();
    assert!(eq.links.iter().all(|l| l.utilization <= 1.0 + 1e-6), "no link above capacity");
    assert!(eq.links.iter().all(|l| l.utilization > 1.0 - 1e-6 || l.congestion_loss == 0.0), "complementary slackness");
    assert!(eq.flows.iter().all(|f| f.total_rate > 0.0));
    assert!(saturated > 0, "128 flows at 10 000 packets/s each saturate some links");
    println!("{saturated} of 256 links saturated");
}

/// 32 flows × 4 subflows over 64 links for each law with a fluid model in seed 000 or 001
/// (OLIA's α is discontinuous: see the crate documentation).
#[test]
fn every_law_solves_a_small_random_fabric() {
    for (name, params) in [
        ("reno", vec![]),
        ("uncoupled", vec![]),
        ("coupled", vec![]),
        ("semicoupled", vec![]),
        ("lia", vec![]),
        ("balia", vec![]),
        ("generalized", vec![("beta", 0.5), ("eta", 0.5), ("n", 2.0)]),
        ("semicoupled-phi", vec![("phi", 0.5)]),
        ("semicoupled-phi", vec![("phi", 0.0)]),
    ] {
        let net = random_fabric(32, 4, &law(name, &params), 7);
        let start = Instant::now();
        let eq = equilibrium(&net, &Options::default()).unwrap_or_else(|e| panic!("{name} {params:?}: {e}"));
        println!("{name} {params:?}: {:?}, {} iterations, unique: {}", start.elapsed(), eq.iterations, eq.is_unique());
        assert!(eq.links.iter().all(|l| l.utilization <= 1.0 + 1e-6), "{name}");
    }
}
