"""Accuracy reports of quantilesDP 'joint' and 'recursive', and of boundsDP (issue 16 item 5):
``dppack.noiseIntervalDP``; the derivations are in :mod:`dppack.accuracy`.

* Formulas: each report against the formula of the module docstring, written out here
  (deterministic).
* Coverage: the real releases (fixed seeds) on data near the worst case, the number of
  draws whose rank error exceeds the data's best achievable one plus the report, compared
  with alpha by an exact one-sided binomial test at level 1e-6: each test's false-failure
  rate is at most 1e-6 (at most 2e-6 where two counts are tested), below 1e-5 for the file.
  The data are chosen so that a bound weakened below the report (ln(1 / alpha) dropped, m
  replaced by 1) is exceeded far more often than alpha (each test says which).
* The recursive method's weights: the rank error of each quantile equals the weighted sum
  of the node errors along its path, exactly (deterministic, on real releases).
"""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

import dppack
from dppack import quantiles
from dppack.stats import _quantile
from dppack.accuracy import noiseIntervalDP

# Simulations whose outcome does not depend on NumPy: make test runs them once.
pytestmark = pytest.mark.one_suite

LEVEL = 1e-6  # each binomial test's false-failure rate
SLACK = 2.0 ** -20


def _not_above(misses, trials, p):
    assert binomtest(int(misses), trials, p, alternative="greater").pvalue > LEVEL, (
        misses, trials, p)


def _above(misses, trials, p):
    """The planted (weakened) bound is exceeded more often than p (the data have teeth)."""
    assert binomtest(int(misses), trials, p, alternative="greater").pvalue < LEVEL, (
        misses, trials, p)


def _message(call):
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


# --------------------------------------------------------------------------------------------
# Joint (JointExp)
# --------------------------------------------------------------------------------------------


def _joint_formula(eps, m, lower, upper, r, alpha):
    # ln((N + 1) G + m - 1): the release on the resolution's lattice, G refined candidates
    # per point (quantiles.SUBPOINTS), wider than the fine grid's ln(2 N)
    # (where that release exists: a resolution quantilesDP accepts)
    level = alpha / (1 + SLACK) - m * 2.0 ** -50 * (1 + max(abs(lower), abs(upper)) / r)
    cells = 2 * (upper - lower) / r
    if max(abs(lower), abs(upper)) / r <= 2.0 ** 40:
        cells = (round((upper - lower) / r) + 1) * dppack.quantiles.SUBPOINTS + m - 1
    return 4.0 / eps * (m * (math.log(cells) + SLACK) + math.log(1 / level))


def _best_total(x, quants, lower, upper, r):
    """T*: the smallest total gap deviation over the interval sequences k_1 <= ... <= k_m
    of intervals at least r / 2 wide (brute-force dynamic program, O(m n^2))."""
    x = np.sort(np.clip(x, lower, upper))
    n = x.size
    edges = np.concatenate([[lower], x, [upper]])
    ok = np.diff(edges) >= r / 2  # interval k = [x_k, x_{k+1}) counts for T*
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    k = np.arange(n + 1)
    cost = np.where(ok, np.abs(k - d[0]), np.inf)
    for j in range(1, quants.size):
        step = np.abs(k[:, None] - k[None, :] - d[j])  # [k, k']
        step[k[:, None] < k[None, :]] = np.inf  # k' <= k
        cost = np.where(ok, np.min(cost[None, :] + step, axis=1), np.inf)
    return float(np.min(cost + np.abs(n - k - d[-1])))


def _joint_errors(x, quants, outs, lower, upper):
    """(total gap deviation, largest rank error) of each release (rows of outs)."""
    x = np.clip(x, lower, upper)
    n = x.size
    c = np.sum(x[None, None, :] <= outs[:, :, None], axis=2)
    gaps = np.diff(np.concatenate([np.zeros((c.shape[0], 1)), c,
                                   np.full((c.shape[0], 1), n)], axis=1), axis=1)
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    return np.abs(gaps - d).sum(axis=1), np.abs(c - quants * n).max(axis=1)


def _joint_report(eps, **arguments):
    """The report of quantilesDP's 'joint' method (not the default)."""
    return noiseIntervalDP("quantilesDP", eps, method="joint", **arguments)


