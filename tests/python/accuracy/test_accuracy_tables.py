"""Accuracy reports of tableDP with undeclared levels (the thresholded release):
``noiseIntervalDP("tableDP", ..., declared=False)``.

* Coverage of the real release: ``tableDP`` on an undeclared factor (fixed seeds) whose
  cells are chosen near the worst cases: counts of 1, below the threshold tau, at tau, at
  the suppressed bound U = ``details["suppressed_max"]`` and one above it, and far above tau.
  A cell misses when its true count lies outside ``report.interval(released)`` (a released
  count within ``half_width``; a suppressed cell, 0 in the table, below U). Each group's miss
  rate is compared with alpha by an exact one-sided binomial test at level 1e-6 (the false
  failures of a correct report); 6 groups x 8 settings, plus the simultaneous test: at most
  about 5e-5 for the file.
* Planted bugs (each caught, see the tests): the report's noise law calibrated to the whole
  delta (the declared release's law, not the threshold's share); the suppressed bound
  without tau; interval() ignoring suppressed cells; simultaneous ignoring ``cells``.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy.stats import binomtest

import dppack
from dppack import _messages, mechanisms
from dppack.stats import _histogram, _table
from dppack.accuracy import noiseIntervalDP

# Simulations whose outcome does not depend on NumPy: make test runs them once.
pytestmark = pytest.mark.one_suite

LEVEL = 1e-6  # each binomial test's false-failure rate


def _not_above(misses, trials, p):
    assert binomtest(int(misses), trials, p, alternative="greater").pvalue > LEVEL, (
        misses, trials, p)


def _released(counts, seed, **arguments):
    """The real release of an undeclared factor with these cell counts (level i has count
    ``counts[i]``), as a vector over all the cells: the released count, 0 where suppressed."""
    x = np.repeat(np.arange(counts.size), counts)
    out = dppack.tableDP(x, random_state=seed, **arguments)
    released = np.zeros(counts.size)
    released[out.index.to_numpy(dtype=int)] = out.to_numpy()
    return released


def _groups(report):
    """True counts near the worst cases of the report: 1, below tau, at tau, at U and U + 1
    (the suppressed bound), far above tau."""
    tau, top, h = (report.details["threshold"], int(report.details["suppressed_max"]),
                   report.half_width)
    return {"one": 1, "below": max(1, math.floor(tau - h)), "at tau": round(tau),
            "at U": top, "U + 1": top + 1, "far": math.ceil(tau + 3 * h)}


SETTINGS = [  # (mechanism, which, eps, delta, alpha)
    ("Laplace", "bounded", 0.9, 0.05, 0.2),
    ("Laplace", "unbounded", 0.9, 0.05, 0.2),
    ("Gaussian", "bounded", 0.9, 0.05, 0.2),
    ("Gaussian", "unbounded", 0.9, 0.05, 0.2),
    ("analytic", "bounded", 0.9, 0.05, 0.2),
    ("analytic", "unbounded", 0.9, 0.05, 0.2),
    ("Laplace", "bounded", 0.5, 1e-5, 0.05),
    ("Gaussian", "bounded", 0.5, 1e-5, 0.05),
]


@pytest.mark.parametrize("mechanism,which,eps,delta,alpha", SETTINGS)
def test_thresholded_table_coverage_of_the_real_release(mechanism, which, eps, delta, alpha):
    # 5000 cells per group and 2 seeds: 10000 cells (independent noises) per group. The
    # release's probability of releasing the "at tau" cells is about 1/2, so both statements
    # (released and suppressed) are exercised. Planted bugs, each caught here:
    # - the noise law of the declared release (the whole delta instead of the threshold's
    #   share: _histogram.count_noise_laws in _counts): "far" fails for analytic bounded
    #   (miss rate 0.224 > 0.2);
    # - suppressed_max = floor(H) (tau forgotten): "at tau" and "at U" fail everywhere;
    # - interval() not giving [0, U] to a released 0: the same.
    report = noiseIntervalDP("tableDP", eps, alpha=alpha, mechanism=mechanism, delta=delta,
                             which_sensitivity=which, declared=False)
    groups = _groups(report)
    per_group = 5000
    counts = np.repeat(np.array(list(groups.values())), per_group)
    misses = np.zeros(counts.size, dtype=int)
    shown = np.zeros(counts.size, dtype=int)
    for seed in (11, 12):
        released = _released(counts, seed, eps=eps, delta=delta, mechanism=mechanism,
                             which_sensitivity=which)
        low, high = report.interval(released)
        misses += (counts < low) | (counts > high)
        shown += released > 0
    for i, name in enumerate(groups):
        cells = slice(i * per_group, (i + 1) * per_group)
        _not_above(misses[cells].sum(), 2 * per_group, alpha)
    # the groups do what they are for: "at tau" is released about half the time, "far"
    # always, a count of 1 with probability at most p <= delta (the threshold's purpose)
    at_tau = shown[2 * per_group:3 * per_group].mean() / 2
    assert 0.2 < at_tau < 0.8, at_tau
    assert shown[5 * per_group:].mean() / 2 > 0.99
    _not_above(shown[:per_group].sum(), 2 * per_group, delta)


def test_thresholded_report_uses_the_release_law_and_threshold():
    # The report's grid and threshold are those of the release (_table.thresholded_table_laws,
    # the function tableDP calls); the released counts all lie above the threshold.
    for mechanism in ("Laplace", "Gaussian", "analytic"):
        both = noiseIntervalDP("tableDP", 0.5, mechanism=mechanism, delta=1e-5,
                               which_sensitivity="both", declared=False)
        laws = _table.thresholded_table_laws(0.5, mechanism, 1e-5, "aDP", "both")
        assert list(both) == ["Bounded", "Unbounded"] == list(laws)
        for label, (_, k, _, tau) in laws.items():
            assert both[label].grid == 2.0 ** k
            assert both[label].details["threshold"] == tau
            assert both[label].units == "count" and both[label].statistic == "tableDP"
            one = noiseIntervalDP("tableDP", 0.5, mechanism=mechanism, delta=1e-5,
                                  which_sensitivity=label.lower(), declared=False)
            assert one.half_width == both[label].half_width
            assert one.details == both[label].details
    report = noiseIntervalDP("tableDP", 0.5, delta=1e-5, declared=False)
    released = _released(np.arange(1, 80), 3, eps=0.5, delta=1e-5)
    assert released[released > 0].min() > report.details["threshold"]


def test_thresholded_report_is_not_loose():
    # Released cells: within one count of the continuous laws' half-widths, b ln(1 / alpha)
    # (Laplace, b = 2 / eps bounded, 1 / eps unbounded) and sigma z_{1 - alpha/2} (DPpack's
    # sigma at the noise's share of delta: delta / 2 bounded, delta unbounded); suppressed
    # cells: U = floor(tau + H) <= tau + h + 1. Planted: the suppressed bound with tau
    # counted twice fails the last assertion.
    for alpha in (0.05, 0.2):
        for which, sens, share in (("bounded", 2.0, 0.5), ("unbounded", 1.0, 1.0)):
            lap = noiseIntervalDP("tableDP", 0.5, alpha=alpha, delta=1e-5, declared=False,
                                  which_sensitivity=which)
            assert abs(lap.half_width - sens / 0.5 * math.log(1 / alpha)) <= 1.0
            gauss_sens = math.sqrt(2.0) if which == "bounded" else 1.0
            sigma = mechanisms.gaussian_sigma(0.5, share * 1e-5, gauss_sens, "aDP", False)
            gauss = noiseIntervalDP("tableDP", 0.5, alpha=alpha, mechanism="Gaussian",
                                    delta=1e-5, declared=False, which_sensitivity=which)
            z = float(special.ndtri(1 - alpha / 2))
            assert abs(gauss.half_width - sigma * z) <= 1.0
            for r in (lap, gauss):
                tau, top = r.details["threshold"], r.details["suppressed_max"]
                assert tau <= top <= tau + r.half_width + 1


def test_thresholded_simultaneous_holds_for_every_observed_cell():
    # 40 observed cells (10 each at tau, U, U + 1 and far above), cells = 40: the share of
    # releases in which some cell misses is <= alpha (exact binomial test, 400 releases).
    # Planted: simultaneous ignoring cells (the per-cell h) -> about 0.9 of the releases miss.
    eps, delta, alpha = 0.9, 0.05, 0.2
    report = noiseIntervalDP("tableDP", eps, alpha=alpha, delta=delta, declared=False,
                             simultaneous=True, cells=40)
    assert report.simultaneous and np.shape(report.half_width) == ()
    assert report.details["cells"] == 40
    single = noiseIntervalDP("tableDP", eps, alpha=alpha, delta=delta, declared=False)
    assert report.half_width > single.half_width
    groups = _groups(noiseIntervalDP("tableDP", eps, alpha=alpha / 40, delta=delta,
                                     declared=False))
    counts = np.repeat([groups["at tau"], groups["at U"], groups["U + 1"], groups["far"]], 10)
    runs = 400
    failed = 0
    for seed in range(runs):
        released = _released(counts, 1000 + seed, eps=eps, delta=delta)
        low, high = report.interval(released)
        failed += bool(np.any((counts < low) | (counts > high)))
    _not_above(failed, runs, alpha)


def test_simultaneous_over_the_released_cells_only_would_fail():
    # Why cells must bound the observed cells, not count the released ones: 100 cells of
    # count 23 (Laplace, eps 0.9, delta 1e-5, tau = 26.6), each released with probability
    # about 0.1; with cells = the number released, some released cell misses in about 0.2
    # of the releases (209 of these 1000; 0.165 for cells = 10, _suppressed's docstring),
    # far above alpha = 0.05. The exact binomial test against 0.05 rejects at 1e-6 unless
    # fewer than about 85 of 1000 fail (probability below 1e-12 at a rate of 0.165).
    eps, delta, alpha = 0.9, 1e-5, 0.05
    counts = np.full(100, 23)
    failed = 0
    runs = 1000
    for seed in range(runs):
        released = _released(counts, 2000 + seed, eps=eps, delta=delta)
        shown = int(np.sum(released > 0))
        if shown == 0:
            continue
        h = noiseIntervalDP("tableDP", eps, alpha=alpha, delta=delta, declared=False,
                            simultaneous=True, cells=shown).half_width
        h = np.max(h)
        failed += bool(np.any(np.abs(released[released > 0] - 23) > h))
    assert binomtest(failed, runs, alpha, alternative="greater").pvalue < LEVEL, failed


def test_interval_of_a_two_factor_table():
    # A released DataFrame: its 0s are suppressed cells ([0, U]), the other counts +- h.
    report = noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared=False)
    top, h = report.details["suppressed_max"], report.half_width
    a = np.repeat(["a", "a", "b", "b"], [200, 2, 3, 150])
    b = np.repeat(["x", "y", "x", "y"], [200, 2, 3, 150])
    table = dppack.tableDP(a, b, eps=1.0, delta=1e-5, random_state=5)
    assert isinstance(table, pd.DataFrame) and table.shape == (2, 2)
    low, high = report.interval(table.to_numpy())
    truth = np.array([[200, 2], [3, 150]])
    assert np.all((table.to_numpy() == 0) == (low == 0))  # the suppressed cells
    assert np.all(np.where(table.to_numpy() == 0, high == top, high - low == 2 * h))
    assert np.all((low <= truth) & (truth <= high))
    assert report.interval(0) == (0.0, float(top))


def test_thresholded_report_checks_as_the_release():
    # The release's own checks and messages, in its order, before anything is computed.
    x = ["a", "b", "b"]
    bad = [
        dict(delta=0),  # Laplace with delta = 0: the release refuses undeclared levels
        dict(delta=1.5),
        dict(delta=-1e-5),
        dict(mechanism="Gaussian", delta=1e-5, eps=1.5),
        dict(mechanism="Gaussian", delta=0),
        dict(mechanism="Gauss", delta=1e-5),
        dict(which_sensitivity="neither", delta=1e-5),
        dict(eps=-1, delta=1e-5),
    ]
    for arguments in bad:
        arguments = {"eps": 0.5, **arguments}
        with pytest.raises(ValueError) as release:
            dppack.tableDP(x, random_state=1, **arguments)
        eps = arguments.pop("eps")
        with pytest.raises(ValueError) as report:
            noiseIntervalDP("tableDP", eps, declared=False, **arguments)
        assert str(report.value) == str(release.value), arguments
        assert _messages.r_text(report.value) == _messages.r_text(release.value)
    with pytest.raises(ValueError, match="Declare the levels"):
        noiseIntervalDP("tableDP", 1.0, declared=False)
    with pytest.raises(ValueError, match="cells"):
        noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared=False, simultaneous=True)
    with pytest.raises(ValueError, match="cells"):
        noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared=False, cells=0)
    with pytest.raises(ValueError, match="declared must be"):
        noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared="no")
    with pytest.raises(ValueError, match="alpha"):
        noiseIntervalDP("tableDP", 1.0, alpha=1.0, delta=1e-5, declared=False)


def test_unknown_argument_message_in_each_language():
    # Python names for Python, R's dotted names for R (R's noiseIntervalDP sends lower.bnd
    # as lower_bnd). Planted: the R text with Python's names fails the second assertion.
    with pytest.raises(ValueError) as error:
        noiseIntervalDP("meanDP", 1.0, n=10, lower_bound=0, upper_bnd=1)
    assert str(error.value) == (
        "noiseIntervalDP for meanDP takes n, lower_bound, upper_bound, which_sensitivity, "
        "mechanism, delta, type_DP; not upper_bnd.")
    assert _messages.r_text(error.value) == (
        "noiseIntervalDP for meanDP takes n, lower.bound, upper.bound, which.sensitivity, "
        "mechanism, delta, type.DP; not upper.bnd.")


@pytest.mark.parametrize("statistic,arguments", [
    ("tableDP", {}), ("tableDP", {"delta": 1e-5, "declared": False}),
    ("histogramDP", {}), ("histogramDP", {"which_sensitivity": "unbounded"}),
    ("histogramDP", {"normalize": True, "n": 10 ** 16, "which_sensitivity": "unbounded"})])
def test_many_cells_give_one_scalar(statistic, arguments):
    # cells = 10^12 (a bound such as n, as the docs advise): every cell has the same law, so
    # the report is one scalar at the Sidak level of 10^12 cells, in a few milliseconds and
    # kilobytes. Planted: one entry per cell (np.full / np.zeros(cells)) -> MemoryError, and
    # the peak-memory check fails long before with smaller cells.
    import tracemalloc

    cells = 10 ** 12
    tracemalloc.start()
    try:
        report = noiseIntervalDP(statistic, 1.0, cells=cells, simultaneous=True, **arguments)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20
    assert np.shape(report.half_width) == () and report.details["cells"] == cells
    assert report.simultaneous
    if arguments.get("normalize"):
        return  # the proportions' counts: test_accuracy_pooled_hist.py
    level = -math.expm1(math.log1p(-0.05) / cells)  # Sidak's per-cell level
    per_cell = noiseIntervalDP(statistic, 1.0, alpha=level, **arguments)
    assert report.half_width == per_cell.half_width
    assert report.half_width > noiseIntervalDP(statistic, 1.0, **arguments).half_width
