"""scikit-learn estimators over dppack's private models.

``DPLogisticRegression``, ``DPLinearSVC``, ``DPSVC`` (linear or Gaussian kernel) and
``DPLinearRegression`` wrap :class:`dppack.LogisticRegressionDP`, :class:`dppack.svmDP` and
:class:`dppack.LinearRegressionDP` in scikit-learn's estimator contract (``clone``,
``Pipeline``, ``cross_val_score``, ``GridSearchCV``); ``DPModelSelector`` chooses among them
privately. Needs scikit-learn >= 1.6. Public bounds, labels, sample weights, what tuning costs,
randomness and accounting: the guide, ``docs/python/guide/sklearn-estimators.rst``.
"""

try:
    from sklearn.utils.validation import validate_data  # noqa: F401 - scikit-learn >= 1.6
except ImportError as error:  # scikit-learn missing, or older than 1.6 (no validate_data)
    raise ImportError(
        "dppack.sklearn needs scikit-learn >= 1.6: pip install 'dppack[sklearn]'."
    ) from error

from ._classifiers import DPLinearSVC, DPLogisticRegression, DPSVC
from ._regressors import DPLinearRegression, DPLinearRegressionAdaSSP
from ._selection import DPModelSelector

__all__ = [
    "DPLinearRegression",
    "DPLinearRegressionAdaSSP",
    "DPLinearSVC",
    "DPLogisticRegression",
    "DPModelSelector",
    "DPSVC",
]

# the estimators keep the public path in their names (reprs, pickles)
for _cls in (DPLinearRegression, DPLinearRegressionAdaSSP, DPLinearSVC, DPLogisticRegression,
             DPModelSelector, DPSVC):
    _cls.__module__ = __name__
del _cls
