"""Private hyper-parameter tuning: pick one of several models with the exponential mechanism
(spec ``dppack_api.md`` §7).

The data are split into m + 1 interleaved parts for m models (0-based rows): model i trains on
rows i, i + (m + 1), i + 2(m + 1), ...; the validation part is rows m, 2m + 1, 3m + 2, ...
(DPpack's ``seq(m + 1, n, by = m + 1)`` minus 1). Every model is fitted in place on its own
part, scored on the validation part, and one is selected by the exponential mechanism with
utility -score and ``DPmodels[0].eps``. Each model sees a disjoint part of the data, so the
result is (eps, delta)-DP when every model is (eps, delta)-DP: a record lies in one part only,
and it changes either one model (eps, delta), on which the selection depends only through that
private model, or the validation part, which only the eps-DP selection reads (parallel
composition). The selection spends the first model's eps, so that holds only if every model
has the same eps (and delta); otherwise the call is max_i eps_i-DP. Both tuners check it, and
that eps is finite, before any data is touched (DPpack uses the first model's eps silently).

Randomness: one generator per call; the models' noise is drawn from it in the order of
``DPmodels``, then the selection.

Accounting: a tuner charges its whole run once, under its own name, with ``accountant``
(or the session's): the parallel composition (:meth:`dppack.PrivacyLoss.parallel`) of the
models' fits and the selection's pure eps, which is (eps, delta) when every model is
(eps, delta)-DP (the argument above). The fits inside charge nothing
(``accountant=accounting.UNCHARGED``), so a ``with BudgetAccountant(...)`` block shows one
entry per tuning call. The returned model's ``privacy_`` holds the call's loss.

Deviation from DPpack 0.2.2 (spec §8.11): ``tune_linear_regression_model`` clips the
validation labels and the predictions to [L_y, U_y], so each squared validation error is at
most (U_y - L_y)^2, the sensitivity the selection is calibrated to. DPpack clips neither, so a
single outlying validation label could change the utility without bound.
"""

import inspect

import numpy as np

from . import _checks, _random, accounting
from .erm.cms import fit_loss
from .mechanisms import ExponentialMechanism

__all__ = ["tune_classification_model", "tune_linear_regression_model"]


def _check_models(DPmodels):
    try:
        models = list(DPmodels)
    except TypeError:
        raise ValueError("DPmodels must be a list of models.") from None
    if not models:
        raise ValueError("DPmodels must contain at least one model.")
    return models


def _check_budgets(models, with_delta=False):
    """The eps (and delta) shared by every model, checked before any data is touched.

    The selection spends ``DPmodels[0].eps``; the fits and the selection read disjoint parts,
    so the whole call is (eps, delta)-DP only if no model has a larger eps or delta.
    """
    budgets = []
    for model in models:
        eps = getattr(model, "eps", None)
        try:
            eps = float(np.asarray(eps, dtype=np.float64).reshape(()))
        except (TypeError, ValueError):
            raise ValueError("Each model in DPmodels must have a numeric eps.") from None
        delta = getattr(model, "delta", 0.0) if with_delta else 0.0
        try:
            delta = float(np.asarray(delta, dtype=np.float64).reshape(()))
        except (TypeError, ValueError):
            raise ValueError("Each model in DPmodels must have a numeric delta.") from None
        budgets.append((eps, delta))
    eps, delta = budgets[0]
    if any(e != eps for e, _ in budgets):
        raise ValueError("All DPmodels must have the same eps: the selection spends the first "
                         "model's eps, which must be every model's.")
    if any(d != delta for _, d in budgets):
        raise ValueError("All DPmodels must have the same delta: the result is (eps, delta)-DP "
                         "only if no model has a larger delta.")
    _checks.check_finite_budget(eps, "eps")
    return eps, delta


def tuning_loss(DPmodels, with_delta=False):
    """The PrivacyLoss of a whole tuning call, from the models' parameters alone: the fits
    and the selection read disjoint parts of the data (module docstring), so their losses
    combine in parallel (McSherry 2009, Theorem 4): max_i (eps_i, delta_i) with the
    selection's pure ``DPmodels[0].eps``. Raises ValueError or TypeError for invalid models
    (the tuner's own checks then give the message)."""
    models = _check_models(DPmodels)
    eps, _ = _check_budgets(models, with_delta)
    fits = [fit_loss(float(model.eps), float(getattr(model, "delta", 0.0) or 0.0))
            for model in models]
    return accounting.PrivacyLoss.parallel(*fits, accounting.PrivacyLoss.pure(eps))


