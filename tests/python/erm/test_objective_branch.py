"""Objective perturbation's branch rule (issue 28): the extra regularisation Delta whenever it
leaves the larger noise budget (dppack.erm.cms.objective_perturbation_parameters).

Chaudhuri, Monteleoni and Sarwate (2011), Theorem 9's proof: a fit with Delta >= 0 and
eps' = eps - 2 ln(1 + c / (gamma + n Delta)) > 0 is eps-DP. The rule picks eps' =
max(eps - 2 ln(1 + c/gamma), eps/2); DPpack's (branch='dppack') switches only when the first
is <= 0. Deterministic tests except the noise-law check (KS, false failure 1e-3).
"""

import math

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack.erm import cms
from dppack.erm._approximate import split_budget

f = cms.objective_perturbation_parameters


def _log_term(gamma, c, n, Delta):
    """The Jacobian's share of the budget: 2 ln(1 + c / (gamma + n Delta)) (Thm 9's proof)."""
    return 2.0 * math.log1p(c / (gamma + n * Delta))


def _breakpoint(eps, c):
    """gamma* = c / (e^(eps/4) - 1): eps'(Delta = 0) = eps/2 exactly there."""
    return c / math.expm1(eps / 4.0)


# ---- the rule ---------------------------------------------------------------------------------

def test_hand_computed_values():
    # eps 0.5, gamma 1, c 1/4 (logistic), n 500: eps'(0) = 0.5 - 2 ln 1.25 = 0.0537 < 0.25
    assert f(0.5, 1.0, 0.25, 500, branch="dppack") == pytest.approx((0.05371289737, 0.0),
                                                                    rel=1e-10)
    eps_prime, Delta = f(0.5, 1.0, 0.25, 500)
    # Delta = (0.25 / (e^(1/8) - 1) - 1) / 500 = (1.8776034888 - 1) / 500
    assert eps_prime == 0.25
    assert Delta == pytest.approx(0.8776034888 / 500, rel=1e-9)
    # eps 1, gamma 10, c 1/4: eps'(0) = 1 - 2 ln 1.025 = 0.9506148 > 1/2: Delta = 0, both rules
    for branch in ("auto", "dppack"):
        assert f(1.0, 10.0, 0.25, 100, branch=branch) == pytest.approx((0.9506147748, 0.0),
                                                                       rel=1e-8)
    # eps 1, gamma 0.1, c 1/4: eps'(0) = 1 - 2 ln 3.5 < 0: both rules take Delta
    # = (0.25 / (e^(1/4) - 1) - 0.1) / 100 = (0.8802029 - 0.1) / 100
    for branch in ("auto", "dppack"):
        assert f(1.0, 0.1, 0.25, 100, branch=branch) == pytest.approx((0.5, 0.007802029),
                                                                      rel=1e-7)


def test_rows_and_weights_scale_c():
    # c W B^2 stands for c: c = 1/4, W = 2, B = 2 is c = 2; eps 2, gamma 4:
    # eps'(0) = 2 - 2 ln 1.5 = 1.18907 > 1: Delta = 0
    assert f(2.0, 4.0, 0.25, 50, 2.0, 2.0) == pytest.approx((2 - 2 * math.log(1.5), 0.0))
    # gamma 2: eps'(0) = 2 - 2 ln 2 = 0.6137 < 1: Delta = (2 / (e^(1/2) - 1) - 2) / 50
    eps_prime, Delta = f(2.0, 2.0, 0.25, 50, 2.0, 2.0)
    assert eps_prime == 1.0
    assert Delta == pytest.approx((2 / math.expm1(0.5) - 2) / 50, rel=1e-12)
    assert f(2.0, 2.0, 0.25, 50, 2.0, 2.0, branch="dppack") == pytest.approx(
        (2 - 2 * math.log(2.0), 0.0))


