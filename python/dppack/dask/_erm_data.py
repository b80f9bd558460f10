"""The Dask data of the ERM models: X, y and weights in the same partitions (:class:`DaskData`),
the per-chunk checks and the passes; metadata only until the fit asks for a pass.
"""

import itertools
import os

import dask
import dask.array as da
import numpy as np

from .. import _backends, _checks
from ..erm import _design
from . import _frames as frames

PARTITION_MESSAGE = (
    "X, y and weights must be partitioned alike (the same rows in each partition, as the "
    "columns of one Dask DataFrame are)."
)
UNKNOWN_CHUNKS_MESSAGE = (
    "{name} is in memory but X's chunk sizes are unknown: give {name} as a Dask collection "
    "partitioned as X (e.g. a column of the same Dask DataFrame)."
)
DASK_X_MESSAGE = "X must be a Dask collection when y or weights is one."
X_NUMERIC_MESSAGE = "X must be a numeric matrix or data frame."  # as_design_matrix's

# Each pass's graph gets a new name (unique in this process) without hashing its arguments
_GRAPHS = itertools.count()

# The checks of one chunk, in this order (:func:`_block_checks`)
_CHECKS = ("rows", "y_rows", "misaligned", "x_nonfinite", "y_nonfinite", "y_not_binary",
           "w_rows", "w_nan", "w_inf", "w_negative")


# --------------------------------------------------------------------------------------------
# Conversion (metadata only: nothing is computed)
# --------------------------------------------------------------------------------------------


def _as_dask_array(value, message):
    """A Dask DataFrame, Series or array as a float Dask array; ``message`` if not numeric."""
    import dask.dataframe as dd

    if not frames.dask_numeric(value):
        raise ValueError(message)
    if isinstance(value, (dd.DataFrame, dd.Series)):
        columns = len(value.columns) if isinstance(value, dd.DataFrame) else None
        # per partition, as the statistics convert theirs (pandas' nullable numbers become
        # floats, a missing value NaN; float64 columns are not copied)
        return value.map_partitions(frames.block_floats, columns,
                                    meta=np.empty((0,) if columns is None else (0, columns)))
    return value.astype(np.float64)


def as_matrix(X):
    """Dask X as an n x p float Dask array with one chunk of columns, checked from the metadata
    (a vector is one column); ValueError with the messages of
    :func:`dppack.erm._design.as_design_matrix`.
    """
    array = _as_dask_array(X, X_NUMERIC_MESSAGE)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError("X must be a numeric matrix or data frame (2 dimensions).")
    if array.shape[1] < 1:
        raise ValueError(_design.EMPTY_MESSAGE.format(name="X"))
    return array.rechunk({1: -1}) if array.numblocks[1] > 1 else array


def _as_vector(value, name, X, message):
    """y or weights as a 1-d float Dask array partitioned as X (metadata checks)."""
    if not _backends.is_dask(value):
        vector = _checks.as_numeric_array(value, message).reshape(-1)
        rows = X.chunks[0]
        if any(np.isnan(rows)):
            raise TypeError(UNKNOWN_CHUNKS_MESSAGE.format(name=name))
        return da.from_array(vector, chunks=(rows,)) if vector.size == sum(rows) else vector
    array = _as_dask_array(value, message)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(f"{name} must be a numeric vector or a one-column matrix.")
    if array.numblocks[0] == X.numblocks[0]:
        return array  # the rows of each chunk are compared by the first pass
    rows, own = X.chunks[0], array.chunks[0]
    if any(np.isnan(rows)) or any(np.isnan(own)):
        raise ValueError(PARTITION_MESSAGE)
    if sum(own) != sum(rows):
        return np.empty(int(sum(own)))  # refused by DaskData with the length message
    return array.rechunk((rows,))


def _co_aligned(frame, series):
    """Whether Dask knows ``series`` to come from the same partitions as ``frame``."""
    try:
        from dask.dataframe.dask_expr._expr import are_co_aligned
    except ImportError:  # pragma: no cover - another Dask: only known divisions are matched
        return False
    return bool(are_co_aligned(frame.expr, series.expr))


def _read_together(frame, series):
    """``frame``'s columns and the ``series`` as one selection of the collection they all come
    from (read once, Parquet with one block per column, :func:`_split_blocks`), or None.
    """
    try:
        from dask.dataframe.dask_expr import new_collection
        from dask.dataframe.dask_expr._expr import Projection
    except ImportError:  # pragma: no cover - another Dask: joined by assign
        return None
    base = frame.expr.frame if isinstance(frame.expr, Projection) else frame.expr
    names = list(frame.columns)
    for value in series:
        if not (isinstance(value.expr, Projection) and value.expr.frame is base):
            return None  # (Dask keeps one expression object per expression)
        names.append(value.name)
    if len(set(names)) != len(names):  # y among X's columns, or weights = y: joined by assign
        return None
    return new_collection(_split_blocks(base))[names]


