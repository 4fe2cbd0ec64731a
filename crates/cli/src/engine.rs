//! One contract for every engine: a scenario file is prepared for an engine (the packet
//! simulator, which runs seed 004's AIMD model for an `[aimd]` scenario; the fluid model;
//! ns-2.35; the testbed), which checks it and says which files its run will write, and then
//! run, which gives a [`Run`]: its tables, the files written beside them, their provenance and
//! its summary. [`write_and_print`] is the one way every command on a scenario ends.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use polars::prelude::DataFrame;
use topologies::engines::fluid::FluidSystem;
use topologies::{AimdScenario, Experiment, Scenario};

use crate::output::{self, Target};
use crate::tables::{self, Provenance, Source};
use crate::{aimd_run, captures, fluid_run, progress, summary};

/// What makes a scenario's run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The packet simulator (seed 004's AIMD model for an `[aimd]` scenario).
    Packet,
    /// The fluid model: its equilibrium, and its trajectory when the scenario samples.
    Fluid,
    /// ns-2.35, from the script `equipoise export ns2` writes.
    Ns2 {
        /// Its `ns` program, else `ns` on the `PATH`.
        ns: Option<PathBuf>,
    },
    /// This machine's kernel, through the testbed (Linux, as root), in real time.
    Testbed,
}

/// What the name of ns-2's output (a run's directory, a sweep's dataset) gets after the
/// scenario's or the simulator's dataset's.
pub const NS2_SUFFIX: &str = "-ns2";
/// The same for the testbed's output.
pub const TESTBED_SUFFIX: &str = "-testbed";

impl Engine {
    /// The tables' `equipoise.source` (of a scenario that is not an `[aimd]` one).
    pub fn source(&self) -> Source {
        match self {
            Engine::Packet => Source::Packet,
            Engine::Fluid => Source::Fluid,
            Engine::Ns2 { .. } => Source::Ns2,
            Engine::Testbed => Source::Testbed,
        }
    }

    /// What the default output directory's name gets after the scenario's, and a sweep's
    /// dataset after the simulator's.
    pub fn out_suffix(&self) -> &'static str {
        match self {
            Engine::Packet => "",
            Engine::Fluid => "-fluid",
            Engine::Ns2 { .. } => NS2_SUFFIX,
            Engine::Testbed => TESTBED_SUFFIX,
        }
    }
}

