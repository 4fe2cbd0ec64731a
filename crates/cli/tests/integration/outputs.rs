//! No command ever deletes or replaces a file it did not write: every kind of output location
//! a user may name, tried end to end.

use std::path::Path;
use std::process::{Command, Output};

const SCENARIO: &str = "../../scenarios/dumbbell.toml";

fn equipoise_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_equipoise")).args(args).current_dir(cwd).output().expect("the binary runs")
}

/// A fresh folder holding the user's own `notes.txt`.
fn project(name: &str) -> crate::common::Scratch {
    let dir = crate::common::scratch("outputs", name);
    std::fs::write(dir.join("notes.txt"), "the user's").unwrap();
    dir
}

fn scenario() -> String {
    std::path::absolute(SCENARIO).unwrap().to_string_lossy().into_owned()
}

/// `run` with a one-second simulation into `out`, from `cwd`.
fn run(cwd: &Path, out: Option<&str>, extra: &[&str]) -> Output {
    let scenario = scenario();
    let mut args = vec!["run", scenario.as_str(), "--quiet", "--set", "sim.duration=1s", "--set", "sim.warmup=0s"];
    if let Some(out) = out {
        args.extend(["--out", out]);
    }
    args.extend(extra);
    equipoise_in(cwd, &args)
}

fn refused(o: &Output, mentions: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "should be refused");
    assert!(err.contains(mentions), "error should mention {mentions:?}: {err}");
}

fn intact(dir: &Path) {
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "the user's");
}

#[test]
fn a_directory_with_the_users_files_is_refused_then_written_beside_them() {
    let p = project("mydir");
    let o = run(&p, Some("."), &[]);
    refused(&o, "notes.txt");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--overwrite"));
    intact(&p);
    let o = run(&p, Some("."), &["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    intact(&p);
    assert!(p.join("flows.parquet").exists() && p.join(".equipoise-output").exists());
    // Run again: still refused without --overwrite (the folder is the user's), fine with it.
    refused(&run(&p, Some("."), &[]), "notes.txt");
    assert!(run(&p, Some("."), &["--overwrite"]).status.success());
    intact(&p);
}

#[test]
fn the_parent_folder_the_project_and_the_default_location_are_protected() {
    let p = project("parent");
    let sub = p.join("sub");
    std::fs::create_dir(&sub).unwrap();
    refused(&run(&sub, Some(".."), &[]), "notes.txt");
    // `run proj/s.toml --out proj`: the scenario's own folder, with its .git.
    std::fs::create_dir(p.join(".git")).unwrap();
    std::fs::copy(SCENARIO, p.join("s.toml")).unwrap();
    let o = equipoise_in(&p, &["run", "s.toml", "--out", ".", "--quiet", "--set", "sim.duration=1s", "--set", "sim.warmup=0s"]);
    refused(&o, "notes.txt");
    assert!(p.join(".git").is_dir() && p.join("s.toml").is_file());
    // The default results/<name> holding something else.
    let results = p.join("results").join("dumbbell");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("analysis.ipynb"), "{}").unwrap();
    refused(&run(&p, None, &[]), "analysis.ipynb");
    assert!(results.join("analysis.ipynb").exists());
    intact(&p);
}

#[test]
fn a_file_in_place_of_the_directory_is_never_replaced() {
    let p = project("file");
    std::fs::write(p.join("out"), "the user's file").unwrap();
    for extra in [&[][..], &["--overwrite"][..]] {
        refused(&run(&p, Some("out"), extra), "not a directory");
    }
    assert_eq!(std::fs::read_to_string(p.join("out")).unwrap(), "the user's file");
    let left: Vec<String> = std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| !n.contains(".old-") && !n.contains(".tmp-")), "{left:?}");
}

