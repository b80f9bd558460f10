"""quantilesDP (JointExp, independent, recursive), boundsDP, _random.log_categorical and
the exact pieces of JointExp (grid counts, uniform multisets, exact categorical draws).

Randomised tests use fixed seeds, so each is deterministic; the stated false-failure rate is
the probability, over the choice of seed, that a correct implementation fails it. The
chi-square and KS tests reject at p < 1e-3 (false-failure rate 1e-3 each).
"""

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack import BudgetAccountant, _random
from dppack.quantiles import _joint, _recursive, _release
from dppack.quantiles import boundsDP, quantilesDP
from dppack.quantiles._joint import joint_exp as _joint_exp

ALPHA = 1e-3


# --------------------------------------------------------------------------------------------
# The sampler
# --------------------------------------------------------------------------------------------


def test_log_categorical_law():
    # chi-square against the weights, one of them 0 (-inf) and one tiny: false-failure 1e-3
    logw = np.array([0.0, math.log(2.0), -np.inf, math.log(0.5), -800.0])
    rng = np.random.default_rng(11)
    draws = np.array([_random.log_categorical(logw + 1000.0, rng) for _ in range(20_000)])
    counts = np.bincount(draws, minlength=5)
    assert counts[2] == 0 and counts[4] == 0
    expected = np.array([1.0, 2.0, 0.5]) / 3.5 * draws.size
    assert stats.chisquare(counts[[0, 1, 3]], expected).pvalue > ALPHA


def test_log_categorical_refuses_no_weight():
    with pytest.raises(ValueError, match="At least one weight"):
        _random.log_categorical([-np.inf, -np.inf], np.random.default_rng(0))


# --------------------------------------------------------------------------------------------
# JointExp against a brute-force enumeration
# --------------------------------------------------------------------------------------------


def brute_force(x, quants, eps, lower, upper):
    """P(k_1, ..., k_m) of JointExp by enumeration: prod_runs C(w + r - 1, r) (w grid points
    of quantileDP's grid 2^j, exact integers) times exp(eps u / 4), u minus the gaps'
    distances to their targets (module docstring)."""
    xs = np.sort(np.clip(x, lower, upper))
    n, m = xs.size, len(quants)
    j, first, last = _joint.joint_grid(lower, upper)
    rounded = [int(v) for v in _joint._on_grid(xs, j, first, last)]
    widths = np.diff([first, *rounded, last])
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    weights = {}
    for ks in itertools.combinations_with_replacement(range(n + 1), m):
        volume = 1.0
        for k in set(ks):
            r = ks.count(k)
            volume *= float(math.comb(int(widths[k]) + r - 1, r))
        path = (0, *ks, n)
        u = -sum(abs(path[j] - path[j - 1] - d[j - 1]) for j in range(1, m + 2))
        weights[ks] = volume * math.exp(eps * u / 4.0)
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}, xs


X4 = np.array([0.1, 0.35, 0.4, 0.8])
DRAWS = 2500  # about 3 s per case


X7 = np.array([0.05, 0.2, 0.3, 0.45, 0.6, 0.7, 0.95])


@pytest.mark.parametrize("data, quants, eps, lower, upper, half", [
    (X4, (0.3, 0.6), 2.0, 0.0, 1.0, None),  # the whole DP
    (X4, (0.3, 0.6), 2.0, 0.0, 1.0, 1.0),  # small windows: the mixture, its whole DP 83%
    (X4, (0.2, 0.5, 0.5), 1.0, -1.0, 1.0, 1.0),  # runs of outputs in one interval, windows
    (X7, (0.1, 0.9), 2.0, 0.0, 1.0, None),  # a gap of 5.6 ranks: sliding windows of 5
])
def test_joint_law_matches_enumeration(data, quants, eps, lower, upper, half):
    # Chi-square over the interval vectors (k_1, ..., k_m); then, within the intervals, the
    # outputs' positions are uniform (KS). False-failure rate 2e-3.
    probs, xs = brute_force(data, np.array(quants), eps, lower, upper)
    rng = np.random.default_rng(5)
    counts, positions = {}, []
    edges = np.concatenate([[lower], xs, [upper]])
    for _ in range(DRAWS):
        out = _joint_exp(np.clip(data, lower, upper), np.array(quants), eps, lower, upper,
                         rng, half=half)
        k = tuple(int(v) for v in np.searchsorted(xs, out, side="right"))
        counts[k] = counts.get(k, 0) + 1
        if k[0] != k[1]:  # the first output alone in its interval: uniform there
            positions.append((out[0] - edges[k[0]]) / (edges[k[0] + 1] - edges[k[0]]))
    assert all(probs.get(k, 0) > 0 for k in counts)
    keys = sorted(probs)
    observed = np.array([counts.get(k, 0) for k in keys])
    expected = np.array([probs[k] for k in keys]) * DRAWS
    # cells expected below 5 pooled into one
    small = expected < 5
    if small.any():
        observed = np.r_[observed[~small], observed[small].sum()]
        expected = np.r_[expected[~small], expected[small].sum()]
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    assert stats.kstest(positions, "uniform").pvalue > ALPHA


