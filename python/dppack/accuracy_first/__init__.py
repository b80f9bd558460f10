"""Accuracy-first private ERM (Ligett et al. 2017): noise reduction (one query released at
increasing privacy levels, paying only for the last one looked at), InteractiveAboveThreshold
(stops at the first level whose private risk test passes), and the fits built from the two."""

from . import above_threshold, erm, noise_reduction
from .above_threshold import *  # noqa: F403
from .erm import *  # noqa: F403
from .noise_reduction import *  # noqa: F403

__all__ = [*above_threshold.__all__, *erm.__all__, *noise_reduction.__all__]
