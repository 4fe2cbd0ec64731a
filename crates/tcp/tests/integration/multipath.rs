//! Seeded multipath simulations whose outcome the papers predict: exogenous random loss and
//! ample buffers, so each path's loss rate is fixed and the window laws alone decide the split.

use mptcp_cc::{Algorithm, ParamValue};
use sim_core::{BufferLimit, Discipline, Rate, Time};
use tcp::{FlowSpec, LinkIndex, LinkSpec, RunOutput, SimConfig, Simulation, TcpConfig};

use crate::common;

/// A path with one-way delay `delay_ms` and loss `loss` (see `common::lossy`).
fn lossy(name: &str, delay_ms: u64, loss: f64) -> LinkSpec {
    common::lossy(name, Time::from_ms(delay_ms), loss)
}

fn flow(name: &str, algorithm: Algorithm, paths: Vec<Vec<LinkIndex>>) -> FlowSpec {
    // Seeds 000 and 002 run multipath subflows with a minimum ssthresh of one packet.
    let min_ssthresh = if paths.len() > 1 { 1.0 } else { 2.0 };
    common::flow(name, algorithm, paths, TcpConfig { min_ssthresh, ..TcpConfig::default() })
}

fn run(links: Vec<LinkSpec>, flows: impl Fn(&[LinkIndex]) -> Vec<FlowSpec>, seconds: u64, seed: u64) -> RunOutput {
    common::run(links, flows, seconds, 20, seed)
}

/// Goodput of one Reno flow alone on a path of `delay_ms` and `loss`.
fn tcp_alone(delay_ms: u64, loss: f64, seconds: u64) -> f64 {
    run(vec![lossy("p", delay_ms, loss)], |l| vec![flow("tcp", Algorithm::Reno, vec![vec![l[0]]])], seconds, 1).flows[0].goodput_bps
}

/// A two-path flow with `algorithm` over paths (delay, loss) `a` and `b`.
fn two_paths(algorithm: Algorithm, a: (u64, f64), b: (u64, f64), seconds: u64) -> RunOutput {
    run(vec![lossy("a", a.0, a.1), lossy("b", b.0, b.1)], |l| vec![flow("mp", algorithm.clone(), vec![vec![l[0]], vec![l[1]]])], seconds, 2)
}

fn report(label: &str, out: &RunOutput) {
    let subflows: Vec<String> =
        out.subflows.iter().map(|s| format!("{:.2} Mb/s (cwnd {:.1})", s.goodput_bps / 1e6, s.mean_cwnd_pkts)).collect();
    eprintln!("{label}: total {:.2} Mb/s = {}", out.flows[0].goodput_bps / 1e6, subflows.join(" + "));
}

#[test]
fn uncoupled_on_two_equal_paths_gets_twice_one_tcp() {
    let tcp = tcp_alone(10, 0.01, 300);
    let out = two_paths(Algorithm::Uncoupled { a: 1.0 }, (10, 0.01), (10, 0.01), 300);
    report("uncoupled", &out);
    let ratio = out.flows[0].goodput_bps / tcp;
    assert!((1.7..=2.3).contains(&ratio), "uncoupled / TCP = {ratio}");
}

#[test]
fn coupled_moves_its_traffic_to_the_less_lossy_path() {
    let out = two_paths(Algorithm::Coupled, (10, 0.005), (10, 0.03), 300);
    report("coupled", &out);
    let share = out.subflows[0].goodput_bps / out.flows[0].goodput_bps;
    assert!(share > 0.9, "share on the better path {share}");
}

fn lia_matches_tcp_on_its_best_path(a: (u64, f64), b: (u64, f64)) {
    let out = two_paths(Algorithm::Lia, a, b, 400);
    report("lia", &out);
    let (tcp_a, tcp_b) = (tcp_alone(a.0, a.1, 400), tcp_alone(b.0, b.1, 400));
    let best = tcp_a.max(tcp_b);
    let ratio = out.flows[0].goodput_bps / best;
    assert!((0.85..=1.15).contains(&ratio), "LIA / best TCP = {ratio} (TCP: {tcp_a}, {tcp_b})");
    for (s, tcp) in out.subflows.iter().zip([tcp_a, tcp_b]) {
        assert!(s.goodput_bps <= 1.1 * tcp, "subflow {} takes {} where a TCP gets {tcp}", s.subflow, s.goodput_bps);
    }
}

