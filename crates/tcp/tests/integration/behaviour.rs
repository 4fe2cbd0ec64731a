//! Analytic oracles and seeded simulations of single-path TCP.

use mptcp_cc::Algorithm;
use sim_core::{BufferLimit, Discipline, Rate, Red, Time};
use tcp::{FlowSpec, LinkIndex, LinkSpec, Recovery, RunOutput, SimConfig, Simulation, TcpConfig};

fn link(name: &str, rate: Rate, delay: Time, buffer: BufferLimit) -> LinkSpec {
    LinkSpec { name: name.into(), rate, delay, buffer, discipline: Discipline::DropTail, loss: 0.0, round_robin: false, events: vec![] }
}

fn bulk(name: &str, path: Vec<LinkIndex>, start: Time) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        algorithm: Algorithm::Reno,
        paths: vec![path],
        reverse_paths: None,
        start,
        stop: None,
        size: None,
        receive_buffer: None,
        tcp: TcpConfig::default(),
    }
}

fn config(duration: Time, warmup: Time, seed: u64) -> SimConfig {
    SimConfig { duration, warmup, seed, ..SimConfig::default() }
}

fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    sum * sum / (xs.len() as f64 * xs.iter().map(|x| x * x).sum::<f64>())
}

fn assert_conserved(out: &RunOutput) {
    let s = out.stats;
    assert_eq!(s.data_sent, s.data_delivered + s.data_dropped + s.data_in_flight, "{s:?}");
}

#[test]
fn uncontended_transfer_takes_its_ideal_time() {
    // 100 Mb/s, 10 ms each way, ample buffer; ACKs are not serialized.
    let (rate, d) = (Rate::mbps(100), Time::from_ms(10));
    let t = rate.serialization_time(1500);
    let segments: u64 = 500;
    let mut sim = Simulation::new(config(Time::from_secs(5), Time::ZERO, 1));
    let l = sim.add_link(link("l", rate, d, BufferLimit::Packets(10_000)));
    let mut f = bulk("f", vec![l], Time::ZERO);
    f.size = Some(segments * 1500);
    sim.add_flow(f);
    let out = sim.run();

    // Slow start from 10 packets doubles per round. Round k (w_k = 10·2^k packets) begins when
    // the first ACK of round k-1 returns, k·(T + 2d) after the start, and while a round fits in
    // the pipe (w_k·T ≤ T + 2d) the link is idle when it begins; within a round the bottleneck
    // is busy, so its j-th packet leaves j·T after the round begins and arrives d later.
    let (mut round, mut sent, mut w) = (0u64, 0u64, 10u64);
    while sent + w < segments {
        assert!(w * t.as_ps() <= (t + d + d).as_ps(), "the oracle needs rounds that fit the pipe");
        sent += w;
        w *= 2;
        round += 1;
    }
    let j = segments - sent;
    let ideal = Time((t + d + d).as_ps() * round) + Time(t.as_ps() * j) + d;
    let got = Time::from_secs_f64(out.flows[0].completion_time_s.expect("completed"));
    assert!(got.as_ps().abs_diff(ideal.as_ps()) <= t.as_ps(), "completion {got}, ideal {ideal}");
    assert_eq!(out.flows[0].bytes_delivered, segments * 1500);
    assert_eq!(out.flows[0].retransmissions, 0);
    assert_conserved(&out);
}

fn one_bulk_flow_utilization(buffer: BufferLimit) -> f64 {
    let mut sim = Simulation::new(config(Time::from_secs(60), Time::from_secs(10), 1));
    let l = sim.add_link(link("l", Rate::mbps(100), Time::from_ms(10), buffer));
    sim.add_flow(bulk("f", vec![l], Time::ZERO));
    let out = sim.run();
    assert_conserved(&out);
    out.links[0].utilization
}

#[test]
fn one_bdp_of_buffer_keeps_the_link_busy() {
    // BDP at 100 Mb/s and 20 ms: 250 000 bytes.
    let u = one_bulk_flow_utilization(BufferLimit::Bytes(250_000));
    assert!(u >= 0.98, "utilization {u}");
}

#[test]
fn a_tiny_buffer_leaves_a_quarter_idle() {
    // Seed 004 §I: with (almost) no buffer one AIMD flow averages (1 + 1/2)/2 = 3/4 of capacity.
    let u = one_bulk_flow_utilization(BufferLimit::Packets(3));
    assert!((0.72..=0.80).contains(&u), "utilization {u}");
}

