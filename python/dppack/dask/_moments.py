"""The statistics on Dask: mergeable sufficient statistics from one pass.

``meanDP``, ``varDP``, ``sdDP``, ``covDP``, ``pooledVarDP``, ``pooledCovDP``,
``histogramDP``, ``tableDP`` and their ``*DataAccess`` functions route Dask data here. Each
call is one ``dask.compute`` of small reductions: per block the count, finiteness, the
releases' exact grid sums (Python integers, ``dppack._exact_sums``: merged exactly, so the
release is bit-identical to the in-memory one), the data-access functions' float sums and
co-moments (merged by Chan, Golub and LeVeque 1979), cell or table counts; on the driver
the in-memory formulas give the true value and its sensitivity, and the statistic draws
the noise as in memory. Details: :doc:`/guide/internals`.
"""

import math

import dask
import numpy as np

from .. import _access_cores, _backends, _checks, _exact_sums, data_access, rcompat
from . import _frames as frames
from ..data_access import (
    SAME_LENGTH_MESSAGE,
    SAMPLE_SHAPE_MESSAGES,
    SAMPLE_SIZE_MESSAGES,
    SAMPLES_FINITE_MESSAGE,
    SAMPLES_MESSAGE,
)
from ..rcompat import _factor, _hist, _pretty

__all__ = []

#: Blocks merged per node of the tree that adds the block statistics.
_FAN_IN = 8

SUM, MOMENTS = "sum", "moments"
# The releases' exact grid sums (``dppack._exact_sums``): S1 (and T1) alone, or with the
# sums of squares and products
GRID, GRID_PRODUCTS = "grid", "grid products"

MISALIGNED = (
    "x1 and x2 must be partitioned alike on Dask (e.g. two columns of one Dask DataFrame, or "
    "arrays of known chunks)."
)


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


def known_size(x):
    """The number of values of ``x`` if known without a pass (a Dask array of known chunks),
    else None."""
    if hasattr(x, "chunks") and not any(math.isnan(c) for c in x.shape):
        return int(x.size)
    return None


def blocks(x, columns=None):
    """The blocks of a Dask array, Series or DataFrame as delayed objects (any chunks, known
    or not: no pass). With ``columns``, each block of a 2-d array holds all its columns."""
    if columns is not None and hasattr(x, "chunks") and x.ndim == 2:
        x = x.rechunk({1: -1})
    parts = x.to_delayed()
    return list(np.ravel(parts)) if isinstance(parts, np.ndarray) else list(parts)


def _pair(first, second):
    """Two aligned blocks of x1 and x2 as one (rows, 2) array; if their lengths differ, the
    two lengths (a tuple)."""
    first, second = frames.block_floats(first), frames.block_floats(second)
    if first.size != second.size:
        return first.size, second.size
    return np.column_stack([first, second])


def paired_blocks(x1, x2):
    """The aligned blocks of two 1-d variables, as delayed (rows, 2) arrays (or the two
    lengths where they differ, refused on the driver). Arrays of known chunks are rechunked
    alike (unequal sizes refused here, without a pass); otherwise the two must have the same
    number of blocks (two columns of one Dask DataFrame)."""
    sizes = known_size(x1), known_size(x2)
    if None not in sizes:
        if sizes[0] != sizes[1]:
            raise ValueError(SAME_LENGTH_MESSAGE)
        x2 = x2.rechunk(x1.chunks)
    first, second = blocks(x1), blocks(x2)
    if len(first) != len(second):
        raise ValueError(MISALIGNED)
    return [dask.delayed(_pair)(a, b) for a, b in zip(first, second)]


