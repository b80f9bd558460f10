"""The statistics on Dask (issue 14, part "dask-stats"): meanDP ... tableDP and the matching
data-access functions take Dask arrays, Series and DataFrame columns and give the in-memory
release.

Each statistic on Dask is compared with the same call on the same data in memory, with the
same ``random_state``: the sampler calls are the same, so the releases agree up to the
floating-point order of the sums (rel 1e-10; in practice they are equal). No test here is
randomised beyond fixed seeds: the data and every draw come from fixed seeds, so each test is
deterministic (false-failure rate 0). Every call is counted: one ``dask.compute`` per call
(one pass), none before the argument checks, none for refused arguments.
"""

import math

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
from dask_checks import ComputeCounter  # noqa: E402

import dppack  # noqa: E402
from dppack import data_access  # noqa: E402
from dppack.accounting import BudgetAccountant  # noqa: E402
from dppack.dask import _moments as moments  # noqa: E402

N = 3_001
LOWER, UPPER = 0.0, 10.0
MECHANISMS = [
    pytest.param(dict(mechanism="Laplace"), id="Laplace"),
    pytest.param(dict(mechanism="Gaussian", delta=1e-6, eps=0.5), id="Gaussian"),
    pytest.param(dict(mechanism="Gaussian", delta=1e-6, type_DP="pDP"), id="Gaussian-pDP"),
    pytest.param(dict(mechanism="analytic", delta=1e-6), id="analytic"),
]
WHICH = ["bounded", "unbounded", "both"]


def _data(seed=0, n=N):
    """Normal values around the middle of [0, 10], about 10% outside it (clipped)."""
    rng = np.random.default_rng(seed)
    return rng.normal(5.0, 3.0, n)


