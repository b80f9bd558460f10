"""The checks, messages and base classes the estimators of :mod:`dppack.sklearn` share."""

import copy
import math
import numbers

import numpy as np
from numpy.random import Generator  # a type check only: noise is drawn in _random
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _backends, _checks, _frames, _plans, accounting
from ..erm.weighting import fit_weighted




RANDOM_STATE_MESSAGE = (
    "random_state must be None, a non-negative int or a NumPy Generator "
    "(a legacy NumPy RandomState is not supported: dppack draws its noise with its own "
    "samplers from a Generator)."
)
INFINITE_EPS_MESSAGE = (
    "eps = inf fits without noise, which is not private and cannot be charged to a privacy "
    "accountant: give a finite eps, or fit outside the accountant."
)
MISSING_BOUNDS_MESSAGE = (
    "{name} must be given as (lower, upper), numbers or one value per {what}. Differential "
    "privacy needs bounds chosen without looking at the data, so {cls} does not compute them "
    "from the data; values outside the bounds are clipped."
)
PUBLIC_CLASSES_MESSAGE = (
    "{cls}: the label set must be public (classes=): y of dtype {dtype} has no public label "
    "set (Unknown label type without classes=); give classes=(negative, positive), the two "
    "labels chosen without looking at the data. Only numeric y (0 and 1, as in DPpack), bool "
    "y (False and True) and a pandas Categorical with two declared categories have one. The "
    "labels present in y are not used: they would reveal the data."
)
CLASSES_PARAMETER_MESSAGE = (
    "classes must be two distinct labels (negative, positive), the public label set; got "
    "{classes!r}."
)
CATEGORIES_MESSAGE = (
    "{cls}: y is a pandas Categorical with {k} declared categories; a binary model needs "
    "exactly two (its public label set), or give classes=(negative, positive)."
)
LABELS_OUTSIDE_MESSAGE = (
    "Only binary classification is supported: {cls} fits DPpack's binary models, and y must "
    "hold only the two labels of the public label set {classes} (classes=); y has other "
    "values."
)
KERNELS = {"linear": "linear", "rbf": "Gaussian", "Gaussian": "Gaussian"}
FIT_INTERCEPT_MESSAGE = "fit_intercept must be True or False."
SAMPLE_WEIGHT_BOUND_MESSAGE = (
    "sample_weight_bound must be given with sample_weight: the noise is calibrated to an upper "
    "bound on the weights chosen without the data (weights above it are clipped)."
)
SAMPLE_WEIGHT_NAN_MESSAGE = "sample_weight must not contain NaN."
SAMPLE_WEIGHT_INFINITE_MESSAGE = ("sample_weight must be finite (weights above "
                                  "sample_weight_bound are clipped to it).")
SAMPLE_WEIGHT_NEGATIVE_MESSAGE = "sample_weight must be nonnegative."


# --------------------------------------------------------------------------------------------
# Parameter checks (run at fit, before the data are read: scikit-learn's constructors and
# set_params only store values)
# --------------------------------------------------------------------------------------------


def check_random_state(random_state):
    if random_state is None or isinstance(random_state, Generator):
        return random_state
    if (isinstance(random_state, numbers.Integral)
            and not isinstance(random_state, (bool, np.bool_)) and random_state >= 0):
        return int(random_state)
    raise TypeError(RANDOM_STATE_MESSAGE)


def privacy_loss(eps, delta=0.0):
    """The PrivacyLoss of one fit: eps-DP, or (eps, delta)-DP."""
    if not math.isfinite(eps):
        raise ValueError(INFINITE_EPS_MESSAGE)
    return accounting.PrivacyLoss.approx(eps, delta)


class _EstimatorFit(_plans.Plan):
    """An estimator's fit, over a core model's fit or a tuner that charges and records the loss
    itself: an overspend, or a fit without noise that an accountant would be charged for, is
    refused before the data are validated. ``arguments["loss_of"]()`` is the core's loss;
    ``arguments["read"](*data)`` validates the data and returns ``draw(rng, None)``."""

    def loss(self, arguments):
        return arguments["loss_of"]()

    def admit(self, bill, arguments):
        if bill.accountant is not None:
            bill.loss  # noqa: B018 -- raises INFINITE_EPS_MESSAGE for eps = inf

    def prepare(self, data, arguments):
        return [(None, arguments["read"](*data))]

    def spend(self, bill, arguments):
        return None  # recorded by the core's fit (its own plan), after its own checks


ESTIMATOR_FIT = _EstimatorFit()


def fit_within_budget(estimator, loss_of, read, data, random_state):
    """Run an estimator's fit (:class:`_EstimatorFit`): the budget checked, then
    ``read(*data)`` (the data validated; returns ``draw(rng, loss)``, which fits the core from
    ``rng``)."""
    return _plans.run(ESTIMATOR_FIT, data, {"loss_of": loss_of, "read": read}, random_state,
                      estimator.accountant)


