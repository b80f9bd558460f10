"""Accuracy-first private ERM (Ligett et al. 2017; spec ``accuracy_first.md``), in three parts:

* :mod:`.noise_reduction` — one query released at increasing privacy levels, paying only for
  the last level looked at (§2, §3);
* :mod:`.above_threshold` — InteractiveAboveThreshold, which stops at the first level whose
  private risk test passes (§5);
* :mod:`.erm` — the accuracy-first fits built from the two, beside the doubling and theory
  baselines (§6, §7).
"""

from .above_threshold import InteractiveAboveThreshold, above_threshold_calibration
from .erm import (
    AccuracyFirstResult,
    accuracy_first_erm,
    accuracy_first_parameters,
    doubling_erm,
    theory_erm,
)
from .noise_reduction import (
    GaussianNoiseReduction,
    LaplaceNoiseReduction,
    LaplaceNoiseReductionOnline,
    privacy_level_grid,
)

__all__ = [
    "AccuracyFirstResult",
    "GaussianNoiseReduction",
    "InteractiveAboveThreshold",
    "LaplaceNoiseReduction",
    "LaplaceNoiseReductionOnline",
    "above_threshold_calibration",
    "accuracy_first_erm",
    "accuracy_first_parameters",
    "doubling_erm",
    "privacy_level_grid",
    "theory_erm",
]
