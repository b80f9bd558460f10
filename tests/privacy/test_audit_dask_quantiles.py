"""Audits of quantileDP and medianDP on Dask data (issue 14; tests/privacy/README.md).

The release on Dask is a deterministic pass (the cell counts) followed by one exact draw of the
exponential mechanism on the driver. The audits run the whole public call on Dask arrays in
uneven chunks; the pass, a deterministic function of the data, is computed once per dataset
and reused for the other draws (``one_pass_per_dataset``: the checks, the candidates, the
charge and the draw still run on every call), so that 2 x 11 000 draws take seconds.

The neighbours make the mechanism's loss nearly eps: one record moves from the lower bound to
the upper bound (bounded) or is added (unbounded), so that the utility of a narrow interval
near the upper bound rises by 1 while that of the wide rest falls by 1; the event "release
above 0.99" then has a probability ratio of about e^0.99 at eps = 1. Power: the same audit
with the mechanism given twice its eps finds eps_lb > eps. Each audit's false-failure rate is
1e-3; the seeds are fixed.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit
from dppack import _random

da = pytest.importorskip("dask.array")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from dask_quantile_checks import reuse_the_pass  # noqa: E402  (tests/python)

D0 = da.from_array(np.array([0.0, 0.99, 0.99]), chunks=((1, 2),))
D1 = da.from_array(np.array([1.0, 0.99, 0.99]), chunks=((2, 1),))  # the record at 0 moved
ADDED = da.from_array(np.array([0.0, 0.99, 0.99, 0.99]), chunks=((3, 1),))  # one added


@pytest.fixture(autouse=True)
def one_pass_per_dataset(monkeypatch):
    """The real pass once per dataset (and bounds), its counts reused afterwards."""
    reuse_the_pass(monkeypatch)


def _release(function, *args, **kwargs):
    def release(data, rng):
        return function(data, *args, **kwargs, random_state=rng)
    return release


full = pytest.mark.audit_full

CASES = [
    pytest.param(dppack.quantileDP, (0.6, 1.0, 0.0, 1.0), {}, D0, D1, id="quantile-bounded"),
    pytest.param(dppack.quantileDP, (0.6, 1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"},
                 D0[1:], D0, id="quantile-unbounded"),
    pytest.param(dppack.medianDP, (1.0, 0.0, 1.0), {}, D0, D1, id="median-bounded",
                 marks=full),
    pytest.param(dppack.medianDP, (1.0, 0.0, 1.0), {"which_sensitivity": "unbounded"}, D0,
                 ADDED, id="median-unbounded-added-at-the-top", marks=full),
]


@pytest.mark.parametrize("function, args, kwargs, d0, d1", CASES)
def test_dask_quantile(function, args, kwargs, d0, d1):
    assert_private(_release(function, *args, **kwargs), d0, d1, 1.0, n_samples=10_000)


def test_power_dask_quantile(monkeypatch):
    """Twice the eps in the mechanism (its noise halved) is caught on the same neighbours."""
    original = _random.exponential_interval

    def doubled(utility, widths, eps, sensitivity, rng):
        return original(utility, widths, 2.0 * eps, sensitivity, rng)

    monkeypatch.setattr(_random, "exponential_interval", doubled)
    result = audit(_release(dppack.quantileDP, 0.6, 1.0, 0.0, 1.0), D0, D1, 1.0,
                   n_samples=10_000)
    assert not result.passed, str(result)
