//! `equipoise export ns2` and `equipoise ns2`: a scenario as an ns-2.35 script, and that
//! script run by ns-2 with its results read back into the tables of `equipoise run`
//! (`equipoise.source = "ns2"` in their metadata).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use topologies::{Experiment, Scenario};

use crate::tables::{Provenance, Source};

/// The scenario of `file` with `sets` applied, for `runner` (ns-2, the testbed) to run; an AIMD
/// model has no network to run.
pub fn load(file: &Path, sets: &[(String, String)], runner: &str) -> Result<Scenario, String> {
    match topologies::load_experiment(file, sets).map_err(|e| e.to_string())? {
        Experiment::Packet(s) => Ok(s),
        Experiment::Aimd(_) => {
            Err(format!("{}: an [aimd] scenario is a model, not a network: {runner} has nothing to run", file.display()))
        }
    }
}

/// The `ns` program to run: `given`, else `ns` on the `PATH`.
pub fn ns_program(given: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() { Ok(p.to_path_buf()) } else { Err(format!("--ns {}: no such file", p.display())) };
    }
    on_path("ns").ok_or_else(|| {
        "ns-2's `ns` program is not on the PATH: install ns-2.35 (Debian and Ubuntu: `apt-get install ns2`) or give --ns PATH".to_string()
    })
}