@pytest.mark.parametrize("contiguous", [True, False])
def test_convolution_matches_direct_sums(contiguous):
    # C[k] = log sum_{k' < k} exp(E[k'] - beta |k - k' - d|), against the direct O(n^2) sum,
    # for gaps below, at and above the block length, E with -inf entries; deterministic.
    rng = np.random.default_rng(12)
    for size in (1, 2, 9, 40):
        ranks = np.arange(size) + 3 if contiguous else np.sort(rng.choice(200, size, False))
        log_e = rng.normal(0, 4, size)
        log_e[rng.random(size) < 0.2] = -np.inf
        for d in (0.0, 0.4, 1.0, 2.5, 7.2, 16.0, 30.5, 300.0):
            got = _joint._convolve(ranks, log_e, d, 0.3)
            for i, k in enumerate(ranks):
                terms = log_e[:i] - 0.3 * np.abs(k - ranks[:i] - d)
                want = np.logaddexp.reduce(terms) if i else -np.inf
                assert (got[i] == want == -np.inf) or abs(got[i] - want) < 1e-9


def test_joint_single_quantile_is_quantileDP_law():
    # m = 1: exp(-eps |k - q n| / 2) times the width, DPpack's quantile law (module
    # docstring); the enumeration's law with m = 1 is that. Chi-square, false-failure 1e-3.
    probs, xs = brute_force(X4, np.array([0.5]), 1.0, 0.0, 1.0)
    widths = np.diff(np.concatenate([[0.0], xs, [1.0]]))
    direct = widths * np.exp(-0.5 * np.abs(np.arange(5) - 2.0))
    assert np.allclose([probs[(k,)] for k in range(5)], direct / direct.sum())


@pytest.mark.parametrize("w, r", [(4, 3), (1, 3), (6, 1), (3, 2)])
def test_uniform_multiset_law(w, r):
    # Every non-decreasing r-tuple of {0, ..., w - 1} equally likely (C(w + r - 1, r) of
    # them): chi-square, false-failure rate 1e-3.
    rng = np.random.default_rng(21)
    tuples = list(itertools.combinations_with_replacement(range(w), r))
    index = {t: i for i, t in enumerate(tuples)}
    draws = 400 * len(tuples)
    counts = np.zeros(len(tuples))
    for _ in range(draws):
        t = tuple(_joint._uniform_multiset(w, r, rng))
        counts[index[t]] += 1
    assert len(tuples) == math.comb(w + r - 1, r)
    if len(tuples) > 1:
        assert stats.chisquare(counts).pvalue > ALPHA
    # large w (beyond int64): still within range and sorted
    big = _joint._uniform_multiset(2 ** 70, 3, rng)
    assert big == sorted(big) and all(0 <= v < 2 ** 70 for v in big)


def test_uniform_integer_exact_and_checked():
    rng = np.random.default_rng(22)
    draws = [_random.uniform_integer(5, rng) for _ in range(5000)]
    assert stats.chisquare(np.bincount(draws, minlength=5)).pvalue > ALPHA
    with pytest.raises(ValueError, match="positive whole number"):
        _random.uniform_integer(0, rng)


def test_choose_is_the_exact_mechanism_at_rate_one():
    # The unit eps makes the exact exponential mechanism's rate exactly 2^-40 per step of
    # 2^-40: weights exp(round(L 2^40) 2^-40). Planted: eps = 2 -> the rate is not 2^-40.
    k, rate = _random.exponential_grid(700.0, _joint._UNIT_EPS,
                                       _joint._UNIT_SENSITIVITY)
    assert (k, rate) == (-40, Fraction(1, 2 ** 40))
    logw = np.array([0.0, math.log(2.0), -np.inf, math.log(0.5), -800.0]) + 1000.0
    rng = np.random.default_rng(11)
    draws = np.array([_joint._choose(logw, rng) for _ in range(6000)])
    counts = np.bincount(draws, minlength=5)
    assert counts[2] == 0 and counts[4] == 0
    expected = np.array([1.0, 2.0, 0.5]) / 3.5 * draws.size
    assert stats.chisquare(counts[[0, 1, 3]], expected).pvalue > ALPHA
    with pytest.raises(ValueError, match="At least one weight"):
        _joint._choose([-np.inf], rng)


