//! `run --capture` and `[[capture]]` end to end, with Wireshark as the oracle: tshark reads the
//! files cleanly, counts the retransmissions, fast retransmissions and duplicate ACKs the
//! simulator counted, decodes SACK blocks that cover only data the receiver got, and groups a
//! multipath flow's subflows into one MPTCP connection with continuous data sequence numbers.

#[path = "../../../capture/tests/integration/common.rs"]
mod tshark;

use std::path::{Path, PathBuf};

use crate::common::{self, equipoise};
use polars::prelude::*;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("capture", name)
}

/// Runs `scenario` with `args` into a fresh directory; returns the scratch folder (removed when
/// dropped) and the run's output directory in it.
fn run(name: &str, scenario: &str, args: &[&str]) -> (common::Scratch, PathBuf) {
    let dir = scratch(name);
    let file = dir.join("s.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = dir.join("out");
    let mut all = vec!["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"];
    all.extend_from_slice(args);
    let o = equipoise(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (dir, out)
}

fn column(dir: &Path, table: &str, name: &str) -> u64 {
    let df = ParquetReader::new(std::fs::File::open(dir.join(format!("{table}.parquet"))).unwrap()).finish().unwrap();
    df.column(name).unwrap().u64().unwrap().sum().unwrap_or(0)
}

/// A finite transfer (1000 full segments) over a link losing 1 % at random: it completes well
/// before the end, so every counter is final and every packet is in the capture.
const LOSSY: &str = "[sim]\nduration = \"10s\"\nwarmup = \"0s\"\nseed = 3\n[tcp]\nprofile = \"PROFILE\"\n\
    [[link]]\nname = \"l\"\nrate = \"50Mbps\"\ndelay = \"10ms\"\nbuffer = \"500pkt\"\nloss = LOSS\n\
    [[flow]]\nname = \"f\"\npaths = [[\"l\"]]\nsize = \"1500000B\"\n\
    [[capture]]\nlink = \"l\"\n";

#[test]
fn tshark_counts_what_the_simulator_counted() {
    if !tshark::have_tshark("tshark_counts_what_the_simulator_counted") {
        return;
    }
    let (_dir, out) = run("counts", &LOSSY.replace("PROFILE", "newreno").replace("LOSS", "0.01"), &[]);
    let pcap = out.join("capture-l.pcapng");
    tshark::assert_clean(&pcap, &[]);
    let count = |filter: &str| tshark::count(&pcap, &[], filter) as u64;
    let retransmissions = column(&out, "subflows", "retransmissions");
    let fast = column(&out, "subflows", "fast_retransmits");
    let dup = column(&out, "subflows", "duplicate_acks");
    println!("simulator: {retransmissions} retransmissions, {fast} fast retransmits, {dup} duplicate ACKs");
    assert!(fast >= 3 && dup >= 3 * fast, "the run must lose packets to be a test");
    assert_eq!(column(&out, "subflows", "timeouts"), 0, "this seed recovers every loss by fast retransmit");
    assert_eq!(count("tcp.analysis.retransmission"), retransmissions);
    assert_eq!(count("tcp.analysis.duplicate_ack"), dup);
    // One definitional difference: Wireshark calls every retransmission that follows
    // duplicate ACKs fast (a fast retransmission is also a `retransmission` to it), NewReno's
    // retransmissions on partial ACKs within one recovery included; the simulator's
    // `fast_retransmits` counts entries into fast recovery. Without timeouts every
    // retransmission is one of those.
    assert_eq!(count("tcp.analysis.fast_retransmission"), retransmissions);
    assert!(fast < retransmissions, "this seed has a recovery with two holes (partial ACKs)");
    // The link's random losses are the packets marked dropped (a sniffer in front of it).
    assert_eq!(count("frame.comment == \"dropped\""), column(&out, "links", "random_losses"));
}

#[test]
fn sack_blocks_cover_only_data_the_receiver_got() {
    if !tshark::have_tshark("sack_blocks_cover_only_data_the_receiver_got") {
        return;
    }
    let (_dir, out) = run("sack", &LOSSY.replace("PROFILE", "linux").replace("LOSS", "0.03"), &[]);
    let pcap = out.join("capture-l.pcapng");
    tshark::assert_clean(&pcap, &[]);
    // Data that crossed the link (not dropped), by relative sequence number and time.
    let mut received: Vec<(u64, f64)> = Vec::new();
    for row in tshark::fields(&pcap, &[], "tcp.len > 0 && !(frame.comment == \"dropped\")", &["tcp.seq", "frame.time_relative"]) {
        received.push((row[0][0].parse().unwrap(), row[1][0].parse().unwrap()));
    }
    let acks = tshark::fields(
        &pcap,
        &[],
        "tcp.options.sack_le",
        &["frame.time_relative", "tcp.ack", "tcp.options.sack_le", "tcp.options.sack_re"],
    );
    assert!(!acks.is_empty(), "a lossy SACK run sends SACK blocks");
    let mut two_holes = 0;
    for row in &acks {
        let time: f64 = row[0][0].parse().unwrap();
        let ack: u64 = row[1][0].parse().unwrap();
        let (le, re) = (tshark::nums(&row[2]), tshark::nums(&row[3]));
        assert_eq!(le.len(), re.len());
        two_holes += usize::from(le.len() >= 2);
        for (&l, &r) in le.iter().zip(&re) {
            assert!(ack < l && l < r, "block {l}-{r} must lie above the cumulative ACK {ack}");
            // Every segment of the block reached the receiver before this ACK (sent from there
            // no later than the ACK reached the link back).
            let mut seq = l;
            while seq < r {
                assert!(received.iter().any(|&(s, t)| s == seq && t <= time), "SACKed {seq} (block {l}-{r}, ACK {ack}) never arrived");
                seq += 1500;
            }
        }
    }
    assert!(two_holes > 0, "some ACK reports two holes");
}

#[test]
fn a_multipath_flow_is_one_mptcp_connection_with_continuous_data_sequence() {
    if !tshark::have_tshark("a_multipath_flow_is_one_mptcp_connection_with_continuous_data_sequence") {
        return;
    }
    let scenario = "[sim]\nduration = \"2s\"\nwarmup = \"0s\"\n[tcp]\nprofile = \"linux\"\n\
        [[link]]\nname = \"a\"\nrate = \"20Mbps\"\ndelay = \"10ms\"\nbuffer = \"1000pkt\"\n\
        [[link]]\nname = \"b\"\nrate = \"5Mbps\"\ndelay = \"30ms\"\nbuffer = \"1000pkt\"\n\
        [[flow]]\nname = \"mp\"\ncc = \"lia\"\npaths = [[\"a\"], [\"b\"]]\nsize = \"3000000B\"\n";
    let (_dir, out) = run("mptcp", scenario, &["--capture", "a+b:mp"]);
    let pcap = out.join("capture-a+b.pcapng");
    tshark::assert_clean(&pcap, &tshark::MPTCP_PREFS);
    let rows = tshark::fields(&pcap, &tshark::MPTCP_PREFS, "tcp.len > 0", &["tcp.stream", "mptcp.stream", "mptcp.dsn"]);
    let streams: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[0][0].as_str()).collect();
    let mptcp: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[1][0].as_str()).collect();
    assert_eq!(streams.len(), 2, "two subflows, two TCP streams");
    assert_eq!(mptcp.len(), 1, "one MPTCP connection: {mptcp:?}");
    let mut dsn: Vec<u64> = rows.iter().map(|r| r[2][0].parse().unwrap()).collect();
    dsn.sort_unstable();
    dsn.dedup();
    // Wireshark shows data sequence numbers relative to the IDSN only from an MP_CAPABLE with
    // both keys (a third ACK the simulator's handshake does not send): continuity is checked
    // from the first one.
    for w in dsn.windows(2) {
        assert_eq!(w[1] - w[0], 1500, "a gap in the data sequence after {}", w[0]);
    }
    assert_eq!(dsn.len(), 2000, "every data segment of the transfer");
}

