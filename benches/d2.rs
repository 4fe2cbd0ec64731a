//! Runs htsim's dumbbell once and prints what docs/performance.md's D2 table reports.
//!
//! `cargo run --release -p equipoise-benches --bin d2 -- FLOWS DURATION [WARMUP [PROFILE]]`, or under
//! `valgrind --tool=callgrind` for instruction counts (see docs/performance.md, "How it is measured");
//! `d2 idle N` reports the memory of N flows that have not started.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("idle") {
        let flows: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
        let bytes = equipoise_benches::idle_flows_memory(flows).expect("Linux /proc");
        equipoise_benches::print_report(&[format!(
            "{flows} idle flows: {:.1} MB, {:.0} bytes per flow",
            bytes as f64 / 1e6,
            bytes as f64 / flows as f64
        )]);
        return;
    }
    let flows: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let duration = args.get(2).map(String::as_str).unwrap_or("1s");
    let warmup = args.get(3).map(String::as_str).unwrap_or("0s");
    let profile = args.get(4).map(String::as_str);
    // D2_DROP_TRACE=PATH: every drop at the bottleneck, as benches/htsim-compare's htsim
    // driver writes them.
    let sim = match std::env::var_os("D2_DROP_TRACE") {
        Some(path) => {
            let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            let trace = Box::new(std::io::BufWriter::new(file));
            equipoise_benches::d2_tracing_drops(flows, duration, warmup, profile, trace)
        }
        None => equipoise_benches::d2_with_profile(flows, duration, warmup, profile),
    };
    let built = equipoise_benches::rss_bytes();
    let start = Instant::now();
    let out = sim.run();
    let wall = start.elapsed().as_secs_f64();
    let s = out.stats;
    let link = &out.links[0];
    let timeouts: u64 = out.flows.iter().map(|f| f.timeouts).sum();
    let goodputs: Vec<f64> = out.flows.iter().map(|f| f.goodput_bps).collect();
    let mut report = vec![
        format!("flows {flows}, simulated {duration}, statistics from {warmup}, profile {}", profile.unwrap_or("htsim")),
        format!("events {} ({:.3} per delivered data packet)", s.events, s.events as f64 / s.data_delivered as f64),
        format!("delivered data packets {}", s.data_delivered),
        format!("utilization {:.5}, drop rate {:.4} % (after the warm-up)", link.utilization, 100.0 * link.loss_rate),
        format!("timeouts {timeouts} (after the warm-up)"),
        format!("jain {:.4} (per-flow goodput after the warm-up)", topologies::metrics::jain_index(&goodputs)),
        format!(
            "wall {wall:.3} s: {:.2} M events/s, {:.2} M delivered packets/s",
            s.events as f64 / wall / 1e6,
            s.data_delivered as f64 / wall / 1e6
        ),
    ];
    if let (Some(peak), Some(built)) = (equipoise_benches::peak_rss_bytes(), built) {
        report.push(format!("memory once built {:.1} MB, peak {:.1} MB", built as f64 / 1e6, peak as f64 / 1e6));
    }
    equipoise_benches::print_report(&report);
}
