//! `[topology]`: a generator's kind, its parameters and the per-link overrides, as declared;
//! [`crate::expand::generate`] builds the links and routes.

use sim_core::Time;
use toml::Value;

use super::links::{LinkSettings, read_link_events};
use super::reader::{Reader, type_name};
use crate::error::{Result, ScenarioError, suggestion};
use crate::model::{LinkModel, QueueModel};
use crate::units::{BufferValue, RateValue, SizeValue};

/// Generator kinds, with the papers' networks they build.
pub const KINDS: &[&str] = &["dumbbell", "two-link", "torus", "isp", "shared-bottleneck", "fat-tree"];

/// A `[topology]` table.
#[derive(Clone, Debug)]
pub struct TopologySpec {
    /// Which network, with its own parameters.
    pub kind: TopologyKind,
    /// The settings every generated link starts from.
    pub defaults: LinkDefaults,
    /// `[topology.links.<name>]`, in the file's order; checked against the generated names when
    /// the topology is expanded.
    pub overrides: Vec<LinkOverride>,
}

/// The generators and their parameters (see `expand::generate` for what each builds).
#[derive(Clone, Debug)]
pub enum TopologyKind {
    /// `hosts` senders behind their own access links, sharing `bottleneck`.
    Dumbbell {
        /// Senders, from 1.
        hosts: u64,
        /// The access links' settings.
        access: LinkDefaults,
    },
    /// Links `l1` and `l2`.
    TwoLink,
    /// A ring of `size` links.
    Torus {
        /// Links in the ring, from 2.
        size: u64,
    },
    /// Seed 002 scenario B's four ISP links.
    Isp,
    /// Seed 001 Fig. 12: one bottleneck behind three access links.
    SharedBottleneck {
        /// The access links' settings.
        access: LinkDefaults,
    },
    /// The k-ary fat-tree of seed 002 §6.2.
    FatTree {
        /// Switch port count, even, 2 to 48.
        k: u32,
        /// Rate divisor of every link above the edge (1: none).
        oversubscription: f64,
        /// The buffer of each host's link to its edge switch (its NIC), drop-tail; `None`: the
        /// links' buffer and queue.
        nic_buffer: Option<BufferValue>,
        /// Each host's link to its edge switch serves its flows round robin, as csg-htsim's host
        /// queue does (`nic_service = "round-robin"`), instead of first come, first served.
        nic_round_robin: bool,
    },
}

impl TopologyKind {
    /// The configuration name, one of the kinds the reader accepts (`KINDS`).
    pub fn name(&self) -> &'static str {
        match self {
            TopologyKind::Dumbbell { .. } => "dumbbell",
            TopologyKind::TwoLink => "two-link",
            TopologyKind::Torus { .. } => "torus",
            TopologyKind::Isp => "isp",
            TopologyKind::SharedBottleneck { .. } => "shared-bottleneck",
            TopologyKind::FatTree { .. } => "fat-tree",
        }
    }
}

/// `[topology.links.<name>]`: settings for one generated link, by name.
#[derive(Clone, Debug)]
pub struct LinkOverride {
    /// The generated link's name.
    pub name: String,
    /// Key path for messages (`topology.links.<name>`).
    pub key: String,
    /// The settings it changes.
    pub settings: LinkSettings,
    /// Its scheduled state changes.
    pub events: Vec<(Time, bool)>,
}

/// The link settings a generator applies to every link of a group, before overrides.
#[derive(Clone, Debug)]
pub struct LinkDefaults {
    /// Service rate.
    pub rate: RateValue,
    /// One-way propagation delay.
    pub delay: Time,
    /// Buffer.
    pub buffer: BufferValue,
    /// Drop discipline.
    pub queue: QueueModel,
    /// Exogenous drop probability per packet.
    pub loss: f64,
}

impl LinkDefaults {
    fn read(t: &mut Reader) -> Result<LinkDefaults> {
        let s = LinkSettings::read(t)?;
        let rate = s.rate.ok_or_else(|| t.missing("rate", "missing; expected every link's rate, such as \"100Mbps\""))?;
        let delay = s.delay.ok_or_else(|| t.missing("delay", "missing; expected every link's one-way delay, such as \"5ms\""))?;
        let buffer = s.buffer.ok_or_else(|| t.missing("buffer", "missing; expected every link's buffer (\"100pkt\" or \"20ms\")"))?;
        Ok(LinkDefaults { rate, delay, buffer, queue: s.queue.unwrap_or(QueueModel::DropTail), loss: s.loss.unwrap_or(0.0) })
    }

