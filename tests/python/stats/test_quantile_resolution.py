"""quantileDP, medianDP and quantilesDP on a public resolution (issue 28, item 2): the
candidates lower + i * resolution, runs of equal utility, the exact exponential mechanism.

False-failure rates: the chi-square test of the draws has level 1e-4 (fixed seed); the other
tests are deterministic (fixed seeds, exact comparisons)."""

import math

import numpy as np
import pytest
from scipy import stats as sps

import dppack
from dppack import BudgetAccountant
from dppack.stats import _quantile
from dppack.datasets import load_pima

GLU = np.asarray(load_pima()["glu"], dtype=np.float64)
DELTA_PRIME = 1.0 + 2.0 ** -20  # the exact exponential mechanism's widened sensitivity


def brute_utilities(x, quant, lower, upper, resolution):
    """Each candidate's utility by enumeration: -max(0, lt - q n, q n - le) with lt, le the
    clipped data below and at or below it (exact comparisons of doubles)."""
    lattice = _quantile.check_resolution(resolution, lower, upper)
    t = lattice.points(np.arange(lattice.size))
    x = np.clip(np.asarray(x, dtype=np.float64), lower, upper)
    lt = (x[None, :] < t[:, None]).sum(axis=1)
    le = (x[None, :] <= t[:, None]).sum(axis=1)
    centre = quant * x.size
    return t, -np.maximum(np.maximum(lt - centre, centre - le), 0.0)


def run_utilities(x, quant, lower, upper, resolution):
    """The same from the runs (each run's utility repeated over its candidates)."""
    lattice = _quantile.check_resolution(resolution, lower, upper)
    utilities, widths, starts = lattice.runs(*_quantile.lattice_counts(x, lattice), quant)
    assert starts[0] == 0 and np.all(np.diff(starts) == widths[:-1])
    assert int(widths.sum()) == lattice.size
    return np.repeat(utilities, widths)


def probabilities(utilities, eps):
    weights = np.exp(eps * (utilities - utilities.max()) / (2.0 * DELTA_PRIME))
    return weights / weights.sum()


CASES = [
    (np.array([1.0, 2, 2, 2, 3, 5, 5]), 0.5, 0.0, 6.0, 1.0),
    (np.array([1.0, 2, 2, 2, 3, 5, 5]), 0.3, 0.0, 6.0, 0.5),
    (np.array([0.3, 0.3, 0.1, 0.7, 0.2, 0.25]), 0.5, 0.0, 1.0, 0.1),  # decimals on the grid
    (np.array([-3.0, 7.5, 7.5, 2.2, 0.0, 11.0]), 0.75, -2.0, 9.0, 1.5),  # clipped, off-grid
    (np.array([4.0, 4.0, 4.0, 4.0]), 0.5, 0.0, 10.0, 2.0),
    (np.array([]), 0.5, 0.0, 3.0, 1.0),  # no data: uniform
    (np.random.default_rng(1).integers(0, 30, 50).astype(float), 0.9, 0.0, 29.0, 1.0),
    (np.array([0.0, 1.0, 1.0]), 0.5, 0.0, 1.0, 1.0 / 3.0),  # upper on the grid in exact terms
]


@pytest.mark.parametrize("x,quant,lower,upper,resolution", CASES)
def test_runs_match_enumeration(x, quant, lower, upper, resolution):
    # Planted: a run boundary left out (e.g. floor(p / 2) for odd p) merges a tied candidate
    # with its neighbours and changes their utilities.
    t, brute = brute_utilities(x, quant, lower, upper, resolution)
    runs = run_utilities(x, quant, lower, upper, resolution)
    assert np.array_equal(runs, brute)
    for eps in (0.5, 3.0):
        assert np.array_equal(probabilities(runs, eps), probabilities(brute, eps))
    assert t[0] == lower and t[-1] <= upper and np.all(np.diff(t) > 0)


def test_lattice_points_and_size():
    lattice = _quantile.check_resolution(0.1, 0.0, 1.0)
    assert lattice.size == 11
    t = lattice.points(np.arange(11))
    assert t[3] == 0.3 and t[7] == 0.7 and t[-1] == 1.0  # decimals as the user writes them
    assert _quantile.check_resolution(1.0, 40.0, 250.0).size == 211
    assert _quantile.check_resolution(0.3, 0.0, 1.0).size == 4  # 1 is not on the grid: 0 ... 0.9
    assert _quantile.check_resolution(1.0 / 3.0, 0.0, 1.0).size == 4  # 1 on it to rounding
    assert _quantile.check_resolution(None, 0.0, 1.0) is None


