"""Private empirical risk minimisation by output or objective perturbation (Chaudhuri, Monteleoni
and Sarwate 2011): DPpack 0.2.2's ``EmpiricalRiskMinimizationDP.CMS`` and ``WeightedERMDP.CMS``.

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

The derivations (conventions, randomness, the exact release, accounting, the privacy
assumptions of Chaudhuri et al.'s Theorems 6 and 9, and the solver's certificate) are in the
guide, :ref:`guide-erm-cms`.

References: Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12; Iyengar, Near, Song, Thakkar,
Thakurta and Wang (2019), "Towards practical differentially private convex optimization",
IEEE S&P; Canonne, Kamath and Steinke (2020), the discrete Laplace.
"""

import math

import numpy as np

from .. import _backends, _checks, _messages, _random, accounting
from .._repr import model_repr
from .blocks import mapXy_gr_linear, mapXy_linear, resolve_regularizer
from .approximate import release, release_grid, split_budget, strongly_convex_radius
from .design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
    prepare_design,
    prepare_weights,
    transpose_dot,
)
# ConvergenceError is re-exported: it is public here, where fits raise it.
from .solvers import (  # noqa: F401
    OPTIMALITY_SLACK,
    ConvergenceError,
    minimize_smooth,
    optimality_tolerance,
)
# The frameworks' shared parts, importable from here as before the split.
from ._perturbation import (  # noqa: F401
    C_MESSAGE,
    INFINITE_EPS_MESSAGE,
    METHODS,
    METHOD_MESSAGE,
    MODEL_OUTPUT_MESSAGE,
    OBJECTIVE_BRANCHES,
    OUTPUT_GRADIENT_MESSAGE,
    REGULARIZER_OUTPUT_MESSAGE,
    WEIGHTED_OBJECTIVE_MESSAGE,
    StandardNoise,
    fit_loss,
    map_jacobian,
    objective_perturbation_parameters,
    output_message,
    output_perturbation_rate,
    output_perturbation_sensitivity,
    penalised_objective,
    perturbation_noise,
    refuse_infinite_eps,
    spend_fit,
)

__all__ = ["EmpiricalRiskMinimizationDP_CMS", "WeightedERMDP_CMS"]


# --------------------------------------------------------------------------------------------
# Hyper-parameter checks and the fits shared with stability-based tuning and weighting
# --------------------------------------------------------------------------------------------


def check_parameters(model):
    """Validate a CMS model's settings as its ``fit`` does first, without data or draws.

    Parameters
    ----------
    model : EmpiricalRiskMinimizationDP_CMS
        Any model of the framework (``LogisticRegressionDP``, ``svmDP``, ...); its eps,
        gamma, perturbation method and c (and svmDP's kernel settings) are checked, and
        numbers are stored as floats, as ``fit`` stores them.

    Returns
    -------
    EmpiricalRiskMinimizationDP_CMS
        ``model`` itself.

    Raises
    ------
    TypeError
        If ``model`` is not a model of the CMS framework.
    ValueError
        With DPpack's message for a bad setting.

    References
    ----------
    DPpack 0.2.2 (the framework's checks, before any data is read);
    Chaudhuri and Vinterbo 2013 (stability-based tuning checks its candidates first).

    Examples
    --------
    >>> import dppack
    >>> model = check_parameters(dppack.LogisticRegressionDP("l2", 1, 2))
    >>> model.eps, model.gamma
    (1.0, 2.0)
    >>> model.eps = -1.0
    >>> check_parameters(model)
    Traceback (most recent call last):
    ...
    ValueError: eps must be a scalar > 0
    """
    _check_model(model)
    model._check_parameters()
    return model


