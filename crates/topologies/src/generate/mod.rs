//! Topology generators: a `[topology]` table expands into ordinary named links, exactly as if
//! they had been written as `[[link]]` tables, and into the routes flows may take.
//!
//! A route is a list of paths. Small topologies name their routes after the papers' users
//! (`route = "both"`); the fat-tree routes between hosts (`from = "h3"`, `to = "h70"`), its
//! route being every equal-cost path between the two. A flow takes all paths of its route, or
//! `subflows = n` of them chosen at random from the run's seed ([`choose_paths`]).
//!
//! Every generated link can be changed by name in `[topology.links.<name>]` (key path
//! `topology.links.<name>.rate`, as sweeps use).

mod fat_tree;
mod small;

use rand::RngExt;
use rand::seq::SliceRandom;
use sim_core::Time;
use sim_core::rng::Stream;

use crate::error::{Result, ScenarioError, suggestion};
use crate::model::{LinkModel, QueueModel};
use crate::parse::{LinkSettings, read_link_events};
use crate::reader::{Reader, type_name};
use crate::units::{BufferValue, RateValue};
use toml::Value;

pub use fat_tree::FatTree;

/// Generator kinds, with the papers' networks they build.
pub const KINDS: &[&str] = &["dumbbell", "two-link", "torus", "isp", "shared-bottleneck", "fat-tree"];

/// What a `[topology]` table expands into: its links, ready to join the written ones, and
/// the routes flows may name.
#[derive(Clone, Debug)]
pub struct Topology {
    /// The generator's kind, one of [`KINDS`].
    pub kind: String,
    /// Its links, overrides applied.
    pub links: Vec<LinkModel>,
    /// Named routes, in the order the generator defines them.
    routes: Vec<(String, Vec<Vec<String>>)>,
    /// Host-to-host routing, for generators with hosts.
    fat_tree: Option<FatTree>,
}

impl Topology {
    /// The paths of route `name`.
    pub fn route(&self, name: &str) -> Option<&[Vec<String>]> {
        self.routes.iter().find(|(n, _)| n == name).map(|(_, p)| p.as_slice())
    }

    /// What a route name may be, for error messages.
    pub fn route_names(&self) -> Vec<&str> {
        self.routes.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Number of hosts (zero for topologies routed by name).
    pub fn hosts(&self) -> u32 {
        self.fat_tree.as_ref().map_or(0, FatTree::hosts)
    }

    /// Index of host `name` (`h0`, `h1`, …).
    pub fn host_index(&self, name: &str) -> Option<u32> {
        let i: u32 = name.strip_prefix('h')?.parse().ok()?;
        (i < self.hosts()).then_some(i)
    }

    /// Every equal-cost path from host `src` to host `dst`.
    pub fn host_paths(&self, src: u32, dst: u32) -> Vec<Vec<String>> {
        self.fat_tree.as_ref().map_or_else(Vec::new, |t| t.paths(src, dst))
    }
}

/// The link settings a generator applies to every link, before per-link overrides.
#[derive(Clone, Debug)]
struct LinkDefaults {
    rate: RateValue,
    delay: Time,
    buffer: BufferValue,
    queue: QueueModel,
    loss: f64,
}

impl LinkDefaults {
    fn read(t: &mut Reader) -> Result<LinkDefaults> {
        let s = LinkSettings::read(t)?;
        let rate = s.rate.ok_or_else(|| t.missing("rate", "missing; expected every link's rate, such as \"100Mbps\""))?;
        let delay = s.delay.ok_or_else(|| t.missing("delay", "missing; expected every link's one-way delay, such as \"5ms\""))?;
        let buffer = s.buffer.ok_or_else(|| t.missing("buffer", "missing; expected every link's buffer (\"100pkt\" or \"20ms\")"))?;
        Ok(LinkDefaults { rate, delay, buffer, queue: s.queue.unwrap_or(QueueModel::DropTail), loss: s.loss.unwrap_or(0.0) })
    }

