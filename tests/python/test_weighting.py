"""Weighted private ERM (dppack.erm.weighting) and sample_weight in dppack.sklearn.

* Integer weights equal repeated rows (same seed, so the same noise draw: the minimiser of
  n J does not depend on n), for every model and method, and with eps = inf.
* Weights above the bound W are clipped to W.
* The noise of a weighted fit has the calibrated law: the norm of the noise recovered from
  the released coefficients is Gamma(d, rate) with the rate of dppack.erm.weighting (output
  perturbation: released minus non-private coefficients; objective perturbation: b from the
  first-order condition at the released minimiser; KST: the drawn noise_), checked with a KS
  test at level 1e-3 (the false-failure rate of each KS test, fixed seeds).
* Malformed weights are refused before any noise is drawn; all-zero weights are accepted.

The privacy audit of weighted fits is tests/privacy/test_audit_weighting.py.
"""

import math

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack.erm import cms
from dppack.erm.weighting import fit_weighted

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402

from dppack.sklearn import (  # noqa: E402
    DPLinearRegression,
    DPLinearSVC,
    DPLogisticRegression,
    DPSVC,
)

KS_LEVEL = 1e-3


def classification(n=120, seed=3):
    t = np.arange(n)
    X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * np.sin(5.3 * t) > 0).astype(float)
    w = np.random.default_rng(seed).integers(0, 4, n).astype(float)
    return X, y, w


def cms_model(name, method, eps=1.0, gamma=1.0):
    if name == "logistic":
        return dppack.LogisticRegressionDP("l2", eps, gamma, method)
    if name == "svm":
        return dppack.svmDP("l2", eps, gamma, method)
    return dppack.svmDP("l2", eps, gamma, method, kernel="Gaussian", D=10, kernel_param=1.0)


BOUNDS = ([1.0, 1.0], [-1.0, -1.0])


# --------------------------------------------------------------------------------------------
# Integer weights = repeated rows
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1.0, math.inf])
@pytest.mark.parametrize("method", ["objective", "output"])
@pytest.mark.parametrize("name", ["logistic", "svm", "gaussian"])
def test_integer_weights_equal_repeated_rows(name, method, eps):
    X, y, w = classification()
    rows = np.repeat(np.arange(y.size), w.astype(int))
    weighted = fit_weighted(cms_model(name, method, eps), X, y, *BOUNDS, add_bias=True,
                            weights=w, weights_upper_bound=3.0, random_state=5)
    repeated = fit_weighted(cms_model(name, method, eps), X[rows], y[rows], *BOUNDS,
                            add_bias=True, weights_upper_bound=3.0, random_state=5)
    assert np.allclose(weighted.coeff, repeated.coeff, rtol=0, atol=1e-7)


@pytest.mark.parametrize("eps", [1.0, math.inf])
def test_integer_weights_equal_repeated_rows_linear_regression(eps):
    X, _, w = classification()
    y = 0.3 * X[:, 0] - 0.2 * X[:, 1] + 0.1 * np.sin(np.arange(y_size := X.shape[0]))
    rows = np.repeat(np.arange(y_size), w.astype(int))
    bounds = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])
    weighted = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X, y, *bounds,
                            add_bias=True, weights=w, weights_upper_bound=3.0, random_state=5)
    repeated = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X[rows], y[rows],
                            *bounds, add_bias=True, weights_upper_bound=3.0, random_state=5)
    assert np.allclose(weighted.coeff, repeated.coeff, rtol=0, atol=1e-7)
    # the weights matter: the unweighted fit differs
    plain = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X, y, *bounds,
                         add_bias=True, weights_upper_bound=3.0, random_state=5)
    assert not np.allclose(weighted.coeff, plain.coeff, rtol=0, atol=1e-4)


