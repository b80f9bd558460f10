"""Privacy accounting: the DP / zCDP conversions Wang, Kifer and Lee (2019) use (P1-P4), the
PrivacyLoss value type (composition, conversion, advanced composition, subsampling) and the
BudgetAccountant (issue 12). Every test here is deterministic: no randomness, no false
failures."""

import doctest
import importlib
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize, stats

from dppack import BudgetAccountant, PrivacyLoss, accounting
from dppack.accounting import _arithmetic
from dppack.model_selection import stability as validation
from dppack.analytic_gaussian_erm import _budget as analytic


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


# ---- PrivacyLoss: the value type ---------------------------------------------------------------


def test_constructors_and_fields():
    pure = PrivacyLoss.pure(0.5)
    assert (pure.kind, pure.eps, pure.delta) == ("pure", 0.5, 0.0)
    approx = PrivacyLoss.approx(1, 1e-5)
    assert (approx.kind, approx.eps, approx.delta) == ("approx", 1.0, 1e-5)
    zcdp = PrivacyLoss.zcdp(np.float64(0.125))
    assert (zcdp.kind, zcdp.rho) == ("zcdp", 0.125) and type(zcdp.rho) is float
    # delta = 0 is pure DP; a zero loss (nothing spent) is allowed
    assert PrivacyLoss.approx(1.0, 0) == PrivacyLoss.pure(1.0)
    assert PrivacyLoss.approx(1.0, 0).kind == "pure"
    assert PrivacyLoss.pure(0).eps == 0.0 and PrivacyLoss.zcdp(0).rho == 0.0


def test_fields_that_a_kind_does_not_have():
    with pytest.raises(AttributeError, match=r"to_approx\(delta\)"):
        PrivacyLoss.zcdp(0.1).eps
    with pytest.raises(AttributeError, match=r"to_approx\(delta\)"):
        PrivacyLoss.zcdp(0.1).delta
    with pytest.raises(AttributeError, match="has no rho"):
        PrivacyLoss.pure(0.1).rho
    assert getattr(PrivacyLoss.zcdp(0.1), "eps", None) is None


