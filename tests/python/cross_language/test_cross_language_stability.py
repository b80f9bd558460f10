"""Stability-based validation: R and Python give bit-identical output for the same inputs and
seed (R inside ``with_random_state(seed, ...)``, Python with
a NumPy Generator seeded with the same seed); floats compared through ``float.hex``."""

import numpy as np
import pytest
from r_session import assert_core_message, assert_same_bits, r_matrix, r_results_fixture, r_vector
from r_session import require_r

import dppack

require_r()
# the cases compare bits, not the choice: gamma = 0.5 makes the selection near uniform
pytestmark = [pytest.mark.r,
              pytest.mark.filterwarnings("ignore::dppack.NearUniformSelectionWarning")]

SEED = 20261122

# data written once and spelled as R literals (values rounded so the literals are exact)
_rng = np.random.default_rng(7)
_X = np.round(_rng.uniform(-1.2, 1.2, (150, 2)), 3)  # some values outside [-1, 1]: clipped
_Y = (_X[:, 0] - 0.5 * _X[:, 1] + np.round(_rng.normal(0, 0.4, 150), 3) > 0).astype(float)
_H = np.round(_rng.beta(2, 5, 400) * 10 - 1, 4)  # on [-1, 9], a few values clipped to [0, 8]


_R_DATA = f"X <- {r_matrix(_X)}; y <- {r_vector(_Y)}; x <- {r_vector(_H)}; "


def _tuned(model):
    return {"coeff": model.coeff, "gamma": model.gamma}


def _histogram(h):
    return {"breaks": h.breaks, "counts": h.counts, "mids": h.mids}


CASES = {
    "stable_logistic": (
        "{" + _R_DATA + "ms <- lapply(c(0.5, 5, 50), function(g) LogisticRegressionDP$new("
        "'l2', 1, g)); b <- tune_classification_model_stable(ms, X, y, c(1, 1), c(-1, -1), "
        "0.5); list(coeff = b$coeff, gamma = b$gamma)}",
        lambda rng: _tuned(dppack.tune_classification_model_stable(
            [dppack.LogisticRegressionDP("l2", 1, g) for g in (0.5, 5, 50)], _X, _Y,
            [1, 1], [-1, -1], 0.5, random_state=rng)),
    ),
    "stable_svm_options": (
        "{" + _R_DATA + "ms <- lapply(c(0.5, 5, 50), function(g) svmDP$new('l2', 2, g, "
        "'output')); b <- tune_classification_model_stable(ms, X[1:120, ], y[1:120], c(1, 1), "
        "c(-1, -1), 1, add.bias = TRUE, delta = 0.05, X.validation = X[121:150, ], "
        "y.validation = y[121:150], score = 'hinge', selector = 'gumbel', "
        "noise = 'independent'); list(coeff = b$coeff, gamma = b$gamma)}",
        lambda rng: _tuned(dppack.tune_classification_model_stable(
            [dppack.svmDP("l2", 2, g, "output") for g in (0.5, 5, 50)], _X[:120], _Y[:120],
            [1, 1], [-1, -1], 1, add_bias=True, delta=0.05, X_validation=_X[120:],
            y_validation=_Y[120:], score="hinge", selector="gumbel", noise="independent",
            random_state=rng)),
    ),
    "stable_histogram": (
        "{" + _R_DATA + "h <- tune_histogram_bin_width_stable(x, c(0.5, 0.25, 0.125), 1, 1, "
        "0, 8, validation.fraction = 0.25, selector = 'laplace'); "
        "list(breaks = h$breaks, counts = h$counts, mids = h$mids)}",
        lambda rng: _histogram(dppack.tune_histogram_bin_width_stable(
            _H, [0.5, 0.25, 0.125], 1, 1, 0, 8, validation_fraction=0.25, selector="laplace",
            random_state=rng)),
    ),
    "constants_linear": (
        "stability_constants_linear(0.001, 15216, 1902, 10, 10, 1, 0.01, 'hinge')",
        lambda rng: dppack.stability_constants_linear(0.001, 15216, 1902, 10, 10, 1, 0.01,
                                                      "hinge"),
    ),
    "constants_histogram": (
        "stability_constants_histogram(0.01, 10000, 2000, 5, 1, 0.01)",
        lambda rng: dppack.stability_constants_histogram(0.01, 10000, 2000, 5, 1, 0.01),
    ),
    "selection_privacy": (
        "selection_privacy('stability', 0.3, eps.select = 0.1, delta = 0.02)",
        lambda rng: dppack.selection_privacy("stability", 0.3, 0.1, 0.02),
    ),
    "advanced_composition": (
        "advanced_composition_eps(0.7, 12, 0.001)",
        lambda rng: dppack.advanced_composition_eps(0.7, 12, 0.001),
    ),
}


# every case's R expression, and one call that fails, in one R session
r_results = r_results_fixture(
    CASES, SEED, {"error": "tune_histogram_bin_width_stable(c(0.1, 0.2), 0.3, 1, 1)"})


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    assert_same_bits(r_results[name], CASES[name][1](np.random.default_rng(SEED)))


def test_r_error_is_the_core_message(r_results):
    assert_core_message(r_results["error"],
                        lambda: dppack.tune_histogram_bin_width_stable([0.1, 0.2], 0.3, 1, 1))
