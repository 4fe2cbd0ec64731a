//! `equipoise`: run packet-level TCP and multipath TCP scenarios and write Parquet results.
//!
//! - `equipoise run FILE`: simulate, print a summary, write `flows`, `subflows`, `links` and
//!   `timeseries` tables ([`tables`]); for a scenario of seed 004's AIMD model (an `[aimd]`
//!   table), `model` and `connections` tables ([`aimd_run`]).
//! - `equipoise fluid FILE`: the scenario's fluid model, its equilibrium (and trajectory) as
//!   the same tables ([`fluid_run`]).
//! - `equipoise validate FILE`: check a scenario without running it.
//! - `equipoise algorithms`: the window laws, as in `docs/algorithms.md`.
//! - `equipoise sweep FILE`: many runs on all cores into one Parquet dataset ([`sweep`]), or a
//!   Slurm job array of shards ([`slurm`]); `summarize` and `plot` read the dataset back.
//! - `equipoise export ns2 FILE`: the scenario as an ns-2.35 script; `equipoise ns2 FILE` runs
//!   it in ns-2 and writes the same tables as `run` from ns-2's results ([`ns2_run`]).
//! - `equipoise report SWEEP…`: the paper's numbers and findings of a sweep's `[paper]` table
//!   beside the dataset's, with computed verdicts ([`report`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use topologies::Experiment;

use equipoise::engine::Engine;
use equipoise::{default_out, emit, engine, ns2_run, output, plot, quick_variant, report, slurm, suffixed, summarize, sweep};

