//! `equipoise sweep`: every (point, replicate) of a sweep as an independent single-threaded
//! simulation, on as many threads as `--jobs` says, into one Parquet dataset.
//!
//! The runs are cut into batches of `runs_per_file` consecutive runs (a property of the sweep
//! file), and the dataset is a directory with one file per batch in each table's folder
//! (`flows/batch-000042.parquet`, …), so shards and resumed sweeps only add files, and
//! `pl.read_parquet("DIR/flows/*.parquet")` or DuckDB's `read_parquet('DIR/flows/*.parquet')`
//! read each table whole. `runs/` holds one row per run, and its file is written last: a batch
//! counts as done only once it exists. No file records wall-clock time, so a dataset depends on
//! nothing but the sweep file: any `--jobs`, any sharding, interrupted and resumed or not.
//! (Runs made in ns-2 too; runs made on the kernel with `--testbed` are measurements in real
//! time, one a batch, each batch's metadata saying how the run went.)

use std::collections::BTreeMap;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressStyle};
use polars::prelude::*;
use topologies::Experiment;
use topologies::sweep::{Run, Sweep, value_text};

use crate::aimd_run;
use crate::engine::Engine;
use crate::tables::{self, Provenance, Source};

/// A shard: the `k`-th (1-based) of `n` deterministic parts of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1..=n.
    pub k: usize,
    /// How many parts.
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("expected K/N with 1 ≤ K ≤ N, such as 3/10, got \"{s}\"");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// Whether batch number `index` belongs to this shard (batches are dealt round-robin).
    pub fn owns(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

fn batch_file(dir: &Path, table: &str, batch: usize) -> PathBuf {
    dir.join(table).join(format!("batch-{batch:06}.parquet"))
}

/// Whether `batch` finished in an earlier invocation.
fn done(dir: &Path, batch: usize) -> bool {
    batch_file(dir, "runs", batch).exists()
}

/// How a swept key's values become a column: decided once per sweep from all its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyKind {
    Integer,
    Number,
    Boolean,
    /// Words, or values of mixed types.
    Text,
}

/// The column type of every swept key: integers as i64, other numbers as f64, booleans as
/// booleans, anything else (or a key whose values mix types) as text.
fn key_kinds(sweep: &Sweep) -> Vec<KeyKind> {
    sweep
        .keys
        .iter()
        .map(|key| {
            let values = || sweep.points.iter().filter_map(|p| p.values.iter().find(|(k, _)| k == key).map(|(_, v)| v));
            if values().all(toml::Value::is_integer) {
                KeyKind::Integer
            } else if values().all(|v| v.is_float() || v.is_integer()) {
                KeyKind::Number
            } else if values().all(toml::Value::is_bool) {
                KeyKind::Boolean
            } else {
                KeyKind::Text
            }
        })
        .collect()
}

/// The columns every row of a run carries: point, replicate, seed and one per swept key.
fn run_columns(sweep: &Sweep, kinds: &[KeyKind], run: &Run, height: usize) -> Vec<Column> {
    let mut cols = vec![
        Column::new("point".into(), vec![run.point as u32; height]),
        Column::new("replicate".into(), vec![run.replicate; height]),
        Column::new("seed".into(), vec![run.seed; height]),
    ];
    for (key, kind) in sweep.keys.iter().zip(kinds) {
        let here = sweep.points[run.point].values.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let name: PlSmallStr = key.into();
        cols.push(match kind {
            KeyKind::Integer => Column::new(name, vec![here.and_then(toml::Value::as_integer); height]),
            KeyKind::Number => {
                let x = here.map(|v| v.as_float().unwrap_or_else(|| v.as_integer().unwrap_or_default() as f64));
                Column::new(name, vec![x; height])
            }
            KeyKind::Boolean => Column::new(name, vec![here.and_then(toml::Value::as_bool); height]),
            KeyKind::Text => Column::new(name, vec![here.map(value_text); height]),
        });
    }
    cols
}

