"""Accuracy reports, usability review (issue 16 item 5): ``NoiseInterval.interval``, ``size``,
``range``, the display, and ``noiseIntervalDP``'s argument handling.

* Coverage (the one defect): a GaussianMechanism release of m values with one scalar
  sensitivity is calibrated for its m coordinates; the report for ``size = m`` covers each
  value at its stated exact level (two-sided exact binomial test at level 1e-6), the report
  of one value (the old default) covers less (one-sided binomial, p < 1e-6), and
  ``interval()`` of that report refuses the m values. False-failure rate: at most 2e-6
  for the simulation, 1e-6 for the clipped mean's coverage; the other tests are
  deterministic.
* Planted bugs (each seen failing, then restored): the length check of ``interval()``
  removed (test_one_value_report_refuses_a_vector fails); ``float(counts.coverage) **
  cells`` back to the per-count coverage (test_proportions_coverage_is_joint); the clip to
  ``range`` removed (test_interval_is_clipped_to_the_range); the medianDP list with quant
  (test_medianDP_list_and_quantileDP_quant).
"""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

import dppack
from dppack import rcompat
from dppack._messages import r_text
from dppack.accuracy import noiseIntervalDP

# Simulations whose outcome does not depend on NumPy: make test runs them once.
pytestmark = pytest.mark.one_suite

LEVEL = 1e-6


def _report(m=None):
    extra = {} if m is None else {"size": m}
    return noiseIntervalDP("GaussianMechanism", eps=0.5, delta=1e-5, sensitivities=1.0,
                           type_DP="pDP", **extra)


def test_vector_release_coverage_at_its_size():
    m, seeds = 10, 2000  # 20000 values; about 1 s
    out = np.concatenate([dppack.GaussianMechanism(np.zeros(m), 0.5, 1e-5, 1.0, type_DP="pDP",
                                                   random_state=s) for s in range(seeds)])
    right = _report(m)
    assert right.size == m
    misses = int(np.sum(np.abs(out) > right.half_width[0]))
    assert binomtest(misses, out.size, 1 - right.coverage[0]).pvalue > LEVEL, misses
    # the one-value report (the old default) undercovers a 10-value release (about 92.3%)
    one = _report()
    assert one.size == 1 and one.half_width < right.half_width[0]
    misses = int(np.sum(np.abs(out) > one.half_width))
    assert binomtest(misses, out.size, 1 - one.coverage, alternative="greater").pvalue < LEVEL


def test_one_value_report_refuses_a_vector():
    with pytest.raises(ValueError, match=r"computed for 1: pass size = 3 to noiseIntervalDP"):
        _report().interval([1.0, 2.0, 3.0])
    low, high = _report(3).interval([1.0, 2.0, 3.0])
    assert low.shape == (3,) and np.all(high > low)
    with pytest.raises(ValueError, match=r"computed for 3"):
        _report(3).interval(1.0)
    with pytest.raises(ValueError, match=r"pass cells = 4"):
        noiseIntervalDP("histogramDP", eps=1.0, cells=3, simultaneous=True).interval(
            [1, 2, 3, 4])


def test_sizes_of_the_reports():
    assert noiseIntervalDP("histogramDP", eps=1.0).size is None  # any number of cells
    assert noiseIntervalDP("tableDP", eps=1.0, cells=4).size is None  # per cell
    assert noiseIntervalDP("tableDP", eps=1.0, cells=4, simultaneous=True).size == 4
    assert noiseIntervalDP("meanDP", eps=1.0, n=10, lower_bound=0, upper_bound=1).size == 1
    assert noiseIntervalDP("histogramDP", eps=1.0, normalize=True, cells=4, n=1000,
                           which_sensitivity="unbounded").size == 4
    # a histogram of any length within one per-cell report
    low, high = noiseIntervalDP("histogramDP", eps=1.0).interval(np.arange(7.0))
    assert low.shape == (7,)


@pytest.mark.parametrize("bad, message", [
    (None, "released is required"),
    ("a", "released must be numeric"),
    ([1.0, "b"], "released must be numeric"),
    (True, "released must be numeric"),
    (float("nan"), "released must be finite"),
    ([1.0, math.inf], "released must be finite"),
])
def test_released_checked(bad, message):
    report = noiseIntervalDP("histogramDP", eps=1.0)
    with pytest.raises(ValueError, match=message):
        report.interval(bad)