def test_joint_draws_exactly(monkeypatch):
    # No float sampler in the joint release: uniform, uniform_between and log_categorical
    # refuse; the windowed mixture's coin (uniform) is allowed only in _joint_windowed.
    def refuse(*args, **kwargs):
        raise AssertionError("a float sampler was used")

    monkeypatch.setattr(_random, "uniform_between", refuse)
    monkeypatch.setattr(_random, "log_categorical", refuse)
    out = quantilesDP(X4, [0.2, 0.5, 0.5], 1.0, -1, 1, method="joint", random_state=3)
    assert out.shape == (3,)


@pytest.mark.parametrize("method", ["joint", "recursive"])
def test_outputs_on_the_grid(method):
    # Joint: every output a point of quantileDP's grid 2^j of the bounds (j = -58 for
    # [-1, 1]); recursive: each on the grid of its range, within the bounds' grid or finer.
    x = np.random.default_rng(2).uniform(-1, 1, 40)
    j = _joint.joint_grid(-1.0, 1.0)[0]
    for seed in range(20):
        out = quantilesDP(x, [0.1, 0.5, 0.9], 1.0, -1, 1, method=method, random_state=seed)
        scaled = np.ldexp(out, -j)
        if method == "joint":
            assert np.array_equal(scaled, np.round(scaled))
        assert np.all((out >= -1) & (out <= 1))


def test_joint_grid_is_quantileDPs():
    # the same grid as quantileDP's for bounds above 2^-1015, from the public grid_exponent
    for lower, upper in [(-1.0, 1.0), (0.0, 0.3), (40.0, 250.0), (-1e300, 5.0), (1e-300, 1.0)]:
        grid = dppack.stats._quantile._quantile_grid(lower, upper)
        assert _joint.joint_grid(lower, upper) == grid


def test_run_volume_counts_multisets():
    # log C(w + r - 1, r) as the DP adds it (sums of logs), against math.comb; w = 0 gives
    # -inf. Planted: the old volume w^r / r! -> fails at w = 3, r = 2 (4.5 vs 6).
    for w in (0, 1, 3, 10, 2 ** 59):
        for r in (1, 2, 3, 5):
            want = -math.inf if w == 0 else math.log(math.comb(w + r - 1, r))
            got = _joint._log_multisets(w, r)
            assert got == want or abs(got - want) < 1e-9 * max(1.0, abs(want))
    dp = _joint._JointDP(np.arange(3), np.array([3.0, 0.0, 10.0]),
                            np.ones((3, 3), dtype=bool), np.array([0.0, 0.0, 0.0, 3.0]), 0.0,
                            3)
    terms, _ = dp._run_terms(3, "in")  # r = 1, 2, 3 at every interval (beta = 0, d = 0)
    for r, term in enumerate(terms, start=1):
        want = dp.c["in"][3 - r] + np.array([math.log(math.comb(w + r - 1, r)) if w else -np.inf
                                       for w in (3, 0, 10)])
        assert np.allclose(term[[0, 2]], want[[0, 2]]) and term[1] == -np.inf


def test_recursive_empty_part_on_its_grid(monkeypatch):
    # [1] in [0, 1], quartiles: the part below the median is empty; its release is
    # quantileDP's on no data, the exact uniform on the grid of (0, median): a grid point,
    # and out[0] / out[1] uniform (KS, false-failure 1e-3). No uniform_between.
    def refuse(*args, **kwargs):
        raise AssertionError("uniform_between used")

    monkeypatch.setattr(_random, "uniform_between", refuse)
    rng = np.random.default_rng(31)
    ratios = []
    for _ in range(1500):
        out = quantilesDP([1.0], [0.25, 0.5, 0.75], 1.0, 0, 1, method="recursive",
                          random_state=rng)
        j = dppack.stats._quantile._quantile_grid(0.0, out[1])[0]
        assert math.ldexp(out[0], -j) == round(math.ldexp(out[0], -j))
        ratios.append(out[0] / out[1])
    assert stats.kstest(ratios, "uniform").pvalue > ALPHA


