"""Smoke test of benchmarks/utility.py (issue 28): its task functions run on a tiny
configuration for dppack alone (the peers, diffprivlib and OpenDP, are benchmark-only
dependencies: their own test runs only where they are importable), the tables have one row
per method and reference and one column per eps, and the summary's verdicts follow the
order-statistic confidence intervals. Deterministic (fixed seeds, constructed errors): no
false failures.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")
BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
utility = pytest.importorskip("utility")


def test_tiny_run_dppack_only():
    tasks = utility.build_tasks(("dppack",), synthetic_n=2_000, synthetic_runs=2)
    assert [task.key for task in tasks] == [key for key, _, _ in utility.TASKS]
    errors = utility.run_tasks(tasks, eps=(1.0,), runs=2, verbose=False)
    for task in tasks:
        assert task.methods and all(m.library == "dppack" for m in task.methods)
        for method in task.methods:
            for eps in (1.0,):
                values = errors[task.key][method.label][eps]
                assert values.shape == (2,) and np.all(np.isfinite(values))
                assert np.all(values >= 0)
    rows = utility.results_rows(tasks, errors, eps=(1.0,))
    assert len(rows) == sum(len(t.methods) + len(t.references) for t in tasks)
    assert all(len(row) == 3 + 1 for row in rows)
    summary = utility.summary_rows(tasks, errors, eps=(1.0,))
    assert [len(row) for row in summary] == [2] * len(tasks)
    assert all(cell == "-" for row in summary for cell in row[1:])  # no peer measured
    # the references: OLS ahead of the mean predictor
    refs = {task.key: task.references for task in tasks}
    assert refs["diabetes"]["OLS"] < refs["diabetes"]["mean predictor"]
    assert 0 < refs["logistic"]["scikit-learn LogisticRegression"] < 0.2


def test_median_ci_order_statistics():
    assert utility.ci_ranks(50)[:2] == (18, 33)
    assert abs(utility.ci_ranks(50)[2] - 0.9672) < 1e-4
    assert utility.ci_ranks(10)[:2] == (2, 9)
    assert utility.median_ci(np.arange(50, 0, -1)) == (25.5, 18.0, 33.0)
    assert utility.median_ci([3.0, 1.0, 2.0]) == (2.0, 1.0, 3.0)


def test_summary_verdicts():
    def method(library, label):
        return utility.Method(library, label, "replace-one", None)

    task = utility.Task("t", "task", "error", [method("dppack", "dppack a"),
                                               method("peer", "peer b")])
    base = np.arange(1.0, 51.0)
    cases = {1.0: (base + 100, base),  # dppack wholly above: loses
             2.0: (base, base + 100),  # wholly below: wins
             3.0: (base, base + 1.0),  # overlapping: no verdict
             4.0: (np.full(50, 0.5), np.zeros(50))}  # the peer exact
    errors = {"t": {"dppack a": {e: d for e, (d, _) in cases.items()},
                    "peer b": {e: p for e, (_, p) in cases.items()}}}
    row = utility.summary_rows([task], errors, eps=tuple(cases))[0]
    assert row[1].startswith("4.92 **loses**") and row[1].endswith("(peer)")
    assert row[2].startswith("0.20 wins")
    assert row[3] == "0.96 (peer)"
    assert row[4] == "0.5 vs 0 **loses** (peer)"


def test_interval_error():
    x = np.sort(np.array([1.0, 2.0, 2.0, 3.0]))
    assert utility.interval_error(2.0, x, 0.5) == 0.0
    assert utility.interval_error(2.5, x, 0.5) == 0.5
    assert utility.interval_error(1.0, x, 0.5) == 1.0


def test_docs_page_and_readme_have_the_markers():
    for path in (utility.README, utility.DOCS_PAGE):
        text = path.read_text(encoding="utf-8")
        for name in ("utility", "utility_summary"):
            assert f"<!-- table: {name} -->" in text and f"<!-- /table: {name} -->" in text


def test_peers_when_importable():
    peers = [p for p in utility.available_peers()]
    if not peers:
        pytest.skip("diffprivlib and OpenDP are not installed (benchmark-only dependencies)")
    tasks = utility.build_tasks(peers, synthetic_n=2_000, synthetic_runs=1,
                                keys=("mean_public", "median"))
    errors = utility.run_tasks(tasks, eps=(1.0,), runs=1, verbose=False)
    for task in tasks:
        assert {m.library for m in task.methods} == set(peers)
        assert all(np.isfinite(errors[task.key][m.label][1.0]).all() for m in task.methods)


def test_a_failing_release_is_reported_and_dropped(capsys):
    def broken(eps, seed):
        raise ValueError("no such argument")

    task = utility.Task("t", "task", "error", [
        utility.Method("dppack", "dppack broken", "both", broken),
        utility.Method("dppack", "dppack fine", "both", lambda eps, seed: eps + seed)])
    errors = utility.run_tasks([task], eps=(1.0,), runs=2, verbose=False)
    assert [m.label for m in task.methods] == ["dppack fine"]
    assert errors["t"]["dppack fine"][1.0].tolist() == [1.0, 2.0]
    assert "FAILED dppack broken: ValueError: no such argument" in capsys.readouterr().out


def test_the_best_peer_among_equal_medians_has_the_tighter_interval():
    task = utility.Task("t", "task", "error", [
        utility.Method("dppack", "dppack a", "both", None),
        utility.Method("peer", "peer wide", "replace-one", None),
        utility.Method("peer", "peer tight", "add/remove", None)])
    wide = np.r_[np.zeros(30), np.ones(20)]  # median 0, CI [0, 1]
    errors = {"t": {"dppack a": {1.0: np.full(50, 0.5)}, "peer wide": {1.0: wide},
                    "peer tight": {1.0: np.zeros(50)}}}
    assert utility.summary_rows([task], errors, eps=(1.0,))[0][1] == "0.5 vs 0 **loses** (peer)"
