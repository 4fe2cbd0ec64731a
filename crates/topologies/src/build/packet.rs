//! The plain model to a runnable [`Simulation`]: cross-checks (names, paths, thresholds
//! against the packet size) and construction.

use mptcp_cc::{Algorithm, ParamValue};
use sim_core::threshold::ThresholdDropper;
use sim_core::{BufferLimit, Discipline, Rate, Red};
use tcp::{FlowSpec, LinkIndex, LinkSpec, Profile, SimConfig, Simulation, TcpConfig};

use crate::error::{Result, ScenarioError, suggestion};
use crate::model::{CcModel, FlowModel, LinkModel, QueueModel, Scenario};
use crate::model::{MAX_FLOWS, MAX_SAMPLES};
use crate::units::{BufferValue, RateValue, SizeValue};

impl Scenario {
    fn error(&self, key: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(&self.file, key, message)
    }

    /// `[sim]` as the simulation takes it ([`Scenario::build`] starts from it).
    pub fn sim_config(&self) -> SimConfig {
        SimConfig {
            duration: self.sim.duration,
            warmup: self.sim.warmup,
            seed: self.sim.seed,
            mss: self.sim.mss,
            ack_size: self.sim.ack_size,
            sample_interval: self.sim.sample_interval,
        }
    }

    /// Checks everything that needs the whole scenario and builds the simulation.
    pub fn build(&self) -> Result<Simulation> {
        let mut sim = Simulation::new(self.sim_config());
        let subflows = self.flows.iter().map(|f| f.paths.len()).max().unwrap_or(1);
        sim.reserve(self.links.len(), self.flows.len(), subflows);
        self.check_sizes()?;
        // Sorted names for lookups: flows name links by name, in any order.
        let mut index: Vec<(&str, LinkIndex)> =
            self.links.iter().enumerate().map(|(i, l)| (l.name.as_str(), LinkIndex(i as u32))).collect();
        index.sort_unstable_by_key(|&(n, _)| n);
        if let Some(w) = index.windows(2).find(|w| w[0].0 == w[1].0) {
            let link = &self.links[w[1].1.0 as usize];
            return Err(self.error(format!("{}.name", link.key), format!("two links are named \"{}\"", link.name)));
        }
        for link in &self.links {
            sim.add_link(self.link_spec(link)?);
        }
        let mut flow_names: Vec<&str> = self.flows.iter().map(|f| f.name.as_str()).collect();
        flow_names.sort_unstable();
        if let Some(w) = flow_names.windows(2).find(|w| w[0] == w[1]) {
            let flow = self.flows.iter().find(|f| f.name == w[0]).expect("exists");
            return Err(self.error(format!("{}.name", flow.key), format!("two flows are named \"{}\"", w[0])));
        }
        for flow in &self.flows {
            sim.add_flow(self.flow_spec(flow, &index)?);
        }
        self.check_metrics()?;
        Ok(sim)
    }

    fn rate(&self, key: &str, rate: RateValue) -> Result<Rate> {
        let bps = match rate {
            RateValue::Bps(b) => b,
            RateValue::Pps(p) => p * self.sim.mss as f64 * 8.0,
        };
        if !(1.0..=1e15).contains(&bps) {
            return Err(self.error(key, format!("expected a rate between 1bps and 1000Tbps, got {bps} b/s")));
        }
        Ok(Rate::bps(bps.round() as u64))
    }

    /// A buffer or threshold in bytes; a time is that long at the link's rate.
    fn bytes(&self, value: BufferValue, rate: Rate) -> f64 {
        match value {
            BufferValue::Size(s) => s.bytes(self.sim.mss),
            BufferValue::Time(t) => rate.as_bps() as f64 * t.as_secs_f64() / 8.0,
        }
    }

