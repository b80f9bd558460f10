"""meanDP on Dask data, audited (issue 14): the release from the sufficient statistics of one
Dask pass is as private as it claims, on the in-memory worst-case neighbours (a record moved
across the range, bounded; a record added at the far bound, unbounded), and the audit has the
power to catch half the noise.

Each audit's false-failure rate is alpha = 1e-3 (tests/privacy/README.md); the seeds are
fixed, so every test here is deterministic. The data are Dask arrays of one-value and
two-value chunks, with the synchronous scheduler; a call still costs about 10 ms (the graph),
so the CI subset draws 2,000 releases per dataset, and the unbounded audit is in the full
sweep (``make audit``).
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _mean(which):
    def release(data, rng):
        with dask.config.set(scheduler="synchronous"):
            on_dask = da.from_array(data, chunks=2)
            return dppack.meanDP(on_dask, 1.0, 0.0, 1.0, which_sensitivity=which,
                                 random_state=rng)
    return release


def test_dask_mean_bounded():
    assert_private(_mean("bounded"), np.zeros(5), np.r_[np.zeros(4), 1.0], 1.0,
                   n_samples=2_000)


@pytest.mark.audit_full
def test_dask_mean_unbounded():
    # n = 2 -> 3, the added record at the far bound (as the in-memory audit)
    assert_private(_mean("unbounded"), np.ones(2), np.r_[1.0, 1.0, 0.0], 1.0,
                   n_samples=4_000)


def test_dask_mean_power(halve):
    halve("laplace")  # half the noise, through the same sampler as in memory
    result = audit(_mean("bounded"), np.zeros(5), np.r_[np.zeros(4), 1.0], 1.0,
                   n_samples=2_000)
    assert result.eps_lb > 1.0, str(result)
