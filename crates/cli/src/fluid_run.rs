//! The fluid model of a scenario: its equilibrium (and trajectory) as the packet run's tables.
//!
//! Columns mean what they mean in a packet run's tables where both have them (`goodput_bps`,
//! `mean_cwnd_pkts`, `utilization`, `loss_rate`, …); columns the fluid model has no counterpart
//! for (retransmissions, timeouts, queue lengths) are absent, and a few are its own:
//! - `flows.parquet`: `flow`, `algorithm`, `subflows`, `goodput_bps` (delivered: Σ x_r(1 − p_r)),
//!   `rate_pps` (sent, packets per second), `unique` (false when two solves split a flow
//!   differently, so its subflow windows and rates are null: seed 001 §3.2; true when they
//!   agree, which a set of equilibria can also give; null when the check could not decide).
//! - `subflows.parquet`: `flow`, `subflow`, `path`, `goodput_bps`, `mean_cwnd_pkts` (the
//!   equilibrium window), `mean_srtt_s` (the RTT: propagation plus the standing queues'
//!   delay), `path_loss` (1 − Π(1 − p_l)).
//! - `links.parquet`: `link`, `rate_bps`, `delay_s`, `utilization` (load over capacity),
//!   `loss_rate` (exogenous and congestion loss), `congestion_loss` (the price), `load_pps`,
//!   `mean_queue_pkts` (the standing queue; 0 with `queueing = "none"`).
//! - `timeseries.parquet` (with `sim.sample_interval`): the trajectory from windows of one
//!   packet at time 0: `time_s`, `flow`, `subflow`, `cwnd_pkts`, `srtt_s` (propagation plus
//!   queueing delay), `send_rate_bps` (w/τ: sent, where a packet run's `rate_bps` counts what
//!   is acknowledged).
//! - `metrics.parquet`: the packet run's metrics that the model defines (`goodput_mean`,
//!   `goodput_total`, `jain_index`, `best_to_worst`, `flows`, `utilization_mean`,
//!   `loss_rate`, `loss_ratio`).
//!
//! Every file's metadata says `equipoise.source = fluid`, the TCP constant used and what was
//! approximated, and, where subflows send less than one packet per round trip,
//! `equipoise.fluid.regime` ([`regime_warning`]).

use std::fmt::Write;

use fluid::{Equilibrium, Trajectory, Uniqueness};
use polars::prelude::*;
use tcp::{FlowRecord, LinkRecord, RunOutput};
use topologies::Scenario;
use topologies::engines::fluid::FluidSystem;
use topologies::metrics::Metric;

use crate::summary::{number, rate};
use crate::tables::col;

/// The metrics of a packet run that the fluid model defines too.
const FLUID_METRICS: [&str; 8] =
    ["flows", "goodput_mean", "goodput_total", "jain_index", "best_to_worst", "utilization_mean", "loss_rate", "loss_ratio"];

/// A flow's or subflow's delivered rate, bits per second.
fn goodput(system: &FluidSystem, rate_pps: f64, path_loss: f64) -> f64 {
    rate_pps * (1.0 - path_loss) * system.packet_bits
}

/// Sent rates of each flow's subflows (zeros where the split is not unique: only totals are).
fn subflow_goodputs(system: &FluidSystem, eq: &Equilibrium) -> Vec<Vec<Option<f64>>> {
    eq.flows.iter().map(|f| f.subflows.iter().map(|s| s.rate.map(|r| goodput(system, r, s.path_loss))).collect()).collect()
}

/// A flow's delivered rate: its subflows' where they are determined, else its total rate less
/// its smallest path loss (a law whose split is not determined, COUPLED's, sends on its least
/// lossy paths only).
fn flow_goodput(system: &FluidSystem, eq: &Equilibrium, f: usize) -> f64 {
    let flow = &eq.flows[f];
    let parts: Option<Vec<f64>> = flow.subflows.iter().map(|s| s.rate.map(|r| goodput(system, r, s.path_loss))).collect();
    parts.map(|p| p.iter().sum()).unwrap_or_else(|| {
        let loss = flow.subflows.iter().map(|s| s.path_loss).fold(f64::INFINITY, f64::min);
        goodput(system, flow.total_rate, loss)
    })
}

