"""Unconstrained smooth minimisation with a certificate: damped Newton, Newton polish, L-BFGS-B
(:func:`minimize_smooth`, DPpack's CMS fits) and :func:`margin_newton` (the confidence
intervals' margin-loss ERM)."""

import contextlib
import math
import os

import numpy as np

from .._losses import weighted_gram
from ._common import (
    ConvergenceError,
    HESSIAN_STEP,
    HESSIAN_STEP_DIFFERENCES,
    NOT_CONVERGED_MESSAGE,
    central_gradient,
    difference_hessian,
)


# --------------------------------------------------------------------------------------------
# Newton's method (shared)
# --------------------------------------------------------------------------------------------


# The iteration cap of the Newton solvers that run from 0 to convergence (margin_newton,
# damped_newton by default: accuracy-first's logistic theta*): strongly convex smooth problems
# need a few dozen steps.
MAX_NEWTON_STEPS = 200
# The cap of the Newton steps after L-BFGS-B's warm start in minimize_smooth (then L-BFGS-B
# takes over), and of the Newton polish on the gradient norm.
WARM_NEWTON_STEPS = 50
POLISH_STEPS = 30


def damped_newton(fun, hessian, theta, gtol, max_steps=None, step_tol=1e-10):
    """Damped Newton from ``theta``: a point with ||gradient|| <= ``gtol``, or None.

    It stops at ``gtol`` once the Newton step is below ``step_tol`` max abs(theta) (the
    floating-point floor); steps are halved until the Armijo condition holds. Details:
    :ref:`guide-erm-solver-numerics`.

    Parameters
    ----------
    fun : callable, ``fun(theta)`` returns (value, gradient)
    hessian : callable, ``hessian(theta)`` returns a positive definite d x d matrix
    theta : ndarray, the start
    gtol : float, the certified gradient norm
    max_steps : int, optional (default :data:`MAX_NEWTON_STEPS`)
    step_tol : float, default 1e-10

    Returns
    -------
    ndarray or None

    References
    ----------
    Nocedal and Wright (2006), Numerical Optimization, 2nd ed., Sections 3.1 and 3.3.

    Examples
    --------
    >>> from dppack.erm._solvers import damped_newton
    >>> import numpy as np
    >>> A, g = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0])
    >>> theta = damped_newton(lambda t: (t @ A @ t / 2 - g @ t, A @ t - g), lambda t: A,
    ...                       np.zeros(2), 1e-12)
    >>> np.allclose(theta, np.linalg.solve(A, g), rtol=1e-14)
    True
    """
    max_steps = MAX_NEWTON_STEPS if max_steps is None else max_steps
    value, grad = fun(theta)
    for _ in range(max_steps):
        largest = float(np.linalg.norm(grad))
        converged = bool(largest <= gtol)  # extra steps only refine
        try:
            # numpy's LAPACK, not scipy's: the fit's products run on numpy's OpenBLAS threads,
            # and a second thread pool on a busy machine made a 500 x 500 solve take 0.1-0.8 s
            step = np.linalg.solve(hessian(theta), grad)
        except np.linalg.LinAlgError:
            return theta if converged else None
        if converged and np.max(np.abs(step)) <= step_tol * np.max(np.abs(theta)):
            return theta
        slope = float(grad @ step)
        if not (slope > 0 and math.isfinite(slope)):
            return theta if converged else None
        t = 1.0
        while True:
            candidate = theta - t * step
            new_value, new_grad = fun(candidate)
            if new_value <= value - 1e-4 * t * slope or (
                    new_value <= value + 1e-14 * abs(value)
                    and np.linalg.norm(new_grad) <= 0.5 * largest):
                break
            t /= 2.0
            if t < 1e-10:
                return theta if converged else None
        theta, value, grad = candidate, new_value, new_grad
    return theta if np.linalg.norm(grad) <= gtol else None


