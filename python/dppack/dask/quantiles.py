"""Quantiles on Dask: the counts behind quantileDP and medianDP, from one pass.

``quantileDP`` and ``medianDP`` route Dask data here (:func:`dppack.stats.quantileDP`, Notes).
There is no global sort. The exponential mechanism of the in-memory quantile needs, for every
grid point t of its candidates, only c(t), the number of rounded records <= t. Here every
record is rounded to a coarser public grid of cells, h = 2^(j + s) (j the in-memory grid,
s from the bounds and :data:`GRID_BITS` alone, never from the data), and one pass counts the
records per cell. On the driver, cumulative sums of the cell counts give c(t) for every t:
it is constant between two occupied cells (each maximal run of grid points with the same c
is one non-empty interval of the in-memory algorithm, :meth:`Cells.runs`).

The driver then runs the in-memory algorithm itself (its window of intervals around
quant n and the two unions beyond, ``stats._quantile_candidates``) on these records
(:class:`CountedRecords`: the records of the window's ranks are listed from the counts).
So the release on Dask is the in-memory ``quantileDP`` on the data rounded to the cells
(each record moved by at most h / 2; h <= (upper - lower) / 2^19, or h = 2^j): for the same
``random_state`` the same value, and on data that already lie on the cells (integers,
whenever h <= 1) the in-memory release itself. Only where the in-memory window would list
more than :data:`EXPAND_LIMIT` records (ties over a huge n, or a tiny eps) does the driver
draw from the runs instead, with the same law but other draws.

Sensitivity of the utility -|c(t) - quant n| (Smith 2011): the
rounding is record by record, so changing one record changes every c(t) by at most 1
(bounded); adding or removing one changes c(t) by at most 1 and quant n by quant, in the
same direction, so |c(t) - quant n| by at most max(quant, 1 - quant) (unbounded). The
exponential mechanism (McSherry and Talwar 2007) with sensitivity 1 (bounded) or
max(quant, 1 - quant) (unbounded; ``stats.quantile_sensitivity``, chosen by the caller as
in memory) is eps-DP.

Nothing here is public: users call ``quantileDP``/``medianDP``.
"""

import math

import dask
import numpy as np

from .. import _backends, _checks
from . import frames
from .moments import blocks, check_sample

__all__ = []

#: The cells: the finest power-of-two multiple of the in-memory grid with at most
#: 2^GRID_BITS cells between the bounds (8 MiB of counts per block).
GRID_BITS = 20

#: Blocks merged per node of the tree that adds the counts.
_FAN_IN = 8

#: The most records :meth:`CountedRecords.ranked` lists (32 MiB); a wider window of the
#: in-memory algorithm makes the driver draw from the runs (:meth:`Cells.runs`) instead.
EXPAND_LIMIT = 2 ** 22


# The in-memory window needs more than EXPAND_LIMIT records (raised before any draw); the
# backend layer's exception, so that the release catches it without importing Dask.
WindowTooWide = _backends.WindowTooWide


def cell_shift(first, last):
    """s, the cells' width 2^s in grid points: the smallest s >= 0 with last - first below
    2^(s + GRID_BITS), so that at most 2^GRID_BITS cells lie between the bounds ``first``
    and ``last`` (in grid points, from ``stats._quantile_grid``; public)."""
    return max(0, (last - first).bit_length() - GRID_BITS)


