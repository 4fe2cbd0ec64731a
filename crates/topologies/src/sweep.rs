//! Sweep files: a base scenario, a full-factorial grid, keys varied together, explicit points,
//! replicates, and the derivation of every run's seed.
//!
//! ```toml
//! scenario = "../scenarios/seed001-fig4.toml"   # relative to the sweep file
//! replicates = 5
//! seed = 42
//! runs_per_file = 10                     # optional: runs written together (default: see below)
//!
//! [grid]                                 # full factorial
//! "flow.mp.cc.phi" = [0.0, 0.5, 1.0]
//!
//! [[zip]]                                # these keys vary together (equal lengths)
//! "link.l1.rate" = ["10Mbps", "20Mbps"]
//! "link.l2.rate" = ["20Mbps", "10Mbps"]
//!
//! [[point]]                              # explicit points: one more factor
//! "flow.mp.cc" = "lia"
//! [[point]]
//! "flow.mp.cc" = "olia"
//! ```
//!
//! The points are the product of every grid axis, every zip group and the list of explicit
//! points (each present factor), in that order, the last factor varying fastest.

use std::path::{Path, PathBuf};

use toml::Value;

use crate::Experiment;
use crate::error::{Result, ScenarioError};
use crate::overrides::set_key;
use crate::read::parse_text;
use crate::read::reader::{Reader, type_name};

/// One point of a sweep: the values it gives to the swept keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position in the sweep, from 0.
    pub index: usize,
    /// (key path, value), in the order of [`Sweep::keys`].
    pub values: Vec<(String, Value)>,
}

impl Point {
    /// A stable text naming the point by its values (`flow.mp.cc.phi=0.5,link.l1.rate="10Mbps"`).
    pub fn label(&self) -> String {
        self.values.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
    }
}

/// One simulation of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Position in the sweep's run list (point-major, replicate-minor), from 0.
    pub index: usize,
    /// The point.
    pub point: usize,
    /// The replicate, from 0.
    pub replicate: u32,
    /// The run's seed, derived from the sweep seed, the point's values and the replicate.
    pub seed: u64,
}

/// A parsed and checked sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The sweep file.
    pub file: String,
    /// The sweep file's text.
    pub text: String,
    /// The base scenario file.
    pub scenario_file: PathBuf,
    /// The base scenario as the sweep file names it (relative to the sweep file), used in
    /// messages so that they do not depend on the directory the sweep was started from.
    pub scenario_name: String,
    /// The base scenario's text.
    pub scenario_text: String,
    /// The base scenario, parsed once.
    base: toml::Table,
    /// Replicates per point.
    pub replicates: u32,
    /// The sweep seed.
    pub seed: u64,
    /// Runs written to one file of each table (a batch); the unit of sharding and resuming.
    pub runs_per_file: usize,
    /// The swept keys, in column order.
    pub keys: Vec<String>,
    /// Every point.
    pub points: Vec<Point>,
    /// The paper's numbers and findings for this sweep (`[paper]`), for `equipoise report`.
    pub paper: Option<crate::paper::Paper>,
    /// Settings applied after each point's values: the short variant's (`quick`), which must
    /// win over a swept duration.
    after_points: Vec<(String, Value)>,
}

/// One factor of the product: a list of assignments per level.
type Factor = Vec<Vec<(String, Value)>>;

impl Sweep {
    /// Reads the sweep file at `path`.
    pub fn load(path: &Path) -> Result<Sweep> {
        let file = path.display().to_string();
        let text = crate::read_input(path)?;
        Self::from_text(&file, &text, path.parent().unwrap_or(Path::new(".")))
    }

