//! `[[flow]]` tables: window law, start and stop, size, and the paths, written out or taken from
//! the `[topology]` generator's routes.

use sim_core::Time;
use sim_core::rng::stream;
use toml::{Table, Value};

use crate::error::{Result, ScenarioError, suggestion};
use crate::generate::{Topology, choose_paths};
use crate::model::{CcModel, FlowModel, StartModel, TcpModel};
use crate::parse::{count, expand, read_tcp};
use crate::reader::{Reader, type_name};
use crate::units::SizeValue;

/// What flows need to resolve their routes: the generated topology and the run seed (routes
/// with fewer subflows than paths are chosen at random from it).
#[derive(Clone, Copy)]
pub(crate) struct Routing<'a> {
    pub topology: Option<&'a Topology>,
    pub seed: u64,
    /// `sim.mss`, for sizes given in packets.
    pub mss: u32,
}

impl Routing<'_> {
    /// The paths of copy `index` of the flow read by `t`, to be named `flow`: `paths` as
    /// written, or a generator's `route`, or the equal-cost paths `from` one host `to` another;
    /// `subflows` of them if given.
    pub(crate) fn paths(&self, t: &mut Reader, index: u64, flow: &str) -> Result<Vec<Vec<String>>> {
        let subflows = t.bounded("subflows", 1..=64, "subflows")?.map(|n| n as usize);
        let written = read_paths(t, "paths", index)?;
        let route = t.string("route")?;
        let hosts = (t.string("from")?, t.string("to")?);
        let given = [written.is_some(), route.is_some(), hosts.0.is_some() || hosts.1.is_some()];
        if given.iter().filter(|&&g| g).count() > 1 {
            return Err(t.error("paths", "give the paths one way: `paths`, `route`, or `from` and `to`"));
        }
        let all = if let Some(paths) = written {
            paths
        } else if let Some(route) = route {
            let name = expand(route, index);
            let topology = self.topology(t, "route")?;
            match topology.route(&name) {
                Some(paths) => paths.to_vec(),
                None => {
                    let names = topology.route_names();
                    let what = if names.is_empty() {
                        "it routes between hosts: use `from` and `to`".to_string()
                    } else {
                        format!("routes: {}", names.join(", "))
                    };
                    return Err(t.error(
                        "route",
                        format!(
                            "the {} topology has no route \"{name}\"{} ({what})",
                            topology.kind,
                            suggestion(&name, names.iter().copied())
                        ),
                    ));
                }
            }
        } else if let (Some(from), Some(to)) = hosts {
            let topology = self.topology(t, "from")?;
            let src = self.host(t, topology, "from", &expand(from, index))?;
            let dst = self.host(t, topology, "to", &expand(to, index))?;
            if src == dst {
                return Err(t.error("to", format!("a flow from h{src} to itself crosses no link")));
            }
            topology.host_paths(src, dst)
        } else if hosts.0.is_some() || hosts.1.is_some() {
            let missing = if hosts.0.is_some() { "to" } else { "from" };
            return Err(t.missing(missing, "missing; a flow between hosts needs both `from` and `to`"));
        } else {
            return Err(t.missing("paths", "missing; expected `paths = [[\"l1\"]]`, or a `route` or `from` and `to` of the [topology]"));
        };
        let mut rng = stream(self.seed, &format!("flow.{flow}.paths"));
        Ok(choose_paths(&all, subflows, &mut rng))
    }

    /// Marks the keys [`Routing::paths`] reads on copies of `t` as known, for `t.finish()`.
    pub(crate) fn mark_keys(t: &mut Reader) {
        for key in ["paths", "route", "from", "to", "subflows"] {
            t.value(key);
        }
    }

    fn topology(&self, t: &Reader, key: &str) -> Result<&Topology> {
        self.topology.ok_or_else(|| t.error(key, "there is no [topology] generator to take it from; write `paths` instead"))
    }

    fn host(&self, t: &Reader, topology: &Topology, key: &str, name: &str) -> Result<u32> {
        topology.host_index(name).ok_or_else(|| {
            let n = topology.hosts();
            let known = if n == 0 {
                format!("the {} topology has no hosts; use `route`", topology.kind)
            } else {
                format!("hosts are h0 … h{}", n - 1)
            };
            t.error(key, format!("no host \"{name}\" ({known})"))
        })
    }
}

