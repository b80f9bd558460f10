"""Accuracy-first private ERM (Ligett et al. 2017): fit a model whose excess empirical risk is at
most ``alpha`` with probability >= 1 - ``gamma`` and report the privacy loss actually spent
(ex-post), beside two baselines: :func:`accuracy_first_erm` (noise reduction and
InteractiveAboveThreshold), :func:`doubling_erm` (independent fits at doubling eps, each
tested), :func:`theory_erm` (one fit at the eps a utility theorem promises), and
:func:`accuracy_first_parameters` (their sensitivities, calibrations and defaults).

The data are clipped to DPpack's bounds and scaled to the paper's unit balls; ``alpha`` is the
excess risk of that scaled problem, ``coeff`` act on the raw X (bias first). ``gamma`` is the
failure probability (not DPpack's regularisation constant), ``lambda_`` the regularisation
weight. The accountant is charged the most a run can spend; the result's ``eps`` is the
smaller ex-post loss. Derivations: :doc:`/guide/accuracy-first-derivations`.
"""

import functools
import math

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random, accounting
from .above_threshold import (
    InteractiveAboveThreshold,
    above_threshold_calibration,
    laplace_test_calibration,
)
from ..erm import _losses as losses
from ..erm._design import as_design_matrix, prepare_design
from ..erm._solvers import (
    OPTIMALITY_SLACK,
    ConvergenceError,
    damped_newton,
    optimality_tolerance,
    project_onto_ball,
    trust_region_solve,
)
from ._laplace_path import laplace_noise_path
from .noise_reduction import privacy_level_grid

__all__ = [
    "AccuracyFirstResult",
    "accuracy_first_erm",
    "accuracy_first_parameters",
    "doubling_erm",
    "theory_erm",
]

MODELS = ("ridge", "logistic")
MODEL_MESSAGE = "model must be one of 'ridge' or 'logistic'."
# Issued when no level passed the accuracy test. This warning is about accuracy, not privacy:
# the returned hypothesis is private (a noise-reduction or doubling release, its eps reported,
# Ligett et al. 2017 output theta* there; never here), only not certified accurate
# (success = False). Unlike an
# unconverged minimiser (which raises), refusing would protect nothing: the budget is spent.
NO_LEVEL_MESSAGE = (
    "No privacy level met the accuracy target: the result is NOT accurate (success = FALSE) and "
    "still cost its reported eps. Raise eps.max, alpha or n.levels."
)


# --------------------------------------------------------------------------------------------
# Accounting (guide: accuracy-first-derivations): what each method can spend at most
# --------------------------------------------------------------------------------------------


def _most_spent(method, params, n_levels):
    """The largest ex-post loss ``method`` can report with these parameters, as a pure loss:
    eps_A + eps_T, all K levels and tests, or the theory level."""
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
    """:func:`_most_spent` from the arguments and the shape of X alone (no data read)."""
    n, p = as_design_matrix(X).shape
    d = p + int(_checks.check_flag(add_bias, "add.bias"))
    model = _checks.check_choice(model, "model", MODELS, MODEL_MESSAGE)
    params = accuracy_first_parameters(model, alpha, lambda_, n, d, gamma, n_levels,
                                       calibration, eps_min, eps_max)
    return _most_spent(method, params, n_levels)


# --------------------------------------------------------------------------------------------
# Formulas (every sensitivity and calibration of Ligett et al. 2017, in one place)
# --------------------------------------------------------------------------------------------


def _radius(model, lambda_):
    # Ligett et al. 2017: L(theta*) <= L(0) bounds ||theta*||; ridge L(0) <= 1/2,
    # logistic L(0) = ln 2
    if model == "ridge":
        return math.sqrt(1.0 / lambda_)
    return math.sqrt(2.0 * math.log(2.0) / lambda_)


