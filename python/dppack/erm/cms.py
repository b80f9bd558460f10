"""Private empirical risk minimisation by output or objective perturbation (Chaudhuri, Monteleoni
and Sarwate 2011): DPpack 0.2.2's ``EmpiricalRiskMinimizationDP.CMS`` and ``WeightedERMDP.CMS``
(spec ``dppack_api.md`` §6.1, §6.2).

``fit`` runs three overridable steps, as DPpack's private methods do:

* ``_preprocess_data(X, y, upper_bounds, lower_bounds, add_bias, weights=None,
  weights_upper_bound=None, rng=None)`` validates and transforms the data and returns a dict
  with at least ``"X"`` (n x d float array) and ``"y"`` (length n); the weighted class adds
  ``"weights"`` (None or length n) and ``"weights_upper_bound"``;
* ``_optimize_coeff(X, y, Delta, b, weights=None)`` returns the minimiser of the (perturbed)
  objective J(theta) = (1/n) sum_i loss(mapXy(X, theta)_i, y_i) + (gamma/n) R(theta)
  + (1/n) b' theta + (Delta/2) ||theta||^2;
* ``_postprocess_coeff(coeff, preprocess)`` maps the minimiser back (identity here), where
  ``preprocess`` is the dict ``_preprocess_data`` returned.

Conventions (DPpack's): ``gamma`` is n times Chaudhuri et al.'s regularisation weight Lambda, so
the penalty is (gamma/n) R(theta). ``eps = Inf`` fits without noise (both methods).

Randomness: one generator per ``fit`` (from ``random_state``). Objective perturbation draws the
noise norm r ~ Gamma(shape = d, rate = eps'/2) first, then d standard normals g; b = r g/||g||.
Output perturbation draws r ~ Gamma(shape = d, rate = gamma eps / (2 w_bar)) first (w_bar = 1
without weights), then d standard normals, after the optimisation. This is R's order (rgamma,
then rnorm). With ``eps = Inf`` nothing is drawn.
Stability-based validation (``dppack.model_selection``) passes a :class:`StandardNoise` to the
internal ``_fit(..., noise=)`` instead: then nothing is drawn and the noise is R / rate.
This K-norm noise (density proportional to exp(-rate ||b||)) is drawn in floating point: the
exact samplers of ``dppack._random`` are for the discrete Laplace and Gaussian laws on a grid,
and no exact sampler of the Gamma-radius law exists here. It enters an optimisation (objective
perturbation) or a sum with the minimiser (output perturbation), not a value rounded to a grid.

Accounting: both methods are pure eps-DP (Theorems 6 and 9 below), so ``fit(...,
accountant=)`` charges ``PrivacyLoss.pure(eps)`` under the label ``"<class name>.fit"``
(:func:`dppack.accounting.charge`): an overspend is refused before the data are read and
before any draw, the spend is recorded after the data checks and before the first noise
draw, and the fitted model reports the loss in ``privacy_``. A fit with eps = Inf has no
guarantee: it is refused when an accountant would be charged, and its ``privacy_`` is None.

Privacy assumptions (Chaudhuri, Monteleoni and Sarwate 2011, Theorems 6 and 9; spec §6.1). Write
z = x'theta for a row x of the clipped design. The guarantee holds when

* the per-row loss, as a function of theta, is l(x'theta, y) for a scalar function l that is
  convex and differentiable in z with |dl/dz| <= 1 for every label y in the data (weighted:
  w |dl/dz| <= w_bar); objective perturbation also needs l twice differentiable with
  |d2l/dz2| <= c. So ||grad_theta loss|| <= ||x||: the map must be linear in theta through
  x'theta (``mapXy_linear``; ``mapXy_sigmoid`` with the cross-entropy loss is
  l(z, y) = log(1 + e^z) - y z, |l'| <= 1, l'' <= 1/4). The squared error is not Lipschitz
  in z and so not covered;
* the regularizer R is 1-strongly convex and differentiable (twice, for objective
  perturbation); ``'l2'`` (theta'theta/2) is;
* every clipped row has ||x|| <= B. The framework computes B from the bounds,
  B = sqrt(sum_j max(|L_j|, |U_j|)^2) (the bias column counts 1), and calibrates to
  max(1, B): output perturbation's L2 sensitivity 2 w_bar B / gamma (Thm 6 for rows scaled by
  B), objective perturbation's c B^2 in place of c and noise rate eps'/(2B) (Thm 9: the noise
  difference is at most 2B, the Hessian change c B^2). LogisticRegressionDP and svmDP scale
  their rows to norm <= 1, so for them B = 1, as in DPpack.

The loss and regularizer conditions are the user's responsibility: the framework cannot verify
a function's Lipschitz constant or convexity. Gradients are not checked either.

Optimality. Both theorems assume the exact minimiser. Every fit is released
only if the gradient of the (perturbed) objective at the returned point has L2 norm at most
g_tol = OPTIMALITY_SLACK w_bar B / n (:func:`optimality_tolerance`); otherwise
:class:`ConvergenceError` (a ``RuntimeError`` and a ``ValueError``), never a warning. For
output perturbation this inexactness is accounted for: the objective is (gamma/n)-strongly
convex, so ||theta - theta*|| <= g_tol n / gamma, and two neighbouring
releases differ by at most 2 w_bar B / gamma + 2 n g_tol / gamma
= (2 w_bar B / gamma)(1 + OPTIMALITY_SLACK), the sensitivity the noise is calibrated to
(:func:`output_perturbation_rate`). The check needs the gradient, so output perturbation with a
finite eps needs mapXy.gr, loss.gr and regularizer.gr. For objective perturbation the same
tolerance is required but not accounted for (Theorem 9 has no slack term); without gradient
functions its check uses central differences, accurate to about 1e-10 of the objective's scale.
A refusal is itself an outcome that depends on the data; for a problem meeting the assumptions
(smooth, strongly convex) the solver reaches the tolerance, so refusals signal a broken
assumption (e.g. a non-smooth loss, a wrong gradient) rather than a data set.
"""

