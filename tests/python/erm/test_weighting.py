"""Weighted private ERM (dppack.erm.weighting) and sample_weight in dppack.sklearn.

* Integer weights equal repeated rows (same seed, so the same noise draw: the minimiser of
  n J does not depend on n), for every model and method, and with eps = inf.
* Weights above the bound W are clipped to W.
* The noise of a weighted fit has the calibrated law: the norm of the noise recovered from
  the released coefficients is Gamma(d, rate) with the rate of dppack.erm.weighting (output
  perturbation: released minus non-private coefficients; objective perturbation: b from the
  first-order condition at the released minimiser; KST: the drawn noise, _noise), checked with a KS
  test at level 1e-3 (the false-failure rate of each KS test, fixed seeds).
* Malformed weights are refused before any noise is drawn (on Dask too, from the first
  pass, nothing charged); all-zero weights are accepted.
* Deterministic pins of every constant where W enters (eps', Delta, the noise rates; KST's
  Delta_ = 2 W lambda / eps), of the generic KST model's and WeightedERMDP_CMS's weighted
  value and gradient, and of absent weights with a bound below 1 (min(1, W)). The tests
  other than the KS tests draw nothing that an assertion depends on: no false failures.

The privacy audit of weighted fits is tests/privacy/test_audit_weighting.py.
"""

import math
import re

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack.erm import _cms, cms
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


def _objective_only(monkeypatch):
    """KST fits without the approximate-minima release step (dppack.erm._approximate): its
    budget split and radius depend on n, so a weighted fit and its repeated rows differ by
    the release; the objective's weighting is what the equivalence tests compare."""
    from dppack.erm import _kst_framework, kst

    monkeypatch.setattr(kst.EmpiricalRiskMinimizationDP_KST, "_noise_ratio",
                        lambda self, *args: 0.0)
    monkeypatch.setattr(_kst_framework, "release",
                        lambda values, sensitivity, eps, rng, standard=None:
                        np.asarray(values, dtype=np.float64))


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
def test_integer_weights_equal_repeated_rows_linear_regression(eps, monkeypatch):
    _objective_only(monkeypatch)
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
    # released - non-private = Z / scale, Z per-coordinate (discrete, on a grid 2^-21 of the
    # scale) Laplace of scale sqrt(d) S / eps, S = 2 W (1 + tau) / gamma
    X, y, w = classification(n=60)
    w = np.minimum(w, W)
    # the non-private fit at the same gamma = 2
    exact = fit_weighted(cms_model("logistic", "output", math.inf, 2.0), X, y, *BOUNDS,
                         weights=w, weights_upper_bound=W).coeff
    _, _, scale = scaled_design(cms_model("logistic", "output"), X, y)
    rng = np.random.default_rng(11)
    noise = np.array([(fit_weighted(cms_model("logistic", "output", 1.0, 2.0), X, y,
                                    *BOUNDS, weights=w, weights_upper_bound=W,
                                    random_state=rng).coeff - exact) * scale
                      for _ in range(300)])
    S = 2.0 * W * (1.0 + cms.OPTIMALITY_SLACK) / 2.0
    assert stats.kstest(noise.ravel(), stats.laplace(scale=math.sqrt(2) * S).cdf
                        ).pvalue > KS_LEVEL