/// The packet metrics, computed from the equilibrium as if it were a run's records (only the
/// fields the metrics read carry values), keeping those the fluid model defines.
pub fn metrics(scenario: &Scenario, system: &FluidSystem, eq: &Equilibrium) -> Vec<Metric> {
    let flows = (0..eq.flows.len())
        .map(|f| FlowRecord {
            flow: eq.flows[f].name.as_str().into(),
            algorithm: system.algorithms[f],
            subflows: eq.flows[f].subflows.len() as u32,
            start_s: 0.0,
            goodput_bps: flow_goodput(system, eq, f),
            bytes_delivered: 0,
            packets_sent: 0,
            retransmissions: 0,
            timeouts: 0,
            loss_events: 0,
            size_bytes: None,
            completion_time_s: None,
            mean_relative_drop: None,
        })
        .collect();
    let links = eq
        .links
        .iter()
        .zip(&system.link_bps)
        .map(|(l, &bps)| LinkRecord {
            link: l.name.clone(),
            rate_bps: bps,
            delay_s: 0.0,
            utilization: l.utilization,
            arrivals: 0,
            offered: 0,
            departures: 0,
            queue_drops: 0,
            random_losses: 0,
            down_drops: 0,
            loss_rate: l.loss,
            mean_queue_pkts: 0.0,
            max_queue_pkts: 0,
            mean_queue_bytes: 0.0,
            max_queue_bytes: 0,
        })
        .collect();
    let records = RunOutput { flows, links, ..RunOutput::default() };
    let mut rows: Vec<Metric> = scenario.metrics(&records).into_iter().filter(|m| FLUID_METRICS.contains(&m.metric)).collect();
    // A link group's loss rate is its drops over its arrivals: here the load-weighted mean of
    // its links' loss probabilities (the records above carry no packet counts).
    for row in rows.iter_mut().filter(|m| m.metric == "loss_rate") {
        let (mut load, mut lost) = (0.0, 0.0);
        for (model, l) in scenario.links.iter().zip(&eq.links).filter(|(m, _)| m.group == row.group) {
            debug_assert_eq!(model.name, l.name);
            load += l.load;
            lost += l.load * l.loss;
        }
        row.value = Some(if load > 0.0 { lost / load } else { 0.0 });
    }
    rows
}

/// The tables of an equilibrium (module documentation), in file-name order.
pub fn frames(scenario: &Scenario, system: &FluidSystem, eq: &Equilibrium) -> PolarsResult<Vec<(&'static str, DataFrame)>> {
    let f = &eq.flows;
    let flows = DataFrame::new(
        f.len(),
        vec![
            col("flow", f.iter().map(|r| r.name.as_str()).collect::<Vec<_>>()),
            col("algorithm", system.algorithms.clone()),
            col("subflows", f.iter().map(|r| r.subflows.len() as u32).collect::<Vec<_>>()),
            col("goodput_bps", (0..f.len()).map(|i| flow_goodput(system, eq, i)).collect::<Vec<_>>()),
            col("rate_pps", f.iter().map(|r| r.total_rate).collect::<Vec<_>>()),
            col("unique", f.iter().map(|r| unique(&r.uniqueness)).collect::<Vec<_>>()),
        ],
    )?;
    let goodputs = subflow_goodputs(system, eq);
    let rows: Vec<(usize, usize)> = f.iter().enumerate().flat_map(|(i, r)| (0..r.subflows.len()).map(move |s| (i, s))).collect();
    let sub = |i: usize, s: usize| &f[i].subflows[s];
    let subflows = DataFrame::new(
        rows.len(),
        vec![
            col("flow", rows.iter().map(|&(i, _)| f[i].name.as_str()).collect::<Vec<_>>()),
            col("subflow", rows.iter().map(|&(_, s)| s as u32).collect::<Vec<_>>()),
            col("path", rows.iter().map(|&(i, s)| system.paths[i][s].as_str()).collect::<Vec<_>>()),
            col("goodput_bps", rows.iter().map(|&(i, s)| goodputs[i][s]).collect::<Vec<_>>()),
            col("mean_cwnd_pkts", rows.iter().map(|&(i, s)| sub(i, s).window).collect::<Vec<_>>()),
            col("mean_srtt_s", rows.iter().map(|&(i, s)| sub(i, s).rtt).collect::<Vec<_>>()),
            col("path_loss", rows.iter().map(|&(i, s)| sub(i, s).path_loss).collect::<Vec<_>>()),
        ],
    )?;
    let l = &eq.links;
    let links = DataFrame::new(
        l.len(),
        vec![
            col("link", l.iter().map(|r| r.name.as_str()).collect::<Vec<_>>()),
            col("rate_bps", system.link_bps.clone()),
            col("delay_s", scenario.links.iter().map(|m| m.delay.as_secs_f64()).collect::<Vec<_>>()),
            col("utilization", l.iter().map(|r| r.utilization).collect::<Vec<_>>()),
            col("loss_rate", l.iter().map(|r| r.loss).collect::<Vec<_>>()),
            col("congestion_loss", l.iter().map(|r| r.congestion_loss).collect::<Vec<_>>()),
            col("load_pps", l.iter().map(|r| r.load).collect::<Vec<_>>()),
            col(
                "mean_queue_pkts",
                l.iter().zip(&system.network.links).map(|(r, link)| r.queueing_delay * link.capacity).collect::<Vec<_>>(),
            ),
        ],
    )?;
    let m = metrics(scenario, system, eq);
    let metrics = DataFrame::new(
        m.len(),
        vec![
            col("metric", m.iter().map(|m| m.metric).collect::<Vec<_>>()),
            col("group", m.iter().map(|m| m.group.as_str()).collect::<Vec<_>>()),
            col("value", m.iter().map(|m| m.value).collect::<Vec<_>>()),
            col("unit", m.iter().map(|m| m.unit).collect::<Vec<_>>()),
        ],
    )?;
    Ok(vec![("flows", flows), ("links", links), ("metrics", metrics), ("subflows", subflows)])
}