import math

import numpy as np

from .. import _checks, _random, accounting
from .blocks import mapXy_gr_linear, mapXy_linear, resolve_regularizer

__all__ = ["EmpiricalRiskMinimizationDP_CMS", "WeightedERMDP_CMS"]

# DPpack's messages (spec §6.1, §6.2)
METHOD_MESSAGE = "perturbation.method must be one of 'output' or 'objective'."
C_MESSAGE = "c must be given for 'objective' perturbation.method."
UPPER_LENGTH_MESSAGE = "Length of upper.bounds must be equal to the number of columns of X."
LOWER_LENGTH_MESSAGE = "Length of lower.bounds must be equal to the number of columns of X."
WEIGHTED_OBJECTIVE_MESSAGE = (
    "Currently, weighting ERM samples only tested for SVM with output  perturbation and "
    "should not be used with objective perturbation."
)  # DPpack's text, double space included
WEIGHTS_BOUND_MESSAGE = "Upper bound on weights must be given if weights vector given."
WEIGHTS_NEGATIVE_MESSAGE = "Weights must be nonnegative."
BINARY_LABELS_MESSAGE = "y must be a numeric vector of binary labels 0 and 1."
NOT_FITTED_MESSAGE = "The model must be fitted before predict: call fit() first."

# Optimality slack tau: fits must reach ||grad J|| <= tau w_bar B / n, which adds the fraction
# tau to output perturbation's sensitivity (module docstring). 1e-6 keeps the extra noise
# negligible while staying reachable: the rounding floor of a computed gradient is about
# 1e-16 (1 + ||theta||) (a mean of terms bounded by w_bar B), so g_tol = 1e-12 at n = 10^6
# leaves four orders of margin; L-BFGS-B's stop on the objective's change (ftol) can leave the
# gradient far above g_tol when gamma/n is small, so fits finish with Newton steps.
OPTIMALITY_SLACK = 1e-6
NOT_CONVERGED_MESSAGE = (
    "The optimiser did not reach a minimiser to the required tolerance (gradient norm <= "
    "{tolerance:.3g}); no coefficients are released, since the privacy guarantee assumes the "
    "exact minimiser. Check that the loss, map and regularizer are convex and smooth and that "
    "their gradients are correct; a larger gamma makes the problem better conditioned."
)


class ConvergenceError(ValueError, RuntimeError):
    """A fit that did not reach its certified optimality tolerance and so releases nothing.

    A ``RuntimeError`` (the solver's failure) and a ``ValueError`` (the problem as given
    cannot be solved to the tolerance its privacy needs), so that R users see the message as
    a DPpack-style error, without a Python traceback.
    """


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
        raise ValueError(INFINITE_EPS_MESSAGE)
    return accounting.PrivacyLoss.approx(eps, delta)


def refuse_infinite_eps(bill, eps):
    """Refuse, before the data are read, a fit without noise (eps = Inf) that an accountant
    would charge: ``bill`` is the fit's :class:`dppack.accounting.Charge`."""
    if bill.accountant is not None and not math.isfinite(eps):
        raise ValueError(INFINITE_EPS_MESSAGE)


def spend_fit(bill, eps):
    """``bill.spend()`` (the fit's PrivacyLoss, recorded with its accountant) for a private
    fit; None for eps = Inf, which no accountant charges (:func:`refuse_infinite_eps`)."""
    return bill.spend() if math.isfinite(eps) else None


OUTPUT_GRADIENT_MESSAGE = (
    "perturbation.method 'output' needs mapXy.gr, loss.gr and regularizer.gr: the fit checks "
    "with the gradient that it reached the minimiser the noise is calibrated to."
)

# L-BFGS-B settings: tight enough that eps = Inf fits agree with an independent solver to 1e-6
# (on 10^6 x 20 logistic data gtol 1e-8 lands 3e-7 from the 1e-10 answer, 1.4x faster).
_LBFGS_OPTIONS = {"maxiter": 50_000, "maxfun": 500_000, "gtol": 1e-8, "ftol": 1e-12,
                  "maxcor": 20}


# --------------------------------------------------------------------------------------------
# Hyper-parameter checks (ours unless stated: DPpack validates none of these values, §6)
# --------------------------------------------------------------------------------------------


def _check_callable(value, name, optional=False):
    if value is None and optional:
        return None
    if not callable(value):
        raise ValueError(f"{name} must be a function{' or NULL' if optional else ''}.")
    return value


def _check_method(method):
    if not isinstance(method, str) or method not in ("output", "objective"):
        raise ValueError(METHOD_MESSAGE)
    return method


# --------------------------------------------------------------------------------------------
# Data conversion and validation
# --------------------------------------------------------------------------------------------


