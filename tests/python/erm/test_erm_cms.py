"""Tests of dppack's CMS ERM core against DPpack's R/StatModels.R (the building blocks, the CMS
classes and their known bugs).

What is checked:

* the building blocks' reference values from DPpack (Huber loss and weighted gradient,
  phi_gaussian),
  the maps' gradients against finite differences, and the law of generate_sampling's draws;
* every constructor and fit validation error (DPpack's texts and ours), raised before any random
  number is drawn, and that the caller's X is never modified;
* output perturbation: the difference between an eps < Inf and the eps = Inf fit has norm
  Gamma(d, rate gamma eps / (2 (1 + tau))) (weighted: gamma eps / (2 w_bar (1 + tau))), tau =
  1e-6 the optimality slack, and a uniform direction;
* objective perturbation: the eps' / Delta branches and the law of the noise vector b, recovered
  from the first-order condition at the fitted optimum;
* the scaling round trip, eps = Inf optima against independent Newton solvers in the original
  scale, accuracy rising with eps, gamma actually used (DPpack's LogisticRegressionDP
  ignores it: fixed), user subclasses
  with their own callables (also R-like outputs: lists, n x 1 matrices), the Gaussian-kernel SVM
  on circular data, and the weights.

Statistical tests: each runs at significance level ALPHA = 0.001 with a fixed seed, so the suite
is deterministic. Under a fresh seed each statistical test would fail falsely (reject a correct
implementation) with probability 0.001.
"""

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dppack
from dppack import (
    EmpiricalRiskMinimizationDP_CMS,
    LogisticRegressionDP,
    WeightedERMDP_CMS,
    generate_loss_gr_huber,
    generate_loss_huber,
    generate_sampling,
    loss_cross_entropy,
    loss_gr_cross_entropy,
    loss_gr_squared_error,
    loss_squared_error,
    mapXy_gr_linear,
    mapXy_gr_sigmoid,
    mapXy_linear,
    mapXy_sigmoid,
    phi_gaussian,
    regularizer_gr_l2,
    regularizer_l2,
    svmDP,
)

ALPHA = 0.001  # false-rejection probability of each statistical test under a fresh seed
TAU = 1e-6  # the optimality slack output perturbation's sensitivity covers (cms.OPTIMALITY_SLACK)
SEED = 20240917

# DPpack's messages (DPpack's ERM classes) and ours
REGULARIZER = "regularizer must be one of {'l2'}, or a function."
METHOD = "perturbation_method must be one of 'output' or 'objective'."
C_GIVEN = "c must be given for 'objective' perturbation_method."
UPPER_LENGTH = "Length of upper_bounds must be equal to the number of columns of X."
LOWER_LENGTH = "Length of lower_bounds must be equal to the number of columns of X."
WEIGHTED_OBJECTIVE = (
    "Currently, weighting ERM samples only tested for SVM with output  perturbation and "
    "should not be used with objective perturbation."
)
WEIGHTS_BOUND = "Upper bound on weights must be given if weights vector given."
WEIGHTS_NEGATIVE = "Weights must be nonnegative."
LABELS = "y must be a numeric vector of binary labels 0 and 1."
D_MISSING = "D must be specified for nonlinear kernel."
KERNEL = "kernel must be one of {'linear', 'Gaussian'}."
SVM_WEIGHTS = "Weighted SVM is only implemented for output perturbation."
HUBER_W = "Weight vector w must be same length as label vector y."


def _raises(message, call):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def _toy(n=40, p=3, seed=1, bound=None):
    """0/1 labelled data with every entry in [-bound, bound] (bound = 1/sqrt(p): scale 1)."""
    rng = np.random.default_rng(seed)
    bound = 1 / math.sqrt(p) if bound is None else bound
    X = rng.uniform(-bound, bound, size=(n, p))
    y = (X @ np.arange(1, p + 1) + 0.3 * bound * rng.normal(size=n) > 0).astype(float)
    return X, y, [bound] * p, [-bound] * p


def _unit_bounds(p):
    """Bounds +-1/sqrt(p): the models' scaling X_ij / (s_j sqrt(p)) is then the identity."""
    b = 1 / math.sqrt(p)
    return [b] * p, [-b] * p


# --------------------------------------------------------------------------------------------
# Building blocks (DPpack's R/StatModels.R)
# --------------------------------------------------------------------------------------------


def test_huber_reference_values():
    y_hat = [-0.5, 1.2, -0.9, 0.8, 1.6]
    y = [-1, 1, -1, 1, 1]
    np.testing.assert_allclose(generate_loss_huber(0.5)(y_hat, y),
                               [0.5, 0.045, 0.18, 0.245, 0], atol=1e-15)
    np.testing.assert_allclose(generate_loss_gr_huber(0.5)(y_hat, y, [0.1, 0.5, 1, 2, 1]),
                               [0.10, -0.15, 0.60, -1.40, 0], atol=1e-15)
    # both boundaries 1 +- h fall in the quadratic piece (values agree there: continuity)
    np.testing.assert_allclose(generate_loss_huber(0.5)([0.5, 1.5], [1, 1]), [0.5, 0.0])
    _raises(HUBER_W, lambda: generate_loss_huber(0.5)(y_hat, y, [1, 2]))
    _raises(HUBER_W, lambda: generate_loss_gr_huber(0.5)(y_hat, y, [1, 2]))


def test_phi_gaussian_reference_value():
    assert phi_gaussian([1, 2, 3], [0.1, 1.1, -0.8, 3]) == pytest.approx(-0.9709582, abs=1e-7)
    rows = np.array([[1, 2, 3], [0.5, -1, 2]])
    np.testing.assert_allclose(phi_gaussian(rows, [0.1, 1.1, -0.8, 3]),
                               [phi_gaussian(r, [0.1, 1.1, -0.8, 3]) for r in rows])


