"""Audits of the exact releases of the confidence intervals and of stability-based selection
(issue 25): confintERM, confintDP, stable_select, tune_classification_model_stable and
tune_histogram_bin_width_stable, each at the eps it claims.

The neighbours are chosen to expose rounding, not only to attain the sensitivity: values on
either side of a binade edge (0.1 and 0.3; 1 - 2^-53 and 1; scores straddling 1), values near
0 (0 and the smallest subnormal 2^-1074; scores that are multiples of 2^-1074), a value on a
histogram break and the next double above it, and huge scores (2^60), where a float sum
would absorb the noise. A release that lets rounding depend on the data shows it in the
selected index or in the distribution of the released value, which the auditor compares
(tests/privacy/README.md; false-failure rate 1e-3 per audit, fixed seeds).

The grid checks are deterministic: every released coefficient must lie on a power-of-two
grid at least 2^-40 of the noise scale, the same for both neighbours (the grid of the exact
samplers, chosen from public quantities only). A floating-point release (the coefficient plus
a float Laplace-type draw, as before issue 25) has low-order bits that depend on the data
(Mironov 2012) and fails these checks on every draw; the statistical audits alone do not see
that leak at these sample sizes.
"""

import math
import warnings

import numpy as np
import pytest

import dppack
from auditor import assert_private
from dppack.confidence_intervals import _matrices

CI = dict(n_samples=800, n_pilot=300)
FULL = dict(n_samples=10_000, n_pilot=2_000)
TINY = 2.0 ** -1074  # the smallest subnormal double


def sizes(ci=CI):
    return [pytest.param(ci, id="ci"),
            pytest.param(FULL, id="full", marks=pytest.mark.audit_full)]


def zcdp_eps(rho, delta):
    """The eps at delta an accountant claims for rho-zCDP (Canonne, Kamath and Steinke 2020,
    Corollary 13: PrivacyLoss.to_approx)."""
    return dppack.PrivacyLoss.zcdp(rho).to_approx(delta).eps


def _classification_data(last):
    """Six rows in [-1, 1]; the last row's value is ``last`` (the neighbours differ there)."""
    X = np.array([[1.0], [1.0], [-1.0], [-1.0], [0.5], [last]])
    return X, np.array([1.0, 1.0, 0.0, 0.0, 1.0, 1.0])


# one row moved: to the other bound (attains the sensitivity), across binade edges, near 0
CLS_PAIRS = {
    "bounds": (1.0, -1.0),
    "binade": (0.1, 0.3),
    "one": (1.0 - 2.0 ** -53, 1.0),
    "zero": (0.0, TINY),
}


def _pair(name):
    a, b = CLS_PAIRS[name]
    return _classification_data(a), _classification_data(b)


def _intervals(result):
    return [result.coeff[0], result.lower[0], result.upper[0]]


def _lowest_bit(values):
    """The largest power of two dividing each finite double (0 for 0)."""
    out = []
    for v in np.asarray(values, dtype=np.float64).ravel().tolist():
        if v == 0:
            out.append(0.0)
            continue
        mantissa, exponent = math.frexp(abs(v))
        m = int(math.ldexp(mantissa, 53))  # an integer of 53 bits
        out.append(math.ldexp(m & -m, exponent - 53))
    return np.array(out)


def assert_on_coarse_grid(release, d0, d1, scale, n_draws=20, seed=0):
    """Every released value of ``n_draws`` draws on each neighbour is a multiple of a power
    of two >= 2^-40 ``scale`` (``scale``: the noise scale, a public quantity). The exact
    samplers' grids are at least 2^-37 of it (``_random.laplace_grid``: b / g <= 2^36; the
    discrete Gaussian's sigma / g < 2^20); a float sum of the data and a continuous draw has
    its lowest bit near 2^-52 of its magnitude instead."""
    floor = math.ldexp(scale, -40)
    rng = np.random.default_rng(seed)
    for name, data in (("d0", d0), ("d1", d1)):
        for i in range(n_draws):
            values = np.asarray(release(data, rng), dtype=np.float64)
            bits = _lowest_bit(values[values != 0])
            assert np.all(bits >= floor), (
                f"draw {i} on {name}: released values {values.tolist()} are not on a grid "
                f">= {floor:.3g} (lowest bits {bits.tolist()})")


# --------------------------------------------------------------------------------------------
# Confidence intervals
# --------------------------------------------------------------------------------------------


def _confint(method, eps=1.0):
    def release(data, rng):
        X, y = data
        return _intervals(dppack.confintERM(X, y, [1.0], [-1.0], 1.0, eps=eps,
                                            perturbation_method=method, n_draws=50,
                                            random_state=rng))
    return release


