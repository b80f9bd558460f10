"""Private confidence intervals for regularised ERM (Wang, Kifer and Lee 2019): logistic
regression and the Huber SVM, by objective or output perturbation, under pure eps-DP or
rho-zCDP.

The released coefficients theta~, a private Hessian H~ and a private gradient covariance
Sigma~ compose to the caller's total budget; the intervals are post-processing. Derivations
(conventions, draw order, exact noise): :ref:`guide-confint-erm`.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random, accounting
from ..erm import _losses as losses
from ..erm.blocks import regularizer_l2
from ..erm._design import coefficient_names, prepare_design
from ..erm.models import LogisticRegressionDP, svmDP
from ..erm._solvers import EXACT_GRADIENT_TOLERANCE, margin_newton
from ._matrices import (
    gaussian_release,
    gaussian_release_variance,
    gradient_covariance,
    hessian_sensitivity,
    notion_loss,
    objective_eps_prime,
    priv_spd_mat,
    regularized_hessian,
    sigma_sensitivity,
    spd_eigen,
    spherical_laplace,
)

__all__ = [
    "ERMConfidenceIntervals",
    "confintDP",
    "confintERM",
]

# The share of the coefficients' eps that releases objective perturbation's theta~ near the
# solver's minimiser (_release_near_minimiser); the rest runs the objective perturbation.
NEAR_MINIMISER_SHARE = 1.0 / 100.0

LOSSES = losses.NAMES  # the margin losses f(z), z = y theta'x: dppack.erm._losses
METHODS = ("objective", "output")
# Budget split (Wang, Kifer and Lee 2019, Section 7): DP (eps/2, eps/4, eps/4); zCDP 4 : 1 : 1.
DEFAULT_SPLITS = {"DP": (2.0, 1.0, 1.0), "zCDP": (4.0, 1.0, 1.0)}


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


def _percent(p):
    """R's confint column label: format(100 p, digits = 3) followed by ' %'."""
    return f"{100.0 * p:.3g} %"


@dataclass(frozen=True)
class ERMConfidenceIntervals:
    """Private coefficients with confidence intervals (a :func:`confintERM` result).

    Attributes
    ----------
    coeff, lower, upper : ndarray
        The private estimate and the interval bounds on the raw X's scale (bias first).
    level : float
        Confidence level 1 - alpha.
    names : list of str
        Coefficient names ("(Intercept)" first with ``add_bias``).
    notion : {'DP', 'zCDP'}
    eps, rho : float or None
        The total budget of the whole release (the other is None).
    budgets : tuple of three floats
        The split (phi_1, phi_2, phi_3) in the notion's unit; they sum to the total.
    eps_objective : float or None
        The eps of objective perturbation (None for output perturbation).
    eps_prime : float or None
        The eps' of objective perturbation.
    loss, perturbation_method : str
    gamma, c : float
        DPpack's gamma and the paper's c = gamma / (2n).
    n_draws : int
        Monte Carlo draws (0 for the closed form: output, zCDP).
    privacy_ : PrivacyLoss
        What the whole release spent.

    Parameters
    ----------
    coeff, lower, upper, level, names, notion, eps, rho, budgets, eps_objective, eps_prime
        The attributes above, in this order.
    loss, perturbation_method, gamma, c, n_draws, privacy_
        The attributes above, in this order.

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1).

    Examples
    --------
    >>> from dppack import confintERM
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> ci = confintERM(X, y, [200, 70], [50, 15], gamma=10.0, eps=2.0, add_bias=True,
    ...                 n_draws=2000, random_state=1)
    >>> ci.names, ci.budgets
    (['(Intercept)', 'glu', 'bmi'], (1.0, 0.5, 0.5))
    >>> print(ci.privacy())
    DP with eps = 2 in total (coefficients, Hessian, covariance: eps = 1, 0.5, 0.5)
    """

    coeff: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float
    names: list
    notion: str
    eps: object
    rho: object
    budgets: tuple
    eps_objective: object
    eps_prime: object
    loss: str
    perturbation_method: str
    gamma: float
    c: float
    n_draws: int = field(default=0)
    privacy_: object = field(default=None)

    def approx_dp_eps(self, delta):
        """The eps of (eps, delta)-DP: ``eps``, or rho + 2 sqrt(rho log(1/delta)) for zCDP."""
        if self.notion == "DP":
            return self.eps
        return accounting.zcdp_to_approx_dp(self.rho, delta)

    def privacy(self):
        """One line stating the guarantee of the release and the split used."""
        unit = "eps" if self.notion == "DP" else "rho"
        total = self.eps if self.notion == "DP" else self.rho
        parts = ", ".join(f"{p:.6g}" for p in self.budgets)
        text = (f"{self.notion} with {unit} = {total:.6g} in total "
                f"(coefficients, Hessian, covariance: {unit} = {parts})")
        if self.eps_objective is not None and self.notion == "zCDP":
            text += f"; objective perturbation at eps = {self.eps_objective:.6g}"
        return text

    def to_frame(self):
        """A pandas DataFrame in the style of R's ``confint()``."""
        import pandas as pd

        alpha = 1.0 - self.level
        return pd.DataFrame({"estimate": self.coeff, _percent(alpha / 2): self.lower,
                             _percent(1.0 - alpha / 2): self.upper}, index=list(self.names))


