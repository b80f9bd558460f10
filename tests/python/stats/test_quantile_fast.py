"""quantileDP's small-call path (issue 29): the same releases, bit for bit, as before.

``dppack._quantile_fast.all_intervals`` builds the candidates when the window holds every
interval; ``dppack._exact_selection`` sums the envelope's levels by one int64 ``np.add.at``
and keeps the excess of a proposal in integers. None of this may change a draw: the releases
below were recorded with the code before these changes (same seeds), and the candidate arrays
are compared with the general path's.
"""

import numpy as np
import pytest

import dppack
from dppack import _exact_selection, _random
from dppack.stats import _quantile as stats_quantile

# Recorded before the fast path (quantileDP as hex floats, then the exponential mechanism's
# indices), by ``_releases()`` below.
EXPECTED = [
    "0x1.cd1b5c026c969p-11", "0x1.8012c8456d2b0p-4", "0x1.0e3d73f9c08b4p-3",
    "-0x1.a065e61116e0ep+0", "0x1.dae38064d5a06p+6", "-0x1.221b3b754a7ecp-7",
    "-0x1.caa08f7cd6137p-5", "-0x1.e44eaba67920ep+0", "0x1.282a0b1c408f1p+3",
    "0x1.5a50228cc4d88p+7", "-0x1.06d06cce819fbp-9", "-0x1.a06053e94d502p-4",
    "0x1.4102ff7d010f9p-2", "-0x1.65f3a899a2e11p+2", "0x1.d761647cb5b98p+6",
    "-0x1.a11ca98bd46c5p-10", "0x1.840ae6d194e7dp-4", "-0x1.32a38a2f0025cp-1",
    "0x1.754df12acef93p-1", "-0x1.59644e86798a4p+3", "-0x1.b689600b8d8dap-9",
    "-0x1.a39f39b80d997p-5", "0x1.e9da4208ce6cdp-1", "0x1.1004638e5a046p+1",
    "-0x1.4bdf2b84d6081p+7", "0x1.3cc0e68b5b69fp-6", "0x1.534a8ba83e721p-5",
    "0x1.feb0b17a952e7p-1", "-0x1.08283d5035839p+4", "-0x1.6e574a3227252p+5",
    "-0x1.e3326bc984fb3p-12", "-0x1.059e073cf61e7p-2", "0x1.7404aa3f5724ep-1",
    "-0x1.a11eea084e1adp+2", "-0x1.78ec30aa20eb0p+7", "0x1.f6bfcc0d3a5fdp-10",
    "-0x1.61c21e39f6a28p-4", "0x1.95c519c4cef9ep-3", "0x1.8961b039b097dp+2",
    "0x1.f53684f6a12b6p+1", "0x1.2ea8ab927e7e3p-8", "-0x1.feec30f82a049p-6",
    "-0x1.03712479c8d4dp+0", "-0x1.e2b45d082aa25p+2", "-0x1.5577a7a960dcep+5",
    "0x1.ff514ce34a3f6p-9", "0x1.b8417915f55bbp-4", "-0x1.24c5f857cd1e8p-8", 1, 16, 576, 2, 4,
    201, 2, 39, 343, 1, 3, 293,
]


