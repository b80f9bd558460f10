"""Tests of the KST framework and LinearRegressionDP (DPpack's EmpiricalRiskMinimizationDP.KST and
LinearRegressionDP, and their optimiser's stop).

What is checked:

* validation: DPpack's messages (regularizer, bound lengths) and ours (eps, delta, gamma, NaN/Inf
  data, bound order, lengths, predicting before fit or with the wrong number of columns,
  domain), all raised before any random number is drawn;
* the noise laws, calibrated for replace-one neighbours (guide: erm-derivations.rst): with
  eps_b = eps - log(1 + eps/2), for delta = 0 the norm of b is Gamma(p, rate eps_b/(2 zeta))
  and its direction uniform; for delta > 0 b ~ N(0, sigma^2 I) with
  sigma = 2 zeta sqrt(2 (ln(2/delta) + eps_b))/eps_b (Kolmogorov-Smirnov); the calibration
  against these formulas and its privacy budget (Jacobian share + noise share = eps, the
  Gaussian tail condition) in closed form;
* eps = Inf: no noise, also with delta > 0 (DPpack crashes there);
* the solution: equal to independent closed-form solutions of the same objective (ridge, with
  and without noise, constraint inactive), to DPpack's eps = Inf example (close to OLS), to an
  independent solution on the boundary when the constraint is active (trust-region secular
  equation), to a box-constrained least-squares solution for a user domain with vector
  constraints, and to a very tight unconstrained solve for a non-quadratic loss with R-style
  n x 1 user functions;
* the scaling round trip, caller data left untouched, reproducibility, RuntimeError when the
  solver cannot find a feasible optimum, the lazy import of scipy.optimize.

Statistical tests run at level ALPHA = 0.001 with fixed seeds, so they are deterministic; under
a fresh seed each would fail falsely (reject a correct implementation) with probability 0.001.
"""

import subprocess
import sys

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from dppack import PrivacyLoss
from dppack.erm._kst_framework import _calibration
from dppack.erm.kst import EmpiricalRiskMinimizationDP_KST, LinearRegressionDP

ALPHA = 0.001  # false-failure probability of each statistical test under a fresh seed
REGULARIZER_MESSAGE = r"^regularizer must be one of \{'l2'\}, or a function\.$"


def _data(n=200, seed=0, k=1, add_bias=True, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, k))
    beta = np.linspace(0.5, -0.4, k)
    y = (-0.3 if add_bias else 0.0) + X @ beta + rng.normal(0, noise, n)
    return X, y


BOUNDS_UPPER = [1, 2]
BOUNDS_LOWER = [-1, -2]


def _scaled_problem(X, y, upper, lower, add_bias):
    """DPpack's LinearRegressionDP scaling, computed independently of the implementation."""
    upper = np.asarray(upper, float)
    lower = np.asarray(lower, float)
    k = X.shape[1]
    Xc = np.clip(X, lower[:k], upper[:k])
    yc = np.clip(y, lower[k], upper[k])
    s = np.maximum(np.abs(lower[:k]), np.abs(upper[:k]))
    if add_bias:
        Xc = np.column_stack([np.ones(len(y)), Xc])
        s = np.concatenate([[1.0], s])
    p = Xc.shape[1]
    if add_bias:
        shift, scale = (lower[k] + upper[k]) / 2, (upper[k] - lower[k]) / (2 * p)
    else:
        shift, scale = 0.0, max(abs(lower[k]), abs(upper[k])) / p
    return Xc / s, (yc - shift) / scale, s, shift, scale