    /// Reads sweep `text` from `file`, resolving the scenario path against `dir`.
    pub fn from_text(file: &str, text: &str, dir: &Path) -> Result<Sweep> {
        let root = parse_text(file, text)?;
        let mut top = Reader::new(file, "", &root);
        let scenario_rel = top.required_string("scenario")?;
        let replicates = top.bounded("replicates", 1..=MAX_RUNS as u64, "replicates")?.unwrap_or(1);
        let seed = top.unsigned("seed")?.unwrap_or(1);
        let runs_per_file = top.unsigned("runs_per_file")?;
        if runs_per_file == Some(0) {
            return Err(top.error("runs_per_file", "expected at least 1"));
        }
        let mut factors: Vec<Factor> = Vec::new();
        if let Some(v) = top.value("grid") {
            let grid = v
                .as_table()
                .ok_or_else(|| ScenarioError::new(file, "grid", format!("expected a table of key = [values], got {}", type_name(v))))?;
            if grid.is_empty() {
                return Err(ScenarioError::new(file, "grid", "empty; give at least one key = [values]"));
            }
            for (key, values) in grid {
                let values = levels(file, &format!("grid.\"{key}\""), values)?;
                factors.push(values.into_iter().map(|v| vec![(key.clone(), v)]).collect());
            }
        }
        if let Some(v) = top.value("zip") {
            let groups = v.as_array().ok_or_else(|| ScenarioError::new(file, "zip", "expected [[zip]] tables"))?;
            for (g, group) in groups.iter().enumerate() {
                let here = format!("zip[{g}]");
                let group = group.as_table().ok_or_else(|| ScenarioError::new(file, &here, "expected a table of key = [values]"))?;
                let columns: Vec<(String, Vec<Value>)> =
                    group.iter().map(|(k, v)| Ok((k.clone(), levels(file, &format!("{here}.\"{k}\""), v)?))).collect::<Result<_>>()?;
                let Some(len) = columns.first().map(|(_, v)| v.len()) else {
                    return Err(ScenarioError::new(file, here, "empty; give keys with equally long lists of values"));
                };
                if let Some((k, v)) = columns.iter().find(|(_, v)| v.len() != len) {
                    return Err(ScenarioError::new(
                        file,
                        format!("{here}.\"{k}\""),
                        format!("{} values where the group's first key has {len}; keys varied together need equally many", v.len()),
                    ));
                }
                factors.push((0..len).map(|i| columns.iter().map(|(k, v)| (k.clone(), v[i].clone())).collect()).collect());
            }
        }
        if let Some(v) = top.value("point") {
            let list = v.as_array().ok_or_else(|| ScenarioError::new(file, "point", "expected [[point]] tables"))?;
            let mut factor = Factor::new();
            for (i, p) in list.iter().enumerate() {
                let p = p.as_table().ok_or_else(|| ScenarioError::new(file, format!("point[{i}]"), "expected a table of key = value"))?;
                factor.push(p.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
            }
            if factor.is_empty() {
                return Err(ScenarioError::new(file, "point", "empty"));
            }
            factors.push(factor);
        }
        let paper = top.value("paper");
        if let Some(v) = paper.filter(|v| !v.is_table()) {
            return Err(ScenarioError::new(file, "paper", format!("expected a table, got {}", type_name(v))));
        }
        top.finish()?;

        let scenario_file = dir.join(scenario_rel);
        let scenario_text = crate::read_input(&scenario_file).map_err(|e| ScenarioError::new(file, "scenario", e.to_string()))?;
        let mut keys: Vec<String> = Vec::new();
        for level in factors.iter().flatten().flatten() {
            if !keys.contains(&level.0) {
                keys.push(level.0.clone());
            }
        }
        let sweep = Sweep {
            file: file.to_string(),
            text: text.to_string(),
            scenario_file,
            scenario_name: scenario_rel.to_string(),
            base: parse_text(scenario_rel, &scenario_text)?,
            scenario_text,
            replicates: replicates as u32,
            seed,
            runs_per_file: 1,
            keys,
            points: Vec::new(),
            paper: None,
            after_points: Vec::new(),
        };
        // Sizes are checked from the grid's shape, before any value is checked against the
        // scenario (which costs a build per level) and before anything is allocated for them.
        let count = factors.iter().try_fold(1usize, |n, f| n.checked_mul(f.len())).filter(|&n| n <= MAX_POINTS);
        let Some(count) = count else {
            let sizes: Vec<String> = factors.iter().map(|f| f.len().to_string()).collect();
            return Err(ScenarioError::new(
                file,
                "grid",
                format!("the factors' levels ({}) multiply to more than {MAX_POINTS} points; split the sweep", sizes.join(" × ")),
            ));
        };
        if count.saturating_mul(replicates as usize) > MAX_RUNS {
            return Err(ScenarioError::new(
                file,
                "replicates",
                format!(
                    "{count} points × {replicates} replicates is more than {MAX_RUNS} runs; split the sweep (--shard, or several files)"
                ),
            ));
        }
        sweep.check_levels(&factors)?;
        let points: Vec<Point> = product(&factors).into_iter().enumerate().map(|(index, values)| Point { index, values }).collect();
        // By default about a hundred batches: one run per file for small sweeps, up to 50 for
        // large ones, whose many tiny runs would otherwise spend more time creating files than
        // simulating. It depends on the sweep alone, so the dataset's layout does too.
        let runs = points.len() * replicates as usize;
        let runs_per_file = runs_per_file.map_or((runs / 100).clamp(1, 50), |n| n as usize);
        let paper = match paper.and_then(Value::as_table) {
            Some(table) => Some(crate::paper::read_paper(file, table, &sweep.keys, &points)?),
            None => None,
        };
        let sweep = Sweep { points, runs_per_file, paper, ..sweep };
        // Every unknown's every value must make a scenario, checked now rather than mid-run.
        for (i, u) in sweep.paper.iter().flat_map(|p| p.unknowns.iter()).enumerate() {
            for j in 0..u.values.len() {
                sweep.with_unknown(i, j)?;
            }
        }
        // So are the kernel's settings and replicates.
        if sweep.paper.as_ref().is_some_and(|p| p.platforms.contains(&crate::paper::Platform::Kernel)) {
            sweep.clone().on_kernel()?;
        }
        Ok(sweep)
    }

    /// The sweep with the paper's unknown `i` set to its `j`-th value on the base scenario
    /// (under every point's own values). Its text records the setting, so that its dataset
    /// is resumed only by the same variant.
    pub fn with_unknown(&self, i: usize, j: usize) -> Result<Sweep> {
        let u = &self.paper.as_ref().expect("a sweep with unknowns has a [paper] table").unknowns[i];
        let value = u.values[j].clone();
        let mut base = self.base.clone();
        let at = |m: String| ScenarioError::new(&self.file, format!("{}.values[{j}]", u.path), m);
        set_key(&mut base, &u.key, value.clone())
            .map_err(|m| ScenarioError::new(&self.file, format!("{}.key", u.path), format!("\"{}\": {m}", u.key)))?;
        Experiment::read(&self.scenario_name, &base)
            .and_then(|s| s.check())
            .map_err(|e| at(format!("{} = {}: {e}", u.key, value_text(&value))))?;
        Ok(Sweep {
            text: format!("{}\n# --unknown: {}={}\n", self.text, u.key, value_text(&value)),
            scenario_text: toml::to_string(&base).map_err(|e| ScenarioError::new(&self.scenario_name, "", e.to_string()))?,
            base,
            ..self.clone()
        })
    }

    /// Whether a variant from [`Sweep::with_unknown`] sets its unknown to the value the
    /// scenario already has, written in its file or left to the default: then its runs give
    /// this sweep's results (its files would differ only in the sweep text they record).
    pub fn unknown_changes_nothing(&self, variant: &Sweep) -> bool {
        if self.base == variant.base {
            return true;
        }
        // The model read, without the effective text it keeps for the results' metadata.
        let model = |s: &Sweep| {
            let mut e = Experiment::read(&s.scenario_name, &s.base).ok()?;
            match &mut e {
                Experiment::Packet(p) => p.text.clear(),
                Experiment::Aimd(a) => a.text.clear(),
            }
            Some(format!("{e:?}"))
        };
        matches!((model(self), model(variant)), (Some(a), Some(b)) if a == b)
    }

    /// Applies each level to the base scenario, so that a key path that leads nowhere, an
    /// unknown key or a value of the wrong type is reported before anything runs. A level is
    /// rejected only if it is wrong both alone and with the first level of every other factor
    /// (a parameter swept beside `cc.algorithm` may not exist for the base's algorithm).
    fn check_levels(&self, factors: &[Factor]) -> Result<()> {
        let scenario_file = self.scenario_name.clone();
        Experiment::read(&scenario_file, &self.base)?;
        // The error a set of levels causes at one of `level`'s keys, if any.
        let error_at = |levels: &mut dyn Iterator<Item = &(String, Value)>, level: &[(String, Value)]| -> Result<Option<ScenarioError>> {
            let mut root = self.base.clone();
            for (key, value) in levels {
                set_key(&mut root, key, value.clone()).map_err(|m| ScenarioError::new(&self.file, key.clone(), m))?;
            }
            // An error at another key is the level's too (a duration that leaves the warm-up
            // longer than the run fails at `sim.warmup`), named at the level's own key.
            Ok(match Experiment::read(&scenario_file, &root).and_then(|s| s.check()) {
                Err(e) => {
                    level.iter().find(|(k, _)| e.key.starts_with(k.as_str()) || k.starts_with(&e.key)).or(level.first()).map(|(key, _)| {
                        let message = if e.key == *key { e.message.clone() } else { format!("{}: {}", e.key, e.message) };
                        ScenarioError::new(&self.file, key.clone(), message)
                    })
                }
                Ok(()) => None,
            })
        };
        for (i, factor) in factors.iter().enumerate() {
            for level in factor {
                let Some(alone) = error_at(&mut level.iter(), level)? else { continue };
                let mut with_others = factors.iter().enumerate().flat_map(|(j, f)| if j == i { level } else { &f[0] });
                if error_at(&mut with_others, level)?.is_some() {
                    return Err(alone);
                }
            }
        }
        Ok(())
    }

    /// The sweep's short variant: `sets` (the base scenario's `[quick]` settings) applied to
    /// every run after its point's values, at most two replicates (the fewest that give a
    /// confidence interval), one run per file. Its text records the settings, so that its
    /// dataset is never taken for the full sweep's.
    pub fn quick(self, sets: &[(String, String)]) -> Result<Sweep> {
        let listed: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let sets = sets.iter().map(|(k, v)| (k.clone(), crate::overrides::parse_value(v))).collect();
        let replicates = self.replicates.min(2);
        self.adjusted(sets, replicates, &format!("quick: {}", listed.join(" ")))
    }

    /// The sweep as it runs on the kernel: `[paper] kernel`'s settings after every point's
    /// values and its replicates, one run per file (each takes real time: an interrupted sweep
    /// resumes from the last run). Its text records the settings.
    pub fn on_kernel(self) -> Result<Sweep> {
        let runs = self.paper.as_ref().map(|p| p.kernel.clone()).unwrap_or_default();
        let replicates = runs.replicates.unwrap_or(self.replicates);
        if replicates > self.replicates {
            return Err(ScenarioError::new(
                &self.file,
                "paper.kernel.replicates",
                format!("{replicates}: at most the sweep's own {} (the kernel's runs are the sweep's, fewer)", self.replicates),
            ));
        }
        let listed: Vec<String> = runs.sets.iter().map(|(k, v)| format!("{k}={}", value_text(v))).collect();
        let file = self.file.clone();
        self.adjusted(runs.sets, replicates, &format!("kernel: {} replicates={replicates}", listed.join(" ")))
            .map_err(|e| ScenarioError::new(&file, "paper.kernel.set", format!("the scenario with these settings: {e}")))
    }

    /// The sweep with `sets` applied after every point's values (to its base scenario too),
    /// `replicates` per point and one run per file; its text gets the line `# --{marker}`.
    fn adjusted(self, sets: Vec<(String, Value)>, replicates: u32, marker: &str) -> Result<Sweep> {
        let variant = marker.split(':').next().unwrap_or(marker);
        let mut base = self.base.clone();
        for (key, value) in &sets {
            set_key(&mut base, key, value.clone())
                .map_err(|m| ScenarioError::new(&self.scenario_name, format!("{variant}.\"{key}\""), m))?;
        }
        Experiment::read(&self.scenario_name, &base)?;
        let mut after_points = self.after_points.clone();
        after_points.extend(sets);
        Ok(Sweep {
            text: format!("{}\n# --{marker}\n", self.text),
            scenario_text: toml::to_string(&base).map_err(|e| ScenarioError::new(&self.scenario_name, "", e.to_string()))?,
            base,
            replicates,
            runs_per_file: 1,
            after_points,
            ..self
        })
    }

    /// Whether the base scenario is of seed 004's AIMD model rather than packet-level.
    pub fn is_aimd(&self) -> bool {
        Experiment::is_aimd(&self.base)
    }

    /// Every run, point-major.
    pub fn runs(&self) -> Vec<Run> {
        let mut runs = Vec::with_capacity(self.points.len() * self.replicates as usize);
        for p in &self.points {
            for replicate in 0..self.replicates {
                // 63 bits, so that the seed is also a valid TOML integer (`sim.seed`).
                let seed = sim_core::rng::derive_seed(self.seed, &format!("{}#{replicate}", p.label())) >> 1;
                runs.push(Run { index: runs.len(), point: p.index, replicate, seed });
            }
        }
        runs
    }

    /// The scenario of `run`: the base with the point's values and the run's seed.
    pub fn scenario(&self, run: &Run) -> Result<Experiment> {
        let scenario_file = self.scenario_name.clone();
        let mut root = self.base.clone();
        for (key, value) in self.points[run.point].values.iter().chain(&self.after_points) {
            set_key(&mut root, key, value.clone()).map_err(|m| ScenarioError::new(&self.file, key.clone(), m))?;
        }
        set_key(&mut root, "sim.seed", Value::Integer(run.seed as i64)).map_err(|m| ScenarioError::new(&self.file, "sim.seed", m))?;
        Experiment::read(&scenario_file, &root)
    }
}

/// The values of a swept key: a non-empty array.
fn levels(file: &str, key: &str, v: &Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(values) if !values.is_empty() => Ok(values.clone()),
        Value::Array(_) => Err(ScenarioError::new(file, key, "empty; give at least one value")),
        other => Err(ScenarioError::new(file, key, format!("expected a list of values, got {}", type_name(other)))),
    }
}

/// The Cartesian product of the factors' levels, the last factor varying fastest.
/// The most points a sweep may have (every point's values are held in memory).
pub const MAX_POINTS: usize = 1_000_000;
/// The most runs a sweep may have (each run's record is held in memory).
pub const MAX_RUNS: usize = 10_000_000;

fn product(factors: &[Factor]) -> Vec<Vec<(String, Value)>> {
    let mut out: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for factor in factors {
        out = out.iter().flat_map(|prefix| factor.iter().map(move |level| prefix.iter().chain(level).cloned().collect())).collect();
    }
    out
}

/// The value as a Parquet-friendly string (used for columns whose values have mixed types).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
