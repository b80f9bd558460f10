"""R and Python give bit-identical LinearRegressionAdaSSP fits for the same seed.

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2 and the
same calls in Python with ``random_state=np.random.default_rng(seed)``; floats are compared
through ``float.hex`` (R only converts values and calls the core, so the bits are the same).
Cases: eps-DP with and without a bias, (eps, delta)-DP, a data.frame, and the predictions.
"""

import numpy as np
import pytest
from r_session import CLASSIFICATION_X, assert_same_bits, r_matrix, r_results_fixture
from r_session import r_vector, require_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261205

_X = np.array(CLASSIFICATION_X) * 0.9
_Y = 0.3 - 0.8 * _X[:, 0] + 0.5 * _X[:, 1] + 0.1 * np.sin(np.arange(_X.shape[0]))
_Y[-1] = 2.5  # outside the bounds [-2, 2]: clipped
_R_DATA = f"X <- {r_matrix(_X)}; y <- {r_vector(_Y)}; Xdf <- as.data.frame(X); "


def _r(expr):
    return "{" + _R_DATA + expr + "}"


def _fit(eps, delta, add_bias, rng):
    model = dppack.LinearRegressionAdaSSP(eps, delta).fit(_X, _Y, [1, 1, 2], [-1, -1, -2],
                                                          add_bias=add_bias, random_state=rng)
    return {"coeff": model.coeff, "ridge": model.ridge_,
            "pred": model.predict(_X, add_bias).reshape(-1, 1)}


def _r_fit(constructor, data, bias):
    return _r(f"m <- {constructor}; m$fit({data}, y, c(1, 1, 2), c(-1, -1, -2), {bias}); "
              f"list(coeff = m$coeff, ridge = m$ridge, pred = m$predict({data}, {bias}))")


CASES = {
    "adassp_pure_bias": (_r_fit("LinearRegressionAdaSSP$new(1)", "X", "TRUE"),
                         lambda rng: _fit(1.0, 0.0, True, rng)),
    "adassp_pure_no_bias": (_r_fit("LinearRegressionAdaSSP$new(0.5)", "X", "FALSE"),
                            lambda rng: _fit(0.5, 0.0, False, rng)),
    "adassp_gaussian_data_frame": (
        _r_fit("LinearRegressionAdaSSP$new(2, 1e-5)", "Xdf", "TRUE"),
        lambda rng: _fit(2.0, 1e-5, True, rng)),
}

r_results = r_results_fixture(CASES, SEED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    assert_same_bits(r_results[name], CASES[name][1](np.random.default_rng(SEED)))