def _quantile_cases():
    rng = np.random.default_rng(2026)
    for i in range(48):
        n = [1, 2, 5, 17, 100, 100, 333, 2000][i % 8]
        lo, hi = sorted(float(v) for v in rng.normal(0, 10.0 ** (i % 5 - 2), 2))
        x = rng.uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo), n)
        if i % 3 == 1:
            x = np.round(x, 1)  # ties
        if i % 6 == 2:
            x[: n // 2] = hi + 1e300  # clipped, huge
        quant = [0.0, 0.1, 0.5, 0.75, 1.0, 0.33][i % 6]
        eps = [0.05, 0.5, 1.0, 4.0][i % 4]
        which = "unbounded" if i % 5 == 3 else "bounded"
        yield x, quant, eps, lo, hi, which, i


def _releases():
    values = [float(dppack.quantileDP(x, quant, eps, lo, hi, which, random_state=seed)).hex()
              for x, quant, eps, lo, hi, which, seed in _quantile_cases()]
    # the exponential mechanism alone: measures of total above and below 2^53, -inf utilities
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        size = [3, 40, 700][seed % 3]
        utility = -np.abs(rng.normal(0, 20, size))
        if seed % 4 == 1:
            utility[::5] = -np.inf
        measure = rng.integers(0, 2 ** (60 if seed % 2 else 40) // size, size)
        measure[0] = max(measure[0], 1)
        values.append(int(_random.exponential_mechanism(
            utility, [0.3, 1.0, 2.5][seed % 3], 1.0, np.random.default_rng(seed),
            measure=measure)))
    return values


def test_releases_are_the_recorded_ones():
    assert _releases() == EXPECTED


class _General(stats_quantile._SortedRecords):
    """Records of another type: ``_quantile_candidates`` then takes its general path."""


@pytest.mark.parametrize("seed", range(4))
def test_every_interval_candidates_equal_the_general_paths(seed):
    rng = np.random.default_rng(seed)
    taken = 0
    for trial in range(150):
        n = int(rng.integers(1, 300))
        lo, hi = sorted(rng.normal(0, 10 ** rng.uniform(-5, 5), 2))
        x = rng.uniform(lo - (hi - lo) * 0.3, hi + (hi - lo) * 0.3, n)
        if trial % 4 == 1:
            x = np.round(x)
        elif trial % 4 == 2:
            x[: n // 2] = lo - 1e300
        elif trial % 4 == 3:
            x = np.full(n, (lo + hi) / 2)
        quant = float(rng.choice([0.0, 0.1, 0.5, 1.0, rng.uniform()]))
        eps = float(10 ** rng.uniform(-2, 1))
        j, first, last = stats_quantile._quantile_grid(lo, hi)
        fast = stats_quantile._quantile_candidates(x, quant, eps, j, first, last)
        general = stats_quantile._quantile_candidates(_General(x, j, first, last), quant, eps, j, first,
                                             last)
        for a, b in zip(fast[:3], general[:3]):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert list(fast[3]) == list(general[3])
        taken += not general[3] and general[0].size == n + 1
    assert taken > 100  # the fast path was exercised (most draws take every interval)


@pytest.mark.parametrize("size, bits", [(5, 62), (101, 61), (3000, 60), (64, 40)])
def test_bucket_sums_are_the_exact_integer_sums(size, bits):
    rng = np.random.default_rng(size)
    level = rng.integers(0, 66, size).astype(np.intp)
    measure = rng.integers(0, 2 ** bits // size, size).astype(np.int64)
    expected = [0] * 66
    for c, m in zip(level.tolist(), measure.tolist()):
        expected[c] += m
    assert _exact_selection._bucket_sums(level, measure, 66) == expected
    assert _exact_selection._bucket_sums(level, None, 66) == np.bincount(level, minlength=66).tolist()


@pytest.mark.parametrize("lower, upper", [(-1e300, 1e300), (0.0, 1e-310), (-5e-324, 5e-324),
                                          (-1.7e308, 1.7e308), (1e-300, 2e-300), (-3.0, -1.0)])
def test_every_interval_candidates_at_extreme_bounds(lower, upper):
    """Bounds near the double range's ends (grids beyond it, subnormals) and data that would
    overflow the scaled grid: the same arrays as the general path, without a warning."""
    rng = np.random.default_rng(7)
    j, first, last = stats_quantile._quantile_grid(lower, upper)
    for trial in range(30):
        n = int(rng.integers(0, 40))
        x = (rng.uniform(lower, upper, n) if np.isfinite(upper - lower)
             else rng.uniform(-1, 1, n) * 1e308)
        if n and trial % 3 == 0:
            x[0] = 1e308
        elif n and trial % 3 == 1:
            x[-1] = -1e308
        for quant in (0.0, 0.3, 1.0):
            with np.errstate(all="raise"):
                fast = stats_quantile._quantile_candidates(x, quant, 1.0, j, first, last)
            general = stats_quantile._quantile_candidates(_General(x, j, first, last), quant, 1.0, j,
                                                 first, last)
            for a, b in zip(fast[:3], general[:3]):
                assert a.dtype == b.dtype and np.array_equal(a, b)


class _Float(float):
    """A float subclass: not a plain float, so the general checks run."""


def _outcome(monkeypatch, arguments, plain):
    """quantileDP's release (as a hex float or -0.0 kept), warnings, error and the generator's
    next word, with the plain-argument shortcut as it is (``plain``) or switched off."""
    import warnings

    with monkeypatch.context() as patch:
        if not plain:
            patch.setattr(stats_quantile._quantile_fast, "plain_arguments", lambda *a: False)
        rng = np.random.default_rng(5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = dppack.quantileDP(*arguments, random_state=rng)
                result = (type(value).__name__, float(value).hex())
            except (ValueError, TypeError) as error:
                result = (type(error).__name__, str(error))
    return result, [str(w.message) for w in caught], int(rng.integers(0, 2 ** 62))


def _argument_cases():
    x = np.array([0.3, 1.7, 2.2, 5.0, -1.0, 9.0])
    readonly = x.copy()
    readonly.setflags(write=False)
    data = [x, x[::-1][::2], readonly, np.array([-0.0, 0.0, 1.0]), np.array([3.0]),
            np.array([0.3, np.nan]), np.array([0.3, np.inf]), x.astype(np.float32),
            np.array([1, 2, 2 ** 60]), x.tolist(), np.array(2.0), x.reshape(2, 3),
            np.array([]), np.array([True, False]), np.ma.array(x), np.array([1e308, -1e308])]
    for values in data:
        for which in ("bounded", "unbounded", "both"):
            yield values, 0.5, 1.0, 0.0, 10.0, which
    x = data[0]
    for quant in (0.0, 1.0, -0.0, np.float64(0.3), True, _Float(0.5), 1.5, float("nan")):
        yield x, quant, 1.0, 0.0, 10.0
    for eps in (np.float64(1.0), True, 1e300, 5e-324, 2, _Float(1.0), float("inf"), 0.0):
        yield x, 0.5, eps, 0.0, 10.0
    for lower, upper in ((5.0, 5.0), (10.0, 0.0), (-0.0, 0.0), (0, 10), (-1e308, 1e308),
                         (-np.inf, 1.0), (np.float64(0.0), 10.0), (_Float(0.0), 10.0)):
        yield x, 0.5, 1.0, lower, upper
    for which, mechanism in (("Bounded", "exponential"), (np.str_("bounded"), "exponential"),
                             ("bounded", "Exponential"), ("bounded", np.str_("exponential"))):
        yield x, 0.5, 1.0, 0.0, 10.0, which, mechanism


def test_plain_arguments_release_what_the_checks_release(monkeypatch):
    """The shortcut of plain arguments (``_quantile_fast.plain_arguments``) against the general
    checks, on inputs at their edges (NaN, inf, -0.0, NumPy scalars, bools, float
    subclasses, 0-d, non-contiguous, read-only, float32 and integer arrays, lists, masked
    arrays, equal or reversed bounds, quant 0 and 1, 'both'): the same release bit for bit,
    the same warnings and error text, the same generator state after the call. Each case
    runs three times, so that the planned selection serves the later calls."""
    shortcut = 0
    for arguments in _argument_cases():
        shortcut += stats_quantile._quantile_fast.plain_arguments(
            *(list(arguments) + ["bounded", "exponential"][len(arguments) - 5:]))
        for _ in range(3):
            assert _outcome(monkeypatch, arguments, True) == _outcome(
                monkeypatch, arguments, False), arguments
    assert shortcut >= 15  # the shortcut is taken in many of the cases


@pytest.mark.parametrize("eps", [5e-324, 1e-310, 1e-307])
def test_a_tiny_eps_releases_a_value(eps):
    """eps > 0 so small that the window's half-width (~100 / eps) overflows: the window is
    every interval, and the release a grid point in the bounds (it was an OverflowError, not
    even a ValueError), on the plain-argument path and the general one (a list)."""
    x = np.array([0.3, 1.7, 2.2, 5.0, -1.0, 9.0])
    for data in (x, x.tolist()):
        value = dppack.quantileDP(data, 0.5, eps, 0.0, 10.0, random_state=3)
        assert 0.0 <= value <= 10.0
    assert stats_quantile._half_window(6, eps) == 2.0 ** 62
    assert stats_quantile._half_window(6, 1.0) < 200.0
