//! The `equipoise` binary end to end: results are deterministic, readable and traceable, and
//! bad input fails cleanly without leaving partial results.

use std::fs::File;
use std::path::Path;
use std::process::Output;

use crate::common::{self, equipoise, metadata};
use polars::prelude::*;

const SCENARIO: &str = "../../scenarios/dumbbell.toml";

fn scratch(name: &str) -> common::Scratch {
    common::unused_path("cli", name)
}

fn run_quick(out: &Path, seed: &str) -> Output {
    let out = out.to_str().unwrap();
    equipoise(&["run", SCENARIO, "--out", out, "--seed", seed, "--set", "sim.duration=12s", "--quiet"])
}

const TABLES: [&str; 5] = ["flows", "links", "metrics", "subflows", "timeseries"];

#[test]
fn same_seed_gives_byte_identical_tables() {
    let (a, b, c) = (scratch("a"), scratch("b"), scratch("c"));
    for (dir, seed) in [(&a, "5"), (&b, "5"), (&c, "6")] {
        let o = run_quick(dir, seed);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout.is_empty(), "--quiet prints nothing");
    }
    for t in TABLES {
        let read = |d: &Path| std::fs::read(d.join(format!("{t}.parquet"))).unwrap();
        assert_eq!(read(&a), read(&b), "{t} differs between two runs with the same seed");
    }
    let flows = |d: &Path| std::fs::read(d.join("flows.parquet")).unwrap();
    assert_ne!(flows(&a), flows(&c), "another seed gives other start times and results");
}

#[test]
fn tables_have_the_documented_columns_and_provenance() {
    let dir = scratch("columns");
    assert!(run_quick(&dir, "1").status.success());
    let expected: [(&str, &[&str]); 5] = [
        (
            "flows",
            &[
                "flow",
                "algorithm",
                "subflows",
                "start_s",
                "goodput_bps",
                "bytes_delivered",
                "packets_sent",
                "retransmissions",
                "timeouts",
                "loss_events",
                "size_bytes",
                "completion_time_s",
                "mean_relative_drop",
            ],
        ),
        (
            "subflows",
            &[
                "flow",
                "subflow",
                "path",
                "goodput_bps",
                "mean_cwnd_pkts",
                "mean_srtt_s",
                "min_rtt_s",
                "packets_sent",
                "retransmissions",
                "fast_retransmits",
                "duplicate_acks",
                "timeouts",
            ],
        ),
        (
            "links",
            &[
                "link",
                "rate_bps",
                "delay_s",
                "utilization",
                "arrivals",
                "departures",
                "queue_drops",
                "random_losses",
                "down_drops",
                "loss_rate",
                "mean_queue_pkts",
                "max_queue_pkts",
                "mean_queue_bytes",
                "max_queue_bytes",
            ],
        ),
        ("timeseries", &["time_s", "flow", "subflow", "cwnd_pkts", "srtt_s", "rate_bps", "cc_state"]),
        ("metrics", &["metric", "group", "value", "unit"]),
    ];
    for (table, columns) in expected {
        let mut reader = ParquetReader::new(File::open(dir.join(format!("{table}.parquet"))).unwrap());
        let meta = reader.get_metadata().unwrap().clone();
        let df = reader.finish().unwrap();
        let names: Vec<&str> = df.get_column_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, columns, "{table}");
        let kv = meta.key_value_metadata().clone().expect("metadata");
        let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone()).unwrap_or_default();
        assert_eq!(get("equipoise.seed"), "1");
        assert_eq!(get("equipoise.version"), env!("CARGO_PKG_VERSION"));
        assert!(get("equipoise.scenario").contains("duration = \"12s\""), "the scenario as run, --set included");
    }
    let flows = ParquetReader::new(File::open(dir.join("flows.parquet")).unwrap()).finish().unwrap();
    assert_eq!(flows.height(), 8);
    let goodput = flows.column("goodput_bps").unwrap().f64().unwrap().sum().unwrap();
    assert!(goodput > 90e6 && goodput <= 100e6, "total goodput {goodput}");
    // The metrics agree with the flows table they summarize.
    let metrics = ParquetReader::new(File::open(dir.join("metrics.parquet")).unwrap()).finish().unwrap();
    let value = |metric: &str, group: &str| {
        let m = metrics.column("metric").unwrap().str().unwrap();
        let g = metrics.column("group").unwrap().str().unwrap();
        let i = (0..metrics.height()).find(|&i| m.get(i) == Some(metric) && g.get(i) == Some(group)).expect("a row");
        metrics.column("value").unwrap().f64().unwrap().get(i).unwrap()
    };
    assert_eq!(value("flows", "all"), 8.0);
    assert!((value("goodput_total", "all") - goodput).abs() < 1e-6 * goodput);
    let xs: Vec<f64> = flows.column("goodput_bps").unwrap().f64().unwrap().into_no_null_iter().collect();
    let jain = xs.iter().sum::<f64>().powi(2) / (8.0 * xs.iter().map(|x| x * x).sum::<f64>());
    assert!((value("jain_index", "all") - jain).abs() < 1e-12);
    let drop = value("relative_drop", "all");
    assert!((0.45..=0.5).contains(&drop), "Reno halves its window: {drop}");
    let ts = ParquetReader::new(File::open(dir.join("timeseries.parquet")).unwrap()).finish().unwrap();
    // One row per started flow every 100 ms (flows start at random in the first second).
    let starts: Vec<f64> = flows.column("start_s").unwrap().f64().unwrap().into_no_null_iter().collect();
    let rows = |after: fn(f64, f64) -> bool| starts.iter().map(|&s| (1..=120).filter(|k| after(*k as f64 * 0.1, s)).count()).sum::<usize>();
    let (strict, inclusive) = (rows(|t, s| t > s), rows(|t, s| t >= s));
    assert!((strict..=inclusive).contains(&ts.height()), "{} rows, expected {strict}..={inclusive}", ts.height());
}