def newton_polish(gradient, hessian, theta, gtol, hessian_step=HESSIAN_STEP,
                  max_steps=None):
    """Newton steps on the gradient alone until ||gradient|| <= ``gtol``.

    Parameters
    ----------
    gradient : callable, returns d values
    hessian : callable or None (None: :func:`difference_hessian` of ``gradient``)
    theta : ndarray, the start
    gtol : float
    hessian_step : float, default :data:`HESSIAN_STEP` (for the difference Hessian)
    max_steps : int, optional (default :data:`POLISH_STEPS`)

    Returns
    -------
    theta : ndarray
    norm : float
        ||gradient(theta)||, which the caller certifies against ``gtol``.

    References
    ----------
    Nocedal and Wright (2006), Section 11.1 (Newton's method for grad = 0).

    Examples
    --------
    >>> from dppack.erm._solvers import newton_polish
    >>> import numpy as np
    >>> theta, norm = newton_polish(lambda t: np.exp(t) - 2.0, None, np.zeros(1), 1e-12)
    >>> bool(norm <= 1e-12) and np.allclose(theta, np.log(2.0), rtol=1e-12)
    True
    """
    max_steps = POLISH_STEPS if max_steps is None else max_steps
    grad = gradient(theta)
    norm = float(np.linalg.norm(grad))
    for _ in range(max_steps):
        if norm <= gtol or not math.isfinite(norm):
            break
        H = hessian(theta) if hessian is not None else difference_hessian(
            gradient, theta, hessian_step)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(step)):
            break
        t = 1.0
        for _ in range(21):
            candidate = theta - t * step
            new_grad = gradient(candidate)
            new_norm = float(np.linalg.norm(new_grad))
            if new_norm < norm:
                break
            t /= 2.0
        else:
            break
        theta, grad, norm = candidate, new_grad, new_norm
    return theta, norm


# --------------------------------------------------------------------------------------------
# (a) CMS: L-BFGS-B, Newton, certified
# --------------------------------------------------------------------------------------------


# L-BFGS-B settings: tight enough that eps = Inf fits agree with an independent solver to 1e-6
# (on 10^6 x 20 logistic data gtol 1e-8 lands 3e-7 from the 1e-10 answer, 1.4x faster).
LBFGS_OPTIONS = {"maxiter": 50_000, "maxfun": 500_000, "gtol": 1e-8, "ftol": 1e-12,
                 "maxcor": 20}


# threadpoolctl's handle on the OpenBLAS that SciPy's wheels bundle for themselves: None until
# looked up, False where there is none (see lbfgsb_blas_threads)
_SCIPY_BLAS = None


def lbfgsb_blas_threads():
    """A context in which the BLAS that SciPy bundles for itself runs on one thread.

    SciPy's L-BFGS-B works on vectors of d values, where a second BLAS thread only costs on a
    busy machine; NumPy's BLAS keeps its threads, and results do not change. A null context
    without threadpoolctl or a bundled OpenBLAS.

    Returns
    -------
    context manager

    References
    ----------
    SciPy's ``scipy.optimize.minimize(method="L-BFGS-B")``; threadpoolctl.

    Examples
    --------
    >>> from dppack.erm._solvers import lbfgsb_blas_threads
    >>> with lbfgsb_blas_threads():
    ...     pass
    """
    global _SCIPY_BLAS
    if _SCIPY_BLAS is None:
        _SCIPY_BLAS = _scipy_blas_controller() or False
    return _SCIPY_BLAS.limit(limits=1) if _SCIPY_BLAS else contextlib.nullcontext()


def _scipy_blas_controller():
    """threadpoolctl's controller of the OpenBLAS in SciPy's ``scipy.libs`` folder, or None."""
    try:
        import scipy.optimize._lbfgsb  # noqa: F401  (loads SciPy's BLAS)
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    controller = ThreadpoolController()
    paths = [library["filepath"] for library in controller.info()
             if library["internal_api"] == "openblas"
             and os.path.basename(os.path.dirname(library["filepath"])) == "scipy.libs"]
    return controller.select(filepath=paths) if paths else None


def remember_last(fun):
    """``fun`` (returning value and gradient) that answers a repeated theta from memory.

    Parameters
    ----------
    fun : callable, ``fun(theta)`` returns (value, gradient), deterministic

    Returns
    -------
    callable
        The same function; each call returns a new copy of the gradient.

    References
    ----------
    Nocedal and Wright (2006), Section 7.2 (L-BFGS evaluates value and gradient together).

    Examples
    --------
    >>> from dppack.erm._solvers import remember_last
    >>> import numpy as np
    >>> calls = []
    >>> f = remember_last(lambda t: (calls.append(1) or float(t @ t), 2 * t))
    >>> f(np.ones(2))[0], f(np.ones(2))[0], len(calls)
    (2.0, 2.0, 1)
    """
    last = {"key": None, "value": None}

    def remembered(theta):
        theta = np.asarray(theta, dtype=np.float64)
        key = (theta.shape, theta.tobytes())
        if key != last["key"]:
            last["key"], last["value"] = None, fun(theta)  # None until fun has answered
            last["key"] = key
        value, gradient = last["value"]
        return value, (np.array(gradient, dtype=np.float64) if gradient is not None else None)

    return remembered


