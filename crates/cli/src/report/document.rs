//! Writing reports into pages: the `<!-- report: SWEEP -->` … `<!-- end report -->` blocks,
//! each in the one page of a directory that has it, and the summary block counted from the
//! blocks of every page.

use std::path::{Path, PathBuf};

use super::verdict::Verdict;
use super::{NOT_RUN, TRIAL, VARIANT};
use crate::output;

/// The name of the summary block, `<!-- report: summary -->`: a table of every report block's
/// verdicts, counted from the pages themselves so that it covers the blocks written by earlier
/// runs too.
pub(super) const SUMMARY: &str = "summary";

/// The summary of the report blocks of `pages`, in their order, then each page's block order.
pub(super) fn summary(pages: &[&str]) -> String {
    let mut rows = String::from(
        "| sweep | holds | holds in the means | within noise | does not hold | not tested here | model checks (hold / fail) |\n|---|---|---|---|---|---|---|\n",
    );
    let mut totals = [0usize; 7];
    // Sweeps that are not the paper's setup, and trials: shown, out of the totals.
    let mut apart = String::new();
    let mut kernel_rows = String::new();
    let mut kernel_totals = [0usize; 7];
    // Markers start a line; a mention of one in the prose does not.
    for (name, body) in pages.iter().flat_map(|page| blocks(page)) {
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
        let opening = body.trim_start();
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

/// Whether `at` in `text` starts a line: a marker does, a mention of one in the prose does not.
fn starts_line(text: &str, at: usize) -> bool {
    at == 0 || text[..at].ends_with('\n')
}

/// A page's blocks, in order: each one's name (`sweeps/NAME.toml`, `summary`) and its text from
/// the end of its marker to its `<!-- end report -->` (or the page's end).
fn blocks(page: &str) -> Vec<(&str, &str)> {
    let open = "<!-- report: ";
    page.match_indices(open)
        .filter(|&(at, _)| starts_line(page, at))
        .filter_map(|(at, _)| {
            let after = &page[at + open.len()..];
            let name_end = after.find(" -->")?;
            let body = &after[name_end + " -->".len()..];
            Some((&after[..name_end], &body[..body.find("<!-- end report -->").unwrap_or(body.len())]))
        })
        .collect()
}

/// In a report block with the kernel's table of findings (`| finding | ours | kernel | …`): its
/// findings; those that hold on both sides, fail on both, hold here only, hold on the kernel
/// only, are not tested on one side; and how many of the tested were checked in part.
fn kernel_counts(body: &str) -> Option<[usize; 7]> {
    let table = body.find("| finding | ours | kernel |").map(|at| &body[at..]);
    // The findings that need a point the kernel did not run are counted in a sentence.
    let not_run = format!("{NOT_RUN}kernel, ");
    let sentence = body.lines().find_map(|l| l.strip_prefix(not_run.as_str()));
    if table.is_none() && sentence.is_none() {
        return None;
    }
    let holds = |mark: &str| [Verdict::Holds, Verdict::HoldsInTheMeans].iter().any(|v| v.mark() == mark);
    let mut counts = [0usize; 7];
    if let Some(after) = sentence.and_then(|s| s.split_once("): ")).map(|(_, after)| after) {
        let number: String = after.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
        let untested = number.parse().unwrap_or(1);
        counts[0] += untested;
        counts[5] += untested;
    }
    // The header and its rule, then a row per finding up to the first line not a row. A cell's
    // own `|` is escaped (`\|`), so " | " separates cells.
    for row in table.unwrap_or_default().lines().skip(2).take_while(|l| l.starts_with('|')) {
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
    let Some(at) = marker_at(text, file) else {
        return Err(format!("no block \"{start}\" to write {file}'s report into"));
    };
    let from = at + start.len();
    let end = "<!-- end report -->";
    let Some(len) = text[from..].find(end) else { return Err(format!("the block \"{start}\" has no \"{end}\"")) };
    Ok(format!("{}\n{}{}", &text[..from], body, &text[from + len..]))
}

/// Where `<!-- report: FILE -->` starts a line of `text`, if it does: a mention of it in the
/// prose is no block.
fn marker_at(text: &str, file: &str) -> Option<usize> {
    text.match_indices(&format!("<!-- report: {file} -->")).map(|(at, _)| at).find(|&at| starts_line(text, at))
}

/// A page reports are written into: its text as read when the pages were opened (to route the
/// reports), then as it will be written.
struct Page {
    path: PathBuf,
    text: String,
}

/// The pages of `equipoise report --into`: every `*.md` page directly in one directory (in
/// name order), and, for each sweep, the page its report goes into.
pub(super) struct Pages {
    pages: Vec<Page>,
    /// For each sweep, in the order given, the index of its page.
    routes: Vec<usize>,
}

impl Pages {
    /// The pages for `into` and where each of `sweeps` (as their markers name them) goes: with
    /// a page, into it; with a directory, into the one page there that has the sweep's block.
    /// A sweep without a block, or (in a directory) with one in two pages, is an error naming
    /// it, before anything is written.
    pub(super) fn open(into: &Path, sweeps: &[String]) -> Result<Pages, String> {
        let read = |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
        let (dir, page) = if into.is_dir() {
            (into.to_path_buf(), None)
        } else {
            // The page first: a page that is not there is the error to give.
            read(into)?;
            let parent = into.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (parent.to_path_buf(), Some(into.to_path_buf()))
        };
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read the directory {}: {e}", dir.display()))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                name.ends_with(".md") && !name.starts_with('.') && p.is_file()
            })
            .collect();
        paths.sort();
        // The page named, whatever its name, as the directory lists it.
        let named = page.map(|page| match paths.iter().position(|p| p.file_name() == page.file_name()) {
            Some(i) => i,
            None => {
                paths.push(page);
                paths.len() - 1
            }
        });
        let pages = paths.into_iter().map(|path| read(&path).map(|text| Page { path, text })).collect::<Result<Vec<_>, _>>()?;
        let mut routes = Vec::with_capacity(sweeps.len());
        for sweep in sweeps {
            let marker = format!("<!-- report: {sweep} -->");
            let route = match named {
                Some(i) if marker_at(&pages[i].text, sweep).is_some() => i,
                Some(i) => return Err(format!("{}: no block \"{marker}\" to write {sweep}'s report into", pages[i].path.display())),
                None => {
                    let found: Vec<usize> = (0..pages.len()).filter(|&i| marker_at(&pages[i].text, sweep).is_some()).collect();
                    match found.as_slice() {
                        [i] => *i,
                        [] => return Err(format!("{sweep}: no page in {} has its block \"{marker}\"", dir.display())),
                        [..] => {
                            let names: Vec<String> = found.iter().map(|&i| pages[i].path.display().to_string()).collect();
                            return Err(format!(
                                "{sweep}: its block \"{marker}\" is in {} pages of {}: {}",
                                names.len(),
                                dir.display(),
                                names.join(", ")
                            ));
                        }
                    }
                }
            };
            routes.push(route);
        }
        Ok(Pages { pages, routes })
    }

    /// Sets each sweep's block (`bodies` in the order of the sweeps given to [`Pages::open`]),
    /// counts the summary again from every page's blocks, sets it wherever a page has its
    /// block, and writes the pages that changed, each atomically: their paths.
    ///
    /// Every page is read again first: a report runs for as long as its sweeps' variants do,
    /// and what another report or an editor wrote into the pages meanwhile (their blocks, the
    /// prose between them) must stay.
    pub(super) fn write(mut self, sweeps: &[String], bodies: &[String]) -> Result<Vec<PathBuf>, String> {
        let mut read = Vec::with_capacity(self.pages.len());
        for page in &mut self.pages {
            page.text = std::fs::read_to_string(&page.path).map_err(|e| format!("cannot read {} again: {e}", page.path.display()))?;
            read.push(page.text.clone());
        }
        for ((sweep, body), &i) in sweeps.iter().zip(bodies).zip(&self.routes) {
            let page = &mut self.pages[i];
            page.text = replace_block(&page.text, sweep, body).map_err(|e| format!("{}: {e}", page.path.display()))?;
        }
        let texts: Vec<&str> = self.pages.iter().map(|p| p.text.as_str()).collect();
        let table = summary(&texts);
        for page in &mut self.pages {
            if marker_at(&page.text, SUMMARY).is_some() {
                page.text = replace_block(&page.text, SUMMARY, &table).map_err(|e| format!("{}: {e}", page.path.display()))?;
            }
        }
        let mut written = Vec::new();
        for (page, _) in self.pages.into_iter().zip(read).filter(|(p, read)| p.text != *read) {
            output::write_file_atomically(&page.path, page.text.as_bytes())?;
            written.push(page.path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_each_blocks_verdicts() {
        let doc = "Blocks are `<!-- report: … -->` markers.\n<!-- report: summary -->\n<!-- end report -->\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n| y | **does not hold** | 2 |\n| w | **not tested here** | link idle |\n<!-- end report -->\n<!-- report: b.toml -->\n| z | **holds in the means (CIs overlap)** | 3 |\n| m | **holds** · model check | 4 |\n| n | **does not hold** · model check | 5 |\n<!-- end report -->\n";
        let table = summary(&[doc]);
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
        let table = summary(&[&doc]);
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
                   | A \\| B | ✓ | (✓) | a |\n| C | ✓ | ✗ (in part) | c |\n| E | ≈ | ✗ (in part) | e |\n| F | ✗ | ✓ | f |\n\n\
                   Not tested on the kernel, for want of the point not run (1): the other finding.\n\n✓ holds\n<!-- end report -->\n";
        let points = [1, 4].into_iter().collect();
        let none_run = format!(
            "<!-- report: b.toml -->\n| y | **holds** | 1 |\n\n{}\n\n✓ holds\n<!-- end report -->\n",
            super::super::not_run_sentence("kernel", 12, true, &points)
        );
        let table = summary(&[doc, &none_run]);
        assert!(table.contains("| `a.toml` | 5 | 1 | 1 | 1 | 1 | 1 | 2 |"), "{table}");
        assert!(table.contains("| `b.toml` | 12 | 0 | 0 | 0 | 0 | 12 | 0 |"), "{table}");
        assert!(table.contains("| all | 17 | 1 | 1 | 1 | 1 | 13 | 2 |"), "{table}");
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

    /// A scratch directory of this test, empty, holding `pages` (name, text).
    fn directory(name: &str, pages: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("equipoise-pages-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (page, text) in pages {
            std::fs::write(dir.join(page), text).unwrap();
        }
        dir
    }

    fn read(dir: &Path, page: &str) -> String {
        std::fs::read_to_string(dir.join(page)).unwrap()
    }

    #[test]
    fn a_report_goes_into_the_page_that_has_its_block() {
        let a = "# A\nThe blocks are `<!-- report: b.toml -->` markers.\n<!-- report: a.toml -->\nold\n<!-- end report -->\n";
        let b = "# B\n<!-- report: b.toml -->\nold\n<!-- end report -->\n";
        let dir = directory("route", &[("a.md", a), ("b.md", b), ("notes.txt", "<!-- report: b.toml -->\n")]);
        let sweeps = vec!["b.toml".to_string()];
        let written = Pages::open(&dir, &sweeps).unwrap().write(&sweeps, &["new\n".to_string()]).unwrap();
        assert_eq!(written, vec![dir.join("b.md")], "only the page that changed is written");
        assert_eq!(read(&dir, "b.md"), "# B\n<!-- report: b.toml -->\nnew\n<!-- end report -->\n");
        assert_eq!(read(&dir, "a.md"), a, "a mention of the marker in the prose is no block");
        // A page named: its block, as before.
        let sweeps = vec!["a.toml".to_string()];
        let written = Pages::open(&dir.join("a.md"), &sweeps).unwrap().write(&sweeps, &["new\n".to_string()]).unwrap();
        assert_eq!(written, vec![dir.join("a.md")]);
        assert!(read(&dir, "a.md").contains("<!-- report: a.toml -->\nnew\n<!-- end report -->"));
        let err = Pages::open(&dir.join("a.md"), &["b.toml".to_string()]).err().unwrap();
        assert!(err.contains("a.md") && err.contains("b.toml"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_sweep_without_a_block_or_with_two_is_an_error_and_nothing_is_written() {
        let a = "# A\n<!-- report: a.toml -->\nold\n<!-- end report -->\n";
        let b = "# B\n<!-- report: b.toml -->\nold\n<!-- end report -->\n<!-- report: a.toml -->\nold\n<!-- end report -->\n";
        let dir = directory("errors", &[("a.md", a), ("b.md", b)]);
        let shown = dir.display().to_string();
        let err = Pages::open(&dir, &["b.toml".to_string(), "c.toml".to_string()]).err().unwrap();
        assert!(err.starts_with("c.toml: ") && err.contains(&shown) && err.contains("no page"), "{err}");
        let err = Pages::open(&dir, &["b.toml".to_string(), "a.toml".to_string()]).err().unwrap();
        assert!(err.starts_with("a.toml: ") && err.contains(&shown) && err.contains("a.md") && err.contains("b.md"), "{err}");
        assert_eq!((read(&dir, "a.md"), read(&dir, "b.md")), (a.to_string(), b.to_string()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn what_others_wrote_into_the_pages_while_a_report_ran_stays() {
        let summary_page = "# Summary\n<!-- report: summary -->\n<!-- end report -->\n";
        let a = "# A\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n<!-- end report -->\nProse.\n";
        let b = "# B\n<!-- report: b.toml -->\n| y | **holds** | 2 |\n<!-- end report -->\n";
        let dir = directory("meanwhile", &[("summary.md", summary_page), ("x-a.md", a), ("x-b.md", b)]);
        let (for_a, for_b) = (vec!["a.toml".to_string()], vec!["b.toml".to_string()]);
        // Two reports open the pages; the second finishes first, then someone edits the prose.
        let first = Pages::open(&dir, &for_a).unwrap();
        Pages::open(&dir, &for_b).unwrap().write(&for_b, &["| y | **does not hold** | 2 |\n".to_string()]).unwrap();
        std::fs::write(dir.join("x-a.md"), read(&dir, "x-a.md").replace("Prose.", "Prose, edited.")).unwrap();
        first.write(&for_a, &["| x | **holds** | 1 |\n| w | **holds** | 3 |\n".to_string()]).unwrap();
        assert!(read(&dir, "x-b.md").contains("**does not hold**"), "the other report's block stays");
        let page_a = read(&dir, "x-a.md");
        assert!(page_a.contains("| w | **holds** | 3 |") && page_a.ends_with("Prose, edited.\n"), "{page_a}");
        let table = read(&dir, "summary.md");
        assert!(table.contains("| all | 2 | 0 | 0 | 1 | 0 | 0 / 0 |"), "counted from both reports: {table}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_summary_counts_the_blocks_of_every_page() {
        let summary_page = "# Summary\n<!-- report: summary -->\n<!-- end report -->\n";
        let a = "# A\n<!-- report: a.toml -->\n| x | **holds** | 1 |\n<!-- end report -->\n";
        let b = "# B\n<!-- report: b.toml -->\n| y | **holds** | 2 |\n<!-- end report -->\n";
        let dir = directory("summary", &[("summary.md", summary_page), ("x-b.md", b), ("x-a.md", a)]);
        let sweeps = vec!["b.toml".to_string()];
        let body = "| y | **does not hold** | 2 |\n| z | **holds** | 3 |\n".to_string();
        let mut written = Pages::open(&dir, &sweeps).unwrap().write(&sweeps, &[body]).unwrap();
        written.sort();
        assert_eq!(written, vec![dir.join("summary.md"), dir.join("x-b.md")]);
        let table = read(&dir, "summary.md");
        let a_row = table.find("| `a.toml` | 1 | 0 | 0 | 0 | 0 | 0 / 0 |").expect(&table);
        let b_row = table.find("| `b.toml` | 1 | 0 | 0 | 1 | 0 | 0 / 0 |").expect(&table);
        assert!(a_row < b_row, "in page-name order: {table}");
        assert!(table.contains("| all | 2 | 0 | 0 | 1 | 0 | 0 / 0 |"), "{table}");
        // Written again unchanged: no page is.
        let body = "| y | **does not hold** | 2 |\n| z | **holds** | 3 |\n".to_string();
        assert!(Pages::open(&dir, &sweeps).unwrap().write(&sweeps, &[body]).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
