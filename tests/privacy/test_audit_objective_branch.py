"""Audits of objective perturbation where dppack takes the extra-regularisation branch and
DPpack does not (issue 28): 0 < eps_1 - 2 ln(1 + c/gamma) < eps_1/2, so eps' = eps_1/2 and
Delta = c / (n (e^(eps_1/4) - 1)) - gamma/n > 0 (dppack.erm.cms.objective_perturbation_parameters;
Chaudhuri, Monteleoni and Sarwate 2011, Theorem 9). tests/privacy/README.md has the method;
each audit's false-failure rate is alpha = 1e-3.

* The noise's worst case, through the library's solver: svmDP (Huber h = 0.025, c = 20,
  gamma = 20, eps = 2), five records x = 1, y = 1, the last moved to x = -1: every margin stays
  in the loss's linear piece, so the two perturbation vectors that give the same minimiser
  differ by exactly 2 (the bound the noise rate eps'/2 is calibrated to).
* The Jacobian's worst case, together with the noise's: a one-record CMS fit with a Huber
  loss in the score z = x theta (curvature c, slope capped at 1) whose solver is the closed
  form (an overridable step, so 10^4 fits take seconds; the checks, the parameters, the draws
  and the exact release are the library's). d0's record y0 puts the edge of the loss's
  quadratic piece at theta_e = y0 - 1/c = 1; d1's record y1 = -5 has slope +1 on the whole
  range. Just above theta_e, d0's b is 1 - K theta and d1's -(1 + K theta) (K = gamma + n
  Delta): the noise ratio is e^eps' and the Jacobian's (c + K) / K = e^(eps_1/4), so the loss
  there is eps' + eps_1/4 = 3 eps_1/4 (in one dimension the Jacobian ratio is one factor of
  Theorem 9's two). The event is {theta_e <= theta <= theta_e + w}. Power (slow): the
  parameters with the Jacobian's share left out (eps' = eps_1, Delta kept) give
  eps_1 + eps_1/4 > eps there, and the audit finds it.
* The release grid: the released coefficients lie on the grid 2^release_grid_ on both
  neighbours (deterministic).
"""

import math

import numpy as np
import pytest

import dppack
from auditor import Event, assert_private, audit
from dppack.erm import _cms as cms  # the module whose fit calls them (patched)

# ---- the noise's worst case through the library's solver ------------------------------------

SVM_EPS, SVM_GAMMA, SVM_H = 2.0, 20.0, 0.025  # c = 1 / (2 h) = 20 = gamma


def _svm_release(data, rng):
    X, y = data
    model = dppack.svmDP("l2", SVM_EPS, SVM_GAMMA, huber_h=SVM_H)
    return model.fit(X, y, [1.0], [-1.0], random_state=rng).coeff


def _svm_data(last_x):
    return np.array([[1.0]] * 4 + [[last_x]]), np.ones(5)


def test_svm_case_is_in_the_new_regime():
    eps_1 = SVM_EPS * (1 - 2 ** -10)
    first = eps_1 - 2 * math.log1p(1 / (2 * SVM_H) / SVM_GAMMA)
    assert 0 < first < eps_1 / 2  # DPpack would keep Delta = 0 with eps' = 0.61
    model = dppack.svmDP("l2", SVM_EPS, SVM_GAMMA, huber_h=SVM_H).fit(
        *_svm_data(1.0), [1.0], [-1.0], random_state=0)
    assert model.eps_prime_ == eps_1 / 2 and model.Delta_ > 0
    # every margin in the linear piece (z < 1 - h) at the noiseless minimiser: 5 / (gamma +
    # n Delta) on d0 and 3 / (gamma + n Delta) on d1
    assert 5 / (SVM_GAMMA + 5 * model.Delta_) < 1 - SVM_H


def test_svm_noise_worst_case():
    assert_private(_svm_release, _svm_data(1.0), _svm_data(-1.0), SVM_EPS, n_samples=1_000,
                   n_pilot=300)


# ---- the Jacobian's worst case (one record, closed-form solver) ------------------------------

C, GAMMA, EPS = 1.0, 1.0, 2.0  # eps_1 - 2 ln 2 = 0.61 < eps_1 / 2: the new branch
THETA_E, Y1 = 1.0, -5.0


def _loss(y_hat, y):
    r = np.asarray(y_hat) - np.asarray(y)
    return np.where(np.abs(r) <= 1 / C, C * r * r / 2, np.abs(r) - 1 / (2 * C))


def _loss_gr(y_hat, y):
    return np.clip(C * (np.asarray(y_hat) - np.asarray(y)), -1.0, 1.0)


