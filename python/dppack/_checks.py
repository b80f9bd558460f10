"""Shared validation: numbers, shapes, and DPpack's message texts.

Each helper takes the user's value, returns it in the form the core computes with, and raises
``ValueError`` with DPpack 0.2.2's message where DPpack has one (spec ``dppack_api.md`` §2, §3),
or a precise message of our own where DPpack has none. The messages name arguments with R's
dotted spelling (``true.values``) because the same text reaches R users unchanged.
"""

import math
import numbers

import numpy as np

__all__ = [
    "as_bound",
    "as_finite_data",
    "as_numeric_array",
    "check_allocation",
    "check_bound_length",
    "check_bound_order",
    "check_bounds",
    "check_finite_budget",
    "check_flag",
    "check_positive_scalar",
    "check_sensitivities",
    "check_vector",
    "data_range",
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


def check_finite_positive_scalar(value, name):
    """Return ``value`` as a float if it is one finite number > 0 (as check_positive_scalar,
    and ``"<name> must be finite."`` for Inf)."""
    number = check_positive_scalar(value, name)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite.")
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


# --------------------------------------------------------------------------------------------
# Bounds and data of the statistics (spec §3.0). DPpack checks only the bounds' lengths; the
# other checks below are ours (DPpack fails obscurely or returns NA / NaN there).
# --------------------------------------------------------------------------------------------

# Block length of the one-pass range scan: blocks of 64 Ki doubles (512 KiB) stay in cache, so
# taking both the minimum and the maximum of a block costs one pass over memory, not two.
_RANGE_BLOCK = 1 << 16


def check_vector(value, name):
    """DPpack's ``is.vector`` test of varDP and covDP: a matrix (2-d or more) is refused.

    Scalars and 1-d data pass (R's scalars are vectors); what they hold is checked later.
    """
    try:
        ndim = np.ndim(value)
    except (TypeError, ValueError):  # a ragged list: not numeric either, refused later
        return value
    if ndim > 1:
        raise ValueError(f"{name} must be a numeric vector.")
    return value


def check_bound_length(value, name):
    """Raise DPpack's ``"Length of <name> must be 1."`` unless ``value`` has one element.

    As in R, ``None`` (R's NULL) has length 0 and a string has length 1; what the single
    element is gets checked later, by :func:`as_bound`.
    """
    if value is None:
        size = 0
    else:
        try:
            size = np.size(value.to_numpy() if is_pandas(value) else value)
        except (TypeError, ValueError):  # e.g. a ragged list: not one element in any case
            size = -1
    if size != 1:
        raise ValueError(f"Length of {name} must be 1.")
    return value


def as_bound(value, name):
    """Return a bound of length 1 (see :func:`check_bound_length`) as a finite float.

    Ours: DPpack accepts any bound, and a non-numeric or infinite one breaks later.
    """
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name} must be a finite number.")
    array = np.asarray(value.to_numpy() if is_pandas(value) else value)
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a finite number.")
    number = float(array.reshape(()))
    if not np.isfinite(number):
        raise ValueError(f"{name} must be a finite number.")
    return number


def check_bound_order(lower, upper, lower_name, upper_name):
    """Raise unless ``lower < upper`` (ours: DPpack never checks, spec §8.7)."""
    if not lower < upper:
        raise ValueError(f"{lower_name} must be < {upper_name}.")


def check_bounds(*named):
    """Validate bounds given as ``(R name, value)`` pairs in DPpack's length-check order.

    First every length (DPpack's checks and messages, in the order given), then every value
    (:func:`as_bound`, same order), then ``lower < upper`` for each pair (``lower.bound`` with
    ``upper.bound``, ``lower.bound1`` with ``upper.bound1``, ...), in the order the lower bounds
    appear. Returns a dict from R name to float.
    """
    for name, value in named:
        check_bound_length(value, name)
    bounds = {name: as_bound(value, name) for name, value in named}
    for name in bounds:
        if name.startswith("lower."):
            upper = "upper." + name[len("lower."):]
            check_bound_order(bounds[name], bounds[upper], name, upper)
    return bounds


def data_range(array, with_sum=False, clip=None):
    """Minimum and maximum of a float array in one pass over memory ((Inf, -Inf) if empty).

    NaN anywhere makes both NaN (numpy's reductions propagate it), so the caller tells NaN,
    Inf and out-of-bounds data apart from these two numbers alone. With ``with_sum`` the sum
    of the values comes third, from the same pass (block-wise pairwise sums, as accurate as
    ``numpy.sum``): of the values clipped to ``clip = (lower, upper)`` if given. Only blocks
    that reach outside the bounds are clipped, in a reused buffer: never a copy of the data.
    """
    flat = array.ravel(order="K")  # a view whenever the layout allows one
    buffer = None
    low, high, total = np.inf, -np.inf, 0.0
    for start in range(0, flat.size, _RANGE_BLOCK):  # a loop over blocks, not rows
        block = flat[start:start + _RANGE_BLOCK]
        block_low = float(np.minimum.reduce(block))
        if block_low != block_low:  # NaN in this block
            return (np.nan, np.nan, np.nan) if with_sum else (np.nan, np.nan)
        block_high = float(np.maximum.reduce(block))
        low = min(low, block_low)
        high = max(high, block_high)
        if with_sum:
            if clip is not None and (block_low < clip[0] or block_high > clip[1]):
                if buffer is None:
                    buffer = np.empty(min(flat.size, _RANGE_BLOCK))
                out = buffer[:block.size]
                np.maximum(block, clip[0], out=out)
                np.minimum(out, clip[1], out=out)
                block = out
            total += float(np.add.reduce(block))
    return (low, high, total) if with_sum else (low, high)


def as_finite_data(value, name, min_size=1, with_sum=False, clip=None):
    """Return data as a float ndarray with its minimum and maximum: ``(array, low, high)``,
    and with ``with_sum`` also the sum of the values (clipped to ``clip = (lower, upper)``
    if given): ``(array, low, high, total)``; see :func:`data_range`.

    Ours (DPpack has no such checks), in this order: the data must be numeric ("<name> must
    be numeric."); hold at least ``min_size`` values; and be finite. The array is the caller's
    own memory whenever it is already float64: callers only read it. With ``min_size=0``
    (unbounded DP, where n is private) empty data are accepted, with the range (Inf, -Inf)
    (nothing to clip) and the sum 0.
    """
    array = as_numeric_array(value, f"{name} must be numeric.")
    if array.size < min_size:
        count = {1: "one value", 2: "two values"}.get(min_size, f"{min_size} values")
        raise ValueError(f"{name} must contain at least {count}.")
    scan = data_range(array, with_sum, clip)
    if array.size and not (np.isfinite(scan[0]) and np.isfinite(scan[1])):
        raise ValueError(f"{name} must be finite (no NA, NaN or Inf).")
    return (array,) + scan