def _query_sensitivity(model, lambda_, n):
    # Ligett et al. 2017: per-record losses on C lie in an interval of width c, so Delta = 2c/n;
    # ridge c = (1 + 1/sqrt(lambda))^2 / 2, logistic c = R. Logistic's theta* is iterative,
    # certified to ||grad|| <= g_tol: its L(theta*) errs upwards by at most g_tol^2/(2 lambda)
    # (strong convexity), which the sensitivity adds (ridge's theta* is a closed-form solve).
    if model == "ridge":
        return (1.0 / math.sqrt(lambda_) + 1.0) ** 2 / n
    slack = optimality_tolerance(n) ** 2 / (2.0 * lambda_)
    return 2.0 * _radius(model, lambda_) / n + slack


def _theory_eps(model, alpha, lambda_, n, d):
    # Ligett et al. 2017: invert Thm 3.1 (covariance perturbation) or Thm 3.3 (output perturbation)
    if model == "ridge":
        return 4.0 * math.sqrt(2.0) * (2.0 * math.sqrt(d / lambda_) + d / lambda_) / (n * alpha)
    a = 4.0 * d ** 2 / (n ** 2 * lambda_)
    b = 2.0 * math.sqrt(2.0) * d / (n * lambda_)
    return 2.0 * a / (-b + math.sqrt(b * b + 4.0 * a * alpha))


def accuracy_first_parameters(model, alpha, lambda_, n, d, gamma=0.1, n_levels=1000,
                              calibration="exact", eps_min=None, eps_max=None):
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
    calibration : {'exact', 'paper', 'tuned'}
        Calibration of the accuracy tests (:func:`above_threshold_calibration`).
    eps_min, eps_max : float, optional
        Ends of the level grid; defaults 1/n and 4 x ``eps_theory``.

    Returns
    -------
    dict
        ``radius`` R of the feasible ball; ``sensitivity`` Delta of the excess-risk queries;
        ``theta_sensitivity`` the l1-sensitivity of theta* (logistic) or of X'X and X'y
        (ridge); ``eps_theory``; ``eps_min``, ``eps_max``; ``eps_test``, ``threshold``,
        ``threshold_share`` and ``failure`` of AboveThreshold; ``doubling_levels`` K,
        ``doubling_eps_test`` and ``doubling_threshold`` of the doubling baseline. Derivations:
        :doc:`/guide/accuracy-first-derivations`.

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30.

    Examples
    --------
    What a logistic run on 532 rows and 3 coefficients would use, before any data is read:

    >>> from dppack import accuracy_first_parameters
    >>> p = accuracy_first_parameters("logistic", alpha=0.1, lambda_=0.5, n=532, d=3,
    ...                               n_levels=100, calibration="tuned")
    >>> round(p["eps_theory"], 4), round(p["eps_test"], 4), int(p["doubling_levels"])
    (0.3268, 2.4585, 11)
    """
    model = _checks.check_choice(model, "model", MODELS, MODEL_MESSAGE)
    alpha = _checks.check_finite_positive_scalar(alpha, "alpha")
    lambda_ = _checks.check_finite_positive_scalar(lambda_, "lambda")
    n, d = _checks.check_whole(n, "n", 1), _checks.check_whole(d, "d", 1)
    gamma = _checks.check_probability(gamma, "gamma")
    T = _checks.check_whole(n_levels, "n.levels", 1)
    delta = _query_sensitivity(model, lambda_, n)
    eps_theory = _theory_eps(model, alpha, lambda_, n, d)
    low = 1.0 / n if eps_min is None else _checks.check_finite_positive_scalar(eps_min, "eps.min")
    high = (4.0 * eps_theory if eps_max is None
            else _checks.check_finite_positive_scalar(eps_max, "eps.max"))
    if not low < high:
        raise _messages.value_error("eps.min must be < eps.max (here {low!r} and {high!r}).",
                                    low=low, high=high)
    test = above_threshold_calibration(alpha, gamma, delta, T, calibration)
    # Ligett et al. 2017: K = floor(log2(eps_max / eps_min) + 1) + 1 doublings, each tested by the
    # Laplace mechanism (calibrated as the AboveThreshold test, laplace_test_calibration)
    K = int(math.floor(math.log2(high / low) + 1.0)) + 1
    doubling = laplace_test_calibration(alpha, gamma, delta, K, calibration)
    if model == "ridge":
        theta_sensitivity = 2.0
    else:
        # Ligett et al. 2017, G = 1, times 1 + tau for the certified inexact theta*
        # (dppack.erm._solvers.optimality_tolerance, _logistic_minimiser)
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
        "threshold_share": test["threshold_share"],
        "failure": test["failure"],
        "doubling_levels": K,
        "doubling_eps_test": doubling["eps"],
        "doubling_threshold": doubling["threshold"],
    }


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def _prepare_data(model, X, y, upper_bounds, lower_bounds, add_bias):
    """Clip and scale to the paper's unit balls; returns (X, y, coefficient divisors)."""
    add_bias = _checks.check_flag(add_bias, "add.bias")
    if model == "logistic":
        # rows in the unit L2 ball, labels -1/+1 (Ligett et al. 2017)
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale="l2",
                                labels="signed")
        return design["X"], design["y"], design["scale"]
    # ridge: the bounds of X then y; rows in the unit L1 ball, column j divided by s_j d, so
    # ||x||_1 <= 1 (Ligett et al. 2017); y clipped to its bounds and divided by s_y, so |y| <= 1
    design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale="l1",
                            target=True)
    y_scale = design["target_bounds"].scale[0]
    # x_raw' coeff = y_scale (x_scaled' theta): coeff_j = theta_j y_scale / (s_j d)
    return design["X"], design["y"] / y_scale, design["scale"] / y_scale


