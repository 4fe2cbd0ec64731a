//! `equipoise plot DIR --x KEY --y TABLE.COLUMN [--by KEY]`: a line per series with its 95 %
//! confidence band across replicates, drawn twice from the same code: SVG for papers, PNG
//! (with a compiled-in font, so no system font or converter is needed) for quick looks. With a
//! run's directory (of `run` or `testbed`), `--x time_s --y timeseries.COLUMN` draws its time
//! series instead: a line per subflow.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use polars::prelude::DataFrame;

use crate::dataset::{column_unit, mean_ci, numbers, read_parquet, read_table, texts};
use crate::formula::Formula;
use crate::output;

/// How the rows of one run (several flows or links) become one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Aggregate {
    /// Sum over the matching rows (total goodput).
    Sum,
    /// Mean over the matching rows.
    Mean,
    /// The smallest of the matching rows.
    Min,
    /// The largest of the matching rows.
    Max,
}

impl Aggregate {
    fn name(self) -> &'static str {
        match self {
            Aggregate::Sum => "sum",
            Aggregate::Mean => "mean",
            Aggregate::Min => "min",
            Aggregate::Max => "max",
        }
    }

    fn apply(self, xs: &[f64]) -> f64 {
        match self {
            Aggregate::Sum => xs.iter().sum(),
            Aggregate::Mean => xs.iter().sum::<f64>() / xs.len() as f64,
            Aggregate::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
            Aggregate::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// What `equipoise plot` was asked to draw.
pub struct PlotArgs {
    /// A sweep's dataset directory.
    pub dir: PathBuf,
    /// Swept key on the x axis.
    pub x: String,
    /// `table.column` on the y axis (`flows.goodput_bps`).
    pub y: String,
    /// Swept key distinguishing the lines.
    pub by: Option<String>,
    /// Only rows whose entity (flow, link or AIMD group name) starts with this.
    pub filter: Option<String>,
    /// `KEY=VALUE`: only the points where swept key KEY has VALUE (as the dataset writes it).
    pub at: Vec<String>,
    /// How a run's rows become one value.
    pub aggregate: Aggregate,
    /// Output file (`.svg` or `.png`; the other format is written beside it).
    pub out: Option<PathBuf>,
    /// Replace an existing file this tool did not write.
    pub overwrite: bool,
    /// A formula of `x` drawn as a dashed line beside the measurements.
    pub theory: Option<String>,
}

/// Written into every plot (an SVG comment; a PNG text chunk), so that a later plot may
/// replace it (and no other file).
pub const SIGNATURE: &str = "<!-- drawn by equipoise plot -->";

/// Pixels of both drawings (the SVG's user units).
const SIZE: (u32, u32) = (960, 520);

/// The typeface of every label: plotters draws bitmap text only with a registered font.
const FONT: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // DejaVu Sans is a valid TrueType font: registration cannot fail.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// A readable axis label for a column: its name with the unit spelled out.
fn label(column: &str) -> String {
    match column_unit(column) {
        Some((stem, unit)) => format!("{} ({unit})", stem.replace('_', " ")),
        None => column.replace('_', " "),
    }
}

/// Where the legend column's first line is, in pixels from the top.
const LEGEND_TOP: i32 = 50;

/// `text` cut to `chars` characters (an ellipsis marks the cut), so that it fits the legend.
fn fit(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars { text.to_string() } else { format!("{}…", text.chars().take(chars - 1).collect::<String>()) }
}

/// An axis number in at most four significant digits, large ones with an SI prefix
/// (`100M` rather than `100000000.0`).
fn compact(v: f64) -> String {
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    for (scale, prefix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if v.abs() >= scale {
            return format!("{}{prefix}", trim(format!("{:.3}", v / scale)));
        }
    }
    if v == 0.0 || v.abs() >= 1e-3 { trim(format!("{v:.4}")) } else { format!("{v:.2e}") }
}

/// Orders legend entries by their leading number where they have one ("5pkt" before "10pkt"),
/// then as text.
fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    let number = |s: &str| {
        let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e' || c == '+')).unwrap_or(s.len());
        s[..end].parse::<f64>().ok()
    };
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.cmp(b)),
        _ => a.cmp(b),
    }
}

