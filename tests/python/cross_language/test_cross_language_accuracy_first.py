"""Accuracy-first ERM and noise reduction: R and Python give bit-identical output.

Each case is one R expression run inside ``with_random_state(seed, ...)`` (r_session, a
subprocess), and the same calls in Python with ``random_state=np.random.default_rng(seed)``.
Floats are compared through ``float.hex``. R's stop.index is 1-based, Python's 0-based.
"""

import numpy as np
import pytest
from r_session import assert_same_bits, r_matrix, r_results_fixture, r_vector, require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261122

# small fixed data, written to R as exact literals (r_vector)
_GEN = np.random.default_rng(4)
_X = np.round(_GEN.uniform(-2, 2, (80, 2)), 2)
_Y = np.round(_X @ [0.6, -0.4] + _GEN.normal(0, 0.4, 80), 2)
_L = (_Y > 0).astype(float)
_UB, _LB = [1.5, 1.5, 2.0], [-1.5, -1.0, -2.0]

_R_DATA = (f"X <- {r_matrix(_X)}; y <- {r_vector(_Y)}; "
           f"l <- {r_vector(_L)}; ub <- {r_vector(_UB)}; lb <- {r_vector(_LB)}; ")


def _summary_r(call):
    return "{" + _R_DATA + f"r <- {call}; c(r$coeff, r$eps, r$eps.level, r$eps.test, " \
        "r$stop.index)}"


def _summary_py(res):
    return np.r_[res.coeff, res.eps, res.eps_level, res.eps_test, res.stop_index + 1]


CASES = {
    "grid": (
        "privacy_level_grid(0.01, 10, 7)",
        lambda rng: dppack.privacy_level_grid(0.01, 10, 7),
    ),
    "laplace_nr": (
        "LaplaceNoiseReduction(c(1, 2, 3), c(0.5, 1, 2), 1.5)",
        lambda rng: dppack.LaplaceNoiseReduction([1, 2, 3], [0.5, 1, 2], 1.5,
                                                 random_state=rng).ravel(order="F"),
    ),
    "gaussian_nr": (
        "GaussianNoiseReduction(c(1, 2), c(4, 1, 0.5))",
        lambda rng: dppack.GaussianNoiseReduction([1, 2], [4, 1, 0.5],
                                                  random_state=rng).ravel(order="F"),
    ),
    "online_nr": (
        "{nr <- LaplaceNoiseReductionOnline$new(c(1, 2), 0.5, 1); "
        "c(nr$release, nr$reduce(2), nr$reduce(3))}",
        lambda rng: _online(rng),
    ),
    "ridge": (
        _summary_r("accuracy_first_erm(X, y, 'ridge', 0.05, 0.1, ub, lb, add.bias = TRUE, "
                   "n.levels = 60)"),
        lambda rng: _summary_py(dppack.accuracy_first_erm(
            _X, _Y, "ridge", 0.05, 0.1, _UB, _LB, add_bias=True, n_levels=60,
            random_state=rng)),
    ),
    "logistic": (
        _summary_r("accuracy_first_erm(X, l, 'logistic', 0.05, 0.1, ub[1:2], lb[1:2], "
                   "calibration = 'tuned', n.levels = 60)"),
        lambda rng: _summary_py(dppack.accuracy_first_erm(
            _X, _L, "logistic", 0.05, 0.1, _UB[:2], _LB[:2], calibration="tuned", n_levels=60,
            random_state=rng)),
    ),
    "doubling": (
        _summary_r("doubling_erm(X, y, 'ridge', 0.05, 0.1, ub, lb)"),
        lambda rng: _summary_py(dppack.doubling_erm(_X, _Y, "ridge", 0.05, 0.1, _UB, _LB,
                                                    random_state=rng)),
    ),
    "theory": (
        "{" + _R_DATA + "r <- theory_erm(X, l, 'logistic', 0.05, 0.1, ub[1:2], lb[1:2]); "
        "c(r$coeff, r$eps)}",
        lambda rng: (lambda r: np.r_[r.coeff, r.eps])(dppack.theory_erm(
            _X, _L, "logistic", 0.05, 0.1, _UB[:2], _LB[:2], random_state=rng)),
    ),
    "above_threshold": (
        # R functions of the data and plain numbers; then one more draw from the same
        # generator, which shows that both sides consumed the same noise
        "{iat <- InteractiveAboveThreshold$new(c(0.2, 0.9, 0.4, 0.7), 16, 0.7, 0.25); "
        "iat$query(0.1); for (cut in c(0.95, 0.85, 0.6, 0.3, 0.1)) if (!iat$halted) "
        "iat$query(function(d) mean(d > cut)); "
        "c(iat$answers, iat$n.queries, if (iat$halted) iat$halt.index else 0, "
        "LaplaceMechanism(0, 1, 1))}",
        lambda rng: _above_threshold(rng),
    ),
    "above_threshold_split": (
        "{iat <- InteractiveAboveThreshold$new(NULL, 4, 0.5, 0.1, threshold.share = 0.3); "
        "for (v in c(0.1, 0.3, 0.45, 0.6, 0.9)) if (!iat$halted) iat$query(v); "
        "c(iat$n.queries, LaplaceMechanism(0, 1, 1))}",
        lambda rng: _above_threshold_split(rng),
    ),
    "parameters_exact": (
        "unlist(accuracy_first_parameters('ridge', 0.05, 0.005, 1e5, 77))",
        lambda rng: np.array(list(dppack.accuracy_first_parameters(
            "ridge", 0.05, 0.005, 100000, 77).values()), dtype=float),
    ),
    "parameters": (
        "unlist(accuracy_first_parameters('logistic', 0.05, 0.005, 1e5, 38, "
        "calibration = 'tuned'))",
        lambda rng: np.array(list(dppack.accuracy_first_parameters(
            "logistic", 0.05, 0.005, 100000, 38, calibration="tuned").values()), dtype=float),
    ),
}