@pytest.mark.parametrize("call, message", [
    (lambda: PrivacyLoss.pure(-0.1), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.pure(math.inf), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.pure(math.nan), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.pure(True), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.pure("1"), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.pure([1.0]), "eps must be a finite number >= 0."),
    (lambda: PrivacyLoss.approx(1, 1), "delta must be a number in [0, 1)."),
    (lambda: PrivacyLoss.approx(1, -1e-9), "delta must be a number in [0, 1)."),
    (lambda: PrivacyLoss.zcdp(-1), "rho must be a finite number >= 0."),
    (lambda: PrivacyLoss.zcdp(math.inf), "rho must be a finite number >= 0."),
])
def test_invalid_values_are_refused(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert str(error.value) == message


def test_immutable_hashable_printable():
    loss = PrivacyLoss.approx(0.5, 1e-6)
    with pytest.raises(AttributeError, match="immutable"):
        loss.eps = 0.1
    with pytest.raises(AttributeError, match="immutable"):
        loss._eps = 0.1
    with pytest.raises(TypeError, match="PrivacyLoss.pure"):
        PrivacyLoss(0.5)
    assert loss.eps == 0.5
    assert len({PrivacyLoss.pure(1.0), PrivacyLoss.approx(1.0, 0.0), PrivacyLoss.pure(1)}) == 1
    assert PrivacyLoss.pure(0.5) != PrivacyLoss.zcdp(0.125)  # different guarantees
    assert PrivacyLoss.pure(0.5) != 0.5
    for value in (PrivacyLoss.pure(0.1), PrivacyLoss.approx(0.3, 1e-7), PrivacyLoss.zcdp(1 / 3)):
        assert eval(repr(value), {"PrivacyLoss": PrivacyLoss}) == value
        assert pickle.loads(pickle.dumps(value)) == value
    assert str(PrivacyLoss.pure(0.5)) == "eps = 0.5 (pure DP)"
    assert str(PrivacyLoss.approx(1, 1e-5)) == "(eps, delta) = (1, 1e-05)"
    assert str(PrivacyLoss.zcdp(0.125)) == "rho = 0.125 (zCDP)"


# ---- composition --------------------------------------------------------------------------------


def _ceil_sum(values):
    """The smallest float >= the exact sum of the floats ``values`` (a reference for the
    accountant's rounding, written independently of it)."""
    exact = sum(Fraction(v) for v in values)
    candidate = math.fsum(values)
    while Fraction(candidate) < exact:
        candidate = math.nextafter(candidate, math.inf)
    while Fraction(math.nextafter(candidate, -math.inf)) >= exact:
        candidate = math.nextafter(candidate, -math.inf)
    return candidate


def test_sequential_composition_adds():
    # basic composition (Dwork and Roth 2014, Theorem 3.16): eps's add, delta's add
    total = PrivacyLoss.pure(0.5) + PrivacyLoss.pure(0.25) + PrivacyLoss.approx(0.25, 1e-6)
    assert total == PrivacyLoss.approx(1.0, 1e-6)
    total = PrivacyLoss.compose(PrivacyLoss.approx(0.1, 1e-6), PrivacyLoss.approx(0.2, 2e-6),
                                PrivacyLoss.pure(0.3))
    # the smallest float at least the exact sum of the doubles (the nearest would be below it)
    assert total.eps == _ceil_sum([0.1, 0.2, 0.3]) == math.nextafter(0.6, 1.0)
    assert total.delta == _ceil_sum([1e-6, 2e-6])
    assert PrivacyLoss.compose(PrivacyLoss.zcdp(0.1), PrivacyLoss.zcdp(0.2)).rho == 0.1 + 0.2
    assert sum([PrivacyLoss.pure(0.25)] * 4) == PrivacyLoss.pure(1.0)
    assert PrivacyLoss.compose() == PrivacyLoss.pure(0.0)
    assert accounting.compose is PrivacyLoss.compose  # one implementation
    with pytest.raises(ValueError, match="composed delta = 1 is >= 1"):
        PrivacyLoss.approx(1, 0.5) + PrivacyLoss.approx(1, 0.5)
    with pytest.raises(TypeError, match="takes PrivacyLoss values"):
        PrivacyLoss.compose(PrivacyLoss.pure(1), 0.5)
    with pytest.raises(TypeError):
        PrivacyLoss.pure(1) + 0.5


def test_pure_and_zcdp_compose_in_zcdp():
    # the confidence-interval paper's zCDP total: 0.5^2 / 2 + 0.03125 + 0.03125 = 0.1875
    total = PrivacyLoss.pure(0.5) + PrivacyLoss.zcdp(0.03125) + PrivacyLoss.zcdp(0.03125)
    assert total == PrivacyLoss.zcdp(0.1875)


def test_approximate_and_zcdp_do_not_compose_directly():
    with pytest.raises(ValueError, match=r"convert the zCDP losses with \.to_approx\(delta\)"):
        PrivacyLoss.approx(0.5, 1e-6) + PrivacyLoss.zcdp(0.1)
    with pytest.raises(ValueError, match="Cannot combine"):
        PrivacyLoss.parallel(PrivacyLoss.zcdp(0.1), PrivacyLoss.approx(0.5, 1e-6))


def test_k_runs():
    assert 3 * PrivacyLoss.pure(0.25) == PrivacyLoss.pure(0.75)
    # the exact product of the doubles, rounded up: 10 x 0.1 is above 1, 10 x 1e-7 above 1e-6
    assert PrivacyLoss.approx(0.1, 1e-7) * 10 == PrivacyLoss.approx(
        _ceil_sum([0.1] * 10), _ceil_sum([1e-7] * 10))
    assert (PrivacyLoss.approx(0.1, 1e-7) * 10).eps == math.nextafter(1.0, 2.0)
    assert 4 * PrivacyLoss.zcdp(0.125) == PrivacyLoss.zcdp(0.5)
    assert 0 * PrivacyLoss.pure(1) == PrivacyLoss.pure(0)
    # k * loss is the composition of k copies (up to rounding: k x against a sum)
    many, composed = 7 * PrivacyLoss.approx(0.3, 1e-7), PrivacyLoss.compose(
        *[PrivacyLoss.approx(0.3, 1e-7)] * 7)
    assert (many.eps, many.delta) == pytest.approx((composed.eps, composed.delta), rel=1e-15)
    many, composed = 7 * PrivacyLoss.zcdp(0.07), PrivacyLoss.compose(*[PrivacyLoss.zcdp(0.07)] * 7)
    assert many.rho == pytest.approx(composed.rho, rel=1e-15)
    with pytest.raises(ValueError, match="vacuous"):
        2 * PrivacyLoss.approx(1, 0.6)
    with pytest.raises(TypeError):
        2.5 * PrivacyLoss.pure(1)
    with pytest.raises(ValueError, match="k must be a whole number >= 0."):
        -1 * PrivacyLoss.pure(1)


def test_parallel_composition_is_the_maximum():
    # disjoint data (McSherry 2009, Theorem 4)
    assert PrivacyLoss.parallel(PrivacyLoss.pure(0.5), PrivacyLoss.approx(0.25, 1e-6),
                                PrivacyLoss.pure(0.1)) == PrivacyLoss.approx(0.5, 1e-6)
    assert PrivacyLoss.parallel(PrivacyLoss.zcdp(0.1), PrivacyLoss.zcdp(0.3)) == (
        PrivacyLoss.zcdp(0.3))
    # pure is (eps^2/2)-zCDP: max(0.5, 0.1) in rho
    assert PrivacyLoss.parallel(PrivacyLoss.pure(1.0), PrivacyLoss.zcdp(0.1)) == (
        PrivacyLoss.zcdp(0.5))
    assert PrivacyLoss.parallel() == PrivacyLoss.pure(0)
    assert accounting.parallel is PrivacyLoss.parallel


# ---- conversions --------------------------------------------------------------------------------


def test_pure_to_zcdp():
    # Bun and Steinke (2016), Proposition 1.4: eps-DP is (eps^2 / 2)-zCDP
    assert PrivacyLoss.pure(0.5).to_zcdp() == PrivacyLoss.zcdp(0.125)
    assert PrivacyLoss.zcdp(0.2).to_zcdp() == PrivacyLoss.zcdp(0.2)
    with pytest.raises(ValueError, match="implies no rho-zCDP"):
        PrivacyLoss.approx(0.5, 1e-6).to_zcdp()


def _eps_on_grid(rho, delta):
    """CKS (2020) Corollary 13 in its eps form, minimised over a fine grid of orders."""
    u = np.logspace(-6, 7, 400_001)  # u = alpha - 1
    log_inv = -math.log(delta)
    values = (1 + u) * rho + np.log(u) - np.log1p(u) + (log_inv - np.log1p(u)) / u
    return max(0.0, float(np.min(values)))


def _delta_on_grid(rho, eps):
    """CKS (2020) Corollary 13 as stated: min over alpha of
    exp((alpha - 1)(alpha rho - eps)) / alpha * (1 - 1/alpha)^(alpha - 1), on a fine grid."""
    a = 1 + np.logspace(-6, 7, 400_001)
    log_delta = (a - 1) * (a * rho - eps) - np.log(a) + (a - 1) * np.log1p(-1 / a)
    return math.exp(float(np.min(log_delta)))


def _gaussian_eps(rho, delta):
    """The exact eps at delta of the Gaussian mechanism with sd = sensitivity / sqrt(2 rho),
    which is rho-zCDP (P3): delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
    mu = sqrt(2 rho) (Balle and Wang 2018, Theorem 8)."""
    mu = math.sqrt(2 * rho)

    def excess(eps):
        return (stats.norm.cdf(mu / 2 - eps / mu)
                - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu) - delta)

    if excess(0.0) <= 0:
        return 0.0
    return optimize.brentq(excess, 0.0, 10 + 10 * rho, xtol=1e-14)


