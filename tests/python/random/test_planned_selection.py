"""The exponential mechanism over intervals with its levels planned once per utilities
(issue 29: ``_random.planned_interval``, ``_exact_selection.plan_levels`` and
``select_planned``). Utilities are planned when seen a second time (the first sighting draws
nothing and leaves the draw to the general path), so the tests show them twice first.

The planned path must make the same draws as the general one
(``_random.exponential_mechanism``, then the uniform offset) and return the same index: the
releases recorded for a fixed ``random_state`` do not move. Checked on random cases (sizes,
utilities, widths with zeros and sums up to 2^60, eps, sensitivities, PCG64 and MT19937),
including the generator's state after the draw, and on the paths the planned loop leaves to
exact code: a uniform equal to its threshold's leading bits (forced here; probability 2^-160
otherwise) and an excess of a whole rate or more. Then the law itself, by chi-square tests
(fixed seeds, false-failure rate 1e-3 each): on the planned path, and where the planned path
declines (the best candidates have width 0) and the general one draws.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dppack import _exact, _exact_selection, _random
from dppack.stats import _quantile

ALPHA = 1e-3


def _warm(utility, widths, eps, sensitivity):
    """Show the utilities to the planned path twice (the first sighting only registers them;
    the second builds their plan, if any), drawing from a throwaway generator."""
    widths = np.asarray(widths).astype(np.int64)
    for _ in range(2):
        _random.planned_interval(utility, widths, eps, sensitivity, np.random.default_rng(99))


def _plan(utility, eps, sensitivity):
    return _random._PLANS.get((np.asarray(utility, dtype=np.float64).tobytes(), eps,
                               sensitivity) + _exact_selection.envelope())


def _general(utility, widths, eps, sensitivity, rng):
    """exponential_interval before the plan: the mechanism, then the offset."""
    widths = np.asarray(widths)
    k = _random.exponential_mechanism(utility, eps, sensitivity, rng,
                                      measure=widths.astype(np.int64))
    return k, _exact.py_uniform(rng, int(widths[k]))


def _cases():
    source = np.random.default_rng(29)
    for case in range(160):
        size = int(source.choice([1, 2, 3, 7, 40, 101, 333, 1024]))
        if case % 3 == 0:  # quantile utilities -|k - quant n|
            n = size - 1
            utility = _quantile.data_access.quantile_utility(n, float(source.uniform()), 0, size)
        else:
            utility = -np.abs(source.normal(0, [1.0, 30.0, 1e4][case % 3], size))
            if case % 7 == 1:
                utility = np.round(utility)  # many candidates on one level
        top = 2 ** int(source.choice([3, 20, 40, 60])) // size
        widths = source.integers(0, max(top, 1), size).astype(np.int64)
        if case % 4 == 1:
            widths[source.uniform(size=size) < 0.5] = 0
        widths[int(np.argmax(utility))] = max(int(widths[int(np.argmax(utility))]), 1)
        eps = float(source.choice([0.01, 0.3, 1.0, 4.0, 60.0]))
        sensitivity = float(source.choice([1.0, 0.5, 0.7, 3.0]))
        yield utility, widths, eps, sensitivity, case


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_the_same_draws_as_the_general_path(bit_generator):
    planned = 0
    for utility, widths, eps, sensitivity, seed in _cases():
        _warm(utility, widths, eps, sensitivity)
        a, b = (np.random.Generator(bit_generator(seed)) for _ in range(2))
        assert _random.exponential_interval(utility, widths, eps, sensitivity, a) == _general(
            utility, widths, eps, sensitivity, b), seed
        assert a.integers(0, 2 ** 62) == b.integers(0, 2 ** 62), seed  # same words used
        planned += _plan(utility, eps, sensitivity) is not None
    assert planned >= 150  # the cases do take the planned path


def test_declines_without_drawing_when_the_best_candidates_are_empty():
    utility = np.array([-1.0, 0.0, -2.0, 0.0])
    widths = np.array([5, 0, 7, 0], dtype=np.int64)
    _warm(utility, widths, 1.0, 1.0)
    assert _plan(utility, 1.0, 1.0) is not None
    a, b = np.random.default_rng(1), np.random.default_rng(1)
    assert _random.planned_interval(utility, widths, 1.0, 1.0, a) is None
    assert a.integers(0, 2 ** 62) == b.integers(0, 2 ** 62)  # nothing drawn
    assert _random.exponential_interval(utility, widths, 1.0, 1.0, a) == _general(
        utility, widths, 1.0, 1.0, b)


def test_declines_for_many_or_infinite_utilities():
    rng = np.random.default_rng(2)
    many = np.zeros(_random._PLANNED_MAX + 1)
    infinite = np.array([0.0, -np.inf])
    for _ in range(3):
        assert _random.planned_interval(many, np.ones(many.size, np.int64), 1.0, 1.0,
                                        rng) is None
        assert _random.planned_interval(infinite, np.ones(2, np.int64), 1.0, 1.0, rng) is None
    assert _plan(infinite, 1.0, 1.0) is None


def test_a_first_sighting_draws_nothing_and_the_plans_are_bounded():
    rng, reference = np.random.default_rng(3), np.random.default_rng(3)
    for i in range(3 * _random._PLANS_KEPT):
        utility = -np.abs(np.arange(5.0) - 2.0) - i  # new utilities each time
        widths = np.arange(1, 6, dtype=np.int64)
        assert _random.planned_interval(utility, widths, 1.0, 1.0, rng) is None
        _random.planned_interval(utility, widths, 1.0, 1.0, np.random.default_rng(0))
        assert len(_random._PLANS) <= _random._PLANS_KEPT
        assert len(_random._SEEN) <= _random._PLANS_KEPT
    assert rng.integers(0, 2 ** 62) == reference.integers(0, 2 ** 62)


def test_a_uniform_on_its_threshold_continues_exactly(monkeypatch):
    """Force the acceptance uniform of a level c >= 1 to equal floor(exp(-c) 2^160) in both
    paths (the same words are still drawn): py_below_exp then draws more bits of the same
    uniform in both, and the results agree."""
    upper = _exact_selection._bucket_upper(_exact_selection._BUCKETS,
                                           _exact_selection._BUCKET_BITS)
    forced = {}

    def on_threshold(value, m):
        if m in upper[1:]:
            c = upper.index(m)
            forced[c] = forced.get(c, 0) + 1
            return _exact.exp_floor(c, _exact_selection._BUCKET_BITS)
        return value

    general_uniform = _exact_selection.py_uniform
    planned_uniform = _exact_selection._big_uniform
    monkeypatch.setattr(_exact_selection, "py_uniform",
                        lambda rng, m: on_threshold(general_uniform(rng, m), m))
    monkeypatch.setattr(_exact_selection, "_big_uniform",
                        lambda words, m, count, cut: on_threshold(
                            planned_uniform(words, m, count, cut), m))
    continued = []
    below = _exact_selection.py_below_exp

    def spy(state, c, rng, m=0):
        result = below(state, c, rng, m)
        continued.append(state[1] > _exact_selection._BUCKET_BITS)
        return result

    monkeypatch.setattr(_exact_selection, "py_below_exp", spy)
    utility = -np.arange(6, dtype=np.float64)
    widths = np.array([1, 3, 5, 7, 9, 11], dtype=np.int64)
    _warm(utility, widths, 2.0, 1.0)
    forced.clear()
    continued.clear()
    for seed in range(40):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert _random.exponential_interval(utility, widths, 2.0, 1.0, a) == _general(
            utility, widths, 2.0, 1.0, b)
        assert a.integers(0, 2 ** 62) == b.integers(0, 2 ** 62)
    assert forced and continued and all(continued)


def test_an_excess_of_a_whole_rate_goes_to_the_integer_part():
    """Utilities far apart at a large eps land in the last level (64), where the excess
    gamma a - c can exceed 1: py_bernoulli_exp's integer part, the same draws."""
    utility = np.array([0.0, -40.0, -41.5, -200.0])
    widths = np.array([1, 2 ** 40, 2 ** 41, 2 ** 45], dtype=np.int64)
    _warm(utility, widths, 8.0, 1.0)
    assert _plan(utility, 8.0, 1.0) is not None
    for seed in range(200):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert _random.exponential_interval(utility, widths, 8.0, 1.0, a) == _general(
            utility, widths, 8.0, 1.0, b)


