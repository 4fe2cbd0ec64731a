//! Reading a quantity's replicate values out of a sweep dataset, with errors that name the
//! `[paper]` entry and what the dataset has instead.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

use polars::prelude::DataFrame;
use topologies::paper::{Quantity, quantity_tables};

use crate::dataset::{mean_ci, numbers, read_table, texts};

/// A quantity's replicate values, in replicate order, and their statistics.
#[derive(Clone, Debug)]
pub(super) struct Measured {
    pub(super) values: Vec<(u32, f64)>,
    pub(super) mean: f64,
    pub(super) half: f64,
}

impl Measured {
    fn new(mut values: Vec<(u32, f64)>) -> Self {
        values.sort_by_key(|v| v.0);
        let xs: Vec<f64> = values.iter().map(|v| v.1).collect();
        let (_, mean, _, half) = mean_ci(&xs);
        Measured { values, mean, half: if half.is_nan() { 0.0 } else { half } }
    }
}

/// The dataset's values, read once per table, each column taken out of its table once (a
/// report asks for the same columns for every quantity).
pub(super) struct Dataset {
    pub(super) dir: PathBuf,
    tables: BTreeMap<String, DataFrame>,
    numbers: BTreeMap<(String, String), Option<Rc<[f64]>>>,
    texts: BTreeMap<(String, String), Option<Rc<[String]>>>,
}

impl Dataset {
    pub(super) fn new(dir: PathBuf) -> Dataset {
        Dataset { dir, tables: BTreeMap::new(), numbers: BTreeMap::new(), texts: BTreeMap::new() }
    }

    /// A numeric column of a table read already, as numbers.
    fn numbers_of(&mut self, table: &str, column: &str) -> Option<Rc<[f64]>> {
        let df = &self.tables[table];
        self.numbers.entry((table.to_string(), column.to_string())).or_insert_with(|| numbers(df, column).map(Rc::from)).clone()
    }

    /// A column of a table read already, as text.
    fn texts_of(&mut self, table: &str, column: &str) -> Option<Rc<[String]>> {
        let df = &self.tables[table];
        self.texts.entry((table.to_string(), column.to_string())).or_insert_with(|| texts(df, column).map(Rc::from)).clone()
    }

    pub(super) fn table(&mut self, name: &str) -> Result<&DataFrame, String> {
        if !self.tables.contains_key(name) {
            let df = read_table(&self.dir, name).map_err(|e| self.why_empty(e))?;
            self.tables.insert(name.to_string(), df);
        }
        Ok(&self.tables[name])
    }

    /// A table that cannot be read, explained by the runs' own errors when none succeeded.
    fn why_empty(&self, error: String) -> String {
        let Ok(runs) = read_table(&self.dir, "runs") else { return error };
        let (Some(status), Some(errors)) = (texts(&runs, "status"), texts(&runs, "error")) else { return error };
        match status.iter().position(|s| s == "ok") {
            Some(_) => error,
            None => format!(
                "{}: none of its {} runs succeeded; the first failed with: {}",
                self.dir.display(),
                status.len(),
                errors.first().map_or("", String::as_str)
            ),
        }
    }

    /// The replicate values of `q`; an error naming `q`'s key when the dataset lacks it.
    pub(super) fn measure(&mut self, file: &str, q: &Quantity) -> Result<Measured, String> {
        let dir = self.dir.display().to_string();
        let (table, column, entity_col) = match q.metric.split_once('.') {
            Some((t, c)) => (t.to_string(), c.to_string(), quantity_tables().find(|(n, _)| n.name == t).and_then(|(_, e)| e)),
            None => ("metrics".to_string(), "value".to_string(), Some("group")),
        };
        let height = self.table(&table)?.height();
        let points = self.numbers_of(&table, "point").ok_or_else(|| format!("{dir}: {table} has no point column: not a sweep dataset"))?;
        let replicates =
            self.numbers_of(&table, "replicate").ok_or_else(|| format!("{dir}: {table} has no replicate column: not a sweep dataset"))?;
        let values = self.numbers_of(&table, &column).ok_or_else(|| {
            let names: Vec<String> = self.tables[&table].get_column_names().iter().map(|n| n.to_string()).collect();
            let hint = topologies::error::suggestion(&column, names.iter().map(String::as_str));
            format!("{file}: {}.metric: {dir}: {table} has no numeric column \"{column}\"{hint}", q.key)
        })?;
        let entities = entity_col.and_then(|c| self.texts_of(&table, c));
        let metrics = if table == "metrics" { self.texts_of(&table, "metric") } else { None };
        let mut found: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        let (mut metric_seen, mut groups_seen) = (false, Vec::<String>::new());
        for i in 0..height {
            if metrics.as_ref().is_some_and(|m| m[i] != q.metric) {
                continue;
            }
            metric_seen = true;
            let entity = entities.as_ref().map_or("", |e| e[i].as_str());
            if entity != q.group {
                if !groups_seen.iter().any(|g| g == entity) {
                    groups_seen.push(entity.to_string());
                }
                continue;
            }
            if points[i] as usize == q.point {
                found.entry(replicates[i] as u32).or_default().push(values[i]);
            }
        }
        if !metric_seen {
            return Err(format!("{file}: {}.metric: the dataset {dir} has no metric \"{}\"", q.key, q.metric));
        }
        if found.is_empty() {
            let has_point = points.iter().any(|&p| p as usize == q.point);
            return Err(if !has_point {
                format!("{file}: {}.point: point {} has no runs in {dir} yet (run the sweep, or --resume it)", q.key, q.point)
            } else {
                groups_seen.sort();
                format!("{file}: {}.group: \"{}\" is not in the dataset {dir} (groups: {})", q.key, q.group, groups_seen.join(", "))
            });
        }
        if let Some((r, rows)) = found.iter().find(|(_, rows)| rows.len() > 1) {
            return Err(format!("{file}: {}: {} rows match in replicate {r}; name one {}", q.key, rows.len(), entity_col.unwrap_or("row")));
        }
        Ok(Measured::new(found.into_iter().map(|(r, rows)| (r, rows[0])).collect()))
    }
}

/// The chain's values replicate by replicate (replicates every side has).
pub(super) fn per_replicate(chain: &[Measured]) -> Vec<Vec<f64>> {
    let Some(first) = chain.first() else { return Vec::new() };
    first
        .values
        .iter()
        .filter_map(|(r, _)| chain.iter().map(|m| m.values.iter().find(|v| v.0 == *r).map(|v| v.1)).collect::<Option<Vec<f64>>>())
        .collect()
}
