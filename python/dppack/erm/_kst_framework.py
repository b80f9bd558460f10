"""The KST framework (:mod:`dppack.erm.kst`): its checks, the noise's calibration and
:class:`EmpiricalRiskMinimizationDP_KST` (the derivations: the guide,
:ref:`guide-erm-kst`)."""

import functools
import math
from collections.abc import Mapping

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random
from .._repr import model_repr
from ._fit_plan import FitPlan
from .cms import map_jacobian, output_message
from ._regularizers import resolve_regularizer
from ._design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
    prepare_design,
    prepare_weights,
)
from ._approximate import (ball_radius, constrained_radius, release, release_grid,
                          split_budget)
from .blocks import regularizer_l2
from ._solvers import SLACKNESS_FACTOR, minimize_constrained

# The KKT residual a released KST minimiser must reach, relative to zeta (absolute and
# data-independent: it sets the release's sensitivity): 1e-8 with the analytic gradient
# (SLSQP with ftol 1e-16 reaches about 1e-8 of the gradient's scale), 1e-6 with central
# differences (accurate to about 1e-10 of the objective's scale).
# For small n the tolerance is raised to 1e-6 zeta / n (KST_RESIDUAL_SMALL_N): the release's
# sensitivity, proportional to K n, stays as small against the objective's noise as at
# n = 100, while boundary minimisers with large multipliers (the noise b / n dominates the
# gradient when n is small) meet the complementary-slackness part of the certificate.
KST_RESIDUAL = 1e-8
KST_RESIDUAL_DIFFERENCES = 1e-6
KST_RESIDUAL_SMALL_N = 1e-6
# LinearRegressionDP's exact solve (squared loss, 'l2', the ball; solvers.quadratic_ball_minimize):
# the KKT residual certified in rational arithmetic on the exact X'X, X'y of the grid records,
# relative to the scale zeta + sqrt(p) (lambda + m) of the gradient's terms (the loss's,
# ||X'X / n|| <= lambda and m = (Delta + gamma) / n times ||theta|| <= sqrt(p)); the refined
# solve reaches about 2^-52 of that scale, 2^6 below (no failure on random problems with n
# from 10 to 10^5, ill-conditioned X'X included, tests/python/erm/test_kst_exact_solve.py). The
# slack of a minimiser on the sphere: p - ||theta||^2 in [0, p 2^-50] (the projection onto
# the sphere steps ||theta||^2 by about p 2^-52). Both set the radius that the release noise
# covers: at n = 10^5 (eps = 1, p = 4) 2^-40 and 2^-46 cost 8% of accuracy, these 2%
# (benchmarks/erm_exact_accuracy.py).
QUADRATIC_RESIDUAL = 2.0 ** -46
QUADRATIC_GAP = 2.0 ** -50
UNIT_ROUNDOFF = 2.0 ** -53


def statistics_rounding(n):
    """gamma_(n+8) = k u / (1 - k u), k = n + 8, u = 2^-53: the relative error bound of the float
    sums X'WX and X'Wy, which moves LinearRegressionDP's gradient by at most gamma_k zeta on the
    ball (Higham 2002, Lemma 3.1; :ref:`guide-erm-kst`).
    """
    k = n + 8
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)

NOT_STRONGLY_CONVEX_MESSAGE = (
    "A private KST fit needs lambda > 0 or the 'l2' regularizer with gamma > 0: the "
    "perturbed objective must be strongly convex for its approximate minimiser to be "
    "released privately.")




# --------------------------------------------------------------------------------------------
# The framework's own checks (the parts through the vocabulary of ``_checks``)
# --------------------------------------------------------------------------------------------


def _check_gamma(gamma, strict):
    """gamma > 0 (``strict``: LinearRegressionDP) or >= 0 (the framework), and finite."""
    return _checks.check_number(gamma, "gamma", low=0, closed="neither" if strict else "both",
                                finite="gamma must be finite.",
                                message=f"gamma must be a scalar {'>' if strict else '>='} 0")


