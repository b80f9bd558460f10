"""R and Python give bit-identical joint quantiles and private bounds (issue 16).

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2 (one R
session for all), and the same call in Python with
``random_state=numpy.random.default_rng(seed)``: the same core, the same draws, the same
bits. Also: the accountant of an R analysis (bounds, then statistics) and an R error text.
"""

import numpy as np
import pytest
from r_session import assert_core_message, assert_same_bits, r_results_fixture, r_vector
from r_session import require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261124

_X = np.round(np.random.default_rng(6).lognormal(2.0, 1.0, 3000), 4)
_R_DATA = f"x <- {r_vector(_X)}; "
QUANTS = [0.1, 0.25, 0.5, 0.75, 0.9]


def _case(expr):
    return "{" + _R_DATA + expr + "}"


CASES = {
    "joint": (
        _case("quantilesDP(x, c(0.1, 0.25, 0.5, 0.75, 0.9), 1, 0, 100)"),
        lambda rng: dppack.quantilesDP(_X, QUANTS, 1, 0, 100, random_state=rng),
    ),
    "independent": (
        _case("quantilesDP(x, c(0.1, 0.25, 0.5, 0.75, 0.9), 1, 0, 100, "
              "method = 'independent')"),
        lambda rng: dppack.quantilesDP(_X, QUANTS, 1, 0, 100, method="independent",
                                       random_state=rng),
    ),
    "recursive_unbounded": (
        _case("quantilesDP(x, c(0.1, 0.25, 0.5, 0.75, 0.9), 1, 0, 100, "
              "method = 'recursive', which.sensitivity = 'unbounded')"),
        lambda rng: dppack.quantilesDP(_X, QUANTS, 1, 0, 100, method="recursive",
                                       which_sensitivity="unbounded", random_state=rng),
    ),
    "one_quantile": (
        _case("quantilesDP(x, 0.5, 2, 0, 100)"),
        lambda rng: dppack.quantilesDP(_X, [0.5], 2, 0, 100, random_state=rng),
    ),
    "bounds": (
        _case("unname(boundsDP(x, 1))"),
        lambda rng: np.array(dppack.boundsDP(_X, 1, random_state=rng)),
    ),
    "bounds_grid": (
        _case("unname(boundsDP(x, 2, quants = c(0.05, 0.95), grid = c(0, 1, 2, 5, 10, 20, "
              "50)))"),
        lambda rng: np.array(dppack.boundsDP(_X, 2, quants=(0.05, 0.95),
                                             grid=[0, 1, 2, 5, 10, 20, 50], random_state=rng)),
    ),
    # issue 28: a public resolution (whole-number and one-decimal data)
    "median_resolution": (
        _case("medianDP(round(x), 1, 0, 100, resolution = 1)"),
        lambda rng: dppack.medianDP(np.round(_X), 1, 0, 100, random_state=rng, resolution=1),
    ),
    "quantile_resolution_decimal": (
        _case("quantileDP(round(x, 1), 0.9, 2, 0, 100, resolution = 0.1)"),
        lambda rng: dppack.quantileDP(np.round(_X, 1), 0.9, 2, 0, 100, random_state=rng,
                                      resolution=0.1),
    ),
    "recursive_resolution": (
        _case("quantilesDP(round(x), c(0.1, 0.5, 0.9), 1, 0, 100, resolution = 1)"),
        lambda rng: dppack.quantilesDP(np.round(_X), [0.1, 0.5, 0.9], 1, 0, 100,
                                       random_state=rng, resolution=1),
    ),
    # the joint method on a resolution (its ties' random cuts drawn by the core)
    "joint_resolution": (
        _case("quantilesDP(round(x), c(0.25, 0.5, 0.75), 1, 0, 100, method = 'joint', "
              "resolution = 1)"),
        lambda rng: dppack.quantilesDP(np.round(_X), [0.25, 0.5, 0.75], 1, 0, 100,
                                       method="joint", random_state=rng, resolution=1),
    ),
    "joint_resolution_unbounded": (
        _case("quantilesDP(round(x, 1), c(0.1, 0.9), 2, 0, 100, method = 'joint', "
              "which.sensitivity = 'unbounded', resolution = 0.1)"),
        lambda rng: dppack.quantilesDP(np.round(_X, 1), [0.1, 0.9], 2, 0, 100,
                                       method="joint", which_sensitivity="unbounded",
                                       random_state=rng, resolution=0.1),
    ),
}

r_results = r_results_fixture(CASES, SEED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    assert_same_bits(r_results[name], CASES[name][1](np.random.default_rng(SEED)))


def test_r_analysis_through_one_accountant():
    code = _case(
        "acc <- BudgetAccountant$new(eps = 2); b <- boundsDP(x, 0.5, accountant = acc); "
        "m <- meanDP(x, 1, b[['lower']], b[['upper']], accountant = acc); "
        "q <- quantilesDP(x, c(0.25, 0.75), 0.5, b[['lower']], b[['upper']], accountant = acc); "
        "c(names(b) == c('lower', 'upper'), b[['lower']] < b[['upper']], "
        "length(q) == 2, acc$spent$eps == 2)")
    value = run_in_r({"analysis": code})["analysis"]
    assert "error" not in value, value
    assert value["values"] == [(1.0).hex()] * 5  # five TRUEs (as R numbers)


def test_r_error_texts_are_the_core_messages():
    bad = run_in_r({
        "order": _case("quantilesDP(x, c(0.5, 0.25), 1, 0, 100)"),
        "which": _case("quantilesDP(x, 0.5, 1, 0, 100, which.sensitivity = 'both')"),
        "resolution": _case("medianDP(x, 1, 0, 100, resolution = -1)"),
    })
    assert_core_message(bad["resolution"], lambda: dppack.medianDP(_X, 1, 0, 100,
                                                                  resolution=-1))
    assert "NULL" in bad["resolution"]["error"]
    assert_core_message(bad["order"], lambda: dppack.quantilesDP(_X, [0.5, 0.25], 1, 0, 100))
    assert_core_message(bad["which"], lambda: dppack.quantilesDP(
        _X, [0.5], 1, 0, 100, which_sensitivity="both"))
    assert "which.sensitivity" in bad["which"]["error"]
