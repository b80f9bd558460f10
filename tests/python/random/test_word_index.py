"""Exact choices among constant cumulative probabilities with one word each
(dppack._random.word_index, word_index_one) and the geometric X of the two-word trials alone
(dppack._random.geometric_unit_words): their laws (chi-square), the exact continuation
forced (FORCE_EXACT_PATH), a word equal to a threshold decided on the next word, and the
refused plans.

False-failure rate: each chi-square test fails below p = 1e-4 (fixed seeds: deterministic;
1e-4 per assertion for a fresh seed); the scripted-word checks are exact.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _random

P_MIN = 1e-4


def constant(value):
    return lambda bits: (value, value)


def fifths_plan():
    return _random.word_index_plan([constant(Fraction(1, 5)), constant(Fraction(7, 10))])


@pytest.mark.parametrize("force", [False, True])
def test_word_index_law(force, monkeypatch):
    # P(0) = 0.2, P(1) = 0.5, P(2) = 0.3, on the fast path and by the exact continuation
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
    size = 3000 if force else 60_000
    index = _random.word_index(fifths_plan(), size, np.random.default_rng(3))
    assert index.dtype == np.int64
    observed = np.bincount(index, minlength=3)
    assert stats.chisquare(observed, np.array([0.2, 0.5, 0.3]) * size).pvalue > P_MIN


class _Scripted:
    """A generator whose first 64-bit words are given (dppack._exact.words reads it through
    ``integers``: its bit generator is not a 64-bit raw one)."""

    def __init__(self, first):
        self.bit_generator = object()
        self._first = list(first)
        self._rng = np.random.default_rng(4)

    def integers(self, low, high, size=None, dtype=np.int64):
        words = self._rng.integers(low, high, size=size, dtype=dtype)
        n = words.size if size is not None else 1
        take, self._first = self._first[:n], self._first[n:]
        if size is None:
            return dtype(take[0]) if take else words
        words[:len(take)] = take
        return words


def test_a_word_equal_to_a_threshold_is_decided_on_the_next_word():
    # c = 1/3: L = floor(2^64 / 3) and 2^64 / 3 = L + 1/3, so U = (L + V) / 2^64 < 1/3 iff
    # V < 1/3 for the next word's uniform V
    third = (1 << 64) // 3
    plan = _random.word_index_plan([constant(Fraction(1, 3))])
    assert [int(v) for v in plan[0]] == [third, third + 1]
    cases = [(third, third - 5, 0), (third, third + 5, 1), (third - 1, None, 0),
             (third + 1, None, 1)]
    for first, second, expected in cases:
        words = [first] + ([second] if second is not None else [])
        assert _random.word_index(plan, 1, _Scripted(words)).tolist() == [expected]
        assert _random.word_index_one(plan, _Scripted(words)) == expected


@pytest.mark.parametrize("force", [False, True])
def test_word_index_one_law(force, monkeypatch):
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
    rng = np.random.default_rng(6)
    index = [_random.word_index_one(fifths_plan(), rng) for _ in range(6000)]
    assert stats.chisquare(np.bincount(index, minlength=3),
                           np.array([0.2, 0.5, 0.3]) * 6000).pvalue > P_MIN


def test_word_index_plans_refused_where_words_cannot_separate():
    tiny = Fraction(1, 1 << 70)
    assert _random.word_index_plan([constant(tiny)]) is None  # within 2^-64 of 0
    assert _random.word_index_plan([constant(1 - tiny)]) is None  # of 1
    assert _random.word_index_plan([constant(Fraction(1, 2)),
                                    constant(Fraction(1, 2) + tiny)]) is None  # one word
    # bounds that tighten with bits: the floor is found once they agree
    plan = _random.word_index_plan([lambda bits: (Fraction(1, 3) - Fraction(1, 1 << bits),
                                                  Fraction(1, 3) + Fraction(1, 1 << bits))])
    assert int(plan[0][0]) == (1 << 64) // 3


@pytest.mark.parametrize("force", [False, True])
def test_geometric_unit_words_law(force, monkeypatch):
    # X with P(X >= x) = exp(-x / 2^a): floor(X / s) is geometric of rate s / 2^a, for two
    # rates from one set of draws (the online step's use), on both paths
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
    a = 20
    size = 2000 if force else 40_000
    x = _random.geometric_unit_words(a, size, np.random.default_rng(5))
    assert x.dtype == np.int64 and x.shape == (size,) and x.min() >= 0
    for s, top in ((1 << 19, 20), (3 << 18, 15)):
        rate = s / (1 << a)
        g = np.minimum(x // s, top)
        expected = np.append(np.exp(-rate * np.arange(top)) * -math.expm1(-rate),
                             math.exp(-rate * top)) * size
        assert stats.chisquare(np.bincount(g, minlength=top + 1), expected).pvalue > P_MIN
