//! How the report writes numbers (three significant digits, the unit's best prefix) and names
//! points, sides and chains.

use topologies::paper::{Claim, Quantity};
use topologies::sweep::Sweep;

use crate::dataset::column_unit;
use crate::summary::rate_scale;

/// A number in `unit`, scaled to a readable prefix, three significant digits.
pub(super) fn show(value: f64, unit: &str) -> String {
    if value == f64::INFINITY {
        return "∞ (not within the run)".into();
    }
    if !value.is_finite() {
        return "—".into();
    }
    let (scale, name) = prefix(value, unit);
    format!("{}{}{name}", significant(value / scale), if name.is_empty() { "" } else { " " })
}

/// A mean and its confidence half-width, in the mean's prefix (`1.05 ± 0.09 Mb/s`).
pub(super) fn show_ci(mean: f64, half: f64, unit: &str) -> String {
    if !mean.is_finite() {
        return show(mean, unit);
    }
    let (scale, name) = prefix(mean, unit);
    let digits = |x: f64| significant(x).split_once('.').map_or(0, |(_, d)| d.len());
    // Enough decimals for the mean's three significant digits and the half-width's first.
    let half_digits = if half > 0.0 { (-(half / scale).log10().floor()).clamp(0.0, 6.0) as usize } else { 0 };
    let d = digits(mean / scale).max(half_digits);
    let space = if name.is_empty() { "" } else { " " };
    // A half-width below the sixth decimal would print as zero, which it is not.
    if half > 0.0 && half / scale < 0.5e-6 {
        return format!("{:.6} ± <0.000001{space}{name}", mean / scale);
    }
    format!("{:.d$} ± {:.d$}{space}{name}", mean / scale, half / scale)
}

/// The scale and unit name a value of `unit` reads best in.
fn prefix(value: f64, unit: &str) -> (f64, &'static str) {
    match unit {
        "bit/s" => rate_scale(value),
        "s" if value.abs() < 1.0 && value != 0.0 => (1e-3, "ms"),
        "s" => (1.0, "s"),
        _ => (1.0, ""),
    }
}

pub(super) fn significant(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

/// The unit of a quantity's metric.
pub(super) fn unit_of(q: &Quantity) -> &'static str {
    if let Some(m) = topologies::metrics::METRICS.iter().find(|(m, _, _)| *m == q.metric) {
        return m.1;
    }
    column_unit(&q.metric).map_or("", |(_, unit)| unit)
}

/// A swept value, short: a table such as `{ algorithm = "uncoupled", a = 1.0 }` as
/// `uncoupled(a=1.0)`.
pub(super) fn short_value(v: &toml::Value) -> String {
    match v {
        toml::Value::Table(t) => {
            let head = t.get("algorithm").or(t.get("kind")).and_then(|v| v.as_str()).unwrap_or("");
            let rest: Vec<String> = t
                .iter()
                .filter(|(k, _)| !["algorithm", "kind"].contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={}", short_value(v)))
                .collect();
            if rest.is_empty() { head.to_string() } else { format!("{head}({})", rest.join(", ")) }
        }
        other => topologies::sweep::value_text(other),
    }
}

/// The point of `q` named by the first swept key whose value differs along its chain (keys
/// varied together show once); empty when the sides share their point.
fn point_name(sweep: &Sweep, chain: &[Quantity], q: &Quantity) -> String {
    let differs = |i: usize| chain.iter().any(|o| sweep.points[o.point].values[i].1 != sweep.points[q.point].values[i].1);
    let values = &sweep.points[q.point].values;
    match (0..values.len()).find(|&i| differs(i)) {
        Some(i) => short_value(&values[i].1),
        None => String::new(),
    }
}

/// The point's values shared by a whole chain (`C1=1Mbps, N1=10`), naming a chain of a trend.
pub(super) fn chain_name(sweep: &Sweep, chain: &[Quantity]) -> String {
    let values = &sweep.points[chain[0].point].values;
    let same = |i: usize| chain.iter().all(|o| sweep.points[o.point].values[i].1 == values[i].1);
    (0..values.len())
        .filter(|&i| same(i))
        .map(|i| format!("{}={}", values[i].0.rsplit('.').next().unwrap_or(&values[i].0), short_value(&values[i].1)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A side of a claim: its point, and its group and metric where they vary within the claim.
pub(super) fn side_name(sweep: &Sweep, claim: &Claim, chain: &[Quantity], q: &Quantity) -> String {
    let first = &claim.chains[0][0];
    let mut parts = Vec::new();
    let point = point_name(sweep, chain, q);
    if !point.is_empty() {
        parts.push(point);
    }
    if claim.chains.iter().flatten().any(|o| o.group != first.group) {
        parts.push(q.group.clone());
    }
    if claim.chains.iter().flatten().any(|o| o.metric != first.metric) {
        parts.push(q.metric.clone());
    }
    parts.join(" ")
}

/// `n` and the noun in its number: "1 replicate", "2 replicates".
pub(super) fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A wall time: seconds below two minutes, minutes above.
pub(super) fn duration(s: f64) -> String {
    if s < 120.0 { format!("{s:.0} s") } else { format!("{:.1} min", s / 60.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_in_their_units() {
        assert_eq!(show(951_000.0, "bit/s"), "951 kb/s");
        assert_eq!(show(2.75e6, "bit/s"), "2.75 Mb/s");
        assert_eq!(show(0.0123, "s"), "12.3 ms");
        assert_eq!(show(0.5, "1"), "0.500");
        assert_eq!(show(1234.0, "count"), "1234");
        assert_eq!(show_ci(1.05e6, 93_000.0, "bit/s"), "1.05 ± 0.09 Mb/s");
        assert_eq!(show_ci(2.75e6, 5_000.0, "bit/s"), "2.750 ± 0.005 Mb/s");
        assert_eq!(show_ci(6_666_663.0, 1e-4, "bit/s"), "6.666663 ± <0.000001 Mb/s");
    }
}