fn read_paths(t: &mut Reader, key: &'static str, index: u64) -> Result<Option<Vec<Vec<String>>>> {
    let path = t.key_path(key);
    let Some(v) = t.value(key) else { return Ok(None) };
    let shape = "expected a list of paths, each a list of link names, such as [[\"l1\"], [\"l2\", \"l3\"]]";
    let Value::Array(paths) = v else { return Err(t.error(key, shape)) };
    let mut out = Vec::new();
    for (p, links) in paths.iter().enumerate() {
        let Value::Array(links) = links else {
            return Err(ScenarioError::new(t.file(), format!("{path}[{p}]"), shape));
        };
        let mut names = Vec::new();
        for (l, name) in links.iter().enumerate() {
            let Value::String(name) = name else {
                return Err(ScenarioError::new(
                    t.file(),
                    format!("{path}[{p}][{l}]"),
                    format!("expected a link name, got {}", type_name(name)),
                ));
            };
            names.push(expand(name, index));
        }
        if names.is_empty() {
            return Err(ScenarioError::new(t.file(), format!("{path}[{p}]"), "a path crosses at least one link"));
        }
        out.push(names);
    }
    if out.is_empty() {
        return Err(t.error(key, "at least one path is needed"));
    }
    Ok(Some(out))
}

pub(crate) fn read_cc(t: &mut Reader) -> Result<CcModel> {
    match t.value("cc") {
        None => Ok(CcModel { algorithm: "reno".into(), params: Table::new() }),
        Some(Value::String(name)) => Ok(CcModel { algorithm: name.clone(), params: Table::new() }),
        Some(Value::Table(table)) => {
            let mut params = table.clone();
            match params.remove("algorithm") {
                Some(Value::String(name)) => Ok(CcModel { algorithm: name, params }),
                Some(v) => Err(t.error("cc.algorithm", format!("expected an algorithm name, got {}", type_name(&v)))),
                None => Err(t.error("cc.algorithm", "missing; cc = { algorithm = \"…\", … }")),
            }
        }
        Some(v) => Err(t.error("cc", format!("expected an algorithm name or a table {{ algorithm = \"…\", … }}, got {}", type_name(v)))),
    }
}

pub(crate) fn read_start(t: &mut Reader) -> Result<StartModel> {
    match t.value("start") {
        None => Ok(StartModel::At(Time::ZERO)),
        Some(Value::Table(_)) => {
            let mut u = t.table("start")?.expect("present");
            let shape = "expected start = { uniform = [\"0s\", \"1s\"] }";
            let (lo, hi) = u.interval("uniform", shape)?.ok_or_else(|| u.missing("uniform", shape))?;
            u.finish()?;
            Ok(StartModel::Uniform(lo, hi))
        }
        Some(_) => Ok(StartModel::At(t.time("start")?.expect("present"))),
    }
}

/// A transfer size: `None` for `"inf"` (bulk) or no `size`.
pub(crate) fn read_size(t: &mut Reader) -> Result<Option<SizeValue>> {
    match t.value("size") {
        None => Ok(None),
        Some(Value::String(s)) if s == "inf" => Ok(None),
        Some(_) => match t.size("size")? {
            Some(s) if s.bytes(1) > 0.0 => Ok(Some(s)),
            _ => Err(t.error("size", "expected \"inf\" or a positive size such as \"70KB\"")),
        },
    }
}

pub(crate) fn read_flows(mut t: Reader, routing: Routing) -> Result<Vec<FlowModel>> {
    let name = t.required_string("name")?;
    let copies = count(&mut t)?;
    let cc = read_cc(&mut t)?;
    let start = read_start(&mut t)?;
    let stagger = t.time("stagger")?.unwrap_or(Time::ZERO);
    let stop = t.time("stop")?;
    let size = read_size(&mut t)?;
    let receive_buffer = match t.value("receive_buffer") {
        None => None,
        Some(Value::String(s)) if s == "inf" => None,
        Some(_) => t.size("receive_buffer")?,
    };
    let tcp = match t.table("tcp")? {
        Some(table) => read_tcp(table)?,
        None => TcpModel::default(),
    };
    let key = t.path().to_string();
    let mut flows = Vec::new();
    let n = copies.unwrap_or(1);
    for i in 0..n {
        let flow_name = match copies {
            Some(_) if !name.contains("{i}") => format!("{name}.{i}"),
            _ => expand(name, i),
        };
        // Paths are read per copy, since `{i}` in a link name expands to the copy's index.
        let mut copy = Reader::new(t.file(), key.clone(), t.table_ref());
        let paths = routing.paths(&mut copy, i, &flow_name)?;
        let reverse_paths = read_paths(&mut copy, "reverse_paths", i)?;
        if let Some(rev) = &reverse_paths
            && rev.len() != paths.len()
        {
            return Err(t.error("reverse_paths", format!("one reverse path per path: {} paths, {} reverse paths", paths.len(), rev.len())));
        }
        let offset = stagger.saturating_mul(i);
        let start = match start {
            StartModel::At(t) => StartModel::At(t + offset),
            StartModel::Uniform(lo, hi) => StartModel::Uniform(lo + offset, hi + offset),
        };
        flows.push(FlowModel {
            name: flow_name,
            key: key.clone(),
            cc: cc.clone(),
            paths,
            reverse_paths,
            start,
            stop,
            size,
            receive_buffer,
            tcp: tcp.clone(),
        });
    }
    Routing::mark_keys(&mut t);
    t.value("reverse_paths");
    t.finish()?;
    Ok(flows)
}