def _fit_uncharged(model, *args, **kwargs):
    """``model.fit(*args, **kwargs)`` as one step of a release that charges the whole: with
    ``accountant=UNCHARGED`` when the model's fit takes an accountant (dppack's models), so
    that neither the caller's nor the session's accountant is charged twice."""
    try:
        parameters = inspect.signature(model.fit).parameters
    except (TypeError, ValueError):
        parameters = {}
    if "accountant" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        kwargs["accountant"] = accounting.UNCHARGED
    return model.fit(*args, **kwargs)


def _n_rows(X):
    shape = np.shape(X)
    if len(shape) == 0:
        raise ValueError("X must be a matrix (or a data frame).")
    return shape[0]


def _take(data, rows):
    """The given rows of an array, a pandas object or a sequence (keeping its kind)."""
    if _checks.is_pandas(data):
        return data.iloc[rows]
    if isinstance(data, np.ndarray):
        return data[rows]
    return np.asarray(data)[rows]


def _split(m, n):
    """Training rows of each of the m models and the validation rows (spec §7.1 step 2)."""
    if n < m + 1:
        raise ValueError(
            f"Tuning {m} models needs at least {m + 1} observations (one part per model plus "
            "a validation part)."
        )
    training = [np.arange(i, n, m + 1) for i in range(m)]
    validation = np.arange(m, n, m + 1)
    return training, validation


def _labels(y, n):
    y = _checks.as_numeric_array(y, "y must be numeric.")
    if y.ndim > 1 and y.size != y.shape[0]:
        raise ValueError("y must be a vector (or a one-column matrix).")
    y = y.reshape(-1)
    if y.size != n:
        raise ValueError("The length of y must equal the number of rows of X.")
    return y


def _selected(DPmodels, scores, sensitivity, rng, privacy):
    """The exponential mechanism's choice (utility -score, ``DPmodels[0].eps``), reporting
    the whole call's loss ``privacy`` in its ``privacy_``."""
    chosen = ExponentialMechanism(-np.asarray(scores, dtype=np.float64), DPmodels[0].eps,
                                  sensitivity, candidates=DPmodels, random_state=rng,
                                  accountant=accounting.UNCHARGED)
    chosen.privacy_ = privacy
    return chosen


def tune_classification_model(DPmodels, X, y, upper_bounds, lower_bounds, add_bias=False,
                              weights=None, weights_upper_bound=None, random_state=None,
                              accountant=None):
    """Fit every classification model privately on its own part of the data and select one.

    Parameters
    ----------
    DPmodels : sequence of models
        Unfitted models with ``fit(X, y, upper_bounds, lower_bounds, add_bias, ...,
        random_state=)``, ``predict(X, add_bias, raw_value)`` and ``eps`` (e.g.
        LogisticRegressionDP, svmDP), all with the same finite eps. Each is fitted in
        place.
    X : array_like
        n x k feature matrix (ndarray or pandas DataFrame).
    y : array_like
        n labels in {0, 1}.
    upper_bounds, lower_bounds : array_like
        Bounds on the columns of X, passed to each fit.
    add_bias : bool, default False
    weights : array_like, optional
        Observation weights; when given, each model receives its slice as ``weights`` and
        ``weights_upper_bound`` (svmDP with output perturbation only).
    weights_upper_bound : float, optional
    random_state : None, int or NumPy Generator, optional
    accountant : dppack.BudgetAccountant, optional
        Charged the whole call once (label ``"tune_classification_model"``); None: the
        session's accountant, if any. An overspend is refused before any data is touched.

    Returns
    -------
    model
        The selected model (one of ``DPmodels``, fitted); its ``privacy_`` is the call's
        PrivacyLoss.

    Raises
    ------
    ValueError
        Among others, before any data is touched: models with different ``eps``, or an
        infinite ``eps``; an overspend.

    Notes
    -----
    The utility of model i is minus the number of misclassified validation rows, sensitivity 1.
    With every model eps-DP the whole call is eps-DP (module docstring), and that is what
    it charges: ``PrivacyLoss.pure(eps)`` (the largest model delta too, if the models have
    one).
    """
    bill = accounting.charge(accountant, lambda: tuning_loss(DPmodels),
                             "tune_classification_model")
    models = _check_models(DPmodels)
    _check_budgets(models)
    n = _n_rows(X)
    y = _labels(y, n)
    training, validation = _split(len(models), n)
    if weights is not None:
        weights = _checks.as_numeric_array(weights, "weights must be numeric.").reshape(-1)
        if weights.size != n:
            raise ValueError("The length of weights must equal the number of rows of X.")
    rng = _random.as_generator(random_state)
    privacy = bill.spend()  # after the checks, before the first fit draws noise

    validate_X = _take(X, validation)
    validate_y = y[validation]
    scores = []
    for model, rows in zip(models, training):
        extra = {}
        if weights is not None:
            extra = {"weights": weights[rows], "weights_upper_bound": weights_upper_bound}
        _fit_uncharged(model, _take(X, rows), y[rows], upper_bounds, lower_bounds, add_bias,
                       random_state=rng, **extra)
        predicted = np.asarray(
            model.predict(validate_X, add_bias=add_bias, raw_value=False), dtype=np.float64
        ).reshape(-1)
        scores.append(int(np.count_nonzero(predicted != validate_y)))
    return _selected(models, scores, 1.0, rng, privacy)