def _unscale(theta, s, shift, scale, add_bias):
    coeff = theta * scale / s
    if add_bias:
        coeff[0] += shift
    return coeff


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _fit_lr(model=None, **kwargs):
    X, y = _data(20)
    args = dict(X=X, y=y, upper_bounds=BOUNDS_UPPER, lower_bounds=BOUNDS_LOWER, add_bias=True)
    args.update(kwargs)
    return (model or LinearRegressionDP("l2", 1, 0, 1)).fit(**args)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: LinearRegressionDP("l1", 1, 0, 1), REGULARIZER_MESSAGE),
        (lambda: LinearRegressionDP(3, 1, 0, 1), REGULARIZER_MESSAGE),
        (lambda: LinearRegressionDP("l2", 0, 0, 1), "eps must be a scalar > 0"),
        (lambda: LinearRegressionDP("l2", -1, 0, 1), "eps must be a scalar > 0"),
        (lambda: LinearRegressionDP("l2", "a", 0, 1), "eps must be a scalar > 0"),
        (lambda: LinearRegressionDP("l2", 1, -0.1, 1), "delta must be a scalar >= 0"),
        (lambda: LinearRegressionDP("l2", 1, 1, 1), r"delta must be < 1\."),
        (lambda: LinearRegressionDP("l2", 1, 0, 0), "gamma must be a scalar > 0"),
        (lambda: LinearRegressionDP("l2", 1, 0, -1), "gamma must be a scalar > 0"),
        (lambda: EmpiricalRiskMinimizationDP_KST(
            lambda X, c: X @ c, lambda yh, y: (yh - y) ** 2, "l2", 1, 0,
            {"jacobian": lambda c: c}, 1, 1, 1), "domain must have a function 'constraints'"),
        (lambda: EmpiricalRiskMinimizationDP_KST(
            lambda X, c: X @ c, lambda yh, y: (yh - y) ** 2, "l2", 1, 0,
            {"constraints": lambda c: c @ c - 1}, 0, 1, 1), "zeta must be a scalar > 0"),
        (lambda: EmpiricalRiskMinimizationDP_KST(
            lambda X, c: X @ c, lambda yh, y: (yh - y) ** 2, "l2", 1, 0,
            {"constraints": lambda c: c @ c - 1}, 1, 1, -1), "gamma must be a scalar >= 0"),
    ],
)
def test_constructor_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


X20, Y20 = _data(20)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(upper_bounds=[1, 2, 3]), r"^Length of upper_bounds must be equal to the number "
         r"of columns of X plus 1 \(for y\)\.$"),
        (dict(upper_bounds=[1]), r"^Length of upper_bounds must be equal"),
        (dict(lower_bounds=[-1]), r"^Length of lower_bounds must be equal to the number "
         r"of columns of X plus 1 \(for y\)\.$"),
        (dict(upper_bounds=[1, 2, 3], lower_bounds=[-1]), r"^Length of upper_bounds"),
        (dict(upper_bounds=[1, np.inf]), "must be finite"),
        (dict(lower_bounds=[1, -2]), r"lower_bounds must be < upper_bounds in every column "
         r"\(not in column 1\)\.$"),
        (dict(lower_bounds=[-1, 2]), r"^The bounds on y \(the last values of lower_bounds and "
         r"upper_bounds\) must be finite with lower < upper\.$"),
        (dict(X=np.where(np.arange(20)[:, None] == 3, np.nan, X20)), r"X must be finite"),
        (dict(y=np.where(np.arange(20) == 3, np.inf, Y20)), r"y must be finite"),
        (dict(y=Y20[:-1]), "y must have one value per row of X: X has 20 rows, y has 19"),
        (dict(X=np.array(["a"] * 20)), "X must be a numeric matrix or data frame"),
        (dict(add_bias="yes"), "add_bias must be True or False"),
    ],
)
def test_fit_errors_draw_no_noise(kwargs, message):
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=message):
        _fit_lr(random_state=rng, **kwargs)
    assert rng.bit_generator.state == state


def test_parameters_changed_after_construction_are_checked_at_fit():
    model = LinearRegressionDP("l2", 1, 0, 1)
    model.delta = -1
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="delta must be a scalar >= 0"):
        _fit_lr(model, random_state=rng)
    assert rng.bit_generator.state == state


