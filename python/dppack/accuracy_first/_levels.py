"""The checks shared by the noise-reduction paths (:mod:`dppack.accuracy_first.noise_reduction`):
the privacy levels and the size of ``true.values``."""

import numpy as np

from .. import _checks, _messages


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def check_levels(eps, name="eps"):
    """``eps`` as a 1-d float array of finite, strictly increasing levels > 0."""
    levels = _checks.as_numeric_array(eps, f"{name} must be a numeric vector.").ravel()
    if levels.size < 1:
        raise _messages.value_error(f"{name} must hold at least one privacy level.")
    _checks.check_positive_values(levels, f"Every value of {name} must be finite and > 0.")
    if np.any(np.diff(levels) <= 0):
        raise _messages.value_error(
            f"{name} must be strictly increasing (most private level first).")
    return levels


TRUE_VALUES_SIZE_MESSAGE = "true.values must hold at least one value."
