//! Results as Parquet tables: one file per table, each carrying the scenario, the seed and the
//! program version in its metadata, written by [`crate::output`] (which never loses a user's files).

use std::fs;
use std::path::Path;

use polars::prelude::*;
use tcp::RunOutput;
use topologies::metrics::Metric;

/// What every output file records about how it was made.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// The scenario file, as given on the command line.
    pub file: String,
    /// The effective scenario text (with every `--set` applied).
    pub scenario: String,
    /// The run's seed (the scenario's, or the one a sweep derived for this replicate).
    pub seed: u64,
    /// What computed the tables.
    pub source: Source,
    /// Further `(key, value)` pairs for the metadata (the fluid model's constant, its
    /// approximations), each key prefixed `equipoise.`.
    pub notes: Vec<(String, String)>,
}

impl Provenance {
    /// Provenance of the packet simulator's tables.
    pub fn packet(file: String, scenario: String, seed: u64) -> Provenance {
        Provenance { file, scenario, seed, source: Source::Packet, notes: Vec::new() }
    }

    /// Provenance of tables `source` computed.
    pub fn of(source: Source, file: String, scenario: String, seed: u64) -> Provenance {
        Provenance { source, ..Provenance::packet(file, scenario, seed) }
    }

    fn metadata(&self) -> KeyValueMetadata {
        let mut pairs = vec![
            ("equipoise.version".into(), env!("CARGO_PKG_VERSION").into()),
            ("equipoise.scenario_file".into(), self.file.clone()),
            ("equipoise.scenario".into(), self.scenario.clone()),
            ("equipoise.seed".into(), self.seed.to_string()),
            ("equipoise.source".into(), self.source.name().into()),
        ];
        pairs.extend(self.notes.iter().map(|(k, v)| (format!("equipoise.{k}"), v.clone())));
        KeyValueMetadata::from_static(pairs)
    }
}

/// What computed a run's tables, as each file's `equipoise.source` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The packet simulator.
    Packet,
    /// Seed 004's AIMD model.
    Aimd,
    /// The fluid model's equilibrium (and trajectory).
    Fluid,
    /// ns-2.35, from the script `equipoise export ns2` writes.
    Ns2,
    /// This machine's kernel, through the testbed.
    Testbed,
}

impl Source {
    /// The name in the files' metadata.
    pub fn name(self) -> &'static str {
        match self {
            Source::Packet => "packet",
            Source::Aimd => "aimd",
            Source::Fluid => "fluid",
            Source::Ns2 => "ns2",
            Source::Testbed => "testbed",
        }
    }
}

/// A column named `name` of `values` (any type polars makes a series of).
pub fn col<T, P: ?Sized>(name: &str, values: T) -> Column
where
    Series: NamedFrom<T, P>,
{
    Column::new(name.into(), values)
}

/// The tables of a run, in the order [`frames`] makes them (the schema's, file-name order).
pub const RUN_TABLES: [&str; 5] = topologies::schema::names(topologies::schema::RUN_TABLES);

/// The files a command writes: `tables` as `<name>.parquet`, then `extra`, for
/// [`crate::output::prepare`] to check before the command runs.
pub fn planned_files<'a>(tables: &[&str], extra: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    tables.iter().map(|t| format!("{t}.parquet")).chain(extra.into_iter().map(String::from)).collect()
}