#[test]
fn lia_gets_what_tcp_gets_on_the_better_path_with_equal_rtts() {
    lia_matches_tcp_on_its_best_path((10, 0.005), (10, 0.02));
}

#[test]
fn lia_gets_what_tcp_gets_on_the_better_path_with_ten_times_the_rtt() {
    lia_matches_tcp_on_its_best_path((10, 0.01), (100, 0.01));
}

#[test]
fn olia_keeps_about_one_packet_per_rtt_on_a_clearly_worse_path() {
    let out = two_paths(Algorithm::Olia, (10, 0.002), (10, 0.05), 300);
    report("olia", &out);
    let worse = &out.subflows[1];
    assert!((0.8..=2.5).contains(&worse.mean_cwnd_pkts), "mean window on the worse path {}", worse.mean_cwnd_pkts);
}

#[test]
fn lia_and_tcp_share_a_bottleneck_evenly() {
    // Both subflows of the LIA flow and the TCP cross one 20 Mb/s bottleneck with a
    // random drop zone; the subflows reach it through separate access links.
    let bottleneck = LinkSpec {
        name: "bottleneck".into(),
        rate: Rate::mbps(20),
        delay: Time::from_ms(10),
        buffer: BufferLimit::Bytes(50_000),
        discipline: Discipline::RandomDropZone { depth: 25_000, probability: None },
        loss: 0.0,
        round_robin: false,
        events: vec![],
    };
    let links = vec![bottleneck, lossy("x", 1, 0.0), lossy("y", 1, 0.0), lossy("z", 1, 0.0)];
    let out = run(
        links,
        |l| {
            vec![flow("mp", Algorithm::Lia, vec![vec![l[1], l[0]], vec![l[2], l[0]]]), flow("tcp", Algorithm::Reno, vec![vec![l[3], l[0]]])]
        },
        300,
        3,
    );
    report("lia at a shared bottleneck", &out);
    let ratio = out.flows[0].goodput_bps / out.flows[1].goodput_bps;
    assert!((0.8..=1.25).contains(&ratio), "LIA / TCP = {ratio}");
}

#[test]
fn every_law_runs_a_two_path_flow_and_conserves_packets() {
    for name in Algorithm::names() {
        let given: Vec<(String, ParamValue)> = if name == "mult-tcp" { vec![("n".into(), ParamValue::Number(2.0))] } else { vec![] };
        let algorithm = Algorithm::from_params(name, &given).unwrap();
        let out = two_paths(algorithm, (5, 0.01), (20, 0.02), 40);
        assert!(out.flows[0].goodput_bps > 1e5, "{name}: {:?}", out.flows[0]);
        assert!(out.subflows.iter().all(|s| s.packets_sent > 0), "{name} uses both paths");
    }
}

/// Two 10 Mb/s paths, the second going down at 5 s for good.
fn failing_pair(receive_buffer: Option<u64>, size: Option<u64>) -> RunOutput {
    let path = |name: &str| LinkSpec {
        name: name.into(),
        rate: Rate::mbps(10),
        delay: Time::from_ms(10),
        buffer: BufferLimit::Packets(20),
        discipline: Discipline::DropTail,
        loss: 0.0,
        round_robin: false,
        events: vec![],
    };
    let mut b = path("b");
    b.events = vec![(Time::from_secs(5), false)];
    let mut sim =
        Simulation::new(SimConfig { duration: Time::from_secs(20), sample_interval: Some(Time::from_ms(50)), ..SimConfig::default() });
    let (a, b) = (sim.add_link(path("a")), sim.add_link(b));
    let mut f = flow("mp", Algorithm::Lia, vec![vec![a], vec![b]]);
    f.receive_buffer = receive_buffer;
    f.size = size;
    sim.add_flow(f);
    sim.run()
}