def test_maps_losses_regularizer():
    rng = np.random.default_rng(0)
    X, theta = rng.normal(size=(6, 3)), rng.normal(size=3)
    s = 1 / (1 + np.exp(-X @ theta))
    np.testing.assert_allclose(mapXy_sigmoid(X, theta), s)
    np.testing.assert_allclose(mapXy_linear(X, theta), X @ theta)
    np.testing.assert_array_equal(mapXy_gr_linear(X, theta), X.T)
    # gradient of the sigmoid map (p x n) against central differences
    h = 1e-6
    numeric = np.array([(mapXy_sigmoid(X, theta + h * e) - mapXy_sigmoid(X, theta - h * e))
                        / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(mapXy_gr_sigmoid(X, theta), numeric, atol=1e-9)
    assert mapXy_gr_sigmoid(X, theta).shape == (3, 6)
    y_hat, y = np.array([0.2, 0.7]), np.array([0.0, 1.0])
    np.testing.assert_allclose(loss_cross_entropy(y_hat, y), [-math.log(0.8), -math.log(0.7)])
    np.testing.assert_allclose(loss_gr_cross_entropy(y_hat, y), [1 / 0.8, -1 / 0.7])
    np.testing.assert_allclose(loss_squared_error([1, 3], [2, 0]), [0.5, 4.5])
    np.testing.assert_allclose(loss_gr_squared_error([1, 3], [2, 0]), [-1, 3])
    assert regularizer_l2([3, 4]) == 12.5
    np.testing.assert_array_equal(regularizer_gr_l2([3, 4]), [3, 4])
    # R's n x 1 matrices are 1-d arrays here
    assert mapXy_sigmoid(X, theta).shape == (6,)
    assert loss_cross_entropy(y_hat.reshape(-1, 1), y.reshape(-1, 1)).shape == (2,)


def test_generate_sampling_law_and_order():
    kernel_param = 0.7
    draws = generate_sampling(kernel_param)(4, SEED, size=5000)
    assert draws.shape == (5000, 5)
    # omega ~ N(0, sd sqrt(2 kernel_param)); phi ~ U(-pi, pi). Each KS: false failure 0.001.
    omega = draws[:, :4].ravel()
    assert stats.kstest(omega, stats.norm(scale=math.sqrt(2 * kernel_param)).cdf).pvalue > ALPHA
    assert stats.kstest(draws[:, 4], stats.uniform(-math.pi, 2 * math.pi).cdf).pvalue > ALPHA
    one = generate_sampling(kernel_param)(4, np.random.default_rng(3))
    rng = np.random.default_rng(3)  # d normals, then one uniform
    expected = np.concatenate([rng.normal(0, math.sqrt(1.4), 4), rng.uniform(-math.pi, math.pi, 1)])
    np.testing.assert_array_equal(one, expected)


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: EmpiricalRiskMinimizationDP_CMS(mapXy_linear, loss_squared_error, "l1", 1, 1,
                                                 c=1), REGULARIZER),
        (lambda: EmpiricalRiskMinimizationDP_CMS(mapXy_linear, loss_squared_error, 3, 1, 1,
                                                 c=1), REGULARIZER),
        (lambda: EmpiricalRiskMinimizationDP_CMS(mapXy_linear, loss_squared_error, "l2", 1, 1,
                                                 "both", c=1), METHOD),
        (lambda: EmpiricalRiskMinimizationDP_CMS(mapXy_linear, loss_squared_error, "l2", 1, 1),
         C_GIVEN),
        (lambda: LogisticRegressionDP("l2", 0, 1), "eps must be a scalar > 0"),
        (lambda: LogisticRegressionDP("l2", float("nan"), 1), "eps must be a scalar > 0"),
        (lambda: LogisticRegressionDP("l2", 1, 0), "gamma must be a scalar > 0"),
        (lambda: LogisticRegressionDP("l2", 1, -2), "gamma must be a scalar > 0"),
        (lambda: LogisticRegressionDP("l2", 1, math.inf), "gamma must be finite."),
        (lambda: LogisticRegressionDP("l2", 1, 1, "outputs"), METHOD),
        (lambda: svmDP("l2", 1, 1, kernel="Gaussian"), D_MISSING),
        (lambda: svmDP("l2", 1, 1, kernel="poly", D=3), KERNEL),
        (lambda: svmDP("l2", 1, 1, kernel="Gaussian", D=2.5), "D must be a positive integer."),
        (lambda: svmDP("l2", 1, 1, kernel="Gaussian", D=0), "D must be a positive integer."),
        (lambda: svmDP("l2", 1, 1, huber_h=0), "huber_h must be a scalar > 0"),
        (lambda: svmDP("l2", 1, 1, kernel="Gaussian", D=3, kernel_param=-1),
         "kernel_param must be a scalar > 0"),
        (lambda: svmDP("l1", 1, 1), REGULARIZER),  # CMS errors come first
    ],
)
def test_constructor_messages(make, message):
    _raises(message, make)


def test_output_method_needs_no_c_and_l2_ignores_user_gradient():
    model = EmpiricalRiskMinimizationDP_CMS(mapXy_linear, loss_squared_error, "l2", 1, 1,
                                            "output", regularizer_gr=lambda t: 0 * t)
    assert model.c is None and model.regularizer is regularizer_l2
    assert model.regularizer_gr is regularizer_gr_l2
    # svmDP's c is 1/(2h)
    assert svmDP("l2", 1, 1, huber_h=0.25).c == 2.0
    assert LogisticRegressionDP("l2", 1, 1).c == 0.25


X_BAD, Y_BAD, U_BAD, L_BAD = _toy(n=10, p=2, seed=5)


def _nan_X():
    X = X_BAD.copy()
    X[3, 1] = np.nan
    return X


def _inf_X():
    X = X_BAD.copy()
    X[0, 0] = -np.inf
    return X


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m, r: m.fit(X_BAD, Y_BAD, [1], L_BAD, random_state=r), UPPER_LENGTH),
        (lambda m, r: m.fit(X_BAD, Y_BAD, None, L_BAD, random_state=r), UPPER_LENGTH),
        (lambda m, r: m.fit(X_BAD, Y_BAD, U_BAD, [1, 2, 3], random_state=r), LOWER_LENGTH),
        (lambda m, r: m.fit(X_BAD, Y_BAD, [1], [1], random_state=r), UPPER_LENGTH),
        (lambda m, r: m.fit(X_BAD, Y_BAD, [1, 1], [-1, 1], random_state=r),
         "lower_bounds must be < upper_bounds in every column (not in column 2)."),
        (lambda m, r: m.fit(X_BAD, Y_BAD, [1, np.inf], [-1, -1], random_state=r),
         "upper_bounds must be finite."),
        (lambda m, r: m.fit(_nan_X(), Y_BAD, U_BAD, L_BAD, random_state=r),
         "X must be finite (no NA, NaN or Inf)."),
        (lambda m, r: m.fit(_inf_X(), Y_BAD, U_BAD, L_BAD, random_state=r),
         "X must be finite (no NA, NaN or Inf)."),
        (lambda m, r: m.fit(X_BAD, np.r_[Y_BAD[:-1], np.nan], U_BAD, L_BAD, random_state=r),
         "y must be finite (no NA, NaN or Inf)."),
        (lambda m, r: m.fit(X_BAD, Y_BAD[:-1], U_BAD, L_BAD, random_state=r),
         "y must have one value per row of X: X has 10 rows, y has 9 values."),
        (lambda m, r: m.fit(X_BAD, 2 * Y_BAD - 1, U_BAD, L_BAD, random_state=r), LABELS),
        (lambda m, r: m.fit(X_BAD, Y_BAD, U_BAD, L_BAD, add_bias="yes", random_state=r),
         "add_bias must be True or False."),
    ],
)
@pytest.mark.parametrize("model", ["logistic", "svm"])
def test_fit_messages_before_any_draw(call, message, model):
    m = LogisticRegressionDP("l2", 1, 1) if model == "logistic" else svmDP("l2", 1, 1)
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    _raises(message, lambda: call(m, rng))
    assert rng.bit_generator.state == state  # no random number drawn
    assert m.coeff is None


