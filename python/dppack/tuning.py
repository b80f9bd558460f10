"""Private hyper-parameter tuning: pick one of several models with the exponential mechanism.

Each of m models is fitted on its own interleaved part of the rows and scored on the last
part; the exponential mechanism picks one with ``DPmodels[0].eps``. The call is
(eps, delta)-DP when every model is (parallel composition; McSherry 2009, Theorem 4), so
all models must share eps and delta, and is charged once. Unlike DPpack,
``tune_linear_regression_model`` clips the validation labels and predictions to [L_y, U_y]
so its sensitivity holds. Derivation: :doc:`/guide/models`, "Why data-splitting tuning is
private".
"""

import inspect

import numpy as np

from . import _backends, _plans, accounting
from .erm._design import (
    ColumnBounds,
    as_labels,
    interleaved_split,
    n_rows,
    prepare_weights,
    take_rows,
)
from .mechanisms import ExponentialMechanism
from ._tuning_checks import check_budgets, check_models, tuning_loss

__all__ = ["tune_classification_model", "tune_linear_regression_model"]


def _fit_uncharged(model, *args, **kwargs):
    """``model.fit(...)`` with ``accountant=UNCHARGED`` when the fit takes one."""
    try:
        parameters = inspect.signature(model.fit).parameters
    except (TypeError, ValueError):
        parameters = {}
    if "accountant" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        kwargs["accountant"] = accounting.UNCHARGED
    return model.fit(*args, **kwargs)


class _Tuner(_plans.Plan):
    """A tuner: the models' checks, n and the labels, then its own checks (``checked``);
    one draw fits every model and selects one (:func:`_fit_and_select`)."""

    def __init__(self, name, with_delta, checked):
        self.name, self.with_delta, self.checked = name, with_delta, checked

    def loss(self, a):
        return tuning_loss(a["DPmodels"], self.with_delta)

    def prepare(self, data, a):
        X, y = data
        models = check_models(a["DPmodels"])
        check_budgets(models, self.with_delta)
        n = n_rows(X)
        return [(None, self.checked(models, X, as_labels(y, n), n, a))]


def _fit_and_select(models, X, y, parts, fit_args, score, sensitivity, part_extra=None):
    """The draw ``(rng, privacy)``: fit model i on training part i, score it on the validation
    rows with ``score``, and select by the exponential mechanism with utility -score and
    ``sensitivity``."""
    training, validation = parts

    def draw(rng, privacy):
        validate_X = take_rows(X, validation)
        scores = []
        for model, rows in zip(models, training):
            extra = {} if part_extra is None else part_extra(rows)
            _fit_uncharged(model, take_rows(X, rows), y[rows], *fit_args, random_state=rng,
                           **extra)
            scores.append(score(model, validate_X))
        return _selected(models, scores, sensitivity, rng, privacy)
    return draw


def _selected(DPmodels, scores, sensitivity, rng, privacy):
    """The exponential mechanism's choice, its ``privacy_`` the whole call's loss."""
    chosen = ExponentialMechanism(-np.asarray(scores, dtype=np.float64), DPmodels[0].eps,
                                  sensitivity, candidates=DPmodels, random_state=rng,
                                  accountant=accounting.UNCHARGED)
    chosen.privacy_ = privacy
    return chosen


def tune_classification_model(DPmodels, X, y, upper_bounds, lower_bounds, add_bias=False,
                              weights=None, weights_upper_bound=None, random_state=None,
                              accountant=None):
    """Fit every classification model privately on its own part of the data and select one.

    The utility of a model is minus its misclassified validation rows (sensitivity 1); the call
    costs the models' common eps (and delta).

    Parameters
    ----------
    DPmodels : sequence of models
        Unfitted models with ``fit``, ``predict`` and the same finite ``eps`` (e.g.
        LogisticRegressionDP, svmDP); each is fitted in place.
    X : array_like
        n x k feature matrix (ndarray or pandas DataFrame).
    y : array_like
        n labels in {0, 1}.
    upper_bounds, lower_bounds : array_like
        Bounds on the columns of X, passed to each fit.
    add_bias : bool, default False
    weights : array_like, optional
        Observation weights, sliced per model (svmDP with output perturbation only).
    weights_upper_bound : float, optional
    random_state : None, int or NumPy Generator, optional
    accountant : dppack.BudgetAccountant, optional
        Charged the whole call once; None: the session's accountant, if any.

    Returns
    -------
    model
        The selected model (one of ``DPmodels``, fitted); its ``privacy_`` is the call's loss.

    Raises
    ------
    ValueError
        Before any data is touched: models with different or infinite ``eps``; an overspend.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (private parameter tuning); Giddens and
    Liu (2023), DPpack reference manual, ``tune_classification_model``.

    Examples
    --------
    >>> from dppack import tune_classification_model
    >>> import dppack
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> models = [dppack.LogisticRegressionDP("l2", 0.5, gamma) for gamma in (0.001, 1.0, 10.0)]
    >>> best = tune_classification_model(models, X, y, upper_bounds=[200, 70],
    ...                                  lower_bounds=[50, 15], add_bias=True, random_state=1)
    >>> best.gamma, best.privacy_
    (10.0, PrivacyLoss.pure(eps=0.5))
    """
    _backends.refuse_dask("tune_classification_model", X, y)
    arguments = dict(DPmodels=DPmodels, upper_bounds=upper_bounds, lower_bounds=lower_bounds,
                     add_bias=add_bias, weights=weights, weights_upper_bound=weights_upper_bound)
    return _plans.run(CLASSIFICATION, (X, y), arguments, random_state, accountant)


