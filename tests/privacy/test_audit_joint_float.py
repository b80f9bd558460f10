"""Audits of quantilesDP's joint method (JointExp) after its floating-point bound and on a
public resolution (issues 25 and 28; tests/privacy/README.md).

The release charges eps plus its float slack (``_joint_float.joint_float_slack``, below 1e-9 on
these data), audited at eps. Neighbours chosen to expose rounding and grid leaks:

* on a resolution (candidates lower + i r, ties placed at uniform cuts of their lattice
  point's refined candidates): a tied value changed ([0, 0, 0, 11] -> [0, 0, 11, 12] at
  quant 0.75: a tie shrunk, the next value tied, the case the resolution audits of
  quantileDP found worst), one record moved across a lattice point (1.9 -> 2.1, 2 a
  candidate holding a tie), a record added beside ties (unbounded); every output must be
  a candidate (a deterministic check on all draws);
* on the fine grid: a record at a binade edge (0.5 vs the double below it), a record at 0
  vs 2^-57 (three grid steps apart near 0) with ties.

Power: the mechanism with three times its eps (sensitivity divided by 3) is caught on the
tied-value neighbours at these draws (1 500; twice the eps is not, its loss there being
about 0.6 of the claimed eps: the ties' random cuts smooth the law).

Cost: a batch makes one public call (checks, the charge), then draws the release's
sampler on the same data: ``_joint.joint_exp`` on the resolution (its ties' cuts are
drawn anew each time), and on the fine grid the whole dynamic program built once and drawn
from (the release's own path: on so few records the windows cover the data). About 12 s of
CPU for the default run (under load: 15 s); the ``slow`` cases add 2 000-draw audits. Each audit's
false-failure rate is 1e-3 (the auditor's alpha); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit
from dppack.quantiles import _joint
from dppack.stats import _quantile as stats_quantile

EPS = 1.0


def _lattice_release(quants, lower, upper, resolution=1.0, which="bounded", factor=1.0):
    """release(data, rng, n) on a resolution: one public call, then n - 1 draws of
    ``_joint_exp`` at ``factor`` times the eps (1: the release); all outputs candidates."""
    lattice = stats_quantile.check_resolution(resolution, lower, upper)
    candidates = lattice.points(np.arange(lattice.size))
    q = np.asarray(quants, dtype=np.float64)
    sensitivity = _joint.joint_sensitivity(q, which)

    def release(data, rng, n):
        data = np.asarray(data, dtype=np.float64)
        first = dppack.quantilesDP(data, quants, EPS, lower, upper, method="joint",
                                   which_sensitivity=which, random_state=rng,
                                   resolution=resolution)
        rest = [_joint.joint_exp(np.clip(data, lower, upper), q, factor * EPS, lower,
                                     upper, rng, sensitivity=sensitivity,
                                     lattice=lattice)
                for _ in range(n - 1)]
        out = np.vstack([first] + rest) if rest else first[None, :]
        assert np.isin(out, candidates).all()  # a grid leak would put an output elsewhere
        return out

    return release


def _grid_release(quants, lower, upper):
    """release(data, rng, n) on the fine grid: one public call, then n - 1 draws from the
    whole dynamic program built once (the release's path when the windows cover the data,
    checked)."""
    q = np.asarray(quants, dtype=np.float64)

    def release(data, rng, n):
        data = np.asarray(data, dtype=np.float64)
        first = dppack.quantilesDP(data, quants, EPS, lower, upper, method="joint",
                                   random_state=rng)
        size, m = data.size, q.size
        beta = EPS / 4.0
        half = (m * np.log(size + 2.0) + _joint._MARGIN + 10.0) / beta + 2.0
        lo, hi = _joint._windows(q * size, half, size)
        assert int(np.sum(hi - lo + 1)) * 2 >= size + 1  # the whole DP is the release's
        order = _joint._Order(np.clip(data, lower, upper), lower, upper)
        order.prepare([0], [size + 1])
        d = np.diff(np.concatenate([[0.0], q, [1.0]])) * size
        whole = _joint._joint_dp(order, np.arange(size + 1), np.ones((m, size + 1), bool),
                                    d, beta)
        rest = [_joint._joint_outputs(order, whole.sample(rng)[0], rng)
                for _ in range(n - 1)]
        return np.vstack([first] + rest) if rest else first[None, :]

    return release


TIED = (np.array([0.0, 0.0, 0.0, 11.0]), np.array([0.0, 0.0, 11.0, 12.0]))
ACROSS = (np.array([1.0, 1.9, 2.0, 3.0]), np.array([1.0, 2.1, 2.0, 3.0]))
ADDED = (np.array([1.0, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0, 4.0]))
BINADE = (np.array([-0.25, 0.5, 0.75]), np.array([-0.25, np.nextafter(0.5, 0.0), 0.75]))
NEAR_ZERO = (np.array([0.0, 0.0, 0.5]), np.array([0.0, 2.0 ** -57, 0.5]))


def test_lattice_tied_value_changed():
    assert_private(_lattice_release([0.75], 0.0, 12.0), *TIED, EPS, n_samples=1_200,
                   n_pilot=200, batch=True)


def test_lattice_record_moved_across_a_point():
    assert_private(_lattice_release([0.25, 0.75], 0.0, 4.0), *ACROSS, EPS, n_samples=1_000,
                   n_pilot=200, batch=True)


def test_grid_binade_edge():
    assert_private(_grid_release([0.3, 0.7], -1.0, 1.0), *BINADE, EPS, n_samples=1_200,
                   n_pilot=300, batch=True)


@pytest.mark.slow
def test_lattice_added_beside_ties_unbounded():
    assert_private(_lattice_release([0.5, 0.75], 0.0, 4.0, which="unbounded"), *ADDED, EPS,
                   n_samples=2_000, n_pilot=400, batch=True)


@pytest.mark.slow
def test_grid_near_zero_with_ties():
    assert_private(_grid_release([0.25, 0.5], -1.0, 1.0), *NEAR_ZERO, EPS, n_samples=2_000,
                   n_pilot=400, batch=True)


def test_power_three_times_eps():
    """Three times the eps in the mechanism is caught on the tied-value neighbours."""
    result = audit(_lattice_release([0.75], 0.0, 12.0, factor=3.0), *TIED, EPS,
                   n_samples=1_500, n_pilot=300, batch=True)
    assert not result.passed, str(result)
