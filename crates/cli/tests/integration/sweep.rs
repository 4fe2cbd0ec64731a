//! `equipoise sweep`, `summarize` and `plot` end to end: datasets independent of threads,
//! shards and interruptions; failures recorded; statistics checked by hand.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::equipoise;
use polars::prelude::*;

const SCENARIO: &str = r#"
[sim]
duration = "4s"
warmup = "1s"

[[link]]
name = "l"
rate = "10Mbps"
delay = "5ms"
buffer = "20pkt"

[[flow]]
name = "f"
count = 2
paths = [["l"]]
start = { uniform = ["0s", "100ms"] }
"#;

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// A scratch directory with the scenario and a sweep file whose grid is `grid`.
fn setup(name: &str, grid: &str) -> (crate::common::Scratch, PathBuf) {
    let dir = crate::common::scratch("sweep", name);
    std::fs::write(dir.join("base.toml"), SCENARIO).unwrap();
    let sweep = dir.join("sweep.toml");
    std::fs::write(&sweep, format!("scenario = \"base.toml\"\nreplicates = 3\nseed = 9\n\n{grid}")).unwrap();
    (dir, sweep)
}

const GRID: &str = "[grid]\n\"link.l.rate\" = [\"5Mbps\", \"10Mbps\"]\n\"flow.f.count\" = [1, 2]\n";

/// Every file of a dataset (relative path → bytes), the things that must not depend on how
/// the sweep was run.
fn dataset(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for table in ["flows", "subflows", "links", "timeseries", "runs"] {
        for e in std::fs::read_dir(dir.join(table)).unwrap() {
            let p = e.unwrap().path();
            files.insert(format!("{table}/{}", p.file_name().unwrap().to_string_lossy()), std::fs::read(&p).unwrap());
        }
    }
    files
}

fn sweep(file: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    equipoise(&args)
}

#[test]
fn datasets_do_not_depend_on_threads_or_shards() {
    let (dir, file) = setup("threads", GRID);
    let (one, two, sharded) = (dir.join("one"), dir.join("two"), dir.join("sharded"));
    ok(sweep(&file, &one, &["--jobs", "1"]));
    ok(sweep(&file, &two, &["--jobs", "2"]));
    ok(sweep(&file, &sharded, &["--shard", "2/2", "--jobs", "1"]));
    let half = dataset(&sharded).len();
    ok(sweep(&file, &sharded, &["--shard", "1/2", "--jobs", "2"]));
    let reference = dataset(&one);
    assert_eq!(reference.len(), 4 * 3 * 4, "4 points × 3 replicates × 4 tables (no time series: sampling is off)");
    assert!(half > 0 && half < reference.len());
    assert!(reference == dataset(&two), "--jobs 1 and --jobs 2 differ");
    assert!(reference == dataset(&sharded), "two shards differ from one run");
    // One table, every run, with the run columns and one column per swept key.
    let flows = read_all(&one, "flows");
    let names: Vec<&str> = flows.get_column_names().iter().map(|n| n.as_str()).collect();
    assert_eq!(&names[..5], ["point", "replicate", "seed", "link.l.rate", "flow.f.count"]);
    assert_eq!(flows.height(), 3 * (1 + 2) * 2, "(1 + 2 flows) × 2 rates × 3 replicates");
}