/// A `runs/` row's columns: the run's key columns, `status` ("ok" or "failed") and `error`.
fn status_row(sweep: &Sweep, kinds: &[KeyKind], run: &Run, status: &str, error: Option<String>) -> Vec<Column> {
    let mut cols = run_columns(sweep, kinds, run, 1);
    cols.push(Column::new("status".into(), vec![status]));
    cols.push(Column::new("error".into(), vec![error]));
    cols
}

fn prepend(df: DataFrame, cols: Vec<Column>) -> PolarsResult<DataFrame> {
    let mut all = cols;
    all.extend(df.into_columns());
    DataFrame::new(all.first().map_or(0, |c| c.len()), all)
}

/// Writes `df` to `path` through a temporary name, so a file is either whole or absent.
fn write_atomic(path: &Path, df: &mut DataFrame, provenance: &Provenance) -> Result<(), String> {
    let tmp = path.with_extension("parquet.tmp");
    tables::write_parquet(&tmp, df, provenance)?;
    fs::rename(&tmp, path).map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), path.display()))
}

/// What one run produced, before any table is made of it: plain records, so that the threads
/// that simulate never call into polars.
enum Outcome {
    /// A packet-level run; `notes`, what a testbed run's metadata say of it (its batch holds it
    /// alone).
    Packet {
        out: Box<tcp::RunOutput>,
        metrics: Vec<topologies::metrics::Metric>,
        notes: Vec<(String, String)>,
    },
    Aimd {
        scenario: Box<topologies::AimdScenario>,
        report: Box<aimd::Report>,
    },
}

impl Outcome {
    fn events(&self) -> u64 {
        match self {
            Outcome::Packet { out, .. } => out.stats.events,
            Outcome::Aimd { report, .. } => report.events,
        }
    }

    /// The run's tables, in [`tables_of`] order.
    fn frames(&self) -> PolarsResult<Vec<(&'static str, DataFrame)>> {
        match self {
            Outcome::Packet { out, metrics, .. } => tables::frames(out, metrics),
            Outcome::Aimd { scenario, report } => aimd_run::frames(scenario, report),
        }
    }
}

/// The tables every run of this sweep writes.
fn tables_of(sweep: &Sweep) -> &'static [&'static str] {
    if sweep.is_aimd() { &crate::aimd_run::TABLES } else { &tables::RUN_TABLES }
}

/// Why a sweep's runs are not the fluid model's: it solves each point beside the simulator's runs.
const FLUID_SWEEP: &str = "the fluid model's sweep is the side of the simulator's: sweep with the packet engine and --fluid (fluid=True)";

/// Runs one simulation (in ns-2, or on the testbed, as `engine` says); its records, or why it
/// failed.
fn simulate(sweep: &Sweep, run: &Run, engine: &Engine) -> Result<Outcome, String> {
    let experiment = sweep.scenario(run).map_err(|e| e.to_string())?;
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Outcome, String> {
        match experiment {
            Experiment::Packet(mut s) => {
                // A sweep writes tables, not packet captures: a `[[capture]]` is for `run`.
                s.captures.clear();
                let (out, notes) = match engine {
                    Engine::Packet => (s.build().map_err(|e| e.to_string())?.run(), Vec::new()),
                    Engine::Fluid => return Err(FLUID_SWEEP.to_string()),
                    Engine::Ns2 { ns } => {
                        // A sweep stops between batches, never inside a run (a run
                        // stopped would be recorded as failed).
                        let made = crate::ns2_run::run_ns2(&s, ns.as_deref(), &AtomicBool::new(false))?;
                        (s.read_ns2_results(&made.results).map_err(|e| format!("ns-2's results: {e}"))?.output, Vec::new())
                    }
                    Engine::Testbed => on_testbed(&s)?,
                };
                let metrics = s.metrics(&out);
                Ok(Outcome::Packet { out: Box::new(out), metrics, notes })
            }
            Experiment::Aimd(s) => {
                let report = aimd::run(&s.model).map_err(|e| e.to_string())?;
                Ok(Outcome::Aimd { scenario: Box::new(s), report: Box::new(report) })
            }
        }
    }));
    outcome.map_err(|panic| {
        let msg = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        format!("the simulation panicked: {}", msg.unwrap_or_default())
    })?
}

