//! The plain model to the fluid engine's [`fluid::Network`]: the same links, paths and window
//! laws as the packet build, in packets and seconds, and the `[fluid]` choices as options.
//!
//! The fluid model has long-lived flows on one fixed network. What a scenario has beyond that
//! is an error naming its key (finite transfers, flows that stop, traffic generators whose
//! flows come and go, links that go down), or, where a reduction exists, a warning saying what was approximated (queue
//! disciplines other than drop-tail, ACK paths, receive buffers, start times).

use fluid::{Integrator, LossModel, Network, Options, Subflow, TcpConstant};
use tcp::Growth;

use crate::error::Result;
use crate::model::{FluidConstant, FluidIntegrator, FluidLoss, QueueModel, Scenario};
use crate::units::BufferValue;

/// A scenario ready for the fluid engine.
#[derive(Debug)]
pub struct FluidSystem {
    /// Links and flows, in the scenario's order.
    pub network: Network,
    /// The engine's options, from `[fluid]`.
    pub options: Options,
    /// Each flow's subflows' paths, link names joined by `>` (as the packet records write them).
    pub paths: Vec<Vec<String>>,
    /// Each flow's window law's configuration name.
    pub algorithms: Vec<&'static str>,
    /// Each link's capacity, bits per second.
    pub link_bps: Vec<f64>,
    /// Bits in a packet (`sim.mss` × 8): packets per second to bits per second.
    pub packet_bits: f64,
    /// How the trajectory is integrated, from `[fluid]`.
    pub integrator: Integrator,
    /// Each approximation made, naming its key.
    pub warnings: Vec<String>,
}

