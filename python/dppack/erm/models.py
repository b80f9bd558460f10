"""DPpack 0.2.2's CMS models: ``LogisticRegressionDP`` and ``svmDP`` (spec §6.3, §6.4).

Both scale the clipped design so that every row has norm <= 1 (X_ij / (s_j sqrt(p)),
s_j = max(|L_j|, |U_j|)), fit the private coefficients of the scaled problem and unscale them
(theta_j / (s_j sqrt(p))), so predictions on raw X equal predictions of the scaled problem.
Their objectives are closed forms over whole arrays (no Python work per row); the scaled design
is the only n x d copy a fit makes.

Deviation from DPpack (spec §8.1): LogisticRegressionDP regularises with its own ``gamma``;
the shipped DPpack used a stray global ``gamma = 1`` in the objective.
"""

import math
import numbers

import numpy as np

from .. import _checks
from .blocks import (
    generate_loss_gr_huber,
    generate_loss_huber,
    generate_sampling,
    loss_cross_entropy,
    loss_gr_cross_entropy,
    mapXy_gr_linear,
    mapXy_gr_sigmoid,
    mapXy_linear,
    mapXy_sigmoid,
    phi_gaussian,
    regularizer_l2,
    sigmoid,
    weighted_gram,
)
from .cms import (
    NOT_FITTED_MESSAGE,
    EmpiricalRiskMinimizationDP_CMS,
    WeightedERMDP_CMS,
    _scalar,
    _vector,
    as_design_matrix,
    as_labels,
    check_binary_labels,
    check_finite_matrix,
    check_predict_columns,
    minimize_objective,
    prepare_design,
    prepare_weights,
    transpose_dot,
)

__all__ = ["LogisticRegressionDP", "svmDP"]

D_MESSAGE = "D must be specified for nonlinear kernel."
KERNEL_MESSAGE = "kernel must be one of {'linear', 'Gaussian'}."
SVM_WEIGHTS_MESSAGE = "Weighted SVM is only implemented for output perturbation."


def _linear_score(X, coeff, add_bias):
    """X coeff, with the bias coefficient first when ``add_bias``, without copying X."""
    if add_bias:
        return X @ coeff[1:] + coeff[0]
    return X @ coeff


def _logistic_terms(X, y):
    """The data part of the logistic objective, in one fused pass per evaluation.

    Returns ``terms(theta, with_gradient)`` -> (sum_i log(1 + e^z_i) - y_i z_i, the gradient
    X'(sigma(z) - y) or None), z = X theta. One exp(-|z|) serves both the loss,
    log(1 + e^z) = max(z, 0) + log1p(e^-|z|), and the sigmoid, 1/(1 + e^-|z|) for z >= 0 and
    e^-|z|/(1 + e^-|z|) for z < 0 (no overflow, no cancellation); three length-n buffers are
    reused across evaluations.
    """
    n = X.shape[0]
    z, e, r = np.empty(n), np.empty(n), np.empty(n)
    negative = np.empty(n, dtype=bool)

    def terms(theta, with_gradient):
        np.dot(X, theta, out=z)
        np.abs(z, out=e)
        np.negative(e, out=e)
        np.exp(e, out=e)
        value = float(np.sum(np.log1p(e, out=r)))
        value += float(np.sum(np.maximum(z, 0.0, out=r))) - float(y @ z)
        if not with_gradient:
            return value, None
        np.add(e, 1.0, out=r)
        np.reciprocal(r, out=r)
        np.less(z, 0.0, out=negative)
        np.multiply(e, r, out=r, where=negative)
        np.subtract(r, y, out=r)
        return value, transpose_dot(X, r)

    return terms


