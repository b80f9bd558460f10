"""Audits of LinearRegressionDP's grid records and exact statistics (dppack.erm.kst,
dppack.erm._grid; tests/privacy/README.md).

The records are rounded onto the grid 2^-20 (y~ onto 2^(e - 20)) and X'X, X'y summed exactly;
the certificate has no rounding term. What could leak: (i) a record at a grid edge (a tie,
rounded half to even, against the value just past it) or at a binade edge moving the
certificate, the split or the grid, or a refusal on one neighbour only; (ii) a label at the
bound of y (the clipped grid units) against one inside; (iii) the low bits of the released
coefficients (mantissa events) when the records differ by less than a grid step or by one.
Neighbours replace one record (bounded DP). The CI subset audits the tie (500 outputs per
data set) and the structure of every pair; ``audit_full`` audits all pairs with 10^4
outputs. Each audit's false-failure rate is 1e-3 (the auditor's Bonferroni bound).
"""

import numpy as np
import pytest

from auditor import assert_private, default_events, mantissa_events, quantile_grid
from lrdp_cases import (CI, FULL, assert_certificate_is_data_independent, release, replace,
                        scaled_coefficients)

STEP = 2.0 ** -20

NEIGHBOURS = {
    # a tie (half a step: rounds to even, 0) against just past it (rounds to one step)
    "grid-tie": (replace([0.5 * STEP, 0.0], 0.0), replace([0.5 * STEP + 2.0 ** -60, 0.0], 0.0)),
    # one grid step apart, at the top of the range
    "grid-step": (replace([1.0, 1.0], 2.0), replace([1.0 - STEP, 1.0], 2.0)),
    # y at its bound (clipped units) against just inside; a binade edge of x
    "y-bound": (replace([1.0, 0.5], 2.0), replace([1.0 - 2.0 ** -53, 0.5], 2.0 - 2.0 ** -51)),
    "binade-0.1": (replace([0.1, 0.1], 0.1), replace([0.3, 0.3], 0.3)),
}


@pytest.mark.parametrize("case", sorted(NEIGHBOURS))
def test_certificate_grid_and_split_are_data_independent(case):
    assert_certificate_is_data_independent(*NEIGHBOURS[case])


def test_released_coefficients_are_on_the_release_grid():
    """Every released coefficient (scaled back) is a multiple of the release grid 2^k: the
    float release is a function of the integers alone, whatever the records' rounding."""
    for d in NEIGHBOURS["grid-tie"]:
        model = release()(d, np.random.default_rng(0))
        units = np.ldexp(scaled_coefficients(model), -model.release_grid_)
        assert np.allclose(units, np.rint(units), rtol=0, atol=1e-6)


@pytest.mark.parametrize("case, size", [
    pytest.param("grid-tie", CI, id="grid-tie-ci"),
    pytest.param("grid-tie", FULL, id="grid-tie-full", marks=pytest.mark.audit_full),
    pytest.param("y-bound", FULL, id="y-bound-full", marks=pytest.mark.audit_full)])
def test_grid_edges_are_private(case, size):
    d0, d1 = NEIGHBOURS[case]
    bits = mantissa_events(columns=[1], exponents=range(-4, 1), bits=1)

    def events(pilot, labels=None):  # the thresholds and the last bits of the slope
        return default_events(pilot, labels, quantile_grid(size["n_samples"])) + bits

    assert_private(release(), d0, d1, 1.0, 0.0, project=lambda model: model.coeff,
                   events=events, **size)


@pytest.mark.audit_full
def test_grid_step_is_private_gaussian():
    size = FULL
    d0, d1 = NEIGHBOURS["grid-step"]
    assert_private(release(delta=1e-3), d0, d1, 1.0, 1e-3,
                   project=lambda model: model.coeff, **size)
