//! The papers' metrics, computed from a run's records: one [`Metric`] row per (metric, group).
//!
//! Flow groups are the `[[flow]]` and `[[traffic]]` tables (by name), plus `all`; link groups
//! are a generator's groups (`core`, `aggregation`, `host`, …). What needs naming, the links of
//! a loss-rate ratio and the subflow whose convergence is timed, comes from `[metrics]`.

use tcp::{FlowRecord, RunOutput};

use crate::error::{Result, ScenarioError};
use crate::model::{ConvergenceModel, Scenario};

/// One computed metric: a row of the run's metrics table.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// What is measured (`jain_index`, `completion_mean`, …).
    pub metric: &'static str,
    /// Over which flows or links (`all`, a flow table's name, a link group, `middle/top`).
    pub group: String,
    /// The value; `None` where the quantity does not exist (a Jain index of flows that all
    /// delivered nothing, a ratio over zero, a convergence not reached): never infinite or NaN,
    /// so that tables hold a null and the terminal a dash.
    pub value: Option<f64>,
    /// Its unit (`s`, `bit/s`, `1` for ratios and fractions, `count`).
    pub unit: &'static str,
}

/// Every metric this module computes, with its unit and meaning (for docs/results.md and `--help`).
pub const METRICS: &[(&str, &str, &str)] = &[
    ("flows", "count", "flows in the group"),
    ("goodput_mean", "bit/s", "mean goodput of the group's flows, after the warm-up"),
    ("goodput_total", "bit/s", "their sum"),
    ("jain_index", "1", "Jain's fairness index of their goodputs, (Σx)²/(n·Σx²)"),
    ("best_to_worst", "1", "largest goodput over smallest (seed 001 Fig. 4)"),
    ("timeouts", "count", "retransmission timeouts after the warm-up"),
    ("relative_drop", "1", "window oscillation: mean relative throughput drop per loss event (seed 000 §III-F)"),
    (
        "cc_state_mean",
        "1",
        "mean over the time series after the warm-up of the window law's state on each flow's first subflow (LIA's a, seed 001 Fig. 12); null without one",
    ),
    ("completed", "count", "finite flows started after the warm-up that completed"),
    ("incomplete", "count", "finite flows started after the warm-up still running at the end"),
    ("completion_mean", "s", "their completion times: mean"),
    ("completion_std", "s", "standard deviation"),
    ("completion_p50", "s", "median"),
    ("completion_p90", "s", "90th percentile"),
    ("completion_p99", "s", "99th percentile"),
    ("download_rate_mean", "bit/s", "their sizes over their completion times: mean (a download's throughput as the papers report it)"),
    ("utilization_mean", "1", "mean utilization of the links of a generator's link group (the `core` group: network-core utilization)"),
    ("loss_rate", "1", "drops over packets offered (arrivals, and those queued at the warm-up), over a link group's links together"),
    ("loss_ratio", "1", "loss rate of the first link over the second's ([metrics] loss_ratio)"),
    (
        "convergence_time",
        "s",
        "seed 000 footnote 2: time after `after` until the subflow's window first reaches its mean over `reference` ([metrics] convergence); null if not before the run ends",
    ),
    (
        "converged",
        "count",
        "1 if that window reached its reference before the run ended, 0 if not (convergence_time is then null); null without samples",
    ),
];

impl Scenario {
    /// Cross-checks `[metrics]` against the links and flows (called when the scenario is built).
    pub(crate) fn check_metrics(&self) -> Result<()> {
        for (a, b) in &self.metrics.loss_ratios {
            for name in [a, b] {
                if !self.links.iter().any(|l| &l.name == name) {
                    return Err(ScenarioError::new(&self.file, "metrics.loss_ratio", format!("no link named \"{name}\"")));
                }
            }
        }
        for (i, c) in self.metrics.convergence.iter().enumerate() {
            let key = format!("metrics.convergence[{i}]");
            let Some(flow) = self.flows.iter().find(|f| f.name == c.flow) else {
                return Err(ScenarioError::new(&self.file, format!("{key}.flow"), format!("no flow named \"{}\"", c.flow)));
            };
            if c.subflow as usize >= flow.paths.len() {
                return Err(ScenarioError::new(
                    &self.file,
                    format!("{key}.subflow"),
                    format!("flow \"{}\" has {} subflows", c.flow, flow.paths.len()),
                ));
            }
            if self.sim.sample_interval.is_none() {
                return Err(ScenarioError::new(
                    &self.file,
                    "sim.sample_interval",
                    "a convergence time needs the time series: set sim.sample_interval",
                ));
            }
        }
        Ok(())
    }

