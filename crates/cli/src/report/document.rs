//! Writing reports into a document: the `<!-- report: SWEEP -->` … `<!-- end report -->`
//! blocks and the summary block counted from them.

use super::verdict::Verdict;
use super::{TRIAL, VARIANT};

/// The name of a document's summary block, `<!-- report: summary -->`: a table of every
/// report block's verdicts, counted from the document itself so that it covers the blocks
/// written by earlier runs too.
pub(super) const SUMMARY: &str = "summary";

pub(super) fn summary(doc: &str) -> String {
    let mut rows = String::from(
        "| sweep | holds | holds in the means | within noise | does not hold | not tested here | model checks (hold / fail) |\n|---|---|---|---|---|---|---|\n",
    );
    let mut totals = [0usize; 7];
    // Sweeps that are not the paper's setup, and trials: shown, out of the totals.
    let mut apart = String::new();
    let mut kernel_rows = String::new();
    let mut kernel_totals = [0usize; 7];
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
        let findings = [Verdict::Holds, Verdict::HoldsInTheMeans, Verdict::WithinNoise, Verdict::DoesNotHold, Verdict::NotTested]
            .map(|v| body.matches(&format!("| **{}** |", v.text())).count());
        let checks =
            |verdicts: &[Verdict]| verdicts.iter().map(|v| body.matches(&format!("| **{}** · model check |", v.text())).count()).sum();
        let counts = [
            findings[0],
            findings[1],
            findings[2],
            findings[3],
            findings[4],
            checks(&[Verdict::Holds, Verdict::HoldsInTheMeans]),
            checks(&[Verdict::WithinNoise, Verdict::DoesNotHold, Verdict::NotTested]),
        ];
        let row = format!(
            "| `{name}` | {} | {} | {} | {} | {} | {} / {} |\n",
            counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6]
        );
        let opening = body.trim_start_matches(" -->").trim_start();
        if opening.starts_with(VARIANT) || opening.starts_with(TRIAL) {
            apart.push_str(&row);
            continue;
        }
        totals.iter_mut().zip(counts).for_each(|(t, c)| *t += c);
        rows.push_str(&row);
        if let Some(k) = kernel_counts(body) {
            kernel_totals.iter_mut().zip(k).for_each(|(t, c)| *t += c);
            kernel_rows.push_str(&format!("| `{name}` | {} | {} | {} | {} | {} | {} | {} |\n", k[0], k[1], k[2], k[3], k[4], k[5], k[6]));
        }
    }
    let t = totals;
    rows.push_str(&format!("| all | {} | {} | {} | {} | {} | {} / {} |\n", t[0], t[1], t[2], t[3], t[4], t[5], t[6]));
    if !apart.is_empty() {
        rows.push_str(&format!(
            "\nNot in the totals: sweeps that are not the paper's setup, and trials (each block says why).\n\n\
             | sweep | holds | holds in the means | within noise | does not hold | not tested here | model checks (hold / fail) |\n\
             |---|---|---|---|---|---|---|\n{apart}"
        ));
    }
    if !kernel_rows.is_empty() {
        let k = kernel_totals;
        rows.push_str(&format!(
            "\nOn this machine's kernel (`report --platforms`; its runs fewer and shorter, as each block says), each finding's verdict beside ours. \
             A finding holds where its verdict is \"holds\" or \"holds in the means\", and fails where it is \"does not hold\" or \"within noise\":\n\n\
             | sweep | findings | hold on both | fail on both | hold here only | hold on the kernel only | not tested on one side | of them checked in part |\n\
             |---|---|---|---|---|---|---|---|\n\
             {kernel_rows}| all | {} | {} | {} | {} | {} | {} | {} |\n",
            k[0], k[1], k[2], k[3], k[4], k[5], k[6]
        ));
    }
    rows
}

/// In a report block with the kernel's table of findings (`| finding | ours | kernel | …`): its
/// findings; those that hold on both sides, fail on both, hold here only, hold on the kernel
/// only, are not tested on one side; and how many of the tested were checked in part.
fn kernel_counts(body: &str) -> Option<[usize; 7]> {
    let table = &body[body.find("| finding | ours | kernel |")?..];
    let holds = |mark: &str| [Verdict::Holds, Verdict::HoldsInTheMeans].iter().any(|v| v.mark() == mark);
    let mut counts = [0usize; 7];
    // The header and its rule, then a row per finding up to the first line not a row. A cell's
    // own `|` is escaped (`\|`), so " | " separates cells.
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let [_, ours, kernel, ..] = cells.as_slice() else { continue };
        let in_part = kernel.ends_with(" (in part)");
        let kernel = kernel.trim_end_matches(" (in part)");
        counts[0] += 1;
        let untested = Verdict::NotTested.mark();
        let column = match (holds(ours), holds(kernel)) {
            _ if *ours == untested || kernel == untested => 5,
            (true, true) => 1,
            (false, false) => 2,
            (true, false) => 3,
            (false, true) => 4,
        };
        counts[column] += 1;
        counts[6] += usize::from(in_part && column != 5);
    }
    Some(counts)
}

