"""Accuracy-first private ERM (spec ``accuracy_first.md`` §4, §6, §7; Ligett et al. 2017): fit
a model whose excess empirical risk is at most ``alpha`` with probability >= 1 - ``gamma`` and
report the privacy loss actually spent (ex-post), beside two baselines.

* :func:`accuracy_first_erm` — noise reduction + InteractiveAboveThreshold: covariance
  perturbation for ridge regression (COVNR, §6.1), output perturbation for logistic regression
  (OUTPUTNR, §6.2);
* :func:`doubling_erm` — independent fits at doubling eps, each tested by the Laplace
  mechanism (§7.2);
* :func:`theory_erm` — one fit at the eps that a utility theorem promises is enough (§7.1);
* :func:`accuracy_first_parameters` — every sensitivity, calibration and default of the three.

Data follow DPpack's bounds convention: ``upper_bounds``/``lower_bounds`` bound the columns of X
(and, for ridge, y as the last entry); the data are clipped to them and scaled so that the
paper's assumptions hold: ridge rows ||x||_1 <= 1 (column j divided by s_j d, s_j =
max(|L_j|, |U_j|), d columns with the bias) and |y| <= 1 (y divided by max(|L_y|, |U_y|));
logistic rows ||x||_2 <= 1 (column j divided by s_j sqrt(d), as LogisticRegressionDP) and labels
0/1 mapped to -1/+1. ``alpha`` is the excess of the regularised empirical risk
L(theta) = (1/n) sum loss + (lambda/2) ||theta||^2 of that clipped and scaled problem; the
returned ``coeff`` act on the raw X (bias first).

Names: ``eps`` is privacy and ``alpha`` accuracy throughout; ``gamma`` is the failure
probability (not DPpack's regularisation constant) and ``lambda_`` the regularisation weight.

Randomness (through ``_random``): accuracy-first draws the whole noise-reduction path first
(ridge: the p x p matrix path, then the p-vector path; logistic: the coefficient path), then the
AboveThreshold threshold noise, then one query noise per level tested. Doubling draws, per
level, the fit's noise then the test's Laplace noise. Theory draws one fit's noise.

Accounting: the three methods take a trailing ``accountant`` (None: the session's, if any). The
stopping level of accuracy-first and of doubling depends on the data, so the loss they realise
(``eps`` of the result) is an ex-post loss (Ligett et al. 2017, Definitions 2.2-2.3, Lemma
2.8): a bound read off the outcome, not a budget fixed in advance. The accountant is charged
the most the procedure can spend, which bounds the ex-post loss of every outcome and so is an
eps-DP guarantee (the remark after Definition 2.3: E(o) <= eps for all o); it is also what
the check reserves before the data are read. (Ligett et al.'s E is infinite when no level
passes, because their algorithm then outputs theta*; ours returns the last level's hypothesis,
so E stays bounded.) The realised ex-post loss is not what is charged: Ligett et al. prove no
composition of ex-post losses with later releases (they point to the privacy odometers and
filters of Rogers et al. 2016 for that), so recording it in a fixed-budget accountant would
understate what the releases together cost. The result's ``privacy_`` is the loss charged;
``eps`` stays the ex-post loss.
"""

import math
import warnings

import numpy as np

from .. import _checks, _random, accounting
from .above_threshold import (
    InteractiveAboveThreshold,
    above_threshold_calibration,
    check_probability,
)
from ..erm.blocks import weighted_gram
from ..erm.cms import (
    OPTIMALITY_SLACK,
    ConvergenceError,
    as_design_matrix,
    as_labels,
    prepare_design,
)
from .noise_reduction import check_n_levels, laplace_noise_path, privacy_level_grid

__all__ = [
    "AccuracyFirstResult",
    "accuracy_first_erm",
    "accuracy_first_parameters",
    "doubling_erm",
    "theory_erm",
]

MODELS = ("ridge", "logistic")
# Issued when no level passed the accuracy test. This warning is about accuracy, not privacy:
# the returned hypothesis is private (a noise-reduction or doubling release, its eps reported,
# spec §6.1 step 6: never theta*), only not certified accurate (success = False). Unlike an
# unconverged minimiser (which raises), refusing would protect nothing: the budget is spent.
NO_LEVEL_MESSAGE = (
    "No privacy level met the accuracy target: the result is NOT accurate (success = FALSE) and "
    "still cost its reported eps. Raise eps.max, alpha or n.levels."
)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def _check_model(model):
    if not isinstance(model, str) or model not in MODELS:
        raise ValueError("model must be one of 'ridge' or 'logistic'.")
    return model


def _whole(value, name):
    try:
        return check_n_levels(value)
    except ValueError:
        raise ValueError(f"{name} must be a whole number >= 1.") from None


