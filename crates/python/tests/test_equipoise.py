"""The Python package against the command line: the same scenario gives the same tables, bad
input raises the package's own exceptions naming what was expected, and a sweep writes the
dataset `equipoise sweep` writes."""

import os
import pathlib
import subprocess
import sys

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import equipoise

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "seed000-table4.toml"
SHORT = {"sim.duration": "10s", "sim.warmup": "2s"}


def cli():
    """The command line built beside the package (EQUIPOISE_BIN, else the workspace's)."""
    given = os.environ.get("EQUIPOISE_BIN")
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    path = pathlib.Path(given) if given else pathlib.Path(target) / "release" / "equipoise"
    if not path.is_file():
        pytest.fail(f"the command line is not built at {path}: cargo build --release -p equipoise")
    return str(path)


def cli_tables(tmp_path, *args):
    out = tmp_path / "cli"
    subprocess.run([cli(), *args, "--out", str(out), "--quiet"], check=True, cwd=ROOT)
    return {p.stem: pq.read_table(p) for p in out.glob("*.parquet")}


def same(ours, theirs):
    """Two Arrow tables hold the same columns and values (string views read as strings)."""
    assert ours.column_names == theirs.column_names
    for name in ours.column_names:
        assert ours.column(name).to_pylist() == theirs.column(name).to_pylist(), name


def test_a_path_gives_the_tables_of_the_command_line(tmp_path):
    run = equipoise.run(SCENARIO, sets=SHORT, seed=3)
    theirs = cli_tables(tmp_path, "run", str(SCENARIO), "--set", "sim.duration=10s", "--set", "sim.warmup=2s", "--seed", "3")
    assert sorted(run.names()) == sorted(theirs)
    for name in theirs:
        same(pa.table(run.table(name)), theirs[name])
    assert run.source == "packet" and run.seed == 3


def test_a_toml_string_and_a_dict_are_the_file():
    text = SCENARIO.read_text()
    by_path = equipoise.run(SCENARIO, sets=SHORT)
    by_text = equipoise.run(text, sets=SHORT)
    import tomllib

    by_dict = equipoise.run(tomllib.loads(text), sets=SHORT)
    for other in (by_text, by_dict):
        same(pa.table(other.flows), pa.table(by_path.flows))
        same(pa.table(other.links), pa.table(by_path.links))


def test_tables_read_in_polars_and_pyarrow_without_the_package_knowing_them():
    run = equipoise.run(SCENARIO, sets=SHORT)
    df = pl.DataFrame(run.subflows)
    assert df.height == run.subflows.num_rows == len(run.subflows) > 0
    assert df.columns == run.subflows.column_names
    assert run.flows.to_polars().equals(pl.DataFrame(run.flows))
    assert run.flows.to_arrow().num_rows == run.flows.num_rows
    pandas = run.flows.to_pandas()
    assert list(pandas.columns) == run.flows.column_names
    assert pandas["goodput_bps"].tolist() == df_column(run.flows, "goodput_bps")


def df_column(table, name):
    return pl.DataFrame(table)[name].to_list()


def test_a_sweep_leaves_another_sweeps_dataset_and_other_files_alone(tmp_path):
    theirs = tmp_path / "theirs"
    equipoise.sweep(ROOT / "sweeps" / "seed000-table4.toml", out=theirs, quick=True, jobs=1)
    before = sorted(p.relative_to(theirs) for p in theirs.rglob("*"))
    with pytest.raises(equipoise.RunError, match="add resume=True to complete them, or choose another out=$"):
        equipoise.sweep(ROOT / "sweeps" / "seed000-table4.toml", out=theirs, quick=True, jobs=1)
    with pytest.raises(equipoise.RunError, match="holds another sweep's results; choose another out=$"):
        equipoise.sweep(ROOT / "sweeps" / "seed000-table3.toml", out=theirs, quick=True, jobs=1)
    assert sorted(p.relative_to(theirs) for p in theirs.rglob("*")) == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(equipoise.RunError, match="is not a sweep dataset; choose another out=$"):
        equipoise.sweep(ROOT / "sweeps" / "seed000-table4.toml", out=mine, quick=True, jobs=1)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"] and (mine / "notes.txt").read_text() == "mine"


