//! `equipoise fluid` and `sweep --fluid` end to end: the fluid model's tables, their metadata,
//! the dataset's fluid side and its dashed line in a plot, and refusals by key.

use std::fs::File;
use std::path::Path;

use crate::common::{self, equipoise};
use polars::prelude::*;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("fluid", name)
}

/// One Reno flow over a link that never congests and drops 1 % of its packets.
const LOSSY: &str = "[sim]\nduration = \"100s\"\n[tcp]\nprofile = \"newreno\"\n[fluid]\nconstant = \"packet\"\n\
    [[link]]\nname = \"l\"\nrate = \"1Gbps\"\ndelay = \"50ms\"\nbuffer = \"1000pkt\"\nloss = 0.01\n\
    [[flow]]\nname = \"f\"\npaths = [[\"l\"]]\n";

fn read(path: &Path) -> (DataFrame, Vec<(String, String)>) {
    let mut reader = ParquetReader::new(File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let kv = reader.get_metadata().unwrap().key_value_metadata().clone().unwrap_or_default();
    let pairs = kv.into_iter().map(|e| (e.key, e.value.unwrap_or_default())).collect();
    (reader.finish().unwrap(), pairs)
}

#[test]
fn fluid_writes_the_equilibrium_as_run_tables_marked_fluid() {
    let dir = scratch("lossy");
    let file = dir.join("lossy.toml");
    std::fs::write(&file, LOSSY).unwrap();
    let out = dir.join("out");
    let o = equipoise(&["fluid", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("fluid equilibrium (packet"), "{text}");
    let expected: [(&str, &[&str]); 4] = [
        ("flows", &["flow", "algorithm", "subflows", "goodput_bps", "rate_pps", "unique"]),
        ("links", &["link", "rate_bps", "delay_s", "utilization", "loss_rate", "congestion_loss", "load_pps", "mean_queue_pkts"]),
        ("metrics", &["metric", "group", "value", "unit"]),
        ("subflows", &["flow", "subflow", "path", "goodput_bps", "mean_cwnd_pkts", "mean_srtt_s", "path_loss"]),
    ];
    for (table, columns) in expected {
        let (df, meta) = read(&out.join(format!("{table}.parquet")));
        let names: Vec<&str> = df.get_column_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(names, columns, "{table}");
        let get = |k: &str| meta.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()).unwrap_or_default();
        assert_eq!(get("equipoise.source"), "fluid", "{table}");
        assert!(get("equipoise.fluid.constant").starts_with("packet"), "{table}");
    }
    // Reno at exogenous loss p with the packet constant: w = √(3(1 − p)/(2p)).
    let (subflows, _) = read(&out.join("subflows.parquet"));
    let w = subflows.column("mean_cwnd_pkts").unwrap().f64().unwrap().get(0).unwrap();
    let p: f64 = 0.01;
    assert!((w / (1.5 * (1.0 - p) / p).sqrt() - 1.0).abs() < 1e-6, "window {w}");
    let rtt = subflows.column("mean_srtt_s").unwrap().f64().unwrap().get(0).unwrap();
    let goodput = subflows.column("goodput_bps").unwrap().f64().unwrap().get(0).unwrap();
    assert!((goodput / (w / rtt * (1.0 - p) * 1500.0 * 8.0) - 1.0).abs() < 1e-9, "goodput {goodput}");
    let (_, meta) = read(&out.join("flows.parquet"));
    assert!(!meta.iter().any(|(k, _)| k == "equipoise.fluid.regime"), "a window of {w} packets is in the packet regime");
}

/// At 70 % loss Reno's equilibrium window is √(3·0.3/1.4) = 0.80 packets, below the packet
/// simulator's floor of one: `fluid` says so on standard error and in the tables' metadata.
#[test]
fn windows_below_one_packet_are_warned_of() {
    let dir = scratch("sub-packet");
    let file = dir.join("lossy.toml");
    std::fs::write(&file, LOSSY.replace("loss = 0.01", "loss = 0.7")).unwrap();
    let out = dir.join("out");
    let o = equipoise(&["fluid", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 of 1 flows have subflows sending less than one packet per round trip") && err.contains("0.80"), "{err}");
    let (_, meta) = read(&out.join("flows.parquet"));
    let regime = meta.iter().find(|(k, _)| k == "equipoise.fluid.regime").map(|(_, v)| v.as_str()).unwrap_or_default();
    assert!(regime.contains("one packet or more"), "{meta:?}");
}

#[test]
fn what_the_model_cannot_represent_fails_by_key_and_writes_nothing() {
    let dir = scratch("sized");
    let file = dir.join("sized.toml");
    std::fs::write(&file, format!("{LOSSY}size = \"1MB\"\n")).unwrap();
    let out = dir.join("out");
    let o = equipoise(&["fluid", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("flow.f.size") && err.contains("long-lived"), "{err}");
    assert!(!out.exists(), "nothing written");
    let aimd = equipoise(&["fluid", "../../scenarios/aimd-example1.toml", "--out", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&aimd.stderr).contains("equipoise run"), "{}", String::from_utf8_lossy(&aimd.stderr));
}

/// A solve that does not converge names the worst flow or link and its residual, and says where
/// to read more: RSF-LB on seed 002's FatTree at k = 4 without queues is a known failure
/// (docs/fluid.md, "Where the solver fails"; the hint for networks with queues is tested in `fluid_run`).
/// OLIA, the file's own law, solves at k = 4, its flows' splits reported as not unique
/// (Theorem 1's best paths tie).
#[test]
fn a_solve_that_does_not_converge_says_what_to_try() {
    let dir = scratch("olia");
    let out = dir.join("out");
    let scenario = "../../scenarios/seed002-fig13.toml";
    let sets = ["--set", "topology.k=4", "--set", "traffic.perm.cc=rsf-lb", "--set", "fluid.queueing=none"];
    let rsf = equipoise(&[&["fluid", scenario][..], &sets, &["--out", out.to_str().unwrap()]].concat());
    assert!(!rsf.status.success());
    let err = String::from_utf8_lossy(&rsf.stderr);
    assert!(err.contains("equilibrium not reached") && err.contains("has residual"), "{err}");
    assert!(err.contains("where the solver fails"), "{err}");
    assert!(!out.exists(), "nothing written");
    let olia = equipoise(&["fluid", scenario, "--set", "topology.k=4", "--out", out.to_str().unwrap()]);
    assert!(olia.status.success(), "{}", String::from_utf8_lossy(&olia.stderr));
    assert!(String::from_utf8_lossy(&olia.stdout).contains("not unique: the equilibria form a set"));
}

#[test]
fn sweep_fluid_adds_the_equilibrium_of_every_point_and_plot_draws_it() {
    let dir = scratch("sweep");
    std::fs::write(dir.join("lossy.toml"), LOSSY).unwrap();
    let sweep = dir.join("loss.toml");
    // At 70 % loss Reno's window is 0.80 packets: that point is warned of.
    std::fs::write(&sweep, "scenario = \"lossy.toml\"\nreplicates = 2\nseed = 3\n[grid]\n\"link.l.loss\" = [0.005, 0.01, 0.02, 0.7]\n")
        .unwrap();
    let out = dir.join("data");
    let o = equipoise(&["sweep", sweep.to_str().unwrap(), "--out", out.to_str().unwrap(), "--fluid", "--jobs", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fluid model: 4 points solved"), "{err}");
    assert!(err.contains("at 1 of 4 points subflows send less than one packet per round trip"), "{err}");
    let (runs, _) = read(&out.join("fluid/runs/points.parquet"));
    let warnings: Vec<Option<&str>> = runs.column("warning").unwrap().str().unwrap().iter().collect();
    assert_eq!(warnings[..3], [None, None, None], "{warnings:?}");
    assert!(warnings[3].is_some_and(|w| w.contains("(the fewest 0.80)")), "{warnings:?}");
    let (links, meta) = read(&out.join("fluid/links/points.parquet"));
    assert_eq!(links.height(), 4, "one row per point and link");
    assert!(meta.iter().any(|(k, v)| k == "equipoise.source" && v == "fluid"));
    for key in ["point", "replicate", "seed", "link.l.loss"] {
        assert!(links.column(key).is_ok(), "key column {key}");
    }
    // The points are solved on --jobs threads: one thread writes the same bytes.
    let single = dir.join("single");
    let o = equipoise(&["sweep", sweep.to_str().unwrap(), "--out", single.to_str().unwrap(), "--fluid", "--jobs", "1", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for table in ["flows", "links", "metrics", "subflows", "runs"] {
        let file = format!("fluid/{table}/points.parquet");
        assert_eq!(std::fs::read(out.join(&file)).unwrap(), std::fs::read(single.join(&file)).unwrap(), "{file}");
    }
    let (flows, _) = read(&out.join("fluid/flows/points.parquet"));
    let goodput: Vec<f64> = flows.column("goodput_bps").unwrap().f64().unwrap().into_no_null_iter().collect();
    // Rate ∝ 1/√p: doubling the loss divides the goodput by about √2.
    assert!((goodput[0] / goodput[1] - 2f64.sqrt()).abs() < 0.02, "{goodput:?}");
    let svg = dir.join("goodput.svg");
    let o = equipoise(&["plot", out.to_str().unwrap(), "--x", "link.l.loss", "--y", "flows.goodput_bps", "--out", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("fluid model"), "the legend names the dashed line");
    // Without the fluid side the plot has no such line.
    std::fs::remove_dir_all(out.join("fluid")).unwrap();
    let o = equipoise(&["plot", out.to_str().unwrap(), "--x", "link.l.loss", "--y", "flows.goodput_bps", "--out", svg.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(!std::fs::read_to_string(&svg).unwrap().contains("fluid model"));
}
