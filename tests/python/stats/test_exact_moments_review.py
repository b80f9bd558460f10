"""Review of the exact moment statistics (issue 25): checks that catch bugs the first tests
of ``test_exact_moments.py`` let through when planted one at a time (the review's table).

* The sensitivities each release hands to the mechanism are at least DPpack's with U - L
  replaced by the width Q g of the rounded records' range, as exact rationals (and within
  a few ulps of it): bounds whose width is just above a power of two, where Q g exceeds
  U - L the most (Q = 2^20 + 1), for meanDP, varDP, covDP, pooledVarDP and pooledCovDP
  (both values of approx_n_max). Caught: U - L in place of Q g, approx_n_max read the
  wrong way round, the pooled width (Q - 1) g, a pooled sensitivity rounded to nearest in
  floats (below the exact value for about half of all sizes).
* The unbounded unit statistics: adding one record at L, U or in between moves each of
  them by at most 1, and each equals the exact centred sum of the rounded records over
  its sensitivity (mis-centred sums caught, also by half a step).
* The noise of the exact entry point is the mechanisms' own law: ``release_exact`` of a
  float value gives ``LaplaceMechanism`` / ``GaussianMechanism`` of that value bit for bit
  (the widening of the noise by the rounding step left out is caught).
* Exactness end to end near 0 with bounds not anchored at 0 (the offset c0 of the grid),
  for the mean's one-addition path and the others.
* Exact sums past the int64 partial sums: 2^22 records at Q = 2^21 (S2 = 2^64).
* 'both' charges the pair's loss (3 eps) to the accountant.

All deterministic (fixed data and seeds): no false failures. About 2 s.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import dppack
from dppack import _exact_sums, _random, accounting
from dppack.mechanisms import _additive
from dppack.stats import _moments, _pooled, _release

# U - L = (2^20 + 1/2 + 2^-20) g, g = 2^-30: Q = 2^20 + 1, Q g - (U - L) about g / 2
WIDE_L, WIDE_U = 0.5, 0.5 + 2.0 ** -10 + 2.0 ** -31 + 2.0 ** -50
# near 0, not anchored at 0: c0 = rint(L / g) != 0
NEAR_L, NEAR_U = -0.3, 1.1


def _width(lower, upper):
    k, top = _exact_sums.data_grid(lower, upper)
    return Fraction(top) * Fraction(2) ** k


@pytest.fixture
def spy(monkeypatch):
    """The sensitivities the releases pass to ``release_exact``, in call order."""
    seen = []
    real = _additive.release_exact

    def record(values, eps, sensitivity, *args):
        seen.append(sensitivity)
        return real(values, eps, sensitivity, *args)

    for module in (_moments, _pooled, _release):
        monkeypatch.setattr(module, "release_exact", record)
    return seen


def _close_above(sensitivity, exact):
    """The float handed on covers the exact value and is within 2^-50 of it."""
    assert Fraction(sensitivity) >= exact
    assert Fraction(sensitivity) <= exact * (1 + Fraction(1, 2 ** 50))


def test_bounded_sensitivities_cover_the_rounded_range(spy):
    rng = np.random.default_rng(3)
    x = WIDE_L + (WIDE_U - WIDE_L) * rng.random(7)
    y = rng.random(7)
    w, w2 = _width(WIDE_L, WIDE_U), _width(0.0, 1.0)
    assert w > Fraction(WIDE_U) - Fraction(WIDE_L)  # Q g above U - L
    n = x.size
    dppack.meanDP(x, 1.0, WIDE_L, WIDE_U, random_state=1)
    _close_above(spy[-1], w / n)
    dppack.varDP(x, 1.0, WIDE_L, WIDE_U, random_state=1)
    _close_above(spy[-1], w * w / n)
    dppack.covDP(x, y, 1.0, WIDE_L, WIDE_U, 0.0, 1.0, random_state=1)
    _close_above(spy[-1], w * w2 / n)


SIZES = [(3, 4), (5, 7, 2), (3, 3), (11, 6, 9, 4)]


@pytest.mark.parametrize("approx", [False, True])
@pytest.mark.parametrize("sizes", SIZES)
def test_pooled_sensitivities_cover_the_rounded_range(spy, sizes, approx):
    rng = np.random.default_rng(4)
    samples = [WIDE_L + (WIDE_U - WIDE_L) * rng.random(m) for m in sizes]
    w, w2 = _width(WIDE_L, WIDE_U), _width(0.0, 1.0)
    dof = sum(sizes) - len(sizes)
    factor = Fraction(1) if approx else Fraction(max(sizes) - 1, max(sizes))
    dppack.pooledVarDP(*samples, eps=1.0, lower_bound=WIDE_L, upper_bound=WIDE_U,
                       approx_n_max=approx, random_state=1)
    _close_above(spy[-1], w * w * factor / dof)
    pairs = [np.c_[s, rng.random(s.size)] for s in samples]
    dppack.pooledCovDP(*pairs, eps=1.0, lower_bound1=WIDE_L, upper_bound1=WIDE_U,
                       lower_bound2=0.0, upper_bound2=1.0, approx_n_max=approx,
                       random_state=1)
    _close_above(spy[-1], w * w2 * factor / dof)


def test_pooled_sensitivity_is_rounded_up():
    """Over many sizes and bounds, the pooled bounded sensitivity is never below the exact
    DPpack formula with Q g (rounding to nearest in floats is below it about half the
    time)."""
    from dppack import _access_cores

    rng = np.random.default_rng(6)
    for lower, upper in [(0.0, 1.0), (0.1, 0.7), (-3.0, 7.0), (1e9, 1e9 + 1e-4)]:
        w = _width(lower, upper)
        for _ in range(300):
            sizes = [int(v) for v in rng.integers(2, 10 ** int(rng.integers(1, 6)),
                                                  int(rng.integers(1, 4)))]
            dof = sum(sizes) - len(sizes)
            for approx in (False, True):
                factor = Fraction(1) if approx else Fraction(max(sizes) - 1, max(sizes))
                grid = [(m, 0, 0) for m in sizes]
                out = _access_cores.pooled_grid_exact(grid, (lower, upper), approx)
                _close_above(out["Bounded.Sensitivities"], w * w * factor / dof)
                grid = [(m, 0, 0, 0, 0, 0) for m in sizes]
                out = _access_cores.pooled_grid_exact(grid, (lower, upper, 0.0, 1.0),
                                                      approx)
                _close_above(out["Bounded.Sensitivities"],
                             w * _width(0.0, 1.0) * factor / dof)


# --------------------------------------------------------------------------------------------
# Unbounded: the unit statistics
# --------------------------------------------------------------------------------------------


def _records(x, lower, upper):
    k, _ = _exact_sums.data_grid(lower, upper)
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    return [origin + Fraction(2) ** k * int(q) for q in _exact_sums.to_grid(
        np.asarray(x, float), lower, upper)]


def _unit_values(x, y, bounds):
    """centred_exact / centred_cross_exact of the data as Fractions."""
    from dppack import _access_cores

    if y is None:
        n, s1, s2 = _exact_sums.sums_of(np.asarray(x, float), *bounds, squares=True)
        out = _access_cores.centred_exact(n, s1, s2, *bounds)
    else:
        n, s1, t1, _, _, s12 = _exact_sums.pair_sums(np.asarray(x, float),
                                                     np.asarray(y, float), bounds)
        out = _access_cores.centred_cross_exact(n, s1, t1, s12, bounds)
    return [_exact_sums.to_fraction(v) for v in out["True.Values"]]


@pytest.mark.parametrize("bounds", [(NEAR_L, NEAR_U), (WIDE_L, WIDE_U), (1e9, 1e9 + 1e-4)])
def test_unbounded_unit_statistics(bounds):
    lower, upper = bounds
    w = _width(lower, upper)
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    centre, h = origin + w / 2, w / 2
    rng = np.random.default_rng(8)
    x = lower + (upper - lower) * rng.random(9)
    y = rng.random(9)
    # each value: the exact centred sum of the rounded records over its sensitivity
    r = _records(x, lower, upper)
    s = _records(y, 0.0, 1.0)
    w2 = _width(0.0, 1.0)
    c2, h2 = _exact_sums.to_fraction(_exact_sums.grid_origin(0.0, 1.0)) + w2 / 2, w2 / 2
    assert _unit_values(x, None, bounds) == [sum(v - centre for v in r) / h,
                                             sum((v - centre) ** 2 for v in r) / h ** 2,
                                             len(r)]
    assert _unit_values(x, y, bounds + (0.0, 1.0)) == [
        sum(v - centre for v in r) / h, sum(v - c2 for v in s) / h2,
        sum((u - centre) * (v - c2) for u, v in zip(r, s)) / (h * h2), len(r)]
    # one record added moves each by at most 1, and by 1 at a bound
    for extra, other in [(lower, 0.0), (upper, 1.0), (upper, 0.0), (0.5 * lower + 0.5 * upper,
                                                                     0.3)]:
        for with_y in (False, True):
            before = _unit_values(x, y if with_y else None,
                                  bounds + ((0.0, 1.0) if with_y else ()))
            after = _unit_values(np.r_[x, extra], np.r_[y, other] if with_y else None,
                                 bounds + ((0.0, 1.0) if with_y else ()))
            moves = [abs(a - b) for a, b in zip(after, before)]
            assert max(moves) <= 1
            if extra != 0.5 * lower + 0.5 * upper:
                assert moves[0] == 1


# --------------------------------------------------------------------------------------------
# The noise of release_exact is the mechanisms' law
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.3, -1.7e3, 1e9 + 2.0 ** -20])
@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian", "analytic"])
def test_release_exact_is_the_mechanism(value, mechanism):
    """A float value as an exact rational: release_exact gives the mechanism's own release
    bit for bit (the same grid, the same integer noise: the widening by the rounding step
    included), for one value and for three (one call, one vector)."""
    eps, delta, sensitivity = 0.7, 1e-5, 0.25
    for values in ([value], [value, -value, 2 * value]):
        exact = [_exact_sums.float_ratio(v) for v in values]
        for seed in range(5):
            got = _additive.release_exact(exact, eps, sensitivity, mechanism, delta, "aDP",
                                          np.random.default_rng(seed))
            if mechanism == "Laplace":
                want = dppack.LaplaceMechanism(np.array(values), eps, sensitivity,
                                               random_state=np.random.default_rng(seed))
            else:
                want = dppack.GaussianMechanism(np.array(values), eps, delta, sensitivity,
                                                analytic=mechanism == "analytic",
                                                random_state=np.random.default_rng(seed))
            assert got == np.atleast_1d(want).tolist()


# --------------------------------------------------------------------------------------------
# End to end near 0, the grid not anchored at 0
# --------------------------------------------------------------------------------------------


@pytest.fixture
def zero_noise(monkeypatch):
    monkeypatch.setattr(_random, "discrete_laplace_noise",
                        lambda values, *args, **kwargs: np.zeros(np.shape(values)))


def _on_grid(value, sensitivity, eps, coordinates=1):
    k = _random.laplace_grid(sensitivity, eps, coordinates)[0]
    return float(_exact_sums.round_to_grid(
        (value.numerator, value.denominator, 0), k) * Fraction(2) ** k)


def test_near_zero_offset_grid_is_exact(zero_noise):
    rng = np.random.default_rng(9)
    x = np.r_[NEAR_L + (NEAR_U - NEAR_L) * rng.random(300), -5.0, 7.0, NEAR_L, NEAR_U]
    assert _exact_sums.grid_origin(NEAR_L, NEAR_U)[0] != 0  # c0 != 0
    r = _records(x, NEAR_L, NEAR_U)
    n, w = len(r), _width(NEAR_L, NEAR_U)
    mean = sum(r) / n
    var = sum((v - mean) ** 2 for v in r) / (n - 1)
    sens = float(w / n) if Fraction(float(w / n)) >= w / n else math.nextafter(
        float(w / n), math.inf)
    assert dppack.meanDP(x, 1.0, NEAR_L, NEAR_U, random_state=2) == _on_grid(mean, sens, 1.0)
    v_sens = _exact_sums.float_up(((w * w / n).numerator, (w * w / n).denominator, 0))
    assert dppack.varDP(x, 1.0, NEAR_L, NEAR_U, random_state=2) == _on_grid(var, v_sens, 1.0)
    # a matrix, in blocks larger than the scan's (2^16 values, several blocks)
    big = np.tile(x, 700).reshape(-1, 4)
    assert dppack.meanDP(big, 1.0, NEAR_L, NEAR_U, random_state=2) == _on_grid(
        mean, _exact_sums.float_up(((w / big.size).numerator, (w / big.size).denominator,
                                    0)), 1.0)


# --------------------------------------------------------------------------------------------
# Sums beyond 2^63
# --------------------------------------------------------------------------------------------


def test_product_sums_beyond_int64():
    """2^22 records at Q = 2^21: S2 = 2^64, past any int64 partial sum."""
    q = np.full(1 << 22, float(1 << 21))
    assert _exact_sums.product_sum(q, q) == 1 << 64
    assert _exact_sums.product_sum(q[:-3], q[3:]) == ((1 << 22) - 3) << 42


# --------------------------------------------------------------------------------------------
# 'both' charges the pair's loss
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("statistic", ["meanDP", "varDP", "covDP", "pooledVarDP"])
def test_both_charges_three_eps(statistic):
    x = np.linspace(0.0, 1.0, 10)
    acc = dppack.BudgetAccountant(10.0)
    calls = {
        "meanDP": lambda: dppack.meanDP(x, 0.5, 0.0, 1.0, which_sensitivity="both",
                                        random_state=1, accountant=acc),
        "varDP": lambda: dppack.varDP(x, 0.5, 0.0, 1.0, which_sensitivity="both",
                                      random_state=1, accountant=acc),
        "covDP": lambda: dppack.covDP(x, x, 0.5, 0.0, 1.0, 0.0, 1.0,
                                      which_sensitivity="both", random_state=1,
                                      accountant=acc),
        "pooledVarDP": lambda: dppack.pooledVarDP(x[:5], x[5:], eps=0.5, lower_bound=0.0,
                                                  upper_bound=1.0, which_sensitivity="both",
                                                  random_state=1, accountant=acc),
    }
    out = calls[statistic]()
    assert set(out) == {"Bounded", "Unbounded"}
    assert acc.spent.eps == pytest.approx(1.5)
    assert isinstance(acc.spent, accounting.PrivacyLoss)


# --------------------------------------------------------------------------------------------
# The accuracy report covers the data's truth, the rounding of the records included
# --------------------------------------------------------------------------------------------


def _rounding_data(n, lower, upper):
    """Half the records 0.49 steps above L (rounded down to L), half 0.49 steps below U
    (rounded up to U): the mean moves by about g / 2 ... 0, the variance by about its
    bound n (U - L) g / (2 (n - 1))."""
    g = math.ldexp(1.0, _exact_sums.data_grid(lower, upper)[0])
    return np.r_[np.full(n // 2, lower + 0.49 * g), np.full(n - n // 2, upper - 0.49 * g)]


@pytest.mark.parametrize("statistic", ["meanDP", "meanDP-unbounded", "varDP", "sdDP",
                                       "pooledVarDP", "covDP"])
def test_report_covers_the_rounding_of_the_records(statistic):
    """At eps = 2000 and n = 4096 the rounding of the records (data 0.49 grid steps inside
    the bounds, all rounding the same way) is about 3 noise scales: the report must still
    hold. 300 releases; the share outside the half-width against alpha = 0.05 by a one-sided
    binomial test at level 1e-6 (false-failure rate 1e-6 for a correct report). Before the
    report added the rounding, five of the six cases failed (nearly every release missed)."""
    from scipy.stats import binomtest

    from dppack.accuracy import noiseIntervalDP

    n, eps, lower, upper = 4096, 2000.0, 0.0, 1.0
    if statistic.startswith("meanDP"):
        g = math.ldexp(1.0, _exact_sums.data_grid(lower, upper)[0])
        x = np.full(n, lower + 0.45 * g)  # every record rounded down by 0.45 g
    else:
        x = _rounding_data(n, lower, upper)
    which = "unbounded" if statistic.endswith("unbounded") else "bounded"
    name = statistic.split("-")[0]
    if name == "pooledVarDP":
        samples = (x[::2], x[1::2])
        truth = sum((s.size - 1) * np.var(s, ddof=1) for s in samples) / (n - 2)
        report = noiseIntervalDP(name, eps, sizes=[s.size for s in samples],
                                 lower_bound=lower, upper_bound=upper)

        def release(seed):
            return dppack.pooledVarDP(*samples, eps=eps, lower_bound=lower, upper_bound=upper,
                                      random_state=seed)
    elif name == "covDP":
        truth = np.cov(x, x)[0, 1]
        report = noiseIntervalDP(name, eps, n=n, lower_bound1=lower, upper_bound1=upper,
                                 lower_bound2=lower, upper_bound2=upper)

        def release(seed):
            return dppack.covDP(x, x, eps, lower, upper, lower, upper, random_state=seed)
    else:
        function = getattr(dppack, name)
        truth = {"meanDP": np.mean(x), "varDP": np.var(x, ddof=1),
                 "sdDP": np.var(x, ddof=1)}[name]
        report = noiseIntervalDP(name, eps, n=n, lower_bound=lower, upper_bound=upper,
                                 which_sensitivity=which)

        def release(seed):
            out = function(x, eps, lower, upper, which_sensitivity=which, random_state=seed)
            return out * out if name == "sdDP" else out  # sdDP: the variance's interval

    misses = sum(abs(release(seed) - truth) > report.half_width for seed in range(300))
    assert binomtest(int(misses), 300, 0.05, alternative="greater").pvalue > 1e-6, misses


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
def test_report_is_the_release_law(spy, mechanism):
    """The bounded reports read the sensitivity the release hands to the mechanism (Q g,
    not U - L: bounds where they differ) and add the rounding of the records."""
    from dppack import _access_cores
    from dppack.accuracy import noiseIntervalDP

    rng = np.random.default_rng(10)
    x, y = WIDE_L + (WIDE_U - WIDE_L) * rng.random(9), rng.random(9)
    extra = {} if mechanism == "Laplace" else dict(delta=1e-5)
    one, two = (WIDE_L, WIDE_U), (WIDE_L, WIDE_U, 0.0, 1.0)
    cases = [
        ("meanDP", lambda: dppack.meanDP(x, 0.5, *one, mechanism=mechanism, **extra),
         dict(lower_bound=WIDE_L, upper_bound=WIDE_U),
         math.ldexp(1.0, _exact_sums.data_grid(*one)[0] - 1)),
        ("varDP", lambda: dppack.varDP(x, 0.5, *one, mechanism=mechanism, **extra),
         dict(lower_bound=WIDE_L, upper_bound=WIDE_U), _access_cores.rounding_error([9], one)),
        ("covDP", lambda: dppack.covDP(x, y, 0.5, *two, mechanism=mechanism, **extra),
         dict(lower_bound1=WIDE_L, upper_bound1=WIDE_U, lower_bound2=0.0, upper_bound2=1.0),
         _access_cores.rounding_error([9], two)),
    ]
    for statistic, release, bounds, rounding in cases:
        release()
        got = noiseIntervalDP(statistic, 0.5, n=9, mechanism=mechanism, **extra, **bounds)
        if mechanism == "Laplace":
            want = noiseIntervalDP("LaplaceMechanism", 0.5, sensitivities=spy[-1])
        else:
            want = noiseIntervalDP("GaussianMechanism", 0.5, sensitivities=spy[-1], **extra)
        assert got.half_width == want.half_width + rounding, statistic


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
def test_unbounded_unit_sensitivity(spy, mechanism):
    """The unbounded release's one call: its k unit statistics (per sample) with l1
    sensitivity k (Laplace) or l2 sqrt(k) (the Gaussians), whatever the number of samples."""
    x = np.linspace(0.0, 1.0, 8)
    extra = {} if mechanism == "Laplace" else dict(mechanism=mechanism, delta=1e-5)
    options = dict(which_sensitivity="unbounded", random_state=1, **extra)
    calls = [(2, lambda: dppack.meanDP(x, 0.5, 0.0, 1.0, **options)),
             (3, lambda: dppack.varDP(x, 0.5, 0.0, 1.0, **options)),
             (4, lambda: dppack.covDP(x, x, 0.5, 0.0, 1.0, 0.0, 1.0, **options)),
             (3, lambda: dppack.pooledVarDP(x[:3], x[3:], eps=0.5, lower_bound=0.0,
                                            upper_bound=1.0, **options))]
    for k, call in calls:
        call()
        assert spy[-1] == (k if mechanism == "Laplace" else math.sqrt(k))


@pytest.mark.parametrize("statistic", ["meanDP", "varDP"])
def test_both_is_bounded_then_unbounded(statistic):
    """'both': the bounded release first, with the bounded sensitivity (the same draw as
    'bounded' alone for the same seed)."""
    x = np.linspace(0.0, 1.0, 10)
    function = getattr(dppack, statistic)
    for seed in range(3):
        both = function(x, 0.5, 0.0, 1.0, which_sensitivity="both", random_state=seed)
        assert both["Bounded"] == function(x, 0.5, 0.0, 1.0, random_state=seed)
