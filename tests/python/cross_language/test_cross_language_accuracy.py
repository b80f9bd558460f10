"""R's noiseIntervalDP() and Python's dppack.noiseIntervalDP agree bit for bit (issue 16,
accuracy reports): the same core computes both; R converts and renames. Deterministic (no
noise is drawn): no false failures."""

import numpy as np
import pytest
from r_session import assert_core_message, assert_same_bits, require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

# name: (R expression giving c(half.width, coverage, scale, grid), Python call)
CASES = {
    "mean": ("noiseIntervalDP('meanDP', 1, n = 532, lower.bound = 50, upper.bound = 200)",
             lambda: dppack.noiseIntervalDP("meanDP", 1, n=532, lower_bound=50,
                                            upper_bound=200)),
    "var_analytic": ("noiseIntervalDP('varDP', 2, n = 100, lower.bound = 0, upper.bound = 3, "
                     "mechanism = 'analytic', delta = 1e-6, alpha = 0.1)",
                     lambda: dppack.noiseIntervalDP("varDP", 2, n=100, lower_bound=0,
                                                    upper_bound=3, mechanism="analytic",
                                                    delta=1e-6, alpha=0.1)),
    "cov_gaussian": ("noiseIntervalDP('covDP', 0.5, n = 40, lower.bound1 = 0, "
                     "upper.bound1 = 1, lower.bound2 = -1, upper.bound2 = 1, "
                     "mechanism = 'Gaussian', delta = 1e-5, type.DP = 'pDP')",
                     lambda: dppack.noiseIntervalDP("covDP", 0.5, n=40, lower_bound1=0,
                                                    upper_bound1=1, lower_bound2=-1,
                                                    upper_bound2=1, mechanism="Gaussian",
                                                    delta=1e-5, type_DP="pDP")),
    "pooled": ("noiseIntervalDP('pooledVarDP', 1, sizes = c(20, 30), lower.bound = 0, "
               "upper.bound = 2, approx.n.max = TRUE)",
               lambda: dppack.noiseIntervalDP("pooledVarDP", 1, sizes=[20, 30], lower_bound=0,
                                              upper_bound=2, approx_n_max=True)),
    "gaussian_vector": ("noiseIntervalDP('GaussianMechanism', 0.5, delta = 1e-5, "
                        "sensitivities = c(1, 2, 3), alloc.proportions = c(1, 1, 2), "
                        "simultaneous = TRUE)",
                        lambda: dppack.noiseIntervalDP(
                            "GaussianMechanism", 0.5, delta=1e-5, sensitivities=[1, 2, 3],
                            alloc_proportions=[1, 1, 2], simultaneous=True)),
    "laplace": ("noiseIntervalDP('LaplaceMechanism', 1, sensitivities = 0.5, size = 4)",
                lambda: dppack.noiseIntervalDP("LaplaceMechanism", 1, sensitivities=0.5,
                                               size=4)),
    "table": ("noiseIntervalDP('tableDP', 0.5, which.sensitivity = 'unbounded', "
              "alpha = 0.01)",
              lambda: dppack.noiseIntervalDP("tableDP", 0.5, which_sensitivity="unbounded",
                                             alpha=0.01)),
}


def _fields(report):
    return np.concatenate([np.atleast_1d(np.asarray(getattr(report, name), dtype=float))
                           for name in ("half_width", "coverage", "scale", "grid")])


def test_r_and_python_reports_agree():
    code = {name: f"{{r <- {expr}; c(r$half.width, r$coverage, r$scale, r$grid)}}"
            for name, (expr, _) in CASES.items()}
    code["interval"] = ("{r <- noiseIntervalDP('sdDP', 1, n = 100, lower.bound = 0, "
                        "upper.bound = 1, released = 0.3); c(r$lower, r$upper)}")
    code["both"] = ("{r <- noiseIntervalDP('histogramDP', 1, which.sensitivity = 'both'); "
                    "c(r$Bounded$half.width, r$Unbounded$half.width)}")
    code["median"] = ("{r <- noiseIntervalDP('medianDP', 1, lower.bound = 0, "
                      "upper.bound = 10); c(r$half.width, is.na(r$coverage))}")
    code["unbounded"] = ("noiseIntervalDP('meanDP', 1, lower.bound = 0, "
                         "upper.bound = 1, which.sensitivity = 'unbounded')")
    results = run_in_r(code)
    for name, (_, python_call) in CASES.items():
        assert_same_bits(results[name], _fields(python_call()))
    sd = dppack.noiseIntervalDP("sdDP", 1, n=100, lower_bound=0, upper_bound=1)
    assert_same_bits(results["interval"], np.array(sd.interval(0.3)))
    both = dppack.noiseIntervalDP("histogramDP", 1, which_sensitivity="both")
    assert_same_bits(results["both"], np.array([both["Bounded"].half_width,
                                                both["Unbounded"].half_width]))
    median = dppack.noiseIntervalDP("medianDP", 1, lower_bound=0, upper_bound=10)
    assert_same_bits(results["median"], np.array([median.half_width, 1.0]))
    assert_core_message(results["unbounded"], lambda: dppack.noiseIntervalDP(
        "meanDP", 1, lower_bound=0, upper_bound=1, which_sensitivity="unbounded"))
