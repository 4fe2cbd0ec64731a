//! `equipoise report SWEEP…`: the paper's numbers beside ours and a verdict for every finding,
//! computed from a sweep's `[paper]` table and its dataset (Markdown), optionally written into
//! the marked blocks of a document so that no number there is typed by hand.

mod document;
mod format;
mod measure;
mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use topologies::paper::{Claim, Paper, PaperValue, Relation, Statistic};
use topologies::sweep::Sweep;

use crate::output;
use document::{SUMMARY, replace_block, summary};
use format::{chain_name, show, show_ci, side_name, significant, unit_of};
use measure::{Dataset, Measured, per_replicate};
use verdict::{Verdict, chain_verdict, holds_in};

/// What `equipoise report` was asked to do.
pub struct ReportArgs {
    /// Sweep files with a `[paper]` table.
    pub files: Vec<PathBuf>,
    /// The dataset of a single sweep, when not at its default place.
    pub dataset: Option<PathBuf>,
    /// A document whose `<!-- report: FILE -->` … `<!-- end report -->` blocks are replaced.
    pub into: Option<PathBuf>,
}

/// The Markdown report of one sweep.
pub fn report_one(file: &Path, dataset: &Path) -> Result<String, String> {
    let sweep = Sweep::load(file).map_err(|e| e.to_string())?;
    let name = file.display().to_string();
    let Some(paper) = &sweep.paper else {
        return Err(format!("{name}: no [paper] table: nothing to compare (README, \"The paper beside the data\", says how to add one)"));
    };
    let mut data = Dataset { dir: dataset.to_path_buf(), tables: BTreeMap::new() };
    let mut out = String::new();
    render(&mut out, &sweep, paper, &name, &mut data).map_err(|e| e.to_string())?;
    Ok(out)
}

fn render(out: &mut String, sweep: &Sweep, paper: &Paper, name: &str, data: &mut Dataset) -> Result<(), String> {
    let runs = data.table("runs").map(|df| df.height()).unwrap_or(0);
    // scripts/reproduce records each sweep's wall time beside its dataset (the dataset itself
    // holds nothing that depends on the machine).
    let wall = std::fs::read_to_string(data.dir.with_extension("wall"))
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .map(|s| format!(", {} of wall time here", if s < 120.0 { format!("{s:.0} s") } else { format!("{:.1} min", s / 60.0) }))
        .unwrap_or_default();
    out.push_str(&format!(
        "{}: `equipoise sweep {name}` → `{}`, {} points × {} replicates ({runs} runs in the dataset{wall}). Mean ± 95 % CI over replicates.\n\n",
        if paper.source.is_empty() { "Paper" } else { &paper.source },
        data.dir.display(),
        sweep.points.len(),
        sweep.replicates
    ));
    if !paper.values.is_empty() {
        out.push_str("| | paper | ours | ours / paper |\n|---|---|---|---|\n");
        for v in &paper.values {
            out.push_str(&value_row(v, &data.measure(name, &v.quantity)?));
        }
        out.push('\n');
    }
    if !paper.claims.is_empty() {
        out.push_str("| finding | verdict | ours |\n|---|---|---|\n");
        for claim in &paper.claims {
            out.push_str(&claim_row(sweep, claim, name, data)?);
        }
        out.push('\n');
    }
    Ok(())
}

/// A paper's value beside ours and their ratio.
fn value_row(v: &PaperValue, m: &Measured) -> String {
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
    format!("| {} | {paper} | {ours} | {ratio} |\n", v.label)
}

/// A claim, its verdict, and our values: every chain's when there is one; for a trend, the
/// chains that fail (or all, if none does), each named by what its points share.
fn claim_row(sweep: &Sweep, claim: &Claim, name: &str, data: &mut Dataset) -> Result<String, String> {
    let mut verdict = Verdict::Holds;
    let (mut shown, mut failing) = (Vec::new(), Vec::new());
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
        let mut line = terms.join(&between(claim));
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
    let escape = |t: &str| t.replace('|', "\\|");
    Ok(format!("| {} | **{}** | {} |\n", escape(&claim.text), verdict.text(), escape(&ours)))
}

/// The sign between two sides, with the bound's factor and tolerance folded into one
/// multiplier (` ≥ 0.95 × `).
fn between(claim: &Claim) -> String {
    let multiplier = match claim.relation {
        Relation::AtLeast => claim.factor * (1.0 - claim.tolerance),
        Relation::AtMost => claim.factor * (1.0 + claim.tolerance),
        Relation::Increasing | Relation::Decreasing => 1.0,
    };
    if multiplier == 1.0 {
        format!(" {} ", claim.relation.symbol())
    } else {
        format!(" {} {} × ", claim.relation.symbol(), significant(multiplier))
    }
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
