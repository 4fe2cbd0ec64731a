//! `equipoise testbed`: a scenario run in real time on this machine's own TCP. Each side of
//! the network is a network namespace (the senders', the receivers'), joined through a router
//! namespace whose forwarded packets pass through a TUN device into the emulator: the
//! scenario's links as sim-core models them (rate, buffer, discipline, random loss, delay,
//! up/down events), on the wall clock. The flows are the kernel's sockets with its Reno, or
//! with LIA, OLIA or BALIA as BPF congestion controls ([`laws`]); the results are the tables of
//! `equipoise run` (`equipoise.source = "testbed"`).

mod addresses;
mod diag;
mod emulator;
mod hosts;
mod laws;
mod netns;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sim_core::{Rate, Time};
use tcp::{FlowRecord, FlowSpec, LinkRecord, LinkSpec, RunOutput, RunStats, Sample, SubflowRecord};
use topologies::Scenario;

use crate::tables::{Provenance, Source};

use hosts::{HostFlow, Received, SocketInfo};
use netns::{Namespaces, Role};

/// The longest run the testbed accepts: it runs in real time.
const MAX_DURATION: Time = Time::from_secs(3600);
/// The fastest link it emulates, and the most all links may carry together: the rates up to
/// which docs/testbed.md measures the emulator's timing on two cores (above them it is not
/// measured).
const MAX_LINK_RATE: Rate = Rate::mbps(100);
const MAX_TOTAL_RATE: Rate = Rate::mbps(200);
/// The most subflows the kernel's MPTCP opens for one connection (`MPTCP_PM_ADDR_MAX` limits).
const MAX_SUBFLOWS: usize = 8;
/// How often the senders' counters are read (the time-series resolution without
/// `sim.sample_interval`).
const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// The kernel's TCP headers on a full segment with timestamps (IPv4 20, TCP 20, options 12).
const HEADERS: u64 = 52;

/// What the testbed runs of a scenario, checked before anything is set up.
struct Plan {
    links: Vec<LinkSpec>,
    /// The links as the emulator runs them: those of [`Plan::delay_only`] as delay alone.
    emulated: Vec<LinkSpec>,
    /// Links faster than the emulator's range whose subflows cannot fill them (see
    /// [`delay_only`]), by position.
    delay_only: Vec<usize>,
    flows: Vec<FlowSpec>,
    /// Per flow, the law its sockets run.
    laws: Vec<laws::FlowLaw>,
    /// Per global subflow: its path and its ACKs' path, as link positions.
    paths: Vec<Vec<usize>>,
    reverse: Vec<Option<Vec<usize>>>,
    captures: Vec<PlannedCapture>,
}

/// Checks that the kernel can run every part of `s`, naming the key of the first that it
/// cannot.
fn plan(s: &Scenario) -> Result<Plan, String> {
    let file = &s.file;
    let no = |key: &str, why: &str| Err(format!("{file}: {key}: {why}"));
    if s.sim.duration > MAX_DURATION {
        return no("sim.duration", &format!("the testbed runs in real time; at most {MAX_DURATION}"));
    }
    if !(576..=9000).contains(&s.sim.mss) {
        return no("sim.mss", "the testbed's packets are the kernel's: an MTU from 576 to 9000 bytes");
    }
    if s.sim.htsim_serialization {
        return no("sim.serialization", "htsim's timing is a simulator's; the emulated links run on the wall clock");
    }
    let (links, flows) = s.specs().map_err(|e| e.to_string())?;
    let carried = carried_bounds(&links, &flows);
    let mut total = 0u64;
    let mut delay_only = Vec::new();
    for (i, (spec, model)) in links.iter().zip(&s.links).enumerate() {
        if spec.round_robin {
            return no(
                "topology.nic_service",
                "the testbed's queues are first come, first served (pfifo, bfifo): set nic_service = \"fifo\"",
            );
        }
        if spec.rate > MAX_LINK_RATE {
            if carried[i] >= spec.rate.as_bps() || !spec.events.is_empty() || spec.loss > 0.0 {
                return no(
                    &format!("{}.rate", model.key),
                    &format!(
                        "the testbed emulates links up to {} Mb/s; a faster one runs as delay alone only where its flows' other links \
                         cannot fill it (here they carry up to {} Mb/s) and it has no loss or events",
                        MAX_LINK_RATE.as_bps() / 1_000_000,
                        carried[i] as f64 / 1e6
                    ),
                );
            }
            delay_only.push(i);
        }
        total += spec.rate.as_bps().min(carried[i]);
    }
    let total = total.min(total_bound(&links, &flows));
    if total > MAX_TOTAL_RATE.as_bps() {
        return no(
            "link",
            &format!(
                "the links carry up to {} Mb/s together, above the {} Mb/s the testbed emulates",
                total as f64 / 1e6,
                MAX_TOTAL_RATE.as_bps() / 1_000_000
            ),
        );
    }
    let emulated = links.iter().enumerate().map(|(i, l)| if delay_only.contains(&i) { as_delay(l) } else { l.clone() }).collect();
    let (mut paths, mut reverse, mut laws) = (Vec::new(), Vec::new(), Vec::new());
    for (spec, model) in flows.iter().zip(&s.flows) {
        if spec.paths.len() > MAX_SUBFLOWS {
            return no(&format!("{}.paths", model.key), &format!("the kernel's MPTCP opens at most {MAX_SUBFLOWS} subflows"));
        }
        let law = match laws::FlowLaw::of(&model.cc) {
            Ok(law) => law,
            Err(laws::Refused::Law) => {
                return no(
                    &format!("{}.cc", model.key),
                    &format!(
                        "the testbed runs the kernel's Reno (`reno`, `uncoupled`) or CUBIC (`cubic`) on every (sub)flow, or the coupled laws `lia`, `olia` and `balia` as BPF congestion controls; `{}` is a law of the simulator",
                        model.cc.name()
                    ),
                );
            }
            Err(laws::Refused::Parameter(param)) => {
                return no(
                    &format!("{}.cc.{param}", model.key),
                    "the testbed's laws are the papers' forms, without parameters (the simulator's defaults)",
                );
            }
        };
        laws.push(law);
        if spec.tcp.instant_acks {
            return no("tcp.instant_acks", &format!("(of {}) the kernel's ACKs cross the network back", model.key));
        }
        if spec.tcp.jitter > Time::ZERO {
            return no("tcp.jitter", &format!("(of {}) the send jitter is the simulator's; the kernel sends when it sends", model.key));
        }
        if spec.receive_buffer.is_some() {
            return no(&format!("{}.receive_buffer", model.key), "the kernel sizes its own receive buffers");
        }
        for (r, path) in spec.paths.iter().enumerate() {
            paths.push(path.iter().map(|l| l.0 as usize).collect());
            reverse.push(spec.reverse_paths.as_ref().map(|rev| rev[r].iter().map(|l| l.0 as usize).collect()));
        }
    }
    if flows.len() > addresses::MAX_HOSTS || paths.len() > addresses::MAX_HOSTS {
        return no("flow", &format!("the testbed addresses at most {} flows", addresses::MAX_HOSTS));
    }
    let captures = plan_captures(s, &links, &flows, &paths, &reverse)?;
    Ok(Plan { links, emulated, delay_only, flows, laws, paths, reverse, captures })
}

