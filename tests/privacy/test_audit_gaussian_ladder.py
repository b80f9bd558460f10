"""Audits of GaussianNoiseReduction on the one-word ladder (``_random.discrete_gaussian_ladder``,
every increment of the Brownian path drawn with one 64-bit word per trial, float decisions
with a rigorous margin and the exact continuation inside it): calls of 10 and 1,000 values
(one pass, and several rows of one pass), a five-level path (the benchmark's variances), and
the exact continuation alone (``_random.FORCE_EXACT_PATH``). The projections (each level's
value and grain, a weighted sum) and the neighbours (0 vs 1, a binade edge 0.1 vs 0.3, one
ulp) are those of test_audit_exact_noise_reduction.py, which expose floating-point leaks;
the two-level audits add events on the last mantissa bits of the released values.

Claim: the whole path costs one discrete Gaussian of its last variance (Canonne, Kamath and
Steinke 2020, Theorem 4), converted to (eps, delta) as the accountant converts it.

False-failure rate: alpha = 1e-3 per audit (auditor.py); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from dppack import _random
from dppack.accuracy_first import noise_reduction as nr
from auditor import assert_private, default_events, mantissa_events, quantile_grid
from test_audit_exact_noise_reduction import (GAUSSIAN_DELTA, GAUSSIAN_VARIANCES, PAIRS,
                                              _project, gaussian_claim)
from test_audit_noise_reduction_paths import gaussian_path, in_calls

FIVE_LEVELS = np.array([16.0, 8.0, 4.0, 2.0, 1.0])


def five_level_path(value, rng, n):
    path = dppack.GaussianNoiseReduction(np.full(n, value), FIVE_LEVELS, sensitivity=1.0,
                                         random_state=rng)
    return _project(path, 1.0 / FIVE_LEVELS)


def _bit_events(levels):
    # the last mantissa bit of each level's value, binades 2^-3 .. 2^3 (the values' range)
    return mantissa_events(columns=tuple(range(levels)), exponents=range(-3, 4))


@pytest.mark.parametrize("size", [10, 1000])
@pytest.mark.parametrize("d0,d1", PAIRS)
def test_gaussian_ladder_path(d0, d1, size):
    eps = gaussian_claim(GAUSSIAN_VARIANCES[-1], GAUSSIAN_DELTA)
    def events(pilot, labels):  # the default family (fixed from the pilot) and the last bits
        return default_events(pilot, labels, quantile_grid(20_000)) + _bit_events(2)
    assert_private(in_calls(gaussian_path, size), d0, d1, eps, GAUSSIAN_DELTA,
                   n_samples=20_000 if size == 10 else 40_000, batch=True, events=events)


@pytest.mark.parametrize("d0,d1", PAIRS[:2])
def test_gaussian_ladder_five_levels(d0, d1):
    eps = gaussian_claim(FIVE_LEVELS[-1], GAUSSIAN_DELTA)
    assert_private(in_calls(five_level_path, 1000), d0, d1, eps, GAUSSIAN_DELTA,
                   n_samples=40_000, batch=True)


def test_gaussian_ladder_exact_continuation(monkeypatch):
    # every trial decided by the exact rational bounds (slow: few draws)
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", True)
    eps = gaussian_claim(GAUSSIAN_VARIANCES[-1], GAUSSIAN_DELTA)
    assert_private(in_calls(gaussian_path, 500), 0.1, 0.3, eps, GAUSSIAN_DELTA,
                   n_samples=2000, batch=True, charged=False)


def _grid_residues(value, rng, n):
    # each level's release in units of the path's grid g = 2^k, mod 4: a leak at the scale
    # of single grid steps (e.g. increments of one parity), which neither the thresholds
    # nor the grain (clipped far below g) nor the last mantissa bits see
    path = dppack.GaussianNoiseReduction(np.full(n, value), GAUSSIAN_VARIANCES, sensitivity=1.0,
                                         random_state=rng)
    k = nr.gaussian_path_grid(GAUSSIAN_VARIANCES, 1.0, n)[0]
    units = np.rint(np.ldexp(np.asarray(path, dtype=np.float64), -k)).astype(np.int64)
    return np.mod(units, 4).reshape(len(GAUSSIAN_VARIANCES), -1).T


def test_gaussian_ladder_one_grid_step():
    # neighbours one grid step apart (0 vs g, g of calls of 1,000 values): V and V + 1
    k = nr.gaussian_path_grid(GAUSSIAN_VARIANCES, 1.0, 1000)[0]
    eps = gaussian_claim(GAUSSIAN_VARIANCES[-1], GAUSSIAN_DELTA)
    assert_private(in_calls(_grid_residues, 1000), 0.0, 2.0 ** k, eps, GAUSSIAN_DELTA,
                   n_samples=20_000, batch=True)
