//! Shared set-up of the equipoise benchmarks: htsim's dumbbell "D2" (docs/spec/BENCHMARKS.md), built from
//! `scenarios/htsim-d2.toml` exactly as `equipoise run` would build it.

use tcp::Simulation;

/// The text of `scenarios/htsim-d2.toml`, compiled in so that benchmarks measure the file
/// the CLI runs, not a copy that could drift.
pub const D2: &str = include_str!("../scenarios/htsim-d2.toml");

/// D2 with `flows` flows (flow i starting at i × 1 ms / flows), simulated for `duration` with
/// statistics from `warmup`, with the file's TCP profile (`htsim`).
pub fn d2(flows: u64, duration: &str, warmup: &str) -> Simulation {
    d2_with_profile(flows, duration, warmup, None)
}

/// Key paths and values as `--set` gives them.
fn settings<const N: usize>(pairs: [(&str, String); N]) -> Vec<(String, String)> {
    pairs.into_iter().map(|(key, value)| (key.to_string(), value)).collect()
}

/// [`d2`] with another TCP profile, if given (`linux`, `newreno`, …).
pub fn d2_with_profile(flows: u64, duration: &str, warmup: &str, profile: Option<&str>) -> Simulation {
    let stagger_ps = 1_000_000_000 / flows;
    let mut sets = settings([
        ("flow.tcp.count", flows.to_string()),
        ("flow.tcp.stagger", format!("{stagger_ps}ps")),
        ("sim.duration", duration.to_string()),
        ("sim.warmup", warmup.to_string()),
    ]);
    if let Some(p) = profile {
        sets.push(("tcp.profile".to_string(), format!("\"{p}\"")));
    }
    let scenario = topologies::load_text("scenarios/htsim-d2.toml", D2, &sets).expect("D2 parses");
    scenario.build().expect("D2 builds")
}

/// Writes a bench binary's report on standard output. A reader that went away (`d2 … | head`)
/// ends the report quietly, as a command-line tool's output should, rather than in a panic on
/// the broken pipe; any other failure to write is an error on standard error and status 1.
pub fn print_report(lines: &[String]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = lines.iter().try_for_each(|line| writeln!(out, "{line}")).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("cannot write the report: {e}");
            std::process::exit(1)
        }
    }
}

/// The text of `scenarios/htsim-datacenter.toml`: csg-htsim's datacenter network, compiled in
/// as [`D2`] is.
pub const DATACENTER: &str = include_str!("../scenarios/htsim-datacenter.toml");

/// The datacenter network with a k-ary fat-tree, `subflows` subflows a connection and
/// `senders` hosts opening one (`None`: every host), simulated for `duration` with statistics
/// from `warmup`, with run seed `seed`, and `more` settings (key paths and values, as `--set`);
/// `Err` names the key of a setting the scenario refuses.
pub fn datacenter(
    k: u32,
    subflows: u32,
    senders: Option<u32>,
    (duration, warmup): (&str, &str),
    seed: u64,
    more: &[(String, String)],
) -> Result<Simulation, String> {
    let mut sets = settings([
        ("topology.k", k.to_string()),
        ("traffic.perm.subflows", subflows.to_string()),
        ("sim.duration", duration.to_string()),
        ("sim.warmup", warmup.to_string()),
        ("sim.seed", seed.to_string()),
    ]);
    if let Some(n) = senders {
        let hosts = k * k * k / 4;
        sets.push(("traffic.perm.senders".to_string(), format!("{{ share = [0.0, {}] }}", n as f64 / hosts as f64)));
    }
    sets.extend_from_slice(more);
    let scenario = topologies::load_text("scenarios/htsim-datacenter.toml", DATACENTER, &sets).map_err(|e| e.to_string())?;
    scenario.build().map_err(|e| e.to_string())
}