def minimize_smooth(fun, d, jac, hessian=None, gtol=None, newton=True):
    """Minimise a smooth objective over R^d from 0 and certify ||gradient|| <= ``gtol``.

    The solver of DPpack's CMS framework: L-BFGS-B (a warm start, then :func:`damped_newton` when
    a ``hessian`` is given and ``newton``), then :func:`newton_polish` if needed. The algorithm:
    :ref:`guide-erm-solver-numerics`.

    Parameters
    ----------
    fun : callable
        ``jac=True``: returns (value, gradient); ``jac=None``: the value only (central
        differences for the gradient).
    d : int
    jac : True or None
    hessian : callable, optional (used with ``jac=True``)
    gtol : float, optional (None: 1e-8 sqrt(d))
    newton : bool, default True
        False: L-BFGS-B first, the ``hessian`` for the polish only.

    Returns
    -------
    ndarray, d values with ||gradient|| <= ``gtol``

    Raises
    ------
    ConvergenceError
        If the result is not finite or its gradient norm stays above ``gtol``.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Theorems 6 and 9; Byrd, Lu, Nocedal and
    Zhu (1995), SIAM J. Sci. Comput. 16 (L-BFGS-B).

    Examples
    --------
    Ridge regression, whose minimiser is the closed form (X'X/n + gamma I)^-1 X'y/n:

    >>> from dppack.erm._solvers import minimize_smooth
    >>> import numpy as np
    >>> from dppack import _random
    >>> rng = _random.as_generator(1)
    >>> X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    >>> A, r = X.T @ X / 50 + 0.1 * np.eye(3), X.T @ y / 50
    >>> theta = minimize_smooth(lambda t: (t @ A @ t / 2 - r @ t, A @ t - r), 3, True,
    ...                         lambda t: A, gtol=1e-12)
    >>> np.allclose(theta, np.linalg.solve(A, r), rtol=1e-10)
    True
    """
    from scipy.optimize import minimize

    if gtol is None:
        gtol = LBFGS_OPTIONS["gtol"] * math.sqrt(d)
    if jac is True:
        fun = remember_last(fun)

        def gradient(theta):
            return np.asarray(fun(theta)[1], dtype=np.float64).reshape(d)
        hessian_step = HESSIAN_STEP
    else:
        def gradient(theta):
            return central_gradient(fun, theta)
        hessian, hessian_step = None, HESSIAN_STEP_DIFFERENCES

    start = np.zeros(d)
    theta = None
    if hessian is not None and newton:
        with lbfgsb_blas_threads():
            warm = minimize(fun, start, jac=True, method="L-BFGS-B",
                            options={**LBFGS_OPTIONS, "maxiter": 5})
        start = np.asarray(warm.x, dtype=np.float64)
        if np.all(np.isfinite(start)):
            theta = damped_newton(fun, hessian, start, gtol, WARM_NEWTON_STEPS)
        else:
            start = np.zeros(d)
    if theta is None:
        with lbfgsb_blas_threads():
            result = minimize(fun, start, jac=jac, method="L-BFGS-B", options=LBFGS_OPTIONS)
        theta = np.asarray(result.x, dtype=np.float64)
    if not np.all(np.isfinite(theta)):
        raise ConvergenceError("The optimiser returned non-finite coefficients: check that "
                               "the loss, map and regularizer are finite near the optimum.")
    theta, norm = newton_polish(gradient, hessian, theta, gtol, hessian_step)
    if not norm <= gtol:
        raise ConvergenceError(NOT_CONVERGED_MESSAGE.format(tolerance=gtol))
    return theta


# --------------------------------------------------------------------------------------------
# (b) The confidence intervals' exact minimiser: Newton on a margin loss
# --------------------------------------------------------------------------------------------


