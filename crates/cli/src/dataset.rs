//! Reading a sweep dataset back: every run file of a table as one frame, and plain per-row
//! access for the statistics.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

/// Columns that identify a run rather than measure it.
pub const RUN_COLUMNS: [&str; 3] = ["point", "replicate", "seed"];

/// The unit a column's name ends with (`goodput_bps` is in bit/s), by the results tables'
/// naming convention (docs/results.md).
pub fn column_unit(column: &str) -> Option<(&str, &'static str)> {
    [("_bps", "bit/s"), ("_s", "s"), ("_pkts", "packets"), ("_bytes", "bytes")]
        .into_iter()
        .find_map(|(suffix, unit)| column.strip_suffix(suffix).map(|stem| (stem, unit)))
}

/// The batch files (`*.parquet`) of a table's folder, in file-name (run) order.
pub fn batches(folder: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    Ok(files)
}

/// Every run file of `table` in dataset `dir`, stacked in file-name (run) order.
pub fn read_table(dir: &Path, table: &str) -> Result<DataFrame, String> {
    let folder = dir.join(table);
    let files = batches(&folder).map_err(|e| format!("{}: not a sweep dataset (cannot read {}: {e})", dir.display(), folder.display()))?;
    let mut frames = files.iter().map(|f| {
        let file = File::open(f).map_err(|e| format!("cannot open {}: {e}", f.display()))?;
        read_parquet(file).map_err(|e| format!("cannot read {}: {e}", f.display()))
    });
    let Some(first) = frames.next() else { return Err(format!("{}: no runs yet", folder.display())) };
    let mut all = first?;
    for f in frames {
        all.vstack_mut(&f?).map_err(|e| e.to_string())?;
    }
    Ok(all)
}

/// The frame of a Parquet file that may be damaged. polars panics on some damaged footers
/// (a Thrift field of the wrong type): such a panic is this file's error, not the process's,
/// and is not printed.
pub fn read_parquet(file: File) -> Result<DataFrame, String> {
    use std::cell::Cell;
    thread_local! {
        static READING: Cell<bool> = const { Cell::new(false) };
    }
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let print = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !READING.with(Cell::get) {
                print(info);
            }
        }));
    });
    READING.with(|r| r.set(true));
    let read = std::panic::catch_unwind(move || ParquetReader::new(file).finish());
    READING.with(|r| r.set(false));
    match read {
        Ok(frame) => frame.map_err(|e| e.to_string()),
        Err(panic) => {
            let why = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            Err(format!("not a Parquet file polars can read (it failed on: {})", why.unwrap_or_else(|| "a damaged file".into())))
        }
    }
}

/// A column as f64 values (nulls as NaN), if it is numeric.
pub fn numbers(df: &DataFrame, name: &str) -> Option<Vec<f64>> {
    let col = df.column(name).ok()?;
    if !col.dtype().is_primitive_numeric() {
        return None;
    }
    let cast = col.cast(&DataType::Float64).ok()?;
    let values = cast.as_materialized_series().f64().ok()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
    Some(values)
}

/// A column as text, whatever its type.
pub fn texts(df: &DataFrame, name: &str) -> Option<Vec<String>> {
    let col = df.column(name).ok()?;
    let s = col.as_materialized_series();
    Some((0..s.len()).map(|i| s.get(i).map(|v| v.str_value().to_string()).unwrap_or_default()).collect())
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df - 1],
        // Beyond the table, 1.96 + 2.4/df is within 0.002 of the exact quantile.
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// Mean, sample standard deviation and 95 % confidence half-width of `xs` (NaN values
/// skipped); the half-width is NaN for fewer than two values.
pub fn mean_ci(xs: &[f64]) -> (usize, f64, f64, f64) {
    let xs: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    let n = xs.len();
    if n == 0 {
        return (0, f64::NAN, f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (1, mean, f64::NAN, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    (n, mean, sd, t95(n - 1) * sd / (n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_interval_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7, sd 2.13809,
        // half-width t(7) · sd / √8 = 2.365 · 2.13809 / 2.82843 = 1.78777
        let (n, mean, sd, half) = mean_ci(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!((n, mean), (8, 5.0));
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((half - 1.787_77).abs() < 1e-5, "{half}");
        assert!(mean_ci(&[3.0]).3.is_nan());
        assert!((t95(60) - 2.000).abs() < 0.002 && (t95(120) - 1.980).abs() < 0.002);
    }

    /// A batch damaged anywhere (here: 32 bytes of text written over it at every fourth
    /// offset) is read or refused naming its file; polars' panics on some damaged footers
    /// are errors too.
    #[test]
    fn a_damaged_batch_is_an_error_naming_it_never_a_panic() {
        let dir = std::env::temp_dir().join(format!("equipoise-damaged-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        let mut df =
            DataFrame::new(3, vec![Column::new("point".into(), [0u32, 1, 2]), Column::new("status".into(), ["ok", "ok", "ok"])]).unwrap();
        let provenance = crate::tables::Provenance::packet("s.toml".into(), "[sim]\nduration = \"1s\"\n".into(), 1);
        let bytes = crate::tables::encode_parquet(&mut df, &provenance).unwrap();
        let batch = dir.join("runs/batch-000000.parquet");
        let (mut read, mut refused) = (0, 0);
        for at in (0..bytes.len()).step_by(4) {
            let mut damaged = bytes.clone();
            let end = (at + 32).min(damaged.len());
            damaged[at..end].copy_from_slice(&b"0123456789abcdef0123456789abcdef"[..end - at]);
            std::fs::write(&batch, &damaged).unwrap();
            match read_table(&dir, "runs") {
                Ok(_) => read += 1,
                Err(e) => {
                    assert!(e.contains("runs/batch-000000.parquet"), "{e}");
                    refused += 1;
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(refused > 0 && read + refused == bytes.len().div_ceil(4), "{read} read, {refused} refused");
    }
}