def as_design_matrix(X, name="X"):
    """``X`` (array, list of lists or pandas DataFrame) as a 2-d float array, not checked for
    finiteness; a 1-d vector becomes one column (R's ``as.matrix``). No copy when ``X`` is
    already a float64 array."""
    array = _checks.as_numeric_array(X, f"{name} must be a numeric matrix or data frame.")
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a numeric matrix or data frame (2 dimensions).")
    if array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"{name} must have at least one row and one column.")
    return array


def check_finite_matrix(array, name="X"):
    """Raise unless every entry is finite; one blockwise pass, no temporary copy."""
    low, high = _checks.data_range(array)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{name} must be finite (no NA, NaN or Inf).")
    return array


def as_labels(y, n):
    """``y`` (1-d, n x 1, Series or one-column DataFrame) as a finite length-n float array."""
    array = _checks.as_numeric_array(y, "y must be a numeric vector.")
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError("y must be a numeric vector or a one-column matrix.")
    if array.size != n:
        raise ValueError(f"y must have one value per row of X: X has {n} rows, y has "
                         f"{array.size} values.")
    if not np.all(np.isfinite(array)):
        raise ValueError("y must be finite (no NA, NaN or Inf).")
    return array


def check_binary_labels(y):
    """DPpack's 0/1 label check of LogisticRegressionDP and svmDP (§6.3, §6.4)."""
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(BINARY_LABELS_MESSAGE)
    return y


def _bound_vector(value, p, length_message, name):
    if value is None:
        size = 0
    else:
        try:
            size = np.size(value.to_numpy() if _checks.is_pandas(value) else value)
        except (TypeError, ValueError):
            size = -1
    if size != p:
        raise ValueError(length_message)
    return value


def check_bounds_vectors(upper_bounds, lower_bounds, p):
    """DPpack's length checks (upper first, §6.1), then ours: numeric, finite, lower < upper.

    Returns ``(upper, lower)`` as float arrays of length p.
    """
    _bound_vector(upper_bounds, p, UPPER_LENGTH_MESSAGE, "upper.bounds")
    _bound_vector(lower_bounds, p, LOWER_LENGTH_MESSAGE, "lower.bounds")
    out = []
    for value, name in ((upper_bounds, "upper.bounds"), (lower_bounds, "lower.bounds")):
        array = _checks.as_numeric_array(value, f"{name} must be numeric.").ravel()
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite.")
        out.append(array)
    upper, lower = out
    bad = np.flatnonzero(~(lower < upper))
    if bad.size:
        raise ValueError(
            f"lower.bounds must be < upper.bounds in every column (not in column {bad[0] + 1})."
        )
    return upper, lower


def prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale=False,
                   binary_labels=False):
    """DPpack's base preprocessing (§6.1 step 1), optionally with the scaling of §6.3.

    Checks X, the bounds (DPpack's length messages), X's finiteness, y (and 0/1 labels if
    ``binary_labels``), then writes the clipped (and, with ``scale``, scaled) design into one
    new n x d array, with the bias column of ones first when ``add_bias`` (bounds 1, 1). With
    ``scale`` each column j is divided by s_j sqrt(d), s_j = max(|L_j|, |U_j|), so every row
    has norm <= 1. The caller's X is never modified.

    Returns a dict with ``"X"``, ``"y"``, ``"scale"`` (the per-column divisors s_j sqrt(d),
    or None without scaling) and ``"row_norm_bound"``, a bound on the norm of every row of
    ``"X"`` that holds for any data within the bounds: 1 with ``scale``, else
    sqrt(sum_j s_j^2) (the bias column counts 1).
    """
    X = as_design_matrix(X)
    n, p0 = X.shape
    upper, lower = check_bounds_vectors(upper_bounds, lower_bounds, p0)
    check_finite_matrix(X)
    y = as_labels(y, n)
    if binary_labels:
        check_binary_labels(y)
    bias = int(bool(add_bias))
    if bias:
        upper = np.concatenate([[1.0], upper])
        lower = np.concatenate([[1.0], lower])
    d = p0 + bias
    out = np.empty((n, d))
    if bias:
        out[:, 0] = 1.0
    np.clip(X, lower[bias:], upper[bias:], out=out[:, bias:])
    divisors = None
    magnitudes = np.maximum(np.abs(lower), np.abs(upper))
    row_norm_bound = 1.0
    if scale:
        divisors = magnitudes * math.sqrt(d)
        out /= divisors
    else:
        row_norm_bound = float(np.linalg.norm(magnitudes))
    return {"X": out, "y": y, "scale": divisors, "row_norm_bound": row_norm_bound}


def prepare_weights(weights, weights_upper_bound, n):
    """The weighted preprocessing of §6.2: DPpack's checks, then weights clipped above at
    ``weights_upper_bound``. Without weights the bound is 1 (whatever the user passed)."""
    if weights is None:
        return {"weights": None, "weights_upper_bound": 1.0}
    if weights_upper_bound is None:
        raise ValueError(WEIGHTS_BOUND_MESSAGE)
    w = _checks.as_numeric_array(weights, "weights must be numeric.").ravel()
    if np.any(np.isnan(w)):
        raise ValueError("weights must not contain NA or NaN.")
    if np.any(w < 0):
        raise ValueError(WEIGHTS_NEGATIVE_MESSAGE)
    bound = _checks.check_finite_positive_scalar(weights_upper_bound, "weights.upper.bound")
    if w.size != n:
        raise ValueError(f"weights must have one value per row of X: X has {n} rows, "
                         f"weights has {w.size} values.")
    return {"weights": np.minimum(w, bound), "weights_upper_bound": bound}


