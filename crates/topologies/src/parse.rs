//! From TOML text to the plain [`Scenario`] model: types, units, unknown keys, name expansion.

use sim_core::Time;
use sim_core::threshold::DropperPolicy;
use tcp::{Profile, SETTINGS, SettingKind, SettingValue};
use toml::{Table, Value};

use crate::build::{MAX_FLOWS, MAX_LINKS};
use crate::error::{Result, ScenarioError, suggestion};
use crate::flows::{Routing, read_flows};
use crate::generate::read_topology;
use crate::metrics::read_metrics;
use crate::model::{LinkModel, Meta, MetricsModel, QueueModel, Scenario, SimModel, TcpModel};
use crate::reader::{Reader, type_name};
use crate::traffic::read_traffic;
use crate::units::{BufferValue, RateValue, SizeValue};

/// Top-level tables of a scenario.
pub const SECTIONS: &[&str] = &["meta", "sim", "tcp", "topology", "link", "flow", "traffic", "metrics", "quick", "aimd"];

/// Parses scenario `text` read from `file` as TOML; a syntax error keeps the parser's line
/// and column.
pub fn parse_text(file: &str, text: &str) -> Result<Table> {
    text.parse::<Table>().map_err(|e| ScenarioError::new(file, "", format!("not valid TOML: {}", e.to_string().trim_end())))
}

/// Reads the model out of a parsed scenario `root` from `file`.
pub fn read_scenario(file: &str, root: &Table) -> Result<Scenario> {
    let mut top = Reader::new(file, "", root);
    let meta = match top.table("meta")? {
        Some(t) => read_meta(t)?,
        None => Meta::default(),
    };
    let sim = match top.table("sim")? {
        Some(t) => read_sim(t)?,
        None => return Err(top.missing("sim", "missing; every scenario needs a [sim] table with at least `duration`")),
    };
    let tcp = match top.table("tcp")? {
        Some(t) => read_tcp(t)?,
        None => TcpModel::default(),
    };
    let topology = match top.table("topology")? {
        Some(t) => Some(read_topology(t)?),
        None => None,
    };
    let mut links = topology.as_ref().map(|t| t.links.clone()).unwrap_or_default();
    links.extend(read_array(&mut top, "link", MAX_LINKS, read_links)?);
    let routing = Routing { topology: topology.as_ref(), seed: sim.seed, mss: sim.mss };
    let mut flows = read_array(&mut top, "flow", MAX_FLOWS, |t| read_flows(t, routing))?;
    flows.extend(read_array(&mut top, "traffic", MAX_FLOWS, |t| read_traffic(t, routing, sim.duration))?);
    let metrics = match top.table("metrics")? {
        Some(t) => read_metrics(t)?,
        None => MetricsModel::default(),
    };
    // `[quick]` is read by `quick_sets` before the scenario is.
    top.value("quick");
    top.finish()?;
    if links.is_empty() {
        return Err(ScenarioError::new(file, "link", "no links; add at least one [[link]] table or a [topology]"));
    }
    if flows.is_empty() {
        return Err(ScenarioError::new(file, "flow", "no flows; add at least one [[flow]] or [[traffic]] table"));
    }
    let text = toml::to_string(root).map_err(|e| ScenarioError::new(file, "", e.to_string()))?;
    Ok(Scenario { file: file.to_string(), text, meta, sim, tcp, links, flows, metrics })
}

/// Reads the array of tables `key`, each with `read` into some items (a counted table expands
/// to several), concatenated; refuses more than `limit` items in all before reading the table
/// that would pass it (so counts never allocate beyond it).
fn read_array<T>(top: &mut Reader, key: &'static str, limit: usize, mut read: impl FnMut(Reader) -> Result<Vec<T>>) -> Result<Vec<T>> {
    let file = top.file();
    let Some(v) = top.value(key) else { return Ok(Vec::new()) };
    let Value::Array(items) = v else {
        return Err(top.error(key, format!("expected an array of tables ([[{key}]]), got {}", type_name(v))));
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Table(t) = item else {
            return Err(ScenarioError::new(file, format!("{key}[{i}]"), format!("expected a table, got {}", type_name(item))));
        };
        // Name tables by their `name` where possible: the same key path `--set` uses.
        let path = match t.get("name").and_then(Value::as_str) {
            Some(name) => format!("{key}.{name}"),
            None => format!("{key}[{i}]"),
        };
        let items = read(Reader::new(file, path.clone(), t))?;
        if out.len() + items.len() > limit {
            return Err(ScenarioError::new(
                file,
                path,
                format!("the [[{key}]] tables make more than {limit} in all; at most {limit} in one run"),
            ));
        }
        out.extend(items);
    }
    Ok(out)
}