def test_tight_conversion_matches_published_values():
    # OpenDP's test suite (zCDP_to_approxDP, which implements CKS Corollary 13): the Gaussian
    # with scale 4 and sensitivity 1, rho = 1/32, gives eps = 0.6880024554878086 at
    # delta = 1e-3, and eps = 0 at delta = 0.1508457845622862 (its delta at eps = 0)
    loss = PrivacyLoss.zcdp((1 / 4) ** 2 / 2)
    assert loss.to_approx(1e-3).eps == pytest.approx(0.6880024554878086, rel=1e-12)
    assert loss.to_approx(1e-3).delta == 1e-3
    assert loss.to_approx(0.1508457845622862).eps == pytest.approx(0.0, abs=1e-7)
    assert loss.to_approx(0.1508457845622862 * 0.99).eps > 1e-4


RHOS = (1e-6, 1e-3, 1 / 32, 0.5, 2.0, 50.0)
DELTAS = (1e-12, 1e-6, 1e-3, 0.1)


@pytest.mark.parametrize("rho", RHOS)
@pytest.mark.parametrize("delta", DELTAS)
def test_tight_conversion_against_brute_force(rho, delta):
    eps = PrivacyLoss.zcdp(rho).to_approx(delta).eps
    # as small as the minimum over a fine grid of orders (never worse)...
    assert eps <= _eps_on_grid(rho, delta) + 1e-12
    # ...and valid: the corollary's delta at this eps, in the paper's form, is the target
    # (a grid minimum is >= the true one, so this bounds the true delta)
    if eps > 0:
        assert _delta_on_grid(rho, eps) <= delta * (1 + 1e-6)
    else:
        assert _delta_on_grid(rho, 0.0) <= delta


@pytest.mark.parametrize("rho", RHOS + (1e-12, 1e3))
@pytest.mark.parametrize("delta", DELTAS + (1e-300, 0.9))
def test_tight_conversion_between_gaussian_and_bun_steinke(rho, delta):
    eps = PrivacyLoss.zcdp(rho).to_approx(delta).eps
    bun_steinke = PrivacyLoss.zcdp(rho).to_approx(delta, method="bun_steinke").eps
    # the float formula raised above its rounding errors (a few units of roundoff)
    formula = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert formula < bun_steinke <= formula * (1 + 2.0 ** -48) + 1e-300
    assert eps <= bun_steinke
    assert eps < bun_steinke or eps == 0 == bun_steinke
    if rho <= 50 and delta > 1e-300:
        # no conversion of rho-zCDP can beat the exact curve of the rho-zCDP Gaussian
        assert eps >= _gaussian_eps(rho, delta) - 1e-9