/// A fast packet-level simulator for TCP and multipath TCP congestion control.
#[derive(Parser)]
#[command(name = "equipoise", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `run` and `fluid` take: a scenario, its variations and where the tables go.
#[derive(clap::Args)]
struct ScenarioArgs {
    /// The scenario file (TOML).
    file: PathBuf,
    /// Directory for the tables [default: results/<scenario file name>, with `-fluid` for `fluid`].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Override a key of the scenario, e.g. `--set sim.duration=10s --set link.l1.loss=0.01`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// The scenario's short variant: its `[quick]` settings (or a 10 s run), before any `--set`.
    #[arg(long)]
    quick: bool,
    /// Write the tables into an --out directory that holds other files, beside them (files
    /// this tool did not write are never deleted; without this, such a directory is refused).
    #[arg(long)]
    overwrite: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario: print a summary and write Parquet tables.
    Run {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// The run seed (same as `--set sim.seed=N`).
        #[arg(long)]
        seed: Option<u64>,
        /// Capture the packets on a link (both directions) as a pcapng file beside the tables
        /// (`capture-LINK.pcapng`; `LINK+LINK` for one file of several links), from every flow
        /// or from the flows named after a colon (a counted flow's group name stands for all
        /// its copies); repeatable. docs/captures.md.
        #[arg(long, value_name = "LINK[+LINK…][:FLOW,…]")]
        capture: Vec<String>,
    },
    /// The scenario's fluid model: its equilibrium (and, with `sim.sample_interval`, its
    /// trajectory from time 0), printed and written as the tables of a run.
    Fluid {
        #[command(flatten)]
        scenario: ScenarioArgs,
    },
    /// Run the scenario in ns-2.35 (the `ns` program) and write the tables of `run` from its
    /// results, with the script and ns-2's results file beside them (docs/validation.md).
    Ns2 {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// The `ns` program [default: `ns` on the PATH].
        #[arg(long, value_name = "PATH")]
        ns: Option<PathBuf>,
    },
    /// Run the scenario in real time on this machine's own TCP (Linux, as root): hosts in
    /// network namespaces, the links emulated behind a TUN device; writes the tables of `run`
    /// (docs/testbed.md).
    Testbed {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Capture the kernel's packets on a link (both directions) as a pcapng file beside
        /// the tables, as `run --capture` does; the link must be the whole path of the
        /// subflows captured on it. docs/testbed.md.
        #[arg(long, value_name = "LINK[+LINK…][:FLOW,…]")]
        capture: Vec<String>,
    },
    /// Write the scenario as a script for another simulator, to standard output.
    Export {
        #[command(subcommand)]
        to: ExportTarget,
    },
    /// Print the window laws, their formulas, parameters and defaults (Markdown).
    Algorithms,
    /// Run every point and replicate of a sweep file into one Parquet dataset.
    Sweep {
        /// The sweep file (TOML).
        file: PathBuf,
        /// Dataset directory [default: results/<sweep file name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs at once, 1 to 1024 [default: all cores].
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Run only the K-th of N deterministic parts (1 ≤ K ≤ N).
        #[arg(long, value_name = "K/N")]
        shard: Option<sweep::Shard>,
        /// Skip the runs already in the dataset.
        #[arg(long)]
        resume: bool,
        /// The short variant: the base scenario's `[quick]` settings (or a 10 s run), at most two
        /// replicates, into results/<name>-quick by default.
        #[arg(long)]
        quick: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Add the fluid model's equilibrium of every point (`DIR/fluid/`, the same tables and
        /// key columns), which `plot` draws dashed beside the measurements.
        #[arg(long)]
        fluid: bool,
        /// Make every run in ns-2.35 (the `ns` program on the PATH) instead of the simulator,
        /// into results/<name>-ns2 by default: the same tables, from ns-2's own TCP.
        #[arg(long)]
        ns2: bool,
        /// Make every run on this machine's kernel (as `equipoise testbed` does, as root), one
        /// at a time in real time, with the settings and replicates of the sweep's `[paper]
        /// kernel`; into results/<name>-testbed by default. A point whose law the kernel does not
        /// have fails at once, naming it.
        #[arg(long)]
        testbed: bool,
        /// Write a Slurm batch script (a job array of shards) instead of running.
        #[arg(long)]
        slurm: bool,
        /// Slurm: number of shards (array tasks).
        #[arg(long, default_value_t = 10)]
        slurm_shards: usize,
        /// Slurm: CPUs per task.
        #[arg(long, default_value_t = 4)]
        slurm_cpus: usize,
        /// Slurm: wall-time limit per task.
        #[arg(long, default_value = "04:00:00")]
        slurm_time: String,
        /// Slurm: memory per task.
        #[arg(long, default_value = "4G")]
        slurm_mem: String,
        /// Slurm: partition.
        #[arg(long)]
        slurm_partition: Option<String>,
    },
    /// Mean and 95% confidence interval across replicates, per point, entity and metric.
    Summarize {
        /// The dataset directory of a sweep.
        dir: PathBuf,
    },
    /// Line plot of a metric against a swept key, with 95% confidence bands (SVG); or a run's
    /// time series (`--x time_s --y timeseries.COLUMN`), a line per subflow.
    Plot {
        /// The dataset directory of a sweep, or a run's directory (`run`, `testbed`) for its
        /// time series.
        dir: PathBuf,
        /// Swept key on the x axis.
        #[arg(long)]
        x: String,
        /// Metric as TABLE.COLUMN, such as flows.goodput_bps or links.utilization.
        #[arg(long)]
        y: String,
        /// Swept key drawing one line per value.
        #[arg(long)]
        by: Option<String>,
        /// Only flows (links, AIMD groups) whose name starts with this.
        #[arg(long = "where", value_name = "NAME")]
        filter: Option<String>,
        /// Only the points where a swept key has this value, e.g. `--at link.bottleneck.queue.threshold=4pkt`
        /// (repeatable).
        #[arg(long = "at", value_name = "KEY=VALUE")]
        at: Vec<String>,
        /// How the matching rows of one run become one value.
        #[arg(long, value_enum, default_value_t = plot::Aggregate::Sum)]
        agg: plot::Aggregate,
        /// Output file, .svg or .png; the other format is written beside it
        /// [default: DIR/<y>-vs-<x>.svg].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an --out file this tool did not write (a plot it drew is replaced anyway).
        #[arg(long)]
        overwrite: bool,
        /// A formula of x drawn dashed beside the measurements, such as "1 - 1/(1 + 3*x)"
        /// (+ - * / ^, parentheses, sqrt, exp, ln, min, max).
        #[arg(long, value_name = "EXPR")]
        theory: Option<String>,
    },
    /// The paper's numbers beside ours, and a computed verdict for every finding, from the
    /// `[paper]` tables of sweep files and their datasets (Markdown).
    Report {
        /// Sweep files with a `[paper]` table.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The dataset of the (one) sweep [default: results/<sweep file name>].
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Read the datasets of the short variants (`sweep --quick`).
        #[arg(long)]
        quick: bool,
        /// Write each report into this page, between `<!-- report: FILE -->` and
        /// `<!-- end report -->`, instead of printing it; with a directory, into the one `*.md`
        /// page there that has the block. A `<!-- report: summary -->` block in a page of that
        /// directory is counted again from the blocks of all its pages.
        #[arg(long, value_name = "PAGE|DIR")]
        into: Option<PathBuf>,
        /// Check every finding again at each value of the `[[paper.unknown]]` parameters the
        /// paper does not give, running the sweep at each (into DATASET-unknowns/, resumed).
        #[arg(long)]
        unknowns: bool,
        /// Check every finding again on the platforms the `[paper]` table names
        /// (`platforms = ["ns2", "kernel"]`), running the sweep there (into DATASET-ns2/ and
        /// DATASET-testbed/, resumed); `--platforms=ns2` or `--platforms=kernel` on that one
        /// alone. The kernel's runs need root and take real time, one at a time.
        #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "all", value_name = "PLATFORM")]
        platforms: Option<report::Platforms>,
        /// Runs at once for --unknowns and --platforms, 1 to 1024 [default: all cores].
        #[arg(long, value_parser = parse_jobs)]
        jobs: Option<usize>,
    },
    /// Check a scenario or a sweep file without running it.
    Validate {
        /// The scenario or sweep file (TOML).
        file: PathBuf,
        /// Override a key of the scenario.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
}

/// The simulators `export` writes scripts for.
#[derive(Subcommand)]
enum ExportTarget {
    /// An ns-2.35 Tcl script (`ns script.tcl [RESULTS-FILE]` runs it); what ns-2 lacks is an
    /// error naming the key.
    Ns2 {
        /// The scenario file (TOML).
        file: PathBuf,
        /// Override a key of the scenario.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
}

fn parse_sets(sets: &[String], seed: Option<u64>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for s in sets {
        let (k, v) = s.split_once('=').ok_or_else(|| format!("--set {s}: expected KEY=VALUE, such as sim.duration=10s"))?;
        out.push((k.trim().to_string(), v.trim().to_string()));
    }
    if let Some(seed) = seed {
        out.push(("sim.seed".into(), seed.to_string()));
    }
    Ok(out)
}

/// `equipoise run`, `fluid`, `ns2` and `testbed`: the scenario (its short variant with
/// `--quick`, `--set` and `--seed` applied) on `engine`, its tables written and its summary
/// printed.
fn on_engine(args: ScenarioArgs, seed: Option<u64>, engine: Engine, capture: &[String]) -> Result<(), String> {
    let ScenarioArgs { file, out, sets, quick, overwrite, quiet } = args;
    let mut sets = parse_sets(&sets, seed)?;
    if quick {
        sets.splice(0..0, quick_variant(&file)?);
    }
    let variant = if quick { "the [quick] variant: " } else { "" };
    engine::drive(&file, &sets, engine, capture, variant, engine::Destination { out, overwrite, quiet })
}

fn validate(file: &Path, sets: &[String]) -> Result<(), String> {
    let sets = parse_sets(sets, None)?;
    if is_sweep_file(file) {
        if !sets.is_empty() {
            return Err("--set applies to scenarios; a sweep sets its keys in [grid], [[zip]] and [[point]]".into());
        }
        let sweep = topologies::sweep::Sweep::load(file).map_err(|e| e.to_string())?;
        let paper = match &sweep.paper {
            Some(p) => format!("; [paper]: {} value(s), {} claim(s)", p.values.len(), p.claims.len()),
            None => String::new(),
        };
        let (points, replicates) = (sweep.points.len(), sweep.replicates);
        // The short variant `sweep --quick` would run, checked too.
        sweep::quick_variant(sweep)?;
        emit(&format!("{}: ok (sweep: {points} points × {replicates} replicates{paper})\n", file.display()));
        emit(&format!("{}: [quick] variant ok\n", file.display()));
        return Ok(());
    }
    match topologies::load_experiment(file, &sets).map_err(|e| e.to_string())? {
        Experiment::Packet(scenario) => {
            scenario.build().map_err(|e| e.to_string())?;
            engine::idle_traffic(file, &scenario).iter().for_each(|w| eprintln!("warning: {w}"));
            emit(&format!("{}: ok ({} links, {} flows)\n", file.display(), scenario.links.len(), scenario.flows.len()));
        }
        Experiment::Aimd(s) => {
            emit(&format!("{}: ok (AIMD model, {} connections)\n", file.display(), s.model.connections.len()));
        }
    }
    // The short variant `run --quick` would run, checked too.
    let quick = topologies::quick_sets(file).map_err(|e| e.to_string())?;
    if !quick.is_empty() {
        let variant = [quick, sets].concat();
        topologies::load_experiment(file, &variant).and_then(|e| e.check()).map_err(|e| format!("the [quick] variant: {e}"))?;
        emit(&format!("{}: [quick] variant ok\n", file.display()));
    }
    Ok(())
}

/// Whether `file` is a sweep (it names a base `scenario`) rather than a scenario.
fn is_sweep_file(file: &Path) -> bool {
    topologies::read_input(file).ok().and_then(|t| t.parse::<toml::Table>().ok()).is_some_and(|t| t.contains_key("scenario"))
}

/// The default dataset of sweep `file`: `results/<name>`, `results/<name>-quick` for its short
/// variant.
fn default_dataset(file: &Path, quick: bool) -> PathBuf {
    let out = default_out(file);
    if quick { suffixed(out, "-quick") } else { out }
}

const MAX_JOBS: usize = 1024;

/// `--jobs N`: a count of runs at once, 1 to [`MAX_JOBS`].
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of runs at once from 1 to {MAX_JOBS}")),
    }
}

