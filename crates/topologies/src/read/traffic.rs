//! `[[traffic]]` tables: a generator's law and parameters, as declared; the flows are drawn in
//! [`crate::expand`].

use std::sync::Arc;

use mptcp_cc::Algorithm;
use sim_core::Time;
use toml::Value;

use super::flows::StartModel;
use super::flows::{PathDecl, Subflows, read_cc, read_size, read_start, read_subflows};
use super::reader::{Reader, type_name};
use super::settings::read_tcp;
use crate::error::Result;
use crate::model::TcpModel;
use crate::units::{SizeValue, parse_size};

/// The `kind`s a `[[traffic]]` table accepts (see `expand::traffic`).
pub const KINDS: &[&str] = &["onoff", "poisson", "permutation"];

/// One `[[traffic]]` table.
#[derive(Clone, Debug)]
pub struct TrafficDecl {
    /// The generator's name, which prefixes its flows' names and names its random streams.
    pub name: String,
    /// Key path for messages (`traffic.<name>`).
    pub key: String,
    /// Every generated flow's window law (shared with them).
    pub cc: Arc<Algorithm>,
    /// Every generated flow's `tcp` table (shared with them).
    pub tcp: Arc<TcpModel>,
    /// The law of the flows.
    pub kind: TrafficKind,
}

/// The generators.
#[derive(Clone, Debug)]
pub enum TrafficKind {
    /// Sources alternating between active periods (a new bulk connection each) and idle ones.
    OnOff {
        /// Mean active period.
        on: Time,
        /// Mean idle period.
        off: Time,
        /// Periods uniform on [0, 2 × mean] (htsim's) instead of exponential.
        uniform: bool,
        /// Number of sources.
        sources: u64,
        /// When the generator starts.
        start: Time,
        /// When it stops (`None`: the end of the run).
        stop: Option<Time>,
        /// The paths of each source's connections (copy index = source index).
        paths: PathDecl,
    },
    /// Flows arriving as a Poisson process from each sender.
    Poisson {
        /// Mean time between a sender's flows.
        interval: Time,
        /// Bulk flows living uniformly between these durations, or `None` for sized flows.
        lifetime: Option<(Time, Time)>,
        /// The flows' sizes, when they are sized.
        sizes: Option<SizeDistribution>,
        /// When the generator starts.
        start: Time,
        /// When it stops (`None`: the end of the run).
        stop: Option<Time>,
        /// Along given paths (one sender) or between the hosts of a topology.
        target: PoissonTarget,
    },
    /// Every sender opens one flow to its partner in a random derangement of the hosts.
    Permutation {
        /// Which hosts send.
        senders: Senders,
        /// Subflows per flow, on random equal-cost paths.
        subflows: Option<Subflows>,
        /// Transfer size (`None`: bulk).
        size: Option<SizeValue>,
        /// When the flows start.
        start: StartModel,
        /// When they stop.
        stop: Option<Time>,
    },
}

/// Where a Poisson generator's flows go.
#[derive(Clone, Debug)]
pub enum PoissonTarget {
    /// Along written paths or a route: one sender.
    Paths(PathDecl),
    /// From each chosen host of the topology.
    Hosts {
        /// Which hosts send.
        senders: Senders,
        /// Each sender to its partner in the run's derangement (else to a random other host).
        permutation: bool,
        /// Subflows per flow, on random equal-cost paths.
        subflows: Option<Subflows>,
    },
}

/// The hosts a host-to-host generator's flows come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Senders {
    /// Every host.
    All,
    /// `senders = "h0-h42"`, as written (checked against the topology's hosts when expanded).
    Range(String),
    /// `senders = { share = [from, to] }`: that share of the hosts in a run-wide random order.
    Share(f64, f64),
}

