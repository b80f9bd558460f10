"""scikit-learn estimators over dppack's private models.

``DPLogisticRegression``, ``DPLinearSVC``, ``DPSVC`` (linear or Gaussian kernel) and
``DPLinearRegression`` wrap :class:`dppack.LogisticRegressionDP`, :class:`dppack.svmDP` and
:class:`dppack.LinearRegressionDP` in scikit-learn's
estimator contract: keyword-only constructors that only store their parameters,
``fit(X, y, sample_weight=None)``, ``predict``, ``decision_function``, ``predict_proba``
(logistic model), ``score``, ``coef_``, ``intercept_``, ``classes_``, ``n_features_in_``,
``feature_names_in_``. So they work with ``clone``, ``Pipeline``, ``cross_val_score`` and
``GridSearchCV``. ``DPModelSelector`` chooses among several of them privately, with DPpack's tuners
(:func:`dppack.tune_classification_model`, :func:`dppack.tune_linear_regression_model`).

Needs scikit-learn >= 1.6 (``validate_data``, ``__sklearn_tags__``, the ``dppack[sklearn]``
extra); tested with 1.9.

Bounds
------
The privacy guarantee needs bounds on the features (and, for the regression, on the target)
that are chosen without looking at the data: ``feature_bounds=(lower, upper)``, each a number
(the same bound for every column) or one value per column, and ``y_bounds=(lower, upper)``.
They are constructor parameters, so that a ``Pipeline`` or ``GridSearchCV`` can carry them.
There is no default: an estimator without bounds refuses to fit, rather than compute them
from the data (which would not be private). Values outside the bounds are clipped by the
underlying model before fitting; predictions use the data as given. The
Gaussian kernel of ``DPSVC`` needs no bounds: its random features are bounded by construction.

In a ``Pipeline``, the bounds apply to what reaches the estimator: after a ``StandardScaler``
they are bounds on standardised values (e.g. ``(-3, 3)``), not on the raw data. A transformer
fitted on the data is itself not private: ``StandardScaler`` releases the exact means and
standard deviations of the training data into the pipeline, so such a pipeline is not
differentially private as a whole. Data-independent transformations (a fixed unit change, a
log) keep the guarantee.

Labels
------
The classifiers' label set is public too, as DPpack's 0 and 1 and R's declared factor levels:
the constructor parameter ``classes=(negative, positive)`` (``classes[1]`` the positive class),
else y's type, never the labels present in y: a pandas Categorical's (or polars Enum's, or
pyarrow dictionary's) two declared categories, (False, True) for bool y, (0, 1) for numeric y.
String and object labels need ``classes``; labels outside the set are refused; a fit where
one class is present is not an error. Labels read from y would reveal the data: with one
record changed, a fit could turn into an error, or ``classes_`` and the positive class change.

Sample weights
--------------
Every estimator takes ``sample_weight`` in ``fit`` (both perturbation methods, both kernels,
the regression and :class:`DPModelSelector`), with a public bound ``sample_weight_bound`` W
given to the constructor, chosen without looking at the data: weights above W are clipped to
W, as features are clipped to their bounds; negative, NaN or infinite weights are refused.
The objective is (1/n) sum_i w_i loss_i + the penalty, with n the number of rows (never the
sum of the weights, which depends on the data), and the noise is calibrated to W: the
sensitivity of output perturbation and the gradient and curvature bounds of objective
perturbation grow by the factor W (Chaudhuri, Monteleoni and Sarwate 2011; Kifer, Smith and
Thakurta 2012 for the regression; the derivations are in :mod:`dppack.erm.weighting`). So a
larger W costs accuracy: choose the smallest bound the weights need. The privacy unit is
one row with its weight. An integer weight k gives the fit of k copies of the row (same seed);
all-zero weights are accepted (a fit of the penalty and the noise), since refusing them would
be an error that depends on the data.

What tuning costs
-----------------
Every ``fit`` of a private estimator spends its ``eps`` on the rows it sees, and fits on
overlapping data add up (sequential composition). ``cross_val_score`` with k folds fits k times
on overlapping subsets, each row in k - 1 of them: (k - 1) eps in total, and the scores it
returns are computed on the raw validation rows without noise, so they are not private at all.
``GridSearchCV`` over m candidates spends m (k - 1) eps in the fits, picks the best candidate
from those non-private scores (the selection, ``best_params_`` and ``cv_results_`` have no
privacy guarantee), and spends another eps on the refit. Use it on public or synthetic data
only. Private alternatives: :class:`DPModelSelector` (DPpack's data-split exponential
mechanism, eps in total), :func:`dppack.tune_classification_model`,
:func:`dppack.tune_linear_regression_model` and the stability-based
:func:`dppack.tune_classification_model_stable`.

Randomness
----------
``random_state`` is passed to the model's ``fit``: None draws fresh entropy (the setting for
releasing real data), an int or a NumPy ``Generator`` makes fits reproducible (for tests
and teaching; refitting with the same int seed reuses the same noise). A
a legacy NumPy ``RandomState`` is refused: dppack draws its noise with its own exact samplers from
a ``Generator``.

Accounting
----------
Every fit charges a :class:`dppack.BudgetAccountant`: the ``accountant`` parameter,
or, when it is None, the session's accountant of an enclosing ``with BudgetAccountant(...)``
block (none: nothing is charged). The fit's loss, eps-DP for the classifiers, (eps, delta)-DP
for the regression, (eps, delta) for :class:`DPModelSelector` (the candidates' fits and the
selection read disjoint parts of the data), is checked against the remaining budget before
the data are read; the core model's ``fit`` (or the core tuner) records it, once, under its
own name (``"LogisticRegressionDP.fit"``, ``"svmDP.fit"``, ``"LinearRegressionDP.fit"``,
``"tune_classification_model"``, ``"tune_linear_regression_model"``), after checking the
data and before drawing noise, and the fitted estimator reports it in ``privacy_``. An
overspend raises ``ValueError`` and nothing is fitted. ``clone`` (and so ``cross_val_score``
and ``GridSearchCV``) shares the accountant instead of copying it, so every fit they make is
charged: inside a ``with`` block a grid search shows what its fits cost, or is refused. The
accountant counts fits only: it cannot make a non-private selection private. Parallel jobs
(``n_jobs`` > 1) do not see the session's accountant, and a process pool cannot carry one: use
``n_jobs=1`` with an accountant. A fit with ``eps = inf`` (no noise) cannot be charged.
"""

