"""The solvers of private ERM: named algorithms, each with the stopping rule its privacy proof
needs.

Every ERM mechanism of the package releases the minimiser of an objective, or a noisy version of
it, and every privacy proof behind them assumes the *exact* minimiser: the sensitivity of
output perturbation bounds the distance between two exact minimisers, objective perturbation
maps the noise one-to-one to the exact minimiser through the first-order condition. A
floating-point solver cannot return the exact minimiser, so each algorithm here ends with a
*certificate*: a check, on the returned point, of the optimality condition to a stated
tolerance. A point that fails it is never released: :class:`ConvergenceError` is raised
before any further noise is drawn, never a warning. Which tolerance, and why it suffices,
depends on the proof:

* :func:`minimize_smooth` — unconstrained smooth objectives of DPpack's CMS framework
  (objective and output perturbation, Chaudhuri, Monteleoni and Sarwate 2011): ||grad J|| <= g_tol =
  :data:`OPTIMALITY_SLACK` w_bar B / n (:func:`optimality_tolerance`), a slack that output
  perturbation's noise is calibrated to absorb;
* :func:`margin_newton` — Newton's method for the confidence intervals' regularised
  margin-loss ERM (Wang, Kifer and Lee):
  ||grad|| <= 1e-10, the stand-in for the exact minimiser their proofs assume;
* :func:`minimize_constrained` — the constrained objective perturbation of Kifer, Smith and
  Thakurta (2012): feasibility and the first-order (KKT)
  conditions, checked by :func:`kkt_residual`;
* :func:`trust_region_solve` and :func:`project_onto_ball` — accuracy-first's ridge hypotheses and
the projection of every tested hypothesis onto
  the ball where the queries' sensitivity holds; accuracy-first's logistic theta* is
  certified by :func:`damped_newton` to :func:`optimality_tolerance`.

Shared pieces: :func:`damped_newton` (one damped Newton method with its line search, used by
:func:`minimize_smooth` and accuracy-first), :func:`newton_polish` (Newton on the gradient
norm) and :func:`central_differences` (the one finite-difference rule, behind
:func:`central_gradient` and :func:`difference_hessian`).

The solvers take callables (objective, gradient, Hessian); they know nothing of losses, data
preparation or noise, and draw no random numbers.
"""

import contextlib
import math
import os
from fractions import Fraction

import numpy as np

from .losses import weighted_gram

__all__ = [
    "ConvergenceError",
    "EXACT_GRADIENT_TOLERANCE",
    "LBFGS_OPTIONS",
    "MAX_NEWTON_STEPS",
    "NOT_CONVERGED_MESSAGE",
    "OPTIMALITY_SLACK",
    "central_differences",
    "central_gradient",
    "damped_newton",
    "difference_hessian",
    "kkt_residual",
    "lbfgsb_blas_threads",
    "margin_newton",
    "minimize_constrained",
    "minimize_smooth",
    "newton_polish",
    "optimality_tolerance",
    "project_onto_ball",
    "quadratic_ball_certificate",
    "quadratic_ball_minimize",
    "remember_last",
    "trust_region_solve",
]


class ConvergenceError(ValueError, RuntimeError):
    """A fit that did not reach its certified optimality tolerance and so releases nothing.

    A ``RuntimeError`` (the solver's failure) and a ``ValueError`` (the problem as given
    cannot be solved to the tolerance its privacy needs), so that R users see the message as
    a DPpack-style error, without a Python traceback. Raised by every solver here, with the
    solver's message; also importable from ``dppack.erm.cms``.

    Parameters
    ----------
    *args, **kwargs
        The message, as for any exception (no keywords).

    Attributes
    ----------
    args : tuple
        The message.

    References
    ----------
    DPpack 0.2.2 (CMS fits, "Optimality" in ``dppack.erm.cms``), DPpack 0.2.2
    (KST); Ligett et al. 2017: each
    proof assumes the exact minimiser, so an uncertified one is refused, never released.

    Examples
    --------
    >>> from dppack.erm.solvers import ConvergenceError, NOT_CONVERGED_MESSAGE
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
    """The certified bound g_tol on the gradient norm of a released CMS minimiser.

    g_tol = OPTIMALITY_SLACK w_bar max(1, B) / n. Two minimisers of (gamma/n)-strongly convex
    objectives certified to ||grad J|| <= g_tol lie within g_tol n / gamma of the exact ones,
    so neighbouring releases differ by at most 2 w_bar B / gamma + 2 n g_tol / gamma
    = (2 w_bar B / gamma)(1 + OPTIMALITY_SLACK): output perturbation calibrates its noise to
    that sensitivity (``dppack.erm.cms.output_perturbation_rate``), and accuracy-first adds the
    same factor to the sensitivity of its logistic theta* (B = w_bar = 1).

    Parameters
    ----------
    n : int
        Number of rows.
    weights_upper_bound : float, default 1
        w_bar, the bound on the weights (1 without weights).
    row_norm_bound : float, default 1
        B, a bound on the norm of every clipped row; values below 1 count as 1.

    Returns
    -------
    float

    References
    ----------
    Chaudhuri K, Monteleoni C, Sarwate AD (2011). Differentially private empirical risk
    minimization. JMLR 12, Corollary 8 (the sensitivity of the exact minimiser).

    Examples
    --------
    >>> from dppack.erm.solvers import optimality_tolerance
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
    """The Jacobian of ``fun`` at ``theta`` by central differences (2 d evaluations).

    Column j is (fun(theta + h_j e_j) - fun(theta - h_j e_j)) / (2 h_j) with
    h_j = ``step`` max(1, |theta_j|), the denominator formed from the perturbed points as they
    were rounded. The truncation error is O(h^2) times the third derivative.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` returns m numbers (a scalar counts as one).
    theta : array_like
        d values.
    step : float
        Relative step: :data:`GRADIENT_STEP` for a gradient from objective values,
        :data:`HESSIAN_STEP` for a Hessian from an analytic gradient.
    size : int, optional
        The number m of values ``fun`` must return; None accepts any (the same at every
        point).

    Returns
    -------
    ndarray, m x d

    Raises
    ------
    ValueError
        If ``fun`` returns a number of values other than ``size``, or different numbers at
        different points.

    References
    ----------
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., §8.1 (central differences
    and the choice of step).

    Examples
    --------
    >>> from dppack.erm.solvers import GRADIENT_STEP, central_differences
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

    :func:`central_differences` with the step :data:`GRADIENT_STEP`: accurate to about 1e-10
    of the objective's scale, the check's gradient for models without gradient functions.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` returns one number.
    theta : array_like
        d values.

    Returns
    -------
    ndarray
        d values.

    Raises
    ------
    ValueError
        If ``fun`` returns more than one number.

    References
    ----------
    As :func:`central_differences`.

    Examples
    --------
    >>> from dppack.erm.solvers import central_gradient
    >>> import numpy as np
    >>> g = central_gradient(lambda t: float(t @ t) / 2 + t[0], np.array([1.0, -2.0]))
    >>> np.allclose(g, [2.0, -2.0], atol=1e-9)
    True
    """
    return central_differences(fun, theta, GRADIENT_STEP, size=1)[0]