def _joint(*arguments, **options):
    """quantilesDP's 'joint' release (not the default)."""
    return dppack.quantilesDP(*arguments, method="joint", **options)


def test_joint_formula():
    # Planted: ln(1 / alpha) dropped, m -> 1 in m ln N, 4 / eps -> 2 / eps, the whole
    # total instead of its half: each changes these values.
    for eps, quants, lower, upper, r, alpha in [(1.0, [0.25, 0.5, 0.75], 0, 100, 1, 0.05),
                                                (0.3, [0.1, 0.9], -2.5, 7.5, 0.5, 0.01),
                                                (2.0, [0.5], 18, 90, 1, 0.2)]:
        report = _joint_report(eps, quants=quants, lower_bound=lower,
                                 upper_bound=upper, resolution=r, alpha=alpha)
        total = _joint_formula(eps, len(quants), lower, upper, r, alpha)
        assert report.details["total"] == pytest.approx(total, rel=1e-12)
        assert report.half_width == pytest.approx(total / 2, rel=1e-12)
        assert report.units == "rank" and report.simultaneous
        assert report.details["grid_points"] == round((upper - lower) / r)
        with pytest.raises(ValueError, match="rank error"):
            report.interval(1.0)
    # m = 1: the continuous quantile's theorem, (2 / eps)(ln |R| + ln(1 / alpha)), as
    # quantileDP's report with |R| = (N + 1) G candidates (the refined lattice of the
    # release with this resolution; up to the slack). Planted: ln N for ln |R| -> this and
    # the formula above fail.
    one = _joint_report(1.0, quants=[0.3], lower_bound=0, upper_bound=1000,
                          resolution=1)
    cells = 1001 * dppack.quantiles.SUBPOINTS
    assert one.half_width == pytest.approx(2 * (math.log(cells) + math.log(20)), rel=1e-5)


def test_joint_formula_on_the_release_grid():
    # The release counts grid points of g = 2^j (j = -18 for bounds [0, 2^40]): an interval
    # at least r / 2 wide holds l >= r / (2 g) - 2 = 8190 of them and the bounds W = 2^58, so
    # ln((W + m - 1) / l) exceeds ln(2 N) = ln(2^45) by ln(8192 / 8190) = 2.4e-4, more than
    # the slack: the report takes the larger. Planted: ln(2 N) alone -> fails.
    lower, upper, r, eps, alpha = 0.0, 2.0 ** 40, 2.0 ** -4, 1.0, 0.05
    report = _joint_report(eps, quants=[0.5], lower_bound=lower, upper_bound=upper,
                           resolution=r, alpha=alpha)
    level = alpha / (1 + SLACK) - 2.0 ** -50 * (1 + upper / r)
    grid = 4.0 / eps * (math.log(2.0 ** 58 / 8190) + SLACK + math.log(1 / level))
    assert report.details["total"] == pytest.approx(grid, rel=1e-12)
    assert report.details["total"] > _joint_formula(eps, 1, lower, upper, r, alpha) + 9e-4


