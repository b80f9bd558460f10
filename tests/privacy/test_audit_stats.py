"""Audits of the statistics on worst-case neighbours (tests/privacy/README.md).

Bounded DP: the neighbours differ in the value of one record (n public). Unbounded DP: one
record is added or removed (n private). The worst cases: records at the bounds, a variance
near zero, an outlier that moves the range, an unseen category, the smallest n. Each audit's
false-failure rate is 1e-3; the seeds are fixed.
"""

import numpy as np
import pandas as pd
import pytest

import dppack
from auditor import assert_private, assert_same_structure

AUDITED = ["meanDP", "varDP", "sdDP", "covDP", "histogramDP", "tableDP", "pooledVarDP",
           "pooledCovDP", "quantileDP", "medianDP"]

full = pytest.mark.audit_full


def _scalar(function, *args, **kwargs):
    def release(data, rng):
        return function(data, *args, **kwargs, random_state=rng)
    return release


# --------------------------------------------------------------------------------------------
# Mean, variance, standard deviation, covariance
# --------------------------------------------------------------------------------------------

ZEROS5 = np.zeros(5)
MOVED5 = np.r_[np.zeros(4), 1.0]  # one record moved from the lower to the upper bound

SCALAR_CASES = [
    # (id, function, extra arguments, d0, d1, eps, delta, n_samples)
    ("mean-bounded", dppack.meanDP, (1.0, 0.0, 1.0), {}, ZEROS5, MOVED5, 1.0, 0, 5_000),
    ("mean-bounded-pDP", dppack.meanDP, (0.9, 0.0, 1.0),
     {"mechanism": "Gaussian", "type_DP": "pDP", "delta": 1e-3}, ZEROS5, MOVED5, 0.9, 1e-3,
     5_000),
    # n = 2 -> 3, the added record at the far bound: with the private n in the noise scale
    # (DPpack) the right tail gives it away.
    ("mean-unbounded", dppack.meanDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.ones(2), np.r_[1.0, 1.0, 0.0], 1.0, 0, 5_000),
    # variance near zero: all records equal, then one at the other bound
    ("var-bounded-zero-variance", dppack.varDP, (1.0, 0.0, 1.0), {}, ZEROS5, MOVED5, 1.0, 0,
     20_000),
    # n = 2 -> 3, the variance from its largest value down: DPpack's noise scale with the
    # private n gives the right tail away.
    ("var-unbounded", dppack.varDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.r_[0.0, 1.0], np.r_[0.0, 1.0, 0.5], 1.0, 0, 5_000),
    ("var-unbounded-zero-variance", dppack.varDP, (1.0, 0.0, 1.0),
     {"which_sensitivity": "unbounded"}, np.zeros(2), np.r_[0.0, 0.0, 1.0], 1.0, 0, 5_000),
    # the smallest n: 0 -> 1 and 1 -> 2 records. A size check refusing the smaller dataset
    # (n being private) fails these audits: a release refused on every draw re-raises.
    ("mean-unbounded-n0-n1", dppack.meanDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.empty(0), np.ones(1), 1.0, 0, 5_000),
    ("mean-unbounded-n1-n2", dppack.meanDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.ones(1), np.r_[1.0, 0.0], 1.0, 0, 5_000),
    ("var-unbounded-n0-n1", dppack.varDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.empty(0), np.ones(1), 1.0, 0, 5_000),
    ("var-unbounded-n1-n2", dppack.varDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.zeros(1), np.r_[0.0, 1.0], 1.0, 0, 5_000),
    ("sd-bounded-zero-variance", dppack.sdDP, (1.0, 0.0, 1.0), {}, ZEROS5, MOVED5, 1.0, 0,
     20_000),
    ("sd-unbounded", dppack.sdDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
     np.r_[0.0, 1.0], np.r_[0.0, 1.0, 0.5], 1.0, 0, 5_000),
    ("quantile-bounded", dppack.quantileDP, (0.25, 1.0, 0.0, 1.0), {},
     np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.0, 1.0, 1.0, 1.0]), 1.0, 0, 10_000),
    ("quantile-unbounded", dppack.quantileDP, (0.25, 1.0, 0.0, 1.0),
     {"which_sensitivity": "unbounded"}, np.array([0.0, 1.0, 1.0]),
     np.array([0.0, 1.0, 1.0, 1.0]), 1.0, 0, 10_000),
    ("median-bounded", dppack.medianDP, (1.0, 0.0, 1.0), {}, np.array([0.0, 0.0, 1.0]),
     np.array([0.0, 1.0, 1.0]), 1.0, 0, 10_000),
]


