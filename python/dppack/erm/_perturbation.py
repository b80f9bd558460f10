"""The parts of the CMS frameworks (Chaudhuri, Monteleoni and Sarwate 2011) that other fits share:
the privacy loss of a fit, DPpack's messages, the penalised objective, objective perturbation's
noise and parameters, and output perturbation's sensitivity. The derivations are in the guide,
:doc:`/guide/erm-cms`."""

import math

import numpy as np

from .. import _checks, _messages, _random, accounting
from .solvers import OPTIMALITY_SLACK

# DPpack's messages (DPpack's EmpiricalRiskMinimizationDP.CMS and DPpack's WeightedERMDP.CMS)
METHODS = ("output", "objective")
METHOD_MESSAGE = "perturbation.method must be one of 'output' or 'objective'."
C_MESSAGE = "c must be given for 'objective' perturbation.method."
WEIGHTED_OBJECTIVE_MESSAGE = (
    "Currently, weighting ERM samples only tested for SVM with output  perturbation and "
    "should not be used with objective perturbation."
)  # DPpack's text, double space included

INFINITE_EPS_MESSAGE = (
    "eps = Inf fits without noise, which is not private and cannot be charged to a privacy "
    "accountant: give a finite eps, or fit without an accountant."
)


def fit_loss(eps, delta=0.0):
    """The PrivacyLoss of one private fit: pure eps-DP, or (eps, delta)-DP when delta > 0.

    Raises ``ValueError`` (:data:`INFINITE_EPS_MESSAGE`) for eps = Inf, a fit without noise,
    which has no privacy guarantee to charge.
    """
    if not math.isfinite(eps):
        raise _messages.value_error(INFINITE_EPS_MESSAGE)
    return accounting.PrivacyLoss.approx(eps, delta)


def refuse_infinite_eps(bill, eps):
    """Refuse, before the data are read, a fit without noise (eps = Inf) that an accountant
    would charge: ``bill`` is the fit's :class:`dppack.accounting.Charge`."""
    if bill.accountant is not None and not math.isfinite(eps):
        raise _messages.value_error(INFINITE_EPS_MESSAGE)


def spend_fit(bill, eps):
    """``bill.spend()`` (the fit's PrivacyLoss, recorded with its accountant) for a private
    fit; None for eps = Inf, which no accountant charges (:func:`refuse_infinite_eps`)."""
    return bill.spend() if math.isfinite(eps) else None


OUTPUT_GRADIENT_MESSAGE = (
    "perturbation.method 'output' needs mapXy.gr, loss.gr and regularizer.gr: the fit checks "
    "with the gradient that it reached the minimiser the noise is calibrated to."
)

# What a user's function returned, checked by ``_checks.as_vector`` (templates of its message)
MODEL_OUTPUT_MESSAGE = "A model function returned {size} values where {expected} were expected."
REGULARIZER_OUTPUT_MESSAGE = "The regularizer returned {size} values where one was expected."


# --------------------------------------------------------------------------------------------
# The penalised objective and the noise
# --------------------------------------------------------------------------------------------


def output_message(name, what):
    """The ``_checks.as_vector`` template for the user function ``name`` (R spelling, e.g.
    ``"loss.gr"``; Python's is rendered by :mod:`dppack._messages`) that must return
    ``what`` (e.g. ``"one per row"``)."""
    return f"{name} returned {{size}} values where {{expected}} ({what}) were expected."


def map_jacobian(value, d, n):
    """What ``mapXy.gr(X, theta)`` returned as the d x n matrix it must be (a vector only
    where that is unambiguous: d = 1 or n = 1); ``ValueError`` otherwise, never a silent
    reshape of an n x d matrix."""
    array = np.asarray(value, dtype=np.float64)
    if array.shape == (d, n):
        return array
    if array.ndim <= 1 and array.size == d * n and min(d, n) == 1:
        return array.reshape(d, n)
    raise _messages.value_error(
        "mapXy.gr returned an array of shape {shape} where a {d} x {n} matrix (coefficients x "
        "rows) was expected.", shape=array.shape, d=d, n=n)


def penalised_objective(data, n, d, gamma, regularizer, regularizer_gr, b, Delta,
                        with_gradient):
    """The CMS objective J(theta) = L(theta) + (gamma/n) R(theta) + (1/n) b'theta
    + (Delta/2)||theta||^2, for the solvers.

    ``data(theta, with_gradient)`` returns the data part L(theta) = (1/n) sum_i loss_i and its
    gradient (None when not ``with_gradient``): a fused
    :class:`dppack.erm.losses.EmpiricalRisk`, or the user's functions. Returns
    ``objective(theta)``: J, or (J, grad J) when ``with_gradient``; the regularizer's outputs
    are checked (one value; d gradient values).
    """

    def objective(theta):
        data_value, data_grad = data(theta, with_gradient)
        penalty = _checks.as_vector(regularizer(theta), 1, REGULARIZER_OUTPUT_MESSAGE)[0]
        value = (data_value + gamma / n * float(penalty)
                 + (b @ theta) / n + Delta / 2.0 * (theta @ theta))
        if not with_gradient:
            return value
        penalty_gr = _checks.as_vector(regularizer_gr(theta), d,
                                       output_message("regularizer.gr", "one per coefficient"))
        grad = (data_grad + gamma / n * penalty_gr
                + b / n + Delta * theta)
        return value, grad

    return objective


