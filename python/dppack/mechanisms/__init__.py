"""The differential-privacy mechanisms of DPpack 0.2.2, and the analytic Gaussian calibration.

Every formula follows DPpack 0.2.2; the section is cited where it is used. All
noise is drawn through :mod:`dppack._random`.
"""

from ._additive import GaussianMechanism, LaplaceMechanism
from ._analytic import calibrateAnalyticGaussianMechanism
from ._calibration import gaussian_sigma, laplace_scale
from ._discrete_gaussian import discrete_gaussian_parameters, discrete_gaussian_release
from ._exponential import ExponentialMechanism

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
    "discrete_gaussian_parameters",
    "discrete_gaussian_release",
    "gaussian_sigma",
    "laplace_scale",
]