def test_default_method_is_recursive():
    x = np.arange(20.0)
    a = quantilesDP(x, [0.25, 0.75], 1.0, 0, 20, random_state=4)
    b = quantilesDP(x, [0.25, 0.75], 1.0, 0, 20, method="recursive", random_state=4)
    assert np.array_equal(a, b)
    import inspect
    assert inspect.signature(quantilesDP).parameters["method"].default == "recursive"


# --------------------------------------------------------------------------------------------
# The three methods: order, bounds, seeds, accounting, budget split
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", _release.METHODS)
def test_outputs_sorted_within_bounds_reproducible(method):
    rng = np.random.default_rng(3)
    x = np.r_[rng.standard_t(2, 3000), 40.0 + rng.normal(size=500)]
    quants = np.linspace(0.05, 0.95, 9)
    for seed in range(5):
        out = quantilesDP(x, quants, 1.0, -10, 50, method=method, random_state=seed)
        assert out.shape == (9,)
        assert np.all(np.diff(out) >= 0)
        assert out.min() >= -10 and out.max() <= 50
        again = quantilesDP(x, quants, 1.0, -10, 50, method=method, random_state=seed)
        assert np.array_equal(out, again)
    assert x[-1] != 50.0  # the caller's data untouched (the joint method clips a copy)


def test_joint_accurate_on_large_data_and_uses_windows(monkeypatch):
    # n = 10^5: the windows suffice (the whole DP is never built) and every output is within
    # a rank error of 200 of its target (the release's law puts less than 1e-6 beyond that).
    rng = np.random.default_rng(4)
    x = rng.normal(size=100_000)
    calls = []
    original = _joint._JointDP.__init__

    def spy(self, ranks, *args):
        calls.append(ranks.size)
        original(self, ranks, *args)

    monkeypatch.setattr(_joint._JointDP, "__init__", spy)
    quants = np.linspace(0.1, 0.9, 9)
    out = quantilesDP(x, quants, 1.0, -5, 5, method="joint", random_state=1)
    assert max(calls) < 100_001 / 2
    ranks = np.searchsorted(np.sort(x), out)
    assert np.all(np.abs(ranks - quants * x.size) < 200)


def test_joint_ties_and_clipped_data():
    # all data equal, or beyond the bounds: only the intervals of positive width are drawn
    out = quantilesDP(np.full(50, 2.0), [0.25, 0.75], 1.0, 0, 4, random_state=1)
    assert np.all((out >= 0) & (out <= 4))
    out = quantilesDP(np.r_[np.full(20, -9.0), np.full(20, 9.0)], [0.1, 0.9], 1.0, 0, 4,
                      random_state=2)
    assert np.all((out >= 0) & (out <= 4))


@pytest.mark.parametrize("method", _release.METHODS)
def test_no_data_under_unbounded_dp(method):
    # n is private under add/remove: an empty dataset gets a release (uniform outputs, sorted)
    out = quantilesDP([], [0.2, 0.5, 0.9], 1.0, 0, 1, method=method,
                      which_sensitivity="unbounded", random_state=1)
    assert out.shape == (3,) and np.all(np.diff(out) >= 0) and np.all((out >= 0) & (out <= 1))


def test_independent_uses_quantileDP_with_eps_over_m(monkeypatch):
    seen = []
    original = _release.quantileDP

    def spy(x, quant, eps, *args, **kwargs):
        seen.append((quant, eps, kwargs["accountant"]))
        return original(x, quant, eps, *args, **kwargs)

    monkeypatch.setattr(_release, "quantileDP", spy)
    quantilesDP(np.arange(100.0), [0.1, 0.5, 0.9], 1.5, 0, 100, method="independent",
                random_state=1)
    assert [q for q, _, _ in seen] == [0.1, 0.5, 0.9]
    assert all(e == 0.5 and a is dppack.accounting.UNCHARGED for _, e, a in seen)