class Cells:
    """The cells between the bounds X_0 = ``first`` and X_{n+1} = ``last`` (grid points of
    2^j), each 2^``shift`` grid points wide.

    Cell 0 holds the records rounded to X_0 or below (clipped to X_0), cell ``inner`` + 1
    those rounded to X_{n+1} or above (clipped to X_{n+1}); cell b in between the records
    rounded to the multiple (``low`` + b - 1) 2^shift of the cells' width, strictly between
    the bounds. A record's cell is clip(round(x / h) - low + 1, 0, inner + 1), h =
    2^(j + shift): it rounds to the nearest multiple of h and clips to the bounds as the
    in-memory quantile rounds to the nearest multiple of 2^j and clips.
    """

    def __init__(self, j, first, last, shift):
        self.j, self.first, self.last, self.shift = j, first, last, shift
        self.low = (first >> shift) + 1  # the first multiple of 2^shift above X_0
        high = -((-last) >> shift) - 1  # the last one below X_{n+1}
        self.inner = max(high - self.low + 1, 0)

    def count(self, block):
        """(counts per cell, number of values, whether all are finite) of one block."""
        values = frames.block_floats(block)
        if values.size:
            low, high = np.minimum.reduce(values), np.maximum.reduce(values)
            if not (np.isfinite(low) and np.isfinite(high)):  # NaN makes both NaN
                return np.zeros(self.inner + 2, dtype=np.int64), values.size, False
        with np.errstate(over="ignore", under="ignore"):  # +-inf is clipped
            cells = self._scaled(values)
        np.rint(cells, out=cells)
        # Clipped to the multiples low - 1 and low + inner (= ceil(X_{n+1} / 2^shift)), both
        # doubles (an integer ceil or floor of a double), then shifted exactly, as integers.
        np.clip(cells, float(self.low - 1), float(self.low + self.inner), out=cells)
        index = cells.astype(np.int64)
        index -= self.low - 1
        counts = np.bincount(index, minlength=self.inner + 2)
        return counts.astype(np.int64, copy=False), values.size, True

    def _scaled(self, values):
        """values / h, a new array: times the double 2^-(j + shift) (faster than ldexp),
        which rounds to the same cells: the product is exact unless it overflows (then
        +-inf, clipped like any value beyond the bounds) or is subnormal (below 2^-1022: it
        rounds to 0 either way); ldexp where 2^-(j + shift) is not a double."""
        exponent = -(self.j + self.shift)
        if -1022 <= exponent <= 1023:
            return values * math.ldexp(1.0, exponent)
        return np.ldexp(values, exponent)

    def points(self, cells):
        """The grid points (int64) of the cells ``cells`` (an int array)."""
        points = (cells.astype(np.int64) + (self.low - 1)) << self.shift
        points[cells == 0] = self.first
        points[cells == self.inner + 1] = self.last
        return points

    def runs(self, occupied, counts):
        """(ranks, widths, starts) of the maximal runs of grid points of [X_0, X_{n+1}) with
        the same c(t), the number of records in cells at or below t; empty runs left out.
        ``occupied``: the cells that hold records, in increasing order; ``counts``: how many
        each holds."""
        edges = np.concatenate([[self.first], self.points(occupied), [self.last]])
        ranks = np.concatenate([[0], np.cumsum(counts)])
        widths = np.diff(edges)
        keep = widths > 0
        return ranks[keep], widths[keep], edges[:-1][keep]


class CountedRecords:
    """The rounded records, known by their counts per occupied cell, as
    ``stats._quantile_candidates`` takes records (``stats._SortedRecords`` in memory): their
    number ``size``, the records of given ranks (:meth:`ranked`) and how many lie at or below
    a grid point (:meth:`at_most`). So the Dask release runs the in-memory code on the same
    window of candidates, with the same draws.

    Parameters
    ----------
    points : numpy.ndarray of int64
        The grid points of the occupied cells (:meth:`Cells.points`), increasing.
    counts : numpy.ndarray of int64
        The records in each.
    """

    def __init__(self, points, counts):
        self.points, self.counts = points, counts
        self._cumulative = np.cumsum(counts)
        self.size = int(self._cumulative[-1]) if counts.size else 0

    def ranked(self, low, high):
        """The records of ranks low, ..., high (0-based), in increasing order (int64 grid
        points); :class:`WindowTooWide` beyond EXPAND_LIMIT records."""
        if high < low:
            return np.empty(0, dtype=np.int64)
        if high - low + 1 > EXPAND_LIMIT:
            raise WindowTooWide
        first = int(np.searchsorted(self._cumulative, low, side="right"))
        last = int(np.searchsorted(self._cumulative, high, side="right"))
        repeats = self.counts[first:last + 1].copy()
        repeats[0] -= low - (self._cumulative[first] - self.counts[first])  # ranks < low
        repeats[-1] -= self._cumulative[last] - 1 - high  # ranks > high
        return np.repeat(self.points[first:last + 1], repeats)

    def at_most(self, point):
        """The number of records <= ``point`` (grid units)."""
        cell = int(np.searchsorted(self.points, point, side="right"))
        return int(self._cumulative[cell - 1]) if cell else 0


