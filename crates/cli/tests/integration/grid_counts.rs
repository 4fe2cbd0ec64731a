//! The counts docs/testbed.md and docs/validation.md state about the testbed's grids, recounted
//! from the tables `scripts/agreement-grid` writes between the grids' markers: a count in the
//! prose cannot drift from its table.

use std::path::Path;

/// The rows of the table between `<!-- MARKER: begin -->` and `<!-- MARKER: end -->`, each
/// split into its cells (the header and its rule left out).
fn grid(page: &str, marker: &str) -> Vec<Vec<String>> {
    let begin = format!("<!-- {marker}: begin -->");
    let from = page.find(&begin).unwrap_or_else(|| panic!("no {begin}")) + begin.len();
    let to = from + page[from..].find(&format!("<!-- {marker}: end -->")).unwrap_or_else(|| panic!("no end of {marker}"));
    page[from..to]
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The numbers of a cell, in order ("9.88 / 9.92 Mb/s (-0.4 % ± 0.0 %)": 9.88, 9.92, -0.4, 0.0).
fn numbers(cell: &str) -> Vec<f64> {
    cell.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| w.trim_end_matches('.').parse().unwrap_or_else(|_| panic!("a number in {cell:?}: {w:?}")))
        .collect()
}

/// What the pages must say, from the tables of `testbed`; the phrases `testbed` and
/// `validation` lack.
fn mismatches(testbed: &str, validation: &str) -> Vec<String> {
    // The agreement grid: aggregate within 2 %; retransmissions within 25 %; one flow's
    // goodput off by more than 5 % beyond the noise.
    let agreement = grid(testbed, "grid");
    let n = agreement.len();
    let aggregate = agreement.iter().filter(|r| numbers(&r[1])[2].abs() <= 2.0).count();
    let retransmissions = agreement
        .iter()
        .filter(|r| {
            let v = numbers(&r[3]);
            v[1] > 0.0 && (v[0] / v[1] - 1.0).abs() <= 0.25
        })
        .count();
    let shares = agreement
        .iter()
        .filter(|r| {
            let v = numbers(&r[2]);
            v[0] > 5.0 + v[1]
        })
        .count();
    // The sharing grid and the coupled grid say which targets each case missed.
    let sharing = grid(testbed, "sharing grid");
    let flows_met = sharing.iter().filter(|r| !r[5].contains("flow")).count();
    let jain_met = sharing.iter().filter(|r| !r[5].contains("Jain")).count();
    let coupled = grid(testbed, "coupled grid");
    let coupled_missed = coupled.iter().filter(|r| r[5] != "none").count();
    let of = |k: usize, n: usize| if k == n { format!("all {n}") } else { format!("{k} of {n}") };
    let expected = [
        ("testbed.md", testbed, format!("within 2 % in {aggregate} of the {n} cases")),
        ("testbed.md", testbed, format!("within 25 % in {retransmissions} of the {n}")),
        ("testbed.md", testbed, format!("misses the target beyond the noise in {coupled_missed} of {}", coupled.len())),
        (
            "validation.md",
            validation,
            format!(
                "aggregate goodput within 2 % in {aggregate} of {n} cases, retransmissions within 25 % in {retransmissions}; one flow's share beyond the runs' noise in {shares} cases"
            ),
        ),
        ("validation.md", validation, format!("every flow within 10 % beyond the noise in {} cases", of(flows_met, sharing.len()))),
        ("validation.md", validation, format!("Jain's index within 0.05 in {jain_met}")),
    ];
    // A phrase may wrap across lines in the page's source.
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    expected
        .into_iter()
        .filter(|(_, text, phrase)| !flat(text).contains(phrase))
        .map(|(page, _, phrase)| format!("{page} lacks \"{phrase}\""))
        .collect()
}

fn page(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_grids_counts_in_the_prose_are_their_tables() {
    let missing = mismatches(&page("testbed.md"), &page("validation.md"));
    assert!(missing.is_empty(), "the pages' counts differ from the grids' tables in docs/testbed.md:\n{}", missing.join("\n"));
}

#[test]
fn a_count_that_differs_from_its_table_is_found() {
    let (testbed, validation) = (page("testbed.md"), page("validation.md"));
    // The retransmissions' count of validation.md made 999.
    let lead = "retransmissions within 25 % in ";
    let at = validation.find(lead).expect("validation.md states the retransmissions' count") + lead.len();
    let digits = validation[at..].find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    let planted = format!("{}999{}", &validation[..at], &validation[at + digits..]);
    let found = mismatches(&testbed, &planted);
    assert!(found.len() == 1 && found[0].contains(lead), "{found:?}");
}