def test_histogram_object_gives_its_counts():
    h = dppack.histogramDP(np.linspace(0, 1, 50), 1.0, 0, 1, random_state=1)
    assert isinstance(h, rcompat.Histogram)
    report = noiseIntervalDP("histogramDP", eps=1.0)
    low, high = report.interval(h)
    np.testing.assert_array_equal(low, np.maximum(np.asarray(h.counts) - 6, 0))
    np.testing.assert_array_equal(high, np.asarray(h.counts) + 6)


@pytest.mark.parametrize("statistic, arguments, name", [
    ("GaussianMechanism", {"sensitivities": 1.0}, "delta"),
    ("LaplaceMechanism", {}, "sensitivities"),
    ("ExponentialMechanism", {"size": 3}, "sensitivity"),
    ("meanDP", {"n": 10}, "lower.bound"),
    ("varDP", {"n": 10, "lower_bound": 0}, "upper.bound"),
    ("covDP", {"n": 10, "lower_bound1": 0, "upper_bound1": 1}, "lower.bound2"),
    ("pooledVarDP", {"sizes": [3, 4]}, "lower.bound"),
    ("quantileDP", {"lower_bound": 0, "upper_bound": 1}, "quant"),
    ("medianDP", {"lower_bound": 0}, "upper.bound"),
    ("quantilesDP", {"quants": [0.5], "lower_bound": 0}, "upper.bound"),
])
def test_missing_arguments_named(statistic, arguments, name):
    with pytest.raises(ValueError) as error:
        noiseIntervalDP(statistic, eps=0.5, **arguments)
    assert str(error.value) == f"{name.replace('.', '_')} is required for {statistic}."
    assert r_text(error.value) == f"{name} is required for {statistic}."


def test_breaks_function_message_in_each_spelling():
    with pytest.raises(ValueError) as error:
        noiseIntervalDP("histogramDP", eps=1.0, breaks=lambda x: [0.0, 1.0])
    assert str(error.value).startswith("lower_bound and upper_bound are required")
    assert r_text(error.value).startswith("lower.bound and upper.bound are required")


def test_repr_values_details_and_wording():
    three, twelve = _report(3), _report(12)
    h3, h12 = f"{three.half_width[0]:.6g}", f"{twelve.half_width[0]:.6g}"
    assert f"95% noise interval, half-width [{h3}, {h3}, {h3}] (value)" in repr(three)
    assert f"12 values in [{h12}, {h12}]" in repr(twelve)
    unbounded = repr(noiseIntervalDP("meanDP", eps=1.0, n=500, lower_bound=0, upper_bound=1,
                                     which_sensitivity="unbounded"))
    assert "\n  n: 500\n" in unbounded and "\n  half_width_count: 7.35228" in unbounded
    assert "\n  range: [0, 1])" in unbounded
    rank = repr(noiseIntervalDP("medianDP", eps=1.0, lower_bound=0, upper_bound=1))
    assert "rank error beyond the best point at most 86.3966" in rank
    assert "noise interval" not in rank
    utility = repr(noiseIntervalDP("ExponentialMechanism", eps=1.0, sensitivity=1, size=2))
    assert "utility shortfall at most" in utility and "noise interval" not in utility


def test_release_arguments_accepted():
    plain = noiseIntervalDP("tableDP", eps=1.0)
    assert noiseIntervalDP("tableDP", eps=1.0, allow_negative=True).half_width == \
        plain.half_width
    with pytest.raises(ValueError, match="allow_negative must be"):
        noiseIntervalDP("tableDP", eps=1.0, allow_negative="yes")
    q = noiseIntervalDP("quantileDP", eps=1.0, quant=0.3, lower_bound=0, upper_bound=1)
    assert noiseIntervalDP("quantileDP", eps=1.0, quant=0.3, lower_bound=0, upper_bound=1,
                           mechanism="exponential").half_width == q.half_width
    with pytest.raises(ValueError, match=r"Mechanism must be one of \{'exponential'\}"):
        noiseIntervalDP("medianDP", eps=1.0, lower_bound=0, upper_bound=1,
                        mechanism="Laplace")
    by_size = noiseIntervalDP("ExponentialMechanism", eps=1.0, sensitivity=1, size=3)
    by_candidates = noiseIntervalDP("ExponentialMechanism", eps=1.0, sensitivity=1,
                                    candidates=["a", "b", "c"])
    assert by_candidates.half_width == by_size.half_width
    with pytest.raises(ValueError, match="Length of candidates must match"):
        noiseIntervalDP("ExponentialMechanism", eps=1.0, sensitivity=1, size=2,
                        candidates=["a", "b", "c"])