    /// Link `name` of link group `group`.
    fn link(&self, name: String, group: &str) -> LinkModel {
        LinkModel {
            key: format!("topology.links.{name}"),
            name,
            group: group.to_string(),
            rate: self.rate,
            delay: self.delay,
            buffer: self.buffer,
            queue: self.queue.clone(),
            loss: self.loss,
            events: Vec::new(),
        }
    }
}

/// Reads `[topology]` and expands it.
pub fn read_topology(mut t: Reader) -> Result<Topology> {
    let kind = t.required_string("kind")?;
    let (links, routes, fat_tree) = match kind {
        "dumbbell" => small::dumbbell(&mut t)?,
        "two-link" => small::two_link(&mut t)?,
        "torus" => small::torus(&mut t)?,
        "isp" => small::isp(&mut t)?,
        "shared-bottleneck" => small::shared_bottleneck(&mut t)?,
        "fat-tree" => {
            let (links, tree) = fat_tree::read(&mut t)?;
            (links, Vec::new(), Some(tree))
        }
        other => {
            return Err(t.error(
                "kind",
                format!("unknown topology kind \"{other}\"{} (valid: {})", suggestion(other, KINDS.iter().copied()), KINDS.join(", ")),
            ));
        }
    };
    let mut links = links;
    match t.value("links") {
        None => {}
        Some(Value::Table(overrides)) => {
            for (name, value) in overrides {
                let path = format!("topology.links.{name}");
                let Some(link) = links.iter_mut().find(|l| &l.name == name) else {
                    let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
                    let shown = names.iter().take(12).copied().collect::<Vec<_>>().join(", ");
                    let more = if names.len() > 12 { ", …" } else { "" };
                    let hint = suggestion(name, names.iter().copied());
                    return Err(ScenarioError::new(
                        t.file(),
                        path,
                        format!("no generated link named \"{name}\"{hint} (links: {shown}{more})"),
                    ));
                };
                let Value::Table(table) = value else {
                    return Err(ScenarioError::new(t.file(), path, format!("expected a table of link settings, got {}", type_name(value))));
                };
                apply_overrides(Reader::new(t.file(), path, table), link)?;
            }
        }
        Some(other) => return Err(t.error("links", format!("expected a table [topology.links.<name>], got {}", type_name(other)))),
    }
    t.finish()?;
    Ok(Topology { kind: kind.to_string(), links, routes, fat_tree })
}

/// Applies `[topology.links.<name>]` to a generated link.
fn apply_overrides(mut r: Reader, link: &mut LinkModel) -> Result<()> {
    let s = LinkSettings::read(&mut r)?;
    link.rate = s.rate.unwrap_or(link.rate);
    link.delay = s.delay.unwrap_or(link.delay);
    link.buffer = s.buffer.unwrap_or(link.buffer);
    if let Some(queue) = s.queue {
        link.queue = queue;
    }
    link.loss = s.loss.unwrap_or(link.loss);
    link.events = read_link_events(&mut r)?;
    r.finish()
}

/// The paths a flow takes from `route`: all of them, or `subflows` chosen at random from `rng`:
/// distinct paths while there are enough, then paths drawn again at random.
pub fn choose_paths(route: &[Vec<String>], subflows: Option<usize>, rng: &mut Stream) -> Vec<Vec<String>> {
    let Some(n) = subflows else { return route.to_vec() };
    let mut order: Vec<usize> = (0..route.len()).collect();
    order.shuffle(rng);
    let mut chosen: Vec<Vec<String>> = order.iter().take(n).map(|&i| route[i].clone()).collect();
    while chosen.len() < n {
        chosen.push(route[rng.random_range(0..route.len())].clone());
    }
    chosen
}

/// `[name]` as a one-link path.
fn one(link: &str) -> Vec<String> {
    vec![link.to_string()]
}

#[cfg(test)]
mod tests;