pub(crate) fn read_meta(mut t: Reader) -> Result<Meta> {
    let meta = Meta {
        name: t.string("name")?.map(str::to_string),
        source: t.string("source")?.map(str::to_string),
        description: t.string("description")?.map(str::to_string),
    };
    t.finish()?;
    Ok(meta)
}

fn bytes_of(t: &Reader, key: &str, size: Option<SizeValue>, default: u32) -> Result<u32> {
    match size {
        None => Ok(default),
        Some(SizeValue::Bytes(b)) if (1.0..=65_535.0).contains(&b) && b.fract() == 0.0 => Ok(b as u32),
        Some(_) => Err(t.error(key, "expected a whole number of bytes between 1B and 65535B")),
    }
}

fn read_sim(mut t: Reader) -> Result<SimModel> {
    let duration = t.time("duration")?.ok_or_else(|| t.missing("duration", "missing; expected a time such as \"60s\""))?;
    if duration == Time::ZERO {
        return Err(t.error("duration", "must be longer than zero"));
    }
    let warmup = t.time("warmup")?.unwrap_or(Time::ZERO);
    if warmup >= duration {
        return Err(t.error("warmup", format!("must be shorter than sim.duration ({duration}), got {warmup}")));
    }
    let seed = t.unsigned("seed")?.unwrap_or(1);
    let mss = t.size("mss")?;
    let mss = bytes_of(&t, "mss", mss, 1500)?;
    let ack = t.size("ack_size")?;
    let ack_size = bytes_of(&t, "ack_size", ack, 40)?;
    let sample_interval = t.time("sample_interval")?;
    if sample_interval == Some(Time::ZERO) {
        return Err(t.error("sample_interval", "must be longer than zero (omit it for no time series)"));
    }
    t.finish()?;
    Ok(SimModel { duration, warmup, seed, mss, ack_size, sample_interval })
}

/// A window-sized quantity: at least one packet (a window below one packet could never send).
fn packets(t: &Reader, key: &str, v: Option<f64>) -> Result<Option<f64>> {
    match v {
        Some(x) if !(x >= 1.0 && x.is_finite()) => Err(t.error(key, format!("expected a number of packets ≥ 1, got {x}"))),
        other => Ok(other),
    }
}

/// Reads a `[tcp]` or flow `tcp` table: `profile` and any of the settings `tcp::SETTINGS`
/// lists, each by its kind (so a new setting needs no code here).
pub(crate) fn read_tcp(mut t: Reader) -> Result<TcpModel> {
    let mut model = TcpModel { profile: t.choice("profile", &Profile::NAMES)?, ..TcpModel::default() };
    for &(key, kind) in SETTINGS {
        let value = match kind {
            SettingKind::Time => t.time(key)?.map(SettingValue::Time),
            SettingKind::Packets => {
                let v = t.number(key)?;
                packets(&t, key, v)?.map(SettingValue::Number)
            }
            SettingKind::PacketsOrInf => match t.value(key) {
                None => None,
                Some(Value::String(s)) if s == "inf" => Some(SettingValue::Number(f64::INFINITY)),
                Some(v) => match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
                    Some(x) if x >= 1.0 => Some(SettingValue::Number(x)),
                    _ => return Err(t.error(key, format!("expected \"inf\" or a number of packets ≥ 1, got {v}"))),
                },
            },
            SettingKind::Count => t.bounded(key, 0..=u32::MAX as u64, "")?.map(SettingValue::Count),
            SettingKind::Bytes => match t.size(key)? {
                None => None,
                Some(SizeValue::Bytes(b)) if b >= 1.0 && b <= u32::MAX as f64 => Some(SettingValue::Count(b.round() as u64)),
                Some(_) => return Err(t.error(key, "expected a size in bytes such as \"40B\"")),
            },
            SettingKind::Bool => t.boolean(key)?.map(SettingValue::Bool),
            SettingKind::Choice(names) => {
                let pairs: Vec<(&str, &str)> = names.iter().map(|n| (*n, *n)).collect();
                t.choice(key, &pairs)?.map(|n| SettingValue::Choice(n.to_string()))
            }
        };
        if let Some(v) = value {
            model.set(key, &v).map_err(|m| t.error(key, m))?;
        }
    }
    if let (Some(min), Some(max)) = (model.min_rto, model.max_rto)
        && min > max
    {
        return Err(t.error("max_rto", format!("must be at least min_rto ({min}), got {max}")));
    }
    t.finish()?;
    Ok(model)
}