/// One series: x → (mean, half-width).
type Series = BTreeMap<i64, (f64, f64, f64)>;

/// The rows of `table` in `df` that the plot keeps, one value per run (aggregated over its
/// matching rows), grouped by series and then by x (in millionths, so that it sorts and groups
/// exactly).
fn per_run(args: &PlotArgs, df: &DataFrame, table: &str, column: &str) -> Result<BTreeMap<String, BTreeMap<i64, Vec<f64>>>, String> {
    let y = numbers(df, column).ok_or_else(|| format!("--y {}: {table} has no numeric column \"{column}\"", args.y))?;
    let x = numbers(df, &args.x).ok_or_else(|| format!("--x {}: not a numeric swept key of this dataset", args.x))?;
    let by = match &args.by {
        Some(k) => texts(df, k).ok_or_else(|| format!("--by {k}: not a swept key of this dataset"))?,
        None => vec![String::new(); df.height()],
    };
    let entity_col = match table {
        "links" => "link",
        "connections" => "group",
        _ => "flow",
    };
    let entities = texts(df, entity_col).unwrap_or_else(|| vec![String::new(); df.height()]);
    let not_a_sweep = |c: &str| format!("{}: {table} has no {c} column: not a sweep dataset", args.dir.display());
    let points = numbers(df, "point").ok_or_else(|| not_a_sweep("point"))?;
    let mut wanted = Vec::new();
    for pair in &args.at {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("--at {pair}: expected KEY=VALUE, such as flow.par.count=4"))?;
        let column = texts(df, key).ok_or_else(|| format!("--at {pair}: \"{key}\" is not a swept key of this dataset"))?;
        if !column.iter().any(|v| v == value) {
            let mut levels: Vec<&String> = column.iter().collect();
            levels.sort();
            levels.dedup();
            let levels: Vec<&str> = levels.into_iter().map(String::as_str).collect();
            return Err(format!("--at {pair}: {key} never takes the value \"{value}\" (it takes {})", levels.join(", ")));
        }
        wanted.push((column, value.to_string()));
    }
    let replicates = numbers(df, "replicate").ok_or_else(|| not_a_sweep("replicate"))?;
    let mut runs: BTreeMap<(String, i64, i64, i64), Vec<f64>> = BTreeMap::new();
    for i in 0..df.height() {
        if args.filter.as_ref().is_some_and(|f| !entities[i].starts_with(f.as_str())) || wanted.iter().any(|(c, v)| c[i] != *v) {
            continue;
        }
        let key = (by[i].clone(), (x[i] * 1e6).round() as i64, points[i] as i64, replicates[i] as i64);
        runs.entry(key).or_default().push(y[i]);
    }
    let mut grouped: BTreeMap<String, BTreeMap<i64, Vec<f64>>> = BTreeMap::new();
    for ((s, xk, _, _), ys) in runs {
        grouped.entry(s).or_default().entry(xk).or_default().push(args.aggregate.apply(&ys));
    }
    Ok(grouped)
}

/// Columns that are fractions (of capacity, of packets, of the aggregate): never above 1.
const FRACTIONS: &[&str] = &["utilization", "utilization_mean", "loss_rate", "congestion_loss", "jain_index", "share"];

/// The values `column` can take. Every column the tables write is a rate, a count, a size, a
/// time, or a ratio of them, so never negative, and a fraction is at most 1: a confidence band
/// reaching past them says only that the replicates are few or skewed, so it is cut there.
fn physical_range(column: &str) -> (f64, f64) {
    (0.0, if FRACTIONS.contains(&column) { 1.0 } else { f64::INFINITY })
}

/// One point from its replicates: how many, the mean, and the 95 % band cut to what the
/// quantity can be (a single replicate has no band).
fn band(ys: &[f64], floor: f64, ceiling: f64) -> (usize, (f64, f64, f64)) {
    let (n, mean, _, half) = mean_ci(ys);
    let half = if half.is_nan() { 0.0 } else { half };
    (n, (mean, (mean - half).max(floor), (mean + half).min(ceiling)))
}