def test_weights_matter_and_no_weights_is_the_plain_fit():
    X, y, w = classification()
    plain = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(X, y, *BOUNDS, random_state=2)
    same = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X, y, *BOUNDS,
                        random_state=2)
    assert np.array_equal(plain.coeff, same.coeff)
    weighted = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X, y, *BOUNDS,
                            weights=w, weights_upper_bound=3.0, random_state=2)
    assert not np.allclose(weighted.coeff, plain.coeff, atol=1e-3)


def test_weights_above_the_bound_are_clipped():
    X, y, w = classification()
    big = np.where(w == 3, 50.0, w)
    for method in ("objective", "output"):
        clipped = fit_weighted(cms_model("logistic", method), X, y, *BOUNDS, weights=big,
                               weights_upper_bound=3.0, random_state=1)
        exact = fit_weighted(cms_model("logistic", method), X, y, *BOUNDS, weights=w,
                             weights_upper_bound=3.0, random_state=1)
        assert np.array_equal(clipped.coeff, exact.coeff)
    reg = [fit_weighted(dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0), X, X[:, 0],
                        [1, 1, 1], [-1, -1, -1], weights=weights, weights_upper_bound=3.0,
                        random_state=1).coeff for weights in (big, w)]
    assert np.array_equal(*reg)


def test_caller_weights_not_modified():
    X, y, w = classification()
    before = w.copy()
    fit_weighted(cms_model("svm", "objective"), X, y, *BOUNDS, weights=w,
                 weights_upper_bound=1.0, random_state=1)
    assert np.array_equal(w, before)


# --------------------------------------------------------------------------------------------
# The noise has the calibrated law (KS tests)
# --------------------------------------------------------------------------------------------


def ks_gamma(norms, d, rate):
    return stats.kstest(norms, stats.gamma(d, scale=1.0 / rate).cdf).pvalue


def scaled_design(model, X, y):
    """The model's clipped, scaled design and labels (its own preprocessing)."""
    pre = model._preprocess_data(X, y, *BOUNDS, False)
    return pre["X"], pre["y"], pre["scale"]


@pytest.mark.parametrize("W", [1.0, 4.0])
def test_output_perturbation_noise_scale(W):
    # released - non-private = b / scale, ||b|| ~ Gamma(d, gamma eps / (2 W (1 + tau)))
    X, y, w = classification(n=60)
    w = np.minimum(w, W)
    exact = fit_weighted(cms_model("logistic", "output", math.inf), X, y, *BOUNDS,
                         weights=w, weights_upper_bound=W).coeff
    _, _, scale = scaled_design(cms_model("logistic", "output"), X, y)
    rng = np.random.default_rng(11)
    norms = [np.linalg.norm((fit_weighted(cms_model("logistic", "output", 1.0, 2.0), X, y,
                                          *BOUNDS, weights=w, weights_upper_bound=W,
                                          random_state=rng).coeff - exact) * scale)
             for _ in range(300)]
    rate = 2.0 * 1.0 / (2.0 * W * (1.0 + cms.OPTIMALITY_SLACK))
    assert ks_gamma(norms, 2, rate) > KS_LEVEL