/// A run made, not yet written.
pub struct Run {
    /// The tables (`flows`, `links`, …), each written as `<name>.parquet`.
    pub tables: Vec<(&'static str, DataFrame)>,
    /// Files written with the tables, all or nothing (packet captures, ns-2's script and results).
    pub files: Vec<(String, Vec<u8>)>,
    /// Of `files`, the packet captures: each one's name and how many packets it holds.
    pub captured: Vec<(String, u64)>,
    /// How the tables were made, written into each file's metadata.
    pub provenance: Provenance,
    /// What the command prints of the run, before the captures and the list of files.
    pub summary: String,
    /// What the run found doubtful about its own results, each naming the scenario's file.
    pub warnings: Vec<String>,
}

/// A scenario loaded and checked for an engine, not yet run.
pub struct Prepared {
    file: PathBuf,
    engine: Engine,
    what: What,
    /// Warnings about the scenario (a generator that drew no flow, a very long run, the fluid
    /// model's approximations), each naming its file.
    pub warnings: Vec<String>,
}

/// What an engine runs.
enum What {
    Packet {
        scenario: Box<Scenario>,
        sim: Box<tcp::Simulation>,
        captured: Option<captures::Captured>,
    },
    Aimd(Box<AimdScenario>),
    Fluid {
        scenario: Box<Scenario>,
        system: Box<FluidSystem>,
    },
    Ns2(Box<Scenario>),
    #[cfg(target_os = "linux")]
    Testbed(Box<crate::testbed::Planned>),
}

/// Packets beyond which a packet run is warned of as long, and the rate it assumes one core
/// simulates them at (`equipoise run` prints the measured rate at the end).
const LONG_RUN_PACKETS: f64 = 1e10;
const PACKETS_PER_SECOND: f64 = 5e6;

/// Loads the scenario `file` with `sets` applied and checks it for `engine`, capturing packets
/// as the `capture` arguments say (`--capture LINK[:FLOWS]`). `variant` begins the errors
/// of a scenario's short variant (`the [quick] variant: `), empty otherwise.
pub fn prepare(file: &Path, sets: &[(String, String)], engine: Engine, capture: &[String], variant: &str) -> Result<Prepared, String> {
    let experiment = topologies::load_experiment(file, sets).map_err(|e| format!("{variant}{e}"))?;
    prepare_loaded(file, experiment, engine, capture, variant)
}

/// [`prepare`] of a scenario already read (`file` names it in errors, warnings and the
/// tables' provenance).
pub fn prepare_loaded(file: &Path, experiment: Experiment, engine: Engine, capture: &[String], variant: &str) -> Result<Prepared, String> {
    let mut warnings = Vec::new();
    let what = match (experiment, &engine) {
        (Experiment::Aimd(s), Engine::Packet) if capture.is_empty() => What::Aimd(Box::new(s)),
        (Experiment::Aimd(_), Engine::Packet) => {
            return Err(format!("{}: --capture: an [aimd] scenario has no packets to capture", file.display()));
        }
        (Experiment::Aimd(_), Engine::Fluid) => {
            return Err(format!("{}: an [aimd] scenario is a model already: use `equipoise run`", file.display()));
        }
        (Experiment::Aimd(_), _) => {
            let runner = if engine == Engine::Testbed { "the testbed" } else { "ns-2" };
            return Err(format!("{}: an [aimd] scenario is a model, not a network: {runner} has nothing to run", file.display()));
        }
        (Experiment::Packet(mut scenario), Engine::Packet) => {
            scenario.captures.extend(captures::parse(capture)?);
            let mut sim = scenario.build().map_err(|e| format!("{variant}{e}"))?;
            warnings.extend(idle_traffic(file, &scenario));
            let packets = scenario.packets_bound();
            if packets > LONG_RUN_PACKETS {
                warnings.push(format!(
                    "{}: the links could carry up to {packets:.1e} packets in this run (each busy throughout): at {PACKETS_PER_SECOND:.0e} packets a second, up to {}",
                    file.display(),
                    summary::duration_words(packets / PACKETS_PER_SECOND)
                ));
            }
            let captured = if scenario.captures.is_empty() {
                None
            } else {
                let (sink, captured) = captures::Captured::new(&scenario.captures, scenario.sim.mss)?;
                sim.set_capture_sink(sink);
                Some(captured)
            };
            What::Packet { scenario: Box::new(scenario), sim: Box::new(sim), captured }
        }
        (Experiment::Packet(_), _) if !capture.is_empty() && engine != Engine::Testbed => {
            return Err(format!("{}: --capture: only `run` and `testbed` capture packets", file.display()));
        }
        (Experiment::Packet(scenario), Engine::Fluid) => {
            let system = scenario.build_fluid().map_err(|e| format!("{variant}{e}"))?;
            warnings.extend(system.warnings.iter().map(|w| format!("{}: {w}", file.display())));
            What::Fluid { scenario: Box::new(scenario), system: Box::new(system) }
        }
        (Experiment::Packet(scenario), Engine::Ns2 { .. }) => What::Ns2(Box::new(scenario)),
        #[cfg(target_os = "linux")]
        (Experiment::Packet(scenario), Engine::Testbed) => What::Testbed(Box::new(crate::testbed::plan_run(scenario, capture)?)),
        #[cfg(not(target_os = "linux"))]
        (Experiment::Packet(_), Engine::Testbed) => return Err(crate::sweep::NOT_LINUX.into()),
    };
    Ok(Prepared { file: file.to_path_buf(), engine, what, warnings })
}

impl Prepared {
    /// Where the run goes unless told: `results/<file stem>`, with the engine's suffix.
    pub fn default_out(&self) -> PathBuf {
        crate::suffixed(crate::default_out(&self.file), self.engine.out_suffix())
    }

    /// The files the run will write (its tables, then the files beside them), for
    /// [`output::prepare`] to check before it starts.
    pub fn planned_files(&self) -> Vec<String> {
        match &self.what {
            What::Packet { captured, .. } => {
                tables::planned_files(&tables::RUN_TABLES, captured.as_ref().map_or(&[][..], |c| c.names()).iter().map(String::as_str))
            }
            What::Aimd(_) => tables::planned_files(&aimd_run::TABLES, []),
            What::Fluid { .. } => tables::planned_files(&tables::RUN_TABLES, []),
            What::Ns2(_) => tables::planned_files(&tables::RUN_TABLES, crate::ns2_run::FILES),
            #[cfg(target_os = "linux")]
            What::Testbed(planned) => tables::planned_files(&tables::RUN_TABLES, planned.capture_files()),
        }
    }

    /// Makes the run, showing its progress on a terminal with `progress`.
    pub fn run(self, progress: bool) -> Result<Run, String> {
        self.run_stoppable(progress, &AtomicBool::new(false))
    }