def tune_linear_regression_model(DPmodels, X, y, upper_bounds, lower_bounds, add_bias=False,
                                 random_state=None, accountant=None):
    """Fit every linear regression model privately on its own part of the data and select one.

    Parameters
    ----------
    DPmodels : sequence of models
        Unfitted models with ``fit(X, y, upper_bounds, lower_bounds, add_bias,
        random_state=)``, ``predict(X, add_bias)`` and ``eps`` (e.g. LinearRegressionDP),
        all with the same finite eps and the same ``delta``. Each is fitted in place.
    X : array_like
        n x k feature matrix.
    y : array_like
        n numeric labels.
    upper_bounds, lower_bounds : array_like
        Length k + 1: bounds on the columns of X, then on y.
    add_bias : bool, default False
    random_state : None, int or NumPy Generator, optional
    accountant : dppack.BudgetAccountant, optional
        Charged the whole call once (label ``"tune_linear_regression_model"``); None: the
        session's accountant, if any. An overspend is refused before any data is touched.

    Returns
    -------
    model
        The selected model (one of ``DPmodels``, fitted); its ``privacy_`` is the call's
        PrivacyLoss.

    Raises
    ------
    ValueError
        Among others, before any data is touched: models with different ``eps`` or
        ``delta``, or an infinite ``eps``; an overspend.

    Notes
    -----
    With every model (eps, delta)-DP the whole call is (eps, delta)-DP (module docstring),
    and that is what it charges: ``PrivacyLoss.approx(eps, delta)``.
    The utility of model i is minus the sum of squared validation errors, sensitivity
    (U_y - L_y)^2. Unlike DPpack, the validation labels and the predictions are clipped to
    [L_y, U_y] first, so that every squared error is at most (U_y - L_y)^2 and the stated
    sensitivity holds (spec §8.11).
    """
    bill = accounting.charge(accountant, lambda: tuning_loss(DPmodels, with_delta=True),
                             "tune_linear_regression_model")
    models = _check_models(DPmodels)
    _check_budgets(models, with_delta=True)
    n = _n_rows(X)
    y = _labels(y, n)
    upper = _checks.as_numeric_array(upper_bounds, "upper.bounds must be numeric.").reshape(-1)
    lower = _checks.as_numeric_array(lower_bounds, "lower.bounds must be numeric.").reshape(-1)
    if upper.size == 0 or lower.size == 0:
        raise ValueError("upper.bounds and lower.bounds must end with the bound on y.")
    upper_y, lower_y = float(upper[-1]), float(lower[-1])
    if not (np.isfinite(upper_y) and np.isfinite(lower_y) and lower_y < upper_y):
        raise ValueError("The bounds on y (the last values of lower.bounds and upper.bounds) "
                         "must be finite with lower < upper.")
    training, validation = _split(len(models), n)
    rng = _random.as_generator(random_state)
    privacy = bill.spend()  # after the checks, before the first fit draws noise

    validate_X = _take(X, validation)
    validate_y = np.clip(y[validation], lower_y, upper_y)
    scores = []
    for model, rows in zip(models, training):
        _fit_uncharged(model, _take(X, rows), y[rows], upper_bounds, lower_bounds, add_bias,
                       random_state=rng)
        predicted = np.asarray(model.predict(validate_X, add_bias=add_bias),
                               dtype=np.float64).reshape(-1)
        predicted = np.clip(predicted, lower_y, upper_y)
        scores.append(float(np.sum((validate_y - predicted) ** 2)))
    return _selected(models, scores, (upper_y - lower_y) ** 2, rng, privacy)
