"""Accuracy reports of the unbounded pooledVarDP / pooledCovDP and of histogramDP's
proportions (normalize = TRUE): ``dppack.noiseIntervalDP`` (issue 16, item 5).

* Coverage: the real releases (fixed seeds 0..R-1) on adversarial data at the sizes the
  report takes as lower bounds (and above); the number of misses abs(release - truth) > h
  is compared with alpha by an exact one-sided binomial test at level 1e-6 (each test's
  false-failure rate is at most 1e-6, at most 1.9e-5 for the file's 19). The bounds are
  worst cases, so the misses are typically 0.
* The derivation: the real release's own post-processing with its noise replaced by the
  corners of the box the report rests on (each part's noise at -t or +t, ``details``),
  on adversarial data: every corner's error is within the report, and the worst corner
  reaches at least 3/4 of it (the report is tight for the box it is derived from). The
  bound is ``accuracy.ratio_of_sums_bound``, shared with the unbounded varDP and covDP (J =
  1); its planted bugs (one line of it weakened, ``ratio_checks.BUGS``: the count's term
  dropped, the floors, the J = 1 covariance factor used for J = 2) each put a corner
  beyond it (``test_pooled_planted_bugs_are_caught``).
* Tightness against the real noise (the Sidak box's corners are rare): the report is at most
  about 12 times the simulated 95% quantile of the error (stated, checked).
* The parts' half-widths are the mechanism's report for the release's one call (l1
  sensitivity k for Laplace, l2 sqrt(k) for the Gaussian ones, k J coordinates).
* Argument checks, before anything.
"""

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

import dppack
from dppack import _exact_sums
from dppack.stats import _ratio as _moments
from dppack.accuracy import noiseIntervalDP
from dppack.stats import _histogram, _pooled
from ratio_checks import planted

# Simulations whose outcome does not depend on NumPy: make test runs them once.
pytestmark = pytest.mark.one_suite

LEVEL = 1e-6


def _not_above(misses, trials, p):
    assert binomtest(int(misses), trials, p, alternative="greater").pvalue > LEVEL, (
        misses, trials, p)


def _pooled_var_truth(samples):
    total = sum(len(s) for s in samples)
    return sum((len(s) - 1) * np.var(s, ddof=1) for s in samples) / (total - len(samples))


def _pooled_cov_truth(samples):
    total = sum(len(s) for s in samples)
    return sum((len(s) - 1) * np.cov(s[:, 0], s[:, 1])[0, 1]
               for s in samples) / (total - len(samples))


