"""Audits of quantileDP, medianDP and quantilesDP on a public resolution (issue 28;
tests/privacy/README.md).

The release with ``resolution`` is the exponential mechanism over the candidates
lower + i * resolution with the utility -max(0, lt - quant n, quant n - le) (lt, le: the data
below and at or below a candidate). The neighbours are the worst cases found by enumerating
the exact law over small integer datasets on [0, 4], [0, 8] and [0, 12] (n <= 4, quant in
{0.25, 0.5, 0.75}; the loss of the auditor's threshold events): a tied value changed
(bounded: [0, 0, 0, 11] -> [0, 0, 11, 12] at quant 0.75: a tie shrunk, the next value
tied; its threshold events have probabilities above 0.15 and 0.02 and a loss of 1.7 at twice
the eps, which makes it the power case), a record added beside a tie (unbounded: [1, 1, 1, 1] + [12] at quant
0.75, loss 0.69 eps), ties on one decimal (0.1 and 0.3, the candidates computed as
multiples of 1 / 10, against data spelled as the user writes them, and the next double
above 0.3, off the grid), and an empty part of the recursive method ([] vs [4],
unbounded). Every output must be a candidate (a
deterministic check on all the draws). Power: the mechanism given twice its eps is caught
on the tied-value neighbours.

Cost: a batch makes one public call (checks, counting, runs, draw), then reuses the runs
of the data's counts (a deterministic function of the data, ``stats._quantile.Lattice.runs``) and
draws the mechanism again (``_random.exponential_interval``, the release's sampler), as the
Dask audits reuse their pass: about 8 s of CPU for the file (the wall time grows with the
load). The recursive method is audited through the public call, 400 draws in the default
run, 2 000 under ``slow``. Each audit's false-failure rate is 1e-3 (the auditor's alpha);
the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit
from dppack import _random
from dppack.stats import _quantile

EPS = 1.0
N_SAMPLES = 3_000
POWER_SAMPLES = 5_000


def _batched(quant, lower, upper, resolution, which="bounded"):
    """release(data, rng, n): one public call, then n - 1 draws of its mechanism on the same
    counts; every output checked to be a candidate."""
    lattice = _quantile.check_resolution(resolution, lower, upper)
    candidates = lattice.points(np.arange(lattice.size))

    def release(data, rng, n):
        first = dppack.quantileDP(data, quant, EPS, lower, upper, which_sensitivity=which,
                                  random_state=rng, resolution=resolution)
        runs = lattice.runs(*_quantile.lattice_counts(np.asarray(data, np.float64), lattice),
                            quant)
        utilities, widths, starts = runs
        index = [int(starts[i]) + offset for i, offset in (
            _random.exponential_interval(utilities, widths, EPS,
                                         _quantile.quantile_sensitivity(quant, which), rng)
            for _ in range(n - 1))]
        out = np.concatenate([[first], lattice.points(np.array(index, dtype=np.int64))])
        assert np.isin(out, candidates).all()  # a grid leak would put an output elsewhere
        return out[:, None]

    return release


TIED = (np.array([0.0, 0.0, 0.0, 11.0]), np.array([0.0, 0.0, 11.0, 12.0]))
ADDED = (np.array([1.0, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0, 12.0]))
DECIMAL = (np.array([0.0, 0.0, 0.1, 0.1]), np.array([0.0, 0.1, 0.1, 0.4]))


@pytest.mark.parametrize("release, d0, d1", [
    pytest.param(_batched(0.75, 0.0, 12.0, 1.0), *TIED, id="tied-value-changed"),
    pytest.param(_batched(0.75, 0.0, 12.0, 1.0, "unbounded"), *ADDED,
                 id="added-beside-ties"),
    pytest.param(_batched(0.75, 0.0, 0.4, 0.1), *DECIMAL, id="decimal-ties"),
    pytest.param(_batched(0.3, 0.0, 0.4, 0.1), np.array([0.3, 0.3, 0.1]),
                 np.array([0.3, 0.3, 0.30000000000000004]), id="next-double-off-the-grid"),
])
def test_resolution_quantile(release, d0, d1):
    assert_private(release, d0, d1, EPS, n_samples=N_SAMPLES, batch=True, charged=False)


def test_charged_once():
    acc = dppack.BudgetAccountant(5.0)
    dppack.medianDP(TIED[0], EPS, 0.0, 4.0, resolution=1.0, accountant=acc, random_state=1)
    dppack.quantilesDP(TIED[0], [0.25, 0.75], EPS, 0.0, 4.0, resolution=1.0, accountant=acc,
                       random_state=1)
    assert float(acc.spent.eps) == 2.0


def _recursive_empty_part(n_samples):
    # [] vs [4] under unbounded: the root and the parts on either side of its release see
    # no data on one side; every output a candidate.
    def release(data, rng):
        out = dppack.quantilesDP(data, [0.5, 0.75], EPS, 0.0, 4.0,
                                 which_sensitivity="unbounded", random_state=rng,
                                 resolution=1.0)
        assert np.isin(out, [0.0, 1.0, 2.0, 3.0, 4.0]).all()
        return out

    assert_private(release, np.array([]), np.array([4.0]), EPS, n_samples=n_samples,
                   n_pilot=min(n_samples, 1000))


def test_recursive_empty_part():
    _recursive_empty_part(400)


@pytest.mark.slow
def test_recursive_empty_part_more_draws():
    _recursive_empty_part(2_000)


def test_power_doubled_eps(monkeypatch):
    """Twice the eps in the mechanism is caught on the tied-value neighbours."""
    original = _random.exponential_interval

    def doubled(utility, widths, eps, sensitivity, rng):
        return original(utility, widths, 2.0 * eps, sensitivity, rng)

    monkeypatch.setattr(_random, "exponential_interval", doubled)
    result = audit(_batched(0.75, 0.0, 12.0, 1.0), *TIED, EPS, n_samples=POWER_SAMPLES,
                   batch=True)
    assert not result.passed, str(result)
