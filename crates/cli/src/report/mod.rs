//! `equipoise report SWEEP…`: the paper's numbers beside ours and a verdict for every finding,
//! computed from a sweep's `[paper]` table and its dataset (Markdown), optionally written into
//! the marked blocks of a document so that no number there is typed by hand.

mod document;
mod format;
mod measure;
mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use topologies::paper::{Claim, Paper, PaperValue, Platform, Relation, Statistic};
use topologies::sweep::Sweep;

use crate::engine::Engine;
use document::Pages;
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
    /// Check every finding again at each value of the paper's unknowns, running the sweep at
    /// each (into `DATASET-unknowns/KEY=VALUE`, resumed when there).
    pub unknowns: bool,
    /// The platforms the paper's table names on which every finding is checked again, running
    /// the sweep there (into `DATASET-ns2` or `DATASET-testbed`, resumed when there).
    pub platforms: Platforms,
    /// Runs at once, for `unknowns` and `platforms`.
    pub jobs: usize,
    /// The datasets are the short variants' (`sweep --quick`): the reports say they are trials.
    pub trial: bool,
}

/// Which of a paper's platforms `report` runs the sweep on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Platforms {
    /// None: the simulator's side alone.
    #[value(skip)]
    None,
    /// Every platform the paper's table names.
    All,
    /// ns-2.35, where the paper's table names it.
    Ns2,
    /// This machine's kernel (as root), where the paper's table names it.
    Kernel,
}

impl Platforms {
    fn includes(self, platform: Platform) -> bool {
        match self {
            Platforms::None => false,
            Platforms::All => true,
            Platforms::Ns2 => platform == Platform::Ns2,
            Platforms::Kernel => platform == Platform::Kernel,
        }
    }
}

/// How a report of a short variant's dataset begins.
pub(super) const TRIAL: &str = "**A trial:**";
/// How a report of a sweep that is not the paper's setup begins.
pub(super) const VARIANT: &str = "**Not the paper's setup:**";

/// The Markdown report of one sweep; with `unknowns`, each finding also at each value of the
/// paper's unknowns, and with `platforms` on the paper's own platforms.
pub fn report_one(file: &Path, dataset: &Path, args: &ReportArgs) -> Result<String, String> {
    let sweep = Sweep::load(file).map_err(|e| e.to_string())?;
    let name = file.display().to_string();
    let Some(paper) = &sweep.paper else {
        return Err(format!("{name}: no [paper] table: nothing to compare (docs/reproducing.md says how to add one)"));
    };
    let mut data = Dataset::new(dataset.to_path_buf());
    let mut out = String::new();
    if args.trial {
        out.push_str(&format!("{TRIAL} the short variant's runs (`sweep --quick`), fewer and shorter than the sweep's: its verdicts do not check the paper's findings.\n\n"));
    }
    if let Some(variant) = &paper.variant {
        out.push_str(&format!("{VARIANT} {variant}. Its findings are counted apart, not in the totals.\n\n"));
    }
    render(&mut out, &sweep, paper, &name, &mut data).map_err(|e| e.to_string())?;
    for &platform in &paper.platforms {
        if args.platforms.includes(platform) {
            render_platform(&mut out, &sweep, paper, file, &mut data, platform, args.jobs)?;
        }
    }
    if args.unknowns {
        render_unknowns(&mut out, &sweep, paper, file, &mut data, args.jobs)?;
    }
    Ok(out)
}

