//! `[meta]`, `[sim]` and `[tcp]` (and a flow's own `tcp` table).

use sim_core::Time;
use tcp::{Profile, SETTINGS, SettingKind, SettingValue};
use toml::Value;

use super::reader::Reader;
use crate::error::Result;
use crate::model::{Meta, SimModel, TcpModel};
use crate::units::SizeValue;

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

pub(super) fn read_sim(mut t: Reader) -> Result<SimModel> {
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
    // "exact" (default): serialization times exact to the picosecond; "htsim": whole
    // picoseconds per byte, truncated, as csg-htsim's Queue (docs/validation.md).
    let htsim_serialization = t.choice("serialization", &[("exact", false), ("htsim", true)])?.unwrap_or(false);
    t.finish()?;
    Ok(SimModel { duration, warmup, seed, mss, ack_size, sample_interval, htsim_serialization })
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