/// Whether a flow's split is determined: null where the check could not decide.
fn unique(u: &Uniqueness) -> Option<bool> {
    match u {
        Uniqueness::Unique => Some(true),
        Uniqueness::NotUnique { .. } => Some(false),
        Uniqueness::Unknown { .. } | Uniqueness::Unchecked => None,
    }
}

/// The trajectory's samples as the time-series table (module documentation).
pub fn timeseries(system: &FluidSystem, eq: &Equilibrium, t: &Trajectory) -> PolarsResult<DataFrame> {
    let r = &t.rows;
    DataFrame::new(
        r.len(),
        vec![
            col("time_s", r.iter().map(|x| x.time_s).collect::<Vec<_>>()),
            col("flow", r.iter().map(|x| eq.flows[x.flow].name.as_str()).collect::<Vec<_>>()),
            col("subflow", r.iter().map(|x| x.subflow as u32).collect::<Vec<_>>()),
            col("cwnd_pkts", r.iter().map(|x| x.cwnd_pkts).collect::<Vec<_>>()),
            col("srtt_s", r.iter().map(|x| x.srtt_s).collect::<Vec<_>>()),
            col("send_rate_bps", r.iter().map(|x| x.rate_pps * system.packet_bits).collect::<Vec<_>>()),
        ],
    )
}

/// The terminal summary of an equilibrium.
pub fn render(system: &FluidSystem, eq: &Equilibrium, constant: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "fluid equilibrium ({constant} constant, {} iterations)\n", eq.iterations);
    let width = eq.flows.iter().map(|f| f.name.len()).chain([4]).max().unwrap_or(4).min(24);
    let _ = writeln!(s, "{:<width$}  {:<10} {:>12}  subflows: window (pkts), rate, path loss", "flow", "algorithm", "goodput");
    for (i, f) in eq.flows.iter().enumerate().take(20) {
        let parts: Vec<String> = f
            .subflows
            .iter()
            .map(|r| match (r.window, r.rate) {
                (Some(w), Some(x)) => {
                    format!("{}, {}, {}%", number(w, 2), rate(goodput(system, x, r.path_loss)), number(100.0 * r.path_loss, 3))
                }
                _ => format!("—, —, {}%", number(100.0 * r.path_loss, 3)),
            })
            .collect();
        let _ = writeln!(
            s,
            "{:<width$}  {:<10} {:>12}  {}",
            f.name,
            system.algorithms[i],
            rate(flow_goodput(system, eq, i)),
            parts.join(" | ")
        );
        match &f.uniqueness {
            Uniqueness::NotUnique { spread } => {
                let _ = writeln!(
                    s,
                    "{:<width$}  not unique: the equilibria form a set (two solves differ by {:.1} % of the flow's rate in their split); the total is determined",
                    "",
                    100.0 * spread
                );
            }
            Uniqueness::Unknown { reason } => {
                let _ = writeln!(s, "{:<width$}  uniqueness not decided: {reason}", "");
            }
            Uniqueness::Unique | Uniqueness::Unchecked => {}
        }
    }
    if eq.flows.len() > 20 {
        let _ = writeln!(s, "… {} more flows (all in flows.parquet)", eq.flows.len() - 20);
    }
    let width = eq.links.iter().map(|l| l.name.len()).chain([4]).max().unwrap_or(4).min(24);
    let _ = writeln!(s, "\n{:<width$}  {:>12} {:>12} {:>10}", "link", "rate", "utilization", "loss rate");
    for (l, bps) in eq.links.iter().zip(&system.link_bps).take(20) {
        let _ = writeln!(
            s,
            "{:<width$}  {:>12} {:>11}% {:>9}%",
            l.name,
            rate(*bps),
            number(100.0 * l.utilization, 2),
            number(100.0 * l.loss, 4)
        );
    }
    if eq.links.len() > 20 {
        let _ = writeln!(s, "… {} more links (all in links.parquet)", eq.links.len() - 20);
    }
    s
}

