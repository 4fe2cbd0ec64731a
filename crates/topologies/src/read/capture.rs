//! `[[capture]]`: packet captures of the packets arriving at a link (docs/captures.md);
//! the names are checked against the expanded scenario when it is built.

use toml::Value;

use super::reader::{Reader, type_name};
use crate::error::Result;
use crate::model::CaptureModel;

/// One `[[capture]]` table: `link` (a name, or an array of names for one file of several
/// links), and optionally `flows`, `from` and `until`.
pub fn read_capture(mut r: Reader) -> Result<Vec<CaptureModel>> {
    let links = match r.value("link") {
        Some(Value::String(name)) => vec![name.clone()],
        Some(v @ Value::Array(_)) => names(&r, "link", v, "link names, such as [\"wifi\", \"cell\"]")?,
        Some(v) => return Err(r.error("link", format!("expected a link name or an array of them, got {}", type_name(v)))),
        None => return Err(r.missing("link", "missing; the link (or links) whose arriving packets to capture")),
    };
    let flows = match r.value("flows") {
        None => None,
        Some(v) => Some(names(&r, "flows", v, "flow names, such as [\"tcp.0\", \"mp\"]")?),
    };
    let from = r.time("from")?.unwrap_or_default();
    let until = r.time("until")?;
    let key = r.path().to_string();
    r.finish()?;
    Ok(vec![CaptureModel { key, links, flows, from, until }])
}

/// An array of strings at `key`.
fn names(r: &Reader, key: &str, v: &Value, what: &str) -> Result<Vec<String>> {
    let items = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| r.error(key, format!("expected a non-empty array of {what}")))?;
    let names: Option<Vec<String>> = items.iter().map(|v| v.as_str().map(str::to_string)).collect();
    names.ok_or_else(|| r.error(key, format!("expected an array of {what}")))
}