# --------------------------------------------------------------------------------------------
# The two problems
# --------------------------------------------------------------------------------------------


class _RidgeProblem:
    """Ridge regression L = (1/2n)||y - X theta||^2 + (lambda/2)||theta||^2."""

    def __init__(self, X, y, lambda_, params):
        self.n, self.d = X.shape
        self.lambda_ = lambda_
        self.radius = params["radius"]
        self.S = X.T @ X
        self.r = X.T @ y
        self.H = self.S / self.n + lambda_ * np.eye(self.d)
        # closed form; it lies in C since L(theta*) <= L(0) <= 1/2 (Ligett et al. 2017)
        self.theta_star = np.linalg.solve(self.H, self.r / self.n)

    def excess(self, theta):
        # exact for a quadratic whose unconstrained minimiser is theta*
        diff = theta - self.theta_star
        return 0.5 * float(diff @ self.H @ diff)

    def _solve(self, Z, z):
        # Ligett et al. 2017: symmetrise (post-processing), then the trust-region subproblem
        A = (Z + Z.T) / (2.0 * self.n) + self.lambda_ * np.eye(self.d)
        return trust_region_solve(A, z / self.n, self.radius)

    def path(self, levels, rng):
        # X'X and X'y have l1-sensitivity 2 each (rows ||x||_1 <= 1, |y| <= 1) and get eps_t / 2
        # each (Ligett et al. 2017, Algorithm 2, COVNR): two exact Laplace noise-reduction paths
        # on the grid (_laplace_path.laplace_noise_path), released g (round(. / g) + Z_t);
        # the hypotheses are functions of these releases only
        S = laplace_noise_path(self.S, 2.0, levels / 2.0, rng)
        r = laplace_noise_path(self.r, 2.0, levels / 2.0, rng)
        return lambda t: self._solve(S[t], r[t])

    def one_shot(self, eps, rng):
        # Ligett et al. 2017, Thm 3.1: X'X and X'y (l1-sensitivity 2 each) at eps / 2 each,
        # Lap(4 / eps) per entry, drawn exactly on the grid (_random.discrete_laplace_noise)
        S = _random.discrete_laplace_noise(self.S, 2.0, eps / 2.0, rng)
        r = _random.discrete_laplace_noise(self.r, 2.0, eps / 2.0, rng)
        return self._solve(S, r)


