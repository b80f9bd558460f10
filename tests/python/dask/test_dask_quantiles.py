"""quantileDP and medianDP on Dask data (issue 14; ``dppack.dask._quantiles``).

What is checked:

* the candidates: the runs of grid points built from the cell counts of one pass are exactly
  the non-empty intervals of the in-memory quantile on the data rounded to the cells (their
  ranks, widths and starts; deterministic), for continuous data, ties, data beyond the bounds,
  one constant, and no data;
* the law of the release: the released interval against the exact exponential-mechanism
  probabilities (chi-square), on data that lie on the cells (so the law is the in-memory
  one), and the release on continuous data against the in-memory release (two-sample KS on
  the errors, 200 seeds each; their medians are the accuracy statement of the NEWS);
* uneven, unknown and one-value chunks, Dask Series and DataFrames, matrices: the same counts,
  so the same release for the same random_state; one compute per call;
* the checks: the in-memory messages; no compute for the errors found without the data; the
  data errors (NaN, Inf, empty with unknown chunks) after the one pass, before any draw
  (the generator untouched) and before the charge; the accountant's entry; 'both' and
  'unbounded' (empty data accepted).

Statistical tests: each at significance ALPHA = 0.001 with a fixed seed (deterministic); under
a fresh seed each would reject a correct implementation with probability 0.001 (about 0.3 %
for the three together). The power test shows the chi-square check rejects eps off by 30 %.
"""

import contextlib
import importlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from dask_quantile_checks import reuse_the_pass
from generator_checks import advanced_generator, raises_exactly, untouched_generator
from quantile_checks import _interval_index, _quantile_grid_law
from scipy import stats

from dppack import BudgetAccountant, PrivacyLoss, medianDP, quantileDP

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402

quantiles = importlib.import_module("dppack.dask._quantiles")
_QUANTILE = importlib.import_module("dppack.stats._quantile")

ALPHA = 0.001
SEED = 20261124


@contextlib.contextmanager
def counted_computes():
    """Run Dask with a synchronous scheduler that counts the graphs it computes."""
    calls = []

    def scheduler(graph, keys, **kwargs):
        calls.append(keys)
        return dask.get(graph, keys, **kwargs)

    with dask.config.set(scheduler=scheduler):
        yield calls


def _uneven(x, sizes):
    """A Dask array of ``x`` in chunks of the given sizes (they add up to len(x))."""
    assert sum(sizes) == len(x)
    return da.from_array(np.asarray(x, dtype=np.float64), chunks=(tuple(sizes),))


def _unknown(x, parts=3):
    """A Dask array of ``x`` whose chunk sizes are unknown (NaN), without a filter."""
    pieces = np.array_split(np.asarray(x, dtype=np.float64), parts)
    arrays = [da.from_delayed(dask.delayed(np.asarray)(p), shape=(np.nan,), dtype=np.float64)
              for p in pieces]
    out = da.concatenate(arrays)
    assert math.isnan(out.size)
    return out


def _cells(lower, upper):
    j, first, last = _QUANTILE._quantile_grid(lower, upper)
    return quantiles.Cells(j, first, last, quantiles.cell_shift(first, last))


def _round_to_cells(x, cells):
    """x rounded to the nearest multiple of the cells' width h = 2^(j + shift)."""
    exponent = cells.j + cells.shift
    return np.ldexp(np.rint(np.ldexp(np.asarray(x, dtype=np.float64), -exponent)), exponent)


def _memory_intervals(x, quant, lower, upper):
    """(ranks, widths, starts) of the non-empty intervals of the in-memory quantile (every
    interval, sorted data rounded to its grid and clipped) and the utilities of all n + 1."""
    j, first, last = _QUANTILE._quantile_grid(lower, upper)
    rounded = np.sort(_QUANTILE._to_grid(np.asarray(x, dtype=np.float64), j, first, last))
    edges = np.concatenate([[first], rounded, [last]]).astype(np.int64)
    widths = np.diff(edges)
    keep = widths > 0
    return np.arange(len(x) + 1)[keep], widths[keep], edges[:-1][keep]