def test_medianDP_list_and_quantileDP_quant():
    with pytest.raises(ValueError) as error:
        noiseIntervalDP("medianDP", eps=1.0, lower_bound=0, upper_bound=1, quant=0.5)
    assert str(error.value) == ("noiseIntervalDP for medianDP takes lower_bound, upper_bound, "
                                "n, which_sensitivity, mechanism, resolution; not quant.")
    with pytest.raises(ValueError, match="quant is required for quantileDP"):
        noiseIntervalDP("quantileDP", eps=1.0, lower_bound=0, upper_bound=1)


def test_proportions_coverage_is_joint():
    alpha, cells = 0.05, 4
    report = noiseIntervalDP("histogramDP", eps=1.0, normalize=True, cells=cells, n=1000,
                             alpha=alpha, which_sensitivity="unbounded")
    # the probability that all 4 counts are within a at once: at least 1 - alpha, and
    # near it (the per-count probability is about 1 - alpha / 4 = 0.9875)
    assert 1 - alpha <= report.coverage < 1 - alpha / 2


def test_interval_is_clipped_to_the_range():
    mean = noiseIntervalDP("meanDP", eps=1.0, n=100, lower_bound=0, upper_bound=1)
    assert mean.range == (0.0, 1.0)
    assert mean.interval(0.99)[1] == 1.0 and mean.interval(0.01)[0] == 0.0
    with pytest.raises(ValueError, match="a report of meanDP describes 1"):
        mean.interval([0.99, 0.01])  # a scalar statistic's report: one value
    prop = noiseIntervalDP("histogramDP", eps=1.0, normalize=True, cells=4, n=1000,
                           which_sensitivity="unbounded")
    low, high = prop.interval([0.0, 0.5, 0.5, 1.0])
    assert low[0] == 0.0 and high[3] == 1.0
    counts = noiseIntervalDP("histogramDP", eps=1.0)
    assert counts.interval(2.0) == (0.0, 8.0)
    # the largest sample variance of 3 values in [0, 1] is var(c(0, 1, 1)) = 1/3
    var = noiseIntervalDP("varDP", eps=1.0, n=3, lower_bound=0, upper_bound=1,
                          which_sensitivity="unbounded")
    assert var.range[1] == pytest.approx(np.var([0, 1, 1], ddof=1))
    assert var.interval(0.3)[1] == pytest.approx(1 / 3)
    sd = noiseIntervalDP("sdDP", eps=1.0, n=3, lower_bound=0, upper_bound=1)
    assert sd.range[1] == pytest.approx(math.sqrt(1 / 3))
    cov = noiseIntervalDP("covDP", eps=1.0, n=4, lower_bound1=0, upper_bound1=1,
                          lower_bound2=0, upper_bound2=2)
    assert cov.range == pytest.approx((-2 / 3, 2 / 3))  # cov(c(0,0,1,1), c(0,0,2,2))
    pooled = noiseIntervalDP("pooledVarDP", eps=1.0, sizes=[3, 4], lower_bound=0,
                             upper_bound=1, which_sensitivity="both")
    assert pooled["Bounded"].range[1] == pytest.approx((2 / 3 + 1) / 5)
    assert pooled["Unbounded"].range[1] == pytest.approx(7 / 20)
    assert noiseIntervalDP("LaplaceMechanism", eps=1.0, sensitivities=1.0).range is None


def test_clipped_mean_keeps_its_coverage():
    # the worst case for the clip: every value at the upper bound, the truth on the range's
    # edge; 3000 releases, one-sided exact binomial test against the exact level (the
    # release's own clamp makes it cover more: about 97%)
    x = np.ones(100)
    report = noiseIntervalDP("meanDP", eps=1.0, n=100, lower_bound=0, upper_bound=1)
    released = np.array([dppack.meanDP(x, 1.0, 0, 1, random_state=s) for s in range(3000)])
    bounds = np.array([report.interval(v) for v in released])
    misses = int(np.sum((bounds[:, 0] > 1.0) | (bounds[:, 1] < 1.0)))
    assert binomtest(misses, released.size, 1 - report.coverage,
                     alternative="greater").pvalue > LEVEL, misses
