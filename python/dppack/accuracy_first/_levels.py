"""The checks shared by the noise-reduction paths (:mod:`dppack.accuracy_first.noise_reduction`):
the privacy levels and the size of ``true.values``."""

import functools

import numpy as np

from .. import _checks, _messages


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def as_float_vector(value, message):
    """``value`` as a flat float64 array (``_checks.as_numeric_array``, or ``message``), a
    list or tuple of Python floats taken directly (the same array, without the checks for
    data frames)."""
    if type(value) in (list, tuple) and value and all(type(v) is float for v in value):
        return np.array(value, dtype=np.float64)
    return _checks.as_numeric_array(value, message).ravel()


def check_levels(eps, name="eps"):
    """``eps`` as a 1-d float array of finite, strictly increasing levels > 0."""
    levels = as_float_vector(eps, f"{name} must be a numeric vector.")
    if levels.size < 1:
        raise _messages.value_error(f"{name} must hold at least one privacy level.")
    _checks.check_positive_values(levels, f"Every value of {name} must be finite and > 0.")
    if (levels[1:] <= levels[:-1]).any():  # (finite values: np.diff(levels) <= 0)
        raise _messages.value_error(
            f"{name} must be strictly increasing (most private level first).")
    return levels


TRUE_VALUES_SIZE_MESSAGE = "true.values must hold at least one value."


@functools.lru_cache(maxsize=256)
def common_rates(rates):
    """(t, s) for the batch path's rates ((t_i, s_i) of levels 1..T): the common denominator
    t = max t_i and the numerators of levels T, ..., 1 over it (s_i t / t_i, read-only int64:
    the same rates)."""
    top = max(t for t, _ in rates)
    scaled = np.array([s * (top // t) for t, s in rates[::-1]], dtype=np.int64)
    scaled.flags.writeable = False
    return top, scaled