@pytest.mark.parametrize("name", ["logistic", "svm"])
def test_objective_perturbation_noise_scale(name):
    # b recovered from the first-order condition at the released minimiser theta (scaled
    # problem): b = -(sum_i w_i l'_i x_i + (gamma + n Delta) theta); ||b|| ~ Gamma(d,
    # eps' / (2 W)), eps' with c W in place of c, at eps_1 = eps (1 - 2^-10) (approximate
    # minima perturbation; the release noise, about 1e-3 of b, is below the KS resolution).
    # gamma = 3: the logistic loss (c = 1/4) keeps Delta = 0, the Huber loss (c = 1) needs
    # Delta > 0 (eps'(0) < eps_1 / 2)
    W, eps, gamma = 3.0, 2.0, 3.0
    eps_1 = eps * (1 - 2 ** -10)
    X, y, w = classification(n=60)
    model = cms_model(name, "objective", eps, gamma)
    Xs, ys, scale = scaled_design(model, X, y)
    n = Xs.shape[0]
    margin = dppack.erm._losses.logistic() if name == "logistic" else \
        dppack.erm._losses.huber(0.5)
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
    eps_prime, _ = cms.objective_perturbation_parameters(eps_1, gamma, model.c, n, 1.0, W)
    assert fitted.eps_prime_ == pytest.approx(eps_prime)
    assert fitted.privacy_ == dppack.PrivacyLoss.pure(eps)
    cW = model.c * W  # c W in place of c (Chaudhuri et al. 2011, Thm 9, weighted)
    first = eps_1 - math.log1p(2 * cW / gamma + (cW / gamma) ** 2)
    # the extra-regularisation branch whenever it leaves more for the noise (eps_1 / 2)
    assert (first > eps_1 / 2) == (name == "logistic")
    if first > eps_1 / 2:  # logistic: c = 1/4
        assert eps_prime == pytest.approx(first) and fitted.Delta_ == 0
    else:  # Huber, h = 0.5: c = 1, so Delta > 0 and eps' = eps_1/2
        assert eps_prime == pytest.approx(eps_1 / 2)
        assert fitted.Delta_ == pytest.approx(cW / (n * math.expm1(eps_1 / 4)) - gamma / n)
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
        norms.append(np.linalg.norm(model._noise))
    p = 2
    zeta = 2 * p ** 1.5
    eps = eps - model.release_eps_  # eps_1 (the same n in every fit: the same split)
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

    monkeypatch.setattr(_cms, "perturbation_noise", no_draw)
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


def test_sklearn_linear_regression_weights(monkeypatch):
    _objective_only(monkeypatch)
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
    for bad, message in ((-w, "sample_weight must be nonnegative."),
                         (np.where(w > 2, np.nan, w), "sample_weight must not contain NaN."),
                         (np.where(w > 2, np.inf, -w), "sample_weight must be finite")):
        for estimator in (ESTIMATORS[0], ESTIMATORS[3], DPLinearRegression(
                feature_bounds=(-1, 1), y_bounds=(-1, 1), sample_weight_bound=3.0)):
            with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
                clone(estimator).fit(X, y, sample_weight=bad)


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
    with pytest.raises(ValueError, match="sample_weight must be nonnegative"):
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


@pytest.mark.parametrize("method", ["objective", "output"])
@pytest.mark.parametrize("name", ["logistic", "svm", "gaussian"])
def test_dask_infinite_weights_refused_by_the_first_pass(name, method):
    # +-Inf weights on Dask: the in-memory message from the first pass (the checks), before
    # the Gaussian kernel's features or any noise are drawn and before any charge; X's
    # errors first, as in memory. (Planted: no w_inf count in dask._erm._CHECKS; the Gaussian
    # paths then fail in the solver's pass, after the draws.)
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from generator_checks import untouched_generator

    X, y, w = classification()
    bad_x = X.copy()
    bad_x[-3, 1] = np.nan
    cases = [(X, np.where(np.arange(y.size) == y.size - 3, np.inf, w), "weights must be finite"),
             (X, np.where(np.arange(y.size) == 7, -np.inf, w), "weights must be finite"),
             (bad_x, np.full(y.size, np.inf), "X must be finite")]
    for features, weights, message in cases:
        for kind in ("memory", "array", "frame"):  # in memory: the same message
            data = (features, y, weights)
            if kind == "array":
                data = (da.from_array(features, chunks=(40, 2)), da.from_array(y, chunks=40),
                        da.from_array(weights, chunks=40))
            elif kind == "frame":  # one Dask DataFrame's columns (reduced by partition)
                frame = dd.from_pandas(pd.DataFrame({"a": features[:, 0], "b": features[:, 1],
                                                     "y": y, "w": weights}), npartitions=3)
                data = (frame[["a", "b"]], frame["y"], frame["w"])
            budget = dppack.BudgetAccountant(5.0)
            with untouched_generator(0) as rng, pytest.raises(ValueError, match=message):
                fit_weighted(cms_model(name, method), *data[:2], *BOUNDS, weights=data[2],
                             weights_upper_bound=3.0, random_state=rng, accountant=budget)
            assert budget.ledger == []