/// The paper's numbers and findings on `platform` beside ours (`ours`, the sweep's dataset):
/// the sweep run there (resumed when its dataset is there). On the kernel, a point the testbed
/// cannot run leaves its numbers out and its findings "not tested here", with the reason.
fn render_platform(
    out: &mut String,
    sweep: &Sweep,
    paper: &Paper,
    file: &Path,
    ours: &mut Dataset,
    platform: Platform,
    jobs: usize,
) -> Result<(), String> {
    let name = file.display().to_string();
    // The points the platform cannot run, each with its reason (ns-2 refuses the sweep whole).
    let (variant, refused, dir, engine, jobs) = match platform {
        Platform::Ns2 => (
            crate::sweep::in_ns2(sweep.clone(), None)?,
            BTreeMap::new(),
            crate::sweep::ns2_dataset(&ours.dir),
            Engine::Ns2 { ns: None },
            jobs,
        ),
        Platform::Kernel => {
            let (variant, refused) = crate::sweep::on_kernel(sweep.clone())?;
            (variant, refused, crate::sweep::testbed_dataset(&ours.dir), Engine::Testbed, 1)
        }
    };
    run_variant(&variant, file, &dir, jobs, engine)?;
    let wall = wall_of(&dir).map(|s| format!(", {} of wall time here", format::duration(s))).unwrap_or_default();
    let mut theirs = Dataset::new(dir.clone());
    let column = match platform {
        Platform::Ns2 => {
            out.push_str(&format!(
                "In ns-2.35 itself, the paper's platform: every run of the sweep made by ns-2 from the script `equipoise export ns2` writes (`equipoise sweep {name} --ns2` → `{}`), {} points × {} replicates{wall}.\n\n",
                dir.display(),
                sweep.points.len(),
                sweep.replicates
            ));
            "ns-2.35".to_string()
        }
        Platform::Kernel => {
            out.push_str(&kernel_intro(sweep, &variant, &name, &dir, &refused, &wall));
            "kernel".to_string()
        }
    };
    if !paper.values.is_empty() {
        out.push_str(&format!("| | paper | ours | {column} | {column} / paper |\n|---|---|---|---|---|\n"));
        for v in &paper.values {
            let (ours_text, _) = value_cells(v, &ours.measure(&name, &v.quantity)?);
            let (their_text, ratio) = if refused.contains_key(&v.quantity.point) {
                (format!("not run (point {})", v.quantity.point), "—".to_string())
            } else {
                value_cells(v, &theirs.measure(&name, &v.quantity)?)
            };
            out.push_str(&format!("| {} | {} | {ours_text} | {their_text} | {ratio} |\n", v.label, paper_cell(v)));
        }
        out.push('\n');
    }
    if !paper.claims.is_empty() {
        let mut rows = String::new();
        let mut any_in_part = false;
        // The findings that need a point not run are counted, not listed: (how many, the points).
        let mut untested = (0, std::collections::BTreeSet::new());
        for claim in &paper.claims {
            let (mine, _) = evaluate(sweep, claim, &name, ours)?;
            let (mark, measured) = match runnable_part(claim, &refused) {
                Runnable::All => {
                    let (verdict, measured) = evaluate(&variant, claim, &name, &mut theirs)?;
                    (verdict.mark().to_string(), measured)
                }
                Runnable::Part(part, left_out) => {
                    any_in_part = true;
                    let (verdict, measured) = evaluate(&variant, &part, &name, &mut theirs)?;
                    let points: Vec<String> = left_out.iter().map(usize::to_string).collect();
                    (format!("{} (in part)", verdict.mark()), format!("without the points not run ({}): {measured}", points.join(", ")))
                }
                Runnable::Nothing(left_out) => {
                    untested.0 += 1;
                    untested.1.extend(left_out);
                    continue;
                }
            };
            let escape = |t: &str| t.replace('|', "\\|");
            rows.push_str(&format!("| {} | {} | {mark} | {} |\n", escape(&claim.text), mine.mark(), escape(&measured)));
        }
        if !rows.is_empty() {
            out.push_str(&format!("| finding | ours | {column} | {column} measured |\n|---|---|---|---|\n{rows}\n"));
        }
        if untested.0 > 0 {
            out.push_str(&not_run_sentence(&column, untested.0, rows.is_empty(), &untested.1));
            out.push_str("\n\n");
        }
        out.push_str(&format!("{}\n\n", Verdict::LEGEND));
        if any_in_part {
            out.push_str("\"In part\": an ordering checked along the points the platform ran, the others left out of its chain.\n\n");
        }
    }
    Ok(())
}

