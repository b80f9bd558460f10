"""Audits of LinearRegressionDP's exact solve (dppack.erm.kst, tests/privacy/README.md).

The exact solve certifies a residual and a radius fixed before the data are read; what could
leak is (i) a radius, grid or budget split that moves with the data, (ii) a refusal on one
neighbour only, (iii) a minimiser that jumps between the inside of the ball and its sphere.
The neighbours replace one record (bounded DP) so that the unperturbed minimiser leaves the
ball on one of them (large labels at the bounds), and values at binade edges (1 vs 1 + 2^-52,
0.1 vs 0.3, 0 vs 2^-60) for the scaling's rounding. The CI subset draws 500 outputs per
dataset; each audit's false-failure rate is 1e-3 (the auditor's Bonferroni bound).
"""

import pytest

import dppack
from auditor import assert_private
from lrdp_cases import (BOUNDS, CI, FULL, assert_certificate_is_data_independent, release,
                        replace, scaled_coefficients)


def sizes():
    return [pytest.param(CI, id="ci"),
            pytest.param(FULL, id="full", marks=pytest.mark.audit_full)]


NEIGHBOURS = {
    "sphere-vs-inside": (replace([1.0, 1.0], 2.0), replace([-1.0, 1.0], 2.0)),
    "binade-1": (replace([1.0, 0.5], 1.0), replace([1.0 + 2.0 ** -52, 0.5], 1.0)),
    "binade-0.1": (replace([0.1, 0.1], 0.1), replace([0.3, 0.3], 0.3)),
    "near-0": (replace([0.0, 0.0], 0.0), replace([2.0 ** -60, 0.0], 0.0)),
}


@pytest.mark.parametrize("case", sorted(NEIGHBOURS))
def test_certificate_grid_and_split_are_data_independent(case):
    assert_certificate_is_data_independent(*NEIGHBOURS[case])


def test_neighbours_put_the_minimiser_on_and_off_the_sphere():
    """The audited pair is the intended one: without noise (eps = Inf) the small gamma puts
    one neighbour's minimiser on the sphere ||theta||^2 = p and the other's inside."""
    norms = []
    for data in NEIGHBOURS["sphere-vs-inside"]:
        model = dppack.LinearRegressionDP("l2", float("inf"), 0.0, 0.01)
        model.fit(*data, *BOUNDS, add_bias=True)
        scaled = scaled_coefficients(model)
        norms.append(float(scaled @ scaled))
    assert norms[0] == pytest.approx(3.0, rel=1e-6) and norms[1] < 1.0


@pytest.mark.parametrize("size", sizes())
@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_sphere_vs_inside_is_private(delta, size):
    d0, d1 = NEIGHBOURS["sphere-vs-inside"]
    assert_private(release(delta=delta), d0, d1, 1.0, delta,
                   project=lambda model: model.coeff, **size)