def test_weights_and_model_messages():
    X, y, U, L = X_BAD, Y_BAD, U_BAD, L_BAD
    w = np.ones(10)
    huber = generate_loss_huber(0.5)
    weighted = WeightedERMDP_CMS(mapXy_linear, huber, "l2", 1, 1, c=1,
                                 mapXy_gr=mapXy_gr_linear, loss_gr=generate_loss_gr_huber(0.5))
    _raises(WEIGHTED_OBJECTIVE, lambda: weighted.fit(X, 2 * y - 1, U, L, weights=w,
                                                     weights_upper_bound=1))
    _raises(SVM_WEIGHTS, lambda: svmDP("l2", 1, 1).fit(X, y, U, L, weights=w,
                                                      weights_upper_bound=1))
    out = svmDP("l2", 1, 1, "output")
    _raises(WEIGHTS_BOUND, lambda: out.fit(X, y, U, L, weights=w))
    _raises(WEIGHTS_NEGATIVE, lambda: out.fit(X, y, U, L, weights=np.r_[w[:-1], -1],
                                              weights_upper_bound=1))
    _raises("weights must have one value per row of X: X has 10 rows, weights has 9 values.",
            lambda: out.fit(X, y, U, L, weights=w[:-1], weights_upper_bound=1))
    _raises("weights_upper_bound must be a scalar > 0",
            lambda: out.fit(X, y, U, L, weights=w, weights_upper_bound=0))
    # predicting before fitting, or with another number of columns
    _raises("The model must be fitted before predict: call fit() first.",
            lambda: svmDP("l2", 1, 1).predict(X))
    out.fit(X, y, U, L, add_bias=True, random_state=1)
    # add_bias=None (the default) is the fit's; a different value keeps the column check
    _raises("X has 2 columns; the model was fitted on 3.",
            lambda: out.predict(X, add_bias=False))
    _raises("X has 4 columns (counting the bias column added by add_bias); the model was "
            "fitted on 3.", lambda: out.predict(np.c_[X, X[:, 0]], add_bias=True))
    logistic = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=1)
    _raises("X has 3 columns; the model was fitted on 2.",
            lambda: logistic.predict(np.c_[X, X[:, 0]]))
    # attributes changed after construction are checked again at fit, before any draw
    logistic.gamma = 0
    _raises("gamma must be a scalar > 0", lambda: logistic.fit(X, y, U, L))
    gauss = svmDP("l2", 1, 1, kernel="Gaussian", D=5).fit(X, y, random_state=1)
    _raises("X has 3 columns; the model was fitted on 2.",
            lambda: gauss.predict(np.c_[X, X[:, 0]]))


def test_inputs_are_not_modified_and_containers_are_accepted():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2)) * 2  # reaches outside the bounds: clipping happens
    y = (X[:, 0] > 0).astype(float)
    X_copy = X.copy()
    ref = LogisticRegressionDP("l2", 1, 1).fit(X, y, [1, 2], [-1, -2], True, random_state=4)
    np.testing.assert_array_equal(X, X_copy)
    frame = pd.DataFrame(X, columns=["a", "b"])
    variants = [
        (frame, pd.DataFrame({"y": y})),
        (X.tolist(), y.reshape(-1, 1)),
        (np.asfortranarray(X), pd.Series(y)),
    ]
    for Xv, yv in variants:
        m = LogisticRegressionDP("l2", 1, 1).fit(Xv, yv, [1, 2], [-1, -2], True, random_state=4)
        np.testing.assert_array_equal(m.coeff, ref.coeff)
        np.testing.assert_array_equal(m.predict(Xv, True), ref.predict(X, True))
    np.testing.assert_array_equal(frame.to_numpy(), X_copy)


def test_random_state_contract():
    X, y, U, L = _toy()
    a = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=7).coeff
    b = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=7).coeff
    c = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=8).coeff
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    rng = np.random.default_rng(7)
    first = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=rng).coeff
    second = LogisticRegressionDP("l2", 1, 1).fit(X, y, U, L, random_state=rng).coeff
    np.testing.assert_array_equal(first, a)
    assert not np.array_equal(first, second)  # a shared Generator continues its stream


# --------------------------------------------------------------------------------------------
# Noise laws
# --------------------------------------------------------------------------------------------


def _direction_checks(vectors):
    """For d = 3: the first coordinate of a uniform unit vector is Uniform(-1, 1)
    (Archimedes), and the 8 octants are equally likely. Each test: false failure 0.001."""
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert stats.kstest(units[:, 0], stats.uniform(-1, 2).cdf).pvalue > ALPHA
    octant = (units > 0) @ np.array([1, 2, 4])
    counts = np.bincount(octant, minlength=8)
    assert stats.chisquare(counts).pvalue > ALPHA


def _grid_noise(coeff, exact, k):
    """The release noise in grid units, (coeff - g round(exact / g)) / g, checked to be
    integers: the released coefficients are multiples of g = 2^k."""
    units = np.ldexp(np.asarray(coeff), -k)
    np.testing.assert_array_equal(units, np.rint(units))
    return units - np.rint(np.ldexp(np.asarray(exact), -k))


def test_output_perturbation_noise_law():
    # Tiny problem with bounds +-1/sqrt(3): the scaling is the identity, so the release is
    # g (round(exact / g) + Z), Z per-coordinate discrete Laplace of scale sqrt(d) S / eps
    # (dppack.erm._approximate.release), S = 2 (1 + tau) / gamma.
    X, y, U, L = _toy(n=20, p=3, seed=11)
    eps, gamma, fits = 1.0, 2.0, 1000
    exact = LogisticRegressionDP("l2", math.inf, gamma, "output").fit(X, y, U, L).coeff
    model = LogisticRegressionDP("l2", eps, gamma, "output")
    rng = np.random.default_rng(SEED)
    coeffs = np.array([model.fit(X, y, U, L, random_state=rng).coeff for _ in range(fits)])
    k = model.release_grid_
    S = 2 * (1 + TAU) / gamma
    assert math.isclose(model.release_sensitivity_, S, rel_tol=1e-12)
    noise = np.ldexp(_grid_noise(coeffs, exact, k), k)
    # KS of the pooled coordinates against Laplace(sqrt(3) S / eps) (the grid, 2^-21 of the
    # scale, is far below the KS resolution 1/3000): false failure 0.001
    assert stats.kstest(noise.ravel(), stats.laplace(scale=math.sqrt(3) * S / eps).cdf
                        ).pvalue > ALPHA
    # independent coordinates: the signs of the three coordinates are uniform on the octants
    octant = (noise > 0) @ np.array([1, 2, 4])
    assert stats.chisquare(np.bincount(octant, minlength=8)).pvalue > ALPHA


def test_weighted_output_perturbation_noise_law():
    # svmDP, linear kernel, weights with upper bound 2: S = 2 w_bar (1 + tau) / gamma
    X, y, U, L = _toy(n=20, p=3, seed=12)
    eps, gamma, w_bar, fits = 1.0, 3.0, 2.0, 800
    w = np.linspace(0, 3, 20)  # clipped at 2
    exact = svmDP("l2", math.inf, gamma, "output").fit(
        X, y, U, L, weights=w, weights_upper_bound=w_bar).coeff
    model = svmDP("l2", eps, gamma, "output")
    rng = np.random.default_rng(SEED + 1)
    coeffs = np.array([model.fit(X, y, U, L, weights=w, weights_upper_bound=w_bar,
                                 random_state=rng).coeff for _ in range(fits)])
    noise = np.ldexp(_grid_noise(coeffs, exact, model.release_grid_), model.release_grid_)
    S = 2 * w_bar * (1 + TAU) / gamma
    # KS against Laplace(sqrt(3) S / eps): false failure 0.001
    assert stats.kstest(noise.ravel(), stats.laplace(scale=math.sqrt(3) * S / eps).cdf
                        ).pvalue > ALPHA


def test_output_noise_draw_order():
    # the release draws exactly what dppack.erm._approximate.release draws from the seed
    X, y, U, L = _toy(n=20, p=3, seed=13)
    exact = LogisticRegressionDP("l2", math.inf, 2, "output").fit(X, y, U, L).coeff
    model = LogisticRegressionDP("l2", 1, 2, "output").fit(X, y, U, L, random_state=5)
    expected = dppack.erm._approximate.release(exact, model.release_sensitivity_, 1.0,
                                              np.random.default_rng(5))
    np.testing.assert_array_equal(model.coeff, expected)
    assert model.privacy_ == dppack.PrivacyLoss.pure(1.0)