/// Whether `dir` is one run's directory (its tables as files) rather than a sweep's dataset.
fn is_run(dir: &Path) -> bool {
    dir.join("flows.parquet").is_file()
}

/// A run's time series: one line per subflow (`flow` for a single-path flow, `flow.r` for
/// subflow r of a multipath one), each point a sample.
fn run_series(args: &PlotArgs) -> Result<BTreeMap<String, Series>, String> {
    let column = match args.y.split_once('.') {
        Some(("timeseries", column)) => column,
        _ => {
            return Err(format!(
                "--y {}: a run's directory plots its time series: --y timeseries.COLUMN, such as timeseries.cwnd_pkts",
                args.y
            ));
        }
    };
    if args.x != "time_s" {
        return Err(format!("--x {}: a run's time series is plotted against time: --x time_s", args.x));
    }
    if let Some(option) = [(args.by.is_some(), "--by"), (!args.at.is_empty(), "--at"), (args.theory.is_some(), "--theory")]
        .into_iter()
        .find_map(|(given, option)| given.then_some(option))
    {
        return Err(format!("{option}: not for a run's time series (a sweep's dataset has the points it selects)"));
    }
    let path = args.dir.join("timeseries.parquet");
    if !path.is_file() {
        return Err(format!("{}: this run has no time series (run it with sim.sample_interval set)", args.dir.display()));
    }
    let file = std::fs::File::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let df = read_parquet(file).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let y = numbers(&df, column).ok_or_else(|| format!("--y {}: timeseries has no numeric column \"{column}\"", args.y))?;
    let (time, flows, subflows) = match (numbers(&df, "time_s"), texts(&df, "flow"), numbers(&df, "subflow")) {
        (Some(t), Some(f), Some(r)) => (t, f, r),
        _ => return Err(format!("{}: not a time series of equipoise (time_s, flow, subflow)", path.display())),
    };
    let multipath: std::collections::BTreeSet<&str> =
        flows.iter().zip(&subflows).filter(|(_, r)| **r > 0.0).map(|(f, _)| f.as_str()).collect();
    let mut data: BTreeMap<String, Series> = BTreeMap::new();
    for i in 0..df.height() {
        if args.filter.as_ref().is_some_and(|f| !flows[i].starts_with(f.as_str())) || !y[i].is_finite() {
            continue;
        }
        let name = if multipath.contains(flows[i].as_str()) { format!("{}.{}", flows[i], subflows[i]) } else { flows[i].clone() };
        data.entry(name).or_default().insert((time[i] * 1e6).round() as i64, (y[i], y[i], y[i]));
    }
    if data.is_empty() {
        return Err("nothing to plot: no rows match".into());
    }
    Ok(data)
}

/// The series to draw, and the fewest replicates behind any of their points.
fn series(args: &PlotArgs) -> Result<(BTreeMap<String, Series>, usize), String> {
    let (table, column) =
        args.y.split_once('.').ok_or_else(|| format!("--y {}: expected TABLE.COLUMN, such as flows.goodput_bps", args.y))?;
    let grouped = per_run(args, &read_table(&args.dir, table)?, table, column)?;
    if grouped.is_empty() {
        return Err("nothing to plot: no rows match".into());
    }
    let (floor, ceiling) = physical_range(column);
    let mut fewest = usize::MAX;
    let data = grouped
        .into_iter()
        .map(|(s, xs)| {
            let points = xs.into_iter().map(|(xk, ys)| {
                let (n, point) = band(&ys, floor, ceiling);
                fewest = fewest.min(n);
                (xk, point)
            });
            (s, points.collect())
        })
        .collect();
    Ok((data, fewest))
}