@pytest.mark.parametrize("pair, size", [
    pytest.param("binade", CI, id="binade-ci"),
    pytest.param("zero", CI, id="zero-ci"),
    *[pytest.param(p, FULL, id=f"{p}-full", marks=pytest.mark.audit_full) for p in CLS_PAIRS],
])
@pytest.mark.parametrize("method", ["objective", "output"])
def test_confint_erm_pure_at_rounding_edges(method, pair, size):
    d0, d1 = _pair(pair)
    assert_private(_confint(method), d0, d1, 1.0, **size)


@pytest.mark.parametrize("size", sizes())
def test_confint_dp_pure_objective_near_one(size):
    # the model's eps is the whole budget; a row just below the bound against the bound
    d0, d1 = _pair("one")

    def release(data, rng):
        X, y = data
        model = dppack.LogisticRegressionDP("l2", 1.0, 1.0)
        return _intervals(dppack.confintDP(model, X, y, [1.0], [-1.0], n_draws=50,
                                           random_state=rng))
    assert_private(release, d0, d1, 1.0, **size)


@pytest.mark.parametrize("size", sizes())
def test_confint_dp_zcdp_output_binade(size):
    rho, delta = 0.5, 1e-3
    d0, d1 = _pair("binade")

    def release(data, rng):
        X, y = data
        model = dppack.svmDP("l2", 1.0, 5.0, "output")
        return _intervals(dppack.confintDP(model, X, y, [1.0], [-1.0], rho=rho, n_draws=50,
                                           random_state=rng))
    assert_private(release, d0, d1, zcdp_eps(rho, delta), delta, **size)


def test_confint_coefficient_is_on_a_data_independent_grid():
    """Output perturbation's released theta~ (pure DP) lies on the exact release's
    power-of-two grid on both neighbours. Noise scale sqrt(d) / (n c eps_1) = 2 / (gamma
    eps_1) at d = 1, n c = gamma / 2 (bounds +-1 and p = 1: coeff is theta~ itself).
    Objective perturbation's release near the minimiser has a noise scale of about 1e-7 here,
    and its grid is finer than the double's own spacing at |theta~| ~ 1: no grid check can
    tell it from a float there; the statistical audits above cover it."""
    d0, d1 = _pair("binade")
    gamma, eps_1 = 1.0, 0.5  # eps = 1 split 2 : 1 : 1

    def release(data, rng):
        X, y = data
        return dppack.confintERM(X, y, [1.0], [-1.0], gamma, eps=1.0,
                                 perturbation_method="output", n_draws=5,
                                 random_state=rng).coeff
    assert_on_coarse_grid(release, d0, d1, 2.0 / (gamma * eps_1))


def test_confint_zcdp_coefficient_is_on_a_data_independent_grid():
    d0, d1 = _pair("zero")
    gamma, rho_1 = 4.0, 0.5 * 4 / 6  # rho = 0.5 split 4 : 1 : 1
    scale = (2.0 / gamma) / math.sqrt(2 * rho_1)  # sigma = (1 / (n c)) / sqrt(2 rho_1)

    def release(data, rng):
        X, y = data
        return dppack.confintERM(X, y, [1.0], [-1.0], gamma, rho=0.5,
                                 perturbation_method="output", random_state=rng).coeff
    assert_on_coarse_grid(release, d0, d1, scale)


def test_priv_spd_mat_noise_is_on_a_grid_before_post_processing(monkeypatch):
    """PrivSPDMat's pure-DP noisy matrix (before the symmetrisation and the eigenvalue floor,
    post-processing) is the exact discrete Laplace release: entries on one grid for matrices
    at binade edges and near 0."""
    from dppack import _random

    noisy = []
    original = _random.discrete_laplace_noise

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        noisy.append(out)
        return out

    monkeypatch.setattr(_random, "discrete_laplace_noise", spy)
    s, eps = 0.02, 1.0
    M0 = np.array([[0.12, 0.0], [0.0, 1.0 - 2.0 ** -53]])  # 0.12 and 0.13: either side of 1/8
    M1 = np.array([[0.13, TINY], [TINY, 1.0]])

    def release(M, rng):
        _matrices.priv_spd_mat(M, s, eps, random_state=rng)
        return noisy[-1]
    assert_on_coarse_grid(release, M0, M1, 2 * s / eps)


# --------------------------------------------------------------------------------------------
# Stability-based selection
# --------------------------------------------------------------------------------------------


