//! Stage 1, read: TOML text to the [`Declared`] scenario, every key typed and checked, nothing
//! generated and nothing drawn at random.
//!
//! What a file declares is kept as declared: a `[topology]` as its kind and parameters, a
//! counted `[[flow]]` as one template, a route by its name, a `[[traffic]]` generator by its
//! law. [`crate::expand`] turns that into plain links and flows.

mod capture;
mod flows;
mod fluid;
mod links;
mod metrics;
pub mod reader;
mod settings;
mod topology;
mod traffic;

use toml::{Table, Value};

use crate::error::{Result, ScenarioError};
use crate::model::{CaptureModel, FluidModel, LinkModel, Meta, MetricsModel, SimModel, TcpModel};
use crate::model::{MAX_CAPTURES, MAX_FLOWS, MAX_LINKS};
use reader::{Reader, type_name};

pub use flows::{FlowDecl, PathChoice, PathDecl, PathSource, StartModel, Subflows};
pub(crate) use links::expand_name;
pub use links::{LinkSettings, QUEUE_KINDS};
pub(crate) use settings::read_meta;
pub use topology::{LinkDefaults, LinkOverride, TopologyKind, TopologySpec};
pub use traffic::{PoissonTarget, Senders, SizeDistribution, TrafficDecl, TrafficKind};

/// Top-level tables of a scenario.
pub const SECTIONS: &[&str] =
    &["meta", "sim", "tcp", "topology", "link", "flow", "traffic", "metrics", "fluid", "capture", "quick", "aimd"];

/// A scenario as its file declares it: read and typed, not yet expanded.
#[derive(Clone, Debug)]
pub struct Declared {
    /// The file it came from.
    pub file: String,
    /// The effective scenario as TOML (the file with every `--set` applied).
    pub text: String,
    /// `[meta]`.
    pub meta: Meta,
    /// `[sim]`.
    pub sim: SimModel,
    /// `[tcp]`: defaults for every flow.
    pub tcp: TcpModel,
    /// `[topology]`: a generator and its parameters.
    pub topology: Option<TopologySpec>,
    /// `[[link]]`, counted links expanded (their copies differ only by name).
    pub links: Vec<LinkModel>,
    /// `[[flow]]`, one template per table.
    pub flows: Vec<FlowDecl>,
    /// `[[traffic]]` generators.
    pub traffic: Vec<TrafficDecl>,
    /// `[metrics]`.
    pub metrics: MetricsModel,
    /// `[fluid]`.
    pub fluid: FluidModel,
    /// `[[capture]]`.
    pub captures: Vec<CaptureModel>,
}

/// Parses scenario `text` read from `file` as TOML; a syntax error keeps the parser's line
/// and column.
pub fn parse_text(file: &str, text: &str) -> Result<Table> {
    text.parse::<Table>().map_err(|e| ScenarioError::new(file, "", format!("not valid TOML: {}", e.to_string().trim_end())))
}

/// Reads the declared scenario out of a parsed `root` from `file`.
pub fn read_scenario(file: &str, root: &Table) -> Result<Declared> {
    let mut top = Reader::new(file, "", root);
    let meta = match top.table("meta")? {
        Some(t) => read_meta(t)?,
        None => Meta::default(),
    };
    let sim = match top.table("sim")? {
        Some(t) => settings::read_sim(t)?,
        None => return Err(top.missing("sim", "missing; every scenario needs a [sim] table with at least `duration`")),
    };
    let tcp = match top.table("tcp")? {
        Some(t) => settings::read_tcp(t)?,
        None => TcpModel::default(),
    };
    let topology = match top.table("topology")? {
        Some(t) => Some(topology::read_topology(t)?),
        None => None,
    };
    let links = read_array(&mut top, "link", MAX_LINKS, links::read_links, <[LinkModel]>::len)?;
    let flows = read_array(&mut top, "flow", MAX_FLOWS, |t| flows::read_flow(t).map(|f| vec![f]), copies)?;
    let traffic =
        read_array(&mut top, "traffic", usize::MAX, |t| traffic::read_traffic(t, sim.mss).map(|g| vec![g]), <[TrafficDecl]>::len)?;
    let metrics = match top.table("metrics")? {
        Some(t) => metrics::read_metrics(t)?,
        None => MetricsModel::default(),
    };
    let fluid = match top.table("fluid")? {
        Some(t) => fluid::read_fluid(t)?,
        None => FluidModel::default(),
    };
    let captures = read_array(&mut top, "capture", MAX_CAPTURES, capture::read_capture, <[CaptureModel]>::len)?;
    // `[quick]` is read by `quick_sets` before the scenario is.
    top.value("quick");
    top.finish()?;
    if links.is_empty() && topology.is_none() {
        return Err(ScenarioError::new(file, "link", "no links; add at least one [[link]] table or a [topology]"));
    }
    let text = toml::to_string(root).map_err(|e| ScenarioError::new(file, "", e.to_string()))?;
    Ok(Declared { file: file.to_string(), text, meta, sim, tcp, topology, links, flows, traffic, metrics, fluid, captures })
}

/// How many flows the templates `f` stand for.
fn copies(f: &[FlowDecl]) -> usize {
    f.iter().map(|f| f.copies.unwrap_or(1) as usize).sum()
}

/// Reads the array of tables `key`, each with `read`, concatenated; refuses more than `limit`
/// items in all (as `size` counts them) before reading the table that would pass it, so
/// counts never allocate beyond it.
fn read_array<T>(
    top: &mut Reader,
    key: &'static str,
    limit: usize,
    mut read: impl FnMut(Reader) -> Result<Vec<T>>,
    size: impl Fn(&[T]) -> usize,
) -> Result<Vec<T>> {
    let file = top.file();
    let Some(v) = top.value(key) else { return Ok(Vec::new()) };
    let Value::Array(items) = v else {
        return Err(top.error(key, format!("expected an array of tables ([[{key}]]), got {}", type_name(v))));
    };
    let (mut out, mut total) = (Vec::new(), 0);
    for (i, item) in items.iter().enumerate() {
        let Value::Table(t) = item else {
            return Err(ScenarioError::new(file, format!("{key}[{i}]"), format!("expected a table, got {}", type_name(item))));
        };
        let path = table_path(key, i, t);
        let items = read(Reader::new(file, path.clone(), t))?;
        total += size(&items);
        if total > limit {
            return Err(ScenarioError::new(
                file,
                path,
                format!("the [[{key}]] tables make more than {limit} in all; at most {limit} in one run"),
            ));
        }
        out.extend(items);
    }
    Ok(out)
}

/// The key path of table `i` of the array `key`: by its `name` where it has one, the path
/// `--set` uses.
fn table_path(key: &str, i: usize, t: &Table) -> String {
    match t.get("name").and_then(Value::as_str) {
        Some(name) => format!("{key}.{name}"),
        None => format!("{key}[{i}]"),
    }
}