def fit_with_noise(model, X, y, noise, upper_bounds=None, lower_bounds=None, add_bias=False,
                   random_state=0, accountant=None):
    """Fit a CMS model with its perturbation noise supplied from outside: nothing is drawn.

    The fit is the model's own (DPpack's ``fit``: checks, clipping, calibration, solver,
    release on the grid), with ``noise.scaled(d, rate)`` in place of a fresh draw of the
    objective's ``_random.l2_laplace(d, rate)`` (objective perturbation, rate eps' / (2B)),
    and the release noise round(L_j t / s) on the fit's own grid in place of the exact
    discrete Laplace draw (both methods; :class:`StandardNoise` says what is exact). Given
    ``noise``, the fit is a deterministic function of the data: the F of a trainer (G, F)
    in stability-based validation, where one draw is shared by candidates with different
    gamma and eps.

    Parameters
    ----------
    model : EmpiricalRiskMinimizationDP_CMS
        Fitted in place, at its own eps.
    X, y, upper_bounds, lower_bounds, add_bias
        As for the model's ``fit``.
    noise : StandardNoise
        R with density proportional to exp(-||r||) on R^d (rate 1) and L, d standard Laplace
        values, d the number of coefficients (with the bias); its privacy is the fit's only
        if it is drawn fresh
        (:meth:`StandardNoise.draw`) and not reused outside an analysis that accounts for it.
    random_state : None, int or numpy Generator, default 0
        Only for draws that are not the perturbation noise (svmDP's Gaussian-kernel
        features); a fixed value keeps the fit deterministic.
    accountant : BudgetAccountant, optional
        Charged as by ``fit``; ``dppack.accounting.UNCHARGED`` when the caller accounts for
        the whole analysis.

    Returns
    -------
    EmpiricalRiskMinimizationDP_CMS
        ``model``, fitted.

    Raises
    ------
    TypeError
        If ``model`` is not a CMS model or ``noise`` not a :class:`StandardNoise`.
    ValueError
        As ``fit`` (DPpack's messages), or if ``noise`` has the wrong length.
    ConvergenceError
        As ``fit``.

    References
    ----------
    Chaudhuri and Vinterbo (2013), "A stability-based validation procedure for
    differentially private machine learning", NeurIPS (the trainer (G, F)).

    Examples
    --------
    >>> import numpy as np
    >>> import dppack
    >>> X = np.array([[0.5], [-0.5], [0.8], [-0.3]])
    >>> y = np.array([1.0, 0.0, 1.0, 0.0])
    >>> R = StandardNoise.draw(1, _random.as_generator(0))
    >>> a = fit_with_noise(dppack.svmDP("l2", 1, 1, "output"), X, y, R, [1.0], [-1.0])
    >>> b = fit_with_noise(dppack.svmDP("l2", 2, 1, "output"), X, y, R, [1.0], [-1.0])
    >>> exact = dppack.svmDP("l2", float("inf"), 1, "output").fit(X, y, [1.0], [-1.0])
    >>> bool(np.allclose(a.coeff - exact.coeff, 2 * (b.coeff - exact.coeff)))
    True
    """
    _check_model(model)
    if not isinstance(noise, StandardNoise):
        raise _messages.type_error("noise must be a StandardNoise.")
    return model._fit(X, y, upper_bounds, lower_bounds, add_bias, None, None, random_state,
                      noise=noise, accountant=accountant)


def weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                 weights_upper_bound, random_state, accountant):
    """The fit of a CMS ``model`` with weights in [0, ``weights_upper_bound``], either
    perturbation method (DPpack's ``fit`` allows output perturbation only); called by
    :func:`dppack.erm.weighting.fit_weighted`, which checks the model and the bound first
    and holds the privacy argument."""
    return model._fit(X, y, upper_bounds, lower_bounds, add_bias, weights,
                      weights_upper_bound, random_state, accountant=accountant)


def _check_model(model):
    if not isinstance(model, EmpiricalRiskMinimizationDP_CMS):
        raise _messages.type_error("model must be a model of the CMS framework "
                                   "(EmpiricalRiskMinimizationDP_CMS or a subclass).")


# --------------------------------------------------------------------------------------------
# The classes
# --------------------------------------------------------------------------------------------