def _optional_eps(value, name):
    return None if value is None else _checks.check_finite_positive_scalar(value, name)


# --------------------------------------------------------------------------------------------
# Accounting (module docstring): what each method can spend at most
# --------------------------------------------------------------------------------------------


def _most_spent(method, params, n_levels):
    """The largest ex-post loss ``method`` can report with these parameters, as a pure loss.

    Accuracy-first: eps_A + eps_T, the last level of the grid (a run that never halts still
    publishes level T, Lemma 2.8). Doubling: all K levels and K tests (spec §7.2 step 3 at
    j = K). Theory: its one level. The sums are formed as the methods form their ``eps``.
    """
    if method == "noise_reduction":
        levels = privacy_level_grid(params["eps_min"], params["eps_max"], n_levels)
        eps = params["eps_test"] + float(levels[-1])
    elif method == "doubling":
        K = params["doubling_levels"]
        generation = float(np.sum(params["eps_min"] * 2.0 ** np.arange(K)))
        eps = generation + K * params["doubling_eps_test"]
    else:
        eps = params["eps_theory"]
    return accounting.PrivacyLoss.pure(eps)


def _loss_from_arguments(method, model, X, alpha, lambda_, add_bias, gamma, n_levels,
                         calibration, eps_min, eps_max):
    """:func:`_most_spent` from the arguments and the shape of X alone (rows n, columns d
    with the bias), for the accountant's check before the data are read."""
    n, p = as_design_matrix(X).shape
    d = p + int(_checks.check_flag(add_bias, "add.bias"))
    params = accuracy_first_parameters(_check_model(model), alpha, lambda_, n, d, gamma,
                                       n_levels, calibration, eps_min, eps_max)
    return _most_spent(method, params, n_levels)


# --------------------------------------------------------------------------------------------
# Formulas (every sensitivity and calibration of the spec, in one place)
# --------------------------------------------------------------------------------------------


def _radius(model, lambda_):
    # spec §0: L(theta*) <= L(0) bounds ||theta*||; ridge L(0) <= 1/2, logistic L(0) = ln 2
    if model == "ridge":
        return math.sqrt(1.0 / lambda_)
    return math.sqrt(2.0 * math.log(2.0) / lambda_)


def _query_sensitivity(model, lambda_, n):
    # spec §4: per-record losses on C lie in an interval of width c, so Delta = 2c/n;
    # ridge c = (1 + 1/sqrt(lambda))^2 / 2, logistic c = R. Logistic's theta* is iterative,
    # certified to ||grad|| <= g_tol: its L(theta*) errs upwards by at most g_tol^2/(2 lambda)
    # (strong convexity), which the sensitivity adds (ridge's theta* is a closed-form solve).
    if model == "ridge":
        return (1.0 / math.sqrt(lambda_) + 1.0) ** 2 / n
    slack = logistic_optimality_tolerance(n) ** 2 / (2.0 * lambda_)
    return 2.0 * _radius(model, lambda_) / n + slack


def _theory_eps(model, alpha, lambda_, n, d):
    # spec §7.1: invert Thm 3.1 (covariance perturbation) or Thm 3.3 (output perturbation)
    if model == "ridge":
        return 4.0 * math.sqrt(2.0) * (2.0 * math.sqrt(d / lambda_) + d / lambda_) / (n * alpha)
    a = 4.0 * d ** 2 / (n ** 2 * lambda_)
    b = 2.0 * math.sqrt(2.0) * d / (n * lambda_)
    return 2.0 * a / (-b + math.sqrt(b * b + 4.0 * a * alpha))


