//! A sweep's `[paper]` table: the numbers a paper reports and the findings it states, tied to the
//! sweep's points and the dataset's metrics, so that `equipoise report` computes the comparison
//! and a verdict for every finding instead of someone typing them.
//!
//! ```toml
//! [paper]
//! source = "Table III"
//! platforms = ["ns2"]                       # also check the findings in ns-2.35 (report --platforms),
//!                                           # or "kernel": on this machine's kernel (the testbed)
//! kernel = { replicates = 2, set = { "sim.duration" = "60s" } }  # the kernel's runs take real time
//! variant = "l2 at 4 Mb/s, where the paper's 20 Mb/s does not bind"  # not the paper's setup:
//!                                           # shown apart, out of the page's totals
//!
//! [[paper.value]]
//! label = "EWTCP, single-path users"
//! point = { "flow.mp.cc" = "ewtcp" }        # the sweep point, by its swept values
//! metric = "goodput_mean"                   # a metric of the metrics table, or TABLE.COLUMN
//! group = "sp"                              # its group (or the TABLE's entity)
//! value = 0.951e6                           # in the metric's unit
//! ci = 0.005e6                              # the paper's 95 % margin, if it gives one
//! statistic = "mean"                        # or "max": the paper reports its largest run
//!
//! [[paper.claim]]
//! text = "single-path users get more from EWTCP to Coupled"
//! metric = "goodput_mean"                   # defaults for every side
//! group = "sp"
//! increasing = [{ point = { "flow.mp.cc" = "ewtcp" } }, { point = { "flow.mp.cc" = "coupled" } }]
//! # or decreasing / at_least / at_most = [sides] (bounds take tolerance = 0.05 and factor = 5:
//! # A ≥ 5·B·(1 − 0.05)), or same = [sides] with tolerance = 0.05 (each within 5 % of the
//! # next: one finding), or along = "KEY" with trend = "increasing",
//! # or ratio = [A, B] with band = [4, 6]: "A is 4 to 6 times B" (ratio = [[A, B], [C, D]]
//! # with largest = true: the largest of several ratios, "up to", "in the worst case"; or
//! # ratio = [A] with denominator = the paper's number: "within 10 % of the target")
//! # testable_if = { metric = "links.utilization", group = "shared", at_least = 0.9 }:
//! # at every point of the claim, or the run cannot test it ("not tested here")
//! # model_check = true: an exact check of a model, counted apart from the paper's findings
//!
//! [[paper.unknown]]                         # a parameter the paper does not give
//! key = "tcp.jitter"
//! values = ["0ms", "1ms", "5ms"]            # its plausible range
//! why = "the paper does not say how its senders were desynchronized"
//! ```

use toml::{Table, Value};

use crate::error::{Result, ScenarioError, suggestion};
use crate::metrics::METRICS;
use crate::read::reader::{Reader, type_name};
use crate::sweep::Point;

/// Tables other than `metrics` a quantity may name as `TABLE.COLUMN` (those of the schema with
/// an entity or one row per run), with the column naming their entity (the quantity's
/// `group`); `model` has one row per run and no entity.
pub fn quantity_tables() -> impl Iterator<Item = (&'static crate::schema::Table, Option<&'static str>)> {
    use crate::schema::{AIMD_TABLES, Entity, RUN_TABLES};
    RUN_TABLES.into_iter().chain(AIMD_TABLES).filter_map(|t| match t.entity {
        Entity::Column(c) => Some((t, Some(c))),
        Entity::Run => Some((t, None)),
        Entity::Metrics | Entity::Samples => None,
    })
}

/// What the paper reports and states, for one sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Paper {
    /// Where in the paper (a table, a figure).
    pub source: String,
    /// Numbers to put beside ours.
    pub values: Vec<PaperValue>,
    /// Findings to check.
    pub claims: Vec<Claim>,
    /// Parameters the paper leaves unsaid, each with the values it plausibly took: the
    /// findings are checked again at each (`equipoise report --unknowns`).
    pub unknowns: Vec<Unknown>,
    /// The paper's own platforms that this tool can run the sweep on: the findings are
    /// checked there too (`equipoise report --platforms`).
    pub platforms: Vec<Platform>,
    /// How the runs on the kernel differ from the sweep's: they take real time.
    pub kernel: KernelRuns,
    /// How the sweep departs from the paper's setup, if it does (`variant = "…"`): its
    /// findings are then not the paper's and stay out of the reproduction's totals.
    pub variant: Option<String>,
}

/// A platform other than the simulator that a sweep's runs can be made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// ns-2.35, from the script `equipoise export ns2` writes.
    Ns2,
    /// This machine's Linux kernel, through `equipoise testbed`.
    Kernel,
}

