"""The parts of the CMS frameworks (Chaudhuri, Monteleoni and Sarwate 2011) that other fits share:
a fit's privacy loss, DPpack's messages, the penalised objective, objective perturbation's
noise and parameters, output perturbation's sensitivity. Derivations: :ref:`guide-erm-cms`.
"""

import math

import numpy as np

from .. import _checks, _messages, _random, accounting
from ._solvers import OPTIMALITY_SLACK

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
    """The PrivacyLoss of one private fit; ``ValueError`` for eps = Inf (the eps = Inf rules of
    a fit: ``erm/_fit_plan.py``)."""
    if not math.isfinite(eps):
        raise _messages.value_error(INFINITE_EPS_MESSAGE)
    return accounting.PrivacyLoss.approx(eps, delta)


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
    """The ``_checks.as_vector`` message template for the user function ``name``."""
    return f"{name} returned {{size}} values where {{expected}} ({what}) were expected."


def map_jacobian(value, d, n):
    """``mapXy.gr``'s result as a d x n matrix (``ValueError`` when ambiguous)."""
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
    """``objective(theta)`` -> J or (J, grad J), J = L + (gamma/n) R + (1/n) b'theta
    + (Delta/2)||theta||^2, L from ``data(theta, with_gradient)``.
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
    """Perturbation noise supplied from outside a fit (stability-based validation, Chaudhuri and
    Vinterbo 2013): one data-free draw shared by candidates of different rates.

    R (density proportional to exp(-||r||) on R^d) scaled by 1 / rate is objective
    perturbation's b; L (d standard Laplace values) gives the release noise round(L_j t / s),
    the rounded Laplace law, eps-DP on the fit's exact grid. Not exact: R and L are float draws
    (data-free), and round(L_j t / s) is not the discrete Laplace a fresh fit draws
    (:ref:`guide-erm-release`).

    Parameters
    ----------
    vector : array_like
        R (d values).
    coordinates : array_like, optional
        L (d values); None means L = 0 (no release noise: not private, for tests).
    """

    def __init__(self, vector, coordinates=None):
        self.vector = np.array(vector, dtype=np.float64).ravel()
        self.coordinates = (np.zeros(self.vector.size) if coordinates is None
                            else np.array(coordinates, dtype=np.float64).ravel())

    @classmethod
    def draw(cls, d, rng):
        """R (rate 1), then L, from a NumPy Generator."""
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
        """L, checked to have d values."""
        self._check(d)
        return self.coordinates


def perturbation_noise(d, rate, rng, noise=None):
    """``_random.l2_laplace(d, rate, rng)``, or ``noise`` scaled to ``rate``."""
    if noise is None:
        return _random.l2_laplace(d, rate, rng)
    return noise.scaled(d, rate)


OBJECTIVE_BRANCHES = ("auto", "dppack")


def objective_perturbation_parameters(eps, gamma, c, n, row_norm_bound=1.0,
                                      weights_upper_bound=1.0, branch="auto"):
    """(eps', Delta) of objective perturbation (gamma = n Lambda, DPpack's convention).

    ``branch='dppack'`` is DPpack 0.2.2's rule; ``'auto'`` takes the extra regularisation
    whenever it leaves the larger noise budget: eps' = max(eps'(0), eps/2). With row bound B and
    weight bound W, c W B^2 stands for c. Derivation: :ref:`guide-erm-cms`.

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
    """Output perturbation's L2 sensitivity (2 w_bar B / gamma)(1 + tau), rounded up by 2^-50
    (Chaudhuri, Monteleoni and Sarwate 2011, Corollary 8, widened for the solver tolerance tau).

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
    """eps / :func:`output_perturbation_sensitivity`: the rate of DPpack's l2-Laplace output noise
    (stability-based validation orders candidates by it).
    """
    bound = max(1.0, row_norm_bound)
    return gamma * eps / (2.0 * weights_upper_bound * bound * (1.0 + OPTIMALITY_SLACK))