#[test]
fn ten_flows_with_equal_rtts_share_fairly() {
    let mut sim = Simulation::new(config(Time::from_secs(200), Time::from_secs(20), 7));
    let l = sim.add_link(link("l", Rate::mbps(100), Time::from_ms(10), BufferLimit::Bytes(250_000)));
    for i in 0..10 {
        sim.add_flow(bulk(&format!("f{i}"), vec![l], Time::from_ms(10 * i)));
    }
    let out = sim.run();
    assert_conserved(&out);
    let goodputs: Vec<f64> = out.flows.iter().map(|f| f.goodput_bps).collect();
    let index = jain(&goodputs);
    assert!(index >= 0.95, "Jain's index {index}: {goodputs:?}");
    assert!(out.links[0].utilization > 0.97);
}

/// Mathis et al. (1997): without delayed ACKs, a Reno flow losing a fraction p of its packets
/// sends `sqrt(3/(2p))` packets per RTT. The constant sqrt(3/2) is the one of a periodic
/// sawtooth (each cycle W/2 → W carries 3W²/8 packets, one lost); random loss spreads cycle
/// lengths around it, and the 15% tolerance covers that and the few timeouts NewReno takes.
fn square_root_law_ratio(p: f64, seconds: u64) -> f64 {
    let rtt = Time::from_ms(20);
    let mut sim = Simulation::new(config(Time::from_secs(seconds), Time::from_secs(10), 3));
    let mut spec = link("l", Rate::gbps(1), Time::from_ms(10), BufferLimit::Packets(100_000));
    spec.loss = p;
    let l = sim.add_link(spec);
    sim.add_flow(bulk("f", vec![l], Time::ZERO));
    let out = sim.run();
    assert_conserved(&out);
    let predicted = 1500.0 * 8.0 / rtt.as_secs_f64() * (1.5 / p).sqrt();
    out.flows[0].goodput_bps / predicted
}

#[test]
fn random_loss_follows_the_square_root_law_at_one_percent() {
    let ratio = square_root_law_ratio(0.01, 400);
    assert!((0.85..=1.15).contains(&ratio), "throughput / sqrt law = {ratio}");
}

#[test]
fn random_loss_follows_the_square_root_law_at_a_tenth_of_a_percent() {
    let ratio = square_root_law_ratio(0.001, 400);
    assert!((0.85..=1.15).contains(&ratio), "throughput / sqrt law = {ratio}");
}

#[test]
fn red_drops_nothing_below_its_minimum_threshold() {
    // A 10 Mb/s access link is the bottleneck; the 100 Mb/s RED link after it never holds more
    // than a packet or two, far below its 20-packet minimum threshold.
    let mut sim = Simulation::new(config(Time::from_secs(30), Time::ZERO, 5));
    let access = sim.add_link(link("access", Rate::mbps(10), Time::from_ms(5), BufferLimit::Packets(50)));
    let mut red = link("red", Rate::mbps(100), Time::from_ms(5), BufferLimit::Packets(1000));
    red.discipline = Discipline::Red(Red::new(30_000, 90_000, 0.1, 0.002, false, Rate::mbps(100).serialization_time(1500)));
    let red = sim.add_link(red);
    for i in 0..3 {
        sim.add_flow(bulk(&format!("f{i}"), vec![access, red], Time::from_ms(i)));
    }
    let out = sim.run();
    assert_conserved(&out);
    assert!(out.links[0].queue_drops > 10, "the access link is congested");
    assert!(out.links[1].departures > 20_000);
    assert!(out.links[1].max_queue_pkts < 20);
    assert_eq!(out.links[1].queue_drops, 0);
}

#[test]
fn same_seed_same_results_and_different_seed_different_losses() {
    let run = |seed| {
        let mut sim = Simulation::new(config(Time::from_secs(20), Time::from_secs(2), seed));
        let mut spec = link("l", Rate::mbps(50), Time::from_ms(5), BufferLimit::Packets(50));
        spec.loss = 0.002;
        let l = sim.add_link(spec);
        for i in 0..4 {
            sim.add_flow(bulk(&format!("f{i}"), vec![l], Time::from_ms(3 * i)));
        }
        format!("{:?}", sim.run())
    };
    assert_eq!(run(11), run(11));
    assert_ne!(run(11), run(12));
}

