//! `equipoise`: run packet-level TCP and multipath TCP scenarios and write Parquet results.
//!
//! - `equipoise run FILE`: simulate, print a summary, write `flows`, `subflows`, `links` and
//!   `timeseries` tables ([`tables`]).
//! - `equipoise validate FILE`: check a scenario without running it.
//! - `equipoise algorithms`: the window laws, as in `docs/algorithms.md`.

mod summary;
mod tables;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

/// A fast packet-level simulator for TCP and multipath TCP congestion control.
#[derive(Parser)]
#[command(name = "equipoise", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario: print a summary and write Parquet tables.
    Run {
        /// The scenario file (TOML).
        file: PathBuf,
        /// Directory for the tables [default: results/<scenario file name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override a key of the scenario, e.g. `--set sim.duration=10s --set link.l1.loss=0.01`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// The run seed (same as `--set sim.seed=N`).
        #[arg(long)]
        seed: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print the window laws, their formulas, parameters and defaults (Markdown).
    Algorithms,
    /// Check a scenario without running it.
    Validate {
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

fn default_out(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    Path::new("results").join(stem)
}

fn run(file: &Path, out: Option<PathBuf>, sets: &[String], seed: Option<u64>, quiet: bool) -> Result<(), String> {
    let sets = parse_sets(sets, seed)?;
    let scenario = topologies::load(file, &sets).map_err(|e| e.to_string())?;
    let sim = scenario.build().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let output = sim.run();
    let wall = started.elapsed().as_secs_f64();
    let dir = out.unwrap_or_else(|| default_out(file));
    let provenance = tables::Provenance { file: file.display().to_string(), scenario: scenario.text.clone(), seed: scenario.sim.seed };
    let written = tables::write_run(&dir, &output, &provenance)?;
    if !quiet {
        let name = scenario.meta.name.as_deref().unwrap_or("scenario");
        println!("{name} ({}), seed {}\n", file.display(), scenario.sim.seed);
        print!("{}", summary::render(&output, scenario.sim.warmup.as_secs_f64(), wall));
        let names: Vec<String> = written.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
        println!("tables in {}/: {}", dir.display(), names.join(", "));
    }
    Ok(())
}

fn validate(file: &Path, sets: &[String]) -> Result<(), String> {
    let sets = parse_sets(sets, None)?;
    let scenario = topologies::load(file, &sets).map_err(|e| e.to_string())?;
    scenario.build().map_err(|e| e.to_string())?;
    println!("{}: ok ({} links, {} flows)", file.display(), scenario.links.len(), scenario.flows.len());
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, out, sets, seed, quiet } => run(&file, out, &sets, seed, quiet),
        Command::Validate { file, sets } => validate(&file, &sets),
        Command::Algorithms => {
            print!("{}", mptcp_cc::algorithm::reference_markdown());
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