#[test]
fn bad_input_fails_with_file_and_key_and_writes_nothing() {
    let dir = scratch("bad");
    let o = equipoise(&["run", SCENARIO, "--out", dir.to_str().unwrap(), "--set", "link.bottleneck.rate=100"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("scenarios/dumbbell.toml: link.bottleneck.rate: expected a rate with a unit"), "{err}");
    assert!(!dir.exists(), "no output for a failed run");
    let o = equipoise(&["run", SCENARIO, "--set", "oops"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected KEY=VALUE"));
    let o = equipoise(&["validate", SCENARIO]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("ok (3 links, 8 flows)"));
    // Input files are capped before they are read whole: special files and huge ones alike.
    let huge = dir.with_extension("huge.toml");
    std::fs::write(&huge, "# ".repeat(3 << 20)).unwrap();
    let sweep_of_zero = dir.with_extension("sweep.toml");
    std::fs::write(&sweep_of_zero, "scenario = \"/dev/zero\"\n[grid]\n\"sim.seed\" = [1]\n").unwrap();
    for (args, named) in [
        (vec!["run", "/dev/zero"], "/dev/zero"),
        (vec!["validate", huge.to_str().unwrap()], huge.to_str().unwrap()),
        (vec!["sweep", sweep_of_zero.to_str().unwrap(), "--out", dir.to_str().unwrap()], "scenario"),
    ] {
        let o = equipoise(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(named) && err.contains("larger than 4 MiB"), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?}: nothing written");
    }
    let _ = std::fs::remove_file(huge);
    let _ = std::fs::remove_file(sweep_of_zero);
}

#[test]
fn a_new_run_replaces_its_own_old_results_whole() {
    let dir = scratch("replace");
    assert!(run_quick(&dir, "1").status.success());
    let first = std::fs::read(dir.join("flows.parquet")).unwrap();
    assert!(run_quick(&dir, "2").status.success());
    assert_ne!(std::fs::read(dir.join("flows.parquet")).unwrap(), first, "replaced by the second run");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, [".equipoise-output", "flows.parquet", "links.parquet", "metrics.parquet", "subflows.parquet", "timeseries.parquet"]);
    let siblings = std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref().unwrap().file_name().to_string_lossy().starts_with(&format!("{}.", dir.file_name().unwrap().to_string_lossy()))
        })
        .count();
    assert_eq!(siblings, 0, "no temporary directory left behind");
}