@pytest.mark.parametrize("which, share", [("bounded", 1.0 / 7), ("unbounded", 1.0 / 4)])
def test_recursive_levels_and_budget(monkeypatch, which, share):
    # m = 9: 4 levels; the middle quantile first, then the halves with rescaled quantiles
    seen = []
    original = _recursive.exact_quantile

    def spy(x, quant, eps, *args, sensitivity, **kwargs):
        seen.append((x.size, quant, eps, sensitivity))
        return original(x, quant, eps, *args, sensitivity=sensitivity, **kwargs)

    monkeypatch.setattr(_recursive, "exact_quantile", spy)
    x = np.random.default_rng(0).uniform(0, 1, 10_000)
    quants = np.linspace(0.1, 0.9, 9)
    out = quantilesDP(x, quants, 1.0, 0, 1, method="recursive", which_sensitivity=which,
                      random_state=3)
    assert len(seen) == 9
    assert all(math.isclose(e, share) for _, _, e, _ in seen)
    # each node's sensitivity: 1 bounded, max(q, 1 - q) of its rescaled q unbounded
    for _, q, _, s in seen:
        expected = 1.0 if which == "bounded" else max(q, 1 - q)
        assert s >= expected and s == pytest.approx(expected, rel=1e-15)
    assert seen[0][:2] == (10_000, 0.5)
    assert math.isclose(seen[1][1], 0.2 / 0.5) and seen[1][0] < 6000  # the lower half
    assert np.all(np.abs(out - quants) < 0.05)


def test_accountant_charged_once_and_overspend_refused():
    acc = BudgetAccountant(1.0)
    x = np.arange(20.0)
    quantilesDP(x, [0.2, 0.8], 0.6, 0, 20, random_state=1, accountant=acc)
    assert [label for label, _ in acc.ledger] == ["quantilesDP"]
    assert acc.spent.eps == pytest.approx(0.6)
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="budget"):
        quantilesDP(x, [0.5], 0.6, 0, 20, method="recursive", random_state=rng,
                    accountant=acc)
    assert rng.bit_generator.state == state
    with BudgetAccountant(1.0) as session:
        quantilesDP(x, [0.5], 0.25, 0, 20, method="independent", random_state=1)
        boundsDP(x, 0.5, random_state=1)
    assert [label for label, _ in session.ledger] == ["quantilesDP", "boundsDP"]


@pytest.mark.parametrize("kwargs, message", [
    ({"quants": [0.5, 0.2]}, "quants must be in increasing order"),
    ({"quants": [0.5, 1.2]}, r"quants must be numbers in \[0, 1\]"),
    ({"quants": []}, r"quants must be numbers in \[0, 1\]"),
    ({"quants": "0.5"}, r"quants must be numbers in \[0, 1\]"),
    ({"quants": [0.5, float("nan")]}, r"quants must be numbers in \[0, 1\]"),
    ({"method": "Joint"}, "method must be one of"),
    ({"which_sensitivity": "both"}, "which_sensitivity must be one of"),
    ({"eps": 0}, "eps"),
    ({"eps": float("inf")}, "eps"),
    ({"lower_bound": 5, "upper_bound": 5}, "lower_bound"),
    ({"x": [1.0, float("nan")]}, "x must be finite"),
    ({"x": []}, "x must contain at least one value"),
])
def test_errors_before_any_draw(kwargs, message):
    arguments = {"x": [1.0, 2.0, 3.0], "quants": [0.25, 0.75], "eps": 1.0, "lower_bound": 0,
                 "upper_bound": 5}
    arguments.update(kwargs)
    rng = np.random.default_rng(2)
    state = rng.bit_generator.state
    acc = BudgetAccountant(5.0)
    with pytest.raises(ValueError, match=message):
        quantilesDP(**arguments, random_state=rng, accountant=acc)
    assert rng.bit_generator.state == state
    assert acc.ledger == []


def test_dask_data_refused_before_any_draw():
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.arange(100.0), chunks=10)
    with pytest.raises(TypeError, match="does not run on Dask data"):
        quantilesDP(x, [0.5], 1.0, 0, 100)
    with pytest.raises(TypeError, match="does not run on Dask data"):
        boundsDP(x, 1.0)


# --------------------------------------------------------------------------------------------
# boundsDP
# --------------------------------------------------------------------------------------------


def test_bounds_counts_and_selection():
    # With a huge eps the mechanism picks the best candidate: lower makes #{x < g} closest
    # to 0.01 n, upper #{x <= g} closest to 0.99 n, ties at grid points included.
    x = np.r_[np.zeros(10), np.arange(1.0, 991.0)]  # 10 zeros (a grid point), then 1 ... 990
    grid = np.array([-1.0, 0.0, 1.0, 10.0, 100.0, 980.0, 989.0, 1000.0])
    lo, hi = boundsDP(x, 1e6, grid=grid, random_state=1)
    # #{x < 0} = 0, #{x < 1} = 10 = 0.01 n (n = 1000)
    assert lo == 1.0
    # #{x <= 989} = 999, #{x <= 980} = 990 = 0.99 n
    assert hi == 980.0