#[test]
fn a_down_link_stops_traffic_and_recovery_follows_it_coming_back() {
    let mut sim = Simulation::new(config(Time::from_secs(10), Time::ZERO, 1));
    let mut spec = link("l", Rate::mbps(10), Time::from_ms(10), BufferLimit::Packets(100));
    spec.events = vec![(Time::from_secs(2), false), (Time::from_secs(4), true)];
    let l = sim.add_link(spec);
    sim.add_flow(bulk("f", vec![l], Time::ZERO));
    let out = sim.run();
    assert_conserved(&out);
    assert!(out.links[0].down_drops > 0);
    assert!(out.flows[0].timeouts >= 2, "backed-off timeouts while down");
    // it recovers: well over half of the 8 s of up time is used
    assert!(out.links[0].utilization > 0.5, "utilization {}", out.links[0].utilization);
}

#[test]
fn acks_cross_a_given_reverse_path_and_delayed_acks_halve_them() {
    let run = |delayed_ack: bool| {
        let mut sim = Simulation::new(config(Time::from_secs(10), Time::ZERO, 1));
        let fwd = sim.add_link(link("fwd", Rate::mbps(10), Time::from_ms(10), BufferLimit::Packets(100)));
        let back = sim.add_link(link("back", Rate::mbps(1), Time::from_ms(10), BufferLimit::Packets(1000)));
        let mut f = bulk("f", vec![fwd], Time::ZERO);
        f.reverse_paths = Some(vec![vec![back]]);
        f.tcp.delayed_ack = delayed_ack;
        sim.add_flow(f);
        let out = sim.run();
        assert_conserved(&out);
        out
    };
    let (every, delayed) = (run(false), run(true));
    // Every data packet is acknowledged over the reverse link's queue: 40-byte ACKs.
    let data = every.stats.data_delivered as f64;
    let acks = every.links[1].departures as f64;
    assert!((acks - data).abs() <= 2.0 + 0.001 * data, "{acks} ACKs for {data} packets");
    assert!(every.links[1].mean_queue_bytes > 0.0, "the ACKs are serialized and queue");
    // Delayed ACKs: one per two segments (plus timer-driven ones), and the link stays busy.
    let ratio = delayed.links[1].departures as f64 / delayed.stats.data_delivered as f64;
    assert!((0.49..0.56).contains(&ratio), "ACKs per packet with delayed ACKs: {ratio}");
    assert!(delayed.links[0].utilization > 0.9, "utilization {}", delayed.links[0].utilization);
}

#[test]
fn instant_acks_take_the_way_back_out_of_the_round_trip() {
    let run = |instant_acks: bool| {
        let mut sim = Simulation::new(config(Time::from_secs(2), Time::ZERO, 1));
        let l = sim.add_link(link("l", Rate::mbps(100), Time::from_ms(10), BufferLimit::Packets(1000)));
        let mut f = bulk("f", vec![l], Time::ZERO);
        f.tcp.instant_acks = instant_acks;
        // A window of 20 packets: far below the link's, so the RTT sets the rate.
        f.receive_buffer = Some(20);
        sim.add_flow(f);
        let out = sim.run();
        assert_conserved(&out);
        out
    };
    let (back, instant) = (run(false), run(true));
    // The minimum RTT: the data's serialization (0.12 ms) and 10 ms each way, or one way.
    let serialization = 1500.0 * 8.0 / 100e6;
    assert!((back.subflows[0].min_rtt_s - (0.020 + serialization)).abs() < 1e-6, "{}", back.subflows[0].min_rtt_s);
    assert!((instant.subflows[0].min_rtt_s - (0.010 + serialization)).abs() < 1e-6, "{}", instant.subflows[0].min_rtt_s);
    // 20 packets a round trip: twice the rate when the round trip is half.
    let ratio = instant.flows[0].goodput_bps / back.flows[0].goodput_bps;
    assert!((1.9..2.05).contains(&ratio), "goodput ratio {ratio}");
}

/// Send limits sampled every millisecond for one flow through a 20-packet drop-tail buffer
/// (10 Mb/s: a packet, hence a duplicate ACK, every 1.2 ms), from its first loss event on:
/// the window before it, then 150 samples.
fn first_recovery(recovery: Recovery) -> (f64, Vec<f64>) {
    let mut sim = Simulation::new(SimConfig { sample_interval: Some(Time::from_ms(1)), ..config(Time::from_secs(2), Time::ZERO, 1) });
    let l = sim.add_link(link("l", Rate::mbps(10), Time::from_ms(50), BufferLimit::Packets(20)));
    let mut f = bulk("f", vec![l], Time::ZERO);
    f.tcp.initial_ssthresh = 40.0;
    f.tcp.recovery = recovery;
    sim.add_flow(f);
    let out = sim.run();
    assert_conserved(&out);
    assert_eq!(out.flows[0].timeouts, 0);
    let w: Vec<f64> = out.samples.iter().map(|s| s.cwnd_pkts).collect();
    // The first sample whose window is not the last one plus congestion-avoidance growth.
    let start = (1..w.len()).find(|&i| w[i - 1] > 40.0 && w[i] < w[i - 1]).expect("a loss event");
    (w[start - 1], w[start..start + 150].to_vec())
}

