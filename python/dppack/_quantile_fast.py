"""The candidates of the in-memory quantile when its window holds every interval: for small data
the rounded sorted data padded with the bounds, built with a few array operations (the draw
stays ``_random.exponential_interval``'s)."""

import functools
import math

import numpy as np

from . import data_access

__all__ = ["all_intervals", "plain_arguments"]


def all_intervals(values, quant, j, first, last, to_grid):
    """(utilities, widths, starts, unions) of every interval k = 0, ..., n: the arrays
    ``stats._quantile_candidates`` returns when its window is all the intervals (``values``
    float64 and finite; ``j``, ``first``, ``last`` the grid exponent and bounds in grid units;
    ``to_grid`` is ``stats._to_grid``). ``unions`` is empty.

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
    """``to_grid(ordered, j, first, last)`` for sorted float64 data, the same values with less
    work: the ends bound the magnitudes (no overflow context) and the need to clip."""
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