/// The sweep as it runs on the kernel (`[paper] kernel = { … }`): its runs take their duration
/// in wall-clock time, so they may be fewer and shorter, and settings the testbed refuses
/// (a send jitter) may be set aside. The report states both beside the kernel's verdicts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelRuns {
    /// Replicates per point, at most the sweep's (the sweep's own when absent).
    pub replicates: Option<u32>,
    /// Settings after every point's values, as `--set` takes them (`"sim.duration" = "60s"`).
    pub sets: Vec<(String, Value)>,
}

/// A scenario key the paper does not give, and the range it plausibly spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Unknown {
    /// The scenario key (`tcp.jitter`, `topology.buffer` …), as `--set` names it.
    pub key: String,
    /// Its plausible values, in order, as `--set` writes them.
    pub values: Vec<Value>,
    /// Why these values: what the paper says and leaves open.
    pub why: String,
    /// Where it was written (`paper.unknown[0]`), for errors.
    pub path: String,
}

/// One measured quantity of the dataset: a metric of one group at one point, whose replicates
/// give a mean and a confidence interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Index of the sweep point.
    pub point: usize,
    /// A `metrics` metric (`goodput_mean`) or `TABLE.COLUMN` (`links.utilization`).
    pub metric: String,
    /// The metric's group, or the table's entity; empty for the `model` table.
    pub group: String,
    /// Where it was written, for errors found once the dataset is read.
    pub key: String,
}

/// A number the paper reports.
#[derive(Clone, Debug, PartialEq)]
pub struct PaperValue {
    /// Row name in the report.
    pub label: String,
    /// Our counterpart.
    pub quantity: Quantity,
    /// The paper's value, in the metric's unit.
    pub value: f64,
    /// The paper's 95 % margin of error, where it gives one.
    pub ci: Option<f64>,
    /// Which statistic of our replicates the paper's number is: their mean, or (seed 000
    /// Table V: "the longest convergence time found") their largest.
    pub statistic: Statistic,
}

/// How our replicates are summarized beside a paper's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// Mean and 95 % confidence interval.
    Mean,
    /// The largest replicate.
    Max,
}

/// How the sides of a claim must compare, left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Each side strictly below the next.
    Increasing,
    /// Each side strictly above the next.
    Decreasing,
    /// Each side at least the next (less the tolerance).
    AtLeast,
    /// Each side at most the next (plus the tolerance).
    AtMost,
    /// Each side the next's, within the tolerance either way: one finding, not two bounds.
    Same,
    /// The first side over the second within the claim's band.
    Ratio,
}

impl Relation {
    const NAMES: [(&'static str, Relation); 6] = [
        ("increasing", Relation::Increasing),
        ("decreasing", Relation::Decreasing),
        ("at_least", Relation::AtLeast),
        ("at_most", Relation::AtMost),
        ("same", Relation::Same),
        ("ratio", Relation::Ratio),
    ];

    /// Whether equality fails the relation (orderings) or passes it (bounds).
    pub fn is_strict(self) -> bool {
        matches!(self, Relation::Increasing | Relation::Decreasing)
    }

    /// Whether `a` then `b` is in this relation's direction, allowing `tolerance` (a fraction of
    /// `b`) for the bounds. A ratio is judged on its band, not here: always true.
    pub fn holds(self, a: f64, b: f64, tolerance: f64) -> bool {
        let slack = tolerance * b.abs();
        match self {
            Relation::Increasing => a < b,
            Relation::Decreasing => a > b,
            Relation::AtLeast => a >= b - slack,
            Relation::AtMost => a <= b + slack,
            Relation::Same => (a - b).abs() <= slack,
            Relation::Ratio => true,
        }
    }

    /// What a side's bound is, as a multiple of the next side, with the tolerance: 1 less
    /// (at least) or plus (at most) `tolerance`; for `same`, less when the side is `below` the
    /// next, else plus; 1 for the others.
    pub fn scale(self, tolerance: f64, below: bool) -> f64 {
        match self {
            Relation::AtLeast => 1.0 - tolerance,
            Relation::AtMost => 1.0 + tolerance,
            Relation::Same if below => 1.0 - tolerance,
            Relation::Same => 1.0 + tolerance,
            _ => 1.0,
        }
    }

    /// The bound side `b` (a mean and its 95 % half-width) sets for a side of mean `a` before
    /// it, with the tolerance ([`Relation::scale`]: the nearer bound for `same`).
    pub fn tolerated(self, a: f64, b: (f64, f64), tolerance: f64) -> (f64, f64) {
        let scale = self.scale(tolerance, a < b.0);
        (b.0 - (1.0 - scale) * b.0.abs(), b.1 * scale)
    }

    /// The relation's sign between two sides, for the report (`<`, `≥`).
    pub fn symbol(self) -> &'static str {
        match self {
            Relation::Increasing => "<",
            Relation::Decreasing => ">",
            Relation::AtLeast => "≥",
            Relation::AtMost => "≤",
            Relation::Same => "≈",
            Relation::Ratio => "/",
        }
    }
}

