"""equipoise: a packet-level simulator of TCP and multipath TCP congestion control.

Run a scenario on any engine of the command line and read its tables through Arrow
(`pyarrow.table(t)`, `polars.DataFrame(t)`), or make a sweep's dataset."""

import os
from typing import Any, Literal, Mapping, Optional, Sequence, Union

__version__: str

Scenario = Union[str, os.PathLike[str], Mapping[str, Any]]
"""A path to a scenario file, a TOML string, or a dict shaped like the file."""

Engine = Literal["packet", "fluid", "ns2", "testbed"]

class EquipoiseError(Exception):
    """Every error equipoise raises."""

class ScenarioError(EquipoiseError):
    """A scenario or sweep that cannot run: the message names the file (or `<scenario>`), the key and what was expected."""

class RunError(EquipoiseError):
    """A run that failed once started (an engine's failure, an output that cannot be written)."""

class Table:
    """A table of a run or a dataset, as Arrow data."""

    @property
    def name(self) -> str: ...
    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The Arrow PyCapsule interface: the table as a stream of record batches, in the
        table's own schema (`requested_schema` is not applied, as the protocol allows: the
        consumer casts)."""
    def to_arrow(self) -> Any:
        """The table as a `pyarrow.Table` (needs pyarrow)."""
    def to_polars(self) -> Any:
        """The table as a `polars.DataFrame` (needs polars)."""
    def to_pandas(self) -> Any:
        """The table as a `pandas.DataFrame` (needs pyarrow and pandas)."""

class Run:
    """The tables of a run, as `equipoise run` writes them."""

    @property
    def flows(self) -> Optional[Table]: ...
    @property
    def subflows(self) -> Optional[Table]: ...
    @property
    def links(self) -> Optional[Table]: ...
    @property
    def metrics(self) -> Optional[Table]: ...
    @property
    def timeseries(self) -> Optional[Table]: ...
    @property
    def summary(self) -> str:
        """What `equipoise run` prints of the run."""
    @property
    def source(self) -> Literal["packet", "aimd", "fluid", "ns2", "testbed"]:
        """What made the tables."""
    @property
    def seed(self) -> int: ...
    def table(self, name: str) -> Table:
        """A table by its name (the AIMD model's `model` and `connections` too)."""
    def names(self) -> list[str]:
        """The names of the run's tables."""

def run(
    scenario: Scenario,
    *,
    engine: Engine = "packet",
    sets: Optional[Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    ns: Optional[Union[str, os.PathLike[str]]] = None,
) -> Run:
    """Runs a scenario on an engine ("packet", the default: seed 004's AIMD model for an
    `[aimd]` scenario; "fluid"; "ns2", with its `ns` program or `ns` on the PATH; "testbed",
    Linux, as root) and returns its tables. `sets` overrides keys as `--set` does, `seed` the
    run's seed. Raises ScenarioError naming the key of what is wrong."""

def fluid(scenario: Scenario, *, sets: Optional[Mapping[str, Any]] = None) -> Run:
    """The scenario's fluid model: `run(scenario, engine="fluid", sets=sets)`."""

def validate(scenario: Scenario, *, sets: Optional[Mapping[str, Any]] = None) -> list[str]:
    """Checks a scenario (or a sweep file) without running it: raises ScenarioError, or returns the warnings a run would give."""

def sweep(
    sweep: Union[str, os.PathLike[str]],
    *,
    out: Union[str, os.PathLike[str]],
    jobs: Optional[int] = None,
    quick: bool = False,
    resume: bool = False,
    engine: Literal["packet", "ns2", "testbed"] = "packet",
    fluid: bool = False,
) -> Table:
    """Makes a sweep's dataset in `out` as `equipoise sweep` does (its runs made by `engine`;
    the fluid model's equilibria beside them with `fluid`) and returns its table of runs."""

