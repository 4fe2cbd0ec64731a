//! equipoise for Python: `equipoise.run(scenario)` runs a scenario on any engine of the
//! command line (`packet`, `fluid`, `ns2`, `testbed`) and gives its tables, which pyarrow,
//! polars and pandas read through the Arrow PyCapsule interface (`__arrow_c_stream__`);
//! `equipoise.sweep` makes a sweep's dataset as `equipoise sweep` does.
//!
//! A scenario is a path, a TOML string or a dict shaped like the file. Errors in it raise
//! `equipoise.ScenarioError`, whose message names the key as the command line's does; any
//! other failure raises `equipoise.RunError`; a panic of the simulator is caught and raised as
//! `RunError`, never as a Rust panic. Runs release the GIL, and Ctrl-C stops a run (within a
//! thousandth of its simulated time; in ns-2 at once) or a sweep (after the runs under way; the
//! finished ones stay in its dataset) and raises `KeyboardInterrupt`. Python's own handling of
//! signals stays in place: unlike the command line, the library never ends the process.
//!
//! `unsafe`: the workspace forbids it; this crate denies it but for one `impl Send` (see
//! [`Stream`]), which PyO3's capsules require of what they hold.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;

use equipoise::engine::{self, Engine};
use polars::prelude::{CompatLevel, DataFrame, SchemaExt};
use polars_arrow::array::{Array, StructArray};
use polars_arrow::datatypes::{ArrowDataType, Field};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

create_exception!(equipoise, EquipoiseError, PyException, "Every error equipoise raises.");
create_exception!(
    equipoise,
    ScenarioError,
    EquipoiseError,
    "A scenario or sweep that cannot run: the message names the file (or `<scenario>`), the key and what was expected."
);
create_exception!(
    equipoise,
    RunError,
    EquipoiseError,
    "A run that failed once started (an engine's failure, an output that cannot be written)."
);

/// What a scenario argument was: its name in messages, and its text.
struct Source {
    name: PathBuf,
    text: String,
}

/// The name a scenario given as text or a dict has in messages and provenance.
const GIVEN: &str = "<scenario>";

impl Source {
    /// Whether it is a sweep file's text (it names its base scenario); an error if it is not TOML.
    fn is_sweep(&self) -> Result<bool, Failure> {
        let root: toml::Table =
            self.text.parse().map_err(|e: toml::de::Error| Failure::Scenario(format!("{}: {}", self.name.display(), e.message())))?;
        Ok(root.get("scenario").is_some_and(toml::Value::is_str))
    }

    /// The scenario with `sets` applied, checked for `engine`.
    fn prepare(&self, sets: &[(String, String)], engine: Engine) -> Result<engine::Prepared, Failure> {
        let name = self.name.display().to_string();
        let experiment = topologies::load_experiment_text(&name, &self.text, sets).map_err(|e| Failure::Scenario(e.to_string()))?;
        engine::prepare_loaded(&self.name, experiment, engine, &[], "").map_err(Failure::Scenario)
    }
}

/// Reads a scenario argument: a path (`str` or `os.PathLike`), a TOML string (a `str` with a
/// newline or an `=`), or a dict shaped like the file.
fn source(scenario: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(dict) = scenario.cast::<PyDict>() {
        let table = table_of(dict, "")?;
        let text = toml::to_string(&table).map_err(|e| ScenarioError::new_err(format!("{GIVEN}: {e}")))?;
        return Ok(Source { name: PathBuf::from(GIVEN), text });
    }
    if let Ok(text) = scenario.cast::<PyString>() {
        let text = text.to_cow()?;
        if text.contains('\n') || text.contains('=') {
            return Ok(Source { name: PathBuf::from(GIVEN), text: text.to_string() });
        }
    }
    let path: PathBuf = scenario.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "scenario: expected a path, a TOML string or a dict shaped like a scenario file, got {}",
            scenario.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    let text = topologies::read_input(&path).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(Source { name: path, text })
}

/// A dict as a TOML table; `at` is its key path, for messages.
fn table_of(dict: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut table = toml::Table::new();
    for (key, value) in dict.iter() {
        let key: String = key.extract().map_err(|_| ScenarioError::new_err(format!("{GIVEN}: {at}: a key that is not a string: {key}")))?;
        let path = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        table.insert(key, value_of(&value, &path)?);
    }
    Ok(table)
}