def _split_blocks(expr):
    """A Dask Parquet read as the same read with pyarrow's ``split_blocks`` (float64 columns are
    then views of the Arrow buffers, not copied into one block); other expressions, or a read
    whose ``split_blocks`` the user set, as they are.
    """
    params = getattr(type(expr), "_parameters", ())
    if not type(expr).__name__.startswith("ReadParquet") or "_dataset_info_cache" not in params:
        return expr
    try:
        if "arrow_to_pandas" in params:  # the pyarrow file system's read
            key, options = "arrow_to_pandas", dict(expr.operand("arrow_to_pandas") or {})
            value = options
        else:
            key = "kwargs"
            value = dict(expr.operand("kwargs") or {})
            options = dict(value.get("arrow_to_pandas") or {})
        if "split_blocks" in options:
            return expr
        options = _ReadOptions({**options, "split_blocks": True})
        if key == "kwargs":
            value["arrow_to_pandas"] = options
        else:
            value = options
        return expr.substitute_parameters({key: value, "_dataset_info_cache": None})
    except Exception:  # pragma: no cover - another Dask: read as the user's collection is
        return expr


class _ReadOptions(dict):
    """pyarrow's ``to_pandas`` options of a Dask Parquet read, kept as given: Dask writes its own
    entries (a ``types_mapper`` among them) into the dict on every read, which would nest the
    mapper and change the expression's hash from read to read.
    """

    def __init__(self, options):
        super().__init__(options)
        self._given = dict(options)

    def get(self, key, default=None):
        if key == "types_mapper":  # the user's, not one a previous read wrote here
            return self._given.get(key, default)
        return super().get(key, default)

    def __dask_tokenize__(self):
        from dask.tokenize import tokenize

        return type(self).__name__, tokenize(sorted(self._given.items()))

    def __reduce__(self):
        return type(self), (self._given,)


def _one_frame(X, y, weights):
    """X (a Dask DataFrame or Series) with the Dask Series y and weights joined as one DataFrame
    when they are columns of the same data or have known divisions (others are compared chunk
    by chunk later).

    Returns
    -------
    (frame, joined)
        The DataFrame (X's columns, then y, weights) and the names joined to it.
    """
    import dask.dataframe as dd

    frame = X.to_frame() if isinstance(X, dd.Series) else X
    if not frames.dask_numeric(frame):
        raise ValueError(X_NUMERIC_MESSAGE)
    columns = {}
    for key, value, message in (("y", y, "y must be a numeric vector."),
                                ("weights", weights, "weights must be numeric.")):
        if isinstance(value, dd.DataFrame) and len(value.columns) == 1:
            value = value[value.columns[0]]
        if isinstance(value, dd.Series):
            if not frames.dask_numeric(value):
                raise ValueError(message)
            if _co_aligned(frame, value) or (frame.known_divisions and value.known_divisions):
                columns[key] = value
    if not columns:
        return frame, []
    joined = _read_together(frame, list(columns.values()))
    if joined is None:
        try:
            joined = frame.assign(**{f"__dppack_{key}__": value
                                     for key, value in columns.items()})
        except (ValueError, NotImplementedError):  # partitions that cannot be aligned
            raise ValueError(PARTITION_MESSAGE) from None
    return joined, list(columns)


