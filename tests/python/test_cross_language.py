"""R and Python give bit-identical output for the same inputs and seed.

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2, and the
same calls made in Python with ``random_state=numpy.random.default_rng(seed)``, shared by the
calls in the order R makes them. Floats are compared through ``float.hex``: bit for bit.
R indices are 1-based and Python's 0-based, so an R index is compared with Python's plus one.
"""

import numpy as np
import pytest
from r_session import require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261121


def _rng():
    return np.random.default_rng(SEED)


# name: (R expression, Python function of a fresh generator returning the expected values)
CASES = {
    "laplace_scalar": (
        "LaplaceMechanism(5, 1, 0.5)",
        lambda rng: dppack.LaplaceMechanism(5, 1, 0.5, random_state=rng),
    ),
    "laplace_vector": (
        "LaplaceMechanism(c(-5, 0, 10), 0.5, c(0.5, 1, 2))",
        lambda rng: dppack.LaplaceMechanism([-5, 0, 10], 0.5, [0.5, 1, 2], random_state=rng),
    ),
    "laplace_alloc": (
        "LaplaceMechanism(c(1, 2), 1, c(0.5, 1), alloc.proportions = c(1, 9))",
        lambda rng: dppack.LaplaceMechanism(
            [1, 2], 1, [0.5, 1], alloc_proportions=[1, 9], random_state=rng
        ),
    ),
    "laplace_matrix": (
        "LaplaceMechanism(matrix(c(1, 2, 3, 4, 5, 6), nrow = 2), 1, 1)",
        lambda rng: dppack.LaplaceMechanism(
            np.array([[1.0, 3, 5], [2, 4, 6]]), 1, 1, random_state=rng
        ),
    ),
    "gaussian_adp": (
        "GaussianMechanism(c(1, 2, 3), 0.5, 0.01, c(0.5, 1, 2))",
        lambda rng: dppack.GaussianMechanism([1, 2, 3], 0.5, 0.01, [0.5, 1, 2], random_state=rng),
    ),
    "gaussian_pdp_alloc": (
        "GaussianMechanism(c(1, 2), 0.5, 0.01, c(1, 3), type.DP = 'pDP', "
        "alloc.proportions = c(1, 9))",
        lambda rng: dppack.GaussianMechanism(
            [1, 2], 0.5, 0.01, [1, 3], type_DP="pDP", alloc_proportions=[1, 9], random_state=rng
        ),
    ),
    "gaussian_analytic": (
        "GaussianMechanism(7, 3, 1e-6, 2, analytic = TRUE)",
        lambda rng: dppack.GaussianMechanism(7, 3, 1e-6, 2, analytic=True, random_state=rng),
    ),
    "exponential_index": (
        "ExponentialMechanism(c(-5, -1, 0, 3, -6, -2), 0.1, 5, "
        "measure = c(0.5, 1, 2, 0.5, 5, 1))",
        lambda rng: 1
        + dppack.ExponentialMechanism(
            [-5, -1, 0, 3, -6, -2], 0.1, 5, measure=[0.5, 1, 2, 0.5, 5, 1], random_state=rng
        ),
    ),
    "exponential_candidates": (
        "ExponentialMechanism(c(1, 2, 3), 1, 1, candidates = c(10, 20, 30))",
        lambda rng: dppack.ExponentialMechanism(
            [1, 2, 3], 1, 1, candidates=[10.0, 20.0, 30.0], random_state=rng
        ),
    ),
    "calibrate": (
        "calibrateAnalyticGaussianMechanism(0.01, 1e-5, 1)",
        lambda rng: dppack.calibrateAnalyticGaussianMechanism(0.01, 1e-5, 1),
    ),
    "two_calls_one_stream": (
        "c(LaplaceMechanism(0, 1, 1), GaussianMechanism(0, 0.5, 0.01, 1))",
        lambda rng: [
            dppack.LaplaceMechanism(0, 1, 1, random_state=rng),
            dppack.GaussianMechanism(0, 0.5, 0.01, 1, random_state=rng),
        ],
    ),
}


@pytest.fixture(scope="module")
def r_results():
    """Every case's R expression, run in one R subprocess."""
    return run_in_r({name: f"with_random_state({SEED}, {expr})" for name, (expr, _) in CASES.items()})


def _hex(values, r_dim):
    array = np.asarray(values, dtype=np.float64)
    # R stores matrices column by column.
    flat = array.ravel(order="F") if r_dim is not None else array.ravel()
    return [float(v).hex() for v in flat]


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    result = r_results[name]
    assert "error" not in result, result.get("error")
    expected = CASES[name][1](_rng())
    if result["dim"] is not None:
        assert result["dim"] == list(np.shape(expected))
    assert result["values"] == _hex(expected, result["dim"])


def test_r_error_text_is_the_core_message():
    """An R user sees the core's ValueError text, without class prefix or traceback."""
    message = run_in_r({"bad_eps": "LaplaceMechanism(0, -1, 1)"})["bad_eps"]["error"]
    with pytest.raises(ValueError) as python_error:
        dppack.LaplaceMechanism(0, -1, 1)
    assert str(python_error.value) in message
    assert "ValueError" not in message and "Traceback" not in message
