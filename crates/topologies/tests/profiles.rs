//! The TCP profiles on the shipped scenarios, against what the platforms they model measured.

use std::path::Path;

use tcp::RunOutput;

fn scenario(file: &str, sets: &[(&str, String)]) -> RunOutput {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let s = topologies::load(&path, &sets).expect("loads");
    s.build().expect("builds").run()
}

fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    sum * sum / (xs.len() as f64 * xs.iter().map(|x| x * x).sum::<f64>())
}

/// htsim's dumbbell D2 with the `htsim` profile, against csg-htsim's own runs of it
/// (docs/spec/BENCHMARKS.md: 10 s, statistics from 1 s): utilization, drop rate within 20 %, fairness at
/// N = 10, and events per delivered packet.
#[test]
fn d2_with_the_htsim_profile_behaves_as_htsim() {
    for (n, htsim_drop_percent) in [(10u64, 0.610), (100, 2.733), (1000, 2.614), (10_000, 2.883)] {
        let stagger_ps = 1_000_000_000 / n;
        let out = scenario(
            "htsim-d2.toml",
            &[("flow.tcp.count", n.to_string()), ("flow.tcp.stagger", format!("{stagger_ps}ps")), ("tcp.profile", "\"htsim\"".into())],
        );
        let link = &out.links[0];
        let drop = 100.0 * link.loss_rate;
        let goodputs: Vec<f64> = out.flows.iter().map(|f| f.goodput_bps).collect();
        let events_per_packet = out.stats.events as f64 / out.stats.data_delivered as f64;
        eprintln!(
            "N = {n}: utilization {:.5}, drop {drop:.3} % (htsim {htsim_drop_percent} %), Jain {:.3}, {events_per_packet:.3} events per packet",
            link.utilization,
            jain(&goodputs)
        );
        assert!(link.utilization >= 0.998, "N = {n}: utilization {}", link.utilization);
        assert!((drop / htsim_drop_percent - 1.0).abs() <= 0.2, "N = {n}: drop rate {drop} % against htsim's {htsim_drop_percent} %");
        assert!(events_per_packet <= 3.0, "N = {n}: {events_per_packet} events per delivered packet");
        if n == 10 {
            assert!(jain(&goodputs) >= 0.97, "Jain's index {}", jain(&goodputs));
        }
    }
}

/// Seed 001 Fig. 9 (left) with the `linux` profile: the multipath flow gets about what a TCP on
/// link 1 gets, whatever the seed (with `newreno` it got 0.09-0.12 Mb/s for four seeds of five,
/// measured here; issue 11 traced it to Karn's rule holding the backoff through a go-back-N).
#[test]
fn seed001_fig9_multipath_flow_keeps_up_with_a_link1_tcp_for_every_seed() {
    for seed in 1..=5u64 {
        let out = scenario(
            "seed001-fig9.toml",
            &[("tcp.profile", "\"linux\"".into()), ("sim.seed", seed.to_string()), ("sim.sample_interval", "\"10s\"".into())],
        );
        let mp = out.flows.iter().find(|f| &*f.flow == "mp").expect("mp").goodput_bps;
        let link1: Vec<f64> = out.flows.iter().filter(|f| f.flow.starts_with("tcp1.")).map(|f| f.goodput_bps).collect();
        let tcp = link1.iter().sum::<f64>() / link1.len() as f64;
        eprintln!("seed {seed}: multipath {:.3} Mb/s, link-1 TCP {:.3} Mb/s, ratio {:.3}", mp / 1e6, tcp / 1e6, mp / tcp);
        assert!((mp / tcp - 1.0).abs() <= 0.3, "seed {seed}: multipath {mp} against a link-1 TCP's {tcp}");
    }
}