@pytest.mark.parametrize("gamma, branch", [(5.0, "eps_prime"), (0.05, "Delta")])
def test_objective_perturbation_branches_and_noise_law(gamma, branch):
    X, y, U, L = _toy(n=25, p=3, seed=14)
    n, eps, c = 25, 1.0, 0.25
    eps_1 = eps * (1 - 2 ** -10)  # approximate minima perturbation: eps_2 = eps / 2^10
    eps_prime = eps_1 - math.log(1 + 2 * c / gamma + c ** 2 / gamma ** 2)
    if branch == "eps_prime":
        assert eps_prime > 0
        expected = (eps_prime, 0.0)
    else:
        assert eps_prime <= 0
        expected = (eps_1 / 2, c / (n * (math.exp(eps_1 / 4) - 1)) - gamma / n)
        assert expected[1] > 0
    model = LogisticRegressionDP("l2", eps, gamma)
    rng = np.random.default_rng(SEED + 2)
    b = []
    for _ in range(500):
        theta = model.fit(X, y, U, L, random_state=rng).coeff  # scaling is the identity here
        assert (model.eps_prime_, model.Delta_) == pytest.approx(expected, rel=1e-12)
        assert model.privacy_ == dppack.PrivacyLoss.pure(eps)  # the user's eps, whole
        _grid_noise(theta, theta, model.release_grid_)  # on the grid
        # the release's sensitivity: 2 g_tol / (gamma/n + Delta)
        assert model.release_sensitivity_ == pytest.approx(
            2 * model.optimality_tolerance_ / (gamma / n + model.Delta_), rel=1e-12)
        # first-order condition (up to the release noise, about 1e-3 of b): X'(sigma - y)/n + (gamma/n) theta + b/n + Delta theta = 0
        s = 1 / (1 + np.exp(-X @ theta))
        b.append(-(X.T @ (s - y) + gamma * theta + n * model.Delta_ * theta))
    b = np.array(b)
    rate = model.eps_prime_ / 2
    # KS of ||b|| against Gamma(d = 3, rate eps'/2): false failure 0.001
    law = stats.gamma(3, scale=1 / rate)
    assert stats.kstest(np.linalg.norm(b, axis=1), law.cdf).pvalue > ALPHA
    _direction_checks(b)


def test_eps_inf_draws_nothing_and_flags():
    X, y, U, L = _toy()
    for method in ("objective", "output"):
        rng = np.random.default_rng(1)
        state = rng.bit_generator.state
        m = LogisticRegressionDP("l2", math.inf, 1, method).fit(X, y, U, L, random_state=rng)
        assert rng.bit_generator.state == state
    assert m.eps_prime_ is None and m.Delta_ is None
    m = LogisticRegressionDP("l2", math.inf, 1).fit(X, y, U, L)
    assert m.eps_prime_ == math.inf and m.Delta_ == 0.0


# --------------------------------------------------------------------------------------------
# Optima, scaling, accuracy
# --------------------------------------------------------------------------------------------


def _data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(-2, 3, n), rng.uniform(-1, 1, n)])
    y = (0.8 * X[:, 0] - 2 * X[:, 1] - 0.3 + rng.logistic(size=n) > 0).astype(float)
    return X, y, [3.0, 1.0], [-2.0, -1.0]


def _newton(grad_hess, value, theta):
    for _ in range(200):
        g, H = grad_hess(theta)
        step = np.linalg.solve(H, g)
        t, f0 = 1.0, value(theta)
        while value(theta - t * step) > f0 - 1e-4 * t * (g @ step) and t > 1e-12:
            t /= 2
        theta = theta - t * step
        if np.max(np.abs(g)) < 1e-13:
            break
    return theta


@pytest.mark.parametrize("gamma", [1e-2, 1.0, 30.0])
def test_logistic_eps_inf_matches_newton_in_original_scale(gamma):
    X, y, U, L = _data()
    n = len(y)
    Xb = np.column_stack([np.ones(n), X])
    a = np.maximum(np.abs([1.0] + L), np.abs([1.0] + U)) * math.sqrt(3)  # s_j sqrt(p)

    def value(t):
        z = Xb @ t
        return np.mean(np.logaddexp(0, z) - y * z) + gamma / (2 * n) * np.sum((a * t) ** 2)

    def grad_hess(t):
        s = 1 / (1 + np.exp(-Xb @ t))
        g = Xb.T @ (s - y) / n + gamma / n * a ** 2 * t
        H = (Xb.T * (s * (1 - s))) @ Xb / n + gamma / n * np.diag(a ** 2)
        return g, H

    expected = _newton(grad_hess, value, np.zeros(3))
    fitted = LogisticRegressionDP("l2", math.inf, gamma).fit(X, y, U, L, add_bias=True).coeff
    np.testing.assert_allclose(fitted, expected, rtol=1e-6)


def test_svm_eps_inf_matches_newton_with_weights():
    X, y, U, L = _data(seed=4)
    n, gamma, h = len(y), 0.5, 0.5
    w = np.where(np.arange(n) % 3 == 0, 0.25, 1.0)
    a = np.maximum(np.abs(L), np.abs(U)) * math.sqrt(2)
    ys = 2 * y - 1

    def value(t):
        z = ys * (X @ t)
        loss = np.where(z > 1 + h, 0, np.where(z < 1 - h, 1 - z, (1 + h - z) ** 2 / (4 * h)))
        return np.mean(w * loss) + gamma / (2 * n) * np.sum((a * t) ** 2)

    def grad_hess(t):
        z = ys * (X @ t)
        dz = np.where(z > 1 + h, 0, np.where(z < 1 - h, -1, -(1 + h - z) / (2 * h)))
        d2 = np.where((z >= 1 - h) & (z <= 1 + h), 1 / (2 * h), 0)
        g = X.T @ (w * dz * ys) / n + gamma / n * a ** 2 * t
        H = (X.T * (w * d2)) @ X / n + gamma / n * np.diag(a ** 2)
        return g, H

    expected = _newton(grad_hess, value, np.zeros(2))
    fitted = svmDP("l2", math.inf, gamma, "output").fit(
        X, y, U, L, weights=w, weights_upper_bound=1).coeff
    np.testing.assert_allclose(fitted, expected, rtol=1e-6)


def test_scaling_round_trip():
    X, y, U, L = _data(seed=5)
    Xc = np.clip(X, L, U)
    divisors = np.maximum(np.abs([1.0] + L), np.abs([1.0] + U)) * math.sqrt(3)
    scaled = np.column_stack([np.ones(len(y)), Xc]) / divisors  # the scaled problem
    Us, Ls = _unit_bounds(3)  # its bounds make the model's scaling the identity
    for eps, method in ((math.inf, "objective"), (1.0, "objective"), (1.0, "output")):
        raw = LogisticRegressionDP("l2", eps, 1, method).fit(X, y, U, L, True, random_state=9)
        tilde = LogisticRegressionDP("l2", eps, 1, method).fit(scaled, y, Us, Ls,
                                                               random_state=9)
        np.testing.assert_allclose(raw.coeff * divisors, tilde.coeff, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(raw.predict(Xc, add_bias=True, raw_value=True),
                                   tilde.predict(scaled, raw_value=True), rtol=1e-7)


def test_accuracy_rises_with_eps():
    rng = np.random.default_rng(6)
    n = 400
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X[:, 0] - X[:, 1] > 0).astype(float)
    accuracy = {}
    for method in ("objective", "output"):
        for eps in (0.05, 0.5, 5.0):
            acc = [np.mean(LogisticRegressionDP("l2", eps, 1, method)
                           .fit(X, y, [1, 1], [-1, -1], random_state=s).predict(X) == y)
                   for s in range(20)]
            accuracy[method, eps] = np.mean(acc)
        assert accuracy[method, 0.05] < accuracy[method, 0.5] < accuracy[method, 5.0]
        assert accuracy[method, 5.0] > 0.9