def accuracy_first_parameters(model, alpha, lambda_, n, d, gamma=0.1, n_levels=1000,
                              calibration="paper", eps_min=None, eps_max=None):
    """The sensitivities, calibrations and defaults the three methods use, without data.

    Parameters
    ----------
    model : {'ridge', 'logistic'}
    alpha : float
        Target excess empirical risk, > 0.
    lambda_ : float
        Regularisation weight lambda of L(theta) = (1/n) sum loss + (lambda/2) ||theta||^2.
    n, d : int
        Rows and columns (bias included) of the design.
    gamma : float
        Failure probability in (0, 1).
    n_levels : int
        T, the number of noise-reduction levels.
    calibration : {'paper', 'tuned'}
        AboveThreshold calibration (see :func:`above_threshold_calibration`).
    eps_min, eps_max : float, optional
        Ends of the level grid; defaults 1/n and 4 x ``eps_theory`` (spec §3).

    Returns
    -------
    dict
        ``radius`` R of the feasible ball; ``sensitivity`` Delta of the excess-risk queries
        (§4; logistic adds g_tol^2 / (2 lambda) for its iterative theta*, see
        :func:`logistic_optimality_tolerance`); ``theta_sensitivity`` the l1-sensitivity of
        theta* (logistic, §6.2 step 2, times 1 + 1e-6 for the same certified slack) or of X'X
        and X'y (ridge, 2 each, §6.1 step 1); ``eps_theory`` (§7.1); ``eps_min``,
        ``eps_max``; ``eps_test`` and ``threshold`` of AboveThreshold (§5);
        ``doubling_levels`` K and ``doubling_eps_test`` of the doubling baseline (§7.2).

    Raises
    ------
    ValueError
        Invalid arguments.
    """
    model = _check_model(model)
    alpha = _checks.check_finite_positive_scalar(alpha, "alpha")
    lambda_ = _checks.check_finite_positive_scalar(lambda_, "lambda")
    n, d = _whole(n, "n"), _whole(d, "d")
    gamma = check_probability(gamma, "gamma")
    T = check_n_levels(n_levels)
    delta = _query_sensitivity(model, lambda_, n)
    eps_theory = _theory_eps(model, alpha, lambda_, n, d)
    low = 1.0 / n if eps_min is None else _checks.check_finite_positive_scalar(eps_min, "eps.min")
    high = (4.0 * eps_theory if eps_max is None
            else _checks.check_finite_positive_scalar(eps_max, "eps.max"))
    if not low < high:
        raise ValueError(f"eps.min must be < eps.max (here {low!r} and {high!r}).")
    test = above_threshold_calibration(alpha, gamma, delta, T, calibration)
    # spec §7.2: K = floor(log2(eps_max / eps_min) + 1) + 1 doublings; a union bound over K
    # Laplace tests, b_test = (alpha/2) / ln(K / (2 gamma)), eps_test = Delta / b_test
    K = int(math.floor(math.log2(high / low) + 1.0)) + 1
    b_test = (alpha / 2.0) / math.log(K / (2.0 * gamma))
    if model == "ridge":
        theta_sensitivity = 2.0
    else:
        # spec §6.2 step 2, G = 1, times 1 + tau for the certified inexact theta*
        # (logistic_optimality_tolerance)
        theta_sensitivity = 2.0 * math.sqrt(d) * (1.0 + OPTIMALITY_SLACK) / (n * lambda_)
    return {
        "radius": _radius(model, lambda_),
        "sensitivity": delta,
        "theta_sensitivity": theta_sensitivity,
        "eps_theory": eps_theory,
        "eps_min": low,
        "eps_max": high,
        "eps_test": test["eps"],
        "threshold": test["threshold"],
        "doubling_levels": K,
        "doubling_eps_test": delta / b_test,
    }


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def _ridge_bounds(values, p, name):
    array = _checks.as_numeric_array(values, f"{name} must be numeric.").ravel()
    if array.size != p + 1:
        raise ValueError(f"Length of {name} must be equal to the number of columns of X plus "
                         "one (the last bound is for y).")
    return array


def _prepare_data(model, X, y, upper_bounds, lower_bounds, add_bias):
    """Clip and scale (module docstring); returns (X, y, coefficient divisors)."""
    add_bias = _checks.check_flag(add_bias, "add.bias")
    if model == "logistic":
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale=True,
                                binary_labels=True)
        return design["X"], 2.0 * design["y"] - 1.0, design["scale"]
    X = as_design_matrix(X)
    p = X.shape[1]
    upper = _ridge_bounds(upper_bounds, p, "upper.bounds")
    lower = _ridge_bounds(lower_bounds, p, "lower.bounds")
    design = prepare_design(X, y, upper[:p], lower[:p], add_bias)
    if not (math.isfinite(upper[p]) and math.isfinite(lower[p]) and lower[p] < upper[p]):
        raise ValueError("The bounds on y (last entries of lower.bounds and upper.bounds) must "
                         "be finite with lower < upper.")
    Xs = design["X"]
    d = Xs.shape[1]
    bias = int(bool(add_bias))
    s = np.concatenate([np.ones(bias), np.maximum(np.abs(lower[:p]), np.abs(upper[:p]))])
    x_divisors = s * d  # ||x||_1 <= sum_j |x_j| / (s_j d) <= 1 (spec §0)
    Xs /= x_divisors  # our own copy
    y_scale = max(abs(lower[p]), abs(upper[p]))
    ys = np.clip(as_labels(y, Xs.shape[0]), lower[p], upper[p]) / y_scale
    # x_raw' coeff = y_scale (x_scaled' theta): coeff_j = theta_j y_scale / (s_j d)
    return Xs, ys, x_divisors / y_scale


# --------------------------------------------------------------------------------------------
# The two problems
# --------------------------------------------------------------------------------------------