def _check_zeta_lambda(zeta, lambda_):
    """zeta > 0 and lambda >= 0 (DPpack's texts), then both finite (one text for the pair)."""
    zeta = _checks.check_positive_scalar(zeta, "zeta")
    lambda_ = _checks.check_number(lambda_, "lambda", low=0,
                                   message="lambda must be a scalar >= 0")
    if not (np.isfinite(zeta) and np.isfinite(lambda_)):
        raise _messages.value_error("zeta and lambda must be finite.")
    return zeta, lambda_


def domain_part(domain, name):
    """``domain[name]`` for a mapping (an R list arrives as a dict), else ``domain.name``."""
    if isinstance(domain, Mapping):
        return domain.get(name)
    return getattr(domain, name, None)


def _check_domain(domain):
    constraints = domain_part(domain, "constraints")
    jacobian = domain_part(domain, "jacobian")
    _checks.check_callable(
        constraints, "constraints",
        message="domain must have a function 'constraints' (<= 0 on the domain).")
    _checks.check_callable(jacobian, "domain$jacobian", optional=True,
                           message="domain$jacobian, if given, must be a function.")
    return constraints, jacobian


def _values(out):
    """A user function's result as a flat float array (R functions return n x 1 matrices)."""
    return np.asarray(out, dtype=np.float64).reshape(-1)


# --------------------------------------------------------------------------------------------
# The noise's calibration
# --------------------------------------------------------------------------------------------


def _calibration(eps, delta, zeta, lambda_):
    """(Delta, scale) of a private KST fit: Delta = 2 lambda / eps, and the rate eps_b/(2 zeta) of
    b's Gamma(p) norm (delta = 0) or the standard deviation 2 zeta sqrt(2 (ln(2/delta) + eps_b)) /
    eps_b of its coordinates, eps_b = eps - log(1 + lambda/Delta) (:ref:`guide-erm-kst`).
    """
    Delta = 2 * lambda_ / eps
    eps_b = eps - np.log1p(eps / 2) if lambda_ > 0 else eps  # lambda = 0: equal Hessians
    if delta == 0:
        return Delta, eps_b / (2 * zeta)
    return Delta, 2 * zeta * np.sqrt(2 * (np.log(2 / delta) + eps_b)) / eps_b


# --------------------------------------------------------------------------------------------
# The framework
# --------------------------------------------------------------------------------------------


