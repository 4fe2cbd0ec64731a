//! The run summary printed on the terminal.

use std::fmt::Write;

use tcp::RunOutput;
use topologies::metrics::{Metric, jain_index};

/// `12.3 Mb/s` style, for bits per second (`-` for a rate that does not exist).
pub fn rate(bps: f64) -> String {
    if !bps.is_finite() {
        return "-".into();
    }
    // (An empty sum is -0.0.)
    let bps = if bps == 0.0 { 0.0 } else { bps };
    let (scale, unit) = rate_scale(bps);
    format!("{:.2} {unit}", bps / scale)
}

/// `x` with `decimals` decimals, or `-` for a quantity that does not exist (a ratio over zero,
/// a mean of nothing): never `inf` or `NaN`.
pub fn number(x: f64, decimals: usize) -> String {
    if x.is_finite() { format!("{x:.decimals$}") } else { "-".into() }
}

/// The prefix a rate in bits per second reads best in: (its scale, the unit's name).
pub fn rate_scale(bps: f64) -> (f64, &'static str) {
    match bps.abs() {
        r if r >= 1e9 => (1e9, "Gb/s"),
        r if r >= 1e6 => (1e6, "Mb/s"),
        r if r >= 1e3 => (1e3, "kb/s"),
        _ => (1.0, "b/s"),
    }
}

/// `1.23 M` style, for counts.
pub fn count(n: f64) -> String {
    if !n.is_finite() {
        "-".into()
    } else if n >= 1e9 {
        format!("{:.2} G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// Rows shown per table before eliding.
const MAX_ROWS: usize = 20;

/// A span of wall time in the largest unit that keeps it above one (`2.5 h`, `40 min`, `12 s`).
pub fn duration_words(seconds: f64) -> String {
    if seconds >= 86_400.0 {
        format!("{:.1} days", seconds / 86_400.0)
    } else if seconds >= 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{seconds:.0} s")
    }
}

/// The summary of a run that took `wall_s` seconds; `clock` says how its time passed
/// ("simulated", "on the testbed").
pub fn render(out: &RunOutput, warmup_s: f64, wall_s: f64, clock: &str) -> String {
    render_measured(out, warmup_s, wall_s, clock, &[])
}

/// [`render`] for a run that left the columns `unmeasured` (`table.column`) unmeasured: they
/// show as `-`, not as the zero or NaN their records hold.
pub fn render_measured(out: &RunOutput, warmup_s: f64, wall_s: f64, clock: &str, unmeasured: &[&str]) -> String {
    let max_queue_measured = !unmeasured.contains(&"links.max_queue_pkts");
    let mut s = String::new();
    let width = out.flows.iter().map(|f| f.flow.len()).chain([4]).max().unwrap_or(4).min(24);
    let _ = writeln!(
        s,
        "{:<width$}  {:<10} {:>12} {:>14} {:>8} {:>8} {:>10}",
        "flow", "algorithm", "goodput", "delivered", "retx", "timeouts", "completion"
    );
    for f in out.flows.iter().take(MAX_ROWS) {
        let completion = f.completion_time_s.map_or("-".to_string(), |t| format!("{t:.3} s"));
        let _ = writeln!(
            s,
            "{:<width$}  {:<10} {:>12} {:>14} {:>8} {:>8} {:>10}",
            f.flow,
            f.algorithm,
            rate(f.goodput_bps),
            format!("{}B", count(f.bytes_delivered as f64)),
            f.retransmissions,
            f.timeouts,
            completion
        );
    }
    if out.flows.len() > MAX_ROWS {
        let _ = writeln!(s, "… {} more flows (all in flows.parquet)", out.flows.len() - MAX_ROWS);
    }
    // Shares are those of bulk flows: a finite flow's goodput is its transfer's rate.
    let goodputs: Vec<f64> = out.flows.iter().filter(|f| f.size_bytes.is_none()).map(|f| f.goodput_bps).collect();
    let _ = writeln!(
        s,
        "{} flow(s), {} bulk: total bulk goodput {}, Jain's index {} (statistics from {} s)\n",
        out.flows.len(),
        goodputs.len(),
        rate(goodputs.iter().sum()),
        number(jain_index(&goodputs), 4),
        seconds(warmup_s)
    );

    let width = out.links.iter().map(|l| l.link.len()).chain([4]).max().unwrap_or(4).min(24);
    let _ = writeln!(
        s,
        "{:<width$}  {:>12} {:>12} {:>10} {:>12} {:>10}",
        "link", "rate", "utilization", "loss rate", "mean queue", "max queue"
    );
    for l in out.links.iter().take(MAX_ROWS) {
        let _ = writeln!(
            s,
            "{:<width$}  {:>12} {:>11}% {:>9}% {:>8} pkt {:>10}",
            l.link,
            rate(l.rate_bps),
            number(100.0 * l.utilization, 2),
            number(100.0 * l.loss_rate, 3),
            number(l.mean_queue_pkts, 1),
            if max_queue_measured { format!("{} pkt", l.max_queue_pkts) } else { "-".to_string() }
        );
    }
    if out.links.len() > MAX_ROWS {
        let _ = writeln!(s, "… {} more links (all in links.parquet)", out.links.len() - MAX_ROWS);
    }
    let st = out.stats;
    // A run of another simulator (ns-2) counts no events of ours.
    let events = if st.events > 0 {
        format!(" {} events ({} events/s),", count(st.events as f64), count(st.events as f64 / wall_s.max(1e-9)))
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "\n{} s {clock} in {wall_s:.2} s wall:{events} {} data packets delivered ({} /s)",
        seconds(st.simulated_s),
        count(st.data_delivered as f64),
        count(st.data_delivered as f64 / wall_s.max(1e-9)),
    );
    s
}

/// Seconds to the nanosecond, without a binary fraction's tail (0.2, not 0.19999999999999998).
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        return "-".into();
    }
    let text = format!("{s:.9}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The metrics of a run, one line each (all in metrics.parquet).
pub fn render_metrics(metrics: &[Metric]) -> String {
    let mut s = String::new();
    if metrics.is_empty() {
        return s;
    }
    let width = metrics.iter().map(|m| m.group.len()).chain([5]).max().unwrap_or(5).min(24);
    let _ = writeln!(s, "\n{:<18} {:<width$} {:>14}", "metric", "group", "value");
    for m in metrics.iter().take(3 * MAX_ROWS) {
        let value = match (m.value, m.unit) {
            (None, _) => "-".to_string(),
            (Some(v), "bit/s") => rate(v),
            (Some(v), "s") => format!("{v:.4} s"),
            (Some(v), "count") => format!("{v}"),
            (Some(v), _) => format!("{v:.4}"),
        };
        let _ = writeln!(s, "{:<18} {:<width$} {:>14}", m.metric, m.group, value);
    }
    if metrics.len() > 3 * MAX_ROWS {
        let _ = writeln!(s, "… {} more metrics (all in metrics.parquet)", metrics.len() - 3 * MAX_ROWS);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_times_read_in_their_unit() {
        let shown: Vec<String> = [12.0, 2400.0, 9000.0, 200_000.0].into_iter().map(duration_words).collect();
        assert_eq!(shown, ["12 s", "40 min", "2.5 h", "2.3 days"]);
    }

    #[test]
    fn formats() {
        assert_eq!(rate(12_345_678.0), "12.35 Mb/s");
        assert_eq!(count(2_900_000.0), "2.90 M");
    }
}