def _project(theta, radius):
    """Projection onto the ball ||theta|| <= R (post-processing, spec §0); the result's
    computed norm is <= R (a rounding step above is shrunk by one ulp at a time)."""
    norm = float(np.linalg.norm(theta))
    if norm <= radius:
        return theta
    out = theta * (radius / norm)
    while float(np.linalg.norm(out)) > radius:
        out = out * (1.0 - 2.0 ** -52)
    return out


def trust_region_solve(A, g, radius):
    """argmin over ||theta|| <= R of theta'A theta / 2 - g'theta for symmetric A (spec §6.1).

    Eigendecompose A = Q diag(lam) Q'. The interior solution A^-1 g if A > 0 and it is feasible;
    else theta(mu) = (A + mu I)^-1 g with mu > max(0, -lam_min) solving ||theta(mu)|| = R (Brent
    on the secular equation); in the hard case (g orthogonal to the bottom eigenspace) the
    bottom eigenvector is added to reach norm R.

    The secular equation is solved for the shift s = mu - max(0, -lam_min), with lam + mu
    formed as (lam + max(0, -lam_min)) + s: near the hard case the root s is tiny, and
    Brent's tolerance relative to mu itself (about 1e-14 |mu|) could exceed s, giving a
    theta off the sphere by 25% (as found on random problems). The result is projected onto
    the ball at the end: the excess-risk queries' sensitivity (spec §4) holds on the ball only,
    so rounding must not take theta outside it.
    """
    from scipy.optimize import brentq

    lam, Q = np.linalg.eigh(A)
    c = Q.T @ g
    if lam[0] > 0:
        inside = c / lam
        if np.linalg.norm(inside) <= radius:
            return _project(Q @ inside, radius)
    low = max(0.0, -lam[0])
    base = lam + low if lam[0] > 0 else lam - lam[0]  # >= 0, exactly 0 at the bottom if lam0 <= 0
    c_norm = float(np.linalg.norm(c))
    spread = max(1.0, abs(lam[0]), abs(lam[-1]))

    def excess_norm(shift):
        return float(np.linalg.norm(c / (base + shift))) - radius

    start = 1e-30 * spread if lam[0] <= 0 else 0.0
    if c_norm > 0 and excess_norm(start) > 0:
        upper = c_norm / radius + 1e-14 * spread  # ||c / (base + s)|| <= ||c|| / s
        shift = brentq(excess_norm, start, upper, xtol=1e-300, rtol=4 * np.finfo(float).eps,
                       maxiter=2000)
        return _project(Q @ (c / (base + shift)), radius)
    # hard case: mu = -lam_min, fill up the norm along the bottom eigenvector
    bottom = base <= 1e-12 * spread
    y = np.zeros_like(c)
    y[~bottom] = c[~bottom] / base[~bottom]
    y[np.flatnonzero(bottom)[0]] = math.sqrt(max(radius ** 2 - float(y @ y), 0.0))
    return _project(Q @ y, radius)


class _RidgeProblem:
    """Ridge regression L = (1/2n)||y - X theta||^2 + (lambda/2)||theta||^2 (spec §6.1)."""

    def __init__(self, X, y, lambda_, params):
        self.n, self.d = X.shape
        self.lambda_ = lambda_
        self.radius = params["radius"]
        self.S = X.T @ X
        self.r = X.T @ y
        self.H = self.S / self.n + lambda_ * np.eye(self.d)
        # closed form; it lies in C since L(theta*) <= L(0) <= 1/2 (spec §6.1 step 3)
        self.theta_star = np.linalg.solve(self.H, self.r / self.n)

    def excess(self, theta):
        # exact for a quadratic whose unconstrained minimiser is theta*
        diff = theta - self.theta_star
        return 0.5 * float(diff @ self.H @ diff)

    def _solve(self, Z, z):
        # spec §6.1 step 5: symmetrise (post-processing), then the trust-region subproblem
        A = (Z + Z.T) / (2.0 * self.n) + self.lambda_ * np.eye(self.d)
        return trust_region_solve(A, z / self.n, self.radius)

    def path(self, levels, rng):
        # spec §6.1 step 2: X'X and X'y have l1-sensitivity 2 each and get eps_t / 2 each
        Z = laplace_noise_path((self.d, self.d), 2.0, levels / 2.0, rng)
        z = laplace_noise_path((self.d,), 2.0, levels / 2.0, rng)
        return lambda t: self._solve(self.S + Z[t], self.r + z[t])

    def one_shot(self, eps, rng):
        # Thm 3.1: every entry of the noise of X'X and of X'y ~ Lap(4 / eps)
        B = _random.laplace(4.0 / eps, (self.d, self.d), rng)
        b = _random.laplace(4.0 / eps, self.d, rng)
        return self._solve(self.S + B, self.r + b)