def test_to_approx_of_pure_and_approximate_losses():
    # one pure release: eps-DP beats its zCDP route, and is returned as it is
    for eps in (0.01, 1.0, 10.0):
        assert PrivacyLoss.pure(eps).to_approx(1e-6) == PrivacyLoss.pure(eps)
    # many small pure releases: composing in zCDP and converting beats adding the eps's
    many = PrivacyLoss.compose(*[PrivacyLoss.pure(0.01).to_zcdp()] * 100)
    # each eps^2 / 2 and the sum rounded up, so at least the exact value and within an ulp or so
    assert Fraction(many.rho) >= 100 * Fraction(0.01) ** 2 / 2
    assert many.rho == pytest.approx(100 * 0.01 ** 2 / 2, rel=1e-15)
    assert many.to_approx(1e-6).eps < (100 * PrivacyLoss.pure(0.01)).eps
    assert PrivacyLoss.pure(3.0).to_zcdp().to_approx(1e-6) == (
        PrivacyLoss.zcdp(4.5).to_approx(1e-6))
    approx = PrivacyLoss.approx(1.0, 1e-6)
    assert approx.to_approx(1e-5) is approx
    with pytest.raises(ValueError, match="cannot be stated at the smaller delta"):
        approx.to_approx(1e-7)
    with pytest.raises(ValueError, match=r"delta must be a number in \(0, 1\)."):
        PrivacyLoss.zcdp(1).to_approx(0)
    with pytest.raises(ValueError, match="method must be one of"):
        PrivacyLoss.zcdp(1).to_approx(1e-6, method="rdp")


# ---- advanced composition -----------------------------------------------------------------------


def test_advanced_composition_closed_form():
    # Dwork, Rothblum and Vadhan (2010), Theorem III.3
    loss = PrivacyLoss.approx(0.1, 1e-7).advanced_composition(100, 1e-6)
    expected = 0.1 * math.sqrt(2 * 100 * math.log(1e6)) + 100 * 0.1 * (math.exp(0.1) - 1)
    assert loss.eps == pytest.approx(expected, rel=1e-14)
    assert loss.delta == pytest.approx(1e-6 + 100 * 1e-7, rel=1e-14)
    # many small steps: below basic composition (100 * 0.01 = 1)
    assert PrivacyLoss.pure(0.01).advanced_composition(10_000, 1e-6).eps < (
        10_000 * PrivacyLoss.pure(0.01)).eps
    assert accounting.advanced_composition(800.0, 0.0, 10, 1e-6)[0] == math.inf
    with pytest.raises(ValueError, match="overflows"):
        PrivacyLoss.pure(800).advanced_composition(10, 1e-6)
    with pytest.raises(ValueError, match="adding rho"):
        PrivacyLoss.zcdp(0.1).advanced_composition(10, 1e-6)
    with pytest.raises(ValueError, match=r"delta_prime must be a number in \(0, 1\)."):
        PrivacyLoss.pure(0.1).advanced_composition(10, 0)
    with pytest.raises(ValueError, match="k must be a whole number >= 1."):
        PrivacyLoss.pure(0.1).advanced_composition(2.5, 1e-6)
    with pytest.raises(ValueError, match="vacuous"):
        PrivacyLoss.approx(0.1, 0.1).advanced_composition(20, 1e-6)


def test_advanced_composition_inverse_matches_spec_values():
    # Chaudhuri and Vinterbo 2013, Theorem 5 [derived]: k = 10, delta = 0.01
    for total, expected in ((0.3, 0.03029), (0.5, 0.04948), (1.0, 0.09445)):
        step = PrivacyLoss.approx(total, 0.01).advanced_composition_inverse(10, 0.01)
        assert step.eps == pytest.approx(expected, abs=5e-6)
        assert step == PrivacyLoss.pure(step.eps)  # delta' = the total delta


@pytest.mark.parametrize("eps_total, delta_total, k, delta_prime", [
    (1.0, 1e-5, 100, 1e-5), (0.3, 0.01, 10, 0.005), (5.0, 1e-6, 3, 1e-7),
    (1e-9, 1e-9, 1000, 1e-9), (50.0, 1e-3, 7, 1e-4), (1e300, 1e-5, 10, 1e-6),
])
def test_advanced_composition_round_trip(eps_total, delta_total, k, delta_prime):
    total = PrivacyLoss.approx(eps_total, delta_total)
    step = total.advanced_composition_inverse(k, delta_prime)
    eps, delta = accounting.advanced_composition(step.eps, step.delta, k, delta_prime)
    assert eps <= eps_total and delta <= delta_total
    assert eps >= eps_total * (1 - 1e-12) or eps_total > 1e5  # the budget is used, not wasted
    assert step.delta == pytest.approx((delta_total - delta_prime) / k, rel=1e-12)
    # the largest such eps, up to rounding: a hair more already exceeds the total
    if eps_total < 1e5:
        assert accounting.advanced_composition(step.eps * (1 + 1e-12), 0, k,
                                               delta_prime)[0] > eps_total


def test_advanced_composition_inverse_refusals():
    with pytest.raises(ValueError, match="exceeds the total delta"):
        PrivacyLoss.pure(1.0).advanced_composition_inverse(10, 1e-6)
    with pytest.raises(ValueError, match="divide rho by k"):
        PrivacyLoss.zcdp(1.0).advanced_composition_inverse(10, 1e-6)


# ---- amplification by subsampling ---------------------------------------------------------------


