"""Laws of the noise-reduction samplers with per-entry rates (one-word exp coins, signed
geometric discrete Laplace). Fixed seeds; each chi-square test rejects a correct sampler
with probability 1e-4 (false-failure rate), so the file fails falsely below 1e-3."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _random

ALPHA = 1e-4


def chi_square_p(counts, probabilities):
    counts = np.asarray(counts, dtype=float)
    expected = np.asarray(probabilities, dtype=float) * counts.sum()
    return stats.chisquare(counts, expected).pvalue


@pytest.mark.parametrize("force_exact", [False, True])
def test_exp_coins_dyadic_law(monkeypatch, force_exact):
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force_exact)
    rng = _random.as_generator(11)
    a = 12
    n = np.repeat(np.array([0, 1, 100, 255], dtype=np.int64), 2000 if force_exact else 20000)
    coins = _random.exp_coins_dyadic(n, a, rng)
    for value in (0, 1, 100, 255):
        draws = coins[n == value]
        p = math.exp(-value / 2 ** a)
        successes = int(draws.sum())
        assert stats.binomtest(successes, draws.size, p).pvalue > ALPHA


def test_exp_coins_dyadic_undecided_words_use_the_same_uniform(monkeypatch):
    # words at the float threshold are decided exactly, as U < exp(-x) of that word
    a, value = 10, 37
    lo, hi = _random._exp_neg_bounds(Fraction(value, 2 ** a), 200)
    centre = math.floor(lo * 2 ** 64)
    assert math.floor(hi * 2 ** 64) == centre  # the exact threshold lies in [centre, centre + 1)
    words = np.array([centre - 5, centre + 5, 0, 2 ** 64 - 1], dtype=np.uint64)
    calls = iter([words])

    class Exact:
        @staticmethod
        def words(rng, size):
            return next(calls)[:size]

        @staticmethod
        def py_word(rng):
            return 0

    monkeypatch.setattr(_random, "_exact_samplers", lambda: Exact)
    out = _random.exp_coins_dyadic(np.full(4, value, dtype=np.int64), a, None)
    assert out.tolist() == [True, False, True, False]


@pytest.mark.parametrize("force_exact", [False, True])
def test_geometric_rates_law(monkeypatch, force_exact):
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force_exact)
    rng = _random.as_generator(5)
    t, s = 1 << 20, 1 << 18  # rate 1/4
    size = 4000 if force_exact else 40000
    g = _random.geometric_rates(t, s, size, rng)
    q = math.exp(-s / t)
    cells = 12
    counts = [int(np.sum(g == k)) for k in range(cells)] + [int(np.sum(g >= cells))]
    probabilities = [(1 - q) * q ** k for k in range(cells)] + [q ** cells]
    assert chi_square_p(counts, probabilities) > ALPHA


def test_discrete_laplace_rates_law_per_entry_rates():
    rng = _random.as_generator(7)
    t = 1 << 30
    rates = np.array([1 << 28, 1 << 29, 3 << 28], dtype=np.int64)  # 1/4, 1/2, 3/4
    s = np.tile(rates, 30000)
    z = _random.discrete_laplace_rates(t, s, s.size, rng)
    assert z.dtype == np.int64
    for rate in rates.tolist():
        draws = z[s == rate]
        q = math.exp(-rate / t)
        support = range(-8, 9)
        counts = [int(np.sum(draws == k)) for k in support] + [int(np.sum(np.abs(draws) > 8))]
        norm = (1 - q) / (1 + q)
        probabilities = [norm * q ** abs(k) for k in support]
        probabilities.append(1 - sum(probabilities))
        assert chi_square_p(counts, probabilities) > ALPHA


def test_discrete_laplace_rates_zero_not_doubled():
    # the rejected (negative, 0) would double P(0) if kept: a large rate shows it
    rng = _random.as_generator(3)
    z = _random.discrete_laplace_rates(1, 2, 20000, rng)  # rate 2: P(0) = tanh(1)
    assert stats.binomtest(int(np.sum(z == 0)), z.size, math.tanh(1.0)).pvalue > ALPHA


def discrete_gaussian_cells(p, edges):
    """P(Z in [edges[i], edges[i+1])) for the discrete Gaussian of variance parameter p, and
    the two tails, exactly enough (sums over |z| <= 12 sigma)."""
    sigma = math.sqrt(p)
    z = np.arange(-int(12 * sigma), int(12 * sigma) + 1)
    w = np.exp(-(z.astype(float) ** 2) / (2 * p))
    w /= w.sum()
    cells = np.searchsorted(edges, z, side="right")
    return np.bincount(cells, weights=w, minlength=len(edges) + 1)


@pytest.mark.parametrize("force_exact", [False, True])
def test_discrete_gaussian_blocks_rows_law(monkeypatch, force_exact):
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force_exact)
    rng = _random.as_generator(13)
    ps = (64 ** 2, 4096 * 3, 300 ** 2)
    size = 1500 if force_exact else 12000
    z = _random.discrete_gaussian_blocks_rows(ps, size, rng)
    assert z.shape == (3, size) and z.dtype == np.int64
    for row, p in zip(z, ps):
        sigma = math.sqrt(p)
        edges = np.round(np.linspace(-3 * sigma, 3 * sigma, 25)).astype(np.int64)
        probabilities = discrete_gaussian_cells(p, edges)
        counts = np.bincount(np.searchsorted(edges, row, side="right"),
                             minlength=len(edges) + 1)
        assert chi_square_p(counts, probabilities) > ALPHA
    # the rows are independent: no correlation between rows beyond chance (|r| < 5 / sqrt(n))
    assert abs(np.corrcoef(z[0], z[1])[0, 1]) < 5 / math.sqrt(size)


def test_discrete_gaussian_blocks_rows_chunks_and_sizes():
    rng = _random.as_generator(2)
    for size in (0, 1, 3, _random._ROWS_CHUNK + 5):
        z = _random.discrete_gaussian_blocks_rows((64 ** 2, 128 ** 2), size, rng)
        assert z.shape == (2, size)
    # the chunked draw has the stated spread in each row
    assert abs(float(z[1].std()) - 128) < 8


def test_geometric_rates_chunks_per_entry_rates():
    # beyond one chunk, each entry keeps its own rate (the chunks cut s consistently)
    from dppack import _exact

    rng = _random.as_generator(17)
    size = _exact._RATES_CHUNK + 4000
    t = 1 << 20
    s = np.where(np.arange(size) % 2 == 0, 1 << 18, 1 << 19).astype(np.int64)
    g = _random.geometric_rates(t, s, size, rng)
    assert g.shape == (size,)
    for rate in (1 << 18, 1 << 19):
        draws = g[s == rate]
        q = math.exp(-rate / t)
        counts = [int(np.sum(draws == k)) for k in range(8)] + [int(np.sum(draws >= 8))]
        probabilities = [(1 - q) * q ** k for k in range(8)] + [q ** 8]
        assert chi_square_p(counts, probabilities) > ALPHA


def test_discrete_gaussian_blocks_rows_tails():
    # the far tails (the guide's buckets with several blocks, searched row by row): the
    # mass beyond 3 sigma against the exact law, binomial test
    rng = _random.as_generator(5)
    ps = (64 ** 2, 200 ** 2)
    z = _random.discrete_gaussian_blocks_rows(ps, 200_000, rng)
    for row, p in zip(z, ps):
        sigma = math.sqrt(p)
        cut = int(3 * sigma)
        support = np.arange(-int(15 * sigma), int(15 * sigma) + 1)
        w = np.exp(-(support.astype(float) ** 2) / (2 * p))
        tail = float(w[np.abs(support) > cut].sum() / w.sum())
        count = int(np.sum(np.abs(row) > cut))
        assert stats.binomtest(count, row.size, tail).pvalue > ALPHA


def test_tiny_levels_leave_the_one_call_path(monkeypatch):
    """Levels so small that the rates' common t exceeds 2^62 take the per-level samplers
    (the one-call geometric draws are defined for t <= 2^62 only; beyond, an earlier version
    drew a wrong law: values on a coarse lattice that told neighbours apart)."""
    from dppack import _exact
    from dppack.accuracy_first import _laplace_path, noise_reduction

    with pytest.raises(ValueError, match="2\\^62"):
        _exact.geometric_rates(1 << 68, 1, 10, _random.as_generator(0))

    def fail(*args):
        raise AssertionError("the one-call path took t > 2^62")

    monkeypatch.setattr(_laplace_path, "_medium_noise_path", fail)
    x = np.linspace(-5.0, 5.0, 50)
    out = noise_reduction.LaplaceNoiseReduction(x, [3e-13, 1e-12], 1.0, random_state=1)
    assert out.shape == (2, 50)
    # noise of scale ~1e12 on the grid: the released values are spread, not on a few points
    assert np.unique(out[0]).size > 40