@pytest.mark.parametrize("name", ["logistic", "svm"])
def test_objective_perturbation_noise_scale(name):
    # b recovered from the first-order condition at the released minimiser theta (scaled
    # problem): b = -(sum_i w_i l'_i x_i + (gamma + n Delta) theta); ||b|| ~ Gamma(d,
    # eps' / (2 W)), eps' with c W in place of c.
    W, eps, gamma = 3.0, 2.0, 1.0
    X, y, w = classification(n=60)
    model = cms_model(name, "objective", eps, gamma)
    Xs, ys, scale = scaled_design(model, X, y)
    n = Xs.shape[0]
    margin = dppack.erm.losses.logistic() if name == "logistic" else \
        dppack.erm.losses.huber(0.5)
    signed = 2.0 * ys - 1.0 if name == "logistic" else ys
    rng = np.random.default_rng(12)
    norms = []
    for _ in range(300):
        fitted = fit_weighted(cms_model(name, "objective", eps, gamma), X, y, *BOUNDS,
                              weights=w, weights_upper_bound=W, random_state=rng)
        theta = fitted.coeff * scale
        z = signed * (Xs @ theta)
        gradient = Xs.T @ (w * margin.first(z) * signed)
        b = -(gradient + (gamma + n * fitted.Delta_) * theta)
        norms.append(np.linalg.norm(b))
    eps_prime, _ = cms.objective_perturbation_parameters(eps, gamma, model.c, n, 1.0, W)
    assert fitted.eps_prime_ == pytest.approx(eps_prime)
    cW = model.c * W  # c W in place of c (Chaudhuri et al. 2011, Thm 9, weighted)
    first = eps - math.log1p(2 * cW / gamma + (cW / gamma) ** 2)
    if first > 0:  # logistic: c = 1/4
        assert eps_prime == pytest.approx(first) and fitted.Delta_ == 0
    else:  # Huber, h = 0.5: c = 1, so Delta > 0 and eps' = eps/2
        assert eps_prime == pytest.approx(eps / 2)
        assert fitted.Delta_ == pytest.approx(cW / (n * math.expm1(eps / 4)) - gamma / n)
    assert ks_gamma(norms, 2, eps_prime / (2.0 * W)) > KS_LEVEL


def test_linear_regression_noise_scale():
    # KST: zeta and lambda scaled by W; delta = 0: ||b|| ~ Gamma(p, eps_b / (2 W zeta)),
    # eps_b = eps - log(1 + eps/2), zeta = 2 p^(3/2)
    W, eps = 3.0, 1.0
    X, _, w = classification(n=60)
    y = 0.3 * X[:, 0]
    rng = np.random.default_rng(13)
    norms = []
    for _ in range(300):
        model = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X, y,
                             [1, 1, 1], [-1, -1, -1], weights=w, weights_upper_bound=W,
                             random_state=rng)
        norms.append(np.linalg.norm(model.noise_))
    p = 2
    zeta = 2 * p ** 1.5
    rate = (eps - math.log1p(eps / 2)) / (2 * W * zeta)
    assert ks_gamma(norms, p, rate) > KS_LEVEL


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("weights, message", [
    (-np.ones(120), "Weights must be nonnegative"),
    (np.full(120, np.nan), "NA or NaN"),
    (np.full(120, np.inf), "weights must be finite"),
    (np.ones(119), "one value per row"),
])
def test_malformed_weights_refused_before_noise(weights, message, monkeypatch):
    X, y, _ = classification()

    def no_draw(*args, **kwargs):
        raise AssertionError("noise drawn")

    monkeypatch.setattr(cms, "perturbation_noise", no_draw)
    for model in (cms_model("logistic", "objective"), cms_model("svm", "output")):
        with pytest.raises(ValueError, match=message):
            fit_weighted(model, X, y, *BOUNDS, weights=weights, weights_upper_bound=2.0,
                         random_state=1)


def test_bad_bound_and_unweighted_model_refused():
    X, y, w = classification()
    class Exploding:
        def __array__(self, *args, **kwargs):
            raise AssertionError("data read")

    with pytest.raises(ValueError, match="Upper bound on weights must be given"):
        fit_weighted(cms_model("svm", "objective"), Exploding(), Exploding(), *BOUNDS,
                     weights=w)
    with pytest.raises(ValueError, match="weights.upper.bound"):
        fit_weighted(cms_model("svm", "objective"), X, y, *BOUNDS, weights=w,
                     weights_upper_bound=-1.0)
    base = dppack.EmpiricalRiskMinimizationDP_CMS(
        dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", 1.0, 1.0, "output",
        mapXy_gr=dppack.mapXy_gr_sigmoid, loss_gr=dppack.loss_gr_cross_entropy)
    with pytest.raises(TypeError, match="loss without weights"):
        fit_weighted(base, X, y, *BOUNDS, weights=w, weights_upper_bound=3.0)


