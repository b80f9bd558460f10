"""DPpack 0.2.2's CMS models: ``LogisticRegressionDP`` and ``svmDP``.

Both scale the clipped design so that every row has norm <= 1 (X_ij / (s_j sqrt(p)),
s_j = max(abs(L_j), abs(U_j))), fit the scaled problem and unscale the coefficients, so
predictions on raw X equal those of the scaled problem.

Deviation from DPpack: LogisticRegressionDP regularises with its own ``gamma``;
the shipped DPpack used a stray global ``gamma = 1`` in the objective.
"""

import functools
import math

import numpy as np

from .. import _backends, _checks, _messages
from . import _losses as losses
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
)
from .cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS, penalised_objective
from ._design import (
    check_fitted,
    fitted_add_bias,
    fourier_cosines,
    linear_score,
    predict_matrix,
)
from ._solvers import minimize_smooth

__all__ = ["LogisticRegressionDP", "svmDP"]

D_MESSAGE = "D must be specified for nonlinear kernel."
KERNEL_MESSAGE = "kernel must be one of {'linear', 'Gaussian'}."
D_TYPE_MESSAGE = "D must be a positive integer."
SVM_WEIGHTS_MESSAGE = "Weighted SVM is only implemented for output perturbation."


def _minimise_risk(model, risk, Delta, b, with_gradient, newton):
    """The CMS minimiser of ``model``'s objective J with a fused margin-loss
    risk (:class:`dppack.erm._losses.EmpiricalRisk`) as its data part; with the 'l2'
    regularizer the solver's Newton steps use the Hessian risk''(theta) + (gamma/n + Delta) I.
    ``with_gradient``: the model has every gradient function; ``newton``: as
    :func:`dppack.erm._solvers.minimize_smooth`."""
    n, d = risk.shape
    objective = penalised_objective(risk, n, d, model.gamma, model.regularizer,
                                    model.regularizer_gr, b, Delta, with_gradient)
    hessian = None
    if with_gradient and model.regularizer is regularizer_l2:
        ridge = model.gamma / n + Delta

        def hessian(theta):
            H = risk.hessian(theta)
            H[np.diag_indices(d)] += ridge
            return H

    return minimize_smooth(objective, d, True if with_gradient else None, hessian,
                           gtol=model.optimality_tolerance_, newton=newton)