def _logistic_minimiser(X, y, lambda_):
    """theta* by damped Newton, certified to ||grad L|| <= OPTIMALITY_SLACK / n, else
    ``ConvergenceError`` before any noise is drawn (the slack enters the sensitivities:
    docs/python/guide/accuracy-first-derivations.md)."""
    n, d = X.shape
    tolerance = optimality_tolerance(n)
    risk = losses.logistic().risk(X, y, ridge=lambda_)  # L, fused (dppack.erm._losses)
    theta = damped_newton(risk, risk.hessian, np.zeros(d), tolerance)
    if theta is None:
        raise _messages.exception(
            ConvergenceError,
            "The logistic minimiser did not reach the tolerance its sensitivity allows "
            "(gradient norm <= {tolerance:.3g}); nothing was drawn or released. A larger "
            "lambda makes the problem better conditioned.", tolerance=tolerance)
    return theta


class _LogisticProblem:
    """Logistic regression L = (1/n) sum log(1 + exp(-y x'theta)) + (lambda/2)||theta||^2
    with labels -1/+1."""

    def __init__(self, X, y, lambda_, params):
        self.X, self.y = X, y
        self.n, self.d = X.shape
        self.lambda_ = lambda_
        self.radius = params["radius"]
        self.theta_sensitivity = params["theta_sensitivity"]
        self.theta_star = _logistic_minimiser(X, y, lambda_)
        self.risk = losses.logistic().risk(X, y, ridge=lambda_)
        self.base = self.risk(self.theta_star, False)[0]

    def excess(self, theta):
        return self.risk(theta, False)[0] - self.base

    def path(self, levels, rng):
        # Ligett et al. 2017, Algorithm 3 (OUTPUTNR): noise reduction on theta*,
        # l1-sensitivity 2 sqrt(d) / (n lambda); exact on the grid (laplace_noise_path)
        noisy = laplace_noise_path(self.theta_star, self.theta_sensitivity, levels, rng)
        return lambda t: project_onto_ball(noisy[t], self.radius)

    def one_shot(self, eps, rng):
        # Ligett et al. 2017, Thm 3.3: per-coordinate Lap(2 sqrt(d) / (n lambda eps)), exact on
        # the grid (_random.discrete_laplace_noise)
        noisy = _random.discrete_laplace_noise(self.theta_star, self.theta_sensitivity, eps, rng)
        return project_onto_ball(noisy, self.radius)


