//! equipoise as a library: what the `equipoise` command does, for other programs.
//!
//! - [`engine`]: what a run of any engine gives (tables, files, provenance, summary) and how a
//!   command writes it.
//! - [`tables`]: runs as Parquet tables, with their provenance; [`output`]: directories that
//!   never lose a user's files.
//! - [`sweep`]: many runs on all cores into one dataset; [`dataset`], [`summarize`], [`plot`]
//!   read it back; [`slurm`] shards it onto a batch scheduler.
//! - [`report`]: a sweep's `[paper]` table beside its dataset, with computed verdicts.
//! - [`fluid_run`], [`aimd_run`], [`ns2_run`] and (on Linux) [`testbed`]: the engines other
//!   than the packet simulator.

pub mod aimd_run;
pub mod captures;
pub mod dataset;
pub mod engine;
pub mod fluid_run;
pub mod formula;
pub mod ns2_run;
pub mod output;
pub mod plot;
pub mod progress;
pub mod report;
pub mod slurm;
pub mod summarize;
pub mod summary;
pub mod sweep;
pub mod tables;
#[cfg(target_os = "linux")]
pub mod testbed;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether SIGINT and SIGTERM are the command line's to handle
/// ([`let_signals_end_the_process`]). A library's caller (the Python package) keeps its own
/// handling of signals: a signal stops only the run under way.
static SIGNALS_END_THE_PROCESS: AtomicBool = AtomicBool::new(false);

/// Lets SIGINT and SIGTERM end the command, as the command line wants: during runs in ns-2
/// the process ends once every `ns` is killed and its scratch directory removed, and a
/// signal once seen stops every later testbed run of the process (a sweep's next run too).
/// A library's caller does not call this.
pub fn let_signals_end_the_process() {
    SIGNALS_END_THE_PROCESS.store(true, Ordering::Relaxed);
}

/// See [`let_signals_end_the_process`].
pub(crate) fn signals_end_the_process() -> bool {
    SIGNALS_END_THE_PROCESS.load(Ordering::Relaxed)
}

/// Prints `text` to standard output. A reader that went away (`equipoise … | head`) ends the
/// program quietly instead of with a panic.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// The settings of a scenario's short variant: its `[quick]` table, or else 10 s of packet
/// simulation with 2 s of warm-up (100 000 events of an AIMD model).
pub fn quick_variant(file: &Path) -> Result<Vec<(String, String)>, String> {
    let own = topologies::quick_sets(file).map_err(|e| e.to_string())?;
    if !own.is_empty() {
        return Ok(own);
    }
    let text = topologies::read_input(file).map_err(|e| e.to_string())?;
    let aimd = text.parse::<toml::Table>().is_ok_and(|root| topologies::Experiment::is_aimd(&root));
    let pairs: &[(&str, &str)] =
        if aimd { &[("aimd.events", "100000"), ("aimd.warmup_events", "1000")] } else { &[("sim.duration", "10s"), ("sim.warmup", "2s")] };
    Ok(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
}

/// Where a command on `file` writes by default: `results/<file stem>`.
pub fn default_out(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    Path::new("results").join(stem)
}

/// Whether `name` (`PREFIX<pid>-…`) was made by a process of this tool that no longer runs (or
/// is a zombie), so that what it left (a killed run cannot remove its own) may go. Never where `/proc` cannot
/// tell which processes run, and never this process's own.
pub fn made_by_a_gone_process(name: &str, prefix: &str) -> bool {
    let pid = name.strip_prefix(prefix).and_then(|rest| rest.split('-').next()?.parse::<u32>().ok());
    pid.is_some_and(|pid| pid != std::process::id() && Path::new("/proc/self").exists() && !output::process_runs(pid))
}

/// `dir` with `suffix` after its last component (`results/x` → `results/x-quick`).
pub fn suffixed(dir: PathBuf, suffix: &str) -> PathBuf {
    dir.with_file_name(format!("{}{suffix}", dir.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()))
}