def test_subsampling_closed_form():
    # Balle, Barthe and Gaboardi (2018): ln(1 + q (e^eps - 1)), q delta
    loss = PrivacyLoss.approx(1.0, 1e-5).amplify_by_subsampling(0.01)
    assert loss.eps == pytest.approx(math.log(1 + 0.01 * (math.e - 1)), rel=1e-14)
    assert loss.delta == pytest.approx(1e-7, rel=1e-14)
    assert PrivacyLoss.pure(0.7).amplify_by_subsampling(1) == PrivacyLoss.pure(0.7)
    eps = [PrivacyLoss.pure(2.0).amplify_by_subsampling(q).eps for q in (1e-3, 0.1, 0.5, 0.9)]
    assert eps == sorted(eps) and eps[-1] < 2.0
    # small q: about q (e^eps - 1)
    assert PrivacyLoss.pure(2.0).amplify_by_subsampling(1e-9).eps == pytest.approx(
        1e-9 * math.expm1(2.0), rel=1e-8)
    # e^eps overflows a float: ln(q) + eps, no OverflowError
    assert PrivacyLoss.pure(800).amplify_by_subsampling(0.5).eps == pytest.approx(
        800 + math.log(0.5), rel=1e-14)  # rounded up by a few units of roundoff


@pytest.mark.parametrize("eps, q", [(0.1, 0.01), (1.0, 0.3), (3.0, 0.5), (8.0, 0.05)])
def test_subsampling_bound_is_attained_by_randomised_response(eps, q):
    """Poisson sampling at rate q, add/remove neighbours: the mechanism reports the bit
    'the target record was sampled' through randomised response with eps. Without the record
    the output law is P = (e^eps, 1) / (1 + e^eps); with it, q Q + (1 - q) P, Q = P reversed.
    The largest log ratio over outputs and both directions is the bound, exactly."""
    p = np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps))
    with_record = q * p[::-1] + (1 - q) * p
    worst = float(np.max(np.abs(np.log(with_record / p))))
    assert PrivacyLoss.pure(eps).amplify_by_subsampling(q).eps == pytest.approx(worst,
                                                                                rel=1e-12)


def test_subsampling_refusals():
    with pytest.raises(ValueError, match="no closed form for zCDP"):
        PrivacyLoss.zcdp(0.1).amplify_by_subsampling(0.1)
    for q in (0, 1.5, math.nan, "a"):
        with pytest.raises(ValueError, match=r"q must be a number in \(0, 1\]."):
            PrivacyLoss.pure(1).amplify_by_subsampling(q)


# ---- the older helpers call the one implementation ----------------------------------------------


def test_older_helpers_are_thin_calls():
    assert accounting.dp_to_zcdp(0.3) == PrivacyLoss.pure(0.3).to_zcdp().rho
    assert accounting.zcdp_to_approx_dp(0.2, 1e-6) == (
        PrivacyLoss.zcdp(0.2).to_approx(1e-6, method="bun_steinke").eps)
    assert accounting.compose_dp() == 0.0 and accounting.compose_zcdp() == 0.0
    assert accounting.compose_zcdp(0.1, 0.2) == PrivacyLoss.compose(
        PrivacyLoss.zcdp(0.1), PrivacyLoss.zcdp(0.2)).rho
    for args in ((0.2 / 45211, 1e-3 / 45211, 45211 ** 2, 1e-3 / 45211), (800.0, 1e-9, 10, 1e-6),
                 (0.5, 1e-6, 7, 1e-3)):
        assert analytic.strong_composition(*args) == accounting.advanced_composition(*args)
    for eps, delta, n in ((0.3, 1e-5, 100), (5.0, 1e-3, 7), (0.01, 0.1, 45211)):
        tight = analytic.amplify_by_sampling(eps, delta, n)
        # the float formula rounded up (a few units of roundoff), delta exactly rounded up
        formula = (math.log1p(math.expm1(eps) / n), delta / n)
        assert tight[0] > formula[0] and tight[0] == pytest.approx(formula[0], rel=1e-14)
        assert Fraction(tight[1]) >= Fraction(delta) / n
        assert tight[1] == pytest.approx(formula[1], rel=1e-15)
        loss = PrivacyLoss.approx(eps, delta).amplify_by_subsampling(1 / n)
        assert tight == pytest.approx((loss.eps, loss.delta), rel=1e-14)
    for total, k, delta in ((0.3, 10, 0.01), (0.7, 12, 0.001), (5, 3, 0.2)):
        assert validation.advanced_composition_eps(total, k, delta) == (
            PrivacyLoss.approx(total, delta).advanced_composition_inverse(k, delta).eps)


# ---- BudgetAccountant ---------------------------------------------------------------------------