/// The rate emulating a link as delay alone: a picosecond a byte, so that its busy time in
/// picoseconds counts its bytes.
const DELAY_ONLY_RATE: Rate = Rate::bps(8_000_000_000_000);

/// Per link, the most its subflows can carry through it. A subflow carries at most the rate of
/// the slowest other link of its path, and the subflows limited by the same link cross it, so
/// together they carry no more than its rate: the bound is the sum of the limiting links'
/// rates (unbounded for a subflow whose path is the link alone). An ACK path carries less than
/// the data it acknowledges, limited by its subflow's slowest link. A link no subflow crosses
/// carries nothing. A link faster than its bound never holds a standing queue; it only delays.
fn carried_bounds(links: &[LinkSpec], flows: &[FlowSpec]) -> Vec<u64> {
    let rate = |l: usize| links[l].rate.as_bps();
    let slowest = |path: &mut dyn Iterator<Item = usize>| path.min_by_key(|&l| (rate(l), l));
    // Per link, the links limiting the subflows that cross it; `None`: one that nothing limits.
    let mut limits: Vec<std::collections::BTreeSet<Option<usize>>> = vec![Default::default(); links.len()];
    for flow in flows {
        for (p, path) in flow.paths.iter().enumerate() {
            let path: Vec<usize> = path.iter().map(|l| l.0 as usize).collect();
            for (i, &at) in path.iter().enumerate() {
                limits[at].insert(slowest(&mut path.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &l)| l)));
            }
            if let Some(reverse) = flow.reverse_paths.as_ref().map(|r| &r[p]) {
                let limit = slowest(&mut path.iter().copied());
                for at in reverse {
                    limits[at.0 as usize].insert(limit);
                }
            }
        }
    }
    limits.iter().map(|set| set.iter().map(|l| l.map_or(u64::MAX, rate)).fold(0, u64::saturating_add)).collect()
}

/// An upper bound on the bits per second all links carry together, counted on every hop: a
/// path carries no more than its slowest link, and the paths whose slowest link is the same
/// link carry together no more than that link's rate, on at most as many hops as the longest
/// of them. (Six fast access links feeding one 40 Mb/s bottleneck carry 80 Mb/s on two hops,
/// not 40 Mb/s each.)
fn total_bound(links: &[LinkSpec], flows: &[FlowSpec]) -> u64 {
    let mut hops = vec![0u64; links.len()];
    for path in flows.iter().flat_map(|f| f.paths.iter().chain(f.reverse_paths.iter().flatten())) {
        if let Some(slowest) = path.iter().min_by_key(|l| (links[l.0 as usize].rate.as_bps(), l.0)) {
            let h = &mut hops[slowest.0 as usize];
            *h = (*h).max(path.len() as u64);
        }
    }
    links.iter().zip(&hops).map(|(l, &h)| l.rate.as_bps().saturating_mul(h)).fold(0, u64::saturating_add)
}

/// `link` as the emulator runs a link that only delays: its propagation delay, at a rate that
/// builds no queue. A packet's own serialization at the link's rate (12 µs for 1500 bytes at
/// 1 Gb/s) is left out, as the ACKs' way back, which has none, requires.
fn as_delay(link: &LinkSpec) -> LinkSpec {
    LinkSpec { rate: DELAY_ONLY_RATE, ..link.clone() }
}

/// What the run's metadata and summary say of the links emulated as delay alone, if any.
fn delay_only_note(plan: &Plan) -> Option<String> {
    let names: Vec<&str> = plan.delay_only.iter().map(|&i| plan.links[i].name.as_str()).collect();
    (!names.is_empty()).then(|| {
        format!(
            "emulated as their propagation delay alone, faster than the emulator's {} Mb/s and never filled by their flows: {}",
            MAX_LINK_RATE.as_bps() / 1_000_000,
            names.join(", ")
        )
    })
}

/// The records of the links emulated as delay alone, given back their own rate and delay: the
/// utilization is their bytes at their own rate.
fn restore_delay_only(records: &mut [LinkRecord], plan: &Plan) {
    for &i in &plan.delay_only {
        let (record, link) = (&mut records[i], &plan.links[i]);
        record.utilization *= DELAY_ONLY_RATE.as_bps() as f64 / link.rate.as_bps() as f64;
        record.rate_bps = link.rate.as_bps() as f64;
        record.delay_s = link.delay.as_secs_f64();
    }
}

/// A `[[capture]]` of the testbed: its file, and the subflows it records.
struct PlannedCapture {
    label: String,
    name: String,
    /// Per global subflow, whether it is captured.
    subflows: Vec<bool>,
    from: Time,
    until: Time,
    /// Bytes the file can take at most.
    capacity: usize,
}

