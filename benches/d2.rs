//! Runs htsim's dumbbell once and prints what the README's speed table reports.
//!
//! `cargo run --release -p equipoise-benches --bin d2 -- FLOWS DURATION`, or under
//! `valgrind --tool=callgrind` for instruction counts (see README.md, "Speed").

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let duration = args.get(2).map(String::as_str).unwrap_or("1s");
    let sim = equipoise_benches::d2(flows, duration, "0s");
    let start = Instant::now();
    let out = sim.run();
    let wall = start.elapsed().as_secs_f64();
    let s = out.stats;
    let link = &out.links[0];
    println!("flows {flows}, simulated {duration}");
    println!("events {} ({:.3} per delivered data packet)", s.events, s.events as f64 / s.data_delivered as f64);
    println!("delivered data packets {}", s.data_delivered);
    println!("utilization {:.5}, drop rate {:.4} %", link.utilization, 100.0 * link.loss_rate);
    println!("wall {wall:.3} s: {:.2} M events/s, {:.2} M delivered packets/s", s.events as f64 / wall / 1e6, s.data_delivered as f64 / wall / 1e6);
    if let Some(rss) = equipoise_benches::peak_rss_bytes() {
        println!("peak memory {:.1} MB", rss as f64 / 1e6);
    }
}
