//! `equipoise summarize DIR`: mean and 95 % confidence interval across replicates, for each
//! point, entity (flow, subflow, link) and metric.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use polars::prelude::*;

use crate::dataset::{RUN_COLUMNS, batches, mean_ci, numbers, read_table, texts};
use crate::output;

/// The tables summarized, with the columns naming an entity in each.
const ENTITIES: [(&str, &[&str]); 5] = [
    ("flows", &["flow"]),
    ("subflows", &["flow", "subflow"]),
    ("links", &["link"]),
    // AIMD-model datasets.
    ("connections", &["group", "connection"]),
    ("model", &[]),
];

/// The swept keys of a dataset: the columns of `runs` between the run columns and the status.
pub fn swept_keys(runs: &DataFrame) -> Vec<String> {
    runs.get_column_names()
        .iter()
        .map(|n| n.to_string())
        .filter(|n| !RUN_COLUMNS.contains(&n.as_str()) && !["status", "error", "events"].contains(&n.as_str()))
        .collect()
}

/// One row of `summary.parquet`: a metric's statistics across replicates.
struct Row {
    point: u32,
    entity: String,
    metric: String,
    n: usize,
    mean: f64,
    sd: f64,
    half: f64,
}

fn summarize_table(df: &DataFrame, entity_cols: &[&str], keys: &[String]) -> Vec<Row> {
    let points = numbers(df, "point").unwrap_or_default();
    let entity_parts: Vec<Vec<String>> = entity_cols.iter().filter_map(|c| texts(df, c)).collect();
    let entities: Vec<String> =
        (0..df.height()).map(|i| entity_parts.iter().map(|p| p[i].as_str()).collect::<Vec<_>>().join("#")).collect();
    let skip: Vec<&str> = RUN_COLUMNS.iter().copied().chain(keys.iter().map(String::as_str)).chain(entity_cols.iter().copied()).collect();
    let mut rows = Vec::new();
    for name in df.get_column_names() {
        if skip.contains(&name.as_str()) {
            continue;
        }
        let Some(values) = numbers(df, name) else { continue };
        let mut groups: BTreeMap<(u32, &str), Vec<f64>> = BTreeMap::new();
        for i in 0..df.height() {
            groups.entry((points[i] as u32, entities[i].as_str())).or_default().push(values[i]);
        }
        for ((point, entity), xs) in groups {
            let (n, mean, sd, half) = mean_ci(&xs);
            rows.push(Row { point, entity: entity.to_string(), metric: name.to_string(), n, mean, sd, half });
        }
    }
    rows.sort_by(|a, b| (a.point, &a.entity, &a.metric).cmp(&(b.point, &b.entity, &b.metric)));
    rows
}

/// Summarizes dataset `dir`: writes `summary/<table>.parquet` and returns a printable digest.
pub fn summarize(dir: &Path) -> Result<String, String> {
    let runs = read_table(dir, "runs")?;
    let keys = swept_keys(&runs);
    // The swept values of each point, for the summary's key columns.
    let point_of_run = numbers(&runs, "point").unwrap_or_default();
    let key_texts: Vec<Vec<String>> = keys.iter().map(|k| texts(&runs, k).unwrap_or_default()).collect();
    let mut point_values: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (i, p) in point_of_run.iter().enumerate() {
        point_values.entry(*p as u32).or_insert_with(|| key_texts.iter().map(|c| c[i].clone()).collect());
    }
    let statuses = texts(&runs, "status").unwrap_or_default();
    let failed = statuses.iter().filter(|s| s.as_str() != "ok").count();
    let summary_dir = dir.join("summary");
    let planned = crate::tables::planned_files(&ENTITIES.map(|(table, _)| table), []);
    let target = output::prepare(&summary_dir, false, &planned)?;
    let mut files = Vec::new();
    let mut digest = String::new();
    let _ = writeln!(digest, "{} runs ({failed} failed), {} points, swept: {}", runs.height(), point_values.len(), keys.join(", "));
    for (table, entity_cols) in ENTITIES {
        // A table the dataset does not have is skipped; one it has but cannot read is an error.
        if batches(&dir.join(table)).map_or(true, |files| files.is_empty()) {
            continue;
        }
        let df = read_table(dir, table)?;
        let rows = summarize_table(&df, entity_cols, &keys);
        let mut cols = vec![Column::new("point".into(), rows.iter().map(|r| r.point).collect::<Vec<_>>())];
        for (k, key) in keys.iter().enumerate() {
            cols.push(Column::new(key.into(), rows.iter().map(|r| point_values[&r.point][k].clone()).collect::<Vec<_>>()));
        }
        cols.push(Column::new("entity".into(), rows.iter().map(|r| r.entity.as_str()).collect::<Vec<_>>()));
        cols.push(Column::new("metric".into(), rows.iter().map(|r| r.metric.as_str()).collect::<Vec<_>>()));
        cols.push(Column::new("n".into(), rows.iter().map(|r| r.n as u32).collect::<Vec<_>>()));
        cols.push(Column::new("mean".into(), rows.iter().map(|r| r.mean).collect::<Vec<_>>()));
        cols.push(Column::new("sd".into(), rows.iter().map(|r| r.sd).collect::<Vec<_>>()));
        cols.push(Column::new("ci95_low".into(), rows.iter().map(|r| r.mean - r.half).collect::<Vec<_>>()));
        cols.push(Column::new("ci95_high".into(), rows.iter().map(|r| r.mean + r.half).collect::<Vec<_>>()));
        let mut out = DataFrame::new(rows.len(), cols).map_err(|e| e.to_string())?;
        crate::tables::null_non_finite(&mut out)?;
        let mut bytes = Vec::new();
        ParquetWriter::new(&mut bytes).finish(&mut out).map_err(|e| e.to_string())?;
        files.push((format!("{table}.parquet"), bytes));
        let headline = match table {
            "flows" => "goodput_bps",
            "links" | "model" => "utilization",
            _ => continue,
        };
        let _ = writeln!(digest, "\n{table}: {headline}, mean ± 95% CI across replicates");
        for r in rows.iter().filter(|r| r.metric == headline) {
            let at: Vec<String> = keys.iter().zip(&point_values[&r.point]).map(|(k, v)| format!("{k}={v}")).collect();
            let number = |x: f64| if x.is_finite() { format!("{x:.6}") } else { "-".to_string() };
            let _ = writeln!(
                digest,
                "  point {:>4} [{}] {:<16} {:>14} ± {:<12} (n = {})",
                r.point,
                at.join(", "),
                r.entity,
                number(r.mean),
                number(r.half),
                r.n
            );
        }
    }
    output::write(&summary_dir, target, &files)?;
    let written: Vec<&str> = files.iter().map(|(name, _)| name.trim_end_matches(".parquet")).collect();
    if written.is_empty() {
        let _ = writeln!(digest, "\nno table to summarize: no run of this dataset succeeded (their errors are in runs/)");
    } else {
        let _ = writeln!(digest, "\nwritten: {}/summary/{{{}}}.parquet", dir.display(), written.join(","));
    }
    Ok(digest)
}
