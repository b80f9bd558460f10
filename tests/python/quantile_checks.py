"""The exact law of quantileDP's interval on its grid, shared by stats/test_stats.py and
dask/test_dask_quantiles.py (the in-memory and the Dask release have the same law)."""

import math

import numpy as np


def _quantile_grid_law(x, quant, eps, lower, upper):
    """The exact law of quantileDP's interval, written out from its Notes (not computed by
    it): the grid g = 2^j, j = e - 59 for max(|L|, |U|) < 2^e; the records clipped and
    rounded to it, the bounds X_0 = ceil(L/g) and X_{n+1} = floor(U/g); interval k has
    weight (X_{k+1} - X_k) exp(eps u~_k / (2 Delta')), u~ = -|k - quant n| rounded to
    2^-20 and Delta' = 1 + 2^-20 (``_random.exponential_mechanism``). Returns (j, the
    interval edges in grid units, the probabilities)."""
    j = math.frexp(max(abs(lower), abs(upper)))[1] - 59
    first, last = math.ceil(math.ldexp(lower, -j)), math.floor(math.ldexp(upper, -j))
    rounded = sorted(min(max(round(math.ldexp(float(v), -j)), first), last) for v in x)
    edges = np.array([first] + rounded + [last], dtype=object)
    widths = np.array([float(w) for w in np.diff(edges)])
    n = len(x)
    utility = np.array([round(math.ldexp(-abs(k - quant * n), 20)) for k in range(n + 1)])
    log_weight = eps * utility / (2 * (2 ** 20 + 1))
    with np.errstate(divide="ignore"):
        log_weight = log_weight + np.log(widths)
    weights = np.exp(log_weight - log_weight.max())
    return j, edges, weights / weights.sum()


def _interval_index(out, j, edges):
    """The interval of each released value (the grid point, as a float, back in grid units;
    a point rounded up onto the next edge by the float conversion has probability < 2^-40
    here)."""
    points = np.ldexp(np.asarray(out, dtype=np.float64), -j)
    return np.searchsorted(np.array([float(e) for e in edges]), points, side="right") - 1
