//! No table holds an infinite or NaN value: a quantity that does not exist (the Jain index of
//! flows that delivered nothing, a ratio over zero, a confidence interval of one replicate) is
//! null, and the terminal shows a dash. Every numeric column of every table is scanned, for
//! runs where such quantities arise: a link down all the run, a flow starting after the end,
//! the AIMD model at its extreme capacities, the fluid model, a sweep of one replicate and its
//! summary.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{self, equipoise};
use polars::prelude::*;

/// A link down for the whole run and a flow that starts after the end: flows that deliver
/// nothing, a Jain index and a best-to-worst ratio of zeros, a loss ratio over zero.
const DEGENERATE: &str = r#"
[sim]
duration = "2s"
warmup = "500ms"
sample_interval = "100ms"

[[link]]
name = "up"
rate = "10Mbps"
delay = "5ms"
buffer = "100pkt"

[[link]]
name = "down"
rate = "10Mbps"
delay = "5ms"
buffer = "100pkt"
events = [{ at = "0s", state = "down" }]

[[flow]]
name = "dead"
paths = [["down"]]

[[flow]]
name = "late"
paths = [["up"]]
start = "5s"

[[flow]]
name = "mp"
cc = "lia"
paths = [["up"], ["down"]]

[metrics]
loss_ratio = [["down", "up"], ["up", "down"]]
"#;

fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> common::Scratch {
    common::scratch("finite", name)
}

/// Every Parquet file under `dir`.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files.extend(parquet_files(&p));
        } else if p.extension().is_some_and(|x| x == "parquet") {
            files.push(p);
        }
    }
    files.sort();
    files
}

/// Fails on any value of a float column of any table under `dir` that is not finite; returns
/// the tables.
fn all_finite(dir: &Path) -> Vec<(PathBuf, DataFrame)> {
    let files = parquet_files(dir);
    assert!(!files.is_empty(), "no tables under {}", dir.display());
    let mut tables = Vec::new();
    for f in files {
        let df = ParquetReader::new(File::open(&f).unwrap()).finish().unwrap();
        for c in df.columns() {
            if !c.dtype().is_float() {
                continue;
            }
            let values = c.cast(&DataType::Float64).unwrap();
            let bad: Vec<f64> = values.as_materialized_series().f64().unwrap().iter().flatten().filter(|x| !x.is_finite()).collect();
            assert!(bad.is_empty(), "{}: column {} holds {bad:?}", f.display(), c.name());
        }
        tables.push((f, df));
    }
    tables
}

/// The `value` of metric `metric` for `group` in a metrics table (`None`: null).
fn metric(df: &DataFrame, metric: &str, group: &str) -> Option<f64> {
    let names = df.column("metric").unwrap().str().unwrap().clone();
    let groups = df.column("group").unwrap().str().unwrap().clone();
    let values = df.column("value").unwrap().f64().unwrap().clone();
    let i = (0..df.height()).find(|&i| names.get(i) == Some(metric) && groups.get(i) == Some(group)).expect("the row");
    values.get(i)
}

#[test]
fn quantities_that_do_not_exist_are_null_in_a_run_and_a_dash_on_the_terminal() {
    let dir = scratch("run");
    let file = dir.join("degenerate.toml");
    std::fs::write(&file, DEGENERATE).unwrap();
    let out = dir.join("out");
    let printed = ok(equipoise(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(!printed.contains("NaN") && !printed.contains("inf"), "{printed}");
    let tables = all_finite(&out);
    let metrics = &tables.iter().find(|(f, _)| f.ends_with("metrics.parquet")).unwrap().1;
    assert_eq!(metric(metrics, "jain_index", "dead"), None);
    assert_eq!(metric(metrics, "best_to_worst", "all"), None);
    assert_eq!(metric(metrics, "loss_ratio", "down/up"), None);
    assert_eq!(metric(metrics, "loss_ratio", "up/down"), Some(0.0));
    let jain = printed.lines().find(|l| l.starts_with("jain_index") && l.contains("dead")).unwrap();
    assert!(jain.trim_end().ends_with(" -"), "{jain}");
}

#[test]
fn the_aimd_model_at_its_extreme_capacities_writes_finite_tables() {
    for capacity in ["1e100", "1e-100"] {
        let out = scratch(&format!("aimd-{capacity}"));
        let printed = ok(equipoise(&[
            "run",
            "../../scenarios/aimd-theorem1.toml",
            "--set",
            &format!("aimd.capacity={capacity}"),
            "--set",
            "aimd.events=1000",
            "--out",
            out.join("t").to_str().unwrap(),
            "--quiet",
        ]));
        assert!(!printed.contains("NaN") && !printed.contains("inf"), "{printed}");
        all_finite(&out);
    }
}

#[test]
fn a_fluid_model_a_sweep_of_one_replicate_and_its_summary_write_finite_tables() {
    let dir = scratch("sweep");
    std::fs::write(dir.join("degenerate.toml"), DEGENERATE).unwrap();
    let fluid = dir.join("fluid");
    ok(equipoise(&["fluid", "../../scenarios/dumbbell.toml", "--out", fluid.to_str().unwrap(), "--quiet"]));
    all_finite(&fluid);
    let sweep = dir.join("sweep.toml");
    std::fs::write(&sweep, "scenario = \"degenerate.toml\"\nreplicates = 1\n\n[grid]\n\"link.up.rate\" = [\"5Mbps\", \"10Mbps\"]\n")
        .unwrap();
    let dataset = dir.join("dataset");
    ok(equipoise(&["sweep", sweep.to_str().unwrap(), "--out", dataset.to_str().unwrap(), "--quiet"]));
    let printed = ok(equipoise(&["summarize", dataset.to_str().unwrap()]));
    assert!(!printed.contains("NaN") && !printed.contains("inf"), "{printed}");
    // One replicate: a mean, no standard deviation or interval.
    let tables = all_finite(&dataset);
    let summary = &tables.iter().find(|(f, _)| f.ends_with("summary/flows.parquet")).unwrap().1;
    assert!(
        summary.column("sd").unwrap().null_count() == summary.height() && summary.column("mean").unwrap().null_count() < summary.height()
    );
}