def _logistic_risk(X, y, lambda_, theta):
    return float(np.mean(np.logaddexp(0.0, -y * (X @ theta)))) + 0.5 * lambda_ * float(
        theta @ theta)


def _logistic_gradient(X, y, lambda_, theta):
    z = X @ theta
    return -(X.T @ (y / (1.0 + np.exp(y * z)))) / X.shape[0] + lambda_ * theta


def logistic_optimality_tolerance(n):
    """g_tol = OPTIMALITY_SLACK / n: the bound on ||grad L|| at the released theta*.

    L is lambda-strongly convex, so ||theta - theta*|| <= g_tol / lambda and two neighbouring
    minimisers certified to g_tol differ by at most (2 G + 2 tau) / (n lambda), G = 1 the
    per-record gradient bound: :func:`accuracy_first_parameters` multiplies the sensitivity
    of theta* by 1 + tau, and adds g_tol^2 / (2 lambda) (the most L(theta) - L(theta*) can
    be) to the queries' sensitivity.
    """
    return OPTIMALITY_SLACK / n


def _logistic_minimiser(X, y, lambda_):
    """theta* by damped Newton, certified: ||grad L(theta)|| <= g_tol
    (:func:`logistic_optimality_tolerance`), else ``ConvergenceError`` (the sensitivity assumes
    the exact optimum, spec §6.2 step 1; the slack g_tol is accounted for). Newton runs on to
    ||grad|| <= 1e-13 lambda where it can; where the objective's decrease falls below its
    rounding, a full step is taken if it lowers the gradient norm."""
    n, d = X.shape
    tolerance = logistic_optimality_tolerance(n)
    theta = np.zeros(d)
    value = _logistic_risk(X, y, lambda_, theta)
    grad = _logistic_gradient(X, y, lambda_, theta)
    for _ in range(200):
        norm = float(np.linalg.norm(grad))
        if norm <= min(1e-13 * lambda_, tolerance):
            break
        z = X @ theta
        weights = 0.5 / (1.0 + np.cosh(z))  # sigma(z) sigma(-z)
        hessian = weighted_gram(X, weights / n)
        hessian[np.diag_indices(d)] += lambda_
        step = np.linalg.solve(hessian, grad)
        t = 1.0
        while True:
            candidate = theta - t * step
            new = _logistic_risk(X, y, lambda_, candidate)
            if new <= value - 1e-4 * t * float(grad @ step):
                new_grad = _logistic_gradient(X, y, lambda_, candidate)
                break
            t /= 2.0
            if t < 1e-10:
                candidate = theta - step
                new_grad = _logistic_gradient(X, y, lambda_, candidate)
                if not float(np.linalg.norm(new_grad)) < norm:
                    candidate = None  # no further progress possible in floating point
                new = _logistic_risk(X, y, lambda_, theta - step)
                break
        if candidate is None:
            break
        theta, value, grad = candidate, new, new_grad
    if not float(np.linalg.norm(grad)) <= tolerance:
        raise ConvergenceError(
            f"The logistic minimiser did not reach the tolerance its sensitivity allows "
            f"(gradient norm <= {tolerance:.3g}); nothing was drawn or released. A larger "
            "lambda makes the problem better conditioned.")
    return theta


class _LogisticProblem:
    """Logistic regression L = (1/n) sum log(1 + exp(-y x'theta)) + (lambda/2)||theta||^2
    with labels -1/+1 (spec §6.2)."""

    def __init__(self, X, y, lambda_, params):
        self.X, self.y = X, y
        self.n, self.d = X.shape
        self.lambda_ = lambda_
        self.radius = params["radius"]
        self.theta_sensitivity = params["theta_sensitivity"]
        self.theta_star = _logistic_minimiser(X, y, lambda_)
        self.base = _logistic_risk(X, y, lambda_, self.theta_star)

    def excess(self, theta):
        return _logistic_risk(self.X, self.y, self.lambda_, theta) - self.base

    def path(self, levels, rng):
        # spec §6.2 step 3: noise reduction on theta*, l1-sensitivity 2 sqrt(d) / (n lambda)
        noisy = self.theta_star + laplace_noise_path((self.d,), self.theta_sensitivity, levels,
                                                     rng)
        return lambda t: _project(noisy[t], self.radius)

    def one_shot(self, eps, rng):
        # Thm 3.3: per-coordinate Lap(2 sqrt(d) / (n lambda eps))
        noise = _random.laplace(self.theta_sensitivity / eps, self.d, rng)
        return _project(self.theta_star + noise, self.radius)