class LogisticRegressionDP(EmpiricalRiskMinimizationDP_CMS):
    """Private logistic regression (DPpack's ``LogisticRegressionDP``).

    A CMS model with the sigmoid map, the cross-entropy loss and c = 1/4. ``fit(X, y,
    upper_bounds, lower_bounds, add_bias=False, random_state=None, accountant=None)`` needs 0/1
    labels; ``coeff`` is on the scale of the raw X (bias first with ``add_bias``). The release is
    the minimiser on a power-of-two grid plus exact discrete Laplace noise (:ref:`guide-erm-cms`).
    Dask data are fitted from per-partition sums, one pass per solver evaluation;
    the same ``random_state`` gives the same coefficients up to the order of
    floating-point sums; ``predict`` on Dask X is lazy.

    Parameters
    ----------
    regularizer : 'l2' or callable
    eps : float
        > 0; ``Inf`` fits without noise.
    gamma : float
        > 0, finite; the penalty is (gamma/n) R(coeff).
    perturbation_method : {'objective', 'output'}
    regularizer_gr : callable, optional
        Gradient of a callable ``regularizer`` (finite differences without it).

    Attributes
    ----------
    coeff, eps_prime_, Delta_, optimality_tolerance_, release_sensitivity_, release_grid_,
    release_eps_, privacy_
        As :class:`EmpiricalRiskMinimizationDP_CMS`, and its parameters as given.

    Raises
    ------
    ValueError
        As :class:`EmpiricalRiskMinimizationDP_CMS`; ``fit`` also for labels other than 0/1.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12; Giddens and Liu (2023), DPpack reference
    manual, ``LogisticRegressionDP``.

    Examples
    --------
    Diabetes from glucose and body-mass index, with public bounds on both columns:

    >>> from dppack import LogisticRegressionDP
    >>> import numpy as np
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> model = LogisticRegressionDP("l2", eps=1.0, gamma=1.0)
    >>> model = model.fit(X, y, upper_bounds=[200, 70], lower_bounds=[50, 15], add_bias=True,
    ...                   random_state=1)
    >>> model.coeff.shape, model.privacy_  # bias, glu, bmi
    ((3,), PrivacyLoss.pure(eps=1.0))
    >>> predicted = model.predict(X, add_bias=True)  # 0/1; raw_value=True gives probabilities
    >>> round(float(np.mean(predicted == y)), 2)
    0.75
    """

    _REPR_PARAMS = ("regularizer", "eps", "gamma", "perturbation_method", "c")

    def __init__(self, regularizer, eps, gamma, perturbation_method="objective",
                 regularizer_gr=None):
        super().__init__(mapXy_sigmoid, loss_cross_entropy, regularizer, eps, gamma,
                         perturbation_method, losses.logistic().curvature, mapXy_gr_sigmoid,
                         loss_gr_cross_entropy, regularizer_gr)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        # Dask weights too (svmDP's rule): with X in memory, the Dask path's error
        return _backends.backend_for(X, y, weights).margin_design(
            X, y, upper_bounds, lower_bounds, add_bias, losses.logistic(),
            self._use_gradient(), False, "binary", weights, weights_upper_bound)

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """The logistic objective, fused over the margins, by L-BFGS-B then Newton."""
        # Dask data arrive as their risk already (dppack.dask._erm.PartitionedRisk)
        risk = X if isinstance(X, losses.EmpiricalRisk) else losses.logistic().risk(
            X, 2.0 * np.asarray(y, dtype=np.float64) - 1.0, weights)
        # L-BFGS-B is fast on this smooth objective; the Hessian serves the final Newton steps
        return _minimise_risk(self, risk, Delta, b, self._use_gradient(), newton=False)

    def _check_outputs(self, X, y, weights=None):
        """Only the regularizer's outputs are checked (the built-in loss is fused)."""
        self._check_penalty_outputs(X.shape[1])

    def _postprocess_coeff(self, coeff, preprocess):
        return coeff / preprocess["scale"]

    def predict(self, X, add_bias=None, raw_value=False):
        """Probabilities sigma(X coeff) if ``raw_value``, else 0/1 labels (0.5 rounds to 0, as R's
        ``round``); lazy for Dask X.
        """
        add_bias = fitted_add_bias(self, add_bias, X)  # None: as fitted
        return _backends.backend_for(X).predict(self, X, self._predict_rows, add_bias=add_bias,
                                                raw_value=raw_value)

    def _predict_rows(self, X, add_bias, raw_value=False):
        """:meth:`predict` on rows in memory (``add_bias`` resolved)."""
        check_fitted(self.coeff)
        raw_value = _checks.check_flag(raw_value, "raw.value")
        X = predict_matrix(X, self.coeff.size, add_bias)
        probabilities = losses.sigmoid(linear_score(X, self.coeff, add_bias))
        return probabilities if raw_value else np.round(probabilities)