/// A Python value as a TOML value: str, int, float, bool, a list or tuple of them, a dict.
fn value_of(value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        let n: i64 = value.extract().map_err(|_| ScenarioError::new_err(format!("{GIVEN}: {at}: an integer beyond 64 bits")))?;
        return Ok(toml::Value::Integer(n));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        return Ok(toml::Value::Table(table_of(d, at)?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = value.try_iter()?.collect::<PyResult<_>>()?;
        let values = items.iter().enumerate().map(|(i, v)| value_of(v, &format!("{at}[{i}]"))).collect::<PyResult<_>>()?;
        return Ok(toml::Value::Array(values));
    }
    Err(ScenarioError::new_err(format!(
        "{GIVEN}: {at}: expected a string, a number, a boolean, a list or a dict, got {}",
        value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// The `sets` argument (`{"sim.duration": "10s"}`) as `--set` pairs, and `seed` as
/// `sim.seed`.
fn sets_of(sets: Option<&Bound<'_, PyDict>>, seed: Option<u64>) -> PyResult<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (key, value) in sets.iter().flat_map(|d| d.iter()) {
        let key: String = key.extract().map_err(|_| PyTypeError::new_err("sets: its keys are key paths, such as \"sim.duration\""))?;
        let value = match value_of(&value, &key)? {
            toml::Value::String(s) => s,
            other => other.to_string(),
        };
        out.push((key, value));
    }
    if let Some(seed) = seed {
        out.push(("sim.seed".into(), seed.to_string()));
    }
    Ok(out)
}

/// The `engine` argument.
fn engine_of(name: &str, ns: Option<PathBuf>) -> PyResult<Engine> {
    match name {
        "packet" => Ok(Engine::Packet),
        "fluid" => Ok(Engine::Fluid),
        "ns2" => Ok(Engine::Ns2 { ns }),
        "testbed" => Ok(Engine::Testbed),
        _ => Err(PyValueError::new_err(format!("engine: expected \"packet\", \"fluid\", \"ns2\" or \"testbed\", got {name:?}"))),
    }
}

/// A failure of a run: a scenario's (when it happened before the run began) or the run's.
enum Failure {
    Scenario(String),
    Run(String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Scenario(m) => ScenarioError::new_err(m),
            Failure::Run(m) => RunError::new_err(m),
        }
    }
}

/// How often a waiting call looks for a signal (Ctrl-C) to handle.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` on a thread of its own, the GIL released, while this thread handles Python's
/// signals: on Ctrl-C (or any handler that raises) `work`'s `stop` is set, its end awaited,
/// and the handler's exception raised.
fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce(&AtomicBool) -> Result<T, Failure> + Send) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel();
        // Waited on with the GIL released, from whichever thread Python lends: shared, so locked.
        let receive = std::sync::Mutex::new(receive);
        let wait = |timeout: Option<std::time::Duration>| {
            let receive = receive.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match timeout {
                Some(t) => receive.recv_timeout(t),
                None => receive.recv().map_err(|_| RecvTimeoutError::Disconnected),
            }
        };
        let stop = &stop;
        scope.spawn(move || {
            let _ = send.send(work(stop));
        });
        loop {
            match py.detach(|| wait(Some(SIGNAL_POLL))) {
                Ok(result) => return result.map_err(PyErr::from),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(signalled) = py.check_signals() {
                        stop.store(true, Ordering::Relaxed);
                        let _ = py.detach(|| wait(None));
                        return Err(signalled);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return Err(RunError::new_err("the run's thread ended without a result")),
            }
        }
    })
}

/// `f`, a panic inside it turned into a [`RunError`].
fn unpanicked<T>(what: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(Failure::Run(format!("{what}: internal error: {}", message.unwrap_or_default())))
    })
}

/// Runs a scenario on an engine and returns its tables.
///
/// `scenario` is a path, a TOML string or a dict shaped like the file; `sets` overrides keys
/// (`{"sim.duration": "10s"}`, as `--set`), `seed` the run's seed. `engine` is "packet" (the
/// default; seed 004's AIMD model for an `[aimd]` scenario), "fluid", "ns2" (its `ns` on the
/// PATH, or `ns`) or "testbed" (Linux, as root, in real time).
#[pyfunction]
#[pyo3(signature = (scenario, *, engine = "packet", sets = None, seed = None, ns = None))]
fn run(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    engine: &str,
    sets: Option<&Bound<'_, PyDict>>,
    seed: Option<u64>,
    ns: Option<PathBuf>,
) -> PyResult<Run> {
    let source = source(scenario)?;
    let engine = engine_of(engine, ns)?;
    let sets = sets_of(sets, seed)?;
    let made = interruptible(py, move |stop| {
        unpanicked("run", || {
            if source.is_sweep()? {
                let name = source.name.display();
                return Err(Failure::Scenario(format!("{name}: a sweep file (it names its `scenario`): give it to equipoise.sweep")));
            }
            let prepared = source.prepare(&sets, engine)?;
            let warnings = prepared.warnings.clone();
            let made = prepared.run_stoppable(false, stop).map_err(Failure::Run)?;
            Ok((made, warnings))
        })
    });
    let (made, mut warnings) = made?;
    warnings.extend(made.warnings.iter().cloned());
    for w in &warnings {
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &std::ffi::CString::new(w.as_str()).unwrap_or_default(), 1)?;
    }
    let mut tables: Vec<(String, DataFrame)> = made.tables.into_iter().map(|(n, df)| (n.to_string(), df)).collect();
    let mut take =
        |name: &str| tables.iter().position(|(n, _)| n == name).map(|i| Table { name: name.to_string(), df: tables.swap_remove(i).1 });
    Ok(Run {
        flows: take("flows"),
        subflows: take("subflows"),
        links: take("links"),
        metrics: take("metrics"),
        timeseries: take("timeseries"),
        others: tables.into_iter().map(|(name, df)| Table { name, df }).collect(),
        summary: made.summary,
        source: made.provenance.source.name().to_string(),
        seed: made.provenance.seed,
    })
}