    /// Access links: ten times these links' rate, no delay and a deep buffer unless set, so
    /// they shape nothing but the round-trip time they are given.
    fn access(&self, t: &mut Reader) -> Result<LinkDefaults> {
        let rate = t.rate("access_rate")?.unwrap_or(match self.rate {
            RateValue::Bps(b) => RateValue::Bps(10.0 * b),
            RateValue::Pps(p) => RateValue::Pps(10.0 * p),
        });
        let delay = t.time("access_delay")?.unwrap_or(Time::ZERO);
        let buffer = BufferValue::Size(SizeValue::Packets(10_000.0));
        Ok(LinkDefaults { rate, delay, buffer, queue: QueueModel::DropTail, loss: 0.0 })
    }

    /// Link `name` of link group `group`.
    pub fn link(&self, name: String, group: &str) -> LinkModel {
        LinkModel {
            key: format!("topology.links.{name}"),
            name,
            group: group.to_string(),
            rate: self.rate,
            delay: self.delay,
            buffer: self.buffer,
            queue: self.queue.clone(),
            loss: self.loss,
            round_robin: false,
            events: Vec::new(),
        }
    }
}

/// Reads `[topology]`.
pub(super) fn read_topology(mut t: Reader) -> Result<TopologySpec> {
    let kind = t.required_string("kind")?;
    if !KINDS.contains(&kind) {
        return Err(t.error(
            "kind",
            format!("unknown topology kind \"{kind}\"{} (valid: {})", suggestion(kind, KINDS.iter().copied()), KINDS.join(", ")),
        ));
    }
    let defaults = LinkDefaults::read(&mut t)?;
    let kind = match kind {
        "dumbbell" => {
            let hosts = t.bounded("hosts", 1..=100_000, "hosts")?.unwrap_or(1);
            TopologyKind::Dumbbell { hosts, access: defaults.access(&mut t)? }
        }
        "two-link" => TopologyKind::TwoLink,
        "torus" => TopologyKind::Torus { size: t.bounded("size", 2..=10_000, "links in the ring")?.unwrap_or(5) },
        "isp" => TopologyKind::Isp,
        "shared-bottleneck" => TopologyKind::SharedBottleneck { access: defaults.access(&mut t)? },
        _ => read_fat_tree(&mut t)?,
    };
    let overrides = read_overrides(&mut t)?;
    t.finish()?;
    Ok(TopologySpec { kind, defaults, overrides })
}

fn read_fat_tree(t: &mut Reader) -> Result<TopologyKind> {
    let k = match t.unsigned("k")? {
        None => return Err(t.missing("k", "missing; expected the switches' port count, an even number such as 8")),
        Some(k) if k % 2 == 0 && (2..=48).contains(&k) => k as u32,
        Some(k) => return Err(t.error("k", format!("expected an even number of ports from 2 to 48, got {k}"))),
    };
    let oversubscription = t.number("oversubscription")?.unwrap_or(1.0);
    if !(1.0..=1000.0).contains(&oversubscription) {
        return Err(
            t.error("oversubscription", format!("expected a ratio from 1 (none) to 1000, such as 4 for 4:1, got {oversubscription}"))
        );
    }
    let nic_buffer = t.buffer("nic_buffer")?;
    let nic_round_robin = t.choice("nic_service", &[("fifo", false), ("round-robin", true)])?.unwrap_or(false);
    Ok(TopologyKind::FatTree { k, oversubscription, nic_buffer, nic_round_robin })
}

fn read_overrides(t: &mut Reader) -> Result<Vec<LinkOverride>> {
    let mut out = Vec::new();
    match t.value("links") {
        None => {}
        Some(Value::Table(overrides)) => {
            for (name, value) in overrides {
                let key = format!("topology.links.{name}");
                let Value::Table(table) = value else {
                    return Err(ScenarioError::new(t.file(), key, format!("expected a table of link settings, got {}", type_name(value))));
                };
                let mut r = Reader::new(t.file(), key.clone(), table);
                let settings = LinkSettings::read(&mut r)?;
                let events = read_link_events(&mut r)?;
                r.finish()?;
                out.push(LinkOverride { name: name.clone(), key, settings, events });
            }
        }
        Some(other) => return Err(t.error("links", format!("expected a table [topology.links.<name>], got {}", type_name(other)))),
    }
    Ok(out)
}