/// `text` with the block after `<!-- report: FILE -->` (up to `<!-- end report -->`) set to `body`.
pub(super) fn replace_block(text: &str, file: &str, body: &str) -> Result<String, String> {
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

    #[test]
    fn the_summary_counts_each_blocks_verdicts() {
        let doc = "Blocks are `<!-- report: … -->` markers.\n<!-- report: summary -->\n<!-- end report -->\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n| y | **does not hold** | 2 |\n| w | **not tested here** | link idle |\n<!-- end report -->\n<!-- report: b.toml -->\n| z | **holds in the means (CIs overlap)** | 3 |\n| m | **holds** · model check | 4 |\n| n | **does not hold** · model check | 5 |\n<!-- end report -->\n";
        let table = summary(doc);
        assert!(table.contains("| `a.toml` | 1 | 0 | 0 | 1 | 1 | 0 / 0 |"), "{table}");
        assert!(table.contains("| `b.toml` | 0 | 1 | 0 | 0 | 0 | 1 / 1 |"), "{table}");
        assert!(table.contains("| all | 1 | 1 | 0 | 1 | 1 | 1 / 1 |") && !table.contains("…"), "{table}");
        assert!(!table.contains("kernel"), "no block has the kernel's table: {table}");
    }

    #[test]
    fn sweeps_not_of_the_papers_setup_and_trials_are_counted_apart() {
        let doc = format!(
            "<!-- report: summary -->\n<!-- end report -->\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n<!-- end report -->\n\
             <!-- report: b.toml -->\n{VARIANT} l2 at 4 Mb/s. Its findings …\n\n| y | **does not hold** | 2 |\n<!-- end report -->\n\
             <!-- report: c.toml -->\n{TRIAL} the short variant's runs …\n\n| z | **holds** | 3 |\n<!-- end report -->\n"
        );
        let table = summary(&doc);
        assert!(table.contains("| all | 1 | 0 | 0 | 0 | 0 | 0 / 0 |"), "{table}");
        let apart = &table[table.find("Not in the totals").expect("a table apart")..];
        assert!(
            apart.contains("| `b.toml` | 0 | 0 | 0 | 1 | 0 | 0 / 0 |") && apart.contains("| `c.toml` | 1 | 0 | 0 | 0 | 0 | 0 / 0 |"),
            "{table}"
        );
    }

    #[test]
    fn the_summary_counts_the_kernels_verdicts_beside_ours() {
        let doc = "<!-- report: summary -->\n<!-- end report -->\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n\n\
                   | finding | ours | kernel | kernel measured |\n|---|---|---|---|\n\
                   | A \\| B | ✓ | (✓) | a |\n| C | ✓ | ✗ (in part) | c |\n| D | (✓) | – | needs the points not run (1) |\n| E | ≈ | ✗ (in part) | e |\n| F | ✗ | ✓ | f |\n\n\
                   ✓ holds\n<!-- end report -->\n";
        let table = summary(doc);
        assert!(table.contains("| `a.toml` | 5 | 1 | 1 | 1 | 1 | 1 | 2 |"), "{table}");
        assert!(table.contains("| all | 5 | 1 | 1 | 1 | 1 | 1 | 2 |"), "{table}");
    }

    #[test]
    fn blocks_are_replaced_between_their_markers_only() {
        let doc = "intro\n<!-- report: a.toml -->\nold\n<!-- end report -->\nmiddle\n<!-- report: b.toml -->\nkeep\n<!-- end report -->\n";
        let new = replace_block(doc, "a.toml", "new\n").unwrap();
        assert_eq!(
            new,
            "intro\n<!-- report: a.toml -->\nnew\n<!-- end report -->\nmiddle\n<!-- report: b.toml -->\nkeep\n<!-- end report -->\n"
        );
        assert!(replace_block(doc, "c.toml", "x").unwrap_err().contains("c.toml"));
    }
}
