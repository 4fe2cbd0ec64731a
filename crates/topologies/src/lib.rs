//! Scenario files of equipoise: from TOML to a runnable simulation.
//!
//! Every experiment of the papers is a file rather than code, so that reproducing, varying or
//! sweeping one needs no recompilation, and a mistake in a file is reported by key path
//! instead of silently running something else.
//!
//! One scenario model, three stages, each a module:
//!
//! 1. [`read`]: TOML text to the [`read::Declared`] scenario: types, [`units`], unknown keys
//!    (with the nearest valid one); `--set KEY=VALUE` and sweep points edit the TOML table by
//!    key path before it is read ([`overrides::set_key`]). Nothing is generated or drawn.
//! 2. [`expand`]: the declared scenario to the plain [`Scenario`] ([`model`]): topology
//!    generators to links and routes, counted flows to copies, traffic generators to flows,
//!    routes to link names; every random draw of a scenario happens here.
//! 3. [`engines`]: the plain model to what each engine runs: [`engines::packet`] cross-checks
//!    it (link names in paths, thresholds against the packet size) and constructs a
//!    `tcp::Simulation`; [`engines::fluid`] the fluid model's network, [`engines::ns2`] an ns-2
//!    script.
//!
//! Every error is a [`ScenarioError`] naming the file, the key path and what was expected.
//! [`metrics`] computes the papers' metrics from a run's records.
//!
//! [`sweep`] reads sweep files (a base scenario, a grid, zipped keys, explicit points and
//! replicates) into the list of runs, each with its own derived seed; [`paper`] reads what a
//! sweep's paper reports.

pub mod aimd_scenario;
pub mod engines;
pub mod error;
pub mod expand;
pub mod metrics;
pub mod model;
pub mod overrides;
pub mod paper;
pub mod read;
pub mod schema;
pub mod sweep;
pub mod units;

pub use aimd_scenario::AimdScenario;
pub use error::{Result, ScenarioError};
pub use model::Scenario;

use std::path::Path;

/// Reads and expands the scenario `root` of `file`.
pub fn scenario(file: &str, root: &toml::Table) -> Result<Scenario> {
    expand::expand(read::read_scenario(file, root)?)
}

/// Reads scenario `text` (from `file`), applies `sets` (key path, value text) in order, and
/// reads the model.
pub fn load_text(file: &str, text: &str, sets: &[(String, String)]) -> Result<Scenario> {
    let mut root = read::parse_text(file, text)?;
    for (key, value) in sets {
        overrides::set_key(&mut root, key, overrides::parse_value(value))
            .map_err(|m| ScenarioError::new(file, format!("--set {key}"), m))?;
    }
    scenario(file, &root)
}

/// What a scenario file describes: a packet-level network, or seed 004's abstract AIMD model
/// (a file with an `[aimd]` table).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per run, moved at most a few times: size is moot
pub enum Experiment {
    /// Links and flows, simulated packet by packet.
    Packet(Scenario),
    /// The AIMD model of parallel connections.
    Aimd(AimdScenario),
}

impl Experiment {
    /// Reads whichever kind `root` (from `file`) is.
    pub fn read(file: &str, root: &toml::Table) -> Result<Experiment> {
        if Self::is_aimd(root) {
            aimd_scenario::read_aimd(file, root).map(Experiment::Aimd)
        } else {
            scenario(file, root).map(Experiment::Packet)
        }
    }

    /// Whether scenario `root` is of seed 004's AIMD model (it has an `[aimd]` table).
    pub fn is_aimd(root: &toml::Table) -> bool {
        root.contains_key("aimd")
    }

    /// Every check short of running: a packet scenario is built (and dropped).
    pub fn check(&self) -> Result<()> {
        match self {
            Experiment::Packet(s) => s.build().map(|_| ()),
            Experiment::Aimd(_) => Ok(()),
        }
    }
}

/// Like [`load_text`], for either kind of scenario.
pub fn load_experiment_text(file: &str, text: &str, sets: &[(String, String)]) -> Result<Experiment> {
    let mut root = read::parse_text(file, text)?;
    for (key, value) in sets {
        overrides::set_key(&mut root, key, overrides::parse_value(value))
            .map_err(|m| ScenarioError::new(file, format!("--set {key}"), m))?;
    }
    Experiment::read(file, &root)
}

/// The most memory a run may be estimated to need (its links' buffers and packets in flight,
/// its flows' initial windows, its flows' and subflows' own state): checked before it starts, so that a run that could not finish
/// is refused with the key to change instead of ending in an allocation failure.
pub const MEMORY_CAP: u64 = 16_000_000_000;

/// The most bytes a scenario or sweep file may hold: far above any real one (the largest
/// shipped is tens of kB), and read no further, so that `/dev/zero` or a wrong path to a
/// dataset is refused at once.
pub const MAX_INPUT_BYTES: u64 = 4 << 20;

/// The text of the input file at `path`, refused beyond [`MAX_INPUT_BYTES`] before more is
/// read (special files included), naming the file. A FIFO or socket is refused unopened:
/// opening a FIFO waits for a writer, which may never come.
pub fn read_input(path: &Path) -> Result<String> {
    use std::io::Read;
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| ScenarioError::new(&file, "", format!("cannot read the file: {e}"));
    if let Ok(kind) = std::fs::metadata(path).map(|m| m.file_type()) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() || kind.is_socket() {
                return Err(ScenarioError::new(&file, "", "a FIFO or socket, not a file; give the path of a scenario or sweep file"));
            }
        }
        if kind.is_dir() {
            return Err(ScenarioError::new(&file, "", "a directory, not a file; give the path of a scenario or sweep file"));
        }
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)).map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(ScenarioError::new(
            &file,
            "",
            format!("larger than {} MiB, the most a scenario or sweep file may be", MAX_INPUT_BYTES >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|_| ScenarioError::new(&file, "", "not UTF-8 text"))
}

/// Like [`load`], for either kind of scenario.
pub fn load_experiment(path: &Path, sets: &[(String, String)]) -> Result<Experiment> {
    let file = path.display().to_string();
    let text = read_input(path)?;
    load_experiment_text(&file, &text, sets)
}

/// The `[quick]` table of the scenario file at `path`: key paths and values that make a short
/// variant of it (`equipoise run --quick`), as `--set` pairs; none if it has no such table.
///
/// ```toml
/// [quick]
/// "sim.duration" = "60s"
/// "sim.warmup" = "0s"
/// ```
pub fn quick_sets(path: &Path) -> Result<Vec<(String, String)>> {
    let file = path.display().to_string();
    let text = read_input(path)?;
    let root = read::parse_text(&file, &text)?;
    let Some(quick) = root.get("quick") else { return Ok(Vec::new()) };
    let toml::Value::Table(quick) = quick else {
        return Err(ScenarioError::new(&file, "quick", "expected a table of key paths and values, such as \"sim.duration\" = \"10s\""));
    };
    // Each key path must lead somewhere in this file: said here, not as a `--set` error later.
    let mut probe = root.clone();
    for (key, value) in quick {
        overrides::set_key(&mut probe, key, value.clone()).map_err(|m| ScenarioError::new(&file, format!("quick.\"{key}\""), m))?;
    }
    Ok(quick.iter().map(|(key, value)| (key.clone(), value.to_string())).collect())
}

/// Reads the scenario file at `path` and applies `sets`.
pub fn load(path: &Path, sets: &[(String, String)]) -> Result<Scenario> {
    let file = path.display().to_string();
    let text = read_input(path)?;
    load_text(&file, &text, sets)
}