/// The equilibrium of `system` (`observe` told each stage of the solve), or an error that says
/// what to try when the solve does not converge: standing queues can be left out (docs/fluid.md,
/// "Where the solver fails").
pub fn solve(system: &FluidSystem, observe: &mut dyn FnMut(fluid::Stage)) -> Result<Equilibrium, String> {
    fluid::equilibrium_observed(&system.network, &system.options, observe)
        .map_err(|e| format!("fluid model: {e}{}", hint(&e, has_queues(system))))
}

/// Whether the model's links hold standing queues (`fluid.queueing`), whose delay is part of
/// the RTTs.
pub fn has_queues(system: &FluidSystem) -> bool {
    system.network.links.iter().any(|l| l.standing_queue.is_some())
}

/// The windows of a flow's subflows in use at equilibrium, packets (0 is a path the law
/// abandons); where its split is not determined, one bound for them all: its total rate times
/// its longest RTT, at least `Σ w_r`.
fn windows_in_use(flow: &fluid::FlowEquilibrium) -> Vec<f64> {
    let known: Option<Vec<f64>> = flow.subflows.iter().map(|s| s.window).collect();
    match known {
        Some(w) => w.into_iter().filter(|&w| w > 0.0).collect(),
        None => vec![flow.total_rate * flow.subflows.iter().map(|s| s.rtt).fold(0.0, f64::max)],
    }
}

/// A warning where subflows send less than one packet per round trip at equilibrium: the
/// packet simulator keeps every window at one packet or more, so its rates cannot follow the
/// model there (seed 002's FatTree without standing queues: Reno's windows are 0.04 to 0.28
/// packets, at path losses of 95 to 99.9 %). `queues`: whether the RTTs include standing queues.
pub fn regime_warning(eq: &Equilibrium, queues: bool) -> Option<String> {
    let below: Vec<Vec<f64>> = eq.flows.iter().map(|f| windows_in_use(f).into_iter().filter(|&w| w < 1.0).collect::<Vec<f64>>()).collect();
    let flows = below.iter().filter(|b| !b.is_empty()).count();
    let fewest = below.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    let hint = if queues { "" } else { " (the RTTs here leave out queueing delay: `fluid.queueing = \"standing\"` adds it)" };
    (flows > 0).then(|| {
        format!(
            "{flows} of {} flows have subflows sending less than one packet per round trip at the equilibrium (the fewest \
             {fewest:.2}): the packet simulator keeps every window at one packet or more, so its rates will not follow the \
             fluid model's there{hint}",
            eq.flows.len()
        )
    })
}

/// What to try after error `e`, for a network with or without standing queues.
fn hint(e: &fluid::FluidError, queues: bool) -> &'static str {
    match e {
        fluid::FluidError::NotConverged { .. } if queues => {
            " (with `--set fluid.queueing=none` the RTTs are the propagation ones, without standing queues; docs/fluid.md lists where the solver fails)"
        }
        fluid::FluidError::NotConverged { .. } => " (docs/fluid.md lists where the solver fails)",
        _ => "",
    }
}

/// The name of the TCP constant `options` use, for the summary and the files' metadata.
pub fn constant_name(options: &fluid::Options) -> &'static str {
    match options.constant {
        fluid::TcpConstant::Papers => "papers (√(2/p))",
        fluid::TcpConstant::Packet => "packet (√(3/(2p)))",
        fluid::TcpConstant::PacketDelayedAck => "packet with delayed ACKs (√(3/(4p)))",
    }
}

