"""The CMS frameworks (Chaudhuri, Monteleoni and Sarwate 2011), public in :mod:`dppack.erm.cms`:
the classes, their fit as a release plan (:class:`_CMSFit`) and the fits that stability-based
tuning and weighting share (:func:`check_parameters`, :func:`fit_with_noise`,
:func:`weighted_fit`)."""

import math

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random
from .._repr import model_repr
from ._fit_plan import FitPlan
from ._regularizers import resolve_regularizer
from .blocks import mapXy_gr_linear, mapXy_linear
from ._approximate import release, release_grid, split_budget, strongly_convex_radius
from ._design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
    prepare_design,
    prepare_weights,
    transpose_dot,
)
from ._solvers import minimize_smooth, optimality_tolerance
from ._perturbation import (
    C_MESSAGE,
    METHODS,
    METHOD_MESSAGE,
    MODEL_OUTPUT_MESSAGE,
    OUTPUT_GRADIENT_MESSAGE,
    WEIGHTED_OBJECTIVE_MESSAGE,
    StandardNoise,
    map_jacobian,
    objective_perturbation_parameters,
    output_message,
    output_perturbation_sensitivity,
    penalised_objective,
    perturbation_noise,
)


# --------------------------------------------------------------------------------------------
# Hyper-parameter checks and the fits shared with stability-based tuning and weighting
# --------------------------------------------------------------------------------------------