def _setup(model, X, y, alpha, lambda_, upper_bounds, lower_bounds, add_bias, gamma,
           n_levels, calibration, eps_min, eps_max):
    """Validate everything and build the problem (no noise drawn)."""
    model = _checks.check_choice(model, "model", MODELS, MODEL_MESSAGE)
    alpha = _checks.check_finite_positive_scalar(alpha, "alpha")
    lambda_ = _checks.check_finite_positive_scalar(lambda_, "lambda")
    gamma = _checks.check_probability(gamma, "gamma")
    eps_min = _checks.check_finite_positive_scalar(eps_min, "eps.min", optional=True)
    eps_max = _checks.check_finite_positive_scalar(eps_max, "eps.max", optional=True)
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
        The same model on the scaled problem where ``alpha`` is measured.
    success : bool
        False when no level met the target (``coeff`` is then NOT certified accurate).
    method : {'noise_reduction', 'doubling', 'theory'}
    model : {'ridge', 'logistic'}
    alpha, gamma : float
    stop_index : int or None
        0-based index of the level that passed (the last on failure; None for theory).
    eps_level : float
        The privacy level of the released hypothesis.
    eps_generation, eps_test : float
        Privacy paid for generating hypotheses and for testing them.
    eps : float
        The ex-post privacy loss: eps_generation + eps_test.
    n_levels : int
        Number of levels available (1 for theory).
    privacy_ : PrivacyLoss
        What the accountant was charged: the most the method can spend, its DP guarantee.

    Parameters
    ----------
    **fields
        One keyword per attribute above, all required (made by the three methods).

    References
    ----------
    Ligett et al. (2017), NeurIPS 30 (ex-post privacy).

    Examples
    --------
    >>> from dppack import theory_erm
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> result = theory_erm(X, y, "logistic", 0.1, 0.5, [200, 70], [50, 15], add_bias=True,
    ...                     random_state=1)
    >>> result  # doctest: +NORMALIZE_WHITESPACE
    AccuracyFirstResult(theory, logistic: target alpha = 0.1 met; ex-post eps = 0.32678 =
    generation 0.32678 + test 0; stop_index = None)
    >>> result.coeff.shape, sorted(result.as_dict())[:3]
    ((3,), ['alpha', 'coeff', 'eps'])
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
                       gamma=0.1, n_levels=1000, calibration="exact", eps_min=None,
                       eps_max=None, random_state=None, accountant=None):
    """Private ERM that meets an accuracy target first and reports the privacy it cost.

    Hypotheses of increasing privacy level come from one noise-reduction path; a private test
    stops at the first whose excess risk is within alpha (with probability >= 1 - gamma). The
    ex-post loss is eps = eps_A + eps_k (:doc:`/guide/accuracy-first-derivations`).

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame, n x p
    y : array_like
        Ridge: n responses; logistic: n labels 0/1.
    model : {'ridge', 'logistic'}
    alpha : float
        Target excess empirical risk of the clipped, scaled problem, > 0.
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
    calibration : {'exact', 'paper', 'tuned'}
        AboveThreshold calibration (:func:`above_threshold_calibration`): ``"exact"`` (default,
        proven, least eps_A), ``"paper"`` (Algorithm 3, about 4 times the eps_A) or ``"tuned"``
        (the authors' code, not proven).
    eps_min, eps_max : float, optional
        Grid ends; defaults 1/n and 4 x the theory baseline's eps (eps_max is not a level).
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps_A + eps_T)``, the most the run can spend, before the
        data are read; None charges the session's accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        ``eps_test`` = eps_A, ``eps_level`` = eps_generation = eps_k. When no level passes,
        ``success`` is False, a ``RuntimeWarning`` is issued and the last hypothesis returned.

    Raises
    ------
    ValueError
        Invalid options, data or bounds, or an overspend (before any noise is drawn).

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30.

    Examples
    --------
    A logistic regression whose excess risk is within 0.1; its ex-post eps is below the eps
    charged up front:

    >>> from dppack import accuracy_first_erm
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> result = accuracy_first_erm(X, y, "logistic", alpha=0.1, lambda_=0.5,
    ...                             upper_bounds=[200, 70], lower_bounds=[50, 15],
    ...                             add_bias=True, n_levels=100, calibration="tuned",
    ...                             random_state=1)
    >>> result.success, result.stop_index, round(result.eps, 2)
    (True, 60, 2.55)
    >>> round(result.privacy_.eps, 2)  # charged: eps_A + the last level
    3.68
    """
    _backends.refuse_dask("accuracy_first_erm", X, y)
    settings = dict(X=X, model=model, alpha=alpha, lambda_=lambda_, upper_bounds=upper_bounds,
                    lower_bounds=lower_bounds, add_bias=add_bias, gamma=gamma,
                    n_levels=n_levels, calibration=calibration, eps_min=eps_min,
                    eps_max=eps_max)
    return _plans.run(_ACCURACY_FIRST, (X, y), settings, random_state, accountant)


