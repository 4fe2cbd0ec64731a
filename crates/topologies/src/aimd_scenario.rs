//! Scenarios of the abstract AIMD model (seed 004 §II): an `[aimd]` table with groups of
//! identical connections instead of links and flows.
//!
//! ```toml
//! [aimd]
//! capacity = 1.0                  # rates are in the same unit (1: normalized results)
//! policy = "rate-independent"     # rate-proportional (default), largest-rate, beatdown, all
//! events = 200000                 # congestion events measured
//! warmup_events = 1000
//!
//! [[aimd.group]]
//! name = "first"
//! count = 2                       # identical connections (default 1)
//! eta = 1.0                       # additive increase per unit of time (default 1)
//! beta = 0.5                      # multiplicative decrease factor (default 1/2)
//! weight = 0.125                  # selection weight under rate-independent (default 1)
//! ```

use aimd::{Connection, Model, Policy};
use toml::{Table, Value};

use crate::error::{Result, ScenarioError};
use crate::model::Meta;
use crate::read::read_meta;
use crate::read::reader::{Reader, type_name};

/// A group of identical connections, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group's name, which labels its connections in the results.
    pub name: String,
    /// How many identical connections it stands for (default 1).
    pub count: usize,
}

/// A runnable AIMD-model scenario.
#[derive(Clone, Debug)]
pub struct AimdScenario {
    /// The file it came from.
    pub file: String,
    /// The effective text (with overrides), for the results' metadata.
    pub text: String,
    /// `[meta]`: what the scenario is and which experiment it reproduces.
    pub meta: Meta,
    /// The run seed (`sim.seed`, the only `[sim]` key such a scenario has).
    pub seed: u64,
    /// The model, connections in group order.
    pub model: Model,
    /// The groups in file order; their counts partition `model.connections`
    /// ([`AimdScenario::group_of`]).
    pub groups: Vec<Group>,
}

impl AimdScenario {
    /// The group of connection `i`.
    pub fn group_of(&self, i: usize) -> &str {
        let mut first = 0;
        for g in &self.groups {
            if i < first + g.count {
                return &g.name;
            }
            first += g.count;
        }
        ""
    }
}

/// The range of `aimd.capacity`, in any unit: its square and its rates' squares stay finite.
const MIN_CAPACITY: f64 = 1e-100;
const MAX_CAPACITY: f64 = 1e100;
/// The most congestion events a run may measure, or run first: about 40 s of the model with four connections
/// on this project's machine (`equipoise run scenarios/aimd-theorem1.toml --set
/// aimd.events=20000000` took 0.79 s).
const MAX_EVENTS: u64 = 1_000_000_000;

fn positive(t: &Reader, key: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 { Ok(x) } else { Err(t.error(key, format!("expected a number above 0, got {x}"))) }
}

fn read_group(mut t: Reader, groups: &mut Vec<Group>, connections: &mut Vec<Connection>) -> Result<()> {
    let name = t.required_string("name")?.to_string();
    if groups.iter().any(|g| g.name == name) {
        return Err(t.error("name", format!("\"{name}\" names two groups")));
    }
    let count = t.unsigned("count")?.unwrap_or(1);
    if !(1..=100_000).contains(&count) {
        return Err(t.error("count", format!("expected 1 to 100000 connections, got {count}")));
    }
    let eta = t.number("eta")?.unwrap_or(1.0);
    let eta = positive(&t, "eta", eta)?;
    let beta = t.number("beta")?.unwrap_or(0.5);
    if !(beta > 0.0 && beta < 1.0) {
        return Err(t.error("beta", format!("expected a number strictly between 0 and 1, got {beta}")));
    }
    let weight = t.number("weight")?.unwrap_or(1.0);
    if !(weight.is_finite() && weight >= 0.0) {
        return Err(t.error("weight", format!("expected a number ≥ 0, got {weight}")));
    }
    t.finish()?;
    connections.extend(std::iter::repeat_n(Connection { eta, beta, weight }, count as usize));
    groups.push(Group { name, count: count as usize });
    Ok(())
}

/// Reads an AIMD scenario (a root with an `aimd` table) from `file`.
pub fn read_aimd(file: &str, root: &Table) -> Result<AimdScenario> {
    let mut top = Reader::new(file, "", root);
    for section in ["link", "flow", "tcp"] {
        if root.contains_key(section) {
            return Err(top.error(section, "an [aimd] scenario describes the abstract model only: no links, flows or [tcp]"));
        }
    }
    let meta = match top.table("meta")? {
        Some(t) => read_meta(t)?,
        None => Meta::default(),
    };
    let seed = match top.table("sim")? {
        Some(mut t) => {
            let seed = t.unsigned("seed")?.unwrap_or(1);
            t.finish()?;
            seed
        }
        None => 1,
    };
    let mut a = top.table("aimd")?.expect("an AIMD scenario has [aimd]");
    let capacity = a.number("capacity")?.unwrap_or(1.0);
    let capacity = positive(&a, "capacity", capacity)?;
    // Rates enter as squares (E[X²]/c²): the range keeps them finite.
    if !(MIN_CAPACITY..=MAX_CAPACITY).contains(&capacity) {
        return Err(a.error("capacity", format!("{capacity:e}: expected a number from {MIN_CAPACITY:e} to {MAX_CAPACITY:e}")));
    }
    let policy = a.choice("policy", &Policy::NAMES)?.unwrap_or(Policy::RateProportional);
    let events = a.unsigned("events")?.unwrap_or(100_000);
    if !(1..=MAX_EVENTS).contains(&events) {
        return Err(a.error("events", format!("{events}: expected 1 to {MAX_EVENTS}")));
    }
    let warmup_events = a.unsigned("warmup_events")?.unwrap_or(1_000);
    if warmup_events > MAX_EVENTS {
        return Err(a.error("warmup_events", format!("{warmup_events}: expected 0 to {MAX_EVENTS}")));
    }
    let (mut groups, mut connections) = (Vec::new(), Vec::new());
    match a.value("group") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let Value::Table(t) = item else {
                    return Err(a.error(&format!("group[{i}]"), format!("expected a table, got {}", type_name(item))));
                };
                let path = match t.get("name").and_then(Value::as_str) {
                    Some(name) => a.key_path(&format!("group.{name}")),
                    None => a.key_path(&format!("group[{i}]")),
                };
                read_group(Reader::new(file, path, t), &mut groups, &mut connections)?;
            }
        }
        Some(v) if !v.is_array() => return Err(a.error("group", format!("expected [[aimd.group]] tables, got {}", type_name(v)))),
        _ => return Err(a.missing("group", "missing; add at least one [[aimd.group]] with a name and a count")),
    }
    a.finish()?;
    top.value("quick");
    top.finish()?;
    let model = Model { capacity, connections, policy, events, warmup_events, seed };
    model.validate().map_err(|e| ScenarioError::new(file, "aimd", e.0))?;
    let text = toml::to_string(root).map_err(|e| ScenarioError::new(file, "", e.to_string()))?;
    Ok(AimdScenario { file: file.to_string(), text, meta, seed, model, groups })
}
