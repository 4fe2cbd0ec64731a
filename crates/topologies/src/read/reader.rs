//! Reading a TOML table key by key, tracking the key path for error messages and rejecting
//! keys nobody asked for.

use toml::{Table, Value};

use crate::error::{Result, ScenarioError, suggestion};
use crate::units::{self, BufferValue, RateValue, SizeValue};
use sim_core::Time;

/// One table of the scenario being read.
///
/// The getters each read one `key`, mark it as known (so that [`Reader::finish`] can reject
/// the rest) and return `None` when it is absent; a value of the wrong type or out of range is
/// an error at the key's full path.
pub struct Reader<'a> {
    file: &'a str,
    path: String,
    table: &'a Table,
    known: Vec<&'static str>,
}

/// The type name of a TOML value, for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

impl<'a> Reader<'a> {
    /// Reads `table`, found at key path `path` of `file`.
    pub fn new(file: &'a str, path: impl Into<String>, table: &'a Table) -> Self {
        Reader { file, path: path.into(), table, known: Vec::new() }
    }

    /// The key path of `key` in this table.
    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }

    /// The path of this table.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The whole table, for what the getters do not cover (whether a key is present at all;
    /// its keys in order). Reading through it marks nothing as known.
    pub fn table_ref(&self) -> &'a Table {
        self.table
    }

    /// The file's name, for errors built outside this reader (paths' elements).
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// An error located at this file and the full key path of `key`.
    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.file, self.key_path(key), message)
    }

    /// The error for a missing required `key`; if the table has an unknown key that looks like
    /// a misspelling of it, that is the error reported.
    pub fn missing(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let typo = self.table.keys().find(|k| !self.known.contains(&k.as_str()) && !suggestion(k, [key]).is_empty());
        match typo {
            Some(k) => self.error(k, format!("unknown key; did you mean \"{key}\"?")),
            None => self.error(key, message),
        }
    }

    /// The raw value of `key`, marking the key as known.
    pub fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.table.get(key)
    }

    fn typed<T>(&mut self, key: &'static str, what: &str, get: impl Fn(&'a Value) -> Option<T>) -> Result<Option<T>> {
        match self.value(key) {
            None => Ok(None),
            Some(v) => get(v).map(Some).ok_or_else(|| self.error(key, format!("expected {what}, got {}", type_name(v)))),
        }
    }

    /// `key` as a string, taken as written (no unit parsing).
    pub fn string(&mut self, key: &'static str) -> Result<Option<&'a str>> {
        self.typed(key, "a string", Value::as_str)
    }

    /// `key` as a string, required: when absent, the error points at a misspelt key if one
    /// looks like it ([`Reader::missing`]).
    pub fn required_string(&mut self, key: &'static str) -> Result<&'a str> {
        self.string(key)?.ok_or_else(|| self.missing(key, "missing; expected a string"))
    }

    /// An optional name from `names` (configuration name, value); an unknown one is an error
    /// listing the valid names, with the nearest.
    pub fn choice<T: Clone>(&mut self, key: &'static str, names: &[(&str, T)]) -> Result<Option<T>> {
        let Some(name) = self.string(key)? else { return Ok(None) };
        match names.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok(Some(v.clone())),
            None => {
                let valid = || names.iter().map(|(n, _)| *n);
                let message =
                    format!("unknown {key} \"{name}\"{} (valid: {})", suggestion(name, valid()), valid().collect::<Vec<_>>().join(", "));
                Err(self.error(key, message))
            }
        }
    }

    /// `key` as a TOML boolean (the strings `"true"` and `"false"` are errors).
    pub fn boolean(&mut self, key: &'static str) -> Result<Option<bool>> {
        self.typed(key, "true or false", Value::as_bool)
    }

    /// `key` as a TOML integer ≥ 0 (a float such as `2.0` is an error).
    pub fn unsigned(&mut self, key: &'static str) -> Result<Option<u64>> {
        match self.typed(key, "a non-negative integer", Value::as_integer)? {
            Some(i) if i < 0 => Err(self.error(key, format!("expected a non-negative integer, got {i}"))),
            other => Ok(other.map(|i| i as u64)),
        }
    }

    /// An optional whole number within `range`; `what` names what it counts, for the message.
    pub fn bounded(&mut self, key: &'static str, range: std::ops::RangeInclusive<u64>, what: &str) -> Result<Option<u64>> {
        match self.unsigned(key)? {
            Some(n) if !range.contains(&n) => {
                Err(self.error(key, format!("expected {} to {} {what}, got {n}", range.start(), range.end())))
            }
            other => Ok(other),
        }
    }

    /// An optional number (integers accepted).
    pub fn number(&mut self, key: &'static str) -> Result<Option<f64>> {
        self.typed(key, "a number", |v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))
    }

    /// An optional probability in [0, 1].
    pub fn probability(&mut self, key: &'static str) -> Result<Option<f64>> {
        match self.number(key)? {
            Some(p) if !(0.0..=1.0).contains(&p) => Err(self.error(key, format!("expected a probability in [0, 1], got {p}"))),
            other => Ok(other),
        }
    }

    /// An optional string parsed by `parse`.
    fn quantity<T>(&mut self, key: &'static str, parse: impl Fn(&str) -> std::result::Result<T, String>) -> Result<Option<T>> {
        let Some(v) = self.value(key) else { return Ok(None) };
        let text = match v {
            Value::String(s) => s.as_str(),
            other => {
                // A bare number is the most common mistake: say what unit is missing.
                let hint = parse(&other.to_string()).err().unwrap_or_default();
                return Err(self.error(key, hint));
            }
        };
        parse(text).map(Some).map_err(|m| self.error(key, m))
    }

    /// `key` as a time with a unit (`"5ms"`); a bare number is an error naming the units.
    pub fn time(&mut self, key: &'static str) -> Result<Option<Time>> {
        self.quantity(key, units::parse_time)
    }

    /// `key` as a rate: a bit rate with a unit, or `pps`, packets of `sim.mss` per second
    /// (resolved when the simulation is built).
    pub fn rate(&mut self, key: &'static str) -> Result<Option<RateValue>> {
        self.quantity(key, units::parse_rate)
    }

    /// `key` as a size: bytes with a unit, or `pkt`, packets of `sim.mss`.
    pub fn size(&mut self, key: &'static str) -> Result<Option<SizeValue>> {
        self.quantity(key, units::parse_size)
    }

    /// `key` as a buffer: a size, or a time meaning that long at the link's rate.
    pub fn buffer(&mut self, key: &'static str) -> Result<Option<BufferValue>> {
        self.quantity(key, units::parse_buffer)
    }

    /// An optional interval `[from, to]` of two times with `from ≤ to`; `shape` says how to
    /// write it.
    pub fn interval(&mut self, key: &'static str, shape: &str) -> Result<Option<(Time, Time)>> {
        let Some(v) = self.value(key) else { return Ok(None) };
        let Value::Array(items) = v else { return Err(self.error(key, shape)) };
        let times: Vec<Time> = items
            .iter()
            .map(|v| v.as_str().ok_or_else(|| shape.to_string()).and_then(units::parse_time))
            .collect::<std::result::Result<_, _>>()
            .map_err(|m| self.error(key, m))?;
        let [from, to] = times[..] else { return Err(self.error(key, shape)) };
        if from > to {
            return Err(self.error(key, format!("the interval is empty: {from} > {to}")));
        }
        Ok(Some((from, to)))
    }

    /// `key` as a sub-table, read by a new [`Reader`] whose key paths continue this one's.
    pub fn table(&mut self, key: &'static str) -> Result<Option<Reader<'a>>> {
        let path = self.key_path(key);
        let file = self.file;
        Ok(self.typed(key, "a table", Value::as_table)?.map(|t| Reader::new(file, path, t)))
    }

    /// Fails on any key of the table that was never asked for, naming the nearest known one.
    pub fn finish(self) -> Result<()> {
        for key in self.table.keys() {
            if !self.known.contains(&key.as_str()) {
                let hint = suggestion(key, self.known.iter().copied());
                let mut valid = self.known.clone();
                valid.sort_unstable();
                valid.dedup();
                return Err(self.error(key, format!("unknown key{hint} (valid keys here: {})", valid.join(", "))));
            }
        }
        Ok(())
    }
}