fn write_slurm(file: &Path, out: &Path, args: &slurm::SlurmArgs) -> Result<(), String> {
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let program = std::env::current_exe().map_err(|e| format!("cannot find this program's own path (for the job script): {e}"))?;
    let (file, out) = (absolute(file)?, absolute(out)?);
    // Check the sweep and lay out its dataset now, rather than on the cluster.
    let mut sweep = topologies::sweep::Sweep::load(&file).map_err(|e| e.to_string())?;
    if args.ns2 {
        sweep = sweep::in_ns2(sweep, None)?;
    }
    let layout = sweep::SweepArgs {
        file: file.clone(),
        out: out.clone(),
        jobs: 1,
        shard: None,
        resume: true,
        quick: false,
        quiet: true,
        fluid: false,
        engine: if args.ns2 { Engine::Ns2 { ns: None } } else { Engine::Packet },
        caller: sweep::Caller::CommandLine,
    };
    sweep::prepare(&sweep, &layout)?;
    let script = out.join("sweep.sbatch");
    output::check_file(&script, slurm::SIGNATURE, false)?;
    output::write_file_atomically(&script, slurm::script(&program, &file, &out, args).as_bytes())?;
    emit(&format!("wrote {}: submit it with `sbatch {}`\n", script.display(), script.display()));
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The command line ends itself on SIGINT or SIGTERM, once its ns-2 and testbed runs are
    // cleaned up.
    equipoise::let_signals_end_the_process();
    let result = match cli.command {
        Command::Run { scenario, seed, capture } => on_engine(scenario, seed, Engine::Packet, &capture),
        Command::Fluid { scenario } => on_engine(scenario, None, Engine::Fluid, &[]),
        Command::Validate { file, sets } => validate(&file, &sets),
        Command::Ns2 { scenario, ns } => on_engine(scenario, None, Engine::Ns2 { ns }, &[]),
        Command::Testbed { scenario, capture } => on_engine(scenario, None, Engine::Testbed, &capture),
        Command::Export { to: ExportTarget::Ns2 { file, sets } } => parse_sets(&sets, None)
            .and_then(|sets| ns2_run::load(&file, &sets, "ns-2"))
            .and_then(|s| s.ns2_script().map_err(|e| format!("ns-2 cannot run this scenario: {e}")))
            .map(|script| emit(&script)),
        Command::Sweep {
            file,
            out,
            jobs,
            shard,
            resume,
            quick,
            quiet,
            fluid,
            ns2,
            testbed,
            slurm,
            slurm_shards,
            slurm_cpus,
            slurm_time,
            slurm_mem,
            slurm_partition,
        } => {
            let engine = match (ns2, testbed) {
                (true, _) => Engine::Ns2 { ns: None },
                (false, true) => Engine::Testbed,
                (false, false) => Engine::Packet,
            };
            let out = out.unwrap_or_else(|| equipoise::suffixed(default_dataset(&file, quick), engine.out_suffix()));
            if ns2 && testbed {
                Err("--ns2 with --testbed: a sweep's runs are made by one platform; run the sweep once with each".into())
            } else if fluid && engine != Engine::Packet {
                Err("--fluid with --ns2 or --testbed: the fluid model is this tool's own; sweep without them to add it".into())
            } else if testbed && slurm {
                Err("--testbed with --slurm: the testbed runs on this machine's kernel, as root, in real time".into())
            } else if testbed && jobs.is_some_and(|j| j > 1) {
                Err("--testbed runs one run at a time: runs at once would share this machine's cores with each other's emulated links"
                    .into())
            } else if slurm && fluid {
                Err("--fluid with --slurm: once the job array is done, `equipoise sweep FILE --out DIR --resume --fluid` adds the fluid side without running anything again".into())
            } else if slurm && quick {
                Err("--quick is for a trial on this machine; a Slurm script runs the full sweep".into())
            } else if slurm {
                let args = slurm::SlurmArgs {
                    shards: slurm_shards,
                    cpus: slurm_cpus,
                    time: slurm_time,
                    mem: slurm_mem,
                    partition: slurm_partition,
                    ns2,
                };
                write_slurm(&file, &out, &args)
            } else {
                let jobs = if testbed { 1 } else { jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())) };
                let args = sweep::SweepArgs {
                    file,
                    out: out.clone(),
                    jobs,
                    shard,
                    resume,
                    quick,
                    quiet,
                    fluid,
                    engine,
                    caller: sweep::Caller::CommandLine,
                };
                sweep::sweep(&args).map(|(ok, failed, skipped)| {
                    if !quiet {
                        emit(&format!("{ok} runs done, {failed} failed, {skipped} already done; dataset in {}/\n", out.display()));
                    }
                })
            }
        }
        Command::Report { quick: true, unknowns: true, .. } => {
            Err("--unknowns runs each sweep in full at every value of its unknowns; leave out --quick".into())
        }
        Command::Report { quick: true, platforms: Some(_), .. } => {
            Err("--platforms runs each sweep in full on the paper's platforms; leave out --quick".into())
        }
        Command::Report { jobs: Some(_), unknowns: false, platforms: None, .. } => {
            Err("--jobs applies to --unknowns and --platforms only".into())
        }
        Command::Report { files, dataset, quick, into, unknowns, platforms, jobs } => {
            let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let args = report::ReportArgs {
                files,
                dataset,
                into,
                unknowns,
                platforms: platforms.unwrap_or(report::Platforms::None),
                jobs,
                trial: quick,
            };
            report::report(&args, |f| default_dataset(f, quick)).map(|text| emit(&text))
        }
        Command::Summarize { dir } => summarize::summarize(&dir).map(|digest| emit(&digest)),
        Command::Plot { dir, x, y, by, filter, at, agg, out, overwrite, theory } => {
            plot::plot(&plot::PlotArgs { dir, x, y, by, filter, at, aggregate: agg, out, overwrite, theory })
                .map(|files| files.iter().for_each(|f| emit(&format!("wrote {}\n", f.display()))))
        }
        Command::Algorithms => {
            emit(&mptcp_cc::algorithm::reference_markdown());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