/// A finding the paper states: every chain of quantities must satisfy the relation.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The finding, in the paper's words or close to them.
    pub text: String,
    /// How consecutive quantities compare.
    pub relation: Relation,
    /// One chain for a listed claim; for a trend, one per combination of the other swept keys.
    pub chains: Vec<Vec<Quantity>>,
    /// The relation must hold in every replicate, not only in the means ("for each seed").
    pub each_replicate: bool,
    /// Fraction of the right side a bound may miss by and still hold.
    pub tolerance: f64,
    /// Multiplies each right side of a bound ("A at least five times B": `factor = 5`).
    pub factor: f64,
    /// For a ratio: the band its value must lie in ("4 to 6 times": `(4, 6)`).
    pub band: Option<(f64, f64)>,
    /// What the run must show at every point of the claim for it to test the claim at all.
    pub testable_if: Option<Condition>,
    /// An exact check of a model (the AIMD theorems), counted apart from the paper's findings.
    pub model_check: bool,
    /// For a ratio of several pairs: the paper's band is the largest of them ("up to", "in the
    /// worst case"), not each.
    pub largest: bool,
    /// For a ratio of one side: the number it is divided by (the paper's target, in the
    /// metric's unit).
    pub denominator: Option<f64>,
}

/// A condition on a measured quantity at every point of a claim: its mean at least `at_least`.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// A `metrics` metric or `TABLE.COLUMN`, as a quantity names it.
    pub metric: String,
    /// Its group, or the table's entity (a link's name for `links.utilization`).
    pub group: String,
    /// The least mean that makes the claim testable.
    pub at_least: f64,
    /// Where it was written, for errors.
    pub key: String,
}

/// Defaults a side inherits from its claim.
#[derive(Clone, Default)]
struct Defaults<'a> {
    point: Option<&'a Value>,
    metric: Option<&'a str>,
    group: Option<&'a str>,
}

/// Reads `[paper]` of sweep `file`, resolving every point against the sweep's.
pub fn read_paper(file: &str, table: &Table, keys: &[String], points: &[Point]) -> Result<Paper> {
    let mut t = Reader::new(file, "paper", table);
    let source = t.string("source")?.unwrap_or_default().to_string();
    let variant = t.string("variant")?.map(str::to_string);
    if variant.as_deref().is_some_and(|v| v.trim().is_empty()) {
        return Err(t.error("variant", "empty; expected how the sweep departs from the paper's setup"));
    }
    let mut values = Vec::new();
    for (i, item) in tables(&mut t, "value")?.into_iter().enumerate() {
        let mut v = Reader::new(file, format!("paper.value[{i}]"), item);
        let label = v.required_string("label")?.to_string();
        let value = v.number("value")?.ok_or_else(|| v.missing("value", "missing; expected the paper's number, in the metric's unit"))?;
        if !(value.is_finite() && value >= 0.0) {
            return Err(v.error("value", format!("{value}: expected the paper's number, finite and ≥ 0 (no metric or column is negative)")));
        }
        let ci = v.number("ci")?;
        if ci.is_some_and(|c| !(c.is_finite() && c >= 0.0)) {
            return Err(v.error("ci", "expected the paper's margin of error, a number ≥ 0"));
        }
        let statistic = v.choice("statistic", &[("mean", Statistic::Mean), ("max", Statistic::Max)])?.unwrap_or(Statistic::Mean);
        let defaults = Defaults { point: v.value("point"), metric: v.string("metric")?, group: v.string("group")? };
        let quantity = quantity(file, v.path(), &Table::new(), &defaults, keys, points)?;
        v.finish()?;
        values.push(PaperValue { label, quantity, value, ci, statistic });
    }
    let mut claims = Vec::new();
    for (i, item) in tables(&mut t, "claim")?.into_iter().enumerate() {
        claims.push(read_claim(file, &format!("paper.claim[{i}]"), item, keys, points)?);
    }
    let mut unknowns = Vec::new();
    for (i, item) in tables(&mut t, "unknown")?.into_iter().enumerate() {
        let path = format!("paper.unknown[{i}]");
        let mut u = Reader::new(file, &path, item);
        let key = u.required_string("key")?.to_string();
        if keys.contains(&key) {
            return Err(u.error("key", format!("\"{key}\" is swept by this sweep's points: it is not unknown here")));
        }
        let values = match u.value("values") {
            Some(Value::Array(v)) if v.len() >= 2 => v.clone(),
            Some(_) => return Err(u.error("values", "expected a list of at least two values, as --set writes them")),
            None => return Err(u.missing("values", "missing; expected the plausible values, a list")),
        };
        let why = u.required_string("why")?.to_string();
        u.finish()?;
        unknowns.push(Unknown { key, values, why, path });
    }
    let mut platforms = Vec::new();
    match t.value("platforms") {
        None => {}
        Some(Value::Array(list)) => {
            for (i, p) in list.iter().enumerate() {
                let platform = match p.as_str() {
                    Some("ns2") => Platform::Ns2,
                    Some("kernel") => Platform::Kernel,
                    _ => {
                        return Err(t.error(
                            &format!("platforms[{i}]"),
                            format!("{p}: expected \"ns2\" (ns-2.35) or \"kernel\" (this machine's, by the testbed)"),
                        ));
                    }
                };
                if platforms.contains(&platform) {
                    return Err(t.error(&format!("platforms[{i}]"), format!("{p} is listed twice")));
                }
                platforms.push(platform);
            }
        }
        Some(other) => return Err(t.error("platforms", format!("expected a list such as [\"ns2\"], found {}", type_name(other)))),
    }
    let kernel = read_kernel_runs(&mut t, &platforms)?;
    t.finish()?;
    if values.is_empty() && claims.is_empty() {
        return Err(ScenarioError::new(file, "paper", "empty; give [[paper.value]] or [[paper.claim]] entries"));
    }
    Ok(Paper { source, values, claims, unknowns, platforms, kernel, variant })
}