def _setup(model, X, y, alpha, lambda_, upper_bounds, lower_bounds, add_bias, gamma,
           n_levels, calibration, eps_min, eps_max):
    """Validate everything and build the problem (no noise drawn)."""
    model = _check_model(model)
    alpha = _checks.check_finite_positive_scalar(alpha, "alpha")
    lambda_ = _checks.check_finite_positive_scalar(lambda_, "lambda")
    gamma = check_probability(gamma, "gamma")
    eps_min = _optional_eps(eps_min, "eps.min")
    eps_max = _optional_eps(eps_max, "eps.max")
    Xs, ys, divisors = _prepare_data(model, X, y, upper_bounds, lower_bounds, add_bias)
    n, d = Xs.shape
    params = accuracy_first_parameters(model, alpha, lambda_, n, d, gamma, n_levels,
                                       calibration, eps_min, eps_max)
    cls = _RidgeProblem if model == "ridge" else _LogisticProblem
    return cls(Xs, ys, lambda_, params), params, divisors, alpha, gamma


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


class AccuracyFirstResult:
    """A private model and the privacy loss it actually cost.

    Attributes
    ----------
    coeff : ndarray
        Coefficients on the raw X (bias first with ``add_bias``).
    theta : ndarray
        The same model on the clipped, scaled problem where ``alpha`` is measured.
    success : bool
        False when no level met the target: then ``coeff`` is the least noisy hypothesis, NOT
        certified accurate, and ``eps`` is still spent.
    method : {'noise_reduction', 'doubling', 'theory'}
    model : {'ridge', 'logistic'}
    alpha, gamma : float
        The accuracy target and failure probability.
    stop_index : int or None
        0-based index of the level that passed the test (the last level on failure; None for
        the theory baseline).
    eps_level : float
        The privacy level of the released hypothesis.
    eps_generation : float
        Privacy paid for generating hypotheses: eps_level for noise reduction (prefix
        privacy), the sum of all levels tried for doubling.
    eps_test : float
        Privacy paid for testing accuracy: eps_A of AboveThreshold, or the sum of the
        doubling tests (0 for theory).
    eps : float
        The ex-post privacy loss: eps_generation + eps_test.
    n_levels : int
        Number of levels available (T, or K for doubling, 1 for theory).
    privacy_ : PrivacyLoss
        What the accountant was charged: the most the method can spend (a pure loss >=
        ``eps``; module docstring), its differential-privacy guarantee.
    """

    _FIELDS = ("method", "model", "success", "coeff", "theta", "alpha", "gamma", "stop_index",
               "eps_level", "eps_generation", "eps_test", "eps", "n_levels", "privacy_")

    def __init__(self, **fields):
        for name in self._FIELDS:
            setattr(self, name, fields[name])

    def as_dict(self):
        """The fields as a dict (R's bridge converts it to a named list)."""
        return {name: getattr(self, name) for name in self._FIELDS}

    def __repr__(self):
        state = "met" if self.success else "NOT met (no level passed)"
        return (f"AccuracyFirstResult({self.method}, {self.model}: target alpha = {self.alpha} "
                f"{state}; ex-post eps = {self.eps:.6g} = generation {self.eps_generation:.6g}"
                f" + test {self.eps_test:.6g}; stop_index = {self.stop_index})")


# --------------------------------------------------------------------------------------------
# The three methods
# --------------------------------------------------------------------------------------------

