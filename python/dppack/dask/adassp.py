"""LinearRegressionAdaSSP on Dask: the exact integer Gram matrix summed over partitions.

``dppack.LinearRegressionAdaSSP.fit`` routes Dask data here (a Dask array or DataFrame X, a
Dask array or Series y). Two passes over the data, each one ``dask.compute`` of a small
reduction (the fitted model's ``n_passes_`` = 2):

1. the checks of every partition and n (the in-memory errors, raised on the driver), from
   which the records' grid 2^-k follows (:func:`dppack.erm.adassp.grid_bits`);
2. per partition, the in-memory per-record map (clipping to the bounds, the bias column,
   :func:`dppack.erm.adassp.grid_records`) and the Gram matrix of the grid records
   (:func:`dppack.erm.adassp.integer_gram`), added over the partitions.

Every partial sum, within a partition and across them, is an integer below 2^53 (n 4^k <=
2^52), so the sum is exact in any order: the statistics are the in-memory ones bit for bit,
and the noise, drawn on the driver as in memory, gives the same coefficients for the same
``random_state``.
"""

import numpy as np

from ..erm import adassp
from ..erm import design as _design
from .erm import DaskData


def _chunk_gram(X, y, w, *, bounds, target_bounds, add_bias, grid):
    """The (p + 1)^2 Gram matrix of one chunk's grid records, flattened."""
    if isinstance(X, list):  # a partition whose columns pandas holds apart
        X = np.column_stack(X) if X else np.empty((y.size, 0))
    clipped = bounds.clip(np.asarray(X, dtype=np.float64), add_bias)
    response = np.clip(np.asarray(y, dtype=np.float64), target_bounds.lower[0],
                       target_bounds.upper[0])
    return adassp.integer_gram(*adassp.grid_records(clipped, response, grid)).ravel()


def grid_statistics(X, y, upper_bounds, lower_bounds, add_bias):
    """n, the exact integer Gram matrix of the grid records [X, y] (bias column first with
    ``add_bias``), the grid (:func:`dppack.erm.adassp.grid_layout`) and the passes taken.

    Raises
    ------
    ValueError, TypeError
        The in-memory messages, before any draw.
    """
    data = DaskData(X, y)
    layout = _design.design_layout(upper_bounds, lower_bounds, data.p, add_bias, target=True)
    n, _ = data.checked_pass("real")
    grid = adassp.grid_layout(layout["bounds"], layout["target_bounds"], add_bias,
                              adassp.grid_bits(n))
    size = (layout["bounds"].size + 1) ** 2
    (total,) = data.compute(data.blocks(_chunk_gram, size, bounds=layout["clip"],
                                        target_bounds=layout["target_bounds"],
                                        add_bias=layout["add_bias"], grid=grid))
    side = layout["bounds"].size + 1
    return n, np.asarray(total, dtype=np.float64).reshape(side, side), grid, data.passes
