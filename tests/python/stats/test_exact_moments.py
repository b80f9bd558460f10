"""Exact moment statistics (issue 25): meanDP, varDP, sdDP, covDP, pooledVarDP and
pooledCovDP compute their true value from the records' integers on the grid of the bounds
(``dppack._exact_sums``), exactly, and round it onto the noise grid in integers.

* The grid: g = 2^k <= (U - L) 2^-20 < 2 g, U - L - g <= Q g <= U - L + g, the map
  monotone from 0 at L to Q <= 2^21 at U, for bounds from subnormal widths to the widest
  doubles, near 0 and far from it.
* The sums: against Python integers (values at the top of the range, where a float sum of
  squares would round).
* Exactness end to end: with the noise replaced by 0, each release is
  round_half_even(v / 2^j) 2^j for the statistic v computed here with
  ``fractions.Fraction`` from the rounded records, on random data near 1e9 with bounds
  1e-4 wide, and near 1e308.
* Two inputs whose rounded integers are equal give the same release for the same
  random_state, per statistic; in memory and on Dask, bit-identical.

All deterministic (fixed data and seeds): no false failures.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import dppack
from dppack import _exact_sums, _random
from dppack.mechanisms import discrete_gaussian_parameters

RNG = np.random.default_rng(2025)


def _rounded(x, lower, upper):
    """The records as Fractions L + g q (q from the release's own map)."""
    k, _ = _exact_sums.data_grid(lower, upper)
    g = Fraction(2) ** k
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    return [origin + g * int(q) for q in _exact_sums.to_grid(np.asarray(x, float), lower,
                                                             upper)]


def _mean(values):
    return sum(values) / len(values)


def _var(values):
    m = _mean(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)


def _cov(a, b):
    ma, mb = _mean(a), _mean(b)
    return sum((u - ma) * (v - mb) for u, v in zip(a, b)) / (len(a) - 1)


def _on_noise_grid(value, k):
    """round half to even of value / 2^k, times 2^k, as a float (Fractions only)."""
    scaled = value / Fraction(2) ** k
    q = math.floor(scaled)
    rest = scaled - q
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and q % 2):
        q += 1
    return float(q * Fraction(2) ** k)


# --------------------------------------------------------------------------------------------
# The grid and the sums
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bounds", [
    (0.0, 1.0), (-3.0, 7.0), (1e9, 1e9 + 1e-4), (1.75 - 2.0 ** -52, 1.75),
    (0.0, 5e-324), (-1e308, 1e308), (0.0, 1e308), (-1.7976931348623157e308, 0.0),
    (1e-300, 3e-300), (-0.7, 0.7)])
def test_data_grid(bounds):
    lower, upper = bounds
    k, top = _exact_sums.data_grid(lower, upper)
    width = Fraction(upper) - Fraction(lower)
    g = Fraction(2) ** k
    assert g <= width / 2 ** 20 < 2 * g
    assert width - g <= top * g <= width + g <= width * (1 + Fraction(1, 2 ** 20))
    assert top <= 2 ** 21
    x = np.array([lower, upper, lower - abs(lower) - 1.0, upper + abs(upper) + 1.0,
                  0.5 * lower + 0.5 * upper, 0.3 * lower + 0.7 * upper])
    q = _exact_sums.to_grid(x, lower, upper)
    assert q.min() >= 0 and q.max() <= top and np.all(q == np.rint(q))
    assert q[0] == 0 and q[2] == 0 and q[1] == top and q[3] == top
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(q[order]) >= 0)  # monotone
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    for value, integer in zip(x[[0, 1, 4, 5]], q[[0, 1, 4, 5]]):  # each within a step
        assert abs(origin + g * int(integer) - Fraction(float(value))) <= g


def test_sums_are_exact():
    """Values at the top of the range: q = 2^21 (squares 2^42), 150 000 of them, where the
    sum of squares (about 6.6e17) is beyond 2^53; against Python integers."""
    lower, upper = 0.0, 2.0 - 2.0 ** -30  # Q = 2^21 at g = 2^-20 (U rounds up)
    k, top = _exact_sums.data_grid(lower, upper)
    assert top == 2 ** 21
    x = np.full(150_001, upper)
    x[::7] = 0.3
    n, s1, s2 = _exact_sums.sums_of(x, lower, upper, squares=True)
    q = [int(v) for v in _exact_sums.to_grid(x, lower, upper)]
    assert (n, s1, s2) == (len(q), sum(q), sum(v * v for v in q))
    y = x[::-1].copy()
    sums = _exact_sums.pair_sums(x, y, (lower, upper, lower, upper))
    r = q[::-1]
    assert sums == (len(q), sum(q), sum(r), sum(v * v for v in q), sum(v * v for v in r),
                    sum(a * b for a, b in zip(q, r)))