def _accuracy_first_release(setup, settings, rng, privacy):
    """:func:`accuracy_first_erm`'s draw: the path, then the test level by level."""
    problem, params, divisors, alpha, gamma = setup
    levels = privacy_level_grid(params["eps_min"], params["eps_max"], settings["n_levels"])
    hypothesis = problem.path(levels, rng)
    # charged by the run (_plans.run) as part of the whole
    test = InteractiveAboveThreshold(problem, params["eps_test"], params["threshold"],
                                     params["sensitivity"], random_state=rng,
                                     accountant=accounting.UNCHARGED,
                                     threshold_share=params["threshold_share"])
    theta = None
    for t in range(levels.size):
        theta = hypothesis(t)
        # Ligett et al. 2017: f_t = L(theta*) - L(theta_t) = -(excess risk); only IAT's noisy
        # test sees it
        if test.query(-problem.excess(theta)):
            break
    success = test.halted
    k = test.halt_index if success else levels.size - 1
    if not success:  # (the user, the public function, _plans.run, here)
        _messages.warn(NO_LEVEL_MESSAGE, RuntimeWarning, stacklevel=4)
    return AccuracyFirstResult(
        method="noise_reduction", model=_model_name(problem), success=success,
        coeff=theta / divisors, theta=theta, alpha=alpha, gamma=gamma, stop_index=k,
        eps_level=float(levels[k]),
        eps_generation=float(levels[k]), eps_test=params["eps_test"],
        eps=params["eps_test"] + float(levels[k]), n_levels=levels.size, privacy_=privacy)


def doubling_erm(X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias=False,
                 gamma=0.1, eps_min=None, eps_max=None, calibration="exact", random_state=None,
                 accountant=None):
    """Baseline: fit at eps_min, 2 eps_min, 4 eps_min, ... with independent noise and test each
    fit's excess risk with the Laplace mechanism until one passes; every fit and test is paid.

    Parameters
    ----------
    X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias, gamma
        As for :func:`accuracy_first_erm`.
    eps_min, eps_max : float, optional
        The first level and the end of the doubling range (defaults as
        :func:`accuracy_first_erm`).
    calibration : {'exact', 'paper', 'tuned'}
        Calibration of the tests (:func:`laplace_test_calibration`).
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged once, before the data are read, the most the run can spend (all fits and
        tests); None charges the session's accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        ``eps_generation`` and ``eps_test`` sum the levels and tests tried. On failure (with
        a ``RuntimeWarning``) the last fit.

    Raises
    ------
    ValueError
        As :func:`accuracy_first_erm`.

    References
    ----------
    Ligett et al. (2017), NeurIPS 30 (the doubling baseline).

    Examples
    --------
    >>> from dppack import doubling_erm
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> result = doubling_erm(X, y, "logistic", 0.1, 0.5, [200, 70], [50, 15], add_bias=True,
    ...                       random_state=1)
    >>> result.success, result.stop_index, result.n_levels, round(result.eps, 2)
    (True, 7, 11, 3.9)
    """
    _backends.refuse_dask("doubling_erm", X, y)
    settings = dict(X=X, model=model, alpha=alpha, lambda_=lambda_, upper_bounds=upper_bounds,
                    lower_bounds=lower_bounds, add_bias=add_bias, gamma=gamma, n_levels=1000,
                    calibration=calibration, eps_min=eps_min, eps_max=eps_max)
    return _plans.run(_DOUBLING, (X, y), settings, random_state, accountant)


def _doubling_release(setup, settings, rng, privacy):
    """:func:`doubling_erm`'s draw: fit and test at each doubling until one passes."""
    problem, params, divisors, alpha, gamma = setup
    K = params["doubling_levels"]
    levels = params["eps_min"] * 2.0 ** np.arange(K)
    eps_test = params["doubling_eps_test"]
    success = False
    for j in range(K):
        theta = problem.one_shot(float(levels[j]), rng)
        # the Laplace test, exact on the grid; only its comparison with s is used
        noisy = float(_random.discrete_laplace_noise(problem.excess(theta), params["sensitivity"],
                                                     eps_test, rng, coordinates=1)[()])
        if noisy <= params["doubling_threshold"]:
            success = True
            break
    if not success:  # (the user, the public function, _plans.run, here)
        _messages.warn(NO_LEVEL_MESSAGE, RuntimeWarning, stacklevel=4)
    generation = float(np.sum(levels[: j + 1]))
    return AccuracyFirstResult(
        method="doubling", model=_model_name(problem), success=success,
        coeff=theta / divisors, theta=theta, alpha=alpha, gamma=gamma, stop_index=j,
        eps_level=float(levels[j]), eps_generation=generation, eps_test=(j + 1) * eps_test,
        eps=generation + (j + 1) * eps_test, n_levels=K, privacy_=privacy)