/// `[paper] kernel = { replicates, set }`, given only beside `platforms = ["kernel"]`.
fn read_kernel_runs(t: &mut Reader<'_>, platforms: &[Platform]) -> Result<KernelRuns> {
    let Some(mut k) = t.table("kernel")? else { return Ok(KernelRuns::default()) };
    if !platforms.contains(&Platform::Kernel) {
        return Err(t.error("kernel", "given, but `platforms` does not list \"kernel\": the sweep never runs on the kernel"));
    }
    let replicates = k.bounded("replicates", 1..=u32::MAX as u64, "replicates per point on the kernel")?.map(|r| r as u32);
    let sets = match k.value("set") {
        None => Vec::new(),
        Some(Value::Table(set)) => set.iter().map(|(key, v)| (key.clone(), v.clone())).collect(),
        Some(other) => {
            return Err(k.error(
                "set",
                format!("expected a table of settings such as {{ \"sim.duration\" = \"60s\" }}, found {}", type_name(other)),
            ));
        }
    };
    k.finish()?;
    Ok(KernelRuns { replicates, sets })
}

/// The array of tables at `key` (`[[paper.key]]`), empty when absent.
fn tables<'a>(t: &mut Reader<'a>, key: &'static str) -> Result<Vec<&'a Table>> {
    match t.value(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| item.as_table().ok_or_else(|| t.error(&format!("{key}[{i}]"), "expected a table")))
            .collect(),
        Some(other) => Err(t.error(key, format!("expected [[paper.{key}]] tables, got {}", type_name(other)))),
    }
}