def test_round_to_grid_is_half_to_even():
    for num in range(-40, 41):
        for den in (1, 2, 3, 4, 7, 8):
            for e in (-3, 0, 2):
                for j in (-2, 0, 1):
                    value = (num, den, e)
                    assert _exact_sums.round_to_grid(value, j) * 2.0 ** j == _on_noise_grid(
                        _exact_sums.to_fraction(value), j)


# --------------------------------------------------------------------------------------------
# End to end: the release without noise is the exact statistic on the noise grid
# --------------------------------------------------------------------------------------------


@pytest.fixture
def zero_noise(monkeypatch):
    """The samplers draw 0 (the release is then round(v / 2^k) 2^k)."""
    monkeypatch.setattr(_random, "discrete_laplace_noise",
                        lambda values, *args, **kwargs: np.zeros(np.shape(values)))
    monkeypatch.setattr(_random, "discrete_gaussian_noise_on_grid",
                        lambda values, *args, **kwargs: np.zeros(np.shape(values)))


def _laplace_k(sensitivity, eps, coordinates=1):
    return _random.laplace_grid(sensitivity, eps, coordinates)[0]


CASES = {
    # near 1e9 with bounds 1e-4 wide (timestamps), and near 1e308
    "1e9": (1e9, 1e9 + 1e-4, 1e9 + RNG.uniform(-2e-5, 1.2e-4, 301)),
    "1e308": (0.0, 1e308, RNG.uniform(0.0, 1.0, 301) * 1e308),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_mean_and_variance_are_exact(zero_noise, case):
    lower, upper, x = CASES[case]
    k, top = _exact_sums.data_grid(lower, upper)
    width = Fraction(upper) - Fraction(lower)
    records = _rounded(x, lower, upper)
    n = len(records)
    eps = 0.5
    sensitivity = _exact_sums.float_up((top, n, k))
    assert dppack.meanDP(x, eps, lower, upper, random_state=1) == _on_noise_grid(
        _mean(records), _laplace_k(sensitivity, eps))
    if case == "1e9":  # (near 1e308 both are refused from the bounds: sigma, (U - L)^2 inf)
        # the Gaussian mechanism: its grid from its own calibration
        sigma = dppack.mechanisms.gaussian_sigma(eps, 1e-5, sensitivity)
        j, _ = discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=1e-5)
        assert dppack.meanDP(x, eps, lower, upper, mechanism="Gaussian", delta=1e-5,
                             random_state=1) == _on_noise_grid(_mean(records), j)
        v_sens = _exact_sums.float_up((top * top, n, 2 * k))
        assert Fraction(v_sens) >= (Fraction(top) * Fraction(2) ** k) ** 2 / n
        assert dppack.varDP(x, eps, lower, upper, random_state=1) == _on_noise_grid(
            _var(records), _laplace_k(v_sens, eps))
        assert dppack.sdDP(x, eps, lower, upper, random_state=1) == math.sqrt(
            _on_noise_grid(_var(records), _laplace_k(v_sens, eps)))


def test_covariance_and_pooled_are_exact(zero_noise):
    lower, upper, x = CASES["1e9"]
    y = 2.0 + RNG.uniform(-0.5, 1.5, x.size)
    k1, top1 = _exact_sums.data_grid(lower, upper)
    k2, top2 = _exact_sums.data_grid(2.0, 3.0)
    a, b = _rounded(x, lower, upper), _rounded(y, 2.0, 3.0)
    n, eps = len(a), 1.0
    sens = _exact_sums.float_up((top1 * top2, n, k1 + k2))
    assert dppack.covDP(x, y, eps, lower, upper, 2.0, 3.0, random_state=3) == _on_noise_grid(
        _cov(a, b), _laplace_k(sens, eps))
    # pooled: two samples; the bounded sensitivity from DPpack's formula with Q g
    first, second = slice(0, 120), slice(120, None)
    pooled = ((len(a[first]) - 1) * _var(a[first]) + (len(a[second]) - 1) * _var(a[second])) \
        / (n - 2)
    spread = float(Fraction(top1) * Fraction(2) ** k1) ** 2
    p_sens = spread * (1 - 1 / 181) / (n - 2)
    assert dppack.pooledVarDP(x[first], x[second], eps=eps, lower_bound=lower,
                              upper_bound=upper, random_state=3) == _on_noise_grid(
        pooled, _laplace_k(p_sens, eps))
    pooled_cov = ((len(a[first]) - 1) * _cov(a[first], b[first])
                  + (len(a[second]) - 1) * _cov(a[second], b[second])) / (n - 2)
    w2 = float(Fraction(top2) * Fraction(2) ** k2)
    c_sens = float(Fraction(top1) * Fraction(2) ** k1) * w2 * (1 - 1 / 181) / (n - 2)
    pairs = np.c_[x, y]
    assert dppack.pooledCovDP(pairs[first], pairs[second], eps=eps, lower_bound1=lower,
                              upper_bound1=upper, lower_bound2=2.0, upper_bound2=3.0,
                              random_state=3) == _on_noise_grid(pooled_cov,
                                                                _laplace_k(c_sens, eps))