/// The scenario's captures, bounded in size as a simulation's are. The emulator sees a packet
/// where it enters its path and where it leaves it, so a captured link must be the whole path,
/// both ways, of every subflow captured on it.
fn plan_captures(
    s: &Scenario,
    specs_of_links: &[LinkSpec],
    flows: &[FlowSpec],
    paths: &[Vec<usize>],
    reverse: &[Option<Vec<usize>>],
) -> Result<Vec<PlannedCapture>, String> {
    let specs = s.capture_specs().map_err(|e| e.to_string())?;
    let names = crate::captures::file_names(&s.captures);
    let mut planned = Vec::with_capacity(specs.len());
    for ((spec, model), (label, name)) in specs.iter().zip(&s.captures).zip(names) {
        let captured: Vec<usize> = spec.links.iter().map(|l| l.0 as usize).collect();
        let mut subflows = vec![false; paths.len()];
        let mut g = 0;
        for (f, flow) in flows.iter().enumerate() {
            let wanted = spec.flows.as_ref().is_none_or(|kept| kept.contains(&(f as u32)));
            for _ in &flow.paths {
                if wanted && paths[g].iter().any(|l| captured.contains(l)) {
                    if paths[g].len() != 1 || reverse[g].is_some() {
                        let why = if reverse[g].is_some() {
                            "has reverse_paths".to_string()
                        } else {
                            format!("crosses {} links", paths[g].len())
                        };
                        return Err(format!(
                            "{}: {}.link: the testbed captures a link only where it is a captured subflow's whole path, both ways (flow `{}` {why})",
                            s.file, model.key, s.flows[f].name
                        ));
                    }
                    subflows[g] = true;
                }
                g += 1;
            }
        }
        // Room for what the capture can hold (as `capture_specs` bounds it: twice the links'
        // rates in full packets each way), so that the emulator's thread never copies a file.
        let bps: u64 = captured.iter().map(|&l| specs_of_links[l].rate.as_bps()).sum();
        let packets = 4.0 * bps as f64 * (spec.until - spec.from).as_secs_f64() / (8.0 * s.sim.mss as f64);
        let capacity = capture::estimated_size(packets.ceil() as u64) as usize;
        planned.push(PlannedCapture { label, name, subflows, from: spec.from, until: spec.until, capacity });
    }
    Ok(planned)
}

/// A scenario checked for the testbed, with its plan: what the kernel runs, where.
pub struct Planned {
    scenario: Scenario,
    plan: Plan,
}

/// Checks `scenario` for the testbed, capturing packets as the `capture` arguments say: the
/// plan of its run, or why it cannot run here (naming the key, or what to install).
pub fn plan_run(mut scenario: Scenario, capture: &[String]) -> Result<Planned, String> {
    scenario.captures.extend(crate::captures::parse(capture)?);
    let plan = plan(&scenario)?;
    netns::check_privileges()?;
    if plan.laws.iter().any(|l| l.coupled().is_some()) {
        laws::check_tools()?;
    }
    Ok(Planned { scenario, plan })
}

impl Planned {
    /// The packet captures' file names.
    pub fn capture_files(&self) -> impl Iterator<Item = &str> {
        self.plan.captures.iter().map(|c| c.name.as_str())
    }

    /// Runs the scenario (from `file`) on the kernel, in real time: the tables of a run;
    /// `progress` shows how far it is on a terminal.
    pub fn run(self, file: &Path, progress: bool) -> Result<crate::engine::Run, String> {
        let Planned { scenario, plan } = self;
        let started = Instant::now();
        let run = run_stoppable(&scenario, &plan, !progress)?;
        let metrics = scenario.metrics(&run.output);
        let mut provenance = Provenance::of(Source::Testbed, file.display().to_string(), scenario.text.clone(), scenario.sim.seed);
        provenance.notes.extend(run_notes(&run, &plan));
        let name = scenario.meta.name.as_deref().unwrap_or("scenario");
        let mut text = format!("{name} ({}), on the testbed (Linux {})\n\n", file.display(), kernel_version());
        text.push_str(&crate::summary::render(
            &run.output,
            scenario.sim.warmup.as_secs_f64(),
            started.elapsed().as_secs_f64(),
            "on the testbed",
        ));
        text.push_str(&crate::summary::render_metrics(&metrics));
        if !run.real_time {
            text.push_str("the emulator ran at the default priority: this system refused it real-time scheduling\n");
        }
        if let Some(note) = delay_only_note(&plan) {
            text.push_str(&format!("{note}\n"));
        }
        text.push_str(&format!(
            "not measured on the testbed (0): {}\nthe emulator's events ran late by {:.3} ms (median, at most), {:.3} ms (99th percentile), {:.3} ms (largest)\n",
            unmeasured(run.timeouts_measured),
            run.lag_s[0] * 1e3,
            run.lag_s[1] * 1e3,
            run.lag_s[2] * 1e3
        ));
        Ok(crate::engine::Run {
            tables: crate::tables::frames(&run.output, &metrics).map_err(|e| e.to_string())?,
            captured: run.captures.iter().map(|(name, _, packets)| (name.clone(), *packets)).collect(),
            files: run.captures.into_iter().map(|(name, bytes, _)| (name, bytes)).collect(),
            provenance,
            summary: text,
            warnings: Vec::new(),
        })
    }
}

/// Whether the testbed can run `s`, before anything is set up (why not, naming the key), and
/// if so whether its flows run a law that the kernel runs as a BPF congestion control.
pub fn check(s: &Scenario) -> Result<bool, String> {
    Ok(plan(s)?.laws.iter().any(|l| l.coupled().is_some()))
}

/// Whether this machine can run testbed runs (root; for a coupled law, what builds and loads
/// it): checked once before a sweep's first run.
pub fn check_host(coupled: bool) -> Result<(), String> {
    netns::check_privileges()?;
    if coupled { laws::check_tools() } else { Ok(()) }
}

