"""Audits of the noise-reduction paths by size (tests/privacy/README.md): the batch Laplace
path's medium sizes (every discrete Laplace draw in one call, signed geometric draws with
one-word exp coins), the Brownian path's row sampler (5 to 256 values: every increment in
one call of the block sampler) and the online step entry by entry (up to 16 values: the
step's constants computed once). The releases are drawn in calls of those sizes, so each
audit exercises that path; the projections (each level's value and grain, the exponent of
its lowest set bit, and a weighted sum) and the neighbours are those of
test_audit_exact_noise_reduction.py, which expose floating-point leaks.

False-failure rate: alpha = 1e-3 per audit (auditor.py); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private
from test_audit_exact_noise_reduction import (GAUSSIAN_DELTA, GAUSSIAN_VARIANCES,
                                              LAPLACE_LEVELS, PAIRS, _project,
                                              gaussian_claim)


def in_calls(release, size):
    """A batch release drawing ``n`` entries in calls of ``size`` values (the path of that
    size), stacked."""
    def run(value, rng, n):
        parts, left = [], n
        while left > 0:
            parts.append(release(value, rng, min(size, left) if left >= 7 else size)[:left])
            left -= parts[-1].shape[0]
        return np.vstack(parts)
    return run


def laplace_path(value, rng, n):
    return _project(dppack.LaplaceNoiseReduction(np.full(n, value), LAPLACE_LEVELS, 1.0,
                                                 random_state=rng), LAPLACE_LEVELS)


def online_path(value, rng, n):
    online = dppack.LaplaceNoiseReductionOnline(np.full(n, value), LAPLACE_LEVELS[0], 1.0,
                                                random_state=rng)
    first = online.release.copy()
    second = online.reduce(LAPLACE_LEVELS[1])
    return _project(np.vstack([first, second]), LAPLACE_LEVELS)


def gaussian_path(value, rng, n):
    path = dppack.GaussianNoiseReduction(np.full(n, value), GAUSSIAN_VARIANCES,
                                         sensitivity=1.0, random_state=rng)
    return _project(path, 1.0 / GAUSSIAN_VARIANCES)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_medium_path(d0, d1):
    # calls of 1,000 values: the medium batch path; the whole path costs eps = 1
    assert_private(in_calls(laplace_path, 1000), d0, d1, LAPLACE_LEVELS[-1],
                   n_samples=50_000, batch=True)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_online_few(d0, d1):
    # objects of 16 values: the online step entry by entry (0.5 -> 1)
    assert_private(in_calls(online_path, 16), d0, d1, LAPLACE_LEVELS[-1], n_samples=10_000,
                   batch=True, charged=False)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_gaussian_noise_reduction_rows_path(d0, d1):
    # calls of 200 values: every increment in one call of the block sampler
    eps = gaussian_claim(GAUSSIAN_VARIANCES[-1], GAUSSIAN_DELTA)
    assert_private(in_calls(gaussian_path, 200), d0, d1, eps, GAUSSIAN_DELTA,
                   n_samples=40_000, batch=True)