# --------------------------------------------------------------------------------------------
# The KST framework and WeightedERMDP_CMS: deterministic pins
# --------------------------------------------------------------------------------------------


def kst_ball_model(eps=1.0, loss=None):
    """The KST docstring's least squares over the unit ball (rows in [-0.5, 0.5]^2, labels in
    [-1, 1]: zeta = 1.25, lambda = 0.5)."""
    ball = {"constraints": lambda c: np.dot(c, c) - 1.0,
            "jacobian": lambda c: 2.0 * np.asarray(c)}
    return dppack.EmpiricalRiskMinimizationDP_KST(
        dppack.mapXy_linear, loss or dppack.loss_squared_error, "l2", eps=eps, delta=0.0,
        domain=ball, zeta=1.25, lambda_=0.5, gamma=1.0, mapXy_gr=dppack.mapXy_gr_linear,
        loss_gr=dppack.loss_gr_squared_error)


def kst_data():
    X, _, w = classification()
    X = 0.5 * X
    y = np.clip(X @ [1.0, -0.5] + 0.1 * np.sin(3.1 * np.arange(y_size := X.shape[0])), -1, 1)
    return X, y, w, ([0.5, 0.5, 1.0], [-0.5, -0.5, -1.0])


@pytest.mark.parametrize("W", [0.5, 1.0, 4.0])
def test_kst_delta_is_2_W_lambda_over_eps(W):
    # Kifer, Smith and Thakurta (2012), Theorem 2 with the weighted loss's constants W zeta
    # and W lambda (dppack.erm.weighting): Delta = 2 W lambda / eps. Dropping W from lambda
    # alone leaves the noise unchanged (eps_b depends on lambda / Delta only) and leaks
    # (true eps about 1.69 for a claimed 1 at W = 4): this pin is what catches it.
    # Deterministic.
    eps = 2.0
    X, y, w, bounds = kst_data()
    generic = fit_weighted(kst_ball_model(eps), X, y, *bounds, weights=w,
                           weights_upper_bound=W, random_state=1)
    # eps_1 = eps - eps_2 of approximate minima perturbation (dppack.erm._approximate)
    assert generic.Delta_ == pytest.approx(2 * W * 0.5 / (eps - generic.release_eps_),
                                           rel=1e-12)
    regression = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X, y, *bounds,
                              add_bias=True, weights=w, weights_upper_bound=W,
                              random_state=1)
    p = 3  # the bias column and X's two: lambda = p (dppack.erm.kst.LinearRegressionDP)
    assert regression.lambda_ == p
    assert regression.Delta_ == pytest.approx(2 * W * p / (eps - regression.release_eps_),
                                              rel=1e-12)
    # without weights: W = 1 (DPpack's fit), and eps = Inf: Delta = 0
    plain = dppack.LinearRegressionDP("l2", eps, 0.0, 1.0).fit(X, y, *bounds, True,
                                                              random_state=1)
    assert plain.Delta_ == pytest.approx(2 * p / (eps - plain.release_eps_), rel=1e-12)
    exact = fit_weighted(kst_ball_model(math.inf), X, y, *bounds, weights=w,
                         weights_upper_bound=W)
    assert exact.Delta_ == 0.0


@pytest.mark.parametrize("model, gradient", [  # output perturbation needs the gradient
    ("kst", True), ("kst", False), ("cms-output", True), ("cms-objective", True),
    ("cms-objective", False)])
