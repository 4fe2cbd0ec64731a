//! `equipoise export ns2` and `equipoise ns2`: a scenario as an ns-2.35 script, run there and
//! read back into the tables of `run`; what ns-2 lacks is an error naming the key.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, equipoise, stderr};
use polars::prelude::*;

const PARALLEL: &str = "../../scenarios/parallel-droptail.toml";

fn scratch(name: &str) -> PathBuf {
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
    if Command::new("ns").arg("-version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI must have ns-2 (.ci/run installs Debian's ns2 package)");
        eprintln!("SKIPPED ns2_runs_the_scenario_and_writes_the_tables_of_run: ns-2's `ns` is not installed");
        return;
    }
    let sets = ["--set", "sim.duration=60s", "--set", "sim.warmup=20s", "--set", "flow.par.count=4", "--quiet"];
    let mut args = vec!["ns2", PARALLEL, "--out", out.to_str().unwrap()];
    args.extend(sets);
    let o = equipoise(&args);
    assert!(o.status.success(), "{}", stderr(&o));
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
    let mut reader = ParquetReader::new(File::open(out.join("flows.parquet")).unwrap());
    let kv = reader.get_metadata().unwrap().key_value_metadata().clone().unwrap_or_default();
    assert!(kv.iter().any(|k| k.key == "equipoise.source" && k.value.as_deref() == Some("ns2")), "marked as ns-2's");
    let _ = std::fs::remove_dir_all(&out);
}