/// `run(scenario, engine="fluid", sets=sets)`: the fluid model's equilibrium (and its
/// trajectory when the scenario samples) as the tables of a run.
#[pyfunction]
#[pyo3(signature = (scenario, *, sets = None))]
fn fluid(py: Python<'_>, scenario: &Bound<'_, PyAny>, sets: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
    run(py, scenario, "fluid", sets, None, None)
}

/// Checks a scenario or a sweep file without running it (as `equipoise validate`): raises
/// `ScenarioError` naming the key of what is wrong; returns the warnings a run would give.
#[pyfunction]
#[pyo3(signature = (scenario, *, sets = None))]
fn validate(py: Python<'_>, scenario: &Bound<'_, PyAny>, sets: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let source = source(scenario)?;
    let sets = sets_of(sets, None)?;
    let warnings = py.detach(move || {
        unpanicked("validate", || {
            if source.is_sweep()? {
                if source.name == std::path::Path::new(GIVEN) {
                    return Err(Failure::Scenario(format!("{GIVEN}: a sweep names its scenario by path: give the sweep's file")));
                }
                let sweep = topologies::sweep::Sweep::load(&source.name).map_err(|e| Failure::Scenario(e.to_string()))?;
                // Its short variant, which `sweep(..., quick=True)` would run, checked too.
                equipoise::sweep::quick_variant(sweep).map_err(Failure::Scenario)?;
                return Ok(Vec::new());
            }
            Ok(source.prepare(&sets, Engine::Packet)?.warnings)
        })
    })?;
    Ok(warnings)
}