def test_accountant_records_and_composes():
    acc = BudgetAccountant(1.0, 1e-6)
    assert acc.spent == PrivacyLoss.pure(0) and acc.composition == "none"
    assert acc.budget == PrivacyLoss.approx(1.0, 1e-6) and (acc.eps, acc.delta) == (1.0, 1e-6)
    acc.spend(PrivacyLoss.pure(0.5), "mean")
    acc.spend(PrivacyLoss.approx(0.25, 1e-7), "variance")
    assert acc.spent == PrivacyLoss.approx(0.75, 1e-7) and acc.composition == "basic"
    remaining = acc.remaining()
    assert remaining.eps == 0.25 and remaining.delta == pytest.approx(9e-7, rel=1e-12)
    assert acc.ledger == [("mean", PrivacyLoss.pure(0.5)),
                          ("variance", PrivacyLoss.approx(0.25, 1e-7))]
    acc.ledger.clear()  # a copy: the accountant's ledger is untouched
    assert len(acc.ledger) == 2
    acc.spend(PrivacyLoss.pure(0.1))
    assert acc.ledger[-1][0] == "spend 3"


def test_accountant_refuses_an_overspend_and_records_nothing():
    acc = BudgetAccountant(1.0, 1e-6)
    acc.spend(PrivacyLoss.pure(0.5), "mean")
    acc.spend(PrivacyLoss.approx(0.25, 1e-7), "variance")
    before = (acc.ledger, acc.spent)
    with pytest.raises(ValueError) as error:
        acc.spend(PrivacyLoss.pure(0.3), "median")
    message = str(error.value)
    for part in ("Privacy budget exceeded", "eps = 0.3 (pure DP) on 'median'",
                 "the total to (eps, delta) = (1.05, 1e-07)",
                 "over the budget (eps, delta) = (1, 1e-06)",
                 "remaining: (eps, delta) = (0.25, 9e-07)", "Nothing was recorded."):
        assert part in message
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        acc.check(PrivacyLoss.pure(0.3))
    # delta overspends too
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        acc.spend(PrivacyLoss.approx(0.01, 1e-6), "count")
    assert (acc.ledger, acc.spent) == before
    # what fits still goes through
    assert acc.check(PrivacyLoss.pure(0.25)) == PrivacyLoss.approx(1.0, 1e-7)
    assert acc.ledger == before[0]  # check records nothing
    acc.spend(PrivacyLoss.pure(0.25), "median")
    assert acc.spent == PrivacyLoss.approx(1.0, 1e-7)


def test_accountant_refuses_a_total_over_the_budget_by_rounding():
    # issue 25: the exact sum of ten doubles 0.1 is 1 + 5.55e-17 > 1; the nearest-float sum
    # (1.0) would let the tenth spend through
    assert sum(Fraction(0.1) for _ in range(10)) > 1
    acc = BudgetAccountant(1.0)
    for i in range(9):
        acc.spend(PrivacyLoss.pure(0.1), f"query {i}")
    with pytest.raises(accounting.BudgetExceededError,
                       match=r"Privacy budget exceeded.*the exact sum of the spends' floats, "
                             r"eps = 1\.0000000000000002"):
        acc.spend(PrivacyLoss.pure(0.1), "query 9")
    assert len(acc.ledger) == 9
    # the remainder is rounded down: what fits it fits the budget
    remaining = acc.remaining()
    assert Fraction(remaining.eps) <= 1 - 9 * Fraction(0.1)
    acc.spend(remaining, "the rest")
    # the same for delta, and for rho through the zCDP route's sums
    acc = BudgetAccountant(5.0, 1e-7)
    for _ in range(9):
        acc.spend(PrivacyLoss.approx(0.01, 1e-8))
    with pytest.raises(accounting.BudgetExceededError):
        acc.spend(PrivacyLoss.approx(0.01, 1e-8))  # ten doubles 1e-8 sum above 1e-7
    assert sum(Fraction(1e-8) for _ in range(10)) > Fraction(1e-7)
    assert PrivacyLoss.compose(*[PrivacyLoss.zcdp(0.1)] * 10).rho == math.nextafter(1.0, 2.0)


def test_directed_sums_against_fractions():
    # the accountant's rounding of sums and remainders against exact fractions, on random
    # lists of doubles of mixed magnitudes (deterministic seed; an error shows at once)
    rng = np.random.default_rng(25)
    for _ in range(2000):
        k = int(rng.integers(1, 12))
        values = [float(v) for v in rng.choice([0.1, 0.2, 0.3, 1e-7, 1e-6, 0.01, 2.0 ** -60,
                                                 0.7, 1.0 / 3.0], k)
                  * rng.choice([1.0, 0.5, 3.0], k)]
        exact = sum(Fraction(v) for v in values)
        up = _arithmetic.sum_up(values)
        assert Fraction(up) >= exact > Fraction(math.nextafter(up, -math.inf)), values
        minuend = float(rng.choice([1.0, 2.0, 0.9, 1e-5]))
        down = _arithmetic.difference_down(minuend, values)
        assert Fraction(down) <= Fraction(minuend) - exact < Fraction(
            math.nextafter(down, math.inf)), (minuend, values)


@pytest.mark.parametrize("spends", [(0.5, 0.25, 0.25), (0.125,) * 8, (0.75, 0.25),
                                    (0.1, 0.9), (0.3, 0.7)])