/// How a platform's table of findings begins the sentence that counts the findings it could
/// not test at all, each needing a point it did not run (the summary reads the count back).
pub(super) const NOT_RUN: &str = "Not tested on the ";

/// The sentence after a platform's table of findings: how many findings (`all` of them, or the
/// others) need a point it did not run, and those points.
pub(super) fn not_run_sentence(column: &str, findings: usize, all: bool, points: &std::collections::BTreeSet<usize>) -> String {
    let points: Vec<String> = points.iter().map(usize::to_string).collect();
    let which = match (all, findings) {
        (true, 1) => "its one finding".to_string(),
        (true, n) => format!("all {n} findings"),
        (false, 1) => "the other finding".to_string(),
        (false, n) => format!("the other {n} findings"),
    };
    let point_word = if points.len() == 1 { "point" } else { "points" };
    format!("{NOT_RUN}{column}, for want of the {point_word} not run ({}): {which}.", points.join(", "))
}

/// What a platform that could not run some points can check of a claim.
enum Runnable {
    /// Every point of it ran.
    All,
    /// An ordering whose chains keep at least two points once those not run are left out:
    /// that ordering, and the points left out.
    Part(Claim, Vec<usize>),
    /// Nothing: a point it needs was not run (the points).
    Nothing(Vec<usize>),
}

/// What of `claim` the runs can check when the points of `refused` were not run: an ordering
/// (A < B < C) along the points that were, anything else only whole.
fn runnable_part(claim: &Claim, refused: &BTreeMap<usize, String>) -> Runnable {
    let mut left_out: Vec<usize> = claim.chains.iter().flatten().map(|q| q.point).filter(|p| refused.contains_key(p)).collect();
    left_out.sort_unstable();
    left_out.dedup();
    if left_out.is_empty() {
        return Runnable::All;
    }
    if !matches!(claim.relation, Relation::Increasing | Relation::Decreasing) {
        return Runnable::Nothing(left_out);
    }
    let chains: Vec<Vec<topologies::paper::Quantity>> = claim
        .chains
        .iter()
        .map(|c| c.iter().filter(|q| !refused.contains_key(&q.point)).cloned().collect::<Vec<_>>())
        .filter(|c| c.len() >= 2)
        .collect();
    if chains.is_empty() {
        return Runnable::Nothing(left_out);
    }
    Runnable::Part(Claim { chains, ..claim.clone() }, left_out)
}

/// The sentence before the kernel's tables: where its runs are, how they differ from the
/// sweep's (they take real time), and the points it cannot run.
fn kernel_intro(sweep: &Sweep, variant: &Sweep, name: &str, dir: &Path, refused: &BTreeMap<usize, String>, wall: &str) -> String {
    let changes = sweep.paper.as_ref().map(|p| &p.kernel.sets).filter(|s| !s.is_empty()).map_or_else(String::new, |sets| {
        let listed: Vec<String> = sets.iter().map(|(k, v)| format!("`{k}` = {}", topologies::sweep::value_text(v))).collect();
        format!(" with {}", listed.join(", "))
    });
    let mut text = format!(
        "On this machine's kernel (`equipoise sweep {name} --testbed` → `{}`: the kernel's TCP and MPTCP, the coupled laws as BPF congestion controls, the links emulated), in real time, so{changes} and {} instead of {}: {} points run{wall}.",
        dir.display(),
        format::count(variant.replicates, "replicate per point", "replicates per point"),
        sweep.replicates,
        sweep.points.len() - refused.len(),
    );
    for (p, why) in refused {
        let reason = why.split_once(": ").map_or(why.as_str(), |(_, rest)| rest);
        text.push_str(&format!(" Point {p} ({}) is not run: {reason}.", sweep.points[*p].label()));
    }
    text.push_str("\n\n");
    text
}

