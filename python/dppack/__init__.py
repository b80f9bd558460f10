"""dppack: differential privacy for statisticians.

The numeric core of DPpackPy: DPpack 0.2.2's mechanisms, statistics and models, with the same
names and arguments (dots become underscores) and a trailing ``random_state`` on every function
that draws noise. ``None`` draws fresh operating-system entropy; an int or a
``numpy.random.Generator`` makes a call reproducible.
"""

from .mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    calibrateAnalyticGaussianMechanism,
)

__version__ = "0.1.0"

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
]
