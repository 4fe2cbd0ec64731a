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

/// One case of the agreement grid: its name and its scenario's text.
fn grid() -> Vec<(String, String)> {
    // (flows, rate Mb/s, one-way delay ms, buffer in BDPs, loss, two-path flows)
    let cases: [(u32, u32, u32, f64, f64, u32); 14] = [
        (1, 10, 10, 1.0, 0.0, 0),
        (1, 10, 50, 0.5, 0.0, 0),
        (1, 20, 20, 2.0, 0.0, 0),
        (1, 5, 100, 0.25, 0.0, 0),
        (2, 10, 25, 1.0, 0.0, 0),
        (2, 50, 10, 0.5, 0.0, 0),
        (4, 20, 40, 1.0, 0.0, 0),
        (4, 10, 5, 2.0, 0.0, 0),
        (8, 50, 20, 0.5, 0.0, 0),
        (1, 10, 20, 1.0, 0.01, 0),
        (2, 20, 10, 1.0, 0.02, 0),
        (1, 10, 30, 1.0, 0.005, 0),
        (1, 10, 20, 1.0, 0.0, 1),
        (2, 10, 10, 1.0, 0.01, 1),
    ];
    cases
        .iter()
        .map(|&(n, rate, delay, bdps, loss, mp)| {
            let bdp = rate as f64 * 1e6 * 2.0 * delay as f64 * 1e-3 / (1500.0 * 8.0);
            let buffer = (bdp * bdps).round().max(2.0) as u32;
            let name = format!("{n}x{rate}Mbps-{}ms-{bdps}bdp-loss{loss}{}", 2 * delay, if mp > 0 { "-mptcp" } else { "" });
            let mut text = format!(
                "[sim]\nduration = \"20s\"\nwarmup = \"5s\"\nmss = \"1500B\"\n\n[tcp]\nprofile = \"linux-6\"\n\n\
                 [[link]]\nname = \"a\"\nrate = \"{rate}Mbps\"\ndelay = \"{delay}ms\"\nbuffer = \"{buffer}pkt\"\nloss = {loss}\n\n\
                 [[flow]]\nname = \"tcp\"\ncount = {n}\ncc = \"reno\"\npaths = [[\"a\"]]\nstagger = \"100ms\"\n"
            );
            if mp > 0 {
                text.push_str(&format!(
                    "\n[[link]]\nname = \"b\"\nrate = \"{}Mbps\"\ndelay = \"{}ms\"\nbuffer = \"{buffer}pkt\"\nloss = {loss}\n\n\
                     [[flow]]\nname = \"mp\"\ncount = {mp}\ncc = \"uncoupled\"\npaths = [[\"a\"], [\"b\"]]\nstart = \"50ms\"\n",
                    rate / 2,
                    delay * 2
                ));
            }
            (name, text)
        })
        .collect()
}

/// What the grid compares of one run.
struct Measures {
    /// Per flow, in order: its goodput.
    goodputs: Vec<f64>,
    /// Retransmissions of all flows.
    retransmissions: f64,
    /// The mean over subflows of their mean smoothed RTT.
    srtt: f64,
}

fn measures(dir: &Path) -> Measures {
    let flows = table(dir, "flows");
    let goodputs: Vec<f64> = flows.column("goodput_bps").unwrap().f64().unwrap().into_no_null_iter().collect();
    let retx: u64 = flows.column("retransmissions").unwrap().u64().unwrap().into_no_null_iter().sum();
    let subflows = table(dir, "subflows");
    let srtt: Vec<f64> = subflows.column("mean_srtt_s").unwrap().f64().unwrap().into_no_null_iter().collect();
    Measures { goodputs, retransmissions: retx as f64, srtt: srtt.iter().sum::<f64>() / srtt.len().max(1) as f64 }
}

/// The agreement grid of docs/testbed.md: each case three times on the testbed and as a
/// simulation with the `linux-6` profile (seeds 1-3), compared flow by flow. Prints the table
/// (about 20 minutes):
/// `cargo test --release -p equipoise --test testbed -- --ignored --nocapture agreement_grid`.
#[test]
#[ignore]
fn agreement_grid() {
    if !can_run("agreement_grid") {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let dir = scratch("grid");
    println!(
        "| case | aggregate goodput, testbed / simulation | per-flow goodput, largest difference | retransmissions, testbed / simulation | mean SRTT, testbed / simulation |"
    );
    println!("|---|---|---|---|---|");
    for (name, text) in grid() {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, &text).unwrap();
        let mut sides = [Vec::new(), Vec::new()];
        for seed in 1..=3 {
            for (side, command) in ["testbed", "run"].iter().enumerate() {
                let out = dir.join(format!("{name}-{command}-{seed}"));
                let seed = format!("sim.seed={seed}");
                let o = equipoise(&[command, file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--set", &seed, "--quiet"]);
                assert!(o.status.success(), "{name} {command}: {}", stderr(&o));
                sides[side].push(measures(&out));
            }
        }
        let mean = |runs: &[Measures], f: &dyn Fn(&Measures) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
        let aggregate = |r: &Measures| r.goodputs.iter().sum::<f64>();
        let (tb, sim) = (mean(&sides[0], &aggregate), mean(&sides[1], &aggregate));
        let flows = sides[0][0].goodputs.len();
        let worst = (0..flows)
            .map(|i| {
                let t = mean(&sides[0], &|r| r.goodputs[i]);
                let s = mean(&sides[1], &|r| r.goodputs[i]);
                (t / s - 1.0).abs()
            })
            .fold(0.0, f64::max);
        let (rt, rs) = (mean(&sides[0], &|r| r.retransmissions), mean(&sides[1], &|r| r.retransmissions));
        let (qt, qs) = (mean(&sides[0], &|r| r.srtt), mean(&sides[1], &|r| r.srtt));
        println!(
            "| {name} | {:.2} / {:.2} Mb/s ({:+.1} %) | {:.1} % | {rt:.0} / {rs:.0} | {:.1} / {:.1} ms ({:+.1} %) |",
            tb / 1e6,
            sim / 1e6,
            100.0 * (tb / sim - 1.0),
            100.0 * worst,
            qt * 1e3,
            qs * 1e3,
            100.0 * (qt / qs - 1.0)
        );
    }
    println!("\nwall time: {:.1} min", started.elapsed().as_secs_f64() / 60.0);
    let _ = std::fs::remove_dir_all(&dir);
}