def add_bias_column(X):
    """A new matrix with a column of ones prepended (DPpack puts the bias first)."""
    out = np.empty((X.shape[0], X.shape[1] + 1))
    out[:, 0] = 1.0
    out[:, 1:] = X
    return out


def check_predict_columns(k, m, add_bias):
    if k != m:
        extra = " (counting the bias column added by add.bias)" if add_bias else ""
        raise ValueError(f"X has {k} columns{extra}; the model was fitted on {m}.")


# --------------------------------------------------------------------------------------------
# Optimisation and noise
# --------------------------------------------------------------------------------------------


def _vector(value, size=None):
    array = np.asarray(value, dtype=np.float64).ravel()
    if size is not None and array.size != size:
        raise ValueError(f"A model function returned {array.size} values where {size} "
                         "were expected.")
    return array


def _scalar(value):
    array = np.asarray(value, dtype=np.float64).ravel()
    if array.size != 1:
        raise ValueError(f"The regularizer returned {array.size} values where one was expected.")
    return float(array[0])


def transpose_dot(X, v):
    """X' v for an n x d float array X and n values v (the chain rule of a linear map).

    einsum's one streaming pass beats BLAS gemv here: on C-ordered X with n >> d OpenBLAS's
    X' v took 2-4x as long as X theta (60 ms against 15 ms at n = 10^6, d = 20; 40 against 29
    ms at n = 10^5, d = 500), einsum about as long as X theta.
    """
    return np.einsum("ij,i->j", X, v)


def _newton(fun, hessian, theta, gtol, max_steps=50, step_tol=1e-10):
    """Damped Newton from ``theta``; None if it stalls before ||gradient|| <= ``gtol``.

    ``hessian(theta)`` must be a positive definite (generalised) Hessian. It stops once
    ||gradient|| <= ``gtol`` and the Newton step is below ``step_tol`` times max |theta|:
    the gradient rule alone leaves an error of about gtol / (smallest curvature), 2e-6
    relative on an svmDP Gaussian-kernel fit with gamma/n = 5e-5. Steps are halved until the
    Armijo condition holds; a step that rounding keeps from passing Armijo is taken when the
    objective did not rise beyond rounding and the gradient halved (next to the optimum the
    decrease is below the objective's floating-point resolution).
    """
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


# Central-difference steps (relative to max(1, |theta_j|)): about u^(1/3) for a gradient from
# objective values (error ~ u^(2/3), 1e-11 on an objective of size 1), and for a Hessian from
# an analytic gradient 1e-5 (rounding 1e-16 / 1e-5 against a truncation of 1e-10 times the
# third derivative), 1e-4 from a difference gradient (its 1e-11 error / 1e-4).
_GRADIENT_STEP = 6e-6
_HESSIAN_STEP = 1e-5
_HESSIAN_STEP_DIFFERENCES = 1e-4


def central_gradient(fun, theta):
    """The gradient of ``fun`` (a function returning one number) at ``theta`` by central
    differences: 2 d evaluations. The optimality check's gradient for models without
    gradient functions."""
    theta = np.asarray(theta, dtype=np.float64)
    grad = np.empty(theta.size)
    for j in range(theta.size):
        h = _GRADIENT_STEP * max(1.0, abs(theta[j]))
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        grad[j] = (float(fun(up)) - float(fun(down))) / (up[j] - down[j])
    return grad


def _difference_hessian(gradient, theta, step):
    """The symmetrised central-difference Jacobian of ``gradient`` at ``theta``."""
    d = theta.size
    H = np.empty((d, d))
    for j in range(d):
        h = step * max(1.0, abs(theta[j]))
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        H[:, j] = (gradient(up) - gradient(down)) / (up[j] - down[j])
    return (H + H.T) / 2.0


