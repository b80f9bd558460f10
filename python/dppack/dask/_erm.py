"""The ERM models on Dask: sums over partitions, the solver and the noise on the driver.

``LogisticRegressionDP``, ``svmDP`` and ``LinearRegressionDP`` route Dask data here from
their ``fit``. On the partitions: the in-memory per-row maps and the mergeable sums (checks,
loss value, gradient and Hessian sums, or X'X, X'y, y'y; exact integer limbs for a private
LinearRegressionDP). On the driver: the sums added, the checks raised with the in-memory
messages, the accountant, every draw, the solver and the release, as in memory.
Passes (the fit's private ``_n_passes``): 1 for LinearRegressionDP; one per distinct point the solver
evaluates for the margin losses (typically 10-40), plus one first for the Gaussian kernel.
Design notes (partitions, blocks, passes): :doc:`/guide/internals`. Nothing here is public.
"""

import copy
import functools

import numpy as np

from .. import _backends, _checks, _messages
from ..erm import _design
from ..erm import _grid
from ..erm.kst import GramStatistics, regression_grid
from ..erm._losses import EmpiricalRisk
from ._erm_data import (  # noqa: F401  (DaskData and the messages: reached as dask._erm.<name>)
    DASK_X_MESSAGE,
    PARTITION_MESSAGE,
    UNKNOWN_CHUNKS_MESSAGE,
    X_NUMERIC_MESSAGE,
    DaskData,
    as_matrix,
    column_buffer,
    finite_matrix,
    rows_block,
    rows_of,
)

__all__ = []

# Rows per block when a chunk's risk sums are taken (_risk_sums): a block's design of
# 65536 x 21 doubles (11 MB) is small beside a partition, and the per-block overhead is small
SUM_ROWS = 65536

# Rows per block of LinearRegressionDP's sums (_gram_sums): a block of 16384 x 20 doubles
# (2.6 MB) stays in the cache between its range check and its two products (about 10% less
# time than 65536 rows, measured on 5 x 10^6 x 20)
GRAM_ROWS = 16384


# --------------------------------------------------------------------------------------------
# CMS: the margin risk over the partitions
# --------------------------------------------------------------------------------------------


def _clipped_weights(w, bound):
    """The in-memory weights map on a chunk: min(w, bound)."""
    return None if w is None else _design.prepare_weights(w, bound, w.size)["weights"]


def _risk_sums(X, y, w, *, loss, rows, bound, theta, with_gradient, with_hessian,
               finite=None):
    """[value, gradient, Hessian] sums of one chunk over the design ``rows`` makes of it, a block
    of rows at a time (absent parts omitted); ``finite[0]`` set False on a non-finite X.
    """
    total = np.zeros(_risk_size(theta.size, with_gradient, with_hessian))
    w = _clipped_weights(w, bound)
    d = theta.size
    # by blocks of rows, into buffers reused from block to block: the design of a block
    # stays small, where a whole chunk's would double the chunk's memory
    # (flat: a block of any size is a Fortran-contiguous view of its start)
    n = rows_of(X)
    buffer = np.empty(min(SUM_ROWS, n) * d)
    scaled = np.empty_like(buffer) if with_hessian else None
    for start in range(0, n, SUM_ROWS):
        part = slice(start, start + SUM_ROWS)
        size = len(y[part])
        block = X[part] if isinstance(X, np.ndarray) else [column[part] for column in X]
        design, labels = rows(block, y[part],
                              buffer[:size * d].reshape(size, d, order="F"), finite)
        weights = None if w is None else w[part]
        risk = EmpiricalRisk(loss, design, labels, weights, order="any")
        value, gradient, _ = risk.sums(theta, with_gradient, False)
        total[0] += value
        if with_gradient:
            total[1:1 + d] += gradient
        if with_hessian:
            curvature = loss.second(labels * (design @ theta))
            if weights is not None:
                curvature *= weights
            block = np.multiply(design, np.sqrt(curvature)[:, None],
                                out=scaled[:size * d].reshape(size, d, order="F"))
            total[1 + d:] += (block.T @ block).ravel()
        del design, labels, risk
    return total