#[test]
fn prr_sends_from_the_first_duplicate_where_newreno_waits_for_half_of_them() {
    // During recovery the window is the limit on segments sent and not cumulatively acked, so
    // it counts what the receiver holds out of order; both end at ssthresh = half the window.
    let (before, w) = first_recovery(Recovery::NewReno);
    assert!((w[0] - (before / 2.0 + 3.0)).abs() <= 1.5, "NewReno: ssthresh + 3, below what is in flight: {} from {before}", w[0]);
    assert!(w[12] < before, "10 duplicates later it has still sent nothing new: {}", w[12]);
    assert!((w[149] - before / 2.0).abs() <= 1.0, "ssthresh after the full ACK: {}", w[149]);

    let (before, w) = first_recovery(Recovery::Prr);
    assert!((w[0] - before).abs() <= 1.5, "PRR: what is in flight: {} from {before}", w[0]);
    // One new segment per two duplicates (ssthresh/RecoverFS = 1/2): 10 duplicates, 5 segments.
    assert!((w[12] - before - 5.0).abs() <= 2.0, "10 duplicates later about 5 more were sent: {} from {before}", w[12]);
    assert!((w[149] - before / 2.0).abs() <= 1.0, "ssthresh after the full ACK: {}", w[149]);
}

#[test]
fn a_run_in_slices_reports_progress_and_the_same_results() {
    let build = || {
        let mut sim = Simulation::new(config(Time::from_secs(3), Time::from_secs(1), 4));
        let l = sim.add_link(link("l", Rate::mbps(10), Time::from_ms(10), BufferLimit::Packets(20)));
        sim.add_flow(bulk("a", vec![l], Time::ZERO));
        sim.add_flow(bulk("b", vec![l], Time::from_ms(7)));
        sim
    };
    let whole = format!("{:?}", build().run());
    let mut seen = Vec::new();
    let sliced = build().run_observed(7, |p| seen.push((p.simulated, p.events)));
    assert_eq!(format!("{sliced:?}"), whole, "slicing changes nothing");
    assert_eq!(seen.len(), 7);
    assert_eq!(seen.last().unwrap().0, Time::from_secs(3));
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1), "{seen:?}");
}

/// Two `linux-6` flows of 20 and 60 ms through a 20 Mb/s, 50-packet drop-tail link, fed by
/// 24 Mb/s access links. The first slow start leaves the short flow a recovery of many holes;
/// with RFC 6937's extra segment on every ACK it sent one segment per 3 ms more than the
/// bottleneck took from it, and the drop-tail queue dropped exactly its retransmissions, so
/// its first hole never closed (1 621 retransmissions and 315 kB in 5 s). Linux 6 sends the
/// extra segment only on progress.
#[test]
fn a_linux6_recovery_does_not_starve_its_own_retransmissions() {
    let mut sim = Simulation::new(config(Time::from_secs(5), Time::ZERO, 1));
    let bottleneck = sim.add_link(link("bottleneck", Rate::mbps(20), Time::from_ms(5), BufferLimit::Packets(50)));
    let near = sim.add_link(link("near", Rate::mbps(24), Time::from_ms(5), BufferLimit::Packets(1000)));
    let far = sim.add_link(link("far", Rate::mbps(24), Time::from_ms(25), BufferLimit::Packets(1000)));
    for (name, access) in [("rtt20", near), ("rtt60", far)] {
        let mut f = bulk(name, vec![access, bottleneck], Time::ZERO);
        f.tcp = tcp::Profile::Linux6.config();
        sim.add_flow(f);
    }
    let out = sim.run();
    assert_conserved(&out);
    let short = &out.flows[0];
    assert!(short.bytes_delivered > 5_000_000, "the 20 ms flow delivered {} B", short.bytes_delivered);
    assert!(short.retransmissions < 400, "{} retransmissions", short.retransmissions);
}