def test_gamma_is_used_dppack_bug_fixed():
    X, y, U, L = _data(seed=7)
    coeffs = [LogisticRegressionDP("l2", math.inf, g).fit(X, y, U, L, True).coeff
              for g in (1e-4, 1.0, 100.0)]
    norms = [np.linalg.norm(c) for c in coeffs]
    assert norms[0] > norms[1] > norms[2]
    assert not np.allclose(coeffs[0], coeffs[1], rtol=1e-3)


def test_predict_labels_round_half_even():
    m = LogisticRegressionDP("l2", 1, 1)
    m.coeff = np.array([0.0, 1.0])
    np.testing.assert_array_equal(m.predict([[0, 0], [1, 0], [0, 1], [0, -1]]), [0, 0, 1, 0])
    s = svmDP("l2", 1, 1)
    s.coeff = np.array([1.0, -1.0])
    np.testing.assert_array_equal(s.predict([[1, 1], [2, 0], [0, 2]]), [0, 1, 0])
    np.testing.assert_array_equal(s.predict([[1, 1], [2, 0]], raw_value=True), [0, 2])


# --------------------------------------------------------------------------------------------
# User subclasses and callables
# --------------------------------------------------------------------------------------------


class HuberSVM(EmpiricalRiskMinimizationDP_CMS):
    """A user's model: linear map, Huber loss (c = 1/(2h)), labels 0/1 mapped to -1/+1."""

    def __init__(self, eps, gamma, with_gradients=True, h=0.5):
        gr = (mapXy_gr_linear, generate_loss_gr_huber(h)) if with_gradients else (None, None)
        super().__init__(mapXy_linear, generate_loss_huber(h), "l2", eps, gamma, "objective",
                         1 / (2 * h), mapXy_gr=gr[0], loss_gr=gr[1])

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        out = super()._preprocess_data(X, y, upper_bounds, lower_bounds, add_bias)
        out["y"] = 2 * out["y"] - 1
        return out

    def predict(self, X, add_bias=False):
        return (super().predict(X, add_bias) > 0).astype(float)


def test_user_subclass_trains_and_predicts():
    X, y, U, L = _toy(n=200, p=2, seed=21)  # rows have norm <= 1
    exact = HuberSVM(math.inf, 0.1).fit(X, y, U, L)
    assert np.mean(exact.predict(X) == y) > 0.9
    # finite differences (no gradients) reach the same optimum closely
    fd = HuberSVM(math.inf, 0.1, with_gradients=False).fit(X, y, U, L)
    np.testing.assert_allclose(fd.coeff, exact.coeff, rtol=1e-4)
    private = HuberSVM(5.0, 0.1).fit(X, y, U, L, add_bias=True, random_state=3)
    assert private.coeff.shape == (3,) and np.all(np.isfinite(private.coeff))
    assert private.predict(X, add_bias=True).shape == (200,)


def test_r_like_callables_returning_matrices_and_lists():
    """R functions through reticulate return n x 1 matrices, 1 x 1 matrices and p x n matrices;
    a model built from such callables gives the built-in blocks' answer."""
    X, y, U, L = _toy(n=60, p=3, seed=22)
    kwargs = dict(eps=1.0, gamma=2.0, perturbation_method="objective", c=0.25)
    ref = EmpiricalRiskMinimizationDP_CMS(
        mapXy_sigmoid, loss_cross_entropy, "l2", mapXy_gr=mapXy_gr_sigmoid,
        loss_gr=loss_gr_cross_entropy, **kwargs).fit(X, y, U, L, random_state=2)
    r_like = EmpiricalRiskMinimizationDP_CMS(
        lambda X, t: mapXy_sigmoid(X, t).reshape(-1, 1),
        lambda yh, yy: loss_cross_entropy(yh, yy).reshape(-1, 1).tolist(),
        lambda t: np.array([[regularizer_l2(t)]]),
        mapXy_gr=lambda X, t: np.asfortranarray(mapXy_gr_sigmoid(X, t)),
        loss_gr=lambda yh, yy: list(loss_gr_cross_entropy(yh, yy)),
        regularizer_gr=lambda t: np.asarray(t).reshape(-1, 1),
        **kwargs).fit(X, y.reshape(-1, 1), U, L, random_state=2)
    np.testing.assert_allclose(r_like.coeff, ref.coeff, rtol=1e-10)
    # and the built-in LogisticRegressionDP agrees on this unit-scale problem
    builtin = LogisticRegressionDP("l2", 1.0, 2.0).fit(X, y, U, L, random_state=2)
    np.testing.assert_allclose(builtin.coeff, ref.coeff, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(r_like.predict(X), builtin.predict(X, raw_value=True), rtol=1e-6)


def test_logistic_user_regularizer_without_gradient():
    X, y, U, L = _data(seed=8)
    ref = LogisticRegressionDP("l2", math.inf, 1.0).fit(X, y, U, L, True).coeff
    fd = LogisticRegressionDP(regularizer_l2, math.inf, 1.0).fit(X, y, U, L, True).coeff
    np.testing.assert_allclose(fd, ref, rtol=1e-4)
    with_gr = LogisticRegressionDP(lambda t: 0.5 * float(np.sum(np.asarray(t) ** 2)), math.inf,
                                   1.0, regularizer_gr=lambda t: t).fit(X, y, U, L, True).coeff
    np.testing.assert_allclose(with_gr, ref, rtol=1e-8)


# --------------------------------------------------------------------------------------------
# svmDP: Gaussian kernel and weights
# --------------------------------------------------------------------------------------------


def _circle(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.6, 0.6, size=(n, 2))
    return X, (np.sum(X ** 2, axis=1) >= 0.15).astype(float)


def test_gaussian_kernel_on_circular_data():
    X, y = _circle(400, 31)
    Xt, yt = _circle(2000, 32)
    model = svmDP("l2", math.inf, 0.1, "output", kernel="Gaussian", D=100, kernel_param=10)
    model.fit(X, y, random_state=1)  # no bounds needed
    assert np.mean(model.predict(Xt) == yt) > 0.95
    assert model.prefilter.shape == (100, 3)
    # XtoV: sqrt(2/D) cos(omega' x + phi), and predict's raw value is XtoV(X) coeff
    V = model.XtoV(Xt[:5])
    expected = math.sqrt(2 / 100) * np.array([[phi_gaussian(x, row) for row in model.prefilter]
                                              for x in Xt[:5]])
    np.testing.assert_allclose(V, expected, atol=1e-12)
    np.testing.assert_allclose(model.predict(Xt[:5], raw_value=True), V @ model.coeff)
    # private fits (eps = 5, a stronger penalty) still classify well on average
    for method in ("output", "objective"):
        private = svmDP("l2", 5.0, 10.0, method, kernel="Gaussian", D=100, kernel_param=10)
        acc = np.mean([np.mean(private.fit(X, y, random_state=s).predict(Xt) == yt)
                       for s in range(5)])
        assert acc > 0.85  # the majority class is 65 %


@pytest.mark.parametrize("gamma", [0.02, 2.0])
def test_gaussian_kernel_eps_inf_matches_newton_on_the_features(gamma):
    # The Huber SVM on random Fourier features is ill-conditioned at small gamma/n; the fit
    # must still reach the optimum to 1e-6 (its solver ends with Newton steps). In the
    # coefficients c of XtoV, the objective is mean(huber(y XtoV(X) c)) + (gamma / n) ||c||^2
    # (the fit works with cos(.) / sqrt(D) = XtoV / sqrt(2) and coeff = theta / sqrt(2)).
    X, y = _circle(400, 34)
    n, h = len(y), 0.5
    model = svmDP("l2", math.inf, gamma, "output", kernel="Gaussian", D=80, kernel_param=10)
    model.fit(X, y, random_state=5)
    V, ys = model.XtoV(X), 2 * y - 1

    def value(c):
        z = ys * (V @ c)
        loss = np.where(z > 1 + h, 0, np.where(z < 1 - h, 1 - z, (1 + h - z) ** 2 / (4 * h)))
        return np.mean(loss) + gamma / n * np.sum(c ** 2)

    def grad_hess(c):
        z = ys * (V @ c)
        dz = np.where(z > 1 + h, 0, np.where(z < 1 - h, -1, -(1 + h - z) / (2 * h)))
        d2 = np.where((z >= 1 - h) & (z <= 1 + h), 1 / (2 * h), 0)
        g = V.T @ (dz * ys) / n + 2 * gamma / n * c
        H = (V.T * d2) @ V / n + 2 * gamma / n * np.eye(V.shape[1])
        return g, H

    expected = _newton(grad_hess, value, np.zeros(V.shape[1]))
    np.testing.assert_allclose(model.coeff, expected, rtol=1e-6,
                               atol=1e-9 * np.max(np.abs(expected)))


def test_gaussian_kernel_param_frozen_and_prefilter_redrawn():
    X, y = _circle(50, 33)
    model = svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=7)
    model.fit(X, y, random_state=1)
    assert model.kernel_param == 0.5  # 1 / ncol(X), kept in the object
    first = model.prefilter.copy()
    model.fit(np.c_[X, X[:, 0]], y, random_state=2)
    assert model.kernel_param == 0.5
    assert model.prefilter.shape == (7, 4) and not np.array_equal(model.prefilter[:, :2],
                                                                   first[:, :2])
    model.fit(X, y, add_bias=True, random_state=3)  # the bias column enters the features
    assert model.prefilter.shape == (7, 4)
    assert model.predict(X, add_bias=True).shape == (50,)
    # prefilter drawn first (D x d normals, then D uniforms) from the fit's generator
    rng = np.random.default_rng(3)
    omega = rng.normal(0, 1, size=(7, 3))
    phase = rng.uniform(-math.pi, math.pi, size=7)
    np.testing.assert_allclose(model.prefilter, np.c_[omega, phase])