def test_unbounded_mean_is_exact(zero_noise):
    """'unbounded': the sum centred at the midpoint of the rounded range and the count, each
    exact on the noise grid; without noise the mean is the rounded records' (up to the
    post-processing's float division)."""
    lower, upper, x = CASES["1e9"]
    out = dppack.meanDP(x, 1.0, lower, upper, which_sensitivity="unbounded", random_state=1)
    assert out == pytest.approx(float(_mean(_rounded(x, lower, upper))), rel=1e-15)


# --------------------------------------------------------------------------------------------
# Equal integers, equal releases; memory and Dask bit-identical
# --------------------------------------------------------------------------------------------

LOWER, UPPER = -3.0, 7.0  # (near 1e9 the grid is finer than the doubles: no twins)
LOWER2, UPPER2 = -1.0, 3.0


def _twins(size, lower, upper, rng):
    """Two vectors whose records round to the same integers: grid points (some outside the
    bounds), and the same moved by less than a quarter step (no tie can be crossed)."""
    k, top = _exact_sums.data_grid(lower, upper)
    g = math.ldexp(1.0, k)
    q = rng.integers(-5, top + 5, size)
    first = lower + g * q.astype(float)
    second = first + g * rng.uniform(-0.2, 0.2, size)
    second = np.where(q < 0, lower - rng.uniform(0, 1, size) * (upper - lower), second)
    second = np.where(q > top, upper + rng.uniform(0, 1, size) * (upper - lower), second)
    assert np.array_equal(_exact_sums.to_grid(first, lower, upper),
                          _exact_sums.to_grid(second, lower, upper))
    assert not np.array_equal(first, second)
    return first, second


def _calls(which, mechanism):
    options = dict(which_sensitivity=which, random_state=7)
    if mechanism != "Laplace":
        options.update(mechanism=mechanism, delta=1e-5)
    eps = 0.9
    b1, b2 = dict(lower_bound1=LOWER, upper_bound1=UPPER), dict(lower_bound2=LOWER2,
                                                                 upper_bound2=UPPER2)
    return {
        "meanDP": lambda x, y: dppack.meanDP(x, eps, LOWER, UPPER, **options),
        "varDP": lambda x, y: dppack.varDP(x, eps, LOWER, UPPER, **options),
        "sdDP": lambda x, y: dppack.sdDP(x, eps, LOWER, UPPER, **options),
        "covDP": lambda x, y: dppack.covDP(x, y, eps, LOWER, UPPER, LOWER2, UPPER2, **options),
        "pooledVarDP": lambda x, y: dppack.pooledVarDP(x[:40], x[40:], eps=eps,
                                                       lower_bound=LOWER, upper_bound=UPPER,
                                                       **options),
        "pooledCovDP": lambda x, y: dppack.pooledCovDP(
            _stack(x[:40], y[:40]), _stack(x[40:], y[40:]), eps=eps, **b1, **b2, **options),
    }


def _stack(a, b):
    if hasattr(a, "chunks"):
        import dask.array as da

        return da.stack([a, b], axis=1)
    return np.c_[a, b]


STATISTICS = ["meanDP", "varDP", "sdDP", "covDP", "pooledVarDP", "pooledCovDP"]


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
@pytest.mark.parametrize("which", ["bounded", "unbounded"])
@pytest.mark.parametrize("statistic", STATISTICS)
def test_equal_integers_give_equal_releases(statistic, which, mechanism):
    rng = np.random.default_rng(11)
    x0, x1 = _twins(101, LOWER, UPPER, rng)
    y0, y1 = _twins(101, LOWER2, UPPER2, rng)
    release = _calls(which, mechanism)[statistic]
    assert release(x0, y0) == release(x1, y1)


@pytest.mark.parametrize("which", ["bounded", "unbounded", "both"])
@pytest.mark.parametrize("statistic", STATISTICS)
def test_memory_and_dask_are_bit_identical(statistic, which):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(12)
    x = _twins(101, LOWER, UPPER, rng)[1]
    y = _twins(101, LOWER2, UPPER2, rng)[1]
    release = _calls(which, "Laplace")[statistic]
    assert release(x, y) == release(da.from_array(x, chunks=17), da.from_array(y, chunks=17))
