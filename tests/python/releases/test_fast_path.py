"""The fast path for small calls (issue 29) changes no result.

``data/fast_path_expected.json`` was recorded by ``scripts/record-releases.py`` at commit
8cd0791 (the last before the fast path, after the counts' integer noise; its "commit"
field; a record at 0e4ef13 agreed on every case the counts did not change; the case
quantile_low_unbounded comes from 565eb91, the quantiles' add/remove sensitivity before the
fast path), under NumPy 1.26 (NumPy 2.4 records the
same file). Every case of ``fast_path_cases.py`` must give the same bits for the same integer
``random_state``, consume the same draws of a passed Generator, and raise the same errors and
warnings for bad input. Timing is not asserted here (benchmarks/ measures it).
"""

import json
import math
import pathlib

import numpy as np
import pytest
from scipy import stats as scistats

import dppack as d
from dppack import _random

import fast_path_cases

EXPECTED = json.loads(
    (pathlib.Path(__file__).parent / "data" / "fast_path_expected.json").read_text())
CASES = fast_path_cases.cases()


def test_expected_file_covers_the_cases():
    assert set(EXPECTED["cases"]) == set(CASES)
    assert EXPECTED["commit"].startswith("8cd0791")


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bits_for_the_same_random_state(name):
    actual = fast_path_cases.record_case(CASES[name])
    expected = EXPECTED["cases"][name]
    if name in fast_path_cases.SOLVER_CASES:
        assert fast_path_cases.close(expected, actual)
        assert actual["generator"]["state"] == expected["generator"]["state"]
    else:
        assert actual == expected


def test_errors_come_before_any_draw():
    # bad input leaves a passed Generator untouched (the checks precede the draw)
    for name in ("error_lap_eps", "error_lap_sens", "error_lap_nan", "error_mean_bounds",
                 "error_quantile_quant", "error_gauss_delta"):
        rng = np.random.default_rng(5)
        before = rng.bit_generator.state
        with pytest.raises(ValueError):
            CASES[name](rng)
        assert rng.bit_generator.state == before, name


def test_repeated_calls_keep_their_errors():
    # cached grid parameters: a bad call after good ones (and a good one after a bad one)
    # behaves as a first call
    for _ in range(3):
        assert np.isfinite(d.LaplaceMechanism(0, 1, 1, random_state=1))
        with pytest.raises(ValueError, match="eps must be a scalar > 0"):
            d.LaplaceMechanism(0, 0, 1, random_state=1)
        with pytest.raises(ValueError, match="Global sensitivities must be > 0."):
            d.LaplaceMechanism(0, 1, -1, random_state=1)
        with pytest.raises(TypeError, match="random_state must be None"):
            d.LaplaceMechanism(0, 1, 1, random_state=True)
    assert d.LaplaceMechanism(0, 1, 1, random_state=1) == float.fromhex(
        EXPECTED["cases"]["lap_scalar"]["1"]["value"])


def test_fresh_entropy_generator():
    # random_state=None: a PCG64 Generator with fresh state per call
    a, b = _random.as_generator(None), _random.as_generator(None)
    assert isinstance(a, np.random.Generator)
    assert isinstance(a.bit_generator, np.random.PCG64)
    assert a.bit_generator.state != b.bit_generator.state
    assert a.integers(0, 2**63) != b.integers(0, 2**63)


def test_fresh_entropy_law():
    # LaplaceMechanism(0, 1, 1) with random_state=None is Laplace(0, 1) on a 2^-20 grid:
    # KS test on 3000 calls at level 1e-4 (false failure rate 1e-4)
    draws = np.array([d.LaplaceMechanism(0, 1, 1) for _ in range(3000)])
    assert len(set(draws.tolist())) > 2900
    assert scistats.kstest(draws, scistats.laplace(0, 1).cdf).pvalue > 1e-4


def test_release_of_few_values_matches_the_array_path():
    # _release on <= 32 values takes Python floats; on more, numpy arrays: the same bits,
    # including ties, huge values (x / g overflows), signed zeros and exponents near +-1000
    rng = np.random.default_rng(3)
    specials = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e300, -1e300, 5e-324, 2.0**52 + 1,
                1e-310, 3.0, -7.75]
    for k in (-1000, -1074 + 80, -60, -20, -1, 0, 1, 20, 500, 1000):
        for _ in range(20):
            values = np.concatenate([rng.choice(specials, 12),
                                     rng.normal(0, 2.0 ** rng.integers(-30, 30), 30)])
            values = values * 2.0 ** rng.integers(-5, 5) if k < 900 else values
            wide = 2 ** min(53, 1020 - k)  # g z stays below the largest double
            noise = rng.integers(-wide + 1, wide, values.size)
            noise[:3] = (0, 1, -1)
            assert values.size > _random._FEW_VALUES
            whole = _random._release(values, noise, k)  # 42 values: the array path
            for start in range(0, values.size, 3):
                part = _random._release(values[start:start + 3], noise[start:start + 3], k)
                assert [v.hex() for v in part.tolist()] == \
                    [v.hex() for v in whole[start:start + 3].tolist()], (k, values)