def test_joint_coverage_worst_case():
    # Both outputs of quants (0.5, 0.5) in one gap of width ~N between 15 and 25 integers
    # (n = 40): each rank error 5 there, the total 10, on a volume N^2 / 2 against the
    # optimum's 1/2 (the ratio N^2 of the theorem, attained). eps = 8, N = 10^4: the report
    # is 5.35, so the gap never misses; a weakened report (ln(1 / alpha) dropped: 4.6; m -> 1:
    # 3.05) misses whenever the gap is drawn, 14 percent of the draws here (planted: caught
    # by _above and by the coverage check with the weakened value).
    n, big, s = 40, 10_000, 5
    x = np.concatenate([np.arange(n // 2 - s), big - n // 2 - s - 1 + np.arange(n // 2 + s)])
    x = x.astype(np.float64)
    quants = np.array([0.5, 0.5])
    report = _joint_report(8.0, quants=quants, lower_bound=0,
                             upper_bound=big, resolution=1)
    trials = 1500
    outs = np.array([_joint(x, quants, 8.0, 0, big, random_state=seed)
                     for seed in range(trials)])
    total, largest = _joint_errors(x, quants, outs, 0, big)
    best = _best_total(x, quants, 0, big, 1)
    assert best == 0
    _not_above(np.sum(total > best + report.details["total"]), trials, 0.05)
    _not_above(np.sum(largest > best / 2 + report.half_width), trials, 0.05)
    weak = 2.0 / 8.0 * 2 * math.log(big)  # ln(1 / alpha) dropped
    _above(np.sum(largest > best / 2 + weak), trials, 0.05)
    _above(np.sum(largest > best / 2 + 2.0 / 8.0 * (math.log(big) + math.log(20))), trials,
           0.05)


def test_joint_coverage_ties():
    # Whole-number ages with many ties (best total > 0): every miss counted against
    # best / 2 + the report, m = 3, eps = 1 (and the total against best + total).
    rng = np.random.default_rng(7)
    x = np.round(np.clip(rng.normal(45, 12, 150), 18, 90)).astype(np.float64)
    quants = np.array([0.2, 0.5, 0.8])
    report = _joint_report(1.0, quants=quants, lower_bound=18,
                             upper_bound=90, resolution=1, alpha=0.1)
    trials = 300
    outs = np.array([_joint(x, quants, 1.0, 18, 90, random_state=seed)
                     for seed in range(trials)])
    total, largest = _joint_errors(x, quants, outs, 18, 90)
    best = _best_total(x, quants, 18, 90, 1)
    _not_above(np.sum(total > best + report.details["total"]), trials, 0.1)
    _not_above(np.sum(largest > best / 2 + report.half_width), trials, 0.1)


def test_joint_grid_is_checked_in_absolute_steps():
    # A relative check (1e-9 N) let upper = 1000.0000001 pass with r = 0.001 (N = 10^6, 1e-4
    # steps off the grid): the top interval [1000, 1000.0000001) is 10^4 times narrower than
    # r, and with 34 values at 1000, quants = 1, eps = 1 the old report missed in 0.997 of
    # the releases. Planted: the relative check -> this passes the bounds.
    with pytest.raises(ValueError, match="must divide"):
        _joint_report(1.0, quants=[1], lower_bound=0,
                        upper_bound=1000.0000001, resolution=0.001)
    # floating-point spellings of a grid point stay accepted (N = 3 + 4e-16)
    _joint_report(1.0, quants=[1], lower_bound=0, upper_bound=0.1 * 3,
                    resolution=0.1)


@pytest.mark.parametrize("values,upper,r", [
    (np.full(9, 0.3), 0.1 * 3, 0.1),  # the bound 0.30000000000000004 above the data's 0.3
    (np.full(34, 1000.0), 1000 + 5e-10, 0.001),  # a bound 5e-7 steps above the grid
])
def test_joint_coverage_narrow_top_interval(values, upper, r):
    # Data at the top of a grid whose upper bound is a floating-point spelling a little above
    # them: the top interval [x_n, b) has positive width but is far narrower than r, so the
    # best total over positive widths is 0 (every datum below the output) while the release
    # almost never puts its output there (c = 0: rank error n). T* (intervals >= r / 2) is
    # 2 n, and the report holds against it; against the positive-width best (0) with the old
    # ln N report, it misses in every draw (planted: _above). The binomial tests' false-
    # failure rate is 1e-6 each.
    quants = np.array([1.0])
    n = values.size
    report = _joint_report(1.0, quants=quants, lower_bound=0,
                             upper_bound=upper, resolution=r)
    trials = 400
    outs = np.array([_joint(values, quants, 1.0, 0, upper, random_state=seed)
                     for seed in range(trials)])
    total, largest = _joint_errors(values, quants, outs, 0, upper)
    best = _best_total(values, quants, 0, upper, r)
    assert best == 2 * n
    _not_above(np.sum(total > best + report.details["total"]), trials, 0.05)
    _not_above(np.sum(largest > best / 2 + report.half_width), trials, 0.05)
    old = 2.0 * (math.log(round(upper / r)) + math.log(20))  # ln N, positive widths: T* = 0
    assert _best_total(values, quants, 0, upper, 1e-300) == 0
    _above(np.sum(largest > old), trials, 0.05)


@pytest.mark.parametrize("resolution,message", [
    (None, "needs resolution"), (0, "resolution must be a positive number."),
    (-1, "resolution must be a positive number."), (np.inf, "positive number"),
    ("a", "resolution must be a positive number."), (0.7, "must divide"),
    (200, "must divide"), (1e-15, "too fine")])
def test_joint_resolution_checks(resolution, message):
    # Planted: no check of divisibility -> 0.7 and 200 pass; resolution left optional ->
    # None passes.
    arguments = {} if resolution is None else {"resolution": resolution}
    with pytest.raises(ValueError, match=message):
        _joint_report(1.0, quants=[0.5], lower_bound=0, upper_bound=100,
                        **arguments)


def test_resolution_of_the_release_for_recursive_and_independent():
    # 'recursive' and 'independent' take the release's resolution (issue 28): its N + 1
    # candidates replace the 2^59 of the fine grid, a smaller bound.
    for method in ("independent", "recursive"):
        with_r = noiseIntervalDP("quantilesDP", 1.0, quants=[0.5], lower_bound=0,
                                 upper_bound=1, method=method, resolution=0.5)
        without = noiseIntervalDP("quantilesDP", 1.0, quants=[0.5], lower_bound=0,
                                  upper_bound=1, method=method)
        assert np.all(np.asarray(with_r.half_width) < np.asarray(without.half_width))


@pytest.mark.parametrize("quants,method,which", [
    ([0.5, 0.1], "joint", "bounded"), (["a"], "recursive", "bounded"),
    ([], "joint", "bounded"), ([0.5], "nonsense", "bounded"),
    ([0.5], "recursive", "both")])
def test_quantiles_checks_are_the_releases(quants, method, which):
    release = _message(lambda: dppack.quantilesDP(np.arange(4.0), quants, 1.0, 0, 3,
                                                  method=method, which_sensitivity=which))
    report = _message(lambda: noiseIntervalDP(
        "quantilesDP", 1.0, quants=quants, lower_bound=0, upper_bound=3, method=method,
        which_sensitivity=which, resolution=1))
    assert report == release


# --------------------------------------------------------------------------------------------
# Recursive
# --------------------------------------------------------------------------------------------


def _nodes(x, quants, slots, lower, upper, out, found):
    """The releases of 'recursive' rebuilt from its outputs (Kaplan, Schnapp and Stemmer
    2022, as quantilesDP's docstring states it): each node's records, quantile, range,
    release and path weights."""
    if not quants.size:
        return
    middle = (quants.size - 1) // 2
    q = float(quants[middle])
    assert lower < upper  # no squeezed part in these data
    value = out[slots[middle]]
    found.append(dict(slot=slots[middle], x=x, q=q, lower=lower, upper=upper, value=value,
                      below=list(slots[:middle]), above=list(slots[middle + 1:]),
                      left=quants[:middle] / q if q > 0 else np.zeros(middle),
                      right=(np.clip((quants[middle + 1:] - q) / (1 - q), 0, 1)
                             if q < 1 else np.ones(quants.size - middle - 1))))
    node = found[-1]
    _nodes(x[x <= value], node["left"], slots[:middle], lower, value, out, found)
    _nodes(x[x > value], node["right"], slots[middle + 1:], value, upper, out, found)


def _node_error_and_best(node):
    """The node's local rank error (signed) and its best achievable one, over quantileDP's
    candidates on its range (the grid points; data on the grid)."""
    j, first, last = _quantile._quantile_grid(node["lower"], node["upper"])
    records = np.sort(_quantile._to_grid(node["x"], j, first, last))
    n = records.size
    point = int(round(math.ldexp(node["value"], -j)))
    error = int(np.sum(records <= point)) - node["q"] * n
    edges = np.concatenate([[first], records, [last]])
    ok = np.diff(edges) > 0
    best = float(np.min(np.abs(np.arange(n + 1) - node["q"] * n)[ok]))
    return error, best


def _weights_of(nodes, m):
    """For each slot, [(node index, weight)] along its path (from the rebuilt nodes)."""
    path = {slot: [] for slot in range(m)}
    for i, node in enumerate(nodes):
        path[node["slot"]].append((i, 1.0))
        for slot, rescaled in zip(node["below"], node["left"]):
            path[slot].append((i, float(rescaled)))
        for slot, rescaled in zip(node["above"], node["right"]):
            path[slot].append((i, 1.0 - float(rescaled)))
    return path


def _recursive_check(x, quants, eps, lower, upper, which, seeds):
    """(max over quantiles of error - weighted best, per-quantile excess) per draw."""
    m = quants.size
    excess = np.empty((len(seeds), m))
    for row, seed in enumerate(seeds):
        out = dppack.quantilesDP(x, quants, eps, lower, upper, method="recursive",
                                 which_sensitivity=which, random_state=seed)
        nodes = []
        _nodes(x, quants, list(range(m)), lower, upper, out, nodes)
        errors = [_node_error_and_best(node) for node in nodes]
        path = _weights_of(nodes, m)
        ranks = np.sum(np.clip(x, lower, upper)[None, :] <= out[:, None], axis=1)
        for slot in range(m):
            best = sum(w * errors[i][1] for i, w in path[slot])
            excess[row, slot] = abs(ranks[slot] - quants[slot] * x.size) - best
    return excess


def test_recursion_weights_are_exact():
    # The identity behind the report: each quantile's rank error is the weighted sum of the
    # node errors on its path, weights from quantiles.recursion_weights (real releases,
    # uneven quantiles). Planted: a right child's weight q' instead of 1 - q' fails it.
    rng = np.random.default_rng(11)
    x = rng.integers(0, 1000, 301).astype(np.float64)
    quants = np.array([0.05, 0.2, 0.3, 0.55, 0.6, 0.9, 0.97])
    weights = quantiles.recursion_weights(quants)
    for seed in range(20):
        out = dppack.quantilesDP(x, quants, 0.5, 0, 1000, method="recursive",
                                 random_state=seed)
        nodes = []
        _nodes(x, quants, list(range(quants.size)), 0, 1000, out, nodes)
        path = _weights_of(nodes, quants.size)
        errors = [_node_error_and_best(node)[0] for node in nodes]
        ranks = np.sum(x[None, :] <= out[:, None], axis=1)
        for slot in range(quants.size):
            assert [w for _, w in path[slot]] == pytest.approx(weights[slot])
            total = sum(w * errors[i] for i, w in path[slot])
            assert ranks[slot] - quants[slot] * x.size == pytest.approx(total, abs=1e-9)


def test_recursive_formula():
    # Per quantile: sum over its path of weight x the node's quantileDP bound at the share,
    # the root with quantile_candidates(lower, upper), the others with the most any
    # sub-range has. Planted: depth instead of the weights, eps instead of the share, the
    # full range's candidates for every node, alpha instead of the per-node level.
    quants = np.array([0.25, 0.5, 0.75])
    for which, share in (("bounded", 1.0 / 3), ("unbounded", 1.0 / 2)):
        for simultaneous in (True, False):
            report = noiseIntervalDP("quantilesDP", 1.0, quants=quants, lower_bound=0,
                                     upper_bound=100, method="recursive", n=200,
                                     which_sensitivity=which, simultaneous=simultaneous)
            root = _quantile.quantile_candidates(0, 100)
            inner = 2 ** 59
            expected = []
            for weights, depth in (([0.5, 1.0], 2), ([1.0], 1), ([0.5, 1.0], 2)):
                level = 1 - 0.95 ** (1 / (3 if simultaneous else depth))
                # Delta' of quantileDP's utilities: 1 bounded, max(q, 1 - q) = 1/2 unbounded
                # (every node's rescaled q is 1/2 here), on the grid h = Delta / 2^20
                h = 2 ** -20 if which == "bounded" else 2 ** -21
                delta = (2 ** 20 + 1) * h

                def bound(count):
                    return 2 * delta / share * (math.log(count) + math.log(1 / level)) + h
                expected.append(weights[0] * bound(root) + sum(weights[1:]) * bound(inner))
            assert report.half_width == pytest.approx(expected, rel=1e-12)
            assert report.simultaneous == simultaneous
            assert list(report.details["depth"]) == [2, 1, 2]
            assert report.details["eps_each"] == pytest.approx(share)
    # m = 1: quantileDP itself at eps (bounded or not)
    one = noiseIntervalDP("quantilesDP", 0.7, quants=[0.3], lower_bound=0, upper_bound=1,
                          method="recursive", n=50)
    assert one.half_width[0] == noiseIntervalDP("quantileDP", 0.7, quant=0.3, lower_bound=0,
                                                upper_bound=1, n=50).half_width


def test_candidates_within_cover_every_subrange():
    # A sub-range may have more candidates than the full range (a finer grid): the bound
    # used for the inner nodes is above every sub-range's count. Planted: the full range's
    # count -> [0, 511] within [0, 1000] exceeds it.
    rng = np.random.default_rng(5)
    for lower, upper in [(0, 1000), (-3, 5), (-1e6, -2), (0.001, 0.002)]:
        limit = _quantile.quantile_candidates_within(lower, upper)
        ends = np.sort(rng.uniform(lower, upper, (2000, 2)), axis=1)
        special = [(lower, upper), (lower, 511), (0, upper), (-upper, upper), (lower, -lower)]
        for lo, hi in list(map(tuple, ends)) + special:
            if lower <= lo < hi <= upper:
                assert _quantile.quantile_candidates(lo, hi) <= limit
    assert _quantile.quantile_candidates(0, 511) > _quantile.quantile_candidates(0, 1000)


def test_recursive_coverage_worst_case():
    # The root's median at grid resolution: 30 records at the bottom of [0, 1] on
    # quantileDP's own grid (2^-58 apart: intervals of one candidate), 10 near the top, so
    # that almost all of the |R| = 2^58 candidates lie in one interval 10 ranks off. With
    # eps / 3 = 2 (ln 2^58 + 1) / 10 per release that interval weighs e^-1 against about 1
    # for the optimum: the root errs by 10 in a quarter of the draws, below its report (10.5
    # for the median alone, 10.8 for all three), above a weakened one (ln(1 / alpha)
    # dropped: 9.8; planted: caught by _above and by the coverage checks). The children
    # inherit half the root's error (their weights, tested exactly above). Misses of the
    # simultaneous report (any quantile) and of the per-quantile ones against alpha.
    g = 2.0 ** -58
    x = np.concatenate([np.arange(30) * g, 1 - 2.0 ** -52 * np.arange(1, 11)])
    quants = np.array([0.25, 0.5, 0.75])
    eps = 3 * 2 * (58 * math.log(2) + 1) / 10
    seeds = range(600)
    excess = _recursive_check(x, quants, eps, 0.0, 1.0, "bounded", seeds)
    joint = noiseIntervalDP("quantilesDP", eps, quants=quants, lower_bound=0, upper_bound=1,
                            method="recursive", n=x.size, simultaneous=True)
    each = noiseIntervalDP("quantilesDP", eps, quants=quants, lower_bound=0, upper_bound=1,
                           method="recursive", n=x.size)
    assert 10 < each.half_width[1] < joint.half_width[1]
    _not_above(np.sum(np.any(excess > joint.half_width, axis=1)), len(seeds), 0.05)
    for slot in range(3):
        _not_above(np.sum(excess[:, slot] > each.half_width[slot]), len(seeds), 0.05)
    weak = 2 * (1 + 2 ** -20) / (eps / 3) * 58 * math.log(2)  # the root, ln(1 / alpha) dropped
    _above(np.sum(excess[:, 1] > weak), len(seeds), 0.05)


def test_recursive_coverage_unbounded_many():
    # Seven quantiles of whole numbers (ties), 'unbounded' share eps / 3.
    rng = np.random.default_rng(2)
    x = rng.integers(0, 60, 200).astype(np.float64)
    quants = np.linspace(0.1, 0.9, 7)
    excess = _recursive_check(x, quants, 3.0, 0, 60, "unbounded", range(150))
    report = noiseIntervalDP("quantilesDP", 3.0, quants=quants, lower_bound=0,
                             upper_bound=60, method="recursive", n=200,
                             which_sensitivity="unbounded", simultaneous=True)
    _not_above(np.sum(np.any(excess > report.half_width, axis=1)), 150, 0.05)


# --------------------------------------------------------------------------------------------
# boundsDP
# --------------------------------------------------------------------------------------------


def _bounds_formula(eps, size, alpha):
    delta = 1 + 2 ** -20
    return 2 * delta / (eps / 2) * (math.log(size) + math.log(1 / alpha)) + 2 ** -20


def test_bounds_formula():
    # Planted: eps instead of eps / 2, ln(1 / alpha) dropped, the grid's size unsorted/with
    # duplicates (G counts distinct candidates), Sidak's level not applied.
    report = noiseIntervalDP("boundsDP", 1.0)
    assert report.half_width == pytest.approx(_bounds_formula(1.0, 131, 0.05), rel=1e-12)
    assert round(report.half_width, 1) == 31.5  # boundsDP's docstring: 4 log(2620)
    both = noiseIntervalDP("boundsDP", 0.5, grid=[3, 1, 2, 2, 5], simultaneous=True,
                           alpha=0.1)
    assert both.details["candidates"] == 4
    assert both.half_width == pytest.approx(
        _bounds_formula(0.5, 4, 1 - 0.9 ** 0.5), rel=1e-12)
    with pytest.raises(ValueError, match="rank error"):
        both.interval(1.0)


@pytest.mark.filterwarnings("ignore:boundsDP. .* the grid")  # upper often the top candidate
def test_bounds_coverage_worst_case():
    # A grid of the integers 0 ... 9999 (G = 10^4), n = 200, quants (0.1, 0.9): 15 data
    # below the grid, 5 between its last two points, 180 above it. Every candidate but the
    # last leaves 15 data below it (5 short of q n = 20), the last 20: the best is 0 and G - 1
    # candidates are 5 ranks off, on the upper side likewise (160 best, 165 the others).
    # eps = 8: the report is 6.1 (6.4 for both at once); a weakened one (ln(1 / alpha)
    # dropped: 4.6) is exceeded in about 20 percent of the draws (planted: caught by
    # _above). The fix-up (upper <= lower) acts in half the draws: then the one-sided
    # bounds of the module docstring are checked; without it, the two-sided ones.
    grid = np.arange(10_000.0)
    x = np.concatenate([np.full(15, -1.0), np.full(5, 9998.5), 10_000 + np.arange(180.0)])
    n, quants, eps = x.size, (0.1, 0.9), 8.0
    less = np.array([np.sum(x < g) for g in (0.0, 9999.0)])
    best_lo = float(np.min(np.abs(np.sum(x[None, :] < grid[:, None], axis=1) - 0.1 * n)))
    best_hi = float(np.min(np.abs(np.sum(x[None, :] <= grid[:, None], axis=1) - 0.9 * n)))
    assert (best_lo, best_hi, list(less)) == (0.0, 160.0, [15, 20])
    report = noiseIntervalDP("boundsDP", eps, grid=grid, n=n, simultaneous=True)
    trials = 1000
    misses, weak_misses, fixed = 0, 0, 0
    weak = 4 / eps * math.log(grid.size)
    for seed in range(trials):
        lower, upper = dppack.boundsDP(x, eps, quants, grid, random_state=seed)
        below, at_most = np.sum(x < lower), np.sum(x <= upper)
        e_lo, e_hi = below - 0.1 * n, at_most - 0.9 * n
        adjacent = upper - lower == 1
        fixed += adjacent
        for h, count in ((report.half_width, "misses"), (weak, "weak")):
            if adjacent:  # maybe fixed up: lower only lower, upper only higher
                miss = e_lo > best_lo + h or -e_hi > best_hi + h
            else:
                miss = abs(e_lo) > best_lo + h or abs(e_hi) > best_hi + h
            if miss and count == "misses":
                misses += 1
            elif miss:
                weak_misses += 1
    assert 0.3 < fixed / trials < 0.9  # adjacent pairs: fixed up, or drawn so
    _not_above(misses, trials, 0.05)
    _above(weak_misses, trials, 0.05)


@pytest.mark.parametrize("arguments", [dict(quants=(0.9, 0.1)), dict(quants=(0.1, 0.5, 0.9)),
                                       dict(quants="a"), dict(grid=[1.0]),
                                       dict(grid=[0, np.inf]), dict(grid="a"),
                                       dict(eps=-1.0), dict(eps=np.inf)])
def test_bounds_checks_are_the_releases(arguments):
    eps = arguments.pop("eps", 1.0)
    release = _message(lambda: dppack.boundsDP(np.arange(4.0), eps, **arguments))
    report = _message(lambda: noiseIntervalDP("boundsDP", eps, **arguments))
    assert report == release
