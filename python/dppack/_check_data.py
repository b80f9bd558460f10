"""The checks of the statistics' bounds and data (DPpack checks only the bounds' lengths; the
other checks are ours: DPpack fails obscurely or returns NA / NaN there)."""

import math

import numpy as np

from . import _frames, _messages
from ._check_values import as_numeric_array, check_number


# --------------------------------------------------------------------------------------------
# Bounds and data of the statistics (DPpack's statistics). DPpack checks only the bounds' lengths;
# the other checks below are ours (DPpack fails obscurely or returns NA / NaN there).
# --------------------------------------------------------------------------------------------


# Block length of the one-pass range scan: blocks of 64 Ki doubles (512 KiB) stay in cache, so
# taking both the minimum and the maximum of a block costs one pass over memory, not two.
_RANGE_BLOCK = 1 << 16


def check_vector(value, name):
    """DPpack's ``is.vector`` test of varDP and covDP: a matrix (2-d or more) is refused."""
    try:
        ndim = value.ndim if type(value) is np.ndarray else len(_frames.shape(value))
    except (TypeError, ValueError):  # a ragged list: not numeric either, refused later
        return value
    if ndim > 1:
        raise _messages.value_error(f"{name} must be a numeric vector.")
    return value


def r_length(value):
    """R's ``length()`` as DPpack's length checks see it (None 0, a string 1, unsizable -1)."""
    if value is None:
        return 0
    kind = type(value)
    if kind is float or kind is int:
        return 1
    if kind is np.ndarray:
        return value.size
    try:
        return math.prod(_frames.shape(value))
    except (TypeError, ValueError):
        return -1


def check_bound_length(value, name):
    """Raise DPpack's ``"Length of <name> must be 1."`` unless ``value`` has one element."""
    if r_length(value) != 1:
        raise _messages.value_error(f"Length of {name} must be 1.")
    return value


def as_bound(value, name):
    """A bound of length 1 as a finite float (ours: DPpack accepts any bound)."""
    return check_number(value, name, finite=True)


def check_bound_order(lower, upper, lower_name, upper_name):
    """Raise unless ``lower < upper`` (ours: DPpack never checks)."""
    if not lower < upper:
        raise _messages.value_error(f"{lower_name} must be < {upper_name}.")


def check_bounds(*named):
    """Validate ``(R name, value)`` bound pairs: every length in DPpack's order, then every value,
    then ``lower < upper`` per pair; returns a dict from R name to float.
    """
    for name, value in named:
        check_bound_length(value, name)
    bounds = {name: as_bound(value, name) for name, value in named}
    for name in bounds:
        if name.startswith("lower."):
            upper = "upper." + name[len("lower."):]
            check_bound_order(bounds[name], bounds[upper], name, upper)
    return bounds


def data_range(array, with_sum=False, clip=None, reduce=None):
    """(min, max) of a float array in one pass over memory ((Inf, -Inf) if empty; both NaN if any
    value is), and with ``with_sum`` the sum (of the values clipped to ``clip``, by blocks in a
    reused buffer, never a copy). ``reduce(block, inside)`` is called on every block of
    finite values of the same pass (``inside``: every value lies within ``clip``), e.g. the
    exact grid sums of ``dppack._exact_sums.GridSums``.
    """
    flat = array.ravel(order="K")  # a view whenever the layout allows one
    if flat.size == 1:  # one value (a scalar release): the same numbers without the loop
        value = float(flat[0])
        if value != value:
            return (np.nan, np.nan, np.nan) if with_sum else (np.nan, np.nan)
        if reduce is not None and math.isfinite(value):
            reduce(flat, clip is not None and clip[0] <= value <= clip[1])
        if not with_sum:
            return value, value
        clipped = value
        if clip is not None and (value < clip[0] or value > clip[1]):
            clipped = float(clip[0] if value < clip[0] else clip[1])  # as max, then min give
        return value, value, 0.0 + clipped
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
        if reduce is not None and math.isfinite(block_low) and math.isfinite(block_high):
            reduce(block, clip is not None and clip[0] <= block_low and block_high <= clip[1])
        if with_sum:
            if clip is not None and (block_low < clip[0] or block_high > clip[1]):
                if buffer is None:
                    buffer = np.empty(min(flat.size, _RANGE_BLOCK))
                out = buffer[:block.size]
                np.maximum(block, clip[0], out=out)
                np.minimum(out, clip[1], out=out)
                block = out
            with np.errstate(over="ignore"):  # an overflow warning would depend on the data
                total += float(np.add.reduce(block))
    return (low, high, total) if with_sum else (low, high)


def as_finite_data(value, name, min_size=1, with_sum=False, clip=None, message=None,
                   size_message=None, reduce=None):
    """``(array, low, high)`` (and the sum with ``with_sum``, see :func:`data_range`) of data that
    must be numeric, hold at least ``min_size`` values and be finite (ours; DPpack has no such
    checks). The array is the caller's memory when already float64; ``min_size=0`` accepts
    empty data (unbounded DP).

    Examples
    --------
    >>> array, low, high = as_finite_data([3, 1, 2], "x")
    >>> array.tolist(), low, high
    ([3.0, 1.0, 2.0], 1.0, 3.0)
    >>> try:
    ...     as_finite_data([1.0, float("nan")], "x")
    ... except ValueError as error:
    ...     print(error)
    x must be finite (no NA, NaN or Inf).
    """
    array = as_numeric_array(value, message or f"{name} must be numeric.")
    check_data_size(array.size, name, min_size, size_message)
    scan = data_range(array, with_sum, clip, reduce)
    check_data_finite(not array.size or (math.isfinite(scan[0]) and math.isfinite(scan[1])),
                      name)
    return (array,) + scan


def check_data_size(size, name, min_size=1, size_message=None):
    """The size check of :func:`as_finite_data` alone (Dask: the size from a pass)."""
    if size < min_size:
        count = {1: "one value", 2: "two values"}.get(min_size, f"{min_size} values")
        raise _messages.value_error(size_message or f"{name} must contain at least {count}.")


def check_data_finite(finite, name):
    """The finiteness check of :func:`as_finite_data` alone (``finite``: all values are)."""
    if not finite:
        raise _messages.value_error(f"{name} must be finite (no NA, NaN or Inf).")


def block_is_finite(values):
    """Whether every value of a float block is finite: its sum is, or (an overflow) every value
    tested; the caller silences NumPy's warnings.
    """
    return math.isfinite(np.add.reduce(values, axis=None)) or bool(np.all(np.isfinite(values)))
