//! `equipoise testbed`: the links as emulated are the links as set (rate, delay, buffer,
//! measured by the kernel's own sockets), a run leaves no namespace behind however it ends, and
//! what the kernel cannot run is refused before anything is set up. Needs root, network
//! namespaces and TUN devices (CI runs as root and must have them); elsewhere the tests that
//! run the testbed say they are skipped.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use polars::prelude::*;

fn equipoise(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_equipoise")).args(args).output().expect("the binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("equipoise-testbed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One link, one Reno flow.
fn scenario(dir: &Path, link: &str, extra: &str) -> PathBuf {
    let file = dir.join("testbed.toml");
    let text = format!(
        "[sim]\nduration = \"6s\"\nwarmup = \"2s\"\nmss = \"1500B\"\n\n[[link]]\nname = \"bottleneck\"\n{link}\n\n\
         [[flow]]\nname = \"tcp\"\ncc = \"reno\"\npaths = [[\"bottleneck\"]]\n{extra}"
    );
    std::fs::write(&file, text).unwrap();
    file
}

/// The tests that run the testbed take turns: a run removes the leftovers of a killed one, and
/// two at once would share the machine's two cores.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether the testbed can run here; under CI (`CI` set) it must.
fn can_run(test: &str) -> bool {
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let ok = root && Path::new("/dev/net/tun").exists() && Command::new("ip").arg("-V").output().is_ok();
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "{test}: CI runs as root with network namespaces, TUN devices and iproute2");
        eprintln!("SKIPPED {test}: the testbed needs root, /dev/net/tun and iproute2");
    }
    ok
}

/// This tool's namespaces made by process `pid`.
fn namespaces_of(pid: u32) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output().expect("ip runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(&format!("eqtb-{pid}-")))
        .map(String::from)
        .collect()
}

fn table(dir: &Path, name: &str) -> DataFrame {
    ParquetReader::new(File::open(dir.join(format!("{name}.parquet"))).unwrap()).finish().unwrap()
}