/// The ACK latency in a transfer: the same draws for a seed, others for another; ACKs that
/// wait trigger no spurious retransmission (RACK, probes and the timer allow for them); the
/// transfer ends later than without them, by less than its round trips' share of the waits.
#[test]
fn acks_that_wait_for_the_reader_slow_a_transfer_without_spurious_retransmissions() {
    let run = |seed: u64, median_us: u64, p99_us: u64| {
        let mut sim = Simulation::new(config(Time::from_secs(20), Time::ZERO, seed));
        let l = sim.add_link(link("l", Rate::mbps(10), Time::from_ms(10), BufferLimit::Packets(1000)));
        let mut f = bulk("f", vec![l], Time::ZERO);
        f.tcp = TcpConfig {
            ack_latency_median: Time::from_us(median_us),
            ack_latency_p99: Time::from_us(p99_us),
            ..tcp::Profile::Linux6.config()
        };
        // 667 segments: slow start never overflows the buffer.
        f.size = Some(1_000_000);
        sim.add_flow(f);
        sim.run()
    };
    let out = run(1, 50, 1200);
    assert_conserved(&out);
    assert_eq!(format!("{:?}", run(1, 50, 1200)), format!("{out:?}"), "the same draws for a seed");
    assert_ne!(format!("{:?}", run(2, 50, 1200)), format!("{out:?}"), "other draws for another seed");
    assert_eq!(out.flows[0].retransmissions, 0, "{:?}", out.flows[0]);
    let with = out.flows[0].completion_time_s.expect("completed");
    let without = run(1, 0, 0).flows[0].completion_time_s.expect("completed");
    // About 7 round trips of slow start and a last one: each waits for about one ACK's draw.
    assert!(with > without && with < without + 8.0 * 0.0012 * 2.0, "{with} s with the latency, {without} s without");
}

#[test]
fn a_round_robin_link_shares_itself_equally_among_backlogged_flows_whatever_their_windows() {
    // Two flows through one 100 Mb/s link with a deep buffer and almost no propagation, each on
    // to its own fast link: their windows, held at 100 and 20 segments by the receive buffers,
    // sit mostly in the shared buffer. First come, first served shares the link as the
    // windows do (5:1); round robin serves each backlogged flow a packet in turn (1:1).
    let goodputs = |round_robin: bool| {
        let mut sim = Simulation::new(config(Time::from_secs(2), Time::from_secs(1), 1));
        let shared = sim.add_link(LinkSpec { round_robin, ..link("nic", Rate::mbps(100), Time::from_us(1), BufferLimit::Packets(10_000)) });
        let mut flows = Vec::new();
        for (name, window) in [("wide", 100), ("narrow", 20)] {
            let own = sim.add_link(link(name, Rate::gbps(10), Time::from_us(1), BufferLimit::Packets(10_000)));
            flows.push(FlowSpec { receive_buffer: Some(window), ..bulk(name, vec![shared, own], Time::ZERO) });
        }
        for f in flows {
            sim.add_flow(f);
        }
        let out = sim.run();
        assert_conserved(&out);
        assert_eq!(out.stats.data_dropped, 0, "the buffer is deep enough never to drop");
        let total: f64 = out.flows.iter().map(|f| f.goodput_bps).sum();
        assert!(total > 0.99e8, "the shared link stays busy: {total}");
        out.flows[0].goodput_bps / out.flows[1].goodput_bps
    };
    let fifo = goodputs(false);
    assert!((fifo - 5.0).abs() < 0.05, "first come, first served: {fifo}");
    let round_robin = goodputs(true);
    assert!((round_robin - 1.0).abs() < 0.001, "round robin: {round_robin}");
}

#[test]
fn subflows_on_the_same_path_share_its_name() {
    let mut sim = Simulation::new(config(Time::from_ms(50), Time::ZERO, 1));
    let [a, b, c] = ["a", "b", "c"].map(|n| sim.add_link(link(n, Rate::mbps(100), Time::from_ms(1), BufferLimit::Packets(100))));
    sim.add_flow(bulk("one", vec![a, b], Time::ZERO));
    sim.add_flow(bulk("two", vec![a, b], Time::ZERO));
    sim.add_flow(FlowSpec { paths: vec![vec![c], vec![a, b]], algorithm: Algorithm::Lia, ..bulk("mp", vec![], Time::ZERO) });
    let out = sim.run();
    let paths: Vec<&str> = out.subflows.iter().map(|s| &*s.path).collect();
    assert_eq!(paths, ["a>b", "a>b", "c", "a>b"]);
    let ab: Vec<_> = out.subflows.iter().filter(|s| &*s.path == "a>b").collect();
    assert!(ab.iter().all(|s| std::sync::Arc::ptr_eq(&s.path, &ab[0].path)), "one string for the three subflows on a>b");
}