def _huber_terms(X, y, h, weights):
    """The data part of the Huber SVM objective (labels -1/+1), fused over whole arrays.

    Returns ``terms(theta, with_gradient)`` -> (sum_i w_i loss_h(z_i), X'(w * loss_h'(z) * y)
    or None), z = y * (X theta). With t = 1 + h - z and q = min(max(t/(2h), 0), 1) the loss is
    q (t - h q): 0 for z > 1 + h, (1 + h - z)^2/(4h) for |1 - z| <= h, 1 - z for z < 1 - h
    (blocks.generate_loss_huber, to rounding), and its derivative in z is -q.
    """
    n = X.shape[0]
    z, t, q = np.empty(n), np.empty(n), np.empty(n)

    def terms(theta, with_gradient):
        np.dot(X, theta, out=z)
        np.multiply(z, y, out=z)
        np.subtract(1.0 + h, z, out=t)
        np.multiply(t, 0.5 / h, out=q)
        np.clip(q, 0.0, 1.0, out=q)
        np.multiply(q, -h, out=z)  # the margins are no longer needed: z holds the losses
        np.add(z, t, out=z)
        np.multiply(z, q, out=z)
        value = float(z.sum() if weights is None else weights @ z)
        if not with_gradient:
            return value, None
        np.multiply(q, y, out=q)
        if weights is not None:
            np.multiply(q, weights, out=q)
        np.negative(q, out=q)
        return value, transpose_dot(X, q)

    return terms


def _huber_hessian(X, y, h, weights):
    """``hessian(theta)``: sum over the rows with |1 - z_i| <= h of w_i x_i x_i' / (2h), the
    generalised Hessian of :func:`_huber_terms`'s sum (y_i^2 = 1; the inner value at the
    kinks). Between Newton steps few rows enter or leave the quadratic piece, so the previous
    sum is updated with those rows only (a full sum again when more than a quarter change)."""
    last = {"inside": None, "G": None}

    def hessian(theta):
        margin = X @ theta
        np.multiply(margin, y, out=margin)
        inside = np.abs(1.0 - margin) <= h
        previous = last["inside"]
        changed = None if previous is None else np.flatnonzero(inside != previous)
        if changed is None or 4 * changed.size > np.count_nonzero(inside):
            G = weighted_gram(X, weights, np.flatnonzero(inside))
        else:
            entering = changed[inside[changed]]
            leaving = changed[~inside[changed]]
            G = (last["G"] + weighted_gram(X, weights, entering)
                 - weighted_gram(X, weights, leaving))
        last["inside"], last["G"] = inside, G
        return G / (2.0 * h)

    return hessian


def _penalised(terms, n, d, gamma, regularizer, regularizer_gr, b, Delta, with_gradient):
    """J(theta) = terms/n + (gamma/n) R(theta) + (1/n) b'theta + (Delta/2)||theta||^2 (spec
    §6.1 step 4), with its gradient when ``with_gradient``, for :func:`minimize_objective`."""

    def objective(theta):
        data_value, data_grad = terms(theta, with_gradient)
        value = (data_value / n + gamma / n * _scalar(regularizer(theta))
                 + (b @ theta) / n + Delta / 2.0 * (theta @ theta))
        if not with_gradient:
            return value
        grad = (data_grad / n + gamma / n * _vector(regularizer_gr(theta), d)
                + b / n + Delta * theta)
        return value, grad

    return objective


def _check_D(D):
    if isinstance(D, (bool, np.bool_)) or not isinstance(D, (numbers.Real, np.ndarray)):
        raise ValueError("D must be a positive integer.")
    array = np.asarray(D)
    if array.size != 1 or array.dtype.kind not in "iuf":
        raise ValueError("D must be a positive integer.")
    value = float(array.reshape(()))
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise ValueError("D must be a positive integer.")
    return int(value)


