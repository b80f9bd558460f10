"""Audits of the quantile releases under add/remove neighbours at the utility's add/remove
sensitivity max(q, 1 - q) (issue 28; ``stats._quantile.quantile_sensitivity``;
tests/privacy/README.md).

Adding a record moves quant n by quant and every count by 0 or 1, so a rank utility moves by
-quant or 1 - quant. The neighbours are the worst cases found by computing the exact law of
the release over small datasets (data from {0, 0.01, 0.5, 0.99, 1} in [0, 1] on the fine
grid, integers in [0, 8] on resolution 1; n <= 3, quant in {0.1, 0.25, 0.5, 0.75, 0.9}, one
record added anywhere; the loss of the auditor's threshold events), among the events of
probability at least 0.05:

* fine grid, quant 0.75: [0.5, 0.5, 0.5] + [1] (the intervals below the ties lose 0.75, the
  one above gains 0.75): {output < 0.5} has probability 0.12 and loss 0.81 eps;
* fine grid, median: [0.5, 0.5, 1] + [1]: loss 0.81 eps;
* resolution 1 on [0, 8], quant 0.75: [0, 0, 1] + [8], {output = 0}, loss 0.83 eps;
  median: [2, 7] + [8], loss 0.83 eps.

Every one of them loses about twice as much (1.6 to 1.7 eps) if the mechanism used half the
sensitivity: the power test plants max(q, 1 - q) / 2 in ``stats._quantile.quantile_sensitivity``
and the audit must fail (on the two quant-0.75 cases, fine grid and resolution). A quant
that is not dyadic (0.1, Delta = 0.9 rounded up) is covered by the exact law and the brute
force in ``tests/python/stats/test_quantile_sensitivity.py``: its worst events here have
probability below 0.02 and would need 10^5 draws. 'recursive' (each node at its rescaled
quantile's sensitivity) and 'joint' (2 (1 - min share)) are audited through their public
calls on the median cases.

Cost: a batch makes one public call (checks, charge, draw), then repeats the release's
draw on the same data (the candidates of ``stats._quantile.exact_quantile`` or the runs of a
resolution, with the sensitivity taken from ``stats._quantile.quantile_sensitivity`` at each call,
so a planted change
reaches every draw). About 8 s of CPU for the file. Each audit's false-failure rate is 1e-3
(the auditor's alpha); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit
from dppack import _random
from dppack.stats import _quantile

EPS = 1.0
N_SAMPLES = 3_000
POWER_SAMPLES = 6_000


def _fine(quant, lower=0.0, upper=1.0):
    """release(data, rng, n) of quantileDP(..., 'unbounded') on the fine grid: one public
    call, then n - 1 draws of its sampler at the release's sensitivity."""
    def release(data, rng, n):
        first = dppack.quantileDP(data, quant, EPS, lower, upper, "unbounded",
                                  random_state=rng)
        sensitivity = _quantile.quantile_sensitivity(quant, "unbounded")
        # the release's candidates (small n: every interval, no union), drawn again
        j, low, high = _quantile._quantile_grid(lower, upper)
        utilities, widths, starts, unions = _quantile._quantile_candidates(
            np.asarray(data, dtype=np.float64), quant, EPS / sensitivity, j, low, high)
        assert not unions
        points = [int(starts[i]) + offset for i, offset in (
            _random.exponential_interval(utilities, widths, EPS, sensitivity, rng)
            for _ in range(n - 1))]
        return np.ldexp(np.array([first / 2.0 ** j] + points, dtype=np.float64), j)[:, None]

    return release


