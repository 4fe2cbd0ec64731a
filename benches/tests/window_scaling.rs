//! Every per-acknowledgement and per-event operation costs what it must touch, not the window:
//! a delivered packet with a window of a million packets costs at most three times what it
//! costs with a hundred, through SACK and RACK recovery, timeouts and reinjection.

use std::time::Instant;

use equipoise_benches::two_path_recovery;

/// Seconds of wall time per delivered packet, the fastest of three runs (the others shared the
/// machine with something), and the last run's output.
fn cost(window: u64) -> (f64, tcp::RunOutput) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..3 {
        let sim = two_path_recovery(window);
        let started = Instant::now();
        let out = sim.run();
        best = best.min(started.elapsed().as_secs_f64() / out.stats.data_delivered as f64);
        last = Some(out);
    }
    (best, last.expect("three runs"))
}

#[test]
fn a_million_packet_window_costs_at_most_three_times_a_hundred_packet_one_per_packet() {
    let (small, _) = cost(100);
    let (large, out) = cost(1_000_000);
    // The large case exercises what it is meant to: a window near a million packets, recovery
    // of hundreds of thousands of segments, and timeouts.
    assert!(out.stats.peak_packets > 500_000, "peak packets {}", out.stats.peak_packets);
    assert!(out.subflows.iter().map(|s| s.retransmissions).sum::<u64>() > 100_000, "too few retransmissions to test recovery");
    assert!(out.subflows.iter().map(|s| s.timeouts).sum::<u64>() >= 1, "no timeout");
    assert!(out.stats.data_delivered > 1_000_000, "{} delivered", out.stats.data_delivered);
    let ratio = large / small;
    assert!(
        ratio <= 3.0,
        "a delivered packet costs {ratio:.2} times as much with a million-packet window ({:.0} ns against {:.0} ns)",
        large * 1e9,
        small * 1e9
    );
}
