//! Running tshark on the captures the tests write: Wireshark's dissectors and TCP/MPTCP
//! analysis, written by other people, are the oracle.
//!
//! tshark is an external program (Debian's `tshark`, installed by `.ci/run`). When it is
//! missing the tests say so: under CI (`CI` set) they fail, since CI must have it; elsewhere
//! they print a skip message and pass without checking anything.

#![allow(dead_code)] // each test file uses a different part

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Preferences that turn on Wireshark's MPTCP analysis (names as of Wireshark 4.0; tshark
/// rejects unknown preference names, so a rename fails loudly).
pub const MPTCP_PREFS: [&str; 6] =
    ["-o", "mptcp.analyze_mptcp:TRUE", "-o", "mptcp.analyze_mappings:TRUE", "-o", "mptcp.relative_sequence_numbers:TRUE"];

/// Whether tshark can be run. `false` means: skip (the message is printed); panics under CI.
pub fn have_tshark(test: &str) -> bool {
    match Command::new("tshark").arg("--version").output() {
        Ok(out) if out.status.success() => {
            let version = String::from_utf8_lossy(&out.stdout);
            eprintln!("{test}: using {}", version.lines().next().unwrap_or("tshark"));
            true
        }
        _ if std::env::var_os("CI").is_some() => {
            panic!("{test}: tshark is not installed: CI must have tshark (.ci/run installs Debian's tshark package)")
        }
        _ => {
            // Straight to the process's stderr, past the test harness's capture: a skip must
            // be seen in a normal `cargo test` run.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: tshark is not installed, so Wireshark cannot check the capture \
                 (apt-get install tshark); this test passes without checking anything"
            );
            false
        }
    }
}

/// A fresh path for a capture file of this test (in the target's temporary directory).
pub fn capture_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capture-tests");
    std::fs::create_dir_all(&dir).expect("create test directory");
    dir.join(format!("{name}.pcapng"))
}

/// tshark's field output for `filter`: one row per matching packet, one column per field,
/// each column the field's occurrences in the packet (empty if absent).
pub fn fields(file: &Path, prefs: &[&str], filter: &str, fields: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(file).args(prefs).args(["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]);
    if !filter.is_empty() {
        cmd.args(["-Y", filter]);
    }
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .expect("tshark prints UTF-8")
        .lines()
        .map(|line| {
            line.split('\t').map(|col| if col.is_empty() { Vec::new() } else { col.split(',').map(str::to_owned).collect() }).collect()
        })
        .collect()
}

/// Packets matching the display filter `filter`.
pub fn count(file: &Path, prefs: &[&str], filter: &str) -> usize {
    fields(file, prefs, filter, &["frame.number"]).len()
}

/// tshark reads the whole file without a malformed packet or an error-severity expert item.
pub fn assert_clean(file: &Path, prefs: &[&str]) {
    let bad = fields(file, prefs, "_ws.malformed || _ws.expert.severity == error", &["frame.number", "_ws.expert.message"]);
    assert!(bad.is_empty(), "tshark finds malformed packets or errors in {}: {bad:?}", file.display());
    let all = count(file, prefs, "");
    assert!(all > 0, "tshark reads no packet from {}", file.display());
}

/// A column of a row as numbers.
pub fn nums(col: &[String]) -> Vec<u64> {
    col.iter().map(|s| s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))).collect()
}