/// How big the flows of a Poisson generator are, bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDistribution {
    /// Every flow this size.
    Fixed(f64),
    /// Exponential with this mean.
    Exponential(f64),
    /// Pareto with this scale (minimum) and shape.
    Pareto {
        /// Minimum size.
        scale: f64,
        /// Shape, above 1.
        shape: f64,
    },
}

/// Reads one `[[traffic]]` table; `mss` sizes the `pkt` unit.
pub(super) fn read_traffic(mut t: Reader, mss: u32) -> Result<TrafficDecl> {
    let name = t.required_string("name")?.to_string();
    let kind = t.choice("kind", &[("onoff", 0), ("poisson", 1), ("permutation", 2)])?;
    let Some(kind) = kind else { return Err(t.missing("kind", format!("missing; expected one of {}", KINDS.join(", ")))) };
    let cc = read_cc(&mut t)?;
    let tcp = match t.table("tcp")? {
        Some(table) => read_tcp(table)?,
        None => TcpModel::default(),
    };
    let kind = match kind {
        0 => onoff(&mut t)?,
        1 => poisson(&mut t, mss)?,
        _ => permutation(&mut t)?,
    };
    let key = t.path().to_string();
    t.finish()?;
    Ok(TrafficDecl { name, key, cc: Arc::new(cc), tcp: Arc::new(tcp), kind })
}

/// A required positive mean time.
fn mean_time(t: &mut Reader, key: &'static str, what: &str) -> Result<Time> {
    match t.time(key)? {
        Some(m) if m > Time::ZERO => Ok(m),
        Some(_) => Err(t.error(key, "must be longer than zero")),
        None => Err(t.missing(key, format!("missing; expected the mean {what}, such as \"5s\""))),
    }
}

/// The window `[start, stop)` in which a generator is active.
fn window(t: &mut Reader) -> Result<(Time, Option<Time>)> {
    let start = t.time("start")?.unwrap_or(Time::ZERO);
    let stop = t.time("stop")?;
    if let Some(s) = stop
        && s <= start
    {
        return Err(t.error("stop", format!("must be after start ({start}), got {s}")));
    }
    Ok((start, stop))
}

fn onoff(t: &mut Reader) -> Result<TrafficKind> {
    let on = mean_time(t, "on", "active period")?;
    let off = mean_time(t, "off", "idle period")?;
    let uniform = t.choice("periods", &[("exponential", false), ("uniform", true)])?.unwrap_or(false);
    let sources = t.bounded("count", 1..=100_000, "sources")?.unwrap_or(1);
    let (start, stop) = window(t)?;
    let paths = PathDecl::read(t)?;
    Ok(TrafficKind::OnOff { on, off, uniform, sources, start, stop, paths })
}

/// `duration = { uniform = ["1s", "30s"] }`: how long bulk flows of a Poisson generator live.
fn read_lifetime(t: &mut Reader) -> Result<Option<(Time, Time)>> {
    let Some(mut d) = t.table("duration")? else { return Ok(None) };
    let shape = "expected duration = { uniform = [\"1s\", \"30s\"] }";
    let (lo, hi) = d.interval("uniform", shape)?.ok_or_else(|| d.missing("uniform", shape))?;
    if hi == Time::ZERO {
        return Err(d.error("uniform", "expected positive durations"));
    }
    d.finish()?;
    Ok(Some((lo, hi)))
}

