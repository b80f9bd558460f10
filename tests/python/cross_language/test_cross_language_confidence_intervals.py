"""R and Python give bit-identical private confidence intervals for the same data and seed.

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2, and the
same call in Python with ``random_state=numpy.random.default_rng(seed)``. The R result is a
data.frame (estimate, lower, upper); its columns are compared with the Python result's
``coeff``, ``lower`` and ``upper`` through ``float.hex``: bit for bit.
"""

import numpy as np
import pytest
from r_session import assert_core_message, r_matrix, r_results_fixture, r_vector, require_r
from r_session import run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261121

_rng_data = np.random.default_rng(5)
_X = np.round(_rng_data.uniform(-1.2, 1.2, (120, 2)), 3)  # some values outside the bounds
_Y = (_X @ np.array([0.9, -0.6]) + _rng_data.logistic(size=120) > 0).astype(float)


_R_DATA = f"X <- {r_matrix(_X)}; y <- {r_vector(_Y)}; "


def _case(expr):
    return "{" + _R_DATA + expr + "}"


BOUNDS = ([1, 1], [-1, -1])

CASES = {
    "logistic_objective_dp": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 2, eps = 1, add.bias = TRUE, "
              "n.draws = 500)"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 2, eps=1, add_bias=True, n_draws=500,
                                      random_state=rng),
    ),
    "logistic_output_dp_level": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 3, eps = 2, "
              "perturbation.method = 'output', level = 0.9, n.draws = 300, "
              "budget.split = c(1, 1, 2))"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 3, eps=2, perturbation_method="output",
                                      level=0.9, n_draws=300, budget_split=[1, 1, 2],
                                      random_state=rng),
    ),
    "huber_output_zcdp_closed_form": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 3, rho = 0.5, loss = 'huber', "
              "huber.h = 1, perturbation.method = 'output', add.bias = TRUE)"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 3, rho=0.5, loss="huber", huber_h=1,
                                      perturbation_method="output", add_bias=True,
                                      random_state=rng),
    ),
    "huber_objective_zcdp_bound": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 5, rho = 0.3, loss = 'huber', "
              "sigma.bound = 'bound', eig.floor = 0.01, n.draws = 200)"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 5, rho=0.3, loss="huber",
                                      sigma_bound="bound", eig_floor=0.01, n_draws=200,
                                      random_state=rng),
    ),
    "logistic_objective_zcdp_split": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 4, rho = 0.4, "
              "budget.split = c(3, 2, 1), n.draws = 200)"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 4, rho=0.4, budget_split=[3, 2, 1],
                                      n_draws=200, random_state=rng),
    ),
    "huber_output_dp": (
        _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 3, eps = 1.5, loss = 'huber', "
              "perturbation.method = 'output', add.bias = TRUE, n.draws = 200)"),
        lambda rng: dppack.confintERM(_X, _Y, *BOUNDS, 3, eps=1.5, loss="huber",
                                      perturbation_method="output", add_bias=True,
                                      n_draws=200, random_state=rng),
    ),
    "confintDP_svm": (
        _case("confintDP(svmDP$new('l2', 1.5, 4, huber.h = 0.7), X, y, c(1, 1), c(-1, -1), "
              "add.bias = TRUE, n.draws = 300)"),
        lambda rng: dppack.confintDP(dppack.svmDP("l2", 1.5, 4, huber_h=0.7), _X, _Y, *BOUNDS,
                                     add_bias=True, n_draws=300, random_state=rng),
    ),
    "confint_method_logistic_rho": (
        _case("confint(LogisticRegressionDP$new('l2', 1, 2, 'output'), X = X, y = y, "
              "upper.bounds = c(1, 1), lower.bounds = c(-1, -1), rho = 0.4, n.draws = 300)"),
        lambda rng: dppack.confintDP(dppack.LogisticRegressionDP("l2", 1, 2, "output"), _X, _Y,
                                     *BOUNDS, rho=0.4, n_draws=300, random_state=rng),
    ),
}


r_results = r_results_fixture(CASES, SEED)  # every case's R expression, in one R session


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_intervals_agree_bit_for_bit(r_results, name):
    r_value = r_results[name]
    assert "error" not in r_value, r_value.get("error")
    expected = CASES[name][1](np.random.default_rng(SEED))
    columns = list(r_value["list"].values())
    assert len(columns) == 3
    for column, values in zip(columns, (expected.coeff, expected.lower, expected.upper)):
        assert column["values"] == [float(v).hex() for v in values]
    assert list(r_value["list"]) == list(expected.to_frame().columns)


def test_r_error_text_is_the_core_message():
    bad = _case("confintERM(X, y, c(1, 1), c(-1, -1), gamma = 2, eps = 1, rho = 1)")
    assert_core_message(run_in_r({"bad": bad})["bad"],
                        lambda: dppack.confintERM(_X, _Y, *BOUNDS, 2, eps=1, rho=1))
