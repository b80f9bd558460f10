"""Accuracy reports (issue 16 item 5): ``dppack.noiseIntervalDP``.

* Exact values: the integer half-width T of the discrete Laplace and discrete Gaussian
  against brute-force sums of their probabilities (deterministic).
* Coverage: releases drawn by the library's own samplers (fixed seeds), the share of values
  with abs(release - true value) > h compared with the exact miss probability 1 - coverage
  the report states, by an exact two-sided binomial test at level 1e-6 (one-sided, for
  the bounds that are not exact: rounded counts, the quantiles' rank error). Each test's
  false-failure rate is at most 1e-6 (2e-6 for the two-test cases), about 2e-5 for the file.
  The releases are drawn for true values on the grid where the law is exact, so the test
  checks the report's scale against the scale the release uses: a report computed from a
  wrong sensitivity or scale (10 to 25 percent off) fails it (planted, see each test).
* The report from public arguments equals the mechanism's report for DPpack's sensitivity
  of the statistic (DPpack 0.2.2's formulas, written out independently).
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy.stats import binomtest

import dppack
from dppack import _random
from dppack.accuracy import noiseIntervalDP
from dppack._access_cores import rounding_error
from dppack._exact_sums import data_grid
from dppack._plans import integer_half_width

LEVEL = 1e-6  # each binomial test's false-failure rate


def _two_sided(misses, trials, p):
    assert binomtest(int(misses), trials, p).pvalue > LEVEL, (misses, trials, p)


def _not_above(misses, trials, p):
    assert binomtest(int(misses), trials, p, alternative="greater").pvalue > LEVEL, (
        misses, trials, p)


# --------------------------------------------------------------------------------------------
# Exact values against brute force
# --------------------------------------------------------------------------------------------


def _brute_half_width(pmf, alpha):
    """The smallest T with sum_{|z| <= T} pmf >= 1 - alpha, by summing."""
    total = pmf.sum()
    centre = (pmf.size - 1) // 2
    mass = pmf[centre] / total
    t = 0
    while mass < 1 - alpha:
        t += 1
        mass += 2 * pmf[centre + t] / total
    return t, mass


@pytest.mark.parametrize("t,s", [(1, 1), (37, 10), (1 << 56, 12345678901)])
@pytest.mark.parametrize("alpha", [0.5, 0.1, 0.05, 1e-3])
def test_discrete_laplace_half_width_is_exact(t, s, alpha):
    scale = t / s
    z = np.arange(-int(80 * scale) - 10, int(80 * scale) + 11) if scale < 1e4 else None
    if z is None:  # a release's scale (2^20 grid units): closed form of the sum instead
        q = math.exp(-s / t)
        found, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, t, s),
                                             alpha)
        assert 1 - 2 * q ** (found + 1) / (1 + q) >= 1 - alpha - 1e-12
        assert 1 - 2 * q ** found / (1 + q) < 1 - alpha
        return
    pmf = np.exp(-np.abs(z) * s / t)
    expected, mass = _brute_half_width(pmf, alpha)
    found, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, t, s),
                                         alpha)
    assert found == expected
    assert coverage == pytest.approx(mass, rel=1e-10)


@pytest.mark.parametrize("sigma2", [0.3, 1.0, 10.0, 400.0, 12345.0])
@pytest.mark.parametrize("alpha", [0.5, 0.1, 0.05, 1e-3])
def test_discrete_gaussian_half_width_is_exact(sigma2, alpha):
    width = int(40 * math.sqrt(sigma2)) + 10
    z = np.arange(-width, width + 1)
    pmf = np.exp(-z.astype(float) ** 2 / (2 * sigma2))
    expected, mass = _brute_half_width(pmf, alpha)
    found, coverage = integer_half_width(lambda m: _random.discrete_gaussian_tail(m, sigma2),
                                         alpha, guess=5)
    assert found == expected
    assert coverage == pytest.approx(mass, rel=1e-9)


def test_half_widths_are_the_textbook_ones_within_a_grid_step():
    # Laplace: b ln(1/alpha), b = (U - L) / (n eps); Gaussian: sigma z_{1 - alpha/2}
    r = noiseIntervalDP("meanDP", eps=0.5, n=200, lower_bound=0, upper_bound=10, alpha=0.1)
    b = 10 / 200 / 0.5
    # plus g / 2, the rounding of the records to the grid g = 2^-17 of the bounds
    assert r.half_width == pytest.approx(b * math.log(10) + 2.0 ** -18, rel=1e-5)
    assert r.scale == pytest.approx(b, rel=1e-5)
    assert r.law == "discrete Laplace" and r.units == "value"
    sigma = 0.1 * math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    r = noiseIntervalDP("GaussianMechanism", eps=0.5, delta=1e-5, sensitivities=0.1)
    assert r.half_width == pytest.approx(sigma * special.ndtri(0.975), rel=1e-3)
    assert r.coverage >= 0.95


# --------------------------------------------------------------------------------------------
# Coverage of the mechanisms' own draws
# --------------------------------------------------------------------------------------------

N = 40000


def _misses(released, true, report):
    return int(np.sum(np.abs(np.asarray(released) - true) > report.half_width))


def test_laplace_mechanism_scalar_law_coverage():
    # With an allocation, value i is a scalar release at (Delta_i, a_i eps): N equal shares
    # of eps N give N independent draws of the scalar law at eps = 1.3.
    eps, sens = 1.3, 0.7
    scalar = noiseIntervalDP("LaplaceMechanism", eps, sensitivities=sens, alpha=0.37)
    many = noiseIntervalDP("LaplaceMechanism", eps * N, sensitivities=np.full(N, sens),
                           alloc_proportions=np.ones(N), alpha=0.37)
    assert np.all(many.half_width == scalar.half_width)
    out = dppack.LaplaceMechanism(np.zeros(N), eps * N, np.full(N, sens),
                                  alloc_proportions=np.ones(N), random_state=11)
    assert np.all(np.mod(out, scalar.grid) == 0)  # the release's grid is the report's
    _two_sided(_misses(out, 0.0, scalar), N, 1 - scalar.coverage)
    # planted: the scale 10% off is caught
    wrong = scalar.half_width * math.log(1 / 0.37 ** 1.1) / math.log(1 / 0.37)
    assert binomtest(int(np.sum(np.abs(out) > wrong)), N, 1 - scalar.coverage).pvalue < LEVEL


def test_laplace_mechanism_vector_coverage_and_simultaneous():
    # Without allocation: one release of the vector, L1 sensitivity sum(Delta)
    sens = np.array([0.5, 1.0, 1.5])
    report = noiseIntervalDP("LaplaceMechanism", 2.0, sensitivities=sens, alpha=0.3)
    assert report.scale == pytest.approx([1.5] * 3, rel=1e-5)  # sum / eps
    draws = np.array([dppack.LaplaceMechanism(np.zeros(3), 2.0, sens, random_state=seed)
                      for seed in range(4000)])
    _two_sided(_misses(draws, 0.0, report), draws.size, 1 - report.coverage[0])
    joint = noiseIntervalDP("LaplaceMechanism", 2.0, sensitivities=sens, alpha=0.3,
                            simultaneous=True)
    per_value = noiseIntervalDP("LaplaceMechanism", 2.0, sensitivities=sens,
                                alpha=1 - 0.7 ** (1 / 3))
    assert np.all(joint.half_width == per_value.half_width)
    any_miss = np.sum(np.any(np.abs(draws) > joint.half_width, axis=1))
    _two_sided(any_miss, 4000, 1 - float(np.prod(joint.coverage)))


@pytest.mark.parametrize("kind", ["classical", "pDP", "analytic"])
def test_gaussian_mechanism_coverage(kind):
    if kind == "classical":  # the whole vector, one sigma for its L2 sensitivity
        args = dict(eps=0.5, delta=1e-5, sensitivities=0.2, size=N)
        draw = dict(true_values=np.zeros(N), eps=0.5, delta=1e-5, sensitivities=0.2)
    else:  # value i a scalar release at (a_i eps, a_i delta)
        extra = dict(type_DP="pDP") if kind == "pDP" else dict(analytic=True)
        args = dict(eps=0.8 * N, delta=1e-6 * N, sensitivities=np.full(N, 0.2),
                    alloc_proportions=np.ones(N), **extra)
        draw = dict(true_values=np.zeros(N), **{k: v for k, v in args.items()
                                                 if k != "size"})
    report = noiseIntervalDP("GaussianMechanism", alpha=0.2, **args)
    out = dppack.GaussianMechanism(**draw, random_state=5)
    assert report.law == "discrete Gaussian"
    assert np.all(np.mod(out, report.grid) == 0)
    _two_sided(_misses(out, 0.0, report), N, 1 - report.coverage[0])
    wrong = report.half_width[0] * 0.9  # planted: sigma 10% low
    assert binomtest(int(np.sum(np.abs(out) > wrong)), N, 1 - report.coverage[0]).pvalue < LEVEL


# --------------------------------------------------------------------------------------------
# The statistics
# --------------------------------------------------------------------------------------------

X = np.array([0.5, 1.0, 1.25, 1.5, 0.75])  # n = 5 in [0, 2]; every statistic on the grid
SEEDS = 2000


def _statistic_misses(release, true, report):
    values = np.array([release(seed) for seed in range(SEEDS)])
    return _misses(values, true, report)


@pytest.mark.parametrize("mechanism", ["Laplace", "analytic"])
@pytest.mark.slow
def test_mean_var_cov_coverage(mechanism):
    # true values (mean 1, variance 0.15625, covariance of x and 2 - x) lie on the grids
    # eps large enough that varDP's clamp to [0, 1.2] almost never acts (it would only help)
    eps = 30.0 if mechanism == "Laplace" else 300.0
    kw = dict(mechanism=mechanism, delta=1e-6 if mechanism != "Laplace" else 0)
    cases = {
        "meanDP": (lambda s: dppack.meanDP(X, eps, 0, 2, random_state=s, **kw), 1.0,
                   dict(n=5, lower_bound=0, upper_bound=2)),
        "varDP": (lambda s: dppack.varDP(X, eps, 0, 2, random_state=s, **kw), 0.15625,
                  dict(n=5, lower_bound=0, upper_bound=2)),
        "covDP": (lambda s: dppack.covDP(X, 2 - X, eps, 0, 2, 0, 2, random_state=s, **kw),
                  -0.15625, dict(n=5, lower_bound1=0, upper_bound1=2, lower_bound2=0,
                                 upper_bound2=2)),
    }
    for name, (release, true, public) in cases.items():
        report = noiseIntervalDP(name, eps, alpha=0.37, **public, **kw)
        _two_sided(_statistic_misses(release, true, report), SEEDS, 1 - report.coverage)


def test_statistics_use_dpppacks_sensitivities():
    # The report of each statistic is the mechanism's report for DPpack's sensitivity
    # (DPpack 0.2.2: (U - L)/n, (U - L)^2/n, (U1 - L1)(U2 - L2)/n,
    # pooled (U - L)^2 (1 - 1/n_max)/(N - J))
    def same(statistic, sensitivity, **public):
        for mechanism, extra in [("Laplace", {}), ("Gaussian", dict(delta=1e-5)),
                                 ("analytic", dict(delta=1e-5))]:
            got = noiseIntervalDP(statistic, 0.5, mechanism=mechanism, **extra, **public)
            if mechanism == "Laplace":
                want = noiseIntervalDP("LaplaceMechanism", 0.5, sensitivities=sensitivity)
            else:
                want = noiseIntervalDP("GaussianMechanism", 0.5, delta=1e-5,
                                       sensitivities=sensitivity,
                                       analytic=mechanism == "analytic")
            # plus the records' rounding to the grid of the bounds
            bounds = tuple(public[key] for key in sorted(public) if "bound" in key)
            bounds = bounds if len(bounds) == 2 else (
                bounds[0], bounds[2], bounds[1], bounds[3])  # (L, U) or (L1, U1, L2, U2)
            rounding = (2.0 ** (data_grid(*bounds)[0] - 1) if statistic == "meanDP" else
                        rounding_error(public.get("sizes", [public.get("n")]), bounds))
            assert got.half_width == want.half_width + rounding, (statistic, mechanism)

    same("meanDP", 3 / 40, n=40, lower_bound=-1, upper_bound=2)
    same("varDP", 9 / 40, n=40, lower_bound=-1, upper_bound=2)
    same("sdDP", 9 / 40, n=40, lower_bound=-1, upper_bound=2)
    same("covDP", 3 * 5 / 40, n=40, lower_bound1=-1, upper_bound1=2, lower_bound2=0,
         upper_bound2=5)
    same("pooledVarDP", 9 * (1 - 1 / 30) / (50 - 2), sizes=[20, 30], lower_bound=-1,
         upper_bound=2)
    same("pooledVarDP", 9 / (50 - 2), sizes=[20, 30], lower_bound=-1, upper_bound=2,
         approx_n_max=True)
    same("pooledCovDP", 15 * (1 - 1 / 30) / (50 - 2), sizes=[20, 30], lower_bound1=-1,
         upper_bound1=2, lower_bound2=0, upper_bound2=5)


@pytest.mark.slow
def test_pooled_and_sd_coverage():
    a, b = X, np.array([0.25, 1.75, 1.0, 1.0])
    report = noiseIntervalDP("pooledVarDP", 40.0, sizes=[5, 4], lower_bound=0, upper_bound=2,
                             alpha=0.37)
    true = (4 * np.var(a, ddof=1) + 3 * np.var(b, ddof=1)) / 7
    _two_sided(_statistic_misses(
        lambda s: dppack.pooledVarDP(a, b, eps=40.0, lower_bound=0, upper_bound=2,
                                     random_state=s), true, report), SEEDS,
        1 - report.coverage)
    # sdDP: the interval of the released s holds the true sd when varDP's noise is within h
    report = noiseIntervalDP("sdDP", 30.0, n=5, lower_bound=0, upper_bound=2, alpha=0.37)
    sd = math.sqrt(0.15625)
    outside = 0
    for seed in range(SEEDS):
        low, high = report.interval(dppack.sdDP(X, 30.0, 0, 2, random_state=seed))
        outside += not (low <= sd <= high)
    _two_sided(outside, SEEDS, 1 - report.coverage)


def test_histogram_and_table_counts_per_cell():
    # 400 declared cells of 30 records each, released with negative counts allowed: the
    # rounded count is within h with probability >= the noise's coverage (one-sided).
    cells = 400
    levels = [f"c{i}" for i in range(cells)]
    factor = pd.Categorical(np.repeat(levels, 30), categories=levels)
    for which, changed_sens in [("bounded", 2), ("unbounded", 1)]:
        report = noiseIntervalDP("tableDP", 1.0, which_sensitivity=which, alpha=0.3)
        assert report.units == "count" and float(report.half_width).is_integer()
        misses = sum(
            _misses(dppack.tableDP(factor, eps=1.0, which_sensitivity=which,
                                   allow_negative=True, random_state=seed).to_numpy(),
                    30.0, report) for seed in range(50))
        _not_above(misses, 50 * cells, 1 - report.coverage)
        # the half-width is the Laplace quantile of scale sensitivity / eps, rounded
        assert abs(report.half_width - changed_sens * math.log(1 / 0.3)) <= 1
    # histogramDP's counts: the same law (given breaks; a rule and unbounded split eps)
    x = np.repeat(np.arange(0.5, 40), 30)  # 30 records in each of 40 unit cells
    report = noiseIntervalDP("histogramDP", 1.0, alpha=0.3, breaks=np.arange(0, 41))
    misses = sum(_misses(dppack.histogramDP(x, 1.0, 0, 40, breaks=np.arange(0, 41),
                                            allow_negative=True, random_state=seed).counts,
                         30.0, report) for seed in range(100))
    _not_above(misses, 100 * 40, 1 - report.coverage)
    both = noiseIntervalDP("histogramDP", 0.5, which_sensitivity="both", mechanism="Gaussian",
                           delta=1e-5)
    rule = noiseIntervalDP("histogramDP", 0.1, which_sensitivity="unbounded")
    given = noiseIntervalDP("histogramDP", 0.1, which_sensitivity="unbounded", breaks=[0, 1, 2])
    assert set(both) == {"Bounded", "Unbounded"}
    assert rule.half_width > given.half_width  # 19/20 of eps left for the counts


def test_quantile_rank_error_bound():
    rng = np.random.default_rng(3)
    x = np.round(rng.uniform(0, 1, 300), 6)
    report = noiseIntervalDP("quantileDP", 0.5, quant=0.3, lower_bound=0, upper_bound=1,
                             n=300, alpha=0.05)
    candidates = dppack.stats._quantile.quantile_candidates(0.0, 1.0)
    assert report.half_width == pytest.approx(
        2 * (1 + 2 ** -20) / 0.5 * (math.log(candidates) + math.log(20)) + 2 ** -20)
    ranks = np.array([np.sum(x <= dppack.quantileDP(x, 0.3, 0.5, 0, 1, random_state=seed))
                      for seed in range(400)])
    best = 0.0  # distinct data: some point has exactly 0.3 n = 90 data below it
    _not_above(np.sum(np.abs(ranks - 90) > best + report.half_width), 400, 0.05)
    median = noiseIntervalDP("medianDP", 0.5, lower_bound=0, upper_bound=1)
    assert median.half_width == report.half_width and median.units == "rank"
    with pytest.raises(ValueError, match="rank error"):
        median.interval(0.5)
    # quantilesDP, 'independent': quantileDP at eps / m for all m quantiles at once
    joint = noiseIntervalDP("quantilesDP", 1.5, quants=[0.1, 0.3, 0.9], lower_bound=0,
                            upper_bound=1, method="independent", n=300)
    one = noiseIntervalDP("quantileDP", 0.5, quant=0.3, lower_bound=0, upper_bound=1, n=300,
                          alpha=1 - 0.95 ** (1 / 3))
    assert joint.simultaneous and joint.half_width == one.half_width
    outs = np.array([dppack.quantilesDP(x, [0.1, 0.3, 0.9], 1.5, 0, 1, method="independent",
                                        random_state=seed) for seed in range(200)])
    errors = np.abs(np.sum(x[None, None, :] <= outs[:, :, None], axis=2) - [30, 90, 270])
    _not_above(np.sum(np.max(errors, axis=1) > joint.half_width), 200, 0.05)
    with pytest.raises(ValueError, match="needs resolution"):  # 'joint' (test_accuracy_quantiles)
        noiseIntervalDP("quantilesDP", 1.0, quants=[0.5], lower_bound=0, upper_bound=1,
                        method="joint")


def test_refusals():
    with pytest.raises(ValueError, match="statistic must be one of"):
        noiseIntervalDP("modeDP", 1.0)
    with pytest.raises(ValueError, match="alpha must be a number in"):
        noiseIntervalDP("meanDP", 1.0, alpha=1.0, n=3, lower_bound=0, upper_bound=1)
    with pytest.raises(ValueError, match="n is required"):  # unbounded: a lower bound on N
        noiseIntervalDP("varDP", 1.0, lower_bound=0, upper_bound=1,
                        which_sensitivity="unbounded")
    with pytest.raises(ValueError, match="takes"):
        noiseIntervalDP("meanDP", 1.0, n=3, lower_bound=0, upper_bound=1, bounds=2)
    with pytest.raises(ValueError, match="cells"):
        noiseIntervalDP("tableDP", 1.0, simultaneous=True)
    with pytest.raises(ValueError, match="eps must be < 1"):  # the release's own message
        noiseIntervalDP("meanDP", 2.0, n=3, lower_bound=0, upper_bound=1,
                        mechanism="Gaussian", delta=1e-5)
    with pytest.raises(ValueError, match="lower_bound must be < upper_bound"):
        noiseIntervalDP("meanDP", 1.0, n=3, lower_bound=1, upper_bound=0)
    with pytest.raises(ValueError, match="n must be"):
        noiseIntervalDP("varDP", 1.0, n=1, lower_bound=0, upper_bound=1)


# --------------------------------------------------------------------------------------------
# Review fixes: thresholded tables, the releases' own checks, the counts' rounding,
# ExponentialMechanism
# --------------------------------------------------------------------------------------------


def test_thresholded_table_is_refused():
    # Undeclared levels: the report of the thresholded release is tested in
    # test_accuracy_tables.py; here, declared is required where the release could be
    # thresholded. Planted: declared defaulting to TRUE -> the first raise fails.
    assert "threshold" in noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared=False).details
    for undeclared_possible in (dict(delta=1e-5), dict(mechanism="Gaussian", delta=1e-5),
                                dict(mechanism="analytic", delta=1e-5)):
        with pytest.raises(ValueError, match="declared is required"):
            noiseIntervalDP("tableDP", 0.5, **undeclared_possible)
    with pytest.raises(ValueError, match="declared must be"):
        noiseIntervalDP("tableDP", 0.5, declared="yes")
    # Laplace with delta = 0: the release refuses undeclared levels, so they are declared
    default = noiseIntervalDP("tableDP", 1.0)
    assert noiseIntervalDP("tableDP", 1.0, delta=1e-5, declared=True).half_width == \
        default.half_width == 6.0
    # the declared Gaussian release: the law of the declared release (count_noise_laws)
    gauss = noiseIntervalDP("tableDP", 0.5, mechanism="Gaussian", delta=1e-5, declared=True)
    k, _ = dppack.stats._histogram.count_noise_laws(0.5, "Gaussian", 1e-5)["Bounded"]
    assert gauss.grid == 2.0 ** k and gauss.half_width > default.half_width
    with pytest.raises(ValueError, match="takes"):  # histogramDP has no levels to declare
        noiseIntervalDP("histogramDP", 1.0, declared=True)


def _release_message(call):
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("breaks", ["nonsense", [0, 1, 3], [0, 1, 2, 2.5]])
def test_histogram_breaks_are_the_releases(breaks):
    # One home for the breaks: rcompat._hist.parse_breaks and the release's equidistance check,
    # with its messages. Planted: the report's old check (only rule vs points) -> no error.
    release = _release_message(lambda: dppack.histogramDP(np.arange(4.0), 1.0, 0, 3,
                                                          breaks=breaks))
    report = _release_message(lambda: noiseIntervalDP("histogramDP", 1.0, breaks=breaks))
    assert report == release


def test_histogram_breaks_function_and_cells():
    # A function is called with the bounds, as the release calls it: its points or its
    # number of cells are given breaks (no share of eps for n), a rule name is not.
    def points(bounds):
        return np.linspace(bounds[0], bounds[1], 5)

    kwargs = dict(which_sensitivity="unbounded", lower_bound=0, upper_bound=1)
    given = noiseIntervalDP("histogramDP", 0.1, breaks=[0, 1, 2], **kwargs)
    assert noiseIntervalDP("histogramDP", 0.1, breaks=points, **kwargs).half_width == \
        given.half_width == noiseIntervalDP("histogramDP", 0.1, breaks=4, **kwargs).half_width
    assert noiseIntervalDP("histogramDP", 0.1, breaks="scott", **kwargs).half_width > \
        given.half_width
    with pytest.raises(ValueError, match="lower_bound and upper_bound are required"):
        noiseIntervalDP("histogramDP", 0.1, breaks=points)
    with pytest.raises(ValueError, match="Only equidistant"):
        noiseIntervalDP("histogramDP", 0.1, breaks=lambda b: [0, 0.1, 1], lower_bound=0,
                        upper_bound=1)


@pytest.mark.parametrize("quants,method", [([0.5, 0.1], "independent"),
                                           (["a"], "independent"), ([1.5], "independent"),
                                           ([], "independent"), ([0.5], "nonsense")])
def test_quantiles_checks_are_the_releases(quants, method):
    # quantiles.check_quants and the method's choice, with the release's messages.
    # Planted: the old per-value data_access.check_quant -> [0.5, 0.1] and [] pass, and
    # 'nonsense' gets the report's own message.
    release = _release_message(lambda: dppack.quantilesDP(np.arange(4.0), quants, 1.0, 0, 3,
                                                          method=method))
    report = _release_message(lambda: noiseIntervalDP(
        "quantilesDP", 1.0, quants=quants, lower_bound=0, upper_bound=3, method=method))
    assert report == release


def test_count_rounding_exact_coverage():
    # The released count of a true integer count c is c + Z, Z integer noise on the integers
    # (issue 28: no grid finer than 1, no rounding), so the exact coverage of the integer
    # report H is P(abs(Z) <= H) = 1 - 2 P(Z >= H + 1). At alpha = 0.05, bounded Laplace,
    # eps = 1 (discrete Laplace of parameter 1/2): H = 6 covers (0.961), 5 does not (0.937).
    # Deterministic.
    laws = dppack.stats._histogram.count_noise_laws(1.0, "Laplace", 0, "aDP", "bounded")
    k, tail = laws["Bounded"]
    assert k == 0
    q = math.exp(-0.5)

    def coverage(h):
        return 1.0 - 2.0 * q ** (h + 1) / (1 + q)  # written out, not the release's tail

    assert coverage(6) == pytest.approx(1.0 - 2.0 * tail(7), rel=1e-5)
    report = noiseIntervalDP("tableDP", 1.0, alpha=0.05)
    h = report.half_width
    assert h == 6.0
    assert coverage(h) >= 0.95 > coverage(h - 1)
    histogram = noiseIntervalDP("histogramDP", 1.0, alpha=0.05, breaks=[0, 1, 2])
    assert histogram.half_width == h


def test_exponential_mechanism_utility_bound():
    # Dwork and Roth 2014, Theorem 3.11, for the exact sampler's rounded utilities. One
    # candidate at utility 0 and R - 1 at -(bound + 1e-6): every draw of those is a miss,
    # with probability (R - 1) w / (1 + (R - 1) w), w = exp(-gamma a) <= alpha / R, just
    # below alpha (0.0476 for alpha = 0.05, R = 1000): a near-tight case. 2000 draws (fixed
    # seeds), one-sided binomial test at 1e-6 (its false-failure rate). Planted: ln |R|
    # dropped from the bound (miss rate 0.98) or eps / Delta' in place of eps / (2 Delta')
    # (0.87) -> fails.
    size, alpha, eps, sens = 1000, 0.05, 0.8, 2.5
    report = noiseIntervalDP("ExponentialMechanism", eps, sensitivity=sens, size=size,
                             alpha=alpha)
    assert report.units == "utility" and math.isnan(report.coverage)
    k, rate = _random.exponential_grid(0.0, eps, sens)
    step = 2.0 ** k
    assert report.grid == step
    delta_prime = (math.ceil(sens / step) + 1) * step
    assert report.half_width == pytest.approx(
        2 * delta_prime / eps * (math.log(size) + math.log(1 / alpha)) + step, rel=1e-12)
    utility = np.full(size, -(report.half_width + 1e-6))
    utility[0] = 0.0
    draws = 2000
    misses = sum(dppack.ExponentialMechanism(utility, eps, sens, random_state=seed) != 0
                 for seed in range(draws))
    _not_above(misses, draws, alpha)
    with pytest.raises(ValueError, match="utility shortfall"):
        report.interval(0.0)
    # the release's own checks of the sensitivity, with its messages; no measure
    for bad in (-1.0, [1.0, 2.0], math.inf):
        assert _release_message(lambda: noiseIntervalDP(
            "ExponentialMechanism", 1.0, sensitivity=bad, size=3)) == _release_message(
            lambda: dppack.ExponentialMechanism([0.0, 1.0, 2.0], 1.0, bad))
    with pytest.raises(ValueError, match="size .the number of candidates. or measure"):
        noiseIntervalDP("ExponentialMechanism", 1.0, sensitivity=1)


def test_exponential_mechanism_with_a_measure():
    # Dwork and Roth 2014, Theorem 3.11 with a base measure: ln |R| becomes ln(M / mu_min).
    # The best candidate has the smallest weight (1) and 200 others weight 50 each, at
    # -(bound + 1e-6): a miss has probability M' w / (1 + M' w) <= alpha / (1 + alpha),
    # M' = 10000, just below alpha (0.095 at alpha = 0.1). 2000 draws (fixed seeds),
    # one-sided binomial test at 1e-6 (its false-failure rate). Planted: ln(size) in place of
    # ln(M / mu_min) gives a miss rate of about 0.98 -> fails.
    eps, sens, alpha = 1.0, 1.0, 0.1
    measure = np.array([1] + [50] * 200)
    report = noiseIntervalDP("ExponentialMechanism", eps, sensitivity=sens, measure=measure,
                             alpha=alpha)
    assert report.details == {"measure_ratio": float(measure.sum())}
    uniform = noiseIntervalDP("ExponentialMechanism", eps, sensitivity=sens,
                              size=measure.size, alpha=alpha)
    assert report.half_width > uniform.half_width  # ln(10001) > ln(201)
    # the uniform measure is the uniform report
    assert noiseIntervalDP("ExponentialMechanism", eps, sensitivity=sens,
                           measure=np.ones(7)).half_width == pytest.approx(
        noiseIntervalDP("ExponentialMechanism", eps, sensitivity=sens, size=7).half_width,
        rel=1e-15)
    utility = np.full(measure.size, -(report.half_width + 1e-6))
    utility[0] = 0.0
    draws = 2000
    misses = sum(dppack.ExponentialMechanism(utility, eps, sens, measure=measure,
                                             random_state=seed) != 0
                 for seed in range(draws))
    _not_above(misses, draws, alpha)
    # the release's own checks of the measure, with its messages
    for bad in ([1.0, -1.0, 2.0], [1.0, math.nan, 1.0], [1.0, math.inf, 1.0], ["a", "b", "c"]):
        assert _release_message(lambda: noiseIntervalDP(
            "ExponentialMechanism", 1.0, sensitivity=1, measure=bad)) == _release_message(
            lambda: dppack.ExponentialMechanism([0.0, 1.0, 2.0], 1.0, 1, measure=bad))
    assert _release_message(lambda: noiseIntervalDP(
        "ExponentialMechanism", 1.0, sensitivity=1, measure=[0, 0])) == _release_message(
        lambda: dppack.ExponentialMechanism([0.0, 1.0], 1.0, 1, measure=[0, 0]))
    with pytest.raises(ValueError, match="Length of measure"):
        noiseIntervalDP("ExponentialMechanism", 1.0, sensitivity=1, size=3, measure=[1, 2])


@pytest.mark.parametrize("statistic, arguments, release", [
    ("meanDP", {"n": 100, "lower_bound": 0, "upper_bound": 1},
     lambda **k: dppack.meanDP(np.ones(100), lower_bound=0, upper_bound=1, **k)),
    ("pooledVarDP", {"sizes": [50, 50], "lower_bound": 0, "upper_bound": 1},
     lambda **k: dppack.pooledVarDP(np.ones(50), np.zeros(50), lower_bound=0, upper_bound=1,
                                    **k)),
    ("histogramDP", {"breaks": [0, 1, 2]},
     lambda **k: dppack.histogramDP(np.ones(10), lower_bound=0, upper_bound=2,
                                    breaks=[0, 1, 2], **k)),
    ("tableDP", {"declared": False},
     lambda **k: dppack.tableDP(np.array(["a", "b"]), **k)),
])
def test_vacuous_both_is_refused_as_the_release_refuses_it(statistic, arguments, release):
    # which_sensitivity = 'both' at (5, 0.01) analytic spends a total delta above 1: the
    # release refuses it (stats._release.release_loss), and so does its report, with its message.
    # Planted: the report without refuse_vacuous_both -> no error, fails.
    budget = {"eps": 5.0, "delta": 0.01, "mechanism": "analytic", "which_sensitivity": "both"}
    expected = _release_message(lambda: release(**budget))
    assert "no guarantee" in expected
    assert _release_message(
        lambda: noiseIntervalDP(statistic, **budget, **arguments)) == expected