def test_bounds_accuracy_and_order():
    rng = np.random.default_rng(8)
    x = rng.lognormal(3.0, 1.0, 50_000)
    for seed in range(5):
        b = boundsDP(x, 1.0, random_state=seed)
        assert b.lower < b.upper
        below = np.mean(x < b.lower)
        above = np.mean(x > b.upper)
        # within a grid step (factor 1.78) of the 1% and 99% quantiles
        assert np.quantile(x, 0.01) / 1.78 <= b.lower <= np.quantile(x, 0.01) * 1.78
        assert np.quantile(x, 0.99) / 1.78 <= b.upper <= np.quantile(x, 0.99) * 1.78
        assert below < 0.05 and above < 0.05
    # one value: upper is moved above lower
    b = boundsDP(np.full(100, 3.0), 1.0, random_state=1)
    assert b.lower < b.upper


def test_bounds_then_statistics_end_to_end():
    # eps n = 10^4 for the bounds: above the 3200 their Notes ask for
    x = np.random.default_rng(9).normal(100.0, 15.0, 20_000)
    with BudgetAccountant(2.0) as acc:
        lo, hi = boundsDP(x, 0.5, random_state=1)
        mean = dppack.meanDP(x, 1.0, lo, hi, random_state=2)
        q = quantilesDP(x, [0.25, 0.5, 0.75], 0.5, lo, hi, random_state=3)
    assert acc.spent.eps == pytest.approx(2.0)
    assert abs(mean - 100.0) < 5 and np.all(np.abs(q - np.quantile(x, [0.25, 0.5, 0.75])) < 5)


def test_bounds_on_empty_data():
    # add/remove privacy: no data is released (every candidate has utility 0: each bound
    # uniform on the grid before the fix-up). Chi-square of lower over a grid of 5 (upper
    # <= lower moves lower down unless lower is the smallest): false-failure 1e-3.
    grid = np.arange(5.0)
    rng = np.random.default_rng(41)
    lows, highs = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(5000):
            lo, hi = boundsDP([], 1.0, grid=grid, random_state=rng)
            assert lo < hi and lo in grid and hi in grid
            lows.append(lo)
            highs.append(hi)
        # before the fix-up i, j are independent uniforms on 0..4; the law of lower after
        # it by enumeration of the 25 pairs
        expected = np.zeros(5)
        for i in range(5):
            for j in range(5):
                a = i
                if j <= i:
                    a = min(i + 1, 4) - 1
                expected[a] += 1 / 25
        counts = np.bincount(np.array(lows, dtype=int), minlength=5)
        keep = expected > 0
        assert stats.chisquare(counts[keep], expected[keep] * len(lows)).pvalue > ALPHA
        lo, hi = boundsDP(np.empty(0), 1.0, random_state=1)  # the default grid too
        assert lo < hi


def test_bounds_warn_at_the_grid_edges():
    grid = np.array([0.0, 1.0, 2.0, 3.0])
    # 99 data at 2.5, one beyond: #{x <= 3} = 99 = 0.99 n, a huge eps: upper = 3, the
    # largest candidate
    with pytest.warns(UserWarning, match="upper = 3 is the grid's largest candidate"):
        boundsDP(np.r_[np.full(99, 2.5), 50.0], 1e6, grid=grid, random_state=1)
    # all data at the smallest candidate: #{x < 0} = 0 is closest to 0.01 n, so lower = 0
    with pytest.warns(UserWarning, match="lower = 0 is the grid's smallest candidate"):
        boundsDP(np.r_[np.zeros(100), np.full(100, 1.5)], 1e6, grid=grid, random_state=1)
    # inside the grid: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = boundsDP(np.r_[np.full(5, 0.5), np.full(90, 1.5), np.full(5, 2.5)], 1e6,
                          quants=(0.05, 0.95), grid=grid, random_state=1)
    assert (lo, hi) == (1.0, 2.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"quants": [0.01]}, "quants must be two numbers"),
    ({"quants": [0.99, 0.01]}, "increasing order"),
    ({"grid": [1.0]}, "grid must hold at least two"),
    ({"grid": [0.0, float("inf")]}, "grid must hold at least two"),
    ({"eps": -1}, "eps"),
    ({"x": ["a"]}, "x must be numeric"),
])
def test_bounds_errors(kwargs, message):
    arguments = {"x": [1.0, 2.0, 3.0], "eps": 1.0}
    arguments.update(kwargs)
    rng = np.random.default_rng(2)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=message):
        boundsDP(**arguments, random_state=rng)
    assert rng.bit_generator.state == state