def _above_threshold_split(rng):
    iat = dppack.InteractiveAboveThreshold(None, 4, 0.5, 0.1, random_state=rng,
                                           threshold_share=0.3)
    for value in (0.1, 0.3, 0.45, 0.6, 0.9):
        if not iat.halted:
            iat.query(value)
    return np.array([iat.n_queries, dppack.LaplaceMechanism(0, 1, 1, random_state=rng)])


def _above_threshold(rng):
    data = np.array([0.2, 0.9, 0.4, 0.7])
    iat = dppack.InteractiveAboveThreshold(data, 16, 0.7, 0.25, random_state=rng)
    answers = [iat.query(0.1)]
    for query in [lambda d, cut=cut: np.mean(d > cut) for cut in (0.95, 0.85, 0.6, 0.3, 0.1)]:
        if not iat.halted:
            answers.append(iat.query(query))
    halt = iat.halt_index + 1 if iat.halted else 0
    last = dppack.LaplaceMechanism(0, 1, 1, random_state=rng)
    return np.r_[answers, iat.n_queries, halt, last]


def _online(rng):
    nr = dppack.LaplaceNoiseReductionOnline([1, 2], 0.5, 1, random_state=rng)
    first = nr.release.copy()
    return np.r_[first, nr.reduce(2), nr.reduce(3)]


r_results = r_results_fixture(CASES, SEED)  # every case's R expression, in one R session


@pytest.mark.parametrize("name", sorted(CASES))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    expected = np.asarray(CASES[name][1](np.random.default_rng(SEED)), dtype=float).ravel()
    assert_same_bits(r_results[name], expected)


def test_r_error_and_warning_texts_are_the_core_messages():
    out = run_in_r({
        "bad": "accuracy_first_erm(matrix(1, 2, 1), c(1, 2), 'ridge', 0.1, 0.1, c(1, 1), "
               "c(-1, -1), calibration = 'x')",
        "warn": "{w <- NULL; withCallingHandlers(accuracy_first_erm(matrix(c(0.5, -0.5), 2, 1), "
                "c(1, -1), 'ridge', 1e-6, 0.1, c(1, 1), c(-1, -1), n.levels = 3, eps.max = 1),"
                " warning = function(c) {w <<- conditionMessage(c); "
                "invokeRestart('muffleWarning')}); w}",
    })
    message = out["bad"]["error"].rstrip()
    assert message.endswith("calibration must be one of 'exact', 'paper' or 'tuned'.")
    assert "ValueError" not in message and "Traceback" not in message
    assert out["warn"]["strings"] == [dppack.accuracy_first.erm.NO_LEVEL_MESSAGE]