    /// Every metric of run `out` of this scenario.
    pub fn metrics(&self, out: &RunOutput) -> Vec<Metric> {
        let mut rows = Vec::new();
        let warmup = self.sim.warmup.as_secs_f64();
        // Flow groups in the order their tables appear, then every flow together.
        let mut groups: Vec<&str> = Vec::new();
        for f in &self.flows {
            if !groups.contains(&&*f.key) {
                groups.push(&f.key);
            }
        }
        let states = cc_state_sums(out, warmup);
        for key in groups.iter().copied().map(Some).chain([None]) {
            let in_group = |m: &crate::model::FlowModel| key.is_none_or(|k| &*m.key == k);
            let members: Vec<&FlowRecord> = self.flows.iter().zip(&out.flows).filter(|(m, _)| in_group(m)).map(|(_, r)| r).collect();
            let group = key.map_or("all".to_string(), |k| k.split_once('.').map_or(k, |(_, name)| name).to_string());
            flow_metrics(&mut rows, &group, &members, warmup);
            let (sum, n) =
                self.flows.iter().zip(&states).filter(|(m, _)| in_group(m)).fold((0.0, 0u64), |(s, n), (_, &(x, k))| (s + x, n + k));
            push(&mut rows, "cc_state_mean", &group, if n > 0 { sum / n as f64 } else { f64::NAN });
        }
        let mut link_groups: Vec<&str> = Vec::new();
        for l in &self.links {
            if !l.group.is_empty() && !link_groups.contains(&l.group.as_str()) {
                link_groups.push(&l.group);
            }
        }
        for group in link_groups {
            let links: Vec<_> = self.links.iter().zip(&out.links).filter(|(m, _)| m.group == group).map(|(_, r)| r).collect();
            let n = links.len() as f64;
            let utilization = links.iter().map(|l| l.utilization).sum::<f64>() / n;
            let offered: u64 = links.iter().map(|l| l.offered).sum();
            let drops: u64 = links.iter().map(|l| l.queue_drops + l.random_losses + l.down_drops).sum();
            push(&mut rows, "utilization_mean", group, utilization);
            push(&mut rows, "loss_rate", group, if offered > 0 { drops as f64 / offered as f64 } else { 0.0 });
        }
        for (a, b) in &self.metrics.loss_ratios {
            let rate = |name: &str| out.links.iter().find(|l| l.link == name).map_or(f64::NAN, |l| l.loss_rate);
            push(&mut rows, "loss_ratio", &format!("{a}/{b}"), rate(a) / rate(b));
        }
        for c in &self.metrics.convergence {
            let value = self.flows.iter().position(|f| f.name == c.flow).map_or(f64::NAN, |i| convergence_time(out, i as u32, c));
            let group = format!("{}.{}", c.flow, c.subflow);
            push(&mut rows, "convergence_time", &group, value);
            push(&mut rows, "converged", &group, if value.is_nan() { f64::NAN } else { f64::from(u8::from(value.is_finite())) });
        }
        rows
    }
}

/// Per flow, the sum and the number of its first subflow's window-law states sampled after the
/// warm-up: one pass over the time series, shared by every group.
fn cc_state_sums(out: &RunOutput, warmup: f64) -> Vec<(f64, u64)> {
    let mut sums = vec![(0.0, 0u64); out.flows.len()];
    for s in out.samples.iter().filter(|s| s.subflow == 0 && s.time_s >= warmup) {
        if let (Some(x), Some(sum)) = (s.cc_state, sums.get_mut(s.flow as usize)) {
            *sum = (sum.0 + x, sum.1 + 1);
        }
    }
    sums
}

/// Adds a row; a value that is not finite (a ratio over zero, a mean of nothing) does not
/// exist, and is stored as such.
fn push(rows: &mut Vec<Metric>, metric: &'static str, group: &str, value: f64) {
    let unit = METRICS.iter().find(|(m, _, _)| *m == metric).map_or("1", |(_, u, _)| *u);
    rows.push(Metric { metric, group: group.to_string(), value: value.is_finite().then_some(value), unit });
}