fn stack(acc: &mut Option<DataFrame>, df: DataFrame) -> Result<(), String> {
    match acc {
        None => *acc = Some(df),
        Some(all) => {
            all.vstack_mut(&df).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// A simulated batch on its way to the writer: its index and each run's outcome.
type Simulated<'a> = (usize, Vec<(&'a Run, Result<Outcome, String>)>);

/// Writes batch `batch` (each run's outcome) into its files. Returns how many runs failed
/// (recorded in `runs/`); an `Err` is an I/O failure that stops the sweep.
fn write_batch(
    sweep: &Sweep,
    kinds: &[KeyKind],
    batch: usize,
    outcomes: Vec<(&Run, Result<Outcome, String>)>,
    args: &SweepArgs,
) -> Result<u64, String> {
    let dir = &args.out;
    let names = tables_of(sweep);
    let mut tables_acc: Vec<Option<DataFrame>> = vec![None; names.len()];
    let mut runs_acc = None;
    let mut failed = 0;
    let mut notes = Vec::new();
    for (run, outcome) in outcomes {
        if let Ok(Outcome::Packet { notes: of_run, .. }) = &outcome {
            notes.extend(of_run.iter().cloned());
        }
        let (status, error, events) = match outcome.and_then(|o| Ok((o.frames().map_err(|e| e.to_string())?, o.events()))) {
            Ok((frames, events)) => {
                for (name, df) in frames {
                    let i = names.iter().position(|n| *n == name).expect("a table of this kind of sweep");
                    let height = df.height();
                    stack(&mut tables_acc[i], prepend(df, run_columns(sweep, kinds, run, height)).map_err(|e| e.to_string())?)?;
                }
                ("ok", None, events)
            }
            Err(e) => {
                failed += 1;
                ("failed", Some(e), 0)
            }
        };
        let mut cols = status_row(sweep, kinds, run, status, error);
        cols.push(Column::new("events".into(), vec![events]));
        stack(&mut runs_acc, DataFrame::new(1, cols).map_err(|e| e.to_string())?)?;
    }
    // The sweep file's name, not its path: the dataset must not depend on where the sweep was
    // started from (a cluster's tasks see absolute paths). Per-run seeds are in the rows.
    let name = Path::new(&sweep.file).file_name().map_or_else(|| sweep.file.clone(), |n| n.to_string_lossy().into_owned());
    let source = if sweep.is_aimd() { Source::Aimd } else { args.engine.source() };
    let mut provenance = Provenance::of(source, name, sweep.scenario_text.clone(), sweep.seed);
    // A testbed run's notes (its batch holds it alone: the kernel's sweep writes one run a file).
    provenance.notes = notes;
    for (table, df) in names.iter().zip(tables_acc) {
        // A table with no rows (no time series when sampling is off) gets no file.
        if let Some(mut df) = df.filter(|d| d.height() > 0) {
            write_atomic(&batch_file(dir, table, batch), &mut df, &provenance)?;
        }
    }
    let mut runs_df = runs_acc.expect("a batch has runs");
    write_atomic(&batch_file(dir, "runs", batch), &mut runs_df, &provenance)?;
    Ok(failed)
}

/// What `equipoise sweep` was asked to do.
pub struct SweepArgs {
    /// The sweep file.
    pub file: PathBuf,
    /// The dataset directory (created, or resumed with `resume`).
    pub out: PathBuf,
    /// Worker threads; each runs whole simulations, so results do not depend on it.
    pub jobs: usize,
    /// Only this part of the runs.
    pub shard: Option<Shard>,
    /// Skip the runs whose batch file is already in the dataset.
    pub resume: bool,
    /// Run the short variant ([`Sweep::quick`]).
    pub quick: bool,
    /// No progress bar, no summary line.
    pub quiet: bool,
    /// Add the fluid equilibrium of every point (`DIR/fluid/`).
    pub fluid: bool,
    /// What makes the runs.
    pub engine: Engine,
    /// How the caller names `out` and `resume` in its messages.
    pub caller: Caller,
}

/// Who asked for the sweep, so that a message names the options the way the user wrote them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Caller {
    /// `equipoise sweep`: `--out`, `--resume`.
    #[default]
    CommandLine,
    /// The Python package's `sweep`: `out=`, `resume=True`.
    Python,
}

