//! `[metrics]`: the links and subflows that the papers' comparative metrics are told.

use toml::Value;

use super::reader::{Reader, type_name};
use crate::error::{Result, ScenarioError};
use crate::model::{ConvergenceModel, MetricsModel};

/// Reads `[metrics]`: the links and subflows that the loss-ratio and convergence metrics
/// must be told.
pub(super) fn read_metrics(mut t: Reader) -> Result<MetricsModel> {
    let mut model = MetricsModel::default();
    if let Some(v) = t.value("loss_ratio") {
        let shape = "expected pairs of link names, such as [[\"middle\", \"top\"]]";
        let Value::Array(pairs) = v else { return Err(t.error("loss_ratio", shape)) };
        for pair in pairs {
            match pair.as_array().map(|p| p.iter().map(Value::as_str).collect::<Vec<_>>()).as_deref() {
                Some([Some(a), Some(b)]) => model.loss_ratios.push((a.to_string(), b.to_string())),
                _ => return Err(t.error("loss_ratio", shape)),
            }
        }
    }
    if let Some(v) = t.value("convergence") {
        let Value::Array(items) = v else {
            return Err(t.error("convergence", format!("expected an array of tables [[metrics.convergence]], got {}", type_name(v))));
        };
        for (i, item) in items.iter().enumerate() {
            let key = format!("{}[{i}]", t.key_path("convergence"));
            let Value::Table(table) = item else { return Err(ScenarioError::new(t.file(), key, "expected a table")) };
            let mut c = Reader::new(t.file(), key, table);
            let flow = c.required_string("flow")?.to_string();
            let subflow = c.unsigned("subflow")?.unwrap_or(0) as u32;
            let after = c.time("after")?.ok_or_else(|| c.missing("after", "missing; expected the time the disturbance ends"))?;
            let shape = "expected the reference window, such as [\"20s\", \"40s\"]";
            let (from, to) = c.interval("reference", shape)?.ok_or_else(|| c.missing("reference", format!("missing; {shape}")))?;
            if from == to {
                return Err(c.error("reference", format!("the interval is empty: {from} = {to}")));
            }
            c.finish()?;
            model.convergence.push(ConvergenceModel { flow, subflow, after, reference: (from, to) });
        }
    }
    t.finish()?;
    Ok(model)
}