def difference_hessian(gradient, theta, step=HESSIAN_STEP):
    """The symmetrised central-difference Jacobian of ``gradient`` at ``theta``.

    Parameters
    ----------
    gradient : callable
        ``gradient(theta)`` returns d values.
    theta : array_like
        d values.
    step : float, default :data:`HESSIAN_STEP`
        :data:`HESSIAN_STEP_DIFFERENCES` when ``gradient`` itself is a difference gradient.

    Returns
    -------
    ndarray, d x d
        (J + J') / 2, J from :func:`central_differences`.

    Raises
    ------
    ValueError
        If ``gradient`` does not return d values.

    References
    ----------
    As :func:`central_differences`.

    Examples
    --------
    >>> from dppack.erm.solvers import difference_hessian
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> np.allclose(difference_hessian(lambda t: A @ t, np.zeros(2)), A)
    True
    """
    H = central_differences(gradient, theta, step, size=np.size(theta))
    return (H + H.T) / 2.0


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

    Stopping rule: ||gradient|| <= ``gtol`` *and* the Newton step below ``step_tol`` times
    max |theta|: the gradient rule alone leaves an error of about gtol / (smallest
    curvature), 2e-6 relative on an svmDP Gaussian-kernel fit with gamma/n = 5e-5, so Newton
    runs on to the floating-point floor. Steps are halved until the Armijo condition holds; a
    step that rounding keeps from passing Armijo is taken when the objective did not rise
    beyond rounding and the gradient norm halved (next to the optimum the decrease is below
    the objective's floating-point resolution). None when it stalls (a singular Hessian, a
    step that is no descent direction, a line search below 1e-10) or runs out of steps above
    ``gtol``: the caller then falls back or refuses.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` returns (value, gradient), the gradient as a float array of d values.
    hessian : callable
        ``hessian(theta)`` returns a positive definite (generalised) Hessian, d x d.
    theta : ndarray
        The start.
    gtol : float
        The certified gradient norm.
    max_steps : int, optional
        Default :data:`MAX_NEWTON_STEPS` (200).
    step_tol : float, default 1e-10

    Returns
    -------
    ndarray or None
        A point whose gradient norm is at most ``gtol``, or None.

    References
    ----------
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., §3.1 (backtracking with the
    Armijo condition), §3.3 (Newton's method).

    Examples
    --------
    >>> from dppack.erm.solvers import damped_newton
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

    A step is taken (halved up to 20 times) when it lowers the gradient norm: near the
    minimiser of a smooth strongly convex objective a Newton step does, and it keeps working
    where the objective's change is below its rounding, where L-BFGS-B's line search stops.
    Stops at ``gtol``, at a step that does not lower the norm, or after ``max_steps``.

    Parameters
    ----------
    gradient : callable
        ``gradient(theta)`` returns d values.
    hessian : callable or None
        ``hessian(theta)``, d x d; None: :func:`difference_hessian` of ``gradient``.
    theta : ndarray
        The start (the point to polish).
    gtol : float
        The target gradient norm.
    hessian_step : float, default :data:`HESSIAN_STEP`
        The difference Hessian's step (when ``hessian`` is None).
    max_steps : int, optional
        Default :data:`POLISH_STEPS` (30).

    Returns
    -------
    theta : ndarray
    norm : float
        ||gradient(theta)||: the caller certifies it against ``gtol``.

    References
    ----------
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., §11.1 (Newton's method for
    the nonlinear equations grad = 0).

    Examples
    --------
    >>> from dppack.erm.solvers import newton_polish
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

    SciPy's L-BFGS-B (``setulb``) calls BLAS and LAPACK on vectors of d values and matrices of
    2m x 2m (m = 20 corrections): sizes at which a second thread only costs. On a machine
    busy with other work, OpenBLAS's wake-ups of its second thread made each call take
    milliseconds (measured at load 30 on 2 cores: a 100 x 2 logistic fit 144 ms -> 24 ms, the
    median of 300; a 10^6 x 20 fit 2.6 s -> 1.7 s, the best of 6; no change on a quiet
    machine). Only a library in SciPy's own ``scipy.libs`` folder (its wheels' bundled
    OpenBLAS) is limited: the objective's products, which run inside the solver, use NumPy's
    BLAS and keep its threads. Where threadpoolctl is not installed, or SciPy shares another
    BLAS, nothing changes. Results do not depend on the number of threads (the same bits
    with one or two, tests/python/erm/test_solvers.py).

    Returns
    -------
    context manager
        threadpoolctl's limiter (restores the previous number of threads on exit), or a
        null context.

    References
    ----------
    The per-call overhead of a fit from R (the R layer converts each input once).

    Examples
    --------
    >>> from dppack.erm.solvers import lbfgsb_blas_threads
    >>> with lbfgsb_blas_threads():
    ...     pass
    """
    global _SCIPY_BLAS
    if _SCIPY_BLAS is None:
        _SCIPY_BLAS = _scipy_blas_controller() or False
    return _SCIPY_BLAS.limit(limits=1) if _SCIPY_BLAS else contextlib.nullcontext()


def _scipy_blas_controller():
    """threadpoolctl's controller of the OpenBLAS libraries in SciPy's ``scipy.libs`` folder
    (SciPy's L-BFGS-B loaded first), or None."""
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
    """``fun`` (returning value and gradient) with a memory of its last point: called again
    at the same theta, it answers without evaluating ``fun``.

    The steps of :func:`minimize_smooth` start where the previous one ended, at the point it
    evaluated last (L-BFGS-B's result, Newton's last iterate), so the polish's first gradient
    cost one pass over the data (one evaluation in 13 of a 10^6 x 20 logistic fit, two in 12
    of svmDP's). The answer is the one ``fun`` gave, so results do not change.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` returns (value, gradient); a deterministic function of theta.

    Returns
    -------
    callable
        The same function; each call returns a new copy of the gradient, which callers may
        then modify.

    Raises
    ------
    Whatever ``fun`` raises (nothing is remembered then).

    References
    ----------
    The fits from R: fewer passes over the data, the same results.

    Examples
    --------
    >>> from dppack.erm.solvers import remember_last
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
    """Minimise a smooth objective over R^d from 0 and certify: ||gradient|| <= ``gtol``.

    The solver of DPpack's CMS framework (objective and output perturbation). Both of Chaudhuri et
    al.'s theorems assume the exact minimiser; the fit is released only with ||grad J|| <= g_tol
    (the models pass
    :func:`optimality_tolerance`), the inexactness that output perturbation's sensitivity
    absorbs ((1 + OPTIMALITY_SLACK) times the exact one).

    Algorithm. ``hessian`` given with ``newton=True``: 5 L-BFGS-B iterations, then
    :func:`damped_newton` (it ends at the exact minimiser once the quadratic pieces are found,
    where L-BFGS-B needs hundreds of evaluations on ill-conditioned problems); if Newton
    stalls, L-BFGS-B restarts from the end of its first 5 iterations with
    :data:`LBFGS_OPTIONS`. Otherwise L-BFGS-B with :data:`LBFGS_OPTIONS`. A result above
    ``gtol`` then gets :func:`newton_polish` (Hessian by central differences when none is
    given). ``newton=False``: L-BFGS-B first even with a ``hessian``, which then serves the
    polish only (smooth objectives, where L-BFGS-B is fast and one or two Newton steps
    finish).

    Parameters
    ----------
    fun : callable
        ``jac=True``: ``fun(theta)`` returns (value, gradient as d floats); ``jac=None``: the
        value only (SciPy approximates the gradient by finite differences, the polish and the
        check use :func:`central_gradient`).
    d : int
        Dimension.
    jac : True or None
    hessian : callable, optional
        ``hessian(theta)``, a positive definite (generalised) Hessian; used with ``jac=True``.
    gtol : float, optional
        The certified gradient norm; None: 1e-8 sqrt(d) (L-BFGS-B's own stop).
    newton : bool, default True

    Returns
    -------
    ndarray
        d values with ||gradient|| <= ``gtol``.

    Raises
    ------
    ConvergenceError
        If the result is not finite, or its gradient norm stays above ``gtol``
        (:data:`NOT_CONVERGED_MESSAGE`): never released with a warning.

    References
    ----------
    Chaudhuri K, Monteleoni C, Sarwate AD (2011). JMLR 12, Theorems 6 and 9; Byrd RH, Lu P,
    Nocedal J, Zhu C (1995). A limited memory algorithm for bound constrained optimization.
    SIAM J. Sci. Comput. 16 (L-BFGS-B).

    Examples
    --------
    Ridge regression, whose minimiser is the closed form (X'X/n + gamma I)^-1 X'y/n:

    >>> from dppack.erm.solvers import minimize_smooth
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

    The regularised ERM of Wang, Kifer and Lee's objective and output perturbation: their privacy
    proofs, and the intervals' Monte Carlo law of the estimator, assume the exact minimiser, so
    Newton runs to ||gradient|| <= ``gtol`` (1e-10; the objective is 2c-strongly convex and Newton
    reaches that precision where first-order solvers stall) and refuses after ``max_steps`` steps.

    The margins z = y * (X theta) are updated along each step (z - size * y * (X step)), so a
    line search costs no product with X. The d x d Hessian, the costly part, is kept while it
    still cuts the gradient norm twentyfold per step, and far from the optimum (gradient norm
    above 1e-4) it is computed from a strided subset of about 2^14 rows (any Hessian >= 2c I
    gives a descent direction, so the Armijo line search keeps the method convergent;
    convergence is judged on the exact gradient). Near the optimum the predicted decrease
    falls below the rounding of the objective, where a line search cannot judge a step: the
    full step is taken there.

    Parameters
    ----------
    X : ndarray, n x d
    y : ndarray
        n labels -1/+1.
    value, first, second : callable
        f(z), f'(z) and f''(z) of the margin loss, elementwise on an array of margins.
    c : float
        Regularisation weight, > 0.
    b : ndarray
        d values: the linear (noise) term; zeros for the plain minimiser.
    gtol : float, default :data:`EXACT_GRADIENT_TOLERANCE`
    max_steps : int, optional
        Default :data:`MAX_NEWTON_STEPS` (200).

    Returns
    -------
    ndarray
        d values with ||gradient|| <= ``gtol``.

    Raises
    ------
    ConvergenceError
        After ``max_steps`` steps above ``gtol`` (:data:`MARGIN_NEWTON_MESSAGE`):
        the intervals' privacy assumes the exact minimiser, so nothing is released.

    References
    ----------
    Wang Y, Kifer D, Lee J (2019). Differentially private confidence intervals for empirical
    risk minimization. Journal of Privacy and Confidentiality 9(1).

    Examples
    --------
    The squared margin loss f(z) = (1 - z)^2 / 2 with labels +1 is ridge regression on the
    targets 1, solved in one Newton step:

    >>> from dppack.erm.solvers import margin_newton
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


# --------------------------------------------------------------------------------------------
# (c) KST: SLSQP, certified by the KKT conditions
# --------------------------------------------------------------------------------------------

FTOL = 1e-16  # SLSQP stops on changes of f: the gradient then reaches ~sqrt(FTOL)
KST_NOT_CONVERGED_MESSAGE = (
    "The KST optimisation did not converge to a feasible optimum (SLSQP: {message}). Check "
    "that the domain is convex and contains a feasible point, and that loss and regularizer "
    "(and their gradients) are correct."
)


def kkt_residual(theta, f_jac, g, g_jac, feasibility_tol):
    """The first-order optimality residual at ``theta`` and whether theta is feasible.

    For min f subject to g(theta) >= 0: with the active constraints A (g_i(theta) within
    max(1e-6, 1e3 ``feasibility_tol``) of 0), the residual is min over mu >= 0 of
    ||grad f - J_A' mu||, computed by non-negative least squares; without active constraints,
    ||grad f||. Infeasible points (some g_i < -``feasibility_tol``) give (inf, False).

    Parameters
    ----------
    theta : ndarray
    f_jac : callable
        The objective's gradient.
    g : callable
        The constraints, >= 0 on the domain (m values).
    g_jac : callable
        Their m x d Jacobian.
    feasibility_tol : float

    Returns
    -------
    residual : float
    feasible : bool

    References
    ----------
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., Theorem 12.1 (the KKT
    conditions).

    Examples
    --------
    min ||theta - (2, 0)||^2 / 2 over the unit disc, g = 1 - ||theta||^2: the optimum (1, 0)
    meets the conditions, the feasible point (0.5, 0) does not.

    >>> from dppack.erm.solvers import kkt_residual
    >>> import numpy as np
    >>> f_jac = lambda t: t - np.array([2.0, 0.0])
    >>> g = lambda t: np.array([1.0 - t @ t])
    >>> g_jac = lambda t: -2.0 * t.reshape(1, -1)
    >>> residual, feasible = kkt_residual(np.array([1.0, 0.0]), f_jac, g, g_jac, 1e-8)
    >>> feasible, residual < 1e-12
    (True, True)
    >>> kkt_residual(np.array([0.5, 0.0]), f_jac, g, g_jac, 1e-8)
    (1.5, True)
    """
    from scipy import optimize

    values = g(theta)
    if not np.all(values >= -feasibility_tol):
        return np.inf, False
    grad = f_jac(theta)
    active = values <= max(1e-6, 1e3 * feasibility_tol)
    if not np.any(active):
        return float(np.linalg.norm(grad)), True
    J = g_jac(theta)[active]
    _, residual = optimize.nnls(J.T, grad)
    return float(residual), True


def pull_inside(theta, g, theta0, g0):
    """A point of the segment from the strictly feasible start ``theta0`` to ``theta`` where
    every constraint holds as computed (g >= 0), as close to ``theta`` as a few halvings of the
    step find; ``theta`` itself when it is feasible, None when no such point is found.

    For convex constraints c = -g with c(theta0) < 0, the point theta0 + s (theta - theta0)
    satisfies c <= s c(theta) + (1 - s) c(theta0), below 0 once (1 - s) is large enough against
    a violation c(theta) of rounding size: 1 - s = 2^-52, 2^-48, ... moves theta by that
    fraction of its distance to the start.
    """
    if np.all(g(theta) >= 0):
        return theta
    if not np.all(g0 > 0):
        return None
    for j in range(52, 8, -4):
        s = 1.0 - 2.0 ** -j
        point = theta0 + s * (theta - theta0)
        if np.all(g(point) >= 0):
            return point
    return None


# kkt_certificate's bound on the complementary slackness, sigma <= SLACKNESS_FACTOR rho^2 / m:
# then sqrt(rho^2 + 2 m sigma) = 5 rho and the certified radius is 6 rho / m. A boundary point
# is only as close to the boundary as the constraint's rounding (g of about 1e-15 with
# multipliers of about 10), which rho^2 / m (about 1e-15) alone would not admit.
SLACKNESS_FACTOR = 12.0


def push_to_boundary(theta, g, theta0):
    """The point theta0 + s (theta - theta0), s >= 1, found by bisection (to the resolution
    of s), where the smallest constraint value is as close to 0 as computed: a feasible point
    that SLSQP left just inside the domain (g_i about 1e-9) moved onto the boundary, so that
    the complementary slackness sum_i mu_i g_i of :func:`kkt_certificate` is small. None
    when no such point is found (theta then stays as it is)."""
    values = g(theta)
    start = float(np.min(values))
    if not start > 0:
        return None
    low, high = 1.0, None
    step = 1e-12
    while step < 1.0:  # an s > 1 where some constraint is violated
        if float(np.min(g(theta0 + (1.0 + step) * (theta - theta0)))) < 0:
            high = 1.0 + step
            break
        step *= 4.0
    if high is None:
        return None
    for _ in range(60):
        mid = (low + high) / 2.0
        if not low < mid < high:
            break
        if float(np.min(g(theta0 + mid * (theta - theta0)))) < 0:
            high = mid
        else:
            low = mid
    point = theta0 + low * (theta - theta0)
    return point if float(np.min(g(point))) >= 0 else None


def kkt_certificate(theta, f_jac, g, g_jac, residual_tol, modulus):
    """Whether the feasible point ``theta`` certifies ||theta - theta*|| <= r with
    r = 6 ``residual_tol`` / m for the minimiser theta* of an m-strongly convex f over the
    convex domain {g >= 0} (m = ``modulus``).

    For each candidate active set (the constraints with g_i <= a, a = 1e-6, 1e-9, 1e-12, 0),
    non-negative least squares gives mu >= 0 minimising rho = ||grad f - J_A' mu||, and
    sigma = sum_i mu_i g_i(theta) >= 0. The certificate holds when rho <= ``residual_tol`` and
    sigma <= 12 residual_tol^2 / m (:data:`SLACKNESS_FACTOR`): then
    :func:`dppack.erm.approximate.constrained_radius` (rho, sigma, m) <= 6 residual_tol / m
    (a data-independent bound).
    """
    from scipy import optimize

    values = g(theta)
    if not np.all(values >= 0):
        return False
    grad = f_jac(theta)
    slack_tol = SLACKNESS_FACTOR * residual_tol * residual_tol / modulus
    if float(np.linalg.norm(grad)) <= residual_tol:
        return True
    J = None
    for a in (1e-6, 1e-9, 1e-12, 0.0):
        active = values <= a
        if not np.any(active):
            continue
        if J is None:
            J = g_jac(theta)
        mu, residual = optimize.nnls(J[active].T, grad)
        if residual <= residual_tol and float(mu @ values[active]) <= slack_tol:
            return True
    return False


def minimize_constrained(objective, gradient, constraints, jacobian, theta0,
                         max_iterations=None, residual_tol=None, modulus=None):
    """Minimise ``objective`` subject to ``constraints(theta) <= 0`` with SciPy's SLSQP, and
    certify the result by the KKT conditions.

    The solver of Kifer, Smith and Thakurta's objective perturbation (DPpack stops nloptr after 100
    evaluations). Their proof maps the noise b to the minimiser over the convex domain through its
    first-order conditions (Theorem 2, a minimiser on the boundary included), so the released point
    must be feasible and satisfy them: :func:`kkt_residual` at most 1e-7 relative to the gradient at
    the start (1e-4 with finite differences), feasibility to 1e-8 relative to the constraints at the
    start. SLSQP runs on the objective divided by the size of its gradient at the start (it is not
    scale invariant: its first Hessian guess is the identity) with ``ftol`` :data:`FTOL`; a result
    that fails the check is restarted from where it stopped, up to four runs in all.

    Parameters
    ----------
    objective : callable
        ``objective(theta)``, one number.
    gradient : callable or None
        Its gradient; None: :func:`central_gradient`.
    constraints : callable
        ``constraints(theta)``, m values, <= 0 on the domain.
    jacobian : callable or None
        Their derivative (d values or m x d); None: :func:`central_differences`.
    theta0 : ndarray
        The start.
    max_iterations : int, optional
        SLSQP's iteration limit per run; default max(1000, 50 d).
    residual_tol, modulus : float, optional
        Given both (the KST fits): the result must pass :func:`kkt_certificate` with this
        absolute, data-independent tolerance for an objective that is ``modulus``-strongly
        convex, so that it lies within 6 residual_tol / modulus of the exact
        minimiser (approximate minima perturbation, Iyengar et al. 2019); a result slightly
        outside the domain is first moved towards a strictly feasible start
        (:func:`pull_inside`). Without them, the relative check above.

    Returns
    -------
    ndarray
        A feasible point satisfying the KKT conditions to the tolerance.

    Raises
    ------
    ConvergenceError
        (:data:`KST_NOT_CONVERGED_MESSAGE`) when no run gives a feasible point that passes
        the check, or a run returns non-finite values.

    References
    ----------
    Kifer D, Smith A, Thakurta A (2012). Private convex empirical risk minimization and
    high-dimensional regression. COLT, Theorem 2 and Algorithm 1; Kraft D (1988). A software
    package for sequential quadratic programming (SLSQP).

    Examples
    --------
    The point of the unit disc closest to (2, 0):

    >>> from dppack.erm.solvers import minimize_constrained
    >>> import numpy as np
    >>> theta = minimize_constrained(lambda t: float((t - [2.0, 0.0]) @ (t - [2.0, 0.0])) / 2,
    ...                              lambda t: t - np.array([2.0, 0.0]),
    ...                              lambda t: np.array([t @ t - 1.0]), lambda t: 2.0 * t,
    ...                              np.zeros(2))
    >>> np.allclose(theta, [1.0, 0.0], atol=1e-6)
    True
    """
    from scipy import optimize  # lazily: keeps `import dppack` fast

    p = theta0.size
    max_iterations = max(1000, 50 * p) if max_iterations is None else max_iterations

    def g(theta):
        return -np.asarray(constraints(theta), dtype=np.float64).reshape(-1)

    constraint = {"type": "ineq", "fun": g}
    if jacobian is not None:
        def g_jac(theta):
            return -np.asarray(jacobian(theta), dtype=np.float64).reshape(-1, p)
    else:
        def g_jac(theta):
            return central_differences(g, theta, GRADIENT_STEP)
    constraint["jac"] = g_jac

    if gradient is not None:
        f_jac = gradient
    else:
        def f_jac(theta):
            return central_gradient(objective, theta)

    g0 = g(theta0)
    feasibility_tol = 1e-8 * max(1.0, float(np.max(np.abs(g0))))
    grad_scale = max(1.0, float(np.linalg.norm(f_jac(theta0))))
    kkt_tol = (1e-7 if gradient is not None else 1e-4) * grad_scale

    def scaled(theta):
        return objective(theta) / grad_scale

    def scaled_jac(theta):
        return f_jac(theta) / grad_scale

    theta = theta0
    message = ""
    for _ in range(4):
        result = optimize.minimize(
            scaled, theta, jac=scaled_jac, method="SLSQP", constraints=[constraint],
            options={"ftol": FTOL, "maxiter": max_iterations},
        )
        theta = np.asarray(result.x, dtype=np.float64)
        message = result.message
        if not np.all(np.isfinite(theta)):
            break
        if residual_tol is not None:
            inside = pull_inside(theta, g, theta0, g0)
            if inside is None:
                continue
            if kkt_certificate(inside, f_jac, g, g_jac, residual_tol, modulus):
                return inside
            pushed = push_to_boundary(inside, g, theta0)
            if pushed is not None and kkt_certificate(pushed, f_jac, g, g_jac, residual_tol,
                                                      modulus):
                return pushed
            continue
        residual, feasible = kkt_residual(theta, f_jac, g, g_jac, feasibility_tol)
        if feasible and residual <= kkt_tol:
            return theta
    raise ConvergenceError(KST_NOT_CONVERGED_MESSAGE.format(message=message))


# --------------------------------------------------------------------------------------------
# (d) Accuracy-first: the trust-region subproblem and the projection onto the ball
# --------------------------------------------------------------------------------------------


def project_onto_ball(theta, radius):
    """The projection of ``theta`` onto the ball ||theta|| <= ``radius``, whose computed norm
    is <= ``radius``.

    Accuracy-first's queries have their sensitivity only on the ball, so every tested hypothesis is
    projected (post-processing), and rounding must not leave it outside: a result whose computed
    norm exceeds the radius is shrunk by one ulp at a time.

    Parameters
    ----------
    theta : ndarray
    radius : float
        > 0.

    Returns
    -------
    ndarray
        ``theta`` itself when inside, else a new array.

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first. NeurIPS 30.

    Examples
    --------
    >>> from dppack.erm.solvers import project_onto_ball
    >>> import numpy as np
    >>> out = project_onto_ball(np.array([3.0, 4.0]), 1.0)
    >>> np.allclose(out, [0.6, 0.8]), bool(np.linalg.norm(out) <= 1.0)
    (True, True)
    """
    norm = float(np.linalg.norm(theta))
    if norm <= radius:
        return theta
    out = theta * (radius / norm)
    while float(np.linalg.norm(out)) > radius:
        out = out * (1.0 - 2.0 ** -52)
    return out


def trust_region_solve(A, g, radius):
    """argmin over ||theta|| <= R of theta'A theta / 2 - g'theta for symmetric A.

    Accuracy-first's ridge hypotheses: the noisy
    quadratic may be indefinite, and the excess-risk queries' sensitivity holds on the ball
    only, so the exact constrained minimiser is computed and projected onto the ball
    (:func:`project_onto_ball`) against rounding.

    Eigendecompose A = Q diag(lam) Q'. The interior solution A^-1 g if A > 0 and it is
    feasible; else theta(mu) = (A + mu I)^-1 g with mu > max(0, -lam_min) solving
    ||theta(mu)|| = R (Brent on the secular equation); in the hard case (g orthogonal to the
    bottom eigenspace) the bottom eigenvector is added to reach norm R.

    The secular equation is solved for the shift s = mu - max(0, -lam_min), with lam + mu
    formed as (lam + max(0, -lam_min)) + s: near the hard case the root s is tiny, and
    Brent's tolerance relative to mu itself (about 1e-14 |mu|) could exceed s, giving a
    theta off the sphere by 25% (as found on random problems).

    Parameters
    ----------
    A : ndarray, d x d
        Symmetric.
    g : ndarray
        d values.
    radius : float
        R > 0.

    Returns
    -------
    ndarray
        d values, computed norm <= R.

    Raises
    ------
    numpy.linalg.LinAlgError
        If the eigendecomposition fails (non-finite A).

    References
    ----------
    Moré JJ, Sorensen DC (1983). Computing a trust region step. SIAM J. Sci. Stat. Comput. 4;
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., §4.3.

    Examples
    --------
    >>> from dppack.erm.solvers import trust_region_solve
    >>> import numpy as np
    >>> A, g = np.diag([2.0, -1.0]), np.array([1.0, 1.0])
    >>> theta = trust_region_solve(A, g, 2.0)
    >>> round(float(np.linalg.norm(theta)), 12)
    2.0
    >>> np.allclose(trust_region_solve(np.eye(2), g, 10.0), g)
    True
    """
    from scipy.optimize import brentq

    lam, Q = np.linalg.eigh(A)
    c = Q.T @ g
    if lam[0] > 0:
        inside = c / lam
        if np.linalg.norm(inside) <= radius:
            return project_onto_ball(Q @ inside, radius)
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
        return project_onto_ball(Q @ (c / (base + shift)), radius)
    # hard case: mu = -lam_min, fill up the norm along the bottom eigenvector
    bottom = base <= 1e-12 * spread
    y = np.zeros_like(c)
    y[~bottom] = c[~bottom] / base[~bottom]
    y[np.flatnonzero(bottom)[0]] = math.sqrt(max(radius ** 2 - float(y @ y), 0.0))
    return project_onto_ball(Q @ y, radius)


# --------------------------------------------------------------------------------------------
# (e) KST with a quadratic objective over a ball: an exact solve, certified in rational
#     arithmetic
# --------------------------------------------------------------------------------------------

QUADRATIC_NOT_CERTIFIED_MESSAGE = (
    "The exact solve of the quadratic KST objective over the ball did not reach its "
    "certificate (KKT residual {residual:.3g} for a tolerance {tolerance:.3g}, slack "
    "{slack:.3g} for {gap:.3g}); the problem is too badly scaled for double precision.")


def _fractions(values):
    """The exact rational values of a float array (a list of Fractions)."""
    return [Fraction(float(v)) for v in np.ravel(values)]


def _exact_number(value):
    """A Fraction as it is, a float's exact rational value otherwise."""
    return value if isinstance(value, Fraction) else Fraction(float(value))


