"""Audits of the exact moment statistics (issue 25): meanDP, varDP, sdDP, covDP, pooledVarDP
and pooledCovDP compute their true value from the records' integers on a grid of the bounds
(``python/dppack/_exact_sums.py``) and round it onto the noise grid in integers.

The neighbours expose the float leaks the exact sums remove and the rounding the grid adds:

* timestamps near 1.7e9 with bounds 1e-4 wide, n = 1000 (the float sum of the old code had
  an error of about n ulp(1.7e9) / 1e-4 = 2.4 sensitivities there; here the grid step is
  2^-37 and one ulp of the data 2^11 grid steps);
* bounds whose width is just above a power of two, where Q g exceeds U - L the most
  (g = 2^-30, Q = 2^20 + 2 steps, Q g = U - L + 0.998 g: the sensitivity widened by the
  rounding), a record moved from L to U;
* a record added at the upper bound under 'unbounded' (the centred sums at their largest);
* in memory and on Dask (bit-identical, so one audit covers both);
* at eps = 1e6, deterministic: the mean's releases of the two neighbours overlap (before
  the fix every release of one was impossible on the other).

Statistical audits: ``auditor.audit`` with alpha = 1e-3 each (false-failure rate over the
choice of seed; fixed seeds, so deterministic), 1500 draws per dataset; the whole file runs
in about 6 s. The leaks of the old float sums themselves (bounds one ulp apart, where they
are measurable) are audited in ``test_audit_independent.py``.
"""

import numpy as np
import pytest

import dppack
from auditor import audit

N = 1500

TIME_L, TIME_U = 1.7e9, 1.7e9 + 1e-4
# width 2^-10 (1 + 2^-20): g = 2^-30, Q = 2^20 + 1 steps, Q g - (U - L) = 2^-30 (1 - 2^-20)
WIDE_L = 0.5 - 2.0 ** -31 - 2.0 ** -40  # L / g = 2^29 - 1/2 - 2^-10: rounds down
WIDE_U = 0.5 + 2.0 ** -10 + 2.0 ** -31 + 2.0 ** -40  # U / g rounds up: Q g = U - L + 0.998 g


def _near_1e9(n, moved):
    """n records at the lower bound of the 1e9 timestamps, ``moved`` of them at the upper."""
    return np.r_[np.full(moved, TIME_U), np.full(n - moved, TIME_L)]


def _cases():
    d0, d1 = _near_1e9(1000, 0), _near_1e9(1000, 1)
    w0 = np.full(6, WIDE_L)
    w1 = np.r_[WIDE_U, np.full(5, WIDE_L)]
    other = np.linspace(0.0, 1.0, 1000)
    return {
        "meanDP-1e9": (lambda d, rng: dppack.meanDP(d, 1.0, TIME_L, TIME_U, random_state=rng),
                       d0, d1, 1.0, 0.0),
        "meanDP-Gaussian-1e9": (lambda d, rng: dppack.meanDP(
            d, 0.9, TIME_L, TIME_U, mechanism="Gaussian", delta=1e-6, random_state=rng),
            d0, d1, 0.9, 1e-6),
        "meanDP-wide-step": (lambda d, rng: dppack.meanDP(d, 1.0, WIDE_L, WIDE_U,
                                                          random_state=rng), w0, w1, 1.0, 0.0),
        "varDP-1e9": (lambda d, rng: dppack.varDP(d, 1.0, TIME_L, TIME_U, random_state=rng),
                      _near_1e9(1000, 500), _near_1e9(1000, 499), 1.0, 0.0),
        "sdDP-wide-step": (lambda d, rng: dppack.sdDP(d, 1.0, WIDE_L, WIDE_U, random_state=rng),
                           np.r_[WIDE_U, WIDE_U, WIDE_L], np.r_[WIDE_U, WIDE_L, WIDE_L], 1.0,
                           0.0),
        "covDP-1e9": (lambda d, rng: dppack.covDP(d, other, 1.0, TIME_L, TIME_U, 0.0, 1.0,
                                                  random_state=rng), d0, d1, 1.0, 0.0),
        "pooledVarDP-1e9": (lambda d, rng: dppack.pooledVarDP(
            d[:500], d[500:], eps=1.0, lower_bound=TIME_L, upper_bound=TIME_U,
            random_state=rng), _near_1e9(1000, 250), _near_1e9(1000, 249), 1.0, 0.0),
        "pooledCovDP-1e9": (lambda d, rng: dppack.pooledCovDP(
            np.c_[d, other][:500], np.c_[d, other][500:], eps=1.0, lower_bound1=TIME_L,
            upper_bound1=TIME_U, lower_bound2=0.0, upper_bound2=1.0, random_state=rng),
            d0, d1, 1.0, 0.0),
        # a record added at the upper bound (the centred sums move by h, h^2)
        "meanDP-unbounded-1e9": (lambda d, rng: dppack.meanDP(
            d, 1.0, TIME_L, TIME_U, which_sensitivity="unbounded", random_state=rng),
            _near_1e9(999, 0), d1, 1.0, 0.0),
        "varDP-unbounded-wide-step": (lambda d, rng: dppack.varDP(
            d, 1.0, WIDE_L, WIDE_U, which_sensitivity="unbounded", random_state=rng),
            w0[1:], w1, 1.0, 0.0),
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_exact_moments_at_rounding_neighbours(name):
    release, d0, d1, eps, delta = _cases()[name]
    result = audit(release, d0, d1, eps, delta, n_samples=N)
    assert result.passed, str(result)


def test_dask_mean_at_rounding_neighbours():
    """On Dask (chunks of 5), the audited neighbours near 1e9 give the in-memory release bit
    for bit (the grid sums are integers, merged exactly), for 20 seeds each: the audits
    above cover Dask data too. Deterministic."""
    da = pytest.importorskip("dask.array")
    for data in (_near_1e9(16, 0), _near_1e9(16, 1)):
        for seed in range(20):
            memory = dppack.meanDP(data, 1.0, TIME_L, TIME_U, random_state=seed)
            assert dppack.meanDP(da.from_array(data, chunks=5), 1.0, TIME_L, TIME_U,
                                 random_state=seed) == memory


def test_huge_eps_mean_releases_overlap():
    """eps = 1e6 at bounds one ulp apart (1.75 - 2^-52, 1.75), one record moved: the noise is
    far below one ulp of the mean, and the releases (floats of exact noisy grid values,
    rounded to the doubles near 1.75) of the two neighbours share an output. Before the
    exact sums every release of one neighbour was impossible on the other (the float mean
    moved by a whole ulp, 10 sensitivities). Deterministic."""
    low, high = 1.75 - 2.0 ** -52, 1.75
    d0 = np.full(5, low)
    d1 = np.r_[high, np.full(4, low)]

    def outputs(data):
        return {dppack.meanDP(data, 1e6, low, high, random_state=seed) for seed in range(20)}

    assert outputs(d0) & outputs(d1)
