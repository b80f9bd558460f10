"""The two-word geometric and discrete Laplace samplers (dppack._random.geometric_words,
discrete_laplace_words, geometric_words_one): their laws against the exact pmfs
(chi-square), the exact continuation forced (FORCE_EXACT_PATH), the float decision against
the exact one word by word, the wide branch (X beyond 2^62) and the scaled small t.

False-failure rate: each chi-square test fails below p = 1e-4 (fixed seeds: the outcome is
deterministic; 1e-4 per assertion for a fresh seed); the word-by-word comparison is exact.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dppack import _random

P_MIN = 1e-4


def geometric_pmf(rate, top):
    """P(G = 0..top-1) and P(G >= top) for P(G >= k) = exp(-rate k)."""
    k = np.arange(top)
    return np.append(np.exp(-rate * k) * -math.expm1(-rate), math.exp(-rate * top))


def laplace_pmf(rate, top):
    """P(Z < -top), P(Z = -top..top), P(Z > top) for P(z) proportional to exp(-rate |z|)."""
    q = math.exp(-rate)
    k = np.arange(-top, top + 1)
    tail = q ** (top + 1) / (1 + q)
    return np.concatenate([[tail], (1 - q) / (1 + q) * q ** np.abs(k), [tail]])


def chi2_geometric(g, rate, top):
    observed = np.append(np.bincount(np.minimum(g, top), minlength=top + 1)[:top],
                         np.count_nonzero(g >= top))
    return stats.chisquare(observed, geometric_pmf(rate, top) * g.size).pvalue


def chi2_laplace(z, rate, top):
    clipped = np.clip(z, -top - 1, top + 1) + top + 1
    observed = np.bincount(clipped, minlength=2 * top + 3)
    return stats.chisquare(observed, laplace_pmf(rate, top) * z.size).pvalue


@pytest.mark.parametrize("t,s", [(1 << 58, 1 << 55), (1 << 40, 3 << 37), (1 << 62, 1 << 60),
                                 (8, 3)])
def test_geometric_words_law(t, s):
    # per-entry rates: half the entries at s / t, half at 2 s / t; (1 << 62: X beyond 2^62
    # for V > 15, the wide branch, about e^-1 of the trials; t = 8 < 32: scaled by 4)
    size = 20_000
    rates = np.where(np.arange(size) % 2 == 0, s, 2 * s).astype(np.int64)
    g = _random.geometric_words(t, rates, size, _random.as_generator(11))
    assert g.dtype == np.int64 and g.shape == (size,)
    assert chi2_geometric(g[0::2], s / t, 25) > P_MIN
    assert chi2_geometric(g[1::2], 2 * s / t, 25) > P_MIN


@pytest.mark.parametrize("t,s", [(1 << 58, 1 << 55), (1 << 21, 3 << 19), (1 << 62, 1 << 60)])
def test_discrete_laplace_words_law(t, s):
    size = 20_000
    rates = np.where(np.arange(size) % 2 == 0, s, 2 * s).astype(np.int64)
    z = _random.discrete_laplace_words(t, rates, size, _random.as_generator(12))
    assert chi2_laplace(z[0::2], s / t, 20) > P_MIN
    assert chi2_laplace(z[1::2], 2 * s / t, 20) > P_MIN
    # one rate for all (an int): the same law
    z = _random.discrete_laplace_words(t, s, size, _random.as_generator(13))
    assert chi2_laplace(z, s / t, 20) > P_MIN


def test_discrete_laplace_words_tiny_rate_is_symmetric_and_scaled():
    # the noise-reduction scales: rate about 2^-23 (X's geometric part over many words)
    t, s = 1 << 58, (1 << 35) + 12345
    z = _random.discrete_laplace_words(t, s, 20_000, _random.as_generator(14))
    scale = t / s
    # |Z| / scale is about Exp(1): KS against the exponential, and a fair sign
    assert stats.kstest(np.abs(z) / scale, "expon").pvalue > P_MIN
    assert stats.binomtest(int(np.count_nonzero(z > 0)), int(np.count_nonzero(z)),
                           0.5).pvalue > P_MIN


@pytest.mark.parametrize("sampler", ["vector", "one"])
def test_forced_exact_continuation_law(sampler, monkeypatch):
    # every trial decided by _x_exact (rational bounds on further bits): the same law
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", True)
    t, s, size = 1 << 12, 1 << 11, 1500
    rng = _random.as_generator(15)
    if sampler == "vector":
        g = _random.geometric_words(t, s, size, rng)
    else:
        g = np.array([_random.geometric_words_one(s, t, rng) for _ in range(size)])
    assert chi2_geometric(g, s / t, 10) > P_MIN


def test_scalar_law():
    rng = _random.as_generator(16)
    t, s = 1 << 30, 3 << 27
    g = np.array([_random.geometric_words_one(s, t, rng) for _ in range(20_000)])
    assert chi2_geometric(g, s / t, 25) > P_MIN
    # t not a power of two: geometric_one, the same law
    g = np.array([_random.geometric_words_one(2, 5, rng) for _ in range(20_000)])
    assert chi2_geometric(g, 2 / 5, 25) > P_MIN


def test_float_decision_agrees_with_the_exact_one_word_by_word():
    # the margin's proof, checked: for words the floats decide, _x_exact (the trial
    # decided exactly on the same uniform) gives the same V or the same rejection; words
    # near the decision boundaries are included on purpose
    rng = _random.as_generator(17)
    a = 20
    t = 1 << a
    words = rng.integers(1 << 32, 1 << 63, size=300, dtype=np.int64).astype(np.uint64) * 2
    us = rng.integers(0, 1 << (a - 4), size=300)
    # words whose D lies 2^-21 off an integer (the margin is 2^-26):
    # U' = exp(-u/t - k/16) (1 +- 2^-25)
    for i in range(0, 300, 3):
        k = int(rng.integers(0, 40))
        target = math.exp(-int(us[i]) / t - k / 16) * 2.0 ** 64 * (1 + 2.0 ** -25
                                                                  * (1 if i % 2 else -1))
        words[i] = np.uint64(min(int(target), (1 << 64) - 1))
    checked = 0
    for w, u in zip(words.tolist(), us.tolist()):
        d = _random._SIXTEEN_LN2_64 - 16.0 * math.log(w) - u * math.ldexp(1.0, 4 - a)
        low = math.floor(d - _random._WORDS_MARGIN)
        if low != math.floor(d + _random._WORDS_MARGIN):
            continue
        exact = _random._x_exact(w, u, t, 0, _random.as_generator(0))
        assert (exact is None and low < 0) or exact == low
        checked += 1
    assert checked >= 290


def test_undecided_words_are_rare():
    # the exact continuation runs for about 2^-24 of the trials: none in 200,000
    calls = []
    original = _random._x_exact

    def counting(*args):
        calls.append(args)
        return original(*args)

    try:
        _random._x_exact = counting
        _random.geometric_words(1 << 58, 1 << 30, 200_000, _random.as_generator(18))
    finally:
        _random._x_exact = original
    assert len(calls) <= 2


def test_few_draws_of_one_rate_and_large_t_take_discrete_laplace():
    # up to four draws of one rate, and t beyond 2^62: dppack._random.discrete_laplace
    # itself (the same draws for the same generator state)
    for t, s, size in ((1 << 58, 12345, 3), (1 << 70, 1 << 50, 40)):
        a = _random.discrete_laplace_words(t, s, size, _random.as_generator(19))
        b = _random.discrete_laplace(t, s, size, _random.as_generator(19))
        assert np.array_equal(a, b)


def test_accumulate_rows_narrow_and_wide():
    rng = np.random.default_rng(0)
    for columns in (3, 64, 65, 500):
        steps = rng.integers(-9, 9, size=(5, columns))
        expected = np.cumsum(steps, axis=0)
        assert np.array_equal(_random.accumulate_rows(steps.copy()), expected)


class _ScriptedGenerator:
    """A generator whose next 64-bit words are given (then a real generator's): a word of 0
    (probability 2^-64) forced where the tests need it. dppack._exact.words reads it
    through ``integers`` (its bit generator is not a 64-bit raw one)."""

    def __init__(self, first):
        self.bit_generator = object()
        self._first = list(first)
        self._rng = np.random.default_rng(20)

    def integers(self, low, high, size=None, dtype=np.int64):
        words = self._rng.integers(low, high, size=size, dtype=dtype)
        n = words.size if size is not None else 1
        take = self._first[:n]
        del self._first[:n]
        if size is None:
            return dtype(take[0]) if take else words
        words[:len(take)] = take
        return words


def test_a_zero_word_is_decided_exactly_without_warnings():
    # the second word of the first trial is 0: no log(0) (a warning, or an error for the
    # scalar), the exact continuation decides it
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = _random.geometric_words_one(3, 1 << 10, _ScriptedGenerator([12345, 0]))
        assert g >= 0
        size = 4
        count = int(size * 1.05) + 8
        words = [7] * count + [0] * count  # every trial's second word is 0
        g = _random.geometric_words(1 << 10, 3, size, _ScriptedGenerator(words))
        assert g.shape == (size,) and (g >= 0).all()
