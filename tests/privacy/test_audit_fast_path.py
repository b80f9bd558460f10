"""Audits of the small-call fast path (issue 29): the releases of a few values, seeded per
call from an integer (cached seed words) and released on Python floats (``_random._release``
for up to 32 values), on worst-case neighbours (values that differ by the sensitivity) and on
neighbours that expose rounding leaks (the last mantissa bits). Each audit's false-failure
rate is 1e-3 (tests/privacy/README.md); each integer seed is drawn from the audit's stream,
so the audits are deterministic."""

import numpy as np

import dppack
from auditor import assert_private, audit, mantissa_events

SEEDS = 2**40  # fresh integer seeds per call: the cached seed words must not repeat a stream


def _seed(rng):
    return int(rng.integers(SEEDS))


def test_laplace_scalar_integer_seeds():
    def release(value, rng):
        return dppack.LaplaceMechanism(value, 1.0, 1.0, random_state=_seed(rng))
    assert_private(release, 0.0, 1.0, 1.0, n_samples=10_000)


def test_laplace_few_values_sum():
    # three values (the Python-float release): the sum carries the loss of the whole vector
    sens = np.array([0.5, 1.0, 0.25])

    def release(values, rng):
        return dppack.LaplaceMechanism(values, 1.0, sens, random_state=rng)
    assert_private(release, np.zeros(3), sens, 1.0, n_samples=8_000,
                   project=lambda out: np.r_[out, np.sum(out)])


def test_laplace_scalar_last_bits():
    # a quarter ulp of 1 apart: a float leak in the release of one value would show in the
    # last one or two mantissa bits, binade by binade
    events = mantissa_events(exponents=range(-6, 5)) + mantissa_events(
        exponents=range(-6, 5), bits=2)

    def release(value, rng):
        return dppack.LaplaceMechanism(value, 1.0, 1.0, random_state=_seed(rng))
    result = audit(release, 0.0, 2.0**-54, 1.0, n_samples=4_000, events=events)
    assert result.passed, str(result)


def test_gaussian_scalar_integer_seeds():
    def release(value, rng):
        return dppack.GaussianMechanism(value, 0.9, 1e-5, 1.0, random_state=_seed(rng))
    assert_private(release, 0.0, 1.0, 0.9, 1e-5, n_samples=8_000)


def test_mean_integer_seeds():
    # meanDP on 20 values in [0, 1]: one value moves from 0 to 1 (bounded DP)
    d0 = np.r_[np.zeros(19), 0.0]
    d1 = np.r_[np.zeros(19), 1.0]

    def release(x, rng):
        return dppack.meanDP(x, 1.0, 0.0, 1.0, random_state=_seed(rng))
    assert_private(release, d0, d1, 1.0, n_samples=8_000)
