"""dppack: differential privacy for statisticians.

The numeric core of DPpackPy: DPpack 0.2.2's mechanisms, statistics and models, with the same
names and arguments (dots become underscores) and a trailing ``random_state`` on every function
that draws noise. ``None`` draws fresh operating-system entropy; an int or a
NumPy ``Generator`` makes a call reproducible.

Beyond DPpack: privacy accounting (:mod:`dppack.accounting`) and four research methods, each in
its own subpackage: :mod:`dppack.confidence_intervals`, :mod:`dppack.model_selection`,
:mod:`dppack.accuracy_first` and :mod:`dppack.analytic_gaussian_erm`. Their public names are
re-exported here, so ``dppack.<name>`` reaches every release.
"""

import sys as _sys

# datasets is cheap (no pandas until a loader runs): ``dppack.datasets.load_pima()`` works
# after a bare ``import dppack``.
from . import accuracy_first, data_access, datasets, erm, model_selection, stats, tuning
from . import _memory  # noqa: F401 (registers the in-memory backend: dppack._backends)
from . import _messages
from .accounting import BudgetAccountant, BudgetExceededError, PrivacyLoss
from .accuracy import NoiseInterval, noiseIntervalDP
from .accuracy_first import *  # noqa: F403 (names in accuracy_first.__all__)
from .analytic_gaussian_erm import GradientPerturbationAGM, OutputPerturbationAGM
from .confidence_intervals import confintDP, confintERM
from .data_access import *  # noqa: F403
from .erm import *  # noqa: F403
from .erm import LinearRegressionAdaSSP
from .erm._solvers import ConvergenceError
from .mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    calibrateAnalyticGaussianMechanism,
)
from .model_selection import *  # noqa: F403
from .quantiles import boundsDP, quantilesDP
from .stats import *  # noqa: F403
from .tuning import *  # noqa: F403

__version__ = "0.1.0"

# DPpack 0.2.2's names (in ASCII order), then the names beyond DPpack, topic by topic.
_MECHANISMS = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
]
__all__ = [
    *sorted([*erm.__all__, *_MECHANISMS, *data_access.__all__, *stats.__all__, *tuning.__all__]),
    "BudgetAccountant",
    "BudgetExceededError",
    # raised by a fit whose solver cannot certify its minimiser (nothing is released)
    "ConvergenceError",
    "PrivacyLoss",
    "confintDP",
    "confintERM",
    *model_selection.__all__,
    *sorted(accuracy_first.__all__),
    # the subpackages' calibration helpers stay there: only the releases are re-exported
    "GradientPerturbationAGM",
    "OutputPerturbationAGM",
    # joint quantiles and private bounds
    "boundsDP",
    "quantilesDP",
    # accuracy reports: the (1 - alpha) interval of a release's noise
    "NoiseInterval",
    "noiseIntervalDP",
    # sufficient-statistics perturbation with an adaptive ridge (Wang 2018)
    "LinearRegressionAdaSSP",
]

ConvergenceError.__module__ = __name__  # its public path (reprs, tracebacks, pickles)

_messages.register_public_api(_sys.modules[__name__])  # the names its messages spell