fn read_claim(file: &str, path: &str, table: &Table, keys: &[String], points: &[Point]) -> Result<Claim> {
    let mut c = Reader::new(file, path, table);
    let text = c.required_string("text")?.to_string();
    let defaults = Defaults { point: c.value("point"), metric: c.string("metric")?, group: c.string("group")? };
    let each_replicate = c.boolean("each_replicate")?.unwrap_or(false);
    let tolerance = c.number("tolerance")?.unwrap_or(0.0);
    if !(0.0..1.0).contains(&tolerance) {
        return Err(c.error("tolerance", format!("{tolerance}: expected a fraction in [0, 1)")));
    }
    let factor = c.number("factor")?.unwrap_or(1.0);
    if !(factor.is_finite() && factor > 0.0) {
        return Err(c.error("factor", format!("{factor}: expected a positive number")));
    }
    let mut listed = Vec::new();
    for (name, relation) in Relation::NAMES {
        if let Some(v) = c.value(name) {
            listed.push((name, relation, v));
        }
    }
    let along = c.string("along")?;
    let trend = c.choice("trend", &[("increasing", Relation::Increasing), ("decreasing", Relation::Decreasing)])?;
    let (relation, chains) = match (listed.as_slice(), along, trend) {
        ([("ratio", relation, Value::Array(pairs))], None, None) if pairs.first().is_some_and(Value::is_array) => {
            // Several pairs, each a ratio of its own: `ratio = [[A, B], [C, D]]`.
            let mut chains = Vec::with_capacity(pairs.len());
            for (k, pair) in pairs.iter().enumerate() {
                let here = format!("{path}.ratio[{k}]");
                let Some(pair) = pair.as_array().filter(|p| p.len() == 2) else {
                    return Err(ScenarioError::new(file, &here, "expected a pair of sides [numerator, denominator]"));
                };
                chains.push(chain_of(file, &here, pair, &defaults, keys, points)?);
            }
            (*relation, chains)
        }
        ([(name, relation, sides)], None, None) => {
            let Value::Array(sides) = sides else {
                return Err(c.error(name, format!("expected a list of sides, got {}", type_name(sides))));
            };
            // A ratio to the paper's number (`denominator`) has one side.
            if sides.len() < 2 && !(*name == "ratio" && sides.len() == 1) {
                return Err(c.error(name, "expected at least two sides to compare"));
            }
            (*relation, vec![chain_of(file, &format!("{path}.{name}"), sides, &defaults, keys, points)?])
        }
        ([], Some(key), Some(relation)) => (relation, trend_chains(file, path, key, &defaults, keys, points)?),
        ([], Some(_), None) => return Err(c.missing("trend", "missing; expected \"increasing\" or \"decreasing\" along the key")),
        ([], None, Some(_)) => return Err(c.missing("along", "missing; expected the swept key the trend follows")),
        _ => {
            return Err(c.error(
                "text",
                "expected exactly one of increasing, decreasing, at_least, at_most, same, ratio (a list of sides), or along with trend",
            ));
        }
    };
    if relation.is_strict() || relation == Relation::Ratio {
        if factor != 1.0 {
            return Err(c.error("factor", "applies to at_least, at_most and same only"));
        }
        if tolerance != 0.0 {
            return Err(c.error("tolerance", "applies to at_least, at_most and same only: an ordering holds or not, a ratio has its band"));
        }
    }
    let band = match (relation, c.value("band")) {
        (Relation::Ratio, Some(Value::Array(b)))
            if b.len() == 2
                && b.iter().all(|x| x.as_float().or(x.as_integer().map(|i| i as f64)).is_some_and(|x| x.is_finite() && x > 0.0)) =>
        {
            let x = |i: usize| b[i].as_float().or(b[i].as_integer().map(|i| i as f64)).unwrap_or(0.0);
            if x(0) > x(1) {
                return Err(c.error("band", format!("[{}, {}]: the low end first", x(0), x(1))));
            }
            Some((x(0), x(1)))
        }
        (Relation::Ratio, Some(_)) => return Err(c.error("band", "expected [low, high], two positive numbers")),
        (Relation::Ratio, None) => return Err(c.missing("band", "missing; a ratio needs the band it must lie in, [low, high]")),
        (_, Some(_)) => return Err(c.error("band", "applies to ratio only")),
        (_, None) => None,
    };
    let denominator = c.number("denominator")?;
    if denominator.is_some_and(|d| !(d.is_finite() && d > 0.0)) {
        return Err(c.error("denominator", "expected a positive number, in the metric's unit"));
    }
    let sides = if denominator.is_some() { 1 } else { 2 };
    if relation == Relation::Ratio && chains.iter().any(|chain| chain.len() != sides) {
        return Err(c.error(
            "ratio",
            if sides == 1 {
                "expected one side with a denominator: the quantity whose ratio to the paper's number is checked"
            } else {
                "expected exactly two sides: the numerator, then the denominator (or one side and denominator = the paper's number)"
            },
        ));
    }
    if denominator.is_some() && relation != Relation::Ratio {
        return Err(c.error("denominator", "applies to ratio only"));
    }
    let testable_if = match c.table("testable_if")? {
        Some(mut t) => {
            let here = t.path().to_string();
            let at_least = t
                .number("at_least")?
                .ok_or_else(|| t.missing("at_least", "missing; expected the least mean that makes the claim testable"))?;
            if !(at_least.is_finite() && at_least >= 0.0) {
                return Err(
                    t.error("at_least", format!("{at_least}: expected the least mean that makes the claim testable, finite and ≥ 0"))
                );
            }
            let defaults = Defaults { point: None, metric: t.string("metric")?, group: t.string("group")? };
            let q = resolve(file, &here, 0, &defaults)?;
            t.finish()?;
            Some(Condition { metric: q.metric, group: q.group, at_least, key: here })
        }
        None => None,
    };
    let model_check = c.boolean("model_check")?.unwrap_or(false);
    let largest = c.boolean("largest")?.unwrap_or(false);
    if largest && (relation != Relation::Ratio || chains.len() < 2) {
        return Err(c.error("largest", "applies to a ratio of several pairs, ratio = [[A, B], [C, D], …]"));
    }
    c.finish()?;
    Ok(Claim { text, relation, chains, each_replicate, tolerance, factor, band, testable_if, model_check, largest, denominator })
}