RNG = np.random.default_rng(7)
DATASETS = {
    "continuous": (RNG.normal(0, 1, 5000), -3.0, 3.0),
    "beyond-bounds": (RNG.normal(0.5, 2, 3001), -1.0, 2.5),
    "ties": (RNG.integers(0, 8, 2000).astype(float), 0.0, 10.0),
    "constant": (np.full(700, 1.25), -2.0, 2.0),
    "one": (np.array([0.3]), 0.0, 1.0),
    "empty": (np.empty(0), 0.0, 1.0),
    "narrow-range": (1e6 + RNG.uniform(0, 1e-6, 999), 1e6, 1e6 + 1e-6),
    "huge-values": (np.array([-1e308, 5.0, 1e308, 7.5, 6.0]), 0.0, 10.0),
    # 1 / h beyond the doubles (the ldexp path), and values whose scaled value underflows
    "tiny-bounds": (RNG.uniform(-1e-306, 1e-305, 500), 0.0, 1e-305),
    "wide-bounds": (np.array([1e-310, -3e299, 5e299, 0.0, 1e300, 2.5e-300]), -1e300, 1e300),
}


@pytest.mark.parametrize("name", list(DATASETS))
def test_runs_are_the_in_memory_intervals_of_the_rounded_data(name):
    x, lower, upper = DATASETS[name]
    cells = _cells(lower, upper)
    sizes = [len(x)] if len(x) < 3 else [1, len(x) // 3, len(x) - 1 - len(x) // 3]
    occupied, counts = quantiles.cell_counts(_uneven(x, sizes), cells, "x", 0)
    assert counts.sum() == len(x) and np.all(counts > 0) and np.all(np.diff(occupied) > 0)
    assert cells.inner + 2 <= 2 ** quantiles.GRID_BITS + 2
    got = cells.runs(occupied, counts)
    with np.errstate(over="ignore"):
        expected = _memory_intervals(_round_to_cells(x, cells), 0.5, lower, upper)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    # The cells are public and fine: h <= (upper - lower) / 2^19.
    assert math.ldexp(1.0, cells.j + cells.shift) <= (upper - lower) / 2 ** 19


def test_integer_data_lie_on_the_cells():
    """Integers with h <= 1 are not moved: the runs are the in-memory intervals themselves."""
    x, lower, upper = DATASETS["ties"]
    cells = _cells(lower, upper)
    occupied, counts = quantiles.cell_counts(_unknown(x), cells, "x", 1)
    expected = _memory_intervals(x, 0.5, lower, upper)
    for a, b in zip(cells.runs(occupied, counts), expected):
        np.testing.assert_array_equal(a, b)


@pytest.fixture
def one_pass_per_dataset(monkeypatch):
    """For speed (thousands of calls): one pass per dataset (:func:`reuse_the_pass`)."""
    reuse_the_pass(monkeypatch)


@pytest.mark.parametrize("name", ["continuous", "beyond-bounds", "ties", "constant", "one",
                                  "empty"])
def test_counted_records_are_the_sorted_records(name):
    """The records of any ranks, and the number at or below any point, from the counts equal
    those of the in-memory quantile on the rounded data."""
    x, lower, upper = DATASETS[name]
    cells = _cells(lower, upper)
    occupied, counts = quantiles.cell_counts(_uneven(x, [len(x)]), cells, "x", 0)
    counted = quantiles.CountedRecords(cells.points(occupied), counts)
    rounded = _round_to_cells(x, cells)
    in_memory = _QUANTILE._SortedRecords(rounded, cells.j, cells.first, cells.last)
    n = len(x)
    assert counted.size == n
    rng = np.random.default_rng(1)
    pairs = [(0, n - 1), (0, -1), (n - 1, n - 1), (0, 0)] + [
        tuple(sorted(rng.integers(0, max(n, 1), 2))) for _ in range(20)]
    for low, high in pairs:
        if 0 <= low and high < n:
            np.testing.assert_array_equal(counted.ranked(low, high),
                                          in_memory.ranked(low, high))
    everything = in_memory.ranked(0, n - 1)
    points = np.concatenate([everything, everything - 1, everything + 1,
                             [cells.first, cells.last]])
    for point in rng.choice(points, 30):
        assert counted.at_most(int(point)) == in_memory.at_most(int(point))


def test_same_draws_as_in_memory_with_the_rejection_step():
    """A window of five candidates (forced, as in test_stats): most draws land in a union
    and go through the rejection step (at_most); the counted records give the same values
    as the in-memory records, draw for draw."""
    x = np.random.default_rng(5).integers(-8, 9, 30) / 8.0  # on the cells
    cells = _cells(-1.0, 1.0)
    occupied, counts = quantiles.cell_counts(_unknown(x), cells, "x", 1)
    counted = quantiles.CountedRecords(cells.points(occupied), counts)
    a, b = np.random.default_rng(SEED), np.random.default_rng(SEED)
    for _ in range(200):
        assert _QUANTILE.exact_quantile(counted, 0.3, 0.5, -1.0, 1.0, a, half=2.0) == (
            _QUANTILE.exact_quantile(x, 0.3, 0.5, -1.0, 1.0, b, half=2.0))
    assert a.bit_generator.state == b.bit_generator.state


SAME_CASES = [
    # (data, quant, eps, lower, upper): integers (h <= 1), a tiny eps (every interval),
    # clipped data, no data under 'unbounded'
    (np.random.default_rng(3).integers(0, 100, 20_000).astype(float), 0.3, 0.5, 0, 100),
    (np.random.default_rng(4).integers(-5, 5, 3000).astype(float), 0.5, 1e-3, -4, 4),
    (np.random.default_rng(5).normal(0, 3, 5000).round(), 0.9, 2.0, -2, 2),
]


@pytest.mark.parametrize("x, quant, eps, lower, upper", SAME_CASES)
def test_same_release_as_in_memory_for_the_same_random_state(x, quant, eps, lower, upper):
    """Data on the cells: the in-memory release itself, value for value, in every chunking;
    other data: the in-memory release on the data rounded to the cells."""
    inputs = {"uneven": _uneven(x, [1, len(x) - 101, 100]), "unknown": _unknown(x, 4),
              "series": dd.from_pandas(pd.Series(x), npartitions=3)}
    for seed in range(4):
        expected = quantileDP(x, quant, eps, lower, upper, random_state=seed)
        for data in inputs.values():
            assert quantileDP(data, quant, eps, lower, upper, random_state=seed) == expected
        assert medianDP(inputs["uneven"], eps, lower, upper, random_state=seed) == (
            medianDP(x, eps, lower, upper, random_state=seed))
    y = x + np.random.default_rng(6).uniform(-0.4, 0.4, x.size)  # off the cells
    rounded = _round_to_cells(y, _cells(lower, upper))
    for seed in range(4):
        assert quantileDP(_uneven(y, [len(y)]), quant, eps, lower, upper,
                          random_state=seed) == quantileDP(rounded, quant, eps, lower, upper,
                                                           random_state=seed)


def test_unbounded_without_data_is_the_in_memory_release():
    empty = np.empty(0)
    for data in (da.from_array(empty), _unknown(empty, 2)):
        for seed in range(3):
            assert quantileDP(data, 0.5, 1.0, 0, 10, which_sensitivity="unbounded",
                              random_state=seed) == quantileDP(
                empty, 0.5, 1.0, 0, 10, which_sensitivity="unbounded", random_state=seed)


@pytest.fixture(params=["window", "runs"])
def path(request, monkeypatch):
    """The driver's two ways to the same law: the in-memory window on the counted records,
    or (EXPAND_LIMIT 0) the runs."""
    if request.param == "runs":
        monkeypatch.setattr(quantiles, "EXPAND_LIMIT", 0)
    return request.param


def _dask_draws(x, quant, eps, lower, upper, n, seed=SEED):
    cells = _cells(lower, upper)
    assert np.array_equal(_round_to_cells(np.asarray(x.compute()), cells), x.compute())
    rng = np.random.default_rng(seed)
    with dask.config.set(scheduler="synchronous"):
        return np.array([quantileDP(x, quant, eps, lower, upper, random_state=rng)
                         for _ in range(n)])


LAW_CASES = [
    # data on the cells (integers), ties and clipped values, uneven chunks
    pytest.param(np.array([1, 1, -2, 8, -6, 3, 3, 3, 12, -11]), 0.25, 1.0, -10, 10,
                 [1, 6, 3], id="ties-clipped"),
    pytest.param(np.arange(-4, 5) / 4.0, 0.5, 2.0, -2, 2, [4, 5], id="median"),
]


@pytest.mark.parametrize("x, quant, eps, lower, upper, sizes", LAW_CASES)
@pytest.mark.usefixtures("one_pass_per_dataset", "path")
def test_release_law_is_the_exact_mechanism(x, quant, eps, lower, upper, sizes):
    """Chi-square of the released interval against the exact probabilities (the in-memory
    law: these data lie on the cells); empty intervals never released; outputs in bounds."""
    out = _dask_draws(_uneven(x, sizes), quant, eps, lower, upper, 2000)
    assert np.all((out >= lower) & (out <= upper))
    j, edges, probs = _quantile_grid_law(x, quant, eps, lower, upper)
    observed = np.bincount(_interval_index(out, j, edges), minlength=probs.size)
    assert observed.size == probs.size and observed[probs == 0].sum() == 0
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue > ALPHA


@pytest.mark.usefixtures("one_pass_per_dataset", "path")
def test_release_law_check_has_power():
    x, quant, _, lower, upper, sizes = LAW_CASES[0].values
    out = _dask_draws(_uneven(x, sizes), quant, 1.0, lower, upper, 2000)
    j, edges, probs = _quantile_grid_law(x, quant, 1.3, lower, upper)
    observed = np.bincount(_interval_index(out, j, edges), minlength=probs.size)
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue < ALPHA


@pytest.mark.usefixtures("one_pass_per_dataset")
def test_accuracy_against_the_in_memory_quantile():
    """200 seeds each on 10^4 continuous values: the errors |release - true quantile| of the
    Dask and in-memory releases have the same law (two-sample KS at ALPHA), and so close
    medians (the NEWS quotes them: 0.0076 and 0.0067): the cells (h = 2^-14 here, the data
    about 0.002 apart near the 0.9 quantile) move each record by at most h / 2."""
    x = np.random.default_rng(11).lognormal(0, 1, 10_000)
    lower, upper, quant, eps = 0.0, 50.0, 0.9, 0.5
    truth = np.quantile(x, quant, method="inverted_cdf")
    d = _uneven(x, [1, 4000, 2999, 3000])
    with dask.config.set(scheduler="synchronous"):
        on_dask = np.array([quantileDP(d, quant, eps, lower, upper, random_state=s)
                            for s in range(200)])
    in_memory = np.array([quantileDP(x, quant, eps, lower, upper, random_state=s)
                          for s in range(200)])
    err_dask, err_memory = np.abs(on_dask - truth), np.abs(in_memory - truth)
    assert stats.ks_2samp(err_dask, err_memory).pvalue > ALPHA
    # A loose guard on the medians: the KS test above is the statistical check.
    assert abs(np.median(err_dask) - np.median(err_memory)) < 0.5 * np.median(err_memory)


def test_accuracy_check_has_power():
    """The same KS check tells apart releases whose law is shifted by a few data spacings
    (as a grid of 2^10 cells instead of 2^20 would): here, the data rounded to 0.25."""
    x = np.random.default_rng(11).lognormal(0, 1, 10_000)
    truth = np.quantile(x, 0.9, method="inverted_cdf")
    coarse = np.floor(x / 0.25) * 0.25
    shifted = np.array([quantileDP(coarse, 0.9, 0.5, 0.0, 50.0, random_state=s)
                        for s in range(200)])
    in_memory = np.array([quantileDP(x, 0.9, 0.5, 0.0, 50.0, random_state=s)
                          for s in range(200)])
    assert stats.ks_2samp(np.abs(shifted - truth), np.abs(in_memory - truth)).pvalue < ALPHA


def _inputs(x):
    """The same data as Dask collections of every kind and chunking."""
    frame = pd.DataFrame({"a": x[: len(x) // 2], "b": x[len(x) // 2:]})
    return {
        "even": da.from_array(x, chunks=500),
        "uneven": _uneven(x, [1, 1, 997, 1001]),
        "one-chunk": da.from_array(x, chunks=-1),
        "unknown": _unknown(x, 5),
        "series": dd.from_pandas(pd.Series(x), npartitions=4),
        "matrix": da.from_array(frame.to_numpy(), chunks=(300, 1)),
        "frame": dd.from_pandas(frame, npartitions=3),
    }


def test_every_chunking_gives_the_same_release_in_one_compute():
    x = np.random.default_rng(2).normal(0, 1, 2000)
    releases = {}
    for name, data in _inputs(x).items():
        with counted_computes() as calls:
            releases[name] = quantileDP(data, 0.3, 1.0, -3, 3, random_state=5)
        assert len(calls) == 1, name
    assert len(set(releases.values())) == 1, releases
    assert abs(releases["even"] - np.quantile(x, 0.3)) < 0.1


def test_median_is_the_half_quantile():
    d = _uneven(np.arange(100.0), [10, 90])
    for seed in range(3):
        assert medianDP(d, 1.0, 0, 100, random_state=seed) == quantileDP(
            d, 0.5, 1.0, 0, 100, random_state=seed)


def _messages(call, *args, **kwargs):
    with pytest.raises(ValueError) as error:
        call(*args, **kwargs)
    return str(error.value)


NUMBERS = np.arange(10.0)


@pytest.mark.parametrize("args, kwargs", [
    ((0.5, 1.0, 10, 0), {}),  # lower >= upper
    ((0.5, 1.0, np.nan, 1), {}),
    ((0.5, 1.0, [0, 1], 10), {}),
    ((1.5, 1.0, 0, 10), {}),
    ((0.5, 1.0, 0, 10), {"which_sensitivity": "neither"}),
    ((0.5, 1.0, 0, 10), {"mechanism": "Laplace"}),
    ((0.5, -1.0, 0, 10), {}),
    ((0.5, np.inf, 0, 10), {}),
])
def test_argument_errors_without_a_pass(args, kwargs):
    """The in-memory messages, with no compute, no draw and no charge."""
    expected = _messages(quantileDP, NUMBERS, *args, **kwargs)
    acc = BudgetAccountant(10.0)
    with counted_computes() as calls, untouched_generator(1) as rng:
        with raises_exactly(expected):
            quantileDP(da.from_array(NUMBERS, chunks=3), *args, **kwargs, random_state=rng,
                       accountant=acc)
    assert calls == [] and acc.ledger == []


@pytest.mark.parametrize("data, message", [
    (da.from_array(np.array([True, False])), "x must be numeric."),
    (dd.from_pandas(pd.Series(["a", "b"]), npartitions=1), "x must be numeric."),
    (da.from_array(np.empty(0)), "x must contain at least one value."),
])
def test_data_errors_known_without_a_pass(data, message):
    """Before the arguments' checks, as in memory (quant = 2 is wrong too)."""
    with counted_computes() as calls, untouched_generator(1) as rng:
        with raises_exactly(message):
            quantileDP(data, 2.0, 1.0, 0, 10, random_state=rng)
    assert calls == []


@pytest.mark.parametrize("values, message", [
    ([1.0, 2.0, np.nan, 4.0], "x must be finite (no NA, NaN or Inf)."),
    ([1.0, 2.0, 3.0, -np.inf], "x must be finite (no NA, NaN or Inf)."),
    ([], "x must contain at least one value."),
])
def test_data_errors_after_the_pass_before_any_draw(values, message):
    """Found by the one pass, raised on the driver before the charge and any draw; the
    in-memory message."""
    assert _messages(quantileDP, np.array(values), 0.5, 1.0, 0, 10) == message
    acc = BudgetAccountant(10.0)
    data = _unknown(np.array(values, dtype=float), 2)
    with counted_computes() as calls, untouched_generator(1) as rng:
        with raises_exactly(message):
            quantileDP(data, 0.5, 1.0, 0, 10, random_state=rng, accountant=acc)
    assert len(calls) == 1 and acc.ledger == []


def test_pandas_missing_values_in_a_partition_are_refused():
    series = dd.from_pandas(pd.Series([1, None, 3, 4], dtype="Int64"), npartitions=2)
    with raises_exactly("x must be finite (no NA, NaN or Inf)."):
        medianDP(series, 1.0, 0, 10, random_state=1)


def test_a_valid_call_draws_and_charges():
    acc = BudgetAccountant(3.0)
    d = _uneven(NUMBERS, [3, 7])
    with advanced_generator(1) as rng:
        quantileDP(d, 0.5, 1.0, 0, 10, random_state=rng, accountant=acc)
    medianDP(d, 0.5, 0, 10, random_state=2, accountant=acc)
    assert acc.ledger == [("quantileDP", PrivacyLoss.pure(1.0)),
                          ("medianDP", PrivacyLoss.pure(0.5))]


def test_both_warns_and_releases_the_bounded_value():
    d = _uneven(NUMBERS, [5, 5])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        both = quantileDP(d, 0.5, 1.0, 0, 10, which_sensitivity="both", random_state=3)
    with warnings.catch_warnings(record=True) as in_memory:
        warnings.simplefilter("always")
        quantileDP(NUMBERS, 0.5, 1.0, 0, 10, which_sensitivity="both", random_state=3)
    assert [str(w.message) for w in caught] == [str(w.message) for w in in_memory]
    assert caught[0].filename == __file__  # points at the user's call
    assert both == quantileDP(d, 0.5, 1.0, 0, 10, random_state=3)


def test_the_callers_data_are_not_modified():
    x = np.random.default_rng(3).normal(0, 5, 1000)
    kept = x.copy()
    quantileDP(da.from_array(x, chunks=100), 0.5, 1.0, -1, 1, random_state=1)
    np.testing.assert_array_equal(x, kept)
