"""Exact moment statistics: records on a public grid, their exact integer sums, and exact
rationals rounded onto a noise grid (issue 25).

The moment statistics (meanDP, varDP, sdDP, covDP, pooledVarDP, pooledCovDP) compute their
true value as an exact function of per-record integers, so that no floating-point rounding
of a sum depends on the data (Casacuberta, Shoemate, Vadhan and Wagaman 2022, "Widespread
underestimation of sensitivity in differentially private libraries", CCS, show how float
sums break the sensitivity):

* the grid g = 2^k of the records is the largest power of two with g <= (U - L) 2^-20, from
  the public bounds alone (:func:`data_grid`);
* each record maps to an integer q in [0, Q] in floating point (:func:`to_grid`: x clipped
  to [L, U], then rint(x / g) - rint(L / g) for bounds near 0, rint((x - L) / g) else): a
  deterministic map of one record with range [0, Q], Q <= 2^21, so the rounded records
  origin + g q (:func:`grid_origin`) lie in an interval of width Q g <= U - L + g
  <= (U - L)(1 + 2^-20), and every sensitivity of DPpack holds with U - L replaced by Q g;
* the sums S1 = sum q, S2 = sum q^2 and sum q1 q2 are exact: integer-valued floats below
  2^53 in every partial sum (blocks of 2^16 values below 2^36 for S1, rows of 2^11 products
  below 2^42), blocks added as Python integers;
* a statistic is an exact rational ``(num, den, e)`` = num 2^e / den, rounded half to even
  onto the noise grid 2^j in integers (:func:`round_to_grid`) before the exact integer
  noise, and the released float is a function of the noisy integer alone
  (:func:`grid_float`).

Derivation: ``docs/python/guide/adding-a-release.md`` (Exact moments).
"""

import functools
import math
from fractions import Fraction

import numpy as np

__all__ = []

#: g <= (U - L) / 2^DATA_GRID_BITS: the rounding of a record costs at most 2^-21 of the width.
DATA_GRID_BITS = 20
#: Values per block of the sums of q (q <= 2^21: partial sums below 2^37).
BLOCK = 1 << 16
#: Values per row of the sums of products (q1 q2 <= 2^42: partial sums below 2^53).
PRODUCT_ROW = 1 << 11


#: Bounds with max(|L|, |U|) <= 2^NEAR_BITS g: the grid anchored at 0 (q = rint(x / g) - c0,
#: every rint(x / g) below 2^36, so that block sums of 2^16 of them are exact).
NEAR_BITS = 36


@functools.lru_cache(maxsize=256)
def grid_exponent(lower, upper):
    """k: g = 2^k the largest power of two with g <= (U - L) 2^-20 (U - L exact).

    Examples
    --------
    >>> grid_exponent(0.0, 1.0), grid_exponent(1.75 - 2.0 ** -52, 1.75)
    (-20, -72)
    """
    width = Fraction(upper) - Fraction(lower)
    a, b = width.numerator, width.denominator
    e = a.bit_length() - b.bit_length()  # floor(log2(a / b)) is e or e - 1
    if (a << max(-e, 0)) < (b << max(e, 0)):
        e -= 1
    return e - DATA_GRID_BITS


@functools.lru_cache(maxsize=256)
def _layout(lower, upper):
    """(k, Q, c0, near) of the bounds: the grid 2^k, the largest integer Q of a record (the
    map of U), the offset c0 = rint(L / g) of the grid anchored at 0 (``near``: bounds within
    2^36 steps of 0), else 0 (the grid anchored at L)."""
    k = grid_exponent(lower, upper)
    near = Fraction(max(abs(lower), abs(upper))) <= Fraction(2) ** (NEAR_BITS + k)
    bounds = np.array([lower, upper])
    if near:
        scaled = np.rint(_scale(bounds, k, np.empty(2)))
        c0 = int(scaled[0])
        return k, int(scaled[1]) - c0, c0, True
    scaled = np.rint(_scale(np.subtract(bounds, lower), k, np.empty(2)))
    return k, int(scaled[1]), 0, False


