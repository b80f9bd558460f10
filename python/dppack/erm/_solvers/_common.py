"""The solvers' common pieces: :class:`ConvergenceError`, the certified tolerance of CMS fits and
central differences.
"""

import numpy as np


class ConvergenceError(ValueError, RuntimeError):
    """A fit that did not reach its certified optimality tolerance and so releases nothing.

    A ``RuntimeError`` and a ``ValueError`` (R users see a DPpack-style error); public as
    ``dppack.ConvergenceError``.

    Parameters
    ----------
    *args, **kwargs
        The message, as for any exception.

    Attributes
    ----------
    args : tuple
        The message.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate 2011; Kifer, Smith and Thakurta 2012 (each proof assumes
    the exact minimiser). Certificates: :ref:`guide-erm-solvers`.

    Examples
    --------
    >>> from dppack import ConvergenceError
    >>> from dppack.erm._solvers import NOT_CONVERGED_MESSAGE
    >>> issubclass(ConvergenceError, RuntimeError) and issubclass(ConvergenceError, ValueError)
    True
    >>> str(ConvergenceError(NOT_CONVERGED_MESSAGE.format(tolerance=1e-9)))[:60]
    'The optimiser did not reach a minimiser to the required tole'
    """


# --------------------------------------------------------------------------------------------
# The certified tolerance of CMS fits (and of accuracy-first's logistic theta*)
# --------------------------------------------------------------------------------------------


# Optimality slack tau: fits must reach ||grad J|| <= tau w_bar B / n, which adds the fraction
# tau to output perturbation's sensitivity (dppack.erm.cms, "Optimality"). 1e-6 keeps the
# extra noise negligible while staying reachable: the rounding floor of a computed gradient is
# about 1e-16 (1 + ||theta||) (a mean of terms bounded by w_bar B), so g_tol = 1e-12 at
# n = 10^6 leaves four orders of margin; L-BFGS-B's stop on the objective's change (ftol) can
# leave the gradient far above g_tol when gamma/n is small, so fits finish with Newton steps.
OPTIMALITY_SLACK = 1e-6
NOT_CONVERGED_MESSAGE = (
    "The optimiser did not reach a minimiser to the required tolerance (gradient norm <= "
    "{tolerance:.3g}); no coefficients are released, since the privacy guarantee assumes the "
    "exact minimiser. Check that the loss, map and regularizer are convex and smooth and that "
    "their gradients are correct; a larger gamma makes the problem better conditioned."
)


def optimality_tolerance(n, weights_upper_bound=1.0, row_norm_bound=1.0):
    """The certified bound g_tol = OPTIMALITY_SLACK w_bar max(1, B) / n on a released CMS
    minimiser's gradient norm (why it suffices: :ref:`guide-erm-cms`).

    Parameters
    ----------
    n : int
    weights_upper_bound : float, default 1 (w_bar)
    row_norm_bound : float, default 1 (B; values below 1 count as 1)

    Returns
    -------
    float

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Corollary 8.

    Examples
    --------
    >>> from dppack.erm._solvers import optimality_tolerance
    >>> import math
    >>> math.isclose(optimality_tolerance(1000), 1e-9, rel_tol=1e-15)
    True
    >>> math.isclose(optimality_tolerance(1000, weights_upper_bound=2.0, row_norm_bound=0.5),
    ...              2e-9, rel_tol=1e-15)
    True
    """
    return OPTIMALITY_SLACK * weights_upper_bound * max(1.0, row_norm_bound) / n


# --------------------------------------------------------------------------------------------
# Finite differences (the one rule)
# --------------------------------------------------------------------------------------------


# Central-difference steps (relative to max(1, |theta_j|)): about u^(1/3) for a gradient from
# objective values (error ~ u^(2/3), 1e-11 on an objective of size 1), and for a Hessian from
# an analytic gradient 1e-5 (rounding 1e-16 / 1e-5 against a truncation of 1e-10 times the
# third derivative), 1e-4 from a difference gradient (its 1e-11 error / 1e-4).
GRADIENT_STEP = 6e-6
HESSIAN_STEP = 1e-5
HESSIAN_STEP_DIFFERENCES = 1e-4


def central_differences(fun, theta, step, size=None):
    """The Jacobian of ``fun`` at ``theta`` by central differences (steps relative to theta).

    Parameters
    ----------
    fun : callable, ``fun(theta)`` returns m numbers
    theta : array_like, d values
    step : float
        :data:`GRADIENT_STEP` (gradient from values) or :data:`HESSIAN_STEP` (Hessian from a
        gradient).
    size : int, optional (the m required; None accepts any)

    Returns
    -------
    ndarray, m x d

    Raises
    ------
    ValueError
        If ``fun`` returns other than ``size`` values.

    References
    ----------
    Nocedal and Wright (2006), Numerical Optimization, 2nd ed., Section 8.1.

    Examples
    --------
    >>> from dppack.erm._solvers import GRADIENT_STEP, central_differences
    >>> import numpy as np
    >>> J = central_differences(lambda t: [t[0] * t[1], t[1] ** 3], [2.0, 1.0], GRADIENT_STEP)
    >>> np.allclose(J, [[1.0, 2.0], [0.0, 3.0]], atol=1e-9)
    True
    """
    theta = np.asarray(theta, dtype=np.float64)
    columns = []
    for j in range(theta.size):
        h = step * max(1.0, abs(theta[j]))
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        columns.append((np.asarray(fun(up), dtype=np.float64).ravel()
                        - np.asarray(fun(down), dtype=np.float64).ravel()) / (up[j] - down[j]))
    jacobian = np.column_stack(columns)
    if size is not None and jacobian.shape[0] != size:
        raise ValueError(f"A function returned {jacobian.shape[0]} values where {size} were "
                         "expected.")
    return jacobian


def central_gradient(fun, theta):
    """The gradient of ``fun`` (one number) at ``theta`` by central differences.

    Parameters
    ----------
    fun : callable, returns one number
    theta : array_like, d values

    Returns
    -------
    ndarray, d values

    References
    ----------
    Nocedal and Wright (2006), Section 8.1.

    Examples
    --------
    >>> from dppack.erm._solvers import central_gradient
    >>> import numpy as np
    >>> g = central_gradient(lambda t: float(t @ t) / 2 + t[0], np.array([1.0, -2.0]))
    >>> np.allclose(g, [2.0, -2.0], atol=1e-9)
    True
    """
    return central_differences(fun, theta, GRADIENT_STEP, size=1)[0]


def difference_hessian(gradient, theta, step=HESSIAN_STEP):
    """The symmetrised central-difference Jacobian (J + J') / 2 of ``gradient`` at ``theta``.

    Parameters
    ----------
    gradient : callable, returns d values
    theta : array_like, d values
    step : float, default :data:`HESSIAN_STEP`
        :data:`HESSIAN_STEP_DIFFERENCES` when ``gradient`` is itself a difference gradient.

    Returns
    -------
    ndarray, d x d

    References
    ----------
    Nocedal and Wright (2006), Section 8.1.

    Examples
    --------
    >>> from dppack.erm._solvers import difference_hessian
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> np.allclose(difference_hessian(lambda t: A @ t, np.zeros(2)), A)
    True
    """
    H = central_differences(gradient, theta, step, size=np.size(theta))
    return (H + H.T) / 2.0