/// The verdict of each finding at each value of each unknown, the sweep run at each value
/// (the other unknowns at the scenario's own values), and where each finding stops holding.
fn render_unknowns(out: &mut String, sweep: &Sweep, paper: &Paper, file: &Path, ours: &mut Dataset, jobs: usize) -> Result<(), String> {
    let name = file.display().to_string();
    let verdicts = |evaluated: &Sweep, data: &mut Dataset| -> Result<Vec<Verdict>, String> {
        paper.claims.iter().map(|c| evaluate(evaluated, c, &name, data).map(|(v, _)| v)).collect()
    };
    for (i, u) in paper.unknowns.iter().enumerate() {
        let values: Vec<String> = u.values.iter().map(format::short_value).collect();
        // The wall time of each value's sweep, kept beside its dataset when the sweep ran whole
        // (as scripts/reproduce keeps a sweep's): a resumed report shows the first run's time.
        let mut wall = Some(0.0);
        let mut columns: Vec<Vec<Verdict>> = Vec::with_capacity(values.len());
        for (j, value) in u.values.iter().enumerate() {
            let variant = sweep.with_unknown(i, j).map_err(|e| e.to_string())?;
            // At the scenario's own value the sweep's dataset serves: run again, it would give
            // the same results.
            if sweep.unknown_changes_nothing(&variant) {
                wall = wall.zip(wall_of(&ours.dir)).map(|(a, b)| a + b);
                columns.push(verdicts(sweep, ours)?);
            } else {
                let dir = unknown_dataset(&ours.dir, &u.key, &topologies::sweep::value_text(value));
                run_variant(&variant, file, &dir, jobs, Engine::Packet)?;
                wall = wall.zip(wall_of(&dir)).map(|(a, b)| a + b);
                columns.push(verdicts(&variant, &mut Dataset::new(dir))?);
            }
        }
        let wall = wall.map(|s| format!(", {s:.0} s of wall time here")).unwrap_or_default();
        out.push_str(&format!(
            "Not given by the paper: `{}`, here {} (the runs above: the scenario's own value). {} {} points × {} replicates at each value{wall}.\n\n",
            u.key,
            values.join(", "),
            u.why,
            sweep.points.len(),
            sweep.replicates,
        ));
        let texts: Vec<&str> = paper.claims.iter().map(|c| c.text.as_str()).collect();
        out.push_str(&unknown_table(&values, &texts, &columns));
    }
    Ok(())
}

/// The table of each finding's verdict at each value of an unknown (`columns[value][finding]`).
/// Only the findings whose verdict changes with the value are rows; the others, with the same
/// verdict at every value (that of the runs above), are counted after it.
fn unknown_table(values: &[String], claims: &[&str], columns: &[Vec<Verdict>]) -> String {
    let mut rows = String::new();
    let mut same = 0u32;
    for (c, text) in claims.iter().enumerate() {
        let verdicts: Vec<Verdict> = columns.iter().map(|col| col[c]).collect();
        if verdicts.windows(2).all(|w| w[0] == w[1]) {
            same += 1;
            continue;
        }
        let cells: Vec<&str> = verdicts.iter().map(|v| v.mark()).collect();
        rows.push_str(&format!("| {} | {} | {} |\n", text.replace('|', "\\|"), cells.join(" | "), holds_at(values, &verdicts)));
    }
    if rows.is_empty() {
        return "Every finding has the same verdict at each value as in the runs above.\n\n".to_string();
    }
    let mut out = format!("| finding | {} | holds at |\n|---{}|---|\n{rows}\n", values.join(" | "), "|---".repeat(values.len()));
    match same {
        0 => {}
        1 => out.push_str("The other finding has the same verdict at each value as in the runs above.\n\n"),
        n => out.push_str(&format!("The other {n} findings have the same verdict at each value as in the runs above.\n\n")),
    }
    out.push_str(&format!("{}\n\n", Verdict::LEGEND));
    out
}