/// How many copies a `count` key asks for, and the names they get.
pub(crate) fn count(t: &mut Reader) -> Result<Option<u64>> {
    match t.unsigned("count")? {
        Some(0) => Err(t.error("count", "must be at least 1")),
        Some(n) if n > 1_000_000 => Err(t.error("count", format!("at most 1000000 copies, got {n}"))),
        other => Ok(other),
    }
}

/// The name of copy `i` of a counted table: `{i}` replaced by `i` (`"wifi{i}"` → `"wifi3"`).
pub(crate) fn expand(template: &str, i: u64) -> String {
    template.replace("{i}", &i.to_string())
}

fn read_links(mut t: Reader) -> Result<Vec<LinkModel>> {
    let name = t.required_string("name")?;
    let copies = count(&mut t)?;
    if copies.is_some_and(|n| n > 1) && !name.contains("{i}") {
        return Err(t.error("name", "a counted link needs `{i}` in its name (for example \"wifi{i}\") so the copies get distinct names"));
    }
    let settings = LinkSettings::read(&mut t)?;
    let rate = settings.rate.ok_or_else(|| t.missing("rate", "missing; expected a rate such as \"100Mbps\""))?;
    let delay = settings.delay.ok_or_else(|| t.missing("delay", "missing; expected a one-way propagation delay such as \"5ms\""))?;
    let buffer = settings
        .buffer
        .ok_or_else(|| t.missing("buffer", "missing; expected a size (\"100pkt\") or a time at the link rate (\"20ms\")"))?;
    let queue = settings.queue.unwrap_or(QueueModel::DropTail);
    let loss = settings.loss.unwrap_or(0.0);
    let events = read_link_events(&mut t)?;
    let key = t.path().to_string();
    t.finish()?;
    Ok((0..copies.unwrap_or(1))
        .map(|i| LinkModel {
            name: expand(name, i),
            key: key.clone(),
            group: String::new(),
            rate,
            delay,
            buffer,
            queue: queue.clone(),
            loss,
            events: events.clone(),
        })
        .collect())
}

/// A link's settings as written, each optional: a `[[link]]` and a `[topology]` generator
/// require some, `[topology.links.<name>]` overrides any of them.
pub(crate) struct LinkSettings {
    pub rate: Option<RateValue>,
    pub delay: Option<Time>,
    pub buffer: Option<BufferValue>,
    pub queue: Option<QueueModel>,
    pub loss: Option<f64>,
}

impl LinkSettings {
    pub(crate) fn read(t: &mut Reader) -> Result<LinkSettings> {
        let rate = t.rate("rate")?;
        let delay = t.time("delay")?;
        let buffer = t.buffer("buffer")?;
        let given = t.table_ref().contains_key("queue");
        let queue = read_queue(t)?;
        let loss = t.probability("loss")?;
        Ok(LinkSettings { rate, delay, buffer, queue: given.then_some(queue), loss })
    }
}

/// Queue kinds a link accepts.
pub const QUEUE_KINDS: &[&str] = &["droptail", "red", "random-drop", "threshold-dropper"];