/// The quantities a list of sides names (`here[0]`, `here[1]` … in errors).
fn chain_of(file: &str, here: &str, sides: &[Value], defaults: &Defaults, keys: &[String], points: &[Point]) -> Result<Vec<Quantity>> {
    sides
        .iter()
        .enumerate()
        .map(|(j, side)| {
            let here = format!("{here}[{j}]");
            let side = side.as_table().ok_or_else(|| ScenarioError::new(file, &here, "expected a table of point, metric, group"))?;
            quantity(file, &here, side, defaults, keys, points)
        })
        .collect()
}

/// One chain per combination of the swept keys other than `along`, ordered by `along`'s value
/// (numerically when it is a number, else in sweep order).
fn trend_chains(file: &str, path: &str, along: &str, defaults: &Defaults, keys: &[String], points: &[Point]) -> Result<Vec<Vec<Quantity>>> {
    if !keys.iter().any(|k| k == along) {
        return Err(ScenarioError::new(
            file,
            format!("{path}.along"),
            format!("\"{along}\" is not a swept key of this sweep{}", suggestion(along, keys.iter().map(String::as_str))),
        ));
    }
    let candidates: Vec<&Point> = points.iter().filter(|p| defaults.point.is_none_or(|v| matches(p, v))).collect();
    let mut chains: Vec<(String, Vec<(&Point, f64)>)> = Vec::new();
    for p in candidates {
        let others: String = p.values.iter().filter(|(k, _)| k != along).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
        let position = p.values.iter().find(|(k, _)| k == along).and_then(|(_, v)| v.as_float().or(v.as_integer().map(|i| i as f64)));
        let position = position.unwrap_or(p.index as f64);
        match chains.iter_mut().find(|(o, _)| *o == others) {
            Some((_, chain)) => chain.push((p, position)),
            None => chains.push((others, vec![(p, position)])),
        }
    }
    let here = format!("{path}.along");
    let mut out = Vec::new();
    for (_, mut chain) in chains {
        if chain.len() < 2 {
            return Err(ScenarioError::new(
                file,
                &here,
                format!("\"{along}\" takes fewer than two values at some points: no trend to check"),
            ));
        }
        chain.sort_by(|a, b| a.1.total_cmp(&b.1));
        let chain = chain.into_iter().map(|(p, _)| resolve(file, path, p.index, defaults)).collect::<Result<Vec<_>>>()?;
        out.push(chain);
    }
    if out.is_empty() {
        return Err(ScenarioError::new(file, format!("{path}.point"), "no point of the sweep matches"));
    }
    Ok(out)
}

/// Whether point `p` has every value of the `selector` table.
fn matches(p: &Point, selector: &Value) -> bool {
    selector.as_table().is_some_and(|t| t.iter().all(|(k, v)| p.values.iter().any(|(pk, pv)| pk == k && pv == v)))
}

/// The quantity a side names, its missing fields taken from `defaults`.
fn quantity(file: &str, path: &str, side: &Table, defaults: &Defaults, keys: &[String], points: &[Point]) -> Result<Quantity> {
    let mut s = Reader::new(file, path, side);
    let mut own = defaults.clone();
    if let Some(v) = s.value("point") {
        own.point = Some(v);
    }
    if let Some(m) = s.string("metric")? {
        own.metric = Some(m);
    }
    if let Some(g) = s.string("group")? {
        own.group = Some(g);
    }
    s.finish()?;
    let point = match own.point {
        None if points.len() == 1 => 0,
        None => {
            return Err(ScenarioError::new(
                file,
                format!("{path}.point"),
                format!("missing; the sweep has {} points: name one by its swept values, such as {{ \"{}\" = … }}", points.len(), keys[0]),
            ));
        }
        Some(selector) => find_point(file, &format!("{path}.point"), selector, keys, points)?,
    };
    resolve(file, path, point, &own)
}