def test_accountant_accepts_spends_that_fit_exactly(spends):
    # sums whose exact value is at most 1 go through, to the last spend: the powers of two
    # exactly, and the doubles 0.3 + 0.7 (1 - 5.6e-17); the doubles 0.1 + 0.9 are
    # 1 + 2.8e-17, and their last spend is refused
    fits = sum(Fraction(e) for e in spends) <= 1
    assert fits == (spends != (0.1, 0.9))
    acc = BudgetAccountant(1.0)
    for e in spends[:-1]:
        acc.spend(PrivacyLoss.pure(e))
    if fits:
        acc.spend(PrivacyLoss.pure(spends[-1]))
        assert acc.spent.eps <= 1.0
    else:
        with pytest.raises(accounting.BudgetExceededError):
            acc.spend(PrivacyLoss.pure(spends[-1]))


def test_budget_exceeded_error_is_a_value_error():
    import dppack
    assert "BudgetExceededError" in dppack.__all__
    assert dppack.BudgetExceededError is accounting.BudgetExceededError
    assert issubclass(accounting.BudgetExceededError, ValueError)
    acc = BudgetAccountant(1.0, 1e-6)
    with pytest.raises(accounting.BudgetExceededError) as error:
        acc.spend(PrivacyLoss.pure(1.5), "mean")
    assert str(error.value).startswith("Privacy budget exceeded: spending eps = 1.5 (pure DP) on "
                                       "'mean' would bring the total to eps = 1.5 (pure DP), "
                                       "over the budget (eps, delta) = (1, 1e-06); remaining:")
    # invalid arguments stay plain ValueErrors
    with pytest.raises(ValueError) as error:
        acc.spend(PrivacyLoss.pure(0.5).to_approx(2.0))
    assert not isinstance(error.value, accounting.BudgetExceededError)
    # a release's charge raises it too, before any draw
    with pytest.raises(dppack.BudgetExceededError):
        dppack.meanDP([1.0, 2.0], 2.0, 0.0, 3.0, accountant=acc)


def test_accountant_composes_in_zcdp_when_smaller():
    # 100 releases at eps = 0.01: basic composition spends 1.0; through zCDP (rho = 0.005)
    # and the tight conversion at the accountant's delta, much less
    acc = BudgetAccountant(1.0, 1e-6)
    for _ in range(100):
        acc.spend(PrivacyLoss.pure(0.01))
    expected = PrivacyLoss.zcdp(100 * 0.01 ** 2 / 2).to_approx(1e-6)
    assert acc.composition == "zCDP"
    assert acc.spent == expected and acc.spent.eps < 0.5
    for _ in range(200):  # 300 spends of 0.01 fit a budget of 1 this way
        acc.spend(PrivacyLoss.pure(0.01))
    assert acc.spent.eps <= 1.0 and acc.spent.delta == 1e-6
    # a pure-only accountant (delta = 0) cannot use that route
    # (and the exact sum of a hundred doubles 0.01 is above 1: the 100th is refused)
    pure_only = BudgetAccountant(1.0)
    for _ in range(99):
        pure_only.spend(PrivacyLoss.pure(0.01))
    assert pure_only.composition == "basic"
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        pure_only.spend(PrivacyLoss.pure(0.01))


def test_accountant_with_zcdp_spends():
    with pytest.raises(ValueError, match="needs an accountant with delta > 0"):
        BudgetAccountant(1.0).check(PrivacyLoss.zcdp(0.01))
    acc = BudgetAccountant(2.0, 1e-5)
    acc.spend(PrivacyLoss.zcdp(0.01), "confint")
    assert acc.spent == PrivacyLoss.zcdp(0.01).to_approx(1e-5)
    # an approximate spend leaves the rest of the delta to convert the zCDP spends at
    acc.spend(PrivacyLoss.approx(0.1, 4e-6), "histogram")
    slack = 1e-5 - 4e-6
    assert acc.spent.eps == pytest.approx(
        0.1 + PrivacyLoss.zcdp(0.01).to_approx(slack).eps, rel=1e-12)
    assert acc.spent.delta <= 1e-5 and acc.composition == "zCDP"
    # a large pure spend is better composed basically, the zCDP spends converted alone
    acc.spend(PrivacyLoss.pure(0.5), "mean")
    assert acc.composition == "zCDP + basic"
    assert acc.spent.eps == pytest.approx(
        0.6 + PrivacyLoss.zcdp(0.01).to_approx(slack).eps, rel=1e-12)
    # the delta left for the conversion is rounded down so that the deltas add up to at
    # most the budget: 5.69e-7 + (1e-5 - 5.69e-7) rounds to more than 1e-5 in floats
    assert math.fsum([5.69e-7, 1e-5 - 5.69e-7]) > 1e-5
    acc = BudgetAccountant(1.0, 1e-5)
    acc.spend(PrivacyLoss.approx(0.1, 5.69e-7))
    acc.spend(PrivacyLoss.zcdp(0.001))
    assert acc.spent.delta <= 1e-5 and acc.composition == "zCDP"
    # approximate spends that use up the delta leave nothing to convert at
    full = BudgetAccountant(1.0, 1e-6)
    full.spend(PrivacyLoss.approx(0.1, 1e-6))
    with pytest.raises(ValueError, match="leave none to convert"):
        full.spend(PrivacyLoss.zcdp(0.001))
    assert len(full.ledger) == 1