#[test]
fn a_link_carries_its_rate_with_its_delay_and_holds_its_buffer() {
    if !can_run("a_link_carries_its_rate_with_its_delay_and_holds_its_buffer") {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("fidelity");
    let file = scenario(&dir, "rate = \"10Mbps\"\ndelay = \"20ms\"\nbuffer = \"50pkt\"", "");
    let out = dir.join("out");
    let o = equipoise(&["testbed", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8_lossy(&o.stdout);
    let flows = table(&out, "flows");
    let goodput = flows.column("goodput_bps").unwrap().f64().unwrap().get(0).unwrap();
    // The receiving socket's bytes, counted as whole packets: the link's rate within 1 %.
    assert!((goodput / 10e6 - 1.0).abs() <= 0.01, "goodput {goodput} b/s on a 10 Mb/s link\n{printed}");
    // The kernel's smallest RTT: 20 ms each way, plus the serialization of the packet timed
    // (60 bytes of SYN: 48 µs; 1500 bytes: 1.2 ms) and the hosts' own processing.
    let min_rtt = table(&out, "subflows").column("min_rtt_s").unwrap().f64().unwrap().get(0).unwrap();
    assert!(
        (0.04..=0.0412 + 0.0002).contains(&min_rtt),
        "the kernel's minimum RTT {min_rtt} s: 40 ms of delay, at most 1.4 ms more\n{printed}"
    );
    let links = table(&out, "links");
    assert_eq!(links.column("max_queue_pkts").unwrap().u32().unwrap().get(0), Some(50), "the buffer holds 50 packets");
    assert!(links.column("queue_drops").unwrap().u64().unwrap().get(0).unwrap() > 0, "and drops beyond them");
    let mut reader = ParquetReader::new(File::open(out.join("flows.parquet")).unwrap());
    let kv = reader.get_metadata().unwrap().key_value_metadata().clone().unwrap_or_default();
    let meta = |key: &str| kv.iter().find(|k| k.key == key).and_then(|k| k.value.clone());
    assert_eq!(meta("equipoise.source").as_deref(), Some("testbed"));
    assert!(meta("equipoise.testbed.kernel").is_some_and(|v| !v.is_empty()));
    // The emulator's timing: its events ran late by less than 0.2 ms at the median.
    let lag = meta("equipoise.testbed.lag_s").unwrap();
    let median: f64 = lag.split(',').next().unwrap().trim_start_matches("median ").parse().unwrap();
    assert!(median < 0.0002, "lateness {lag}");
    assert!(namespaces_of(std::process::id()).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A two-path flow is a kernel MPTCP connection with one subflow pinned to each path: alone on
/// two links, it fills both.
#[test]
fn a_two_path_flow_is_an_mptcp_connection_with_a_subflow_on_each_path() {
    if !can_run("a_two_path_flow_is_an_mptcp_connection_with_a_subflow_on_each_path") {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("mptcp");
    let file = dir.join("two-paths.toml");
    std::fs::write(
        &file,
        "[sim]\nduration = \"6s\"\nwarmup = \"2s\"\nmss = \"1500B\"\n\n\
         [[link]]\nname = \"a\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"30pkt\"\n\n\
         [[link]]\nname = \"b\"\nrate = \"5Mbps\"\ndelay = \"20ms\"\nbuffer = \"30pkt\"\n\n\
         [[flow]]\nname = \"mp\"\ncc = \"uncoupled\"\npaths = [[\"a\"], [\"b\"]]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = equipoise(&["testbed", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let subflows = table(&out, "subflows");
    let paths: Vec<String> = subflows.column("path").unwrap().str().unwrap().iter().map(|p| p.unwrap_or_default().to_string()).collect();
    assert_eq!(paths, ["a", "b"], "one subflow on each path");
    let per: Vec<f64> = subflows.column("goodput_bps").unwrap().f64().unwrap().into_no_null_iter().collect();
    // Each subflow alone on its link fills it (what its sender had acknowledged).
    assert!((per[0] / 10e6 - 1.0).abs() < 0.05 && (per[1] / 5e6 - 1.0).abs() < 0.05, "subflows {per:?}");
    let flow = table(&out, "flows").column("goodput_bps").unwrap().f64().unwrap().get(0).unwrap();
    assert!((flow / 15e6 - 1.0).abs() < 0.05, "the connection's goodput {flow} against 15 Mb/s of links");
    assert!(namespaces_of(std::process::id()).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_or_killed_run_leaves_no_namespace_behind() {
    if !can_run("a_stopped_or_killed_run_leaves_no_namespace_behind") {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("kill");
    let file = scenario(&dir, "rate = \"10Mbps\"\ndelay = \"5ms\"\nbuffer = \"20pkt\"", "");
    let long = ["--set", "sim.duration=60s", "--quiet"];
    let spawn = |out: &str| {
        let mut args = vec!["testbed", file.to_str().unwrap(), "--out", out];
        args.extend(long);
        Command::new(env!("CARGO_BIN_EXE_equipoise")).args(&args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
    };
    let wait_for_namespaces = |pid: u32| {
        let started = Instant::now();
        while namespaces_of(pid).len() < 3 {
            assert!(started.elapsed() < Duration::from_secs(20), "the run made its namespaces");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // SIGTERM: the run stops, removes what it made and writes no tables.
    let stopped_out = dir.join("stopped");
    let child = spawn(stopped_out.to_str().unwrap());
    let pid = child.id();
    wait_for_namespaces(pid);
    std::thread::sleep(Duration::from_millis(500));
    Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "a stopped run fails");
    assert!(stderr(&o).contains("stopped"), "{}", stderr(&o));
    assert!(namespaces_of(pid).is_empty(), "SIGTERM: every namespace removed");
    assert!(!stopped_out.join("flows.parquet").exists(), "no tables of a stopped run");
    // SIGKILL: nothing can clean up; the next run removes the leftovers of a dead process.
    let mut child = spawn(dir.join("killed").to_str().unwrap());
    let pid = child.id();
    wait_for_namespaces(pid);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(namespaces_of(pid).len(), 3, "SIGKILL leaves them");
    let next = equipoise(&[
        "testbed",
        file.to_str().unwrap(),
        "--out",
        dir.join("next").to_str().unwrap(),
        "--set",
        "sim.duration=3s",
        "--set",
        "sim.warmup=1s",
        "--quiet",
    ]);
    assert!(next.status.success(), "{}", stderr(&next));
    assert!(namespaces_of(pid).is_empty(), "the next run removed the killed run's namespaces");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_the_kernel_cannot_run_is_refused_naming_the_key() {
    let dir = scratch("refused");
    let file = scenario(&dir, "rate = \"10Mbps\"\ndelay = \"5ms\"\nbuffer = \"20pkt\"", "");
    for (sets, key) in [
        (vec!["--set", "flow.tcp.cc=\"lia\""], "flow.tcp.cc"),
        (
            vec![
                "--set",
                "flow.tcp.paths=[[\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"], [\"bottleneck\"]]",
            ],
            "flow.tcp.paths",
        ),
        (vec!["--set", "tcp.jitter=1ms"], "tcp.jitter"),
        (vec!["--set", "link.bottleneck.rate=1Gbps"], "link.bottleneck.rate"),
        (vec!["--set", "sim.duration=7200s"], "sim.duration"),
    ] {
        let out = dir.join("out");
        let mut args = vec!["testbed", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend(&sets);
        let o = equipoise(&args);
        assert!(!o.status.success(), "{sets:?} is refused");
        assert!(stderr(&o).contains(key), "{sets:?}: the error names {key}: {}", stderr(&o));
        assert!(!out.exists(), "{sets:?}: refused before anything is made");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