fn read_all(dir: &Path, table: &str) -> DataFrame {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(table)).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut df = ParquetReader::new(File::open(&files[0]).unwrap()).finish().unwrap();
    for f in &files[1..] {
        df.vstack_mut(&ParquetReader::new(File::open(f).unwrap()).finish().unwrap()).unwrap();
    }
    df
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_dataset() {
    let (dir, file) = setup(
        "resume",
        "[grid]\n\"link.l.rate\" = [\"2Mbps\", \"4Mbps\", \"6Mbps\", \"8Mbps\", \"10Mbps\", \"12Mbps\"]\n\"sim.duration\" = [\"20s\"]\n",
    );
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    ok(sweep(&file, &whole, &["--jobs", "1"]));
    // Kill a sweep part-way (wherever it is), leave a half-written file behind as a crash
    // would, then resume.
    let mut child = Command::new(env!("CARGO_BIN_EXE_equipoise"))
        .args(["sweep", file.to_str().unwrap(), "--out", killed.to_str().unwrap(), "--quiet", "--jobs", "1"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    // What a crash can leave: a temporary file, and the tables of a run not yet marked done.
    std::fs::create_dir_all(killed.join("flows")).unwrap();
    std::fs::write(killed.join("flows/batch-000017.parquet.tmp"), b"half a file").unwrap();
    if !killed.join("runs/batch-000017.parquet").exists() {
        std::fs::write(killed.join("flows/batch-000017.parquet"), b"a file of an unfinished run").unwrap();
    }
    let again = sweep(&file, &killed, &[]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("--resume"), "refuses to mix without --resume");
    ok(sweep(&file, &killed, &["--resume", "--jobs", "2"]));
    assert!(dataset(&whole) == dataset(&killed), "resumed dataset differs");
    let leftovers = std::fs::read_dir(killed.join("flows"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "tmp"))
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn editing_the_paper_table_keeps_the_dataset_and_editing_the_grid_does_not() {
    let (dir, file) = setup("paper-edit", GRID);
    let out = dir.join("out");
    ok(sweep(&file, &out, &[]));
    let text = std::fs::read_to_string(&file).unwrap();
    // The paper's findings and the comments change: the runs are the same, so the dataset is
    // this sweep's still.
    let claim = "# a note\n[paper]\n[[paper.claim]]\ntext = \"t\"\nmetric = \"jain_index\"\ngroup = \"all\"\nalong = \"flow.f.count\"\ntrend = \"decreasing\"\n";
    std::fs::write(&file, format!("{text}{claim}")).unwrap();
    ok(sweep(&file, &out, &["--resume"]));
    // The grid changes: another sweep.
    std::fs::write(&file, text.replace("[1, 2]", "[1, 3]")).unwrap();
    let o = sweep(&file, &out, &["--resume"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("another sweep"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_failing_point_is_recorded_and_the_others_complete() {
    // warm-up 3 s is valid with the base duration, and 2 s is a valid duration, but not both.
    let (dir, file) = setup("failing", "[grid]\n\"sim.duration\" = [\"2s\", \"5s\"]\n\"sim.warmup\" = [\"1s\", \"3s\"]\n");
    let out = dir.join("out");
    let o = ok(sweep(&file, &out, &[]));
    let _ = o;
    let runs = read_all(&out, "runs");
    let status = runs.column("status").unwrap().str().unwrap().iter().map(|s| s.unwrap_or_default()).collect::<Vec<_>>();
    assert_eq!(status.iter().filter(|s| **s == "failed").count(), 3, "{status:?}");
    assert_eq!(status.iter().filter(|s| **s == "ok").count(), 9);
    let errors: Vec<String> = runs.column("error").unwrap().str().unwrap().iter().flatten().map(str::to_string).collect();
    assert!(errors.iter().all(|e| e.contains("sim.warmup: must be shorter than sim.duration")), "{errors:?}");
}

/// `validate` and `sweep` apply each swept key and the `[quick]` settings as `run --set` does:
/// a key of the other kind of scenario, or a value wrong at another key, is refused before
/// anything runs, naming the sweep file and the key.
#[test]
fn every_swept_key_is_checked_against_the_scenario_as_a_run_would() {
    let cases = [
        ("[grid]\n\"aimd.capacity\" = [2, 3]\n", "sweep.toml: aimd.capacity: this is a network scenario (it has no [aimd] table)"),
        ("[[zip]]\n\"aimd.events\" = [10]\n\"sim.seed\" = [1]\n", "sweep.toml: aimd.events: this is a network scenario"),
        ("[grid]\n\"sim.duration\" = [\"500ms\"]\n", "sweep.toml: sim.duration: sim.warmup: must be shorter than sim.duration (500ms)"),
    ];
    for (grid, expected) in cases {
        let (dir, file) = setup("kind", grid);
        for o in [equipoise(&["validate", file.to_str().unwrap()]), sweep(&file, &dir.join("out"), &[])] {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && err.contains(expected), "expected «{expected}» in «{err}»");
            assert!(!String::from_utf8_lossy(&o.stdout).contains("ok"));
        }
        assert!(!dir.join("out").exists(), "refused before anything is made");
    }
    // The base scenario's [quick] settings, which `sweep --quick` applies after each point's.
    let (dir, file) = setup("quick", "[grid]\n\"sim.seed\" = [1, 2]\n");
    std::fs::write(dir.join("base.toml"), format!("{SCENARIO}\n[quick]\n\"aimd.events\" = 100\n")).unwrap();
    let expected = "sweep.toml: the [quick] variant";
    for o in [equipoise(&["validate", file.to_str().unwrap()]), sweep(&file, &dir.join("out"), &["--quick"])] {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(expected) && err.contains("quick.\"aimd.events\": this is a network scenario"),
            "{err}"
        );
    }
    assert!(!dir.join("out").exists(), "refused before anything is made");
    std::fs::write(dir.join("base.toml"), format!("{SCENARIO}\n[quick]\n\"sim.duration\" = \"500ms\"\n")).unwrap();
    let o = equipoise(&["validate", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains(expected) && err.contains("sim.warmup: must be shorter than sim.duration"), "{err}");
    // A sweep whose keys all fit validates, [quick] variant included.
    let (_dir, file) = setup("fits", GRID);
    let o = ok(equipoise(&["validate", file.to_str().unwrap()]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("[quick] variant ok"));
}

#[test]
fn bad_sweep_files_name_the_key() {
    let cases = [
        ("[grid]\n\"link.nope.rate\" = [\"1Mbps\"]\n", "link.nope.rate: no link named \"nope\""),
        ("[grid]\n\"link.l.rat\" = [\"1Mbps\"]\n", "sweep.toml: link.l.rat: unknown key; did you mean \"rate\"?"),
        ("[grid]\n\"link.l.rate\" = [100]\n", "sweep.toml: link.l.rate: expected a rate with a unit"),
        ("[grid]\n\"link.l.rate\" = []\n", "grid.\"link.l.rate\": empty"),
        ("[grid]\n", "grid: empty"),
        (
            "[[zip]]\n\"link.l.rate\" = [\"1Mbps\", \"2Mbps\"]\n\"link.l.delay\" = [\"1ms\"]\n",
            "zip[0].\"link.l.delay\": 1 values where the group's first key has 2",
        ),
        ("[grid]\n\"flow.f.cc.phi\" = [0.5]\n", "sweep.toml: flow.f.cc.phi: \"reno\" has no parameter \"phi\""),
    ];
    // A grid over the point limit is refused from its shape, before any of its values (here
    // all invalid: each would be an error of its own) is checked against the scenario.
    let many = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let huge = format!(
        "[grid]\n\"link.l.rate\" = [{}]\n\"link.l.delay\" = [{}]\n",
        many(1001, &|i| format!("\"{i}bogus\"")),
        many(1000, &|i| format!("\"{i}ms\""))
    );
    let cases: Vec<(String, &str)> = cases
        .iter()
        .map(|&(g, e)| (g.to_string(), e))
        .chain([(huge, "grid: the factors' levels (1001 × 1000) multiply to more than 1000000 points")])
        .collect();
    for (grid, expected) in &cases {
        let (dir, file) = setup("bad", grid);
        let o = sweep(&file, &dir.join("out"), &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(*expected), "expected «{expected}» in «{err}»");
    }
    // --jobs is bounded before any thread starts.
    let (dir, file) = setup("jobs", GRID);
    for jobs in ["0", "1025", "18446744073709551615"] {
        let o = sweep(&file, &dir.join("out"), &["--jobs", jobs]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains("--jobs") && err.contains("from 1 to 1024"), "--jobs {jobs}: {err}");
        assert!(!dir.join("out").exists(), "--jobs {jobs}: refused before anything is made");
    }
}

#[test]
fn summary_intervals_match_a_hand_computation_and_plots_are_drawn() {
    let (dir, file) = setup("summary", GRID);
    let out = dir.join("out");
    ok(sweep(&file, &out, &[]));
    let printed = String::from_utf8_lossy(&ok(equipoise(&["summarize", out.to_str().unwrap()])).stdout).into_owned();
    assert!(printed.contains("12 runs (0 failed), 4 points"), "{printed}");
    // By hand: flow f.0's goodput at point 3 over its three replicates.
    let flows = read_all(&out, "flows");
    let (points, names, goodputs) = (
        flows.column("point").unwrap().u32().unwrap().into_no_null_iter().collect::<Vec<_>>(),
        flows.column("flow").unwrap().str().unwrap().iter().map(|s| s.unwrap_or_default()).map(str::to_string).collect::<Vec<_>>(),
        flows.column("goodput_bps").unwrap().f64().unwrap().into_no_null_iter().collect::<Vec<_>>(),
    );
    let xs: Vec<f64> = (0..flows.height()).filter(|&i| points[i] == 3 && names[i] == "f.0").map(|i| goodputs[i]).collect();
    assert_eq!(xs.len(), 3);
    let mean = xs.iter().sum::<f64>() / 3.0;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.303 * sd / 3f64.sqrt(); // t(0.975, 2 df) = 4.303
    let summary = ParquetReader::new(File::open(out.join("summary/flows.parquet")).unwrap()).finish().unwrap();
    let row = (0..summary.height())
        .find(|&i| {
            summary.column("point").unwrap().u32().unwrap().get(i) == Some(3)
                && summary.column("entity").unwrap().str().unwrap().get(i) == Some("f.0")
                && summary.column("metric").unwrap().str().unwrap().get(i) == Some("goodput_bps")
        })
        .expect("a summary row for f.0 at point 3");
    let get = |c: &str| summary.column(c).unwrap().f64().unwrap().get(row).unwrap();
    assert!((get("mean") - mean).abs() <= 1e-9 * mean);
    assert!((get("ci95_high") - (mean + half)).abs() <= 1e-6 * mean, "{} vs {}", get("ci95_high"), mean + half);
    assert!((get("ci95_low") - (mean - half)).abs() <= 1e-6 * mean);
    // A plot with one line per rate, axis labels with units and a legend; with --at, only the
    // points where a swept key has a value.
    let plot = |file: &Path, extra: &[&str]| {
        let mut args = vec!["plot", out.to_str().unwrap(), "--x", "flow.f.count", "--y", "flows.goodput_bps", "--by", "link.l.rate"];
        args.extend(extra);
        args.extend(["--out", file.to_str().unwrap()]);
        equipoise(&args)
    };
    let svg = out.join("plot.svg");
    ok(plot(&svg, &[]));
    let text = std::fs::read_to_string(&svg).unwrap();
    for expected in ["goodput (bit/s)", "flow.f.count", "link.l.rate", "5Mbps", "10Mbps"] {
        assert!(text.contains(expected), "{expected} missing from the plot");
    }
    assert!(!text.contains("replicates at some points"), "three replicates a point need no note");
    // --at keeps the points where a swept key has a value; a value it never takes is an error
    // listing those it does.
    let at = out.join("at.svg");
    let plot_at = |value: &str| plot(&at, &["--at", &format!("link.l.rate={value}")]);
    ok(plot_at("10Mbps"));
    let text = std::fs::read_to_string(&at).unwrap();
    assert!(text.contains("10Mbps") && !text.contains(">5Mbps") && !text.contains("\n5Mbps"), "--at kept another level");
    let o = plot_at("7Mbps");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("10Mbps, 5Mbps"), "{err}");
    // The same figure as PNG beside it, with its text drawn (dark pixels in the legend column,
    // where only the legend's words are black) and both series' colours.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(out.join("plot.png")).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height, info.color_type), (960, 520, png::ColorType::Rgb));
    let at = |x: usize, y: usize| &pixels[(y * 960 + x) * 3..(y * 960 + x) * 3 + 3];
    let legend_text = (0..520).flat_map(|y| (800..960).map(move |x| (x, y))).filter(|&(x, y)| at(x, y).iter().all(|&c| c < 80)).count();
    assert!(legend_text > 200, "legend text missing from the PNG: {legend_text} dark pixels");
    let colours: std::collections::BTreeSet<&[u8]> =
        (0..520).flat_map(|y| (0..760).map(move |x| (x, y))).map(|(x, y)| at(x, y)).filter(|c| c[0] != c[1] || c[1] != c[2]).collect();
    assert!(colours.len() >= 2, "series colours missing from the PNG");
}

#[test]
fn slurm_mode_writes_a_job_array_script() {
    let (dir, file) = setup("slurm", GRID);
    let out = dir.join("out");
    let o = ok(sweep(&file, &out, &["--slurm", "--slurm-shards", "3", "--slurm-cpus", "2"]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("sbatch"));
    let script = std::fs::read_to_string(out.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=1-3") && script.contains("--shard \"${SLURM_ARRAY_TASK_ID}/3\""), "{script}");
}

#[test]
fn an_aimd_model_sweeps_like_a_scenario() {
    let dir = crate::common::scratch("sweep", "aimd");
    let base = "[aimd]\npolicy = \"largest-rate\"\nevents = 2000\n\n[[aimd.group]]\nname = \"tcp\"\ncount = 1\n";
    std::fs::write(dir.join("base.toml"), base).unwrap();
    let file = dir.join("sweep.toml");
    std::fs::write(&file, "scenario = \"base.toml\"\nreplicates = 2\n[grid]\n\"aimd.group.tcp.count\" = [1, 3, 6]\n").unwrap();
    let out = dir.join("out");
    ok(sweep(&file, &out, &["--jobs", "2"]));
    let model = read_all(&out, "model");
    assert_eq!(model.height(), 3 * 2);
    let n: Vec<i64> = model.column("aimd.group.tcp.count").unwrap().i64().unwrap().into_no_null_iter().collect();
    let u: Vec<f64> = model.column("utilization").unwrap().f64().unwrap().into_no_null_iter().collect();
    for (n, u) in n.iter().zip(&u) {
        let theorem1 = 1.0 - 1.0 / (1.0 + 3.0 * *n as f64);
        assert!((u / theorem1 - 1.0).abs() < 0.01, "N = {n}: {u} vs {theorem1}");
    }
    assert_eq!(read_all(&out, "connections").height(), 2 * (1 + 3 + 6));
    let digest = String::from_utf8_lossy(&ok(equipoise(&["summarize", out.to_str().unwrap()])).stdout).into_owned();
    assert!(digest.contains("model: utilization"), "{digest}");
}

#[test]
fn thousands_of_tiny_runs_in_small_batches() {
    // 4 000 one-millisecond runs, two per file: the size at which batches nested on one
    // thread's stack (a worker waiting in polars' pool took on more batches) and overflowed it.
    let dir = crate::common::scratch("sweep", "many");
    let scenario = std::path::absolute("../../scenarios/dumbbell.toml").unwrap();
    std::fs::write(
        dir.join("s.toml"),
        format!(
            "scenario = {:?}\nreplicates = 4000\nruns_per_file = 2\n[grid]\n\"sim.duration\" = [\"1ms\"]\n\"sim.warmup\" = [\"0s\"]\n",
            scenario.display().to_string()
        ),
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_equipoise"))
        .args(["sweep", "s.toml", "--out", "data", "--quiet", "--jobs", "2"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_dir(dir.join("data/runs")).unwrap().count(), 2000);
}

/// `equipoise args`, failed if it runs longer than `seconds`: a refusal that hangs is a failure,
/// not a stuck test. (Output goes to files, so that a full pipe cannot stall the child.)
fn equipoise_within(seconds: u64, dir: &Path, args: &[&str]) -> Output {
    use std::time::{Duration, Instant};
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_equipoise"))
        .args(args)
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .spawn()
        .expect("the binary runs");
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?}: still running after {seconds} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: std::fs::read(out).unwrap(), stderr: std::fs::read(err).unwrap() }
}

/// Grids too large for the limits over the heaviest scenario to check (a fat-tree, a build per
/// level), and input paths that are no files, are refused within seconds, naming the file,
/// the key and the path, before anything is made.
#[test]
fn huge_grids_and_special_files_are_refused_within_seconds() {
    let dir = crate::common::scratch("sweep", "refused");
    let fat_tree = std::path::absolute("../../scenarios/seed002-fig13.toml").unwrap();
    let levels = |n: usize, f: &dyn Fn(usize) -> String| format!("[{}]", (0..n).map(f).collect::<Vec<_>>().join(", "));
    let integers = |n: usize| levels(n, &|i| (i + 1).to_string());
    let rates = levels(4, &|i| format!("\"{}Mbps\"", 10 * (i + 1)));
    let grids = [
        (
            format!("[grid]\n\"topology.rate\" = {}\n\"sim.seed\" = {}\n", levels(1001, &|i| format!("\"{}Mbps\"", i + 1)), integers(1000)),
            "grid: the factors' levels (1001 × 1000) multiply to more than 1000000 points",
        ),
        (
            format!(
                "[grid]\n\"sim.seed\" = {0}\n\"tcp.initial_cwnd\" = {0}\n\"tcp.min_ssthresh\" = {0}\n\"tcp.quick_acks\" = {0}\n",
                integers(65_536)
            ),
            "grid: the factors' levels (65536 × 65536 × 65536 × 65536) multiply to more than 1000000 points",
        ),
        (
            format!("replicates = 40\n[grid]\n\"topology.rate\" = {rates}\n\"sim.seed\" = {}\n", integers(65_536)),
            "replicates: 262144 points × 40 replicates is more than 10000000 runs",
        ),
    ];
    let out = dir.join("out");
    let sweep_file = dir.join("sweep.toml");
    let sweep_path = sweep_file.to_str().unwrap();
    for (grid, expected) in &grids {
        std::fs::write(&sweep_file, format!("scenario = {:?}\n{grid}", fat_tree.display().to_string())).unwrap();
        for args in [vec!["validate", sweep_path], vec!["sweep", sweep_path, "--out", out.to_str().unwrap()]] {
            let o = equipoise_within(10, &dir, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && err.contains(&format!("{sweep_path}: {expected}")), "{:?}: {err}", args[0]);
            assert!(!out.exists(), "{:?}: nothing made", args[0]);
        }
    }
    // Paths that are no files: devices without end, a FIFO nobody writes, a directory.
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let folder = dir.join("folder");
    std::fs::create_dir(&folder).unwrap();
    let specials = [
        ("/dev/zero", "larger than 4 MiB"),
        ("/dev/urandom", "larger than 4 MiB"),
        (fifo.to_str().unwrap(), "a FIFO or socket, not a file"),
        (folder.to_str().unwrap(), "a directory, not a file"),
    ];
    for (path, expected) in specials {
        std::fs::write(&sweep_file, format!("scenario = {path:?}\n[grid]\n\"sim.seed\" = [1, 2]\n")).unwrap();
        let cases = [
            (vec!["validate", path], format!("{path}: {expected}")),
            (vec!["run", path, "--out", out.to_str().unwrap()], format!("{path}: {expected}")),
            (vec!["sweep", path, "--out", out.to_str().unwrap()], format!("{path}: {expected}")),
            (vec!["validate", sweep_path], format!("{sweep_path}: scenario: {path}: {expected}")),
            (vec!["sweep", sweep_path, "--out", out.to_str().unwrap()], format!("{sweep_path}: scenario: {path}: {expected}")),
        ];
        for (args, message) in cases {
            let o = equipoise_within(10, &dir, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && err.contains(&message), "{args:?}: expected «{message}» in «{err}»");
            assert!(!out.exists(), "{args:?}: nothing made");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kernel's settings of a sweep (`[paper] kernel`) are checked with the sweep, and what
/// `sweep --testbed` cannot do with other options is refused before anything runs.
#[test]
fn the_kernels_settings_and_testbed_sweeps_are_checked_before_anything_runs() {
    let paper = |platforms: &str, kernel: &str| {
        format!(
            "{GRID}\n[paper]\nsource = \"a test\"\nplatforms = {platforms}\n{kernel}\n\n[[paper.value]]\nlabel = \"x\"\npoint = {{ \"link.l.rate\" = \"5Mbps\", \"flow.f.count\" = 1 }}\nmetric = \"goodput_mean\"\ngroup = \"f\"\nvalue = 1e6\n"
        )
    };
    let refused = |grid: &str, expected: &str| {
        let (_dir, sweep) = setup("kernel-settings", grid);
        let o = equipoise(&["validate", sweep.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(expected), "{expected}: {e}");
    };
    refused(&paper("[\"ns2\"]", "kernel = { replicates = 1 }"), "paper.kernel: given, but `platforms` does not list \"kernel\"");
    refused(&paper("[\"kernel\"]", "kernel = { replicates = 4 }"), "paper.kernel.replicates: 4: at most the sweep's own 3");
    refused(
        &paper("[\"kernel\"]", "kernel = { set = { \"sim.durration\" = \"5s\" } }"),
        "paper.kernel.set: the scenario with these settings: base.toml: sim.durration: unknown key",
    );
    refused(&paper("[\"kernel\"]", "kernel = { set = 5 }"), "paper.kernel.set: expected a table of settings");
    let (dir, sweep) = setup("kernel-options", &paper("[\"kernel\"]", "kernel = { replicates = 1 }"));
    ok(equipoise(&["validate", sweep.to_str().unwrap()]));
    let out = dir.join("never");
    for (extra, expected) in [
        (&["--jobs", "2"][..], "--testbed runs one run at a time"),
        (&["--ns2"][..], "--ns2 with --testbed"),
        (&["--slurm"][..], "--testbed with --slurm"),
        (&["--fluid"][..], "--fluid with --ns2 or --testbed"),
    ] {
        let mut args = vec!["sweep", sweep.to_str().unwrap(), "--testbed", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = equipoise(&args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(expected), "{extra:?}: {e}");
        assert!(!out.exists(), "{extra:?}: nothing made");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