/// Makes a sweep's dataset in `out` as `equipoise sweep SWEEP --out OUT` does (all cores, or
/// `jobs`; its short variant with `quick`; finished runs kept with `resume`; the fluid model's
/// equilibrium of every point beside it with `fluid`; its runs made by `engine`: "packet",
/// "ns2" or "testbed", one run at a time), and returns its table of runs.
#[pyfunction]
#[pyo3(signature = (sweep, *, out, jobs = None, quick = false, resume = false, engine = "packet", fluid = false))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    sweep: PathBuf,
    out: PathBuf,
    jobs: Option<usize>,
    quick: bool,
    resume: bool,
    engine: &str,
    fluid: bool,
) -> PyResult<Table> {
    let engine = match engine_of(engine, None)? {
        Engine::Fluid => {
            return Err(PyValueError::new_err(
                "engine: the fluid model's sweep runs beside the simulator's: engine=\"packet\", fluid=True",
            ));
        }
        engine => engine,
    };
    if fluid && engine != Engine::Packet {
        return Err(PyValueError::new_err(
            "fluid=True adds the fluid model's equilibria to the simulator's sweep: leave engine at \"packet\"",
        ));
    }
    let jobs = match jobs {
        Some(j) if !(1..=1024).contains(&j) => {
            return Err(PyValueError::new_err(format!("jobs: expected 1 to 1024 runs at once, got {j}")));
        }
        Some(j) if j > 1 && engine == Engine::Testbed => {
            return Err(PyValueError::new_err(format!("jobs: the testbed makes one run at a time, got {j}")));
        }
        Some(j) => j,
        None if engine == Engine::Testbed => 1,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let df = interruptible(py, move |stop| {
        unpanicked("sweep", || {
            topologies::sweep::Sweep::load(&sweep).map_err(|e| Failure::Scenario(e.to_string()))?;
            let args = equipoise::sweep::SweepArgs {
                file: sweep,
                out: out.clone(),
                jobs,
                shard: None,
                resume,
                quick,
                quiet: true,
                fluid,
                engine,
                caller: equipoise::sweep::Caller::Python,
            };
            equipoise::sweep::sweep_stoppable(&args, stop).map_err(Failure::Run)?;
            equipoise::dataset::read_table(&out, "runs").map_err(Failure::Run)
        })
    })?;
    Ok(Table { name: "runs".into(), df })
}

/// The tables of a run.
#[pyclass(module = "equipoise", frozen)]
struct Run {
    #[pyo3(get)]
    flows: Option<Table>,
    #[pyo3(get)]
    subflows: Option<Table>,
    #[pyo3(get)]
    links: Option<Table>,
    #[pyo3(get)]
    metrics: Option<Table>,
    #[pyo3(get)]
    timeseries: Option<Table>,
    /// The tables of an engine beside those (the AIMD model's `model` and `connections`).
    others: Vec<Table>,
    /// What `equipoise run` prints of the run.
    #[pyo3(get)]
    summary: String,
    /// What made the tables: "packet", "aimd", "fluid", "ns2" or "testbed".
    #[pyo3(get)]
    source: String,
    /// The run's seed.
    #[pyo3(get)]
    seed: u64,
}

#[pymethods]
impl Run {
    /// A table by its name, as the command line writes it (`flows` for flows.parquet).
    fn table(&self, name: &str) -> PyResult<Table> {
        [&self.flows, &self.subflows, &self.links, &self.metrics, &self.timeseries]
            .into_iter()
            .flatten()
            .chain(&self.others)
            .find(|t| t.name == name)
            .cloned()
            .ok_or_else(|| PyValueError::new_err(format!("no table {name:?} in this run: it has {}", self.names().join(", "))))
    }

    /// The names of the run's tables.
    fn names(&self) -> Vec<String> {
        [&self.flows, &self.subflows, &self.links, &self.metrics, &self.timeseries]
            .into_iter()
            .flatten()
            .chain(&self.others)
            .map(|t| t.name.clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("<equipoise.Run from {}, seed {}: {}>", self.source, self.seed, self.names().join(", "))
    }
}

/// A table of a run or a dataset: Arrow data, read by `pyarrow.table(t)`, `polars.DataFrame(t)`
/// (through `__arrow_c_stream__`), `t.to_pandas()` and `t.to_polars()`.
#[pyclass(module = "equipoise", frozen)]
#[derive(Clone)]
struct Table {
    #[pyo3(get)]
    name: String,
    df: DataFrame,
}

/// An Arrow C stream in a capsule.
#[repr(transparent)]
struct Stream(polars_arrow::ffi::ArrowArrayStream);

// SAFETY: the stream owns its batches (arrays shared by reference count, with no thread-bound
// state); its raw `private_data` pointer is what keeps it from being `Send`. The consumer (in
// Python) takes it from the capsule on one thread at a time, as the C stream interface asks.
#[allow(unsafe_code)]
unsafe impl Send for Stream {}

#[pymethods]
impl Table {
    /// Rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.df.height()
    }

    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.df.get_column_names().iter().map(|n| n.to_string()).collect()
    }

    /// The Arrow PyCapsule interface: the table as a stream of record batches.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(&self, py: Python<'py>, requested_schema: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyCapsule>> {
        // The table's own types are given; a consumer casts if it asked for others.
        let _ = requested_schema;
        let schema = self.df.schema().to_arrow(CompatLevel::newest());
        let fields: Vec<Field> = schema.iter_values().cloned().collect();
        let dtype = ArrowDataType::Struct(fields);
        let mut batches: Vec<Box<dyn Array>> = Vec::new();
        for batch in self.df.iter_chunks(CompatLevel::newest(), false) {
            let rows = batch.height();
            batches.push(StructArray::new(dtype.clone(), rows, batch.into_arrays(), None).boxed());
        }
        let stream = polars_arrow::ffi::export_iterator(Box::new(batches.into_iter().map(Ok)), Field::new("".into(), dtype, false));
        PyCapsule::new_with_value(py, Stream(stream), c"arrow_array_stream")
    }

    /// The table as a `pyarrow.Table` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pyarrow")?.call_method1("table", (slf,))
    }

    /// The table as a `polars.DataFrame` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("polars")?.call_method1("DataFrame", (slf,))
    }

    /// The table as a `pandas.DataFrame` (needs pyarrow and pandas).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Table::to_arrow(slf)?.call_method0("to_pandas")
    }

    fn __len__(&self) -> usize {
        self.df.height()
    }

    fn __repr__(&self) -> String {
        format!("<equipoise.Table {}: {} rows × {} columns>", self.name, self.df.height(), self.df.width())
    }
}

/// The `equipoise` module.
#[pymodule]
#[pyo3(name = "equipoise")]
fn equipoise_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("EquipoiseError", m.py().get_type::<EquipoiseError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(fluid, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_class::<Run>()?;
    m.add_class::<Table>()?;
    Ok(())
}