/// Rate of subflow 0 averaged over the samples in (from, to] seconds, bit/s.
fn rate_between(out: &RunOutput, from: f64, to: f64) -> f64 {
    let xs: Vec<f64> = out.samples.iter().filter(|s| s.subflow == 0 && s.time_s > from && s.time_s <= to).map(|s| s.rate_bps).collect();
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn a_small_receive_buffer_lets_one_subflows_timeout_stall_the_other() {
    // Seed 001 §3.3, Fig. 5: data stuck on the failed path blocks the receive buffer, so the
    // healthy subflow stops too until the retransmission timeout moves that data over. Each
    // path holds at most about 37 packets (17 in flight, 20 queued) before it loses one, so a
    // 60-packet buffer keeps both subflows busy while both paths work.
    let small = failing_pair(Some(60), None);
    let unlimited = failing_pair(None, None);
    // Subflow 0's 50 ms samples with nothing acknowledged, in the second after the failure.
    let idle =
        |out: &RunOutput| out.samples.iter().filter(|s| s.subflow == 0 && s.time_s > 5.0 && s.time_s <= 6.0 && s.rate_bps == 0.0).count();
    assert!(rate_between(&small, 3.0, 5.0) > 8e6 && small.subflows[1].packets_sent > 1000, "both paths are used before the failure");
    assert!(idle(&small) >= 2, "with a 60-packet buffer subflow 0 stops after the failure: {} idle samples", idle(&small));
    assert_eq!(idle(&unlimited), 0, "with an unlimited buffer subflow 0 keeps going");
    let flowing = rate_between(&unlimited, 5.05, 5.15);
    assert!(flowing > 5e6, "with an unlimited buffer subflow 0 keeps going: {flowing} b/s");
    // After the timeout the healthy path carries everything again.
    assert!(rate_between(&small, 8.0, 20.0) > 8e6);
    assert!(small.subflows[1].timeouts >= 1);
}

#[test]
fn data_stranded_on_a_failed_path_is_sent_again_on_the_other() {
    // 20 MB cannot finish before 5 s over 2 × 10 Mb/s; without reinjection the segments lost
    // with path b would never arrive.
    let out = failing_pair(None, Some(20_000_000));
    let done = out.flows[0].completion_time_s.expect("the transfer completes over path a alone");
    assert!(done > 5.0 && done < 20.0, "completed at {done} s");
    assert_eq!(out.flows[0].bytes_delivered, 20_000_000);
}

/// A link of `rate_mbps` and one-way delay `delay_ms` whose buffer never fills in these runs.
fn lossless(name: &str, rate_mbps: u64, delay_ms: u64) -> LinkSpec {
    LinkSpec { rate: Rate::mbps(rate_mbps), buffer: BufferLimit::Packets(100_000), ..lossy(name, delay_ms, 0.0) }
}

/// Goodput counts each data segment once, when it is first received whole, in order or not:
/// without loss, a flow's goodput is the sum of its subflows', though at the end (or at its
/// stop) the receiver holds a 100 ms path's worth of the 5 ms path's data out of order.
#[test]
fn goodput_counts_data_held_out_of_order_when_it_arrived() {
    let links = vec![lossless("a", 10, 5), lossless("b", 10, 100), lossless("c", 10, 5), lossless("d", 10, 100)];
    let flows = |l: &[LinkIndex]| {
        let mut stopping = flow("stopping", Algorithm::Lia, vec![vec![l[2]], vec![l[3]]]);
        stopping.stop = Some(Time::from_ms(2_500));
        vec![flow("bulk", Algorithm::Lia, vec![vec![l[0]], vec![l[1]]]), stopping]
    };
    for warmup in [0, 1] {
        let out = common::run(links.clone(), flows, 4, warmup, 1);
        for f in &out.flows {
            assert_eq!(f.retransmissions, 0, "warm-up {warmup} s: {f:?}");
            let subflows: f64 = out.subflows.iter().filter(|s| s.flow == f.flow).map(|s| s.goodput_bps).sum();
            assert!(f.goodput_bps > 1e6, "warm-up {warmup} s: {f:?}");
            assert!(
                (f.goodput_bps - subflows).abs() <= 1e-9 * subflows,
                "warm-up {warmup} s: {} at {} b/s, its subflows {subflows}",
                f.flow,
                f.goodput_bps
            );
        }
    }
}