#[test]
fn an_aimd_scenario_runs_the_model_and_writes_its_two_tables() {
    let dir = scratch("aimd");
    let o = equipoise(&[
        "run",
        "../../scenarios/aimd-example1.toml",
        "--out",
        dir.to_str().unwrap(),
        "--set",
        "aimd.events=20000",
        "--set",
        "aimd.group.first.weight=0.5",
        "--set",
        "aimd.group.second.weight=0.5",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("formula 0.92308"), "Theorem 1 for N = 4 is printed beside the result:\n{stdout}");
    let read = |t: &str| ParquetReader::new(File::open(dir.join(format!("{t}.parquet"))).unwrap()).finish().unwrap();
    let model = read("model");
    let u = model.column("utilization").unwrap().f64().unwrap().get(0).unwrap();
    assert!((u / (12.0 / 13.0) - 1.0).abs() < 0.01, "utilization {u}");
    let connections = read("connections");
    assert_eq!(connections.height(), 4);
    let shares: Vec<f64> = connections.column("share").unwrap().f64().unwrap().into_no_null_iter().collect();
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9, "shares add up to one: {shares:?}");
    // σ = 1/2 for both classes: every connection equally likely to be cut, equal shares.
    assert!(shares.iter().all(|s| (s - 0.25).abs() < 0.02), "{shares:?}");

    let bad = equipoise(&["run", "../../scenarios/aimd-example1.toml", "--out", dir.to_str().unwrap(), "--set", "aimd.policy=larges-rate"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("aimd.policy") && err.contains("did you mean \"largest-rate\""), "{err}");
    // Keys with a range are refused outside it, before the model runs.
    for (set, key) in [
        ("aimd.capacity=1e160", "aimd.capacity: 1e160: expected a number from 1e-100 to 1e100"),
        ("aimd.events=0", "aimd.events: 0: expected 1 to"),
        ("aimd.warmup_events=1099511627776", "aimd.warmup_events: 1099511627776: expected 0 to 1000000000"),
    ] {
        let o = equipoise(&["validate", "../../scenarios/aimd-theorem1.toml", "--set", set]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(key), "{set}: {err}");
    }
}

#[test]
fn quick_runs_the_short_variant_the_file_names_and_set_still_wins() {
    let dir = scratch("quick");
    let file = "../../scenarios/seed003-scenario7.toml";
    let o = equipoise(&["run", file, "--quick", "--out", dir.to_str().unwrap(), "--quiet", "--set", "sim.seed=3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let scenario = metadata(&dir.join("flows.parquet"), "equipoise.scenario").unwrap();
    assert!(scenario.contains("duration = \"60s\""), "the file's [quick] duration: {scenario}");
    assert!(scenario.contains("seed = 3"), "--set applies after --quick");
    // Without [quick], a packet scenario's short variant is 10 s.
    let o = equipoise(&["run", SCENARIO, "--quick", "--out", dir.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let scenario = metadata(&dir.join("links.parquet"), "equipoise.scenario").unwrap();
    assert!(scenario.contains("duration = \"10s\""), "{scenario}");
}

#[test]
fn validate_checks_the_quick_variant_and_names_it() {
    let dir = scratch("quick-check");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(SCENARIO).unwrap();
    let check = |quick: &str| {
        let file = dir.join("s.toml");
        std::fs::write(&file, format!("{base}\n[quick]\n{quick}\n")).unwrap();
        let o = equipoise(&["validate", file.to_str().unwrap()]);
        (o.status.success(), String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
    };
    let (ok, text) = check("\"sim.duration\" = \"15s\"");
    assert!(ok && text.contains("[quick] variant ok"), "{text}");
    let (ok, text) = check("\"sim.duration.x\" = 5");
    assert!(!ok && text.contains("s.toml: quick.\"sim.duration.x\": "), "{text}");
    assert!(!text.contains("--set"), "no --set was given: {text}");
    let (ok, text) = check("\"sim.duration\" = \"0s\"");
    assert!(!ok && text.contains("the [quick] variant: ") && text.contains("sim.duration: must be longer than zero"), "{text}");
}

/// A `[[traffic]]` generator that draws no flow in a short run (seed 003's scenario 7 starts a
/// flow every 7.5 s on average) gives a valid run: flow tables with no rows and the columns of
/// any run, the links reported, and a warning naming the table. Without any `[[flow]]` or
/// `[[traffic]]` table, a scenario is still refused.
#[test]
fn a_generator_that_draws_no_flow_gives_empty_tables_and_a_warning() {
    let scenario = "../../scenarios/seed003-scenario7.toml";
    let (empty, full) = (scratch("idle"), scratch("busy"));
    let run = |out: &Path, duration: &str| {
        let duration = format!("sim.duration={duration}");
        equipoise(&["run", scenario, "--set", &duration, "--set", "sim.sample_interval=1s", "--seed", "1", "--out", out.to_str().unwrap()])
    };
    let o = run(&empty, "5s");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: ../../scenarios/seed003-scenario7.toml: traffic.mp: the generator drew no flow in this run"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 flow(s)"));
    assert!(run(&full, "60s").status.success());
    let read = |d: &Path, t: &str| ParquetReader::new(File::open(d.join(format!("{t}.parquet"))).unwrap()).finish().unwrap();
    for t in ["flows", "subflows", "timeseries"] {
        let (e, f) = (read(&empty, t), read(&full, t));
        assert_eq!(e.height(), 0, "{t}");
        assert!(f.height() > 0, "{t}: the longer run has flows");
        assert_eq!(e.schema(), f.schema(), "{t}: the columns of any run");
    }
    assert_eq!(read(&empty, "links").height(), 2, "the links are reported");
    // No flow table at all: an error naming the key.
    let dir = scratch("no-flows");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.toml");
    std::fs::write(&file, "[sim]\nduration = \"1s\"\n[[link]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nbuffer = \"10pkt\"\n")
        .unwrap();
    let o = equipoise(&["validate", file.to_str().unwrap()]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("s.toml: flow: no flows"));
}

/// Seconds print as they were written: 200 ms of warm-up is 0.2 s, not 0.19999999999999998.
#[test]
fn durations_print_without_a_binary_tail() {
    let dir = scratch("seconds");
    let o = equipoise(&["run", SCENARIO, "--set", "sim.duration=1.3s", "--set", "sim.warmup=200ms", "--out", dir.to_str().unwrap()]);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(printed.contains("(statistics from 0.2 s)") && printed.contains("\n1.3 s simulated"), "{printed}");
}

/// `plot` on a run's directory draws its time series, a line per subflow through every sample;
/// what does not apply to a run is refused naming the option.
#[test]
fn plot_draws_a_runs_time_series_a_line_per_subflow() {
    let dir = scratch("plot-time");
    let out = dir.join("run");
    let run = equipoise(&[
        "run",
        "../../scenarios/two-paths.toml",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "sim.duration=3s",
        "--set",
        "sim.warmup=1s",
        "--quiet",
    ]);
    assert!(run.status.success(), "{}", common::stderr(&run));
    let svg = dir.join("windows.svg");
    let plot = |extra: &[&str]| {
        let mut args = vec!["plot", out.to_str().unwrap(), "--out", svg.to_str().unwrap()];
        args.extend(extra);
        equipoise(&args)
    };
    let o = plot(&["--x", "time_s", "--y", "timeseries.cwnd_pkts", "--where", "mp"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    for expected in ["cwnd (packets) over time", "time (s)", "mp.0", "mp.1"] {
        assert!(text.contains(expected), "{expected} missing from the plot");
    }
    assert!(!text.contains(">tcp"), "--where mp keeps the multipath flow's subflows only");
    // Each subflow's line goes through each of its samples (every 100 ms over 3 s).
    let samples = ParquetReader::new(File::open(out.join("timeseries.parquet")).unwrap()).finish().unwrap();
    let of_subflow_0 = (0..samples.height())
        .filter(|&i| {
            samples.column("flow").unwrap().str().unwrap().get(i) == Some("mp")
                && samples.column("subflow").unwrap().u32().unwrap().get(i) == Some(0)
        })
        .count();
    let lines: Vec<usize> = text
        .split("<polyline")
        .skip(1)
        .map(|l| l.split("points=\"").nth(1).unwrap().split('"').next().unwrap().split_whitespace().count())
        .collect();
    assert!(of_subflow_0 >= 29 && lines.contains(&of_subflow_0), "{of_subflow_0} samples, lines of {lines:?} points");
    for (extra, named) in [
        (vec!["--x", "flow.f.count", "--y", "timeseries.cwnd_pkts"], "--x flow.f.count"),
        (vec!["--x", "time_s", "--y", "flows.goodput_bps"], "--y flows.goodput_bps"),
        (vec!["--x", "time_s", "--y", "timeseries.cwnd_pkts", "--by", "seed"], "--by"),
        (vec!["--x", "time_s", "--y", "timeseries.nothing"], "no numeric column \"nothing\""),
    ] {
        let o = plot(&extra);
        assert!(!o.status.success() && common::stderr(&o).contains(named), "{extra:?}: {}", common::stderr(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