def test_range_of_one_value_matches_the_block_scan():
    # data_range of a single value (no loop) gives what the block scan gives for two copies
    from dppack import _checks

    for value in (0.5, -3.0, 7.0, -0.0, np.inf, -np.inf, np.nan):
        for clip in (None, (0.0, 1.0), (-5.0, -1.0)):
            one = _checks.data_range(np.array([value]), True, clip)
            two = _checks.data_range(np.array([value, value]), True, clip)
            expected = two[:2] + (two[2] / 2,)
            assert [float(v).hex() for v in one] == [float(v).hex() for v in expected]
            assert [float(v).hex() for v in _checks.data_range(np.array([value]))] == \
                [float(v).hex() for v in two[:2]]


def test_bucket_sums_are_exact_on_both_paths():
    # _exact_selection._bucket_sums: one float64 bincount below a total of 2^53, 21-bit pieces above
    # (its contract: a total of at most 2^62)
    from dppack import _exact_selection

    rng = np.random.default_rng(11)
    for top in (2**20, 2**43, 2**53 // 1000, 2**53 // 999, 2**52, 2**62 // 1000):
        level = rng.integers(0, 66, 1000)
        measure = rng.integers(0, top, 1000, dtype=np.int64)
        expected = [0] * 66
        for c, m in zip(level.tolist(), measure.tolist()):
            expected[c] += m
        assert _exact_selection._bucket_sums(level, measure, 66) == expected


def test_norm_of_one_sensitivity():
    # GaussianMechanism's norm of a single sensitivity: sqrt(s * s) in Python floats gives
    # numpy's norm bit for bit, over the whole range of doubles (overflow to inf included)
    rng = np.random.default_rng(4)
    for e in range(-1074, 1024, 3):
        value = math.ldexp(rng.uniform(1.0, 2.0), e) if e > -1022 else math.ldexp(
            rng.uniform(0.0, 1.0), e)
        with np.errstate(over="ignore"):  # NumPy 2's dot warns where the square overflows
            assert math.sqrt(value * value).hex() == float(np.linalg.norm([value])).hex()


def test_scalar_uniform_is_numpys_integers():
    # _exact.py_uniform draws integers(0, m) of a PCG64 from its raw words for m > 2^32
    # (Lemire's method, as NumPy): the same values and the same generator state after,
    # including ranges where many words are rejected (m = 2^64 / 5 + 1: a fifth of them)
    from dppack import _exact

    sizes = [2**32 + 1, 2**33 + 5, 2**56, 2**56 * 3, 3 * 2**60 + 1, 2**62, 2**62 - 12345,
             2**61 + 1, 2**64 // 5 + 1] + [int(v) for v in np.random.default_rng(9).integers(2**32, 2**62, 12)]
    for m in sizes + [1, 2, 7, 2**32]:
        a, b = np.random.default_rng(m % 997), np.random.default_rng(m % 997)
        drawn = [_exact.py_uniform(a, m) for _ in range(400)]
        assert drawn == [int(b.integers(0, m)) for _ in range(400)], m
        assert a.bit_generator.state == b.bit_generator.state, m
    # other bit generators take integers() itself
    a = np.random.Generator(np.random.MT19937(1))
    b = np.random.Generator(np.random.MT19937(1))
    assert [_exact.py_uniform(a, 2**40) for _ in range(50)] == \
        [int(b.integers(0, 2**40)) for _ in range(50)]


def test_seeded_generator_is_default_rng():
    # as_generator(int) is default_rng(int): the same stream and the same spawned children
    for seed in (0, 1, 12345, 2**64 + 7, 3.0):
        a, b = _random.as_generator(seed), np.random.default_rng(int(seed))
        assert a.integers(0, 2**62, 5).tolist() == b.integers(0, 2**62, 5).tolist()
        assert [c.integers(0, 2**62) for c in a.spawn(2)] == \
            [c.integers(0, 2**62) for c in b.spawn(2)]
    assert len(_random.as_generator(None).spawn(3)) == 3