def test_predict_errors():
    model = LinearRegressionDP("l2", 1, 0, 1)
    with pytest.raises(ValueError, match="must be fitted before predict"):
        model.predict(X20)
    _fit_lr(model, random_state=1)
    with pytest.raises(ValueError, match=r"^X has 3 columns \(counting the bias column added "
                       r"by add_bias\); the model was fitted on 2\.$"):
        model.predict(np.ones((3, 2)), add_bias=True)
    with pytest.raises(ValueError, match=r"^X has 1 columns; the model was fitted on 2\.$"):
        model.predict(np.ones((3, 1)), add_bias=False)
    assert model.predict(np.ones((3, 1)), add_bias=True).shape == (3,)
    assert model.predict(np.ones((3, 1))).shape == (3,)  # add_bias None: as fitted


# --------------------------------------------------------------------------------------------
# Noise laws
# --------------------------------------------------------------------------------------------


class _NoSolve(LinearRegressionDP):
    """Skips the solver (an override of the private step): only the noise is of interest."""

    def _optimize_coeff(self, X, y, noise, Delta):
        return np.zeros(X.shape[1])


def _noises(delta, eps, n_fits, k=2, seed=11):
    rng = np.random.default_rng(seed)
    X, y = _data(10, k=k)
    model = _NoSolve("l2", eps, delta, 1)
    out = []
    for _ in range(n_fits):
        model.fit(X, y, [1] * k + [2], [-1] * k + [-2], add_bias=True, random_state=rng)
        out.append(model._noise)
    return np.array(out), model


def _eps_b(eps):
    # what the Jacobian (1 + lambda/Delta = 1 + eps/2) leaves to the noise
    return eps - np.log(1 + eps / 2)


def _sigma(eps, delta, zeta):
    return 2 * zeta * np.sqrt(2 * (np.log(2 / delta) + _eps_b(eps))) / _eps_b(eps)


def test_pure_dp_noise_norm_is_gamma_and_direction_uniform():
    eps = 0.7
    noise, model = _noises(0, eps, 4000)
    p = 3
    zeta = 2 * p ** 1.5
    assert model.zeta == zeta and model.lambda_ == p
    norms = np.linalg.norm(noise, axis=1)
    # KS at level ALPHA: false failure probability 0.001 under a fresh seed.
    assert stats.kstest(norms, stats.gamma(a=p, scale=2 * zeta / _eps_b(eps)).cdf).pvalue > ALPHA
    # DPpack's norm (rate eps/(2 zeta), private only for add/remove neighbours) is rejected.
    assert stats.kstest(norms, stats.gamma(a=p, scale=2 * zeta / eps).cdf).pvalue < ALPHA
    # For p = 3 each coordinate of a uniform direction is Uniform(-1, 1) (Archimedes); KS at
    # level ALPHA: false failure probability 0.001.
    assert stats.kstest(noise[:, 0] / norms, stats.uniform(-1, 2).cdf).pvalue > ALPHA


def test_approximate_dp_noise_is_gaussian_with_the_stated_sigma():
    eps, delta = 0.5, 0.01
    noise, model = _noises(delta, eps, 2000)
    zeta = 2 * 3 ** 1.5
    # KS on all coordinates (independent) at level ALPHA: false failure probability 0.001.
    assert stats.kstest(noise.ravel(), stats.norm(0, _sigma(eps, delta, zeta)).cdf).pvalue > ALPHA


def test_noise_law_check_has_power():
    # The same KS test rejects a sigma 10% too small (a sanity check of the test's power).
    eps, delta = 0.5, 0.01
    noise, _ = _noises(delta, eps, 2000)
    sigma = _sigma(eps, delta, 2 * 3 ** 1.5)
    assert stats.kstest(noise.ravel(), stats.norm(0, 0.9 * sigma).cdf).pvalue < ALPHA