class EmpiricalRiskMinimizationDP_CMS:
    """Differentially private ERM by output or objective perturbation (DPpack's
    ``EmpiricalRiskMinimizationDP.CMS``; Chaudhuri, Monteleoni and Sarwate 2011).

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``: the model's outputs for the n x d matrix X, n values. For the
        guarantee it must act through the linear score x'coeff of each row (e.g.
        ``mapXy_linear``, ``mapXy_sigmoid``).
    loss : callable
        ``loss(y_hat, y)``: the per-row losses, n values. For the guarantee, as a function of
        the score z = x'coeff it must be convex and differentiable with abs(dloss/dz) <= 1 (and,
        for objective perturbation, twice differentiable with abs(d2loss/dz2) <= ``c``) for every
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
        After ``fit`` with objective perturbation: the eps' and Delta used (eps' = Inf and Delta = 0
        when eps = Inf); None after output perturbation.

    optimality_tolerance_ : float or None
        After ``fit``: the bound g_tol on the gradient norm of the objective that the
        released minimiser met.
    release_sensitivity_, release_grid_, release_eps_ : float, int, float or None
        After a private ``fit``: the L2 sensitivity S of the released minimiser (output
        perturbation: (2 w_bar B / gamma)(1 + tau); objective perturbation: 2 g_tol /
        (gamma/n + Delta)), the exponent k of its grid g = 2^k, and the eps spent on the
        release noise (output: eps; objective: eps_2); None after a fit with eps = Inf.
    privacy_ : dppack.PrivacyLoss or None
        After ``fit``: what the fit spent, ``PrivacyLoss.pure(eps)``; None before a fit and
        after a fit with eps = Inf (no noise, no guarantee).
    n_passes_ : int or None
        After a fit on Dask data (``LogisticRegressionDP``, ``svmDP``): the passes over the
        data it took (``dppack.dask.erm``); None before a fit and after one in memory.
        A diagnostic for whoever runs the fit, not part of the release: the solver's path,
        and so this count, depends on the data beyond the private minimiser (the guarantee
        covers ``coeff`` only), so do not publish it with the model.

    Notes
    -----
    What the framework checks and what it assumes (guide, :ref:`guide-erm-cms`, "Privacy
    assumptions"): it checks eps, gamma, c, the bounds and the data, clips X to the bounds and calibrates the
    noise to B, the largest norm a clipped row can have (from the bounds; no scaling, so the
    coefficients keep the user's units); it releases only a minimiser whose gradient norm is
    at most g_tol = 1e-6 w_bar max(1, B) / n (``ConvergenceError`` otherwise), a slack that output
    perturbation's noise covers (1 + 1e-6 times the exact sensitivity). It cannot check the
    loss, map and regularizer conditions above, nor the gradients: they are the user's
    responsibility. DPpack's base class calibrated to B = 1 whatever the bounds.

    User functions may return lists, 1-d or 2-d arrays (e.g. R matrices through reticulate);
    per-row outputs are flattened. Bad hyper-parameters raise ``ValueError`` here and again in
    ``fit`` (attributes are public and may be changed in between).

    Raises
    ------
    ValueError
        For invalid functions or hyper-parameters (DPpack's messages), here and in ``fit``;
        ``fit`` also for bad data or bounds, before any noise is drawn, and on an overspend;
        and for a user function that returns the wrong number of values, found by evaluating
        them once at the solver's start theta = 0, after the fit is charged (they read the
        private data) and before it draws.
    ConvergenceError
        From ``fit``, when the solver does not certify a minimiser (nothing is released).

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), Differentially private empirical risk
    minimization, JMLR 12 (output perturbation, objective perturbation); Giddens and Liu
    (2023), DPpack reference manual, ``EmpiricalRiskMinimizationDP.CMS``.

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
        self.mapXy, self.mapXy_gr, self.loss, self.loss_gr = mapXy, mapXy_gr, loss, loss_gr
        self.regularizer, self.regularizer_gr = regularizer, regularizer_gr
        self._check_functions()
        self.eps = _checks.check_positive_scalar(eps, "eps")
        self.gamma = _checks.check_finite_positive_scalar(gamma, "gamma")
        self.perturbation_method = _checks.check_choice(perturbation_method, "perturbation.method",
                                                        METHODS, METHOD_MESSAGE)
        if self.perturbation_method == "objective" and c is None:
            raise _messages.value_error(C_MESSAGE)
        self.c = _checks.check_finite_positive_scalar(c, "c", optional=True)
        self.coeff = None
        self.eps_prime_ = None
        self.Delta_ = None
        self.optimality_tolerance_ = None
        self.release_sensitivity_ = None
        self.release_grid_ = None
        self.release_eps_ = None
        self.privacy_ = None
        self.n_passes_ = None

    # ---- public API -------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False,
            random_state=None, accountant=None):
        """Fit the private coefficients; returns ``self``.

        Parameters
        ----------
        X : array_like or a pandas, polars or pyarrow data frame, n x p
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

    def predict(self, X, add_bias=None):
        """``mapXy(X, coeff)`` (X not clipped or scaled) as a 1-d array of n values;
        ``add_bias`` None: as fitted."""
        X = self._predict_design(X, add_bias)
        return _checks.as_vector(self.mapXy(X, self.coeff), X.shape[0], MODEL_OUTPUT_MESSAGE)

    # shown by repr (subclasses with fixed functions list fewer)
    _REPR_PARAMS = ("mapXy", "loss", "regularizer", "eps", "gamma", "perturbation_method", "c")

    def __repr__(self):
        """Class, key parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---- the steps ----------------------------------------------------------------------------

    def _check_functions(self):
        """The constructor's checks of the functions (``'l2'`` resolved to its pair), again at
        every fit: the attributes are public and may be assigned in between (DPpackPy's R
        fields are bindings onto them)."""
        self.mapXy = _checks.check_callable(self.mapXy, "mapXy")
        self.mapXy_gr = _checks.check_callable(self.mapXy_gr, "mapXy.gr", optional=True)
        self.loss = _checks.check_callable(self.loss, "loss")
        self.loss_gr = _checks.check_callable(self.loss_gr, "loss.gr", optional=True)
        self.regularizer, self.regularizer_gr = resolve_regularizer(self.regularizer,
                                                                    self.regularizer_gr)

    def _check_parameters(self):
        self._check_functions()
        self.eps = _checks.check_positive_scalar(self.eps, "eps")
        self.gamma = _checks.check_finite_positive_scalar(self.gamma, "gamma")
        _checks.check_choice(self.perturbation_method, "perturbation.method", METHODS,
                             METHOD_MESSAGE)
        if self.perturbation_method == "objective":
            if self.c is None:
                raise _messages.value_error(C_MESSAGE)
            self.c = _checks.check_finite_positive_scalar(self.c, "c")
        elif math.isfinite(self.eps) and not self._use_gradient():
            raise _messages.value_error(OUTPUT_GRADIENT_MESSAGE)

    def _fit(self, X, y, upper_bounds, lower_bounds, add_bias, weights, weights_upper_bound,
             random_state, noise=None, accountant=None):
        # noise: None (draw from random_state) or a StandardNoise reused across fits
        # (stability-based validation, through fit_with_noise); the public fit signatures
        # are DPpack's.
        # Both perturbation methods are pure eps-DP (guide, erm-derivations): the fit charges eps.
        bill = accounting.charge(accountant, lambda: fit_loss(self.eps),
                                 f"{type(self).__name__}.fit")
        self._check_parameters()
        refuse_infinite_eps(bill, self.eps)
        add_bias = _checks.check_flag(add_bias, "add.bias")
        rng = _random.as_generator(random_state)
        preprocess = self._preprocess_data(X, y, upper_bounds, lower_bounds, add_bias,
                                           weights, weights_upper_bound, rng=rng)
        Xp, yp = preprocess["X"], preprocess["y"]
        # after the data checks, before the first noise draw (svmDP's Gaussian kernel draws
        # its random features, which do not depend on the data, in _preprocess_data)
        privacy = spend_fit(bill, self.eps)
        # the user's functions read the private data: after the charge (a refusal that
        # depends on the data is paid for), before the first noise draw
        self._check_outputs(Xp, yp, preprocess.get("weights"))
        n, d = Xp.shape
        eps = self.eps
        objective = self.perturbation_method == "objective"
        # B: every clipped row has norm <= B whatever the data (guide, erm-derivations)
        bound = max(1.0, float(preprocess.get("row_norm_bound", 1.0)))
        w_bar = preprocess.get("weights_upper_bound", 1.0)
        # read by _optimize_coeff: the fit is released only if ||grad J|| <= this
        self.optimality_tolerance_ = optimality_tolerance(n, w_bar, bound)
        # approximate minima perturbation (dppack.erm.approximate): objective perturbation
        # spends eps_1 in the objective and eps_2 on the exact output noise; output
        # perturbation spends all of eps on its exact output noise
        eps_1, eps_2 = split_budget(eps) if objective else (eps, eps)
        standard = None if noise is None else noise.coordinates_for(d)
        if objective and math.isfinite(eps):
            eps_prime, Delta = objective_perturbation_parameters(eps_1, self.gamma, self.c, n,
                                                                 bound, w_bar)
            # a replaced row shifts n grad J by at most 2 w_bar B (dppack.erm.weighting)
            b = perturbation_noise(d, eps_prime / (2.0 * w_bar * bound), rng, noise)
        else:
            eps_prime, Delta, b = (math.inf if objective else None), 0.0, np.zeros(d)
        theta = np.asarray(self._optimize_coeff(Xp, yp, Delta, b, preprocess.get("weights")),
                           dtype=np.float64).ravel()
        if math.isfinite(eps):
            if objective:
                # J is (gamma/n + Delta)-strongly convex: the certified minimiser is within
                # r = g_tol / (gamma/n + Delta) of the exact one; neighbours' within 2r
                sensitivity = 2.0 * strongly_convex_radius(self.optimality_tolerance_,
                                                           self.gamma / n + Delta)
            else:
                sensitivity = output_perturbation_sensitivity(self.gamma, w_bar, bound)
            theta = release(theta, sensitivity, eps_2, rng, standard)
            self.release_sensitivity_, self.release_eps_ = sensitivity, eps_2
            self.release_grid_ = release_grid(sensitivity, eps_2, d)[0]
        else:
            self.release_sensitivity_, self.release_grid_, self.release_eps_ = None, None, None
        self.coeff = np.asarray(self._postprocess_coeff(theta, preprocess),
                                dtype=np.float64).ravel()
        self.eps_prime_ = eps_prime
        self.Delta_ = Delta if objective else None
        self.privacy_ = privacy
        self.n_passes_ = getattr(Xp, "passes", None)  # Dask data (dppack.dask.erm); else None
        self.add_bias_ = add_bias  # predict's default (None: as fitted)
        return self

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        """Bound checks, optional bias column (first), clipping; no scaling."""
        # the user's functions need the rows: no Dask path (LogisticRegressionDP, svmDP have one)
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, weights)
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

    def _objective(self, X, y, Delta, b, weights=None):
        """J(theta) (module docstring) with the user's functions, for the solver: the
        ``objective`` of :func:`penalised_objective`, every output checked for its length."""
        n, d = X.shape
        with_gradient = self._use_gradient()
        # With the linear map the chain rule needs no d x n Jacobian: loss' X, one product.
        linear = self.mapXy is mapXy_linear and self.mapXy_gr is mapXy_gr_linear

        def chain(theta, loss_gr):
            if linear:
                return transpose_dot(X, loss_gr)
            return map_jacobian(self.mapXy_gr(X, theta), d, n) @ loss_gr

        def data(theta, gradient):
            y_hat = _checks.as_vector(self.mapXy(X, theta), n,
                                      output_message("mapXy", "one per row"))
            value = np.sum(_checks.as_vector(self._loss_values(y_hat, y, weights), n,
                                              output_message("loss", "one per row"))) / n
            if not gradient:
                return value, None
            loss_gr = _checks.as_vector(self._loss_gr_values(y_hat, y, weights), n,
                                        output_message("loss.gr", "one per row"))
            return value, chain(theta, loss_gr) / n

        return penalised_objective(data, n, d, self.gamma, self.regularizer,
                                   self.regularizer_gr, b, Delta, with_gradient)

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        """Minimise J(theta) (module docstring) with the user's functions, from theta = 0."""
        objective = self._objective(X, y, Delta, b, weights)
        return minimize_smooth(objective, X.shape[1], True if self._use_gradient() else None,
                               gtol=self.optimality_tolerance_)

    def _check_outputs(self, X, y, weights=None):
        """Evaluate J and its gradient once at theta = 0 without noise, so that a user function
        that returns the wrong number of values is refused before any noise is drawn (the
        solver starts there: it would fail at its first step). It runs the user's functions
        on the private data, so the fit calls it after the charge: a refusal, which may depend
        on the data, is paid for. Only the lengths are checked: the values depend on the
        data, and the solver's certificate judges them (``ConvergenceError``). A fused
        built-in loss needs only the regularizer's check (:meth:`_check_penalty_outputs`).
        Skipped when a subclass solves with its own :meth:`_optimize_coeff` (a documented
        hook: the library's J is then not what is minimised)."""
        if getattr(type(self)._optimize_coeff, "__module__", "").split(".")[0] != "dppack":
            return
        self._objective(X, y, 0.0, np.zeros(X.shape[1]), weights)(np.zeros(X.shape[1]))

    def _check_penalty_outputs(self, d):
        """:meth:`_check_outputs` for the regularizer alone (the data part is built in)."""
        def no_data(theta, gradient):
            return 0.0, (np.zeros(d) if gradient else None)

        penalised_objective(no_data, 1, d, self.gamma, self.regularizer, self.regularizer_gr,
                            np.zeros(d), 0.0, self._use_gradient())(np.zeros(d))

    def _postprocess_coeff(self, coeff, preprocess):
        """Identity in the base class."""
        return coeff

    def _predict_design(self, X, add_bias):
        check_fitted(self.coeff)
        add_bias = fitted_add_bias(self, add_bias, X)
        X = predict_matrix(X, np.size(self.coeff), add_bias)
        return add_bias_column(X) if add_bias else X