class _OneRecord(dppack.EmpiricalRiskMinimizationDP_CMS):
    """The CMS framework with a closed-form solver of its one-record problem
    clip(c (theta - y), -1, 1) + (gamma + Delta) theta + b = 0 (n = 1, x = 1)."""

    def _optimize_coeff(self, X, y, Delta, b, weights=None):
        assert X.shape == (1, 1) and X[0, 0] == 1.0
        K, t, b = self.gamma + Delta, float(y[0]), float(b[0])
        theta = (C * t - b) / (C + K)
        if C * (theta - t) > 1:
            theta = -(1 + b) / K
        elif C * (theta - t) < -1:
            theta = (1 - b) / K
        return np.array([theta])


def _one_record_release(data, rng):
    model = _OneRecord(dppack.mapXy_linear, _loss, "l2", EPS, GAMMA, "objective", C,
                       dppack.mapXy_gr_linear, _loss_gr)
    return model.fit(np.ones((1, 1)), data, [1.0], [-1.0], random_state=rng).coeff


def _edge_events(width):
    centre = THETA_E + width / 2
    return [Event(1, "le", width / 2, f"|theta - {centre:g}|")]


def _project(width):
    centre = THETA_E + width / 2
    return lambda coeff: [coeff[0], abs(coeff[0] - centre)]


D0, D1 = np.array([THETA_E + 1 / C]), np.array([Y1])


def test_one_record_case():
    eps_1 = EPS * (1 - 2 ** -10)
    model = _OneRecord(dppack.mapXy_linear, _loss, "l2", EPS, GAMMA, "objective", C,
                       dppack.mapXy_gr_linear, _loss_gr).fit(np.ones((1, 1)), D0, [1.0],
                                                              [-1.0], random_state=0)
    K = GAMMA + model.Delta_
    assert 0 < eps_1 - 2 * math.log1p(C / GAMMA) < eps_1 / 2
    assert model.eps_prime_ == eps_1 / 2
    assert (C + K) / K == pytest.approx(math.exp(eps_1 / 4), rel=1e-12)
    # both b's negative at theta_e (K theta_e > 1), so |b1| - |b0| = 2 there
    assert K * THETA_E > 1
    # the closed form solves the first-order condition
    for b in (-3.0, -0.6, 0.0, 2.0):
        for y in (D0[0], Y1):
            theta = _OneRecord._optimize_coeff(model, np.ones((1, 1)), [y], model.Delta_,
                                               [b])[0]
            assert _loss_gr(theta, y) + K * theta + b == pytest.approx(0, abs=1e-12)


WIDTH = 0.1


def test_one_record_worst_case():
    # The loss on the event is about 3 eps_1 / 4 - (a decay over the width) = 1.45: the
    # audit's bound stays below eps = 2 (alpha 1e-3).
    release = lambda data, rng: _project(WIDTH)(_one_record_release(data, rng))  # noqa: E731
    assert_private(release, D0, D1, EPS, n_samples=4_000, events=_edge_events(WIDTH))


@pytest.mark.slow
def test_one_record_power(monkeypatch):
    # The Jacobian's share left out of the noise budget: eps' = eps_1 with the same Delta.
    # The loss at the edge is then eps_1 + eps_1 / 4 = 2.5 > 2; the audit finds eps_lb > 2
    # with 40,000 draws per dataset.
    original = cms.objective_perturbation_parameters

    def leaky(eps, *args, **kwargs):
        return eps, original(eps, *args, **kwargs)[1]

    monkeypatch.setattr(cms, "objective_perturbation_parameters", leaky)
    width = 0.05
    release = lambda data, rng: _project(width)(_one_record_release(data, rng))  # noqa: E731
    result = audit(release, D0, D1, EPS, n_samples=40_000, events=_edge_events(width))
    assert not result.passed, str(result)


# ---- the release grid (deterministic) --------------------------------------------------------

def test_released_coefficients_lie_on_the_grid():
    for data in (_svm_data(1.0), _svm_data(-1.0)):
        for seed in range(10):
            model = dppack.svmDP("l2", SVM_EPS, SVM_GAMMA, huber_h=SVM_H).fit(
                *data, [1.0], [-1.0], random_state=seed)
            units = np.ldexp(model.coeff, -model.release_grid_)
            assert np.array_equal(units, np.round(units))
            # the grid follows the release's sensitivity 2 g_tol / (gamma/n + Delta)
            assert model.release_sensitivity_ == pytest.approx(
                2 * model.optimality_tolerance_ / (SVM_GAMMA / 5 + model.Delta_), rel=1e-12)