def _law(utility, widths, eps, sensitivity):
    """P(interval k): widths_k exp(eps u~_k / (2 Delta')), exactly as the mechanism's grid
    and rate give it (``_random.exponential_grid``)."""
    u = np.asarray(utility, dtype=np.float64)
    k, rate = _random.exponential_grid(float(np.max(np.abs(u))), eps, sensitivity)
    scaled = np.rint(np.ldexp(u, -k))
    weights = np.asarray(widths, dtype=np.float64) * np.exp(
        -float(rate) * (scaled.max() - scaled))
    return weights / weights.sum()


@pytest.mark.parametrize("utility, widths, planned", [
    ([-2.0, -1.0, -0.5, -1.5, 0.0, -3.0], [3, 1, 2, 4, 1, 6], True),
    ([-2.0, -1.0, -0.5, -1.5, 0.0, -3.0], [3, 1, 2, 4, 0, 6], False),  # best empty: general
])
def test_the_law_by_chi_square(utility, widths, planned):
    """20,000 draws at eps 2 against the exact law (false-failure rate 1e-3)."""
    utility, widths = np.array(utility), np.array(widths, dtype=np.int64)
    rng = np.random.default_rng(2029)
    _warm(utility, widths, 2.0, 1.0)
    check = np.random.default_rng(0)
    assert (_random.planned_interval(utility, widths, 2.0, 1.0, check) is not None) == planned
    calls = 20_000
    draws = [_random.exponential_interval(utility, widths, 2.0, 1.0, rng) for _ in range(calls)]
    assert all(0 <= offset < widths[k] for k, offset in draws)
    law = _law(utility, widths, 2.0, 1.0)
    counts = np.bincount([k for k, _ in draws], minlength=utility.size)
    keep = law > 0
    assert np.all(counts[~keep] == 0)
    assert stats.chisquare(counts[keep], law[keep] * calls).pvalue > ALPHA
    assert math.isclose(law.sum(), 1.0)


