//! `equipoise report SWEEP…`: the paper's numbers beside ours and a verdict for every finding,
//! computed from a sweep's `[paper]` table and its dataset (Markdown), optionally written into
//! the marked blocks of a document so that no number there is typed by hand.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use polars::prelude::DataFrame;
use topologies::paper::{Claim, Paper, Quantity, Relation, Statistic, TABLES};
use topologies::sweep::Sweep;

use crate::dataset::{mean_ci, numbers, read_table, texts};
use crate::output;

/// What `equipoise report` was asked to do.
pub struct ReportArgs {
    /// Sweep files with a `[paper]` table.
    pub files: Vec<PathBuf>,
    /// The dataset of a single sweep, when not at its default place.
    pub dataset: Option<PathBuf>,
    /// A document whose `<!-- report: FILE -->` … `<!-- end report -->` blocks are replaced.
    pub into: Option<PathBuf>,
}

/// A claim's outcome, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The data contradict it beyond the confidence intervals (or in some replicate).
    DoesNotHold,
    /// The means contradict it but the intervals overlap.
    WithinNoise,
    /// An ordering the means follow, with overlapping intervals.
    HoldsInTheMeans,
    /// The means follow it and, for orderings, the intervals are disjoint.
    Holds,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::DoesNotHold => "does not hold",
            Verdict::WithinNoise => "within noise",
            Verdict::HoldsInTheMeans => "holds in the means (CIs overlap)",
            Verdict::Holds => "holds",
        }
    }
}

/// A quantity's replicate values, in replicate order, and their statistics.
#[derive(Clone, Debug)]
struct Measured {
    values: Vec<(u32, f64)>,
    mean: f64,
    half: f64,
}

impl Measured {
    fn new(mut values: Vec<(u32, f64)>) -> Self {
        values.sort_by_key(|v| v.0);
        let xs: Vec<f64> = values.iter().map(|v| v.1).collect();
        let (_, mean, _, half) = mean_ci(&xs);
        Measured { values, mean, half: if half.is_nan() { 0.0 } else { half } }
    }
}

/// The verdict of one chain of measured quantities.
pub fn chain_verdict(claim: &Claim, chain: &[(f64, f64)], replicates: &[Vec<f64>]) -> Verdict {
    let (relation, tolerance) = (claim.relation, claim.tolerance);
    // The right side of each pair, scaled by the claim's factor.
    let pairs = || chain.windows(2).map(|w| (w[0], (w[1].0 * claim.factor, w[1].1 * claim.factor)));
    if claim.each_replicate {
        let every = replicates.iter().all(|r| holds_in(claim, r));
        return if every { Verdict::Holds } else { Verdict::DoesNotHold };
    }
    let in_means = pairs().all(|(a, b)| relation.holds(a.0, b.0, tolerance));
    let overlap = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() <= a.1 + b.1;
    match (relation.is_strict(), in_means) {
        (true, true) if pairs().all(|(a, b)| !overlap(a, b)) => Verdict::Holds,
        (true, true) => Verdict::HoldsInTheMeans,
        (false, true) => Verdict::Holds,
        (false, false) if pairs().all(|(a, b)| relation.holds(a.0, b.0, tolerance) || overlap(a, b)) => Verdict::WithinNoise,
        _ => Verdict::DoesNotHold,
    }
}

/// Whether one replicate's values follow the claim.
fn holds_in(claim: &Claim, values: &[f64]) -> bool {
    values.windows(2).all(|w| claim.relation.holds(w[0], w[1] * claim.factor, claim.tolerance))
}

/// The dataset's values, read once per table.
struct Dataset {
    dir: PathBuf,
    tables: BTreeMap<String, DataFrame>,
}

impl Dataset {
    fn table(&mut self, name: &str) -> Result<&DataFrame, String> {
        if !self.tables.contains_key(name) {
            let df = read_table(&self.dir, name).map_err(|e| self.why_empty(e))?;
            self.tables.insert(name.to_string(), df);
        }
        Ok(&self.tables[name])
    }

