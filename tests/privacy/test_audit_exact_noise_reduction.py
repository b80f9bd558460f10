"""Audits of the exact noise-reduction paths (tests/privacy/README.md), on neighbours and
projections that expose floating-point leaks.

An independent audit found the floating-point paths (continuous Laplace or Gaussian noise
added to the data in floating point) far from their claims: LaplaceNoiseReduction with
x = 0 vs 1 at levels (0.5, 1) (claimed eps 1), LaplaceNoiseReductionOnline reducing 0.5 -> 1
(claimed 1), GaussianNoiseReduction with variance 4 (claimed eps 2.42 at delta 1e-6, its
zCDP charge converted). The
leak is in the low-order bits: x + noise computed in floating point is a multiple of the
unit in the last place of x near x, which differs between x = 0 and x = 1 (or between binade
neighbours such as 0.1 and 0.3). Every audit here projects each released level to its value
and to its *grain*, the exponent of the lowest set bit of the double (clipped to a window of
at most 40 values, so that every value is an event of its own), and compares with the
claimed eps. The exact paths release g (round(x / g) + Z) on a data-independent grid, whose
grain is a function of the private integer only.

Each audit is vectorised: one call releases n independent entries of one value (the
sensitivity is that of each entry alone: the entries are independent paths); the grid then
depends on n (a data-independent choice), the privacy of each entry does not.

False-failure rate: alpha = 1e-3 per audit (auditor.py); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private

LAPLACE_LEVELS = np.array([0.5, 1.0])
GRAIN_WINDOW = (-70, -31)  # 40 values


def grain(y):
    """The exponent of the lowest set bit of each double of ``y`` (0 for y = 0), clipped to
    GRAIN_WINDOW."""
    y = np.asarray(y, dtype=np.float64)
    mantissa, exponent = np.frexp(y)
    m = np.abs(np.ldexp(mantissa, 53)).astype(np.int64)  # exact: |m| in [2^52, 2^53)
    low = m & -m
    tz = np.zeros(m.shape, dtype=np.int64)
    nonzero = low > 0
    tz[nonzero] = np.log2(low[nonzero].astype(np.float64)).astype(np.int64)  # exact powers
    out = exponent - 53 + tz
    out[~nonzero] = GRAIN_WINDOW[1]
    return np.clip(out, *GRAIN_WINDOW)


def _project(path, weights):
    """Columns: each level's value, each level's grain, and sum_t weights_t y_t."""
    path = np.asarray(path, dtype=np.float64).reshape(len(weights), -1).T  # (n, T)
    return np.column_stack([path, grain(path), path @ weights])


def laplace_path(value, rng, n):
    return _project(dppack.LaplaceNoiseReduction(np.full(n, value), LAPLACE_LEVELS, 1.0,
                                                 random_state=rng), LAPLACE_LEVELS)


def online_path(value, rng, n):
    online = dppack.LaplaceNoiseReductionOnline(np.full(n, value), LAPLACE_LEVELS[0], 1.0,
                                                random_state=rng)
    first = online.release.copy()
    second = online.reduce(LAPLACE_LEVELS[1])
    return _project(np.vstack([first, second]), LAPLACE_LEVELS)


GAUSSIAN_VARIANCES = np.array([16.0, 4.0])
GAUSSIAN_DELTA = 1e-6


def gaussian_path(value, rng, n):
    path = dppack.GaussianNoiseReduction(np.full(n, value), GAUSSIAN_VARIANCES, sensitivity=1.0,
                                         random_state=rng)
    return _project(path, 1.0 / GAUSSIAN_VARIANCES)


def gaussian_claim(variance, delta, sensitivity=1.0):
    """The eps the path claims at delta: its charge rho = Delta^2 / (2 s_T) zCDP (the
    discrete Gaussian mechanism, Canonne, Kamath and Steinke 2020, Theorem 4), converted as
    the accountant converts it (2.42 for variance 4 at delta 1e-6)."""
    rho = sensitivity ** 2 / (2.0 * variance)
    return dppack.accounting.PrivacyLoss.zcdp(rho).to_approx(delta).eps


PAIRS = [pytest.param(0.0, 1.0, id="0-vs-1"),
         pytest.param(0.1, 0.3, id="0.1-vs-0.3"),
         pytest.param(1.0, 1.0 + 2.0 ** -52, id="1-vs-1+ulp")]


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_exact(d0, d1):
    # the whole path (both levels) costs its last level, eps = 1
    assert_private(laplace_path, d0, d1, LAPLACE_LEVELS[-1], n_samples=100_000, batch=True)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_online_exact(d0, d1):
    # one object per draw would be slow: n entries in one object, reduced once (0.5 -> 1);
    # the online charge itself is checked in test_noise_reduction.py
    assert_private(online_path, d0, d1, LAPLACE_LEVELS[-1], n_samples=100_000, batch=True,
                   charged=False)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_gaussian_noise_reduction_exact(d0, d1):
    # the whole path costs one discrete Gaussian of variance 4: eps 2.42 at delta 1e-6
    eps = gaussian_claim(GAUSSIAN_VARIANCES[-1], GAUSSIAN_DELTA)
    assert_private(gaussian_path, d0, d1, eps, GAUSSIAN_DELTA, n_samples=100_000, batch=True)


def test_grain_projection():
    assert grain([1.0, 0.5, 3 * 2.0 ** -60, 0.0, 2.0 ** -80]).tolist() == [-31, -31, -60, -31,
                                                                            -70]