def _exact_residual(gram, cross, shift, x):
    """(G + s I) x - c in exact rational arithmetic: G (lists of Fractions), c and s the
    problem's own floats, x the candidate's; a list of Fractions."""
    xs = _fractions(x)
    return [sum((a * b for a, b in zip(row, xs)), Fraction(0)) + shift * xj - cj
            for row, xj, cj in zip(gram, xs, cross)], xs


def quadratic_ball_certificate(gram, cross, shift, x, radius2, residual_tol, gap_tol):
    """The exact certificate of :func:`quadratic_ball_minimize` at the float point ``x``.

    With q(x) = x'(G + s I) x / 2 - c'x (all given as floats, taken as exact rationals) and
    the ball ||x||^2 <= R2, computes in rational arithmetic the slack h = R2 - ||x||^2, the
    multiplier nu >= 0 minimising ||grad q(x) + nu x|| (nu = 0 when that minimum is at a
    negative nu) and that residual.

    Parameters
    ----------
    gram : ndarray or list
        G, p x p (floats, or rows of Fractions).
    cross : ndarray or list
        c, p values (floats, or Fractions).
    shift : float or Fraction
        s.
    x : ndarray
        The candidate, p floats.
    radius2 : float
        R2.
    residual_tol, gap_tol : float or Fraction
        The tolerances.

    Returns
    -------
    (bool, float, float)
        Whether h >= 0 and either ||grad q(x)|| <= ``residual_tol`` (nu = 0) or that
        residual is <= ``residual_tol`` and h <= ``gap_tol``;
        the residual and h, rounded to floats (for messages).

    References
    ----------
    Nocedal J, Wright SJ (2006). Numerical Optimization, 2nd ed., Theorem 12.1 (the KKT
    conditions); :func:`dppack.erm.approximate.ball_radius` (the radius they certify).

    Examples
    --------
    >>> from dppack.erm.solvers import quadratic_ball_certificate
    >>> import numpy as np
    >>> quadratic_ball_certificate(np.zeros((2, 2)), np.array([2.0, 0.0]), 1.0,
    ...                            np.array([1.0, 0.0]), 1.0, 1e-12, 1e-12)
    (True, 0.0, 0.0)
    """
    gram_q = gram if isinstance(gram, list) else [_fractions(row) for row in gram]
    cross_q = cross if isinstance(cross, list) else _fractions(cross)
    base, xs = _exact_residual(gram_q, cross_q, _exact_number(shift), x)
    norm2 = sum((v * v for v in xs), Fraction(0))
    slack = _exact_number(radius2) - norm2
    tol2 = _exact_number(residual_tol) ** 2
    residual2 = sum((a * a for a in base), Fraction(0))  # nu = 0
    if slack >= 0 and residual2 <= tol2:
        return True, math.sqrt(float(residual2)), float(slack)
    along = sum((a * b for a, b in zip(base, xs)), Fraction(0))
    if norm2 > 0 and along < 0:
        nu = -along / norm2
        residual2 = sum(((a + nu * b) ** 2 for a, b in zip(base, xs)), Fraction(0))
    ok = slack >= 0 and residual2 <= tol2 and slack <= _exact_number(gap_tol)
    return ok, math.sqrt(float(residual2)), float(slack)


