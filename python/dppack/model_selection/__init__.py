"""Private model selection by stability (Chaudhuri and Vinterbo 2013; spec
``stability_validation.md``): candidates trained on the whole training set, the best one chosen
on a validation set by a noisy maximum whose privacy rests on the score's stability.
DPpack's own private tuning (the exponential mechanism over disjoint splits) is
:mod:`dppack.tuning`."""

from .stability import (
    StableTrainer,
    advanced_composition_eps,
    selection_privacy,
    stability_constants_histogram,
    stability_constants_linear,
    stable_select,
    tune_classification_model_stable,
    tune_histogram_bin_width_stable,
    tune_stable,
    validate_stable,
)

__all__ = [
    "StableTrainer",
    "advanced_composition_eps",
    "selection_privacy",
    "stability_constants_histogram",
    "stability_constants_linear",
    "stable_select",
    "tune_classification_model_stable",
    "tune_histogram_bin_width_stable",
    "tune_stable",
    "validate_stable",
]
