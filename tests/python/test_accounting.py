"""Privacy accounting: the DP / zCDP conversions of confidence_intervals.md §1 (P1-P4)."""

import math

import numpy as np
import pytest
from scipy import stats

from dppack import accounting


def test_pure_dp_to_zcdp_is_half_the_square():
    # P1; the paper's split: eps_1 = 0.5 <-> rho_1 = 0.125, eps = 0.25 <-> rho = 0.03125
    assert accounting.dp_to_zcdp(0.5) == 0.125
    assert accounting.dp_to_zcdp(0.25) == 0.03125


def test_zcdp_to_approx_dp_formula():
    # P2 at rho = 0.1875 (the paper's zCDP total), delta = 1e-6: log(1e6) = 6 log(10)
    expected = 0.1875 + 2 * math.sqrt(0.1875 * 6 * math.log(10))
    assert accounting.zcdp_to_approx_dp(0.1875, 1e-6) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-5), (1.0, 1e-6), (8.0, 1e-9), (1e-6, 0.5)])
def test_zcdp_from_approx_dp_inverts_p2(eps, delta):
    rho = accounting.zcdp_from_approx_dp(eps, delta)
    assert rho > 0
    assert accounting.zcdp_to_approx_dp(rho, delta) == pytest.approx(eps, rel=1e-12)


def test_gaussian_sd_gives_the_stated_zcdp():
    # P3: for N(0, sigma^2), the Renyi divergence of order a between shifts by Delta is
    # a Delta^2 / (2 sigma^2); it must equal rho a.
    sd = accounting.zcdp_gaussian_sd(2.0, 0.03125)
    assert 2.0**2 / (2 * sd**2) == pytest.approx(0.03125, rel=1e-14)
    assert accounting.zcdp_gaussian_sd(1.0, 0.5) == 1.0


def test_gaussian_renyi_divergence_numerically():
    # the closed form of P3 checked by integration: D_a(N(D, s^2) || N(0, s^2)) = rho a
    rho, delta = 0.2, 1.5
    s = accounting.zcdp_gaussian_sd(delta, rho)
    for a in (1.5, 2.0, 4.0):
        x = np.linspace(-40 * s, 40 * s + delta, 400_001)
        log_integrand = a * stats.norm.logpdf(x, delta, s) + (1 - a) * stats.norm.logpdf(x, 0, s)
        integral = np.sum(np.exp(log_integrand)) * (x[1] - x[0])
        assert math.log(integral) / (a - 1) == pytest.approx(rho * a, rel=1e-6)


def test_composition_adds():
    assert accounting.compose_dp(0.5, 0.25, 0.25) == 1.0
    # the paper's zCDP objective-perturbation total: 0.5^2/2 + 0.03125 + 0.03125
    assert accounting.compose_zcdp(accounting.dp_to_zcdp(0.5), 0.03125, 0.03125) == 0.1875


@pytest.mark.parametrize("call", [
    lambda: accounting.dp_to_zcdp(0),
    lambda: accounting.dp_to_zcdp(math.inf),
    lambda: accounting.zcdp_to_approx_dp(0.1, 1.0),
    lambda: accounting.zcdp_to_approx_dp(0.1, 0),
    lambda: accounting.zcdp_from_approx_dp(-1, 1e-5),
    lambda: accounting.zcdp_gaussian_sd(1, "a"),
    lambda: accounting.compose_zcdp(0.1, -0.1),
])
def test_invalid_arguments_raise(call):
    with pytest.raises(ValueError):
        call()