def quadratic_ball_minimize(gram, cross, shift, radius2, residual_tol, gap_tol, noise=None,
                            refinements=4, exact=None):
    """argmin over ||x||^2 <= R2 of q(x) = x'(G + s I) x / 2 - c'x, to near machine precision
    and certified in exact rational arithmetic.

    The trust-region subproblem (:func:`trust_region_solve`: the eigendecomposition of
    G + s I and a safeguarded root of the secular equation, the hard case handled), then
    Newton steps whose residuals are computed exactly (iterative refinement): on
    (G + s I) x = c for an interior minimiser, on the KKT system (G + s I + nu I) x = c,
    ||x||^2 = R2 for one on the sphere, the latter then scaled by 1 - j 2^-53 (j = 0, 1,
    ...) until 0 <= R2 - ||x||^2 <= ``gap_tol`` exactly.

    Parameters
    ----------
    gram : ndarray, p x p
        G, symmetric positive semi-definite (floats, taken as exact).
    cross : ndarray
        p values; c = ``cross`` - ``noise``, formed exactly.
    shift : float or Fraction
        s > 0 (G + s I is then positive definite).
    radius2 : float
        R2 > 0, the squared radius.
    residual_tol, gap_tol : float
        The certificate (:func:`quadratic_ball_certificate`): a multiplier nu >= 0 with
        ||grad q(x) + nu x|| <= ``residual_tol`` and, when nu > 0,
        0 <= R2 - ||x||^2 <= ``gap_tol``, all in exact arithmetic on the floats given.
    noise : ndarray, optional
        p values subtracted from ``cross`` (exactly; zeros when omitted).
    refinements : int, default 4
        Newton steps per candidate.
    exact : (list, list), optional
        G as rows of Fractions and c (before ``noise``) as Fractions, the exact values of
        which ``gram`` and ``cross`` are roundings: the Newton residuals and the
        certificate then use them (the floats serve the eigendecomposition and the
        steps only).

    Returns
    -------
    ndarray
        The certified point x.

    Raises
    ------
    ConvergenceError
        (:data:`QUADRATIC_NOT_CERTIFIED_MESSAGE`) when neither candidate meets the
        certificate: a refusal that depends on the data (the tolerance does not).

    References
    ----------
    Moré JJ, Sorensen DC (1983). Computing a trust region step. SIAM J. Sci. Stat. Comput. 4;
    Higham NJ (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed., ch. 12
    (iterative refinement).

    Examples
    --------
    >>> from dppack.erm.solvers import quadratic_ball_minimize
    >>> import numpy as np
    >>> x = quadratic_ball_minimize(np.zeros((2, 2)), np.array([3.0, 4.0]), 1.0, 1.0,
    ...                             2.0 ** -40, 2.0 ** -46)
    >>> np.allclose(x, [0.6, 0.8]), bool(x @ x <= 1.0)
    (True, True)
    """
    gram = np.asarray(gram, dtype=np.float64)
    cross = np.asarray(cross, dtype=np.float64).ravel()
    p = cross.size
    if exact is None:
        gram_q = [_fractions(row) for row in gram]
        cross_q = _fractions(cross)
    else:
        gram_q = [list(row) for row in exact[0]]
        cross_q = list(exact[1])
    if noise is not None:
        noise = np.asarray(noise, dtype=np.float64).ravel()
        cross_q = [c - b for c, b in zip(cross_q, _fractions(noise))]
        cross = cross - noise  # rounded: the solve's start; the certificate is exact
    shift_q = _exact_number(shift)
    A = (gram + gram.T) / 2 + float(shift_q) * np.eye(p)
    lam, Q = np.linalg.eigh(A)
    radius2 = float(radius2)

    def certify(x):
        return quadratic_ball_certificate(gram_q, cross_q, shift_q, x, radius2, residual_tol,
                                          gap_tol)

    x0 = trust_region_solve(A, cross, math.sqrt(radius2))
    best = (math.inf, math.nan)
    # interior candidate: refine (G + s I) x = c
    if lam[0] > 0:
        x = Q @ ((Q.T @ cross) / lam)
        for _ in range(refinements):
            residual = np.array([float(v) for v in _exact_residual(gram_q, cross_q, shift_q,
                                                                    x)[0]])
            x = x - Q @ ((Q.T @ residual) / lam)
        if float(x @ x) <= radius2:
            ok, res, slack = certify(x)
            if ok:
                return x
            best = min(best, (res, slack))
    # boundary candidate: Newton on the KKT system in (x, nu)
    x = np.array(x0, dtype=np.float64)
    norm2 = float(x @ x)
    if norm2 > 0:
        residual = np.array([float(v) for v in _exact_residual(gram_q, cross_q, shift_q,
                                                                x)[0]])
        nu = max(0.0, -float(residual @ x) / norm2)
        for _ in range(refinements):
            base = _exact_residual(gram_q, cross_q, shift_q, x)
            nu_q = Fraction(nu)
            top = np.array([float(v + nu_q * w) for v, w in zip(*base)])
            bottom = float((sum((w * w for w in base[1]), Fraction(0))
                            - Fraction(radius2)) / 2)
            K = np.zeros((p + 1, p + 1))
            K[:p, :p] = A + nu * np.eye(p)
            K[:p, p] = x
            K[p, :p] = x
            step = np.linalg.solve(K, -np.concatenate([top, [bottom]]))
            x = x + step[:p]
            nu = max(0.0, nu + float(step[p]))
        # onto the sphere from inside, exactly: 0 <= R2 - ||x||^2 <= gap_tol
        for j in range(-16, 257):
            candidate = x * (1.0 - j * 2.0 ** -53) if j >= 0 else x * (1.0 - j * 2.0 ** -52)
            ok, res, slack = certify(candidate)
            if ok:
                return candidate
            if slack >= 0:
                best = min(best, (res, slack))
                if slack > gap_tol:
                    break
    raise ConvergenceError(QUADRATIC_NOT_CERTIFIED_MESSAGE.format(
        residual=best[0], tolerance=float(residual_tol), slack=best[1],
        gap=float(gap_tol)))