/// [`d2_with_profile`] writing one line per drop at the bottleneck to `trace`: "picoseconds flow
/// packet", the packet numbered from 0 for the first data packet and -1 for the SYN (the
/// format of `benches/htsim-compare`'s htsim driver, so the two traces compare line by line).
pub fn d2_tracing_drops(
    flows: u64,
    duration: &str,
    warmup: &str,
    profile: Option<&str>,
    trace: Box<dyn std::io::Write + Send>,
) -> Simulation {
    let mut sim = d2_with_profile(flows, duration, warmup, profile);
    sim.add_capture(tcp::CaptureSpec {
        links: vec![tcp::LinkIndex(0)],
        flows: None,
        from: sim_core::Time::ZERO,
        until: sim_core::Time::NEVER,
    });
    struct Drops(Box<dyn std::io::Write + Send>);
    impl tcp::CaptureSink for Drops {
        fn write(&mut self, _: usize, seg: &capture::Segment) {
            if seg.dropped && !seg.from_receiver {
                // Data segment n starts at byte 1 + n·mss.
                let packet = if seg.syn { -1 } else { ((seg.seq - 1) / 1500) as i64 };
                let _ = writeln!(self.0, "{} {} {packet}", seg.time_ps, seg.flow);
            }
        }
    }
    use std::io::Write;
    sim.set_capture_sink(Box::new(Drops(trace)));
    sim
}

/// Resident memory of a simulation holding `flows` flows that have not started: the D2 link
/// and flows built directly through the `tcp` API (no scenario model alive beside them).
/// Returns the bytes the process grew by while building.
pub fn idle_flows_memory(flows: usize) -> Option<u64> {
    use mptcp_cc::Algorithm;
    use sim_core::{BufferLimit, Discipline, Rate, Time};
    use tcp::{FlowSpec, LinkSpec, SimConfig, TcpConfig};
    let before = rss_bytes()?;
    let mut sim = Simulation::new(SimConfig { duration: Time::from_secs(1), ..SimConfig::default() });
    sim.reserve(1, flows, 1);
    let link = sim.add_link(LinkSpec {
        name: "bottleneck".into(),
        rate: Rate::gbps(10),
        delay: Time::from_us(50),
        buffer: BufferLimit::Bytes(126_000),
        discipline: Discipline::DropTail,
        loss: 0.0,
        round_robin: false,
        events: vec![],
    });
    for i in 0..flows {
        sim.add_flow(FlowSpec {
            name: format!("tcp.{i}"),
            algorithm: Algorithm::Reno,
            paths: vec![vec![link]],
            reverse_paths: None,
            start: Time::from_secs(2),
            stop: None,
            size: None,
            receive_buffer: None,
            tcp: TcpConfig::default(),
        });
    }
    let after = rss_bytes()?;
    drop(sim);
    Some(after - before)
}

/// Peak resident memory of this process, bytes (Linux; `None` elsewhere).
pub fn peak_rss_bytes() -> Option<u64> {
    status_kb("VmHWM:").map(|kb| kb * 1024)
}

/// Current resident memory of this process, bytes (Linux; `None` elsewhere).
pub fn rss_bytes() -> Option<u64> {
    status_kb("VmRSS:").map(|kb| kb * 1024)
}

fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A `linux`-profile multipath flow (LIA) over two 1 Gb/s paths with 0.01 % random loss, sized
/// so that its window is `window` packets: a propagation round trip of `window` packets
/// (12 s for a million, 1.2 ms for a hundred), that initial window, and a buffer a tenth of it.
/// The second path is down from 40 to 50 s. So every mechanism a large window strains runs at
/// that scale: SACK and RACK recovery of thousands of holes, timeouts, and the reinjection of
/// a timed-out subflow's window on the other path. 120 simulated seconds.
pub fn two_path_recovery(window: u64) -> Simulation {
    let one_way_ps = window * 6_000_000; // a 1 Gb/s path carries a packet every 12 µs
    let text = format!(
        r#"
[sim]
duration = "120s"
seed = 1

[tcp]
profile = "linux"
initial_cwnd = {window}

[[link]]
name = "a"
rate = "1Gbps"
delay = "{one_way_ps}ps"
buffer = "{buffer}pkt"
loss = 0.0001

[[link]]
name = "b"
rate = "1Gbps"
delay = "{one_way_ps}ps"
buffer = "{buffer}pkt"
loss = 0.0001
events = [{{ at = "40s", state = "down" }}, {{ at = "50s", state = "up" }}]

[[flow]]
name = "mp"
cc = "lia"
paths = [["a"], ["b"]]
"#,
        buffer = (window / 10).max(10),
    );
    topologies::load_text("two-path-recovery.toml", &text, &[]).expect("parses").build().expect("builds")
}
