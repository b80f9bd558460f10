"""Counts on the integer grid (issue 28, item 1).

Every count a release shows (histogramDP's and tableDP's cells, the thresholded table's
cells, histogramDP's private n under 'unbounded' with a rule) gets exact integer noise on
step 1: the discrete Laplace of parameter eps / Delta (the geometric mechanism of Ghosh,
Roughgarden and Sundararajan 2009) or the discrete Gaussian N_Z(0, s^2) on the integers
(Canonne, Kamath and Steinke 2020), with no rounding after the fact.

Statistical tests: fixed seeds; each test's false-failure rate under a fresh seed is stated
where it is made (ALPHA = 1e-3 for the law checks, LEVEL = 1e-6 for the coverage checks).
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.stats import binomtest

import dppack
from dppack import _random
from dppack.accuracy import noiseIntervalDP
from dppack.mechanisms import discrete_gaussian_parameters, gaussian_sigma

ALPHA = 1e-3  # each chi-square law check's false-failure rate
LEVEL = 1e-6  # each coverage check's false-failure rate (two-sided exact binomial)


def _chisquare_pvalue(noise, pmf, span=40):
    """Chi-square p-value of integer ``noise`` against the symmetric integer law ``pmf``;
    cells of expected count below 5 merged into the two tails."""
    noise = np.asarray(noise).ravel()
    ks = np.arange(-span, span + 1)
    probs = np.asarray(pmf(ks), dtype=np.float64)
    rest = max(1.0 - probs.sum(), 0.0) / 2
    probs[0] += rest
    probs[-1] += rest
    observed = np.array([(np.clip(noise, -span, span) == k).sum() for k in ks])
    expected = probs * noise.size
    keep = expected >= 5
    obs = np.concatenate([[observed[~keep & (ks < 0)].sum()], observed[keep],
                          [observed[~keep & (ks > 0)].sum()]])
    exp = np.concatenate([[expected[~keep & (ks < 0)].sum()], expected[keep],
                          [expected[~keep & (ks > 0)].sum()]])
    cells = exp > 0
    return stats.chisquare(obs[cells], exp[cells]).pvalue


def _declared(n_cells, per_cell):
    levels = [f"c{i:03d}" for i in range(n_cells)]
    return pd.Categorical(np.repeat(levels, per_cell), categories=levels)


# --------------------------------------------------------------------------------------------
# Integers, and the same structure as before
# --------------------------------------------------------------------------------------------

HIST_X = np.linspace(0.01, 0.99, 200)


@pytest.mark.parametrize("mechanism, delta", [("Laplace", 0), ("Gaussian", 1e-5),
                                              ("analytic", 1e-5)])
@pytest.mark.parametrize("which", ["bounded", "unbounded"])
@pytest.mark.parametrize("eps", [0.3, 5.0])
def test_every_count_is_an_integer(mechanism, delta, which, eps):
    if mechanism == "Gaussian":
        eps = min(eps, 0.9)  # the classical calibration needs eps < 1
    for breaks in ("Sturges", [0.0, 0.25, 0.5, 0.75, 1.0]):
        out = dppack.histogramDP(HIST_X, eps, 0, 1, breaks=breaks, which_sensitivity=which,
                                 mechanism=mechanism, delta=delta, allow_negative=True,
                                 random_state=7)
        counts = np.asarray(out.counts)
        assert counts.dtype == np.float64 and np.array_equal(counts, np.round(counts))
        assert counts.size == len(out.breaks) - 1
    table = dppack.tableDP(_declared(5, 3), eps=eps, which_sensitivity=which,
                           mechanism=mechanism, delta=delta, allow_negative=True,
                           random_state=8)
    assert table.dtype == np.float64 and table.shape == (5,)
    assert np.array_equal(table.to_numpy(), np.round(table.to_numpy()))
    thresholded = dppack.tableDP(np.repeat(list("abcdefgh"), 40), eps=eps,
                                 which_sensitivity=which, mechanism=mechanism,
                                 delta=delta or 1e-5, random_state=9)
    assert np.array_equal(thresholded.to_numpy(), np.round(thresholded.to_numpy()))


def test_the_integer_noise_is_drawn_on_the_integers_not_rounded(monkeypatch):
    """The counts go to ``_random.discrete_laplace_noise`` with no rounding step
    (``coordinates=0, grid=0``): noise of parameter eps / Delta exactly as
    ``_random.laplace_grid`` gives it for D = Delta."""
    seen = []
    real = _random.discrete_laplace_noise

    def spy(values, sensitivity, eps, rng, coordinates=None, grid=None):
        seen.append((np.size(values), sensitivity, eps, coordinates, grid))
        return real(values, sensitivity, eps, rng, coordinates, grid)

    monkeypatch.setattr(_random, "discrete_laplace_noise", spy)
    dppack.histogramDP(HIST_X, 2.0, 0, 1, breaks=[0, 0.5, 1], random_state=1)
    dppack.histogramDP(HIST_X, 2.0, 0, 1, which_sensitivity="unbounded", random_state=1)
    assert seen[0] == (2, 2.0, 2.0, 0, 0)
    assert seen[1] == (1, 1.0, 2.0 / 20, 0, 0)  # the private n, 1/20 of eps
    assert seen[2][1:] == (1.0, 2.0 - 2.0 / 20, 0, 0)
    k, units, t, s = _random.laplace_grid(2.0, 2.0, 0, grid=0)
    assert (k, units) == (0, 2) and 0 <= 1.0 - s / t <= 2.0 ** -20


def test_coordinates_zero_needs_a_grid():
    with pytest.raises(ValueError, match="grid"):
        _random.discrete_laplace_noise([1.0], 1.0, 1.0, np.random.default_rng(0),
                                       coordinates=0)


# --------------------------------------------------------------------------------------------
# The laws
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1.0, 5.0])
@pytest.mark.parametrize("which, delta_l1", [("bounded", 2), ("unbounded", 1)])
def test_table_noise_is_discrete_laplace(eps, which, delta_l1):
    """tableDP on 100 declared cells x 100 seeds: noisy minus true counts against scipy's
    dlaplace(eps / Delta) (chi-square, ALPHA); the old law (continuous Laplace of scale
    Delta / eps, rounded) is rejected by the same draws at eps = 5."""
    factor = _declared(100, 20)
    noise = np.concatenate([
        dppack.tableDP(factor, eps=eps, which_sensitivity=which, allow_negative=True,
                       random_state=seed).to_numpy() - 20.0 for seed in range(100)])
    assert _chisquare_pvalue(noise, stats.dlaplace(eps / delta_l1).pmf) > ALPHA
    if eps == 5.0:
        old = stats.laplace(scale=delta_l1 / eps)
        assert _chisquare_pvalue(noise, lambda k: old.cdf(k + 0.5) - old.cdf(k - 0.5)) < ALPHA


@pytest.mark.parametrize("eps, mechanism, which", [(0.9, "Gaussian", "bounded"),
                                                   (5.0, "analytic", "unbounded"),
                                                   (0.9, "Gaussian", "unbounded")])
def test_gaussian_counts_are_the_discrete_gaussian(eps, mechanism, which):
    """The Gaussian counts: N_Z(0, s^2) on the integers with s^2 the calibration's
    (``integers=True``, k = 0), >= DPpack's sigma^2 and close to it (a multiple of 2^-10
    below 2^10, also where sigma < 1); chi-square of 10^4 noises (ALPHA)."""
    delta = 1e-5
    bounded = which == "bounded"
    sens = math.sqrt(2.0) if bounded else 1.0
    sigma = gaussian_sigma(eps, delta, sens, "aDP", mechanism == "analytic")
    k, sigma2 = discrete_gaussian_parameters(sigma, sens, eps=eps, delta=delta,
                                             coordinates=2 if bounded else 1, integers=True)
    assert k == 0 and sigma * sigma <= sigma2 <= 1.15 * sigma * sigma + 2.0 ** -10
    factor = _declared(100, 20)
    noise = np.concatenate([
        dppack.tableDP(factor, eps=eps, which_sensitivity=which, mechanism=mechanism,
                       delta=delta, allow_negative=True, random_state=seed).to_numpy() - 20.0
        for seed in range(100)])
    support = np.arange(-400, 401)
    total = np.exp(-support ** 2 / (2.0 * sigma2)).sum()
    assert _chisquare_pvalue(noise, lambda z: np.exp(-z ** 2 / (2.0 * sigma2)) / total) > ALPHA


@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("type_DP", ["aDP", "pDP"])
def test_one_count_gaussian_guarantee_is_cks_theorem_7(eps, type_DP):
    """A single count (D = 1, no rounding step): the variance found, on the lattice 2^-10
    below 2^10 (integers above), meets CKS Theorem 7's exact delta (aDP) at eps, and one
    lattice step less does not, unless it is DPpack's sigma^2 rounded up to the lattice (the
    search starts there)."""
    delta = 1e-5
    sigma = gaussian_sigma(eps, delta, 1.0, type_DP)
    k, sigma2 = discrete_gaussian_parameters(sigma, 1.0, eps=eps, delta=delta,
                                             type_DP=type_DP, integers=True)
    step = Fraction(1, 1024) if sigma * sigma < 1024 else 1
    start = math.ceil(Fraction(sigma) ** 2 / step) * step
    assert k == 0 and sigma2 >= start and Fraction(sigma2) % step == 0
    if type_DP == "aDP":
        assert _random.discrete_gaussian_delta(eps, 1, math.sqrt(sigma2)) <= delta
        if sigma2 > start:
            assert _random.discrete_gaussian_delta(eps, 1, math.sqrt(sigma2 - step)) > delta


# --------------------------------------------------------------------------------------------
# The accuracy reports: exact coverage of the integer law
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, mechanism, which, alpha", [
    (1.0, "Laplace", "bounded", 0.1),
    (5.0, "Laplace", "bounded", 0.2),
    (5.0, "Laplace", "unbounded", 0.05),
    (0.9, "Gaussian", "bounded", 0.1),
    (5.0, "analytic", "unbounded", 0.2),
])
def test_count_report_coverage_is_exact(eps, mechanism, which, alpha):
    """noiseIntervalDP for tableDP and histogramDP: the released integer count c + Z lies
    within the integer half-width T exactly with the report's coverage P(|Z| <= T) (no
    rounding: the miss rate is 1 - coverage, not below it). 200 cells x 100 seeds, two-sided
    exact binomial at LEVEL; coverage >= 1 - alpha."""
    delta = 0 if mechanism == "Laplace" else 1e-5
    report = noiseIntervalDP("tableDP", eps, which_sensitivity=which, mechanism=mechanism,
                             delta=delta, alpha=alpha, declared=True)
    histogram = noiseIntervalDP("histogramDP", eps, which_sensitivity=which,
                                mechanism=mechanism, delta=delta, alpha=alpha,
                                breaks=[0, 1, 2])
    assert histogram.half_width == report.half_width and report.grid == 1.0
    assert report.coverage >= 1 - alpha and float(report.half_width).is_integer()
    factor = _declared(200, 30)
    misses = 0
    for seed in range(100):
        out = dppack.tableDP(factor, eps=eps, which_sensitivity=which, mechanism=mechanism,
                             delta=delta, allow_negative=True, random_state=seed).to_numpy()
        misses += int(np.sum(np.abs(out - 30.0) > report.half_width))
    assert binomtest(misses, 200 * 100, 1 - report.coverage).pvalue > LEVEL


def test_histogram_rule_report_coverage():
    """histogramDP, 'unbounded' with a rule: the counts get 19/20 of eps (their report), the
    n its 1/20; 3000 values keep Sturges' 13 cells whatever the noisy n. 13 cells x 300
    seeds, two-sided exact binomial at LEVEL."""
    x = np.random.default_rng(11).uniform(0, 1, 3000)
    true = dppack.rcompat.hist(x, dppack.rcompat.pretty(0, 1, n=13, min_n=1)).counts
    report = noiseIntervalDP("histogramDP", 2.0, which_sensitivity="unbounded", alpha=0.1)
    misses = 0
    for seed in range(300):
        out = dppack.histogramDP(x, 2.0, 0, 1, which_sensitivity="unbounded",
                                 allow_negative=True, random_state=seed).counts
        assert out.size == true.size
        misses += int(np.sum(np.abs(out - true) > report.half_width))
    assert binomtest(misses, 13 * 300, 1 - report.coverage).pvalue > LEVEL


def test_huge_gaussian_sigma_keeps_integers():
    """sigma >= 2^13 (eps near 1e-4): up to sigma < 2^14 the integers still (k = 0, the
    variance rounded to the sampler's proposal scale beyond 2^26); beyond, the usual grid
    g = 2^k >= 2 with its rounding step: the released counts are multiples of g, integers."""
    rng = np.random.default_rng(5)
    for sigma, grid in ((10_000.0, 0), (40_000.0, 2)):
        k, sigma2 = discrete_gaussian_parameters(sigma, 1.0, eps=0.5, delta=1e-5,
                                                 integers=True)
        assert k == grid and sigma2 * 4.0 ** k >= sigma * sigma
        out = dppack.mechanisms.discrete_gaussian_release(
            np.arange(50.0), sigma, 1.0, rng, eps=0.5, delta=1e-5, coordinates=1,
            integers=True)
        assert np.array_equal(out, np.round(out))
        assert np.all(np.mod(out, 2.0 ** k) == 0)  # g (round(c / g) + Z)