class EmpiricalRiskMinimizationDP_KST:
    """Privacy-preserving ERM by objective perturbation (Kifer, Smith and Thakurta 2012).

    The noise is calibrated for replace-one neighbours (a deviation from DPpack, whose scale is
    private only for added or removed records). The user's loss must be convex with gradient
    norm <= ``zeta`` and a rank-one Hessian of eigenvalue <= ``lambda_``, the regularizer convex
    and the domain closed and convex: the user's responsibility. Privacy assumptions, the
    calibration and the solver's certificate: :ref:`guide-erm-kst`.

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``, n predictions.
    loss : callable
        ``loss(y_hat, y)``, n losses.
    regularizer : 'l2' or callable
        ``'l2'`` is theta'theta/2 (a given ``regularizer_gr`` is ignored); a callable must be
        convex.
    eps : float
        > 0; ``inf`` fits without noise (not private).
    delta : float
        0 for pure eps-DP (Gamma-norm noise), in (0, 1) for (eps, delta)-DP (Gaussian noise).
    domain : mapping or object
        ``constraints(coeff)`` (<= 0 exactly on the convex domain) and optionally
        ``jacobian(coeff)`` (p values or m x p); an R list arrives as a dict.
    zeta : float
        Bound on the L2 norm of the loss's gradient in coeff, > 0.
    lambda_ : float
        Bound on the eigenvalue of the loss's rank-one Hessian, >= 0 (DPpack's ``lambda``).
    gamma : float
        >= 0; the penalty is (gamma/n) R(coeff).
    mapXy_gr, loss_gr, regularizer_gr : callable, optional
        Gradients (p x n, n values, p values); finite differences without all three.

    Attributes
    ----------
    mapXy, mapXy_gr, loss, loss_gr, regularizer, regularizer_gr, gamma, eps, delta, domain,
    zeta, lambda_ : as given (DPpack's fields).
    coeff : ndarray or None
        The fitted coefficients (bias first with ``add_bias``).
    Delta_ : float or None
        The regularisation Delta of the last fit's objective (0 for eps = Inf).
    optimality_tolerance_ : float or None
        The KKT residual the released minimiser is certified to.
    release_sensitivity_, release_grid_, release_eps_ : float, int, float or None
        The L2 sensitivity, grid exponent and eps of the release noise (None with eps = Inf).
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)`` after a private fit.

    Raises
    ------
    ValueError
        For invalid hyper-parameters or domain (here and in ``fit``); ``fit`` also for bad data
        or bounds, before any noise is drawn, and on an overspend.
    ConvergenceError
        From ``fit``, when the constrained minimiser is not certified.

    References
    ----------
    Kifer, Smith and Thakurta (2012), COLT, Theorem 2 and Algorithm 1; Giddens and Liu (2023),
    DPpack reference manual, ``EmpiricalRiskMinimizationDP.KST``.

    Examples
    --------
    Least squares over the unit ball. With rows in [-0.5, 0.5]^2 (norm <= 0.71), labels in
    [-1, 1] and ||coeff|| <= 1, the gradient (x'coeff - y) x has norm <= 1.71 * 0.71 < 1.25
    and the Hessian x x' has eigenvalue <= 0.5:

    >>> from dppack import EmpiricalRiskMinimizationDP_KST
    >>> import numpy as np, dppack
    >>> t = np.arange(200)  # fixed example data
    >>> X = 0.5 * np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = np.clip(X @ [1.0, -0.5] + 0.1 * np.sin(3.1 * t), -1, 1)
    >>> ball = {"constraints": lambda c: np.dot(c, c) - 1.0,
    ...         "jacobian": lambda c: 2.0 * np.asarray(c)}
    >>> model = EmpiricalRiskMinimizationDP_KST(
    ...     dppack.mapXy_linear, dppack.loss_squared_error, "l2", eps=1.0, delta=0.0,
    ...     domain=ball, zeta=1.25, lambda_=0.5, gamma=1.0, mapXy_gr=dppack.mapXy_gr_linear,
    ...     loss_gr=dppack.loss_gr_squared_error)
    >>> model = model.fit(X, y, [0.5, 0.5, 1.0], [-0.5, -0.5, -1.0], random_state=1)
    >>> bool(model.coeff @ model.coeff <= 1.0 + 1e-8), model.privacy_  # in the domain
    (True, PrivacyLoss.pure(eps=1.0))
    """

    _strict_gamma = False  # LinearRegressionDP requires gamma > 0

    def __init__(self, mapXy, loss, regularizer, eps, delta, domain, zeta, lambda_, gamma,
                 mapXy_gr=None, loss_gr=None, regularizer_gr=None):
        self.mapXy = mapXy
        self.mapXy_gr = mapXy_gr
        self.loss = loss
        self.loss_gr = loss_gr
        self.regularizer, self.regularizer_gr = resolve_regularizer(regularizer,
                                                                    regularizer_gr)
        self.eps = _checks.check_positive_scalar(eps, "eps")
        self.delta = _checks.check_probability(delta, "delta", zero=True)
        _check_domain(domain)
        self.domain = domain
        if zeta is not None or lambda_ is not None:
            _check_zeta_lambda(zeta, lambda_)
        self.zeta = zeta
        self.lambda_ = lambda_
        self.gamma = _check_gamma(gamma, self._strict_gamma)
        self.coeff = None
        self._noise = None  # b stays secret (Kifer, Smith and Thakurta 2012)
        self.Delta_ = None
        self.optimality_tolerance_ = None
        self.release_sensitivity_ = None
        self.release_grid_ = None
        self.release_eps_ = None
        self.privacy_ = None
        self._n_passes = None  # a diagnostic that depends on the data

    # ---------------------------------------------------------------------------------------
    # fit / predict
    # ---------------------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit the model privately; returns ``self``.

        Parameters
        ----------
        X : array_like, n x k finite features
        y : array_like, n finite labels
        upper_bounds, lower_bounds : array_like
            k + 1 bounds: X's columns, then y (both clipped to them).
        add_bias : bool, default False
            Prepend a column of ones; its coefficient comes first.
        random_state : None, int or NumPy Generator, optional
        accountant : dppack.BudgetAccountant, optional
            Charged (eps, delta) (None: the session's) before the data are read; a fit with
            eps = Inf cannot be charged.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Invalid parameters, data or bounds (before any noise is drawn).
        RuntimeError
            If the solver does not certify a feasible optimum (``ConvergenceError``).
        """
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant)

    def _fit(self, X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
             weights=None, weights_upper_bound=None):
        # weights: only through dppack.erm.weighting.fit_weighted (DPpack's fit has none);
        # the loss of row i is then w_i loss_i with w_i in [0, W], and zeta and lambda are
        # scaled by W (derivation in dppack.erm.weighting)
        arguments = {"model": self, "upper_bounds": upper_bounds, "lower_bounds": lower_bounds,
                     "add_bias": add_bias, "weights": weights,
                     "weights_upper_bound": weights_upper_bound}
        return _plans.run(KST_FIT, (X, y), arguments, random_state, accountant)

    def _prepare_fit(self, X, y, arguments):
        """The checks and reads of :meth:`_fit` after the eps = Inf refusal; returns the draw."""
        a = arguments
        eps, delta, add_bias, weights = a["eps"], a["delta"], a["add_bias"], a["weights"]
        if weights is not None:
            _backends.refuse_dask(f"{type(self).__name__}.fit with weights", X, y, weights)
        X, y = self._preprocess_data(X, y, a["upper_bounds"], a["lower_bounds"], add_bias)
        zeta, lambda_ = _check_zeta_lambda(self.zeta, self.lambda_)
        n, p = X.shape
        weighting = prepare_weights(weights, a["weights_upper_bound"], n)
        weights, w_bar = weighting["weights"], weighting["weights_upper_bound"]
        # public (the call's form): weighted sums carry rounding (:meth:`_certificate`)
        self._weighted_fit = weights is not None
        zeta, lambda_ = w_bar * zeta, w_bar * lambda_
        modulus = certificate = None
        if np.isfinite(eps):
            # the perturbed objective J is modulus-strongly convex (Delta/n from the added
            # quadratic, gamma/n from 'l2'; the loss is only convex)
            l2 = self.regularizer is regularizer_l2
            eps_1 = split_budget(eps, self._noise_ratio(n, p, eps, lambda_, zeta))[0]
            modulus = (_calibration(eps_1, delta, zeta, lambda_)[0]
                       + (float(self.gamma) if l2 else 0.0)) / n
            if not modulus > 0:
                raise _messages.value_error(NOT_STRONGLY_CONVEX_MESSAGE)
            # fixed before the data are read: n, p, zeta, lambda, eps and the model's functions
            certificate = self._certificate(n, p, zeta, lambda_, modulus)
        return functools.partial(self._draw_fit, X, y, weights, zeta, lambda_, modulus,
                                 certificate, a)

    def _draw_fit(self, X, y, weights, zeta, lambda_, modulus, certificate, arguments, rng,
                  privacy):
        """The fit's draws from ``rng`` once its loss is spent; returns ``self``."""
        eps, delta, add_bias = arguments["eps"], arguments["delta"], arguments["add_bias"]
        n, p = X.shape
        if certificate is not None:
            certified_residual, residual, radius = certificate
        # the user's functions read the private data: after the charge (a refusal that
        # depends on the data is paid for), before the first draw
        self._check_outputs(X, y, weights)

        # Kifer et al.'s Algorithm 1 at eps_1, calibrated for replace-one neighbours (module
        # docstring), then the exact release at eps_2 (approximate minima perturbation)
        eps_1, eps_2 = split_budget(eps, self._noise_ratio(n, p, eps, lambda_, zeta))
        if np.isinf(eps):
            Delta = 0.0
            noise = np.zeros(p)
        else:
            Delta, scale = _calibration(eps_1, delta, zeta, lambda_)
            if delta == 0:
                noise = _random.l2_laplace(p, scale, rng)  # scale: the rate of the norm
            else:
                noise = _random.normal(scale, p, rng)
        self._noise = noise
        self.Delta_ = float(Delta)
        if np.isfinite(eps):
            self.optimality_tolerance_ = residual
            self._certified_residual = certified_residual
            self._modulus = modulus
        else:
            self.optimality_tolerance_ = self._residual_factor(n) * zeta
            self._certified_residual = None
            self._modulus = None
        # without weights, DPpack's four arguments (a subclass may override the step)
        theta = (self._optimize_coeff(X, y, noise, Delta) if weights is None
                 else self._optimize_coeff(X, y, noise, Delta, weights))
        if np.isfinite(eps):
            # certified ||theta - theta*|| <= r (:meth:`_certificate`); neighbours' within 2r
            sensitivity = 2.0 * radius
            theta = release(theta, sensitivity, eps_2, rng)
            self.release_sensitivity_, self.release_eps_ = sensitivity, eps_2
            self.release_grid_ = release_grid(sensitivity, eps_2, p)[0]
        else:
            self.release_sensitivity_, self.release_grid_, self.release_eps_ = None, None, None
        self.coeff = self._postprocess_coeff(theta)
        self.privacy_ = privacy
        self._n_passes = getattr(X, "passes", None)
        self.add_bias_ = add_bias  # predict's default (None: as fitted)
        return self

    def predict(self, X, add_bias=None):
        """``mapXy(X, coeff)``, n values (X not clipped or scaled; lazy for Dask X)."""
        add_bias = fitted_add_bias(self, add_bias, X)
        return _backends.backend_for(X).predict(self, X, self._predict_rows, add_bias=add_bias)

    def _predict_rows(self, X, add_bias):
        """:meth:`predict` on rows in memory (``add_bias`` resolved)."""
        check_fitted(self.coeff)
        X = predict_matrix(X, self.coeff.size, add_bias)
        if add_bias:
            X = add_bias_column(X)
        return _values(self.mapXy(X, self.coeff))

    # shown by repr (LinearRegressionDP's functions are fixed: fewer)
    _REPR_PARAMS = ("mapXy", "loss", "regularizer", "eps", "delta", "gamma")

    def __repr__(self):
        """Class, key parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---------------------------------------------------------------------------------------
    # Overridable steps
    # ---------------------------------------------------------------------------------------

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias):
        """Check data and bounds, add the bias column, clip X and y into new arrays; keeps
        ``_bounds`` and ``_target_bounds`` for the subclasses' scaling.
        """
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y)  # user functions: rows needed
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, target=True)
        self._bounds, self._target_bounds = design["bounds"], design["target_bounds"]
        return design["X"], design["y"]

    def _data_loss(self, X, y, weights=None):
        """The mean loss (1/n) sum w_i loss_i (never over sum(w)) and its gradient, as functions
        of theta; with weights the loss must return one value per row.
        """
        n = y.size
        mapXy, loss = self.mapXy, self.loss
        if weights is None:
            def per_row(values):
                return _values(values)
        else:
            def per_row(values):
                return weights * _checks.as_vector(
                    values, n, output_message("loss", "one per row, each multiplied by its "
                                                      "weight"))

        def value(theta):
            y_hat = np.asarray(mapXy(X, theta), dtype=np.float64)
            target = y.reshape(y_hat.shape) if y_hat.size == n else y
            return float(np.sum(per_row(loss(y_hat, target)))) / n

        if self.mapXy_gr is None or self.loss_gr is None:
            return value, None
        mapXy_gr, loss_gr = self.mapXy_gr, self.loss_gr

        p = X.shape[1]
        scale = 1.0 if weights is None else weights

        def gradient(theta):
            y_hat = np.asarray(mapXy(X, theta), dtype=np.float64)
            target = y.reshape(y_hat.shape) if y_hat.size == n else y
            slopes = _checks.as_vector(loss_gr(y_hat, target), n,
                                       output_message("loss.gr", "one per row"))
            return (map_jacobian(mapXy_gr(X, theta), p, n) @ (scale * slopes)) / n

        return value, gradient

    def _check_outputs(self, X, y, weights=None):
        """Evaluate objective, gradient, constraints and Jacobian once at theta = 0 so that wrong
        lengths are refused before the noise is drawn (after the charge); skipped for a subclass's
        own ``_optimize_coeff``.
        """
        if type(self)._optimize_coeff is not EmpiricalRiskMinimizationDP_KST._optimize_coeff:
            return
        p = X.shape[1]
        objective, gradient = self._objective(X, y, np.zeros(p), 0.0, weights)
        objective(np.zeros(p))
        if gradient is not None:
            gradient(np.zeros(p))
        constraints, jacobian = _check_domain(self.domain)
        m = _values(constraints(np.zeros(p))).size
        if jacobian is not None:
            _checks.as_vector(jacobian(np.zeros(p)), m * p,
                              output_message("domain$jacobian",
                                             "the p derivatives of each constraint"))

    def _noise_ratio(self, n, p, eps, lambda_, zeta=1.0):
        """q of :func:`dppack.erm._approximate.split_budget` (data-independent)."""
        gamma = float(self.gamma) if self.regularizer is regularizer_l2 else 0.0
        Delta = 2.0 * lambda_ / eps if np.isfinite(eps) else 0.0
        if not Delta + gamma > 0:
            return 0.0
        m = (Delta + gamma) / n
        radius = self._certificate(n, p, zeta, lambda_, m)[2]
        return np.sqrt(2.0 * p / (p + 1.0)) * radius * n * (lambda_ + m) / zeta

    def _quadratic_ball(self):
        """Whether the fit solves exactly (from the model's functions, never the data)."""
        return False

    def _certificate(self, n, p, zeta, lambda_, modulus):
        """(rho_c, rho, r): the certified KKT residual, that of the exact objective and the
        certified radius, all data-independent (:ref:`guide-erm-kst`).
        """
        if self._quadratic_ball():
            certified = QUADRATIC_RESIDUAL * (zeta + math.sqrt(p) * (lambda_ + modulus))
            # exact X'X and X'y of the grid records without weights (GramStatistics.of_grid)
            rounding = statistics_rounding(n) if getattr(self, "_weighted_fit", False) else 0.0
            residual = certified + rounding * zeta
            radius = ball_radius(residual, p * QUADRATIC_GAP, modulus) * (1.0 + 2.0 ** -40)
            return certified, residual, radius
        residual = self._residual_factor(n) * zeta
        radius = constrained_radius(residual, SLACKNESS_FACTOR * residual * residual / modulus,
                                    modulus)
        return residual, residual, radius

    def _residual_factor(self, n):
        """K = max(1e-8, 1e-6 / n) with the analytic gradient, 1e-6 with central differences."""
        with_gradient = (self.mapXy_gr is not None and self.loss_gr is not None
                         and self.regularizer_gr is not None)
        if not with_gradient:
            return KST_RESIDUAL_DIFFERENCES
        return max(KST_RESIDUAL, KST_RESIDUAL_SMALL_N / n)

    def _optimize_coeff(self, X, y, noise, Delta, weights=None):
        """argmin of the perturbed objective over the domain: exact solve, else SLSQP."""
        modulus = getattr(self, "_modulus", None)
        if modulus is not None and self._quadratic_ball():
            return self._solve_quadratic(X, y, noise, Delta, weights)
        objective, gradient = self._objective(X, y, noise, Delta, weights)
        constraints, jacobian = _check_domain(self.domain)
        if modulus is None:  # eps = Inf: no release noise, the relative KKT check
            return minimize_constrained(objective, gradient, constraints, jacobian,
                                        np.zeros(X.shape[1]))
        return minimize_constrained(objective, gradient, constraints, jacobian,
                                    np.zeros(X.shape[1]), residual_tol=self.optimality_tolerance_,
                                    modulus=modulus)

    def _objective(self, X, y, noise, Delta, weights=None):
        """The perturbed objective J(theta) and its gradient (None without the gradients)."""
        n, p = X.shape
        gamma = float(self.gamma)
        data_value, data_gradient = (self._data_loss(X, y) if weights is None
                                     else self._data_loss(X, y, weights))
        regularizer, regularizer_gr = self.regularizer, self.regularizer_gr

        def objective(theta):
            return (data_value(theta) + gamma / n * float(np.sum(regularizer(theta)))
                    + Delta / (2 * n) * float(theta @ theta) + float(noise @ theta) / n)

        gradient = None
        if data_gradient is not None and regularizer_gr is not None:
            def gradient(theta):
                return (data_gradient(theta) + gamma / n * self._regularizer_gradient(theta)
                        + (Delta / n) * theta + noise / n)

        return objective, gradient

    def _regularizer_gradient(self, theta):
        """``regularizer_gr(theta)`` as p values (``ValueError`` naming it otherwise)."""
        return _checks.as_vector(self.regularizer_gr(theta), theta.size,
                                 output_message("regularizer.gr", "one per coefficient"))

    def _postprocess_coeff(self, coeff):
        """Identity in the base class."""
        return coeff


class _KSTFit(FitPlan):
    """The fit of a KST model, (eps, delta)-DP: objective perturbation at eps_1 (Kifer, Smith
    and Thakurta 2012, Theorem 2, calibrated for replace-one neighbours) and the exact release
    of the approximate minimiser at eps_2 = eps - eps_1 (Iyengar et al. 2019, Theorem 1).
    :meth:`check` runs the checks of the arguments in DPpack's order; the model's steps read the
    data and draw."""

    def check(self, arguments):
        model = arguments["model"]
        arguments["add_bias"] = _checks.check_flag(arguments["add_bias"], "add.bias")
        arguments["eps"] = _checks.check_positive_scalar(model.eps, "eps")
        arguments["delta"] = _checks.check_probability(model.delta, "delta", zero=True)
        _check_gamma(model.gamma, model._strict_gamma)
        _check_domain(model.domain)
        # the constructor's 'l2' again: the attributes are public and may be assigned in between
        model.regularizer, model.regularizer_gr = resolve_regularizer(model.regularizer,
                                                                      model.regularizer_gr)

    def prepare(self, data, arguments):
        return [(None, arguments["model"]._prepare_fit(*data, arguments))]


KST_FIT = _KSTFit()


def weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                 weights_upper_bound, random_state, accountant):
    """The weighted fit of a KST model (zeta and lambda scaled by the bound)."""
    return model._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
                      weights, weights_upper_bound)


def uses_framework_solver(model):
    """Whether ``model`` solves with the framework's own ``_optimize_coeff`` (not a subclass's)."""
    return type(model)._optimize_coeff is EmpiricalRiskMinimizationDP_KST._optimize_coeff