/// `--out FILE` (a regular file) and `--out FILE/sub`, for a run and a sweep: each error names
/// the path and what it is, never only the system's "Not a directory", and the file is kept.
#[test]
fn an_out_path_through_a_file_is_refused_naming_it() {
    let p = project("out-file");
    std::fs::write(p.join("s.toml"), format!("scenario = {:?}\n[grid]\n\"sim.seed\" = [1]\n", scenario())).unwrap();
    let sweep = |out: &str| equipoise_in(&p, &["sweep", "s.toml", "--out", out, "--quiet"]);
    let path = |o: &Output, path: &str, what: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(path) && err.contains(what), "expected {path:?} and {what:?} in {err}");
        assert!(!err.starts_with("error: Not a directory"), "{err}");
    };
    path(&run(&p, Some("notes.txt"), &[]), "notes.txt exists and is not a directory", "choose another --out");
    path(&sweep("notes.txt"), "notes.txt exists and is not a directory", "choose another --out");
    path(&run(&p, Some("notes.txt/sub"), &[]), "cannot write into notes.txt/sub", "Not a directory");
    path(&sweep("notes.txt/sub"), "cannot create notes.txt/sub/", "Not a directory");
    path(&equipoise_in(&p, &["summarize", "notes.txt"]), "notes.txt: not a sweep dataset (cannot read notes.txt/", "Not a directory");
    intact(&p);
}

#[test]
fn a_symlink_is_written_through_and_kept() {
    let p = project("symlink");
    let real = p.join("real");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, p.join("link")).unwrap();
    assert!(run(&p, Some("link"), &[]).status.success());
    assert!(std::fs::symlink_metadata(p.join("link")).unwrap().file_type().is_symlink());
    assert!(real.join("flows.parquet").exists());
    // A link to the user's folder is refused like the folder.
    std::os::unix::fs::symlink(&p, p.join("home")).unwrap();
    refused(&run(&p, Some("home"), &[]), "notes.txt");
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_run() {
    let p = project("unwritable");
    // Under a regular file, nothing can be created (whoever runs the test, root included).
    let o = run(&p, Some("notes.txt/out"), &["--set", "sim.duration=600s"]);
    refused(&o, "nothing was run");
    intact(&p);
}