/// The five tables of a run, in file-name order: its records and the `metrics` computed from them.
pub fn frames(out: &RunOutput, metrics: &[Metric]) -> PolarsResult<Vec<(&'static str, DataFrame)>> {
    let f = &out.flows;
    let flows = DataFrame::new(
        f.len(),
        vec![
            col("flow", f.iter().map(|r| &*r.flow).collect::<Vec<_>>()),
            col("algorithm", f.iter().map(|r| r.algorithm).collect::<Vec<_>>()),
            col("subflows", f.iter().map(|r| r.subflows).collect::<Vec<_>>()),
            col("start_s", f.iter().map(|r| r.start_s).collect::<Vec<_>>()),
            col("goodput_bps", f.iter().map(|r| r.goodput_bps).collect::<Vec<_>>()),
            col("bytes_delivered", f.iter().map(|r| r.bytes_delivered).collect::<Vec<_>>()),
            col("packets_sent", f.iter().map(|r| r.packets_sent).collect::<Vec<_>>()),
            col("retransmissions", f.iter().map(|r| r.retransmissions).collect::<Vec<_>>()),
            col("timeouts", f.iter().map(|r| r.timeouts).collect::<Vec<_>>()),
            col("loss_events", f.iter().map(|r| r.loss_events).collect::<Vec<_>>()),
            col("size_bytes", f.iter().map(|r| r.size_bytes).collect::<Vec<_>>()),
            col("completion_time_s", f.iter().map(|r| r.completion_time_s).collect::<Vec<_>>()),
            col("mean_relative_drop", f.iter().map(|r| r.mean_relative_drop).collect::<Vec<_>>()),
        ],
    )?;
    let s = &out.subflows;
    let subflows = DataFrame::new(
        s.len(),
        vec![
            col("flow", s.iter().map(|r| &*r.flow).collect::<Vec<_>>()),
            col("subflow", s.iter().map(|r| r.subflow).collect::<Vec<_>>()),
            col("path", s.iter().map(|r| &*r.path).collect::<Vec<_>>()),
            col("goodput_bps", s.iter().map(|r| r.goodput_bps).collect::<Vec<_>>()),
            col("mean_cwnd_pkts", s.iter().map(|r| r.mean_cwnd_pkts).collect::<Vec<_>>()),
            col("mean_srtt_s", s.iter().map(|r| r.mean_srtt_s).collect::<Vec<_>>()),
            col("min_rtt_s", s.iter().map(|r| r.min_rtt_s).collect::<Vec<_>>()),
            col("packets_sent", s.iter().map(|r| r.packets_sent).collect::<Vec<_>>()),
            col("retransmissions", s.iter().map(|r| r.retransmissions).collect::<Vec<_>>()),
            col("fast_retransmits", s.iter().map(|r| r.fast_retransmits).collect::<Vec<_>>()),
            col("duplicate_acks", s.iter().map(|r| r.duplicate_acks).collect::<Vec<_>>()),
            col("timeouts", s.iter().map(|r| r.timeouts).collect::<Vec<_>>()),
        ],
    )?;
    let l = &out.links;
    let links = DataFrame::new(
        l.len(),
        vec![
            col("link", l.iter().map(|r| r.link.as_str()).collect::<Vec<_>>()),
            col("rate_bps", l.iter().map(|r| r.rate_bps).collect::<Vec<_>>()),
            col("delay_s", l.iter().map(|r| r.delay_s).collect::<Vec<_>>()),
            col("utilization", l.iter().map(|r| r.utilization).collect::<Vec<_>>()),
            col("arrivals", l.iter().map(|r| r.arrivals).collect::<Vec<_>>()),
            col("departures", l.iter().map(|r| r.departures).collect::<Vec<_>>()),
            col("queue_drops", l.iter().map(|r| r.queue_drops).collect::<Vec<_>>()),
            col("random_losses", l.iter().map(|r| r.random_losses).collect::<Vec<_>>()),
            col("down_drops", l.iter().map(|r| r.down_drops).collect::<Vec<_>>()),
            col("loss_rate", l.iter().map(|r| r.loss_rate).collect::<Vec<_>>()),
            col("mean_queue_pkts", l.iter().map(|r| r.mean_queue_pkts).collect::<Vec<_>>()),
            col("max_queue_pkts", l.iter().map(|r| r.max_queue_pkts).collect::<Vec<_>>()),
            col("mean_queue_bytes", l.iter().map(|r| r.mean_queue_bytes).collect::<Vec<_>>()),
            col("max_queue_bytes", l.iter().map(|r| r.max_queue_bytes).collect::<Vec<_>>()),
        ],
    )?;
    let t = &out.samples;
    let timeseries = DataFrame::new(
        t.len(),
        vec![
            col("time_s", t.iter().map(|r| r.time_s).collect::<Vec<_>>()),
            col("flow", t.iter().map(|r| &*f[r.flow as usize].flow).collect::<Vec<_>>()),
            col("subflow", t.iter().map(|r| r.subflow).collect::<Vec<_>>()),
            col("cwnd_pkts", t.iter().map(|r| r.cwnd_pkts).collect::<Vec<_>>()),
            col("srtt_s", t.iter().map(|r| r.srtt_s).collect::<Vec<_>>()),
            col("rate_bps", t.iter().map(|r| r.rate_bps).collect::<Vec<_>>()),
            col("cc_state", t.iter().map(|r| r.cc_state).collect::<Vec<_>>()),
        ],
    )?;
    let metrics = DataFrame::new(
        metrics.len(),
        vec![
            col("metric", metrics.iter().map(|m| m.metric).collect::<Vec<_>>()),
            col("group", metrics.iter().map(|m| m.group.as_str()).collect::<Vec<_>>()),
            col("value", metrics.iter().map(|m| m.value).collect::<Vec<_>>()),
            col("unit", metrics.iter().map(|m| m.unit).collect::<Vec<_>>()),
        ],
    )?;
    Ok(RUN_TABLES.into_iter().zip([flows, links, metrics, subflows, timeseries]).collect())
}

