//! What the command line's tests share: running the binary, and a scratch folder per test.

use std::fs::File;
use std::path::{Path, PathBuf};
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

/// The value of `key` in the key-value metadata of the Parquet file at `path`.
pub fn metadata(path: &Path, key: &str) -> Option<String> {
    use polars::prelude::*;
    let mut reader = ParquetReader::new(File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let kv = reader.get_metadata().expect("the file's metadata").key_value_metadata().clone().unwrap_or_default();
    kv.into_iter().find(|k| k.key == key).and_then(|k| k.value)
}