def _uneven(values):
    """A Dask array of uneven chunks (one of a single value)."""
    n = values.size
    chunks = (1, n // 3, n - 1 - n // 3 - n // 5, n // 5) if n >= 5 else (n,)
    assert sum(chunks) == n and min(chunks) >= 0
    return da.from_array(values, chunks=(chunks,))


def _unknown(values):
    """A Dask array whose chunk sizes are unknown (NaN) until computed: a boolean mask."""
    array = da.from_array(values, chunks=777)
    return array[array > -np.inf]


def _column(values, name="x"):
    """A Dask DataFrame column (partitions of unknown size to the statistic)."""
    return dd.from_pandas(pd.DataFrame({name: values}), npartitions=4)[name]


KINDS = [
    pytest.param(_uneven, id="uneven-chunks"),
    pytest.param(_unknown, id="unknown-chunks"),
    pytest.param(_column, id="dataframe-column"),
]


@pytest.fixture
def computes():
    counter = ComputeCounter()
    with counter:
        yield counter


def _close(a, b, rel=1e-10):
    """The same release: floats to ``rel``, dicts key by key."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _close(a[key], b[key], rel)
        return
    if isinstance(a, dppack.rcompat.Histogram):
        _same_histogram(a, b)
        return
    assert b == pytest.approx(a, rel=rel, abs=1e-300)


# --------------------------------------------------------------------------------------------
# mean, var, sd: the same release as in memory, one pass
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("statistic", [dppack.meanDP, dppack.varDP, dppack.sdDP],
                         ids=["mean", "var", "sd"])
@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_moments_equal_memory(statistic, which, mechanism, computes):
    x = _data()
    arguments = dict(eps=1.0, lower_bound=LOWER, upper_bound=UPPER, which_sensitivity=which,
                     random_state=7)
    arguments.update(mechanism)
    expected = statistic(x, **arguments)
    computes.count = 0
    got = statistic(_uneven(x), **arguments)
    assert computes.count == 1  # one pass
    _close(expected, got)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("statistic", [dppack.meanDP, dppack.varDP], ids=["mean", "var"])
def test_moments_any_chunks(kind, statistic, computes):
    x = _data(1)
    arguments = dict(eps=0.5, lower_bound=LOWER, upper_bound=UPPER, which_sensitivity="both",
                     random_state=3)
    expected = statistic(x, **arguments)
    computes.count = 0
    _close(expected, statistic(kind(x), **arguments))
    assert computes.count == 1


def test_true_values_agree_with_memory():
    """The non-noisy parts, directly: the exact grid sums (``dppack._exact_sums``) merged
    from uneven blocks give the in-memory exact values, identical (integers and exact
    rationals, not up to the order of float sums), on data far from 0; and they are the
    exact statistics of the rounded records (``fractions.Fraction``)."""
    from fractions import Fraction

    from dppack import _access_cores, _exact_sums, _memory

    x = 1e6 + _data(2)
    lower, upper = 1e6 - 5, 1e6 + 15
    sample = moments.Sample(_uneven(x), "x", lower, upper, "both", 2, variance=True)
    memory = _memory.MemorySample(x, lower, upper, 2, squares=True)
    assert sample.var_exact() == memory.var_exact()
    assert sample.mean_exact() == memory.mean_exact()
    centred, expected = sample.centred_exact(), memory.centred_exact()
    assert centred["True.Values"] == expected["True.Values"]
    np.testing.assert_array_equal(centred["Sensitivities"], expected["Sensitivities"])
    k, _ = _exact_sums.data_grid(lower, upper)
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    rounded = [origin + Fraction(2) ** k * int(q)
               for q in _exact_sums.to_grid(x, lower, upper)]
    mean = sum(rounded) / len(rounded)
    assert _exact_sums.to_fraction(sample.mean_exact()["True.Values"]) == mean
    variance = sum((r - mean) ** 2 for r in rounded) / (len(rounded) - 1)
    assert _exact_sums.to_fraction(sample.var_exact()["True.Values"]) == variance
    assert _access_cores.mean_exact(1, 0, lower, upper)["Sensitivity"] >= upper - lower


def test_a_matrix_is_averaged_over_all_its_entries():
    x = _data(3).reshape(-1, 1)[:3000].reshape(1000, 3)
    dx = da.from_array(x, chunks=(300, 2))
    assert dppack.meanDP(dx, 1.0, 0, 10, random_state=1) == pytest.approx(
        dppack.meanDP(x, 1.0, 0, 10, random_state=1), rel=1e-10)
    with pytest.raises(ValueError, match="^x must be a numeric vector.$"):
        dppack.varDP(dx, 1.0, 0, 10)


# --------------------------------------------------------------------------------------------
# covariance and the pooled statistics
# --------------------------------------------------------------------------------------------


def _pair(seed=4, n=N):
    x = _data(seed, n)
    return x, 0.5 * x + np.random.default_rng(seed + 1).normal(0.0, 2.0, n)


COV_BOUNDS = dict(lower_bound1=0.0, upper_bound1=10.0, lower_bound2=-2.0, upper_bound2=8.0)


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_cov_equal_memory(which, mechanism, computes):
    x1, x2 = _pair()
    arguments = dict(eps=1.0, which_sensitivity=which, random_state=11, **COV_BOUNDS)
    arguments.update(mechanism)
    expected = dppack.covDP(x1, x2, **arguments)
    frame = dd.from_pandas(pd.DataFrame({"a": x1, "b": x2}), npartitions=5)
    for first, second in [(frame["a"], frame["b"]),  # one frame's columns, sizes unknown
                          (da.from_array(x1, chunks=999), da.from_array(x2, chunks=1500)),
                          (_uneven(x1), x2)]:  # one of them in memory
        computes.count = 0
        _close(expected, dppack.covDP(first, second, **arguments))
        assert computes.count == 1


def _samples(seed=5):
    rng = np.random.default_rng(seed)
    return [rng.normal(5.0, 3.0, n) for n in (1_000, 2_345, 77)]


@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_pooled_equal_memory(which, mechanism, computes):
    samples = _samples()
    arguments = dict(eps=1.0, which_sensitivity=which, random_state=13)
    arguments.update(mechanism)
    dask_samples = [_uneven(samples[0]), _column(samples[1]), samples[2]]
    expected = dppack.pooledVarDP(*samples, lower_bound=0, upper_bound=10, **arguments)
    computes.count = 0
    _close(expected, dppack.pooledVarDP(*dask_samples, lower_bound=0, upper_bound=10,
                                        **arguments))
    assert computes.count == 1  # one pass for all the samples

    rng = np.random.default_rng(6)
    pairs = [np.column_stack([s, 0.3 * s + rng.normal(0, 1, s.size)]) for s in samples]
    frame = dd.from_pandas(pd.DataFrame(pairs[1], columns=["a", "b"]), npartitions=3)
    dask_pairs = [da.from_array(pairs[0], chunks=(300, 1)), frame, pairs[2]]
    expected = dppack.pooledCovDP(*pairs, lower_bound1=0, upper_bound1=10, lower_bound2=-1,
                                  upper_bound2=5, **arguments)
    computes.count = 0
    _close(expected, dppack.pooledCovDP(*dask_pairs, lower_bound1=0, upper_bound1=10,
                                        lower_bound2=-1, upper_bound2=5, **arguments))
    assert computes.count == 1


# --------------------------------------------------------------------------------------------
# histogram
# --------------------------------------------------------------------------------------------


def _same_histogram(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same_histogram(a[key], b[key])
        return
    np.testing.assert_array_equal(a.breaks, b.breaks)
    np.testing.assert_array_equal(a.mids, b.mids)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.privacy_ == b.privacy_


@pytest.mark.parametrize("breaks", ["Sturges", "FD", 7, [0.0, 2.5, 5.0, 7.5, 10.0]],
                         ids=["Sturges", "FD", "cells", "points"])
@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_histogram_equal_memory(breaks, which, mechanism, computes):
    x = _data(8)
    arguments = dict(eps=1.0, lower_bound=LOWER, upper_bound=UPPER, breaks=breaks,
                     which_sensitivity=which, random_state=17)
    arguments.update(mechanism)
    expected = dppack.histogramDP(x, **arguments)
    computes.count = 0
    _same_histogram(expected, dppack.histogramDP(_uneven(x), **arguments))
    # One pass; a rule under unbounded DP needs the private n first: a second pass counts
    # (for 'both', none if the private n gives the bounded version's breaks, counted already).
    if not isinstance(breaks, str) or which == "bounded":
        assert computes.count == 1
    else:
        assert computes.count in ((2,) if which == "unbounded" else (1, 2))


@pytest.mark.parametrize("kind", KINDS)
def test_histogram_any_chunks(kind, computes):
    x = _data(9)
    for breaks in ("Sturges", [0.0, 5.0, 10.0]):
        arguments = dict(eps=1.0, lower_bound=LOWER, upper_bound=UPPER, breaks=breaks,
                         random_state=2, normalize=True)
        computes.count = 0
        _same_histogram(dppack.histogramDP(x, **arguments),
                        dppack.histogramDP(kind(x), **arguments))
        # A rule needs n, which unknown chunks give only after a pass: then a second pass.
        known = kind is _uneven or not isinstance(breaks, str)
        assert computes.count == (1 if known else 2)


def test_values_on_the_breaks_fall_in_the_same_cells():
    # Integers on the breaks (and the bounds) meet R's fuzz in every block alike.
    x = np.repeat(np.arange(0.0, 11.0), 37)
    arguments = dict(eps=1.0, lower_bound=0, upper_bound=10, breaks=[0, 2, 4, 6, 8, 10],
                     random_state=4)
    _same_histogram(dppack.histogramDP(x, **arguments),
                    dppack.histogramDP(da.from_array(x, chunks=50), **arguments))


# --------------------------------------------------------------------------------------------
# table
# --------------------------------------------------------------------------------------------


def _factors(seed=10, n=N):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "sex": pd.Categorical(rng.choice(["f", "m"], n), categories=["m", "f", "x"]),
        "group": pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c"]),
        "city": rng.choice(["Ames", "Bonn", "Cork"], n, p=[0.5, 0.499, 0.001]),
        "score": rng.integers(0, 4, n).astype(float),
    })


TABLES = [
    pytest.param(["sex"], {}, id="declared"),
    pytest.param(["sex", "group"], {}, id="declared-2"),
    pytest.param(["sex", "city"], {"delta": 1e-5}, id="mixed"),
    pytest.param(["city", "score", "group"], {"delta": 1e-5}, id="undeclared-3"),
]


@pytest.mark.parametrize("columns, extra", TABLES)
@pytest.mark.parametrize("which", WHICH)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_table_equal_memory(columns, extra, which, mechanism, computes):
    frame = _factors()
    arguments = dict(eps=1.0, which_sensitivity=which, random_state=19)
    arguments.update(extra)
    arguments.update(mechanism)
    expected = dppack.tableDP(*[frame[c] for c in columns], **arguments)
    dask_frame = dd.from_pandas(frame, npartitions=4)
    forms = [[dask_frame[c] for c in columns], [dask_frame[columns]]]
    if extra:  # the threshold's search is in-memory code and slow for the Gaussian: one form
        forms = forms[len(columns) % 2:][:1]
    for factors in forms:
        computes.count = 0
        got = dppack.tableDP(*factors, **arguments)
        assert computes.count == 1
        if which != "both":
            expected, got = {"": expected}, {"": got}
        for key in expected:
            pd.testing.assert_series_equal(expected[key], got[key]) if isinstance(
                expected[key], pd.Series) else pd.testing.assert_frame_equal(expected[key],
                                                                             got[key])
        if which != "both":
            expected = expected[""]


def test_table_refuses_missing_values_and_undeclared_levels_without_delta(computes):
    frame = _factors()
    frame.loc[17, "city"] = None
    dask_frame = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(ValueError, match="Factors must not contain missing values"):
        dppack.tableDP(dask_frame["city"], eps=1.0, delta=1e-5)
    computes.count = 0
    with pytest.raises(ValueError, match="Declare the levels"):  # Laplace, delta 0: no pass
        dppack.tableDP(dask_frame["city"], eps=1.0)
    assert computes.count == 0
    categorical = dask_frame["sex"].where(dask_frame["group"] != "a")  # NaN in a factor
    with pytest.raises(ValueError, match="Factors must not contain missing values"):
        dppack.tableDP(categorical, eps=1.0)


def test_table_merges_numbers_r_prints_alike():
    # 0.1 + 0.2 and 0.3 are distinct values in the pass, one level in R (15 digits): their
    # counts add up on the driver, as in memory.
    values = pd.Series([0.1 + 0.2, 0.3, 1.0, 0.3] * 50, name="v")
    on_dask = dd.from_pandas(values, npartitions=3)
    expected = dppack.tableDataAccess(values)["True.Values"]
    assert expected.to_dict() == {0.3: 150, 1.0: 50}
    pd.testing.assert_series_equal(expected, dppack.tableDataAccess(on_dask)["True.Values"])
    pd.testing.assert_series_equal(
        dppack.tableDP(values, eps=1.0, delta=1e-3, random_state=2),
        dppack.tableDP(on_dask, eps=1.0, delta=1e-3, random_state=2))


def test_table_accountant_and_data_access():
    frame = _factors()
    dask_frame = dd.from_pandas(frame, npartitions=3)
    for factors, extra in (((frame["sex"],), {}), ((frame["city"],), {"delta": 1e-6})):
        charges = []
        for data in (factors, tuple(dask_frame[f.name] for f in factors)):
            accountant = BudgetAccountant(10.0, 1e-3)
            dppack.tableDP(*data, eps=1.0, random_state=1, accountant=accountant, **extra)
            charges.append(accountant.ledger)
        assert charges[0] == charges[1]
    expected = dppack.tableDataAccess(frame["sex"], frame["score"], mechanism="Gaussian")
    got = dppack.tableDataAccess(dask_frame["sex"], dask_frame["score"], mechanism="Gaussian")
    pd.testing.assert_frame_equal(expected["True.Values"], got["True.Values"])
    assert expected["Bounded.Sensitivities"] == got["Bounded.Sensitivities"]


# --------------------------------------------------------------------------------------------
# The data-access functions
# --------------------------------------------------------------------------------------------


def _same_access(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], dppack.rcompat.Histogram):
            _same_histogram_values(a[key], b[key])
        else:
            assert b[key] == pytest.approx(a[key], rel=1e-10, nan_ok=True)


def _same_histogram_values(a, b):
    for field in ("breaks", "counts", "mids"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.equidist == b.equidist


def test_data_access_equal_memory(computes):
    x1, x2 = _pair(12)
    samples = _samples(13)
    pairs = [np.column_stack([s, s[::-1]]) for s in samples]
    cases = [
        (dppack.meanDataAccess, (x1, 0, 10), (_uneven(x1), 0, 10)),
        (dppack.varDataAccess, (x1, 0, 10), (_column(x1), 0, 10)),
        (dppack.covDataAccess, (x1, x2, 0, 10, -2, 8), (_uneven(x1), _uneven(x2), 0, 10, -2, 8)),
        (dppack.pooledVarDataAccess, (samples, 0, 10, False),
         ([_uneven(samples[0]), samples[1], _column(samples[2])], 0, 10, False)),
        (dppack.pooledCovDataAccess, (pairs, 0, 10, 0, 10, True),
         ([da.from_array(p, chunks=(400, 2)) for p in pairs], 0, 10, 0, 10, True)),
    ]
    for function, memory, on_dask in cases:
        computes.count = 0
        _same_access(function(*memory), function(*on_dask))
        assert computes.count == 1, function.__name__
    for breaks in ("Sturges", 5, [-20.0, 0.0, 10.0, 30.0]):
        _same_access(dppack.histogramDataAccess(x1, breaks, "Laplace"),
                     dppack.histogramDataAccess(_unknown(x1), breaks, "Laplace"))
    with pytest.raises(ValueError, match="On Dask data, histogramDataAccess takes"):
        dppack.histogramDataAccess(_uneven(x1), "Scott", "Laplace")


def test_data_access_does_not_clip():
    x = _data(14)
    assert dppack.meanDataAccess(_uneven(x), 2, 3)["True.Values"] == pytest.approx(x.mean(),
                                                                                    rel=1e-12)


# --------------------------------------------------------------------------------------------
# Checks: the same messages; no pass for refused arguments; data checks before any noise
# --------------------------------------------------------------------------------------------


def _calls(x):
    """One call of every statistic (on x, or samples/pairs made of it) with valid
    arguments."""
    return [
        lambda **k: dppack.meanDP(x, **{**dict(eps=1.0, lower_bound=0, upper_bound=10), **k}),
        lambda **k: dppack.varDP(x, **{**dict(eps=1.0, lower_bound=0, upper_bound=10), **k}),
        lambda **k: dppack.sdDP(x, **{**dict(eps=1.0, lower_bound=0, upper_bound=10), **k}),
        lambda **k: dppack.histogramDP(x, **{**dict(eps=1.0, lower_bound=0, upper_bound=10),
                                             **k}),
        lambda **k: dppack.pooledVarDP(x, x, **{**dict(lower_bound=0, upper_bound=10), **k}),
    ]


def _message(call):
    try:
        call()
    except (ValueError, TypeError) as error:
        return type(error), str(error)
    return None


@pytest.mark.parametrize("bad", [
    pytest.param(dict(lower_bound=10, upper_bound=0), id="bounds-reversed"),
    pytest.param(dict(upper_bound=math.inf), id="bound-infinite"),
    pytest.param(dict(upper_bound=[1, 2]), id="bound-length"),
    pytest.param(dict(which_sensitivity="neither"), id="which"),
    pytest.param(dict(mechanism="Cauchy"), id="mechanism"),
    pytest.param(dict(eps=-1.0), id="eps"),
    pytest.param(dict(mechanism="Gaussian", delta=0), id="delta"),
])
def test_bad_arguments_same_error_and_no_pass(bad, computes):
    x = _data(15)
    for memory, on_dask in zip(_calls(x), _calls(_uneven(x))):
        expected = _message(lambda: memory(**bad))
        assert expected is not None
        computes.count = 0
        accountant = BudgetAccountant(100.0, 0.5)
        assert _message(lambda: on_dask(**bad, accountant=accountant)) == expected
        assert computes.count == 0  # refused before any pass over the data
        assert accountant.ledger == []


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_data_same_message(value, computes):
    x = _data(16)
    x[1234] = value
    for memory, on_dask in zip(_calls(x), _calls(_column(x))):
        expected = _message(memory)
        assert expected == (ValueError, "x must be finite (no NA, NaN or Inf).") or (
            expected == (ValueError, "Samples must be finite (no NA, NaN or Inf)."))
        accountant = BudgetAccountant(100.0, 0.5)
        assert _message(lambda: on_dask(accountant=accountant)) == expected
        assert accountant.ledger == []  # nothing spent: refused before any draw
    x1, x2 = _pair(17)
    x2[5] = np.nan
    expected = _message(lambda: dppack.covDP(x1, x2, 1.0, **COV_BOUNDS))
    assert expected == (ValueError, "x2 must be finite (no NA, NaN or Inf).")
    assert _message(lambda: dppack.covDP(_column(x1), _column(x2), 1.0, **COV_BOUNDS)) == (
        expected)


def test_no_draw_before_the_data_checks(monkeypatch):
    """The finiteness check comes from the pass, and still before any noise: the samplers are
    never called for data that are refused."""
    from dppack import _random

    def refuse(*args, **kwargs):
        raise AssertionError("noise drawn before the data checks")

    for name in ("discrete_laplace_noise", "discrete_gaussian"):
        if hasattr(_random, name):
            monkeypatch.setattr(_random, name, refuse)
    x = _data(18)
    x[3] = np.nan
    for call in _calls(_column(x)):
        assert "must be finite" in _message(call)[1]


@pytest.mark.parametrize("which", ["bounded", "unbounded"])
def test_empty_data(which):
    empty = np.zeros(0)
    on_dask = da.from_array(empty, chunks=1)
    for memory, dask_call in zip(_calls(empty)[:4], _calls(on_dask)[:4]):
        expected = _message(lambda: memory(which_sensitivity=which, random_state=1))
        if expected is None:  # unbounded: n private, released (n = 0)
            _close(memory(which_sensitivity=which, random_state=1),
                   dask_call(which_sensitivity=which, random_state=1))
        else:
            assert _message(lambda: dask_call(which_sensitivity=which)) == expected
    empty_column = _column(empty)
    assert _message(lambda: dppack.meanDP(empty_column, 1.0, 0, 10)) == (
        ValueError, "x must contain at least one value.")


def test_not_numeric_same_message(computes):
    words = dd.from_pandas(pd.DataFrame({"x": ["a", "b", "c"]}), npartitions=2)["x"]
    computes.count = 0
    assert _message(lambda: dppack.meanDP(words, 1.0, 0, 10)) == (
        ValueError, "x must be numeric.")
    assert _message(lambda: dppack.covDP(words, words, 1.0, **COV_BOUNDS)) == (
        ValueError, "x1 must be numeric.")
    assert computes.count == 0


def test_unequal_lengths(computes):
    x1, x2 = _pair(19)
    expected = (ValueError, "x1 and x2 must have the same length.")
    computes.count = 0
    assert _message(lambda: dppack.covDP(_uneven(x1), _uneven(x2[:-1]), 1.0,
                                         **COV_BOUNDS)) == expected
    assert computes.count == 0  # known chunks: refused without a pass
    frame = dd.from_pandas(pd.DataFrame({"a": x1}), npartitions=3)
    shorter = dd.from_pandas(pd.DataFrame({"b": x2[:-7]}), npartitions=3)
    assert _message(lambda: dppack.covDP(frame["a"], shorter["b"], 1.0,
                                         **COV_BOUNDS)) == expected
    # The same length in blocks of other sizes (4 each): not "unequal", but misaligned.
    assert _message(lambda: dppack.covDP(_uneven(x1), _column(x2), 1.0, **COV_BOUNDS)) == (
        ValueError, moments.MISALIGNED)


@pytest.mark.parametrize("statistic", ["meanDP", "varDP", "covDP", "pooledVarDP",
                                       "histogramDP", "tableDP"])
@pytest.mark.parametrize("which", WHICH)
def test_accountant_charged_identically(statistic, which):
    x1, x2 = _pair(20)
    frame = _factors()
    calls = {
        "meanDP": lambda f: dppack.meanDP(f(x1), 0.5, 0, 10, which_sensitivity=which,
                                          mechanism="Gaussian", delta=1e-6,
                                          random_state=1, accountant=accountant),
        "varDP": lambda f: dppack.varDP(f(x1), 0.5, 0, 10, which_sensitivity=which,
                                        random_state=1, accountant=accountant),
        "covDP": lambda f: dppack.covDP(f(x1), f(x2), 1.0, which_sensitivity=which,
                                        random_state=1, accountant=accountant, **COV_BOUNDS),
        "pooledVarDP": lambda f: dppack.pooledVarDP(f(x1), f(x2), lower_bound=0,
                                                    upper_bound=10, which_sensitivity=which,
                                                    random_state=1, accountant=accountant),
        "histogramDP": lambda f: dppack.histogramDP(f(x1), 1.0, 0, 10,
                                                    which_sensitivity=which,
                                                    mechanism="analytic", delta=1e-6,
                                                    random_state=1, accountant=accountant),
        "tableDP": lambda f: dppack.tableDP(
            frame["sex"] if f is np.asarray else dd.from_pandas(frame, npartitions=2)["sex"],
            eps=1.0, which_sensitivity=which, random_state=1, accountant=accountant),
    }
    ledgers = []
    for convert in (np.asarray, _uneven):
        accountant = BudgetAccountant(100.0, 0.5)
        calls[statistic](convert)
        ledgers.append(accountant.ledger)
    assert ledgers[0] == ledgers[1] and len(ledgers[0]) == 1


def test_the_caller_data_are_not_changed():
    x = _data(21)
    copy = x.copy()
    dx = _uneven(x)
    dppack.meanDP(dx, 1.0, 0, 10, random_state=1)
    dppack.histogramDP(dx, 1.0, 0, 10, random_state=1)
    np.testing.assert_array_equal(x, copy)
