"""Audits of the beyond-DPpack releases (tests/privacy/README.md): confidence intervals, the
analytic Gaussian ERM, noise reduction, AboveThreshold, stability-based selection, and the
theory baseline of accuracy first.

accuracy_first_erm and doubling_erm are not audited as a whole: their privacy is ex-post
(the eps spent depends on the data through the level at which they stop), so no fixed eps
bounds them. What they are built from is audited instead: Laplace noise reduction (a prefix of
the path costs its last level) and AboveThreshold with fixed queries (eps-DP), the two parts
the ex-post guarantee is proved from (Ligett et al. 2017, Theorem 2.9 and Lemma 2.8). What
they charge an accountant is checked instead: the most they can spend, which bounds the ex-post
loss of every outcome (test_ex_post_methods_charge_their_largest_loss).
"""

import math
import warnings

import numpy as np
import pytest
from scipy import optimize, special

import dppack
from auditor import assert_charged, assert_private

AUDITED = ["confintERM", "confintDP", "OutputPerturbationAGM", "GradientPerturbationAGM",
           "LaplaceNoiseReduction", "LaplaceNoiseReductionOnline", "GaussianNoiseReduction",
           "InteractiveAboveThreshold", "theory_erm", "stable_select",
           "tune_classification_model_stable", "tune_histogram_bin_width_stable"]

#: Releases audited through the parts they are built from (module docstring), or through
#: the public functions that call them with a concrete trainer.
AUDITED_THROUGH = {
    "accuracy_first_erm": ["LaplaceNoiseReduction", "InteractiveAboveThreshold"],
    "doubling_erm": ["InteractiveAboveThreshold", "theory_erm"],
    "tune_stable": ["tune_classification_model_stable", "tune_histogram_bin_width_stable"],
    "validate_stable": ["tune_classification_model_stable", "tune_histogram_bin_width_stable"],
}

CI = dict(n_samples=800, n_pilot=300)
FULL = dict(n_samples=10_000, n_pilot=2_000)


def sizes(ci=CI):
    return [pytest.param(ci, id="ci"),
            pytest.param(FULL, id="full", marks=pytest.mark.audit_full)]


CLS_D0 = (np.array([[1.0], [1.0], [-1.0], [-1.0], [0.5], [1.0]]),
          np.array([1.0, 1.0, 0.0, 0.0, 1.0, 1.0]))
CLS_D1 = (np.array([[1.0], [1.0], [-1.0], [-1.0], [0.5], [-1.0]]), CLS_D0[1])


def _intervals(result):
    return [result.coeff[0], result.lower[0], result.upper[0]]


def zcdp_eps(rho, delta):
    """The eps at delta that an accountant claims for rho-zCDP: the tight conversion of
    Canonne, Kamath and Steinke (2020), Corollary 13 (PrivacyLoss.to_approx), below Bun and
    Steinke's rho + 2 sqrt(rho ln(1/delta)) (2016, Proposition 1.3), which bounds
    it."""
    eps = dppack.PrivacyLoss.zcdp(rho).to_approx(delta).eps
    assert eps <= rho + 2 * math.sqrt(rho * math.log(1 / delta))
    return eps


# --------------------------------------------------------------------------------------------
# Confidence intervals
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", sizes())
@pytest.mark.parametrize("method", ["objective", "output"])
def test_confint_erm_pure(method, size):
    def release(data, rng):
        X, y = data
        return _intervals(dppack.confintERM(X, y, [1.0], [-1.0], 1.0, eps=1.0,
                                            perturbation_method=method, n_draws=50,
                                            random_state=rng))
    assert_private(release, CLS_D0, CLS_D1, 1.0, **size)


@pytest.mark.parametrize("size", sizes())
def test_confint_dp_zcdp(size):
    rho, delta = 0.5, 1e-3

    def release(data, rng):
        X, y = data
        model = dppack.svmDP("l2", 1.0, 5.0, "output")
        return _intervals(dppack.confintDP(model, X, y, [1.0], [-1.0], rho=rho, n_draws=50,
                                           random_state=rng))
    assert_private(release, CLS_D0, CLS_D1, zcdp_eps(rho, delta), delta, **size)


# --------------------------------------------------------------------------------------------
# ERM with the analytic Gaussian mechanism
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model, loss, size", [
    pytest.param(model, loss, size.values[0], id=f"{name}-{size.id}", marks=size.marks)
    for model, loss, name, ci in [
        # output perturbation solves to high accuracy: its fits cost the most
        (dppack.OutputPerturbationAGM, "logistic", "output", dict(n_samples=300, n_pilot=100)),
        (dppack.GradientPerturbationAGM, "huber", "gradient", CI),
    ]
    for size in sizes(ci)
])
def test_analytic_gaussian_erm(model, loss, size):
    def release(data, rng):
        X, y = data
        return model(loss, 1.0, 1e-3, 1.0).fit(X, y, [1.0], [-1.0], random_state=rng).coeff
    assert_private(release, CLS_D0, CLS_D1, 1.0, 1e-3, **size)