@pytest.mark.parametrize("buckets, bits", [(3, 6), (2, 62)])
def test_an_envelope_of_small_weights_is_not_planned(monkeypatch, buckets, bits):
    """The planned loop draws the envelope's uniforms in whole words, as ``py_uniform`` does
    above 2^62 only: with weights ceil(exp(-c) 2^bits) at or below 2^62 (an envelope the tests
    of the general path use) the utilities get no plan, and the draws stay the general ones."""
    monkeypatch.setattr(_exact_selection, "_BUCKETS", buckets)
    monkeypatch.setattr(_exact_selection, "_BUCKET_BITS", bits)
    utility = np.array([0.0, -0.7, -1.9, -2.6, -4.0, -5.5, -8.0])
    widths = np.arange(1, 8, dtype=np.int64)
    _warm(utility, widths, 2.0, 1.0)
    assert _plan(utility, 2.0, 1.0) is None
    for seed in range(30):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert _random.exponential_interval(utility, widths, 2.0, 1.0, a) == _general(
            utility, widths, 2.0, 1.0, b), seed
        assert a.integers(0, 2 ** 62) == b.integers(0, 2 ** 62), seed


@pytest.mark.filterwarnings("error")  # no overflow warning at eps 1e300 either
@pytest.mark.parametrize("scale", [1e-300, 2.0 ** 1000, 1e300, 1.7e308])
def test_huge_or_tiny_utilities_with_ties_draw_as_the_general_path(scale):
    """Utilities near the double range (the grid coarsened so that u / h stays finite) or
    far below 1, with ties among the best and empty candidates: the same draws and index."""
    source = np.random.default_rng(11)
    for size in (2, 9, 300):
        utility = -np.abs(source.uniform(0.0, 1.0, size)) * scale
        utility[source.uniform(size=size) < 0.3] = 0.0  # ties at the top
        widths = source.integers(0, 50, size).astype(np.int64)
        widths[source.uniform(size=size) < 0.3] = 0
        widths[0], utility[0] = 1, 0.0
        for eps in (1e-6, 1.0, 1e300):
            _warm(utility, widths, eps, 1.0)
            assert _plan(utility, eps, 1.0) is not None
            for seed in range(3):
                a, b = np.random.default_rng(seed), np.random.default_rng(seed)
                assert _random.exponential_interval(utility, widths, eps, 1.0, a) == _general(
                    utility, widths, eps, 1.0, b), (scale, size, eps, seed)
                assert a.integers(0, 2 ** 62) == b.integers(0, 2 ** 62)


@pytest.mark.filterwarnings("error")
def test_a_huge_eps_warns_on_no_path():
    """At eps near the double range gamma a overflows to inf, whose level is the last one (64),
    as for any large product: no NumPy overflow warning may reach the user, neither from the
    general path nor when a plan is built (else a quantileDP warned on its first two calls at
    (n, quant, eps) and not after)."""
    x = np.linspace(0.5, 9.5, 10)
    values = [_quantile.quantileDP(x, 0.5, 1e308, 0.0, 10.0, random_state=seed)
              for seed in range(4)]  # general, general and plan built, planned, planned
    assert all(0.0 <= value <= 10.0 for value in values)
    utility = np.array([0.0, -1.0, -1e300])
    assert _random.exponential_mechanism(utility, 1e300, 1.0, np.random.default_rng(1)) == 0
