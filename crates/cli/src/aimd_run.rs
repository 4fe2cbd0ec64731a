//! Runs of seed 004's abstract AIMD model: its two tables and its terminal summary.
//!
//! - `model.parquet`, one row: `policy`, `connections`, `capacity`, `events`, `time`,
//!   `mean_aggregate` and `aggregate_second_moment` (capacity units, and squared),
//!   `utilization` (mean aggregate ÷ capacity), `theorem1` and `all_formula` (the paper's
//!   predictions of the utilization, for identical connections; null otherwise).
//! - `connections.parquet`, one row per connection: `connection`, `group`, `eta`, `beta`,
//!   `weight`, `mean_rate`, `share` (of the mean aggregate), `second_moment`,
//!   `second_moment_normalized` (÷ capacity²), `signals` (congestion indications received;
//!   taggings under beatdown).

use std::fmt::Write;

use aimd::{Policy, Report, theory};
use polars::prelude::*;
use topologies::AimdScenario;

use crate::summary::number;

/// Theorem 1 and the ALL formula for the model, if its connections are identical.
fn predictions(s: &AimdScenario) -> (Option<f64>, Option<f64>) {
    let c = &s.model.connections;
    if c.windows(2).any(|w| w[0].eta != w[1].eta || w[0].beta != w[1].beta) {
        return (None, None);
    }
    (Some(theory::theorem1(c.len(), c[0].beta)), Some(theory::all(c[0].beta)))
}

/// The model's prediction for this policy: Theorem 1 under ONE, eq. (6) under ALL.
fn prediction(s: &AimdScenario) -> Option<f64> {
    let (one, all) = predictions(s);
    if s.model.policy == Policy::All { all } else { one }
}

/// The tables of a run of the model, in the order [`frames`] makes them.
pub const TABLES: [&str; 2] = topologies::schema::names(topologies::schema::AIMD_TABLES);

/// The two tables of a run.
pub fn frames(s: &AimdScenario, r: &Report) -> PolarsResult<Vec<(&'static str, DataFrame)>> {
    let m = &s.model;
    let c = m.capacity;
    let (theorem1, all) = predictions(s);
    let model = DataFrame::new(
        1,
        vec![
            Column::new("policy".into(), [m.policy.name()]),
            Column::new("connections".into(), [m.connections.len() as u32]),
            Column::new("capacity".into(), [c]),
            Column::new("events".into(), [r.events]),
            Column::new("time".into(), [r.time]),
            Column::new("mean_aggregate".into(), [r.mean_aggregate]),
            Column::new("utilization".into(), [r.utilization(c)]),
            Column::new("aggregate_second_moment".into(), [r.aggregate_second_moment]),
            Column::new("theorem1".into(), [theorem1]),
            Column::new("all_formula".into(), [all]),
        ],
    )?;
    let n = m.connections.len();
    let per = &r.connections;
    let connections = DataFrame::new(
        n,
        vec![
            Column::new("connection".into(), (0..n as u32).collect::<Vec<_>>()),
            Column::new("group".into(), (0..n).map(|i| s.group_of(i)).collect::<Vec<_>>()),
            Column::new("eta".into(), m.connections.iter().map(|x| x.eta).collect::<Vec<_>>()),
            Column::new("beta".into(), m.connections.iter().map(|x| x.beta).collect::<Vec<_>>()),
            Column::new("weight".into(), m.connections.iter().map(|x| x.weight).collect::<Vec<_>>()),
            Column::new("mean_rate".into(), per.iter().map(|x| x.mean_rate).collect::<Vec<_>>()),
            Column::new("share".into(), per.iter().map(|x| x.mean_rate / r.mean_aggregate).collect::<Vec<_>>()),
            Column::new("second_moment".into(), per.iter().map(|x| x.second_moment).collect::<Vec<_>>()),
            Column::new("second_moment_normalized".into(), per.iter().map(|x| x.second_moment / (c * c)).collect::<Vec<_>>()),
            Column::new("signals".into(), per.iter().map(|x| x.signals).collect::<Vec<_>>()),
        ],
    )?;
    Ok(TABLES.into_iter().zip([connections, model]).collect())
}

/// The terminal summary: the aggregate against the paper's formula, then each group.
pub fn render(s: &AimdScenario, r: &Report, wall: f64) -> String {
    let m = &s.model;
    let mut out = String::new();
    let u = r.utilization(m.capacity);
    let _ = writeln!(out, "AIMD model, {} connections, policy {}, {} events measured", m.connections.len(), m.policy.name(), r.events);
    let u5 = number(u, 5);
    match prediction(s) {
        Some(p) => {
            let off = (u / p - 1.0) * 100.0;
            let off = if off.is_finite() { format!("{off:+.3}") } else { "-".into() };
            let _ = writeln!(out, "utilization {u5} (formula {}, {off} %)", number(p, 5));
        }
        None => {
            let _ = writeln!(out, "utilization {u5} (connections differ: no closed form)");
        }
    }
    let _ = writeln!(out, "E[X²]/c² {}\n", number(r.aggregate_second_moment / (m.capacity * m.capacity), 5));
    let _ = writeln!(out, "{:<12} {:>5} {:>12} {:>14} {:>12}", "group", "count", "mean rate/c", "E[x²]/c² each", "signals");
    let mut first = 0;
    for g in &s.groups {
        let rows = &r.connections[first..first + g.count];
        let k = g.count as f64;
        let mean = rows.iter().map(|x| x.mean_rate).sum::<f64>() / k / m.capacity;
        let second = rows.iter().map(|x| x.second_moment).sum::<f64>() / k / (m.capacity * m.capacity);
        let signals: u64 = rows.iter().map(|x| x.signals).sum();
        let _ = writeln!(out, "{:<12} {:>5} {:>12} {:>14} {signals:>12}", g.name, g.count, number(mean, 5), number(second, 5));
        first += g.count;
    }
    let _ = writeln!(out, "\n{} events in {wall:.2} s wall", r.events);
    out
}