impl Scenario {
    /// Checks that the fluid model can represent the scenario and builds its network.
    pub fn build_fluid(&self) -> Result<FluidSystem> {
        // What a run refuses, the model is not given either.
        let index = self.check()?;
        let mut warnings = Vec::new();
        if let Some(c) = self.captures.first() {
            warnings.push(format!("{}: packet captures are made by `equipoise run`; the fluid model has no packets", c.key));
        }
        let mut network = Network::new();
        let packet_bits = self.sim.mss as f64 * 8.0;
        let mut link_bps = Vec::with_capacity(self.links.len());
        // Queue kinds the model approximates: (kind, the first link's key, links of that kind).
        let mut approximated: Vec<(&str, String, usize)> = Vec::new();
        for link in &self.links {
            let rate = self.rate(&format!("{}.rate", link.key), link.rate)?;
            if !link.events.is_empty() {
                return Err(self.error(
                    format!("{}.events", link.key),
                    "a link that goes down or up changes the network; the fluid model has one network",
                ));
            }
            let bps = rate.as_bps() as f64;
            let capacity = bps / packet_bits;
            let buffer = self.bytes(link.buffer, rate) / self.sim.mss as f64;
            let packets = |v: BufferValue| self.bytes(v, rate) / self.sim.mss as f64;
            // The queue a congested link keeps (drop-tail loses only when full, a random-drop
            // zone within its zone, RED between its thresholds, a threshold-dropper at its
            // threshold), and the disciplines the loss model only approximates.
            let (standing, approximation) = match &link.queue {
                QueueModel::DropTail => (buffer, None),
                QueueModel::RandomDrop { zone, .. } => (buffer - packets(*zone) / 2.0, Some("a random-drop zone")),
                QueueModel::Red { min, max, .. } => ((packets(*min) + packets(*max)) / 2.0, Some("RED")),
                QueueModel::ThresholdDropper { threshold, .. } => (*threshold as f64, Some("a threshold-dropper")),
            };
            if let Some(kind) = approximation {
                match approximated.iter_mut().find(|(k, _, _)| *k == kind) {
                    Some((_, _, n)) => *n += 1,
                    None => approximated.push((kind, link.key.clone(), 1)),
                }
            }
            let mut fluid_link =
                fluid::Link::new(&link.name, capacity).with_delay(link.delay.as_secs_f64()).with_loss(link.loss).with_buffer(buffer);
            if self.fluid.queueing {
                fluid_link = fluid_link.with_standing_queue(standing.max(0.0));
            }
            network.add_link(fluid_link);
            link_bps.push(bps);
        }
        let by = match self.fluid.loss {
            FluidLoss::Price => "the price model (loss only where the link is full)",
            FluidLoss::Curve(_) => "the loss curve of [fluid]",
        };
        for (kind, key, n) in approximated {
            let others = if n > 1 { format!(" (and {} more links)", n - 1) } else { String::new() };
            warnings.push(format!("{key}.queue{others}: {kind} approximated by {by}"));
        }
        let mut paths = Vec::with_capacity(self.flows.len());
        let mut algorithms = Vec::with_capacity(self.flows.len());
        for flow in &self.flows {
            if flow.key.starts_with("traffic.") && (flow.size.is_some() || flow.stop.is_some()) {
                return Err(self.error(
                    &*flow.key,
                    "this traffic generator's flows come and go; the fluid model has long-lived flows only (a permutation of bulk flows is)",
                ));
            }
            if flow.size.is_some() {
                return Err(self.error(
                    format!("{}.size", flow.key),
                    "a finite transfer is not long-lived; the fluid model has long-lived flows only (remove `size` for a bulk flow)",
                ));
            }
            if flow.stop.is_some() {
                return Err(self.error(
                    format!("{}.stop", flow.key),
                    "a flow that stops changes the population; the fluid model has long-lived flows only",
                ));
            }
            if flow.reverse_paths.is_some() {
                warnings.push(format!("{}.reverse_paths: ACK paths are not modelled (no ACK loss or queueing)", flow.key));
            }
            if flow.receive_buffer.is_some() {
                warnings.push(format!("{}.receive_buffer: not modelled (windows are not bounded by it)", flow.key));
            }
            let algorithm = self.algorithm(flow)?;
            if matches!(algorithm, mptcp_cc::Algorithm::Cubic { .. }) {
                return Err(self.error(
                    format!("{}.cc", flow.key),
                    "CUBIC's growth depends on the time since its last loss, which the fluid model's window laws do not see: its response function is not modelled",
                ));
            }
            let mut f = fluid::Flow::with_algorithm(&flow.name, &algorithm);
            let mut names = Vec::with_capacity(flow.paths.len());
            let instant_acks = self.tcp_config(flow)?.instant_acks;
            for (p, path) in flow.paths.iter().enumerate() {
                let links = self.route(|| format!("{}.paths[{p}]", flow.key), path, &index, |l| l)?;
                f = f.subflow(if instant_acks {
                    // ACKs that arrive at once: the propagation RTT is the data's way alone.
                    let one_way = links.iter().map(|&l| self.links[l].delay.as_secs_f64()).sum();
                    Subflow::with_rtt(links, one_way)
                } else {
                    Subflow::new(links)
                });
                names.push(path.join(">"));
            }
            network.add_flow(f);
            paths.push(names);
            algorithms.push(algorithm.name());
        }
        if self.flows.iter().any(|f| f.start > self.sim.warmup) {
            warnings.push("flow start times: every flow is present from time 0 in the fluid model".to_string());
        }
        let constant = self.fluid_constant(&mut warnings)?;
        let loss_model = match self.fluid.loss {
            FluidLoss::Price => LossModel::Price,
            FluidLoss::Curve(exponent) => LossModel::Curve { exponent },
        };
        let options = Options { constant, loss_model, small_loss: self.fluid.small_loss, ..Options::default() };
        let integrator = match self.fluid.integrator {
            FluidIntegrator::Adaptive { tolerance } => Integrator::DormandPrince { rtol: tolerance, atol: 1e-9, max_step: f64::INFINITY },
            FluidIntegrator::Rk4 { step } => Integrator::Rk4 { step: step.as_secs_f64() },
        };
        Ok(FluidSystem { network, options, paths, algorithms, link_bps, packet_bits, integrator, warnings })
    }

    /// `[fluid] constant`, with `auto` resolved from the flows' TCP settings: with delayed ACKs
    /// and growth per ACK the sawtooth grows half as fast per packet.
    fn fluid_constant(&self, warnings: &mut Vec<String>) -> Result<TcpConstant> {
        Ok(match self.fluid.constant {
            FluidConstant::Papers => TcpConstant::Papers,
            FluidConstant::Packet => TcpConstant::Packet,
            FluidConstant::PacketDelayedAck => TcpConstant::PacketDelayedAck,
            FluidConstant::Auto => {
                let mut halved = Vec::with_capacity(self.flows.len());
                for flow in &self.flows {
                    let tcp = self.tcp_config(flow)?;
                    halved.push(tcp.delayed_ack && tcp.growth == Growth::PerAck);
                }
                if let Some(i) = halved.iter().position(|&h| h != halved[0]) {
                    warnings.push(format!(
                        "{}.tcp: flows differ in how delayed ACKs slow their growth; the fluid constant is flow \"{}\"'s",
                        self.flows[i].key, self.flows[0].name
                    ));
                }
                if halved.first().copied().unwrap_or(false) { TcpConstant::PacketDelayedAck } else { TcpConstant::Packet }
            }
        })
    }
}