/// The first file named `name` in a directory of the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// The command that runs `program` so that it dies with this process: through util-linux's
/// `setpriv --pdeathsig KILL` (Linux) when it is installed, which asks the kernel to kill the
/// child when the thread that started it ends, even by SIGKILL; a killed sweep would otherwise
/// leave each `ns` to finish its run, minutes for seed 004's. Without `setpriv`, `program` itself.
fn dying_with_this_process(program: &Path) -> Command {
    match on_path("setpriv").filter(|_| cfg!(target_os = "linux")) {
        Some(setpriv) => {
            let mut command = Command::new(setpriv);
            command.args(["--pdeathsig", "KILL", "--"]).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// How often a run looks whether `ns` has ended, or a signal is ending the process.
const POLL: Duration = Duration::from_millis(5);

/// Every scratch directory of an ns-2 run starts so, then the making process's id.
const SCRATCH_PREFIX: &str = "equipoise-ns2-";

/// A scratch directory removed when dropped, whatever happened; on SIGINT or SIGTERM, removed
/// before the process ends (see [`stopping`]) when signals end the process.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        use std::sync::atomic::AtomicU32;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        static CLEANED: std::sync::Once = std::sync::Once::new();
        CLEANED.call_once(remove_leftovers);
        if crate::signals_end_the_process() {
            stopping::watch()?;
        }
        let dir = std::env::temp_dir().join(format!("{SCRATCH_PREFIX}{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        let scratch = Scratch(dir);
        stopping::begin();
        std::fs::create_dir_all(&scratch.0).map_err(|e| format!("cannot make the scratch directory {}: {e}", scratch.0.display()))?;
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        stopping::end();
    }
}

/// SIGINT and SIGTERM during ns-2 runs of the command line (Linux; see
/// [`crate::let_signals_end_the_process`]): a thread of its own waits for them, then lets
/// every run kill its `ns` and remove its scratch directory, and ends the process with an
/// error. A run that has cleaned up waits for that end instead of returning, so that a sweep
/// records no run as failed for it. Elsewhere a signal ends the process as it always did.
mod stopping {
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    /// The runs under way, and whether the process is ending.
    struct Live {
        runs: usize,
        ending: bool,
    }

    static LIVE: Mutex<Live> = Mutex::new(Live { runs: 0, ending: false });
    static ENDED: Condvar = Condvar::new();
    /// How long the process waits for its runs to clean up before it ends anyway.
    const GRACE: Duration = Duration::from_secs(5);

    fn live() -> std::sync::MutexGuard<'static, Live> {
        LIVE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the thread that waits for the signals, once.
    pub fn watch() -> Result<(), String> {
        static WATCHING: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        WATCHING.get_or_init(start).clone()
    }

    #[cfg(target_os = "linux")]
    fn start() -> Result<(), String> {
        use std::io::Read;
        let (mut read, write) = std::os::unix::net::UnixStream::pair().map_err(|e| format!("cannot wait for signals: {e}"))?;
        std::thread::Builder::new()
            .name("ns2-signals".into())
            .spawn(move || {
                // A byte is a signal; the end of the stream (no handler registered) is none.
                if read.read(&mut [0u8]).is_ok_and(|n| n == 1) {
                    end_the_process();
                }
            })
            .map_err(|e| format!("cannot start the thread that waits for signals: {e}"))?;
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let write = write.try_clone().map_err(|e| format!("cannot wait for signals: {e}"))?;
            signal_hook::low_level::pipe::register(signal, write).map_err(|e| format!("cannot handle signal {signal}: {e}"))?;
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn start() -> Result<(), String> {
        Ok(())
    }

    #[cfg(target_os = "linux")]
    fn end_the_process() -> ! {
        let mut state = live();
        state.ending = true;
        let (state, _) = ENDED.wait_timeout_while(state, GRACE, |l| l.runs > 0).unwrap_or_else(|e| e.into_inner());
        let left = if state.runs > 0 { format!(" ({} still cleaning up)", state.runs) } else { String::new() };
        eprintln!(
            "error: stopped by a signal: ns-2 ended and its scratch directories removed{left}; no tables of the unfinished runs written"
        );
        std::process::exit(1);
    }

    /// Counts a run in; one begun while the process is ending waits for its end.
    pub fn begin() {
        let mut state = live();
        if state.ending {
            drop(state);
            wait_for_the_end();
        }
        state.runs += 1;
    }

    /// Counts a run out (its scratch directory is gone).
    pub fn end() {
        let mut state = live();
        state.runs = state.runs.saturating_sub(1);
        ENDED.notify_all();
    }

    /// Whether a signal is ending the process: a run kills its `ns`, drops its scratch
    /// directory and calls [`wait_for_the_end`].
    pub fn ending() -> bool {
        live().ending
    }

    /// Waits for the thread that took the signal to end the process.
    pub fn wait_for_the_end() -> ! {
        loop {
            std::thread::park();
        }
    }
}

/// Removes the scratch directories of runs whose process is gone (a killed run cannot remove
/// its own).
fn remove_leftovers() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(|n| crate::made_by_a_gone_process(n, SCRATCH_PREFIX)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// What one ns-2 run of a scenario gave.
pub struct Ns2Run {
    /// The script that ran.
    pub script: String,
    /// The results file it wrote.
    pub results: String,
    /// Wall-clock time of ns-2, seconds.
    pub wall_s: f64,
}

/// Writes `scenario`'s script, runs `ns` on it in a scratch directory and returns the script
/// and its results file; an error shows ns-2's own message. Once `stop` is set, `ns` is
/// killed, its scratch directory removed, and the run ends with an error.
pub fn run_ns2(scenario: &Scenario, ns: Option<&Path>, stop: &AtomicBool) -> Result<Ns2Run, String> {
    let script = scenario.ns2_script().map_err(|e| format!("ns-2 cannot run this scenario: {e}"))?;
    let program = ns_program(ns)?;
    let scratch = Scratch::new()?;
    let (tcl, results) = (scratch.0.join("run.tcl"), scratch.0.join("results.txt"));
    std::fs::write(&tcl, &script).map_err(|e| format!("cannot write {}: {e}", tcl.display()))?;
    let started = Instant::now();
    let (stdout, stderr) = (scratch.0.join("ns.out"), scratch.0.join("ns.err"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()));
    let mut command = dying_with_this_process(&program);
    command.arg(&tcl).arg(&results).current_dir(&scratch.0).stdin(Stdio::null()).stdout(file(&stdout)?).stderr(file(&stderr)?);
    // A process group of its own, so that a terminal's SIGINT reaches this process alone,
    // which then ends `ns` itself (a run that failed of the signal would be a failed run).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let status = loop {
        if stopping::ending() {
            let _ = child.kill();
            let _ = child.wait();
            drop(scratch);
            stopping::wait_for_the_end();
        }
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("stopped before the end of the run ({} killed)", program.display()));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => return Err(format!("cannot wait for {}: {e}", program.display())),
        }
    };
    let wall_s = started.elapsed().as_secs_f64();
    let read = |p: &Path| std::fs::read(p).map(|b| String::from_utf8_lossy(&b).trim().to_string()).unwrap_or_default();
    let (said_out, said_err) = (read(&stdout), read(&stderr));
    if !status.success() {
        let message = [said_err, said_out].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n");
        return Err(format!("{} failed ({status}):\n{message}", program.display()));
    }
    let results = std::fs::read_to_string(&results)
        .map_err(|e| format!("ns-2 wrote no results (cannot read {}: {e}); it said:\n{said_err}", results.display()))?;
    Ok(Ns2Run { script, results, wall_s })
}

/// The files `equipoise ns2` writes beside the tables: the script that ran, and what it wrote.
const SCRIPT_FILE: &str = "ns2-script.tcl";
const RESULTS_FILE: &str = "ns2-results.txt";

/// The files beside the tables of a run in ns-2, in the order written.
pub const FILES: [&str; 2] = [SCRIPT_FILE, RESULTS_FILE];

/// Runs `scenario` (from `file`) in ns-2 (`ns`, else `ns` on the `PATH`): the tables of a run
/// read from ns-2's results, with the script and the results beside them.
pub fn run(file: &Path, scenario: &Scenario, ns: Option<&Path>, progress: bool, stop: &AtomicBool) -> Result<crate::engine::Run, String> {
    if progress {
        eprintln!("running {} in ns-2 …", file.display());
    }
    let run = run_ns2(scenario, ns, stop)?;
    let read = scenario.read_ns2_results(&run.results).map_err(|e| format!("{}: ns-2's results: {e}", file.display()))?;
    let metrics = scenario.metrics(&read.output);
    let mut provenance = Provenance::of(Source::Ns2, file.display().to_string(), scenario.text.clone(), scenario.sim.seed);
    provenance.notes.push(("ns2.unmeasured".into(), read.unmeasured.join(", ")));
    let name = scenario.meta.name.as_deref().unwrap_or("scenario");
    let mut text = format!("{name} ({}), in ns-2.35\n\n", file.display());
    text.push_str(&crate::summary::render_measured(
        &read.output,
        scenario.sim.warmup.as_secs_f64(),
        run.wall_s,
        "simulated by ns-2",
        read.unmeasured,
    ));
    text.push_str(&crate::summary::render_metrics(&metrics));
    text.push_str(&format!("not measured by ns-2 (NaN or 0 in the tables, - above): {}\n", read.unmeasured.join(", ")));
    Ok(crate::engine::Run {
        tables: crate::tables::frames(&read.output, &metrics).map_err(|e| e.to_string())?,
        files: vec![(SCRIPT_FILE.to_string(), run.script.into_bytes()), (RESULTS_FILE.to_string(), run.results.into_bytes())],
        captured: Vec::new(),
        provenance,
        summary: text,
        warnings: Vec::new(),
    })
}
