"""Smoke test of benchmarks/scale.py (issue 14): ``--quick`` generates its small Parquet
datasets, runs every measurement and prints every figure, and a measurement in a fresh
process (the full run's way) reports its time, passes and peak memory. The figures of a
quick run are not the benchmark's targets (the data are tiny); only that the script works
is tested. Deterministic: no randomness is checked here.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "scale.py"
LABELS = ["meanDP", "Series.mean", "varDP", "Series.var", "histogramDP",
          "dask.array.histogram", "quantileDP", "Series.quantile", "one pass X'r",
          "LogisticRegressionDP", "LinearRegressionDP", "growth"]


@pytest.mark.slow
def test_quick_run(tmp_path):
    figures = tmp_path / "figures.json"
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--data-dir", str(tmp_path / "data"),
         "--json", str(figures)], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    for label in LABELS:
        assert label in completed.stdout
    assert "FAILED" not in completed.stdout
    out = json.loads(figures.read_text())
    for group in ("stats", "models"):
        for result in out[group].values():
            assert result["seconds"] > 0 and result["passes"] >= 1
    # one pass per statistic; a linear regression is one pass (X'X, X'y and y'y together)
    assert out["stats"]["meanDP"]["passes"] == 1
    assert out["models"]["LinearRegressionDP"]["passes"] == 1
    assert out["models"]["LogisticRegressionDP"]["passes"] > 1
    # a second run reuses the datasets
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [
        "model-40000", "stats-20000", "stats-200000"]


def test_measurement_in_a_fresh_process(tmp_path):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import scale
    finally:
        sys.path.remove(str(SCRIPT.parent))
    path = scale.write_dataset(tmp_path / "stats", 30_000, scale.stats_batch, 10_000, 5_000)
    assert (path / "_COMPLETE").exists() and len(list(path.glob("*.parquet"))) == 3
    result = scale.run_measurement({"group": "stats", "kind": "meanDP", "runs": 1,
                                    "path": str(path)})
    assert "error" not in result, result
    assert result["passes"] == 1 and result["peak_bytes"] >= result["floor_bytes"] > 0
