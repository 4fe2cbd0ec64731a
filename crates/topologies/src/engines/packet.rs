//! The plain model to a runnable [`Simulation`]: cross-checks (names, paths, thresholds
//! against the packet size) and construction.

use std::sync::Arc;

use sim_core::threshold::ThresholdDropper;
use sim_core::{BufferLimit, Discipline, Ns2Red, Red, RedUnit};
use tcp::{FlowSpec, LinkIndex, LinkSpec, Simulation};

use super::LinkNames;
use crate::error::Result;
use crate::model::{FlowModel, LinkModel, QueueModel, RedVariant, Scenario, TcpModel};
use crate::units::{BufferValue, SizeValue};

impl Scenario {
    /// Checks everything that needs the whole scenario and builds the simulation.
    pub fn build(&self) -> Result<Simulation> {
        let mut sim = Simulation::new(self.sim.clone());
        let subflows = self.flows.iter().map(|f| f.paths.len()).max().unwrap_or(1);
        let mut reserved = false;
        let index = self.checked_specs(Memory::Checked, |spec| {
            // Reserved once the scenario's size has passed the first memory check.
            if !reserved {
                sim.reserve(self.links.len(), self.flows.len(), subflows);
                reserved = true;
            }
            match spec {
                Checked::Link(link) => {
                    sim.add_link(link);
                }
                Checked::Flow(flow) => sim.add_flow(flow),
            }
        })?;
        self.add_captures(&mut sim, &index)?;
        Ok(sim)
    }