fn resolve(file: &str, path: &str, point: usize, own: &Defaults) -> Result<Quantity> {
    let metric = own.metric.ok_or_else(|| ScenarioError::new(file, format!("{path}.metric"), "missing; expected a metric name"))?;
    let group = match (metric.split_once('.'), own.group) {
        (Some((table, column)), group) => {
            let Some((schema, entity)) = quantity_tables().find(|(t, _)| t.name == table) else {
                let names = quantity_tables().map(|(t, _)| t.name);
                return Err(ScenarioError::new(
                    file,
                    format!("{path}.metric"),
                    format!("\"{metric}\": no table \"{table}\"{}", suggestion(table, names)),
                ));
            };
            if schema.column(column).is_none() {
                return Err(ScenarioError::new(
                    file,
                    format!("{path}.metric"),
                    format!(
                        "\"{metric}\": the {table} table has no column \"{column}\"{}",
                        suggestion(column, schema.columns().map(|(c, ..)| c))
                    ),
                ));
            }
            match (entity, group) {
                (Some(e), None) => {
                    return Err(ScenarioError::new(file, format!("{path}.group"), format!("missing; expected the {e} of {table}")));
                }
                (_, group) => group.unwrap_or_default(),
            }
        }
        (None, group) => {
            if !METRICS.iter().any(|(m, _, _)| *m == metric) {
                return Err(ScenarioError::new(
                    file,
                    format!("{path}.metric"),
                    format!(
                        "\"{metric}\": not a metric of the metrics table, nor TABLE.COLUMN{}",
                        suggestion(metric, METRICS.iter().map(|(m, _, _)| *m))
                    ),
                ));
            }
            group.ok_or_else(|| {
                ScenarioError::new(
                    file,
                    format!("{path}.group"),
                    "missing; expected the metric's group (a flow table's name, all, a link group)",
                )
            })?
        }
    };
    Ok(Quantity { point, metric: metric.to_string(), group: group.to_string(), key: path.to_string() })
}