impl SizeDistribution {
    fn read(t: &mut Reader, mss: u32) -> Result<SizeDistribution> {
        let shape_hint = "expected a size (\"70KB\"), { exponential = \"70KB\" } or { pareto = \"70KB\", shape = 1.5 } (means)";
        match t.value("size") {
            None => Err(t.missing("size", format!("missing; {shape_hint}"))),
            Some(Value::String(_)) => Ok(SizeDistribution::Fixed(read_size(t)?.expect("present").bytes(mss))),
            Some(Value::Table(_)) => {
                let mut d = t.table("size")?.expect("present");
                let mean = |d: &Reader, v: Option<&Value>, key: &str| -> Result<f64> {
                    let text = v.and_then(Value::as_str).ok_or_else(|| d.error(key, "expected the mean size, such as \"70KB\""))?;
                    let b = parse_size(text).map_err(|m| d.error(key, m))?.bytes(mss);
                    if b >= 1.0 { Ok(b) } else { Err(d.error(key, "must be at least one byte")) }
                };
                let dist = if let Some(v) = d.value("exponential") {
                    SizeDistribution::Exponential(mean(&d, Some(v), "exponential")?)
                } else if let Some(v) = d.value("pareto") {
                    let m = mean(&d, Some(v), "pareto")?;
                    let shape = d.number("shape")?.ok_or_else(|| d.missing("shape", "missing; expected the Pareto shape, above 1"))?;
                    if !(shape > 1.0 && shape.is_finite()) {
                        return Err(d.error("shape", format!("expected a shape above 1 (a finite mean), got {shape}")));
                    }
                    SizeDistribution::Pareto { scale: m * (shape - 1.0) / shape, shape }
                } else {
                    return Err(d.missing("exponential", shape_hint));
                };
                d.finish()?;
                Ok(dist)
            }
            Some(v) => Err(t.error("size", format!("{shape_hint}, got {}", type_name(v)))),
        }
    }
}

fn read_senders(t: &mut Reader) -> Result<Senders> {
    match t.value("senders") {
        None => Ok(Senders::All),
        Some(Value::String(range)) => Ok(Senders::Range(range.clone())),
        Some(Value::Table(_)) => {
            let mut share = t.table("senders")?.expect("present");
            let shape = "expected share = [from, to], fractions with 0 ≤ from < to ≤ 1, such as [0.0, 0.3333]";
            let bounds: Option<Vec<f64>> = share
                .value("share")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))).collect());
            let (from, to) = match bounds.as_deref() {
                Some(&[a, b]) if 0.0 <= a && a < b && b <= 1.0 => (a, b),
                _ => return Err(share.error("share", shape)),
            };
            share.finish()?;
            Ok(Senders::Share(from, to))
        }
        Some(v) => Err(t.error("senders", format!("expected a range \"h0-h42\" or {{ share = [0.0, 0.3333] }}, got {}", type_name(v)))),
    }
}

/// Subflows per generated flow: one (a single-path flow on a random equal-cost path) unless set.
fn subflows(t: &mut Reader) -> Result<Option<Subflows>> {
    read_subflows(t, Some(1))
}

fn poisson(t: &mut Reader, mss: u32) -> Result<TrafficKind> {
    let interval = mean_time(t, "interval", "time between a sender's flows")?;
    let lifetime = read_lifetime(t)?;
    let sizes = match lifetime {
        Some(_) if t.table_ref().contains_key("size") => {
            return Err(t.error("duration", "give a flow's `size` or its `duration`, not both"));
        }
        Some(_) => None,
        None => Some(SizeDistribution::read(t, mss)?),
    };
    let (start, stop) = window(t)?;
    // Between hosts of a topology, or along a route or written paths (one sender).
    let host_based = t.table_ref().get("route").is_none() && t.table_ref().get("paths").is_none();
    let target = if host_based {
        let senders = read_senders(t)?;
        let permutation = t.choice("destination", &[("permutation", true), ("random", false)])?.unwrap_or(true);
        PoissonTarget::Hosts { senders, permutation, subflows: subflows(t)? }
    } else {
        PoissonTarget::Paths(PathDecl::read(t)?)
    };
    Ok(TrafficKind::Poisson { interval, lifetime, sizes, start, stop, target })
}

fn permutation(t: &mut Reader) -> Result<TrafficKind> {
    let senders = read_senders(t)?;
    let subflows = subflows(t)?;
    let size = read_size(t)?;
    let start = read_start(t)?;
    let stop = t.time("stop")?;
    Ok(TrafficKind::Permutation { senders, subflows, size, start, stop })
}
