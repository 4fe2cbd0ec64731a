//! `[[flow]]` tables: window law, start and stop, size, and where the paths come from (written
//! out, a generator's route, or the paths between two hosts), as declared.

use mptcp_cc::{Algorithm, ParamValue};
use sim_core::Time;
use toml::Value;

use super::links::count;
use super::reader::{Reader, type_name};
use super::settings::read_tcp;
use crate::error::{Result, ScenarioError, suggestion};
use crate::model::TcpModel;
use crate::units::SizeValue;

/// When a flow starts, as a file declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartModel {
    /// At this fixed time (the default: time zero).
    At(Time),
    /// Uniformly at random in this interval (from the flow's own random stream).
    Uniform(Time, Time),
}

/// One `[[flow]]` table: a template for `copies` flows (one if not counted).
#[derive(Clone, Debug)]
pub struct FlowDecl {
    /// The name as written; `{i}` stands for the copy's index.
    pub name: String,
    /// Key path for messages (`flow.<name>`).
    pub key: String,
    /// `count`, if given.
    pub copies: Option<u64>,
    /// The congestion-avoidance window law.
    pub cc: Algorithm,
    /// When the first copy starts.
    pub start: StartModel,
    /// How much later each copy starts than the one before.
    pub stagger: Time,
    /// When every copy stops offering new data.
    pub stop: Option<Time>,
    /// Transfer size (`None`: bulk).
    pub size: Option<SizeValue>,
    /// Multipath receive buffer (`None`: unlimited).
    pub receive_buffer: Option<SizeValue>,
    /// The flow's own `tcp` table.
    pub tcp: TcpModel,
    /// Where its paths come from.
    pub paths: PathDecl,
    /// ACK paths as written (`{i}` in link names), if not the default.
    pub reverse_paths: Option<Vec<Vec<String>>>,
}

/// How a table gives its flows' paths, and how many subflows to take of them.
#[derive(Clone, Debug, PartialEq)]
pub struct PathDecl {
    /// Key path of the table, for messages about its `route`, `from` and `to`.
    pub key: String,
    /// The paths' source.
    pub source: PathSource,
    /// `subflows`: take this many of the paths at random (`None`: all of them).
    pub subflows: Option<Subflows>,
}

/// How many of its equal-cost paths a flow takes, and how they are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subflows {
    /// `subflows`: how many.
    pub count: usize,
    /// `path_choice`: how.
    pub choice: PathChoice,
}

/// How a flow's subflows draw their paths among the equal-cost ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathChoice {
    /// Distinct paths while there are enough, then paths drawn again.
    #[default]
    Distinct,
    /// A draw of its own for each subflow, so that two may share a path, and no more subflows
    /// than paths (htsim's datacenter mains).
    Independent,
}

/// Reads `subflows` (`default` when absent) and `path_choice`.
pub(crate) fn read_subflows(t: &mut Reader, default: Option<usize>) -> Result<Option<Subflows>> {
    let count = t.bounded("subflows", 1..=64, "subflows")?.map(|n| n as usize).or(default);
    let choice = t.choice("path_choice", &[("distinct", PathChoice::Distinct), ("independent", PathChoice::Independent)])?;
    match (count, choice) {
        (Some(count), choice) => Ok(Some(Subflows { count, choice: choice.unwrap_or_default() })),
        (None, Some(_)) => Err(t.error("path_choice", "draws the paths of `subflows`: set subflows too, or remove path_choice")),
        (None, None) => Ok(None),
    }
}

/// Where a flow's paths come from.
#[derive(Clone, Debug, PartialEq)]
pub enum PathSource {
    /// `paths`: lists of link names (`{i}` stands for the copy's index).
    Written(Vec<Vec<String>>),
    /// `route`: a route of the `[topology]` generator, by name (`{i}` as above).
    Route(String),
    /// `from` and `to`: every equal-cost path between two hosts of the `[topology]`.
    Hosts {
        /// The sending host's name (`h3`).
        from: String,
        /// The receiving host's name.
        to: String,
    },
}

impl PathDecl {
    /// Whether every copy of the table gets the same paths: no `{i}` in them and no random
    /// choice among them.
    pub fn same_for_every_copy(&self) -> bool {
        let indexed = match &self.source {
            PathSource::Written(paths) => paths.iter().flatten().any(|l| l.contains("{i}")),
            PathSource::Route(route) => route.contains("{i}"),
            PathSource::Hosts { from, to } => from.contains("{i}") || to.contains("{i}"),
        };
        !indexed && self.subflows.is_none()
    }

