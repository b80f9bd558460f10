"""Tests of dppack's data-access functions, against DPpack's R/DataAccess.R.

What is checked:

* every reference value computed with DPpack 0.2.2 in R 4.2.2: meanDataAccess, varDataAccess,
  covDataAccess, histogramDataAccess, pooledVarDataAccess, pooledCovDataAccess,
  quantileDataAccess, and the sensitivities of histograms and tables per mechanism (DPpack's
  histogramDP, tableDP and their sensitivities in R/StatFunctions.R);
* DPpack's result names, that the data are not clipped (except by quantileDataAccess, which
  clips its sorted copy) and that the caller's data are never modified;
* the tables' labels (levels, factor names) and the validation messages, DPpack's and ours.

Everything here is deterministic: the data-access functions draw no random numbers.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest

from dppack import (
    covDataAccess,
    histogramDataAccess,
    meanDataAccess,
    pooledCovDataAccess,
    pooledVarDataAccess,
    quantileDataAccess,
    rcompat,
    tableDataAccess,
    varDataAccess,
)

# The samples of the pooled references (DPpack's pooledVarDP and pooledCovDP). The covariance
# samples are R's
# matrix(c(1, 4, -2, 8, -6, -3), ncol = 2) and matrix(c(1, 2, -5, 7), ncol = 2): R fills
# them column by column.
POOLED_VAR_SAMPLES = [[1, 4, -2, 8, -6], [1, 2], [-5, -7]]
POOLED_VAR_PAIRS = [[1, 4], [1, 2], [-5, -7]]
POOLED_COV_SAMPLES = [
    np.array([1, 4, -2, 8, -6, -3], dtype=float).reshape(2, 3).T,
    np.array([1, 2, -5, 7], dtype=float).reshape(2, 2).T,
]

# --------------------------------------------------------------------------------------------
# Reference values (computed by DPpack's R/DataAccess.R)
# --------------------------------------------------------------------------------------------


def test_mean_reference():
    result = meanDataAccess([1, 4, 3, 2], 0, 5)
    assert list(result) == ["True.Values", "Sensitivity"]
    assert result["True.Values"] == pytest.approx(2.5, abs=1e-12)
    assert result["Sensitivity"] == pytest.approx(1.25, abs=1e-12)


def test_var_reference():
    result = varDataAccess([1, 4, 3, 2], 0, 5)
    assert list(result) == ["True.Values", "Sensitivity"]
    assert result["True.Values"] == pytest.approx(1.666667, abs=1e-6)
    assert result["Sensitivity"] == pytest.approx(6.25, abs=1e-12)


def test_cov_reference():
    result = covDataAccess([1, 4, 3, 2], [-2, -3, -4, -1], 0, 5, -5, 0)
    assert list(result) == ["True.Values", "Sensitivity"]
    assert result["True.Values"] == pytest.approx(-1.0, abs=1e-12)
    assert result["Sensitivity"] == pytest.approx(6.25, abs=1e-12)


def test_histogram_reference():
    result = histogramDataAccess([1, 4, 3, 2, 3], "Sturges", "Laplace")
    assert list(result) == ["True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"]
    hist = result["True.Values"]
    assert isinstance(hist, rcompat.Histogram)
    np.testing.assert_array_equal(hist.breaks, [1, 2, 3, 4])
    np.testing.assert_array_equal(hist.counts, [2, 2, 1])
    np.testing.assert_array_equal(hist.mids, [1.5, 2.5, 3.5])
    assert hist.xname == "x" and hist.equidist
    assert result["Bounded.Sensitivities"] == 2
    assert result["Unbounded.Sensitivities"] == 1


@pytest.mark.parametrize("mechanism", ["Gaussian", "analytic"])
def test_histogram_gaussian_sensitivities_are_l2(mechanism):
    result = histogramDataAccess([1, 4, 3, 2, 3], "Sturges", mechanism)
    assert result["Bounded.Sensitivities"] == pytest.approx(math.sqrt(2), abs=1e-15)
    assert result["Unbounded.Sensitivities"] == 1


def test_pooled_var_reference():
    exact = pooledVarDataAccess(POOLED_VAR_SAMPLES, -10, 10, False)
    assert list(exact) == ["True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"]
    assert exact["True.Values"] == pytest.approx(19.75, abs=1e-12)
    assert exact["Bounded.Sensitivities"] == pytest.approx(53.3333, abs=1e-4)
    assert exact["Unbounded.Sensitivities"] == exact["Bounded.Sensitivities"]  # N != 2J
    approx = pooledVarDataAccess(POOLED_VAR_SAMPLES, -10, 10, True)
    assert approx["True.Values"] == pytest.approx(19.75, abs=1e-12)
    assert approx["Bounded.Sensitivities"] == pytest.approx(66.6667, abs=1e-4)
    assert approx["Unbounded.Sensitivities"] == approx["Bounded.Sensitivities"]


def test_pooled_var_reference_with_pairs():
    """N = 2J: the unbounded sensitivity differs from the bounded one (DPpack's pooledVarDP)."""
    result = pooledVarDataAccess(POOLED_VAR_PAIRS, -10, 10, False)
    assert result["True.Values"] == pytest.approx(2.333333, abs=1e-6)
    assert result["Bounded.Sensitivities"] == pytest.approx(66.6667, abs=1e-4)
    assert result["Unbounded.Sensitivities"] == pytest.approx(83.3333, abs=1e-4)


def test_pooled_var_single_pair_has_infinite_unbounded_sensitivity():
    """N = 2, J = 1: (U-L)^2 (N-1)/(N(N-2)) divides by 0; DPpack's value is Inf too."""
    result = pooledVarDataAccess([[1, 3]], 0, 4, False)
    assert result["True.Values"] == pytest.approx(2.0)
    assert result["Bounded.Sensitivities"] == pytest.approx(8.0)
    assert result["Unbounded.Sensitivities"] == math.inf


def test_pooled_cov_reference():
    exact = pooledCovDataAccess(POOLED_COV_SAMPLES, -10, 10, -10, 10, False)
    assert list(exact) == ["True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"]
    assert exact["True.Values"] == pytest.approx(-1.0, abs=1e-12)
    assert exact["Bounded.Sensitivities"] == pytest.approx(88.8889, abs=1e-4)
    assert exact["Unbounded.Sensitivities"] == pytest.approx(122.3858, abs=1e-4)
    approx = pooledCovDataAccess(POOLED_COV_SAMPLES, -10, 10, -10, 10, True)
    assert approx["Bounded.Sensitivities"] == pytest.approx(133.3333, abs=1e-4)
    assert approx["Unbounded.Sensitivities"] == exact["Unbounded.Sensitivities"]


def test_pooled_cov_uses_both_ranges():
    """R = (U1 - L1)(U2 - L2): halving the second range halves every sensitivity."""
    full = pooledCovDataAccess(POOLED_COV_SAMPLES, -10, 10, -10, 10, False)
    half = pooledCovDataAccess(POOLED_COV_SAMPLES, -10, 10, -5, 5, False)
    for key in ("Bounded.Sensitivities", "Unbounded.Sensitivities"):
        assert half[key] == pytest.approx(full[key] / 2, rel=1e-12)


def test_pooled_cov_accepts_data_frames():
    frames = [pd.DataFrame(s, columns=["a", "b"]) for s in POOLED_COV_SAMPLES]
    result = pooledCovDataAccess(frames, -10, 10, -10, 10, False)
    assert result["True.Values"] == pytest.approx(-1.0, abs=1e-12)


def test_quantile_reference():
    result = quantileDataAccess([1, 1, -2, 8, -6], 0.25, -10, 10)
    assert list(result) == ["Utility", "Sorted", "Sensitivity"]
    np.testing.assert_allclose(result["Utility"], [-1.25, -0.25, -0.75, -1.75, -2.75, -3.75],
                               atol=1e-12)
    np.testing.assert_array_equal(result["Sorted"], [-10, -6, -2, 1, 1, 8, 10])
    assert result["Sensitivity"] == 1


def test_quantile_clips_its_sorted_copy():
    x = np.array([15.0, -20.0, 3.0, 11.0, -1.0])
    before = x.copy()
    result = quantileDataAccess(x, 0.5, -10, 10)
    np.testing.assert_array_equal(result["Sorted"], [-10, -10, -1, 3, 10, 10, 10])
    np.testing.assert_array_equal(x, before)


def test_quantile_matrix_is_flattened():
    result = quantileDataAccess(np.array([[3.0, 1.0], [2.0, 4.0]]), 0.5, 0, 5)
    np.testing.assert_array_equal(result["Sorted"], [0, 1, 2, 3, 4, 5])
    np.testing.assert_allclose(result["Utility"], [-2, -1, 0, -1, -2])


# --------------------------------------------------------------------------------------------
# No clipping, no mutation, containers
# --------------------------------------------------------------------------------------------


def test_mean_var_cov_do_not_clip():
    """DPpack's data access does not clip (R/DataAccess.R): data outside the bounds count as
    they are."""
    x = np.array([-10.0, 0.0, 1.0, 20.0])
    assert meanDataAccess(x, 0, 1)["True.Values"] == pytest.approx(2.75)
    assert varDataAccess(x, 0, 1)["True.Values"] == pytest.approx(np.var(x, ddof=1))
    y = np.array([1.0, -3.0, 2.0, 5.0])
    assert covDataAccess(x, y, 0, 1, 0, 1)["True.Values"] == pytest.approx(np.cov(x, y)[0, 1])
    pooled = pooledVarDataAccess([x, y], 0, 1, False)["True.Values"]
    assert pooled == pytest.approx((np.var(x, ddof=1) + np.var(y, ddof=1)) / 2)


def test_histogram_does_not_clip():
    result = histogramDataAccess([-5.0, 0.5, 0.7, 12.0], [-10, 0, 10, 20], "Laplace")
    np.testing.assert_array_equal(result["True.Values"].counts, [1, 2, 1])


def test_mean_matrix_counts_every_entry():
    result = meanDataAccess(np.array([[1.0, 2.0], [3.0, 6.0]]), 0, 8)
    assert result["True.Values"] == pytest.approx(3.0)
    assert result["Sensitivity"] == pytest.approx(2.0)


def test_large_data_match_numpy():
    """The block-wise cores agree with numpy beyond one block (64 Ki values)."""
    x = np.random.default_rng(3).normal(size=200_001)
    assert meanDataAccess(x, -10, 10)["True.Values"] == pytest.approx(np.mean(x), rel=1e-12)
    assert varDataAccess(x, -10, 10)["True.Values"] == pytest.approx(np.var(x, ddof=1),
                                                                    rel=1e-12)


def test_pandas_and_integer_inputs():
    series = pd.Series([1, 4, 3, 2], index=[10, 11, 12, 13])
    assert meanDataAccess(series, 0, 5)["True.Values"] == pytest.approx(2.5)
    assert varDataAccess(np.array([1, 4, 3, 2]), 0, 5)["True.Values"] == pytest.approx(5 / 3)


def test_inputs_are_not_modified():
    x = np.array([-4.0, 1.0, 9.0, 2.0])
    y = np.array([3.0, -8.0, 1.0, 7.0])
    samples = [x.copy(), y.copy()]
    copies = [x.copy(), y.copy(), [s.copy() for s in samples]]
    meanDataAccess(x, 0, 5)
    varDataAccess(x, 0, 5)
    covDataAccess(x, y, 0, 5, -5, 5)
    histogramDataAccess(x, "Sturges", "Laplace")
    quantileDataAccess(x, 0.3, 0, 5)
    pooledVarDataAccess(samples, 0, 5, False)
    np.testing.assert_array_equal(x, copies[0])
    np.testing.assert_array_equal(y, copies[1])
    for sample, copy in zip(samples, copies[2]):
        np.testing.assert_array_equal(sample, copy)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def test_table_one_factor():
    factor = pd.Series(["b", "a", "b", "c"], name="type")
    result = tableDataAccess(factor)
    counts = result["True.Values"]
    assert isinstance(counts, pd.Series)
    assert counts.index.tolist() == ["a", "b", "c"]
    assert counts.index.name == "type"
    assert counts.tolist() == [1, 2, 1]
    assert result["Bounded.Sensitivities"] == 2
    assert result["Unbounded.Sensitivities"] == 1


def test_table_two_factors():
    rows = pd.Series(["x", "y", "x", "x"], name="row")
    cols = ["u", "v", "v", "v"]  # no name: a list
    counts = tableDataAccess(rows, cols, mechanism="Gaussian")
    table = counts["True.Values"]
    assert isinstance(table, pd.DataFrame)
    assert table.index.tolist() == ["x", "y"] and table.index.name == "row"
    assert table.columns.tolist() == ["u", "v"] and table.columns.name is None
    np.testing.assert_array_equal(table.to_numpy(), [[1, 2], [0, 1]])
    assert counts["Bounded.Sensitivities"] == pytest.approx(math.sqrt(2))


def test_table_three_factors_and_unused_levels():
    a = pd.Categorical(["p", "q", "p"], categories=["p", "q", "r"])  # "r" unused
    b = pd.Series([1, 2, 2], name="B")
    c = ["s", "s", "t"]
    table = tableDataAccess(a, b, c)["True.Values"]
    assert isinstance(table, pd.Series)
    assert isinstance(table.index, pd.MultiIndex)
    assert list(table.index.names) == [None, "B", None]
    assert table.index.levshape == (3, 2, 2)
    # First factor varies slowest.
    assert table.index[:4].tolist() == [("p", 1, "s"), ("p", 1, "t"), ("p", 2, "s"),
                                        ("p", 2, "t")]
    assert table[("p", 1, "s")] == 1
    assert table[("q", 2, "s")] == 1
    assert table[("p", 2, "t")] == 1
    assert table.loc["r"].sum() == 0 and table.sum() == 3


# --------------------------------------------------------------------------------------------
# Validation (DPpack checks nothing in its data access; these are ours, with the messages of
# the private statistics)
# --------------------------------------------------------------------------------------------

MECHANISM = "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}."


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda: meanDataAccess([1, 2], 0, [1, 2]), "Length of upper_bound must be 1.",
                     id="mean-ub-length"),
        pytest.param(lambda: meanDataAccess([1, 2], None, 1), "Length of lower_bound must be 1.",
                     id="mean-lb-null"),
        pytest.param(lambda: meanDataAccess([1, 2], 1, 1), "lower_bound must be < upper_bound.",
                     id="mean-lb-eq-ub"),
        pytest.param(lambda: meanDataAccess([1, 2], 0, np.inf),
                     "upper_bound must be a finite number.", id="mean-ub-inf"),
        pytest.param(lambda: meanDataAccess([1, 2], "a", 1),
                     "lower_bound must be a finite number.", id="mean-lb-str"),
        pytest.param(lambda: meanDataAccess([], 0, 1), "x must contain at least one value.",
                     id="mean-empty"),
        pytest.param(lambda: meanDataAccess(["a", "b"], 0, 1), "x must be numeric.",
                     id="mean-str"),
        pytest.param(lambda: meanDataAccess([1, np.nan], 0, 1),
                     "x must be finite (no NA, NaN or Inf).", id="mean-nan"),
        pytest.param(lambda: varDataAccess(np.ones((2, 2)), 0, 1), "x must be a numeric vector.",
                     id="var-matrix"),
        pytest.param(lambda: varDataAccess([1.0], 0, 2), "x must contain at least two values.",
                     id="var-one-value"),
        pytest.param(lambda: covDataAccess([1, 2, 3], [1, 2], 0, 5, 0, 5),
                     "x1 and x2 must have the same length.", id="cov-lengths"),
        pytest.param(lambda: covDataAccess([1, 2], [1, 2], 0, 5, 0, [5, 6]),
                     "Length of upper_bound2 must be 1.", id="cov-ub2-length"),
        pytest.param(lambda: histogramDataAccess([1, 2], "Sturges", "abc"), MECHANISM,
                     id="hist-mechanism"),
        pytest.param(lambda: histogramDataAccess([1, 2, np.inf], "Sturges", "Laplace"),
                     "x must be finite (no NA, NaN or Inf).", id="hist-inf"),
        pytest.param(lambda: histogramDataAccess([1, 2, 5], [0, 1, 2], "Laplace"),
                     "some 'x' not counted; maybe 'breaks' do not span range of 'x'",
                     id="hist-breaks"),
        pytest.param(lambda: tableDataAccess(["a"], mechanism="abc"), MECHANISM,
                     id="table-mechanism"),
        pytest.param(lambda: tableDataAccess(), "nothing to tabulate", id="table-empty"),
        pytest.param(lambda: tableDataAccess(["a", "b"], ["c"]),
                     "all arguments must have the same length", id="table-lengths"),
        pytest.param(lambda: pooledVarDataAccess([[1, 2]], [0, 1], 5, False),
                     "Length of lower_bound must be 1.", id="pooled-var-lb-length"),
        pytest.param(lambda: pooledVarDataAccess([[1, 2], [3]], 0, 5, False),
                     "Every sample must contain at least two values.", id="pooled-var-short"),
        pytest.param(lambda: pooledVarDataAccess([], 0, 5, False),
                     "At least one sample is required.", id="pooled-var-none"),
        pytest.param(lambda: pooledVarDataAccess([[1, 2]], 0, 5, "yes"),
                     "approx_n_max must be True or False.", id="pooled-var-flag"),
        pytest.param(lambda: pooledCovDataAccess([[1, 2, 3]], 0, 5, 0, 5, False),
                     "Every sample must be a numeric matrix with two columns.",
                     id="pooled-cov-vector"),
        pytest.param(lambda: pooledCovDataAccess([np.array([[1, np.nan], [2, 3]])], 0, 5, 0, 5,
                                                 False),
                     "Samples must be finite (no NA, NaN or Inf).", id="pooled-cov-nan"),
        pytest.param(lambda: pooledCovDataAccess([np.ones((2, 2))], 0, 5, [0, 1], 5, False),
                     "Length of lower_bound2 must be 1.", id="pooled-cov-lb2-length"),
        pytest.param(lambda: quantileDataAccess([1, 2], 1.5, 0, 5),
                     "quant must be between 0 and 1.", id="quantile-quant"),
        pytest.param(lambda: quantileDataAccess([1, 2], [0.2, 0.3], 0, 5),
                     "Length of quant must be 1.", id="quantile-quant-length"),
    ],
)
def test_validation(call, message):
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        call()


@pytest.mark.parametrize("size", [7, 150_001])
def test_cores_clip_block_wise(size):
    """The statistics' cores (private) give the mean and variance of the clipped data with or
    without the sum from the caller's range scan, within one block and across blocks."""
    from dppack import data_access

    x = np.random.default_rng(size).normal(size=size)
    clipped = np.clip(x, -0.5, 1.0)
    total = float(clipped.sum())
    for kwargs in (dict(clip=True), dict(clip=True, total=total)):
        mean = data_access.mean_access(x, -0.5, 1.0, **kwargs)["True.Values"]
        assert mean == pytest.approx(clipped.mean(), rel=1e-12)
        var = data_access.var_access(x, -0.5, 1.0, **kwargs)["True.Values"]
        assert var == pytest.approx(clipped.var(ddof=1), rel=1e-12)