def data_grid(lower, upper):
    """(k, Q): the grid g = 2^k of the records of [L, U] (the largest power of two with
    g <= (U - L) 2^-20) and the largest integer Q of a record: Q g <= U - L + g.

    Examples
    --------
    >>> data_grid(0.0, 1.0)
    (-20, 1048576)
    >>> data_grid(1.75 - 2.0 ** -52, 1.75)
    (-72, 1048576)
    """
    k, top, _, _ = _layout(float(lower), float(upper))
    return k, top


def grid_origin(lower, upper):
    """The exact value of the integer 0, as (num, 1, e): a record q is origin + q g; the
    origin is L (bounds far from 0) or c0 g = g rint(L / g) (near 0).

    Examples
    --------
    >>> grid_origin(-0.3, 1.0)  # c0 = rint(-0.3 2^20) = -314573
    (-314573, 1, -20)
    """
    k, _, c0, near = _layout(float(lower), float(upper))
    return (c0, 1, k) if near else float_ratio(float(lower))


def _scale(values, k, out):
    """values 2^-k in ``out`` (a product by the double 2^-k, or ``np.ldexp`` beyond it)."""
    if -1022 <= k <= 1022:
        return np.multiply(values, math.ldexp(1.0, -k), out=out)
    return np.ldexp(values, -k, out=out)


def to_grid(values, lower, upper, out=None, inside=False, clip=None, shifted=True):
    """The records' integers q in [0, Q] (floats), ``(k, Q)`` = :func:`data_grid`.

    The map of one record: x clipped to [L, U], then rint(x 2^-k) - c0 (bounds near 0:
    ``_layout``) or rint((x - L) 2^-k) (far from 0), in floats: the product by 2^-k is exact
    and rounding is monotone, so the map is monotone, 0 at L and Q at U: q lies in [0, Q].
    Each rint(x 2^-k) near 0 is below 2^36 and each q below 2^21 + 1 (U - L < 2^21 g), so Q
    <= 2^21. ``inside``: the caller knows L <= x <= U for every value (the clip is left
    out); ``clip``: two arrays of at least ``values.size`` values L and U (a faster clip
    than by scalars); ``shifted`` False: near 0, rint(x 2^-k) without the offset c0 (the
    caller subtracts n c0 from the sum).

    Examples
    --------
    >>> to_grid(np.array([0.0, 0.3, 7.0]), 0.0, 1.0).tolist()
    [0.0, 314573.0, 1048576.0]
    """
    k, _, c0, near = _layout(lower, upper)
    size = values.size
    if not inside:
        if clip is None:
            out = np.maximum(values, lower, out=out)
            np.minimum(out, upper, out=out)
        else:
            out = np.maximum(values, clip[0][:size], out=out)
            np.minimum(out, clip[1][:size], out=out)
        values = out
    if near:
        out = _scale(values, k, out)
        np.rint(out, out=out)
        if shifted and c0:
            np.subtract(out, float(c0), out=out)  # exact: integers below 2^37
        return out
    out = np.subtract(values, lower, out=out)
    _scale(out, k, out)
    return np.rint(out, out=out)


def product_sum(a, b):
    """sum a_i b_i exactly (a Python int) for integer-valued floats with |a_i b_i| <= 2^42:
    rows of 2^11 products, each row's partial sums below 2^53 (exact in any order)."""
    n = a.size
    full = n - n % PRODUCT_ROW
    total = 0
    if full:
        rows = np.einsum("ij,ij->i", a[:full].reshape(-1, PRODUCT_ROW),
                         b[:full].reshape(-1, PRODUCT_ROW))
        for start in range(0, rows.size, 1 << 9):  # <= 2^53 each: int64 sums of 2^9 rows
            total += int(rows[start:start + (1 << 9)].astype(np.int64).sum())
    if full < n:
        total += int(np.dot(a[full:], b[full:]))
    return total


def _bits(value):
    """The IEEE bits of a double as a Python int."""
    return int(np.array(value).view(np.int64))