import copy
import math
import numbers

import numpy as np
from numpy.random import Generator  # a type check only: noise is drawn in _random

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
    from sklearn.preprocessing import LabelEncoder
    from sklearn.utils.metaestimators import available_if
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as error:  # scikit-learn missing, or older than 1.6 (no validate_data)
    raise ImportError(
        "dppack.sklearn needs scikit-learn >= 1.6: pip install 'dppack[sklearn]'."
    ) from error

from . import _checks, _frames, accounting
from .erm import LinearRegressionAdaSSP, LinearRegressionDP, LogisticRegressionDP, svmDP
from .erm.design import interleaved_split, prepare_weights
from .erm.losses import sigmoid
from .erm.weighting import fit_weighted
from .tuning import tune_classification_model, tune_linear_regression_model, tuning_loss

__all__ = [
    "DPLinearRegression",
    "DPLinearRegressionAdaSSP",
    "DPLinearSVC",
    "DPLogisticRegression",
    "DPModelSelector",
    "DPSVC",
]

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


def _check_random_state(random_state):
    if random_state is None or isinstance(random_state, Generator):
        return random_state
    if (isinstance(random_state, numbers.Integral)
            and not isinstance(random_state, (bool, np.bool_)) and random_state >= 0):
        return int(random_state)
    raise TypeError(RANDOM_STATE_MESSAGE)


def _privacy_loss(eps, delta=0.0):
    """The PrivacyLoss of one fit: eps-DP, or (eps, delta)-DP."""
    if not math.isfinite(eps):
        raise ValueError(INFINITE_EPS_MESSAGE)
    return accounting.PrivacyLoss.approx(eps, delta)


def _check_budget(accountant, loss_of):
    """Refuse an overspend, or a fit without noise, before the data are read: ``loss_of()``
    computes the fit's loss from the parameters alone and is checked against the accountant
    that the core's fit will charge (``accountant``, or the session's). Nothing is recorded
    here: the core's fit records the spend (one charging path)."""
    bill = accounting.charge(accountant, loss_of, None)
    if bill.accountant is not None:
        bill.loss  # noqa: B018 -- raises INFINITE_EPS_MESSAGE for eps = inf


def _bound_pair(bounds, name, cls, what="feature"):
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


def _sample_weight_bound(estimator, sample_weight):
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


def _sample_weight(sample_weight, n):
    """1-d float weights, one per row, not NaN, finite and >= 0 (checked here, in the core's
    order, with messages that name ``sample_weight``; the core clips at the bound:
    :func:`dppack.erm.weighting.fit_weighted`). An all-zero vector is not refused (that
    would be an error that depends on the data)."""
    if sample_weight is None:
        return None
    _frames.refuse_dask("sample_weight", sample_weight)
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


def _public_classes(classes, y, cls):
    """The public label set (negative, positive) as an array of 2, from the ``classes``
    parameter or y's type, never from y's values.

    In order: ``classes`` if given; a pandas Categorical's declared categories (exactly two);
    bool y: (False, True); numeric y: (0, 1), DPpack's labels (``LogisticRegressionDP`` and
    ``svmDP`` take y in {0, 1}). Strings and other objects have no public label set: an error
    asks for ``classes``. The labels present in y are never used, since they depend on the
    data: with them, one record changed could turn a fit into an error, or change
    ``classes_`` and the positive class (neighbouring datasets must give the same outcome
    space for differential privacy, Dwork and Roth 2014, Definition 2.4)."""
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


def _encode_binary(y, classes, cls):
    """Labels 0/1 as floats: ``classes[1]`` (the positive class) is 1, ``classes[0]`` is 0.
    Any other label is refused; one class present (or none) is not an error."""
    check_classification_targets(y)
    values = np.asarray(y, dtype=object)  # compared as Python values, whatever the types
    positive = values == classes[1]
    negative = values == classes[0]
    if not np.all(positive | negative):
        raise ValueError(LABELS_OUTSIDE_MESSAGE.format(cls=cls, classes=classes.tolist()))
    return positive.astype(np.float64)