def _lattice(quant, lower=0.0, upper=8.0, resolution=1.0):
    """As :func:`_fine` with a resolution: the draws reuse the runs of the data's counts."""
    lattice = _quantile.check_resolution(resolution, lower, upper)
    candidates = lattice.points(np.arange(lattice.size))

    def release(data, rng, n):
        first = dppack.quantileDP(data, quant, EPS, lower, upper, "unbounded",
                                  random_state=rng, resolution=resolution)
        utilities, widths, starts = lattice.runs(
            *_quantile.lattice_counts(np.asarray(data, np.float64), lattice), quant)
        sensitivity = _quantile.quantile_sensitivity(quant, "unbounded")
        index = [int(starts[i]) + offset for i, offset in (
            _random.exponential_interval(utilities, widths, EPS, sensitivity, rng)
            for _ in range(n - 1))]
        out = np.concatenate([[first], lattice.points(np.array(index, dtype=np.int64))])
        assert np.isin(out, candidates).all()
        return out[:, None]

    return release


HALF = np.full(3, 0.5)
CASES = [
    pytest.param(_fine(0.75), HALF, np.r_[HALF, 1.0], N_SAMPLES, id="fine-q0.75-added-top"),
    pytest.param(_fine(0.5), np.array([0.5, 0.5, 1.0]), np.array([0.5, 0.5, 1.0, 1.0]),
                 N_SAMPLES, id="fine-median-added-top"),
    pytest.param(_lattice(0.75), np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0, 8.0]),
                 N_SAMPLES, id="resolution-q0.75-added-top"),
    pytest.param(_lattice(0.5), np.array([2.0, 7.0]), np.array([2.0, 7.0, 8.0]), N_SAMPLES,
                 id="resolution-median-added-top"),
]


@pytest.mark.parametrize("release, d0, d1, n_samples", CASES)
def test_unbounded_quantile(release, d0, d1, n_samples):
    assert_private(release, d0, d1, EPS, n_samples=n_samples, batch=True, charged=False)


@pytest.mark.parametrize("release, d0, d1, n_samples", [CASES[0], CASES[2]])
def test_power_half_sensitivity(monkeypatch, release, d0, d1, n_samples):
    """max(q, 1 - q) / 2 planted as the sensitivity: every case catches it."""
    original = _quantile.quantile_sensitivity

    def halved(quant, which_sensitivity="bounded"):
        return original(quant, which_sensitivity) / 2.0

    monkeypatch.setattr(_quantile, "quantile_sensitivity", halved)
    result = audit(release, d0, d1, EPS, n_samples=POWER_SAMPLES, batch=True)
    assert not result.passed, str(result)


def test_public_call_uses_the_sensitivity(monkeypatch):
    """The public releases take their sensitivity from ``stats._quantile.quantile_sensitivity``
    (the batches above rely on it): a planted value reaches the mechanism."""
    seen = []
    original = _random.exponential_interval

    def spy(utility, widths, eps, sensitivity, rng):
        seen.append(sensitivity)
        return original(utility, widths, eps, sensitivity, rng)

    monkeypatch.setattr(_random, "exponential_interval", spy)
    for resolution in (None, 1.0):
        dppack.quantileDP(HALF, 0.1, EPS, 0.0, 1.0, "unbounded", random_state=1,
                          resolution=resolution)
        dppack.medianDP(HALF, EPS, 0.0, 1.0, "unbounded", random_state=1,
                        resolution=resolution)
        dppack.medianDP(HALF, EPS, 0.0, 1.0, "bounded", random_state=1,
                        resolution=resolution)
        with pytest.warns(UserWarning):
            dppack.medianDP(HALF, EPS, 0.0, 1.0, "both", random_state=1,
                            resolution=resolution)
    assert seen == [_quantile.quantile_sensitivity(0.1, "unbounded"), 0.5, 1.0, 1.0] * 2


def _method(method, n_samples):
    def release(data, rng):
        return dppack.quantilesDP(data, [0.5], EPS, 0.0, 1.0, method=method,
                                  which_sensitivity="unbounded", random_state=rng)

    assert_private(release, np.array([0.5, 0.5, 1.0]), np.array([0.5, 0.5, 1.0, 1.0]), EPS,
                   n_samples=n_samples, n_pilot=min(n_samples, 1000))


@pytest.mark.parametrize("method", ["recursive", "joint", "independent"])
def test_quantiles_methods_median(method):
    _method(method, 300)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["recursive", "joint", "independent"])
def test_quantiles_methods_median_more_draws(method):
    _method(method, 6_000)