/// Runs (or resumes) a variant of the sweep (at an unknown's value, or in ns-2) into `dir`,
/// recording its wall time in `DIR.wall` when it ran whole.
fn run_variant(variant: &Sweep, file: &Path, dir: &Path, jobs: usize, engine: Engine) -> Result<(), String> {
    let args = crate::sweep::SweepArgs {
        file: file.to_path_buf(),
        out: dir.to_path_buf(),
        jobs,
        shard: None,
        resume: true,
        quick: false,
        quiet: true,
        fluid: false,
        engine,
        caller: crate::sweep::Caller::CommandLine,
    };
    let started = std::time::Instant::now();
    crate::sweep::prepare(variant, &args)?;
    let (_, _, skipped) = crate::sweep::run_prepared(variant, &args)?;
    if skipped == 0 {
        let _ = std::fs::write(format!("{}.wall", dir.display()), format!("{:.1}\n", started.elapsed().as_secs_f64()));
    }
    Ok(())
}

/// The wall time a sweep took to make the dataset `dir` whole, kept beside it in `DIR.wall`
/// (by `scripts/reproduce`, or by [`run_variant`]); none for a dataset made in parts.
fn wall_of(dir: &Path) -> Option<f64> {
    std::fs::read_to_string(format!("{}.wall", dir.display())).ok().and_then(|t| t.trim().parse::<f64>().ok())
}

/// Where an unknown's variant of a dataset lives: `DATASET-unknowns/KEY=VALUE`.
fn unknown_dataset(dataset: &Path, key: &str, value: &str) -> PathBuf {
    let safe: String = value.chars().map(|c| if c.is_ascii_alphanumeric() || ".-_".contains(c) { c } else { '_' }).collect();
    let base = dataset.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dataset.with_file_name(format!("{base}-unknowns")).join(format!("{key}={safe}"))
}

/// The values at which a finding holds (in the means or better), said briefly.
fn holds_at(values: &[String], verdicts: &[Verdict]) -> String {
    let good = |v: &Verdict| matches!(v, Verdict::Holds | Verdict::HoldsInTheMeans);
    let held: Vec<&str> = values.iter().zip(verdicts).filter(|(_, v)| good(v)).map(|(x, _)| x.as_str()).collect();
    if held.len() == values.len() {
        "all".into()
    } else if held.is_empty() {
        if verdicts.iter().all(|v| *v == Verdict::NotTested) { "not tested".into() } else { "none".into() }
    } else {
        held.join(", ")
    }
}

fn render(out: &mut String, sweep: &Sweep, paper: &Paper, name: &str, data: &mut Dataset) -> Result<(), String> {
    let runs = data.table("runs").map(|df| df.height()).unwrap_or(0);
    // scripts/reproduce records each sweep's wall time beside its dataset (the dataset itself
    // holds nothing that depends on the machine).
    let wall = wall_of(&data.dir).map(|s| format!(", {} of wall time here", format::duration(s))).unwrap_or_default();
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
    let (ours, ratio) = value_cells(v, m);
    format!("| {} | {} | {ours} | {ratio} |\n", v.label, paper_cell(v))
}

/// The paper's value, with its margin where it gives one.
fn paper_cell(v: &PaperValue) -> String {
    let unit = unit_of(&v.quantity);
    match v.ci {
        Some(ci) => show_ci(v.value, ci, unit),
        None => show(v.value, unit),
    }
}

/// What was measured of a paper's value (the statistic the paper reports), and its ratio to
/// the paper's.
fn value_cells(v: &PaperValue, m: &Measured) -> (String, String) {
    let unit = unit_of(&v.quantity);
    let (measured, value) = match v.statistic {
        Statistic::Max => {
            let max = m.values.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
            (format!("{} (largest of {})", show(max, unit), m.values.len()), max)
        }
        Statistic::Mean if m.values.len() > 1 => (show_ci(m.mean, m.half, unit), m.mean),
        Statistic::Mean => (show(m.mean, unit), m.mean),
    };
    let ratio = value / v.value;
    (measured, if ratio.is_finite() { format!("{ratio:.2}") } else { "—".into() })
}