def accuracy_first_erm(X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias=False,
                       gamma=0.1, n_levels=1000, calibration="paper", eps_min=None,
                       eps_max=None, random_state=None, accountant=None):
    """Private ERM that meets an accuracy target first and reports the privacy it cost.

    Ligett et al.'s noise reduction (spec §6): hypotheses theta_1, theta_2, ... of increasing
    privacy level eps_1 < eps_2 < ... come from one noise-reduction path (covariance
    perturbation for ridge, output perturbation for logistic), each projected onto
    ||theta|| <= R; InteractiveAboveThreshold tests their excess risk against alpha and stops
    at the first that passes. With probability >= 1 - gamma the returned model has excess
    empirical risk <= alpha, and the privacy loss is eps = eps_A + eps_k, read off the outcome
    (ex-post privacy, not a fixed budget). The whole noise-reduction path is drawn up front
    (spec §2.1): for ridge it holds n_levels x d x d doubles (47 MB for d = 77, T = 1000).

    Parameters
    ----------
    X : array_like or pandas.DataFrame, n x p
        Never modified.
    y : array_like
        Ridge: n responses; logistic: n labels 0/1.
    model : {'ridge', 'logistic'}
    alpha : float
        Target excess empirical risk of the clipped, scaled problem (module docstring), > 0.
    lambda_ : float
        Regularisation weight lambda, > 0.
    upper_bounds, lower_bounds : array_like
        Bounds of X's columns; ridge adds the bounds of y as the last entry.
    add_bias : bool
        Prepend a column of ones (bounds 1, 1); its coefficient comes first.
    gamma : float
        Failure probability in (0, 1).
    n_levels : int
        T, the number of levels of the geometric grid (:func:`privacy_level_grid`).
    calibration : {'paper', 'tuned'}
        AboveThreshold calibration: the paper's Algorithm 3 (default, a clean guarantee) or the
        authors' code (smaller eps_A, reproduces the published figures).
    eps_min, eps_max : float, optional
        Grid ends; defaults 1/n and 4 x the theory baseline's eps (eps_max is not a level).
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged once, under the label 'accuracy_first_erm', the most the run can spend:
        ``PrivacyLoss.pure(eps_A + eps_T)`` (module docstring: the realised ex-post loss is
        not what is charged). The check reserves it before the data are read (only the shape
        of X is used), an overspend is refused with the generator untouched. None charges the
        session's accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        With ``eps_test`` = eps_A, ``eps_level`` = eps_generation = eps_k. When no level
        passes, ``success`` is False, a ``RuntimeWarning`` is issued, the least noisy
        hypothesis is returned and eps = eps_A + eps_T (theta* is never released).
        ``privacy_`` is the loss charged.

    Raises
    ------
    ValueError
        Invalid options, data or bounds, or an overspend (before any noise is drawn).

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30.
    """
    bill = accounting.charge(
        accountant, lambda: _loss_from_arguments(
            "noise_reduction", model, X, alpha, lambda_, add_bias, gamma, n_levels, calibration,
            eps_min, eps_max), "accuracy_first_erm")
    problem, params, divisors, alpha, gamma = _setup(
        model, X, y, alpha, lambda_, upper_bounds, lower_bounds, add_bias, gamma, n_levels,
        calibration, eps_min, eps_max)
    levels = privacy_level_grid(params["eps_min"], params["eps_max"], n_levels)
    rng = _random.as_generator(random_state)
    privacy = bill.spend()
    hypothesis = problem.path(levels, rng)
    # charged above as part of the whole
    test = InteractiveAboveThreshold(problem, params["eps_test"], params["threshold"],
                                     params["sensitivity"], random_state=rng,
                                     accountant=accounting.UNCHARGED)
    theta = None
    for t in range(levels.size):
        theta = hypothesis(t)
        # spec §4: f_t = L(theta*) - L(theta_t) = -(excess risk); only IAT's noisy test sees it
        if test.query(-problem.excess(theta)):
            break
    success = test.halted
    k = test.halt_index if success else levels.size - 1
    if not success:
        warnings.warn(NO_LEVEL_MESSAGE, RuntimeWarning, stacklevel=2)
    return AccuracyFirstResult(
        method="noise_reduction", model=_model_name(problem), success=success,
        coeff=theta / divisors, theta=theta, alpha=alpha, gamma=gamma, stop_index=k,
        eps_level=float(levels[k]),
        eps_generation=float(levels[k]), eps_test=params["eps_test"],
        eps=params["eps_test"] + float(levels[k]), n_levels=levels.size, privacy_=privacy)