    /// Every check of [`Scenario::build`] but the packet simulator's memory, for an engine
    /// that runs the scenario another way (ns-2, the fluid model): the links by name when all
    /// pass.
    pub(crate) fn check(&self) -> Result<LinkNames<'_>> {
        self.checked_specs(Memory::Unchecked, |_| {})
    }

    /// Every check a run of the scenario must pass, on any engine (the packet simulator, ns-2,
    /// the testbed, the fluid model): each link's and flow's spec is made and checked, then
    /// handed to `add`; the metrics are checked too, and with `memory`, what the packet
    /// simulator's run could need.
    fn checked_specs(&self, memory_check: Memory, mut add: impl FnMut(Checked<'_>)) -> Result<LinkNames<'_>> {
        let checked = memory_check == Memory::Checked;
        // The flows' own state is allocated as they are added: checked before any of it.
        let mut memory = MemoryEstimate::default();
        memory.add_state(&self.flows);
        if checked {
            self.check_memory(&memory, crate::MEMORY_CAP)?;
        }
        self.check_sizes()?;
        let index = self.link_index()?;
        for model in &self.links {
            let spec = self.link_spec(model)?;
            memory.add_link(&model.key, &spec, self.sim.mss);
            add(Checked::Link(spec));
        }
        self.check_flow_names()?;
        let mut previous = None;
        for model in &self.flows {
            let spec = self.flow_spec(model, &index, &mut previous)?;
            memory.add_flow(model, spec);
            add(Checked::Flow(spec));
        }
        // A generator that drew no flow here would draw flows in a longer run: as one of them.
        for template in &self.idle_traffic {
            self.flow_spec(template, &index, &mut None)?;
        }
        if checked {
            self.check_memory(&memory, crate::MEMORY_CAP)?;
        }
        self.check_metrics()?;
        Ok(index)
    }

    /// An upper bound on the packets a run sends over its links: every link busy for the
    /// whole run (a warning's estimate of the work, not a limit).
    pub fn packets_bound(&self) -> f64 {
        let seconds = self.sim.duration.as_secs_f64();
        let packets =
            |l: &LinkModel| self.rate(&format!("{}.rate", l.key), l.rate).map(|r| r.as_bps() as f64 / (8.0 * self.sim.mss as f64));
        self.links.iter().filter_map(|l| packets(l).ok()).sum::<f64>() * seconds
    }

    /// Refuses a run whose packets, per-segment records and flows' state could need more than
    /// `cap` bytes ([`crate::MEMORY_CAP`]), naming the key that adds the most, before the run
    /// starts.
    fn check_memory(&self, memory: &MemoryEstimate, cap: u64) -> Result<()> {
        let total = memory.links + memory.flows + memory.state;
        if total <= cap as f64 {
            return Ok(());
        }
        let (key, part, what) = if memory.state >= memory.flows.max(memory.links) {
            (
                &memory.largest_group.1,
                memory.state,
                "the flows' own state (about 0.4 kB a flow and 1.2 kB a subflow: connections, routes, records)",
            )
        } else if memory.flows >= memory.links {
            (
                &memory.largest_flow.1,
                memory.flows,
                "the flows' initial windows (each segment of them a record at its sender, and a packet held in the send jitter when there is one)",
            )
        } else {
            (&memory.largest_link.1, memory.links, "the links' buffers and the packets in flight on them")
        };
        let (total, limit) = crate::units::sizes_apart(total, cap as f64);
        let (part, _) = crate::units::sizes_apart(part, cap as f64);
        Err(self.error(
            key.clone(),
            format!(
                "this run could need about {total} of memory, {part} of it for {what}, above the {limit} a run may take; make it smaller"
            ),
        ))
    }

    /// The links and flows as the simulation would take them, checked as [`Scenario::build`]
    /// checks them, for a run of the network elsewhere (`equipoise testbed`, ns-2).
    pub fn specs(&self) -> Result<(Vec<LinkSpec>, Vec<FlowSpec>)> {
        let (mut links, mut flows) = (Vec::with_capacity(self.links.len()), Vec::with_capacity(self.flows.len()));
        self.checked_specs(Memory::Unchecked, |spec| match spec {
            Checked::Link(link) => links.push(link),
            Checked::Flow(flow) => flows.push(flow.clone()),
        })?;
        Ok((links, flows))
    }

    pub(crate) fn link_spec(&self, link: &LinkModel) -> Result<LinkSpec> {
        let rate = self.rate(&format!("{}.rate", link.key), link.rate)?;
        let buffer = match link.buffer {
            BufferValue::Size(SizeValue::Packets(p)) if p >= 1.0 && p.fract() == 0.0 && p < u32::MAX as f64 => {
                BufferLimit::Packets(p as u32)
            }
            BufferValue::Size(SizeValue::Packets(p)) => {
                return Err(self.error(
                    format!("{}.buffer", link.key),
                    format!("expected a whole number of packets from 1 to {}, got {p}", u32::MAX - 1),
                ));
            }
            other => {
                let bytes = self.bytes(other, rate).floor();
                if bytes < self.sim.mss as f64 {
                    return Err(self.error(
                        format!("{}.buffer", link.key),
                        format!("{bytes} bytes cannot hold one {}-byte packet; make it at least \"1pkt\"", self.sim.mss),
                    ));
                }
                BufferLimit::Bytes(bytes as u64)
            }
        };
        let discipline = match &link.queue {
            QueueModel::DropTail => Discipline::DropTail,
            QueueModel::Red { min, max, max_p, weight, gentle, wait, variant, bytes, mean_pktsize, ns2_rng } => {
                let (lo, hi) = (self.bytes(*min, rate), self.bytes(*max, rate));
                if lo >= hi {
                    return Err(self.error(
                        format!("{}.queue.max", link.key),
                        format!("the maximum threshold ({hi} B) must exceed the minimum ({lo} B)"),
                    ));
                }
                match self.red_variant(*variant) {
                    RedVariant::Floyd => {
                        let mut red =
                            Red::new(lo as u64, hi as u64, *max_p, *weight, *gentle, rate.serialization_time(self.sim.mss as u64));
                        red.wait = wait.unwrap_or(false);
                        Discipline::Red(red)
                    }
                    RedVariant::Ns2 => {
                        let (mss, mean) = (f64::from(self.sim.mss), mean_pktsize.unwrap_or(self.sim.mss));
                        // As the ns-2 export writes them: thresholds in packets of `mss`, or in
                        // bytes as ns-2 scales its packet thresholds by `mean_pktsize_`.
                        let (unit, lo, hi) = if *bytes {
                            let m = f64::from(mean);
                            (RedUnit::Bytes, lo / m * m, hi / m * m)
                        } else {
                            (RedUnit::Packets, lo / mss, hi / mss)
                        };
                        let red = Ns2Red::new(unit, lo, hi, *max_p, *weight, *gentle, wait.unwrap_or(true), mean, rate.as_bps() as f64);
                        // Before any packet reaches a queue ns-2 has drawn twice per TCP agent (its
                        // `boot_time_`): measured, the one skip that makes the drops agree with 2,
                        // 3, 4, 6 and 8 flows (tests/integration/ns2.rs).
                        Discipline::RedNs2(Box::new(if *ns2_rng { red.with_ns2_rng(2 * self.flows.len() as u64) } else { red }))
                    }
                }
            }
            QueueModel::RandomDrop { zone, probability } => {
                let zone_bytes = self.bytes(*zone, rate);
                if zone_bytes > buffer.in_bytes(self.sim.mss) as f64 {
                    return Err(self.error(format!("{}.queue.zone", link.key), "the drop zone is deeper than the buffer"));
                }
                // In the buffer's unit: a packet buffer's zone is its top packet slots.
                let depth = match buffer {
                    BufferLimit::Packets(_) => (zone_bytes / self.sim.mss as f64).round().max(1.0) as u64,
                    BufferLimit::Bytes(_) => zone_bytes as u64,
                };
                Discipline::RandomDropZone { depth, probability: *probability }
            }
            QueueModel::ThresholdDropper { threshold, hold, policy } => {
                if buffer.in_bytes(self.sim.mss) <= *threshold as u64 * self.sim.mss as u64 {
                    return Err(self.error(format!("{}.buffer", link.key), "a threshold-dropper needs a buffer well above its threshold"));
                }
                Discipline::ThresholdDropper(ThresholdDropper::new(*threshold, *hold, *policy))
            }
        };
        // Events after the end never happen: shortened runs (`--set sim.duration=…`) stay valid.
        Ok(LinkSpec {
            name: link.name.clone(),
            rate,
            delay: link.delay,
            buffer,
            discipline,
            loss: link.loss,
            round_robin: link.round_robin,
            events: link.events.clone(),
        })
    }

    /// The simulation's spec of `flow`, made in `previous`, the spec of the flow before: the
    /// copies of one template share its window law and TCP settings, and its paths when they
    /// are alike, so those are resolved once per template and only what differs is set again.
    fn flow_spec<'s, 'a>(&self, flow: &'a FlowModel, index: &LinkNames, previous: &'s mut Option<Previous<'a>>) -> Result<&'s FlowSpec> {
        let same_template = previous.as_ref().is_some_and(|p| Arc::ptr_eq(p.cc, &flow.cc) && Arc::ptr_eq(p.tcp, &flow.tcp));
        if !same_template {
            let algorithm = self.algorithm(flow)?;
            let tcp = self.tcp_config(flow)?;
            let paths = self.routes(flow, "paths", &flow.paths, index)?;
            let spec = FlowSpec {
                name: String::new(),
                algorithm,
                paths,
                reverse_paths: None,
                start: flow.start,
                stop: None,
                size: None,
                receive_buffer: None,
                tcp,
            };
            *previous = Some(Previous { spec, cc: &flow.cc, tcp: &flow.tcp, paths: &flow.paths });
        }
        let previous = previous.as_mut().expect("set above");
        if !Arc::ptr_eq(previous.paths, &flow.paths) {
            previous.spec.paths = self.routes(flow, "paths", &flow.paths, index)?;
            previous.paths = &flow.paths;
        }
        let spec = &mut previous.spec;
        spec.reverse_paths = match &flow.reverse_paths {
            None => None,
            Some(_) if spec.tcp.instant_acks => {
                return Err(self.error(
                    format!("{}.reverse_paths", flow.key),
                    "ACKs that arrive at once (tcp.instant_acks = true) cross no link: remove reverse_paths, or set instant_acks = false",
                ));
            }
            Some(rev) => Some(self.routes(flow, "reverse_paths", rev, index)?),
        };
        let start = flow.start;
        // A flow starting after the end is allowed: shortened runs of a scenario (`--set
        // sim.duration=…`) simply leave late flows idle, reported with zero goodput.
        if let Some(stop) = flow.stop
            && stop <= start
        {
            return Err(self.error(format!("{}.stop", flow.key), format!("stops at {stop}, not after it starts ({start})")));
        }
        let receive_buffer = flow.receive_buffer.map(|b| (b.bytes(self.sim.mss) / self.sim.mss as f64).floor() as u64);
        if receive_buffer == Some(0) {
            return Err(self.error(format!("{}.receive_buffer", flow.key), format!("must hold at least one {}-byte packet", self.sim.mss)));
        }
        spec.name.clear();
        spec.name.push_str(&flow.name);
        spec.start = start;
        spec.stop = flow.stop;
        spec.size = flow.size.map(|s| s.bytes(self.sim.mss).round() as u64);
        spec.receive_buffer = receive_buffer;
        Ok(spec)
    }

    /// The link indices of `paths`, the flow's `key` (`paths` or `reverse_paths`).
    fn routes(&self, flow: &FlowModel, key: &str, paths: &[Vec<String>], index: &LinkNames) -> Result<Vec<Vec<LinkIndex>>> {
        paths.iter().enumerate().map(|(p, names)| self.route(|| format!("{}.{key}[{p}]", flow.key), names, index, link_index)).collect()
    }
}

/// Whether `Scenario::checked_specs` checks the memory the packet simulator's run could need.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    Checked,
    Unchecked,
}

/// A link's or flow's spec, made and checked by `Scenario::checked_specs`.
enum Checked<'s> {
    Link(LinkSpec),
    Flow(&'s FlowSpec),
}

/// The spec of the flow added last and the shared tables it was made from (see
/// `Scenario::flow_spec`).
struct Previous<'a> {
    spec: FlowSpec,
    cc: &'a Arc<mptcp_cc::Algorithm>,
    tcp: &'a Arc<TcpModel>,
    paths: &'a Arc<Vec<Vec<String>>>,
}

