//! A table's declared paths to the link names of one flow's subflows.

use sim_core::rng::stream;

use super::generate::{Topology, choose_paths};
use crate::error::{Result, ScenarioError, suggestion};
use crate::read::{PathDecl, PathSource, expand_name};

/// What paths are resolved against: the generated topology (if any) and the run seed (a flow
/// with fewer subflows than paths takes them at random).
#[derive(Clone, Copy)]
pub(super) struct Routing<'a> {
    /// The scenario file, for messages.
    pub file: &'a str,
    /// The `[topology]`, expanded.
    pub topology: Option<&'a Topology>,
    /// The run seed.
    pub seed: u64,
}

impl<'a> Routing<'a> {
    /// An error at key `key` of the table `decl` was read from.
    fn error(&self, decl: &PathDecl, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.file, format!("{}.{key}", decl.key), message)
    }

    /// The paths of copy `index` of `decl`, for the flow named `flow`: all of its source's, or
    /// `subflows` of them drawn from the flow's own stream.
    pub(super) fn paths(&self, decl: &PathDecl, index: u64, flow: &str) -> Result<Vec<Vec<String>>> {
        let all = match &decl.source {
            PathSource::Written(paths) => with_index(paths, index),
            PathSource::Route(route) => {
                let name = expand_name(route, index);
                let topology = self.topology(decl, "route")?;
                match topology.route(&name) {
                    Some(paths) => paths.to_vec(),
                    None => {
                        let names = topology.route_names();
                        let what = if names.is_empty() {
                            "it routes between hosts: use `from` and `to`".to_string()
                        } else {
                            format!("routes: {}", names.join(", "))
                        };
                        let hint = suggestion(&name, names.iter().copied());
                        let message = format!("the {} topology has no route \"{name}\"{hint} ({what})", topology.kind);
                        return Err(self.error(decl, "route", message));
                    }
                }
            }
            PathSource::Hosts { from, to } => {
                let topology = self.topology(decl, "from")?;
                let src = self.host(decl, topology, "from", &expand_name(from, index))?;
                let dst = self.host(decl, topology, "to", &expand_name(to, index))?;
                if src == dst {
                    return Err(self.error(decl, "to", format!("a flow from h{src} to itself crosses no link")));
                }
                topology.host_paths(src, dst)
            }
        };
        // Every path: nothing to draw (a stream per flow would cost more than the rest of its
        // setup).
        let Some(subflows) = decl.subflows else { return Ok(all) };
        let mut rng = stream(self.seed, &format!("flow.{flow}.paths"));
        Ok(choose_paths(&all, Some(subflows), &mut rng))
    }

    fn topology(&self, decl: &PathDecl, key: &str) -> Result<&'a Topology> {
        self.topology.ok_or_else(|| self.error(decl, key, "there is no [topology] generator to take it from; write `paths` instead"))
    }

    fn host(&self, decl: &PathDecl, topology: &Topology, key: &str, name: &str) -> Result<u32> {
        topology.host_index(name).ok_or_else(|| {
            let n = topology.hosts();
            let known = if n == 0 {
                format!("the {} topology has no hosts; use `route`", topology.kind)
            } else {
                format!("hosts are h0 … h{}", n - 1)
            };
            self.error(decl, key, format!("no host \"{name}\" ({known})"))
        })
    }

    /// A topology with hosts, which host-to-host generators need; else an error at `key`.
    pub(super) fn host_topology(&self, key: &str) -> Result<&'a Topology> {
        match self.topology {
            Some(topology) if topology.hosts() >= 2 => Ok(topology),
            _ => Err(ScenarioError::new(
                self.file,
                key,
                "this generator picks hosts: it needs a [topology] with hosts, such as kind = \"fat-tree\"",
            )),
        }
    }
}

/// Written paths with `{i}` in their link names replaced by `index`.
pub(super) fn with_index(paths: &[Vec<String>], index: u64) -> Vec<Vec<String>> {
    paths.iter().map(|p| p.iter().map(|l| expand_name(l, index)).collect()).collect()
}