def check_parameters(model):
    """Validate a CMS model's settings as ``fit`` does first (no data, no draws); returns it.

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
    """Fit a CMS model with its perturbation noise supplied (a :class:`StandardNoise`):
    nothing is drawn, so the fit is a deterministic function of the data (the F of a trainer
    (G, F) in stability-based validation; Chaudhuri and Vinterbo 2013). ``random_state`` serves
    only other draws (svmDP's kernel features); ``accountant`` is charged as by ``fit``.

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
    """The weighted fit of a CMS model, either method (for ``fit_weighted``)."""
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

    X is clipped to the bounds (not scaled) and the noise calibrated to B, the largest norm of a
    clipped row. The loss, map and regularizer conditions of the guarantee are the user's
    responsibility (:ref:`guide-erm-cms`, "Privacy assumptions").

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``, n outputs; for the guarantee, through the score x'coeff of each row.
    loss : callable
        ``loss(y_hat, y)``, n losses; for the guarantee, convex in the score with slope at most 1
        (and curvature at most ``c`` for objective perturbation).
    regularizer : 'l2' or callable
        ``'l2'`` is coeff'coeff/2; a callable must be 1-strongly convex for the guarantee.
    eps : float
        > 0; ``Inf`` fits without noise (not private).
    gamma : float
        > 0 and finite; the penalty is (gamma/n) R(coeff).
    perturbation_method : {'objective', 'output'}
    c : float, optional
        Bound on the loss's second derivative in the score, required for objective perturbation.
    mapXy_gr, loss_gr, regularizer_gr : callable, optional
        Gradients (d x n, n values, d values). Without all three the optimiser uses finite
        differences; output perturbation with a finite eps needs them.

    Attributes
    ----------
    mapXy, mapXy_gr, loss, loss_gr, regularizer, regularizer_gr, gamma, eps,
    perturbation_method, c : as given (validated).
    coeff : ndarray or None
        The private coefficients after ``fit`` (bias first with ``add_bias``).
    eps_prime_, Delta_ : float or None
        After objective perturbation: the eps' and Delta used.
    optimality_tolerance_ : float or None
        The gradient-norm bound the released minimiser met.
    release_sensitivity_, release_grid_, release_eps_ : float, int, float or None
        The L2 sensitivity, grid exponent and eps of the release noise (None with eps = Inf).
    privacy_ : dppack.PrivacyLoss or None
        What the fit spent, ``PrivacyLoss.pure(eps)`` (None with eps = Inf).

    Raises
    ------
    ValueError
        Invalid functions, hyper-parameters, data or bounds (DPpack's messages), an overspend,
        or a user function returning the wrong number of values.
    ConvergenceError
        From ``fit``, when the solver does not certify a minimiser (nothing is released).

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12; Giddens and Liu (2023), DPpack reference
    manual, ``EmpiricalRiskMinimizationDP.CMS``.

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
        self._n_passes = None  # a diagnostic that depends on the data

    # ---- public API -------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds=None, lower_bounds=None, add_bias=False,
            random_state=None, accountant=None):
        """Fit the private coefficients; returns ``self``.

        Parameters
        ----------
        X : array_like or a pandas, polars or pyarrow data frame, n x p (never modified)
        y : array_like, n labels
        upper_bounds, lower_bounds : array_like, p values (X is clipped to them)
        add_bias : bool
            Prepend a column of ones; the bias coefficient comes first.
        random_state : None, int or NumPy Generator
        accountant : dppack.BudgetAccountant, optional
            Charged pure eps (None: the session's) before the data are read; a fit with
            eps = Inf cannot be charged.
        """
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, None, None, random_state,
                         accountant=accountant)

    def predict(self, X, add_bias=None):
        """``mapXy(X, coeff)``, n values (X not clipped or scaled)."""
        X = self._predict_design(X, add_bias)
        return _checks.as_vector(self.mapXy(X, self.coeff), X.shape[0], MODEL_OUTPUT_MESSAGE)

    # shown by repr (subclasses with fixed functions list fewer)
    _REPR_PARAMS = ("mapXy", "loss", "regularizer", "eps", "gamma", "perturbation_method", "c")

    def __repr__(self):
        """Class, key parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---- the steps ----------------------------------------------------------------------------

    def _check_functions(self):
        """The constructor's checks of the functions, again at every fit."""
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
        # are DPpack's. Run by its plan (_CMSFit), which charges before the data are read.
        arguments = {"model": self, "upper_bounds": upper_bounds, "lower_bounds": lower_bounds,
                     "add_bias": add_bias, "weights": weights,
                     "weights_upper_bound": weights_upper_bound, "random_state": random_state,
                     "noise": noise}
        return _plans.run(CMS_FIT, (X, y), arguments, random_state, accountant)

    def _draw_fit(self, preprocess, add_bias, rng, noise, privacy):
        """The fit's draws from ``rng`` once its loss is spent: the perturbed minimiser, the
        exact release noise, the fitted attributes; returns ``self``."""
        Xp, yp = preprocess["X"], preprocess["y"]
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
        # approximate minima perturbation (dppack.erm._approximate): objective perturbation
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
        self._n_passes = getattr(Xp, "passes", None)  # Dask data (dppack.dask._erm); else None
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
        """J(theta) with the user's functions, every output checked for its length."""
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
        """Minimise J(theta) with the user's functions, from theta = 0."""
        objective = self._objective(X, y, Delta, b, weights)
        return minimize_smooth(objective, X.shape[1], True if self._use_gradient() else None,
                               gtol=self.optimality_tolerance_)

    def _check_outputs(self, X, y, weights=None):
        """Evaluate J once at theta = 0 so that functions returning the wrong number of values
        are refused before any draw (after the charge: it reads the private data); skipped for a
        subclass's own ``_optimize_coeff``.
        """
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

    As :class:`EmpiricalRiskMinimizationDP_CMS`, but ``loss`` and ``loss_gr`` take the weights as
    a third argument ``w``; weights (output perturbation only) are clipped at
    ``weights_upper_bound`` = w_bar and the noise rate becomes gamma eps / (2 w_bar B (1 + 1e-6)).
    For the guarantee ``loss(y_hat, y, w)`` must be w l(z, y) with l as in the base class.

    Parameters
    ----------
    mapXy, loss, regularizer, eps, gamma, perturbation_method, c, mapXy_gr, loss_gr, regularizer_gr
        As :class:`EmpiricalRiskMinimizationDP_CMS`.

    Attributes
    ----------
    coeff, eps_prime_, Delta_, optimality_tolerance_, privacy_
        As :class:`EmpiricalRiskMinimizationDP_CMS`, and its parameters as given.

    Raises
    ------
    ValueError
        As the base class; ``fit`` also for weights with objective perturbation or without
        ``weights_upper_bound``.

    References
    ----------
    Giddens, Zhou, Krull, Brinkman, Song and Liu (2023), a differentially private weighted
    empirical risk minimization procedure (arXiv); DPpack reference manual, ``WeightedERMDP.CMS``.

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
        """As :meth:`EmpiricalRiskMinimizationDP_CMS.fit`, plus ``weights`` (n nonnegative values,
        output perturbation only, clipped at the bound) and ``weights_upper_bound`` (required with
        weights; 1 without).
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



# --------------------------------------------------------------------------------------------
# The fit as a release plan
# --------------------------------------------------------------------------------------------


class _CMSFit(FitPlan):
    """A CMS model's fit. Both perturbation methods are pure eps-DP (Chaudhuri, Monteleoni and
    Sarwate 2011, Theorems 6 and 9; the approximate minimum's release: Iyengar et al. 2019,
    Theorem 1): the fit is charged eps.

    The generator is made in :meth:`prepare`, where DPpack's fit makes it: svmDP's Gaussian
    kernel draws its random features (data-free) while the data are read; the fit's noise
    continues that generator (:meth:`generator` hands it to the runner).
    """

    with_delta = False

    def check(self, arguments):
        model = arguments["model"]
        model._check_parameters()
        arguments["eps"] = model.eps

    def prepare(self, data, arguments):
        model, a = arguments["model"], arguments
        add_bias = _checks.check_flag(a["add_bias"], "add.bias")
        a["rng"] = rng = _random.as_generator(a["random_state"])
        preprocess = model._preprocess_data(*data, a["upper_bounds"], a["lower_bounds"],
                                            add_bias, a["weights"], a["weights_upper_bound"],
                                            rng=rng)

        def draw(rng, privacy):
            return model._draw_fit(preprocess, add_bias, rng, a["noise"], privacy)

        return [(None, draw)]

    def generator(self, random_state, arguments):
        return arguments["rng"]  # made by prepare, the kernel's features drawn from it


CMS_FIT = _CMSFit()