impl Caller {
    /// The dataset directory's option.
    pub fn out(self) -> &'static str {
        match self {
            Caller::CommandLine => "--out",
            Caller::Python => "out=",
        }
    }

    /// The option that completes a dataset.
    pub fn resume(self) -> &'static str {
        match self {
            Caller::CommandLine => "--resume",
            Caller::Python => "resume=True",
        }
    }
}

/// What decides a sweep's runs, so that a dataset is resumed only by its own sweep: the file's
/// TOML without its `[paper]` table (the paper's numbers and findings, and comments, may be
/// edited without invalidating the runs), and a variant's settings (`# --quick: …`, an
/// unknown's value, `# --unknown: …`, runs made in ns-2, `# --ns2`, and the kernel's settings,
/// `# --kernel: …`).
fn runs_of(text: &str) -> Result<(toml::Table, Vec<&str>), &str> {
    let variant =
        text.lines().filter(|l| ["# --quick:", "# --unknown:", "# --ns2", "# --kernel:"].iter().any(|v| l.starts_with(v))).collect();
    let mut table: toml::Table = text.parse().map_err(|_| text)?;
    table.remove("paper");
    Ok((table, variant))
}

/// Prepares the dataset directory: new, or (with `--resume`, or for another shard) one made
/// by this very sweep.
pub fn prepare(sweep: &Sweep, args: &SweepArgs) -> Result<(), String> {
    if fs::metadata(&args.out).is_ok_and(|m| !m.is_dir()) {
        return Err(format!(
            "{} exists and is not a directory; a sweep's dataset needs a directory of its own: choose another {} (a file is never replaced)",
            args.out.display(),
            args.caller.out()
        ));
    }
    let marker = args.out.join("sweep.toml");
    if marker.exists() {
        let previous = fs::read_to_string(&marker).map_err(|e| format!("cannot read {}: {e}", marker.display()))?;
        if runs_of(&previous) != runs_of(&sweep.text) {
            return Err(format!("{} holds another sweep's results; choose another {}", args.out.display(), args.caller.out()));
        }
        if !args.resume && args.shard.is_none() {
            return Err(format!(
                "{} already holds results of this sweep; add {} to complete them, or choose another {}",
                args.out.display(),
                args.caller.resume(),
                args.caller.out()
            ));
        }
    } else if args.out.exists() && fs::read_dir(&args.out).map_err(|e| format!("cannot read {}: {e}", args.out.display()))?.next().is_some()
    {
        return Err(format!("{} exists and is not a sweep dataset; choose another {}", args.out.display(), args.caller.out()));
    }
    for t in tables_of(sweep).iter().chain(["runs"].iter()) {
        let folder = args.out.join(t);
        fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        // Leftovers of an interrupted run's writes; their runs are not marked done.
        if args.resume {
            for entry in fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?.flatten() {
                if entry.path().extension().is_some_and(|x| x == "tmp") {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }
    // Written by whichever shard comes first; identical for all of them.
    crate::output::write_file_atomically(&marker, sweep.text.as_bytes())?;
    crate::output::write_file_atomically(&args.out.join("scenario.toml"), sweep.scenario_text.as_bytes())
}

/// The short variant of `sweep` (`sweep --quick`: its base scenario's `[quick]` settings after
/// every point's values), its first point checked as its run would be: a setting the
/// scenario's kind does not have is refused before anything runs, naming the sweep file.
pub fn quick_variant(sweep: Sweep) -> Result<Sweep, String> {
    let file = sweep.file.clone();
    let sets = crate::quick_variant(&sweep.scenario_file).map_err(|e| format!("{file}: the [quick] variant: {e}"))?;
    let listed: Vec<String> = sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let failed = |e: topologies::ScenarioError| format!("{file}: the [quick] variant ({}): {e}", listed.join(" "));
    let quick = sweep.quick(&sets).map_err(failed)?;
    let first = Run { index: 0, point: 0, replicate: 0, seed: 1 };
    quick.scenario(&first).and_then(|e| e.check()).map_err(failed)?;
    Ok(quick)
}

/// Where the ns-2 side of the dataset `dir` lives: `DIR-ns2`.
pub fn ns2_dataset(dir: &Path) -> PathBuf {
    crate::suffixed(dir.to_path_buf(), crate::engine::NS2_SUFFIX)
}

/// `sweep` with its runs made in ns-2.35, checked before anything runs: ns-2 is there (`ns`,
/// else `ns` on the `PATH`), and it can run every point's scenario (ns-2 has no window law but
/// its TCPs, no random drop zone, no threshold-dropper). Its dataset records that its runs are
/// ns-2's.
pub fn in_ns2(mut sweep: Sweep, ns: Option<&Path>) -> Result<Sweep, String> {
    let file = sweep.file.clone();
    crate::ns2_run::ns_program(ns).map_err(|e| format!("{file}: --ns2: {e}"))?;
    for run in sweep.runs().iter().filter(|r| r.replicate == 0) {
        match sweep.scenario(run).map_err(|e| format!("{file}: {e}"))? {
            Experiment::Aimd(_) => {
                return Err(format!("{file}: --ns2: an AIMD-model sweep is a model, not a network: ns-2 has nothing to run"));
            }
            Experiment::Packet(s) => {
                s.ns2_script().map_err(|e| {
                    format!("{file}: --ns2: ns-2.35 cannot run point {} ({}): {e}", run.point, sweep.points[run.point].label())
                })?;
            }
        }
    }
    sweep.text.push_str("\n# --ns2: every run made in ns-2.35\n");
    Ok(sweep)
}

/// Where the kernel's side of the dataset `dir` lives: `DIR-testbed`.
pub fn testbed_dataset(dir: &Path) -> PathBuf {
    crate::suffixed(dir.to_path_buf(), crate::engine::TESTBED_SUFFIX)
}

/// `sweep` as it runs on this machine's kernel (its `[paper] kernel` settings and replicates),
/// checked before anything runs: this machine can run the testbed, and at least one point.
/// A point the kernel cannot run (a law it does not have) is not refused: its runs fail at
/// once with the testbed's reason, so that the others' findings are checked and its own are
/// "not tested here". Also returns those points, each with the testbed's reason.
pub fn on_kernel(sweep: Sweep) -> Result<(Sweep, BTreeMap<usize, String>), String> {
    let file = sweep.file.clone();
    let sweep = sweep.on_kernel().map_err(|e| e.to_string())?;
    let (refused, coupled) = kernel_refusals(&sweep)?;
    if refused.len() == sweep.points.len() {
        let each: Vec<String> = refused.iter().map(|(p, why)| format!("point {p} ({}): {why}", sweep.points[*p].label())).collect();
        return Err(format!("{file}: --testbed: the kernel can run none of the points; {}", each.join("; ")));
    }
    testbed_host(coupled).map_err(|e| format!("{file}: --testbed: {e}"))?;
    Ok((sweep, refused))
}

/// The points of `sweep` that the testbed cannot run, each with the testbed's reason, and
/// whether the others need a law loaded into the kernel.
fn kernel_refusals(sweep: &Sweep) -> Result<(BTreeMap<usize, String>, bool), String> {
    let file = &sweep.file;
    let mut coupled = false;
    let mut refused = BTreeMap::new();
    for run in sweep.runs().iter().filter(|r| r.replicate == 0) {
        match sweep.scenario(run).map_err(|e| format!("{file}: {e}"))? {
            Experiment::Aimd(_) => {
                return Err(format!("{file}: --testbed: an AIMD-model sweep is a model, not a network: the kernel has nothing to run"));
            }
            Experiment::Packet(s) => match testbed_check(&s) {
                Ok(uses_bpf) => coupled |= uses_bpf,
                Err(e) => {
                    refused.insert(run.point, e);
                }
            },
        }
    }
    Ok((refused, coupled))
}

#[cfg(target_os = "linux")]
fn testbed_check(s: &topologies::Scenario) -> Result<bool, String> {
    crate::testbed::check(s)
}

#[cfg(target_os = "linux")]
fn testbed_host(coupled: bool) -> Result<(), String> {
    crate::testbed::check_host(coupled)
}

#[cfg(target_os = "linux")]
fn on_testbed(s: &topologies::Scenario) -> Result<(tcp::RunOutput, Vec<(String, String)>), String> {
    crate::testbed::run_for_sweep(s)
}

#[cfg(target_os = "linux")]
fn testbed_signalled() -> bool {
    crate::testbed::signalled()
}

/// Why the testbed does not run here.
#[cfg(not(target_os = "linux"))]
pub const NOT_LINUX: &str = "the testbed runs the scenario on Linux's own TCP, in network namespaces: it needs Linux";

#[cfg(not(target_os = "linux"))]
fn testbed_check(_: &topologies::Scenario) -> Result<bool, String> {
    Err(NOT_LINUX.into())
}

#[cfg(not(target_os = "linux"))]
fn testbed_host(_: bool) -> Result<(), String> {
    Err(NOT_LINUX.into())
}

#[cfg(not(target_os = "linux"))]
fn on_testbed(_: &topologies::Scenario) -> Result<(tcp::RunOutput, Vec<(String, String)>), String> {
    Err(NOT_LINUX.into())
}

#[cfg(not(target_os = "linux"))]
fn testbed_signalled() -> bool {
    false
}

/// Runs the sweep; returns (runs done now, runs failed now, runs skipped as already done).
pub fn sweep(args: &SweepArgs) -> Result<(u64, u64, u64), String> {
    sweep_stoppable(args, &AtomicBool::new(false))
}

/// [`sweep`], which takes no new batch of runs once `stop` is set: the batches finished are
/// in the dataset (`resume` makes the others), and it ends with an error saying so.
pub fn sweep_stoppable(args: &SweepArgs, stop: &AtomicBool) -> Result<(u64, u64, u64), String> {
    let mut sweep = Sweep::load(&args.file).map_err(|e| e.to_string())?;
    if args.quick {
        sweep = quick_variant(sweep)?;
    }
    if args.fluid && sweep.is_aimd() {
        return Err(format!("{}: --fluid: an AIMD-model sweep is a model already; it has no fluid side", args.file.display()));
    }
    match &args.engine {
        Engine::Packet => {}
        Engine::Fluid => return Err(format!("{}: {FLUID_SWEEP}", args.file.display())),
        Engine::Ns2 { ns } => sweep = in_ns2(sweep, ns.as_deref())?,
        Engine::Testbed => sweep = on_kernel(sweep)?.0,
    }
    prepare(&sweep, args)?;
    let counts = run_prepared_stoppable(&sweep, args, stop)?;
    // The fluid side is deterministic and has no replicates: one shard computes it, the first.
    if args.fluid && args.shard.is_none_or(|s| s.k == 1) {
        let started = std::time::Instant::now();
        let c = fluid_points(&sweep, &args.out, args.jobs, args.quiet)?;
        if !args.quiet {
            let wall = started.elapsed().as_secs_f64();
            eprintln!("fluid model: {} points solved, {} without an equilibrium (in fluid/runs), {wall:.2} s", c.solved, c.failed);
            if c.sub_packet > 0 {
                eprintln!(
                    "warning: fluid model: at {} of {} points subflows send less than one packet per round trip, where the \
                     packet simulator's rates cannot follow the model (fluid/runs, column `warning`)",
                    c.sub_packet, c.solved
                );
            }
        }
    }
    Ok(counts)
}

/// One point's fluid tables, the name of the TCP constant used, and the warning of a point
/// whose subflows send less than one packet per round trip ([`crate::fluid_run::regime_warning`]).
type FluidPoint = (Vec<(&'static str, DataFrame)>, &'static str, Option<String>);

/// The fluid model of `run`'s scenario.
fn fluid_point(sweep: &Sweep, run: &Run) -> Result<FluidPoint, String> {
    match sweep.scenario(run).map_err(|e| e.to_string())? {
        Experiment::Packet(s) => {
            let system = s.build_fluid().map_err(|e| e.to_string())?;
            let eq = crate::fluid_run::solve(&system, &mut |_| {})?;
            let frames = crate::fluid_run::frames(&s, &system, &eq).map_err(|e| e.to_string())?;
            let regime = crate::fluid_run::regime_warning(&eq, crate::fluid_run::has_queues(&system));
            Ok((frames, crate::fluid_run::constant_name(&system.options), regime))
        }
        Experiment::Aimd(_) => Err("an AIMD-model scenario".into()),
    }
}

/// What the fluid side of a sweep found: points solved, points failed, and solved points whose
/// subflows send less than one packet per round trip.
struct FluidCounts {
    solved: u64,
    failed: u64,
    sub_packet: u64,
}

/// The fluid equilibrium of every point of `sweep` (its first replicate's scenario: the model
/// has no randomness of its own), as the tables `fluid/flows`, `fluid/links`, `fluid/metrics`
/// and `fluid/subflows` with the runs' key columns, and `fluid/runs` with each point's status
/// and, for a point whose subflows send less than one packet per round trip, a warning.
fn fluid_points(sweep: &Sweep, dir: &Path, jobs: usize, quiet: bool) -> Result<FluidCounts, String> {
    const FLUID_TABLES: [&str; 4] = ["flows", "links", "metrics", "subflows"];
    let kinds = key_kinds(sweep);
    let mut acc: Vec<Option<DataFrame>> = vec![None; FLUID_TABLES.len()];
    let mut runs_acc = None;
    let mut notes = Vec::new();
    let mut counts = FluidCounts { solved: 0, failed: 0, sub_packet: 0 };
    let runs: Vec<Run> = sweep.runs().into_iter().filter(|r| r.replicate == 0).collect();
    // Points solved on `jobs` threads (a FatTree takes seconds), stacked in point order.
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(runs.len() as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} fluid points [{elapsed_precise}, {eta_precise} left]").expect("valid template"),
    );
    let next = AtomicUsize::new(0);
    let mut outcomes: Vec<(usize, Result<FluidPoint, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    while let Some(run) = runs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        mine.push((run.index, fluid_point(sweep, run)));
                        bar.inc(1);
                    }
                    mine
                })
            })
            .collect();
        let joined: Result<Vec<Vec<_>>, _> = workers.into_iter().map(|w| w.join()).collect();
        joined.map(|all| all.into_iter().flatten().collect()).map_err(|_| "the fluid model panicked".to_string())
    })?;
    bar.finish_and_clear();
    outcomes.sort_by_key(|(index, _)| *index);
    for (run, (_, outcome)) in runs.iter().zip(outcomes) {
        let outcome = outcome.map(|(frames, constant, regime)| {
            if notes.is_empty() {
                notes.push(("fluid.constant".to_string(), constant.to_string()));
            }
            (frames, regime)
        });
        let (status, error, warning) = match outcome {
            Ok((frames, regime)) => {
                counts.solved += 1;
                counts.sub_packet += u64::from(regime.is_some());
                for (name, df) in frames {
                    let i = FLUID_TABLES.iter().position(|n| *n == name).expect("a fluid table");
                    let height = df.height();
                    stack(&mut acc[i], prepend(df, run_columns(sweep, &kinds, run, height)).map_err(|e| e.to_string())?)?;
                }
                ("ok", None, regime)
            }
            Err(e) => {
                counts.failed += 1;
                ("failed", Some(e), None)
            }
        };
        let mut cols = status_row(sweep, &kinds, run, status, error);
        cols.push(Column::new("warning".into(), vec![warning]));
        stack(&mut runs_acc, DataFrame::new(1, cols).map_err(|e| e.to_string())?)?;
    }
    let name = Path::new(&sweep.file).file_name().map_or_else(|| sweep.file.clone(), |n| n.to_string_lossy().into_owned());
    let provenance = Provenance { notes, ..Provenance::of(Source::Fluid, name, sweep.scenario_text.clone(), sweep.seed) };
    let tables = FLUID_TABLES.iter().zip(acc).chain(std::iter::once((&"runs", runs_acc)));
    for (table, df) in tables {
        let folder = dir.join("fluid").join(table);
        fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        if let Some(mut df) = df.filter(|d| d.height() > 0) {
            write_atomic(&folder.join("points.parquet"), &mut df, &provenance)?;
        }
    }
    Ok(counts)
}