/// A link position as the simulation addresses links.
fn link_index(position: usize) -> LinkIndex {
    LinkIndex(position as u32)
}

/// Bytes a packet takes in the packet arena, which grows by doubling (so up to twice this).
const PACKET_BYTES: f64 = 2.0 * std::mem::size_of::<sim_core::Packet>() as f64;

/// Bytes a segment outstanding at its sender takes: its scoreboard record (send time and
/// flags) and the receiver's record of it, each in a growing buffer.
const SEGMENT_BYTES: f64 = 2.0 * 32.0;

/// Bytes a flow and each of its subflows take whatever they send: the flow's model and
/// records, and each subflow's sender, receiver, routes and records (measured: 10^5 flows of 1
/// and of 8 paths built and run).
const FLOW_BYTES: f64 = 400.0;
const SUBFLOW_BYTES: f64 = 1200.0;

/// An upper bound on a run's memory, from what each link and each flow can hold at once: a
/// link its buffer and the packets in flight on it; a flow the segments of its initial windows
/// (sent at once, all outstanding until acknowledged or timed out; later windows are bounded by
/// what the paths carry and drop), each also a packet while a send jitter holds it.
#[derive(Default)]
struct MemoryEstimate {
    links: f64,
    flows: f64,
    /// The link (bytes, key of its buffer) that adds the most.
    largest_link: (f64, String),
    /// The flow (bytes, key of its initial window) that adds the most.
    largest_flow: (f64, String),
    /// The flows' and subflows' own state.
    state: f64,
    /// The `[[flow]]` or `[[traffic]]` table (bytes of its flows' state, the key that makes
    /// them many) that adds the most.
    largest_group: (f64, String),
}