/// Jain's index (Σx)²/(n·Σx²): 1 when all are equal, 1/n when one takes everything.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|x| x * x).sum();
    if squares > 0.0 { sum * sum / (xs.len() as f64 * squares) } else { f64::NAN }
}

/// The `q`-quantile of sorted `xs` (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn flow_metrics(rows: &mut Vec<Metric>, group: &str, flows: &[&FlowRecord], warmup: f64) {
    push(rows, "flows", group, flows.len() as f64);
    // Bulk flows: finite flows' goodputs measure their transfers, not their shares.
    let goodputs: Vec<f64> = flows.iter().filter(|f| f.size_bytes.is_none()).map(|f| f.goodput_bps).collect();
    if !goodputs.is_empty() {
        let total: f64 = goodputs.iter().sum();
        push(rows, "goodput_mean", group, total / goodputs.len() as f64);
        push(rows, "goodput_total", group, total);
        push(rows, "jain_index", group, jain_index(&goodputs));
        let (lo, hi) = goodputs.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        push(rows, "best_to_worst", group, hi / lo);
    }
    push(rows, "timeouts", group, flows.iter().map(|f| f.timeouts).sum::<u64>() as f64);
    let drops: Vec<f64> = flows.iter().filter_map(|f| f.mean_relative_drop).collect();
    if !drops.is_empty() {
        push(rows, "relative_drop", group, drops.iter().sum::<f64>() / drops.len() as f64);
    }
    let finite: Vec<&&FlowRecord> = flows.iter().filter(|f| f.size_bytes.is_some() && f.start_s >= warmup).collect();
    if finite.is_empty() {
        return;
    }
    let mut times: Vec<f64> = finite.iter().filter_map(|f| f.completion_time_s).collect();
    times.sort_by(f64::total_cmp);
    push(rows, "completed", group, times.len() as f64);
    push(rows, "incomplete", group, (finite.len() - times.len()) as f64);
    if times.is_empty() {
        return;
    }
    let n = times.len() as f64;
    let mean = times.iter().sum::<f64>() / n;
    let var = times.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / n;
    push(rows, "completion_mean", group, mean);
    push(rows, "completion_std", group, var.sqrt());
    push(rows, "completion_p50", group, quantile(&times, 0.5));
    push(rows, "completion_p90", group, quantile(&times, 0.9));
    push(rows, "completion_p99", group, quantile(&times, 0.99));
    let rates: Vec<f64> =
        finite.iter().filter_map(|f| Some(f.size_bytes? as f64 * 8.0 / f.completion_time_s.filter(|&t| t > 0.0)?)).collect();
    if !rates.is_empty() {
        push(rows, "download_rate_mean", group, rates.iter().sum::<f64>() / rates.len() as f64);
    }
}

/// Seed 000 footnote 2 on the time series: the reference is the subflow's mean window over
/// the reference interval; the convergence time is how long after `after` the window first
/// reaches it: infinite if it never does before the run ends (the run is too short to see it
/// converge, which is itself the finding "slow to recover": the `converged` row keeps it), NaN
/// without samples.
fn convergence_time(out: &RunOutput, flow: u32, c: &ConvergenceModel) -> f64 {
    let (from, to) = (c.reference.0.as_secs_f64(), c.reference.1.as_secs_f64());
    let after = c.after.as_secs_f64();
    let series = out.samples.iter().filter(|s| s.flow == flow && s.subflow == c.subflow);
    let reference: Vec<f64> = series.clone().filter(|s| s.time_s >= from && s.time_s < to).map(|s| s.cwnd_pkts).collect();
    if reference.is_empty() {
        return f64::NAN;
    }
    let mean = reference.iter().sum::<f64>() / reference.len() as f64;
    let mut later = series.filter(|s| s.time_s >= after).peekable();
    if later.peek().is_none() {
        return f64::NAN;
    }
    later.find(|s| s.cwnd_pkts >= mean).map_or(f64::INFINITY, |s| s.time_s - after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1+2+3)² / (3·14) = 36/42.
        assert!((jain_index(&[1.0, 2.0, 3.0]) - 36.0 / 42.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let xs: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&xs, 0.5), 50.0);
        assert_eq!(quantile(&xs, 0.9), 90.0);
        assert_eq!(quantile(&xs, 0.99), 99.0);
        assert_eq!(quantile(&xs, 1.0), 100.0);
        assert_eq!(quantile(&[7.0], 0.5), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