# The confidence intervals' proof needs the exact minimiser (Wang, Kifer and Lee 2019,
# Algorithm 1): 1e-10 on the gradient norm, far below the noise.
EXACT_GRADIENT_TOLERANCE = 1e-10
MARGIN_NEWTON_MESSAGE = ("Newton's method stopped at its iteration limit before the gradient "
                         "norm reached {tolerance:.3g}; nothing was released.")


def margin_newton(X, y, value, first, second, c, b, gtol=EXACT_GRADIENT_TOLERANCE,
                  max_steps=None):
    """argmin (1/n) sum_i f(y_i theta'x_i) + c ||theta||^2 + (1/n) b'theta by Newton's method.

    The confidence intervals' regularised ERM, solved to ||gradient|| <= ``gtol`` (their proofs
    assume the exact minimiser). The algorithm: :ref:`guide-erm-solver-numerics`.

    Parameters
    ----------
    X : ndarray, n x d
    y : ndarray, n labels -1/+1
    value, first, second : callable
        f, f' and f'' of the margin loss, elementwise.
    c : float, > 0
    b : ndarray, d values (the linear noise term; zeros for the plain minimiser)
    gtol : float, default :data:`EXACT_GRADIENT_TOLERANCE`
    max_steps : int, optional (default :data:`MAX_NEWTON_STEPS`)

    Returns
    -------
    ndarray, d values with ||gradient|| <= ``gtol``

    Raises
    ------
    ConvergenceError
        After ``max_steps`` steps above ``gtol``: nothing is released.

    References
    ----------
    Wang, Kifer and Lee (2019), Journal of Privacy and Confidentiality 9(1).

    Examples
    --------
    The squared margin loss f(z) = (1 - z)^2 / 2 with labels +1 is ridge regression on the
    targets 1, solved in one Newton step:

    >>> from dppack.erm._solvers import margin_newton
    >>> import numpy as np
    >>> from dppack import _random
    >>> rng = _random.as_generator(2)
    >>> X, y = rng.normal(size=(40, 2)), np.ones(40)
    >>> theta = margin_newton(X, y, lambda z: (1 - z) ** 2 / 2, lambda z: z - 1,
    ...                       lambda z: np.ones_like(z), 0.05, np.zeros(2))
    >>> np.allclose(theta, np.linalg.solve(X.T @ X / 40 + 0.1 * np.eye(2), X.T @ y / 40))
    True
    """
    n, d = X.shape
    max_steps = MAX_NEWTON_STEPS if max_steps is None else max_steps

    def objective(theta, z):
        return float(np.mean(value(z)) + c * (theta @ theta) + (b @ theta) / n)

    theta = np.zeros(d)
    z = np.zeros(n)
    current = objective(theta, z)
    previous_norm, refresh, H = math.inf, True, None
    for _ in range(max_steps):
        grad = (first(z) * y) @ X / n + 2.0 * c * theta + b / n
        norm = float(np.linalg.norm(grad))
        if norm <= gtol:
            return theta
        if refresh or norm > 0.05 * previous_norm:
            # far from the optimum a Hessian from every k-th row (about 2^14 rows) steers as
            # well; the exact one takes over for the last steps, where it gives quadratic
            # convergence
            k = max(1, n // 2**14) if norm > 1e-4 else 1
            rows = slice(None, None, k)
            H = weighted_gram(X[rows], second(z[rows]) / z[rows].size)
            H[np.diag_indices(d)] += 2.0 * c
        step = np.linalg.solve(H, grad)
        dz = y * (X @ step)
        decrease = float(grad @ step)  # twice the predicted decrease of the objective
        size = 1.0
        trial = objective(theta - step, z - dz)
        if decrease > 1e-12 * max(1.0, abs(current)):
            while trial > current - 1e-4 * size * decrease and size > 1e-12:  # Armijo
                size /= 2.0
                trial = objective(theta - size * step, z - size * dz)
        theta = theta - size * step
        z = y * (X @ theta) if size < 1.0 else z - dz  # recomputed after a cut: no drift
        current, previous_norm, refresh = trial, norm, size < 1.0
    raise ConvergenceError(MARGIN_NEWTON_MESSAGE.format(tolerance=gtol))
