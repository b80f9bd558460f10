"""Shared validation: numbers, shapes, and DPpack's message texts.

Each helper takes the user's value, returns it in the form the core computes with, and raises
``ValueError`` with DPpack 0.2.2's message where DPpack has one (spec ``dppack_api.md`` §2, §3),
or a precise message of our own where DPpack has none. The messages name arguments with R's
dotted spelling (``true.values``) because the same text reaches R users unchanged.
"""

import numbers

import numpy as np

__all__ = [
    "as_numeric_array",
    "check_allocation",
    "check_finite_budget",
    "check_flag",
    "check_positive_scalar",
    "check_sensitivities",
    "is_pandas",
    "restore_like",
]


def is_pandas(value):
    """True for pandas objects, detected without importing pandas."""
    return type(value).__module__.partition(".")[0] == "pandas"


def as_numeric_array(value, message):
    """Return ``value`` as a float ndarray, or raise ``ValueError(message)``.

    Accepts Python numbers, sequences, numpy arrays and pandas objects whose values are real
    numbers. Booleans, strings, complex numbers and objects are rejected, as R's
    ``is.numeric`` rejects them. The caller's object is never modified: the result is a new
    array whenever a conversion happens, and callers only read it.
    """
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(message)
    try:
        array = np.asarray(value.to_numpy() if is_pandas(value) else value)
    except (TypeError, ValueError):
        raise ValueError(message) from None
    if array.dtype.kind not in "iuf":
        raise ValueError(message)
    return array.astype(np.float64, copy=False)


def check_positive_scalar(value, name):
    """Return ``value`` as a float if it is one number > 0, else raise DPpack's message.

    The message is ``"<name> must be a scalar > 0"`` (DPpack's text, no trailing period).
    NaN fails the test too, where R would stop with "missing value where TRUE/FALSE needed".
    """
    message = f"{name} must be a scalar > 0"
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise ValueError(message)
    array = np.asarray(value)
    if array.size != 1 or array.dtype.kind not in "iuf":
        raise ValueError(message)
    number = float(array.reshape(()))
    if not number > 0:
        raise ValueError(message)
    return number


def check_finite_budget(value, name):
    """Reject an infinite privacy parameter (DPpack fails obscurely or returns NaN there)."""
    if not np.isfinite(value):
        raise ValueError(
            f"{name} must be finite: {name} = Inf would release the true values without noise."
        )
    return value


def check_sensitivities(sensitivities, n_values):
    """Validate global sensitivities against ``n_values`` true values (spec §2.1 steps 3-4)."""
    sens = as_numeric_array(sensitivities, "Global sensitivities must be numeric.").ravel()
    if sens.size != n_values and sens.size != 1:
        raise ValueError(
            "Length of sensitivities must match length of true.values or be length 1."
        )
    if np.any(np.isnan(sens)) or np.any(sens <= 0):
        raise ValueError("Global sensitivities must be > 0.")
    if not np.all(np.isfinite(sens)):
        raise ValueError("Global sensitivities must be finite.")
    return sens


def check_allocation(alloc_proportions, n_sensitivities, n_values):
    """Validate and normalise ``alloc.proportions`` (spec §2.1 step 5); None passes through.

    DPpack accepts an allocation together with one scalar sensitivity for several true values
    and then crashes (Laplace) or returns NaN (Gaussian) (spec §8.8); we refuse it up front.
    """
    if alloc_proportions is None:
        return None
    alloc = as_numeric_array(
        alloc_proportions, "Values in alloc.proportions, if given, must be numeric."
    ).ravel()
    if alloc.size != n_sensitivities:
        raise ValueError(
            "Length of alloc.proportions, if given, must match length of sensitivities."
        )
    if np.any(np.isnan(alloc)) or np.any(alloc <= 0):
        raise ValueError("Values in alloc.proportions, if given, must be > 0.")
    if not np.all(np.isfinite(alloc)):
        raise ValueError("Values in alloc.proportions, if given, must be finite.")
    if n_sensitivities != n_values:
        raise ValueError(
            "alloc.proportions needs one sensitivity per element of true.values; "
            "with a single sensitivity for several values, leave alloc.proportions NULL."
        )
    return alloc / alloc.sum()


def check_flag(value, name):
    """Return ``value`` as a bool if it is one logical value, else raise a clear error."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    array = np.asarray(value)
    if array.size == 1 and array.dtype.kind == "b":
        return bool(array.reshape(()))
    raise ValueError(f"{name} must be TRUE or FALSE.")


def restore_like(values, like):
    """Give ``values`` (a float ndarray) the shape and container of the user's ``like``.

    DPpack returns ``true.values + noise``, which keeps the shape of ``true.values``: scalars
    stay scalars, arrays keep their shape, pandas objects keep their index and columns.
    """
    if is_pandas(like):
        if hasattr(like, "columns"):
            return type(like)(values.reshape(like.shape), index=like.index, columns=like.columns)
        return type(like)(values.reshape(like.shape), index=like.index, name=like.name)
    if isinstance(like, numbers.Number) or np.ndim(like) == 0:
        return float(values.reshape(()))
    return values.reshape(np.shape(like))