def _within(X, bounds, finite=None):
    """X clipped to the bounds: X itself when no value lies outside (a range check), else a new
    array; the range's minima and maxima also set ``finite[0]`` False for a non-finite X. X may
    be a list of columns.
    """
    if not isinstance(X, np.ndarray):
        return [_clipped(column, lower, upper, finite)
                for column, lower, upper in zip(X, bounds.lower, bounds.upper)]
    return _clipped(X, bounds.lower, bounds.upper, finite)


def _clipped(X, lower, upper, finite):
    """:func:`_within` on a 2-d X (``lower``, ``upper`` one per column) or one column."""
    if X.shape[0] == 0:
        return X
    low, high = np.min(X, axis=0), np.max(X, axis=0)
    if finite is not None and not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        finite[0] = False
    if np.all(low >= lower) and np.all(high <= upper):
        return X
    return np.clip(X, lower, upper)


def _margin_rows(X, y, out, finite, layout):
    """The linear models' per-row map (:func:`dppack.erm._design.apply_design`, labels -1/+1) into
    the column-major buffer ``out``; ``finite`` as :func:`_within`.
    """
    bias, divisors = int(layout["add_bias"]), layout["scale"]
    if bias:
        out[:, 0] = 1.0 if divisors is None else 1.0 / divisors[0]
    clipped = _within(X, layout["clip"], finite)
    if isinstance(clipped, np.ndarray):
        clipped = clipped.T  # its columns
    for j, column in enumerate(clipped):
        if divisors is None:
            out[:, bias + j] = column
        else:
            np.divide(column, divisors[bias + j], out=out[:, bias + j])
    return out, _design.label_values(y, "signed")


def _kernel_rows(X, y, out, finite, prefilter, add_bias):
    """The Gaussian kernel's per-row map: random Fourier features, labels -1/+1."""
    if finite is not None and not finite_matrix(X):
        finite[0] = False
    if not isinstance(X, np.ndarray):
        X = np.column_stack(X)
    return _design.fourier_features(X, prefilter, add_bias), _design.label_values(y, "signed")


def _risk_size(d, with_gradient, with_hessian):
    """The floats :func:`_risk_sums` returns per chunk."""
    return 1 + d * with_gradient + d * d * with_hessian


class PartitionedRisk(EmpiricalRisk):
    """The empirical risk (1/n) sum_i w_i f(y_i x_i'theta) of a margin loss over a Dask design,
    with :class:`dppack.erm._losses.EmpiricalRisk`'s interface; each evaluation is one pass
    (value, gradient and, once asked, Hessian together; the last few points cached).

    Parameters
    ----------
    data : DaskData
    options : dict
        ``loss``, ``rows`` (the per-row map) and ``bound`` (the weights', or None).
    d, n : int
        Columns of the design; rows (from the checked first pass).
    with_gradient, newton : bool
        Whether gradients are summed; whether the Hessian is summed from the first pass.
    first : ndarray, optional
        The sums at theta = 0 from the checked first pass.
    """

    _CACHE = 4

    def __init__(self, data, options, d, n, with_gradient, newton, first=None):
        self.data, self.options, self.d, self.n = data, options, d, n
        self.loss, self.with_gradient, self.ridge = options["loss"], with_gradient, 0.0
        self.X = self.y = self.weights = None
        self._with_hessian = newton and with_gradient
        self._cache = {}
        if first is not None:
            self._store(np.zeros(d), first, with_gradient, self._with_hessian)

    @property
    def shape(self):
        return self.n, self.d

    @property
    def passes(self):
        """Passes over the data so far (the fit's private ``_n_passes``)."""
        return self.data.passes

    def _store(self, theta, sums, with_gradient, with_hessian):
        d = self.d
        gradient = sums[1:1 + d] if with_gradient else None
        hessian = sums[1 + d:].reshape(d, d) if with_hessian else None
        if len(self._cache) >= self._CACHE:
            self._cache.pop(next(iter(self._cache)))
        entry = (float(sums[0]), gradient, hessian)
        self._cache[np.asarray(theta, dtype=np.float64).tobytes()] = entry
        return entry

    def _evaluate(self, theta, with_gradient, with_hessian):
        entry = self._cache.get(np.asarray(theta, dtype=np.float64).tobytes())
        if (entry is not None and (entry[1] is not None or not with_gradient)
                and (entry[2] is not None or not with_hessian)):
            return entry
        with_gradient = with_gradient or self.with_gradient or with_hessian
        with_hessian = with_hessian or (self._with_hessian and with_gradient)
        (sums,) = self.data.compute(self.data.blocks(
            _risk_sums, _risk_size(self.d, with_gradient, with_hessian), **self.options,
            theta=np.array(theta, dtype=np.float64), with_gradient=with_gradient,
            with_hessian=with_hessian))
        return self._store(theta, sums, with_gradient, with_hessian)

    def sums(self, theta, with_gradient=True, with_hessian=False):
        return self._evaluate(theta, with_gradient, with_hessian)

    def __call__(self, theta, with_gradient=True):
        value, gradient, _ = self._evaluate(theta, with_gradient, False)
        if not with_gradient:
            return value / self.n, None
        return value / self.n, gradient / self.n

    def hessian(self, theta):
        self._with_hessian = True  # the solver's Newton phase: sum it with every pass
        return self._evaluate(theta, True, True)[2] / self.n  # a new array