/// Runs the sweep's runs (its shard's, those not yet in the dataset with `resume`) into a
/// dataset laid out by [`prepare`]: how many ran well, failed, and were there already.
pub fn run_prepared(sweep: &Sweep, args: &SweepArgs) -> Result<(u64, u64, u64), String> {
    run_prepared_stoppable(sweep, args, &AtomicBool::new(false))
}

/// [`run_prepared`], which takes no new batch once `stopped` is set (and then fails, saying
/// where the finished runs are).
pub fn run_prepared_stoppable(sweep: &Sweep, args: &SweepArgs, stopped: &AtomicBool) -> Result<(u64, u64, u64), String> {
    let all = sweep.runs();
    let kinds = key_kinds(sweep);
    let batches: Vec<(usize, &[Run])> = all.chunks(sweep.runs_per_file).enumerate().collect();
    let mine: Vec<&(usize, &[Run])> = batches.iter().filter(|(b, _)| args.shard.is_none_or(|s| s.owns(*b))).collect();
    let todo: Vec<&(usize, &[Run])> = mine.iter().copied().filter(|(b, _)| !(args.resume && done(&args.out, *b))).collect();
    let count = |list: &[&(usize, &[Run])]| list.iter().map(|(_, r)| r.len() as u64).sum::<u64>();
    let skipped = count(&mine) - count(&todo);
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(count(&todo)) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {msg} [{elapsed_precise}, {eta_precise} left]").expect("valid template"),
    );
    let mut failed = 0;
    bar.set_message("0 failed");
    // Simulations on a pool of their own, each batch's records sent to this thread, which alone
    // makes and writes tables. The pool's workers never call into polars, whose own pool would
    // let a waiting worker take up another batch on the same stack (batches nested until the
    // stack overflowed); here nothing can nest. The channel holds at most one batch a worker,
    // so memory stays bounded when writing is the slower side.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.max(1))
        .thread_name(|i| format!("sweep-{i}"))
        .build()
        .map_err(|e| format!("cannot start {} worker threads: {e}", args.jobs))?;
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let (send, receive) = std::sync::mpsc::sync_channel::<Simulated>(args.jobs.max(1));
    let mut first_error = None;
    pool.in_place_scope(|scope| {
        for _ in 0..args.jobs.max(1) {
            let send = send.clone();
            let (stop, next, todo) = (&stop, &next, &todo);
            scope.spawn(move |_| {
                // Batches taken in order: the first batch is also the first on disk.
                while !stop.load(Ordering::Relaxed) && !stopped.load(Ordering::Relaxed) {
                    let Some((b, runs)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let outcomes = runs.iter().map(|run| (run, simulate(sweep, run, &args.engine))).collect();
                    // A testbed run that a signal stopped is no result: nothing of it is
                    // written, so that --resume makes it again.
                    if args.engine == Engine::Testbed && testbed_signalled() {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    if send.send((*b, outcomes)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // This thread is not one of the pool's: it alone makes tables and writes them.
        while let Ok((b, outcomes)) = receive.recv() {
            let runs = outcomes.len() as u64;
            match write_batch(sweep, &kinds, b, outcomes, args) {
                Ok(f) => {
                    if f > 0 {
                        failed += f;
                        bar.set_message(format!("{failed} failed"));
                    }
                    bar.inc(runs);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error = Some(e);
                    break;
                }
            }
        }
        // Workers blocked on a full channel see it closed and stop.
        drop(receive);
    });
    bar.finish();
    if let Some(e) = first_error {
        return Err(e);
    }
    if args.engine == Engine::Testbed && testbed_signalled() {
        return Err(format!("stopped by a signal: the runs finished before it are in {}; `--resume` makes the others", args.out.display()));
    }
    if stopped.load(Ordering::Relaxed) {
        return Err(format!("stopped: the runs finished before it are in {}; resuming makes the others", args.out.display()));
    }
    Ok((count(&todo) - failed, failed, skipped))
}