def test_weights_zero_equals_dropping_rows_and_clipping():
    X, y, U, L = _data(seed=9)
    n = len(y)
    w = np.ones(n)
    w[:5] = 0.0
    gamma = 2.0
    weighted = svmDP("l2", math.inf, gamma, "output").fit(
        X, y, U, L, weights=w, weights_upper_bound=1).coeff
    # (1/n) sum w loss + (gamma/n) R has the minimiser of sum w loss + gamma R
    dropped = svmDP("l2", math.inf, gamma, "output").fit(X[5:], y[5:], U, L).coeff
    np.testing.assert_allclose(weighted, dropped, rtol=1e-6)
    big = svmDP("l2", math.inf, gamma, "output").fit(
        X, y, U, L, weights=np.full(n, 5.0), weights_upper_bound=2).coeff
    two = svmDP("l2", math.inf, gamma, "output").fit(
        X, y, U, L, weights=np.full(n, 2.0), weights_upper_bound=2).coeff
    np.testing.assert_allclose(big, two, rtol=1e-12)
    # without weights the bound is 1 whatever the user passed
    a = svmDP("l2", 1.0, gamma, "output").fit(X, y, U, L, weights_upper_bound=100,
                                              random_state=4).coeff
    b = svmDP("l2", 1.0, gamma, "output").fit(X, y, U, L, random_state=4).coeff
    np.testing.assert_array_equal(a, b)


def test_weighted_objective_without_weights_runs():
    X, y, U, L = _toy(n=50, p=2, seed=40)
    model = WeightedERMDP_CMS(mapXy_linear, generate_loss_huber(0.5), "l2", 1.0, 1.0, c=1.0,
                              mapXy_gr=mapXy_gr_linear, loss_gr=generate_loss_gr_huber(0.5))
    model.fit(X, 2 * y - 1, U, L, random_state=1)
    assert model.coeff.shape == (2,) and model.Delta_ is not None


def test_import_is_lazy():
    """``import dppack`` does not load scipy.optimize (fit imports it); the import time itself
    is tested in test_mechanisms.py."""
    code = "import sys, dppack; print('scipy.optimize' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "False"
    assert "svmDP" in dppack.__all__ and "LogisticRegressionDP" in dppack.__all__


def test_weighted_gram_equals_the_direct_product():
    # the one weighted Gram of the ERM Hessians and the interval covariances: blocks smaller
    # than n, a subset of rows, no weights, a Fortran-ordered X; X itself is left unchanged
    from dppack.erm._losses import weighted_gram

    rng = np.random.default_rng(11)
    X = np.asfortranarray(rng.normal(size=(1000, 4)))
    before = X.copy()
    w = rng.uniform(0, 2, size=1000)
    np.testing.assert_allclose(weighted_gram(X, w, block=64), (X.T * w) @ X, rtol=1e-12)
    rows = np.flatnonzero(w > 1)
    np.testing.assert_allclose(weighted_gram(X, w, rows, block=64),
                               (X[rows].T * w[rows]) @ X[rows], rtol=1e-12)
    np.testing.assert_allclose(weighted_gram(X), X.T @ X, rtol=1e-12)
    G = weighted_gram(X, w)
    assert np.array_equal(G, G.T) and np.array_equal(X, before)