@pytest.mark.parametrize("function, args, kwargs, d0, d1, eps, delta, n_samples",
                         [pytest.param(*case[1:], id=case[0]) for case in SCALAR_CASES])
def test_scalar_statistic(function, args, kwargs, d0, d1, eps, delta, n_samples):
    assert_private(_scalar(function, *args, **kwargs), d0, d1, eps, delta,
                   n_samples=n_samples)


def _cov(which, mechanism="Laplace", delta=0):
    def release(data, rng):
        return dppack.covDP(data[0], data[1], 1.0, 0.0, 1.0, 0.0, 1.0,
                            which_sensitivity=which, mechanism=mechanism, delta=delta,
                            random_state=rng)
    return release


def test_cov_bounded():
    # (0, 0) moved to (1, 1): the covariance moves by the sensitivity 1/n.
    d0 = (ZEROS5, ZEROS5)
    d1 = (MOVED5, MOVED5)
    assert_private(_cov("bounded"), d0, d1, 1.0, n_samples=10_000)


def test_cov_unbounded():
    d0 = (np.zeros(2), np.zeros(2))
    d1 = (np.r_[0.0, 0.0, 1.0], np.r_[0.0, 0.0, 1.0])
    assert_private(_cov("unbounded"), d0, d1, 1.0, n_samples=10_000)


@full
@pytest.mark.parametrize("which", ["bounded", "unbounded"])
@pytest.mark.parametrize("function", [dppack.meanDP, dppack.varDP, dppack.sdDP])
def test_gaussian_statistics_full(function, which):
    d0, d1 = (ZEROS5, MOVED5) if which == "bounded" else (np.zeros(2), np.r_[0.0, 0.0, 1.0])
    for mechanism, type_DP, eps in (("Gaussian", "pDP", 0.9), ("analytic", "aDP", 2.0)):
        release = _scalar(function, eps, 0.0, 1.0, which_sensitivity=which,
                          mechanism=mechanism, delta=1e-3, type_DP=type_DP)
        assert_private(release, d0, d1, eps, 1e-3, n_samples=50_000)


@full
def test_cov_full():
    d0 = (np.zeros(2), np.zeros(2))
    d1 = (np.r_[0.0, 0.0, 1.0], np.r_[0.0, 0.0, 1.0])
    assert_private(_cov("unbounded", "analytic", 1e-3), d0, d1, 1.0, 1e-3, n_samples=50_000)
    assert_private(_cov("bounded"), (ZEROS5, ZEROS5), (MOVED5, MOVED5), 1.0, n_samples=50_000)


# --------------------------------------------------------------------------------------------
# Pooled variance and covariance
# --------------------------------------------------------------------------------------------


def _pooled_var(which, approx=False):
    def release(samples, rng):
        return dppack.pooledVarDP(*samples, eps=1.0, lower_bound=0.0, upper_bound=1.0,
                                  which_sensitivity=which, approx_n_max=approx,
                                  random_state=rng)
    return release


def _pooled_cov(which):
    def release(samples, rng):
        return dppack.pooledCovDP(*samples, eps=1.0, lower_bound1=0.0, upper_bound1=1.0,
                                  lower_bound2=0.0, upper_bound2=1.0, which_sensitivity=which,
                                  random_state=rng)
    return release


def test_pooled_var_bounded_zero_variance():
    # pooled variance 0, then one record at the other bound: the change equals the
    # sensitivity (U - L)^2 (1 - 1/n_max)/(N - J) (DPpack's pooledVarDP)
    d0 = (np.zeros(3), np.zeros(3))
    d1 = (np.r_[0.0, 0.0, 1.0], np.zeros(3))
    assert_private(_pooled_var("bounded"), d0, d1, 1.0, n_samples=20_000)