def bound_pair(bounds, name, cls, what="feature"):
    """(lower, upper) of ``bounds`` as two 1-d float arrays (finite); not yet broadcast."""
    if bounds is None:
        raise ValueError(MISSING_BOUNDS_MESSAGE.format(name=name, what=what, cls=cls))
    shape_message = f"{name} must be a pair (lower, upper) of numbers or of arrays."
    if isinstance(bounds, (str, bytes, dict)) or not hasattr(bounds, "__len__"):
        raise ValueError(shape_message)
    if len(bounds) != 2:
        raise ValueError(shape_message)
    sides = []
    for side, label in zip(bounds, ("lower", "upper")):
        array = _checks.as_numeric_array(side, f"The {label} {name} must be numeric.")
        if array.ndim > 1 or array.size < 1:
            raise ValueError(shape_message)
        array = array.reshape(-1)
        if not np.all(np.isfinite(array)):
            raise ValueError(f"The {label} {name} must be finite.")
        sides.append(array)
    return sides[0], sides[1]


def _broadcast_bounds(lower, upper, name, n_features):
    """Both sides broadcast to ``n_features`` values, with lower < upper everywhere."""
    out = []
    for array, label in ((lower, "lower"), (upper, "upper")):
        if array.size == 1:
            array = np.full(n_features, array[0])
        elif array.size != n_features:
            raise ValueError(
                f"The {label} {name} have {array.size} values but X has {n_features} "
                "features: give one value per feature, or one number for all."
            )
        out.append(array)
    lower, upper = out
    bad = np.flatnonzero(~(lower < upper))
    if bad.size:
        raise ValueError(f"{name}: lower must be < upper for every feature (not for feature "
                         f"{bad[0]}).")
    return lower, upper


def sample_weight_bound(estimator, sample_weight):
    """The public weight bound W of a fit (None: an unweighted fit), checked before the data
    are read; ``sample_weight`` matters only through whether it is given."""
    bound = estimator.sample_weight_bound
    if bound is None:
        if sample_weight is not None:
            raise ValueError(SAMPLE_WEIGHT_BOUND_MESSAGE)
        return None
    return _checks.check_number(bound, "sample_weight_bound", low=0, closed="neither",
                                finite="sample_weight_bound must be finite.",
                                message="sample_weight_bound must be a number > 0.")


def check_sample_weight(sample_weight, n):
    """1-d float weights, one per row, finite and >= 0 (all zeros accepted: refusing them
    would be an error that depends on the data)."""
    if sample_weight is None:
        return None
    _backends.refuse_dask("sample_weight", sample_weight)
    weights = _checks.as_numeric_array(sample_weight, "sample_weight must be numeric.")
    if weights.ndim != 1 or weights.size != n:
        raise ValueError(f"sample_weight must be a 1-d array with one value per row of X "
                         f"({n}); it has shape {weights.shape}.")
    if np.any(np.isnan(weights)):
        raise ValueError(SAMPLE_WEIGHT_NAN_MESSAGE)
    if np.any(np.isinf(weights)):
        raise ValueError(SAMPLE_WEIGHT_INFINITE_MESSAGE)
    if np.any(weights < 0):
        raise ValueError(SAMPLE_WEIGHT_NEGATIVE_MESSAGE)
    return weights


def public_classes(classes, y, cls):
    """The public label set (negative, positive) as an array of 2, from the ``classes``
    parameter or y's type, never from y's values (docs/python/guide/sklearn-estimators.rst,
    "Labels")."""
    if classes is not None:
        if isinstance(classes, (str, bytes)) or not hasattr(classes, "__len__"):
            raise ValueError(CLASSES_PARAMETER_MESSAGE.format(classes=classes))
        labels = np.asarray(list(classes))
        if labels.ndim != 1 or labels.size != 2 or labels[0] == labels[1]:
            raise ValueError(CLASSES_PARAMETER_MESSAGE.format(classes=classes))
        return labels
    if y is None:  # refused by validate_data, with scikit-learn's message
        return None
    dtype = getattr(y, "dtype", None)
    categories = getattr(dtype, "categories", None)  # pandas CategoricalDtype, polars Enum
    if categories is None and _frames.declares_levels(y):  # a pyarrow dictionary array
        categories = _frames.as_factor(y).categories
    if categories is not None:
        if len(categories) != 2:
            raise ValueError(CATEGORIES_MESSAGE.format(cls=cls, k=len(categories)))
        return np.asarray(list(categories))
    if _frames.is_polars(y) or _frames.is_pyarrow(y):  # their dtypes, through narwhals
        series_dtype = _frames.series_dtype(y)
        if series_dtype is not None:
            import narwhals as nw  # a dependency of polars and pyarrow inputs (_frames)

            if series_dtype == nw.Boolean:
                return np.array([False, True])
            if series_dtype.is_numeric():
                return np.array([0, 1])
            raise ValueError(PUBLIC_CLASSES_MESSAGE.format(cls=cls, dtype=series_dtype))
    if dtype is None:  # a list or tuple: its numpy type
        dtype = np.asarray(y).dtype
    kind = getattr(dtype, "kind", None)  # numpy and pandas nullable dtypes have a kind
    if kind == "b":
        return np.array([False, True])
    if kind in ("i", "u", "f", "c"):  # complex y: refused by validate_data
        return np.array([0, 1])
    raise ValueError(PUBLIC_CLASSES_MESSAGE.format(cls=cls, dtype=dtype))


