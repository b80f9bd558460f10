"""Private model selection among the estimators: DPModelSelector."""

import numpy as np
from sklearn.base import clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _backends, _checks
from ..erm._design import interleaved_split, prepare_weights
from ..erm.weighting import fit_weighted
from .._tuning_checks import tuning_loss
from ..tuning import tune_classification_model, tune_linear_regression_model
from ._base import (FIT_INTERCEPT_MESSAGE, DPBinaryClassifier, DPEstimator,
                    check_random_state, check_sample_weight, encode_binary, fit_within_budget,
                    public_classes, sample_weight_bound, store_parameters)
from ._regressors import DPLinearRegression

# The private hooks of the package's estimators (DPEstimator's subclasses in _base,
# _classifiers and _regressors) that DPModelSelector drives; one module held them all before
# the split (issue 27).
CANDIDATE_HOOKS = ("_core_model", "_uses_bounds", "_feature_bounds", "_y_bounds",
                   "_bound_vectors", "_set_coefficients")




# --------------------------------------------------------------------------------------------
# Private model selection
# --------------------------------------------------------------------------------------------


class _WeightedFit:
    """A core model whose ``fit`` is :func:`dppack.erm.weighting.fit_weighted` with the
    weights of its own part of the tuners' split; everything else is the core's."""

    def __init__(self, core, weights, weights_upper_bound):
        self.core, self.weights, self.weights_upper_bound = core, weights, weights_upper_bound

    def __getattr__(self, name):  # only for names not set here: the core's fields
        return getattr(self.__dict__["core"], name)

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        if len(y) != self.weights.size:  # the tuner's split is not the one assumed here
            raise RuntimeError("DPModelSelector: the core tuner's split has changed.")
        fit_weighted(self.core, X, y, upper_bounds, lower_bounds, add_bias, self.weights,
                     self.weights_upper_bound, random_state, accountant)
        return self


def _best_has(name):
    def check(self):
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, name)
        return all(hasattr(estimator, name) for estimator in self.estimators)
    return check