    /// A table that cannot be read, explained by the runs' own errors when none succeeded.
    fn why_empty(&self, error: String) -> String {
        let Ok(runs) = read_table(&self.dir, "runs") else { return error };
        let (Some(status), Some(errors)) = (texts(&runs, "status"), texts(&runs, "error")) else { return error };
        match status.iter().position(|s| s == "ok") {
            Some(_) => error,
            None => format!(
                "{}: none of its {} runs succeeded; the first failed with: {}",
                self.dir.display(),
                status.len(),
                errors.first().map_or("", String::as_str)
            ),
        }
    }

    /// The replicate values of `q`; an error naming `q`'s key when the dataset lacks it.
    fn measure(&mut self, file: &str, q: &Quantity) -> Result<Measured, String> {
        let dir = self.dir.display().to_string();
        let (table, column, entity_col) = match q.metric.split_once('.') {
            Some((t, c)) => (t.to_string(), c.to_string(), TABLES.iter().find(|(n, _)| *n == t).and_then(|(_, e)| *e)),
            None => ("metrics".to_string(), "value".to_string(), Some("group")),
        };
        let df = self.table(&table)?;
        let points = numbers(df, "point").ok_or_else(|| format!("{dir}: {table} has no point column: not a sweep dataset"))?;
        let replicates = numbers(df, "replicate").unwrap_or_default();
        let values = numbers(df, &column).ok_or_else(|| {
            let names: Vec<String> = df.get_column_names().iter().map(|n| n.to_string()).collect();
            let hint = topologies::error::suggestion(&column, names.iter().map(String::as_str));
            format!("{file}: {}.metric: {dir}: {table} has no numeric column \"{column}\"{hint}", q.key)
        })?;
        let entities = entity_col.and_then(|c| texts(df, c));
        let metrics = if table == "metrics" { texts(df, "metric") } else { None };
        let mut found: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        let (mut metric_seen, mut groups_seen) = (false, Vec::<String>::new());
        for i in 0..df.height() {
            if metrics.as_ref().is_some_and(|m| m[i] != q.metric) {
                continue;
            }
            metric_seen = true;
            let entity = entities.as_ref().map_or("", |e| e[i].as_str());
            if entity != q.group {
                if !groups_seen.iter().any(|g| g == entity) {
                    groups_seen.push(entity.to_string());
                }
                continue;
            }
            if points[i] as usize == q.point {
                found.entry(replicates[i] as u32).or_default().push(values[i]);
            }
        }
        if !metric_seen {
            return Err(format!("{file}: {}.metric: the dataset {dir} has no metric \"{}\"", q.key, q.metric));
        }
        if found.is_empty() {
            let has_point = points.iter().any(|&p| p as usize == q.point);
            return Err(if !has_point {
                format!("{file}: {}.point: point {} has no runs in {dir} yet (run the sweep, or --resume it)", q.key, q.point)
            } else {
                groups_seen.sort();
                format!("{file}: {}.group: \"{}\" is not in the dataset {dir} (groups: {})", q.key, q.group, groups_seen.join(", "))
            });
        }
        if let Some((r, rows)) = found.iter().find(|(_, rows)| rows.len() > 1) {
            return Err(format!("{file}: {}: {} rows match in replicate {r}; name one {}", q.key, rows.len(), entity_col.unwrap_or("row")));
        }
        Ok(Measured::new(found.into_iter().map(|(r, rows)| (r, rows[0])).collect()))
    }
}

/// A number in `unit`, scaled to a readable prefix, three significant digits.
fn show(value: f64, unit: &str) -> String {
    if value == f64::INFINITY {
        return "∞ (not within the run)".into();
    }
    if !value.is_finite() {
        return "—".into();
    }
    let (scale, name) = prefix(value, unit);
    format!("{}{name}", significant(value / scale))
}

