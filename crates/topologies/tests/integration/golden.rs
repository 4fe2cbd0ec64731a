//! Every shipped scenario's short variant under the `newreno` profile gives the very bytes it
//! gave when its hash was stored: the guard for changes meant to be pure speed-ups.
//!
//! The short variant is the scenario with `sim.duration = "3s"` (30 s for seed 003's scenario 7,
//! whose flows arrive every 7.5 s on average; 20 ms for the datacenter at 10 Gb/s), `sim.warmup = "0s"` and `tcp.profile = "newreno"`. Its fingerprint is a 64-bit FNV-1a hash of the `Debug` text of the
//! run's flow, subflow and link records, its time series and its counters (Rust prints an `f64` as the shortest
//! text that reads back to the same bits, so any changed bit changes the text).
//!
//! A change that alters results on purpose stores new hashes:
//! `EQUIPOISE_BLESS=1 cargo test --release -p topologies --test integration golden::`, and says why in its
//! commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const STORED: &str = "tests/golden/newreno-3s.txt";

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The fingerprint of `path`'s short variant, or `None` for an AIMD-model scenario.
fn fingerprint(path: &Path) -> Option<String> {
    if let topologies::Experiment::Aimd(_) = topologies::load_experiment(path, &[]).unwrap_or_else(|e| panic!("{e}")) {
        return None;
    }
    let duration = if path.ends_with("seed003-scenario7.toml") {
        "30s"
    } else if path.ends_with("htsim-datacenter.toml") {
        "20ms" // 128 hosts at 10 Gb/s: 0.7 M packets
    } else {
        "3s"
    };
    let sets: Vec<(String, String)> = [("sim.duration", duration), ("sim.warmup", "0s"), ("tcp.profile", "newreno")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let experiment = topologies::load_experiment(path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let topologies::Experiment::Packet(scenario) = experiment else { return None };
    let out = scenario.build().unwrap_or_else(|e| panic!("{e}")).run();
    let text = format!("{:?}\n{:?}\n{:?}\n{:?}\n{:?}", out.flows, out.subflows, out.links, out.samples, out.stats);
    Some(format!("{:016x} {} events", fnv1a(&text), out.stats.events))
}

fn scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("../../scenarios")
        .expect("the scenarios folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_gives_its_stored_bytes_under_newreno() {
    let files = scenarios();
    // Two workers: the runs are independent and the machine has two cores.
    let results: BTreeMap<String, String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let files = &files;
                s.spawn(move || {
                    files
                        .iter()
                        .skip(w)
                        .step_by(2)
                        .filter_map(|f| fingerprint(f).map(|h| (f.file_stem().unwrap().to_string_lossy().into_owned(), h)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker")).collect()
    });
    let now: String = results.iter().map(|(name, h)| format!("{name} {h}\n")).collect();
    if std::env::var_os("EQUIPOISE_BLESS").is_some() {
        std::fs::write(STORED, &now).expect("writing the stored hashes");
        return;
    }
    let stored = std::fs::read_to_string(STORED).unwrap_or_default();
    let stored: BTreeMap<&str, &str> = stored.lines().filter_map(|l| l.split_once(' ')).collect();
    let mut differ = Vec::new();
    for (name, h) in &results {
        match stored.get(name.as_str()) {
            Some(s) if s == h => {}
            Some(s) => differ.push(format!("{name}: stored {s}, now {h}")),
            None => differ.push(format!("{name}: no stored hash (now {h})")),
        }
    }
    for name in stored.keys().filter(|n| !results.contains_key(**n)) {
        differ.push(format!("{name}: stored, but the scenario is gone"));
    }
    assert!(
        differ.is_empty(),
        "outputs differ from {STORED}:\n{}\n(a change meant to alter results stores new hashes with EQUIPOISE_BLESS=1)",
        differ.join("\n")
    );
}
