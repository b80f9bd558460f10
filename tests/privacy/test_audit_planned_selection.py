"""Audits of the planned exponential mechanism (issue 29; tests/privacy/README.md).

``_random.exponential_interval`` now draws through ``_random.planned_interval`` (levels of
the utilities computed once, ``dppack._exact_selection.select_planned``) when at most 1024
finite utilities, seen before, have a best candidate of positive width, and through the
general ``exponential_mechanism`` otherwise. Neighbours where one dataset takes each path expose a
difference between the two (both must be the same mechanism, draw for draw):

* the median of two records, tied on one dataset (the best interval, between them, has width
  0: general path) and apart on the other (planned path), bounded neighbours at eps = 1;
* the same on a public resolution (``quantileDP(..., resolution = 0.1)``: the runs of
  candidates, also planned), a record moved off its twin;
* the largest planned case against the first general one, under unbounded (add/remove)
  neighbours: 1023 records (1024 intervals, planned) against the same with one record
  added at the upper bound (1025 intervals, general) at eps = 0.05, where the window is
  every interval;

and a power check: twice the eps planted in the planned path alone is caught on the first
pair (10,000 draws). Each audit's false-failure rate is 1e-3 (the auditor's alpha); seeds
fixed. Cost: about 30,000 public calls, a few seconds.
"""

import numpy as np

import dppack
from auditor import assert_private, audit
from dppack import _random

EPS = 1.0
N_SAMPLES = 3_000


def _median(data, rng):
    return dppack.quantileDP(data, 0.5, EPS, 0.0, 1.0, random_state=rng)


def _median_on_resolution(data, rng):
    return dppack.quantileDP(data, 0.5, EPS, 0.0, 1.0, random_state=rng, resolution=0.1)


TIED = np.array([0.3, 0.3])
APART = np.array([0.3, 0.7])


def test_median_tied_against_apart():
    for _ in range(2):  # the neighbours take different paths (seen twice: planned if any)
        assert _random.planned_interval(
            -np.abs(np.arange(3) - 1.0), np.array([3, 0, 7], dtype=np.int64), EPS, 1.0,
            np.random.default_rng(0)) is None
    assert_private(_median, TIED, APART, EPS, n_samples=N_SAMPLES)


def test_median_on_a_resolution_tied_against_apart():
    assert_private(_median_on_resolution, np.array([0.3, 0.3]), np.array([0.3, 0.4]), EPS,
                   n_samples=N_SAMPLES)


def test_the_largest_planned_case_against_the_first_general_one():
    rng = np.random.default_rng(5)
    d0 = rng.uniform(0.0, 1.0, 1023)
    d1 = np.append(d0, 1.0)  # one record added: 1025 intervals

    def release(data, generator):
        return dppack.quantileDP(data, 0.3, 0.05, 0.0, 1.0, "unbounded", random_state=generator)

    assert d0.size + 1 == _random._PLANNED_MAX < d1.size + 1

    assert_private(release, d0, d1, 0.05, n_samples=N_SAMPLES)


def test_power_doubled_eps_in_the_planned_path(monkeypatch):
    """Twice the eps in the planned path alone (a too concentrated release) is caught."""
    original = _random.planned_interval

    def doubled(utility, widths, eps, sensitivity, rng):
        return original(utility, widths, 2.0 * eps, sensitivity, rng)

    monkeypatch.setattr(_random, "planned_interval", doubled)
    result = audit(_median, np.array([0.0, 0.99, 0.99]), np.array([1.0, 0.99, 0.99]), EPS,
                   n_samples=10_000)
    assert not result.passed, str(result)