class StandardNoise:
    """Perturbation noise supplied from outside a fit (stability-based validation, Chaudhuri
    and Vinterbo 2013): one standard draw shared by candidates of different rates.

    It holds two data-free vectors, drawn once: R with density proportional to exp(-||r||) on
    R^d (norm ~ Gamma(d, 1), uniform direction; ``vector``), and L, d independent standard
    Laplace values (density exp(-|x|)/2; ``coordinates``).

    * Objective perturbation's noise b at rate ``rate`` (eps'/2 B w_bar) is R / rate, whose
      density is proportional to exp(-rate ||b||): the law of ``_random.l2_laplace(d, rate)``.
    * The release noise of both methods (:func:`dppack.erm.approximate.release`), which a
      fit draws as exact discrete Laplace integers on the grid g = 2^k of its own
      sensitivity and eps, is round(L_j t / s) in grid units here (t / s the scale of the
      exact draw): the rounded Laplace law, eps-DP by the same shift argument
      (:func:`dppack.erm.approximate.release`, Notes). What is exact: the grid, the
      rounding of the minimiser and the float release (a function of an integer vector).
      What is not: R and L are float draws (data-free), and round(L_j t / s) is the
      rounded continuous Laplace, not the discrete Laplace a fresh fit draws.

    So one draw serves candidates with different gamma and eps, each getting noise of its
    own, correct scale; the fit itself stays deterministic given the draw
    (:func:`fit_with_noise`).

    Parameters
    ----------
    vector : array_like
        R (d values).
    coordinates : array_like, optional
        L (d values). None means L = 0: the release then adds no noise, and the fit is not
        private (the certified minimiser is released rounded to the grid); for tests and
        callers that study the objective's noise alone. :meth:`draw` always draws L.
    """

    def __init__(self, vector, coordinates=None):
        self.vector = np.array(vector, dtype=np.float64).ravel()
        self.coordinates = (np.zeros(self.vector.size) if coordinates is None
                            else np.array(coordinates, dtype=np.float64).ravel())

    @classmethod
    def draw(cls, d, rng):
        """R (rate 1, ``_random.l2_laplace``), then L (d standard Laplace values,
        ``_random.laplace``), from a NumPy Generator."""
        vector = _random.l2_laplace(d, 1.0, rng)
        return cls(vector, _random.laplace(1.0, int(d), rng))

    def _check(self, d):
        if self.vector.size != d or self.coordinates.size != d:
            raise _messages.value_error(
                "The supplied noise has {size} values; the fit needs {d}.",
                size=self.vector.size, d=d)

    def scaled(self, d, rate):
        """R / rate (zeros for an infinite rate, as ``_random.l2_laplace``)."""
        self._check(d)
        if rate == math.inf:
            return np.zeros(d)
        return self.vector / rate

    def coordinates_for(self, d):
        """L, checked to have d values (scaled and rounded by the release step)."""
        self._check(d)
        return self.coordinates


def perturbation_noise(d, rate, rng, noise=None):
    """``_random.l2_laplace(d, rate, rng)``, or the supplied :class:`StandardNoise` scaled to
    ``rate`` (then nothing is drawn from ``rng``)."""
    if noise is None:
        return _random.l2_laplace(d, rate, rng)
    return noise.scaled(d, rate)


OBJECTIVE_BRANCHES = ("auto", "dppack")