/// A claim, its verdict, and our values: every chain's when there is one; for a trend, the
/// chains that fail (or all, if none does), each named by what its points share.
fn claim_row(sweep: &Sweep, claim: &Claim, name: &str, data: &mut Dataset) -> Result<String, String> {
    let escape = |t: &str| t.replace('|', "\\|");
    let kind = if claim.model_check { " · model check" } else { "" };
    let (verdict, ours) = evaluate(sweep, claim, name, data)?;
    Ok(format!("| {} | **{}**{kind} | {} |\n", escape(&claim.text), verdict.text(), escape(&ours)))
}

/// A claim's verdict and what we measured of it, in words.
fn evaluate(sweep: &Sweep, claim: &Claim, name: &str, data: &mut Dataset) -> Result<(Verdict, String), String> {
    if let Some(why) = untestable(sweep, claim, name, data)? {
        return Ok((Verdict::NotTested, why));
    }
    let mut verdict = Verdict::Holds;
    let (mut shown, mut failing) = (Vec::new(), Vec::new());
    // With `largest`: the verdict and line of the pair whose ratio is largest.
    let mut largest: Option<(f64, Verdict, String)> = None;
    for chain in &claim.chains {
        let measured: Vec<Measured> = chain.iter().map(|q| data.measure(name, q)).collect::<Result<_, _>>()?;
        let mut stats: Vec<(f64, f64)> = measured.iter().map(|m| (m.mean, m.half)).collect();
        let mut replicates = per_replicate(&measured);
        // A ratio to the paper's number: that number is the second side, exact.
        if let Some(d) = claim.denominator {
            stats.push((d, 0.0));
            replicates.iter_mut().for_each(|r| r.push(d));
        }
        let this = chain_verdict(claim, &stats, &replicates);
        verdict = verdict.min(this);
        let unit = unit_of(&chain[0]);
        let terms: Vec<String> = chain
            .iter()
            .zip(&measured)
            .map(|(q, m)| {
                let label = side_name(sweep, claim, chain, q);
                // One replicate (a platform's shortened runs) has no interval to show.
                let value = if m.values.len() > 1 { show_ci(m.mean, m.half, unit) } else { show(m.mean, unit) };
                if label.is_empty() { value } else { format!("{label}: {value}") }
            })
            .collect();
        let mut line = terms.join(&between(claim));
        let mut ratio = None;
        if let (Some((low, high)), [a, b]) = (claim.band, stats.as_slice()) {
            let (r, half) = verdict::ratio(*a, *b);
            ratio = Some(r);
            line.push_str(&format!(" = {} (the paper: {} to {})", show_ci(r, half, ""), significant(low), significant(high)));
        }
        if claim.each_replicate {
            let held = replicates.iter().filter(|r| holds_in(claim, r)).count();
            line.push_str(&format!(" (in {held} of {} replicates)", replicates.len()));
        }
        if claim.chains.len() > 1 {
            line = format!("{}: {line}", chain_name(sweep, chain));
        }
        if claim.largest
            && let Some(r) = ratio
            && largest.as_ref().is_none_or(|l| r > l.0)
        {
            largest = Some((r, this, line.clone()));
        }
        if this != Verdict::Holds {
            failing.push(line.clone());
        }
        shown.push(line);
    }
    if let Some((_, this, line)) = largest {
        return Ok((this, format!("the largest of {} ratios, {line}", claim.chains.len())));
    }
    let ours = match (claim.chains.len(), failing.is_empty()) {
        (1, _) | (_, true) => shown.join("; "),
        (n, false) => format!("holds in {} of {n} chains; not in {}", n - failing.len(), failing.join("; ")),
    };
    Ok((verdict, ours))
}

/// Why the runs cannot test `claim`, if they cannot: the first point of its chains where its
/// `testable_if` quantity's mean is below the least it needs.
fn untestable(sweep: &Sweep, claim: &Claim, name: &str, data: &mut Dataset) -> Result<Option<String>, String> {
    let Some(needs) = &claim.testable_if else { return Ok(None) };
    let mut points: Vec<usize> = claim.chains.iter().flatten().map(|q| q.point).collect();
    points.sort_unstable();
    points.dedup();
    for point in points {
        let q = topologies::paper::Quantity { point, metric: needs.metric.clone(), group: needs.group.clone(), key: needs.key.clone() };
        let m = data.measure(name, &q)?;
        if m.mean < needs.at_least {
            let unit = unit_of(&q);
            let at = format::chain_name(sweep, std::slice::from_ref(&q));
            return Ok(Some(format!(
                "{} of {} is {} at {at}; the claim needs at least {}",
                needs.metric,
                needs.group,
                show(m.mean, unit),
                show(needs.at_least, unit)
            )));
        }
    }
    Ok(None)
}