class LogisticRegressionDP(EmpiricalRiskMinimizationDP_CMS):
    """Private logistic regression (DPpack's ``LogisticRegressionDP``, spec §6.3).

    A CMS model with the sigmoid map, the cross-entropy loss and c = 1/4.

    Parameters
    ----------
    regularizer : 'l2' or callable
    eps : float
        > 0; ``Inf`` fits without noise.
    gamma : float
        > 0, finite; the penalty is (gamma/n) R(coeff) (DPpack's convention).
    perturbation_method : {'objective', 'output'}
    regularizer_gr : callable, optional
        Gradient of a callable ``regularizer``; without it the optimiser approximates the
        gradient by finite differences.

    ``fit(X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
    accountant=None)`` needs 0/1 labels; ``coeff`` is on the scale of the raw X (bias first
    with ``add_bias``); ``privacy_`` is ``PrivacyLoss.pure(eps)``, charged to the accountant
    as ``"LogisticRegressionDP.fit"``.
    """

    def __init__(self, regularizer, eps, gamma, perturbation_method="objective",
                 regularizer_gr=None):
        super().__init__(mapXy_sigmoid, loss_cross_entropy, regularizer, eps, gamma,
                         perturbation_method, 0.25, mapXy_gr_sigmoid, loss_gr_cross_entropy,
                         regularizer_gr)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        return prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale=True,
                              binary_labels=True)

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """(1/n) sum(log(1 + e^z) - y z) + (gamma/n) R + (1/n) b'theta + (Delta/2)||theta||^2,
        z = X theta, with gradient X'(sigma(z) - y)/n + (gamma/n) grad R + b/n + Delta theta;
        with the 'l2' regularizer :func:`minimize_objective` finishes with Newton steps on the
        Hessian X' diag(sigma(z)(1 - sigma(z))) X / n + (gamma/n + Delta) I."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        n, d = X.shape
        with_gradient = self._use_gradient()
        objective = _penalised(_logistic_terms(X, y), n, d, self.gamma, self.regularizer,
                               self.regularizer_gr, b, Delta, with_gradient)
        hessian = None
        if with_gradient and self.regularizer is regularizer_l2:
            ridge = self.gamma / n + Delta

            def hessian(theta):
                # X' diag(sigma(z)(1 - sigma(z))) X / n + (gamma/n + Delta) I, z = X theta
                s = sigmoid(X @ theta)
                H = weighted_gram(X, s * (1.0 - s)) / n
                H[np.diag_indices(d)] += ridge
                return H

        # L-BFGS-B is fast on this smooth objective; the Hessian serves the final Newton steps
        return minimize_objective(objective, d, True if with_gradient else None, hessian,
                                  gtol=self.optimality_tolerance_, newton=False)

    def _postprocess_coeff(self, coeff, preprocess):
        return coeff / preprocess["scale"]

    def predict(self, X, add_bias=False, raw_value=False):
        """Probabilities sigma(X coeff) if ``raw_value``, else labels 0/1 (round half to even,
        so exactly 0.5 gives 0, as R's ``round``). 1-d array of n values; X is not clipped."""
        if self.coeff is None:
            raise ValueError(NOT_FITTED_MESSAGE)
        add_bias = _checks.check_flag(add_bias, "add.bias")
        raw_value = _checks.check_flag(raw_value, "raw.value")
        X = as_design_matrix(X)
        check_predict_columns(X.shape[1] + add_bias, self.coeff.size, add_bias)
        probabilities = sigmoid(_linear_score(X, self.coeff, add_bias))
        return probabilities if raw_value else np.round(probabilities)


class svmDP(WeightedERMDP_CMS):
    """Private support vector machine with a Huber-smoothed hinge loss (DPpack's ``svmDP``,
    spec §6.4), linear or Gaussian kernel (random Fourier features).

    Parameters
    ----------
    regularizer, eps, gamma, perturbation_method, regularizer_gr :
        As :class:`LogisticRegressionDP`.
    kernel : {'linear', 'Gaussian'}
    D : int
        Number of random features; required for the Gaussian kernel.
    kernel_param : float, optional
        The Gaussian kernel is exp(-kernel_param ||x - x'||^2). Default: 1 / ncol(X) at the
        first fit, then kept in the object for later fits.
    huber_h : float
        Huber smoothing h > 0; c = 1/(2h).

    Attributes (besides the CMS ones)
    ---------------------------------
    kernel, D, kernel_param, huber_h; ``phi`` (``phi_gaussian`` for the Gaussian kernel),
    ``sampling`` (the sampler of the current kernel_param) and ``prefilter`` (the D x (d + 1)
    matrix of frequencies omega and phases phi, drawn anew at every fit), else None.

    ``fit(X, y, upper_bounds=None, lower_bounds=None, add_bias=False, weights=None,
    weights_upper_bound=None, random_state=None, accountant=None)``: labels 0/1 (mapped to
    -1/+1 internally); eps-DP, charged and reported in ``privacy_`` as the CMS models are.
    The Gaussian kernel uses no bounds (X is not clipped, as in DPpack). Randomness of a
    Gaussian fit: the prefilter first (D x d normals, row by row, then D uniforms), then the
    perturbation noise.
    """

    def __init__(self, regularizer, eps, gamma, perturbation_method="objective",
                 kernel="linear", D=None, kernel_param=None, regularizer_gr=None,
                 huber_h=0.5):
        h = _checks.check_finite_positive_scalar(huber_h, "huber.h")
        super().__init__(mapXy_linear, generate_loss_huber(h), regularizer, eps, gamma,
                         perturbation_method, 1.0 / (2.0 * h), mapXy_gr_linear,
                         generate_loss_gr_huber(h), regularizer_gr)
        # the fused objective stands in for these two functions only while they are in place
        self._builtin_huber = (self.loss, self.loss_gr, h)
        self.huber_h = h
        self.kernel = kernel
        self.D = None
        self.kernel_param = None
        self.sampling = None
        self.phi = None
        self.prefilter = None
        if not isinstance(kernel, str) or kernel not in ("linear", "Gaussian"):
            raise ValueError(KERNEL_MESSAGE)
        if kernel == "Gaussian":
            self.phi = phi_gaussian
            if kernel_param is not None:
                self.kernel_param = _checks.check_finite_positive_scalar(kernel_param,
                                                                         "kernel.param")
            if D is None:
                raise ValueError(D_MESSAGE)
            self.D = _check_D(D)

    # ---- public API -------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False, weights=None,
            weights_upper_bound=None, random_state=None, accountant=None):
        """See the class docstring and :meth:`WeightedERMDP_CMS.fit` (``accountant``: eps is
        charged as ``"svmDP.fit"``; ``privacy_`` holds the loss); returns ``self``."""
        if weights is not None and self.perturbation_method != "output":
            raise ValueError(SVM_WEIGHTS_MESSAGE)
        return super().fit(X, y, upper_bounds, lower_bounds, add_bias, weights,
                           weights_upper_bound, random_state, accountant)

    def XtoV(self, X):
        """The random features of X (n x d, bias column included if the fit added one):
        V_ij = sqrt(2/D) cos(omega_j' x_i + phi_j), an n x D array."""
        if self.prefilter is None:
            raise ValueError("The model must be fitted before XtoV: call fit() first.")
        X = as_design_matrix(X)
        d = self.prefilter.shape[1] - 1
        check_predict_columns(X.shape[1], d, False)
        V = self._cosines(X, False)
        V *= math.sqrt(2.0 / self.D)
        return V

    def predict(self, X, add_bias=False, raw_value=False):
        """Scores (X coeff, or XtoV(X) coeff for the Gaussian kernel) if ``raw_value``, else
        labels: 1 where the score is > 0, 0 otherwise. 1-d array of n values."""
        if self.coeff is None:
            raise ValueError(NOT_FITTED_MESSAGE)
        add_bias = _checks.check_flag(add_bias, "add.bias")
        raw_value = _checks.check_flag(raw_value, "raw.value")
        X = as_design_matrix(X)
        if self.kernel == "Gaussian":
            check_predict_columns(X.shape[1] + add_bias, self.prefilter.shape[1] - 1, add_bias)
            V = self._cosines(X, add_bias)
            score = math.sqrt(2.0 / self.D) * (V @ self.coeff)
        else:
            check_predict_columns(X.shape[1] + add_bias, self.coeff.size, add_bias)
            score = _linear_score(X, self.coeff, add_bias)
        return score if raw_value else (score > 0).astype(np.float64)

    # ---- the steps ----------------------------------------------------------------------------

    def _check_parameters(self):
        super()._check_parameters()
        if self.kernel == "Gaussian":
            if self.D is None:
                raise ValueError(D_MESSAGE)
            self.D = _check_D(self.D)
            if self.kernel_param is not None:
                self.kernel_param = _checks.check_finite_positive_scalar(self.kernel_param,
                                                                         "kernel.param")

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """J(theta) of spec §6.1 with the Huber loss as one fused closed form; with the 'l2'
        regularizer :func:`minimize_objective` finishes with Newton steps on the generalised
        Hessian (sum of w_i x_i x_i'/(2h) over the rows on the quadratic piece)/n
        + (gamma/n + Delta) I. User-replaced loss or map functions take the generic path."""
        loss, loss_gr, h = getattr(self, "_builtin_huber", (None, None, None))
        if not (loss is not None and self.loss is loss and self.loss_gr is loss_gr
                and self.mapXy is mapXy_linear and self.mapXy_gr is mapXy_gr_linear):
            return super()._optimize_coeff(X, y, Delta, b, weights)
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        n, d = X.shape
        with_gradient = self._use_gradient()
        objective = _penalised(_huber_terms(X, y, h, weights), n, d, self.gamma,
                               self.regularizer, self.regularizer_gr, b, Delta, with_gradient)
        hessian = None
        if with_gradient and self.regularizer is regularizer_l2:
            data_hessian = _huber_hessian(X, y, h, weights)
            ridge = self.gamma / n + Delta

            def hessian(theta):
                H = data_hessian(theta) / n
                H[np.diag_indices(d)] += ridge
                return H

        return minimize_objective(objective, d, True if with_gradient else None, hessian,
                                  gtol=self.optimality_tolerance_)

    def _cosines(self, X, add_bias):
        """cos(omega_j' x_i + phi_j) for the rows of X (bias column implicit when
        ``add_bias``): one new n x D array, X not copied."""
        W = self.prefilter
        d = W.shape[1] - 1
        bias = int(bool(add_bias))
        out = X @ W[:, bias:d].T
        out += W[:, d] + (W[:, 0] if bias else 0.0)
        np.cos(out, out=out)
        return out

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        if self.kernel != "Gaussian":
            preprocess = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale=True,
                                        binary_labels=True)
            preprocess.update(prepare_weights(weights, weights_upper_bound,
                                              preprocess["X"].shape[0]))
            preprocess["y"] = 2.0 * preprocess["y"] - 1.0
            return preprocess
        # Gaussian kernel: no bounds, no clipping (DPpack); validate everything, then draw.
        X = as_design_matrix(X)
        check_finite_matrix(X)
        n, p = X.shape
        y = check_binary_labels(as_labels(y, n))
        preprocess = prepare_weights(weights, weights_upper_bound, n)
        if self.kernel_param is None:
            self.kernel_param = 1.0 / p
        self.sampling = generate_sampling(self.kernel_param)
        d = p + int(bool(add_bias))
        self.prefilter = np.asarray(self.sampling(d, rng, self.D),
                                    dtype=np.float64).reshape(self.D, d + 1)
        # V / (sqrt(2/D) sqrt(D)) = cos(.) / sqrt(D): every row has norm <= 1
        V = self._cosines(X, add_bias)
        V /= math.sqrt(self.D)
        preprocess.update({"X": V, "y": 2.0 * y - 1.0,
                           "scale": np.full(self.D, math.sqrt(2.0))})
        return preprocess

    def _postprocess_coeff(self, coeff, preprocess):
        return coeff / preprocess["scale"]
