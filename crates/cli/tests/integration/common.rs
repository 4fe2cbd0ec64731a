//! What the command line's tests share: running the binary, and a scratch folder per test.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the binary built for these tests with `args`, in the test's working directory.
pub fn equipoise(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_equipoise")).args(args).output().expect("the binary runs")
}

/// What the binary wrote to standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `equipoise-SUBJECT-PID-NAME` under the temporary directory, emptied of an earlier run's
/// files and made again.
pub fn scratch(subject: &str, name: &str) -> PathBuf {
    let dir = unused_path(subject, name);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The same path, removed and not made: for a test of what the binary does where nothing is.
pub fn unused_path(subject: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("equipoise-{subject}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