/// A mean and its confidence half-width, in the mean's prefix (`1.05 ± 0.09 Mb/s`).
fn show_ci(mean: f64, half: f64, unit: &str) -> String {
    if !mean.is_finite() {
        return show(mean, unit);
    }
    let (scale, name) = prefix(mean, unit);
    let digits = |x: f64| significant(x).split_once('.').map_or(0, |(_, d)| d.len());
    // Enough decimals for the mean's three significant digits and the half-width's first.
    let half_digits = if half > 0.0 { (-(half / scale).log10().floor()).clamp(0.0, 6.0) as usize } else { 0 };
    let d = digits(mean / scale).max(half_digits);
    format!("{:.d$} ± {:.d$}{name}", mean / scale, half / scale)
}

/// The scale and unit name a value of `unit` reads best in.
fn prefix(value: f64, unit: &str) -> (f64, &'static str) {
    match unit {
        "bit/s" if value.abs() >= 1e9 => (1e9, " Gb/s"),
        "bit/s" if value.abs() >= 1e6 => (1e6, " Mb/s"),
        "bit/s" if value.abs() >= 1e3 => (1e3, " kb/s"),
        "bit/s" => (1.0, " b/s"),
        "s" if value.abs() < 1.0 && value != 0.0 => (1e-3, " ms"),
        "s" => (1.0, " s"),
        _ => (1.0, ""),
    }
}

fn significant(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

/// The unit of a quantity's metric.
fn unit_of(q: &Quantity) -> &'static str {
    if let Some(m) = topologies::metrics::METRICS.iter().find(|(m, _, _)| *m == q.metric) {
        return m.1;
    }
    match q.metric.rsplit('_').next() {
        Some("bps") => "bit/s",
        Some("s") => "s",
        _ => "",
    }
}