def _polish(gradient, hessian, theta, gtol, hessian_step, max_steps=30):
    """Newton steps on the gradient alone until ||gradient|| <= ``gtol``; returns (theta,
    ||gradient(theta)||).

    A step is taken (halved up to 20 times) when it lowers the gradient norm: near the
    minimiser of a smooth strongly convex objective a Newton step does, and it keeps working
    where the objective's change is below its rounding, where L-BFGS-B's line search stops.
    ``hessian`` None: central differences of ``gradient``.
    """
    grad = gradient(theta)
    norm = float(np.linalg.norm(grad))
    for _ in range(max_steps):
        if norm <= gtol or not math.isfinite(norm):
            break
        H = hessian(theta) if hessian is not None else _difference_hessian(
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


def minimize_objective(fun, d, jac, hessian=None, gtol=None, newton=True):
    """Minimise ``fun`` over R^d from 0 and certify the result: ||gradient|| <= ``gtol``.

    ``jac=True``: ``fun`` returns (value, gradient); ``jac=None``: ``fun`` returns the value,
    scipy approximates the gradient by finite differences and the check uses central
    differences (:func:`central_gradient`). ``hessian`` (with ``jac=True``):
    ``hessian(theta)`` returns a positive definite (generalised) Hessian; then 5 L-BFGS-B
    iterations are followed by damped Newton steps until ||gradient|| <= gtol and the Newton
    step is negligible; they end at the exact minimiser once the quadratic pieces are found,
    where L-BFGS-B needs hundreds of evaluations on ill-conditioned problems. If Newton
    stalls, L-BFGS-B restarts from the end of its first 5 iterations with the usual limits.
    A result above ``gtol`` gets Newton steps on the gradient (:func:`_polish`; Hessian by
    central differences when none is given). ``newton=False``: L-BFGS-B first even with a
    ``hessian``, which then serves the polish only (smooth objectives, where L-BFGS-B is fast
    and one or two Newton steps finish).

    Raises :class:`ConvergenceError` (a ``RuntimeError``) if the result is not finite or its
    gradient norm stays above ``gtol`` (never released with a warning).
    ``gtol`` None: 1e-8 sqrt(d) (L-BFGS-B's own stop); the models pass
    :func:`optimality_tolerance`.
    """
    from scipy.optimize import minimize

    if gtol is None:
        gtol = _LBFGS_OPTIONS["gtol"] * math.sqrt(d)
    if jac is True:
        def gradient(theta):
            return _vector(fun(theta)[1], d)
        hessian_step = _HESSIAN_STEP
    else:
        def gradient(theta):
            return central_gradient(fun, theta)
        hessian, hessian_step = None, _HESSIAN_STEP_DIFFERENCES

    start = np.zeros(d)
    theta = None
    if hessian is not None and newton:
        warm = minimize(fun, start, jac=True, method="L-BFGS-B",
                        options={**_LBFGS_OPTIONS, "maxiter": 5})
        start = np.asarray(warm.x, dtype=np.float64)
        if np.all(np.isfinite(start)):
            theta = _newton(fun, hessian, start, gtol)
        else:
            start = np.zeros(d)
    if theta is None:
        result = minimize(fun, start, jac=jac, method="L-BFGS-B", options=_LBFGS_OPTIONS)
        theta = np.asarray(result.x, dtype=np.float64)
    if not np.all(np.isfinite(theta)):
        raise ConvergenceError("The optimiser returned non-finite coefficients: check that "
                               "the loss, map and regularizer are finite near the optimum.")
    theta, norm = _polish(gradient, hessian, theta, gtol, hessian_step)
    if not norm <= gtol:
        raise ConvergenceError(NOT_CONVERGED_MESSAGE.format(tolerance=gtol))
    return theta


def noise_vector(d, rate, rng):
    """r g / ||g|| with r ~ Gamma(shape = d, rate), g ~ N(0, I_d): density proportional to
    exp(-rate ||b||). Draws the norm first, then the direction (R's order)."""
    r = _random.gamma(d, rate, rng)
    g = _random.normal(1.0, d, rng)
    return r * g / np.linalg.norm(g)


class StandardNoise:
    """Perturbation noise supplied from outside a fit (stability-based validation, spec
    stability_validation.md §1 and §3): one vector R with density proportional to exp(-||r||)
    on R^d (norm ~ Gamma(d, 1), uniform direction).

    A fit whose noise rate is ``rate`` (eps'/2 for objective, gamma eps / (2 (1 + tau)) for
    output perturbation, :func:`output_perturbation_rate`) uses R / rate, whose density is proportional to exp(-rate ||b||): the law of
    ``noise_vector(d, rate)``. So one R can be shared by fits with different gamma and eps,
    each getting noise of its own, correct scale; the fit itself stays deterministic given R.
    """

    def __init__(self, vector):
        self.vector = np.array(vector, dtype=np.float64).ravel()

    @classmethod
    def draw(cls, d, rng):
        """R ~ density proportional to exp(-||r||) on R^d (rate 1), from a NumPy Generator."""
        return cls(noise_vector(d, 1.0, rng))

    def scaled(self, d, rate):
        """R / rate (zeros for an infinite rate, as ``noise_vector``)."""
        if self.vector.size != d:
            raise ValueError(f"The supplied noise has {self.vector.size} values; the fit "
                             f"needs {d}.")
        if rate == math.inf:
            return np.zeros(d)
        return self.vector / rate


def perturbation_noise(d, rate, rng, noise=None):
    """``noise_vector(d, rate, rng)``, or the supplied :class:`StandardNoise` scaled to
    ``rate`` (then nothing is drawn from ``rng``)."""
    if noise is None:
        return noise_vector(d, rate, rng)
    return noise.scaled(d, rate)


def objective_perturbation_parameters(eps, gamma, c, n, row_norm_bound=1.0):
    """(eps', Delta) of objective perturbation, spec §6.1 step 3 (gamma = n Lambda).

    eps' = eps - ln(1 + 2c/gamma + c^2/gamma^2); if eps' <= 0, Delta = c / (n (e^(eps/4) - 1))
    - gamma/n and eps' = eps/2, else Delta = 0. For rows of norm up to ``row_norm_bound`` B
    > 1, c B^2 stands for c (Chaudhuri et al. 2011, Thm 9: a replaced row changes the Hessian
    by l'' x x', of norm at most c B^2); the noise rate is then eps' / (2B).
    """
    c = c * max(1.0, row_norm_bound) ** 2
    eps_prime = eps - math.log1p(2.0 * c / gamma + (c / gamma) ** 2)
    if eps_prime > 0:
        return eps_prime, 0.0
    delta = c / (n * math.expm1(eps / 4.0)) - gamma / n
    return eps / 2.0, delta


def optimality_tolerance(n, weights_upper_bound=1.0, row_norm_bound=1.0):
    """g_tol = OPTIMALITY_SLACK w_bar max(1, B) / n: the bound on the gradient norm of the
    objective at a released minimiser (module docstring, "Optimality")."""
    return OPTIMALITY_SLACK * weights_upper_bound * max(1.0, row_norm_bound) / n


def output_perturbation_rate(gamma, eps, weights_upper_bound=1.0, row_norm_bound=1.0):
    """The rate of output perturbation's noise, density proportional to exp(-rate ||b||).

    rate = eps / Delta2 with the L2 sensitivity Delta2 = (2 w_bar B / gamma)(1 + tau): 2 w_bar
    B / gamma for the exact minimiser (Chaudhuri et al. 2011, Corollary 8 in DPpack's gamma = n
    Lambda, losses bounded in slope by w_bar and rows by B = max(1, ``row_norm_bound``), spec
    §6.1 step 5, §6.2 step 5), plus 2 n g_tol / gamma = (2 w_bar B / gamma) tau for two
    minimisers certified to ||grad|| <= g_tol = tau w_bar B / n of a (gamma/n)-strongly
    convex objective (tau = OPTIMALITY_SLACK). DPpack's rate is gamma eps / (2 w_bar).
    """
    bound = max(1.0, row_norm_bound)
    return gamma * eps / (2.0 * weights_upper_bound * bound * (1.0 + OPTIMALITY_SLACK))


# --------------------------------------------------------------------------------------------
# The classes
# --------------------------------------------------------------------------------------------


class EmpiricalRiskMinimizationDP_CMS:
    """Differentially private ERM by output or objective perturbation (DPpack's
    ``EmpiricalRiskMinimizationDP.CMS``, spec §6.1; Chaudhuri, Monteleoni and Sarwate 2011).

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``: the model's outputs for the n x d matrix X, n values. For the
        guarantee it must act through the linear score x'coeff of each row (e.g.
        ``mapXy_linear``, ``mapXy_sigmoid``).
    loss : callable
        ``loss(y_hat, y)``: the per-row losses, n values. For the guarantee, as a function of
        the score z = x'coeff it must be convex and differentiable with |dloss/dz| <= 1 (and,
        for objective perturbation, twice differentiable with |d2loss/dz2| <= ``c``) for every
        label in the data: the Huber loss (labels -1/+1, c = 1/(2h)) with ``mapXy_linear``,
        or the cross-entropy with ``mapXy_sigmoid`` (c = 1/4). The squared error is not
        Lipschitz, so not covered.
    regularizer : 'l2' or callable
        ``'l2'`` is coeff'coeff/2 (with its gradient); a callable ``regularizer(coeff)``
        returns one number and, for the guarantee, must be 1-strongly convex and
        differentiable (twice for objective perturbation).
    eps : float
        Privacy budget, > 0; ``Inf`` fits without noise (not private).
    gamma : float
        Regularisation constant, > 0 and finite; the penalty is (gamma/n) R(coeff).
    perturbation_method : {'objective', 'output'}
    c : float, optional
        Bound on the loss's second derivative in the score, required for objective
        perturbation.
    mapXy_gr, loss_gr, regularizer_gr : callable, optional
        Gradients: ``mapXy_gr(X, coeff)`` is d x n, ``loss_gr(y_hat, y)`` the derivative in
        ``y_hat`` (n values), ``regularizer_gr(coeff)`` d values. The analytic gradient is
        used when all three are given, else the optimiser uses finite differences. Output
        perturbation with a finite eps needs all three (the optimality check below). With
        ``regularizer='l2'`` ``regularizer_gr`` is ignored.

    Attributes
    ----------
    mapXy, mapXy_gr, loss, loss_gr, regularizer, regularizer_gr, gamma, eps,
    perturbation_method, c : as given (validated).
    coeff : ndarray or None
        The private coefficients after ``fit`` (d values, bias first with ``add_bias``).
    eps_prime_, Delta_ : float or None
        After ``fit`` with objective perturbation: the eps' and Delta used (§6.1 step 3;
        eps' = Inf and Delta = 0 when eps = Inf); None after output perturbation.

    optimality_tolerance_ : float or None
        After ``fit``: the bound g_tol on the gradient norm of the objective that the
        released minimiser met.
    privacy_ : dppack.PrivacyLoss or None
        After ``fit``: what the fit spent, ``PrivacyLoss.pure(eps)``; None before a fit and
        after a fit with eps = Inf (no noise, no guarantee).

    Notes
    -----
    What the framework checks and what it assumes (module docstring, "Privacy assumptions"):
    it checks eps, gamma, c, the bounds and the data, clips X to the bounds and calibrates the
    noise to B, the largest norm a clipped row can have (from the bounds; no scaling, so the
    coefficients keep the user's units); it releases only a minimiser whose gradient norm is
    at most g_tol = 1e-6 w_bar max(1, B) / n (``ConvergenceError`` otherwise), a slack that output
    perturbation's noise covers (1 + 1e-6 times the exact sensitivity). It cannot check the
    loss, map and regularizer conditions above, nor the gradients: they are the user's
    responsibility. DPpack's base class calibrated to B = 1 whatever the bounds.

    User functions may return lists, 1-d or 2-d arrays (e.g. R matrices through reticulate);
    per-row outputs are flattened. Bad hyper-parameters raise ``ValueError`` here and again in
    ``fit`` (attributes are public and may be changed in between).

    Examples
    --------
    Logistic regression on the base class: the cross-entropy of the sigmoid map has slope
    at most 1 and curvature at most 1/4 in the score, and with bounds of norm <= 1
    (0.7^2 + 0.7^2 < 1) every clipped row has norm <= 1.

    >>> import numpy as np, dppack
    >>> t = np.arange(200)  # fixed example data in [-0.7, 0.7]^2
    >>> X = 0.7 * np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(float)
    >>> model = dppack.EmpiricalRiskMinimizationDP_CMS(
    ...     dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", eps=1, gamma=1,
    ...     perturbation_method="output", mapXy_gr=dppack.mapXy_gr_sigmoid,
    ...     loss_gr=dppack.loss_gr_cross_entropy)
    >>> model.fit(X, y, [0.7, 0.7], [-0.7, -0.7], random_state=1).coeff.shape
    (2,)
    """

    _weighted = False

    def __init__(self, mapXy, loss, regularizer, eps, gamma, perturbation_method="objective",
                 c=None, mapXy_gr=None, loss_gr=None, regularizer_gr=None):
        self.mapXy = _check_callable(mapXy, "mapXy")
        self.mapXy_gr = _check_callable(mapXy_gr, "mapXy.gr", optional=True)
        self.loss = _check_callable(loss, "loss")
        self.loss_gr = _check_callable(loss_gr, "loss.gr", optional=True)
        self.regularizer, self.regularizer_gr = resolve_regularizer(regularizer,
                                                                    regularizer_gr)
        self.eps = _checks.check_positive_scalar(eps, "eps")
        self.gamma = _checks.check_finite_positive_scalar(gamma, "gamma")
        self.perturbation_method = _check_method(perturbation_method)
        if self.perturbation_method == "objective" and c is None:
            raise ValueError(C_MESSAGE)
        self.c = None if c is None else _checks.check_finite_positive_scalar(c, "c")
        self.coeff = None
        self.eps_prime_ = None
        self.Delta_ = None
        self.optimality_tolerance_ = None
        self.privacy_ = None

    # ---- public API -------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False,
            random_state=None, accountant=None):
        """Fit the private coefficients; returns ``self``.

        Parameters
        ----------
        X : array_like or pandas.DataFrame, n x p
            Never modified. The base class does not scale; the noise is calibrated to the
            largest norm B a row clipped to the bounds can have (B = 1 if that is <= 1).
        y : array_like, n labels (1-d, n x 1, Series or one-column DataFrame)
        upper_bounds, lower_bounds : array_like, p values
            Bounds of X's columns; X is clipped to them (DPpack's length messages).
        add_bias : bool
            Prepend a column of ones (bounds 1, 1); the bias coefficient comes first.
        random_state : None, int or NumPy Generator
        accountant : dppack.BudgetAccountant, optional
            Charged eps (pure eps-DP, both methods; Chaudhuri et al. 2011, Theorems 6 and 9)
            under the label ``"<class name>.fit"``; None: the session's accountant, if any.
            An overspend is refused before the data are read and before any draw; a fit with
            eps = Inf (no noise) cannot be charged and is refused too.
        """
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, None, None, random_state,
                         accountant=accountant)

    def predict(self, X, add_bias=False):
        """``mapXy(X, coeff)`` (X not clipped or scaled) as a 1-d array of n values."""
        X = self._predict_design(X, add_bias)
        return _vector(self.mapXy(X, self.coeff), X.shape[0])

    # ---- the steps ----------------------------------------------------------------------------

    def _check_parameters(self):
        self.eps = _checks.check_positive_scalar(self.eps, "eps")
        self.gamma = _checks.check_finite_positive_scalar(self.gamma, "gamma")
        _check_method(self.perturbation_method)
        if self.perturbation_method == "objective":
            if self.c is None:
                raise ValueError(C_MESSAGE)
            self.c = _checks.check_finite_positive_scalar(self.c, "c")
        elif math.isfinite(self.eps) and not self._use_gradient():
            raise ValueError(OUTPUT_GRADIENT_MESSAGE)

    def _fit(self, X, y, upper_bounds, lower_bounds, add_bias, weights, weights_upper_bound,
             random_state, noise=None, accountant=None):
        # noise: None (draw from random_state) or a StandardNoise reused across fits
        # (stability-based validation); internal only, the public fit signatures are DPpack's.
        # Both perturbation methods are pure eps-DP (module docstring): the fit charges eps.
        bill = accounting.charge(accountant, lambda: fit_loss(self.eps),
                                 f"{type(self).__name__}.fit")
        self._check_parameters()
        refuse_infinite_eps(bill, self.eps)
        add_bias = _checks.check_flag(add_bias, "add.bias")
        rng = _random.as_generator(random_state)
        preprocess = self._preprocess_data(X, y, upper_bounds, lower_bounds, add_bias,
                                           weights, weights_upper_bound, rng=rng)
        # after the data checks, before the first noise draw (svmDP's Gaussian kernel draws
        # its random features, which do not depend on the data, in _preprocess_data)
        privacy = spend_fit(bill, self.eps)
        Xp, yp = preprocess["X"], preprocess["y"]
        n, d = Xp.shape
        eps = self.eps
        objective = self.perturbation_method == "objective"
        # B: every clipped row has norm <= B whatever the data (module docstring)
        bound = max(1.0, float(preprocess.get("row_norm_bound", 1.0)))
        w_bar = preprocess.get("weights_upper_bound", 1.0)
        # read by _optimize_coeff: the fit is released only if ||grad J|| <= this
        self.optimality_tolerance_ = optimality_tolerance(n, w_bar, bound)
        if objective and math.isfinite(eps):
            eps_prime, Delta = objective_perturbation_parameters(eps, self.gamma, self.c, n,
                                                                 bound)
            b = perturbation_noise(d, eps_prime / (2.0 * bound), rng, noise)
        else:
            eps_prime, Delta, b = (math.inf if objective else None), 0.0, np.zeros(d)
        theta = np.asarray(self._optimize_coeff(Xp, yp, Delta, b, preprocess.get("weights")),
                           dtype=np.float64).ravel()
        if not objective and math.isfinite(eps):
            rate = output_perturbation_rate(self.gamma, eps, w_bar, bound)
            theta = theta + perturbation_noise(d, rate, rng, noise)
        self.coeff = np.asarray(self._postprocess_coeff(theta, preprocess),
                                dtype=np.float64).ravel()
        self.eps_prime_ = eps_prime
        self.Delta_ = Delta if objective else None
        self.privacy_ = privacy
        return self

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        """Bound checks, optional bias column (first), clipping; no scaling (§6.1 step 1)."""
        return prepare_design(X, y, upper_bounds, lower_bounds, add_bias)

    def _loss_values(self, y_hat, y, weights):
        if self._weighted:
            return self.loss(y_hat, y, weights)
        return self.loss(y_hat, y)

    def _loss_gr_values(self, y_hat, y, weights):
        if self._weighted:
            return self.loss_gr(y_hat, y, weights)
        return self.loss_gr(y_hat, y)

    def _use_gradient(self):
        return (self.mapXy_gr is not None and self.loss_gr is not None
                and self.regularizer_gr is not None)

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """Minimise J(theta) (module docstring) with the user's functions."""
        n, d = X.shape
        gamma = self.gamma
        with_gradient = self._use_gradient()
        # With the linear map the chain rule needs no d x n Jacobian: loss' X, one product.
        linear = self.mapXy is mapXy_linear and self.mapXy_gr is mapXy_gr_linear

        def chain(theta, loss_gr):
            if linear:
                return transpose_dot(X, loss_gr)
            return np.asarray(self.mapXy_gr(X, theta), dtype=np.float64).reshape(d, n) @ loss_gr

        def objective(theta):
            y_hat = _vector(self.mapXy(X, theta), n)
            value = (np.sum(_vector(self._loss_values(y_hat, y, weights), n)) / n
                     + gamma / n * _scalar(self.regularizer(theta))
                     + (b @ theta) / n + Delta / 2.0 * (theta @ theta))
            if not with_gradient:
                return value
            grad = (chain(theta, _vector(self._loss_gr_values(y_hat, y, weights), n)) / n
                    + gamma / n * _vector(self.regularizer_gr(theta), d)
                    + b / n + Delta * theta)
            return value, grad

        return minimize_objective(objective, d, True if with_gradient else None,
                                  gtol=self.optimality_tolerance_)

    def _postprocess_coeff(self, coeff, preprocess):
        """Identity in the base class."""
        return coeff

    def _predict_design(self, X, add_bias):
        if self.coeff is None:
            raise ValueError(NOT_FITTED_MESSAGE)
        add_bias = _checks.check_flag(add_bias, "add.bias")
        X = as_design_matrix(X)
        check_predict_columns(X.shape[1] + add_bias, np.size(self.coeff), add_bias)
        return add_bias_column(X) if add_bias else X