@pytest.mark.parametrize("eps", [0.01, 0.3, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("zeta, lambda_", [(2.0, 1.0), (5.0, 0.25), (1.0, 0.0)])
def test_calibration_formulas_and_budget(eps, zeta, lambda_):
    # Kifer et al. 2012 (Algorithm 1): Delta = 2 lambda/eps; the Jacobian costs
    # log(1 + lambda/Delta) (0 when lambda = 0) and the noise the rest, for the gradient shift
    # 2 zeta of a replaced record (guide: erm-derivations.rst).
    Delta, rate = _calibration(eps, 0.0, zeta, lambda_)
    assert Delta == pytest.approx(2 * lambda_ / eps, rel=1e-15)
    eps_jacobian = np.log(1 + lambda_ / Delta) if lambda_ > 0 else 0.0
    assert eps_jacobian <= eps / 2
    # pure: the noise ratio at shift 2 zeta, exp(rate 2 zeta), and the Jacobian make exactly eps
    assert rate * 2 * zeta + eps_jacobian == pytest.approx(eps, rel=1e-12)
    assert rate == pytest.approx((eps - eps_jacobian) / (2 * zeta), rel=1e-12)
    if lambda_ > 0:  # strictly more noise than DPpack's rate eps/(2 zeta)
        assert rate < eps / (2 * zeta)
    for delta in (1e-9, 1e-5, 0.01, 0.5):
        Delta_g, sigma = _calibration(eps, delta, zeta, lambda_)
        assert Delta_g == Delta
        e = eps - eps_jacobian
        L = np.log(2 / delta)
        assert sigma == pytest.approx(2 * zeta * np.sqrt(2 * (L + e)) / e, rel=1e-12)
        # The Gaussian tail condition at sensitivity 2 zeta: v^2/2 + v sqrt(2L) <= share.
        v = 2 * zeta / sigma
        assert v ** 2 / 2 + v * np.sqrt(2 * L) <= e * (1 + 1e-12)
        # Kifer et al.'s sigma is the same formula at sensitivity zeta and share eps/2.
        kst = zeta * np.sqrt(8 * L + 4 * eps) / eps
        assert kst == pytest.approx(zeta * np.sqrt(2 * (L + eps / 2)) / (eps / 2), rel=1e-12)
        if lambda_ > 0:
            assert sigma > kst


@pytest.mark.parametrize("delta", [0, 0.01])
def test_eps_inf_means_no_noise(delta):
    X, y = _data(100)
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    model = LinearRegressionDP("l2", np.inf, delta, 1).fit(
        X, y, BOUNDS_UPPER, BOUNDS_LOWER, add_bias=True, random_state=rng)
    assert np.all(model._noise == 0)
    assert rng.bit_generator.state == state  # nothing drawn
    reference = LinearRegressionDP("l2", np.inf, 0, 1).fit(
        X, y, BOUNDS_UPPER, BOUNDS_LOWER, add_bias=True)
    np.testing.assert_array_equal(model.coeff, reference.coeff)


# --------------------------------------------------------------------------------------------
# The solution
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("add_bias", [True, False])
@pytest.mark.parametrize("gamma", [1e-4, 1, 30])
def test_non_private_fit_equals_ridge_of_the_same_objective(add_bias, gamma):
    X, y = _data(300, seed=2, k=3, add_bias=add_bias)
    upper, lower = [1, 1.5, 1, 2.5], [-1, -1, -1.2, -2]
    model = LinearRegressionDP("l2", np.inf, 0, gamma).fit(X, y, upper, lower, add_bias=add_bias)
    Xs, ys, s, shift, scale = _scaled_problem(X, y, upper, lower, add_bias)
    p = Xs.shape[1]
    theta = np.linalg.solve(Xs.T @ Xs + gamma * np.eye(p), Xs.T @ ys)
    assert theta @ theta < p  # the constraint is inactive
    np.testing.assert_allclose(model.coeff, _unscale(theta, s, shift, scale, add_bias),
                               rtol=1e-6)


@pytest.mark.parametrize("delta", [0, 1e-3])
def test_private_fit_equals_closed_form_with_its_noise(delta):
    # With noise b and Delta = 2 lambda/eps_1 = 2p/eps_1: theta = (X'X + (gamma + Delta) I)^-1
    # (X'y - b) in the scaled problem, as long as the constraint is inactive; the release
    # adds per-coordinate Laplace noise of scale sqrt(p) S / eps_2 on the grid
    # (approximate minima perturbation), |noise| < 30 scales (false failure 3 e^-30).
    X, y = _data(5000, seed=4, k=2)
    upper, lower = [1, 1, 2], [-1, -1, -2]
    eps, gamma = 50.0, 1.0
    model = LinearRegressionDP("l2", eps, delta, gamma).fit(
        X, y, upper, lower, add_bias=True, random_state=8)
    Xs, ys, s, shift, scale = _scaled_problem(X, y, upper, lower, True)
    p = Xs.shape[1]
    eps_1 = eps - model.release_eps_
    assert model.Delta_ == pytest.approx(2 * p / eps_1, rel=1e-12)
    Delta = 2 * p / eps_1
    theta = np.linalg.solve(Xs.T @ Xs + (gamma + Delta) * np.eye(p), Xs.T @ ys - model._noise)
    assert theta @ theta < p
    released = model.coeff.copy()
    released[0] -= shift
    released = released * s / scale  # back to the scaled problem
    bound = 30 * math.sqrt(p) * model.release_sensitivity_ / model.release_eps_
    assert np.all(np.abs(released - theta) < bound)
    assert model.privacy_ == PrivacyLoss.approx(eps, delta)


def test_spec_sanity_example_close_to_ols():
    rng = np.random.default_rng(42)
    x = rng.uniform(-1, 1, 500)
    y = -0.3 + 0.5 * x + rng.normal(0, 0.1, 500)
    model = LinearRegressionDP("l2", np.inf, 0, 1e-4).fit(
        x[:, None], y, BOUNDS_UPPER, BOUNDS_LOWER, add_bias=True)
    ols = np.linalg.lstsq(np.column_stack([np.ones(500), x]), y, rcond=None)[0]
    np.testing.assert_allclose(model.coeff, ols, atol=1e-4)
    np.testing.assert_allclose(model.coeff, [-0.3, 0.5], atol=0.03)
    np.testing.assert_allclose(model.predict(x[:, None], add_bias=True),
                               ols[0] + ols[1] * x, atol=1e-4)


def _boundary_solution(A, c, radius2):
    """argmin theta'A theta/2 - c'theta over ||theta||^2 <= radius2, A positive definite, when
    the unconstrained optimum lies outside: theta(mu) = (A + mu I)^-1 c with ||theta(mu)||^2 =
    radius2 (the secular equation of the trust-region subproblem), mu found by brentq."""
    eye = np.eye(len(c))

    def excess(mu):
        theta = np.linalg.solve(A + mu * eye, c)
        return theta @ theta - radius2

    assert excess(0) > 0
    high = 1.0
    while excess(high) > 0:
        high *= 2
    mu = optimize.brentq(excess, 0, high, xtol=1e-15, rtol=1e-15)
    return np.linalg.solve(A + mu * eye, c)


def test_active_constraint_solution_on_the_boundary():
    # Features with a small range inside wide bounds: the scaled coefficients are large, so
    # the unconstrained optimum lies outside the ball ||theta||^2 <= p.
    rng = np.random.default_rng(9)
    n = 400
    X = rng.uniform(-0.1, 0.1, size=(n, 2))
    y = 4 * X[:, 0] - 3 * X[:, 1] + rng.normal(0, 0.01, n)
    upper, lower = [1, 1, 1], [-1, -1, -1]
    gamma = 0.5
    model = LinearRegressionDP("l2", np.inf, 0, gamma).fit(X, y, upper, lower)
    Xs, ys, s, shift, scale = _scaled_problem(X, y, upper, lower, False)
    p = 2
    A = Xs.T @ Xs + gamma * np.eye(p)
    theta = _boundary_solution(A, Xs.T @ ys, p)
    np.testing.assert_allclose(model.coeff, _unscale(theta, s, shift, scale, False), rtol=1e-6)
    theta_fit = model.coeff * s / scale
    assert theta_fit @ theta_fit == pytest.approx(p, rel=1e-8)


def _squared(X, coeff):
    return (X @ coeff).reshape(-1, 1)  # R-style n x 1 matrix


def test_user_domain_with_vector_constraints_matches_bounded_least_squares():
    # Base class, user functions, a box domain theta <= 0.1 (vector constraint, matrix jacobian).
    X, y = _data(300, seed=6, k=3, add_bias=False)
    gamma = 2.0
    model = EmpiricalRiskMinimizationDP_KST(
        _squared, lambda yh, y: (yh - y) ** 2 / 2, "l2", np.inf, 0,
        {"constraints": lambda c: c - 0.1, "jacobian": lambda c: np.eye(c.size)},
        1.0, 1.0, gamma,
        mapXy_gr=lambda X, c: X.T, loss_gr=lambda yh, y: yh - y,
    ).fit(X, y, [1, 1, 1, 5], [-1, -1, -1, -5])
    n = len(y)
    A = np.vstack([X, np.sqrt(gamma) * np.eye(3)])
    b = np.concatenate([y, np.zeros(3)])
    ref = optimize.lsq_linear(A, b, bounds=(-np.inf, 0.1), tol=1e-14, method="bvls").x
    assert np.any(np.isclose(ref, 0.1))  # a constraint is active
    np.testing.assert_allclose(model.coeff, ref, rtol=1e-6, atol=1e-9)
    assert np.all(model.coeff <= 0.1 + 1e-9)
    np.testing.assert_allclose(model.predict(X), X @ model.coeff)
    assert n == 300


def test_generic_non_quadratic_loss_converges_to_tolerance():
    # Logistic loss through the generic path, large ball (inactive): compare with a very
    # tight-tolerance unconstrained BFGS solve of the same objective.
    rng = np.random.default_rng(12)
    n = 400
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ [1.5, -1, 0.5])))).astype(float)
    sig = lambda t: 1 / (1 + np.exp(-t))  # noqa: E731
    gamma = 1.0
    model = EmpiricalRiskMinimizationDP_KST(
        lambda X, c: sig(X @ c),
        lambda yh, y: -(y * np.log(yh) + (1 - y) * np.log(1 - yh)),
        "l2", np.inf, 0,
        {"constraints": lambda c: c @ c - 100, "jacobian": lambda c: 2 * c},
        1.0, 0.25, gamma,
        mapXy_gr=lambda X, c: (X * (sig(X @ c) * (1 - sig(X @ c)))[:, None]).T,
        loss_gr=lambda yh, y: -y / yh + (1 - y) / (1 - yh),
    ).fit(X, y, [1, 1, 1, 1], [-1, -1, -1, 0])

    def objective(c):
        t = X @ c
        return (np.sum(np.logaddexp(0, t) - y * t) + gamma * c @ c / 2) / n

    def gradient(c):
        return (X.T @ (sig(X @ c) - y) + gamma * c) / n

    ref = optimize.minimize(objective, np.zeros(3), jac=gradient, method="BFGS",
                            options={"gtol": 1e-13}).x
    assert ref @ ref < 100
    np.testing.assert_allclose(model.coeff, ref, rtol=1e-6)


