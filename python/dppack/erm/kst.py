"""Objective perturbation of Kifer, Smith and Thakurta (2012): the KST framework and
LinearRegressionDP.

The model minimises, over the convex domain ``constraints(theta) <= 0``, J(theta) =
(1/n) sum_i loss(mapXy(X, theta)_i, y_i) + (gamma/n) R(theta) + (Delta/(2n)) ||theta||^2
+ (1/n) b . theta, b calibrated for replace-one neighbours (a deviation from DPpack 0.2.2),
then releases an approximate minimiser with exact noise on a grid (Iyengar et al. 2019).
Derivations: :ref:`guide-erm-kst`.

References: Kifer, Smith and Thakurta (2012), COLT, Algorithm 1 and Theorem 2; Iyengar, Near,
Song, Thakkar, Thakurta and Wang (2019), IEEE S&P, Algorithm 1 and Theorem 1.
"""

# The framework and LinearRegressionDP live in private modules; every name is importable from
# here, as before the split (weighting, dask/_erm, the tests).
from ._kst_framework import (  # noqa: F401
    KST_RESIDUAL,
    KST_RESIDUAL_DIFFERENCES,
    KST_RESIDUAL_SMALL_N,
    NOT_STRONGLY_CONVEX_MESSAGE,
    QUADRATIC_GAP,
    QUADRATIC_RESIDUAL,
    UNIT_ROUNDOFF,
    EmpiricalRiskMinimizationDP_KST,
    statistics_rounding,
    weighted_fit,
)
from ._kst_regression import (  # noqa: F401
    GRID_BITS,
    GramStatistics,
    LinearRegressionDP,
    grid_regression,
    regression_grid,
    scale_regression,
)

__all__ = ["EmpiricalRiskMinimizationDP_KST", "LinearRegressionDP"]

for _cls in (EmpiricalRiskMinimizationDP_KST, LinearRegressionDP):
    _cls.__module__ = __name__
