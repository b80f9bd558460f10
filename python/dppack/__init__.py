"""dppack: differential privacy for statisticians.

The numeric core of DPpackPy: DPpack 0.2.2's mechanisms, statistics and models, with the same
names and arguments (dots become underscores) and a trailing ``random_state`` on every function
that draws noise. ``None`` draws fresh operating-system entropy; an int or a
NumPy ``Generator`` makes a call reproducible.
"""

from .data_access import (
    covDataAccess,
    histogramDataAccess,
    meanDataAccess,
    pooledCovDataAccess,
    pooledVarDataAccess,
    quantileDataAccess,
    tableDataAccess,
    varDataAccess,
)
from .mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    calibrateAnalyticGaussianMechanism,
)
from .stats import (
    covDP,
    histogramDP,
    meanDP,
    medianDP,
    pooledCovDP,
    pooledVarDP,
    quantileDP,
    sdDP,
    tableDP,
    varDP,
)

__version__ = "0.1.0"

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
    "covDP",
    "covDataAccess",
    "histogramDP",
    "histogramDataAccess",
    "meanDP",
    "meanDataAccess",
    "medianDP",
    "pooledCovDP",
    "pooledCovDataAccess",
    "pooledVarDP",
    "pooledVarDataAccess",
    "quantileDP",
    "quantileDataAccess",
    "sdDP",
    "tableDP",
    "tableDataAccess",
    "varDP",
    "varDataAccess",
]
