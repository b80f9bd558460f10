"""The private linear regressions: DPLinearRegression and DPLinearRegressionAdaSSP."""

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _backends
from ..erm import LinearRegressionAdaSSP, LinearRegressionDP
from ..erm.weighting import fit_weighted
from ._base import (DPEstimator, as_float_matrix, bound_pair, check_sample_weight,
                    fit_within_budget, privacy_loss, sample_weight_bound, store_parameters)




class DPLinearRegression(RegressorMixin, DPEstimator):
    """Differentially private linear regression (:class:`dppack.LinearRegressionDP`) as a
    scikit-learn regressor.

    Parameters
    ----------
    eps : float, default 1.0
        > 0; ``math.inf`` fits without noise (not private).
    delta : float, default 0.0
        0 for eps-DP, in (0, 1) for (eps, delta)-DP with Gaussian noise.
    gamma : float, default 1.0
        Regularisation, > 0 (penalty (gamma / n) ||coef||^2 / 2 of the scaled problem).
    feature_bounds : (lower, upper)
        Bounds on the features (required). They also cap the coefficients
        (:doc:`/guide/sklearn-estimators`).
    y_bounds : (lower, upper)
        Bounds on the target, two numbers (required); y is clipped to them.
    fit_intercept : bool, default True
    sample_weight_bound : float, optional
        As :class:`DPLogisticRegression`: the public bound W on the weights (Kifer, Smith and
        Thakurta 2012, Theorem 2, constants scaled by W).
    random_state : None, int or NumPy Generator, default None
    accountant : dppack.BudgetAccountant or None, default None
        Charged (eps, delta) per fit; None: the session's accountant, if any.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        0.0 without ``fit_intercept``.
    n_features_in_, feature_names_in_ :
        As :class:`DPLogisticRegression`.
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)`` (None with ``eps = inf``).

    Raises
    ------
    ValueError
        From ``fit``, before any noise is drawn: missing or malformed ``feature_bounds`` or
        ``y_bounds``, bad hyper-parameters, an overspend of the accountant.

    References
    ----------
    Kifer, Smith and Thakurta (2012), COLT, Theorem 2 (objective perturbation).
    Giddens and Liu (2023), DPpack reference manual, ``LinearRegressionDP``.

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
        store_parameters(self, locals())

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
        return privacy_loss(float(core.eps), float(core.delta))

    def _y_bounds(self):
        lower, upper = bound_pair(self.y_bounds, "y_bounds", type(self).__name__,
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
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()
        self._feature_bounds(None)
        self._y_bounds()
        bound = sample_weight_bound(self, sample_weight)

        def read(X, y, sample_weight):
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
            weights = check_sample_weight(sample_weight, X.shape[0])
            upper, lower = self._bound_vectors(X.shape[1])

            def draw(rng, _):
                fit_weighted(core, X, y, upper, lower, add_bias=fit_intercept,
                             weights=weights, weights_upper_bound=bound, random_state=rng,
                             accountant=self.accountant)
                self._set_coefficients(core, fit_intercept)
                self.privacy_ = core.privacy_
                return self

            return draw

        return fit_within_budget(self, lambda: self._privacy_loss(core), read,
                                 (X, y, sample_weight), random_state)

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
        X = as_float_matrix(self, X, reset=False)
        return X @ self.coef_ + self.intercept_


class DPLinearRegressionAdaSSP(RegressorMixin, DPEstimator):
    """Differentially private linear regression by AdaSSP (:class:`dppack.LinearRegressionAdaSSP`,
    Wang 2018: noisy sufficient statistics and an adaptive ridge) as a scikit-learn regressor.

    Parameters
    ----------
    eps : float, default 1.0
        > 0; ``math.inf`` fits least squares without noise (not private).
    delta : float, default 0.0
        0 for eps-DP, in (0, 1) for (eps, delta)-DP (discrete Gaussian noise).
    feature_bounds, y_bounds, fit_intercept, random_state, accountant :
        As :class:`DPLinearRegression`. No sample weights.

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
        store_parameters(self, locals())

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
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y, sample_weight)
        random_state, fit_intercept = self._check_common()
        core = self._core_model()
        self._feature_bounds(None)
        self._y_bounds()
        if sample_weight is not None:
            raise ValueError(f"{type(self).__name__} does not take sample_weight.")

        def read(X, y):
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
            upper, lower = self._bound_vectors(X.shape[1])

            def draw(rng, _):
                core.fit(X, y, upper, lower, add_bias=fit_intercept, random_state=rng,
                         accountant=self.accountant)
                self._set_coefficients(core, fit_intercept)
                self.privacy_ = core.privacy_
                return self

            return draw

        return fit_within_budget(self, lambda: self._privacy_loss(core), read, (X, y),
                                 random_state)