def _tree(parts, merge):
    """Merge delayed parts pairwise-ish (``_FAN_IN`` at a time) into one delayed result."""
    while len(parts) > 1:
        parts = [dask.delayed(merge)(*parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def compute(*roots):
    """The one pass: a single ``dask.compute`` of the small reductions ``roots``."""
    return dask.compute(*roots)


# --------------------------------------------------------------------------------------------
# Moments of one variable (or two, for a covariance)
# --------------------------------------------------------------------------------------------


def _empty_moments(columns):
    return {
        "n": 0, "finite": np.ones(columns, dtype=bool), "lengths": np.zeros(2, dtype=np.int64),
        "same_length": True, "sum": np.zeros(columns), "mean": np.zeros(columns),
        "comoment": np.zeros((columns, columns)),
        "centred": np.zeros(columns),
        "grid": (0, 0, 0, 0, 0, 0),
    }


def _block_moments(block, lower, upper, needs, columns, bound_lower, bound_upper):
    """The statistics of one block (see the module docstring): values of shape (rows,
    ``columns``) clipped to [lower, upper] (arrays of one bound per column), centred at the
    midpoints of [bound_lower, bound_upper]."""
    out = _empty_moments(columns)
    if isinstance(block, tuple):  # x1 and x2 of different lengths here
        out["same_length"], out["lengths"] = False, np.array(block, dtype=np.int64)
        return out
    values = frames.block_floats(block, columns)
    if columns == 1:
        values = values.reshape(-1, 1)
    rows = values.shape[0]
    out["n"], out["lengths"] = rows, np.array([rows, rows], dtype=np.int64)
    if not rows:
        return out
    low, high = np.min(values, axis=0), np.max(values, axis=0)
    out["finite"] = np.isfinite(low) & np.isfinite(high)
    if not np.all(out["finite"]):
        return out  # refused on the driver
    if GRID in needs:  # the in-memory map of the records (not clipped first: it clips q)
        if columns == 1:
            n, s1, s2 = _exact_sums.sums_of(values[:, 0], bound_lower[0], bound_upper[0],
                                            squares=GRID_PRODUCTS in needs)
            out["grid"] = (n, s1, 0, s2, 0, 0)
        else:
            out["grid"] = _exact_sums.pair_sums(values[:, 0], values[:, 1],
                                                (bound_lower[0], bound_upper[0],
                                                 bound_lower[1], bound_upper[1]))
    if np.any(low < lower) or np.any(high > upper):
        values = np.clip(values, lower, upper)
    if SUM in needs:
        out["sum"] = np.add.reduce(values, axis=0)
    if MOMENTS in needs:
        centres = np.array([data_access.midpoint(lo, up)[0]
                            for lo, up in zip(bound_lower, bound_upper)])
        centred = values - centres
        out["centred"] = np.add.reduce(centred, axis=0)
        # About the public midpoint: the means merged are small, so is their rounding.
        out["mean"] = out["centred"] / rows
        deviations = centred - out["mean"]
        out["comoment"] = deviations.T @ deviations
    return out


def _merge_moments(*parts):
    """Merge block statistics: counts and sums add, the means and co-moments by the pairwise
    update of Chan, Golub and LeVeque (1979)."""
    merged = dict(parts[0])
    for part in parts[1:]:
        n_a, n_b = merged["n"], part["n"]
        n = n_a + n_b
        if n_b and n_a:
            delta = part["mean"] - merged["mean"]
            merged["mean"] = merged["mean"] + delta * (n_b / n)
            merged["comoment"] = (merged["comoment"] + part["comoment"]
                                  + np.outer(delta, delta) * (n_a * n_b / n))
        elif n_b:
            merged["mean"], merged["comoment"] = part["mean"], part["comoment"]
        merged["n"] = n
        merged["finite"] = merged["finite"] & part["finite"]
        merged["same_length"] = merged["same_length"] and part["same_length"]
        merged["lengths"] = merged["lengths"] + part["lengths"]
        for key in ("sum", "centred"):
            merged[key] = merged[key] + part[key]
        merged["grid"] = tuple(a + b for a, b in zip(merged["grid"], part["grid"]))  # ints
    return merged


class Moments:
    """One variable (``columns`` 1) or two (2), reduced in one pass to the statistics ``needs``
    (:data:`SUM`, :data:`MOMENTS` of its values, not clipped, for the data-access functions;
    :data:`GRID`, :data:`GRID_PRODUCTS` for the releases); :meth:`delayed` is the reduction,
    :meth:`result` the merged statistics.
    """

    def __init__(self, parts, lower, upper, needs, columns=1, clip=True):
        self.parts = parts
        self.lower = np.atleast_1d(np.asarray(lower, dtype=np.float64))
        self.upper = np.atleast_1d(np.asarray(upper, dtype=np.float64))
        self.needs, self.columns = frozenset(needs), columns
        # The data-access functions do not clip (DPpack's): then no bound is reached.
        self.clip_to = ((self.lower, self.upper) if clip
                        else (np.full(columns, -np.inf), np.full(columns, np.inf)))
        self._result = None

    @classmethod
    def of(cls, x, lower, upper, needs, columns=1, clip=True):
        """The statistics of the Dask collection ``x`` (see the class)."""
        return cls(blocks(x, columns if columns > 1 else None), lower, upper, needs, columns,
                   clip=clip)

    def delayed(self):
        parts = [dask.delayed(_block_moments)(block, *self.clip_to, self.needs, self.columns,
                                              self.lower, self.upper)
                 for block in self.parts]
        if not parts:
            return dask.delayed(_empty_moments)(self.columns)
        return _tree(parts, _merge_moments)

    def result(self):
        if self._result is None:
            (self._result,) = compute(self.delayed())
        return self._result

    def check(self, names, min_size, size_message=None, finite_message=None):
        """The in-memory size and finiteness checks, from the pass, in the in-memory order
        (each variable's size, then its finiteness; x1 before x2). ``names`` one per
        column."""
        result = self.result()
        if not result["same_length"]:
            if result["lengths"][0] == result["lengths"][1]:
                raise ValueError(MISALIGNED)
            raise ValueError(SAME_LENGTH_MESSAGE)
        for column, name in enumerate(names):
            _checks.check_data_size(result["n"], name, min_size, size_message)
            if finite_message is not None:
                if not result["finite"][column]:
                    raise ValueError(finite_message)
            else:
                _checks.check_data_finite(result["finite"][column], name)
        return result

    # The accesses: the in-memory formulas of data_access on the reduced statistics.

    def mean_access(self):
        result = self.result()
        return data_access.mean_from_sums(float(result["sum"][0]), result["n"],
                                          float(self.lower[0]), float(self.upper[0]))

    def var_access(self):
        result = self.result()
        return data_access.var_from_squares(float(result["comoment"][0, 0]), result["n"],
                                            float(self.lower[0]), float(self.upper[0]))

    def cov_access(self):
        result = self.result()
        return data_access.cov_from_products(float(result["comoment"][0, 1]), result["n"],
                                             *self._bounds())

    # The releases' exact accesses (``_access_cores``), from the grid sums.

    def mean_exact(self):
        n, s1 = self.result()["grid"][:2]
        return _access_cores.mean_exact(n, s1, float(self.lower[0]), float(self.upper[0]))

    def var_exact(self):
        n, s1, _, s2 = self.result()["grid"][:4]
        return _access_cores.var_exact(n, s1, s2, float(self.lower[0]), float(self.upper[0]))

    def centred_exact(self, squares=True):
        n, s1, _, s2 = self.result()["grid"][:4]
        return _access_cores.centred_exact(n, s1, s2, float(self.lower[0]),
                                           float(self.upper[0]), squares)

    def cov_exact(self):
        n, s1, t1, _, _, s12 = self.result()["grid"]
        return _access_cores.cov_exact(n, s1, t1, s12, self._bounds())

    def centred_cross_exact(self):
        n, s1, t1, _, _, s12 = self.result()["grid"]
        return _access_cores.centred_cross_exact(n, s1, t1, s12, self._bounds())

    def grid(self):
        """The grid sums as ``_memory.MemoryPooled`` keeps them: (n, S1, S2) for one
        column, (n, S1, T1, S11, S22, S12) for two."""
        g = self.result()["grid"]
        return (g[0], g[1], g[3]) if self.columns == 1 else g

    def _bounds(self):
        return (float(self.lower[0]), float(self.upper[0]), float(self.lower[1]),
                float(self.upper[1]))


class Sample(Moments):
    """The data of meanDP (``variance`` False) or varDP/sdDP (True) on Dask, with the
    statistics the requested versions need (``which_sensitivity``). The checks that need no
    pass are made here, at the in-memory position; the pass runs when the release first asks
    for a statistic, and the size and finiteness checks right after it (before any draw)."""

    def __init__(self, x, name, lower, upper, which_sensitivity, min_size, variance=False,
                 clip=True):
        check_sample(x, name, min_size)
        needs = _grid_needs(variance) if clip else _needs(which_sensitivity, variance)
        super().__init__(blocks(x), lower, upper, needs, clip=clip)
        self.name, self.min_size = name, min_size

    def result(self):
        if self._result is None:
            super().result()
            self.check([self.name], self.min_size)
        return self._result

    def size(self):
        return self.result()["n"]


def _grid_needs(products):
    """The releases' statistics: the exact grid sums (with ``products``, of squares and
    products too)."""
    return {GRID, GRID_PRODUCTS} if products else {GRID}


def _needs(which_sensitivity, variance):
    """The statistics of the data-access functions (not private, DPpack's float formulas;
    ``which_sensitivity`` 'bounded'): the sum, or the moments for a variance or covariance."""
    return {MOMENTS if variance else SUM}


class Pair(Moments):
    """x1 and x2 of covDP/covDataAccess on Dask (one of them may be in memory): the checks
    that need no pass at the in-memory position (numeric, equal length and size when the
    chunks are known), the pass on first use, then the size and finiteness checks of x1 and
    of x2."""

    def __init__(self, x1, x2, bounds, which_sensitivity, min_size, clip=True):
        x1, x2 = (_dask_vector(x, name) for x, name in ((x1, "x1"), (x2, "x2")))
        parts = paired_blocks(x1, x2)
        for x, name in ((x1, "x1"), (x2, "x2")):
            check_sample(x, name, min_size)
        lower1, upper1, lower2, upper2 = bounds
        super().__init__(parts, [lower1, lower2], [upper1, upper2],
                         _grid_needs(True) if clip else _needs(which_sensitivity, True),
                         columns=2, clip=clip)
        self.min_size = min_size

    def result(self):
        if self._result is None:
            super().result()
            self.check(["x1", "x2"], self.min_size)
        return self._result


def _dask_vector(x, name):
    """A variable of covDP as a Dask collection: an in-memory one (beside a Dask one) wrapped
    after the in-memory numeric check; a Dask one refused if not numeric."""
    if not _backends.is_dask(x):
        return as_dask(x, f"{name} must be numeric.").reshape(-1)
    if not frames.dask_numeric(x):
        raise ValueError(f"{name} must be numeric.")
    return x.reshape(-1) if hasattr(x, "chunks") else x


class Pooled:
    """The samples of pooledVarDP (``columns`` None) or pooledCovDP (2) on Dask (some may be in
    memory): the shape checks at the in-memory position, then one pass for all the samples
    on first use, then the size and finiteness checks of each sample, in order. ``bounds``
    (L, U) or (L1, U1, L2, U2)."""

    def __init__(self, samples, bounds, which_sensitivity, min_size, columns=None, clip=True):
        self.samples = [
            Moments.of(sample, bounds[0::2], bounds[1::2],
                       _grid_needs(True) if clip else _needs(which_sensitivity, True),
                       columns or 1, clip=clip)
            for sample in check_samples(samples, columns, min_size)
        ]
        self.bounds, self.columns, self.min_size = bounds, columns, min_size
        self._done = False

    def _results(self):
        if not self._done:
            results = compute(*[s.delayed() for s in self.samples])
            for statistic, result in zip(self.samples, results):
                statistic._result = result
            for statistic in self.samples:
                statistic.check(["sample"] * statistic.columns, self.min_size,
                                size_message=_sample_size_message(self.columns),
                                finite_message=SAMPLES_FINITE_MESSAGE)
            self._done = True
        return [s.result() for s in self.samples]

    def sizes(self):
        return [result["n"] for result in self._results()]

    def pooled_var_access(self, approx_n_max):
        squares = sum(float(result["comoment"][0, 0]) for result in self._results())
        return data_access.pooled_var_from_squares(self.sizes(), squares, *self.bounds,
                                                   approx_n_max)

    def pooled_cov_access(self, approx_n_max):
        products = sum(float(result["comoment"][0, 1]) for result in self._results())
        return data_access.pooled_cov_from_products(self.sizes(), products, *self.bounds,
                                                    approx_n_max)

    def pooled_exact(self, approx_n_max):
        self._results()
        return _access_cores.pooled_grid_exact([s.grid() for s in self.samples], self.bounds,
                                               approx_n_max)

    def centred_rows(self):
        self._results()
        return _access_cores.pooled_centred_rows([s.grid() for s in self.samples],
                                                 self.bounds)


# --------------------------------------------------------------------------------------------
# Checks without a pass
# --------------------------------------------------------------------------------------------


def check_sample(x, name, min_size):
    """The in-memory data checks that need no pass, at their in-memory position: numeric
    dtypes ("<name> must be numeric."), then the size if the chunks are known."""
    if not frames.dask_numeric(x):
        raise ValueError(f"{name} must be numeric.")
    size = known_size(x)
    if size is not None:
        _checks.check_data_size(size, name, min_size)
    return x


def as_dask(value, message):
    """An in-memory value beside Dask data (a sample of a pooled statistic) as a one-chunk Dask
    array, after the in-memory numeric check (``message``)."""
    import dask.array as da

    return da.from_array(_checks.as_numeric_array(value, message))


def check_samples(samples, columns=None, min_size=2):
    """The Dask counterpart of :func:`dppack.data_access.check_samples`: the shape checks of
    every sample (no pass), in its order and with its messages. Returns the samples as Dask
    collections (in-memory ones wrapped)."""
    samples = list(samples)
    if not samples:
        raise ValueError(SAMPLES_MESSAGE)
    shape_message = SAMPLE_SHAPE_MESSAGES[columns is not None]
    checked = []
    for sample in samples:
        if not _backends.is_dask(sample):
            sample = as_dask(sample, shape_message)
        if not frames.dask_numeric(sample):
            raise ValueError(shape_message)
        ndim = len(np.shape(sample))
        if columns is None and ndim > 1:
            raise ValueError(shape_message)
        if columns is not None and (ndim != 2 or _width(sample) != columns):
            raise ValueError(shape_message)
        size = known_size(sample)
        if size is not None:
            rows = size if columns is None else size // columns
            if rows < min_size:
                raise ValueError(_sample_size_message(columns))
        checked.append(sample)
    return checked


def _width(sample):
    shape = np.shape(sample)
    return shape[1] if len(shape) > 1 and isinstance(shape[1], int) else len(sample.columns)


def _sample_size_message(columns):
    return SAMPLE_SIZE_MESSAGES[columns is not None]


# --------------------------------------------------------------------------------------------
# Histogram
# --------------------------------------------------------------------------------------------


def _block_histogram(block, lower, upper, cells):
    """(n, finite, low, high, counts per breaks of ``cells``) of one block clipped to [lower,
    upper] (low and high its clipped range); ``cells`` is a tuple of (breaks, diddle)."""
    values = frames.block_floats(block)
    counts = [np.zeros(breaks.size - 1, dtype=np.int64) for breaks, _ in cells]
    if not values.size:
        return 0, True, math.inf, -math.inf, counts
    low, high = float(np.minimum.reduce(values)), float(np.maximum.reduce(values))
    if not (np.isfinite(low) and np.isfinite(high)):
        return values.size, False, low, high, counts
    if low < lower or high > upper:
        values = np.clip(values, lower, upper)
        low, high = max(low, lower), min(high, upper)
    counts = [_hist.cell_counts(values, breaks, diddle, low, high) for breaks, diddle in cells]
    return values.size, True, low, high, counts


def _merge_histograms(*parts):
    size, finite, low, high, counts = parts[0]
    counts = [c.copy() for c in counts]
    for part in parts[1:]:
        size += part[0]
        finite = finite and part[1]
        low, high = min(low, part[2]), max(high, part[3])
        for total, more in zip(counts, part[4]):
            total += more
    return size, finite, low, high, counts


class Histogram:
    """The data of ``histogramDP`` (clipped to [lower, upper]) or ``histogramDataAccess``
    (not clipped: infinite bounds) on Dask: n, the range, the finiteness check, and the
    counts per cell of breaks, each set of breaks counted once. :meth:`run` is the pass
    (with the breaks known before it); :meth:`counts` returns the counts of a set of
    breaks, from that pass, or from a further pass for breaks that could be known only
    after it (a rule whose n is unknown before the pass, or private; the data's own breaks
    of ``histogramDataAccess``)."""

    def __init__(self, x, lower, upper):
        self.parts, self.lower, self.upper = blocks(x), lower, upper
        self.size = known_size(x)
        self.range = (math.nan, math.nan)
        self._counted = {}

    def _pass(self, cells):
        parts = [dask.delayed(_block_histogram)(block, self.lower, self.upper, tuple(cells))
                 for block in self.parts]
        if not parts:
            empty = [np.zeros(b.size - 1, dtype=np.int64) for b, _ in cells]
            return 0, True, math.inf, -math.inf, empty
        (result,) = compute(_tree(parts, _merge_histograms))
        return result

    def run(self, name, min_size, cells=()):
        """The first pass: n, the range and finiteness (checked, ``name``'s messages), and
        the counts of the breaks ``cells`` (pairs (breaks, diddle))."""
        size, finite, low, high, counts = self._pass(list(cells))
        _checks.check_data_size(size, name, min_size)
        _checks.check_data_finite(finite, name)
        self.size = size
        self.range = (low, high) if size else (math.nan, math.nan)
        for (breaks, diddle), count in zip(cells, counts):
            self._counted[_key(breaks, diddle)] = count
        return self

    def counts(self, breaks, diddle):
        key = _key(breaks, diddle)
        if key not in self._counted:
            self._counted[key] = self._pass([(breaks, diddle)])[4][0]
        return self._counted[key]


def hist(x, breaks):
    """R's ``hist()`` of Dask data for ``histogramDataAccess`` (not private: its breaks come
    from the data), in two passes: n, the range and the checks, then the counts (as
    :func:`dppack.rcompat.hist`). Break points, a number of cells and Sturges' rule, which
    need only n and the range; Scott's and Freedman-Diaconis' rules (an sd, quartiles) and a
    function of the data are refused."""
    check_sample(x, "x", 1)
    kind, value = (("function", None) if callable(breaks)
                   else _hist.parse_breaks(breaks, None, stacklevel=4))
    if kind == "function" or (kind == "rule" and value != "sturges"):
        raise ValueError(
            "On Dask data, histogramDataAccess takes break points, a number of cells or "
            "'Sturges' (the other rules and functions need the data in memory)."
        )
    source = Histogram(x, -math.inf, math.inf).run("x", 1)
    xmin, xmax = source.range
    if kind == "points":
        points = value
    else:
        cells = value if kind == "cells" else _hist.check_cells(  # n values, no memory
            _pretty.nclass_sturges(np.broadcast_to(0.0, source.size)), stacklevel=4)
        points = rcompat.pretty(xmin, xmax, n=int(cells), min_n=1)
    counts = source.counts(points, _hist.fuzz(points, xmax - xmin))
    equidist = _hist.is_equidistant(points) if kind == "points" else True
    return rcompat.Histogram(points, counts, 0.5 * (points[1:] + points[:-1]), "x", equidist)


def _key(breaks, diddle):
    return np.asarray(breaks, dtype=np.float64).tobytes(), float(diddle)


# --------------------------------------------------------------------------------------------
# Contingency table
# --------------------------------------------------------------------------------------------


def factors_of(factors):
    """The factors of a Dask ``tableDP``: the columns of one Dask DataFrame, or the given
    Dask Series (or 1-d arrays)."""
    if len(factors) == 1 and type(factors[0]).__name__ == "DataFrame":
        frame = factors[0]
        factors = [frame[column] for column in frame.columns]
        if not factors:
            raise ValueError("nothing to tabulate")  # R's table() of no factor
        return factors
    if not all(_backends.is_dask(f) for f in factors):
        raise TypeError(
            "Factors on Dask must all be Dask collections, partitioned alike (e.g. columns "
            "of one Dask DataFrame)."
        )
    return list(factors)


def factor_names(factors):
    """The names of Dask factors (a Series' name, as in memory; None for an array)."""
    return [getattr(f, "name", None) if not hasattr(f, "chunks") else None for f in factors]


def _block_combinations(categories, *columns):
    """The observed combinations of one partition of the factors and their counts, as a
    pandas Series over a MultiIndex (a declared factor as its codes in its declared
    ``categories``, -1 for a missing value or one outside them); None when the factors'
    partitions differ in length."""
    import pandas as pd

    frame = {}
    size = None
    for i, (column, declared) in enumerate(zip(columns, categories)):
        if declared is not None:
            values = pd.Categorical(column, categories=declared).codes.astype(np.int64)
        else:
            values = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
            values = values.reshape(-1)
        if size is not None and values.size != size:
            return None
        size = values.size
        frame[i] = values
    table = pd.DataFrame(frame)
    return table.value_counts(dropna=False, sort=False)


def _merge_combinations(*parts):
    import pandas as pd

    if any(part is None for part in parts):
        return None
    return pd.concat(parts).groupby(level=list(range(parts[0].index.nlevels)),
                                    dropna=False, sort=False).sum()


def combinations(factors, declared, observed):
    """The one pass of ``tableDP``: ``(counts, levels)`` as ``rcompat.table``, or with ``observed``
    ``(cells, counts, levels)`` as ``rcompat._factor.observed_cells``, with R's and our messages.
    """
    partitions = [blocks(f) for f in factors]
    if len({len(p) for p in partitions}) > 1:
        raise ValueError(
            "The factors must be partitioned alike on Dask (e.g. columns of one Dask "
            "DataFrame)."
        )
    categories = tuple(list(f.cat.categories) if public else None
                       for f, public in zip(factors, declared))
    parts = [dask.delayed(_block_combinations)(categories, *block)
             for block in zip(*partitions)]
    (found,) = compute(_tree(parts, _merge_combinations))
    if found is None:
        raise ValueError("all arguments must have the same length")
    # pandas' value_counts of a one-column frame may give a one-level MultiIndex (tuples):
    # read each factor's level values, whatever the index kind.
    values = [found.index.get_level_values(i).to_numpy() for i in range(len(factors))]
    weights = found.to_numpy().astype(np.int64)
    codes, levels = [], []
    for public, column in zip(declared, values):
        if public:
            column = column.astype(np.int64)
            if np.any(column < 0):
                raise ValueError(_factor.MISSING_FACTOR)  # pandas' code for NA
            codes.append(column)
            levels.append(list(categories[len(levels)]))
        else:  # the level set of the distinct values is that of the data
            code, level = _factor.factorize(column)
            codes.append(code)
            levels.append(level)
    return _factor.tally(codes, levels, weights, observed=observed)
