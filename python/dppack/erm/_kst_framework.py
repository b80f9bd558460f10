"""The KST framework (:mod:`dppack.erm.kst`): its checks, the noise's calibration and
:class:`EmpiricalRiskMinimizationDP_KST` (the derivations: the guide,
:ref:`guide-erm-kst`)."""

import math
from collections.abc import Mapping

import numpy as np

from .. import _backends, _checks, _messages, _random, accounting
from .._repr import model_repr
from .cms import fit_loss, map_jacobian, output_message, refuse_infinite_eps, spend_fit
from .blocks import resolve_regularizer
from .design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
    prepare_design,
    prepare_weights,
)
from .approximate import (ball_radius, constrained_radius, release, release_grid,
                          split_budget)
from .blocks import regularizer_l2
from .solvers import SLACKNESS_FACTOR, minimize_constrained

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
    """gamma_k = k u / (1 - k u) with k = n + 8 and u = 2^-53: the relative error bound of a
    computed sum of n rounded products, each entry of X'X and X'y (in any order of summation,
    over Dask's partitions too; Higham 2002, Accuracy and Stability of Numerical Algorithms,
    2nd ed., Lemma 3.1 and eq. (3.5); 8 covers the weights' square roots and products).
    With LinearRegressionDP's scaled rows (|x_ij| <= 1, |y_i| <= p, weights <= W) the
    computed gradient (X'X theta - X'y) / n then differs from the exact one by at most
    gamma_k W (p^(3/2) + p^(3/2)) = gamma_k zeta on the ball ||theta|| <= sqrt(p)."""
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
    """Delta and the scale of the noise b of a private KST fit (finite eps > 0).

    Parameters
    ----------
    eps, delta : float
        The fit's guarantee: eps-DP (delta = 0) or (eps, delta)-DP, replace-one neighbours.
    zeta, lambda_ : float
        Bounds on the norm of the loss's gradient and on the eigenvalue of its Hessian.

    Returns
    -------
    Delta : float
        2 lambda / eps (Kifer, Smith and Thakurta 2012, Algorithm 1; DPpack).
    scale : float
        delta = 0: the rate eps_b/(2 zeta) of the Gamma(p) norm of b; delta > 0: the
        standard deviation 2 zeta sqrt(2 (ln(2/delta) + eps_b)) / eps_b of its coordinates;
        eps_b = eps - log(1 + lambda/Delta) is what the Jacobian leaves to the noise for the
        gradient shift 2 zeta of a replaced record (derivation in the guide, :ref:`guide-erm-kst`).
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

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``: the predictions (length n) for an n x p matrix X.
    loss : callable
        ``loss(y_hat, y)``: the loss of each observation (length n).
    regularizer : 'l2' or callable
        ``'l2'`` uses ``regularizer_l2`` (theta.theta/2) and its gradient (a given
        ``regularizer_gr`` is then ignored, as in DPpack); a callable ``R(coeff)`` must be
        convex.
    eps : float
        Privacy budget, > 0; ``inf`` fits without noise (non-private mode).
    delta : float
        0 for pure eps-DP (Gamma-norm noise), in (0, 1) for (eps, delta)-DP (Gaussian noise).
    domain : mapping or object
        With the function ``constraints(coeff)`` (<= 0 exactly on the convex domain; scalar or
        vector) and, optionally, ``jacobian(coeff)`` (its derivative: a length-p vector or an
        m x p matrix). An R list with these names arrives as a dict.
    zeta : float
        Bound on the l2 norm of the gradient of the loss in coeff over the domain and the
        clipped data, > 0.
    lambda_ : float
        Bound on the eigenvalues of the (rank-one) Hessian of the loss, >= 0. DPpack's
        argument is named
        ``lambda``, which Python cannot spell; the R wrapper maps ``lambda`` to it. The
        attribute is ``lambda_`` too.
    gamma : float
        Regularisation constant, >= 0 (the penalty is (gamma/n) R(coeff)).
    mapXy_gr, loss_gr, regularizer_gr : callable, optional
        Gradients: ``mapXy_gr(X, coeff)`` a p x n matrix, ``loss_gr(y_hat, y)`` length n,
        ``regularizer_gr(coeff)`` length p. The solver uses the analytic gradient when all three
        are given, finite differences otherwise.

    Attributes
    ----------
    mapXy, mapXy_gr, loss, loss_gr, regularizer, regularizer_gr, gamma, eps, delta, domain,
    zeta, lambda_ : as given (DPpack's fields).
    coeff : ndarray or None
        The fitted coefficients (bias first when fitted with ``add_bias``); None before fit.
    noise_ : ndarray or None
        The noise vector b drawn by the last fit (zeros for eps = Inf), in the coordinates of
        the optimisation (after any pre-processing).
    Delta_ : float or None
        The regularisation Delta of the last fit's objective, 2 lambda / eps_1 (2 W lambda /
        eps_1 with sample weights bounded by W, :mod:`dppack.erm.weighting`; Kifer, Smith and
        Thakurta 2012, Theorem 2; eps_1 = eps - ``release_eps_``); 0 for eps = Inf, None
        before a fit.
    optimality_tolerance_ : float or None
        After ``fit``: the KKT residual rho of the exact objective that the released minimiser
        is certified to (K zeta for the general solver; LinearRegressionDP's exact solve: the
        certified 2^-46 (zeta + sqrt(p) (lambda + m)), plus the rounding bound of X'WX and
        X'Wy with weights; guide, :ref:`guide-erm-kst`, "Approximate minimiser and exact release").
    release_sensitivity_, release_grid_, release_eps_ : float, int, float or None
        After a private ``fit``: the L2 sensitivity 2r of the released minimiser (r = 6 rho / m
        for the general solver, 2 rho / m + sqrt(p 2^-50) for LinearRegressionDP's exact
        solve), the exponent k of its grid g = 2^k and eps_2, the eps of the release noise;
        None after a fit with eps = Inf.
    privacy_ : dppack.PrivacyLoss or None
        After ``fit``: ``PrivacyLoss.approx(eps, delta)`` (pure eps when delta = 0), also
        charged to the accountant; None before a fit and after a fit with eps = Inf.
    n_passes_ : int or None
        After a fit of ``LinearRegressionDP`` on Dask data: 1, the one pass over the data
        that summed X'X, X'y and y'y (``dppack.dask.erm``); None before a fit and after
        one in memory.

    Notes
    -----
    Privacy assumptions (Kifer, Smith and Thakurta 2012, Theorem 2 and Algorithm 1). The guarantee,
    eps-DP (delta = 0) or (eps, delta)-DP for neighbours that differ in one replaced record (and so
    also for one added or removed), holds when, for every (x, y) with x and y within the bounds (the
    framework clips X and y to them) and every coeff in the domain,

    * the per-row loss loss(mapXy(x, coeff), y) is convex in coeff and twice continuously
      differentiable, with gradient norm <= ``zeta`` and a Hessian of rank at most one whose
      eigenvalue is <= ``lambda_`` (e.g. l(x'coeff, y) with a convex scalar l);
    * the regularizer is convex and differentiable;
    * the domain {coeff : constraints(coeff) <= 0} is closed and convex (and non-empty).

    The framework checks eps, delta, gamma, zeta > 0 and lambda >= 0 (both finite), the data
    and the bounds; it cannot check that ``zeta`` and ``lambda_`` really bound the user's loss,
    nor convexity: these are the user's responsibility (LinearRegressionDP sets them from
    its own scaling). The noise is calibrated for replace-one neighbours, a gradient shift of
    2 ``zeta``: larger than DPpack's, whose scale is private only when a record is added or
    removed (guide, :ref:`guide-erm-kst`, "Privacy under replace-one neighbours"). The
    theorem assumes the exact constrained minimiser: the fit is released
    only if it is feasible (constraints <= 1e-8 max(1, abs(constraints(0)))) and its KKT residual
    is at most 1e-7 (1e-4 without gradient functions) times max(1, ||grad J(0)||); otherwise
    ``ConvergenceError`` (a ``RuntimeError``), never a warning. That residual is not
    accounted for in the noise.

    ``fit`` runs three overridable steps, as DPpack's private methods: ``_preprocess_data(X,
    y, upper_bounds, lower_bounds, add_bias)`` returns the (new) matrix and label vector the
    objective sees; ``_optimize_coeff(X, y, noise, Delta)`` returns the minimiser;
    ``_postprocess_coeff(coeff)`` maps it back to the user's units. Subclasses may also
    override ``_data_loss(X, y)`` to supply a faster closed form of the mean loss.

    Raises
    ------
    ValueError
        For invalid hyper-parameters or domain (here and in ``fit``); ``fit`` also for bad
        data or bounds, before any noise is drawn, and on an overspend.
    ConvergenceError
        From ``fit``, when the constrained minimiser is not certified (feasibility and KKT
        residual, see Notes).

    References
    ----------
    Kifer, Smith and Thakurta (2012), Private convex empirical risk minimization and
    high-dimensional regression, COLT, Theorem 2 and Algorithm 1; Giddens and Liu (2023),
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
        self.noise_ = None
        self.Delta_ = None
        self.optimality_tolerance_ = None
        self.release_sensitivity_ = None
        self.release_grid_ = None
        self.release_eps_ = None
        self.privacy_ = None
        self.n_passes_ = None

    # ---------------------------------------------------------------------------------------
    # fit / predict
    # ---------------------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit the model privately; returns ``self``.

        Parameters
        ----------
        X : array_like
            n x k numeric, finite matrix of features.
        y : array_like
            n numeric, finite labels.
        upper_bounds, lower_bounds : array_like
            Length k + 1: bounds on each column of X, then on y (lower < upper). X columns and
            y are clipped to them.
        add_bias : bool, default False
            Prepend a column of ones (bounds 1, 1); its coefficient comes first.
        random_state : None, int or NumPy Generator, optional
        accountant : dppack.BudgetAccountant, optional
            Charged (eps, delta) (pure eps when delta = 0; Kifer et al. 2012, Theorem 2,
            with the noise calibrated for replace-one neighbours, :ref:`guide-erm-kst`)
            under the label ``"<class name>.fit"``; None: the session's accountant, if any.
            An overspend is refused before the data are read and before any draw; a fit with
            eps = Inf cannot be charged and is refused too.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Invalid parameters, data or bounds (before any noise is drawn).
        RuntimeError
            If the solver fails to reach a feasible point satisfying the optimality conditions.
        """
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant)

    def _fit(self, X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
             weights=None, weights_upper_bound=None):
        # weights: only through dppack.erm.weighting.fit_weighted (DPpack's fit has none);
        # the loss of row i is then w_i loss_i with w_i in [0, W], and zeta and lambda are
        # scaled by W (derivation in dppack.erm.weighting)
        bill = accounting.charge(accountant, lambda: fit_loss(self.eps, self.delta),
                                 f"{type(self).__name__}.fit")
        add_bias = _checks.check_flag(add_bias, "add.bias")
        eps = _checks.check_positive_scalar(self.eps, "eps")
        delta = _checks.check_probability(self.delta, "delta", zero=True)
        _check_gamma(self.gamma, self._strict_gamma)
        _check_domain(self.domain)
        # the constructor's 'l2' again: the attributes are public and may be assigned in between
        self.regularizer, self.regularizer_gr = resolve_regularizer(self.regularizer,
                                                                    self.regularizer_gr)
        refuse_infinite_eps(bill, eps)
        if weights is not None:
            _backends.refuse_dask(f"{type(self).__name__}.fit with weights", X, y, weights)
        X, y = self._preprocess_data(X, y, upper_bounds, lower_bounds, add_bias)
        zeta, lambda_ = _check_zeta_lambda(self.zeta, self.lambda_)
        n, p = X.shape
        weighting = prepare_weights(weights, weights_upper_bound, n)
        weights, w_bar = weighting["weights"], weighting["weights_upper_bound"]
        # public (the call's form): weighted sums carry rounding (:meth:`_certificate`)
        self._weighted_fit = weights is not None
        zeta, lambda_ = w_bar * zeta, w_bar * lambda_
        modulus = None
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
            certified_residual, residual, radius = self._certificate(n, p, zeta, lambda_,
                                                                     modulus)
        rng = _random.as_generator(random_state)
        privacy = spend_fit(bill, eps)  # after the checks, before the first draw
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
        self.noise_ = noise
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
        self.n_passes_ = getattr(X, "passes", None)
        self.add_bias_ = add_bias  # predict's default (None: as fitted)
        return self

    def predict(self, X, add_bias=None):
        """Predictions ``mapXy(X, coeff)`` as a 1-d array (X is neither clipped nor scaled);
        for Dask X, a lazy Dask array (this function applied to each chunk). ``add_bias``
        None: as fitted."""
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
        """Check the data and bounds, add the bias column (first), clip X and y.

        Returns a new n x p float matrix (never the caller's memory: subclasses may scale it
        in place) and a new length-n float vector (:func:`dppack.erm.design.prepare_design`
        with the bounds of X then y). The bounds, bias column included, are kept for the
        subclasses' scaling: ``_bounds`` (X's) and ``_target_bounds`` (y's).
        """
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y)  # user functions: rows needed
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, target=True)
        self._bounds, self._target_bounds = design["bounds"], design["target_bounds"]
        return design["X"], design["y"]

    def _data_loss(self, X, y, weights=None):
        """The mean loss (1/n) sum w_i loss(mapXy(X, theta), y)_i (w_i = 1 without
        ``weights``; n the number of rows, never sum(w)) and its gradient (None without all
        gradient functions), as functions of theta. Without ``weights``, DPpack's computation
        as it is (sum(loss) / n, whatever the number of values the loss returns); with them,
        the loss must return one value per row (a weight per value; ``ValueError`` otherwise,
        :func:`dppack.erm.cms.output_message`). The gradient of the loss always returns one
        value per row, and ``mapXy_gr`` a p x n matrix."""
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
        """Evaluate the objective, its gradient, the constraints and their Jacobian once at
        theta = 0 (the solver's start) with no noise, so that a user function returning the
        wrong number of values is refused before the noise is drawn (after the charge: the
        functions read the private data, and a refusal may depend on them).
        Only lengths are checked (the values depend on the data; the solver's certificate
        judges them). Skipped when a subclass solves with its own :meth:`_optimize_coeff`."""
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
        """q, the release noise's per-coordinate standard deviation over the objective noise's
        effect on the minimiser at equal eps (for :func:`dppack.erm.approximate.split_budget`;
        data-independent: n is public under replace-one neighbours). With the certified radius
        r (:meth:`_certificate`, at m = (Delta + gamma') / n, gamma' = gamma for 'l2', else 0;
        Delta = 2 lambda / eps) the release's Laplace has standard deviation sqrt(2 p) 2 r / eps
        per coordinate. b moves the minimiser by about ||b|| / (n (h + m)) with h the data's
        curvature, at most lambda; E||b||^2 = p (p + 1) (2 zeta / eps)^2. With h = lambda (the
        smallest effect, so the largest q): q = sqrt(2 p / (p + 1)) r n (lambda + m) / zeta
        (6 K sqrt(2 p / (p + 1)) n^2 (lambda + m) / (Delta + gamma') for the general solver's
        r = 6 K zeta / m, which does not depend on zeta)."""
        gamma = float(self.gamma) if self.regularizer is regularizer_l2 else 0.0
        Delta = 2.0 * lambda_ / eps if np.isfinite(eps) else 0.0
        if not Delta + gamma > 0:
            return 0.0
        m = (Delta + gamma) / n
        radius = self._certificate(n, p, zeta, lambda_, m)[2]
        return np.sqrt(2.0 * p / (p + 1.0)) * radius * n * (lambda_ + m) / zeta

    def _quadratic_ball(self):
        """Whether the fit solves exactly (:meth:`LinearRegressionDP._optimize_coeff`): a
        property of the model's functions, never of the data."""
        return False

    def _certificate(self, n, p, zeta, lambda_, modulus):
        """(rho_c, rho, r): the KKT residual the solver certifies, the residual it bounds for
        the exact objective, and the certified radius ||theta - theta*|| <= r; all
        data-independent (n, p, zeta, lambda, m and the model's functions).

        The general solver (:func:`dppack.erm.solvers.minimize_constrained`): rho_c = rho =
        K zeta (:meth:`_residual_factor`), complementary slackness <= 12 rho^2 / m, and
        r = 6 rho / m (:func:`dppack.erm.approximate.constrained_radius`). LinearRegressionDP's
        exact solve (:meth:`_quadratic_ball`; :func:`dppack.erm.solvers.quadratic_ball_minimize`):
        rho_c = 2^-46 (zeta + sqrt(p) (lambda + m)) in exact arithmetic on the exact X'X and
        X'y of the grid records, rho = rho_c without weights, rho_c + gamma_(n+8) zeta with
        them (:func:`statistics_rounding`: the float sums' rounding), and
        r = 2 rho / m + sqrt(p 2^-50) (:func:`dppack.erm.approximate.ball_radius`), raised
        by 2^-40 of itself against the rounding of m and of this formula.
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
        """K: the certified KKT residual is K zeta, K = max(1e-8, 1e-6 / n) with the
        analytic gradient, 1e-6 with central differences (data-independent)."""
        with_gradient = (self.mapXy_gr is not None and self.loss_gr is not None
                         and self.regularizer_gr is not None)
        if not with_gradient:
            return KST_RESIDUAL_DIFFERENCES
        return max(KST_RESIDUAL, KST_RESIDUAL_SMALL_N / n)

    def _optimize_coeff(self, X, y, noise, Delta, weights=None):
        """argmin of the perturbed objective over the domain: LinearRegressionDP's exact solve
        when it applies (:meth:`_quadratic_ball`), else SLSQP from theta = 0."""
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
        """The perturbed objective J(theta) and its gradient (None without all three gradient
        functions), as functions of theta (:mod:`dppack.erm.kst`)."""
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


def weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                 weights_upper_bound, random_state, accountant):
    """The fit of a KST ``model`` with weights in [0, ``weights_upper_bound``] (zeta and
    lambda scaled by the bound); called by :func:`dppack.erm.weighting.fit_weighted`, which
    checks the model and the bound first and holds the privacy argument."""
    return model._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
                      weights, weights_upper_bound)


def uses_framework_solver(model):
    """Whether ``model`` solves with the framework's own ``_optimize_coeff`` (not a subclass's)."""
    return type(model)._optimize_coeff is EmpiricalRiskMinimizationDP_KST._optimize_coeff