/// The sign between two sides, with the bound's factor and tolerance folded into one
/// multiplier (` ≥ 0.95 × `).
fn between(claim: &Claim) -> String {
    let multiplier = match claim.relation {
        Relation::AtLeast | Relation::AtMost => claim.factor * claim.relation.scale(claim.tolerance, false),
        Relation::Same => {
            let factor = if claim.factor == 1.0 { String::new() } else { format!("{} × ", significant(claim.factor)) };
            return format!(" ≈ (within {} %) {factor}", significant(claim.tolerance * 100.0));
        }
        Relation::Increasing | Relation::Decreasing | Relation::Ratio => 1.0,
    };
    if multiplier == 1.0 {
        format!(" {} ", claim.relation.symbol())
    } else {
        format!(" {} {} × ", claim.relation.symbol(), significant(multiplier))
    }
}

/// Runs `equipoise report`: prints the reports, or writes them into the blocks of a page, or
/// of the pages of a directory, each into the page that has its block.
pub fn report(args: &ReportArgs, default_dataset: impl Fn(&Path) -> PathBuf) -> Result<String, String> {
    if args.dataset.is_some() && args.files.len() != 1 {
        return Err("--dataset names the dataset of one sweep; give one sweep file, or leave it out".into());
    }
    let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
    // Where each report goes is settled before any is made: making one may run sweeps.
    let pages = args.into.as_deref().map(|into| Pages::open(into, &names)).transpose()?;
    let mut reports = Vec::new();
    for file in &args.files {
        let dataset = args.dataset.clone().unwrap_or_else(|| default_dataset(file));
        reports.push(report_one(file, &dataset, args)?);
    }
    let Some(pages) = pages else {
        return Ok(reports.join("\n"));
    };
    let written = pages.write(&names, &reports)?;
    let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    Ok(if written.is_empty() {
        format!("{} block(s) written, no page changed\n", reports.len())
    } else {
        format!("{} block(s) written; updated {}\n", reports.len(), written.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknowns_table_lists_the_findings_whose_verdict_changes_and_counts_the_others() {
        let values = ["0ms".to_string(), "5ms".to_string()];
        let (h, n) = (Verdict::Holds, Verdict::DoesNotHold);
        let columns = [vec![h, n, h, n], vec![n, n, h, n]];
        let table = unknown_table(&values, &["A | B", "C", "D", "E"], &columns);
        assert!(table.starts_with("| finding | 0ms | 5ms | holds at |\n|---|---|---|---|\n| A \\| B | ✓ | ✗ | 0ms |\n\n"), "{table}");
        assert!(table.contains("The other 3 findings have the same verdict at each value as in the runs above."), "{table}");
        let one = unknown_table(&values, &["A", "C"], &[vec![h, h], vec![n, h]]);
        assert!(one.contains("The other finding has the same verdict"), "{one}");
        let none = unknown_table(&values, &["C", "D"], &[vec![n, h], vec![n, h]]);
        assert_eq!(none, "Every finding has the same verdict at each value as in the runs above.\n\n");
    }

    #[test]
    fn the_findings_a_platform_cannot_test_are_counted_with_the_points_they_need() {
        let points = |p: &[usize]| p.iter().copied().collect();
        assert_eq!(
            not_run_sentence("kernel", 3, false, &points(&[4, 1])),
            "Not tested on the kernel, for want of the points not run (1, 4): the other 3 findings."
        );
        assert_eq!(
            not_run_sentence("kernel", 1, true, &points(&[2])),
            "Not tested on the kernel, for want of the point not run (2): its one finding."
        );
    }
}