#[test]
fn plots_summaries_and_batch_scripts_replace_only_their_own_files() {
    let p = project("sweep");
    let sweep = p.join("s.toml");
    std::fs::write(
        &sweep,
        format!(
            "scenario = {:?}\nreplicates = 2\n[grid]\n\"link.bottleneck.loss\" = [0.0, 0.001]\n\"sim.duration\" = [\"1s\"]\n\"sim.warmup\" = [\"0s\"]\n",
            scenario()
        ),
    )
    .unwrap();
    let o = equipoise_in(&p, &["sweep", "s.toml", "--out", "data", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A summary directory holding the user's file: refused; without it, written and rewritten.
    std::fs::create_dir(p.join("data/summary")).unwrap();
    std::fs::write(p.join("data/summary/mine.csv"), "x").unwrap();
    refused(&equipoise_in(&p, &["summarize", "data"]), "mine.csv");
    std::fs::remove_file(p.join("data/summary/mine.csv")).unwrap();
    for _ in 0..2 {
        let o = equipoise_in(&p, &["summarize", "data"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // A plot over the user's SVG: refused unless --overwrite; over its own: replaced.
    let plot = |extra: &[&str]| {
        let mut args = vec!["plot", "data", "--x", "link.bottleneck.loss", "--y", "links.utilization", "--out", "fig.svg"];
        args.extend(extra);
        equipoise_in(&p, &args)
    };
    std::fs::write(p.join("fig.svg"), "<svg>the user's figure</svg>").unwrap();
    refused(&plot(&[]), "fig.svg");
    assert_eq!(std::fs::read_to_string(p.join("fig.svg")).unwrap(), "<svg>the user's figure</svg>");
    assert!(plot(&["--overwrite"]).status.success());
    assert!(plot(&[]).status.success(), "a plot it drew is replaced");
    // Two replicates a point: the legend says the bands rest on them.
    let svg = std::fs::read_to_string(p.join("fig.svg")).unwrap();
    assert!(svg.contains("bands: 2 replicates at some points"), "no note of the replicates in the legend");
    // The PNG twin follows the same rule.
    std::fs::write(p.join("fig.png"), "the user's picture").unwrap();
    refused(&plot(&[]), "fig.png");
    assert_eq!(std::fs::read_to_string(p.join("fig.png")).unwrap(), "the user's picture");
    assert!(plot(&["--overwrite"]).status.success());
    assert!(plot(&[]).status.success(), "a PNG it drew is replaced");
    // A batch script: the dataset's own is replaced, another file of that name is not.
    let slurm = || equipoise_in(&p, &["sweep", "s.toml", "--out", "data", "--slurm"]);
    assert!(slurm().status.success());
    assert!(slurm().status.success());
    std::fs::write(p.join("data/sweep.sbatch"), "#!/bin/bash\n# my own job\n").unwrap();
    refused(&slurm(), "sweep.sbatch");
    intact(&p);
}

/// With `--overwrite`, a command writes beside the user's files, never over one that has the
/// name of a file it writes: a table, a capture, ns-2's script and results.
#[test]
fn overwrite_never_replaces_a_file_of_the_users_that_the_command_would_write() {
    let p = project("overwrite-theirs");
    for (name, extra) in [("flows.parquet", &[][..]), ("capture-bottleneck.pcapng", &["--capture", "bottleneck"][..])] {
        std::fs::write(p.join(name), "the user's").unwrap();
        let mut args = vec!["--overwrite"];
        args.extend(extra);
        let o = run(&p, Some("."), &args);
        refused(&o, name);
        assert!(String::from_utf8_lossy(&o.stderr).contains("nothing was written"), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read_to_string(p.join(name)).unwrap(), "the user's", "{name} kept");
        assert!(!p.join(".equipoise-output").exists() && !p.join("links.parquet").exists(), "nothing written beside it");
        std::fs::remove_file(p.join(name)).unwrap();
    }
    // Without such a file the run writes beside the user's, then replaces its own.
    for _ in 0..2 {
        let o = run(&p, Some("."), &["--overwrite", "--capture", "bottleneck"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(p.join("capture-bottleneck.pcapng").exists());
    intact(&p);
}

#[test]
fn ns2_with_overwrite_never_replaces_the_users_script_or_results() {
    let p = project("overwrite-ns2");
    let parallel = std::path::absolute("../../scenarios/parallel-droptail.toml").unwrap();
    for name in ["ns2-script.tcl", "ns2-results.txt", "flows.parquet"] {
        std::fs::write(p.join(name), "the user's").unwrap();
        // Refused before ns-2 runs: with a missing `ns`, the error is still the user's file.
        let o = equipoise_in(&p, &["ns2", parallel.to_str().unwrap(), "--out", ".", "--overwrite", "--ns", "/bin/false", "--quiet"]);
        refused(&o, name);
        assert_eq!(std::fs::read_to_string(p.join(name)).unwrap(), "the user's", "{name} kept");
        std::fs::remove_file(p.join(name)).unwrap();
    }
    intact(&p);
}

/// A dataset table that cannot be read is an error naming its file, as `plot` says it, never a
/// summary without that table.
#[test]
fn summarize_names_a_batch_it_cannot_read() {
    let p = project("corrupt");
    let sweep = p.join("s.toml");
    std::fs::write(
        &sweep,
        format!("scenario = {:?}\nreplicates = 2\n[grid]\n\"sim.duration\" = [\"1s\"]\n\"sim.warmup\" = [\"0s\"]\n", scenario()),
    )
    .unwrap();
    let o = equipoise_in(&p, &["sweep", "s.toml", "--out", "data", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let batch = std::fs::read_dir(p.join("data/flows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.extension().is_some_and(|x| x == "parquet"))
        .unwrap();
    std::fs::write(&batch, "not parquet").unwrap();
    let o = equipoise_in(&p, &["summarize", "data"]);
    refused(&o, &batch.file_name().unwrap().to_string_lossy());
    assert!(!p.join("data/summary").exists(), "no summary without its flows table");
}