def theory_erm(X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias=False,
               random_state=None, accountant=None):
    """Baseline: one fit at the eps a utility theorem says is enough for expected excess risk
    alpha (ridge: covariance perturbation, Thm 3.1; logistic: output perturbation, Thm 3.3),
    without any test: ``success`` is True by construction.

    Parameters
    ----------
    X, y, model, alpha, lambda_, upper_bounds, lower_bounds, add_bias
        As for :func:`accuracy_first_erm`.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps)`` under the label 'theory_erm', before the data are
        read. None charges the session's accountant, if any.

    Returns
    -------
    AccuracyFirstResult
        eps = eps_level = eps_generation, eps_test = 0, stop_index and gamma None.

    Raises
    ------
    ValueError
        As :func:`accuracy_first_erm`.

    References
    ----------
    Ligett et al. (2017), NeurIPS 30, Theorems 3.1 and 3.3.

    Examples
    --------
    >>> from dppack import theory_erm
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> result = theory_erm(X, y, "logistic", 0.1, 0.5, [200, 70], [50, 15], add_bias=True,
    ...                     random_state=1)
    >>> round(result.eps, 4), result.eps_test, result.stop_index  # one fit, no test
    (0.3268, 0.0, None)
    """
    _backends.refuse_dask("theory_erm", X, y)
    settings = dict(X=X, model=model, alpha=alpha, lambda_=lambda_, upper_bounds=upper_bounds,
                    lower_bounds=lower_bounds, add_bias=add_bias, gamma=0.1, n_levels=1000,
                    calibration="paper", eps_min=None, eps_max=None)
    return _plans.run(_THEORY, (X, y), settings, random_state, accountant)


def _theory_release(setup, settings, rng, privacy):
    """:func:`theory_erm`'s draw: one fit at the theory level."""
    problem, params, divisors, alpha, _ = setup
    eps = params["eps_theory"]
    theta = problem.one_shot(eps, rng)
    return AccuracyFirstResult(
        method="theory", model=_model_name(problem), success=True, coeff=theta / divisors,
        theta=theta, alpha=alpha, gamma=None, stop_index=None, eps_level=eps,
        eps_generation=eps, eps_test=0.0, eps=eps, n_levels=1, privacy_=privacy)


def _model_name(problem):
    return "ridge" if isinstance(problem, _RidgeProblem) else "logistic"


class _MethodPlan(_plans.Plan):
    """One method's run: charged the most it can spend (:func:`_loss_from_arguments`, from its
    settings and X's shape alone), then every check and the data's clipping, scaling and exact
    minimiser (:func:`_setup`); the draw is ``release(setup, settings, rng, privacy)``."""

    def __init__(self, name, method, release):
        self.name, self.method, self.release = name, method, release

    def loss(self, a):
        return _loss_from_arguments(self.method, a["model"], a["X"], a["alpha"], a["lambda_"],
                                    a["add_bias"], a["gamma"], a["n_levels"], a["calibration"],
                                    a["eps_min"], a["eps_max"])

    def prepare(self, data, a):
        setup = _setup(a["model"], *data, a["alpha"], a["lambda_"], a["upper_bounds"],
                       a["lower_bounds"], a["add_bias"], a["gamma"], a["n_levels"],
                       a["calibration"], a["eps_min"], a["eps_max"])
        return [(None, functools.partial(self.release, setup, a))]


_ACCURACY_FIRST = _MethodPlan("accuracy_first_erm", "noise_reduction", _accuracy_first_release)
_DOUBLING = _MethodPlan("doubling_erm", "doubling", _doubling_release)
_THEORY = _MethodPlan("theory_erm", "theory", _theory_release)
