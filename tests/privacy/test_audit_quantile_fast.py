"""Audits of quantileDP's small-call path (issue 29; tests/privacy/README.md).

For small data the window of ``stats._quantile_candidates`` holds every interval and the
candidates come from ``dppack._quantile_fast.all_intervals``; the draw is unchanged
(``_random.exponential_interval``, whose envelope sums and excesses ``dppack._exact_selection``
now computes in integers). Every draw here goes through the public call (checks, charge,
candidates, draw), on bounded (replace-one) neighbours that expose the worst case and the
grid's rounding:

* a record moved from the lower bound to the upper bound (quant 0.6, ties at 0.99): the
  narrow interval near the upper bound gains 1 in utility and the wide rest loses 1, so the
  event "release above 0.99" has a probability ratio of about e^0.99 at eps = 1 (the
  neighbours of ``test_audit_dask_quantiles.py``);
* a record clipped from far above to far below the bounds (1e300, beyond the scaled grid's
  range before clipping): the same change of ranks through the clipping;
* a record moved by less than half a grid step (g = 2^-58 on [0, 1]): the rounded data are
  equal, so the outputs must have the same law, to their last bits (``mantissa_events``);

and a power check: twice the eps planted in the mechanism is caught on the first pair (10,000
draws). Cost: about 40,000 public calls at 0.1-0.2 ms, under 10 s. Each audit's false-failure
rate is 1e-3 (the auditor's alpha); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit, mantissa_events
from dppack import _random

EPS = 1.0
N_SAMPLES = 3_000
D0 = np.array([0.0, 0.99, 0.99])
D1 = np.array([1.0, 0.99, 0.99])  # the record at 0 moved to the upper bound


def _release(quant):
    def release(data, rng):
        return dppack.quantileDP(data, quant, EPS, 0.0, 1.0, random_state=rng)

    return release


CASES = [
    pytest.param(0.6, D0, D1, None, id="q0.6-lower-bound-to-upper-bound"),
    pytest.param(0.5, np.array([0.2, 0.4, 1e300]), np.array([0.2, 0.4, -1e300]), None,
                 id="median-clipped-far-above-to-far-below"),
    pytest.param(0.25, np.array([2.0 ** -60, 0.5, 0.75]), np.array([2.0 ** -59, 0.5, 0.75]),
                 mantissa_events([0], range(-8, 0), 2), id="q0.25-below-half-a-grid-step"),
]


@pytest.mark.parametrize("quant, d0, d1, events", CASES)
def test_small_quantile(quant, d0, d1, events):
    assert_private(_release(quant), d0, d1, EPS, n_samples=N_SAMPLES, events=events)


def test_power_doubled_eps(monkeypatch):
    """Twice the eps in the mechanism (a too concentrated release) is caught."""
    original = _random.exponential_interval

    def doubled(utility, widths, eps, sensitivity, rng):
        return original(utility, widths, 2.0 * eps, sensitivity, rng)

    monkeypatch.setattr(_random, "exponential_interval", doubled)
    result = audit(_release(0.6), D0, D1, EPS, n_samples=10_000)
    assert not result.passed, str(result)
