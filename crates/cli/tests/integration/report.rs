//! The reproduction pipeline end to end: every shipped sweep with a `[paper]` table runs its
//! short variant (`sweep --quick`) and `report` computes a verdict for each of its claims and a
//! ratio for each of its values. The verdicts of short runs mean nothing; that the pipeline
//! runs, and that a `[paper]` entry naming something the dataset lacks is an error naming it,
//! is what this checks.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn equipoise(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_equipoise")).args(args).current_dir(repo()).output().expect("the binary runs")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> common::Scratch {
    common::scratch("report", name)
}

/// The shipped sweeps that carry a `[paper]` table.
fn paper_sweeps() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo().join("sweeps"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.parse::<toml::Table>().is_ok_and(|t| t.contains_key("paper"))))
        .map(|p| format!("sweeps/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    files
}

#[test]
fn every_paper_sweep_reports_on_its_short_variant() {
    let sweeps = paper_sweeps();
    assert!(sweeps.len() >= 10, "expected the papers' sweeps to carry [paper] tables, found {sweeps:?}");
    let dir = scratch("quick");
    let doc = dir.join("doc.md");
    let mut blocks = String::from("# Reproduction\n");
    for file in &sweeps {
        blocks.push_str(&format!("\n<!-- report: {file} -->\n<!-- end report -->\n"));
    }
    std::fs::write(&doc, &blocks).unwrap();
    for file in &sweeps {
        let data = dir.join(Path::new(file).file_stem().unwrap());
        let o = equipoise(&["sweep", file, "--quick", "--quiet", "--out", data.to_str().unwrap()]);
        assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stderr));
        let o = equipoise(&["report", file, "--dataset", data.to_str().unwrap()]);
        assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        let table: toml::Table = std::fs::read_to_string(repo().join(file)).unwrap().parse().unwrap();
        let paper = table["paper"].as_table().unwrap();
        let count = |key: &str| paper.get(key).and_then(|v| v.as_array()).map_or(0, |a| a.len());
        let verdicts = ["**holds**", "**holds in the means", "**within noise**", "**does not hold**", "**not tested here**"];
        let found = text.lines().filter(|l| verdicts.iter().any(|v| l.contains(v))).count();
        assert_eq!(found, count("claim"), "{file}: a verdict per claim\n{text}");
        let ratios = text.lines().filter(|l| l.starts_with("| ") && l.matches(" | ").count() == 3 && !l.contains("**")).count();
        let header = usize::from(count("value") > 0);
        assert_eq!(ratios, count("value") + header, "{file}: a row per value (and the header)\n{text}");
        // Into a document: the block is filled, the rest kept.
        let o = equipoise(&["report", file, "--dataset", data.to_str().unwrap(), "--into", doc.to_str().unwrap()]);
        assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let filled = std::fs::read_to_string(&doc).unwrap();
    assert!(filled.starts_with("# Reproduction\n"));
    for file in &sweeps {
        let start = filled.find(&format!("<!-- report: {file} -->")).unwrap();
        let end = start + filled[start..].find("<!-- end report -->").unwrap();
        assert!(filled[start..end].contains("Mean ± 95 % CI"), "{file}'s block is empty");
    }
}

/// A sweep of the dumbbell's loss (0 and 1 %, 12 s, two replicates) with `paper`, written
/// into `dir`.
fn dumbbell_sweep(dir: &Path, paper: &str) -> PathBuf {
    let text = format!(
        "scenario = \"{}\"\nreplicates = 2\n[grid]\n\"sim.duration\" = [\"12s\"]\n\"link.bottleneck.loss\" = [0.0, 0.01]\n{paper}",
        repo().join("scenarios/dumbbell.toml").display()
    );
    std::fs::write(dir.join("s.toml"), text).unwrap();
    dir.join("s.toml")
}

