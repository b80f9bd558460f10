"""The online step by sides (noise_reduction._step_noise: one word for the side, one
geometric X for the value): the construction's pmf equals the lazy walk's, computed from the
exact threshold bounds; chi-square tests of the step against the exact conditional pmf for
dyadic rates (both tails, the middle, the stay; close and far levels), by arrays and entry by
entry (up to FEW values), on the fast paths and with every exact continuation forced
(FORCE_EXACT_PATH); the Python-integer branch against the array one; the three-piece
fallback where the plan does not apply.

False-failure rate: each chi-square test fails below p = 1e-4 (pooled to cells of expected
count >= 20; fixed seeds: deterministic; 1e-4 per assertion for a fresh seed); the other
checks are exact or deterministic.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _random
from dppack.accuracy_first import noise_reduction as nr
from lazy_walk_checks import reduce_pmf

P_MIN = 1e-4
RATES = [(Fraction(5, 16), Fraction(1, 2)), (Fraction(19, 1024), Fraction(20, 1024)),
         (Fraction(1, 2), Fraction(3))]


def construction_pmf(x, a1, a2, ys):
    """P(y | x) of the sides construction, from the bounds of tau_1 and tau_2 (floats of
    100-bit Fractions) and the geometric laws of X / s_A and X / s_delta."""
    (l1, _), (l2, _) = nr._side_bounds(a1, a2, 100)
    t1, t2 = float(l1), float(l2)
    n, d, A = abs(x), float(a2 - a1), float(a1 + a2)
    out = np.zeros(ys.size)
    for i, y in enumerate((ys if x >= 0 else -ys).tolist()):
        if y < 0:
            out[i] = t1 * -math.expm1(-A) * math.exp(-A * (-y - 1))
        elif y < n:
            out[i] = (1 - t1) * -math.expm1(-d) * math.exp(-d * y)
        elif y == n:
            out[i] = ((1 - t1) * -math.expm1(-d) * math.exp(-d * n)
                      + (t2 - t1) * math.exp(-d * (n + 1)))
        else:
            out[i] = (1 - t2) * math.exp(-d * (n + 1)) * -math.expm1(-A) * math.exp(
                -A * (y - n - 1))
    return out


@pytest.mark.parametrize("a1,a2", RATES)
def test_the_sides_construction_has_the_lazy_walk_law(a1, a2):
    ys = np.arange(-60, 90)
    for x in (0, 1, 7, -7, 40):
        assert np.allclose(construction_pmf(x, a1, a2, ys), reduce_pmf(x, float(a1),
                                                                        float(a2), ys),
                           rtol=1e-9, atol=1e-15)
    (l1, h1), (l2, h2) = nr._side_bounds(a1, a2, 100)
    assert 0 < l1 <= h1 < l2 <= h2 < 1 and h1 - l1 < Fraction(1, 1 << 90)


def chi2(draws, x, a1, a2):
    ys = np.arange(-400, 500)
    expected = reduce_pmf(x, float(a1), float(a2), ys) * draws.size
    keep = expected >= 20
    observed = np.array([np.count_nonzero(draws == y) for y in ys[keep]])
    return stats.chisquare(np.append(observed, draws.size - observed.sum()),
                           np.append(expected[keep], draws.size - expected[keep].sum())).pvalue


@pytest.mark.parametrize("a1,a2", RATES)
@pytest.mark.parametrize("force", [False, True])
def test_step_law_by_sides(a1, a2, force, monkeypatch):
    # each start x in its own vector (the array path, > FEW entries), against its pmf
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", force)
    assert nr._step_plan(a1, a2) is not None
    size = 1200 if force else 12_000
    rng = np.random.default_rng(7)
    for x in (0, 3, -7, 40):
        draws = nr._laplace_reduce_noise(np.full(size, x), a1, a2, rng)
        assert chi2(draws, x, a1, a2) > P_MIN
        # up to FEW entries: the same draws one entry at a time (_side_one)
        few = np.concatenate([nr._laplace_reduce_noise(np.full(10, x), a1, a2, rng)
                              for _ in range(size // 10)])
        assert chi2(few, x, a1, a2) > P_MIN


def test_step_mixed_starts_each_entry_its_own_law():
    # a shuffled vector of four starts: each entry against the pmf of its own start
    a1, a2 = RATES[0]
    starts = np.array([0, 3, -7, 40])
    x = np.random.default_rng(8).permutation(np.repeat(starts, 5000))
    y = nr._laplace_reduce_noise(x, a1, a2, np.random.default_rng(9))
    for value in starts:
        assert chi2(y[x == value], int(value), a1, a2) > P_MIN / len(starts)


def test_python_branch_equals_the_array_branch():
    # the same sides and X, through _step_python (X as objects) and the array assembly
    a1, a2 = RATES[0]
    choice, a, s_total, s_delta = nr._step_plan(a1, a2)
    rng = np.random.default_rng(10)
    n = np.abs(nr._laplace_reduce_noise(np.zeros(400, dtype=np.int64), Fraction(1, 32), a1,
                                        rng))
    side = _random.word_index(choice, n.size, rng)
    x = _random.geometric_unit_words(a, n.size, rng)
    scripted = iter([side, x.copy()])  # (the array branch works on X in place)

    class Fixed:
        word_index = staticmethod(lambda *args: next(scripted))
        geometric_unit_words = staticmethod(lambda *args: next(scripted))

    original = nr._random
    try:
        nr._random = Fixed
        array = nr._step_noise(n, a1, a2, rng)
    finally:
        nr._random = original
    python = nr._step_python(n, side, x.astype(object), s_total, s_delta)
    assert np.array_equal(array, python)
    assert set(np.unique(side).tolist()) == {0, 1, 2} and (array == n).any()


def test_plan_refused_without_a_power_of_two_denominator():
    # rates 0.3 and 0.5: the three-piece step (the same law; tested in
    # tests/python/random/test_noise_reduction_speed.py)
    assert nr._step_plan(Fraction(3, 10), Fraction(1, 2)) is None
    assert nr._step_plan(Fraction(1, 1 << 70), Fraction(1, 1 << 69)) is None