/// The fluid model's value of every series at every x, if the dataset has the fluid side
/// (`sweep --fluid`) and it has the column.
fn fluid_series(args: &PlotArgs) -> Result<BTreeMap<String, Vec<(f64, f64)>>, String> {
    let (table, column) = args.y.split_once('.').unwrap_or(("", ""));
    let fluid = args.dir.join("fluid");
    if !fluid.join(table).is_dir() {
        return Ok(BTreeMap::new());
    }
    let df = read_table(&fluid, table)?;
    if numbers(&df, column).is_none() {
        return Ok(BTreeMap::new());
    }
    // The measurements are the plot: a fluid side that lacks a selected level (its points that
    // had no equilibrium) is left out with a word, not an error.
    let grouped = match per_run(args, &df, table, column) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("warning: the fluid side is not drawn: {e}");
            return Ok(BTreeMap::new());
        }
    };
    Ok(grouped
        .into_iter()
        .map(|(s, xs)| {
            let curve = xs.into_iter().map(|(xk, ys)| (xk as f64 / 1e6, ys.iter().sum::<f64>() / ys.len() as f64));
            (s, curve.filter(|(_, y)| y.is_finite()).collect())
        })
        .collect())
}

/// The two files of a plot: `--out` (or the default name) and its twin in the other format.
fn outputs(args: &PlotArgs) -> Result<(PathBuf, PathBuf), String> {
    let out =
        args.out.clone().unwrap_or_else(|| args.dir.join(format!("{}-vs-{}.svg", args.y.replace('.', "-"), args.x.replace('.', "-"))));
    match out.extension().and_then(|e| e.to_str()) {
        Some("svg") => Ok((out.clone(), out.with_extension("png"))),
        Some("png") => Ok((out.with_extension("svg"), out)),
        _ => Err(format!("--out {}: name the file .svg or .png (both are written, side by side)", out.display())),
    }
}

/// Draws the plot; returns the files written (SVG, then PNG).
pub fn plot(args: &PlotArgs) -> Result<Vec<PathBuf>, String> {
    // A run's time series has no replicates (its points are samples) and no fluid side.
    let time_series = is_run(&args.dir);
    let (data, fewest) = if time_series { (run_series(args)?, usize::MAX) } else { series(args)? };
    let fluid = if time_series { BTreeMap::new() } else { fluid_series(args)? };
    let (svg_path, png_path) = outputs(args)?;
    output::check_file(&svg_path, SIGNATURE, args.overwrite)?;
    output::check_file(&png_path, SIGNATURE, args.overwrite)?;
    let all = data.values().flat_map(|s| s.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for (xk, (_, lo, hi)) in all {
        let x = *xk as f64 / 1e6;
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(*lo), y1.max(*hi));
    }
    for (x, y) in fluid.values().flatten() {
        (x0, x1, y0, y1) = (x0.min(*x), x1.max(*x), y0.min(*y), y1.max(*y));
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    }
    let theory = match &args.theory {
        Some(text) => {
            let f = Formula::parse(text)?;
            let curve: Vec<(f64, f64)> =
                (0..=200).map(|i| x0 + (x1 - x0) * i as f64 / 200.0).map(|x| (x, f.eval(x))).filter(|p| p.1.is_finite()).collect();
            for p in &curve {
                (y0, y1) = (y0.min(p.1), y1.max(p.1));
            }
            Some((text.clone(), curve))
        }
        None => None,
    };
    let pad = (y1 - y0).abs().max(y1.abs() * 0.05).max(1e-12) * 0.05;
    let (y0, y1) = ((y0 - pad).min(0.0f64.max(y0 - pad)), y1 + pad);
    let figure = Figure { args, time_series, data: &data, fluid: &fluid, theory: theory.as_ref(), fewest, xr: (x0, x1), yr: (y0, y1) };
    register_font();
    let cannot = |path: &Path, e: Box<dyn std::error::Error>| format!("cannot draw {}: {e}", path.display());

    let mut svg = String::new();
    figure.draw(SVGBackend::with_string(&mut svg, SIZE).into_drawing_area()).map_err(|e| cannot(&svg_path, e))?;
    svg.push_str(SIGNATURE);
    svg.push('\n');

    let mut pixels = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
    figure.draw(BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area()).map_err(|e| cannot(&png_path, e))?;
    let png = encode_png(&pixels).map_err(|e| format!("cannot encode {}: {e}", png_path.display()))?;

    output::write_file_atomically(&svg_path, svg.as_bytes())?;
    output::write_file_atomically(&png_path, &png)?;
    Ok(vec![svg_path, png_path])
}