def test_draws_follow_the_mechanism():
    # Chi-square of 3000 releases against the enumerated law (level 1e-4).
    x, quant, lower, upper, resolution = CASES[1]
    t, brute = brute_utilities(x, quant, lower, upper, resolution)
    p = probabilities(brute, 1.0)
    rng = np.random.default_rng(20281)
    draws = np.array([dppack.quantileDP(x, quant, 1.0, lower, upper, random_state=rng,
                                        resolution=resolution) for _ in range(3000)])
    index = np.searchsorted(t, draws)
    assert np.array_equal(t[index], draws)  # every release is a candidate
    counts = np.bincount(index, minlength=t.size)
    assert sps.chisquare(counts, p * draws.size).pvalue > 1e-4


# Recorded from main (0e4ef13) before the change: resolution=None must keep these bits.
RECORDED = {
    "q": [3.175655620602559, 2.8277025938204416, 3.0551466273330683],
    "m": [115.54146122024909, 112.72478994077353, 115.68306482230963],
    "rec": [[97.29971189053738, 112.00273850017015, 137.68844673057094],
            [98.30319482929164, 114.40919913636917, 143.54122685554742]],
    "ind": [98.69621599667016, 115.93146385474135, 139.27537437694806],
    # re-recorded (s10/joint): the joint method's log weights are now rounded to 2^-40
    # before each draw and summed in blocks, so its bits changed on purpose
    "joint": [98.58201580064704, 114.26783339029159, 141.92977469530805],
}