# --------------------------------------------------------------------------------------------
# Argument checks (ours: all run before any noise is drawn)
# --------------------------------------------------------------------------------------------


def _budget_loss(eps, rho):
    """The PrivacyLoss of confintERM's total budget (from the arguments alone)."""
    return notion_loss(*_check_budget(eps, rho))


def _check_budget(eps, rho):
    if (eps is None) == (rho is None):
        raise _messages.value_error("Give exactly one privacy budget: eps (pure DP) or rho (zCDP).")
    if eps is not None:
        return "DP", _checks.check_finite_positive_scalar(eps, "eps")
    return "zCDP", _checks.check_finite_positive_scalar(rho, "rho")


def _check_split(budget_split, notion):
    if budget_split is None:
        split = np.asarray(DEFAULT_SPLITS[notion])
    else:
        split = _checks.as_numeric_array(
            budget_split, "budget.split must be three positive numbers.").ravel()
        message = ("budget.split must be three positive finite numbers (shares of the budget "
                   "for the coefficients, the Hessian and the covariance).")
        if split.size != 3:
            raise _messages.value_error(message)
        _checks.check_positive_values(split, message)
    return split / split.sum()


# --------------------------------------------------------------------------------------------
# The procedure (Wang, Kifer and Lee 2019, Algorithms 1, 3, 4 and 5)
# --------------------------------------------------------------------------------------------


