"""Audits of the counts on the integer grid (issue 28, item 1; tests/privacy/README.md).

Every count is released as c + Z with integer noise Z on step 1 (discrete Laplace of
parameter eps / Delta, or the discrete Gaussian on the integers): no rounding, so the
neighbours that matter are those that move the counts by the full sensitivity, and the
events are the auditor's discrete ones (x == v and the thresholds between values).

* histogramDP, a record moved between two cells (bounded, l1 sensitivity 2) at eps 5, where
  the integer law is sharpest: Laplace, and the analytic Gaussian whose sigma is near 1
  (the smallest integer variances). The two cells' counts and their difference.
* tableDP, declared levels, bounded and unbounded, at eps 2.
* the noisy n of histogramDP's unbounded release with a rule (eps / 20), alone and through
  the whole release (16 vs 17 records: Sturges' rule gives 5 or 6 cells).
* tableDP, undeclared levels: the thresholded release, a record moved to a new category
  (bounded) or a new category added (unbounded), at (2, 1e-3).
* power: the integer law with half the noise (the sampler's eps doubled) is caught.

Batched audits (``batch=True``): one release of N disjoint copies of the neighbouring
cells, whose noises are independent and calibrated for the number of changed cells only
(never for the number of cells, ``mechanisms._noise.count_noise``), gives N independent draws of the
projection of the one-record release; one real, unbatched audit of each release checks the
path itself (the whole rule and thresholded releases' real calls are marked slow). Each
audit's false-failure rate is 1e-3 (fixed seeds).
"""

import numpy as np
import pandas as pd
import pytest

import dppack
from dppack.stats import _release
from auditor import assert_private, audit

EPS_SHARP = 5.0


# --------------------------------------------------------------------------------------------
# histogramDP: a record moved between two cells
# --------------------------------------------------------------------------------------------


def _pairs(moved_to, n):
    """n pairs of unit cells, 3 records in each cell plus one in cell 0 (d0) or 1 (d1) of
    every pair: the values, and the breaks 0, 1, ..., 2n."""
    base = np.repeat(np.arange(2 * n) + 0.5, 3)
    extra = 2 * np.arange(n) + moved_to + 0.5
    return np.concatenate([base, extra]), np.arange(2.0 * n + 1)


def _histogram_batch(eps, mechanism="Laplace", delta=0):
    def release(which_cell, rng, n):
        x, breaks = _pairs(which_cell, n)
        counts = dppack.histogramDP(x, eps, 0, 2 * n, breaks=breaks, mechanism=mechanism,
                                    delta=delta, allow_negative=True,
                                    random_state=rng).counts.reshape(n, 2)
        return np.c_[counts, counts[:, 0] - counts[:, 1]]
    return release


@pytest.mark.parametrize("mechanism, delta", [("Laplace", 0), ("analytic", 1e-5)])
def test_histogram_record_moved_between_cells_eps5(mechanism, delta):
    assert_private(_histogram_batch(EPS_SHARP, mechanism, delta), 0, 1, EPS_SHARP, delta,
                   n_samples=100_000, batch=True,
                   labels=["cell 0", "cell 1", "cell 0 - cell 1"])


def _histogram_one(eps):
    def release(x, rng):
        out = dppack.histogramDP(x, eps, 0, 2, breaks=[0, 1, 2], allow_negative=True,
                                 random_state=rng)
        return np.r_[out.counts, out.counts[0] - out.counts[1]]
    return release


def test_histogram_record_moved_real_calls():
    d0 = np.r_[np.full(3, 0.5), np.full(3, 1.5), 0.5]
    d1 = np.r_[np.full(3, 0.5), np.full(3, 1.5), 1.5]
    assert_private(_histogram_one(EPS_SHARP), d0, d1, EPS_SHARP, n_samples=1_000,
                   n_pilot=300)


def test_power_integer_law_with_half_the_noise(halve):
    """The sampler's eps doubled (the noise of sensitivity 1 for a bounded histogram) is
    caught at eps 2 on the moved record."""
    halve("laplace")
    result = audit(_histogram_batch(2.0), 0, 1, 2.0, n_samples=50_000, batch=True,
                   labels=["cell 0", "cell 1", "cell 0 - cell 1"])
    assert result.eps_lb > 2.0, str(result)


# --------------------------------------------------------------------------------------------
# tableDP, declared levels
# --------------------------------------------------------------------------------------------