# (beta, d0 scores, d1 scores): every score moves by at most beta
SCORE_PAIRS = {
    # scores straddling the binade edge at 1 (ulp 2^-53 below, 2^-52 above); the noise scale
    # 2 beta / eps = 2^-52 is one ulp above 1, where a float sum rounds the noise to the grid
    "binade": (2.0 ** -53, np.array([1.0, 1.0 - 2.0 ** -53, 1.0 - 2.0 ** -53]),
               np.array([1.0 - 2.0 ** -53, 1.0, 1.0])),
    # subnormal scores: a float noise 2 beta Z underflows to multiples of 2^-1074
    "zero": (4 * TINY, np.array([0.0, 4 * TINY, 4 * TINY]), np.array([4 * TINY, 0.0, 0.0])),
    # huge scores: ulp(2^60) = 256 = beta, so a float sum keeps only whole steps of the noise
    "huge": (256.0, np.array([2.0 ** 60, 2.0 ** 60 + 256, 2.0 ** 60 + 256]),
             np.array([2.0 ** 60 + 256, 2.0 ** 60, 2.0 ** 60])),
    # the worst case of the exact law: one candidate up by beta, the nine others down
    "worst": (0.1, np.r_[0.0, np.full(9, 0.1)], np.r_[0.1, np.zeros(9)]),
}


@pytest.mark.parametrize("pair, size", [
    *[pytest.param(p, dict(n_samples=10_000), id=f"{p}-ci") for p in ("binade", "zero", "huge")],
    *[pytest.param(p, dict(n_samples=100_000), id=f"{p}-full", marks=pytest.mark.audit_full)
      for p in SCORE_PAIRS],
])
@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
def test_stable_select_at_rounding_edges(selector, pair, size):
    beta, d0, d1 = SCORE_PAIRS[pair]

    def release(scores, rng):
        return dppack.stable_select(scores, beta, 1.0, selector=selector, random_state=rng)
    assert_private(release, d0, d1, 1.0, **size)


@pytest.mark.parametrize("size", sizes(dict(n_samples=800, n_pilot=300)))
def test_tune_histogram_bin_width_stable_on_a_break(size):
    # one training value on a break of both candidates (0.5: the right-closed first half)
    # against the next double above it (the second half); the validation part (every fifth
    # value, interleaved) is the same
    delta = 0.01
    x0 = np.r_[np.zeros(39), 0.5]
    x1 = np.r_[np.zeros(39), np.nextafter(0.5, 1.0)]

    def release(x, rng):
        h = dppack.tune_histogram_bin_width_stable(x, [0.5, 0.25], 1.0, 1.0, delta=delta,
                                                   random_state=rng)
        counts = np.asarray(h.counts, dtype=np.float64)
        cells = counts.size
        half = cells // 2
        # the selected width, and the counts of the cells on either side of 0.5
        return [cells, counts[half - 1], counts[half]]
    assert_private(release, x0, x1, 2.0, delta, **size)


@pytest.mark.parametrize("size", sizes(dict(n_samples=800, n_pilot=300)))
def test_tune_histogram_bin_width_stable_near_zero(size):
    delta = 0.01
    x0 = np.r_[np.full(39, 0.9), 0.0]
    x1 = np.r_[np.full(39, 0.9), TINY]

    def release(x, rng):
        h = dppack.tune_histogram_bin_width_stable(x, [0.5, 0.25], 1.0, 1.0, delta=delta,
                                                   random_state=rng)
        counts = np.asarray(h.counts, dtype=np.float64)
        return [counts.size, counts[0], counts[-1]]
    assert_private(release, x0, x1, 2.0, delta, **size)


@pytest.mark.parametrize("size", sizes(dict(n_samples=150, n_pilot=100)))
def test_tune_classification_model_stable_binade(size):
    rows = 40
    X0 = np.where(np.arange(rows) % 2 == 0, 0.3, -0.3).reshape(-1, 1)
    y = (X0[:, 0] > 0).astype(float)
    X1 = X0.copy()
    X1[0, 0] = 0.1  # one training row across the binade edge at 0.25
    delta = 0.01

    def release(data, rng):
        X, labels = data
        models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.5, 20.0)]
        with warnings.catch_warnings():  # a near-uniform choice is expected at this n
            warnings.simplefilter("ignore", dppack.NearUniformSelectionWarning)
            chosen = dppack.tune_classification_model_stable(
                models, X, labels, [1.0], [-1.0], 1.0, delta=delta, random_state=rng)
        return [next(i for i, m in enumerate(models) if m is chosen), chosen.coeff[0]]
    assert_private(release, (X0, y), (X1, y), 2.0, delta, **size)