def objective_perturbation_parameters(eps, gamma, c, n, row_norm_bound=1.0,
                                      weights_upper_bound=1.0, branch="auto"):
    """(eps', Delta) of objective perturbation (gamma = n Lambda, DPpack's convention).

    Parameters
    ----------
    eps : float
        The objective's budget (> 0, finite).
    gamma : float
        n Lambda, > 0.
    c : float
        Bound on the loss's curvature in the score.
    n : int
        The number of rows.
    row_norm_bound : float, default 1
        B: for B > 1, c B^2 stands for c and the noise rate is eps' / (2B).
    weights_upper_bound : float, default 1
        W: with weights in [0, W], c W B^2 stands for c and the rate is eps' / (2 W B)
        (:mod:`dppack.erm.weighting`).
    branch : {'auto', 'dppack'}, default 'auto'
        The rule that picks Delta (below).

    Returns
    -------
    (float, float)
        eps', the budget of the objective's noise (rate eps' / (2 W B)), and Delta >= 0,
        the extra l2 regularisation (Delta/2)||theta||^2 of the objective.

    Notes
    -----
    Chaudhuri, Monteleoni and Sarwate (2011), Theorem 9's proof bounds the density ratio of
    a release on neighbours by e^eps' (the noise) times (1 + c/(n (Lambda + Delta)))^2 (the
    Jacobian), for any Delta >= 0: so every Delta >= 0 with
    eps' = eps - 2 ln(1 + c / (gamma + n Delta)) > 0 is eps-DP. Algorithm 2 takes Delta = 0
    when eps'(0) = eps - 2 ln(1 + c/gamma) > 0, else the Delta at which the log term is
    eps/2, Delta = c / (n (e^(eps/4) - 1)) - gamma/n, and eps' = eps/2 (``'dppack'``,
    DPpack 0.2.2's rule). ``'auto'`` takes that second branch whenever it leaves the larger
    noise budget, eps'(0) < eps/2: eps' = max(eps'(0), eps/2). There 1 + c/gamma >
    e^(eps/4), so Delta > 0; at eps'(0) = eps/2 both branches give Delta = 0, so eps' is
    continuous and increasing in eps and Delta continuous and non-increasing (no dip as eps
    grows). The rule uses no data.

    Examples
    --------
    >>> e, D = objective_perturbation_parameters(0.5, 1.0, 0.25, 500, branch="dppack")
    >>> round(e, 4), D  # 0.5 - 2 ln(1.25): little left for the noise
    (0.0537, 0.0)
    >>> e, D = objective_perturbation_parameters(0.5, 1.0, 0.25, 500)
    >>> round(e, 4), round(500 * D, 4)  # eps/2, n Delta = 0.25 / (e^(1/8) - 1) - 1
    (0.25, 0.8776)
    """
    if branch not in OBJECTIVE_BRANCHES:
        raise _messages.value_error("branch must be one of 'auto' or 'dppack'.")
    c = c * weights_upper_bound * max(1.0, row_norm_bound) ** 2
    eps_prime = eps - math.log1p(2.0 * c / gamma + (c / gamma) ** 2)
    threshold = eps / 2.0 if branch == "auto" else 0.0
    if eps_prime > threshold:
        return eps_prime, 0.0
    # (1 + c/(gamma + n Delta))^2 = e^(eps/2); >= 0 here (max: rounding at the breakpoint)
    delta = max(0.0, c / (n * math.expm1(eps / 4.0)) - gamma / n)
    return eps / 2.0, delta


def output_perturbation_sensitivity(gamma, weights_upper_bound=1.0, row_norm_bound=1.0):
    """The L2 sensitivity of the released minimiser of output perturbation.

    Delta2 = (2 w_bar B / gamma)(1 + tau): 2 w_bar B / gamma for the exact minimiser
    (Chaudhuri, Monteleoni and Sarwate 2011, Corollary 8 with DPpack's gamma = n Lambda, losses
    bounded in slope by w_bar and rows by B = max(1, ``row_norm_bound``)), plus
    2 n g_tol / gamma = (2 w_bar B / gamma) tau for two minimisers certified to
    ||grad|| <= g_tol = tau w_bar B / n of a (gamma/n)-strongly convex objective
    (tau = OPTIMALITY_SLACK, :func:`dppack.erm.solvers.optimality_tolerance`). Rounded up by a
    relative 2^-50 (the float operations err by less).

    Examples
    --------
    >>> import math
    >>> math.isclose(output_perturbation_sensitivity(2.0), 1.000001, rel_tol=1e-12)
    True
    """
    bound = max(1.0, row_norm_bound)
    return (2.0 * weights_upper_bound * bound * (1.0 + OPTIMALITY_SLACK) / gamma
            * (1.0 + 2.0 ** -50))


def output_perturbation_rate(gamma, eps, weights_upper_bound=1.0, row_norm_bound=1.0):
    """eps / Delta2, Delta2 = :func:`output_perturbation_sensitivity`: the rate of
    DPpack's l2-Laplace output noise (density proportional to exp(-rate ||b||)) at this
    sensitivity; DPpack's rate is gamma eps / (2 w_bar). The fits now release with exact
    per-coordinate noise for the same sensitivity (:func:`dppack.erm.approximate.release`);
    the rate remains the scale in which stability-based validation orders candidates.
    """
    bound = max(1.0, row_norm_bound)
    return gamma * eps / (2.0 * weights_upper_bound * bound * (1.0 + OPTIMALITY_SLACK))
