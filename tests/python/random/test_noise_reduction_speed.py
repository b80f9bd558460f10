"""The one-word exact samplers of noise reduction (``dppack._random``: a float decision with a
rigorous margin, the exact continuation inside it) and the paths that use them.

* the C library's log, exp and expm1 (NumPy's and Python's) are within the relative error
  ``_random.LIBM_ERROR`` that the margins assume, against exact rational bounds;
* each sampler's law, on its fast path and on its exact path alone (forced by the test hook
  ``_random.FORCE_EXACT_PATH``): chi-square tests against the discrete Laplace and discrete
  Gaussian pmfs, binomial tests of the Bernoulli(exp(-x)) coins, with a power check;
* the entry-by-entry paths (few entries) against the laws of the vectorised ones: the batch
  path's marginals and keep probability, the online step's joint law, the Brownian path's
  marginals.

Statistical tests run at level ALPHA = 0.001 with fixed seeds, so the file is deterministic;
with fresh seeds each would fail falsely with probability 0.001 (a chi-square test pooled to
cells of expected count >= 20).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _random
from dppack.accuracy_first import _laplace_path as lp
from dppack.accuracy_first import noise_reduction as nr
from lazy_walk_checks import reduce_pmf

ALPHA = 0.001


@pytest.fixture
def exact_path(monkeypatch):
    """Every draw of the fast samplers through their exact continuation (the same law)."""
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", True)


def _exp_bounds(y, bits=90):
    """Fractions lo <= exp(y) <= hi for a Fraction y of either sign."""
    if y >= 0:
        return _random.exp_series_bounds(y, 0, 1, bits)
    lo, hi = _random.exp_series_bounds(-y, 0, 1, bits)
    return 1 / hi, 1 / lo


def _within(value, lo, hi, relative):
    """Whether the float value lies within a relative ``relative`` of [lo, hi]."""
    v = Fraction(value)
    return lo * (1 - Fraction(relative)) <= v <= hi * (1 + Fraction(relative))


def test_library_functions_are_within_the_assumed_error():
    # log on words' 63-bit integers, exp(-x) on [0, 600], expm1 on +-[2^-40, 50]: each value
    # against exact bounds of the function (its relative error <= LIBM_ERROR)
    rng = np.random.default_rng(1)
    eps = _random.LIBM_ERROR
    v = (rng.integers(1 << 20, 1 << 62, 150) << rng.integers(0, 2, 150)).astype(np.float64)
    for f in (np.log, math.log):
        for value in v.tolist():
            y = Fraction(float(f(value)))
            # ln(value) = y (1 + r), |r| <= eps  <=>  value in exp(y (1 -+ eps))
            lo = _exp_bounds(y * (1 - Fraction(eps)))[0]
            hi = _exp_bounds(y * (1 + Fraction(eps)))[1]
            assert lo <= Fraction(value) <= hi
    x = np.concatenate([rng.uniform(0, 2, 60), rng.uniform(0, 600, 60),
                        2.0 ** -rng.integers(1, 40, 30)])
    for f in (np.exp, math.exp):
        for value in x.tolist():
            lo, hi = _exp_bounds(-Fraction(value))
            assert _within(float(f(-value)), lo, hi, eps)
    signed = np.concatenate([x[x <= 50], -x[x <= 50]])
    for f in (np.expm1, math.expm1):
        for value in signed.tolist():
            lo, hi = _exp_bounds(Fraction(value))
            assert _within(float(f(value)), lo - 1, hi - 1, eps) if value > 0 else \
                _within(-float(f(value)), 1 - hi, 1 - lo, eps)


def _chi2_by_tail(z, tail, cuts):
    """p-value of a chi-square test of the integer draws z against a law given by its tail
    P[Z >= m] (``tail``), in the cells between the integer ``cuts``."""
    cuts = sorted(set(int(c) for c in cuts))
    upper = np.array([tail(c) for c in cuts])
    probabilities = np.concatenate([[1 - upper[0]], upper[:-1] - upper[1:], [upper[-1]]])
    observed = np.bincount(np.searchsorted(cuts, z, side="right"), minlength=len(cuts) + 1)
    return stats.chisquare(observed, probabilities * z.size).pvalue


def _laplace_cuts(s, t, cells=24):
    """Cuts at the quantiles of DL(s / t) (the scale t / s may be large)."""
    scale = t / s
    q = np.linspace(-3, 3, cells - 1) * scale
    return np.round(q).astype(np.int64).tolist()


def _chi2_laplace(z, s, t):
    return _chi2_by_tail(np.asarray(z, dtype=np.int64),
                         lambda m: _random.discrete_laplace_tail(m, t, s), _laplace_cuts(s, t))


# (s, t): a rate of 1/3 (one word: the float decision alone), and a rate of 3 / 2^20 (below
# 2^-16: the split G = m H + R, as the noise-reduction rates, 2^-20 and below)
RATES = [(1, 3), (3, 1 << 20)]


@pytest.mark.parametrize("s,t", RATES)
def test_discrete_laplace_one_law(s, t):
    rng = np.random.default_rng(3)
    z = [_random.discrete_laplace_one(s, t, rng) for _ in range(40_000)]
    assert _chi2_laplace(z, s, t) > ALPHA


@pytest.mark.parametrize("s,t", RATES)
def test_discrete_laplace_exact_path_law(s, t, exact_path):
    rng = np.random.default_rng(4)
    z = [_random.discrete_laplace_one(s, t, rng) for _ in range(3000)]
    assert _chi2_laplace(z, s, t) > ALPHA


def test_discrete_laplace_check_has_power():
    # draws of rate 0.36 are told apart from the law of rate 1/3 (the test would see a
    # sampler off by 8% in its rate)
    rng = np.random.default_rng(5)
    z = [_random.discrete_laplace_one(36, 100, rng) for _ in range(40_000)]
    assert _chi2_laplace(z, 1, 3) < ALPHA


@pytest.mark.parametrize("n,d", [(1, 3), (7, 3), (0, 1), (1, 1 << 40)])
def test_bernoulli_exp_one(n, d):
    rng = np.random.default_rng(6)
    p = math.exp(-n / d)
    draws = np.array([_random.bernoulli_exp_one(n, d, rng) for _ in range(40_000)])
    if p == 1.0:
        assert draws.all()
    else:
        assert stats.binomtest(int(draws.sum()), draws.size, p).pvalue > ALPHA


def test_bernoulli_exp_exact_path(exact_path):
    rng = np.random.default_rng(7)
    n = np.arange(3000) % 5
    draws = np.array([_random.bernoulli_exp_one(int(k), 4, rng) for k in n])
    p = np.exp(-n / 4)
    # the sum of independent Bernoulli(p_i): a normal approximation (3000 draws)
    z = (draws.sum() - p.sum()) / math.sqrt((p * (1 - p)).sum())
    assert abs(z) < stats.norm.isf(ALPHA / 2)


def _gaussian_cuts(p, cells=24):
    return np.round(np.linspace(-3, 3, cells - 1) * math.sqrt(p)).astype(np.int64).tolist()


def _chi2_gaussian(z, p):
    return _chi2_by_tail(np.asarray(z, dtype=np.int64),
                         lambda m: _random.discrete_gaussian_tail(m, float(p)), _gaussian_cuts(p))


def test_discrete_gaussian_one():
    rng = np.random.default_rng(8)
    p = _random.gaussian_variance(12_000 ** 2)
    assert _chi2_gaussian([_random.discrete_gaussian_one(p, rng) for _ in range(20_000)],
                          p) > ALPHA
    # power: sigma 12500 is told apart from 12000
    wrong = _random.gaussian_variance(12_500 ** 2)
    assert _chi2_gaussian([_random.discrete_gaussian_one(wrong, rng) for _ in range(20_000)],
                          p) < ALPHA


def test_discrete_gaussian_exact_path(exact_path):
    rng = np.random.default_rng(9)
    p = _random.gaussian_variance(30 ** 2)
    z = [_random.discrete_gaussian_one(p, rng) for _ in range(2500)]
    assert _chi2_gaussian(z, p) > ALPHA


def test_cumulative_index_law_and_exact_path(monkeypatch):
    # three pieces of probabilities 0.2, 0.5, 0.3 (floats exact here); the fast path and the
    # exact continuation alone give the same multinomial law
    c1, c2 = np.full(30_000, 0.2), np.full(30_000, 0.7)

    def bounds(i, k, bits):
        value = Fraction(1, 5) if k == 0 else Fraction(7, 10)
        return value, value
    for force in (False, True):
        monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
        size = 30_000 if not force else 3000
        index = _random.cumulative_index([c1[:size], c2[:size]], 2.0 ** -50, bounds,
                                         np.random.default_rng(10))
        observed = np.bincount(index, minlength=3)
        assert stats.chisquare(observed, np.array([0.2, 0.5, 0.3]) * size).pvalue > ALPHA
        rng = np.random.default_rng(11)
        one = [_random.cumulative_index_one([0.2, 0.7], 2.0 ** -50,
                                            lambda k, bits: bounds(0, k, bits), rng)
               for _ in range(3000)]
        assert stats.chisquare(np.bincount(one, minlength=3),
                               np.array([0.2, 0.5, 0.3]) * 3000).pvalue > ALPHA


@pytest.mark.parametrize("x", [0, 3, -7, 40])
@pytest.mark.parametrize("force", [False, True])
def test_online_step_conditional_law(x, force, monkeypatch):
    # Z_{t+1} given Z_t = x by the vectorised step and entry by entry, against the exact
    # conditional pmf (rates 0.3 and 0.5 per unit: both tails, the middle and the stay)
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
    a1, a2 = Fraction(3, 10), Fraction(1, 2)
    rng = np.random.default_rng(12)
    size = 20_000 if not force else 1500
    ys = np.arange(-80, 121)
    pmf = reduce_pmf(x, float(a1), float(a2), ys)
    vector = nr._laplace_reduce_noise(np.full(size, x), a1, a2, rng)
    one = np.concatenate([nr._laplace_reduce_noise(np.array([x]), a1, a2, rng)
                          for _ in range(size // 10)])
    for draws in (vector, one):
        expected = pmf * draws.size
        keep = expected >= 20
        observed = np.array([np.count_nonzero(draws == y) for y in ys[keep]])
        rest = draws.size - observed.sum()
        assert stats.chisquare(np.append(observed, rest),
                               np.append(expected[keep], draws.size - expected[keep].sum())
                               ).pvalue > ALPHA



def test_online_step_in_unaligned_chunks(monkeypatch):
    # the step in chunks of 61 entries (noise_reduction.STEP_CHUNK) over 24,400 entries in
    # a shuffled order (no period of the data lines up with the chunks): each entry's
    # Z_{t+1} against the conditional pmf of its own Z_t (a chunk that read another
    # chunk's entries, or their signs, would fail); chi-square at ALPHA / 4 per value
    monkeypatch.setattr(nr, "STEP_CHUNK", 61)
    a1, a2 = Fraction(3, 10), Fraction(1, 2)
    starts = np.array([0, 3, -7, 40])
    x = np.random.default_rng(13).permutation(np.repeat(starts, 6100))
    y = nr._laplace_reduce_noise(x, a1, a2, np.random.default_rng(14))
    ys = np.arange(-80, 121)
    for value in starts:
        draws = y[x == value]
        expected = reduce_pmf(int(value), float(a1), float(a2), ys) * draws.size
        keep = expected >= 20
        observed = np.array([np.count_nonzero(draws == v) for v in ys[keep]])
        assert stats.chisquare(np.append(observed, draws.size - observed.sum()),
                               np.append(expected[keep], draws.size - expected[keep].sum())
                               ).pvalue > ALPHA / len(starts)


@pytest.mark.parametrize("size, copies, seed", [("SMALL_PATH", 1250, 13), ("MEDIUM_PATH", 10, 18)])
def test_batch_path_marginals_and_keep(size, copies, seed):
    # up to SMALL_PATH entries the path runs entry by entry, up to MEDIUM_PATH all discrete
    # Laplace draws in one call (differences of geometric draws): either way the marginals
    # DL(a_t) and the keep probability of the walk (as for the vectorised path)
    rng = np.random.default_rng(seed)
    levels = [0.4, 0.9, 1.3]
    paths = np.concatenate([lp.integer_noise_path(getattr(lp, size), 1, levels, rng)
                            for _ in range(copies)], axis=1)
    rates = [lp._level_rate(1, e) for e in levels]
    for z, (t, s) in zip(paths, rates):
        assert _chi2_by_tail(z, lambda m: _random.discrete_laplace_tail(m, t, s),
                             range(-8, 9)) > ALPHA / 4
    a = [s / t for t, s in rates]
    p = np.sinh(a[0] / 2) ** 2 / np.sinh(a[1] / 2) ** 2
    q = math.exp(-a[0])
    same = p + (1 - p) * (1 - q) / (1 + q)
    kept = int(np.count_nonzero(paths[0] == paths[1]))
    assert stats.binomtest(kept, paths.shape[1], same).pvalue > ALPHA / 4


def test_geometric_rates_law():
    # one call, two rates over a common t: each entry's geometric law (chi-square), and the
    # large-t case of the noise-reduction grids (a mean check)
    rng = np.random.default_rng(19)
    s = np.repeat(np.array([3, 7]), 20_000)
    g = _random.geometric_rates(10, s, s.size, rng)
    for part, rate in ((g[:20_000], 0.3), (g[20_000:], 0.7)):
        q = math.exp(-rate)
        assert _chi2_by_tail(part, lambda m: q ** max(m, 0), range(1, 12)) > ALPHA / 3
    t, s0 = 1 << 58, 3355404
    q = math.exp(-s0 / t)
    big = _random.geometric_rates(t, s0, 40_000, rng)
    mean, sd = q / (1 - q), math.sqrt(q) / (1 - q)
    assert abs(big.mean() - mean) < stats.norm.isf(ALPHA / 6) * sd / math.sqrt(big.size)


def test_small_gaussian_path_marginals():
    # the Brownian path entry by entry (few values): Z_T ~ N_Z(0, p_T), Z_1 the sum of all
    # increments (its variance), against the vectorised path's draws (two-sample test)
    s = np.array([9.0, 4.0, 1.0])
    rng = np.random.default_rng(14)
    small = np.concatenate([nr.gaussian_noise_path(np.zeros(4), s, None, rng)
                            for _ in range(2500)], axis=1)
    large = nr.gaussian_noise_path(np.zeros(10_000), s, None, rng)
    k, variances = nr.gaussian_path_grid(s, None, 4)
    g = 2.0 ** k
    z_last = np.rint(small[-1] / g).astype(np.int64)
    assert _chi2_gaussian(z_last, variances[0]) > ALPHA / 3
    for t in range(3):
        assert stats.ks_2samp(small[t], large[t]).pvalue > ALPHA / 3


# the block sampler of the Brownian path's increments: sigma 70 (b = 8), 12000 (b = 1024)
@pytest.mark.parametrize("sigma", [70, 12_000])
def test_discrete_gaussian_blocks_law(sigma):
    rng = np.random.default_rng(15)
    p = _random.gaussian_variance(sigma ** 2)
    assert _chi2_gaussian(_random.discrete_gaussian_blocks(p, 40_000, rng), p) > ALPHA
    one = [_random.discrete_gaussian_block_one(p, rng) for _ in range(10_000)]
    assert _chi2_gaussian(one, p) > ALPHA
    # more than one chunk, and a power check (sigma 5% larger)
    assert _chi2_gaussian(_random.discrete_gaussian_blocks(
        p, _random._BLOCK_CHUNK + 5000, rng), p) > ALPHA
    wrong = _random.gaussian_variance(int(sigma * 1.05) ** 2)
    assert _chi2_gaussian(_random.discrete_gaussian_blocks(wrong, 40_000, rng), p) < ALPHA


def test_discrete_gaussian_blocks_exact_path(exact_path):
    rng = np.random.default_rng(16)
    p = _random.gaussian_variance(100 ** 2)
    z = np.concatenate([_random.discrete_gaussian_blocks(p, 1500, rng),
                        [_random.discrete_gaussian_block_one(p, rng) for _ in range(1000)]])
    assert _chi2_gaussian(z, p) > ALPHA


def test_discrete_gaussian_blocks_envelope_and_tail():
    # the envelope's weights bound the target (W_k >= b F e_k, checked in floating point
    # with room), its total is below 2^63; the tail piece (|y| >= 10 sigma, never reached
    # by chance) draws the target law there: accepted tail values against
    # P(y) proportional to exp(-y^2 / (2 p)) on y >= Y0
    p = 64 ** 2
    b, beta, kmax, C, W, F, factor = _random._gaussian_blocks(p)
    for k in range(kmax):
        assert W[k] >= b * F * math.exp(-(b * k) ** 2 / (2 * p)) * (1 - 1e-12)
    assert 0 < int(C[-1]) < 2 ** 63 and np.all(np.diff(C) >= 0)
    rng = np.random.default_rng(17)
    Y0 = b * kmax
    # the table's tail weight is 1 (its mass, about 2^-78 of the total, rounded up), so the
    # tail's constant coin c = F e / (W_tail (1 - q)) is tiny there; F = 2^120 and a weight
    # just above F times the tail's envelope mass make c about 1 - 1e-9 and the accepted
    # draws plentiful (the same law)
    mass = math.exp(-Y0 ** 2 / (2 * p)) / -math.expm1(-Y0 / p)
    assert W[kmax] >= F * mass * (1 - 1e-9)
    big = 2 ** 120
    w_tail = math.ceil(big * mass * (1 + 1e-9))
    drawn = [_random._gaussian_tail_draw(p, b, kmax, big, w_tail, False, rng)
             for _ in range(6000)]
    values = np.array([v for v in drawn if v is not None])
    assert values.size > 5000
    assert values.min() >= Y0
    ys = np.arange(Y0, Y0 + 400)
    pmf = np.exp(-(ys.astype(float) ** 2 - Y0 ** 2) / (2 * p))
    pmf /= pmf.sum()
    cuts = Y0 + np.array([5, 10, 20, 30, 45, 60, 80, 110])
    cells = np.searchsorted(cuts, values, side="right")
    expected = np.array([pmf[np.searchsorted(cuts, ys, side="right") == c].sum()
                         for c in range(len(cuts) + 1)]) * values.size
    assert stats.chisquare(np.bincount(cells, minlength=len(cuts) + 1), expected).pvalue > ALPHA


@pytest.mark.parametrize("sigma", [70, 12_000, 2 ** 20])
def test_block_index_is_the_binary_search(sigma):
    # the guide table's lookup equals searchsorted on random words, at every boundary and
    # just below it, and at the top of the range
    p = _random.gaussian_variance(sigma ** 2)
    C = _random._gaussian_blocks(p)[3]
    rng = np.random.default_rng(20)
    u = (rng.bit_generator.random_raw(200_000) >> np.uint64(1)).astype(np.int64)
    u = np.concatenate([u, C, np.maximum(C - 1, 0), [2 ** 63 - 1]])
    assert np.array_equal(_random._block_index(p, C, u),
                          np.searchsorted(C, u, side="right") - 1)
