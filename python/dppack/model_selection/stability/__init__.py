"""Stability-based private validation (Chaudhuri and Vinterbo 2013, "the paper" below).

Every candidate is trained on the whole training set at the whole training budget eps_train;
only the index of the best candidate on the validation set is released, by a noisy maximum
whose privacy (eps_select, delta) rests on the stability of the validation score (Thm 1). The
selected candidate is then retrained with fresh noise (Thm 2): (eps_train + eps_select,
delta)-DP in total, whatever the number of candidates. A trainer is a :class:`StableTrainer`;
two are provided (linear classifiers, histograms). ``noise="shared"`` (the default) uses one
noise draw for every candidate's fit, ``"independent"`` one per candidate (the paper's
Algorithm 1). Each public release charges its whole run once to its ``accountant``.

Derivations (shared noise, the exact selection, the constants, the diagnosis):
:doc:`/guide/stability-derivations`.
"""

from ._constants import (advanced_composition_eps, selection_privacy,
                         stability_constants_histogram, stability_constants_linear)
from ._diagnosis import (NEAR_UNIFORM_TV, NearUniformSelectionWarning, StabilitySelectionDiagnosis,
                         UTILITY_DELTA, stability_selection_diagnosis,
                         tune_classification_model_stable)
from ._histogram import HistogramTrainer, tune_histogram_bin_width_stable
from ._linear import LinearClassifierTrainer
from ._procedure import StableTrainer, stable_select, tune_stable, validate_stable

__all__ = [
    "NearUniformSelectionWarning",
    "StabilitySelectionDiagnosis",
    "StableTrainer",
    "advanced_composition_eps",
    "selection_privacy",
    "stability_constants_histogram",
    "stability_constants_linear",
    "stability_selection_diagnosis",
    "stable_select",
    "tune_classification_model_stable",
    "tune_histogram_bin_width_stable",
    "tune_stable",
    "validate_stable",
]
