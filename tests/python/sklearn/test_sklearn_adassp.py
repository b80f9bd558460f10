"""dppack.sklearn.DPLinearRegressionAdaSSP: scikit-learn's estimator checks (those a private
regressor without sample weights cannot meet listed with their reasons), and bit-identity
with the core model. Fixed seeds only."""

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import dppack  # noqa: E402
from dppack.sklearn import DPLinearRegressionAdaSSP  # noqa: E402

NO_WEIGHTS = ("the sensitivities are those of one unweighted row: sample_weight is refused "
              "rather than ignored")
WEIGHT_CHECKS = [
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_list", "check_sample_weights_shape",
    "check_sample_weights_not_overwritten", "check_sample_weight_equivalence_on_dense_data",
    "check_all_zero_sample_weights_error",
]


def _expected_failures(estimator):
    return {name: NO_WEIGHTS for name in WEIGHT_CHECKS}


@parametrize_with_checks(
    [DPLinearRegressionAdaSSP(feature_bounds=(-4.0, 4.0), y_bounds=(-4.0, 4.0),
                              random_state=0),
     DPLinearRegressionAdaSSP(feature_bounds=(-4.0, 4.0), y_bounds=(-4.0, 4.0), delta=1e-5,
                              fit_intercept=False, random_state=0)],
    expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def _data(n=2000, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 3))
    return X, 0.5 + X @ [1.0, -0.5, 0.25] + 0.05 * rng.standard_normal(n)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_same_coefficients_as_the_core_model(fit_intercept):
    X, y = _data()
    reg = DPLinearRegressionAdaSSP(eps=1.0, feature_bounds=(0, 1), y_bounds=(-1, 3),
                                   fit_intercept=fit_intercept, random_state=4).fit(X, y)
    core = dppack.LinearRegressionAdaSSP(1.0).fit(X, y, [1, 1, 1, 3], [0, 0, 0, -1],
                                                  add_bias=fit_intercept, random_state=4)
    coeff = np.r_[reg.intercept_, reg.coef_] if fit_intercept else reg.coef_
    assert np.array_equal(coeff, core.coeff)
    assert np.array_equal(reg.predict(X[:5]), X[:5] @ reg.coef_ + reg.intercept_)
    assert reg.privacy_ == dppack.PrivacyLoss.pure(1.0)


def test_checks_before_the_data_and_accounting():
    X, y = _data(200)
    with pytest.raises(ValueError, match="feature_bounds"):
        DPLinearRegressionAdaSSP(y_bounds=(0, 1)).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        DPLinearRegressionAdaSSP(feature_bounds=(0, 1), y_bounds=(-1, 3)).fit(
            X, y, sample_weight=np.ones(200))
    accountant = dppack.BudgetAccountant(1.0)
    reg = DPLinearRegressionAdaSSP(eps=0.75, feature_bounds=(0, 1), y_bounds=(-1, 3),
                                   accountant=accountant, random_state=0)
    reg.fit(X, y)
    assert accountant.ledger[0][0] == "LinearRegressionAdaSSP.fit"
    with pytest.raises(ValueError):
        clone(reg).fit(X, y)  # 0.75 more: refused, clones share the accountant
    with pytest.raises(ValueError):
        DPLinearRegressionAdaSSP(eps=math.inf, feature_bounds=(0, 1), y_bounds=(-1, 3),
                                 accountant=accountant).fit(X, y)
    assert "DPLinearRegressionAdaSSP" in dppack.sklearn.__all__
