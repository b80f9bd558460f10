"""Private hyper-parameter tuning: pick one of several models with the exponential mechanism.

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
``DPmodels``, then the selection. Nothing here draws noise itself: the models' releases are
their own (``dppack.erm``), and the selection is ``dppack.ExponentialMechanism``'s exact draw
(utilities rounded to a power-of-two grid, integer-only decisions, eps-DP by McSherry and
Talwar 2007 with the sensitivity raised by the rounding). The split into parts is
deterministic (no random subsampling), so no float uniform enters the release.

Accounting: a tuner charges its whole run once, under its own name, with ``accountant``
(or the session's): the parallel composition (:meth:`dppack.PrivacyLoss.parallel`) of the
models' fits and the selection's pure eps, which is (eps, delta) when every model is
(eps, delta)-DP (the argument above). The fits inside charge nothing
(``accountant=accounting.UNCHARGED``), so a ``with BudgetAccountant(...)`` block shows one
entry per tuning call. The returned model's ``privacy_`` holds the call's loss.

Deviation from DPpack 0.2.2: ``tune_linear_regression_model`` clips the
validation labels and the predictions to [L_y, U_y], so each squared validation error is at
most (U_y - L_y)^2, the sensitivity the selection is calibrated to. DPpack clips neither, so a
single outlying validation label could change the utility without bound.
"""

import inspect

import numpy as np

from . import _backends, _checks, _messages, _random, accounting
from .erm.cms import fit_loss
from .erm.design import (
    ColumnBounds,
    as_labels,
    interleaved_split,
    n_rows,
    prepare_weights,
    take_rows,
)
from .mechanisms import ExponentialMechanism

__all__ = ["tune_classification_model", "tune_linear_regression_model"]


def check_models(DPmodels):
    """The candidate models of a tuning call as a list, checked before any data is touched.

    Parameters
    ----------
    DPmodels : iterable
        The candidates (DPpack's ``DPmodels``: a list of unfitted models).

    Returns
    -------
    list
        The models, in their order (the objects themselves, not copies).

    Raises
    ------
    ValueError
        "DPmodels must be a list of models." if ``DPmodels`` is not iterable;
        "DPmodels must contain at least one model." if it is empty.

    References
    ----------
    DPpack 0.2.2 manual, ``tune_classification_model``;
    Chaudhuri and Vinterbo 2013 (stability-based tuning takes the same list).

    Examples
    --------
    >>> import dppack
    >>> models = check_models(dppack.LogisticRegressionDP("l2", 1, g) for g in (1, 10))
    >>> len(models)
    2
    >>> check_models([])
    Traceback (most recent call last):
    ...
    ValueError: DPmodels must contain at least one model.
    """
    try:
        models = list(DPmodels)
    except TypeError:
        raise _messages.value_error("DPmodels must be a list of models.") from None
    if not models:
        raise _messages.value_error("DPmodels must contain at least one model.")
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
            raise _messages.value_error("Each model in DPmodels must have a numeric eps.") from None
        delta = getattr(model, "delta", 0.0) if with_delta else 0.0
        try:
            delta = float(np.asarray(delta, dtype=np.float64).reshape(()))
        except (TypeError, ValueError):
            raise _messages.value_error(
                "Each model in DPmodels must have a numeric delta.") from None
        budgets.append((eps, delta))
    eps, delta = budgets[0]
    if any(e != eps for e, _ in budgets):
        raise _messages.value_error(
            "All DPmodels must have the same eps: the selection spends the first "
            "model's eps, which must be every model's.")
    if any(d != delta for _, d in budgets):
        raise _messages.value_error(
            "All DPmodels must have the same delta: the result is (eps, delta)-DP "
            "only if no model has a larger delta.")
    _checks.check_finite_budget(eps, "eps")
    return eps, delta


def tuning_loss(DPmodels, with_delta=False):
    """The PrivacyLoss of a whole tuning call, from the models' parameters alone: the fits
    and the selection read disjoint parts of the data (module docstring), so their losses
    combine in parallel (McSherry 2009, Theorem 4): max_i (eps_i, delta_i) with the
    selection's pure ``DPmodels[0].eps``. Raises ValueError or TypeError for invalid models
    (the tuner's own checks then give the message)."""
    models = check_models(DPmodels)
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


def _checked_call(DPmodels, X, y, accountant, label, with_delta):
    """The first steps of both tuners: charge the whole call (an overspend is refused here,
    before the data are read), check the models and their shared budget, then n and the
    labels (:func:`dppack.erm.design.as_labels`: finite, one per row). Returns ``(bill,
    models, n, y)``."""
    bill = accounting.charge(accountant, lambda: tuning_loss(DPmodels, with_delta), label)
    models = check_models(DPmodels)
    _check_budgets(models, with_delta)
    n = n_rows(X)
    return bill, models, n, as_labels(y, n)


def _fit_and_select(models, X, y, parts, fit_args, score, sensitivity, random_state, bill,
                    part_extra=None):
    """The run of both tuners after their checks: spend the call's
    loss, fit model i on training part i (``fit_args`` = (upper_bounds, lower_bounds,
    add_bias), and ``part_extra(rows)``'s keywords), score it on the validation rows with
    ``score(model, X_validation)``, and select by the exponential mechanism with
    utility -score and ``sensitivity`` (:func:`_selected`). ``parts`` is
    :func:`dppack.erm.design.interleaved_split`'s."""
    training, validation = parts
    rng = _random.as_generator(random_state)
    privacy = bill.spend()  # after the checks, before the first fit draws noise

    validate_X = take_rows(X, validation)
    scores = []
    for model, rows in zip(models, training):
        extra = {} if part_extra is None else part_extra(rows)
        _fit_uncharged(model, take_rows(X, rows), y[rows], *fit_args, random_state=rng,
                       **extra)
        scores.append(score(model, validate_X))
    return _selected(models, scores, sensitivity, rng, privacy)


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

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), Differentially private empirical risk
    minimization, JMLR 12 (privacy-preserving parameter tuning); Giddens and Liu (2023),
    DPpack reference manual, ``tune_classification_model``.

    Examples
    --------
    Three private logistic regressions of diabetes on glucose and BMI, one per
    regularisation constant; each trains on its own quarter of the rows and the selection
    spends the same eps once more on the last quarter (parallel composition):

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
    bill, models, n, y = _checked_call(DPmodels, X, y, accountant,
                                       "tune_classification_model", with_delta=False)
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

    return _fit_and_select(models, X, y, parts, (upper_bounds, lower_bounds, add_bias),
                           misclassified, 1.0, random_state, bill, part_weights)


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
    random_state, accountant
        As :func:`tune_classification_model`; the accountant's label is
        ``"tune_linear_regression_model"``.

    Returns
    -------
    model
        As :func:`tune_classification_model`.

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
    sensitivity holds.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011) (privacy-preserving parameter tuning); Giddens
    and Liu (2023), DPpack reference manual, ``tune_linear_regression_model``.

    Examples
    --------
    Body-mass index regressed on glucose by three private linear regressions; the last
    bounds are those of the label:

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
    bill, models, n, y = _checked_call(DPmodels, X, y, accountant,
                                       "tune_linear_regression_model", with_delta=True)
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
                           squared_errors, (upper_y - lower_y) ** 2, random_state, bill)