    /// [`Prepared::run`], stopped (with an error, and nothing made) once `stop` is set: a
    /// packet run within a thousandth of its simulated time; the other engines run whole.
    pub fn run_stoppable(self, progress: bool, stop: &AtomicBool) -> Result<Run, String> {
        let file = self.file;
        let name = file.display().to_string();
        match self.what {
            What::Packet { scenario, sim, captured } => {
                let started = Instant::now();
                let mut observer = progress.then(|| progress::observer(started));
                let observe = |p: &tcp::Progress| {
                    if let Some(show) = observer.as_mut() {
                        show(p);
                    }
                    !stop.load(Ordering::Relaxed)
                };
                let output = sim.run_stoppable(1000, observe).ok_or_else(|| format!("{name}: stopped before the end of the run"))?;
                let wall = started.elapsed().as_secs_f64();
                let metrics = scenario.metrics(&output);
                let pcaps = captured.map(captures::Captured::finish).transpose()?.unwrap_or_default();
                let title = scenario.meta.name.as_deref().unwrap_or("scenario");
                let mut text = format!("{title} ({name}), seed {}\n\n", scenario.sim.seed);
                text.push_str(&summary::render(&output, scenario.sim.warmup.as_secs_f64(), wall, "simulated"));
                text.push_str(&summary::render_metrics(&metrics));
                Ok(Run {
                    tables: tables::frames(&output, &metrics).map_err(|e| e.to_string())?,
                    captured: pcaps.iter().map(|(name, _, packets)| (name.clone(), *packets)).collect(),
                    files: pcaps.into_iter().map(|(name, bytes, _)| (name, bytes)).collect(),
                    provenance: Provenance::packet(name, scenario.text.clone(), scenario.sim.seed),
                    summary: text,
                    warnings: Vec::new(),
                })
            }
            What::Aimd(scenario) => {
                let started = Instant::now();
                let report = aimd::run(&scenario.model).map_err(|e| format!("{name}: aimd: {e}"))?;
                let wall = started.elapsed().as_secs_f64();
                let title = scenario.meta.name.as_deref().unwrap_or("scenario");
                Ok(Run {
                    tables: aimd_run::frames(&scenario, &report).map_err(|e| e.to_string())?,
                    files: Vec::new(),
                    captured: Vec::new(),
                    provenance: Provenance::of(Source::Aimd, name.clone(), scenario.text.clone(), scenario.seed),
                    summary: format!("{title} ({name}), seed {}\n\n{}", scenario.seed, aimd_run::render(&scenario, &report, wall)),
                    warnings: Vec::new(),
                })
            }
            What::Fluid { scenario, system } => fluid_run::run(&file, &scenario, &system, progress),
            What::Ns2(scenario) => {
                let Engine::Ns2 { ns } = &self.engine else { unreachable!("a scenario prepared for ns-2") };
                crate::ns2_run::run(&file, &scenario, ns.as_deref(), progress, stop)
            }
            #[cfg(target_os = "linux")]
            What::Testbed(planned) => planned.run(&file, progress),
        }
    }
}

/// The warnings of each `[[traffic]]` table whose generator drew no flow in this run (a valid
/// run: its flows are simply absent from the tables).
pub fn idle_traffic(file: &Path, scenario: &Scenario) -> Vec<String> {
    scenario
        .idle_traffic
        .iter()
        .map(|template| {
            format!(
                "{}: {}: the generator drew no flow in this run ({} s, seed {}): the tables have no rows of its flows",
                file.display(),
                template.key,
                summary::seconds(scenario.sim.duration.as_secs_f64()),
                scenario.sim.seed
            )
        })
        .collect()
}

/// Where a command writes a run, and whether it prints.
pub struct Destination {
    /// The output directory, else the engine's default.
    pub out: Option<PathBuf>,
    /// Whether a directory this tool did not write may be replaced.
    pub overwrite: bool,
    /// No warnings, progress or summary.
    pub quiet: bool,
}

/// Prepares `file` for `engine`, checks the output directory (`out`, else the engine's
/// default) for every file the run will write, makes the run and writes it; unless `quiet`,
/// prints the warnings (to standard error), the summary and the files written. The whole of
/// `equipoise run`, `fluid`, `ns2` and `testbed`.
pub fn drive(
    file: &Path,
    sets: &[(String, String)],
    engine: Engine,
    capture: &[String],
    variant: &str,
    to: Destination,
) -> Result<(), String> {
    let Destination { out, overwrite, quiet } = to;
    let prepared = prepare(file, sets, engine, capture, variant)?;
    let warn = |warnings: &[String]| {
        if !quiet {
            warnings.iter().for_each(|w| eprintln!("warning: {w}"));
        }
    };
    warn(&prepared.warnings);
    // Where the tables go is checked before the run, not after it.
    let dir = out.unwrap_or_else(|| prepared.default_out());
    let target = output::prepare(&dir, overwrite, &prepared.planned_files())?;
    let run = prepared.run(!quiet)?;
    warn(&run.warnings);
    write_and_print(&dir, target, run, quiet)
}

/// Writes `run` into `dir` (prepared as `target` before the run began) and, unless `quiet`,
/// prints its summary, its captures and the files written.
pub fn write_and_print(dir: &Path, target: Target, run: Run, quiet: bool) -> Result<(), String> {
    let mut files = tables::encode_tables(run.tables, &run.provenance)?;
    let sizes: Vec<(String, usize)> = run.files.iter().map(|(name, bytes)| (name.clone(), bytes.len())).collect();
    files.extend(run.files);
    let written = output::write(dir, target, &files)?;
    if !quiet {
        crate::emit(&run.summary);
        for (name, packets) in &run.captured {
            let bytes = sizes.iter().find(|(n, _)| n == name).map_or(0, |(_, b)| *b);
            crate::emit(&format!("captured {packets} packets ({:.1} MB) into {}\n", bytes as f64 / 1e6, dir.join(name).display()));
        }
        let names: Vec<String> = written.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
        crate::emit(&format!("tables in {}/: {}\n", dir.display(), names.join(", ")));
    }
    Ok(())
}