#[test]
fn a_capture_naming_nothing_or_too_much_is_refused() {
    let dir = scratch("refused");
    let file = dir.join("s.toml");
    std::fs::write(&file, LOSSY.replace("PROFILE", "newreno").replace("LOSS", "0.01")).unwrap();
    let f = file.to_str().unwrap();
    let o = equipoise(&["run", f, "--capture", "m", "--out", dir.join("o").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("no link named \"m\""), "{err}");
    let o = equipoise(&["run", f, "--capture", "l:g", "--out", dir.join("o").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--capture.flows[0]: no flow named \"g\"; did you mean \"f\"?"), "{err}");
    let o = equipoise(&["run", f, "--set", "sim.duration=100000s", "--out", dir.join("o").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("capture[0]: the captures could take up to"), "{err}");
    assert!(!dir.join("o").exists(), "nothing is written");
    // Just above the cap: the estimate and the cap read apart (64 captures of a 1 s run of
    // the dumbbell's 100 Mb/s bottleneck: 268.83 MB against 268.44 MB, not 0.27 GB twice).
    let mut args = vec!["run", "../../scenarios/dumbbell.toml", "--set", "sim.duration=1s", "--set", "sim.warmup=0s"];
    for _ in 0..64 {
        args.extend(["--capture", "bottleneck"]);
    }
    let out = dir.join("many");
    args.extend(["--out", out.to_str().unwrap()]);
    let o = equipoise(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    let sizes: Vec<&str> = err.split(" MB").filter_map(|part| part.rsplit(' ').next()).take(2).collect();
    assert!(!o.status.success() && err.contains("(bottleneck for 1s)"), "{err}");
    assert!(sizes.len() == 2 && sizes[0] != sizes[1] && sizes[0].parse::<f64>().unwrap() > sizes[1].parse().unwrap(), "{err}");
}
