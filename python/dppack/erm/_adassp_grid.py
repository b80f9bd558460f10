"""The integer grid of AdaSSP's exact sufficient statistics: its bits, the records on it, their
Gram matrix and its sensitivities (Wang 2018, Algorithm 2, released on a grid).
"""

import math
from fractions import Fraction

import numpy as np

from .. import _messages
from ._grid import to_grid as _to_grid

# The grid of the records: z in [-1, 1] rounded to multiples of 2^-k, k at most 26
# (finer gains nothing against the noise) and such that n 2^(2k) <= 2^52.
MAX_GRID_BITS = 26
TOO_MANY_ROWS_MESSAGE = "LinearRegressionAdaSSP.fit takes at most 2^50 rows."


def grid_bits(n):
    """The exponent k of the records' grid 2^-k for n rows: the largest k <= 26 with
    n 2^(2k) <= 2^52 (the sums of products are then exact in float64).

    Examples
    --------
    >>> grid_bits(309), grid_bits(10 ** 6)
    (21, 16)
    """
    bits = (52 - (int(n) - 1).bit_length()) // 2
    if bits < 1:
        raise _messages.value_error(TOO_MANY_ROWS_MESSAGE)
    return min(MAX_GRID_BITS, bits)


def float_up(value):
    """The smallest float >= the rational ``value`` (a sensitivity handed on as a float)."""
    value = Fraction(value)
    out = float(value)
    if Fraction(out) < value:
        out = math.nextafter(out, math.inf)
    return out


def product_range(a, b, c, d):
    """max - min of u v over the integer box u in [a, b], v in [c, d] (exact integers)."""
    corners = (a * c, a * d, b * c, b * d)
    return max(corners) - min(corners)


def square_range(a, b):
    """max - min of u^2 over the integers u in [a, b]."""
    low = 0 if a <= 0 <= b else min(a * a, b * b)
    return max(a * a, b * b) - low


def gram_sensitivities(low, high):
    """(L1, squared L2) sensitivities of the upper triangle of Z'Z for integer records with
    low_j <= z_j <= high_j, one record replaced (exact Fractions; :ref:`guide-erm-adassp`).

    Examples
    --------
    >>> l1, l2sq = gram_sensitivities([-1, -1], [1, 1])
    >>> l1, l2sq  # entries (1,1), (1,2), (2,2): ranges 1, 2, 1; rank-two bound 2 + 2
    (Fraction(4, 1), Fraction(5, 1))
    """
    low = [int(v) for v in low]
    high = [int(v) for v in high]
    p = len(low)
    diagonal = [square_range(low[i], high[i]) for i in range(p)]
    off = [product_range(low[i], high[i], low[j], high[j])
           for i in range(p) for j in range(i + 1, p)]
    m = [max(abs(a), abs(b)) for a, b in zip(low, high)]
    total, widths = sum(m), sum(b - a for a, b in zip(low, high))
    u = min(total, widths)
    l1 = min(Fraction(sum(off) + sum(diagonal)),
             Fraction(u * (2 * total - u), 2) + sum(diagonal))
    r2 = sum(v * v for v in m)
    l2sq = min(Fraction(sum(v * v for v in off) + sum(v * v for v in diagonal)),
               Fraction(r2 * r2) + Fraction(sum(v * v for v in diagonal), 2))
    return l1, l2sq


def grid_layout(bounds, target_bounds, add_bias, k):
    """Per column (bias first, y last): centre c, scale s, factor f = 2^k / s and the
    integer bounds of u = round((x - c) f), from the bounds alone.
    """
    lower = np.append(bounds.lower, target_bounds.lower[0])
    upper = np.append(bounds.upper, target_bounds.upper[0])
    if add_bias:
        centre = (lower + upper) / 2
        scale = (upper - lower) / 2
        centre[0], scale[0] = 0.0, 1.0  # the bias column: 1
    else:
        centre = np.zeros_like(lower)
        scale = np.maximum(np.abs(lower), np.abs(upper))
    factor = math.ldexp(1.0, k) / scale
    low, high = _to_grid(lower, centre, factor), _to_grid(upper, centre, factor)
    return {"k": k, "centre": centre, "scale": scale, "factor": factor, "low": low,
            "high": high}


def grid_records(X, y, grid):
    """X (in place) and y (new) as whole numbers on the grid of ``grid_layout``."""
    p = X.shape[1]
    centre, factor, low, high = grid["centre"], grid["factor"], grid["low"], grid["high"]
    _to_grid(X, centre[:p], factor[:p], out=X)
    y = _to_grid(y, centre[p], factor[p])  # a new array: never the caller's y
    np.clip(X, low[:p], high[:p], out=X)
    np.clip(y, low[p], high[p], out=y)
    return X, y


def integer_gram(X, y):
    """The exact integer Gram matrix of the grid records [X, y]."""
    p = X.shape[1]
    gram = np.empty((p + 1, p + 1))
    gram[:p, :p] = X.T @ X
    gram[:p, p] = gram[p, :p] = X.T @ y
    gram[p, p] = y @ y
    return gram