class DaskData:
    """X, y and optional weights of a fit as Dask arrays, checked from their metadata: attributes
    ``X``, ``y``, ``weights``, ``p`` (columns of X) and ``passes`` (so far). TypeError for X in
    memory, or in-memory y or weights beside X of unknown chunk sizes; ValueError with the
    in-memory messages for data of the wrong type, shape or length.
    """

    def __init__(self, X, y, weights=None):
        import dask.dataframe as dd

        if not _backends.is_dask(X):
            raise TypeError(DASK_X_MESSAGE)
        self.frame, self.passes = None, 0
        if isinstance(X, (dd.DataFrame, dd.Series)):
            frame, joined = _one_frame(X, y, weights)
            p = len(frame.columns) - len(joined)
            if "y" in joined and (weights is None or "weights" in joined):
                # one DataFrame: its partitions reduced as they are (_partition_row)
                if p < 1:
                    raise ValueError(_design.EMPTY_MESSAGE.format(name="X"))
                self.frame, self.p, self.weighted = frame, p, weights is not None
                self.X = self.y = self.weights = None
                return
            array = _as_dask_array(frame, X_NUMERIC_MESSAGE)
            parts = {"y": y, "weights": weights}
            for i, key in enumerate(joined):
                parts[key] = array[:, p + i]
            X, y, weights = (array[:, :p] if joined else frame), parts["y"], parts["weights"]
        self.X = as_matrix(X)
        self.p = int(self.X.shape[1])
        self.y = _as_vector(y, "y", self.X, "y must be a numeric vector.")
        self.weights = (None if weights is None
                        else _as_vector(weights, "weights", self.X, "weights must be numeric."))
        self.weighted = self.weights is not None
        n = self.X.shape[0]
        for name, vector, message in (("y", self.y, _design.LABEL_COUNT_MESSAGE),
                                      ("weights", self.weights, _design.WEIGHTS_COUNT_MESSAGE)):
            if isinstance(vector, np.ndarray):  # in memory, of a length other than X's
                raise ValueError(message.format(n=n, size=vector.size))

    def blocks(self, block, size, **kwargs):
        """The sum over chunks of ``block(X_chunk, y_chunk, w_chunk, **kwargs)`` (``size``
        floats per chunk), lazily: a Dask array of ``size`` values."""
        if self.frame is not None:
            # each partition read and reduced in one task, X, y and weights views of it
            per_partition = self.frame.map_partitions(
                _partition_row, p=self.p, weighted=self.weighted, block=block,
                meta=np.empty((0, size)), **kwargs)
            return per_partition.sum(axis=0)
        arrays = [self.X, "ij", self.y, "i"]
        if self.weights is not None:
            arrays += [self.weights, "i"]
        try:
            # X has one chunk of columns (as_matrix): its index j is kept, not contracted, so
            # each task gets X's chunk itself (no concatenation, no copy)
            per_chunk = da.blockwise(
                _chunk_row, "ij", *arrays, adjust_chunks={"i": 1, "j": size},
                dtype=np.float64, meta=np.empty((0, 0)),
                name=f"dppack-erm-{os.getpid()}-{next(_GRAPHS)}", block=block, **kwargs)
        except ValueError:  # partitions that cannot be aligned (unknown sizes)
            raise ValueError(PARTITION_MESSAGE) from None
        return per_chunk.sum(axis=0)

    def compute(self, *sums):
        """One pass: ``dask.compute`` of the lazy sums, counted in :attr:`passes`."""
        self.passes += 1
        return dask.compute(*sums)

    def checked_pass(self, labels, block=None, size=0, **kwargs):
        """The first pass: the checks of every chunk (and, with ``block``, its sums); the
        in-memory errors raised on the driver. Returns (n, the sums or None)."""
        (total,) = self.compute(self.blocks(_checked_sums, len(_CHECKS) + size, sums=block,
                                            labels=labels, width=size, **kwargs))
        counts = dict(zip(_CHECKS, total[:len(_CHECKS)].tolist()))
        n = _raise_checks(counts, labels, self.weighted)
        return n, (None if block is None else total[len(_CHECKS):])


def _chunk_row(X, y, *weights, block, **kwargs):
    """One chunk's floats as a 1 x size row (``block`` on float arrays)."""
    w = frames.block_floats(weights[0]) if weights else None
    out = block(frames.block_floats(X, X.shape[1] if X.ndim == 2 else 1),
                frames.block_floats(y), w, **kwargs)
    return np.asarray(out, dtype=np.float64).reshape(1, -1)


def _partition_row(partition, p, weighted, block, **kwargs):
    """One partition's floats as a 1 x size row: ``block`` on its first ``p`` columns (X), the
    next (y) and the last (weights), views of the partition's values when they are float64
    (:func:`dppack.dask._frames.block_floats`): of its one 2-d block (X a 2-d array), or of each
    column when pandas holds the columns apart (a Parquet read, :func:`_split_blocks`; X a
    list of its columns, which the sums read a block of rows at a time,
    :func:`rows_block`)."""
    columns = p + 1 + weighted
    if getattr(getattr(partition, "_mgr", None), "nblocks", 1) > 1:
        values = [frames.block_floats(partition.iloc[:, j]) for j in range(columns)]
        out = block(values[:p], values[p], values[p + 1] if weighted else None, **kwargs)
        return np.asarray(out, dtype=np.float64).reshape(1, -1)
    values = frames.block_floats(partition, columns)
    out = block(values[:, :p], values[:, p], values[:, p + 1] if weighted else None, **kwargs)
    return np.asarray(out, dtype=np.float64).reshape(1, -1)


def finite_matrix(X):
    """Whether every value of X (a 2-d array, or a list of columns) is finite: its minimum
    and maximum are (a NaN or an infinite value makes one of them so; no boolean array)."""
    if not isinstance(X, np.ndarray):
        return all(finite_matrix(column) for column in X)
    return X.size == 0 or bool(np.isfinite(np.min(X)) and np.isfinite(np.max(X)))


