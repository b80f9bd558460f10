"""LinearRegressionAdaSSP on Dask: the exact integer Gram matrix summed over partitions.

Two passes (``_n_passes`` = 2): the checks and n (which fix the grid,
:func:`dppack.erm._adassp_grid.grid_bits`), then the Gram matrix of each partition's grid records
(:func:`dppack.erm._adassp_grid.integer_gram`). Every partial sum is an integer below 2^53, so the
statistics, and the coefficients for a ``random_state``, are the in-memory ones bit for bit.
"""

import numpy as np

from ..erm import _adassp_grid as adassp
from ..erm import _design
from ._erm import DaskData


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
    ``add_bias``), the grid (:func:`dppack.erm._adassp_grid.grid_layout`) and the passes taken.

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
