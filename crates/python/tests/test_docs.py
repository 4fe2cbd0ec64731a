"""docs/python.md runs as written: its ```python blocks, in order, in one namespace, from the
repository's root (its sweep's dataset written into a scratch folder)."""

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_python_page_runs(tmp_path, monkeypatch):
    page = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M)
    assert len(blocks) >= 4, "docs/python.md shows its walk-through in ```python blocks"
    monkeypatch.chdir(ROOT)
    # The page writes into results/ and the working directory: here, a scratch folder.
    code = "\n".join(blocks).replace('"results/', f'"{tmp_path}/results/').replace('"goodput-phi.png"', f'"{tmp_path}/goodput-phi.png"')
    namespace = {}
    exec(compile(code, "docs/python.md", "exec"), namespace)
    assert (tmp_path / "goodput-phi.png").stat().st_size > 0
    assert namespace["table"].height == 5
    assert not os.path.exists(ROOT / "goodput-phi.png")