def test_dpppack_fit_methods_keep_dpppacks_rules():
    # DPpack's svmDP.fit still refuses weights with objective perturbation (R scripts keep
    # DPpack's behaviour); fit_weighted is the extension
    X, y, w = classification()
    with pytest.raises(ValueError, match="Weighted SVM is only implemented for output"):
        cms_model("svm", "objective").fit(X, y, *BOUNDS, weights=w, weights_upper_bound=3.0)


def test_all_zero_weights_fit_the_penalty_plus_noise():
    X, y, _ = classification()
    zero = np.zeros(y.size)
    exact = fit_weighted(cms_model("logistic", "output", math.inf), X, y, *BOUNDS,
                         weights=zero, weights_upper_bound=1.0)
    assert np.allclose(exact.coeff, 0.0, atol=1e-9)
    noisy = fit_weighted(cms_model("logistic", "objective"), X, y, *BOUNDS, weights=zero,
                         weights_upper_bound=1.0, random_state=1)
    assert np.all(np.isfinite(noisy.coeff))


# --------------------------------------------------------------------------------------------
# scikit-learn estimators
# --------------------------------------------------------------------------------------------


ESTIMATORS = [
    DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=3.0, random_state=0),
    DPLogisticRegression(feature_bounds=(-1, 1), perturbation_method="output",
                         sample_weight_bound=3.0, random_state=0),
    DPLinearSVC(feature_bounds=(-1, 1), sample_weight_bound=3.0, random_state=0),
    DPSVC(D=10, sample_weight_bound=3.0, random_state=0),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_weights_equal_repeated_rows_and_the_core(estimator):
    X, y, w = classification()
    rows = np.repeat(np.arange(y.size), w.astype(int))
    weighted = clone(estimator).fit(X, y, sample_weight=w)
    repeated = clone(estimator).fit(X[rows], y[rows])
    assert np.allclose(weighted.decision_function(X), repeated.decision_function(X),
                       rtol=0, atol=1e-7)
    if isinstance(estimator, DPLogisticRegression):
        core = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0,
                                                        estimator.perturbation_method),
                            X, y, *BOUNDS, add_bias=True, weights=w, weights_upper_bound=3.0,
                            random_state=0)
        assert np.array_equal(np.concatenate([weighted.intercept_, weighted.coef_[0]]),
                              core.coeff)


def test_sklearn_linear_regression_weights():
    X, _, w = classification()
    y = 0.3 * X[:, 0] - 0.2 * X[:, 1]
    reg = DPLinearRegression(feature_bounds=(-1, 1), y_bounds=(-1, 1), sample_weight_bound=3.0,
                             random_state=0)
    rows = np.repeat(np.arange(y.size), w.astype(int))
    a = clone(reg).fit(X, y, sample_weight=w)
    b = clone(reg).fit(X[rows], y[rows])
    assert np.allclose(a.predict(X), b.predict(X), rtol=0, atol=1e-7)


def test_sklearn_weight_checks_before_the_data_are_read():
    X, y, w = classification()

    class Exploding:
        def __array__(self, *args, **kwargs):
            raise AssertionError("data read")

    for estimator in (DPLogisticRegression(feature_bounds=(-1, 1)),
                      DPLinearRegression(feature_bounds=(-1, 1), y_bounds=(-1, 1))):
        with pytest.raises(ValueError, match="sample_weight_bound must be given"):
            estimator.fit(Exploding(), Exploding(), sample_weight=w)
        with pytest.raises(ValueError, match="sample_weight_bound must be a number > 0"):
            clone(estimator).set_params(sample_weight_bound=-1).fit(Exploding(), Exploding())
    with pytest.raises(ValueError, match="one value per row"):
        ESTIMATORS[0].fit(X, y, sample_weight=w[:-1])
    with pytest.raises(ValueError, match="Weights must be nonnegative"):
        clone(ESTIMATORS[0]).fit(X, y, sample_weight=-w)