@pytest.mark.parametrize("eps, c", [(0.5, 0.25), (1.0, 1.0), (5.0, 0.25)])
def test_the_branch_switches_at_the_breakpoint(eps, c):
    n = 200
    g = _breakpoint(eps, c)
    above, below = g * (1 + 1e-9), g * (1 - 1e-9)
    eps_above, Delta_above = f(eps, above, c, n)
    assert Delta_above == 0.0 and eps_above > eps / 2
    assert eps_above == pytest.approx(eps - _log_term(above, c, n, 0.0), rel=1e-12)
    eps_below, Delta_below = f(eps, below, c, n)
    assert eps_below == eps / 2 and 0.0 < Delta_below < 1e-8
    # continuous at the breakpoint: both sides within 1e-8 of (eps/2, 0)
    assert eps_above == pytest.approx(eps / 2, abs=1e-8)
    # DPpack's rule keeps Delta = 0 down to eps'(0) = 0, i.e. gamma = c / (e^(eps/2) - 1)
    assert f(eps, below, c, n, branch="dppack") == pytest.approx(
        (eps - _log_term(below, c, n, 0.0), 0.0), rel=1e-12, abs=0)
    g0 = c / math.expm1(eps / 2)
    assert f(eps, g0 * 1.001, c, n, branch="dppack")[1] == 0.0
    assert f(eps, g0 * 0.999, c, n, branch="dppack")[1] > 0.0


@pytest.mark.parametrize("branch", ["auto", "dppack"])
@pytest.mark.parametrize("gamma, c, n", [(0.1, 0.25, 50), (1.0, 0.25, 569), (10.0, 1.0, 30),
                                         (2.0, 3.0, 1000)])
def test_every_choice_spends_exactly_eps(branch, gamma, c, n):
    # eps' + 2 ln(1 + c / (gamma + n Delta)) = eps: the privacy of Thm 9, at every eps
    for eps in np.geomspace(0.01, 20, 200):
        eps_prime, Delta = f(eps, gamma, c, n, branch=branch)
        assert eps_prime > 0 and Delta >= 0
        assert eps_prime + _log_term(gamma, c, n, Delta) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("gamma, c, n", [(0.1, 0.25, 50), (1.0, 0.25, 569), (10.0, 1.0, 30),
                                         (2.0, 3.0, 1000), (1.0, 1.0, 398)])
def test_no_dip_the_noise_budget_grows_with_eps(gamma, c, n):
    eps = np.linspace(0.01, 10, 2000)
    values = np.array([f(e, gamma, c, n) for e in eps])
    old = np.array([f(e, gamma, c, n, branch="dppack") for e in eps])
    # eps' non-decreasing, Delta non-increasing in eps; eps' >= eps/2 and >= DPpack's
    assert np.all(np.diff(values[:, 0]) > 0)
    assert np.all(np.diff(values[:, 1]) <= 1e-15)
    assert np.all(values[:, 0] >= eps / 2)
    assert np.all(values[:, 0] >= old[:, 0])
    # DPpack's rule dips: eps' falls to near 0 just above eps = 2 ln(1 + c/gamma), where it
    # leaves Delta (below 5% of eps on this grid of step 0.005)
    if 2 * math.log1p(c / gamma) < 10:
        assert np.min(old[:, 0] / eps) < 0.05
        assert np.any(np.diff(old[:, 0]) < 0)


def test_unknown_branch():
    with pytest.raises(ValueError, match="branch"):
        f(1.0, 1.0, 0.25, 10, branch="paper")


# ---- the fits ---------------------------------------------------------------------------------

def _data(n=40, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X[:, 0] - X[:, 1] + rng.logistic(size=n) * 0.3 > 0).astype(float)
    return X, y