#[test]
fn a_paper_entry_the_dataset_lacks_is_an_error_naming_it() {
    let dir = scratch("lacks");
    let sweep = |paper: &str| dumbbell_sweep(&dir, paper);
    let good = "[paper]\n[[paper.claim]]\ntext = \"loss lowers goodput\"\nmetric = \"goodput_mean\"\ngroup = \"all\"\nalong = \"link.bottleneck.loss\"\ntrend = \"decreasing\"\n";
    let file = sweep(good);
    let data = dir.join("data");
    let o = equipoise(&["sweep", file.to_str().unwrap(), "--quiet", "--out", data.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = |paper: &str| {
        // A changed [paper] table is still this sweep's dataset only if the grid is the same:
        // the report reads the dataset given, whatever its sweep text.
        let file = sweep(paper);
        equipoise(&["report", file.to_str().unwrap(), "--dataset", data.to_str().unwrap()])
    };
    let o = report(good);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("**holds"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = report(&good.replace("group = \"all\"", "group = \"elephants\""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("paper.claim[0]") && err.contains("\"elephants\"") && err.contains("near"), "{err}");
    let o = report(&good.replace("metric = \"goodput_mean\"\ngroup = \"all\"", "metric = \"links.utilisation\"\ngroup = \"bottleneck\""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("paper.claim[0].metric") && err.contains("utilisation"), "{err}");
    let o = report(&good.replace("metric = \"goodput_mean\"", "metric = \"goodput_men\""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("did you mean \"goodput_mean\""), "{err}");
}

/// A paper's factor is checked as a ratio in its band, and `--unknowns` checks every finding
/// again at each value of a parameter the paper leaves unsaid, running the sweep at each but
/// the scenario's own.
#[test]
fn ratios_are_checked_in_their_band_and_unknowns_at_each_value() {
    let dir = scratch("unknowns");
    let sweep = |paper: &str| dumbbell_sweep(&dir, paper);
    let loss = |x: &str| format!("{{ point = {{ \"link.bottleneck.loss\" = {x} }} }}");
    let paper = format!(
        "[paper]\n[[paper.claim]]\ntext = \"1 % loss costs more than a factor of 1.1\"\nmetric = \"goodput_mean\"\ngroup = \"all\"\nband = [1.1, 1000]\nratio = [{}, {}]\n\
         [[paper.claim]]\ntext = \"1 % loss costs a factor of 1000\"\nmetric = \"goodput_mean\"\ngroup = \"all\"\nband = [900, 1100]\nratio = [{}, {}]\n\
         [[paper.claim]]\ntext = \"the bottleneck is busy\"\nmetric = \"links.utilization\"\ngroup = \"bottleneck\"\nband = [0.5, 1.0]\ndenominator = 1.0\nratio = [{}]\n\
         testable_if = {{ metric = \"links.utilization\", group = \"bottleneck\", at_least = 2.0 }}\n\
         [[paper.unknown]]\nkey = \"link.bottleneck.buffer\"\nvalues = [\"22ms\", \"100ms\"]\nwhy = \"not given\"\n\
         [[paper.unknown]]\nkey = \"sim.serialization\"\nvalues = [\"exact\", \"htsim\"]\nwhy = \"the platform's clock\"\n",
        loss("0.0"),
        loss("0.01"),
        loss("0.0"),
        loss("0.01"),
        loss("0.0")
    );
    let file = sweep(&paper);
    let data = dir.join("data");
    let o = equipoise(&["sweep", file.to_str().unwrap(), "--quiet", "--out", data.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = equipoise(&["report", file.to_str().unwrap(), "--dataset", data.to_str().unwrap(), "--unknowns", "--jobs", "2"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let row = |start: &str| text.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no row {start}\n{text}")).to_string();
    assert!(row("| 1 % loss costs more than").contains("**holds**"), "{text}");
    let thousand = row("| 1 % loss costs a factor of 1000");
    assert!(thousand.contains("**does not hold**") && thousand.contains("(the paper: 900 to 1100)"), "{text}");
    assert!(row("| the bottleneck is busy").contains("**not tested here**"), "a utilization below 2 cannot test it\n{text}");
    assert!(text.contains("Not given by the paper: `link.bottleneck.buffer`, here 22ms, 100ms"), "{text}");
    // A finding whose verdict is the same at every value is counted under the table, not a row.
    let rows = text.lines().filter(|l| l.starts_with("| 1 % loss costs a factor of 1000")).count();
    assert_eq!(rows, 1, "the finding fails at both buffers: no row of its own in the unknowns' tables\n{text}");
    assert!(text.contains("the same verdict at each value as in the runs above."), "{text}");
    // The scenario's own 22 ms is the dataset's: only 100 ms is run again.
    assert!(!dir.join("data-unknowns/link.bottleneck.buffer=22ms").exists(), "the scenario's own value runs nothing");
    assert!(dir.join("data-unknowns/link.bottleneck.buffer=100ms/sweep.toml").exists(), "the variant's dataset");
    // So is a value the scenario leaves to the default.
    assert!(!dir.join("data-unknowns/sim.serialization=exact").exists(), "the default value runs nothing");
    assert!(dir.join("data-unknowns/sim.serialization=htsim/sweep.toml").exists(), "the variant's dataset");
    // Bad unknowns are refused before anything runs, naming the entry.
    for (bad, key) in [
        ("key = \"link.bottleneck.loss\"\nvalues = [0.0, 0.1]", "paper.unknown[0].key"),
        ("key = \"link.bottleneck.buffer\"\nvalues = [\"22ms\", \"lots\"]", "paper.unknown[0].values[1]"),
        ("key = \"link.bottleneck.bufer\"\nvalues = [\"22ms\", \"30ms\"]", "paper.unknown[0]"),
        ("key = \"link.bottleneck.buffer\"\nvalues = [\"22ms\"]", "paper.unknown[0].values"),
    ] {
        let file = sweep(&format!(
            "[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"goodput_mean\"\ngroup = \"all\"\nalong = \"link.bottleneck.loss\"\ntrend = \"decreasing\"\n[[paper.unknown]]\n{bad}\nwhy = \"w\"\n"
        ));
        let o = equipoise(&["validate", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(key), "{bad}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