def doubling_erm(X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias=False,
                 gamma=0.1, eps_min=None, eps_max=None, random_state=None, accountant=None):
    """Baseline: fit at eps_min, 2 eps_min, 4 eps_min, ... with independent noise and test each
    fit's excess risk with the Laplace mechanism until one passes (spec §7.2).

    Every fit and every test is paid: stopping at level j costs
    sum_{i <= j} (eps_i + eps_test), eps_test = Delta / b_test, b_test = (alpha/2) /
    ln(K / (2 gamma)); a fit passes when excess + Lap(b_test) <= alpha/2, so with probability
    >= 1 - gamma the released fit has excess <= alpha.

    Parameters
    ----------
    X : array_like or pandas.DataFrame, n x p
        Never modified.
    y : array_like
        Ridge: n responses; logistic: n labels 0/1.
    model : {'ridge', 'logistic'}
    alpha : float
        Target excess empirical risk of the clipped, scaled problem (module docstring), > 0.
    lambda_ : float
        Regularisation weight lambda, > 0.
    upper_bounds, lower_bounds : array_like
        Bounds of X's columns; ridge adds the bounds of y as the last entry.
    add_bias : bool
        Prepend a column of ones (bounds 1, 1); its coefficient comes first.
    gamma : float
        Failure probability in (0, 1).
    eps_min, eps_max : float, optional
        The first level and the end of the doubling range; defaults as
        :func:`accuracy_first_erm`; K = floor(log2(eps_max / eps_min) + 1) + 1 levels.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged once, under the label 'doubling_erm', the most the run can spend: all K fits
        and K tests, ``PrivacyLoss.pure(sum eps_i + K eps_test)`` (the stopping level depends
        on the data; module docstring). Checked before the data are read. None charges the
        session's accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        ``eps_level`` is the passing level, ``eps_generation`` the sum of the levels tried,
        ``eps_test`` the sum of the tests. On failure (with a ``RuntimeWarning``) the last fit.
        ``privacy_`` is the loss charged.

    Raises
    ------
    ValueError
        Invalid options, data or bounds, or an overspend (before any noise is drawn).
    """
    bill = accounting.charge(
        accountant, lambda: _loss_from_arguments(
            "doubling", model, X, alpha, lambda_, add_bias, gamma, 1000, "paper", eps_min,
            eps_max), "doubling_erm")
    problem, params, divisors, alpha, gamma = _setup(
        model, X, y, alpha, lambda_, upper_bounds, lower_bounds, add_bias, gamma, 1000,
        "paper", eps_min, eps_max)
    K = params["doubling_levels"]
    levels = params["eps_min"] * 2.0 ** np.arange(K)
    eps_test = params["doubling_eps_test"]
    b_test = params["sensitivity"] / eps_test
    rng = _random.as_generator(random_state)
    privacy = bill.spend()
    success = False
    for j in range(K):
        theta = problem.one_shot(float(levels[j]), rng)
        noisy = problem.excess(theta) + float(_random.laplace(b_test, None, rng))
        if noisy <= alpha / 2.0:
            success = True
            break
    if not success:
        warnings.warn(NO_LEVEL_MESSAGE, RuntimeWarning, stacklevel=2)
    generation = float(np.sum(levels[: j + 1]))
    return AccuracyFirstResult(
        method="doubling", model=_model_name(problem), success=success,
        coeff=theta / divisors, theta=theta, alpha=alpha, gamma=gamma, stop_index=j,
        eps_level=float(levels[j]), eps_generation=generation, eps_test=(j + 1) * eps_test,
        eps=generation + (j + 1) * eps_test, n_levels=K, privacy_=privacy)


def theory_erm(X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias=False,
               random_state=None, accountant=None):
    """Baseline: one fit at the eps a utility theorem says is enough for expected excess risk
    alpha (spec §7.1), without any test.

    Ridge: covariance perturbation at eps = 4 sqrt(2) (2 sqrt(d/lambda) + d/lambda) / (n alpha)
    (Thm 3.1); logistic: output perturbation at the smallest eps with
    2 sqrt(2) d / (n lambda eps) + 4 d^2 / (n^2 lambda eps^2) <= alpha (Thm 3.3). The theorems
    bound the *expected* excess risk, not the risk with probability 1 - gamma; ``success`` is
    True by construction (nothing is checked).

    Parameters
    ----------
    X : array_like or pandas.DataFrame, n x p
        Never modified.
    y : array_like
        Ridge: n responses; logistic: n labels 0/1.
    model : {'ridge', 'logistic'}
    alpha : float
        Target excess empirical risk of the clipped, scaled problem (module docstring), > 0.
    lambda_ : float
        Regularisation weight lambda, > 0.
    upper_bounds, lower_bounds : array_like
        Bounds of X's columns; ridge adds the bounds of y as the last entry.
    add_bias : bool
        Prepend a column of ones (bounds 1, 1); its coefficient comes first.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps)`` (eps from n, d, alpha and lambda alone) under the
        label 'theory_erm', checked before the data are read. None charges the session's
        accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        eps = eps_level = eps_generation, eps_test = 0, stop_index None, gamma None;
        ``privacy_`` = ``PrivacyLoss.pure(eps)``.

    Raises
    ------
    ValueError
        Invalid options, data or bounds, or an overspend (before any noise is drawn).
    """
    bill = accounting.charge(
        accountant, lambda: _loss_from_arguments(
            "theory", model, X, alpha, lambda_, add_bias, 0.1, 1000, "paper", None, None),
        "theory_erm")
    problem, params, divisors, alpha, _ = _setup(
        model, X, y, alpha, lambda_, upper_bounds, lower_bounds, add_bias, 0.1, 1000, "paper",
        None, None)
    eps = params["eps_theory"]
    rng = _random.as_generator(random_state)
    privacy = bill.spend()
    theta = problem.one_shot(eps, rng)
    return AccuracyFirstResult(
        method="theory", model=_model_name(problem), success=True, coeff=theta / divisors,
        theta=theta, alpha=alpha, gamma=None, stop_index=None, eps_level=eps,
        eps_generation=eps, eps_test=0.0, eps=eps, n_levels=1, privacy_=privacy)


def _model_name(problem):
    return "ridge" if isinstance(problem, _RidgeProblem) else "logistic"
