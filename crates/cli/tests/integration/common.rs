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

/// A test's scratch folder, `equipoise-SUBJECT-PID-NAME` under the temporary directory: removed
/// when the test ends, kept (and named on standard error) when it fails, for a look at what the
/// binary wrote.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept the failed test's scratch folder {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The test's scratch folder, emptied of an earlier run's files and made again.
pub fn scratch(subject: &str, name: &str) -> Scratch {
    let dir = unused_path(subject, name);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The same path, removed and not made: for a test of what the binary does where nothing is.
pub fn unused_path(subject: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("equipoise-{subject}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Scratch(dir)
}

/// The value of `key` in the key-value metadata of the Parquet file at `path`.
pub fn metadata(path: &Path, key: &str) -> Option<String> {
    use polars::prelude::*;
    let mut reader = ParquetReader::new(File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let kv = reader.get_metadata().expect("the file's metadata").key_value_metadata().clone().unwrap_or_default();
    kv.into_iter().find(|k| k.key == key).and_then(|k| k.value)
}