/// Whether SIGINT or SIGTERM reached this process since it first ran a testbed run: a sweep
/// starts no other run then.
pub fn signalled() -> bool {
    SIGNALLED.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

/// One run of a sweep on the testbed: the records of `s` and what its tables' metadata say
/// of the run ([`run_notes`]), nothing written, nothing printed.
pub fn run_for_sweep(s: &Scenario) -> Result<(RunOutput, Vec<(String, String)>), String> {
    let plan = plan(s)?;
    let run = run_stoppable(s, &plan, true)?;
    let notes = run_notes(&run, &plan);
    Ok((run.output, notes))
}

/// Set by SIGINT and SIGTERM, once the first run has registered it; never cleared. Only the
/// command line's (see [`crate::let_signals_end_the_process`]): a library's caller stops the
/// run under way, and its later runs are not refused for an old signal.
static SIGNALLED: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();

/// Runs `s`; a signal stops it (everything set up removed) with an error. The run's own stop
/// flag is registered for the signals for the run's length only, the process-wide
/// [`SIGNALLED`] once and for good on the command line (so that a signal between a sweep's
/// runs is seen too). A
/// terminal's SIGINT (or `timeout`'s) reaches the whole process group, so an `ip` setting up
/// the run dies of it too: its failure is the signal's.
fn run_stoppable(s: &Scenario, plan: &Plan, quiet: bool) -> Result<TestbedRun, String> {
    const SIGNALS: [i32; 2] = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
    let registered = |flag: &Arc<AtomicBool>| -> Result<Vec<signal_hook::SigId>, String> {
        SIGNALS
            .iter()
            .map(|&signal| signal_hook::flag::register(signal, flag.clone()).map_err(|e| format!("cannot handle signal {signal}: {e}")))
            .collect()
    };
    if crate::signals_end_the_process() && SIGNALLED.get().is_none() {
        let flag = Arc::new(AtomicBool::new(false));
        registered(&flag)?;
        let _ = SIGNALLED.set(flag);
    }
    // `stop` tells every thread of this run to end, at a signal or at the run's end.
    let stop = Arc::new(AtomicBool::new(false));
    let ids = registered(&stop)?;
    let run = run(s, plan, &stop, quiet);
    for id in ids {
        signal_hook::low_level::unregister(id);
    }
    if signalled() || run.as_ref().is_ok_and(|r| r.interrupted) {
        return Err(STOPPED.into());
    }
    run
}

/// The error of a run stopped by a signal.
const STOPPED: &str = "stopped by a signal: the namespaces and devices are removed, no tables written";

/// What the metadata of a run's tables say of the run (each key prefixed `equipoise.`): the
/// kernel, what it does not measure, how late the emulator ran, and how the run was set up.
fn run_notes(run: &TestbedRun, plan: &Plan) -> Vec<(String, String)> {
    let mut notes = vec![
        ("testbed.kernel".into(), kernel_version()),
        ("testbed.unmeasured".into(), unmeasured(run.timeouts_measured)),
        ("testbed.goodput".into(), GOODPUT_NOTE.into()),
        ("testbed.lag_s".into(), format!("median {:.6}, 99th percentile {:.6}, largest {:.6}", run.lag_s[0], run.lag_s[1], run.lag_s[2])),
        ("testbed.strays".into(), run.strays.to_string()),
    ];
    if let Some(note) = &run.laws {
        notes.push(("testbed.laws".into(), note.clone()));
    }
    if let Some(note) = delay_only_note(plan) {
        notes.push(("testbed.delay_only".into(), note));
    }
    if let Some(command) = std::env::var_os(SETUP_VARIABLE) {
        notes.push(("testbed.setup".into(), command.to_string_lossy().into_owned()));
    }
    if hosts::pacing() {
        notes.push(("testbed.pacing".into(), format!("{}: connected with bbr, then reno, paced by the kernel", hosts::PACING_VARIABLE)));
    }
    let priority = if run.real_time { "real-time (FIFO)" } else { "default: real-time scheduling refused" };
    notes.push(("testbed.priority".into(), priority.into()));
    notes
}

/// Columns the kernel's counters do not give: a kernel before 6.7 does not count timeouts.
fn unmeasured(timeouts_measured: bool) -> String {
    let mut columns = vec!["loss_events", "fast_retransmits", "duplicate_acks"];
    if !timeouts_measured {
        columns.insert(0, "timeouts");
    }
    columns.join(", ")
}

/// How goodput is counted, so that it compares with a simulation's.
const GOODPUT_NOTE: &str =
    "application bytes received, scaled by sim.mss over the connection's payload per full segment (the simulator counts whole packets)";

/// The running kernel's release.
fn kernel_version() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

/// What one testbed run gave.
struct TestbedRun {
    output: RunOutput,
    /// How late the emulator's events ran: median, 99th percentile, largest, seconds.
    lag_s: [f64; 3],
    /// Packets between the namespaces that belonged to no subflow (passed on unemulated).
    strays: u64,
    /// Whether the emulator ran at a real-time priority.
    real_time: bool,
    /// Whether the kernel counted every socket's retransmission timeouts.
    timeouts_measured: bool,
    interrupted: bool,
    /// What the metadata says of the coupled laws the run registered, if any.
    laws: Option<String>,
    /// The captures' files: name, bytes, packets.
    captures: Vec<(String, Vec<u8>, u64)>,
}

/// Sets up the namespaces, runs the flows and the links for the scenario's duration, and takes
/// everything down again (also on error).
fn run(s: &Scenario, plan: &Plan, stop: &Arc<AtomicBool>, quiet: bool) -> Result<TestbedRun, String> {
    let wanted: Vec<laws::KernelLaw> = plan.laws.iter().filter_map(|l| l.coupled()).collect();
    let registered = laws::register(&wanted)?;
    let congestion: Vec<String> = plan.laws.iter().map(|l| l.socket_name(&registered)).collect::<Result<_, _>>()?;
    let multipath: Vec<usize> = (0..plan.flows.len()).filter(|&f| plan.flows[f].paths.len() > 1).collect();
    let ns = Namespaces::create(&multipath)?;
    let result = run_in(s, plan, &ns, &congestion, stop, quiet);
    // Every thread sees the end; the namespaces are removed here, by this thread, as `ns`
    // goes (the threads hold only their names), and then the laws, which no socket uses any
    // more.
    stop.store(true, Ordering::Relaxed);
    drop(ns);
    let note = (!wanted.is_empty()).then(|| registered.note());
    drop(registered);
    result.map(|mut run| {
        run.laws = note;
        run
    })
}

fn run_in(
    s: &Scenario,
    plan: &Plan,
    ns: &Namespaces,
    congestion: &[String],
    stop: &Arc<AtomicBool>,
    quiet: bool,
) -> Result<TestbedRun, String> {
    let mss = s.sim.mss.to_string();
    wire(ns, plan, &mss)?;
    // The emulator's thread makes the TUN device in the router's namespace and waits for the
    // start.
    let (tun_ready, tun_made) = std::sync::mpsc::channel();
    let (go, started) = std::sync::mpsc::channel::<Instant>();
    let emulator = {
        let (router, stop) = (ns.entry(Role::Router), stop.clone());
        let (links, paths, reverse) = (plan.emulated.clone(), plan.paths.clone(), plan.reverse.clone());
        let (seed, warmup, end, mtu) = (s.sim.seed, s.sim.warmup, s.sim.duration, s.sim.mss);
        let taps = plan
            .captures
            .iter()
            .map(|c| {
                let file = capture::IpCapture::new(Vec::with_capacity(c.capacity), &c.label)
                    .map_err(|e| format!("capture of {}: {e}", c.label))?;
                Ok(emulator::Tap { subflows: c.subflows.clone(), from: c.from, until: c.until, file })
            })
            .collect::<Result<Vec<_>, String>>()?;
        std::thread::Builder::new()
            .name("emulator".into())
            .spawn(move || -> Result<(emulator::LinkReport, bool), String> {
                let device = router.enter().and_then(|()| {
                    let mut config = tun::Configuration::default();
                    config.tun_name("tb").mtu(mtu as u16).up();
                    tun::create(&config).map_err(|e| format!("cannot make the TUN device: {e}"))
                });
                let device = match device {
                    Ok(d) => {
                        let _ = tun_ready.send(Ok(()));
                        d
                    }
                    Err(e) => {
                        let _ = tun_ready.send(Err(e.clone()));
                        return Err(e);
                    }
                };
                let (reader, mut writer) = device.split();
                let (to, from_tun) = std::sync::mpsc::sync_channel(65_536);
                let reading = stop.clone();
                std::thread::Builder::new()
                    .name("tun-reader".into())
                    .spawn(move || emulator::read_tun(reader, to, reading))
                    .map_err(|e| format!("cannot start the TUN reader: {e}"))?;
                // Where real-time scheduling is not allowed (a container without it), the run
                // goes on at the default priority, with the lateness that brings (recorded).
                let real_time = emulator::real_time().is_ok();
                let Ok(t0) = started.recv() else { return Err("the run did not start".into()) };
                let report =
                    emulator::Emulator::new(&links, &paths, &reverse, seed, warmup, taps).run(t0, end, &from_tun, &mut writer, &stop);
                report.map(|r| (r, real_time))
            })
            .map_err(|e| format!("cannot start the emulator thread: {e}"))?
    };
    tun_made.recv().map_err(|_| "the emulator thread ended early".to_string())??;
    ns.sysctl(Role::Router, "net.ipv4.conf.tb.rp_filter", "0")?;
    ns.ip_batch(Role::Router, "route add default dev tb table 100\n")?;
    setup_hook(ns)?;

    let received: Vec<Arc<Received>> = (0..plan.flows.len())
        .map(|f| hosts::start_receiver(&ns.entry(Role::Receivers), f, plan.flows[f].paths.len() > 1, stop.clone()))
        .collect::<Result<_, _>>()?;
    let t0 = Instant::now();
    go.send(t0).map_err(|_| "the emulator thread ended early".to_string())?;
    let end = Duration::from_nanos(s.sim.duration.as_ps() / 1000);
    let warmup = Duration::from_nanos(s.sim.warmup.as_ps() / 1000);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sender_of = |f: usize| if plan.flows[f].paths.len() > 1 { Role::Multipath(f) } else { Role::Senders };
    let senders: Vec<_> = std::iter::once(Role::Senders)
        .chain((0..plan.flows.len()).filter(|&f| plan.flows[f].paths.len() > 1).map(Role::Multipath))
        .map(|r| ns.entry(r))
        .collect();
    let mut first = 0;
    let mut host_flows = Vec::with_capacity(plan.flows.len());
    for (f, spec) in plan.flows.iter().enumerate() {
        let segments = spec.size.map(|b| b.div_ceil(s.sim.mss as u64).max(1));
        let flow = HostFlow {
            flow: f,
            subflow: first,
            subflows: spec.paths.len(),
            start: Duration::from_nanos(spec.start.as_ps() / 1000),
            stop: spec.stop.map(|t| Duration::from_nanos(t.as_ps() / 1000)),
            // The simulator's segments, each carrying the kernel's payload of a full segment.
            bytes: segments.map(|n| n * (s.sim.mss as u64 - HEADERS)),
            segment: s.sim.mss as u64 - HEADERS,
            congestion: congestion[f].clone(),
        };
        first += spec.paths.len();
        hosts::start_sender(&ns.entry(sender_of(f)), flow.clone(), t0, end, stop.clone(), errors.clone())?;
        host_flows.push(flow);
    }

    // Until the end: the senders' counters every SAMPLE_EVERY, a snapshot at the warm-up.
    let sample_every =
        s.sim.sample_interval.map_or(SAMPLE_EVERY, |t| Duration::from_nanos(t.as_ps() / 1000).max(Duration::from_millis(10)));
    let subflows = plan.paths.len();
    // Per global subflow, the flow it belongs to.
    let owner: Vec<usize> = host_flows.iter().enumerate().flat_map(|(f, flow)| std::iter::repeat_n(f, flow.subflows)).collect();
    let mut sums = vec![(0.0f64, 0.0f64, 0u64); subflows];
    let (mut at_warmup, mut last): (Vec<SocketInfo>, Vec<SocketInfo>) =
        (vec![SocketInfo::default(); subflows], vec![SocketInfo::default(); subflows]);
    let mut received_at_warmup = vec![0u64; plan.flows.len()];
    let mut received_at_stop: Vec<Option<u64>> = vec![None; plan.flows.len()];
    let mut samples = Vec::new();
    let mut warm_taken = warmup.is_zero();
    let mut next_sample = Duration::ZERO;
    let progress = crate::progress::RealTime::start(end, quiet);
    let interrupted = loop {
        if stop.load(Ordering::Relaxed) {
            break true;
        }
        let now = t0.elapsed();
        if now >= end {
            break false;
        }
        if !warm_taken && now >= warmup {
            warm_taken = true;
            at_warmup = infos(&hosts::read_senders(&senders)?, subflows);
            for (f, r) in received.iter().enumerate() {
                received_at_warmup[f] = r.bytes.load(Ordering::Relaxed);
            }
        }
        for (f, flow) in host_flows.iter().enumerate() {
            if received_at_stop[f].is_none() && flow.stop.is_some_and(|t| now >= t) {
                received_at_stop[f] = Some(received[f].bytes.load(Ordering::Relaxed));
            }
        }
        if now >= next_sample {
            next_sample = now + sample_every;
            let current = infos(&hosts::read_senders(&senders)?, subflows);
            let dt = sample_every.as_secs_f64();
            for g in 0..subflows {
                let c = current[g];
                if now >= warmup {
                    sums[g].0 += c.cwnd;
                    sums[g].1 += c.srtt_s;
                    sums[g].2 += 1;
                }
                if s.sim.sample_interval.is_some() {
                    let acked = c.bytes_acked.saturating_sub(last[g].bytes_acked);
                    samples.push(Sample {
                        time_s: now.as_secs_f64(),
                        flow: owner[g] as u32,
                        subflow: (g - host_flows[owner[g]].subflow) as u32,
                        cwnd_pkts: c.cwnd,
                        srtt_s: c.srtt_s,
                        rate_bps: acked as f64 * 8.0 * wire_scale(s.sim.mss, c.mss) / dt,
                        cc_state: None,
                    });
                }
            }
            last = current;
        }
        progress.update(now, end, if now < warmup { ", warming up" } else { "" });
        std::thread::sleep(Duration::from_millis(5).min(end.saturating_sub(t0.elapsed())));
    };
    drop(progress);
    let at_end = infos(&hosts::read_senders(&senders)?, subflows);
    let received_at_end: Vec<u64> = received.iter().map(|r| r.bytes.load(Ordering::Relaxed)).collect();
    stop.store(true, Ordering::Relaxed);
    let (report, real_time) = emulator.join().map_err(|_| "the emulator thread panicked".to_string())??;
    if let Some(e) = errors.lock().expect("no panics while held").first() {
        return Err(e.clone());
    }

    let mut output = RunOutput { links: report.links, samples, ..RunOutput::default() };
    restore_delay_only(&mut output.links, plan);
    let (warmup_t, end_t) = (s.sim.warmup, s.sim.duration);
    for (f, (spec, flow)) in plan.flows.iter().zip(&host_flows).enumerate() {
        let subflows = flow.subflow..flow.subflow + flow.subflows;
        let payload = subflows.clone().map(|g| at_end[g].mss).find(|&m| m > 0).unwrap_or(0);
        let scale = wire_scale(s.sim.mss, payload);
        let finished = *received[f].finished.lock().expect("no panics while held");
        let completed_at = finished.map(|at| Time(at.saturating_duration_since(t0).as_nanos() as u64 * 1000));
        let from = warmup_t.max(spec.start);
        let until = end_t.min(spec.stop.unwrap_or(Time::NEVER)).min(completed_at.unwrap_or(Time::NEVER));
        let window = until.saturating_sub(from).as_secs_f64();
        let per_second = |bytes: f64| if window > 0.0 { bytes * 8.0 * scale / window } else { 0.0 };
        let by = received_at_stop[f].filter(|_| spec.stop.is_some_and(|t| t == until)).unwrap_or(received_at_end[f]);
        let bytes = ((received_at_end[f].saturating_sub(received_at_warmup[f])) as f64 * scale) as u64;
        let goodput = per_second(by.saturating_sub(received_at_warmup[f]) as f64);
        let name: Arc<str> = s.flows[f].name.as_str().into();
        let (mut sent, mut retransmitted, mut timed_out) = (0, 0, 0);
        for (r, g) in subflows.enumerate() {
            let (w, e) = (at_warmup[g], at_end[g]);
            sent += e.data_segs_out.saturating_sub(w.data_segs_out);
            retransmitted += e.retransmitted.saturating_sub(w.retransmitted);
            let timeouts = e.timeouts.unwrap_or(0).saturating_sub(w.timeouts.unwrap_or(0));
            timed_out += timeouts;
            let (cwnd_sum, srtt_sum, n) = sums[g];
            output.subflows.push(SubflowRecord {
                flow: name.clone(),
                subflow: r as u32,
                path: plan.paths[g].iter().map(|&l| plan.links[l].name.as_str()).collect::<Vec<_>>().join(">").into(),
                // A single path's is the flow's; a subflow of MPTCP's, what its sender had
                // acknowledged (the receiver reads the connection's bytes, not the subflow's).
                goodput_bps: if flow.subflows == 1 { goodput } else { per_second(e.bytes_acked.saturating_sub(w.bytes_acked) as f64) },
                mean_cwnd_pkts: if n > 0 { cwnd_sum / n as f64 } else { 0.0 },
                mean_srtt_s: if n > 0 { srtt_sum / n as f64 } else { 0.0 },
                min_rtt_s: e.min_rtt_s,
                packets_sent: e.data_segs_out.saturating_sub(w.data_segs_out),
                retransmissions: e.retransmitted.saturating_sub(w.retransmitted),
                fast_retransmits: 0,
                duplicate_acks: 0,
                timeouts,
            });
        }
        output.flows.push(FlowRecord {
            flow: name,
            algorithm: plan.laws[f].record_name(flow.subflows),
            subflows: flow.subflows as u32,
            start_s: spec.start.as_secs_f64(),
            goodput_bps: goodput,
            bytes_delivered: bytes,
            packets_sent: sent,
            retransmissions: retransmitted,
            timeouts: timed_out,
            loss_events: 0,
            size_bytes: spec.size,
            completion_time_s: completed_at.map(|t| t.saturating_sub(spec.start).as_secs_f64()),
            mean_relative_drop: None,
        });
    }
    output.stats = RunStats {
        simulated_s: end_t.as_secs_f64(),
        data_sent: at_end.iter().map(|i| i.data_segs_out).sum(),
        data_delivered: report.data_delivered,
        data_dropped: report.data_dropped,
        ..RunStats::default()
    };
    // A socket that never connected has no counters to lack; one that did and has no count
    // of timeouts runs on a kernel before 6.7.
    let timeouts_measured = at_end.iter().all(|i| i.mss == 0 || i.timeouts.is_some());
    let captures = report
        .taps
        .into_iter()
        .zip(&plan.captures)
        .map(|(tap, planned)| {
            let packets = tap.file.packets();
            let bytes = tap.file.finish().map_err(|e| format!("capture of {}: {e}", planned.label))?;
            Ok((planned.name.clone(), bytes, packets))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(TestbedRun { output, lag_s: report.lag_s, strays: report.strays, real_time, timeouts_measured, interrupted, laws: None, captures })
}

/// The environment variable naming a shell command run once the namespaces, devices and
/// routes are made, before any socket opens: a way to change the hosts for an experiment
/// (offloads, route metrics, a sniffer) without changing the testbed. It gets the namespaces'
/// names in `EQTB_SENDERS`, `EQTB_RECEIVERS` and `EQTB_ROUTER`; the run fails if it does, and
/// records it in `equipoise.testbed.setup`.
const SETUP_VARIABLE: &str = "EQUIPOISE_TESTBED_SETUP";

/// Runs the command of `EQUIPOISE_TESTBED_SETUP`, if set, and waits for it.
fn setup_hook(ns: &Namespaces) -> Result<(), String> {
    let Some(command) = std::env::var_os(SETUP_VARIABLE) else { return Ok(()) };
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("EQTB_SENDERS", ns.name(Role::Senders))
        .env("EQTB_RECEIVERS", ns.name(Role::Receivers))
        .env("EQTB_ROUTER", ns.name(Role::Router))
        .stdin(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("{SETUP_VARIABLE}: cannot run sh: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{SETUP_VARIABLE} ({}) failed: {status}", command.to_string_lossy())) }
}

/// Per global subflow, its socket's counters (zero for one with no socket yet).
fn infos(read: &[(usize, SocketInfo)], subflows: usize) -> Vec<SocketInfo> {
    let mut all = vec![SocketInfo::default(); subflows];
    for &(g, info) in read {
        if g < subflows {
            all[g] = info;
        }
    }
    all
}

/// Wire bytes per application byte: a full segment is `mss` bytes on the wire and carries
/// the connection's payload (`payload`, or `mss` less the usual headers if unknown).
fn wire_scale(mss: u32, payload: u64) -> f64 {
    let payload = if payload > 0 { payload } else { mss as u64 - HEADERS };
    mss as f64 / payload as f64
}

/// The namespaces' devices, addresses and routes: a veth pair from each side to the router,
/// every host address on its side's device, the router forwarding.
fn wire(ns: &Namespaces, plan: &Plan, mtu: &str) -> Result<(), String> {
    let (snd, rcv, rt) = (ns.name(Role::Senders), ns.name(Role::Receivers), ns.name(Role::Router));
    for (host, peer, name) in [("s0", "rs", &snd), ("r0", "rr", &rcv)] {
        netns::ip(&["link", "add", host, "netns", name, "type", "veth", "peer", "name", peer, "netns", &rt])?;
    }
    let side = |dev: &str, router: std::net::Ipv4Addr, hosts: Vec<std::net::Ipv4Addr>| {
        let mut lines = format!("link set lo up\nlink set {dev} mtu {mtu} up\n");
        for a in &hosts {
            lines.push_str(&format!("addr add {a}/16 dev {dev}\n"));
        }
        if !hosts.is_empty() {
            lines.push_str(&format!("route add default via {router} dev {dev}\n"));
        }
        lines
    };
    // Single-path senders share one namespace; each multipath flow has its own, whose MPTCP
    // endpoints are then its subflows' addresses alone (the kernel's path manager opens a
    // subflow from every endpoint of its namespace).
    let mut firsts = Vec::with_capacity(plan.flows.len());
    let mut single = Vec::new();
    for spec in &plan.flows {
        let first = firsts.last().map_or(0, |&(g, n): &(usize, usize)| g + n);
        firsts.push((first, spec.paths.len()));
        if spec.paths.len() == 1 {
            single.push(addresses::sender(first));
        }
    }
    ns.ip_batch(Role::Senders, &side("s0", addresses::SENDERS.1, single))?;
    let mut router = String::from("rule add iif rs lookup 100\nrule add iif rr lookup 100\n");
    for (f, &(first, n)) in firsts.iter().enumerate().filter(|(_, (_, n))| *n > 1) {
        let (host, dev) = (ns.name(Role::Multipath(f)), format!("m{f}"));
        netns::ip(&["link", "add", "m0", "netns", &host, "type", "veth", "peer", "name", &dev, "netns", &rt])?;
        let addresses: Vec<_> = (first..first + n).map(addresses::sender).collect();
        let mut lines = side("m0", addresses::SENDERS.1, addresses.clone());
        lines.push_str(&format!("mptcp limits set subflows {MAX_SUBFLOWS} add_addr_accepted {MAX_SUBFLOWS}\n"));
        for a in &addresses[1..] {
            lines.push_str(&format!("mptcp endpoint add {a} dev m0 subflow\n"));
        }
        ns.ip_batch(Role::Multipath(f), &lines)?;
        router.push_str(&format!("link set {dev} mtu {mtu} up\naddr add {}/16 dev {dev} noprefixroute\n", addresses::SENDERS.1));
        for a in &addresses {
            router.push_str(&format!("route add {a}/32 dev {dev}\n"));
        }
        router.push_str(&format!("rule add iif {dev} lookup 100\n"));
    }
    let mut receivers = side("r0", addresses::RECEIVERS.1, (0..plan.flows.len()).map(addresses::receiver).collect());
    receivers.push_str(&format!("mptcp limits set subflows {MAX_SUBFLOWS} add_addr_accepted {MAX_SUBFLOWS}\n"));
    ns.ip_batch(Role::Receivers, &receivers)?;
    ns.ip_batch(
        Role::Router,
        &format!(
            "link set lo up\nlink set rs mtu {mtu} up\nlink set rr mtu {mtu} up\naddr add {}/16 dev rs\naddr add {}/16 dev rr\n",
            addresses::SENDERS.1,
            addresses::RECEIVERS.1
        ),
    )?;
    ns.ip_batch(Role::Router, &router)?;
    for key in ["net.ipv4.ip_forward", "net.ipv4.conf.all.rp_filter", "net.ipv4.conf.default.rp_filter"] {
        ns.sysctl(Role::Router, key, if key.ends_with("forward") { "1" } else { "0" })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(links: &str, flows: &str) -> Scenario {
        topologies::load_text("testbed.toml", &format!("[sim]\nduration = \"10s\"\nmss = \"1500B\"\n{links}{flows}"), &[]).expect("valid")
    }

    fn link(name: &str, rate: &str) -> String {
        format!("[[link]]\nname = \"{name}\"\nrate = \"{rate}\"\ndelay = \"5ms\"\nbuffer = \"100pkt\"\n")
    }

    fn flow(name: &str, path: &str) -> String {
        format!("[[flow]]\nname = \"{name}\"\ncc = \"reno\"\npaths = [[{path}]]\n")
    }

    #[test]
    fn fast_access_links_into_one_bottleneck_count_once_per_hop() {
        // Six 1 Gb/s access links (delay alone) into one 40 Mb/s link: 80 Mb/s on two hops.
        let links: String = (0..6).map(|i| link(&format!("a{i}"), "1Gbps")).chain([link("b", "40Mbps")]).collect();
        let flows: String = (0..6).map(|i| flow(&format!("f{i}"), &format!("\"a{i}\", \"b\""))).collect();
        let plan = plan(&scenario(&links, &flows)).expect("within the emulator's 200 Mb/s");
        assert_eq!(plan.delay_only, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn links_that_can_all_be_full_at_once_are_refused_above_the_total() {
        // Three disjoint 80 Mb/s links, each with its flow: 240 Mb/s.
        let links: String = (0..3).map(|i| link(&format!("l{i}"), "80Mbps")).collect();
        let flows: String = (0..3).map(|i| flow(&format!("f{i}"), &format!("\"l{i}\""))).collect();
        let Err(e) = plan(&scenario(&links, &flows)) else { panic!("240 Mb/s accepted") };
        assert!(e.contains("the links carry up to 240 Mb/s together, above the 200 Mb/s"), "{e}");
    }

    #[test]
    fn a_laws_parameters_at_their_defaults_are_its_own_form() {
        let with = |cc: &str| format!("[[flow]]\nname = \"mp\"\ncc = {cc}\npaths = [[\"l\"], [\"m\"]]\n");
        let links = link("l", "10Mbps") + &link("m", "10Mbps");
        let ewtcp = plan(&scenario(&links, &with("{ algorithm = \"uncoupled\", a = 1.0 }"))).expect("a = 1 is the uncoupled law");
        assert_eq!(ewtcp.laws, vec![laws::FlowLaw::Reno]);
        let Err(e) = plan(&scenario(&links, &with("{ algorithm = \"uncoupled\", a = 0.25 }"))) else { panic!("a = 0.25 accepted") };
        assert!(e.contains("flow.mp.cc.a"), "{e}");
        let Err(e) = plan(&scenario(&links, &with("{ algorithm = \"cubic\", hystart = false }"))) else { panic!("no HyStart accepted") };
        assert!(e.contains("flow.mp.cc.hystart"), "{e}");
        let Err(e) = plan(&scenario(&links, &with("\"link-fair\""))) else { panic!("a simulator's law accepted") };
        assert!(e.contains("flow.mp.cc:") && e.contains("`link-fair` is a law of the simulator"), "{e}");
    }

    #[test]
    fn a_fast_link_carries_at_most_the_rates_of_the_links_limiting_its_subflows() {
        // Ten subflows through a 1 Gb/s link, each limited by the same 36 Mb/s link: 36 Mb/s
        // at most, not ten times that.
        let links = link("y", "1Gbps") + &link("t", "36Mbps");
        let flows: String = (0..10).map(|i| flow(&format!("f{i}"), "\"y\", \"t\"")).collect();
        let plan = plan(&scenario(&links, &flows)).expect("y only delays");
        assert_eq!(plan.delay_only, vec![0]);
        assert_eq!(carried_bounds(&plan.links, &plan.flows), vec![36_000_000, 1_000_000_000]);
    }

    #[test]
    fn a_fast_ack_path_carries_at_most_what_its_subflow_does() {
        // Data over a 10 Mb/s link, its ACKs back over a 1 Gb/s one alone.
        let links = link("l", "10Mbps") + &link("r", "1Gbps");
        let flow = "[[flow]]\nname = \"f\"\ncc = \"reno\"\npaths = [[\"l\"]]\nreverse_paths = [[\"r\"]]\n";
        let plan = plan(&scenario(&links, flow)).expect("the ACK path only delays");
        assert_eq!(plan.delay_only, vec![1]);
    }
}