/// The fluid model's run of `scenario` (`system`, its network): the equilibrium, and the
/// trajectory when the scenario samples, as the tables of a run; with `progress`, each stage of
/// the solver shown on a terminal.
pub fn run(file: &std::path::Path, scenario: &Scenario, system: &FluidSystem, progress: bool) -> Result<crate::engine::Run, String> {
    let started = std::time::Instant::now();
    let mut stages = crate::progress::FluidStages::start();
    let mut observe = |stage: fluid::Stage| {
        if progress {
            stages.observe(stage);
        }
    };
    let eq = solve(system, &mut observe).map_err(|e| format!("{}: {e}", file.display()))?;
    drop(stages);
    let regime = regime_warning(&eq, has_queues(system));
    let constant = constant_name(&system.options);
    let name = file.display().to_string();
    let mut provenance =
        crate::tables::Provenance::of(crate::tables::Source::Fluid, name.clone(), scenario.text.clone(), scenario.sim.seed);
    provenance.notes.push(("fluid.constant".into(), constant.into()));
    provenance.notes.extend(system.warnings.iter().enumerate().map(|(i, w)| (format!("fluid.approximation.{i}"), w.clone())));
    provenance.notes.extend(regime.iter().map(|w| ("fluid.regime".to_string(), w.clone())));
    let mut tables = frames(scenario, system, &eq).map_err(|e| e.to_string())?;
    if let Some(dt) = scenario.sim.sample_interval {
        let options = fluid::TrajectoryOptions {
            integrator: system.integrator,
            ..fluid::TrajectoryOptions::new(scenario.sim.duration.as_secs_f64(), dt.as_secs_f64())
        };
        let t = fluid::trajectory(&system.network, &system.options, options).map_err(|e| format!("{name}: fluid trajectory: {e}"))?;
        tables.push(("timeseries", timeseries(system, &eq, &t).map_err(|e| e.to_string())?));
    }
    let wall = started.elapsed().as_secs_f64();
    let title = scenario.meta.name.as_deref().unwrap_or("scenario");
    let mut text = format!("{title} ({name}), fluid model\n\n");
    text.push_str(&render(system, &eq, constant));
    text.push_str(&crate::summary::render_metrics(&metrics(scenario, system, &eq)));
    text.push_str(&format!("\nsolved in {wall:.3} s\n"));
    Ok(crate::engine::Run {
        tables,
        files: Vec::new(),
        captured: Vec::new(),
        provenance,
        summary: text,
        warnings: regime.map(|w| format!("{name}: {w}")).into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::{hint, regime_warning};
    use fluid::{Equilibrium, FlowEquilibrium, SubflowEquilibrium, Uniqueness};

    fn flow(windows: &[Option<f64>], total_rate: f64) -> FlowEquilibrium {
        let subflows = windows.iter().map(|&window| SubflowEquilibrium { window, rate: None, path_loss: 0.5, rtt: 0.01 }).collect();
        FlowEquilibrium { name: "f".into(), total_rate, uniqueness: Uniqueness::Unique, subflows }
    }

    #[test]
    fn subflows_below_one_packet_per_round_trip_are_warned_of() {
        let eq = |flows| Equilibrium { flows, links: vec![], iterations: 0 };
        // A subflow of 0.4 packets beside one of 3 (an abandoned path, 0, does not count); a
        // split not determined, at 50 packets/s over 10 ms RTTs (at most 0.5 packets); and a
        // flow of 2 packets on each path.
        let low =
            eq(vec![flow(&[Some(3.0), Some(0.4), Some(0.0)], 400.0), flow(&[None, None], 50.0), flow(&[Some(2.0), Some(2.0)], 400.0)]);
        let w = regime_warning(&low, false).expect("two flows with subflows below one packet");
        assert!(w.starts_with("2 of 3 flows") && w.contains("the fewest 0.40") && w.contains("fluid.queueing"), "{w}");
        assert!(!regime_warning(&low, true).unwrap().contains("fluid.queueing"));
        assert_eq!(regime_warning(&eq(vec![flow(&[Some(1.0), Some(0.0)], 100.0)]), false), None);
    }

    #[test]
    fn a_solve_that_does_not_converge_with_queues_suggests_leaving_them_out() {
        let e = fluid::FluidError::NotConverged { worst: "flow \"f\"".into(), residual: 1e-3, iterations: 40 };
        assert!(hint(&e, true).contains("--set fluid.queueing=none") && hint(&e, true).contains("where the solver fails"));
        assert!(!hint(&e, false).contains("queueing") && hint(&e, false).contains("where the solver fails"));
        assert_eq!(hint(&fluid::FluidError::InvalidNetwork("x".into()), true), "");
    }
}