# --------------------------------------------------------------------------------------------
# Noise reduction
# --------------------------------------------------------------------------------------------

LEVELS = np.array([0.25, 0.5, 1.0])
#: the log-likelihood-ratio direction of three independent Laplace releases: if the path's
#: releases were independent, this statistic would show their summed eps (1.75 > 1)
LLR = LEVELS


def _path_projection(path):
    path = np.asarray(path, dtype=np.float64).reshape(len(LEVELS), -1).T  # (n, T)
    return np.column_stack([path, path @ LLR])


def test_laplace_noise_reduction_path():
    # n paths of one value in one vectorised call (the sensitivity covers the whole value,
    # here each entry alone: independent paths).
    def release(value, rng, n):
        return _path_projection(dppack.LaplaceNoiseReduction(np.full(n, value), LEVELS, 1.0,
                                                             random_state=rng))
    # the whole path costs its last level; its first release alone costs the first level
    assert_private(release, 0.0, 1.0, LEVELS[-1], n_samples=200_000, batch=True)

    def first(value, rng, n):
        return release(value, rng, n)[:, 0]
    assert_private(first, 0.0, 1.0, LEVELS[0], n_samples=200_000, batch=True)


def test_laplace_noise_reduction_online():
    def release(value, rng):
        online = dppack.LaplaceNoiseReductionOnline(value, LEVELS[0], 1.0, random_state=rng)
        path = [online.release.item()] + [online.reduce(e).item() for e in LEVELS[1:]]
        return _path_projection(path)[0]
    # One object, one spend per level (its own ledger test is in test_noise_reduction.py):
    # with a pure accountant the spends add up to the last level, what is audited here.
    with dppack.BudgetAccountant(10.0) as accountant:
        release(0.0, np.random.default_rng(0))
    assert len(accountant.ledger) == len(LEVELS)
    assert accountant.spent.eps == pytest.approx(LEVELS[-1], rel=1e-12)
    assert_private(release, 0.0, 1.0, LEVELS[-1], n_samples=5_000, charged=False)


def gaussian_eps(sigma, delta, sensitivity=1.0):
    """The exact eps of the Gaussian mechanism at delta (Balle and Wang 2018, Theorem 8)."""
    def excess(eps):
        a = sensitivity / (2 * sigma)
        b = eps * sigma / sensitivity
        return special.ndtr(a - b) - math.exp(eps) * special.ndtr(-a - b) - delta
    return optimize.brentq(excess, 0.0, 100.0)


def test_gaussian_noise_reduction():
    variances = np.array([16.0, 4.0, 1.0])
    delta = 1e-3

    def release(value, rng, n):
        path = dppack.GaussianNoiseReduction(np.full(n, value), variances, sensitivity=1.0,
                                             random_state=rng)
        path = path.reshape(len(variances), -1).T
        return np.column_stack([path, path @ (1 / variances)])
    # The prefix up to t is as private as one Gaussian release of variance s_t.
    eps = gaussian_eps(math.sqrt(variances[-1]), delta)
    assert_private(release, 0.0, 1.0, eps, delta, n_samples=500_000, batch=True)


# --------------------------------------------------------------------------------------------
# AboveThreshold, stable selection
# --------------------------------------------------------------------------------------------


#: Neighbours for AboveThreshold with fixed queries: every query moves by its sensitivity 1,
#: in the direction that makes d1 halt early and d0 late (Dwork and Roth 2014, Theorem 3.23:
#: eps-DP for the halting index).
IAT_D0 = np.array([0.0, 0.0, 0.0, 0.0, 1.0])
IAT_D1 = np.array([1.0, 1.0, 1.0, 1.0, 0.0])


def calibrated_threshold_share():
    """The split accuracy_first_erm uses by default (exact calibration, gamma = 0.1,
    T = 1000 levels: the share depends on T and gamma only): about 0.30."""
    return dppack.above_threshold_calibration(0.1, 0.1, 0.001, 1000)["threshold_share"]


def iat_release(share):
    """The halting index of InteractiveAboveThreshold (eps 1, threshold 1, sensitivity 1)
    over the five fixed queries data[0], ..., data[4] (5: no halt)."""
    def release(values, rng):
        above = dppack.InteractiveAboveThreshold(values, 1.0, 1.0, 1.0, threshold_share=share,
                                                 random_state=rng)
        for i in range(values.size):
            if above.query(lambda data, i=i: data[i]):
                return i
        return values.size
    return release