def test_weighted_gram_of_all_rows_reads_slices_with_the_same_bits():
    # All rows of a C-ordered X (the fits' Hessians) are read as slices, not gathered copies
    # (issue 14, item 5): the same blocks, so the same bits as the gathered rows, a last block
    # shorter than the others included; X (read-only) is never written.
    from dppack.erm._losses import weighted_gram

    rng = np.random.default_rng(12)
    X = rng.normal(size=(1000, 5))
    X.flags.writeable = False
    w = rng.uniform(0, 2, size=1000)
    every = np.arange(1000)
    for weights in (w, None):
        for block in (64, 300, 8192):
            G = weighted_gram(X, weights, block=block)
            assert np.array_equal(G, weighted_gram(X, weights, every, block=block))
            direct = X.T @ X if weights is None else (X.T * weights) @ X
            np.testing.assert_allclose(G, direct, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Privacy assumptions the framework enforces (issue 11, items 8-9)
# --------------------------------------------------------------------------------------------

OUTPUT_GRADIENT = "perturbation_method 'output' needs mapXy_gr, loss_gr and regularizer_gr"
NOT_CONVERGED = "did not reach a minimiser to the required tolerance"


def _logistic_gradient_scaled(model, X, y, U, L):
    """||grad J|| at an eps = Inf LogisticRegressionDP fit, in the scaled problem it solved."""
    design = dppack.erm._design.prepare_design(X, y, U, L, False, scale="l2")
    Xs, n = design["X"], X.shape[0]
    theta = model.coeff * design["scale"]
    s = 1 / (1 + np.exp(-Xs @ theta))
    return np.linalg.norm(Xs.T @ (s - y) / n + model.gamma / n * theta)


def test_output_perturbation_needs_the_gradient_functions():
    """Output perturbation's noise covers a minimiser certified by its gradient: without the
    three gradient functions a private output fit is refused, before anything is drawn."""
    X, y, U, L = _toy(n=30, p=2, seed=50)
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    plain = EmpiricalRiskMinimizationDP_CMS(mapXy_sigmoid, loss_cross_entropy, "l2", 1.0, 1.0,
                                            "output")
    with pytest.raises(ValueError, match=OUTPUT_GRADIENT):
        plain.fit(X, y, U, L, random_state=rng)
    user_regularizer = LogisticRegressionDP(lambda t: float(t @ t) / 2, 1.0, 1.0, "output")
    with pytest.raises(ValueError, match=OUTPUT_GRADIENT):
        user_regularizer.fit(X, y, U, L, random_state=rng)
    assert rng.bit_generator.state == state and plain.coeff is None
    # not needed without noise, nor for objective perturbation (checked by differences)
    EmpiricalRiskMinimizationDP_CMS(mapXy_sigmoid, loss_cross_entropy, "l2", math.inf, 1.0,
                                    "output").fit(X, y, U, L)
    objective = LogisticRegressionDP(lambda t: float(t @ t) / 2, 1.0, 1.0)
    assert objective.fit(X, y, U, L, random_state=1).coeff.shape == (2,)


@pytest.mark.parametrize("n, gamma", [(500, 1e-3), (500, 1.0), (20_000, 100.0)])
def test_released_minimisers_meet_the_optimality_tolerance(n, gamma):
    """||grad J(theta)|| <= 1e-6 / n at every released minimiser: LogisticRegressionDP with
    the built-in (Newton-polished) path and with a user regularizer (L-BFGS-B, then Newton on
    a difference Hessian), which must agree."""
    X, y, U, L = _toy(n=n, p=3, seed=51, bound=2.0)
    built_in = LogisticRegressionDP("l2", math.inf, gamma, "output").fit(X, y, U, L)
    assert built_in.optimality_tolerance_ == pytest.approx(1e-6 / n, rel=1e-15)
    assert _logistic_gradient_scaled(built_in, X, y, U, L) <= 1e-6 / n
    user = LogisticRegressionDP(lambda t: float(t @ t) / 2, math.inf, gamma, "output",
                                regularizer_gr=lambda t: np.asarray(t)).fit(X, y, U, L)
    assert _logistic_gradient_scaled(user, X, y, U, L) <= 1e-6 / n
    # (gamma/n)-strong convexity: both within 1e-6 / gamma of the minimiser (scaled units)
    scale = dppack.erm._design.prepare_design(X, y, U, L, False, scale="l2")["scale"]
    assert np.linalg.norm((built_in.coeff - user.coeff) * scale) <= 2e-6 / gamma


def test_a_fit_short_of_the_tolerance_is_refused(monkeypatch):
    """A loose solver (planted: L-BFGS-B stopping early, no Newton polish) must not release:
    the fit raises, draws no output noise and leaves coeff unset."""
    X, y, U, L = _toy(n=400, p=3, seed=52)
    monkeypatch.setattr(dppack.erm._solvers._smooth, "LBFGS_OPTIONS",
                        {**dppack.erm._solvers._smooth.LBFGS_OPTIONS, "gtol": 1e-3, "ftol": 1e-4})
    monkeypatch.setattr(dppack.erm._solvers._smooth, "newton_polish",
                        lambda grad, hess, theta, gtol, step: (
                            theta, float(np.linalg.norm(grad(theta)))))
    rng = np.random.default_rng(4)
    state = rng.bit_generator.state
    for model in (LogisticRegressionDP(lambda t: float(t @ t) / 2, 1.0, 0.5, "output",
                                       regularizer_gr=lambda t: np.asarray(t)),
                  EmpiricalRiskMinimizationDP_CMS(
                      mapXy_sigmoid, loss_cross_entropy, "l2", 1.0, 0.5, "output",
                      mapXy_gr=mapXy_gr_sigmoid, loss_gr=loss_gr_cross_entropy)):
        with pytest.raises(RuntimeError, match=NOT_CONVERGED):
            model.fit(X, y, U, L, random_state=rng)
        assert model.coeff is None
    assert rng.bit_generator.state == state


def test_a_nonsmooth_loss_is_refused_not_released_with_a_warning():
    """The hinge loss (not differentiable, outside the theorems) has no gradient-zero
    minimiser: the fit raises instead of releasing an uncertified point with a warning."""
    X, y, U, L = _toy(n=200, p=2, seed=53)
    labels = 2 * y - 1

    def hinge(y_hat, yy):
        return np.maximum(0.0, 1.0 - np.asarray(yy) * np.asarray(y_hat))

    def hinge_gr(y_hat, yy):
        yy = np.asarray(yy)
        return np.where(yy * np.asarray(y_hat) < 1.0, -yy, 0.0)

    model = EmpiricalRiskMinimizationDP_CMS(mapXy_linear, hinge, "l2", 1.0, 0.1, "output",
                                            mapXy_gr=mapXy_gr_linear, loss_gr=hinge_gr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a warning
        with pytest.raises(RuntimeError, match=NOT_CONVERGED):
            model.fit(X, labels, U, L, random_state=1)


def _huber_cms(eps, gamma, method="output"):
    return EmpiricalRiskMinimizationDP_CMS(
        mapXy_linear, generate_loss_huber(0.5), "l2", eps, gamma, method, c=1.0,
        mapXy_gr=mapXy_gr_linear, loss_gr=generate_loss_gr_huber(0.5))


def test_base_class_calibrates_to_the_row_norm_its_bounds_allow():
    """Bounds +-1 in 3 columns allow rows of norm B = sqrt(3). Neighbouring data sets then
    move the exact minimiser by 2 B / gamma, more than DPpack's 2 / gamma: here all margins
    are on the Huber loss's linear piece, so theta* = sum_i y_i x_i / gamma exactly, and
    replacing x = (1, 1, 1) by -x moves it by 2 sqrt(3) / gamma."""
    gamma, n = 100.0, 5
    rng = np.random.default_rng(54)
    X = rng.uniform(-1, 1, size=(n, 3))
    X[-1] = 1.0
    labels = np.ones(n)
    X2 = X.copy()
    X2[-1] = -1.0
    U, L = [1.0] * 3, [-1.0] * 3
    a = _huber_cms(math.inf, gamma).fit(X, labels, U, L).coeff
    b = _huber_cms(math.inf, gamma).fit(X2, labels, U, L).coeff
    np.testing.assert_allclose(a, X.T @ labels / gamma, rtol=1e-9)
    moved = np.linalg.norm(a - b)
    assert moved == pytest.approx(2 * math.sqrt(3) / gamma, rel=1e-9)
    assert moved > 2 / gamma  # DPpack's sensitivity is exceeded
    rate = dppack.erm.cms.output_perturbation_rate(gamma, 1.0, 1.0, math.sqrt(3))
    assert moved <= 1.0 / rate  # ours covers it: rate = eps / Delta2, eps = 1


def test_base_class_noise_law_with_row_norm_bound():
    """Output noise: per-coordinate Laplace of scale sqrt(d) S / eps with
    S = 2 B (1 + tau) / gamma, B = sqrt(3) (KS, false failure 0.001); objective
    perturbation's eps' uses c B^2 (at eps_1)."""
    X, y, U, L = _toy(n=20, p=3, seed=55, bound=1.0)
    labels = 2 * y - 1
    eps, gamma, fits = 1.0, 4.0, 800
    exact = _huber_cms(math.inf, gamma).fit(X, labels, U, L).coeff
    model = _huber_cms(eps, gamma)
    rng = np.random.default_rng(SEED + 5)
    coeffs = np.array([model.fit(X, labels, U, L, random_state=rng).coeff
                       for _ in range(fits)])
    noise = np.ldexp(_grid_noise(coeffs, exact, model.release_grid_), model.release_grid_)
    S = 2 * math.sqrt(3) * (1 + TAU) / gamma  # L2 sensitivity with B = sqrt(3)
    assert stats.kstest(noise.ravel(), stats.laplace(scale=math.sqrt(3) * S / eps).cdf
                        ).pvalue > ALPHA
    gamma = 20.0
    objective = _huber_cms(eps, gamma, "objective").fit(X, labels, U, L, random_state=1)
    c = 1.0 * 3  # c B^2
    eps_1 = eps * (1 - 2 ** -10)  # eps_1 of approximate minima perturbation
    assert objective.eps_prime_ == pytest.approx(
        eps_1 - math.log(1 + 2 * c / gamma + (c / gamma) ** 2), rel=1e-12)
    # rows of norm <= 1: DPpack's calibration, unchanged
    X1, y1, U1, L1 = _toy(n=20, p=3, seed=55)
    unit = _huber_cms(eps, gamma, "objective").fit(X1, 2 * y1 - 1, U1, L1, random_state=1)
    assert unit.eps_prime_ == pytest.approx(eps_1 - math.log(1 + 2 / gamma + 1 / gamma ** 2),
                                            rel=1e-12)


def test_base_class_objective_noise_rate_uses_the_row_norm_bound():
    """Objective perturbation's b, recovered from the first-order condition at the fit, has
    norm ~ Gamma(d, eps' / (2B)) with B = sqrt(3) (Chaudhuri et al. Thm 9 for rows of norm
    <= B; KS, false failure 0.001)."""
    X, y, U, L = _toy(n=20, p=3, seed=56, bound=1.0)
    labels = 2 * y - 1
    eps, gamma, n = 1.0, 20.0, 20
    model = _huber_cms(eps, gamma, "objective")
    gradient = generate_loss_gr_huber(0.5)
    rng = np.random.default_rng(SEED + 6)
    b = []
    for _ in range(500):
        theta = model.fit(X, labels, U, L, random_state=rng).coeff
        b.append(-(X.T @ gradient(X @ theta, labels) + gamma * theta
                   + n * model.Delta_ * theta))
    rate = model.eps_prime_ / (2 * math.sqrt(3))
    norms = np.linalg.norm(np.array(b), axis=1)
    assert stats.kstest(norms, stats.gamma(3, scale=1 / rate).cdf).pvalue > ALPHA


def test_attributes_assigned_after_construction_get_the_constructors_checks_at_fit():
    """The attributes are public (DPpackPy's R fields are bindings onto them): a fit checks
    the functions and the kernel again, with the constructor's messages, and resolves an
    assigned 'l2' to DPpack's pair, as the constructor does."""
    X, y, U, L = _toy(n=40, p=2, seed=57)
    model = LogisticRegressionDP("l2", 1.0, 1.0)
    model.regularizer = "l1"
    with pytest.raises(ValueError, match=r"^regularizer must be one of \{'l2'\}, or a function"):
        model.fit(X, y, U, L, random_state=1)
    model.regularizer = "l2"
    model.fit(X, y, U, L, random_state=1)
    assert model.regularizer is regularizer_l2 and model.regularizer_gr is regularizer_gr_l2
    base = EmpiricalRiskMinimizationDP_CMS(mapXy_sigmoid, loss_cross_entropy, "l2", 1.0, 1.0,
                                          c=0.25)
    base.loss = 3.0
    with pytest.raises(ValueError, match="^loss must be a function"):
        base.fit(X, y, U, L, random_state=1)
    svm = svmDP("l2", 1.0, 1.0)
    svm.kernel = "polynomial"
    with pytest.raises(ValueError, match=r"^kernel must be one of \{'linear', 'Gaussian'\}"):
        svm.fit(X, y, U, L, random_state=1)


def test_standard_noise_release_is_the_rounded_laplace_on_the_grid():
    # StandardNoise (stability-based validation): the release noise is round(L t / s) in
    # grid units, on the grid of the fit's own sensitivity and eps; deterministic.
    from dppack.erm import _approximate as approximate
    from dppack.erm.cms import StandardNoise
    x, S, eps = np.array([0.3, -1.7, 0.0]), 0.25, 0.5
    L = np.array([0.4, -2.2, 1e-9])
    k, _, t, s = approximate.release_grid(S, eps, 3)
    out = approximate.release(x, S, eps, None, standard=L)
    expected = np.ldexp(np.rint(np.ldexp(x, -k)) + np.rint(L * (t / s)), k)
    np.testing.assert_array_equal(out, expected)
    # the scale t / s in grid units is sqrt(d) S / eps rounded up by less than 2^-19
    assert 1 <= np.ldexp(t / s, k) / (math.sqrt(3) * S / eps) < 1 + 2 ** -19
    # R first (the l2-Laplace law, as before), then L: d standard Laplace values (KS)
    draws = [StandardNoise.draw(4, np.random.default_rng(i)) for i in range(600)]
    assert stats.kstest(np.concatenate([d.coordinates for d in draws]),
                        stats.laplace.cdf).pvalue > ALPHA
    rng = np.random.default_rng(3)
    noise = StandardNoise.draw(4, rng)
    again = np.random.default_rng(3)
    np.testing.assert_array_equal(noise.vector, dppack._random.l2_laplace(4, 1.0, again))
    np.testing.assert_array_equal(noise.coordinates, dppack._random.laplace(1.0, 4, again))


def test_budget_split_and_radius():
    from dppack.erm import _approximate as approximate
    eps_1, eps_2 = approximate.split_budget(2.0)
    assert eps_1 + eps_2 == 2.0 and eps_2 == 2.0 / 1024
    assert approximate.split_budget(math.inf) == (math.inf, math.inf)
    eps_1, eps_2 = approximate.split_budget(1.0, 0.1 ** 1.5)  # q^(2/3) = 0.1
    assert eps_2 / eps_1 == pytest.approx(0.1)
    assert approximate.strongly_convex_radius(1e-6, 0.5) == 2e-6
    # sigma = 12 rho^2 / m: sqrt(rho^2 + 24 rho^2) = 5 rho, r = 6 rho / m
    assert approximate.constrained_radius(1e-6, 12e-12 / 2.0, 2.0) == pytest.approx(3e-6)