/// RGB pixels as a PNG file carrying [`SIGNATURE`] in a text chunk.
fn encode_png(rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.add_text_chunk("Software".into(), SIGNATURE.into())?;
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// Replicates below which a point's confidence band is flagged in the legend.
const FEW_REPLICATES: usize = 3;

/// Everything a drawing needs, whatever the backend.
struct Figure<'a> {
    args: &'a PlotArgs,
    /// A run's time series: a line per subflow through its samples, no markers.
    time_series: bool,
    data: &'a BTreeMap<String, Series>,
    /// The fluid model's curve of each series (empty without `sweep --fluid`).
    fluid: &'a BTreeMap<String, Vec<(f64, f64)>>,
    theory: Option<&'a (String, Vec<(f64, f64)>)>,
    /// The fewest replicates behind a point: below three, its band says little, and the
    /// legend says so.
    fewest: usize,
    xr: (f64, f64),
    yr: (f64, f64),
}

impl Figure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), Box<dyn std::error::Error>>
    where
        DB::ErrorType: 'static,
    {
        let Figure { args, time_series, data, fluid, theory, fewest, xr, yr } = *self;
        root.fill(&WHITE)?;
        // The legend has a column of its own, so it never covers data.
        let (plot_area, legend_area) = root.split_horizontally(760);
        let (_, column) = args.y.split_once('.').unwrap_or(("", &args.y));
        let mut title = match &args.filter {
            _ if time_series => format!("{} over time ({})", label(column), args.dir.file_name().unwrap_or_default().to_string_lossy()),
            Some(f) => format!("{} ({}, {} over {f}*)", label(column), args.y, args.aggregate.name()),
            None => format!("{} ({}, {} per run)", label(column), args.y, args.aggregate.name()),
        };
        if !args.at.is_empty() {
            title.push_str(&format!(" at {}", args.at.join(", ")));
        }
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(title, (FONT, 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)?;
        // A key whose levels are all whole numbers gets whole-number ticks.
        let integral = !time_series && data.values().flat_map(|s| s.keys()).all(|xk| xk % 1_000_000 == 0);
        let span = (xr.1 - xr.0).round() as usize;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(if time_series { label(&args.x) } else { args.x.clone() }).y_desc(label(column)).y_label_formatter(&|v| compact(*v));
        let whole = |v: &f64| if (v - v.round()).abs() < 1e-9 { format!("{}", v.round() as i64) } else { String::new() };
        if integral && span <= 20 {
            mesh.x_labels(span + 1).x_label_formatter(&whole);
        }
        mesh.draw()?;
        // The legend's title is the key that tells the lines apart; entries are its values.
        if let Some(key) = &args.by {
            legend_area.draw(&Text::new(fit(key, 30), (8, LEGEND_TOP - 7), (FONT, 12)))?;
        }
        let mut names: Vec<&String> = data.keys().collect();
        names.sort_by(|a, b| natural_order(a, b));
        for (i, name) in names.into_iter().enumerate() {
            let points = &data[name];
            let color = Palette99::pick(i).to_rgba();
            let xs: Vec<(f64, f64, f64, f64)> = points.iter().map(|(xk, (m, lo, hi))| (*xk as f64 / 1e6, *m, *lo, *hi)).collect();
            let band: Vec<(f64, f64)> = xs.iter().map(|p| (p.0, p.3)).chain(xs.iter().rev().map(|p| (p.0, p.2))).collect();
            chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2).filled())))?;
            let legend = if args.by.is_some() || time_series { fit(name, 24) } else { "mean, 95% CI".to_string() };
            chart.draw_series(LineSeries::new(xs.iter().map(|p| (p.0, p.1)), color.stroke_width(if time_series { 1 } else { 2 })))?;
            if !time_series {
                chart.draw_series(xs.iter().map(|p| Circle::new((p.0, p.1), 3, color.filled())))?;
            }
            if let Some(curve) = fluid.get(name) {
                chart.draw_series(DashedLineSeries::new(curve.iter().copied(), 4, 4, color.stroke_width(2)))?;
            }
            let y = LEGEND_TOP + 22 * (i as i32 + 1);
            legend_area.draw(&PathElement::new(vec![(8, y), (32, y)], color.stroke_width(2)))?;
            legend_area.draw(&Text::new(legend, (40, y - 7), (FONT, 14)))?;
        }
        let mut row = data.len() as i32 + 1;
        if !fluid.is_empty() {
            let y = LEGEND_TOP + 22 * row;
            let style = BLACK.stroke_width(2);
            for x in [8, 16, 24] {
                legend_area.draw(&PathElement::new(vec![(x, y), (x + 4, y)], style))?;
            }
            legend_area.draw(&Text::new("fluid model", (40, y - 7), (FONT, 14)))?;
            row += 1;
        }
        if fewest < FEW_REPLICATES {
            let y = LEGEND_TOP + 22 * row;
            let note = format!("bands: {fewest} replicate{} at some points", if fewest == 1 { "" } else { "s" });
            legend_area.draw(&Text::new(note, (8, y - 7), (FONT, 12)))?;
            row += 1;
        }
        if let Some((text, curve)) = theory {
            let style = BLACK.stroke_width(2);
            chart.draw_series(DashedLineSeries::new(curve.iter().copied(), 8, 6, style))?;
            let y = LEGEND_TOP + 22 * row;
            legend_area.draw(&PathElement::new(vec![(8, y), (14, y)], style))?;
            legend_area.draw(&PathElement::new(vec![(20, y), (26, y)], style))?;
            legend_area.draw(&Text::new("theory", (40, y - 7), (FONT, 14)))?;
            legend_area.draw(&Text::new(fit(text, 30), (8, y + 12), (FONT, 12)))?;
        }
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_entries_in_numeric_order() {
        let mut levels = vec!["50pkt", "5pkt", "20pkt", "10pkt", "reno", "1e-3", "lia"];
        levels.sort_by(|a, b| natural_order(a, b));
        assert_eq!(levels, ["1e-3", "5pkt", "10pkt", "20pkt", "50pkt", "lia", "reno"]);
    }

    #[test]
    fn bands_stop_where_the_quantity_does() {
        // Two replicates of a loss rate, one lossless: the band of 0.001 ± 12.7 × 0.001 would
        // reach -0.0117; a loss rate is never negative.
        let (floor, ceiling) = physical_range("loss_rate");
        let (n, (mean, low, high)) = band(&[0.0, 0.002], floor, ceiling);
        assert_eq!((n, mean, low), (2, 0.001, 0.0));
        assert!((high - (0.001 + 12.706 * 0.001)).abs() < 1e-6, "{high}");
        // A utilization band stops at 1; a goodput band only at 0.
        let (floor, ceiling) = physical_range("utilization");
        assert_eq!(band(&[0.98, 1.0], floor, ceiling).1.2, 1.0);
        let (floor, ceiling) = physical_range("goodput_bps");
        let (_, (_, low, high)) = band(&[1.0, 9.0], floor, ceiling);
        assert_eq!(low, 0.0);
        assert!(high > 9.0 && high.is_finite());
        // Inside the range the band is the confidence interval, untouched.
        let (_, (mean, low, high)) = band(&[0.4, 0.5, 0.6], 0.0, 1.0);
        assert!((mean - 0.5).abs() < 1e-12 && (high - mean - (mean - low)).abs() < 1e-12 && low > 0.0 && high < 1.0);
    }

    #[test]
    fn axis_numbers_are_short() {
        let shown: Vec<String> = [1e8, 2.5e7, 12_000.0, 5000.0, 0.25, 0.0, 1e-5, -3e6].into_iter().map(compact).collect();
        assert_eq!(shown, ["100M", "25M", "12k", "5k", "0.25", "0", "1.00e-5", "-3M"]);
    }
}