def weights_bound(weights, weights_upper_bound):
    """The data-free checks of the weights' bound: None without weights, else the bound."""
    if weights is None:
        return None
    if weights_upper_bound is None:
        raise ValueError(_design.WEIGHTS_BOUND_MESSAGE)
    return _checks.check_finite_positive_scalar(weights_upper_bound, "weights.upper.bound")


UNKNOWN_CATEGORIES_MESSAGE = (
    "y is a Dask categorical whose categories are unknown; declare them (the public label "
    "set), e.g. y.cat.set_categories([...]), or call y.cat.as_known()."
)


def _partition_codes(part):
    """One partition's labels as 0/1 floats, on its index."""
    import pandas as pd

    return pd.Series(_design.binary_codes(part), index=part.index, name=part.name)


def binary_labels(y):
    """Dask labels of a public label set as 0/1 floats (as :func:`dppack.erm._design.binary_codes`,
    from y's type, never its values); numeric or in-memory y unchanged.

    Raises
    ------
    ValueError
        A categorical with unknown categories, or not 2 declared categories.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> y = dd.from_pandas(pd.Series([True, False, True]), npartitions=2)
    >>> binary_labels(y).compute().tolist()
    [1.0, 0.0, 1.0]
    """
    import dask.dataframe as dd
    import pandas as pd

    if not _backends.is_dask(y):
        return y
    if isinstance(y, dd.DataFrame) and len(y.columns) == 1:
        y = y[y.columns[0]]
    if isinstance(y, dd.Series):
        dtype = y.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            if not y.cat.known:
                raise ValueError(UNKNOWN_CATEGORIES_MESSAGE)
            k = len(dtype.categories)
            if k != 2:
                raise _messages.value_error(_design.CATEGORY_COUNT_MESSAGE, k=k)
        elif not (dtype == bool or str(dtype) == "boolean"):
            return y
        return y.map_partitions(_partition_codes, meta=pd.Series([], dtype=np.float64,
                                                                   name=y.name))
    if getattr(y, "dtype", None) == bool:
        return y.astype(np.float64)
    return y


def margin_design(X, y, upper_bounds, lower_bounds, add_bias, loss, with_gradient, newton,
                  weights=None, weights_upper_bound=None):
    """The preprocess dict of LogisticRegressionDP and linear svmDP for Dask data: the keys of
    :func:`dppack.erm._design.prepare_design`, ``"X"`` a :class:`PartitionedRisk` whose first
    pass made the checks (in-memory messages, before any draw) and summed at theta = 0.
    """
    data = DaskData(X, binary_labels(y), weights)
    layout = _design.design_layout(upper_bounds, lower_bounds, data.p, add_bias, scale="l2")
    bound = weights_bound(weights, weights_upper_bound)
    d = layout["bounds"].size
    options = {"loss": loss, "bound": bound,
               "rows": functools.partial(_margin_rows, layout=layout)}
    with_hessian = newton and with_gradient  # PartitionedRisk's first passes
    n, first = data.checked_pass("binary", _risk_sums,
                                 _risk_size(d, with_gradient, with_hessian), **options,
                                 theta=np.zeros(d), with_gradient=with_gradient,
                                 with_hessian=with_hessian)
    risk = PartitionedRisk(data, options, d, n, with_gradient, newton, first)
    return {"X": risk, "y": None, "scale": layout["scale"],
            "row_norm_bound": layout["row_norm_bound"], "bounds": layout["bounds"],
            "target_bounds": None, "weights": None,
            "weights_upper_bound": 1.0 if bound is None else bound}