class svmDP(WeightedERMDP_CMS):
    """Private support vector machine with a Huber-smoothed hinge loss (DPpack's ``svmDP``),
    linear or Gaussian kernel (random Fourier features).

    ``fit(X, y, upper_bounds=None, lower_bounds=None, add_bias=False, weights=None,
    weights_upper_bound=None, random_state=None, accountant=None)`` takes 0/1 labels (-1/+1
    internally) and is eps-DP as the CMS models are. The Gaussian kernel uses no bounds (X is
    not clipped, as in DPpack); its fit draws the prefilter first (D x d normals, then D
    uniforms), then the perturbation noise. Dask data are fitted as by
    :class:`LogisticRegressionDP` (not with user-replaced loss or map functions).

    Parameters
    ----------
    regularizer, eps, gamma, perturbation_method, regularizer_gr :
        As :class:`LogisticRegressionDP`.
    kernel : {'linear', 'Gaussian'}
    D : int
        Number of random features; required for the Gaussian kernel.
    kernel_param : float, optional
        The Gaussian kernel is exp(-kernel_param ||x - x'||^2); default 1 / ncol(X) at the first
        fit, then kept.
    huber_h : float
        Huber smoothing h > 0; c = 1/(2h).

    Attributes
    ----------
    coeff, eps_prime_, Delta_, optimality_tolerance_, privacy_
        As :class:`EmpiricalRiskMinimizationDP_CMS`.
    kernel, D, kernel_param, huber_h
        As given (``kernel_param`` set at the first Gaussian fit when not given).
    phi, sampling, prefilter
        For the Gaussian kernel: ``phi_gaussian``, the sampler, and the D x (d + 1) matrix of
        frequencies and phases (drawn anew at every fit); else None.

    Raises
    ------
    ValueError
        As :class:`LogisticRegressionDP`, and DPpack's messages for an unknown kernel, a Gaussian
        kernel without ``D``, a non-positive ``huber_h``, or weights with objective perturbation.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (the Huber loss, random features);
    Rahimi and Recht (2007); Giddens and Liu (2023), DPpack reference manual, ``svmDP``.

    Examples
    --------
    A linear SVM by output perturbation, then one with the Gaussian kernel on 20 random
    features (on columns scaled to [0, 1]; this kernel uses no bounds):

    >>> from dppack import svmDP
    >>> import numpy as np
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> model = svmDP("l2", eps=1.0, gamma=1.0, perturbation_method="output")
    >>> model = model.fit(X, y, [200, 70], [50, 15], add_bias=True, random_state=1)
    >>> model.coeff.shape
    (3,)
    >>> scaled = (X - [50, 15]) / [150, 55]
    >>> kernel = svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=20, kernel_param=0.5)
    >>> kernel = kernel.fit(scaled, y, add_bias=True, random_state=1)
    >>> kernel.prefilter.shape, kernel.coeff.shape
    ((20, 4), (20,))
    >>> set(np.unique(kernel.predict(scaled, add_bias=True)).tolist()) <= {0.0, 1.0}
    True
    """

    _REPR_PARAMS = ("regularizer", "eps", "gamma", "perturbation_method", "c", "kernel", "D",
                    "kernel_param", "huber_h")

    def __init__(self, regularizer, eps, gamma, perturbation_method="objective",
                 kernel="linear", D=None, kernel_param=None, regularizer_gr=None,
                 huber_h=0.5):
        margin = losses.huber(huber_h)  # checks huber.h
        h = margin.h
        super().__init__(mapXy_linear, generate_loss_huber(h), regularizer, eps, gamma,
                         perturbation_method, margin.curvature, mapXy_gr_linear,
                         generate_loss_gr_huber(h), regularizer_gr)
        # the fused objective stands in for these two functions only while they are in place
        self._builtin_huber = (self.loss, self.loss_gr, margin)
        self.huber_h = h
        self.kernel = kernel
        self.D = None
        self.kernel_param = None
        self.sampling = None
        self.phi = None
        self.prefilter = None
        _checks.check_choice(kernel, "kernel", ("linear", "Gaussian"), KERNEL_MESSAGE)
        if kernel == "Gaussian":
            self.phi = phi_gaussian
            if kernel_param is not None:
                self.kernel_param = _checks.check_finite_positive_scalar(kernel_param,
                                                                         "kernel.param")
            if D is None:
                raise _messages.value_error(D_MESSAGE)
            self.D = _checks.check_whole(D, "D", 1, message=D_TYPE_MESSAGE)

    # ---- public API -------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False, weights=None,
            weights_upper_bound=None, random_state=None, accountant=None):
        """As :meth:`WeightedERMDP_CMS.fit` (charged as ``"svmDP.fit"``); returns ``self``."""
        if weights is not None and self.perturbation_method != "output":
            raise _messages.value_error(SVM_WEIGHTS_MESSAGE)
        return super().fit(X, y, upper_bounds, lower_bounds, add_bias, weights,
                           weights_upper_bound, random_state, accountant)

    def XtoV(self, X):
        """The random features V_ij = sqrt(2/D) cos(omega_j' x_i + phi_j) of X, an n x D array."""
        if self.prefilter is None:
            raise _messages.value_error("The model must be fitted before XtoV: call fit() first.")
        X = predict_matrix(X, self.prefilter.shape[1] - 1, False)
        V = fourier_cosines(X, self.prefilter, False)
        V *= math.sqrt(2.0 / self.D)
        return V

    def predict(self, X, add_bias=None, raw_value=False):
        """Scores if ``raw_value``, else labels (1 where the score is > 0); lazy for Dask X."""
        # None: as fitted (X's columns are the coefficients' only for the linear kernel)
        add_bias = fitted_add_bias(self, add_bias, X if self.kernel == "linear" else None)
        return _backends.backend_for(X).predict(self, X, self._predict_rows, add_bias=add_bias,
                                                raw_value=raw_value)

    def _predict_rows(self, X, add_bias, raw_value=False):
        """:meth:`predict` on rows in memory (``add_bias`` resolved)."""
        check_fitted(self.coeff)
        raw_value = _checks.check_flag(raw_value, "raw.value")
        if self.kernel == "Gaussian":
            X = predict_matrix(X, self.prefilter.shape[1] - 1, add_bias)
            V = fourier_cosines(X, self.prefilter, add_bias)
            score = math.sqrt(2.0 / self.D) * (V @ self.coeff)
        else:
            X = predict_matrix(X, self.coeff.size, add_bias)
            score = linear_score(X, self.coeff, add_bias)
        return score if raw_value else (score > 0).astype(np.float64)

    # ---- the steps ----------------------------------------------------------------------------

    def _check_parameters(self):
        super()._check_parameters()
        _checks.check_choice(self.kernel, "kernel", ("linear", "Gaussian"), KERNEL_MESSAGE)
        if self.kernel == "Gaussian":
            if self.D is None:
                raise _messages.value_error(D_MESSAGE)
            self.D = _checks.check_whole(self.D, "D", 1, message=D_TYPE_MESSAGE)
            if self.kernel_param is not None:
                self.kernel_param = _checks.check_finite_positive_scalar(self.kernel_param,
                                                                         "kernel.param")

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """J(theta) of DPpack 0.2.2 with the Huber loss as one fused closed form; with the 'l2'
        regularizer :func:`minimize_smooth` finishes with Newton steps on the generalised
        Hessian (sum of w_i x_i x_i'/(2h) over the rows on the quadratic piece)/n
        + (gamma/n + Delta) I. User-replaced loss or map functions take the generic path."""
        margin = self._huber_in_place()
        if margin is None:
            return super()._optimize_coeff(X, y, Delta, b, weights)
        # Dask data arrive as their risk already (dppack.dask._erm.PartitionedRisk)
        risk = X if isinstance(X, losses.EmpiricalRisk) else margin.risk(X, y, weights)
        return _minimise_risk(self, risk, Delta, b, self._use_gradient(), newton=True)

    def _check_outputs(self, X, y, weights=None):
        """The user's functions while they replace the fused Huber loss, else only the
        regularizer (:meth:`EmpiricalRiskMinimizationDP_CMS._check_outputs`)."""
        if self._huber_in_place() is None:
            super()._check_outputs(X, y, weights)
        else:
            self._check_penalty_outputs(X.shape[1])

    def _huber_in_place(self):
        """The Huber MarginLoss while the built-in loss and linear map are in place (the
        fused objective stands in for them), else None."""
        loss, loss_gr, margin = getattr(self, "_builtin_huber", (None, None, None))
        if (loss is not None and self.loss is loss and self.loss_gr is loss_gr
                and self.mapXy is mapXy_linear and self.mapXy_gr is mapXy_gr_linear):
            return margin
        return None

    def _draw_prefilter(self, p, add_bias, rng):
        """The Gaussian kernel's D x (d + 1) frequencies and phases for p columns of X (the
        default kernel_param 1/p set first): drawn at each fit, after the data checks."""
        if self.kernel_param is None:
            self.kernel_param = 1.0 / p
        self.sampling = generate_sampling(self.kernel_param)
        d = p + int(bool(add_bias))
        self.prefilter = np.asarray(self.sampling(d, rng, self.D),
                                    dtype=np.float64).reshape(self.D, d + 1)
        return self.prefilter

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        backend = _backends.backend_for(X, y, weights)
        margin = self._huber_in_place()
        if margin is None:  # the user's functions need the rows
            backend.refuse("svmDP.fit with its own loss or map functions")
        if self.kernel != "Gaussian":
            return backend.margin_design(X, y, upper_bounds, lower_bounds, add_bias, margin,
                                         self._use_gradient(), True, "signed", weights,
                                         weights_upper_bound)
        # Gaussian kernel: no bounds, no clipping (DPpack); validate everything, then draw.
        return backend.kernel_design(X, y, add_bias, margin, self._use_gradient(),
                                     functools.partial(self._draw_prefilter,
                                                       add_bias=add_bias, rng=rng),
                                     weights, weights_upper_bound)

    def _postprocess_coeff(self, coeff, preprocess):
        return coeff / preprocess["scale"]