def test_resolution_none_is_bit_identical():
    x = np.array([3.0, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    assert [dppack.quantileDP(x, 0.3, 1.0, 0, 10, random_state=s, resolution=None)
            for s in range(3)] == RECORDED["q"]
    assert [dppack.medianDP(GLU, 0.5, 40, 250, random_state=s)
            for s in range(3)] == RECORDED["m"]
    assert [dppack.quantilesDP(GLU, [0.25, 0.5, 0.75], 1.0, 40, 250, random_state=s,
                               resolution=None).tolist() for s in range(2)] == RECORDED["rec"]
    assert dppack.quantilesDP(GLU, [0.25, 0.5, 0.75], 1.0, 40, 250, method="independent",
                              random_state=3).tolist() == RECORDED["ind"]
    assert dppack.quantilesDP(GLU, [0.25, 0.5, 0.75], 1.0, 40, 250, method="joint",
                              random_state=4).tolist() == RECORDED["joint"]


def test_pima_median_exact_at_moderate_eps():
    # P(115) = 0.92 at eps 5 and 0.52 at eps 1 (enumerated law); without a resolution the
    # release is never the integer 115.
    truth = float(np.median(GLU))
    at5 = [dppack.medianDP(GLU, 5.0, 40, 250, random_state=s, resolution=1) for s in range(40)]
    assert np.mean(np.array(at5) == truth) >= 0.8
    at1 = [dppack.medianDP(GLU, 1.0, 40, 250, random_state=s, resolution=1) for s in range(40)]
    assert np.median(np.abs(np.array(at1) - truth)) == 0.0
    old = [dppack.medianDP(GLU, 5.0, 40, 250, random_state=s) for s in range(40)]
    assert not np.any(np.array(old) == truth)


@pytest.mark.parametrize("resolution,message", [
    (0, "resolution must be None or a positive finite number."),
    (-1.0, "resolution must be None or a positive finite number."),
    (math.nan, "resolution must be None or a positive finite number."),
    (math.inf, "resolution must be None or a positive finite number."),
    ("1", "resolution must be None or a positive finite number."),
    ([1.0, 2.0], "resolution must be None or a positive finite number."),
    (1e-12, "resolution is too fine for the bounds"),
])
def test_resolution_errors_before_the_data(resolution, message):
    # NaN data would be refused by the data check: the resolution's error comes first, and
    # nothing is charged.
    acc = BudgetAccountant(10.0)
    bad = np.array([1.0, np.nan])
    for call in (
        lambda: dppack.quantileDP(bad, 0.5, 1.0, 0.0, 10.0, accountant=acc,
                                  resolution=resolution),
        lambda: dppack.medianDP(bad, 1.0, 0.0, 10.0, accountant=acc, resolution=resolution),
        lambda: dppack.quantilesDP(bad, [0.5], 1.0, 0.0, 10.0, accountant=acc,
                                   resolution=resolution),
    ):
        with pytest.raises(ValueError, match=message.replace(".", r"\.")[:40]):
            call()
    assert float(acc.spent.eps) == 0.0


def test_too_fine_against_the_magnitude():
    # 2^40 candidates would be fine in number, but the doubles near 1e9 are too coarse.
    with pytest.raises(ValueError, match="too fine"):
        dppack.medianDP([1e9], 1.0, 1e9, 1e9 + 1, resolution=1e-5)
    assert dppack.medianDP([1e9], 1.0, 1e9, 1e9 + 1, resolution=1e-3,
                           random_state=1) >= 1e9


def test_joint_takes_a_resolution():
    # every release is a candidate 40 + i (tests/python/quantiles/test_joint_float.py tests its law)
    out = dppack.quantilesDP(GLU, [0.25, 0.5, 0.75], 1.0, 40, 250, method="joint",
                             resolution=1, random_state=2)
    assert np.array_equal(out, np.round(out)) and np.all(np.diff(out) >= 0)


@pytest.mark.parametrize("method", ["recursive", "independent"])
def test_quantiles_on_the_resolution(method):
    for which in ("bounded", "unbounded"):
        out = dppack.quantilesDP(GLU, [0.1, 0.25, 0.5, 0.75, 0.9], 4.0, 40, 250,
                                 method=method, which_sensitivity=which, random_state=7,
                                 resolution=1)
        assert np.all(np.diff(out) >= 0) and np.array_equal(out, np.round(out))
        assert np.all(np.abs(out - np.quantile(GLU, [0.1, 0.25, 0.5, 0.75, 0.9])) < 8)


def test_recursive_with_an_empty_part():
    # unbounded: no data at all, and quantiles whose part is empty (all data at one value)
    out = dppack.quantilesDP([], [0.25, 0.5, 0.75], 1.0, 0, 4, which_sensitivity="unbounded",
                             random_state=3, resolution=1)
    assert set(out) <= {0.0, 1.0, 2.0, 3.0, 4.0} and np.all(np.diff(out) >= 0)
    out = dppack.quantilesDP(np.full(30, 2.0), [0.1, 0.5, 0.9], 20.0, 0, 4,
                             random_state=3, resolution=1)
    assert out[1] == 2.0


def test_recursive_first_release_is_quantileDP():
    # m = 1: one node at the whole eps (bounded, L = 1), the same draws as quantileDP
    for s in range(5):
        a = dppack.quantilesDP(GLU, [0.3], 1.0, 40, 250, random_state=s, resolution=1)
        b = dppack.quantileDP(GLU, 0.3, 1.0, 40, 250, random_state=s, resolution=1)
        assert a[0] == b


def test_dask_equals_memory():
    da = pytest.importorskip("dask.array")
    data = [GLU, np.round(np.random.default_rng(5).normal(3, 2, 997), 1)]
    for x, (lower, upper, resolution) in zip(data, [(40, 250, 1), (-1, 8, 0.1)]):
        chunks = da.from_array(x, chunks=97)
        for s in range(4):
            for quant in (0.2, 0.5):
                mem = dppack.quantileDP(x, quant, 1.0, lower, upper, random_state=s,
                                        resolution=resolution)
                dsk = dppack.quantileDP(chunks, quant, 1.0, lower, upper, random_state=s,
                                        resolution=resolution)
                assert mem == dsk
        assert (dppack.medianDP(chunks, 2.0, lower, upper, random_state=9,
                                resolution=resolution)
                == dppack.medianDP(x, 2.0, lower, upper, random_state=9,
                                   resolution=resolution))


def test_dask_errors():
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="too fine"):
        dppack.medianDP(da.from_array(GLU, chunks=100), 1.0, 40, 250, resolution=1e-13)
    with pytest.raises(ValueError):
        dppack.medianDP(da.from_array(np.array([1.0, np.nan]), chunks=1), 1.0, 0, 5,
                        resolution=1)


def test_accuracy_reports_the_resolution():
    from dppack import noiseIntervalDP
    coarse = noiseIntervalDP("medianDP", 1.0, lower_bound=40, upper_bound=250,
                             resolution=1)
    fine = noiseIntervalDP("medianDP", 1.0, lower_bound=40, upper_bound=250)
    expected = 2.0 * DELTA_PRIME * (math.log(211) + math.log(1 / 0.05))
    assert abs(coarse.half_width - expected) < 1e-4
    assert coarse.half_width < fine.half_width / 3
    for method in ("recursive", "independent"):
        with_r = noiseIntervalDP("quantilesDP", 1.0, quants=[0.25, 0.75], lower_bound=0,
                                 upper_bound=100, method=method, resolution=1)
        without = noiseIntervalDP("quantilesDP", 1.0, quants=[0.25, 0.75], lower_bound=0,
                                  upper_bound=100, method=method)
        assert np.all(np.asarray(with_r.half_width) < np.asarray(without.half_width))
    with pytest.raises(ValueError, match="positive finite"):
        noiseIntervalDP("quantileDP", 1.0, quant=0.5, lower_bound=0, upper_bound=1,
                        resolution=-1)
