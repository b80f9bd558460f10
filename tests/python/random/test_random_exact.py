"""Tests of the exact samplers of dppack._random (issue 12, part 3, first step).

What is checked:

* the exact constants: floor(exp(-c / 2^m) 2^bits) against 200-digit decimal arithmetic, and
  the tables built from them;
* the law of every sampler against its exact probability mass function: Bernoulli(n/d),
  Bernoulli(exp(-n/d)), the geometric counts, the discrete Laplace and the discrete
  Gaussian (chi-square for small scales, moments for large ones), and the exponential
  mechanism's selection probabilities (utilities on the grid, base measures, -Inf, the last
  level of its envelope);
* the branches beyond int64 (forced with a small ``limit``) keep the law;
* every released value is a multiple of the grid step g, which a floating-point sampler fails;
* no floating-point exp or log is called while sampling;
* determinism under a fixed seed;
* the grid choices (g <= scale / 2^12, the sensitivity in grid units, the rational scale
  rounded up) and ``discrete_gaussian_delta`` against a brute-force hockey-stick sum and,
  for large scales, the continuous Gaussian's delta (Balle and Wang 2018).

Statistical tests: each runs at significance level ALPHA = 0.001 with a fixed seed, so the
suite is deterministic; under a fresh seed each would fail falsely (reject a correct sampler)
with probability 0.001 (a test that checks several laws splits ALPHA between them, so its
rate is still at most 0.001). Moment checks allow 5 standard errors: false-failure rate below
6e-7 each (normal approximation).
"""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _exact, _exact_selection, _random

ALPHA = 0.001
SEED = 20261124
N = 200_000  # draws per law


def rng(seed=SEED):
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def chisquare_pvalue(values, pmf, support):
    """p-value of the chi-square test of integer draws against pmf on ``support``.

    ``support`` is an integer range holding almost all the mass; values outside it, and the
    bins with expected count below 5, are pooled (with their exact probability) into one
    tail bin, so observed and expected totals agree.
    """
    values = np.asarray(values, dtype=np.int64)
    support = np.asarray(support, dtype=np.int64)
    p = np.array([pmf(int(z)) for z in support], dtype=np.float64)
    observed = np.array([np.count_nonzero(values == z) for z in support], dtype=np.float64)
    expected = p * values.size
    keep = expected >= 5
    tail_observed = values.size - observed[keep].sum()
    tail_expected = values.size - expected[keep].sum()
    observed = np.append(observed[keep], tail_observed)
    expected = np.append(expected[keep], tail_expected)
    if tail_expected < 5:  # pool the tail into the smallest kept bin
        smallest = int(np.argmin(expected[:-1]))
        observed[smallest] += observed[-1]
        expected[smallest] += expected[-1]
        observed, expected = observed[:-1], expected[:-1]
    return stats.chisquare(observed, expected).pvalue


def laplace_pmf(scale):
    rho = math.exp(-1.0 / scale)
    return lambda z: (1 - rho) / (1 + rho) * rho ** abs(z)


def gaussian_pmf(sigma2):
    reach = int(40 * math.sqrt(sigma2)) + 40
    norm = math.fsum(math.exp(-y * y / (2 * sigma2)) for y in range(-reach, reach + 1))
    return lambda z: math.exp(-z * z / (2 * sigma2)) / norm


def count_calls(monkeypatch, name, calls, key):
    """Replace ``_exact.<name>`` by a wrapper that adds one to ``calls[key]`` per call."""
    original = getattr(_exact, name)

    def counting(*args, **kwargs):
        calls[key] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(_exact, name, counting)


def binomial_pvalue(successes, n, p):
    return stats.binomtest(int(successes), n, p).pvalue


# --------------------------------------------------------------------------------------------
# 1. Exact constants
# --------------------------------------------------------------------------------------------