def _classification(models, X, y, n, a):
    """tune_classification_model's checks after the models': the draw."""
    add_bias, weights, weights_upper_bound = a["add_bias"], a["weights"], a["weights_upper_bound"]
    parts = interleaved_split(len(models), n)
    part_weights = None
    if weights is not None:
        # the fits' own checks (DPpack's messages), before the call's loss is spent
        weights = prepare_weights(weights, weights_upper_bound, n)["weights"]

        def part_weights(rows):
            return {"weights": weights[rows], "weights_upper_bound": weights_upper_bound}

    validate_y = y[parts[1]]

    def misclassified(model, validate_X):
        predicted = np.asarray(
            model.predict(validate_X, add_bias=add_bias, raw_value=False), dtype=np.float64
        ).reshape(-1)
        return int(np.count_nonzero(predicted != validate_y))

    return _fit_and_select(models, X, y, parts, (a["upper_bounds"], a["lower_bounds"], add_bias),
                           misclassified, 1.0, part_weights)


CLASSIFICATION = _Tuner("tune_classification_model", False, _classification)


def tune_linear_regression_model(DPmodels, X, y, upper_bounds, lower_bounds, add_bias=False,
                                 random_state=None, accountant=None):
    """Fit every linear regression model privately on its own part of the data and select one.

    The utility is minus the sum of squared validation errors, sensitivity (U_y - L_y)^2 (labels
    and predictions clipped to [L_y, U_y] first, unlike DPpack); the call costs the models'
    common (eps, delta).

    Parameters
    ----------
    DPmodels : sequence of models
        Unfitted models (e.g. LinearRegressionDP) with the same finite ``eps`` and ``delta``;
        each is fitted in place.
    X : array_like
        n x k feature matrix.
    y : array_like
        n numeric labels.
    upper_bounds, lower_bounds : array_like
        Length k + 1: bounds on the columns of X, then on y.
    add_bias : bool, default False
    random_state, accountant
        As :func:`tune_classification_model`.

    Returns
    -------
    model
        As :func:`tune_classification_model`.

    Raises
    ------
    ValueError
        Before any data is touched: models with different ``eps`` or ``delta``, an infinite
        ``eps``; an overspend.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011) (private parameter tuning); Giddens and Liu (2023),
    DPpack reference manual, ``tune_linear_regression_model``.

    Examples
    --------
    >>> from dppack import tune_linear_regression_model
    >>> import dppack
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> models = [dppack.LinearRegressionDP("l2", 0.5, 1e-5, gamma) for gamma in (0.01, 1.0, 10.0)]
    >>> best = tune_linear_regression_model(models, pima[["glu"]], pima["bmi"],
    ...                                     upper_bounds=[200, 70], lower_bounds=[50, 15],
    ...                                     add_bias=True, random_state=1)
    >>> best.gamma, best.privacy_
    (10.0, PrivacyLoss.approx(eps=0.5, delta=1e-05))
    """
    _backends.refuse_dask("tune_linear_regression_model", X, y)
    arguments = dict(DPmodels=DPmodels, upper_bounds=upper_bounds, lower_bounds=lower_bounds,
                     add_bias=add_bias)
    return _plans.run(LINEAR_REGRESSION, (X, y), arguments, random_state, accountant)


def _linear_regression(models, X, y, n, a):
    """tune_linear_regression_model's checks after the models': the draw."""
    upper_bounds, lower_bounds, add_bias = a["upper_bounds"], a["lower_bounds"], a["add_bias"]
    # the bounds of X then y, checked as the fits check them, before the call's loss is spent
    p = np.shape(X)[1] if np.ndim(X) > 1 else 1
    bounds = ColumnBounds.from_arguments(upper_bounds, lower_bounds, p, target=True)
    upper_y, lower_y = float(bounds.upper[p]), float(bounds.lower[p])
    parts = interleaved_split(len(models), n)
    validate_y = np.clip(y[parts[1]], lower_y, upper_y)

    def squared_errors(model, validate_X):
        predicted = np.asarray(model.predict(validate_X, add_bias=add_bias),
                               dtype=np.float64).reshape(-1)
        predicted = np.clip(predicted, lower_y, upper_y)
        return float(np.sum((validate_y - predicted) ** 2))

    return _fit_and_select(models, X, y, parts, (upper_bounds, lower_bounds, add_bias),
                           squared_errors, (upper_y - lower_y) ** 2)


LINEAR_REGRESSION = _Tuner("tune_linear_regression_model", True, _linear_regression)