/// The one point whose values include every key = value of `selector`.
fn find_point(file: &str, path: &str, selector: &Value, keys: &[String], points: &[Point]) -> Result<usize> {
    let Value::Table(selector_table) = selector else {
        return Err(ScenarioError::new(file, path, format!("expected a table of swept key = value, got {}", type_name(selector))));
    };
    for (k, v) in selector_table {
        if !keys.contains(k) {
            return Err(ScenarioError::new(
                file,
                format!("{path}.\"{k}\""),
                format!("not a swept key of this sweep{}", suggestion(k, keys.iter().map(String::as_str))),
            ));
        }
        if !points.iter().any(|p| p.values.iter().any(|(pk, pv)| pk == k && pv == v)) {
            return Err(ScenarioError::new(
                file,
                format!("{path}.\"{k}\""),
                format!("no point has the value {v}: write it as the sweep does"),
            ));
        }
    }
    let found: Vec<usize> = points.iter().filter(|p| matches(p, selector)).map(|p| p.index).collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(ScenarioError::new(file, path, "no point has all these values together")),
        many => Err(ScenarioError::new(file, path, format!("{} points have these values: name more swept keys", many.len()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points() -> (Vec<String>, Vec<Point>) {
        let keys = vec!["flow.mp.cc".to_string(), "link.l.rate".to_string()];
        let mut points = Vec::new();
        for cc in ["lia", "olia"] {
            for rate in [10, 20, 5] {
                let values = vec![(keys[0].clone(), Value::from(cc)), (keys[1].clone(), Value::from(rate))];
                points.push(Point { index: points.len(), values });
            }
        }
        (keys, points)
    }

    fn read(text: &str) -> Result<Paper> {
        let (keys, points) = points();
        let root: Table = text.parse().unwrap();
        read_paper("s.toml", root["paper"].as_table().unwrap(), &keys, &points)
    }

    #[test]
    fn values_and_listed_claims_resolve_their_points() {
        let paper = read(
            r#"[paper]
source = "Table 1"
[[paper.value]]
label = "LIA at 20"
point = { "flow.mp.cc" = "lia", "link.l.rate" = 20 }
metric = "goodput_mean"
group = "sp"
value = 1.5e6
[[paper.claim]]
text = "OLIA gives single-path users more"
metric = "goodput_mean"
group = "sp"
increasing = [{ point = { "flow.mp.cc" = "lia", "link.l.rate" = 5 } }, { point = { "flow.mp.cc" = "olia", "link.l.rate" = 5 }, group = "all" }]
"#,
        )
        .unwrap();
        assert_eq!(paper.values[0].quantity.point, 1);
        let chain = &paper.claims[0].chains[0];
        assert_eq!((chain[0].point, chain[1].point, chain[1].group.as_str()), (2, 5, "all"));
    }

    #[test]
    fn a_trend_has_one_chain_per_other_level_in_numeric_order() {
        let paper = read(
            "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\nalong = \"link.l.rate\"\ntrend = \"increasing\"\n",
        )
        .unwrap();
        let chains: Vec<Vec<usize>> = paper.claims[0].chains.iter().map(|c| c.iter().map(|q| q.point).collect()).collect();
        assert_eq!(chains, [[2, 0, 1], [5, 3, 4]]);
    }

    #[test]
    fn errors_name_the_key_and_what_exists() {
        let err = |text: &str| read(text).unwrap_err().to_string();
        let base = "[paper]\n[[paper.value]]\nlabel = \"x\"\nvalue = 1\ngroup = \"sp\"\n";
        let e = err(&format!("{base}metric = \"goodput_man\"\npoint = {{ \"flow.mp.cc\" = \"lia\", \"link.l.rate\" = 5 }}\n"));
        assert!(e.contains("paper.value[0].metric") && e.contains("goodput_mean"), "{e}");
        let e = err(&format!("{base}metric = \"goodput_mean\"\npoint = {{ \"flow.mp.c\" = \"lia\" }}\n"));
        assert!(e.contains("paper.value[0].point.\"flow.mp.c\"") && e.contains("flow.mp.cc"), "{e}");
        let e = err(&format!("{base}metric = \"goodput_mean\"\npoint = {{ \"flow.mp.cc\" = \"reno\" }}\n"));
        assert!(e.contains("no point has the value \"reno\""), "{e}");
        let e = err(&format!("{base}metric = \"goodput_mean\"\npoint = {{ \"flow.mp.cc\" = \"lia\" }}\n"));
        assert!(e.contains("3 points have these values"), "{e}");
        let e = err(&format!("{base}metric = \"goodput_mean\"\n"));
        assert!(e.contains("paper.value[0].point") && e.contains("6 points"), "{e}");
        let e = err("[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\nincreasing = [{}]\n");
        assert!(e.contains("at least two sides"), "{e}");
        let e = err(
            "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\ntolerance = 0.1\nalong = \"link.l.rate\"\ntrend = \"increasing\"\n",
        );
        assert!(e.contains("paper.claim[0].tolerance") && e.contains("at_least, at_most and same only"), "{e}");
        let e = err(
            "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"links.utilization\"\nalong = \"link.l.rate\"\ntrend = \"increasing\"\n",
        );
        assert!(e.contains("group") && e.contains("link of links"), "{e}");
        let e = err(
            "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\nalong = \"link.l.rat\"\ntrend = \"up\"\n",
        );
        assert!(e.contains("paper.claim[0].trend"), "{e}");
        // TABLE.COLUMN: the table and the column are the schema's.
        let quantity = |metric: &str| format!("{base}metric = \"{metric}\"\npoint = {{ \"flow.mp.cc\" = \"lia\", \"link.l.rate\" = 5 }}\n");
        let e = err(&quantity("flow.goodput_bps"));
        assert!(e.contains("paper.value[0].metric") && e.contains("no table \"flow\"") && e.contains("flows"), "{e}");
        let e = err(&quantity("flows.goodput_pbs"));
        assert!(e.contains("paper.value[0].metric") && e.contains("no column \"goodput_pbs\"") && e.contains("goodput_bps"), "{e}");
        let e = err(&quantity("timeseries.cwnd_pkts"));
        assert!(e.contains("no table \"timeseries\""), "samples are no quantity: {e}");
        assert!(read(&quantity("flows.goodput_bps")).is_ok());
    }

    #[test]
    fn paper_numbers_are_finite_and_not_negative() {
        let err = |text: &str| read(text).unwrap_err().to_string();
        let point = "point = { \"flow.mp.cc\" = \"lia\", \"link.l.rate\" = 5 }\nmetric = \"links.utilization\"\ngroup = \"l\"\n";
        for bad in ["nan", "inf", "-inf", "-1"] {
            let e = err(&format!("[paper]\n[[paper.value]]\nlabel = \"x\"\nvalue = {bad}\n{point}"));
            assert!(e.contains("paper.value[0].value") && e.contains("finite and ≥ 0"), "{bad}: {e}");
            let e = err(&format!(
                "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\nalong = \"link.l.rate\"\n\
                 trend = \"increasing\"\ntestable_if = {{ metric = \"jain_index\", group = \"all\", at_least = {bad} }}\n"
            ));
            assert!(e.contains("paper.claim[0].testable_if.at_least") && e.contains("finite and ≥ 0"), "{bad}: {e}");
        }
        read(&format!("[paper]\n[[paper.value]]\nlabel = \"x\"\nvalue = 0\n{point}")).unwrap();
    }
}