@pytest.mark.parametrize("share", ["even", "calibrated"])
def test_interactive_above_threshold_fixed_queries(share):
    # the even split (the class's default) and the split of the default calibration
    # (accuracy_first_erm's), where the query noise carries more of eps (a bug in the query
    # noise's scale shows there: test_auditor_power.py::test_power_above_threshold_query_noise)
    share = 0.5 if share == "even" else calibrated_threshold_share()
    assert_private(iat_release(share), IAT_D0, IAT_D1, 1.0, n_samples=20_000)


@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
def test_stable_select(selector):
    # Scores that move by beta each (the stability the selection is calibrated to).
    beta = 0.1
    d0 = np.r_[0.0, np.full(9, beta)]
    d1 = np.r_[beta, np.zeros(9)]

    def release(scores, rng):
        return dppack.stable_select(scores, beta, 1.0, selector=selector, random_state=rng)
    assert_private(release, d0, d1, 1.0, n_samples=20_000)


@pytest.mark.parametrize("size", sizes(dict(n_samples=1_000, n_pilot=300)))
def test_tune_histogram_bin_width_stable(size):
    x0 = np.r_[np.zeros(39), 0.3]
    x1 = np.r_[np.zeros(39), 1.0]
    delta = 0.01

    def release(x, rng):
        h = dppack.tune_histogram_bin_width_stable(x, [0.5, 0.25], 1.0, 1.0, delta=delta,
                                                   random_state=rng)
        counts = np.asarray(h.counts, dtype=np.float64)
        cells = counts.size
        # the selected width (number of cells) and the counts of the cells of 0.3 and 1
        return [cells, counts[int(0.3 * cells)], counts[-1]]
    assert_private(release, x0, x1, 2.0, delta, **size)


@pytest.mark.parametrize("size", sizes(dict(n_samples=150, n_pilot=100)))
def test_tune_classification_model_stable(size):
    rows = 40
    X0 = np.where(np.arange(rows) % 2 == 0, 1.0, -1.0).reshape(-1, 1)
    y = (X0[:, 0] > 0).astype(float)
    X1 = X0.copy()
    X1[0, 0] = -1.0  # one training row moved to the other bound
    delta = 0.01

    def release(data, rng):
        X, labels = data
        models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.5, 20.0)]
        chosen = dppack.tune_classification_model_stable(models, X, labels, [1.0], [-1.0],
                                                         1.0, delta=delta, random_state=rng)
        return [next(i for i, m in enumerate(models) if m is chosen), chosen.coeff[0]]
    assert_private(release, (X0, y), (X1, y), 2.0, delta, **size)


@pytest.mark.parametrize("size", sizes(dict(n_samples=400, n_pilot=200)))
def test_theory_erm(size):
    # Covariance perturbation at the eps of the utility theorem; that eps depends only on
    # (alpha, lambda, n, d), all public.
    X0, y0 = CLS_D0
    X1 = CLS_D1[0]
    y = 2 * y0 - 1
    bounds = ([1.0, 1.0], [-1.0, -1.0])
    eps = dppack.theory_erm(X0, y, "ridge", 0.5, 1.0, *bounds, random_state=0).eps

    def release(X, rng):
        result = dppack.theory_erm(X, y, "ridge", 0.5, 1.0, *bounds, random_state=rng)
        assert result.eps == eps
        return result.coeff
    assert_private(release, X0, X1, eps, **size)


@pytest.mark.parametrize("name", ["accuracy_first_erm", "doubling_erm"])
def test_ex_post_methods_charge_their_largest_loss(name):
    # One spend per call, at least the largest ex-post loss any outcome can report: eps_A
    # plus the last level of the grid; every doubling fit and test (Ligett et al. 2017,
    # Algorithm 2 and the doubling method of Section 3), recomputed from the public parameters.
    X0, y0 = CLS_D0
    X = np.column_stack([X0, -X0])
    y = 2 * y0 - 1
    bounds = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])
    params = dppack.accuracy_first_parameters("ridge", 0.5, 1.0, *X.shape)
    if name == "accuracy_first_erm":
        levels = dppack.privacy_level_grid(params["eps_min"], params["eps_max"], 1000)
        most = params["eps_test"] + levels[-1]
    else:
        K = params["doubling_levels"]
        most = params["eps_min"] * (2.0 ** K - 1) + K * params["doubling_eps_test"]

    def release(X, rng):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = getattr(dppack, name)(X, y, "ridge", 0.5, 1.0, *bounds, random_state=rng)
        assert result.eps <= most * (1 + 1e-12)
        return result.coeff
    loss = assert_charged(release, X, most)
    assert loss.eps == pytest.approx(most, rel=1e-12)