def test_accountant_ledger_text():
    acc = BudgetAccountant(1.0, 1e-6)
    assert "(no spends)" in str(acc)
    acc.spend(PrivacyLoss.pure(0.5), "meanDP")
    acc.spend(PrivacyLoss.zcdp(0.001), "confintERM")
    lines = str(acc).splitlines()
    assert lines[0] == "BudgetAccountant: budget (eps, delta) = (1, 1e-06)"
    assert lines[1].split() == ["#", "label", "spend"]
    assert lines[2].split()[:2] == ["1", "meanDP"] and "eps = 0.5 (pure DP)" in lines[2]
    assert lines[3].split()[:2] == ["2", "confintERM"] and "rho = 0.001 (zCDP)" in lines[3]
    assert lines[4] == f"spent ({acc.composition} composition): {acc.spent}"
    assert lines[5] == f"remaining: {acc.remaining()}"
    assert repr(acc) == "<BudgetAccountant eps=1.0, delta=1e-06: 2 spends>"


@pytest.mark.parametrize("call, error, message", [
    (lambda: BudgetAccountant(0), ValueError, "eps must be a finite number > 0."),
    (lambda: BudgetAccountant(math.inf), ValueError, "eps must be a finite number > 0."),
    (lambda: BudgetAccountant(1, 1), ValueError, r"delta must be a number in \[0, 1\)."),
    (lambda: BudgetAccountant(1).spend(0.5), TypeError, "takes PrivacyLoss values"),
    (lambda: BudgetAccountant(1).check("eps"), TypeError, "takes PrivacyLoss values"),
    (lambda: BudgetAccountant(1).spend(PrivacyLoss.pure(0.1), 3), TypeError, "label"),
    (lambda: accounting.resolve_accountant(1.0), TypeError, "BudgetAccountant or None"),
])
def test_accountant_argument_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_session_default_accountant_nests_and_restores():
    assert accounting.current_accountant() is None
    outer, inner = BudgetAccountant(1.0), BudgetAccountant(0.5)
    explicit = BudgetAccountant(2.0)
    assert accounting.resolve_accountant(None) is None
    with outer as entered:
        assert entered is outer and accounting.current_accountant() is outer
        with inner:
            assert accounting.current_accountant() is inner
            assert accounting.resolve_accountant(None) is inner
            assert accounting.resolve_accountant(explicit) is explicit
            with outer:  # re-entering is fine
                assert accounting.current_accountant() is outer
            assert accounting.current_accountant() is inner
        assert accounting.current_accountant() is outer
        with pytest.raises(RuntimeError):
            with inner:
                raise RuntimeError("a failing release")
        assert accounting.current_accountant() is outer  # restored after an error
    assert accounting.current_accountant() is None


def test_docstring_examples_run():
    # the package and its private modules (the functions are defined there)
    modules = [accounting] + [importlib.import_module(f"dppack.accounting.{name}") for name in (
        "_accountant", "_arithmetic", "_conversions", "_formulas", "_loss")]
    results = [doctest.testmod(module) for module in modules]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 40


def test_charge_checks_at_once_and_spends_when_told():
    """accounting.charge: the overspend is refused when the charge is made (before the
    release reads anything); the spend is recorded only by Charge.spend()."""
    acc = BudgetAccountant(1.0)
    bill = accounting.charge(acc, lambda: PrivacyLoss.pure(0.75), "mean")
    assert acc.ledger == []
    assert bill.spend() == PrivacyLoss.pure(0.75)
    assert acc.ledger == [("mean", PrivacyLoss.pure(0.75))]
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        accounting.charge(acc, lambda: PrivacyLoss.pure(0.5), "median")
    assert len(acc.ledger) == 1


def test_charge_leaves_invalid_arguments_to_the_release():
    """A loss that cannot be computed from invalid arguments is not checked at once (the
    release's own message comes first); spend() then raises the loss's own error."""
    acc = BudgetAccountant(1.0)

    def invalid():
        return PrivacyLoss.pure(-1.0)

    bill = accounting.charge(acc, invalid, "mean")
    with pytest.raises(ValueError):
        bill.spend()
    assert acc.ledger == []


def test_uncharged_charges_no_accountant_not_even_the_session():
    with BudgetAccountant(1.0) as session:
        assert accounting.resolve_accountant(None) is session
        assert accounting.resolve_accountant(accounting.UNCHARGED) is None
        accounting.charge(accounting.UNCHARGED, lambda: PrivacyLoss.pure(5.0), "inner").spend()
        bill = accounting.charge(None, lambda: PrivacyLoss.pure(0.5), "outer")
        bill.spend()
    assert session.ledger == [("outer", PrivacyLoss.pure(0.5))]
    with pytest.raises(TypeError, match="BudgetAccountant or None"):
        accounting.charge("budget", lambda: PrivacyLoss.pure(0.5), "x")