def _store_parameters(estimator, parameters):
    """Store each constructor argument, unchanged, as the attribute of its name.

    scikit-learn's contract: ``__init__`` only stores its parameters, so that ``get_params``,
    ``set_params`` and ``clone`` see them; checks run at ``fit``. ``parameters`` is the
    constructor's ``locals()``, taken as its first statement (its arguments and ``self``).
    """
    for name, value in parameters.items():
        if name != "self":
            setattr(estimator, name, value)


def _as_float_matrix(estimator, X, reset, method="predict"):
    _frames.refuse_dask(f"{type(estimator).__name__}.{method}", X)  # never computed here
    return validate_data(estimator, X, reset=reset, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Shared behaviour
# --------------------------------------------------------------------------------------------


class _DPEstimator(BaseEstimator):
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
        return _privacy_loss(float(core.eps))

    def _check_common(self):
        random_state = _check_random_state(self.random_state)
        fit_intercept = _checks.check_flag(self.fit_intercept, "fit_intercept", strict=True,
                                           message=FIT_INTERCEPT_MESSAGE)
        return random_state, fit_intercept

    def _uses_bounds(self):
        return True

    def _feature_bounds(self, n_features):
        lower, upper = _bound_pair(self.feature_bounds, "feature_bounds",
                                   type(self).__name__)
        if n_features is None:
            return lower, upper
        return _broadcast_bounds(lower, upper, "feature_bounds", n_features)


class _DPBinaryClassifier(ClassifierMixin, _DPEstimator):
    """Binary classification over a DPpack CMS model: labels are mapped to 0/1 through
    ``classes_``, the public label set (``classes``, or y's type: module docstring, "Labels";
    the second class is the positive one, as in scikit-learn)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        # scikit-learn's score check (accuracy > 0.83 on 200 rows) is no fair bar for a
        # private fit, whose noise is calibrated to eps whatever n is
        tags.classifier_tags.poor_score = True
        return tags

    def _fit(self, X, y, sample_weight=None):
        _frames.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()  # checks eps, gamma, the method (and kernel) first
        if self._uses_bounds():
            self._feature_bounds(None)
        bound = _sample_weight_bound(self, sample_weight)
        classes = _public_classes(self.classes, y, type(self).__name__)  # y's type only
        _check_budget(self.accountant, lambda: self._privacy_loss(core))
        X, y = validate_data(self, X, y, dtype=np.float64)
        y01 = _encode_binary(y, classes, type(self).__name__)
        weights = _sample_weight(sample_weight, X.shape[0])
        lower = upper = None
        if self._uses_bounds():
            lower, upper = self._feature_bounds(X.shape[1])
        fit_weighted(core, X, y01, upper, lower, add_bias=fit_intercept, weights=weights,
                     weights_upper_bound=bound, random_state=random_state,
                     accountant=self.accountant)
        self.classes_ = classes
        self._set_coefficients(core, fit_intercept)
        self.privacy_ = core.privacy_
        return self

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
        return self._scores(_as_float_matrix(self, X, reset=False, method="decision_function"))

    def predict(self, X):
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]


# --------------------------------------------------------------------------------------------
# The estimators
# --------------------------------------------------------------------------------------------


class DPLogisticRegression(_DPBinaryClassifier):
    """Differentially private logistic regression (:class:`dppack.LogisticRegressionDP`) as a
    scikit-learn classifier.

    Parameters
    ----------
    eps : float, default 1.0
        Privacy budget of one fit, > 0 (eps-DP, bounded neighbours); ``math.inf`` fits
        without noise (not private).
    gamma : float, default 1.0
        Regularisation, > 0: the penalty is (gamma / n) ||coef||^2 / 2 (DPpack's convention).
    feature_bounds : (lower, upper)
        Bounds on the features, numbers or one value per feature, chosen without the data
        (required; module docstring). X is clipped to them before fitting.
    perturbation_method : {'objective', 'output'}, default 'objective'
    fit_intercept : bool, default True
        DPpack's ``add_bias``.
    classes : sequence of two labels, optional
        The public label set (negative, positive), chosen without looking at the data;
        ``classes[1]`` is the positive class (label 1 of the core model). Default: from y's
        type, never its values: a pandas Categorical's declared categories (exactly two),
        (False, True) for bool y, (0, 1) for numeric y (DPpack's labels); strings and other
        objects need ``classes``. Labels outside the set are refused; one class present is
        not an error (the label set does not depend on the data, so neighbouring datasets
        give the same ``classes_``).
    sample_weight_bound : float, optional
        The public upper bound W > 0 on the sample weights, chosen without the data; required
        with ``sample_weight`` (weights above it are clipped to it). When given, every fit
        is calibrated to it, with ``sample_weight`` or without (then every weight is 1,
        clipped to W like any weight: min(1, W), so W < 1 scales the data term by W).
        Both methods stay eps-DP with the loss's slope and curvature bounds scaled by W
        (Chaudhuri, Monteleoni and Sarwate 2011, Corollary 8 for output perturbation:
        sensitivity 2 W / gamma; Theorem 9 for objective perturbation: c W for c and noise
        rate eps' / (2 W)); the derivations are in :mod:`dppack.erm.weighting`. The noise
        grows with W.
    random_state : None, int or NumPy Generator, default None
    accountant : dppack.BudgetAccountant or None, default None
        Charged eps per fit; None: the session's accountant, if any (module docstring).
        Shared, not copied, by ``clone``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The public label set (``classes``, or y's type); ``classes_[1]`` is the positive
        class (label 1 for the core model).
    coef_ : ndarray of shape (1, n_features)
        Coefficients on the scale of the raw features.
    intercept_ : ndarray of shape (1,)
        0 without ``fit_intercept``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had column names (a pandas DataFrame).
    privacy_ : dppack.PrivacyLoss or None
        What the fit spent, ``PrivacyLoss.pure(eps)`` (None with ``eps = inf``).

    Raises
    ------
    ValueError
        From ``fit``, before any noise is drawn: missing or malformed ``feature_bounds``,
        y without a public label set (strings or objects without ``classes``, a Categorical
        without exactly two categories), labels outside the label set, bad
        hyper-parameters, an overspend of the accountant,
        ``sample_weight`` without ``sample_weight_bound``, negative, NaN or infinite weights.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), Differentially private empirical risk
    minimization, JMLR 12 (output and objective perturbation); Giddens and Liu (2023), DPpack
    reference manual, ``LogisticRegressionDP``. Pedregosa
    et al. (2011), Scikit-learn: machine learning in Python, JMLR 12 (the estimator contract).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPLogisticRegression
    >>> t = np.arange(2000)  # fixed example data, spread over [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    >>> clf = DPLogisticRegression(eps=1, gamma=1, feature_bounds=(-1, 1),
    ...                            classes=("no", "yes"), random_state=0)
    >>> clf = clf.fit(X, y)
    >>> clf.classes_
    array(['no', 'yes'], dtype='<U3')

    String labels have no public label set of their own: without ``classes`` the fit is
    refused, before the data are read.

    >>> DPLogisticRegression(feature_bounds=(-1, 1)).fit(X, y)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: DPLogisticRegression: the label set must be public (classes=): ...
    >>> clf.coef_.shape, clf.intercept_.shape
    ((1, 2), (1,))
    >>> clf.predict_proba(X[:2]).sum(axis=1)
    array([1., 1.])
    >>> bool(clf.score(X, y) > 0.9)
    True

    Each fit charges an accountant:

    >>> import dppack
    >>> budget = dppack.BudgetAccountant(1.5)
    >>> _ = clf.set_params(accountant=budget).fit(X, y)
    >>> budget.spent
    PrivacyLoss.pure(eps=1.0)
    >>> clf.fit(X, y)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dppack.accounting.BudgetExceededError: Privacy budget exceeded: ...
    """

    def __init__(self, *, eps=1.0, gamma=1.0, feature_bounds=None,
                 perturbation_method="objective", fit_intercept=True, sample_weight_bound=None,
                 classes=None, random_state=None, accountant=None):
        _store_parameters(self, locals())

    def _core_model(self):
        return LogisticRegressionDP("l2", self.eps, self.gamma, self.perturbation_method)

    def fit(self, X, y, sample_weight=None):
        """Fit privately; returns ``self``.

        Parameters
        ----------
        X : array_like, pandas, polars or pyarrow data frame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Labels of the public label set (``classes``, or y's type: 0 and 1, False and
            True, a Categorical's two categories), numpy or pandas (nullable dtypes too).
        sample_weight : array_like of shape (n_samples,), optional
            Weights >= 0 and finite, one per row; needs ``sample_weight_bound`` (weights
            above it are clipped to it). The objective is (1/n) sum_i w_i loss_i + the
            penalty, n the number of rows (not the sum of the weights), and the noise is
            calibrated to the bound (:mod:`dppack.erm.weighting`). An integer weight k fits
            as k copies of the row would (same seed). All-zero weights are accepted: the fit
            is then the penalty plus noise.
        """
        return self._fit(X, y, sample_weight)

    def predict_proba(self, X):
        """Probabilities of ``classes_[0]`` and ``classes_[1]``: 1 - p and p, p = sigmoid of the
        decision function. An array of shape (n_samples, 2)."""
        positive = sigmoid(self.decision_function(X))  # the core's, without overflow
        return np.column_stack([1.0 - positive, positive])

    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class _DPSVMBase(_DPBinaryClassifier):
    """svmDP: the Huber-smoothed hinge loss."""

    def _kernel(self):
        return "linear"

    def _core_model(self):
        return svmDP("l2", self.eps, self.gamma, self.perturbation_method,
                     kernel=self._kernel(), huber_h=self.huber_h)

    def fit(self, X, y, sample_weight=None):
        """Fit privately; returns ``self``.

        Parameters
        ----------
        X : array_like, pandas, polars or pyarrow data frame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            As :meth:`DPLogisticRegression.fit`.
        sample_weight : array_like of shape (n_samples,), optional
            As :meth:`DPLogisticRegression.fit` (either perturbation method, either kernel).
        """
        return self._fit(X, y, sample_weight)


class DPLinearSVC(_DPSVMBase):
    """Differentially private linear support vector machine (:class:`dppack.svmDP` with the
    linear kernel) as a scikit-learn classifier. As scikit-learn's ``LinearSVC``,
    it has ``decision_function`` but no ``predict_proba``.

    Parameters
    ----------
    eps, gamma, feature_bounds, perturbation_method, fit_intercept, classes, random_state,
    accountant :
        As :class:`DPLogisticRegression`.
    huber_h : float, default 0.5
        The Huber smoothing h > 0 of the hinge loss.
    sample_weight_bound : float, optional
        As :class:`DPLogisticRegression` (DPpack's ``weights.upper.bound``).

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_, feature_names_in_, privacy_ :
        As :class:`DPLogisticRegression`.

    Raises
    ------
    ValueError
        As :class:`DPLogisticRegression`.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (the Huber-smoothed hinge loss);
    Giddens and Liu (2023), DPpack reference manual, ``svmDP``.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPLinearSVC
    >>> t = np.arange(2000)  # fixed example data, spread over [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = X[:, 0] - X[:, 1] > 0
    >>> svc = DPLinearSVC(eps=1, feature_bounds=([-1, -1], [1, 1]), random_state=0).fit(X, y)
    >>> svc.classes_
    array([False,  True])
    >>> svc.decision_function(X[:3]).shape
    (3,)
    >>> bool(svc.score(X, y) > 0.9)
    True
    """

    def __init__(self, *, eps=1.0, gamma=1.0, feature_bounds=None,
                 perturbation_method="objective", huber_h=0.5, fit_intercept=True,
                 sample_weight_bound=None, classes=None, random_state=None, accountant=None):
        _store_parameters(self, locals())


class DPSVC(_DPSVMBase):
    """Differentially private support vector machine with a linear or Gaussian kernel
    (:class:`dppack.svmDP`) as a scikit-learn classifier.

    The Gaussian kernel exp(-kernel_param ||x - x'||^2) (scikit-learn's 'rbf') is approximated
    by ``D`` random Fourier features drawn at each fit; the features are bounded by
    construction, so this kernel needs no ``feature_bounds`` (they are ignored) and X is not
    clipped. ``coef_`` and ``intercept_`` exist for the linear kernel only.

    Parameters
    ----------
    kernel : {'rbf', 'linear'}, default 'rbf'
        'Gaussian' (DPpack's name) is accepted for 'rbf'.
    D : int, default 100
        Number of random features (Gaussian kernel).
    kernel_param : float, optional
        Default 1 / n_features.
    eps, gamma, feature_bounds, perturbation_method, huber_h, fit_intercept,
    sample_weight_bound, classes, random_state, accountant :
        As :class:`DPLinearSVC`; ``fit_intercept`` is DPpack's ``add_bias`` (with the Gaussian
        kernel a constant column enters the random features).

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_, privacy_ :
        As :class:`DPLogisticRegression`.
    coef_, intercept_ :
        Linear kernel only.
    kernel_param_ : float
        Gaussian kernel: the kernel parameter used.
    random_features_ : ndarray of shape (D, n_features + fit_intercept + 1)
        Gaussian kernel: the frequencies and phases drawn at fit (svmDP's ``prefilter``).
    random_features_coef_ : ndarray of shape (D,)
        Gaussian kernel: the private coefficients of the random features.

    Raises
    ------
    ValueError
        As :class:`DPLinearSVC` (the Gaussian kernel needs no ``feature_bounds``).

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (private kernel SVM with random
    features); Rahimi and Recht (2007), Random features for large-scale kernel machines;
    Giddens and Liu (2023), DPpack reference manual, ``svmDP``.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPSVC
    >>> t = np.arange(2000)  # fixed example data, spread over [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 < 0.5, "in", "out")
    >>> svc = DPSVC(eps=1, gamma=0.1, D=50, kernel_param=2, classes=("in", "out"),
    ...             random_state=0).fit(X, y)
    >>> svc.random_features_.shape
    (50, 4)
    >>> bool(svc.score(X, y) > 0.7)
    True
    """

    def __init__(self, *, kernel="rbf", D=100, kernel_param=None, eps=1.0, gamma=1.0,
                 feature_bounds=None, perturbation_method="objective", huber_h=0.5,
                 fit_intercept=True, sample_weight_bound=None, classes=None, random_state=None,
                 accountant=None):
        _store_parameters(self, locals())

    def _kernel(self):
        _checks.check_choice(self.kernel, "kernel", KERNELS,
                             "kernel must be one of 'rbf' (or 'Gaussian') and 'linear'.")
        return KERNELS[self.kernel]

    def _uses_bounds(self):
        return self._kernel() == "linear"

    def _core_model(self):
        if self._kernel() == "linear":
            return super()._core_model()
        return svmDP("l2", self.eps, self.gamma, self.perturbation_method, kernel="Gaussian",
                     D=self.D, kernel_param=self.kernel_param, huber_h=self.huber_h)

    def _set_coefficients(self, core, fit_intercept):
        for name in ("coef_", "intercept_", "kernel_param_", "random_features_",
                     "random_features_coef_"):  # a refit may change the kernel
            self.__dict__.pop(name, None)
        if core.kernel == "linear":
            super()._set_coefficients(core, fit_intercept)
            return
        self.kernel_param_ = float(core.kernel_param)
        self.random_features_ = np.array(core.prefilter, dtype=np.float64)
        self.random_features_coef_ = np.array(core.coeff, dtype=np.float64)

    def _scores(self, X):
        if not hasattr(self, "random_features_"):
            return super()._scores(X)
        # the core model's own prediction, from the fitted state (the model object holds
        # closures, which do not pickle, so it is rebuilt here)
        core = svmDP("l2", self.eps, self.gamma, self.perturbation_method, kernel="Gaussian",
                     D=self.random_features_.shape[0], kernel_param=self.kernel_param_,
                     huber_h=self.huber_h)
        core.prefilter = self.random_features_
        core.coeff = self.random_features_coef_
        return core.predict(X, add_bias=bool(self.fit_intercept), raw_value=True)


class DPLinearRegression(RegressorMixin, _DPEstimator):
    """Differentially private linear regression (:class:`dppack.LinearRegressionDP`, Kifer,
    Smith and Thakurta 2012 objective perturbation) as a scikit-learn regressor.

    Parameters
    ----------
    eps : float, default 1.0
        > 0; ``math.inf`` fits without noise (not private).
    delta : float, default 0.0
        0 for eps-DP, in (0, 1) for (eps, delta)-DP with Gaussian noise.
    gamma : float, default 1.0
        Regularisation, > 0 (penalty (gamma / n) ||coef||^2 / 2 of the scaled problem).
    feature_bounds : (lower, upper)
        Bounds on the features (required; module docstring).
    y_bounds : (lower, upper)
        Bounds on the target, two numbers (required). y is clipped to them before fitting.
    fit_intercept : bool, default True
    sample_weight_bound : float, optional
        As :class:`DPLogisticRegression`: the public bound W on the weights. The weighted
        squared error enters through X'WX, X'Wy and y'Wy (W the diagonal of the weights), and
        Kifer, Smith and Thakurta's (2012, Theorem 2) constants zeta and lambda (the bounds
        on a row's gradient and curvature) are scaled by W (:mod:`dppack.erm.weighting`).
    random_state : None, int or NumPy Generator, default None
    accountant : dppack.BudgetAccountant or None, default None
        Charged (eps, delta) per fit; None: the session's accountant, if any (module
        docstring).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        0.0 without ``fit_intercept``.
    n_features_in_, feature_names_in_ :
        As :class:`DPLogisticRegression`.
    privacy_ : dppack.PrivacyLoss or None
        What the fit spent, ``PrivacyLoss.approx(eps, delta)`` (None with ``eps = inf``).

    Notes
    -----
    LinearRegressionDP solves a scaled problem over the ball ||theta||^2 <= p (p coefficients,
    the intercept included), with theta_j = coef_j s_j / c, s_j = max(abs(lower_j),
    abs(upper_j)) and c = (U_y - L_y) / (2p) with an intercept (which is also shifted by the
    midpoint of ``y_bounds``), max(abs(L_y), abs(U_y)) / p without. So the bounds also cap the
    coefficients: with feature and target bounds of equal width, abs(coef_j) <= 1/sqrt(p). Wide
    ``y_bounds`` relative to ``feature_bounds`` leave room for large coefficients.

    Raises
    ------
    ValueError
        From ``fit``, before any noise is drawn: missing or malformed ``feature_bounds`` or
        ``y_bounds``, bad hyper-parameters, an overspend of the accountant.

    References
    ----------
    Kifer, Smith and Thakurta (2012), Private convex empirical risk minimization and
    high-dimensional regression, COLT; Giddens and Liu (2023), DPpack reference manual,
    ``LinearRegressionDP``.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPLinearRegression
    >>> t = np.arange(5000)  # fixed example data, spread over [0, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)]) / 2 + 0.5
    >>> y = 0.5 + X @ np.array([1.0, -0.5]) + 0.1 * np.sin(3.1 * t)
    >>> reg = DPLinearRegression(eps=1, gamma=1, feature_bounds=(0, 1), y_bounds=(-1, 2),
    ...                          random_state=0).fit(X, y)
    >>> reg.coef_.shape, type(reg.intercept_)
    ((2,), <class 'float'>)
    >>> bool(reg.score(X, y) > 0.5)
    True
    """

    def __init__(self, *, eps=1.0, delta=0.0, gamma=1.0, feature_bounds=None, y_bounds=None,
                 fit_intercept=True, sample_weight_bound=None, random_state=None,
                 accountant=None):
        _store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # scikit-learn's score check (R^2 > 0.5 on 200 rows) is no fair bar: the noise is
        # calibrated to eps whatever n is, and the domain bounds the coefficients (DPpack's
        # LinearRegressionDP)
        tags.regressor_tags.poor_score = True
        return tags

    def _core_model(self):
        return LinearRegressionDP("l2", self.eps, self.delta, self.gamma)

    def _privacy_loss(self, core):
        return _privacy_loss(float(core.eps), float(core.delta))

    def _y_bounds(self):
        lower, upper = _bound_pair(self.y_bounds, "y_bounds", type(self).__name__,
                                   what="target")
        if lower.size != 1 or upper.size != 1:
            raise ValueError("y_bounds must be two numbers (lower, upper).")
        if not lower[0] < upper[0]:
            raise ValueError("y_bounds: lower must be < upper.")
        return float(lower[0]), float(upper[0])

    def _bound_vectors(self, n_features):
        """DPpack's (upper_bounds, lower_bounds): the features' bounds, then y's."""
        lower, upper = self._feature_bounds(n_features)
        y_lower, y_upper = self._y_bounds()
        return np.append(upper, y_upper), np.append(lower, y_lower)

    def fit(self, X, y, sample_weight=None):
        """Fit privately; returns ``self``.

        Parameters
        ----------
        X : array_like, pandas, polars or pyarrow data frame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Numeric (pandas nullable dtypes such as Int64 included, without missing values).
        sample_weight : array_like of shape (n_samples,), optional
            As :meth:`DPLogisticRegression.fit`; needs ``sample_weight_bound``.
        """
        _frames.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()
        self._feature_bounds(None)
        self._y_bounds()
        bound = _sample_weight_bound(self, sample_weight)
        _check_budget(self.accountant, lambda: self._privacy_loss(core))
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        weights = _sample_weight(sample_weight, X.shape[0])
        upper, lower = self._bound_vectors(X.shape[1])
        fit_weighted(core, X, y, upper, lower, add_bias=fit_intercept, weights=weights,
                     weights_upper_bound=bound, random_state=random_state,
                     accountant=self.accountant)
        self._set_coefficients(core, fit_intercept)
        self.privacy_ = core.privacy_
        return self

    def _set_coefficients(self, core, fit_intercept):
        coeff = np.asarray(core.coeff, dtype=np.float64)
        if fit_intercept:
            self.coef_ = coeff[1:].copy()
            self.intercept_ = float(coeff[0])
        else:
            self.coef_ = coeff.copy()
            self.intercept_ = 0.0

    def predict(self, X):
        """X coef + intercept (n values; not clipped to ``y_bounds``)."""
        check_is_fitted(self)
        X = _as_float_matrix(self, X, reset=False)
        return X @ self.coef_ + self.intercept_


class DPLinearRegressionAdaSSP(RegressorMixin, _DPEstimator):
    """Differentially private linear regression by AdaSSP (:class:`dppack.LinearRegressionAdaSSP`,
    Wang 2018: noisy sufficient statistics and an adaptive ridge) as a scikit-learn regressor.

    Parameters
    ----------
    eps : float, default 1.0
        > 0; ``math.inf`` fits least squares without noise (not private).
    delta : float, default 0.0
        0 for eps-DP (discrete Laplace noise), in (0, 1) for (eps, delta)-DP (discrete
        Gaussian noise).
    feature_bounds, y_bounds, fit_intercept, random_state, accountant :
        As :class:`DPLinearRegression` (the fit is charged as
        ``"LinearRegressionAdaSSP.fit"``). No sample weights.

    Attributes
    ----------
    coef_, intercept_, n_features_in_, feature_names_in_, privacy_ :
        As :class:`DPLinearRegression`.

    References
    ----------
    Wang Y-X (2018), Revisiting differentially private linear regression, UAI, Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.sklearn import DPLinearRegressionAdaSSP
    >>> t = np.arange(5000)  # fixed example data, spread over [0, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)]) / 2 + 0.5
    >>> y = 0.5 + X @ np.array([1.0, -0.5]) + 0.1 * np.sin(3.1 * t)
    >>> reg = DPLinearRegressionAdaSSP(eps=1, feature_bounds=(0, 1), y_bounds=(-1, 2),
    ...                                random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.8)
    True
    """

    def __init__(self, *, eps=1.0, delta=0.0, feature_bounds=None, y_bounds=None,
                 fit_intercept=True, random_state=None, accountant=None):
        _store_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # the noise is calibrated to eps whatever n is
        return tags

    _privacy_loss = DPLinearRegression._privacy_loss
    _y_bounds = DPLinearRegression._y_bounds
    _bound_vectors = DPLinearRegression._bound_vectors
    _set_coefficients = DPLinearRegression._set_coefficients
    predict = DPLinearRegression.predict

    def _core_model(self):
        return LinearRegressionAdaSSP(self.eps, self.delta)

    def fit(self, X, y, sample_weight=None):
        """Fit privately; returns ``self`` (``sample_weight`` is refused: the sensitivities
        are those of one unweighted row)."""
        _frames.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()
        self._feature_bounds(None)
        self._y_bounds()
        if sample_weight is not None:
            raise ValueError(f"{type(self).__name__} does not take sample_weight.")
        _check_budget(self.accountant, lambda: self._privacy_loss(core))
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        upper, lower = self._bound_vectors(X.shape[1])
        core.fit(X, y, upper, lower, add_bias=fit_intercept, random_state=random_state,
                 accountant=self.accountant)
        self._set_coefficients(core, fit_intercept)
        self.privacy_ = core.privacy_
        return self


# --------------------------------------------------------------------------------------------
# Private model selection
# --------------------------------------------------------------------------------------------


class _WeightedFit:
    """A core model for the core tuners whose ``fit`` is
    :func:`dppack.erm.weighting.fit_weighted` with the weights of its own training part
    (the tuners' split, :func:`dppack.erm.design.interleaved_split`: candidate i is fitted on
    rows i, i + m + 1, ...). Every model and method takes weights this way (DPpack's own
    ``fit`` takes them for svmDP's output perturbation only, and the regression tuner has no
    weights). Everything else is the core's."""

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


class DPModelSelector(_DPEstimator):
    """Private choice among several private estimators (DPpack's data-split exponential
    mechanism: :func:`dppack.tune_classification_model`,
    :func:`dppack.tune_linear_regression_model`).

    The data are split into m + 1 interleaved parts for m candidates; candidate i is fitted
    on part i, all are scored on the last part (misclassified rows, or the squared error
    clipped to ``y_bounds``) and one is selected by the exponential mechanism with ``eps``.
    With ``sample_weight``, each candidate's fit takes its part's weights (the candidates
    share one ``sample_weight_bound``); the validation score is not weighted.
    Each row enters either one fit or the validation part: the result is eps-DP in total
    (eps-DP fits on disjoint parts and an eps-DP selection that reads only the validation part
    and the private models; parallel composition, McSherry 2009; with ``delta`` > 0,
    (eps, delta)-DP).
    ``best_estimator_`` is the selected candidate as fitted on its part (about n / (m + 1)
    rows), not refitted: a refit on all rows would spend eps again.

    Parameters
    ----------
    estimators : list of estimators
        Unfitted candidates, all classifiers (:class:`DPLogisticRegression`,
        :class:`DPLinearSVC`, :class:`DPSVC`) or all :class:`DPLinearRegression`, with the
        same finite ``eps`` (and ``delta``; the core tuners check them), ``fit_intercept``,
        ``feature_bounds`` (those that use bounds), ``y_bounds`` and ``classes``. Their ``random_state``
        and ``accountant`` are not used: the selector's own govern the whole run. They are not
        modified.
    random_state : None, int or NumPy Generator, default None
        One generator for the candidates' noise (in the order of ``estimators``), then the
        selection.
    accountant : dppack.BudgetAccountant or None, default None
        Charged (eps, delta) once per fit, by the core tuner (label
        ``"tune_classification_model"`` or ``"tune_linear_regression_model"``); None: the
        session's accountant, if any (module docstring).

    Attributes
    ----------
    best_index_ : int
        The position of the selected candidate in ``estimators``.
    best_estimator_ : estimator
        A clone of that candidate, fitted on its part of the data.
    classes_ : ndarray of shape (2,)
        Classification only: the candidates' public label set (their ``classes``, which
        must agree, or y's type; as :class:`DPLogisticRegression`).
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
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (privacy-preserving parameter tuning);
    McSherry (2009), Privacy integrated queries (parallel composition); Giddens and Liu
    (2023), DPpack reference manual, ``tune_classification_model``.

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
        _store_parameters(self, locals())

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
        classifiers = [isinstance(e, _DPBinaryClassifier) for e in candidates]
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
            Labels of the candidates' public label set (classifiers, as
            :meth:`DPLogisticRegression.fit`), or numbers (regression).
        sample_weight : array_like of shape (n_samples,), optional
            Weights of the candidates' fits (each candidate gets its part's weights,
            as :meth:`DPLogisticRegression.fit`); the candidates need the same
            ``sample_weight_bound``. The validation score is not weighted (misclassified
            rows, or clipped squared errors), so the selection's sensitivity is unchanged.
        """
        _frames.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state = _check_random_state(self.random_state)
        candidates, classification = self._candidates()
        cores = [candidate._core_model() for candidate in candidates]
        bound = self._same([_sample_weight_bound(candidate, sample_weight)
                            for candidate in candidates], "sample_weight_bound")
        fit_intercept = self._same(
            [_checks.check_flag(candidate.fit_intercept, "fit_intercept", strict=True,
                                message=FIT_INTERCEPT_MESSAGE) for candidate in candidates],
            "fit_intercept")
        bounded = [candidate for candidate in candidates if candidate._uses_bounds()]
        for candidate in bounded:
            candidate._feature_bounds(None)
        if classification:  # the candidates' public label set, from y's type only
            classes = self._same([_public_classes(candidate.classes, y, type(self).__name__)
                                  for candidate in candidates], "classes")
        else:
            self._same([candidate._y_bounds() for candidate in candidates], "y_bounds")
        _check_budget(self.accountant, lambda: self._privacy_loss(cores, classification))

        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not classification)
        n_samples, n_features = X.shape
        if n_samples < len(candidates) + 1:
            raise ValueError(
                f"DPModelSelector with {len(candidates)} estimators needs at least "
                f"{len(candidates) + 1} samples (one part per estimator plus a validation "
                f"part); n_samples = {n_samples}."
            )
        if classification:
            y = _encode_binary(y, classes, type(self).__name__)  # labels 0/1
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
        weights = _sample_weight(sample_weight, n_samples)
        if bound is not None:  # calibrated to the bound, with sample_weight or without
            weights = np.ones(n_samples) if weights is None else weights
            # checked (and clipped) here, before the tuner spends the budget
            weights = prepare_weights(weights, bound, n_samples)["weights"]
            training, _ = interleaved_split(len(cores), n_samples)  # the tuners' split
            cores = [_WeightedFit(core, weights[rows], bound)
                     for core, rows in zip(cores, training)]
        selected = tuner(cores, X, y, upper, lower, add_bias=fit_intercept,
                         random_state=random_state, accountant=self.accountant)
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

    def _privacy_loss(self, cores, classification):
        """The core tuner's loss (:func:`dppack.tuning.tuning_loss`): the candidates' fits and
        the selection read disjoint parts of the data (parallel composition)."""
        for candidate, core in zip(self.estimators, cores):
            candidate._privacy_loss(core)  # eps = inf: this estimator's message
        return tuning_loss(cores, with_delta=not classification)

    def _delegate(self, method, *args, **kwargs):
        """The selected estimator's ``method`` called with the arguments (after the check
        that the selector is fitted)."""
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
