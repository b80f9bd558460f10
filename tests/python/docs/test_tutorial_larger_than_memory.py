"""The Python tutorial docs/larger-than-memory.md runs as written (issue 14).

Its ```python blocks, in order, form one program, run in a fresh process: the tutorial
starts a ``dask.distributed.LocalCluster`` of worker processes, which must not meet the
cluster of another test, and a program given with ``python -c`` needs no
``if __name__ == "__main__"`` guard for the workers to start. The test fails on any error,
and on output that lost the figures the text talks about. Deterministic (fixed seeds).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")

TUTORIAL = Path(__file__).resolve().parents[3] / "docs" / "larger-than-memory.md"


def python_blocks(text):
    """The code of the ```python blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_python_blocks_are_found():
    blocks = python_blocks("x\n```python\na = 1\n```\n```r\nb <- 2\n```\n```python\nc = 3\n```\n")
    assert blocks == ["a = 1\n", "c = 3\n"]


@pytest.mark.slow
def test_tutorial_runs(tmp_path):
    program = "\n".join(python_blocks(TUTORIAL.read_text()))
    assert "LocalCluster" in program and "read_parquet" in program
    completed = subprocess.run([sys.executable, "-c", program], cwd=tmp_path,
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    for expected in ("partitions;", "income: mean", "age histogram:", "islands",
                     "coefficients:", "spent: eps = 3.5", "LogisticRegressionDP"):
        assert expected in out, out