def test_generic_models_integer_weights_equal_repeated_rows(model, gradient, monkeypatch):
    # The weighted value and gradient of the generic KST model and of WeightedERMDP_CMS
    # (the user's loss, weighted): integer weights give the fit of repeated rows (same seed,
    # same noise; n J does not depend on n), and differ from the unweighted fit. Without
    # gradient functions the solver sees the value alone (a plant in the value only is
    # found there). Deterministic up to the solvers' tolerances.
    X, y, w, bounds = kst_data()
    if model == "kst":
        _objective_only(monkeypatch)

        def make():
            model = kst_ball_model(1.0)
            if not gradient:
                model.loss_gr = None
            return model
        bounds_ = bounds
    else:
        y = np.where(y > 0, 1.0, -1.0)
        method = model.split("-")[1]

        def make():
            return dppack.WeightedERMDP_CMS(
                dppack.mapXy_linear, dppack.generate_loss_huber(0.5), "l2", eps=1.0,
                gamma=1.0, perturbation_method=method, c=1.0, mapXy_gr=dppack.mapXy_gr_linear,
                loss_gr=dppack.generate_loss_gr_huber(0.5) if gradient else None)
        bounds_ = ([0.5, 0.5], [-0.5, -0.5])
    rows = np.repeat(np.arange(y.size), w.astype(int))
    weighted = fit_weighted(make(), X, y, *bounds_, weights=w, weights_upper_bound=3.0,
                            random_state=4)
    repeated = fit_weighted(make(), X[rows], y[rows], *bounds_, weights_upper_bound=3.0,
                            random_state=4)
    ones = fit_weighted(make(), X, y, *bounds_, weights_upper_bound=3.0, random_state=4)
    assert np.allclose(weighted.coeff, repeated.coeff, rtol=0, atol=1e-5 if gradient else 1e-4)
    assert not np.allclose(weighted.coeff, ones.coeff, rtol=0, atol=1e-2)


def test_kst_user_loss_returning_one_value():
    # DPpack's KST takes sum(loss(y_hat, y)) / n whatever the loss returns: a loss that
    # returns the sum itself gives the fit of the per-row loss (as before sample weights);
    # with weights, one value per row is required (a weight per value), before the fit
    # returns. Deterministic.
    X, y, w, bounds = kst_data()

    def summed(y_hat, target):
        return np.sum(dppack.loss_squared_error(y_hat, target))

    per_row = kst_ball_model(1.0).fit(X, y, *bounds, random_state=2)
    scalar = kst_ball_model(1.0, summed).fit(X, y, *bounds, random_state=2)
    assert np.allclose(per_row.coeff, scalar.coeff, rtol=0, atol=1e-6)
    theta = np.array([0.3, -0.2])
    value, _ = scalar._data_loss(X, y)
    assert value(theta) == pytest.approx(summed(X @ theta, y) / y.size, rel=1e-12)
    with pytest.raises(ValueError, match=r"loss returned 1 values where 120 \(one per row"):
        fit_weighted(kst_ball_model(1.0, summed), X, y, *bounds, weights=w,
                     weights_upper_bound=3.0, random_state=2)


@pytest.mark.parametrize("case", ["logistic-objective-delta", "logistic-objective",
                                  "logistic-output", "linear-regression"])