def test_sklearn_bound_without_weights_is_ones_calibrated_to_the_bound():
    X, y, _ = classification()
    est = DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=3.0, random_state=0)
    a = clone(est).fit(X, y)
    b = clone(est).fit(X, y, sample_weight=np.ones(y.size))
    assert np.array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("kind", ["classification", "regression"])
def test_selector_fits_each_candidate_on_its_weighted_part(kind):
    # the candidates' fits are fit_weighted on their parts (rows i, i + m + 1, ...), one
    # generator in the order of the candidates, as the core tuners do
    from dppack.sklearn import DPModelSelector

    X, y, w = classification(n=300)
    if kind == "classification":
        candidates = [DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=3.0),
                      DPLinearSVC(feature_bounds=(-1, 1), sample_weight_bound=3.0)]
        bounds = BOUNDS
    else:
        y = 0.3 * X[:, 0] - 0.2 * X[:, 1]
        candidates = [DPLinearRegression(feature_bounds=(-1, 1), y_bounds=(-1, 1), gamma=g,
                                         sample_weight_bound=3.0) for g in (0.5, 2.0)]
        bounds = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])
    selector = DPModelSelector(candidates, random_state=0).fit(X, y, sample_weight=w)
    rng = np.random.default_rng(0)
    fits = []
    for i, candidate in enumerate(candidates):
        rows = np.arange(i, y.size, len(candidates) + 1)
        fits.append(fit_weighted(candidate._core_model(), X[rows], y[rows], *bounds,
                                 add_bias=True, weights=w[rows], weights_upper_bound=3.0,
                                 random_state=rng).coeff)
    best = selector.best_estimator_
    coeff = np.concatenate([np.ravel(best.intercept_), np.ravel(best.coef_)])
    assert np.array_equal(coeff, fits[selector.best_index_])
    unweighted = DPModelSelector(candidates, random_state=0).fit(X, y,
                                                                 sample_weight=np.ones(y.size))
    assert not np.array_equal(
        np.ravel(unweighted.best_estimator_.coef_), np.ravel(best.coef_))


def test_selector_needs_one_weight_bound():
    from dppack.sklearn import DPModelSelector

    X, y, w = classification()
    mixed = DPModelSelector([DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=3),
                             DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=2)])
    with pytest.raises(ValueError, match="same sample_weight_bound"):
        mixed.fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight_bound must be given"):
        DPModelSelector([DPLogisticRegression(feature_bounds=(-1, 1))]).fit(
            X, y, sample_weight=w)


def test_selector_refuses_bad_weights_before_spending():
    from dppack.sklearn import DPModelSelector

    X, y, w = classification()
    budget = dppack.BudgetAccountant(10.0)
    selector = DPModelSelector([DPLogisticRegression(feature_bounds=(-1, 1),
                                                     sample_weight_bound=3.0)] * 2,
                               accountant=budget)
    with pytest.raises(ValueError, match="Weights must be nonnegative"):
        selector.fit(X, y, sample_weight=-w)
    assert budget.spent.eps == 0


def test_dask_weighted_logistic_equals_in_memory():
    da = pytest.importorskip("dask.array")
    X, y, w = classification()
    memory = fit_weighted(cms_model("logistic", "objective"), X, y, *BOUNDS, weights=w,
                          weights_upper_bound=3.0, random_state=1)
    lazy = fit_weighted(cms_model("logistic", "objective"), da.from_array(X, chunks=(40, 2)),
                        da.from_array(y, chunks=40), *BOUNDS,
                        weights=da.from_array(w, chunks=40), weights_upper_bound=3.0,
                        random_state=1)
    assert np.allclose(lazy.coeff, memory.coeff, rtol=0, atol=1e-9)
    with pytest.raises(TypeError, match="does not run on Dask"):
        fit_weighted(dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0),
                     da.from_array(X, chunks=(40, 2)), da.from_array(y, chunks=40),
                     [1, 1, 1], [-1, -1, -1], weights=da.from_array(w, chunks=40),
                     weights_upper_bound=3.0)