def test_pooled_var_unbounded():
    d0 = (np.zeros(2), np.zeros(2))
    d1 = (np.r_[0.0, 0.0, 1.0], np.zeros(2))
    assert_private(_pooled_var("unbounded"), d0, d1, 1.0, n_samples=10_000)


def test_pooled_cov_bounded():
    d0 = (np.zeros((3, 2)), np.zeros((3, 2)))
    d1 = (np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]), np.zeros((3, 2)))
    assert_private(_pooled_cov("bounded"), d0, d1, 1.0, n_samples=10_000)


def test_pooled_cov_unbounded():
    # the smallest sample with a finite unbounded sensitivity (N - J - 1 > 0), its covariance
    # at its largest, then a record at the centre added
    d0 = (np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]),)
    d1 = (np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.5, 0.5]]),)
    assert_private(_pooled_cov("unbounded"), d0, d1, 1.0, n_samples=20_000)


@full
def test_pooled_full():
    d0 = (np.zeros(3), np.zeros(3))
    d1 = (np.r_[0.0, 0.0, 1.0], np.zeros(3))
    assert_private(_pooled_var("bounded", approx=True), d0, d1, 1.0, n_samples=50_000)
    assert_private(_pooled_var("unbounded"), (np.zeros(2), np.zeros(2)),
                   (np.r_[0.0, 0.0, 1.0], np.zeros(2)), 1.0, n_samples=50_000)


# --------------------------------------------------------------------------------------------
# Histograms
# --------------------------------------------------------------------------------------------

LOW, HIGH = 0.0, 4.0
# Nine records at 1.0 and one more: at 1.2, or at the upper bound (an outlier that moves the
# range of the data, and with it DPpack's breaks).
HIST_D0 = np.r_[np.full(9, 1.0), 1.2]
HIST_D1 = np.r_[np.full(9, 1.0), HIGH]
POINTS = (1.0, 1.2, 2.5, HIGH)


def _histogram(breaks="Sturges", which="bounded", normalize=False, mechanism="Laplace",
               delta=0):
    def release(x, rng):
        return dppack.histogramDP(x, 1.0, LOW, HIGH, breaks=breaks, normalize=normalize,
                                  which_sensitivity=which, mechanism=mechanism, delta=delta,
                                  allow_negative=True, random_state=rng)
    return release


def _cell_counts(out):
    """Counts of the cells holding each of POINTS, their difference for the moved record,
    and the number of cells: a fixed number of values whatever the breaks."""
    breaks, counts = np.asarray(out.breaks), np.asarray(out.counts, dtype=np.float64)
    cells = np.clip(np.searchsorted(breaks, POINTS, side="left") - 1, 0, counts.size - 1)
    values = counts[cells]
    return np.r_[values, values[1] - values[3], counts.size]


HIST_LABELS = [f"count at {p}" for p in POINTS] + ["count at 1.2 - count at U", "cells"]

BREAK_KINDS = ["Sturges", "Scott", "FD", 5, [1.0, 2.0, 3.0], lambda bounds: 3]
BREAK_IDS = ["Sturges", "Scott", "FD", "number", "vector", "callable"]


def _structure(out):
    return (tuple(np.asarray(out.breaks)), tuple(np.asarray(out.mids)))


@pytest.mark.parametrize("breaks", BREAK_KINDS, ids=BREAK_IDS)
def test_histogram_breaks_do_not_depend_on_the_data(breaks):
    # Bounded DP (n public): the breaks and mids of the two neighbours must be identical.
    assert_same_structure(_histogram(breaks), HIST_D0, HIST_D1, _structure)


@pytest.mark.parametrize("breaks", BREAK_KINDS[3:], ids=BREAK_IDS[3:])
def test_histogram_breaks_without_n_unbounded(breaks):
    # A number, a vector or a function needs no n: fixed breaks under unbounded DP too.
    assert_same_structure(_histogram(breaks, "unbounded"), HIST_D0, HIST_D0[:-1], _structure)


def test_histogram_bounded_outlier():
    assert_private(_histogram(), HIST_D0, HIST_D1, 1.0, n_samples=5_000, project=_cell_counts,
                   labels=HIST_LABELS)


