"""The candidates of the in-memory quantile when its window holds every interval: for small data
the rounded sorted data padded with the bounds, built with a few array operations (the draw
stays ``_random.exponential_interval``'s)."""

import math

import numpy as np

from . import data_access

__all__ = ["all_intervals"]


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
    edges[1:-1] = _sorted_to_grid(np.sort(values), j, first, last, to_grid)
    widths = edges[1:] - edges[:-1]
    return data_access.quantile_utility(n, quant, 0, n + 1), widths, edges[:-1], []


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