def kernel_design(X, y, add_bias, loss, with_gradient, draw_prefilter, weights=None,
                  weights_upper_bound=None):
    """The preprocess dict of Gaussian-kernel svmDP for Dask data: a pass of checks, then
    ``draw_prefilter(p)`` on the driver, then a :class:`PartitionedRisk` over the features.
    """
    data = DaskData(X, binary_labels(y), weights)
    bound = weights_bound(weights, weights_upper_bound)
    n, _ = data.checked_pass("binary")
    prefilter = draw_prefilter(data.p)
    D = prefilter.shape[0]
    options = {"loss": loss, "bound": bound,
               "rows": functools.partial(_kernel_rows, prefilter=prefilter, add_bias=add_bias)}
    risk = PartitionedRisk(data, options, D, n, with_gradient, True)
    return {"X": risk, "y": None, "scale": np.full(D, np.sqrt(2.0)), "weights": None,
            "weights_upper_bound": 1.0 if bound is None else bound}


# --------------------------------------------------------------------------------------------
# KST: LinearRegressionDP from X'X, X'y, y'y
# --------------------------------------------------------------------------------------------


def _gram_sums(X, y, w, *, layout, scales, shift, scale, finite=None):
    """[X'X, X'y, y'y] of one chunk's clipped, scaled rows (the in-memory maps) without building
    them, a block of :data:`GRAM_ROWS` rows at a time; ``finite`` as :func:`_within`.
    """
    bias, target = int(layout["add_bias"]), layout["target_bounds"]
    divisors = scales if layout["scale"] is None else layout["scale"] * scales
    p = scales.size
    gram, cross, yy, total = np.zeros((p, p)), np.zeros((p - bias, 2)), 0.0, 0.0
    n = rows_of(X)
    pair = np.empty((min(GRAM_ROWS, n), 2), order="F")
    columns = column_buffer(X, GRAM_ROWS)
    pair[:, 1] = 1.0
    for start in range(0, n, GRAM_ROWS):
        part = slice(start, start + GRAM_ROWS)
        rows = _within(rows_block(X, part, columns), layout["clip"], finite)
        both = pair[:rows.shape[0]]
        t = np.clip(y[part], target.lower[0], target.upper[0], out=both[:, 0])
        t -= shift
        t /= scale
        gram[bias:, bias:] += rows.T @ rows
        cross += rows.T @ both
        yy += float(t @ t)
        total += float(np.sum(t))
    xy = cross[:, 0]
    if bias:
        gram[0, 0] = n
        gram[0, 1:] = gram[1:, 0] = cross[:, 1]
        xy = np.concatenate([[total], xy])
    return np.concatenate([(gram / np.outer(divisors, divisors)).ravel(), xy / divisors,
                           [yy]])