def test_without_gradients_finite_differences_still_solve():
    X, y = _data(300, seed=2, k=2)
    upper, lower = [1, 1, 2], [-1, -1, -2]
    model = LinearRegressionDP(lambda c: c @ c / 2, np.inf, 0, 1).fit(X, y, upper, lower,
                                                                      add_bias=True)
    Xs, ys, s, shift, scale = _scaled_problem(X, y, upper, lower, True)
    theta = np.linalg.solve(Xs.T @ Xs + np.eye(3), Xs.T @ ys)
    np.testing.assert_allclose(model.coeff, _unscale(theta, s, shift, scale, True), rtol=1e-4)


def test_user_regularizer_with_gradient():
    X, y = _data(300, seed=3, k=2)
    upper, lower = [1, 1, 2], [-1, -1, -2]
    # R(theta) = sum(theta^2) (twice the l2 regulariser): same as 'l2' with 2 gamma.
    model = LinearRegressionDP(lambda c: np.sum(c ** 2), np.inf, 0, 1,
                               regularizer_gr=lambda c: 2 * c).fit(X, y, upper, lower,
                                                                   add_bias=True)
    reference = LinearRegressionDP("l2", np.inf, 0, 2).fit(X, y, upper, lower, add_bias=True)
    np.testing.assert_allclose(model.coeff, reference.coeff, rtol=1e-6)