def decimal_exp_floor(c, bits, m):
    getcontext().prec = 400
    return int((Decimal(-c) / Decimal(2) ** m).exp() * Decimal(2) ** bits // 1)


@pytest.mark.parametrize("m", [0, 4])
@pytest.mark.parametrize("c, bits", [(1, 64), (2, 64), (7, 64), (30, 64), (44, 64),
                                     (1, 200), (63, 160), (500, 900), (709, 64)])
def test_exp_floor_matches_high_precision_decimal(c, bits, m):
    assert _exact.exp_floor(c, bits, m) == decimal_exp_floor(c, bits, m)


@pytest.mark.parametrize("m", [0, 4])
def test_threshold_tables_are_exact(m):
    table = [int(x) for x in _exact._thresholds(m)]
    assert table[0] == 2 ** 64 - 1 and table[-1] == 0 and table[-2] == 0
    assert table[-3] > 0  # the table ends at its first zero
    step = max(1, (len(table) - 2) // 60)
    for v in list(range(1, len(table) - 1, step)) + [len(table) - 3, len(table) - 2]:
        assert table[v] == decimal_exp_floor(v, 64, m), v


# --------------------------------------------------------------------------------------------
# 2. Bernoulli samplers
# --------------------------------------------------------------------------------------------

BERNOULLI_CASES = [(1, 2), (5, 12), (2, 7), (7, 7), (0, 9), (3, 2 ** 40),
                   (2 ** 40 - 1, 3 * 2 ** 41)]


def test_bernoulli_rational_law():
    """d = 12 (top two bits, ties on 1/4 of draws), odd d, large dyadic d."""
    generator = rng()
    pvalues = []
    for n, d in BERNOULLI_CASES:
        draws = _random.bernoulli(np.full(N, n), d, generator)
        pvalues.append(binomial_pvalue(draws.sum(), N, n / d))
    assert min(pvalues) > ALPHA / len(BERNOULLI_CASES), pvalues


EXP_CASES = [(0, 1), (1, 3), (2, 3), (1, 1), (5, 2), (17, 16), (3, 2 ** 45),
             (2 ** 45 + 7, 2 ** 45), (50, 1), (2 ** 61, 3)]


def test_bernoulli_exp_law():
    """exp(-n/d) for n/d in {0, 1/3, 2/3, 1, 5/2, 17/16, tiny, just above 1, 50, 2^61/3}."""
    generator = rng()
    pvalues = []
    for n, d in EXP_CASES:
        draws = _random.bernoulli_exp(np.full(N, n), d, generator)
        p = math.exp(-n / d)
        if p < 1e-12:
            assert draws.sum() == 0
            continue
        pvalues.append(binomial_pvalue(draws.sum(), N, p))
    assert min(pvalues) > ALPHA / len(pvalues), pvalues


def test_bernoulli_exp_fraction_law_with_mixed_exponents():
    """CKS Algorithm 1 alone, with a different exponent per entry (n/d = n/10, n = 0..10)."""
    generator = rng()
    n = np.tile(np.arange(11), N // 11)
    draws = _exact.bernoulli_exp_fraction(n, 1, 5, generator)
    pvalues = [binomial_pvalue(draws[n == i].sum(), int((n == i).sum()), math.exp(-i / 10))
               for i in range(11)]
    assert min(pvalues) > ALPHA / 11, pvalues


def test_bernoulli_exp_product_form_branch():
    """With limit = 1, Bernoulli(x / K) is drawn as Bernoulli(x) Bernoulli(1 / K) from K = 2."""
    generator = rng()
    draws = _exact.bernoulli_exp_fraction(np.full(N, 7), 3, 1, generator, limit=1)
    assert binomial_pvalue(draws.sum(), N, math.exp(-7 / 8)) > ALPHA


def test_tie_continuation_draws_further_bits():
    """A word equal to floor(exp(-1) 2^64): U < exp(-1) then has probability
    frac(exp(-1) 2^64), decided on further bits."""
    generator = rng()
    threshold = _exact.exp_floor(1, 64)
    wins = sum(_exact.py_below_exp([threshold, 64], 1, generator) for _ in range(20_000))
    getcontext().prec = 100
    fraction = float(Decimal(-1).exp() * Decimal(2) ** 64 % 1)
    assert binomial_pvalue(wins, 20_000, fraction) > ALPHA


@pytest.mark.parametrize("m", [0, 4])
def test_geometric_law(m):
    """P(V = v) = exp(-v / 2^m) (1 - exp(-1 / 2^m)), one word per draw."""
    ratio = math.exp(-1 / 2 ** m)
    draws = _exact.geometric(N, rng(), m)
    pvalue = chisquare_pvalue(draws, lambda v: ratio ** v * (1 - ratio), range(0, 40 * 2 ** m))
    assert pvalue > ALPHA


def test_geometric_continuation_matches_vectorised_count():
    """The exact continuation (used on ties) gives the same count as the table search."""
    generator = rng()
    w = _exact.words(generator, 2000)
    for word in w.tolist()[:2000]:
        state = [word, 64]
        by_bits = _exact.py_geometric(generator, state, 4)
        table = _exact._thresholds(4)
        by_table = int(np.count_nonzero(np.uint64(word) < table[1:]))
        assert by_bits == by_table


# --------------------------------------------------------------------------------------------
# 3. Discrete Laplace and discrete Gaussian
# --------------------------------------------------------------------------------------------

LAPLACE_CASES = [
    pytest.param(3, 2, id="odd-t"),  # t not a power of two: CKS as written (r = t)
    pytest.param(16, 5, id="t-16"),  # r = t / 16 = 1
    pytest.param(1, 1, id="t-1"),
    pytest.param(2 ** 20, 3 * 2 ** 17, id="t-2^20"),  # scale 8/3
    pytest.param(7, 1, id="t-7"),
    pytest.param(2 ** 10, 7, id="t-2^10-s-7"),  # s < t / 16: the uniform part shows in Y
]


@pytest.mark.parametrize("t, s", LAPLACE_CASES)
def test_discrete_laplace_law(t, s):
    draws = _random.discrete_laplace(t, s, N, rng())
    scale = t / s
    reach = int(30 * scale) + 30
    assert chisquare_pvalue(draws, laplace_pmf(scale), range(-reach, reach + 1)) > ALPHA


GAUSSIAN_CASES = [
    pytest.param(1, 2, id="s2-half"),
    pytest.param(7, 3, id="s2-7/3"),
    pytest.param(30, 1, id="s2-30"),
    pytest.param(1000, 1, id="s2-1000"),
    pytest.param(5, 1, id="s2-5"),
]


@pytest.mark.parametrize("p, q", GAUSSIAN_CASES)
def test_discrete_gaussian_law(p, q):
    draws = _random.discrete_gaussian(p, q, N, rng())
    sigma2 = p / q
    reach = int(10 * math.sqrt(sigma2)) + 10
    assert chisquare_pvalue(draws, gaussian_pmf(sigma2), range(-reach, reach + 1)) > ALPHA


def test_large_scale_moments():
    """Mean 0, variance 2 b^2 (Laplace, b = 2^20 / 3 grid units) and s^2 (Gaussian,
    s^2 = 6000^2), each within 5 standard errors."""
    generator = rng()
    b = 2 ** 20 / 3
    z = _random.discrete_laplace(2 ** 56, 3 * 2 ** 36, N, generator).astype(np.float64)
    assert abs(z.mean()) < 5 * math.sqrt(2) * b / math.sqrt(N)
    # Laplace: fourth moment 24 b^4, so the sample variance has variance about 20 b^4 / N
    assert abs(z.var() - 2 * b * b) < 5 * b * b * math.sqrt(20 / N)
    s2 = 6000.0 ** 2
    g = _random.discrete_gaussian(int(s2), 1, N, generator).astype(np.float64)
    assert abs(g.mean()) < 5 * math.sqrt(s2 / N)
    assert abs(g.var() - s2) < 5 * s2 * math.sqrt(2 / N)


def test_int64_overflow_branches_keep_the_law(monkeypatch):
    """A small ``limit`` sends part of the draws through the Python-integer branches:
    Laplace values past the limit (returned as Python ints), Gaussian acceptance exponents
    past sqrt(limit), and samplers wholly in Python integers when a bound exceeds it."""
    calls = {"bernoulli": 0, "laplace": 0}
    count_calls(monkeypatch, "py_bernoulli_exp", calls, "bernoulli")
    count_calls(monkeypatch, "py_discrete_laplace", calls, "laplace")
    generator = rng()
    alpha = ALPHA / 4
    # t = 64, s = 2, r = 4: u + r v may pass limit = 128 when v > 31 (about 1 draw in 7; it
    # is then formed in Python integers) and the value (u + r v) // 2 reaches 128, so is
    # returned as a Python integer, when v >= 64 (about 1 in 55).
    wide = _exact.discrete_laplace(64, 2, 50_000, generator, limit=128)
    assert wide.dtype == object and calls["laplace"] == 0
    assert chisquare_pvalue(wide.astype(np.int64), laplace_pmf(32), range(-1000, 1001)) > alpha
    # limit < 2 t: the whole draw in Python integers.
    python = _exact.discrete_laplace(6, 1, 5_000, generator, limit=8)
    assert calls["laplace"] == 5_000
    assert chisquare_pvalue(python, laplace_pmf(6), range(-100, 101)) > alpha
    # sigma^2 = 30, t = 4, d = 2^5 30 = 960 = limit / 16: vectorised, but |w| = |4 y - 30|
    # exceeds sqrt(limit) = 123.9 for |y| >= 39: 6.5 proposals in 10^5, so a Poisson count of
    # mean about 29 over the 450,000 proposals here (fewer than 5: probability below 1e-7).
    before = calls["bernoulli"]
    gauss = _exact.discrete_gaussian(30, 1, 300_000, generator, limit=960 * 16)
    assert calls["bernoulli"] - before >= 5
    assert chisquare_pvalue(gauss, gaussian_pmf(30), range(-60, 61)) > alpha
    # 16 d > limit: the whole Gaussian draw in Python integers.
    python = _exact.discrete_gaussian(7, 3, 5_000, generator, limit=1000)
    assert chisquare_pvalue(python, gaussian_pmf(7 / 3), range(-30, 31)) > alpha


REDUCED_GAUSSIAN_CASES = [
    pytest.param(2, id="s2-2-t-1"),  # t = 1: every p
    pytest.param(28, id="s2-28-t-4"),  # c = p / t = 7
    pytest.param(1024, id="s2-1024-t-32"),
    pytest.param(_random.gaussian_variance(1001), id="s2-1024-rounded"),
    pytest.param(3 * 2 ** 12, id="s2-3*2^12-t-64"),
]


@pytest.mark.parametrize("p", REDUCED_GAUSSIAN_CASES)
def test_discrete_gaussian_reduced_exponent_law(p, monkeypatch):
    """q = 1 and t | p: the acceptance exponent is (|Y| - p / t)^2 / (2 p) (its denominator
    2 p is what bernoulli_exp receives, so the reduced path is the one tested); chi-square
    against the pmf of N_Z(0, p)."""
    denominators = set()
    bernoulli_exp = _exact.bernoulli_exp

    def recording(n, d, *args, **kwargs):
        denominators.add(d)
        return bernoulli_exp(n, d, *args, **kwargs)

    monkeypatch.setattr(_exact, "bernoulli_exp", recording)
    draws = _random.discrete_gaussian(p, 1, N, rng())
    assert denominators == {2 * p}
    reach = int(10 * math.sqrt(p)) + 10
    assert chisquare_pvalue(draws, gaussian_pmf(p), range(-reach, reach + 1)) > ALPHA


def test_reduced_exponent_large_scale_moments():
    """s about 2^18 + 12345 (p a multiple of t = 2^19, beyond the general path's int64 range,
    which ends near s = 2^14): mean 0, variance s^2 and fourth moment 3 s^4 (the discrete
    Gaussian's, up to a relative e^-(2 pi^2 s^2)), each within 5 standard errors (the sample
    fourth moment has variance (105 - 9) s^8 / N)."""
    p = _random.gaussian_variance((2 ** 18 + 12345) ** 2)
    j = _exact.gaussian_proposal_exponent(p, 1)
    assert p % (1 << j) == 0 and (p << (2 * j + 5)) > _exact.LIMIT  # the general path would
    # be in Python integers here
    z = _random.discrete_gaussian(p, 1, N, rng()).astype(np.float64)
    assert abs(z.mean()) < 5 * math.sqrt(p / N)
    assert abs(z.var() - p) < 5 * p * math.sqrt(2 / N)
    fourth = float(np.mean((z / math.sqrt(p)) ** 4))
    assert abs(fourth - 3.0) < 5 * math.sqrt(96 / N)


def test_reduced_exponent_overflow_branch_keeps_the_law(monkeypatch):
    """p = 28, t = 4, c = 7, 2 p = 56 with limit = 56 * 16: vectorised; |w| = ||y| - 7|
    exceeds sqrt(limit) = 29.9 for |y| >= 37, the proposal Laplace(4) tail: about 1e-4 of
    the 420,000 trials, so a Poisson count of mean about 40 (fewer than 5: below 1e-10); those
    continue in Python integers and the law holds (chi-square)."""
    calls = {"bernoulli": 0}
    count_calls(monkeypatch, "py_bernoulli_exp", calls, "bernoulli")
    draws = _exact.discrete_gaussian(28, 1, 300_000, rng(), limit=56 * 16)
    assert calls["bernoulli"] >= 5
    assert chisquare_pvalue(draws, gaussian_pmf(28), range(-60, 61)) > ALPHA


def test_other_bit_generators():
    """A Generator over MT19937 (32-bit raw output) goes through Generator.integers."""
    generator = np.random.Generator(np.random.MT19937(SEED))
    draws = _random.discrete_laplace(16, 5, N, generator)
    assert chisquare_pvalue(draws, laplace_pmf(16 / 5), range(-100, 101)) > ALPHA


def test_no_float_exp_or_log_while_sampling(monkeypatch):
    """The sampling paths call no exp or log of numpy or math (tables are integers)."""
    _exact._thresholds(0), _exact._thresholds(4), _exact._bucket_starts(4)  # build first

    def forbidden(*args, **kwargs):
        raise AssertionError("floating-point exp/log on the sampling path")

    for module in (np, math):
        for name in ("exp", "log", "expm1", "log1p", "log2", "exp2"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, forbidden)
    generator = rng()
    _random.discrete_laplace_noise(np.zeros(1000), 1.0, 0.3, generator)
    _random.discrete_gaussian_noise(np.zeros(1000), 2.5, generator)
    _random.bernoulli_exp(np.arange(100), 7, generator)
    for _ in range(20):
        _random.exponential_mechanism([0.0, -1.0, -30.0, 2.5], 1.0, 1.0, generator)


# --------------------------------------------------------------------------------------------
# 4. The grid layer
# --------------------------------------------------------------------------------------------


def test_grid_exponent():
    for scale in [1e-300, 0.003, 1.0, 2.0 ** 12, 3.7e5, 1e300, 5e-324]:
        k = _random.grid_exponent(scale)
        g = math.ldexp(1.0, k)
        if k > -1074:
            assert g <= scale / 2 ** 12 < 2 * g
    assert _random.grid_exponent(1.0) == -12
    assert _random.grid_exponent(4096.0) == 0
    assert _random.grid_exponent(8191.9) == 0
    with pytest.raises(ValueError):
        _random.grid_exponent(0.0)


def test_grid_units_and_laplace_scale():
    """D = ceil(Delta / g) + m; the integer scale t / s rounds D / eps up by < 2^-19."""
    assert _random.grid_units(1.0, -12) == 4097
    assert _random.grid_units(1.5, 0, coordinates=3) == 5
    for sensitivity, eps, m in [(1.0, 1.0, 1), (0.3, 0.01, 1), (2.0, 5.0, 10), (1.0, 1.0, 10**7),
                                (7.5, 1e-6, 3)]:
        k, units, t, s = _random.laplace_grid(sensitivity, eps, m)
        g = math.ldexp(1.0, k)
        assert units == math.ceil(sensitivity / g) + m
        scale = Fraction(t, s)
        target = Fraction(units) / Fraction(eps)
        assert target <= scale < target * (1 + Fraction(1, 2 ** 19))
        b = sensitivity / eps
        assert g <= b / 2 ** 20  # rounding moves a value by at most 2^-21 of the scale
        assert units * g <= sensitivity * (1 + 2.0 ** -19) or b / g > 2 ** 35


def _proposal_scale(sigma2):
    return 1 << _exact.gaussian_proposal_exponent(sigma2, 1)


def test_gaussian_grid():
    for sigma in [1e-3, 0.7, 1.0, 3.3, 12345.678]:
        k, sigma2 = _random.discrete_gaussian_grid(sigma)
        scaled = Fraction(math.ldexp(sigma, -k))
        assert 2 ** 13 <= scaled < 2 ** 14  # a scalar: the calibration's tail sums stay O(2^14)
        # rounded up to a multiple of the proposal scale t (the sampler's int64 form)
        t = _proposal_scale(sigma2)
        assert sigma2 % t == 0 and scaled ** 2 <= sigma2 < scaled ** 2 + t
        assert sigma2 < scaled ** 2 * (1 + 2.0 ** -12)


def test_gaussian_grid_for_vectors():
    """m values of L2 sensitivity Delta: sqrt(m) g <= 2^-12 Delta and g <= sigma / 2^13, but
    sigma / g < 2^20; m = 1 (or no sensitivity) keeps the scalar grid."""
    for sigma, sensitivity, m in [(4.8, 1.0, 10 ** 3), (4.8, 1.0, 10 ** 6), (0.01, 1.0, 4),
                                  (48.0, 1.0, 10 ** 6), (3.0, 100.0, 100)]:
        k, sigma2 = _random.discrete_gaussian_grid(sigma, sensitivity, m)
        g = math.ldexp(1.0, k)
        assert g <= sigma / 2 ** 13 and sigma / g < 2 ** 20
        assert math.sqrt(m) * g <= sensitivity / 2 ** 12 or sigma / g >= 2 ** 19
        assert math.sqrt(m) * 2 * g > sensitivity / 2 ** 12 or sigma / 2 / g < 2 ** 13
        assert sigma2 % _proposal_scale(sigma2) == 0
    assert _random.discrete_gaussian_grid(4.8, 1.0, 1) == _random.discrete_gaussian_grid(4.8)
    assert (_random.discrete_gaussian_grid(4.8, None, 10 ** 6)
            == _random.discrete_gaussian_grid(4.8))


def test_gaussian_variance():
    for sigma2 in [1, 2, 3, 5, 28, 1000, 2 ** 26 + 1, 12000 ** 2, 2 ** 40 - 1]:
        p = _random.gaussian_variance(sigma2)
        t = _proposal_scale(p)
        assert p % t == 0 and sigma2 <= p < sigma2 + t
        assert t == _proposal_scale(sigma2)
    with pytest.raises(ValueError):
        _random.gaussian_variance(0)


VALUES = (np.random.default_rng(7).normal(scale=1e3, size=5000)
          * np.random.default_rng(8).random(5000))


def on_grid(values, k):
    scaled = np.ldexp(values, -k)
    return bool(np.all(scaled == np.rint(scaled)))


def test_every_release_is_a_multiple_of_the_grid():
    generator = rng()
    k, _, _, _ = _random.laplace_grid(2.0, 0.7, VALUES.size)
    released = _random.discrete_laplace_noise(VALUES, 2.0, 0.7, generator)
    assert on_grid(released, k)
    assert not on_grid(VALUES, k)  # the true values are not on the grid
    k, _ = _random.discrete_gaussian_grid(3.0)
    assert on_grid(_random.discrete_gaussian_noise(VALUES, 3.0, generator), k)


def test_a_float_sampler_fails_the_grid_check():
    """The textbook release x + Laplace(b) in floating point is not on any such grid: its low
    bits depend on x (Mironov 2012), which is what the grid removes."""
    generator = rng()
    k, _, _, _ = _random.laplace_grid(2.0, 0.7, VALUES.size)
    assert not on_grid(VALUES + _random.laplace(2.0 / 0.7, VALUES.size, generator), k)
    k, _ = _random.discrete_gaussian_grid(3.0)
    assert not on_grid(VALUES + _random.normal(3.0, VALUES.size, generator), k)


def test_release_is_rounded_value_plus_integer_noise():
    """released = g (round(x / g) + Z) with Z of the sampler's law (checked on its scale)."""
    generator = rng()
    x = np.full(N, 0.123456789)
    released = _random.discrete_laplace_noise(x, 1.0, 2.0, generator, coordinates=1)
    k, units, t, s = _random.laplace_grid(1.0, 2.0, 1)
    z = np.ldexp(released, -k) - np.rint(np.ldexp(0.123456789, -k))
    assert np.all(z == np.rint(z))
    scale = t / s
    assert abs(np.mean(np.abs(z)) / scale - 1) < 5 * 1 / math.sqrt(N)  # E|Z| ~ scale, sd ~ scale
    assert abs(scale * 2.0 / units - 1) < 2 ** -19  # eps' = D s / t, just below eps


def test_huge_values_and_shapes():
    generator = rng()
    x = np.array([[1e300, -1e300], [0.0, 5e-324]])
    out = _random.discrete_laplace_noise(x, 1e-3, 1.0, generator)
    assert out.shape == (2, 2)
    assert out[0, 0] == 1e300 and out[0, 1] == -1e300  # noise far below their precision
    assert np.isfinite(out).all()
    assert _random.discrete_gaussian_noise(np.float64(2.0), 1.0, generator).shape == ()


def test_determinism():
    for function in (
        lambda g: _random.discrete_laplace_noise(VALUES, 1.0, 0.5, g),
        lambda g: _random.discrete_gaussian_noise(VALUES, 1.0, g),
        lambda g: _random.discrete_laplace(3, 2, 1000, g),
        lambda g: _random.discrete_gaussian(7, 3, 1000, g),
        lambda g: [_random.exponential_mechanism(VALUES, 1.0, 50.0, g) for _ in range(5)],
    ):
        assert np.array_equal(function(rng(1)), function(rng(1)))
        assert not np.array_equal(function(rng(1)), function(rng(2)))


# --------------------------------------------------------------------------------------------
# 5. discrete_gaussian_delta (CKS Theorem 7)
# --------------------------------------------------------------------------------------------


def brute_force_delta(eps, d, sigma):
    """sum_y max(0, P(y) - e^eps P(y - d)) over a truncated support, P the N_Z(0, s^2) pmf."""
    reach = int(60 * sigma) + 2 * d + 60
    y = np.arange(-reach, reach + 1, dtype=np.float64)
    log_p = -y * y / (2 * sigma * sigma)
    log_q = -(y - d) ** 2 / (2 * sigma * sigma)
    top = max(log_p.max(), log_q.max())
    p, q = np.exp(log_p - top), np.exp(log_q - top)
    norm = p.sum()
    return float(np.maximum(p - math.exp(eps) * q, 0).sum() / norm)


@pytest.mark.parametrize("eps, d, sigma", [
    (1.0, 1, 1.0), (0.5, 1, 3.0), (2.0, 3, 2.0), (0.1, 1, 0.6), (1.0, 5, 1.5),
    (0.3, 40, 100.0), (3.0, 2, 1.2), (1.0, 4100, 20000.0),
])
def test_discrete_gaussian_delta_matches_brute_force(eps, d, sigma):
    expected = brute_force_delta(eps, d, sigma)
    assert _random.discrete_gaussian_delta(eps, d, sigma) == pytest.approx(expected, rel=1e-9,
                                                                             abs=1e-300)


def test_discrete_gaussian_delta_tends_to_the_continuous_one():
    """For large s and D the discrete Gaussian's delta approaches Balle and Wang's
    Phi(D / (2 s) - eps s / D) - e^eps Phi(-D / (2 s) - eps s / D)."""
    for eps, ratio in [(1.0, 2.0), (0.5, 5.0), (2.0, 1.0)]:
        d = 4096
        sigma = ratio * d
        a = d / (2 * sigma)
        b = eps * sigma / d
        continuous = stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)
        assert _random.discrete_gaussian_delta(eps, d, sigma) == pytest.approx(continuous,
                                                                                 rel=1e-4)


def test_discrete_gaussian_delta_shape():
    values = [_random.discrete_gaussian_delta(1.0, 4097, s) for s in (4096, 8192, 20000)]
    assert values[0] > values[1] > values[2] > 0
    assert _random.discrete_gaussian_delta(1000.0, 1, 1.0) == 0.0
    with pytest.raises(ValueError):
        _random.discrete_gaussian_delta(1.0, 1.5, 1.0)


# --------------------------------------------------------------------------------------------
# 6. The exponential mechanism
# --------------------------------------------------------------------------------------------


def exponential_law(utility, eps, sensitivity, measure=None):
    """The exact target: measure_i exp(eps u~_i / (2 Delta')), u~ on the grid h."""
    u = np.asarray(utility, dtype=np.float64)
    k = _random.grid_exponent(sensitivity, _random.UTILITY_GRID_BITS)
    units = _random.grid_units(sensitivity, k)
    h = math.ldexp(1.0, k)
    rounded = np.rint(u / h) * h
    with np.errstate(invalid="ignore"):
        log_w = eps * (rounded - rounded[np.isfinite(rounded)].max()) / (2 * units * h)
    w = np.exp(log_w)
    if measure is not None:
        w = w * np.asarray(measure, dtype=np.float64)
    return w / w.sum()


def selection_pvalue(utility, eps, sensitivity, calls, generator, measure=None):
    counts = np.bincount(
        [_random.exponential_mechanism(utility, eps, sensitivity, generator, measure)
         for _ in range(calls)], minlength=len(utility))
    law = exponential_law(utility, eps, sensitivity, measure)
    assert np.all(counts[law == 0] == 0)
    keep = law > 0
    return stats.chisquare(counts[keep], law[keep] * calls).pvalue


def test_exponential_mechanism_selection_probabilities():
    generator = rng()
    cases = [
        ([0.0, 1.0, 2.0, 2.5, 0.3], 1.0, 1.0, None),
        ([0.0, 1.0, 2.0, -np.inf, 0.3], 2.0, 1.0, None),  # -Inf: probability 0
        ([3.0, 1.0, 2.0, 2.0], 1.0, 1.0, [1, 5, 0, 2.5]),  # base measure, one zero
        ([0.0, -10.0, -20.0, -40.0, -80.0], 1.5, 0.7, None),  # several envelope levels
        (list(np.linspace(-3, 3, 25)), 0.8, 0.3, None),
    ]
    pvalues = [selection_pvalue(u, e, s, 20_000, generator, m) for u, e, s, m in cases]
    assert min(pvalues) > ALPHA / len(cases), pvalues


@pytest.mark.parametrize("buckets, bits, utility", [
    # levels cut at 2 instead of 64: most candidates in the last level, where the
    # acceptance exponent exceeds 1
    pytest.param(2, 160, [0.0, -1.0, -2.0, -3.0, -4.0, -6.0, -9.0], id="last-level"),
    # envelope weights ceil(exp(-c) 2^6) instead of 2^160: the lazy comparison with exp(-c)
    # now rejects often (and draws further bits on ties)
    pytest.param(3, 6, [0.0, -0.7, -1.9, -2.6, -4.0, -5.5, -8.0], id="coarse-envelope"),
])
def test_exponential_mechanism_envelope_variants(monkeypatch, buckets, bits, utility):
    """A cruder envelope only changes how often proposals are rejected, not the law."""
    monkeypatch.setattr(_exact_selection, "_BUCKETS", buckets)
    monkeypatch.setattr(_exact_selection, "_BUCKET_BITS", bits)
    assert selection_pvalue(utility, 2.0, 1.0, 20_000, rng(), None) > ALPHA


def test_exponential_mechanism_parameters(monkeypatch):
    """The sampler gets gamma = eps / (2 D), D = ceil(Delta / h) + 1, and the utilities in
    grid units h = 2^k, k = floor(log2 Delta) - 20."""
    seen = {}

    def capture(scaled, top, gamma, measure, generator, excluded=None):
        seen.update(scaled=scaled, top=top, gamma=gamma)
        return 0

    monkeypatch.setattr(_exact_selection, "select_exponential", capture)
    _random.exponential_mechanism([0.3, -1.25, 7.0], 0.1, 3.0, rng())
    h = 2.0 ** -19  # 2 <= 3 < 4: k = 1 - 20
    assert seen["gamma"] == Fraction(0.1) / (2 * (math.ceil(3.0 / h) + 1))
    assert seen["scaled"].tolist() == [round(0.3 / h), -1.25 / h, 7.0 / h]
    assert seen["top"] == 7.0 / h


def test_exponential_mechanism_many_candidates():
    """10^5 utilities: the chosen index follows the law, binned by deciles of probability."""
    generator = rng()
    utility = np.random.default_rng(3).normal(size=100_000)
    law = exponential_law(utility, 1.0, 1.0)
    order = np.argsort(law)
    bins = np.zeros(law.size, dtype=np.int64)
    bins[order] = np.minimum(np.cumsum(law[order]) * 10, 9).astype(np.int64)
    picks = [_random.exponential_mechanism(utility, 1.0, 1.0, generator) for _ in range(2000)]
    counts = np.bincount(bins[picks], minlength=10)
    expected = np.bincount(bins, weights=law, minlength=10) * len(picks)
    assert stats.chisquare(counts, expected).pvalue > ALPHA


def test_exponential_interval_is_the_mechanism_over_grid_points():
    """Interval k with weight widths_k exp(...), then a uniform offset: each grid point j has
    probability exp(eps u~_{k(j)} / (2 Delta')) / normaliser."""
    generator = rng()
    utility = [-2.0, -1.0, -0.5, -1.5]
    widths = np.array([3, 1, 0, 4])
    calls = 20_000
    points = []
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    for _ in range(calls):
        k, offset = _random.exponential_interval(utility, widths, 1.0, 1.0, generator)
        assert 0 <= offset < widths[k]
        points.append(starts[k] + offset)
    per_point = np.repeat(exponential_law(utility, 1.0, 1.0), widths)
    per_point = per_point / per_point.sum()
    counts = np.bincount(points, minlength=widths.sum())
    assert stats.chisquare(counts, per_point * calls).pvalue > ALPHA


def test_integer_measure():
    assert _random.integer_measure([1, 2, 3]).tolist() == [1, 2, 3]
    weights = _random.integer_measure([0.5, 0.25, 1e-30, 0.0])
    assert weights.dtype == np.int64 and weights.sum() < 2 ** 62
    assert weights[0] == 2 * weights[1] and weights[3] == 0


# ---- tails (for thresholds and calibrations) and a given grid -------------------------------


def _brute_tail(m, log_weight, half):
    z = np.arange(-half, half + 1, dtype=np.float64)
    p = np.exp(log_weight(z) - np.logaddexp.reduce(log_weight(z)))
    return float(p[z >= m].sum())


@pytest.mark.parametrize("sigma2", [0.3, 2.0, 37.5, 5000.0, 2.0 ** 27])
def test_discrete_gaussian_tail_matches_the_pmf(sigma2):
    """P[Y >= m] against the normalised pmf summed directly (both signs of m, reals)."""
    s = math.sqrt(sigma2)
    half = int(14 * s) + 10
    for m in [-3 * s, -1, -0.5, 0, 0.2, 1, 2.5 * s, 6 * s]:
        expected = _brute_tail(math.ceil(m), lambda z: -z * z / (2 * sigma2), half)
        assert _random.discrete_gaussian_tail(m, sigma2) == pytest.approx(expected, rel=1e-9,
                                                                          abs=1e-300)


@pytest.mark.parametrize("t, s", [(1, 1), (7, 3), (2 ** 10, 3), (5, 40)])
def test_discrete_laplace_tail_matches_the_pmf(t, s):
    """P[Z >= m] in closed form against the normalised pmf summed directly."""
    half = int(60 * t / s) + 10
    for m in [-5, -1, 0, 1, 2, 7, int(3 * t / s) + 1]:
        expected = _brute_tail(m, lambda z: -np.abs(z) * s / t, half)
        assert _random.discrete_laplace_tail(m, t, s) == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError):
        _random.discrete_laplace_tail(0, 0, 1)


def test_laplace_noise_on_a_given_grid():
    """grid=k puts the release on 2^k (as AboveThreshold's noises share one grid); the scale
    is unchanged, the sensitivity in grid units follows the grid."""
    k = _random.laplace_grid(1.0, 0.5)[0]
    assert _random.laplace_grid(1.0, 0.25, grid=k)[0] == k
    k_own, units_own, t_own, s_own = _random.laplace_grid(1.0, 0.25)
    _, units, t, s = _random.laplace_grid(1.0, 0.25, grid=k - 3)
    assert units == _random.grid_units(1.0, k - 3)
    assert math.ldexp(t / s, k - 3) == pytest.approx(4.0, rel=2.0 ** -18)
    out = _random.discrete_laplace_noise(np.full(1000, 0.3), 1.0, 0.25,
                                         np.random.default_rng(SEED), coordinates=1,
                                         grid=k - 3)
    assert on_grid(out, k - 3) and not on_grid(out, k - 2)


def test_gaussian_noise_on_grid_equals_noise_from_sigma():
    """discrete_gaussian_noise(sigma) is discrete_gaussian_noise_on_grid with the grid of
    discrete_gaussian_grid(sigma): the same draws from the same stream."""
    values = np.linspace(-3, 3, 501)
    k, sigma2 = _random.discrete_gaussian_grid(2.5)
    first = _random.discrete_gaussian_noise(values, 2.5, np.random.default_rng(SEED))
    second = _random.discrete_gaussian_noise_on_grid(values, k, sigma2,
                                                     np.random.default_rng(SEED))
    np.testing.assert_array_equal(first, second)
    assert on_grid(second, k)


def test_few_draws_take_the_python_samplers_with_the_same_law(monkeypatch):
    """Up to ``_exact._FEW`` draws (a scalar release) go through the Python-integer samplers,
    whose fixed cost is lower; one draw at a time, their law is still the exact pmf
    (chi-square; false-failure rate ALPHA / 2 per sampler)."""
    calls = {"laplace": 0, "gaussian": 0}
    count_calls(monkeypatch, "py_discrete_laplace", calls, "laplace")
    count_calls(monkeypatch, "py_discrete_gaussian", calls, "gaussian")
    generator = rng()
    singles = np.array([_random.discrete_laplace(6, 1, 1, generator)[0] for _ in range(6000)])
    assert calls["laplace"] == 6000
    assert chisquare_pvalue(singles, laplace_pmf(6), range(-100, 101)) > ALPHA / 2
    pairs = np.concatenate([_random.discrete_gaussian(30, 1, 2, generator)
                            for _ in range(3000)])
    assert calls["gaussian"] == 6000
    assert chisquare_pvalue(pairs, gaussian_pmf(30), range(-60, 61)) > ALPHA / 2
    before = calls["laplace"]  # (the Gaussian's proposals are discrete Laplace draws too)
    _random.discrete_laplace(6, 1, _exact._FEW + 1, generator)
    assert calls["laplace"] == before  # more draws: the vectorised sampler