def test_the_fluid_model_and_the_aimd_model_are_engines_too(tmp_path):
    fluid = equipoise.fluid(SCENARIO)
    assert fluid.source == "fluid"
    theirs = cli_tables(tmp_path, "fluid", str(SCENARIO))
    for name in theirs:
        same(pa.table(fluid.table(name)), theirs[name])
    aimd = equipoise.run(ROOT / "scenarios" / "aimd-example1.toml", sets={"aimd.events": 10000})
    assert aimd.source == "aimd" and sorted(aimd.names()) == ["connections", "model"]


def test_scenario_errors_name_the_key():
    with pytest.raises(equipoise.ScenarioError, match=r"sim\.duration"):
        equipoise.run(SCENARIO, sets={"sim.duration": "-1s"})
    with pytest.raises(equipoise.ScenarioError, match=r"<scenario>: sim: expected a table"):
        equipoise.run({"sim": 3})
    with pytest.raises(equipoise.ScenarioError, match="cannot read the file"):
        equipoise.run(ROOT / "no-such-scenario.toml")
    with pytest.raises(equipoise.ScenarioError, match="a sweep file"):
        equipoise.run(ROOT / "sweeps" / "seed000-table4.toml")
    with pytest.raises(equipoise.ScenarioError, match="an .aimd. scenario is a model already"):
        equipoise.fluid(ROOT / "scenarios" / "aimd-example1.toml")
    assert issubclass(equipoise.ScenarioError, equipoise.EquipoiseError)
    assert equipoise.validate(SCENARIO) == []
    assert equipoise.validate(ROOT / "sweeps" / "seed000-table4.toml") == []
    with pytest.raises(equipoise.ScenarioError, match="give the sweep's file"):
        equipoise.validate((ROOT / "sweeps" / "seed000-table4.toml").read_text())


def test_other_bad_input_is_refused_with_what_was_expected():
    with pytest.raises(ValueError, match='engine: expected "packet", "fluid", "ns2" or "testbed"'):
        equipoise.run(SCENARIO, engine="warp")
    with pytest.raises(TypeError, match="scenario: expected a path, a TOML string or a dict"):
        equipoise.run(42)
    with pytest.raises(equipoise.ScenarioError, match=r"flow\[0\]\.paths\[0\]: expected a string"):
        equipoise.run({"flow": [{"paths": [object()]}]})
    with pytest.raises(ValueError, match="no table"):
        equipoise.run(SCENARIO, sets=SHORT).table("nothing")


def test_a_sweep_writes_the_dataset_of_the_command_line(tmp_path):
    sweep = ROOT / "sweeps" / "seed000-table4.toml"
    runs = equipoise.sweep(sweep, out=tmp_path / "py", quick=True, jobs=2)
    subprocess.run([cli(), "sweep", str(sweep), "--quick", "--jobs", "2", "--quiet", "--out", str(tmp_path / "cli")], check=True, cwd=ROOT)
    theirs = pl.read_parquet(tmp_path / "cli" / "runs" / "*.parquet")
    ours = pl.DataFrame(runs)
    assert ours.height == theirs.height > 0
    key = [c for c in ("point", "replicate") if c in ours.columns]
    drop = [c for c in ("wall_s",) if c in ours.columns]
    assert ours.drop(drop).sort(key).equals(theirs.drop(drop).sort(key))
    flows = lambda d: pl.read_parquet(d / "flows" / "*.parquet").sort(pl.all())
    assert flows(tmp_path / "py").equals(flows(tmp_path / "cli"))
    with pytest.raises(equipoise.ScenarioError):
        equipoise.sweep(SCENARIO, out=tmp_path / "bad")
    with pytest.raises(ValueError, match="jobs"):
        equipoise.sweep(sweep, out=tmp_path / "bad", jobs=0)
    with pytest.raises(ValueError, match='engine: expected "packet", "fluid", "ns2" or "testbed"'):
        equipoise.sweep(sweep, out=tmp_path / "bad", engine="warp")
    with pytest.raises(ValueError, match='engine="packet", fluid=True'):
        equipoise.sweep(sweep, out=tmp_path / "bad", engine="fluid")
    with pytest.raises(ValueError, match="fluid=True"):
        equipoise.sweep(sweep, out=tmp_path / "bad", engine="ns2", fluid=True)