def test_infeasible_domain_raises_runtime_error():
    X, y = _data(50, k=1, add_bias=False)
    model = EmpiricalRiskMinimizationDP_KST(
        _squared, lambda yh, y: (yh - y) ** 2 / 2, "l2", np.inf, 0,
        {"constraints": lambda c: 1 + c @ c, "jacobian": lambda c: 2 * c}, 1.0, 1.0, 1.0,
        mapXy_gr=lambda X, c: X.T, loss_gr=lambda yh, y: yh - y)
    with pytest.raises(RuntimeError, match="did not converge to a feasible optimum"):
        model.fit(X, y, [1, 5], [-1, -5])


def test_domain_as_object_with_attributes():
    class Ball:
        @staticmethod
        def constraints(c):
            return c @ c - 4

        @staticmethod
        def jacobian(c):
            return 2 * c

    X, y = _data(100, k=1, add_bias=False)
    model = EmpiricalRiskMinimizationDP_KST(
        _squared, lambda yh, y: (yh - y) ** 2 / 2, "l2", np.inf, 0, Ball(), 1.0, 1.0, 1.0,
        mapXy_gr=lambda X, c: X.T, loss_gr=lambda yh, y: yh - y).fit(X, y, [1, 5], [-1, -5])
    ref = np.linalg.solve(X.T @ X + np.eye(1), X.T @ y)
    np.testing.assert_allclose(model.coeff, ref, rtol=1e-6)