def rows_of(X):
    """The rows of X: a 2-d array, or a list of (at least one) columns."""
    return X.shape[0] if isinstance(X, np.ndarray) else X[0].shape[0]


def column_buffer(X, rows):
    """A column-major buffer for blocks of ``rows`` rows of X given as columns (None for a
    2-d X, whose blocks are views)."""
    if isinstance(X, np.ndarray):
        return None
    return np.empty((min(rows, rows_of(X)), len(X)), order="F")


def rows_block(X, part, out):
    """Rows ``part`` (a slice) of X as a 2-d array: a view of a 2-d X; of X given as
    columns, their rows copied into ``out`` (:func:`column_buffer`, reused from block to
    block: a copy of a block that stays in the cache, where copying the columns into one
    block per partition costs a pass over memory)."""
    if isinstance(X, np.ndarray):
        return X[part]
    block = out[:X[0][part].shape[0]]
    for j, column in enumerate(X):
        block[:, j] = column[part]
    return block


def _block_checks(X, y, w, check_x=True):
    """The counts of :data:`_CHECKS` for one chunk (1 or 0 for the yes/no ones); X's
    finiteness (``x_nonfinite``) left 0 without ``check_x`` (the sums' range check
    finds it, :func:`_checked_sums`)."""
    rows = rows_of(X)
    misaligned = y.size != rows or (w is not None and w.size != rows)
    x_bad = check_x and not finite_matrix(X)
    y_finite = bool(np.all(np.isfinite(y)))
    y_not_binary = not bool(np.all((y == 0) | (y == 1)))
    w_rows, w_nan, w_inf, w_negative = 0, False, False, False
    if w is not None:
        w_rows, w_nan, w_inf = w.size, bool(np.any(np.isnan(w))), bool(np.any(np.isinf(w)))
        w_negative = bool(np.any(w < 0))
    return [rows, y.size, misaligned, x_bad, not y_finite, y_not_binary, w_rows, w_nan,
            w_inf, w_negative]


def _checked_sums(X, y, w, *, sums, labels, width, **kwargs):
    """The counts of :data:`_CHECKS` of a chunk, then its ``sums`` (``width`` floats) if it
    passes them, else zeros; X's finiteness comes from the sums' own range check.
    """
    checks = _block_checks(X, y, w, check_x=sums is None)
    if sums is None:
        return checks
    found = dict(zip(_CHECKS, checks))
    values = None
    if not (found["misaligned"] or found["y_nonfinite"]
            or (labels != "real" and found["y_not_binary"]) or found["w_nan"]
            or found["w_inf"] or found["w_negative"]):
        finite = [True]
        values = sums(X, y, w, finite=finite, **kwargs)
        found["x_nonfinite"] = not finite[0]
    else:
        found["x_nonfinite"] = not finite_matrix(X)
    if found["x_nonfinite"] or values is None:
        values = np.zeros(width)
    return np.concatenate([[found[key] for key in _CHECKS], values])


def _raise_checks(counts, labels, weighted):
    """The in-memory data errors, in the in-memory order (:func:`dppack.erm._design.
    prepare_design`, then :func:`dppack.erm._design.prepare_weights`); returns n."""
    n = int(counts["rows"])
    if n < 1:
        raise ValueError(_design.EMPTY_MESSAGE.format(name="X"))
    if counts["x_nonfinite"]:
        raise ValueError(_design.FINITE_MESSAGE.format(name="X"))
    if int(counts["y_rows"]) != n:
        raise ValueError(_design.LABEL_COUNT_MESSAGE.format(n=n, size=int(counts["y_rows"])))
    if counts["misaligned"] and not (weighted and int(counts["w_rows"]) != n):
        raise ValueError(PARTITION_MESSAGE)  # (weights of another length: their message)
    if counts["y_nonfinite"]:
        raise ValueError(_design.LABEL_FINITE_MESSAGE)
    if labels != "real" and counts["y_not_binary"]:
        raise ValueError(_design.BINARY_LABELS_MESSAGE)
    if weighted:
        if counts["w_nan"]:
            raise ValueError(_design.WEIGHTS_NAN_MESSAGE)
        if counts["w_inf"]:  # before the negative ones, as in memory (-Inf: this message)
            raise ValueError(_design.WEIGHTS_INFINITE_MESSAGE)
        if counts["w_negative"]:
            raise ValueError(_design.WEIGHTS_NEGATIVE_MESSAGE)
        if int(counts["w_rows"]) != n:
            raise ValueError(_design.WEIGHTS_COUNT_MESSAGE.format(n=n,
                                                                  size=int(counts["w_rows"])))
    return n