def encode_binary(y, classes, cls):
    """Labels 0/1 as floats: ``classes[1]`` (the positive class) is 1, ``classes[0]`` is 0.
    Any other label is refused; one class present (or none) is not an error."""
    check_classification_targets(y)
    values = np.asarray(y, dtype=object)  # compared as Python values, whatever the types
    positive = values == classes[1]
    negative = values == classes[0]
    if not np.all(positive | negative):
        raise ValueError(LABELS_OUTSIDE_MESSAGE.format(cls=cls, classes=classes.tolist()))
    return positive.astype(np.float64)


def store_parameters(estimator, parameters):
    """Store each constructor argument (the constructor's ``locals()``) as its attribute."""
    for name, value in parameters.items():
        if name != "self":
            setattr(estimator, name, value)


def as_float_matrix(estimator, X, reset, method="predict"):
    _backends.refuse_dask(f"{type(estimator).__name__}.{method}", X)  # never computed here
    return validate_data(estimator, X, reset=reset, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Shared behaviour
# --------------------------------------------------------------------------------------------


class DPEstimator(BaseEstimator):
    """Checks and the link to the core model shared by every estimator here."""

    def __sklearn_clone__(self):
        """scikit-learn's clone (parameters cloned, fitted state dropped), except that the
        accountant is shared, not copied: the fits of clones charge the same budget."""
        params = self.get_params(deep=False)
        accountant = params.pop("accountant")
        twin = type(self)(accountant=accountant,
                          **{name: clone(value, safe=False) for name, value in params.items()})
        for name in ("_metadata_request", "_sklearn_output_config"):
            if hasattr(self, name):
                setattr(twin, name, copy.deepcopy(getattr(self, name)))
        return twin

    def _privacy_loss(self, core):
        return privacy_loss(float(core.eps))

    def _check_common(self):
        random_state = check_random_state(self.random_state)
        fit_intercept = _checks.check_flag(self.fit_intercept, "fit_intercept", strict=True,
                                           message=FIT_INTERCEPT_MESSAGE)
        return random_state, fit_intercept

    def _uses_bounds(self):
        return True

    def _feature_bounds(self, n_features):
        lower, upper = bound_pair(self.feature_bounds, "feature_bounds",
                                   type(self).__name__)
        if n_features is None:
            return lower, upper
        return _broadcast_bounds(lower, upper, "feature_bounds", n_features)


class DPBinaryClassifier(ClassifierMixin, DPEstimator):
    """Binary classification over a DPpack CMS model: labels mapped to 0/1 through the public
    label set ``classes_`` (the second class is the positive one)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        # scikit-learn's score check (accuracy > 0.83 on 200 rows) is no fair bar for a
        # private fit, whose noise is calibrated to eps whatever n is
        tags.classifier_tags.poor_score = True
        return tags

    def _fit(self, X, y, sample_weight=None):
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()  # checks eps, gamma, the method (and kernel) first
        if self._uses_bounds():
            self._feature_bounds(None)
        bound = sample_weight_bound(self, sample_weight)
        classes = public_classes(self.classes, y, type(self).__name__)  # y's type only

        def read(X, y, sample_weight):
            X, y = validate_data(self, X, y, dtype=np.float64)
            y01 = encode_binary(y, classes, type(self).__name__)
            weights = check_sample_weight(sample_weight, X.shape[0])
            lower = upper = None
            if self._uses_bounds():
                lower, upper = self._feature_bounds(X.shape[1])

            def draw(rng, _):
                fit_weighted(core, X, y01, upper, lower, add_bias=fit_intercept,
                             weights=weights, weights_upper_bound=bound, random_state=rng,
                             accountant=self.accountant)
                self.classes_ = classes
                self._set_coefficients(core, fit_intercept)
                self.privacy_ = core.privacy_
                return self

            return draw

        return fit_within_budget(self, lambda: self._privacy_loss(core), read,
                                 (X, y, sample_weight), random_state)

    def _set_coefficients(self, core, fit_intercept):
        """``coef_`` (1 x p) and ``intercept_`` (1,) from the core's coefficients, which refer
        to the raw features (bias first when fitted with add_bias)."""
        coeff = np.asarray(core.coeff, dtype=np.float64)
        if fit_intercept:
            self.coef_ = coeff[1:].reshape(1, -1)
            self.intercept_ = coeff[:1].copy()
        else:
            self.coef_ = coeff.reshape(1, -1)
            self.intercept_ = np.zeros(1)

    def _scores(self, X):
        return X @ self.coef_[0] + self.intercept_[0]

    def decision_function(self, X):
        """The score of the positive class ``classes_[1]`` (n values): X coef + intercept, or
        the random features' score for the Gaussian kernel; positive scores predict
        ``classes_[1]``."""
        check_is_fitted(self)
        return self._scores(as_float_matrix(self, X, reset=False, method="decision_function"))

    def predict(self, X):
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]