# --------------------------------------------------------------------------------------------
# Scaling, data handling, reproducibility
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("add_bias", [True, False])
def test_scaling_round_trip_recovers_exact_coefficients(add_bias):
    # Noise-free linear data, wide and unequal bounds, negligible gamma: the fitted
    # coefficients in the original units are the true ones.
    rng = np.random.default_rng(1)
    X = rng.uniform(-8, 8, size=(500, 3)) * [1, 0.1, 3]
    beta = np.array([0.2, 3.0, -0.1])
    y = (1.5 if add_bias else 0.0) + X @ beta
    upper = [10, 1, 30, 40]
    lower = [-10, -2, -25, -30]
    model = LinearRegressionDP("l2", np.inf, 0, 1e-10).fit(X, y, upper, lower, add_bias=add_bias)
    expected = np.concatenate([[1.5], beta]) if add_bias else beta
    np.testing.assert_allclose(model.coeff, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict(X, add_bias=add_bias), y, rtol=1e-6, atol=1e-6)


def test_caller_data_untouched_and_pandas_accepted():
    X, y = _data(100, k=2)
    X[0, 0] = 5.0  # clipped inside fit
    X_before, y_before = X.copy(), y.copy()
    model = LinearRegressionDP("l2", 1, 0, 1).fit(X, y, [1, 1, 2], [-1, -1, -2],
                                                  add_bias=True, random_state=4)
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)
    frame = pd.DataFrame(X, columns=["a", "b"])
    same = LinearRegressionDP("l2", 1, 0, 1).fit(frame, pd.Series(y), [1, 1, 2], [-1, -1, -2],
                                                 add_bias=True, random_state=4)
    np.testing.assert_array_equal(model.coeff, same.coeff)
    np.testing.assert_allclose(model.predict(X, add_bias=True),
                               same.predict(frame, add_bias=True), rtol=1e-14)