def confintERM(X, y, upper_bounds, lower_bounds, gamma, eps=None, rho=None, loss="logistic",
               perturbation_method="objective", huber_h=0.5, add_bias=False, level=0.95,
               budget_split=None, n_draws=10000, sigma_bound="theta", eig_floor=None,
               random_state=None, accountant=None):
    """Private coefficients and confidence intervals for logistic regression or the Huber SVM
    (Wang, Kifer and Lee 2019).

    theta~ by the improved objective perturbation or by output perturbation (first share), a
    private Hessian and gradient covariance at theta~ (the other shares), then Monte Carlo
    quantiles, or the closed form for output perturbation under zCDP. The whole release is
    eps-DP (``eps``) or rho-zCDP (``rho``).

    Parameters
    ----------
    X : array_like or data frame, n x p
        Never modified; clipped and scaled as DPpack's models do.
    y : array_like, n labels 0/1
    upper_bounds, lower_bounds : array_like, p public bounds of X's columns
    gamma : float
        > 0; the penalty (gamma/n) ||theta||^2 / 2 (the paper's c = gamma / (2n)).
    eps, rho : float
        Exactly one: the total pure DP budget, or the total zCDP budget.
    loss : {'logistic', 'huber'}
    perturbation_method : {'objective', 'output'}
    huber_h : float
        Huber smoothing h > 0; ignored for logistic.
    add_bias : bool
        Prepend a column of ones (bias coefficient first).
    level : float, in (0, 1)
    budget_split : array_like of 3 positive numbers, optional
        Shares for (coefficients, Hessian, covariance); default DP 2 : 1 : 1, zCDP 4 : 1 : 1.
    n_draws : int
        Monte Carlo draws (the paper's m = 10,000).
    sigma_bound : {'theta', 'bound'}
        The covariance's sensitivity for logistic: 2 S(||theta~||)^2 / n or the data-free 2/n.
    eig_floor : float, optional
        Floor (> 0) of the eigenvalues of H~ and Sigma~; default 2c.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged the whole release once under 'confintERM' (None: the session's), before the data
        are read.

    Returns
    -------
    ERMConfidenceIntervals

    Raises
    ------
    ValueError
        For invalid options or data, when objective perturbation cannot meet its budget (gamma
        too small), or on an overspend, before any noise is drawn.

    References
    ----------
    Wang, Kifer and Lee (2019), Differentially private confidence intervals for empirical risk
    minimization, Journal of Privacy and Confidentiality 9(1).

    Examples
    --------
    95% intervals for the logistic regression of diabetes on glucose and body-mass index,
    at eps = 2 for the coefficients and the intervals together:

    >>> from dppack import confintERM
    >>> import numpy as np
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> ci = confintERM(X, y, upper_bounds=[200, 70], lower_bounds=[50, 15], gamma=10.0,
    ...                 eps=2.0, add_bias=True, n_draws=2000, random_state=1)
    >>> ci.names, ci.privacy_
    (['(Intercept)', 'glu', 'bmi'], PrivacyLoss.pure(eps=2.0))
    >>> bool(np.all((ci.lower <= ci.coeff) & (ci.coeff <= ci.upper)))
    True
    """
    _backends.refuse_dask("confintERM", X, y)
    arguments = dict(upper_bounds=upper_bounds, lower_bounds=lower_bounds, gamma=gamma, eps=eps,
                     rho=rho, loss=loss, perturbation_method=perturbation_method,
                     huber_h=huber_h, add_bias=add_bias, level=level,
                     budget_split=budget_split, n_draws=n_draws, sigma_bound=sigma_bound,
                     eig_floor=eig_floor)
    return _plans.run(CONFINT_ERM, (X, y), arguments, random_state, accountant)


class _ConfintERM(_plans.Plan):
    """confintERM: every check and the data's design, then one draw of the procedure."""

    name = "confintERM"

    def loss(self, a):
        return _budget_loss(a["eps"], a["rho"])

    def prepare(self, data, a):
        return [(None, _confint(*data, **a))]


CONFINT_ERM = _ConfintERM()