def test_a_sweep_in_ns2_and_beside_the_fluid_model(tmp_path):
    import shutil

    sweep = ROOT / "sweeps" / "parallel-red.toml"
    if shutil.which("ns") is None:
        pytest.skip("no ns on the PATH (Debian's ns2 package)")
    runs = equipoise.sweep(sweep, out=tmp_path / "ns2", quick=True, engine="ns2")
    assert pl.DataFrame(runs)["status"].to_list() == ["ok"] * runs.num_rows
    meta = pq.read_metadata(next((tmp_path / "ns2" / "flows").glob("*.parquet"))).metadata
    assert meta[b"equipoise.source"] == b"ns2"
    equipoise.sweep(ROOT / "sweeps" / "seed000-table4.toml", out=tmp_path / "fluid", quick=True, fluid=True)
    assert (tmp_path / "fluid" / "fluid" / "runs").is_dir()


INTERRUPTED = """
import sys, time, equipoise
print("started", flush=True)
started = time.monotonic()
try:
    {call}
except KeyboardInterrupt:
    print(f"interrupted after {{time.monotonic() - started:.1f}} s", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def interrupt(call, after):
    """Runs `call` in a Python of its own, sends it Ctrl-C (SIGINT) `after` seconds in, and
    returns its exit code and output."""
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED.format(call=call)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    time.sleep(after)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=120)
    return child.returncode, out


def test_ctrl_c_stops_a_long_run():
    code, out = interrupt('equipoise.run("scenarios/dumbbell.toml", sets={"sim.duration": "100000s"})', 1.0)
    assert code == 3 and "interrupted" in out, out


def ns2_scratch():
    """The scratch directories of ns-2 runs in the temporary directory."""
    import tempfile

    return set(pathlib.Path(tempfile.gettempdir()).glob("equipoise-ns2-*"))


def test_ctrl_c_stops_a_run_in_ns2_and_removes_its_scratch():
    import shutil

    if shutil.which("ns") is None:
        pytest.skip("no ns on the PATH (Debian's ns2 package)")
    before = ns2_scratch()
    code, out = interrupt('equipoise.run("scenarios/parallel-red.toml", engine="ns2", sets={"sim.duration": "100000s"})', 2.0)
    assert code == 3 and "interrupted" in out, out
    assert ns2_scratch() <= before, "the stopped run's scratch directory is left"


def test_ctrl_c_after_a_run_in_ns2_is_pythons_own():
    import shutil

    if shutil.which("ns") is None:
        pytest.skip("no ns on the PATH (Debian's ns2 package)")
    # The command line ends itself on Ctrl-C during ns-2 runs; Python keeps its handler.
    script = """
import os, signal, time, equipoise
equipoise.run("scenarios/parallel-red.toml", engine="ns2", sets={"sim.duration": "2s", "sim.warmup": "1s"})
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(2)
except KeyboardInterrupt:
    time.sleep(1)
    print("alive after KeyboardInterrupt", flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "alive after KeyboardInterrupt" in done.stdout, done.stdout + done.stderr


def test_ctrl_c_stops_a_sweep_and_keeps_its_finished_runs(tmp_path):
    out_dir = tmp_path / "stopped"
    code, out = interrupt(f'equipoise.sweep("sweeps/seed000-table3.toml", out={str(out_dir)!r}, jobs=1)', 2.0)
    assert code == 3 and "interrupted" in out, out
    # What finished is a dataset the command line resumes: its batches are whole.
    batches = list((out_dir / "runs").glob("*.parquet"))
    assert len(batches) < 6, "the sweep stopped before its end"
    for batch in batches:
        assert pq.read_table(batch).num_rows > 0