def _grid_sums(X, y, w, *, layout, scales, shift, scale, grid, finite=None):
    """The exact integer W'W of one chunk's grid records (:func:`dppack.erm.kst.grid_regression`)
    as limbs (:func:`dppack.erm._grid.to_limbs`), so that Dask's sum stays exact.
    """
    bits, exponent = grid
    bias, target = int(layout["add_bias"]), layout["target_bounds"]
    p = scales.size
    top, y_factor = 2.0 ** bits, 2.0 ** (bits - exponent)
    y_top = p * y_factor
    n = rows_of(X)
    rows_per = min(_grid.block_rows(bits), max(n, 1))
    k = p - bias
    # the bounds and divisors repeated over a block: contiguous ufunc loops (as
    # dppack.erm._design.ColumnBounds.clip; the same values, min(max(x, L), U))
    lower = np.tile(layout["clip"].lower, (rows_per, 1))
    upper = np.tile(layout["clip"].upper, (rows_per, 1))
    # as grid_regression: (x / s) 2^k in one division
    divisors = np.tile(scales[bias:] * (1.0 / top), (rows_per, 1))
    units = np.empty((rows_per, k))
    W = np.empty((rows_per, p + 1))
    if bias:
        W[:, 0] = top  # the bias column: 1 / (1 2^-k), on the grid
    columns = column_buffer(X, rows_per)
    total = np.zeros((p + 1, p + 1), dtype=object)
    group, count = np.zeros((p + 1, p + 1), dtype=np.int64), 0
    with np.errstate(over="ignore", invalid="ignore"):  # the finiteness check's sum
        for start in range(0, n, rows_per):
            part = slice(start, start + rows_per)
            rows = rows_block(X, part, columns)
            m = rows.shape[0]
            if not _checks.block_is_finite(rows):
                if finite is not None:
                    finite[0] = False
                return np.zeros((p + 1) ** 2 * _grid.LIMBS)
            block, u = W[:m], units[:m]
            np.maximum(rows, lower[:m], out=u)
            np.minimum(u, upper[:m], out=u)
            np.divide(u, divisors[:m], out=u)
            np.rint(u, out=block[:, bias:p])
            np.clip(block[:, bias:p], -top, top, out=block[:, bias:p])  # as grid_regression
            t = np.clip(y[part], target.lower[0], target.upper[0])
            t -= shift
            t /= scale
            t *= y_factor
            np.rint(t, out=t)
            np.clip(t, -y_top, y_top, out=block[:, p])
            group += (block.T @ block).astype(np.int64)  # exact: partial sums <= 2^53
            count += 1
            if count == 2 ** 9:
                total, group, count = total + group.astype(object), group * 0, 0
    return _grid.to_limbs(total + group.astype(object))


def regression_statistics(X, y, upper_bounds, lower_bounds, add_bias, set_scaling,
                          on_grid=False):
    """LinearRegressionDP's data on Dask: the statistics of its scaled design from one pass.

    Parameters
    ----------
    X, y, upper_bounds, lower_bounds, add_bias
        As ``LinearRegressionDP.fit``.
    set_scaling : callable
        ``set_scaling(bounds, target_bounds)`` -> (scales, shift, scale), called before the pass.
    on_grid : bool, default False
        Sum the grid records exactly (a private fit): the in-memory statistics bit for bit.

    Returns
    -------
    dppack.erm.kst.GramStatistics
        With ``passes`` = 1.

    Raises
    ------
    ValueError, TypeError
        The in-memory messages, before any draw.
    """
    data = DaskData(X, y)
    layout = _design.design_layout(upper_bounds, lower_bounds, data.p, add_bias, target=True)
    scales, shift, scale = set_scaling(layout["bounds"], layout["target_bounds"])
    p = layout["bounds"].size
    if on_grid:
        grid = regression_grid(p)
        n, sums = data.checked_pass("real", _grid_sums, (p + 1) ** 2 * _grid.LIMBS,
                                    layout=layout, scales=scales, shift=shift, scale=scale,
                                    grid=grid)
        integers = _grid.from_limbs(sums).reshape(p + 1, p + 1)
        return GramStatistics.from_integers(n, integers, *grid, passes=data.passes)
    size = p * p + p + 1
    n, sums = data.checked_pass("real", _gram_sums, size, layout=layout, scales=scales,
                                shift=shift, scale=scale)
    return GramStatistics(n, sums[:p * p].reshape(p, p), sums[p * p:p * p + p], sums[-1],
                          passes=data.passes)


# --------------------------------------------------------------------------------------------
# predict: a lazy per-row map
# --------------------------------------------------------------------------------------------


def _predict_chunk(X, model, options):
    if X.shape[0] == 0:
        return np.empty(0)
    return np.asarray(model.predict(X, **options), dtype=np.float64)


def predict(model, X, **options):
    """``model.predict(X, **options)`` for Dask X: a lazy Dask array, the in-memory ``predict`` of
    a copy of the model on each chunk; the model's checks run first on one row of zeros.
    """
    array = as_matrix(X)
    model.predict(np.zeros((1, array.shape[1])), **options)  # the checks, on no data
    fitted = copy.copy(model)
    return array.map_blocks(_predict_chunk, model=fitted, options=options, drop_axis=1,
                            dtype=np.float64, meta=np.empty(0))