def _halves(m, low=0.0, high=1.0):
    return np.r_[np.full(m // 2, low), np.full(m - m // 2, high)]


VAR = dict(lower_bound=0, upper_bound=1)
COV = dict(lower_bound1=0, upper_bound1=1, lower_bound2=0, upper_bound2=2)


def _pair(m, kind):
    """m records of (x1, x2) in [0, 1] x [0, 2]: at one corner, on the diagonal's ends, or
    on the anti-diagonal's (the largest covariances)."""
    if kind == "corner":
        return np.tile([1.0, 2.0], (m, 1))
    if kind == "diag":
        return np.r_[np.tile([1.0, 2.0], (m // 2, 1)), np.tile([0.0, 0.0], (m - m // 2, 1))]
    return np.r_[np.tile([1.0, 0.0], (m // 2, 1)), np.tile([0.0, 2.0], (m - m // 2, 1))]


# --------------------------------------------------------------------------------------------
# pooledVarDP, pooledCovDP (unbounded)
# --------------------------------------------------------------------------------------------


def _pooled_coverage(statistic, data, eps, mechanism, delta, bounds, truth):
    """The real unbounded release for seeds 0..1499 on each of ``data`` (lists of samples of
    at least 60 and 90 records): misses of the report at alpha = 0.1, not above 0.1."""
    report = noiseIntervalDP(statistic, eps, sizes=[60, 90], which_sensitivity="unbounded",
                             mechanism=mechanism, delta=delta, alpha=0.1, **bounds)
    release = getattr(dppack, statistic)
    trials = 1500
    for samples in data:
        errors = np.array([
            release(*samples, eps=eps, which_sensitivity="unbounded", mechanism=mechanism,
                    delta=delta, random_state=seed, **bounds)
            for seed in range(trials)]) - truth(samples)
        _not_above(np.sum(np.abs(errors) > report.half_width), trials, 0.1)


# The analytic mechanism takes the Gaussian's branch of stats._ratio.unbounded_parts (its
# calibration is checked by test_accuracy_moments' parts test): not repeated here.
@pytest.mark.parametrize("mechanism,eps,delta", [("Laplace", 1.0, 0), ("Gaussian", 0.9, 1e-5)])
@pytest.mark.slow
def test_pooled_var_coverage(mechanism, eps, delta):
    data = ([_halves(60), _halves(90)], [np.ones(60), np.ones(90)],
            [np.ones(60), _halves(400)])  # the last: above the lower bounds
    _pooled_coverage("pooledVarDP", data, eps, mechanism, delta, VAR, _pooled_var_truth)


@pytest.mark.parametrize("mechanism,eps,delta", [("Laplace", 1.0, 0), ("Gaussian", 0.9, 1e-5)])
@pytest.mark.slow
def test_pooled_cov_coverage(mechanism, eps, delta):
    data = [[_pair(60, first), _pair(90, second)] for first, second in
            (("anti", "anti"), ("corner", "corner"), ("corner", "diag"))]
    _pooled_coverage("pooledCovDP", data, eps, mechanism, delta, COV, _pooled_cov_truth)


def _corner_errors(release, samples, truth, widths, levels=(-1.0, 1.0)):
    """The release's errors with each part's noise at -t or +t (every corner; with 0 too
    for ``levels`` (-1, 0, 1))."""
    groups, parts = len(samples), len(widths)
    errors = []
    for signs in itertools.product(levels, repeat=groups * parts):
        noise = np.array(signs).reshape(groups, parts) * widths
        # the release's statistics, noised at the corner, then its own post-processing
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_pooled, "noisy_exact_statistics",
                          lambda prepared, *args, noise=noise: np.array(
                              [[float(_exact_sums.to_fraction(v)) for v in row]
                               for row in prepared[0]]) * prepared[1] + noise)
            errors.append(release(samples) - truth)
    return np.abs(np.array(errors))


def _var_box(sizes):
    """(the largest error of the real pooledVarDP at the corners of its report's box, over
    adversarial data with at least ``sizes`` records, the report)."""
    report = noiseIntervalDP("pooledVarDP", 1.0, sizes=sizes, which_sensitivity="unbounded",
                             **VAR)
    d = report.details
    widths = np.array([d["half_width_sum"], d["half_width_squares"], d["half_width_count"]])
    worst = 0.0
    for samples in ([_halves(m) for m in sizes], [np.ones(m) for m in sizes],
                    [np.ones(sizes[0])] + [_halves(m) for m in sizes[1:]],
                    [_halves(m + 3) for m in sizes]):
        errors = _corner_errors(
            lambda s: dppack.pooledVarDP(*s, eps=1.0, which_sensitivity="unbounded", **VAR),
            samples, _pooled_var_truth(samples), widths, (-1.0, 0.0, 1.0))
        worst = max(worst, errors.max())
    return worst, report


def _cov_box(sizes):
    """:func:`_var_box` for pooledCovDP (corners only)."""
    report = noiseIntervalDP("pooledCovDP", 1.0, sizes=sizes, which_sensitivity="unbounded",
                             **COV)
    d = report.details
    widths = np.array([d["half_width_sum1"], d["half_width_sum2"], d["half_width_products"],
                       d["half_width_count"]])
    worst = 0.0
    for kinds in (("corner", "corner"), ("anti", "anti"), ("diag", "diag"),
                  ("corner", "anti"), ("corner", "diag")):
        samples = [_pair(m, kind) for m, kind in zip(sizes, kinds)]
        errors = _corner_errors(
            lambda s: dppack.pooledCovDP(*s, eps=1.0, which_sensitivity="unbounded", **COV),
            samples, _pooled_cov_truth(samples), widths)
        worst = max(worst, errors.max())
    return worst, report


def _count_only():
    """(the largest error of the real pooledCovDP with only its counts noised, at +-a_N,
    the bound for that box): one sample at a corner (mu_1 mu_2 = H) and one on the
    anti-diagonal (the pooled truth V near -H), where a sample's count factor abs(rho
    mu_1 mu_2 - V) reaches rho H + abs(V), beyond the J = 1 factor max(rho H, Vmax)."""
    sizes, a_n = [20, 400], 3.0
    samples = [_pair(sizes[0], "corner"), _pair(sizes[1], "anti")]
    errors = _corner_errors(
        lambda s: dppack.pooledCovDP(*s, eps=1.0, which_sensitivity="unbounded", **COV),
        samples, _pooled_cov_truth(samples), np.array([0.0, 0.0, 0.0, a_n]))
    return errors.max(), _moments.ratio_of_sums_bound(sizes, 0.5, 1.0, 0.0, 0.0, 0.0, a_n,
                                                      False)


@pytest.mark.parametrize("sizes", [[200, 300], [30, 40], [5, 8]])
def test_pooled_var_box(sizes):
    # every corner (and 0) of the box within the report, the worst reaching 3/4 of it
    worst, report = _var_box(sizes)
    assert report.details["sizes"] == sizes
    assert worst <= report.half_width * (1 + 1e-12)
    assert worst >= 0.75 * report.half_width


@pytest.mark.parametrize("sizes", [[200, 300], [30, 40]])
def test_pooled_cov_box(sizes):
    worst, report = _cov_box(sizes)
    assert worst <= report.half_width * (1 + 1e-12)
    assert worst >= 0.75 * report.half_width


def test_pooled_cov_count_factor():
    # J = 2 needs the count factor rho H + Vmax (the J = 1 factor is exceeded: planted)
    # (measured: the worst corner reaches 0.74 of the bound)
    worst, bound = _count_only()
    assert worst <= bound * (1 + 1e-12)
    assert worst >= 0.7 * bound


@pytest.mark.parametrize("check,bug", [
    (lambda: _var_box([200, 300]), "count_term"), (lambda: _var_box([5, 8]), "floors"),
    (lambda: _cov_box([200, 300]), "count_term"), (lambda: _cov_box([30, 40]), "floors"),
    (_count_only, "covariance_step")],
    ids=["var-count_term", "var-floors", "cov-count_term", "cov-floors",
         "cov-covariance_step"])
def test_pooled_planted_bugs_are_caught(monkeypatch, check, bug):
    # ratio_of_sums_bound with one line weakened (ratio_checks.BUGS): a corner of a box test
    # exceeds the bound (at the box's sizes named; measured: 1.02 to 1.69 times it). Not
    # planted: dropping the clamp's term E, which the corners do not reach (E rests on
    # maxsq(x) >= H (x - 1/x), attained at odd whole counts only).
    monkeypatch.setattr(_moments, "ratio_of_sums_bound", planted(bug))
    worst, bound = check()
    bound = getattr(bound, "half_width", bound)
    assert worst > bound * (1 + 1e-12)


def test_pooled_parts_are_the_mechanisms():
    # One call of the mechanism on the 3 J (4 J) unit-scaled statistics: l1 sensitivity 3
    # (Laplace), l2 sqrt(3) (Gaussian), simultaneous over all 3 J values (Sidak), times each
    # statistic's sensitivity (h, h^2, 1). Planted: the Sidak over 3 values only (rows=1).
    h = 1.5  # bounds [-1, 2]
    r = noiseIntervalDP("pooledVarDP", 0.7, sizes=[10, 20, 30], lower_bound=-1,
                        upper_bound=2, which_sensitivity="unbounded")
    unit = noiseIntervalDP("LaplaceMechanism", 0.7, sensitivities=3, size=9,
                           simultaneous=True).half_width[0]
    assert [r.details[k] for k in ("half_width_sum", "half_width_squares",
                                   "half_width_count")] == pytest.approx(
        [unit * h, unit * h * h, unit], rel=1e-15)
    g = noiseIntervalDP("pooledCovDP", 0.5, sizes=[10, 20], which_sensitivity="unbounded",
                        mechanism="Gaussian", delta=1e-6, **COV)
    unit = noiseIntervalDP("GaussianMechanism", 0.5, delta=1e-6, sensitivities=2.0, size=8,
                           simultaneous=True).half_width[0]
    assert g.details["half_width_products"] == pytest.approx(unit * 0.5, rel=1e-15)
    assert g.details["half_width_count"] == pytest.approx(unit, rel=1e-15)
    assert "ratio of noisy sums" in g.law and g.units == "value"


def test_pooled_tightness():
    # The report against the simulated 95% quantile of the real error at its worst data
    # (all values at one bound): at most 12 times (measured: about 5.5 for the variance,
    # 7 for the covariance at these sizes; the box's corners are rare).
    sizes = [200, 300]
    r = noiseIntervalDP("pooledVarDP", 1.0, sizes=sizes, which_sensitivity="unbounded", **VAR)
    samples = [np.ones(m) for m in sizes]
    errors = np.abs([dppack.pooledVarDP(*samples, eps=1.0, which_sensitivity="unbounded",
                                        random_state=s, **VAR) for s in range(2000)])
    q = np.quantile(errors, 0.95)
    assert q <= r.half_width <= 12 * q


def test_pooled_both_and_bounded_unchanged():
    both = noiseIntervalDP("pooledVarDP", 1.0, sizes=[20, 30], which_sensitivity="both",
                           **VAR)
    bounded = noiseIntervalDP("pooledVarDP", 1.0, sizes=[20, 30], **VAR)
    unbounded = noiseIntervalDP("pooledVarDP", 1.0, sizes=[20, 30],
                                which_sensitivity="unbounded", **VAR)
    assert set(both) == {"Bounded", "Unbounded"}
    assert both["Bounded"].half_width == bounded.half_width
    assert both["Unbounded"].half_width == unbounded.half_width
    assert bounded.details == {}
    # larger lower bounds, smaller bound; and at most the clamp's range
    assert noiseIntervalDP("pooledVarDP", 1.0, sizes=[200, 300], which_sensitivity="unbounded",
                           **VAR).half_width < unbounded.half_width <= 0.25 * 2


def test_pooled_argument_checks():
    with pytest.raises(ValueError, match="sizes is required"):
        noiseIntervalDP("pooledVarDP", 1.0, which_sensitivity="unbounded", **VAR)
    with pytest.raises(ValueError, match="sizes is required"):
        noiseIntervalDP("pooledCovDP", 1.0, which_sensitivity="unbounded", **COV)
    with pytest.raises(ValueError, match="sizes must be whole numbers >= 2"):
        noiseIntervalDP("pooledVarDP", 1.0, sizes=[1, 30], which_sensitivity="unbounded",
                        **VAR)
    with pytest.raises(ValueError, match="which.sensitivity"):
        noiseIntervalDP("pooledVarDP", 1.0, sizes=[10], which_sensitivity="none", **VAR)
    with pytest.raises(ValueError, match="eps must be < 1"):
        noiseIntervalDP("pooledVarDP", 2.0, sizes=[10], which_sensitivity="unbounded",
                        mechanism="Gaussian", delta=1e-5, **VAR)
    with pytest.raises(ValueError, match="lower_bound is required for pooledVarDP"):
        noiseIntervalDP("pooledVarDP", 1.0, sizes=[10], upper_bound=1,
                        which_sensitivity="unbounded")
    with pytest.raises(ValueError, match="too close together or too far apart"):
        noiseIntervalDP("pooledVarDP", 1.0, sizes=[10], lower_bound=-1e200,
                        upper_bound=1e200, which_sensitivity="unbounded")


# --------------------------------------------------------------------------------------------
# histogramDP, normalize = TRUE
# --------------------------------------------------------------------------------------------

BREAKS = np.linspace(0, 1, 11)  # 10 cells


# Each path once: allow_negative (the bound's formula) and the counts' law (bounded Laplace,
# unbounded Gaussian) are independent branches, so their 2 x 2 product is not needed.
@pytest.mark.parametrize("allow_negative,which,mechanism,eps,delta", [
    (False, "bounded", "Laplace", 1.0, 0), (True, "unbounded", "Gaussian", 0.9, 1e-5)])
@pytest.mark.slow
def test_proportions_coverage(allow_negative, which, mechanism, eps, delta):
    n = 300
    report = noiseIntervalDP("histogramDP", eps, breaks=BREAKS, lower_bound=0, upper_bound=1,
                             normalize=True, n=n, cells=10, allow_negative=allow_negative,
                             which_sensitivity=which, mechanism=mechanism, delta=delta,
                             alpha=0.1)
    assert report.units == "proportion" and report.simultaneous
    trials = 1500
    # all records in one cell (the worst case), and spread over two; n itself and more
    for x in (np.full(n, 0.05), np.r_[np.full(n // 2, 0.05), np.full(n - n // 2, 0.95)],
              np.full(2 * n, 0.55)):
        truth = np.histogram(x, BREAKS)[0] / x.size
        errors = np.array([
            dppack.histogramDP(x, eps, 0, 1, breaks=BREAKS, normalize=True,
                               allow_negative=allow_negative, which_sensitivity=which,
                               mechanism=mechanism, delta=delta, random_state=seed).counts
            for seed in range(trials)]) - truth
        _not_above(np.sum(np.max(np.abs(errors), axis=1) > report.half_width), trials, 0.1)


def test_proportions_rule_unbounded():
    # With a rule and unbounded DP the cells come from a private n: the report is for the
    # released number of cells (the counts' noise is drawn independently of that n).
    x = np.full(400, 0.05)
    misses = 0
    for seed in range(400):
        h = dppack.histogramDP(x, 1.0, 0, 1, normalize=True, which_sensitivity="unbounded",
                               random_state=seed)
        cells = len(h.counts)
        r = noiseIntervalDP("histogramDP", 1.0, which_sensitivity="unbounded",
                            normalize=True, n=400, cells=cells, alpha=0.1)
        truth = np.r_[1.0, np.zeros(cells - 1)]
        misses += np.max(np.abs(h.counts - truth)) > r.half_width
    _not_above(misses, 400, 0.1)


@pytest.mark.parametrize("allow_negative", [False, True])
def test_proportions_box(allow_negative, monkeypatch):
    # The release's own post-processing at the box's corners (every count's noise at -a or
    # +a, and the data at their worst): within the report, and reaching 3/4 of it for
    # n = 2000. Planted: (K - 1) a / n replaced by a / n, or n - K a by n: caught.
    n, cells = 2000, 10
    r = noiseIntervalDP("histogramDP", 1.0, breaks=BREAKS, lower_bound=0, upper_bound=1,
                        normalize=True, n=n, cells=cells, allow_negative=allow_negative)
    a = r.details["half_width_count"]
    assert r.details["n"] == n and r.details["cells"] == cells
    worst = 0.0
    for x in (np.full(n, 0.05), np.r_[np.full(n - 5, 0.05), np.full(5, 0.95)],
              np.repeat((BREAKS[:-1] + BREAKS[1:]) / 2, n // cells)):
        truth = np.histogram(x, BREAKS)[0] / n
        for signs in itertools.product([-1.0, 1.0], repeat=cells):
            noise = np.array(signs) * a
            monkeypatch.setattr(_histogram, "noisy_counts",
                                lambda counts, *args, noise=noise: counts + noise)
            out = dppack.histogramDP(x, 1.0, 0, 1, breaks=BREAKS, normalize=True,
                                     allow_negative=allow_negative).counts
            monkeypatch.undo()
            error = np.max(np.abs(out - truth))
            assert error <= r.half_width * (1 + 1e-12)
            worst = max(worst, error)
    assert worst >= 0.75 * r.half_width


def test_proportions_tightness_and_cases():
    # The counts' joint half-width a is the counts' report at the Sidak level (unrounded);
    # the proportions' (K - 1) a / n is at most 10 times the simulated 95% quantile of the
    # real error at its worst data (measured: about 5.2).
    n, cells = 2000, 10
    r = noiseIntervalDP("histogramDP", 1.0, breaks=BREAKS, lower_bound=0, upper_bound=1,
                        normalize=True, n=n, cells=cells)
    counts = noiseIntervalDP("histogramDP", 1.0, cells=cells, simultaneous=True)
    a = r.details["half_width_count"]
    assert np.floor(a + 0.5) == counts.half_width
    # one scalar for every cell (item 2 of the review: no array of cells entries)
    assert isinstance(r.half_width, float)
    assert r.half_width == pytest.approx((cells - 1) * a / n, rel=1e-15)
    x = np.full(n, 0.05)
    errors = [np.max(np.abs(dppack.histogramDP(x, 1.0, 0, 1, breaks=BREAKS, normalize=True,
                                               random_state=s).counts - np.r_[1, [0] * 9]))
              for s in range(2000)]
    q = np.quantile(errors, 0.95)
    assert q <= r.half_width <= 10 * q
    # one cell: the release is exactly 1 (0 error); 'both': two reports
    assert noiseIntervalDP("histogramDP", 1.0, breaks=1, lower_bound=0, upper_bound=1,
                           normalize=True, n=100, cells=1).half_width == 0.0
    both = noiseIntervalDP("histogramDP", 1.0, normalize=True, n=500, cells=10,
                           which_sensitivity="both")
    assert both["Unbounded"].half_width < both["Bounded"].half_width
    np.testing.assert_allclose(r.interval(np.full(cells, 0.1))[1], 0.1 + r.half_width)


def test_proportions_argument_checks():
    kw = dict(breaks=BREAKS, lower_bound=0, upper_bound=1, normalize=True)
    with pytest.raises(ValueError, match="cells is required for the proportions"):
        # a rule under 'unbounded': the cells come from the private n (given points fix them)
        noiseIntervalDP("histogramDP", 1.0, n=100, normalize=True,
                        which_sensitivity="unbounded")
    with pytest.raises(ValueError, match="n is required for the proportions"):
        noiseIntervalDP("histogramDP", 1.0, cells=10, **kw)
    with pytest.raises(ValueError, match="n must exceed cells times"):
        noiseIntervalDP("histogramDP", 1.0, cells=10, n=100, **kw)
    with pytest.raises(ValueError, match="n must be"):
        noiseIntervalDP("histogramDP", 1.0, cells=10, n=0, **kw)
    with pytest.raises(ValueError, match="normalize"):
        noiseIntervalDP("histogramDP", 1.0, cells=10, n=1000, breaks=BREAKS, normalize="yes")
    with pytest.raises(ValueError, match="allow.negative"):
        noiseIntervalDP("histogramDP", 1.0, cells=10, n=1000, allow_negative=2, **kw)
    with pytest.raises(ValueError, match="n is for the proportions only"):
        noiseIntervalDP("histogramDP", 1.0, n=1000)
    with pytest.raises(ValueError, match="Only equidistant"):
        noiseIntervalDP("histogramDP", 1.0, cells=2, n=1000, breaks=[0, 0.1, 1],
                        normalize=True)


@pytest.mark.parametrize("breaks", [[0.0, 0.5, 1.0], [0.2, 0.5, 0.8], 3])
def test_histogram_cells_are_those_of_the_release(breaks):
    # The number of cells of given breaks is public: the report takes it from the release's own
    # _histogram.histogram_breaks and refuses another (a report for fewer cells than released does
    # not hold: cells = 1 for two released cells gave a half-width 0 and coverage 0). Planted:
    # _histogram_cells returning the given cells -> the refusal and the count fail.
    x = np.linspace(0.0, 1.0, 50)
    released = dppack.histogramDP(x, 1.0, 0.0, 1.0, breaks=breaks, normalize=True,
                                  random_state=1)
    k = len(released.counts)
    report = noiseIntervalDP("histogramDP", 1.0, breaks=breaks, lower_bound=0.0,
                             upper_bound=1.0, normalize=True, n=1000)
    assert report.details["cells"] == k
    with pytest.raises(ValueError, match=f"cells must be {k}"):
        noiseIntervalDP("histogramDP", 1.0, breaks=breaks, lower_bound=0.0, upper_bound=1.0,
                        normalize=True, n=1000, cells=k - 1)
    counts = noiseIntervalDP("histogramDP", 1.0, breaks=breaks, lower_bound=0.0,
                             upper_bound=1.0, simultaneous=True)
    assert counts.details["cells"] == k
    with pytest.raises(ValueError, match="lower.bound and upper.bound are required"):
        noiseIntervalDP("histogramDP", 1.0, breaks=breaks, normalize=True, n=1000)
