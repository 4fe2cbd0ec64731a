//! What a run of any engine (the packet simulator, seed 004's AIMD model, the fluid model,
//! ns-2.35, the testbed) gives a command: its tables, the files written beside them, their
//! provenance and its summary; and the one way every command on a scenario ends, writing them
//! and printing the summary.

use std::path::{Path, PathBuf};

use polars::prelude::DataFrame;

use crate::output::{self, Target};
use crate::tables::{self, Provenance};

/// A run made, not yet written.
pub struct Run {
    /// The tables (`flows`, `links`, …), each written as `<name>.parquet`.
    pub tables: Vec<(&'static str, DataFrame)>,
    /// Files written with the tables, all or nothing (packet captures, ns-2's script and results).
    pub files: Vec<(String, Vec<u8>)>,
    /// How the tables were made, written into each file's metadata.
    pub provenance: Provenance,
    /// What the command prints of the run, before the list of files.
    pub summary: String,
}

/// Writes `run` into `dir` (prepared as `target` before the run began) and, unless `quiet`,
/// prints its summary and the files written.
pub fn write_and_print(dir: &Path, target: Target, run: Run, quiet: bool) -> Result<(), String> {
    let mut files = tables::encode_tables(run.tables, &run.provenance)?;
    files.extend(run.files);
    let written = output::write(dir, target, &files)?;
    if !quiet {
        crate::emit(&run.summary);
        crate::emit(&format!("tables in {}/: {}\n", dir.display(), file_names(&written).join(", ")));
    }
    Ok(())
}

/// The file names of `paths`.
fn file_names(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect()
}

/// The line a summary gives a packet capture written into `dir`.
pub fn capture_note(dir: &Path, name: &str, bytes: usize, packets: u64) -> String {
    format!("captured {packets} packets ({:.1} MB) into {}\n", bytes as f64 / 1e6, dir.join(name).display())
}