/// A swept value, short: a table such as `{ algorithm = "uncoupled", a = 1.0 }` as
/// `uncoupled(a=1.0)`.
fn short_value(v: &toml::Value) -> String {
    match v {
        toml::Value::Table(t) => {
            let head = t.get("algorithm").or(t.get("kind")).and_then(|v| v.as_str()).unwrap_or("");
            let rest: Vec<String> =
                t.iter().filter(|(k, _)| !["algorithm", "kind"].contains(&k.as_str())).map(|(k, v)| format!("{k}={}", short_value(v))).collect();
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
fn chain_name(sweep: &Sweep, chain: &[Quantity]) -> String {
    let values = &sweep.points[chain[0].point].values;
    let same = |i: usize| chain.iter().all(|o| sweep.points[o.point].values[i].1 == values[i].1);
    (0..values.len())
        .filter(|&i| same(i))
        .map(|i| format!("{}={}", values[i].0.rsplit('.').next().unwrap_or(&values[i].0), short_value(&values[i].1)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn side_name(sweep: &Sweep, claim: &Claim, chain: &[Quantity], q: &Quantity) -> String {
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

/// The Markdown report of one sweep.
pub fn report_one(file: &Path, dataset: &Path) -> Result<String, String> {
    let sweep = Sweep::load(file).map_err(|e| e.to_string())?;
    let name = file.display().to_string();
    let Some(paper) = &sweep.paper else {
        return Err(format!("{name}: no [paper] table: nothing to compare (see README, \"Reproducing the papers\")"));
    };
    let mut data = Dataset { dir: dataset.to_path_buf(), tables: BTreeMap::new() };
    let mut out = String::new();
    render(&mut out, &sweep, paper, &name, &mut data).map_err(|e| e.to_string())?;
    Ok(out)
}

fn render(out: &mut String, sweep: &Sweep, paper: &Paper, name: &str, data: &mut Dataset) -> Result<(), String> {
    let runs = data.table("runs").map(|df| df.height()).unwrap_or(0);
    let w = |e: std::fmt::Error| e.to_string();
    // scripts/reproduce records each sweep's wall time beside its dataset (the dataset itself
    // holds nothing that depends on the machine).
    let wall = std::fs::read_to_string(data.dir.with_extension("wall"))
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .map(|s| format!(", {} of wall time here", if s < 120.0 { format!("{s:.0} s") } else { format!("{:.1} min", s / 60.0) }))
        .unwrap_or_default();
    writeln!(
        out,
        "{}: `equipoise sweep {name}` → `{}`, {} points × {} replicates ({runs} runs in the dataset{wall}). Mean ± 95 % CI over replicates.\n",
        if paper.source.is_empty() { "Paper" } else { &paper.source },
        data.dir.display(),
        sweep.points.len(),
        sweep.replicates
    )
    .map_err(w)?;
    if !paper.values.is_empty() {
        writeln!(out, "| | paper | ours | ours / paper |\n|---|---|---|---|").map_err(w)?;
        for v in &paper.values {
            let m = data.measure(name, &v.quantity)?;
            let unit = unit_of(&v.quantity);
            let (ours, ours_value) = match v.statistic {
                Statistic::Max => {
                    let max = m.values.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
                    (format!("{} (largest of {})", show(max, unit), m.values.len()), max)
                }
                Statistic::Mean if m.values.len() > 1 => (show_ci(m.mean, m.half, unit), m.mean),
                Statistic::Mean => (show(m.mean, unit), m.mean),
            };
            let paper = match v.ci {
                Some(ci) => show_ci(v.value, ci, unit),
                None => show(v.value, unit),
            };
            let ratio = ours_value / v.value;
            let ratio = if ratio.is_finite() { format!("{ratio:.2}") } else { "—".into() };
            writeln!(out, "| {} | {paper} | {ours} | {ratio} |", v.label).map_err(w)?;
        }
        writeln!(out).map_err(w)?;
    }
    if !paper.claims.is_empty() {
        writeln!(out, "| finding | verdict | ours |\n|---|---|---|").map_err(w)?;
        for claim in &paper.claims {
            let mut verdict = Verdict::Holds;
            // Every chain when there is one; for a trend, the chains that fail (or all, if none
            // does), each named by what its points share.
            let mut shown = Vec::new();
            let mut failing = Vec::new();
            for chain in &claim.chains {
                let measured: Vec<Measured> = chain.iter().map(|q| data.measure(name, q)).collect::<Result<_, _>>()?;
                let stats: Vec<(f64, f64)> = measured.iter().map(|m| (m.mean, m.half)).collect();
                let replicates = per_replicate(&measured);
                let this = chain_verdict(claim, &stats, &replicates);
                verdict = verdict.min(this);
                let unit = unit_of(&chain[0]);
                let terms: Vec<String> = chain
                    .iter()
                    .zip(&measured)
                    .map(|(q, m)| {
                        let label = side_name(sweep, claim, chain, q);
                        let value = show_ci(m.mean, m.half, unit);
                        if label.is_empty() { value } else { format!("{label}: {value}") }
                    })
                    .collect();
                // The bound as applied: factor and tolerance folded into one multiplier.
                let multiplier = match claim.relation {
                    Relation::AtLeast => claim.factor * (1.0 - claim.tolerance),
                    Relation::AtMost => claim.factor * (1.0 + claim.tolerance),
                    Relation::Increasing | Relation::Decreasing => 1.0,
                };
                let between = if multiplier == 1.0 {
                    format!(" {} ", claim.relation.symbol())
                } else {
                    format!(" {} {} × ", claim.relation.symbol(), significant(multiplier))
                };
                let mut line = terms.join(&between);
                if claim.each_replicate {
                    let held = replicates.iter().filter(|r| holds_in(claim, r)).count();
                    line.push_str(&format!(" (in {held} of {} replicates)", replicates.len()));
                }
                if claim.chains.len() > 1 {
                    line = format!("{}: {line}", chain_name(sweep, chain));
                }
                if this != Verdict::Holds {
                    failing.push(line.clone());
                }
                shown.push(line);
            }
            let ours = match (claim.chains.len(), failing.is_empty()) {
                (1, _) | (_, true) => shown.join("; "),
                (n, false) => format!("holds in {} of {n} chains; not in {}", n - failing.len(), failing.join("; ")),
            };
            let text = claim.text.replace('|', "\\|");
            writeln!(out, "| {text} | **{}** | {} |", verdict.text(), ours.replace('|', "\\|")).map_err(w)?;
        }
        writeln!(out).map_err(w)?;
    }
    Ok(())
}

/// The chain's values replicate by replicate (replicates every side has).
fn per_replicate(chain: &[Measured]) -> Vec<Vec<f64>> {
    let Some(first) = chain.first() else { return Vec::new() };
    first
        .values
        .iter()
        .filter_map(|(r, _)| chain.iter().map(|m| m.values.iter().find(|v| v.0 == *r).map(|v| v.1)).collect::<Option<Vec<f64>>>())
        .collect()
}

/// Runs `equipoise report`: prints the reports, or writes them into the document's blocks.
pub fn report(args: &ReportArgs, default_dataset: impl Fn(&Path) -> PathBuf) -> Result<String, String> {
    if args.dataset.is_some() && args.files.len() != 1 {
        return Err("--dataset names the dataset of one sweep; give one sweep file, or leave it out".into());
    }
    let mut reports = Vec::new();
    for file in &args.files {
        let dataset = args.dataset.clone().unwrap_or_else(|| default_dataset(file));
        reports.push((file, report_one(file, &dataset)?));
    }
    let Some(doc) = &args.into else {
        return Ok(reports.into_iter().map(|(_, r)| r).collect::<Vec<_>>().join("\n"));
    };
    let mut text = std::fs::read_to_string(doc).map_err(|e| format!("cannot read {}: {e}", doc.display()))?;
    for (file, body) in &reports {
        text = replace_block(&text, &file.display().to_string(), body).map_err(|e| format!("{}: {e}", doc.display()))?;
    }
    if text.contains(&format!("<!-- report: {SUMMARY} -->")) {
        let summary = summary(&text);
        text = replace_block(&text, SUMMARY, &summary).map_err(|e| format!("{}: {e}", doc.display()))?;
    }
    output::write_file_atomically(doc, text.as_bytes())?;
    Ok(format!("updated {} block(s) of {}\n", reports.len(), doc.display()))
}

/// The name of a document's summary block, `<!-- report: summary -->`: a table of every
/// report block's verdicts, counted from the document itself so that it covers the blocks
/// written by earlier runs too.
const SUMMARY: &str = "summary";

fn summary(doc: &str) -> String {
    let mut rows = String::from("| sweep | holds | holds in the means | within noise | does not hold |\n|---|---|---|---|---|\n");
    let mut totals = [0usize; 4];
    // Markers start a line; a mention of one in the prose does not.
    let mut rest = doc;
    while let Some(at) = rest.find("\n<!-- report: ") {
        let after = &rest[at + "\n<!-- report: ".len()..];
        let Some(name_end) = after.find(" -->") else { break };
        let name = &after[..name_end];
        let body = &after[name_end..];
        let body = &body[..body.find("<!-- end report -->").unwrap_or(body.len())];
        rest = &after[name_end..];
        if name == SUMMARY {
            continue;
        }
        let counts = [Verdict::Holds, Verdict::HoldsInTheMeans, Verdict::WithinNoise, Verdict::DoesNotHold]
            .map(|v| body.matches(&format!("| **{}** |", v.text())).count());
        totals.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
        rows.push_str(&format!("| `{name}` | {} | {} | {} | {} |\n", counts[0], counts[1], counts[2], counts[3]));
    }
    rows.push_str(&format!("| all | {} | {} | {} | {} |\n", totals[0], totals[1], totals[2], totals[3]));
    rows
}

/// `text` with the block after `<!-- report: FILE -->` (up to `<!-- end report -->`) set to `body`.
fn replace_block(text: &str, file: &str, body: &str) -> Result<String, String> {
    let start = format!("<!-- report: {file} -->");
    let Some(at) = text.find(&start) else {
        return Err(format!("no block \"{start}\" to write {file}'s report into"));
    };
    let from = at + start.len();
    let end = "<!-- end report -->";
    let Some(len) = text[from..].find(end) else { return Err(format!("the block \"{start}\" has no \"{end}\"")) };
    Ok(format!("{}\n{}{}", &text[..from], body, &text[from + len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(relation: Relation, tolerance: f64, factor: f64, each_replicate: bool) -> Claim {
        Claim { text: String::new(), relation, chains: Vec::new(), each_replicate, tolerance, factor }
    }

    #[test]
    fn verdicts_follow_means_and_intervals() {
        let v = |rel, chain: &[(f64, f64)]| chain_verdict(&claim(rel, 0.0, 1.0, false), chain, &[]);
        assert_eq!(v(Relation::Increasing, &[(1.0, 0.1), (2.0, 0.1), (3.0, 0.1)]), Verdict::Holds);
        assert_eq!(v(Relation::Increasing, &[(1.0, 0.6), (2.0, 0.6)]), Verdict::HoldsInTheMeans);
        assert_eq!(v(Relation::Increasing, &[(2.0, 0.6), (1.0, 0.6)]), Verdict::DoesNotHold);
        assert_eq!(v(Relation::Decreasing, &[(2.0, 0.1), (1.0, 0.1)]), Verdict::Holds);
        assert_eq!(v(Relation::AtLeast, &[(0.95, 0.1), (1.0, 0.1)]), Verdict::WithinNoise);
        assert_eq!(v(Relation::AtLeast, &[(0.5, 0.1), (1.0, 0.1)]), Verdict::DoesNotHold);
        assert_eq!(chain_verdict(&claim(Relation::AtLeast, 0.1, 1.0, false), &[(0.95, 0.0), (1.0, 0.0)], &[]), Verdict::Holds);
        let five_times = claim(Relation::AtLeast, 0.0, 5.0, false);
        assert_eq!(chain_verdict(&five_times, &[(5.5, 0.1), (1.0, 0.01)], &[]), Verdict::Holds);
        assert_eq!(chain_verdict(&five_times, &[(4.0, 0.1), (1.0, 0.01)], &[]), Verdict::DoesNotHold);
        let each = |reps: &[Vec<f64>]| chain_verdict(&claim(Relation::AtLeast, 0.0, 1.0, true), &[(2.0, 0.1), (1.0, 0.1)], reps);
        assert_eq!(each(&[vec![2.0, 1.0], vec![3.0, 1.0]]), Verdict::Holds);
        assert_eq!(each(&[vec![2.0, 1.0], vec![0.5, 1.0]]), Verdict::DoesNotHold);
    }

    #[test]
    fn numbers_read_in_their_units() {
        assert_eq!(show(951_000.0, "bit/s"), "951 kb/s");
        assert_eq!(show(2.75e6, "bit/s"), "2.75 Mb/s");
        assert_eq!(show(0.0123, "s"), "12.3 ms");
        assert_eq!(show(0.5, "1"), "0.500");
        assert_eq!(show(1234.0, "count"), "1234");
        assert_eq!(show_ci(1.05e6, 93_000.0, "bit/s"), "1.05 ± 0.09 Mb/s");
        assert_eq!(show_ci(2.75e6, 5_000.0, "bit/s"), "2.750 ± 0.005 Mb/s");
    }

    #[test]
    fn the_summary_counts_each_blocks_verdicts() {
        let doc = "Blocks are `<!-- report: … -->` markers.\n<!-- report: summary -->\n<!-- end report -->\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n| y | **does not hold** | 2 |\n<!-- end report -->\n<!-- report: b.toml -->\n| z | **holds in the means (CIs overlap)** | 3 |\n<!-- end report -->\n";
        let table = summary(doc);
        assert!(table.contains("| `a.toml` | 1 | 0 | 0 | 1 |"), "{table}");
        assert!(table.contains("| `b.toml` | 0 | 1 | 0 | 0 |"), "{table}");
        assert!(table.contains("| all | 1 | 1 | 0 | 1 |") && !table.contains("…"), "{table}");
    }

    #[test]
    fn blocks_are_replaced_between_their_markers_only() {
        let doc = "intro\n<!-- report: a.toml -->\nold\n<!-- end report -->\nmiddle\n<!-- report: b.toml -->\nkeep\n<!-- end report -->\n";
        let new = replace_block(doc, "a.toml", "new\n").unwrap();
        assert_eq!(new, "intro\n<!-- report: a.toml -->\nnew\n<!-- end report -->\nmiddle\n<!-- report: b.toml -->\nkeep\n<!-- end report -->\n");
        assert!(replace_block(doc, "c.toml", "x").unwrap_err().contains("c.toml"));
    }
}
