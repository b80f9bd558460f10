"""The candidates of the in-memory quantile when its window holds every interval (issue 29).

``dppack.stats._quantile_candidates`` finds a window of intervals around rank quant n and
adds the unions beyond it. For small data (n below about 4 (50 + log n) / eps: 100 values at
eps = 1) the first window already holds all n + 1 intervals and there is no union: the
candidates are then the rounded sorted data padded with the bounds. :func:`all_intervals`
builds exactly those arrays (same values, same dtypes) with a handful of array operations
instead of the general path's records, concatenations and window test, so that a small
quantile costs little. It draws nothing: the draw stays ``_random.exponential_interval``'s.
"""

import functools
import math

import numpy as np

from . import data_access

__all__ = ["all_intervals", "plain_arguments"]


def all_intervals(values, quant, j, first, last, to_grid):
    """(utilities, widths, starts, unions) of every interval k = 0, ..., n.

    The same arrays as ``dppack.stats._quantile_candidates`` returns when its window is all
    the intervals: with X_1 <= ... <= X_n the data rounded to the grid g = 2^j and clipped to
    [X_0, X_{n+1}] = [``first``, ``last``] (``to_grid``, applied to the sorted data: rounding
    and clipping are monotone, so they commute with sorting), interval k is [X_k, X_{k+1}),
    its width X_{k+1} - X_k grid points and its utility -abs(k - quant n) (DPpack's,
    ``data_access.quantile_utility``). The sensitivity of that utility and the exactness of
    the draw are argued in ``dppack.stats.quantileDP`` (Smith 2011, Section 3; McSherry and
    Talwar 2007, Theorem 6).

    Parameters
    ----------
    values : numpy.ndarray
        The data, float64, one dimension, finite (checked by the caller).
    quant : float
    j, first, last : int
        The grid exponent and the bounds in grid units (``stats._quantile_grid``).
    to_grid : callable
        ``stats._to_grid``: clip(round(x / g), first, last) as int64.

    Returns
    -------
    utilities : numpy.ndarray of float64
    widths, starts : numpy.ndarray of int64
    unions : list
        Empty: no union of intervals beyond the window.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.stats import _quantile
    >>> j, first, last = _quantile._quantile_grid(0.0, 8.0)
    >>> u, w, s, unions = all_intervals(np.array([2.0, 6.0]), 0.5, j, first, last,
    ...                                 _quantile._to_grid)
    >>> (-u).tolist(), (w * 2.0 ** j).tolist(), unions
    ([1.0, 0.0, 1.0], [2.0, 4.0, 2.0], [])
    """
    n = values.size
    edges = np.empty(n + 2, dtype=np.int64)
    edges[0], edges[-1] = first, last
    ordered = values.copy()  # np.sort(values), without its dispatch
    ordered.sort()
    edges[1:-1] = _sorted_to_grid(ordered, j, first, last, to_grid)
    widths = edges[1:] - edges[:-1]
    if n > _CACHED_MAX:
        return data_access.quantile_utility(n, quant, 0, n + 1), widths, edges[:-1], []
    return _utilities(n, quant), widths, edges[:-1], []


_CACHED_MAX = 4096  # utilities of up to this many data are kept (64 sets at most)


@functools.lru_cache(maxsize=64)
def _utilities(n, quant):
    """``data_access.quantile_utility(n, quant, 0, n + 1)``, computed once per (n, quant)
    and read-only (the callers only read it)."""
    utility = data_access.quantile_utility(n, quant, 0, n + 1)
    utility.flags.writeable = False
    return utility


def _sorted_to_grid(ordered, j, first, last, to_grid):
    """``to_grid(ordered, j, first, last)`` for sorted float64 data, with the work its ends
    allow left out (integral floats; the caller stores them as int64).

    Sorted, the data's largest magnitude is at an end: when it times 2^-j stays below 2^1024,
    no value overflows and ``np.ldexp`` needs no error-state context; the rounded values are
    sorted too, so they need clipping only if an end lies outside [first, last]. The values
    are those of ``to_grid`` (same ``np.ldexp``, ``np.rint`` and clip), which serves every
    other case (no data, other dtypes, magnitudes beyond the scaled range)."""
    if not ordered.size or ordered.dtype != np.float64 or math.frexp(
            max(-float(ordered[0]), float(ordered[-1])))[1] - j > 1023:
        return to_grid(ordered, j, first, last)
    scaled = np.ldexp(ordered, -j)
    np.rint(scaled, out=scaled)
    if scaled[0] < first or scaled[-1] > last:
        np.clip(scaled, first, last, out=scaled)
    return scaled


def plain_arguments(x, quant, eps, lower_bound, upper_bound, which_sensitivity, mechanism):
    """Whether quantileDP's checks all pass on these arguments and leave them as they are:
    bounds and quant plain floats with lower_bound < upper_bound finite and quant in
    [0, 1], eps a finite float > 0, which_sensitivity 'bounded' or 'unbounded' (not 'both',
    which warns), the exponential mechanism, and ``x`` a one-dimensional float64 NumPy
    array of finite values, not empty. Then ``stats._quantile`` skips the checks' calls
    (each would return its argument unchanged); otherwise they run, in their order, with
    their messages.

    Examples
    --------
    >>> import numpy as np
    >>> plain_arguments(np.array([0.2, 0.4]), 0.5, 1.0, 0.0, 1.0, "bounded", "exponential")
    True
    >>> plain_arguments(np.array([0.2, np.nan]), 0.5, 1.0, 0.0, 1.0, "bounded", "exponential")
    False
    """
    if not (type(lower_bound) is float and type(upper_bound) is float and type(quant) is float
            and type(eps) is float and -math.inf < lower_bound < upper_bound < math.inf
            and 0.0 <= quant <= 1.0 and 0.0 < eps < math.inf
            and (which_sensitivity == "bounded" or which_sensitivity == "unbounded")
            and type(which_sensitivity) is str and mechanism == "exponential"
            and type(mechanism) is str):
        return False
    if type(x) is not np.ndarray or x.dtype != np.float64 or x.ndim != 1 or not x.size:
        return False
    return math.isfinite(np.minimum.reduce(x)) and math.isfinite(np.maximum.reduce(x))
