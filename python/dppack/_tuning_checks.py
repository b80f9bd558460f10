"""The checks the tuning functions and the stability selection share: the model list and its
privacy loss (DPpack's ``tune_classification_model`` and ``tune_linear_regression_model``).
"""

import numpy as np

from . import _checks, _messages, accounting
from .erm.cms import fit_loss


def check_models(DPmodels):
    """The candidate models as a list (the objects themselves), refused if not iterable or empty.

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


def check_budgets(models, with_delta=False):
    """The eps (and delta) every model must share, checked before any data is touched."""
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
    """The PrivacyLoss of a whole tuning call from the models' parameters alone: the fits' losses
    and the selection's pure eps in parallel (McSherry 2009, Theorem 4).
    """
    models = check_models(DPmodels)
    eps, _ = check_budgets(models, with_delta)
    fits = [fit_loss(float(model.eps), float(getattr(model, "delta", 0.0) or 0.0))
            for model in models]
    return accounting.PrivacyLoss.parallel(*fits, accounting.PrivacyLoss.pure(eps))