class WeightedERMDP_CMS(EmpiricalRiskMinimizationDP_CMS):
    """Weighted private ERM (DPpack's ``WeightedERMDP.CMS``, spec §6.2).

    Same constructor as :class:`EmpiricalRiskMinimizationDP_CMS`, but ``loss`` and ``loss_gr``
    take a third argument ``w`` (the weights, or None), as the Huber generators do. Weights are
    only allowed with output perturbation, whose noise rate becomes
    gamma eps / (2 w_bar B (1 + 1e-6)), w_bar = ``weights_upper_bound``
    (:func:`output_perturbation_rate`).

    The guarantee needs the assumptions of :class:`EmpiricalRiskMinimizationDP_CMS` with the
    weighted loss: ``loss(y_hat, y, w)`` = w l(z, y) for an l as there (|dl/dz| <= 1), so
    that its slope is at most w <= w_bar after clipping; weights are checked (>= 0) and
    clipped at w_bar, the form of the loss is the user's responsibility.
    """

    _weighted = True

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False, weights=None,
            weights_upper_bound=None, random_state=None, accountant=None):
        """As :meth:`EmpiricalRiskMinimizationDP_CMS.fit` (``accountant`` included: eps is
        charged, the weights' bound is in the noise), plus

        weights : array_like, optional
            n nonnegative weights (output perturbation only), clipped above at
            ``weights_upper_bound``.
        weights_upper_bound : float
            Required with ``weights``; ignored (taken as 1) without them.
        """
        if weights is not None and self.perturbation_method != "output":
            raise ValueError(WEIGHTED_OBJECTIVE_MESSAGE)
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, weights,
                         weights_upper_bound, random_state, accountant=accountant)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        preprocess = prepare_design(X, y, upper_bounds, lower_bounds, add_bias)
        preprocess.update(prepare_weights(weights, weights_upper_bound, preprocess["X"].shape[0]))
        return preprocess

