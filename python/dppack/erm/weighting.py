"""Weighted private ERM: sample weights in [0, W] for every ERM model (:func:`fit_weighted`).

The objective is normalised by the row count n, never by sum(w); weights above the public
bound W are clipped to it; each framework's calibration is its unweighted one with the
gradient bound W B and the curvature bound W c B^2. The privacy argument for each
perturbation method: :ref:`guide-erm-weighting`.
"""

import numpy as np

from .. import _backends, _checks, _messages
from . import _cms
from . import kst as _kst
from .cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS
from ._design import WEIGHTS_BOUND_MESSAGE
from .kst import EmpiricalRiskMinimizationDP_KST
from .models import LogisticRegressionDP

__all__ = ["fit_weighted"]

MODEL_MESSAGE = (
    "fit_weighted needs LogisticRegressionDP, svmDP, WeightedERMDP_CMS (a loss with a weight "
    "argument), LinearRegressionDP or EmpiricalRiskMinimizationDP_KST; {cls} has a loss "
    "without weights."
)
DASK_ONES_MESSAGE = (
    "With Dask data and weights_upper_bound, give the weights explicitly (an array of ones "
    "for unweighted rows)."
)


def fit_weighted(model, X, y, upper_bounds=None, lower_bounds=None, add_bias=False,
                 weights=None, weights_upper_bound=None, random_state=None, accountant=None):
    """Fit an ERM model privately with sample weights in [0, W]; returns ``model``.

    The objective is (1/n) sum_i w_i loss_i + (gamma/n) R + the perturbation terms, the noise
    calibrated to the public bound W (derivations: :ref:`guide-erm-weighting`). DPpack's own
    ``fit`` methods keep DPpack's behaviour.

    Parameters
    ----------
    model : LogisticRegressionDP, svmDP, WeightedERMDP_CMS, LinearRegressionDP or
        EmpiricalRiskMinimizationDP_KST
        Fitted in place, as by its ``fit``.
    X, y, upper_bounds, lower_bounds, add_bias :
        As the model's ``fit`` (for the KST models the bounds list X's columns, then y's).
    weights : array_like, optional
        n finite weights >= 0, clipped to ``weights_upper_bound``. None: every weight
        min(1, W), still calibrated to W when it is given.
    weights_upper_bound : float, optional
        The public bound W > 0, required with ``weights``; without both, the plain fit.
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged as the model's ``fit`` charges.

    Returns
    -------
    model

    Raises
    ------
    TypeError
        A model whose loss takes no weights (``EmpiricalRiskMinimizationDP_CMS`` itself).
    ValueError
        Weights without a bound, a bound that is not finite and > 0, negative, NaN or infinite
        weights, or not one per row; and the model's own errors.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Corollary 8, Theorems 6 and 9.
    Kifer, Smith and Thakurta (2012), COLT, Theorem 2.
    Giddens, Zhou, Krull, Brinkman, Song and Liu (2023), a differentially private weighted
    empirical risk minimization procedure (weights clipped at a public bound).

    Examples
    --------
    A logistic regression by objective perturbation, weights at most 3: integer weights
    give the fit of repeated rows (same seed, so the same noise):

    >>> import numpy as np, dppack
    >>> from dppack.erm.weighting import fit_weighted
    >>> t = np.arange(300)  # fixed example data in [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(float)
    >>> w = 1 + t % 3
    >>> weighted = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X, y,
    ...                         [1, 1], [-1, -1], weights=w, weights_upper_bound=3,
    ...                         random_state=1)
    >>> rows = np.repeat(t, w)
    >>> repeated = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X[rows],
    ...                         y[rows], [1, 1], [-1, -1], weights_upper_bound=3,
    ...                         random_state=1)
    >>> bool(np.allclose(weighted.coeff, repeated.coeff, atol=1e-6))
    True
    """
    cms = isinstance(model, EmpiricalRiskMinimizationDP_CMS)
    if cms and not isinstance(model, (LogisticRegressionDP, WeightedERMDP_CMS)):
        raise _messages.type_error(MODEL_MESSAGE, cls=type(model).__name__)
    if not cms and not isinstance(model, EmpiricalRiskMinimizationDP_KST):
        raise _messages.type_error(MODEL_MESSAGE, cls=type(model).__name__)
    if weights is not None and weights_upper_bound is None:  # before the data are read
        raise _messages.value_error(WEIGHTS_BOUND_MESSAGE)
    if weights_upper_bound is not None:
        weights_upper_bound = _checks.check_finite_positive_scalar(weights_upper_bound,
                                                                   "weights.upper.bound")
        if weights is None:  # on Dask: DASK_ONES_MESSAGE
            weights = _backends.backend_for(X, y).unit_weights(X, y)
    framework = _cms if cms else _kst
    return framework.weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                                  weights_upper_bound, random_state, accountant)

