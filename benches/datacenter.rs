//! Runs csg-htsim's datacenter network (`scenarios/htsim-datacenter.toml`) once and prints what
//! `benches/htsim-datacenter` compares: lines `dc KEY VALUE`, then `conn I BPS` per connection
//! and `sub I J BPS` per subflow.
//!
//! `cargo run --release -p equipoise-benches --bin datacenter -- K SUBFLOWS DURATION WARMUP [SEED [SENDERS [KEY=VALUE …]]]`
//! (times as the scenario writes them: `0.5s`, `100ms`; each `KEY=VALUE` as `equipoise run
//! --set` takes it, such as `traffic.perm.cc="uncoupled"`).

const USAGE: &str = "usage: datacenter K SUBFLOWS DURATION WARMUP [SEED [SENDERS [KEY=VALUE ...]]]";

/// Says what is wrong and ends the process with status 2.
fn fail(message: &str) -> ! {
    eprintln!("datacenter: {message}\n{USAGE}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, what: &str| args.get(i).map(String::as_str).unwrap_or_else(|| fail(&format!("missing {what}")));
    let number = |i: usize, what: &str| -> u32 {
        let text = arg(i, what);
        text.parse().unwrap_or_else(|_| fail(&format!("{what} must be a whole number, got {text}")))
    };
    let (k, subflows) = (number(1, "K"), number(2, "SUBFLOWS"));
    let (duration, warmup) = (arg(3, "DURATION"), arg(4, "WARMUP"));
    let seed = if args.len() > 5 { u64::from(number(5, "SEED")) } else { 1 };
    let senders = (args.len() > 6).then(|| number(6, "SENDERS"));
    let sets: Vec<(String, String)> = args
        .iter()
        .skip(7)
        .map(|a| {
            a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).unwrap_or_else(|| fail(&format!("{a}: expected KEY=VALUE")))
        })
        .collect();
    let sim = equipoise_benches::datacenter(k, subflows, senders, (duration, warmup), seed, &sets).unwrap_or_else(|e| fail(&e));
    let out = sim.run();
    let s = out.stats;
    // After the warm-up: data packets the senders sent, and those the queues dropped (with
    // ACKs that arrive at once, every packet in a queue is data).
    let sent: u64 = out.flows.iter().map(|f| f.packets_sent).sum();
    // Drops by place, from the fat-tree's link names (`h5>e0_1`, `e0_1>a0_2`, `a0_2>c9`, …).
    let mut drops_at = std::collections::BTreeMap::new();
    for l in &out.links {
        let tier = |node: &str| match node.as_bytes().first() {
            Some(b'h') => "host",
            Some(b'e') => "edge",
            Some(b'a') => "aggregation",
            _ => "core",
        };
        let (from, to) = l.link.split_once('>').unwrap_or((&l.link, ""));
        *drops_at.entry(format!("{}>{}", tier(from), tier(to))).or_insert(0) += l.queue_drops + l.random_losses;
    }
    let dropped: u64 = drops_at.values().sum();
    let mut report = Vec::new();
    report.push(format!("dc hosts {}", k * k * k / 4));
    report.push(format!("dc connections {}", out.flows.len()));
    report.push(format!("dc events {}", s.events));
    report.push(format!("dc delivered {}", s.data_delivered));
    report.push(format!("dc sent {sent}"));
    report.push(format!("dc drops {dropped}"));
    // Subflows that delivered nothing after the warm-up.
    report.push(format!("dc subflows {}", out.subflows.len()));
    report.push(format!("dc stalled_subflows {}", out.subflows.iter().filter(|s| s.goodput_bps == 0.0).count()));
    if let Some(peak) = equipoise_benches::peak_rss_bytes() {
        report.push(format!("dc peak_bytes {peak}"));
    }
    for (place, n) in drops_at {
        report.push(format!("drops_at {place} {n}"));
    }
    for (i, f) in out.flows.iter().enumerate() {
        report.push(format!("conn {i} {:.1}", f.goodput_bps));
    }
    // Each subflow's goodput after the warm-up: `sub CONN SUBFLOW BPS`.
    let conn: std::collections::HashMap<&str, usize> = out.flows.iter().enumerate().map(|(i, f)| (&*f.flow, i)).collect();
    for s in &out.subflows {
        report.push(format!("sub {} {} {:.1}", conn[&*s.flow], s.subflow, s.goodput_bps));
    }
    equipoise_benches::print_report(&report);
}
