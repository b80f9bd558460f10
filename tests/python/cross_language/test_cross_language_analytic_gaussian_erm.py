"""R and Python give bit-identical ERM with the analytic Gaussian mechanism.

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2, and the
same calls made in Python with ``random_state=np.random.default_rng(seed)``. Floats are compared
through ``float.hex``: bit for bit. Every public class and option of analytic_gaussian_erm/models.py has a case.
"""

import numpy as np
import pytest
from r_session import CLASSIFICATION_X, CLASSIFICATION_Y, assert_core_message, assert_same_bits
from r_session import r_matrix, r_results_fixture, r_vector, require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261122

_X = np.array(CLASSIFICATION_X)  # two values outside [-1, 1]: the fits clip them
_Y = np.array(CLASSIFICATION_Y, dtype=float)
_R_DATA = f"X <- {r_matrix(_X)}; y <- {r_vector(_Y)}; "


def _case(constructor, add_bias=True):
    """R code fitting ``constructor`` and returning its coefficients, predictions and fields."""
    bias = "TRUE" if add_bias else "FALSE"
    return ("{" + _R_DATA + f"m <- {constructor}; m$fit(X, y, c(1, 1), c(-1, -1), {bias}); "
            f"list(coeff = m$coeff, raw = m$predict(X, {bias}, raw.value = TRUE), "
            f"labels = m$predict(X, {bias}), sigma = m$sigma)" + "}")


def _fitted(model, add_bias=True, rng=None):
    model.fit(_X, _Y, [1, 1], [-1, -1], add_bias, random_state=rng)
    return {"coeff": model.coeff, "raw": model.predict(_X, add_bias, raw_value=True),
            "labels": model.predict(_X, add_bias), "sigma": model.sigma_}


CASES = {
    "opera_logistic": (
        _case("OutputPerturbationAGM$new('logistic', 1, 1e-5, 2, iterations = 50)"),
        lambda rng: _fitted(dppack.OutputPerturbationAGM("logistic", 1, 1e-5, 2,
                                                         iterations=50), rng=rng),
    ),
    "opera_huber_tight_no_bias": (
        _case("OutputPerturbationAGM$new('huber', 3, 1e-6, 1, huber.h = 0.3, "
              "iterations = 40, step.size = 0.5, sensitivity.bound = 'tight')", False),
        lambda rng: _fitted(dppack.OutputPerturbationAGM(
            "huber", 3, 1e-6, 1, huber_h=0.3, iterations=40, step_size=0.5,
            sensitivity_bound="tight"), False, rng),
    ),
    "opera_classical_gamma0": (
        _case("OutputPerturbationAGM$new('logistic', 0.5, 1e-5, 0, radius = 2, "
              "analytic = FALSE)"),
        lambda rng: _fitted(dppack.OutputPerturbationAGM("logistic", 0.5, 1e-5, 0, radius=2,
                                                         analytic=False), rng=rng),
    ),
    "grpua_logistic": (
        _case("GradientPerturbationAGM$new('logistic', 1, 1e-5, 2)"),
        lambda rng: _fitted(dppack.GradientPerturbationAGM("logistic", 1, 1e-5, 2), rng=rng),
    ),
    "grpua_huber_options": (
        _case("GradientPerturbationAGM$new('huber', 2, 1e-4, 0, iterations = 5000, "
              "step.offset = 3, radius = 1.5, amplification = 'paper')"),
        lambda rng: _fitted(dppack.GradientPerturbationAGM(
            "huber", 2, 1e-4, 0, iterations=5000, step_offset=3, radius=1.5,
            amplification="paper"), rng=rng),
    ),
    "grpua_classical_two_fits_one_stream": (
        "{" + _R_DATA + "m <- GradientPerturbationAGM$new('logistic', 0.3, 1e-5, 1, "
        "analytic = FALSE); m$fit(X, y, c(1, 1), c(-1, -1)); a <- m$coeff; "
        "m$fit(X, y, c(1, 1), c(-1, -1)); c(a, m$coeff, m$eps.step, m$eps.total)}",
        lambda rng: (lambda m: np.concatenate([
            m.fit(_X, _Y, [1, 1], [-1, -1], random_state=rng).coeff.copy(),
            m.fit(_X, _Y, [1, 1], [-1, -1], random_state=rng).coeff,
            [m.eps_step_, m.eps_total_]]))(
            dppack.GradientPerturbationAGM("logistic", 0.3, 1e-5, 1, analytic=False)),
    ),
}


r_results = r_results_fixture(CASES, SEED)  # every case's R expression, in one R session


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    assert_same_bits(r_results[name], CASES[name][1](np.random.default_rng(SEED)))


def test_r_error_text_is_the_core_message():
    assert_core_message(
        run_in_r({"bad": "GradientPerturbationAGM$new('logistic', 1, 2, 1)"})["bad"],
        lambda: dppack.GradientPerturbationAGM("logistic", 1, 2, 1))
