//! `[[link]]` tables, the link settings a `[topology]` shares with them, queues and link events.

use sim_core::Time;
use sim_core::threshold::DropperPolicy;
use toml::Value;

use super::reader::{Reader, type_name};
use crate::error::{Result, ScenarioError, suggestion};
use crate::model::{LinkModel, QueueModel, RedVariant};
use crate::units::{BufferValue, RateValue, SizeValue};

/// How many copies a `count` key asks for, and the names they get.
pub(crate) fn count(t: &mut Reader) -> Result<Option<u64>> {
    match t.unsigned("count")? {
        Some(0) => Err(t.error("count", "must be at least 1")),
        Some(n) if n > 1_000_000 => Err(t.error("count", format!("at most 1000000 copies, got {n}"))),
        other => Ok(other),
    }
}

/// The name of copy `i` of a counted table: `{i}` replaced by `i` (`"wifi{i}"` → `"wifi3"`).
pub(crate) fn expand_name(template: &str, i: u64) -> String {
    // Most names have no `{i}`: copy them without formatting the index.
    if template.contains("{i}") { template.replace("{i}", &i.to_string()) } else { template.to_string() }
}

pub(super) fn read_links(mut t: Reader) -> Result<Vec<LinkModel>> {
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
            name: expand_name(name, i),
            key: key.clone(),
            group: String::new(),
            rate,
            delay,
            buffer,
            queue: queue.clone(),
            loss,
            round_robin: false,
            events: events.clone(),
        })
        .collect())
}

/// A link's settings as written, each optional: a `[[link]]` and a `[topology]` generator
/// require some, `[topology.links.<name>]` overrides any of them.
#[derive(Clone, Debug)]
pub struct LinkSettings {
    /// `rate`: what the link's queue is served at.
    pub rate: Option<RateValue>,
    /// `delay`: one-way propagation delay.
    pub delay: Option<Time>,
    /// `buffer`: a size, or a time at the link's rate.
    pub buffer: Option<BufferValue>,
    /// `queue`: the drop discipline.
    pub queue: Option<QueueModel>,
    /// `loss`: exogenous drop probability per packet.
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
                    if max_p == 0.0 {
                        return Err(q.error("max_p", "expected a probability above 0 and at most 1, got 0"));
                    }
                    let weight = q.probability("weight")?.unwrap_or(0.002);
                    if weight == 0.0 {
                        return Err(q.error("weight", "expected a weight above 0 and at most 1, got 0"));
                    }
                    let gentle = q.boolean("gentle")?.unwrap_or(false);
                    let wait = q.boolean("wait")?;
                    let variant = q.choice("variant", &[("ns2", RedVariant::Ns2), ("floyd", RedVariant::Floyd)])?;
                    let mode = q.choice("mode", &[("packets", false), ("bytes", true)])?;
                    let mean_pktsize = match q.size("mean_pktsize")? {
                        None => None,
                        Some(SizeValue::Bytes(b)) if b >= 1.0 && b.fract() == 0.0 && b <= f64::from(u16::MAX) => Some(b as u32),
                        Some(_) => return Err(q.error("mean_pktsize", "expected a whole number of bytes from 1 to 65535, like \"1040B\"")),
                    };
                    let rng = q.choice("rng", &[("ns2", true), ("seed", false)])?;
                    // What only ns-2's RED has is refused in Floyd and Jacobson's.
                    if variant == Some(RedVariant::Floyd) {
                        for (key, given) in [("mode", mode.is_some()), ("mean_pktsize", mean_pktsize.is_some()), ("rng", rng.is_some())] {
                            if given {
                                return Err(q.error(key, "only ns-2's RED has it: set variant = \"ns2\" or remove it"));
                            }
                        }
                    }
                    let (bytes, ns2_rng) = (mode.unwrap_or(false), rng.unwrap_or(false));
                    QueueModel::Red { min, max, max_p, weight, gentle, wait, variant, bytes, mean_pktsize, ns2_rng }
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
