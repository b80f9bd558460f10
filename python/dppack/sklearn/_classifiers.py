"""The private classifiers: DPLogisticRegression, DPLinearSVC and DPSVC."""

import numpy as np

from .. import _checks
from ..erm import LogisticRegressionDP, svmDP
from ..erm._losses import sigmoid
from ._base import KERNELS, DPBinaryClassifier, store_parameters




# --------------------------------------------------------------------------------------------
# The estimators
# --------------------------------------------------------------------------------------------


class DPLogisticRegression(DPBinaryClassifier):
    """Differentially private logistic regression (:class:`dppack.LogisticRegressionDP`) as a
    scikit-learn classifier.

    Parameters
    ----------
    eps : float, default 1.0
        Privacy budget of one fit, > 0; ``math.inf`` fits without noise (not private).
    gamma : float, default 1.0
        Regularisation, > 0: the penalty is (gamma / n) ||coef||^2 / 2.
    feature_bounds : (lower, upper)
        Bounds on the features (numbers, or one per feature), chosen without the data
        (required); X is clipped to them.
    perturbation_method : {'objective', 'output'}, default 'objective'
    fit_intercept : bool, default True
        DPpack's ``add_bias``.
    classes : sequence of two labels, optional
        The public label set (negative, positive), chosen without the data; ``classes[1]``
        is the positive class. Default: from y's type, never its values (a Categorical's two
        categories, (False, True) for bool y, (0, 1) for numeric y); strings need it.
    sample_weight_bound : float, optional
        The public bound W > 0 on the sample weights (larger ones are clipped), required with
        ``sample_weight``; every fit is then calibrated to it (Chaudhuri, Monteleoni and
        Sarwate 2011, Corollary 8 and Theorem 9, sensitivity scaled by W).
    random_state : None, int or NumPy Generator, default None
    accountant : dppack.BudgetAccountant or None, default None
        Charged eps per fit; None: the session's accountant, if any. Shared, not copied, by
        ``clone``. Labels, weights, tuning costs: :doc:`/guide/sklearn-estimators`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The public label set; ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (1, n_features)
        Coefficients on the scale of the raw features.
    intercept_ : ndarray of shape (1,)
        0 without ``fit_intercept``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had column names.
    privacy_ : dppack.PrivacyLoss or None
        What the fit spent, ``PrivacyLoss.pure(eps)`` (None with ``eps = inf``).

    Raises
    ------
    ValueError
        From ``fit``, before any noise is drawn: missing or malformed ``feature_bounds``, y
        without a public label set or outside it, bad hyper-parameters or weights,
        ``sample_weight`` without ``sample_weight_bound``, an overspend of the accountant.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (output and objective perturbation).
    Giddens and Liu (2023), DPpack reference manual, ``LogisticRegressionDP``.

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

    Without ``classes``, string labels are refused (they have no public label set):

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
        store_parameters(self, locals())

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
            Weights >= 0 and finite, one per row; needs ``sample_weight_bound``. The
            objective is (1/n) sum_i w_i loss_i + the penalty, n the number of rows.
        """
        return self._fit(X, y, sample_weight)

    def predict_proba(self, X):
        """Probabilities of ``classes_[0]`` and ``classes_[1]``, shape (n_samples, 2)."""
        positive = sigmoid(self.decision_function(X))  # the core's, without overflow
        return np.column_stack([1.0 - positive, positive])

    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class _DPSVMBase(DPBinaryClassifier):
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
    """Differentially private linear support vector machine (:class:`dppack.svmDP`, linear
    kernel) as a scikit-learn classifier; no ``predict_proba``.

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
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Section 3.4 (the Huber hinge loss).

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
        store_parameters(self, locals())


class DPSVC(_DPSVMBase):
    """Differentially private support vector machine with a linear or Gaussian kernel
    (:class:`dppack.svmDP`) as a scikit-learn classifier.

    The Gaussian kernel exp(-kernel_param ||x - x'||^2) ('rbf') is approximated by ``D`` random
    Fourier features drawn at each fit; it needs no ``feature_bounds``.

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
        As :class:`DPLinearSVC`.

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
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Section 6 (random features).
    Rahimi and Recht (2007), NeurIPS (random Fourier features).

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
        store_parameters(self, locals())

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