class WeightedERMDP_CMS(EmpiricalRiskMinimizationDP_CMS):
    """Weighted private ERM (DPpack's ``WeightedERMDP.CMS``).

    Same constructor as :class:`EmpiricalRiskMinimizationDP_CMS`, but ``loss`` and ``loss_gr``
    take a third argument ``w`` (the weights, or None), as the Huber generators do. Weights are
    only allowed with output perturbation, whose noise rate becomes
    gamma eps / (2 w_bar B (1 + 1e-6)), w_bar = ``weights_upper_bound``
    (``dppack.erm.cms.output_perturbation_rate``).

    The guarantee needs the assumptions of :class:`EmpiricalRiskMinimizationDP_CMS` with the
    weighted loss: ``loss(y_hat, y, w)`` = w l(z, y) for an l as there (abs(dl/dz) <= 1), so
    that its slope is at most w <= w_bar after clipping; weights are checked (>= 0) and
    clipped at w_bar, the form of the loss is the user's responsibility.

    Parameters
    ----------
    mapXy, loss, regularizer, eps, gamma, perturbation_method, c, mapXy_gr, loss_gr, regularizer_gr
        As :class:`EmpiricalRiskMinimizationDP_CMS`; ``loss`` and ``loss_gr`` take the
        weights as a third argument.

    Attributes
    ----------
    coeff, eps_prime_, Delta_, optimality_tolerance_, privacy_
        As :class:`EmpiricalRiskMinimizationDP_CMS`, and its parameters as given.

    Raises
    ------
    ValueError
        As :class:`EmpiricalRiskMinimizationDP_CMS`; ``fit`` also for weights with objective
        perturbation, or weights without ``weights_upper_bound``.

    References
    ----------
    Giddens, Zhou, Krull, Brinkman, Song and Liu (2023), A differentially private weighted
    empirical risk minimization procedure and its application to outcome weighted learning
    (arXiv); Giddens and Liu (2023), DPpack reference manual, ``WeightedERMDP.CMS``.

    Examples
    --------
    A weighted SVM (Huber loss, labels -1/+1) whose weights are at most 2, by output
    perturbation:

    >>> import numpy as np, dppack
    >>> t = np.arange(200)  # fixed example data in [-0.7, 0.7]^2
    >>> X = 0.7 * np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    >>> model = dppack.WeightedERMDP_CMS(
    ...     dppack.mapXy_linear, dppack.generate_loss_huber(0.5), "l2", eps=1, gamma=10,
    ...     perturbation_method="output", mapXy_gr=dppack.mapXy_gr_linear,
    ...     loss_gr=dppack.generate_loss_gr_huber(0.5))
    >>> model = model.fit(X, y, [0.7, 0.7], [-0.7, -0.7], weights=1.0 + t % 2,
    ...                   weights_upper_bound=2.0, random_state=1)
    >>> model.coeff.shape, model.privacy_
    ((2,), PrivacyLoss.pure(eps=1.0))
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
            raise _messages.value_error(WEIGHTED_OBJECTIVE_MESSAGE)
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, weights,
                         weights_upper_bound, random_state, accountant=accountant)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias, weights=None,
                         weights_upper_bound=None, rng=None):
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, weights)
        preprocess = prepare_design(X, y, upper_bounds, lower_bounds, add_bias)
        preprocess.update(prepare_weights(weights, weights_upper_bound, preprocess["X"].shape[0]))
        return preprocess

