"""Quantiles on Dask: the counts behind quantileDP and medianDP, from one pass, without a sort.

Each record is rounded to a public grid of cells h = 2^(j + s) (s from the bounds and
:data:`GRID_BITS` alone) and one pass counts the records per cell; the driver then runs the
in-memory algorithm on these counted records (:class:`CountedRecords`), so the release is
the in-memory ``quantileDP`` on the data rounded to the cells (the same value for the same
``random_state``). Utility sensitivity as in memory: 1 (bounded) or max(quant, 1 - quant)
(unbounded) (Smith 2011; McSherry and Talwar 2007). Derivation: :doc:`/guide/internals`.
"""

import math

import dask
import numpy as np

from .. import _backends, _checks
from . import _frames as frames
from ._moments import blocks, check_sample

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
    """s, the cells' width 2^s in grid points: at most 2^GRID_BITS cells between the bounds."""
    return max(0, (last - first).bit_length() - GRID_BITS)


class Cells:
    """The cells of 2^``shift`` grid points between the bounds ``first`` and ``last``: a record's
    cell is clip(round(x / h) - low + 1, 0, inner + 1), cells 0 and inner + 1 holding the
    records clipped to the bounds, as the in-memory quantile rounds and clips.
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
        """values / h, a new array (times 2^-(j + shift), exact; ldexp where that is no double)."""
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
        """(ranks, widths, starts) of the maximal runs of grid points with the same count of
        records at or below them (empty runs left out), from the ``occupied`` cells' ``counts``.
        """
        edges = np.concatenate([[self.first], self.points(occupied), [self.last]])
        ranks = np.concatenate([[0], np.cumsum(counts)])
        widths = np.diff(edges)
        keep = widths > 0
        return ranks[keep], widths[keep], edges[:-1][keep]


class CountedRecords:
    """The rounded records known by their counts per occupied cell, with the interface of
    ``stats._SortedRecords`` (``size``, :meth:`ranked`, :meth:`at_most`).

    Parameters
    ----------
    points : numpy.ndarray of int64
        The grid points of the occupied cells, increasing.
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
    """The one pass: the occupied cells of ``cells`` (increasing) and their counts, with the
    in-memory size and finiteness checks raised on the driver before any noise.
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
    """The one pass of quantileDP with a ``resolution``: the data's distinct positions among the
    public candidates and their counts (as ``stats.lattice_counts`` in memory, so the same
    draws), with the in-memory checks raised on the driver.
    """
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