    fn link_spec(&self, link: &LinkModel) -> Result<LinkSpec> {
        let rate = self.rate(&format!("{}.rate", link.key), link.rate)?;
        let buffer = match link.buffer {
            BufferValue::Size(SizeValue::Packets(p)) if p >= 1.0 && p.fract() == 0.0 && p < u32::MAX as f64 => {
                BufferLimit::Packets(p as u32)
            }
            BufferValue::Size(SizeValue::Packets(p)) => {
                return Err(self.error(format!("{}.buffer", link.key), format!("expected a whole number of packets ≥ 1, got {p}")));
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
            QueueModel::Red { min, max, max_p, weight, gentle, wait } => {
                let (lo, hi) = (self.bytes(*min, rate), self.bytes(*max, rate));
                if lo >= hi {
                    return Err(self.error(
                        format!("{}.queue.max", link.key),
                        format!("the maximum threshold ({hi} B) must exceed the minimum ({lo} B)"),
                    ));
                }
                if *max_p == 0.0 {
                    return Err(self.error(format!("{}.queue.max_p", link.key), "must be above 0"));
                }
                let mut red = Red::new(lo as u64, hi as u64, *max_p, *weight, *gentle, rate.serialization_time(self.sim.mss as u64));
                red.wait = *wait;
                Discipline::Red(red)
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
        Ok(LinkSpec { name: link.name.clone(), rate, delay: link.delay, buffer, discipline, loss: link.loss, events: link.events.clone() })
    }

    /// Refuses a run whose recorded sizes would not fit in memory: time-series rows and flows.
    fn check_sizes(&self) -> Result<()> {
        if self.flows.len() > MAX_FLOWS {
            return Err(self.error("flow", format!("{} flows; at most {MAX_FLOWS} in one run", self.flows.len())));
        }
        if let Some(dt) = self.sim.sample_interval {
            let subflows: usize = self.flows.iter().map(|f| f.paths.len()).sum();
            let rows = (self.sim.duration.as_ps() / dt.as_ps().max(1)).saturating_mul(subflows as u64);
            if rows > MAX_SAMPLES {
                return Err(self.error(
                    "sim.sample_interval",
                    format!(
                        "{dt} over {} for {subflows} subflows makes {rows} time-series rows; at most {MAX_SAMPLES}: sample less often",
                        self.sim.duration
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A flow's TCP settings: its profile's (the flow's, else the scenario's, else the
    /// default), then the scenario's `[tcp]` keys, then the flow's own.
    fn tcp_config(&self, flow: &FlowModel) -> Result<TcpConfig> {
        let (scenario, own) = (&self.tcp, &flow.tcp);
        let profile = own.profile.or(scenario.profile).unwrap_or(Profile::SCENARIO_DEFAULT);
        let mut config = profile.config();
        scenario.apply(&mut config);
        own.apply(&mut config);
        config.validate().map_err(|(keys, message)| {
            // Point at a conflicting key the flow's own table sets, else one `[tcp]` sets.
            let at = match (keys.iter().find(|k| own.given().contains(k)), keys.iter().find(|k| scenario.given().contains(k))) {
                (Some(key), _) => format!("{}.tcp.{key}", flow.key),
                (None, Some(key)) => format!("tcp.{key}"),
                (None, None) => "tcp.profile".to_string(),
            };
            self.error(at, format!("{message} (profile \"{}\")", profile.name()))
        })?;
        Ok(config)
    }

    fn algorithm(&self, flow: &FlowModel) -> Result<Algorithm> {
        let CcModel { algorithm, params } = &flow.cc;
        let mut given = Vec::with_capacity(params.len());
        for (key, value) in params {
            let v = match value {
                toml::Value::Float(x) => ParamValue::Number(*x),
                toml::Value::Integer(i) => ParamValue::Number(*i as f64),
                toml::Value::Boolean(b) => ParamValue::Bool(*b),
                // A time with a unit becomes seconds; other words ("adaptive", "inf") stay words.
                toml::Value::String(t) => match crate::units::parse_time(t) {
                    Ok(time) => ParamValue::Number(time.as_secs_f64()),
                    Err(_) => ParamValue::Text(t.clone()),
                },
                other => {
                    return Err(self.error(
                        format!("{}.cc.{key}", flow.key),
                        format!("expected a number, a word or a boolean, got {}", crate::read::reader::type_name(other)),
                    ));
                }
            };
            given.push((key.clone(), v));
        }
        let algorithm = Algorithm::from_params(algorithm, &given).map_err(|e| {
            if e.key.is_empty() {
                let names: Vec<&str> = Algorithm::names().collect();
                self.error(
                    format!("{}.cc", flow.key),
                    format!("{}{} (valid: {})", e.message, suggestion(algorithm, names.iter().copied()), names.join(", ")),
                )
            } else {
                self.error(format!("{}.cc.{}", flow.key, e.key), e.message)
            }
        })?;
        if flow.paths.len() > algorithm.max_subflows() {
            return Err(self.error(
                format!("{}.paths", flow.key),
                format!("\"{}\" takes at most {} subflows, got {}", algorithm.name(), algorithm.max_subflows(), flow.paths.len()),
            ));
        }
        Ok(algorithm)
    }

    fn route(&self, key: &str, names: &[String], index: &[(&str, LinkIndex)]) -> Result<Vec<LinkIndex>> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| match index.binary_search_by(|(n, _)| (*n).cmp(name.as_str())) {
                Ok(at) => Ok(index[at].1),
                Err(_) => Err(self.error(
                    format!("{key}[{i}]"),
                    format!("no link named \"{name}\"{} (links: {})", suggestion(name, index.iter().map(|(n, _)| *n)), self.link_list()),
                )),
            })
            .collect()
    }

    fn link_list(&self) -> String {
        let names: Vec<&str> = self.links.iter().map(|l| l.name.as_str()).take(20).collect();
        let more = if self.links.len() > 20 { ", …" } else { "" };
        format!("{}{more}", names.join(", "))
    }

    fn flow_spec(&self, flow: &FlowModel, index: &[(&str, LinkIndex)]) -> Result<FlowSpec> {
        let algorithm = self.algorithm(flow)?;
        let paths = flow
            .paths
            .iter()
            .enumerate()
            .map(|(p, names)| self.route(&format!("{}.paths[{p}]", flow.key), names, index))
            .collect::<Result<Vec<_>>>()?;
        let reverse_paths = match &flow.reverse_paths {
            None => None,
            Some(rev) => Some(
                rev.iter()
                    .enumerate()
                    .map(|(p, names)| self.route(&format!("{}.reverse_paths[{p}]", flow.key), names, index))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        let start = flow.start;
        // A flow starting after the end is allowed: shortened runs of a scenario (`--set
        // sim.duration=…`) simply leave late flows idle, reported with zero goodput.
        if let Some(stop) = flow.stop
            && stop <= start
        {
            return Err(self.error(format!("{}.stop", flow.key), format!("stops at {stop}, not after it starts ({start})")));
        }
        let size = flow.size.map(|s| s.bytes(self.sim.mss).round() as u64);
        let receive_buffer = flow.receive_buffer.map(|b| (b.bytes(self.sim.mss) / self.sim.mss as f64).floor() as u64);
        if receive_buffer == Some(0) {
            return Err(self.error(format!("{}.receive_buffer", flow.key), format!("must hold at least one {}-byte packet", self.sim.mss)));
        }
        Ok(FlowSpec {
            name: flow.name.clone(),
            algorithm,
            paths,
            reverse_paths,
            start,
            stop: flow.stop,
            size,
            receive_buffer,
            tcp: self.tcp_config(flow)?,
        })
    }
}
