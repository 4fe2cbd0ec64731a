//! What the simulation tests share: paths of fixed loss, flows, and a run whose packets are all
//! accounted for.

use mptcp_cc::Algorithm;
use sim_core::{BufferLimit, Discipline, Rate, Time};
use tcp::{FlowSpec, LinkIndex, LinkSpec, RunOutput, SimConfig, Simulation, TcpConfig};

/// A path: a fast link (so the queue stays empty) with one-way delay `delay` and loss `loss`.
pub fn lossy(name: &str, delay: Time, loss: f64) -> LinkSpec {
    LinkSpec {
        name: name.into(),
        rate: Rate::gbps(1),
        delay,
        buffer: BufferLimit::Packets(100_000),
        discipline: Discipline::DropTail,
        loss,
        round_robin: false,
        events: vec![],
    }
}

/// A bulk flow from time zero over `paths` (one subflow each).
pub fn flow(name: &str, algorithm: Algorithm, paths: Vec<Vec<LinkIndex>>, tcp: TcpConfig) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        algorithm,
        paths,
        reverse_paths: None,
        start: Time::ZERO,
        stop: None,
        size: None,
        receive_buffer: None,
        tcp,
    }
}

/// Runs `flows` over `links` for `seconds`, statistics from `warmup` seconds, and checks that
/// every data packet sent was delivered, dropped or is still in flight.
pub fn run(links: Vec<LinkSpec>, flows: impl Fn(&[LinkIndex]) -> Vec<FlowSpec>, seconds: u64, warmup: u64, seed: u64) -> RunOutput {
    let config = SimConfig { duration: Time::from_secs(seconds), warmup: Time::from_secs(warmup), seed, ..SimConfig::default() };
    let mut sim = Simulation::new(config);
    let ids: Vec<LinkIndex> = links.into_iter().map(|l| sim.add_link(l)).collect();
    for f in flows(&ids) {
        sim.add_flow(f);
    }
    let out = sim.run();
    let s = out.stats;
    assert_eq!(s.data_sent, s.data_delivered + s.data_dropped + s.data_in_flight, "{s:?}");
    out
}