def _confint(X, y, upper_bounds, lower_bounds, gamma, eps, rho, loss, perturbation_method,
             huber_h, add_bias, level, budget_split, n_draws, sigma_bound, eig_floor):
    """confintERM's checks and design; returns the draw ``(rng, privacy)`` of the procedure."""
    notion, total = _check_budget(eps, rho)
    loss = _checks.check_choice(loss, "loss", LOSSES)
    method = _checks.check_choice(perturbation_method, "perturbation.method", METHODS)
    gamma = _checks.check_finite_positive_scalar(gamma, "gamma")
    huber_h = _checks.check_finite_positive_scalar(huber_h, "huber.h")
    add_bias = _checks.check_flag(add_bias, "add.bias")
    level = _checks.check_number(level, "level", 0, 1, closed="neither",
                                 message="level must be in (0, 1).")
    split = _check_split(budget_split, notion)
    n_draws = _checks.check_whole(n_draws, "n.draws", 2)
    sigma_bound = _checks.check_choice(sigma_bound, "sigma.bound", ("theta", "bound"))
    # > 0, not >= 0: Algorithms 3 and 5 invert H~, and a floor of 0 lets a noisy eigenvalue
    # at 0 through, which gave NaN intervals (Algorithm 2 floors at 2c > 0)
    eig_floor = _checks.check_finite_positive_scalar(eig_floor, "eig.floor", optional=True)
    # rows clipped and scaled into the unit L2 ball, labels -1/+1 (as DPpack's models)
    design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale="l2",
                            labels="signed")
    Xs, ys, scale = design["X"], design["y"], design["scale"]
    n, d = Xs.shape
    margin = losses.margin_loss(loss, huber_h)
    c = gamma / (2.0 * n)  # gamma_DPpack = 2 n c
    floor = 2.0 * c if eig_floor is None else eig_floor
    budgets = tuple(float(s) * total for s in split)
    eps1 = None
    eps_prime = None
    if method == "objective":
        # zCDP: phi_1 is still an eps, worth eps_1^2/2 of rho (Wang, Kifer and Lee, Theorem 2)
        eps1 = budgets[0] if notion == "DP" else math.sqrt(2.0 * budgets[0])
        # the objective gets (1 - NEAR_MINIMISER_SHARE) eps1, the release near the solver's
        # minimiser the rest (_release_near_minimiser); checked before any draw
        eps_prime = objective_eps_prime((1.0 - NEAR_MINIMISER_SHARE) * eps1, margin.curvature,
                                        n, c)

    def draw(rng, privacy):
        theta, release_scale = _private_estimate(Xs, ys, margin, c, method, notion,
                                                 budgets[0], eps1, eps_prime, rng)
        s_H = hessian_sensitivity(margin.curvature, n)
        sup_first = (margin.sup_first_at(float(np.linalg.norm(theta)))
                     if sigma_bound == "theta" else 1.0)
        s_Sigma = sigma_sensitivity(sup_first, n)
        H_values, H_vectors = spd_eigen(regularized_hessian(Xs, ys, theta, margin, c), s_H,
                                         budgets[1], notion, floor, rng)
        S_values, S_vectors = spd_eigen(gradient_covariance(Xs, ys, theta, margin, c), s_Sigma,
                                         budgets[2], notion, floor, rng)
        alpha = 1.0 - level
        if method == "output" and notion == "zCDP":
            lower, upper = _output_zcdp_interval(theta, H_values, H_vectors, S_values,
                                                 S_vectors, budgets[0], n, c, alpha)
            draws_used = 0
        else:
            draws = _monte_carlo_draws(theta, H_values, H_vectors, S_values, S_vectors,
                                       method, eps_prime, release_scale, n, n_draws, rng)
            lower, upper = np.quantile(draws, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
            draws_used = n_draws
        return ERMConfidenceIntervals(
            coeff=theta / scale, lower=lower / scale, upper=upper / scale, level=level,
            names=coefficient_names(X, d - int(add_bias), add_bias), notion=notion,
            eps=total if notion == "DP" else None, rho=total if notion == "zCDP" else None,
            budgets=budgets, eps_objective=eps1, eps_prime=eps_prime, loss=loss,
            perturbation_method=method, gamma=gamma, c=c, n_draws=draws_used,
            privacy_=privacy,
        )
    return draw


def _certified_radius(c):
    """r = g_tol / (2c): a certified point's distance from the exact minimiser."""
    return EXACT_GRADIENT_TOLERANCE / (2.0 * c)


def _l1_bound(l2, k):
    """sqrt(k) ``l2`` rounded up by 1 + 2^-50 (Cauchy-Schwarz)."""
    return math.sqrt(k) * l2 * (1.0 + 2.0 ** -50)


def _laplace_release_scale(l1, eps, k):
    """The per-coordinate scale g t / s (>= l1 / eps) of the discrete Laplace release."""
    k_grid, _, t, s = _random.laplace_grid(float(l1), float(eps), int(k))
    return math.ldexp(t / s, k_grid)


def _release_near_minimiser(theta, radius, eps, rng):
    """Release a certified approximate minimiser exactly: ``theta`` on a power-of-two grid plus
    discrete Laplace noise of L1 sensitivity 2 ``radius`` sqrt(d) at ``eps`` (approximate minima
    perturbation, Iyengar et al. 2019; proof: :ref:`guide-confint-erm`).

    Examples
    --------
    >>> import numpy as np
    >>> out = _release_near_minimiser(np.array([0.25, -1.5]), 1e-8, 0.01,
    ...                               _random.as_generator(1))
    >>> out.shape, bool(np.all(np.abs(out - [0.25, -1.5]) < 1e-4))
    ((2,), True)
    """
    theta = np.asarray(theta, dtype=np.float64)
    return _random.discrete_laplace_noise(theta, _l1_bound(2.0 * radius, theta.size), eps, rng)


def _private_estimate(X, y, loss, c, method, notion, phi1, eps1, eps_prime, rng):
    """theta~ by Algorithm 1 (objective) or 4 (output) and the scale of its Laplace noise (None
    under zCDP output perturbation; :ref:`guide-confint-erm`).
    """
    n, d = X.shape
    radius = _certified_radius(c)
    if method == "objective":
        b = _random.l2_laplace(d, eps_prime / 2.0, rng)  # data-free, in the objective
        theta = margin_newton(X, y, loss.value, loss.first, loss.second, c, b)
        eps_near = NEAR_MINIMISER_SHARE * eps1
        return (_release_near_minimiser(theta, radius, eps_near, rng),
                _laplace_release_scale(_l1_bound(2.0 * radius, d), eps_near, d))
    theta_hat = margin_newton(X, y, loss.value, loss.first, loss.second, c, np.zeros(d))
    sensitivity = 1.0 / (n * c) + 2.0 * radius
    if notion == "DP":
        l1 = _l1_bound(sensitivity, d)
        return (_random.discrete_laplace_noise(theta_hat, l1, phi1, rng),
                _laplace_release_scale(l1, phi1, d))
    return gaussian_release(theta_hat, sensitivity, phi1, rng), None


def _monte_carlo_draws(theta, H_values, H_vectors, S_values, S_vectors, method, eps_prime,
                       release_scale, n, m, rng):
    """The m draws of Algorithm 3 step 6 or Algorithm 5 (pure DP): data-free post-processing."""
    d = theta.size
    # G_i ~ N(0, Sigma~) through Sigma~ = V diag(lam) V'
    G = (_random.normal(1.0, (m, d), rng) * np.sqrt(S_values)) @ S_vectors.T
    release = _random.laplace(release_scale, (m, d), rng)
    if method == "objective":
        beta = _random.l2_laplace(d, eps_prime / 2.0, rng, size=m)  # the law of b
        A = G + beta / math.sqrt(n)
        shift = theta - release
    else:
        A = G
        shift = theta - release
    # H~^{-1} A_i for every row at once (H~ symmetric): A V diag(1/lam) V'
    return shift + ((A @ H_vectors) / H_values) @ H_vectors.T / math.sqrt(n)


def _output_zcdp_interval(theta, H_values, H_vectors, S_values, S_vectors, rho1, n, c, alpha):
    """Algorithm 5's closed form theta~ +- z_(alpha/2) sqrt(U_jj) (:ref:`guide-confint-erm`)."""
    from scipy.stats import norm

    H_inv = (H_vectors / H_values) @ H_vectors.T
    Sigma = (S_vectors * S_values) @ S_vectors.T
    sensitivity = 1.0 / (n * c) + 2.0 * _certified_radius(c)
    noise = gaussian_release_variance(theta.size, sensitivity, rho1)
    variance = noise + np.diag(H_inv @ Sigma @ H_inv) / n
    half = norm.ppf(1.0 - alpha / 2.0) * np.sqrt(variance)
    return theta - half, theta + half


# --------------------------------------------------------------------------------------------
# DPpack's models
# --------------------------------------------------------------------------------------------


def confintDP(model, X, y, upper_bounds, lower_bounds, add_bias=False, level=0.95, rho=None,
              budget_split=None, n_draws=10000, random_state=None, accountant=None):
    """Private coefficients and confidence intervals with a ``LogisticRegressionDP``'s or a linear
    ``svmDP``'s settings (see :func:`confintERM`).

    The model's ``eps`` is the total budget (pure DP) unless ``rho`` is given (zCDP); its
    ``gamma``, ``perturbation_method`` and ``huber_h`` are used as they are. The model is neither
    fitted nor modified.

    Parameters
    ----------
    model : LogisticRegressionDP or svmDP
        With regularizer 'l2'; an svmDP with the linear kernel.
    X, y, upper_bounds, lower_bounds, add_bias :
        As for the model's ``fit``.
    level, budget_split, n_draws :
        As for :func:`confintERM`.
    rho : float, optional
        Total zCDP budget, instead of the model's eps.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged once under 'confintDP', as :func:`confintERM`.

    Returns
    -------
    ERMConfidenceIntervals

    Raises
    ------
    ValueError
        For another model or settings the intervals do not cover (another regularizer, the
        Gaussian kernel, eps = Inf), and as :func:`confintERM`.

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1).

    Examples
    --------
    The settings of a DPpack model, here under rho-zCDP (closed-form intervals need output
    perturbation; objective perturbation uses Monte Carlo):

    >>> from dppack import confintDP
    >>> import dppack
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> model = dppack.LogisticRegressionDP("l2", eps=2.0, gamma=10.0)
    >>> ci = confintDP(model, X, y, [200, 70], [50, 15], add_bias=True, rho=1.0,
    ...                random_state=1)
    >>> ci.notion, ci.privacy_, model.coeff is None  # the model is not fitted
    ('zCDP', PrivacyLoss.zcdp(rho=1.0), True)
    """
    _backends.refuse_dask("confintDP", X, y)
    arguments = dict(model=model, upper_bounds=upper_bounds, lower_bounds=lower_bounds,
                     add_bias=add_bias, level=level, rho=rho, budget_split=budget_split,
                     n_draws=n_draws)
    return _plans.run(CONFINT_DP, (X, y), arguments, random_state, accountant)


class _ConfintDP(_plans.Plan):
    """confintDP: the model's checks, then :class:`_ConfintERM`'s with its settings."""

    name = "confintDP"

    def loss(self, a):
        rho = a["rho"]
        return _budget_loss(getattr(a["model"], "eps", None) if rho is None else None, rho)

    def prepare(self, data, a):
        model, rho = a["model"], a["rho"]
        if isinstance(model, LogisticRegressionDP):
            loss, huber_h = "logistic", 0.5
        elif isinstance(model, svmDP):
            if model.kernel != "linear":
                raise _messages.value_error("confintDP needs an svmDP with the linear kernel.")
            loss, huber_h = "huber", model.huber_h
        else:
            raise _messages.value_error("model must be a LogisticRegressionDP or an svmDP.")
        if model.regularizer is not regularizer_l2:
            raise _messages.value_error(
                "confintDP needs a model with regularizer 'l2' (the intervals assume "
                "the penalty (gamma/n) ||theta||^2 / 2).")
        eps = None
        if rho is None:
            eps = _checks.check_positive_scalar(model.eps, "eps")
            if not math.isfinite(eps):
                raise _messages.value_error(
                    "eps = Inf is not private: give the model a finite eps (or pass "
                    "rho) to get private intervals.")
        return [(None, _confint(*data, a["upper_bounds"], a["lower_bounds"], model.gamma, eps,
                                rho, loss, model.perturbation_method, huber_h, a["add_bias"],
                                a["level"], a["budget_split"], a["n_draws"], "theta", None))]


CONFINT_DP = _ConfintDP()
