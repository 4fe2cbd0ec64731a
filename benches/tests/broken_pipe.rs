//! A bench binary whose reader went away (`d2 10 1s | head -1`) ends quietly.

use std::process::{Command, Stdio};

#[test]
fn a_report_into_a_closed_pipe_ends_without_a_panic() {
    for (bin, args) in [(env!("CARGO_BIN_EXE_d2"), &["10", "20ms"][..]), (env!("CARGO_BIN_EXE_datacenter"), &["4", "2", "1ms", "0s"][..])] {
        let mut child = Command::new(bin).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the bench runs");
        // Close the reading end before the report is written.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("the bench ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !stderr.contains("panicked"), "{bin}: {:?} {stderr}", out.status);
    }
}