@functools.lru_cache(maxsize=256)
def _fast_sum(lower, upper):
    """Whether :meth:`GridSums._add_sum` applies: bounds near 0 and M = 1.5 2^(52 + k) a
    normal double."""
    k, _, _, near = _layout(lower, upper)
    return near and -1074 <= k <= 970


def _sum(q):
    return int(np.add.reduce(q))  # <= 2^16 values below 2^36: partial sums below 2^52


@functools.lru_cache(maxsize=8)
def _clip_arrays(lower, upper, size):
    """Read-only arrays of ``size`` values L and U (clipping by arrays is about twice as fast
    as by scalars), kept across calls: fresh arrays of a block cost page faults each call."""
    arrays = np.full(size, lower), np.full(size, upper)
    for array in arrays:
        array.flags.writeable = False
    return arrays


class GridSums:
    """Accumulate n, S1 = sum q and (``squares``) S2 = sum q^2 of the records on the grid of
    [lower, upper], one block (at most :data:`BLOCK` values) at a time (the data scan's
    blocks, ``_check_data.data_range``)."""

    __slots__ = ("lower", "upper", "squares", "n", "s1", "s2", "_buffer", "_clip")

    def __init__(self, lower, upper, squares=False):
        self.lower, self.upper, self.squares = float(lower), float(upper), squares
        self.n = self.s1 = self.s2 = 0
        self._buffer = self._clip = None

    def add(self, block, inside=False):
        size = block.size
        if self._buffer is None or self._buffer.size < size:
            self._buffer = np.empty(size)
            self._clip = None
        if not inside and self._clip is None:
            self._clip = _clip_arrays(self.lower, self.upper, max(self._buffer.size, BLOCK))
        if not self.squares and _fast_sum(self.lower, self.upper):
            return self._add_sum(block, inside)
        q = to_grid(block, self.lower, self.upper, self._buffer[:size], inside, self._clip,
                    shifted=self.squares)
        self.n += size
        if self.squares:
            self.s1 += _sum(q)
            self.s2 += product_sum(q, q)
        else:  # near 0: the sum of rint(x 2^-k), each below 2^36, less n c0
            self.s1 += _sum(q) - size * _layout(self.lower, self.upper)[2]

    def _add_sum(self, block, inside):
        """S1 alone near 0 (meanDP), one addition per value: t = x + M, M = 1.5 2^(52 + k),
        is M + g rint(x / g) exactly (|x| < 2^51 g: t stays in M's binade, whose step is g,
        and the float sum rounds half to even, as rint), so the bits of t less those of M
        are rint(x / g): summed as int64 modulo 2^64 (exact, the true sum below 2^52)."""
        size = block.size
        if not inside:
            out = np.maximum(block, self._clip[0][:size], out=self._buffer[:size])
            np.minimum(out, self._clip[1][:size], out=out)
            block = out
        k, _, c0, _ = _layout(self.lower, self.upper)
        magic = math.ldexp(1.5, 52 + k)
        t = np.add(block, magic, out=self._buffer[:size])
        wrapped = int(np.add.reduce(t.view(np.int64))) - size * _bits(magic)
        wrapped %= 1 << 64
        self.s1 += (wrapped - (1 << 64) if wrapped >= 1 << 63 else wrapped) - size * c0
        self.n += size

    def add_all(self, flat):
        """Every block of the flat array ``flat``."""
        for start in range(0, flat.size, BLOCK):
            self.add(flat[start:start + BLOCK])
        return self


def sums_of(values, lower, upper, squares=False):
    """(n, S1, S2) of ``values`` (any shape) on the grid of [lower, upper] (S2 0 unless
    ``squares``).

    Examples
    --------
    >>> sums_of(np.array([0.0, 0.5, 1.0]), 0.0, 1.0, squares=True)
    (3, 1572864, 1374389534720)
    """
    sums = GridSums(lower, upper, squares).add_all(np.ravel(values))
    return sums.n, sums.s1, sums.s2


