//! Shared set-up of the equipoise benchmarks: htsim's dumbbell "D2" (BENCHMARKS.md), built from
//! `scenarios/htsim-d2.toml` exactly as `equipoise run` would build it.

use tcp::Simulation;

/// The D2 scenario file.
pub const D2: &str = include_str!("../scenarios/htsim-d2.toml");

/// D2 with `flows` flows (flow i starting at i × 1 ms / flows), simulated for `duration` with
/// statistics from `warmup`.
pub fn d2(flows: u64, duration: &str, warmup: &str) -> Simulation {
    let stagger_ps = 1_000_000_000 / flows;
    let sets: Vec<(String, String)> = [
        ("flow.tcp.count", flows.to_string()),
        ("flow.tcp.stagger", format!("{stagger_ps}ps")),
        ("sim.duration", duration.to_string()),
        ("sim.warmup", warmup.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let scenario = topologies::load_text("scenarios/htsim-d2.toml", D2, &sets).expect("D2 parses");
    scenario.build().expect("D2 builds")
}

/// Peak resident memory of this process, bytes (Linux; `None` elsewhere).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
