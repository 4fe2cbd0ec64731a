//! `equipoise export ns2` and `equipoise ns2`: a scenario as an ns-2.35 script, run there and
//! read back into the tables of `run`; what ns-2 lacks is an error naming the key.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, equipoise, metadata, stderr};
use polars::prelude::*;

const PARALLEL: &str = "../../scenarios/parallel-droptail.toml";

fn scratch(name: &str) -> common::Scratch {
    common::unused_path("ns2-cli", name)
}

#[test]
fn export_writes_every_tcp_setting_and_refuses_what_ns2_lacks() {
    let o = equipoise(&["export", "ns2", PARALLEL, "--set", "flow.par.count=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = String::from_utf8(o.stdout).unwrap();
    for line in ["$a set packetSize_ 1000", "$a set windowInit_ 2", "$a set minrto_ 0.2", "$a set maxburst_ 0", "$a set tcpTick_ 0.01"] {
        assert!(script.contains(line), "the script sets {line}");
    }
    // 5 packets of buffer is ns-2's queue-limit 5: four waiting and one in service.
    assert!(script.contains("link 0 0 1 10000000 0.06 DropTail 5"), "{script}");
    assert_eq!(script.matches("\nflow ").count(), 2);

    for (file, sets, key) in [
        ("../../scenarios/two-paths.toml", vec![], "flow.mp.paths"),
        (PARALLEL, vec!["--set", "tcp.jitter=1ms"], "tcp.jitter"),
        (PARALLEL, vec!["--set", "sim.serialization=\"htsim\""], "sim.serialization"),
        (PARALLEL, vec!["--set", "tcp.profile=\"linux\""], "tcp.profile"),
        (PARALLEL, vec!["--set", "link.bottleneck.loss=0.01"], "link.bottleneck.loss"),
        ("../../scenarios/parallel-threshold.toml", vec![], "link.bottleneck.queue"),
    ] {
        let mut args = vec!["export", "ns2", file];
        args.extend(sets);
        let o = equipoise(&args);
        assert!(!o.status.success(), "{args:?} is refused");
        assert!(o.stdout.is_empty(), "{args:?}: no half-written script");
        let e = stderr(&o);
        assert!(e.contains(key) && e.contains("ns-2"), "{args:?}: the error names {key} and ns-2: {e}");
    }
}

#[test]
fn ns2_runs_the_scenario_and_writes_the_tables_of_run() {
    let out = scratch("run");
    let missing = equipoise(&["ns2", PARALLEL, "--ns", "/nonexistent/ns", "--out", out.to_str().unwrap()]);
    assert!(!missing.status.success() && stderr(&missing).contains("/nonexistent/ns"), "{}", stderr(&missing));
    if !have_ns2("ns2_runs_the_scenario_and_writes_the_tables_of_run") {
        return;
    }
    // What a killed run left in the temporary directory (its process gone) is removed.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let leftover = std::env::temp_dir().join(format!("equipoise-ns2-{dead}-0"));
    std::fs::create_dir_all(&leftover).unwrap();
    std::fs::write(leftover.join("run.tcl"), "").unwrap();
    let sets = ["--set", "sim.duration=60s", "--set", "sim.warmup=20s", "--set", "flow.par.count=4", "--quiet"];
    let mut args = vec!["ns2", PARALLEL, "--out", out.to_str().unwrap()];
    args.extend(sets);
    let o = equipoise(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!leftover.exists(), "a dead run's scratch directory is removed");
    for f in ["flows.parquet", "links.parquet", "metrics.parquet", "ns2-script.tcl", "ns2-results.txt"] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    let read = |t: &str| ParquetReader::new(File::open(out.join(format!("{t}.parquet"))).unwrap()).finish().unwrap();
    let flows = read("flows");
    assert_eq!(flows.height(), 4);
    let goodput: f64 = flows.column("goodput_bps").unwrap().f64().unwrap().sum().unwrap();
    let links = read("links");
    let utilization = links.column("utilization").unwrap().f64().unwrap().get(0).unwrap();
    // The flows share a 10 Mb/s link: their goodput is what it carried, headers included.
    assert!((0.5..=1.0).contains(&utilization), "utilization {utilization}");
    assert!((goodput / 10e6 - utilization).abs() < 0.02, "goodput {goodput} against utilization {utilization}");
    let drops = links.column("queue_drops").unwrap().u64().unwrap().get(0).unwrap();
    assert!(drops > 0, "a 5-packet buffer drops");
    assert_eq!(metadata(&out.join("flows.parquet"), "equipoise.source").as_deref(), Some("ns2"), "marked as ns-2's");
    let _ = std::fs::remove_dir_all(&out);
}

/// Whether ns-2's `ns` runs here; under CI it must.
fn have_ns2(test: &str) -> bool {
    if Command::new("ns").arg("-version").output().is_ok() {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "CI must have ns-2 (.ci/run installs Debian's ns2 package)");
    eprintln!("SKIPPED {test}: ns-2's `ns` is not installed");
    false
}

/// A short sweep of seed 004's drop-tail network (N = 1 and 4), with one value and one
/// finding of the paper and ns-2 among its platforms.
fn parallel_sweep(dir: &std::path::Path, platforms: &str) -> PathBuf {
    let scenario = std::fs::canonicalize(PARALLEL).unwrap();
    let file = dir.join("parallel.toml");
    std::fs::write(
        &file,
        format!(
            "scenario = {scenario:?}\nreplicates = 2\n\n\
             [[zip]]\n\"sim.duration\" = [\"60s\"]\n\"sim.warmup\" = [\"20s\"]\n\n\
             [grid]\n\"flow.par.count\" = [1, 4]\n\n\
             [paper]\nsource = \"Fig. 7\"\nplatforms = {platforms}\n\n\
             [[paper.value]]\nlabel = \"Theorem 1, N = 4\"\npoint = {{ \"flow.par.count\" = 4 }}\n\
             metric = \"links.utilization\"\ngroup = \"bottleneck\"\nvalue = 0.923\n\n\
             [[paper.claim]]\ntext = \"utilization rises with N\"\nmetric = \"links.utilization\"\ngroup = \"bottleneck\"\n\
             along = \"flow.par.count\"\ntrend = \"increasing\"\n"
        ),
    )
    .unwrap();
    file
}

#[test]
fn a_sweep_runs_in_ns2_and_the_report_puts_its_verdicts_beside_ours() {
    let dir = scratch("sweep");
    std::fs::create_dir_all(&dir).unwrap();
    // What ns-2 cannot run, or a platform this tool does not know, is refused before any run.
    let unknown = parallel_sweep(&dir, "[\"htsim\"]");
    let o = equipoise(&["validate", unknown.to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("paper.platforms[0]"), "{}", stderr(&o));
    let threshold = dir.join("threshold.toml");
    let scenario = std::fs::canonicalize("../../scenarios/parallel-threshold.toml").unwrap();
    std::fs::write(&threshold, format!("scenario = {scenario:?}\n[grid]\n\"flow.par.count\" = [1, 2]\n")).unwrap();
    let out = dir.join("never");
    let o = equipoise(&["sweep", threshold.to_str().unwrap(), "--ns2", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(!o.status.success(), "ns-2 has no threshold-dropper");
    if have_ns2("a_sweep_runs_in_ns2_and_the_report_puts_its_verdicts_beside_ours") {
        let e = stderr(&o);
        assert!(e.contains("threshold.toml") && e.contains("point 0") && e.contains("threshold-dropper"), "{e}");
    }
    assert!(!out.exists(), "refused before anything is written");
    let file = parallel_sweep(&dir, "[\"ns2\"]");
    let fluid = equipoise(&["sweep", file.to_str().unwrap(), "--ns2", "--fluid", "--out", out.to_str().unwrap()]);
    assert!(!fluid.status.success() && stderr(&fluid).contains("--fluid with --ns2"), "{}", stderr(&fluid));
    if !have_ns2("a_sweep_runs_in_ns2_and_the_report_puts_its_verdicts_beside_ours") {
        return;
    }

    let (ours, theirs) = (dir.join("ours"), dir.join("ours-ns2"));
    for (out, extra) in [(&ours, None), (&theirs, Some("--ns2"))] {
        let mut args = vec!["sweep", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        args.extend(extra);
        let o = equipoise(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    // The datasets say where their runs were made, and one is never resumed as the other.
    let source = |dataset: &PathBuf| {
        let batch = std::fs::read_dir(dataset.join("links")).unwrap().next().unwrap().unwrap().path();
        metadata(&batch, "equipoise.source").unwrap_or_default()
    };
    assert_eq!((source(&ours).as_str(), source(&theirs).as_str()), ("packet", "ns2"));
    let o = equipoise(&["sweep", file.to_str().unwrap(), "--out", theirs.to_str().unwrap(), "--resume", "--quiet"]);
    assert!(!o.status.success() && stderr(&o).contains("another sweep"), "{}", stderr(&o));
    // ns-2's utilizations are its own: not the simulator's numbers under another name.
    let utilization = |dataset: &PathBuf| {
        let mut batches: Vec<PathBuf> = std::fs::read_dir(dataset.join("links")).unwrap().map(|e| e.unwrap().path()).collect();
        batches.sort();
        let read = |f: &PathBuf| ParquetReader::new(File::open(f).unwrap()).finish().unwrap();
        let all: Vec<DataFrame> = batches.iter().map(read).collect();
        all.iter()
            .flat_map(|df| df.column("utilization").unwrap().f64().unwrap().into_no_null_iter().collect::<Vec<f64>>())
            .collect::<Vec<f64>>()
    };
    let (u_ours, u_ns2) = (utilization(&ours), utilization(&theirs));
    assert_eq!(u_ns2.len(), 4);
    assert!(u_ns2.iter().all(|u| (0.3..=1.0).contains(u)), "ns-2's utilizations {u_ns2:?}");
    assert_ne!(u_ours, u_ns2);

    // The report resumes the ns-2 dataset beside its own and sets the two side by side.
    let o = equipoise(&["report", file.to_str().unwrap(), "--dataset", ours.to_str().unwrap(), "--platforms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("In ns-2.35 itself"), "{text}");
    assert!(text.contains("| | paper | ours | ns-2.35 | ns-2.35 / paper |"), "{text}");
    let row = text.lines().find(|l| l.starts_with("| utilization rises with N | ") && l.matches('|').count() == 5);
    let cells: Vec<&str> = row.unwrap_or_else(|| panic!("the finding's row: {text}")).split('|').map(str::trim).collect();
    assert!(["✓", "(✓)", "≈", "✗", "–"].contains(&cells[2]) && ["✓", "(✓)", "≈", "✗", "–"].contains(&cells[3]), "{cells:?}");
    assert!(cells[4].contains("0."), "what ns-2 measured: {cells:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processes whose command line mentions `text`.
fn processes_mentioning(text: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(text)))
        .collect()
}

/// An `equipoise ns2` killed outright (SIGKILL: no time to stop anything) takes its `ns` with
/// it, instead of leaving it to finish a run of hours of simulated time.
/// Whether `done` holds within `seconds`, looked at every 20 ms.
fn within(seconds: u64, done: &dyn Fn() -> bool) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !done() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    done()
}

#[test]
fn a_killed_ns2_run_leaves_no_ns_running() {
    if !have_ns2("a_killed_ns2_run_leaves_no_ns_running") || !std::path::Path::new("/proc").is_dir() {
        return;
    }
    let out = scratch("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_equipoise"))
        .args(["ns2", PARALLEL, "--set", "sim.duration=20000s", "--set", "flow.par.count=10", "--quiet", "--out"])
        .arg(&out)
        .spawn()
        .expect("the binary runs");
    // The run's scratch directory, in ns's command line: equipoise-ns2-PID-N/run.tcl.
    let mark = format!("equipoise-ns2-{}-", child.id());
    assert!(within(20, &|| !processes_mentioning(&mark).is_empty()), "ns-2 started");
    child.kill().unwrap();
    child.wait().unwrap();
    let left = || processes_mentioning(&mark);
    assert!(within(5, &|| left().is_empty()), "ns-2 still runs after equipoise was killed: {:?}", left());
    for entry in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&mark) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// SIGTERM or SIGINT during ns-2 runs ends their `ns` and removes their scratch directories
/// before the process ends with an error: `equipoise ns2` (SIGTERM) and a sweep with `--ns2`
/// running two at once (SIGINT).
#[test]
fn a_stopped_ns2_run_removes_its_scratch_directory_and_its_ns() {
    if !have_ns2("a_stopped_ns2_run_removes_its_scratch_directory_and_its_ns") || !std::path::Path::new("/proc").is_dir() {
        return;
    }
    let dir = scratch("stopped");
    // A temporary directory of the test's own: what the runs leave in it is theirs.
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let scenario = std::fs::canonicalize(PARALLEL).unwrap();
    let sweep = dir.join("long.toml");
    std::fs::write(
        &sweep,
        format!("scenario = {scenario:?}\n\n[[zip]]\n\"sim.duration\" = [\"20000s\"]\n\n[grid]\n\"flow.par.count\" = [10, 11]\n"),
    )
    .unwrap();
    let long = ["--set", "sim.duration=20000s", "--set", "flow.par.count=10"];
    let (ns2_out, sweep_out) = (dir.join("ns2"), dir.join("sweep"));
    let mut ns2 = vec!["ns2", PARALLEL, "--quiet", "--out", ns2_out.to_str().unwrap()];
    ns2.extend(long);
    let swept = ["sweep", sweep.to_str().unwrap(), "--ns2", "--jobs", "2", "--quiet", "--out", sweep_out.to_str().unwrap()];
    for (args, signal, runs) in [(&ns2[..], "-TERM", 1), (&swept[..], "-INT", 2)] {
        let child = Command::new(env!("CARGO_BIN_EXE_equipoise"))
            .args(args)
            .env("TMPDIR", &tmp)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        // The runs' scratch directories, in ns's command line: equipoise-ns2-PID-N/run.tcl.
        let mark = format!("equipoise-ns2-{}-", child.id());
        assert!(within(20, &|| processes_mentioning(&mark).len() >= runs), "{args:?}: ns-2 started {runs} run(s)");
        Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(!o.status.success(), "{args:?}: a stopped run fails");
        assert!(stderr(&o).contains("stopped by a signal"), "{args:?}: {}", stderr(&o));
        assert!(processes_mentioning(&mark).is_empty(), "{args:?}: ns-2 still runs: {:?}", processes_mentioning(&mark));
        let left: Vec<String> = std::fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&mark))
            .collect();
        assert!(left.is_empty(), "{args:?}: scratch directories left: {left:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
