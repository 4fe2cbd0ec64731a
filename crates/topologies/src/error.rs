//! Scenario errors: every one names the file, the key path and what was expected.

use std::fmt;

/// A scenario that cannot be read, parsed or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file (or `<command line>` for `--set`).
    pub file: String,
    /// Key path, in the form `--set` uses (`link.l1.rate`); empty for whole-file errors.
    pub key: String,
    /// What was wrong and what was expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `key` of `file`.
    pub fn new(file: impl Into<String>, key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { file: file.into(), key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// What every fallible step of scenario handling returns: on failure, an error naming the
/// file, the key path and what was expected.
pub type Result<T> = std::result::Result<T, ScenarioError>;

/// The valid name closest to `got`, if any is close enough to be a likely typo.
pub fn nearest<'a>(got: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    valid.into_iter().map(|v| (strsim::damerau_levenshtein(got, v), v)).filter(|&(d, v)| d <= 2.max(v.len() / 3)).min().map(|(_, v)| v)
}

/// ` (did you mean "x"?)` or nothing.
pub fn suggestion<'a>(got: &str, valid: impl IntoIterator<Item = &'a str>) -> String {
    nearest(got, valid).map(|n| format!("; did you mean \"{n}\"?")).unwrap_or_default()
}