def test_histogram_unbounded_outlier():
    # the outlier added: the rule's n is released privately with eps/20
    assert_private(_histogram(which="unbounded"), HIST_D0[:-1], HIST_D1, 1.0,
                   n_samples=5_000, project=_cell_counts, labels=HIST_LABELS)


def test_histogram_user_breaks_extended_normalized():
    assert_private(_histogram([1.0, 2.0, 3.0], normalize=True), HIST_D0, HIST_D1, 1.0,
                   n_samples=5_000, project=_cell_counts, labels=HIST_LABELS)


@full
@pytest.mark.parametrize("breaks", BREAK_KINDS, ids=BREAK_IDS)
@pytest.mark.parametrize("which", ["bounded", "unbounded"])
def test_histogram_full(breaks, which):
    d0 = HIST_D0 if which == "bounded" else HIST_D0[:-1]
    assert_private(_histogram(breaks, which), d0, HIST_D1, 1.0, n_samples=30_000,
                   project=_cell_counts, labels=HIST_LABELS)
    assert_private(_histogram(breaks, which, mechanism="analytic", delta=1e-3), d0, HIST_D1,
                   1.0, 1e-3, n_samples=30_000, project=_cell_counts, labels=HIST_LABELS)


# --------------------------------------------------------------------------------------------
# Contingency tables
# --------------------------------------------------------------------------------------------

LEVELS = ["a", "b", "c"]


def _declared(values):
    return pd.Categorical(values, categories=LEVELS)


def _table(which="bounded", mechanism="Laplace", delta=0):
    def release(factor, rng):
        return dppack.tableDP(factor, eps=1.0, which_sensitivity=which, mechanism=mechanism,
                              delta=delta, allow_negative=True, random_state=rng)
    return release


def _cells(out):
    """Counts of a, b, c (0 where a level is not shown), and b - c."""
    counts = [float(out[level]) if level in out.index else 0.0 for level in LEVELS]
    return np.r_[counts, counts[1] - counts[2]]


def _index(out):
    return tuple(out.index)


def test_table_declared_unseen_category_keeps_the_cells():
    # c is a declared level never observed in d0; in d1 a record is c: same cells.
    d0 = _declared(["a", "a", "b", "b"])
    d1 = _declared(["a", "a", "b", "c"])
    assert_same_structure(_table(), d0, d1, _index)
    assert_same_structure(_table("unbounded"), d0, _declared(["a", "a", "b", "b", "c"]),
                          _index)


def test_table_undeclared_levels_pure_dp_refused_or_fixed():
    # Undeclared levels with delta = 0: the release may not let a new category add a cell.
    assert_same_structure(_table(), np.array(["a", "a", "b", "b"]),
                          np.array(["a", "a", "b", "c"]), _index)


def test_table_declared_bounded():
    d0 = _declared(["a", "a", "b", "b"])
    d1 = _declared(["a", "a", "b", "c"])
    assert_private(_table(), d0, d1, 1.0, n_samples=5_000, project=_cells)


def test_table_declared_unbounded():
    d0 = _declared(["a", "a", "b"])
    d1 = _declared(["a", "a", "b", "c"])
    assert_private(_table("unbounded"), d0, d1, 1.0, n_samples=5_000, project=_cells)


def test_table_undeclared_thresholded():
    # The unseen category appears in d1 only: the thresholded release shows its cell with
    # probability at most about delta.
    d0 = np.array(["a", "a", "b", "b"])
    d1 = np.array(["a", "a", "b", "c"])
    assert_private(_table(delta=1e-3), d0, d1, 1.0, 1e-3, n_samples=5_000, project=_cells)


@full
def test_table_full():
    d0 = _declared(["a", "a", "b", "b"])
    d1 = _declared(["a", "a", "b", "c"])
    assert_private(_table(mechanism="analytic", delta=1e-3), d0, d1, 1.0, 1e-3,
                   n_samples=30_000, project=_cells)
    assert_private(_table("unbounded", delta=1e-3), np.array(["a", "a", "b"]),
                   np.array(["a", "a", "b", "c"]), 1.0, 1e-3, n_samples=30_000, project=_cells)
    assert_private(_table("unbounded", "analytic", 1e-3), np.array(["a", "a", "b"]),
                   np.array(["a", "a", "b", "c"]), 1.0, 1e-3, n_samples=30_000, project=_cells)