def _merge(*parts):
    """The counts of several blocks added; sizes added; finite if all are."""
    counts = parts[0][0].copy()
    for part in parts[1:]:
        counts += part[0]
    return counts, sum(part[1] for part in parts), all(part[2] for part in parts)


def _occupied(part):
    """The merged counts as (occupied cells, their counts), size, finite: what the driver
    receives (a few numbers per occupied cell, not the 2^GRID_BITS counts)."""
    counts, size, finite = part
    occupied = np.flatnonzero(counts)
    return (occupied, counts[occupied]), size, finite


def cell_counts(x, cells, name, min_size):
    """The one pass: the counts per cell of ``cells`` (a :class:`Cells`), with the size and
    finiteness checks of the in-memory quantile (raised on the driver, before any noise).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The occupied cells (increasing) and their counts (int64; they add up to n).
    """
    parts = [dask.delayed(cells.count)(block) for block in blocks(x)]
    if not parts:
        parts = [dask.delayed(cells.count)(np.empty(0))]
    while len(parts) > 1:
        parts = [dask.delayed(_merge)(*parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    (counts, size, finite), = dask.compute(dask.delayed(_occupied)(parts[0]))
    _checks.check_data_size(size, name, min_size)
    _checks.check_data_finite(finite, name)
    return counts


# --------------------------------------------------------------------------------------------
# On a public resolution (quantileDP's ``resolution``)
# --------------------------------------------------------------------------------------------


def _lattice_block(lattice, block):
    """(distinct positions, counts), number of values, finite: one block's positions among
    the candidates of ``lattice`` (``stats.Lattice.positions``)."""
    values = frames.block_floats(block)
    if values.size and not np.isfinite(values).all():
        return (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)), values.size, False
    return np.unique(lattice.positions(values), return_counts=True), values.size, True


def _lattice_merge(*parts):
    """The positions and counts of several blocks merged (positions increasing)."""
    positions = np.concatenate([part[0][0] for part in parts])
    counts = np.concatenate([part[0][1] for part in parts])
    merged, inverse = np.unique(positions, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=counts, minlength=merged.size)
    return ((merged, total.astype(np.int64)), sum(part[1] for part in parts),
            all(part[2] for part in parts))


def lattice_counts(x, lattice, name, min_size):
    """The one pass of quantileDP with a ``resolution``: the distinct positions of the data
    among the public candidates and their counts (``stats.lattice_counts`` in memory: the
    same arrays, so the same draws), with the size and finiteness checks of the in-memory
    quantile (raised on the driver, before any noise). The driver receives one pair per
    distinct position: at most 2 N + 3 for N + 1 candidates (few for integer data on
    resolution 1), at most n."""
    parts = [dask.delayed(_lattice_block)(lattice, block) for block in blocks(x)]
    if not parts:
        parts = [dask.delayed(_lattice_block)(lattice, np.empty(0))]
    while len(parts) > 1:
        parts = [dask.delayed(_lattice_merge)(*parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    (counts, size, finite), = dask.compute(parts[0])
    _checks.check_data_size(size, name, min_size)
    _checks.check_data_finite(finite, name)
    return counts