impl MemoryEstimate {
    fn add_state(&mut self, flows: &[FlowModel]) {
        // Copies of one table are consecutive: each run of a key is that table's flows.
        for copies in flows.chunk_by(|a, b| a.key == b.key) {
            let bytes: f64 = copies.iter().map(|f| FLOW_BYTES + f.paths.len() as f64 * SUBFLOW_BYTES).sum();
            self.state += bytes;
            if bytes > self.largest_group.0 {
                let key = &copies[0].key;
                let key = match copies.len() {
                    _ if key.starts_with("traffic.") => key.to_string(),
                    1 => format!("{key}.paths"),
                    _ => format!("{key}.count"),
                };
                self.largest_group = (bytes, key);
            }
        }
    }

    fn add_link(&mut self, key: &str, spec: &LinkSpec, mss: u32) {
        let buffer = spec.buffer.in_bytes(mss) as f64 / mss as f64;
        // In flight one way, and as many ACKs the other.
        let in_flight = 2.0 * spec.rate.as_bps() as f64 * spec.delay.as_secs_f64() / (8.0 * mss as f64);
        let bytes = (buffer + in_flight) * PACKET_BYTES;
        self.links += bytes;
        if bytes > self.largest_link.0 {
            self.largest_link = (bytes, format!("{key}.buffer"));
        }
    }