class DPModelSelector(DPEstimator):
    """Private choice among several private estimators (:func:`dppack.tune_classification_model`,
    :func:`dppack.tune_linear_regression_model`).

    Candidate i of m is fitted on part i of m + 1 interleaved parts, all are scored on the last
    and one is selected by the exponential mechanism with ``eps``: eps-DP in total (parallel
    composition). ``best_estimator_`` is not refitted (that would spend eps again).

    Parameters
    ----------
    estimators : list of estimators
        Unfitted candidates, all classifiers (:class:`DPLogisticRegression`,
        :class:`DPLinearSVC`, :class:`DPSVC`) or all :class:`DPLinearRegression`, with the
        same finite ``eps`` (and ``delta``), ``fit_intercept``, bounds and ``classes``. Their
        ``random_state`` and ``accountant`` are not used. They are not modified.
    random_state : None, int or NumPy Generator, default None
        One generator for the candidates' noise, then the selection.
    accountant : dppack.BudgetAccountant or None, default None
        Charged (eps, delta) once per fit, by the core tuner; None: the session's
        accountant, if any.

    Attributes
    ----------
    best_index_ : int
        The position of the selected candidate in ``estimators``.
    best_estimator_ : estimator
        A clone of that candidate, fitted on its part of the data.
    classes_ : ndarray of shape (2,)
        Classification only: the candidates' public label set.
    n_features_in_, feature_names_in_ :
        As the estimators'.
    privacy_ : dppack.PrivacyLoss
        What the whole selection spent (the core tuner's loss).

    Raises
    ------
    ValueError
        From ``fit``: no candidates, candidates of mixed kinds or with different ``eps``,
        ``delta``, ``fit_intercept`` or bounds, and the candidates' own errors.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Section 7 (private parameter tuning).
    McSherry (2009), SIGMOD, Theorem 4 (parallel composition).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPLinearSVC, DPLogisticRegression, DPModelSelector
    >>> t = np.arange(3000)  # fixed example data, spread over [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = X[:, 0] + X[:, 1] > 0
    >>> candidates = [DPLogisticRegression(eps=1, gamma=g, feature_bounds=(-1, 1))
    ...               for g in (0.1, 1, 10)] + [DPLinearSVC(eps=1, feature_bounds=(-1, 1))]
    >>> selector = DPModelSelector(candidates, random_state=0).fit(X, y)
    >>> selector.best_index_ in range(4)
    True
    >>> selector.best_estimator_.coef_.shape
    (1, 2)
    >>> bool(selector.score(X, y) > 0.9)
    True
    """

    def __init__(self, estimators, *, random_state=None, accountant=None):
        store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            first = list(self.estimators)[0]
        except (TypeError, IndexError):
            return tags
        inner = first.__sklearn_tags__()
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.target_tags.required = True
        return tags

    def _candidates(self):
        try:
            candidates = list(self.estimators)
        except TypeError:
            raise ValueError("estimators must be a list of dppack.sklearn estimators.") from None
        if not candidates:
            raise ValueError("estimators must contain at least one estimator.")
        classifiers = [isinstance(e, DPBinaryClassifier) for e in candidates]
        regressors = [isinstance(e, DPLinearRegression) for e in candidates]
        if not (all(classifiers) or all(regressors)):
            raise ValueError(
                "estimators must be all dppack.sklearn classifiers (DPLogisticRegression, "
                "DPLinearSVC, DPSVC) or all DPLinearRegression."
            )
        return candidates, all(classifiers)

    @staticmethod
    def _same(values, name):
        first = values[0]
        for value in values[1:]:
            if not np.array_equal(np.asarray(value), np.asarray(first)):
                raise ValueError(
                    f"All estimators must have the same {name}: the data are split once, "
                    f"with one {name} for every candidate (DPpack's tuners)."
                )
        return first

    def fit(self, X, y, sample_weight=None):
        """Fit the candidates on their parts of the data and select one privately; returns
        ``self``.

        Parameters
        ----------
        X : array_like, pandas, polars or pyarrow data frame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Labels (classifiers, as :meth:`DPLogisticRegression.fit`) or numbers.
        sample_weight : array_like of shape (n_samples,), optional
            Weights of the candidates' fits (the candidates need the same
            ``sample_weight_bound``); the validation score is not weighted.
        """
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state = check_random_state(self.random_state)
        candidates, classification = self._candidates()
        cores = [candidate._core_model() for candidate in candidates]
        bound = self._same([sample_weight_bound(candidate, sample_weight)
                            for candidate in candidates], "sample_weight_bound")
        fit_intercept = self._same(
            [_checks.check_flag(candidate.fit_intercept, "fit_intercept", strict=True,
                                message=FIT_INTERCEPT_MESSAGE) for candidate in candidates],
            "fit_intercept")
        bounded = [candidate for candidate in candidates if candidate._uses_bounds()]
        for candidate in bounded:
            candidate._feature_bounds(None)
        if classification:  # the candidates' public label set, from y's type only
            classes = self._same([public_classes(candidate.classes, y, type(self).__name__)
                                  for candidate in candidates], "classes")
        else:
            self._same([candidate._y_bounds() for candidate in candidates], "y_bounds")

        def read(X, y, sample_weight, cores=cores):
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not classification)
            n_samples, n_features = X.shape
            if n_samples < len(candidates) + 1:
                raise ValueError(
                    f"DPModelSelector with {len(candidates)} estimators needs at least "
                    f"{len(candidates) + 1} samples (one part per estimator plus a validation "
                    f"part); n_samples = {n_samples}."
                )
            if classification:
                y = encode_binary(y, classes, type(self).__name__)  # labels 0/1
                tuner = tune_classification_model
                # (lower, upper) of the features, of the candidates that use bounds
                pairs = [candidate._feature_bounds(n_features) for candidate in bounded]
            else:
                tuner = tune_linear_regression_model
                # (lower, upper): the features' bounds, then y's
                pairs = [candidate._bound_vectors(n_features)[::-1] for candidate in candidates]
            lower = upper = None
            if pairs:
                lower = self._same([pair[0] for pair in pairs], "feature_bounds")
                upper = self._same([pair[1] for pair in pairs], "feature_bounds")
            weights = check_sample_weight(sample_weight, n_samples)
            if bound is not None:  # calibrated to the bound, with sample_weight or without
                weights = np.ones(n_samples) if weights is None else weights
                # checked (and clipped) here, before the tuner spends the budget
                weights = prepare_weights(weights, bound, n_samples)["weights"]
                training, _ = interleaved_split(len(cores), n_samples)  # the tuners' split
                cores = [_WeightedFit(core, weights[rows], bound)
                         for core, rows in zip(cores, training)]

            def draw(rng, _):
                selected = tuner(cores, X, y, upper, lower, add_bias=fit_intercept,
                                 random_state=rng, accountant=self.accountant)
                self.privacy_ = selected.privacy_
                index = next(i for i, core in enumerate(cores) if core is selected)
                best = clone(candidates[index])
                best.n_features_in_ = self.n_features_in_
                if hasattr(self, "feature_names_in_"):
                    best.feature_names_in_ = self.feature_names_in_
                if classification:
                    best.classes_ = classes
                    self.classes_ = classes
                best._set_coefficients(selected, fit_intercept)
                self.best_index_ = index
                self.best_estimator_ = best
                return self

            return draw

        return fit_within_budget(self, lambda: self._privacy_loss(cores, classification),
                                 read, (X, y, sample_weight), random_state)

    def _privacy_loss(self, cores, classification):
        """The core tuner's loss (parallel composition over disjoint parts)."""
        for candidate, core in zip(self.estimators, cores):
            candidate._privacy_loss(core)  # eps = inf: this estimator's message
        return tuning_loss(cores, with_delta=not classification)

    def _delegate(self, method, *args, **kwargs):
        """The selected estimator's ``method`` called with the arguments."""
        check_is_fitted(self)
        return getattr(self.best_estimator_, method)(*args, **kwargs)

    def predict(self, X):
        """The selected estimator's ``predict``."""
        return self._delegate("predict", X)

    @available_if(_best_has("predict_proba"))
    def predict_proba(self, X):
        """The selected estimator's ``predict_proba`` (logistic regression only)."""
        return self._delegate("predict_proba", X)

    @available_if(_best_has("decision_function"))
    def decision_function(self, X):
        """The selected estimator's ``decision_function`` (classifiers)."""
        return self._delegate("decision_function", X)

    def score(self, X, y, sample_weight=None):
        """The selected estimator's ``score``: accuracy, or R^2 for the regression."""
        return self._delegate("score", X, y, sample_weight=sample_weight)