def test_weighted_calibration_pins(case, monkeypatch):
    # Deterministic pins of every constant where W enters, computed here from the papers'
    # formulas with W written out (the randomised audits of
    # tests/privacy/test_audit_weighting.py have little power for some of them: a missing
    # W in the weighted logistic objective perturbation or in KST linear regression passes
    # them). Objective perturbation: Chaudhuri, Monteleoni and Sarwate (2011), Theorem 9
    # and Algorithm 2 with c W in place of c: eps' = eps - log(1 + 2 c W / gamma +
    # (c W / gamma)^2), or, when that is <= 0, eps' = eps / 2 and Delta = c W / (n (e^(eps/4)
    # - 1)) - gamma / n; noise rate eps' / (2 W). Output perturbation (their Corollary 8,
    # Theorem 6): rate gamma eps / (2 W (1 + tau)). KST (Kifer, Smith and Thakurta 2012,
    # Theorem 2, delta = 0): Delta = 2 W lambda / eps, rate (eps - log(1 + eps/2)) /
    # (2 W zeta), zeta = 2 p^(3/2), lambda = p. The rates are those the fit hands to the
    # noise functions (recorded, then drawn as usual). No randomness in the assertions.
    rates = []
    if case == "linear-regression":
        original = dppack._random.l2_laplace

        def recording(d, rate, rng, size=None):
            rates.append(rate)
            return original(d, rate, rng, size)

        monkeypatch.setattr(dppack._random, "l2_laplace", recording)
        W, eps, p = 4.0, 1.0, 3
        X, y, w, bounds = kst_data()
        model = fit_weighted(dppack.LinearRegressionDP("l2", eps, 0.0, 1.0), X, y, *bounds,
                             add_bias=True, weights=w, weights_upper_bound=W, random_state=1)
        eps = eps - model.release_eps_  # eps_1 of approximate minima perturbation
        assert model.Delta_ == pytest.approx(2 * W * p / eps, rel=1e-12)
        zeta = 2 * p ** 1.5
        assert rates == [pytest.approx((eps - math.log1p(eps / 2)) / (2 * W * zeta),
                                       rel=1e-12)]
        return
    original = cms.perturbation_noise

    def recording(d, rate, rng, noise=None):
        rates.append(rate)
        return original(d, rate, rng, noise)

    monkeypatch.setattr(_cms, "perturbation_noise", recording)
    method = case.split("-")[1]
    W, eps, gamma = (4.0, 1.0, 1.0) if case.endswith("delta") else (2.0, 2.0, 1.0)
    X, y, w = classification()
    n, c = y.size, 0.25  # the logistic loss: c = 1/4; rows scaled into the unit ball (B = 1)
    model = fit_weighted(dppack.LogisticRegressionDP("l2", eps, gamma, method), X, y,
                         *BOUNDS, weights=w, weights_upper_bound=W, random_state=1)
    if method == "output":
        # no l2-Laplace draw: the exact release at L2 sensitivity 2 W (1 + tau) / gamma
        assert rates == []
        assert model.release_sensitivity_ == pytest.approx(
            2 * W * (1 + cms.OPTIMALITY_SLACK) / gamma, rel=1e-12)
        return
    cW = c * W
    eps = eps * (1 - 2 ** -10)  # eps_1 of approximate minima perturbation
    first = eps - math.log(1 + 2 * cW / gamma + (cW / gamma) ** 2)
    if case.endswith("delta"):
        assert first <= 0  # the case of Delta > 0
        eps_prime, Delta = eps / 2, cW / (n * math.expm1(eps / 4)) - gamma / n
    else:
        assert first > 0
        eps_prime, Delta = first, 0.0
    assert model.eps_prime_ == pytest.approx(eps_prime, rel=1e-12)
    assert model.Delta_ == pytest.approx(Delta, rel=1e-12, abs=1e-15)
    assert rates == [pytest.approx(eps_prime / (2 * W), rel=1e-12)]


def test_absent_weights_are_one_clipped_to_a_bound_below_one():
    # weights_upper_bound W < 1 without weights: every weight is min(1, W) = W (clipped like
    # any weight, so no record exceeds the calibration's bound), in the core and in the
    # scikit-learn estimators. Deterministic (same seed, same noise).
    X, y, _ = classification()
    W = 0.5
    for method in ("objective", "output"):
        absent = fit_weighted(cms_model("logistic", method), X, y, *BOUNDS,
                              weights_upper_bound=W, random_state=3)
        clipped = fit_weighted(cms_model("logistic", method), X, y, *BOUNDS,
                               weights=np.full(y.size, W), weights_upper_bound=W,
                               random_state=3)
        assert np.array_equal(absent.coeff, clipped.coeff)
    est = DPLogisticRegression(feature_bounds=(-1, 1), sample_weight_bound=W, random_state=0)
    assert np.array_equal(clone(est).fit(X, y).coef_,
                          clone(est).fit(X, y, sample_weight=np.full(y.size, W)).coef_)


def test_dask_weights_with_in_memory_data_err_alike():
    # LogisticRegressionDP and svmDP refuse Dask weights beside X in memory with the same
    # message (the Dask path's), before anything is drawn. Deterministic.
    da = pytest.importorskip("dask.array")
    from generator_checks import untouched_generator

    X, y, w = classification()
    lazy = da.from_array(w, chunks=40)
    for method in ("objective", "output"):
        for name in ("logistic", "svm"):
            with untouched_generator(0) as rng, pytest.raises(
                    TypeError, match="^X must be a Dask collection when y or weights is one"):
                fit_weighted(cms_model(name, method), X, y, *BOUNDS, weights=lazy,
                             weights_upper_bound=3.0, random_state=rng)