    fn add_flow(&mut self, flow: &FlowModel, spec: &FlowSpec) {
        let held = if spec.tcp.jitter > sim_core::Time::ZERO { PACKET_BYTES } else { 0.0 };
        let bytes = spec.paths.len() as f64 * spec.tcp.initial_cwnd * (SEGMENT_BYTES + held);
        self.flows += bytes;
        if bytes > self.largest_flow.0 {
            let key =
                if flow.tcp.initial_cwnd.is_some() { format!("{}.tcp.initial_cwnd", flow.key) } else { "tcp.initial_cwnd".to_string() };
            self.largest_flow = (bytes, key);
        }
    }
}

#[cfg(test)]
mod tests {
    const SCENARIO: &str = r#"
[sim]
duration = "1s"
[tcp]
jitter = "1ms"
[[link]]
name = "l"
rate = "100Mbps"
delay = "10ms"
buffer = "100pkt"
[[flow]]
name = "f"
count = 2000
paths = [["l"]]
"#;

    fn built(sets: &[(&str, &str)]) -> Result<(), String> {
        let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let scenario = crate::load_text("m.toml", SCENARIO, &sets).map_err(|e| e.to_string())?;
        scenario.build().map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn runs_that_could_exhaust_memory_are_refused_naming_the_key() {
        built(&[]).unwrap();
        // 2000 flows sending a million-packet initial window each, held in the send jitter.
        let e = built(&[("tcp.initial_cwnd", "1000000")]).unwrap_err();
        assert!(e.starts_with("m.toml: tcp.initial_cwnd: this run could need about") && e.contains("initial windows"), "{e}");
        let e = built(&[("flow.f.tcp", "{ initial_cwnd = 1000000 }")]).unwrap_err();
        assert!(e.starts_with("m.toml: flow.f.tcp.initial_cwnd:"), "{e}");
        // A single flow with that window is well within the cap.
        built(&[("tcp.initial_cwnd", "1000000"), ("flow.f.count", "1")]).unwrap();
        // A buffer of four billion packets.
        let e = built(&[("link.l.buffer", "\"4000000000pkt\"")]).unwrap_err();
        assert!(e.starts_with("m.toml: link.l.buffer:") && e.contains("buffers"), "{e}");
    }

    #[test]
    fn the_flows_own_state_counts_and_names_the_count() {
        // 2 000 flows of 8 paths, against a cap lowered below their state (2 000 × (0.4 kB +
        // 8 × 1.2 kB) = 20 MB): the limits allow a thousand times as many, 20 GB.
        let sets: Vec<(String, String)> = vec![("flow.f.paths".into(), format!("[{}]", ["[\"l\"]"; 8].join(", ")))];
        let scenario = crate::load_text("m.toml", SCENARIO, &sets).unwrap();
        let mut memory = super::MemoryEstimate::default();
        memory.add_state(&scenario.flows);
        assert_eq!(memory.state, 2000.0 * (super::FLOW_BYTES + 8.0 * super::SUBFLOW_BYTES));
        scenario.check_memory(&memory, 21_000_000).unwrap();
        let e = scenario.check_memory(&memory, 19_000_000).unwrap_err().to_string();
        assert!(e.starts_with("m.toml: flow.f.count: this run could need about 20.00 MB") && e.contains("above the 19.00 MB"), "{e}");
    }
}
