//! Topology generators: a `[topology]` expands into ordinary named links, exactly as if they
//! had been written as `[[link]]` tables, and into the routes flows may take.
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
use sim_core::rng::Stream;

use crate::error::{Result, ScenarioError, suggestion};
use crate::model::LinkModel;
use crate::read::{LinkOverride, PathChoice, Subflows, TopologyKind, TopologySpec};

pub use fat_tree::FatTree;

/// What a `[topology]` table expands into: its links, ready to join the written ones, and
/// the routes flows may name.
#[derive(Clone, Debug)]
pub struct Topology {
    /// The generator's kind (`two-link`, …).
    pub kind: &'static str,
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

/// Generates the links and routes of `spec` (from `file`) and applies its link overrides.
pub fn generate(spec: &TopologySpec, file: &str) -> Result<Topology> {
    let d = &spec.defaults;
    let (mut links, routes, fat_tree) = match &spec.kind {
        TopologyKind::Dumbbell { hosts, access } => small::dumbbell(d, *hosts, access),
        TopologyKind::TwoLink => small::two_link(d),
        TopologyKind::Torus { size } => small::torus(d, *size),
        TopologyKind::Isp => small::isp(d),
        TopologyKind::SharedBottleneck { access } => small::shared_bottleneck(d, access),
        TopologyKind::FatTree { k, oversubscription, nic_buffer, nic_round_robin } => {
            let (links, tree) = fat_tree::build(d, *k, *oversubscription, *nic_buffer, *nic_round_robin);
            (links, Vec::new(), Some(tree))
        }
    };
    for o in &spec.overrides {
        let Some(link) = links.iter_mut().find(|l| l.name == o.name) else {
            let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
            let shown = names.iter().take(12).copied().collect::<Vec<_>>().join(", ");
            let more = if names.len() > 12 { ", …" } else { "" };
            let hint = suggestion(&o.name, names.iter().copied());
            return Err(ScenarioError::new(file, &o.key, format!("no generated link named \"{}\"{hint} (links: {shown}{more})", o.name)));
        };
        apply_override(o, link);
    }
    Ok(Topology { kind: spec.kind.name(), links, routes, fat_tree })
}

/// Applies `[topology.links.<name>]` to a generated link.
fn apply_override(o: &LinkOverride, link: &mut LinkModel) {
    let s = &o.settings;
    link.rate = s.rate.unwrap_or(link.rate);
    link.delay = s.delay.unwrap_or(link.delay);
    link.buffer = s.buffer.unwrap_or(link.buffer);
    if let Some(queue) = &s.queue {
        link.queue = queue.clone();
    }
    link.loss = s.loss.unwrap_or(link.loss);
    link.events = o.events.clone();
}

/// The paths a flow takes from `route`: all of them, or `subflows` chosen at random from `rng`:
/// distinct paths while there are enough, then paths drawn again at random; or with
/// [`PathChoice::Independent`] a draw for each subflow, as many as there are paths at most.
pub fn choose_paths(route: &[Vec<String>], subflows: Option<Subflows>, rng: &mut Stream) -> Vec<Vec<String>> {
    let Some(Subflows { count: n, choice }) = subflows else { return route.to_vec() };
    if choice == PathChoice::Independent {
        return (0..n.min(route.len())).map(|_| route[rng.random_range(0..route.len())].clone()).collect();
    }
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