fn read_queue(t: &mut Reader) -> Result<QueueModel> {
    let kind_error = |t: &Reader, got: &str| {
        t.error(
            "queue",
            format!("unknown queue kind \"{got}\"{} (valid: {})", suggestion(got, QUEUE_KINDS.iter().copied()), QUEUE_KINDS.join(", ")),
        )
    };
    match t.value("queue") {
        None => Ok(QueueModel::DropTail),
        Some(Value::String(s)) if s == "droptail" => Ok(QueueModel::DropTail),
        Some(Value::String(s)) if s == "red" => {
            Err(t.error("queue", "RED needs its thresholds: queue = { kind = \"red\", min = \"…\", max = \"…\" }"))
        }
        Some(Value::String(s)) => Err(kind_error(t, s)),
        Some(Value::Table(_)) => {
            let mut q = t.table("queue")?.expect("present");
            let kind = q.required_string("kind")?;
            let model = match kind {
                "droptail" => QueueModel::DropTail,
                "red" => {
                    let min =
                        q.buffer("min")?.ok_or_else(|| q.missing("min", "missing; expected the minimum threshold as a size or time"))?;
                    let max =
                        q.buffer("max")?.ok_or_else(|| q.missing("max", "missing; expected the maximum threshold as a size or time"))?;
                    let max_p = q.probability("max_p")?.unwrap_or(0.1);
                    let weight = q.probability("weight")?.unwrap_or(0.002);
                    if weight == 0.0 {
                        return Err(q.error("weight", "must be above 0"));
                    }
                    let gentle = q.boolean("gentle")?.unwrap_or(false);
                    let wait = q.boolean("wait")?.unwrap_or(false);
                    QueueModel::Red { min, max, max_p, weight, gentle, wait }
                }
                "random-drop" => {
                    let zone = q
                        .buffer("zone")?
                        .ok_or_else(|| q.missing("zone", "missing; expected the depth of the drop zone as a size or time"))?;
                    let probability = q.probability("probability")?;
                    QueueModel::RandomDrop { zone, probability }
                }
                "threshold-dropper" => {
                    let threshold = match q.size("threshold")? {
                        Some(SizeValue::Packets(p)) if p >= 1.0 && p.fract() == 0.0 => p as u32,
                        Some(_) => return Err(q.error("threshold", "expected a whole number of packets of at least one, like \"3pkt\"")),
                        None => {
                            return Err(
                                q.missing("threshold", "missing; expected the queue length that starts a congestion event, like \"3pkt\"")
                            );
                        }
                    };
                    let hold = q.time("hold")?.ok_or_else(|| {
                        q.missing(
                            "hold",
                            "missing; expected the quiet time after a drop, a multiple of the round-trip time (seed 004 §V-D)",
                        )
                    })?;
                    let policy = q.choice("policy", &DropperPolicy::NAMES)?.unwrap_or(DropperPolicy::RateProportional);
                    QueueModel::ThresholdDropper { threshold, hold, policy }
                }
                other => {
                    return Err(q.error(
                        "kind",
                        format!(
                            "unknown queue kind \"{other}\"{} (valid: {})",
                            suggestion(other, QUEUE_KINDS.iter().copied()),
                            QUEUE_KINDS.join(", ")
                        ),
                    ));
                }
            };
            q.finish()?;
            Ok(model)
        }
        Some(v) => Err(t.error("queue", format!("expected a queue kind or a table, got {}", type_name(v)))),
    }
}

pub(crate) fn read_link_events(t: &mut Reader) -> Result<Vec<(Time, bool)>> {
    let file = t.file();
    let path = t.key_path("events");
    let Some(v) = t.value("events") else { return Ok(Vec::new()) };
    let Value::Array(items) = v else {
        return Err(t.error("events", format!("expected an array like [{{ at = \"50s\", state = \"down\" }}], got {}", type_name(v))));
    };
    let mut events = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = format!("{path}[{i}]");
        let Value::Table(e) = item else {
            return Err(ScenarioError::new(
                file,
                key,
                format!("expected a table {{ at = \"…\", state = \"down\" }}, got {}", type_name(item)),
            ));
        };
        let mut r = Reader::new(file, key, e);
        let at = r.time("at")?.ok_or_else(|| r.missing("at", "missing; expected a time"))?;
        let up = match r.required_string("state")? {
            "up" => true,
            "down" => false,
            other => return Err(r.error("state", format!("expected \"up\" or \"down\", got \"{other}\""))),
        };
        r.finish()?;
        events.push((at, up));
    }
    Ok(events)
}