    /// Reads `paths`, `route`, or `from` and `to`, and `subflows`.
    pub(crate) fn read(t: &mut Reader) -> Result<PathDecl> {
        let subflows = read_subflows(t, None)?;
        let written = read_paths(t, "paths")?;
        let route = t.string("route")?;
        let hosts = (t.string("from")?, t.string("to")?);
        let given = [written.is_some(), route.is_some(), hosts.0.is_some() || hosts.1.is_some()];
        if given.iter().filter(|&&g| g).count() > 1 {
            return Err(t.error("paths", "give the paths one way: `paths`, `route`, or `from` and `to`"));
        }
        let source = match (written, route, hosts) {
            (Some(paths), _, _) => PathSource::Written(paths),
            (_, Some(route), _) => PathSource::Route(route.to_string()),
            (_, _, (Some(from), Some(to))) => PathSource::Hosts { from: from.to_string(), to: to.to_string() },
            (_, _, (Some(_), None)) => return Err(t.missing("to", "missing; a flow between hosts needs both `from` and `to`")),
            (_, _, (None, Some(_))) => return Err(t.missing("from", "missing; a flow between hosts needs both `from` and `to`")),
            _ => {
                return Err(t.missing("paths", "missing; expected `paths = [[\"l1\"]]`, or a `route` or `from` and `to` of the [topology]"));
            }
        };
        Ok(PathDecl { key: t.path().to_string(), source, subflows })
    }
}

/// Reads a list of paths, each a list of link names.
pub(crate) fn read_paths(t: &mut Reader, key: &'static str) -> Result<Option<Vec<Vec<String>>>> {
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
            names.push(name.clone());
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

/// The window law of `cc` (a name, or a table with `algorithm` and the law's parameters),
/// resolved here so that every engine gets a typed law and every mistake is named at its key
/// when the file is read.
pub(crate) fn read_cc(t: &mut Reader) -> Result<Algorithm> {
    let (name, params) = match t.value("cc") {
        None => return Ok(Algorithm::Reno),
        Some(Value::String(name)) => (name.as_str(), Vec::new()),
        Some(Value::Table(table)) => {
            let name = match table.get("algorithm") {
                Some(Value::String(name)) => name.as_str(),
                Some(v) => return Err(t.error("cc.algorithm", format!("expected an algorithm name, got {}", type_name(v)))),
                None => return Err(t.error("cc.algorithm", "missing; cc = { algorithm = \"…\", … }")),
            };
            let mut given = Vec::with_capacity(table.len() - 1);
            for (key, value) in table.iter().filter(|(k, _)| *k != "algorithm") {
                given.push((key.clone(), param_value(t, key, value)?));
            }
            (name, given)
        }
        Some(v) => {
            return Err(t.error("cc", format!("expected an algorithm name or a table {{ algorithm = \"…\", … }}, got {}", type_name(v))));
        }
    };
    Algorithm::from_params(name, &params).map_err(|e| {
        if e.key.is_empty() {
            let names: Vec<&str> = Algorithm::names().collect();
            t.error("cc", format!("{}{} (valid: {})", e.message, suggestion(name, names.iter().copied()), names.join(", ")))
        } else {
            t.error(&format!("cc.{}", e.key), e.message)
        }
    })
}

/// A parameter of `cc` as the law reads it: a time with a unit becomes seconds; other words
/// (`"adaptive"`, `"inf"`) stay words.
fn param_value(t: &Reader, key: &str, value: &Value) -> Result<ParamValue> {
    Ok(match value {
        Value::Float(x) => ParamValue::Number(*x),
        Value::Integer(i) => ParamValue::Number(*i as f64),
        Value::Boolean(b) => ParamValue::Bool(*b),
        Value::String(text) => match crate::units::parse_time(text) {
            Ok(time) => ParamValue::Number(time.as_secs_f64()),
            Err(_) => ParamValue::Text(text.clone()),
        },
        other => return Err(t.error(&format!("cc.{key}"), format!("expected a number, a word or a boolean, got {}", type_name(other)))),
    })
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

pub(super) fn read_flow(mut t: Reader) -> Result<FlowDecl> {
    let name = t.required_string("name")?.to_string();
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
    let paths = PathDecl::read(&mut t)?;
    let reverse_paths = read_paths(&mut t, "reverse_paths")?;
    let key = t.path().to_string();
    t.finish()?;
    Ok(FlowDecl { name, key, copies, cc, start, stagger, stop, size, receive_buffer, tcp, paths, reverse_paths })
}