def test_fit_in_the_new_regime_charges_the_users_eps():
    # logistic, c = 1/4, gamma = 0.5, eps = 1: eps_1'(0) = eps_1 - 2 ln 1.5 = 0.188 < eps_1/2
    X, y = _data()
    n, eps, gamma = X.shape[0], 1.0, 0.5
    eps_1, eps_2 = split_budget(eps)
    assert 0 < eps_1 - _log_term(gamma, 0.25, n, 0.0) < eps_1 / 2
    accountant = dppack.BudgetAccountant(3.0)
    model = dppack.LogisticRegressionDP("l2", eps, gamma).fit(
        X, y, [1, 1], [-1, -1], random_state=1, accountant=accountant)
    assert model.eps_prime_ == eps_1 / 2
    assert model.Delta_ == pytest.approx((0.25 / math.expm1(eps_1 / 4) - gamma) / n, rel=1e-12)
    assert model.privacy_ == dppack.PrivacyLoss.pure(eps)
    assert accountant.spent == dppack.PrivacyLoss.pure(eps)
    assert model.release_eps_ == eps_2
    # the release's sensitivity uses the extra strong convexity
    assert model.release_sensitivity_ == pytest.approx(
        2 * model.optimality_tolerance_ / (gamma / n + model.Delta_), rel=1e-12)


def test_fit_noise_law_in_the_new_regime():
    # b from the first-order condition at the released minimiser (scaled problem, rows of
    # norm <= 1): b = -(X'(sigma - y) + (gamma + n Delta) theta); ||b|| ~ Gamma(d, eps'/2)
    # with eps' = eps_1 / 2 (the release noise, about 1e-3 of b, is below the KS resolution).
    # KS false failure 1e-3.
    X, y = _data(n=30, seed=8)
    n, d, eps, gamma = 30, 2, 1.0, 0.5
    rng = np.random.default_rng(44)
    model = dppack.LogisticRegressionDP("l2", eps, gamma)
    design = dppack.erm._design.prepare_design(X, y, [1, 1], [-1, -1], False, scale="l2")
    Xs, scale = design["X"], design["scale"]
    norms = []
    for _ in range(300):
        theta = model.fit(X, y, [1, 1], [-1, -1], random_state=rng).coeff * scale
        s = 1 / (1 + np.exp(-Xs @ theta))
        b = -(Xs.T @ (s - y) + (gamma + n * model.Delta_) * theta)
        norms.append(np.linalg.norm(b))
    assert model.eps_prime_ == split_budget(eps)[0] / 2 and model.Delta_ > 0
    law = stats.gamma(d, scale=2 / model.eps_prime_)
    assert stats.kstest(norms, law.cdf).pvalue > 1e-3
    # DPpack's rule's budget (eps'(0) = 0.188) would give norms about 2.7x larger
    wrong = stats.gamma(d, scale=2 / (split_budget(eps)[0] - _log_term(gamma, 0.25, n, 0.0)))
    assert stats.kstest(norms, wrong.cdf).pvalue < 1e-3


def test_svm_and_weighted_fits_share_the_rule():
    # Huber h = 0.5 (c = 1), gamma 1, eps 2: eps_1'(0) = eps_1 - 2 ln 2 = 0.61 < eps_1 / 2
    X, y = _data()
    n, eps = X.shape[0], 2.0
    eps_1 = split_budget(eps)[0]
    svm = dppack.svmDP("l2", eps, 1.0).fit(X, y, [1, 1], [-1, -1], random_state=2)
    assert (svm.eps_prime_, svm.Delta_) == f(eps_1, 1.0, 1.0, n)
    assert svm.eps_prime_ == eps_1 / 2 and svm.Delta_ > 0
    # weighted (dppack.erm.weighting): c W in place of c; logistic c = 1/4, W = 4: c W = 1
    from dppack.erm.weighting import fit_weighted
    w = np.linspace(0, 4, n)
    fitted = fit_weighted(dppack.LogisticRegressionDP("l2", eps, 1.0), X, y, [1, 1], [-1, -1],
                          weights=w, weights_upper_bound=4.0, random_state=3)
    assert (fitted.eps_prime_, fitted.Delta_) == f(eps_1, 1.0, 1.0, n)
    assert fitted.eps_prime_ == eps_1 / 2 and fitted.Delta_ > 0