/// Makes every float of `df` that is not finite null: a quantity that does not exist (a ratio
/// over zero, a mean of nothing, a value another simulator did not report) is null in every
/// table this tool writes, never inf or NaN, which readers would average or plot.
pub fn null_non_finite(df: &mut DataFrame) -> Result<(), String> {
    let floats: Vec<PlSmallStr> = df.columns().iter().filter(|c| c.dtype() == &DataType::Float64).map(|c| c.name().clone()).collect();
    for name in floats {
        let column = df.column(&name).map_err(|e| e.to_string())?;
        let values = column.as_materialized_series().f64().map_err(|e| e.to_string())?;
        if values.iter().all(|v| v.is_none_or(f64::is_finite)) {
            continue;
        }
        let finite: Float64Chunked = values.iter().map(|v| v.filter(|x| x.is_finite())).collect();
        df.with_column(finite.with_name(name).into_column()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `df` as Parquet bytes, with `provenance` in the file metadata (floats that are not finite
/// as nulls: [`null_non_finite`]).
pub fn encode_parquet(df: &mut DataFrame, provenance: &Provenance) -> Result<Vec<u8>, String> {
    null_non_finite(df)?;
    // Encoded in memory and written at once: the writer issues thousands of small writes per
    // file, which as system calls cost more than a whole small run of the simulator.
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_compression(ParquetCompression::Snappy)
        // Min, max and null counts for readers' pruning; no distinct-count sketches, whose
        // cost dominated writing the many small files of a sweep.
        .with_statistics(StatisticsOptions { distinct_count: false, ..StatisticsOptions::default() })
        .set_parallel(false)
        .with_key_value_metadata(Some(provenance.metadata()))
        .finish(df)
        .map_err(|e| format!("cannot encode a table: {e}"))?;
    Ok(bytes)
}

/// Writes `df` to `path` as Parquet with `provenance` in the file metadata.
pub fn write_parquet(path: &Path, df: &mut DataFrame, provenance: &Provenance) -> Result<(), String> {
    let bytes = encode_parquet(df, provenance)?;
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `tables` as `(<name>.parquet, bytes)`.
pub fn encode_tables(tables: Vec<(&'static str, DataFrame)>, provenance: &Provenance) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::with_capacity(tables.len());
    for (name, mut df) in tables {
        files.push((format!("{name}.parquet"), encode_parquet(&mut df, provenance)?));
    }
    Ok(files)
}