def test_random_state_reproducible_and_fit_returns_self():
    X, y = _data(100)
    a = LinearRegressionDP("l2", 1, 0, 1)
    assert a.fit(X, y, BOUNDS_UPPER, BOUNDS_LOWER, True, random_state=7) is a
    b = LinearRegressionDP("l2", 1, 0, 1).fit(X, y, BOUNDS_UPPER, BOUNDS_LOWER, True,
                                              random_state=7)
    c = LinearRegressionDP("l2", 1, 0, 1).fit(X, y, BOUNDS_UPPER, BOUNDS_LOWER, True,
                                              random_state=8)
    np.testing.assert_array_equal(a.coeff, b.coeff)
    assert not np.array_equal(a.coeff, c.coeff)


def test_fields_as_dpppack():
    model = LinearRegressionDP("l2", 1, 0.01, 2)
    for name in ("mapXy", "mapXy_gr", "loss", "loss_gr", "regularizer", "regularizer_gr",
                 "gamma", "eps", "delta", "domain", "zeta", "lambda_", "coeff"):
        assert hasattr(model, name)
    assert model.zeta is None and model.lambda_ is None and model.coeff is None
    c = np.array([1.0, 2.0])
    assert float(np.sum(model.domain["constraints"](c))) == 3.0
    np.testing.assert_array_equal(model.domain["jacobian"](c), 2 * c)


def test_exported_and_lazy_about_scipy_optimize():
    code = ("import dppack, sys; dppack.LinearRegressionDP; dppack.EmpiricalRiskMinimizationDP_KST;"
            " dppack.tune_classification_model; dppack.tune_linear_regression_model;"
            " print('scipy.optimize' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_release_noise_law_and_grid():
    # Approximate minima perturbation (dppack.erm._approximate): the released coefficients (in
    # the scaled problem) are g (round(theta~ / g) + Z), theta~ within r = S / 2 of the exact
    # minimiser theta (closed form, constraint inactive), Z per-coordinate discrete Laplace of
    # scale sqrt(p) S / eps_2. KS of the standardised differences against Laplace(1): the
    # solver's error is at most eps_2 / (2 sqrt(p)) < 0.02 of the scale. False failure 0.001.
    X, y = _data(400, seed=6, k=1)
    upper, lower = [1, 2], [-1, -2]
    eps, gamma, fits = 50.0, 1.0, 300
    Xs, ys, s, shift, scale = _scaled_problem(X, y, upper, lower, True)
    p = Xs.shape[1]
    rng = np.random.default_rng(17)
    z = []
    for _ in range(fits):
        model = LinearRegressionDP("l2", eps, 0.0, gamma).fit(X, y, upper, lower,
                                                              add_bias=True, random_state=rng)
        assert model.privacy_ == PrivacyLoss.pure(eps)
        theta = np.linalg.solve(Xs.T @ Xs + (gamma + model.Delta_) * np.eye(p),
                                Xs.T @ ys - model._noise)
        assert theta @ theta < p
        released = model.coeff.copy()
        released[0] -= shift
        released = released * s / scale
        # on the grid before the (data-independent) rescaling, up to its float rounding
        units = np.ldexp(released, -model.release_grid_)
        np.testing.assert_allclose(units, np.rint(units), rtol=0, atol=1e-3)
        z.extend((released - theta) / (math.sqrt(p) * model.release_sensitivity_
                                       / model.release_eps_))
    assert stats.kstest(z, stats.laplace.cdf).pvalue > 0.001