def _table_batch(which, eps=2.0):
    def release(moved, rng, n):
        levels = [f"c{i:05d}" for i in range(2 * n)]
        codes = np.repeat(np.arange(2 * n), 2)
        if which == "bounded":
            extra = 2 * np.arange(n) + moved  # the record in cell 0 (d0) or 1 (d1)
        else:  # d1 adds the record to cell 0; d0 has none
            extra = 2 * np.arange(n) if moved else np.zeros(0, dtype=int)
        factor = pd.Categorical.from_codes(np.concatenate([codes, extra]), categories=levels)
        counts = dppack.tableDP(factor, eps=eps, which_sensitivity=which, allow_negative=True,
                                random_state=rng).to_numpy().reshape(n, 2)
        return np.c_[counts, counts[:, 0] - counts[:, 1]]
    return release


@pytest.mark.parametrize("which", ["bounded", "unbounded"])
def test_table_declared(which):
    assert_private(_table_batch(which), 0, 1, 2.0, n_samples=50_000, batch=True,
                   labels=["cell 0", "cell 1", "cell 0 - cell 1"])


# --------------------------------------------------------------------------------------------
# The noisy n of histogramDP's unbounded release with a rule
# --------------------------------------------------------------------------------------------


def _noisy_n_batch(eps_n):
    def release(n, rng, size):
        # the release's own draw of n (``stats._release.noisy_counts``, sensitivity 1), ``size``
        # independent copies in one call (the law does not depend on how many)
        return _release.noisy_counts(np.full(size, float(n)), eps_n, 1.0, "Laplace", 0, "aDP",
                                   rng, 1)
    return release


def test_unbounded_noisy_n():
    # eps / 20 of eps = 5, as histogramDP spends on n
    assert_private(_noisy_n_batch(EPS_SHARP / 20), 16, 17, EPS_SHARP / 20, n_samples=50_000,
                   batch=True, charged=False)


@pytest.mark.slow  # 8 s; the batched test_unbounded_noisy_n stays in the default run
def test_unbounded_histogram_rule_real_calls():
    """16 vs 17 records: Sturges gives 5 or 6 cells, so the released n moves the breaks."""
    def release(x, rng):
        out = dppack.histogramDP(x, EPS_SHARP, 0, 1, which_sensitivity="unbounded",
                                 allow_negative=True, random_state=rng)
        return np.r_[out.counts.size, out.counts[0]]

    d0 = np.full(16, 0.05)
    d1 = np.full(17, 0.05)
    assert_private(release, d0, d1, EPS_SHARP, n_samples=2_000, n_pilot=500,
                   labels=["cells", "first count"])


# --------------------------------------------------------------------------------------------
# tableDP, undeclared levels: the thresholded release
# --------------------------------------------------------------------------------------------


def _thresholded_batch(which, eps=2.0, delta=1e-3):
    """n blocks of an old category (count 20, well above the threshold) and a new one: the
    record moves to the new one (bounded) or is added in it (unbounded) in d1; the old
    count, the new count (0 when not shown) and whether the new category is shown."""
    def release(new, rng, n):
        old = np.repeat([f"a{i:05d}" for i in range(n)], 20)
        if new:
            added = np.array([f"b{i:05d}" for i in range(n)])
            x = (np.concatenate([old.reshape(n, 20)[:, 1:].ravel(), added])
                 if which == "bounded" else np.concatenate([old, added]))
        else:
            x = old
        out = dppack.tableDP(x, eps=eps, delta=delta, which_sensitivity=which,
                             random_state=rng)
        old_counts = out.reindex([f"a{i:05d}" for i in range(n)], fill_value=0.0).to_numpy()
        new_counts = out.reindex([f"b{i:05d}" for i in range(n)], fill_value=0.0).to_numpy()
        return np.c_[old_counts, new_counts, new_counts > 0]
    return release


@pytest.mark.parametrize("which", ["bounded", "unbounded"])
def test_thresholded_table(which):
    assert_private(_thresholded_batch(which), 0, 1, 2.0, 1e-3, n_samples=30_000, batch=True,
                   labels=["old", "new", "new shown"])


@pytest.mark.slow  # 5 s; the batched test_thresholded_table stays in the default run
def test_thresholded_table_real_calls():
    def release(x, rng):
        out = dppack.tableDP(x, eps=2.0, delta=1e-3, random_state=rng)
        return np.r_[out.get("a", 0.0), out.get("b", 0.0)]

    d0 = np.array(["a"] * 5)
    d1 = np.array(["a"] * 4 + ["b"])
    assert_private(release, d0, d1, 2.0, 1e-3, n_samples=2_000, n_pilot=500,
                   labels=["a", "b"])