def pair_sums(x1, x2, bounds):
    """(n, S1, T1, S11, S22, S12) of two variables on their grids (``bounds`` (L1, U1, L2,
    U2)): the sums of q1, q2, q1^2, q2^2 and q1 q2, exact Python integers."""
    q1 = to_grid(np.ravel(x1), bounds[0], bounds[1], np.empty(np.size(x1)))
    q2 = to_grid(np.ravel(x2), bounds[2], bounds[3], np.empty(np.size(x2)))
    s1 = t1 = 0
    for start in range(0, q1.size, BLOCK):
        s1 += _sum(q1[start:start + BLOCK])
        t1 += _sum(q2[start:start + BLOCK])
    return (q1.size, s1, t1, product_sum(q1, q1), product_sum(q2, q2), product_sum(q1, q2))


# --------------------------------------------------------------------------------------------
# Exact rationals: (num, den, e) = num 2^e / den, den > 0
# --------------------------------------------------------------------------------------------


def float_ratio(value):
    """A float as (num, 1, e), exactly."""
    mantissa, exponent = math.frexp(value)
    return int(math.ldexp(mantissa, 53)), 1, exponent - 53


def mean_value(origin, k, total, n):
    """origin + 2^k total / n exactly, as (num, den, e), for the exact origin (num, 1, e)
    of :func:`grid_origin`.

    Examples
    --------
    >>> to_fraction(mean_value(float_ratio(0.5), -2, 3, 2))
    Fraction(7, 8)
    """
    a, _, b = origin
    if b >= k:
        return (a << (b - k)) * n + total, n, k
    return a * n + (total << (k - b)), n, b


def to_fraction(value):
    """(num, den, e) as a ``fractions.Fraction`` (tests, slow paths)."""
    num, den, e = value
    return Fraction(num << e, den) if e >= 0 else Fraction(num, den << -e)


def round_to_grid(value, j):
    """round(v / 2^j), half to even, of the exact v = (num, den, e): a Python int.

    Examples
    --------
    >>> round_to_grid((5, 2, 0), 0), round_to_grid((7, 2, 0), 0), round_to_grid((-5, 1, -1), 0)
    (2, 4, -2)
    """
    num, den, e = value
    shift = e - j
    if shift >= 0:
        num <<= shift
    else:
        den <<= -shift
    quotient, rest = divmod(num, den)  # floor; 0 <= rest < den
    twice = 2 * rest
    if twice > den or (twice == den and quotient & 1):
        quotient += 1
    return quotient


def grid_float(integer, j):
    """The float nearest to integer 2^j (exact when |integer| < 2^53 and the result is
    normal): a function of the integer alone; +-inf beyond the largest double."""
    try:
        if -(1 << 53) < integer < (1 << 53):
            return math.ldexp(float(integer), j)
        return float(to_fraction((integer, 1, j)))
    except OverflowError:
        return math.copysign(math.inf, integer)


def float_up(value):
    """The smallest float >= the exact (num, den, e) (a sensitivity handed on as a float).

    Examples
    --------
    >>> float_up((1, 3, 0)) > 1 / 3
    True
    """
    exact = to_fraction(value)
    try:
        out = float(exact)
    except OverflowError:
        return math.inf
    if Fraction(out) < exact:
        out = math.nextafter(out, math.inf)
    return out


def grid_width(lower, upper):
    """(Q g as (Q, 1, k), its float rounded up): the width of the rounded records' range."""
    k, top = data_grid(lower, upper)
    return (top, 1, k), float_up((top, 1, k))


def add_grid_noise(values, noise, j):
    """The floats of round(v / 2^j) + Z for exact ``values`` and the integer noise Z in grid
    units (floats, as the samplers of ``_random`` release it on zeros on the grid 1: exact
    below 2^53): each a function of the integer round(v / 2^j) + Z alone
    (post-processing)."""
    return [grid_float(round_to_grid(value, j) + round(z), j)
            for value, z in zip(values, np.ravel(noise).tolist())]
